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
//!   WRITE_ONCE(*y, r1);`, `r1 = r0 == 0; if (r1 >= 0) { ... }`) and a few other ways,
//!   and true data dependencies, the value read written as it is, plus 0, ored with 0,
//!   through a copy after a bare read of the register (`r0; r1 = r0;`), or plus another
//!   register ([`ValueForm`]);
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
mod class;
mod config;
pub mod families;
mod primitive;
mod seed;
mod shrink;
mod sketch;
mod strategy;
#[cfg(test)]
mod tests;

pub use class::Class;
pub use config::{Config, Vocabulary};
pub use primitive::{
    ArithOp, C11Op, Cond, Dep, DepKind, Fence, FetchOp, KernelAnnotation, LoopCond, Order,
    Ordering, Probe, ProbeRead, ReadKind, RmwOp, TestOp, ValueForm, WriteKind, Zero,
};
pub use seed::{from_bytes, from_seed};
pub use shrink::minimise;
pub use sketch::{Atom, Join, Shown, Sketch, SketchStmt, Target};
pub use strategy::{sketch, test};

use sketch::{LOCKS, SRCU, VARS};
