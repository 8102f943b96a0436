//! The primitives a statement is made of, in each vocabulary's spelling: orderings,
//! fences, reads and writes, dependencies, the tests of `if`s and `while` loops, the
//! read-modify-writes of the LKMM and the operations of herd7's C11 dialect.
//!
//! Each primitive knows its name in the litmus text and the construct [`Class`] it
//! belongs to; which vocabulary draws which primitive is the strategies' business.

use super::Class;

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
    pub(super) fn suffix(self) -> &'static str {
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
    pub(super) fn name(self) -> &'static str {
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

    pub(super) fn class(self) -> Class {
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
    pub(super) fn class(self) -> Class {
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
    pub(super) fn class(self) -> Class {
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
    /// A true data dependency: the value read is written, as [`ValueForm`] says.
    Value,
}

/// How a true data dependency writes the value read: the ways herd7 passes a value on
/// unchanged, each of which it counts and names apart among values out of thin air.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueForm {
    /// As it is: `r`.
    Plain,
    /// `r + 0`, which herd7 simplifies to `r` as it builds the events.
    PlusZero,
    /// `0 | r`, simplified alike.
    OrZero,
    /// Through a copy after a bare read of the register: `r; rC = r;`, then `rC`.
    Copy,
    /// Plus another register read earlier (`r + rO`; `r + r` with no other), which herd7
    /// simplifies only once it solves `rO` to 0.
    PlusRegister(usize),
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
    /// How a [`DepKind::Value`] writes the value read (not used by the others).
    pub form: ValueForm,
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
    pub(super) fn probes(self) -> usize {
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
    pub(super) fn name(self) -> &'static str {
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
    pub(super) fn has_operand(self) -> bool {
        !matches!(self, ArithOp::Inc | ArithOp::Dec)
    }

    /// Whether `atomic_OP_return` exists.
    pub(super) fn has_return(self) -> bool {
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
    pub(super) fn class(self) -> Class {
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
    /// The operator of herd7's `__atomic_op` that applies the same operation.
    pub(super) fn atomic_op(self) -> hazmat_litmus::ast::AtomicOp {
        use hazmat_litmus::ast::AtomicOp;
        match self {
            FetchOp::Add => AtomicOp::Add,
            FetchOp::Sub => AtomicOp::Sub,
            FetchOp::Or => AtomicOp::Or,
            FetchOp::Xor => AtomicOp::Xor,
            FetchOp::And => AtomicOp::And,
        }
    }

    pub(super) fn name(self) -> &'static str {
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
    /// A read-modify-write of herd7's grammar (an `_explicit` exchange or fetch operation,
    /// or a compare-exchange) as a statement of its own, its value dropped.
    Dropped(Box<C11Op>),
    /// One of herd7's internal read-modify-write instructions, the kernel's: `r =
    /// __xchg{a}(x, v);` without an operator, `__atomic_op{a}(x, OP, v);` with one.
    Kernel {
        /// The variable.
        var: usize,
        /// The value written, or the operand.
        value: i64,
        /// The operator, for `__atomic_op`.
        op: Option<FetchOp>,
        /// The annotation.
        annotation: KernelAnnotation,
    },
}

/// The kernel's annotations of a read-modify-write instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelAnnotation {
    /// `once`
    Once,
    /// `mb`
    Mb,
    /// `acquire`
    Acquire,
    /// `release`
    Release,
}

impl KernelAnnotation {
    /// Every annotation.
    pub const ALL: [KernelAnnotation; 4] = [
        KernelAnnotation::Once,
        KernelAnnotation::Mb,
        KernelAnnotation::Acquire,
        KernelAnnotation::Release,
    ];

    /// The annotation as written.
    pub fn word(self) -> &'static str {
        match self {
            KernelAnnotation::Once => "once",
            KernelAnnotation::Mb => "mb",
            KernelAnnotation::Acquire => "acquire",
            KernelAnnotation::Release => "release",
        }
    }
}

impl C11Op {
    /// The construct classes of the primitive.
    pub(super) fn classes(&self) -> Vec<Class> {
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
            C11Op::Dropped(inner) => {
                let mut v = inner.classes();
                v.push(Class::C11Dropped);
                v
            }
            C11Op::Kernel { .. } => vec![Class::KernelRmw],
        };
        out.sort();
        out
    }
}
