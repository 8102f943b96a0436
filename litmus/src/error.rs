//! Parse errors as values: a span, a message, notes, and a rendering for people.

use crate::ast::{Span, line_col};
use crate::diagnostic::{self, Severity};
use crate::parser::{PError, Parser};

/// Why a text is not a litmus test, and where.
///
/// Its `Display` is one line, `line:col: message; note`; [`ParseError::render`] gives the
/// full diagnostic with the source line.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("{line}:{col}: {message}{}", notes_suffix(.notes))]
pub struct ParseError {
    /// The offending bytes (empty at the end of the file).
    pub span: Span,
    /// What is wrong, starting lowercase: "expected `)`, found `;`".
    pub message: String,
    /// The 1-based line of `span.start`.
    pub line: usize,
    /// The 1-based column (in characters) of `span.start`.
    pub col: usize,
    /// Further explanations, such as "to close the condition opened at 14:8".
    pub notes: Vec<String>,
}

impl ParseError {
    pub(crate) fn new(source: &str, span: Span, message: String, notes: Vec<String>) -> ParseError {
        let (line, col) = line_col(source, span.start);
        ParseError {
            span,
            message,
            line,
            col,
            notes,
        }
    }

    pub(crate) fn from_internal(p: &Parser<'_>, source: &str, e: PError<'_>) -> ParseError {
        let start = p.off(e.input);
        let found = if e.at_eof {
            "end of file".to_string()
        } else {
            describe_found(e.input)
        };
        let len = if e.at_line_end || e.at_eof {
            0
        } else {
            found_len(e.input)
        };
        let message = match e.full_message() {
            Some(m) => m.to_string(),
            None => {
                let expected = match e.expected_all().as_slice() {
                    [] => "valid syntax".to_string(),
                    [one] => one.to_string(),
                    [rest @ .., last] => format!("{} or {}", rest.join(", "), last),
                };
                if e.at_line_end {
                    format!("expected {expected}")
                } else {
                    format!("expected {expected}, found {found}")
                }
            }
        };
        let extra = e.extra.unwrap_or_default();
        let mut notes: Vec<String> = extra.notes.into_iter().map(|(_, n)| n).collect();
        // The outermost section (init block, thread, trailer clause) says where the reader is.
        if let Some((at, what)) = extra.contexts.last() {
            let at = at.trim_start();
            let (l, c) = line_col(source, p.off(at));
            if l != line_col(source, start).0 {
                notes.push(format!("in {what} that starts at {l}:{c}"));
            }
        }
        ParseError::new(source, Span::new(start, start + len), message, notes)
    }

    /// The error as a person reads it: `file:line:col: error: message`, the source line, a
    /// caret under the place, and the notes (see [`diagnostic::render`]).
    pub fn render(&self, file_name: &str, source: &str) -> String {
        diagnostic::render_at(
            file_name,
            source,
            (self.line, self.col),
            self.span,
            Severity::Error,
            &self.message,
            &self.notes,
        )
    }
}

/// The notes as a suffix of the one-line form: "; note; note".
fn notes_suffix(notes: &[String]) -> String {
    notes.iter().map(|n| format!("; {n}")).collect()
}

/// How the text at an error reads in a message: "`;`", "`foo`", "end of file".
fn describe_found(i: &str) -> String {
    if i.is_empty() {
        return "end of file".to_string();
    }
    let n = found_len(i);
    match &i[..n] {
        "\n" => "end of line".to_string(),
        s => format!("`{s}`"),
    }
}

/// The length in bytes of the token at the head of `i`: a word, a number (`-1` included), an
/// operator of up to three characters (`->`, `+=`, `<<=`), or one character.
fn found_len(i: &str) -> usize {
    const OPERATOR: &str = "<>=!&|+-*/%^";
    // A minus glued to digits is one token, a negative number, as herd7 reads it.
    if let Some(digits) = i.strip_prefix('-') {
        let n = digits
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(digits.len());
        if n > 0 {
            return 1 + n;
        }
    }
    match i.chars().next() {
        None => 0,
        Some(c) if c.is_ascii_alphanumeric() || c == '_' => i
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(i.len()),
        Some(c) if OPERATOR.contains(c) => i
            .bytes()
            .take(3)
            .take_while(|b| OPERATOR.as_bytes().contains(b))
            .count(),
        Some(c) => c.len_utf8(),
    }
}
