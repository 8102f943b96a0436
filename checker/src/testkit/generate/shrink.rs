//! Minimising: the sketches one step simpler than a sketch, and the greedy search that
//! takes the first of them that still fails.
//!
//! Every sketch is a valid program (the indices its statements hold are taken modulo what
//! exists), so any statement, thread or atom can be dropped without making the program
//! invalid; the steps are listed largest first, so that a search that takes the first
//! one that works cuts a program down fast.

use super::{
    Atom, C11Op, Fence, KernelAnnotation, LoopCond, Order, Ordering, Probe, ProbeRead, ReadKind,
    RmwOp, Sketch, SketchStmt, WriteKind,
};
use hazmat_litmus::ast::Quantifier;

impl Sketch {
    /// The sketches one step simpler than this one, the largest steps first: a thread
    /// dropped, a statement dropped, a compound statement replaced by its body (a loop by
    /// its body, or by its first round), a loop with a plainer read or one round fewer, a
    /// dependency dropped, an access or an ordering made the plainest marked one, an atom
    /// of the condition dropped or simplified, the quantifier made `exists`, an initial
    /// value dropped, an atom of the filter dropped.
    /// Minimising a failing program is taking the first of these that still fails, until
    /// none does.
    pub fn smaller(&self) -> Vec<Sketch> {
        let mut out = Vec::new();
        if self.threads.len() > 1 {
            for t in 0..self.threads.len() {
                let mut s = self.clone();
                s.threads.remove(t);
                out.push(s);
            }
        }
        for t in 0..self.threads.len() {
            for body in smaller_stmts(&self.threads[t]) {
                if body.is_empty() {
                    continue;
                }
                let mut s = self.clone();
                s.threads[t] = body;
                out.push(s);
            }
        }
        if self.condition.len() > 1 {
            for i in 0..self.condition.len() {
                let mut s = self.clone();
                s.condition.remove(i);
                out.push(s);
            }
        }
        for i in 0..self.condition.len() {
            let a = self.condition[i];
            if a != Atom::eq(a.target, a.value) {
                let mut s = self.clone();
                s.condition[i] = Atom::eq(a.target, a.value);
                out.push(s);
            }
        }
        for i in 0..self.filter.len() {
            let mut s = self.clone();
            s.filter.remove(i);
            out.push(s);
        }
        if self.quantifier != Quantifier::Exists {
            let mut s = self.clone();
            s.quantifier = Quantifier::Exists;
            out.push(s);
        }
        for i in 0..self.init.len() {
            let mut s = self.clone();
            s.init.remove(i);
            out.push(s);
        }
        out
    }
}

/// Minimises `sketch` greedily: `first_failing` is given the sketches one step simpler
/// than the current one ([`Sketch::smaller`]), a slice at a time, and says which of them,
/// if any, still fails; the first that does becomes the current sketch, until none does
/// or `max_steps` steps are taken.
/// The oracle tests ask herd7 and hazmat about each slice in one batch.
pub fn minimise(
    sketch: &Sketch,
    slice: usize,
    max_steps: usize,
    mut first_failing: impl FnMut(&[Sketch]) -> Option<usize>,
) -> Sketch {
    let mut current = sketch.clone();
    for _ in 0..max_steps {
        let candidates = current.smaller();
        let next = candidates
            .chunks(slice.max(1))
            .find_map(|chunk| first_failing(chunk).and_then(|i| chunk.get(i).cloned()));
        match next {
            Some(s) => current = s,
            None => break,
        }
    }
    current
}

/// The statement lists one step simpler than `stmts`: one statement dropped, or one
/// statement simplified (see [`smaller_stmt`]).
fn smaller_stmts(stmts: &[SketchStmt]) -> Vec<Vec<SketchStmt>> {
    let mut out = Vec::new();
    for i in 0..stmts.len() {
        let mut v = stmts.to_vec();
        v.remove(i);
        out.push(v);
    }
    for i in 0..stmts.len() {
        for replacement in smaller_stmt(&stmts[i]) {
            let mut v = stmts[..i].to_vec();
            v.extend(replacement);
            v.extend_from_slice(&stmts[i + 1..]);
            out.push(v);
        }
    }
    out
}

