//! Thread code's expressions: binary operators by precedence climbing (with the C operators
//! herd7 lacks refused by name), casts, dereferences, primaries (numbers, names, calls and
//! parentheses), and the memory orders of C11 primitives.

use nom::Err;
use nom::Parser as _;
use nom::combinator::cut;

use super::Parser;
use super::lex::{
    PError, PResult, commit_err, fail, failure, failure_msg, is_ident_start, reserved_in_code,
};
use crate::ast::*;
use crate::dialect::{self, Place};

/// The operator of `e` if it is a comparison, for a message; `==` otherwise.
fn comparison_op(e: &Expr) -> &'static str {
    match &e.kind {
        ExprKind::Binary(op, ..) if op.is_comparison() => op.as_str(),
        _ => "==",
    }
}

/// The message for `r0-1`, where `at` is the `-` and `rest` the digits after it.
fn glued_minus(src: &str, lhs: &Expr, at: &str, rest: &str) -> String {
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let number = &at[..1 + digits];
    let lhs_text = src
        .get(lhs.span.start..lhs.span.end)
        .filter(|t| !t.contains('\n') && t.len() <= 24)
        .unwrap_or("x");
    format!(
        "herd7 reads `{number}` here as a negative number, not a subtraction: put a space \
         after the `-`, as in `{lhs_text} - {}`",
        &number[1..]
    )
}

/// Whether herd7 may read `name(...)` as a call: any word but its keywords, type words and
/// thread names.
fn is_callable(name: &str) -> bool {
    !dialect::begins_code_type(name)
        && !matches!(name, "if" | "else" | "while" | "regions")
        && !dialect::is_thread_word(name)
}

