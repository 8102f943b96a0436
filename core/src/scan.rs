//! Scan cycles: one walk over every slot serves every waiter and retired object present
//! when the cycle starts.
//!
//! A cycle takes the new arrivals, builds a Bloom filter over their addresses (and those of
//! the waiters and retired objects left over from earlier cycles), issues the heavy half of
//! the asymmetric fence, then loads every primary slot and then every overflow list's slots.
//! An empty slot is skipped at once; a slot holding the wildcard defers the whole cycle,
//! since it may stand for any address; any other value the filter lets through is matched
//! exactly against the sorted batch, so a false positive never holds a waiter back for good.
//! After the walk, unless a wildcard was seen, each waiter whose address no slot held is
//! completed and woken, and each such retired object is reclaimed (after the cycle's lock
//! is released, so a deleter may itself retire).
//!
//! In [`ScanMode::Thread`](crate::ScanMode::Thread) one shared thread runs the cycles
//! ([`run`]); otherwise the waiters run them ([`cycle`]), and models can call
//! [`crate::raw::scan_cycle`] by hand.

use std::sync::Arc;

use core::sync::atomic::Ordering::{Acquire, Relaxed};

use crate::backend::{Atomic, Backend, Clock, Event, HeavyFence, Lock};
use crate::bloom::Bloom;
use crate::domain::{Shared, Stats};
use crate::retire::Retired;
use crate::slot::{EMPTY, WILDCARD};

/// A thread blocked in `synchronize`.
pub(crate) struct Waiter<B: Backend> {
    addr: usize,
    done: Arc<B::Event>,
}

impl<B: Backend> Waiter<B> {
    pub(crate) fn new(addr: usize) -> Self {
        Self {
            addr,
            done: Arc::new(B::Event::new()),
        }
    }

    /// The event set when the waiter completes.
    pub(crate) fn done(&self) -> Arc<B::Event> {
        Arc::clone(&self.done)
    }
}

/// What scan cycles carry from one to the next.
pub(crate) struct ScanState<B: Backend> {
    /// Waiters not completed yet.
    pub(crate) waiters: Vec<Waiter<B>>,
    /// Retired objects not reclaimed yet.
    pub(crate) retired: Vec<Retired>,
    pub(crate) stats: Stats,
}

impl<B: Backend> ScanState<B> {
    pub(crate) fn new() -> Self {
        Self {
            waiters: Vec::new(),
            retired: Vec::new(),
            stats: Stats::default(),
        }
    }
}

/// What one call of [`cycle`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CycleReport {
    /// Whether a cycle ran: false when nothing was waiting.
    pub ran: bool,
    /// Waiters completed by this cycle.
    pub completed: usize,
    /// Retired objects reclaimed by this cycle.
    pub reclaimed: usize,
    /// Whether a wildcard deferred every completion.
    pub wildcard: bool,
    /// Waiters and retired objects left for a later cycle.
    pub pending: usize,
}

/// Runs one scan cycle on the calling thread; waits if another cycle is running.
pub(crate) fn cycle<B: Backend>(shared: &Shared<B>) -> CycleReport {
    let mut reclaim = Vec::new();
    let report = shared
        .scan
        .with(|state| cycle_locked(shared, state, &mut reclaim));
    for object in reclaim {
        // Safety: the cycle found no slot holding the object's address after its heavy
        // fence, and no wildcard: every reader that could have loaded the object before it
        // was unlinked has released it, and none can load it afterwards.
        unsafe { object.reclaim() };
    }
    report
}

fn cycle_locked<B: Backend>(
    shared: &Shared<B>,
    state: &mut ScanState<B>,
    reclaim: &mut Vec<Retired>,
) -> CycleReport {
    // Taking the arrivals under their lock makes each arrival's unlink happen before the
    // heavy fence below.
    shared.incoming.with(|incoming| {
        state.stats.waiters_enqueued += incoming.waiters.len() as u64;
        state.stats.retired += incoming.retired.len() as u64;
        state.waiters.append(&mut incoming.waiters);
        state.retired.append(&mut incoming.retired);
    });
    if state.waiters.is_empty() && state.retired.is_empty() {
        return CycleReport::default();
    }
    let started = shared.clock.now();
    state.stats.scan_cycles += 1;

    let mut targets: Vec<usize> = state
        .waiters
        .iter()
        .map(|w| w.addr)
        .chain(state.retired.iter().map(Retired::addr))
        .collect();
    targets.sort_unstable();
    targets.dedup();
    let mut bloom = Bloom::new(shared.config.bloom_bits);
    for &addr in &targets {
        bloom.insert(addr);
    }

    // Pairs with every reader's light fence in `slot::publish`: a reader whose fence came
    // earlier has its slot store visible to the loads below; a later one sees the unlink.
    // Checked by litmus/tests/hazptr/hazptr-acquire-before-scan.litmus.
    state.stats.heavy_fences += 1;
    if B::heavy_fence() == HeavyFence::Membarrier {
        state.stats.membarrier_calls += 1;
    }

    let mut held = vec![false; targets.len()];
    let mut wildcard = false;
    let slots = shared
        .primaries
        .iter()
        .chain(shared.overflow.iter().flat_map(|list| list.iter()));
    for node in slots {
        // Acquire: pairs with the release store in `slot::clear`, so a reader's accesses to
        // an object happen before its reclamation or its waiter's return.
        let value = node.addr.load(Acquire);
        if value == EMPTY {
            continue;
        }
        if value == WILDCARD {
            // The reader is between loading a pointer and publishing it: it may hold any
            // address. Checked by litmus/tests/hazptr/hazptr-bloom-wildcard-hole.litmus.
            wildcard = true;
            continue;
        }
        if !bloom.may_contain(value) {
            continue;
        }
        match targets.binary_search(&value) {
            Ok(i) => held[i] = true,
            Err(_) => state.stats.bloom_false_positives += 1,
        }
    }

    state.stats.scan_time += shared.clock.now().saturating_sub(started);
    let pending_before = state.waiters.len() + state.retired.len();
    if wildcard {
        state.stats.wildcard_deferrals += 1;
        return CycleReport {
            ran: true,
            wildcard: true,
            pending: pending_before,
            ..Default::default()
        };
    }
    let is_held = |addr: usize| held[targets.binary_search(&addr).unwrap_or_else(|i| i)];

    let mut completed = 0;
    state.waiters.retain(|waiter| {
        if is_held(waiter.addr) {
            return true;
        }
        waiter.done.set();
        completed += 1;
        false
    });
    let mut kept = Vec::with_capacity(state.retired.len());
    for object in state.retired.drain(..) {
        if is_held(object.addr()) {
            kept.push(object);
        } else {
            reclaim.push(object);
        }
    }
    state.retired = kept;
    state.stats.waiters_completed += completed as u64;
    state.stats.reclaimed += reclaim.len() as u64;
    CycleReport {
        ran: true,
        completed,
        reclaimed: reclaim.len(),
        wildcard: false,
        pending: state.waiters.len() + state.retired.len(),
    }
}

