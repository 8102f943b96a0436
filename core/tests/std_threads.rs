//! The hazptr core on real threads: protection, nesting, synchronize, retire, under many
//! readers and writers on shared and distinct addresses.
//!
//! Objects carry a magic word that is poisoned when they are "freed"; the memory itself is
//! kept in a graveyard until the test ends, so a reader that touches a freed object fails an
//! assertion instead of invoking undefined behaviour.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering::*};
use std::thread;
use std::time::Duration;

use hazptr::{Config, Domain, ScanMode};

const LIVE: u64 = 0x11FE_11FE_11FE_11FE;
const DEAD: u64 = 0xDEAD_DEAD_DEAD_DEAD;

struct Obj {
    magic: AtomicU64,
    value: u64,
}

fn obj(value: u64) -> *mut Obj {
    Box::into_raw(Box::new(Obj {
        magic: AtomicU64::new(LIVE),
        value,
    }))
}

/// Poisons an object and keeps its memory until the graveyard is emptied.
struct Graveyard(Mutex<Vec<usize>>);

impl Graveyard {
    const fn new() -> Self {
        Self(Mutex::new(Vec::new()))
    }

    /// # Safety
    ///
    /// 1. `ptr` came from `obj` and is buried once.
    unsafe fn bury(&self, ptr: *mut Obj) {
        // Safety: by (1) the object is still allocated.
        unsafe { (*ptr).magic.store(DEAD, Relaxed) };
        self.0.lock().unwrap().push(ptr as usize);
    }

    fn empty(&self) -> usize {
        let graves = std::mem::take(&mut *self.0.lock().unwrap());
        for &addr in &graves {
            // Safety: every grave came from `obj` and was buried once.
            drop(unsafe { Box::from_raw(addr as *mut Obj) });
        }
        graves.len()
    }
}

/// Reads the protected object and fails if it was freed.
fn check(o: &Obj) -> u64 {
    let magic = o.magic.load(Relaxed);
    assert_eq!(
        magic, LIVE,
        "use after free: read a poisoned object (value {})",
        o.value
    );
    o.value
}

#[test]
fn protect_reads_the_object_and_null_gives_none() {
    let domain = Domain::new();
    let src = AtomicPtr::new(obj(5));
    let null = AtomicPtr::<Obj>::new(std::ptr::null_mut());
    let mut reader = domain.reader();
    // Safety: objects come from `obj` and are freed after synchronize.
    let guard = unsafe { reader.protect(&src) }.unwrap();
    assert_eq!(check(&guard), 5);
    assert!(!guard.is_backup());
    // Safety: as above.
    assert!(unsafe { guard.protect_nested(&null) }.is_none());
    drop(guard);
    // Safety: as above.
    assert!(unsafe { reader.protect(&null) }.is_none());
    let old = src.swap(std::ptr::null_mut(), AcqRel);
    domain.synchronize(old);
    domain.synchronize(std::ptr::null::<Obj>());
    // Safety: unlinked and synchronized.
    drop(unsafe { Box::from_raw(old) });
}

#[test]
fn nested_protections_take_backup_slots_and_release_them() {
    let domain = Domain::new();
    let srcs: Vec<AtomicPtr<Obj>> = (0..4).map(|i| AtomicPtr::new(obj(i))).collect();
    let mut reader = domain.reader();
    // Safety: objects come from `obj` and are freed only at the end, after every guard.
    let first = unsafe { reader.protect(&srcs[0]) }.unwrap();
    let mut guards: Vec<_> = srcs[1..]
        .iter()
        // Safety: as above.
        .map(|s| unsafe { first.protect_nested(s) }.unwrap())
        .collect();
    guards.insert(0, first);
    let kinds: Vec<bool> = guards.iter().map(|g| g.is_backup()).collect();
    assert_eq!(kinds, [false, true, true, true]);
    assert_eq!(guards.iter().map(|g| check(g)).sum::<u64>(), 6);
    drop(guards);
    // Backup slots are reused, not added, by the next round.
    // Safety: as above.
    let first = unsafe { reader.protect(&srcs[0]) }.unwrap();
    assert!(!first.is_backup());
    let again: Vec<_> = srcs[1..]
        .iter()
        // Safety: as above.
        .map(|s| unsafe { first.protect_nested(s) }.unwrap())
        .collect();
    assert!(again.iter().all(|g| g.is_backup()));
    drop(again);
    drop(first);
    let stats = domain.stats();
    assert_eq!(stats.primary_slots, 1);
    assert_eq!(stats.backup_slots, 3);
    for s in &srcs {
        // Safety: no guard remains.
        drop(unsafe { Box::from_raw(s.load(Relaxed)) });
    }
}

