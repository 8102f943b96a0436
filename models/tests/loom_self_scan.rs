//! The self-scan of `synchronize` against a reader's publication, under loom's C11 model.
//!
//! The property is that of litmus/tests/hazptr/hazptr-self-scan.litmus: the writer unlinks
//! the object, issues the heavy fence itself and walks the slots; a reader whose re-read still
//! sees the old pointer has its slot seen by the walk, so the self-scan falls back to the
//! shared scan and waits; otherwise the re-read sees the unlink.
//! Two threads: the reader, and the writer, whose `synchronize` is alone in flight and so
//! takes the self-scan (`skip_self_scan(false)`, no backoff); when the walk finds the slot
//! held it joins the shared scan, here the cycles it runs itself (`ScanMode::Caller`).
//! The models check that the self-scan was taken, so they cannot pass by the shared path.
//! Negative controls drop the self-scan's heavy fence (loom finds the store-buffering
//! execution in which the walk misses the slot while the reader keeps the old pointer) and its
//! wildcard rule (a reader on the forced slow path, between loading the pointer and
//! publishing it, is taken for no holder).

mod common;

use hazmat_models::exhaustive;
use hazptr::Config;
use hazptr::raw::weaken::Weakening;

/// The default preemption bound; `LOOM_MAX_PREEMPTIONS` overrides it.
const BOUND: usize = 2;

fn self_scan(config: Config) -> Config {
    config.skip_self_scan(false)
}

/// The reader on the try_acquire fast path.
fn model() {
    let stats = common::reader_against_synchronize(self_scan);
    assert_eq!(stats.self_scans, 1, "the writer took the self-scan");
}

/// The reader on the wildcard slow path.
fn wildcard_model() {
    let stats = common::reader_against_synchronize(|c| self_scan(c).force_slow_path(true));
    assert_eq!(stats.self_scans, 1, "the writer took the self-scan");
}

#[test]
fn self_scan_against_publication() {
    exhaustive::check("self_scan_against_publication", BOUND, model);
}

#[test]
fn self_scan_against_publication_fails_without_its_fence() {
    let failure = exhaustive::negative_control(
        "self_scan_against_publication_fails_without_its_fence",
        BOUND,
        Weakening::NoSelfScanFence,
        model,
    );
    // The writer's walk ran without a fence, and the writer freed the object.
    assert!(!failure.steps.contains("heavy fence"), "{failure}");
    assert!(
        failure.steps.contains("writer frees the unlinked object"),
        "{failure}"
    );
}

#[test]
fn self_scan_against_the_wildcard_protocol() {
    exhaustive::check(
        "self_scan_against_the_wildcard_protocol",
        BOUND,
        wildcard_model,
    );
}

#[test]
fn self_scan_against_the_wildcard_protocol_fails_without_deferring_to_the_shared_scan() {
    let failure = exhaustive::negative_control(
        "self_scan_against_the_wildcard_protocol_fails_without_deferring_to_the_shared_scan",
        BOUND,
        Weakening::NoSelfScanWildcard,
        wildcard_model,
    );
    assert!(
        failure.steps.contains("store Release WILDCARD"),
        "{failure}"
    );
}
