//! Parses every `.litmus` file of the conformance corpus, when it is present, and checks
//! that each round-trips through the printer.
//!
//! The corpus is found through `$HAZMAT_CONFORMANCE`, else `../../shared/conformance`
//! from this package; without it the test passes after saying so.

mod common;

use std::path::PathBuf;

/// Files whose failure to parse is expected, with the reason. None so far: even the tests
/// herd7 rejected are syntactically fine.
const EXPECTED_FAILURES: &[(&str, &str)] = &[];

fn corpus_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("HAZMAT_CONFORMANCE") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance"),
    };
    dir.is_dir().then_some(dir)
}

#[test]
fn every_conformance_test_parses_and_round_trips() {
    let Some(dir) = corpus_dir() else {
        eprintln!("conformance corpus not found; set HAZMAT_CONFORMANCE to check it");
        return;
    };
    let files = hazmat_litmus::litmus_files(&dir);
    let mut failures = Vec::new();
    let mut parsed = 0;
    for path in &files {
        let rel = path
            .strip_prefix(&dir)
            .unwrap_or(path)
            .display()
            .to_string();
        let source = match std::fs::read_to_string(path) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{rel}: cannot read: {e}"));
                continue;
            }
        };
        let expected_failure = EXPECTED_FAILURES.iter().any(|(f, _)| *f == rel);
        match common::round_trip(&rel, &source) {
            Ok(()) if expected_failure => failures.push(format!("{rel}: now parses; drop it")),
            Ok(()) => parsed += 1,
            Err(_) if expected_failure => {}
            Err(e) => failures.push(e),
        }
    }
    eprintln!(
        "conformance: {parsed} of {} files parse and round-trip",
        files.len()
    );
    assert!(!files.is_empty(), "no .litmus file under {}", dir.display());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
