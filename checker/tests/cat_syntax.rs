//! The reader of herd7's model language: every model file of herd7's library and of the
//! kernel parses, small handwritten models parse into the trees their snapshots show, bad
//! ones give the errors their snapshots show, and no text makes the parser panic.
//!
//! The real files are read from the shared folder beside the repository (`herd7`'s
//! library under `oracle/herd/`, the kernel's model under `conformance/lkmm-model/`), or
//! from where `$HAZMAT_SHARED` points; without them, the corpus tests pass having checked
//! nothing, and say so.
//! No file of herd7's library is copied here: the snapshots are of models written for them.
//! Refresh the snapshots with `UPDATE_EXPECT=1`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use expect_test::{Expect, expect};
use hazmat_checker::models::cat::ast::*;
use hazmat_checker::models::cat::config::{Places, Settings, parse_config};
use hazmat_checker::models::cat::files::{Disk, InMemory};
use hazmat_checker::models::cat::{CatError, ErrorKind, Library, Loaded, parse};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

#[path = "common/cat_tree.rs"]
mod cat_tree;
use cat_tree::model;

/// The shared folder, if present.
fn shared_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("HAZMAT_SHARED") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    };
    dir.is_dir().then_some(dir)
}

/// The folders of real model files, if present.
fn model_dirs() -> Vec<PathBuf> {
    let Some(shared) = shared_dir() else {
        return Vec::new();
    };
    ["oracle/herd", "conformance/lkmm-model"]
        .iter()
        .map(|d| shared.join(d))
        .filter(|d| d.is_dir())
        .collect()
}

/// Every file under `dir`, at any depth, whose extension is one of `exts`, sorted.
fn files_with(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    fn walk(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, exts, out);
            } else if path
                .extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| exts.contains(&x))
            {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, exts, &mut out);
    out.sort();
    out
}

fn read(path: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(path).expect("the file is readable")).into_owned()
}

