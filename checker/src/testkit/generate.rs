//! Random litmus programs, for the differential tests, the oracle tests and the fuzz targets.
//!
//! A generated program is first a small [`Sketch`]: per thread, a few statements, each an
//! access, a fence, a read-modify-write or a compound statement (an `if`, a `while` loop, a
//! spinlock's critical section, an RCU or SRCU read-side section) around a few more.
//! [`Sketch::to_test`] turns it into a [`hazmat_litmus::Test`].
//!
//! Two vocabularies ([`Vocabulary`]) draw sketches:
//! - [`Vocabulary::Basic`], the default, draws only primitives that SC, TSO and the LKMM
//!   all give meaning to (`READ_ONCE`/`WRITE_ONCE`, acquire loads and release stores,
//!   `smp_mb`/`smp_rmb`/`smp_wmb`, `xchg`, `cmpxchg` and `atomic_fetch_add` in their four
//!   orderings, `atomic_add`, and `if` on a register read earlier), shows every register
//!   and variable in `locations`, so that a final state is the whole final state, and asks
//!   `exists` of a conjunction.
//!   RCU, SRCU and spinlocks are deliberately absent: under TSO, `synchronize_rcu()` is
//!   only a full fence and read-side critical sections mean nothing, so TSO allows RCU
//!   outcomes the LKMM forbids (store buffering across a grace period, for one), and the
//!   inclusion TSO ⊆ LKMM that the differential tests check would not hold.
//!   `while` loops are absent too: the shuttle engine, which the differential tests
//!   compare with the SC model, refuses them.
//! - [`Vocabulary::Lkmm`] draws the LKMM's whole vocabulary in the spelling of diy7's
//!   generated kernel tests: plain, `ONCE`, acquire/release, `rcu_dereference` and
//!   `rcu_assign_pointer` accesses; address, data and control dependencies written as
//!   false dependencies (`r1 = r0 ^ r0; WRITE_ONCE(*(x + r1), 1);`, `r1 = r1 + 1;
//!   WRITE_ONCE(*y, r1);`, `r1 = r0 == 0; if (r1 >= 0) { ... }`) and a few other ways;
//!   every fence of `linux-kernel.def`; every family of read-modify-write (`xchg`,
//!   `cmpxchg`, `atomic_*` with `_return`, `fetch_`, the tests and `add_unless`) in every
//!   ordering it has; spinlocks (`spin_lock`, `spin_unlock`, `spin_trylock`,
//!   `spin_is_locked`); RCU and SRCU read-side sections and grace periods; pointers
//!   published with `rcu_assign_pointer` and followed after `rcu_dereference`; `while`
//!   loops as kernel code and hand-written tests write them (spin loops on a register,
//!   loops whose condition is a read, counting loops of one to three rounds, herd7
//!   unrolling each twice and cutting off the runs that go round more); initial values;
//!   2 to 5 threads; and conditions under each quantifier, with disjunctions, implications,
//!   negations, `!=` and comparisons of registers, sometimes a `filter`, with all, some or
//!   none of the locations shown.
//!
//! Every program belongs to a few construct [`Class`]es ([`Sketch::classes`]), so that
//! results over many programs can be counted per construct; [`Config::without`] leaves
//! classes out and [`Config::with`] draws only programs of the classes it names.
//! [`Sketch::smaller`] lists the sketches one step simpler than a sketch, for minimising a
//! program on which two deciders disagree.
//!
//! The strategies are proptest strategies, so failures shrink; the fuzz targets reuse them
//! by drawing from a random source seeded with the fuzzer's bytes ([`from_bytes`]), and the
//! oracle tests from a number ([`from_seed`]).
//! Every index a statement holds (a variable, an earlier register, a lock) is taken modulo
//! what exists where the statement ends up, so that every sketch, however it was drawn or
//! cut down, is a valid program.

mod build;
pub mod families;
mod shrink;

pub use shrink::minimise;

use hazmat_litmus::ast::{Quantifier, Test};
use proptest::prelude::*;
use proptest::strategy::{Union, ValueTree};
use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};
use std::collections::BTreeSet;

/// The names of the shared variables, in order.
const VARS: [&str; 3] = ["x", "y", "z"];
/// The names of the spinlocks.
const LOCKS: [&str; 2] = ["l", "m"];
/// The names of the SRCU domains.
const SRCU: [&str; 2] = ["s", "t"];

/// The ordering of a read-modify-write, which names its suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ordering {
    /// Fully ordered (no suffix).
    Full,
    /// `_relaxed`.
    Relaxed,
    /// `_acquire`.
    Acquire,
    /// `_release`.
    Release,
}

impl Ordering {
    fn suffix(self) -> &'static str {
        match self {
            Ordering::Full => "",
            Ordering::Relaxed => "_relaxed",
            Ordering::Acquire => "_acquire",
            Ordering::Release => "_release",
        }
    }
}

/// A fence: a primitive that orders and accesses nothing itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fence {
    /// `smp_mb()`.
    Mb,
    /// `smp_rmb()`.
    Rmb,
    /// `smp_wmb()`.
    Wmb,
    /// `smp_mb__before_atomic()`.
    BeforeAtomic,
    /// `smp_mb__after_atomic()`.
    AfterAtomic,
    /// `smp_mb__after_spinlock()`.
    AfterSpinlock,
    /// `smp_mb__after_unlock_lock()`.
    AfterUnlockLock,
    /// `smp_mb__after_srcu_read_unlock()`.
    AfterSrcuReadUnlock,
    /// `barrier()`.
    Barrier,
    /// `synchronize_rcu()`.
    SynchronizeRcu,
    /// `synchronize_rcu_expedited()`.
    SynchronizeRcuExpedited,
}

impl Fence {
    fn name(self) -> &'static str {
        match self {
            Fence::Mb => "smp_mb",
            Fence::Rmb => "smp_rmb",
            Fence::Wmb => "smp_wmb",
            Fence::BeforeAtomic => "smp_mb__before_atomic",
            Fence::AfterAtomic => "smp_mb__after_atomic",
            Fence::AfterSpinlock => "smp_mb__after_spinlock",
            Fence::AfterUnlockLock => "smp_mb__after_unlock_lock",
            Fence::AfterSrcuReadUnlock => "smp_mb__after_srcu_read_unlock",
            Fence::Barrier => "barrier",
            Fence::SynchronizeRcu => "synchronize_rcu",
            Fence::SynchronizeRcuExpedited => "synchronize_rcu_expedited",
        }
    }

    fn class(self) -> Class {
        match self {
            Fence::Mb => Class::FenceMb,
            Fence::Rmb => Class::FenceRmb,
            Fence::Wmb => Class::FenceWmb,
            Fence::BeforeAtomic | Fence::AfterAtomic => Class::FenceAtomic,
            Fence::AfterSpinlock => Class::FenceSpinlock,
            Fence::AfterUnlockLock => Class::FenceUnlockLock,
            Fence::AfterSrcuReadUnlock => Class::FenceSrcu,
            Fence::Barrier => Class::Barrier,
            Fence::SynchronizeRcu | Fence::SynchronizeRcuExpedited => Class::Rcu,
        }
    }
}

/// How a read is spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadKind {
    /// `r = READ_ONCE(*x)`.
    Once,
    /// `r = *x`.
    Plain,
    /// `r = smp_load_acquire(x)`.
    Acquire,
    /// `r = rcu_dereference(*x)`.
    Dereference,
    /// `r = atomic_read(x)`.
    AtomicRead,
    /// `r = atomic_read_acquire(x)`.
    AtomicReadAcquire,
}

impl ReadKind {
    fn class(self) -> Class {
        match self {
            ReadKind::Once | ReadKind::AtomicRead => Class::Once,
            ReadKind::Plain => Class::Plain,
            ReadKind::Acquire | ReadKind::AtomicReadAcquire => Class::AcqRel,
            ReadKind::Dereference => Class::RcuPointer,
        }
    }
}

/// How a write is spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteKind {
    /// `WRITE_ONCE(*x, v)`.
    Once,
    /// `*x = v`.
    Plain,
    /// `smp_store_release(x, v)`.
    Release,
    /// `rcu_assign_pointer(*x, v)`.
    AssignPointer,
    /// `atomic_set(x, v)`.
    AtomicSet,
    /// `atomic_set_release(x, v)`.
    AtomicSetRelease,
    /// `smp_store_mb(*x, v)`: a write, then a full fence.
    StoreMb,
}

impl WriteKind {
    fn class(self) -> Class {
        match self {
            WriteKind::Once | WriteKind::AtomicSet => Class::Once,
            WriteKind::Plain => Class::Plain,
            WriteKind::Release | WriteKind::AtomicSetRelease => Class::AcqRel,
            WriteKind::AssignPointer => Class::RcuPointer,
            WriteKind::StoreMb => Class::FenceMb,
        }
    }
}

/// What a dependency carries into the access it reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepKind {
    /// An address dependency: `rT = r ^ r;` then the access is to `x + rT`.
    Addr,
    /// A false data dependency: `rT = r ^ r; rT = rT + v;` then `v` is written as `rT`.
    Data,
    /// A true data dependency: the value read is written as it is.
    Value,
}

/// How a false dependency computes its zero from the register it depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Zero {
    /// `r ^ r`, diy's spelling, which herd7 simplifies to 0 as it builds the events.
    Xor,
    /// `r - r`, left for the solver.
    Sub,
    /// `r & 0`, left for the solver.
    And,
    /// `r * 0`, left for the solver.
    Mul,
}

