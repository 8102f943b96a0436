//! The operators of sets and relations on values: complement, identity on a set,
//! closures, inverse, product, `++`, union, intersection and difference, each
//! computing into a spare relation where it can.

use super::value::dedup;
use super::{EvalError, Machine, Operands, Val, fail};
use crate::exec::relation::{EventSet, Relation, Width};
use crate::models::cat::ast::{Op1, Op2, Span};
use std::rc::Rc;

impl<'a, W: Width> Machine<'a, W> {
    pub(super) fn op1(&mut self, op: Op1, a: Val<W>, span: Span) -> Result<Val<W>, EvalError> {
        let n = self.world.n;
        Ok(match op {
            Op1::Comp => match a {
                Val::Set(s) => Val::Set(EventSet::full(n).minus(s)),
                // herd7's complement of `0` is its universe, and the universe's `0`.
                Val::Empty => Val::Universe,
                Val::Universe => Val::Empty,
                Val::Rel(r) => {
                    let full = Relation::cartesian(n, &EventSet::full(n), &EventSet::full(n));
                    Val::Rel(Rc::new(full.minus(&r)))
                }
                v => {
                    return fail(
                        format!("`~` needs a set or a relation, not {}", v.kind()),
                        span,
                    );
                }
            },
            Op1::ToId => {
                let s = self.set_of(&a, span)?;
                Val::Rel(Rc::new(Relation::id_on(n, &s)))
            }
            // The universe is its own closures and inverse, as in herd7.
            Op1::Plus | Op1::Star | Op1::Opt | Op1::Inv if matches!(a, Val::Universe) => {
                Val::Universe
            }
            Op1::Plus | Op1::Star | Op1::Opt | Op1::Inv => {
                let r = self.rel(&a, span)?;
                if r.is_empty() {
                    return Ok(Val::Rel(match op {
                        Op1::Star | Op1::Opt => self.id_rel.clone(),
                        _ => r,
                    }));
                }
                drop(a);
                Val::Rel(if op == Op1::Inv {
                    let mut out = self.scratch();
                    r.inverse_into(Rc::make_mut(&mut out));
                    self.recycle_rel(r);
                    out
                } else {
                    let mut out = self.owned(r);
                    let m = Rc::make_mut(&mut out);
                    if op != Op1::Opt {
                        m.close_transitively();
                    }
                    if op != Op1::Plus {
                        m.add_identity();
                    }
                    out
                })
            }
        })
    }

    pub(super) fn op(
        &mut self,
        op: Op2,
        vals: Operands<W>,
        span: Span,
    ) -> Result<Val<W>, EvalError> {
        let n = self.world.n;
        let mut it = vals.into_iter();
        let Some(first) = it.next() else {
            return Ok(Val::Empty);
        };
        match op {
            Op2::Seq => {
                let mut acc = self.rel(&first, span)?;
                for v in it {
                    let next = self.rel(&v, span)?;
                    acc = Rc::new(acc.seq(&next));
                }
                Ok(Val::Rel(acc))
            }
            Op2::Cartesian => {
                let a = self.set_of(&first, span)?;
                let b = match it.next() {
                    Some(b) => self.set_of(&b, span)?,
                    None => return fail("`*` needs two sets", span),
                };
                Ok(Val::Rel(Rc::new(Relation::cartesian(n, &a, &b))))
            }
            Op2::Add => {
                let Some(set) = it.next() else {
                    return fail("`++` needs an element and a set", span);
                };
                Ok(match (first, set) {
                    (Val::Event(e), Val::Set(s)) => {
                        let mut s = s;
                        s.insert(e);
                        Val::Set(s)
                    }
                    (Val::Event(e), Val::Empty) => Val::Set(EventSet::singleton(e)),
                    (Val::Tuple(t), Val::Rel(r)) if t.len() == 2 => {
                        let (a, b) = self.pair(&Val::Tuple(t), span)?;
                        let mut r = (*r).clone();
                        r.add(a, b);
                        Val::Rel(Rc::new(r))
                    }
                    (Val::Tuple(t), Val::Empty)
                        if t.len() == 2
                            && matches!((&t[0], &t[1]), (Val::Event(_), Val::Event(_))) =>
                    {
                        let (a, b) = self.pair(&Val::Tuple(t), span)?;
                        let mut r = Relation::empty(n);
                        r.add(a, b);
                        Val::Rel(Rc::new(r))
                    }
                    (x, Val::Values(vs)) => {
                        if vs.iter().any(|y| y.same(&x, n)) {
                            Val::Values(vs)
                        } else {
                            let mut v = Vec::with_capacity(vs.len() + 1);
                            v.push(x);
                            v.extend(vs.iter().cloned());
                            Val::Values(Rc::new(v))
                        }
                    }
                    (x, Val::Empty) => Val::Values(Rc::new(vec![x])),
                    (_, Val::Universe) => Val::Universe,
                    (x, s) => {
                        return fail(
                            format!("`++` cannot add {} to {}", x.kind(), s.kind()),
                            span,
                        );
                    }
                })
            }
            Op2::Union | Op2::Inter | Op2::Diff => {
                let mut acc = first;
                for v in it {
                    acc = self.setop(op, acc, v, span)?;
                }
                Ok(acc)
            }
        }
    }