#[test]
fn every_model_file_of_herd7_and_the_kernel_parses() {
    let Some(shared) = shared_dir() else {
        eprintln!("no shared folder found; nothing to check");
        return;
    };
    let mut failures = Vec::new();
    let mut count = 0;
    for dir in model_dirs() {
        for path in files_with(&dir, &["cat", "bell"]) {
            count += 1;
            let text = read(&path);
            let relative = path.strip_prefix(&shared).unwrap_or(&path);
            let refused = REFUSED_BY_HERD7
                .iter()
                .find(|(f, _)| Path::new(f) == relative)
                .map(|(_, at)| *at);
            match (parse(&text, 0), refused) {
                (Ok(_), None) => {}
                (Err(e), Some(at)) if e.at.map(|l| (l.line, l.col)) == Some(at) => {}
                (Ok(_), Some(at)) => failures.push(format!(
                    "{}: parsed, but herd7 refuses it at {at:?}",
                    relative.display()
                )),
                (Err(e), _) => failures.push(e.render_in(&relative.display().to_string(), &text)),
            }
        }
    }
    if count == 0 {
        eprintln!("no model files in the shared folder; nothing to check");
        return;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Files herd7 itself refuses to read, with the place of its error: they must be refused
/// at the same place.
const REFUSED_BY_HERD7: &[(&str, (usize, usize))] = &[
    // `rf -1`: herd7 reads `-1` only after `^`.
    ("oracle/herd/uniproc-normw-cat.cat", (7, 14)),
];

#[track_caller]
fn check_tree(text: &str, expect: Expect) {
    match parse(text, 0) {
        Ok(m) => expect.assert_eq(&model(&m)),
        Err(e) => panic!("{}", e.render_in("t.cat", text)),
    }
}

#[track_caller]
fn check_error(text: &str, expect: Expect) {
    match parse(text, 0) {
        Ok(m) => panic!("parsed:\n{}", model(&m)),
        Err(e) => expect.assert_eq(&e.render_in("t.cat", text)),
    }
}

#[test]
fn precedence() {
    check_tree(
        include_str!("cat/precedence.cat"),
        expect![[r#"
            title Some("precedence"), arch Some("precedence"), catdep false
            let a = (| r (++ s (; t (\ u (& v w)))))
            let b = (| (; r s) t)
            let c = (\ (\ r s) t)
            let d = (& r s t)
            let e = (++ r (++ s t))
            let f = (| (~ r) s)
            let g = (| (* r) (; (+ s) (? t)))
            let h = (* (^-1 r))
            let i = (| (cartesian R W) po)
            let j = (; ([] R) po ([] W))
            let k = (| (app (app f x) y) (app g (tuple x y)))
            let l = (cartesian r s)
            let m = (| r s t)
            let n = (~ (^-1 r))
            let o = (tuple a b)
            let p = (* (+ r))
            let q = (; r s t)
        "#]],
    );
}

#[test]
fn constructs() {
    check_tree(
        include_str!("cat/constructs.cat"),
        expect![[r#"
            title Some("constructs"), arch Some("X86"), catdep true
            include "stdlib.cat"
            let f = (fun (x, y) -> (| x y)) and g = (fun x -> x) and (h, i) = (tuple a b)
            let (j, _) = p
            let rec r = (| s (; r t)) and u = v
            let rec w = (; w w) when acyclic w as w-ok
            let e = (let x = a in x)
            let e2 = (let rec x = (| a x) in x)
            let e3 = (fun x -> x)
            let e4 = (fun (x, _) -> x)
            let e5 = (try a 0)
            let e6 = (if (|| (&& "v" (not "w")) "x") a b)
            let e7 = (if (= a b) a b)
            let e8 = (if (subset a b) a b)
            let e9 = (if (in a b) a b)
            let e10 = (match t ('a x) ('b y) (_ z))
            let e11 = (match-set s ({} 0) (x ++ rest rest))
            let e12 = (match-set s ({} 0) (pre | x ++ post x))
            let e13 = (| (set a b) 0 _ 'tag (tuple))
            let e14 = (| a b)
            Check acyclic po as sc
            Check irreflexive po
            Check empty po as e
            Check ~empty rf
            Flag ~acyclic co as f
            UndefinedUnless empty x
            Assert acyclic y
            show a, b
            show (| a b) as c
            unshow a
            procedure p (x, y)
              Check acyclic x
            end
            procedure rec q x
              call q x
            end
            procedure u ()
            end
            call p (tuple a b) as n
            debug x
            forall x in s
              Check empty x
            end
            with x from s
            if "v"
              let x = y
            else
              let x = z
            end
            if "w"
              let x = y
            else
            end
            match t
            'a ->
              let x = y
            _ ->
              Check empty x
            end
            enum Kind = a b
            instructions R[Kind, (set 'a)]
            default W[]
        "#]],
    );
}

#[test]
fn errors_in_tokens() {
    check_error(
        "\"t\"\nlet a = po (* a comment (* nested *) never closed\nlet b = a\n",
        expect![[r#"
            t.cat:2:12: error: unclosed comment: `(*` without the `*)` that ends it
              |
            2 | let a = po (* a comment (* nested *) never closed
              |            ^^
        "#]],
    );
    check_error(
        "\"t\"\nlet a = po % rf\n",
        expect![[r#"
        t.cat:2:12: error: unexpected character `%`
          |
        2 | let a = po % rf
          |            ^
    "#]],
    );
    check_error(
        "let a = po ; 1\n",
        expect![[r#"
        t.cat:1:14: error: unexpected character `1`
          |
        1 | let a = po ; 1
          |              ^
          = note: the only number of the model language is `0`, the empty set
    "#]],
    );
    check_error(
        "let a = po - rf\n",
        expect![[r#"
        t.cat:1:12: error: unexpected character `-`
          |
        1 | let a = po - rf
          |            ^
          = note: `-` is part of a name (`po-loc`), of `->` or of `^-1`
    "#]],
    );
    check_error(
        "include \"lock.cat\nlet a = po\n",
        expect![[r#"
        t.cat:1:9: error: unclosed string: `"` without the `"` that ends it
          |
        1 | include "lock.cat
          |         ^
    "#]],
    );
    check_error(
        "let a = ' b\n",
        expect![[r#"
        t.cat:1:9: error: expected a name after `'`
          |
        1 | let a = ' b
          |         ^
          = note: a tag is a name after a quote, such as `'acquire`
    "#]],
    );
}

#[test]
fn errors_in_instructions() {
    check_error(
        "\"t\"\nprocedure p(x) =\n  acyclic x\nlet y = z\n",
        expect![[r#"
            t.cat:5:1: error: expected `end`, found end of file
              |
            5 | 
              | ^
              = note: to close the `procedure` at 2:1
        "#]],
    );
    check_error(
        "forall x in s do\n  empty x\nenum E = 'a\nend\n",
        expect![[r#"
            t.cat:3:1: error: expected `end`, found `enum`
              |
            3 | enum E = 'a
              | ^^^^
              = note: to close the `forall` at 1:1
              = note: `enum` may only stand at the top level of a file
        "#]],
    );
    check_error(
        "acyclic po as \"sc\"\n",
        expect![[r#"
        t.cat:1:15: error: expected a name after `as`, found the string `"sc"`
          |
        1 | acyclic po as "sc"
          |               ^^^^
          = note: the name is written bare: `as coherence`
    "#]],
    );
    check_error(
        "acyclic po as\nlet x = y\n",
        expect![[r#"
        t.cat:2:1: error: expected a name after `as`, found `let`
          |
        2 | let x = y
          | ^^^
    "#]],
    );
    check_error(
        "show po as 'x\n",
        expect![[r#"
        t.cat:1:12: error: expected a name after `as`, found `'x`
          |
        1 | show po as 'x
          |            ^^
    "#]],
    );
    check_error(
        "call p x\n",
        expect![[r#"
        t.cat:1:8: error: expected the argument of the call, found `x`
          |
        1 | call p x
          |        ^
          = note: herd7 takes a call's argument in parentheses: `call f(x)`
    "#]],
    );
    check_error(
        "if a = b let x = y end\n",
        expect![[r#"
        t.cat:1:4: error: expected a condition on variants, found `a`
          |
        1 | if a = b let x = y end
          |    ^
          = note: among instructions, `if` tests variants (`if "name" ... end`); `if ... then ... else ...` on values is an expression
    "#]],
    );
    check_error(
        "acyclic po as sc\nrf\n",
        expect![[r#"
        t.cat:2:1: error: expected an instruction (`let`, `include`, a check such as `acyclic`, `show`, ...), found `rf`
          |
        2 | rf
          | ^^
    "#]],
    );
    check_error(
        "flag ~ po\n",
        expect![[r#"
        t.cat:1:8: error: expected `acyclic`, `irreflexive` or `empty`, found `po`
          |
        1 | flag ~ po
          |        ^^
    "#]],
    );
    check_error(
        "let x = let y = a\nlet z = b\n",
        expect![[r#"
        t.cat:2:1: error: expected `in`, found `let`
          |
        2 | let z = b
          | ^^^
          = note: the `let` at 1:9 is an expression, which needs `in` and the expression it defines
    "#]],
    );
}

#[test]
fn errors_in_expressions() {
    check_error(
        "let a = (po | rf\nlet b = a\n",
        expect![[r#"
        t.cat:2:1: error: expected `)`, found `let`
          |
        2 | let b = a
          | ^^^
          = note: to close the `(` at 1:9
    "#]],
    );
    check_error(
        "let a = [po\n",
        expect![[r#"
        t.cat:2:1: error: expected `]`, found end of file
          |
        2 | 
          | ^
          = note: to close the `[` at 1:9
    "#]],
    );
    check_error(
        "let a = po |\n",
        expect![[r#"
        t.cat:2:1: error: expected an expression, found end of file
          |
        2 | 
          | ^
    "#]],
    );
    check_error(
        "let a = po^rf\n",
        expect![[r#"
        t.cat:1:12: error: expected `-1` after `^`, found `rf`
          |
        1 | let a = po^rf
          |            ^^
    "#]],
    );
    check_error(
        "let a = match x with 'a -> b || c -> d end\n",
        expect![[r#"
        t.cat:1:33: error: expected a clause `'tag -> e` or `_ -> e`, found `c`
          |
        1 | let a = match x with 'a -> b || c -> d end
          |                                 ^
    "#]],
    );
    check_error(
        "let a = match x with _ -> b || 'c -> d end\n",
        expect![[r#"
        t.cat:1:29: error: expected `end`, found `||`
          |
        1 | let a = match x with _ -> b || 'c -> d end
          |                             ^^
          = note: to close the `match` at 1:9
    "#]],
    );
    check_error(
        "let a = match s with {} -> b || x -> d end\n",
        expect![[r#"
        t.cat:1:35: error: expected `++`, found `->`
          |
        1 | let a = match s with {} -> b || x -> d end
          |                                   ^^
    "#]],
    );
    check_error(
        "let a = if x then b else c\n",
        expect![[r#"
        t.cat:1:14: error: expected `=`, `subset` or `in`, found `then`
          |
        1 | let a = if x then b else c
          |              ^^^^
    "#]],
    );
}

/// What herd7's table refuses: the operators of the non-associating level do not chain,
/// and `~` may not follow a postfix `*`.
#[test]
fn errors_herd7s_precedence_table_makes() {
    check_error(
        "let a = ~po*\n",
        expect![[r#"
        t.cat:1:12: error: unexpected `*` after a complement `~e`
          |
        1 | let a = ~po*
          |            ^
          = note: herd7's grammar puts `~`, the product `S * T` and the postfix `*`, `+` and `?` on one level, whose operators do not chain: add parentheses, such as `(~r)*` or `~(r*)`
    "#]],
    );
    check_error(
        "let a = R * W * M\n",
        expect![[r#"
        t.cat:1:15: error: unexpected `*` after a product `S * T`
          |
        1 | let a = R * W * M
          |               ^
          = note: herd7's grammar puts `~`, the product `S * T` and the postfix `*`, `+` and `?` on one level, whose operators do not chain: add parentheses, such as `(S * T)+`
    "#]],
    );
    check_error(
        "let a = R * W+\n",
        expect![[r#"
        t.cat:1:14: error: unexpected `+` after a product `S * T`
          |
        1 | let a = R * W+
          |              ^
          = note: herd7's grammar puts `~`, the product `S * T` and the postfix `*`, `+` and `?` on one level, whose operators do not chain: add parentheses, such as `(S * T)+`
    "#]],
    );
    check_error(
        "let a = po * ~rf\n",
        expect![[r#"
        t.cat:1:14: error: unexpected `~` after `*`
          |
        1 | let a = po * ~rf
          |              ^
          = note: herd7 reads `*` and `~` as a product whose right side may not be a complement: write `r * (~s)` for the product, or `(r*)` for the closure before a check such as `~empty`
    "#]],
    );
    check_error(
        "let a = po*\n~empty a\n",
        expect![[r#"
        t.cat:2:1: error: unexpected `~` after `*`
          |
        2 | ~empty a
          | ^
          = note: herd7 reads `*` and `~` as a product whose right side may not be a complement: write `r * (~s)` for the product, or `(r*)` for the closure before a check such as `~empty`
    "#]],
    );
}

/// The expressions of a tree, outermost first, each as the text its span covers.
fn spans_of(e: &Exp, text: &str, out: &mut Vec<String>) {
    let s = e.span();
    out.push(text[s.start as usize..s.end as usize].to_string());
    let mut sub = |e: &Exp| spans_of(e, text, out);
    match e {
        Exp::Empty(_) | Exp::Universe(_) | Exp::Tag(..) | Exp::Var(..) => {}
        Exp::Op1(_, e, _) | Exp::Fun(_, e, _) => sub(e),
        Exp::Op(_, es, _) | Exp::Tuple(es, _) | Exp::Set(es, _) => es.iter().for_each(sub),
        Exp::App(f, a, _) | Exp::Try(f, a, _) => {
            sub(f);
            sub(a);
        }
        Exp::Let(bs, e, _) | Exp::LetRec(bs, e, _) => {
            bs.iter().for_each(|b| sub(&b.exp));
            sub(e);
        }
        Exp::Match {
            exp,
            clauses,
            default,
            ..
        } => {
            sub(exp);
            clauses.iter().for_each(|(_, e)| sub(e));
            default.iter().for_each(|e| sub(e));
        }
        Exp::MatchSet {
            exp,
            empty,
            nonempty,
            ..
        } => {
            sub(exp);
            sub(empty);
            sub(nonempty);
        }
        Exp::If(_, a, b, _) => {
            sub(a);
            sub(b);
        }
    }
}

#[test]
fn spans_cover_the_text_of_each_node() {
    let text = "\"spans\"\nlet f(x) = [x] ; po | (rf ; x)^-1\nacyclic f(W) * R as t\n\
                let g = match s with {} -> 0 || e ++ r -> r end in\n";
    let m = parse(text, 7).unwrap_or_else(|e| panic!("{}", e.render_in("t.cat", text)));
    let mut out = String::new();
    for i in &m.instrs {
        let (span, exps): (Span, Vec<&Exp>) = match i {
            Instr::Let { bindings, span } => (*span, bindings.iter().map(|b| &b.exp).collect()),
            Instr::Check { exp, span, .. } => (*span, vec![exp]),
            _ => unreachable!("the model has only lets and checks"),
        };
        assert_eq!(span.file, 7);
        writeln!(out, "{}", &text[span.start as usize..span.end as usize]).unwrap();
        for e in exps {
            let mut spans = Vec::new();
            spans_of(e, text, &mut spans);
            for s in spans {
                writeln!(out, "  {s}").unwrap();
            }
        }
    }
    expect![[r#"
        let f(x) = [x] ; po | (rf ; x)^-1
          f(x) = [x] ; po | (rf ; x)^-1
          [x] ; po | (rf ; x)^-1
          [x] ; po
          [x]
          x
          po
          (rf ; x)^-1
          rf ; x
          rf
          x
        acyclic f(W) * R as t
          f(W) * R
          f(W)
          f
          W
          R
        let g = match s with {} -> 0 || e ++ r -> r end in
          match s with {} -> 0 || e ++ r -> r end
          s
          0
          r
    "#]]
    .assert_eq(&out);
}

// ---- Limits and robustness ----

/// Parses on a thread with a 2 MB stack, the size of `hazmat`'s worker threads, so that a
/// recursion too deep for them fails here too; the result as a short string.
fn parse_on_small_stack(text: String) -> Result<(), (ErrorKind, String)> {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            parse(&text, 0)
                .map(drop)
                .map_err(|e: CatError| (e.kind, e.to_string()))
        })
        .expect("the thread starts")
        .join()
        .expect("the parser does not panic")
}

/// Nesting of every kind, far deeper than allowed, is an error, not a stack overflow;
/// nesting within the limits parses.
#[test]
fn deep_nesting_is_an_error() {
    let n = 100_000;
    let deep: Vec<(&str, String)> = vec![
        (
            "parentheses",
            format!("let a = {}po{}", "(".repeat(n), ")".repeat(n)),
        ),
        (
            "brackets",
            format!("let a = {}po{}", "[".repeat(n), "]".repeat(n)),
        ),
        (
            "braces",
            format!("let a = {}po{}", "{".repeat(n), "}".repeat(n)),
        ),
        ("complements", format!("let a = {}po", "~".repeat(n))),
        ("postfix operators", format!("let a = po{}", "?".repeat(n))),
        ("inverses", format!("let a = po{}", "^-1".repeat(n))),
        ("applications", format!("let a = f{}", " x".repeat(n))),
        ("differences", format!("let a = po{}", " \\ po".repeat(n))),
        ("additions", format!("let a = po{}", " ++ po".repeat(n))),
        ("lets", format!("let a = {}po", "let x = po in ".repeat(n))),
        ("functions", format!("let a = {}po", "fun x -> ".repeat(n))),
        (
            "ifs",
            format!("let a = {}po", "if \"v\" then po else ".repeat(n)),
        ),
        ("variants", format!("if {}\"v\" end", "not ".repeat(n))),
        (
            "variant disjunctions",
            format!("if \"v\"{} end", " || \"v\"".repeat(n)),
        ),
        (
            "procedures",
            format!("{}{}", "forall x in s do ".repeat(n), "end ".repeat(n)),
        ),
    ];
    for (what, text) in deep {
        match parse_on_small_stack(text) {
            Err((ErrorKind::Limit, _)) => {}
            other => panic!("{what}: {other:?}"),
        }
    }
    let fine: Vec<(&str, String)> = vec![
        (
            "parentheses",
            format!("let a = {}po{}", "(".repeat(90), ")".repeat(90)),
        ),
        (
            "postfix operators",
            format!("let a = po{}", "?".repeat(150)),
        ),
        ("long unions", format!("let a = po{}", " | po".repeat(n))),
        ("long sequences", format!("let a = po{}", " ; po".repeat(n))),
        ("many instructions", "let a = po\n".repeat(n)),
    ];
    for (what, text) in fine {
        if let Err(e) = parse_on_small_stack(text) {
            panic!("{what}: {e:?}");
        }
    }
}

/// The texts the property tests edit: the handwritten models, and herd7's and the
/// kernel's when they are present.
fn corpus() -> Vec<String> {
    let mut out = vec![
        include_str!("cat/precedence.cat").to_string(),
        include_str!("cat/constructs.cat").to_string(),
    ];
    for dir in model_dirs() {
        for path in files_with(&dir, &["cat", "bell"]) {
            out.push(read(&path));
        }
    }
    out
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 2000,
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        ..ProptestConfig::default()
    }
}

/// An edit of a text: a range of it removed, duplicated, or replaced by one of the
/// language's tokens.
#[derive(Clone, Debug)]
enum Edit {
    Remove(usize, usize),
    Duplicate(usize, usize),
    Insert(usize, &'static str),
}

const TOKENS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "(*",
    "*)",
    "\"",
    "'",
    "|",
    "||",
    "&",
    "&&",
    "*",
    "+",
    "++",
    "?",
    "^",
    "-1",
    "^-1",
    "~",
    "\\",
    ";",
    ",",
    "=",
    "->",
    "0",
    "_",
    "let",
    "rec",
    "and",
    "in",
    "fun",
    "match",
    "with",
    "end",
    "if",
    "then",
    "else",
    "procedure",
    "call",
    "forall",
    "do",
    "from",
    "try",
    "show",
    "as",
    "acyclic",
    "empty",
    "flag",
    "enum",
    "instructions",
    "include",
    "\"v\"",
    "'t",
    "not",
    "variant",
    "x",
    "1",
    "-",
    "é",
    "\n",
    "//",
    "#",
];

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 0usize..40).prop_map(|(a, n)| Edit::Remove(a, n)),
        (any::<usize>(), 0usize..40).prop_map(|(a, n)| Edit::Duplicate(a, n)),
        (any::<usize>(), prop::sample::select(TOKENS)).prop_map(|(a, t)| Edit::Insert(a, t)),
    ]
}

/// Applies an edit, at places taken modulo the text's length and moved back to character
/// boundaries.
fn apply(text: &str, e: &Edit) -> String {
    let at = |i: usize| {
        let mut i = i % (text.len() + 1);
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    match *e {
        Edit::Remove(a, n) => {
            let a = at(a);
            let b = at((a + n).min(text.len()));
            let b = b.max(a);
            format!("{}{}", &text[..a], &text[b..])
        }
        Edit::Duplicate(a, n) => {
            let a = at(a);
            let b = at((a + n).min(text.len())).max(a);
            format!("{}{}{}", &text[..b], &text[a..b], &text[b..])
        }
        Edit::Insert(a, t) => {
            let a = at(a);
            format!("{} {t} {}", &text[..a], &text[a..])
        }
    }
}

proptest! {
    #![proptest_config(config())]

    /// Random bytes give a tree or an error, never a panic.
    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse(&text, 0);
        let _ = parse_config(&text, 0);
    }

    /// Random edits of real models give a tree or an error with a place in the text,
    /// never a panic.
    #[test]
    fn edited_models_never_panic(
        pick in any::<usize>(),
        edits in prop::collection::vec(edit(), 1..4),
    ) {
        let texts = corpus();
        let mut text = texts[pick % texts.len()].clone();
        for e in &edits {
            text = apply(&text, e);
        }
        if let Err(e) = parse(&text, 0) {
            let at = e.at.expect("a syntax error has a place");
            prop_assert!(at.span.start <= at.span.end);
            prop_assert!(at.span.end as usize <= text.len());
            prop_assert!(e.render_in("t.cat", &text).starts_with("t.cat:"));
        }
    }
}

// ---- Loading a model with its includes ----

/// The files of a loaded model and what each include name loads.
fn loaded_summary(loaded: &Loaded, names: &[&str]) -> String {
    let mut out = String::new();
    for (i, f) in loaded.files().iter() {
        writeln!(out, "{i}: {} ({:?})", f.name, f.origin).unwrap();
    }
    for n in names {
        let file = loaded.include(n).map(|f| f.to_string());
        writeln!(
            out,
            "include {n:?} -> {}",
            file.as_deref().unwrap_or("none")
        )
        .unwrap();
    }
    out
}

/// herd7's order: the current directory, the `-I` directories in order, `$HERDLIB`, then
/// the built-in files; never the including file's own directory.
#[test]
fn includes_are_looked_up_in_herd7s_order() {
    let fs = InMemory::new()
        .with("a.cat", "\"cwd a\"")
        .with("inc1/a.cat", "\"inc1 a\"")
        .with("inc2/b.cat", "\"inc2 b\"")
        .with("lib/b.cat", "\"herdlib b\"")
        .with("inc1/c.cat", "\"inc1 c\"")
        .with("inc2/c.cat", "\"inc2 c\"")
        .with("lib/d.cat", "\"herdlib d\" include \"a.cat\"");
    let library = Library::new()
        .include("inc1")
        .include("inc2")
        .herdlib(Some(PathBuf::from("lib")));
    let mut loaded = Loaded::new();
    let root = loaded
        .load_text(
            &library,
            &fs,
            "main.cat",
            "include \"a.cat\" include \"b.cat\" include \"c.cat\" include \"d.cat\"",
        )
        .unwrap_or_else(|e| panic!("{}", e.render(loaded.files())));
    assert_eq!(root, 0);
    expect![[r#"
        0: main.cat (Text)
        1: ./a.cat (Path("./a.cat"))
        2: inc2/b.cat (Path("inc2/b.cat"))
        3: inc1/c.cat (Path("inc1/c.cat"))
        4: lib/d.cat (Path("lib/d.cat"))
        include "a.cat" -> 1
        include "b.cat" -> 2
        include "c.cat" -> 3
        include "d.cat" -> 4
    "#]]
    .assert_eq(&loaded_summary(
        &loaded,
        &["a.cat", "b.cat", "c.cat", "d.cat"],
    ));

    // The including file's directory is not searched.
    let fs = InMemory::new()
        .with("sub/x.cat", "include \"y.cat\"")
        .with("sub/y.cat", "\"y\"");
    let mut loaded = Loaded::new();
    let e = loaded
        .load_text(&Library::new(), &fs, "main.cat", "include \"./sub/x.cat\"")
        .expect_err("y.cat is only beside x.cat");
    expect![[r#"
        ./sub/x.cat:1:1: error: cannot find the file `y.cat`
          |
        1 | include "y.cat"
          | ^^^^^^^^^^^^^^^
          = note: looked in `.`, the files built into hazmat
    "#]]
    .assert_eq(&e.render(loaded.files()));
}

#[test]
fn a_file_included_twice_is_read_once() {
    let fs = InMemory::new()
        .with("b.cat", "include \"d.cat\"")
        .with("c.cat", "include \"d.cat\"")
        .with("d.cat", "let d = po");
    let mut loaded = Loaded::new();
    let library = Library::new();
    loaded
        .load_text(
            &library,
            &fs,
            "a.cat",
            "include \"b.cat\" include \"c.cat\"",
        )
        .unwrap_or_else(|e| panic!("{}", e.render(loaded.files())));
    let again = loaded
        .load(&library, &fs, "./d.cat")
        .unwrap_or_else(|e| panic!("{}", e.render(loaded.files())));
    assert_eq!(loaded.include("d.cat"), Some(again));
    expect![[r#"
        0: a.cat (Text)
        1: ./b.cat (Path("./b.cat"))
        2: ./d.cat (Path("./d.cat"))
        3: ./c.cat (Path("./c.cat"))
        include "b.cat" -> 1
        include "c.cat" -> 3
        include "d.cat" -> 2
    "#]]
    .assert_eq(&loaded_summary(&loaded, &["b.cat", "c.cat", "d.cat"]));
}

#[test]
fn errors_in_loading() {
    // A file found nowhere, named by an include.
    let fs = InMemory::new().with("a.cat", "\"a\"\nlet x = po\ninclude \"missing.cat\"\n");
    let library = Library::new()
        .include("models")
        .include("+arm")
        .herdlib(Some(PathBuf::from("herdlib")));
    let mut loaded = Loaded::new();
    let e = loaded
        .load(&library, &fs, "a.cat")
        .expect_err("missing.cat is missing");
    assert_eq!(e.kind, ErrorKind::NotFound);
    expect![[r#"
        ./a.cat:3:1: error: cannot find the file `missing.cat`
          |
        3 | include "missing.cat"
          | ^^^^^^^^^^^^^^^^^^^^^
          = note: looked in `.`, `models`, the files built into hazmat under `arm/`, `herdlib` ($HERDLIB), the files built into hazmat
    "#]].assert_eq(&e.render(loaded.files()));

    // The model itself found nowhere.
    let mut loaded = Loaded::new();
    let e = loaded
        .load(&Library::new(), &fs, "model.cat")
        .expect_err("no model.cat");
    expect![[r#"
        error: cannot find the file `model.cat`
          = note: looked in `.`, the files built into hazmat
    "#]]
    .assert_eq(&e.render(loaded.files()));

    // A cycle through two files, and a file that includes itself.
    let fs = InMemory::new()
        .with("a.cat", "\"a\"\ninclude \"b.cat\"\n")
        .with("b.cat", "\"b\"\nlet x = po\ninclude \"a.cat\"\n")
        .with("c.cat", "if \"v\" include \"c.cat\" end\n");
    let mut loaded = Loaded::new();
    let e = loaded
        .load(&Library::new(), &fs, "a.cat")
        .expect_err("a cycle");
    assert_eq!(e.kind, ErrorKind::IncludeCycle);
    expect![[r#"
        ./b.cat:3:1: error: include cycle: `./a.cat` includes `./b.cat` includes `./a.cat`
          |
        3 | include "a.cat"
          | ^^^^^^^^^^^^^^^
          = note: herd7 would keep including them until it ran out of stack
    "#]]
    .assert_eq(&e.render(loaded.files()));
    let mut loaded = Loaded::new();
    let e = loaded
        .load(&Library::new(), &fs, "c.cat")
        .expect_err("a cycle");
    expect![[r#"
        ./c.cat:1:8: error: `./c.cat` includes itself
          |
        1 | if "v" include "c.cat" end
          |        ^^^^^^^^^^^^^^^
          = note: herd7 would keep including them until it ran out of stack
    "#]]
    .assert_eq(&e.render(loaded.files()));

    // A syntax error in an included file is reported in that file.
    let fs = InMemory::new()
        .with("a.cat", "include \"b.cat\"\n")
        .with("b.cat", "let x = (po\n");
    let mut loaded = Loaded::new();
    let e = loaded
        .load(&Library::new(), &fs, "a.cat")
        .expect_err("b.cat is broken");
    expect![[r#"
        ./b.cat:2:1: error: expected `)`, found end of file
          |
        2 | 
          | ^
          = note: to close the `(` at 1:9
    "#]]
    .assert_eq(&e.render(loaded.files()));
}

// ---- Configuration files ----

#[test]
fn configuration_files() {
    let text = "# A configuration of my own.\n\
                model my.cat\n\
                bell=my.bell\n\
                macros = my.def\n\
                \n\
                variant one,two\n\
                variant three\t \r\n\
                cat other.cat\n\
                include models\n\
                graph columns\n\
                edgeattr hb,color,indigo\n\
                showevents noregs # not a comment\n";
    let config = parse_config(text, 3).unwrap_or_else(|e| panic!("{}", e.render_in("t.cfg", text)));
    let mut out = String::new();
    for s in &config {
        assert_eq!(s.span.file, 3);
        let written = &text[s.span.start as usize..s.span.end as usize];
        writeln!(out, "{} = {:?}   [{written}]", s.key, s.value).unwrap();
    }
    expect![[r#"
        model = "my.cat"   [model my.cat]
        bell = "my.bell"   [bell=my.bell]
        macros = "my.def"   [macros = my.def]
        variant = "one,two"   [variant one,two]
        variant = "three"   [variant three]
        cat = "other.cat"   [cat other.cat]
        include = "models"   [include models]
        graph = "columns"   [graph columns]
        edgeattr = "hb,color,indigo"   [edgeattr hb,color,indigo]
        showevents = "noregs # not a comment"   [showevents noregs # not a comment]
    "#]]
    .assert_eq(&out);
}

#[test]
fn errors_in_configuration_files() {
    let check = |text: &str, expect: Expect| match parse_config(text, 0) {
        Ok(c) => panic!("parsed: {c:?}"),
        Err(e) => {
            assert_eq!(e.kind, ErrorKind::Config);
            expect.assert_eq(&e.render_in("t.cfg", text));
        }
    };
    check(
        "model\n",
        expect![[r#"
        t.cfg:1:6: error: expected a value after the key `model`
          |
        1 | model
          |      ^
          = note: a line is `key value` or `key = value`
    "#]],
    );
    check(
        "model =  \n",
        expect![[r#"
        t.cfg:1:7: error: expected a value after the key `model`
          |
        1 | model =  
          |       ^
          = note: a line is `key value` or `key = value`
    "#]],
    );
    check(
        " model x.cat\n",
        expect![[r#"
        t.cfg:1:1: error: expected a key of letters at the start of the line
          |
        1 |  model x.cat
          | ^
          = note: herd7 reads no blanks before a key or a `#` comment
    "#]],
    );
    check(
        "model x.cat\n  # indented\n",
        expect![[r#"
        t.cfg:2:1: error: expected a key of letters at the start of the line
          |
        2 |   # indented
          | ^
          = note: herd7 reads no blanks before a key or a `#` comment
    "#]],
    );
    check(
        "model-x y\n",
        expect![[r#"
        t.cfg:1:6: error: expected a value after the key `model`
          |
        1 | model-x y
          |      ^
          = note: a line is `key value` or `key = value`
    "#]],
    );
    check(
        "model x.cat\n# last line",
        expect![[r#"
        t.cfg:2:1: error: expected a newline after the comment
          |
        2 | # last line
          | ^^^^^^^^^^^
          = note: herd7 reads a comment up to its newline, which the last line lacks
    "#]],
    );
    check(
        "model x.cat\n  \t",
        expect![[r#"
            t.cfg:2:1: error: expected a newline after the blanks
              |
            2 |   	
              | ^^^
              = note: herd7 reads a blank line up to its newline, which the last line lacks
        "#]],
    );
}

#[test]
fn every_configuration_file_of_herd7_and_the_kernel_parses() {
    let mut failures = Vec::new();
    for dir in model_dirs() {
        for path in files_with(&dir, &["cfg"]) {
            let text = read(&path);
            if let Err(e) = parse_config(&text, 0) {
                failures.push(e.render_in(&path.display().to_string(), &text));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The kernel's configuration names the model as herd7 reads it, and the model loads with
/// the files it includes: `lock.cat` from the kernel's folder, given as an `-I` directory,
/// and `cross.cat` from herd7's library, given as `$HERDLIB`.
#[test]
fn the_kernels_model_loads_as_its_configuration_names_it() {
    let Some(dir) = model_dirs()
        .into_iter()
        .find(|d| d.join("linux-kernel.cfg").is_file())
    else {
        eprintln!("the kernel's model is not in the shared folder; nothing to check");
        return;
    };
    let mut config = Settings::default();
    config
        .read_config(
            &dir.join("linux-kernel.cfg").display().to_string(),
            &Places::default(),
            &Disk,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(config.model.as_deref(), Some("linux-kernel.cat"));
    assert_eq!(config.bell.as_deref(), Some("linux-kernel.bell"));
    assert_eq!(config.macros.as_deref(), Some("linux-kernel.def"));
    assert_eq!(config.variants, ["lkmmv2"]);

    let Some(herdlib) = model_dirs()
        .into_iter()
        .find(|d| d.join("cross.cat").is_file())
    else {
        eprintln!("herd7's library is not in the shared folder; nothing to check");
        return;
    };
    let library = Library::new().include(&dir).herdlib(Some(herdlib.clone()));
    let mut loaded = Loaded::new();
    let bell = loaded
        .load(&library, &Disk, "linux-kernel.bell")
        .unwrap_or_else(|e| panic!("{}", e.render(loaded.files())));
    let cat = loaded
        .load(&library, &Disk, "linux-kernel.cat")
        .unwrap_or_else(|e| panic!("{}", e.render(loaded.files())));
    let lock = loaded
        .include("lock.cat")
        .expect("the model includes lock.cat");
    assert_ne!(bell, cat);
    assert!(loaded.model(lock).is_some());
    let cross = loaded
        .include("cross.cat")
        .expect("lock.cat includes cross.cat");
    assert_eq!(
        loaded.files().get(cross).map(|f| f.name.clone()),
        Some(herdlib.join("cross.cat").display().to_string())
    );
    let lock_file = loaded.files().get(lock).expect("the file is in the table");
    assert_eq!(
        std::fs::canonicalize(match &lock_file.origin {
            hazmat_checker::models::cat::source::Origin::Path(p) => p.clone(),
            o => panic!("lock.cat comes from {o:?}"),
        })
        .ok(),
        std::fs::canonicalize(dir.join("lock.cat")).ok()
    );
}
