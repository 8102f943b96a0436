//! Property tests: generated trees round-trip through the printer, and no input, however
//! mangled, makes the parser panic.

mod common;

use hazmat_litmus::ast::*;
use hazmat_litmus::{parse, print};
use proptest::prelude::*;

const S: Span = Span::DUMMY;

/// Words the generated names must avoid: the words herd7 reserves in thread code, in the
/// init block and the condition, and the words that end its threads wherever they stand.
const RESERVED: &[&str] = &[
    "if", "else", "while", "const", "char", "int", "long", "void", "lock", "mtx_t", "true",
    "false", "not", "and", "with", "final", "tag", "oa", "nop", "cases", "struct", "unlock",
    "atomic", "exists", "forall", "filter",
];

/// Words that end herd7's threads wherever they stand, even in a C comment.
const TRAILER_WORDS: &[&str] = &[
    "exists",
    "forall",
    "final",
    "locations",
    "filter",
    "observed",
    "Observed",
    "cases",
];

fn name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9]{0,4}".prop_filter("reserved word", |s| !RESERVED.contains(&s.as_str()))
}

fn ident() -> impl Strategy<Value = Ident> {
    name().prop_map(|n| Ident::new(n, S))
}

/// A 32-bit integer, herd7's range.
fn int() -> impl Strategy<Value = i64> {
    any::<i32>().prop_map(i64::from)
}

/// A type of thread code, with at least `min_pointers` stars.
fn ty_with(min_pointers: u32) -> impl Strategy<Value = Type> {
    (
        any::<bool>(),
        prop::sample::select(vec![
            "int",
            "char",
            "atomic_t",
            "spinlock_t",
            "struct srcu_struct",
            "void",
        ]),
        min_pointers..3,
    )
        .prop_map(|(volatile, base, pointers)| Type {
            // herd7 knows `void *` and `void * volatile`, neither `void` nor `volatile void`.
            volatile: volatile && base != "void",
            base: base.to_string(),
            pointers: if base == "void" {
                pointers.max(1)
            } else {
                pointers
            },
            span: S,
        })
}

fn ty() -> impl Strategy<Value = Type> {
    ty_with(0)
}

/// A type of the init block: one word, perhaps a pointer.
fn init_ty() -> impl Strategy<Value = Type> {
    (
        prop::sample::select(vec!["int", "char", "long", "atomic_t", "u32"]),
        0u32..2,
    )
        .prop_map(|(base, pointers)| Type {
            volatile: false,
            base: base.to_string(),
            pointers,
            span: S,
        })
}

fn location() -> impl Strategy<Value = Location> {
    prop_oneof![
        ident().prop_map(Location::Global),
        (0u32..4, ident()).prop_map(|(thread, reg)| Location::Register {
            thread,
            reg,
            span: S
        }),
    ]
}

fn expr() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        int().prop_map(ExprKind::Int),
        ident().prop_map(ExprKind::Ident),
    ]
    .prop_map(|kind| Expr { kind, span: S });
    leaf.prop_recursive(5, 32, 3, |inner| {
        let binary = prop::sample::select(vec![
            BinaryOp::Mul,
            BinaryOp::Div,
            BinaryOp::Add,
            BinaryOp::Sub,
            BinaryOp::Lt,
            BinaryOp::Le,
            BinaryOp::Gt,
            BinaryOp::Ge,
            BinaryOp::Eq,
            BinaryOp::Ne,
            BinaryOp::BitAnd,
            BinaryOp::BitXor,
            BinaryOp::BitOr,
        ]);
        prop_oneof![
            inner.clone().prop_map(|e| ExprKind::Deref(Box::new(e))),
            (binary, inner.clone(), inner.clone()).prop_map(|(op, l, r)| ExprKind::Binary(
                op,
                Box::new(l),
                Box::new(r)
            )),
            (ident(), prop::collection::vec(inner.clone(), 0..3))
                .prop_map(|(func, args)| ExprKind::Call { func, args }),
            (ty(), inner.clone()).prop_map(|(t, e)| ExprKind::Cast(t, Box::new(e))),
            (
                prop::sample::select(vec![
                    ("__load", 1, false),
                    ("__xchg", 2, false),
                    ("__cmpxchg", 3, false),
                    ("__atomic_op_return", 2, true),
                    ("__atomic_fetch_op", 2, true),
                    ("__atomic_add_unless", 3, false),
                    ("__srcu", 1, false),
                ]),
                prop::collection::vec(annotation(), 1..3),
                prop::sample::select(vec![
                    AtomicOp::Add,
                    AtomicOp::Sub,
                    AtomicOp::And,
                    AtomicOp::Or,
                    AtomicOp::Xor,
                    AtomicOp::AndNot,
                ]),
                prop::collection::vec(inner, 3),
            )
                .prop_map(|((name, n, takes_op), annotations, op, mut args)| {
                    args.truncate(n);
                    ExprKind::Instruction {
                        func: Ident::new(name, S),
                        annotations,
                        op: takes_op.then_some(op),
                        args,
                    }
                }),
        ]
        .prop_map(|kind| Expr { kind, span: S })
    })
}

