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
//! statement head or a type).
//! Recursion deeper than [`MAX_DEPTH`], and trees deeper than [`MAX_TREE`], are errors
//! rather than stack overflows.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use nom::Parser as _;
use nom::combinator::{cut, opt};
use nom::error::{ContextError, ErrorKind, ParseError, context};
use nom::multi::many0;
use nom::sequence::preceded;
use nom::{Err, IResult};

use crate::ast::*;

/// How deeply expressions, propositions and statements may nest.
pub(crate) const MAX_DEPTH: u32 = 200;

/// How deep a tree may grow, counting both nesting and chained operators.
pub(crate) const MAX_TREE: u32 = 1000;

/// The error inside the parser: positions are remaining inputs, turned into offsets at the
/// public boundary.
///
/// It is small (no allocation) in the common case, a token that is not there, because
/// alternatives create and drop many of them; the rest lives in `extra`.
#[derive(Debug)]
pub(crate) struct PError<'a> {
    /// Where the error is.
    pub(crate) input: &'a str,
    /// What was expected there.
    pub(crate) expected: &'static str,
    /// Whether the error stands at the end of a line, where nothing is "found".
    pub(crate) at_line_end: bool,
    /// Whether only trivia follows the error's place, up to the end of the file.
    pub(crate) at_eof: bool,
    /// Everything else, rarely present.
    pub(crate) extra: Option<Box<Extra<'a>>>,
}

/// The rarer parts of a [`PError`].
#[derive(Debug, Default)]
pub(crate) struct Extra<'a> {
    /// Other things expected at the same place, when alternatives failed there.
    pub(crate) also_expected: Vec<&'static str>,
    /// A full message, which wins over `expected` when present.
    pub(crate) message: Option<String>,
    /// Extra notes with the place they refer to: "to close the condition opened at 14:8".
    pub(crate) notes: Vec<(&'a str, String)>,
    /// The rules being parsed, innermost first, with where each began.
    pub(crate) contexts: Vec<(&'a str, &'static str)>,
}

impl<'a> PError<'a> {
    fn expected(input: &'a str, what: &'static str) -> PError<'a> {
        PError {
            input,
            expected: what,
            at_line_end: false,
            at_eof: false,
            extra: None,
        }
    }

    fn message(input: &'a str, message: String) -> PError<'a> {
        let mut e = PError::expected(input, "");
        e.extra_mut().message = Some(message);
        e
    }

    fn extra_mut(&mut self) -> &mut Extra<'a> {
        self.extra.get_or_insert_with(Default::default)
    }

    /// The full message, if the error has one.
    pub(crate) fn full_message(&self) -> Option<&str> {
        self.extra.as_ref()?.message.as_deref()
    }

    /// Everything expected at the error's place.
    pub(crate) fn expected_all(&self) -> Vec<&'static str> {
        let mut all = vec![self.expected];
        if let Some(x) = &self.extra {
            all.extend(x.also_expected.iter().copied());
        }
        all.retain(|e| !e.is_empty());
        all
    }

    /// Replaces what the error expected by a description that reads better here.
    fn set_expected(&mut self, what: &'static str) {
        self.expected = what;
        if let Some(x) = &mut self.extra {
            x.also_expected.clear();
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
                let known = merged.expected_all();
                let extra = merged.extra_mut();
                for e in self.expected_all() {
                    if !known.contains(&e) {
                        extra.also_expected.push(e);
                    }
                }
                if extra.message.is_none() {
                    extra.message = self.extra.and_then(|x| x.message);
                }
                merged
            }
        }
    }
}

