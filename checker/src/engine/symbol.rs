//! herd7's names for unsolved symbols: the `n` of the `S<n>` that an out-of-thin-air
//! value prints as.
//!
//! herd7 7.58 numbers its symbolic values with one counter per test, bumped each time its
//! semantics of the C program creates a fresh value, and the name printed for a value that
//! no equation solves is the number of its class's representative.
//! This module replays that counter on the lowered program, so that hazmat can print the
//! same name; nothing here changes which executions exist or what they print otherwise.
//!
//! The counter, as herd7 drives it for a C test:
//! - the threads are evaluated one after the other, `P0` first, and the counter runs on
//!   from one thread to the next;
//! - every read of a register is a fresh value, and so is every use of a thread parameter
//!   (`x` in `*x`), since herd7's C front end makes parameters registers with no known
//!   value at evaluation time;
//! - every read of memory is a fresh value, and so is the result of an operator applied to
//!   a value not known yet (`r1 == 1`, the `e != 0` that an `if` on a plain `e` becomes,
//!   the new value of `atomic_add`), but for the identities herd7 applies first
//!   (`lib/symbValue.ml`, `add` and `orop`): `v + 0`, `0 + v`, `v | 0` and `0 | v` are `v`
//!   itself, with no fresh value, whether `v` is known or not (`v - 0`, `v ^ 0`, `v * 1`
//!   and `v & -1` make one), and so is the new value of a kernel atomic operation that
//!   adds or ors 0 (`atomic_add_return(0, x)`, `atomic_add_unless(x, 0, u)`), whose write
//!   then stores the value read; C11's `atomic_fetch_*` makes its new value fresh all the
//!   same (herd7's `fetch`, an equation);
//! - a statement that is an expression (`r1;`, `x;`, `r1 + 1;`) evaluates it, a register
//!   or a parameter being a fresh value;
//! - within a statement, operands are evaluated left to right, and a store evaluates its
//!   address before its value (lowering hoists the reads of a statement into temporaries
//!   first, so a temporary's read is counted where the statement uses it);
//! - an `if` on an unknown value evaluates its condition, then the whole `then` branch,
//!   then the whole `else` branch, and then the rest of the code once per way through the
//!   `if`, in the order the `if` lists its ways (below); an `if` on a value herd7 knows
//!   (a constant, the result of a compare-exchange) runs one branch; an `if` on a
//!   register assigned a constant is one herd7 does not know (it reads the register as a
//!   fresh value), so it evaluates both branches and the rest after each, and hazmat
//!   keeps the way taken (the other is counted, then dropped).
//!
//! The order of the ways: each of herd7's binds lists its results in the reverse of the
//! order it made them (`Evt` is a list, and a bind conses each result of its continuation
//! onto it). So a sequence of statements runs the rest once per way through its first
//! statement, in the order that statement lists them, and lists the ways so made
//! reversed, once per statement (lowering's instructions of one herd7 statement,
//! `Instr::stmt`, count once); an `if` lists the ways of its `then` branch, then those of
//! its `else` branch, reversed. An `if` with one statement in its branch thus runs the
//! rest after its `else` first, but a compare-exchange after one other statement of a
//! branch makes the rest after the `if` run after its success first.
//! What a statement is follows herd7's C grammar, which lowering keeps beside the
//! instructions it flattens ([`ThreadCode::statements`]): a block in braces is one
//! statement holding a sequence of its own (a branch in braces is such a block, and so is
//! a block in a block, or a macro's body, which lowering counts as one statement), a
//! branch or loop body written without braces is its one statement, not a sequence, and a
//! declaration without a value inside braces is a statement with one way (herd7 drops
//! those of a thread's body). The instructions that start a branch with the `if`'s own
//! number (herd7's count of instructions, a loop's cut) are no statement.
//!
//! herd7 evaluates an instruction with two outcomes as one alternative of two monads,
//! each evaluating the instruction's operands itself, the first before the second; the
//! statement then yields the two outcomes in an order its binds decide, and the rest of
//! the code runs once per outcome in that order:
//! - C11's compare-exchange (`ECas` in herd7's C semantics): the expected value's address,
//!   the object's, the plain read of the expected value; then the failure: the read, and
//!   for a strong exchange its comparison with the expected value (`neqT`); then the
//!   success: the desired value, and an RMW whose read is the expected value itself. The
//!   rest runs after the failure first.
//! - `cmpxchg` (`linux_cmpexch_ok`, then `linux_cmpexch_no`): the success evaluates the
//!   address, the expected value, the new one and reads; the failure evaluates the
//!   address and the expected value again, reads, and compares. The rest runs after the
//!   failure first.
//! - `atomic_add_unless` (`linux_add_unless_ok`, then `_no`): the success evaluates the
//!   address, the operand and the limit, reads, adds and compares; the failure evaluates
//!   the address and the limit again and reads. The rest runs after the failure first.
//! - A macro that is a block of several instructions (`smp_store_mb`, a macro file's own
//!   block) is a block of statements, one instruction each (lowering's
//!   [`crate::front::program::Statement::Block`] of them).
//! - `spin_trylock` and `spin_is_locked` evaluate the address once, then make events with
//!   no value; the rest runs after the success (the locked read) first. `spin_lock`,
//!   `spin_unlock`, `synchronize_srcu` and the SRCU events evaluate their address (and
//!   the value an unlock carries) and make events with no fresh value.
//!
//! herd7 then solves the equations that reads-from gives in two rounds of union-find,
//! registers first, memory second.
//! Its union-find is by rank (`herd/partition.ml`: on equal ranks the root of its first
//! argument wins; finding a root compresses the path), over the equations in list order
//! (`herd/valconstraint.ml`, `normalize_vars`), with a fresh partition each round
//! (`herd/mem.ml`), and its solution maps each value to the parent the union-find leaves
//! it, which need not be its root. The registers' round has `loaded := stored` for every
//! read of a register that holds a read's value, or a copy of one (a copy `r2 = r1;`, a
//! condition on it, a bare `r1;`, whether a write stores it or not), the list in the
//! reverse of the reads' order, so that in a flat class the last copy is the root
//! (`Run::register_parents`); the equations it leaves between two values it does not
//! make one parent (copies of copies) it hands on, in the reads' order
//! (`Run::leftovers`). Memory's round has, for each load, `loaded := written`, each
//! side replaced by its parent, the list again in the reverse of the loads' order, as
//! herd7's `-debug mem` shows, then those left by the registers' round; the name printed
//! for an unsolved class is its root's number. A write that stores a read's value as herd7 made it, with no register between
//! (a failed compare-exchange's write-back of the value it read, `*y = *x;`,
//! `*y = *x + 0;`, a kernel atomic operation adding 0), is numbered [`DIRECT`]: a read of
//! it equates its value with that read's own class (an exchange's write, as a store's, has
//! the number of the register read that gives its value, if one does). So a
//! compare-exchange whose expected value is its own object, reading its own write-back
//! under `cos.cat` alone and `-optace false`, prints `S4` (the failed read) where only the
//! failed read reads the write-back, and `S3` (the plain read of the expected value, which
//! wins the tie of the later union) where the plain read reads it too. The enumeration
//! replays both rounds on each class from the numbers given here (`Search::herd_root`), a read's class reaching the reads off the cycle that read its
//! value too: two SRCU read-side sections passing their indices round print `S7`, the
//! first read's copy, in the executions where both read the second's unlock, though the
//! highest number is `S13`.
//! The loads' list is in the reverse of the events' order: a successful compare-exchange's
//! read, which has the number of its expected value's plain read, comes before it.
//! FIXME: a class whose write stores no read's value as it is (a value computed from one,
//! or the new value of a kernel read-modify-write that is not the value read) takes the
//! highest number among its reads and copies, as the corpus's cycles have it, with a
//! warning at that write (`Stats::unnamed_at`); the other
//! equations of herd7's rounds that unite two values (a compare-exchange's expected value
//! with its read, `atomic_add_unless`'s failed read with its limit) are not replayed; and
//! a class's name is its root after memory's round, where herd7 maps each value of a cell
//! to its parent after each round, so that two cells of one class might print two names.
//!
//! A `while` loop's rounds are counted as `if`s, a way cut off at the unrolling limit
//! ending its thread, which is herd7's count (so the threads after it are named as herd7
//! names them), but herd7 builds a round's body before its condition, and binds the next
//! round to the body as a whole, an order within the loop's thread not replayed.
//! Programs whose numbering is not replayed get no names, and their symbols keep hazmat's
//! own numbering (the event of the read): the result of an instruction with two outcomes
//! used inside an expression (`if (cmpxchg(...))`), where herd7 evaluates the rest of the
//! statement once per outcome. [`unreplayed`] says where (or where the first loop is), for
//! the warning beside such a name; [`name`] says where a path of a thread is none of the
//! ways replayed, for the same warning.
//! FIXME: hazmat's paths decide a condition whose value follows from its form
//! (`if (r1 == r1)`: the same value twice), where herd7, who reads each use of a register
//! as a fresh value, evaluates both branches and the rest after each (dropping the way
//! the equations contradict); the replay, which tracks values and not their identity,
//! makes both ways as herd7 does, but does not know which one hazmat's path is, so such
//! a path gets no names (a warning says so).

