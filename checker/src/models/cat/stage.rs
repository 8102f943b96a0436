//! Staging a compiled model: what the thread paths fix is computed once.
//!
//! The enumeration judges every candidate of one combination of thread paths in a row, and
//! most of a model (the kinds of events, program order, the fences, the dependencies, the
//! critical sections) does not change between them: only reads-from, the final writes,
//! `pco`, the values and the `with` choices do.
//! This pass finds, for each top-level instruction, whether its value depends on those
//! ([`dynamic`](Stage::dynamic)), and marks the instructions that do not as fixed, so that
//! a run reuses their values from the execution before it (see [`Ins::Let`]).
//! Within an instruction that is not fixed, it takes every largest subexpression that is
//! fixed and always evaluated out into a fixed binding of its own before the instruction:
//! in `mb`, every term but the one with `co`; in a fixpoint, every term that does not
//! depend on the values being computed.
//!
//! Nothing moves out of a place evaluated only sometimes (a branch of `if` or `match`, a
//! `try`, a function's body, a loop's body), so a hoisted expression is evaluated exactly
//! when it was before, and its errors are the same.

use super::ast::{Op1, Op2, Span};
use super::compile::{BASE, Code, CondIr, Expr, Ins, Pat, Slot};

/// The names of [`BASE`] whose values differ between executions with the same thread
/// paths: reads-from, the final writes and `pco`, and the function that reads the events'
/// values.
pub(crate) const DYNAMIC_BASE: &[&str] = &["rf", "FW", "pco", "different-values"];

/// Marks the fixed instructions of `code` and hoists the fixed parts of the others.
pub(crate) fn stage(code: &mut Code) {
    let mut stage = Stage {
        dynamic: vec![true; code.globals],
        globals: code.globals,
    };
    for (k, (name, _)) in BASE.iter().enumerate() {
        stage.dynamic[k] = DYNAMIC_BASE.contains(name);
    }
    for (slot, _) in &code.tag_sets {
        if let Slot::Global(i) = slot {
            stage.dynamic[*i] = false;
        }
    }
    code.roots = ["co", "rf"]
        .iter()
        .filter_map(|name| match code.finals.get(*name) {
            Some(Slot::Global(i)) => Some(*i),
            _ => None,
        })
        .collect();
    skip_unneeded(code);
    let instrs = std::mem::take(&mut code.instrs);
    let mut out = Vec::with_capacity(instrs.len());
    for ins in instrs {
        stage.instr(ins, &mut out);
    }
    code.inputs = out.iter().map(|ins| stage.inputs(ins)).collect();
    code.reads = out
        .iter()
        .map(|ins| {
            let mut read = Vec::new();
            ins_reads(ins, &mut read);
            read.sort_unstable();
            read.dedup();
            read
        })
        .collect();
    code.sets = out.iter().map(globals_set_by).collect();
    code.instrs = out;
    code.globals = stage.globals;
}

struct Stage {
    /// For each global slot, whether its value may differ between two executions with the
    /// same thread paths: it depends on reads-from, the final writes, the values, or a
    /// `with` choice (or this pass cannot tell).
    dynamic: Vec<bool>,
    /// The number of global slots, hoisted ones included.
    globals: usize,
}

