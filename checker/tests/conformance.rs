//! Agreement with herd7 on the shared conformance corpus.
//!
//! The corpus (see its README) holds real litmus tests and, in each folder's
//! `herd7.jsonl`, herd7's verdict, final states, witness counts and flags for each decided
//! test under the kernel's LKMM configuration.
//! Every folder that holds herd7's answers counts (see `common/corpus.rs`), so a new
//! folder is judged without a code change.
//! It is found through `$HAZMAT_CONFORMANCE`, or at `../../shared/conformance` from this
//! package; without it, every test here passes having checked nothing but the
//! known-differences file's syntax.
//!
//! Accepted disagreements are listed in `tests/conformance-known-differences.txt`, one
//! test per line (`folder/path<TAB>reason`).
//! The agreement test fails on any disagreement not listed there, and on any listed test
//! that now agrees, so the list can only shrink.
//! `HAZMAT_BLESS=1` rewrites the list from the current disagreements instead of failing.

#[path = "common/corpus.rs"]
mod corpus;

use corpus::{conformance_dir, folders, load_cases, load_unsolved};
use hazmat_checker::report::read::{self, Summary};
use std::collections::BTreeMap;
use std::path::Path;

const KNOWN_DIFFERENCES: &str = "tests/conformance-known-differences.txt";

/// Reads the known-differences file: `key<TAB>reason` lines, `#` comments.
fn known_differences() -> Result<BTreeMap<String, String>, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(KNOWN_DIFFERENCES);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut known = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, reason) = line.split_once('\t').ok_or_else(|| {
            format!(
                "{KNOWN_DIFFERENCES}:{}:1: expected `path<TAB>reason`",
                i + 1
            )
        })?;
        if known.insert(key.to_string(), reason.to_string()).is_some() {
            return Err(format!(
                "{KNOWN_DIFFERENCES}:{}:1: {key} listed twice",
                i + 1
            ));
        }
    }
    Ok(known)
}

#[test]
fn known_differences_file_is_well_formed() {
    let known = known_differences().unwrap_or_else(|e| panic!("{e}"));
    let folders = conformance_dir().map(|root| folders(&root));
    for key in known.keys() {
        let (folder, _) = key
            .split_once('/')
            .unwrap_or_else(|| panic!("{key}: expected folder/path"));
        if let Some(folders) = &folders {
            assert!(
                folders.iter().any(|f| f == folder),
                "{key}: not in a conformance folder"
            );
        }
    }
}

