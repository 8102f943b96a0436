//! The primitive table: every macro of the kernel's `linux-kernel.def`, and the events
//! each produces.
//!
//! herd7 reads `linux-kernel.def` to expand the kernel's macros into its internal
//! instructions (`__load{ONCE}(X)`, `__xchg{MB}(X,V)`, `__lock(X)`...); hazmat keeps the
//! same expansion as a table, so that lowering turns each call into one [`crate::front::program::Op`]
//! with the annotations herd7 would give its events.
//! A name missing from the table is an unknown primitive, which lowering reports with its
//! position (the kernel's model defines no `smp_memb` or `spin_unlock_wait`, for example).
//!
//! Conventions of the table, which follow the `.def` file:
//! - an *lvalue* argument is the location itself (`READ_ONCE(*x)`), a *pointer* argument
//!   is its address (`smp_load_acquire(x)`);
//! - every event of a read-modify-write instruction carries [`Tag::Rmw`] and the
//!   instruction's annotation, on the read and the write alike (the model filters, as
//!   `linux-kernel.bell` does: an acquire on a write means nothing);
//! - the `atomic_*` operations that return nothing are `{NORETURN}`; the others are `{MB}`
//!   unless their name ends in `_relaxed` (`{ONCE}`), `_acquire` or `_release`.

use crate::exec::event::{Tag, Tags};
use crate::front::program::BinOp;

/// The shape of a primitive: its arguments and the instruction it lowers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// `(X)`: a read of the location; `lvalue` tells whether X is the location or its address.
    /// `deref` marks herd7's `__load{deref}` and `__load{lderef}` (see
    /// [`crate::front::program::Op::Load`]): a `once` read, then an `rb_dep` fence, the
    /// value read carrying no dependency.
    Load { lvalue: bool, deref: bool },
    /// `(X, V)`: a write of V.
    Store { lvalue: bool },
    /// `smp_store_mb(X, V)`: a write of V, then a fence annotated `fence` (a full fence,
    /// in the kernel's files; a macro file's block of a store and a fence).
    StoreMb { fence: Tags },
    /// `()`: a fence.
    Fence,
    /// `(X, V)`: exchange; returns the old value.
    Xchg,
    /// `(X, V, W)`: compare-and-exchange; returns the old value.
    Cmpxchg,
    /// `(V, X)`, or `(X)` with a constant operand: an RMW applying the operator.
    Op {
        /// The operator combining the old value and V.
        op: BinOp,
        /// A constant operand instead of V (`atomic_inc`).
        constant: Option<i64>,
        /// What the call returns.
        returns: Returns,
    },
    /// `atomic_add_unless(X, V, W)`.
    AddUnless,
    /// `spin_lock(X)`.
    Lock,
    /// `spin_unlock(X)`.
    Unlock,
    /// `spin_trylock(X)`.
    Trylock,
    /// `spin_is_locked(X)`.
    IsLocked,
    /// `synchronize_srcu(X)`.
    SyncSrcu,
    /// `(X)`: herd7's `__srcu{srcu-lock}(X)`, the kernel's `srcu_read_lock` until 2023: an
    /// event on X that is neither read nor write, giving a number.
    SrcuLock,
    /// `(X, V)`: herd7's `__srcu{srcu-unlock}(X,V)`, the kernel's `srcu_read_unlock`
    /// until 2023: an event on X carrying V.
    SrcuUnlock,
}

/// What an atomic operation returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Returns {
    /// Nothing (`atomic_add`).
    Nothing,
    /// The old value (`atomic_fetch_add`).
    Old,
    /// The new value (`atomic_add_return`).
    New,
    /// Whether the new value compares to 0 with the operator (`atomic_dec_and_test`: `==`,
    /// `atomic_add_negative`: `<`).
    Test(BinOp),
}

