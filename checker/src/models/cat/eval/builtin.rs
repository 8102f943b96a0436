//! herd7's built-in functions: `domain`, `range`, `fencerel`, `classes`, `classes-loc`
//! and `partition`, `linearisations`, `different-values` and `tag2events`.

use super::{EvalError, Machine, Val, fail};
use crate::exec::relation::{EventSet, Relation, Width};
use crate::models::cat::ast::Span;
use crate::models::cat::compile::Builtin;
use smallvec::SmallVec;
use std::rc::Rc;

/// The most orders `linearisations` may return.
const MAX_LINEARISATIONS: usize = 200_000;

impl<'a, W: Width> Machine<'a, W> {
    pub(super) fn builtin(
        &mut self,
        b: Builtin,
        arg: Val<W>,
        span: Span,
    ) -> Result<Val<W>, EvalError> {
        let n = self.world.n;
        let x = self.world.exec;
        Ok(match b {
            // herd7's domain and range of the universe are the universe.
            Builtin::Domain | Builtin::Range if matches!(arg, Val::Universe) => Val::Universe,
            Builtin::Domain => Val::Set(self.rel(&arg, span)?.domain()),
            Builtin::Range => Val::Set(self.rel(&arg, span)?.range()),
            Builtin::Fencerel => {
                let s = self.set_of(&arg, span)?;
                let po = &x.po;
                Val::Rel(Rc::new(po.restrict_range(&s).seq(po)))
            }
            Builtin::Classes => {
                let r = self.rel(&arg, span)?;
                let mut seen = EventSet::EMPTY;
                let mut classes = Vec::new();
                for e in 0..n {
                    if seen.contains(e) || !(r.domain().contains(e) || r.range().contains(e)) {
                        continue;
                    }
                    let mut class = r.successors(e);
                    class.insert(e);
                    seen.union_with(&class);
                    classes.push(Val::Set(class));
                }
                Val::Values(Rc::new(classes))
            }
            Builtin::ClassesLoc | Builtin::Partition => {
                let s = self.set_of(&arg, span)?;
                let mut classes: Vec<(Option<crate::exec::event::Loc>, EventSet<W>)> = Vec::new();
                for e in s.iter() {
                    let loc = x.events[e].loc;
                    match classes.iter_mut().find(|(l, _)| *l == loc) {
                        Some((_, c)) => c.insert(e),
                        None => classes.push((loc, EventSet::singleton(e))),
                    }
                }
                Val::Values(Rc::new(
                    classes.into_iter().map(|(_, c)| Val::Set(c)).collect(),
                ))
            }
            Builtin::Linearisations => {
                let Val::Tuple(t) = &arg else {
                    return fail("`linearisations` takes a set and a relation", span);
                };
                if t.len() != 2 {
                    return fail("`linearisations` takes a set and a relation", span);
                }
                let s = self.set_of(&t[0], span)?;
                let r = self.rel(&t[1], span)?;
                orders_or_fail(linearisations(&s, &r, n), span)?
            }
            Builtin::DifferentValues => {
                let r = self.rel(&arg, span)?;
                let mut related = r.domain();
                related.union_with(&r.range());
                related.inter_with(&self.world.both);
                if !related.is_empty() {
                    return fail(
                        "`different-values` relates a read-modify-write of the C11 dialect, \
                         one event that both reads and writes: hazmat does not give it \
                         herd7's value",
                        span,
                    );
                }
                let mut out = Relation::empty(n);
                for (a, b) in r.pairs() {
                    if x.events[a].value != x.events[b].value {
                        out.add(a, b);
                    }
                }
                Val::Rel(Rc::new(out))
            }
            Builtin::Tag2Events => match &arg {
                Val::Tag(t) => Val::Set((self.world.tag_events)(t)),
                v => return fail(format!("`tag2events` takes a tag, not {}", v.kind()), span),
            },
        })
    }
}

