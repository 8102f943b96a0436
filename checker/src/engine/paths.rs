//! Thread paths: every way one thread can run, with the values it reads left symbolic.
//!
//! This is the first half of herd7's semantics of a litmus program.
//! Each thread runs alone; every read returns a fresh symbol, every value computed from
//! reads is a small expression over those symbols, and wherever the run depends on a value
//! still unknown (an `if` on a read value, a `cmpxchg` that may succeed or fail, a lock
//! that may be taken or not, an address computed from a read) the run forks and records
//! the assumption as a [`Constraint`].
//! The enumeration later picks a write for each read (`rf`), solves the symbols, and drops
//! the combinations whose assumptions fail or whose values depend on themselves.
//!
//! Values are built as herd7 builds them: an operator is computed at once when its
//! operands are known, or when one of herd7's identities decides it on unknown ones
//! (`r ^ r` is 0, `r + 0` is `r`); otherwise it stays a node, solved later.
//! A computed value still depends on the reads it was computed from: `r ^ r` is the
//! constant 0 with a data dependency on the read of `r`, as in herd7, whose dependencies
//! follow registers, not values.
//! herd7's `__load{deref}` is the exception: its read is followed by an `rb_dep` fence
//! sequenced after it by control, and what uses the value read neither depends on the read
//! nor follows it or the fence inside the instruction ([`crate::front::program::Op::Load`]).
//! An operator with no meaning on its operands is not an error here: herd7 reports it only
//! when an execution it allows needs the value, so the node stays and the enumeration
//! decides.
//!
//! Everything here depends only on the program, so the paths of each thread are computed
//! once per test, however many candidate executions share them.

use crate::exec::event::{EventKind, Loc, Tag, Tags, Value};
use crate::front::c11;
use crate::front::program::{
    AddrOrder, Applied, BinOp, Expr, Instr, Op, Program, Reg, RmwTags, RmwWrite, Term, ThreadCode,
    UnOp, herd_binary, herd_unary,
};
use std::collections::BTreeSet;

mod escape;

pub(crate) use escape::{
    Escape, not_a_location, not_a_location_herd7, not_a_lock, not_a_lock_read,
};
use escape::{OwnWrite, Solves};

/// An index into a path's [`Path::nodes`].
pub(crate) type SymId = u32;

/// One node of a symbolic value.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Node {
    /// A known value.
    Const(Value),
    /// The value returned by the path's `k`-th read.
    Read(u32),
    /// The same value as another node (herd7's `r + 0`), possibly with more dependencies.
    Alias(SymId),
    /// A unary operator.
    Un(UnOp, SymId),
    /// A binary operator.
    Bin(BinOp, SymId, SymId),
    /// A value that nothing solves: what a read-modify-write at an address that is no
    /// location returns when it reads its own write and adds or ors 0 (herd7 writes the
    /// read's value itself, and no equation gives that value). Any operator on it leaves
    /// herd7 an equation it cannot solve, and the candidate is dropped.
    Free,
}

/// An assumption a path makes about the values it reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Constraint {
    /// The value tested.
    pub(crate) sym: SymId,
    /// Whether the path assumes it non-zero (true) or zero (false).
    pub(crate) truth: bool,
    /// What made the path fork.
    pub(crate) kind: Assumption,
}

/// The kinds of assumptions a path makes, the reasons herd7 also gives for a candidate
/// that does not exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Assumption {
    /// An `if` on a value read.
    Branch,
    /// A compare-and-exchange (or `atomic_add_unless`) succeeding or failing.
    Rmw,
    /// An address computed from values read denoting a given location.
    Address,
}

/// The accesses of one thread whose address herd7 may leave unsolved, and the locations
/// they are tried at: herd7 pairs a read at an address it cannot solve with every write
/// of every location (see [`crate::engine::unsolved`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Wide {
    /// The instructions ([`PathEvent::stmt`]) whose computed address may be unsolved.
    pub(crate) stmts: BTreeSet<u32>,
    /// Every location a write may be at.
    pub(crate) targets: Vec<Loc>,
}

/// One event of a path.
#[derive(Clone, Debug)]
pub(crate) struct PathEvent {
    pub(crate) kind: EventKind,
    pub(crate) loc: Option<Loc>,
    pub(crate) tags: Tags,
    /// For a write, the value written; for a read, its [`Node::Read`] symbol.
    pub(crate) value: SymId,
    /// For a read, its number among the path's reads.
    pub(crate) read: Option<u32>,
    /// Whether this write is the `rmw` partner of the event just before it.
    pub(crate) rmw_with_prev: bool,
    /// Reads (path-local numbers, as bits) the address depends on.
    pub(crate) addr_dep: u64,
    /// Reads the written value depends on.
    pub(crate) data_dep: u64,
    /// Reads that some earlier branch depends on.
    pub(crate) ctrl_dep: u64,
    /// Reads of the same instruction that this event waits for by control inside it: the
    /// write of a successful `cmpxchg` on its expected value, that of `atomic_add_unless`
    /// on its limit (herd7's intra-instruction control, which orders but is no `ctrl`);
    /// the `rb_dep` fence of a `__load{deref}` on its read.
    pub(crate) inner: u64,
    /// The herd7 instruction of the event ([`crate::front::program::Instr::stmt`]).
    pub(crate) stmt: u32,
    pub(crate) source: (usize, usize),
}

