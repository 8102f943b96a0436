//! Judging: comparing an outcome with the expectation the test file states.
//!
//! The kernel's convention: a `Result:` line in a comment states what the Linux-kernel
//! model gives (`Never`, `Sometimes`, `Always`, or `DEADLOCK`, which means `Never` with no
//! state at all), optionally with `DATARACE`, which must match the `data-race` flag both
//! ways.
//! hazmat adds `Result(sc):` and `Result(tso):` (any model name) in the same comment; a
//! file without a line for the model being run is not judged under it.

use crate::engine::outcome::Outcome;
use hazmat_litmus::ast::{Expectation, Outcome as Expected, Test};

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
