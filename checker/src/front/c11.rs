//! The C11 dialect: herd7's C11 primitives, and the events each produces.
//!
//! herd7's C front end knows C11's atomics as words of its grammar, whatever macro file it
//! reads: `atomic_load_explicit`, `atomic_store_explicit`, `atomic_exchange_explicit`,
//! `atomic_fetch_{add,sub,or,xor,and}_explicit`, `atomic_compare_exchange_{strong,weak}`
//! and their `_explicit` forms, and `atomic_thread_fence`, each with its `memory_order_*`
//! arguments.
//! Its C11 macro file (`c11.def`, which `-macros c11.def` reads) adds the forms without
//! `_explicit`, sequentially consistent: `atomic_load`, `atomic_store`,
//! `atomic_exchange`, `atomic_fetch_add`, ...; those exist only in the C11 [`Dialect`],
//! since the kernel's macros give `atomic_fetch_add` another meaning (and its operands in
//! the other order).
//! `c11.def` also has the kernel's RCU markers (`rcu_read_lock()`, `synchronize_rcu()`...),
//! the same fences as in the kernel's file (`KERNEL_FENCES`); no C11 model orders by them.
//!
//! The events, as herd7's C semantics builds them:
//! - a load or a store is one access carrying its order; a plain access (`*x`, `r = *x`)
//!   carries none, which makes it non-atomic (cat's `NA`);
//! - an exchange or a fetch operation is one read-modify-write: herd7 makes it a single
//!   event, both read and write; hazmat makes it a read and a write related by `rmw`, both
//!   carrying [`Tag::Rmw`] and the order, which the RC11 model reads as one event
//!   (see `models/rc11`);
//! - a compare-exchange first reads the expected value at its address (a plain read); a
//!   success is then a read-modify-write with the success order that reads the expected
//!   value and writes the desired one, and returns 1; a failure is a lone read with the
//!   failure order (not an RMW) of another value, or of any value for the weak form, whose
//!   value a plain write stores back at the expected address, and returns 0;
//! - a fence carries its order.
//!
//! Outside the C11 dialect, the grammar's words mean the same: the loads, stores and fences
//! keep their orders, which the kernel's model ignores as herd7's does, and a
//! read-modify-write is herd7's single event, which a model file reads as such (see
//! `models/cat/merge`) and which leaves the kernel's model no execution to allow (the
//! event reads from a write coherence-before it, so it is from-read before itself).
//!
//! A word of the grammar that gives a value may stand as a statement of its own, its value
//! dropped (`atomic_fetch_add_explicit(x, 1, memory_order_relaxed);`); a macro of
//! `c11.def` that gives one may not (herd7's "Unknown macro").

use crate::exec::event::{Tag, Tags};
use crate::front::program::BinOp;

/// Which macro file gives the test's calls their meaning, as herd7's `-macros` option
/// chooses it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dialect {
    /// The kernel's `linux-kernel.def`: the kernel's primitives, and C11's grammar words.
    #[default]
    Kernel,
    /// herd7's `c11.def`: C11's grammar words and their sequentially consistent forms.
    C11,
    /// No macro file at all (herd7 run without `-macros`): C11's grammar words alone, read
    /// as in the C11 dialect; every other call is unknown.
    Bare,
}

impl Dialect {
    /// Whether the calls are read as herd7's C11 semantics reads them, each
    /// read-modify-write one event, both read and write, for the models to see.
    pub fn is_c11(self) -> bool {
        matches!(self, Dialect::C11 | Dialect::Bare)
    }
}

/// What a C11 primitive does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// `(X, mo)`: a load; gives the value read.
    Load,
    /// `(X, V, mo)`: a store.
    Store,
    /// `(X, V, mo)`: an exchange; gives the old value.
    Exchange,
    /// `(X, V, mo)`: a fetch operation; gives the old value.
    Fetch(BinOp),
    /// `(X, E, V, success, failure)`: a compare-exchange; gives 1 or 0.
    CompareExchange {
        /// Whether it fails only when the value read differs from the expected one.
        strong: bool,
    },
    /// `(mo)`: a fence.
    Fence,
}

impl Shape {
    /// The arguments besides the orders.
    pub(crate) fn operands(self) -> usize {
        match self {
            Shape::Fence => 0,
            Shape::Load => 1,
            Shape::Store | Shape::Exchange | Shape::Fetch(_) => 2,
            Shape::CompareExchange { .. } => 3,
        }
    }

    /// The number of orders the `_explicit` form takes.
    pub(crate) fn orders(self) -> usize {
        match self {
            Shape::CompareExchange { .. } => 2,
            _ => 1,
        }
    }

    /// Whether the primitive gives a value (and is then taken only within an expression).
    pub(crate) fn gives_value(self) -> bool {
        !matches!(self, Shape::Store | Shape::Fence)
    }
}

