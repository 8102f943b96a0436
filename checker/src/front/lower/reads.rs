//! herd7's `-outcomereads true`: the final states show the registers that read memory.
//!
//! herd7 then adds to each final state every register its execution's state holds (those
//! the init block sets, the parameters, and those the execution wrote), and keeps, of the
//! registers, only those that some allowed execution wrote in an instruction that also
//! loads from memory: a statement with a read, a read-modify-write or a compare-exchange
//! (`r0 = READ_ONCE(*x) + 1;`, `r1 = xchg(x, 1);`, `r2 = srcu_read_lock(s);`), but not
//! a copy (`r1 = r0;`), a lock's (`spin_trylock`, `spin_is_locked`), an `if` whose
//! condition reads (its branches are instructions of their own), nor the registers of the
//! condition or of `locations` that no such instruction writes, which it drops.
//! The locations the test shows stay.
//!
//! Which instructions ran is a matter of each execution's paths, so [`track`] gives each
//! thread two ghost registers per register that an instruction with a read may write:
//! `%l:r` set to 1 after every instruction with a read that writes `r`, and `%w:r` set to
//! 1 after every instruction that writes `r` (none for a register herd7's initial state
//! holds, which every final state holds). The ghosts and the registers are shown beside
//! the test's own cells, so every search reports their final values; the report makes
//! herd7's states of them (`report::reads::restrict`).

use crate::exec::event::Value;
use crate::front::program::{Cell, Expr, Instr, Op, Program, Reads, Reg, Tracked};
use hazmat_litmus::ast;
use std::collections::BTreeSet;

/// What one herd7 instruction does to the registers: those it writes, and whether it
/// loads from memory.
#[derive(Default)]
struct Effect {
    writes: BTreeSet<Reg>,
    loads: bool,
}

/// Gives `program` the ghost registers herd7's `-outcomereads true` needs, and shows them
/// (see the module's notes).
pub fn track(test: &ast::Test, program: &mut Program) {
    let displayed = program.shown.clone();
    let mut tracked = Vec::new();
    for (t, thread) in program.threads.iter_mut().enumerate() {
        // The registers herd7's initial state holds: the init block's and the parameters.
        let number = thread.number;
        let initialised = |name: &str| {
            test.init.iter().any(|item| {
                matches!(&item.target, ast::Location::Register { thread, reg, .. }
                    if *thread == number && reg.name == name)
            }) || test
                .threads
                .iter()
                .any(|th| th.id == number && th.params.iter().any(|p| p.name.name == name))
        };
        let mut loaded = BTreeSet::new();
        collect(&thread.code, &thread.regs, &mut loaded);
        // Each register tracked, with its ghosts.
        let mut ghosts: Vec<(Reg, Reg, Option<Reg>)> = Vec::new();
        for r in loaded {
            let name = thread.regs[r].clone();
            let mut ghost = |prefix: &str| {
                thread.regs.push(format!("%{prefix}:{name}"));
                thread.init.push(Value::Int(0));
                thread.regs.len() - 1
            };
            let l = ghost("l");
            let w = (!initialised(&name)).then(|| ghost("w"));
            ghosts.push((r, l, w));
        }
        let code = std::mem::take(&mut thread.code);
        thread.code = rewrite(code, &thread.regs, &ghosts);
        let cell = |reg| Cell::Reg { thread: t, reg };
        tracked.extend(ghosts.iter().map(|&(r, l, w)| Tracked {
            cell: cell(r),
            loaded: cell(l),
            written: w.map(cell),
        }));
    }
    for t in &tracked {
        program.shown.push(t.cell);
        program.shown.push(t.loaded);
        program.shown.extend(t.written);
    }
    program.sort_shown();
    program.reads = Some(Reads { displayed, tracked });
}

/// Whether `r` is a register of the test's, not one lowering made (`%t0`).
fn named(regs: &[String], r: Reg) -> bool {
    !regs[r].starts_with('%')
}