/// Lets concurrent waiters finish enqueueing before a cycle starts, so one cycle serves them
/// all: yields while the queue keeps growing, at most [`Config::gather_yields`] times.
///
/// [`Config::gather_yields`]: crate::Config::gather_yields
fn gather<B: Backend>(shared: &Shared<B>) {
    let arrivals = || shared.incoming.with(|incoming| incoming.waiters.len());
    let mut seen = arrivals();
    for _ in 0..shared.config.gather_yields {
        B::yield_now();
        let now = arrivals();
        if now == seen {
            return;
        }
        seen = now;
    }
}

/// The scan thread's body: sleep until kicked, run cycles while anything is pending.
pub(crate) fn run<B: Backend>(shared: &Shared<B>) {
    let mut pending = false;
    loop {
        if pending {
            shared.kick.wait_timeout(shared.config.scan_period);
        } else {
            shared.kick.wait();
        }
        // Relaxed: `Domain::drop` stores the flag before setting the kick this thread has just
        // consumed, and the kick's lock orders the two.
        if shared.shutdown.load(Relaxed) {
            return;
        }
        gather(shared);
        pending = cycle(shared).pending > 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Config, Domain};
    use core::sync::atomic::Ordering::Relaxed;

    fn enqueue(domain: &Domain, addr: usize) -> Arc<<crate::Std as Backend>::Event> {
        let waiter = Waiter::new(addr);
        let done = waiter.done();
        domain
            .shared()
            .incoming
            .with(|incoming| incoming.waiters.push(waiter));
        done
    }

    #[test]
    fn a_held_address_keeps_its_waiter_until_released() {
        let domain = Domain::with_config(Config::model());
        let slot = domain.shared().primaries.claim();
        slot.addr.store(0x1000, Relaxed);
        let done = enqueue(&domain, 0x1000);
        let report = cycle(domain.shared());
        assert_eq!((report.completed, report.pending), (0, 1));
        assert!(!done.try_take());
        slot.addr.store(EMPTY, Relaxed);
        let report = cycle(domain.shared());
        assert_eq!((report.completed, report.pending), (1, 0));
        assert!(done.try_take());
    }

    #[test]
    fn a_wildcard_defers_every_waiter_until_it_resolves() {
        let domain = Domain::with_config(Config::model());
        let slot = domain.shared().primaries.claim();
        slot.addr.store(WILDCARD, Relaxed);
        let done = enqueue(&domain, 0x1000);
        let report = cycle(domain.shared());
        assert!(report.wildcard);
        assert_eq!((report.completed, report.pending), (0, 1));
        assert_eq!(domain.stats().wildcard_deferrals, 1);
        // The reader resolves the wildcard to some other address.
        slot.addr.store(0x2000, Relaxed);
        let report = cycle(domain.shared());
        assert_eq!(
            (report.completed, report.pending, report.wildcard),
            (1, 0, false)
        );
        assert!(done.try_take());
    }

    #[test]
    fn bloom_false_positives_fall_back_to_an_exact_match() {
        let domain = Domain::with_config(Config::model().bloom_bits(64));
        // Many waiters saturate a 64-bit filter, so unrelated slot values pass it.
        let dones: Vec<_> = (0..48)
            .map(|i| enqueue(&domain, 0x10_0000 + i * 64))
            .collect();
        for i in 0..64 {
            let slot = domain.shared().overflow[0].claim();
            slot.addr.store(0x90_0000 + i * 64, Relaxed);
        }
        let report = cycle(domain.shared());
        assert_eq!(report.completed, 48);
        assert!(dones.iter().all(|d| d.try_take()));
        assert!(domain.stats().bloom_false_positives > 0);
    }

    #[test]
    fn an_idle_cycle_issues_no_fence() {
        let domain = Domain::with_config(Config::model());
        assert!(!cycle(domain.shared()).ran);
        assert_eq!(domain.stats().heavy_fences, 0);
    }
}
