//! The wildcard protocol: a reader on the slow path (forced by the debug option) against a
//! writer that unlinks the object and synchronizes, under loom's C11 model.
//!
//! The property is that of litmus/tests/hazptr/hazptr-wildcard-protocol.litmus: the reader
//! publishes the wildcard, fences, loads the pointer and publishes it without re-checking;
//! a scan that could miss the later publication sees the wildcard and defers the cycle.
//! Negative controls drop the reader's fence (a weak-memory bug: loom finds the scan missing
//! the wildcard) and the scan's wildcard deferral (a protocol bug: even in program order the
//! scan completes the waiter under a reader about to publish).

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

fn model() {
    let domain = Arc::new(domain(|c| c.force_slow_path(true)));
    let old = obj(1, "old");
    let src = Arc::new(<B as Backend>::AtomicPtr::<common::Obj>::new(old));
    let reader = {
        let (domain, src) = (Arc::clone(&domain), Arc::clone(&src));
        spawn("reader", move || {
            let mut reader = domain.reader();
            // Safety: objects come from `obj`; the writer poisons one only after unlinking
            // and synchronizing it, and frees it after joining this thread.
            if let Some(guard) = unsafe { reader.protect(&*src) } {
                trace::note::<B>("reader uses the object it protects");
                // Safety: protected, hence not freed.
                assert_eq!(unsafe { read(guard.as_ptr()) }, 1, "read a freed object");
            }
        })
    };
    let unlinked = src.swap(obj(1, "new"), AcqRel);
    domain.synchronize(unlinked);
    trace::note::<B>("writer frees the unlinked object");
    // Safety: unlinked and synchronized: no reader protects it.
    unsafe { poison(unlinked) };
    reader.join().unwrap();
    // Safety: every thread is done.
    unsafe {
        free(unlinked);
        free(src.load(Acquire));
    }
}

#[test]
fn wildcard_protocol() {
    exhaustive::check("wildcard_protocol", BOUND, model);
}

#[test]
fn wildcard_protocol_fails_without_the_reader_fence() {
    exhaustive::negative_control(
        "wildcard_protocol_fails_without_the_reader_fence",
        BOUND,
        Weakening::NoReaderFence,
        model,
    );
}

#[test]
fn wildcard_protocol_fails_without_wildcard_deferral() {
    let failure = exhaustive::negative_control(
        "wildcard_protocol_fails_without_wildcard_deferral",
        BOUND,
        Weakening::NoWildcardDeferral,
        model,
    );
    assert!(
        failure.steps.contains("store Release WILDCARD"),
        "{failure}"
    );
}
