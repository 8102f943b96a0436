//! herd7's internal instructions written in thread code: the shapes of the primitive table
//! they lower to, and the annotations their events carry.
//!
//! The kernel's macros expand to these instructions (`READ_ONCE(X)` is `__load{once}(X)`,
//! `atomic_add_unless(X,V,W)` is `__atomic_add_unless{mb}(X,V,W)`), and herd7's grammar
//! knows them whatever macro file it reads, so a test may call them directly:
//! `__load{a}(*x)`, `__store{a}(*x, v)`, `__fence{a}`, `__xchg{a}(x, v)`,
//! `__cmpxchg{a}(x, old, new)`, `__atomic_op{a}(x, op, v)` (braces optional),
//! `__atomic_op_return{a}(x, op, v)`, `__atomic_fetch_op{a}(x, op, v)`,
//! `__atomic_add_unless{a}(x, v, u)`, `__srcu{srcu-lock}(s)`, `__srcu{srcu-unlock}(s, v)`,
//! `__srcu{sync-srcu}(s)`, and the spinlock words `__lock(l)`, `__unlock(l)`,
//! `__trylock(l)`, `__islocked(l)`.
//! Each lowers as the kernel's macro that expands to it does, with the events annotated by
//! the annotations written; a read-modify-write's events carry [`Tag::Rmw`] too, and stay
//! two events, a read and a write, as herd7 builds them.
//!
//! C11's mutexes (`mtx_lock(m)`, `mtx_unlock(m)`), also words of herd7's grammar, are
//! refused with what herd7 makes of them (`c11_mutex`).
//!
//! `__load{deref}(*x)` and `__load{lderef}(*x)` (the `rcu_dereference` and
//! `lockless_dereference` of the kernel's files of 2017) are herd7's own: not a read so
//! annotated, but a read annotated `once` (in lower case, whatever the model's spelling)
//! followed by an `rb_dep` fence, which herd7's C semantics sequence by control inside the
//! instruction, and whose value carries no `addr`, `data` or `ctrl` dependency on the read
//! (see [`crate::front::program::Op::Load`]); `deref` with another annotation, or on
//! another instruction, is an annotation the event carries, as any other word.
//!
//! An event carries the annotations written, spelled as written, which herd7 matches with
//! the names of the bell file's sets exactly, case included, whatever the variant: the
//! kernel's current files spell their accesses and full fence in capitals (`ONCE`, `MB`,
//! `rmb`, `rcu-lock`), the older ones in lower case (`once`, `mb`), and an event keeps the
//! one written ([`Tag::Once`] or [`Tag::OnceLower`]).
//! Any other word (the same in another case, `Once`, `RMB`, a word of a user's own model,
//! a C11 order, to which herd7 gives the annotation, not the order) is an annotation of its
//! own ([`Tags::annotation`]): a bell that names it reads it, and to every other model the
//! access is plain.

use crate::exec::event::{Tag, Tags};
use crate::front::primitive::{Primitive, Returns, Shape};
use crate::front::program::BinOp;
use hazmat_litmus::ast::{self, AtomicOp, Span};

/// An instruction lowered to a shape of the primitive table: the primitive, and for each
/// argument the shape takes, in the shape's order, the index of the argument written.
pub(crate) struct Lowered {
    /// The shape and the annotations.
    pub(crate) prim: Primitive,
    /// The arguments in the shape's order.
    pub(crate) args: Vec<usize>,
}

/// The spinlock words of herd7's grammar, called like macros: `__lock(l)`.
pub(crate) fn lock_word(name: &str) -> Option<Primitive> {
    let shape = match name {
        "__lock" => Shape::Lock,
        "__unlock" => Shape::Unlock,
        "__trylock" => Shape::Trylock,
        "__islocked" => Shape::IsLocked,
        _ => return None,
    };
    Some(Primitive {
        name: "",
        shape,
        tags: Tags::NONE,
        lower: false,
    })
}

