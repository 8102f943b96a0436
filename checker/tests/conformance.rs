//! Agreement with herd7 on the shared conformance corpus.
//!
//! The corpus (see its README) holds real litmus tests and, in each folder's
//! `herd7.jsonl`, herd7's verdict, final states, witness counts and flags for each decided
//! test under the kernel's LKMM configuration.
//! It is found through `$HAZMAT_CONFORMANCE`, or at `../../shared/conformance` from this
//! package; without it, every test here passes having checked nothing but the
//! known-differences file's syntax.
//!
//! Accepted disagreements are listed in `tests/conformance-known-differences.txt`, one
//! test per line (`folder/path<TAB>reason`).
//! The agreement test fails on any disagreement not listed there, and on any listed test
//! that now agrees, so the list can only shrink.
//! `HAZMAT_BLESS=1` rewrites the list from the current disagreements instead of failing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// What herd7 (or hazmat) says about one test.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
struct Outcome {
    /// `Never`, `Sometimes` or `Always`.
    verdict: String,
    /// The state lines, as herd7 prints them.
    states: BTreeSet<String>,
    positive: u64,
    negative: u64,
    /// The flags, in the order the `Flag` lines print them.
    flags: Vec<String>,
}

/// One decided test of the corpus.
struct Case {
    /// `folder/path`, the key of the known-differences file.
    key: String,
    file: PathBuf,
    expected: Outcome,
}

const FOLDERS: [&str; 5] = [
    "kernel-doc",
    "tools-memory-model",
    "herdtools-catalogue",
    "paulmck-manual",
    "paulmck-luc",
];

const KNOWN_DIFFERENCES: &str = "tests/conformance-known-differences.txt";

fn conformance_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("HAZMAT_CONFORMANCE") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance"),
    };
    dir.join("README.md").is_file().then_some(dir)
}

/// Reads every folder's `herd7.jsonl`.
fn load_cases(root: &Path) -> Vec<Case> {
    let mut cases = Vec::new();
    for folder in FOLDERS {
        let jsonl = root.join(folder).join("herd7.jsonl");
        let text =
            std::fs::read_to_string(&jsonl).unwrap_or_else(|e| panic!("{}: {e}", jsonl.display()));
        for (i, line) in text.lines().enumerate() {
            let v: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}:{}: {e}", jsonl.display(), i + 1));
            let strings = |field: &str| -> BTreeSet<String> {
                v[field]
                    .as_array()
                    .unwrap_or_else(|| panic!("{}:{}: no {field}", jsonl.display(), i + 1))
                    .iter()
                    .map(|s| s.as_str().unwrap_or_default().to_string())
                    .collect()
            };
            let path = v["path"].as_str().unwrap_or_default();
            cases.push(Case {
                key: format!("{folder}/{path}"),
                file: root.join(folder).join(path),
                expected: Outcome {
                    verdict: v["verdict"].as_str().unwrap_or_default().to_string(),
                    states: strings("states"),
                    positive: v["positive"].as_u64().unwrap_or(u64::MAX),
                    negative: v["negative"].as_u64().unwrap_or(u64::MAX),
                    flags: v["flags"]
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(|f| f.as_str())
                                .map(String::from)
                                .collect()
                        })
                        .unwrap_or_default(),
                },
            });
        }
    }
    cases
}

/// Reads the outcome of one test from herd7's text format: the state lines after
/// `States N`, the `Positive: P Negative: N` line, the `Flag` lines and the verdict of the
/// `Observation` line.
fn parse_herd_output(text: &str) -> Result<Outcome, String> {
    let mut out = Outcome::default();
    let mut lines = text.lines();
    let mut seen_states = false;
    let mut seen_observation = false;
    while let Some(line) = lines.next() {
        if let Some(n) = line.strip_prefix("States ") {
            let n: usize = n.trim().parse().map_err(|_| format!("bad line {line:?}"))?;
            for _ in 0..n {
                let state = lines.next().ok_or("missing state lines")?;
                out.states.insert(state.trim_end().to_string());
            }
            seen_states = true;
        } else if let Some(rest) = line.strip_prefix("Positive: ") {
            let (p, n) = rest
                .split_once(" Negative: ")
                .ok_or_else(|| format!("bad line {line:?}"))?;
            out.positive = p.trim().parse().map_err(|_| format!("bad line {line:?}"))?;
            out.negative = n.trim().parse().map_err(|_| format!("bad line {line:?}"))?;
        } else if let Some(flag) = line.strip_prefix("Flag ") {
            out.flags.push(flag.trim().to_string());
        } else if let Some(rest) = line.strip_prefix("Observation ") {
            let words: Vec<&str> = rest.split_whitespace().collect();
            let [.., verdict, _, _] = words.as_slice() else {
                return Err(format!("bad line {line:?}"));
            };
            out.verdict = verdict.to_string();
            seen_observation = true;
        }
    }
    if !seen_states || !seen_observation {
        return Err("no States or Observation line".to_string());
    }
    Ok(out)
}