/// The parser of herd7's text format reads back, from every `herd7-out` file, exactly
/// what the folder's `herd7.jsonl` says: the agreement test relies on it.
#[test]
fn herd7_outputs_match_their_summaries() {
    let Some(root) = conformance_dir() else {
        eprintln!("conformance corpus not found; nothing to check");
        return;
    };
    let cases = load_cases(&root).unwrap_or_else(|e| panic!("{e}"));
    let rows: usize = corpus::tsv_rows(&root).iter().map(|(_, n)| n).sum();
    assert_eq!(
        cases.len(),
        rows,
        "decided tests in herd7.jsonl and herd7.tsv"
    );
    assert!(cases.len() >= 2726, "decided tests in the corpus");
    let mut failures = Vec::new();
    for case in &cases {
        let text = corpus::herd7_output(&root, &case.key).unwrap_or_default();
        match read::parse(&text) {
            Ok(parsed) => {
                let diffs = read::differences(&case.expected, &parsed);
                if !diffs.is_empty() {
                    failures.push(format!("{}: {}", case.key, diffs.join("; ")));
                }
            }
            Err(e) => failures.push(format!("{}: {e}", case.key)),
        }
        assert!(case.file.is_file(), "{} is missing", case.file.display());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Per-test budget of the agreement test.
const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);

/// Checks one file under the LKMM and reads back its outcome from hazmat's herd7-format
/// text, as a user's script would.
fn hazmat_outcome(file: &Path, speedcheck: bool) -> Result<Summary, String> {
    hazmat_text(file, speedcheck).and_then(|text| read::parse(&text))
}

/// hazmat's herd7-format text for one file under the LKMM.
fn hazmat_text(file: &Path, speedcheck: bool) -> Result<String, String> {
    let source = std::fs::read_to_string(file).map_err(|e| e.to_string())?;
    let options = hazmat_checker::Options {
        limits: hazmat_checker::engine::enumerate::Limits {
            max_executions: None,
            deadline: Some(std::time::Instant::now() + TIMEOUT),
            ..Default::default()
        },
        speedcheck,
        ..Default::default()
    };
    let model = hazmat_checker::model("lkmm").map_err(|e| e.to_string())?;
    let checked = hazmat_checker::check_source(&source, model.as_ref(), &options)
        .map_err(|e| e.render(&file.display().to_string(), &source))?;
    if let Some(why) = &checked.outcome.unknown {
        return Err(format!("unknown: {why}"));
    }
    Ok(checked.herd_text())
}

/// Every decided test of the corpus gets herd7's verdict, states, flags and witness
/// counts, printed line for line as herd7 prints them (`Time` and `Hash=` aside); the tests herd7 did not decide are refused (ERROR: unknown primitives) or
/// decided with `--speedcheck` (TIMEOUT).
#[test]
fn hazmat_agrees_with_herd7() {
    use rayon::prelude::*;
    let Some(root) = conformance_dir() else {
        eprintln!("conformance corpus not found; nothing to check");
        return;
    };
    let cases = load_cases(&root).unwrap_or_else(|e| panic!("{e}"));
    let known = known_differences().unwrap_or_else(|e| panic!("{e}"));

    let mut found: BTreeMap<String, String> = cases
        .par_iter()
        .filter_map(|case| {
            let diffs = match hazmat_text(&case.file, false) {
                Ok(text) => match read::parse(&text) {
                    Ok(actual) => {
                        let mut d = read::differences(&case.expected, &actual);
                        if d.is_empty() {
                            // The same outcome: the text must match herd7's line for line.
                            let herd7 = corpus::herd7_output(&root, &case.key).unwrap_or_default();
                            d.extend(read::first_text_difference(&text, &herd7));
                        }
                        d
                    }
                    Err(e) => vec![e],
                },
                Err(e) => vec![e.lines().next().unwrap_or_default().to_string()],
            };
            (!diffs.is_empty()).then(|| (case.key.clone(), diffs.join("; ")))
        })
        .collect();
    let unsolved = load_unsolved(&root);
    let unsolved_found: Vec<(String, String)> = unsolved
        .par_iter()
        .filter_map(|u| {
            let (key, file) = (&u.key, &u.file);
            let problem = if u.status == "ERROR" {
                match hazmat_outcome(file, false) {
                    Err(e) if e.contains("unknown primitive") => None,
                    Err(e) => Some(format!("herd7 rejects it; hazmat says {e}")),
                    Ok(_) => Some("herd7 rejects it; hazmat decides it".to_string()),
                }
            } else {
                hazmat_outcome(file, true)
                    .err()
                    .map(|e| format!("not decided with --speedcheck: {e}"))
            };
            problem.map(|p| (key.clone(), p))
        })
        .collect();
    found.extend(unsolved_found);

    let unexpected: Vec<String> = found
        .iter()
        .filter(|(k, _)| !known.contains_key(*k))
        .map(|(k, v)| format!("{k}: {v}"))
        .collect();
    let fixed: Vec<&String> = known.keys().filter(|k| !found.contains_key(*k)).collect();
    eprintln!(
        "{} of {} decided tests agree with herd7 in full; {} known differences, {} new, {} fixed",
        cases.len() - cases.iter().filter(|c| found.contains_key(&c.key)).count(),
        cases.len(),
        known.len(),
        unexpected.len(),
        fixed.len()
    );
    if std::env::var_os("HAZMAT_BLESS").is_some() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(KNOWN_DIFFERENCES);
        let mut text = String::from(
            "# Tests of the conformance corpus on which hazmat and herd7 disagree, with the reason.\n\
             # One line per test: folder/path<TAB>reason.  The list may only shrink.\n",
        );
        for (k, v) in &found {
            text.push_str(&format!("{k}\t{v}\n"));
        }
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    assert!(
        unexpected.is_empty() && fixed.is_empty(),
        "disagreements not in {KNOWN_DIFFERENCES}:\n{}\nlisted tests that now agree (remove them):\n{}",
        unexpected.join("\n"),
        fixed
            .iter()
            .map(|k| k.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}
