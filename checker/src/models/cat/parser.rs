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

use hazmat_litmus::ast::line_col;

use super::ast::*;
use super::error::{CatError, ErrorKind};

/// How deeply the parser may recurse: each expression, operand of `~`, instruction list
/// and variant condition inside another counts one level.
pub const MAX_DEPTH: u32 = 200;

/// How deep an expression's tree may be.
pub const MAX_TREE: u32 = 200;

/// Parses the text of a cat or bell file, the `file`th of the model's files (see
/// [`Files`](super::files::Files)); every span of the tree, and of the error, names it.
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

/// The kinds of token, one for each of herd7's lexer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum T {
    Var,
    Tag,
    Str,
    LPar,
    RPar,
    Begin,
    End,
    LAcc,
    RAcc,
    LBrac,
    RBrac,
    Zero,
    Underscore,
    Subset,
    Not,
    LAnd,
    Alt,
    Semi,
    Union,
    Inter,
    Comma,
    Diff,
    PlusPlus,
    Star,
    Plus,
    Opt,
    Inv,
    Comp,
    Hat,
    Let,
    Rec,
    And,
    When,
    Acyclic,
    Irreflexive,
    TestEmpty,
    Equal,
    Show,
    Unshow,
    As,
    Fun,
    In,
    Procedure,
    Call,
    Forall,
    Do,
    From,
    Try,
    Instructions,
    Default,
    If,
    Then,
    Else,
    Variant,
    Requires,
    Flag,
    Assert,
    Arrow,
    Enum,
    Debug,
    Match,
    With,
    Catdep,
    Include,
    Eof,
    /// Where the lexer failed: the parser reports the lexer's error if it gets there, as
    /// herd7, whose lexer runs as its parser asks for tokens, does.
    Error,
}

/// A token: its kind and its bytes.
#[derive(Clone, Copy, Debug)]
struct Token {
    t: T,
    start: u32,
    end: u32,
}

/// The tokens of a model's text, one space apart: the text without its comments and
/// with its blanks normalised, so that two files that differ only there give the same
/// string; `None` when the text does not lex.
pub fn normalized(text: &str) -> Option<String> {
    let (toks, error) = lex(text, 0);
    if error.is_some() {
        return None;
    }
    let words: Vec<&str> = toks
        .iter()
        .filter(|t| t.t != T::Eof)
        .map(|t| &text[t.start as usize..t.end as usize])
        .collect();
    Some(words.join(" "))
}

/// The keyword a name is, if any.
fn keyword(name: &str) -> Option<T> {
    Some(match name {
        "let" => T::Let,
        "rec" => T::Rec,
        "and" => T::And,
        "when" => T::When,
        "acyclic" => T::Acyclic,
        "irreflexive" => T::Irreflexive,
        "show" => T::Show,
        "unshow" => T::Unshow,
        "empty" => T::TestEmpty,
        "subset" => T::Subset,
        "as" => T::As,
        "fun" => T::Fun,
        "in" => T::In,
        "undefined_unless" => T::Requires,
        "flag" => T::Flag,
        "assert" => T::Assert,
        "include" => T::Include,
        "variant" => T::Variant,
        "begin" => T::Begin,
        "end" => T::End,
        "procedure" => T::Procedure,
        "call" => T::Call,
        "enum" => T::Enum,
        "debug" => T::Debug,
        "match" => T::Match,
        "with" => T::With,
        "forall" => T::Forall,
        "from" => T::From,
        "do" => T::Do,
        "try" => T::Try,
        "if" => T::If,
        "then" => T::Then,
        "else" => T::Else,
        "catdep" => T::Catdep,
        "instructions" => T::Instructions,
        "default" => T::Default,
        "not" => T::Not,
        _ => return None,
    })
}

/// The end of the name that starts at `i`, if one does: `_? alpha (alpha | digit | _ | . |
/// -)* '?`.
fn name_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i;
    if b.get(j) == Some(&b'_') {
        j += 1;
    }
    if !b.get(j).is_some_and(u8::is_ascii_alphabetic) {
        return None;
    }
    j += 1;
    while b
        .get(j)
        .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
    {
        j += 1;
    }
    if b.get(j) == Some(&b'\'') {
        j += 1;
    }
    Some(j)
}

/// The tokens of a text, ending with [`T::Eof`], or with [`T::Error`] and the error where
/// no token can be read.
fn lex(src: &str, file: u32) -> (Vec<Token>, Option<CatError>) {
    let mut out = Vec::new();
    match lex_into(src, file, &mut out) {
        Ok(()) => {
            out.push(Token {
                t: T::Eof,
                start: src.len() as u32,
                end: src.len() as u32,
            });
            (out, None)
        }
        Err(e) => {
            let at = e.at.map_or(src.len() as u32, |a| a.span.start);
            out.push(Token {
                t: T::Error,
                start: at,
                end: at,
            });
            (out, Some(e))
        }
    }
}

