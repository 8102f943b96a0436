//! What a check decides: its test (`empty`, `acyclic`, `irreflexive`) on a value, and what
//! its outcome does by its role: a failed `check` fails the execution, a failed
//! `assert` stops the test as in herd7, a `flag` raises a flag, an `undefined_unless`
//! marks the execution undefined; a check skipped under herd7's `-strictskip true` has its
//! name recorded instead when it fails.

use super::value::is_empty;
use super::{EvalError, Machine, Val, fail};
use crate::exec::relation::Width;
use crate::models::cat::ast::{Role, Span, Test};
use std::sync::Arc;

/// The message of a failing `assert` named `name`, which stops the test as in herd7.
fn failed_assertion_message(name: &str) -> String {
    format!(
        "the assertion `{name}` fails on an execution of the test (herd7 stops with \
         \"assertion failed, check input test\")"
    )
}

/// The name of the assertion whose failure an error message reports, if it reports one:
/// for herd7's wording of it, `NAME assertion failed, check input test.`
pub fn failed_assertion(message: &str) -> Option<&str> {
    let (_, rest) = message.split_once("the assertion `")?;
    let (name, rest) = rest.split_once('`')?;
    rest.starts_with(" fails on an execution of the test (herd7 stops with")
        .then_some(name)
}

/// The message of a run that reaches an `include` whose file cannot be found or parsed,
/// with herd7's `words` for it.
pub(super) fn failed_include_message(words: &str) -> String {
    format!("the included file cannot be loaded, and herd7 stops the test here with: {words}")
}

/// herd7's words for the failed `include` an error message reports, if it reports one:
/// herd7 prints them alone on stderr for each test that reaches it.
pub fn failed_include(message: &str) -> Option<&str> {
    let (_, rest) = message
        .split_once("the included file cannot be loaded, and herd7 stops the test here with: ")?;
    rest.lines().next()
}

impl<'a, W: Width> Machine<'a, W> {
    /// What a check whose test `holds` does: `false` when it fails the execution; a flag
    /// raised when it is one. A check `skipped` under `-strictskip true` that fails has
    /// its name recorded, and does nothing else (herd7's `exec_test`); one that holds does
    /// what it does unskipped (a flag is raised).
    pub(super) fn checked(
        &mut self,
        role: Role,
        name: &Option<Arc<str>>,
        holds: bool,
        span: Span,
        skipped: bool,
    ) -> Result<bool, EvalError> {
        if skipped && !holds {
            if let Some(name) = name {
                self.record_skipped(name);
            }
            return Ok(true);
        }
        Ok(match role {
            Role::Check => holds,
            // herd7 gives up on the test: "NAME assertion failed, check input test."
            Role::Assert => {
                if !holds {
                    return fail(
                        failed_assertion_message(name.as_deref().unwrap_or("assert")),
                        span,
                    );
                }
                true
            }
            Role::Flag => {
                if holds {
                    let name = name.clone().unwrap_or_else(|| Arc::from("flag"));
                    if !self.flags.contains(&name) {
                        self.flags.push(name);
                    }
                }
                true
            }
            Role::UndefinedUnless => {
                if !holds {
                    let name: Arc<str> = Arc::from(crate::models::model::UNDEFINED);
                    if !self.flags.contains(&name) {
                        self.flags.push(name);
                    }
                }
                true
            }
        })
    }

    /// Records that the skipped check `name` failed (`-strictskip true`).
    pub(super) fn record_skipped(&mut self, name: &Arc<str>) {
        if !self.skipped.contains(name) {
            self.skipped.push(name.clone());
        }
    }

    /// Whether the way through the model now ending is kept: always, but under
    /// `-strictskip true`, where only when the skipped checks that failed on it are
    /// exactly those named (herd7 compares the two sets).
    pub(super) fn strictly_kept(&self) -> bool {
        match &self.code.strict {
            None => true,
            Some(names) => {
                names.len() == self.skipped.len() && names.iter().all(|n| self.skipped.contains(n))
            }
        }
    }

    pub(super) fn test(&self, test: Test, v: &Val<W>, span: Span) -> Result<bool, EvalError> {
        let n = self.world.n;
        Ok(match test {
            Test::Empty => match v {
                Val::Empty | Val::Set(_) | Val::Rel(_) | Val::Values(_) => is_empty(v, n),
                Val::Universe => n == 0,
                _ => {
                    return fail(
                        format!("`empty` needs a set or a relation, not {}", v.kind()),
                        span,
                    );
                }
            },
            Test::Acyclic => self.rel(v, span)?.is_acyclic(),
            Test::Irreflexive => self.rel(v, span)?.is_irreflexive(),
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_failed_assertion_is_told_by_its_message() {
        let m = format!(
            "the model cannot run: x.cat:3:1: error: {}",
            super::failed_assertion_message("nopo")
        );
        assert_eq!(super::failed_assertion(&m), Some("nopo"));
        assert_eq!(
            super::failed_assertion("the assertion `x` is mentioned"),
            None
        );
    }
}
