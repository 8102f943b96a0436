//! herd7's digest of a test, the hexadecimal string it prints as `Hash=`.
//!
//! herd7 (and litmus7, whose digest it shares, so that a test keeps its hash from one tool
//! to the other) digests four parts of a test with MD5 and digests the concatenation of the
//! four raw 16-byte digests once more:
//!
//! 1. the info lines whose key is `MemoryType`, `MT` or `CacheType` (in any case), as
//!    `key=value` with the key lowercased, sorted by key, in *reverse* order, concatenated;
//!    with none of them, this part is empty rather than the digest of nothing;
//! 2. the init block as parsed: every item `location` with its type and value, sorted by
//!    location (registers first, by thread then name; then variables, by name), printed
//!    `int x=1`, `x=1`, `int *p=y`, `*0:r1=x`, `_Atomic int x=0` and joined by `"; "`;
//!    thread parameters do not count;
//! 3. the code: each thread printed `P0(int* x, int* y) {\nBODY\n}\n`, where the
//!    parameter type is written without its outer `*` and then with one, as herd7 prints
//!    types, and `BODY` is the text between the thread's braces *exactly* as written,
//!    comments and blanks included; the threads laid side by side as columns of one line,
//!    each cell ` TEXT `, joined by `|`, ending with `;\n`;
//! 4. the observed locations: those of `locations [...]` and of the condition's atoms
//!    (not of `filter`), a set in the init block's order, printed `0:r1` or `x` and joined
//!    by `"; "`.
//!
//! A test whose header already has a `Hash=` line keeps that value.
//! [`herd_hash`] computes the same string from the parsed [`Test`] and the text it came
//! from.

use crate::ast::{Location, PropKind, Test, Value};
use std::collections::BTreeSet;

/// herd7's `Hash=` value for `test`, parsed from `source`: 32 lowercase hexadecimal digits,
/// or the value of the test's own `Hash=` header line.
pub fn herd_hash(test: &Test, source: &str) -> String {
    if let Some(given) = test
        .info
        .iter()
        .filter_map(|l| l.key_value())
        .find(|(k, _)| k.eq_ignore_ascii_case("hash"))
        .map(|(_, v)| v)
    {
        return given.to_string();
    }
    let mut all = md5::Context::new();
    all.consume(info_digest(test));
    all.consume(md5::compute(init_text(test, source)).0);
    all.consume(code_digest(test, source).0);
    all.consume(md5::compute(observed_text(test)).0);
    hex(&all.finalize().0)
}

/// `bytes` in lowercase hexadecimal, two digits each.
fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(2 * bytes.len());
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}

/// Part 1: the digest of the info lines herd7 digests, or nothing.
fn info_digest(test: &Test) -> Vec<u8> {
    const DIGESTED: [&str; 3] = ["MemoryType", "MT", "CacheType"];
    let mut lines: Vec<(&str, &str)> = test
        .info
        .iter()
        .filter_map(|l| l.key_value())
        .filter(|(k, _)| DIGESTED.iter().any(|d| d.eq_ignore_ascii_case(k)))
        .collect();
    if lines.is_empty() {
        return Vec::new();
    }
    lines.sort_by(|a, b| a.0.cmp(b.0));
    let text: String = lines
        .iter()
        .rev()
        .map(|(k, v)| format!("{}={v}", k.to_ascii_lowercase()))
        .collect();
    md5::compute(text).0.to_vec()
}

/// A location as herd7's digest orders and prints it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Loc {
    /// `0:r1`: ordered by thread, then name; before every variable.
    Reg(u32, String),
    /// `x`: ordered by name.
    Var(String),
}

impl Loc {
    fn of(l: &Location) -> Loc {
        match l {
            Location::Global(id) => Loc::Var(id.name.clone()),
            Location::Register { thread, reg, .. } => Loc::Reg(*thread, reg.name.clone()),
        }
    }

    fn text(&self) -> String {
        match self {
            Loc::Reg(t, r) => format!("{t}:{r}"),
            Loc::Var(v) => v.clone(),
        }
    }
}

/// Part 2: the init block as herd7's digest prints it.
fn init_text(test: &Test, source: &str) -> String {
    let mut items: Vec<(Loc, String)> = test
        .init
        .iter()
        .map(|item| {
            let loc = Loc::of(&item.target);
            let text = source
                .get(item.span.start..item.span.end)
                .map(|t| init_item_text(t, &loc.text()))
                .unwrap_or_default();
            (loc, text)
        })
        .collect();
    // A stable sort, then the first of equal locations kept, as herd7 does.
    items.sort_by(|a, b| a.0.cmp(&b.0));
    items.dedup_by(|b, a| a.0 == b.0);
    items
        .into_iter()
        .map(|(_, t)| t)
        .collect::<Vec<_>>()
        .join("; ")
}

