//! One expression evaluated in a frame, the calls of functions included: a call in tail
//! position replaces the running call instead of nesting in it, and the operations are
//! counted and nested calls bounded ([`MAX_STEPS`], [`MAX_DEPTH`]).
//! A sequence `a ; b ; ...` is evaluated here, operand by operand, so that once it is
//! empty the rest is not computed.

use super::slot::{Frame, Locals};
use super::value::{Closure, is_empty};
use super::{EvalError, MAX_DEPTH, MAX_STEPS, Machine, Operands, Val, fail};
use crate::exec::relation::{EventSet, Relation, Width};
use crate::models::cat::ast::{Op1, Op2, Span};
use crate::models::cat::compile::{CondIr, Expr, FunCode, Slot, WhenIr};
use std::rc::Rc;

/// The result of evaluating in tail position: a value, or a call still to make.
enum Tail<W: Width> {
    /// The value.
    Done(Val<W>),
    /// A function and its argument.
    Call(Val<W>, Val<W>),
}

impl<'a, W: Width> Machine<'a, W> {
    /// Counts one operation, failing past [`MAX_STEPS`].
    #[inline]
    pub(super) fn count(&mut self, span: Span) -> Result<(), EvalError> {
        self.steps += 1;
        if self.steps.is_multiple_of(1024) || self.steps > MAX_STEPS {
            return self.counted_many(span);
        }
        Ok(())
    }

    /// [`Self::count`] every 1024 operations, and past [`MAX_STEPS`]: whether the time
    /// given ran out, or the steps.
    #[cold]
    fn counted_many(&self, span: Span) -> Result<(), EvalError> {
        if self.steps.is_multiple_of(1024)
            && self
                .deadline
                .is_some_and(|d| std::time::Instant::now() >= d)
        {
            return fail("the time given to the test ran out", span);
        }
        if self.steps > MAX_STEPS {
            return fail(
                format!("the model takes more than {MAX_STEPS} operations on one execution"),
                span,
            );
        }
        Ok(())
    }

    pub(super) fn enter(&mut self, name: &str, span: Span) -> Result<(), EvalError> {
        if self.depth >= MAX_DEPTH {
            return fail(
                format!("the model recurses too deeply, calling `{name}`"),
                span,
            );
        }
        self.depth += 1;
        Ok(())
    }

    /// The least fixpoint of a group of recursive values, from empty; `false` when the
    /// check of its `when`, made after every step as herd7 makes it, fails.
    pub(super) fn fixpoint(
        &mut self,
        values: &[(Slot, Expr)],
        when: Option<&WhenIr>,
        frame: &mut Frame<'_, W>,
        span: Span,
    ) -> Result<bool, EvalError> {
        for (slot, _) in values {
            self.set(*slot, Val::Empty, frame);
        }
        let n = self.world.n;
        // Each round adds pairs or the values stop changing; a relation has at most n * n
        // pairs, so the bound is generous.
        for _ in 0..(n * n + 2) * values.len().max(1) + 2 {
            // herd7 evaluates the bindings in order, each seeing the values of the ones
            // before it in this round (a Gauss-Seidel iteration): the bell file's matching
            // of RCU critical sections, which is not monotone, depends on it.
            let mut changed = false;
            for (slot, e) in values {
                let v = self.eval(e, frame)?;
                if !self.get(*slot, frame).same(&v, n) {
                    changed = true;
                }
                self.set(*slot, v, frame);
            }
            if let Some(w) = when {
                let v = self.eval(&w.exp, frame)?;
                if self.test(w.test, &v, w.span)? == w.negated {
                    return Ok(false);
                }
            }
            if !changed {
                return Ok(true);
            }
        }
        fail("a `let rec` does not reach a fixpoint", span)
    }

