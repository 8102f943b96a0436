//! The values a model computes with, and when two of them are the same.
//!
//! Sets of events and relations are the enumeration's bit matrices; a function or a
//! procedure carries the values it captured.
//! Two equalities serve two purposes: [`Val::same`] is the model's `=` (structural,
//! functions equal to nothing), [`identical`] the cheap test a run uses to tell that an
//! input has not changed (contents for relations and sets, identity for the rest).

use crate::exec::relation::{EventSet, Relation, Width, Words};
use crate::models::cat::compile::{Builtin, FunCode, ProcCode};
use std::rc::Rc;
use std::sync::Arc;

/// A value.
#[derive(Clone)]
pub(crate) enum Val<W: Width = Words<1>> {
    /// `0` or `{}`.
    Empty,
    /// `_` (or `~0`): herd7's universe, every event or every pair of events, whichever
    /// the operation it meets reads.
    Universe,
    /// One event (an element of a set of events).
    Event(usize),
    /// A set of events.
    Set(EventSet<W>),
    /// A relation.
    Rel(Rc<Relation<W>>),
    /// A tag.
    Tag(Arc<str>),
    /// A set of other values, without duplicates.
    Values(Rc<Vec<Val<W>>>),
    /// A tuple (a pair of events is an element of a relation).
    Tuple(Rc<Vec<Val<W>>>),
    /// A function and the values it captured.
    Fun(Rc<Closure<W>>),
    /// Function `i` of a recursive group.
    RecFun(Rc<RecGroup<W>>, usize),
    /// A procedure.
    Proc(Rc<ProcClosure<W>>),
    /// A built-in function.
    Builtin(Builtin),
}

/// A function and the values it captured.
pub(crate) struct Closure<W: Width> {
    pub(super) code: Arc<FunCode>,
    pub(super) captures: Vec<Val<W>>,
}

/// A group of mutually recursive functions and what each captured.
pub(crate) struct RecGroup<W: Width> {
    pub(super) codes: Arc<Vec<Arc<FunCode>>>,
    pub(super) captures: Vec<Vec<Val<W>>>,
}

/// A procedure and what it captured.
pub(crate) struct ProcClosure<W: Width> {
    pub(super) code: Arc<ProcCode>,
    pub(super) captures: Vec<Val<W>>,
}

impl<W: Width> Val<W> {
    pub(super) fn kind(&self) -> &'static str {
        match self {
            Val::Empty => "an empty set",
            Val::Universe => "the universe `_`",
            Val::Event(_) => "an event",
            Val::Set(_) => "a set of events",
            Val::Rel(_) => "a relation",
            Val::Tag(_) => "a tag",
            Val::Values(_) => "a set",
            Val::Tuple(_) => "a tuple",
            Val::Fun(_) | Val::RecFun(..) | Val::Builtin(_) => "a function",
            Val::Proc(_) => "a procedure",
        }
    }

    /// Structural equality; functions equal nothing.
    pub(super) fn same(&self, other: &Val<W>, n: usize) -> bool {
        match (self, other) {
            (Val::Empty, v) | (v, Val::Empty) => is_empty(v, n),
            (Val::Universe, Val::Universe) => true,
            (Val::Event(a), Val::Event(b)) => a == b,
            (Val::Set(a), Val::Set(b)) => a == b,
            (Val::Rel(a), Val::Rel(b)) => a == b,
            (Val::Tag(a), Val::Tag(b)) => a == b,
            (Val::Values(a), Val::Values(b)) => {
                a.len() == b.len() && a.iter().all(|x| b.iter().any(|y| x.same(y, n)))
            }
            (Val::Tuple(a), Val::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.same(y, n))
            }
            _ => false,
        }
    }
}

pub(super) fn is_empty<W: Width>(v: &Val<W>, _n: usize) -> bool {
    match v {
        Val::Empty => true,
        Val::Set(s) => s.is_empty(),
        Val::Rel(r) => r.is_empty(),
        Val::Values(v) => v.is_empty(),
        _ => false,
    }
}

/// Whether two values are the same, as far as telling costs little: relations, sets,
/// events and tags by their contents, everything else by identity.
/// A builtin that reads the events' values (`different-values`) is never the same as
/// itself, so an instruction that uses it is evaluated again for each execution.
pub(super) fn identical<W: Width>(a: &Val<W>, b: &Val<W>) -> bool {
    match (a, b) {
        (Val::Empty, Val::Empty) | (Val::Universe, Val::Universe) => true,
        (Val::Event(x), Val::Event(y)) => x == y,
        (Val::Set(x), Val::Set(y)) => x == y,
        (Val::Rel(x), Val::Rel(y)) => Rc::ptr_eq(x, y) || x == y,
        (Val::Tag(x), Val::Tag(y)) => x == y,
        (Val::Values(x), Val::Values(y)) | (Val::Tuple(x), Val::Tuple(y)) => Rc::ptr_eq(x, y),
        (Val::Fun(x), Val::Fun(y)) => Rc::ptr_eq(x, y),
        (Val::RecFun(x, i), Val::RecFun(y, j)) => Rc::ptr_eq(x, y) && i == j,
        (Val::Proc(x), Val::Proc(y)) => Rc::ptr_eq(x, y),
        (Val::Builtin(x), Val::Builtin(y)) => x == y && !x.reads_values(),
        _ => false,
    }
}

pub(super) fn dedup<W: Width>(vals: Vec<Val<W>>, n: usize) -> Vec<Val<W>> {
    let mut out: Vec<Val<W>> = Vec::with_capacity(vals.len());
    for v in vals {
        if !out.iter().any(|w| w.same(&v, n)) {
            out.push(v);
        }
    }
    out
}
