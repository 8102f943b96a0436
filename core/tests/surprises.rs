//! No silent surprise: each test makes a mistake a user makes, or waits for something a user
//! waits for, and asserts what the user now sees.
//!
//! - `retire`: counted at once in `Stats::retired`;
//! - reclamation on request: `Domain::reclaim`.

use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering::*};

use hazptr::Domain;

fn boxed(value: u64) -> AtomicPtr<u64> {
    AtomicPtr::new(Box::into_raw(Box::new(value)))
}

/// A deleter that counts its calls, then frees the box.
///
/// # Safety
///
/// 1. `ptr` came from `Box::into_raw` and is freed nowhere else.
unsafe fn counted(ptr: *mut u64) {
    RECLAIMED.fetch_add(1, SeqCst);
    // Safety: by (1).
    drop(unsafe { Box::from_raw(ptr) });
}

static RECLAIMED: AtomicUsize = AtomicUsize::new(0);

/// `Stats::retired` counts a retire when it happens, not when a later cycle takes it.
#[test]
fn retire_is_counted_at_once() {
    let domain = Domain::new();
    assert_eq!(domain.stats().retired, 0);
    // Safety: never published, so never protected; from `Box::into_raw`.
    unsafe { domain.retire_box(Box::into_raw(Box::new(1_u64))) };
    let stats = domain.stats();
    assert_eq!(stats.retired, 1);
    assert_eq!((stats.scan_cycles, stats.reclaimed), (0, 0), "{stats:?}");
}

/// `Domain::reclaim` reclaims at once whatever no reader protects, and leaves the rest.
#[test]
fn reclaim_frees_what_no_reader_protects_now() {
    let domain = Domain::new();
    let (held, free) = (boxed(1), boxed(2));
    let mut reader = domain.reader();
    // Safety: `held` is retired only after being unlinked below, and freed by the domain.
    let guard = unsafe { reader.protect(&held) }.unwrap();
    let before = RECLAIMED.load(SeqCst);
    // Safety: each pointer is unlinked (swapped out of its source) and came from a box;
    // `counted` frees it once.
    unsafe {
        domain.retire(held.swap(std::ptr::null_mut(), AcqRel), counted);
        domain.retire(free.swap(std::ptr::null_mut(), AcqRel), counted);
    }
    // Well below the batch of 64: nothing has been reclaimed yet.
    assert_eq!(domain.stats().reclaimed, 0);
    assert_eq!(domain.reclaim(), 1, "only the unprotected object");
    assert_eq!(RECLAIMED.load(SeqCst) - before, 1);
    assert_eq!(*guard, 1);
    drop(guard);
    assert_eq!(domain.reclaim(), 1, "the other, once released");
    assert_eq!(domain.reclaim(), 0, "nothing is left");
    let stats = domain.stats();
    assert_eq!((stats.retired, stats.reclaimed), (2, 2));
    drop(reader);
}
