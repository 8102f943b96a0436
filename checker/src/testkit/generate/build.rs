//! Sketches become litmus tests, and the construct classes of what they become.
//!
//! Registers are numbered in the order the statements need them, as diy7 numbers them:
//! the register of a read, then the temporary of a dependency on it, then the next
//! read's.
//! A statement's indices (variable, lock, domain, earlier register) are taken modulo what
//! exists where it ends up, so every sketch gives a valid program.

use super::{
    Atom, C11Op, Class, Cond, Dep, DepKind, FetchOp, Join, LOCKS, LoopCond, Order, Ordering, Probe,
    ProbeRead, ReadKind, RmwOp, SRCU, Shown, Sketch, SketchStmt, Target, TestOp, VARS, ValueForm,
    WriteKind, Zero,
};
use hazmat_litmus::ast::{
    self, BinaryOp, Condition, Expr, ExprKind, Ident, InitItem, InitValue, Location, Param, Prop,
    PropKind, Quantifier, Span, Stmt, StmtKind, Test, Thread, Type,
};
use std::collections::BTreeSet;

/// The name of the pointer variable.
const POINTER: &str = "p";

impl Sketch {
    /// The litmus test of the sketch, named `name`.
    pub fn to_test(&self, name: &str) -> Test {
        build(self, name).0
    }

    /// The construct classes of the program [`Sketch::to_test`] writes (a dependency on
    /// a thread that reads nothing before it, for one, is not written, and does not
    /// count).
    pub fn classes(&self) -> BTreeSet<Class> {
        build(self, "generated").1
    }

    /// The names its threads call (`READ_ONCE`, `smp_mb`...).
    pub fn calls(&self) -> BTreeSet<String> {
        let mut names = BTreeSet::new();
        for t in &self.to_test("generated").threads {
            for s in &t.body {
                stmt_calls(s, &mut names);
            }
        }
        names
    }
}

fn stmt_calls(s: &Stmt, out: &mut BTreeSet<String>) {
    match &s.kind {
        StmtKind::Decl { init, .. } => init.iter().for_each(|e| expr_calls(e, out)),
        StmtKind::Assign { lhs, rhs } => {
            expr_calls(lhs, out);
            expr_calls(rhs, out);
        }
        StmtKind::Expr(e) => expr_calls(e, out),
        StmtKind::If { cond, then, els } => {
            expr_calls(cond, out);
            stmt_calls(then, out);
            els.iter().for_each(|e| stmt_calls(e, out));
        }
        StmtKind::Block(b) => b.iter().for_each(|s| stmt_calls(s, out)),
        StmtKind::While { cond, body } => {
            expr_calls(cond, out);
            stmt_calls(body, out);
        }
        _ => {}
    }
}

fn expr_calls(e: &Expr, out: &mut BTreeSet<String>) {
    match &e.kind {
        ExprKind::Call { func, args } => {
            out.insert(func.name.clone());
            args.iter().for_each(|a| expr_calls(a, out));
        }
        ExprKind::Deref(a) | ExprKind::Cast(_, a) => expr_calls(a, out),
        ExprKind::Binary(_, a, b) => {
            expr_calls(a, out);
            expr_calls(b, out);
        }
        _ => {}
    }
}

/// One thread, written.
struct Built {
    body: Vec<Stmt>,
    /// The registers allocated: `r0` to `r{regs - 1}`.
    regs: usize,
    /// The registers the condition may test.
    observable: Vec<usize>,
    /// The registers holding pointers.
    pointers: Vec<usize>,
    used_vars: BTreeSet<usize>,
    used_locks: BTreeSet<usize>,
    used_domains: BTreeSet<usize>,
    uses_pointer: bool,
}