/// One entry of the table.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Primitive {
    /// The macro's name.
    pub(crate) name: &'static str,
    /// What it lowers to.
    pub(crate) shape: Shape,
    /// The annotations of its events.
    pub(crate) tags: Tags,
    /// Whether its annotation is written in lower case (herd7's `lkmmv1` reading knows
    /// `mb`, `acquire` and `release` only so; the table's are in capitals, as
    /// `linux-kernel.def` writes them).
    pub(crate) lower: bool,
}

/// The number of arguments a call of `shape` takes.
pub(crate) fn arity(shape: Shape) -> usize {
    match shape {
        Shape::Fence => 0,
        Shape::Load { .. }
        | Shape::Lock
        | Shape::Unlock
        | Shape::Trylock
        | Shape::IsLocked
        | Shape::SyncSrcu
        | Shape::SrcuLock => 1,
        Shape::Store { .. } | Shape::StoreMb { .. } | Shape::Xchg | Shape::SrcuUnlock => 2,
        Shape::Op { constant, .. } => {
            if constant.is_some() {
                1
            } else {
                2
            }
        }
        Shape::Cmpxchg | Shape::AddUnless => 3,
    }
}

/// Whether a call of `shape` gives a value: herd7 expands such a macro only within an
/// expression, and the others only as statements.
pub(crate) fn gives_value(shape: Shape) -> bool {
    match shape {
        Shape::Load { .. }
        | Shape::Xchg
        | Shape::Cmpxchg
        | Shape::AddUnless
        | Shape::Trylock
        | Shape::IsLocked
        | Shape::SrcuLock => true,
        Shape::Op { returns, .. } => returns != Returns::Nothing,
        Shape::Store { .. }
        | Shape::StoreMb { .. }
        | Shape::Fence
        | Shape::Lock
        | Shape::Unlock
        | Shape::SyncSrcu
        | Shape::SrcuUnlock => false,
    }
}

/// Finds a primitive by name.
pub(crate) fn lookup(name: &str) -> Option<Primitive> {
    TABLE.iter().find(|p| p.name == name).copied()
}

/// The names of every primitive, in table order.
pub(crate) fn names() -> impl Iterator<Item = &'static str> {
    TABLE.iter().map(|p| p.name)
}

const fn tags1(t: Tag) -> Tags {
    Tags::from_bits(1 << t as u8)
}

const fn tags2(a: Tag, b: Tag) -> Tags {
    Tags::from_bits(1 << a as u8 | 1 << b as u8)
}

const ONCE: Tags = tags1(Tag::Once);
const RELEASE: Tags = tags1(Tag::Release);
const ACQUIRE: Tags = tags1(Tag::Acquire);
const RMW_MB: Tags = tags2(Tag::Rmw, Tag::Mb);
const RMW_ONCE: Tags = tags2(Tag::Rmw, Tag::Once);
const RMW_ACQUIRE: Tags = tags2(Tag::Rmw, Tag::Acquire);
const RMW_RELEASE: Tags = tags2(Tag::Rmw, Tag::Release);
const RMW_NORETURN: Tags = tags2(Tag::Rmw, Tag::Noreturn);
const NONE: Tags = Tags::NONE;

const fn p(name: &'static str, shape: Shape, tags: Tags) -> Primitive {
    Primitive {
        name,
        shape,
        tags,
        lower: false,
    }
}

const fn op(o: BinOp, constant: Option<i64>, returns: Returns) -> Shape {
    Shape::Op {
        op: o,
        constant,
        returns,
    }
}

const LOAD_LV: Shape = Shape::Load {
    lvalue: true,
    deref: false,
};
const LOAD_PTR: Shape = Shape::Load {
    lvalue: false,
    deref: false,
};
const STORE_LV: Shape = Shape::Store { lvalue: true };
const STORE_PTR: Shape = Shape::Store { lvalue: false };

use BinOp::{Add, And, AndNot, Eq, Lt, Or, Sub, Xor};
use Returns::{New, Nothing, Old, Test};

