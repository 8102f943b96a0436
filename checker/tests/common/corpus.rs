//! The shared conformance corpus: where it is, which folders it has, and what herd7 said
//! about each of their tests.
//!
//! The corpus is found through `$HAZMAT_CONFORMANCE`, or at `../../shared/conformance` from
//! this package; a folder of it counts when it holds a `herd7.jsonl` (herd7's answer for
//! each decided test) or a `herd7.tsv`, so a new folder counts without a code change.
//! Included by the conformance test and the conformance benchmark (`#[path]`); neither
//! uses all of it.

#![allow(dead_code, reason = "each includer uses part of the loader")]

use hazmat_checker::report::read::Summary;
use std::path::{Path, PathBuf};

/// One decided test of the corpus.
pub(crate) struct Case {
    /// `folder/path`, the key of the known-differences file.
    pub(crate) key: String,
    /// The litmus file.
    pub(crate) file: PathBuf,
    /// herd7's answer.
    pub(crate) expected: Summary,
    /// herd7's own time for it, in CPU seconds.
    pub(crate) herd_time: f64,
}

/// A test herd7 did not decide.
pub(crate) struct Unsolved {
    /// `folder/path`.
    pub(crate) key: String,
    /// The litmus file.
    pub(crate) file: PathBuf,
    /// `TIMEOUT` or `ERROR`.
    pub(crate) status: String,
}

/// The corpus, when present.
pub(crate) fn conformance_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("HAZMAT_CONFORMANCE") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance"),
    };
    dir.join("README.md").is_file().then_some(dir)
}

/// The folders of the corpus that hold herd7's answers, in name order.
pub(crate) fn folders(root: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            let p = e.path();
            p.join("herd7.jsonl").is_file() || p.join("herd7.tsv").is_file()
        })
        .filter_map(|e| e.file_name().to_str().map(String::from))
        .collect();
    out.sort();
    out
}

/// Reads every folder's `herd7.jsonl`.
pub(crate) fn load_cases(root: &Path) -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    for folder in folders(root) {
        let jsonl = root.join(&folder).join("herd7.jsonl");
        let text = std::fs::read_to_string(&jsonl).map_err(|e| {
            format!(
                "{}: {e} (a folder with herd7's answers needs its herd7.jsonl)",
                jsonl.display()
            )
        })?;
        for (i, line) in text.lines().enumerate() {
            let at = || format!("{}:{}", jsonl.display(), i + 1);
            let v: serde_json::Value =
                serde_json::from_str(line).map_err(|e| format!("{}: {e}", at()))?;
            let states = v["states"]
                .as_array()
                .ok_or_else(|| format!("{}: no states", at()))?
                .iter()
                .map(|s| s.as_str().unwrap_or_default().to_string())
                .collect();
            let path = v["path"].as_str().unwrap_or_default();
            cases.push(Case {
                key: format!("{folder}/{path}"),
                file: root.join(&folder).join(path),
                expected: Summary {
                    verdict: v["verdict"].as_str().unwrap_or_default().to_string(),
                    states,
                    positive: v["positive"].as_u64().map_or(u128::MAX, u128::from),
                    negative: v["negative"].as_u64().map_or(u128::MAX, u128::from),
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
                herd_time: v["herd_time"].as_f64().unwrap_or(0.0),
            });
        }
    }
    Ok(cases)
}

/// The number of rows of each folder's `herd7.tsv`, header aside: `(folder, rows)`.
pub(crate) fn tsv_rows(root: &Path) -> Vec<(String, usize)> {
    folders(root)
        .into_iter()
        .map(|folder| {
            let text =
                std::fs::read_to_string(root.join(&folder).join("herd7.tsv")).unwrap_or_default();
            let rows = text
                .lines()
                .skip(1)
                .filter(|l| !l.trim().is_empty())
                .count();
            (folder, rows)
        })
        .collect()
}

/// The tests herd7 did not decide, from each folder's `herd7-unsolved.tsv`.
pub(crate) fn load_unsolved(root: &Path) -> Vec<Unsolved> {
    let mut out = Vec::new();
    for folder in folders(root) {
        let Ok(text) = std::fs::read_to_string(root.join(&folder).join("herd7-unsolved.tsv"))
        else {
            continue;
        };
        for line in text.lines().skip(1) {
            let cols: Vec<&str> = line.split('\t').collect();
            if let [path, status, ..] = cols.as_slice() {
                out.push(Unsolved {
                    key: format!("{folder}/{path}"),
                    file: root.join(&folder).join(path),
                    status: status.to_string(),
                });
            }
        }
    }
    out
}

/// herd7's whole output for the test of `key`, from the folder's `herd7-out`.
pub(crate) fn herd7_output(root: &Path, key: &str) -> Option<String> {
    let (folder, path) = key.split_once('/')?;
    std::fs::read_to_string(
        root.join(folder)
            .join("herd7-out")
            .join(format!("{path}.out")),
    )
    .ok()
}
