//! herd7's model language, cat (and bell, written in it): the interpreter that serves
//! every model the native ones do not, from its files.
//!
//! [`ast`] is the syntax; [`parser`] reads one file into it ([`parse`]).
//! Every error is a [`CatError`].

pub mod ast;
mod error;
pub mod parser;

pub use error::{CatError, ErrorKind, Location};
pub use parser::parse;
