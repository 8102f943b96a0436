//! Backup slots against scan: a nested protection, which pushes a new backup slot onto an
//! overflow list and publishes in it, against a writer that unlinks the object and
//! synchronizes, under loom's C11 model.
//!
//! The property is that of litmus/tests/hazptr/hazptr-backup-slot-push.litmus: the push (a
//! release compare-and-swap of the list head) and the slot store both precede the reader's
//! light fence, so a scan whose heavy fence comes later finds the node and the slot, or the
//! reader's re-read sees the unlink.
//! The negative control drops the reader's fence.

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
    let domain = Arc::new(domain(|c| c));
    let anchor = obj(1, "anchor");
    let old = obj(1, "old");
    let srcs = Arc::new([
        <B as Backend>::AtomicPtr::<common::Obj>::new(anchor),
        <B as Backend>::AtomicPtr::<common::Obj>::new(old),
    ]);
    let reader = {
        let (domain, srcs) = (Arc::clone(&domain), Arc::clone(&srcs));
        spawn("reader", move || {
            let mut reader = domain.reader();
            // Safety: objects come from `obj`; the writer poisons one only after unlinking
            // and synchronizing it, and frees it after joining this thread.
            let outer = unsafe { reader.protect(&srcs[0]) }.expect("the anchor is linked");
            // Safety: as above.
            if let Some(inner) = unsafe { outer.protect_nested(&srcs[1]) } {
                assert!(inner.is_backup());
                trace::note::<B>("reader uses the object its backup slot protects");
                // Safety: protected, hence not freed.
                assert_eq!(unsafe { read(inner.as_ptr()) }, 1, "read a freed object");
            }
            drop(outer);
        })
    };
    let unlinked = srcs[1].swap(obj(1, "new"), AcqRel);
    domain.synchronize(unlinked);
    trace::note::<B>("writer frees the unlinked object");
    // Safety: unlinked and synchronized: no reader protects it.
    unsafe { poison(unlinked) };
    reader.join().unwrap();
    // Safety: every thread is done.
    unsafe {
        free(unlinked);
        free(anchor);
        free(srcs[1].load(Acquire));
    }
}

#[test]
fn backup_slot_against_scan() {
    exhaustive::check("backup_slot_against_scan", BOUND, model);
}

#[test]
fn backup_slot_against_scan_fails_without_the_reader_fence() {
    exhaustive::negative_control(
        "backup_slot_against_scan_fails_without_the_reader_fence",
        BOUND,
        Weakening::NoReaderFence,
        model,
    );
}