/// Pushes the tokens of a text onto `out`, up to the first place where none can be read.
fn lex_into(src: &str, file: u32, out: &mut Vec<Token>) -> Result<(), CatError> {
    let b = src.as_bytes();
    let mut i = 0;
    let span = |start: usize, end: usize| Span {
        file,
        start: start as u32,
        end: end as u32,
    };
    while i < b.len() {
        let start = i;
        let two = |s: &[u8]| b[i..].starts_with(s);
        let (t, len) = match b[i] {
            b' ' | b'\t' | b'\r' | b'\n' => {
                i += 1;
                continue;
            }
            b'#' => {
                i = skip_line(b, i);
                continue;
            }
            b'/' if two(b"//") => {
                i = skip_line(b, i);
                continue;
            }
            b'(' if two(b"(*") => {
                i = skip_comment(src, b, i, file)?;
                continue;
            }
            b'(' => (T::LPar, 1),
            b')' => (T::RPar, 1),
            b'{' => (T::LAcc, 1),
            b'}' => (T::RAcc, 1),
            b'[' => (T::LBrac, 1),
            b']' => (T::RBrac, 1),
            b'0' => (T::Zero, 1),
            b'|' if two(b"||") => (T::Alt, 2),
            b'|' => (T::Union, 1),
            b'&' if two(b"&&") => (T::LAnd, 2),
            b'&' => (T::Inter, 1),
            b'*' => (T::Star, 1),
            b'~' => (T::Comp, 1),
            b'+' if two(b"++") => (T::PlusPlus, 2),
            b'+' => (T::Plus, 1),
            b'^' => (T::Hat, 1),
            b'-' if two(b"-1") => (T::Inv, 2),
            b'-' if two(b"->") => (T::Arrow, 2),
            b'\\' => (T::Diff, 1),
            b'?' => (T::Opt, 1),
            b'=' => (T::Equal, 1),
            b';' => (T::Semi, 1),
            b',' => (T::Comma, 1),
            b'"' => match b[i + 1..].iter().position(|&c| c == b'"') {
                Some(n) => (T::Str, n + 2),
                None => {
                    return Err(CatError::at(
                        ErrorKind::Syntax,
                        src,
                        span(i, i + 1),
                        "unclosed string: `\"` without the `\"` that ends it".to_string(),
                    ));
                }
            },
            b'\'' => match name_end(b, i + 1) {
                Some(end) => (T::Tag, end - i),
                None => {
                    return Err(CatError::at(
                        ErrorKind::Syntax,
                        src,
                        span(i, i + 1),
                        "expected a name after `'`".to_string(),
                    )
                    .note("a tag is a name after a quote, such as `'acquire`"));
                }
            },
            _ => match name_end(b, i) {
                Some(end) => {
                    let t = keyword(&src[i..end]).unwrap_or(T::Var);
                    (t, end - i)
                }
                None if b[i] == b'_' => (T::Underscore, 1),
                None => return Err(unexpected_char(src, i, file)),
            },
        };
        i += len;
        out.push(Token {
            t,
            start: start as u32,
            end: i as u32,
        });
    }
    Ok(())
}

/// The error for a character no token starts with, at byte `i` (a character boundary).
fn unexpected_char(src: &str, i: usize, file: u32) -> CatError {
    let c = src[i..].chars().next().unwrap_or('?');
    let span = Span {
        file,
        start: i as u32,
        end: (i + c.len_utf8()) as u32,
    };
    let shown = if c.is_control() {
        c.escape_default().to_string()
    } else {
        c.to_string()
    };
    let e = CatError::at(
        ErrorKind::Syntax,
        src,
        span,
        format!("unexpected character `{shown}`"),
    );
    if c.is_ascii_digit() {
        e.note("the only number of the model language is `0`, the empty set")
    } else if c == '-' {
        e.note("`-` is part of a name (`po-loc`), of `->` or of `^-1`")
    } else {
        e
    }
}

/// The index of the newline that ends the line comment starting at `i` (or the end).
fn skip_line(b: &[u8], i: usize) -> usize {
    b[i..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |n| i + n)
}

/// The index just past the comment `(* ... *)` that starts at `i`, comments nesting.
fn skip_comment(src: &str, b: &[u8], i: usize, file: u32) -> Result<usize, CatError> {
    let mut level = 0usize;
    let mut j = i;
    while j < b.len() {
        if b[j..].starts_with(b"(*") {
            level += 1;
            j += 2;
        } else if b[j..].starts_with(b"*)") {
            level -= 1;
            j += 2;
            if level == 0 {
                return Ok(j);
            }
        } else {
            j += 1;
        }
    }
    let span = Span {
        file,
        start: i as u32,
        end: i as u32 + 2,
    };
    let e = CatError::at(
        ErrorKind::Syntax,
        src,
        span,
        "unclosed comment: `(*` without the `*)` that ends it".to_string(),
    );
    Err(if level > 1 {
        e.note(format!(
            "comments nest: {level} are open at the end of the file"
        ))
    } else {
        e
    })
}

/// Whether a token may start an argument of an application (herd7's `arg`: a name or a
/// `simple` expression).
fn starts_arg(t: T) -> bool {
    matches!(
        t,
        T::Var | T::Zero | T::Tag | T::LAcc | T::Underscore | T::LPar | T::Begin | T::LBrac
    )
}

/// Whether a token may start an instruction other than `enum`.
fn starts_ins(t: T) -> bool {
    matches!(
        t,
        T::Let
            | T::Match
            | T::Flag
            | T::Requires
            | T::Assert
            | T::Comp
            | T::Acyclic
            | T::Irreflexive
            | T::TestEmpty
            | T::Show
            | T::Unshow
            | T::Include
            | T::Procedure
            | T::Call
            | T::Debug
            | T::Forall
            | T::With
            | T::If
            | T::Instructions
            | T::Default
    )
}

/// The binary operators of sets and relations: the operator and its level in herd7's
/// table, higher binding tighter (how a run of one operator groups is
/// [`Parser::group`]'s business).
fn binary(t: T) -> Option<(Op2, u8)> {
    Some(match t {
        T::Union => (Op2::Union, 1),
        T::PlusPlus => (Op2::Add, 2),
        T::Semi => (Op2::Seq, 3),
        T::Diff => (Op2::Diff, 4),
        T::Inter => (Op2::Inter, 5),
        _ => return None,
    })
}

/// An expression (or a condition) with the depth of its tree.
type Deep<X> = (X, u32);