/// Why a spinlock word of herd7's grammar (`__lock(l)`, `__unlock(l)`, ...) is refused in
/// herd7's C11 dialect.
///
/// herd7 makes it lock events that are neither reads nor writes to a C11 model: `rc11.cat`
/// leaves them alone (they order nothing and race with nothing), and the models of
/// `c11_base.cat` order them by a lock order of their own; hazmat's spinlock events are
/// the kernel's (`lock.cat`'s), which would give other answers there.
pub(crate) fn lock_word_in_c11(name: &str) -> String {
    format!(
        "`{name}` in herd7's C11 dialect: herd7 makes it lock events that are neither reads \
         nor writes to a C11 model, which `rc11.cat` leaves alone (they order nothing and \
         race with nothing) and its other C11 models order by a lock order they choose; \
         hazmat has only the kernel's spinlocks, which would answer otherwise, so it refuses \
         them here"
    )
}

/// Why a C11 mutex call (`mtx_lock(m)`, `lock(m)`, `mtx_unlock(m)`, `unlock(m)`, words of
/// herd7's grammar) is refused, or `None` for another name.
///
/// herd7 makes each one event on the mutex, a lock that always succeeds or an unlock, which
/// `rc11.cat` leaves alone and the models of `c11_base.cat` order by a lock order they
/// choose among all (`generate_orders` in `c11_los.cat`); hazmat builds no such event.
pub(crate) fn c11_mutex(name: &str) -> Option<String> {
    let unlock = match name {
        "mtx_lock" | "lock" => false,
        "mtx_unlock" | "unlock" => true,
        _ => return None,
    };
    Some(format!(
        "`{name}` is a C11 mutex {}: herd7 makes it one {} event on the mutex, which \
         `rc11.cat` leaves alone and its other C11 models order by a lock order they choose \
         (`c11_los.cat`); hazmat has no C11 mutex events (the kernel's `spin_lock()` and \
         `spin_unlock()`, herd7's `__lock()` and `__unlock()`, are spinlocks it has)",
        if unlock { "unlock" } else { "lock" },
        if unlock { "unlock" } else { "lock" },
    ))
}

/// The instruction `func{annotations}(args)`, with `op` its operator if it has one and
/// `n` arguments besides.
pub(crate) fn lower(
    func: &ast::Ident,
    annotations: &[ast::Ident],
    op: Option<AtomicOp>,
    n: usize,
) -> Result<Lowered, (String, Span)> {
    if func.name == "__load"
        && let [a] = annotations
        && is_deref(&a.name)
    {
        return Ok(Lowered {
            prim: Primitive {
                name: "",
                shape: Shape::Load {
                    lvalue: true,
                    deref: true,
                },
                tags: Tags::NONE,
                lower: true,
            },
            args: (0..n).collect(),
        });
    }
    let mut tags = Tags::NONE;
    for a in annotations {
        tags = Tags::from_bits(tags.bits() | tag(a)?.bits());
    }
    let rmw = tags.with(Tag::Rmw);
    let op = op.map(|o| match o {
        AtomicOp::Add => BinOp::Add,
        AtomicOp::Sub => BinOp::Sub,
        AtomicOp::And => BinOp::And,
        AtomicOp::Or => BinOp::Or,
        AtomicOp::Xor => BinOp::Xor,
        AtomicOp::AndNot => BinOp::AndNot,
    });
    let in_order = (0..n).collect();
    let (shape, tags, args) = match (func.name.as_str(), op) {
        ("__load", _) => (
            Shape::Load {
                lvalue: true,
                deref: false,
            },
            tags,
            in_order,
        ),
        ("__store", _) => (Shape::Store { lvalue: true }, tags, in_order),
        ("__fence", _) => (Shape::Fence, tags, in_order),
        ("__xchg", _) => (Shape::Xchg, rmw, in_order),
        ("__cmpxchg", _) => (Shape::Cmpxchg, rmw, in_order),
        ("__atomic_add_unless", _) => (Shape::AddUnless, rmw, in_order),
        (name @ ("__atomic_op" | "__atomic_op_return" | "__atomic_fetch_op"), Some(op)) => {
            let returns = match name {
                "__atomic_op" => Returns::Nothing,
                "__atomic_op_return" => Returns::New,
                _ => Returns::Old,
            };
            // The table's operations take the operand first, then the location.
            (
                Shape::Op {
                    op,
                    constant: None,
                    returns,
                },
                rmw,
                vec![1, 0],
            )
        }
        ("__srcu", _) => {
            let which = [Tag::SrcuLock, Tag::SrcuUnlock, Tag::SyncSrcu]
                .into_iter()
                .find(|t| tags == Tags::of(&[*t]));
            let shape = match (which, n) {
                (Some(Tag::SrcuLock), 1) => Shape::SrcuLock,
                (Some(Tag::SrcuUnlock), 2) => Shape::SrcuUnlock,
                (Some(Tag::SyncSrcu), 1) => Shape::SyncSrcu,
                _ => {
                    return Err((
                        "hazmat takes `__srcu` as `__srcu{srcu-lock}(s)`, \
                         `__srcu{srcu-unlock}(s, v)` or `__srcu{sync-srcu}(s)`, the forms the \
                         kernel's macros expand to"
                            .to_string(),
                        func.span,
                    ));
                }
            };
            (shape, tags, in_order)
        }
        (name, _) => {
            return Err((
                format!("`{name}` is not one of herd7's internal instructions"),
                func.span,
            ));
        }
    };
    Ok(Lowered {
        prim: Primitive {
            name: "",
            shape,
            tags,
            // herd7's `lkmmv1` reading knows `mb`, `acquire` and `release` only in lower
            // case, as the code writes them here.
            lower: annotations
                .iter()
                .all(|a| !a.name.chars().any(|c| c.is_ascii_uppercase())),
        },
        args,
    })
}

