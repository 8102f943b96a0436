//! The kernel's memory model at every version (`tests/lkmm-history/`), run by herd7 and by
//! hazmat's two command lines (`hazmat check --interpret --conf` and `hazmat herd7 -conf`)
//! on one sample of the conformance corpus, their whole outputs compared (`Time` aside)
//! through `report::read`.
//! Included by `tests/lkmm_history.rs` (`#[path]`).
//!
//! The model library (herd7's `cross.cat`, `cos-opt.cat`, ... which `lock.cat` includes) is
//! a parameter: none on any path by default, so that hazmat's built-in files serve, as
//! they do for a user with a kernel tree alone; `HAZMAT_HISTORY_LIBRARY=herd7` puts herd7's
//! own library on hazmat's path instead.

#![allow(dead_code, reason = "each includer uses part of the module")]

use super::cat_oracle::{Answer, compare, test_name, without_time};
use hazmat_checker::report::read;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder of the versions, in the package.
pub(crate) fn versions_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lkmm-history")
}

/// One version of the kernel's model: a folder holding its `linux-kernel.cfg`, `.cat`,
/// `.bell`, `.def` and `lock.cat`.
#[derive(Clone, Debug)]
pub(crate) struct Version {
    /// The folder's name.
    pub(crate) name: String,
    /// The folder.
    pub(crate) dir: PathBuf,
}

/// Every version, in the order of their names: the kernel's order, but that `2019/` (the
/// model of mid-2019) sorts before the older `2019-data-race/`.
pub(crate) fn versions() -> Vec<Version> {
    let mut out: Vec<Version> = std::fs::read_dir(versions_dir())
        .expect("the versions' folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("linux-kernel.cfg").is_file())
        .map(|dir| Version {
            name: dir
                .file_name()
                .expect("a folder name")
                .to_string_lossy()
                .into_owned(),
            dir,
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The model library the model files' `include`s are found in by hazmat: none but hazmat's
/// own, built in, unless `HAZMAT_HISTORY_LIBRARY` is `herd7` (herd7's library, beside
/// `herd7`) or names another folder.
pub(crate) fn library(herd7: &Path) -> Option<PathBuf> {
    match std::env::var("HAZMAT_HISTORY_LIBRARY") {
        Ok(v) if v == "herd7" => Some(herd7.parent().unwrap_or(Path::new(".")).join("herd")),
        Ok(v) if !v.is_empty() && v != "builtin" => Some(PathBuf::from(v)),
        _ => None,
    }
}

/// The corpus's litmus files, in the order of their paths below `root`: those of every
/// folder that holds herd7's answers.
pub(crate) fn corpus_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut folders: Vec<PathBuf> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("herd7.tsv").is_file())
        .collect();
    folders.sort();
    for folder in folders {
        files.extend(hazmat_checker::testkit::harness::litmus_files(&folder));
    }
    files.sort_by(|a, b| a.strip_prefix(root).ok().cmp(&b.strip_prefix(root).ok()));
    files
}

/// Every `stride`-th of `files`, from the first: the same sample every run.
pub(crate) fn sample(files: &[PathBuf], stride: usize) -> Vec<PathBuf> {
    files.iter().step_by(stride.max(1)).cloned().collect()
}

/// Batches of at most `size` files whose test names differ (herd7 refuses a second test
/// of the same name in one run), in order.
pub(crate) fn batches(files: &[PathBuf], size: usize) -> Vec<Vec<usize>> {
    let names: Vec<String> = files.iter().map(|f| test_name(f)).collect();
    let mut todo: Vec<usize> = (0..files.len()).collect();
    let mut out = Vec::new();
    while !todo.is_empty() {
        let mut batch: Vec<usize> = Vec::new();
        let mut rest = Vec::new();
        for i in todo {
            if batch.len() < size && !batch.iter().any(|&j| names[j] == names[i]) {
                batch.push(i);
            } else {
                rest.push(i);
            }
        }
        out.push(batch);
        todo = rest;
    }
    out
}

/// Which of hazmat's command lines runs a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tool {
    /// herd7 itself.
    Herd7,
    /// `hazmat check --interpret --conf linux-kernel.cfg`.
    Check,
    /// `hazmat herd7 -conf linux-kernel.cfg`.
    HazmatHerd7,
}

impl Tool {
    /// How the tool is named in reports.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Tool::Herd7 => "herd7",
            Tool::Check => "hazmat check --conf",
            Tool::HazmatHerd7 => "hazmat herd7 -conf",
        }
    }
}

/// How a tool is run: the executables and the library.
pub(crate) struct Runner {
    /// herd7's executable.
    pub(crate) herd7: PathBuf,
    /// hazmat's.
    pub(crate) hazmat: PathBuf,
    /// The model library (see [`library`]).
    pub(crate) library: Option<PathBuf>,
    /// Seconds each test may take.
    pub(crate) timeout: f64,
}