/// The statements that can stand for `s`, one step simpler: a compound statement's body
/// on its own (a loop's after its read), the compound statement around a simpler body, a
/// loop with a plainer read or fewer rounds, the statement without its dependency, or with
/// the plainest marked spelling.
pub(super) fn smaller_stmt(s: &SketchStmt) -> Vec<Vec<SketchStmt>> {
    let mut out = Vec::new();
    let around = |body: &[SketchStmt], make: &dyn Fn(Vec<SketchStmt>) -> SketchStmt| {
        let mut out = vec![body.to_vec()];
        for b in smaller_stmts(body) {
            if !b.is_empty() {
                out.push(vec![make(b)]);
            }
        }
        out
    };
    match s {
        SketchStmt::Write {
            var,
            value,
            kind,
            dep,
        } => {
            if dep.is_some() {
                out.push(vec![SketchStmt::Write {
                    var: *var,
                    value: *value,
                    kind: *kind,
                    dep: None,
                }]);
            }
            if *kind != WriteKind::Once {
                out.push(vec![SketchStmt::Write {
                    var: *var,
                    value: *value,
                    kind: WriteKind::Once,
                    dep: *dep,
                }]);
            }
        }
        SketchStmt::Read { var, kind, dep } => {
            if dep.is_some() {
                out.push(vec![SketchStmt::Read {
                    var: *var,
                    kind: *kind,
                    dep: None,
                }]);
            }
            if *kind != ReadKind::Once {
                out.push(vec![SketchStmt::Read {
                    var: *var,
                    kind: ReadKind::Once,
                    dep: *dep,
                }]);
            }
        }
        SketchStmt::Fence(f) => {
            if *f != Fence::Mb {
                out.push(vec![SketchStmt::Fence(Fence::Mb)]);
            }
        }
        SketchStmt::Rmw {
            var,
            op,
            ordering,
            dep,
        } => {
            if dep.is_some() {
                out.push(vec![SketchStmt::Rmw {
                    var: *var,
                    op: *op,
                    ordering: *ordering,
                    dep: None,
                }]);
            }
            if *ordering != Ordering::Relaxed {
                out.push(vec![SketchStmt::Rmw {
                    var: *var,
                    op: *op,
                    ordering: Ordering::Relaxed,
                    dep: *dep,
                }]);
            }
        }
        SketchStmt::If {
            reg,
            cond,
            then,
            els,
        } => {
            out.push(then.clone());
            if !els.is_empty() {
                out.push(els.clone());
                out.push(vec![SketchStmt::If {
                    reg: *reg,
                    cond: *cond,
                    then: then.clone(),
                    els: Vec::new(),
                }]);
            }
            for b in smaller_stmts(then) {
                if !b.is_empty() {
                    out.push(vec![SketchStmt::If {
                        reg: *reg,
                        cond: *cond,
                        then: b,
                        els: els.clone(),
                    }]);
                }
            }
            for b in smaller_stmts(els) {
                out.push(vec![SketchStmt::If {
                    reg: *reg,
                    cond: *cond,
                    then: then.clone(),
                    els: b,
                }]);
            }
        }
        SketchStmt::Lock { lock, body } => {
            out.extend(around(body, &|body| SketchStmt::Lock { lock: *lock, body }));
        }
        SketchStmt::TryLock { lock, body } => {
            out.extend(around(body, &|body| SketchStmt::TryLock {
                lock: *lock,
                body,
            }));
            out.push(vec![SketchStmt::Lock {
                lock: *lock,
                body: body.clone(),
            }]);
        }
        SketchStmt::RcuRead(body) => out.extend(around(body, &SketchStmt::RcuRead)),
        SketchStmt::SrcuRead { domain, body } => {
            out.extend(around(body, &|body| SketchStmt::SrcuRead {
                domain: *domain,
                body,
            }));
        }
        SketchStmt::PtrRead { kind, deref } => {
            if deref.is_some() {
                out.push(vec![SketchStmt::PtrRead {
                    kind: *kind,
                    deref: None,
                }]);
            }
        }
        SketchStmt::While { cond, body } => {
            // The loop unwrapped: its body run once, after its read for a loop that reads.
            if !body.is_empty() {
                out.push(body.clone());
            }
            if let LoopCond::Spin(p) | LoopCond::Poll(p) = cond {
                let mut once = vec![probe_stmt(p)];
                once.extend(body.iter().cloned());
                out.push(once);
            }
            for b in smaller_stmts(body) {
                out.push(vec![SketchStmt::While {
                    cond: *cond,
                    body: b,
                }]);
            }
            for c in smaller_cond(cond) {
                out.push(vec![SketchStmt::While {
                    cond: c,
                    body: body.clone(),
                }]);
            }
        }
        SketchStmt::C11(op) => {
            out.extend(
                smaller_c11(op)
                    .into_iter()
                    .map(|o| vec![SketchStmt::C11(o)]),
            );
        }
        SketchStmt::IsLocked { .. }
        | SketchStmt::SynchronizeSrcu { .. }
        | SketchStmt::PtrWrite { .. }
        | SketchStmt::Deref { .. } => {}
    }
    out
}

