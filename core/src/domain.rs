//! The domain: the set of slots, the waiter queue, the retired objects and the scan thread
//! that serves them.
//!
//! Readers borrow a domain ([`Domain::reader`]); writers unlink an object and then either
//! wait for it ([`Domain::synchronize`]) or hand it over ([`Domain::retire`]).
//! The state the scan thread shares lives in [`Shared`], behind an `Arc`, so the thread can
//! outlive any borrow; the domain joins the thread when it drops, and then reclaims every
//! retired object, which is safe because no reader can outlive the domain it borrows.

use std::sync::Arc;

use core::panic::Location;
use core::ptr;
use core::sync::atomic::Ordering::{Acquire, Relaxed};
use core::time::Duration;

use crate::backend::{Atomic, AtomicInt, Backend, Clock, Counter, Event, Lock, Std};
use crate::config::{Config, ScanMode};
use crate::guard::Reader;
use crate::retire::{self, Retired};
use crate::scan;
use crate::slot::{EMPTY, SlotList, WILDCARD, key};
use crate::stall::StallReport;
use crate::weaken::{self, Weakening};

/// A hazard-pointer domain: slots, waiters, retired objects and their scan thread.
///
/// A std user writes `Domain::new()`; the model checkers name their backend:
/// `Domain::<Loom>::with_backend_config(Config::model())`.
pub struct Domain<B: Backend = Std> {
    shared: Arc<Shared<B>>,
    scan_thread: B::Mutex<Option<B::JoinHandle>>,
}

/// What the scan thread shares with the domain.
pub(crate) struct Shared<B: Backend> {
    pub(crate) config: Config,
    /// Every reader's primary slot.
    pub(crate) primaries: SlotList<B>,
    /// Backup slots, spread over several lists to spread the contention of claiming them.
    pub(crate) overflow: Box<[SlotList<B>]>,
    /// Round-robin choice of a new reader's overflow list.
    next_list: B::AtomicUsize,
    /// Waiters and retired objects that arrived since the last cycle began.
    pub(crate) incoming: B::Mutex<Incoming<B>>,
    /// What the scan cycles carry from one to the next; held for a whole cycle, so cycles
    /// never overlap.
    pub(crate) scan: B::Mutex<scan::ScanState<B>>,
    /// Wakes the scan thread.
    pub(crate) kick: B::Event,
    /// Tells the scan thread to exit.
    pub(crate) shutdown: B::AtomicBool,
    /// The backend's clock, read by the scan cycles.
    pub(crate) clock: B::Clock,
    /// The stall timeout in milliseconds, `u64::MAX` when the detector is off.
    stall_timeout_ms: B::AtomicU64,
    /// Whether stall reports are suppressed.
    stall_suppress: B::AtomicBool,
    /// `synchronize` calls in flight that may take the self-scan (all of them unless
    /// `Config::skip_self_scan`).
    in_flight: B::AtomicUsize,
    /// When two `synchronize` calls last overlapped, or followed each other on different
    /// threads within the backoff: nanoseconds of `clock` plus one, 0 for never.
    /// This and the next two are written only when `Config::self_scan_backoff` is not zero.
    last_overlap: B::AtomicU64,
    /// When the last `synchronize` call entered, as `last_overlap`.
    last_call: B::AtomicU64,
    /// The `Backend::thread_token` of that call's thread.
    last_caller: B::AtomicUsize,
    /// Counters kept outside the scan cycle's lock.
    pub(crate) counters: Counters,
}

/// The counters of [`Stats`] that are counted outside the scan cycle's lock: by the
/// self-scan, which takes no lock, and at retire time.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) self_scans: Counter,
    pub(crate) self_scan_completions: Counter,
    pub(crate) self_scan_membarriers: Counter,
    pub(crate) retired: Counter,
}

/// One `synchronize` in flight, counted in `Shared::in_flight` until it drops.
struct InFlight<'a, B: Backend>(&'a B::AtomicUsize);

impl<'a, B: Backend> InFlight<'a, B> {
    /// Counts a call in; also returns whether it was alone.
    fn enter(shared: &'a Shared<B>) -> (Self, bool) {
        // Relaxed: the count only chooses between two correct paths (see
        // `Domain::may_self_scan`); it orders nothing.
        let others = shared.in_flight.fetch_add(1, Relaxed);
        (Self(&shared.in_flight), others == 0)
    }
}

impl<B: Backend> Drop for InFlight<'_, B> {
    fn drop(&mut self) {
        // Relaxed: as in `enter`.
        self.0.fetch_sub(1, Relaxed);
    }
}

