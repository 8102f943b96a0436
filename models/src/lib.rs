//! Loom and shuttle models of the hazptr core, its torture harness and scale benchmarks.

pub mod torture;
