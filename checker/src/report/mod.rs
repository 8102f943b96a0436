//! Reports: what a person or a script reads of an outcome.
//!
//! [`write`](mod@write) prints herd7's text, JSON and the summary table of many files; [`read`]
//! reads herd7's text back and compares two answers; [`expected`] compares an outcome with
//! the `Result:` lines of its file; [`explain`] says why a state is allowed or forbidden;
//! [`trace`] prints an execution as text and [`graph`] makes it a graph drawn by [`dot`]
//! and [`svg`].
//!
//! It may import every floor below it ([`crate::exec`], [`crate::front`],
//! [`crate::models`], [`crate::engine`]), never the testing kit or the command line; it
//! returns text and does no I/O.

pub mod dot;
pub mod expected;
pub mod explain;
pub mod graph;
pub mod read;
mod reads;
pub mod svg;
pub mod trace;
pub mod write;
