//! The run of a model over one execution: its top-level instructions in order, and at
//! each `with x from S` the rest of the model once for each element of `S`.
//!
//! Each way through the choices that passes every check is a leaf, reported to the
//! run's callback with the flags it raised; a top-level instruction whose inputs are as
//! the run before it on the same thread paths left them is not evaluated again (see
//! `reuse`).

use super::slot::{Frame, Locals};
use super::{EvalError, Go, Leaf, Machine, Val, fail};
use crate::exec::relation::Width;
use crate::models::cat::compile::{Expr, Ins};
use std::rc::Rc;

/// What is called with each way through the model that passes every check.
type OnLeaf<'k, W> = dyn FnMut(&Leaf<'_, W>) -> Go + 'k;

impl<'a, W: Width> Machine<'a, W> {
    /// Runs the model, calling `leaf` for every way through its choices that passes every
    /// check.
    pub(crate) fn run(
        &mut self,
        leaf: &mut dyn FnMut(&Leaf<'_, W>) -> Go,
    ) -> Result<Go, EvalError> {
        let code = self.code;
        if self.dead.looked != self.dead.found_at {
            self.find_dead();
        }
        let mut frame = Frame {
            locals: Locals::new(),
            captures: &[],
            group: None,
        };
        self.instrs(&code.instrs, 0, &mut frame, &mut Some(leaf))
    }

    /// Runs `instrs` from `i`; with a leaf callback, `with` branches and the end of the list
    /// is a leaf; without, `with` is an error (inside procedures and loops).
    fn instrs(
        &mut self,
        instrs: &[Ins],
        mut i: usize,
        frame: &mut Frame<'_, W>,
        leaf: &mut Option<&mut OnLeaf<'_, W>>,
    ) -> Result<Go, EvalError> {
        while i < instrs.len() {
            match &instrs[i] {
                Ins::WithFrom(slot, set, span) => {
                    let Some(k) = leaf.as_deref_mut() else {
                        return fail("`with` is allowed only at the top of a model", *span);
                    };
                    let choices = if std::ptr::eq(instrs, &self.code.instrs[..]) {
                        self.choices_top(i, set, frame)?
                    } else {
                        self.eval(set, frame)?
                    };
                    let choices = match choices {
                        Val::Values(v) => v,
                        Val::Empty => Rc::new(Vec::new()),
                        v => return fail(format!("`with` needs a set, not {}", v.kind()), *span),
                    };
                    let flags = self.flags.len();
                    let skipped = self.skipped.len();
                    for c in choices.iter() {
                        self.set(*slot, c.clone(), frame);
                        let mut inner: Option<&mut OnLeaf<'_, W>> = Some(&mut *k);
                        let go = self.instrs(instrs, i + 1, frame, &mut inner)?;
                        self.flags.truncate(flags);
                        self.skipped.truncate(skipped);
                        if go == Go::Stop {
                            return Ok(Go::Stop);
                        }
                    }
                    return Ok(Go::On);
                }
                ins => {
                    let ok = if std::ptr::eq(instrs, &self.code.instrs[..]) {
                        if self.settled[i] || self.dead.ins[i] {
                            i += 1;
                            continue;
                        }
                        let ok = self.step_top(i, ins, frame)?;
                        if ok && self.settles(ins) {
                            self.settled[i] = true;
                        }
                        ok
                    } else {
                        self.step(ins, frame)?
                    };
                    if !ok {
                        return Ok(Go::On);
                    }
                }
            }
            i += 1;
        }
        match leaf {
            // Under `-strictskip true`, a way on which other skipped checks fail than those
            // named is dropped.
            Some(_) if !self.strictly_kept() => Ok(Go::On),
            Some(k) => Ok(k(&Leaf {
                flags: &self.flags,
                globals: &self.globals,
            })),
            None => Ok(Go::On),
        }
    }

    /// Runs the top-level instruction `i`, or only repeats what it did when the inputs it
    /// read last time ([`Code::inputs`]) are unchanged; `false` when a check fails.
    ///
    /// [`Code::inputs`]: crate::models::cat::compile::Code::inputs
    fn step_top(
        &mut self,
        i: usize,
        ins: &Ins,
        frame: &mut Frame<'_, W>,
    ) -> Result<bool, EvalError> {
        let code = self.code;
        let Some(Some(inputs)) = code.inputs.get(i) else {
            return self.step(ins, frame);
        };
        if let Some(m) = self.unchanged(i, inputs) {
            let holds = m.holds;
            return Ok(match ins {
                Ins::Check {
                    role,
                    name,
                    span,
                    skipped,
                    ..
                } => self.checked(*role, name, holds, *span, *skipped)?,
                _ => holds,
            });
        }
        match self.vanish.get(i).copied().flatten() {
            // Empty on every execution of these paths, as on the first, where it was
            // evaluated: an empty value passes every test.
            Some(true) => return self.passes_empty(ins),
            Some(false) => {
                if let Some(ok) = self.step_without_empty_terms(i, ins, frame)? {
                    self.remember(i, inputs, ok, None);
                    return Ok(ok);
                }
            }
            None => {
                let v = self.vanishes(ins);
                if let Some(f) = self.vanish.get_mut(i) {
                    *f = Some(v);
                    self.dead.looked += 1;
                }
                if v {
                    if let Some(ok) = self.pass_vanished(ins, frame)? {
                        return Ok(ok);
                    }
                } else {
                    self.find_empty_terms(i, ins);
                }
            }
        }
        let (ok, holds) = match ins {
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
                (self.checked(*role, name, holds, *span, *skipped)?, holds)
            }
            _ => {
                let ok = self.step(ins, frame)?;
                (ok, ok)
            }
        };
        self.remember(i, inputs, holds, None);
        Ok(ok)
    }

    /// The set the top-level `with` instruction `i` chooses from, `set`: the one it had
    /// last time when its inputs are unchanged.
    fn choices_top(
        &mut self,
        i: usize,
        set: &Expr,
        frame: &mut Frame<'_, W>,
    ) -> Result<Val<W>, EvalError> {
        let code = self.code;
        let Some(Some(inputs)) = code.inputs.get(i) else {
            return self.eval(set, frame);
        };
        if let Some(choices) = self.unchanged(i, inputs).and_then(|m| m.choices.clone()) {
            return Ok(choices);
        }
        let choices = self.eval(set, frame)?;
        self.remember(i, inputs, true, Some(choices.clone()));
        Ok(choices)
    }
}