/// The test of `sketch`, named `name`, and its construct classes.
fn build(sketch: &Sketch, name: &str) -> (Test, BTreeSet<Class>) {
    let vars: Vec<&str> = VARS[..sketch.vars.clamp(1, VARS.len())].to_vec();
    let mut classes = BTreeSet::new();
    let mut built = Vec::new();
    for stmts in &sketch.threads {
        let mut b = ThreadBuilder {
            vars: &vars,
            regs: 0,
            sources: Vec::new(),
            observable: Vec::new(),
            pointers: Vec::new(),
            used_vars: BTreeSet::new(),
            used_locks: BTreeSet::new(),
            used_domains: BTreeSet::new(),
            uses_pointer: false,
            classes: &mut classes,
        };
        let mut body = Vec::new();
        b.stmts(stmts, &mut body);
        built.push(Built {
            body,
            regs: b.regs,
            observable: b.observable,
            pointers: b.pointers,
            used_vars: b.used_vars,
            used_locks: b.used_locks,
            used_domains: b.used_domains,
            uses_pointer: b.uses_pointer,
        });
    }

    // The variables the program names: all of them, or those some thread uses.
    let used: BTreeSet<usize> = built
        .iter()
        .flat_map(|t| t.used_vars.iter().copied())
        .collect();
    let program_vars: Vec<usize> = if sketch.all_params || used.is_empty() {
        (0..vars.len()).collect()
    } else {
        used.into_iter().collect()
    };
    let locks: Vec<usize> = built
        .iter()
        .flat_map(|t| t.used_locks.iter().copied())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let pointer = built.iter().any(|t| t.uses_pointer);

    let mut threads = Vec::new();
    for (i, t) in built.iter().enumerate() {
        let mut params: Vec<Param> = Vec::new();
        let thread_vars: Vec<usize> = if sketch.all_params {
            (0..vars.len()).collect()
        } else {
            t.used_vars.iter().copied().collect()
        };
        for v in thread_vars {
            params.push(param(type_of("int", 1), vars[v]));
        }
        if t.uses_pointer {
            params.push(param(type_of("int", 2), POINTER));
        }
        for &l in &t.used_locks {
            params.push(param(type_of("spinlock_t", 1), LOCKS[l]));
        }
        for &d in &t.used_domains {
            params.push(param(type_of("struct srcu_struct", 1), SRCU[d]));
        }
        let mut stmts: Vec<Stmt> = (0..t.regs)
            .map(|r| {
                let pointers = u32::from(t.pointers.contains(&r));
                stmt(StmtKind::Decl {
                    ty: type_of("int", pointers),
                    name: ident(&format!("r{r}")),
                    init: None,
                })
            })
            .collect();
        stmts.extend(t.body.iter().cloned());
        threads.push(Thread {
            id: i as u32,
            name_span: Span::DUMMY,
            params,
            body: stmts,
            span: Span::DUMMY,
        });
    }

    let mut init = Vec::new();
    let mut initialised = BTreeSet::new();
    for &(v, value) in &sketch.init {
        let v = v % vars.len();
        if program_vars.contains(&v) && initialised.insert(v) {
            init.push(InitItem {
                ty: None,
                target: Location::Global(ident(vars[v])),
                value: Some(InitValue::Int(value)),
                span: Span::DUMMY,
            });
        }
    }
    if !init.is_empty() {
        classes.insert(Class::Init);
    }
    // The pointer starts at the last variable, so that it has an address to give before
    // any thread writes it.
    if pointer {
        init.push(InitItem {
            ty: Some(type_of("int", 1)),
            target: Location::Global(ident(POINTER)),
            value: Some(InitValue::Addr(ident(vars[vars.len() - 1]))),
            span: Span::DUMMY,
        });
    }

    // The shared locations the condition and `locations` may name: the variables, then the
    // pointer.
    let globals: Vec<&str> = program_vars
        .iter()
        .map(|&v| vars[v])
        .chain(pointer.then_some(POINTER))
        .collect();
    let global = |v: usize| Location::Global(ident(globals[v % globals.len()]));
    let registers = |out: &mut Vec<Location>| {
        for (t, thread) in built.iter().enumerate() {
            out.extend((0..thread.regs).map(|r| register(t, r)));
        }
    };
    let locations = match sketch.shown {
        Shown::All => {
            let mut locations = Vec::new();
            registers(&mut locations);
            locations.extend((0..globals.len()).map(global));
            Some(locations)
        }
        Shown::None => {
            classes.insert(Class::LocationsNone);
            None
        }
        Shown::Some(mask) => {
            let mut all = Vec::new();
            registers(&mut all);
            all.extend((0..globals.len()).map(global));
            let first_lock = all.len();
            all.extend(locks.iter().map(|&l| Location::Global(ident(LOCKS[l]))));
            let mut shown = Vec::new();
            for (i, loc) in all.into_iter().enumerate() {
                if mask & (1 << (i % 64)) != 0 {
                    if i >= first_lock {
                        classes.insert(Class::LockFinal);
                    }
                    shown.push(loc);
                }
            }
            if shown.is_empty() {
                classes.insert(Class::LocationsNone);
                None
            } else {
                classes.insert(Class::LocationsSome);
                Some(shown)
            }
        }
    };

    let with_regs: Vec<usize> = (0..built.len())
        .filter(|&t| !built[t].observable.is_empty())
        .collect();
    // The register `(t, r)` picks among the registers the condition may test.
    let pick = |t: usize, r: usize| -> Option<(usize, usize)> {
        let t = *with_regs.get(t % with_regs.len().max(1))?;
        Some((t, built[t].observable[r % built[t].observable.len()]))
    };
    let is_pointer = |(t, r): (usize, usize)| built[t].pointers.contains(&r);
    let atoms = |atoms: &[Atom], classes: &mut BTreeSet<Class>| -> Option<Prop> {
        let mut prop: Option<Prop> = None;
        for (i, a) in atoms.iter().enumerate() {
            // A pointer is compared with an address, the variable the value indexes.
            let address =
                || ast::Value::Addr(ident(vars[a.value.unsigned_abs() as usize % vars.len()]));
            let (loc, pointer) = match a.target {
                Target::Reg(t, r) if !with_regs.is_empty() => {
                    let (t, r) = pick(t, r).expect("a thread with registers");
                    (register(t, r), is_pointer((t, r)))
                }
                Target::Lock(l) if !locks.is_empty() => {
                    classes.insert(Class::LockFinal);
                    (
                        Location::Global(ident(LOCKS[locks[l % locks.len()]])),
                        false,
                    )
                }
                Target::Reg(_, v) | Target::Var(v) | Target::Lock(v) => {
                    (global(v), globals[v % globals.len()] == POINTER)
                }
            };
            let against = a
                .against
                .and_then(|(t, r)| pick(t, r))
                .filter(|&reg| !pointer && !is_pointer(reg));
            let value = match against {
                Some((t, r)) => {
                    classes.insert(Class::RegCompare);
                    ast::Value::Register {
                        thread: t as u32,
                        reg: ident(&format!("r{r}")),
                        span: Span::DUMMY,
                    }
                }
                None if pointer => address(),
                None => ast::Value::Int(a.value),
            };
            // herd7 compares with a register only by `=`: `!=` against one is written as
            // a negated equality.
            let against_reg = matches!(value, ast::Value::Register { .. });
            let ne = a.ne && !against_reg;
            let negated = a.negated ^ (a.ne && against_reg);
            if ne {
                classes.insert(Class::Not);
            }
            let mut atom = prop_of(PropKind::Atom(ast::Atom {
                loc,
                op: if ne { ast::CmpOp::Ne } else { ast::CmpOp::Eq },
                value,
                span: Span::DUMMY,
            }));
            if negated {
                classes.insert(Class::Not);
                atom = prop_of(PropKind::Not(Box::new(atom)));
            }
            prop = Some(match prop {
                None => atom,
                Some(p) if i > 0 && a.join == Join::Or => {
                    classes.insert(Class::Or);
                    prop_of(PropKind::Or(Box::new(p), Box::new(atom)))
                }
                Some(p) if i > 0 && a.join == Join::Implies => {
                    classes.insert(Class::Implies);
                    prop_of(PropKind::Implies(Box::new(p), Box::new(atom)))
                }
                Some(p) => prop_of(PropKind::And(Box::new(p), Box::new(atom))),
            });
        }
        prop
    };
    let prop = atoms(&sketch.condition, &mut classes);
    let filter = atoms(&sketch.filter, &mut classes);
    if filter.is_some() {
        classes.insert(Class::Filter);
    }
    match sketch.quantifier {
        Quantifier::Exists => {}
        Quantifier::NotExists => {
            classes.insert(Class::NotExists);
        }
        Quantifier::Forall => {
            classes.insert(Class::Forall);
        }
    }
    let test = Test {
        arch: "C".into(),
        name: ident(name),
        doc: None,
        info: Vec::new(),
        comments: Vec::new(),
        expectations: Vec::new(),
        init,
        threads,
        regions: None,
        locations,
        filter,
        condition: Some(Condition {
            quantifier: sketch.quantifier,
            prop: prop.unwrap_or(prop_of(PropKind::True)),
            span: Span::DUMMY,
        }),
        span: Span::DUMMY,
    };
    (test, classes)
}

