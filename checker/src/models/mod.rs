//! The memory models: what decides whether a candidate execution is allowed.
//!
//! [`model`] is the strategy the engine consults ([`model::MemoryModel`]).
//! The native models, written in Rust from their published definitions, are the fast
//! path: [`lkmm`] (the Linux-kernel memory model, with [`lkmm::terms`] naming its
//! relations for explanations), [`sc`], [`tso`] and [`rc11`] (C11's repaired model, for
//! tests in the C11 dialect).
//! Every other model runs from its own files in [`cat`], the interpreter of herd7's model
//! language, which gives the same answers as the native models on the files they
//! implement; [`choose`] is the one place that decides which runs a model given by its
//! files, and [`optace`] is herd7's `-optace`, the candidates herd7's own code leaves
//! out before a model sees them.
//!
//! It may import [`crate::exec`] and [`crate::front`] (the dialect of a test's calls, a
//! user's macros), never the engine, the reports, the testing kit or the command line.

pub mod cat;
pub mod choose;
pub mod lkmm;
pub mod model;
pub mod optace;
pub mod rc11;
pub mod sc;
pub mod tso;