/// One way a thread can run.
#[derive(Clone, Debug, Default)]
pub(crate) struct Path {
    pub(crate) nodes: Vec<Node>,
    /// Per node, the reads it mentions (as bits).
    pub(crate) taint: Vec<u64>,
    /// Per node, the source of the statement that computed it.
    pub(crate) spans: Vec<(usize, usize)>,
    pub(crate) events: Vec<PathEvent>,
    pub(crate) constraints: Vec<Constraint>,
    /// The final value of each register.
    pub(crate) regs: Vec<SymId>,
    /// The number of reads.
    pub(crate) reads: u32,
    /// The way taken at each `if` on an unknown value, and at each instruction with two
    /// outcomes (a compare-exchange, `cmpxchg` or `atomic_add_unless` that succeeds, a
    /// `spin_trylock` that takes the lock, a `spin_is_locked` that sees it locked), in
    /// program order: [`crate::engine::symbol`] names herd7's values by it.
    pub(crate) branches: Vec<bool>,
    /// Per event, herd7's number for its unsolved symbol (see [`crate::engine::symbol`]): for a
    /// read, its own; for a write, that of the register read giving its value; 0 for
    /// none.
    /// Empty when herd7's numbering is not replayed.
    pub(crate) herd: Vec<u32>,
    /// Per event, the number herd7's round of union-find on the registers' equations maps
    /// that of [`Path::herd`] to (the parent it leaves it: see [`crate::engine::symbol`]);
    /// the number itself for a value no register read copies.
    pub(crate) herd_parent: Vec<u32>,
    /// The equations of register reads that herd7's round of union-find on the registers
    /// leaves unsolved (those between two values it does not unite into one parent),
    /// which its round on memory unites after memory's own: for each, the number of the
    /// read whose value the register held first, the number of the register read, and
    /// the parents of the two sides.
    pub(crate) herd_leftover: Vec<(u32, u32, u32, u32)>,
    /// Set when the path reaches an access whose address is none of the locations the
    /// test handles as values: the path stops there, but at a write, which it goes on past
    /// without the write's events; the enumeration reports a write there as an error if a
    /// candidate whose values solve reaches it.
    pub(crate) escape: Option<Escape>,
    /// Past a write at no location ([`Path::escape`]), the next access at no location,
    /// where the path stops.
    pub(crate) then: Option<Escape>,
    /// Set when the path goes round a `while` loop more often than herd7 unrolls it: the
    /// `while` at fault.
    pub(crate) cutoff: Option<(usize, usize)>,
    /// Set when the path breaks one of lock.cat's axioms on its own (`lock-nest`: it takes
    /// a lock it holds; `nested-is-locked`: it sees a lock it holds unlocked): the model
    /// forbids every execution with it, but herd7 still marks one cut off by a loop.
    pub(crate) breaks_lock_axiom: bool,
    /// The accesses of a path built as herd7 builds its event structures
    /// ([`thread_shapes`]); empty otherwise.
    pub(crate) accesses: Vec<Shape>,
}

/// One access of a path as herd7 builds it ([`thread_shapes`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    /// Its address: a location, computed from values read, or a constant that is none.
    pub(crate) at: At,
    pub(crate) reads: bool,
    pub(crate) writes: bool,
    /// Whether its write is one event with its read, as herd7's C11 read-modify-write is.
    pub(crate) single: bool,
    /// Whether its read, paired with its own write, surely gives values that solve
    /// ([`OwnWrite`]).
    pub(crate) own_solves: bool,
    /// Whether it is a spinlock's ([`Escape::lock`]).
    pub(crate) lock: bool,
    pub(crate) source: (usize, usize),
}

/// Where an access of a [`Shape`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum At {
    Location,
    Computed,
    Nowhere(Value),
}

/// Why a thread cannot be run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PathError {
    pub(crate) message: String,
    pub(crate) span: (usize, usize),
}

/// The most reads one path may perform (dependencies are tracked as bits of a `u64`).
const MAX_READS: u32 = 64;
/// The most paths one thread may have.
const MAX_PATHS: usize = 1 << 16;
/// The most accesses and undecided branches one path may go through: the walk recurses at
/// each, so this bounds its stack.
const MAX_DEPTH: usize = 512;
/// The most events all the paths of one thread may hold together: the memory bound of this
/// stage (about 200 bytes an event, so some 800 MB at most).
const MAX_PATH_EVENTS: usize = 1 << 22;

/// Enumerates the paths of thread `t` of `program`.
///
/// `pointees` are the locations whose address the test ever handles as a value: an access
/// through an address read from memory is tried at each of them. `adjacent` are herd7's
/// locations next to a variable the program has ([`adjacent`]): an access at `y + 1` is
/// one at the location `y+1` when the program has it, and stops the path otherwise.
/// `wide` are the accesses whose address may be unsolved, tried at every location too.
pub(crate) fn thread_paths(
    thread: &ThreadCode,
    pointees: &[Loc],
    adjacent: &[Adjacent],
    order: &AddrOrder,
    wide: &Wide,
) -> Result<Vec<Path>, PathError> {
    Walker {
        pointees,
        adjacent,
        order,
        wide,
        shapes: false,
        out: Vec::new(),
        depth: 0,
        events: 0,
    }
    .run(thread)
}

/// The paths of `thread` as herd7 builds its event structures, each with its accesses
/// ([`Path::accesses`]): an address computed from values read does not fork on the
/// location it denotes, and an access at no location does not stop the path.
pub(crate) fn thread_shapes(
    thread: &ThreadCode,
    adjacent: &[Adjacent],
    order: &AddrOrder,
) -> Result<Vec<Path>, PathError> {
    Walker {
        pointees: &[],
        adjacent,
        order,
        wide: &Wide::default(),
        shapes: true,
        out: Vec::new(),
        depth: 0,
        events: 0,
    }
    .run(thread)
}

impl<'a> Walker<'a> {
    /// Every path of `thread`.
    fn run(mut self, thread: &'a ThreadCode) -> Result<Vec<Path>, PathError> {
        let mut start = Path::default();
        start.regs = thread
            .init
            .iter()
            .map(|v| start_const(&mut start, *v))
            .collect();
        let state = State {
            path: start,
            ctrl: 0,
            held: BTreeSet::new(),
            stmt: 0,
        };
        self.walk(state, vec![(&thread.code[..], None)])?;
        Ok(self.out)
    }
}

fn start_const(path: &mut Path, v: Value) -> SymId {
    path.push(Node::Const(v), 0)
}

/// One of herd7's locations next to a variable: the variable, the offset, and the location.
pub(crate) type Adjacent = (Loc, i64, Loc);

/// The program's locations next to a variable ([`crate::front::program::LocDecl::next_to`]).
pub(crate) fn adjacent(program: &Program) -> Vec<Adjacent> {
    (0..program.locs.len())
        .filter_map(|l| {
            let (base, offset) = program.locs[l].next_to?;
            Some((base, offset, Loc(l as u32)))
        })
        .collect()
}