/// The C11 primitives one step plainer than `op`: relaxed orders instead of others, a
/// strong compare-exchange instead of a weak one.
fn smaller_c11(op: &C11Op) -> Vec<C11Op> {
    let relaxed = |o: &Option<Order>| match o {
        Some(Order::Relaxed) => None,
        _ => Some(Some(Order::Relaxed)),
    };
    let mut out = Vec::new();
    match op {
        C11Op::Load { var, order } => {
            if let Some(order) = relaxed(order) {
                out.push(C11Op::Load { var: *var, order });
            }
        }
        C11Op::Store { var, value, order } => {
            if let Some(order) = relaxed(order) {
                out.push(C11Op::Store {
                    var: *var,
                    value: *value,
                    order,
                });
            }
        }
        C11Op::Exchange { var, value, order } => {
            if let Some(order) = relaxed(order) {
                out.push(C11Op::Exchange {
                    var: *var,
                    value: *value,
                    order,
                });
            }
        }
        C11Op::Fetch {
            var,
            op,
            value,
            order,
        } => {
            if let Some(order) = relaxed(order) {
                out.push(C11Op::Fetch {
                    var: *var,
                    op: *op,
                    value: *value,
                    order,
                });
            }
        }
        C11Op::CompareExchange {
            var,
            expected,
            desired,
            orders,
            strong,
        } => {
            let plain = Some((Order::Relaxed, Order::Relaxed));
            if *orders != plain {
                out.push(C11Op::CompareExchange {
                    var: *var,
                    expected: *expected,
                    desired: *desired,
                    orders: plain,
                    strong: *strong,
                });
            }
            if !strong {
                out.push(C11Op::CompareExchange {
                    var: *var,
                    expected: *expected,
                    desired: *desired,
                    orders: *orders,
                    strong: true,
                });
            }
        }
        C11Op::Fence(order) => {
            if *order != Order::Relaxed {
                out.push(C11Op::Fence(Order::Relaxed));
            }
        }
        C11Op::Dropped(inner) => {
            // The value kept, then the operation made plainer.
            out.push((**inner).clone());
            out.extend(
                smaller_c11(inner)
                    .into_iter()
                    .map(|op| C11Op::Dropped(Box::new(op))),
            );
        }
        C11Op::Kernel {
            var,
            value,
            op,
            annotation,
        } => {
            if *annotation != KernelAnnotation::Once {
                out.push(C11Op::Kernel {
                    var: *var,
                    value: *value,
                    op: *op,
                    annotation: KernelAnnotation::Once,
                });
            }
        }
        C11Op::PlainRead { .. } | C11Op::PlainWrite { .. } => {}
    }
    out
}

/// The read of a loop as a statement of its own: the loop's first round.
fn probe_stmt(p: &Probe) -> SketchStmt {
    let rmw = |op, ordering| SketchStmt::Rmw {
        var: p.var,
        op,
        ordering,
        dep: None,
    };
    match p.read {
        ProbeRead::Read(kind) => SketchStmt::Read {
            var: p.var,
            kind,
            dep: None,
        },
        ProbeRead::Xchg(ordering) => rmw(
            RmwOp::Xchg {
                value: 1,
                atomic: false,
            },
            ordering,
        ),
        ProbeRead::Cmpxchg(ordering) => rmw(
            RmwOp::Cmpxchg {
                expected: 0,
                new: 1,
                atomic: false,
            },
            ordering,
        ),
    }
}

/// The loop shapes one step simpler than `cond`: a read made `READ_ONCE`, a
/// read-modify-write made relaxed, a counting loop with one round fewer.
fn smaller_cond(cond: &LoopCond) -> Vec<LoopCond> {
    let plainer = |p: &Probe| -> Vec<Probe> {
        let with = |read| Probe { read, ..*p };
        match p.read {
            ProbeRead::Read(ReadKind::Once) => Vec::new(),
            ProbeRead::Read(_) => vec![with(ProbeRead::Read(ReadKind::Once))],
            ProbeRead::Xchg(o) | ProbeRead::Cmpxchg(o) => {
                let mut out = vec![with(ProbeRead::Read(ReadKind::Once))];
                if o != Ordering::Relaxed {
                    out.push(with(match p.read {
                        ProbeRead::Xchg(_) => ProbeRead::Xchg(Ordering::Relaxed),
                        _ => ProbeRead::Cmpxchg(Ordering::Relaxed),
                    }));
                }
                out
            }
        }
    };
    match cond {
        LoopCond::Spin(p) => plainer(p).into_iter().map(LoopCond::Spin).collect(),
        LoopCond::Poll(p) => plainer(p).into_iter().map(LoopCond::Poll).collect(),
        LoopCond::Count { bound } if *bound > 1 => vec![LoopCond::Count { bound: bound - 1 }],
        LoopCond::Count { .. } => Vec::new(),
    }
}
