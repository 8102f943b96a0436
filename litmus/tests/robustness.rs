//! Hostile inputs: deep nesting is refused cleanly and large inputs are parsed, without
//! overflowing the stack or taking quadratic time (timing itself is the benchmark's job).

use hazmat_litmus::parse;

fn wrap_condition(cond: &str) -> String {
    format!("C deep\n{{}}\nP0(int *x) {{ WRITE_ONCE(*x, 1); }}\nexists {cond}\n")
}

fn wrap_body(body: &str) -> String {
    format!("C deep\n{{}}\nP0(int *x)\n{{\n{body}\n}}\nexists (x=1)\n")
}

fn assert_too_deep(source: &str) {
    let e = parse(source).expect_err("deep nesting must be refused");
    assert_eq!(e.message, "nesting deeper than 200 levels", "{e}");
}

#[test]
fn deeply_nested_conditions_are_refused() {
    let n = 100_000;
    assert_too_deep(&wrap_condition(&format!(
        "{}x=1{}",
        "(".repeat(n),
        ")".repeat(n)
    )));
    assert_too_deep(&wrap_condition(&format!("({}x=1)", "~".repeat(n))));
    assert_too_deep(&wrap_condition(&"x=1 => ".repeat(n)));
}

#[test]
fn deeply_nested_statements_and_expressions_are_refused() {
    let n = 100_000;
    assert_too_deep(&wrap_body(&format!("{}{}", "{".repeat(n), "}".repeat(n))));
    assert_too_deep(&wrap_body(&"if (1) ".repeat(n)));
    assert_too_deep(&wrap_body(&format!(
        "r0 = {}1{};",
        "(".repeat(n),
        ")".repeat(n)
    )));
    assert_too_deep(&wrap_body(&format!(
        "r0 = {}x{};",
        "*(".repeat(n),
        ")".repeat(n)
    )));
    assert_too_deep(&wrap_body(&format!("{}x = 1;", "*".repeat(n))));
    assert_too_deep(&wrap_body(&format!("r0 = {}x;", "(int)".repeat(n))));
    assert_too_deep(&wrap_body(&format!(
        "r0 = {}1{};",
        "f(".repeat(n),
        ")".repeat(n)
    )));
}

#[test]
fn nesting_within_the_limit_parses() {
    let n = 150;
    assert!(
        parse(&wrap_condition(&format!(
            "{}x=1{}",
            "(".repeat(n),
            ")".repeat(n)
        )))
        .is_ok()
    );
    assert!(
        parse(&wrap_body(&format!(
            "r0 = {}1{};",
            "(".repeat(n),
            ")".repeat(n)
        )))
        .is_ok()
    );
    assert!(
        parse(&wrap_body(&format!(
            "{}r0 = 1;{}",
            "{".repeat(n),
            "}".repeat(n)
        )))
        .is_ok()
    );
    assert!(parse(&wrap_body(&format!("{}x = 1;", "*".repeat(n)))).is_ok());
}

#[test]
fn ten_megabytes_of_statements_parse() {
    let stmt = "\tr0 = READ_ONCE(*x) + 1;\n";
    let body = stmt.repeat(10_000_000 / stmt.len());
    let t = parse(&wrap_body(&body)).expect("a large valid test parses");
    assert_eq!(t.threads[0].body.len(), 10_000_000 / stmt.len());
}

#[test]
fn overlong_chains_are_refused() {
    let n = 200_000;
    let sum = vec!["1"; n].join(" + ");
    let e = parse(&wrap_body(&format!("r0 = {sum};"))).expect_err("a huge chain is refused");
    assert_eq!(e.message, "more than 1000 operators nested or chained");
    let conj = vec!["x=1"; n].join(" /\\ ");
    let e = parse(&wrap_condition(&format!("({conj})"))).expect_err("a huge chain is refused");
    assert_eq!(e.message, "more than 1000 operators nested or chained");
}

/// The deepest trees the parser accepts can still be walked recursively on a test thread's
/// stack: cloned, compared, debugged, printed, dropped.
#[test]
fn the_deepest_accepted_trees_can_be_walked() {
    let sum = vec!["1"; 990].join(" - ");
    let conj = vec!["x=1"; 990].join(" \\/ ");
    let nested = format!("{}1{}", "(1 + ".repeat(90), ")".repeat(90));
    let source =
        format!("C deep\n{{}}\nP0(int *x)\n{{\nr0 = {sum};\nr1 = {nested};\n}}\nexists ({conj})\n");
    let t = parse(&source).expect("within the limits");
    let copy = t.clone();
    assert_eq!(copy, t);
    assert!(format!("{t:?}").len() > 1000);
    let printed = hazmat_litmus::print(&t);
    assert_eq!(parse(&printed).expect("the print parses"), t);
    drop(copy);
}

#[test]
fn ten_megabytes_of_garbage_give_an_error() {
    let garbage = "((*".repeat(3_500_000);
    assert!(parse(&garbage).is_err());
    let unterminated = format!("C t\n{{}}\nP0(int *x) {{ /*{} }}", "x".repeat(10_000_000));
    let e = parse(&unterminated).expect_err("an unterminated comment is an error");
    assert!(e.message.contains("`*/`"), "{e}");
    let open = format!(
        "C t\n{{}}\nP0(int *x) {{ {}",
        "smp_mb();\n".repeat(1_000_000)
    );
    let e = parse(&open).expect_err("an unclosed body is an error");
    assert!(e.message.contains("`}`"), "{e}");
}

/// Every prefix of a valid test is an error (or, rarely, a valid test), never a panic; the
/// error stays within the text.
#[test]
fn every_prefix_of_the_fixture_parses_or_fails_cleanly() {
    let fixture = include_str!("../fixtures/every-construct.litmus");
    for end in (0..=fixture.len()).filter(|&k| fixture.is_char_boundary(k)) {
        let prefix = &fixture[..end];
        if let Err(e) = parse(prefix) {
            assert!(
                e.span.end <= prefix.len(),
                "error past the end at {end}: {e}"
            );
            let _ = e.render("prefix.litmus", prefix);
        }
    }
}