/// Adds to `program` herd7's location next to a variable for each access whose address is
/// known without reading memory and is next to a variable (`y + 1`, `z + r2` with
/// `r2 = -1`), as herd7 makes each one a location of its own.
///
/// A path stops at the first access at an address that is no location (after one write
/// there, at the next), so the paths are walked again once the locations found are added,
/// until they find none.
pub(crate) fn add_adjacent_locations(program: &mut Program) -> Result<(), PathError> {
    loop {
        let pointees = pointees(program);
        let adjacent = adjacent(program);
        let mut found = BTreeSet::new();
        for t in &program.threads {
            for p in thread_paths(
                t,
                &pointees,
                &adjacent,
                &program.addr_order,
                &Wide::default(),
            )? {
                for e in p.escapes() {
                    if let Some(Value::Shifted(base, offset)) = p.constant(e.sym) {
                        found.insert((base, offset));
                    }
                }
            }
        }
        if found.is_empty() {
            return Ok(());
        }
        for (base, offset) in found {
            program.add_adjacent(base, offset);
        }
    }
}

/// The locations whose address appears as a value anywhere in the program.
pub(crate) fn pointees(program: &Program) -> Vec<Loc> {
    fn expr(e: &Expr, out: &mut BTreeSet<Loc>) {
        match e {
            Expr::Const(Value::Addr(l)) => {
                out.insert(*l);
            }
            Expr::Const(_) | Expr::Reg(_) => {}
            Expr::Unary(_, a) => expr(a, out),
            Expr::Binary(_, a, b) => {
                expr(a, out);
                expr(b, out);
            }
        }
    }
    fn code(instrs: &[Instr], out: &mut BTreeSet<Loc>) {
        for i in instrs {
            match &i.op {
                Op::Let { val, .. } | Op::Store { val, .. } => expr(val, out),
                Op::Rmw { write, .. } => match write {
                    RmwWrite::Set(e) | RmwWrite::Apply(_, e) => expr(e, out),
                },
                Op::Cmpxchg { expected, new, .. } => {
                    expr(expected, out);
                    expr(new, out);
                }
                Op::AddUnless { add, unless, .. } => {
                    expr(add, out);
                    expr(unless, out);
                }
                Op::CompareExchange {
                    expected, desired, ..
                } => {
                    expr(expected, out);
                    expr(desired, out);
                }
                Op::If { then, els, .. } => {
                    code(then, out);
                    code(els, out);
                }
                _ => {}
            }
        }
    }
    let mut out = BTreeSet::new();
    for l in &program.locs {
        if let Value::Addr(a) = l.init {
            out.insert(a);
        }
    }
    for t in &program.threads {
        for v in &t.init {
            if let Value::Addr(a) = v {
                out.insert(*a);
            }
        }
        code(&t.code, &mut out);
    }
    out.into_iter().collect()
}

impl Path {
    /// The accesses at no location the path reaches ([`Path::escape`], [`Path::then`]).
    pub(crate) fn escapes(&self) -> impl Iterator<Item = Escape> {
        self.escape.into_iter().chain(self.then)
    }

    fn push(&mut self, node: Node, taint: u64) -> SymId {
        self.push_at(node, taint, (0, 0))
    }

    fn push_at(&mut self, node: Node, taint: u64, span: (usize, usize)) -> SymId {
        self.nodes.push(node);
        self.taint.push(taint);
        self.spans.push(span);
        (self.nodes.len() - 1) as SymId
    }

    /// The node `sym` stands for, through aliases.
    pub(crate) fn root(&self, mut sym: SymId) -> SymId {
        while let Node::Alias(s) = self.nodes[sym as usize] {
            sym = s;
        }
        sym
    }

    /// The value of `sym` when it does not depend on any read's value.
    pub(crate) fn constant(&self, sym: SymId) -> Option<Value> {
        match self.nodes[self.root(sym) as usize] {
            Node::Const(v) => Some(v),
            _ => None,
        }
    }

    /// `sym` as herd7's evaluator holds it while building the path: a known value, or a
    /// variable named by its node.
    fn term(&self, sym: SymId) -> Term {
        let root = self.root(sym);
        match self.nodes[root as usize] {
            Node::Const(v) => Term::Val(v),
            _ => Term::Var(root),
        }
    }

    /// Evaluates `sym` once every read's value is known, reading them through `read`;
    /// `None` when an operator gives no value.
    pub(crate) fn eval_known(
        &self,
        sym: SymId,
        read: &impl Fn(u32) -> Value,
        order: &AddrOrder,
    ) -> Option<Value> {
        let v = match self.nodes[sym as usize] {
            Node::Const(v) => return Some(v),
            Node::Read(k) => return Some(read(k)),
            Node::Alias(s) => return self.eval_known(s, read, order),
            Node::Free => return None,
            Node::Un(op, a) => herd_unary(op, Term::Val(self.eval_known(a, read, order)?)),
            Node::Bin(op, a, b) => herd_binary(
                op,
                Term::Val(self.eval_known(a, read, order)?),
                Term::Val(self.eval_known(b, read, order)?),
                order,
            ),
        };
        match v {
            Applied::Term(Term::Val(v)) => Some(v),
            _ => None,
        }
    }
}

/// What an access does at its address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Access {
    /// Reads only (`READ_ONCE`, `spin_is_locked`).
    Load,
    /// Writes only (`WRITE_ONCE`, `spin_unlock`, `synchronize_srcu`).
    Store,
    /// Reads, then may write (a read-modify-write, a lock).
    Update,
}

/// How a write relates to the read just before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Partner {
    /// Not at all: a plain write.
    None,
    /// The write of an exchange (`xchg`, a successful `cmpxchg`, a lock): its value does
    /// not depend on the read's.
    Exchange,
    /// The write of an atomic operation (`atomic_add`, `atomic_add_unless`...): its value
    /// is computed from the read's.
    Compute,
}

/// Instructions still to run, and the control-dependency mask to restore after them (at
/// the end of a branch).
type Frame<'a> = (&'a [Instr], Option<u64>);

#[derive(Clone)]
struct State {
    path: Path,
    /// Reads that the branches taken so far depend on.
    ctrl: u64,
    /// Spinlocks this thread holds (for `lock.cat`'s nesting checks).
    held: BTreeSet<Loc>,
    /// The instruction running.
    stmt: u32,
}

