//! Running a shuttle model: random or PCT exploration from a printed seed, a failing schedule
//! printed with the exact command that replays it, and replays that print every step.
//!
//! A [`Model`] names its test binary and test function, so that a failure can print
//!
//! ```text
//! HAZMAT_REPLAY=<model>@<schedule> cargo test -p hazmat-models --test <binary> <model> -- --exact --nocapture
//! ```
//!
//! Run with `HAZMAT_REPLAY` naming it, the same model replays that one schedule instead of
//! exploring, and prints the interleaving step by step: thread, code location in the core or
//! the model, and operation (see [`crate::trace`]).
//! A model whose name the variable does not name explores as usual.
//!
//! Deeper runs: `HAZMAT_SHUTTLE_ITERATIONS` multiplies every model's number of schedules,
//! and `HAZMAT_SHUTTLE_SEED` (hexadecimal) changes the seed they start from.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex};

use shuttle::scheduler::{PctScheduler, RandomScheduler, ReplayScheduler, Scheduler};
use shuttle::{FailurePersistence, MaxSteps, Runner};

use crate::schedule::{self, Recorded, Recorder};
use crate::trace;
use crate::{Explored, Failure};

/// The seed every model starts from unless `HAZMAT_SHUTTLE_SEED` says otherwise: runs are
/// deterministic by default.
pub const DEFAULT_SEED: u64 = 0x4a5a_6d61_7421;

/// How shuttle chooses schedules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Uniformly random choices at every scheduling point.
    Random,
    /// Probabilistic concurrency testing: random priorities, with `depth - 1` priority changes;
    /// it finds a bug of depth `depth` with a probability that does not shrink with run length.
    Pct {
        /// The bug depth aimed at.
        depth: usize,
    },
}

/// A shuttle model: where it lives, and how to explore it.
#[derive(Clone, Debug)]
pub struct Model {
    /// The test binary (the file name under `tests/`, without `.rs`).
    pub binary: &'static str,
    /// The model's name: the test function that runs it.
    pub name: &'static str,
    /// How schedules are chosen.
    pub strategy: Strategy,
    /// Schedules to explore, before `HAZMAT_SHUTTLE_ITERATIONS` multiplies it.
    pub iterations: usize,
    /// Scheduling points after which an execution counts as stuck (a livelock) and fails.
    pub max_steps: usize,
}

impl Model {
    /// A model named `name` in test binary `binary`: random, 200 schedules, 20 000 steps.
    pub fn new(binary: &'static str, name: &'static str) -> Self {
        Self {
            binary,
            name,
            strategy: Strategy::Random,
            iterations: 200,
            max_steps: 20_000,
        }
    }

    /// Sets the strategy.
    pub fn strategy(mut self, strategy: Strategy) -> Self {
        self.strategy = strategy;
        self
    }

    /// Sets the number of schedules.
    pub fn iterations(mut self, iterations: usize) -> Self {
        self.iterations = iterations;
        self
    }

    /// Sets the step bound.
    pub fn max_steps(mut self, max_steps: usize) -> Self {
        self.max_steps = max_steps;
        self
    }

    /// The schedule `HAZMAT_REPLAY` names for this model, if it names this one.
    pub fn requested_replay(&self) -> Option<String> {
        let value = std::env::var("HAZMAT_REPLAY").ok()?;
        let (model, schedule) = value.split_once('@')?;
        (model == self.name).then(|| schedule.to_owned())
    }

    /// The command that replays `schedule` of this model.
    pub fn replay_command(&self, schedule: &str) -> String {
        format!(
            "HAZMAT_REPLAY={}@{schedule} cargo test -p hazmat-models --test {} {} -- --exact --nocapture",
            self.name, self.binary, self.name
        )
    }

    fn seed() -> u64 {
        std::env::var("HAZMAT_SHUTTLE_SEED")
            .ok()
            .and_then(|s| u64::from_str_radix(s.trim_start_matches("0x"), 16).ok())
            .unwrap_or(DEFAULT_SEED)
    }

