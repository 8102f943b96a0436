//! The rules of expressions, and of the bindings and patterns of `let`, `fun` and
//! `match`: precedence climbing over the operators of sets and relations with herd7's
//! table, and the conditions of `if` on values and on variants.

use super::{Deep, Parser, T, Token};
use crate::models::cat::ast::*;
use crate::models::cat::error::CatError;

/// Whether a token may start an argument of an application (herd7's `arg`: a name or a
/// `simple` expression).
pub(super) fn starts_arg(t: T) -> bool {
    matches!(
        t,
        T::Var | T::Zero | T::Tag | T::LAcc | T::Underscore | T::LPar | T::Begin | T::LBrac
    )
}

/// The binary operators of sets and relations: the operator and its level in herd7's
/// table, higher binding tighter (how a run of one operator groups is
/// [`Parser::group`]'s business).
pub(super) fn binary(t: T) -> Option<(Op2, u8)> {
    Some(match t {
        T::Union => (Op2::Union, 1),
        T::PlusPlus => (Op2::Add, 2),
        T::Semi => (Op2::Seq, 3),
        T::Diff => (Op2::Diff, 4),
        T::Inter => (Op2::Inter, 5),
        _ => return None,
    })
}

/// The second clause of a match on a set: `pre`, `elt`, `rest` and the value.
type ElementClause = (Option<Name>, Name, Name, Exp);

