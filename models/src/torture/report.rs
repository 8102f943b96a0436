//! What a run measured, its verdict, and the statistics lines it prints.
//!
//! The lines follow rcutorture's: a header with the configuration, the reader pipe and
//! free-block circulation histograms, the writer and core counters, and a last line with
//! `SUCCESS` or `FAILURE` and the BUG count.
//! Counters the core does not keep yet are printed as `n/a`, never as a made-up zero.

use core::fmt;
use core::time::Duration;

use super::pool::PIPE_LEN;

/// The outcome of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No BUG, and every thread finished.
    Success,
    /// Some reader saw a freed or recycled object, or some thread never finished.
    Failure,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Success => "SUCCESS",
            Verdict::Failure => "FAILURE",
        })
    }
}

/// Latency percentiles of a set of waits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Latency {
    /// How many waits.
    pub count: u64,
    /// Median.
    pub p50: Duration,
    /// 90th percentile.
    pub p90: Duration,
    /// 99th percentile.
    pub p99: Duration,
    /// Longest.
    pub max: Duration,
}

impl Latency {
    /// The percentiles of `samples` (sorted in place).
    pub fn of(samples: &mut [Duration]) -> Self {
        if samples.is_empty() {
            return Self::default();
        }
        samples.sort_unstable();
        let at = |q: usize| samples[(samples.len() - 1) * q / 100];
        Self {
            count: samples.len() as u64,
            p50: at(50),
            p90: at(90),
            p99: at(99),
            max: samples[samples.len() - 1],
        }
    }
}

impl fmt::Display for Latency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let us = |d: Duration| d.as_secs_f64() * 1e6;
        write!(
            f,
            "n {} p50 {:.0}us p90 {:.0}us p99 {:.0}us max {:.0}us",
            self.count,
            us(self.p50),
            us(self.p90),
            us(self.p99),
            us(self.max)
        )
    }
}

/// Everything one run (or one step of a sweep) measured.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Report {
    /// The scenario name, with the reader count for a sweep step (`SWEEP/8`).
    pub label: String,
    /// Reader threads.
    pub readers: usize,
    /// Pool writer threads.
    pub writers: usize,
    /// Sticky holder and sticky waiter threads.
    pub sticky_threads: usize,
    /// How long the threads ran.
    pub elapsed: Duration,
    /// Whether the run was the negative control (synchronize skipped).
    pub weakened: bool,
    /// Whether protections took the forced slow path.
    pub slow_path: bool,

    /// Protections taken (pool objects and sticky addresses, nested ones included).
    pub acquires: u64,
    /// Protections released.
    pub releases: u64,
    /// Of the acquires, those nested inside a section (backup slots).
    pub nested: u64,
    /// Of the acquires, sticky-address lookups and holds.
    pub sticky_acquires: u64,
    /// Reader pipe histogram: `reader_pipe[i]` sections saw an object with pipe count `i`.
    /// Anything above index one is a grace period that ended under a reader.
    pub reader_pipe: [u64; PIPE_LEN + 1],
    /// Free-block circulation: objects that reached each pipe count.
    pub circulation: [u64; PIPE_LEN + 1],
    /// Writer operations (replace and wait, replace and retire, or wait on a sticky address).
    pub writer_ops: u64,
    /// Grace periods: `synchronize` calls on unlinked pool objects.
    pub grace_periods: u64,
    /// Pool objects retired.
    pub retires: u64,
    /// Pool objects freed (by the pipeline or the retire deleter).
    pub frees: u64,
    /// Allocations that found the pool empty.
    pub alloc_failures: u64,
    /// Latency of `synchronize` on unlinked pool objects.
    pub sync_latency: Latency,
    /// Latency of waits on sticky addresses (writers and dedicated waiters).
    pub sticky_latency: Latency,
    /// Sticky waits that started while readers hammered, and after.
    pub hammer_waits: (u64, u64),
    /// Holds by dedicated sticky holders, and the longest.
    pub holds: (u64, Duration),

    /// The core's counters.
    pub core: hazptr::Stats,
    /// The core's most recent stall reports (at most 16), rendered.
    pub stall_reports: Vec<String>,

    /// Reader or writer observations of a freed or recycled object, or of a missed holder.
    pub bugs: u64,
    /// The first few BUGs, described.
    pub bug_samples: Vec<String>,
    /// Threads that had not finished when the run gave up waiting for them.
    pub stalled: Vec<String>,
}

