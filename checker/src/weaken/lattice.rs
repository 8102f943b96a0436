//! The lattices of ordering choices: for each fence and ordered access a test may write,
//! the family of forms it could be written in instead, each with what it guarantees and
//! what it costs.
//!
//! A choice's [`Strength`] is a set of guarantees, as bits; one choice is weaker than
//! another when its set is a strict subset of the other's, so each family is a lattice
//! ordered by inclusion (`docs/src/weaken.md` draws them).
//! The bits name what a form promises, not how a model reads it: `smp_rmb()` orders reads
//! with reads (`RR`), `smp_mb()` everything (`RR | WW | MB`), and a form that adds nothing a
//! model sees, such as `rcu_dereference` beside `READ_ONCE` in the LKMM, still has a bit of
//! its own (`DEP`), so that the plainer form counts as a weakening of it.
//!
//! A member marked `only_current` is offered only where the test already writes it: it is
//! a weakening's starting point, never a strengthening's goal (`rcu_dereference` adds
//! nothing to `READ_ONCE` in the LKMM, `synchronize_rcu()` would be a strange fence to
//! propose, and `smp_store_mb` is a `WRITE_ONCE` followed by the `smp_mb()` a fence
//! insertion proposes anyway).

/// What a choice guarantees: a set of the bits below.
pub type Strength = u16;

/// Orders the access, or a fence's earlier reads, before what follows (acquire).
pub const ACQ: Strength = 1;
/// Orders what precedes before the access, or a fence's later writes (release).
pub const REL: Strength = 2;
/// Orders reads before later reads (`smp_rmb()`).
pub const RR: Strength = 4;
/// Orders writes before later writes (`smp_wmb()`).
pub const WW: Strength = 8;
/// A full fence: everything before everything after, cumulatively (`smp_mb()`).
pub const MB: Strength = 16;
/// An RCU grace period (`synchronize_rcu()`).
pub const GP: Strength = 32;
/// C11's sequential consistency (`memory_order_seq_cst`).
pub const SC: Strength = 64;
/// C11's consume.
pub const CON: Strength = 128;
/// RCU's publication and dependency-ordered forms (`rcu_dereference`,
/// `rcu_assign_pointer`), which the LKMM reads as `READ_ONCE` and `smp_store_release`.
pub const DEP: Strength = 256;
/// What a special fence adds (`smp_mb__after_atomic()` and the like, `smp_store_mb`).
pub const SPECIAL: Strength = 512;