/// An annotation of an internal instruction: `mb`, `rcu-lock`, `after-unlock-lock`.
fn annotation() -> impl Strategy<Value = Ident> {
    prop::sample::select(vec!["mb", "once", "rcu-lock", "after-unlock-lock", "lock"])
        .prop_map(|a| Ident::new(a, S))
}

/// A `regions:` section: a few locations, each in one or two regions.
fn regions() -> impl Strategy<Value = Option<Vec<Region>>> {
    prop::option::of(prop::collection::vec(
        (
            ident(),
            prop::collection::vec(prop::sample::select(vec!["PROP", "A", "B"]), 1..3),
        )
            .prop_map(|(loc, names)| Region {
                loc,
                regions: names.into_iter().map(|n| Ident::new(n, S)).collect(),
                span: S,
            }),
        0..3,
    ))
}

/// What an assignment may write: a register, or a location through a pointer.
fn lvalue() -> impl Strategy<Value = Expr> {
    prop_oneof![
        ident().prop_map(ExprKind::Ident),
        expr().prop_map(|e| ExprKind::Deref(Box::new(e))),
    ]
    .prop_map(|kind| Expr { kind, span: S })
}

fn stmt(kind: StmtKind) -> Stmt {
    Stmt { kind, span: S }
}

/// Statements that are not compound, so that no `else` can dangle; herd7 takes them as
/// the branch of an `if`, so a declaration among them has a value.
fn simple_stmt() -> impl Strategy<Value = Stmt> {
    prop_oneof![
        (ty(), ident(), expr()).prop_map(|(ty, name, init)| StmtKind::Decl {
            ty,
            name,
            init: Some(init),
        }),
        (lvalue(), expr()).prop_map(|(lhs, rhs)| StmtKind::Assign { lhs, rhs }),
        expr().prop_map(StmtKind::Expr),
        (
            prop::sample::select(vec![
                ("__store", 2, false),
                ("__fence", 0, false),
                ("__atomic_op", 2, true),
                ("__srcu", 2, false),
            ]),
            prop::collection::vec(annotation(), 0..3),
            prop::collection::vec(expr(), 2),
        )
            .prop_map(|((name, n, takes_op), mut annotations, mut args)| {
                // Only `__atomic_op` may go without braces.
                if annotations.is_empty() && name != "__atomic_op" {
                    annotations.push(Ident::new("mb", S));
                }
                args.truncate(n);
                StmtKind::Expr(Expr {
                    kind: ExprKind::Instruction {
                        func: Ident::new(name, S),
                        annotations,
                        op: takes_op.then_some(AtomicOp::AndNot),
                        args,
                    },
                    span: S,
                })
            }),
    ]
    .prop_map(stmt)
}

/// What a block or a thread's body holds: a statement, or a declaration without a value.
fn item() -> impl Strategy<Value = Stmt> {
    prop_oneof![
        4 => any_stmt(),
        1 => (ty(), ident()).prop_map(|(ty, name)| stmt(StmtKind::Decl { ty, name, init: None })),
    ]
}