impl Stage {
    fn instr(&mut self, ins: Ins, out: &mut Vec<Ins>) {
        match ins {
            Ins::Let(mut bindings, _) => {
                let fixed = bindings.iter().all(|(_, e)| self.fixed(e));
                for (p, _) in &bindings {
                    self.mark(pattern_slots(p), !fixed);
                }
                if fixed {
                    let ins = Ins::Let(bindings, None);
                    let slots = globals_set_by(&ins);
                    let Ins::Let(bindings, _) = ins else {
                        unreachable!("built above")
                    };
                    out.push(Ins::Let(bindings, Some(slots)));
                } else {
                    for (_, e) in &mut bindings {
                        self.hoist(e, out);
                    }
                    out.push(Ins::Let(bindings, None));
                }
            }
            Ins::LetRecValues(mut values, mut when, span, _) => {
                // The group's own slots start out fixed: it is fixed if nothing else it
                // reads is dynamic.
                let slots: Vec<Slot> = values.iter().map(|(s, _)| *s).collect();
                self.mark(slots.iter().copied(), false);
                let fixed = when.is_none() && values.iter().all(|(_, e)| self.fixed(e));
                self.mark(slots.iter().copied(), !fixed);
                if fixed {
                    let ins = Ins::LetRecValues(values, when, span, None);
                    let slots = globals_set_by(&ins);
                    let Ins::LetRecValues(values, when, span, _) = ins else {
                        unreachable!("built above")
                    };
                    out.push(Ins::LetRecValues(values, when, span, Some(slots)));
                } else {
                    for (_, e) in &mut values {
                        self.hoist(e, out);
                    }
                    if let Some(w) = &mut when {
                        self.hoist(&mut w.exp, out);
                    }
                    out.push(Ins::LetRecValues(values, when, span, None));
                }
            }
            Ins::Check {
                role,
                negated,
                test,
                mut exp,
                name,
                span,
                skipped,
            } => {
                self.hoist(&mut exp, out);
                out.push(Ins::Check {
                    role,
                    negated,
                    test,
                    exp,
                    name,
                    span,
                    skipped,
                });
            }
            Ins::WithFrom(slot, mut set, span) => {
                self.hoist(&mut set, out);
                self.mark([slot], true);
                out.push(Ins::WithFrom(slot, set, span));
            }
            Ins::LetRecFuns(group, slots) => {
                let fixed = group.iter().all(|c| self.fixed(&c.body));
                self.mark(slots.iter().copied(), !fixed);
                out.push(Ins::LetRecFuns(group, slots));
            }
            Ins::Enum(slot, tags) => {
                self.mark([slot], false);
                out.push(Ins::Enum(slot, tags));
            }
            // A procedure, a loop, a match: whatever they bind is dynamic, and nothing
            // moves out of their bodies, which may run any number of times.
            ins @ (Ins::Procedure(..) | Ins::Forall(..) | Ins::Match(..)) => {
                let mut bound = Vec::new();
                bound_by(&ins, &mut bound);
                self.mark(bound, true);
                out.push(ins);
            }
            ins @ (Ins::Call(..) | Ins::Fail(..)) => out.push(ins),
        }
    }

    /// The global slots that may change between executions of the same paths that `ins`
    /// reads, at any depth (function bodies included), leaving out those it binds itself;
    /// `None` for an instruction that is fixed, or that is not a binding, a check or a
    /// `with` (whose inputs are those of the set it chooses from).
    fn inputs(&self, ins: &Ins) -> Option<Vec<usize>> {
        let mut read = Vec::new();
        let mut bound = Vec::new();
        match ins {
            Ins::Let(bindings, None) => {
                for (_, e) in bindings {
                    reads(e, &mut read);
                    bound_in(e, &mut bound);
                }
            }
            Ins::LetRecValues(values, when, _, None) => {
                for (s, e) in values {
                    reads(e, &mut read);
                    bound_in(e, &mut bound);
                    if let Slot::Global(i) = s {
                        bound.push(*i);
                    }
                }
                if let Some(w) = when {
                    reads(&w.exp, &mut read);
                    bound_in(&w.exp, &mut bound);
                }
            }
            Ins::LetRecFuns(group, _) => {
                for c in group.iter() {
                    reads(&c.body, &mut read);
                    bound_in(&c.body, &mut bound);
                }
            }
            Ins::Check { exp, .. } | Ins::WithFrom(_, exp, _) => {
                reads(exp, &mut read);
                bound_in(exp, &mut bound);
            }
            _ => return None,
        }
        read.sort_unstable();
        read.dedup();
        read.retain(|i| !bound.contains(i) && self.dynamic.get(*i).copied().unwrap_or(true));
        Some(read)
    }

    fn mark(&mut self, slots: impl IntoIterator<Item = Slot>, dynamic: bool) {
        for s in slots {
            if let Slot::Global(i) = s
                && let Some(d) = self.dynamic.get_mut(i)
            {
                *d = dynamic;
            }
        }
    }

