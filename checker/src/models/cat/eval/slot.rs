//! Where a name's value lives: a global slot of the machine, a local of the running
//! function's frame, a value it captured, or a function of its recursive group; reading
//! and writing them, binding a pattern, and capturing a recursive group.

use super::value::{RecGroup, identical};
use super::{EvalError, Machine, Operands, Val, fail};
use crate::exec::relation::Width;
use crate::models::cat::ast::Span;
use crate::models::cat::compile::{Expr, FunCode, Pat, Slot};
use std::rc::Rc;
use std::sync::Arc;

/// The slots of a running function's frame: a few, most often.
pub(super) type Locals<W> = smallvec::SmallVec<[Val<W>; 8]>;

/// The local state of a running function or procedure.
pub(super) struct Frame<'v, W: Width> {
    pub(super) locals: Locals<W>,
    pub(super) captures: &'v [Val<W>],
    pub(super) group: Option<&'v Rc<RecGroup<W>>>,
}

impl<'a, W: Width> Machine<'a, W> {
    pub(super) fn group(
        &self,
        codes: &Arc<Vec<Arc<FunCode>>>,
        frame: &Frame<'_, W>,
    ) -> Rc<RecGroup<W>> {
        Rc::new(RecGroup {
            codes: codes.clone(),
            captures: codes
                .iter()
                .map(|c| c.captures.iter().map(|s| self.get(*s, frame)).collect())
                .collect(),
        })
    }

    pub(super) fn get(&self, slot: Slot, frame: &Frame<'_, W>) -> Val<W> {
        match slot {
            Slot::Global(i) => self.globals[i].clone(),
            Slot::Local(i) => frame.locals[i].clone(),
            Slot::Capture(i) => frame.captures[i].clone(),
            Slot::Sibling(k) => match frame.group {
                Some(g) => Val::RecFun(g.clone(), k),
                None => Val::Empty,
            },
        }
    }

    pub(super) fn set(&mut self, slot: Slot, v: Val<W>, frame: &mut Frame<'_, W>) {
        match slot {
            Slot::Global(i) => {
                // A value equal to the one the slot holds leaves the slot as it is, so
                // that what reads it sees it unchanged ([`Machine::step_top`]).
                let old = if identical(&self.globals[i], &v) {
                    v
                } else {
                    std::mem::replace(&mut self.globals[i], v)
                };
                self.recycle(old);
            }
            Slot::Local(i) => frame.locals[i] = v,
            Slot::Capture(_) | Slot::Sibling(_) => {}
        }
    }

    /// The bindings of a `let`: every expression evaluated, then every pattern bound (a
    /// name bound reads, in the others' expressions, the value from before the `let`).
    pub(super) fn bind_all(
        &mut self,
        bindings: &[(Pat, Expr)],
        frame: &mut Frame<'_, W>,
    ) -> Result<(), EvalError> {
        // One binding, the common case, without gathering its value first.
        if let [(p, e)] = bindings {
            let v = self.eval(e, frame)?;
            return self.bind(p, v, frame, Span::default());
        }
        let mut vals = Operands::with_capacity(bindings.len());
        for (_, e) in bindings {
            vals.push(self.eval(e, frame)?);
        }
        for ((p, _), v) in bindings.iter().zip(vals) {
            self.bind(p, v, frame, Span::default())?;
        }
        Ok(())
    }

    pub(super) fn bind(
        &mut self,
        p: &Pat,
        v: Val<W>,
        frame: &mut Frame<'_, W>,
        span: Span,
    ) -> Result<(), EvalError> {
        match p {
            Pat::One(None) => {}
            Pat::One(Some(slot)) => self.set(*slot, v, frame),
            Pat::Tuple(slots) => {
                let items: Operands<W> = match (&v, slots.len()) {
                    (Val::Tuple(t), _) => t.iter().cloned().collect(),
                    (_, 1) => Operands::from_iter([v.clone()]),
                    (_, 0) => Operands::new(),
                    _ => {
                        return fail(
                            format!("a tuple of {} was expected, not {}", slots.len(), v.kind()),
                            span,
                        );
                    }
                };
                if items.len() != slots.len() {
                    return fail(
                        format!(
                            "a tuple of {} was expected, not of {}",
                            slots.len(),
                            items.len()
                        ),
                        span,
                    );
                }
                for (s, x) in slots.iter().zip(items) {
                    if let Some(s) = s {
                        self.set(*s, x, frame);
                    }
                }
            }
        }
        Ok(())
    }
}