/// A token of the init block, as herd7's state lexer cuts it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok<'s> {
    Word(&'s str),
    Num(&'s str),
    Punct(char),
}

/// The tokens of `text`, blanks and `(* *)` comments skipped.
fn state_tokens(text: &str) -> Vec<Tok<'_>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let word_start = |c: u8| c.is_ascii_alphabetic() || matches!(c, b'_' | b'.' | b'$');
    let word_char = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'/' | b'.' | b'-');
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if text[i..].starts_with("(*") {
            i = text[i + 2..].find("*)").map_or(b.len(), |n| i + 2 + n + 2);
        } else if c.is_ascii_digit() || (c == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            let start = i;
            i += 1;
            if text[start..].starts_with("0x") || text[start..].starts_with("0X") {
                i = start + 2;
                while i < b.len() && b[i].is_ascii_hexdigit() {
                    i += 1;
                }
            } else {
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
            out.push(Tok::Num(&text[start..i]));
        } else if word_start(c) {
            let start = i;
            while i < b.len() && word_start(b[i]) {
                i += 1;
            }
            while i < b.len() && word_char(b[i]) {
                i += 1;
            }
            out.push(Tok::Word(&text[start..i]));
        } else {
            let ch = text[i..].chars().next().unwrap_or(' ');
            out.push(Tok::Punct(ch));
            i += ch.len_utf8();
        }
    }
    out
}

/// One init item, `text` as written, printed as herd7's digest prints it, its location
/// printed `loc`.
///
/// The forms are those of herd7's init grammar: `loc`, `loc=v`, `0:r=&x`, `T loc`,
/// `T loc=v`, `T loc=ATOMIC_INIT(v)`, `_Atomic T loc(=v)`, `T *loc(=v)`, `*loc(=v)`.
fn init_item_text(text: &str, loc: &str) -> String {
    let toks = state_tokens(text);
    let eq = toks.iter().position(|t| *t == Tok::Punct('='));
    let (lhs, rhs) = match eq {
        Some(n) => (&toks[..n], &toks[n + 1..]),
        None => (&toks[..], &[][..]),
    };
    let value = value_text(rhs);
    let amper = rhs.first() == Some(&Tok::Punct('&'));
    // The words before the location; the location itself is the last word of `lhs` (or
    // `N : name`, or `[ name ]`).
    let star = lhs.contains(&Tok::Punct('*'));
    let words: Vec<&str> = lhs
        .iter()
        .filter_map(|t| match t {
            Tok::Word(w) => Some(*w),
            _ => None,
        })
        .collect();
    // The type words are those before the location's own name, the last word.
    let type_words = &words[..words.len().saturating_sub(1)];
    match (type_words, star) {
        ([], false) if amper => format!("*{loc}={value}"),
        ([], false) => format!("{loc}={value}"),
        ([], true) => format!("*{loc}={value}"),
        (["_Atomic", t], false) => format!("_Atomic {t} {loc}={value}"),
        ([t, ..], true) => format!("{t} *{loc}={value}"),
        ([t, ..], false) => format!("{t} {loc}={value}"),
    }
}

/// The value of an init item, as written: a number, a name (`&` dropped), the number in
/// `ATOMIC_INIT(n)`, or `0` when there is none.
fn value_text(rhs: &[Tok<'_>]) -> String {
    for t in rhs {
        match t {
            Tok::Num(n) => return (*n).to_string(),
            Tok::Word("ATOMIC_INIT") => {}
            Tok::Word(w) => return (*w).to_string(),
            Tok::Punct(_) => {}
        }
    }
    "0".to_string()
}

/// Part 3: the digest of the threads as herd7's digest prints them, side by side (the
/// text is digested as it is made, never held whole).
fn code_digest(test: &Test, source: &str) -> md5::Digest {
    let mut md5 = md5::Context::new();
    if test.threads.is_empty() {
        return md5.finalize();
    }
    for (k, t) in test.threads.iter().enumerate() {
        if k > 0 {
            md5.consume("|");
        }
        md5.consume(format!(" P{}(", t.id));
        for (j, p) in t.params.iter().enumerate() {
            if j > 0 {
                md5.consume(", ");
            }
            let ty = source
                .get(p.ty.span.start..p.ty.span.end)
                .map(param_type_text)
                .unwrap_or_default();
            md5.consume(ty);
            md5.consume(" ");
            md5.consume(&p.name.name);
        }
        md5.consume(") {\n");
        md5.consume(
            source
                .get(t.span.start..t.span.end)
                .map(thread_body)
                .unwrap_or_default(),
        );
        md5.consume("\n}\n ");
    }
    md5.consume(";\n");
    md5.finalize()
}

/// The text between a thread's braces, as herd7's shallow lexer takes it: from the first
/// `{` after the parameter list to the `}` that balances it, braces counted wherever they
/// stand.
fn thread_body(thread: &str) -> &str {
    let b = thread.as_bytes();
    let mut i = 0;
    let mut depth = 0usize;
    let mut seen_paren = false;
    // Up to the `)` that closes the parameter list, then to the `{`, skipping comments.
    // Bytes, not characters: every byte looked for is ASCII, and a slice of `thread` is
    // taken only next to one.
    let find = |from: usize, what: &[u8]| {
        b[from.min(b.len())..]
            .windows(what.len())
            .position(|w| w == what)
            .map(|n| from + n)
    };
    while i < b.len() {
        if b[i..].starts_with(b"/*") {
            i = find(i + 2, b"*/").map_or(b.len(), |n| n + 2);
            continue;
        }
        if b[i..].starts_with(b"//") {
            i = find(i, b"\n").unwrap_or(b.len());
            continue;
        }
        match b[i] {
            b'(' => {
                depth += 1;
                seen_paren = true;
            }
            b')' => depth = depth.saturating_sub(1),
            b'{' if seen_paren && depth == 0 => break,
            _ => {}
        }
        i += 1;
    }
    let start = (i + 1).min(b.len());
    let mut depth = 0usize;
    for (n, &c) in b[start..].iter().enumerate() {
        match c {
            b'{' => depth += 1,
            b'}' if depth == 0 => return thread.get(start..start + n).unwrap_or(""),
            b'}' => depth -= 1,
            _ => {}
        }
    }
    thread.get(start..).unwrap_or("")
}

/// herd7's type of a C type, as far as parameters need it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum CType {
    Base(String),
    Volatile(Box<CType>),
    Const(Box<CType>),
    Atomic(Box<CType>),
    Pointer(Box<CType>),
}