/// The annotation written `name`, as herd7 keeps it on the event: the kernel's annotation
/// so spelled exactly ([`Tag::spelled`]: `ONCE`, `once`, `rmb`...), whatever the model's
/// variant, since the bell, not the variant, says which spelling it reads; any other word
/// (`Once`, `RMB`, `foo`) is an annotation of its own, which a bell naming it exactly reads
/// and every other model takes for none ([`Tags::annotation`]). An error says why hazmat
/// cannot carry it.
pub(crate) fn annotation(name: &str) -> Result<Tags, String> {
    Tags::annotation(name).ok_or_else(|| {
        format!(
            "hazmat carries at most {} annotations besides the kernel's in one run, and \
             `{name}` would be one more",
            crate::exec::event::MAX_OTHER_ANNOTATIONS
        )
    })
}

/// The annotation `a` ([`annotation`]), or the error at its place.
fn tag(a: &ast::Ident) -> Result<Tags, (String, Span)> {
    annotation(&a.name).map_err(|m| (m, a.span))
}

/// Whether herd7 reads the annotation of a `__load` as its dependent load: `deref` or
/// `lderef`, exactly (herd7 compares the strings).
pub(crate) fn is_deref(annotation: &str) -> bool {
    matches!(annotation, "deref" | "lderef")
}