/// One thread being written.
struct ThreadBuilder<'a> {
    vars: &'a [&'a str],
    /// The registers allocated so far: `r0` to `r{regs - 1}`.
    regs: usize,
    /// The registers holding a value read from a variable, which dependencies and `if`s
    /// start from.
    sources: Vec<usize>,
    /// The registers the condition may test: `sources`, and the results of lock and SRCU
    /// primitives.
    observable: Vec<usize>,
    /// The registers holding a pointer read from `p`, which `Deref` goes through.
    pointers: Vec<usize>,
    used_vars: BTreeSet<usize>,
    used_locks: BTreeSet<usize>,
    used_domains: BTreeSet<usize>,
    uses_pointer: bool,
    classes: &'a mut BTreeSet<Class>,
}

impl ThreadBuilder<'_> {
    fn fresh(&mut self) -> usize {
        self.regs += 1;
        self.regs - 1
    }

    /// A register holding a value read from memory.
    fn source(&mut self) -> usize {
        let r = self.fresh();
        self.sources.push(r);
        self.observable.push(r);
        r
    }

    /// A register holding a lock's or a domain's answer.
    fn answer(&mut self) -> usize {
        let r = self.fresh();
        self.observable.push(r);
        r
    }

    fn var(&mut self, var: usize) -> Expr {
        let v = var % self.vars.len();
        self.used_vars.insert(v);
        name(self.vars[v])
    }

    fn lock(&mut self, lock: usize) -> Expr {
        let l = lock % LOCKS.len();
        self.used_locks.insert(l);
        name(LOCKS[l])
    }

    fn domain(&mut self, domain: usize) -> Expr {
        let d = domain % SRCU.len();
        self.used_domains.insert(d);
        name(SRCU[d])
    }

    /// The register `reg` picks among the sources so far, if there is one.
    fn pick(&self, reg: usize) -> Option<usize> {
        (!self.sources.is_empty()).then(|| self.sources[reg % self.sources.len()])
    }

    /// Writes `rT = zero(r)` and returns `rT`.
    fn zero(&mut self, from: usize, zero: Zero, out: &mut Vec<Stmt>) -> usize {
        let r = || reg(from);
        let value = match zero {
            Zero::Xor => binary(BinaryOp::BitXor, r(), r()),
            Zero::Sub => binary(BinaryOp::Sub, r(), r()),
            Zero::And => binary(BinaryOp::BitAnd, r(), int(0)),
            Zero::Mul => binary(BinaryOp::Mul, r(), int(0)),
        };
        if zero != Zero::Xor {
            self.classes.insert(Class::DepArith);
        }
        let t = self.fresh();
        out.push(assign(t, value));
        t
    }

    /// The location and the value of an access of `var` with dependency `dep`, writing the
    /// statements the dependency needs first; `value` is `None` for an access that writes
    /// no value.
    fn operands(
        &mut self,
        var: usize,
        value: Option<i64>,
        dep: Option<Dep>,
        out: &mut Vec<Stmt>,
    ) -> (Expr, Option<Expr>) {
        let loc = self.var(var);
        // A data dependency needs a value to reach.
        let resolved = dep
            .filter(|d| d.kind == DepKind::Addr || value.is_some())
            .and_then(|d| self.pick(d.reg).map(|r| (d, r)));
        let Some((d, from)) = resolved else {
            return (loc, value.map(int));
        };
        match d.kind {
            DepKind::Addr => {
                self.classes.insert(Class::AddrDep);
                let t = self.zero(from, d.zero, out);
                (binary(BinaryOp::Add, loc, reg(t)), value.map(int))
            }
            DepKind::Data => {
                self.classes.insert(Class::DataDep);
                let t = self.zero(from, d.zero, out);
                let v = value.unwrap_or(0);
                out.push(assign(t, binary(BinaryOp::Add, reg(t), int(v))));
                (loc, Some(reg(t)))
            }
            DepKind::Value => {
                self.classes.insert(Class::ValueDep);
                let value = match d.form {
                    ValueForm::Plain => reg(from),
                    ValueForm::PlusZero => binary(BinaryOp::Add, reg(from), int(0)),
                    ValueForm::OrZero => binary(BinaryOp::BitOr, int(0), reg(from)),
                    ValueForm::Copy => {
                        out.push(stmt(StmtKind::Expr(reg(from))));
                        let copy = self.fresh();
                        out.push(assign(copy, reg(from)));
                        reg(copy)
                    }
                    ValueForm::PlusRegister(other) => {
                        let other = self.pick(other).unwrap_or(from);
                        binary(BinaryOp::Add, reg(from), reg(other))
                    }
                };
                (loc, Some(value))
            }
        }
    }

    /// The read a loop repeats, as an expression.
    fn probe(&mut self, probe: &Probe) -> Expr {
        let loc = self.var(probe.var);
        match probe.read {
            ProbeRead::Read(kind) => {
                self.classes.insert(kind.class());
                read(kind, loc)
            }
            ProbeRead::Xchg(ordering) => {
                self.classes.insert(Class::RmwXchg);
                call(&format!("xchg{}", ordering.suffix()), vec![loc, int(1)])
            }
            ProbeRead::Cmpxchg(ordering) => {
                self.classes.insert(Class::RmwCmpxchg);
                call(
                    &format!("cmpxchg{}", ordering.suffix()),
                    vec![loc, int(0), int(1)],
                )
            }
        }
    }

    /// `while (cond) body`, with the statements before it that its shape needs.
    fn loop_stmt(&mut self, cond: &LoopCond, body: &[SketchStmt], out: &mut Vec<Stmt>) {
        self.classes.insert(Class::Loop);
        let test = |probe: &Probe, e: Expr| {
            let op = if probe.ne { BinaryOp::Ne } else { BinaryOp::Eq };
            binary(op, e, int(probe.value))
        };
        match cond {
            // herd7 has no empty block: a loop that only reads is a spin loop.
            LoopCond::Spin(probe) | LoopCond::Poll(probe)
                if body.is_empty() || matches!(cond, LoopCond::Spin(_)) =>
            {
                let r = self.source();
                let e = self.probe(probe);
                out.push(assign(r, e.clone()));
                let mut inner = Vec::new();
                self.stmts(body, &mut inner);
                inner.push(assign(r, e));
                out.push(while_stmt(test(probe, reg(r)), inner));
            }
            LoopCond::Spin(probe) | LoopCond::Poll(probe) => {
                let e = self.probe(probe);
                let mut inner = Vec::new();
                self.stmts(body, &mut inner);
                out.push(while_stmt(test(probe, e), inner));
            }
            LoopCond::Count { bound } => {
                let r = self.answer();
                out.push(assign(r, int(0)));
                let mut inner = Vec::new();
                self.stmts(body, &mut inner);
                inner.push(assign(r, binary(BinaryOp::Add, reg(r), int(1))));
                out.push(while_stmt(binary(BinaryOp::Lt, reg(r), int(*bound)), inner));
            }
        }
    }

    fn stmts(&mut self, stmts: &[SketchStmt], out: &mut Vec<Stmt>) {
        for s in stmts {
            self.stmt(s, out);
        }
    }

    /// A primitive of herd7's C11 dialect: the `_explicit` form with its orders, or the
    /// form without them.
    fn c11(&mut self, op: &C11Op, out: &mut Vec<Stmt>) {
        self.classes.extend(op.classes());
        let spelled = |base: &str, orders: &[Order]| {
            if orders.is_empty() {
                base.to_string()
            } else {
                format!("{base}_explicit")
            }
        };
        let words = |orders: &[Order]| orders.iter().map(|o| name(o.word())).collect::<Vec<_>>();
        let one = |order: &Option<Order>| order.iter().copied().collect::<Vec<_>>();
        match op {
            C11Op::PlainRead { var } => {
                let loc = self.var(*var);
                let r = self.source();
                out.push(assign(r, deref(loc)));
            }
            C11Op::PlainWrite { var, value } => {
                let loc = self.var(*var);
                out.push(stmt(StmtKind::Assign {
                    lhs: deref(loc),
                    rhs: int(*value),
                }));
            }
            C11Op::Load { var, order } => {
                let orders = one(order);
                let mut args = vec![self.var(*var)];
                args.extend(words(&orders));
                let r = self.source();
                out.push(assign(r, call(&spelled("atomic_load", &orders), args)));
            }
            C11Op::Store { var, value, order } => {
                let orders = one(order);
                let mut args = vec![self.var(*var), int(*value)];
                args.extend(words(&orders));
                out.push(call_stmt(&spelled("atomic_store", &orders), args));
            }
            C11Op::Exchange { var, value, order } => {
                let orders = one(order);
                let mut args = vec![self.var(*var), int(*value)];
                args.extend(words(&orders));
                let r = self.source();
                out.push(assign(r, call(&spelled("atomic_exchange", &orders), args)));
            }
            C11Op::Fetch {
                var,
                op,
                value,
                order,
            } => {
                let orders = one(order);
                let mut args = vec![self.var(*var), int(*value)];
                args.extend(words(&orders));
                let r = self.source();
                let base = format!("atomic_fetch_{}", op.name());
                out.push(assign(r, call(&spelled(&base, &orders), args)));
            }
            C11Op::CompareExchange {
                var,
                expected,
                desired,
                orders,
                strong,
            } => {
                let orders: Vec<Order> = orders.iter().flat_map(|(s, f)| [*s, *f]).collect();
                let mut args = vec![self.var(*var), self.var(*expected), int(*desired)];
                args.extend(words(&orders));
                let base = if *strong {
                    "atomic_compare_exchange_strong"
                } else {
                    "atomic_compare_exchange_weak"
                };
                let r = self.answer();
                out.push(assign(r, call(&spelled(base, &orders), args)));
            }
            C11Op::Fence(order) => {
                out.push(call_stmt("atomic_thread_fence", words(&[*order])));
            }
            C11Op::Dropped(inner) => {
                // The read-modify-write as it is written, its assignment dropped.
                let mut one = Vec::new();
                self.c11(inner, &mut one);
                for s in one {
                    out.push(match s.kind {
                        StmtKind::Assign { rhs, .. } => stmt(StmtKind::Expr(rhs)),
                        kind => stmt(kind),
                    });
                }
            }
            C11Op::Kernel {
                var,
                value,
                op,
                annotation,
            } => {
                let func = if op.is_some() {
                    "__atomic_op"
                } else {
                    "__xchg"
                };
                let instruction = expr(ExprKind::Instruction {
                    func: ident(func),
                    annotations: vec![ident(annotation.word())],
                    op: op.map(FetchOp::atomic_op),
                    args: vec![self.var(*var), int(*value)],
                });
                if op.is_some() {
                    out.push(stmt(StmtKind::Expr(instruction)));
                } else {
                    let r = self.source();
                    out.push(assign(r, instruction));
                }
            }
        }
    }

    fn stmt(&mut self, s: &SketchStmt, out: &mut Vec<Stmt>) {
        match s {
            SketchStmt::Write {
                var,
                value,
                kind,
                dep,
            } => {
                self.classes.insert(kind.class());
                let (loc, value) = self.operands(*var, Some(*value), *dep, out);
                out.push(write(*kind, loc, value.unwrap_or_else(|| int(0))));
            }
            SketchStmt::Read { var, kind, dep } => {
                self.classes.insert(kind.class());
                let (loc, _) = self.operands(*var, None, *dep, out);
                let r = self.source();
                out.push(assign(r, read(*kind, loc)));
            }
            SketchStmt::PtrRead { kind, deref } => {
                self.classes.insert(Class::Pointer);
                self.classes.insert(kind.class());
                self.uses_pointer = true;
                let r = self.answer();
                self.pointers.push(r);
                out.push(assign(r, read(*kind, name(POINTER))));
                if let Some(kind) = deref {
                    self.classes.insert(kind.class());
                    let v = self.source();
                    out.push(assign(v, read(*kind, reg(r))));
                }
            }
            SketchStmt::PtrWrite { var, kind } => {
                self.classes.insert(Class::Pointer);
                self.classes.insert(kind.class());
                self.uses_pointer = true;
                let value = self.var(*var);
                out.push(write(*kind, name(POINTER), value));
            }
            SketchStmt::Deref { reg: which, value } => {
                // With no pointer read yet, the thread reads one first.
                if self.pointers.is_empty() {
                    self.stmt(
                        &SketchStmt::PtrRead {
                            kind: ReadKind::Once,
                            deref: None,
                        },
                        out,
                    );
                }
                self.classes.insert(Class::Pointer);
                self.classes.insert(Class::Once);
                let r = self.pointers[which % self.pointers.len()];
                match value {
                    Some(v) => out.push(write(WriteKind::Once, reg(r), int(*v))),
                    None => {
                        let v = self.source();
                        out.push(assign(v, read(ReadKind::Once, reg(r))));
                    }
                }
            }
            SketchStmt::Fence(f) => {
                self.classes.insert(f.class());
                out.push(call_stmt(f.name(), Vec::new()));
            }
            SketchStmt::C11(op) => self.c11(op, out),
            SketchStmt::Rmw {
                var,
                op,
                ordering,
                dep,
            } => {
                let op = match *op {
                    RmwOp::OpReturn { op, value } if !op.has_return() => {
                        RmwOp::FetchOp { op, value }
                    }
                    op => op,
                };
                self.classes.insert(op.class());
                let operand = match op {
                    RmwOp::Xchg { value, .. } => Some(value),
                    RmwOp::Cmpxchg { new, .. } => Some(new),
                    RmwOp::Op { op, value }
                    | RmwOp::OpReturn { op, value }
                    | RmwOp::FetchOp { op, value } => op.has_operand().then_some(value),
                    RmwOp::Test { op, value } => {
                        matches!(op, TestOp::SubAndTest | TestOp::AddNegative).then_some(value)
                    }
                    RmwOp::AddUnless { value, .. } => Some(value),
                };
                let (loc, v) = self.operands(*var, operand, *dep, out);
                let (func, args, returns) = rmw_call(op, *ordering, loc, v);
                let e = call(&func, args);
                if returns {
                    let r = self.source();
                    out.push(assign(r, e));
                } else {
                    out.push(stmt(StmtKind::Expr(e)));
                }
            }
            SketchStmt::If {
                reg: which,
                cond,
                then,
                els,
            } => {
                let Some(from) = self.pick(*which) else {
                    self.stmts(then, out);
                    return;
                };
                self.classes.insert(Class::CtrlDep);
                let test = match cond {
                    Cond::Diy => {
                        let t = self.fresh();
                        out.push(assign(t, binary(BinaryOp::Eq, reg(from), int(0))));
                        binary(BinaryOp::Ge, reg(t), int(0))
                    }
                    Cond::Eq(v) => binary(BinaryOp::Eq, reg(from), int(*v)),
                    Cond::Ne(v) => binary(BinaryOp::Ne, reg(from), int(*v)),
                };
                let mut then_body = Vec::new();
                self.stmts(then, &mut then_body);
                let mut els_body = Vec::new();
                self.stmts(els, &mut els_body);
                out.push(if_stmt(test, then_body, els_body));
            }
            SketchStmt::Lock { lock, body } => {
                self.classes.insert(Class::Lock);
                let l = self.lock(*lock);
                out.push(call_stmt("spin_lock", vec![l.clone()]));
                self.stmts(body, out);
                out.push(call_stmt("spin_unlock", vec![l]));
            }
            SketchStmt::TryLock { lock, body } => {
                self.classes.insert(Class::TryLock);
                let l = self.lock(*lock);
                let r = self.answer();
                out.push(assign(r, call("spin_trylock", vec![l.clone()])));
                let mut inner = Vec::new();
                self.stmts(body, &mut inner);
                inner.push(call_stmt("spin_unlock", vec![l]));
                out.push(if_stmt(reg(r), inner, Vec::new()));
            }
            SketchStmt::IsLocked { lock } => {
                self.classes.insert(Class::IsLocked);
                let l = self.lock(*lock);
                let r = self.answer();
                out.push(assign(r, call("spin_is_locked", vec![l])));
            }
            SketchStmt::RcuRead(body) => {
                self.classes.insert(Class::Rcu);
                out.push(call_stmt("rcu_read_lock", Vec::new()));
                self.stmts(body, out);
                out.push(call_stmt("rcu_read_unlock", Vec::new()));
            }
            SketchStmt::SrcuRead { domain, body } => {
                self.classes.insert(Class::Srcu);
                let s = self.domain(*domain);
                let r = self.answer();
                out.push(assign(r, call("srcu_read_lock", vec![s.clone()])));
                self.stmts(body, out);
                out.push(call_stmt("srcu_read_unlock", vec![s, reg(r)]));
            }
            SketchStmt::SynchronizeSrcu { domain } => {
                self.classes.insert(Class::Srcu);
                let s = self.domain(*domain);
                out.push(call_stmt("synchronize_srcu", vec![s]));
            }
            SketchStmt::While { cond, body } => self.loop_stmt(cond, body, out),
        }
    }
}