impl<B: Backend> Shared<B> {
    /// The current stall timeout.
    pub(crate) fn stall_timeout(&self) -> Option<Duration> {
        // Relaxed: a runtime knob; any recent value will do.
        match self.stall_timeout_ms.load(Relaxed) {
            u64::MAX => None,
            ms => Some(Duration::from_millis(ms)),
        }
    }

    /// Whether stall reports are suppressed.
    pub(crate) fn stall_suppressed(&self) -> bool {
        // Relaxed: a runtime knob; any recent value will do.
        self.stall_suppress.load(Relaxed)
    }
}

fn timeout_ms(timeout: Option<Duration>) -> u64 {
    timeout.map_or(u64::MAX, |t| {
        u64::try_from(t.as_millis()).unwrap_or(u64::MAX - 1)
    })
}

/// Arrivals since the last cycle began.
pub(crate) struct Incoming<B: Backend> {
    pub(crate) waiters: Vec<scan::Waiter<B>>,
    pub(crate) retired: Vec<Retired>,
}

/// Counters describing a domain's work so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Scan cycles run (a cycle with nothing to do is not counted).
    pub scan_cycles: u64,
    /// Heavy fences issued: one per scan cycle and one per self-scan.
    pub heavy_fences: u64,
    /// Of those, how many were `membarrier` system calls.
    pub membarrier_calls: u64,
    /// `synchronize` calls that scanned the slots by themselves (the self-scan), each with one
    /// heavy fence.
    pub self_scans: u64,
    /// Of those, the calls that found no slot holding their address or the wildcard and
    /// returned at once; the others joined the shared scan as waiters.
    pub self_scan_completions: u64,
    /// Waiters enqueued for the shared scan by `synchronize` (those that did not finish by
    /// their self-scan).
    pub waiters_enqueued: u64,
    /// Waiters the shared scan (or a drain) completed.
    pub waiters_completed: u64,
    /// Cycles that completed nothing because some slot held the wildcard.
    pub wildcard_deferrals: u64,
    /// Slot values the Bloom filter let through that the exact match then rejected.
    pub bloom_false_positives: u64,
    /// Objects retired, counted when `retire` is called.
    pub retired: u64,
    /// Retired objects reclaimed by scan cycles (not counting those reclaimed when the
    /// domain drops).
    pub reclaimed: u64,
    /// Time spent walking slots in scan cycles, by the backend's clock (logical under the
    /// model checkers).
    pub scan_time: core::time::Duration,
    /// Drains engaged.
    pub drain_engages: u64,
    /// Drains that ended because every protection in their snapshot was released.
    pub drain_completed: u64,
    /// Drains whose waiters the ordinary scan completed first.
    pub drain_orphaned: u64,
    /// Drains ended by the fairness cap.
    pub drain_fairness_disengages: u64,
    /// Distinct addresses ever drained.
    pub drain_addresses: u64,
    /// Cycles in which a drain would have engaged but a wildcard deferred it.
    pub drain_engage_deferrals: u64,
    /// Stalls detected (waiters blocked past the timeout, once per timeout period), whether
    /// reported or suppressed.
    pub stalls: u64,
    /// Primary slots ever created (one per concurrent reader at the high-water mark).
    pub primary_slots: usize,
    /// Backup slots ever created, over all overflow lists.
    pub backup_slots: usize,
}

impl Stats {
    /// Every wait that has ended: self-scans that returned at once, and waiters the shared
    /// scan completed. Heavy fences per `synchronize` are `heavy_fences` divided by this.
    pub fn waits_completed(&self) -> u64 {
        self.self_scan_completions + self.waiters_completed
    }
}

impl Domain<Std> {
    /// A std domain with the default [`Config`].
    pub fn new() -> Self {
        Self::with_config(Config::default())
    }

    /// A std domain with the given tuning.
    pub fn with_config(config: Config) -> Self {
        Self::with_backend_config(config)
    }
}

impl Default for Domain<Std> {
    fn default() -> Self {
        Self::new()
    }
}

impl<B: Backend> Domain<B> {
    /// A domain of backend `B` with the given tuning: `Domain::<Loom>::with_backend_config(…)`.
    pub fn with_backend_config(config: Config) -> Self {
        // Before any reader of this domain can exist, so the choice of fence is settled.
        B::init();
        let lists = config.overflow_lists.max(1);
        let shared = Shared {
            primaries: SlotList::new(false),
            overflow: (0..lists).map(|_| SlotList::new(true)).collect(),
            next_list: B::AtomicUsize::new(0),
            incoming: B::Mutex::new(Incoming {
                waiters: Vec::new(),
                retired: Vec::new(),
            }),
            scan: B::Mutex::new(scan::ScanState::new()),
            kick: B::Event::new(),
            shutdown: B::AtomicBool::new(false),
            clock: B::Clock::new(),
            stall_timeout_ms: B::AtomicU64::new(timeout_ms(config.stall_timeout)),
            stall_suppress: B::AtomicBool::new(config.stall_suppress),
            in_flight: B::AtomicUsize::new(0),
            last_overlap: B::AtomicU64::new(0),
            last_call: B::AtomicU64::new(0),
            last_caller: B::AtomicUsize::new(0),
            counters: Counters::default(),
            config,
        };
        Self {
            shared: Arc::new(shared),
            scan_thread: B::Mutex::new(None),
        }
    }

