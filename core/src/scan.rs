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
//!
//! # The self-scan
//!
//! A `synchronize` that is the only one in flight does not wait for a cycle: it scans by
//! itself ([`self_scan`]), as the kernel series' `synchronize_shazptr()` does unless
//! `skip_synchronize_self_scan` is set.
//! It issues the heavy fence, then walks every primary slot and every overflow list for its
//! own address, and returns at once if no slot holds it (marked by a drain or not) and none
//! holds the wildcard; the first slot that does ends the walk, and the waiter joins the
//! shared scan as before.
//! It is a cycle with a batch of one: the same fence after the same unlink (program order
//! replaces the arrival lock), the same acquire loads, the same wildcard rule.
//! So the cycle's argument carries over: a reader whose light fence came before the heavy one
//! has its slot seen, and one whose fence came after re-reads the source after the unlink;
//! a slot found empty was released by a release store the acquire load read.
//! Checked by litmus/tests/hazptr/hazptr-self-scan.litmus.
//! A sticky address needs nothing more: "no slot holds it after the fence" is what a cycle
//! completes a waiter on, drain or no drain, and a drain for the same address goes on
//! serving the waiters it covers.
//! The self-scan touches no state of the cycles (it takes no lock), reclaims nothing, and
//! reports only to counters.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::Arc;

use core::iter;
use core::panic::Location;
use core::ptr;
use core::sync::atomic::Ordering::{Acquire, Relaxed};
use core::time::Duration;

use crate::backend::{Atomic, Backend, Clock, Event, HeavyFence, Lock, ThreadInfo};
use crate::bloom::Bloom;
use crate::domain::{Shared, Stats};
use crate::drain::{Disengage, Drain};
use crate::retire::Retired;
use crate::slot::{EMPTY, MARK, Node, WILDCARD, key};
use crate::stall::{Holder, SlotKind, StallReport};
use crate::weaken::{self, Weakening};

/// A thread blocked in `synchronize`.
pub(crate) struct Waiter<B: Backend> {
    addr: usize,
    done: Arc<B::Event>,
    /// Arrival order, assigned when a cycle takes the waiter.
    id: u64,
    /// When a cycle first took the waiter, by the domain's clock.
    since: Duration,
    /// Cycles that have left the waiter blocked.
    blocked_cycles: u64,
    /// When the last stall report on this waiter was made, and how many there were.
    last_report: Option<Duration>,
    reports: u32,
    /// The waiting thread, for stall reports, and its [`Backend::thread_token`].
    thread: ThreadInfo,
    token: usize,
}

impl<B: Backend> Waiter<B> {
    pub(crate) fn new(addr: usize, thread: ThreadInfo, token: usize) -> Self {
        Self {
            addr,
            thread,
            token,
            done: Arc::new(B::Event::new()),
            id: 0,
            since: Duration::ZERO,
            blocked_cycles: 0,
            last_report: None,
            reports: 0,
        }
    }

    /// The event set when the waiter completes.
    pub(crate) fn done(&self) -> Arc<B::Event> {
        Arc::clone(&self.done)
    }
}

/// What scan cycles carry from one to the next.
pub(crate) struct ScanState<B: Backend> {
    /// Waiters not completed yet, in arrival order.
    pub(crate) waiters: Vec<Waiter<B>>,
    /// Retired objects not reclaimed yet.
    pub(crate) retired: Vec<Retired>,
    pub(crate) stats: Stats,
    /// The drain in progress, if any.
    drain: Option<Drain>,
    /// The last drain generation handed out.
    generation: u64,
    /// The id the next waiter gets.
    next_waiter: u64,
    /// The id of the waiter the last drain engaged for: the fairness rotation's position.
    last_engaged: u64,
    /// Distinct addresses ever drained: one entry per address, for `Stats::drain_addresses`.
    /// It grows with the number of distinct hot addresses, which is small in the use cases
    /// drain exists for (permanent bucket addresses).
    drained: BTreeSet<usize>,
    /// For stall reports: slots seen holding a waited-for address, keyed by (list, index),
    /// with the value held, when consecutive cycles first saw it, and the last such cycle.
    observed: HashMap<(usize, usize), (usize, Duration, u64)>,
    /// The most recent stall reports, oldest first.
    pub(crate) reports: VecDeque<StallReport>,
}

/// How many stall reports a domain keeps.
const KEPT_REPORTS: usize = 16;

