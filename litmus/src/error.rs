//! Parse errors as values: a span, a message, notes, and a rendering for people.

use std::fmt;

use crate::ast::{Span, line_col};
use crate::parser::{PError, Parser};

/// Why a text is not a litmus test, and where.
#[derive(Clone, PartialEq, Eq, Debug)]
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
        let found = describe_found(e.input);
        let len = found_len(e.input);
        let message = match e.message {
            Some(m) => m,
            None => {
                let expected = match e.expected.as_slice() {
                    [] => "valid syntax".to_string(),
                    [one] => one.to_string(),
                    many => {
                        let (last, rest) = many.split_last().unwrap_or((&"", &[]));
                        format!("{} or {}", rest.join(", "), last)
                    }
                };
                format!("expected {expected}, found {found}")
            }
        };
        let notes = e
            .notes
            .into_iter()
            .map(|(_, n)| format!("to close {n}"))
            .collect();
        ParseError::new(source, Span::new(start, start + len), message, notes)
    }

    /// The error as a person reads it: `file:line:col: error: message`, the source line, a
    /// caret under the place, and the notes.
    pub fn render(&self, file_name: &str, source: &str) -> String {
        let mut out = format!(
            "{}:{}:{}: error: {}\n",
            file_name, self.line, self.col, self.message
        );
        let line_text = source.lines().nth(self.line - 1).unwrap_or("");
        let gutter = self.line.to_string();
        let pad = " ".repeat(gutter.len());
        out.push_str(&format!("{pad} |\n{gutter} | {line_text}\n"));
        // The caret goes under the column, tabs kept so it lines up.
        let prefix: String = line_text
            .chars()
            .take(self.col - 1)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        let width = source[self.span.start.min(source.len())..self.span.end.min(source.len())]
            .lines()
            .next()
            .map_or(1, |s| s.chars().count().max(1));
        out.push_str(&format!("{pad} | {prefix}{}\n", "^".repeat(width)));
        for note in &self.notes {
            out.push_str(&format!("{pad} = note: {note}\n"));
        }
        out
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)?;
        for note in &self.notes {
            write!(f, "; {note}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseError {}

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

/// The length in bytes of the token at the head of `i`: a word, a number, or one character.
fn found_len(i: &str) -> usize {
    let mut chars = i.char_indices();
    match chars.next() {
        None => 0,
        Some((_, c)) if c.is_ascii_alphanumeric() || c == '_' => i
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(i.len()),
        Some((_, c)) => c.len_utf8(),
    }
}
