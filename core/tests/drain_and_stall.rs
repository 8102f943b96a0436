//! The seeds' scenarios on real threads: HOTADDR (drain-assist under hammering readers),
//! LONGHOLD (the stall detector), FAIRNESS (drain rotation between two stuck addresses).
//!
//! Nothing here asserts on timing: progress is asserted by flags and statistics.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering::*};
use std::thread;
use std::time::{Duration, Instant};

use hazptr::{Config, Domain, SlotKind, Stats};

/// A permanent object: its address stays published for the whole test, like a hash bucket.
struct Bucket {
    value: u64,
}

fn bucket() -> AtomicPtr<Bucket> {
    AtomicPtr::new(Box::into_raw(Box::new(Bucket { value: 7 })))
}

/// Frees a bucket once no reader remains.
fn free(src: &AtomicPtr<Bucket>) {
    // Safety: from `bucket`; the caller has joined every reader.
    drop(unsafe { Box::from_raw(src.load(Relaxed)) });
}

/// The hammer's flags: `stop` asks it to stop, it clears `running` when it stops, and counts
/// its started threads in `started`.
#[derive(Default)]
struct Flags {
    stop: AtomicBool,
    running: AtomicBool,
    started: AtomicUsize,
}

/// Runs `hammers` threads that keep re-acquiring `src` (holding it across a little work)
/// until asked to stop or `budget` runs out.
fn hammer<'s>(
    s: &'s thread::Scope<'s, '_>,
    domain: &'s Domain,
    src: &'s AtomicPtr<Bucket>,
    hammers: usize,
    budget: Duration,
    flags: &'s Flags,
) {
    flags.running.store(true, SeqCst);
    for _ in 0..hammers {
        let Flags {
            stop,
            running,
            started,
        } = flags;
        s.spawn(move || {
            let mut reader = domain.reader();
            started.fetch_add(1, SeqCst);
            let deadline = Instant::now() + budget;
            let mut n = 0u64;
            while !stop.load(Relaxed) {
                // Safety: the bucket is never freed while readers run.
                let guard = unsafe { reader.protect(src) }.unwrap();
                for _ in 0..20 {
                    black_box(guard.value);
                }
                drop(guard);
                n += 1;
                if n.is_multiple_of(1024) && Instant::now() > deadline {
                    break;
                }
            }
            running.store(false, SeqCst);
        });
    }
}

fn hotaddr(drain_assist: bool, budget: Duration) -> (bool, Stats, Stats) {
    let config = Config::default()
        .drain_assist(drain_assist)
        .drain_threshold(20)
        .scan_period(Duration::from_millis(1))
        .stall_timeout(None);
    let domain = Domain::with_config(config);
    let src = bucket();
    let flags = Flags::default();
    let hammers = 3;
    let mut outcome = (false, Stats::default(), Stats::default());
    thread::scope(|s| {
        hammer(s, &domain, &src, hammers, budget, &flags);
        while flags.started.load(SeqCst) < hammers {
            thread::yield_now();
        }
        // The scenario is a waiter on the hot address: a `synchronize` whose self-scan
        // finds no hammer holding it (each may be between two guards, or not scheduled, on
        // a loaded machine) returns at once and is no waiter, so it is asked again.
        let before = domain.stats();
        let mut after = before.clone();
        while after.waiters_enqueued == before.waiters_enqueued && flags.running.load(SeqCst) {
            domain.synchronize(src.load(Relaxed));
            after = domain.stats();
        }
        let still_running = flags.running.load(SeqCst);
        let after = domain.stats();
        flags.stop.store(true, Relaxed);
        outcome = (still_running, before, after);
    });
    free(&src);
    outcome
}

#[test]
fn hotaddr_drain_completes_the_waiter_while_the_hammer_runs() {
    // The budget only bounds a broken drain; a working one finishes long before.
    let (still_running, before, after) = hotaddr(true, Duration::from_secs(60));
    let cycles = after.scan_cycles - before.scan_cycles;
    eprintln!(
        "HOTADDR, drain on: the waiter completed after {cycles} scan cycles; \
         {} engages, {} completed, {} orphaned, {} fairness-cap",
        after.drain_engages,
        after.drain_completed,
        after.drain_orphaned,
        after.drain_fairness_disengages
    );
    assert!(
        still_running,
        "the waiter completed only after the hammer stopped"
    );
    assert_eq!(after.waiters_completed, 1);
    if cycles > 20 {
        // Past the threshold a drain must have engaged, unless the scan got a clean walk.
        assert!(
            after.drain_engages >= 1,
            "no drain engaged in {cycles} cycles"
        );
    }
    assert_eq!(
        after.drain_engages,
        after.drain_completed + after.drain_orphaned + after.drain_fairness_disengages
    );
}