/// The annotations of the read of `__load{deref}`: herd7 annotates it `once`, in lower
/// case whatever the model, which a bell naming `'once` reads (the kernel's before
/// `lkmmv2`) and one naming `'ONCE` does not (today's, even without its variant), to which
/// it is a plain read ([`Tag::OnceLower`]).
pub(crate) fn deref_read_tags() -> Tags {
    Tags::of(&[Tag::OnceLower])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(name: &str) -> ast::Ident {
        ast::Ident::new(name, Span::DUMMY)
    }

    #[test]
    fn instructions_lower_as_the_kernels_macros_that_expand_to_them() {
        let unless = lower(&id("__atomic_add_unless"), &[id("MB")], None, 3).expect("lowers");
        assert_eq!(unless.prim.shape, Shape::AddUnless);
        assert_eq!(unless.prim.tags, Tags::of(&[Tag::Rmw, Tag::Mb]));
        // Each spelling is its own annotation, whatever the variant; another case is one
        // no kernel's model reads.
        let lower_case = lower(&id("__xchg"), &[id("mb")], None, 2);
        assert_eq!(
            lower_case.expect("lowers").prim.tags,
            Tags::of(&[Tag::Rmw, Tag::MbLower])
        );
        // Another word is an annotation of its own, which only a bell naming it reads.
        let mixed = lower(&id("__load"), &[id("Once")], None, 1);
        let once = Tags::annotation("Once").expect("room for a word");
        assert_eq!(mixed.expect("lowers").prim.tags, once);
        assert!(!once.has(Tag::Once) && !once.has(Tag::OnceLower) && once.has_other());
        let capitals = lower(&id("__fence"), &[id("RMB")], None, 0);
        assert_eq!(capitals.expect("lowers").prim.tags.other_words(), ["RMB"]);
        let add = lower(
            &id("__atomic_op"),
            &[id("NORETURN")],
            Some(AtomicOp::Add),
            2,
        )
        .expect("lowers");
        assert_eq!(add.args, vec![1, 0]);
        assert_eq!(add.prim.tags, Tags::of(&[Tag::Rmw, Tag::Noreturn]));
        let fence = lower(&id("__fence"), &[id("rcu-lock")], None, 0).expect("lowers");
        assert_eq!(fence.prim.tags, Tags::of(&[Tag::RcuLock]));
        let rb_dep = lower(&id("__fence"), &[id("rb_dep")], None, 0).expect("lowers");
        assert_eq!(rb_dep.prim.tags, Tags::of(&[Tag::RbDep]));
    }

    /// `__load{deref}` and `__load{lderef}` are a load of their own shape, whose read is
    /// `once` in lower case, whatever the variant.
    #[test]
    fn a_dependent_load_is_a_once_read_and_an_rb_dep_fence() {
        for annotation in ["deref", "lderef"] {
            let l = lower(&id("__load"), &[id(annotation)], None, 1).expect("lowers");
            assert_eq!(
                l.prim.shape,
                Shape::Load {
                    lvalue: true,
                    deref: true
                }
            );
            assert_eq!(l.prim.tags, Tags::NONE);
        }
        assert_eq!(deref_read_tags(), Tags::of(&[Tag::OnceLower]));
        // With another annotation, `deref` is one the event carries, as any word.
        let both = lower(&id("__load"), &[id("deref"), id("once")], None, 1).expect("lowers");
        assert_eq!(
            both.prim.shape,
            Shape::Load {
                lvalue: true,
                deref: false
            }
        );
        assert!(both.prim.tags.has(Tag::OnceLower));
        assert_eq!(both.prim.tags.other_words(), ["deref"]);
    }

    /// herd7's C11 mutexes, and its spinlock words in the C11 dialect, are refused at the
    /// call, saying what herd7 makes of them; the spinlock words stay the kernel's
    /// spinlocks in the kernel's dialect.
    #[test]
    fn locks_that_are_not_the_kernels_are_refused_at_the_call() {
        use crate::front::lower::{Dialect, lower_with_warnings};
        let test = |call: &str| {
            let src = format!(
                "C t\n{{ int m = 0; }}\nP0(int *m, atomic_int *x) {{\n{call}(m);\n\
                 atomic_store_explicit(x, 1, memory_order_relaxed);\n}}\n\
                 exists (x=1)\n"
            );
            let at = src.find(&format!("{call}(m)")).expect("written");
            (hazmat_litmus::parse(&src).expect("parses"), at)
        };
        for (call, dialect, says) in [
            ("mtx_lock", Dialect::C11, "C11 mutex lock"),
            ("mtx_unlock", Dialect::Kernel, "C11 mutex unlock"),
            ("__lock", Dialect::C11, "`rc11.cat` leaves alone"),
            ("__unlock", Dialect::C11, "`rc11.cat` leaves alone"),
        ] {
            let (t, at) = test(call);
            let e = lower_with_warnings(&t, dialect).expect_err("refused");
            assert!(e.message.contains(says), "{call}: {}", e.message);
            assert_eq!(e.span.start, at, "{call}");
        }
        assert!(lower_with_warnings(&test("__lock").0, Dialect::Kernel).is_ok());
    }

    #[test]
    fn what_hazmat_cannot_express_is_refused() {
        for (func, annotation, n, says) in [
            ("__srcu", "mb", 1, "`__srcu{srcu-lock}(s)`"),
            ("__srcu", "srcu_lock", 1, "`__srcu{srcu-lock}(s)`"),
            (
                "__frob",
                "once",
                1,
                "not one of herd7's internal instructions",
            ),
        ] {
            let Err((message, _)) = lower(&id(func), &[id(annotation)], None, n) else {
                panic!("{func}{{{annotation}}} lowers");
            };
            assert!(message.contains(says), "{message}");
        }
    }
}