/// A dependency of an access on a register read earlier in its thread; `reg` is taken
/// modulo the number of such registers (with none, the access has no dependency).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dep {
    /// Which earlier register.
    pub reg: usize,
    /// What the dependency carries.
    pub kind: DepKind,
    /// How its zero is computed (not used by [`DepKind::Value`]).
    pub zero: Zero,
}

/// The test of an `if`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    /// diy's control dependency: `rT = r == 0; if (rT >= 0)`, always taken.
    Diy,
    /// `if (r == v)`.
    Eq(i64),
    /// `if (r != v)`.
    Ne(i64),
}

/// How a loop reads the variable it waits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeRead {
    /// A read, spelled as the kind says.
    Read(ReadKind),
    /// `xchg(x, 1)` in an ordering, as a test-and-set lock spins.
    Xchg(Ordering),
    /// `cmpxchg(x, 0, 1)` in an ordering, as a compare-and-swap lock spins.
    Cmpxchg(Ordering),
}

/// The read a loop repeats, and the test of its value that keeps the loop going.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// The variable read.
    pub var: usize,
    /// How it is read.
    pub read: ProbeRead,
    /// Whether the loop goes on while the value is `!= value` rather than `== value`.
    pub ne: bool,
    /// The value compared with.
    pub value: i64,
}

/// The shape of a `while` loop, which herd7 runs at most twice round (a run that would go
/// round a third time is cut off).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopCond {
    /// A spin loop on a register: `r = READ_ONCE(*x); while (r == 0) { body;
    /// r = READ_ONCE(*x); }`.
    Spin(Probe),
    /// A loop whose condition is the read: `while (READ_ONCE(*x) != 1) { body }`; with an
    /// empty body it is written as a spin loop, since herd7 has no empty block.
    Poll(Probe),
    /// A counting loop: `r = 0; while (r < bound) { body; r = r + 1; }`, cut off when
    /// `bound` is more than two.
    Count {
        /// The number of rounds.
        bound: i64,
    },
}

impl LoopCond {
    /// The accesses of one test of the loop's condition: one for a loop that reads, none
    /// for a counting loop.
    fn probes(self) -> usize {
        match self {
            LoopCond::Spin(_) | LoopCond::Poll(_) => 1,
            LoopCond::Count { .. } => 0,
        }
    }
}

/// The arithmetic of an `atomic_*` operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithOp {
    /// `add`.
    Add,
    /// `sub`.
    Sub,
    /// `inc` (adds 1; no operand).
    Inc,
    /// `dec` (subtracts 1; no operand).
    Dec,
    /// `and`.
    And,
    /// `or`.
    Or,
    /// `xor`.
    Xor,
    /// `andnot`.
    AndNot,
}

impl ArithOp {
    fn name(self) -> &'static str {
        match self {
            ArithOp::Add => "add",
            ArithOp::Sub => "sub",
            ArithOp::Inc => "inc",
            ArithOp::Dec => "dec",
            ArithOp::And => "and",
            ArithOp::Or => "or",
            ArithOp::Xor => "xor",
            ArithOp::AndNot => "andnot",
        }
    }

    /// Whether the operation takes an operand.
    fn has_operand(self) -> bool {
        !matches!(self, ArithOp::Inc | ArithOp::Dec)
    }

    /// Whether `atomic_OP_return` exists.
    fn has_return(self) -> bool {
        matches!(
            self,
            ArithOp::Add | ArithOp::Sub | ArithOp::Inc | ArithOp::Dec
        )
    }
}

/// The tests of an `atomic_*` operation's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestOp {
    /// `atomic_sub_and_test(v, x)`.
    SubAndTest,
    /// `atomic_dec_and_test(x)`.
    DecAndTest,
    /// `atomic_inc_and_test(x)`.
    IncAndTest,
    /// `atomic_add_negative(v, x)`, the only one with orderings.
    AddNegative,
}

/// A read-modify-write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RmwOp {
    /// `r = xchg(x, v)`, or `atomic_xchg` when `atomic`.
    Xchg {
        /// The value stored.
        value: i64,
        /// Whether it is spelled `atomic_xchg`.
        atomic: bool,
    },
    /// `r = cmpxchg(x, expected, new)`, or `atomic_cmpxchg` when `atomic`.
    Cmpxchg {
        /// The value compared with.
        expected: i64,
        /// The value stored on success.
        new: i64,
        /// Whether it is spelled `atomic_cmpxchg`.
        atomic: bool,
    },
    /// `atomic_OP(v, x)`, which returns nothing (and has no orderings).
    Op {
        /// The operation.
        op: ArithOp,
        /// The operand.
        value: i64,
    },
    /// `r = atomic_OP_return(v, x)`: the new value (add, sub, inc and dec; the others are
    /// spelled `atomic_fetch_OP`).
    OpReturn {
        /// The operation.
        op: ArithOp,
        /// The operand.
        value: i64,
    },
    /// `r = atomic_fetch_OP(v, x)`: the old value.
    FetchOp {
        /// The operation.
        op: ArithOp,
        /// The operand.
        value: i64,
    },
    /// `r = atomic_dec_and_test(x)` and its kind.
    Test {
        /// Which test.
        op: TestOp,
        /// The operand, where there is one.
        value: i64,
    },
    /// `r = atomic_add_unless(x, v, u)`.
    AddUnless {
        /// The value added.
        value: i64,
        /// The value that prevents the addition.
        unless: i64,
    },
}

impl RmwOp {
    fn class(self) -> Class {
        match self {
            RmwOp::Xchg { .. } => Class::RmwXchg,
            RmwOp::Cmpxchg { .. } => Class::RmwCmpxchg,
            RmwOp::Op { .. } => Class::RmwOp,
            RmwOp::OpReturn { op, .. } if op.has_return() => Class::RmwReturn,
            RmwOp::OpReturn { .. } | RmwOp::FetchOp { .. } => Class::RmwFetch,
            RmwOp::Test { .. } => Class::RmwTest,
            RmwOp::AddUnless { .. } => Class::RmwAddUnless,
        }
    }
}

/// A C11 memory order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// `memory_order_relaxed`.
    Relaxed,
    /// `memory_order_consume`.
    Consume,
    /// `memory_order_acquire`.
    Acquire,
    /// `memory_order_release`.
    Release,
    /// `memory_order_acq_rel`.
    AcqRel,
    /// `memory_order_seq_cst`.
    SeqCst,
}

impl Order {
    /// Every order.
    pub const ALL: [Order; 6] = [
        Order::Relaxed,
        Order::Consume,
        Order::Acquire,
        Order::Release,
        Order::AcqRel,
        Order::SeqCst,
    ];

    /// The order as C11 spells it.
    pub fn word(self) -> &'static str {
        match self {
            Order::Relaxed => "memory_order_relaxed",
            Order::Consume => "memory_order_consume",
            Order::Acquire => "memory_order_acquire",
            Order::Release => "memory_order_release",
            Order::AcqRel => "memory_order_acq_rel",
            Order::SeqCst => "memory_order_seq_cst",
        }
    }
}

/// The operator of a C11 fetch operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FetchOp {
    /// `atomic_fetch_add`.
    Add,
    /// `atomic_fetch_sub`.
    Sub,
    /// `atomic_fetch_or`.
    Or,
    /// `atomic_fetch_xor`.
    Xor,
    /// `atomic_fetch_and`.
    And,
}

impl FetchOp {
    fn name(self) -> &'static str {
        match self {
            FetchOp::Add => "add",
            FetchOp::Sub => "sub",
            FetchOp::Or => "or",
            FetchOp::Xor => "xor",
            FetchOp::And => "and",
        }
    }
}

/// One primitive of herd7's C11 dialect; `var` indexes the shared variables, and an
/// order of `None` is the sequentially consistent form without `_explicit`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum C11Op {
    /// `r = *x;`
    PlainRead {
        /// The variable read.
        var: usize,
    },
    /// `*x = v;`
    PlainWrite {
        /// The variable written.
        var: usize,
        /// The value written.
        value: i64,
    },
    /// `r = atomic_load_explicit(x, order);`
    Load {
        /// The variable read.
        var: usize,
        /// The order.
        order: Option<Order>,
    },
    /// `atomic_store_explicit(x, v, order);`
    Store {
        /// The variable written.
        var: usize,
        /// The value written.
        value: i64,
        /// The order.
        order: Option<Order>,
    },
    /// `r = atomic_exchange_explicit(x, v, order);`
    Exchange {
        /// The variable.
        var: usize,
        /// The value written.
        value: i64,
        /// The order.
        order: Option<Order>,
    },
    /// `r = atomic_fetch_OP_explicit(x, v, order);`
    Fetch {
        /// The variable.
        var: usize,
        /// The operator.
        op: FetchOp,
        /// The operand.
        value: i64,
        /// The order.
        order: Option<Order>,
    },
    /// `r = atomic_compare_exchange_strong_explicit(x, e, v, success, failure);`, where the
    /// expected value lives in the variable `expected` (taken modulo the variables).
    CompareExchange {
        /// The atomic variable.
        var: usize,
        /// The variable holding the expected value.
        expected: usize,
        /// The value written on success.
        desired: i64,
        /// The success and failure orders.
        orders: Option<(Order, Order)>,
        /// Strong, or weak (which may fail spuriously).
        strong: bool,
    },
    /// `atomic_thread_fence(order);`
    Fence(Order),
}