use crate::engine::paths::{Path, truth};
use crate::exec::event::Value;
use crate::front::program::{
    AddrOrder, BinOp, Expr, Instr, Op, Program, Reg, RmwWrite, Statement, ThreadCode, apply_binary,
    apply_unary,
};
use std::collections::HashMap;

/// The number of a write that stores a read's value as herd7 made it, through no register
/// (a failed compare-exchange's write-back, `*y = *x;`): herd7's equation for a read of it
/// names the read's value itself.
pub(crate) const DIRECT: u32 = u32::MAX;

/// One way through a thread as herd7 evaluates it.
#[derive(Clone, Debug, Default)]
struct Run {
    /// The way taken at each `if` on an unknown value and at each instruction with two
    /// outcomes, in program order (as [`Path::branches`]).
    branches: Vec<bool>,
    /// herd7's number of each read, in the order of the path's reads (0: not yet counted,
    /// or a lock's read, which has no value).
    reads: Vec<u32>,
    /// For each write, herd7's number of the register read that gives its value, or 0.
    writes: Vec<u32>,
    /// Hoisted reads not yet counted.
    pending: Vec<Pending>,
    /// The registers whose value hazmat knows on this way, and whether herd7 knows it too
    /// when the register is a temporary (herd7 reads a named register as a fresh value).
    known: Vec<(Reg, Value, bool)>,
    /// The registers that hold a value herd7 made by a read, of memory or of a register,
    /// with that value's number.
    holds: Vec<(Reg, u32)>,
    /// herd7's equations of register reads, `loaded := stored`: each read of a register
    /// that holds a value of [`Run::holds`], with the number of that value.
    equations: Vec<(u32, u32)>,
    /// Whether the way was cut off at a loop's unrolling: herd7 evaluates nothing after.
    cut: bool,
    /// Whether the way goes through a branch that hazmat knows is not taken: herd7, who
    /// does not know it, evaluates the rest of the code after it all the same, and so
    /// counts its fresh values, but hazmat has no path for it.
    dead: bool,
}

impl Run {
    fn known(&self, r: Reg) -> Option<(Value, bool)> {
        self.known
            .iter()
            .find(|k| k.0 == r)
            .map(|&(_, v, herd)| (v, herd))
    }

    fn set(&mut self, r: Reg, value: Option<Value>, herd: bool) {
        self.known.retain(|k| k.0 != r);
        self.holds.retain(|k| k.0 != r);
        if let Some(v) = value {
            self.known.push((r, v, herd));
        }
    }

    /// Records that register `r` holds the value numbered `var`, if a read made it.
    fn hold(&mut self, r: Reg, var: Option<u32>) {
        self.holds.retain(|k| k.0 != r);
        if let Some(n) = var {
            self.holds.push((r, n));
        }
    }

    fn held(&self, r: Reg) -> Option<u32> {
        self.holds.iter().find(|k| k.0 == r).map(|k| k.1)
    }

    /// The parent herd7's union-find on this way's register equations leaves each
    /// number it unites (`herd/partition.ml`): by rank, the root of the first argument
    /// winning a tie, with path compression as it finds, over the equations in the
    /// reverse of the register reads' order; its solution maps a number to that parent,
    /// not to its root.
    fn register_parents(&self) -> HashMap<u32, u32> {
        // Each number met: its parent and its rank.
        let mut cells: HashMap<u32, (u32, u32)> = HashMap::new();
        fn find(cells: &mut HashMap<u32, (u32, u32)>, x: u32) -> u32 {
            let parent = cells.entry(x).or_insert((x, 0)).0;
            if parent == x {
                return x;
            }
            let root = find(cells, parent);
            if let Some(c) = cells.get_mut(&x) {
                c.0 = root;
            }
            root
        }
        let mut equations = self.equations.clone();
        equations.sort_by_key(|e| std::cmp::Reverse(e.0));
        for (loaded, stored) in equations {
            let (d1, d2) = (find(&mut cells, loaded), find(&mut cells, stored));
            let (k1, k2) = (cells[&d1].1, cells[&d2].1);
            if k1 > k2 {
                cells.insert(d2, (d1, k2));
            } else if k2 > k1 {
                cells.insert(d1, (d2, k1));
            } else if d1 != d2 {
                cells.insert(d2, (d1, k2));
                cells.insert(d1, (d1, k1 + 1));
            }
        }
        cells.into_iter().map(|(x, (p, _))| (x, p)).collect()
    }