impl CType {
    /// The type as herd7 prints it.
    fn dump(&self) -> String {
        match self {
            CType::Base(s) => s.clone(),
            CType::Volatile(t) => match &**t {
                CType::Base(s) => format!("volatile {s}"),
                t => format!("{} volatile", t.dump()),
            },
            CType::Atomic(t) => match &**t {
                CType::Base(s) => format!("_Atomic {s}"),
                t => format!("_Atomic ({})", t.dump()),
            },
            CType::Const(t) => format!("{} const", t.dump()),
            CType::Pointer(t) => format!("{}*", t.dump()),
        }
    }
}

/// A parameter's type, written `text`, as herd7's digest prints it: its outer pointer
/// taken off, the rest printed, and a `*` added.
fn param_type_text(text: &str) -> String {
    let mut words = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_alphanumeric() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            words.push(&text[start..i]);
        } else {
            if matches!(c, b'*' | b'<' | b'>') {
                words.push(&text[i..i + 1]);
            }
            i += 1;
        }
    }
    let mut rest = &words[..];
    let base = |rest: &mut &[&str]| -> CType {
        match *rest {
            ["struct", tag, r @ ..] => {
                *rest = r;
                CType::Base(format!("struct {tag}"))
            }
            ["atomic", "<", t, ">", r @ ..] => {
                *rest = r;
                CType::Atomic(Box::new(CType::Base((*t).to_string())))
            }
            ["atomic_int", r @ ..] => {
                *rest = r;
                CType::Atomic(Box::new(CType::Base("int".into())))
            }
            [w, r @ ..] => {
                *rest = r;
                CType::Base((*w).to_string())
            }
            [] => CType::Base(String::new()),
        }
    };
    let mut ty = match rest {
        ["_Atomic", r @ ..] => {
            rest = r;
            CType::Atomic(Box::new(base(&mut rest)))
        }
        ["volatile", r @ ..] => {
            rest = r;
            CType::Volatile(Box::new(base(&mut rest)))
        }
        ["const", r @ ..] => {
            rest = r;
            CType::Const(Box::new(base(&mut rest)))
        }
        _ => base(&mut rest),
    };
    for w in rest {
        ty = match *w {
            "*" => CType::Pointer(Box::new(ty)),
            "volatile" => CType::Volatile(Box::new(ty)),
            "const" => CType::Const(Box::new(ty)),
            _ => ty,
        };
    }
    let inner = match ty {
        CType::Pointer(t) => *t,
        t => t,
    };
    format!("{}*", inner.dump())
}

/// Part 4: the observed locations as herd7's digest prints them.
fn observed_text(test: &Test) -> String {
    let mut locs: BTreeSet<Loc> = BTreeSet::new();
    for l in test.locations.iter().flatten() {
        locs.insert(Loc::of(l));
    }
    if let Some(c) = &test.condition {
        let mut stack = vec![&c.prop];
        while let Some(p) = stack.pop() {
            match &p.kind {
                PropKind::True | PropKind::False => {}
                PropKind::Atom(a) => {
                    locs.insert(Loc::of(&a.loc));
                    if let Value::Register { thread, reg, .. } = &a.value {
                        locs.insert(Loc::Reg(*thread, reg.name.clone()));
                    }
                }
                PropKind::Not(q) => stack.push(q),
                PropKind::And(a, b) | PropKind::Or(a, b) | PropKind::Implies(a, b) => {
                    stack.push(a);
                    stack.push(b);
                }
            }
        }
    }
    locs.iter().map(Loc::text).collect::<Vec<_>>().join("; ")
}
