//! herd7's options that change which executions a test's states come from and which
//! cells they show, as `hazmat herd7` honours them: `-outcomereads true` (and the
//! configuration's `outcomereads` key, which `hazmat check` honours too), `-checkfilter
//! false`, `-switch` (which changes nothing on a C test), and a register of a thread the
//! test does not have, which herd7 refuses in a test's own condition and reads as 0 in a
//! filter or a `-conds` condition.
//!
//! Each expected output is herd7 7.58's, its `Time` line aside; each test also compares
//! hazmat with herd7 when herd7 is present (`$HAZMAT_ORACLE` or `../shared/oracle/herd7`).
//! The kernel's model files are the project's copy of them (`tests/lkmm-history/`).

#[path = "common/herd7_cli.rs"]
mod herd7_cli;
#[path = "common/untimed.rs"]
mod untimed;

use herd7_cli::{hazmat, run, text};
use std::path::{Path, PathBuf};
use untimed::untimed;

/// A fresh temporary directory for one test.
fn temp_dir(tag: &str) -> PathBuf {
    herd7_cli::temp_dir(&format!("herd7-states-{tag}"))
}

/// `-I DIR -conf DIR/linux-kernel.cfg` for the kernel's current model.
fn kernel() -> [String; 4] {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lkmm-history/v6.15-lkmmv2");
    let cfg = model.join("linux-kernel.cfg");
    let s = |p: &Path| p.to_str().expect("a path").to_string();
    ["-I".into(), s(&model), "-conf".into(), s(&cfg)]
}

/// A kernel test whose registers are written every way herd7 tells apart: from a read
/// (`0:r0`), from a read inside an expression (`0:r1`), by a copy (`0:r2`, which
/// `locations` names), by `xchg` (`0:r3`), by `spin_trylock` (`0:r5`, a lock's read, not
/// memory's), by `cmpxchg` (`1:r1`), in one branch of an `if` only (`1:r0`, by
/// `atomic_add_return`, and `1:r4`, by `srcu_read_lock`, which the init block sets), in
/// the branch of an `if` whose condition reads (`1:r2`, which the condition names), and
/// never (`1:r3`, which `locations` names).
const OR: &str = "C OR\n\n{ 1:r4=7; }\n\n\
    P0(int *x, int *y, spinlock_t *l)\n{\n\tint r0;\n\tint r1;\n\tint r2;\n\tint r3;\n\tint r5;\n\
    \tr0 = READ_ONCE(*x);\n\tr1 = READ_ONCE(*y) + 1;\n\tr2 = r0;\n\tr3 = xchg(y, 2);\n\
    \tr5 = spin_trylock(l);\n}\n\n\
    P1(int *x, int *y, struct srcu_struct *s)\n{\n\tint r0;\n\tint r1;\n\tint r2;\n\tint r3;\n\
    \tWRITE_ONCE(*x, 1);\n\tr1 = cmpxchg(y, 0, 1);\n\tif (r1 == 0) {\n\
    \t\tr0 = atomic_add_return(1, x);\n\t\tr4 = srcu_read_lock(s);\n\
    \t\tsrcu_read_unlock(s, r4);\n\t}\n\tif (READ_ONCE(*y) == 2)\n\t\tr2 = 1;\n}\n\n\
    locations [0:r2; 1:r3; y]\nexists (0:r0=1 /\\ 1:r2=1)\n";

