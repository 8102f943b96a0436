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
//! let trials = hazmat_checker::testkit::harness::trials("litmus", &["sc", "tso"]);
//! libtest_mimic::run(&args, trials).exit();
//! ```
//!
//! A model that is not available (the LKMM before it lands) gives no trials.
//! A file that no trial would judge rightly is a failing trial of its own, named
//! `results::relative/path.litmus`: one that states no `Result` line, or whose `Result`
//! lines name a model hazmat does not have (`Result(RC11):`) or misspell an outcome
//! (`Result: never`), so that no file drops out of `cargo test` unseen.
//!
//! A `Result:` line states only a verdict and the data-race flag; a file that needs more
//! (the oracle test's minimised disagreements, in `litmus/tests/regressions/`) carries
//! herd7's whole output beside it, as `FILE.litmus.expected`, and [`expected_trials`] makes
//! a trial of each such file, named `expected::relative/path.litmus`, that holds hazmat's
//! output under the LKMM (or RC11, for a file that states a result under RC11 only) to
//! herd7's line for line: states, witness counts, flags and all
//! (the `Time` line aside, which varies from run to run, and the `Hash=` line, which
//! `hazmat_litmus::herd_hash`'s own test holds to herd7's).
//! An expected output without a `Test` line is herd7's refusal of the file, which hazmat
//! must refuse too.

use crate::report::expected;
use crate::{Options, check_source, model};
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
        // A file no model would judge fails on its own, rather than drop out unseen.
        if let (Ok(source), Some(t)) = (&source, &test)
            && let Some(why) = unjudged(t, models, &name, source)
        {
            trials.push(Trial::test(format!("results::{name}"), move || {
                Err(why.into())
            }));
            continue;
        }
        for &m in models {
            if model(m).is_err() {
                continue;
            }
            // A file that does not parse still gets a trial under each model, so the error
            // is reported rather than skipped.
            if let Some(t) = &test
                && expected::expectation(t, m).is_none()
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

/// Why no trial would judge `test` rightly, if none would: a `Result` line names no model
/// hazmat has or misspells an outcome ([`expected::problems`]), or the file states no
/// `Result` line at all.
fn unjudged(
    test: &hazmat_litmus::Test,
    models: &[&str],
    name: &str,
    source: &str,
) -> Option<String> {
    let problems = expected::problems(test, crate::MODELS);
    if !problems.is_empty() {
        let rendered: Vec<String> = problems.iter().map(|p| p.render(name, source)).collect();
        return Some(rendered.concat());
    }
    if test.expectations.is_empty() && !models.is_empty() {
        return Some(format!(
            "{name}: no `Result` line, so no model judges the file: state what the LKMM gives \
             with `Result: Never` (or `Sometimes`, `Always`), and another model's with \
             `Result(sc): ...`"
        ));
    }
    None
}

/// The trials for the litmus files under `dir` that have herd7's output beside them
/// (`FILE.litmus.expected`).
pub fn expected_trials(dir: impl AsRef<Path>) -> Vec<Trial> {
    let dir = dir.as_ref();
    litmus_files(dir)
        .into_iter()
        .filter(|file| expected_file(file).is_file())
        .map(|file| {
            let name = file
                .strip_prefix(dir)
                .unwrap_or(&file)
                .display()
                .to_string();
            Trial::test(format!("expected::{name}"), move || run_expected(&file))
        })
        .collect()
}

/// Where herd7's output for `file` is kept.
fn expected_file(file: &Path) -> std::path::PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(".expected");
    name.into()
}

/// The model a file's expected output comes from: RC11 for a file that states a result
/// under RC11 and none under the LKMM (herd7 run with `-model rc11.cat -macros c11.def`),
/// the LKMM otherwise (herd7 run with the kernel's configuration).
fn expected_model(source: &str) -> &'static str {
    match hazmat_litmus::parse(source) {
        Ok(t)
            if expected::expectation(&t, "lkmm").is_none()
                && expected::expectation(&t, "rc11").is_some() =>
        {
            "rc11"
        }
        _ => "lkmm",
    }
}