struct Walker<'a> {
    pointees: &'a [Loc],
    adjacent: &'a [Adjacent],
    wide: &'a Wide,
    /// herd7's order of addresses, which subtracting two computes.
    order: &'a AddrOrder,
    /// Whether the paths are herd7's event structures ([`thread_shapes`]).
    shapes: bool,
    out: Vec<Path>,
    /// How deeply `walk` is nested.
    depth: usize,
    /// The events of the paths in `out`.
    events: usize,
}

fn err(message: impl Into<String>, span: (usize, usize)) -> PathError {
    PathError {
        message: message.into(),
        span,
    }
}

impl<'a> Walker<'a> {
    /// Walks on from `st`, with `todo` left to run, refusing paths longer than [`MAX_DEPTH`].
    fn walk(&mut self, st: State, todo: Vec<Frame<'a>>) -> Result<(), PathError> {
        if self.depth >= MAX_DEPTH {
            let span = todo
                .iter()
                .rev()
                .find_map(|(slice, _)| slice.first())
                .map_or((0, 0), |i| i.span);
            return Err(err(
                format!("a thread runs more than {MAX_DEPTH} accesses and branches on one path"),
                span,
            ));
        }
        self.depth += 1;
        let result = self.walk_on(st, todo);
        self.depth -= 1;
        result
    }

    /// Records a finished path, within the limits on paths and events.
    fn finish(&mut self, path: Path) -> Result<(), PathError> {
        // Both limits name the last access of the path that crosses them: the place the
        // thread has branched or looped its way to.
        let place = path.events.last().map_or((0, 0), |e| e.source);
        if self.out.len() >= MAX_PATHS {
            return Err(err(
                format!("a thread has more than {MAX_PATHS} paths"),
                place,
            ));
        }
        self.events += path.events.len();
        if self.events > MAX_PATH_EVENTS {
            return Err(err(
                format!(
                    "the paths of a thread hold more than {MAX_PATH_EVENTS} events \
                     (the memory bound of path enumeration)"
                ),
                place,
            ));
        }
        self.out.push(path);
        Ok(())
    }

