//! The sketch: a small program's threads of statements, its initial values, its condition,
//! filter and `locations` clause, before it becomes a litmus test.
//!
//! A statement holds indices (a variable, a lock, an SRCU domain, an earlier register)
//! rather than names; they are taken modulo what exists where the statement ends up, so
//! that every sketch is a valid program.

use super::{C11Op, Cond, Dep, Fence, LoopCond, Ordering, ReadKind, RmwOp, WriteKind};
use hazmat_litmus::ast::Quantifier;

/// The names of the shared variables, in order.
pub(super) const VARS: [&str; 3] = ["x", "y", "z"];
/// The names of the spinlocks.
pub(super) const LOCKS: [&str; 2] = ["l", "m"];
/// The names of the SRCU domains.
pub(super) const SRCU: [&str; 2] = ["s", "t"];

/// One statement of a sketch; `var`, `lock` and `domain` index the shared variables, the
/// spinlocks and the SRCU domains.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SketchStmt {
    /// A write of `value` to a variable.
    Write {
        /// The variable written.
        var: usize,
        /// The value written.
        value: i64,
        /// How the write is spelled.
        kind: WriteKind,
        /// What it depends on.
        dep: Option<Dep>,
    },
    /// A read of a variable into a new register.
    Read {
        /// The variable read.
        var: usize,
        /// How the read is spelled.
        kind: ReadKind,
        /// What it depends on (only an address dependency reaches a read).
        dep: Option<Dep>,
    },
    /// A fence.
    Fence(Fence),
    /// A read-modify-write of a variable, into a new register when it returns a value.
    Rmw {
        /// The variable.
        var: usize,
        /// The operation.
        op: RmwOp,
        /// The ordering, where the operation has one.
        ordering: Ordering,
        /// What it depends on.
        dep: Option<Dep>,
    },
    /// `if (...) { then } else { els }` on a register read earlier in the thread (`reg` is
    /// taken modulo their number; with none, `then` runs unguarded).
    If {
        /// Which earlier register.
        reg: usize,
        /// The test.
        cond: Cond,
        /// The statements run when the test holds.
        then: Vec<SketchStmt>,
        /// The statements run when it does not.
        els: Vec<SketchStmt>,
    },
    /// `spin_lock(l); body; spin_unlock(l);`
    Lock {
        /// The lock.
        lock: usize,
        /// The critical section.
        body: Vec<SketchStmt>,
    },
    /// `r = spin_trylock(l); if (r) { body; spin_unlock(l); }`
    TryLock {
        /// The lock.
        lock: usize,
        /// The critical section.
        body: Vec<SketchStmt>,
    },
    /// `r = spin_is_locked(l);`
    IsLocked {
        /// The lock.
        lock: usize,
    },
    /// `rcu_read_lock(); body; rcu_read_unlock();`
    RcuRead(Vec<SketchStmt>),
    /// `r = srcu_read_lock(s); body; srcu_read_unlock(s, r);`
    SrcuRead {
        /// The SRCU domain.
        domain: usize,
        /// The read-side critical section.
        body: Vec<SketchStmt>,
    },
    /// `synchronize_srcu(s);`
    SynchronizeSrcu {
        /// The SRCU domain.
        domain: usize,
    },
    /// `while (...) { body }`, of the shape `cond` says.
    While {
        /// The shape of the loop and what it tests.
        cond: LoopCond,
        /// The statements of each round, before the spin loop's read or the counting
        /// loop's increment.
        body: Vec<SketchStmt>,
    },
    /// A read of the pointer variable `p` into a new register (`r = rcu_dereference(*p)`),
    /// then, when `deref` says how, a read through it into another (`r' = READ_ONCE(*r)`).
    PtrRead {
        /// How `p` is read.
        kind: ReadKind,
        /// How the pointer read is dereferenced, if it is.
        deref: Option<ReadKind>,
    },
    /// A write of a variable's address to `p`: `rcu_assign_pointer(*p, x)`.
    PtrWrite {
        /// The variable whose address is written.
        var: usize,
        /// How the write is spelled.
        kind: WriteKind,
    },
    /// A primitive of herd7's C11 dialect.
    C11(C11Op),
    /// An access through a pointer read earlier in the thread (`reg` is taken modulo their
    /// number; with none, `r0 = READ_ONCE(*p)` comes first): `r = READ_ONCE(*r0)`, or
    /// `WRITE_ONCE(*r0, v)` when `value` is given.
    Deref {
        /// Which pointer read earlier.
        reg: usize,
        /// The value written, for a write.
        value: Option<i64>,
    },
}

