//! The memory models.
//!
//! The native models, written in Rust from their published definitions, are the fast
//! path: [`lkmm`] (the Linux-kernel memory model, with [`lkmm::terms`] naming its
//! relations for explanations), [`sc`], [`tso`] and [`rc11`] (C11's repaired model, for
//! tests in the C11 dialect).
//! Each implements the [`crate::models::model::MemoryModel`] strategy the enumeration consults.
//! Every other model runs from its own files in [`cat`], the interpreter of herd7's model
//! language, which gives the same answers as the native models on the files they
//! implement.

pub mod cat;
pub mod lkmm;
pub mod model;
pub mod rc11;
pub mod sc;
pub mod tso;
