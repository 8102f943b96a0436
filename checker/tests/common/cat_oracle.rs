//! herd7 and hazmat's interpreter on the same model files: running both on a list of
//! litmus files and comparing their answers.
//!
//! herd7 is found through `$HAZMAT_ORACLE`, or at `../shared/oracle/herd7` from the
//! workspace root; its library (`herd/` beside it) is where `include`s not found in the
//! model's own folder are looked for, by both tools.
//! Included by the cat-model tests (`tests/cat_models.rs`) and the offline tool
//! (`examples/cat_oracle.rs`).

#![allow(dead_code, reason = "each includer uses part of the module")]

use hazmat_checker::front::defs::Macros;
use hazmat_checker::models::cat::files::Disk;
use hazmat_checker::models::cat::{CatModel, Library, Spec, load};
use hazmat_checker::models::model::MemoryModel;
use hazmat_checker::models::optace::OptAce;
use hazmat_checker::report::read::{self, Summary};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The workspace root.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// herd7's executable, if present.
pub(crate) fn herd7() -> Option<PathBuf> {
    let exe = match std::env::var_os("HAZMAT_ORACLE") {
        Some(p) => PathBuf::from(p),
        None => workspace().join("../shared/oracle/herd7"),
    };
    exe.is_file().then_some(exe)
}

/// herd7's model library, beside its executable.
pub(crate) fn herdlib(herd7: &Path) -> PathBuf {
    herd7.parent().unwrap_or(Path::new(".")).join("herd")
}

/// One model, as both tools are given it: a folder searched first, the cat and bell
/// files, the macros file, the variants.
#[derive(Clone, Debug)]
pub(crate) struct ModelFiles {
    /// The folder of the model's own files.
    pub(crate) dir: PathBuf,
    /// The cat file.
    pub(crate) cat: String,
    /// The bell file.
    pub(crate) bell: Option<String>,
    /// The macros file (herd7 needs it for C tests; hazmat has the kernel's built in).
    pub(crate) macros: Option<String>,
    /// The variants.
    pub(crate) variants: Vec<String>,
}

impl ModelFiles {
    /// The model compiled by hazmat's interpreter.
    pub(crate) fn load(&self, herdlib: &Path) -> Result<CatModel, String> {
        self.load_from(&Library::new().include(&self.dir).include(herdlib))
    }

    /// The model compiled by hazmat's interpreter, its files found through `library`.
    pub(crate) fn load_from(&self, library: &Library) -> Result<CatModel, String> {
        let spec = Spec {
            cat: self.cat.clone(),
            bell: self.bell.clone(),
            variants: self.variants.clone(),
            ..Default::default()
        };
        load(library, &Disk, &spec).map_err(|e| e.render())
    }

    /// herd7's options for the model.
    fn herd7_args(&self) -> Vec<String> {
        let mut args = vec!["-I".to_string(), self.dir.display().to_string()];
        if let Some(m) = &self.macros {
            args.extend(["-macros".to_string(), m.clone()]);
        }
        if let Some(b) = &self.bell {
            args.extend(["-bell".to_string(), b.clone()]);
        }
        args.extend(["-model".to_string(), self.cat.clone()]);
        if !self.variants.is_empty() {
            args.extend(["-variant".to_string(), self.variants.join(",")]);
        }
        args
    }
}

/// One tool's answer for one file.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Answer {
    /// Decided: the text (`Time` aside) and what it says.
    Decided(String, Summary),
    /// Refused with an error.
    Error(String),
    /// Not decided in time.
    Timeout,
}

/// herd7's answers for `files` under `model`, running it on batches of files whose test
/// names differ, `timeout` seconds of CPU each, as many batches at once as there are
/// cores.
pub(crate) fn run_herd7(
    herd7: &Path,
    model: &ModelFiles,
    files: &[PathBuf],
    timeout: f64,
) -> Vec<Answer> {
    run_herd7_with(herd7, model, files, timeout, &[])
}

