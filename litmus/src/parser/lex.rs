//! The parser's error and its tokens: [`PError`] and the helpers that raise it; the trivia
//! (white space and both comment syntaxes); exact tokens, keywords, and the closing token of
//! an open bracket; words, and the names herd7 reserves; and numbers (thread numbers, the
//! 32-bit integers of the init block and the trailer, and thread code's decimal ones).

use nom::Parser as _;
use nom::combinator::cut;
use nom::error::{ContextError, ErrorKind, ParseError};
use nom::{Err, IResult};

use super::Parser;
use crate::ast::*;
use crate::dialect;

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
    pub(super) fn expected(input: &'a str, what: &'static str) -> PError<'a> {
        PError {
            input,
            expected: what,
            at_line_end: false,
            at_eof: false,
            extra: None,
        }
    }

    pub(super) fn message(input: &'a str, message: String) -> PError<'a> {
        let mut e = PError::expected(input, "");
        e.extra_mut().message = Some(message);
        e
    }

    pub(super) fn extra_mut(&mut self) -> &mut Extra<'a> {
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
    pub(super) fn set_expected(&mut self, what: &'static str) {
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

pub(super) fn fail<'a, T>(input: &'a str, what: &'static str) -> PResult<'a, T> {
    Err(Err::Error(PError::expected(input, what)))
}

pub(super) fn failure<'a, T>(input: &'a str, what: &'static str) -> PResult<'a, T> {
    Err(Err::Failure(PError::expected(input, what)))
}

pub(super) fn fatal(input: &str, message: String) -> Err<PError<'_>> {
    Err::Failure(PError::message(input, message))
}

pub(super) fn failure_msg<'a, T>(input: &'a str, message: String) -> PResult<'a, T> {
    Err(Err::Failure(PError::message(input, message)))
}