/// One C11 primitive.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Primitive {
    /// Its name.
    pub(crate) name: &'static str,
    /// What it does.
    pub(crate) shape: Shape,
    /// Whether it takes its orders as arguments; the others are sequentially consistent.
    pub(crate) explicit: bool,
    /// Whether it is a word of herd7's grammar, rather than a macro of `c11.def`: a word
    /// that gives a value may stand as a statement of its own, a macro may not.
    pub(crate) grammar: bool,
}

use BinOp::{Add, And, Or, Sub, Xor};

const fn p(name: &'static str, shape: Shape, explicit: bool) -> Primitive {
    Primitive {
        name,
        shape,
        explicit,
        grammar: true,
    }
}

const fn m(name: &'static str, shape: Shape) -> Primitive {
    Primitive {
        name,
        shape,
        explicit: false,
        grammar: false,
    }
}

/// The words of herd7's grammar, known in every dialect.
const GRAMMAR: &[Primitive] = &[
    p("atomic_load_explicit", Shape::Load, true),
    p("atomic_store_explicit", Shape::Store, true),
    p("atomic_exchange_explicit", Shape::Exchange, true),
    p("atomic_fetch_add_explicit", Shape::Fetch(Add), true),
    p("atomic_fetch_sub_explicit", Shape::Fetch(Sub), true),
    p("atomic_fetch_or_explicit", Shape::Fetch(Or), true),
    p("atomic_fetch_xor_explicit", Shape::Fetch(Xor), true),
    p("atomic_fetch_and_explicit", Shape::Fetch(And), true),
    p(
        "atomic_compare_exchange_strong_explicit",
        Shape::CompareExchange { strong: true },
        true,
    ),
    p(
        "atomic_compare_exchange_weak_explicit",
        Shape::CompareExchange { strong: false },
        true,
    ),
    p(
        "atomic_compare_exchange_strong",
        Shape::CompareExchange { strong: true },
        false,
    ),
    p(
        "atomic_compare_exchange_weak",
        Shape::CompareExchange { strong: false },
        false,
    ),
    p("atomic_thread_fence", Shape::Fence, true),
    // herd7's own names of the compare-exchanges.
    p("SCAS", Shape::CompareExchange { strong: true }, false),
    p("WCAS", Shape::CompareExchange { strong: false }, false),
];

/// The sequentially consistent forms `c11.def` defines.
const MACROS: &[Primitive] = &[
    m("atomic_load", Shape::Load),
    m("atomic_store", Shape::Store),
    m("atomic_exchange", Shape::Exchange),
    m("atomic_fetch_add", Shape::Fetch(Add)),
    m("atomic_fetch_sub", Shape::Fetch(Sub)),
    m("atomic_fetch_or", Shape::Fetch(Or)),
    m("atomic_fetch_xor", Shape::Fetch(Xor)),
    m("atomic_fetch_and", Shape::Fetch(And)),
];

/// The kernel's RCU markers that `c11.def` defines too, as the same fences.
pub(crate) const KERNEL_FENCES: &[&str] = &[
    "rcu_read_lock",
    "rcu_read_unlock",
    "synchronize_rcu",
    "synchronize_rcu_expedited",
];

/// Finds a C11 primitive by name, in `dialect`.
pub(crate) fn lookup(name: &str, dialect: Dialect) -> Option<Primitive> {
    let macros = match dialect {
        Dialect::Kernel | Dialect::Bare => &[][..],
        Dialect::C11 => MACROS,
    };
    GRAMMAR
        .iter()
        .chain(macros)
        .find(|p| p.name == name)
        .copied()
}

/// The names of the C11 primitives of `dialect`.
pub(crate) fn names(dialect: Dialect) -> impl Iterator<Item = &'static str> {
    let macros = match dialect {
        Dialect::Kernel | Dialect::Bare => &[][..],
        Dialect::C11 => MACROS,
    };
    GRAMMAR.iter().chain(macros).map(|p| p.name)
}

/// The tag of a `memory_order_*` word.
pub(crate) fn order(word: &str) -> Option<Tag> {
    Some(match word {
        "memory_order_relaxed" => Tag::Rlx,
        "memory_order_consume" => Tag::Con,
        "memory_order_acquire" => Tag::Acq,
        "memory_order_release" => Tag::Rel,
        "memory_order_acq_rel" => Tag::AcqRel,
        "memory_order_seq_cst" => Tag::SeqCst,
        _ => return None,
    })
}

/// Whether an event with `tags` is half of a C11 read-modify-write, which herd7 builds as
/// one event, both read and write: it carries [`Tag::Rmw`] and a memory order.
pub(crate) fn is_single_event(tags: Tags) -> bool {
    tags.has(Tag::Rmw) && tags.iter().any(Tag::is_c11_order)
}

/// The tags of the read and the write of a successful compare-exchange with `order`, as
/// herd7 gives its single event: the order itself, on both.
pub(crate) fn rmw_tags(order: Tag) -> Tags {
    Tags::of(&[Tag::Rmw, order])
}