impl Report {
    /// `SUCCESS` when there is no BUG and nothing stalled.
    pub fn verdict(&self) -> Verdict {
        if self.bugs == 0 && self.stalled.is_empty() {
            Verdict::Success
        } else {
            Verdict::Failure
        }
    }

    /// The statistics lines, each prefixed with `hazmat-torture LABEL:`.
    pub fn lines(&self) -> Vec<String> {
        let c = &self.core;
        let hist = |h: &[u64]| {
            h.iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let per_sync = |n: u64| {
            if c.waits_completed() == 0 {
                "n/a".to_owned()
            } else {
                format!("{:.3}", n as f64 / c.waits_completed() as f64)
            }
        };
        let mut lines = vec![
            format!(
                "readers {} writers {} sticky-threads {} duration {:.1}s slow-path {} {}",
                self.readers,
                self.writers,
                self.sticky_threads,
                self.elapsed.as_secs_f64(),
                if self.slow_path { "yes" } else { "no" },
                if self.weakened {
                    "NEGATIVE CONTROL (synchronize skipped)"
                } else {
                    "real core"
                },
            ),
            format!(
                "acquires {} releases {} nested {} sticky {}",
                self.acquires, self.releases, self.nested, self.sticky_acquires
            ),
            format!(
                "{}Reader Pipe: {}",
                if self.reader_pipe[2..].iter().any(|&n| n > 0) {
                    "!!! "
                } else {
                    ""
                },
                hist(&self.reader_pipe)
            ),
            format!("Free-Block Circulation: {}", hist(&self.circulation)),
            format!(
                "writer ops {} grace-periods {} retires {} frees {} alloc-fail {}",
                self.writer_ops, self.grace_periods, self.retires, self.frees, self.alloc_failures
            ),
            format!("synchronize latency: {}", self.sync_latency),
        ];
        if self.sticky_latency.count > 0 || self.holds.0 > 0 {
            lines.push(format!(
                "sticky waits: {} (during hammer {} after {}) holds {} longest hold {:.0}ms",
                self.sticky_latency,
                self.hammer_waits.0,
                self.hammer_waits.1,
                self.holds.0,
                self.holds.1.as_secs_f64() * 1e3
            ));
        }
        lines.extend([
            format!(
                "scan cycles {} self-scans {} (returned {}) heavy-fences {} membarrier {} \
                 ({} per synchronize) waiters {} completed {} wildcard-deferrals {} \
                 bloom-false-positives {} retired {} reclaimed {}",
                c.scan_cycles,
                c.self_scans,
                c.self_scan_completions,
                c.heavy_fences,
                c.membarrier_calls,
                per_sync(c.heavy_fences),
                c.waiters_enqueued,
                c.waiters_completed,
                c.wildcard_deferrals,
                c.bloom_false_positives,
                c.retired,
                c.reclaimed
            ),
            format!(
                "drain engages {} completed {} orphaned {} fairness-cap {} addresses {} \
                 engage-deferrals {}",
                c.drain_engages,
                c.drain_completed,
                c.drain_orphaned,
                c.drain_fairness_disengages,
                c.drain_addresses,
                c.drain_engage_deferrals
            ),
            format!("stall reports {}", c.stalls),
        ]);
        // The last report, as the core renders it: which waiter, and who holds its address.
        if let Some(last) = self.stall_reports.last() {
            for line in last.lines() {
                lines.push(format!("last stall report: {}", line.trim_start()));
            }
        }
        for bug in &self.bug_samples {
            lines.push(format!("BUG: {bug}"));
        }
        for thread in &self.stalled {
            lines.push(format!("STALLED: {thread}"));
        }
        lines.push(format!("{} BUGs {}", self.verdict(), self.bugs));
        lines
            .into_iter()
            .map(|l| format!("hazmat-torture {}: {l}", self.label))
            .collect()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for line in self.lines() {
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_pick_order_statistics() {
        let mut xs: Vec<Duration> = (1..=100).rev().map(Duration::from_micros).collect();
        let l = Latency::of(&mut xs);
        assert_eq!(l.count, 100);
        assert_eq!(l.p50, Duration::from_micros(50));
        assert_eq!(l.p99, Duration::from_micros(99));
        assert_eq!(l.max, Duration::from_micros(100));
        assert_eq!(Latency::of(&mut []), Latency::default());
    }
}