impl<B: Backend> ScanState<B> {
    pub(crate) fn new() -> Self {
        Self {
            waiters: Vec::new(),
            retired: Vec::new(),
            stats: Stats::default(),
            drain: None,
            generation: 0,
            next_waiter: 1,
            last_engaged: 0,
            drained: BTreeSet::new(),
            observed: HashMap::new(),
            reports: VecDeque::new(),
        }
    }
}

/// What one scan cycle did: the answer of [`crate::raw::scan_cycle`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CycleReport {
    /// Whether a cycle ran: false when nothing was waiting.
    pub ran: bool,
    /// Waiters completed by this cycle (by the scan or by a drain).
    pub completed: usize,
    /// Retired objects reclaimed by this cycle.
    pub reclaimed: usize,
    /// Whether a wildcard deferred the scan's completions.
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
    let now = shared.clock.now();
    // Taking the arrivals under their lock makes each arrival's unlink happen before the
    // heavy fence below.
    shared.incoming.with(|incoming| {
        state.stats.waiters_enqueued += incoming.waiters.len() as u64;
        for mut waiter in incoming.waiters.drain(..) {
            waiter.id = state.next_waiter;
            waiter.since = now;
            state.next_waiter += 1;
            state.waiters.push(waiter);
        }
        state.retired.append(&mut incoming.retired);
    });
    if state.waiters.is_empty() && state.retired.is_empty() {
        return CycleReport::default();
    }
    state.stats.scan_cycles += 1;
    let cycle_number = state.stats.scan_cycles;

    let mut targets: Vec<usize> = state
        .waiters
        .iter()
        .map(|w| key(w.addr))
        .chain(state.retired.iter().map(|r| key(r.addr())))
        .collect();
    targets.sort_unstable();
    targets.dedup();
    let mut bloom = Bloom::new(shared.config.bloom_bits);
    for &addr in &targets {
        bloom.insert(addr);
    }
    let candidate = engage_candidate(shared, state);
    let track_holders = shared.stall_timeout().is_some();

    // Pairs with every reader's light fence in `slot::publish`: a reader whose fence came
    // earlier has its slot store visible to the loads below; a later one sees the unlink.
    // Checked by litmus/tests/hazptr/hazptr-acquire-before-scan.litmus.
    state.stats.heavy_fences += 1;
    if !weaken::active::<B>(Weakening::NoScanFence) && B::heavy_fence() == HeavyFence::Membarrier {
        state.stats.membarrier_calls += 1;
    }

    let mut held = vec![false; targets.len()];
    let mut wildcard = false;
    let mut hits: Vec<(usize, &Node<B>, usize)> = Vec::new();
    let candidate_key = candidate.map(|(addr, _)| key(addr));
    for (list, node) in all_slots(shared) {
        // Acquire: pairs with the release store in `slot::clear`, so a reader's accesses to
        // an object happen before its reclamation or its waiter's return.
        let value = node.addr.load(Acquire);
        // The drain's check: has the protection the engage walk marked ended? Any value but
        // the marked one says so, by the acquire load above.
        // Checked by litmus/tests/hazptr/hazptr-drain-slot-mark.litmus.
        if let Some(drain) = state.drain.as_mut()
            && drain.contains(list, node.index)
            && value != key(drain.addr) | MARK
        {
            drain.remove(list, node.index);
        }
        if value == EMPTY {
            continue;
        }
        if value == WILDCARD && !weaken::active::<B>(Weakening::NoWildcardDeferral) {
            // The reader is between loading a pointer and publishing it: it may hold any
            // address. Checked by litmus/tests/hazptr/hazptr-bloom-wildcard-hole.litmus.
            wildcard = true;
            continue;
        }
        // Compare without the mark: a slot a drain marked still holds its address.
        let value_key = key(value);
        if candidate_key == Some(value_key) {
            hits.push((list, node, value));
        }
        if !bloom.may_contain(value_key) {
            continue;
        }
        if weaken::active::<B>(Weakening::NoExactMatch) {
            held.fill(true);
            continue;
        }
        match targets.binary_search(&value_key) {
            Ok(i) => {
                held[i] = true;
                if track_holders {
                    let seen = state
                        .observed
                        .entry((list, node.index))
                        .or_insert((value_key, now, 0));
                    if seen.0 != value_key {
                        *seen = (value_key, now, 0);
                    }
                    seen.2 = cycle_number;
                }
            }
            Err(_) => state.stats.bloom_false_positives += 1,
        }
    }
    state.observed.retain(|_, seen| seen.2 == cycle_number);

    if let Some((addr, id)) = candidate {
        if wildcard && !weaken::active::<B>(Weakening::NoEngageDeferral) {
            // A reader in the wildcard window may be about to publish the address unseen.
            // Checked by litmus/tests/hazptr/hazptr-drain-engage-wildcard.litmus.
            state.stats.drain_engage_deferrals += 1;
        } else {
            engage(shared, state, addr, id, &hits);
        }
    }

    state.stats.scan_time += shared.clock.now().saturating_sub(now);
    let mut completed = 0;
    if wildcard {
        state.stats.wildcard_deferrals += 1;
    } else {
        let is_held = |addr: usize| held[targets.binary_search(&key(addr)).unwrap_or_else(|i| i)];
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
    }
    completed += advance_drain(state, &shared.config);
    state.stats.waiters_completed += completed as u64;
    state.stats.reclaimed += reclaim.len() as u64;
    for waiter in &mut state.waiters {
        waiter.blocked_cycles += 1;
    }
    detect_stalls(shared, state);
    CycleReport {
        ran: true,
        completed,
        reclaimed: reclaim.len(),
        wildcard,
        pending: state.waiters.len() + state.retired.len(),
    }
}