impl Runner {
    /// The command that runs `tool` on the model in `dir`, its files to be added.
    fn command(&self, tool: Tool, dir: &Path) -> Command {
        let timeout = format!("{}", self.timeout);
        let mut c;
        match tool {
            Tool::Herd7 => {
                c = Command::new(&self.herd7);
                c.arg("-I").arg(dir);
                c.args(["-conf", "linux-kernel.cfg", "-timeout", &timeout]);
            }
            Tool::Check => {
                c = Command::new(&self.hazmat);
                c.args([
                    "check",
                    "--interpret",
                    "--conf",
                    "linux-kernel.cfg",
                    "-j",
                    "1",
                ]);
                c.arg("-I").arg(dir);
                if let Some(l) = &self.library {
                    c.arg("-I").arg(l);
                }
                c.args(["--timeout", &timeout]);
            }
            Tool::HazmatHerd7 => {
                c = Command::new(&self.hazmat);
                c.arg("herd7");
                c.arg("-I").arg(dir);
                if let Some(l) = &self.library {
                    c.arg("-I").arg(l);
                }
                c.args(["-conf", "linux-kernel.cfg", "-timeout", &timeout]);
            }
        }
        // hazmat's files come from the command line alone, herd7's library from its
        // wrapper.
        if tool != Tool::Herd7 {
            c.env_remove("HERDLIB");
        }
        c
    }

    /// `tool`'s answers for `files` under the model in `dir`, in batches.
    pub(crate) fn run(&self, tool: Tool, dir: &Path, files: &[PathBuf]) -> Vec<Answer> {
        let names: Vec<String> = files.iter().map(|f| test_name(f)).collect();
        let mut answers = vec![Answer::Timeout; files.len()];
        for batch in batches(files, 40) {
            let out = self
                .command(tool, dir)
                .args(batch.iter().map(|&i| &files[i]))
                .output();
            let Ok(out) = out else {
                for &i in &batch {
                    answers[i] = Answer::Error(format!("{} does not start", tool.name()));
                }
                continue;
            };
            let stdout = String::from_utf8_lossy(&out.stdout);
            let stderr = String::from_utf8_lossy(&out.stderr);
            let blocks: BTreeMap<String, String> = read::blocks(&stdout).into_iter().collect();
            for &i in &batch {
                let path = files[i].display().to_string();
                answers[i] = match blocks.get(&names[i]).map(|t| test_block(t)) {
                    Some(text) => match read::parse(text) {
                        Ok(s) if s.verdict == "Unknown" => Answer::Timeout,
                        Ok(s) => Answer::Decided(without_time(text), s),
                        Err(e) => Answer::Error(format!("output unread: {e}")),
                    },
                    // An error names the file; a test out of time prints nothing.
                    None => match stderr.lines().find(|l| l.contains(&path)) {
                        Some(line) => Answer::Error(line.to_string()),
                        None if tool == Tool::Herd7 => Answer::Timeout,
                        None => Answer::Error(
                            stderr
                                .lines()
                                .next()
                                .unwrap_or("no output and no error")
                                .to_string(),
                        ),
                    },
                };
            }
        }
        answers
    }
}

/// A test's block, without what follows its `Hash=` line (`hazmat check` ends its output
/// with a table of every test).
fn test_block(text: &str) -> &str {
    match text.find("\nHash=") {
        Some(at) => {
            let end = text[at + 1..]
                .find('\n')
                .map_or(text.len(), |e| at + 1 + e + 1);
            &text[..end]
        }
        None => text,
    }
}

/// What one version's comparison found.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    /// Tests herd7 decided.
    pub(crate) decided: usize,
    /// Tests herd7 refused, and hazmat too.
    pub(crate) refused: usize,
    /// Tests herd7 did not decide in its time (skipped).
    pub(crate) undecided: usize,
    /// The disagreements: the file, the tool and how it differs.
    pub(crate) disagreements: Vec<(PathBuf, Tool, String)>,
}

/// herd7 and hazmat's two command lines on `files` under `version`.
pub(crate) fn compare_version(runner: &Runner, version: &Version, files: &[PathBuf]) -> Tally {
    let theirs = runner.run(Tool::Herd7, &version.dir, files);
    let mut tally = Tally::default();
    for a in &theirs {
        match a {
            Answer::Decided(..) => tally.decided += 1,
            Answer::Error(_) => tally.refused += 1,
            Answer::Timeout => tally.undecided += 1,
        }
    }
    // hazmat runs only what herd7 answered.
    let answered: Vec<usize> = (0..files.len())
        .filter(|&i| theirs[i] != Answer::Timeout)
        .collect();
    let subset: Vec<PathBuf> = answered.iter().map(|&i| files[i].clone()).collect();
    for tool in [Tool::Check, Tool::HazmatHerd7] {
        let ours = runner.run(tool, &version.dir, &subset);
        for (k, &i) in answered.iter().enumerate() {
            if let Some(d) = compare(&ours[k], &theirs[i]) {
                tally.disagreements.push((files[i].clone(), tool, d));
            }
        }
    }
    tally
}