    fn walk_on(&mut self, mut st: State, mut todo: Vec<Frame<'a>>) -> Result<(), PathError> {
        loop {
            let Some((slice, restore)) = todo.last_mut() else {
                return self.finish(st.path);
            };
            let Some((ins, rest)) = slice.split_first() else {
                if let Some(ctrl) = *restore {
                    st.ctrl = ctrl;
                }
                todo.pop();
                continue;
            };
            *slice = rest;
            let span = ins.span;
            st.stmt = ins.stmt;
            match &ins.op {
                Op::Let { dst, val } => {
                    let v = self.sym(&mut st, val, span);
                    st.path.regs[*dst] = v;
                }
                Op::Load {
                    dst,
                    addr,
                    tags,
                    deref,
                } => {
                    return self.fork_addr(
                        st,
                        todo,
                        addr,
                        (Access::Load, OwnWrite::No),
                        span,
                        |w, st, loc, adep| {
                            let r = w.read(st, loc, *tags, adep, span)?;
                            let v = if *deref { rb_dep(st, r, span) } else { r };
                            set(st, *dst, v);
                            Ok(true)
                        },
                    );
                }
                Op::Store {
                    addr,
                    val,
                    tags,
                    write_back,
                } => {
                    let v = self.sym(&mut st, val, span);
                    return self.fork_addr(
                        st,
                        todo,
                        addr,
                        (Access::Store, OwnWrite::No),
                        span,
                        |w, st, loc, adep| {
                            w.write(st, loc, *tags, v, adep, Partner::None, span);
                            // A compare-exchange's write-back waits for its reads inside
                            // the instruction: herd7 shows no `data` for it.
                            if *write_back && let Some(e) = st.path.events.last_mut() {
                                e.inner = e.data_dep;
                                e.data_dep = 0;
                            }
                            Ok(true)
                        },
                    );
                }
                Op::Fence { tags } => {
                    let stmt = st.stmt;
                    fence(&mut st, *tags, stmt, span);
                }
                Op::Rmw {
                    dst,
                    addr,
                    write,
                    ret_new,
                    tags,
                    ..
                } => {
                    let operand = match write {
                        RmwWrite::Set(e) | RmwWrite::Apply(_, e) => self.sym(&mut st, e, span),
                    };
                    // Reading its own write, an exchange's register gets the value written;
                    // an addition or or of 0, the read's value, which herd7 writes as it is
                    // and nothing solves ([`Node::Free`]); another operation's values do not
                    // solve.
                    let own = match write {
                        _ if c11::is_single_event(tags.read)
                            || c11::is_single_event(tags.write) =>
                        {
                            OwnWrite::Solves(Solves::Never, None)
                        }
                        RmwWrite::Set(_) => OwnWrite::Solves(Solves::Always, Some((*dst, operand))),
                        RmwWrite::Apply(BinOp::Add | BinOp::Or, _)
                            if st.path.constant(operand) == Some(Value::Int(0)) =>
                        {
                            let free = st.path.push(Node::Free, 0);
                            OwnWrite::Solves(Solves::Always, Some((*dst, free)))
                        }
                        RmwWrite::Apply(..) => OwnWrite::Solves(Solves::Never, None),
                    };
                    return self.fork_addr(
                        st,
                        todo,
                        addr,
                        (Access::Update, own),
                        span,
                        |w, st, loc, adep| {
                            fence_before(st, tags, span);
                            let r = w.read(st, loc, tags.read, adep, span)?;
                            let v = match write {
                                RmwWrite::Set(_) => operand,
                                RmwWrite::Apply(op, _) => w.bin(st, *op, r, operand, span),
                            };
                            let partner = match write {
                                RmwWrite::Set(_) => Partner::Exchange,
                                RmwWrite::Apply(..) => Partner::Compute,
                            };
                            w.write(st, loc, tags.write, v, adep, partner, span);
                            fence_after(st, tags, span);
                            set(st, *dst, if *ret_new { v } else { r });
                            Ok(true)
                        },
                    );
                }
                Op::Cmpxchg {
                    dst,
                    addr,
                    expected,
                    new,
                    tags,
                } => {
                    let exp = self.sym(&mut st, expected, span);
                    let new = self.sym(&mut st, new, span);
                    for success in [true, false] {
                        let cont = todo.clone();
                        let own = if !success {
                            OwnWrite::No
                        } else if c11::is_single_event(tags.read)
                            || c11::is_single_event(tags.write)
                        {
                            OwnWrite::Solves(Solves::Never, None)
                        } else {
                            OwnWrite::Solves(Solves::Equal(new, exp), Some((*dst, new)))
                        };
                        self.fork_addr(
                            st.clone(),
                            cont,
                            addr,
                            (Access::Update, own),
                            span,
                            |w, st, loc, adep| {
                                let read_tags = if success {
                                    fence_before(st, tags, span);
                                    tags.read
                                } else {
                                    tags.failed
                                };
                                st.path.branches.push(success);
                                let r = w.read(st, loc, read_tags, adep, span)?;
                                let eq = w.bin(st, BinOp::Eq, r, exp, span);
                                if !w.assume(st, eq, success, Assumption::Rmw) {
                                    return Ok(false);
                                }
                                if success {
                                    w.write(
                                        st,
                                        loc,
                                        tags.write,
                                        new,
                                        adep,
                                        Partner::Exchange,
                                        span,
                                    );
                                    set_inner(st, exp);
                                    fence_after(st, tags, span);
                                }
                                set(st, *dst, r);
                                Ok(true)
                            },
                        )?;
                    }
                    return Ok(());
                }
                Op::CompareExchange {
                    ok,
                    old,
                    addr,
                    expected,
                    desired,
                    success,
                    failure,
                    strong,
                } => {
                    let exp = self.sym(&mut st, expected, span);
                    let desired = self.sym(&mut st, desired, span);
                    for succeeds in [true, false] {
                        let cont = todo.clone();
                        // One event to herd7, which does not pair it with itself.
                        let own = if succeeds {
                            OwnWrite::Solves(Solves::Never, None)
                        } else {
                            OwnWrite::No
                        };
                        self.fork_addr(
                            st.clone(),
                            cont,
                            addr,
                            (Access::Update, own),
                            span,
                            |w, st, loc, adep| {
                                let tags = if succeeds { *success } else { *failure };
                                st.path.branches.push(succeeds);
                                let r = w.read(st, loc, tags, adep, span)?;
                                // herd7 runs the whole exchange after the read of the
                                // expected value, inside the instruction.
                                set_inner(st, exp);
                                // herd7's success reads the expected value; its strong
                                // failure reads another, its weak one any value.
                                if succeeds || *strong {
                                    let eq = w.bin(st, BinOp::Eq, r, exp, span);
                                    if !w.assume(st, eq, succeeds, Assumption::Rmw) {
                                        return Ok(false);
                                    }
                                }
                                if succeeds {
                                    w.write(st, loc, tags, desired, adep, Partner::Exchange, span);
                                    set_inner(st, exp);
                                }
                                // The result is a constant of the path; herd7 makes what
                                // depends on a success's result depend on the exchange's
                                // read (`ctrl`, `data`, `addr` from the read-modify-write),
                                // and on a failure's on nothing.
                                let taint = if succeeds {
                                    st.path.taint[r as usize]
                                } else {
                                    0
                                };
                                let res = st
                                    .path
                                    .push(Node::Const(Value::Int(succeeds as i64)), taint);
                                set(st, Some(*ok), res);
                                // The write-back of a failure, which lowering puts after,
                                // follows both reads.
                                let taint = st.path.taint[r as usize] | st.path.taint[exp as usize];
                                let value = st.path.push(Node::Alias(r), taint);
                                set(st, Some(*old), value);
                                Ok(true)
                            },
                        )?;
                    }
                    return Ok(());
                }
                Op::AddUnless {
                    dst,
                    addr,
                    add,
                    unless,
                    tags,
                } => {
                    let add = self.sym(&mut st, add, span);
                    let unless = self.sym(&mut st, unless, span);
                    for success in [true, false] {
                        let cont = todo.clone();
                        // Its write adds to the value read, which herd7 leaves unsolved
                        // when it is its own write's: the limit is then not solved either.
                        let own = if success {
                            OwnWrite::Solves(Solves::Never, None)
                        } else {
                            OwnWrite::No
                        };
                        self.fork_addr(
                            st.clone(),
                            cont,
                            addr,
                            (Access::Update, own),
                            span,
                            |w, st, loc, adep| {
                                let read_tags = if success {
                                    fence_before(st, tags, span);
                                    tags.read
                                } else {
                                    tags.failed
                                };
                                st.path.branches.push(success);
                                let r = w.read(st, loc, read_tags, adep, span)?;
                                let ne = w.bin(st, BinOp::Ne, r, unless, span);
                                if !w.assume(st, ne, success, Assumption::Rmw) {
                                    return Ok(false);
                                }
                                if success {
                                    let v = w.bin(st, BinOp::Add, r, add, span);
                                    w.write(st, loc, tags.write, v, adep, Partner::Compute, span);
                                    set_inner(st, unless);
                                    fence_after(st, tags, span);
                                }
                                // herd7's result is the read's output, and the limit's: what
                                // depends on it depends on them.
                                let taint =
                                    st.path.taint[r as usize] | st.path.taint[unless as usize];
                                let res =
                                    st.path.push(Node::Const(Value::Int(success as i64)), taint);
                                set(st, *dst, res);
                                Ok(true)
                            },
                        )?;
                    }
                    return Ok(());
                }
                Op::Lock { addr } => {
                    return self.fork_addr(
                        st,
                        todo,
                        addr,
                        (Access::Update, OwnWrite::Lock),
                        span,
                        |w, st, loc, adep| w.lock(st, loc, adep, span),
                    );
                }
                Op::Unlock { addr } => {
                    return self.fork_addr(
                        st,
                        todo,
                        addr,
                        (Access::Store, OwnWrite::Lock),
                        span,
                        |w, st, loc, adep| {
                            let zero = st.path.push(Node::Const(Value::Int(0)), 0);
                            w.write(
                                st,
                                loc,
                                Tags::of(&[Tag::Ul]),
                                zero,
                                adep,
                                Partner::None,
                                span,
                            );
                            st.held.remove(&loc);
                            Ok(true)
                        },
                    );
                }
                Op::Trylock { dst, addr } => {
                    for success in [true, false] {
                        let cont = todo.clone();
                        self.fork_addr(
                            st.clone(),
                            cont,
                            addr,
                            (Access::Update, OwnWrite::Lock),
                            span,
                            |w, st, loc, adep| {
                                st.path.branches.push(success);
                                // herd7 gives the result of a failure a dependency on its
                                // `LF` event, and the lock taken none (its `1` is the
                                // value of the whole lock, read and write, whose output
                                // is no event).
                                let taint = if success {
                                    if !w.lock(st, loc, adep, span)? {
                                        return Ok(false);
                                    }
                                    0
                                } else {
                                    w.read(st, loc, Tags::of(&[Tag::Lf]), adep, span)?;
                                    let failure = st.path.events.len() - 1;
                                    st.path.events[failure].read.map_or(0, |k| 1u64 << k)
                                };
                                let res =
                                    st.path.push(Node::Const(Value::Int(success as i64)), taint);
                                set(st, *dst, res);
                                Ok(true)
                            },
                        )?;
                    }
                    return Ok(());
                }
                Op::IsLocked { dst, addr } => {
                    for locked in [true, false] {
                        let cont = todo.clone();
                        self.fork_addr(
                            st.clone(),
                            cont,
                            addr,
                            (Access::Load, OwnWrite::Lock),
                            span,
                            |w, st, loc, adep| {
                                // lock.cat's nested-is-locked: a thread holding the lock always
                                // sees it locked.
                                if !locked && st.held.contains(&loc) {
                                    st.path.breaks_lock_axiom = true;
                                }
                                st.path.branches.push(locked);
                                let tag = if locked { Tag::Rl } else { Tag::Ru };
                                let r = w.read(st, loc, Tags::of(&[tag]), adep, span)?;
                                // The result depends on the read, as herd7's does.
                                let taint = st.path.taint[r as usize];
                                let res =
                                    st.path.push(Node::Const(Value::Int(locked as i64)), taint);
                                set(st, *dst, res);
                                Ok(true)
                            },
                        )?;
                    }
                    return Ok(());
                }
                Op::SyncSrcu { addr } => {
                    return self.fork_addr(
                        st,
                        todo,
                        addr,
                        (Access::Store, OwnWrite::No),
                        span,
                        |_, st, loc, adep| {
                            let zero = st.path.push(Node::Const(Value::Int(0)), 0);
                            st.path.events.push(PathEvent {
                                kind: EventKind::Fence,
                                loc: Some(loc),
                                tags: Tags::of(&[Tag::SyncSrcu]),
                                value: zero,
                                read: None,
                                rmw_with_prev: false,
                                addr_dep: adep,
                                data_dep: 0,
                                ctrl_dep: st.ctrl,
                                inner: 0,
                                stmt: st.stmt,
                                source: span,
                            });
                            Ok(true)
                        },
                    );
                }
                Op::Srcu {
                    dst,
                    addr,
                    value,
                    tags,
                } => {
                    let value = self.sym(&mut st, value, span);
                    return self.fork_addr(
                        st,
                        todo,
                        addr,
                        (Access::Store, OwnWrite::No),
                        span,
                        |_, st, loc, adep| {
                            let data = st.path.taint[value as usize];
                            st.path.events.push(PathEvent {
                                kind: EventKind::Fence,
                                loc: Some(loc),
                                tags: *tags,
                                value,
                                read: None,
                                rmw_with_prev: false,
                                addr_dep: adep,
                                data_dep: data,
                                ctrl_dep: st.ctrl,
                                inner: 0,
                                stmt: st.stmt,
                                source: span,
                            });
                            set(st, *dst, value);
                            Ok(true)
                        },
                    );
                }
                Op::Cutoff => {
                    st.path.cutoff = Some(span);
                    return self.finish(st.path);
                }
                Op::If { cond, then, els } => {
                    let mut c = self.sym(&mut st, cond, span);
                    // herd7 tests a condition that is not a comparison as `e != 0`.
                    if !matches!(cond, Expr::Binary(op, ..) if op.is_comparison()) {
                        let zero = st.path.push(Node::Const(Value::Int(0)), 0);
                        c = self.bin(&mut st, BinOp::Ne, c, zero, span);
                    }
                    // herd7's control dependencies reach the events of the branches only,
                    // not those after the `if`: the mask is restored at the join.
                    // They follow the registers the condition reads, so a condition
                    // whose value is known (`r == r`) still makes them.
                    let outer = st.ctrl;
                    st.ctrl |= st.path.taint[c as usize];
                    if let Some(v) = st.path.constant(c) {
                        let branch = if truth(v) { then } else { els };
                        todo.push((&branch[..], Some(outer)));
                        continue;
                    }
                    for (taken, branch) in [(true, then), (false, els)] {
                        let mut st2 = st.clone();
                        st2.path.constraints.push(Constraint {
                            sym: c,
                            truth: taken,
                            kind: Assumption::Branch,
                        });
                        st2.path.branches.push(taken);
                        let mut todo2 = todo.clone();
                        todo2.push((&branch[..], Some(outer)));
                        self.walk(st2, todo2)?;
                    }
                    return Ok(());
                }
            }
        }
    }

