//! Evaluating a compiled model on one execution.
//!
//! Values are sets of events and relations as the enumeration's bit matrices, of the
//! execution's width (the interpreter is generic over it, as the native models are), tags,
//! sets of values (the sets of relations `with` chooses from, the sets of events `classes`
//! returns), tuples and functions.
//! `0` and `{}` are one polymorphic empty value, which is whatever empty thing its
//! context needs.
//!
//! A model runs from its first instruction; at `with x from S` the rest of the model runs
//! once for each element of `S`, and each run that passes every check is one allowed
//! execution, which [`Machine::run`] reports to its callback with the flags it raised and
//! the values of the names it defined (`co`, `rf`...).

use super::ast::{Op1, Op2, Role, Span, Test};
use super::compile::{Builtin, Code, CondIr, Expr, FunCode, Ins, Pat, ProcCode, Slot, WhenIr};
use crate::exec::execution::Execution;
use crate::exec::relation::{EventSet, Relation, Width, Words};
use std::rc::Rc;
use std::sync::Arc;

/// A value.
#[derive(Clone)]
pub(crate) enum Val<W: Width = Words<1>> {
    /// `0` or `{}`.
    Empty,
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
    code: Arc<FunCode>,
    captures: Vec<Val<W>>,
}

/// A group of mutually recursive functions and what each captured.
pub(crate) struct RecGroup<W: Width> {
    codes: Arc<Vec<Arc<FunCode>>>,
    captures: Vec<Vec<Val<W>>>,
}

/// A procedure and what it captured.
pub(crate) struct ProcClosure<W: Width> {
    code: Arc<ProcCode>,
    captures: Vec<Val<W>>,
}

/// Why evaluation failed: `try` catches it; elsewhere it is the model's error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct EvalError {
    /// What went wrong, starting lowercase.
    pub message: String,
    /// Where.
    pub span: Span,
}

/// The message of a failing `assert` named `name`, which stops the test as in herd7.
fn failed_assertion_message(name: &str) -> String {
    format!(
        "the assertion `{name}` fails on an execution of the test (herd7 stops with \
         \"assertion failed, check input test\")"
    )
}

/// The name of the assertion whose failure an error message reports, if it reports one:
/// for herd7's wording of it, `NAME assertion failed, check input test.`
pub fn failed_assertion(message: &str) -> Option<&str> {
    let (_, rest) = message.split_once("the assertion `")?;
    let (name, rest) = rest.split_once('`')?;
    rest.starts_with(" fails on an execution of the test (herd7 stops with")
        .then_some(name)
}

fn fail<T>(message: impl Into<String>, span: Span) -> Result<T, EvalError> {
    Err(EvalError {
        message: message.into(),
        span,
    })
}

