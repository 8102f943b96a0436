//! Errors in reading a model, as values: what went wrong, where, and a rendering for
//! people.
//!
//! Every error of the lexer, the parser, the loader and the configuration reader is a
//! [`CatError`].
//! Its place is a [`Span`] in one of the model's files; the line and column are computed
//! when the error is made, so its `Display` form (`line:col: message`) needs no source,
//! and [`CatError::render`] gives the full diagnostic (`file:line:col: error: message`, the
//! source line and a caret) with the file's name from the [`Files`] table, in the same
//! rendering as every message about a litmus file.

use hazmat_litmus::diagnostic::{self, Severity};

use super::ast::Span;
use super::source::Files;

/// What kind of error a [`CatError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The text is not in herd7's model language: a character no token starts with, an
    /// unclosed comment or string, a token where the grammar allows none.
    Syntax,
    /// The text nests deeper than the parser follows, or a file is larger than spans count.
    Limit,
    /// A file named by `include` (or given to the loader) is in none of the places searched.
    NotFound,
    /// A file includes itself, directly or through others.
    IncludeCycle,
    /// A file was found but could not be read.
    Read,
    /// Under herd7's command line, an include that fails where herd7 runs the bell file,
    /// once before any test: the message is herd7's own words, in no file, and herd7 stops.
    StopsHerd7,
    /// A line of a herd7 configuration file is not `key value`.
    Config,
    /// The model is read, but cannot run: a construct the interpreter does not support, a
    /// `let rec` that mixes functions and values, or (when it runs) a type error, a name
    /// defined nowhere, a fixpoint that is never reached.
    Model,
}

/// A place in a model's files, with its line and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Location {
    /// The bytes at fault (empty at the end of a file).
    pub span: Span,
    /// The 1-based line of `span.start`.
    pub line: usize,
    /// The 1-based column, in characters, of `span.start`.
    pub col: usize,
}

/// Why a model (or a configuration file) cannot be read, and where.
///
/// Its `Display` form is one line, `line:col: message; note`; [`CatError::render`] gives
/// the full diagnostic.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}{}", at_prefix(.at), notes_suffix(.notes))]
pub struct CatError {
    /// The kind of error.
    pub kind: ErrorKind,
    /// Where it is; `None` when no file holds the mistake (a model file that cannot be
    /// found).
    pub at: Option<Location>,
    /// What is wrong, starting lowercase: "expected `end`, found `let`".
    pub message: String,
    /// Further explanations, such as "the `procedure` that needs it starts at 3:1".
    pub notes: Vec<String>,
}

impl CatError {
    /// An error at `span` of `source` (the text of file `span.file`).
    pub(crate) fn at(kind: ErrorKind, source: &str, span: Span, message: String) -> CatError {
        let (line, col) = hazmat_litmus::ast::line_col(source, span.start as usize);
        CatError {
            kind,
            at: Some(Location { span, line, col }),
            message,
            notes: Vec::new(),
        }
    }

    /// An error in no file.
    pub(crate) fn nowhere(kind: ErrorKind, message: String) -> CatError {
        CatError {
            kind,
            at: None,
            message,
            notes: Vec::new(),
        }
    }

    /// The error with one more note.
    pub(crate) fn note(mut self, note: impl Into<String>) -> CatError {
        self.notes.push(note.into());
        self
    }

    /// The error as a person reads it: `file:line:col: error: message`, the source line, a
    /// caret under the place, and the notes; `error: message` and the notes when it is in
    /// no file (or in a file `files` does not hold).
    pub fn render(&self, files: &Files) -> String {
        match self.at.and_then(|at| files.get(at.span.file)) {
            Some(file) => self.render_in(&file.name, &file.text),
            None => self.render_nowhere(),
        }
    }

    /// [`CatError::render`] against one text, named `file_name`, for an error that
    /// [`parse`](super::parser::parse) returned for it.
    pub fn render_in(&self, file_name: &str, source: &str) -> String {
        let Some(at) = self.at else {
            return self.render_nowhere();
        };
        let span = hazmat_litmus::Span::new(at.span.start as usize, at.span.end as usize);
        diagnostic::render(
            file_name,
            source,
            span,
            Severity::Error,
            &self.message,
            &self.notes,
        )
    }

    /// The rendering of an error in no file: `error: message` and the notes.
    fn render_nowhere(&self) -> String {
        let mut out = format!("error: {}\n", self.message);
        for note in &self.notes {
            out.push_str(&format!("  = note: {note}\n"));
        }
        out
    }
}

/// `line:col: `, or nothing for an error in no file.
fn at_prefix(at: &Option<Location>) -> String {
    at.map(|at| format!("{}:{}: ", at.line, at.col))
        .unwrap_or_default()
}

/// The notes as a suffix of the one-line form: "; note; note".
fn notes_suffix(notes: &[String]) -> String {
    notes.iter().map(|n| format!("; {n}")).collect()
}

/// An error of kind [`ErrorKind::Model`] at `span` of `files`, or in no file when the span
/// is the default one or its file is not in `files`.
pub(crate) fn model_error(files: &Files, span: Span, message: String) -> CatError {
    match files.get(span.file) {
        Some(f) if span != Span::default() => {
            CatError::at(ErrorKind::Model, &f.text, span, message)
        }
        _ => CatError::nowhere(ErrorKind::Model, message),
    }
}