    /// Runs `body` at each location `addr` may denote, then continues the walk; `body`
    /// returns `false` to drop the path.
    ///
    /// An address computed from values read may denote any location whose address the
    /// test handles as a value, or one written in the address itself (`x + r1`), or, where
    /// it may be unsolved ([`Wide`]), any location; the path forks once per such location,
    /// assuming the address is that location, and once more assuming it is none of them,
    /// where it stops with an [`Escape`]. `own` says whether a read-modify-write's read
    /// may read its own write, should the address be no location.
    fn fork_addr(
        &mut self,
        mut st: State,
        todo: Vec<Frame<'a>>,
        addr: &Expr,
        (access, own): (Access, OwnWrite),
        span: (usize, usize),
        mut body: impl FnMut(&mut Self, &mut State, Loc, u64) -> Result<bool, PathError>,
    ) -> Result<(), PathError> {
        let a = self.sym(&mut st, addr, span);
        let adep = st.path.taint[a as usize];
        let known = st.path.constant(a).map(|v| match v {
            Value::Shifted(base, offset) => self
                .adjacent
                .iter()
                .find(|&&(b, o, _)| (b, o) == (base, offset))
                .map_or(v, |&(_, _, loc)| Value::Addr(loc)),
            v => v,
        });
        if self.shapes {
            let (at, loc) = match known {
                Some(Value::Addr(loc)) => (At::Location, loc),
                Some(v) => (At::Nowhere(v), Loc(u32::MAX)),
                None => (At::Computed, Loc(u32::MAX)),
            };
            let first = st.path.events.len();
            if body(self, &mut st, loc, adep)? {
                let events = &st.path.events[first..];
                let kind = |k| events.iter().any(|e| e.kind == k);
                let shape = Shape {
                    at,
                    reads: kind(EventKind::Read),
                    writes: kind(EventKind::Write),
                    single: events.iter().any(|e| c11::is_single_event(e.tags)),
                    own_solves: match own {
                        OwnWrite::No | OwnWrite::Lock => false,
                        OwnWrite::Solves(Solves::Always, _) => true,
                        OwnWrite::Solves(Solves::Never, _) => false,
                        OwnWrite::Solves(Solves::Equal(a, b), _) => {
                            matches!((st.path.constant(a), st.path.constant(b)), (Some(x), Some(y)) if x == y)
                        }
                    },
                    lock: own == OwnWrite::Lock,
                    source: span,
                };
                st.path.accesses.push(shape);
                self.walk(st, todo)?;
            }
            return Ok(());
        }
        match known {
            Some(Value::Addr(loc)) => {
                if body(self, &mut st, loc, adep)? {
                    self.walk(st, todo)?;
                }
                Ok(())
            }
            // An address known without reading memory, but no location: herd7 stops on a
            // read there when it finds no write to pair it with, which is decided before the
            // search ([`crate::engine::nowhere`]), and drops the candidate otherwise unless
            // a write there is in it; on a write only if an execution takes the path. So the
            // path stops here and the enumeration decides once its assumptions hold.
            Some(_) => {
                let read = access != Access::Store;
                let (writes, own_sym) = self.own_write(&mut st, access, own, span);
                let go_on = self.reads_own(&mut st, own, own_sym);
                let escape = Escape {
                    sym: a,
                    source: span,
                    read,
                    writes,
                    own: own_sym,
                    free: go_on && own.free(&st),
                    always: read,
                    lock: own == OwnWrite::Lock,
                    stmt: st.stmt,
                    written: None,
                };
                self.escape(st, todo, escape, go_on)
            }
            None => {
                let mut candidates: BTreeSet<Loc> = self.pointees.iter().copied().collect();
                addresses(addr, &mut candidates);
                if self.wide.stmts.contains(&st.stmt) {
                    candidates.extend(self.wide.targets.iter().copied());
                }
                let mut targets = Vec::with_capacity(candidates.len());
                for &loc in &candidates {
                    let mut st2 = st.clone();
                    let target = st2.path.push(Node::Const(Value::Addr(loc)), 0);
                    targets.push(target);
                    let eq = self.bin(&mut st2, BinOp::Eq, a, target, span);
                    st2.path.constraints.push(Constraint {
                        sym: eq,
                        truth: true,
                        kind: Assumption::Address,
                    });
                    if body(self, &mut st2, loc, adep)? {
                        self.walk(st2, todo.clone())?;
                    }
                }
                for &loc in &candidates {
                    let target = st.path.push(Node::Const(Value::Addr(loc)), 0);
                    let eq = self.bin(&mut st, BinOp::Eq, a, target, span);
                    st.path.constraints.push(Constraint {
                        sym: eq,
                        truth: false,
                        kind: Assumption::Address,
                    });
                }
                let written = self.written(&st, &mut body);
                // A lock there is kept as a write ([`OwnWrite::Lock`]).
                let read =
                    access == Access::Load || access == Access::Update && own != OwnWrite::Lock;
                let (writes, own_sym) = self.own_write(&mut st, access, own, span);
                let go_on = self.reads_own(&mut st, own, own_sym);
                let escape = Escape {
                    sym: a,
                    source: span,
                    read,
                    writes,
                    own: own_sym,
                    free: go_on && own.free(&st),
                    always: false,
                    lock: own == OwnWrite::Lock,
                    stmt: st.stmt,
                    written,
                };
                self.escape(st, todo, escape, go_on)
            }
        }
    }