    /// The equations herd7's round of union-find on the registers leaves, each side
    /// replaced by its parent (`parents`), where the two differ, in the order herd7's
    /// solver hands them to the round on memory (that of the register reads): for each,
    /// the read whose value the register held first, the register read, and the sides.
    fn leftovers(&self, parents: &HashMap<u32, u32>) -> Vec<(u32, u32, u32, u32)> {
        let parent = |n: u32| parents.get(&n).copied().unwrap_or(n);
        let base = |mut n: u32| {
            while let Some(e) = self.equations.iter().find(|e| e.0 == n) {
                n = e.1;
            }
            n
        };
        let mut equations = self.equations.clone();
        equations.sort_by_key(|e| e.0);
        equations
            .into_iter()
            .filter(|&(loaded, stored)| parent(loaded) != parent(stored))
            .map(|(loaded, stored)| (base(stored), loaded, parent(loaded), parent(stored)))
            .collect()
    }

    fn forget(&mut self, r: Option<Reg>) {
        if let Some(r) = r {
            self.set(r, None, false);
        }
    }
}

/// A read hoisted into a temporary, not yet counted.
#[derive(Clone, Copy, Debug)]
struct Pending {
    /// The register receiving the result: a temporary, while pending.
    reg: Option<Reg>,
    /// The instruction that reads.
    ins: usize,
    /// Its read's index in [`Run::reads`].
    read: usize,
    /// Its write's index in [`Run::writes`], for a read-modify-write.
    write: usize,
}

/// What evaluating an expression gave.
#[derive(Clone, Copy, Debug)]
struct Eval {
    /// Whether herd7 does not know its value when it evaluates it.
    unknown: bool,
    /// herd7's number of the register read it is, if it is one, or [`DIRECT`] when it is
    /// a read's value as herd7 made it, through no register (a read hoisted into a
    /// temporary, or that plus 0).
    copy: Option<u32>,
    /// herd7's number of the value it is, when a read made it, of memory or of a register.
    var: Option<u32>,
    /// Its value, when hazmat knows it on this way.
    value: Option<Value>,
}

/// The instruction (its index among the thread's, flattened) whose numbering is not
/// replayed.
type Replay<T> = Result<T, usize>;

/// How herd7 sees the branches of an `if` statement: its `then` branch, and its `else`
/// branch if written (`None` for an `if` that lowering makes inside a statement).
type Branches<'a> = Option<(&'a Statement, Option<&'a Statement>)>;

/// The branches of an `if` instruction numbered `stmt`, with how herd7 sees them.
#[derive(Clone, Copy)]
struct Arms<'a> {
    stmt: u32,
    then: &'a [Instr],
    els: &'a [Instr],
    shapes: Branches<'a>,
}

impl Arms<'_> {
    /// The ways through the `then` branch (`taken`) or the `else` branch; an `else`
    /// not written is one way, with no code.
    fn ways(&self, counter: &mut Counter<'_>, taken: bool, run: Run) -> Replay<Vec<Run>> {
        let (code, shape) = match (taken, self.shapes) {
            (true, Some((then, _))) => (self.then, Some(then)),
            (false, Some((_, Some(els)))) => (self.els, Some(els)),
            (false, Some((_, None))) => return counter.seq(&[], self.els, run),
            (true, None) => (self.then, None),
            (false, None) => (self.els, None),
        };
        counter.arm(self.stmt, shape, code, run)
    }
}

/// The number of instructions at the start of `code` that the statement `s` holds.
fn extent(s: &Statement, code: &[Instr]) -> usize {
    match s {
        Statement::Plain(id) | Statement::If { stmt: id, .. } => {
            code.iter().take_while(|i| i.stmt == *id).count()
        }
        Statement::Decl => 0,
        Statement::Block(seq) => seq.iter().fold(0, |n, s| n + extent(s, &code[n..])),
    }
}

struct Counter<'a> {
    thread: &'a ThreadCode,
    /// The instructions of the thread, flattened, so that a pending read can name one.
    instrs: Vec<&'a Instr>,
    next: u32,
    /// herd7's order of addresses, which subtracting two computes.
    order: &'a AddrOrder,
}

/// herd7's ways through each thread, or the source of the first instruction whose
/// numbering is not replayed.
fn replay(program: &Program) -> Result<Vec<Vec<Run>>, (usize, usize)> {
    let mut next = 0;
    let mut runs = Vec::with_capacity(program.threads.len());
    for t in &program.threads {
        let mut counter = Counter {
            thread: t,
            order: &program.addr_order,
            instrs: Vec::new(),
            next,
        };
        flatten(&t.code, &mut counter.instrs);
        // hazmat knows the registers' initial values, as its paths do; herd7 reads a
        // named register as a fresh value all the same.
        let start = Run {
            known: (0..t.regs.len())
                .map(|r| (r, t.init.get(r).copied().unwrap_or(Value::Int(0)), false))
                .collect(),
            ..Run::default()
        };
        let r = counter
            .seq(&t.statements, &t.code, start)
            .map_err(|i| counter.instrs[i].span)?;
        next = counter.next;
        runs.push(r.into_iter().filter(|r| !r.dead).collect());
    }
    Ok(runs)
}

/// The source of the first instruction through which herd7's numbering of fresh values
/// is not replayed, if any: a value out of thin air may then print under another name
/// than herd7's.
pub(crate) fn unreplayed(program: &Program) -> Option<(usize, usize)> {
    replay(program).err().or_else(|| first_cutoff(program))
}

/// The source of the first run cut off at a loop's unrolling, in thread order: herd7's
/// count of the fresh values of an unrolled loop is replayed (each round as an `if`, a
/// cut way ending the thread), and so are the names of the threads after it, but its
/// order within the loop's own thread may not be herd7's, who builds a round's body
/// before its condition.
fn first_cutoff(program: &Program) -> Option<(usize, usize)> {
    program.threads.iter().find_map(|t| {
        let mut instrs = Vec::new();
        flatten(&t.code, &mut instrs);
        instrs
            .iter()
            .find(|i| matches!(i.op, Op::Cutoff))
            .map(|i| i.span)
    })
}

