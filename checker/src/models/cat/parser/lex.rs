//! The lexer: the text of a model to tokens, as herd7's lexer reads it, and the text
//! [`normalized`] to its tokens, which tells two files apart by their tokens alone.

use crate::models::cat::ast::Span;
use crate::models::cat::error::{CatError, ErrorKind};

/// The kinds of token, one for each of herd7's lexer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum T {
    Var,
    Tag,
    Str,
    LPar,
    RPar,
    Begin,
    End,
    LAcc,
    RAcc,
    LBrac,
    RBrac,
    Zero,
    Underscore,
    Subset,
    Not,
    LAnd,
    Alt,
    Semi,
    Union,
    Inter,
    Comma,
    Diff,
    PlusPlus,
    Star,
    Plus,
    Opt,
    Inv,
    Comp,
    Hat,
    Let,
    Rec,
    And,
    When,
    Acyclic,
    Irreflexive,
    TestEmpty,
    Equal,
    Show,
    Unshow,
    As,
    Fun,
    In,
    Procedure,
    Call,
    Forall,
    Do,
    From,
    Try,
    Instructions,
    Default,
    If,
    Then,
    Else,
    Variant,
    Requires,
    Flag,
    Assert,
    Arrow,
    Enum,
    Debug,
    Match,
    With,
    Catdep,
    Include,
    Eof,
    /// Where the lexer failed: the parser reports the lexer's error if it gets there, as
    /// herd7, whose lexer runs as its parser asks for tokens, does.
    Error,
}

/// A token: its kind and its bytes.
#[derive(Clone, Copy, Debug)]
pub(super) struct Token {
    pub(super) t: T,
    pub(super) start: u32,
    pub(super) end: u32,
}

/// The tokens of a model's text, one space apart: the text without its comments and
/// with its blanks normalised, so that two files that differ only there give the same
/// string; `None` when the text does not lex.
pub fn normalized(text: &str) -> Option<String> {
    let (toks, error) = lex(text, 0);
    if error.is_some() {
        return None;
    }
    let words: Vec<&str> = toks
        .iter()
        .filter(|t| t.t != T::Eof)
        .map(|t| &text[t.start as usize..t.end as usize])
        .collect();
    Some(words.join(" "))
}

/// The keyword a name is, if any.
fn keyword(name: &str) -> Option<T> {
    Some(match name {
        "let" => T::Let,
        "rec" => T::Rec,
        "and" => T::And,
        "when" => T::When,
        "acyclic" => T::Acyclic,
        "irreflexive" => T::Irreflexive,
        "show" => T::Show,
        "unshow" => T::Unshow,
        "empty" => T::TestEmpty,
        "subset" => T::Subset,
        "as" => T::As,
        "fun" => T::Fun,
        "in" => T::In,
        "undefined_unless" => T::Requires,
        "flag" => T::Flag,
        "assert" => T::Assert,
        "include" => T::Include,
        "variant" => T::Variant,
        "begin" => T::Begin,
        "end" => T::End,
        "procedure" => T::Procedure,
        "call" => T::Call,
        "enum" => T::Enum,
        "debug" => T::Debug,
        "match" => T::Match,
        "with" => T::With,
        "forall" => T::Forall,
        "from" => T::From,
        "do" => T::Do,
        "try" => T::Try,
        "if" => T::If,
        "then" => T::Then,
        "else" => T::Else,
        "catdep" => T::Catdep,
        "instructions" => T::Instructions,
        "default" => T::Default,
        "not" => T::Not,
        _ => return None,
    })
}

/// The end of the name that starts at `i`, if one does: `_? alpha (alpha | digit | _ | . |
/// -)* '?`.
fn name_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i;
    if b.get(j) == Some(&b'_') {
        j += 1;
    }
    if !b.get(j).is_some_and(u8::is_ascii_alphabetic) {
        return None;
    }
    j += 1;
    while b
        .get(j)
        .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
    {
        j += 1;
    }
    if b.get(j) == Some(&b'\'') {
        j += 1;
    }
    Some(j)
}

/// The tokens of a text, ending with [`T::Eof`], or with [`T::Error`] and the error where
/// no token can be read.
pub(super) fn lex(src: &str, file: u32) -> (Vec<Token>, Option<CatError>) {
    let mut out = Vec::new();
    match lex_into(src, file, &mut out) {
        Ok(()) => {
            out.push(Token {
                t: T::Eof,
                start: src.len() as u32,
                end: src.len() as u32,
            });
            (out, None)
        }
        Err(e) => {
            let at = e.at.map_or(src.len() as u32, |a| a.span.start);
            out.push(Token {
                t: T::Error,
                start: at,
                end: at,
            });
            (out, Some(e))
        }
    }
}