/// A linked list of three nodes, for walks.
struct Link {
    obj: Obj,
    next: AtomicPtr<Link>,
}

#[test]
fn a_nested_guard_outlives_the_guard_it_came_through() {
    // The list 0 -> 1 -> 2, walked hand over hand: each step protects the next node through
    // the current guard, then lets the current guard go.
    let links: Vec<*mut Link> = (0..3)
        .map(|i| {
            Box::into_raw(Box::new(Link {
                obj: Obj {
                    magic: AtomicU64::new(LIVE),
                    value: i,
                },
                next: AtomicPtr::new(std::ptr::null_mut()),
            }))
        })
        .collect();
    for pair in links.windows(2) {
        // Safety: from the boxes above, not yet shared.
        unsafe { (*pair[0]).next.store(pair[1], Relaxed) };
    }
    let head = AtomicPtr::new(links[0]);
    let domain = Domain::new();
    let mut reader = domain.reader();
    // Safety: links are freed only at the end, and poisoned only after unlinking and
    // synchronize.
    let mut current = unsafe { reader.protect(&head) }.unwrap();
    let mut seen = vec![check(&current.obj)];
    // Safety: as above.
    while let Some(next) = unsafe { current.protect_nested(&current.next) } {
        current = next;
        seen.push(check(&current.obj));
    }
    assert_eq!(seen, [0, 1, 2]);
    assert!(current.is_backup());
    // The first node's guard is gone: unlinking it and waiting returns at once, while the
    // last one is still protected by the walk's final guard.
    head.store(links[1], Release);
    domain.synchronize(links[0]);
    // Safety: unlinked and synchronized; freed below.
    unsafe { (*links[0]).obj.magic.store(DEAD, Relaxed) };
    assert_eq!(check(&current.obj), 2);
    drop(current);
    for &link in &links {
        // Safety: no guard remains.
        drop(unsafe { Box::from_raw(link) });
    }
}

#[test]
fn a_leaked_guard_is_replaced_by_the_next_protection_and_cleared_by_the_reader() {
    let domain = Domain::new();
    let (a, b) = (obj(1), obj(2));
    let (src_a, src_b) = (AtomicPtr::new(a), AtomicPtr::new(b));
    let mut reader = domain.reader();
    // Safety: the objects are freed only at the end, after the synchronizes.
    std::mem::forget(unsafe { reader.protect(&src_a) }.unwrap());
    // The leaked protection holds `a` until the reader's next protection replaces it.
    let wait_a = hazptr::raw::enqueue(&domain, a);
    hazptr::raw::scan_cycle(&domain);
    assert!(!wait_a.is_complete());
    // Safety: as above.
    let guard = unsafe { reader.protect(&src_b) }.unwrap();
    assert!(
        !guard.is_backup(),
        "the primary slot is taken over, not abandoned"
    );
    hazptr::raw::scan_cycle(&domain);
    assert!(wait_a.is_complete());
    drop(guard);
    // A leaked protection of `b` is cleared when the reader drops.
    // Safety: as above.
    std::mem::forget(unsafe { reader.protect(&src_b) }.unwrap());
    let wait_b = hazptr::raw::enqueue(&domain, b);
    hazptr::raw::scan_cycle(&domain);
    assert!(!wait_b.is_complete());
    drop(reader);
    hazptr::raw::scan_cycle(&domain);
    assert!(wait_b.is_complete());
    // Safety: both synchronized after their last protection.
    unsafe {
        drop(Box::from_raw(a));
        drop(Box::from_raw(b));
    }
}

