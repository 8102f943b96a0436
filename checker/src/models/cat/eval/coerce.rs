//! A value read as the kind an operation needs (a relation, a set of events, a pair of
//! events, the elements of a set), and sets taken apart and put together as `match`
//! and `{...}` do.

use super::value::dedup;
use super::{EvalError, Machine, Val, fail};
use crate::exec::relation::{EventSet, Relation, Width};
use crate::models::cat::ast::Span;
use std::rc::Rc;

/// A set split into one element and the others.
type Split<W> = (Val<W>, Val<W>);

impl<'a, W: Width> Machine<'a, W> {
    pub(super) fn rel(&self, v: &Val<W>, span: Span) -> Result<Rc<Relation<W>>, EvalError> {
        match v {
            Val::Rel(r) => Ok(r.clone()),
            Val::Empty => Ok(self.empty_rel.clone()),
            Val::Universe => {
                let all = EventSet::full(self.world.n);
                Ok(Rc::new(Relation::cartesian(self.world.n, &all, &all)))
            }
            Val::Values(vs) => {
                // A set of pairs is a relation.
                let mut r = Relation::empty(self.world.n);
                for p in vs.iter() {
                    let (a, b) = self.pair(p, span)?;
                    r.add(a, b);
                }
                Ok(Rc::new(r))
            }
            _ => fail(format!("a relation was expected, not {}", v.kind()), span),
        }
    }

    pub(super) fn set_of(&self, v: &Val<W>, span: Span) -> Result<EventSet<W>, EvalError> {
        match v {
            Val::Set(s) => Ok(s.clone()),
            Val::Empty => Ok(EventSet::EMPTY),
            Val::Universe => Ok(EventSet::full(self.world.n)),
            Val::Event(e) => Ok(EventSet::singleton(*e)),
            Val::Values(vs) => {
                let mut s = EventSet::EMPTY;
                for x in vs.iter() {
                    match x {
                        Val::Event(e) => s.insert(*e),
                        _ => {
                            return fail(
                                format!(
                                    "a set of events was expected, not a set holding {}",
                                    x.kind()
                                ),
                                span,
                            );
                        }
                    }
                }
                Ok(s)
            }
            _ => fail(
                format!("a set of events was expected, not {}", v.kind()),
                span,
            ),
        }
    }

    pub(super) fn pair(&self, v: &Val<W>, span: Span) -> Result<(usize, usize), EvalError> {
        match v {
            Val::Tuple(t) if t.len() == 2 => match (&t[0], &t[1]) {
                (Val::Event(a), Val::Event(b)) => Ok((*a, *b)),
                _ => fail("a pair of events was expected", span),
            },
            _ => fail(
                format!("a pair of events was expected, not {}", v.kind()),
                span,
            ),
        }
    }

    /// The elements of a set: events of a set of events, pairs of a relation, values of a
    /// set of values.
    pub(super) fn elements(&self, v: &Val<W>, span: Span) -> Result<Vec<Val<W>>, EvalError> {
        Ok(match v {
            Val::Empty => Vec::new(),
            Val::Set(s) => s.iter().map(Val::Event).collect(),
            Val::Rel(r) => r
                .pairs()
                .map(|(a, b)| Val::Tuple(Rc::new(vec![Val::Event(a), Val::Event(b)])))
                .collect(),
            Val::Values(vs) => vs.to_vec(),
            _ => return fail(format!("a set was expected, not {}", v.kind()), span),
        })
    }

    /// The set `v` without its element `x` (as `match ... x ++ rest` needs it).
    fn without(&self, v: &Val<W>, x: &Val<W>) -> Val<W> {
        let n = self.world.n;
        match (v, x) {
            (Val::Set(s), Val::Event(e)) => {
                let mut s = s.clone();
                s.remove(*e);
                Val::Set(s)
            }
            (Val::Rel(r), Val::Tuple(t)) => match (&t[0], &t[1]) {
                (Val::Event(a), Val::Event(b)) => {
                    let mut r = (**r).clone();
                    r.remove(*a, *b);
                    Val::Rel(Rc::new(r))
                }
                _ => v.clone(),
            },
            (Val::Values(vs), _) => Val::Values(Rc::new(
                vs.iter().filter(|y| !y.same(x, n)).cloned().collect(),
            )),
            _ => Val::Empty,
        }
    }

    /// A set split into one element and the others, as `match ... x ++ rest` takes it;
    /// `None` when it is empty.
    pub(super) fn split(&self, v: &Val<W>, span: Span) -> Result<Option<Split<W>>, EvalError> {
        let first = match v {
            Val::Empty => None,
            Val::Set(s) => s.first().map(Val::Event),
            Val::Rel(r) => r
                .pairs()
                .next()
                .map(|(a, b)| Val::Tuple(Rc::new(vec![Val::Event(a), Val::Event(b)]))),
            Val::Values(vs) => vs.first().cloned(),
            _ => return fail(format!("a set was expected, not {}", v.kind()), span),
        };
        Ok(first.map(|x| {
            let rest = match v {
                Val::Values(vs) => Val::Values(Rc::new(vs[1..].to_vec())),
                _ => self.without(v, &x),
            };
            (x, rest)
        }))
    }

    pub(super) fn explicit_set(&self, vals: Vec<Val<W>>, span: Span) -> Result<Val<W>, EvalError> {
        if vals.is_empty() {
            return Ok(Val::Empty);
        }
        if vals.iter().all(|v| matches!(v, Val::Event(_))) {
            let mut s = EventSet::EMPTY;
            for v in &vals {
                if let Val::Event(e) = v {
                    s.insert(*e);
                }
            }
            return Ok(Val::Set(s));
        }
        let _ = span;
        Ok(Val::Values(Rc::new(dedup(vals, self.world.n))))
    }
}