/// [`run_herd7`] with herd7's options `extra` too (`-optace true`).
pub(crate) fn run_herd7_with(
    herd7: &Path,
    model: &ModelFiles,
    files: &[PathBuf],
    timeout: f64,
    extra: &[String],
) -> Vec<Answer> {
    let names: Vec<String> = files.iter().map(|f| test_name(f)).collect();
    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    // Batches of at most 50 files, and small enough for every core to get one.
    let most = files.len().div_ceil(jobs).clamp(1, 50);
    let mut batches: Vec<Vec<usize>> = Vec::new();
    let mut todo: Vec<usize> = (0..files.len()).collect();
    while !todo.is_empty() {
        // One batch: the first file of each name not yet run.
        let mut batch: Vec<usize> = Vec::new();
        let mut rest = Vec::new();
        for i in todo {
            if batch.len() < most && !batch.iter().any(|&j| names[j] == names[i]) {
                batch.push(i);
            } else {
                rest.push(i);
            }
        }
        todo = rest;
        batches.push(batch);
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let answered: Vec<(usize, Answer)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let b = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(batch) = batches.get(b) else {
                            return mine;
                        };
                        let answers =
                            herd7_batch(herd7, model, files, &names, batch, timeout, extra);
                        mine.extend(batch.iter().copied().zip(answers));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a herd7 worker"))
            .collect()
    });
    let mut answers = vec![Answer::Timeout; files.len()];
    for (i, a) in answered {
        answers[i] = a;
    }
    answers
}

/// herd7's answers for the files `batch` names, in one run.
fn herd7_batch(
    herd7: &Path,
    model: &ModelFiles,
    files: &[PathBuf],
    names: &[String],
    batch: &[usize],
    timeout: f64,
    extra: &[String],
) -> Vec<Answer> {
    let out = Command::new(herd7)
        .arg("-timeout")
        .arg(format!("{timeout}"))
        .args(model.herd7_args())
        .args(extra)
        .args(batch.iter().map(|&i| &files[i]))
        .output();
    let Ok(out) = out else {
        return vec![Answer::Error("herd7 does not start".into()); batch.len()];
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let blocks: BTreeMap<String, String> = read::blocks(&stdout).into_iter().collect();
    batch
        .iter()
        .map(|&i| match blocks.get(&names[i]) {
            Some(text) => match read::parse(text) {
                Ok(s) => Answer::Decided(without_time(text), s),
                Err(e) => Answer::Error(format!("herd7's output unread: {e}")),
            },
            // herd7 prints nothing at all for a test that runs out of its `-timeout`, but
            // the warnings of its loops' unrolling.
            None if stderr
                .lines()
                .all(|l| l.trim().is_empty() || l.contains("unrolling limit exceeded"))
                || stderr.contains("Timeout")
                || stderr.contains("timeout") =>
            {
                Answer::Timeout
            }
            // herd7's refusal of one test is a warning naming it; of the model, an error.
            None => {
                let named = format!("File \"{}\"", files[i].display());
                Answer::Error(
                    stderr
                        .lines()
                        .find(|l| l.contains(&named))
                        .or_else(|| stderr.lines().find(|l| !l.starts_with("Warning")))
                        .unwrap_or("herd7 printed nothing")
                        .to_string(),
                )
            }
        })
        .collect()
}

/// hazmat's answer for one file under `model`.
pub(crate) fn run_hazmat(model: &dyn MemoryModel, file: &Path, timeout: Duration) -> Answer {
    run_hazmat_with(model, None, file, timeout)
}

/// [`run_hazmat`] with the calls read by `macros`, a user's macro file, when given.
pub(crate) fn run_hazmat_with(
    model: &dyn MemoryModel,
    macros: Option<&Macros>,
    file: &Path,
    timeout: Duration,
) -> Answer {
    run_hazmat_under(model, macros, file, timeout, OptAce::Iico)
}

/// [`run_hazmat_with`] with the candidates built as herd7's `-optace` says.
pub(crate) fn run_hazmat_under(
    model: &dyn MemoryModel,
    macros: Option<&Macros>,
    file: &Path,
    timeout: Duration,
    optace: OptAce,
) -> Answer {
    let Ok(source) = std::fs::read_to_string(file) else {
        return Answer::Error("unreadable".into());
    };
    let options = hazmat_checker::Options {
        limits: hazmat_checker::engine::enumerate::Limits {
            max_executions: None,
            deadline: Some(Instant::now() + timeout),
            optace,
            ..Default::default()
        },
        speedcheck: false,
        ..Default::default()
    };
    let checked = match macros {
        Some(m) => hazmat_checker::check_source_with_macros(&source, m, model, &options),
        None => hazmat_checker::check_source(&source, model, &options),
    };
    match checked {
        Ok(c) if c.outcome.unknown.is_some() => Answer::Timeout,
        Ok(c) => {
            let text = without_time(&c.herd_text());
            match read::parse(&text) {
                Ok(s) => Answer::Decided(text, s),
                Err(e) => Answer::Error(e),
            }
        }
        Err(e) => Answer::Error(e.to_string()),
    }
}

/// How hazmat's answer differs from herd7's; `None` when they agree (both decide with the
/// same outcome and text, both refuse, or herd7 did not decide).
pub(crate) fn compare(hazmat: &Answer, herd7: &Answer) -> Option<String> {
    match (hazmat, herd7) {
        (_, Answer::Timeout) => None,
        (Answer::Decided(text, ours), Answer::Decided(theirs_text, theirs)) => {
            let mut d = read::differences(theirs, ours);
            if d.is_empty() {
                d.extend(read::first_text_difference(text, theirs_text));
            }
            (!d.is_empty()).then(|| d.join("; "))
        }
        (Answer::Error(_), Answer::Error(_)) => None,
        (Answer::Timeout, _) => Some("hazmat did not decide it in time".into()),
        (ours, theirs) => Some(format!("hazmat: {}; herd7: {}", brief(ours), brief(theirs))),
    }
}

fn brief(a: &Answer) -> String {
    match a {
        Answer::Decided(_, s) => format!("{} {:?}", s.verdict, s.flags),
        Answer::Error(e) => format!("error: {}", e.lines().next().unwrap_or_default()),
        Answer::Timeout => "timeout".into(),
    }
}

/// The test name herd7 prints for a litmus file: the name it declares (`C NAME` on its
/// first line) without a `.litmus` ending, or its file stem.
pub(crate) fn test_name(file: &Path) -> String {
    let name = std::fs::read_to_string(file)
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| !l.trim().is_empty())
                .and_then(|l| l.split_whitespace().nth(1).map(String::from))
        })
        .unwrap_or_else(|| {
            file.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        });
    name.strip_suffix(".litmus")
        .map(String::from)
        .unwrap_or(name)
}