impl C11Op {
    /// The construct classes of the primitive.
    fn classes(&self) -> Vec<Class> {
        let implicit = |o: bool| if o { vec![Class::C11Implicit] } else { vec![] };
        let mut out = match self {
            C11Op::PlainRead { .. } | C11Op::PlainWrite { .. } => return vec![Class::Plain],
            C11Op::Load { order, .. } | C11Op::Store { order, .. } => {
                let mut v = implicit(order.is_none());
                v.push(Class::C11Access);
                v
            }
            C11Op::Exchange { order, .. } | C11Op::Fetch { order, .. } => {
                let mut v = implicit(order.is_none());
                v.push(Class::C11Rmw);
                v
            }
            C11Op::CompareExchange { orders, .. } => {
                let mut v = implicit(orders.is_none());
                v.push(Class::C11Cas);
                v
            }
            C11Op::Fence(_) => vec![Class::C11Fence],
        };
        out.sort();
        out
    }
}

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

/// The construct classes a program can belong to, for counting results per construct.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// `READ_ONCE`, `WRITE_ONCE`, `atomic_read`, `atomic_set`.
    Once,
    /// Plain accesses: `*x = 1; r0 = *y;`.
    Plain,
    /// Acquire loads and release stores.
    AcqRel,
    /// `rcu_dereference` and `rcu_assign_pointer`.
    RcuPointer,
    /// An address dependency.
    AddrDep,
    /// A false data dependency.
    DataDep,
    /// A true data dependency (the value read is written).
    ValueDep,
    /// A control dependency, or any `if` on a value read.
    CtrlDep,
    /// A `while` loop: a spin loop, a loop whose condition reads, or a counting loop.
    Loop,
    /// A false dependency whose zero is computed by `-`, `&` or `*` rather than `^`.
    DepArith,
    /// `smp_mb()` and `smp_store_mb()`.
    FenceMb,
    /// `smp_rmb()`.
    FenceRmb,
    /// `smp_wmb()`.
    FenceWmb,
    /// `smp_mb__before_atomic()` and `smp_mb__after_atomic()`.
    FenceAtomic,
    /// `smp_mb__after_spinlock()`.
    FenceSpinlock,
    /// `smp_mb__after_unlock_lock()`.
    FenceUnlockLock,
    /// `smp_mb__after_srcu_read_unlock()`.
    FenceSrcu,
    /// `barrier()`.
    Barrier,
    /// `xchg` and `atomic_xchg`.
    RmwXchg,
    /// `cmpxchg` and `atomic_cmpxchg`, succeeding or failing.
    RmwCmpxchg,
    /// `atomic_add` and the other operations that return nothing.
    RmwOp,
    /// `atomic_add_return` and its kind.
    RmwReturn,
    /// `atomic_fetch_add` and its kind.
    RmwFetch,
    /// `atomic_dec_and_test` and its kind, `atomic_add_negative`.
    RmwTest,
    /// `atomic_add_unless`.
    RmwAddUnless,
    /// `spin_lock` and `spin_unlock`.
    Lock,
    /// `spin_trylock`.
    TryLock,
    /// `spin_is_locked`.
    IsLocked,
    /// A spinlock's final value observed.
    LockFinal,
    /// RCU read-side sections and grace periods.
    Rcu,
    /// SRCU read-side sections and grace periods.
    Srcu,
    /// Pointers published and dereferenced: `rcu_assign_pointer(*p, x)`,
    /// `r0 = rcu_dereference(*p); r1 = READ_ONCE(*r0);`.
    Pointer,
    /// Initial values other than 0.
    Init,
    /// A `~exists` condition.
    NotExists,
    /// A `forall` condition.
    Forall,
    /// A disjunction in the condition.
    Or,
    /// A negation or a `!=` in the condition.
    Not,
    /// An implication in the condition.
    Implies,
    /// A condition comparing two registers: `0:r0=1:r0`.
    RegCompare,
    /// A `filter` clause.
    Filter,
    /// No `locations` clause.
    LocationsNone,
    /// A `locations` clause showing some of the locations.
    LocationsSome,
    /// C11's atomic loads and stores, `_explicit` or not.
    C11Access,
    /// C11's `atomic_exchange` and fetch operations.
    C11Rmw,
    /// C11's compare-exchanges, strong or weak.
    C11Cas,
    /// `atomic_thread_fence`.
    C11Fence,
    /// A C11 primitive without `_explicit`: sequentially consistent.
    C11Implicit,
}

impl Class {
    /// Every class, in order.
    pub const ALL: [Class; 47] = [
        Class::Once,
        Class::Plain,
        Class::AcqRel,
        Class::RcuPointer,
        Class::AddrDep,
        Class::DataDep,
        Class::ValueDep,
        Class::CtrlDep,
        Class::Loop,
        Class::DepArith,
        Class::FenceMb,
        Class::FenceRmb,
        Class::FenceWmb,
        Class::FenceAtomic,
        Class::FenceSpinlock,
        Class::FenceUnlockLock,
        Class::FenceSrcu,
        Class::Barrier,
        Class::RmwXchg,
        Class::RmwCmpxchg,
        Class::RmwOp,
        Class::RmwReturn,
        Class::RmwFetch,
        Class::RmwTest,
        Class::RmwAddUnless,
        Class::Lock,
        Class::TryLock,
        Class::IsLocked,
        Class::LockFinal,
        Class::Rcu,
        Class::Srcu,
        Class::Pointer,
        Class::Init,
        Class::NotExists,
        Class::Forall,
        Class::Or,
        Class::Not,
        Class::Implies,
        Class::RegCompare,
        Class::Filter,
        Class::LocationsNone,
        Class::LocationsSome,
        Class::C11Access,
        Class::C11Rmw,
        Class::C11Cas,
        Class::C11Fence,
        Class::C11Implicit,
    ];

    /// The class's name: `addr-dep`, `rmw-cmpxchg`.
    pub fn name(self) -> &'static str {
        match self {
            Class::Once => "once",
            Class::Plain => "plain",
            Class::AcqRel => "acq-rel",
            Class::RcuPointer => "rcu-pointer",
            Class::AddrDep => "addr-dep",
            Class::DataDep => "data-dep",
            Class::ValueDep => "value-dep",
            Class::CtrlDep => "ctrl-dep",
            Class::Loop => "loop",
            Class::DepArith => "dep-arith",
            Class::FenceMb => "fence-mb",
            Class::FenceRmb => "fence-rmb",
            Class::FenceWmb => "fence-wmb",
            Class::FenceAtomic => "fence-atomic",
            Class::FenceSpinlock => "fence-spinlock",
            Class::FenceUnlockLock => "fence-unlock-lock",
            Class::FenceSrcu => "fence-srcu",
            Class::Barrier => "barrier",
            Class::RmwXchg => "rmw-xchg",
            Class::RmwCmpxchg => "rmw-cmpxchg",
            Class::RmwOp => "rmw-op",
            Class::RmwReturn => "rmw-return",
            Class::RmwFetch => "rmw-fetch",
            Class::RmwTest => "rmw-test",
            Class::RmwAddUnless => "rmw-add-unless",
            Class::Lock => "lock",
            Class::TryLock => "trylock",
            Class::IsLocked => "is-locked",
            Class::LockFinal => "lock-final",
            Class::Rcu => "rcu",
            Class::Srcu => "srcu",
            Class::Pointer => "pointer",
            Class::Init => "init",
            Class::NotExists => "not-exists",
            Class::Forall => "forall",
            Class::Or => "or",
            Class::Not => "not",
            Class::Implies => "implies",
            Class::RegCompare => "reg-compare",
            Class::Filter => "filter",
            Class::LocationsNone => "locations-none",
            Class::LocationsSome => "locations-some",
            Class::C11Access => "c11-access",
            Class::C11Rmw => "c11-rmw",
            Class::C11Cas => "c11-cas",
            Class::C11Fence => "c11-fence",
            Class::C11Implicit => "c11-implicit",
        }
    }

    /// The class named `name`.
    pub fn from_name(name: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.name() == name)
    }
}

impl std::fmt::Display for Class {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Which primitives a strategy draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vocabulary {
    /// The primitives SC, TSO and the LKMM all give meaning to (see the module's
    /// documentation), every location shown, `exists` of a conjunction.
    Basic,
    /// The LKMM's whole vocabulary, in diy7's spelling, with varied conditions.
    Lkmm,
    /// herd7's C11 dialect (`c11.def`): every memory order on every atomic operation,
    /// fences, read-modify-writes, compare-exchanges and plain accesses, with varied
    /// conditions.
    C11,
}

/// Bounds on the sketches a strategy draws.
#[derive(Clone, Debug)]
pub struct Config {
    /// The fewest threads.
    pub min_threads: usize,
    /// The most threads.
    pub max_threads: usize,
    /// The most statements per thread (at least one each), compound statements counting
    /// once.
    pub max_stmts: usize,
    /// The most shared variables (at least two are used when there are two threads or more).
    pub max_vars: usize,
    /// Whether to draw read-modify-writes.
    pub rmws: bool,
    /// Whether to draw `if` statements and `while` loops.
    pub branches: bool,
    /// Which primitives to draw.
    pub vocabulary: Vocabulary,
    /// Classes never to draw (with [`Vocabulary::Lkmm`]): statements of them are not drawn,
    /// and a sketch with a condition or a `locations` clause of them is drawn again.
    pub without: Vec<Class>,
    /// Classes every program has (with [`Vocabulary::Lkmm`]): a sketch without one of them
    /// is drawn again, so that a rare construct can be tested on many programs.
    pub with: Vec<Class>,
    /// The most primitives in all threads together ([`SketchStmt::size`]; the last
    /// threads lose statements beyond it), so that tests of many threads stay small.
    pub max_size: usize,
}

impl Default for Config {
    /// 2 to 4 threads of 1 to 3 statements over 2 or 3 variables, with RMWs and branches,
    /// from the basic vocabulary.
    fn default() -> Config {
        Config {
            min_threads: 2,
            max_threads: 4,
            max_stmts: 3,
            max_vars: 3,
            rmws: true,
            branches: true,
            vocabulary: Vocabulary::Basic,
            without: Vec::new(),
            with: Vec::new(),
            max_size: usize::MAX,
        }
    }
}

impl Config {
    /// 2 to 5 threads (2 and 3 most often) of 1 to 4 statements, 9 primitives at most in
    /// all, over 2 or 3 variables, from the LKMM's whole vocabulary.
    pub fn lkmm() -> Config {
        Config {
            min_threads: 2,
            max_threads: 5,
            max_stmts: 4,
            max_vars: 3,
            rmws: true,
            branches: true,
            vocabulary: Vocabulary::Lkmm,
            without: Vec::new(),
            with: Vec::new(),
            max_size: 9,
        }
    }

