//! The herd7 C litmus language: AST, parser, printer and diagnostics.
//!
//! This crate knows nothing of executions or memory models.
//! [`parse`] turns the text of a `.litmus` file into a [`Test`], [`print()`] writes a test
//! back in canonical form (`parse(&print(&t)) == Ok(t)`), and a [`ParseError`] says where
//! and why a text is not a litmus test.
//! The language is herd7's C dialect, no more and no less: what herd7's parser refuses
//! (`&&`, `!`, a unary minus, `r0-1`, a chained comparison, a word herd7 reserves) is a
//! [`ParseError`] that says what to write instead; [`diagnostic`] renders such messages and
//! finds the names a misspelt one was probably meant to be.
//!
//! ```
//! let source = "C SB\n{}\nP0(int *x, int *y) { WRITE_ONCE(*x, 1); r0 = READ_ONCE(*y); }\n\
//!               P1(int *x, int *y) { WRITE_ONCE(*y, 1); r0 = READ_ONCE(*x); }\n\
//!               exists (0:r0=0 /\\ 1:r0=0)\n";
//! let test = hazmat_litmus::parse(source).expect("a valid test");
//! assert_eq!(test.name.name, "SB");
//! assert_eq!(test.threads.len(), 2);
//! let canonical = hazmat_litmus::print(&test);
//! assert_eq!(hazmat_litmus::parse(&canonical), Ok(test));
//!
//! let broken = "C SB\n{}\nP0(int *x) { WRITE_ONCE(*x, 1) }\n";
//! let error = hazmat_litmus::parse(broken).unwrap_err();
//! assert_eq!((error.line, error.col), (3, 32));
//! let rendered = error.render("SB.litmus", broken);
//! assert!(rendered.starts_with(
//!     "SB.litmus:3:32: error: expected `;` after the expression, found `}`"
//! ));
//! ```

pub mod ast;
pub mod diagnostic;
mod dialect;
mod error;
pub mod herd_hash;
mod parser;
mod printer;

pub use ast::{Span, Test};
pub use error::ParseError;
pub use herd_hash::herd_hash;
pub use printer::{print, print_condition};

use std::path::{Path, PathBuf};

/// Every `.litmus` file under `dir`, at any depth, sorted; unreadable directories are skipped.
///
/// The order is `Path`'s (component by component): each directory's entries are sorted by
/// name and walked in that order, which gives it without comparing whole paths, a sort
/// that cost as much as parsing a few hundred files.
pub fn litmus_files(dir: impl AsRef<Path>) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<(std::ffi::OsString, PathBuf)> = entries
            .flatten()
            .map(|entry| (entry.file_name(), entry.path()))
            .collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        for (_, path) in entries {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|x| x == "litmus") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir.as_ref(), &mut out);
    out
}

/// Parses the text of a `.litmus` file.
///
/// Never panics; deeply nested input is refused with an error rather than overflowing the
/// stack.
/// C comments (`//`, `/* */`) in thread bodies are skipped; `(* *)` comments are kept in
/// [`Test::comments`].
pub fn parse(source: &str) -> Result<Test, ParseError> {
    parse_with(source, false)
}

/// Parses like [`parse`], but keeps the C comments that stand between statements as
/// [`StmtKind::Comment`](ast::StmtKind::Comment) statements, so that a formatter can print
/// them back.
///
/// Comments elsewhere inside a thread (within an expression, between `if (...)` and its
/// branch) are still dropped.
pub fn parse_keeping_comments(source: &str) -> Result<Test, ParseError> {
    parse_with(source, true)
}

/// The name herd7 gives the test `source` before it parses any of it: its splitter reads
/// it from the first line (the word after the architecture, without a `.litmus` suffix),
/// so herd7 can leave a test out by name (`-names`, `-excl`) however broken its code.
/// `None` where herd7's splitter itself stops on the text (no header on the first line,
/// an init block never closed, a string the program's line does not close...), an error
/// herd7 reports whatever the test's name.
///
/// ```
/// let broken = "C MP+x.litmus\n{}\nP0(int *x) { WRITE_ONCE(*x, 1) }\n";
/// assert!(hazmat_litmus::parse(broken).is_err());
/// assert_eq!(hazmat_litmus::herd7_header_name(broken).as_deref(), Some("MP+x"));
/// assert_eq!(hazmat_litmus::herd7_header_name("C MP\n{ x=1;\n"), None);
/// ```
pub fn herd7_header_name(source: &str) -> Option<String> {
    dialect::splitter_name(source)
}

/// Parses a final condition given apart from any test, as herd7 reads one from its
/// `-conds` files: `exists`, `~exists` (or `not exists`) and `forall` as in a test, and
/// herd7's other spellings of `exists p`, `final p`, `(p)` and `observed` (sets of atoms,
/// each followed by `;`, the sets apart by `and`); nothing at all is `forall (true)`.
/// Unlike a test's condition, it takes no `;` after it.
/// The error's place and the condition's spans are in `text`.
///
/// ```
/// use hazmat_litmus::ast::Quantifier;
/// let c = hazmat_litmus::parse_condition("final 0:r0=1").expect("a condition");
/// assert_eq!(c.quantifier, Quantifier::Exists);
/// assert_eq!(hazmat_litmus::print_condition(&c), "exists (0:r0=1)");
/// assert_eq!(hazmat_litmus::print_condition(&hazmat_litmus::parse_condition("").unwrap()), "forall (true)");
/// let e = hazmat_litmus::parse_condition("exists (0:r0=1);").unwrap_err();
/// assert_eq!((e.line, e.col), (1, 16));
/// ```
pub fn parse_condition(text: &str) -> Result<ast::Condition, ParseError> {
    let p = parser::Parser::new(text, false);
    finish(&p, text, p.condition_alone(text), "the condition")
}

fn parse_with(source: &str, keep_comments: bool) -> Result<Test, ParseError> {
    let p = parser::Parser::new(source, keep_comments);
    finish(&p, source, p.test(source), "file")
}

/// What the parser `p` made of all of `text`, or the error it stopped with; `what` names
/// the text that ended too soon.
fn finish<'a, T>(
    p: &parser::Parser<'a>,
    text: &str,
    result: nom::IResult<&'a str, T, parser::PError<'a>>,
    what: &str,
) -> Result<T, ParseError> {
    match result {
        Ok((_, t)) => Ok(t),
        Err(nom::Err::Error(e) | nom::Err::Failure(e)) => {
            Err(ParseError::from_internal(p, text, e))
        }
        Err(nom::Err::Incomplete(_)) => Err(ParseError::new(
            text,
            Span::new(text.len(), text.len()),
            format!("unexpected end of {what}"),
            Vec::new(),
        )),
    }
}
