//! The engine: every candidate execution of a program, judged by a memory model, summed
//! up as an outcome.
//!
//! `paths` runs each thread alone with symbolic reads (the first half of herd7's
//! semantics), `unsolved` finds the accesses whose address herd7 may not solve, which the
//! paths try at every location, `nowhere` finds the reads at a constant address that is
//! no location which herd7 stops on before it searches, `symbol` replays herd7's names for unsolved values, [`enumerate`] picks
//! reads-from and coherence and solves the values (the second half), sharing a large
//! search among threads (`enumerate::split`), [`symmetry`] builds one execution of each
//! group of renamed copies, `pieces` counts a pipeline of threads piece by piece,
//! [`outcome`] holds what the allowed executions add up to, and [`decide`] is the one
//! place that chooses among those searches for a test.
//! [`interp`] is a second, operational engine (every interleaving under shuttle's
//! scheduler), which the differential tests hold against the axiomatic one.
//!
//! It may import [`crate::exec`], [`crate::front`] and [`crate::models`], never the
//! reports, the testing kit or the command line; it does no I/O.

pub mod decide;
pub mod enumerate;
pub mod interp;
pub(crate) mod nowhere;
pub mod outcome;
pub(crate) mod paths;
pub(crate) mod pieces;
pub(crate) mod symbol;
pub mod symmetry;
pub(crate) mod unsolved;