/// herd7's output for [`OR`] under the kernel's model with `-outcomereads true`.
const OR_READS: &str = "Test OR Allowed\nStates 8\n\
    0:r0=0; 0:r1=1; 0:r3=0; 1:r1=2; 1:r4=7; [y]=2;\n\
    0:r0=0; 0:r1=1; 0:r3=1; 1:r0=2; 1:r1=0; 1:r4=0; [y]=2;\n\
    0:r0=0; 0:r1=2; 0:r3=1; 1:r0=2; 1:r1=0; 1:r4=0; [y]=2;\n\
    0:r0=1; 0:r1=1; 0:r3=0; 1:r1=2; 1:r4=7; [y]=2;\n\
    0:r0=1; 0:r1=1; 0:r3=1; 1:r0=2; 1:r1=0; 1:r4=0; [y]=2;\n\
    0:r0=1; 0:r1=2; 0:r3=1; 1:r0=2; 1:r1=0; 1:r4=0; [y]=2;\n\
    0:r0=2; 0:r1=1; 0:r3=1; 1:r0=2; 1:r1=0; 1:r4=0; [y]=2;\n\
    0:r0=2; 0:r1=2; 0:r3=1; 1:r0=2; 1:r1=0; 1:r4=0; [y]=2;\n\
    Ok\nWitnesses\nPositive: 3 Negative: 11\nCondition exists (0:r0=1 /\\ 1:r2=1)\n\
    Observation OR Sometimes 3 11\nHash=8afa6d3dc78831915a3d798208ad18d0\n\n";

/// A C11 test: a compare-exchange (`0:r0`), a fetch-and-add (`0:r1`), a copy of it (`0:r2`,
/// which the condition names) and a load (`1:r0`).
const ORC: &str = "C ORC\n\n{}\n\n\
    P0(atomic_int *x, atomic_int *y, int *e)\n{\n\
    \tint r0 = atomic_compare_exchange_strong_explicit(x, e, 2, memory_order_acquire, \
    memory_order_relaxed);\n\
    \tint r1 = atomic_fetch_add_explicit(y, 1, memory_order_relaxed);\n\tint r2 = r1;\n}\n\n\
    P1(atomic_int *x, atomic_int *y)\n{\n\
    \tint r0 = atomic_load_explicit(y, memory_order_relaxed);\n\
    \tatomic_store_explicit(x, r0, memory_order_release);\n}\n\n\
    exists (0:r0=1 /\\ 0:r2=0)\n";

/// herd7's output for [`ORC`] under `rc11.cat` with `-outcomereads true`.
const ORC_READS: &str = "Test ORC Allowed\nStates 2\n\
    0:r0=1; 0:r1=0; 1:r0=0;\n0:r0=1; 0:r1=0; 1:r0=1;\n\
    Ok\nWitnesses\nPositive: 3 Negative: 0\nCondition exists (0:r0=1 /\\ 0:r2=0)\n\
    Observation ORC Always 3 0\nHash=8a449e14ccfad8dac41a0dac1f4e879a\n\n";

