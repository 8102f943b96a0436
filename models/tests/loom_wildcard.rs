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

use hazmat_models::exhaustive;
use hazptr::raw::weaken::Weakening;

/// The default preemption bound; `LOOM_MAX_PREEMPTIONS` overrides it.
const BOUND: usize = 2;

fn model() {
    let stats = common::reader_against_synchronize(|c| c.force_slow_path(true));
    assert_eq!(stats.self_scans, 0, "the model checks the shared scan");
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