    /// Records the assumption that `sym` is `want`; `false` when it is known not to be.
    fn assume(&self, st: &mut State, sym: SymId, want: bool, kind: Assumption) -> bool {
        match st.path.constant(sym) {
            Some(v) => truth(v) == want,
            None => {
                st.path.constraints.push(Constraint {
                    sym,
                    truth: want,
                    kind,
                });
                true
            }
        }
    }

    fn lock(
        &mut self,
        st: &mut State,
        loc: Loc,
        adep: u64,
        span: (usize, usize),
    ) -> Result<bool, PathError> {
        // lock.cat's lock-nest: taking a lock this thread holds deadlocks every execution.
        if !st.held.insert(loc) {
            st.path.breaks_lock_axiom = true;
        }
        self.read(st, loc, Tags::of(&[Tag::Lkr]), adep, span)?;
        let one = st.path.push(Node::Const(Value::Int(1)), 0);
        self.write(
            st,
            loc,
            Tags::of(&[Tag::Lkw]),
            one,
            adep,
            Partner::Exchange,
            span,
        );
        Ok(true)
    }

    fn read(
        &mut self,
        st: &mut State,
        loc: Loc,
        tags: Tags,
        adep: u64,
        span: (usize, usize),
    ) -> Result<SymId, PathError> {
        let k = st.path.reads;
        if k >= MAX_READS {
            return Err(err(
                format!("a thread performs more than {MAX_READS} reads"),
                span,
            ));
        }
        st.path.reads += 1;
        let sym = st.path.push(Node::Read(k), 1 << k);
        st.path.events.push(PathEvent {
            kind: EventKind::Read,
            loc: Some(loc),
            tags,
            value: sym,
            read: Some(k),
            rmw_with_prev: false,
            addr_dep: adep,
            data_dep: 0,
            ctrl_dep: st.ctrl,
            inner: 0,
            stmt: st.stmt,
            source: span,
        });
        Ok(sym)
    }

