//! The parser of herd7's model language: the text of a cat or bell file to a [`Model`].
//!
//! It reads what herd7's own grammar reads, no more and no less, and builds the same tree.
//! A lexer first turns the whole text into tokens as herd7's lexer does: names run on
//! through letters, digits, `_`, `.` and `-` (so `po-loc` and `Sync-rcu` are one name, and
//! so is `x->y`'s `x-`), `0` is the only number, `-1` is a token of its own, comments are
//! `(* nested *)`, `//` and `#` to the end of the line.
//! Then a recursive-descent parser over the tokens, one method per rule of herd7's grammar
//! (named after it), builds the tree; the operators of sets and relations are parsed by
//! precedence climbing with herd7's table, from the loosest: `|`, `++`, `;` (all three to
//! the right), `\` (to the left), `&` (to the right), then the postfix `*`, `+`, `?`, the
//! prefix `~` and the product `S * T` on one level that does not associate, then `^-1`,
//! and application, which binds tightest.
//!
//! Why not nom, the project's parser library: herd7's grammar is an LR grammar over tokens
//! whose choices need one or two tokens of lookahead (a postfix `*` or a product, a list
//! of names or an expression after `show`, a clause on tags or on sets, a condition on
//! variants or on values), and whose operator table is best stated once, as a table.
//! A token stream makes each choice a look at the next token, every error points at a
//! whole token ("expected `end`, found `let`"), and the precedence table is one `match`.
//!
//! Where herd7's table makes its parser refuse a text, this parser refuses it too, with a
//! note on what to write: the operators of the non-associating level do not chain
//! (`~r*`, `r*s*t`, `r*s+` are errors: write `~(r*)` or `(~r)*`), and a postfix `*` may not
//! be followed by `~` (herd7 takes it for a product whose right side it cannot read).
//! `S * T` is a product whenever the token after `*` can start an expression.
//!
//! Every node carries the [`Span`] of its text, as herd7's locations do: a parenthesised
//! expression has the span of what is inside the parentheses.
//! `a | b | c` and `a ; b ; c` are one node of three operands, as herd7 builds them (even
//! through parentheses, `(a | b) | c`); so is `a & b & c`, which herd7 nests to the right
//! and means the same.
//!
//! # Limits
//!
//! No input panics the parser or makes it run for long: it is linear in the input.
//! Recursion deeper than [`MAX_DEPTH`] and trees deeper than [`MAX_TREE`] are errors rather
//! than stack overflows, for the parser and for whatever walks the tree after it.
//!
//! The lexer is `lex`; the grammar's rules are methods of one parser, those of a file
//! and its instructions in `instr`, those of expressions, bindings and patterns in
//! `expr`; the reading of tokens and the limits are here.

use hazmat_litmus::ast::line_col;

use super::ast::*;
use super::error::{CatError, ErrorKind};

mod expr;
mod instr;
mod lex;

pub use lex::normalized;
use lex::{T, Token, lex};

/// How deeply the parser may recurse: each expression, operand of `~`, instruction list
/// and variant condition inside another counts one level.
pub const MAX_DEPTH: u32 = 200;

/// How deep an expression's tree may be.
pub const MAX_TREE: u32 = 200;

/// Parses the text of a cat or bell file, the `file`th of the model's files (see
/// [`Files`](super::source::Files)); every span of the tree, and of the error, names it.
///
/// Never panics, whatever the text.
pub fn parse(text: &str, file: u32) -> Result<Model, CatError> {
    if u32::try_from(text.len()).is_err() {
        return Err(CatError::nowhere(
            ErrorKind::Limit,
            format!("the file is longer than {} bytes", u32::MAX),
        ));
    }
    let (toks, lex_error) = lex(text, file);
    let mut p = Parser {
        src: text,
        toks,
        lex_error,
        pos: 0,
        file,
        depth: 0,
        prev_end: 0,
    };
    p.model()
}

/// An expression (or a condition) with the depth of its tree.
type Deep<X> = (X, u32);

/// The parser's state: the tokens, the position, and the nesting depth.
struct Parser<'a> {
    src: &'a str,
    /// The tokens, ending with [`T::Eof`] or [`T::Error`].
    toks: Vec<Token>,
    /// The lexer's error, at the [`T::Error`] token.
    lex_error: Option<CatError>,
    pos: usize,
    file: u32,
    /// The recursion depth, bounded by [`MAX_DEPTH`].
    depth: u32,
    /// The end of the last token consumed.
    prev_end: u32,
}

