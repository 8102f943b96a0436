//! The nom parser: one method per grammar rule, from [`Parser::test`] down to tokens.
//!
//! The rules are methods of [`Parser`], which holds the whole source (to turn the remaining
//! input into byte offsets for spans), the comments met so far, and the nesting depth.
//! Every rule skips the trivia (white space and comments) before its tokens.
//! Once a rule has seen the token that commits it (`if`, `(`, `exists`, ...) the rest is
//! wrapped in `cut`, so errors name the real mistake instead of a far-away alternative.
//!
//! The language is herd7's C dialect (see [`crate::dialect`]), and the parser refuses what
//! herd7 refuses, each with a message that says what to write instead: C operators herd7
//! lacks (`&&`, `!`, `%`, `<<`, unary `-`, ...), chained comparisons, `r0-1` (which herd7
//! reads as `r0` followed by the number `-1`), hexadecimal numbers in thread code, empty
//! statements and blocks, names that herd7 reserves, and the rest.
//!
//! Two comment syntaxes share the file: `(* ... *)` in the header, the init block and the
//! trailer (kept in the AST), and C's `//` and `/* */` everywhere (dropped).
//! Between the init block and the trailer herd7 reads C, where `(*` is no comment: inside
//! thread bodies it is C (`READ_ONCE(*x)`), between threads an error.
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
use crate::dialect::{self, ProgramEnd};

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

/// A location as written, for a message.
fn target_text(l: &Location) -> String {
    match l {
        Location::Global(id) => id.name.clone(),
        Location::Register { thread, reg, .. } => format!("{thread}:{}", reg.name),
    }
}

/// The message for a word that herd7 reserves in thread code.
fn reserved_in_code(word: &str) -> String {
    if dialect::is_thread_word(word) {
        format!("`{word}` names a thread in herd7's C dialect, not a register; rename it")
    } else {
        format!(
            "`{word}` is a reserved word in herd7's thread code and cannot name a register or \
             parameter; rename it"
        )
    }
}

/// The message for a word that herd7 reserves in the init block and the trailer.
fn reserved_in_state(word: &str) -> String {
    if dialect::is_thread_word(word) {
        format!("`{word}` names a thread in herd7's C dialect, not a variable; rename it")
    } else {
        format!(
            "`{word}` is a reserved word in herd7's init block and condition and cannot name a \
             variable or register; rename it"
        )
    }
}

/// The message for a number out of herd7's 32-bit range.
fn out_of_range(text: &str) -> String {
    format!("`{text}` is out of range: herd7's numbers are 32-bit, from -2147483648 to 2147483647")
}

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

/// The message for a `(* ... *)` comment where herd7 reads C.
fn ml_comment_in_program() -> String {
    "herd7 reads the text between the init block and the condition as C, where `(*` opens no \
     comment: write `/* ... */` or `//`, or move the comment before the init block or after \
     the condition"
        .to_string()
}

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