#[test]
fn hotaddr_without_drain_reports_whether_the_waiter_beat_the_hammer() {
    let (still_running, before, after) = hotaddr(false, Duration::from_secs(2));
    // FIXME: nothing bounds this waiter's wait but the hammer's budget; that is the
    // starvation drain-assist exists to fix, so only report it.
    eprintln!(
        "HOTADDR, drain off: the waiter {} the hammer stopped, after {} scan cycles",
        if still_running {
            "finished before"
        } else {
            "finished only after"
        },
        after.scan_cycles - before.scan_cycles
    );
    assert_eq!(after.drain_engages, 0);
    assert_eq!(after.waiters_completed, 1);
}

#[test]
fn longhold_reports_the_holder_and_completes_after_release() {
    let config = Config::default()
        .scan_period(Duration::from_millis(1))
        .drain_max_cycles(5);
    let domain = Domain::with_config(config);
    // The runtime control, as an administrator would use it.
    domain.set_stall_timeout(Some(Duration::from_millis(30)));
    assert_eq!(domain.stall_timeout(), Some(Duration::from_millis(30)));
    let src = bucket();
    let (held, released) = (AtomicBool::new(false), AtomicBool::new(false));
    thread::scope(|s| {
        let holder = thread::Builder::new().name("longhold-holder".into());
        let (domain, src, held, released) = (&domain, &src, &held, &released);
        holder
            .spawn_scoped(s, move || {
                let mut reader = domain.reader();
                // Safety: the bucket is never freed while readers run.
                let guard = unsafe { reader.protect(src) }.unwrap();
                held.store(true, SeqCst);
                // Hold until two consecutive reports have appeared.
                while domain.stall_reports().len() < 2 {
                    thread::sleep(Duration::from_millis(1));
                }
                released.store(true, SeqCst);
                drop(guard);
            })
            .unwrap();
        while !held.load(SeqCst) {
            thread::yield_now();
        }
        domain.synchronize(src.load(Relaxed));
        assert!(
            released.load(SeqCst),
            "synchronize returned during the hold"
        );
    });
    let reports = domain.stall_reports();
    assert!(reports.len() >= 2);
    let (first, second) = (&reports[0], &reports[1]);
    eprintln!("{first}\n{second}");
    assert_eq!((first.sequence, second.sequence), (1, 2));
    assert_eq!(first.addr, src.load(Relaxed) as usize);
    let holder = &first.holders[0];
    assert_eq!(first.holders.len(), 1);
    assert_eq!(holder.kind, SlotKind::Primary);
    assert_eq!(holder.thread_name.as_deref(), Some("longhold-holder"));
    assert!(holder.thread_id.is_some());
    assert!(
        holder.site.is_none(),
        "sites are recorded only under debug_holders"
    );
    // One long hold: the same slot, seen held for longer in the later report.
    assert_eq!(second.holders[0].slot, holder.slot);
    assert!(second.holders[0].observed_for > holder.observed_for);
    let text = first.to_string();
    assert!(
        text.contains("longhold-holder") && text.contains("not necessarily a bug"),
        "{text}"
    );
    let stats = domain.stats();
    assert!(stats.stalls >= 2);
    assert_eq!(stats.waiters_completed, 1);
    free(&src);
}