    /// Whether `e` reads only fixed globals, at any depth (function bodies included),
    /// counting the names it binds itself as fixed when what they are bound to is.
    fn fixed(&mut self, e: &Expr) -> bool {
        match e {
            Expr::Empty | Expr::Universe | Expr::Tag(_) | Expr::Unbound(..) => true,
            Expr::Var(Slot::Global(i)) => !self.dynamic.get(*i).copied().unwrap_or(true),
            Expr::Var(_) => true,
            Expr::Op1(_, a, _) => self.fixed(a),
            Expr::Op(_, args, _) | Expr::Tuple(args) | Expr::Set(args, _) => {
                self.all_fixed(args.iter())
            }
            Expr::App(f, a, _) | Expr::Try(f, a) => self.all_fixed([&**f, &**a]),
            // A name bound in a function's frame is read as fixed (a parameter is, its
            // argument being judged at the call), so a binding there of what is not fixed
            // makes the whole expression not fixed: `let t = rf in t` in a function body
            // had been taken for fixed, and its value kept from an earlier execution.
            Expr::Let(bindings, body) => {
                let mut dynamic_local = false;
                for (p, e) in bindings {
                    let fixed = self.fixed(e);
                    let slots = pattern_slots(p);
                    dynamic_local |= !fixed && slots.iter().any(is_local);
                    self.mark(slots, !fixed);
                }
                self.fixed(body) && !dynamic_local
            }
            Expr::LetRecFuns(group, slots, body) => {
                let fixed = self.all_fixed(group.iter().map(|c| &c.body));
                self.mark(slots.iter().copied(), !fixed);
                self.fixed(body) && (fixed || !slots.iter().any(is_local))
            }
            Expr::LetRecValues(values, body, _) => {
                let slots: Vec<Slot> = values.iter().map(|(s, _)| *s).collect();
                self.mark(slots.iter().copied(), false);
                let fixed = self.all_fixed(values.iter().map(|(_, e)| e));
                let dynamic_local = !fixed && slots.iter().any(is_local);
                self.mark(slots, !fixed);
                self.fixed(body) && !dynamic_local
            }
            Expr::Fun(code) => self.fixed(&code.body),
            Expr::MatchTag(x, clauses, default, _) => self.all_fixed(
                std::iter::once(&**x)
                    .chain(clauses.iter().map(|(_, e)| e))
                    .chain(default.as_deref()),
            ),
            Expr::MatchSet {
                exp,
                empty,
                elt,
                rest,
                nonempty,
                ..
            } => {
                let fixed = self.fixed(exp);
                self.mark(elt.iter().chain(rest).copied(), !fixed);
                self.all_fixed([&**empty, &**nonempty])
            }
            Expr::If(c, a, b) => {
                let c = match &**c {
                    CondIr::Eq(x, y) | CondIr::Subset(x, y) | CondIr::In(x, y) => {
                        self.all_fixed([x, y])
                    }
                    CondIr::Known(_) => true,
                };
                self.all_fixed([&**a, &**b]) && c
            }
        }
    }