    pub(super) fn eval(&mut self, e: &Expr, frame: &mut Frame<'_, W>) -> Result<Val<W>, EvalError> {
        Ok(match e {
            Expr::Empty => Val::Empty,
            Expr::Universe => Val::Universe,
            Expr::Tag(t) => Val::Tag(t.clone()),
            Expr::Var(slot) => self.get(*slot, frame),
            Expr::Unbound(message, span, caught) => {
                return Err(EvalError {
                    message: message.to_string(),
                    span: *span,
                    uncaught: !caught,
                });
            }
            Expr::Op1(op, a, span) => {
                self.count(*span)?;
                let a = self.eval(a, frame)?;
                self.op1(*op, a, *span)?
            }
            Expr::Op(Op2::Seq, args, span) => {
                self.count(*span)?;
                self.seq(args, frame, *span)?
            }
            Expr::Op(op @ (Op2::Union | Op2::Inter | Op2::Diff), args, span) => {
                self.count(*span)?;
                let mut args = args.iter();
                let mut acc = match args.next() {
                    Some(a) => self.eval(a, frame)?,
                    None => Val::Empty,
                };
                for a in args {
                    // An empty intersection, or a difference from an empty set, stays
                    // empty: a name is then not read, only checked (an intersection
                    // with `0` is `0`, as `setop` makes it).
                    if *op != Op2::Union && is_empty(&acc, 0) {
                        let skip = matches!(
                            (&acc, self.peek(a, frame)),
                            (Val::Empty, Some(_))
                                | (Val::Rel(_), Some(Val::Rel(_) | Val::Empty))
                                | (Val::Set(_), Some(Val::Set(_) | Val::Empty))
                        );
                        if skip {
                            if *op == Op2::Inter && matches!(self.peek(a, frame), Some(Val::Empty))
                            {
                                acc = Val::Empty;
                            }
                            continue;
                        }
                    }
                    let v = self.eval(a, frame)?;
                    acc = self.setop(*op, acc, v, *span)?;
                }
                acc
            }
            Expr::Op(op, args, span) => {
                self.count(*span)?;
                let mut vals = Operands::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(a, frame)?);
                }
                self.op(*op, vals, *span)?
            }
            Expr::Tuple(args) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(a, frame)?);
                }
                Val::Tuple(Rc::new(vals))
            }
            Expr::App(f, a, span) => {
                let f = self.eval(f, frame)?;
                let a = self.eval(a, frame)?;
                self.apply(f, a, *span)?
            }
            Expr::Let(bindings, body) => {
                self.bind_all(bindings, frame)?;
                self.eval(body, frame)?
            }
            Expr::LetRecFuns(codes, slots, body) => {
                let group = self.group(codes, frame);
                for (k, slot) in slots.iter().enumerate() {
                    self.set(*slot, Val::RecFun(group.clone(), k), frame);
                }
                self.eval(body, frame)?
            }
            Expr::LetRecValues(values, body, span) => {
                self.fixpoint(values, None, frame, *span)?;
                self.eval(body, frame)?
            }
            Expr::Fun(code) => Val::Fun(Rc::new(Closure {
                code: code.clone(),
                captures: code.captures.iter().map(|s| self.get(*s, frame)).collect(),
            })),
            Expr::Set(args, span) => {
                let mut vals: Vec<Val<W>> = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(a, frame)?);
                }
                self.explicit_set(vals, *span)?
            }
            Expr::MatchTag(exp, clauses, default, span) => {
                let v = self.eval(exp, frame)?;
                let Val::Tag(t) = v else {
                    return fail(format!("`match` needs a tag, not {}", v.kind()), *span);
                };
                match clauses.iter().find(|(c, _)| *c == t) {
                    Some((_, e)) => self.eval(e, frame)?,
                    None => match default {
                        Some(d) => self.eval(d, frame)?,
                        None => return fail(format!("no clause matches the tag '{t}"), *span),
                    },
                }
            }
            Expr::MatchSet {
                exp,
                empty,
                elt,
                rest,
                nonempty,
                span,
            } => {
                let v = self.eval(exp, frame)?;
                match self.split(&v, *span)? {
                    None => self.eval(empty, frame)?,
                    Some((x, remaining)) => {
                        if let Some(s) = elt {
                            self.set(*s, x, frame);
                        }
                        if let Some(s) = rest {
                            self.set(*s, remaining, frame);
                        }
                        self.eval(nonempty, frame)?
                    }
                }
            }
            Expr::Try(a, b) => match self.eval(a, frame) {
                Ok(v) => v,
                Err(e) if e.uncaught => return Err(e),
                Err(_) => self.eval(b, frame)?,
            },
            Expr::If(c, a, b) => {
                if self.cond(c, frame)? {
                    self.eval(a, frame)?
                } else {
                    self.eval(b, frame)?
                }
            }
        })
    }

    /// The value of `e` when it is a name, without evaluating it.
    fn peek<'v>(&'v self, e: &Expr, frame: &'v Frame<'_, W>) -> Option<&'v Val<W>> {
        match e {
            Expr::Var(Slot::Global(i)) => self.globals.get(*i),
            Expr::Var(Slot::Local(i)) => frame.locals.get(*i),
            Expr::Var(Slot::Capture(i)) => frame.captures.get(*i),
            _ => None,
        }
    }

    /// Whether the condition of an `if` holds.
    fn cond(&mut self, c: &CondIr, frame: &mut Frame<'_, W>) -> Result<bool, EvalError> {
        let n = self.world.n;
        Ok(match c {
            CondIr::Known(b) => *b,
            CondIr::Eq(x, y) => {
                let (x, y) = (self.eval(x, frame)?, self.eval(y, frame)?);
                x.same(&y, n)
            }
            CondIr::Subset(x, y) => {
                let (x, y) = (self.eval(x, frame)?, self.eval(y, frame)?);
                let d = self.op(Op2::Diff, Operands::from_iter([x, y]), Span::default())?;
                is_empty(&d, n)
            }
            CondIr::In(x, y) => {
                let (x, y) = (self.eval(x, frame)?, self.eval(y, frame)?);
                self.elements(&y, Span::default())?
                    .iter()
                    .any(|e| e.same(&x, n))
            }
        })
    }

    /// Applies `f` to `arg`; a call in tail position of a function's body replaces the
    /// running call instead of nesting in it, so that a function that iterates by calling
    /// itself last (as herd7's library does over every coherence order) runs in constant
    /// stack.
    fn apply(&mut self, mut f: Val<W>, mut arg: Val<W>, span: Span) -> Result<Val<W>, EvalError> {
        loop {
            let tail = {
                let (code, captures, group): (&FunCode, _, _) = match &f {
                    Val::Fun(c) => (&c.code, &c.captures[..], None),
                    Val::RecFun(g, k) => (&g.codes[*k], &g.captures[*k][..], Some(g)),
                    Val::Builtin(b) => return self.builtin(*b, arg, span),
                    v => return fail(format!("{} cannot be applied", v.kind()), span),
                };
                // herd7 stops when it makes a function that reads a name defined nowhere;
                // a call is where hazmat meets the function made, in a `try` as herd7
                // makes it in one, its binding being lazy.
                if let Some((message, at)) = &code.unbound {
                    return fail(message.to_string(), *at);
                }
                if let Some(i) = code.intrinsic
                    && let Some(v) = self.intrinsic(i, &arg, span)?
                {
                    return Ok(v);
                }
                let mut frame = Frame {
                    locals: Locals::from_elem(Val::Empty, code.frame),
                    captures,
                    group,
                };
                self.bind(&code.param, arg, &mut frame, span)?;
                self.enter(&code.name, span)?;
                let r = self.eval_tail(&code.body, &mut frame);
                self.depth -= 1;
                r?
            };
            match tail {
                Tail::Done(v) => return Ok(v),
                Tail::Call(g, a) => {
                    f = g;
                    arg = a;
                }
            }
        }
    }

    /// Evaluates `e` in tail position: a call there is returned, not made.
    fn eval_tail(&mut self, e: &Expr, frame: &mut Frame<'_, W>) -> Result<Tail<W>, EvalError> {
        match e {
            Expr::App(f, a, span) => {
                let f = self.eval(f, frame)?;
                let a = self.eval(a, frame)?;
                match f {
                    Val::Builtin(b) => Ok(Tail::Done(self.builtin(b, a, *span)?)),
                    f => Ok(Tail::Call(f, a)),
                }
            }
            Expr::Let(bindings, body) => {
                self.bind_all(bindings, frame)?;
                self.eval_tail(body, frame)
            }
            Expr::LetRecFuns(codes, slots, body) => {
                let group = self.group(codes, frame);
                for (k, slot) in slots.iter().enumerate() {
                    self.set(*slot, Val::RecFun(group.clone(), k), frame);
                }
                self.eval_tail(body, frame)
            }
            Expr::MatchTag(exp, clauses, default, span) => {
                let v = self.eval(exp, frame)?;
                let Val::Tag(t) = v else {
                    return fail(format!("`match` needs a tag, not {}", v.kind()), *span);
                };
                match clauses.iter().find(|(c, _)| *c == t) {
                    Some((_, e)) => self.eval_tail(e, frame),
                    None => match default {
                        Some(d) => self.eval_tail(d, frame),
                        None => fail(format!("no clause matches the tag '{t}"), *span),
                    },
                }
            }
            Expr::MatchSet {
                exp,
                empty,
                elt,
                rest,
                nonempty,
                span,
            } => {
                let v = self.eval(exp, frame)?;
                match self.split(&v, *span)? {
                    None => self.eval_tail(empty, frame),
                    Some((x, remaining)) => {
                        if let Some(s) = elt {
                            self.set(*s, x, frame);
                        }
                        if let Some(s) = rest {
                            self.set(*s, remaining, frame);
                        }
                        self.eval_tail(nonempty, frame)
                    }
                }
            }
            Expr::If(c, a, b) => {
                if self.cond(c, frame)? {
                    self.eval_tail(a, frame)
                } else {
                    self.eval_tail(b, frame)
                }
            }
            e => Ok(Tail::Done(self.eval(e, frame)?)),
        }
    }

    /// `a ; b ; ...`. An operand `[S]` restricts the relation composed so far (or the next
    /// one) instead of being composed as an identity relation, and once the composition is
    /// empty the rest is not computed (though every operand is still evaluated, for its
    /// errors).
    fn seq(
        &mut self,
        args: &[Expr],
        frame: &mut Frame<'_, W>,
        span: Span,
    ) -> Result<Val<W>, EvalError> {
        // The restriction of the domain met before any relation.
        let mut domain: Option<EventSet<W>> = None;
        let mut acc: Option<Rc<Relation<W>>> = None;
        let mut empty = false;
        for a in args {
            // Once the composition is empty, a name is not read, only checked.
            if empty {
                let skip = match a {
                    Expr::Op1(Op1::ToId, set, _) => matches!(
                        self.peek(set, frame),
                        Some(Val::Set(_) | Val::Empty | Val::Event(_))
                    ),
                    _ => matches!(self.peek(a, frame), Some(Val::Rel(_) | Val::Empty)),
                };
                if skip {
                    continue;
                }
            }
            if let Expr::Op1(Op1::ToId, set, set_span) = a {
                let v = self.eval(set, frame)?;
                let set = self.set_of(&v, *set_span)?;
                if empty {
                    continue;
                }
                match acc.take() {
                    None => match &mut domain {
                        Some(d) => d.inter_with(&set),
                        None => domain = Some(set),
                    },
                    Some(r) => {
                        let mut r = self.owned(r);
                        Rc::make_mut(&mut r).retain_range(&set);
                        acc = Some(r);
                    }
                }
            } else {
                let v = self.eval(a, frame)?;
                let r = self.rel(&v, span)?;
                drop(v);
                if empty {
                    continue;
                }
                acc = Some(match acc.take() {
                    None => match &domain {
                        Some(d) => {
                            let mut r = self.owned(r);
                            Rc::make_mut(&mut r).retain_domain(d);
                            r
                        }
                        None => r,
                    },
                    Some(prev) => {
                        let mut out = self.scratch();
                        prev.seq_into(&r, Rc::make_mut(&mut out));
                        self.recycle_rel(prev);
                        self.recycle_rel(r);
                        out
                    }
                });
            }
            empty = match &acc {
                None => domain.as_ref().is_some_and(|d| d.is_empty()),
                Some(r) => r.is_empty(),
            };
        }
        Ok(Val::Rel(match acc {
            Some(r) if empty => {
                self.recycle_rel(r);
                self.empty_rel.clone()
            }
            _ if empty => self.empty_rel.clone(),
            Some(r) => r,
            None => Rc::new(Relation::id_on(self.world.n, &domain.unwrap_or_default())),
        }))
    }
}