fn any_stmt() -> impl Strategy<Value = Stmt> {
    simple_stmt().prop_recursive(3, 24, 4, |inner| {
        let block =
            prop::collection::vec(inner.clone(), 1..4).prop_map(|b| stmt(StmtKind::Block(b)));
        // A branch is a block or a simple statement.
        let branch = prop_oneof![block.clone(), simple_stmt()];
        prop_oneof![
            block,
            (expr(), branch.clone(), prop::option::of(branch.clone())).prop_map(
                |(cond, then, els)| stmt(StmtKind::If {
                    cond,
                    then: Box::new(then),
                    els: els.map(Box::new),
                })
            ),
            // `else if` chains.
            (expr(), branch.clone(), expr(), branch.clone()).prop_map(|(c1, t1, c2, t2)| {
                let inner_if = stmt(StmtKind::If {
                    cond: c2,
                    then: Box::new(t2),
                    els: None,
                });
                stmt(StmtKind::If {
                    cond: c1,
                    then: Box::new(t1),
                    els: Some(Box::new(inner_if)),
                })
            }),
            (expr(), branch).prop_map(|(cond, body)| stmt(StmtKind::While {
                cond,
                body: Box::new(body)
            })),
        ]
    })
}

fn prop_tree() -> impl Strategy<Value = Prop> {
    let value = prop_oneof![
        int().prop_map(Value::Int),
        ident().prop_map(Value::Addr),
        (0u32..4, ident()).prop_map(|(thread, reg)| Value::Register {
            thread,
            reg,
            span: S
        }),
    ];
    let atom = (location(), prop::bool::ANY, value).prop_map(|(loc, eq, value)| {
        // herd7 compares with a register only by `=`.
        let eq = eq || matches!(value, Value::Register { .. });
        PropKind::Atom(Atom {
            loc,
            op: if eq { CmpOp::Eq } else { CmpOp::Ne },
            value,
            span: S,
        })
    });
    let leaf = prop_oneof![Just(PropKind::True), Just(PropKind::False), atom]
        .prop_map(|kind| Prop { kind, span: S });
    leaf.prop_recursive(5, 32, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|p| PropKind::Not(Box::new(p))),
            (inner.clone(), inner.clone())
                .prop_map(|(l, r)| PropKind::And(Box::new(l), Box::new(r))),
            (inner.clone(), inner.clone())
                .prop_map(|(l, r)| PropKind::Or(Box::new(l), Box::new(r))),
            (inner.clone(), inner).prop_map(|(l, r)| PropKind::Implies(Box::new(l), Box::new(r))),
        ]
        .prop_map(|kind| Prop { kind, span: S })
    })
}

fn init_item() -> impl Strategy<Value = InitItem> {
    let value = prop_oneof![
        int().prop_map(InitValue::Int),
        ident().prop_map(InitValue::Addr),
        int().prop_map(InitValue::AtomicInit),
    ];
    (
        prop::option::of(init_ty()),
        location(),
        prop::option::of(value),
    )
        .prop_map(|(ty, target, value)| InitItem {
            ty,
            target,
            value,
            span: S,
        })
}

/// A `Result` line, as the comment text that states it and the expectation it gives.
fn result_comment() -> impl Strategy<Value = (String, Expectation)> {
    (
        prop::option::of(prop::sample::select(vec!["sc", "tso", "lkmm"])),
        prop::sample::select(vec![
            Outcome::Never,
            Outcome::Sometimes,
            Outcome::Always,
            Outcome::Deadlock,
        ]),
        any::<bool>(),
    )
        .prop_map(|(model, outcome, race)| {
            let model_text = model.map_or(String::new(), |m| format!("({m})"));
            let race_text = if race { " DATARACE" } else { "" };
            let text = format!(
                "\n * Result{model_text}: {}{race_text}\n ",
                outcome.as_str()
            );
            let expectation = Expectation {
                model: model.map(str::to_string),
                outcome: Some(outcome),
                flags: if race {
                    vec!["DATARACE".to_string()]
                } else {
                    Vec::new()
                },
                span: S,
            };
            (text, expectation)
        })
}

fn comment_text() -> impl Strategy<Value = String> {
    "[a-z0-9 ,.:\n]{0,20}"
}

