//! `lock.cat`'s relations over the spinlock events: each lock read with its lock write,
//! each lock write with the unlock that ends its critical section, and the failed lock
//! attempts inside a critical section of the same lock.

use super::Sets;
use crate::exec::event::Event;
use crate::exec::execution::Execution;
use crate::exec::relation::{Relation, Width};

/// `lock.cat`'s `lk-rmw = ([LKR] ; po-loc ; [LKW]) \ (po ; po)`: each lock read with the
/// lock write right after it.
pub fn lk_rmw<W: Width>(x: &Execution<W>, sets: &Sets<W>) -> Relation<W> {
    let po_loc = x.po.inter(&x.loc());
    po_loc
        .restrict(&sets.lkr, &sets.lkw)
        .minus(&x.po.seq(&x.po))
}

/// `lock.cat`'s `critical = ([LKW] ; po-loc ; [UL]) \ (po-loc ; [LKW | UL] ; po-loc)`: each
/// lock write with the unlock that ends its critical section.
pub fn critical<W: Width>(x: &Execution<W>, sets: &Sets<W>) -> Relation<W> {
    let po_loc = x.po.inter(&x.loc());
    let between = po_loc
        .restrict_range(&(sets.lkw.clone() | sets.ul.clone()))
        .seq(&po_loc);
    po_loc.restrict(&sets.lkw, &sets.ul).minus(&between)
}

/// `lock.cat`'s `rfi-lf = ([LKW] ; po-loc ; [LF]) \ ([LKW] ; po-loc ; [UL] ; po-loc)`:
/// each failed lock attempt inside a critical section of the same lock, which reads from
/// that section's lock write.
pub fn rfi_lf<W: Width>(x: &Execution<W>, sets: &Sets<W>) -> Relation<W> {
    let po_loc = x.po.inter(&x.loc());
    let after_unlock = po_loc.restrict(&sets.lkw, &sets.ul).seq(&po_loc);
    po_loc.restrict(&sets.lkw, &sets.lf).minus(&after_unlock)
}

/// Whether `e` is a lock event of `lock.cat` (LKR, LKW, UL, LF, RL or RU).
pub fn is_lock_event(e: &Event) -> bool {
    e.tags.is_lock()
}