impl<W: Width> Val<W> {
    fn kind(&self) -> &'static str {
        match self {
            Val::Empty => "an empty set",
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
    fn same(&self, other: &Val<W>, n: usize) -> bool {
        match (self, other) {
            (Val::Empty, v) | (v, Val::Empty) => is_empty(v, n),
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

fn is_empty<W: Width>(v: &Val<W>, _n: usize) -> bool {
    match v {
        Val::Empty => true,
        Val::Set(s) => s.is_empty(),
        Val::Rel(r) => r.is_empty(),
        Val::Values(v) => v.is_empty(),
        _ => false,
    }
}

/// What the model sees of one execution besides its relations: the names of its events'
/// tags, and what it needs for built-ins.
pub(crate) struct World<'a, W: Width = Words<1>> {
    /// The execution.
    pub(crate) exec: &'a Execution<W>,
    /// The number of events.
    pub(crate) n: usize,
    /// The base values to set before the run, by global slot: all of them for the first
    /// execution of some thread paths, those that differ between executions of the same
    /// paths for the others.
    pub(crate) base: Vec<(usize, Val<W>)>,
    /// The events carrying each tag, by the tag's name as a model writes it.
    pub(crate) tag_events: &'a dyn Fn(&str) -> EventSet<W>,
    /// The events that are both read and write: herd7's single read-modify-write events
    /// of its C11 dialect (see `merge`), which have no one value.
    pub(crate) both: EventSet<W>,
}

/// What a machine leaves for the next execution with the same thread paths: the global
/// slots, those the paths fix among them (whose values the next run reuses instead of
/// computing them again), and the shared empty and identity relations.
pub(crate) struct Kept<W: Width = Words<1>> {
    globals: Vec<Val<W>>,
    known: Vec<bool>,
    empty_rel: Rc<Relation<W>>,
    id_rel: Rc<Relation<W>>,
    spare: Vec<Rc<Relation<W>>>,
    memo: Vec<Option<Memo<W>>>,
    vanish: Vec<Option<bool>>,
    always_empty: Vec<bool>,
}

/// What the last evaluation of a top-level instruction read and gave, for a later run
/// that finds its inputs unchanged (see [`Code::inputs`]).
struct Memo<W: Width> {
    /// The values of its inputs.
    inputs: Vec<Val<W>>,
    /// Whether its check held (for a check), or whether it passed (for a binding).
    holds: bool,
    /// The set it chose from (for a `with`).
    choices: Option<Val<W>>,
}

/// One run of a model over an execution.
pub(crate) struct Machine<'a, W: Width = Words<1>> {
    code: &'a Code,
    world: &'a World<'a, W>,
    globals: Vec<Val<W>>,
    /// The flags raised on the current way through the `with` choices.
    flags: Vec<Arc<str>>,
    /// The relations `show` names on the current way, by name.
    pub(crate) shown: Vec<(Arc<str>, Val<W>)>,
    depth: usize,
    /// The operations evaluated so far on this execution, bounded by [`MAX_STEPS`].
    steps: u64,
    /// When to give up.
    deadline: Option<std::time::Instant>,
    /// For each global slot, whether it holds the value of a fixed binding ([`Ins::Let`]'s
    /// flag) computed for these thread paths, on this execution or an earlier one.
    known: Vec<bool>,
    /// The empty relation and the identity over the execution's events, shared by every
    /// operation that yields them.
    empty_rel: Rc<Relation<W>>,
    id_rel: Rc<Relation<W>>,
    /// Relations over the execution's events that nothing holds any more, for operations
    /// to compute into instead of allocating (see [`Machine::scratch`]).
    spare: Vec<Rc<Relation<W>>>,
    /// For each top-level instruction, what its last evaluation on these paths read.
    memo: Vec<Option<Memo<W>>>,
    /// For each top-level instruction, once looked at on these paths, whether what the
    /// paths fix makes its value empty whatever the rest ([`Machine::vanishes`]).
    vanish: Vec<Option<bool>>,
    /// For each global slot, whether its value is empty on every execution of these
    /// paths.
    always_empty: Vec<bool>,
}

/// What a way through the model that passes every check leaves.
pub(crate) struct Leaf<'m, W: Width = Words<1>> {
    /// The flags raised, in the order raised.
    pub(crate) flags: &'m [Arc<str>],
    /// The global slots, to read the final `co` and `rf` from.
    pub(crate) globals: &'m [Val<W>],
}

/// What is called with each way through the model that passes every check.
type OnLeaf<'k, W> = dyn FnMut(&Leaf<'_, W>) -> Go + 'k;

/// A set split into one element and the others.
type Split<W> = (Val<W>, Val<W>);

/// The slots of a running function's frame: a few, most often.
type Locals<W> = smallvec::SmallVec<[Val<W>; 8]>;

/// The operands of one operator, evaluated.
type Operands<W> = smallvec::SmallVec<[Val<W>; 4]>;

/// The result of evaluating in tail position: a value, or a call still to make.
enum Tail<W: Width> {
    /// The value.
    Done(Val<W>),
    /// A function and its argument.
    Call(Val<W>, Val<W>),
}

/// Whether to go on with other choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Go {
    /// Go on.
    On,
    /// Stop the run.
    Stop,
}

/// The local state of a running function or procedure.
struct Frame<'v, W: Width> {
    locals: Locals<W>,
    captures: &'v [Val<W>],
    group: Option<&'v Rc<RecGroup<W>>>,
}