    /// 2 to 4 threads of 1 to 4 statements, 8 primitives at most in all, over 2 or 3
    /// variables, from herd7's C11 dialect.
    pub fn c11() -> Config {
        Config {
            min_threads: 2,
            max_threads: 4,
            max_stmts: 4,
            max_vars: 3,
            rmws: true,
            branches: true,
            vocabulary: Vocabulary::C11,
            without: Vec::new(),
            with: Vec::new(),
            max_size: 8,
        }
    }

    fn allows(&self, class: Class) -> bool {
        !self.without.contains(&class)
            && (self.rmws || !class.name().starts_with("rmw-"))
            && (self.branches || !matches!(class, Class::CtrlDep | Class::Loop))
    }
}

/// A weighted choice among the alternatives whose class `config` allows (an alternative
/// of no class is always allowed), or `fallback` when it allows none.
fn choose<T: Clone + std::fmt::Debug + 'static>(
    config: &Config,
    arms: Vec<(u32, Option<Class>, BoxedStrategy<T>)>,
    fallback: BoxedStrategy<T>,
) -> BoxedStrategy<T> {
    let arms: Vec<(u32, BoxedStrategy<T>)> = arms
        .into_iter()
        .filter(|(_, class, _)| class.is_none_or(|c| config.allows(c)))
        .map(|(w, _, s)| (w, s))
        .collect();
    if arms.is_empty() {
        fallback
    } else {
        Union::new_weighted(arms).boxed()
    }
}

fn ordering() -> impl Strategy<Value = Ordering> {
    prop_oneof![
        Just(Ordering::Full),
        Just(Ordering::Relaxed),
        Just(Ordering::Acquire),
        Just(Ordering::Release),
    ]
}

/// A leaf statement of the basic vocabulary.
fn basic_leaf(vars: usize, rmws: bool) -> BoxedStrategy<SketchStmt> {
    let var = 0..vars;
    let value = 1i64..=2;
    let plain = prop_oneof![
        4 => (var.clone(), value.clone(), any::<bool>()).prop_map(|(var, value, release)| {
            SketchStmt::Write {
                var,
                value,
                kind: if release { WriteKind::Release } else { WriteKind::Once },
                dep: None,
            }
        }),
        4 => (var.clone(), any::<bool>()).prop_map(|(var, acquire)| SketchStmt::Read {
            var,
            kind: if acquire { ReadKind::Acquire } else { ReadKind::Once },
            dep: None,
        }),
        2 => prop_oneof![Just(Fence::Mb), Just(Fence::Rmb), Just(Fence::Wmb)].prop_map(SketchStmt::Fence),
    ];
    if !rmws {
        return plain.boxed();
    }
    let rmw = |var, op, ordering| SketchStmt::Rmw {
        var,
        op,
        ordering,
        dep: None,
    };
    prop_oneof![
        10 => plain,
        1 => (var.clone(), value.clone(), ordering()).prop_map(move |(var, value, ordering)| {
            rmw(var, RmwOp::Xchg { value, atomic: false }, ordering)
        }),
        1 => (var.clone(), 0i64..=1, value.clone(), ordering()).prop_map(
            move |(var, expected, new, ordering)| {
                rmw(var, RmwOp::Cmpxchg { expected, new, atomic: false }, ordering)
            }
        ),
        1 => (var.clone(), value.clone(), ordering()).prop_map(move |(var, value, ordering)| {
            rmw(var, RmwOp::FetchOp { op: ArithOp::Add, value }, ordering)
        }),
        1 => (var, value).prop_map(move |(var, value)| {
            rmw(var, RmwOp::Op { op: ArithOp::Add, value }, Ordering::Full)
        }),
    ]
    .boxed()
}

/// A statement of the basic vocabulary.
fn basic_stmt(vars: usize, config: &Config) -> BoxedStrategy<SketchStmt> {
    let leaf = basic_leaf(vars, config.rmws);
    if !config.branches {
        return leaf;
    }
    prop_oneof![
        6 => leaf.clone(),
        1 => (any::<usize>(), 0i64..=2, leaf).prop_map(|(reg, value, body)| SketchStmt::If {
            reg,
            cond: Cond::Eq(value),
            then: vec![body],
            els: Vec::new(),
        }),
    ]
    .boxed()
}

fn zero() -> impl Strategy<Value = Zero> {
    prop_oneof![
        6 => Just(Zero::Xor),
        1 => Just(Zero::Sub),
        1 => Just(Zero::And),
        1 => Just(Zero::Mul),
    ]
}

/// The dependency of an access: none, or one of `kinds`.
fn dep(config: &Config, kinds: &[DepKind]) -> BoxedStrategy<Option<Dep>> {
    let mut arms: Vec<(u32, Option<Class>, BoxedStrategy<Option<Dep>>)> = Vec::new();
    for &kind in kinds {
        let class = match kind {
            DepKind::Addr => Class::AddrDep,
            DepKind::Data => Class::DataDep,
            DepKind::Value => Class::ValueDep,
        };
        let weight = if kind == DepKind::Value { 1 } else { 3 };
        arms.push((
            weight,
            Some(class),
            (any::<usize>(), zero())
                .prop_map(move |(reg, zero)| Some(Dep { reg, kind, zero }))
                .boxed(),
        ));
    }
    let deps = choose(config, arms, Just(None).boxed());
    prop_oneof![3 => Just(None), 2 => deps].boxed()
}