/// Sets [`Path::herd`] on every path of every thread, when herd7's numbering of the
/// program can be replayed ([`unreplayed`] says where it cannot). Returns the code of the
/// first thread with a path whose ways or accesses are not those of a way replayed: such
/// a path keeps no names, and a value out of thin air of its prints under hazmat's own
/// name, for which the caller warns as for [`unreplayed`]: a condition that hazmat's paths
/// decide from its form alone (`r1 == r1`, which herd7 reads as two fresh values), where
/// the replay makes both ways (see the module's FIXME). A path that stops at an address
/// that is no location makes no final state, and is passed over.
pub(crate) fn name(program: &Program, per_thread: &mut [Vec<Path>]) -> Option<(usize, usize)> {
    let Ok(runs) = replay(program) else {
        return None;
    };
    let mut unnamed = None;
    for ((paths, runs), thread) in per_thread.iter_mut().zip(&runs).zip(&program.threads) {
        let by_way: HashMap<&[bool], &Run> = runs.iter().map(|r| (&r.branches[..], r)).collect();
        for path in paths.iter_mut() {
            // A path that stops at an address that is no location makes no final state
            // (its candidates are dropped, or stop the test), and the way replayed goes on.
            if path.escape.is_some() {
                continue;
            }
            let writes = path
                .events
                .iter()
                .filter(|e| e.kind == crate::exec::event::EventKind::Write)
                .count();
            let run = by_way
                .get(&path.branches[..])
                .filter(|run| run.reads.len() == path.reads as usize && run.writes.len() == writes);
            let Some(run) = run else {
                unnamed = unnamed.or_else(|| code_span(&thread.code));
                continue;
            };
            let mut w = 0;
            path.herd = path
                .events
                .iter()
                .map(|e| match (e.read, e.kind) {
                    (Some(k), _) => run.reads[k as usize],
                    (None, crate::exec::event::EventKind::Write) => {
                        w += 1;
                        run.writes[w - 1]
                    }
                    _ => 0,
                })
                .collect();
            let parents = run.register_parents();
            path.herd_parent = path
                .herd
                .iter()
                .map(|n| parents.get(n).copied().unwrap_or(*n))
                .collect();
            path.herd_leftover = run.leftovers(&parents);
        }
    }
    unnamed
}

/// The source of `code`, from its first instruction to its last.
fn code_span(code: &[Instr]) -> Option<(usize, usize)> {
    Some((code.first()?.span.0, code.last()?.span.1))
}

fn flatten<'a>(code: &'a [Instr], out: &mut Vec<&'a Instr>) {
    for i in code {
        out.push(i);
        if let Op::If { then, els, .. } = &i.op {
            flatten(then, out);
            flatten(els, out);
        }
    }
}

/// Whether `operand` is one with which herd7's operator `op` leaves the other operand as it
/// is, making no fresh value (`lib/symbValue.ml`: `add` and `orop` on a zero it knows).
fn identity(op: BinOp, operand: &Eval) -> bool {
    matches!(op, BinOp::Add | BinOp::Or) && !operand.unknown && operand.value == Some(Value::Int(0))
}

/// Whether `e` mentions register `r`.
fn mentions(e: &Expr, r: Reg) -> bool {
    match e {
        Expr::Const(_) => false,
        Expr::Reg(x) => *x == r,
        Expr::Unary(_, a) => mentions(a, r),
        Expr::Binary(_, a, b) => mentions(a, r) || mentions(b, r),
    }
}

/// The expressions an instruction evaluates before any branch it has.
fn operands(op: &Op) -> Vec<&Expr> {
    match op {
        Op::Let { val, .. } => vec![val],
        Op::Load { addr, .. } => vec![addr],
        Op::Store { addr, val, .. } => vec![addr, val],
        Op::Rmw { addr, write, .. } => match write {
            RmwWrite::Set(e) | RmwWrite::Apply(_, e) => vec![addr, e],
        },
        Op::Cmpxchg {
            addr,
            expected,
            new,
            ..
        } => vec![addr, expected, new],
        Op::CompareExchange {
            addr,
            expected,
            desired,
            ..
        } => vec![addr, expected, desired],
        Op::AddUnless {
            addr, add, unless, ..
        } => vec![addr, add, unless],
        Op::Lock { addr }
        | Op::Unlock { addr }
        | Op::Trylock { addr, .. }
        | Op::IsLocked { addr, .. }
        | Op::SyncSrcu { addr } => vec![addr],
        Op::Srcu { addr, value, .. } => vec![addr, value],
        Op::If { cond, .. } => vec![cond],
        Op::Fence { .. } | Op::Cutoff => Vec::new(),
    }
}

/// Whether `op` is the write-back of a failed C11 compare-exchange, or the `if` around it.
fn is_write_back(op: &Op) -> bool {
    match op {
        Op::Store { write_back, .. } => *write_back,
        Op::If { then, els, .. } => {
            els.is_empty() && matches!(&then[..], [i] if is_write_back(&i.op))
        }
        _ => false,
    }
}