/// The write of `value` to the location `loc` points to, spelled as `kind` says.
fn write(kind: WriteKind, loc: Expr, value: Expr) -> Stmt {
    match kind {
        WriteKind::Plain => stmt(StmtKind::Assign {
            lhs: deref(loc),
            rhs: value,
        }),
        WriteKind::Once => call_stmt("WRITE_ONCE", vec![deref(loc), value]),
        WriteKind::Release => call_stmt("smp_store_release", vec![loc, value]),
        WriteKind::AssignPointer => call_stmt("rcu_assign_pointer", vec![deref(loc), value]),
        WriteKind::AtomicSet => call_stmt("atomic_set", vec![loc, value]),
        WriteKind::AtomicSetRelease => call_stmt("atomic_set_release", vec![loc, value]),
        WriteKind::StoreMb => call_stmt("smp_store_mb", vec![deref(loc), value]),
    }
}

/// The read of the location `loc` points to, spelled as `kind` says.
fn read(kind: ReadKind, loc: Expr) -> Expr {
    match kind {
        ReadKind::Plain => deref(loc),
        ReadKind::Once => call("READ_ONCE", vec![deref(loc)]),
        ReadKind::Acquire => call("smp_load_acquire", vec![loc]),
        ReadKind::Dereference => call("rcu_dereference", vec![deref(loc)]),
        ReadKind::AtomicRead => call("atomic_read", vec![loc]),
        ReadKind::AtomicReadAcquire => call("atomic_read_acquire", vec![loc]),
    }
}