/// A leaf statement of the LKMM vocabulary.
fn lkmm_leaf(vars: usize, config: &Config) -> BoxedStrategy<SketchStmt> {
    let var = 0..vars;
    let value = 1i64..=2;
    let read_kind = choose(
        config,
        vec![
            (8, Some(Class::Once), Just(ReadKind::Once).boxed()),
            (1, Some(Class::Once), Just(ReadKind::AtomicRead).boxed()),
            (4, Some(Class::Plain), Just(ReadKind::Plain).boxed()),
            (3, Some(Class::AcqRel), Just(ReadKind::Acquire).boxed()),
            (
                1,
                Some(Class::AcqRel),
                Just(ReadKind::AtomicReadAcquire).boxed(),
            ),
            (
                2,
                Some(Class::RcuPointer),
                Just(ReadKind::Dereference).boxed(),
            ),
        ],
        Just(ReadKind::Once).boxed(),
    );
    let write_kind = choose(
        config,
        vec![
            (8, Some(Class::Once), Just(WriteKind::Once).boxed()),
            (1, Some(Class::Once), Just(WriteKind::AtomicSet).boxed()),
            (4, Some(Class::Plain), Just(WriteKind::Plain).boxed()),
            (3, Some(Class::AcqRel), Just(WriteKind::Release).boxed()),
            (
                1,
                Some(Class::AcqRel),
                Just(WriteKind::AtomicSetRelease).boxed(),
            ),
            (
                2,
                Some(Class::RcuPointer),
                Just(WriteKind::AssignPointer).boxed(),
            ),
            (1, Some(Class::FenceMb), Just(WriteKind::StoreMb).boxed()),
        ],
        Just(WriteKind::Once).boxed(),
    );
    let fence = choose(
        config,
        vec![
            (4, Some(Class::FenceMb), Just(Fence::Mb).boxed()),
            (2, Some(Class::FenceRmb), Just(Fence::Rmb).boxed()),
            (2, Some(Class::FenceWmb), Just(Fence::Wmb).boxed()),
            (
                1,
                Some(Class::FenceAtomic),
                Just(Fence::BeforeAtomic).boxed(),
            ),
            (
                1,
                Some(Class::FenceAtomic),
                Just(Fence::AfterAtomic).boxed(),
            ),
            (
                1,
                Some(Class::FenceSpinlock),
                Just(Fence::AfterSpinlock).boxed(),
            ),
            (
                1,
                Some(Class::FenceUnlockLock),
                Just(Fence::AfterUnlockLock).boxed(),
            ),
            (
                1,
                Some(Class::FenceSrcu),
                Just(Fence::AfterSrcuReadUnlock).boxed(),
            ),
            (1, Some(Class::Barrier), Just(Fence::Barrier).boxed()),
            (2, Some(Class::Rcu), Just(Fence::SynchronizeRcu).boxed()),
            (
                1,
                Some(Class::Rcu),
                Just(Fence::SynchronizeRcuExpedited).boxed(),
            ),
        ],
        Just(Fence::Mb).boxed(),
    );
    let write_dep = dep(config, &[DepKind::Addr, DepKind::Data, DepKind::Value]);
    let read_dep = dep(config, &[DepKind::Addr]);
    let arith = prop_oneof![
        Just(ArithOp::Add),
        Just(ArithOp::Sub),
        Just(ArithOp::Inc),
        Just(ArithOp::Dec),
        Just(ArithOp::And),
        Just(ArithOp::Or),
        Just(ArithOp::Xor),
        Just(ArithOp::AndNot),
    ];
    let rmw_op = choose(
        config,
        vec![
            (
                3,
                Some(Class::RmwXchg),
                (value.clone(), any::<bool>())
                    .prop_map(|(value, atomic)| RmwOp::Xchg { value, atomic })
                    .boxed(),
            ),
            (
                3,
                Some(Class::RmwCmpxchg),
                (0i64..=2, value.clone(), any::<bool>())
                    .prop_map(|(expected, new, atomic)| RmwOp::Cmpxchg {
                        expected,
                        new,
                        atomic,
                    })
                    .boxed(),
            ),
            (
                2,
                Some(Class::RmwOp),
                (arith.clone(), value.clone())
                    .prop_map(|(op, value)| RmwOp::Op { op, value })
                    .boxed(),
            ),
            (
                2,
                Some(Class::RmwReturn),
                (
                    prop_oneof![
                        Just(ArithOp::Add),
                        Just(ArithOp::Sub),
                        Just(ArithOp::Inc),
                        Just(ArithOp::Dec)
                    ],
                    value.clone(),
                )
                    .prop_map(|(op, value)| RmwOp::OpReturn { op, value })
                    .boxed(),
            ),
            (
                2,
                Some(Class::RmwFetch),
                (arith, value.clone())
                    .prop_map(|(op, value)| RmwOp::FetchOp { op, value })
                    .boxed(),
            ),
            (
                1,
                Some(Class::RmwTest),
                (
                    prop_oneof![
                        Just(TestOp::SubAndTest),
                        Just(TestOp::DecAndTest),
                        Just(TestOp::IncAndTest),
                        Just(TestOp::AddNegative)
                    ],
                    value.clone(),
                )
                    .prop_map(|(op, value)| RmwOp::Test { op, value })
                    .boxed(),
            ),
            (
                1,
                Some(Class::RmwAddUnless),
                (value.clone(), 0i64..=2)
                    .prop_map(|(value, unless)| RmwOp::AddUnless { value, unless })
                    .boxed(),
            ),
        ],
        Just(RmwOp::Xchg {
            value: 1,
            atomic: false,
        })
        .boxed(),
    );
    let rmw_dep = dep(config, &[DepKind::Addr, DepKind::Data]);
    let lock = 0..LOCKS.len();
    let mut arms = vec![
        (
            12,
            None,
            (var.clone(), value.clone(), write_kind, write_dep)
                .prop_map(|(var, value, kind, dep)| SketchStmt::Write {
                    var,
                    value,
                    kind,
                    dep,
                })
                .boxed(),
        ),
        (
            12,
            None,
            (var.clone(), read_kind, read_dep)
                .prop_map(|(var, kind, dep)| SketchStmt::Read { var, kind, dep })
                .boxed(),
        ),
        (5, None, fence.prop_map(SketchStmt::Fence).boxed()),
        (
            1,
            Some(Class::IsLocked),
            lock.prop_map(|lock| SketchStmt::IsLocked { lock }).boxed(),
        ),
        (
            1,
            Some(Class::Srcu),
            (0..SRCU.len())
                .prop_map(|domain| SketchStmt::SynchronizeSrcu { domain })
                .boxed(),
        ),
        (
            1,
            Some(Class::Pointer),
            (
                prop_oneof![
                    2 => Just(ReadKind::Dereference),
                    1 => Just(ReadKind::Once),
                    1 => Just(ReadKind::Acquire),
                ],
                prop_oneof![
                    1 => Just(None),
                    2 => Just(Some(ReadKind::Once)),
                    1 => Just(Some(ReadKind::Plain)),
                    1 => Just(Some(ReadKind::Acquire)),
                ],
            )
                .prop_map(|(kind, deref)| SketchStmt::PtrRead { kind, deref })
                .boxed(),
        ),
        (
            1,
            Some(Class::Pointer),
            (
                var.clone(),
                prop_oneof![
                    2 => Just(WriteKind::AssignPointer),
                    1 => Just(WriteKind::Once),
                    1 => Just(WriteKind::Release),
                ],
            )
                .prop_map(|(var, kind)| SketchStmt::PtrWrite { var, kind })
                .boxed(),
        ),
        (
            1,
            Some(Class::Pointer),
            (
                any::<usize>(),
                prop_oneof![Just(None), value.clone().prop_map(Some)],
            )
                .prop_map(|(reg, value)| SketchStmt::Deref { reg, value })
                .boxed(),
        ),
    ];
    if config.rmws {
        arms.push((
            5,
            None,
            (var.clone(), rmw_op, ordering(), rmw_dep)
                .prop_map(|(var, op, ordering, dep)| SketchStmt::Rmw {
                    var,
                    op,
                    ordering,
                    dep,
                })
                .boxed(),
        ));
    }
    choose(config, arms, Just(SketchStmt::Fence(Fence::Mb)).boxed())
}

/// An `if` of the LKMM vocabulary around `body`.
fn lkmm_if(body: BoxedStrategy<SketchStmt>) -> BoxedStrategy<SketchStmt> {
    let cond = prop_oneof![
        3 => Just(Cond::Diy),
        2 => (0i64..=2).prop_map(Cond::Eq),
        1 => (0i64..=2).prop_map(Cond::Ne),
    ];
    (
        any::<usize>(),
        cond,
        prop::collection::vec(body.clone(), 1..=2),
        prop_oneof![3 => Just(Vec::new()), 1 => prop::collection::vec(body, 1..=1)],
    )
        .prop_map(|(reg, cond, then, els)| SketchStmt::If {
            reg,
            cond,
            then,
            els,
        })
        .boxed()
}

/// A `while` loop of the LKMM vocabulary around a few `body` statements, in the shapes
/// kernel code and hand-written litmus tests use: a spin loop on a register (most often
/// `while (r0 == 0)` or `while (r0 != 1)`, on a `READ_ONCE`, an acquire load or a lock's
/// `xchg` or `cmpxchg`), a loop whose condition is the read, and a counting loop of one to
/// three rounds, so that some runs are cut off and some are not.
fn lkmm_loop(
    vars: usize,
    body: BoxedStrategy<SketchStmt>,
    config: &Config,
) -> BoxedStrategy<SketchStmt> {
    let read = choose(
        config,
        vec![
            (
                6,
                Some(Class::Once),
                Just(ProbeRead::Read(ReadKind::Once)).boxed(),
            ),
            (
                1,
                Some(Class::Once),
                Just(ProbeRead::Read(ReadKind::AtomicRead)).boxed(),
            ),
            (
                3,
                Some(Class::AcqRel),
                Just(ProbeRead::Read(ReadKind::Acquire)).boxed(),
            ),
            (
                1,
                Some(Class::AcqRel),
                Just(ProbeRead::Read(ReadKind::AtomicReadAcquire)).boxed(),
            ),
            (
                1,
                Some(Class::Plain),
                Just(ProbeRead::Read(ReadKind::Plain)).boxed(),
            ),
            (
                1,
                Some(Class::RmwXchg),
                ordering().prop_map(ProbeRead::Xchg).boxed(),
            ),
            (
                1,
                Some(Class::RmwCmpxchg),
                ordering().prop_map(ProbeRead::Cmpxchg).boxed(),
            ),
        ],
        Just(ProbeRead::Read(ReadKind::Once)).boxed(),
    );
    let test = prop_oneof![
        3 => Just((false, 0)),
        2 => Just((true, 1)),
        1 => Just((true, 2)),
        1 => Just((false, 1)),
        1 => Just((true, 0)),
    ];
    let probe = (0..vars, read, test).prop_map(|(var, read, (ne, value))| Probe {
        var,
        read,
        ne,
        value,
    });
    prop_oneof![
        3 => (
            probe.clone(),
            prop_oneof![
                2 => Just(Vec::new()),
                1 => prop::collection::vec(body.clone(), 1..=1),
            ],
        )
            .prop_map(|(probe, body)| SketchStmt::While {
                cond: LoopCond::Spin(probe),
                body,
            }),
        2 => (probe, prop::collection::vec(body.clone(), 1..=2)).prop_map(|(probe, body)| {
            SketchStmt::While {
                cond: LoopCond::Poll(probe),
                body,
            }
        }),
        2 => (1i64..=3, prop::collection::vec(body, 1..=2)).prop_map(|(bound, body)| {
            SketchStmt::While {
                cond: LoopCond::Count { bound },
                body,
            }
        }),
    ]
    .boxed()
}

/// A statement of the LKMM vocabulary: a leaf, a compound statement around one or two
/// leaves or `if`s of leaves, or a loop around a few leaves.
fn c11_order() -> BoxedStrategy<Order> {
    prop::sample::select(Order::ALL.to_vec()).boxed()
}

/// An order, or now and then none: the form without `_explicit`.
fn c11_maybe_order() -> BoxedStrategy<Option<Order>> {
    prop_oneof![
        6 => c11_order().prop_map(Some),
        1 => Just(None),
    ]
    .boxed()
}