/// The self-scan (see the module's notes): the heavy fence, then one walk for `addr`.
/// Returns whether no slot held `addr` or the wildcard, which completes the caller's wait.
/// Call it after unlinking, as `synchronize`.
pub(crate) fn self_scan<B: Backend>(shared: &Shared<B>, addr: usize) -> bool {
    shared.counters.self_scans.add(1);
    // Pairs with every reader's light fence in `slot::publish`, as the cycle's: the unlink is
    // po-before this fence on the same thread, so a reader whose fence comes later re-reads
    // the source after the unlink, and one whose fence came earlier has its slot store
    // visible to the loads below.
    // Checked by litmus/tests/hazptr/hazptr-self-scan.litmus.
    if !weaken::active::<B>(Weakening::NoSelfScanFence)
        && B::heavy_fence() == HeavyFence::Membarrier
    {
        shared.counters.self_scan_membarriers.add(1);
    }
    let target = key(addr);
    for (_, node) in all_slots(shared) {
        // Acquire: pairs with the release store in `slot::clear`, as the cycle's walk, so a
        // reader's accesses to the object happen before the caller's return.
        let value = node.addr.load(Acquire);
        if value == EMPTY {
            continue;
        }
        if value == WILDCARD && !weaken::active::<B>(Weakening::NoSelfScanWildcard) {
            // A reader between loading a pointer and publishing it may hold any address:
            // only a later walk can tell. Checked by
            // litmus/tests/hazptr/hazptr-bloom-wildcard-hole.litmus for the cycle's walk.
            return false;
        }
        // Without the mark: a slot a drain marked still holds its address.
        if value != WILDCARD && key(value) == target {
            return false;
        }
    }
    shared.counters.self_scan_completions.add(1);
    true
}

/// Every slot, with the number of its list: 0 for the primaries, then the overflow lists.
pub(crate) fn all_slots<B: Backend>(shared: &Shared<B>) -> impl Iterator<Item = (usize, &Node<B>)> {
    iter::once(&shared.primaries)
        .chain(shared.overflow.iter())
        .enumerate()
        .flat_map(|(i, list)| list.iter().map(move |node| (i, node)))
}

/// The waiter a drain should engage for in this cycle, if none is in progress: the first
/// waiter blocked for the threshold that arrived after the last one engaged, else the first.
fn engage_candidate<B: Backend>(shared: &Shared<B>, state: &ScanState<B>) -> Option<(usize, u64)> {
    if !shared.config.drain_assist || state.drain.is_some() {
        return None;
    }
    let threshold = u64::from(shared.config.drain_threshold);
    let mut stalled = state
        .waiters
        .iter()
        .filter(|w| w.blocked_cycles >= threshold);
    let first = stalled.clone().next()?;
    let next = stalled.find(|w| w.id > state.last_engaged).unwrap_or(first);
    Some((next.addr, next.id))
}

