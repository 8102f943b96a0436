//! Release against scan: a reader that uses an object and drops its guard, against a writer
//! that unlinks and retires the object, whose scan cycle reclaims it, under loom's C11 model.
//!
//! The property is that of litmus/tests/hazptr/hazptr-release-before-reclaim.litmus: the
//! guard clears its slot with a release store and the scan loads slots with acquire, so
//! everything the reader did with the object happens before the deleter runs.
//! The negative control clears the slot with a relaxed store; loom then finds the scan seeing
//! the slot empty while the reader's last access is not ordered before the reclamation.

mod common;

use std::sync::atomic::Ordering::{AcqRel, Acquire};

use common::{B, domain, free, obj, poison, read, spawn};
use hazmat_models::exhaustive;
use hazmat_models::trace;
use hazptr::backend::{Atomic, Backend};
use hazptr::raw::weaken::Weakening;
use loom::sync::Arc;

/// The default preemption bound; `LOOM_MAX_PREEMPTIONS` overrides it.
const BOUND: usize = 2;

/// The deleter: poisons the object; the model deallocates it after every thread is done.
///
/// # Safety
///
/// 1. `ptr` came from `obj` and is not deallocated.
unsafe fn reclaim(ptr: *mut common::Obj) {
    // Safety: by (1).
    unsafe { poison(ptr) }
}

fn model() {
    let domain = Arc::new(domain(|c| c));
    let old = obj(1, "old");
    let src = Arc::new(<B as Backend>::AtomicPtr::<common::Obj>::new(old));
    let reader = {
        let (domain, src) = (Arc::clone(&domain), Arc::clone(&src));
        spawn("reader", move || {
            let mut reader = domain.reader();
            // Safety: objects come from `obj`; one is reclaimed (poisoned) only by the
            // domain, once unlinked and unprotected, and freed after the threads are done.
            if let Some(guard) = unsafe { reader.protect(&*src) } {
                trace::note::<B>("reader uses the object, then drops its guard");
                // Safety: protected, hence not reclaimed.
                assert_eq!(
                    unsafe { read(guard.as_ptr()) },
                    1,
                    "read a reclaimed object"
                );
            }
        })
    };
    let unlinked = src.swap(obj(1, "new"), AcqRel);
    // Safety: `unlinked` is unlinked; `reclaim` only poisons it. The model configuration
    // retires in batches of one, so this runs a scan cycle at once.
    unsafe { domain.retire(unlinked, reclaim) };
    reader.join().unwrap();
    drop(domain);
    // Safety: every thread is done, and the domain has run every deleter.
    unsafe {
        free(unlinked);
        free(src.load(Acquire));
    }
}

#[test]
fn release_against_scan() {
    exhaustive::check("release_against_scan", BOUND, model);
}

#[test]
fn release_against_scan_fails_with_a_relaxed_release() {
    let failure = exhaustive::negative_control(
        "release_against_scan_fails_with_a_relaxed_release",
        BOUND,
        Weakening::RelaxedRelease,
        model,
    );
    assert!(failure.steps.contains("swap Relaxed 0"), "{failure}");
}