fn test_tree() -> impl Strategy<Value = Test> {
    let header = (
        "[A-Za-z][A-Za-z0-9+._-]{0,12}",
        prop::option::of("[a-zA-Z0-9 ]{0,12}"),
        prop::collection::vec("[A-Z][a-z]{1,5}=[A-Za-z]{0,8}", 0..3),
        prop::option::of(result_comment()),
        prop::collection::vec(comment_text(), 0..2),
    );
    let threads = prop::collection::vec(
        (
            prop::collection::vec((ty_with(1), ident()), 0..3),
            prop::collection::vec(item(), 1..5),
        ),
        1..3,
    );
    let trailer = (
        prop::option::of(prop::collection::vec(location(), 0..3)),
        prop::option::of(prop_tree()),
        prop::option::of((
            prop::sample::select(vec![
                Quantifier::Exists,
                Quantifier::NotExists,
                Quantifier::Forall,
            ]),
            prop_tree(),
        )),
        prop::collection::vec(comment_text(), 0..2),
    );
    (
        header,
        prop::collection::vec(init_item(), 0..5),
        (threads, regions()),
        trailer,
    )
        .prop_map(
            |(
                (name, doc, info, result, header_comments),
                init,
                (threads, regions),
                (locations, filter, condition, trailer_comments),
            )| {
                let mut comments = Vec::new();
                let mut expectations = Vec::new();
                let mut add = |text: String, place| {
                    comments.push(Comment {
                        text,
                        place,
                        span: S,
                    })
                };
                if let Some((text, e)) = result {
                    add(text, CommentPlace::Header);
                    expectations.push(e);
                }
                for t in header_comments {
                    add(t, CommentPlace::Header);
                }
                // A `(* *)` comment after the threads must follow a trailer clause, where
                // herd7 no longer reads C.
                if locations.is_some() || filter.is_some() || condition.is_some() {
                    for t in trailer_comments {
                        add(t, CommentPlace::Trailer);
                    }
                }
                Test {
                    arch: "C".to_string(),
                    name: Ident::new(name, S),
                    doc,
                    info: info
                        .into_iter()
                        .map(|text| InfoLine { text, span: S })
                        .collect(),
                    comments,
                    expectations,
                    init,
                    threads: threads
                        .into_iter()
                        .enumerate()
                        .map(|(k, (params, body))| Thread {
                            id: k as u32,
                            name_span: S,
                            params: params
                                .into_iter()
                                .map(|(ty, name)| Param { ty, name, span: S })
                                .collect(),
                            body,
                            span: S,
                        })
                        .collect(),
                    regions,
                    locations,
                    filter,
                    condition: condition.map(|(quantifier, prop)| Condition {
                        quantifier,
                        prop,
                        span: S,
                    }),
                    span: S,
                }
            },
        )
}

const SAMPLE: &str = include_str!("../fixtures/every-construct.litmus");

/// Edits that damage a text: delete, duplicate or replace a slice, or insert a token.
#[derive(Debug, Clone)]
enum Mutation {
    Delete(usize, usize),
    Duplicate(usize, usize),
    Insert(usize, &'static str),
    Replace(usize, usize, &'static str),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let token = prop::sample::select(vec![
        "(", ")", "{", "}", "[", "]", ";", ",", "*", "&", "=", "(*", "*)", "/*", "//", "\"", "\n",
        "exists", "if", "else", "while", "P0", "0:", "-", "~", "/\\", "\\/", "=>", "int", "é",
        "\u{0}",
    ]);
    prop_oneof![
        (any::<usize>(), 0usize..20).prop_map(|(a, n)| Mutation::Delete(a, n)),
        (any::<usize>(), 0usize..40).prop_map(|(a, n)| Mutation::Duplicate(a, n)),
        (any::<usize>(), token.clone()).prop_map(|(a, t)| Mutation::Insert(a, t)),
        (any::<usize>(), 0usize..10, token).prop_map(|(a, n, t)| Mutation::Replace(a, n, t)),
    ]
}

