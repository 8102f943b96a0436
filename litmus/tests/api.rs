//! The public API: the tree the checker reads, spans, expectations, line ends.

use hazmat_litmus::ast::*;
use hazmat_litmus::parse;

const MP: &str = "C MP+test
\"a doc string\"
(*
 * Result: Never
 * Result(sc): Never DATARACE
 *)
{
\tx=1; int *p=&y; 0:r1=0; atomic_t v = ATOMIC_INIT(2);
}

P0(int *x, spinlock_t *l)
{
\tint r0;
\tWRITE_ONCE(*x, 1);
\tif (r0 != 0) r0 = 1; else { *x = -2; }
}

locations [x; 0:r0;]
exists (0:r0=1 /\\ ~x=y \\/ [x]!=1)
";

#[test]
fn parses_the_parts_the_checker_reads() {
    let t = parse(MP).unwrap();
    assert_eq!(t.name.name, "MP+test");
    assert_eq!(t.doc.as_deref(), Some("a doc string"));
    assert_eq!(t.expectations.len(), 2);
    assert_eq!(t.expectations[0].model, None);
    assert_eq!(t.expectations[0].outcome, Some(Outcome::Never));
    assert_eq!(t.expectations[1].model.as_deref(), Some("sc"));
    assert!(t.expectations[1].data_race());
    assert_eq!(t.init.len(), 4);
    assert_eq!(
        t.init[1].value,
        Some(InitValue::Addr(Ident::new("y", Span::DUMMY)))
    );
    assert_eq!(t.init[3].value, Some(InitValue::AtomicInit(2)));
    assert_eq!(t.threads.len(), 1);
    assert_eq!(t.threads[0].params.len(), 2);
    assert_eq!(t.threads[0].body.len(), 3);
    assert_eq!(t.locations.as_ref().map(Vec::len), Some(2));
    let cond = t.condition.unwrap();
    assert_eq!(cond.quantifier, Quantifier::Exists);
    assert!(matches!(cond.prop.kind, PropKind::Or(..)));
    let span = t.threads[0].name_span;
    assert_eq!(span.line_col(MP), (11, 1));
}

#[test]
fn crlf_line_ends_and_a_byte_order_mark_change_nothing() {
    let fixture = include_str!("../fixtures/every-construct.litmus");
    let lf = parse(fixture).unwrap();
    let mut crlf = parse(&fixture.replace('\n', "\r\n")).unwrap();
    // Comments are kept verbatim, line ends included.
    for c in &mut crlf.comments {
        c.text = c.text.replace('\r', "");
    }
    assert!(crlf == lf, "CRLF line ends change the tree");
    let bom = parse(&format!("\u{feff}{fixture}")).unwrap();
    assert!(bom == lf, "a byte-order mark changes the tree");
}

#[test]
fn expectations_carry_model_flags_and_place() {
    let src = "C t\n(* Result: Never DATARACE *)\n(*\n * Result(tso): Always\n *)\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nexists (x=1)\n";
    let t = parse(src).unwrap();
    let lkmm = t.expectation(None).unwrap();
    assert_eq!(lkmm.outcome, Some(Outcome::Never));
    assert!(lkmm.data_race());
    assert_eq!(
        &src[lkmm.span.start..lkmm.span.end],
        "Result: Never DATARACE"
    );
    let tso = t.expectation(Some("tso")).unwrap();
    assert_eq!(tso.outcome, Some(Outcome::Always));
    assert_eq!(tso.span.line_col(src), (4, 4));
    assert!(t.expectation(Some("sc")).is_none());
}

#[test]
fn spans_locate_nodes() {
    let t = parse(MP).unwrap();
    let StmtKind::Expr(call) = &t.threads[0].body[1].kind else {
        panic!("the second statement is WRITE_ONCE");
    };
    assert_eq!(&MP[call.span.start..call.span.end], "WRITE_ONCE(*x, 1)");
    let cond = t.condition.as_ref().unwrap();
    assert_eq!(
        &MP[cond.span.start..cond.span.end],
        "exists (0:r0=1 /\\ ~x=y \\/ [x]!=1)"
    );
    assert!(!t.init[0].span.same_range(t.init[1].span));
    assert_eq!(
        t.init[0].span, t.init[1].span,
        "span equality ignores positions"
    );
}

#[test]
fn rendering_against_another_text_does_not_panic() {
    let e = parse("C t\n{}\nP0(int *x) { WRITE_ONCE(*x, 1) }\n").unwrap_err();
    for other in ["", "é", "C t\n{}\nP0(ééééééééééééééééééé)", "\n\n\n\n\n"] {
        let text = e.render("other.litmus", other);
        assert!(text.starts_with("other.litmus:3:"), "{text}");
    }
}

#[test]
fn result_words_lose_trailing_punctuation() {
    let src = "C t\n(* Result: Never. *)\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nexists (x=1)\n";
    let t = parse(src).unwrap();
    assert_eq!(t.expectations[0].outcome, Some(Outcome::Never));
    assert!(t.expectations[0].flags.is_empty());
}

