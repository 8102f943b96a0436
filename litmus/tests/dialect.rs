//! herd7's C dialect, rule by rule: what it accepts parses, what it refuses is refused with
//! a message that says why, what it accepts and hazmat does not take is refused by name;
//! and, when the herd7 oracle is at hand, herd7 agrees on every example.
//!
//! The oracle is `$HAZMAT_ORACLE`, else `../shared/oracle/herd7` beside the repository, with
//! the model files of `$HAZMAT_CONFORMANCE/lkmm-model` (else
//! `../shared/conformance/lkmm-model`); without them the agreement test says so and passes.
//! Refresh the snapshot with `UPDATE_EXPECT=1 cargo test -p hazmat-litmus --test dialect`.

use expect_test::expect;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A test whose thread runs `code` after declaring `r0` and `r1`.
fn code(code: &str) -> String {
    format!(
        "C t\n{{ x=1; }}\n\nP0(int *x, int *y)\n{{\n\tint r0;\n\tint r1;\n\t{code}\n}}\n\nexists (0:r0=0)\n"
    )
}

/// A test whose init block holds `items`.
fn init(items: &str) -> String {
    format!("C t\n{{ {items} }}\n\nP0(int *x)\n{{\n\tWRITE_ONCE(*x, 1);\n}}\n\nexists (x=1)\n")
}

/// A test whose trailer is `trailer`.
fn trailer(trailer: &str) -> String {
    format!(
        "C t\n{{ x=1; }}\n\nP0(int *x)\n{{\n\tint r0;\n\tr0 = READ_ONCE(*x);\n}}\n\n{trailer}\n"
    )
}

/// Examples herd7 accepts, by the rule they show.
fn accepted() -> Vec<(&'static str, String)> {
    vec![
        (
            "C keywords name variables, parameters and registers",
            "C t\n{ continue=1; 0:return=2; }\n\nP0(int *continue)\n{\n\tint do;\n\tdo = READ_ONCE(*continue) + return;\n}\n\nlocations [continue; 0:do]\nexists (0:do=3 /\\ continue=1)\n".to_string(),
        ),
        (
            "C keywords read as registers",
            code("r0 = do + for + return + break + goto + switch + case + true + false + sizeof + default + unsigned + bool + and + not + tag;"),
        ),
        ("a lone return reads a register", code("if (r0 == 0) return;")),
        ("break and continue read registers", code("break; continue;")),
        ("subtraction with spaces", code("r1 = r0 - 1;")),
        ("subtraction with a space after the minus", code("r1 = r0- 1;")),
        ("negative literals", code("r1 = r0 * -1 + -2147483648;")),
        ("a minus and a negative literal", code("r1 = 3--1;")),
        ("comparisons in parentheses", code("r1 = (r0 == 1) == 1;")),
        ("comparisons bind tighter than &", code("r1 = r0 & 1 == 1;")),
        ("bitwise operators", code("r1 = r0 ^ r0 | 1 & 2;")),
        ("arithmetic", code("r1 = 2 * 3 + 4 - 7 / 2;")),
        ("the largest number", code("r1 = 2147483647;")),
        ("casts", code("r1 = (int)*x + 1;")),
        ("a cast to void as a statement", code("(void)READ_ONCE(*x);")),
        ("a dereference of a cast name", code("r1 = *(int *)x;")),
        ("a dereference in parentheses", code("r1 = *(x);")),
        ("an assignment through a cast in parentheses", code("*((int *)x) = 1;")),
        ("a declaration with a value as a branch", code("if (r0) int r2 = 1;")),
        ("declarations", code("int *r2 = x; long r3; uint64_t r4; _Atomic int r5; const int r6; int const r7; void *r8; int * volatile r9;")),
        ("a while loop", code("while (r0) r0 = 0;")),
        (
            "threads as C functions",
            "C t\n{}\n\nvoid P0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\n\nvoid *P1()\n{\n\tsmp_mb();\n}\n\nexists (x=1)\n".to_string(),
        ),
        (
            "C comments among the threads",
            "C t\n{}\n// before\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1); /* after */\n}\n/* between */\nexists (x=1) (* after the condition *)\n".to_string(),
        ),
        ("comments in the init block", init("(* a comment *) x = 1;")),
        ("a hexadecimal initial value", init("x = 0xffffffff; y = 0x10;")),
        ("pointers in the init block", init("int *p = &x; int *0:r0 = &x; 0:r1 = x; q = x;")),
        ("one more semicolon before the brace", init("x = 1;;")),
        ("an init block with one semicolon", init(";")),
        ("one-word types in the init block", init("int a; char b; long c = 3; atomic_t d = ATOMIC_INIT(1); uint32_t e; int *f;")),
        ("shared variables in brackets in the init block", init("[x] = 1; int [y] = 2; int *[q] = &y; _Atomic int [w] = 3;")),
        ("pointers of the default type in the init block", init("*p = &x; *q; * [r] = x;")),
        ("keywords in the condition", trailer("locations [0:continue; x]\nexists (0:r0=1 /\\ 0:if=0)")),
        ("the trailer in order", trailer("locations [x]\nfilter (0:r0=1)\nexists (x=1)")),
        ("final for exists", trailer("final (0:r0=1 /\\ x=1);")),
        ("observed for exists", trailer("observed x=1; 0:r0=1; and 0:r0=0;")),
        ("an empty observed", trailer("observed")),
        ("kinds after the condition", trailer("exists (x=1); with t: exists; lb-2/c.d: ~exists; u: not exists; v: forall;")),
        ("kinds after observed", trailer("observed x=1; with t: forall")),
        ("types in the locations", trailer("locations [x int; 0:r0 int*; 0:r1 *]\nexists (x=1)")),
        ("a hexadecimal value in the condition", trailer("exists (0:r0=0x1)")),
    ]
}

