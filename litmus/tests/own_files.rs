//! Every `.litmus` file this package ships (fixtures and the `tests/` corpus) parses and
//! round-trips through the printer, but for the programs herd7 refuses
//! (`fixtures/refused/`), which must be refused.

mod common;

use std::path::Path;

#[test]
fn every_shipped_litmus_file_parses_and_round_trips() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = hazmat_litmus::litmus_files(root);
    let mut failures = Vec::new();
    for path in &files {
        let rel = path
            .strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string();
        let refused = path
            .parent()
            .is_some_and(|d| d.ends_with("fixtures/refused"));
        match std::fs::read_to_string(path) {
            // What herd7 refuses at parse time must not parse; what it refuses later is the
            // checker's to refuse (`checker/tests/litmus.rs`).
            Ok(source) if refused => {
                if let Ok(t) = hazmat_litmus::parse(&source)
                    && let Err(e) = common::round_trip(&rel, &source)
                {
                    failures.push(format!("{e} ({} threads)", t.threads.len()));
                }
            }
            Ok(source) => {
                if let Err(e) = common::round_trip(&rel, &source) {
                    failures.push(e);
                }
            }
            Err(e) => failures.push(format!("{rel}: cannot read: {e}")),
        }
    }
    eprintln!(
        "own files: {} parse and round-trip",
        files.len() - failures.len()
    );
    assert!(
        files
            .iter()
            .any(|f| f.ends_with("fixtures/every-construct.litmus")),
        "the fixture is missing"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The fixtures' canonical forms, as `hazmat fmt` writes them.
#[test]
fn the_fixtures_print_in_canonical_form() {
    let source = include_str!("../fixtures/every-construct.litmus");
    let test = hazmat_litmus::parse_keeping_comments(source).expect("the fixture parses");
    expect_test::expect_file!["../fixtures/every-construct.canonical"]
        .assert_eq(&hazmat_litmus::print(&test));

    let source = include_str!("../fixtures/alternative-spellings.litmus");
    let test = hazmat_litmus::parse_keeping_comments(source).expect("the fixture parses");
    expect_test::expect_file!["../fixtures/alternative-spellings.canonical"]
        .assert_eq(&hazmat_litmus::print(&test));
}

#[test]
fn litmus_files_come_in_path_order() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = hazmat_litmus::litmus_files(root);
    assert!(
        files.len() > 100,
        "the package ships its corpus: {} files",
        files.len()
    );
    let mut sorted = files.clone();
    sorted.sort();
    assert_eq!(files, sorted);
}