/// Every total order of the events of `s` that extends `r`'s transitive closure
/// restricted to `s`, as a relation (transitive, irreflexive); none when `r` has a cycle
/// through `s`.
///
/// # Complexity
/// As many steps as there are orders, up to `|s|!`.
fn linearisations<W: Width>(s: &EventSet<W>, r: &Relation<W>, n: usize) -> Option<Vec<Val<W>>> {
    linearisations_closed(s, &r.plus(), n)
}

/// [`linearisations`] of `s` and a relation whose transitive closure is `closed`: for
/// several sets and one relation, the closure made once.
pub(super) fn linearisations_closed<W: Width>(
    s: &EventSet<W>,
    closed: &Relation<W>,
    n: usize,
) -> Option<Vec<Val<W>>> {
    let elems: SmallVec<[usize; 8]> = s.iter().collect();
    // One element or none: one order, the empty one.
    if elems.len() <= 1 {
        return Some(vec![Val::Rel(Rc::new(Relation::empty(n)))]);
    }
    // The predecessors of each element within the set, by the relation's paths, those
    // through events outside the set included, as herd7 orders them.
    let preds: SmallVec<[EventSet<W>; 8]> = elems
        .iter()
        .map(|&e| {
            let mut p = closed.predecessors(e);
            p.inter_with(s);
            p
        })
        .collect();
    let mut out = Vec::new();
    let mut order = SmallVec::<[usize; 8]>::new();
    fn go<W: Width>(
        elems: &[usize],
        preds: &[EventSet<W>],
        n: usize,
        placed: &mut EventSet<W>,
        order: &mut SmallVec<[usize; 8]>,
        out: &mut Vec<Val<W>>,
    ) {
        if out.len() > MAX_LINEARISATIONS {
            return;
        }
        if order.len() == elems.len() {
            let mut rel = Relation::empty(n);
            let mut after = placed.clone();
            for &a in order.iter() {
                after.remove(a);
                rel.set_successors(a, after.clone());
            }
            out.push(Val::Rel(Rc::new(rel)));
            return;
        }
        for (k, &e) in elems.iter().enumerate() {
            // Every predecessor of `e` must be placed already.
            if placed.contains(e) || !preds[k].is_subset(placed) {
                continue;
            }
            placed.insert(e);
            order.push(e);
            go(elems, preds, n, placed, order, out);
            order.pop();
            placed.remove(e);
        }
    }
    let mut placed = EventSet::EMPTY;
    go(&elems, &preds, n, &mut placed, &mut order, &mut out);
    (out.len() <= MAX_LINEARISATIONS).then_some(out)
}

/// The orders [`linearisations`] found as a set, or the error of too many.
pub(super) fn orders_or_fail<W: Width>(
    orders: Option<Vec<Val<W>>>,
    span: Span,
) -> Result<Val<W>, EvalError> {
    match orders {
        Some(orders) => Ok(Val::Values(Rc::new(orders))),
        None => fail(
            format!("`linearisations` has more than {MAX_LINEARISATIONS} orders to return here"),
            span,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The orders of `{0, 2}` under `0 -> 1 -> 2`: the path through 1, outside the set,
    /// orders 0 before 2, as in herd7.
    #[test]
    fn linearisations_follow_paths_outside_the_set() {
        let s: EventSet = EventSet::from_fn(3, |e| e != 1);
        let r = Relation::from_pairs(3, [(0, 1), (1, 2)]);
        let orders = linearisations(&s, &r, 3).expect("few orders");
        assert_eq!(orders.len(), 1);
        let Val::Rel(o) = &orders[0] else {
            panic!("an order is a relation");
        };
        assert_eq!(**o, Relation::from_pairs(3, [(0, 2)]));
        let cycle = Relation::from_pairs(3, [(0, 1), (1, 2), (2, 0)]);
        assert_eq!(linearisations(&s, &cycle, 3).map(|o| o.len()), Some(0));
    }
}