    /// The domain's tuning.
    pub fn config(&self) -> &Config {
        &self.shared.config
    }

    /// A new reader handle, owning one primary slot until it drops.
    ///
    /// Make one per thread and keep it: creating a reader claims a slot.
    pub fn reader(&self) -> Reader<'_, B> {
        let primary = self.shared.primaries.claim();
        let lists = self.shared.overflow.len();
        // Relaxed: only spreads readers over lists; any value is correct.
        let list = crate::backend::AtomicInt::fetch_add(
            &self.shared.next_list,
            1,
            core::sync::atomic::Ordering::Relaxed,
        ) % lists;
        Reader::new(self, primary, &self.shared.overflow[list])
    }

    pub(crate) fn shared(&self) -> &Shared<B> {
        &self.shared
    }

    /// Waits until no slot holds `ptr`'s address.
    ///
    /// Call it after unlinking the object from every place a reader could load it: then no
    /// reader protects it once this returns, and the caller may free or reuse it.
    /// A null `ptr` returns at once.
    ///
    /// A call that is the only one in flight scans the slots by itself (the self-scan: one
    /// heavy fence and one walk, a few microseconds) and returns at once if none holds the
    /// address or the wildcard. Otherwise, or when [`Config::skip_self_scan`] is set, it joins
    /// the shared scan: concurrent callers share scan cycles, one cycle serving every waiter
    /// present when it starts. For [`Config::self_scan_backoff`] after two calls overlap, or
    /// follow each other on different threads, every call joins the shared scan, so a burst
    /// of callers keeps sharing cycles.
    ///
    /// A thread must not wait for an address it protects itself: it would wait for ever.
    /// Debug builds check it, and panic with a message naming the guard's slot and where it
    /// was taken; in a release build the call waits, and the stall reports name the waiting
    /// thread as the holder.
    pub fn synchronize<T>(&self, ptr: *const T) {
        let addr = ptr as usize;
        if addr == 0 {
            return;
        }
        self.check_not_held_by_caller(addr);
        let _in_flight = if self.shared.config.skip_self_scan {
            None
        } else {
            let (in_flight, alone) = InFlight::enter(&self.shared);
            if self.may_self_scan(alone) && scan::self_scan(&self.shared, addr) {
                return;
            }
            Some(in_flight)
        };
        let done = self.enqueue(addr);
        match self.shared.config.scan_mode {
            ScanMode::Thread => {
                self.kick_scan_thread();
                done.wait();
            }
            ScanMode::Caller => loop {
                scan::cycle(&self.shared);
                if done.try_take() {
                    break;
                }
                B::yield_now();
            },
        }
    }

    /// Whether a call may take the self-scan (see the book's "The self-scan"): it is `alone`
    /// (no other `synchronize` was in flight when it entered), the last call before it was
    /// made by the same thread or long enough ago, and no two calls overlapped within the
    /// backoff. A call that fails the first two tests records an overlap.
    ///
    /// Only the cost depends on this choice, never the safety: the self-scan is a complete
    /// scan for its address, and a call that does not take it joins the shared scan.
    fn may_self_scan(&self, alone: bool) -> bool {
        let shared = &self.shared;
        let backoff = shared.config.self_scan_backoff;
        if backoff.is_zero() {
            return alone;
        }
        let backoff = u64::try_from(backoff.as_nanos()).unwrap_or(u64::MAX);
        let now = u64::try_from(shared.clock.now().as_nanos()).unwrap_or(u64::MAX - 1) + 1;
        let recent = |at: u64| at != 0 && now.saturating_sub(at) < backoff;
        let me = B::thread_token();
        // Relaxed, here and below: a heuristic that only chooses between two correct paths;
        // any recent values will do.
        let last_call = shared.last_call.swap(now, Relaxed);
        let last_caller = shared.last_caller.swap(me, Relaxed);
        if !alone || (last_caller != me && recent(last_call)) {
            // Concurrent callers, or callers on several threads in quick succession (the
            // first calls of a burst, each finished before the next began): leave them to
            // the shared scan, whose one cycle serves them all.
            shared.last_overlap.store(now, Relaxed);
            return false;
        }
        !recent(shared.last_overlap.load(Relaxed))
    }

    /// In debug builds on the std backend, panics if the calling thread itself protects
    /// `addr`: its `synchronize` would wait for ever for its own guard.
    fn check_not_held_by_caller(&self, addr: usize) {
        if !cfg!(debug_assertions) || B::MODEL {
            return;
        }
        let me = B::thread_token();
        for (list, node) in scan::all_slots(&self.shared) {
            // Acquire: reads a publication, a release store made after the protection's
            // `Node::note_protector`, whose fields the relaxed loads below then see.
            let value = node.addr.load(Acquire);
            if value == EMPTY || value == WILDCARD || key(value) != key(addr) {
                continue;
            }
            // Relaxed: ordered by the acquire load above.
            if node.protector.load(Relaxed) != me {
                continue;
            }
            let kind = if list == 0 { "primary" } else { "backup" };
            let site = match node.protector_site.load(Relaxed) {
                0 => String::from("an unknown site"),
                exposed => {
                    let site: *const Location<'static> = ptr::with_exposed_provenance(exposed);
                    // Safety: non-zero values are exposed addresses of `&'static Location`s,
                    // stored by `Node::note_protector`.
                    unsafe { &*site }.to_string()
                }
            };
            panic!(
                "hazptr: synchronize({addr:#x}) called by a thread that protects that address \
                 itself, through the guard in its {kind} slot {} taken at {site}: the call would \
                 wait for ever for its own guard; drop the guard before synchronizing on the \
                 pointer it protects",
                node.index
            );
        }
    }

    /// Enqueues a waiter for `addr`; returns the event its completion sets.
    pub(crate) fn enqueue(&self, addr: usize) -> Arc<B::Event> {
        let waiter = scan::Waiter::new(addr, B::current_thread(), B::thread_token());
        let done = waiter.done();
        // The unlink that precedes this call happens before the scanner's heavy fence: the
        // lock below publishes the waiter to the scanner, which takes the same lock before
        // it fences. Checked by litmus/tests/hazptr/hazptr-acquire-before-scan.litmus.
        self.shared
            .incoming
            .with(|incoming| incoming.waiters.push(waiter));
        tracing::trace!(target: "hazptr", addr, "waiter enqueued");
        done
    }

    /// Hands `ptr` over for reclamation by `deleter` once no reader protects it.
    ///
    /// Reclamation is batched: a scan cycle runs once [`Config::retire_batch`] objects wait,
    /// and every object still retired is reclaimed when the domain drops; [`Domain::reclaim`]
    /// asks for it now.
    ///
    /// # Safety
    ///
    /// 1. `ptr` is already unlinked: no reader can load it from any source any more.
    /// 2. Calling `deleter(ptr)` once, on any thread, after no reader protects `ptr`, is safe;
    ///    nothing else frees the object.
    ///
    /// The deleter runs on the scan thread, on a thread running a scan cycle, or in the
    /// domain's drop. It may retire, but must not call `synchronize` on this domain: on the
    /// scan thread that would wait for itself.
    pub unsafe fn retire<T>(&self, ptr: *mut T, deleter: unsafe fn(*mut T)) {
        // Safety: (2) is the contract of `Retired::new`.
        let retired = unsafe { Retired::new(ptr, deleter) };
        self.shared.counters.retired.add(1);
        // The unlink of (1) happens before the scanner's heavy fence through this lock, as
        // in `synchronize`.
        let batch = self.shared.incoming.with(|incoming| {
            incoming.retired.push(retired);
            incoming.retired.len()
        });
        let full = self.shared.config.retire_batch.max(1);
        match self.shared.config.scan_mode {
            // Only the retire that fills the batch kicks: the cycle it wakes takes every
            // arrival, those that come while the thread wakes up included, and a later kick
            // would only wake the thread for nothing.
            ScanMode::Thread if batch == full => self.kick_scan_thread(),
            ScanMode::Caller if batch >= full => {
                scan::cycle(&self.shared);
            }
            _ => {}
        }
    }

    /// Reclaims now, on the calling thread, every retired object that no reader protects,
    /// instead of waiting for a full batch ([`Config::retire_batch`]) or the domain's drop;
    /// returns how many it reclaimed (haphazard's `eager_reclaim`).
    ///
    /// It runs one scan cycle (after the one in progress, if any), which also completes every
    /// waiter it can. Objects still protected stay retired for a later cycle, and so does
    /// everything while some reader is between loading a pointer and publishing it (a slot
    /// holding the wildcard): call it again. The deleters run on the calling thread, after
    /// the cycle's lock is released, so a deleter may retire or reclaim in turn.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicPtr, Ordering};
    /// use hazptr::Domain;
    ///
    /// let domain = Domain::new();
    /// let src = AtomicPtr::new(Box::into_raw(Box::new(1_u32)));
    /// let old = src.swap(Box::into_raw(Box::new(2)), Ordering::AcqRel);
    /// // Safety: `old` is unlinked and came from a box.
    /// unsafe { domain.retire_box(old) };
    /// assert_eq!(domain.stats().reclaimed, 0, "one object is far from a batch");
    /// assert_eq!(domain.reclaim(), 1, "no reader protects it");
    /// # // Safety: the domain is the only user left.
    /// # unsafe { domain.retire_box(src.load(Ordering::Relaxed)) };
    /// ```
    pub fn reclaim(&self) -> usize {
        scan::cycle(&self.shared).reclaimed
    }

    /// [`Domain::retire`] for an object that came from `Box::into_raw`.
    ///
    /// # Safety
    ///
    /// 1. `ptr` is already unlinked: no reader can load it from any source any more.
    /// 2. `ptr` came from `Box::<T>::into_raw`, nothing else frees it, and dropping the box
    ///    on another thread is safe.
    pub unsafe fn retire_box<T>(&self, ptr: *mut T) {
        // Safety: (1) and (2) are the contract of `retire` with `drop_box` as the deleter.
        unsafe { self.retire(ptr, retire::drop_box::<T>) }
    }

    /// The most recent stall reports (at most 16), oldest first.
    pub fn stall_reports(&self) -> Vec<StallReport> {
        self.shared
            .scan
            .with(|scan| scan.reports.iter().cloned().collect())
    }

    /// Sets the stall timeout at run time; `None` turns the detector off.
    pub fn set_stall_timeout(&self, timeout: Option<Duration>) {
        // Relaxed: a runtime knob, read by the next scan cycle.
        self.shared
            .stall_timeout_ms
            .store(timeout_ms(timeout), Relaxed);
    }

    /// The current stall timeout.
    pub fn stall_timeout(&self) -> Option<Duration> {
        self.shared.stall_timeout()
    }

    /// Suppresses (or re-enables) stall reports at run time; stalls are still counted.
    pub fn set_stall_suppressed(&self, suppress: bool) {
        // Relaxed: a runtime knob, read by the next scan cycle.
        self.shared.stall_suppress.store(suppress, Relaxed);
    }

    /// Whether stall reports are suppressed.
    pub fn stall_suppressed(&self) -> bool {
        self.shared.stall_suppressed()
    }

    /// The domain's counters so far.
    pub fn stats(&self) -> Stats {
        let mut stats = self.shared.scan.with(|scan| scan.stats.clone());
        let counters = &self.shared.counters;
        stats.self_scans = counters.self_scans.get();
        stats.self_scan_completions = counters.self_scan_completions.get();
        stats.heavy_fences += stats.self_scans;
        stats.membarrier_calls += counters.self_scan_membarriers.get();
        stats.retired = counters.retired.get();
        stats.primary_slots = self.shared.primaries.len();
        stats.backup_slots = self.shared.overflow.iter().map(SlotList::len).sum();
        stats
    }

    /// Starts the scan thread if it is not running, and wakes it.
    fn kick_scan_thread(&self) {
        self.scan_thread.with(|handle| {
            if handle.is_none() {
                let shared = Arc::clone(&self.shared);
                *handle = Some(B::spawn(
                    "hazptr-scan",
                    Box::new(move || scan::run(&shared)),
                ));
            }
        });
        self.shared.kick.set();
    }
}

impl<B: Backend> Drop for Domain<B> {
    fn drop(&mut self) {
        if let Some(handle) = self.scan_thread.with(Option::take) {
            // Relaxed: the kick's lock orders this store before the thread's next check.
            self.shared
                .shutdown
                .store(true, core::sync::atomic::Ordering::Relaxed);
            if !weaken::active::<B>(Weakening::NoShutdownKick) {
                self.shared.kick.set()
            }
            B::join(handle);
        }
        let mut retired = self
            .shared
            .incoming
            .with(|incoming| std::mem::take(&mut incoming.retired));
        retired.extend(
            self.shared
                .scan
                .with(|scan| std::mem::take(&mut scan.retired)),
        );
        for object in retired {
            // Safety: readers borrow the domain, so none exists while it drops, and the scan
            // thread has been joined.
            unsafe { object.reclaim() };
        }
    }
}
