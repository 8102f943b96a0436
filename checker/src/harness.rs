//! `cargo test` integration: every litmus file becomes named test cases.
//!
//! [`trials`] walks a directory for `.litmus` files and makes one [`libtest_mimic::Trial`]
//! per file and per model the file states a `Result` line for, named
//! `MODEL::relative/path.litmus`; each trial checks the file and judges the outcome
//! against that line.
//! A crate of its own litmus files needs a test target with `harness = false` and:
//!
//! ```no_run
//! let args = libtest_mimic::Arguments::from_args();
//! let trials = hazmat_checker::harness::trials("litmus", &["sc", "tso"]);
//! libtest_mimic::run(&args, trials).exit();
//! ```
//!
//! A model that is not available (the LKMM before it lands) gives no trials.

use crate::{check_source, judge, model, outcome::Options};
use libtest_mimic::{Failed, Trial};
use std::path::Path;

pub use hazmat_litmus::litmus_files;

/// The trials for the litmus files under `dir` and the given models.
pub fn trials(dir: impl AsRef<Path>, models: &[&str]) -> Vec<Trial> {
    let dir = dir.as_ref();
    let mut trials = Vec::new();
    for file in litmus_files(dir) {
        let name = file
            .strip_prefix(dir)
            .unwrap_or(&file)
            .display()
            .to_string();
        let source = std::fs::read_to_string(&file);
        let test = source
            .as_ref()
            .ok()
            .and_then(|s| hazmat_litmus::parse(s).ok());
        for &m in models {
            if model(m).is_err() {
                continue;
            }
            // A file that does not parse still gets a trial under each model, so the error
            // is reported rather than skipped.
            if let Some(t) = &test
                && judge::expectation(t, m).is_none()
            {
                continue;
            }
            let file = file.clone();
            let m = m.to_string();
            trials.push(Trial::test(format!("{m}::{name}"), move || {
                run_one(&file, &m)
            }));
        }
    }
    trials
}

/// Checks one file under one model and judges it.
pub fn run_one(file: &Path, model_name: &str) -> Result<(), Failed> {
    let shown = file.display().to_string();
    let source = std::fs::read_to_string(file).map_err(|e| format!("{shown}: {e}"))?;
    let m = model(model_name).map_err(|e| e.to_string())?;
    let checked = check_source(&source, m.as_ref(), &Options::default())
        .map_err(|e| e.render(&shown, &source))?;
    let Some(expected) = judge::expectation(&checked.test, model_name) else {
        return Ok(());
    };
    judge::judge(expected, &checked.outcome)
        .map_err(|why| Failed::from(format!("{shown}: {why}\n{}", checked.herd_text())))
}
