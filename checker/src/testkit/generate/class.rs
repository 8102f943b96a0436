//! The construct classes a program can belong to, so that results over many programs can
//! be counted per construct, and so that a configuration can leave classes out or ask for
//! them.

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
    /// A C11 read-modify-write of herd7's grammar as a statement of its own, its value
    /// dropped: `atomic_fetch_add_explicit(x, 1, memory_order_relaxed);`.
    C11Dropped,
    /// One of herd7's internal read-modify-write instructions among C11 code:
    /// `r0 = __xchg{once}(x, 1);`, `__atomic_op{mb}(x, +, 1);`.
    KernelRmw,
}

impl Class {
    /// Every class, in order.
    pub const ALL: [Class; 49] = [
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
        Class::C11Dropped,
        Class::KernelRmw,
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
            Class::C11Dropped => "c11-dropped",
            Class::KernelRmw => "kernel-rmw",
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
