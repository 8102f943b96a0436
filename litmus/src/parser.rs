//! The nom parser: one method per grammar rule, from [`Parser::test`] down to tokens.
//!
//! The rules are methods of [`Parser`], which holds the whole source (to turn the remaining
//! input into byte offsets for spans), the comments met so far, and the nesting depth.
//! Every rule skips the trivia (white space and comments) before its tokens.
//! Once a rule has seen the token that commits it (`if`, `(`, `exists`, ...) the rest is
//! wrapped in `cut`, so errors name the real mistake instead of a far-away alternative.
//!
//! Two comment syntaxes share the file: `(* ... *)` outside thread bodies (kept in the AST),
//! and C's `//` and `/* */` everywhere (dropped).
//! Inside thread bodies `(*` is C (`READ_ONCE(*x)`), never a comment.
//!
//! # Complexity
//!
//! Linear in the input: alternatives backtrack over at most one item (an init item, a
//! statement head or a type), and nesting deeper than [`MAX_DEPTH`] is an error rather than a
//! stack overflow.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use nom::Parser as _;
use nom::error::{ContextError, ErrorKind, ParseError};
use nom::{Err, IResult};

use crate::ast::*;

/// How deeply expressions, propositions and statements may nest.
pub(crate) const MAX_DEPTH: u32 = 200;

/// The error inside the parser: positions are remaining inputs, turned into offsets at the
/// public boundary.
#[derive(Debug)]
pub(crate) struct PError<'a> {
    /// Where the error is.
    pub(crate) input: &'a str,
    /// What was expected there (merged when alternatives fail at the same place).
    pub(crate) expected: Vec<&'static str>,
    /// A full message, which wins over `expected` when present.
    pub(crate) message: Option<String>,
    /// Extra notes with the place they refer to: "the condition opened here".
    pub(crate) notes: Vec<(&'a str, String)>,
    /// The rules being parsed, innermost first, with where each began.
    pub(crate) contexts: Vec<(&'a str, &'static str)>,
}

impl<'a> PError<'a> {
    fn expected(input: &'a str, what: &'static str) -> PError<'a> {
        PError {
            input,
            expected: vec![what],
            message: None,
            notes: Vec::new(),
            contexts: Vec::new(),
        }
    }

    fn message(input: &'a str, message: String) -> PError<'a> {
        PError {
            input,
            expected: Vec::new(),
            message: Some(message),
            notes: Vec::new(),
            contexts: Vec::new(),
        }
    }
}

impl<'a> ParseError<&'a str> for PError<'a> {
    fn from_error_kind(input: &'a str, kind: ErrorKind) -> Self {
        let what = match kind {
            ErrorKind::Eof => "end of file",
            ErrorKind::Digit => "a number",
            _ => "valid syntax",
        };
        PError::expected(input, what)
    }

    fn append(_input: &'a str, _kind: ErrorKind, other: Self) -> Self {
        other
    }

    fn or(self, other: Self) -> Self {
        // Keep the error that got further; merge what both expected at the same place.
        match self.input.len().cmp(&other.input.len()) {
            std::cmp::Ordering::Less => self,
            std::cmp::Ordering::Greater => other,
            std::cmp::Ordering::Equal => {
                let mut merged = other;
                if merged.message.is_none() {
                    merged.message = self.message;
                }
                for e in self.expected {
                    if !merged.expected.contains(&e) {
                        merged.expected.push(e);
                    }
                }
                merged
            }
        }
    }
}

impl<'a> ContextError<&'a str> for PError<'a> {
    fn add_context(input: &'a str, ctx: &'static str, mut other: Self) -> Self {
        other.contexts.push((input, ctx));
        other
    }
}

pub(crate) type PResult<'a, T> = IResult<&'a str, T, PError<'a>>;

fn fail<'a, T>(input: &'a str, what: &'static str) -> PResult<'a, T> {
    Err(Err::Error(PError::expected(input, what)))
}

fn failure<'a, T>(input: &'a str, what: &'static str) -> PResult<'a, T> {
    Err(Err::Failure(PError::expected(input, what)))
}

fn fatal(input: &str, message: String) -> Err<PError<'_>> {
    Err::Failure(PError::message(input, message))
}

fn failure_msg<'a, T>(input: &'a str, message: String) -> PResult<'a, T> {
    Err(Err::Failure(PError::message(input, message)))
}

