//! Loom and shuttle models of the hazptr core, its torture harness and scale benchmarks.
//!
//! The models themselves are the integration tests (`tests/loom_*.rs`, `tests/shuttle_*.rs`);
//! this library holds what they share:
//!
//! - [`trace`]: a backend wrapper that logs every operation of the core with its thread and
//!   code location, so that a failure prints the interleaving behind it;
//! - [`exhaustive`]: running a loom model within a preemption bound, counting executions;
//! - [`schedule`]: shuttle schedules as short text, recorded while exploring;
//! - [`replay`]: running a shuttle model (random or PCT), printing a failing schedule with the
//!   command that replays it, and replaying it step by step.
//!
//! [`torture`] is the harness that runs the core on real threads (binary `hazmat-torture`).

use core::fmt;

pub mod exhaustive;
pub mod replay;
pub mod schedule;
pub mod torture;
pub mod trace;

/// What a model run explored without finding a failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explored {
    /// The model's name.
    pub model: String,
    /// The checker and its bounds, such as `loom, preemption bound 2`.
    pub checker: String,
    /// Executions (loom) or schedules (shuttle) explored.
    pub runs: usize,
}

impl fmt::Display for Explored {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "model `{}` passed: {} runs explored ({})",
            self.model, self.runs, self.checker
        )
    }
}

/// A model run that found a failing execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The model's name.
    pub model: String,
    /// The checker and its bounds.
    pub checker: String,
    /// What failed: the panic message of the failing execution.
    pub message: String,
    /// Executions or schedules run, the failing one included.
    pub runs: usize,
    /// The failing execution's steps, one a line (empty if not rendered).
    pub steps: String,
    /// The shell command that replays the failure, where the checker can replay one.
    pub replay: Option<String>,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "model `{}` failed on run {} ({}): {}",
            self.model, self.runs, self.checker, self.message
        )?;
        if let Some(replay) = &self.replay {
            writeln!(f, "replay it step by step with:\n    {replay}")?;
        }
        if !self.steps.is_empty() {
            writeln!(f, "steps of the failing execution:")?;
            f.write_str(&self.steps)?;
        }
        Ok(())
    }
}
