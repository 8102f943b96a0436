//! The herd7 C litmus language: AST, parser, printer and diagnostics.
//!
//! This crate knows nothing of executions or memory models.
