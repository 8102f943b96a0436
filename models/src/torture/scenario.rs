//! The scenarios, named as in the seeds, and the plan each one turns into.
//!
//! A [`Scenario`] is a name a person types; a [`Plan`] is every knob the harness reads:
//! thread counts, how readers behave inside their sections, what writers do, and which
//! sticky-address workers run beside them.

use core::fmt;
use core::str::FromStr;
use core::time::Duration;

/// A torture scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scenario {
    /// Readers yield and sleep inside their sections, and nest two protections.
    Preempt,
    /// Readers only spin inside their sections.
    NoPreempt,
    /// Every protection takes the wildcard slow path (`Config::force_slow_path`).
    SlowPath,
    /// Writers alone: every wait finds the slots empty.
    Readers0,
    /// Four readers, twice as many as the cores of the machine the figures come from.
    Readers4,
    /// Readers hammer one sticky address while a writer waits on it; the hammer stops
    /// halfway and the waiter must complete.
    HotAddr,
    /// One holder keeps a sticky address for a quarter of the run while a writer waits on it.
    LongHold,
    /// Two holders keep two sticky addresses, readers re-acquire both, and two writers wait,
    /// one on each; both waits must complete after the holders release.
    Fairness,
    /// Lockdep-like: readers look up sticky hash-bucket addresses, writers wait on them.
    Lockdep,
    /// PREEMPT at growing reader counts.
    Sweep,
}

impl Scenario {
    /// Every scenario, in the order of the seeds' table.
    pub const ALL: [Scenario; 10] = [
        Scenario::Preempt,
        Scenario::NoPreempt,
        Scenario::SlowPath,
        Scenario::Lockdep,
        Scenario::Readers0,
        Scenario::Readers4,
        Scenario::HotAddr,
        Scenario::LongHold,
        Scenario::Fairness,
        Scenario::Sweep,
    ];

    /// The scenario's name in capitals, as the seeds write it.
    pub fn name(self) -> &'static str {
        match self {
            Scenario::Preempt => "PREEMPT",
            Scenario::NoPreempt => "NOPREEMPT",
            Scenario::SlowPath => "SLOWPATH",
            Scenario::Readers0 => "READERS0",
            Scenario::Readers4 => "READERS4",
            Scenario::HotAddr => "HOTADDR",
            Scenario::LongHold => "LONGHOLD",
            Scenario::Fairness => "FAIRNESS",
            Scenario::Lockdep => "LOCKDEP",
            Scenario::Sweep => "SWEEP",
        }
    }

    /// The reader counts a sweep steps through.
    pub const SWEEP_READERS: [usize; 5] = [1, 2, 4, 8, 16];
}

impl fmt::Display for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A scenario name that is not one of [`Scenario::ALL`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownScenario(pub String);

impl fmt::Display for UnknownScenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown scenario `{}`; expected one of", self.0)?;
        for s in Scenario::ALL {
            write!(f, " {s}")?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownScenario {}

impl FromStr for Scenario {
    type Err = UnknownScenario;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Scenario::ALL
            .into_iter()
            .find(|sc| sc.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownScenario(s.to_owned()))
    }
}

/// How a reader behaves inside a section. Each `*_one_in` is a probability per section
/// (zero disables it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Hold {
    /// Busy iterations of a short spin, drawn from `0..spin`.
    pub(crate) spin: u64,
    /// Yield the processor.
    pub(crate) yield_one_in: u64,
    /// Sleep for a short time (`short_sleep`).
    pub(crate) sleep_one_in: u64,
    pub(crate) short_sleep: Duration,
    /// Sleep for a long time (`long_sleep`), to make a writer wait.
    pub(crate) long_one_in: u64,
    pub(crate) long_sleep: Duration,
    /// Busy-wait for `long_sleep` instead of sleeping (NOPREEMPT's "udelay").
    pub(crate) busy_long: bool,
}

/// A sticky holder thread: holds address `addr` for `hold`, releases for `gap`, repeats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Holder {
    pub(crate) addr: usize,
    pub(crate) hold: Duration,
    pub(crate) gap: Duration,
}

/// Everything the harness reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(crate) readers: usize,
    pub(crate) writers: usize,
    /// Extra protections a reader nests inside a section (backup slots), drawn from `0..=nest`.
    pub(crate) nest: usize,
    pub(crate) hold: Hold,
    pub(crate) force_slow_path: bool,
    /// A writer retires rather than synchronizes once in this many operations (0: never).
    pub(crate) retire_one_in: u64,
    /// Sticky addresses.
    pub(crate) sticky: usize,
    /// A reader looks up a random sticky address instead of a pool object once in this many
    /// sections (0: never).
    pub(crate) lookup_one_in: u64,
    /// A pool writer waits on a random sticky address instead once in this many operations
    /// (0: never).
    pub(crate) unregister_one_in: u64,
    /// Readers hammer the sticky addresses for this fraction of the run (in percent).
    pub(crate) hammer_percent: u32,
    /// Dedicated sticky holders.
    pub(crate) holders: Vec<Holder>,
    /// Dedicated sticky waiters, one per entry, each waiting on that address in a loop.
    pub(crate) sticky_waiters: Vec<usize>,
    /// `Config::drain_threshold`, when the scenario wants drains sooner than the default.
    pub(crate) drain_threshold: Option<u32>,
    /// `Config::drain_max_cycles`, the fairness cap, when the scenario wants it shorter.
    pub(crate) drain_max_cycles: Option<u32>,
    /// `Config::stall_timeout`, when the scenario wants stall reports during the run.
    pub(crate) stall_timeout: Option<Duration>,
}