/// The registers written by an instruction of `code` (and of the blocks inside it) that
/// loads from memory.
fn collect(code: &[Instr], regs: &[String], out: &mut BTreeSet<Reg>) {
    let mut i = 0;
    while i < code.len() {
        let end = group_end(code, i);
        let e = effect(&code[i..end], code[i].stmt, regs);
        if e.loads {
            out.extend(e.writes);
        }
        for ins in &code[i..end] {
            if let Op::If { then, els, .. } = &ins.op {
                collect(then, regs, out);
                collect(els, regs, out);
            }
        }
        i = end;
    }
}

/// The end of the run of instructions of `code` from `i` on that belong to the same herd7
/// instruction.
fn group_end(code: &[Instr], i: usize) -> usize {
    let stmt = code[i].stmt;
    i + code[i..].iter().take_while(|ins| ins.stmt == stmt).count()
}

/// What the herd7 instruction `stmt` does, from its lowered instructions `group` and
/// those of its own inside the blocks they hold (a compare-exchange's write-back); a
/// statement inside an `if` is an instruction of its own.
fn effect(group: &[Instr], stmt: u32, regs: &[String]) -> Effect {
    let mut e = Effect::default();
    let mut stack: Vec<&Instr> = group.iter().rev().collect();
    while let Some(ins) = stack.pop() {
        if ins.stmt != stmt {
            continue;
        }
        let (dst, loads): (&[Option<Reg>], bool) = match &ins.op {
            Op::Let { dst, .. } => (&[Some(*dst)], false),
            Op::Load { dst, .. }
            | Op::Rmw { dst, .. }
            | Op::Cmpxchg { dst, .. }
            | Op::AddUnless { dst, .. } => (std::slice::from_ref(dst), true),
            Op::CompareExchange { ok, old, .. } => {
                e.writes
                    .extend([*ok, *old].into_iter().filter(|&r| named(regs, r)));
                (&[], true)
            }
            // herd7's lock events and SRCU's own are no reads of memory.
            Op::Trylock { dst, .. } | Op::IsLocked { dst, .. } | Op::Srcu { dst, .. } => {
                (std::slice::from_ref(dst), false)
            }
            Op::If { then, els, .. } => {
                stack.extend(then.iter().chain(els).rev());
                (&[], false)
            }
            Op::Store { .. }
            | Op::Fence { .. }
            | Op::Lock { .. }
            | Op::Unlock { .. }
            | Op::SyncSrcu { .. }
            | Op::Cutoff => (&[], false),
        };
        e.loads |= loads;
        e.writes
            .extend(dst.iter().flatten().copied().filter(|&r| named(regs, r)));
    }
    e
}

/// `code` with, after each herd7 instruction that writes a tracked register, the ghosts
/// that record it; `ghosts` holds each tracked register with its ghosts.
fn rewrite(code: Vec<Instr>, regs: &[String], ghosts: &[(Reg, Reg, Option<Reg>)]) -> Vec<Instr> {
    let mut out = Vec::with_capacity(code.len());
    let mut rest = code;
    while !rest.is_empty() {
        let end = group_end(&rest, 0);
        let tail = rest.split_off(end);
        let group = std::mem::replace(&mut rest, tail);
        let stmt = group[0].stmt;
        let e = effect(&group, stmt, regs);
        let span = group.last().map_or((0, 0), |i| i.span);
        for mut ins in group {
            if let Op::If { then, els, .. } = &mut ins.op {
                *then = rewrite(std::mem::take(then), regs, ghosts);
                *els = rewrite(std::mem::take(els), regs, ghosts);
            }
            out.push(ins);
        }
        for &(_, l, w) in ghosts.iter().filter(|(r, ..)| e.writes.contains(r)) {
            let set = |dst| Instr {
                op: Op::Let {
                    dst,
                    val: Expr::Const(Value::Int(1)),
                },
                span,
                stmt,
            };
            if e.loads {
                out.push(set(l));
            }
            out.extend(w.map(set));
        }
    }
    out
}
