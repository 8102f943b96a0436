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
//!   the new value of `atomic_add`);
//! - within a statement, operands are evaluated left to right, and a store evaluates its
//!   address before its value (lowering hoists the reads of a statement into temporaries
//!   first, so a temporary's read is counted where the statement uses it);
//! - an `if` on an unknown value evaluates its condition, then the whole `then` branch,
//!   then the whole `else` branch, and then the rest of the code once per way through the
//!   `if`: first the ways through `else`, then those through `then`.
//!
//! herd7 then solves the equations that reads-from gives in two rounds of union-find,
//! registers first, memory second.
//! In the out-of-thin-air cycles of the conformance corpus, the representative that this
//! leaves is the value with the highest number among the cycle's reads and the register
//! reads that copy them into the cycle's writes, and that is the name taken here.
//! FIXME: herd7's union-find is by rank, so in general the representative depends on the
//! order of its equations rather than on the numbers; register copies other than a
//! store's value (`r2 = r1;`, a condition on the value) are not counted either.
//!
//! Programs with `cmpxchg`, `atomic_add_unless`, spinlocks or SRCU, whose herd7 semantics
//! allocate values in ways not replayed here, or with an `if` on a constant, get no names:
//! their symbols keep hazmat's own numbering (the event of the read).

use crate::engine::paths::Path;
use crate::front::program::{Expr, Instr, Op, Program, Reg, RmwWrite, ThreadCode};
use std::collections::HashMap;

/// One way through a thread as herd7 evaluates it.
#[derive(Clone, Debug, Default)]
struct Run {
    /// The way taken at each `if` on an unknown value, in program order.
    branches: Vec<bool>,
    /// herd7's number of each read, in the order of the path's reads (0: not yet counted).
    reads: Vec<u32>,
    /// For each write, herd7's number of the register read that gives its value, or 0.
    writes: Vec<u32>,
    /// Hoisted reads not yet counted: the temporary, the instruction, its read's index.
    pending: Vec<(Reg, usize, usize)>,
}

struct Counter<'a> {
    thread: &'a ThreadCode,
    /// The instructions of the thread, flattened, so that a pending read can name one.
    instrs: Vec<&'a Instr>,
    next: u32,
}

