//! Tuning: one [`Config`] per domain, every field documenting its default.
//!
//! The defaults suit a library on real threads; the model checkers want tiny values and
//! [`ScanMode::Caller`], so [`Config::model`] gives those.

use core::time::Duration;

/// Who runs scan cycles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ScanMode {
    /// One shared scan thread, spawned lazily by the first `synchronize` that joins the shared
    /// scan (one its self-scan did not finish) or the first full retire batch, and joined when
    /// the domain drops, serves every waiter. The default.
    #[default]
    Thread,
    /// No thread is spawned: a waiter that its self-scan did not finish runs scan cycles
    /// itself until it completes, and a full retire batch runs one cycle on the retiring
    /// thread.
    /// Models use this, since loom allows few threads, and can also drive cycles by hand with
    /// [`crate::raw::scan_cycle`].
    Caller,
}

/// The tuning of one domain.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Config {
    /// Who runs scan cycles. Default: [`ScanMode::Thread`].
    pub scan_mode: ScanMode,
    /// How long the scan thread sleeps between cycles while some waiter or retired object is
    /// still held. A new waiter wakes it at once. Default: 1 ms.
    pub scan_period: Duration,
    /// Size of the per-cycle Bloom filter over waiting addresses, in bits; rounded up to a
    /// power of two, at least 64. Default: 1024.
    pub bloom_bits: usize,
    /// Number of overflow lists holding backup slots; readers are spread over them.
    /// Default: 4.
    pub overflow_lists: usize,
    /// How long no new waiter must have arrived before the woken scan thread starts a cycle:
    /// it yields until then (at most 20 times this in all), so that concurrent waiters share
    /// one cycle (and one heavy fence) instead of each arriving during the previous one.
    /// Zero yields once and starts. Measured by the backend's clock. Default: 5 µs, enough
    /// for 16 waiters woken together to finish arriving on a 2-vCPU virtual machine, and
    /// small beside the wake-up of the scan thread itself there (tens of microseconds).
    pub gather_quiet: Duration,
    /// Retired objects that trigger a scan cycle. Default: 64.
    pub retire_batch: usize,
    /// Forces every `synchronize` through the shared scan (the scan thread, or the caller's
    /// cycles in [`ScanMode::Caller`]): the kernel series' `skip_synchronize_self_scan`.
    /// Off, a call that is the only one in flight scans the slots by itself (the self-scan)
    /// and returns at once when none holds its address or the wildcard, without waking the
    /// scan thread; otherwise it joins the shared scan. Default: false (the self-scan is on):
    /// a lone call then costs one heavy fence and one walk, a few microseconds, instead of
    /// two thread wake-ups, and concurrent calls still share one cycle (see
    /// [`Config::self_scan_backoff`]).
    pub skip_self_scan: bool,
    /// After two `synchronize` calls have overlapped, or followed each other on different
    /// threads within this time, how long every call keeps joining the shared scan even when
    /// it finds itself alone, so that a burst of callers on several threads keeps sharing one
    /// cycle and one heavy fence instead of each arrival that finds itself alone paying its
    /// own; one thread calling again and again keeps its self-scans. Zero: a call scans by
    /// itself whenever no other is in flight. Measured by the backend's clock. Default: 1 ms.
    pub self_scan_backoff: Duration,
    /// Debug option: skip the `try_acquire` fast path and always publish through the wildcard
    /// slow path. Default: false.
    pub force_slow_path: bool,
    /// Reader-assisted drain for addresses that stay held (see the `drain` module).
    /// Default: true.
    pub drain_assist: bool,
    /// Scan cycles a waiter stays blocked before a drain engages for its address.
    /// Default: 100.
    pub drain_threshold: u32,
    /// The fairness cap: scan cycles one drain may last before it disengages and the next
    /// stalled waiter gets its turn; a drain with no other stalled waiter to give the turn to
    /// goes on. Default: 50.
    pub drain_max_cycles: u32,
    /// How long a waiter may stay blocked before a stall report names the holders of its
    /// address; `None` disables the detector. Also adjustable at run time with
    /// `Domain::set_stall_timeout`. Default: 21 s, or `HAZPTR_STALL_TIMEOUT_MS` from the
    /// environment (0 disables).
    pub stall_timeout: Option<Duration>,
    /// Suppresses stall reports (the detector still counts stalls). Also adjustable at run
    /// time with `Domain::set_stall_suppressed`. Default: false, or true when
    /// `HAZPTR_STALL_SUPPRESS` is set to `1` in the environment.
    pub stall_suppress: bool,
    /// Debug option (the kernel's `CONFIG_HAZPTR_DEBUG`): record each protection's call site,
    /// acquire time and backtrace (costly: a clock read and a backtrace capture per
    /// `protect`, which also leaves the inline fast path), so stall reports give acquire
    /// sites, exact hold times and acquire stacks. Default: false.
    pub debug_holders: bool,
}