#[test]
fn readers_reuse_released_primary_slots() {
    let domain = Domain::new();
    for _ in 0..10 {
        let a = domain.reader();
        let b = domain.reader();
        drop((a, b));
    }
    assert_eq!(domain.stats().primary_slots, 2);
}

fn synchronize_waits_for_the_holder(config: Config) {
    let domain = Domain::with_config(config);
    let src = AtomicPtr::new(obj(1));
    let released = AtomicBool::new(false);
    let mut reader = domain.reader();
    // Safety: objects come from `obj` and are freed after synchronize.
    let guard = unsafe { reader.protect(&src) }.unwrap();
    let graves = Graveyard::new();
    thread::scope(|s| {
        let writer = s.spawn(|| {
            let old = src.swap(obj(2), AcqRel);
            domain.synchronize(old);
            assert!(
                released.load(SeqCst),
                "synchronize returned while the object was held"
            );
            // Safety: unlinked and synchronized.
            unsafe { graves.bury(old) };
        });
        // Give the writer time to start waiting; correctness does not depend on it.
        thread::sleep(Duration::from_millis(20));
        assert_eq!(check(&guard), 1);
        released.store(true, SeqCst);
        drop(guard);
        writer.join().unwrap();
    });
    assert_eq!(graves.empty(), 1);
    // Safety: the last object, no guard remains.
    drop(unsafe { Box::from_raw(src.load(Relaxed)) });
    let stats = domain.stats();
    assert_eq!(stats.waiters_completed, 1);
    assert!(stats.scan_cycles >= 1);
    if !domain.config().skip_self_scan {
        // The writer was alone: it scanned by itself, found the guard, and joined the scan.
        assert_eq!((stats.self_scans, stats.self_scan_completions), (1, 0));
    }
}

#[test]
fn synchronize_waits_for_the_holder_with_the_scan_thread() {
    synchronize_waits_for_the_holder(Config::default());
}

#[test]
fn synchronize_waits_for_the_holder_with_the_scan_thread_only() {
    synchronize_waits_for_the_holder(Config::default().skip_self_scan(true));
}

#[test]
fn a_lone_synchronize_returns_by_its_self_scan() {
    let domain = Domain::new();
    let target = obj(1);
    for _ in 0..3 {
        domain.synchronize(target);
    }
    let stats = domain.stats();
    assert_eq!((stats.self_scans, stats.self_scan_completions), (3, 3));
    assert_eq!(stats.heavy_fences, 3);
    assert_eq!((stats.scan_cycles, stats.waiters_enqueued), (0, 0));
    assert_eq!(stats.waits_completed(), 3);
    // Safety: never published.
    drop(unsafe { Box::from_raw(target) });
}

/// One thread calling again and again keeps its self-scans; a call from another thread soon
/// after starts a burst, which the backoff keeps on the shared scan. The backoff is long
/// here, so that the test does not depend on timing.
#[test]
fn calls_from_several_threads_in_quick_succession_share_the_scan() {
    let domain = Domain::with_config(Config::default().self_scan_backoff(Duration::from_secs(60)));
    let target = obj(1);
    for _ in 0..3 {
        domain.synchronize(target);
    }
    let stats = domain.stats();
    assert_eq!(
        (stats.self_scans, stats.waiters_enqueued),
        (3, 0),
        "{stats:?}"
    );
    let addr = target as usize;
    thread::scope(|s| {
        s.spawn(|| domain.synchronize(addr as *const Obj));
    });
    domain.synchronize(target);
    let stats = domain.stats();
    assert_eq!(stats.self_scans, 3, "{stats:?}");
    assert_eq!(stats.waiters_completed, 2, "{stats:?}");
    // Safety: never published.
    drop(unsafe { Box::from_raw(target) });
}

