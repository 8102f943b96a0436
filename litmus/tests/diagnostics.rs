//! Snapshots of the diagnostics a person reads for typical mistakes.
//!
//! Refresh with `UPDATE_EXPECT=1 cargo test -p hazmat-litmus --test diagnostics`.

use expect_test::{Expect, expect};

fn check(source: &str, expected: Expect) {
    let e = hazmat_litmus::parse(source).expect_err("the source has a mistake");
    expected.assert_eq(&e.render("test.litmus", source));
}

#[test]
fn missing_semicolon_after_a_statement() {
    check(
        "C MP\n{}\n\nP0(int *x, int *y)\n{\n\tWRITE_ONCE(*x, 1);\n\tsmp_store_release(y, 1)\n}\n\nexists (x=1)\n",
        expect![[r#"
            test.litmus:7:25: error: expected `;` after the expression
              |
            7 | 	smp_store_release(y, 1)
              | 	                       ^
              = note: in the thread that starts at 4:1
        "#]],
    );
}

#[test]
fn unclosed_parenthesis_in_an_if() {
    check(
        "C MP\n{}\n\nP0(int *x)\n{\n\tif (READ_ONCE(*x) {\n\t\tWRITE_ONCE(*x, 2);\n\t}\n}\n",
        expect![[r#"
            test.litmus:6:20: error: expected `)`, found `{`
              |
            6 | 	if (READ_ONCE(*x) {
              | 	                  ^
              = note: to close the condition opened at 6:5
              = note: in the thread that starts at 4:1
        "#]],
    );
}

#[test]
fn unclosed_parenthesis_in_the_condition() {
    check(
        "C MP\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\n\nexists (x=1 /\\ (0:r0=1 \\/ 0:r0=2)\n",
        expect![[r#"
            test.litmus:5:34: error: expected `)`, found end of file
              |
            5 | exists (x=1 /\ (0:r0=1 \/ 0:r0=2)
              |                                  ^
              = note: to close the condition opened at 5:8
        "#]],
    );
}

#[test]
fn missing_semicolon_in_the_init_block() {
    check(
        "C MP\n{\n\tx=1\n\ty=2;\n}\nP0(int *x) { WRITE_ONCE(*x, 1); }\n",
        expect![[r#"
            test.litmus:3:5: error: expected `;`
              |
            3 | 	x=1
              | 	   ^
              = note: in the init block that starts at 2:1
        "#]],
    );
}

#[test]
fn other_architectures_are_refused() {
    check(
        "X86 SB\n{ x=0; }\n P0 | P1 ;\n",
        expect![[r#"
            test.litmus:1:1: error: only C litmus tests are accepted, this one is `X86`
              |
            1 | X86 SB
              | ^^^
        "#]],
    );
}

#[test]
fn misspelled_exists() {
    check(
        "C MP\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nexist (x=1)\n",
        expect![[r#"
            test.litmus:4:1: error: expected `locations`, `filter`, `exists`, `forall` or the end of the file, found `exist`
              |
            4 | exist (x=1)
              | ^^^^^
              = note: did you mean `exists`?
        "#]],
    );
}

#[test]
fn unsupported_statement() {
    check(
        "C MP\n{}\nP0(int *x)\n{\n\tfor (;;) { smp_mb(); }\n}\n",
        expect![[r#"
            test.litmus:5:2: error: herd7's C dialect has no `for` loop: it reads `for` as a register's name
              |
            5 | 	for (;;) { smp_mb(); }
              | 	^^^
              = note: in the thread that starts at 3:1
        "#]],
    );
}

#[test]
fn missing_value_in_the_condition() {
    check(
        "C MP\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nexists (0:r0=)\n",
        expect![[r#"
            test.litmus:4:14: error: expected a value (an integer or an address), found `)`
              |
            4 | exists (0:r0=)
              |              ^
        "#]],
    );
}

#[test]
fn no_thread() {
    check(
        "C MP\n{ x=1; }\n\nexists (x=1)\n",
        expect![[r#"
            test.litmus:4:1: error: expected a thread such as `P0(int *x)`, found `exists`
              |
            4 | exists (x=1)
              | ^^^^^^
        "#]],
    );
}

#[test]
fn unterminated_comment() {
    check(
        "C MP\n(* Result: Never\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\n",
        expect![[r#"
            test.litmus:2:1: error: unterminated comment: this `(*` has no matching `*)`
              |
            2 | (* Result: Never
              | ^
        "#]],
    );
}

#[test]
fn unclosed_thread_body() {
    check(
        "C MP\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n",
        expect![[r#"
            test.litmus:5:20: error: expected `}`, found end of file
              |
            5 | 	WRITE_ONCE(*x, 1);
              | 	                  ^
              = note: to close the body of the thread opened at 4:1
              = note: in the thread that starts at 3:1
        "#]],
    );
}

#[test]
fn malformed_number() {
    check(
        "C MP\n{ x=12ab; }\nP0(int *x) { WRITE_ONCE(*x, 1); }\n",
        expect![[r#"
            test.litmus:2:5: error: invalid number `12ab`
              |
            2 | { x=12ab; }
              |     ^^^^
        "#]],
    );
}

#[test]
fn assignment_where_a_comparison_was_meant() {
    check(
        "C MP\n{}\nP0(int *x)\n{\n\tint r0;\n\tif (r0 = 1) smp_mb();\n}\n",
        expect![[r#"
            test.litmus:6:9: error: expected `)`, found `=`
              |
            6 | 	if (r0 = 1) smp_mb();
              | 	       ^
              = note: to close the condition opened at 6:5
              = note: in the thread that starts at 3:1
        "#]],
    );
}

#[test]
fn parameter_without_a_type() {
    check(
        "C MP\n{}\nP0(x)\n{\n\tWRITE_ONCE(*x, 1);\n}\n",
        expect![[r#"
            test.litmus:3:4: error: expected a parameter such as `int *x`, or `)`, found `x`
              |
            3 | P0(x)
              |    ^
        "#]],
    );
}

#[test]
fn two_names_in_one_declaration() {
    check(
        "C MP\n{}\nP0(int *x)\n{\n\tint r0, r1;\n}\n",
        expect![[r#"
            test.litmus:5:8: error: declare one name per declaration, as in `int r0; int r1;`
              |
            5 | 	int r0, r1;
              | 	      ^
              = note: in the thread that starts at 3:1
        "#]],
    );
}

#[test]
fn unsupported_operators() {
    check(
        "C MP\n{}\nP0(int *x)\n{\n\tr0 = x->next;\n}\n",
        expect![[r#"
            test.litmus:5:8: error: herd7's C dialect has no `->`
              |
            5 | 	r0 = x->next;
              | 	      ^^
              = note: in the thread that starts at 3:1
        "#]],
    );
    check(
        "C MP\n{}\nP0(int *x)\n{\n\tr0 += 1;\n}\n",
        expect![[r#"
            test.litmus:5:5: error: herd7's C dialect has no `+=`; write `r0 = r0 + e`
              |
            5 | 	r0 += 1;
              | 	   ^^
              = note: in the thread that starts at 3:1
        "#]],
    );
}

#[test]
fn operators_herd7_lacks() {
    check(
        "C MP\n{}\nP0(int *x, int *y)\n{\n\tint r0;\n\tint r1;\n\tif (r0 == 1 && r1 == 0)\n\t\tWRITE_ONCE(*y, 1);\n}\n",
        expect![[r#"
            test.litmus:7:14: error: herd7's C dialect has no `&&`: nest two `if` statements, or join comparisons (which are 0 or 1) with `&`
              |
            7 | 	if (r0 == 1 && r1 == 0)
              | 	            ^^
              = note: in the thread that starts at 3:1
        "#]],
    );
    check(
        "C MP\n{}\nP0(int *x)\n{\n\tint r0;\n\tr0 = READ_ONCE(*x);\n\tWRITE_ONCE(*x, r0-1);\n}\n",
        expect![[r#"
            test.litmus:7:19: error: herd7 reads `-1` here as a negative number, not a subtraction: put a space after the `-`, as in `r0 - 1`
              |
            7 | 	WRITE_ONCE(*x, r0-1);
              | 	                 ^^
              = note: in the thread that starts at 3:1
        "#]],
    );
    check(
        "C MP\n{}\nP0(int *x)\n{\n\tint r0;\n\tif (r0 < 1 == 0)\n\t\tWRITE_ONCE(*x, 1);\n}\n",
        expect![[r#"
            test.litmus:6:13: error: herd7's comparisons do not chain: put the first one in parentheses, as in `(a < b) == c`
              |
            6 | 	if (r0 < 1 == 0)
              | 	           ^^
              = note: in the thread that starts at 3:1
        "#]],
    );
}

#[test]
fn where_herd7_ends_the_threads() {
    check(
        "C MP\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1); // the value that exists later\n}\n\nexists (x=1)\n",
        expect![[r#"
            test.litmus:5:39: error: herd7 takes this `exists` for the start of the condition: it ends the threads at the first `exists`, `forall`, `final`, `filter`, `locations`, `observed` or `cases` after the init block, even in a comment or a name; reword the comment or rename
              |
            5 | 	WRITE_ONCE(*x, 1); // the value that exists later
              | 	                                     ^^^^^^
        "#]],
    );
    check(
        "C MP\n{}\n\n(* The writer. *)\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\n\nexists (x=1)\n",
        expect![[r#"
            test.litmus:4:1: error: herd7 reads the text between the init block and the condition as C, where `(*` opens no comment: write `/* ... */` or `//`, or move the comment before the init block or after the condition
              |
            4 | (* The writer. *)
              | ^
        "#]],
    );
}

#[test]
fn a_thread_missing_its_closing_brace() {
    check(
        "C MP\n{}\n\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n\nP1(int *x)\n{\n\tint r0;\n\tr0 = READ_ONCE(*x);\n}\n\nexists (1:r0=1)\n",
        expect![[r#"
            test.litmus:8:1: error: expected `}`, found `P1`
              |
            8 | P1(int *x)
              | ^^
              = note: to close the body of the thread opened at 5:1
              = note: in the thread that starts at 4:1
        "#]],
    );
    check(
        "C MP\n{}\n\nP0(int *x)\n{\n\tif (READ_ONCE(*x)) {\n\t\tWRITE_ONCE(*x, 2);\n}\n\nP1(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\n",
        expect![[r#"
            test.litmus:10:1: error: expected `}`, found `P1`
               |
            10 | P1(int *x)
               | ^^
               = note: to close the body of the thread opened at 5:1
               = note: in the thread that starts at 4:1
        "#]],
    );
}

#[test]
fn c_connectives_in_the_condition() {
    let test = |condition: &str| {
        format!("C MP\n{{}}\nP0(int *x) {{ int r0; r0 = READ_ONCE(*x); }}\n\nexists {condition}\n")
    };
    check(
        &test("(0:r0=1 && x=1)"),
        expect![[r#"
        test.litmus:5:16: error: herd7's conditions have no `&&`: and is `/\`, or is `\/`, not is `~`
          |
        5 | exists (0:r0=1 && x=1)
          |                ^^
    "#]],
    );
    check(
        &test("(0:r0=1 || x=1)"),
        expect![[r#"
        test.litmus:5:16: error: herd7's conditions have no `||`: and is `/\`, or is `\/`, not is `~`
          |
        5 | exists (0:r0=1 || x=1)
          |                ^^
    "#]],
    );
    check(
        &test("(!(0:r0=1))"),
        expect![[r#"
        test.litmus:5:9: error: herd7's conditions have no `!`: not is `~`, and is `/\`, or is `\/`
          |
        5 | exists (!(0:r0=1))
          |         ^
    "#]],
    );
    check(
        &test("(P0:r0=1)"),
        expect![[r#"
        test.litmus:5:9: error: a register of a thread is written with the thread's number alone: `0:` for `P0:`
          |
        5 | exists (P0:r0=1)
          |         ^^
    "#]],
    );
}