/// The parser state for one source text.
pub(crate) struct Parser<'a> {
    src: &'a str,
    comments: RefCell<BTreeMap<usize, Comment>>,
    place: Cell<CommentPlace>,
    /// Whether the parser is in the program, from the init block's `}` to the trailer's
    /// first clause, where herd7 reads C: C comments there, `(* ... *)` ones elsewhere.
    in_program: Cell<bool>,
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
            in_program: Cell::new(false),
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

    /// Skips white space and comments: C's in the program, `(* ... *)` elsewhere, where
    /// they are recorded.
    fn trivia(&self, mut i: &'a str) -> PResult<'a, ()> {
        loop {
            let trimmed = i.trim_start();
            i = trimmed;
            if !self.in_program.get() {
                if i.starts_with("(*") {
                    i = self.ml_comment(i)?.0;
                    continue;
                }
                if i.starts_with("//") || i.starts_with("/*") {
                    return failure_msg(
                        i,
                        "herd7 reads the init block and the condition without C comments: \
                         write `(* ... *)` here"
                            .to_string(),
                    );
                }
                return Ok((i, ()));
            }
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

    /// A name of thread code: a word herd7's C lexer does not reserve.
    fn code_name(&self, i: &'a str) -> PResult<'a, Ident> {
        let (rest, id) = self.word(i)?;
        if !dialect::is_code_name(&id.name) {
            let at = &self.src[id.span.start..];
            return Err(Err::Error(PError::message(at, reserved_in_code(&id.name))));
        }
        Ok((rest, id))
    }

    /// A name of the init block or the trailer: a word herd7's lexer of those parts does not
    /// reserve.
    fn state_name(&self, i: &'a str) -> PResult<'a, Ident> {
        let (rest, id) = self.word(i)?;
        if !dialect::is_state_name(&id.name) {
            let at = &self.src[id.span.start..];
            return Err(Err::Error(PError::message(at, reserved_in_state(&id.name))));
        }
        Ok((rest, id))
    }

    /// Digits, decimal or (if `hex` and written `0x`) hexadecimal: the magnitude, whether it
    /// was hexadecimal, and the text.
    fn digits(&self, i: &'a str, hex: bool) -> PResult<'a, (u64, bool, &'a str)> {
        let (i, ()) = self.trivia(i)?;
        let (digits, radix, skip) = match i.strip_prefix("0x").or(i.strip_prefix("0X")) {
            Some(h) if hex => (h, 16, 2),
            _ => (i, 10, 0),
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
            let text = &i[..skip + n + end];
            let hex_digits = text
                .strip_prefix("0x")
                .or(text.strip_prefix("0X"))
                .filter(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()));
            return match hex_digits {
                Some(h) if !hex => failure_msg(
                    i,
                    match u64::from_str_radix(h, 16) {
                        Ok(v) => format!(
                            "herd7's thread code has decimal numbers only: write `{v}` for \
                             `{text}`"
                        ),
                        Err(_) => {
                            format!("herd7's thread code has decimal numbers only, not `{text}`")
                        }
                    },
                ),
                _ => failure_msg(i, format!("invalid number `{text}`")),
            };
        }
        match u64::from_str_radix(&digits[..n], radix) {
            Ok(v) => Ok((rest, (v, radix == 16, &i[..skip + n]))),
            Err(_) => failure_msg(i, out_of_range(&i[..skip + n])),
        }
    }

    /// A thread number, as in `0:r1`.
    fn thread_number(&self, i: &'a str) -> PResult<'a, u32> {
        let (rest, (v, _, _)) = self.digits(i, false)?;
        match u32::try_from(v) {
            Ok(v) => Ok((rest, v)),
            Err(_) => failure_msg(i, "thread number too large".to_string()),
        }
    }

    /// `state-int ::= "-"? decimal | hexadecimal`: a number of the init block or the
    /// trailer, 32-bit as herd7 reads it (`0xffffffff` is -1).
    fn state_int(&self, i: &'a str) -> PResult<'a, (i64, Span)> {
        let (i, ()) = self.trivia(i)?;
        let (rest, neg) = match i.strip_prefix('-') {
            Some(r) => (r, true),
            None => (i, false),
        };
        let (rest, (v, hex, _)) = if neg {
            cut(|i| self.digits(i, false)).parse(rest)?
        } else {
            self.digits(rest, true)?
        };
        let value = if hex {
            dialect::hexadecimal_value(v)
        } else {
            dialect::decimal_value(neg, v)
        };
        match value {
            Some(v) => Ok((rest, (v, self.span(i, rest)))),
            None => failure_msg(i, out_of_range(&i[..i.len() - rest.len()])),
        }
    }

    /// `code-int ::= "-"? decimal`, the `-` glued to the digits: a number of thread code.
    fn code_int(&self, i: &'a str) -> PResult<'a, (i64, Span)> {
        let (i, ()) = self.trivia(i)?;
        let (rest, neg) = match i.strip_prefix('-') {
            Some(r) if r.starts_with(|c: char| c.is_ascii_digit()) => (r, true),
            _ => (i, false),
        };
        let (rest, (v, _, _)) = self.digits(rest, false)?;
        match dialect::decimal_value(neg, v) {
            Some(v) => Ok((rest, (v, self.span(i, rest)))),
            None => failure_msg(i, out_of_range(&i[..i.len() - rest.len()])),
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
        // herd7 reads C from here to the trailer, where `(*` is no comment.
        self.in_program.set(true);
        let (i, threads) = self.program(i)?;
        self.place.set(CommentPlace::Trailer);
        let (i, (locations, filter, condition)) = cut(|i| self.trailer(i)).parse(i)?;
        let (i, ()) = self.trivia(i)?;
        if !i.is_empty() {
            let mut e = PError::expected(
                i,
                "`locations`, `filter`, `exists`, `forall` or the end of the file",
            );
            let n = i.find(|c: char| !is_ident_char(c)).unwrap_or(i.len());
            let near =
                crate::diagnostic::closest(&i[..n], ["locations", "filter", "exists", "forall"], 1);
            if let Some(note) = crate::diagnostic::did_you_mean(&near) {
                e.extra_mut().notes.push((i, note));
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
            // herd7 takes one more `;` just before the closing brace, and nowhere else.
            if let Ok((rest, semi)) = self.tok(";", "`;`")(i) {
                if !self.peek(rest, "}")? {
                    return failure_msg(
                        semi,
                        "herd7's init block has no empty item: remove this `;`".to_string(),
                    );
                }
                i = rest;
            }
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
        let (i, ty) = match self.init_type(i) {
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
        // A third word, as in `unsigned long x`: herd7 takes one-word types only.
        if let (Some(ty), Ok(_)) = (&ty, self.word(i)) {
            return failure_msg(
                &self.src[ty.span.start..],
                format!(
                    "herd7's init block takes a one-word type such as `int`, not `{} {}`",
                    ty.base,
                    target_text(&target)
                ),
            );
        }
        let target_end = i;
        let (i, value) = match self.tok("=", "`=`")(i) {
            Ok((rest, _)) => {
                let pointer = ty.as_ref().is_some_and(|t| t.pointers > 0);
                let (rest, v) = cut(|i| self.init_value(i, pointer)).parse(rest)?;
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

    /// `init-value ::= state-int | "&"? name | "ATOMIC_INIT" "(" state-int ")"`, where herd7
    /// takes the `&` only in the value of a `pointer` item (`int *p = &x;`).
    fn init_value(&self, i: &'a str, pointer: bool) -> PResult<'a, InitValue> {
        match self.state_int(i) {
            Ok((rest, (v, _))) => return Ok((rest, InitValue::Int(v))),
            Err(Err::Error(_)) => {}
            Err(e) => return Err(e),
        }
        if let Ok((rest, amp)) = self.tok("&", "`&`")(i) {
            if !pointer {
                let (r, id) = cut(|i| self.state_name(i)).parse(rest)?;
                let _ = r;
                return failure_msg(
                    amp,
                    format!(
                        "herd7 takes `&{0}` only as the value of a pointer, as in \
                         `int *p = &{0};`; here write `{0}`",
                        id.name
                    ),
                );
            }
            let (rest, id) = cut(|i| self.state_name(i)).parse(rest)?;
            return Ok((rest, InitValue::Addr(id)));
        }
        if let Ok((rest, _)) = self.keyword("ATOMIC_INIT", "")(i) {
            let (rest, open) = cut(self.tok("(", "`(` after `ATOMIC_INIT`")).parse(rest)?;
            let (rest, (v, _)) = cut(|i| self.state_int(i)).parse(rest)?;
            let (rest, _) = cut(self.tok(")", "`)`"))
                .parse(rest)
                .map_err(|e| self.closing(e, open, "`)`", "`ATOMIC_INIT(`"))?;
            return Ok((rest, InitValue::AtomicInit(v)));
        }
        let (rest, id) = self.state_name(i).map_err(|e| {
            e.map(|mut err| {
                err.set_expected("an integer or an address");
                err
            })
        })?;
        Ok((rest, InitValue::Addr(id)))
    }

    /// `location ::= digits ":" name | name`, in the init block or the trailer.
    fn location(&self, i: &'a str) -> PResult<'a, Location> {
        let (i, ()) = self.trivia(i)?;
        if i.starts_with(|c: char| c.is_ascii_digit()) {
            let (rest, thread) = self.thread_number(i)?;
            let (rest, _) = cut(self.tok(":", "`:` after the thread number")).parse(rest)?;
            let (rest, reg) = cut(|i| self.state_name(i)).parse(rest)?;
            return Ok((
                rest,
                Location::Register {
                    thread,
                    reg,
                    span: self.span(i, rest),
                },
            ));
        }
        let (rest, id) = self.state_name(i)?;
        Ok((rest, Location::Global(id)))
    }

    /// `init-type ::= "_Atomic"? name | name "*"`: herd7's init block takes any one word for a
    /// type, and a pointer to one (the checker refuses the types whose size herd7 does not
    /// know, as herd7 does after parsing).
    fn init_type(&self, i: &'a str) -> PResult<'a, Type> {
        let (i, ()) = self.trivia(i)?;
        let start = i;
        let (i, atomic) = match self.keyword("_Atomic", "")(i) {
            Ok((rest, _)) => (rest, true),
            Err(_) => (i, false),
        };
        let (i, word) = match self.word(i) {
            Ok(r) if dialect::is_state_name(&r.1.name) => r,
            _ => return fail(start, "a type"),
        };
        let (end, pointers) = self.stars(i)?;
        if pointers > 0 && atomic {
            return failure_msg(
                start,
                "herd7's init block takes `_Atomic` before a type that is no pointer".to_string(),
            );
        }
        if pointers > 1 {
            return failure_msg(
                &self.src[word.span.start..],
                "herd7's init block takes one `*` in a type: write `int *p = x;` for a \
                 pointer to a pointer too"
                    .to_string(),
            );
        }
        Ok((
            end,
            Type {
                volatile: false,
                base: word.name,
                pointers,
                span: self.span(start, end),
            },
        ))
    }

    /// `stars ::= "*"*`: how many there are, and where they end.
    fn stars(&self, mut i: &'a str) -> PResult<'a, u32> {
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
                None => return Ok((end, pointers)),
            }
        }
    }

    /// `code-type ::= qualifier? base ("*" | "volatile" | "const")*`, where
    /// `qualifier ::= "volatile" | "const" | "_Atomic"` and `base` is `int`, `char`, `long`,
    /// one of herd7's `intN_t`, `atomic_t`, `spinlock_t`..., `struct srcu_struct`, or `void`
    /// before a `*`: a type of thread code.
    ///
    /// `const` and `_Atomic` leave no trace in the tree, and `volatile` none of its place.
    fn code_type(&self, i: &'a str) -> PResult<'a, Type> {
        let (i, ()) = self.trivia(i)?;
        let start = i;
        let (mut i, first) = self.word(i)?;
        let mut volatile = false;
        let mut word = first;
        if matches!(word.name.as_str(), "volatile" | "const" | "_Atomic") {
            volatile = word.name == "volatile";
            let (rest, w) = cut(|i| self.word(i)).parse(i).map_err(|e| {
                e.map(|mut err| {
                    err.set_expected("a type");
                    err
                })
            })?;
            word = w;
            i = rest;
        } else if !dialect::begins_code_type(&word.name) {
            return fail(start, "a type");
        }
        let base = match word.name.as_str() {
            "struct" => {
                let (rest, tag) = cut(|i| self.word(i)).parse(i)?;
                if tag.name != "srcu_struct" {
                    return failure_msg(
                        &self.src[tag.span.start..],
                        format!(
                            "herd7's thread code knows one `struct`, `struct srcu_struct`, \
                             not `struct {}`",
                            tag.name
                        ),
                    );
                }
                i = rest;
                "struct srcu_struct".to_string()
            }
            // Bare `void` is refused by the callers, except in `(void)e;`.
            "void" if start.len() - i.len() == 4 => "void".to_string(),
            "void" => {
                return failure_msg(
                    &self.src[word.span.start..],
                    "herd7 takes `void` only as `void *`, with no qualifier before it".to_string(),
                );
            }
            "atomic" => {
                // `atomic<T>`, where T is one of the base types herd7 lexes as such.
                let (rest, _) = cut(self.tok("<", "`<` after `atomic`")).parse(i)?;
                let (rest, inner) = cut(|i| self.word(i)).parse(rest)?;
                if !dialect::CODE_BASE_TYPES.contains(&inner.name.as_str())
                    || matches!(inner.name.as_str(), "int" | "char" | "long" | "atomic_int")
                {
                    return failure_msg(
                        &self.src[inner.span.start..],
                        format!("herd7 knows no type `atomic<{}>`", inner.name),
                    );
                }
                let (rest, _) = cut(self.tok(">", "`>`")).parse(rest)?;
                i = rest;
                format!("atomic<{}>", inner.name)
            }
            w if dialect::CODE_BASE_TYPES.contains(&w) => w.to_string(),
            w => {
                return failure_msg(
                    &self.src[word.span.start..],
                    format!("expected a type after the qualifier, found `{w}`"),
                );
            }
        };
        // Stars and qualifiers after the base: `int *`, `int * volatile`, `int const`.
        let mut pointers = 0;
        let mut end = i;
        loop {
            let (rest, ()) = self.trivia(i)?;
            if let Some(r) = rest.strip_prefix('*') {
                pointers += 1;
                i = r;
                end = r;
                continue;
            }
            match self.word(rest) {
                Ok((r, w)) if w.name == "volatile" || w.name == "const" => {
                    volatile |= w.name == "volatile";
                    i = r;
                    end = r;
                }
                _ => break,
            }
        }
        Ok((
            end,
            Type {
                volatile,
                base,
                pointers,
                span: self.span(start, end),
            },
        ))
    }

    /// `program ::= thread+`, which ends where herd7's splitter ends it: at the first trailer
    /// word after the init block, wherever that stands.
    fn program(&self, i: &'a str) -> PResult<'a, Vec<Thread>> {
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
        let r = cut(|i| self.threads(i)).parse(i);
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

    // ---------------------------------------------------------------- expressions

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

    // ---------------------------------------------------------------- trailer

    /// `trailer ::= ("locations" "[" ... "]")? ("filter" prop)? condition?`, in this order.
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
            // Before the first clause, herd7 still reads C; from it on, `(*` opens comments.
            if rest.starts_with("(*") && self.in_program.get() {
                return failure_msg(rest, ml_comment_in_program());
            }
            self.in_program.set(false);
            if let Ok((r, kw)) = self.keyword("locations", "")(rest) {
                if locations.is_some() {
                    return failure_msg(
                        &self.src[kw.start..],
                        "a second `locations` clause".to_string(),
                    );
                }
                if filter.is_some() || condition.is_some() {
                    return failure_msg(
                        &self.src[kw.start..],
                        "herd7 takes `locations` before the filter and the condition".to_string(),
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
                if condition.is_some() {
                    return failure_msg(
                        &self.src[kw.start..],
                        "herd7 takes the filter before the condition".to_string(),
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

    /// `prop ::= disj`: herd7 binds `~` tightest, then `=>` (to the right), then `/\`,
    /// then `\/`, so `a \/ b => c` is `a \/ (b => c)`.
    pub(crate) fn prop(&self, i: &'a str) -> PResult<'a, Prop> {
        self.enter(i)?;
        let r = self.disj(i);
        self.leave();
        r
    }

    /// `implication ::= neg ("=>" implication)?`; each `=>` is one more level of nesting.
    fn implication(&self, i: &'a str) -> PResult<'a, Prop> {
        let (i, lhs) = self.neg(i)?;
        match self.tok("=>", "`=>`")(i) {
            Ok((rest, _)) => {
                self.enter(i)?;
                let r = cut(|i| self.implication(i)).parse(rest);
                self.leave();
                let (rest, rhs) = r?;
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

    /// `conj ::= implication ("/\" implication)*`
    fn conj(&self, i: &'a str) -> PResult<'a, Prop> {
        self.chain(|| self.conj_chain(i))
    }

    fn conj_chain(&self, i: &'a str) -> PResult<'a, Prop> {
        let (mut i, mut lhs) = self.implication(i)?;
        while let Ok((rest, _)) = self.tok("/\\", "`/\\`")(i) {
            self.link(i)?;
            let (rest, rhs) = cut(|i| self.implication(i)).parse(rest)?;
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
        let at = rest;
        let (rest, value) = cut(|i| self.value(i)).parse(rest)?;
        if op == CmpOp::Ne && matches!(value, Value::Register { .. }) {
            // herd7's condition grammar compares a register with another only by `=`.
            let (at, ()) = self.trivia(at)?;
            return failure_msg(
                at,
                "herd7 compares with a register only by `=`: for `!=`, negate the equality, as in `~(x=0:r1)`"
                    .to_string(),
            );
        }
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

    /// `value ::= state-int | digits ":" name | name`
    fn value(&self, i: &'a str) -> PResult<'a, Value> {
        let (i, ()) = self.trivia(i)?;
        if i.starts_with('-') {
            let (rest, (v, _)) = self.state_int(i)?;
            return Ok((rest, Value::Int(v)));
        }
        if i.starts_with(|c: char| c.is_ascii_digit()) {
            let (rest, (v, _)) = self.state_int(i)?;
            if self.peek(rest, ":")? {
                let (rest, loc) = self.location(i)?;
                if let Location::Register { thread, reg, span } = loc {
                    return Ok((rest, Value::Register { thread, reg, span }));
                }
            }
            return Ok((rest, Value::Int(v)));
        }
        let (rest, id) = self.state_name(i).map_err(|e| {
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