#[test]
fn skip_self_scan_sends_every_call_to_the_scan_thread() {
    let domain = Domain::with_config(Config::default().skip_self_scan(true));
    let target = obj(1);
    for _ in 0..3 {
        domain.synchronize(target);
    }
    let stats = domain.stats();
    assert_eq!(stats.self_scans, 0);
    assert_eq!((stats.waiters_enqueued, stats.waiters_completed), (3, 3));
    assert_eq!(stats.heavy_fences, stats.scan_cycles);
    // Safety: never published.
    drop(unsafe { Box::from_raw(target) });
}

#[test]
fn synchronize_waits_for_the_holder_when_waiters_scan() {
    synchronize_waits_for_the_holder(Config::default().scan_mode(ScanMode::Caller));
}

#[test]
fn synchronize_waits_for_a_backup_slot_holder() {
    let domain = Domain::new();
    let first = AtomicPtr::new(obj(1));
    let src = AtomicPtr::new(obj(2));
    let released = AtomicBool::new(false);
    let mut reader = domain.reader();
    // Safety: objects come from `obj` and are freed after synchronize.
    let outer = unsafe { reader.protect(&first) }.unwrap();
    // Safety: as above.
    let inner = unsafe { outer.protect_nested(&src) }.unwrap();
    assert!(inner.is_backup());
    thread::scope(|s| {
        let writer = s.spawn(|| {
            let old = src.swap(std::ptr::null_mut(), AcqRel);
            domain.synchronize(old);
            assert!(
                released.load(SeqCst),
                "synchronize returned while a backup slot held it"
            );
            // Safety: unlinked and synchronized.
            drop(unsafe { Box::from_raw(old) });
        });
        thread::sleep(Duration::from_millis(20));
        assert_eq!(check(&inner), 2);
        released.store(true, SeqCst);
        drop(inner);
        writer.join().unwrap();
    });
    drop(outer);
    // Safety: no guard remains.
    drop(unsafe { Box::from_raw(first.load(Relaxed)) });
}

