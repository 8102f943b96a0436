//! `hazmat check --judge`'s bookkeeping: which files state a result for the model being
//! run, which are left out and why, and the line that says how many were judged.
//!
//! A file drops out of judging only for a reason that is said: it states results for other
//! models only (a C11 test under the LKMM), or no `Result` line at all, or it could not be
//! checked. A `Result` line that names no model, or misspells an outcome, is an error
//! ([`expected::problems`]), and a run that judges nothing fails.

use hazmat_checker::report::expected;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The files left out of a judged run before it starts.
#[derive(Default)]
pub(crate) struct LeftOut {
    /// How many files were named.
    pub(crate) named: usize,
    /// The files that state results for other models only, by the models they name.
    others: BTreeMap<String, Vec<String>>,
}

/// Keeps in `files` those that state a result for `model`, or none for any model, or whose
/// `Result` lines are wrong (so that the error shows); a file that states results for other
/// models only is not run, since it may be written in another dialect.
pub(crate) fn select(files: &mut Vec<PathBuf>, model: &str) -> LeftOut {
    let mut left = LeftOut {
        named: files.len(),
        ..LeftOut::default()
    };
    files.retain(|f| match others_only(f, model) {
        None => true,
        Some(models) => {
            left.others
                .entry(models.join(", "))
                .or_default()
                .push(f.display().to_string());
            false
        }
    });
    left
}

/// The models `path` states results for, when it states some, none of them `model`, and
/// none of its lines is wrong; `None` otherwise (a file that cannot be read or parsed
/// included, so that its error shows).
fn others_only(path: &Path, model: &str) -> Option<Vec<String>> {
    let source = std::fs::read_to_string(path).ok()?;
    let test = hazmat_litmus::parse(&source).ok()?;
    if test.expectations.is_empty()
        || expected::expectation(&test, model).is_some()
        || !expected::problems(&test, &known_models(model)).is_empty()
    {
        return None;
    }
    let mut models: Vec<String> = Vec::new();
    for e in &test.expectations {
        let m = e.model.clone().unwrap_or_else(|| "lkmm".to_string());
        if !models.contains(&m) {
            models.push(m);
        }
    }
    Some(models)
}

/// The model names a `Result(NAME):` line may give: hazmat's models, and the one being run
/// (a cat model goes by its title).
pub(crate) fn known_models(model: &str) -> Vec<&str> {
    let mut known = hazmat_checker::MODELS.to_vec();
    if !known.contains(&model) {
        known.push(model);
    }
    known
}

/// The errors in `test`'s `Result` lines, rendered, if any.
pub(crate) fn problems(
    test: &hazmat_litmus::Test,
    model: &str,
    file: &str,
    source: &str,
) -> Option<String> {
    let problems = expected::problems(test, &known_models(model));
    if problems.is_empty() {
        return None;
    }
    let rendered: Vec<String> = problems
        .iter()
        .map(|p| p.render(file, source).trim_end().to_string())
        .collect();
    Some(rendered.join("\n"))
}

/// How a judged run went: the line that says how many files were judged under `model` and
/// why the others were not, and whether it judged none (which fails the run).
/// `judged` files were judged, `errors` could not be checked, and `unstated` stated no
/// `Result` line.
pub(crate) fn summary(
    left: &LeftOut,
    model: &str,
    judged: usize,
    errors: usize,
    unstated: usize,
) -> (String, bool) {
    let mut why = Vec::new();
    for (models, files) in &left.others {
        let hint = match models
            .split(", ")
            .find(|m| hazmat_checker::MODELS.contains(m))
        {
            Some(m) => format!("`--model {m}` judges them"),
            None => "`--model` or `--cat` chooses the model".to_string(),
        };
        why.push(format!(
            "{} state results for {models} only and were not run ({hint}; the first: {})",
            files.len(),
            files[0]
        ));
    }
    if unstated > 0 {
        why.push(format!(
            "{unstated} state no `Result` line (`Result: Never`, `Result({model}): Sometimes`)"
        ));
    }
    if errors > 0 {
        why.push(format!(
            "{errors} could not be checked or judged (see the errors)"
        ));
    }
    let mut line = format!(
        "hazmat: judged {judged} of {} file(s) under {model}",
        left.named
    );
    if !why.is_empty() {
        line.push_str("; ");
        line.push_str(&why.join("; "));
    }
    let nothing = judged == 0 && errors == 0;
    if nothing {
        line = line.replacen("hazmat: judged 0", "hazmat: error: judged 0", 1);
    }
    (line, nothing)
}
