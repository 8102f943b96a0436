//! The threads and their code: the program (which ends where herd7's splitter ends it), each
//! thread with its parameters and body, blocks (with their C comments, when they are kept),
//! and the statements: `if`, `while`, declarations, assignments, the `(void)` cast and
//! expression statements.

use nom::Err;
use nom::Parser as _;
use nom::combinator::{cut, opt};
use nom::error::context;
use nom::multi::many0;
use nom::sequence::preceded;

use super::Parser;
use super::lex::{
    PError, PResult, fail, failure, failure_msg, fatal, is_ident_char, is_ident_start,
    ml_comment_in_program, reserved_in_code,
};
use crate::ast::*;
use crate::dialect::{self, ProgramEnd};

/// What to say when a statement that starts with a C keyword herd7 reads as a plain name
/// does not parse.
fn missing_statement(lead: &str) -> Option<String> {
    let (what, rest) = match lead {
        "for" => ("`for` loop", ""),
        "do" => ("`do ... while` loop", ""),
        "switch" | "case" | "default" => ("`switch` statement", ""),
        "goto" => ("`goto`", ""),
        "return" => ("`return`", ", so a lone `return;` does nothing"),
        "break" | "continue" => ("`break` or `continue`", ", so a lone one does nothing"),
        _ => return None,
    };
    Some(format!(
        "herd7's C dialect has no {what}: it reads `{lead}` as a register's name{rest}"
    ))
}

