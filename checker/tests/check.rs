//! The checker end to end: lowering errors, herd7's text format, judging and limits.
//!
//! Snapshots are refreshed with `UPDATE_EXPECT=1 cargo test -p hazmat-checker --test check`.

use expect_test::{Expect, expect};
use hazmat_checker::engine::enumerate::Limits;
use hazmat_checker::front::lower::LowerErrorKind;
use hazmat_checker::report::expected;
use hazmat_checker::{CheckError, Checked, Options, check_source, model};

#[path = "common/untimed.rs"]
mod untimed;

fn run(model_name: &str, source: &str) -> Checked {
    let m = model(model_name).expect("model exists");
    check_source(source, m.as_ref(), &Options::default()).expect("test checks")
}

/// herd7's text without the `Time` line, which varies.
fn text(c: &Checked) -> String {
    untimed::untimed(&c.herd_text())
}

fn error(source: &str) -> String {
    let m = model("sc").expect("model exists");
    match check_source(source, m.as_ref(), &Options::default()) {
        Ok(_) => "no error".into(),
        Err(e) => e.render("t.litmus", source),
    }
}

fn check_text(model_name: &str, source: &str, expect: Expect) {
    expect.assert_eq(&text(&run(model_name, source)));
}

const MP: &str = "C MP
{}
P0(int *x, int *y) { WRITE_ONCE(*x, 1); WRITE_ONCE(*y, 1); }
P1(int *x, int *y) { int r0; int r1; r0 = READ_ONCE(*y); r1 = READ_ONCE(*x); }
exists (1:r0=1 /\\ 1:r1=0)
";

