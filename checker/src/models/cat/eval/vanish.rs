//! A top-level instruction that what the thread paths fix makes empty on every execution
//! ([`Machine::vanishes`]), passed over from the first run of these paths on, when its
//! evaluation could not fail: the empty value of the kind evaluation would give is bound
//! instead (a check of an empty value holds).
//!
//! Evaluation fails only on operands of the wrong kind, so an instruction is passed over
//! only when it is made of operators whose failures depend on their operands' kinds alone
//! (sets and relations combined, sequenced, closed, inverted, `domain` and `range`), over
//! names whose values this run has, of kinds that cannot fail them; anything else (a
//! function of the model, a set of values, a `match`) is evaluated as before, for its
//! errors.

use super::slot::Frame;
use super::{EvalError, Machine, Operands, Val};
use crate::exec::relation::{EventSet, Width};
use crate::models::cat::ast::{Op1, Op2, Span, Test};
use crate::models::cat::compile::{Builtin, Expr, Ins, Slot};

/// The kind of an empty value, as evaluation makes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The polymorphic `0`.
    Empty,
    /// A set of events.
    Set,
    /// A relation.
    Rel,
}

impl Kind {
    /// Whether a value of this kind is read as a relation without failing.
    fn is_rel(self) -> bool {
        matches!(self, Kind::Empty | Kind::Rel)
    }

    /// Whether a value of this kind is read as a set of events without failing.
    fn is_set(self) -> bool {
        matches!(self, Kind::Empty | Kind::Set)
    }
}

impl<'a, W: Width> Machine<'a, W> {
    /// Passes over the top-level instruction `ins`, which [`Machine::vanishes`] found
    /// empty on every execution of these paths, when its evaluation could not fail:
    /// `Some` with whether it passes (always, an empty value passing every check), once
    /// its names are bound to their empty values; `None` to evaluate it.
    pub(super) fn pass_vanished(
        &mut self,
        ins: &Ins,
        frame: &mut Frame<'_, W>,
    ) -> Result<Option<bool>, EvalError> {
        match ins {
            Ins::Let(bindings, None) => {
                let Some(kinds) = bindings
                    .iter()
                    .map(|(_, e)| self.empty_kind(e))
                    .collect::<Option<Operands<W>>>()
                else {
                    return Ok(None);
                };
                for ((p, _), v) in bindings.iter().zip(kinds) {
                    self.bind(p, v, frame, Span::default())?;
                }
                Ok(Some(true))
            }
            // The first round of the fixpoint, each value seeing those before it, gives
            // every name an empty value, as the round before it had: it is the last.
            Ins::LetRecValues(values, None, _, None) => {
                for (slot, _) in values {
                    self.set(*slot, Val::Empty, frame);
                }
                for (slot, e) in values {
                    let Some(v) = self.empty_kind(e) else {
                        return Ok(None);
                    };
                    self.set(*slot, v, frame);
                }
                Ok(Some(true))
            }
            Ins::Check { test, exp, .. } => {
                let Some(v) = self.empty_kind(exp) else {
                    return Ok(None);
                };
                let fits = match test {
                    Test::Empty => true,
                    _ => !matches!(v, Val::Set(_)),
                };
                if !fits {
                    return Ok(None);
                }
                self.passes_empty(ins).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// What instruction `ins` does when its value is empty: a check of it holds (and does
    /// what its role does with a check that holds); anything else passes.
    pub(super) fn passes_empty(&mut self, ins: &Ins) -> Result<bool, EvalError> {
        match ins {
            Ins::Check {
                role,
                negated,
                name,
                span,
                skipped,
                ..
            } => self.checked(*role, name, !*negated, *span, *skipped),
            _ => Ok(true),
        }
    }

    /// The empty value `e` evaluates to when it is empty (as [`Machine::vanishes`] found
    /// it) and its evaluation cannot fail; `None` when that cannot be told without
    /// evaluating it.
    fn empty_kind(&self, e: &Expr) -> Option<Val<W>> {
        Some(match self.kind(e)? {
            Kind::Empty => Val::Empty,
            Kind::Set => Val::Set(EventSet::EMPTY),
            Kind::Rel => Val::Rel(self.empty_rel.clone()),
        })
    }

    /// The kind of the value `e` evaluates to, when its evaluation cannot fail whatever
    /// its names' contents; `None` otherwise, or when it cannot be told from the kinds of
    /// its names' values alone.
    fn kind(&self, e: &Expr) -> Option<Kind> {
        Some(match e {
            Expr::Empty => Kind::Empty,
            Expr::Var(Slot::Global(g)) => match self.globals.get(*g)? {
                Val::Empty => Kind::Empty,
                Val::Set(_) => Kind::Set,
                Val::Rel(_) => Kind::Rel,
                _ => return None,
            },
            // Every operand is a relation, or a set under `[...]`: the value is a
            // relation (`Machine::seq`).
            Expr::Op(Op2::Seq, args, _) if !args.is_empty() => {
                let fits = args.iter().all(|a| match a {
                    Expr::Op1(Op1::ToId, s, _) => self.kind(s).is_some_and(Kind::is_set),
                    a => self.kind(a).is_some_and(Kind::is_rel),
                });
                if !fits {
                    return None;
                }
                Kind::Rel
            }
            // Operands all sets or all relations (`0` being either): `setop` cannot
            // fail on them. The value is `0` where `0` decides it, or the operands' kind.
            Expr::Op(op @ (Op2::Union | Op2::Inter | Op2::Diff), args, _) if !args.is_empty() => {
                let kinds = args
                    .iter()
                    .map(|a| self.kind(a))
                    .collect::<Option<Vec<Kind>>>()?;
                let sets = kinds.iter().all(|k| k.is_set());
                let rels = kinds.iter().all(|k| k.is_rel());
                if !sets && !rels {
                    return None;
                }
                let other = kinds.iter().copied().find(|k| *k != Kind::Empty);
                match op {
                    Op2::Union => other.unwrap_or(Kind::Empty),
                    Op2::Inter if kinds.contains(&Kind::Empty) => Kind::Empty,
                    Op2::Inter => kinds[0],
                    _ => kinds[0],
                }
            }
            Expr::Op(Op2::Cartesian, args, _) if args.len() == 2 => {
                if !args.iter().all(|a| self.kind(a).is_some_and(Kind::is_set)) {
                    return None;
                }
                Kind::Rel
            }
            Expr::Op1(Op1::ToId, a, _) if self.kind(a)?.is_set() => Kind::Rel,
            Expr::Op1(Op1::Plus | Op1::Star | Op1::Opt | Op1::Inv, a, _)
                if self.kind(a)?.is_rel() =>
            {
                Kind::Rel
            }
            Expr::App(f, a, _) => {
                let Expr::Var(Slot::Global(g)) = &**f else {
                    return None;
                };
                let domain = matches!(
                    self.globals.get(*g)?,
                    Val::Builtin(Builtin::Domain | Builtin::Range)
                );
                if !domain || !self.kind(a)?.is_rel() {
                    return None;
                }
                Kind::Set
            }
            _ => return None,
        })
    }
}
