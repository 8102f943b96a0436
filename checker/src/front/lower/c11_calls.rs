//! Lowering a call of one of herd7's C11 primitives (see [`crate::front::c11`] for the
//! events of each): the C11 half of the calls a thread's lowering meets.

use super::{LowerError, ThreadLowering, err, sp};
use crate::exec::event::{Tag, Tags, Value};
use crate::front::c11;
use crate::front::program::{BinOp, Expr, Instr, Op, RmwTags, RmwWrite};
use hazmat_litmus::ast;

impl ThreadLowering<'_> {
    /// A call of a C11 primitive (see [`crate::front::c11`] for the events of each).
    pub(super) fn c11_call(
        &mut self,
        prim: c11::Primitive,
        args: &[ast::Expr],
        span: ast::Span,
        want_value: bool,
        out: &mut Vec<Instr>,
    ) -> Result<Option<Expr>, LowerError> {
        let shape = prim.shape;
        let arity = shape.operands() + if prim.explicit { shape.orders() } else { 0 };
        if args.len() != arity {
            return err(
                format!(
                    "`{}` takes {arity} argument{}, not {}",
                    prim.name,
                    if arity == 1 { "" } else { "s" },
                    args.len()
                ),
                span,
            );
        }
        // A word of herd7's grammar that gives a value may stand as a statement; a macro
        // of `c11.def` may not.
        if want_value != shape.gives_value() && (want_value || !prim.grammar) {
            return err(
                if want_value {
                    format!(
                        "`{}` is a statement in herd7 and gives no value; call it on its own",
                        prim.name
                    )
                } else {
                    format!(
                        "`{0}` gives a value, and herd7 takes it only within an expression: \
                         write `r = {0}(...);` or `(void){0}(...);`",
                        prim.name
                    )
                },
                span,
            );
        }
        // The orders, after the operands; the parser let only order words stand there.
        let mut orders = Vec::new();
        for a in &args[shape.operands()..] {
            match &a.kind {
                ast::ExprKind::Ident(id) if c11::order(&id.name).is_some() => {
                    orders.extend(c11::order(&id.name));
                }
                _ => return err("herd7 takes a memory order here", a.span),
            }
        }
        let first = orders.first().copied().unwrap_or(Tag::SeqCst);
        let stmt = self.stmt;
        let span2 = sp(span);
        let emit = |op: Op, out: &mut Vec<Instr>| {
            out.push(Instr {
                op,
                span: span2,
                stmt,
            })
        };
        Ok(match shape {
            c11::Shape::Load => {
                let addr = self.expr(&args[0], out)?;
                let t = self.temp();
                let tags = Tags::of(&[first]);
                emit(
                    Op::Load {
                        dst: Some(t),
                        addr,
                        tags,
                        deref: false,
                    },
                    out,
                );
                Some(Expr::Reg(t))
            }
            c11::Shape::Store => {
                let addr = self.expr(&args[0], out)?;
                let val = self.expr(&args[1], out)?;
                let tags = Tags::of(&[first]);
                emit(
                    Op::Store {
                        addr,
                        val,
                        tags,
                        write_back: false,
                    },
                    out,
                );
                None
            }
            c11::Shape::Fence => {
                emit(
                    Op::Fence {
                        tags: Tags::of(&[first]),
                    },
                    out,
                );
                None
            }
            c11::Shape::Exchange | c11::Shape::Fetch(_) => {
                let addr = self.expr(&args[0], out)?;
                let v = self.expr(&args[1], out)?;
                let t = self.temp();
                let write = match shape {
                    c11::Shape::Fetch(op) => RmwWrite::Apply(op, v),
                    _ => RmwWrite::Set(v),
                };
                emit(
                    Op::Rmw {
                        dst: Some(t),
                        addr,
                        write,
                        ret_new: false,
                        equation: true,
                        tags: RmwTags::uniform(c11::rmw_tags(first)),
                    },
                    out,
                );
                Some(Expr::Reg(t))
            }
            c11::Shape::CompareExchange { strong } => {
                let failure = orders.get(1).copied().unwrap_or(Tag::SeqCst);
                let addr = self.expr(&args[0], out)?;
                let expected_addr = self.expr(&args[1], out)?;
                let desired = self.expr(&args[2], out)?;
                // herd7 reads the expected value first, with a plain read.
                let expected = self.temp();
                emit(
                    Op::Load {
                        dst: Some(expected),
                        addr: expected_addr.clone(),
                        tags: Tags::NONE,
                        deref: false,
                    },
                    out,
                );
                let (ok, old) = (self.temp(), self.temp());
                emit(
                    Op::CompareExchange {
                        ok,
                        old,
                        addr,
                        expected: Expr::Reg(expected),
                        desired,
                        success: c11::rmw_tags(first),
                        failure: Tags::of(&[failure]),
                        strong,
                    },
                    out,
                );
                // A failure writes the value read back at the expected address, with a
                // plain write; `ok` is a constant of each path, so the branch is no
                // dependency.
                let write_back = Instr {
                    op: Op::Store {
                        addr: expected_addr,
                        val: Expr::Reg(old),
                        tags: Tags::NONE,
                        write_back: true,
                    },
                    span: span2,
                    stmt,
                };
                emit(
                    Op::If {
                        cond: Expr::Binary(
                            BinOp::Eq,
                            Box::new(Expr::Reg(ok)),
                            Box::new(Expr::Const(Value::Int(0))),
                        ),
                        then: vec![write_back],
                        els: Vec::new(),
                    },
                    out,
                );
                Some(Expr::Reg(ok))
            }
        })
    }
}
