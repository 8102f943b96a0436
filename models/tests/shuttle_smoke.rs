//! Smoke models: the real hazptr core runs under shuttle from a plain `cargo test`.
//!
//! Shuttle explores schedules at random over more threads than loom can afford: here two
//! readers that nest protections, two writers, and the real shared scan thread, spawned
//! lazily and joined when the domain drops.
//! Objects carry an `alive` flag that writers clear after synchronize (the "free"); a reader
//! that sees it cleared while protecting the object fails the model.

use std::sync::atomic::Ordering::{AcqRel, Relaxed};

use hazptr::backend::Shuttle;
use hazptr::{Config, Domain, ScanMode};
use shuttle::sync::Arc;
use shuttle::sync::atomic::{AtomicPtr, AtomicUsize};

struct Obj {
    alive: AtomicUsize,
}

fn obj() -> *mut Obj {
    Box::into_raw(Box::new(Obj {
        alive: AtomicUsize::new(1),
    }))
}

fn readers_and_writers(config: Config) {
    let domain = Arc::new(Domain::<Shuttle>::with_backend_config(config));
    let srcs = Arc::new([AtomicPtr::new(obj()), AtomicPtr::new(obj())]);
    let mut threads = Vec::new();
    for r in 0..2 {
        let (domain, srcs) = (Arc::clone(&domain), Arc::clone(&srcs));
        threads.push(shuttle::thread::spawn(move || {
            let mut reader = domain.reader();
            for i in 0..2 {
                // Safety: objects come from `obj`, and are "freed" (poisoned) only after
                // being unlinked and synchronized; the memory is freed after every join.
                let Some(outer) = (unsafe { reader.protect(&srcs[(r + i) % 2]) }) else {
                    continue;
                };
                // Safety: as above.
                if let Some(inner) = unsafe { outer.protect_nested(&srcs[(r + i + 1) % 2]) } {
                    assert!(inner.is_backup());
                    assert_eq!(inner.alive.load(Relaxed), 1, "read a freed object");
                }
                assert_eq!(outer.alive.load(Relaxed), 1, "read a freed object");
            }
        }));
    }
    let mut freed = Vec::new();
    let mut writers = Vec::new();
    for w in 0..2 {
        let (domain, srcs) = (Arc::clone(&domain), Arc::clone(&srcs));
        writers.push(shuttle::thread::spawn(move || {
            let old = srcs[w].swap(obj(), AcqRel);
            domain.synchronize(old);
            // Safety: `old` is unlinked and synchronized.
            unsafe { (*old).alive.store(0, Relaxed) };
            old as usize
        }));
    }
    for t in threads {
        t.join().unwrap();
    }
    for w in writers {
        freed.push(w.join().unwrap());
    }
    drop(domain);
    for addr in freed
        .into_iter()
        .chain(srcs.iter().map(|s| s.load(Relaxed) as usize))
    {
        // Safety: every reader and writer has finished; each object is freed once.
        drop(unsafe { Box::from_raw(addr as *mut Obj) });
    }
}

#[test]
fn shuttle_readers_and_writers_with_the_scan_thread() {
    shuttle::check_random(
        || readers_and_writers(Config::model().scan_mode(ScanMode::Thread)),
        300,
    );
}

#[test]
fn shuttle_readers_and_writers_when_waiters_scan() {
    shuttle::check_random(|| readers_and_writers(Config::model()), 300);
}

#[test]
fn shuttle_readers_and_writers_through_the_forced_slow_path() {
    shuttle::check_pct(
        || readers_and_writers(Config::model().force_slow_path(true)),
        300,
        3,
    );
}

/// A permanent object, like a hash bucket: readers keep re-acquiring its address, and the
/// writer "unlinks" a key from it (`linked`) and then waits for the readers that may have
/// seen the key before "freeing" it (`freed`).
struct Bucket {
    linked: AtomicUsize,
    freed: AtomicUsize,
}

/// Hammering readers against a waiter on a permanent address, with drains engaging after
/// two blocked cycles: a reader that saw the key linked must finish before the waiter
/// returns, whether the scan or a drain completes it.
fn hot_address(config: Config) {
    let domain = Arc::new(Domain::<Shuttle>::with_backend_config(config));
    let bucket = Box::into_raw(Box::new(Bucket {
        linked: AtomicUsize::new(1),
        freed: AtomicUsize::new(0),
    }));
    let src = Arc::new(AtomicPtr::new(bucket));
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let (domain, src) = (Arc::clone(&domain), Arc::clone(&src));
            shuttle::thread::spawn(move || {
                let mut reader = domain.reader();
                for _ in 0..3 {
                    // Safety: the bucket is freed only after every reader has been joined.
                    let guard = unsafe { reader.protect(&*src) }.unwrap();
                    if guard.linked.load(Relaxed) == 1 {
                        // Hold across a few scheduling points, so cycles (and drains) run
                        // while the key is in use.
                        for _ in 0..12 {
                            shuttle::thread::yield_now();
                        }
                        assert_eq!(
                            guard.freed.load(Relaxed),
                            0,
                            "a reader that saw the key outlived the wait"
                        );
                    }
                }
            })
        })
        .collect();
    // Safety: the bucket lives until the end of the model.
    let b = unsafe { &*bucket };
    b.linked.store(0, Relaxed);
    domain.synchronize(bucket);
    b.freed.store(1, Relaxed);
    for r in readers {
        r.join().unwrap();
    }
    drop(domain);
    // Safety: every reader has finished.
    drop(unsafe { Box::from_raw(bucket) });
}

#[test]
fn shuttle_hot_address_with_drain_assist() {
    shuttle::check_pct(|| hot_address(Config::model()), 500, 3);
}

#[test]
fn shuttle_hot_address_with_drain_assist_and_the_scan_thread() {
    shuttle::check_pct(
        || hot_address(Config::model().scan_mode(ScanMode::Thread)),
        300,
        3,
    );
}