impl<'a> Parser<'a> {
    /// `program ::= thread+`, which ends where herd7's splitter ends it: at the first trailer
    /// word after the init block, wherever that stands.
    pub(super) fn program(&self, i: &'a str) -> PResult<'a, (Vec<Thread>, Option<Vec<Region>>)> {
        let end = dialect::program_end(self.src, self.off(i));
        if let ProgramEnd::Unclosed(at) = end {
            return failure_msg(
                &self.src[at..],
                "herd7 skips what follows a `\"` between the init block and the condition up to \
                 the next `\"` on the same line, even in a comment, and refuses the test when \
                 the line has none; close the quote or remove it"
                    .to_string(),
            );
        }
        let r = cut(|i| self.threads(i))
            .parse(i)
            .and_then(|(rest, threads)| {
                let (rest, regions) = self.regions(rest)?;
                Ok((rest, (threads, regions)))
            });
        let ProgramEnd::Word(end) = end else {
            return r;
        };
        let past = match &r {
            Ok((rest, _)) => {
                let (after, ()) = self.trivia(rest)?;
                self.off(after) > end
            }
            Err(Err::Error(e) | Err::Failure(e)) => self.off(e.input) > end,
            Err(Err::Incomplete(_)) => false,
        };
        if past {
            let at = &self.src[end..];
            let n = at
                .find(|c: char| !(c.is_ascii_alphanumeric() || "_/.-".contains(c)))
                .unwrap_or(at.len());
            return failure_msg(
                at,
                format!(
                    "herd7 takes this `{}` for the start of the condition: it ends the threads \
                     at the first `exists`, `forall`, `final`, `filter`, `locations`, \
                     `observed` or `cases` after the init block, even in a comment or a name; \
                     reword the comment or rename",
                    &at[..n]
                ),
            );
        }
        r
    }

    /// `threads ::= (("void" "*"?)? thread)+`
    fn threads(&self, i: &'a str) -> PResult<'a, Vec<Thread>> {
        let mut threads = Vec::new();
        let mut i = i;
        loop {
            let (rest, ()) = self.trivia(i)?;
            if rest.starts_with("(*") {
                return failure_msg(rest, ml_comment_in_program());
            }
            // herd7 lets a thread be written as a C function that returns `void` or `void *`.
            let (rest, void) = match self.keyword("void", "")(rest) {
                Ok((r, _)) => match self.tok("*", "`*`")(r) {
                    Ok((r, _)) => (r, true),
                    Err(_) => (r, true),
                },
                Err(_) => (rest, false),
            };
            let (rest, ()) = self.trivia(rest)?;
            if !(rest.starts_with('P') && rest[1..].starts_with(|c: char| c.is_ascii_digit())) {
                if void {
                    return failure(rest, "a thread such as `P0(int *x)` after `void`");
                }
                if threads.is_empty() {
                    return fail(rest, "a thread such as `P0(int *x)`");
                }
                return Ok((rest, threads));
            }
            let (rest, t) = cut(context("the thread", |i| self.thread(i))).parse(rest)?;
            threads.push(t);
            i = rest;
        }
    }

    /// `regions ::= ("regions" ":" (region ("," region)*)?)?`, where
    /// `region ::= name ":" name+`: the memory regions of locations, after the threads.
    fn regions(&self, i: &'a str) -> PResult<'a, Option<Vec<Region>>> {
        let (i, ()) = self.trivia(i)?;
        let Ok((rest, _)) = self.keyword("regions", "")(i) else {
            return Ok((i, None));
        };
        let (mut rest, _) = cut(self.tok(":", "`:` after `regions`")).parse(rest)?;
        let mut regions = Vec::new();
        loop {
            let (r, ()) = self.trivia(rest)?;
            if regions.is_empty() && (!r.starts_with(is_ident_start) || self.trailer_word(r)) {
                return Ok((r, Some(regions)));
            }
            let start = r;
            let (r, loc) = cut(|i| self.region_name(i)).parse(r)?;
            let (r, _) = cut(self.tok(":", "`:` after the location")).parse(r)?;
            let (mut r, first) = cut(|i| self.region_name(i)).parse(r)?;
            let mut names = vec![first];
            loop {
                let (after, ()) = self.trivia(r)?;
                if !after.starts_with(is_ident_start) || self.trailer_word(after) {
                    break;
                }
                let (after, name) = cut(|i| self.region_name(i)).parse(after)?;
                // A name followed by `:` starts the next entry, which a `,` must precede.
                if self.peek(after, ":")? {
                    return failure_msg(
                        &self.src[name.span.start..],
                        "herd7 separates the entries of `regions:` with `,`".to_string(),
                    );
                }
                names.push(name);
                r = after;
            }
            regions.push(Region {
                loc,
                regions: names,
                span: self.span(start, r),
            });
            match self.tok(",", "`,`")(r) {
                Ok((after, _)) => rest = after,
                Err(_) => return Ok((r, Some(regions))),
            }
        }
    }

    /// A name in the `regions:` section: a word herd7's C lexer leaves a name.
    fn region_name(&self, i: &'a str) -> PResult<'a, Ident> {
        let (i, ()) = self.trivia(i)?;
        let (rest, id) = self.word(i)?;
        if !dialect::is_code_name(&id.name) {
            return failure_msg(i, reserved_in_code(&id.name));
        }
        Ok((rest, id))
    }

    /// Whether `i` starts with a word that begins the trailer.
    fn trailer_word(&self, i: &str) -> bool {
        [
            "locations",
            "filter",
            "exists",
            "forall",
            "final",
            "observed",
            "cases",
        ]
        .iter()
        .any(|w| {
            i.strip_prefix(w)
                .is_some_and(|r| !r.starts_with(is_ident_char))
        })
    }

    /// `thread ::= "P" digits "(" (param ("," param)*)? ")" "{" item+ "}"`
    fn thread(&self, i: &'a str) -> PResult<'a, Thread> {
        let (i, ()) = self.trivia(i)?;
        let start = i;
        let (rest, name) = self.word(i)?;
        let id = name.name[1..]
            .parse::<u32>()
            .map_err(|_| fatal(start, format!("invalid thread name `{}`", name.name)))?;
        let (i, open) = cut(self.tok("(", "`(` after the thread name")).parse(rest)?;
        let (i, params) = self.list(i, |i| self.param(i))?;
        let (i, _) = cut(self.tok(")", "`)`")).parse(i).map_err(|e| {
            let e = e.map(|mut err| {
                if params.is_empty() && err.full_message().is_none() {
                    err.set_expected("a parameter such as `int *x`, or `)`");
                }
                err
            });
            self.closing(e, open, "`)`", "the parameter list")
        })?;
        let (i, body) = self.block_body(i, "the body of the thread")?;
        Ok((
            i,
            Thread {
                id,
                name_span: name.span,
                params,
                body,
                span: self.span(start, i),
            },
        ))
    }

    /// `list(item) ::= (item ("," item)*)?`: parameters and arguments.
    pub(super) fn list<T>(
        &self,
        i: &'a str,
        mut item: impl FnMut(&'a str) -> PResult<'a, T>,
    ) -> PResult<'a, Vec<T>> {
        let (i, first) = opt(&mut item).parse(i)?;
        let Some(first) = first else {
            return Ok((i, Vec::new()));
        };
        let (i, mut rest) = many0(preceded(self.tok(",", "`,`"), cut(&mut item))).parse(i)?;
        rest.insert(0, first);
        Ok((i, rest))
    }

    /// `param ::= code-type name`, the type a pointer.
    fn param(&self, i: &'a str) -> PResult<'a, Param> {
        let (i, ()) = self.trivia(i)?;
        let (rest, ty) = self.code_type(i)?;
        self.one_word_type(rest)?;
        let written = self.src[ty.span.start..ty.span.end].trim_end();
        if ty.pointers > 0 && !written.ends_with('*') {
            return failure_msg(
                i,
                format!(
                    "herd7 takes a parameter's type ending with its `*`, not `{written}`: drop \
                     the qualifier after the `*`"
                ),
            );
        }
        if ty.pointers == 0 {
            return failure_msg(
                i,
                format!(
                    "herd7's thread parameters are pointers: write `{} *` for the type",
                    ty.base
                ),
            );
        }
        let (rest, name) = cut(|i| self.code_name(i)).parse(rest)?;
        Ok((
            rest,
            Param {
                ty,
                name,
                span: self.span(i, rest),
            },
        ))
    }

    /// `block ::= "{" item+ "}"`: a thread's body or a block; herd7 refuses an empty one.
    fn block_body(&self, i: &'a str, what: &str) -> PResult<'a, Vec<Stmt>> {
        let (mut i, open) = self.tok("{", "`{`")(i)?;
        let mut body = Vec::new();
        loop {
            if self.keep_comments {
                i = self.comment_stmts(i, &mut body)?;
            }
            if self.peek(i, "}")? {
                let (rest, close) = self.tok("}", "`}`")(i)?;
                if body
                    .iter()
                    .all(|s: &Stmt| matches!(s.kind, StmtKind::Comment { .. }))
                {
                    return failure_msg(
                        close,
                        format!(
                            "{what} is empty: herd7 needs at least one statement between the \
                             braces"
                        ),
                    );
                }
                return Ok((rest, body));
            }
            let (rest, ()) = self.trivia(i)?;
            if rest.is_empty() {
                let mut e = PError::expected(i, "`}`");
                e.at_eof = true;
                return Err(self.closing(Err::Failure(e), open, "`}`", what));
            }
            // The next thread where a statement should be: this block's `}` is missing.
            if starts_thread(rest) {
                let e = Err::Failure(PError::expected(rest, "`}`"));
                return Err(self.closing(e, open, "`}`", what));
            }
            let (rest, s) = cut(|i| self.stmt(i, true))
                .parse(rest)
                .map_err(|e| self.closing(e, open, "`}`", what))?;
            body.push(s);
            i = rest;
        }
    }

    /// In [`parse_keeping_comments`](crate::parse_keeping_comments) mode: the C comments
    /// before the next statement, as `Comment` statements appended to `body`.
    fn comment_stmts(
        &self,
        mut i: &'a str,
        body: &mut Vec<Stmt>,
    ) -> Result<&'a str, Err<PError<'a>>> {
        loop {
            let j = i.trim_start();
            // A comment on the line of the statement before it trails that statement.
            let trailing = !body.is_empty() && !i[..i.len() - j.len()].contains('\n');
            let (text, block, rest) = if let Some(r) = j.strip_prefix("//") {
                let n = r.find('\n').unwrap_or(r.len());
                (r[..n].trim_end(), false, &r[n..])
            } else if let Some(r) = j.strip_prefix("/*") {
                match r.find("*/") {
                    Some(n) => (&r[..n], true, &r[n + 2..]),
                    // The trivia skipper reports it.
                    None => return Ok(i),
                }
            } else {
                return Ok(i);
            };
            body.push(Stmt {
                kind: StmtKind::Comment {
                    text: text.to_string(),
                    block,
                    trailing,
                },
                span: self.span(j, rest),
            });
            i = rest;
        }
    }

    // ---------------------------------------------------------------- statements

    /// `stmt ::= block | if | while | declaration | assignment | "(" "void" ")" expr ";"
    /// | expr ";"`; where `item` holds (in a block or a thread's body, not as a branch), a
    /// declaration may also go without a value.
    fn stmt(&self, i: &'a str, item: bool) -> PResult<'a, Stmt> {
        self.enter(i)?;
        let r = self.stmt_inner(i, item);
        self.leave();
        r
    }

    fn stmt_inner(&self, i: &'a str, item: bool) -> PResult<'a, Stmt> {
        let (i, ()) = self.trivia(i)?;
        let start = i;
        if i.starts_with('{') {
            let (rest, body) = self.block_body(i, "the block")?;
            return Ok((
                rest,
                Stmt {
                    kind: StmtKind::Block(body),
                    span: self.span(start, rest),
                },
            ));
        }
        if i.starts_with(';') {
            return failure_msg(
                i,
                "herd7's C dialect has no empty statement: remove this `;`".to_string(),
            );
        }
        // The statement's first word decides its kind.
        let lead = &i[..i.find(|c: char| !is_ident_char(c)).unwrap_or(i.len())];
        if lead == "if" {
            let (rest, cond) = cut(|i| self.paren_cond(i, "`(` after `if`")).parse(&i[2..])?;
            let (rest, then) = cut(|i| self.stmt(i, false)).parse(rest)?;
            let (rest, els) = match self.keyword("else", "`else`")(rest) {
                Ok((r, _)) => {
                    let (r, s) = cut(|i| self.stmt(i, false)).parse(r)?;
                    (r, Some(Box::new(s)))
                }
                Err(_) => (rest, None),
            };
            let span = self.span(start, rest);
            return Ok((
                rest,
                Stmt {
                    kind: StmtKind::If {
                        cond,
                        then: Box::new(then),
                        els,
                    },
                    span,
                },
            ));
        }
        if lead == "while" {
            let (rest, cond) = cut(|i| self.paren_cond(i, "`(` after `while`")).parse(&i[5..])?;
            let (rest, body) = cut(|i| self.stmt(i, false)).parse(rest)?;
            let span = self.span(start, rest);
            return Ok((
                rest,
                Stmt {
                    kind: StmtKind::While {
                        cond,
                        body: Box::new(body),
                    },
                    span,
                },
            ));
        }
        if dialect::begins_code_type(lead) {
            return self.declaration(i, item);
        }
        if let Some(s) = self.void_stmt(i)? {
            return Ok(s);
        }
        match self.simple_stmt(i) {
            Err(e) if !lead.is_empty() => match missing_statement(lead) {
                Some(m) => failure_msg(i, m),
                // Two names in a row: the first is probably a type herd7 does not know.
                None if self.unknown_type(i, lead)? => failure_msg(
                    i,
                    format!(
                        "herd7's thread code has no type `{lead}`; its types are `int`, \
                         `char`, `long`, `intN_t`, `uintN_t`, `intptr_t`, `uintptr_t`, \
                         `atomic_t`, `spinlock_t`, `struct srcu_struct`, pointers to them, \
                         and `void *`"
                    ),
                ),
                None => Err(e),
            },
            r => r,
        }
    }

    /// Whether `i` starts with two names in a row, the first being `lead`.
    fn unknown_type(&self, i: &'a str, lead: &str) -> Result<bool, Err<PError<'a>>> {
        let (rest, ()) = self.trivia(&i[lead.len()..])?;
        Ok(rest.starts_with(is_ident_start))
    }

    /// `declaration ::= code-type name ("=" expr)? ";"`; the value may be left out only in
    /// a block or a thread's body.
    fn declaration(&self, i: &'a str, item: bool) -> PResult<'a, Stmt> {
        let start = i;
        let (rest, ty) = cut(|i| self.code_type(i)).parse(i)?;
        self.one_word_type(rest)?;
        if ty.base == "void" && ty.pointers == 0 {
            return failure_msg(
                &self.src[ty.span.start..],
                "herd7 knows `void *`, not `void`".to_string(),
            );
        }
        let (rest, name) = cut(|i| self.code_name(i)).parse(rest)?;
        let (rest, init) = match self.assign_op(rest) {
            Ok((r, ())) => {
                let (r, e) = cut(|i| self.expr(i)).parse(r)?;
                (r, Some(e))
            }
            Err(_) => (rest, None),
        };
        if self.peek(rest, ",")? {
            let (at, ()) = self.trivia(rest)?;
            return failure_msg(
                at,
                "declare one name per declaration, as in `int r0; int r1;`".to_string(),
            );
        }
        if init.is_none() && !item {
            return failure_msg(
                start,
                "herd7 takes a declaration without a value only in a block or a thread's \
                 body, not as the branch of an `if` or `while`: put braces around it"
                    .to_string(),
            );
        }
        let (rest, _) = cut(self.tok(";", "`;` after the declaration")).parse(rest)?;
        let span = self.span(start, rest);
        Ok((
            rest,
            Stmt {
                kind: StmtKind::Decl { ty, name, init },
                span,
            },
        ))
    }

    /// Refuses a second type word after a type, as in `long long` or `unsigned int`.
    fn one_word_type(&self, i: &'a str) -> Result<(), Err<PError<'a>>> {
        match self.word(i) {
            Ok((_, w)) if dialect::begins_code_type(&w.name) => Err(fatal(
                &self.src[w.span.start..],
                format!(
                    "herd7's thread code has one-word types (with `*`, `volatile` and \
                     `const`): `{}` cannot follow another type word",
                    w.name
                ),
            )),
            _ => Ok(()),
        }
    }

    /// `"(" "void" ")" expr ";"`, the one place herd7 takes a cast to `void`.
    fn void_stmt(&self, i: &'a str) -> Result<Option<(&'a str, Stmt)>, Err<PError<'a>>> {
        let start = i;
        let Some(r) = i.strip_prefix('(') else {
            return Ok(None);
        };
        let Ok((r, void)) = self.keyword("void", "")(r) else {
            return Ok(None);
        };
        let Ok((r, _)) = self.tok(")", "")(r) else {
            return Ok(None);
        };
        let (r, e) = cut(|i| self.expr(i)).parse(r)?;
        let (r, _) = cut(self.tok(";", "`;` after the expression")).parse(r)?;
        let ty = Type {
            volatile: false,
            base: "void".to_string(),
            pointers: 0,
            span: void,
        };
        let span = Span::new(self.off(start), e.span.end);
        let cast = Expr {
            kind: ExprKind::Cast(ty, Box::new(e)),
            span,
        };
        Ok(Some((
            r,
            Stmt {
                kind: StmtKind::Expr(cast),
                span: self.span(start, r),
            },
        )))
    }

    /// `assignment ::= name "=" expr ";" | lvalue "=" expr ";"`, or `expr ";"`.
    fn simple_stmt(&self, i: &'a str) -> PResult<'a, Stmt> {
        let start = i;
        if let Ok((rest, id)) = self.word(i)
            && let Some(ins) = dialect::instruction(&id.name)
            && ins.place != dialect::Place::Expr
        {
            let (rest, e) = self.instruction(i, id, rest, ins, true)?;
            // `__srcu{...}(s)` may also begin an expression statement.
            let srcu_expr = ins.place == dialect::Place::Srcu
                && !self.peek(rest, ";")?
                && matches!(&e.kind, ExprKind::Instruction { args, .. } if args.len() == 1);
            if !srcu_expr {
                let (rest, _) = cut(self.tok(";", "`;` after the instruction")).parse(rest)?;
                let span = self.span(start, rest);
                return Ok((
                    rest,
                    Stmt {
                        kind: StmtKind::Expr(e),
                        span,
                    },
                ));
            }
        }
        if let Ok((rest, id)) = self.word(i)
            && self.assign_op(rest).is_ok()
        {
            if !dialect::is_code_name(&id.name) {
                return failure_msg(i, reserved_in_code(&id.name));
            }
            let span = id.span;
            let lhs = Expr {
                kind: ExprKind::Ident(id),
                span,
            };
            return self.assignment(start, lhs, rest);
        }
        if i.starts_with('*') {
            match self.lvalue(i) {
                Ok((rest, lhs)) if self.assign_op(rest).is_ok() => {
                    return self.assignment(start, lhs, rest);
                }
                Err(Err::Failure(e)) => return Err(Err::Failure(e)),
                // Otherwise an expression that starts with a dereference.
                _ => {}
            }
        }
        let (rest, lhs) = self.expr(i).map_err(|e| {
            e.map(|mut err| {
                if err.input.len() == i.len() && err.full_message().is_none() {
                    err.set_expected("a statement");
                }
                err
            })
        })?;
        if self.assign_op(rest).is_ok() {
            let message = match &lhs.kind {
                ExprKind::Deref(p) if matches!(p.kind, ExprKind::Cast(..)) => {
                    "herd7 assigns through a cast only in parentheses: write `*((type *)p) = ...`"
                }
                _ => {
                    "herd7 assigns to a register (`r0 = ...;`) or through a pointer \
                      (`*x = ...;`), not to this"
                }
            };
            return failure_msg(i, message.to_string());
        }
        let (rest, _) = cut(self.tok(";", "`;` after the expression")).parse(rest)?;
        let span = self.span(start, rest);
        Ok((
            rest,
            Stmt {
                kind: StmtKind::Expr(lhs),
                span,
            },
        ))
    }

    /// The rest of an assignment to `lhs`, from its `=`.
    fn assignment(&self, start: &'a str, lhs: Expr, i: &'a str) -> PResult<'a, Stmt> {
        let (r, ()) = self.assign_op(i)?;
        let (r, rhs) = cut(|i| self.expr(i)).parse(r)?;
        let (r, _) = cut(self.tok(";", "`;` after the assignment")).parse(r)?;
        let span = self.span(start, r);
        Ok((
            r,
            Stmt {
                kind: StmtKind::Assign { lhs, rhs },
                span,
            },
        ))
    }

    /// `lvalue ::= "*" location`, `location ::= name | "*" location | "(" expr ")"`: where
    /// an assignment through a pointer writes (here `**p` needs no parentheses).
    fn lvalue(&self, i: &'a str) -> PResult<'a, Expr> {
        self.enter(i)?;
        let r = self.lvalue_inner(i);
        self.leave();
        r
    }

    fn lvalue_inner(&self, i: &'a str) -> PResult<'a, Expr> {
        let (i, ()) = self.trivia(i)?;
        let start = i;
        let Some(rest) = i.strip_prefix('*') else {
            return fail(i, "`*`");
        };
        let (rest, ()) = self.trivia(rest)?;
        let (rest, loc) = if rest.starts_with('*') {
            self.lvalue(rest)?
        } else if let Some(r) = rest.strip_prefix('(') {
            let (r, e) = self.expr(r)?;
            let (r, _) = self.tok(")", "`)`")(r)?;
            (r, e)
        } else {
            let (r, id) = self.code_name(rest)?;
            let span = id.span;
            (
                r,
                Expr {
                    kind: ExprKind::Ident(id),
                    span,
                },
            )
        };
        Ok((
            rest,
            Expr {
                kind: ExprKind::Deref(Box::new(loc)),
                span: self.span(start, rest),
            },
        ))
    }

    /// A lone `=` (not `==`).
    fn assign_op(&self, i: &'a str) -> PResult<'a, ()> {
        let (i, ()) = self.trivia(i)?;
        match i.strip_prefix('=') {
            Some(rest) if !rest.starts_with('=') => Ok((rest, ())),
            _ => fail(i, "`=`"),
        }
    }

    /// `"(" expr ")"` after `if` or `while`; `open_what` is the expectation for the `(`.
    fn paren_cond(&self, i: &'a str, open_what: &'static str) -> PResult<'a, Expr> {
        let (i, open) = self.tok("(", open_what)(i)?;
        let (i, e) = cut(|i| self.expr(i)).parse(i)?;
        let (i, _) = cut(self.tok(")", "`)`"))
            .parse(i)
            .map_err(|e| self.closing(e, open, "`)`", "the condition"))?;
        Ok((i, e))
    }
}

/// Whether `i` starts a thread, `P0(` (or `void P0(`), which no statement can.
fn starts_thread(i: &str) -> bool {
    let i = match i.strip_prefix("void") {
        Some(r) if r.starts_with(|c: char| c.is_whitespace() || c == '*') => {
            r.trim_start().trim_start_matches('*').trim_start()
        }
        _ => i,
    };
    let Some(digits) = i.strip_prefix('P') else {
        return false;
    };
    let rest = digits.trim_start_matches(|c: char| c.is_ascii_digit());
    rest.len() < digits.len() && rest.trim_start().starts_with('(')
}
