//! Smoke models: the real hazptr core runs under loom from a plain `cargo test`.
//!
//! These only prove that the loom backend drives the library end to end (protect, the
//! wildcard slow path, synchronize, retire) and that the basic guarantee holds in every
//! explored execution; the protocol models with their negative controls come later.
//! Objects carry a loom atomic `alive` flag that the writer clears after synchronize (the
//! "free"); a reader that sees it cleared while protecting the object fails the model.

use std::sync::atomic::Ordering::{AcqRel, Relaxed};

use hazptr::backend::Loom;
use hazptr::{Config, Domain};
use loom::sync::Arc;
use loom::sync::atomic::{AtomicPtr, AtomicUsize};

struct Obj {
    alive: AtomicUsize,
}

fn obj() -> *mut Obj {
    Box::into_raw(Box::new(Obj {
        alive: AtomicUsize::new(1),
    }))
}

/// Frees an object made by `obj`.
///
/// # Safety
///
/// 1. `ptr` came from `obj`, no reader protects it, and it is freed once.
unsafe fn free(ptr: *mut Obj) {
    // Safety: by (1).
    drop(unsafe { Box::from_raw(ptr) });
}

fn builder() -> loom::model::Builder {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(2);
    builder
}

fn reader_against_synchronize(config: Config) {
    builder().check(move || {
        let domain = Arc::new(Domain::<Loom>::with_backend_config(config.clone()));
        let src = Arc::new(AtomicPtr::new(obj()));
        let reader = {
            let (domain, src) = (Arc::clone(&domain), Arc::clone(&src));
            loom::thread::spawn(move || {
                let mut reader = domain.reader();
                // Safety: objects come from `obj`, and are "freed" (poisoned) only after
                // being unlinked and synchronized.
                if let Some(guard) = unsafe { reader.protect(&*src) } {
                    assert_eq!(guard.alive.load(Relaxed), 1, "read a freed object");
                }
            })
        };
        let old = src.swap(obj(), AcqRel);
        domain.synchronize(old);
        // Safety: `old` is unlinked and synchronized.
        unsafe { (*old).alive.store(0, Relaxed) };
        reader.join().unwrap();
        // Safety: every reader has finished.
        unsafe {
            free(old);
            free(src.load(Relaxed));
        }
    });
}

#[test]
fn loom_reader_against_synchronize_fast_path() {
    reader_against_synchronize(Config::model());
}

#[test]
fn loom_reader_against_synchronize_wildcard_slow_path() {
    reader_against_synchronize(Config::model().force_slow_path(true));
}

#[test]
fn loom_reader_against_retire() {
    /// Poisons a retired object; the model frees it after joining the reader.
    unsafe fn poison(ptr: *mut Obj) {
        // Safety: retired objects come from `obj` and stay allocated until the model ends.
        unsafe { (*ptr).alive.store(0, Relaxed) };
    }

    builder().check(|| {
        let domain = Arc::new(Domain::<Loom>::with_backend_config(Config::model()));
        let src = Arc::new(AtomicPtr::new(obj()));
        let reader = {
            let (domain, src) = (Arc::clone(&domain), Arc::clone(&src));
            loom::thread::spawn(move || {
                let mut reader = domain.reader();
                // Safety: objects come from `obj` and are poisoned only after being unlinked
                // and reclaimed by a scan.
                if let Some(guard) = unsafe { reader.protect(&*src) } {
                    assert_eq!(guard.alive.load(Relaxed), 1, "read a reclaimed object");
                }
            })
        };
        let old = src.swap(obj(), AcqRel);
        // Safety: `old` is unlinked; `poison` only marks it.
        unsafe { domain.retire(old, poison) };
        reader.join().unwrap();
        drop(domain);
        // Safety: every reader has finished and the domain has run every deleter.
        unsafe {
            free(old);
            free(src.load(Relaxed));
        }
    });
}

#[test]
fn loom_drain_on_a_re_acquired_address() {
    /// A permanent object: the writer "unlinks" a key (`linked`), waits, then "frees" it.
    struct Bucket {
        linked: AtomicUsize,
        freed: AtomicUsize,
    }

    // Drains engage after one blocked cycle and may last two.
    let config = Config::model().drain_threshold(1).drain_max_cycles(2);
    builder().check(move || {
        let domain = Arc::new(Domain::<Loom>::with_backend_config(config.clone()));
        let bucket = Arc::new(Bucket {
            linked: AtomicUsize::new(1),
            freed: AtomicUsize::new(0),
        });
        let src = Arc::new(AtomicPtr::new(Arc::as_ptr(&bucket).cast_mut()));
        let reader = {
            let (domain, src) = (Arc::clone(&domain), Arc::clone(&src));
            loom::thread::spawn(move || {
                let mut reader = domain.reader();
                for _ in 0..2 {
                    // Safety: the bucket outlives every reader (the model holds an `Arc`).
                    let guard = unsafe { reader.protect(&*src) }.unwrap();
                    if guard.linked.load(Relaxed) == 1 {
                        assert_eq!(
                            guard.freed.load(Relaxed),
                            0,
                            "a reader that saw the key outlived the wait"
                        );
                    }
                }
            })
        };
        bucket.linked.store(0, Relaxed);
        // `synchronize`, split so that cycles run back to back: enough for a drain to engage
        // and finish while the reader is paused.
        let wait = hazptr::raw::enqueue(&domain, Arc::as_ptr(&bucket));
        for _ in 0..3 {
            hazptr::raw::scan_cycle(&domain);
        }
        while !wait.is_complete() {
            hazptr::raw::scan_cycle(&domain);
            loom::thread::yield_now();
        }
        bucket.freed.store(1, Relaxed);
        reader.join().unwrap();
    });
}