impl<'a> Parser<'a> {
    /// `expr ::= unary (binop unary)*`, by precedence climbing over herd7's levels (see
    /// [`BinaryOp::precedence`]).
    pub(crate) fn expr(&self, i: &'a str) -> PResult<'a, Expr> {
        self.binary(i, 1)
    }

    fn binary(&self, i: &'a str, min_prec: u8) -> PResult<'a, Expr> {
        self.chain(|| self.binary_chain(i, min_prec))
    }

    fn binary_chain(&self, i: &'a str, min_prec: u8) -> PResult<'a, Expr> {
        let (mut i, mut lhs) = self.unary(i)?;
        // Whether `lhs` is a comparison built by this loop, which no comparison may follow.
        let mut compared = false;
        while let Some((rest, op, at)) = self.binop(i)? {
            let p = op.precedence();
            if p < min_prec {
                break;
            }
            if op.is_comparison() && compared {
                return failure_msg(
                    at,
                    format!(
                        "herd7's comparisons do not chain: put the first one in parentheses, \
                         as in `(a {} b) {} c`",
                        comparison_op(&lhs),
                        op.as_str()
                    ),
                );
            }
            if op == BinaryOp::Sub && rest.starts_with(|c: char| c.is_ascii_digit()) {
                return failure_msg(at, glued_minus(self.src, &lhs, at, rest));
            }
            self.link(i)?;
            self.enter(i)?;
            let r = cut(|i| self.binary(i, p + 1)).parse(rest);
            self.leave();
            let (rest, rhs) = r?;
            compared = op.is_comparison();
            let span = lhs.span.to(rhs.span);
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                span,
            };
            i = rest;
        }
        Ok((i, lhs))
    }

    /// Refuses, by name, the C operators herd7's C dialect lacks that may follow an
    /// operand, each with what to write instead.
    fn missing_operator(&self, i: &'a str) -> Result<(), Err<PError<'a>>> {
        const OPS: &[(&str, &str)] = &[
            ("<<=", "; write `x = x * 2` and the like"),
            (">>=", "; write `x = x / 2` and the like"),
            (
                "&&",
                ": nest two `if` statements, or join comparisons (which are 0 or 1) with `&`",
            ),
            ("||", ": join comparisons (which are 0 or 1) with `|`"),
            ("<<", ": multiply by a power of two"),
            (">>", ": divide by a power of two"),
            ("->", ""),
            ("++", "; write `r0 = r0 + 1`"),
            ("+=", "; write `r0 = r0 + e`"),
            ("-=", "; write `r0 = r0 - e`"),
            ("*=", "; write `r0 = r0 * e`"),
            ("/=", "; write `r0 = r0 / e`"),
            ("%=", ""),
            ("&=", "; write `r0 = r0 & e`"),
            ("|=", "; write `r0 = r0 | e`"),
            ("^=", "; write `r0 = r0 ^ e`"),
            ("%", ": write `a - a / b * b` for `a % b`"),
            ("?", ": write an `if` statement"),
            ("[", ""),
            (".", ""),
        ];
        // `x--1` is `x - -1` to herd7, whose `-1` is a number.
        if let Some(r) = i.strip_prefix("--") {
            if !r.starts_with(|c: char| c.is_ascii_digit()) {
                return Err(Err::Failure(PError::message(
                    i,
                    "herd7's C dialect has no `--`; write `r0 = r0 - 1`".to_string(),
                )));
            }
            return Ok(());
        }
        match OPS.iter().find(|(op, _)| i.starts_with(*op)) {
            Some((op, hint)) => Err(Err::Failure(PError::message(
                i,
                format!("herd7's C dialect has no `{op}`{hint}"),
            ))),
            None => Ok(()),
        }
    }

    /// The binary operator at the head of `i`, if any, with the rest and where it stands.
    #[allow(clippy::type_complexity)]
    fn binop(&self, i: &'a str) -> Result<Option<(&'a str, BinaryOp, &'a str)>, Err<PError<'a>>> {
        let (i, ()) = self.trivia(i)?;
        self.missing_operator(i)?;
        const OPS: &[(&str, BinaryOp)] = &[
            ("<=", BinaryOp::Le),
            (">=", BinaryOp::Ge),
            ("==", BinaryOp::Eq),
            ("!=", BinaryOp::Ne),
            ("*", BinaryOp::Mul),
            ("/", BinaryOp::Div),
            ("+", BinaryOp::Add),
            ("-", BinaryOp::Sub),
            ("<", BinaryOp::Lt),
            (">", BinaryOp::Gt),
            ("&", BinaryOp::BitAnd),
            ("^", BinaryOp::BitXor),
            ("|", BinaryOp::BitOr),
        ];
        for &(t, op) in OPS {
            if let Some(rest) = i.strip_prefix(t) {
                return Ok(Some((rest, op, i)));
            }
        }
        Ok(None)
    }

    /// `unary ::= "*" deref | "(" code-type ")" unary | primary`: herd7's C dialect has no
    /// other prefix operator.
    fn unary(&self, i: &'a str) -> PResult<'a, Expr> {
        self.enter(i)?;
        let r = self.unary_inner(i);
        self.leave();
        r
    }

    fn unary_inner(&self, i: &'a str) -> PResult<'a, Expr> {
        let (i, ()) = self.trivia(i)?;
        let start = i;
        let missing = match i.chars().next() {
            Some('*') => return self.deref(i),
            Some('-') if !i[1..].starts_with(|c: char| c.is_ascii_digit()) => Some(
                "herd7's C dialect has no unary minus, only negative numbers such as `-1`: \
                 write `0 - e`",
            ),
            Some('!') if !i.starts_with("!=") => {
                Some("herd7's C dialect has no `!`: write `e == 0`")
            }
            Some('~') => Some("herd7's C dialect has no `~`: write `-1 ^ e`"),
            Some('&') => Some(
                "herd7's C dialect has no `&` before an operand in thread code: a parameter \
                 `int *x` is already the address of `x`, so write `x`",
            ),
            Some('+') => Some("herd7's C dialect has no unary plus"),
            _ => None,
        };
        if let Some(m) = missing {
            return failure_msg(i, m.to_string());
        }
        if let Some(rest) = i.strip_prefix('(') {
            match self.code_type(rest) {
                Ok((r, ty)) => {
                    if ty.base == "void" && ty.pointers == 0 {
                        return failure_msg(
                            i,
                            "herd7 takes `(void)` only at the start of a statement, as in \
                             `(void)e;`"
                                .to_string(),
                        );
                    }
                    let (r, _) = cut(self.tok(")", "`)` to close the cast")).parse(r)?;
                    let (r, operand) = cut(|i| self.unary(i)).parse(r)?;
                    let span = self.span(start, r);
                    return Ok((
                        r,
                        Expr {
                            kind: ExprKind::Cast(ty, Box::new(operand)),
                            span,
                        },
                    ));
                }
                Err(Err::Error(_)) => {}
                Err(e) => return Err(e),
            }
        }
        self.primary(i)
    }

    /// `deref ::= "*" (name | "(" code-type ")" name | "(" expr ")")`: what herd7 reads.
    fn deref(&self, i: &'a str) -> PResult<'a, Expr> {
        let start = i;
        let (rest, ()) = self.trivia(&i[1..])?;
        let (rest, operand) = if let Some(r) = rest.strip_prefix('(') {
            match self.code_type(r) {
                Ok((r, ty)) => {
                    let (r, _) = cut(self.tok(")", "`)` to close the cast")).parse(r)?;
                    let (r, ()) = self.trivia(r)?;
                    let (r, id) = self.code_name(r).map_err(|e| {
                        commit_err(e).map(|mut err| {
                            if err.full_message().is_none() {
                                err.extra_mut().message = Some(
                                    "herd7 takes a name after `*(type)`: write \
                                     `*((type)(...))` to cast an expression"
                                        .to_string(),
                                );
                            }
                            err
                        })
                    })?;
                    let id_span = id.span;
                    let span = self.span(rest, r);
                    let name = Expr {
                        kind: ExprKind::Ident(id),
                        span: id_span,
                    };
                    (
                        r,
                        Expr {
                            kind: ExprKind::Cast(ty, Box::new(name)),
                            span,
                        },
                    )
                }
                Err(Err::Error(_)) => {
                    let (r, e) = cut(|i| self.expr(i)).parse(r)?;
                    let (r, _) = cut(self.tok(")", "`)`"))
                        .parse(r)
                        .map_err(|err| self.closing(err, rest, "`)`", "the parenthesis"))?;
                    (r, e)
                }
                Err(e) => return Err(e),
            }
        } else if rest.starts_with(is_ident_start) {
            let (r, id) = cut(|i| self.code_name(i)).parse(rest)?;
            if self.peek(r, "(")? {
                return failure_msg(
                    start,
                    format!(
                        "herd7 reads `*{0}(...)` as a call of `*{0}`: write `*({0}(...))`",
                        id.name
                    ),
                );
            }
            let span = id.span;
            (
                r,
                Expr {
                    kind: ExprKind::Ident(id),
                    span,
                },
            )
        } else if rest.starts_with('*') {
            return failure_msg(
                start,
                "herd7 reads a dereference of a dereference only in parentheses: write \
                 `*(*p)`"
                    .to_string(),
            );
        } else {
            return failure_msg(
                start,
                "herd7 dereferences a name or an expression in parentheses: write `*(...)`"
                    .to_string(),
            );
        };
        Ok((
            rest,
            Expr {
                kind: ExprKind::Deref(Box::new(operand)),
                span: self.span(start, rest),
            },
        ))
    }

    /// `primary ::= code-int | name | name "(" args ")" | "(" expr ")"`
    fn primary(&self, i: &'a str) -> PResult<'a, Expr> {
        let (i, ()) = self.trivia(i)?;
        let start = i;
        if i.starts_with(|c: char| c.is_ascii_digit()) || i.starts_with('-') {
            let (rest, (v, span)) = self.code_int(i)?;
            return Ok((
                rest,
                Expr {
                    kind: ExprKind::Int(v),
                    span,
                },
            ));
        }
        if let Some(rest) = i.strip_prefix('(') {
            let (rest, e) = cut(|i| self.expr(i)).parse(rest)?;
            let (rest, _) = cut(self.tok(")", "`)`"))
                .parse(rest)
                .map_err(|err| self.closing(err, start, "`)`", "the parenthesis"))?;
            return Ok((rest, e));
        }
        let (rest, id) = self.word(i).map_err(|e| {
            e.map(|mut err| {
                err.set_expected("an expression");
                err
            })
        })?;
        if let Some(ins) = dialect::instruction(&id.name) {
            if ins.place == Place::Stmt {
                return failure_msg(
                    i,
                    format!(
                        "herd7 takes `{}` only as a statement of its own, not within an \
                         expression",
                        id.name
                    ),
                );
            }
            return self.instruction(start, id, rest, ins, false);
        }
        if self.peek(rest, "(")? && is_callable(&id.name) {
            let (r, open) = self.tok("(", "`(`")(rest)?;
            let orders = dialect::order_positions(&id.name).unwrap_or(&[]);
            let mut at = 0;
            let (r, args) = self.list(r, |i| {
                let arg = if orders.contains(&at) {
                    self.memory_order(i)
                } else {
                    self.expr(i)
                };
                at += 1;
                arg
            })?;
            let (r, _) = cut(self.tok(")", "`)`"))
                .parse(r)
                .map_err(|e| self.closing(e, open, "`)`", "the argument list"))?;
            let span = self.span(start, r);
            return Ok((
                r,
                Expr {
                    kind: ExprKind::Call { func: id, args },
                    span,
                },
            ));
        }
        if !dialect::is_code_name(&id.name) {
            return Err(Err::Error(PError::message(i, reserved_in_code(&id.name))));
        }
        let span = id.span;
        Ok((
            rest,
            Expr {
                kind: ExprKind::Ident(id),
                span,
            },
        ))
    }

    /// `instruction ::= name "{" annotation ("," annotation)* "}" ("(" args ")")?`, one of
    /// herd7's internal instructions (see [`dialect::instruction`]), from after its name;
    /// `stmt` tells whether it stands as a statement of its own.
    pub(super) fn instruction(
        &self,
        start: &'a str,
        func: Ident,
        i: &'a str,
        ins: dialect::Instruction,
        stmt: bool,
    ) -> PResult<'a, Expr> {
        let name = func.name.clone();
        let (i, annotations) = if self.peek(i, "{")? {
            let (r, open) = self.tok("{", "`{`")(i)?;
            let (r, annotations) = self.list(r, |i| self.annotation(i))?;
            if annotations.is_empty() {
                return failure(r, "an annotation such as `once` or `mb`");
            }
            let (r, _) = cut(self.tok("}", "`}`"))
                .parse(r)
                .map_err(|e| self.closing(e, open, "`}`", "the annotations"))?;
            (r, annotations)
        } else if ins.bare {
            (i, Vec::new())
        } else {
            return failure_msg(
                start,
                format!(
                    "herd7 writes `{name}` with its annotations in braces, as in \
                     `{name}{{once}}`"
                ),
            );
        };
        let Some(want) = ins.args else {
            let span = self.span(start, i);
            return Ok((
                i,
                Expr {
                    kind: ExprKind::Instruction {
                        func,
                        annotations,
                        op: None,
                        args: Vec::new(),
                    },
                    span,
                },
            ));
        };
        let (r, open) = cut(self.tok("(", "`(` and the arguments")).parse(i)?;
        let (mut r, first) = cut(|i| self.expr(i)).parse(r)?;
        let mut args = vec![first];
        let mut op = None;
        if ins.op {
            let (rr, _) = cut(self.tok(",", "`,` and an operator")).parse(r)?;
            let (rr, o) = cut(|i| self.atomic_op(i)).parse(rr)?;
            op = Some(o);
            r = rr;
        }
        while let Ok((rr, _)) = self.tok(",", "`,`")(r) {
            let (rr, e) = cut(|i| self.expr(i)).parse(rr)?;
            args.push(e);
            r = rr;
        }
        let (r, _) = cut(self.tok(")", "`)`"))
            .parse(r)
            .map_err(|e| self.closing(e, open, "`)`", "the argument list"))?;
        let fits = match ins.place {
            Place::Srcu if stmt => (1..=2).contains(&args.len()),
            _ => args.len() == want,
        };
        if !fits {
            let what = match (ins.place, stmt) {
                (Place::Srcu, true) => "1 or 2 arguments".to_string(),
                (Place::Srcu, false) => {
                    "1 argument within an expression (2 only as a statement)".to_string()
                }
                (_, _) if ins.op => {
                    format!("{want} arguments around its operator, as in `{name}(x, +, 1)`")
                }
                _ => format!("{want} argument{}", if want == 1 { "" } else { "s" }),
            };
            return failure_msg(
                start,
                format!("herd7's `{name}` takes {what}, not {}", args.len()),
            );
        }
        let span = self.span(start, r);
        Ok((
            r,
            Expr {
                kind: ExprKind::Instruction {
                    func,
                    annotations,
                    op,
                    args,
                },
                span,
            },
        ))
    }

    /// `annotation ::= word ("-" word)*`, as in `mb`, `rcu-lock` or `after-unlock-lock`.
    fn annotation(&self, i: &'a str) -> PResult<'a, Ident> {
        let (i, ()) = self.trivia(i)?;
        let start = i;
        let mut words = Vec::new();
        let mut r = i;
        loop {
            let (after, w) = self.word(r).map_err(|e| {
                e.map(|mut err| {
                    err.set_expected("an annotation such as `once` or `mb`");
                    err
                })
            })?;
            if !dialect::is_code_name(&w.name) && !matches!(w.name.as_str(), "lock" | "unlock") {
                return failure_msg(
                    &self.src[w.span.start..],
                    format!(
                        "herd7 reads `{}` as a keyword, not as an annotation",
                        w.name
                    ),
                );
            }
            words.push(w.name);
            r = after;
            let (after, ()) = self.trivia(r)?;
            match after.strip_prefix('-') {
                Some(next) if !next.starts_with(|c: char| c.is_ascii_digit()) => r = next,
                _ => break,
            }
        }
        let span = self.span(start, r);
        Ok((r, Ident::new(words.join("-"), span)))
    }

    /// `atomic-op ::= "+" | "-" | "&" | "|" | "^" | "&" "~"`: the operator of an atomic
    /// operation instruction.
    fn atomic_op(&self, i: &'a str) -> PResult<'a, AtomicOp> {
        let (i, ()) = self.trivia(i)?;
        let (r, op) = match i.chars().next() {
            Some('+') => (&i[1..], AtomicOp::Add),
            Some('-') => (&i[1..], AtomicOp::Sub),
            Some('|') => (&i[1..], AtomicOp::Or),
            Some('^') => (&i[1..], AtomicOp::Xor),
            Some('&') => {
                let (after, ()) = self.trivia(&i[1..])?;
                match after.strip_prefix('~') {
                    Some(r) => (r, AtomicOp::AndNot),
                    None => (&i[1..], AtomicOp::And),
                }
            }
            _ => return fail(i, "an operator: `+`, `-`, `&`, `|`, `^` or `&~`"),
        };
        Ok((r, op))
    }

    /// `memory-order ::= "memory_order_relaxed" | ... | "memory_order_seq_cst"`, the
    /// argument herd7's grammar takes at the order positions of a C11 primitive (and
    /// nowhere else); it stays a name in the tree, for the checker to read.
    fn memory_order(&self, i: &'a str) -> PResult<'a, Expr> {
        let (i, ()) = self.trivia(i)?;
        let (rest, id) = self.word(i).map_err(|e| {
            e.map(|mut err| {
                err.set_expected("a memory order");
                err
            })
        })?;
        if !dialect::MEMORY_ORDERS.contains(&id.name.as_str()) {
            return failure_msg(
                i,
                format!(
                    "herd7 takes a memory order here (`memory_order_relaxed`, \
                     `memory_order_acquire`, ...), not `{}`",
                    id.name
                ),
            );
        }
        let span = id.span;
        Ok((
            rest,
            Expr {
                kind: ExprKind::Ident(id),
                span,
            },
        ))
    }
}