    /// Whether every one of `exps` is fixed; each is looked at, so that the names each
    /// binds are marked.
    fn all_fixed<'e>(&mut self, exps: impl IntoIterator<Item = &'e Expr>) -> bool {
        let mut fixed = true;
        for e in exps {
            fixed &= self.fixed(e);
        }
        fixed
    }

    /// Moves the largest fixed subexpressions of `e` that are always evaluated, and that
    /// read no name `e` binds itself, into fixed bindings pushed to `out`.
    fn hoist(&mut self, e: &mut Expr, out: &mut Vec<Ins>) {
        let mut inner = Vec::new();
        bound_in(e, &mut inner);
        self.hoist_in(e, &inner, out);
    }

    fn hoist_in(&mut self, e: &mut Expr, inner: &[usize], out: &mut Vec<Ins>) {
        // `[S]` keeps its brackets, and `S` moves out: in a sequence, `[S]` then restricts
        // a relation instead of being composed as an identity.
        if let Expr::Op1(Op1::ToId, set, _) = e {
            return self.hoist_in(set, inner, out);
        }
        if worth_hoisting(e) && !reads_any(e, inner) && self.fixed(e) {
            let slot = Slot::Global(self.globals);
            self.globals += 1;
            self.dynamic.push(false);
            let value = std::mem::replace(e, Expr::Var(slot));
            let mut slots = vec![self.globals - 1];
            bound_in(&value, &mut slots);
            out.push(Ins::Let(vec![(Pat::One(Some(slot)), value)], Some(slots)));
            return;
        }
        match e {
            Expr::Op1(_, a, _) => self.hoist_in(a, inner, out),
            Expr::Op(op @ (Op2::Seq | Op2::Union | Op2::Inter), args, span) => {
                self.group_fixed_runs(*op, args, *span, inner);
                for a in args {
                    self.hoist_in(a, inner, out);
                }
            }
            Expr::Op(_, args, _) | Expr::Tuple(args) | Expr::Set(args, _) => {
                for a in args {
                    self.hoist_in(a, inner, out);
                }
            }
            Expr::App(f, a, _) => {
                self.hoist_in(f, inner, out);
                self.hoist_in(a, inner, out);
            }
            Expr::Let(bindings, body) => {
                for (_, e) in bindings.iter_mut() {
                    self.hoist_in(e, inner, out);
                }
                self.hoist_in(body, inner, out);
            }
            Expr::LetRecFuns(_, _, body) => self.hoist_in(body, inner, out),
            Expr::LetRecValues(values, body, _) => {
                for (_, e) in values.iter_mut() {
                    self.hoist_in(e, inner, out);
                }
                self.hoist_in(body, inner, out);
            }
            Expr::MatchTag(x, ..) => self.hoist_in(x, inner, out),
            Expr::MatchSet { exp, .. } => self.hoist_in(exp, inner, out),
            Expr::If(c, ..) => match &mut **c {
                CondIr::Eq(x, y) | CondIr::Subset(x, y) | CondIr::In(x, y) => {
                    self.hoist_in(x, inner, out);
                    self.hoist_in(y, inner, out);
                }
                CondIr::Known(_) => {}
            },
            // Evaluated only sometimes, or not at all here.
            Expr::Try(..)
            | Expr::Fun(_)
            | Expr::Empty
            | Expr::Universe
            | Expr::Tag(_)
            | Expr::Var(_)
            | Expr::Unbound(..) => {}
        }
    }
}

impl Stage {
    /// Groups each run of two or more consecutive fixed operands of an associative
    /// operator into one operation (`r ; [W] ; po ; [W]` becomes `r ; ([W] ; po ; [W])`),
    /// which [`hoist_in`](Self::hoist_in) then moves out whole. The order of the operands
    /// stays as written.
    fn group_fixed_runs(&mut self, op: Op2, args: &mut Vec<Expr>, span: Span, inner: &[usize]) {
        let movable: Vec<bool> = args
            .iter()
            .map(|a| !reads_any(a, inner) && self.fixed(a))
            .collect();
        if movable.iter().all(|m| *m) || movable.iter().filter(|m| **m).count() < 2 {
            return;
        }
        let mut grouped = Vec::with_capacity(args.len());
        let mut run = Vec::new();
        for (a, m) in std::mem::take(args).into_iter().zip(movable) {
            if m {
                run.push(a);
                continue;
            }
            flush(op, span, &mut run, &mut grouped);
            grouped.push(a);
        }
        flush(op, span, &mut run, &mut grouped);
        *args = grouped;

        fn flush(op: Op2, span: Span, run: &mut Vec<Expr>, out: &mut Vec<Expr>) {
            match run.len() {
                0 => {}
                1 => out.append(run),
                _ => out.push(Expr::Op(op, std::mem::take(run), span)),
            }
        }
    }
}

/// Whether computing `e` once saves work: it operates on something.
fn worth_hoisting(e: &Expr) -> bool {
    !matches!(
        e,
        Expr::Empty
            | Expr::Universe
            | Expr::Tag(_)
            | Expr::Var(_)
            | Expr::Unbound(..)
            | Expr::Fun(_)
    )
}

