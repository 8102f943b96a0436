//! herd7's model language, cat (and bell, written in it): the interpreter that serves
//! every model the native ones do not, from its files.
//!
//! [`ast`] is the syntax.

pub mod ast;