/// Sets [`Path::herd`] on every path of every thread, when herd7's numbering of the
/// program can be replayed.
pub(crate) fn name(program: &Program, per_thread: &mut [Vec<Path>]) {
    let mut next = 0;
    let mut runs = Vec::with_capacity(program.threads.len());
    for t in &program.threads {
        let mut counter = Counter {
            thread: t,
            instrs: Vec::new(),
            next,
        };
        flatten(&t.code, &mut counter.instrs);
        let Some(r) = counter.block(&t.code, Run::default()) else {
            return;
        };
        next = counter.next;
        runs.push(r);
    }
    for (paths, runs) in per_thread.iter_mut().zip(&runs) {
        let by_way: HashMap<&[bool], &Run> = runs.iter().map(|r| (&r.branches[..], r)).collect();
        for path in paths.iter_mut() {
            let Some(run) = by_way.get(&path.branches[..]) else {
                continue;
            };
            let writes = path
                .events
                .iter()
                .filter(|e| e.kind == crate::exec::event::EventKind::Write)
                .count();
            if run.reads.len() != path.reads as usize || run.writes.len() != writes {
                continue;
            }
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
        }
    }
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
        Op::If { cond, .. } => vec![cond],
        _ => Vec::new(),
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

    /// The ways through `code` from `run`, in herd7's order; `None` when the code uses
    /// what this module does not replay.
    fn block(&mut self, code: &[Instr], run: Run) -> Option<Vec<Run>> {
        let Some((first, rest)) = code.split_first() else {
            let mut run = run;
            self.flush(&mut run, None);
            return Some(vec![run]);
        };
        let mut all = Vec::new();
        for r in self.instr(first, run)? {
            all.extend(self.block(rest, r)?);
        }
        Some(all)
    }

    /// Counts the pending reads that `op` does not use: herd7 evaluated their statements
    /// before this one.
    fn flush(&mut self, run: &mut Run, op: Option<&Op>) {
        let used = |r: Reg| op.is_some_and(|op| operands(op).iter().any(|e| mentions(e, r)));
        let mut i = 0;
        while i < run.pending.len() {
            if used(run.pending[i].0) {
                i += 1;
            } else {
                let (_, ins, k) = run.pending.remove(i);
                self.deferred(run, ins, k);
            }
        }
    }

    fn instr(&mut self, ins: &Instr, mut run: Run) -> Option<Vec<Run>> {
        self.flush(&mut run, Some(&ins.op));
        let index = self.instrs.iter().position(|i| std::ptr::eq(*i, ins))?;
        match &ins.op {
            // herd7 numbers its instructions with no value of its own.
            Op::Let { dst, .. } if self.thread.regs[*dst] == crate::front::lower::POI => {}
            Op::Let { val, .. } => {
                self.expr(val, &mut run);
            }
            Op::Load { dst, .. } | Op::Rmw { dst, .. } => {
                let k = run.reads.len();
                run.reads.push(0);
                if matches!(ins.op, Op::Rmw { .. }) {
                    run.writes.push(0);
                }
                match dst {
                    Some(t) if self.is_temp(*t) => run.pending.push((*t, index, k)),
                    _ => self.deferred(&mut run, index, k),
                }
            }
            Op::Store { addr, val, .. } => {
                self.expr(addr, &mut run);
                let copy = self.expr(val, &mut run).1;
                run.writes.push(copy.unwrap_or(0));
            }
            Op::Fence { .. } => {}
            // A lock or an unlock evaluates its address and makes its events without values.
            Op::Lock { addr } | Op::Unlock { addr } => {
                self.expr(addr, &mut run);
            }
            Op::If { cond, then, els } => {
                let (unknown, _) = self.expr(cond, &mut run);
                if !unknown {
                    return None;
                }
                // herd7 tests `e != 0` unless the condition is a comparison.
                if !matches!(
                    cond,
                    Expr::Binary(
                        crate::front::program::BinOp::Eq
                            | crate::front::program::BinOp::Ne
                            | crate::front::program::BinOp::Lt
                            | crate::front::program::BinOp::Le
                            | crate::front::program::BinOp::Gt
                            | crate::front::program::BinOp::Ge,
                        _,
                        _
                    )
                ) {
                    self.fresh();
                }
                let mut taken = run.clone();
                taken.branches.push(true);
                let mut not_taken = run;
                not_taken.branches.push(false);
                let taken = self.block(then, taken)?;
                let mut ways = self.block(els, not_taken)?;
                ways.extend(taken);
                return Some(ways);
            }
            _ => return None,
        }
        Some(vec![run])
    }

    /// Counts the values of read `k`, made by the load or RMW `self.instrs[ins]`.
    fn deferred(&mut self, run: &mut Run, ins: usize, k: usize) {
        match &self.instrs[ins].op {
            Op::Load { addr, .. } => {
                self.expr(addr, run);
                run.reads[k] = self.fresh();
            }
            Op::Rmw { addr, write, .. } => match write {
                // `xchg`: the address, the value, the read.
                RmwWrite::Set(e) => {
                    self.expr(addr, run);
                    self.expr(e, run);
                    run.reads[k] = self.fresh();
                }
                // `atomic_add` and friends: the operand, the address, the read, the sum.
                RmwWrite::Apply(_, e) => {
                    self.expr(e, run);
                    self.expr(addr, run);
                    run.reads[k] = self.fresh();
                    self.fresh();
                }
            },
            _ => {}
        }
    }

    /// Counts the values `e` creates; returns whether its value is unknown to herd7 when
    /// evaluated, and the number of the register read it is, if it is one.
    fn expr(&mut self, e: &Expr, run: &mut Run) -> (bool, Option<u32>) {
        match e {
            Expr::Const(crate::exec::event::Value::Addr(_)) => {
                // FIXME: `&x` lowers as a parameter does, and is counted as one.
                (true, Some(self.fresh()))
            }
            Expr::Const(_) => (false, None),
            Expr::Reg(r) if self.is_temp(*r) => {
                if let Some(i) = run.pending.iter().position(|p| p.0 == *r) {
                    let (_, ins, k) = run.pending.remove(i);
                    self.deferred(run, ins, k);
                }
                (true, None)
            }
            Expr::Reg(_) => (true, Some(self.fresh())),
            Expr::Unary(_, a) => {
                let (unknown, _) = self.expr(a, run);
                if unknown {
                    self.fresh();
                }
                (unknown, None)
            }
            Expr::Binary(_, a, b) => {
                let (ua, _) = self.expr(a, run);
                let (ub, _) = self.expr(b, run);
                if ua || ub {
                    self.fresh();
                }
                (ua || ub, None)
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
            .map(|t| crate::engine::paths::thread_paths(t, &pointees, &[]).expect("runs"))
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
        // a (1), then b (2) and *b (3), although lowering reads *b first.
        assert_eq!(numbers(&t[0][0]), (vec![3], vec![0]));
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
    fn programs_with_primitives_not_replayed_get_no_names() {
        let t = named(
            "C t\n{}\nP0(spinlock_t *l, int *x) { int r1; spin_lock(l); r1 = READ_ONCE(*x); \
             spin_unlock(l); }\nexists (0:r1=1)\n",
        );
        assert!(t[0].iter().all(|p| p.herd.is_empty()));
    }
}
