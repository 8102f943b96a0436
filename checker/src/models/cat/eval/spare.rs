//! Relations recycled: an operation computes into a relation that nothing else holds
//! (a spare one, or its operand when the machine holds it alone) instead of allocating
//! a new one.

use super::{Machine, Val};
use crate::exec::relation::{Relation, Width};
use std::rc::Rc;

impl<'a, W: Width> Machine<'a, W> {
    /// A relation over the execution's events to compute into, that nothing else holds:
    /// a spare one, or a new one. Its pairs are whatever they were.
    pub(super) fn scratch(&mut self) -> Rc<Relation<W>> {
        self.spare
            .pop()
            .unwrap_or_else(|| Rc::new(Relation::empty(self.world.n)))
    }

    /// Takes back a value the machine no longer holds: a relation that nothing else
    /// holds becomes spare.
    pub(super) fn recycle(&mut self, v: Val<W>) {
        if let Val::Rel(r) = v {
            self.recycle_rel(r);
        }
    }

    pub(super) fn recycle_rel(&mut self, r: Rc<Relation<W>>) {
        /// Enough for the temporaries of one binding.
        const MAX_SPARE: usize = 64;
        if Rc::strong_count(&r) == 1
            && Rc::weak_count(&r) == 0
            && r.size() == self.world.n
            && self.spare.len() < MAX_SPARE
        {
            self.spare.push(r);
        }
    }

    /// `r`, to change in place: itself when nothing else holds it, else a copy of it in
    /// a scratch relation.
    pub(super) fn owned(&mut self, r: Rc<Relation<W>>) -> Rc<Relation<W>> {
        if Rc::strong_count(&r) == 1 && Rc::weak_count(&r) == 0 {
            return r;
        }
        let mut out = self.scratch();
        Rc::make_mut(&mut out).copy_from(&r);
        out
    }
}
