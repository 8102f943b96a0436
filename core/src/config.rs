//! Tuning: one [`Config`] per domain, every field documenting its default.
//!
//! The defaults suit a library on real threads; the model checkers want tiny values and
//! [`ScanMode::Caller`], so [`Config::model`] gives those.

use core::time::Duration;

/// Who runs scan cycles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ScanMode {
    /// One shared scan thread, spawned lazily by the first `synchronize` or full retire batch
    /// and joined when the domain drops, serves every waiter. The default.
    #[default]
    Thread,
    /// No thread is spawned: a waiter runs scan cycles itself until it completes, and a full
    /// retire batch runs one cycle on the retiring thread.
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
    /// How many times the scan thread yields, once woken, while new waiters keep arriving,
    /// before it starts a cycle: concurrent waiters then share one cycle (and one heavy fence)
    /// instead of each arriving during the previous one. Zero starts at once. Default: 8.
    pub gather_yields: u32,
    /// Retired objects that trigger a scan cycle. Default: 64.
    pub retire_batch: usize,
    /// Debug option: skip the `try_acquire` fast path and always publish through the wildcard
    /// slow path. Default: false.
    pub force_slow_path: bool,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            scan_mode: ScanMode::Thread,
            scan_period: Duration::from_millis(1),
            bloom_bits: 1024,
            overflow_lists: 4,
            gather_yields: 8,
            retire_batch: 64,
            force_slow_path: false,
        }
    }
}

impl Config {
    /// Small values for the model checkers: no scan thread, a 64-bit Bloom filter, one
    /// overflow list, and a scan cycle on every retire.
    pub fn model() -> Self {
        Self {
            scan_mode: ScanMode::Caller,
            scan_period: Duration::from_millis(1),
            bloom_bits: 64,
            overflow_lists: 1,
            gather_yields: 1,
            retire_batch: 1,
            force_slow_path: false,
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

    /// Sets [`Config::gather_yields`].
    pub fn gather_yields(mut self, yields: u32) -> Self {
        self.gather_yields = yields;
        self
    }

    /// Sets [`Config::retire_batch`].
    pub fn retire_batch(mut self, batch: usize) -> Self {
        self.retire_batch = batch;
        self
    }

    /// Sets [`Config::force_slow_path`].
    pub fn force_slow_path(mut self, force: bool) -> Self {
        self.force_slow_path = force;
        self
    }
}
