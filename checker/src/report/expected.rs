//! Judging: comparing an outcome with the expectation the test file states.
//!
//! The kernel's convention: a `Result:` line in a comment states what the Linux-kernel
//! model gives (`Never`, `Sometimes`, `Always`, or `DEADLOCK`, which means `Never` with no
//! state at all), optionally with `DATARACE`, which must match the `data-race` flag both
//! ways.
//! hazmat adds `Result(sc):` and `Result(tso):` (any model name) in the same comment; a
//! file without a line for the model being run is not judged under it.
//! A line that names no model, or an outcome misspelt (`never`), would make a file drop
//! out of judging without a word, or be judged against a flag no model raises:
//! [`problems`] finds them, and judging refuses such a file.

use crate::engine::outcome::Outcome;
use hazmat_litmus::ast::{Expectation, Outcome as Expected, Span, Test};
use hazmat_litmus::diagnostic::{self, Severity, closest, did_you_mean};

/// The expectation `test` states for `model`, if any.
pub fn expectation<'t>(test: &'t Test, model: &str) -> Option<&'t Expectation> {
    if model == "lkmm" {
        test.expectation(None)
            .or_else(|| test.expectation(Some("lkmm")))
    } else {
        test.expectation(Some(model))
    }
}

/// The expectation as a short text: `Never DATARACE`.
pub fn expectation_text(e: &Expectation) -> String {
    let mut words: Vec<&str> = e.outcome.map(|o| o.as_str()).into_iter().collect();
    words.extend(e.flags.iter().map(String::as_str));
    words.join(" ")
}

/// Compares `outcome` with `expected`; `Err` says how they differ.
pub fn judge(expected: &Expectation, outcome: &Outcome) -> Result<(), String> {
    let mut problems = Vec::new();
    if let Some(why) = &outcome.unknown {
        problems.push(format!("undecided ({why})"));
    } else {
        let verdict = outcome.verdict();
        let deadlock = expected.outcome == Some(Expected::Deadlock);
        if deadlock && !outcome.states.is_empty() {
            problems.push(format!(
                "expected DEADLOCK (no execution), got {} with {} states",
                verdict.as_str(),
                outcome.states.len()
            ));
        }
        if let Some(e) = expected.outcome
            && !deadlock
            && e.as_str() != verdict.as_str()
        {
            problems.push(format!("expected {}, got {}", e.as_str(), verdict.as_str()));
        }
    }
    // The LKMM flags a data race; C11's models make the behaviour undefined.
    let race = outcome.flagged("data-race") || outcome.flagged(crate::models::model::UNDEFINED);
    if expected.data_race() && !race {
        problems.push("expected DATARACE, but no data race is flagged".into());
    }
    if !expected.data_race() && race {
        problems.push("a data race is flagged but the file does not expect DATARACE".into());
    }
    for f in expected.flags.iter().filter(|f| f.as_str() != "DATARACE") {
        if !outcome.flagged(f) {
            problems.push(format!("expected flag {f}, which is not raised"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

/// A mistake in a `Result` line that would make judging silently skip the file or judge it
/// against a flag no model raises.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// What is wrong, starting lowercase.
    pub message: String,
    /// The `Result...` line.
    pub span: Span,
}

impl Problem {
    /// The problem as `file:line:col: error: message` with the line and a caret under it.
    pub fn render(&self, file: &str, source: &str) -> String {
        diagnostic::render(file, source, self.span, Severity::Error, &self.message, &[])
    }
}

/// The words of a `Result` line's outcome.
const OUTCOMES: [&str; 4] = ["Never", "Sometimes", "Always", "DEADLOCK"];

/// The mistakes in `test`'s `Result` lines, given the names of the `models` that exist: a
/// `Result(NAME):` line whose NAME is none of them, and a word that is probably an outcome
/// or `DATARACE` misspelt (`never`, `Sometime`, `datarace`).
pub fn problems(test: &Test, models: &[&str]) -> Vec<Problem> {
    let mut out = Vec::new();
    for e in &test.expectations {
        let problem = |message: String| Problem {
            message,
            span: e.span,
        };
        if let Some(name) = &e.model
            && !models.contains(&name.as_str())
        {
            let hint = match models.iter().find(|m| m.eq_ignore_ascii_case(name)) {
                Some(m) => Some(format!("did you mean `{m}`? model names are lower case")),
                None => did_you_mean(&closest(name, models.iter().copied(), 3)),
            };
            out.push(problem(format!(
                "`Result({name}):` names no model, so no run judges this line; {}",
                hint.unwrap_or_else(|| format!("the models are {}", models.join(", ")))
            )));
        }
        for word in &e.flags {
            let near = OUTCOMES
                .iter()
                .chain(["DATARACE"].iter())
                .find(|o| o.eq_ignore_ascii_case(word))
                .map(|o| vec![*o])
                .or_else(|| {
                    let near = closest(word, OUTCOMES, 1);
                    (e.outcome.is_none() && !near.is_empty()).then_some(near)
                });
            if let Some(near) = near
                && near.first() != Some(&word.as_str())
            {
                out.push(problem(format!(
                    "`{word}` is no outcome, and would be judged as a flag the test must raise; \
                     {}",
                    did_you_mean(&near).unwrap_or_default()
                )));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems_of(lines: &str) -> Vec<String> {
        let source = format!("C t\n(*\n{lines}\n*)\n{{}}\nP0(int *x) {{ WRITE_ONCE(*x, 1); }}\n");
        let test = hazmat_litmus::parse(&source).expect("parses");
        problems(&test, crate::MODELS)
            .into_iter()
            .map(|p| p.message)
            .collect()
    }

    #[test]
    fn result_lines_that_no_run_would_judge_rightly() {
        assert!(problems_of("Result: Never\nResult(sc): Sometimes DATARACE").is_empty());
        assert!(problems_of("Result: Flag srcu-bad-nesting").is_empty());
        assert_eq!(
            problems_of("Result(RC11): Never"),
            [
                "`Result(RC11):` names no model, so no run judges this line; did you mean `rc11`? \
              model names are lower case"
            ]
        );
        assert_eq!(
            problems_of("Result(x86): Never"),
            [
                "`Result(x86):` names no model, so no run judges this line; the models are lkmm, \
              sc, tso, rc11"
            ]
        );
        assert_eq!(
            problems_of("Result: never"),
            [
                "`never` is no outcome, and would be judged as a flag the test must raise; did you \
              mean `Never`?"
            ]
        );
        assert_eq!(problems_of("Result: Sometime").len(), 1);
        assert_eq!(problems_of("Result: Never datarace").len(), 1);
    }
}
