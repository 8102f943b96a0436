//! The test as a whole and what comes before the threads: [`Parser::test`], which reads
//! every part in order and gathers the comments; the header (`C` and the name, the doc
//! string, the info lines); the init block with its items, values and locations; and the
//! types, the init block's one-word ones and thread code's.

use nom::Err;
use nom::Parser as _;
use nom::combinator::cut;
use nom::error::context;

use super::Parser;
use super::condition::expectations_in;
use super::lex::{ARRAYS, PError, PResult, commit_err, fail, failure, failure_msg, is_ident_char};
use crate::ast::*;
use crate::dialect;

/// A location as written, for a message.
fn target_text(l: &Location) -> String {
    match l {
        Location::Global(id) => id.name.clone(),
        Location::Register { thread, reg, .. } => format!("{thread}:{}", reg.name),
    }
}

impl<'a> Parser<'a> {
    /// `test ::= header init thread+ trailer EOF`
    pub(crate) fn test(&self, i: &'a str) -> PResult<'a, Test> {
        let start = i;
        // A byte-order mark is not part of the text.
        let i = i.strip_prefix('\u{feff}').unwrap_or(i);
        let (i, (arch, name, doc, info)) = self.header(i)?;
        self.place.set(CommentPlace::Header);
        let (i, init) = cut(context("the init block", |i| self.init(i))).parse(i)?;
        // herd7 reads C from here to the trailer, where `(*` is no comment.
        self.in_program.set(true);
        let (i, (threads, regions)) = self.program(i)?;
        self.place.set(CommentPlace::Trailer);
        let (i, (locations, filter, condition)) = cut(|i| self.trailer(i)).parse(i)?;
        let (i, ()) = self.trivia(i)?;
        if !i.is_empty() {
            let mut e = PError::expected(
                i,
                "`locations`, `filter`, `exists`, `forall` or the end of the file",
            );
            let n = i.find(|c: char| !is_ident_char(c)).unwrap_or(i.len());
            let near =
                crate::diagnostic::closest(&i[..n], ["locations", "filter", "exists", "forall"], 1);
            if let Some(note) = crate::diagnostic::did_you_mean(&near) {
                e.extra_mut().notes.push((i, note));
            }
            return Err(Err::Failure(e));
        }
        let comments: Vec<Comment> = self.comments.borrow().values().cloned().collect();
        let expectations = comments.iter().flat_map(expectations_in).collect();
        Ok((
            i,
            Test {
                arch,
                name,
                doc,
                info,
                comments,
                expectations,
                init,
                threads,
                regions,
                locations,
                filter,
                condition,
                span: self.span(start, i),
            },
        ))
    }

    /// `header ::= "C" name NEWLINE (doc | comment | info-line)*`
    #[allow(clippy::type_complexity)]
    fn header(&self, i: &'a str) -> PResult<'a, (String, Ident, Option<String>, Vec<InfoLine>)> {
        let (i, arch) = self.word(i).map_err(|_| {
            let (j, _) = self.trivia(i).unwrap_or((i, ()));
            Err::Failure(PError::expected(j, "`C` and the test name"))
        })?;
        if arch.name != "C" {
            return failure_msg(
                &self.src[arch.span.start..],
                format!(
                    "only C litmus tests are accepted, this one is `{}`",
                    arch.name
                ),
            );
        }
        let j = i.trim_start_matches([' ', '\t']);
        let n = j.find(char::is_whitespace).unwrap_or(j.len());
        if n == 0 {
            return failure(j, "the test name after `C`");
        }
        let name = Ident::new(&j[..n], Span::new(self.off(j), self.off(j) + n));
        let mut i = &j[n..];
        let mut doc = None;
        let mut info = Vec::new();
        loop {
            i = i.trim_start();
            if i.starts_with("(*") {
                i = self.ml_comment(i)?.0;
            } else if i.starts_with('{') || i.is_empty() {
                return Ok((i, (arch.name, name, doc, info)));
            } else if doc.is_none() && info.is_empty() && i.starts_with('"') {
                match i[1..].find('"') {
                    Some(n) => {
                        doc = Some(i[1..1 + n].to_string());
                        i = &i[n + 2..];
                    }
                    None => return failure(i, "`\"` to close the doc string"),
                }
            } else {
                let n = i.find('\n').unwrap_or(i.len());
                let text = i[..n].trim_end();
                info.push(InfoLine {
                    text: text.to_string(),
                    span: Span::new(self.off(i), self.off(i) + text.len()),
                });
                i = &i[n..];
            }
        }
    }

    /// `init ::= "{" (init-item ";")* "}"`
    fn init(&self, i: &'a str) -> PResult<'a, Vec<InitItem>> {
        let (i, open) = self.tok("{", "`{` to open the init block")(i)?;
        let mut items = Vec::new();
        let mut i = i;
        loop {
            // herd7 takes one more `;` just before the closing brace, and nowhere else.
            if let Ok((rest, semi)) = self.tok(";", "`;`")(i) {
                if !self.peek(rest, "}")? {
                    return failure_msg(
                        semi,
                        "herd7's init block has no empty item: remove this `;`".to_string(),
                    );
                }
                i = rest;
            }
            if self.peek(i, "}")? {
                let (rest, _) = self.tok("}", "`}`")(i)?;
                return Ok((rest, items));
            }
            let (rest, item) = self
                .init_item(i)
                .map_err(|e| self.closing(e, open, "`}`", "the init block"))?;
            items.push(item);
            i = rest;
            match self.tok(";", "`;`")(i) {
                Ok((rest, _)) => i = rest,
                Err(_) if self.peek(i, "}")? => {}
                Err(e) => return Err(self.closing(commit_err(e), open, "`}`", "the init block")),
            }
        }
    }

    /// `init-item ::= (type | "*")? init-target ("=" init-value)?`, where a `*` alone is
    /// herd7's pointer of the default type (`*p = &x;`), written as a [`Type`] whose base is
    /// empty.
    fn init_item(&self, i: &'a str) -> PResult<'a, InitItem> {
        let (i, ()) = self.trivia(i)?;
        let start = i;
        let (i, ty) = match self.init_type(i) {
            Ok((rest, ty)) => match self.init_target(rest) {
                Ok(_) => (rest, Some(ty)),
                Err(_) => (i, None),
            },
            Err(Err::Error(_)) => match i.strip_prefix('*') {
                Some(rest) => {
                    let ty = Type {
                        volatile: false,
                        base: String::new(),
                        pointers: 1,
                        span: self.span(i, rest),
                    };
                    (rest, Some(ty))
                }
                None => (i, None),
            },
            Err(e) => return Err(e),
        };
        let (i, target) = self.init_target(i).map_err(|e| {
            e.map(|mut err| {
                err.set_expected("a variable or register to initialise");
                err
            })
        })?;
        // A third word, as in `unsigned long x`: herd7 takes one-word types only.
        if let (Some(ty), Ok(_)) = (&ty, self.word(i)) {
            return failure_msg(
                &self.src[ty.span.start..],
                format!(
                    "herd7's init block takes a one-word type such as `int`, not `{} {}`",
                    ty.base,
                    target_text(&target)
                ),
            );
        }
        if matches!(target, Location::Global(_)) && self.peek(i, "[")? {
            let (at, ()) = self.trivia(i)?;
            return failure_msg(at, ARRAYS.to_string());
        }
        let target_end = i;
        let (i, value) = match self.tok("=", "`=`")(i) {
            Ok((rest, _)) => {
                let pointer = ty.as_ref().is_some_and(|t| t.pointers > 0);
                let (rest, v) = cut(|i| self.init_value(i, pointer)).parse(rest)?;
                (rest, Some(v))
            }
            Err(_) => (i, None),
        };
        let end = if value.is_some() { i } else { target_end };
        Ok((
            i,
            InitItem {
                ty,
                target,
                value,
                span: self.span(start, end),
            },
        ))
    }

    /// `init-value ::= state-int | "&"? name | "ATOMIC_INIT" "(" state-int ")"`, where herd7
    /// takes the `&` only in the value of a `pointer` item (`int *p = &x;`).
    fn init_value(&self, i: &'a str, pointer: bool) -> PResult<'a, InitValue> {
        match self.state_int(i) {
            Ok((rest, (v, _))) => return Ok((rest, InitValue::Int(v))),
            Err(Err::Error(_)) => {}
            Err(e) => return Err(e),
        }
        if let Ok((rest, amp)) = self.tok("&", "`&`")(i) {
            if !pointer {
                let (r, id) = cut(|i| self.state_name(i)).parse(rest)?;
                let _ = r;
                return failure_msg(
                    amp,
                    format!(
                        "herd7 takes `&{0}` only as the value of a pointer, as in \
                         `int *p = &{0};`; here write `{0}`",
                        id.name
                    ),
                );
            }
            let (rest, id) = cut(|i| self.state_name(i)).parse(rest)?;
            return Ok((rest, InitValue::Addr(id)));
        }
        if let Ok((rest, _)) = self.keyword("ATOMIC_INIT", "")(i) {
            let (rest, open) = cut(self.tok("(", "`(` after `ATOMIC_INIT`")).parse(rest)?;
            let (rest, (v, _)) = cut(|i| self.state_int(i)).parse(rest)?;
            let (rest, _) = cut(self.tok(")", "`)`"))
                .parse(rest)
                .map_err(|e| self.closing(e, open, "`)`", "`ATOMIC_INIT(`"))?;
            return Ok((rest, InitValue::AtomicInit(v)));
        }
        let (rest, id) = self.state_name(i).map_err(|e| {
            e.map(|mut err| {
                err.set_expected("an integer or an address");
                err
            })
        })?;
        Ok((rest, InitValue::Addr(id)))
    }

    /// `init-target ::= location | "[" name "]"`: herd7's init block takes a shared variable
    /// in brackets too, as a condition writes it (`[x] = 0;`), and no register so.
    fn init_target(&self, i: &'a str) -> PResult<'a, Location> {
        let (i, ()) = self.trivia(i)?;
        let Some(rest) = i.strip_prefix('[') else {
            return self.location(i);
        };
        let (rest, ()) = self.trivia(rest)?;
        if rest.starts_with(|c: char| c.is_ascii_digit()) {
            return failure_msg(
                rest,
                "herd7's init block takes brackets round a shared variable only: write a \
                 register without them, as in `0:r0 = 1;`"
                    .to_string(),
            );
        }
        let (rest, id) = cut(|i| self.state_name(i)).parse(rest)?;
        let (rest, _) = cut(self.tok("]", "`]` after the variable")).parse(rest)?;
        Ok((rest, Location::Global(id)))
    }

    /// `location ::= digits ":" name | name`, in the init block or the trailer.
    pub(super) fn location(&self, i: &'a str) -> PResult<'a, Location> {
        let (i, ()) = self.trivia(i)?;
        if i.starts_with(|c: char| c.is_ascii_digit()) {
            let (rest, thread) = self.thread_number(i)?;
            let (rest, _) = cut(self.tok(":", "`:` after the thread number")).parse(rest)?;
            let (rest, reg) = cut(|i| self.state_name(i)).parse(rest)?;
            return Ok((
                rest,
                Location::Register {
                    thread,
                    reg,
                    span: self.span(i, rest),
                },
            ));
        }
        let (rest, id) = self.state_name(i)?;
        Ok((rest, Location::Global(id)))
    }

    /// `init-type ::= "_Atomic"? name | name "*"`: herd7's init block takes any one word for a
    /// type, and a pointer to one (the checker refuses the types whose size herd7 does not
    /// know, as herd7 does after parsing).
    fn init_type(&self, i: &'a str) -> PResult<'a, Type> {
        let (i, ()) = self.trivia(i)?;
        let start = i;
        let (i, atomic) = match self.keyword("_Atomic", "")(i) {
            Ok((rest, _)) => (rest, true),
            Err(_) => (i, false),
        };
        let (i, word) = match self.word(i) {
            Ok(r) if dialect::is_state_name(&r.1.name) => r,
            _ => return fail(start, "a type"),
        };
        let (end, pointers) = self.stars(i)?;
        if pointers > 0 && atomic {
            return failure_msg(
                start,
                "herd7's init block takes `_Atomic` before a type that is no pointer".to_string(),
            );
        }
        if pointers > 1 {
            return failure_msg(
                &self.src[word.span.start..],
                "herd7's init block takes one `*` in a type: write `int *p = x;` for a \
                 pointer to a pointer too"
                    .to_string(),
            );
        }
        Ok((
            end,
            Type {
                volatile: false,
                base: word.name,
                pointers,
                span: self.span(start, end),
            },
        ))
    }

    /// `stars ::= "*"*`: how many there are, and where they end.
    fn stars(&self, mut i: &'a str) -> PResult<'a, u32> {
        let mut pointers = 0;
        let mut end = i;
        loop {
            let (rest, ()) = self.trivia(i)?;
            match rest.strip_prefix('*') {
                Some(r) => {
                    pointers += 1;
                    i = r;
                    end = r;
                }
                None => return Ok((end, pointers)),
            }
        }
    }

    /// `code-type ::= qualifier? base ("*" | "volatile" | "const")*`, where
    /// `qualifier ::= "volatile" | "const" | "_Atomic"` and `base` is `int`, `char`, `long`,
    /// one of herd7's `intN_t`, `atomic_t`, `spinlock_t`..., `struct srcu_struct`, or `void`
    /// before a `*`: a type of thread code.
    ///
    /// `const` and `_Atomic` leave no trace in the tree, and `volatile` none of its place.
    pub(super) fn code_type(&self, i: &'a str) -> PResult<'a, Type> {
        let (i, ()) = self.trivia(i)?;
        let start = i;
        let (mut i, first) = self.word(i)?;
        let mut volatile = false;
        let mut word = first;
        if matches!(word.name.as_str(), "volatile" | "const" | "_Atomic") {
            volatile = word.name == "volatile";
            let (rest, w) = cut(|i| self.word(i)).parse(i).map_err(|e| {
                e.map(|mut err| {
                    err.set_expected("a type");
                    err
                })
            })?;
            word = w;
            i = rest;
        } else if !dialect::begins_code_type(&word.name) {
            return fail(start, "a type");
        }
        let base = match word.name.as_str() {
            "struct" => {
                let (rest, tag) = cut(|i| self.word(i)).parse(i)?;
                if tag.name != "srcu_struct" {
                    return failure_msg(
                        &self.src[tag.span.start..],
                        format!(
                            "herd7's thread code knows one `struct`, `struct srcu_struct`, \
                             not `struct {}`",
                            tag.name
                        ),
                    );
                }
                i = rest;
                "struct srcu_struct".to_string()
            }
            // Bare `void` is refused by the callers, except in `(void)e;`.
            "void" if start.len() - i.len() == 4 => "void".to_string(),
            "void" => {
                return failure_msg(
                    &self.src[word.span.start..],
                    "herd7 takes `void` only as `void *`, with no qualifier before it".to_string(),
                );
            }
            "atomic" => {
                // `atomic<T>`, where T is one of the base types herd7 lexes as such.
                let (rest, _) = cut(self.tok("<", "`<` after `atomic`")).parse(i)?;
                let (rest, inner) = cut(|i| self.word(i)).parse(rest)?;
                if !dialect::CODE_BASE_TYPES.contains(&inner.name.as_str())
                    || matches!(inner.name.as_str(), "int" | "char" | "long" | "atomic_int")
                {
                    return failure_msg(
                        &self.src[inner.span.start..],
                        format!("herd7 knows no type `atomic<{}>`", inner.name),
                    );
                }
                let (rest, _) = cut(self.tok(">", "`>`")).parse(rest)?;
                i = rest;
                format!("atomic<{}>", inner.name)
            }
            w if dialect::CODE_BASE_TYPES.contains(&w) => w.to_string(),
            w => {
                return failure_msg(
                    &self.src[word.span.start..],
                    format!("expected a type after the qualifier, found `{w}`"),
                );
            }
        };
        // Stars and qualifiers after the base: `int *`, `int * volatile`, `int const`.
        let mut pointers = 0;
        let mut end = i;
        loop {
            let (rest, ()) = self.trivia(i)?;
            if let Some(r) = rest.strip_prefix('*') {
                pointers += 1;
                i = r;
                end = r;
                continue;
            }
            match self.word(rest) {
                Ok((r, w)) if w.name == "volatile" || w.name == "const" => {
                    volatile |= w.name == "volatile";
                    i = r;
                    end = r;
                }
                _ => break,
            }
        }
        Ok((
            end,
            Type {
                volatile,
                base,
                pointers,
                span: self.span(start, end),
            },
        ))
    }
}