/// The nearest character boundary at or before `at`.
fn boundary(s: &str, at: usize) -> usize {
    let mut at = at % (s.len() + 1);
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn apply(s: &str, m: &Mutation) -> String {
    match *m {
        Mutation::Delete(a, n) => {
            let a = boundary(s, a);
            let b = boundary(s, a + n.min(s.len() - a));
            format!("{}{}", &s[..a], &s[b..])
        }
        Mutation::Duplicate(a, n) => {
            let a = boundary(s, a);
            let b = boundary(s, a + n.min(s.len() - a));
            format!("{}{}{}", &s[..b], &s[a..b], &s[b..])
        }
        Mutation::Insert(a, t) => {
            let a = boundary(s, a);
            format!("{}{}{}", &s[..a], t, &s[a..])
        }
        Mutation::Replace(a, n, t) => {
            let a = boundary(s, a);
            let b = boundary(s, a + n.min(s.len() - a));
            format!("{}{}{}", &s[..a], t, &s[b..])
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn generated_trees_round_trip(test in test_tree()) {
        let printed = print(&test);
        let parsed = parse(&printed).map_err(|e| {
            TestCaseError::fail(e.render("generated", &printed))
        })?;
        prop_assert_eq!(&parsed, &test, "printed:\n{}", printed);
        prop_assert_eq!(print(&parsed), printed);
    }

    #[test]
    fn generated_trees_with_c_comments_round_trip(
        mut test in test_tree(),
        comments in prop::collection::vec(
            (
                any::<prop::sample::Index>(),
                "[a-z0-9 ,.:*/]{0,12}"
                    .prop_filter("a trailer word", |t| !TRAILER_WORDS.iter().any(|w| t.contains(w))),
                any::<bool>(),
                any::<bool>(),
            ),
            0..6,
        ),
    ) {
        for (at, text, block, trailing) in comments {
            let body = &mut test.threads[0].body;
            let k = at.index(body.len() + 1);
            // `*/` would end a block comment early; a trailing comment needs a statement
            // before it.
            let text = if block { text.replace("*/", "* /") } else { text.trim_end().to_string() };
            let kind = StmtKind::Comment { text, block, trailing };
            body.insert(k, Stmt { kind, span: S });
        }
        // A comment trails the statement before it, if there is one and it is not a line
        // comment (which runs to the end of the line).
        let body = &mut test.threads[0].body;
        for k in 0..body.len() {
            let after_line_comment = k > 0
                && matches!(body[k - 1].kind, StmtKind::Comment { block: false, .. });
            if let StmtKind::Comment { trailing, .. } = &mut body[k].kind {
                *trailing = *trailing && k > 0 && !after_line_comment;
            }
        }
        let printed = print(&test);
        let parsed = hazmat_litmus::parse_keeping_comments(&printed).map_err(|e| {
            TestCaseError::fail(e.render("generated", &printed))
        })?;
        prop_assert_eq!(&parsed, &test, "printed:\n{}", printed);
    }

    #[test]
    fn mutated_tests_parse_or_fail_cleanly(mutations in prop::collection::vec(mutation(), 1..4)) {
        let mut text = SAMPLE.to_string();
        for m in &mutations {
            text = apply(&text, m);
        }
        match parse(&text) {
            // A mutation can leave a valid test: then it must round-trip too.
            Ok(_) => prop_assert_eq!(common::round_trip("mutated", &text), Ok(())),
            Err(e) => {
                prop_assert!(e.span.start <= text.len());
                prop_assert!(e.line >= 1 && e.col >= 1);
                let rendered = e.render("mutated", &text);
                prop_assert!(rendered.starts_with("mutated:"));
            }
        }
    }

    #[test]
    fn random_bytes_give_an_error(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let text = String::from_utf8_lossy(&bytes);
        let e = parse(&text);
        prop_assert!(e.is_err());
        if let Err(e) = e {
            let _ = e.render("random", &text);
        }
    }

    #[test]
    fn random_text_from_litmus_tokens_gives_no_panic(
        tokens in prop::collection::vec(prop::sample::select(vec![
            "C", "T", "{", "}", "(", ")", "P0", "P1", "int", "*", "x", "r0", "=", "1", ";", ",",
            "exists", "~", "/\\", "\\/", "0:r0", "(*", "*)", "if", "else", "READ_ONCE", "\n", " ",
        ]), 0..80)
    ) {
        let text: String = tokens.concat();
        if let Err(e) = parse(&text) {
            let _ = e.render("tokens", &text);
        }
    }
}