/// herd7 evaluates a binding only when something uses its value (its `let` is lazy), so
/// what a binding nothing needs would compute never happens: herd7's `c11_cos.cat` binds
/// `coi = coi`, and its `enumerations.cat` reads sets no C test has, in bindings only
/// other unneeded bindings read.
/// A top-level binding is needed when an instruction other than an unneeded binding (a
/// check, a `with`, a procedure, a needed binding, a function a needed binding holds)
/// reads it, or the enumeration does (`co`, `rf`); the others, found by a fixpoint, are
/// bound to the empty value instead, which nothing can observe, so an undefined name, a
/// type error or a cost in them is herd7's nothing, not an error. (A `show` reads
/// nothing: herd7 evaluates it only when it draws.)
fn skip_unneeded(code: &mut Code) {
    let answer = needed(code);
    for (k, ins) in code.instrs.iter_mut().enumerate() {
        if let Ins::Let(bindings, _) = ins {
            for (j, (_, e)) in bindings.iter_mut().enumerate() {
                if !answer[k][j] {
                    *e = Expr::Empty;
                }
            }
        }
    }
}

/// For each top-level binding of `code`, by instruction and place in it, whether the
/// answer needs its value.
fn needed(code: &Code) -> Vec<Vec<bool>> {
    let mut needed: Vec<Vec<bool>> = code
        .instrs
        .iter()
        .map(|ins| match ins {
            Ins::Let(bindings, _) => vec![true; bindings.len()],
            _ => Vec::new(),
        })
        .collect();
    loop {
        let mut read = code.roots.clone();
        for (ins, needed) in code.instrs.iter().zip(&needed) {
            match ins {
                Ins::Let(bindings, _) => bindings
                    .iter()
                    .zip(needed)
                    .filter(|(_, n)| **n)
                    .for_each(|((_, e), _)| reads_captured(e, &mut read)),
                _ => ins_reads(ins, &mut read),
            }
        }
        let mut is_read = vec![false; code.globals];
        for i in read {
            if let Some(r) = is_read.get_mut(i) {
                *r = true;
            }
        }
        let mut changed = false;
        for (ins, needed) in code.instrs.iter().zip(&mut needed) {
            if let Ins::Let(bindings, _) = ins {
                for ((p, _), n) in bindings.iter().zip(needed.iter_mut()) {
                    let unread = pattern_slots(p).iter().all(
                        |s| matches!(s, Slot::Global(i) if !is_read.get(*i).copied().unwrap_or(false)),
                    );
                    if *n && unread {
                        *n = false;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            return needed;
        }
    }
}

/// Every global slot `e` reads, at any depth, with what its functions capture.
fn reads_captured(e: &Expr, out: &mut Vec<usize>) {
    match e {
        Expr::Var(Slot::Global(i)) => out.push(*i),
        Expr::Fun(code) => {
            out.extend(code.captures.iter().filter_map(|s| match s {
                Slot::Global(i) => Some(*i),
                _ => None,
            }));
            reads_captured(&code.body, out);
        }
        _ => {}
    }
    each_child(e, &mut |c| reads_captured(c, out));
}

/// Every global slot an instruction reads, nested bodies, functions and procedures
/// included.
fn ins_reads(ins: &Ins, out: &mut Vec<usize>) {
    let global = |s: &Slot| match s {
        Slot::Global(i) => Some(*i),
        _ => None,
    };
    match ins {
        Ins::Let(bindings, _) => bindings.iter().for_each(|(_, e)| reads_captured(e, out)),
        Ins::LetRecFuns(group, _) => {
            for c in group.iter() {
                out.extend(c.captures.iter().filter_map(global));
                reads_captured(&c.body, out);
            }
        }
        Ins::LetRecValues(values, when, _, _) => {
            values.iter().for_each(|(_, e)| reads_captured(e, out));
            if let Some(w) = when {
                reads_captured(&w.exp, out);
            }
        }
        Ins::Check { exp, .. } | Ins::WithFrom(_, exp, _) => {
            reads_captured(exp, out);
        }
        Ins::Call(a, b, _, _) => {
            reads_captured(a, out);
            reads_captured(b, out);
        }
        Ins::Procedure(_, code) => {
            out.extend(code.captures.iter().filter_map(global));
            code.body.iter().for_each(|i| ins_reads(i, out));
        }
        Ins::Forall(_, e, body, _) => {
            reads_captured(e, out);
            body.iter().for_each(|i| ins_reads(i, out));
        }
        Ins::Match(e, clauses, default, _) => {
            reads_captured(e, out);
            for i in clauses
                .iter()
                .flat_map(|(_, b)| b)
                .chain(default.iter().flatten())
            {
                ins_reads(i, out);
            }
        }
        Ins::Enum(..) | Ins::Fail(..) => {}
    }
}

/// Whether a slot is a function frame's, not a global.
fn is_local(s: &Slot) -> bool {
    !matches!(s, Slot::Global(_))
}

/// The global slots of a pattern.
fn pattern_slots(p: &Pat) -> Vec<Slot> {
    match p {
        Pat::One(s) => s.iter().copied().collect(),
        Pat::Tuple(ss) => ss.iter().flatten().copied().collect(),
    }
}

/// The global slots an expression binds, at any depth outside function bodies.
fn bound_in(e: &Expr, out: &mut Vec<usize>) {
    let mut add = |s: &Slot| {
        if let Slot::Global(i) = s {
            out.push(*i);
        }
    };
    match e {
        Expr::Let(bindings, _) => bindings
            .iter()
            .flat_map(|(p, _)| pattern_slots(p))
            .for_each(|s| add(&s)),
        Expr::LetRecFuns(_, slots, _) => slots.iter().for_each(add),
        Expr::LetRecValues(values, _, _) => values.iter().for_each(|(s, _)| add(s)),
        Expr::MatchSet { elt, rest, .. } => elt.iter().chain(rest).for_each(add),
        _ => {}
    }
    each_child(e, &mut |c| bound_in(c, out));
}

/// The global slots an instruction binds, nested bodies included.
fn bound_by(ins: &Ins, out: &mut Vec<Slot>) {
    match ins {
        Ins::Let(bindings, _) => {
            for (p, e) in bindings {
                out.extend(pattern_slots(p));
                bound_in_slots(e, out);
            }
        }
        Ins::LetRecFuns(_, slots) => out.extend(slots),
        Ins::LetRecValues(values, _, _, _) => {
            for (s, e) in values {
                out.push(*s);
                bound_in_slots(e, out);
            }
        }
        Ins::WithFrom(slot, _, _) | Ins::Procedure(slot, _) | Ins::Enum(slot, _) => out.push(*slot),
        Ins::Forall(slot, _, body, _) => {
            out.push(*slot);
            body.iter().for_each(|i| bound_by(i, out));
        }
        Ins::Match(_, clauses, default, _) => {
            for i in clauses
                .iter()
                .flat_map(|(_, b)| b)
                .chain(default.iter().flatten())
            {
                bound_by(i, out);
            }
        }
        Ins::Check { .. } | Ins::Call(..) | Ins::Fail(..) => {}
    }
}

/// The global slots an instruction sets, by index.
fn globals_set_by(ins: &Ins) -> Vec<usize> {
    let mut slots = Vec::new();
    bound_by(ins, &mut slots);
    slots
        .into_iter()
        .filter_map(|s| match s {
            Slot::Global(i) => Some(i),
            _ => None,
        })
        .collect()
}

fn bound_in_slots(e: &Expr, out: &mut Vec<Slot>) {
    let mut inner = Vec::new();
    bound_in(e, &mut inner);
    out.extend(inner.into_iter().map(Slot::Global));
}

/// Every global slot `e` reads, at any depth, function bodies included.
fn reads(e: &Expr, out: &mut Vec<usize>) {
    match e {
        Expr::Var(Slot::Global(i)) => out.push(*i),
        Expr::Fun(code) => reads(&code.body, out),
        _ => {}
    }
    each_child(e, &mut |c| reads(c, out));
}

/// Whether `e` reads one of the global slots `slots`.
fn reads_any(e: &Expr, slots: &[usize]) -> bool {
    if slots.is_empty() {
        return false;
    }
    if let Expr::Var(Slot::Global(i)) = e {
        return slots.contains(i);
    }
    if let Expr::Fun(code) = e {
        return reads_any(&code.body, slots);
    }
    let mut found = false;
    each_child(e, &mut |c| found |= reads_any(c, slots));
    found
}

/// Calls `f` on each direct subexpression of `e` (not into function bodies).
fn each_child<'e>(e: &'e Expr, f: &mut dyn FnMut(&'e Expr)) {
    match e {
        Expr::Empty
        | Expr::Universe
        | Expr::Tag(_)
        | Expr::Var(_)
        | Expr::Unbound(..)
        | Expr::Fun(_) => {}
        Expr::Op1(_, a, _) => f(a),
        Expr::Op(_, args, _) | Expr::Tuple(args) | Expr::Set(args, _) => args.iter().for_each(f),
        Expr::App(a, b, _) | Expr::Try(a, b) => {
            f(a);
            f(b);
        }
        Expr::Let(bindings, body) => {
            bindings.iter().for_each(|(_, e)| f(e));
            f(body);
        }
        Expr::LetRecFuns(group, _, body) => {
            group.iter().for_each(|c| f(&c.body));
            f(body);
        }
        Expr::LetRecValues(values, body, _) => {
            values.iter().for_each(|(_, e)| f(e));
            f(body);
        }
        Expr::MatchTag(x, clauses, default, _) => {
            f(x);
            clauses.iter().for_each(|(_, e)| f(e));
            if let Some(d) = default {
                f(d);
            }
        }
        Expr::MatchSet {
            exp,
            empty,
            nonempty,
            ..
        } => {
            f(exp);
            f(empty);
            f(nonempty);
        }
        Expr::If(c, a, b) => {
            if let CondIr::Eq(x, y) | CondIr::Subset(x, y) | CondIr::In(x, y) = &**c {
                f(x);
                f(y);
            }
            f(a);
            f(b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::compile::{self, CompileError, Includes};
    use super::super::{ast, parse};
    use super::*;
    use std::sync::Arc;

    struct NoIncludes;
    impl Includes for NoIncludes {
        fn include(
            &mut self,
            name: &str,
            span: ast::Span,
        ) -> Result<Arc<ast::Model>, CompileError> {
            Err(CompileError {
                message: format!("no file `{name}` here"),
                span,
            })
        }
    }

    /// The staged instructions of `model`, after the base names.
    fn staged(model: &str) -> Code {
        let m = parse(model, 0).unwrap_or_else(|e| panic!("{}", e.message));
        let mut code = compile::compile(&[&m], None, &[], Default::default(), &mut NoIncludes)
            .unwrap_or_else(|e| panic!("{}", e.message));
        stage(&mut code);
        code
    }

    /// An unused binding of an undefined name is no error, as in herd7; a used one stays
    /// one.
    #[test]
    fn an_unused_binding_of_an_undefined_name_is_skipped() {
        let code = staged("let a = 0 and b = zz\nlet c = zz | 0\nacyclic c | a as x\n");
        let bound = |name: &str| match binding(&code, name).0 {
            Ins::Let(b, _) => b
                .iter()
                .find(|(p, _)| pattern_slots(p) == [Slot::Global(slot(&code, name))])
                .map(|(_, e)| matches!(e, Expr::Empty)),
            _ => None,
        };
        assert_eq!(bound("b"), Some(true));
        assert_eq!(bound("c"), Some(false));
    }

    /// A binding nothing needs is never evaluated, as herd7's lazy `let` never evaluates
    /// it, however many unneeded bindings read it; nor is one only a `show` reads, which
    /// herd7 evaluates only to draw.
    #[test]
    fn what_no_answer_needs_is_not_evaluated() {
        let code = staged(
            "let a = zz\nlet b = a ; po\nlet c = yy | po\nlet d = po\nshow c\nacyclic d as x\n",
        );
        let bound = |name: &str| match binding(&code, name).0 {
            Ins::Let(b, _) => b
                .iter()
                .find(|(p, _)| pattern_slots(p) == [Slot::Global(slot(&code, name))])
                .map(|(_, e)| match e {
                    Expr::Empty => "skipped",
                    _ => "evaluated",
                }),
            _ => None,
        };
        assert_eq!(bound("a"), Some("skipped"));
        assert_eq!(bound("b"), Some("skipped"));
        assert_eq!(bound("c"), Some("skipped"));
        assert_eq!(bound("d"), Some("evaluated"));
    }

    /// The slot `name` has at the end of the model.
    fn slot(code: &Code, name: &str) -> usize {
        match code.finals.get(name) {
            Some(Slot::Global(i)) => *i,
            other => panic!("`{name}` is {other:?}"),
        }
    }

    /// The instruction that binds `name`, and those hoisted just before it.
    fn binding<'c>(code: &'c Code, name: &str) -> (&'c Ins, Vec<&'c Ins>) {
        let i = slot(code, name);
        let at = code
            .instrs
            .iter()
            .position(|ins| match ins {
                Ins::Let(b, _) => b.iter().any(|(p, _)| pattern_slots(p) == [Slot::Global(i)]),
                Ins::LetRecValues(v, ..) => v.iter().any(|(s, _)| *s == Slot::Global(i)),
                _ => false,
            })
            .unwrap_or_else(|| panic!("no binding of `{name}`"));
        let hoisted = code.instrs[..at]
            .iter()
            .rev()
            .take_while(|ins| match ins {
                Ins::Let(b, Some(_)) => {
                    b.len() == 1 && !code.finals.values().any(|s| pattern_slots(&b[0].0) == [*s])
                }
                _ => false,
            })
            .collect();
        (&code.instrs[at], hoisted)
    }

    fn fixed(ins: &Ins) -> bool {
        matches!(ins, Ins::Let(_, Some(_)) | Ins::LetRecValues(.., Some(_)))
    }

    #[test]
    fn what_the_paths_fix_is_fixed_and_what_reads_from_changes_is_not() {
        let code = staged(
            "\"t\"\nlet a = [R] ; po ; [W]\nlet b = a | rf\nlet c = b ; po\nacyclic c as x\n",
        );
        assert!(fixed(binding(&code, "a").0));
        assert!(!fixed(binding(&code, "b").0));
        assert!(!fixed(binding(&code, "c").0));
    }

    #[test]
    fn the_fixed_terms_of_a_dynamic_binding_are_computed_once() {
        let code =
            staged("\"t\"\nlet mb = ([M] ; po ; [W]) | (rf ; [R]) | (po & loc)\nacyclic mb as x\n");
        let (mb, hoisted) = binding(&code, "mb");
        assert!(!fixed(mb));
        // `[M] ; po ; [W]` and `po & loc` move out; `[R]` stays, to restrict `rf` in place.
        assert_eq!(hoisted.len(), 2, "{:#?}", code.instrs);
    }

    #[test]
    fn a_name_bound_inside_a_fixed_binding_is_kept_with_it() {
        let code = staged(
            "\"t\"\nlet f = let rec g x = x | (x ; po) in fun y -> g (y)\nlet h = f (rf)\nacyclic h as x\n",
        );
        let (f, _) = binding(&code, "f");
        let Ins::Let(_, Some(slots)) = f else {
            panic!("`f` is not fixed: {f:#?}");
        };
        // `f` and the `g` its closure reads.
        assert_eq!(slots.len(), 2);
    }

    #[test]
    fn nothing_moves_out_of_a_branch_a_try_or_a_function() {
        for model in [
            "\"t\"\nlet a = if rf = 0 then [W] ; po else 0\nacyclic a as x\n",
            "\"t\"\nlet a = try (domain(po) | rf) with 0\nacyclic a as x\n",
            "\"t\"\nlet a = let k = fun x -> ([W] ; po) | x in k(rf)\nacyclic a as x\n",
        ] {
            let code = staged(model);
            let (a, hoisted) = binding(&code, "a");
            assert!(!fixed(a), "{model}");
            assert!(hoisted.is_empty(), "{model}: {:#?}", code.instrs);
        }
    }

    #[test]
    fn a_fixpoint_leaves_out_what_does_not_depend_on_it() {
        let code = staged("\"t\"\nlet rec r = rf | (r ; [W] ; po ; [W]) | ([R] ; po)\n");
        let (r, hoisted) = binding(&code, "r");
        assert!(!fixed(r));
        // `[W] ; po ; [W]` (a run of the sequence) and `[R] ; po`.
        assert_eq!(hoisted.len(), 2, "{:#?}", code.instrs);
    }
}
