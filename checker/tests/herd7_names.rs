//! herd7's names for values out of thin air (`S` and a number), as hazmat replays them
//! (`engine::symbol`): the count of fresh values herd7's C front end makes, and the classes
//! its union-find leaves. Each test writes small programs under a model that allows such
//! values (a model with no checks under the kernel's macros, `cos.cat` alone for C11),
//! with `-optace false`, asserts the states herd7 7.58 printed for them, written here, and
//! compares the whole output with herd7's when herd7 is present (`$HAZMAT_ORACLE` or
//! `../shared/oracle/herd7`).

#[path = "common/herd7_cli.rs"]
mod herd7_cli;
#[path = "common/untimed.rs"]
mod untimed;

use herd7_cli::{hazmat, same_as_herd7, text};
use std::path::PathBuf;
use untimed::untimed;

/// The kernel's macros, from the files this package carries.
const LKMM: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/lkmm-history/v6.15-lkmmv2"
);

/// The arguments of `hazmat herd7` for the kernel's macros under a model with no check
/// (`none.cat`) and `-optace false`, under which values come out of thin air.
const KERNEL_NO_CHECKS: [&str; 9] = [
    "herd7",
    "-I",
    LKMM,
    "-macros",
    "linux-kernel.def",
    "-model",
    "none.cat",
    "-optace",
    "false",
];

/// A fresh temporary directory for one test, with a model that checks nothing.
fn temp_dir(tag: &str) -> PathBuf {
    let dir = herd7_cli::temp_dir(&format!("herd7-names-{tag}"));
    std::fs::write(dir.join("none.cat"), "\"no checks\"\n").expect("model");
    dir
}

/// A kernel test whose thread runs `code` between a read of `y` and a value `*z` reads
/// back from its own store of `stored` (`r0` is that read).
fn kernel_test(name: &str, code: &str, stored: &str) -> String {
    kernel_tail(name, code, &format!("WRITE_ONCE(*z, {stored});"))
}

/// The same, with the thread ending in `tail` after the read of `z`.
fn kernel_tail(name: &str, code: &str, tail: &str) -> String {
    format!(
        "C {name}\n{{}}\nP0(int *y, int *z) {{ int r0; int r1; int r2; \
         r1 = READ_ONCE(*y); {code} r0 = READ_ONCE(*z); {tail} }}\n\
         locations [0:r0;]\nexists (0:r1=2)\n"
    )
}

/// The same in C11, with relaxed atomics.
fn c11_test(name: &str, code: &str, stored: &str) -> String {
    let relaxed = "memory_order_relaxed";
    format!(
        "C {name}\n{{}}\nP0(atomic_int *y, atomic_int *z) {{ int r0; int r1; int r2; \
         r1 = atomic_load_explicit(y, {relaxed}); {code} \
         r0 = atomic_load_explicit(z, {relaxed}); \
         atomic_store_explicit(z, {stored}, {relaxed}); }}\n\
         locations [0:r0;]\nexists (0:r1=2)\n"
    )
}

/// Runs each test (name, source, herd7 7.58's states, `No` included) as herd7 `args`
/// (the file last), asserting the states, then the whole output against herd7's.
fn states_as_herd7(dir: &std::path::Path, args: &[&str], tests: &[(&str, String, String)]) {
    for (name, source, states) in tests {
        let file = format!("{name}.litmus");
        std::fs::write(dir.join(&file), source).expect("test");
        let mut args = args.to_vec();
        args.push(&file);
        let out = hazmat(dir, &args);
        assert_eq!(text(&out.stderr), "", "{args:?}");
        let stdout = untimed(&text(&out.stdout));
        assert!(stdout.contains(states), "{args:?}: {stdout}");
        same_as_herd7(dir, &args[1..]);
    }
}