/// Examples herd7 refuses, by the rule they show.
fn refused() -> Vec<(&'static str, String)> {
    vec![
        ("&&", code("if (r0 == 0 && r1 == 0) WRITE_ONCE(*y, 1);")),
        ("||", code("if (r0 == 0 || r1 == 0) WRITE_ONCE(*y, 1);")),
        ("!", code("if (!r0) WRITE_ONCE(*y, 1);")),
        ("%", code("r1 = r0 % 2;")),
        ("<<", code("r1 = r0 << 1;")),
        (">>", code("r1 = r0 >> 1;")),
        ("unary minus", code("r1 = -r0;")),
        ("a minus apart from its digits", code("r1 = - 1;")),
        ("a minus before parentheses", code("r1 = -(1);")),
        ("a double minus", code("WRITE_ONCE(*y, --1);")),
        ("unary plus", code("r1 = +1;")),
        ("~", code("r1 = ~r0;")),
        ("& of a register", code("r1 = &r0;")),
        ("& of a variable", code("WRITE_ONCE(*y, &x);")),
        ("chained ==", code("if (1 == 1 == 1) WRITE_ONCE(*y, 1);")),
        ("chained < and ==", code("if (r0 < 1 == 1) WRITE_ONCE(*y, 1);")),
        ("chained == and <", code("r1 = r0 == 1 < 2;")),
        ("chained !=", code("r1 = r0 != 1 != 0;")),
        ("r0-1", code("r1 = r0-1;")),
        ("r0 -1", code("r1 = r0 -1;")),
        ("1-1", code("r1 = 1-1;")),
        ("hexadecimal in thread code", code("r1 = 0x10;")),
        ("a number beyond 32 bits", code("r1 = 2147483648;")),
        ("an empty statement", code("r1 = 1;;")),
        ("an empty block", code("if (r0) { }")),
        (
            "an empty thread",
            "C t\n{}\n\nP0(int *x)\n{\n}\n\nexists (x=0)\n".to_string(),
        ),
        ("return with a value", code("return r0;")),
        ("goto", code("goto out;")),
        ("for", code("for (r1 = 0; r1 < 1; r1 = r1 + 1) WRITE_ONCE(*y, 1);")),
        ("do while", code("do { WRITE_ONCE(*y, 1); } while (0);")),
        ("switch", code("switch (r0) { case 1: r1 = 1; }")),
        ("a declaration without a value as a branch", code("if (r0) int r2;")),
        ("an assignment to a parenthesis", code("(r1) = 1;")),
        ("a dereference of a call", code("r1 = *f(x);")),
        ("a dereference of a dereference", code("r1 = **x;")),
        ("an assignment through a cast", code("*(int *)x = 1;")),
        ("a cast before parentheses under a *", code("r1 = *(int *)(x);")),
        ("a cast to void in an expression", code("r1 = (void)1;")),
        ("an unknown type", code("unsigned r2;")),
        ("a two-word type", code("long long r2;")),
        ("a struct herd7 does not know", code("struct foo *r2;")),
        ("a volatile void", code("volatile void *r2;")),
        ("two names in one declaration", code("int r2, r3;")),
        ("a reserved word as a register", code("int lock;")),
        ("a thread's name as a register", code("r1 = P1;")),
        (
            "a reserved word as a parameter",
            "C t\n{}\n\nP0(spinlock_t *lock)\n{\n\tspin_lock(lock);\n}\n\nexists (0:r0=0)\n"
                .to_string(),
        ),
        (
            "a parameter's type with a qualifier after its star",
            "C t\n{}\n\nP0(int * volatile x)\n{\n\tWRITE_ONCE(*x, 1);\n}\n\nexists (x=1)\n"
                .to_string(),
        ),
        (
            "a parameter that is no pointer",
            "C t\n{}\n\nP0(int x)\n{\n\tint r0;\n\tr0 = 1;\n}\n\nexists (0:r0=1)\n".to_string(),
        ),
        ("a trailer word as a register", code("int final;")),
        ("a trailer word in a comment", code("r1 = 1; // nothing exists here")),
        ("an unclosed quote in a comment", code("r1 = 1; /* \"a */")),
        (
            "a comment before the threads",
            "C t\n{}\n(* before *)\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\nexists (x=1)\n"
                .to_string(),
        ),
        (
            "a comment between threads",
            "C t\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\n(* between *)\nP1(int *x)\n{\n\tWRITE_ONCE(*x, 2);\n}\nexists (x=1)\n".to_string(),
        ),
        (
            "a comment after the threads",
            "C t\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\n(* after *)\nexists (x=1)\n"
                .to_string(),
        ),
        ("a C comment in the init block", init("// a comment\n x = 1;")),
        ("a C comment after the condition", trailer("exists (0:r0=1) /* a comment */")),
        ("true in the init block", init("true = 1;")),
        ("and as a register in the init block", init("0:and = 1;")),
        ("a number beyond 32 bits in the init block", init("x = 2147483648;")),
        ("a hexadecimal number beyond 32 bits", init("x = 0x100000000;")),
        ("two stars in the init block", init("int **p = x;")),
        ("two stars and no type in the init block", init("**p = x;")),
        ("a register in brackets in the init block", init("[0:r0] = 1;")),
        ("& in the value of no pointer", init("y = &x;")),
        ("a struct in the init block", init("struct srcu_struct s;")),
        ("a two-word type in the init block", init("unsigned long y = 1;")),
        ("an empty item in the init block", init("x = 1;; y = 2;")),
        ("an atomic pointer in the init block", init("_Atomic int *p = x;")),
        ("true as a register in the condition", trailer("exists (0:true=0)")),
        ("!= against a register", trailer("exists (x!=0:r0)")),
        ("a number beyond 32 bits in the condition", trailer("exists (0:r0=2147483648)")),
        ("the filter before the locations", trailer("filter (0:r0=1)\nlocations [x]\nexists (x=1)")),
        ("a condition in parentheses alone", trailer("(x=1)")),
        ("negated final", trailer("~final (x=1)")),
        ("observed with an atom not ended by ;", trailer("observed x=1")),
        ("a kind without its colon", trailer("exists (x=1) with t exists")),
        ("a test name with + in a kind", trailer("exists (x=1) with SB+mb: exists")),
        ("an empty kind", trailer("exists (x=1) with t: exists; ;")),
        ("two type words in the locations", trailer("locations [x int int]\nexists (x=1)")),
    ]
}

