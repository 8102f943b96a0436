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
//! hazmat's events carry the kernel's annotations only (the words of `linux-kernel.bell`):
//! another annotation, a C11 order among them (herd7 would give such an event the
//! annotation, not the order), is refused with its place.

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

/// The instruction `func{annotations}(args)`, with `op` its operator if it has one and
/// `n` arguments besides.
pub(crate) fn lower(
    func: &ast::Ident,
    annotations: &[ast::Ident],
    op: Option<AtomicOp>,
    n: usize,
) -> Result<Lowered, (String, Span)> {
    let mut tags = Tags::NONE;
    for a in annotations {
        tags = tags.with(tag(a)?);
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
        ("__load", _) => (Shape::Load { lvalue: true }, tags, in_order),
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

/// The tag of an annotation: one of the kernel's, by its name in `linux-kernel.bell` (in
/// any case, as herd7 matches them).
fn tag(a: &ast::Ident) -> Result<Tag, (String, Span)> {
    Tag::ALL
        .into_iter()
        .filter(|t| !matches!(t, Tag::Init | Tag::Rmw) && !t.is_c11_order())
        .filter(|t| {
            !matches!(
                t,
                Tag::Lkr | Tag::Lkw | Tag::Ul | Tag::Lf | Tag::Rl | Tag::Ru
            )
        })
        .find(|t| t.name().eq_ignore_ascii_case(&a.name))
        .ok_or_else(|| {
            (
                format!(
                    "hazmat's events carry the kernel's annotations only (`once`, `mb`, \
                     `acquire`, `release`, `rcu-lock`, ...), not `{}`",
                    a.name
                ),
                a.span,
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(name: &str) -> ast::Ident {
        ast::Ident::new(name, Span::DUMMY)
    }

    #[test]
    fn instructions_lower_as_the_kernels_macros_that_expand_to_them() {
        let unless = lower(&id("__atomic_add_unless"), &[id("mb")], None, 3).expect("lowers");
        assert_eq!(unless.prim.shape, Shape::AddUnless);
        assert_eq!(unless.prim.tags, Tags::of(&[Tag::Rmw, Tag::Mb]));
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
    }

    #[test]
    fn what_hazmat_cannot_express_is_refused() {
        for (func, annotation, n, says) in [
            ("__load", "deref", 1, "not `deref`"),
            ("__xchg", "rlx", 2, "not `rlx`"),
            ("__srcu", "mb", 1, "`__srcu{srcu-lock}(s)`"),
        ] {
            let Err((message, _)) = lower(&id(func), &[id(annotation)], None, n) else {
                panic!("{func}{{{annotation}}} lowers");
            };
            assert!(message.contains(says), "{message}");
        }
    }
}