/// The default stall timeout: 21 s, or `HAZPTR_STALL_TIMEOUT_MS` (0 disables).
fn default_stall_timeout() -> Option<Duration> {
    match std::env::var("HAZPTR_STALL_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
    {
        Some(0) => None,
        Some(ms) => Some(Duration::from_millis(ms)),
        None => Some(Duration::from_secs(21)),
    }
}

/// The default suppression: `HAZPTR_STALL_SUPPRESS=1`.
fn default_stall_suppress() -> bool {
    std::env::var("HAZPTR_STALL_SUPPRESS").is_ok_and(|v| v.trim() == "1")
}

impl Default for Config {
    fn default() -> Self {
        Self {
            scan_mode: ScanMode::Thread,
            scan_period: Duration::from_millis(1),
            bloom_bits: 1024,
            overflow_lists: 4,
            gather_quiet: Duration::from_micros(5),
            retire_batch: 64,
            skip_self_scan: false,
            self_scan_backoff: Duration::from_millis(1),
            force_slow_path: false,
            drain_assist: true,
            drain_threshold: 100,
            drain_max_cycles: 50,
            stall_timeout: default_stall_timeout(),
            stall_suppress: default_stall_suppress(),
            debug_holders: false,
        }
    }
}

impl Config {
    /// Small values for the model checkers: no scan thread, a 64-bit Bloom filter, one
    /// overflow list, a scan cycle on every retire, drains after 2 cycles capped at 2, and no
    /// stall detector.
    /// The self-scan is skipped, so that a model of the shared scan checks the shared scan;
    /// models of the self-scan turn it back on (`skip_self_scan(false)`), with no backoff.
    pub fn model() -> Self {
        Self {
            scan_mode: ScanMode::Caller,
            scan_period: Duration::from_millis(1),
            bloom_bits: 64,
            overflow_lists: 1,
            gather_quiet: Duration::ZERO,
            retire_batch: 1,
            skip_self_scan: true,
            self_scan_backoff: Duration::ZERO,
            force_slow_path: false,
            drain_assist: true,
            drain_threshold: 2,
            drain_max_cycles: 2,
            stall_timeout: None,
            stall_suppress: false,
            debug_holders: false,
        }
    }

    /// Sets [`Config::scan_mode`].
    pub fn scan_mode(mut self, mode: ScanMode) -> Self {
        self.scan_mode = mode;
        self
    }

    /// Sets [`Config::scan_period`].
    pub fn scan_period(mut self, period: Duration) -> Self {
        self.scan_period = period;
        self
    }

    /// Sets [`Config::bloom_bits`].
    pub fn bloom_bits(mut self, bits: usize) -> Self {
        self.bloom_bits = bits;
        self
    }

    /// Sets [`Config::overflow_lists`] (at least one is kept).
    pub fn overflow_lists(mut self, lists: usize) -> Self {
        self.overflow_lists = lists;
        self
    }

    /// Sets [`Config::gather_quiet`].
    pub fn gather_quiet(mut self, quiet: Duration) -> Self {
        self.gather_quiet = quiet;
        self
    }

    /// Sets [`Config::retire_batch`].
    pub fn retire_batch(mut self, batch: usize) -> Self {
        self.retire_batch = batch;
        self
    }

    /// Sets [`Config::skip_self_scan`].
    pub fn skip_self_scan(mut self, skip: bool) -> Self {
        self.skip_self_scan = skip;
        self
    }

    /// Sets [`Config::self_scan_backoff`].
    pub fn self_scan_backoff(mut self, backoff: Duration) -> Self {
        self.self_scan_backoff = backoff;
        self
    }

    /// Sets [`Config::force_slow_path`].
    pub fn force_slow_path(mut self, force: bool) -> Self {
        self.force_slow_path = force;
        self
    }

    /// Sets [`Config::drain_assist`].
    pub fn drain_assist(mut self, on: bool) -> Self {
        self.drain_assist = on;
        self
    }

    /// Sets [`Config::drain_threshold`].
    pub fn drain_threshold(mut self, cycles: u32) -> Self {
        self.drain_threshold = cycles;
        self
    }

    /// Sets [`Config::drain_max_cycles`].
    pub fn drain_max_cycles(mut self, cycles: u32) -> Self {
        self.drain_max_cycles = cycles;
        self
    }

    /// Sets [`Config::stall_timeout`].
    pub fn stall_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.stall_timeout = timeout;
        self
    }

    /// Sets [`Config::stall_suppress`].
    pub fn stall_suppress(mut self, suppress: bool) -> Self {
        self.stall_suppress = suppress;
        self
    }

    /// Sets [`Config::debug_holders`].
    pub fn debug_holders(mut self, on: bool) -> Self {
        self.debug_holders = on;
        self
    }
}