impl Parser<'_> {
    // ---- Bindings and patterns ----

    /// `pat_bind_list`: `pat_bind (AND pat_bind)*`.
    pub(super) fn pat_bind_list(&mut self) -> Result<Deep<Vec<Binding>>, CatError> {
        let (first, mut depth) = self.pat_bind()?;
        let mut out = vec![first];
        while self.eat(T::And) {
            let (b, d) = self.pat_bind()?;
            out.push(b);
            depth = depth.max(d);
        }
        Ok((out, depth))
    }

    /// `pat_bind`: `(formals) = e`, `x, y = e`, and the functions `f x = e` and
    /// `f(x, y) = e`, which bind `f` to `fun x -> e` and `fun (x, y) -> e`.
    fn pat_bind(&mut self) -> Result<Deep<Binding>, CatError> {
        let start = self.tok().start;
        match (self.peek(), self.peek_at(1)) {
            (T::LPar, _) => {
                let open = self.bump();
                let formals = self.formals()?;
                self.close(T::RPar, "`)`", open)?;
                self.expect(T::Equal, "`=`")?;
                let (exp, d) = self.exp()?;
                let binding = Binding {
                    pat: tuple_pat(formals),
                    exp,
                    span: self.since(start),
                };
                Ok((binding, d))
            }
            (T::Var, T::Var | T::Underscore | T::LPar) => {
                let name = self.bump();
                let name = self.name(name);
                let params = if self.peek() == T::LPar {
                    let open = self.bump();
                    let formals = self.formals()?;
                    self.close(T::RPar, "`)`", open)?;
                    tuple_pat(formals)
                } else {
                    Pattern::Var(self.pat0("a parameter")?)
                };
                self.expect(T::Equal, "`=`")?;
                let (body, d) = self.exp()?;
                let span = self.since(start);
                let (exp, d) = self.deep(Exp::Fun(params, Box::new(body), span), d + 1, span)?;
                let binding = Binding {
                    pat: Pattern::Var(Some(name)),
                    exp,
                    span,
                };
                Ok((binding, d))
            }
            (T::Var | T::Underscore, _) => {
                let formals = self.formals_n()?;
                self.expect(T::Equal, "`=`")?;
                let (exp, d) = self.exp()?;
                let binding = Binding {
                    pat: tuple_pat(formals),
                    exp,
                    span: self.since(start),
                };
                Ok((binding, d))
            }
            _ => Err(self.expected("a name, `_` or `(` to bind")),
        }
    }

    /// `formals`: nothing (before `)`) or `formalsN`.
    pub(super) fn formals(&mut self) -> Result<Vec<Name>, CatError> {
        if self.peek() == T::RPar {
            Ok(Vec::new())
        } else {
            self.formals_n()
        }
    }

    /// `formalsN`: `pat0 (, pat0)*`.
    fn formals_n(&mut self) -> Result<Vec<Name>, CatError> {
        let mut out = vec![self.pat0("a name or `_`")?];
        while self.eat(T::Comma) {
            out.push(self.pat0("a name or `_` after `,`")?);
        }
        Ok(out)
    }

    /// `pat0`: a name, or `_`.
    pub(super) fn pat0(&mut self, what: &str) -> Result<Name, CatError> {
        match self.peek() {
            T::Var => {
                let tok = self.bump();
                Ok(Some(self.name(tok)))
            }
            T::Underscore => {
                self.bump();
                Ok(None)
            }
            _ => Err(self.expected(what)),
        }
    }

    // ---- Expressions ----

    /// `exp`: `let`, `let rec`, `fun`, `try`, `if`, `match`, an expression of sets and
    /// relations, or a tuple of them without parentheses (`a, b`).
    pub(super) fn exp(&mut self) -> Result<Deep<Exp>, CatError> {
        self.nested(|p| p.exp_inner())
    }

    fn exp_inner(&mut self) -> Result<Deep<Exp>, CatError> {
        let first = self.tok();
        let start = first.start;
        match first.t {
            T::Let => {
                self.bump();
                let rec = self.eat(T::Rec);
                let (bindings, d1) = self.pat_bind_list()?;
                if self.peek() != T::In {
                    return Err(self.expected("`in`").note(format!(
                        "the `let` at {} is an expression, which needs `in` and the \
                         expression it defines",
                        self.place(first)
                    )));
                }
                self.bump();
                let (body, d2) = self.exp()?;
                let span = self.since(start);
                let body = Box::new(body);
                let exp = if rec {
                    Exp::LetRec(bindings, body, span)
                } else {
                    Exp::Let(bindings, body, span)
                };
                self.deep(exp, d1.max(d2) + 1, span)
            }
            T::Fun => {
                self.bump();
                let pat = if self.peek() == T::LPar {
                    let open = self.bump();
                    let formals = self.formals()?;
                    self.close(T::RPar, "`)`", open)?;
                    tuple_pat(formals)
                } else {
                    Pattern::Var(self.pat0("the parameter: a name, `_` or `(x, y)`")?)
                };
                self.expect(T::Arrow, "`->`")?;
                let (body, d) = self.exp()?;
                let span = self.since(start);
                self.deep(Exp::Fun(pat, Box::new(body), span), d + 1, span)
            }
            T::Try => {
                self.bump();
                let (a, d1) = self.exp()?;
                self.expect(T::With, "`with`")?;
                let (b, d2) = self.exp()?;
                let span = self.since(start);
                self.deep(
                    Exp::Try(Box::new(a), Box::new(b), span),
                    d1.max(d2) + 1,
                    span,
                )
            }
            T::If => {
                self.bump();
                let (cond, d0) = self.cond()?;
                self.expect(T::Then, "`then`")?;
                let (a, d1) = self.exp()?;
                self.expect(T::Else, "`else`")?;
                let (b, d2) = self.exp()?;
                let span = self.since(start);
                self.deep(
                    Exp::If(Box::new(cond), Box::new(a), Box::new(b), span),
                    d0.max(d1).max(d2) + 1,
                    span,
                )
            }
            T::Match => self.exp_match(),
            _ => {
                let (first, mut depth) = self.base()?;
                if self.peek() != T::Comma {
                    return Ok((first, depth));
                }
                let mut items = vec![first];
                while self.eat(T::Comma) {
                    let (e, d) = self.base()?;
                    items.push(e);
                    depth = depth.max(d);
                }
                let span = self.since(start);
                self.deep(Exp::Tuple(items, span), depth + 1, span)
            }
        }
    }

    /// `cond`: `e = e`, `e subset e`, `e in e`, or a condition on variants.
    fn cond(&mut self) -> Result<Deep<Cond>, CatError> {
        if self.starts_variant() {
            let (v, d) = self.variant()?;
            return Ok((Cond::Variant(v), d));
        }
        let (a, d1) = self.exp()?;
        let op = self.peek();
        if !matches!(op, T::Equal | T::Subset | T::In) {
            return Err(self.expected("`=`, `subset` or `in`"));
        }
        self.bump();
        let (b, d2) = self.exp()?;
        let cond = match op {
            T::Equal => Cond::Eq(a, b),
            T::Subset => Cond::Subset(a, b),
            _ => Cond::In(a, b),
        };
        Ok((cond, d1.max(d2) + 1))
    }

    /// Whether a condition on variants starts here: a string, `variant` or `not`, after
    /// any number of `(`.
    pub(super) fn starts_variant(&self) -> bool {
        let mut k = 0;
        while self.peek_at(k) == T::LPar {
            k += 1;
        }
        matches!(self.peek_at(k), T::Str | T::Variant | T::Not)
    }

    /// `variant`: conditions on variants, `||` looser than `&&`, both to the left, and
    /// `not` tightest.
    pub(super) fn variant(&mut self) -> Result<Deep<VariantCond>, CatError> {
        self.nested(|p| {
            let start = p.tok().start;
            let (mut l, mut dl) = p.variant_and()?;
            while p.eat(T::Alt) {
                let (r, dr) = p.variant_and()?;
                let d = dl.max(dr) + 1;
                let span = p.since(start);
                (l, dl) = p.deep(VariantCond::Or(Box::new(l), Box::new(r)), d, span)?;
            }
            Ok((l, dl))
        })
    }

    fn variant_and(&mut self) -> Result<Deep<VariantCond>, CatError> {
        let start = self.tok().start;
        let (mut l, mut dl) = self.variant_not()?;
        while self.eat(T::LAnd) {
            let (r, dr) = self.variant_not()?;
            let d = dl.max(dr) + 1;
            let span = self.since(start);
            (l, dl) = self.deep(VariantCond::And(Box::new(l), Box::new(r)), d, span)?;
        }
        Ok((l, dl))
    }

    fn variant_not(&mut self) -> Result<Deep<VariantCond>, CatError> {
        let tok = self.tok();
        match tok.t {
            T::Not => {
                self.bump();
                let (v, d) = self.nested(|p| p.variant_not())?;
                let span = self.since(tok.start);
                self.deep(VariantCond::Not(Box::new(v)), d + 1, span)
            }
            T::Variant => {
                self.bump();
                let s = self.expect(T::Str, "the name of a variant in quotes")?;
                Ok((VariantCond::Is(self.string(s)), 1))
            }
            T::Str => {
                self.bump();
                Ok((VariantCond::Is(self.string(tok)), 1))
            }
            T::LPar => {
                self.bump();
                let v = self.variant()?;
                self.close(T::RPar, "`)`", tok)?;
                Ok(v)
            }
            _ => Err(self.expected("a condition on variants (`\"name\"`, `not`, `(`)")),
        }
    }

    /// The contents of a string token.
    fn string(&self, tok: Token) -> String {
        let s = self.text(tok);
        s[1..s.len() - 1].to_string()
    }

    /// `MATCH exp WITH altopt (clause_list | set_clauses) END`.
    fn exp_match(&mut self) -> Result<Deep<Exp>, CatError> {
        let kw = self.bump();
        let (exp, mut depth) = self.exp()?;
        self.expect(T::With, "`with`")?;
        self.eat(T::Alt);
        let exp = Box::new(exp);
        let on_tags = match self.peek() {
            T::Tag => true,
            T::Underscore => self.peek_at(1) == T::Arrow,
            T::LAcc | T::Var => false,
            _ => {
                return Err(
                    self.expected("a clause: `'tag -> e`, `_ -> e`, `{} -> e` or `x ++ rest -> e`")
                );
            }
        };
        if on_tags {
            let mut clauses = Vec::new();
            let mut default = None;
            loop {
                match self.peek() {
                    T::Tag => {
                        let tag = self.bump();
                        self.expect(T::Arrow, "`->`")?;
                        let (e, d) = self.exp()?;
                        depth = depth.max(d);
                        clauses.push((self.text(tag)[1..].to_string(), e));
                        if !self.eat(T::Alt) {
                            break;
                        }
                    }
                    T::Underscore => {
                        self.bump();
                        self.expect(T::Arrow, "`->`")?;
                        let (e, d) = self.exp()?;
                        depth = depth.max(d);
                        default = Some(Box::new(e));
                        break;
                    }
                    _ => return Err(self.expected("a clause `'tag -> e` or `_ -> e`")),
                }
            }
            self.close(T::End, "`end`", kw)?;
            let span = self.since(kw.start);
            let m = Exp::Match {
                exp,
                clauses,
                default,
                span,
            };
            return self.deep(m, depth + 1, span);
        }
        let (empty, (pre, elt, rest, nonempty), d) = if self.peek() == T::LAcc {
            let (empty, d1) = self.empty_clause()?;
            self.expect(T::Alt, "`||` and the clause for a set with elements")?;
            let (element, d2) = self.element_clause()?;
            (empty, element, d1.max(d2))
        } else {
            let (element, d1) = self.element_clause()?;
            self.expect(T::Alt, "`||` and the clause `{} -> e` for the empty set")?;
            let (empty, d2) = self.empty_clause()?;
            (empty, element, d1.max(d2))
        };
        self.close(T::End, "`end`", kw)?;
        let span = self.since(kw.start);
        let m = Exp::MatchSet {
            exp,
            empty: Box::new(empty),
            pre,
            elt,
            rest,
            nonempty: Box::new(nonempty),
            span,
        };
        self.deep(m, depth.max(d) + 1, span)
    }

    /// `empty_clause`: `{} -> e`.
    fn empty_clause(&mut self) -> Result<Deep<Exp>, CatError> {
        self.expect(T::LAcc, "`{}`")?;
        self.expect(T::RAcc, "`}`: the clause for the empty set is `{} -> e`")?;
        self.expect(T::Arrow, "`->`")?;
        self.exp()
    }

    /// `element_clause`: `x ++ rest -> e` or `pre | x ++ rest -> e`.
    fn element_clause(&mut self) -> Result<Deep<ElementClause>, CatError> {
        let first = self.pat0("a name or `_`")?;
        let (pre, elt) = if self.eat(T::Union) {
            (Some(first), self.pat0("a name or `_` after `|`")?)
        } else {
            (None, first)
        };
        self.expect(T::PlusPlus, "`++`")?;
        let rest = self.pat0("a name or `_` after `++`")?;
        self.expect(T::Arrow, "`->`")?;
        let (e, d) = self.exp()?;
        Ok(((pre, elt, rest, e), d))
    }

    /// `base`: the operators of sets and relations.
    pub(super) fn base(&mut self) -> Result<Deep<Exp>, CatError> {
        self.base_at(1)
    }

    /// The operators of level `min` and above, by precedence climbing; the operands of a
    /// run of one operator are gathered, then grouped as herd7 groups them.
    fn base_at(&mut self, min: u8) -> Result<Deep<Exp>, CatError> {
        self.nested(|p| {
            let start = p.tok().start;
            let (mut lhs, mut depth) = p.unary()?;
            while let Some((op, level)) = binary(p.peek()).filter(|b| b.1 >= min) {
                let mut operands = vec![(lhs, depth)];
                while p.peek() == op_token(op) {
                    p.bump();
                    operands.push(p.base_at(level + 1)?);
                }
                (lhs, depth) = p.group(op, operands, start)?;
            }
            Ok((lhs, depth))
        })
    }

    /// The node of a run of one binary operator over its operands, all starting at
    /// `start`: `|`, `;` and `&` flatten their operands of the same operator, `\` nests to
    /// the left and `++` to the right.
    fn group(&self, op: Op2, operands: Vec<Deep<Exp>>, start: u32) -> Result<Deep<Exp>, CatError> {
        match op {
            Op2::Union | Op2::Seq | Op2::Inter => {
                let mut depth = 0;
                let mut flat = Vec::new();
                for (e, d) in operands {
                    match e {
                        Exp::Op(o, es, _) if o == op => {
                            depth = depth.max(d.saturating_sub(1));
                            flat.extend(es);
                        }
                        e => {
                            depth = depth.max(d);
                            flat.push(e);
                        }
                    }
                }
                let span = self.span(start, flat.last().map_or(start, |e| e.span().end));
                self.deep(Exp::Op(op, flat, span), depth + 1, span)
            }
            Op2::Add => {
                let mut iter = operands.into_iter().rev();
                let Some(mut acc) = iter.next() else {
                    return Err(self.expected("an expression"));
                };
                for (e, d) in iter {
                    let span = self.span(e.span().start, acc.0.span().end);
                    let depth = d.max(acc.1) + 1;
                    acc = self.deep(Exp::Op(op, vec![e, acc.0], span), depth, span)?;
                }
                Ok(acc)
            }
            _ => {
                let mut iter = operands.into_iter();
                let Some(mut acc) = iter.next() else {
                    return Err(self.expected("an expression"));
                };
                for (e, d) in iter {
                    let span = self.span(start, e.span().end);
                    let depth = d.max(acc.1) + 1;
                    acc = self.deep(Exp::Op(op, vec![acc.0, e], span), depth, span)?;
                }
                Ok(acc)
            }
        }
    }

    /// The non-associating level: `~e`, and the postfix `*`, `+`, `?` and `^-1`, and the
    /// product `S * T`, after an application.
    fn unary(&mut self) -> Result<Deep<Exp>, CatError> {
        let start = self.tok().start;
        if self.peek() == T::Comp {
            let e = self.tight()?;
            if matches!(self.peek(), T::Star | T::Plus | T::Opt) {
                return Err(self.nonassoc("a complement `~e`", "`(~r)*` or `~(r*)`"));
            }
            return Ok(e);
        }
        let (mut x, mut depth) = self.primary()?;
        loop {
            let op = match self.peek() {
                T::Hat => {
                    self.bump();
                    self.expect(T::Inv, "`-1` after `^`")?;
                    Op1::Inv
                }
                T::Plus => {
                    self.bump();
                    Op1::Plus
                }
                T::Opt => {
                    self.bump();
                    Op1::Opt
                }
                T::Star if self.peek_at(1) == T::Comp => {
                    let comp = self.toks[self.pos + 1];
                    return Err(self
                        .error_at(comp, "unexpected `~` after `*`".to_string())
                        .note(
                            "herd7 reads `*` and `~` as a product whose right side may not be \
                             a complement: write `r * (~s)` for the product, or `(r*)` for \
                             the closure before a check such as `~empty`",
                        ));
                }
                T::Star if starts_arg(self.peek_at(1)) => {
                    self.bump();
                    let (rhs, d) = self.tight()?;
                    let span = self.span(start, rhs.span().end);
                    let product = Exp::Op(Op2::Cartesian, vec![x, rhs], span);
                    let product = self.deep(product, depth.max(d) + 1, span)?;
                    if matches!(self.peek(), T::Star | T::Plus | T::Opt) {
                        return Err(self.nonassoc("a product `S * T`", "`(S * T)+`"));
                    }
                    return Ok(product);
                }
                T::Star => {
                    self.bump();
                    Op1::Star
                }
                _ => return Ok((x, depth)),
            };
            let span = self.since(start);
            (x, depth) = self.deep(Exp::Op1(op, Box::new(x), span), depth + 1, span)?;
        }
    }

    /// The error for a postfix `*`, `+` or `?` (or a product) after `what`, an operand of
    /// the same level of herd7's table, which does not chain.
    fn nonassoc(&self, what: &str, example: &str) -> CatError {
        let tok = self.tok();
        let op = self.describe(tok);
        self.error_at(tok, format!("unexpected {op} after {what}"))
            .note(format!(
                "herd7's grammar puts `~`, the product `S * T` and the postfix `*`, `+` \
                 and `?` on one level, whose operators do not chain: add parentheses, \
                 such as {example}"
            ))
    }

    /// An operand of `~` or the right side of a product: `~` any number of times, then an
    /// application and any number of `^-1`.
    fn tight(&mut self) -> Result<Deep<Exp>, CatError> {
        self.nested(|p| {
            let start = p.tok().start;
            if p.eat(T::Comp) {
                let (e, d) = p.tight()?;
                let span = p.since(start);
                return p.deep(Exp::Op1(Op1::Comp, Box::new(e), span), d + 1, span);
            }
            let (mut x, mut depth) = p.primary()?;
            while p.eat(T::Hat) {
                p.expect(T::Inv, "`-1` after `^`")?;
                let span = p.since(start);
                (x, depth) = p.deep(Exp::Op1(Op1::Inv, Box::new(x), span), depth + 1, span)?;
            }
            Ok((x, depth))
        })
    }

    /// `simple`, or `exp0`: a name applied to any number of arguments (`f x y`, `f(x, y)`).
    fn primary(&mut self) -> Result<Deep<Exp>, CatError> {
        if self.peek() != T::Var {
            return self.simple();
        }
        let tok = self.bump();
        let start = tok.start;
        let mut f = Exp::Var(self.name(tok), self.span(tok.start, tok.end));
        let mut depth = 1;
        while starts_arg(self.peek()) {
            let (arg, d) = if self.peek() == T::Var {
                let tok = self.bump();
                (Exp::Var(self.name(tok), self.span(tok.start, tok.end)), 1)
            } else {
                self.simple()?
            };
            let span = self.since(start);
            (f, depth) = self.deep(
                Exp::App(Box::new(f), Box::new(arg), span),
                depth.max(d) + 1,
                span,
            )?;
        }
        Ok((f, depth))
    }

    /// `simple`: `0`, a tag, `{a, b}`, `_`, `()`, `(e)`, `begin e end`, `[e]`.
    pub(super) fn simple(&mut self) -> Result<Deep<Exp>, CatError> {
        let tok = self.tok();
        let here = self.span(tok.start, tok.end);
        match tok.t {
            T::Zero => {
                self.bump();
                Ok((Exp::Empty(here), 1))
            }
            T::Underscore => {
                self.bump();
                Ok((Exp::Universe(here), 1))
            }
            T::Tag => {
                self.bump();
                Ok((Exp::Tag(self.text(tok)[1..].to_string(), here), 1))
            }
            T::LAcc => {
                self.bump();
                let (args, depth) = self.args(T::RAcc)?;
                self.close(T::RAcc, "`}`", tok)?;
                let span = self.since(tok.start);
                if args.is_empty() {
                    return Ok((Exp::Empty(span), 1));
                }
                self.deep(Exp::Set(args, span), depth + 1, span)
            }
            T::LPar => {
                self.bump();
                if self.eat(T::RPar) {
                    return Ok((Exp::Tuple(Vec::new(), self.since(tok.start)), 1));
                }
                let e = self.exp()?;
                self.close(T::RPar, "`)`", tok)?;
                Ok(e)
            }
            T::Begin => {
                self.bump();
                let e = self.exp()?;
                self.close(T::End, "`end`", tok)?;
                Ok(e)
            }
            T::LBrac => {
                self.bump();
                let (e, d) = self.exp()?;
                self.close(T::RBrac, "`]`", tok)?;
                let span = self.since(tok.start);
                self.deep(Exp::Op1(Op1::ToId, Box::new(e), span), d + 1, span)
            }
            _ => Err(self.expected("an expression")),
        }
    }

    /// `args`: expressions separated by commas, up to `close` (not consumed).
    pub(super) fn args(&mut self, close: T) -> Result<Deep<Vec<Exp>>, CatError> {
        let mut out = Vec::new();
        let mut depth = 0;
        if self.peek() == close {
            return Ok((out, depth));
        }
        loop {
            let (e, d) = self.base()?;
            depth = depth.max(d);
            out.push(e);
            if !self.eat(T::Comma) {
                return Ok((out, depth));
            }
        }
    }
}

/// The token of a binary operator.
fn op_token(op: Op2) -> T {
    match op {
        Op2::Union => T::Union,
        Op2::Add => T::PlusPlus,
        Op2::Seq => T::Semi,
        Op2::Diff => T::Diff,
        Op2::Inter => T::Inter,
        Op2::Cartesian => T::Star,
    }
}

/// herd7's `tuple_pat`: one name is a name, any other number a tuple.
pub(super) fn tuple_pat(mut names: Vec<Name>) -> Pattern {
    if names.len() == 1 {
        Pattern::Var(names.pop().flatten())
    } else {
        Pattern::Tuple(names)
    }
}