/// Turns a recoverable error into a failure: the caller has committed.
fn commit<T>(r: Result<T, Err<PError<'_>>>) -> Result<T, Err<PError<'_>>> {
    r.map_err(|e| match e {
        Err::Error(e) => Err::Failure(e),
        other => other,
    })
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Words that are never identifiers in C code.
const KEYWORDS: &[&str] = &[
    "if", "else", "while", "do", "for", "return", "goto", "switch", "case", "break", "continue",
    "struct", "volatile", "const", "sizeof",
];

/// Words that begin a type.
const TYPE_WORDS: &[&str] = &[
    "int", "char", "long", "short", "unsigned", "signed", "void", "bool", "_Bool", "struct",
    "volatile", "const",
];

fn is_type_word(word: &str) -> bool {
    TYPE_WORDS.contains(&word) || (word.ends_with("_t") && word.len() > 2)
}

/// The parser state for one source text.
pub(crate) struct Parser<'a> {
    src: &'a str,
    comments: RefCell<BTreeMap<usize, Comment>>,
    place: Cell<CommentPlace>,
    /// Whether `(* ... *)` is a comment here (outside thread bodies).
    ml_comments: Cell<bool>,
    depth: Cell<u32>,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(src: &'a str) -> Parser<'a> {
        Parser {
            src,
            comments: RefCell::new(BTreeMap::new()),
            place: Cell::new(CommentPlace::Header),
            ml_comments: Cell::new(true),
            depth: Cell::new(0),
        }
    }

    /// The byte offset of the remaining input `i`.
    pub(crate) fn off(&self, i: &str) -> usize {
        self.src.len() - i.len()
    }

    fn span(&self, start: &str, end: &str) -> Span {
        Span::new(self.off(start), self.off(end))
    }

    /// Enters one level of nesting, failing cleanly past [`MAX_DEPTH`].
    fn enter(&self, i: &'a str) -> Result<(), Err<PError<'a>>> {
        let d = self.depth.get() + 1;
        if d > MAX_DEPTH {
            return Err(Err::Failure(PError::message(
                i,
                format!("nesting deeper than {MAX_DEPTH} levels"),
            )));
        }
        self.depth.set(d);
        Ok(())
    }

    fn leave(&self) {
        self.depth.set(self.depth.get() - 1);
    }

    // ---------------------------------------------------------------- trivia and tokens

    /// Skips white space and comments; `(* ... *)` ones are recorded.
    fn trivia(&self, mut i: &'a str) -> PResult<'a, ()> {
        loop {
            let trimmed = i.trim_start();
            i = trimmed;
            if let Some(rest) = i.strip_prefix("//") {
                i = rest.find('\n').map_or("", |n| &rest[n..]);
            } else if let Some(rest) = i.strip_prefix("/*") {
                match rest.find("*/") {
                    Some(n) => i = &rest[n + 2..],
                    None => return failure(i, "`*/` to close this comment"),
                }
            } else if self.ml_comments.get() && i.starts_with("(*") {
                i = self.ml_comment(i)?.0;
            } else {
                return Ok((i, ()));
            }
        }
    }

    /// `(* ... *)`, which may nest as in OCaml; records it in the comment list.
    fn ml_comment(&self, i: &'a str) -> PResult<'a, ()> {
        let mut depth = 0usize;
        let bytes = i.as_bytes();
        let mut k = 0;
        while k + 1 < bytes.len() {
            if bytes[k] == b'(' && bytes[k + 1] == b'*' {
                depth += 1;
                k += 2;
            } else if bytes[k] == b'*' && bytes[k + 1] == b')' {
                depth -= 1;
                k += 2;
                if depth == 0 {
                    let start = self.off(i);
                    let text = i[2..k - 2].to_string();
                    self.comments.borrow_mut().entry(start).or_insert(Comment {
                        text,
                        place: self.place.get(),
                        span: Span::new(start, start + k),
                    });
                    return Ok((&i[k..], ()));
                }
            } else {
                k += 1;
            }
        }
        failure(i, "`*)` to close this comment")
    }

    /// Skips trivia, then the exact token `t`.
    fn tok(
        &self,
        t: &'static str,
        what: &'static str,
    ) -> impl FnMut(&'a str) -> PResult<'a, &'a str> + '_ {
        move |i| {
            let (i, ()) = self.trivia(i)?;
            match i.strip_prefix(t) {
                Some(rest) => Ok((rest, &i[..t.len()])),
                None => fail(i, what),
            }
        }
    }

    /// Whether the next token (after trivia) is `t`, without consuming anything.
    fn peek(&self, i: &'a str, t: &str) -> Result<bool, Err<PError<'a>>> {
        let (i, ()) = self.trivia(i)?;
        Ok(i.starts_with(t))
    }

    /// Skips trivia, then an identifier (keywords included); returns it and where it began.
    fn word(&self, i: &'a str) -> PResult<'a, Ident> {
        let (i, ()) = self.trivia(i)?;
        if !i.starts_with(is_ident_start) {
            return fail(i, "a name");
        }
        let n = i.find(|c: char| !is_ident_char(c)).unwrap_or(i.len());
        let id = Ident::new(&i[..n], Span::new(self.off(i), self.off(i) + n));
        Ok((&i[n..], id))
    }

    /// Skips trivia, then the keyword `kw` (not followed by a name character).
    fn keyword(
        &self,
        kw: &'static str,
        what: &'static str,
    ) -> impl FnMut(&'a str) -> PResult<'a, Span> + '_ {
        move |i| {
            let (i, ()) = self.trivia(i)?;
            match i.strip_prefix(kw) {
                Some(rest) if !rest.starts_with(is_ident_char) => {
                    Ok((rest, Span::new(self.off(i), self.off(rest))))
                }
                _ => fail(i, what),
            }
        }
    }

    /// An identifier that is not a C keyword.
    fn ident(&self, i: &'a str) -> PResult<'a, Ident> {
        let (rest, id) = self.word(i)?;
        if KEYWORDS.contains(&id.name.as_str()) {
            let (i, ()) = self.trivia(i)?;
            return fail(i, "a name");
        }
        Ok((rest, id))
    }

    /// An unsigned integer literal, decimal or `0x` hexadecimal, as an `i128` for the caller
    /// to negate and range-check.
    fn natural(&self, i: &'a str) -> PResult<'a, (u64, Span)> {
        let (i, ()) = self.trivia(i)?;
        let (digits, radix, skip) = if let Some(h) = i.strip_prefix("0x").or(i.strip_prefix("0X")) {
            (h, 16, 2)
        } else {
            (i, 10, 0)
        };
        let n = digits
            .find(|c: char| !c.is_digit(radix))
            .unwrap_or(digits.len());
        if n == 0 {
            return fail(i, "a number");
        }
        let rest = &digits[n..];
        if rest.starts_with(is_ident_char) {
            let end = rest.find(|c: char| !is_ident_char(c)).unwrap_or(rest.len());
            return failure_msg(i, format!("invalid number `{}`", &i[..skip + n + end]));
        }
        match u64::from_str_radix(&digits[..n], radix) {
            Ok(v) => Ok((rest, (v, self.span(i, rest)))),
            Err(_) => failure_msg(i, format!("number `{}` is too large", &i[..skip + n])),
        }
    }

    /// An integer, possibly preceded by `-`.
    fn integer(&self, i: &'a str) -> PResult<'a, (i64, Span)> {
        let (i, ()) = self.trivia(i)?;
        let (rest, neg) = match i.strip_prefix('-') {
            Some(r) => (r, true),
            None => (i, false),
        };
        let (rest, (v, _)) = if neg {
            commit(self.natural(rest))?
        } else {
            self.natural(rest)?
        };
        let value = if neg { -(v as i128) } else { v as i128 };
        match i64::try_from(value) {
            Ok(v) => Ok((rest, (v, self.span(i, rest)))),
            Err(_) => failure_msg(i, format!("number `{}` is out of range", value)),
        }
    }

    // ---------------------------------------------------------------- the test

    /// `test ::= header init thread+ trailer EOF`
    pub(crate) fn test(&self, i: &'a str) -> PResult<'a, Test> {
        let start = i;
        let (i, (arch, name, doc, info)) = self.header(i)?;
        self.place.set(CommentPlace::Header);
        let (i, init) = commit(self.init(i))?;
        self.place.set(CommentPlace::Body);
        let (i, threads) = commit(self.threads(i))?;
        self.place.set(CommentPlace::Trailer);
        let (i, (locations, filter, condition)) = commit(self.trailer(i))?;
        let (i, ()) = self.trivia(i)?;
        if !i.is_empty() {
            return failure(
                i,
                "`locations`, `filter`, `exists`, `forall` or the end of the file",
            );
        }
        let comments: Vec<Comment> = self.comments.borrow().values().cloned().collect();
        let expectations = comments.iter().flat_map(expectations_in).collect();
        Ok((
            i,
            Test {
                arch,
                name,
                doc,
                info,
                comments,
                expectations,
                init,
                threads,
                locations,
                filter,
                condition,
                span: self.span(start, i),
            },
        ))
    }

    /// `header ::= "C" name NEWLINE (doc | comment | info-line)*`
    #[allow(clippy::type_complexity)]
    fn header(&self, i: &'a str) -> PResult<'a, (String, Ident, Option<String>, Vec<InfoLine>)> {
        let (i, arch) = self.word(i).map_err(|_| {
            let (j, _) = self.trivia(i).unwrap_or((i, ()));
            Err::Failure(PError::expected(j, "`C` and the test name"))
        })?;
        if arch.name != "C" {
            return failure_msg(
                &self.src[arch.span.start..],
                format!(
                    "only C litmus tests are accepted, this one is `{}`",
                    arch.name
                ),
            );
        }
        let j = i.trim_start_matches([' ', '\t']);
        let n = j.find(char::is_whitespace).unwrap_or(j.len());
        if n == 0 {
            return failure(j, "the test name after `C`");
        }
        let name = Ident::new(&j[..n], Span::new(self.off(j), self.off(j) + n));
        let mut i = &j[n..];
        let mut doc = None;
        let mut info = Vec::new();
        loop {
            i = i.trim_start();
            if i.starts_with("(*") {
                i = self.ml_comment(i)?.0;
            } else if i.starts_with('{') || i.is_empty() {
                return Ok((i, (arch.name, name, doc, info)));
            } else if doc.is_none() && info.is_empty() && i.starts_with('"') {
                match i[1..].find('"') {
                    Some(n) => {
                        doc = Some(i[1..1 + n].to_string());
                        i = &i[n + 2..];
                    }
                    None => return failure(i, "`\"` to close the doc string"),
                }
            } else {
                let n = i.find('\n').unwrap_or(i.len());
                let text = i[..n].trim_end();
                info.push(InfoLine {
                    text: text.to_string(),
                    span: Span::new(self.off(i), self.off(i) + text.len()),
                });
                i = &i[n..];
            }
        }
    }

    /// `init ::= "{" (init-item ";")* "}"`
    fn init(&self, i: &'a str) -> PResult<'a, Vec<InitItem>> {
        let (i, open) = self.tok("{", "`{` to open the init block")(i)?;
        let mut items = Vec::new();
        let mut i = i;
        loop {
            if self.peek(i, "}")? {
                let (rest, _) = self.tok("}", "`}`")(i)?;
                return Ok((rest, items));
            }
            let (rest, item) = self
                .init_item(i)
                .map_err(|e| self.closing(e, open, "`}`", "the init block"))?;
            items.push(item);
            i = rest;
            match self.tok(";", "`;`")(i) {
                Ok((rest, _)) => i = rest,
                Err(_) if self.peek(i, "}")? => {}
                Err(e) => return Err(self.closing(commit_err(e), open, "`}`", "the init block")),
            }
        }
    }

    /// Adds "to close X opened at L:C" to an error whose expectation is the closing token.
    fn closing(
        &self,
        e: Err<PError<'a>>,
        open: &'a str,
        close: &'static str,
        what: &str,
    ) -> Err<PError<'a>> {
        e.map(|mut err| {
            if err.message.is_none() && err.expected.contains(&close) {
                let (l, c) = line_col(self.src, self.off(open));
                err.notes.push((open, format!("{what} opened at {l}:{c}")));
            }
            err
        })
    }

    /// `init-item ::= type? location ("=" init-value)?`
    fn init_item(&self, i: &'a str) -> PResult<'a, InitItem> {
        let (i, ()) = self.trivia(i)?;
        let start = i;
        let (i, ty) = match self.ty(i) {
            Ok((rest, ty)) => match self.location(rest) {
                Ok(_) => (rest, Some(ty)),
                Err(_) => (i, None),
            },
            Err(Err::Error(_)) => (i, None),
            Err(e) => return Err(e),
        };
        let (i, target) = self.location(i).map_err(|e| {
            e.map(|mut err| {
                err.expected = vec!["a variable or register to initialise"];
                err
            })
        })?;
        let target_end = i;
        let (i, value) = match self.tok("=", "`=`")(i) {
            Ok((rest, _)) => {
                let (rest, v) = commit(self.init_value(rest))?;
                (rest, Some(v))
            }
            Err(_) => (i, None),
        };
        let end = if value.is_some() { i } else { target_end };
        Ok((
            i,
            InitItem {
                ty,
                target,
                value,
                span: self.span(start, end),
            },
        ))
    }

    /// `init-value ::= integer | "&"? name | "ATOMIC_INIT" "(" integer ")"`
    fn init_value(&self, i: &'a str) -> PResult<'a, InitValue> {
        if let Ok((rest, (v, _))) = self.integer(i) {
            return Ok((rest, InitValue::Int(v)));
        }
        if let Ok((rest, _)) = self.tok("&", "`&`")(i) {
            let (rest, id) = commit(self.ident(rest))?;
            return Ok((rest, InitValue::Addr(id)));
        }
        let (rest, id) = self.ident(i).map_err(|e| {
            e.map(|mut err| {
                err.expected = vec!["an integer or an address"];
                err
            })
        })?;
        if id.name == "ATOMIC_INIT" {
            let (rest, open) = commit(self.tok("(", "`(` after `ATOMIC_INIT`")(rest))?;
            let (rest, (v, _)) = commit(self.integer(rest))?;
            let (rest, _) = commit(self.tok(")", "`)`")(rest))
                .map_err(|e| self.closing(e, open, "`)`", "`ATOMIC_INIT(`"))?;
            return Ok((rest, InitValue::AtomicInit(v)));
        }
        Ok((rest, InitValue::Addr(id)))
    }

    /// `location ::= digits ":" name | name`
    fn location(&self, i: &'a str) -> PResult<'a, Location> {
        let (i, ()) = self.trivia(i)?;
        if i.starts_with(|c: char| c.is_ascii_digit()) {
            let (rest, (thread, _)) = self.natural(i)?;
            let thread = u32::try_from(thread)
                .map_err(|_| fatal(i, "thread number too large".to_string()))?;
            let (rest, _) = commit(self.tok(":", "`:` after the thread number")(rest))?;
            let (rest, reg) = commit(self.ident(rest))?;
            return Ok((
                rest,
                Location::Register {
                    thread,
                    reg,
                    span: self.span(i, rest),
                },
            ));
        }
        let (rest, id) = self.ident(i)?;
        Ok((rest, Location::Global(id)))
    }

    /// `type ::= "volatile"? ("struct" name | type-word+) "*"*`
    fn ty(&self, i: &'a str) -> PResult<'a, Type> {
        let (i, ()) = self.trivia(i)?;
        let start = i;
        let (mut i, first) = self.word(i)?;
        if !is_type_word(&first.name) {
            return fail(start, "a type");
        }
        let mut volatile = false;
        let mut words: Vec<String> = Vec::new();
        let mut word = first;
        loop {
            match word.name.as_str() {
                "volatile" => volatile = true,
                "const" => {}
                "struct" => {
                    let (rest, tag) = commit(self.ident(i))?;
                    words.push(format!("struct {}", tag.name));
                    i = rest;
                }
                _ => words.push(word.name.clone()),
            }
            match self.word(i) {
                Ok((rest, w)) if is_type_word(&w.name) => {
                    word = w;
                    i = rest;
                }
                _ => break,
            }
        }
        if words.is_empty() {
            return fail(i, "a type after `volatile`");
        }
        let mut pointers = 0;
        let mut end = i;
        loop {
            let (rest, ()) = self.trivia(i)?;
            match rest.strip_prefix('*') {
                Some(r) => {
                    pointers += 1;
                    i = r;
                    end = r;
                }
                None => break,
            }
        }
        Ok((
            end,
            Type {
                volatile,
                base: words.join(" "),
                pointers,
                span: self.span(start, end),
            },
        ))
    }

    /// `threads ::= thread+`
    fn threads(&self, i: &'a str) -> PResult<'a, Vec<Thread>> {
        let mut threads = Vec::new();
        let mut i = i;
        loop {
            let (rest, ()) = self.trivia(i)?;
            if !(rest.starts_with('P') && rest[1..].starts_with(|c: char| c.is_ascii_digit())) {
                if threads.is_empty() {
                    return fail(rest, "a thread such as `P0(int *x)`");
                }
                return Ok((rest, threads));
            }
            let (rest, t) = commit(self.thread(rest))?;
            threads.push(t);
            i = rest;
        }
    }

    /// `thread ::= "P" digits "(" (param ("," param)*)? ")" "{" stmt* "}"`
    fn thread(&self, i: &'a str) -> PResult<'a, Thread> {
        let (i, ()) = self.trivia(i)?;
        let start = i;
        let (rest, name) = self.word(i)?;
        let id = name.name[1..]
            .parse::<u32>()
            .map_err(|_| fatal(start, format!("invalid thread name `{}`", name.name)))?;
        let (mut i, open) = commit(self.tok("(", "`(` after the thread name")(rest))?;
        let mut params = Vec::new();
        if !self.peek(i, ")")? {
            loop {
                let (rest, p) = commit(self.param(i))?;
                params.push(p);
                i = rest;
                if let Ok((rest, _)) = self.tok(",", "`,`")(i) {
                    i = rest;
                } else {
                    break;
                }
            }
        }
        let (i, _) = commit(self.tok(")", "`)`")(i))
            .map_err(|e| self.closing(e, open, "`)`", "the parameter list"))?;
        self.ml_comments.set(false);
        let r = self.block_body(i, "the body of the thread");
        self.ml_comments.set(true);
        let (i, body) = r?;
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

    /// `param ::= type name`
    fn param(&self, i: &'a str) -> PResult<'a, Param> {
        let (i, ()) = self.trivia(i)?;
        let (rest, ty) = self.ty(i)?;
        let (rest, name) = commit(self.ident(rest))?;
        Ok((
            rest,
            Param {
                ty,
                name,
                span: self.span(i, rest),
            },
        ))
    }

    /// `block ::= "{" stmt* "}"`
    fn block_body(&self, i: &'a str, what: &str) -> PResult<'a, Vec<Stmt>> {
        let (mut i, open) = self.tok("{", "`{`")(i)?;
        let mut body = Vec::new();
        loop {
            if self.peek(i, "}")? {
                let (rest, _) = self.tok("}", "`}`")(i)?;
                return Ok((rest, body));
            }
            let (rest, ()) = self.trivia(i)?;
            if rest.is_empty() {
                return Err(self.closing(
                    Err::Failure(PError::expected(rest, "`}`")),
                    open,
                    "`}`",
                    what,
                ));
            }
            let (rest, s) =
                commit(self.stmt(rest)).map_err(|e| self.closing(e, open, "`}`", what))?;
            body.push(s);
            i = rest;
        }
    }

    // ---------------------------------------------------------------- statements

    /// `stmt ::= block | if | while | do-while | ";" | decl | expr ("=" expr)? ";"`
    fn stmt(&self, i: &'a str) -> PResult<'a, Stmt> {
        self.enter(i)?;
        let r = self.stmt_inner(i);
        self.leave();
        r
    }

    fn stmt_inner(&self, i: &'a str) -> PResult<'a, Stmt> {
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
        if let Some(rest) = i.strip_prefix(';') {
            return Ok((
                rest,
                Stmt {
                    kind: StmtKind::Empty,
                    span: self.span(start, rest),
                },
            ));
        }
        if let Ok((rest, _)) = self.keyword("if", "`if`")(i) {
            let (rest, cond) = commit(self.paren_cond(rest, "`if`"))?;
            let (rest, then) = commit(self.stmt(rest))?;
            let (rest, els) = match self.keyword("else", "`else`")(rest) {
                Ok((r, _)) => {
                    let (r, s) = commit(self.stmt(r))?;
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
        if let Ok((rest, _)) = self.keyword("while", "`while`")(i) {
            let (rest, cond) = commit(self.paren_cond(rest, "`while`"))?;
            let (rest, body) = commit(self.stmt(rest))?;
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
        if let Ok((rest, _)) = self.keyword("do", "`do`")(i) {
            let (rest, body) = commit(self.stmt(rest))?;
            let (rest, _) = commit(self.keyword("while", "`while` after the `do` body")(rest))?;
            let (rest, cond) = commit(self.paren_cond(rest, "`while`"))?;
            let (rest, _) = commit(self.tok(";", "`;` after `do ... while (...)`")(rest))?;
            let span = self.span(start, rest);
            return Ok((
                rest,
                Stmt {
                    kind: StmtKind::DoWhile {
                        body: Box::new(body),
                        cond,
                    },
                    span,
                },
            ));
        }
        for kw in [
            "for", "return", "goto", "switch", "break", "continue", "case",
        ] {
            if let Ok((_, span)) = self.keyword(kw, "")(i) {
                return failure_msg(
                    &self.src[span.start..],
                    format!("`{kw}` is not supported in litmus tests"),
                );
            }
        }
        if let Ok((rest, ty)) = self.ty(i) {
            let (rest, name) = commit(self.ident(rest))?;
            let (rest, init) = match self.tok("=", "`=`")(rest) {
                Ok((r, _)) => {
                    let (r, e) = commit(self.expr(r))?;
                    (r, Some(e))
                }
                Err(_) => (rest, None),
            };
            let (rest, _) = commit(self.tok(";", "`;` after the declaration")(rest))?;
            let span = self.span(start, rest);
            return Ok((
                rest,
                Stmt {
                    kind: StmtKind::Decl { ty, name, init },
                    span,
                },
            ));
        }
        let (rest, lhs) = self.expr(i).map_err(|e| {
            e.map(|mut err| {
                if err.input.len() == i.len() && err.message.is_none() {
                    err.expected = vec!["a statement"];
                }
                err
            })
        })?;
        if let Ok((r, _)) = self.assign_op(rest) {
            let (r, rhs) = commit(self.expr(r))?;
            let (r, _) = commit(self.tok(";", "`;` after the assignment")(r))?;
            let span = self.span(start, r);
            return Ok((
                r,
                Stmt {
                    kind: StmtKind::Assign { lhs, rhs },
                    span,
                },
            ));
        }
        let (rest, _) = commit(self.tok(";", "`;` after the expression")(rest))?;
        let span = self.span(start, rest);
        Ok((
            rest,
            Stmt {
                kind: StmtKind::Expr(lhs),
                span,
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

    /// `"(" expr ")"` after `if` or `while`.
    fn paren_cond(&self, i: &'a str, after: &'static str) -> PResult<'a, Expr> {
        let (i, open) = self.tok("(", "`(`")(i).map_err(|e| {
            e.map(|mut err| {
                err.expected = vec![match after {
                    "`if`" => "`(` after `if`",
                    _ => "`(` after `while`",
                }];
                err
            })
        })?;
        let (i, e) = commit(self.expr(i))?;
        let (i, _) = commit(self.tok(")", "`)`")(i))
            .map_err(|e| self.closing(e, open, "`)`", "the condition"))?;
        Ok((i, e))
    }

    // ---------------------------------------------------------------- expressions

    /// `expr ::= unary (binop unary)*`, by precedence climbing.
    pub(crate) fn expr(&self, i: &'a str) -> PResult<'a, Expr> {
        self.binary(i, 1)
    }

    fn binary(&self, i: &'a str, min_prec: u8) -> PResult<'a, Expr> {
        let (mut i, mut lhs) = self.unary(i)?;
        while let Some((rest, op)) = self.binop(i)? {
            if op.precedence() < min_prec {
                break;
            }
            self.enter(i)?;
            let r = commit(self.binary(rest, op.precedence() + 1));
            self.leave();
            let (rest, rhs) = r?;
            let span = lhs.span.to(rhs.span);
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                span,
            };
            i = rest;
        }
        Ok((i, lhs))
    }

    /// The binary operator at the head of `i`, if any.
    fn binop(&self, i: &'a str) -> Result<Option<(&'a str, BinaryOp)>, Err<PError<'a>>> {
        let (i, ()) = self.trivia(i)?;
        const OPS: &[(&str, BinaryOp)] = &[
            ("<<", BinaryOp::Shl),
            (">>", BinaryOp::Shr),
            ("<=", BinaryOp::Le),
            (">=", BinaryOp::Ge),
            ("==", BinaryOp::Eq),
            ("!=", BinaryOp::Ne),
            ("&&", BinaryOp::And),
            ("||", BinaryOp::Or),
            ("*", BinaryOp::Mul),
            ("/", BinaryOp::Div),
            ("%", BinaryOp::Rem),
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
                return Ok(Some((rest, op)));
            }
        }
        Ok(None)
    }

    /// `unary ::= ("-" | "!" | "~" | "*" | "&") unary | "(" type ")" unary | postfix`
    fn unary(&self, i: &'a str) -> PResult<'a, Expr> {
        self.enter(i)?;
        let r = self.unary_inner(i);
        self.leave();
        r
    }

    fn unary_inner(&self, i: &'a str) -> PResult<'a, Expr> {
        let (i, ()) = self.trivia(i)?;
        let start = i;
        let op = match i.chars().next() {
            Some('-') => Some(UnaryOp::Neg),
            Some('!') if !i.starts_with("!=") => Some(UnaryOp::Not),
            Some('~') => Some(UnaryOp::BitNot),
            Some('*') => Some(UnaryOp::Deref),
            Some('&') if !i.starts_with("&&") => Some(UnaryOp::AddrOf),
            _ => None,
        };
        if let Some(op) = op {
            let rest = &i[1..];
            // A minus sign before a literal is part of the literal.
            if op == UnaryOp::Neg
                && rest.starts_with(|c: char| c.is_ascii_digit())
                && let Ok((r, (v, _))) = self.natural(rest)
            {
                let value = i64::try_from(-(v as i128))
                    .map_err(|_| fatal(i, "number out of range".to_string()))?;
                return Ok((
                    r,
                    Expr {
                        kind: ExprKind::Int(value),
                        span: self.span(start, r),
                    },
                ));
            }
            let (rest, operand) = commit(self.unary(rest))?;
            let span = self.span(start, rest);
            return Ok((
                rest,
                Expr {
                    kind: ExprKind::Unary(op, Box::new(operand)),
                    span,
                },
            ));
        }
        if let Some(rest) = i.strip_prefix('(')
            && let Ok((r, ty)) = self.ty(rest)
        {
            let (r, _) = commit(self.tok(")", "`)` to close the cast")(r))?;
            let (r, operand) = commit(self.unary(r))?;
            let span = self.span(start, r);
            return Ok((
                r,
                Expr {
                    kind: ExprKind::Cast(ty, Box::new(operand)),
                    span,
                },
            ));
        }
        self.primary(i)
    }

    /// `primary ::= integer | name | name "(" args ")" | "(" expr ")"`
    fn primary(&self, i: &'a str) -> PResult<'a, Expr> {
        let (i, ()) = self.trivia(i)?;
        let start = i;
        if i.starts_with(|c: char| c.is_ascii_digit()) {
            let (rest, (v, span)) = self.natural(i)?;
            let v = i64::try_from(v).map_err(|_| fatal(i, "number out of range".to_string()))?;
            return Ok((
                rest,
                Expr {
                    kind: ExprKind::Int(v),
                    span,
                },
            ));
        }
        if let Some(rest) = i.strip_prefix('(') {
            let (rest, e) = commit(self.expr(rest))?;
            let (rest, _) = commit(self.tok(")", "`)`")(rest))
                .map_err(|err| self.closing(err, start, "`)`", "the parenthesis"))?;
            return Ok((rest, e));
        }
        let (rest, id) = self.ident(i).map_err(|e| {
            e.map(|mut err| {
                err.expected = vec!["an expression"];
                err
            })
        })?;
        if self.peek(rest, "(")? {
            let (mut r, open) = self.tok("(", "`(`")(rest)?;
            let mut args = Vec::new();
            if !self.peek(r, ")")? {
                loop {
                    let (r2, a) = commit(self.expr(r))?;
                    args.push(a);
                    r = r2;
                    match self.tok(",", "`,`")(r) {
                        Ok((r2, _)) => r = r2,
                        Err(_) => break,
                    }
                }
            }
            let (r, _) = commit(self.tok(")", "`)`")(r))
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
        let span = id.span;
        Ok((
            rest,
            Expr {
                kind: ExprKind::Ident(id),
                span,
            },
        ))
    }

    // ---------------------------------------------------------------- trailer

    /// `trailer ::= ("locations" "[" ... "]")? ("filter" prop)? condition?`, in any order.
    #[allow(clippy::type_complexity)]
    fn trailer(
        &self,
        i: &'a str,
    ) -> PResult<'a, (Option<Vec<Location>>, Option<Prop>, Option<Condition>)> {
        let mut locations = None;
        let mut filter = None;
        let mut condition = None;
        let mut i = i;
        loop {
            let (rest, ()) = self.trivia(i)?;
            if let Ok((r, kw)) = self.keyword("locations", "")(rest) {
                if locations.is_some() {
                    return failure_msg(
                        &self.src[kw.start..],
                        "a second `locations` clause".to_string(),
                    );
                }
                let (r, locs) = commit(self.locations(r))?;
                locations = Some(locs);
                i = r;
            } else if let Ok((r, kw)) = self.keyword("filter", "")(rest) {
                if filter.is_some() {
                    return failure_msg(
                        &self.src[kw.start..],
                        "a second `filter` clause".to_string(),
                    );
                }
                let (r, p) = commit(self.prop(r))?;
                filter = Some(p);
                i = r;
            } else if condition.is_none() {
                match self.condition(rest) {
                    Ok((r, c)) => {
                        condition = Some(c);
                        i = r;
                    }
                    Err(Err::Error(_)) => return Ok((rest, (locations, filter, condition))),
                    Err(e) => return Err(e),
                }
            } else {
                return Ok((rest, (locations, filter, condition)));
            }
        }
    }

    /// `locations ::= "[" (location ";")* location? "]"`
    fn locations(&self, i: &'a str) -> PResult<'a, Vec<Location>> {
        let (mut i, open) = self.tok("[", "`[` after `locations`")(i)?;
        let mut locs = Vec::new();
        loop {
            if self.peek(i, "]")? {
                let (rest, _) = self.tok("]", "`]`")(i)?;
                return Ok((rest, locs));
            }
            let (rest, l) = commit(self.location(i))
                .map_err(|e| self.closing(e, open, "`]`", "the locations"))?;
            locs.push(l);
            i = rest;
            match self.tok(";", "`;`")(i) {
                Ok((rest, _)) => i = rest,
                Err(_) => {
                    let (rest, _) = commit(self.tok("]", "`]`")(i))
                        .map_err(|e| self.closing(e, open, "`]`", "the locations"))?;
                    return Ok((rest, locs));
                }
            }
        }
    }

    /// `condition ::= ("exists" | "~" "exists" | "not" "exists" | "forall") prop`
    fn condition(&self, i: &'a str) -> PResult<'a, Condition> {
        let (i, ()) = self.trivia(i)?;
        let start = i;
        let (rest, quantifier) = if let Ok((r, _)) = self.keyword("exists", "")(i) {
            (r, Quantifier::Exists)
        } else if let Ok((r, _)) = self.keyword("forall", "")(i) {
            (r, Quantifier::Forall)
        } else if let Some(r) = i
            .strip_prefix('~')
            .or_else(|| self.keyword("not", "").parse(i).ok().map(|(r, _)| r))
        {
            let (r, _) = commit(self.keyword("exists", "`exists` after the negation")(r))?;
            (r, Quantifier::NotExists)
        } else {
            return fail(
                i,
                "`locations`, `filter`, `exists`, `forall` or the end of the file",
            );
        };
        let (rest, prop) = commit(self.prop(rest))?;
        let span = self.span(start, rest);
        // herd7 tolerates a `;` after the condition; it carries nothing.
        let rest = match self.tok(";", "`;`")(rest) {
            Ok((r, _)) => r,
            Err(_) => rest,
        };
        Ok((
            rest,
            Condition {
                quantifier,
                prop,
                span,
            },
        ))
    }

    /// `prop ::= disj ("=>" prop)?`
    pub(crate) fn prop(&self, i: &'a str) -> PResult<'a, Prop> {
        self.enter(i)?;
        let r = self.prop_inner(i);
        self.leave();
        r
    }

    fn prop_inner(&self, i: &'a str) -> PResult<'a, Prop> {
        let (i, lhs) = self.disj(i)?;
        match self.tok("=>", "`=>`")(i) {
            Ok((rest, _)) => {
                let (rest, rhs) = commit(self.prop(rest))?;
                let span = lhs.span.to(rhs.span);
                Ok((
                    rest,
                    Prop {
                        kind: PropKind::Implies(Box::new(lhs), Box::new(rhs)),
                        span,
                    },
                ))
            }
            Err(_) => Ok((i, lhs)),
        }
    }

    /// `disj ::= conj ("\/" conj)*`
    fn disj(&self, i: &'a str) -> PResult<'a, Prop> {
        let (mut i, mut lhs) = self.conj(i)?;
        while let Ok((rest, _)) = self.tok("\\/", "`\\/`")(i) {
            let (rest, rhs) = commit(self.conj(rest))?;
            let span = lhs.span.to(rhs.span);
            lhs = Prop {
                kind: PropKind::Or(Box::new(lhs), Box::new(rhs)),
                span,
            };
            i = rest;
        }
        Ok((i, lhs))
    }

    /// `conj ::= neg ("/\" neg)*`
    fn conj(&self, i: &'a str) -> PResult<'a, Prop> {
        let (mut i, mut lhs) = self.neg(i)?;
        while let Ok((rest, _)) = self.tok("/\\", "`/\\`")(i) {
            let (rest, rhs) = commit(self.neg(rest))?;
            let span = lhs.span.to(rhs.span);
            lhs = Prop {
                kind: PropKind::And(Box::new(lhs), Box::new(rhs)),
                span,
            };
            i = rest;
        }
        Ok((i, lhs))
    }

    /// `neg ::= ("~" | "not") neg | "(" prop ")" | "true" | "false" | atom`
    fn neg(&self, i: &'a str) -> PResult<'a, Prop> {
        let (i, ()) = self.trivia(i)?;
        let start = i;
        let not = i
            .strip_prefix('~')
            .or_else(|| self.keyword("not", "").parse(i).ok().map(|(r, _)| r));
        if let Some(rest) = not {
            self.enter(i)?;
            let r = commit(self.neg(rest));
            self.leave();
            let (rest, p) = r?;
            let span = self.span(start, rest);
            return Ok((
                rest,
                Prop {
                    kind: PropKind::Not(Box::new(p)),
                    span,
                },
            ));
        }
        if let Some(rest) = i.strip_prefix('(') {
            let (rest, p) = commit(self.prop(rest))?;
            let (rest, _) = commit(self.tok(")", "`)`")(rest))
                .map_err(|e| self.closing(e, start, "`)`", "the condition"))?;
            return Ok((rest, p));
        }
        if let Ok((rest, span)) = self.keyword("true", "")(i) {
            return Ok((
                rest,
                Prop {
                    kind: PropKind::True,
                    span,
                },
            ));
        }
        if let Ok((rest, span)) = self.keyword("false", "")(i) {
            return Ok((
                rest,
                Prop {
                    kind: PropKind::False,
                    span,
                },
            ));
        }
        let (rest, atom) = self.atom(i)?;
        let span = atom.span;
        Ok((
            rest,
            Prop {
                kind: PropKind::Atom(atom),
                span,
            },
        ))
    }

    /// `atom ::= (location | "[" location "]") ("=" | "==" | "!=" | "<>") value`
    fn atom(&self, i: &'a str) -> PResult<'a, Atom> {
        let (i, ()) = self.trivia(i)?;
        let start = i;
        let (rest, loc) = if let Some(r) = i.strip_prefix('[') {
            let (r, loc) = commit(self.location(r))?;
            let (r, _) = commit(self.tok("]", "`]`")(r))?;
            (r, loc)
        } else {
            self.location(i).map_err(|e| {
                e.map(|mut err| {
                    if err.input.len() == i.len() {
                        err.expected = vec!["a condition such as `0:r0=1` or `x=2`"];
                    }
                    err
                })
            })?
        };
        let (rest, ()) = self.trivia(rest)?;
        let (rest, op) = if let Some(r) = rest.strip_prefix("!=").or(rest.strip_prefix("<>")) {
            (r, CmpOp::Ne)
        } else if let Some(r) = rest.strip_prefix("==").or(rest.strip_prefix('=')) {
            (r, CmpOp::Eq)
        } else {
            return failure(rest, "`=` or `!=` after the location");
        };
        let (rest, value) = commit(self.value(rest))?;
        Ok((
            rest,
            Atom {
                loc,
                op,
                value,
                span: self.span(start, rest),
            },
        ))
    }

    /// `value ::= integer | digits ":" name | name`
    fn value(&self, i: &'a str) -> PResult<'a, Value> {
        let (i, ()) = self.trivia(i)?;
        if i.starts_with('-') {
            let (rest, (v, _)) = self.integer(i)?;
            return Ok((rest, Value::Int(v)));
        }
        if i.starts_with(|c: char| c.is_ascii_digit()) {
            let (rest, (v, _)) = self.integer(i)?;
            if self.peek(rest, ":")? {
                let (rest, loc) = self.location(i)?;
                if let Location::Register { thread, reg, span } = loc {
                    return Ok((rest, Value::Register { thread, reg, span }));
                }
            }
            return Ok((rest, Value::Int(v)));
        }
        let (rest, id) = self.ident(i).map_err(|e| {
            e.map(|mut err| {
                err.expected = vec!["a value (an integer or an address)"];
                err
            })
        })?;
        Ok((rest, Value::Addr(id)))
    }
}

fn commit_err(e: Err<PError<'_>>) -> Err<PError<'_>> {
    match e {
        Err::Error(e) => Err::Failure(e),
        other => other,
    }
}

/// The `Result:` lines of a comment: `Result: Never`, `Result(sc): Sometimes DATARACE`.
fn expectations_in(c: &Comment) -> Vec<Expectation> {
    let mut out = Vec::new();
    let mut line_start = 0;
    for line in c.text.split_inclusive('\n') {
        let trimmed = line.trim_start_matches(|ch: char| ch.is_whitespace() || ch == '*');
        let at = line_start + (line.len() - trimmed.len());
        line_start += line.len();
        let Some(rest) = trimmed.strip_prefix("Result") else {
            continue;
        };
        let (model, rest) = match rest.strip_prefix('(') {
            Some(r) => match r.split_once(')') {
                Some((m, r)) => (Some(m.trim().to_string()), r),
                None => continue,
            },
            None => (None, rest),
        };
        let Some(rest) = rest.trim_start().strip_prefix(':') else {
            continue;
        };
        let mut outcome = None;
        let mut flags = Vec::new();
        for word in rest.split_whitespace() {
            match word {
                "Never" if outcome.is_none() => outcome = Some(Outcome::Never),
                "Sometimes" if outcome.is_none() => outcome = Some(Outcome::Sometimes),
                "Always" if outcome.is_none() => outcome = Some(Outcome::Always),
                "DEADLOCK" if outcome.is_none() => outcome = Some(Outcome::Deadlock),
                "Flag" => {}
                w => flags.push(w.to_string()),
            }
        }
        let text_start = c.span.start + 2;
        let len = trimmed.trim_end().len();
        out.push(Expectation {
            model,
            outcome,
            flags,
            span: Span::new(text_start + at, text_start + at + len),
        });
    }
    out
}