/// Readers hammer `sources`, sometimes nesting; writers replace objects and synchronize or
/// retire the old ones, which are poisoned when freed.
fn stress(
    config: Config,
    readers: usize,
    writers: usize,
    sources: usize,
    rounds: u64,
    retire: bool,
) {
    static RETIRED_GRAVES: Graveyard = Graveyard::new();
    unsafe fn bury_retired(ptr: *mut Obj) {
        // Safety: retired objects come from `obj` and are reclaimed once.
        unsafe { RETIRED_GRAVES.bury(ptr) };
    }

    let domain = Domain::with_config(config);
    let srcs: Vec<AtomicPtr<Obj>> = (0..sources)
        .map(|i| AtomicPtr::new(obj(i as u64)))
        .collect();
    let graves = Graveyard::new();
    let stop = AtomicBool::new(false);
    let reads = AtomicUsize::new(0);
    thread::scope(|s| {
        for r in 0..readers {
            let (domain, srcs, stop, reads) = (&domain, &srcs, &stop, &reads);
            s.spawn(move || {
                let mut reader = domain.reader();
                let mut n = 0usize;
                let mut i = r;
                while !stop.load(Relaxed) {
                    let a = &srcs[i % srcs.len()];
                    let b = &srcs[(i * 7 + 1) % srcs.len()];
                    // Safety: objects come from `obj` and are poisoned, never freed, before
                    // the test ends.
                    if let Some(g) = unsafe { reader.protect(a) } {
                        check(&g);
                        if i % 3 == 0 {
                            // Safety: as above.
                            if let Some(h) = unsafe { g.protect_nested(b) } {
                                assert!(h.is_backup());
                                check(&h);
                            }
                        }
                        check(&g);
                    }
                    n += 1;
                    i += 1;
                    // Leave the scan thread and the writers some of the machine's few cores.
                    if n.is_multiple_of(64) {
                        thread::yield_now();
                    }
                }
                reads.fetch_add(n, Relaxed);
            });
        }
        let mut handles = Vec::new();
        for w in 0..writers {
            let (domain, srcs, graves) = (&domain, &srcs, &graves);
            handles.push(s.spawn(move || {
                for round in 0..rounds {
                    let src = &srcs[(w + round as usize) % srcs.len()];
                    let old = src.swap(obj(round), AcqRel);
                    if retire {
                        // Safety: `old` is unlinked; the deleter poisons it once.
                        unsafe { domain.retire(old, bury_retired) };
                    } else {
                        domain.synchronize(old);
                        // Safety: unlinked and synchronized, buried once.
                        unsafe { graves.bury(old) };
                    }
                }
            }));
        }
        for h in handles {
            h.join().unwrap();
        }
        stop.store(true, Relaxed);
    });
    assert!(reads.load(Relaxed) > 0);
    let stats = domain.stats();
    drop(domain);
    let total = writers as u64 * rounds;
    if retire {
        assert_eq!(
            RETIRED_GRAVES.empty() as u64,
            total,
            "every retired object is reclaimed"
        );
    } else {
        assert_eq!(graves.empty() as u64, total);
        assert_eq!(stats.waits_completed(), total);
    }
    for s in &srcs {
        // Safety: no reader remains.
        drop(unsafe { Box::from_raw(s.load(Relaxed)) });
    }
}

#[test]
fn many_readers_and_writers_on_shared_addresses() {
    stress(Config::default(), 4, 4, 2, 50, false);
}

#[test]
fn many_readers_and_writers_on_distinct_addresses() {
    stress(Config::default(), 4, 4, 16, 200, false);
}

#[test]
fn many_readers_and_writers_through_the_forced_slow_path() {
    stress(Config::default().force_slow_path(true), 4, 2, 4, 200, false);
}

#[test]
fn many_readers_and_writers_when_waiters_scan() {
    stress(
        Config::default().scan_mode(ScanMode::Caller),
        4,
        4,
        4,
        200,
        false,
    );
}

#[test]
fn many_readers_and_retiring_writers() {
    stress(Config::default().retire_batch(8), 4, 4, 4, 500, true);
}

/// Sixteen waiters released together; returns the domain's statistics.
fn concurrent_waiters(config: Config) -> hazptr::Stats {
    let domain = Domain::with_config(config);
    let waiters = 16;
    let objs: Vec<usize> = (0..waiters).map(|i| obj(i) as usize).collect();
    let start = std::sync::Barrier::new(waiters as usize);
    thread::scope(|s| {
        for &o in &objs {
            let (domain, start) = (&domain, &start);
            s.spawn(move || {
                start.wait();
                domain.synchronize(o as *const Obj);
            });
        }
    });
    let stats = domain.stats();
    assert_eq!(stats.waits_completed(), waiters);
    // One cycle per waiter would be sixteen; batching serves many per cycle. Threads that
    // arrive while a cycle runs wait for the next, so allow a few.
    assert_eq!(stats.heavy_fences, stats.scan_cycles + stats.self_scans);
    if hazptr::Std::uses_membarrier() {
        assert_eq!(stats.membarrier_calls, stats.heavy_fences);
    } else {
        assert_eq!(stats.membarrier_calls, 0);
    }
    for o in objs {
        // Safety: never published.
        drop(unsafe { Box::from_raw(o as *mut Obj) });
    }
    stats
}

