//! Executions: the data every later stage shares.
//!
//! [`event`] (the reads, writes and fences of one run, with herd7's annotations),
//! [`relation`] (event sets and relations as bit matrices, generic over their width),
//! [`execution`] (a candidate execution: events and the base relations) and [`witness`]
//! (a derived relation's pair explained as a path of labelled steps).
//!
//! This is the lowest floor of the checker: it imports nothing of the crate outside
//! itself, and knows nothing of litmus syntax, models or the search.

pub mod event;
pub mod execution;
pub mod relation;
pub mod witness;