/// Pushes the tokens of a text onto `out`, up to the first place where none can be read.
fn lex_into(src: &str, file: u32, out: &mut Vec<Token>) -> Result<(), CatError> {
    let b = src.as_bytes();
    let mut i = 0;
    let span = |start: usize, end: usize| Span {
        file,
        start: start as u32,
        end: end as u32,
    };
    while i < b.len() {
        let start = i;
        let two = |s: &[u8]| b[i..].starts_with(s);
        let (t, len) = match b[i] {
            b' ' | b'\t' | b'\r' | b'\n' => {
                i += 1;
                continue;
            }
            b'#' => {
                i = skip_line(b, i);
                continue;
            }
            b'/' if two(b"//") => {
                i = skip_line(b, i);
                continue;
            }
            b'(' if two(b"(*") => {
                i = skip_comment(src, b, i, file)?;
                continue;
            }
            b'(' => (T::LPar, 1),
            b')' => (T::RPar, 1),
            b'{' => (T::LAcc, 1),
            b'}' => (T::RAcc, 1),
            b'[' => (T::LBrac, 1),
            b']' => (T::RBrac, 1),
            b'0' => (T::Zero, 1),
            b'|' if two(b"||") => (T::Alt, 2),
            b'|' => (T::Union, 1),
            b'&' if two(b"&&") => (T::LAnd, 2),
            b'&' => (T::Inter, 1),
            b'*' => (T::Star, 1),
            b'~' => (T::Comp, 1),
            b'+' if two(b"++") => (T::PlusPlus, 2),
            b'+' => (T::Plus, 1),
            b'^' => (T::Hat, 1),
            b'-' if two(b"-1") => (T::Inv, 2),
            b'-' if two(b"->") => (T::Arrow, 2),
            b'\\' => (T::Diff, 1),
            b'?' => (T::Opt, 1),
            b'=' => (T::Equal, 1),
            b';' => (T::Semi, 1),
            b',' => (T::Comma, 1),
            b'"' => match b[i + 1..].iter().position(|&c| c == b'"') {
                Some(n) => (T::Str, n + 2),
                None => {
                    return Err(CatError::at(
                        ErrorKind::Syntax,
                        src,
                        span(i, i + 1),
                        "unclosed string: `\"` without the `\"` that ends it".to_string(),
                    ));
                }
            },
            b'\'' => match name_end(b, i + 1) {
                Some(end) => (T::Tag, end - i),
                None => {
                    return Err(CatError::at(
                        ErrorKind::Syntax,
                        src,
                        span(i, i + 1),
                        "expected a name after `'`".to_string(),
                    )
                    .note("a tag is a name after a quote, such as `'acquire`"));
                }
            },
            _ => match name_end(b, i) {
                Some(end) => {
                    let t = keyword(&src[i..end]).unwrap_or(T::Var);
                    (t, end - i)
                }
                None if b[i] == b'_' => (T::Underscore, 1),
                None => return Err(unexpected_char(src, i, file)),
            },
        };
        i += len;
        out.push(Token {
            t,
            start: start as u32,
            end: i as u32,
        });
    }
    Ok(())
}

/// The error for a character no token starts with, at byte `i` (a character boundary).
fn unexpected_char(src: &str, i: usize, file: u32) -> CatError {
    let c = src[i..].chars().next().unwrap_or('?');
    let span = Span {
        file,
        start: i as u32,
        end: (i + c.len_utf8()) as u32,
    };
    let shown = if c.is_control() {
        c.escape_default().to_string()
    } else {
        c.to_string()
    };
    let e = CatError::at(
        ErrorKind::Syntax,
        src,
        span,
        format!("unexpected character `{shown}`"),
    );
    if c.is_ascii_digit() {
        e.note("the only number of the model language is `0`, the empty set")
    } else if c == '-' {
        e.note("`-` is part of a name (`po-loc`), of `->` or of `^-1`")
    } else {
        e
    }
}

/// The index of the newline that ends the line comment starting at `i` (or the end).
fn skip_line(b: &[u8], i: usize) -> usize {
    b[i..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |n| i + n)
}

/// The index just past the comment `(* ... *)` that starts at `i`, comments nesting.
fn skip_comment(src: &str, b: &[u8], i: usize, file: u32) -> Result<usize, CatError> {
    let mut level = 0usize;
    let mut j = i;
    while j < b.len() {
        if b[j..].starts_with(b"(*") {
            level += 1;
            j += 2;
        } else if b[j..].starts_with(b"*)") {
            level -= 1;
            j += 2;
            if level == 0 {
                return Ok(j);
            }
        } else {
            j += 1;
        }
    }
    let span = Span {
        file,
        start: i as u32,
        end: i as u32 + 2,
    };
    let e = CatError::at(
        ErrorKind::Syntax,
        src,
        span,
        "unclosed comment: `(*` without the `*)` that ends it".to_string(),
    );
    Err(if level > 1 {
        e.note(format!(
            "comments nest: {level} are open at the end of the file"
        ))
    } else {
        e
    })
}