#[test]
fn suppressed_stalls_are_counted_but_not_reported() {
    let config = Config::default()
        .scan_period(Duration::from_millis(1))
        .stall_suppress(true);
    let domain = Domain::with_config(config);
    domain.set_stall_timeout(Some(Duration::from_millis(5)));
    assert!(domain.stall_suppressed());
    let src = bucket();
    let mut reader = domain.reader();
    // Safety: the bucket is never freed while readers run.
    let guard = unsafe { reader.protect(&src) }.unwrap();
    thread::scope(|s| {
        s.spawn(|| domain.synchronize(src.load(Relaxed)));
        while domain.stats().stalls == 0 {
            thread::sleep(Duration::from_millis(1));
        }
        drop(guard);
    });
    assert!(domain.stall_reports().is_empty());
    domain.set_stall_suppressed(false);
    assert!(!domain.stall_suppressed());
    drop(reader);
    free(&src);
}

#[test]
fn fairness_rotates_the_drain_between_two_stuck_addresses() {
    let config = Config::default()
        .scan_period(Duration::from_millis(1))
        .drain_threshold(3)
        .drain_max_cycles(5)
        .stall_timeout(None);
    let domain = Domain::with_config(config);
    let srcs = [bucket(), bucket()];
    let release = AtomicBool::new(false);
    let holding = AtomicUsize::new(0);
    thread::scope(|s| {
        for src in &srcs {
            let (domain, release, holding) = (&domain, &release, &holding);
            s.spawn(move || {
                let mut reader = domain.reader();
                // Safety: the buckets are never freed while readers run.
                let guard = unsafe { reader.protect(src) }.unwrap();
                holding.fetch_add(1, SeqCst);
                while !release.load(SeqCst) {
                    thread::sleep(Duration::from_millis(1));
                }
                drop(guard);
            });
        }
        while holding.load(SeqCst) < 2 {
            thread::yield_now();
        }
        let waiters: Vec<_> = srcs
            .iter()
            .map(|src| {
                let domain = &domain;
                s.spawn(move || domain.synchronize(src.load(Relaxed)))
            })
            .collect();
        // Hold both addresses until the drain has visited both and the cap has rotated it.
        loop {
            let stats = domain.stats();
            if stats.drain_addresses >= 2 && stats.drain_fairness_disengages >= 1 {
                break;
            }
            thread::sleep(Duration::from_millis(1));
        }
        release.store(true, SeqCst);
        for w in waiters {
            w.join().unwrap();
        }
    });
    let stats = domain.stats();
    eprintln!(
        "FAIRNESS: {} engages over {} addresses, {} fairness-cap, {} completed, {} orphaned",
        stats.drain_engages,
        stats.drain_addresses,
        stats.drain_fairness_disengages,
        stats.drain_completed,
        stats.drain_orphaned
    );
    assert_eq!(stats.waiters_completed, 2);
    assert_eq!(stats.drain_addresses, 2);
    assert!(stats.drain_fairness_disengages >= 1);
    assert!(stats.drain_engages >= 2);
    for src in &srcs {
        free(src);
    }
}

#[test]
fn debug_holders_report_backup_slots_with_hold_times_and_backtraces() {
    let config = Config::default()
        .scan_period(Duration::from_millis(1))
        .stall_timeout(Some(Duration::from_millis(10)))
        .debug_holders(true);
    let domain = Domain::with_config(config);
    let (outer, src) = (bucket(), bucket());
    thread::scope(|s| {
        let mut reader = domain.reader();
        // Safety: the buckets are never freed while readers run.
        let first = unsafe { reader.protect(&outer) }.unwrap();
        // Safety: as above.
        let nested = unsafe { first.protect_nested(&src) }.unwrap();
        assert!(nested.is_backup());
        let waiter = s.spawn(|| domain.synchronize(src.load(Relaxed)));
        while domain.stall_reports().is_empty() {
            thread::sleep(Duration::from_millis(1));
        }
        drop(nested);
        waiter.join().unwrap();
        drop(first);
    });
    let report = &domain.stall_reports()[0];
    assert_eq!(report.holders.len(), 1);
    let holder = &report.holders[0];
    assert_eq!(holder.kind, SlotKind::Backup);
    assert!(
        holder.thread_id.is_some(),
        "a backup slot is attributed to its reader's thread"
    );
    assert!(
        holder
            .held_for
            .is_some_and(|held| held >= Duration::from_millis(10))
    );
    assert!(holder.backtrace.as_deref().is_some_and(|t| !t.is_empty()));
    assert_eq!(holder.site.map(|l| l.file()), Some(file!()));
    free(&outer);
    free(&src);
}