    /// Union, intersection or difference of two sets, relations or sets of values.
    pub(super) fn setop(
        &mut self,
        op: Op2,
        a: Val<W>,
        b: Val<W>,
        span: Span,
    ) -> Result<Val<W>, EvalError> {
        let n = self.world.n;
        Ok(match (a, b) {
            (Val::Empty, b) => match op {
                Op2::Union => b,
                _ => Val::Empty,
            },
            (a, Val::Empty) => match op {
                Op2::Inter => Val::Empty,
                _ => a,
            },
            // The universe is the whole of what it meets: the union is the universe, the
            // intersection the other operand; taking something from it takes it from
            // every event or every pair, whichever the other operand holds.
            (Val::Universe, b) => match op {
                Op2::Union => Val::Universe,
                Op2::Inter => b,
                _ => match b {
                    Val::Universe => Val::Empty,
                    Val::Set(y) => Val::Set(EventSet::full(n).minus(y)),
                    b => {
                        let all = self.rel(&Val::Universe, span)?;
                        let y = self.rel(&b, span)?;
                        Val::Rel(Rc::new(all.minus(&y)))
                    }
                },
            },
            (a, Val::Universe) => match op {
                Op2::Union => Val::Universe,
                Op2::Inter => a,
                _ => Val::Empty,
            },
            (Val::Set(x), Val::Set(y)) => Val::Set(match op {
                Op2::Union => x.union(y),
                Op2::Inter => x.inter(y),
                _ => x.minus(y),
            }),
            (a @ Val::Rel(_), b) | (a, b @ Val::Rel(_)) => {
                let (x, y) = (self.rel(&a, span)?, self.rel(&b, span)?);
                drop(b);
                // An empty operand decides the result without work; otherwise the left
                // operand is changed in place when nothing else holds it (a value being
                // computed, as the left operand of `a | b | c` is after the first step).
                Val::Rel(match op {
                    Op2::Union if x.is_empty() => y,
                    Op2::Union if y.is_empty() => x,
                    Op2::Inter if x.is_empty() || y.is_empty() => self.empty_rel.clone(),
                    Op2::Diff if x.is_empty() || y.is_empty() => x,
                    _ => {
                        drop(a);
                        let mut x = self.owned(x);
                        let r = Rc::make_mut(&mut x);
                        match op {
                            Op2::Union => r.union_with(&y),
                            Op2::Inter => r.inter_with(&y),
                            _ => r.minus_with(&y),
                        }
                        self.recycle_rel(y);
                        x
                    }
                })
            }
            (Val::Values(x), Val::Values(y)) => {
                let v: Vec<Val<W>> = match op {
                    Op2::Union => x.iter().chain(y.iter()).cloned().collect(),
                    Op2::Inter => x
                        .iter()
                        .filter(|a| y.iter().any(|b| a.same(b, n)))
                        .cloned()
                        .collect(),
                    _ => x
                        .iter()
                        .filter(|a| !y.iter().any(|b| a.same(b, n)))
                        .cloned()
                        .collect(),
                };
                Val::Values(Rc::new(dedup(v, n)))
            }
            (a @ Val::Set(_), b @ Val::Values(_)) | (a @ Val::Values(_), b @ Val::Set(_)) => {
                let (x, y) = (self.set_of(&a, span)?, self.set_of(&b, span)?);
                Val::Set(match op {
                    Op2::Union => x.union(y),
                    Op2::Inter => x.inter(y),
                    _ => x.minus(y),
                })
            }
            (a, b) => {
                return fail(
                    format!("cannot combine {} with {}", a.kind(), b.kind()),
                    span,
                );
            }
        })
    }
}