impl SketchStmt {
    /// The number of primitives the statement writes: accesses, fences, lock and SRCU
    /// calls, `if`s; a loop's read and body count twice, as herd7 runs them twice, and its
    /// test once more.
    pub fn size(&self) -> usize {
        let body = |b: &[SketchStmt]| b.iter().map(SketchStmt::size).sum::<usize>();
        match self {
            SketchStmt::If { then, els, .. } => 1 + body(then) + body(els),
            SketchStmt::While { cond, body: b } => 1 + 2 * (cond.probes() + body(b)),
            SketchStmt::Lock { body: b, .. }
            | SketchStmt::TryLock { body: b, .. }
            | SketchStmt::SrcuRead { body: b, .. }
            | SketchStmt::RcuRead(b) => 2 + body(b),
            SketchStmt::PtrRead { deref: Some(_), .. } => 2,
            _ => 1,
        }
    }

    /// The number of memory accesses the statement makes when it runs, its compound parts
    /// all taken (an RMW counts once: it is one atomic step).
    fn accesses(&self) -> usize {
        let body = |b: &[SketchStmt]| b.iter().map(SketchStmt::accesses).sum::<usize>();
        match self {
            SketchStmt::Fence(_) => 0,
            SketchStmt::If { then, els, .. } => body(then).max(body(els)),
            SketchStmt::While { cond, body: b } => cond.probes() + 2 * (cond.probes() + body(b)),
            SketchStmt::Lock { body: b, .. }
            | SketchStmt::TryLock { body: b, .. }
            | SketchStmt::SrcuRead { body: b, .. } => 2 + body(b),
            SketchStmt::RcuRead(b) => body(b),
            SketchStmt::PtrRead { deref: Some(_), .. } => 2,
            _ => 1,
        }
    }
}

/// What an atom of the condition tests; indices are taken modulo what exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// A register: a thread, and one of the registers it reads into.
    Reg(usize, usize),
    /// A shared variable.
    Var(usize),
    /// A spinlock (whose final value herd7 flags as `lock-final`).
    Lock(usize),
}

/// How an atom of a proposition joins the atoms before it: `(before) op atom`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Join {
    /// `/\`.
    And,
    /// `\/`.
    Or,
    /// `=>`.
    Implies,
}

/// An atom of the condition or the filter, and how it joins the atoms before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Atom {
    /// What is tested.
    pub target: Target,
    /// The value it is compared with.
    pub value: i64,
    /// Another thread's register it is compared with instead of `value` (`0:r0=1:r0`),
    /// when it holds values as the target does.
    pub against: Option<(usize, usize)>,
    /// Whether the comparison is `!=`.
    pub ne: bool,
    /// Whether the atom is negated: `~x=1`.
    pub negated: bool,
    /// How the atom joins the atoms before it.
    pub join: Join,
}

impl Atom {
    /// `target = value`, joined by `/\`.
    pub fn eq(target: Target, value: i64) -> Atom {
        Atom {
            target,
            value,
            against: None,
            ne: false,
            negated: false,
            join: Join::And,
        }
    }
}

/// Which locations a generated test shows in its `locations` clause.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    /// Every register and variable, so that a state is the whole final state.
    All,
    /// No `locations` clause: herd7 shows only the condition's locations.
    None,
    /// Those of the registers, variables and locks, in that order, whose bit is set (bit
    /// `i` modulo 64 for the `i`th).
    Some(u64),
}

/// A small random program, before it becomes a litmus test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sketch {
    /// The number of shared variables (1 to 3).
    pub vars: usize,
    /// Initial values of variables (`x=1;`), by index.
    pub init: Vec<(usize, i64)>,
    /// The statements of each thread.
    pub threads: Vec<Vec<SketchStmt>>,
    /// The quantifier of the condition.
    pub quantifier: Quantifier,
    /// The atoms of the condition.
    pub condition: Vec<Atom>,
    /// The atoms of the `filter` clause, if any.
    pub filter: Vec<Atom>,
    /// What the `locations` clause shows.
    pub shown: Shown,
    /// Whether every thread takes every variable as a parameter (otherwise only those it
    /// uses, as diy writes them).
    pub all_params: bool,
}

impl Sketch {
    /// The number of interleavings of the threads' atomic steps: the multinomial
    /// coefficient of their access counts (saturating), an upper bound on the schedules an
    /// operational engine explores.
    pub fn interleavings(&self) -> u64 {
        crate::engine::interp::multinomial(
            self.threads
                .iter()
                .map(|t| t.iter().map(|s| s.accesses() as u64).sum()),
        )
    }

    /// The same sketch with `smp_mb()` inserted in thread `thread` (modulo their number)
    /// before statement `at` (modulo one more than their number).
    pub fn with_mb(&self, thread: usize, at: usize) -> Sketch {
        let mut s = self.clone();
        let t = thread % s.threads.len();
        let at = at % (s.threads[t].len() + 1);
        s.threads[t].insert(at, SketchStmt::Fence(Fence::Mb));
        s
    }
}
