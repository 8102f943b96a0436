//! Running a loom model: a documented preemption bound, the number of executions explored, and
//! the steps of the failing execution when one fails.
//!
//! Loom explores every interleaving of a model, and every value a load may read under the C11
//! memory model, up to a bound on preemptions (switches away from a thread that could have
//! gone on).
//! The bound keeps a model small enough to be exhaustive in seconds; the environment variable
//! `LOOM_MAX_PREEMPTIONS`, which loom itself reads, overrides it for deeper runs.
//! Every model here runs on [`TracedLoom`](crate::trace::TracedLoom), so when an execution
//! fails, its log is the failing execution's steps: thread, code location and operation, up
//! to the failure.
//! Loom explores in a fixed order, so the command a failure prints (the test, at the same
//! bound) replays the same failing execution.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use hazptr::raw::weaken::{self, Weakening};

use crate::trace;
use crate::{Explored, Failure};

/// The preemption bound a model runs with: `LOOM_MAX_PREEMPTIONS` if set, else `default`.
pub fn preemption_bound(default: usize) -> usize {
    std::env::var("LOOM_MAX_PREEMPTIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Explores the loom model `f`, named `name` (the name of the test that runs it, so that the
/// failure's command can rerun it), within the preemption bound
/// [`preemption_bound(default_bound)`](preemption_bound).
///
/// Returns how many executions were explored, or the first failing execution with its steps.
pub fn explore<F>(name: &str, default_bound: usize, f: F) -> Result<Explored, Box<Failure>>
where
    F: Fn() + Sync + Send + 'static,
{
    let bound = preemption_bound(default_bound);
    let executions = Arc::new(AtomicUsize::new(0));
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(bound);
    let counter = Arc::clone(&executions);
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        builder.check(move || {
            // Relaxed: a plain counter outside the model, read after the run.
            counter.fetch_add(1, Relaxed);
            trace::begin();
            f();
            trace::end();
        })
    }));
    trace::end();
    let executions = executions.load(Relaxed);
    match outcome {
        Ok(()) => Ok(Explored {
            model: name.to_owned(),
            checker: format!("loom, preemption bound {bound}"),
            runs: executions,
        }),
        Err(payload) => Err(Box::new(Failure {
            model: name.to_owned(),
            checker: format!("loom, preemption bound {bound}"),
            message: trace::payload_message(&*payload),
            runs: executions,
            steps: trace::render(),
            // Loom explores in a fixed order: running the test again replays the execution.
            replay: Some(format!(
                "LOOM_MAX_PREEMPTIONS={bound} cargo test -p hazmat-models {name} -- --exact --nocapture"
            )),
        })),
    }
}

/// Explores the loom model `f` like [`explore`] and panics with the failing execution's steps
/// if one fails; prints the number of executions explored.
#[track_caller]
pub fn check<F>(name: &str, default_bound: usize, f: F) -> Explored
where
    F: Fn() + Sync + Send + 'static,
{
    match explore(name, default_bound, f) {
        Ok(explored) => {
            eprintln!("{explored}");
            explored
        }
        Err(failure) => panic!("{failure}"),
    }
}

/// Runs a negative control: the loom model `f`, explored like [`explore`] with `weakening` in
/// force, must fail, and fail as a use after free shows under loom, with a causality
/// violation (the model's read of a freed object races with the free). Prints the failure
/// and returns it for further checks; panics if the model passes.
#[track_caller]
pub fn negative_control<F>(
    name: &str,
    default_bound: usize,
    weakening: Weakening,
    f: F,
) -> Box<Failure>
where
    F: Fn() + Sync + Send + 'static,
{
    let _weak = weaken::set(weakening);
    let failure = match explore(name, default_bound, f) {
        Ok(explored) => panic!("the model must see {weakening:?}, yet it passed: {explored}"),
        Err(failure) => failure,
    };
    eprintln!("{failure}");
    assert!(failure.message.contains("Causality violation"), "{failure}");
    failure
}