#[test]
fn what_herd7_accepts_parses() {
    for (rule, source) in accepted() {
        if let Err(e) = hazmat_litmus::parse(&source) {
            panic!("{rule}:\n{}", e.render("t.litmus", &source));
        }
    }
}

/// Examples herd7 accepts that hazmat refuses, saying what it does not take and why.
fn not_taken() -> Vec<(&'static str, String)> {
    vec![
        ("a fault atom", trailer("exists (x=1 /\\ ~fault(P0,x))")),
        (
            "a fault in the locations",
            trailer("locations [fault(P0)]\nexists (x=1)"),
        ),
        ("an array in the init block", init("int y[2] = {1,2};")),
    ]
}

/// What hazmat does not take of what herd7 accepts, with its message, one line each.
#[test]
fn what_hazmat_does_not_take_is_refused_by_name() {
    let mut out = String::new();
    for (rule, source) in not_taken() {
        match hazmat_litmus::parse(&source) {
            Ok(_) => panic!("{rule}: parses (move it to the accepted examples)\n{source}"),
            Err(e) => out.push_str(&format!("{rule}: {}:{}: {}\n", e.line, e.col, e.message)),
        }
    }
    expect![[r#"
        a fault atom: 10:17: hazmat does not take herd7's fault atoms (`fault(P0,x)`), which are for architectures with faults: a C test has none, herd7 takes each as false and prints `~Fault(P0,x);` in every state; write `false` for `fault(...)` and `true` for `~fault(...)`
        a fault in the locations: 10:12: hazmat does not take herd7's fault atoms (`fault(P0,x)`), which are for architectures with faults: a C test has none, herd7 takes each as false and prints `~Fault(P0,x);` in every state; write `false` for `fault(...)` and `true` for `~fault(...)`
        an array in the init block: 2:8: hazmat does not take herd7's arrays (`int x[2] = {1,2};`, `x[1]=2`): herd7's C threads reach only an array's first element (`*x`), and its others only under `-variant mixed`
    "#]]
    .assert_eq(&out);
}

/// Every refusal, with its message, one line each.
#[test]
fn what_herd7_refuses_is_refused_with_a_reason() {
    let mut out = String::new();
    for (rule, source) in refused() {
        match hazmat_litmus::parse(&source) {
            Ok(_) => panic!("{rule}: parses\n{source}"),
            Err(e) => out.push_str(&format!("{rule}: {}:{}: {}\n", e.line, e.col, e.message)),
        }
    }
    expect![[r#"
        &&: 8:14: herd7's C dialect has no `&&`: nest two `if` statements, or join comparisons (which are 0 or 1) with `&`
        ||: 8:14: herd7's C dialect has no `||`: join comparisons (which are 0 or 1) with `|`
        !: 8:6: herd7's C dialect has no `!`: write `e == 0`
        %: 8:10: herd7's C dialect has no `%`: write `a - a / b * b` for `a % b`
        <<: 8:10: herd7's C dialect has no `<<`: multiply by a power of two
        >>: 8:10: herd7's C dialect has no `>>`: divide by a power of two
        unary minus: 8:7: herd7's C dialect has no unary minus, only negative numbers such as `-1`: write `0 - e`
        a minus apart from its digits: 8:7: herd7's C dialect has no unary minus, only negative numbers such as `-1`: write `0 - e`
        a minus before parentheses: 8:7: herd7's C dialect has no unary minus, only negative numbers such as `-1`: write `0 - e`
        a double minus: 8:17: herd7's C dialect has no unary minus, only negative numbers such as `-1`: write `0 - e`
        unary plus: 8:7: herd7's C dialect has no unary plus
        ~: 8:7: herd7's C dialect has no `~`: write `-1 ^ e`
        & of a register: 8:7: herd7's C dialect has no `&` before an operand in thread code: a parameter `int *x` is already the address of `x`, so write `x`
        & of a variable: 8:17: herd7's C dialect has no `&` before an operand in thread code: a parameter `int *x` is already the address of `x`, so write `x`
        chained ==: 8:13: herd7's comparisons do not chain: put the first one in parentheses, as in `(a == b) == c`
        chained < and ==: 8:13: herd7's comparisons do not chain: put the first one in parentheses, as in `(a < b) == c`
        chained == and <: 8:15: herd7's comparisons do not chain: put the first one in parentheses, as in `(a == b) < c`
        chained !=: 8:15: herd7's comparisons do not chain: put the first one in parentheses, as in `(a != b) != c`
        r0-1: 8:9: herd7 reads `-1` here as a negative number, not a subtraction: put a space after the `-`, as in `r0 - 1`
        r0 -1: 8:10: herd7 reads `-1` here as a negative number, not a subtraction: put a space after the `-`, as in `r0 - 1`
        1-1: 8:8: herd7 reads `-1` here as a negative number, not a subtraction: put a space after the `-`, as in `1 - 1`
        hexadecimal in thread code: 8:7: herd7's thread code has decimal numbers only: write `16` for `0x10`
        a number beyond 32 bits: 8:7: `2147483648` is out of range: herd7's numbers are 32-bit, from -2147483648 to 2147483647
        an empty statement: 8:9: herd7's C dialect has no empty statement: remove this `;`
        an empty block: 8:12: the block is empty: herd7 needs at least one statement between the braces
        an empty thread: 6:1: the body of the thread is empty: herd7 needs at least one statement between the braces
        return with a value: 8:2: herd7's C dialect has no `return`: it reads `return` as a register's name, so a lone `return;` does nothing
        goto: 8:2: herd7's C dialect has no `goto`: it reads `goto` as a register's name
        for: 8:2: herd7's C dialect has no `for` loop: it reads `for` as a register's name
        do while: 8:2: herd7's C dialect has no `do ... while` loop: it reads `do` as a register's name
        switch: 8:2: herd7's C dialect has no `switch` statement: it reads `switch` as a register's name
        a declaration without a value as a branch: 8:10: herd7 takes a declaration without a value only in a block or a thread's body, not as the branch of an `if` or `while`: put braces around it
        an assignment to a parenthesis: 8:2: herd7 assigns to a register (`r0 = ...;`) or through a pointer (`*x = ...;`), not to this
        a dereference of a call: 8:7: herd7 reads `*f(...)` as a call of `*f`: write `*(f(...))`
        a dereference of a dereference: 8:7: herd7 reads a dereference of a dereference only in parentheses: write `*(*p)`
        an assignment through a cast: 8:2: herd7 assigns through a cast only in parentheses: write `*((type *)p) = ...`
        a cast before parentheses under a *: 8:15: herd7 takes a name after `*(type)`: write `*((type)(...))` to cast an expression
        a cast to void in an expression: 8:7: herd7 takes `(void)` only at the start of a statement, as in `(void)e;`
        an unknown type: 8:2: herd7's thread code has no type `unsigned`; its types are `int`, `char`, `long`, `intN_t`, `uintN_t`, `intptr_t`, `uintptr_t`, `atomic_t`, `spinlock_t`, `struct srcu_struct`, pointers to them, and `void *`
        a two-word type: 8:7: herd7's thread code has one-word types (with `*`, `volatile` and `const`): `long` cannot follow another type word
        a struct herd7 does not know: 8:9: herd7's thread code knows one `struct`, `struct srcu_struct`, not `struct foo`
        a volatile void: 8:11: herd7 takes `void` only as `void *`, with no qualifier before it
        two names in one declaration: 8:8: declare one name per declaration, as in `int r0; int r1;`
        a reserved word as a register: 8:6: `lock` is a reserved word in herd7's thread code and cannot name a register or parameter; rename it
        a thread's name as a register: 8:7: `P1` names a thread in herd7's C dialect, not a register; rename it
        a reserved word as a parameter: 4:16: `lock` is a reserved word in herd7's thread code and cannot name a register or parameter; rename it
        a parameter's type with a qualifier after its star: 4:4: herd7 takes a parameter's type ending with its `*`, not `int * volatile`: drop the qualifier after the `*`
        a parameter that is no pointer: 4:4: herd7's thread parameters are pointers: write `int *` for the type
        a trailer word as a register: 8:6: herd7 takes this `final` for the start of the condition: it ends the threads at the first `exists`, `forall`, `final`, `filter`, `locations`, `observed` or `cases` after the init block, even in a comment or a name; reword the comment or rename
        a trailer word in a comment: 8:21: herd7 takes this `exists` for the start of the condition: it ends the threads at the first `exists`, `forall`, `final`, `filter`, `locations`, `observed` or `cases` after the init block, even in a comment or a name; reword the comment or rename
        an unclosed quote in a comment: 8:13: herd7 skips what follows a `"` between the init block and the condition up to the next `"` on the same line, even in a comment, and refuses the test when the line has none; close the quote or remove it
        a comment before the threads: 3:1: herd7 reads the text between the init block and the condition as C, where `(*` opens no comment: write `/* ... */` or `//`, or move the comment before the init block or after the condition
        a comment between threads: 7:1: herd7 reads the text between the init block and the condition as C, where `(*` opens no comment: write `/* ... */` or `//`, or move the comment before the init block or after the condition
        a comment after the threads: 7:1: herd7 reads the text between the init block and the condition as C, where `(*` opens no comment: write `/* ... */` or `//`, or move the comment before the init block or after the condition
        a C comment in the init block: 2:3: herd7 reads the init block and the condition without C comments: write `(* ... *)` here
        a C comment after the condition: 10:17: herd7 reads the init block and the condition without C comments: write `(* ... *)` here
        true in the init block: 2:3: `true` is a reserved word in herd7's init block and condition and cannot name a variable or register; rename it
        and as a register in the init block: 2:5: `and` is a reserved word in herd7's init block and condition and cannot name a variable or register; rename it
        a number beyond 32 bits in the init block: 2:7: `2147483648` is out of range: herd7's numbers are 32-bit, from -2147483648 to 2147483647
        a hexadecimal number beyond 32 bits: 2:7: `0x100000000` is out of range: herd7's numbers are 32-bit, from -2147483648 to 2147483647
        two stars in the init block: 2:3: herd7's init block takes one `*` in a type: write `int *p = x;` for a pointer to a pointer too
        two stars and no type in the init block: 2:4: expected a variable or register to initialise, found `*`
        a register in brackets in the init block: 2:4: herd7's init block takes brackets round a shared variable only: write a register without them, as in `0:r0 = 1;`
        & in the value of no pointer: 2:7: herd7 takes `&x` only as the value of a pointer, as in `int *p = &x;`; here write `x`
        a struct in the init block: 2:3: herd7's init block takes a one-word type such as `int`, not `struct srcu_struct`
        a two-word type in the init block: 2:3: herd7's init block takes a one-word type such as `int`, not `unsigned long`
        an empty item in the init block: 2:9: herd7's init block has no empty item: remove this `;`
        an atomic pointer in the init block: 2:3: herd7's init block takes `_Atomic` before a type that is no pointer
        true as a register in the condition: 10:11: `true` is a reserved word in herd7's init block and condition and cannot name a variable or register; rename it
        != against a register: 10:12: herd7 compares with a register only by `=`: for `!=`, negate the equality, as in `~(x=0:r1)`
        a number beyond 32 bits in the condition: 10:14: `2147483648` is out of range: herd7's numbers are 32-bit, from -2147483648 to 2147483647
        the filter before the locations: 11:1: herd7 takes `locations` before the filter and the condition
        a condition in parentheses alone: 10:1: expected `locations`, `filter`, `exists`, `forall` or the end of the file, found `(`
        negated final: 10:2: expected `exists` after the negation, found `final`
        observed with an atom not ended by ;: 10:13: expected `;` after the atom
        a kind without its colon: 10:21: expected `:` after the test's name, found `exists`
        a test name with + in a kind: 10:21: expected `:` after the test's name, found `+`
        an empty kind: 10:30: expected a test's name and its kind, as in `with SB: exists`, found `;`
        two type words in the locations: 10:18: expected `]`, found `int`
    "#]]
    .assert_eq(&out);
}

/// The herd7 oracle and the model it runs, when both are at hand.
fn oracle() -> Option<(PathBuf, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    let herd7 = std::env::var_os("HAZMAT_ORACLE")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("oracle/herd7"));
    let model = std::env::var_os("HAZMAT_CONFORMANCE")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("conformance"))
        .join("lkmm-model");
    (herd7.is_file() && model.is_dir()).then_some((herd7, model))
}

/// Whether herd7 decides `source`: it prints an `Observation` line only then.
fn herd7_accepts(herd7: &Path, model: &Path, dir: &Path, k: usize, source: &str) -> bool {
    let file = dir.join(format!("t{k}.litmus"));
    std::fs::write(&file, source).expect("the temporary file is written");
    let out = Command::new(herd7)
        .arg("-I")
        .arg(model)
        .args(["-conf", "linux-kernel.cfg"])
        .arg(&file)
        .output()
        .expect("herd7 runs");
    String::from_utf8_lossy(&out.stdout).contains("\nObservation ")
}

#[test]
fn herd7_agrees_on_every_example() {
    let Some((herd7, model)) = oracle() else {
        eprintln!("the herd7 oracle is not at hand; set HAZMAT_ORACLE to check the examples");
        return;
    };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dialect");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the temporary directory is made");
    let mut disagreements = Vec::new();
    for (k, (rule, source)) in accepted().into_iter().enumerate() {
        if !herd7_accepts(&herd7, &model, &dir, k, &source) {
            disagreements.push(format!("herd7 refuses what hazmat accepts: {rule}"));
        }
    }
    for (k, (rule, source)) in refused().into_iter().enumerate() {
        if herd7_accepts(&herd7, &model, &dir, 1000 + k, &source) {
            disagreements.push(format!("herd7 accepts what hazmat refuses: {rule}"));
        }
    }
    for (k, (rule, source)) in not_taken().into_iter().enumerate() {
        if !herd7_accepts(&herd7, &model, &dir, 2000 + k, &source) {
            disagreements.push(format!(
                "herd7 refuses what hazmat says it does not take: {rule}"
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}