/// A leaf statement of the C11 vocabulary: every order on every operation.
fn c11_leaf(vars: usize, config: &Config) -> BoxedStrategy<SketchStmt> {
    let var = 0..vars;
    let value = 1i64..=2;
    let op = prop::sample::select(vec![
        FetchOp::Add,
        FetchOp::Sub,
        FetchOp::Or,
        FetchOp::Xor,
        FetchOp::And,
    ]);
    let c11 = |s: BoxedStrategy<C11Op>| s.prop_map(SketchStmt::C11).boxed();
    choose(
        config,
        vec![
            (
                5,
                Some(Class::C11Access),
                c11((var.clone(), c11_maybe_order())
                    .prop_map(|(var, order)| C11Op::Load { var, order })
                    .boxed()),
            ),
            (
                5,
                Some(Class::C11Access),
                c11((var.clone(), value.clone(), c11_maybe_order())
                    .prop_map(|(var, value, order)| C11Op::Store { var, value, order })
                    .boxed()),
            ),
            (
                2,
                Some(Class::Plain),
                c11(var.clone().prop_map(|var| C11Op::PlainRead { var }).boxed()),
            ),
            (
                2,
                Some(Class::Plain),
                c11((var.clone(), value.clone())
                    .prop_map(|(var, value)| C11Op::PlainWrite { var, value })
                    .boxed()),
            ),
            (
                2,
                Some(Class::C11Fence),
                c11(c11_order().prop_map(C11Op::Fence).boxed()),
            ),
            (
                1,
                Some(Class::C11Rmw),
                c11((var.clone(), value.clone(), c11_maybe_order())
                    .prop_map(|(var, value, order)| C11Op::Exchange { var, value, order })
                    .boxed()),
            ),
            (
                1,
                Some(Class::C11Rmw),
                c11((var.clone(), op, value.clone(), c11_maybe_order())
                    .prop_map(|(var, op, value, order)| C11Op::Fetch {
                        var,
                        op,
                        value,
                        order,
                    })
                    .boxed()),
            ),
            (
                2,
                Some(Class::C11Cas),
                c11((
                    var.clone(),
                    var,
                    value,
                    prop_oneof![
                        6 => (c11_order(), c11_order()).prop_map(Some),
                        1 => Just(None),
                    ],
                    any::<bool>(),
                )
                    .prop_map(
                        |(var, expected, desired, orders, strong)| C11Op::CompareExchange {
                            var,
                            expected,
                            desired,
                            orders,
                            strong,
                        },
                    )
                    .boxed()),
            ),
        ],
        Just(SketchStmt::C11(C11Op::Fence(Order::SeqCst))).boxed(),
    )
}

/// A statement of the C11 vocabulary: a leaf, or now and then an `if` around some.
fn c11_stmt(vars: usize, config: &Config) -> BoxedStrategy<SketchStmt> {
    let leaf = c11_leaf(vars, config);
    choose(
        config,
        vec![
            (8, None, leaf.clone()),
            (1, Some(Class::CtrlDep), lkmm_if(leaf.clone())),
        ],
        leaf,
    )
}

fn lkmm_stmt(vars: usize, config: &Config) -> BoxedStrategy<SketchStmt> {
    let leaf = lkmm_leaf(vars, config);
    let inner = choose(
        config,
        vec![
            (5, None, leaf.clone()),
            (1, Some(Class::CtrlDep), lkmm_if(leaf.clone())),
        ],
        leaf.clone(),
    );
    let body = prop::collection::vec(inner, 1..=2);
    let lock = 0..LOCKS.len();
    choose(
        config,
        vec![
            (16, None, leaf.clone()),
            (3, Some(Class::CtrlDep), lkmm_if(leaf.clone())),
            (1, Some(Class::Loop), lkmm_loop(vars, leaf, config)),
            (
                1,
                Some(Class::Lock),
                (lock.clone(), body.clone())
                    .prop_map(|(lock, body)| SketchStmt::Lock { lock, body })
                    .boxed(),
            ),
            (
                1,
                Some(Class::TryLock),
                (lock, body.clone())
                    .prop_map(|(lock, body)| SketchStmt::TryLock { lock, body })
                    .boxed(),
            ),
            (
                2,
                Some(Class::Rcu),
                body.clone().prop_map(SketchStmt::RcuRead).boxed(),
            ),
            (
                1,
                Some(Class::Srcu),
                (0..SRCU.len(), body)
                    .prop_map(|(domain, body)| SketchStmt::SrcuRead { domain, body })
                    .boxed(),
            ),
        ],
        Just(SketchStmt::Fence(Fence::Mb)).boxed(),
    )
}

/// The strategy for sketches within `config`.
///
/// Statements draw variable indices below `config.max_vars` and the sketch takes them
/// modulo its own number of variables: no strategy depends on another's value
/// (`prop_flat_map` would split the fuzzers' bytes in halves at each level, leaving the
/// inner strategies almost nothing to read).
pub fn sketch(config: Config) -> impl Strategy<Value = Sketch> {
    let max_vars = config.max_vars.clamp(1, VARS.len());
    let vars = 2.min(max_vars)..=max_vars;
    // The LKMM's and C11's vocabularies draw varied conditions.
    let lkmm = config.vocabulary != Vocabulary::Basic;
    let stmt = match config.vocabulary {
        Vocabulary::Lkmm => lkmm_stmt(max_vars, &config),
        Vocabulary::C11 => c11_stmt(max_vars, &config),
        Vocabulary::Basic => basic_stmt(max_vars, &config),
    };
    let thread = prop::collection::vec(stmt, 1..=config.max_stmts.max(1));
    let target = if lkmm {
        prop_oneof![
            12 => (any::<usize>(), any::<usize>()).prop_map(|(t, r)| Target::Reg(t, r)),
            4 => any::<usize>().prop_map(Target::Var),
            1 => any::<usize>().prop_map(Target::Lock),
        ]
        .boxed()
    } else {
        prop_oneof![
            3 => (any::<usize>(), any::<usize>()).prop_map(|(t, r)| Target::Reg(t, r)),
            1 => any::<usize>().prop_map(Target::Var),
        ]
        .boxed()
    };
    let atom = if lkmm {
        (
            target,
            0i64..=2,
            prop_oneof![
                12 => Just(None),
                1 => (any::<usize>(), any::<usize>()).prop_map(Some),
            ],
            prop::bool::weighted(0.08),
            prop::bool::weighted(0.08),
            prop_oneof![
                16 => Just(Join::And),
                3 => Just(Join::Or),
                1 => Just(Join::Implies),
            ],
        )
            .prop_map(|(target, value, against, ne, negated, join)| Atom {
                target,
                value,
                against,
                ne,
                negated,
                join,
            })
            .boxed()
    } else {
        (target, 0i64..=2)
            .prop_map(|(target, value)| Atom::eq(target, value))
            .boxed()
    };
    let quantifier = if lkmm {
        prop_oneof![
            8 => Just(Quantifier::Exists),
            1 => Just(Quantifier::NotExists),
            1 => Just(Quantifier::Forall),
        ]
        .boxed()
    } else {
        Just(Quantifier::Exists).boxed()
    };
    let shown = if lkmm {
        prop_oneof![
            2 => Just(Shown::All),
            2 => Just(Shown::None),
            1 => any::<u64>().prop_map(Shown::Some),
        ]
        .boxed()
    } else {
        Just(Shown::All).boxed()
    };
    let init = if lkmm && config.allows(Class::Init) {
        prop_oneof![
            6 => Just(Vec::new()),
            1 => prop::collection::vec((0..max_vars, 1i64..=2), 1..=2),
        ]
        .boxed()
    } else {
        Just(Vec::new()).boxed()
    };
    let filter = if lkmm {
        prop_oneof![
            12 => Just(Vec::new()),
            1 => prop::collection::vec(atom.clone(), 1..=2),
        ]
        .boxed()
    } else {
        Just(Vec::new()).boxed()
    };
    let max_size = config.max_size.max(1);
    let without = config.without.clone();
    let with = config.with.clone();
    let drawn = (
        vars,
        init,
        prop::collection::vec(thread, config.max_threads.max(1)),
        threads(config.min_threads, config.max_threads, lkmm),
        quantifier,
        prop::collection::vec(atom, 1..=3),
        filter,
        shown,
    )
        .prop_map(
            move |(vars, init, mut threads, count, quantifier, condition, filter, shown)| {
                threads.truncate(count);
                trim(&mut threads, max_size);
                Sketch {
                    vars,
                    init,
                    threads,
                    quantifier,
                    condition,
                    filter,
                    shown,
                    all_params: !lkmm,
                }
            },
        );
    if without.is_empty() && with.is_empty() {
        return drawn.boxed();
    }
    // Statements of a class left out are never drawn; a condition or a `locations` clause
    // of one is drawn again, and so is a sketch without a class asked for.
    drawn
        .prop_filter("a class left out or missing", move |s| {
            let classes = s.classes();
            classes.iter().all(|c| !without.contains(c)) && with.iter().all(|c| classes.contains(c))
        })
        .boxed()
}

/// The number of threads: uniform in `min..=max`, or, for the LKMM vocabulary, two and
/// three twice as often as four, and four twice as often as five and more, as in diy7's
/// tests.
fn threads(min: usize, max: usize, lkmm: bool) -> BoxedStrategy<usize> {
    let (min, max) = (min.max(1), max.max(min.max(1)));
    if !lkmm {
        return (min..=max).boxed();
    }
    let arms: Vec<(u32, BoxedStrategy<usize>)> = (min..=max)
        .map(|n| {
            (
                if n <= 3 {
                    4
                } else if n == 4 {
                    2
                } else {
                    1
                },
                Just(n).boxed(),
            )
        })
        .collect();
    Union::new_weighted(arms).boxed()
}

