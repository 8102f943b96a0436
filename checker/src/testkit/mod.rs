//! The testing kit: what the tests, benchmarks and fuzzers of hazmat and of its users
//! build on.
//!
//! [`generate`] makes random litmus programs (and the growth benchmark's families) and
//! shrinks them; [`harness`] turns a directory of litmus files into `cargo test` cases
//! judged by their `Result:` lines; [`models`] makes random cat models, held to herd7 by the
//! tests.
//!
//! It stands above the library's root and may import all of it; nothing in the library
//! imports it, but for unit tests.

pub mod generate;
pub mod harness;
pub mod models;