/// The second clause of a match on a set: `pre`, `elt`, `rest` and the value.
type ElementClause = (Option<Name>, Name, Name, Exp);

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

    // ---- A model and its instructions ----

    /// `main: identity catdep topins_list EOF`.
    fn model(&mut self) -> Result<Model, CatError> {
        let (arch, title) = self.identity();
        let catdep = self.eat(T::Catdep);
        let mut instrs = Vec::new();
        while self.peek() != T::Eof {
            instrs.push(self.topins()?);
        }
        Ok(Model {
            title,
            arch,
            catdep,
            instrs,
        })
    }

    /// `identity`: `NAME NAME`, `NAME "title"`, `NAME`, `"title"` or nothing; the first is
    /// the architecture (as herd7 reads it), the last the title.
    fn identity(&mut self) -> (Option<String>, Option<String>) {
        let string = |p: &Self, tok: Token| {
            let s = p.text(tok);
            s[1..s.len() - 1].to_string()
        };
        match (self.peek(), self.peek_at(1)) {
            (T::Var, T::Var) => {
                let arch = self.bump();
                let title = self.bump();
                (Some(self.name(arch)), Some(self.name(title)))
            }
            (T::Var, T::Str) => {
                let arch = self.bump();
                let title = self.bump();
                (Some(self.name(arch)), Some(string(self, title)))
            }
            (T::Var, _) => {
                let name = self.bump();
                (Some(self.name(name)), Some(self.name(name)))
            }
            (T::Str, _) => {
                let title = self.bump();
                (Some(string(self, title)), Some(string(self, title)))
            }
            _ => (None, None),
        }
    }

    /// `topins`: an `enum` or an instruction.
    fn topins(&mut self) -> Result<Instr, CatError> {
        match self.peek() {
            T::Enum => self.enum_decl(),
            t if starts_ins(t) => self.ins(),
            _ => Err(self.expected(
                "an instruction (`let`, `include`, a check such as `acyclic`, `show`, ...)",
            )),
        }
    }

    /// `ins_list`: instructions up to a token that starts none (`end`, `else`, `||`).
    fn ins_list(&mut self) -> Result<Vec<Instr>, CatError> {
        self.nested(|p| {
            let mut out = Vec::new();
            while starts_ins(p.peek()) {
                out.push(p.ins()?);
            }
            Ok(out)
        })
    }

    /// `ins`: one instruction.
    fn ins(&mut self) -> Result<Instr, CatError> {
        match self.peek() {
            T::Let => self.ins_let(),
            T::Match => self.ins_match(),
            T::Flag
            | T::Requires
            | T::Assert
            | T::Comp
            | T::Acyclic
            | T::Irreflexive
            | T::TestEmpty => self.deftest(),
            T::Show => self.show(),
            T::Unshow => {
                let kw = self.bump();
                let names = self.var_list()?;
                Ok(Instr::Unshow {
                    names,
                    span: self.since(kw.start),
                })
            }
            T::Include => {
                let kw = self.bump();
                let file = self.expect(T::Str, "the name of a file in quotes after `include`")?;
                let text = self.text(file);
                Ok(Instr::Include {
                    file: text[1..text.len() - 1].to_string(),
                    span: self.since(kw.start),
                })
            }
            T::Procedure => self.procedure(),
            T::Call => self.call(),
            T::Debug => {
                let kw = self.bump();
                let (exp, _) = self.exp()?;
                Ok(Instr::Debug {
                    exp,
                    span: self.since(kw.start),
                })
            }
            T::Forall => self.forall(),
            T::With => {
                let kw = self.bump();
                let var = self.var("the name to bind after `with`")?;
                self.expect(T::From, "`from`")?;
                let (set, _) = self.exp()?;
                Ok(Instr::WithFrom {
                    var,
                    set,
                    span: self.since(kw.start),
                })
            }
            T::If => self.ins_if(),
            T::Instructions | T::Default => self.events(),
            _ => Err(self.expected("an instruction")),
        }
    }

    /// `LET pat_bind_list in_opt` and `LET REC pat_bind_list [WHEN app_test] in_opt`.
    fn ins_let(&mut self) -> Result<Instr, CatError> {
        let kw = self.bump();
        if self.eat(T::Rec) {
            let (bindings, _) = self.pat_bind_list()?;
            let when = if self.peek() == T::When {
                self.bump();
                let start = self.tok().start;
                let (negated, test) = self.test()?;
                let (exp, _) = self.exp()?;
                let name = self.optional_name()?;
                Some(Box::new(When {
                    negated,
                    test,
                    exp,
                    name,
                    span: self.since(start),
                }))
            } else {
                None
            };
            self.eat(T::In);
            Ok(Instr::LetRec {
                bindings,
                when,
                span: self.since(kw.start),
            })
        } else {
            let (bindings, _) = self.pat_bind_list()?;
            self.eat(T::In);
            Ok(Instr::Let {
                bindings,
                span: self.since(kw.start),
            })
        }
    }

    /// `MATCH exp WITH altopt ins_clause_list END`.
    fn ins_match(&mut self) -> Result<Instr, CatError> {
        let kw = self.bump();
        let (exp, _) = self.exp()?;
        self.expect(T::With, "`with`")?;
        self.eat(T::Alt);
        let mut clauses = Vec::new();
        let mut default = None;
        loop {
            match self.peek() {
                T::Tag => {
                    let tag = self.bump();
                    self.expect(T::Arrow, "`->`")?;
                    let body = self.ins_list()?;
                    clauses.push((self.text(tag)[1..].to_string(), body));
                    if !self.eat(T::Alt) {
                        break;
                    }
                }
                T::Underscore => {
                    self.bump();
                    self.expect(T::Arrow, "`->`")?;
                    default = Some(self.ins_list()?);
                    break;
                }
                _ => return Err(self.expected("a clause `'tag -> ...` or `_ -> ...`")),
            }
        }
        self.close(T::End, "`end`", kw)?;
        Ok(Instr::Match {
            exp,
            clauses,
            default,
            span: self.since(kw.start),
        })
    }

    /// `deftest: test_type app_test`, with `app_test: test exp optional_name`.
    fn deftest(&mut self) -> Result<Instr, CatError> {
        let start = self.tok().start;
        let role = match self.peek() {
            T::Flag => Role::Flag,
            T::Requires => Role::UndefinedUnless,
            T::Assert => Role::Assert,
            _ => Role::Check,
        };
        if role != Role::Check {
            self.bump();
        }
        let (negated, test) = self.test()?;
        let (exp, _) = self.exp()?;
        let name = self.optional_name()?;
        Ok(Instr::Check {
            role,
            negated,
            test,
            exp,
            name,
            span: self.since(start),
        })
    }

    /// `test`: `[~] acyclic|irreflexive|empty`.
    fn test(&mut self) -> Result<(bool, Test), CatError> {
        let negated = self.eat(T::Comp);
        let test = match self.peek() {
            T::Acyclic => Test::Acyclic,
            T::Irreflexive => Test::Irreflexive,
            T::TestEmpty => Test::Empty,
            _ => return Err(self.expected("`acyclic`, `irreflexive` or `empty`")),
        };
        self.bump();
        Ok((negated, test))
    }

    /// `optional_name`: `[AS VAR]`.
    fn optional_name(&mut self) -> Result<Option<String>, CatError> {
        if !self.eat(T::As) {
            return Ok(None);
        }
        if self.peek() != T::Var {
            let e = self.expected("a name after `as`");
            return Err(match self.peek() {
                T::Str | T::Tag => e.note("the name is written bare: `as coherence`"),
                _ => e,
            });
        }
        let tok = self.bump();
        Ok(Some(self.name(tok)))
    }

    /// `SHOW base AS VAR` or `SHOW var_list`.
    fn show(&mut self) -> Result<Instr, CatError> {
        let kw = self.bump();
        let next = self.peek_at(1);
        let list = self.peek() == T::Var
            && (next == T::Comma
                || !(starts_arg(next)
                    || binary(next).is_some()
                    || matches!(next, T::Star | T::Plus | T::Opt | T::Hat | T::As)));
        if list {
            let names = self.var_list()?;
            return Ok(Instr::Show {
                names,
                span: self.since(kw.start),
            });
        }
        let (exp, _) = self.base()?;
        self.expect(T::As, "`as` and the name to show it under")?;
        let name = self.var("a name after `as`")?;
        Ok(Instr::ShowAs {
            exp,
            name,
            span: self.since(kw.start),
        })
    }

    /// `var_list`: `VAR (, VAR)*`.
    fn var_list(&mut self) -> Result<Vec<String>, CatError> {
        let mut names = vec![self.var("a name")?];
        while self.eat(T::Comma) {
            names.push(self.var("a name after `,`")?);
        }
        Ok(names)
    }

    /// `PROCEDURE [REC] VAR (LPAR formals RPAR | pat0) EQUAL ins_list END`.
    fn procedure(&mut self) -> Result<Instr, CatError> {
        let kw = self.bump();
        let rec = self.eat(T::Rec);
        let name = self.var("the name of the procedure")?;
        let params = if self.peek() == T::LPar {
            let open = self.bump();
            let formals = self.formals()?;
            self.close(T::RPar, "`)`", open)?;
            tuple_pat(formals)
        } else {
            Pattern::Var(self.pat0("the parameters, `(x, y)` or one name")?)
        };
        self.expect(T::Equal, "`=`")?;
        let body = self.ins_list()?;
        self.close(T::End, "`end`", kw)?;
        Ok(Instr::Procedure {
            name,
            params,
            body,
            rec,
            span: self.since(kw.start),
        })
    }

    /// `CALL VAR simple optional_name`.
    fn call(&mut self) -> Result<Instr, CatError> {
        let kw = self.bump();
        let name = self.var("the name of a procedure")?;
        if self.peek() == T::Var {
            return Err(self
                .expected("the argument of the call")
                .note("herd7 takes a call's argument in parentheses: `call f(x)`"));
        }
        let (arg, _) = self.simple()?;
        let as_name = self.optional_name()?;
        Ok(Instr::Call {
            name,
            arg,
            as_name,
            span: self.since(kw.start),
        })
    }

    /// `FORALL VAR IN exp DO ins_list END`.
    fn forall(&mut self) -> Result<Instr, CatError> {
        let kw = self.bump();
        let var = self.var("the name to bind after `forall`")?;
        self.expect(T::In, "`in`")?;
        let (set, _) = self.exp()?;
        self.expect(T::Do, "`do`")?;
        let body = self.ins_list()?;
        self.close(T::End, "`end`", kw)?;
        Ok(Instr::Forall {
            var,
            set,
            body,
            span: self.since(kw.start),
        })
    }

    /// `IF variant ins_list [ELSE ins_list] END`.
    fn ins_if(&mut self) -> Result<Instr, CatError> {
        let kw = self.bump();
        if !self.starts_variant() {
            return Err(self.expected("a condition on variants").note(
                "among instructions, `if` tests variants (`if \"name\" ... end`); \
                 `if ... then ... else ...` on values is an expression",
            ));
        }
        let (cond, _) = self.variant()?;
        let then = self.ins_list()?;
        let els = if self.eat(T::Else) {
            self.ins_list()?
        } else {
            Vec::new()
        };
        self.close(T::End, "`end`", kw)?;
        Ok(Instr::IfVariant {
            cond,
            then,
            els,
            span: self.since(kw.start),
        })
    }

    /// `INSTRUCTIONS VAR LBRAC args RBRAC` and `DEFAULT VAR LBRAC args RBRAC`.
    fn events(&mut self) -> Result<Instr, CatError> {
        let kw = self.bump();
        let default = kw.t == T::Default;
        let name = self.var("the kind of events (`R`, `W`, `F`, ...)")?;
        let open = self.expect(T::LBrac, "`[`")?;
        let (args, _) = self.args(T::RBrac)?;
        self.close(T::RBrac, "`]`", open)?;
        Ok(Instr::Events {
            name,
            args,
            default,
            span: self.since(kw.start),
        })
    }

    /// `ENUM VAR EQUAL altopt alttags`.
    fn enum_decl(&mut self) -> Result<Instr, CatError> {
        let kw = self.bump();
        let name = self.var("the name of the enumeration")?;
        self.expect(T::Equal, "`=`")?;
        self.eat(T::Alt);
        let mut tags = Vec::new();
        loop {
            let tag = self.expect(T::Tag, "a tag such as `'acquire`")?;
            tags.push(self.text(tag)[1..].to_string());
            if !self.eat(T::Alt) {
                break;
            }
        }
        Ok(Instr::Enum {
            name,
            tags,
            span: self.since(kw.start),
        })
    }

    // ---- Bindings and patterns ----

    /// `pat_bind_list`: `pat_bind (AND pat_bind)*`.
    fn pat_bind_list(&mut self) -> Result<Deep<Vec<Binding>>, CatError> {
        let (first, mut depth) = self.pat_bind()?;
        let mut out = vec![first];
        while self.eat(T::And) {
            let (b, d) = self.pat_bind()?;
            out.push(b);
            depth = depth.max(d);
        }
        Ok((out, depth))
    }

    /// `pat_bind`: `(formals) = e`, `x, y = e`, and the functions `f x = e` and
    /// `f(x, y) = e`, which bind `f` to `fun x -> e` and `fun (x, y) -> e`.
    fn pat_bind(&mut self) -> Result<Deep<Binding>, CatError> {
        let start = self.tok().start;
        match (self.peek(), self.peek_at(1)) {
            (T::LPar, _) => {
                let open = self.bump();
                let formals = self.formals()?;
                self.close(T::RPar, "`)`", open)?;
                self.expect(T::Equal, "`=`")?;
                let (exp, d) = self.exp()?;
                let binding = Binding {
                    pat: tuple_pat(formals),
                    exp,
                    span: self.since(start),
                };
                Ok((binding, d))
            }
            (T::Var, T::Var | T::Underscore | T::LPar) => {
                let name = self.bump();
                let name = self.name(name);
                let params = if self.peek() == T::LPar {
                    let open = self.bump();
                    let formals = self.formals()?;
                    self.close(T::RPar, "`)`", open)?;
                    tuple_pat(formals)
                } else {
                    Pattern::Var(self.pat0("a parameter")?)
                };
                self.expect(T::Equal, "`=`")?;
                let (body, d) = self.exp()?;
                let span = self.since(start);
                let (exp, d) = self.deep(Exp::Fun(params, Box::new(body), span), d + 1, span)?;
                let binding = Binding {
                    pat: Pattern::Var(Some(name)),
                    exp,
                    span,
                };
                Ok((binding, d))
            }
            (T::Var | T::Underscore, _) => {
                let formals = self.formals_n()?;
                self.expect(T::Equal, "`=`")?;
                let (exp, d) = self.exp()?;
                let binding = Binding {
                    pat: tuple_pat(formals),
                    exp,
                    span: self.since(start),
                };
                Ok((binding, d))
            }
            _ => Err(self.expected("a name, `_` or `(` to bind")),
        }
    }

    /// `formals`: nothing (before `)`) or `formalsN`.
    fn formals(&mut self) -> Result<Vec<Name>, CatError> {
        if self.peek() == T::RPar {
            Ok(Vec::new())
        } else {
            self.formals_n()
        }
    }

    /// `formalsN`: `pat0 (, pat0)*`.
    fn formals_n(&mut self) -> Result<Vec<Name>, CatError> {
        let mut out = vec![self.pat0("a name or `_`")?];
        while self.eat(T::Comma) {
            out.push(self.pat0("a name or `_` after `,`")?);
        }
        Ok(out)
    }

    /// `pat0`: a name, or `_`.
    fn pat0(&mut self, what: &str) -> Result<Name, CatError> {
        match self.peek() {
            T::Var => {
                let tok = self.bump();
                Ok(Some(self.name(tok)))
            }
            T::Underscore => {
                self.bump();
                Ok(None)
            }
            _ => Err(self.expected(what)),
        }
    }

    // ---- Expressions ----

    /// `exp`: `let`, `let rec`, `fun`, `try`, `if`, `match`, an expression of sets and
    /// relations, or a tuple of them without parentheses (`a, b`).
    fn exp(&mut self) -> Result<Deep<Exp>, CatError> {
        self.nested(|p| p.exp_inner())
    }

    fn exp_inner(&mut self) -> Result<Deep<Exp>, CatError> {
        let first = self.tok();
        let start = first.start;
        match first.t {
            T::Let => {
                self.bump();
                let rec = self.eat(T::Rec);
                let (bindings, d1) = self.pat_bind_list()?;
                if self.peek() != T::In {
                    return Err(self.expected("`in`").note(format!(
                        "the `let` at {} is an expression, which needs `in` and the \
                         expression it defines",
                        self.place(first)
                    )));
                }
                self.bump();
                let (body, d2) = self.exp()?;
                let span = self.since(start);
                let body = Box::new(body);
                let exp = if rec {
                    Exp::LetRec(bindings, body, span)
                } else {
                    Exp::Let(bindings, body, span)
                };
                self.deep(exp, d1.max(d2) + 1, span)
            }
            T::Fun => {
                self.bump();
                let pat = if self.peek() == T::LPar {
                    let open = self.bump();
                    let formals = self.formals()?;
                    self.close(T::RPar, "`)`", open)?;
                    tuple_pat(formals)
                } else {
                    Pattern::Var(self.pat0("the parameter: a name, `_` or `(x, y)`")?)
                };
                self.expect(T::Arrow, "`->`")?;
                let (body, d) = self.exp()?;
                let span = self.since(start);
                self.deep(Exp::Fun(pat, Box::new(body), span), d + 1, span)
            }
            T::Try => {
                self.bump();
                let (a, d1) = self.exp()?;
                self.expect(T::With, "`with`")?;
                let (b, d2) = self.exp()?;
                let span = self.since(start);
                self.deep(
                    Exp::Try(Box::new(a), Box::new(b), span),
                    d1.max(d2) + 1,
                    span,
                )
            }
            T::If => {
                self.bump();
                let (cond, d0) = self.cond()?;
                self.expect(T::Then, "`then`")?;
                let (a, d1) = self.exp()?;
                self.expect(T::Else, "`else`")?;
                let (b, d2) = self.exp()?;
                let span = self.since(start);
                self.deep(
                    Exp::If(Box::new(cond), Box::new(a), Box::new(b), span),
                    d0.max(d1).max(d2) + 1,
                    span,
                )
            }
            T::Match => self.exp_match(),
            _ => {
                let (first, mut depth) = self.base()?;
                if self.peek() != T::Comma {
                    return Ok((first, depth));
                }
                let mut items = vec![first];
                while self.eat(T::Comma) {
                    let (e, d) = self.base()?;
                    items.push(e);
                    depth = depth.max(d);
                }
                let span = self.since(start);
                self.deep(Exp::Tuple(items, span), depth + 1, span)
            }
        }
    }

    /// `cond`: `e = e`, `e subset e`, `e in e`, or a condition on variants.
    fn cond(&mut self) -> Result<Deep<Cond>, CatError> {
        if self.starts_variant() {
            let (v, d) = self.variant()?;
            return Ok((Cond::Variant(v), d));
        }
        let (a, d1) = self.exp()?;
        let op = self.peek();
        if !matches!(op, T::Equal | T::Subset | T::In) {
            return Err(self.expected("`=`, `subset` or `in`"));
        }
        self.bump();
        let (b, d2) = self.exp()?;
        let cond = match op {
            T::Equal => Cond::Eq(a, b),
            T::Subset => Cond::Subset(a, b),
            _ => Cond::In(a, b),
        };
        Ok((cond, d1.max(d2) + 1))
    }

    /// Whether a condition on variants starts here: a string, `variant` or `not`, after
    /// any number of `(`.
    fn starts_variant(&self) -> bool {
        let mut k = 0;
        while self.peek_at(k) == T::LPar {
            k += 1;
        }
        matches!(self.peek_at(k), T::Str | T::Variant | T::Not)
    }

    /// `variant`: conditions on variants, `||` looser than `&&`, both to the left, and
    /// `not` tightest.
    fn variant(&mut self) -> Result<Deep<VariantCond>, CatError> {
        self.nested(|p| {
            let start = p.tok().start;
            let (mut l, mut dl) = p.variant_and()?;
            while p.eat(T::Alt) {
                let (r, dr) = p.variant_and()?;
                let d = dl.max(dr) + 1;
                let span = p.since(start);
                (l, dl) = p.deep(VariantCond::Or(Box::new(l), Box::new(r)), d, span)?;
            }
            Ok((l, dl))
        })
    }

    fn variant_and(&mut self) -> Result<Deep<VariantCond>, CatError> {
        let start = self.tok().start;
        let (mut l, mut dl) = self.variant_not()?;
        while self.eat(T::LAnd) {
            let (r, dr) = self.variant_not()?;
            let d = dl.max(dr) + 1;
            let span = self.since(start);
            (l, dl) = self.deep(VariantCond::And(Box::new(l), Box::new(r)), d, span)?;
        }
        Ok((l, dl))
    }

    fn variant_not(&mut self) -> Result<Deep<VariantCond>, CatError> {
        let tok = self.tok();
        match tok.t {
            T::Not => {
                self.bump();
                let (v, d) = self.nested(|p| p.variant_not())?;
                let span = self.since(tok.start);
                self.deep(VariantCond::Not(Box::new(v)), d + 1, span)
            }
            T::Variant => {
                self.bump();
                let s = self.expect(T::Str, "the name of a variant in quotes")?;
                Ok((VariantCond::Is(self.string(s)), 1))
            }
            T::Str => {
                self.bump();
                Ok((VariantCond::Is(self.string(tok)), 1))
            }
            T::LPar => {
                self.bump();
                let v = self.variant()?;
                self.close(T::RPar, "`)`", tok)?;
                Ok(v)
            }
            _ => Err(self.expected("a condition on variants (`\"name\"`, `not`, `(`)")),
        }
    }

    /// The contents of a string token.
    fn string(&self, tok: Token) -> String {
        let s = self.text(tok);
        s[1..s.len() - 1].to_string()
    }

    /// `MATCH exp WITH altopt (clause_list | set_clauses) END`.
    fn exp_match(&mut self) -> Result<Deep<Exp>, CatError> {
        let kw = self.bump();
        let (exp, mut depth) = self.exp()?;
        self.expect(T::With, "`with`")?;
        self.eat(T::Alt);
        let exp = Box::new(exp);
        let on_tags = match self.peek() {
            T::Tag => true,
            T::Underscore => self.peek_at(1) == T::Arrow,
            T::LAcc | T::Var => false,
            _ => {
                return Err(
                    self.expected("a clause: `'tag -> e`, `_ -> e`, `{} -> e` or `x ++ rest -> e`")
                );
            }
        };
        if on_tags {
            let mut clauses = Vec::new();
            let mut default = None;
            loop {
                match self.peek() {
                    T::Tag => {
                        let tag = self.bump();
                        self.expect(T::Arrow, "`->`")?;
                        let (e, d) = self.exp()?;
                        depth = depth.max(d);
                        clauses.push((self.text(tag)[1..].to_string(), e));
                        if !self.eat(T::Alt) {
                            break;
                        }
                    }
                    T::Underscore => {
                        self.bump();
                        self.expect(T::Arrow, "`->`")?;
                        let (e, d) = self.exp()?;
                        depth = depth.max(d);
                        default = Some(Box::new(e));
                        break;
                    }
                    _ => return Err(self.expected("a clause `'tag -> e` or `_ -> e`")),
                }
            }
            self.close(T::End, "`end`", kw)?;
            let span = self.since(kw.start);
            let m = Exp::Match {
                exp,
                clauses,
                default,
                span,
            };
            return self.deep(m, depth + 1, span);
        }
        let (empty, (pre, elt, rest, nonempty), d) = if self.peek() == T::LAcc {
            let (empty, d1) = self.empty_clause()?;
            self.expect(T::Alt, "`||` and the clause for a set with elements")?;
            let (element, d2) = self.element_clause()?;
            (empty, element, d1.max(d2))
        } else {
            let (element, d1) = self.element_clause()?;
            self.expect(T::Alt, "`||` and the clause `{} -> e` for the empty set")?;
            let (empty, d2) = self.empty_clause()?;
            (empty, element, d1.max(d2))
        };
        self.close(T::End, "`end`", kw)?;
        let span = self.since(kw.start);
        let m = Exp::MatchSet {
            exp,
            empty: Box::new(empty),
            pre,
            elt,
            rest,
            nonempty: Box::new(nonempty),
            span,
        };
        self.deep(m, depth.max(d) + 1, span)
    }

    /// `empty_clause`: `{} -> e`.
    fn empty_clause(&mut self) -> Result<Deep<Exp>, CatError> {
        self.expect(T::LAcc, "`{}`")?;
        self.expect(T::RAcc, "`}`: the clause for the empty set is `{} -> e`")?;
        self.expect(T::Arrow, "`->`")?;
        self.exp()
    }

    /// `element_clause`: `x ++ rest -> e` or `pre | x ++ rest -> e`.
    fn element_clause(&mut self) -> Result<Deep<ElementClause>, CatError> {
        let first = self.pat0("a name or `_`")?;
        let (pre, elt) = if self.eat(T::Union) {
            (Some(first), self.pat0("a name or `_` after `|`")?)
        } else {
            (None, first)
        };
        self.expect(T::PlusPlus, "`++`")?;
        let rest = self.pat0("a name or `_` after `++`")?;
        self.expect(T::Arrow, "`->`")?;
        let (e, d) = self.exp()?;
        Ok(((pre, elt, rest, e), d))
    }

    /// `base`: the operators of sets and relations.
    fn base(&mut self) -> Result<Deep<Exp>, CatError> {
        self.base_at(1)
    }

    /// The operators of level `min` and above, by precedence climbing; the operands of a
    /// run of one operator are gathered, then grouped as herd7 groups them.
    fn base_at(&mut self, min: u8) -> Result<Deep<Exp>, CatError> {
        self.nested(|p| {
            let start = p.tok().start;
            let (mut lhs, mut depth) = p.unary()?;
            while let Some((op, level)) = binary(p.peek()).filter(|b| b.1 >= min) {
                let mut operands = vec![(lhs, depth)];
                while p.peek() == op_token(op) {
                    p.bump();
                    operands.push(p.base_at(level + 1)?);
                }
                (lhs, depth) = p.group(op, operands, start)?;
            }
            Ok((lhs, depth))
        })
    }

    /// The node of a run of one binary operator over its operands, all starting at
    /// `start`: `|`, `;` and `&` flatten their operands of the same operator, `\` nests to
    /// the left and `++` to the right.
    fn group(&self, op: Op2, operands: Vec<Deep<Exp>>, start: u32) -> Result<Deep<Exp>, CatError> {
        match op {
            Op2::Union | Op2::Seq | Op2::Inter => {
                let mut depth = 0;
                let mut flat = Vec::new();
                for (e, d) in operands {
                    match e {
                        Exp::Op(o, es, _) if o == op => {
                            depth = depth.max(d.saturating_sub(1));
                            flat.extend(es);
                        }
                        e => {
                            depth = depth.max(d);
                            flat.push(e);
                        }
                    }
                }
                let span = self.span(start, flat.last().map_or(start, |e| e.span().end));
                self.deep(Exp::Op(op, flat, span), depth + 1, span)
            }
            Op2::Add => {
                let mut iter = operands.into_iter().rev();
                let Some(mut acc) = iter.next() else {
                    return Err(self.expected("an expression"));
                };
                for (e, d) in iter {
                    let span = self.span(e.span().start, acc.0.span().end);
                    let depth = d.max(acc.1) + 1;
                    acc = self.deep(Exp::Op(op, vec![e, acc.0], span), depth, span)?;
                }
                Ok(acc)
            }
            _ => {
                let mut iter = operands.into_iter();
                let Some(mut acc) = iter.next() else {
                    return Err(self.expected("an expression"));
                };
                for (e, d) in iter {
                    let span = self.span(start, e.span().end);
                    let depth = d.max(acc.1) + 1;
                    acc = self.deep(Exp::Op(op, vec![acc.0, e], span), depth, span)?;
                }
                Ok(acc)
            }
        }
    }

    /// The non-associating level: `~e`, and the postfix `*`, `+`, `?` and `^-1`, and the
    /// product `S * T`, after an application.
    fn unary(&mut self) -> Result<Deep<Exp>, CatError> {
        let start = self.tok().start;
        if self.peek() == T::Comp {
            let e = self.tight()?;
            if matches!(self.peek(), T::Star | T::Plus | T::Opt) {
                return Err(self.nonassoc("a complement `~e`", "`(~r)*` or `~(r*)`"));
            }
            return Ok(e);
        }
        let (mut x, mut depth) = self.primary()?;
        loop {
            let op = match self.peek() {
                T::Hat => {
                    self.bump();
                    self.expect(T::Inv, "`-1` after `^`")?;
                    Op1::Inv
                }
                T::Plus => {
                    self.bump();
                    Op1::Plus
                }
                T::Opt => {
                    self.bump();
                    Op1::Opt
                }
                T::Star if self.peek_at(1) == T::Comp => {
                    let comp = self.toks[self.pos + 1];
                    return Err(self
                        .error_at(comp, "unexpected `~` after `*`".to_string())
                        .note(
                            "herd7 reads `*` and `~` as a product whose right side may not be \
                             a complement: write `r * (~s)` for the product, or `(r*)` for \
                             the closure before a check such as `~empty`",
                        ));
                }
                T::Star if starts_arg(self.peek_at(1)) => {
                    self.bump();
                    let (rhs, d) = self.tight()?;
                    let span = self.span(start, rhs.span().end);
                    let product = Exp::Op(Op2::Cartesian, vec![x, rhs], span);
                    let product = self.deep(product, depth.max(d) + 1, span)?;
                    if matches!(self.peek(), T::Star | T::Plus | T::Opt) {
                        return Err(self.nonassoc("a product `S * T`", "`(S * T)+`"));
                    }
                    return Ok(product);
                }
                T::Star => {
                    self.bump();
                    Op1::Star
                }
                _ => return Ok((x, depth)),
            };
            let span = self.since(start);
            (x, depth) = self.deep(Exp::Op1(op, Box::new(x), span), depth + 1, span)?;
        }
    }

    /// The error for a postfix `*`, `+` or `?` (or a product) after `what`, an operand of
    /// the same level of herd7's table, which does not chain.
    fn nonassoc(&self, what: &str, example: &str) -> CatError {
        let tok = self.tok();
        let op = self.describe(tok);
        self.error_at(tok, format!("unexpected {op} after {what}"))
            .note(format!(
                "herd7's grammar puts `~`, the product `S * T` and the postfix `*`, `+` \
                 and `?` on one level, whose operators do not chain: add parentheses, \
                 such as {example}"
            ))
    }

    /// An operand of `~` or the right side of a product: `~` any number of times, then an
    /// application and any number of `^-1`.
    fn tight(&mut self) -> Result<Deep<Exp>, CatError> {
        self.nested(|p| {
            let start = p.tok().start;
            if p.eat(T::Comp) {
                let (e, d) = p.tight()?;
                let span = p.since(start);
                return p.deep(Exp::Op1(Op1::Comp, Box::new(e), span), d + 1, span);
            }
            let (mut x, mut depth) = p.primary()?;
            while p.eat(T::Hat) {
                p.expect(T::Inv, "`-1` after `^`")?;
                let span = p.since(start);
                (x, depth) = p.deep(Exp::Op1(Op1::Inv, Box::new(x), span), depth + 1, span)?;
            }
            Ok((x, depth))
        })
    }

    /// `simple`, or `exp0`: a name applied to any number of arguments (`f x y`, `f(x, y)`).
    fn primary(&mut self) -> Result<Deep<Exp>, CatError> {
        if self.peek() != T::Var {
            return self.simple();
        }
        let tok = self.bump();
        let start = tok.start;
        let mut f = Exp::Var(self.name(tok), self.span(tok.start, tok.end));
        let mut depth = 1;
        while starts_arg(self.peek()) {
            let (arg, d) = if self.peek() == T::Var {
                let tok = self.bump();
                (Exp::Var(self.name(tok), self.span(tok.start, tok.end)), 1)
            } else {
                self.simple()?
            };
            let span = self.since(start);
            (f, depth) = self.deep(
                Exp::App(Box::new(f), Box::new(arg), span),
                depth.max(d) + 1,
                span,
            )?;
        }
        Ok((f, depth))
    }

    /// `simple`: `0`, a tag, `{a, b}`, `_`, `()`, `(e)`, `begin e end`, `[e]`.
    fn simple(&mut self) -> Result<Deep<Exp>, CatError> {
        let tok = self.tok();
        let here = self.span(tok.start, tok.end);
        match tok.t {
            T::Zero => {
                self.bump();
                Ok((Exp::Empty(here), 1))
            }
            T::Underscore => {
                self.bump();
                Ok((Exp::Universe(here), 1))
            }
            T::Tag => {
                self.bump();
                Ok((Exp::Tag(self.text(tok)[1..].to_string(), here), 1))
            }
            T::LAcc => {
                self.bump();
                let (args, depth) = self.args(T::RAcc)?;
                self.close(T::RAcc, "`}`", tok)?;
                let span = self.since(tok.start);
                if args.is_empty() {
                    return Ok((Exp::Empty(span), 1));
                }
                self.deep(Exp::Set(args, span), depth + 1, span)
            }
            T::LPar => {
                self.bump();
                if self.eat(T::RPar) {
                    return Ok((Exp::Tuple(Vec::new(), self.since(tok.start)), 1));
                }
                let e = self.exp()?;
                self.close(T::RPar, "`)`", tok)?;
                Ok(e)
            }
            T::Begin => {
                self.bump();
                let e = self.exp()?;
                self.close(T::End, "`end`", tok)?;
                Ok(e)
            }
            T::LBrac => {
                self.bump();
                let (e, d) = self.exp()?;
                self.close(T::RBrac, "`]`", tok)?;
                let span = self.since(tok.start);
                self.deep(Exp::Op1(Op1::ToId, Box::new(e), span), d + 1, span)
            }
            _ => Err(self.expected("an expression")),
        }
    }

    /// `args`: expressions separated by commas, up to `close` (not consumed).
    fn args(&mut self, close: T) -> Result<Deep<Vec<Exp>>, CatError> {
        let mut out = Vec::new();
        let mut depth = 0;
        if self.peek() == close {
            return Ok((out, depth));
        }
        loop {
            let (e, d) = self.base()?;
            depth = depth.max(d);
            out.push(e);
            if !self.eat(T::Comma) {
                return Ok((out, depth));
            }
        }
    }
}

/// The token of a binary operator.
fn op_token(op: Op2) -> T {
    match op {
        Op2::Union => T::Union,
        Op2::Add => T::PlusPlus,
        Op2::Seq => T::Semi,
        Op2::Diff => T::Diff,
        Op2::Inter => T::Inter,
        Op2::Cartesian => T::Star,
    }
}

/// herd7's `tuple_pat`: one name is a name, any other number a tuple.
fn tuple_pat(mut names: Vec<Name>) -> Pattern {
    if names.len() == 1 {
        Pattern::Var(names.pop().flatten())
    } else {
        Pattern::Tuple(names)
    }
}