/// How a member of a family is written, from the parts of the call it replaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// Nothing: the fence is removed (a gap's current choice: nothing inserted).
    Nothing,
    /// A kernel access rewritten from its location: `{l}` is the location (`*p`), `{p}` its
    /// address, `{v}` the value stored; only the call's name and first argument are
    /// rewritten, the rest stays as written.
    Access(&'static str),
    /// A fence call with no argument, such as `smp_mb()`.
    Fence(&'static str),
    /// The call renamed, its arguments as written (the kernel's read-modify-writes).
    Rename(&'static str),
    /// A C11 memory order, replacing the one argument the site is (`memory_order_...`).
    Order(&'static str),
    /// A C11 call without `_explicit`, sequentially consistent, rewritten in its
    /// `_explicit` form with this order.
    Explicit(&'static str),
}

/// One member of a family.
#[derive(Clone, Copy, Debug)]
pub struct Member {
    /// The name that identifies the member in a call (the primitive's name, or the order).
    pub name: &'static str,
    /// How it is written.
    pub form: Form,
    /// What it guarantees.
    pub strength: Strength,
    /// What it costs (see [`COSTS`]).
    pub cost: u32,
    /// A short word for the file names of variants: `mb`, `once`, `relaxed`.
    pub tag: &'static str,
    /// Offered only where the test writes it.
    pub only_current: bool,
}

/// The costs of the choices, cheapest first, as `docs/src/weaken.md` states them: nothing
/// costs nothing, an acquire or release access less than a one-way or partial fence,
/// which costs less than a full one.
pub const COSTS: &[(&str, u32)] = &[
    ("nothing, a removed fence, READ_ONCE/WRITE_ONCE, relaxed", 0),
    ("an acquire, release or consume access", 2),
    (
        "smp_rmb(), smp_wmb(), an acquire or release fence, an acq_rel RMW",
        3,
    ),
    ("an acq_rel fence", 4),
    ("a seq_cst access", 6),
    (
        "smp_mb(), a fully ordered RMW, smp_mb__*(), smp_store_mb, a seq_cst fence",
        8,
    ),
    ("synchronize_rcu()", 20),
];

const fn m(
    name: &'static str,
    form: Form,
    strength: Strength,
    cost: u32,
    tag: &'static str,
) -> Member {
    Member {
        name,
        form,
        strength,
        cost,
        tag,
        only_current: false,
    }
}

const fn cur(
    name: &'static str,
    form: Form,
    strength: Strength,
    cost: u32,
    tag: &'static str,
) -> Member {
    Member {
        name,
        form,
        strength,
        cost,
        tag,
        only_current: true,
    }
}

const NOTHING: Member = m("", Form::Nothing, 0, 0, "no");

/// The kernel's fences.
pub const KERNEL_FENCES: &[Member] = &[
    NOTHING,
    m("smp_rmb", Form::Fence("smp_rmb()"), RR, 3, "rmb"),
    m("smp_wmb", Form::Fence("smp_wmb()"), WW, 3, "wmb"),
    m("smp_mb", Form::Fence("smp_mb()"), RR | WW | MB, 8, "mb"),
    cur(
        "synchronize_rcu",
        Form::Fence("synchronize_rcu()"),
        RR | WW | MB | GP,
        20,
        "sync-rcu",
    ),
    cur(
        "synchronize_rcu_expedited",
        Form::Fence("synchronize_rcu_expedited()"),
        RR | WW | MB | GP,
        20,
        "sync-rcu",
    ),
];

/// The kernel's special fences, which only a removal weakens.
pub const SPECIAL_FENCES: &[&str] = &[
    "smp_mb__before_atomic",
    "smp_mb__after_atomic",
    "smp_mb__after_spinlock",
    "smp_mb__after_unlock_lock",
    "smp_mb__after_srcu_read_unlock",
];

/// The kernel's loads of a location (`READ_ONCE(*p)`).
pub const KERNEL_LOADS: &[Member] = &[
    m("READ_ONCE", Form::Access("READ_ONCE({l})"), 0, 0, "once"),
    cur(
        "rcu_dereference",
        Form::Access("rcu_dereference({l})"),
        DEP,
        0,
        "rcu-deref",
    ),
    m(
        "smp_load_acquire",
        Form::Access("smp_load_acquire({p})"),
        DEP | ACQ,
        2,
        "acquire",
    ),
];

/// The kernel's stores to a location.
pub const KERNEL_STORES: &[Member] = &[
    m(
        "WRITE_ONCE",
        Form::Access("WRITE_ONCE({l}, {v})"),
        0,
        0,
        "once",
    ),
    m(
        "smp_store_release",
        Form::Access("smp_store_release({p}, {v})"),
        REL,
        2,
        "release",
    ),
    cur(
        "rcu_assign_pointer",
        Form::Access("rcu_assign_pointer({l}, {v})"),
        REL | DEP,
        2,
        "rcu-assign",
    ),
];

/// `smp_store_mb`, a `WRITE_ONCE` and a full fence.
pub const KERNEL_STORE_MB: &[Member] = &[
    m(
        "WRITE_ONCE",
        Form::Access("WRITE_ONCE({l}, {v})"),
        0,
        0,
        "once",
    ),
    cur(
        "smp_store_mb",
        Form::Access("smp_store_mb({l}, {v})"),
        SPECIAL,
        8,
        "store-mb",
    ),
];

/// The kernel's `atomic_t` reads.
pub const ATOMIC_READS: &[Member] = &[
    m(
        "atomic_read",
        Form::Access("atomic_read({p})"),
        0,
        0,
        "once",
    ),
    m(
        "atomic_read_acquire",
        Form::Access("atomic_read_acquire({p})"),
        ACQ,
        2,
        "acquire",
    ),
];

/// The kernel's `atomic_t` writes.
pub const ATOMIC_SETS: &[Member] = &[
    m(
        "atomic_set",
        Form::Access("atomic_set({p}, {v})"),
        0,
        0,
        "once",
    ),
    m(
        "atomic_set_release",
        Form::Access("atomic_set_release({p}, {v})"),
        REL,
        2,
        "release",
    ),
];

/// The orders of a kernel read-modify-write `B`: `B_relaxed`, `B_acquire`, `B_release`,
/// `B`; the members' names are the suffixes.
pub const KERNEL_RMW: &[Member] = &[
    m("_relaxed", Form::Rename("_relaxed"), 0, 0, "relaxed"),
    m("_acquire", Form::Rename("_acquire"), ACQ, 2, "acquire"),
    m("_release", Form::Rename("_release"), REL, 2, "release"),
    m("", Form::Rename(""), ACQ | REL | MB, 8, "full"),
];

/// C11's orders for a load.
pub const C11_LOADS: &[Member] = &[
    m(
        "memory_order_relaxed",
        Form::Order("memory_order_relaxed"),
        0,
        0,
        "relaxed",
    ),
    cur(
        "memory_order_consume",
        Form::Order("memory_order_consume"),
        CON,
        2,
        "consume",
    ),
    m(
        "memory_order_acquire",
        Form::Order("memory_order_acquire"),
        CON | ACQ,
        2,
        "acquire",
    ),
    m(
        "memory_order_seq_cst",
        Form::Order("memory_order_seq_cst"),
        CON | ACQ | SC,
        6,
        "sc",
    ),
];

/// C11's orders for a store.
pub const C11_STORES: &[Member] = &[
    m(
        "memory_order_relaxed",
        Form::Order("memory_order_relaxed"),
        0,
        0,
        "relaxed",
    ),
    m(
        "memory_order_release",
        Form::Order("memory_order_release"),
        REL,
        2,
        "release",
    ),
    m(
        "memory_order_seq_cst",
        Form::Order("memory_order_seq_cst"),
        REL | SC,
        6,
        "sc",
    ),
];

/// C11's orders for a read-modify-write (and a compare-exchange's success).
pub const C11_RMW: &[Member] = &[
    m(
        "memory_order_relaxed",
        Form::Order("memory_order_relaxed"),
        0,
        0,
        "relaxed",
    ),
    cur(
        "memory_order_consume",
        Form::Order("memory_order_consume"),
        CON,
        2,
        "consume",
    ),
    m(
        "memory_order_acquire",
        Form::Order("memory_order_acquire"),
        CON | ACQ,
        2,
        "acquire",
    ),
    m(
        "memory_order_release",
        Form::Order("memory_order_release"),
        REL,
        2,
        "release",
    ),
    m(
        "memory_order_acq_rel",
        Form::Order("memory_order_acq_rel"),
        CON | ACQ | REL,
        3,
        "acq-rel",
    ),
    m(
        "memory_order_seq_cst",
        Form::Order("memory_order_seq_cst"),
        CON | ACQ | REL | SC,
        6,
        "sc",
    ),
];

/// C11's fences (`atomic_thread_fence(...)`); a relaxed fence is no fence.
pub const C11_FENCES: &[Member] = &[
    NOTHING,
    m(
        "memory_order_acquire",
        Form::Order("memory_order_acquire"),
        ACQ,
        3,
        "acquire-fence",
    ),
    m(
        "memory_order_release",
        Form::Order("memory_order_release"),
        REL,
        3,
        "release-fence",
    ),
    m(
        "memory_order_acq_rel",
        Form::Order("memory_order_acq_rel"),
        ACQ | REL,
        4,
        "acq-rel-fence",
    ),
    m(
        "memory_order_seq_cst",
        Form::Order("memory_order_seq_cst"),
        ACQ | REL | SC,
        8,
        "sc-fence",
    ),
];

/// The sequentially consistent C11 calls without `_explicit`, rewritten with an order: a
/// load's, a store's, or a read-modify-write's family.
pub fn c11_implicit(name: &str) -> Option<&'static [Member]> {
    Some(match name {
        "atomic_load" => C11_IMPLICIT_LOADS,
        "atomic_store" => C11_IMPLICIT_STORES,
        "atomic_exchange" | "atomic_fetch_add" | "atomic_fetch_sub" | "atomic_fetch_or"
        | "atomic_fetch_xor" | "atomic_fetch_and" => C11_IMPLICIT_RMW,
        _ => return None,
    })
}

const C11_IMPLICIT_LOADS: &[Member] = &[
    m(
        "relaxed",
        Form::Explicit("memory_order_relaxed"),
        0,
        0,
        "relaxed",
    ),
    m(
        "acquire",
        Form::Explicit("memory_order_acquire"),
        CON | ACQ,
        2,
        "acquire",
    ),
    cur("", Form::Explicit(""), CON | ACQ | SC, 6, "sc"),
];

const C11_IMPLICIT_STORES: &[Member] = &[
    m(
        "relaxed",
        Form::Explicit("memory_order_relaxed"),
        0,
        0,
        "relaxed",
    ),
    m(
        "release",
        Form::Explicit("memory_order_release"),
        REL,
        2,
        "release",
    ),
    cur("", Form::Explicit(""), REL | SC, 6, "sc"),
];

const C11_IMPLICIT_RMW: &[Member] = &[
    m(
        "relaxed",
        Form::Explicit("memory_order_relaxed"),
        0,
        0,
        "relaxed",
    ),
    m(
        "acquire",
        Form::Explicit("memory_order_acquire"),
        CON | ACQ,
        2,
        "acquire",
    ),
    m(
        "release",
        Form::Explicit("memory_order_release"),
        REL,
        2,
        "release",
    ),
    m(
        "acq_rel",
        Form::Explicit("memory_order_acq_rel"),
        CON | ACQ | REL,
        3,
        "acq-rel",
    ),
    cur("", Form::Explicit(""), CON | ACQ | REL | SC, 6, "sc"),
];

/// Whether `a` is strictly weaker than `b`.
pub fn weaker(a: Strength, b: Strength) -> bool {
    a != b && a & b == a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_family_is_ordered_by_inclusion_and_cost_grows_with_strength() {
        for family in [
            KERNEL_FENCES,
            KERNEL_LOADS,
            KERNEL_STORES,
            KERNEL_STORE_MB,
            ATOMIC_READS,
            ATOMIC_SETS,
            KERNEL_RMW,
            C11_LOADS,
            C11_STORES,
            C11_RMW,
            C11_FENCES,
            C11_IMPLICIT_LOADS,
            C11_IMPLICIT_STORES,
            C11_IMPLICIT_RMW,
        ] {
            for a in family {
                for b in family {
                    if weaker(a.strength, b.strength) {
                        assert!(a.cost <= b.cost, "{} is weaker than {}", a.tag, b.tag);
                    }
                }
            }
        }
        assert!(weaker(0, RR | WW | MB));
        assert!(!weaker(RR, WW));
    }
}