/// The name, arguments and whether it returns a value, of the call of `op` on `loc` with
/// operand `value` (the operand the dependency reached, or the sketch's).
fn rmw_call(
    op: RmwOp,
    ordering: Ordering,
    loc: Expr,
    value: Option<Expr>,
) -> (String, Vec<Expr>, bool) {
    let suffix = ordering.suffix();
    let v = || value.clone().unwrap_or_else(|| int(0));
    let prefix = |atomic: bool| if atomic { "atomic_" } else { "" };
    let unary = |args: bool, loc: Expr| if args { vec![v(), loc] } else { vec![loc] };
    match op {
        RmwOp::Xchg { atomic, .. } => (
            format!("{}xchg{suffix}", prefix(atomic)),
            vec![loc, v()],
            true,
        ),
        RmwOp::Cmpxchg {
            expected, atomic, ..
        } => (
            format!("{}cmpxchg{suffix}", prefix(atomic)),
            vec![loc, int(expected), v()],
            true,
        ),
        RmwOp::Op { op, .. } => (
            format!("atomic_{}", op.name()),
            unary(op.has_operand(), loc),
            false,
        ),
        RmwOp::OpReturn { op, .. } => (
            format!("atomic_{}_return{suffix}", op.name()),
            unary(op.has_operand(), loc),
            true,
        ),
        RmwOp::FetchOp { op, .. } => (
            format!("atomic_fetch_{}{suffix}", op.name()),
            unary(op.has_operand(), loc),
            true,
        ),
        RmwOp::Test { op, .. } => match op {
            TestOp::SubAndTest => ("atomic_sub_and_test".into(), vec![v(), loc], true),
            TestOp::DecAndTest => ("atomic_dec_and_test".into(), vec![loc], true),
            TestOp::IncAndTest => ("atomic_inc_and_test".into(), vec![loc], true),
            TestOp::AddNegative => (format!("atomic_add_negative{suffix}"), vec![v(), loc], true),
        },
        RmwOp::AddUnless { unless, .. } => (
            "atomic_add_unless".into(),
            vec![loc, v(), int(unless)],
            true,
        ),
    }
}