/// Drops the last statements of the last threads until their [`SketchStmt::size`] is at
/// most `max` in all, leaving each thread at least one.
fn trim(threads: &mut [Vec<SketchStmt>], max: usize) {
    let mut total: usize = threads.iter().flatten().map(SketchStmt::size).sum();
    for t in threads.iter_mut().rev() {
        while total > max && t.len() > 1 {
            total -= t.pop().map_or(0, |s| s.size());
        }
    }
}

/// The strategy for litmus tests within `config`.
pub fn test(config: Config) -> impl Strategy<Value = Test> {
    sketch(config).prop_map(|s| s.to_test("generated"))
}

/// Draws a sketch from `bytes` (the fuzzers' input): the bytes are folded into the seed of
/// the ChaCha source proptest draws from.
///
/// Proptest's pass-through source, which would read the bytes themselves, hands half of
/// what is left to every alternative of a `prop_oneof` it does not take, so a few levels
/// down it gives only zeros, on which uniform sampling by rejection never ends (it hung the
/// `check` fuzz target); a seed keeps the draw total, at the price of coarser mutations.
pub fn from_bytes(bytes: &[u8], config: Config) -> Option<Sketch> {
    let mut seed = [0u8; 32];
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ bytes.len() as u64;
    for (i, &b) in bytes.iter().enumerate() {
        // FNV-1a, spread over the seed's 32 bytes.
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        seed[i % 32] ^= (h >> 32) as u8;
    }
    for (i, s) in seed.iter_mut().enumerate() {
        *s ^= (h >> (8 * (i % 8))) as u8;
    }
    draw(seed, config)
}