#[test]
fn display_is_the_canonical_form() {
    let t = parse(MP).unwrap();
    assert_eq!(t.to_string(), hazmat_litmus::print(&t));
}

/// herd7 binds `~` tightest, then `=>` (to the right), then `/\`, then `\/`.
#[test]
fn implication_binds_tighter_than_conjunction() {
    let t = parse(
        "C t\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nexists (x=1 \\/ x=2 /\\ ~x=3 => x=4 => x=5)\n",
    )
    .unwrap();
    let Some(cond) = &t.condition else {
        panic!("the test has a condition");
    };
    let PropKind::Or(_, rhs) = &cond.prop.kind else {
        panic!("`\\/` binds loosest: {:?}", cond.prop);
    };
    let PropKind::And(_, rhs) = &rhs.kind else {
        panic!("then `/\\`: {rhs:?}");
    };
    let PropKind::Implies(lhs, rhs) = &rhs.kind else {
        panic!("then `=>`: {rhs:?}");
    };
    assert!(matches!(lhs.kind, PropKind::Not(_)), "`~` binds tightest");
    assert!(
        matches!(rhs.kind, PropKind::Implies(..)),
        "`=>` goes to the right"
    );
    let printed = hazmat_litmus::print(&t);
    assert!(
        printed.contains("exists (x=1 \\/ (x=2 /\\ (~x=3 => x=4 => x=5)))"),
        "{printed}"
    );
}

/// C11's memory orders stand where herd7's grammar takes them, as names in the tree, and
/// nowhere else.
#[test]
fn memory_orders_stand_only_in_the_order_arguments_of_c11_primitives() {
    let c11 = "C c11\n{}\nP0(atomic_int *x, int *e) {\n\
               int r0 = atomic_load_explicit(x, memory_order_acquire);\n\
               atomic_store_explicit(x, 1, memory_order_release);\n\
               int r1 = atomic_compare_exchange_weak_explicit(x, e, 2, memory_order_acq_rel, \
               memory_order_relaxed);\n\
               atomic_thread_fence(memory_order_seq_cst);\n}\nexists (0:r0=0)\n";
    let t = parse(c11).unwrap();
    let StmtKind::Decl {
        init: Some(load), ..
    } = &t.threads[0].body[0].kind
    else {
        panic!("a declaration");
    };
    let ExprKind::Call { func, args } = &load.kind else {
        panic!("a call");
    };
    assert_eq!(func.name, "atomic_load_explicit");
    assert_eq!(
        args[1].kind,
        ExprKind::Ident(Ident::new("memory_order_acquire", Span::DUMMY))
    );
    // An order anywhere else is a reserved word, and anything else at an order's place is
    // refused.
    let elsewhere = c11.replace(
        "atomic_store_explicit(x, 1,",
        "atomic_store_explicit(x, memory_order_relaxed,",
    );
    assert!(
        parse(&elsewhere)
            .unwrap_err()
            .message
            .contains("reserved word")
    );
    let not_an_order = c11.replace("memory_order_seq_cst", "r0");
    assert!(
        parse(&not_an_order)
            .unwrap_err()
            .message
            .contains("memory order")
    );
}

/// A condition alone, as herd7's `-conds` files give one: herd7's grammar of a condition
/// with nothing after it, each form read as herd7 reads it (the forms herd7 refuses are
/// errors, checked against herd7 7.58 by `checker/tests/herd7_config.rs`).
#[test]
fn a_condition_alone_is_read_as_herd7_reads_one() {
    use hazmat_litmus::{parse_condition, print_condition};
    for (text, printed) in [
        ("", "forall (true)"),
        ("  (* nothing *) ", "forall (true)"),
        ("exists (0:r0=1)", "exists (0:r0=1)"),
        ("~exists 0:r0=1 /\\ x=2", "~exists (0:r0=1 /\\ x=2)"),
        ("not exists (x=1)", "~exists (x=1)"),
        ("forall (x=1 \\/ ~y=0)", "forall (x=1 \\/ ~y=0)"),
        ("final x=1", "exists (x=1)"),
        ("(x=1 \\/ y=1)", "exists (x=1 \\/ y=1)"),
        (
            "observed x=1; y=2; and x=0;",
            "exists ((x=1 /\\ y=2) \\/ x=0)",
        ),
        ("Observed x=1;", "exists (x=1)"),
        ("observed", "exists (true)"),
    ] {
        let c = parse_condition(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        assert_eq!(print_condition(&c), printed, "{text:?}");
    }
    for (text, col) in [
        ("exists (x=1);", 13),
        ("exists (x=1) locations [x]", 14),
        ("(x=1) /\\ (y=1)", 7),
        ("exists (x=1", 12),
        ("observed x=1", 13),
        ("observed ;", 10),
        ("~", 2),
        ("(*", 1),
    ] {
        let e = parse_condition(text).expect_err(text);
        assert_eq!((e.line, e.col), (1, col), "{text:?}: {e}");
    }
}