fn ident(name: &str) -> Ident {
    Ident::new(name, Span::DUMMY)
}

fn type_of(base: &str, pointers: u32) -> Type {
    Type {
        volatile: false,
        base: base.into(),
        pointers,
        span: Span::DUMMY,
    }
}

fn param(ty: Type, name: &str) -> Param {
    Param {
        ty,
        name: ident(name),
        span: Span::DUMMY,
    }
}

fn register(thread: usize, reg: usize) -> Location {
    Location::Register {
        thread: thread as u32,
        reg: ident(&format!("r{reg}")),
        span: Span::DUMMY,
    }
}

fn prop_of(kind: PropKind) -> Prop {
    Prop {
        kind,
        span: Span::DUMMY,
    }
}

fn expr(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::DUMMY,
    }
}

fn stmt(kind: StmtKind) -> Stmt {
    Stmt {
        kind,
        span: Span::DUMMY,
    }
}

fn int(n: i64) -> Expr {
    expr(ExprKind::Int(n))
}

fn name(n: &str) -> Expr {
    expr(ExprKind::Ident(ident(n)))
}

fn reg(r: usize) -> Expr {
    name(&format!("r{r}"))
}

fn deref(e: Expr) -> Expr {
    expr(ExprKind::Deref(Box::new(e)))
}