/// The most operations one execution may take, every `with` choice included: a model that
/// needs more stops with an error instead of running for ever.
const MAX_STEPS: u64 = 50_000_000;

/// The most orders `linearisations` may return.
const MAX_LINEARISATIONS: usize = 200_000;

/// The deepest nesting of calls and expressions evaluated.
const MAX_DEPTH: usize = 500;

impl<'a, W: Width> Machine<'a, W> {
    /// A machine for `code` over `world`, with what the machine before it left when it
    /// judged an execution with the same thread paths.
    pub(crate) fn new(
        code: &'a Code,
        world: &'a World<'a, W>,
        deadline: Option<std::time::Instant>,
        kept: Option<Kept<W>>,
    ) -> Machine<'a, W> {
        let kept = kept.unwrap_or_else(|| {
            let mut globals = vec![Val::Empty; code.globals];
            for (slot, tag) in &code.tag_sets {
                if let Slot::Global(i) = slot {
                    globals[*i] = Val::Set((world.tag_events)(tag));
                }
            }
            // The base values other than reads-from, the final writes and `pco`, and the
            // tags' sets, are what the paths fix.
            let mut known = vec![false; code.globals];
            for (k, (name, _)) in super::compile::BASE.iter().enumerate() {
                known[k] = !super::stage::DYNAMIC_BASE.contains(name);
            }
            for (slot, _) in &code.tag_sets {
                if let Slot::Global(i) = slot {
                    known[*i] = true;
                }
            }
            Kept {
                globals,
                known,
                empty_rel: Rc::new(Relation::empty(world.n)),
                id_rel: Rc::new(Relation::identity(world.n)),
                spare: Vec::new(),
                memo: Vec::new(),
                vanish: vec![None; code.instrs.len()],
                always_empty: vec![false; code.globals],
            }
        });
        let Kept {
            mut globals,
            known,
            empty_rel,
            id_rel,
            spare,
            mut memo,
            vanish,
            always_empty,
        } = kept;
        memo.resize_with(code.instrs.len(), || None);
        for (i, v) in &world.base {
            globals[*i] = v.clone();
        }
        Machine {
            code,
            world,
            globals,
            flags: Vec::new(),
            shown: Vec::new(),
            depth: 0,
            steps: 0,
            deadline,
            known,
            empty_rel,
            id_rel,
            spare,
            memo,
            vanish,
            always_empty,
        }
    }

    /// Runs the model, calling `leaf` for every way through its choices that passes every
    /// check.
    pub(crate) fn run(
        &mut self,
        leaf: &mut dyn FnMut(&Leaf<'_, W>) -> Go,
    ) -> Result<Go, EvalError> {
        let code = self.code;
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
                    let shown = self.shown.len();
                    for c in choices.iter() {
                        self.set(*slot, c.clone(), frame);
                        let mut inner: Option<&mut OnLeaf<'_, W>> = Some(&mut *k);
                        let go = self.instrs(instrs, i + 1, frame, &mut inner)?;
                        self.flags.truncate(flags);
                        self.shown.truncate(shown);
                        if go == Go::Stop {
                            return Ok(Go::Stop);
                        }
                    }
                    return Ok(Go::On);
                }
                ins => {
                    let ok = if std::ptr::eq(instrs, &self.code.instrs[..]) {
                        self.step_top(i, ins, frame)?
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
            Some(k) => Ok(k(&Leaf {
                flags: &self.flags,
                globals: &self.globals,
            })),
            None => Ok(Go::On),
        }
    }

    /// Runs the top-level instruction `i`, or only repeats what it did when the inputs it
    /// read last time ([`Code::inputs`]) are unchanged; `false` when a check fails.
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
                    role, name, span, ..
                } => self.checked(*role, name, holds, *span)?,
                _ => holds,
            });
        }
        match self.vanish.get(i).copied().flatten() {
            // Empty on every execution of these paths, as on the first, where it was
            // evaluated: an empty value passes every test.
            Some(true) => {
                return Ok(match ins {
                    Ins::Check {
                        role,
                        negated,
                        name,
                        span,
                        ..
                    } => self.checked(*role, name, !*negated, *span)?,
                    _ => true,
                });
            }
            Some(false) => {}
            None => {
                let v = self.vanishes(ins);
                if let Some(f) = self.vanish.get_mut(i) {
                    *f = Some(v);
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
            } => {
                let holds = self.check_holds(*test, *negated, exp, *span, frame)?;
                (self.checked(*role, name, holds, *span)?, holds)
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

    /// What the last evaluation of top-level instruction `i` left, if its `inputs` are as
    /// it read them.
    fn unchanged(&self, i: usize, inputs: &[usize]) -> Option<&Memo<W>> {
        self.memo.get(i)?.as_ref().filter(|m| {
            inputs
                .iter()
                .zip(&m.inputs)
                .all(|(&g, old)| identical(&self.globals[g], old))
        })
    }

    /// Records what the evaluation of top-level instruction `i` read and gave.
    fn remember(&mut self, i: usize, inputs: &[usize], holds: bool, choices: Option<Val<W>>) {
        let Some(slot) = self.memo.get_mut(i) else {
            return;
        };
        let m = slot.get_or_insert_with(|| Memo {
            inputs: Vec::with_capacity(inputs.len()),
            holds,
            choices: None,
        });
        m.inputs.clear();
        m.inputs
            .extend(inputs.iter().map(|&g| self.globals[g].clone()));
        m.holds = holds;
        m.choices = choices;
    }

    /// Whether what the paths fix makes the value of `ins` (a binding or a check) empty on
    /// every execution: a sequence or an intersection with an empty operand, a union of
    /// empty operands, a difference from an empty set, a closure or inverse of one, a
    /// fixpoint whose terms are all empty while its names are. The names it binds are then
    /// marked as always empty.
    fn vanishes(&mut self, ins: &Ins) -> bool {
        match ins {
            Ins::Let(bindings, None) => {
                if !bindings
                    .iter()
                    .all(|(p, e)| matches!(p, Pat::One(_)) && self.always_empty_exp(e))
                {
                    return false;
                }
                for (p, _) in bindings {
                    if let Pat::One(Some(Slot::Global(g))) = p {
                        self.always_empty[*g] = true;
                    }
                }
                true
            }
            Ins::LetRecValues(values, None, _, None) => {
                let slots: Vec<usize> = values
                    .iter()
                    .filter_map(|(s, _)| match s {
                        Slot::Global(g) => Some(*g),
                        _ => None,
                    })
                    .collect();
                if slots.len() != values.len() {
                    return false;
                }
                for &g in &slots {
                    self.always_empty[g] = true;
                }
                let empty = values.iter().all(|(_, e)| self.always_empty_exp(e));
                if !empty {
                    for &g in &slots {
                        self.always_empty[g] = false;
                    }
                }
                empty
            }
            Ins::Check { exp, .. } => self.always_empty_exp(exp),
            _ => false,
        }
    }

    /// Whether `e` is empty on every execution of these paths (see [`Self::vanishes`]).
    fn always_empty_exp(&self, e: &Expr) -> bool {
        match e {
            Expr::Empty => true,
            Expr::Var(Slot::Global(g)) => {
                self.always_empty.get(*g).copied().unwrap_or(false)
                    || (self.known.get(*g).copied().unwrap_or(false)
                        && is_empty(&self.globals[*g], 0))
            }
            Expr::Op(Op2::Seq | Op2::Inter | Op2::Cartesian, args, _) => {
                args.iter().any(|a| self.always_empty_exp(a))
            }
            Expr::Op(Op2::Union, args, _) => args.iter().all(|a| self.always_empty_exp(a)),
            Expr::Op(Op2::Diff, args, _) => args.first().is_some_and(|a| self.always_empty_exp(a)),
            Expr::Op1(Op1::Plus | Op1::Inv | Op1::ToId, a, _) => self.always_empty_exp(a),
            _ => false,
        }
    }

    /// Whether the test of a check holds on `exp`.
    fn check_holds(
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

    /// What a check whose test `holds` does: `false` when it fails the execution; a flag
    /// raised when it is one.
    fn checked(
        &mut self,
        role: Role,
        name: &Option<Arc<str>>,
        holds: bool,
        span: Span,
    ) -> Result<bool, EvalError> {
        Ok(match role {
            Role::Check => holds,
            // herd7 gives up on the test: "NAME assertion failed, check input test."
            Role::Assert => {
                if !holds {
                    return fail(
                        failed_assertion_message(name.as_deref().unwrap_or("assert")),
                        span,
                    );
                }
                true
            }
            Role::Flag => {
                if holds {
                    let name = name.clone().unwrap_or_else(|| Arc::from("flag"));
                    if !self.flags.contains(&name) {
                        self.flags.push(name);
                    }
                }
                true
            }
            Role::UndefinedUnless => {
                if !holds {
                    let name: Arc<str> = Arc::from(crate::models::model::UNDEFINED);
                    if !self.flags.contains(&name) {
                        self.flags.push(name);
                    }
                }
                true
            }
        })
    }

    /// Runs one instruction other than `with`; `false` when a check fails.
    fn step(&mut self, ins: &Ins, frame: &mut Frame<'_, W>) -> Result<bool, EvalError> {
        match ins {
            Ins::Let(bindings, fixed) => {
                if let Some(slots) = fixed
                    && self.known(slots)
                {
                    return Ok(true);
                }
                let mut vals = Operands::with_capacity(bindings.len());
                for (_, e) in bindings {
                    vals.push(self.eval(e, frame)?);
                }
                for ((p, _), v) in bindings.iter().zip(vals) {
                    self.bind(p, v, frame, Span::default())?;
                }
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
            } => {
                let holds = self.check_holds(*test, *negated, exp, *span, frame)?;
                if !self.checked(*role, name, holds, *span)? {
                    return Ok(false);
                }
            }
            Ins::WithFrom(_, _, span) => {
                return fail("`with` is allowed only at the top of a model", *span);
            }
            Ins::Call(f, arg, span) => {
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
                // A procedure's checks fail its caller's execution.
                let ok = self.body_passes(&p.code.body, &mut inner);
                self.depth -= 1;
                if !ok? {
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
            Ins::ShowAs(exp, name) => {
                if let Ok(v) = self.eval(exp, frame) {
                    self.shown.push((name.clone(), v));
                }
            }
            Ins::Show(name, slot) => {
                let v = self.get(*slot, frame);
                self.shown.push((name.clone(), v));
            }
        }
        Ok(true)
    }

    /// Whether the global `slots` hold values computed for these thread paths.
    fn known(&self, slots: &[usize]) -> bool {
        slots
            .iter()
            .all(|&i| self.known.get(i).copied().unwrap_or(false))
    }

    /// Marks the global `slots` as holding values computed for these thread paths.
    fn keep(&mut self, slots: &[usize]) {
        for &i in slots {
            if let Some(k) = self.known.get_mut(i) {
                *k = true;
            }
        }
    }

    /// What this machine leaves for the next execution with the same thread paths.
    pub(crate) fn into_kept(self) -> Kept<W> {
        Kept {
            globals: self.globals,
            known: self.known,
            empty_rel: self.empty_rel,
            id_rel: self.id_rel,
            spare: self.spare,
            memo: self.memo,
            vanish: self.vanish,
            always_empty: self.always_empty,
        }
    }

    /// A relation over the execution's events to compute into, that nothing else holds:
    /// a spare one, or a new one. Its pairs are whatever they were.
    fn scratch(&mut self) -> Rc<Relation<W>> {
        self.spare
            .pop()
            .unwrap_or_else(|| Rc::new(Relation::empty(self.world.n)))
    }

    /// Takes back a value the machine no longer holds: a relation that nothing else
    /// holds becomes spare.
    fn recycle(&mut self, v: Val<W>) {
        if let Val::Rel(r) = v {
            self.recycle_rel(r);
        }
    }

    fn recycle_rel(&mut self, r: Rc<Relation<W>>) {
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
    fn owned(&mut self, r: Rc<Relation<W>>) -> Rc<Relation<W>> {
        if Rc::strong_count(&r) == 1 && Rc::weak_count(&r) == 0 {
            return r;
        }
        let mut out = self.scratch();
        Rc::make_mut(&mut out).copy_from(&r);
        out
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

    /// Counts one operation, failing past [`MAX_STEPS`].
    fn count(&mut self, span: Span) -> Result<(), EvalError> {
        self.steps += 1;
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

    fn enter(&mut self, name: &str, span: Span) -> Result<(), EvalError> {
        if self.depth >= MAX_DEPTH {
            return fail(
                format!("the model recurses too deeply, calling `{name}`"),
                span,
            );
        }
        self.depth += 1;
        Ok(())
    }

    fn group(&self, codes: &Arc<Vec<Arc<FunCode>>>, frame: &Frame<'_, W>) -> Rc<RecGroup<W>> {
        Rc::new(RecGroup {
            codes: codes.clone(),
            captures: codes
                .iter()
                .map(|c| c.captures.iter().map(|s| self.get(*s, frame)).collect())
                .collect(),
        })
    }

    /// The least fixpoint of a group of recursive values, from empty; `false` when the
    /// check of its `when`, made after every step as herd7 makes it, fails.
    fn fixpoint(
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

    fn get(&self, slot: Slot, frame: &Frame<'_, W>) -> Val<W> {
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

    fn set(&mut self, slot: Slot, v: Val<W>, frame: &mut Frame<'_, W>) {
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

    fn bind(
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

    fn test(&self, test: Test, v: &Val<W>, span: Span) -> Result<bool, EvalError> {
        let n = self.world.n;
        Ok(match test {
            Test::Empty => match v {
                Val::Empty | Val::Set(_) | Val::Rel(_) | Val::Values(_) => is_empty(v, n),
                _ => {
                    return fail(
                        format!("`empty` needs a set or a relation, not {}", v.kind()),
                        span,
                    );
                }
            },
            Test::Acyclic => self.rel(v, span)?.is_acyclic(),
            Test::Irreflexive => self.rel(v, span)?.is_irreflexive(),
        })
    }

    fn rel(&self, v: &Val<W>, span: Span) -> Result<Rc<Relation<W>>, EvalError> {
        match v {
            Val::Rel(r) => Ok(r.clone()),
            Val::Empty => Ok(self.empty_rel.clone()),
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

    fn set_of(&self, v: &Val<W>, span: Span) -> Result<EventSet<W>, EvalError> {
        match v {
            Val::Set(s) => Ok(s.clone()),
            Val::Empty => Ok(EventSet::EMPTY),
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

    fn pair(&self, v: &Val<W>, span: Span) -> Result<(usize, usize), EvalError> {
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
    fn elements(&self, v: &Val<W>, span: Span) -> Result<Vec<Val<W>>, EvalError> {
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

    fn eval(&mut self, e: &Expr, frame: &mut Frame<'_, W>) -> Result<Val<W>, EvalError> {
        let n = self.world.n;
        Ok(match e {
            Expr::Empty => Val::Empty,
            Expr::Universe => Val::Set(EventSet::full(n)),
            Expr::Tag(t) => Val::Tag(t.clone()),
            Expr::Var(slot) => self.get(*slot, frame),
            Expr::Unbound(name, span) => return fail(format!("`{name}` is not defined"), *span),
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
                let mut vals = Operands::with_capacity(bindings.len());
                for (_, e) in bindings {
                    vals.push(self.eval(e, frame)?);
                }
                for ((p, _), v) in bindings.iter().zip(vals) {
                    self.bind(p, v, frame, Span::default())?;
                }
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

    /// A set split into one element and the others, as `match ... x ++ rest` takes it;
    /// `None` when it is empty.
    fn split(&self, v: &Val<W>, span: Span) -> Result<Option<Split<W>>, EvalError> {
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

    fn explicit_set(&self, vals: Vec<Val<W>>, span: Span) -> Result<Val<W>, EvalError> {
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
                let mut vals = Operands::with_capacity(bindings.len());
                for (_, e) in bindings {
                    vals.push(self.eval(e, frame)?);
                }
                for ((p, _), v) in bindings.iter().zip(vals) {
                    self.bind(p, v, frame, Span::default())?;
                }
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

    fn builtin(&mut self, b: Builtin, arg: Val<W>, span: Span) -> Result<Val<W>, EvalError> {
        let n = self.world.n;
        let x = self.world.exec;
        Ok(match b {
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
                match linearisations(&s, &r, n) {
                    Some(orders) => Val::Values(Rc::new(orders)),
                    None => {
                        return fail(
                            format!(
                                "`linearisations` has more than {MAX_LINEARISATIONS} orders \
                                 to return here"
                            ),
                            span,
                        );
                    }
                }
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

    fn op1(&mut self, op: Op1, a: Val<W>, span: Span) -> Result<Val<W>, EvalError> {
        let n = self.world.n;
        Ok(match op {
            Op1::Comp => match a {
                Val::Set(s) => Val::Set(EventSet::full(n).minus(s)),
                Val::Empty => Val::Set(EventSet::full(n)),
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

    fn op(&mut self, op: Op2, vals: Operands<W>, span: Span) -> Result<Val<W>, EvalError> {
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
    fn setop(&mut self, op: Op2, a: Val<W>, b: Val<W>, span: Span) -> Result<Val<W>, EvalError> {
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

/// Whether two values are the same, as far as telling costs little: relations, sets,
/// events and tags by their contents, everything else by identity.
fn identical<W: Width>(a: &Val<W>, b: &Val<W>) -> bool {
    match (a, b) {
        (Val::Empty, Val::Empty) => true,
        (Val::Event(x), Val::Event(y)) => x == y,
        (Val::Set(x), Val::Set(y)) => x == y,
        (Val::Rel(x), Val::Rel(y)) => Rc::ptr_eq(x, y) || x == y,
        (Val::Tag(x), Val::Tag(y)) => x == y,
        (Val::Values(x), Val::Values(y)) | (Val::Tuple(x), Val::Tuple(y)) => Rc::ptr_eq(x, y),
        (Val::Fun(x), Val::Fun(y)) => Rc::ptr_eq(x, y),
        (Val::RecFun(x, i), Val::RecFun(y, j)) => Rc::ptr_eq(x, y) && i == j,
        (Val::Proc(x), Val::Proc(y)) => Rc::ptr_eq(x, y),
        (Val::Builtin(x), Val::Builtin(y)) => x == y,
        _ => false,
    }
}

fn dedup<W: Width>(vals: Vec<Val<W>>, n: usize) -> Vec<Val<W>> {
    let mut out: Vec<Val<W>> = Vec::with_capacity(vals.len());
    for v in vals {
        if !out.iter().any(|w| w.same(&v, n)) {
            out.push(v);
        }
    }
    out
}

/// Every total order of the events of `s` that extends `r`'s transitive closure
/// restricted to `s`, as a relation (transitive, irreflexive); none when `r` has a cycle
/// through `s`.
///
/// # Complexity
/// As many steps as there are orders, up to `|s|!`.
fn linearisations<W: Width>(s: &EventSet<W>, r: &Relation<W>, n: usize) -> Option<Vec<Val<W>>> {
    let elems: Vec<usize> = s.iter().collect();
    // The predecessors of each element within the set, by `r`'s paths, those through
    // events outside the set included, as herd7 orders them.
    let closed = r.plus();
    let preds: Vec<EventSet<W>> = elems
        .iter()
        .map(|&e| {
            let mut p = closed.predecessors(e);
            p.inter_with(s);
            p
        })
        .collect();
    let mut out = Vec::new();
    let mut order = Vec::with_capacity(elems.len());
    fn go<W: Width>(
        elems: &[usize],
        preds: &[EventSet<W>],
        n: usize,
        placed: &mut EventSet<W>,
        order: &mut Vec<usize>,
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

    #[test]
    fn a_failed_assertion_is_told_by_its_message() {
        let m = format!(
            "the model cannot run: x.cat:3:1: error: {}",
            super::failed_assertion_message("nopo")
        );
        assert_eq!(super::failed_assertion(&m), Some("nopo"));
        assert_eq!(
            super::failed_assertion("the assertion `x` is mentioned"),
            None
        );
    }
}