/// herd7 makes no fresh value for `v + 0`, `0 + v`, `v | 0` and `0 | v` (its `add` and
/// `orop` return the other operand), and none for the new value of a kernel atomic
/// operation that adds or ors 0, whose write then stores the value read itself; C11's
/// `atomic_fetch_*` makes one all the same (an equation ties it to the value read). A
/// statement that is a register (`r1;`), a parameter, or an expression reads it, a fresh
/// value. A read stored plus 0 passes no register, nor does an exchange's own read; an
/// exchange of a register stores that register's read. Each name here differed from
/// herd7's before hazmat replayed them, with no warning.
#[test]
fn thin_air_names_count_herd7s_identities_and_bare_registers() {
    let dir = temp_dir("identities");
    let four = |a: u32, b: u32| {
        format!(
            "States 4\n0:r0=S{a}; 0:r1=S{b};\n0:r0=S{a}; 0:r1=0;\n0:r0=0; 0:r1=S{b};\n\
             0:r0=0; 0:r1=0;\nNo\n"
        )
    };
    let two = |a: u32| format!("States 2\n0:r0=S{a}; 0:r1=0;\n0:r0=0; 0:r1=0;\nNo\n");
    let exchanged = "States 6\n0:r0=S9; 0:r1=S4;\n0:r0=S9; 0:r1=S5;\n0:r0=S9; 0:r1=0;\n\
                     0:r0=0; 0:r1=S4;\n0:r0=0; 0:r1=S5;\n0:r0=0; 0:r1=0;\nNo\n";
    let kernel = [
        ("A1", kernel_test("A1", "", "r0 + 0"), two(6)),
        ("A4", kernel_test("A4", "", "0 | r0"), two(6)),
        (
            "B2",
            kernel_test("B2", "r2 = atomic_add_return(0, y);", "r0"),
            four(8, 2),
        ),
        (
            "B3",
            kernel_test("B3", "atomic_add(0, y);", "r0"),
            four(8, 2),
        ),
        (
            "B5",
            kernel_test("B5", "r2 = atomic_fetch_or(0, y);", "r0"),
            four(8, 2),
        ),
        (
            "B8",
            kernel_test("B8", "WRITE_ONCE(*y, r1 | 0);", "r0"),
            four(8, 4),
        ),
        (
            "G1",
            kernel_test(
                "G1",
                "if (r1 == 1) { WRITE_ONCE(*y, 1); } r2 = atomic_add_return(0, y);",
                "r0",
            ),
            "States 4\n0:r0=S11; 0:r1=0;\n0:r0=S17; 0:r1=1;\n0:r0=0; 0:r1=0;\n\
             0:r0=0; 0:r1=1;\nNo\n"
                .to_string(),
        ),
        (
            "G3",
            kernel_test("G3", "r2 = atomic_add_unless(y, 0, 5);", "r0"),
            two(15),
        ),
        (
            "I5",
            kernel_test("I5", "atomic_add(0, z); r0 = READ_ONCE(*z);", "r0"),
            "States 4\n0:r0=S4; 0:r1=0;\n0:r0=S6; 0:r1=0;\n0:r0=S10; 0:r1=0;\n\
             0:r0=0; 0:r1=0;\nNo\n"
                .to_string(),
        ),
        ("C1", kernel_test("C1", "r1;", "r0"), two(7)),
        ("C2", kernel_test("C2", "r1; r2;", "r0"), two(8)),
        ("C3", kernel_test("C3", "r1 + 0;", "r0"), two(7)),
        ("H1", kernel_test("H1", "y;", "r0"), two(7)),
        ("H4", kernel_test("H4", "r1 | 0;", "r0"), two(7)),
        (
            "G5",
            kernel_test("G5", "r2 = xchg(y, r1 | 0);", "r0"),
            exchanged.to_string(),
        ),
        (
            "J3",
            kernel_test("J3", "r2 = xchg(y, r1);", "r0"),
            exchanged.to_string(),
        ),
        (
            "G6",
            kernel_test("G6", "WRITE_ONCE(*y, READ_ONCE(*z) + 0);", "r0"),
            "States 4\n0:r0=S5; 0:r1=S5;\n0:r0=S5; 0:r1=0;\n0:r0=S9; 0:r1=0;\n\
             0:r0=0; 0:r1=0;\nNo\n"
                .to_string(),
        ),
        ("G8", kernel_test("G8", "", "0 | READ_ONCE(*z)"), two(4)),
    ];
    states_as_herd7(&dir, &KERNEL_NO_CHECKS, &kernel);
    let relaxed = "memory_order_relaxed";
    let c11 = [
        ("F1", c11_test("F1", "", "r0 + 0"), two(6)),
        (
            "F2",
            c11_test(
                "F2",
                &format!("r2 = atomic_fetch_add_explicit(y, 0, {relaxed});"),
                "r0",
            ),
            two(9),
        ),
        ("F5", c11_test("F5", "r1;", "r0"), two(7)),
        (
            "F7",
            c11_test(
                "F7",
                &format!("r2 = r1 + 0; atomic_store_explicit(y, r2, {relaxed});"),
                "r0",
            ),
            four(9, 5),
        ),
    ];
    let args = ["herd7", "-model", "cos.cat", "-optace", "false"];
    states_as_herd7(&dir, &args, &c11);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A kernel test whose thread runs `before`, a read of `z` into `r0`, then `after`.
fn copies_test(name: &str, before: &str, after: &str) -> String {
    format!(
        "C {name}\n{{}}\nP0(int *y, int *z) {{ int r0; int r1; int r2; int r3; \
         r1 = READ_ONCE(*y); {before} r0 = READ_ONCE(*z); {after} }}\n\
         locations [0:r0;]\nexists (0:r1=2)\n"
    )
}

/// herd7 names a class after its two rounds of union-find, the registers' first: every
/// read of a register holding a read's value is an equation of that round (`loaded :=
/// stored`), whether a write stores it or not (a copy, a bare statement, after the last
/// store: `K4`, `L7`), copies of copies included (`M2`, `M4`, `N2`); the round's solution
/// maps each value to the parent the union-find leaves it, not to its root (`K6`: `S9`,
/// where the root is `S7`), and the equations it leaves unsolved come after memory's in
/// the next round (`M6`: `S10`). Each name here differed from herd7's before hazmat
/// replayed the registers' round, with no warning.
#[test]
fn thin_air_names_follow_herd7s_round_on_registers() {
    let dir = temp_dir("registers");
    let two = |a: u32| format!("States 2\n0:r0=S{a}; 0:r1=0;\n0:r0=0; 0:r1=0;\nNo\n");
    let three = |a: u32| {
        format!("States 3\n0:r0=S{a}; 0:r1=S{a};\n0:r0=S{a}; 0:r1=0;\n0:r0=0; 0:r1=0;\nNo\n")
    };
    let four = |a: u32, b: u32| {
        format!(
            "States 4\n0:r0=S{a}; 0:r1=S{b};\n0:r0=S{a}; 0:r1=0;\n0:r0=0; 0:r1=S{b};\n\
             0:r0=0; 0:r1=0;\nNo\n"
        )
    };
    let tests = [
        ("K4", "", "WRITE_ONCE(*z, r0); r2 = r0;", two(7)),
        (
            "K6",
            "",
            "r2 = r0; WRITE_ONCE(*z, r2); WRITE_ONCE(*y, r0);",
            three(9),
        ),
        ("L7", "", "WRITE_ONCE(*z, r0); r0;", two(7)),
        (
            "M1",
            "",
            "r2 = r0; r3 = r0; WRITE_ONCE(*z, r2); WRITE_ONCE(*y, r3);",
            three(10),
        ),
        (
            "M2",
            "",
            "r2 = r0; r3 = r2; WRITE_ONCE(*y, r0); WRITE_ONCE(*z, r3); r0;",
            three(11),
        ),
        (
            "M4",
            "",
            "r2 = r0; r3 = r0; r2; r3; WRITE_ONCE(*z, r2 + 0);",
            two(8),
        ),
        (
            "M5",
            "",
            "WRITE_ONCE(*y, r0); r2 = r0; WRITE_ONCE(*z, r2); r3 = r2; r3; r2;",
            "States 3\n0:r0=S2; 0:r1=S2;\n0:r0=S11; 0:r1=0;\n0:r0=0; 0:r1=0;\nNo\n".to_string(),
        ),
        (
            "M6",
            "r2 = r1; r3 = r1;",
            "WRITE_ONCE(*z, r0); WRITE_ONCE(*y, r2); r3; r1;",
            four(8, 10),
        ),
        (
            "M8",
            "",
            "r2 = xchg(y, r0); WRITE_ONCE(*z, r2); r2;",
            three(10),
        ),
        (
            "M9",
            "",
            "r2 = atomic_fetch_add(0, y); WRITE_ONCE(*z, r0); r3 = r2; WRITE_ONCE(*y, r3);",
            four(8, 2),
        ),
        (
            "N2",
            "",
            "r2 = r0 + 0; r3 = r2 | 0; WRITE_ONCE(*z, r3); r0; r2;",
            two(9),
        ),
    ];
    let tests: Vec<_> = tests
        .iter()
        .map(|(n, before, after, t)| (*n, copies_test(n, before, after), t.clone()))
        .collect();
    states_as_herd7(&dir, &KERNEL_NO_CHECKS, &tests);
    let _ = std::fs::remove_dir_all(&dir);
}

/// An identity herd7 meets while it solves (`0 + v` once a read's value is 0, with `v` a
/// value out of thin air) leaves the operator's equation as `x := v`, which herd7 keeps
/// unsolved (its union-find ran before), and the candidate is dropped: a stored
/// `r0 + r1` with `r1` reading 0, a kernel or C11 read-modify-write adding or oring a
/// register to a location that read 0, an operand `r1 - r1`. hazmat kept each such
/// candidate, with one more state or more executions, before it left those operators
/// unsolved.
#[test]
fn identities_met_while_solving_leave_herd7s_equation_unsolved() {
    let dir = temp_dir("solving");
    let one = "States 1\n0:r0=0; 0:r1=0;\nNo\nWitnesses\nPositive: 0 Negative: 1\n";
    let two = |a: u32| {
        format!(
            "States 2\n0:r0=S{a}; 0:r1=0;\n0:r0=0; 0:r1=0;\nNo\nWitnesses\n\
             Positive: 0 Negative: 2\n"
        )
    };
    let kernel = [
        (
            "J5",
            kernel_test("J5", "r2 = atomic_fetch_add(r1, y);", "r0"),
            two(10),
        ),
        (
            "H8",
            kernel_test("H8", "r2 = atomic_fetch_add(r1 - r1, y);", "r0"),
            two(12),
        ),
        ("X1", kernel_test("X1", "", "r0 + r1"), one.to_string()),
        ("X2", kernel_test("X2", "", "r1 | r0"), one.to_string()),
        (
            "X4",
            kernel_test("X4", "r2 = atomic_fetch_or(r1, y);", "r0"),
            two(10),
        ),
        (
            "X9",
            kernel_test("X9", "r2 = atomic_fetch_add(r1, y);", "r0 + r1"),
            one.to_string(),
        ),
        (
            "X11",
            kernel_test("X11", "", "r1 + (r0 | r1)"),
            one.to_string(),
        ),
    ];
    states_as_herd7(&dir, &KERNEL_NO_CHECKS, &kernel);
    let relaxed = "memory_order_relaxed";
    let c11 = [
        ("Y1", c11_test("Y1", "", "r0 + r1"), one.to_string()),
        (
            "Y2",
            c11_test(
                "Y2",
                &format!("r2 = atomic_fetch_add_explicit(y, r1, {relaxed});"),
                "r0",
            ),
            two(10),
        ),
        (
            "Y4",
            c11_test(
                "Y4",
                &format!("r2 = atomic_fetch_or_explicit(y, r1, {relaxed});"),
                "r0",
            ),
            two(10),
        ),
    ];
    states_as_herd7(
        &dir,
        &["herd7", "-model", "cos.cat", "-optace", "false"],
        &c11,
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A macro that is a block of several instructions (the kernel's `smp_store_mb`, or a
/// macro file's own: two stores, a fence then a store, a `cmpxchg` then a fence) is a
/// block of statements to herd7, one instruction each, and its values are counted so:
/// hazmat's replay of the count met the block's second instruction outside any
/// statement, and printed its own names with a warning.
#[test]
fn thin_air_names_count_through_macros_of_several_instructions() {
    let dir = temp_dir("blocks");
    let def = std::fs::read_to_string(format!("{LKMM}/linux-kernel.def")).expect("def");
    let added = "store_twice(X,V) { __store{once}(*X,V); __store{once}(*X,V); }\n\
                 cas_fence(X,O,N) { __cmpxchg{mb}(X,O,N); __fence{mb}; }\n\
                 fence_store(X,V) { __fence{mb}; __store{once}(*X,V); }\n";
    std::fs::write(dir.join("blocks.def"), format!("{def}{added}")).expect("def");
    let states = |lines: &[&str], negative: u32| {
        format!(
            "States {}\n{}\nNo\nWitnesses\nPositive: 0 Negative: {negative}\n",
            lines.len(),
            lines.join("\n")
        )
    };
    let two = |a: u32, negative: u32| {
        states(
            &[&format!("0:r0=S{a}; 0:r1=0;"), "0:r0=0; 0:r1=0;"],
            negative,
        )
    };
    let tests = [
        (
            "B1",
            kernel_tail("B1", "", "store_twice(z, r0);"),
            two(8, 3),
        ),
        (
            "B2",
            kernel_test("B2", "store_twice(y, 0);", "r0"),
            two(8, 6),
        ),
        (
            "B3",
            kernel_test("B3", "cas_fence(y, r1, 1);", "r0"),
            states(
                &[
                    "0:r0=S13; 0:r1=0;",
                    "0:r0=S13; 0:r1=1;",
                    "0:r0=0; 0:r1=0;",
                    "0:r0=0; 0:r1=1;",
                ],
                4,
            ),
        ),
        (
            "B4",
            kernel_tail("B4", "", "fence_store(z, r0); WRITE_ONCE(*y, r0);"),
            states(
                &["0:r0=S2; 0:r1=S2;", "0:r0=S8; 0:r1=0;", "0:r0=0; 0:r1=0;"],
                4,
            ),
        ),
        (
            "B5",
            kernel_test("B5", "cas_fence(z, 0, r1);", "r0"),
            two(12, 9),
        ),
        (
            "B6",
            kernel_tail("B6", "smp_store_mb(*y, r1);", "smp_store_mb(*z, r0);"),
            states(
                &[
                    "0:r0=S8; 0:r1=S4;",
                    "0:r0=S8; 0:r1=0;",
                    "0:r0=0; 0:r1=S4;",
                    "0:r0=0; 0:r1=0;",
                ],
                4,
            ),
        ),
    ];
    let mut args = KERNEL_NO_CHECKS;
    args[4] = "blocks.def";
    states_as_herd7(&dir, &args, &tests);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Where a write of the class of a value out of thin air stores a value computed from a
/// read (`r1 + r2`, on the way where `spin_trylock` took the lock), hazmat names the class
/// by the highest number among its reads and copies, which is not herd7's union-find
/// replayed (the FIXME of `engine::symbol`): herd7 prints `S28`, hazmat `S25`. It warns
/// at that write, where it once printed its name with no warning; the states and counts
/// are herd7's.
#[test]
fn a_name_through_a_computed_write_is_warned_of() {
    let dir = temp_dir("computed");
    let test = "C T\n{}\nP0(int *x, int *y, spinlock_t *l) { int r0; int r1; int r2; \
                r0 = spin_trylock(l); if (r0) { r1 = READ_ONCE(*x); spin_unlock(l); } \
                r2 = READ_ONCE(*y); WRITE_ONCE(*y, r1 + r2); }\n\
                locations [0:r0; 0:r1; 0:r2; x; y;]\nexists ([l]=0)\n";
    std::fs::write(dir.join("T.litmus"), test).expect("test");
    let mut args = KERNEL_NO_CHECKS.to_vec();
    args.push("T.litmus");
    let out = hazmat(&dir, &args);
    let stdout = untimed(&text(&out.stdout));
    let stderr = text(&out.stderr);
    assert!(
        stdout.contains("States 3\n0:r0=0; 0:r1=0; 0:r2=S25; [l]=0; [x]=0; [y]=S25;\n"),
        "{stdout}{stderr}"
    );
    assert!(stdout.contains("Positive: 3 Negative: 0\n"), "{stdout}");
    assert!(
        // At the write, `WRITE_ONCE(*y, r1 + r2)`.
        stderr.contains("T.litmus:3:151: warning: a final state shows a value out of thin air"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
