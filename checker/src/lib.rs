//! Exhaustive litmus-test checking under the Linux-kernel memory model, SC and TSO.

pub mod event;
pub mod execution;
pub mod lkmm;
pub mod model;
pub mod relation;