/// herd7's answer as a file's `.expected` keeps it (`file` names the file in a panic).
pub(crate) fn kept_answer(file: &Path, expected: &str) -> Answer {
    match read::parse(expected) {
        Ok(s) => Answer::Decided(without_time(expected), s),
        Err(e) => panic!("{}.expected: {e}", file.display()),
    }
}

/// A text without its `Time` line, and without trailing blank lines.
pub(crate) fn without_time(text: &str) -> String {
    let mut out: String = text
        .lines()
        .filter(|l| !l.starts_with("Time "))
        .flat_map(|l| [l, "\n"])
        .collect();
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// Every `stride`-th litmus file of each folder of the corpus that holds herd7's answers,
/// in a fixed order, less the tests herd7 did not decide in a minute under the
/// kernel's model (`TIMEOUT` in the folder's `herd7-unsolved.tsv`): their locks take
/// herd7 past the seconds these tests give it under any model, so they would check
/// nothing and cost each run its whole timeout, herd7's and hazmat's.
pub(crate) fn corpus_sample(root: &Path, stride: usize) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut folders: Vec<PathBuf> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("herd7.tsv").is_file())
        .collect();
    folders.sort();
    for folder in folders {
        let timeouts = timed_out(&folder);
        let files = hazmat_checker::testkit::harness::litmus_files(&folder);
        out.extend(
            files
                .into_iter()
                .step_by(stride.max(1))
                .filter(|f| !timeouts.contains(f)),
        );
    }
    out
}

/// The tests of `folder` that herd7 did not decide within its minute, by its
/// `herd7-unsolved.tsv`.
fn timed_out(folder: &Path) -> Vec<PathBuf> {
    let text = std::fs::read_to_string(folder.join("herd7-unsolved.tsv")).unwrap_or_default();
    text.lines()
        .skip(1)
        .filter_map(
            |line| match line.split('\t').collect::<Vec<_>>().as_slice() {
                [path, "TIMEOUT", ..] => Some(folder.join(path)),
                _ => None,
            },
        )
        .collect()
}