#[test]
fn message_passing_under_sc_and_the_lkmm() {
    check_text(
        "sc",
        MP,
        expect![[r#"
            Test MP Allowed
            States 3
            1:r0=0; 1:r1=0;
            1:r0=0; 1:r1=1;
            1:r0=1; 1:r1=1;
            No
            Witnesses
            Positive: 0 Negative: 3
            Condition exists (1:r0=1 /\ 1:r1=0)
            Observation MP Never 0 3
            Hash=c774a2155939fa7eb36446b4c2400daa

        "#]],
    );
    check_text(
        "lkmm",
        MP,
        expect![[r#"
            Test MP Allowed
            States 4
            1:r0=0; 1:r1=0;
            1:r0=0; 1:r1=1;
            1:r0=1; 1:r1=0;
            1:r0=1; 1:r1=1;
            Ok
            Witnesses
            Positive: 1 Negative: 3
            Condition exists (1:r0=1 /\ 1:r1=0)
            Observation MP Sometimes 1 3
            Hash=c774a2155939fa7eb36446b4c2400daa

        "#]],
    );
}

#[test]
fn states_show_locations_and_addresses_and_the_condition_is_reprinted() {
    check_text(
        "sc",
        "C pointers
{ int *p = &a; int a = 1; int b = 2; }
P0(int **p, int *b) { WRITE_ONCE(*p, b); }
P1(int **p) { int *r0; int r1; r0 = READ_ONCE(*p); r1 = READ_ONCE(*r0); }
locations [p]
exists (1:r1=2 \\/ ~(1:r0=a) /\\ p=b)
",
        expect![[r#"
            Test pointers Allowed
            States 2
            1:r0=a; 1:r1=1; [p]=b;
            1:r0=b; 1:r1=2; [p]=b;
            Ok
            Witnesses
            Positive: 1 Negative: 1
            Condition exists (1:r1=2 \/ not (1:r0=a) /\ [p]=b)
            Observation pointers Sometimes 1 1
            Hash=7e8d704a1c2b9c826d6049c44e7b71e8

        "#]],
    );
}

#[test]
fn failed_cmpxchg_reads_only_and_add_unless_returns_whether_it_added() {
    check_text(
        "sc",
        "C rmws
{ x = 1; }
P0(int *x) { int r0; r0 = cmpxchg(x, 0, 5); }
P1(int *x) { int r1; r1 = atomic_add_unless(x, 1, 5); }
exists (0:r0=1)
",
        expect![[r#"
            Test rmws Allowed
            States 2
            0:r0=1;
            0:r0=2;
            Ok
            Witnesses
            Positive: 1 Negative: 1
            Condition exists (0:r0=1)
            Observation rmws Sometimes 1 1
            Hash=6260c8fadb33ec739fc9da465741eb46

        "#]],
    );
}

#[test]
fn locks_exclude_and_trylock_fails_only_while_held() {
    let c = run(
        "sc",
        "C locks
{}
P0(spinlock_t *l, int *x) { spin_lock(l); WRITE_ONCE(*x, 1); WRITE_ONCE(*x, 2); spin_unlock(l); }
P1(spinlock_t *l, int *x) { int r0; int r1; r1 = spin_trylock(l); if (r1) { r0 = READ_ONCE(*x); spin_unlock(l); } }
exists (1:r0=1)
",
    );
    // A critical section never sees the other's intermediate value.
    assert_eq!(c.outcome.positive, 0);
    let states: Vec<String> = c
        .outcome
        .states
        .iter()
        .map(|s| hazmat_checker::report::write::state_line(&c.program, s))
        .collect();
    assert_eq!(
        states,
        vec!["1:r0=0;", "1:r0=2;"],
        "trylock succeeds before or after P0's critical section, or fails while it is held"
    );
}

#[test]
fn two_unmatched_locks_deadlock() {
    let src = "C deadlock
(* Result(sc): DEADLOCK *)
{}
P0(spinlock_t *l) { spin_lock(l); }
P1(spinlock_t *l) { spin_lock(l); }
exists (true)
";
    let c = run("sc", src);
    assert!(c.outcome.states.is_empty());
    let e = expected::expectation(&c.test, "sc").expect("has a Result(sc) line");
    assert_eq!(expected::judge(e, &c.outcome), Ok(()));
}

#[test]
fn judging_reports_a_wrong_expectation() {
    let src = MP.replace("C MP\n", "C MP\n(* Result(sc): Sometimes *)\n");
    let c = run("sc", &src);
    let e = expected::expectation(&c.test, "sc").expect("has a Result(sc) line");
    assert_eq!(
        expected::judge(e, &c.outcome),
        Err("expected Sometimes, got Never".to_string())
    );
    assert!(expected::expectation(&c.test, "tso").is_none());
}

#[test]
fn forall_and_not_exists_and_filter() {
    let c = run(
        "sc",
        "C quantifiers
{}
P0(int *x) { WRITE_ONCE(*x, 1); }
P1(int *x) { int r0; r0 = READ_ONCE(*x); }
filter (1:r0=1)
forall (1:r0=1)
",
    );
    assert_eq!(c.outcome.states.len(), 1);
    assert!(text(&c).contains("Test quantifiers Required\n"));
    assert!(text(&c).contains("\nOk\n"));
    assert!(text(&c).contains("Observation quantifiers Always 1 0\n"));
    let c = run(
        "sc",
        "C never
{}
P0(int *x) { WRITE_ONCE(*x, 1); }
~exists (x=2)
",
    );
    assert!(text(&c).starts_with("Test never Forbidden\n"));
    assert!(text(&c).contains("\nOk\n"));
    assert!(text(&c).contains("Condition ~exists ([x]=2)\n"));
}

#[test]
fn not_exists_counts_its_witnesses_as_herd7_does() {
    // herd7's witnesses of `~exists P` are the executions where P fails; its
    // `Observation` line still counts those where P holds first.
    let c = run(
        "lkmm",
        "C ne
{}
P0(int *x) { WRITE_ONCE(*x, 1); WRITE_ONCE(*x, 2); }
P1(int *x) { int r0; r0 = READ_ONCE(*x); }
~exists (1:r0=1)
",
    );
    assert!(text(&c).contains("\nNo\nWitnesses\nPositive: 2 Negative: 1\n"));
    assert!(text(&c).contains("Observation ne Sometimes 1 2\n"));
}

#[test]
fn lowering_errors_show_their_place() {
    let errors: String = [
        "C t\n{}\nP0(int *x) {\n\tsmp_memb();\n}\nexists (x=0)\n",
        "C t\n{}\nP0(int *x) {\n\tint r0;\n\tr0 = smp_load_aquire(x);\n}\nexists (x=0)\n",
        "C t\n{}\nP0(int *x) {\n\tspin_unlock_wait(x);\n}\nexists (x=0)\n",
        "C t\n{}\nP0(int *x) {\n\tWRITE_ONCE(*x);\n}\nexists (x=0)\n",
        "C t\n{}\nP0(int *x) {\n\tREAD_ONCE(*x);\n}\nexists (x=0)\n",
        "C t\n{}\nP0(int *x) {\n\tint r0;\n\tr0 = smp_mb();\n}\nexists (x=0)\n",
        "C t\n{}\nP0(int *x) {\n\tint r0 = READ_ONCE(x);\n}\nexists (x=0)\n",
        "C t\n{}\nP0(int *x, int *x) {\n\tWRITE_ONCE(*x, 1);\n}\nexists (x=0)\n",
        "C t\n{ 0:x = 1; }\nP0(int *x) {\n\tWRITE_ONCE(*x, 1);\n}\nexists (x=0)\n",
        "C t\n{ spinlock_t s; }\nP0(int *x) {\n\tWRITE_ONCE(*x, 1);\n}\nexists (x=0)\n",
    ]
    .iter()
    .map(|source| format!("{}\n", error(source)))
    .collect();
    expect![[r#"
        t.litmus:4:2: error: unknown primitive `smp_memb`; did you mean `smp_mb`, `smp_rmb` or `smp_wmb`?
          |
        4 | 	smp_memb();
          | 	^^^^^^^^
        t.litmus:5:7: error: unknown primitive `smp_load_aquire`; did you mean `smp_load_acquire`?
          |
        5 | 	r0 = smp_load_aquire(x);
          | 	     ^^^^^^^^^^^^^^^
        t.litmus:4:2: error: unknown primitive `spin_unlock_wait`
          |
        4 | 	spin_unlock_wait(x);
          | 	^^^^^^^^^^^^^^^^
        t.litmus:4:2: error: `WRITE_ONCE` takes 2 arguments, not 1
          |
        4 | 	WRITE_ONCE(*x);
          | 	^^^^^^^^^^^^^^
        t.litmus:4:2: error: `READ_ONCE` gives a value, and herd7 takes it only within an expression: write `r = READ_ONCE(...);` or `(void)READ_ONCE(...);`
          |
        4 | 	READ_ONCE(*x);
          | 	^^^^^^^^^^^^^
        t.litmus:5:7: error: `smp_mb` is a statement in herd7 and gives no value; call it on its own
          |
        5 | 	r0 = smp_mb();
          | 	     ^^^^^^^^
        t.litmus:4:21: error: `READ_ONCE` takes a location, `*x`, not the pointer `x` (herd7 refuses it)
          |
        4 | 	int r0 = READ_ONCE(x);
          | 	                   ^
        t.litmus:3:17: error: `x` names two parameters of P0; herd7 refuses the test
          |
        3 | P0(int *x, int *x) {
          |                 ^
        t.litmus:2:3: error: `x` is a parameter of P0, which starts with the address of `x`; herd7 refuses an init-block value for `0:x`
          |
        2 | { 0:x = 1; }
          |   ^^^
        t.litmus:2:3: error: herd7 knows no size for the type `spinlock_t` in the init block; its types are `char`, `short`, `int`, `long`, `int8_t`, `uint8_t`, `int16_t`, `uint16_t`, `int32_t`, `uint32_t`, `intptr_t`, `uintptr_t`, `atomic_t` and pointers
          |
        2 | { spinlock_t s; }
          |   ^^^^^^^^^^
    "#]]
    .assert_eq(&errors);
    assert!(model("arm").is_err());
}

#[test]
fn an_unknown_primitive_is_named_in_the_error_value() {
    let m = model("sc").expect("model exists");
    let source = "C t\n{}\nP0(int *x) {\n\tint r0;\n\tr0 = smp_load_aquire(x);\n}\nexists (x=0)\n";
    let Err(CheckError::Lower(e)) = check_source(source, m.as_ref(), &Options::default()) else {
        panic!("an unknown primitive is a lowering error");
    };
    assert_eq!(
        e.kind,
        LowerErrorKind::UnknownPrimitive {
            name: "smp_load_aquire".into(),
            suggestions: vec!["smp_load_acquire".to_string()],
            gives_value: true,
        }
    );
    assert_eq!(&source[e.span.start..e.span.end], "smp_load_aquire");
}

/// In thread code every name is a register, a parameter one that starts with its variable's
/// address: herd7's meaning of names, and the warnings about those nothing defines.
#[test]
fn names_mean_what_herd7_makes_of_them() {
    let source = "C names
{ y = 1; 0:r5 = 3; }

P0(int *x)
{
\tint r0;
\tint r1;
\tint r2;
\tr0 = true;
\tif (false) WRITE_ONCE(*x, 1);
\tr1 = y + r5;
\tr2 = x;
\tif (r0 == 0) return;
\tx = 7;
}

exists (0:r0=0 /\\ 0:r1=3 /\\ 0:r2=x /\\ 0:x=7 /\\ x=0)
";
    let c = run("lkmm", source);
    expect![[r#"
        Test names Allowed
        States 1
        0:r0=0; 0:r1=3; 0:r2=x; 0:x=7; [x]=0;
        Ok
        Witnesses
        Positive: 1 Negative: 0
        Condition exists (0:r0=0 /\ 0:r1=3 /\ 0:r2=x /\ 0:x=7 /\ [x]=0)
        Observation names Always 1 0
        Hash=4a6081d9ffb6e34124a5d513ad20ea23

    "#]]
    .assert_eq(&text(&c));
    let warnings: String = c
        .warnings
        .iter()
        .map(|w| w.render("names.litmus", source))
        .collect();
    expect![[r#"
        names.litmus:9:7: warning: `true` is never assigned, declared or given an initial value: herd7 reads it as a register holding 0
          |
        9 | 	r0 = true;
          | 	     ^^^^
          = note: herd7's C dialect has no `true` or `false`: write 1 or 0
        names.litmus:10:6: warning: `false` is never assigned, declared or given an initial value: herd7 reads it as a register holding 0
           |
        10 | 	if (false) WRITE_ONCE(*x, 1);
           | 	    ^^^^^
           = note: herd7's C dialect has no `true` or `false`: write 1 or 0
        names.litmus:11:7: warning: `y` is never assigned, declared or given an initial value: herd7 reads it as a register holding 0
           |
        11 | 	r1 = y + r5;
           | 	     ^
           = note: `y` is a shared variable, but no parameter of P0: add `int *y` to its parameters
        names.litmus:13:15: warning: `return` is never assigned, declared or given an initial value: herd7 reads it as a register holding 0
           |
        13 | 	if (r0 == 0) return;
           | 	             ^^^^^^
           = note: herd7's C dialect has no `return` statement: `return;` does nothing
    "#]]
    .assert_eq(&warnings);
}

#[test]
fn limits_make_a_test_unknown() {
    let m = model("sc").expect("model exists");
    let options = Options {
        limits: Limits {
            max_executions: Some(1),
            deadline: None,
            ..Default::default()
        },
        speedcheck: false,
        ..Default::default()
    };
    let c = check_source(MP, m.as_ref(), &options).expect("test checks");
    assert_eq!(c.outcome.unknown.as_deref(), Some("1 executions"));
    assert!(text(&c).contains("Observation MP Unknown "));
}

#[test]
fn speedcheck_stops_at_the_first_witness() {
    let m = model("tso").expect("model exists");
    let sb = "C SB
{}
P0(int *x, int *y) { int r0; WRITE_ONCE(*x, 1); r0 = READ_ONCE(*y); }
P1(int *x, int *y) { int r0; WRITE_ONCE(*y, 1); r0 = READ_ONCE(*x); }
exists (0:r0=0 /\\ 1:r0=0)
";
    let options = Options {
        speedcheck: true,
        ..Options::default()
    };
    let c = check_source(sb, m.as_ref(), &options).expect("test checks");
    assert_eq!((c.outcome.positive, c.outcome.negative), (1, 0));
    assert!(c.outcome.cut_short);
    // One witness says the outcome can happen, not that it always does.
    assert_eq!(c.outcome.verdict(), hazmat_checker::Verdict::Sometimes);
    let forall = sb.replace("exists", "forall");
    let c = check_source(&forall, m.as_ref(), &options).expect("test checks");
    assert_eq!(c.outcome.verdict(), hazmat_checker::Verdict::Sometimes);
    assert_eq!(c.outcome.negative, 1);
    let never = "C never\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nforall (x=1)\n";
    let c = check_source(never, m.as_ref(), &options).expect("test checks");
    assert_eq!(c.outcome.verdict(), hazmat_checker::Verdict::Always);
}

/// The warnings of a check (its doubts among them), rendered, for `t.litmus`.
fn warnings(model_name: &str, source: &str) -> String {
    let c = run(model_name, source);
    c.warnings
        .iter()
        .chain(&c.doubts)
        .map(|w| w.render("t.litmus", source))
        .collect()
}

/// A location or register the condition names and nothing else does holds 0 in every
/// execution: herd7 decides that other test without a word, and hazmat says which name
/// it was, with the one probably meant.
#[test]
fn condition_names_that_nothing_else_uses_are_warned_of() {
    let counter = "C counter
{}
P0(int *cnt) { int r0; r0 = READ_ONCE(*cnt); WRITE_ONCE(*cnt, r0 + 1); }
P1(int *cnt) { int r0; int r1; r0 = READ_ONCE(*cnt); WRITE_ONCE(*cnt, r0 + 1); }
exists (count=1)
";
    // herd7's answer stands.
    assert!(text(&run("lkmm", counter)).contains("Observation counter Never 0 4"));
    expect![[r#"
        t.litmus:5:9: warning: no thread reads or writes `count` and the init block does not set it: herd7 reads it as a location that holds 0 in every execution
          |
        5 | exists (count=1)
          |         ^^^^^
          = note: did you mean `cnt`?
    "#]]
    .assert_eq(&warnings("lkmm", counter));
    let misplaced = counter.replace(
        "exists (count=1)",
        "locations [0:r9; 1:r1]\nfilter (r0=0)\nexists (0:cnt=1 /\\ 0:r1=0 /\\ 1:cnt=cnt /\\ x=1)",
    );
    expect![[r#"
        t.litmus:5:12: warning: P0 has no register `r9`: no statement of P0 reads or writes it and the init block does not set it, so herd7 reads it as 0 in every execution
          |
        5 | locations [0:r9; 1:r1]
          |            ^^^^
        t.litmus:5:18: warning: P1 declares `r1` but never assigns or reads it: it holds 0 in every execution
          |
        5 | locations [0:r9; 1:r1]
          |                  ^^^^
        t.litmus:6:9: warning: no thread reads or writes `r0` and the init block does not set it: herd7 reads it as a location that holds 0 in every execution
          |
        6 | filter (r0=0)
          |         ^^
          = note: `r0` is a register of P0 and P1: a register's final value is written with its thread's number; did you mean `0:r0` or `1:r0`?
        t.litmus:7:20: warning: P0 has no register `r1`: no statement of P0 reads or writes it and the init block does not set it, so herd7 reads it as 0 in every execution
          |
        7 | exists (0:cnt=1 /\ 0:r1=0 /\ 1:cnt=cnt /\ x=1)
          |                    ^^^^
        t.litmus:7:43: warning: no thread reads or writes `x` and the init block does not set it: herd7 reads it as a location that holds 0 in every execution
          |
        7 | exists (0:cnt=1 /\ 0:r1=0 /\ 1:cnt=cnt /\ x=1)
          |                                           ^
          = note: the test's locations are `cnt`
    "#]]
    .assert_eq(&warnings("lkmm", &misplaced));
    // What the threads and the init block use draws no warning.
    let used = "C used\n{ y=2; 0:r3=1; int *p=&z; }\nP0(int *x) { int r0; r0 = READ_ONCE(*x); }\n\
                exists (0:r0=0 /\\ 0:r3=1 /\\ 0:x=x /\\ x=0 /\\ y=2 /\\ p=z /\\ z=0)\n";
    assert_eq!(warnings("lkmm", used), "");
}

/// A wrong `*` (`smp_load_acquire(*ready)` for a plain `int *ready`) makes a read at an
/// address that is no location: herd7 drops every execution that makes it, without a word;
/// hazmat keeps herd7's answer and says where the executions went.
#[test]
fn reads_at_no_location_are_warned_of_at_the_access() {
    let star = "C star
{}
P0(int *data, int *ready) { WRITE_ONCE(*data, 1); smp_store_release(ready, 1); }
P1(int *data, int *ready) {
\tint r0;
\tint r1;
\tr0 = smp_load_acquire(*ready);
\tr1 = READ_ONCE(*data);
}
exists (1:r0=1 /\\ 1:r1=0)
";
    assert!(text(&run("lkmm", star)).contains("Observation star Never 0 0"));
    expect![[r#"
        t.litmus:7:7: warning: in every execution, this access reads at an address that is no location: herd7 finds no write for such a read and drops the execution, and so does hazmat, so the result counts none of them
          |
        7 | 	r0 = smp_load_acquire(*ready);
          | 	     ^^^^^^^^^^^^^^^^^^^^^^^^
          = note: `smp_load_acquire` takes the address of a location, such as the parameter `ready`: write `smp_load_acquire(ready)`; `*ready` is the value at that address, an integer
    "#]]
    .assert_eq(&warnings("lkmm", star));
    // Some executions only: the pointer read may be the address or an integer.
    let some = "C some
{ int *p=&x; }
P0(int **p) { WRITE_ONCE(*p, 7); }
P1(int **p) { int *r0; int r1; r0 = READ_ONCE(*p); r1 = READ_ONCE(*r0); }
exists (1:r1=0)
";
    expect![[r#"
        t.litmus:4:57: warning: in some executions, this access reads at an address that is no location: herd7 finds no write for such a read and drops the execution, and so does hazmat, so the result counts none of them
          |
        4 | P1(int **p) { int *r0; int r1; r0 = READ_ONCE(*p); r1 = READ_ONCE(*r0); }
          |                                                         ^^^^^^^^^^^^^^
    "#]]
    .assert_eq(&warnings("lkmm", some));
}

/// A location that is no parameter of the thread that accesses it is a register holding
/// 0: the error at the access says what to add.
#[test]
fn an_access_through_a_missing_parameter_says_what_to_add() {
    let source = "C missing\n{}\nP0(int *data)\n{\n\tWRITE_ONCE(*data, 1);\n\tsmp_store_release(flag, 1);\n}\n\
                  P1(int *data, int *flag) { int r0; r0 = smp_load_acquire(flag); }\n\
                  exists (1:r0=1)\n";
    expect![[r#"
        t.litmus:6:2: error: the address of this access is the integer 0, not a location (herd7 stops on it: non-symbolic location)
          |
        6 | 	smp_store_release(flag, 1);
          | 	^^^^^^^^^^^^^^^^^^^^^^^^^^
          = note: `flag` is a shared variable, but no parameter of P0: add `int *flag` to its parameters"#]]
    .assert_eq(&error(source));
    let alone = source.replace(", int *flag", "");
    expect![[r#"
        t.litmus:6:2: error: the address of this access is the integer 0, not a location (herd7 stops on it: non-symbolic location)
          |
        6 | 	smp_store_release(flag, 1);
          | 	^^^^^^^^^^^^^^^^^^^^^^^^^^
          = note: if `flag` is a shared variable, add `int *flag` to P0's parameters"#]]
    .assert_eq(&error(&alone));
}

/// A value out of thin air prints under herd7's name through a `cmpxchg` whose result a
/// statement copies to a register, with no warning; where the result is used inside an
/// expression, whose rest herd7 evaluates once per outcome in an order hazmat does not
/// replay, the warning says the name may differ, at that instruction.
#[test]
fn thin_air_names_are_warned_of_only_where_not_replayed() {
    let test = |p1: &str| {
        format!(
            "C t\n{{}}\nP0(int *y, int *z) {{ int r0; r0 = *y; WRITE_ONCE(*z, r0); }}\n\
             P1(int *y, int *z, int *a) {{ int r0; int r1; {p1} WRITE_ONCE(*y, r0); }}\n\
             exists (0:r0=0)\n"
        )
    };
    let copied = test("r1 = cmpxchg(a, 0, 1); r0 = READ_ONCE(*z);");
    assert!(text(&run("lkmm", &copied)).contains("0:r0=S17;"));
    assert_eq!(warnings("lkmm", &copied), "");
    let inside = test("if (cmpxchg(a, 0, 1) == 0) r0 = READ_ONCE(*z);");
    let warned = warnings("lkmm", &inside);
    assert!(
        warned.contains("hazmat does not replay through this instruction"),
        "{warned}"
    );
    assert!(warned.contains("cmpxchg(a, 0, 1)"), "{warned}");
}

/// A test of 8,191 final states (the RW chain of 13 threads), more than the reports always
/// write past a deadline.
fn many_states() -> Checked {
    let source = hazmat_checker::testkit::generate::families::rw_chain(13);
    let c = run("lkmm", &source);
    assert_eq!(c.outcome.states.len(), 8191);
    c
}

#[test]
fn a_deadline_passed_before_the_report_cuts_its_states_and_says_so() {
    use hazmat_checker::engine::outcome::ALWAYS_SHOWN;
    use hazmat_checker::report::write::{self, Radix};
    let c = many_states();
    let passed = Some(std::time::Instant::now());
    let state_lines = |t: &str| t.lines().filter(|l| l.starts_with("0:r0=")).count();
    // In time: every state, and no word of any left out.
    let whole = c.herd_text_by(Radix::Decimal, None);
    assert_eq!(whole.left_out, 0);
    assert_eq!(state_lines(&whole.text), 8191);
    assert!(!whole.text.contains("left out"), "{}", whole.text);
    // Late: the first states only, under the whole count, and a line for the others
    // before the verdict, which stands.
    let cut = c.herd_text_by(Radix::Decimal, passed);
    assert_eq!(cut.left_out, 8191 - ALWAYS_SHOWN);
    assert_eq!(state_lines(&cut.text), ALWAYS_SHOWN);
    let lines: Vec<&str> = cut.text.lines().collect();
    assert_eq!(lines[1], "States 8191");
    assert_eq!(
        lines[2 + ALWAYS_SHOWN],
        format!(
            "States left out: {} of 8191 (the time limit passed before they were written)",
            8191 - ALWAYS_SHOWN
        )
    );
    assert_eq!(lines[3 + ALWAYS_SHOWN], "No");
    assert!(cut.text.contains("Observation rw-chain-13 Never 0 8191"));
    // The same in JSON.
    let j = write::json_by(
        &c.program, &c.outcome, "lkmm", "t.litmus", &c.hash, 0.0, passed,
    );
    assert_eq!(j.left_out, 8191 - ALWAYS_SHOWN);
    assert_eq!(
        j.text["states"].as_array().map(Vec::len),
        Some(ALWAYS_SHOWN)
    );
    assert_eq!(j.text["states_left_out"], 8191 - ALWAYS_SHOWN);
    let j = write::json(&c.program, &c.outcome, "lkmm", "t.litmus", &c.hash, 0.0);
    assert_eq!(j["states"].as_array().map(Vec::len), Some(8191));
    assert_eq!(j["states_left_out"], 0);
}

#[test]
fn states_the_search_left_out_are_said_in_every_report() {
    let mut c = many_states();
    // As the search leaves them when its deadline passed before they were sorted.
    c.outcome.states_left_out = c.outcome.states.len() - 3;
    c.outcome.states.truncate(3);
    let t = text(&c);
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines[1], "States 8191");
    assert_eq!(
        lines[5],
        "States left out: 8188 of 8191 (the time limit passed before they were written)"
    );
    assert_eq!(lines[6], "No");
}