/// Draws the sketch numbered `seed`: the same seed and configuration give the same sketch.
pub fn from_seed(seed: u64, config: Config) -> Sketch {
    let mut bytes = [0u8; 32];
    // SplitMix64, so that neighbouring seeds give unrelated sources.
    let mut z = seed;
    for chunk in bytes.chunks_mut(8) {
        z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut v = z;
        v = (v ^ (v >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        v = (v ^ (v >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        chunk.copy_from_slice(&(v ^ (v >> 31)).to_le_bytes());
    }
    // Drawing fails only when `without` rejects every sketch drawn (a local limit of
    // proptest's); a lone fence stands for the sketch then.
    draw(bytes, config).unwrap_or_else(|| Sketch {
        vars: 1,
        init: Vec::new(),
        threads: vec![vec![SketchStmt::Fence(Fence::Mb)]],
        quantifier: Quantifier::Exists,
        condition: Vec::new(),
        filter: Vec::new(),
        shown: Shown::All,
        all_params: true,
    })
}

fn draw(seed: [u8; 32], config: Config) -> Option<Sketch> {
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed);
    let mut runner = TestRunner::new_with_rng(proptest::test_runner::Config::default(), rng);
    sketch(config)
        .new_tree(&mut runner)
        .ok()
        .map(|tree| tree.current())
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

    /// The litmus test of the sketch, named `name`.
    pub fn to_test(&self, name: &str) -> Test {
        build::build(self, name).0
    }

    /// The construct classes of the program [`Sketch::to_test`] writes (a dependency on
    /// a thread that reads nothing before it, for one, is not written, and does not
    /// count).
    pub fn classes(&self) -> BTreeSet<Class> {
        build::build(self, "generated").1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sketch_prints_as_litmus_text() {
        let s = Sketch {
            vars: 2,
            init: Vec::new(),
            threads: vec![
                vec![
                    SketchStmt::Write {
                        var: 0,
                        value: 1,
                        kind: WriteKind::Once,
                        dep: None,
                    },
                    SketchStmt::Write {
                        var: 1,
                        value: 1,
                        kind: WriteKind::Release,
                        dep: None,
                    },
                ],
                vec![
                    SketchStmt::Read {
                        var: 1,
                        kind: ReadKind::Acquire,
                        dep: None,
                    },
                    SketchStmt::If {
                        reg: 0,
                        cond: Cond::Eq(1),
                        then: vec![SketchStmt::Rmw {
                            var: 0,
                            op: RmwOp::Xchg {
                                value: 2,
                                atomic: false,
                            },
                            ordering: Ordering::Relaxed,
                            dep: None,
                        }],
                        els: Vec::new(),
                    },
                ],
            ],
            quantifier: Quantifier::Exists,
            condition: vec![Atom::eq(Target::Reg(1, 0), 1), Atom::eq(Target::Var(0), 1)],
            filter: Vec::new(),
            shown: Shown::All,
            all_params: true,
        };
        expect_test::expect![[r#"
            C generated
            {}

            P0(int *x, int *y)
            {
            	WRITE_ONCE(*x, 1);
            	smp_store_release(y, 1);
            }

            P1(int *x, int *y)
            {
            	int r0;
            	int r1;
            	r0 = smp_load_acquire(y);
            	if (r0 == 1) {
            		r1 = xchg_relaxed(x, 2);
            	}
            }

            locations [1:r0; 1:r1; x; y;]
            exists (1:r0=1 /\ x=1)
        "#]]
        .assert_eq(&hazmat_litmus::print(&s.to_test("generated")));
        assert_eq!(s.interleavings(), 6);
        assert_eq!(s.with_mb(1, 1).threads[1][1], SketchStmt::Fence(Fence::Mb));
        let classes: Vec<&str> = s.classes().iter().map(|c| c.name()).collect();
        assert_eq!(classes, ["once", "acq-rel", "ctrl-dep", "rmw-xchg"]);
    }

    #[test]
    fn loops_print_in_their_three_shapes() {
        let once = |var| Probe {
            var,
            read: ProbeRead::Read(ReadKind::Once),
            ne: false,
            value: 0,
        };
        let write = SketchStmt::Write {
            var: 1,
            value: 1,
            kind: WriteKind::Once,
            dep: None,
        };
        let s = Sketch {
            vars: 2,
            init: Vec::new(),
            threads: vec![
                vec![
                    SketchStmt::While {
                        cond: LoopCond::Spin(Probe {
                            read: ProbeRead::Read(ReadKind::Acquire),
                            ..once(0)
                        }),
                        body: Vec::new(),
                    },
                    SketchStmt::Read {
                        var: 1,
                        kind: ReadKind::Once,
                        dep: None,
                    },
                ],
                vec![
                    SketchStmt::While {
                        cond: LoopCond::Poll(Probe {
                            ne: true,
                            value: 1,
                            ..once(1)
                        }),
                        body: vec![SketchStmt::Fence(Fence::Mb)],
                    },
                    // With nothing else to do, a loop on a read is a spin loop.
                    SketchStmt::While {
                        cond: LoopCond::Poll(Probe {
                            read: ProbeRead::Cmpxchg(Ordering::Acquire),
                            ne: true,
                            ..once(0)
                        }),
                        body: Vec::new(),
                    },
                ],
                vec![SketchStmt::While {
                    cond: LoopCond::Count { bound: 2 },
                    body: vec![
                        SketchStmt::Rmw {
                            var: 0,
                            op: RmwOp::FetchOp {
                                op: ArithOp::Add,
                                value: 1,
                            },
                            ordering: Ordering::Relaxed,
                            dep: None,
                        },
                        write,
                    ],
                }],
            ],
            quantifier: Quantifier::Exists,
            condition: vec![
                Atom::eq(Target::Reg(0, 1), 0),
                Atom::eq(Target::Reg(2, 0), 2),
            ],
            filter: Vec::new(),
            shown: Shown::None,
            all_params: false,
        };
        let printed = hazmat_litmus::print(&s.to_test("loops"));
        expect_test::expect![[r#"
            C loops
            {}

            P0(int *x, int *y)
            {
            	int r0;
            	int r1;
            	r0 = smp_load_acquire(x);
            	while (r0 == 0) {
            		r0 = smp_load_acquire(x);
            	}
            	r1 = READ_ONCE(*y);
            }

            P1(int *x, int *y)
            {
            	int r0;
            	while (READ_ONCE(*y) != 1) {
            		smp_mb();
            	}
            	r0 = cmpxchg_acquire(x, 0, 1);
            	while (r0 != 0) {
            		r0 = cmpxchg_acquire(x, 0, 1);
            	}
            }

            P2(int *x, int *y)
            {
            	int r0;
            	int r1;
            	r0 = 0;
            	while (r0 < 2) {
            		r1 = atomic_fetch_add_relaxed(1, x);
            		WRITE_ONCE(*y, 1);
            		r0 = r0 + 1;
            	}
            }

            exists (0:r1=0 /\ 2:r0=2)
        "#]]
        .assert_eq(&printed);
        let parsed = hazmat_litmus::parse(&printed).unwrap_or_else(|e| panic!("{}", e.message));
        assert_eq!(parsed, s.to_test("loops"));
        let classes: Vec<&str> = s.classes().iter().map(|c| c.name()).collect();
        assert_eq!(
            classes,
            [
                "once",
                "acq-rel",
                "loop",
                "fence-mb",
                "rmw-cmpxchg",
                "rmw-fetch",
                "locations-none"
            ]
        );
        // A loop's read and body count twice, as herd7 runs them twice.
        let sizes: Vec<usize> = s.threads.iter().flatten().map(SketchStmt::size).collect();
        assert_eq!(sizes, [3, 1, 5, 3, 5]);
    }

    #[test]
    fn a_loop_shrinks_to_its_body_or_to_a_simpler_loop() {
        let probe = Probe {
            var: 0,
            read: ProbeRead::Xchg(Ordering::Acquire),
            ne: false,
            value: 1,
        };
        let fence = SketchStmt::Fence(Fence::Rmb);
        let spin = SketchStmt::While {
            cond: LoopCond::Spin(probe),
            body: vec![fence.clone()],
        };
        let smaller = shrink::smaller_stmt(&spin);
        let with_cond = |cond| {
            vec![SketchStmt::While {
                cond,
                body: vec![fence.clone()],
            }]
        };
        let xchg = SketchStmt::Rmw {
            var: 0,
            op: RmwOp::Xchg {
                value: 1,
                atomic: false,
            },
            ordering: Ordering::Acquire,
            dep: None,
        };
        assert_eq!(
            smaller,
            [
                // Unwrapped: the body alone, then the first round.
                vec![fence.clone()],
                vec![xchg, fence.clone()],
                // The body shrunk.
                vec![SketchStmt::While {
                    cond: LoopCond::Spin(probe),
                    body: Vec::new(),
                }],
                vec![SketchStmt::While {
                    cond: LoopCond::Spin(probe),
                    body: vec![SketchStmt::Fence(Fence::Mb)],
                }],
                // The read made plainer.
                with_cond(LoopCond::Spin(Probe {
                    read: ProbeRead::Read(ReadKind::Once),
                    ..probe
                })),
                with_cond(LoopCond::Spin(Probe {
                    read: ProbeRead::Xchg(Ordering::Relaxed),
                    ..probe
                })),
            ]
        );
        let count = SketchStmt::While {
            cond: LoopCond::Count { bound: 3 },
            body: vec![fence.clone()],
        };
        assert!(shrink::smaller_stmt(&count).contains(&with_cond(LoopCond::Count { bound: 2 })));
        // A loop is dropped like any statement.
        let s = Sketch {
            vars: 1,
            init: Vec::new(),
            threads: vec![vec![spin, fence.clone()]],
            quantifier: Quantifier::Exists,
            condition: Vec::new(),
            filter: Vec::new(),
            shown: Shown::All,
            all_params: true,
        };
        assert!(
            s.smaller()
                .iter()
                .any(|t| t.threads == [vec![fence.clone()]])
        );
    }

    #[test]
    fn minimising_a_loop_keeps_a_bare_loop() {
        let has_loop = |s: &Sketch| hazmat_litmus::print(&s.to_test("t")).contains("while (");
        let config = Config {
            with: vec![Class::Loop],
            ..Config::lkmm()
        };
        for seed in 0..100 {
            let s = from_seed(seed, config.clone());
            assert!(has_loop(&s), "{s:?}");
            let m = minimise(&s, 7, 1000, |chunk| chunk.iter().position(has_loop));
            let [thread] = m.threads.as_slice() else {
                panic!("more than one thread left: {m:?}");
            };
            let [SketchStmt::While { cond, body }] = thread.as_slice() else {
                panic!("more than the loop left: {m:?}");
            };
            assert!(body.is_empty(), "{m:?}");
            match cond {
                LoopCond::Spin(p) | LoopCond::Poll(p) => {
                    assert_eq!(p.read, ProbeRead::Read(ReadKind::Once));
                }
                LoopCond::Count { bound } => assert_eq!(*bound, 1),
            }
        }
    }

    #[test]
    fn loops_are_drawn_only_from_the_lkmm_vocabulary() {
        let loops = |config: Config| {
            (0..1000)
                .filter(|&seed| {
                    from_seed(seed, config.clone())
                        .classes()
                        .contains(&Class::Loop)
                })
                .count()
        };
        assert_eq!(loops(Config::default()), 0);
        let lkmm = loops(Config::lkmm());
        assert!((50..=300).contains(&lkmm), "{lkmm} of 1000 programs loop");
        assert_eq!(
            loops(Config {
                branches: false,
                ..Config::lkmm()
            }),
            0
        );
    }

    #[test]
    fn bytes_drive_the_generator_deterministically() {
        let a = from_bytes(b"some fuzzer input", Config::default());
        let b = from_bytes(b"some fuzzer input", Config::default());
        assert!(a.is_some());
        assert_eq!(a, b);
        assert!(from_bytes(&[], Config::default()).is_some());
        assert!(from_bytes(&[0; 4096], Config::default()).is_some());
        assert!(from_bytes(&[0xff; 4096], Config::default()).is_some());
        assert_eq!(from_seed(7, Config::lkmm()), from_seed(7, Config::lkmm()));
        assert_ne!(from_seed(7, Config::lkmm()), from_seed(8, Config::lkmm()));
    }

    #[test]
    fn class_names_are_distinct_and_read_back() {
        let names: BTreeSet<&str> = Class::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(names.len(), Class::ALL.len());
        for c in Class::ALL {
            assert_eq!(Class::from_name(c.name()), Some(c));
        }
    }

    /// The classes only the C11 vocabulary draws.
    const C11_CLASSES: [Class; 5] = [
        Class::C11Access,
        Class::C11Rmw,
        Class::C11Cas,
        Class::C11Fence,
        Class::C11Implicit,
    ];

    #[test]
    fn the_lkmm_vocabulary_reaches_every_class() {
        let mut seen = BTreeSet::new();
        for seed in 0..3000 {
            seen.extend(from_seed(seed, Config::lkmm()).classes());
        }
        let missing: Vec<&str> = Class::ALL
            .iter()
            .filter(|c| !seen.contains(c) && !C11_CLASSES.contains(c))
            .map(|c| c.name())
            .collect();
        assert!(missing.is_empty(), "never drawn: {missing:?}");
    }

    /// The C11 vocabulary draws each of its classes, every order on every operation, and
    /// nothing of the kernel's.
    #[test]
    fn the_c11_vocabulary_reaches_every_order_of_every_operation() {
        let mut seen = BTreeSet::new();
        let mut spelled = BTreeSet::new();
        for seed in 0..2000 {
            let sketch = from_seed(seed, Config::c11());
            seen.extend(sketch.classes());
            let text = hazmat_litmus::print(&sketch.to_test("t"));
            assert!(!text.contains("ONCE") && !text.contains("smp_"), "{text}");
            for word in text.split(|c: char| !c.is_ascii_alphanumeric() && c != '_') {
                if word.starts_with("atomic_") || word.starts_with("memory_order_") {
                    spelled.insert(word.to_string());
                }
            }
        }
        for c in C11_CLASSES {
            assert!(seen.contains(&c), "never drawn: {c}");
        }
        for op in [
            "load",
            "store",
            "exchange",
            "fetch_add",
            "fetch_sub",
            "fetch_or",
            "fetch_xor",
            "fetch_and",
            "compare_exchange_strong",
            "compare_exchange_weak",
        ] {
            assert!(spelled.contains(&format!("atomic_{op}")), "atomic_{op}");
            assert!(
                spelled.contains(&format!("atomic_{op}_explicit")),
                "{op}_explicit"
            );
        }
        assert!(spelled.contains("atomic_thread_fence"));
        for order in Order::ALL {
            assert!(spelled.contains(order.word()), "{}", order.word());
        }
    }

    #[test]
    fn a_class_left_out_is_never_drawn() {
        let config = Config {
            without: vec![Class::AddrDep, Class::Lock, Class::Plain],
            ..Config::lkmm()
        };
        for seed in 0..500 {
            let classes = from_seed(seed, config.clone()).classes();
            assert!(!classes.contains(&Class::AddrDep));
            assert!(!classes.contains(&Class::Lock));
            assert!(!classes.contains(&Class::Plain));
        }
    }

    #[test]
    fn a_class_asked_for_is_always_drawn() {
        let config = Config {
            with: vec![Class::Loop, Class::Once],
            ..Config::lkmm()
        };
        for seed in 0..300 {
            let classes = from_seed(seed, config.clone()).classes();
            assert!(classes.contains(&Class::Loop));
            assert!(classes.contains(&Class::Once));
        }
    }

    #[test]
    fn minimising_keeps_what_fails_and_nothing_more() {
        let has_wmb = |s: &Sketch| hazmat_litmus::print(&s.to_test("t")).contains("smp_wmb();");
        let mut minimised = 0;
        for seed in 0..300 {
            let s = from_seed(seed, Config::lkmm());
            if !has_wmb(&s) {
                continue;
            }
            let m = minimise(&s, 7, 1000, |chunk| chunk.iter().position(has_wmb));
            assert!(has_wmb(&m));
            assert_eq!(m.threads, vec![vec![SketchStmt::Fence(Fence::Wmb)]]);
            minimised += 1;
        }
        assert!(minimised > 10, "only {minimised} sketches with smp_wmb()");
    }

    #[test]
    fn smaller_sketches_are_smaller_and_print() {
        let loops = Config {
            with: vec![Class::Loop],
            ..Config::lkmm()
        };
        let sketches = (0..200)
            .map(|seed| from_seed(seed, Config::lkmm()))
            .chain((0..100).map(|seed| from_seed(seed, loops.clone())));
        for s in sketches {
            let size = |s: &Sketch| format!("{:?}", s).len();
            for t in s.smaller() {
                assert!(size(&t) < size(&s) || t.condition.len() <= s.condition.len());
                assert_ne!(t, s);
                let printed = hazmat_litmus::print(&t.to_test("smaller"));
                hazmat_litmus::parse(&printed).unwrap_or_else(|e| panic!("{}", e.message));
            }
        }
    }
}