impl<'a> ContextError<&'a str> for PError<'a> {
    fn add_context(input: &'a str, ctx: &'static str, mut other: Self) -> Self {
        other.extra_mut().contexts.push((input, ctx));
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
    /// The parser's own recursion depth, bounded by [`MAX_DEPTH`].
    depth: Cell<u32>,
    /// The depth of the tree being built, bounded by [`MAX_TREE`].
    tree: Cell<u32>,
    /// Whether C comments between statements become `Comment` statements.
    keep_comments: bool,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(src: &'a str, keep_comments: bool) -> Parser<'a> {
        Parser {
            src,
            comments: RefCell::new(BTreeMap::new()),
            place: Cell::new(CommentPlace::Header),
            ml_comments: Cell::new(true),
            depth: Cell::new(0),
            tree: Cell::new(0),
            keep_comments,
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
        self.link(i)?;
        self.depth.set(d);
        Ok(())
    }

    fn leave(&self) {
        self.depth.set(self.depth.get() - 1);
        self.tree.set(self.tree.get() - 1);
    }

    /// Counts one more level of the tree being built: a nesting, or one more operator of a
    /// left-nested chain (`a + b + c`, `p /\ q /\ r`), which the parser builds in a loop
    /// but which deepens the tree all the same.
    ///
    /// The bound keeps every recursive walk of the tree (drop, clone, comparison, printing,
    /// the checker's own passes) within a thread's stack: a tree is at most twice
    /// [`MAX_TREE`] deep.
    fn link(&self, i: &'a str) -> Result<(), Err<PError<'a>>> {
        let t = self.tree.get() + 1;
        if t > MAX_TREE {
            return Err(Err::Failure(PError::message(
                i,
                format!("more than {MAX_TREE} operators nested or chained"),
            )));
        }
        self.tree.set(t);
        Ok(())
    }

    /// Runs a chain-building loop, restoring the tree depth when it ends.
    fn chain<T>(&self, f: impl FnOnce() -> PResult<'a, T>) -> PResult<'a, T> {
        let base = self.tree.get();
        let r = f();
        self.tree.set(base);
        r
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
                    None => {
                        return failure_msg(
                            i,
                            "unterminated comment: this `/*` has no matching `*/`".to_string(),
                        );
                    }
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
        failure_msg(
            i,
            "unterminated comment: this `(*` has no matching `*)`".to_string(),
        )
    }

    /// Skips trivia, then the exact token `t`; returns the input from the token on, so that
    /// its offset can be taken.
    ///
    /// A missing `;` or `,` is reported where the previous token ends, as a person would
    /// insert it, rather than on the next line; so is anything missing at the end of the file.
    fn tok(
        &self,
        t: &'static str,
        what: &'static str,
    ) -> impl FnMut(&'a str) -> PResult<'a, &'a str> + '_ {
        move |before| {
            let (i, ()) = self.trivia(before)?;
            match i.strip_prefix(t) {
                Some(rest) => Ok((rest, i)),
                None if (t == ";" || t == ",")
                    && before[..before.len() - i.len()].contains('\n') =>
                {
                    let mut e = PError::expected(before, what);
                    e.at_line_end = true;
                    Err(Err::Error(e))
                }
                // At the end of the file, point just after the last token.
                None if i.is_empty() => {
                    let mut e = PError::expected(before, what);
                    e.at_eof = true;
                    Err(Err::Error(e))
                }
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

    /// An unsigned integer literal, decimal or `0x` hexadecimal, for the caller to negate and
    /// range-check.
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
            cut(|i| self.natural(i)).parse(rest)?
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
        // A byte-order mark is not part of the text.
        let i = i.strip_prefix('\u{feff}').unwrap_or(i);
        let (i, (arch, name, doc, info)) = self.header(i)?;
        self.place.set(CommentPlace::Header);
        let (i, init) = cut(context("the init block", |i| self.init(i))).parse(i)?;
        self.place.set(CommentPlace::Body);
        let (i, threads) = cut(|i| self.threads(i)).parse(i)?;
        self.place.set(CommentPlace::Trailer);
        let (i, (locations, filter, condition)) = cut(|i| self.trailer(i)).parse(i)?;
        let (i, ()) = self.trivia(i)?;
        if !i.is_empty() {
            let mut e = PError::expected(
                i,
                "`locations`, `filter`, `exists`, `forall` or the end of the file",
            );
            let n = i.find(|c: char| !is_ident_char(c)).unwrap_or(i.len());
            if let Some(kw) = suggestion(&i[..n], &["locations", "filter", "exists", "forall"]) {
                e.extra_mut()
                    .notes
                    .push((i, format!("did you mean `{kw}`?")));
            }
            return Err(Err::Failure(e));
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
            if err.full_message().is_none() && err.expected_all().contains(&close) {
                let (l, c) = line_col(self.src, self.off(open));
                err.extra_mut()
                    .notes
                    .push((open, format!("to close {what} opened at {l}:{c}")));
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
                err.set_expected("a variable or register to initialise");
                err
            })
        })?;
        let target_end = i;
        let (i, value) = match self.tok("=", "`=`")(i) {
            Ok((rest, _)) => {
                let (rest, v) = cut(|i| self.init_value(i)).parse(rest)?;
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
        match self.integer(i) {
            Ok((rest, (v, _))) => return Ok((rest, InitValue::Int(v))),
            Err(Err::Error(_)) => {}
            Err(e) => return Err(e),
        }
        if let Ok((rest, _)) = self.tok("&", "`&`")(i) {
            let (rest, id) = cut(|i| self.ident(i)).parse(rest)?;
            return Ok((rest, InitValue::Addr(id)));
        }
        let (rest, id) = self.ident(i).map_err(|e| {
            e.map(|mut err| {
                err.set_expected("an integer or an address");
                err
            })
        })?;
        if id.name == "ATOMIC_INIT" {
            let (rest, open) = cut(self.tok("(", "`(` after `ATOMIC_INIT`")).parse(rest)?;
            let (rest, (v, _)) = cut(|i| self.integer(i)).parse(rest)?;
            let (rest, _) = cut(self.tok(")", "`)`"))
                .parse(rest)
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
            let (rest, _) = cut(self.tok(":", "`:` after the thread number")).parse(rest)?;
            let (rest, reg) = cut(|i| self.ident(i)).parse(rest)?;
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
        let n = i.find(|c: char| !is_ident_char(c)).unwrap_or(i.len());
        if n == 0 || !is_type_word(&i[..n]) || !i.starts_with(is_ident_start) {
            return fail(start, "a type");
        }
        let (mut i, first) = self.word(i)?;
        let mut volatile = false;
        let mut words: Vec<String> = Vec::new();
        let mut word = first;
        loop {
            match word.name.as_str() {
                "volatile" => volatile = true,
                "const" => {}
                "struct" => {
                    let (rest, tag) = cut(|i| self.ident(i)).parse(i)?;
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
                // The comments after the last thread belong to the trailer.
                for (_, c) in self.comments.borrow_mut().range_mut(self.off(i)..) {
                    c.place = CommentPlace::Trailer;
                }
                return Ok((rest, threads));
            }
            let (rest, t) = cut(context("the thread", |i| self.thread(i))).parse(rest)?;
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

    /// `list(item) ::= (item ("," item)*)?`: parameters and arguments.
    fn list<T>(
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

    /// `param ::= type name`
    fn param(&self, i: &'a str) -> PResult<'a, Param> {
        let (i, ()) = self.trivia(i)?;
        let (rest, ty) = self.ty(i)?;
        let (rest, name) = cut(|i| self.ident(i)).parse(rest)?;
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
            if self.keep_comments {
                i = self.comment_stmts(i, &mut body)?;
            }
            if self.peek(i, "}")? {
                let (rest, _) = self.tok("}", "`}`")(i)?;
                return Ok((rest, body));
            }
            let (rest, ()) = self.trivia(i)?;
            if rest.is_empty() {
                let mut e = PError::expected(i, "`}`");
                e.at_eof = true;
                return Err(self.closing(Err::Failure(e), open, "`}`", what));
            }
            let (rest, s) = cut(|i| self.stmt(i))
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
        // The statement's first word decides its kind.
        let lead = &i[..i.find(|c: char| !is_ident_char(c)).unwrap_or(i.len())];
        if lead == "if" {
            let (rest, cond) = cut(|i| self.paren_cond(i, "`(` after `if`")).parse(&i[2..])?;
            let (rest, then) = cut(|i| self.stmt(i)).parse(rest)?;
            let (rest, els) = match self.keyword("else", "`else`")(rest) {
                Ok((r, _)) => {
                    let (r, s) = cut(|i| self.stmt(i)).parse(r)?;
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
            let (rest, body) = cut(|i| self.stmt(i)).parse(rest)?;
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
        if lead == "do" {
            let (rest, body) = cut(|i| self.stmt(i)).parse(&i[2..])?;
            let (rest, _) =
                cut(self.keyword("while", "`while` after the `do` body")).parse(rest)?;
            let (rest, cond) = cut(|i| self.paren_cond(i, "`(` after `while`")).parse(rest)?;
            let (rest, _) = cut(self.tok(";", "`;` after `do ... while (...)`")).parse(rest)?;
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
        if matches!(
            lead,
            "for" | "return" | "goto" | "switch" | "break" | "continue" | "case"
        ) {
            return failure_msg(i, format!("`{lead}` is not supported in litmus tests"));
        }
        if is_type_word(lead) {
            let (rest, ty) = self.ty(i)?;
            let (rest, name) = cut(|i| self.ident(i)).parse(rest)?;
            let (rest, init) = match self.tok("=", "`=`")(rest) {
                Ok((r, _)) => {
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
            let (rest, _) = cut(self.tok(";", "`;` after the declaration")).parse(rest)?;
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
                if err.input.len() == i.len() && err.full_message().is_none() {
                    err.set_expected("a statement");
                }
                err
            })
        })?;
        if let Ok((r, _)) = self.assign_op(rest) {
            let (r, rhs) = cut(|i| self.expr(i)).parse(r)?;
            let (r, _) = cut(self.tok(";", "`;` after the assignment")).parse(r)?;
            let span = self.span(start, r);
            return Ok((
                r,
                Stmt {
                    kind: StmtKind::Assign { lhs, rhs },
                    span,
                },
            ));
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

    // ---------------------------------------------------------------- expressions

    /// `expr ::= unary (binop unary)*`, by precedence climbing.
    pub(crate) fn expr(&self, i: &'a str) -> PResult<'a, Expr> {
        self.binary(i, 1)
    }

    fn binary(&self, i: &'a str, min_prec: u8) -> PResult<'a, Expr> {
        self.chain(|| self.binary_chain(i, min_prec))
    }

    fn binary_chain(&self, i: &'a str, min_prec: u8) -> PResult<'a, Expr> {
        let (mut i, mut lhs) = self.unary(i)?;
        self.unsupported_operator(i)?;
        while let Some((rest, op)) = self.binop(i)? {
            if op.precedence() < min_prec {
                break;
            }
            self.link(i)?;
            self.enter(i)?;
            let r = cut(|i| self.binary(i, op.precedence() + 1)).parse(rest);
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

    /// Refuses, by name, the C operators that may follow an operand but that litmus tests
    /// do not use: member access, indexing, increments, the conditional operator, compound
    /// assignments.
    fn unsupported_operator(&self, i: &'a str) -> Result<(), Err<PError<'a>>> {
        let (i, ()) = self.trivia(i)?;
        const OPS: &[&str] = &[
            "->", "++", "--", "<<=", ">>=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "?",
            "[", ".",
        ];
        match OPS.iter().find(|op| i.starts_with(**op)) {
            Some(op) => Err(Err::Failure(PError::message(
                i,
                format!("`{op}` is not supported in litmus tests"),
            ))),
            None => Ok(()),
        }
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
            let (rest, operand) = cut(|i| self.unary(i)).parse(rest)?;
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
            let (rest, e) = cut(|i| self.expr(i)).parse(rest)?;
            let (rest, _) = cut(self.tok(")", "`)`"))
                .parse(rest)
                .map_err(|err| self.closing(err, start, "`)`", "the parenthesis"))?;
            return Ok((rest, e));
        }
        let (rest, id) = self.ident(i).map_err(|e| {
            e.map(|mut err| {
                err.set_expected("an expression");
                err
            })
        })?;
        if self.peek(rest, "(")? {
            let (r, open) = self.tok("(", "`(`")(rest)?;
            let (r, args) = self.list(r, |i| self.expr(i))?;
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
                let (r, locs) =
                    cut(context("the `locations` clause", |i| self.locations(i))).parse(r)?;
                locations = Some(locs);
                i = r;
            } else if let Ok((r, kw)) = self.keyword("filter", "")(rest) {
                if filter.is_some() {
                    return failure_msg(
                        &self.src[kw.start..],
                        "a second `filter` clause".to_string(),
                    );
                }
                let (r, p) = cut(context("the filter", |i| self.prop(i))).parse(r)?;
                filter = Some(p);
                i = r;
            } else if condition.is_none() {
                match context("the condition", |i| self.condition(i)).parse(rest) {
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
            let (rest, l) = cut(|i| self.location(i))
                .parse(i)
                .map_err(|e| self.closing(e, open, "`]`", "the locations"))?;
            locs.push(l);
            i = rest;
            match self.tok(";", "`;`")(i) {
                Ok((rest, _)) => i = rest,
                Err(_) => {
                    let (rest, _) = cut(self.tok("]", "`]`"))
                        .parse(i)
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
            let (r, _) = cut(self.keyword("exists", "`exists` after the negation")).parse(r)?;
            (r, Quantifier::NotExists)
        } else {
            return fail(
                i,
                "`locations`, `filter`, `exists`, `forall` or the end of the file",
            );
        };
        let (rest, prop) = cut(|i| self.prop(i)).parse(rest)?;
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
                let (rest, rhs) = cut(|i| self.prop(i)).parse(rest)?;
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
        self.chain(|| self.disj_chain(i))
    }

    fn disj_chain(&self, i: &'a str) -> PResult<'a, Prop> {
        let (mut i, mut lhs) = self.conj(i)?;
        while let Ok((rest, _)) = self.tok("\\/", "`\\/`")(i) {
            self.link(i)?;
            let (rest, rhs) = cut(|i| self.conj(i)).parse(rest)?;
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
        self.chain(|| self.conj_chain(i))
    }

    fn conj_chain(&self, i: &'a str) -> PResult<'a, Prop> {
        let (mut i, mut lhs) = self.neg(i)?;
        while let Ok((rest, _)) = self.tok("/\\", "`/\\`")(i) {
            self.link(i)?;
            let (rest, rhs) = cut(|i| self.neg(i)).parse(rest)?;
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
            let r = cut(|i| self.neg(i)).parse(rest);
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
            let (rest, p) = cut(|i| self.prop(i)).parse(rest)?;
            let (rest, _) = cut(self.tok(")", "`)`"))
                .parse(rest)
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
            let (r, loc) = cut(|i| self.location(i)).parse(r)?;
            let (r, _) = cut(self.tok("]", "`]`")).parse(r)?;
            (r, loc)
        } else {
            self.location(i).map_err(|e| {
                e.map(|mut err| {
                    if err.input.len() == i.len() {
                        err.set_expected("a condition such as `0:r0=1` or `x=2`");
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
        let (rest, value) = cut(|i| self.value(i)).parse(rest)?;
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
                err.set_expected("a value (an integer or an address)");
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

/// The keyword `word` was probably meant to be: one edit away (or a transposition), for
/// words of four letters or more.
fn suggestion(word: &str, keywords: &[&'static str]) -> Option<&'static str> {
    if word.len() < 4 {
        return None;
    }
    keywords
        .iter()
        .copied()
        .find(|kw| edit_distance(word, kw) <= 1 || transposed(word, kw))
}

/// The Levenshtein distance between two short ASCII words.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &ca) in a.iter().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diag + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// Whether `a` is `b` with two neighbouring letters swapped.
fn transposed(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let diff: Vec<usize> = (0..a.len()).filter(|&k| a[k] != b[k]).collect();
    matches!(diff.as_slice(), [x, y] if *y == x + 1 && a[*x] == b[*y] && a[*y] == b[*x])
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
        // Trailing punctuation, as in `Result: Never.`, is not part of a word.
        let words = rest
            .split_whitespace()
            .map(|w| w.trim_end_matches(['.', ',', ';', ':']))
            .filter(|w| !w.is_empty());
        for word in words {
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
