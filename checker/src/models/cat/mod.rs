//! herd7's model language, cat (and bell, written in it): the interpreter that serves
//! every model the native ones do not, from its files.
//!
//! [`ast`] is the syntax; [`parser`] reads one file into it ([`parse`]), [`files`] finds
//! and loads a model with the files it includes, as herd7 looks for them, and [`config`]
//! reads herd7's configuration files.
//! Every error is a [`CatError`], located in the [`Files`] it was read from.

pub mod ast;
pub mod config;
mod error;
pub mod files;
pub mod known;
pub mod parser;
pub mod source;

pub use error::{CatError, ErrorKind, Location};
pub use files::{Library, Loaded};
pub use parser::{normalized, parse};
pub use source::{Files, Origin, SourceFile};
pub(crate) mod compile;
pub(crate) mod eval;
pub use compile::unbound_var;
pub use eval::{failed_assertion, failed_include};
pub mod load;
mod merge;
pub mod model;
mod stage;

pub use load::{IncludeErrors, LoadError, Spec, load, load_with};
pub use model::CatModel;