impl Counter<'_> {
    fn fresh(&mut self) -> u32 {
        self.next += 1;
        self.next
    }

    fn is_temp(&self, r: Reg) -> bool {
        self.thread.regs[r].starts_with('%')
    }

    /// The ways through the sequence of statements `seq`, lowered as `code`, from `run`,
    /// in the order herd7 lists them (see the module's notes): the rest of the sequence
    /// runs once per way through its first statement, in the order the statement lists
    /// its ways, and the sequence lists the ways so made reversed.
    fn seq(&mut self, seq: &[Statement], code: &[Instr], run: Run) -> Replay<Vec<Run>> {
        if run.cut {
            return Ok(vec![run]);
        }
        let Some((first, rest)) = seq.split_first() else {
            // Code that no statement holds is code whose order is not known.
            if let Some(ins) = code.first() {
                return Err(self.index(ins));
            }
            let mut run = run;
            self.flush(&mut run, None);
            return Ok(vec![run]);
        };
        let n = extent(first, code);
        let mut all = Vec::new();
        for r in self.statement(first, &code[..n], run)? {
            all.extend(self.seq(rest, &code[n..], r)?);
        }
        all.reverse();
        Ok(all)
    }

    /// The ways through the statement `s`, lowered as `code`, in the order herd7 lists
    /// them: a block's as a sequence's, a declaration's one way, those of any other
    /// statement as its instructions make them.
    fn statement(&mut self, s: &Statement, code: &[Instr], run: Run) -> Replay<Vec<Run>> {
        match s {
            Statement::Block(seq) => self.seq(seq, code, run),
            Statement::Decl => Ok(vec![run]),
            Statement::Plain(_) => self.instrs(code, None, run),
            Statement::If { then, els, .. } => self.instrs(code, Some((then, els.as_deref())), run),
        }
    }

    /// The ways through `code`, the instructions of one statement (the reads lowering
    /// hoists, a compare-exchange's write-back, the `if` that ends an `if` statement, whose
    /// branches herd7 sees as `branches`): each runs once per way through the one before
    /// it, in the order that one makes them, not reversed.
    fn instrs(&mut self, code: &[Instr], branches: Branches<'_>, run: Run) -> Replay<Vec<Run>> {
        let Some((first, rest)) = code.split_first() else {
            return Ok(vec![run]);
        };
        if run.cut {
            return Ok(vec![run]);
        }
        let own = if rest.is_empty() { branches } else { None };
        let mut all = Vec::new();
        for r in self.instr(first, own, run)? {
            all.extend(self.instrs(rest, branches, r)?);
        }
        Ok(all)
    }

    /// The ways through a branch, lowered as `code`, of the `if` numbered `stmt`, which
    /// herd7 sees as the statement `shape` (a block when written in braces); `None` for the
    /// branch of an `if` that lowering makes inside a statement (a compare-exchange's
    /// write-back), which is part of that statement. The instructions of the `if`'s own
    /// that start the branch (herd7's count of instructions, a loop's cut) come first.
    fn arm(
        &mut self,
        stmt: u32,
        shape: Option<&Statement>,
        code: &[Instr],
        run: Run,
    ) -> Replay<Vec<Run>> {
        let Some(shape) = shape else {
            return self.instrs(code, None, run);
        };
        let lead = code.iter().take_while(|i| i.stmt == stmt).count();
        let body = &code[lead..];
        if let Some(ins) = body.get(extent(shape, body)) {
            return Err(self.index(ins));
        }
        let mut all = Vec::new();
        for r in self.instrs(&code[..lead], None, run)? {
            all.extend(self.statement(shape, body, r)?);
        }
        Ok(all)
    }

    /// The index of `ins` among the thread's instructions, flattened.
    fn index(&self, ins: &Instr) -> usize {
        self.instrs
            .iter()
            .position(|i| std::ptr::eq(*i, ins))
            .expect("the instruction is the thread's")
    }

    /// Counts the pending reads that `op` does not use: herd7 evaluated their statements
    /// before this one.
    fn flush(&mut self, run: &mut Run, op: Option<&Op>) {
        let used = |r: Reg| op.is_some_and(|op| operands(op).iter().any(|e| mentions(e, r)));
        let mut i = 0;
        while i < run.pending.len() {
            if run.pending[i].reg.is_some_and(used) {
                i += 1;
            } else {
                let p = run.pending.remove(i);
                self.deferred(run, p);
            }
        }
    }

    /// `Err(index)` unless the result `dst` of the instruction `index` is only copied to a
    /// register as a statement of its own (`r = cmpxchg(...);`) or written back by a failed
    /// compare-exchange: herd7 evaluates the rest of a statement once per outcome, in an
    /// order not replayed here.
    fn only_copied(&self, dst: Option<Reg>, index: usize) -> Replay<()> {
        let Some(t) = dst else {
            return Ok(());
        };
        for (i, ins) in self.instrs.iter().enumerate() {
            let copied = matches!(&ins.op, Op::Let { val: Expr::Reg(r), .. } if *r == t);
            if i != index
                && !copied
                && !is_write_back(&ins.op)
                && operands(&ins.op).iter().any(|e| mentions(e, t))
            {
                return Err(index);
            }
        }
        Ok(())
    }

    /// `Err(index)` when an operand of instruction `index` uses a read still pending:
    /// herd7 evaluates the operands of an instruction with two outcomes once per outcome,
    /// and would make that read twice.
    fn no_pending(&self, run: &Run, index: usize) -> Replay<()> {
        let op = &self.instrs[index].op;
        let uses = |r: Reg| operands(op).iter().any(|e| mentions(e, r));
        if run.pending.iter().any(|p| p.reg.is_some_and(uses)) {
            return Err(index);
        }
        Ok(())
    }

    /// The ways through the instruction `ins`; `branches`, how herd7 sees the branches of
    /// an `if` statement's own `if`.
    fn instr(&mut self, ins: &Instr, branches: Branches<'_>, mut run: Run) -> Replay<Vec<Run>> {
        self.flush(&mut run, Some(&ins.op));
        let index = self.index(ins);
        match &ins.op {
            Op::If { cond, then, els } => {
                let arms = Arms {
                    stmt: ins.stmt,
                    then,
                    els,
                    shapes: branches,
                };
                return self.branch(index, cond, arms, run);
            }
            _ if branches.is_some() => return Err(index),
            // herd7 numbers its instructions with no value of its own.
            Op::Let { dst, .. } if self.thread.regs[*dst] == crate::front::lower::POI => {}
            Op::Let { dst, val } => {
                let e = self.expr(val, &mut run);
                run.set(*dst, e.value, !e.unknown);
                run.hold(*dst, e.var);
            }
            Op::Load { dst, .. } | Op::Rmw { dst, .. } => {
                let p = Pending {
                    reg: *dst,
                    ins: index,
                    read: run.reads.len(),
                    write: run.writes.len(),
                };
                run.reads.push(0);
                if matches!(ins.op, Op::Rmw { .. }) {
                    run.writes.push(0);
                }
                run.forget(*dst);
                match dst {
                    Some(t) if self.is_temp(*t) => run.pending.push(p),
                    _ => {
                        self.deferred(&mut run, p);
                    }
                }
            }
            // herd7 writes the value read back at the expected address, evaluated already:
            // the read's own value, with no register between.
            Op::Store {
                write_back: true, ..
            } => run.writes.push(DIRECT),
            Op::Store { addr, val, .. } => {
                self.expr(addr, &mut run);
                // A hoisted read stored as it is (`*y = *x;`) passes no register either.
                let copy = self.expr(val, &mut run).copy;
                run.writes.push(copy.unwrap_or(0));
            }
            Op::Fence { .. } => {}
            // A lock evaluates its address and makes its events with no value (a read and
            // a write); an unlock, a write; `synchronize_srcu`, an event neither.
            Op::Lock { addr } => {
                self.expr(addr, &mut run);
                run.reads.push(0);
                run.writes.push(0);
            }
            Op::Unlock { addr } => {
                self.expr(addr, &mut run);
                run.writes.push(0);
            }
            Op::SyncSrcu { addr } => {
                self.expr(addr, &mut run);
            }
            // The address, then the value the event carries: a constant of herd7's for a
            // lock, which the register receives.
            Op::Srcu {
                dst, addr, value, ..
            } => {
                self.expr(addr, &mut run);
                let v = self.expr(value, &mut run);
                if let Some(d) = dst {
                    run.set(*d, v.value, !v.unknown);
                }
            }
            Op::CompareExchange { .. }
            | Op::Cmpxchg { .. }
            | Op::AddUnless { .. }
            | Op::Trylock { .. }
            | Op::IsLocked { .. } => return self.two_ways(index, run),
            Op::Cutoff => {
                self.flush(&mut run, None);
                run.cut = true;
            }
        }
        Ok(vec![run])
    }

    /// An `if`: herd7 evaluates its condition, tested as `e != 0` unless it is a
    /// comparison; a condition it knows runs one branch, one it does not know runs the
    /// whole `then` branch, then the whole `else` branch.
    fn branch(
        &mut self,
        index: usize,
        cond: &Expr,
        arms: Arms<'_>,
        mut run: Run,
    ) -> Replay<Vec<Run>> {
        let e = self.expr(cond, &mut run);
        let comparison = matches!(cond, Expr::Binary(op, ..) if op.is_comparison());
        let value = if comparison {
            e.value
        } else {
            e.value
                .and_then(|v| apply_binary(BinOp::Ne, v, Value::Int(0), self.order))
        };
        // herd7 lists an `if`'s ways as those of its `then` branch, then those of its
        // `else` branch (only the branch taken, when it knows the condition), reversed.
        if !e.unknown {
            let Some(v) = value else {
                return Err(index);
            };
            let mut ways = arms.ways(self, truth(v), run)?;
            ways.reverse();
            return Ok(ways);
        }
        if !comparison {
            self.fresh();
        }
        // A condition hazmat knows (on a register assigned a constant) makes no branch of
        // hazmat's: herd7 still evaluates both, and the rest after each, and the way taken
        // is the one kept (on a way already dead, hazmat's values are not the run's).
        let mut taken = run.clone();
        let mut not_taken = run;
        match value {
            None => {
                taken.branches.push(true);
                not_taken.branches.push(false);
            }
            Some(v) if truth(v) => not_taken.dead = true,
            Some(_) => taken.dead = true,
        }
        let taken = arms.ways(self, true, taken)?;
        let not_taken = arms.ways(self, false, not_taken)?;
        let mut ways: Vec<Run> = taken.into_iter().chain(not_taken).collect();
        ways.reverse();
        Ok(ways)
    }

    /// An instruction with two outcomes. herd7 evaluates both as one alternative, the
    /// first then the second, each evaluating the instruction's operands itself; then
    /// the rest of the code once per outcome, in the order the alternative's results come
    /// out of the statement (see the module's notes).
    fn two_ways(&mut self, index: usize, run: Run) -> Replay<Vec<Run>> {
        self.no_pending_except_expected(&run, index)?;
        let way = |run: &Run, b: bool| {
            let mut r = run.clone();
            r.branches.push(b);
            r
        };
        let int = |b: bool| Some(Value::Int(b as i64));
        match &self.instrs[index].op {
            Op::Cmpxchg {
                dst,
                addr,
                expected,
                new,
                ..
            } => {
                self.only_copied(*dst, index)?;
                // Success: the address, the expected value, the new one, the read.
                let mut ok = way(&run, true);
                self.expr(addr, &mut ok);
                self.expr(expected, &mut ok);
                let copy = self.expr(new, &mut ok).copy;
                let read = self.fresh();
                ok.reads.push(read);
                ok.writes.push(copy.unwrap_or(0));
                // Either way, the result is the value read.
                ok.forget(*dst);
                if let Some(d) = dst {
                    ok.hold(*d, Some(read));
                }
                // Failure: the address, the expected value, the read, their comparison.
                let mut no = way(&run, false);
                self.expr(addr, &mut no);
                self.expr(expected, &mut no);
                let read = self.fresh();
                no.reads.push(read);
                self.fresh();
                no.forget(*dst);
                if let Some(d) = dst {
                    no.hold(*d, Some(read));
                }
                Ok(vec![no, ok])
            }
            Op::AddUnless {
                dst,
                addr,
                add,
                unless,
                ..
            } => {
                self.only_copied(*dst, index)?;
                // Success: the address, the operand, the limit, the read, the sum (none
                // when herd7's `+` leaves the read as it is, which the write then stores
                // through no register), the comparison with the limit.
                let mut ok = way(&run, true);
                self.expr(addr, &mut ok);
                let operand = self.expr(add, &mut ok);
                self.expr(unless, &mut ok);
                ok.reads.push(self.fresh());
                if identity(BinOp::Add, &operand) {
                    ok.writes.push(DIRECT);
                } else {
                    self.fresh();
                    ok.writes.push(0);
                }
                self.fresh();
                // Failure: the address, the limit, the read.
                let mut no = way(&run, false);
                self.expr(addr, &mut no);
                self.expr(unless, &mut no);
                no.reads.push(self.fresh());
                if let Some(d) = dst {
                    ok.set(*d, int(true), true);
                    no.set(*d, int(false), true);
                }
                Ok(vec![no, ok])
            }
            // The address, once, then events with no value: a lock's read and write, or
            // the failed attempt's read; a locked or an unlocked read.
            Op::Trylock { dst, addr } | Op::IsLocked { dst, addr } => {
                self.only_copied(*dst, index)?;
                let mut run = run;
                self.expr(addr, &mut run);
                let lock = matches!(self.instrs[index].op, Op::Trylock { .. });
                let mut yes = way(&run, true);
                yes.reads.push(0);
                if lock {
                    yes.writes.push(0);
                }
                let mut no = way(&run, false);
                no.reads.push(0);
                if let Some(d) = dst {
                    yes.set(*d, int(true), true);
                    no.set(*d, int(false), true);
                }
                Ok(vec![yes, no])
            }
            Op::CompareExchange {
                ok,
                old,
                addr,
                expected,
                desired,
                strong,
                ..
            } => {
                self.only_copied(Some(*ok), index)?;
                self.only_copied(Some(*old), index)?;
                // The expected value's plain read, which lowering puts first.
                let mut run = run;
                let pending = match expected {
                    Expr::Reg(t) => run.pending.iter().position(|p| p.reg == Some(*t)),
                    _ => None,
                };
                let Some(p) = pending else {
                    return Err(index);
                };
                let Pending {
                    ins: load, read: k, ..
                } = run.pending.remove(p);
                let Op::Load { addr: exp_addr, .. } = &self.instrs[load].op else {
                    return Err(index);
                };
                // The expected value's address, the object's, the expected value.
                self.expr(exp_addr, &mut run);
                self.expr(addr, &mut run);
                let exp = self.fresh();
                run.reads[k] = exp;
                // Failure: the read, and its comparison with the expected value when the
                // exchange is strong.
                let mut no = way(&run, false);
                no.reads.push(self.fresh());
                if *strong {
                    self.fresh();
                }
                // Success: the desired value; the read is of the expected value.
                let mut yes = way(&run, true);
                let copy = self.expr(desired, &mut yes).copy;
                yes.reads.push(exp);
                yes.writes.push(copy.unwrap_or(0));
                no.set(*ok, int(false), true);
                yes.set(*ok, int(true), true);
                no.forget(Some(*old));
                yes.forget(Some(*old));
                Ok(vec![no, yes])
            }
            _ => Err(index),
        }
    }

    /// As [`Counter::no_pending`], but a compare-exchange's expected value, whose plain read
    /// lowering hoists before it, is its own.
    fn no_pending_except_expected(&self, run: &Run, index: usize) -> Replay<()> {
        if let Op::CompareExchange { addr, desired, .. } = &self.instrs[index].op {
            let uses = |r: Reg| mentions(addr, r) || mentions(desired, r);
            if run.pending.iter().any(|p| p.reg.is_some_and(uses)) {
                return Err(index);
            }
            return Ok(());
        }
        self.no_pending(run, index)
    }

    /// Counts the values of the read `p`, made by a load or an RMW; returns the read's
    /// number when the instruction's result is the value read, as herd7 made it, which
    /// its register then holds.
    fn deferred(&mut self, run: &mut Run, p: Pending) -> Option<u32> {
        let var = self.read_values(run, p).then_some(run.reads[p.read]);
        if let Some(r) = p.reg {
            run.hold(r, var);
        }
        var
    }

    /// Counts the values of the read `p`; returns whether the instruction's result is the
    /// value read.
    fn read_values(&mut self, run: &mut Run, p: Pending) -> bool {
        let k = p.read;
        match &self.instrs[p.ins].op {
            Op::Load { addr, .. } => {
                self.expr(addr, run);
                run.reads[k] = self.fresh();
                true
            }
            Op::Rmw {
                addr,
                write,
                equation,
                ret_new,
                ..
            } => match write {
                // `xchg`: the address, the value, the read; the write stores the value.
                RmwWrite::Set(e) => {
                    self.expr(addr, run);
                    let value = self.expr(e, run);
                    run.reads[k] = self.fresh();
                    run.writes[p.write] = value.copy.unwrap_or(0);
                    true
                }
                // `atomic_add` and friends: the operand, the address, the read, the new
                // value: a fresh one for C11's, and for the kernel's unless herd7's
                // operator leaves the value read as it is (`+ 0`, `| 0`), which the write
                // then stores through no register.
                RmwWrite::Apply(op, e) => {
                    let operand = self.expr(e, run);
                    self.expr(addr, run);
                    run.reads[k] = self.fresh();
                    if !*equation && identity(*op, &operand) {
                        run.writes[p.write] = DIRECT;
                        true
                    } else {
                        self.fresh();
                        !*ret_new
                    }
                }
            },
            _ => false,
        }
    }

    /// Counts the values `e` creates.
    fn expr(&mut self, e: &Expr, run: &mut Run) -> Eval {
        match e {
            Expr::Const(v @ Value::Addr(_)) => {
                // FIXME: `&x` lowers as a parameter does, and is counted as one.
                Eval {
                    unknown: true,
                    copy: Some(self.fresh()),
                    var: None,
                    value: Some(*v),
                }
            }
            Expr::Const(v) => Eval {
                unknown: false,
                copy: None,
                var: None,
                value: Some(*v),
            },
            Expr::Reg(r) if self.is_temp(*r) => {
                let mut copy = None;
                if let Some(i) = run.pending.iter().position(|p| p.reg == Some(*r)) {
                    let p = run.pending.remove(i);
                    if self.deferred(run, p).is_some() {
                        copy = Some(DIRECT);
                    }
                }
                let known = run.known(*r);
                Eval {
                    unknown: !known.is_some_and(|(_, herd)| herd),
                    copy,
                    var: run.held(*r),
                    value: known.map(|(v, _)| v),
                }
            }
            Expr::Reg(r) => {
                let n = self.fresh();
                if let Some(stored) = run.held(*r) {
                    run.equations.push((n, stored));
                }
                Eval {
                    unknown: true,
                    copy: Some(n),
                    var: Some(n),
                    value: run.known(*r).map(|(v, _)| v),
                }
            }
            Expr::Unary(op, a) => {
                let x = self.expr(a, run);
                if x.unknown {
                    self.fresh();
                }
                Eval {
                    unknown: x.unknown,
                    copy: None,
                    var: None,
                    value: x.value.and_then(|v| apply_unary(*op, v)),
                }
            }
            Expr::Binary(op, a, b) => {
                let x = self.expr(a, run);
                let y = self.expr(b, run);
                // herd7's `v + 0`, `0 + v`, `v | 0` and `0 | v` are `v`, with no fresh value.
                if identity(*op, &x) {
                    return y;
                }
                if identity(*op, &y) {
                    return x;
                }
                let unknown = x.unknown || y.unknown;
                if unknown {
                    self.fresh();
                }
                Eval {
                    unknown,
                    copy: None,
                    var: None,
                    value: x
                        .value
                        .zip(y.value)
                        .and_then(|(v, w)| apply_binary(*op, v, w, self.order)),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::event::EventKind;

    fn named(source: &str) -> Vec<Vec<Path>> {
        let test = hazmat_litmus::parse(source).expect("parses");
        let program = crate::front::lower::lower(&test).expect("lowers");
        let pointees = crate::engine::paths::pointees(&program);
        let mut per_thread: Vec<Vec<Path>> = program
            .threads
            .iter()
            .map(|t| {
                crate::engine::paths::thread_paths(
                    t,
                    &pointees,
                    &[],
                    &program.addr_order,
                    &Default::default(),
                )
                .expect("runs")
            })
            .collect();
        name(&program, &mut per_thread);
        per_thread
    }

    /// herd7's numbers of a path's reads and of its writes' register copies.
    fn numbers(p: &Path) -> (Vec<u32>, Vec<u32>) {
        let pick = |kind| {
            p.events
                .iter()
                .zip(&p.herd)
                .filter(|(e, _)| e.kind == kind)
                .map(|(_, n)| *n)
                .collect()
        };
        (pick(EventKind::Read), pick(EventKind::Write))
    }

    #[test]
    fn parameters_registers_and_reads_count_thread_after_thread() {
        let t = named(
            "C t\n{}\nP0(int *x, int *y) { int r1; r1 = *x; *y = r1; }\n\
             P1(int *x, int *y) { int r1; r1 = READ_ONCE(*y); WRITE_ONCE(*x, r1); }\n\
             exists (0:r1=1)\n",
        );
        // P0: x (1), *x (2), y (3), r1 (4); P1: y (5), *y (6), x (7), r1 (8).
        assert_eq!(numbers(&t[0][0]), (vec![2], vec![4]));
        assert_eq!(numbers(&t[1][0]), (vec![6], vec![8]));
    }

    #[test]
    fn a_store_counts_its_address_before_its_value() {
        let t = named("C t\n{}\nP0(int *a, int *b) { *a = *b; }\nexists (a=1)\n");
        // a (1), then b (2) and *b (3), although lowering reads *b first; the write stores
        // the read's value through no register.
        assert_eq!(numbers(&t[0][0]), (vec![3], vec![DIRECT]));
    }

    #[test]
    fn the_code_after_an_if_counts_once_per_branch_else_first() {
        let t = named(
            "C t\n{}\nP0(int *a, int *x) { int r1; r1 = READ_ONCE(*x); \
             if (r1) { WRITE_ONCE(*a, 1); } r1 = READ_ONCE(*a); }\nexists (0:r1=1)\n",
        );
        // x (1), *x (2), r1 (3), r1 != 0 (4), then: a (5); after else: a (6), *a (7);
        // after then: a (8), *a (9).
        let by_way: Vec<_> = t[0]
            .iter()
            .map(|p| (p.branches.clone(), numbers(p)))
            .collect();
        assert!(by_way.contains(&(vec![false], (vec![2, 7], vec![]))));
        assert!(by_way.contains(&(vec![true], (vec![2, 9], vec![0]))));
    }

    #[test]
    fn a_lock_counts_its_address_and_its_events_have_no_value() {
        let t = named(
            "C t\n{}\nP0(spinlock_t *l, int *x) { int r1; spin_lock(l); r1 = READ_ONCE(*x); \
             spin_unlock(l); }\nexists (0:r1=1)\n",
        );
        // l (1), x (2), *x (3), l (4); the lock's read has no value.
        assert_eq!(numbers(&t[0][0]), (vec![0, 3], vec![0, 0]));
    }

    #[test]
    fn a_compare_exchange_counts_its_failure_then_its_success() {
        let t = named(
            "C t\n{}\nP0(atomic_int *x, int *e) { int r0; \
             r0 = atomic_compare_exchange_strong_explicit(x, e, 2, memory_order_relaxed, \
             memory_order_relaxed); r0 = *x; }\nexists (0:r0=1)\n",
        );
        // e (1), x (2), *e (3); failure: *x (4), the comparison (5); success: nothing;
        // after the failure: x (6), *x (7); after the success: x (8), *x (9). The failure
        // writes back the value it read.
        let by_way: Vec<_> = t[0]
            .iter()
            .map(|p| (p.branches.clone(), numbers(p)))
            .collect();
        assert!(by_way.contains(&(vec![false], (vec![3, 4, 7], vec![DIRECT]))));
        assert!(by_way.contains(&(vec![true], (vec![3, 3, 9], vec![0]))));
    }

    #[test]
    fn a_compare_exchange_after_a_statement_of_a_branch_runs_the_rest_after_its_success_first() {
        let t = named(
            "C t\n{}\nP0(atomic_int *x, int *e) { int r0; int r1; r1 = *e; if (r1 == 0) { \
             *e = 1; r0 = atomic_compare_exchange_weak_explicit(x, e, 2, \
             memory_order_relaxed, memory_order_relaxed); } r0 = *x; }\nexists (0:r0=1)\n",
        );
        // e (1), *e (2), r1 (3), r1 == 0 (4); then: e (5), then e (6), x (7), *e (8), the
        // failure: *x (9); after else: x (10), *x (11); after the success: x (12), *x
        // (13); after the failure: x (14), *x (15).
        let by_way: Vec<_> = t[0]
            .iter()
            .map(|p| (p.branches.clone(), numbers(p).0))
            .collect();
        assert!(by_way.contains(&(vec![false], vec![2, 11])), "{by_way:?}");
        assert!(
            by_way.contains(&(vec![true, true], vec![2, 8, 8, 13])),
            "{by_way:?}"
        );
        assert!(
            by_way.contains(&(vec![true, false], vec![2, 8, 9, 15])),
            "{by_way:?}"
        );
    }

    #[test]
    fn a_path_that_is_no_way_replayed_keeps_no_names_and_says_where() {
        let source = "C t\n{}\nP0(int *x) { int r0; r0 = READ_ONCE(*x); }\n\
                      P1(int *x) { int r0; r0 = READ_ONCE(*x); if (r0 == 1) \
                      WRITE_ONCE(*x, 2); }\nexists (0:r0=1)\n";
        let test = hazmat_litmus::parse(source).expect("parses");
        let program = crate::front::lower::lower(&test).expect("lowers");
        let mut paths = named(source);
        assert!(name(&program, &mut paths).is_none());
        // A way the replay does not make, and one with a read too many.
        for mangle in [
            (|p: &mut Path| p.branches.push(true)) as fn(&mut Path),
            |p: &mut Path| p.reads += 1,
        ] {
            let mut paths = named(source);
            for p in &mut paths[1] {
                p.herd.clear();
            }
            mangle(&mut paths[1][0]);
            let at = name(&program, &mut paths).expect("told");
            assert!(source[..at.0].contains("P1("), "{at:?}");
            assert!(source[at.0..at.1].ends_with("WRITE_ONCE(*x, 2);"), "{at:?}");
            assert!(paths[1][0].herd.is_empty());
            assert!(!paths[1][1].herd.is_empty());
            assert!(!paths[0][0].herd.is_empty());
        }
    }

    #[test]
    fn a_two_way_result_inside_an_expression_is_not_replayed() {
        let source = "C t\n{}\nP0(int *x) { int r0; if (cmpxchg(x, 0, 1) == 0) \
                      { r0 = READ_ONCE(*x); } }\nexists (0:r0=1)\n";
        let t = named(source);
        assert!(t[0].iter().all(|p| p.herd.is_empty()));
        let test = hazmat_litmus::parse(source).expect("parses");
        let program = crate::front::lower::lower(&test).expect("lowers");
        assert!(unreplayed(&program).is_some());
    }
}