/// While one `synchronize` is in flight (held up by a guard), sixteen more do not scan by
/// themselves: each joins the shared scan, as the scan-thread-only mode does.
#[test]
fn concurrent_waiters_share_scan_cycles() {
    let domain = Domain::new();
    let src = AtomicPtr::new(obj(1));
    let mut reader = domain.reader();
    // Safety: the object is freed at the end, after the guard.
    let guard = unsafe { reader.protect(&src) }.unwrap();
    let held = guard.as_ptr() as usize;
    let objs: Vec<usize> = (0..16).map(|i| obj(i) as usize).collect();
    let start = std::sync::Barrier::new(objs.len());
    thread::scope(|s| {
        let domain = &domain;
        let blocker = s.spawn(move || domain.synchronize(held as *const Obj));
        while domain.stats().waiters_enqueued == 0 {
            thread::yield_now();
        }
        let waiters: Vec<_> = objs
            .iter()
            .map(|&o| {
                let start = &start;
                s.spawn(move || {
                    start.wait();
                    domain.synchronize(o as *const Obj);
                })
            })
            .collect();
        for waiter in waiters {
            waiter.join().unwrap();
        }
        drop(guard);
        blocker.join().unwrap();
    });
    let stats = domain.stats();
    assert_eq!(
        stats.self_scans, 1,
        "only the first call was alone: {stats:?}"
    );
    assert_eq!(stats.self_scan_completions, 0, "{stats:?}");
    assert_eq!(stats.waiters_completed, 17, "{stats:?}");
    drop(reader);
    for o in objs.into_iter().chain([held]) {
        // Safety: no guard remains; each object is freed once.
        drop(unsafe { Box::from_raw(o as *mut Obj) });
    }
}

#[test]
fn concurrent_waiters_share_scan_cycles_with_the_scan_thread_only() {
    let stats = concurrent_waiters(Config::default().skip_self_scan(true));
    assert!(stats.scan_cycles < 16, "{stats:?}");
    assert_eq!(stats.self_scans, 0);
    assert_eq!(stats.waiters_completed, 16);
}

#[test]
fn dropping_the_domain_reclaims_every_retired_object() {
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    struct Counted;
    impl Drop for Counted {
        fn drop(&mut self) {
            DROPS.fetch_add(1, Relaxed);
        }
    }
    let domain = Domain::with_config(Config::default().retire_batch(1000));
    for _ in 0..10 {
        // Safety: never published; from a box.
        unsafe { domain.retire_box(Box::into_raw(Box::new(Counted))) };
    }
    assert_eq!(
        DROPS.load(Relaxed),
        0,
        "below the batch size nothing is reclaimed yet"
    );
    drop(domain);
    assert_eq!(DROPS.load(Relaxed), 10);
}

#[test]
fn a_full_retire_batch_is_reclaimed_by_the_scan_thread_unless_held() {
    let domain = Domain::with_config(Config::default().retire_batch(4));
    let src = AtomicPtr::new(obj(0));
    let mut reader = domain.reader();
    // Safety: objects come from `obj` and are freed by retire.
    let guard = unsafe { reader.protect(&src) }.unwrap();
    let held = src.swap(std::ptr::null_mut(), AcqRel);
    // Safety: unlinked; from a box.
    unsafe { domain.retire_box(held) };
    for i in 1..4 {
        // Safety: never published; from a box.
        unsafe { domain.retire_box(obj(i)) };
    }
    // The scan thread reclaims the three unheld objects; wait for it by polling the stats.
    while domain.stats().reclaimed < 3 {
        thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(check(&guard), 0, "the held object survives");
    assert_eq!(domain.stats().reclaimed, 3);
    drop(guard);
    while domain.stats().reclaimed < 4 {
        thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn readers_move_between_threads_and_domains_are_shared() {
    fn send<T: Send>() {}
    fn sync<T: Sync>() {}
    send::<hazptr::Reader<'static>>();
    send::<Domain>();
    sync::<Domain>();
    let domain = Domain::new();
    let reader = domain.reader();
    thread::scope(|s| {
        s.spawn(move || drop(reader));
    });
}