pub(super) fn commit_err(e: Err<PError<'_>>) -> Err<PError<'_>> {
    match e {
        Err::Error(e) => Err::Failure(e),
        other => other,
    }
}

pub(super) fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

pub(super) fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The message for a word that herd7 reserves in thread code.
pub(super) fn reserved_in_code(word: &str) -> String {
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

/// The message for herd7's fault atom, `fault(P0,x)`.
const FAULT_ATOM: &str = "hazmat does not take herd7's fault atoms (`fault(P0,x)`), which are for \
                          architectures with faults: a C test has none, herd7 takes each as false \
                          and prints `~Fault(P0,x);` in every state; write `false` for \
                          `fault(...)` and `true` for `~fault(...)`";

/// The message for herd7's arrays, `int x[2] = {1,2};` in the init block.
pub(super) const ARRAYS: &str = "hazmat does not take herd7's arrays (`int x[2] = {1,2};`, \
                                 `x[1]=2`): herd7's C threads reach only an array's first \
                                 element (`*x`), and its others only under `-variant mixed`";

/// The message for a number out of herd7's 32-bit range.
fn out_of_range(text: &str) -> String {
    format!("`{text}` is out of range: herd7's numbers are 32-bit, from -2147483648 to 2147483647")
}

/// The message for a `(* ... *)` comment where herd7 reads C.
pub(super) fn ml_comment_in_program() -> String {
    "herd7 reads the text between the init block and the condition as C, where `(*` opens no \
     comment: write `/* ... */` or `//`, or move the comment before the init block or after \
     the condition"
        .to_string()
}

/// `i` without its leading white space, as `str::trim_start` cuts it: ASCII blanks byte by
/// byte (trivia is skipped before every token, and decoding each character cost more than
/// the parse around it), the rest of Unicode's white space by `trim_start`.
fn trim_blanks(i: &str) -> &str {
    let n = i
        .bytes()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c'))
        .unwrap_or(i.len());
    let i = &i[n..];
    if i.as_bytes().first().is_some_and(|b| !b.is_ascii()) {
        i.trim_start()
    } else {
        i
    }
}

impl<'a> Parser<'a> {
    /// Skips white space and comments: C's in the program, `(* ... *)` elsewhere, where
    /// they are recorded.
    pub(super) fn trivia(&self, mut i: &'a str) -> PResult<'a, ()> {
        loop {
            i = trim_blanks(i);
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
    pub(super) fn ml_comment(&self, i: &'a str) -> PResult<'a, ()> {
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
    pub(super) fn tok(
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

    /// Adds "to close X opened at L:C" to an error whose expectation is the closing token.
    pub(super) fn closing(
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

    /// Whether the next token (after trivia) is `t`, without consuming anything.
    pub(super) fn peek(&self, i: &'a str, t: &str) -> Result<bool, Err<PError<'a>>> {
        let (i, ()) = self.trivia(i)?;
        Ok(i.starts_with(t))
    }

    /// Skips trivia, then an identifier (keywords included); returns it and where it began.
    pub(super) fn word(&self, i: &'a str) -> PResult<'a, Ident> {
        let (i, ()) = self.trivia(i)?;
        if !i.starts_with(is_ident_start) {
            return fail(i, "a name");
        }
        let n = i.find(|c: char| !is_ident_char(c)).unwrap_or(i.len());
        let id = Ident::new(&i[..n], Span::new(self.off(i), self.off(i) + n));
        Ok((&i[n..], id))
    }

    /// Skips trivia, then the keyword `kw` (not followed by a name character).
    pub(super) fn keyword(
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
    pub(super) fn code_name(&self, i: &'a str) -> PResult<'a, Ident> {
        let (rest, id) = self.word(i)?;
        if !dialect::is_code_name(&id.name) {
            let at = &self.src[id.span.start..];
            return Err(Err::Error(PError::message(at, reserved_in_code(&id.name))));
        }
        Ok((rest, id))
    }

    /// A name of the init block or the trailer: a word herd7's lexer of those parts does not
    /// reserve.
    pub(super) fn state_name(&self, i: &'a str) -> PResult<'a, Ident> {
        let (rest, id) = self.word(i)?;
        if !dialect::is_state_name(&id.name) {
            let at = &self.src[id.span.start..];
            // `P1:r0` for `1:r0`.
            if dialect::is_thread_word(&id.name) && rest.trim_start().starts_with(':') {
                let message = format!(
                    "a register of a thread is written with the thread's number alone: `{}:` \
                     for `{}:`",
                    &id.name[1..],
                    id.name
                );
                return Err(Err::Error(PError::message(at, message)));
            }
            if id.name == "fault" && rest.trim_start().starts_with('(') {
                return Err(Err::Failure(PError::message(at, FAULT_ATOM.to_string())));
            }
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
    pub(super) fn thread_number(&self, i: &'a str) -> PResult<'a, u32> {
        let (rest, (v, _, _)) = self.digits(i, false)?;
        match u32::try_from(v) {
            Ok(v) => Ok((rest, v)),
            Err(_) => failure_msg(i, "thread number too large".to_string()),
        }
    }

    /// `state-int ::= "-"? decimal | hexadecimal`: a number of the init block or the
    /// trailer, 32-bit as herd7 reads it (`0xffffffff` is -1).
    pub(super) fn state_int(&self, i: &'a str) -> PResult<'a, (i64, Span)> {
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
    pub(super) fn code_int(&self, i: &'a str) -> PResult<'a, (i64, Span)> {
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
}

#[cfg(test)]
mod tests {
    use super::trim_blanks;

    #[test]
    fn trim_blanks_cuts_what_trim_start_cuts() {
        for text in [
            "",
            "   ",
            "x",
            " \t\r\n\x0b\x0cx y",
            "\u{a0}\u{2003} x",
            " \u{85}\n\u{3000}r0",
            "é ",
            " \u{1f600}",
        ] {
            assert_eq!(trim_blanks(text), text.trim_start(), "{text:?}");
        }
    }
}
