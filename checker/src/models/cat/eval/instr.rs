//! One instruction other than `with`: a binding, a check, a procedure's call, a loop, a
//! match on a tag, a declaration, a `show`.

use super::check::failed_include_message;
use super::slot::{Frame, Locals};
use super::value::ProcClosure;
use super::{EvalError, Machine, Val, fail};
use crate::exec::relation::Width;
use crate::models::cat::ast::{Span, Test};
use crate::models::cat::compile::{Calling, Expr, Ins};
use std::rc::Rc;

impl<'a, W: Width> Machine<'a, W> {
    /// Whether the test of a check holds on `exp`.
    pub(super) fn check_holds(
        &mut self,
        test: Test,
        negated: bool,
        exp: &Expr,
        span: Span,
        frame: &mut Frame<'_, W>,
    ) -> Result<bool, EvalError> {
        let v = self.eval(exp, frame)?;
        Ok(self.test(test, &v, span)? != negated)
    }

    /// Runs one instruction other than `with`; `false` when a check fails.
    pub(super) fn step(&mut self, ins: &Ins, frame: &mut Frame<'_, W>) -> Result<bool, EvalError> {
        match ins {
            Ins::Let(bindings, fixed) => {
                if let Some(slots) = fixed
                    && self.known(slots)
                {
                    return Ok(true);
                }
                self.bind_all(bindings, frame)?;
                if let Some(slots) = fixed {
                    self.keep(slots);
                }
            }
            Ins::LetRecFuns(codes, slots) => {
                let group = self.group(codes, frame);
                for (k, slot) in slots.iter().enumerate() {
                    self.set(*slot, Val::RecFun(group.clone(), k), frame);
                }
            }
            Ins::LetRecValues(values, when, span, fixed) => {
                if let Some(slots) = fixed
                    && self.known(slots)
                {
                    return Ok(true);
                }
                if !self.fixpoint(values, when.as_deref(), frame, *span)? {
                    return Ok(false);
                }
                if let Some(slots) = fixed {
                    self.keep(slots);
                }
            }
            Ins::Check {
                role,
                negated,
                test,
                exp,
                name,
                span,
                skipped,
            } => {
                let holds = self.check_holds(*test, *negated, exp, *span, frame)?;
                if !self.checked(*role, name, holds, *span, *skipped)? {
                    return Ok(false);
                }
            }
            Ins::WithFrom(_, _, span) => {
                return fail("`with` is allowed only at the top of a model", *span);
            }
            Ins::Call(f, arg, span, calling) => {
                let f = self.eval(f, frame)?;
                let arg = self.eval(arg, frame)?;
                let Val::Proc(p) = f else {
                    return fail(format!("`call` needs a procedure, not {}", f.kind()), *span);
                };
                let mut inner = Frame {
                    locals: Locals::from_elem(Val::Empty, p.code.frame),
                    captures: &p.captures,
                    group: None,
                };
                self.bind(&p.code.param, arg, &mut inner, *span)?;
                self.enter(&p.code.name, *span)?;
                let (flags, skipped) = (self.flags.len(), self.skipped.len());
                // A procedure's checks fail its caller's execution.
                let ok = self.body_passes(&p.code.body, &mut inner);
                self.depth -= 1;
                let ok = ok?;
                if let Calling::Judged(name) = calling {
                    // Run for whether it passes alone (herd7 goes on with the state it had
                    // before the call).
                    self.flags.truncate(flags);
                    self.skipped.truncate(skipped);
                    if !ok {
                        let Some(name) = name else {
                            return fail(
                                format!(
                                    "the call of `{}`, skipped under `strictskip true`, fails, \
                                     and has no `as` name to record (herd7 stops: \
                                     Fatal error: exception Invalid_argument(\"option is \
                                     None\"))",
                                    p.code.name
                                ),
                                *span,
                            );
                        };
                        self.record_skipped(name);
                    }
                } else if !ok {
                    return Ok(false);
                }
            }
            Ins::Procedure(slot, code) => {
                let captures = code.captures.iter().map(|s| self.get(*s, frame)).collect();
                self.set(
                    *slot,
                    Val::Proc(Rc::new(ProcClosure {
                        code: code.clone(),
                        captures,
                    })),
                    frame,
                );
            }
            Ins::Forall(slot, set, body, span) => {
                let set = self.eval(set, frame)?;
                let elems = self.elements(&set, *span)?;
                for e in elems {
                    self.set(*slot, e, frame);
                    if !self.body_passes(body, frame)? {
                        return Ok(false);
                    }
                }
            }
            Ins::Match(exp, clauses, default, span) => {
                let v = self.eval(exp, frame)?;
                let Val::Tag(t) = v else {
                    return fail(format!("`match` needs a tag, not {}", v.kind()), *span);
                };
                let body = match clauses.iter().find(|(c, _)| *c == t) {
                    Some((_, b)) => b,
                    None => match default {
                        Some(d) => d,
                        None => return fail(format!("no clause matches the tag '{t}"), *span),
                    },
                };
                if !self.body_passes(body, frame)? {
                    return Ok(false);
                }
            }
            Ins::Enum(slot, tags) => {
                let v = Val::Values(Rc::new(tags.iter().map(|t| Val::Tag(t.clone())).collect()));
                self.set(*slot, v, frame);
            }
            Ins::Fail(words, span) => {
                return Err(EvalError {
                    message: failed_include_message(words),
                    span: *span,
                    uncaught: true,
                });
            }
        }
        Ok(true)
    }

    /// Runs a nested body (a procedure's, a loop's, a match clause's); whether every check
    /// in it passes.
    fn body_passes(&mut self, body: &[Ins], frame: &mut Frame<'_, W>) -> Result<bool, EvalError> {
        for ins in body {
            if !self.step(ins, frame)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}