/// The table, in the order of `linux-kernel.def`.
const TABLE: &[Primitive] = &[
    // ONCE
    p("READ_ONCE", LOAD_LV, ONCE),
    p("WRITE_ONCE", STORE_LV, ONCE),
    // Release, acquire and friends
    p("smp_store_release", STORE_PTR, RELEASE),
    p("smp_load_acquire", LOAD_PTR, ACQUIRE),
    p("rcu_assign_pointer", STORE_LV, RELEASE),
    p("rcu_dereference", LOAD_LV, ONCE),
    p(
        "smp_store_mb",
        Shape::StoreMb {
            fence: tags1(Tag::Mb),
        },
        ONCE,
    ),
    // Fences
    p("smp_mb", Shape::Fence, tags1(Tag::Mb)),
    p("smp_rmb", Shape::Fence, tags1(Tag::Rmb)),
    p("smp_wmb", Shape::Fence, tags1(Tag::Wmb)),
    p(
        "smp_mb__before_atomic",
        Shape::Fence,
        tags1(Tag::BeforeAtomic),
    ),
    p(
        "smp_mb__after_atomic",
        Shape::Fence,
        tags1(Tag::AfterAtomic),
    ),
    p(
        "smp_mb__after_spinlock",
        Shape::Fence,
        tags1(Tag::AfterSpinlock),
    ),
    p(
        "smp_mb__after_unlock_lock",
        Shape::Fence,
        tags1(Tag::AfterUnlockLock),
    ),
    p(
        "smp_mb__after_srcu_read_unlock",
        Shape::Fence,
        tags1(Tag::AfterSrcuReadUnlock),
    ),
    p("barrier", Shape::Fence, tags1(Tag::Barrier)),
    // Exchange
    p("xchg", Shape::Xchg, RMW_MB),
    p("xchg_relaxed", Shape::Xchg, RMW_ONCE),
    p("xchg_release", Shape::Xchg, RMW_RELEASE),
    p("xchg_acquire", Shape::Xchg, RMW_ACQUIRE),
    p("cmpxchg", Shape::Cmpxchg, RMW_MB),
    p("cmpxchg_relaxed", Shape::Cmpxchg, RMW_ONCE),
    p("cmpxchg_acquire", Shape::Cmpxchg, RMW_ACQUIRE),
    p("cmpxchg_release", Shape::Cmpxchg, RMW_RELEASE),
    // Spinlocks
    p("spin_lock", Shape::Lock, NONE),
    p("spin_unlock", Shape::Unlock, NONE),
    p("spin_trylock", Shape::Trylock, NONE),
    p("spin_is_locked", Shape::IsLocked, NONE),
    // RCU
    p("rcu_read_lock", Shape::Fence, tags1(Tag::RcuLock)),
    p("rcu_read_unlock", Shape::Fence, tags1(Tag::RcuUnlock)),
    p("synchronize_rcu", Shape::Fence, tags1(Tag::SyncRcu)),
    p(
        "synchronize_rcu_expedited",
        Shape::Fence,
        tags1(Tag::SyncRcu),
    ),
    // SRCU
    p("srcu_read_lock", LOAD_PTR, tags1(Tag::SrcuLock)),
    p("srcu_read_unlock", STORE_PTR, tags1(Tag::SrcuUnlock)),
    p("srcu_down_read", LOAD_PTR, tags1(Tag::SrcuLock)),
    p("srcu_up_read", STORE_PTR, tags1(Tag::SrcuUnlock)),
    p("synchronize_srcu", Shape::SyncSrcu, tags1(Tag::SyncSrcu)),
    p(
        "synchronize_srcu_expedited",
        Shape::SyncSrcu,
        tags1(Tag::SyncSrcu),
    ),
    // Atomic
    p("atomic_read", LOAD_PTR, ONCE),
    p("atomic_set", STORE_PTR, ONCE),
    p("atomic_read_acquire", LOAD_PTR, ACQUIRE),
    p("atomic_set_release", STORE_PTR, RELEASE),
    p("atomic_add", op(Add, None, Nothing), RMW_NORETURN),
    p("atomic_sub", op(Sub, None, Nothing), RMW_NORETURN),
    p("atomic_and", op(And, None, Nothing), RMW_NORETURN),
    p("atomic_or", op(Or, None, Nothing), RMW_NORETURN),
    p("atomic_xor", op(Xor, None, Nothing), RMW_NORETURN),
    p("atomic_inc", op(Add, Some(1), Nothing), RMW_NORETURN),
    p("atomic_dec", op(Sub, Some(1), Nothing), RMW_NORETURN),
    p("atomic_andnot", op(AndNot, None, Nothing), RMW_NORETURN),
    p("atomic_add_return", op(Add, None, New), RMW_MB),
    p("atomic_add_return_relaxed", op(Add, None, New), RMW_ONCE),
    p("atomic_add_return_acquire", op(Add, None, New), RMW_ACQUIRE),
    p("atomic_add_return_release", op(Add, None, New), RMW_RELEASE),
    p("atomic_fetch_add", op(Add, None, Old), RMW_MB),
    p("atomic_fetch_add_relaxed", op(Add, None, Old), RMW_ONCE),
    p("atomic_fetch_add_acquire", op(Add, None, Old), RMW_ACQUIRE),
    p("atomic_fetch_add_release", op(Add, None, Old), RMW_RELEASE),
    p("atomic_fetch_and", op(And, None, Old), RMW_MB),
    p("atomic_fetch_and_relaxed", op(And, None, Old), RMW_ONCE),
    p("atomic_fetch_and_acquire", op(And, None, Old), RMW_ACQUIRE),
    p("atomic_fetch_and_release", op(And, None, Old), RMW_RELEASE),
    p("atomic_fetch_or", op(Or, None, Old), RMW_MB),
    p("atomic_fetch_or_relaxed", op(Or, None, Old), RMW_ONCE),
    p("atomic_fetch_or_acquire", op(Or, None, Old), RMW_ACQUIRE),
    p("atomic_fetch_or_release", op(Or, None, Old), RMW_RELEASE),
    p("atomic_fetch_xor", op(Xor, None, Old), RMW_MB),
    p("atomic_fetch_xor_relaxed", op(Xor, None, Old), RMW_ONCE),
    p("atomic_fetch_xor_acquire", op(Xor, None, Old), RMW_ACQUIRE),
    p("atomic_fetch_xor_release", op(Xor, None, Old), RMW_RELEASE),
    p("atomic_inc_return", op(Add, Some(1), New), RMW_MB),
    p("atomic_inc_return_relaxed", op(Add, Some(1), New), RMW_ONCE),
    p(
        "atomic_inc_return_acquire",
        op(Add, Some(1), New),
        RMW_ACQUIRE,
    ),
    p(
        "atomic_inc_return_release",
        op(Add, Some(1), New),
        RMW_RELEASE,
    ),
    p("atomic_fetch_inc", op(Add, Some(1), Old), RMW_MB),
    p("atomic_fetch_inc_relaxed", op(Add, Some(1), Old), RMW_ONCE),
    p(
        "atomic_fetch_inc_acquire",
        op(Add, Some(1), Old),
        RMW_ACQUIRE,
    ),
    p(
        "atomic_fetch_inc_release",
        op(Add, Some(1), Old),
        RMW_RELEASE,
    ),
    p("atomic_sub_return", op(Sub, None, New), RMW_MB),
    p("atomic_sub_return_relaxed", op(Sub, None, New), RMW_ONCE),
    p("atomic_sub_return_acquire", op(Sub, None, New), RMW_ACQUIRE),
    p("atomic_sub_return_release", op(Sub, None, New), RMW_RELEASE),
    p("atomic_fetch_sub", op(Sub, None, Old), RMW_MB),
    p("atomic_fetch_sub_relaxed", op(Sub, None, Old), RMW_ONCE),
    p("atomic_fetch_sub_acquire", op(Sub, None, Old), RMW_ACQUIRE),
    p("atomic_fetch_sub_release", op(Sub, None, Old), RMW_RELEASE),
    p("atomic_dec_return", op(Sub, Some(1), New), RMW_MB),
    p("atomic_dec_return_relaxed", op(Sub, Some(1), New), RMW_ONCE),
    p(
        "atomic_dec_return_acquire",
        op(Sub, Some(1), New),
        RMW_ACQUIRE,
    ),
    p(
        "atomic_dec_return_release",
        op(Sub, Some(1), New),
        RMW_RELEASE,
    ),
    p("atomic_fetch_dec", op(Sub, Some(1), Old), RMW_MB),
    p("atomic_fetch_dec_relaxed", op(Sub, Some(1), Old), RMW_ONCE),
    p(
        "atomic_fetch_dec_acquire",
        op(Sub, Some(1), Old),
        RMW_ACQUIRE,
    ),
    p(
        "atomic_fetch_dec_release",
        op(Sub, Some(1), Old),
        RMW_RELEASE,
    ),
    p("atomic_xchg", Shape::Xchg, RMW_MB),
    p("atomic_xchg_relaxed", Shape::Xchg, RMW_ONCE),
    p("atomic_xchg_release", Shape::Xchg, RMW_RELEASE),
    p("atomic_xchg_acquire", Shape::Xchg, RMW_ACQUIRE),
    p("atomic_cmpxchg", Shape::Cmpxchg, RMW_MB),
    p("atomic_cmpxchg_relaxed", Shape::Cmpxchg, RMW_ONCE),
    p("atomic_cmpxchg_acquire", Shape::Cmpxchg, RMW_ACQUIRE),
    p("atomic_cmpxchg_release", Shape::Cmpxchg, RMW_RELEASE),
    p("atomic_sub_and_test", op(Sub, None, Test(Eq)), RMW_MB),
    p("atomic_dec_and_test", op(Sub, Some(1), Test(Eq)), RMW_MB),
    p("atomic_inc_and_test", op(Add, Some(1), Test(Eq)), RMW_MB),
    p("atomic_add_negative", op(Add, None, Test(Lt)), RMW_MB),
    p(
        "atomic_add_negative_relaxed",
        op(Add, None, Test(Lt)),
        RMW_ONCE,
    ),
    p(
        "atomic_add_negative_acquire",
        op(Add, None, Test(Lt)),
        RMW_ACQUIRE,
    ),
    p(
        "atomic_add_negative_release",
        op(Add, None, Test(Lt)),
        RMW_RELEASE,
    ),
    p("atomic_fetch_andnot", op(AndNot, None, Old), RMW_MB),
    p(
        "atomic_fetch_andnot_acquire",
        op(AndNot, None, Old),
        RMW_ACQUIRE,
    ),
    p(
        "atomic_fetch_andnot_release",
        op(AndNot, None, Old),
        RMW_RELEASE,
    ),
    p(
        "atomic_fetch_andnot_relaxed",
        op(AndNot, None, Old),
        RMW_ONCE,
    ),
    p("atomic_add_unless", Shape::AddUnless, RMW_MB),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let mut all: Vec<_> = names().collect();
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
        assert_eq!(n, 114);
    }

    #[test]
    fn unknown_names_are_absent() {
        assert!(lookup("smp_memb").is_none());
        assert!(lookup("spin_unlock_wait").is_none());
        assert!(lookup("READ_ONCE").is_some());
    }

    /// Every macro of the kernel's `.def` file is in the table, when the conformance data
    /// is at hand.
    #[test]
    fn covers_the_kernel_def_file() {
        let dir = std::env::var("HAZMAT_CONFORMANCE")
            .unwrap_or_else(|_| "../../shared/conformance".into());
        let Ok(def) = std::fs::read_to_string(format!("{dir}/lkmm-model/linux-kernel.def")) else {
            return;
        };
        for line in def.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with("//") {
                continue;
            }
            let name = line.split('(').next().unwrap_or("").trim();
            assert!(lookup(name).is_some(), "{name} is missing from the table");
        }
    }
}