/// The differences between herd7's outcome and ours, as short phrases.
fn differences(expected: &Outcome, actual: &Outcome) -> Vec<String> {
    let mut diffs = Vec::new();
    if expected.verdict != actual.verdict {
        diffs.push(format!(
            "verdict {} vs {}",
            actual.verdict, expected.verdict
        ));
    }
    if expected.states != actual.states {
        let missing = expected.states.difference(&actual.states).count();
        let extra = actual.states.difference(&expected.states).count();
        diffs.push(format!("states: {missing} missing, {extra} extra"));
    }
    if expected.flags != actual.flags {
        diffs.push(format!("flags {:?} vs {:?}", actual.flags, expected.flags));
    }
    if (expected.positive, expected.negative) != (actual.positive, actual.negative) {
        diffs.push(format!(
            "witnesses {} {} vs {} {}",
            actual.positive, actual.negative, expected.positive, expected.negative
        ));
    }
    diffs
}

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
    for key in known.keys() {
        assert!(
            FOLDERS.iter().any(|f| key.starts_with(&format!("{f}/"))),
            "{key}: not in a conformance folder"
        );
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
    let cases = load_cases(&root);
    assert_eq!(cases.len(), 2726, "decided tests in the corpus");
    let mut failures = Vec::new();
    for case in &cases {
        let (folder, path) = case.key.split_once('/').unwrap_or_default();
        let out = root
            .join(folder)
            .join("herd7-out")
            .join(format!("{path}.out"));
        let text = std::fs::read_to_string(&out).unwrap_or_default();
        match parse_herd_output(&text) {
            Ok(parsed) => {
                let diffs = differences(&case.expected, &parsed);
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
fn hazmat_outcome(file: &Path, speedcheck: bool) -> Result<Outcome, String> {
    hazmat_text(file, speedcheck).and_then(|text| parse_herd_output(&text))
}

/// hazmat's herd7-format text for one file under the LKMM.
fn hazmat_text(file: &Path, speedcheck: bool) -> Result<String, String> {
    let source = std::fs::read_to_string(file).map_err(|e| e.to_string())?;
    let options = hazmat_checker::Options {
        limits: hazmat_checker::enumerate::Limits {
            max_executions: None,
            deadline: Some(std::time::Instant::now() + TIMEOUT),
        },
        speedcheck,
    };
    let model = hazmat_checker::model("lkmm").map_err(|e| e.to_string())?;
    let checked = hazmat_checker::check_source(&source, model.as_ref(), &options)
        .map_err(|e| e.render(&file.display().to_string(), &source))?;
    if let Some(why) = &checked.outcome.unknown {
        return Err(format!("unknown: {why}"));
    }
    Ok(checked.herd_text())
}

/// The first line where hazmat's text differs from herd7's, ignoring the `Time` and
/// `Hash=` lines (which the two tools compute differently) and blank lines.
fn first_text_difference(ours: &str, herd7: &str) -> Option<String> {
    let keep =
        |l: &&str| !l.starts_with("Time ") && !l.starts_with("Hash=") && !l.trim().is_empty();
    let ours: Vec<&str> = ours.lines().filter(keep).collect();
    let theirs: Vec<&str> = herd7.lines().filter(keep).collect();
    (0..ours.len().max(theirs.len())).find_map(|i| {
        let (a, b) = (ours.get(i).copied(), theirs.get(i).copied());
        (a != b).then(|| {
            format!(
                "output line {}: {:?} vs {:?}",
                i + 1,
                a.unwrap_or("<end>"),
                b.unwrap_or("<end>")
            )
        })
    })
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
    let cases = load_cases(&root);
    let known = known_differences().unwrap_or_else(|e| panic!("{e}"));

    let mut found: BTreeMap<String, String> = cases
        .par_iter()
        .filter_map(|case| {
            let diffs = match hazmat_text(&case.file, false) {
                Ok(text) => match parse_herd_output(&text) {
                    Ok(actual) => {
                        let mut d = differences(&case.expected, &actual);
                        if d.is_empty() {
                            // The same outcome: the text must match herd7's line for line.
                            let (folder, path) = case.key.split_once('/').unwrap_or_default();
                            let out = root
                                .join(folder)
                                .join("herd7-out")
                                .join(format!("{path}.out"));
                            let herd7 = std::fs::read_to_string(out).unwrap_or_default();
                            d.extend(first_text_difference(&text, &herd7));
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
        .filter_map(|(key, file, status)| {
            let problem = if status == "ERROR" {
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

/// The tests herd7 did not decide: `(key, file, TIMEOUT|ERROR)`.
fn load_unsolved(root: &Path) -> Vec<(String, PathBuf, String)> {
    let mut out = Vec::new();
    for folder in FOLDERS {
        let Ok(text) = std::fs::read_to_string(root.join(folder).join("herd7-unsolved.tsv")) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let cols: Vec<&str> = line.split('\t').collect();
            if let [path, status, ..] = cols.as_slice() {
                out.push((
                    format!("{folder}/{path}"),
                    root.join(folder).join(path),
                    status.to_string(),
                ));
            }
        }
    }
    out
}