fn binary(op: BinaryOp, l: Expr, r: Expr) -> Expr {
    expr(ExprKind::Binary(op, Box::new(l), Box::new(r)))
}

fn call(func: &str, args: Vec<Expr>) -> Expr {
    expr(ExprKind::Call {
        func: ident(func),
        args,
    })
}

fn call_stmt(func: &str, args: Vec<Expr>) -> Stmt {
    stmt(StmtKind::Expr(call(func, args)))
}

fn assign(r: usize, rhs: Expr) -> Stmt {
    stmt(StmtKind::Assign { lhs: reg(r), rhs })
}

fn if_stmt(cond: Expr, then: Vec<Stmt>, els: Vec<Stmt>) -> Stmt {
    let salt = salt(&cond, &then, &els);
    // A `then` branch that is an `if` keeps its braces: an `else` would be the inner one's.
    let then = branch(then, salt, false);
    let els = (!els.is_empty()).then(|| Box::new(branch(els, salt >> 8, true)));
    stmt(StmtKind::If {
        cond,
        then: Box::new(then),
        els,
    })
}

fn while_stmt(cond: Expr, body: Vec<Stmt>) -> Stmt {
    let salt = salt(&cond, &body, &[]);
    stmt(StmtKind::While {
        cond,
        body: Box::new(branch(body, salt, false)),
    })
}

/// A number drawn from the text of a compound statement, which decides how its branches
/// are written: the same sketch gives the same program, and a seed the same sketch.
fn salt(cond: &Expr, then: &[Stmt], els: &[Stmt]) -> u64 {
    // FNV-1a over the statement's debug text.
    format!("{cond:?}{then:?}{els:?}")
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
}

/// A branch or loop body of the statements `body`, written as herd7's C reads it in one of
/// three ways, which `salt` picks: one statement without braces (one time in three, where
/// it is one statement, and not an `if` unless `nested_if` allows it), a block in a block
/// (one time in four of the others), or a block. herd7 numbers the values of each
/// otherwise, so the names of values out of thin air differ.
fn branch(mut body: Vec<Stmt>, salt: u64, nested_if: bool) -> Stmt {
    let lone = body.len() == 1 && (nested_if || !matches!(body[0].kind, StmtKind::If { .. }));
    if lone && salt.is_multiple_of(3) {
        return body.remove(0);
    }
    let block = stmt(StmtKind::Block(body));
    if (salt >> 4).is_multiple_of(4) {
        return stmt(StmtKind::Block(vec![block]));
    }
    block
}
