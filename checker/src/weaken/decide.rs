//! Deciding one variant: the question a search asks of it, answered by the engine.
//!
//! Every search asks the same kind of question: does the variant's outcome still hold —
//! no execution reaches the condition (a `Never` kept, or an outcome forbidden by a
//! strengthening), every execution does (an `Always`), or some execution does (a
//! `Sometimes`)? Only the verdict matters, so the engine runs a speed check towards the
//! one execution that would change it (`Options::speedcheck`), with the condition's
//! quantifier set to the one whose speed check looks for that execution.
//! A flag the test does not raise (a data race) breaks an outcome too: where one may appear
//! (a plain access, or a model given by its files, whose flags hazmat cannot foresee),
//! a variant whose verdict holds is decided once more in full, for its flags.

use super::WeakenError;
use crate::engine::enumerate::Limits;
use crate::engine::outcome::{Options, Outcome, Verdict};
use crate::exec::event::Tag;
use crate::front::defs::Macros;
use crate::front::program::{Instr, Op, Program, Quantifier};
use crate::models::model::MemoryModel;
use crate::models::optace::OptAce;
use std::time::{Duration, Instant};

/// What runs the variants.
#[derive(Clone, Copy)]
pub struct Judge<'a> {
    /// The model.
    pub model: &'a dyn MemoryModel,
    /// A user's macros, in place of the kernel's.
    pub macros: Option<&'a Macros>,
    /// How long one variant may take.
    pub timeout: Option<Duration>,
    /// Whether the model is one of hazmat's native models, whose only flag an ordering
    /// can change is the data race of a plain access.
    pub native: bool,
    /// How herd7 builds the candidates (its `-optace`).
    pub optace: OptAce,
}

/// What a search asks of a variant: does its speed check under `quantifier` give
/// `verdict`?
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Question {
    /// The quantifier the condition is asked with.
    pub quantifier: Quantifier,
    /// The verdict that means the outcome holds.
    pub verdict: Verdict,
    /// Whether a new flag breaks the outcome.
    pub flags_matter: bool,
}

impl Question {
    /// Keep the verdict `v` of a test with condition `quantifier`.
    pub fn keep(v: Verdict, quantifier: Quantifier) -> Question {
        let quantifier = match v {
            Verdict::Never => Quantifier::Exists,
            Verdict::Always => Quantifier::Forall,
            Verdict::Sometimes => quantifier,
        };
        Question {
            quantifier,
            verdict: v,
            flags_matter: v != Verdict::Sometimes,
        }
    }

    /// Forbid the outcome a `Sometimes` test with condition `quantifier` reaches.
    pub fn forbid(quantifier: Quantifier) -> Question {
        match quantifier {
            Quantifier::Forall => Question {
                quantifier,
                verdict: Verdict::Always,
                flags_matter: true,
            },
            _ => Question {
                quantifier: Quantifier::Exists,
                verdict: Verdict::Never,
                flags_matter: true,
            },
        }
    }
}

/// The answer for one variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fate {
    /// The outcome holds.
    Holds,
    /// The outcome is lost: the verdict changed, or (`flag`) a flag the test does not
    /// raise is raised.
    Lost {
        /// The new flag, when the verdict held.
        flag: Option<&'static str>,
    },
}

impl Fate {
    /// Whether the outcome holds.
    pub fn holds(&self) -> bool {
        *self == Fate::Holds
    }
}

impl Judge<'_> {
    fn limits(&self) -> Limits {
        Limits {
            deadline: self.timeout.map(|t| Instant::now() + t),
            optace: self.optace,
            ..Default::default()
        }
    }

    /// The variant's text parsed and lowered; `what` names it in errors.
    pub fn lower(&self, text: &str, what: &str) -> Result<Program, WeakenError> {
        let broken = |message: String| WeakenError::Variant {
            variant: what.to_string(),
            message,
        };
        let test = hazmat_litmus::parse(text).map_err(|e| broken(e.message))?;
        let dialect = self.model.dialect();
        let reading = crate::model_reading(self.model);
        crate::front::lower::lower_with_variant(&test, dialect, self.macros, reading)
            .map(|(p, _)| p)
            .map_err(|e| broken(e.message))
    }

    /// The whole outcome of a variant (no speed check).
    pub fn full(&self, program: &Program, what: &str) -> Result<Outcome, WeakenError> {
        let options = Options {
            limits: self.limits(),
            ..Default::default()
        };
        let outcome = crate::engine::decide::run(program, self.model, &options).map_err(|e| {
            WeakenError::Variant {
                variant: what.to_string(),
                message: e.message,
            }
        })?;
        match &outcome.unknown {
            Some(why) => Err(WeakenError::Undecided {
                variant: what.to_string(),
                why: why.clone(),
            }),
            None => Ok(outcome),
        }
    }

    /// Asks `question` of the variant `text`, whose test raises `flags`.
    pub fn ask(
        &self,
        text: &str,
        what: &str,
        question: &Question,
        flags: &[&'static str],
    ) -> Result<Fate, WeakenError> {
        let mut program = self.lower(text, what)?;
        program.condition.quantifier = question.quantifier;
        let options = Options {
            limits: self.limits(),
            speedcheck: true,
            ..Default::default()
        };
        let outcome = crate::engine::decide::run(&program, self.model, &options).map_err(|e| {
            WeakenError::Variant {
                variant: what.to_string(),
                message: e.message,
            }
        })?;
        if let Some(why) = outcome.unknown {
            return Err(WeakenError::Undecided {
                variant: what.to_string(),
                why,
            });
        }
        if outcome.verdict() != question.verdict {
            return Ok(Fate::Lost { flag: None });
        }
        if question.flags_matter && (!self.native || has_plain_access(&program)) {
            let full = self.full(&program, what)?;
            if let Some(f) = full.flags.iter().find(|f| !flags.contains(f)) {
                return Ok(Fate::Lost { flag: Some(f) });
            }
        }
        Ok(Fate::Holds)
    }

    /// The witness of a variant whose outcome `question` lost: `hazmat explain`'s text
    /// for the execution that reaches the condition (for a kept `Always` or a forbidden
    /// `forall` outcome, one that fails it).
    pub fn witness(
        &self,
        text: &str,
        what: &str,
        question: &Question,
    ) -> Result<String, WeakenError> {
        let mut program = self.lower(text, what)?;
        program.condition.quantifier = question.quantifier;
        crate::report::explain::explained(&program, self.model, None, &self.limits())
            .map(|e| e.text)
            .map_err(|e| WeakenError::Variant {
                variant: what.to_string(),
                message: e.message,
            })
    }
}

/// Whether `program` has a plain access (a load or store with no marking), which may race.
pub fn has_plain_access(program: &Program) -> bool {
    fn plain(code: &[Instr]) -> bool {
        code.iter().any(|i| match &i.op {
            Op::Load { tags, .. } | Op::Store { tags, .. } => !marked(*tags),
            Op::If { then, els, .. } => plain(then) || plain(els),
            _ => false,
        })
    }
    // The lower-case annotations are the older models' spelling, which the native
    // model's bell does not read: plain to it.
    fn marked(tags: crate::exec::event::Tags) -> bool {
        tags.iter()
            .any(|t| !matches!(t, Tag::Init | Tag::Rmw | Tag::Noreturn) && t.current() == t)
    }
    program.threads.iter().any(|t| plain(&t.code))
}
