//! The herd7 C litmus language: AST, parser, printer and diagnostics.
//!
//! This crate knows nothing of executions or memory models.
//! [`parse`] turns the text of a `.litmus` file into a [`Test`], [`print`] writes a test
//! back in canonical form (`parse(&print(&t)) == Ok(t)`), and a [`ParseError`] says where
//! and why a text is not a litmus test.

pub mod ast;
mod error;
mod parser;
mod printer;

pub use ast::{Span, Test};
pub use error::ParseError;
pub use printer::print;

/// Parses the text of a `.litmus` file.
///
/// Never panics; deeply nested input is refused with an error rather than overflowing the
/// stack.
pub fn parse(source: &str) -> Result<Test, ParseError> {
    let p = parser::Parser::new(source);
    match p.test(source) {
        Ok((_, test)) => Ok(test),
        Err(nom::Err::Error(e) | nom::Err::Failure(e)) => {
            Err(ParseError::from_internal(&p, source, e))
        }
        Err(nom::Err::Incomplete(_)) => Err(ParseError::new(
            source,
            Span::new(source.len(), source.len()),
            "unexpected end of file".to_string(),
            Vec::new(),
        )),
    }
}