/// Checks one file under the model of its expected output (`expected_model`) and
/// compares hazmat's output with herd7's, kept beside the file.
pub fn run_expected(file: &Path) -> Result<(), Failed> {
    let shown = file.display().to_string();
    let expected_path = expected_file(file);
    let expected = std::fs::read_to_string(&expected_path)
        .map_err(|e| format!("{}: {e}", expected_path.display()))?;
    let source = std::fs::read_to_string(file).map_err(|e| format!("{shown}: {e}"))?;
    let m = model(expected_model(&source)).map_err(|e| e.to_string())?;
    let checked = check_source(&source, m.as_ref(), &Options::default());
    let refused = !expected.lines().any(|l| l.starts_with("Test "));
    match (checked, refused) {
        (Err(_), true) => Ok(()),
        (Err(e), false) => Err(format!(
            "{}\nherd7 decides it:\n{expected}",
            e.render(&shown, &source)
        )
        .into()),
        (Ok(c), true) => Err(format!(
            "{shown}: herd7 refuses it ({}), hazmat decides it:\n{}",
            expected.trim(),
            c.herd_text()
        )
        .into()),
        (Ok(c), false) => {
            let ours = c.herd_text();
            match crate::report::read::first_text_difference(&ours, &expected) {
                None => Ok(()),
                Some(d) => Err(format!(
                    "{shown}: {d} (hazmat vs herd7)\nhazmat:\n{ours}\nherd7:\n{expected}"
                )
                .into()),
            }
        }
    }
}

/// Checks one file under one model and judges it.
pub fn run_one(file: &Path, model_name: &str) -> Result<(), Failed> {
    let shown = file.display().to_string();
    let source = std::fs::read_to_string(file).map_err(|e| format!("{shown}: {e}"))?;
    let m = model(model_name).map_err(|e| e.to_string())?;
    let checked = check_source(&source, m.as_ref(), &Options::default())
        .map_err(|e| e.render(&shown, &source))?;
    let Some(expectation) = expected::expectation(&checked.test, model_name) else {
        return Ok(());
    };
    expected::judge(expectation, &checked.outcome)
        .map_err(|why| Failed::from(format!("{shown}: {why}\n{}", checked.herd_text())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file that states no `Result` line, names a model that does not exist or misspells
    /// an outcome is a failing trial named `results::FILE`, not a file with no trial.
    #[test]
    fn a_file_no_model_would_judge_is_a_trial_that_fails() {
        let dir = std::env::temp_dir().join(format!("hazmat-results-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temporary directory");
        let body = "{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nexists (x=1)\n";
        let files = [
            ("good.litmus", "(* Result: Always *)"),
            ("none.litmus", "(* a comment *)"),
            ("upper.litmus", "(* Result(RC11): Always *)"),
            ("lower.litmus", "(* Result: always *)"),
        ];
        for (name, comment) in files {
            std::fs::write(dir.join(name), format!("C t\n{comment}\n{body}"))
                .expect("temporary file");
        }
        let mut names: Vec<String> = trials(&dir, crate::MODELS)
            .iter()
            .map(|t| t.name().to_string())
            .collect();
        names.sort();
        let source = format!("C t\n(* Result(RC11): Always *)\n{body}");
        let test = hazmat_litmus::parse(&source).expect("parses");
        let why = unjudged(&test, crate::MODELS, "upper.litmus", &source);
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(
            names,
            [
                "lkmm::good.litmus",
                "results::lower.litmus",
                "results::none.litmus",
                "results::upper.litmus"
            ]
        );
        assert!(why.is_some_and(|w| w.starts_with(
            "upper.litmus:2:4: error: `Result(RC11):` names no model, so no run judges this \
                 line; did you mean `rc11`?"
        )));
    }

    /// hazmat's own output passes as the expected one, whatever its `Time` line says;
    /// another state, another `Hash=` digest, or herd7's refusal, fails.
    #[test]
    fn an_expected_output_is_compared_line_for_line() {
        let dir = std::env::temp_dir().join(format!("hazmat-expected-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temporary directory");
        let file = dir.join("t.litmus");
        let source = "C t\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\n\
                      P1(int *x) { int r0; r0 = READ_ONCE(*x); }\nexists (1:r0=1)\n";
        std::fs::write(&file, source).expect("temporary file");
        let m = model("lkmm").expect("the LKMM exists");
        let ours = check_source(source, m.as_ref(), &Options::default())
            .expect("the test is decided")
            .herd_text();
        let expect = |text: &str| {
            std::fs::write(expected_file(&file), text).expect("temporary file");
            run_expected(&file).is_ok()
        };
        let retimed: String = ours
            .lines()
            .map(|l| match l {
                l if l.starts_with("Time ") => "Time t 9.99\n".to_string(),
                l => format!("{l}\n"),
            })
            .collect();
        let rehashed: String = ours
            .lines()
            .map(|l| match l {
                l if l.starts_with("Hash=") => "Hash=0\n".to_string(),
                l => format!("{l}\n"),
            })
            .collect();
        let results = [
            expect(&retimed),
            expect(&ours.replacen("1:r0=1;", "1:r0=2;", 1)),
            expect(&rehashed),
            expect("Warning: File \"t.litmus\": unexpected '}' (User error)\n"),
        ];
        let trials = expected_trials(&dir).len();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(results, [true, false, false, false]);
        assert_eq!(trials, 1);
    }
}