impl Plan {
    /// The plan of `scenario` for a run of `duration` on a machine with `cores` cores.
    pub(crate) fn of(scenario: Scenario, duration: Duration, cores: usize) -> Plan {
        let preempt = Hold {
            spin: 256,
            yield_one_in: 8,
            sleep_one_in: 64,
            short_sleep: Duration::from_micros(200),
            long_one_in: 4000,
            long_sleep: Duration::from_millis(20),
            busy_long: false,
        };
        let base = Plan {
            readers: cores.max(2),
            writers: 1,
            nest: 2,
            hold: preempt.clone(),
            force_slow_path: false,
            retire_one_in: 4,
            sticky: 0,
            lookup_one_in: 0,
            unregister_one_in: 0,
            hammer_percent: 0,
            holders: Vec::new(),
            sticky_waiters: Vec::new(),
            drain_threshold: None,
            drain_max_cycles: None,
            stall_timeout: None,
        };
        let long = (duration / 4).max(Duration::from_millis(50));
        match scenario {
            Scenario::Preempt | Scenario::Sweep => base,
            Scenario::NoPreempt => Plan {
                nest: 1,
                hold: Hold {
                    spin: 1024,
                    yield_one_in: 0,
                    sleep_one_in: 0,
                    short_sleep: Duration::ZERO,
                    long_one_in: 2000,
                    long_sleep: Duration::from_micros(200),
                    busy_long: true,
                },
                ..base
            },
            Scenario::SlowPath => Plan {
                force_slow_path: true,
                ..base
            },
            Scenario::Readers0 => Plan {
                readers: 0,
                writers: 2,
                ..base
            },
            Scenario::Readers4 => Plan { readers: 4, ..base },
            Scenario::Lockdep => Plan {
                sticky: 8,
                lookup_one_in: 2,
                unregister_one_in: 2,
                ..base
            },
            Scenario::HotAddr => Plan {
                sticky: 1,
                hammer_percent: 50,
                sticky_waiters: vec![0],
                // Drains engage after a few blocked cycles, so the hammer exercises them.
                drain_threshold: Some(4),
                ..base
            },
            Scenario::LongHold => Plan {
                sticky: 1,
                holders: vec![Holder {
                    addr: 0,
                    hold: long,
                    gap: long / 8,
                }],
                sticky_waiters: vec![0],
                // As in the seeds: the detector reports during the hold (2 s of 8 there).
                stall_timeout: Some(long / 4),
                ..base
            },
            Scenario::Fairness => Plan {
                sticky: 2,
                lookup_one_in: 4,
                holders: vec![
                    Holder {
                        addr: 0,
                        hold: long / 2,
                        gap: long / 8,
                    },
                    Holder {
                        addr: 1,
                        hold: long / 2,
                        gap: long / 8,
                    },
                ],
                sticky_waiters: vec![0, 1],
                // Drains engage soon and rotate between the two stuck addresses.
                drain_threshold: Some(10),
                drain_max_cycles: Some(20),
                ..base
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_listed() {
        for s in Scenario::ALL {
            assert_eq!(s.name().to_lowercase().parse::<Scenario>(), Ok(s));
        }
        let err = "PREMPT".parse::<Scenario>().unwrap_err().to_string();
        assert!(err.starts_with("unknown scenario `PREMPT`; expected one of PREEMPT"));
    }

    #[test]
    fn scenarios_set_their_distinguishing_knobs() {
        let d = Duration::from_secs(4);
        assert_eq!(Plan::of(Scenario::Readers0, d, 2).readers, 0);
        assert_eq!(Plan::of(Scenario::Readers4, d, 2).readers, 4);
        assert!(Plan::of(Scenario::SlowPath, d, 2).force_slow_path);
        assert_eq!(Plan::of(Scenario::NoPreempt, d, 2).hold.yield_one_in, 0);
        assert_eq!(Plan::of(Scenario::LongHold, d, 2).holders[0].hold, d / 4);
        assert_eq!(Plan::of(Scenario::Fairness, d, 2).sticky_waiters, [0, 1]);
        assert_eq!(
            Plan::of(Scenario::LongHold, d, 2).stall_timeout,
            Some(d / 16)
        );
        assert!(Plan::of(Scenario::HotAddr, d, 2).drain_threshold.is_some());
    }
}