    #[allow(clippy::too_many_arguments)]
    fn write(
        &mut self,
        st: &mut State,
        loc: Loc,
        tags: Tags,
        value: SymId,
        adep: u64,
        partner: Partner,
        span: (usize, usize),
    ) {
        let mut data = st.path.taint[value as usize];
        let own_read = st.path.events.last().and_then(|e| e.read);
        match (partner, own_read) {
            // herd7 makes the write of an exchange depend on its read by control inside
            // the instruction, which no cat relation shows.
            (Partner::Exchange, Some(k)) => data &= !(1u64 << k),
            // The write of an atomic operation computes from its read: herd7's `data`
            // holds the pair (its internal data dependency of RMWs).
            (Partner::Compute, Some(k)) => data |= 1u64 << k,
            _ => {}
        }
        let rmw = partner != Partner::None;
        st.path.events.push(PathEvent {
            kind: EventKind::Write,
            loc: Some(loc),
            tags,
            value,
            read: None,
            rmw_with_prev: rmw,
            addr_dep: adep,
            data_dep: data,
            ctrl_dep: st.ctrl,
            inner: 0,
            stmt: st.stmt,
            source: span,
        });
    }

    /// `a op b` as herd7 builds it: computed when herd7 can, a node otherwise (an illegal
    /// operation included: it is an error only if an allowed execution needs it).
    fn bin(&self, st: &mut State, op: BinOp, a: SymId, b: SymId, span: (usize, usize)) -> SymId {
        let p = &mut st.path;
        let taint = p.taint[a as usize] | p.taint[b as usize];
        match herd_binary(op, p.term(a), p.term(b), self.order) {
            Applied::Term(Term::Val(v)) => p.push(Node::Const(v), taint),
            Applied::Term(Term::Var(r)) => p.push(Node::Alias(r), taint),
            Applied::Undetermined | Applied::Illegal => p.push_at(Node::Bin(op, a, b), taint, span),
        }
    }

    fn sym(&self, st: &mut State, e: &Expr, span: (usize, usize)) -> SymId {
        match e {
            Expr::Const(v) => st.path.push(Node::Const(*v), 0),
            Expr::Reg(r) => st.path.regs[*r],
            Expr::Unary(op, a) => {
                let a = self.sym(st, a, span);
                let p = &mut st.path;
                let taint = p.taint[a as usize];
                match herd_unary(*op, p.term(a)) {
                    Applied::Term(Term::Val(v)) => p.push(Node::Const(v), taint),
                    Applied::Term(Term::Var(r)) => p.push(Node::Alias(r), taint),
                    Applied::Undetermined | Applied::Illegal => {
                        p.push_at(Node::Un(*op, a), taint, span)
                    }
                }
            }
            Expr::Binary(op, a, b) => {
                let a = self.sym(st, a, span);
                let b = self.sym(st, b, span);
                self.bin(st, *op, a, b, span)
            }
        }
    }
}

/// The locations whose address `e` writes (`x` in `x + r1`).
fn addresses(e: &Expr, out: &mut BTreeSet<Loc>) {
    match e {
        Expr::Const(Value::Addr(l) | Value::Shifted(l, _)) => {
            out.insert(*l);
        }
        Expr::Const(_) | Expr::Reg(_) => {}
        Expr::Unary(_, a) => addresses(a, out),
        Expr::Binary(_, a, b) => {
            addresses(a, out);
            addresses(b, out);
        }
    }
}

/// A fence event of the instruction numbered `stmt`.
fn fence(st: &mut State, tags: Tags, stmt: u32, span: (usize, usize)) {
    let zero = st.path.push(Node::Const(Value::Int(0)), 0);
    st.path.events.push(PathEvent {
        kind: EventKind::Fence,
        loc: None,
        tags,
        value: zero,
        read: None,
        rmw_with_prev: false,
        addr_dep: 0,
        data_dep: 0,
        ctrl_dep: st.ctrl,
        inner: 0,
        stmt,
        source: span,
    });
}

/// herd7's `__load{deref}` after its read `r`: an `rb_dep` fence that follows the read
/// inside the instruction, by control, and the value read as what uses it has it: the
/// same value, depending on no read (herd7 gives it on by no dependency at all, so what
/// uses it inside the instruction follows neither the read nor the fence); returns it.
fn rb_dep(st: &mut State, r: SymId, span: (usize, usize)) -> SymId {
    let read = match st.path.nodes[r as usize] {
        Node::Read(k) => 1u64 << k,
        _ => 0,
    };
    let stmt = st.stmt;
    fence(st, Tags::of(&[Tag::RbDep]), stmt, span);
    if let Some(e) = st.path.events.last_mut() {
        e.inner = read;
    }
    st.path.push(Node::Alias(r), 0)
}

/// The fences herd7's `lkmmv1` puts around a fully ordered read-modify-write
/// ([`crate::front::variant`]): inside the instruction, in program order with its read and
/// write, which the numbers of two instructions of their own give them (an event comes
/// after every event of an earlier instruction; lowering numbers instructions below 2^30).
const FENCE_BEFORE: u32 = 1 << 31;
const FENCE_AFTER: u32 = 1 << 30;

/// herd7's `lkmmv1` fence before a fully ordered read-modify-write, if `tags` has one.
fn fence_before(st: &mut State, tags: &RmwTags, span: (usize, usize)) {
    if let Some(f) = tags.fence {
        let stmt = st.stmt | FENCE_BEFORE;
        fence(st, f, stmt, span);
    }
}

/// herd7's `lkmmv1` fence after a fully ordered read-modify-write, if `tags` has one.
fn fence_after(st: &mut State, tags: &RmwTags, span: (usize, usize)) {
    if let Some(f) = tags.fence {
        let stmt = st.stmt | FENCE_AFTER;
        fence(st, f, stmt, span);
    }
}

/// Makes the last event wait, inside its instruction, for the reads `sym` depends on.
fn set_inner(st: &mut State, sym: SymId) {
    let taint = st.path.taint[sym as usize];
    if let Some(e) = st.path.events.last_mut() {
        e.inner = taint;
    }
}

fn set(st: &mut State, dst: Option<Reg>, v: SymId) {
    if let Some(r) = dst {
        st.path.regs[r] = v;
    }
}

/// C truth: every value but the integer 0 is true.
pub(crate) fn truth(v: Value) -> bool {
    !matches!(v, Value::Int(0))
}

#[cfg(test)]
mod tests;
