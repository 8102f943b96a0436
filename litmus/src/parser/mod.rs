//! The nom parser: one method per grammar rule, from [`Parser::test`] down to tokens.
//!
//! The rules are methods of [`Parser`], which holds the whole source (to turn the remaining
//! input into byte offsets for spans), the comments met so far, and the nesting depth.
//! Every rule skips the trivia (white space and comments) before its tokens.
//! Once a rule has seen the token that commits it (`if`, `(`, `exists`, ...) the rest is
//! wrapped in `cut`, so errors name the real mistake instead of a far-away alternative.
//!
//! This file holds the parser's state, [`Parser`], and its bounds on nesting; the rules live
//! in one file per part of a test: `lex` (the error type, trivia, tokens, words and numbers),
//! `header` (the test, its header, the init block, locations and types), `stmt` (threads and
//! statements), `expr` (thread code's expressions) and `condition` (the trailer and the
//! `Result:` expectations).
//!
//! The language is herd7's C dialect (see [`crate::dialect`]), and the parser refuses what
//! herd7 refuses, each with a message that says what to write instead: C operators herd7
//! lacks (`&&`, `!`, `%`, `<<`, unary `-`, ...), chained comparisons, `r0-1` (which herd7
//! reads as `r0` followed by the number `-1`), hexadecimal numbers in thread code, empty
//! statements and blocks, names that herd7 reserves, and the rest.
//!
//! Two comment syntaxes share the file: `(* ... *)` in the header, the init block and the
//! trailer (kept in the AST), and C's `//` and `/* */` everywhere (dropped).
//! Between the init block and the trailer herd7 reads C, where `(*` is no comment: inside
//! thread bodies it is C (`READ_ONCE(*x)`), between threads an error.
//!
//! # Complexity
//!
//! Linear in the input: alternatives backtrack over at most one item (an init item, a
//! statement head or a type).
//! Recursion deeper than [`MAX_DEPTH`], and trees deeper than [`MAX_TREE`], are errors
//! rather than stack overflows.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use nom::Err;

use crate::ast::{Comment, CommentPlace, Span};

mod condition;
mod expr;
mod header;
mod lex;
mod stmt;

pub(crate) use lex::PError;
use lex::PResult;

/// How deeply expressions, propositions and statements may nest.
pub(crate) const MAX_DEPTH: u32 = 200;

/// How deep a tree may grow, counting both nesting and chained operators.
pub(crate) const MAX_TREE: u32 = 1000;

/// The parser state for one source text.
pub(crate) struct Parser<'a> {
    src: &'a str,
    comments: RefCell<BTreeMap<usize, Comment>>,
    place: Cell<CommentPlace>,
    /// Whether the parser is in the program, from the init block's `}` to the trailer's
    /// first clause, where herd7 reads C: C comments there, `(* ... *)` ones elsewhere.
    in_program: Cell<bool>,
    /// The parser's own recursion depth, bounded by [`MAX_DEPTH`].
    depth: Cell<u32>,
    /// The depth of the tree being built, bounded by [`MAX_TREE`].
    tree: Cell<u32>,
    /// Whether C comments between statements become `Comment` statements.
    keep_comments: bool,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(src: &'a str, keep_comments: bool) -> Parser<'a> {
        Parser {
            src,
            comments: RefCell::new(BTreeMap::new()),
            place: Cell::new(CommentPlace::Header),
            in_program: Cell::new(false),
            depth: Cell::new(0),
            tree: Cell::new(0),
            keep_comments,
        }
    }

    /// The byte offset of the remaining input `i`.
    pub(crate) fn off(&self, i: &str) -> usize {
        self.src.len() - i.len()
    }

    fn span(&self, start: &str, end: &str) -> Span {
        Span::new(self.off(start), self.off(end))
    }

    /// Enters one level of nesting, failing cleanly past [`MAX_DEPTH`].
    fn enter(&self, i: &'a str) -> Result<(), Err<PError<'a>>> {
        let d = self.depth.get() + 1;
        if d > MAX_DEPTH {
            return Err(Err::Failure(PError::message(
                i,
                format!("nesting deeper than {MAX_DEPTH} levels"),
            )));
        }
        self.link(i)?;
        self.depth.set(d);
        Ok(())
    }

    fn leave(&self) {
        self.depth.set(self.depth.get() - 1);
        self.tree.set(self.tree.get() - 1);
    }

    /// Counts one more level of the tree being built: a nesting, or one more operator of a
    /// left-nested chain (`a + b + c`, `p /\ q /\ r`), which the parser builds in a loop
    /// but which deepens the tree all the same.
    ///
    /// The bound keeps every recursive walk of the tree (drop, clone, comparison, printing,
    /// the checker's own passes) within a thread's stack: a tree is at most twice
    /// [`MAX_TREE`] deep.
    fn link(&self, i: &'a str) -> Result<(), Err<PError<'a>>> {
        let t = self.tree.get() + 1;
        if t > MAX_TREE {
            return Err(Err::Failure(PError::message(
                i,
                format!("more than {MAX_TREE} operators nested or chained"),
            )));
        }
        self.tree.set(t);
        Ok(())
    }

    /// Runs a chain-building loop, restoring the tree depth when it ends.
    fn chain<T>(&self, f: impl FnOnce() -> PResult<'a, T>) -> PResult<'a, T> {
        let base = self.tree.get();
        let r = f();
        self.tree.set(base);
        r
    }
}
