//! Publication against scan: a reader's try_acquire fast path against a writer that unlinks
//! the object and synchronizes, under loom's C11 model.
//!
//! The property is that of litmus/tests/hazptr/hazptr-acquire-before-scan.litmus: a reader
//! whose re-read still sees the old pointer has its slot seen by the scan, so the writer's
//! `synchronize` waits for it; otherwise the re-read sees the unlink and the reader moves on
//! to the new object.
//! Two threads: the reader, and the writer, which runs the scan cycles itself
//! (`ScanMode::Caller`).
//! Negative controls drop either half of the asymmetric fence; loom then finds the execution
//! in which the scan misses the slot while the reader keeps the old pointer (store buffering)
//! and reports the reader's access racing with the free.

mod common;

use hazmat_models::exhaustive;
use hazptr::raw::weaken::{self, Weakening};

/// The default preemption bound; `LOOM_MAX_PREEMPTIONS` overrides it.
const BOUND: usize = 2;

fn model() {
    let stats = common::reader_against_synchronize(|c| c);
    assert_eq!(stats.self_scans, 0, "the model checks the shared scan");
}

#[test]
fn publication_against_scan() {
    exhaustive::check("publication_against_scan", BOUND, model);
}

#[test]
fn publication_against_scan_fails_without_the_reader_fence() {
    let failure = exhaustive::negative_control(
        "publication_against_scan_fails_without_the_reader_fence",
        BOUND,
        Weakening::NoReaderFence,
        model,
    );
    assert!(failure.steps.contains("core/src/slot.rs"), "{failure}");
}

#[test]
fn publication_against_scan_fails_without_the_scan_fence() {
    exhaustive::negative_control(
        "publication_against_scan_fails_without_the_scan_fence",
        BOUND,
        Weakening::NoScanFence,
        model,
    );
}

/// The command a failing loom model prints reruns its test, which fails the same way and
/// prints the same steps.
#[test]
fn a_printed_rerun_command_reproduces_the_failure() {
    const NAME: &str = "publication_against_scan_fails_without_the_reader_fence";
    let _weak = weaken::set(Weakening::NoReaderFence);
    let failure = exhaustive::explore(NAME, BOUND, model).expect_err("the control fails");
    let command = failure
        .replay
        .as_deref()
        .expect("loom failures print a command");
    let (assignment, cargo) = command.split_once(' ').expect("VAR=VALUE cargo ...");
    let bound = assignment
        .strip_prefix("LOOM_MAX_PREEMPTIONS=")
        .expect("the command sets the bound");
    assert_eq!(
        cargo,
        format!("cargo test -p hazmat-models {NAME} -- --exact --nocapture")
    );
    // Run what the command runs in this test binary: the named test at the printed bound.
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([NAME, "--exact", "--nocapture", "--test-threads=1"])
        .env("LOOM_MAX_PREEMPTIONS", bound)
        .output()
        .expect("the test binary runs");
    let text = String::from_utf8_lossy(&output.stderr).into_owned()
        + &String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}");
    assert!(text.contains("1 passed"), "the rerun ran no test:\n{text}");
    // Heap addresses (slot nodes) differ from process to process; the steps do not.
    assert!(
        without_addresses(&text).contains(&without_addresses(&failure.steps)),
        "different steps:\n{text}"
    );
    assert!(text.contains("Causality violation"), "{text}");
}

/// `text` with every hexadecimal number of more than four digits replaced by `0x…`.
fn without_addresses(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("0x") {
        out.push_str(&rest[..at]);
        let digits = rest[at + 2..]
            .chars()
            .take_while(char::is_ascii_hexdigit)
            .count();
        if digits > 4 {
            out.push_str("0x…");
        } else {
            out.push_str(&rest[at..at + 2 + digits]);
        }
        rest = &rest[at + 2 + digits..];
    }
    out.push_str(rest);
    out
}
