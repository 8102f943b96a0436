//! A torture harness for the hazptr core on real threads, in the manner of the kernel's
//! rcutorture and hazptrtorture.
//!
//! Writers publish objects from a fixed pool (module `pool`), unlink them, wait for readers
//! with `synchronize` (or hand them over with `retire`), and age them through a pipeline
//! before freeing and recycling them.
//! Readers protect objects, hold them for random short or long times, yield, sleep and nest
//! protections, and check each object's poison marker, generation and pipe count: a reader
//! that sees a freed or recycled object counts a BUG.
//! Sticky addresses (module `sticky`) that are never unlinked give the lockdep-like
//! scenarios, where a writer waits on an address readers keep re-acquiring.
//!
//! Each [`Scenario`] of the seeds becomes a plan (`scenario::Plan`); [`run`] executes it and
//! returns a [`Report`] whose [lines](Report::lines) are the run's statistics, ending in
//! `SUCCESS` or `FAILURE` and the BUG count.
//! [`Weakening::SkipSynchronize`] is the negative control: it must end in `FAILURE`.

use core::time::Duration;

mod harness;
mod pool;
mod report;
mod rng;
mod scenario;
mod sticky;

pub use pool::PIPE_LEN;
pub use report::{Latency, Report, Verdict};
pub use scenario::{Scenario, UnknownScenario};

/// A deliberate defect, for negative controls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weakening {
    /// Writers skip `synchronize` and free retired objects at once.
    SkipSynchronize,
}

/// What to run.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// The scenario.
    pub scenario: Scenario,
    /// How long each run (each step of a sweep) lasts.
    pub duration: Duration,
    /// Reader threads, overriding the scenario's count.
    pub readers: Option<usize>,
    /// Pool writer threads, overriding the scenario's count (at least one is kept).
    pub writers: Option<usize>,
    /// Seed of every thread's random stream.
    pub seed: u64,
    /// A deliberate defect, for negative controls.
    pub weakening: Option<Weakening>,
    /// Print interim statistics this often.
    pub stat_interval: Option<Duration>,
    /// The reader counts of a sweep; [`Scenario::SWEEP_READERS`] by default.
    pub sweep: Vec<usize>,
}

impl Options {
    /// `scenario` for `duration`, with the scenario's thread counts and seed 1.
    pub fn new(scenario: Scenario, duration: Duration) -> Self {
        Self {
            scenario,
            duration,
            readers: None,
            writers: None,
            seed: 1,
            weakening: None,
            stat_interval: None,
            sweep: Scenario::SWEEP_READERS.to_vec(),
        }
    }

    /// Sets [`Options::readers`].
    pub fn readers(mut self, n: usize) -> Self {
        self.readers = Some(n);
        self
    }

    /// Sets [`Options::writers`].
    pub fn writers(mut self, n: usize) -> Self {
        self.writers = Some(n);
        self
    }

    /// Sets [`Options::seed`].
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Sets [`Options::weakening`].
    pub fn weakening(mut self, weakening: Weakening) -> Self {
        self.weakening = Some(weakening);
        self
    }

    /// Sets [`Options::stat_interval`].
    pub fn stat_interval(mut self, interval: Duration) -> Self {
        self.stat_interval = Some(interval);
        self
    }

    /// Sets [`Options::sweep`].
    pub fn sweep(mut self, readers: Vec<usize>) -> Self {
        self.sweep = readers;
        self
    }
}

/// Runs the scenario and returns one report, or one per step for [`Scenario::Sweep`] (each
/// step lasting the full duration).
///
/// `progress` receives interim statistics lines when [`Options::stat_interval`] is set.
pub fn run(options: &Options, progress: &mut dyn FnMut(&str)) -> Vec<Report> {
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    let skip = options.weakening == Some(Weakening::SkipSynchronize);
    let mut plan = scenario::Plan::of(options.scenario, options.duration, cores);
    if let Some(n) = options.readers {
        plan.readers = n;
    }
    if let Some(n) = options.writers {
        plan.writers = n.max(1);
    }
    let once = |label: &str, plan: scenario::Plan, progress: &mut dyn FnMut(&str)| {
        harness::run(
            label,
            plan,
            options.duration,
            options.seed,
            skip,
            options.stat_interval,
            progress,
        )
    };
    if options.scenario == Scenario::Sweep {
        options
            .sweep
            .iter()
            .map(|&readers| {
                let step = scenario::Plan {
                    readers,
                    ..plan.clone()
                };
                once(&format!("SWEEP/{readers}"), step, progress)
            })
            .collect()
    } else {
        vec![once(options.scenario.name(), plan, progress)]
    }
}