/// Engages a drain for `addr` from the slots the walk saw holding it.
fn engage<B: Backend>(
    shared: &Shared<B>,
    state: &mut ScanState<B>,
    addr: usize,
    id: u64,
    hits: &[(usize, &Node<B>, usize)],
) {
    state.generation += 1;
    let generation = state.generation;
    // Every waiter present now arrived before this cycle's heavy fence.
    let covers = state.waiters.iter().map(|w| w.id).max().unwrap_or(id);
    let mut drain = Drain::new(addr, generation, covers, 1 + shared.overflow.len());
    let marked = key(addr) | MARK;
    for &(list, node, seen) in hits {
        // Relaxed on success: the mark orders nothing; the end of the marked protection is
        // read later, by acquire loads of the slot. Acquire on failure: the exchange found
        // the slot changed since the walk, so that protection has ended and the slot stays
        // out of the snapshot, and the load that tells so must pair with the reader's
        // release store, as the walk's does.
        // Checked by litmus/tests/hazptr/hazptr-drain-slot-mark.litmus.
        if weaken::active::<B>(Weakening::NoMark)
            || seen == marked
            || node
                .addr
                .compare_exchange(seen, seen | MARK, Relaxed, Acquire)
                .is_ok()
        {
            drain.insert(list, node.index);
        }
    }
    // The remove-only re-snapshot: a slot released since its mark leaves the snapshot now
    // rather than at the next cycle's walk.
    // Checked by litmus/tests/hazptr/hazptr-drain-resnapshot-slot-race.litmus and
    // litmus/tests/hazptr/hazptr-drain-safety.litmus.
    let resnapshot = !weaken::active::<B>(Weakening::NoResnapshot);
    for &(list, node, _) in hits.iter().filter(|_| resnapshot) {
        // Acquire: as in the walk, pairs with `slot::clear`.
        if node.addr.load(Acquire) != marked {
            drain.remove(list, node.index);
        }
    }
    state.stats.drain_engages += 1;
    if state.drained.insert(addr) {
        state.stats.drain_addresses += 1;
    }
    state.last_engaged = id;
    tracing::debug!(target: "hazptr", addr, generation, holders = drain.outstanding, "drain engaged");
    state.drain = Some(drain);
}

/// Ends the drain if its snapshot is empty, its waiters are gone, or its cap is reached while
/// another waiter is stalled; returns the waiters it completed.
fn advance_drain<B: Backend>(state: &mut ScanState<B>, config: &crate::Config) -> usize {
    let Some(drain) = state.drain.as_mut() else {
        return 0;
    };
    let covered = |w: &Waiter<B>| w.addr == drain.addr && w.id <= drain.covers;
    let mut completed = 0;
    let reason = if !state.waiters.iter().any(covered) {
        Disengage::Orphaned
    } else if drain.outstanding == 0 {
        state.waiters.retain(|waiter| {
            if !covered(waiter) {
                return true;
            }
            waiter.done.set();
            completed += 1;
            false
        });
        Disengage::Completed
    } else {
        drain.cycles += 1;
        // The cap is there to rotate: with no other stalled waiter to give the turn to, the
        // drain goes on rather than disengage and engage again from a fresh snapshot, which
        // would only add the protections taken since. Looked for only once the cap is due.
        let threshold = u64::from(config.drain_threshold);
        let another_stalled = || {
            state
                .waiters
                .iter()
                .any(|w| w.blocked_cycles >= threshold && key(w.addr) != key(drain.addr))
        };
        if drain.cycles < config.drain_max_cycles
            || !another_stalled()
            || weaken::active::<B>(Weakening::NoFairnessCap)
        {
            return 0;
        }
        Disengage::FairnessCap
    };
    match reason {
        Disengage::Completed => state.stats.drain_completed += 1,
        Disengage::Orphaned => state.stats.drain_orphaned += 1,
        Disengage::FairnessCap => state.stats.drain_fairness_disengages += 1,
    }
    tracing::debug!(
        target: "hazptr",
        addr = drain.addr,
        generation = drain.generation,
        outstanding = drain.outstanding,
        ?reason,
        "drain disengaged"
    );
    state.drain = None;
    completed
}

/// Reports every waiter blocked past the stall timeout.
fn detect_stalls<B: Backend>(shared: &Shared<B>, state: &mut ScanState<B>) {
    let Some(timeout) = shared.stall_timeout() else {
        return;
    };
    let now = shared.clock.now();
    let suppressed = shared.stall_suppressed();
    for i in 0..state.waiters.len() {
        let waiter = &state.waiters[i];
        let waited = now.saturating_sub(waiter.since);
        let due = waiter
            .last_report
            .is_none_or(|last| now.saturating_sub(last) >= timeout);
        if waited < timeout || !due {
            continue;
        }
        state.stats.stalls += 1;
        let waiter = &mut state.waiters[i];
        waiter.last_report = Some(now);
        waiter.reports += 1;
        if suppressed {
            continue;
        }
        let report = StallReport {
            addr: waiter.addr,
            waited,
            cycles: waiter.blocked_cycles,
            sequence: waiter.reports,
            waiter_thread_id: waiter.thread.id.clone(),
            waiter_thread_name: waiter.thread.name.clone(),
            holders: holders(shared, &state.observed, waiter, now),
        };
        crate::stall::emit(&report);
        if state.reports.len() == KEPT_REPORTS {
            state.reports.pop_front();
        }
        state.reports.push_back(report);
    }
}