/// herd7's `-outcomereads true` (and the configuration's `outcomereads true`): each final
/// state shows the registers some allowed execution wrote in an instruction that reads
/// memory (a read, alone or in an expression, a read-modify-write, a compare-exchange,
/// `srcu_read_lock`; not a copy, a lock's read, nor the branch of an `if` whose condition
/// reads), each where its execution wrote it or its initial state holds it, and no other
/// register, not even the condition's or those of `locations`; the locations stay. The
/// states are told apart and ordered as herd7's maps are, and the counts do not change.
#[test]
fn outcomereads_shows_the_registers_read_from_memory() {
    let dir = temp_dir("outcomereads");
    std::fs::write(dir.join("OR.litmus"), OR).expect("test");
    std::fs::write(dir.join("ORC.litmus"), ORC).expect("test");
    std::fs::write(dir.join("reads.cfg"), "outcomereads true\n").expect("cfg");
    let k = kernel();
    let k: Vec<&str> = k.iter().map(String::as_str).collect();
    let with = |extra: &[&'static str], test: &'static str| {
        let mut args = k.clone();
        args.extend(extra);
        args.push(test);
        args
    };
    for args in [
        with(&["-outcomereads", "true"], "OR.litmus"),
        with(&["-conf", "reads.cfg"], "OR.litmus"),
        // The drawings are hazmat's own; the text is herd7's.
        with(
            &["-outcomereads", "true", "-show", "all", "-o", "drawings"],
            "OR.litmus",
        ),
    ] {
        assert_eq!(
            run(&dir, &args),
            (OR_READS.to_string(), String::new(), Some(0))
        );
    }
    // The option off, the states are the test's own.
    let (out, _, _) = run(&dir, &with(&["-outcomereads", "false"], "OR.litmus"));
    assert!(
        out.starts_with("Test OR Allowed\nStates 6\n0:r0=0; 0:r2=0; 1:r2=0; 1:r3=0; [y]=2;\n"),
        "{out}"
    );
    let rc11 = ["-model", "rc11.cat", "-macros", "c11.def"];
    let mut args = rc11.to_vec();
    args.extend(["-outcomereads", "true", "ORC.litmus"]);
    assert_eq!(
        run(&dir, &args),
        (ORC_READS.to_string(), String::new(), Some(0))
    );
    // A speed check shows the execution it decides by, so restricted (which of the
    // three it meets first may not be herd7's, whose is `0:r0=1; 0:r1=1; 0:r3=0; 1:r1=2;
    // 1:r4=7; [y]=2;`).
    let mut argv = vec!["herd7"];
    argv.extend(&k);
    argv.extend(["-speedcheck", "fast", "-outcomereads", "true", "OR.litmus"]);
    let out = text(&hazmat(&dir, &argv).stdout);
    let witnesses: Vec<&str> = OR_READS
        .lines()
        .filter(|l| l.starts_with("0:r0=1;"))
        .collect();
    let states: Vec<&str> = out.lines().skip(2).take_while(|l| *l != "Ok").collect();
    assert!(
        out.starts_with("Test OR Allowed\nStates 1\n")
            && states.len() == 1
            && witnesses.contains(&states[0]),
        "{out}"
    );
    // `hazmat check` honours the configuration's key.
    std::fs::write(
        dir.join("rc11.cfg"),
        "macros c11.def\nmodel rc11.cat\noutcomereads true\n",
    )
    .expect("cfg");
    let out = hazmat(&dir, &["check", "--conf", "rc11.cfg", "ORC.litmus"]);
    assert_eq!(
        untimed(&text(&out.stdout)),
        ORC_READS,
        "{}",
        text(&out.stderr)
    );
    let out = hazmat(
        &dir,
        &["check", "--json", "--conf", "rc11.cfg", "ORC.litmus"],
    );
    let j: serde_json::Value =
        serde_json::from_str(text(&out.stdout).trim()).expect("one JSON object");
    assert_eq!(
        j["states"],
        serde_json::json!(["0:r0=1; 0:r1=0; 1:r0=0;", "0:r0=1; 0:r1=0; 1:r0=1;"])
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Message passing with a filter that keeps the executions whose first read sees the
/// flag, and names a register of a thread the test does not have (`5:r0`, which herd7
/// reads as 0).
const F: &str = "C F\n\n{}\n\n\
    P0(int *x, int *y)\n{\n\tWRITE_ONCE(*x, 1);\n\tWRITE_ONCE(*y, 1);\n}\n\n\
    P1(int *x, int *y)\n{\n\tint r0;\n\tint r1;\n\tr0 = READ_ONCE(*y);\n\tr1 = READ_ONCE(*x);\n}\n\n\
    filter (1:r0=1 /\\ 5:r0=0)\nexists (1:r1=0)\n";

/// The same under C11's orderings, its filter on a location too.
const FC: &str = "C FC\n\n{}\n\n\
    P0(atomic_int *x, atomic_int *y)\n{\n\
    \tatomic_store_explicit(x, 1, memory_order_relaxed);\n\
    \tatomic_store_explicit(y, 1, memory_order_release);\n}\n\n\
    P1(atomic_int *x, atomic_int *y)\n{\n\
    \tint r0 = atomic_load_explicit(y, memory_order_acquire);\n\
    \tint r1 = atomic_load_explicit(x, memory_order_relaxed);\n}\n\n\
    filter (1:r0=1 /\\ y=1)\nexists (1:r1=0)\n";

/// herd7's `-checkfilter false`: the filter discards nothing, under the kernel's model,
/// RC11 and a model the interpreter runs, which completes the candidates itself; `true`
/// is the default.
#[test]
fn checkfilter_false_keeps_what_the_filter_discards() {
    let dir = temp_dir("checkfilter");
    std::fs::write(dir.join("F.litmus"), F).expect("test");
    std::fs::write(dir.join("FC.litmus"), FC).expect("test");
    let k = kernel();
    let k: Vec<&str> = k.iter().map(String::as_str).collect();
    let output = |name: &str, states: &str, witnesses: &str, observation: &str, hash: &str| {
        format!(
            "Test {name} Allowed\n{states}Ok\nWitnesses\nPositive: {witnesses}\n\
             Condition exists (1:r1=0)\nObservation {name} {observation}\nHash={hash}\n\n"
        )
    };
    let f_hash = "594f4302c0b69c170eb3d2fabdb7790e";
    let fc_hash = "bedd8e590a01665f71944b9a24704f66";
    let both = "States 2\n1:r1=0;\n1:r1=1;\n";
    let filtered = output("F", both, "1 Negative: 1", "Sometimes 1 1", f_hash);
    for (checkfilter, expected) in [
        (None, filtered.clone()),
        (Some("true"), filtered.clone()),
        (
            Some("false"),
            output("F", both, "2 Negative: 2", "Sometimes 2 2", f_hash),
        ),
    ] {
        let mut args = k.clone();
        if let Some(v) = checkfilter {
            args.extend(["-checkfilter", v]);
        }
        args.push("F.litmus");
        assert_eq!(run(&dir, &args), (expected, String::new(), Some(0)));
    }
    for model in [
        &["-model", "rc11.cat", "-macros", "c11.def"][..],
        &["-model", "sc.cat", "-macros", "c11.def"][..],
    ] {
        let mut args = model.to_vec();
        args.extend(["-checkfilter", "false", "FC.litmus"]);
        assert_eq!(
            run(&dir, &args),
            (
                output("FC", both, "1 Negative: 2", "Sometimes 1 2", fc_hash),
                String::new(),
                Some(0)
            ),
            "{model:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// herd7 7.58's `-switch` sets a switch that only its native CAV12 models read: on a C
/// test, under the kernel's model or a cat model, it changes nothing.
#[test]
fn switch_changes_nothing_on_a_c_test() {
    let dir = temp_dir("switch");
    std::fs::write(dir.join("OR.litmus"), OR).expect("test");
    std::fs::write(dir.join("ORC.litmus"), ORC).expect("test");
    let k = kernel();
    let k: Vec<&str> = k.iter().map(String::as_str).collect();
    let rc11 = vec!["-model", "rc11.cat", "-macros", "c11.def"];
    for (model, test) in [(k, "OR.litmus"), (rc11, "ORC.litmus")] {
        let mut plain = model.clone();
        plain.push(test);
        let mut switched = model.clone();
        switched.extend(["-switch", test]);
        let expected = run(&dir, &plain);
        assert_eq!(expected.2, Some(0), "{}", expected.1);
        assert_eq!(run(&dir, &switched), expected);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Message passing, release and acquire.
const MP: &str = "C MP\n\n{}\n\n\
    P0(int *x, int *y)\n{\n\tWRITE_ONCE(*x, 1);\n\tsmp_store_release(y, 1);\n}\n\n\
    P1(int *x, int *y)\n{\n\tint r0;\n\tint r1;\n\tr0 = smp_load_acquire(y);\n\
    \tr1 = READ_ONCE(*x);\n}\n\nexists (1:r0=1 /\\ 1:r1=0)\n";

/// A register of a thread the test does not have: herd7 refuses it in the init block,
/// in `locations` and in the test's own condition ("Bad process P5", after an unknown
/// macro and before what else it refuses; the condition's atoms from the last), and reads
/// it as 0 in a filter (see [`checkfilter_false_keeps_what_the_filter_discards`]) and in a
/// `-conds` condition, whose states show it; its threads are not checked, but the test's
/// own condition's still are.
#[test]
fn a_register_of_a_thread_the_test_does_not_have() {
    let dir = temp_dir("missing-thread");
    let k = kernel();
    let k: Vec<&str> = k.iter().map(String::as_str).collect();
    let refused = |name: &str, edit: &dyn Fn(&str) -> String, thread: u32| {
        let file = format!("{name}.litmus");
        std::fs::write(
            dir.join(&file),
            edit(&MP.replacen("C MP", &format!("C {name}"), 1)),
        )
        .expect("test");
        let mut args = k.clone();
        args.push(&file);
        assert_eq!(
            run(&dir, &args),
            (
                String::new(),
                format!("Warning: File \"{file}\": Bad process P{thread}\n"),
                Some(0)
            )
        );
    };
    let condition = |c: &'static str| move |t: &str| t.replace("exists (1:r0=1 /\\ 1:r1=0)", c);
    refused("B5", &condition("exists (1:r0=1 /\\ 5:r0=0)"), 5);
    refused("B6", &condition("exists (5:r0=1 /\\ 7:r0=0 \\/ 6:r1=0)"), 6);
    refused("B7", &condition("exists (1:r0=5:r2 /\\ 7:r0=8:r1)"), 7);
    refused(
        "L4",
        &condition("locations [4:r1; 3:r0]\nexists (2:r0=1)"),
        4,
    );
    refused("I3", &|t: &str| t.replace("{}", "{ 3:r0=1; }"), 3);
    // The check comes after the macros are expanded, before the rest is refused.
    refused(
        "P2",
        &|t: &str| {
            t.replace("{}", "{ 2:r0=1; }")
                .replace("P1(int *x, int *y)", "P1(int *x, int *y, int *x)")
        },
        2,
    );
    std::fs::write(
        dir.join("U.litmus"),
        MP.replace("C MP", "C U")
            .replace("{}", "{ 2:r0=1; }")
            .replace("WRITE_ONCE(*x, 1);", "foo(x);"),
    )
    .expect("test");
    let mut args = k.clone();
    args.push("U.litmus");
    assert_eq!(
        run(&dir, &args),
        (
            String::new(),
            "Warning: File \"U.litmus\": Unknown macro foo (User error)\n".to_string(),
            Some(0)
        )
    );
    // `hazmat check` places it.
    let out = hazmat(&dir, &["check", "B5.litmus"]);
    assert!(
        text(&out.stderr).contains("B5.litmus:19:19: error: there is no thread P5"),
        "{}",
        text(&out.stderr)
    );
    // A `-conds` condition's register of a missing thread holds 0, and is shown.
    std::fs::write(dir.join("MP.litmus"), MP).expect("test");
    std::fs::write(dir.join("c5.txt"), "MP \"exists (1:r0=1 /\\ 5:r0=0)\"\n").expect("conds");
    let mut args = k.clone();
    args.extend(["-conds", "c5.txt", "MP.litmus"]);
    assert_eq!(
        run(&dir, &args),
        (
            "Test MP Allowed\nStates 2\n1:r0=0; 5:r0=0;\n1:r0=1; 5:r0=0;\nOk\nWitnesses\n\
             Positive: 1 Negative: 2\nCondition exists (1:r0=1 /\\ 5:r0=0)\n\
             Observation MP Sometimes 1 2\nHash=93fb56e51e834d9ce9838c3b73def063\n\n"
                .to_string(),
            String::new(),
            Some(0)
        )
    );
    // Under `-outcomereads true` it is a register no instruction wrote: not shown.
    let mut args = k.clone();
    args.extend(["-outcomereads", "true", "-conds", "c5.txt", "MP.litmus"]);
    let (out, _, _) = run(&dir, &args);
    assert!(
        out.starts_with(
            "Test MP Allowed\nStates 3\n1:r0=0; 1:r1=0;\n1:r0=0; 1:r1=1;\n1:r0=1; 1:r1=1;\n"
        ),
        "{out}"
    );
    // The test's own condition is checked all the same.
    std::fs::write(dir.join("c6.txt"), "B5 \"exists (1:r0=1)\"\n").expect("conds");
    let mut args = k.clone();
    args.extend(["-conds", "c6.txt", "B5.litmus"]);
    assert_eq!(
        run(&dir, &args),
        (
            String::new(),
            "Warning: File \"B5.litmus\": Bad process P5\n".to_string(),
            Some(0)
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}