    fn scale() -> usize {
        std::env::var("HAZMAT_SHUTTLE_ITERATIONS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(1)
    }

    fn config(&self) -> shuttle::Config {
        let mut config = shuttle::Config::new();
        // The runner prints its own report, with a command instead of a bare schedule.
        config.failure_persistence = FailurePersistence::None;
        config.max_steps = MaxSteps::FailAfter(self.max_steps);
        config.silence_warnings = true;
        config
    }

    /// Explores the model `f`: replays the schedule `HAZMAT_REPLAY` names for it, if any;
    /// otherwise explores with the model's strategy from the seed, and on failure returns the
    /// failing schedule with the command that replays it.
    pub fn explore<F>(&self, f: F) -> Result<Explored, Box<Failure>>
    where
        F: Fn() + Send + Sync + 'static,
    {
        if let Some(schedule) = self.requested_replay() {
            let outcome = self.replay(&schedule, f);
            match &outcome {
                Ok(explored) => eprintln!("{explored}"),
                Err(failure) => eprintln!("{failure}"),
            }
            return outcome;
        }
        let seed = Self::seed();
        let iterations = self.iterations * Self::scale();
        let (checker, scheduler): (String, Box<dyn Scheduler + Send>) = match self.strategy {
            Strategy::Random => (
                format!("shuttle random, seed {seed:x}, {iterations} schedules"),
                Box::new(RandomScheduler::new_from_seed(seed, iterations)),
            ),
            Strategy::Pct { depth } => (
                format!("shuttle PCT depth {depth}, seed {seed:x}, {iterations} schedules"),
                Box::new(PctScheduler::new_from_seed(seed, depth, iterations)),
            ),
        };
        let (recorder, current) = Recorder::new(scheduler);
        match self.run(recorder, f) {
            Ok(runs) => Ok(Explored {
                model: self.name.to_owned(),
                checker,
                runs,
            }),
            Err((message, runs)) => {
                let schedule = schedule::encode(&lock(&current));
                Err(Box::new(Failure {
                    model: self.name.to_owned(),
                    checker,
                    message,
                    runs,
                    steps: String::new(),
                    replay: Some(self.replay_command(&schedule)),
                }))
            }
        }
    }

    /// Replays one schedule written by [`schedule::encode`] and returns its outcome, the failing
    /// execution's steps included; a schedule that is not one fails with a message saying so.
    pub fn replay<F>(&self, schedule: &str, f: F) -> Result<Explored, Box<Failure>>
    where
        F: Fn() + Send + Sync + 'static,
    {
        let checker = "shuttle replay".to_owned();
        let Some(recorded) = schedule::decode(schedule) else {
            return Err(Box::new(Failure {
                model: self.name.to_owned(),
                checker,
                message: format!("`{schedule}` is not a schedule (expected SEED:STEPS)"),
                runs: 0,
                steps: String::new(),
                replay: None,
            }));
        };
        let (recorder, _) =
            Recorder::new(ReplayScheduler::new_from_schedule(recorded.to_schedule()));
        let outcome = self.run(recorder, f);
        let steps = trace::render();
        match outcome {
            Ok(runs) => {
                eprintln!(
                    "replayed schedule of `{}`, no failure; steps:\n{steps}",
                    self.name
                );
                Ok(Explored {
                    model: self.name.to_owned(),
                    checker,
                    runs,
                })
            }
            Err((message, runs)) => Err(Box::new(Failure {
                model: self.name.to_owned(),
                checker,
                message,
                runs,
                steps,
                replay: Some(self.replay_command(schedule)),
            })),
        }
    }

    /// Explores like [`Model::explore`] and panics with the failure report if a schedule
    /// fails; prints the number of schedules explored.
    #[track_caller]
    pub fn check<F>(&self, f: F) -> Explored
    where
        F: Fn() + Send + Sync + 'static,
    {
        match self.explore(f) {
            Ok(explored) => {
                eprintln!("{explored}");
                explored
            }
            Err(failure) => panic!("{failure}"),
        }
    }

    /// Runs `f` under `scheduler`; returns the number of executions, or the panic message and
    /// the number of executions begun.
    fn run<S, F>(&self, scheduler: Recorder<S>, f: F) -> Result<usize, (String, usize)>
    where
        S: Scheduler + 'static,
        F: Fn() + Send + Sync + 'static,
    {
        let begun = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = Arc::clone(&begun);
        let runner = Runner::new(scheduler, self.config());
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            runner.run(move || {
                // Relaxed: a plain counter outside the model, read after the run.
                counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                trace::begin();
                f();
                trace::end();
            })
        }));
        trace::end();
        outcome.map_err(|payload| {
            (
                trace::payload_message(&*payload),
                begun.load(std::sync::atomic::Ordering::Relaxed),
            )
        })
    }
}

fn lock(current: &Mutex<Recorded>) -> std::sync::MutexGuard<'_, Recorded> {
    current.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replay_of_text_that_is_no_schedule_says_so() {
        let failure = Model::new("shuttle_x", "model_y")
            .replay("not a schedule", || {})
            .expect_err("nothing to replay");
        assert_eq!(
            failure.message,
            "`not a schedule` is not a schedule (expected SEED:STEPS)"
        );
    }

    #[test]
    fn the_replay_command_names_the_binary_and_the_model() {
        let model = Model::new("shuttle_x", "model_y");
        assert_eq!(
            model.replay_command("1f:0x2,1"),
            "HAZMAT_REPLAY=model_y@1f:0x2,1 cargo test -p hazmat-models --test shuttle_x model_y -- --exact --nocapture"
        );
    }
}