/// Every slot holding `waiter`'s address or the wildcard, described for a stall report.
fn holders<B: Backend>(
    shared: &Shared<B>,
    observed: &HashMap<(usize, usize), (usize, Duration, u64)>,
    waiter: &Waiter<B>,
    now: Duration,
) -> Vec<Holder> {
    let addr = waiter.addr;
    let mut holders = Vec::new();
    for (list, node) in all_slots(shared) {
        // Acquire: as in the walk; the report describes what this load saw.
        let value = node.addr.load(Acquire);
        if value == EMPTY || (value != WILDCARD && key(value) != key(addr)) {
            continue;
        }
        // Relaxed: the diagnostic fields order nothing.
        let owner_primary = if list == 0 {
            node.index
        } else {
            node.owner_primary.load(Relaxed)
        };
        let thread = shared
            .primaries
            .iter()
            .find(|p| p.index == owner_primary)
            .and_then(|p| p.owner.with(|owner| owner.clone()));
        let site = match node.site.load(Relaxed) {
            0 => None,
            exposed => {
                let site: *const Location<'static> = ptr::with_exposed_provenance(exposed);
                // Safety: non-zero values are exposed addresses of `&'static Location`s,
                // stored by `Reader::note_acquire`.
                Some(unsafe { &*site })
            }
        };
        let held_for = match node.acquired_at.load(Relaxed) {
            0 => None,
            at => Some(now.saturating_sub(Duration::from_nanos(at - 1))),
        };
        // Relaxed: as the fields above (recorded only in debug builds on the std backend).
        let protector = node.protector.load(Relaxed);
        // Which thread took the protection is known exactly where it was recorded; otherwise
        // the reader's thread stands for it (the thread that created the reader).
        let is_waiter = if protector != 0 && waiter.token != 0 {
            protector == waiter.token
        } else {
            thread.as_ref().is_some_and(|t| t.id == waiter.thread.id)
        };
        holders.push(Holder {
            is_waiter,
            kind: if list == 0 {
                SlotKind::Primary
            } else {
                SlotKind::Backup
            },
            slot: node.index,
            wildcard: value == WILDCARD,
            thread_id: thread.as_ref().map(|t| t.id.clone()),
            thread_name: thread.and_then(|t| t.name),
            observed_for: observed
                .get(&(list, node.index))
                .map_or(Duration::ZERO, |seen| now.saturating_sub(seen.1)),
            held_for,
            site,
            backtrace: node.backtrace.with(|trace| trace.clone()),
        });
    }
    holders
}