impl Parser<'_> {
    // ---- Tokens ----

    fn tok(&self) -> Token {
        self.toks[self.pos.min(self.toks.len() - 1)]
    }

    fn peek(&self) -> T {
        self.tok().t
    }

    fn peek_at(&self, k: usize) -> T {
        self.toks.get(self.pos + k).map_or(T::Eof, |t| t.t)
    }

    fn bump(&mut self) -> Token {
        let t = self.tok();
        if !matches!(t.t, T::Eof | T::Error) {
            self.pos += 1;
            self.prev_end = t.end;
        }
        t
    }

    fn eat(&mut self, t: T) -> bool {
        let here = self.peek() == t;
        if here {
            self.bump();
        }
        here
    }

    /// The text of a token.
    fn text(&self, tok: Token) -> &str {
        &self.src[tok.start as usize..tok.end as usize]
    }

    /// The name a `Var` token spells.
    fn name(&self, tok: Token) -> String {
        self.text(tok).to_string()
    }

    fn span(&self, start: u32, end: u32) -> Span {
        Span {
            file: self.file,
            start,
            end,
        }
    }

    /// The span from `start` to the end of the last token consumed.
    fn since(&self, start: u32) -> Span {
        self.span(start, self.prev_end.max(start))
    }

    /// "L:C", the place of a token, for notes.
    fn place(&self, tok: Token) -> String {
        let (l, c) = line_col(self.src, tok.start as usize);
        format!("{l}:{c}")
    }

    /// How a token reads in a message.
    fn describe(&self, tok: Token) -> String {
        match tok.t {
            T::Eof => "end of file".to_string(),
            T::Str => {
                let s = self.text(tok);
                if s.chars().count() > 40 || s.contains('\n') {
                    let head: String = s.chars().take(30).take_while(|&c| c != '\n').collect();
                    format!("the string `{head}...`")
                } else {
                    format!("the string `{s}`")
                }
            }
            _ => format!("`{}`", self.text(tok)),
        }
    }

    /// An error at a token.
    fn error_at(&self, tok: Token, message: String) -> CatError {
        CatError::at(
            ErrorKind::Syntax,
            self.src,
            self.span(tok.start, tok.end),
            message,
        )
    }

    /// "expected X, found Y" at the next token, or the lexer's error if no token could be
    /// read there.
    fn expected(&self, what: &str) -> CatError {
        let tok = self.tok();
        if let (T::Error, Some(e)) = (tok.t, &self.lex_error) {
            return e.clone();
        }
        self.error_at(
            tok,
            format!("expected {what}, found {}", self.describe(tok)),
        )
    }

    /// Consumes a token of kind `t`, or fails with "expected `what`, found ...".
    fn expect(&mut self, t: T, what: &str) -> Result<Token, CatError> {
        if self.peek() == t {
            Ok(self.bump())
        } else {
            Err(self.expected(what))
        }
    }

    /// Consumes the token that closes what `opener` opened, or fails with a note that
    /// points at the opener.
    fn close(&mut self, t: T, what: &str, opener: Token) -> Result<Token, CatError> {
        if self.peek() == t {
            return Ok(self.bump());
        }
        let mut e = self.expected(what).note(format!(
            "to close the {} at {}",
            self.describe(opener),
            self.place(opener)
        ));
        if self.peek() == T::Enum {
            e = e.note("`enum` may only stand at the top level of a file");
        }
        Err(e)
    }

    /// Consumes a name.
    fn var(&mut self, what: &str) -> Result<String, CatError> {
        let tok = self.expect(T::Var, what)?;
        Ok(self.name(tok))
    }

    // ---- Limits ----

    fn enter(&mut self) -> Result<(), CatError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let tok = self.tok();
            return Err(CatError::at(
                ErrorKind::Limit,
                self.src,
                self.span(tok.start, tok.end),
                format!("the text nests more than {MAX_DEPTH} levels deep here"),
            ));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Runs `f` one level deeper.
    fn nested<X>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<X, CatError>,
    ) -> Result<X, CatError> {
        self.enter()?;
        let r = f(self);
        self.leave();
        r
    }

    /// Checks the depth of a tree about to be built at `span`.
    fn deep<X>(&self, x: X, depth: u32, span: Span) -> Result<Deep<X>, CatError> {
        if depth > MAX_TREE {
            return Err(CatError::at(
                ErrorKind::Limit,
                self.src,
                span,
                format!("the expression nests more than {MAX_TREE} levels deep"),
            ));
        }
        Ok((x, depth))
    }
}