/// Lets concurrent waiters finish enqueueing before a cycle starts, so one cycle serves them
/// all: yields until no waiter has arrived for [`Config::gather_quiet`], and for at most 20
/// times that in all.
///
/// A count of yields would not do: a yield returns at once when nothing else is runnable on
/// the scan thread's processor, while the waiters are still being woken on another.
///
/// [`Config::gather_quiet`]: crate::Config::gather_quiet
fn gather<B: Backend>(shared: &Shared<B>) {
    let arrivals = || shared.incoming.with(|incoming| incoming.waiters.len());
    let quiet = shared.config.gather_quiet;
    let start = shared.clock.now();
    let (mut seen, mut last) = (arrivals(), start);
    loop {
        B::yield_now();
        let (now, at) = (arrivals(), shared.clock.now());
        if now != seen {
            (seen, last) = (now, at);
        }
        if at.saturating_sub(last) >= quiet || at.saturating_sub(start) >= quiet * 20 {
            return;
        }
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
        let waiter = Waiter::new(addr, crate::Std::current_thread(), 0);
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
    fn a_marked_slot_still_holds_its_address() {
        let domain = Domain::with_config(Config::model());
        let slot = domain.shared().primaries.claim();
        // A drain's mark, and a pointer that sets the top bit itself (a tagged pointer).
        slot.addr.store(0x1000 | MARK, Relaxed);
        let plain = enqueue(&domain, 0x1000);
        let tagged = enqueue(&domain, 0x1000 | MARK);
        let report = cycle(domain.shared());
        assert_eq!((report.completed, report.pending), (0, 2));
        slot.addr.store(0x1000, Relaxed);
        assert_eq!(cycle(domain.shared()).completed, 0);
        slot.addr.store(EMPTY, Relaxed);
        assert_eq!(cycle(domain.shared()).completed, 2);
        assert!(plain.try_take() && tagged.try_take());
    }

    #[test]
    fn a_drain_marks_its_holders_and_completes_when_each_marked_protection_ends() {
        let config = Config::model().drain_threshold(1).drain_max_cycles(100);
        let domain = Domain::with_config(config);
        let (a, b) = (
            domain.shared().primaries.claim(),
            domain.shared().primaries.claim(),
        );
        a.addr.store(0x1000, Relaxed);
        b.addr.store(0x1000, Relaxed);
        let done = enqueue(&domain, 0x1000);
        cycle(domain.shared());
        cycle(domain.shared());
        assert_eq!(domain.stats().drain_engages, 1);
        assert_eq!(a.addr.load(Relaxed), 0x1000 | MARK);
        assert_eq!(b.addr.load(Relaxed), 0x1000 | MARK);
        // `a` is released and protects the address again at once: a new protection,
        // unmarked, which the drain does not wait for.
        a.addr.store(EMPTY, Relaxed);
        a.addr.store(0x1000, Relaxed);
        cycle(domain.shared());
        assert!(!done.try_take(), "b's marked protection is still held");
        b.addr.store(0x1000, Relaxed);
        let report = cycle(domain.shared());
        assert_eq!(report.completed, 1);
        assert!(done.try_take());
        let stats = domain.stats();
        assert_eq!((stats.drain_completed, stats.waiters_completed), (1, 1));
    }

    #[test]
    fn the_cap_rotates_only_when_another_waiter_is_stalled() {
        let config = Config::model().drain_threshold(1).drain_max_cycles(2);
        let domain = Domain::with_config(config);
        // A slot that keeps `addr`, a waiter on it, and ten cycles.
        let stuck = |addr: usize| {
            let slot = domain.shared().primaries.claim();
            slot.addr.store(addr, Relaxed);
            let done = enqueue(&domain, addr);
            for _ in 0..10 {
                cycle(domain.shared());
            }
            (slot, done)
        };
        let (a, first) = stuck(0x1000);
        let stats = domain.stats();
        assert_eq!(
            (stats.drain_engages, stats.drain_fairness_disengages),
            (1, 0),
            "alone, the drain goes on past the cap"
        );
        let (b, second) = stuck(0x2000);
        let stats = domain.stats();
        assert!(stats.drain_fairness_disengages >= 1, "{stats:?}");
        assert_eq!(stats.drain_addresses, 2, "{stats:?}");
        a.addr.store(EMPTY, Relaxed);
        b.addr.store(EMPTY, Relaxed);
        cycle(domain.shared());
        assert!(first.try_take() && second.try_take());
    }

    #[test]
    fn the_self_scan_returns_only_when_no_slot_holds_the_address_or_the_wildcard() {
        let domain = Domain::with_config(Config::model());
        let shared = domain.shared();
        let (primary, backup) = (shared.primaries.claim(), shared.overflow[0].claim());
        assert!(self_scan(shared, 0x1000), "every slot empty");
        backup.addr.store(0x2000, Relaxed);
        assert!(self_scan(shared, 0x1000), "another address");
        for held in [0x1000, 0x1000 | MARK, WILDCARD] {
            primary.addr.store(held, Relaxed);
            assert!(!self_scan(shared, 0x1000), "primary slot holding {held:#x}");
            primary.addr.store(EMPTY, Relaxed);
            backup.addr.store(held, Relaxed);
            assert!(!self_scan(shared, 0x1000), "backup slot holding {held:#x}");
            backup.addr.store(EMPTY, Relaxed);
        }
        let stats = domain.stats();
        assert_eq!((stats.self_scans, stats.self_scan_completions), (8, 2));
        assert_eq!(stats.heavy_fences, 8, "one fence per self-scan");
        assert_eq!(stats.scan_cycles, 0, "the self-scan runs no cycle");
    }

    #[test]
    fn an_idle_cycle_issues_no_fence() {
        let domain = Domain::with_config(Config::model());
        assert!(!cycle(domain.shared()).ran);
        assert_eq!(domain.stats().heavy_fences, 0);
    }
}
