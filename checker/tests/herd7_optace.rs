//! herd7's `-optace` (and the configuration key `optace`), as both of hazmat's command
//! lines read it (`models::optace`): how herd7 builds the candidates it gives a model,
//! which only a model without a check of coherence of its own sees, and the runs cut at a
//! loop's unrolling under any model.
//!
//! Each test asserts hazmat's own answer, then compares it with herd7's when herd7 is
//! present (`$HAZMAT_ORACLE` or `../shared/oracle/herd7`). Every file a test needs is
//! written here, built into hazmat or in this package's `tests/lkmm-history`, so none
//! needs the shared folder.

#[path = "common/herd7_cli.rs"]
mod herd7_cli;
#[path = "common/untimed.rs"]
mod untimed;

use herd7_cli::{hazmat, same_as_herd7, text};
use std::path::{Path, PathBuf};
use untimed::untimed;

/// A fresh temporary directory for one test.
fn temp_dir(tag: &str) -> PathBuf {
    herd7_cli::temp_dir(&format!("herd7-optace-{tag}"))
}

/// A thread that reads `x` before it writes it twice, beside another write of `x`: a read
/// of a later write of its own thread, a read of an overwritten write, and an overwritten
/// final write are each left out by herd7's `-optace true`, and by a model's coherence.
const OPTACE: &str = "C OA\n{}\n\
    P0(atomic_int *x) { int r0; r0 = atomic_load_explicit(x, memory_order_relaxed); \
    atomic_store_explicit(x, 1, memory_order_relaxed); \
    atomic_store_explicit(x, 2, memory_order_relaxed); }\n\
    P1(atomic_int *x) { atomic_store_explicit(x, 3, memory_order_relaxed); }\n\
    exists (0:r0=1 \\/ x=1)\n";

/// A spin loop whose runs cut at the unrolling read the initial value after the thread's
/// own write: herd7 marks them `Loop` under `-optace iico`, and builds none under `true`.
const SPIN: &str = "C OL\n{}\n\
    P0(atomic_int *x) { int r0; atomic_store_explicit(x, 1, memory_order_relaxed); \
    r0 = atomic_load_explicit(x, memory_order_relaxed); \
    while (r0 == 0) { r0 = atomic_load_explicit(x, memory_order_relaxed); } }\n\
    exists (0:r0=1)\n";

/// herd7's `-optace true` (and a configuration's `optace true`, in any case) builds fewer
/// candidates: a read reads no write after it in its thread, nor one a write between the
/// two overwrites, and a write a later one of its thread overwrites is not final; `pco`
/// holds what each thread's accesses show of coherence (a cycle drops the candidate) and
/// the model runs with the variant `cos-opt`, so `cos.cat` generates coherence orders from
/// it. A model with no check of coherence answers otherwise (12 states, 3 under `true`);
/// `cos.cat` alone gives other counts; RC11, which checks coherence, gives the same answer,
/// but for the runs cut at a loop, which herd7 marks only when it builds one. herd7
/// 7.58's answers are written here.
#[test]
fn optace_true_builds_the_candidates_as_herd7_does() {
    let dir = temp_dir("optace");
    std::fs::write(dir.join("OA.litmus"), OPTACE).expect("test");
    std::fs::write(dir.join("OL.litmus"), SPIN).expect("test");
    std::fs::write(dir.join("none.cat"), "\"no coherence\"\n").expect("model");
    std::fs::write(
        dir.join("cos-only.cat"),
        "\"cos only\"\ninclude \"cos.cat\"\n",
    )
    .expect("model");
    std::fs::write(dir.join("true.cfg"), "optace TRUE\n").expect("cfg");
    std::fs::write(dir.join("back.cfg"), "optace true\noptace iico\n").expect("cfg");
    let twelve = "States 12\n0:r0=0; [x]=1;\n0:r0=0; [x]=2;\n0:r0=0; [x]=3;\n\
        0:r0=1; [x]=1;\n0:r0=1; [x]=2;\n0:r0=1; [x]=3;\n0:r0=2; [x]=1;\n0:r0=2; [x]=2;\n\
        0:r0=2; [x]=3;\n0:r0=3; [x]=1;\n0:r0=3; [x]=2;\n0:r0=3; [x]=3;\nOk\n";
    let three = "States 3\n0:r0=0; [x]=2;\n0:r0=0; [x]=3;\n0:r0=3; [x]=2;\nNo\n";
    let rc11: &[&str] = &["-model", "rc11.cat", "-macros", "c11.def"];
    let with = |model: &[&'static str], option: &'static str, value: &'static str| {
        let mut args = vec!["herd7"];
        args.extend(model);
        args.extend([option, value]);
        args
    };
    let (none, cos) = (&["-model", "none.cat"][..], &["-model", "cos-only.cat"][..]);
    let runs = [
        (with(none, "-optace", "iico"), twelve, "Sometimes 6 6"),
        (with(none, "-optace", "true"), three, "Never 0 3"),
        (with(none, "-conf", "true.cfg"), three, "Never 0 3"),
        (with(none, "-conf", "back.cfg"), twelve, "Sometimes 6 6"),
        (with(cos, "-optace", "iico"), twelve, "Sometimes 12 12"),
        (with(cos, "-optace", "true"), three, "Never 0 4"),
        (with(cos, "-variant", "cos-opt"), twelve, "Sometimes 12 12"),
        (with(rc11, "-optace", "iico"), three, "Never 0 4"),
        (with(rc11, "-optace", "true"), three, "Never 0 4"),
    ];
    for (mut args, states, observation) in runs {
        args.push("OA.litmus");
        let out = untimed(&text(&hazmat(&dir, &args).stdout));
        assert!(
            out.contains(states) && out.contains(&format!("Observation OA {observation}\n")),
            "{args:?}: {out}"
        );
        same_as_herd7(&dir, &args[1..]);
    }
    // `hazmat check` reads the key too.
    let check = "check --conf true.cfg --cat none.cat --macros c11.def --json OA.litmus";
    let out = hazmat(&dir, &check.split(' ').collect::<Vec<_>>());
    let j: serde_json::Value =
        serde_json::from_str(text(&out.stdout).trim()).expect("one JSON object");
    assert_eq!((&j["positive"], &j["negative"]), (&0.into(), &3.into()));
    // Under RC11, the runs cut at the loop read the initial value after the thread's own
    // write: `Loop` and the warning under `iico`, nothing under `true`.
    for (options, marked) in [(&[][..], true), (&["-optace", "true"][..], false)] {
        let mut args = vec!["herd7"];
        args.extend(rc11);
        args.extend(options);
        args.push("OL.litmus");
        let out = hazmat(&dir, &args);
        let stdout = untimed(&text(&out.stdout));
        assert!(stdout.contains("Observation OL Always 1 0\n"), "{stdout}");
        assert_eq!(
            stdout.contains("\nLoop Ok\n"),
            marked,
            "{options:?}: {stdout}"
        );
        assert_eq!(
            text(&out.stderr).contains("unrolling limit exceeded at While"),
            marked,
            "{options:?}"
        );
        same_as_herd7(&dir, &args[1..]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Kernel read-modify-writes and a store of a read, each of which may read its own
/// instruction's write under `-optace false`: an exchange (`XS`), an `atomic_add_return`
/// whose value is then its own and unsolved (`AR`, herd7's `S2`), `WRITE_ONCE` of a
/// `READ_ONCE` of the same location (`RW`, `S5`), and a compare-exchange whose expected
/// value is read from another thread (`CX`: it reads its own 1 when it expected 1).
const KERNEL_SELF: [(&str, &str); 4] = [
    (
        "XS",
        "C XS\n{}\nP0(int *x) { int r0; r0 = xchg(x, 1); }\nexists (0:r0=1)\n",
    ),
    (
        "AR",
        "C AR\n{}\nP0(atomic_t *x) { int r0; r0 = atomic_add_return(0, x); }\n\
         exists (0:r0=0)\n",
    ),
    (
        "RW",
        "C RW\n{}\nP0(int *x) { int r0; WRITE_ONCE(*x, READ_ONCE(*x)); r0 = READ_ONCE(*x); }\n\
         exists (0:r0=0)\n",
    ),
    (
        "CX",
        "C CX\n{}\nP0(int *x, int *y) { int r0; int r1; r1 = READ_ONCE(*y); \
         r0 = cmpxchg(x, r1, 1); }\nP1(int *y) { WRITE_ONCE(*y, 1); }\nexists (0:r0=1)\n",
    ),
];

/// The same store of a read in C11, then a fetch-and-add: the store's read may read the
/// store under `false`, but the fetch-and-add, one event to herd7, never reads itself.
const C11_SELF: &str = "C CR\n{}\n\
    P0(atomic_int *x) { int r0; atomic_store_explicit(x, atomic_load_explicit(x, \
    memory_order_relaxed), memory_order_relaxed); \
    r0 = atomic_fetch_add_explicit(x, 0, memory_order_relaxed); }\n\
    exists (0:r0=0)\n";

/// The state lines and counts herd7 7.58 prints for a test of [`KERNEL_SELF`] under a
/// model without checks, with `-optace iico` and with `-optace false`.
fn kernel_self_expected(name: &str) -> (&'static str, &'static str) {
    match name {
        "XS" => (
            "States 1\n0:r0=0;\nNo\nWitnesses\nPositive: 0 Negative: 1\n",
            "States 2\n0:r0=0;\n0:r0=1;\nOk\nWitnesses\nPositive: 1 Negative: 1\n",
        ),
        "AR" => (
            "States 1\n0:r0=0;\nOk\nWitnesses\nPositive: 1 Negative: 0\n",
            "States 2\n0:r0=S2;\n0:r0=0;\nOk\nWitnesses\nPositive: 1 Negative: 1\n",
        ),
        "RW" => (
            "States 1\n0:r0=0;\nOk\nWitnesses\nPositive: 2 Negative: 0\n",
            "States 2\n0:r0=S5;\n0:r0=0;\nOk\nWitnesses\nPositive: 3 Negative: 1\n",
        ),
        _ => (
            "States 1\n0:r0=0;\nNo\nWitnesses\nPositive: 0 Negative: 2\n",
            "States 2\n0:r0=0;\n0:r0=1;\nOk\nWitnesses\nPositive: 1 Negative: 2\n",
        ),
    }
}

/// herd7's `-optace false` (and a configuration's `optace false`) leaves nothing out: a
/// read may read the write its own instruction makes after it, a kernel
/// read-modify-write's own write or the store of a `WRITE_ONCE(*x, READ_ONCE(*x))`, and
/// the value it reads goes round a cycle that herd7 solves (or names, `S2`) as hazmat
/// does. A model without checks sees those candidates; the kernel's model and RC11 reject
/// every one (held to herd7 on the conformance corpus and on generated programs), so they
/// answer as under `iico` and still run natively. A C11 read-modify-write, one event to
/// herd7, never reads itself. herd7 7.58's answers are written here.
#[test]
fn optace_false_builds_the_candidates_as_herd7_does() {
    let dir = temp_dir("false");
    for (name, test) in KERNEL_SELF {
        std::fs::write(dir.join(format!("{name}.litmus")), test).expect("test");
    }
    std::fs::write(dir.join("CR.litmus"), C11_SELF).expect("test");
    std::fs::write(dir.join("none.cat"), "\"no checks\"\n").expect("model");
    std::fs::write(dir.join("false.cfg"), "optace False\n").expect("cfg");
    let lkmm = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lkmm-history/v6.15-lkmmv2");
    let lkmm = lkmm.to_str().expect("path");
    for (name, _) in KERNEL_SELF {
        let file = format!("{name}.litmus");
        let (iico, all) = kernel_self_expected(name);
        for (options, expected) in [
            (&["-optace", "iico"][..], iico),
            (&["-optace", "false"][..], all),
            (&["-conf", "false.cfg"][..], all),
        ] {
            let mut args = vec!["herd7", "-I", lkmm, "-macros", "linux-kernel.def"];
            args.extend(["-model", "none.cat"]);
            args.extend(options);
            args.push(&file);
            let out = hazmat(&dir, &args);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{args:?}: {}",
                text(&out.stderr)
            );
            let stdout = untimed(&text(&out.stdout));
            assert!(stdout.contains(expected), "{args:?}: {stdout}");
            same_as_herd7(&dir, &args[1..]);
        }
        // The kernel's model rejects every candidate `false` adds.
        let args = [
            "herd7",
            "-I",
            lkmm,
            "-conf",
            "linux-kernel.cfg",
            "-optace",
            "false",
            &file,
        ];
        let out = untimed(&text(&hazmat(&dir, &args).stdout));
        let observation = match name {
            "XS" => "Never 0 1",
            "CX" => "Never 0 2",
            _ => "Always 1 0",
        };
        assert!(
            out.contains(&format!("Observation {name} {observation}\n")),
            "{args:?}: {out}"
        );
        same_as_herd7(&dir, &args[1..]);
    }
    // `hazmat check` reads the key too, and runs the kernel's model natively under it.
    std::fs::write(
        dir.join("kernel-false.cfg"),
        "conf linux-kernel.cfg\noptace false\n",
    )
    .expect("cfg");
    let check = |args: &[&str]| {
        let out = hazmat(&dir, args);
        serde_json::from_str::<serde_json::Value>(text(&out.stdout).trim()).expect("JSON")
    };
    let j = check(&[
        "check",
        "--conf",
        "false.cfg",
        "--cat",
        "none.cat",
        "--json",
        "XS.litmus",
    ]);
    assert_eq!((&j["positive"], &j["negative"]), (&1.into(), &1.into()));
    let j = check(&[
        "check",
        "-I",
        lkmm,
        "--conf",
        "kernel-false.cfg",
        "--json",
        "XS.litmus",
    ]);
    assert_eq!((&j["positive"], &j["negative"]), (&0.into(), &1.into()));
    assert_eq!(j["model_source"]["kind"], "native", "{j}");
    // C11: the store's read reads the store under `false`; the fetch-and-add never reads
    // itself. RC11 rejects both.
    for (model, optace, observation) in [
        ("none.cat", "iico", "Sometimes 3 1"),
        ("none.cat", "false", "Sometimes 4 2"),
        ("rc11.cat", "false", "Always 1 0"),
    ] {
        let args = [
            "herd7",
            "-macros",
            "c11.def",
            "-model",
            model,
            "-optace",
            optace,
            "CR.litmus",
        ];
        let out = untimed(&text(&hazmat(&dir, &args).stdout));
        assert!(
            out.contains(&format!("Observation CR {observation}\n")),
            "{args:?}: {out}"
        );
        same_as_herd7(&dir, &args[1..]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A read at an address herd7 cannot solve (computed from a value that goes round a
/// cycle: a read-modify-write reading its own write under `-optace false`, a value out of
/// thin air under a C11 model that allows one) is paired by herd7 with every write of every
/// location; such a candidate is dropped as unsolved, unless an operator fails on the
/// value it reads (here `p`'s initial value, the address `z`, times 0), which stops herd7
/// once the model allows the candidate, with nothing on stdout. hazmat tries such a read
/// at every location too, so it reads `p` and stops with herd7's words (herd7 7.58's
/// message is written here).
#[test]
fn herd7_stops_where_a_read_at_an_unsolved_address_meets_an_illegal_operation() {
    let dir = temp_dir("unsolved");
    std::fs::write(
        dir.join("UA.litmus"),
        "C UA\n{ int *p = &z; }\nP0(int *x) { int r0; int r1; int r2; int r3; \
         r0 = atomic_add_return_relaxed(1, x); r1 = r0 - r0; r2 = READ_ONCE(*(x + r1)); \
         r3 = r2 * 0; }\nexists (0:r0=1)\n",
    )
    .expect("test");
    std::fs::write(dir.join("UC.litmus"), UC).expect("test");
    std::fs::write(dir.join("none.cat"), "\"no checks\"\n").expect("model");
    // Under `iico` the read-modify-write never reads itself: the address is solved.
    let iico = kernel("none.cat", "iico", "UA.litmus");
    let out = untimed(&text(&hazmat(&dir, &iico).stdout));
    assert!(out.contains("Observation UA Always 2 0\n"), "{out}");
    same_as_herd7(&dir, &iico[1..]);
    let c11 = [
        "herd7",
        "-macros",
        "c11.def",
        "-model",
        "c11_partialSC.cat",
        "UC.litmus",
    ];
    for (args, stopped) in [
        (
            kernel("none.cat", "false", "UA.litmus"),
            "Warning: File \"UA.litmus\": Illegal operation * on constants z and 0 \
             (User error)\n",
        ),
        (
            kernel("cos.cat", "false", "UA.litmus"),
            "Warning: File \"UA.litmus\": Illegal operation * on constants z and 0 \
             (User error)\n",
        ),
        (
            c11.to_vec(),
            "Warning: File \"UC.litmus\": Illegal operation * on constants z and 0 \
             (User error)\n",
        ),
    ] {
        let out = hazmat(&dir, &args);
        assert_eq!(text(&out.stdout), "", "{args:?}");
        assert_eq!(text(&out.stderr), stopped, "{args:?}");
        same_as_herd7(&dir, &args[1..]);
    }
    // `hazmat check` locates the failure.
    std::fs::write(
        dir.join("none.cfg"),
        "macros linux-kernel.def\nmodel none.cat\noptace false\n",
    )
    .expect("configuration");
    let out = hazmat(
        &dir,
        &["check", "--conf", "none.cfg", "-I", LKMM, "UA.litmus"],
    );
    let err = text(&out.stderr);
    assert!(
        err.starts_with("UA.litmus:3:")
            && err.contains("the operator `*` has no meaning on z and 0"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The C11 test of the unsolved address: values out of thin air between `x` and `y`, and
/// a read at `y` plus their difference, whose value is multiplied by 0.
const UC: &str = "C UC\n{ int *p = &z; }\nP0(int *x, int *y) { int r0; int r1; int r2; int r3; \
    r0 = atomic_load_explicit(x, memory_order_relaxed); \
    atomic_store_explicit(y, r0, memory_order_relaxed); r1 = r0 - r0; \
    r2 = atomic_load_explicit(y + r1, memory_order_relaxed); r3 = r2 * 0; }\n\
    P1(int *x, int *y) { int r0; r0 = atomic_load_explicit(y, memory_order_relaxed); \
    atomic_store_explicit(x, r0, memory_order_relaxed); }\nexists (0:r0=1)\n";

/// The kernel's model files of this package, which `-I` names.
const LKMM: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/lkmm-history/v6.15-lkmmv2"
);

/// herd7's command line for `test` under the kernel's macros, `model` and `-optace`.
fn kernel<'a>(model: &'a str, optace: &'a str, test: &'a str) -> Vec<&'a str> {
    vec![
        "herd7",
        "-I",
        LKMM,
        "-macros",
        "linux-kernel.def",
        "-model",
        model,
        "-optace",
        optace,
        test,
    ]
}

/// Variants of the unsolved address, each with herd7 7.58's answer: one location tried
/// after another until an operator fails (`/`, `&`, `*` by 2, the first location in
/// herd7's order whose value fails); no failure (`+ 1`, `^` on itself, `- 1`), where
/// every such candidate is dropped as unsolved; the value read written to memory; the
/// kernel's model and RC11, which reject the candidates; and an address that is the
/// cycle's value itself, which herd7's pairing binds to each location in turn, solving
/// the cycle (`V1`, a read-modify-write reading itself, and `V2`, values out of thin air
/// under the default `iico` and in C11), so that a model without the kernel's checks
/// finds states the locations give.
#[test]
fn a_read_at_an_unsolved_address_reads_every_location_as_herd7s_does() {
    let dir = temp_dir("unsolved-variants");
    std::fs::write(dir.join("none.cat"), "\"no checks\"\n").expect("model");
    std::fs::write(dir.join("UC.litmus"), UC).expect("test");
    let ua = |name: &str, init: &str, params: &str, body: &str| {
        let source = format!(
            "C {name}\n{{ {init} }}\nP0({params}) {{ int r0; int r1; int r2; int r3; \
             r0 = atomic_add_return_relaxed(1, x); r1 = r0 - r0; \
             r2 = READ_ONCE(*(x + r1)); {body} }}\nexists (0:r0=1)\n"
        );
        std::fs::write(dir.join(format!("{name}.litmus")), source).expect("test");
    };
    ua("V5a", "int *p = &z;", "int *x", "r3 = r2 / 2;");
    ua("V5b", "int *p = &z;", "int *x", "r3 = r2 & 1;");
    ua(
        "V6",
        "int *p = &z; int *q = &w; w = 3;",
        "int *x",
        "r3 = r2 * 2;",
    );
    ua(
        "V11",
        "int *p = &z;",
        "int *x, int *y",
        "WRITE_ONCE(*y, r2 * 0);",
    );
    ua("V3", "int *p = &z;", "int *x", "r3 = r2 + 1;");
    ua("V5d", "int *p = &z;", "int *x", "r3 = r2 ^ r2;");
    ua("V5e", "int *p = &z;", "int *x", "r3 = r2 - 1;");
    std::fs::write(
        dir.join("V1.litmus"),
        "C V1\n{ int *x = &y; int *p = &z; }\nP0(int **x) { int *r0; int r2; \
         r0 = atomic_add_return_relaxed(0, x); r2 = READ_ONCE(*r0); }\nexists (0:r2=0)\n",
    )
    .expect("test");
    std::fs::write(
        dir.join("V2.litmus"),
        "C V2\n{ int *p = &z; }\nP0(int *x, int *y) { int *r0; int r2; r0 = READ_ONCE(*x); \
         WRITE_ONCE(*y, r0); r2 = READ_ONCE(*r0); }\nP1(int *x, int *y) { int *r0; \
         r0 = READ_ONCE(*y); WRITE_ONCE(*x, r0); }\nexists (0:r2=0)\n",
    )
    .expect("test");
    std::fs::write(
        dir.join("V2c.litmus"),
        "C V2c\n{ int *p = &z; }\nP0(atomic_int *x, atomic_int *y) { int r0; int r2; \
         r0 = atomic_load_explicit(x, memory_order_relaxed); \
         atomic_store_explicit(y, r0, memory_order_relaxed); \
         r2 = atomic_load_explicit(r0, memory_order_relaxed); }\n\
         P1(atomic_int *x, atomic_int *y) { int r0; \
         r0 = atomic_load_explicit(y, memory_order_relaxed); \
         atomic_store_explicit(x, r0, memory_order_relaxed); }\nexists (0:r2=0)\n",
    )
    .expect("test");
    let stop = |test: &str, op: &str, a: &str, b: &str| {
        format!(
            "Warning: File \"{test}.litmus\": Illegal operation {op} on constants {a} and {b} (User error)\n"
        )
    };
    for (test, op, a, b) in [
        ("V5a", "/", "z", "2"),
        ("V5b", "&", "z", "1"),
        ("V6", "*", "z", "2"),
        ("V11", "*", "z", "0"),
    ] {
        let args = kernel("none.cat", "false", &format!("{test}.litmus"))
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = hazmat(&dir, &args);
        assert_eq!(text(&out.stdout), "", "{test}");
        assert_eq!(text(&out.stderr), stop(test, op, a, b), "{test}");
        same_as_herd7(&dir, &args[1..]);
    }
    let lk = |test: &'static str| {
        vec![
            "herd7",
            "-I",
            LKMM,
            "-conf",
            "linux-kernel.cfg",
            "-optace",
            "false",
            test,
        ]
    };
    let c11 = |model: &'static str, test: &'static str| {
        vec!["herd7", "-macros", "c11.def", "-model", model, test]
    };
    let states = "States 4\n0:r2=0;\n0:r2=x;\n0:r2=y;\n0:r2=z;\n";
    for (args, shown) in [
        (
            kernel("none.cat", "false", "V3.litmus"),
            "Observation V3 Always 2 0\n".to_string(),
        ),
        (
            kernel("none.cat", "false", "V5d.litmus"),
            "Observation V5d Always 2 0\n".to_string(),
        ),
        (
            kernel("none.cat", "false", "V5e.litmus"),
            "Observation V5e Always 2 0\n".to_string(),
        ),
        (lk("V6.litmus"), "Observation V6 Always 1 0\n".to_string()),
        (
            c11("rc11.cat", "UC.litmus"),
            "Observation UC Never 0 3\n".to_string(),
        ),
        (
            kernel("none.cat", "false", "V1.litmus"),
            format!("{states}Ok\nWitnesses\nPositive: 3 Negative: 3\n"),
        ),
        (
            kernel("cos.cat", "false", "V1.litmus"),
            format!("{states}Ok\nWitnesses\nPositive: 3 Negative: 3\n"),
        ),
        (lk("V1.litmus"), "States 1\n0:r2=0;\nOk\n".to_string()),
        (
            kernel("none.cat", "iico", "V2.litmus"),
            format!("{states}Ok\nWitnesses\nPositive: 3 Negative: 3\n"),
        ),
        (lk("V2.litmus"), "Observation V2 Never 0 0\n".to_string()),
        (
            c11("c11_partialSC.cat", "V2c.litmus"),
            format!("{states}Ok\nWitnesses\nPositive: 1 Negative: 3\n"),
        ),
        (
            c11("rc11.cat", "V2c.litmus"),
            "Observation V2c Never 0 0\n".to_string(),
        ),
    ] {
        let out = untimed(&text(&hazmat(&dir, &args).stdout));
        assert!(out.contains(&shown), "{args:?}: {out}");
        same_as_herd7(&dir, &args[1..]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The tests of a read at a constant address that is no location (`r1` holds 0, or 5):
/// alone, beside a write at an address computed from values read (in another thread, or
/// later in its own), beside a read at such an address only, a write instead of the read,
/// two reads, a read in a branch no execution takes, a kernel exchange there, and the
/// computed write's address an integer itself.
const NOWHERE: [(&str, &str); 14] = [
    (
        "N0",
        "{ 0:r1=0; }\nP0(int *x) { int r0; int *r1; r0 = READ_ONCE(*r1); }",
    ),
    (
        "N1",
        "{ 0:r1=0; int *q = &x; }\nP0(int *x) { int r0; int *r1; r0 = READ_ONCE(*r1); }\n\
         P1(int **q) { int *r1; r1 = READ_ONCE(*q); WRITE_ONCE(*r1, 1); }",
    ),
    (
        "N2",
        "{ 0:r1=0; int *q = &x; }\nP0(int *x) { int r0; int *r1; r0 = READ_ONCE(*r1); }\n\
         P1(int **q) { int *r1; int r2; r1 = READ_ONCE(*q); r2 = READ_ONCE(*r1); }",
    ),
    (
        "N3",
        "{ 0:r1=5; int *q = &x; }\nP0(int *x) { int r0; int *r1; r0 = READ_ONCE(*r1); }\n\
         P1(int **q) { int *r1; r1 = READ_ONCE(*q); WRITE_ONCE(*r1, 1); }",
    ),
    (
        "N4",
        "{ 0:r1=0; int *q = &x; }\nP0(int *x) { int r0; int *r1; WRITE_ONCE(*r1, 2); }\n\
         P1(int **q) { int *r1; r1 = READ_ONCE(*q); WRITE_ONCE(*r1, 1); }",
    ),
    (
        "N5",
        "{ 0:r1=0; int *q = &x; }\nP0(int *x) { int r0; int r2; int *r1; \
         r2 = READ_ONCE(*x); if (r2 == 7) { r0 = READ_ONCE(*r1); } }\n\
         P1(int **q) { int *r1; r1 = READ_ONCE(*q); WRITE_ONCE(*r1, 1); }",
    ),
    (
        "N6",
        "{ 0:r1=0; }\nP0(int *x) { int r0; int r2; int *r1; r2 = READ_ONCE(*x); \
         if (r2 == 7) { r0 = READ_ONCE(*r1); } }\nP1(int *x) { WRITE_ONCE(*x, 1); }",
    ),
    (
        "N7",
        "{ 0:r1=0; int *q = &x; }\nP0(int *x) { int r0; int *r1; r0 = READ_ONCE(*r1); \
         r0 = READ_ONCE(*r1); }\n\
         P1(int **q) { int *r1; r1 = READ_ONCE(*q); WRITE_ONCE(*r1, 1); }",
    ),
    (
        "N8",
        "{ 0:r1=0; }\nP0(int *x) { int r0; int *r1; r0 = xchg(r1, 1); }",
    ),
    (
        "N9",
        "{ 0:r1=0; int *q = &x; }\nP0(int **q) { int r0; int *r1; int *r2; \
         r0 = READ_ONCE(*r1); r2 = READ_ONCE(*q); WRITE_ONCE(*r2, 1); }",
    ),
    (
        "N10",
        "{ 0:r1=0; int *q = &x; }\nP0(int *x) { int r0; int *r1; r0 = READ_ONCE(*r1); }\n\
         P1(int **q) { int *r1; r1 = READ_ONCE(*q); WRITE_ONCE(*r1, 1); }\n\
         P2(int **q) { WRITE_ONCE(*q, 3); }",
    ),
    (
        "N11",
        "{ 0:r1=0; int *q = &x; }\nP0(int *x) { int r0; int *r1; r0 = READ_ONCE(*r1); }\n\
         P1(int **q) { int *r1; r1 = READ_ONCE(*q); WRITE_ONCE(*r1, 1); }\n\
         P2(int **q) { WRITE_ONCE(*q, 0); }",
    ),
    (
        "N12",
        "{ 0:r1=0; }\nP0(atomic_int *x) { int r0; atomic_int *r1; \
         r0 = atomic_load_explicit(r1, memory_order_relaxed); }",
    ),
    (
        "N13",
        "{ 0:r1=0; atomic_int *q = &x; }\nP0(atomic_int *x) { int r0; atomic_int *r1; \
         r0 = atomic_load_explicit(r1, memory_order_relaxed); }\n\
         P1(atomic_int **q) { atomic_int *r1; \
         r1 = atomic_load_explicit(q, memory_order_relaxed); \
         atomic_store_explicit(r1, 1, memory_order_relaxed); }",
    ),
];

/// Writes each `(name, body)` of `tests` into `dir` as the test `name.litmus`, whose
/// condition is `exists (0:r0=0)`.
fn write_tests(dir: &Path, tests: &[(&str, &str)]) {
    for (name, body) in tests {
        std::fs::write(
            dir.join(format!("{name}.litmus")),
            format!("C {name}\n{body}\nexists (0:r0=0)\n"),
        )
        .expect("test");
    }
}

/// Runs `hazmat` with each command line of `runs` in `dir`: `Ok` with what its output
/// shows (and nothing on standard error), `Err` with what it prints on standard error
/// alone, herd7 7.58's; and compares it with herd7 itself when herd7 is at hand.
fn answers_or_stops_as_herd7(dir: &Path, runs: Vec<(Vec<String>, Result<String, String>)>) {
    for (args, expected) in runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = hazmat(dir, &args);
        let (stdout, stderr) = (untimed(&text(&out.stdout)), text(&out.stderr));
        match expected {
            Ok(shown) => {
                assert!(stdout.contains(&shown), "{args:?}: {stdout}{stderr}");
                assert_eq!(stderr, "", "{args:?}");
            }
            Err(stopped) => {
                assert_eq!(stdout, "", "{args:?}");
                assert_eq!(stderr, stopped, "{args:?}");
            }
        }
        same_as_herd7(dir, &args[1..]);
    }
}

/// A read at a constant address that is no location: herd7 pairs it with the writes at an
/// address computed from values read (and at that same address), and stops the test, with
/// no output, only where some combination of paths has none (`Non symbolic location with
/// no initial write`, then an empty line); otherwise every pairing asks the computed
/// address to be the constant, and the candidates are dropped (`Never 0 0`) unless one is
/// at that very address, which stops herd7 as any access there does. A later write of the
/// read's thread pairs but under `-optace true`, and the exchange's own write only under
/// `-optace false`. hazmat decides the same (herd7 7.58's answers are written here), and
/// `hazmat check` answers where herd7 does and locates the read where it stops.
#[test]
fn a_read_at_a_constant_address_that_is_no_location_stops_as_herd7_does() {
    let dir = temp_dir("nowhere");
    write_tests(&dir, &NOWHERE);
    let lk = |test: String, optace: &'static str| {
        let mut args = vec![
            "herd7".to_string(),
            "-I".into(),
            LKMM.into(),
            "-conf".into(),
            "linux-kernel.cfg".into(),
        ];
        if !optace.is_empty() {
            args.extend(["-optace".into(), optace.into()]);
        }
        args.push(test);
        args
    };
    let fatal = |name: &str, n: u32| {
        format!(
            "Warning: File \"{name}.litmus\": Non symbolic location with no initial write: \
             '[{n}]'\n\n"
        )
    };
    let user = |name: &str, n: u32| {
        format!(
            "Warning: File \"{name}.litmus\": Non-symbolic memory access found on '[{n}]' \
             (User error)\n"
        )
    };
    let never = |name: &str| {
        format!(
            "States 0\nNo\nWitnesses\nPositive: 0 Negative: 0\n\
         Condition exists (0:r0=0)\nObservation {name} Never 0 0\n"
        )
    };
    let runs: Vec<(Vec<String>, Result<String, String>)> = vec![
        (lk("N0.litmus".into(), ""), Err(fatal("N0", 0))),
        (lk("N1.litmus".into(), ""), Ok(never("N1"))),
        (lk("N1.litmus".into(), "false"), Ok(never("N1"))),
        (lk("N1.litmus".into(), "true"), Ok(never("N1"))),
        (lk("N2.litmus".into(), ""), Err(fatal("N2", 0))),
        (lk("N3.litmus".into(), ""), Ok(never("N3"))),
        (lk("N4.litmus".into(), ""), Err(user("N4", 0))),
        (
            lk("N5.litmus".into(), ""),
            Ok(
                "States 1\n0:r0=0;\nOk\nWitnesses\nPositive: 2 Negative: 0\n\
                Condition exists (0:r0=0)\nObservation N5 Always 2 0\n"
                    .into(),
            ),
        ),
        (lk("N6.litmus".into(), ""), Err(fatal("N6", 0))),
        (lk("N7.litmus".into(), ""), Ok(never("N7"))),
        (lk("N8.litmus".into(), ""), Err(fatal("N8", 0))),
        (lk("N8.litmus".into(), "false"), Err(user("N8", 0))),
        (lk("N9.litmus".into(), ""), Ok(never("N9"))),
        (lk("N9.litmus".into(), "false"), Ok(never("N9"))),
        (lk("N9.litmus".into(), "true"), Err(fatal("N9", 0))),
        (lk("N10.litmus".into(), ""), Ok(never("N10"))),
        (lk("N11.litmus".into(), ""), Err(user("N11", 0))),
    ];
    let mut runs = runs;
    for model in ["rc11.cat", "c11_partialSC.cat"] {
        let c11 = |test: &str| {
            ["herd7", "-macros", "c11.def", "-model", model, test]
                .map(String::from)
                .to_vec()
        };
        runs.push((c11("N12.litmus"), Err(fatal("N12", 0))));
        runs.push((c11("N13.litmus"), Ok(never("N13"))));
    }
    let mut cos = lk("N1.litmus".into(), "false");
    cos.splice(5..5, ["-model".to_string(), "cos.cat".to_string()]);
    runs.push((cos, Ok(never("N1"))));
    answers_or_stops_as_herd7(&dir, runs);
    // `hazmat check` answers where herd7 does, and locates the read where it stops.
    let cfg = format!("{LKMM}/linux-kernel.cfg");
    let out = hazmat(&dir, &["check", "--conf", &cfg, "-I", LKMM, "N1.litmus"]);
    assert!(
        text(&out.stdout).contains("Observation N1 Never 0 0\n"),
        "{}",
        text(&out.stderr)
    );
    let out = hazmat(&dir, &["check", "--conf", &cfg, "-I", LKMM, "N0.litmus"]);
    let err = text(&out.stderr);
    assert!(
        err.starts_with("N0.litmus:3:36: error: this read's address is the integer 0"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The tests of a write at an address that is no location (`r1` holds 0), reached only in
/// candidates a model forbids: when `r0` reads its own thread's later write (`A1`; under a
/// successful `spin_trylock`, `A3`; through an address read from memory, `A6`; in C11,
/// `A8`), when two reads of `x` read against coherence, with a location judged before the
/// write's (`A2`, and `A7`, with no other location), on a path that takes a lock it holds
/// (`A4`), and beside a filter that keeps no execution (`A5`).
const WRITE_NOWHERE: [(&str, &str); 8] = [
    (
        "A1",
        "{ }\nP0(int *x) { int r0; int *r1; r0 = READ_ONCE(*x); \
         if (r0 == 2) { WRITE_ONCE(*r1, 1); } WRITE_ONCE(*x, 2); }",
    ),
    (
        "A2",
        "{ }\nP0(int *x, int *y) { int r0; int r2; int *r1; r0 = READ_ONCE(*x); \
         r2 = READ_ONCE(*x); if (r0 == 1) { if (r2 == 0) { WRITE_ONCE(*r1, 1); } } }\n\
         P1(int *x) { WRITE_ONCE(*x, 1); }\n\
         P2(int *y) { int r0; r0 = READ_ONCE(*y); WRITE_ONCE(*y, 1); }",
    ),
    (
        "A3",
        "{ }\nP0(int *x, spinlock_t *l) { int r0; int r4; int *r1; r0 = READ_ONCE(*x); \
         smp_store_release(x, 2); r4 = spin_trylock(l); \
         if (r4) { if (r0 == 2) { WRITE_ONCE(*r1, 1); } spin_unlock(l); } }",
    ),
    (
        "A4",
        "{ }\nP0(int *x, spinlock_t *l) { int r0; int *r1; spin_lock(l); spin_lock(l); \
         r0 = READ_ONCE(*x); if (r0 == 0) { WRITE_ONCE(*r1, 1); } }",
    ),
    (
        "A5",
        "{ }\nP0(int *x) { int r0; int *r1; r0 = READ_ONCE(*x); \
         if (r0 == 2) { WRITE_ONCE(*r1, 1); } WRITE_ONCE(*x, 2); }\nfilter (0:r0=0)",
    ),
    (
        "A6",
        "{ int *p = &y; }\nP0(int *x, int **p) { int r0; int *r1; r0 = READ_ONCE(*x); \
         if (r0 == 2) { r1 = READ_ONCE(*p); WRITE_ONCE(*r1, 1); } WRITE_ONCE(*x, 2); }\n\
         P1(int **p) { WRITE_ONCE(*p, 0); }",
    ),
    (
        "A7",
        "{ }\nP0(int *x) { int r0; int r2; int *r1; r0 = READ_ONCE(*x); \
         r2 = READ_ONCE(*x); if (r0 == 1) { if (r2 == 0) { WRITE_ONCE(*r1, 1); } } }\n\
         P1(int *x) { WRITE_ONCE(*x, 1); }",
    ),
    (
        "A8",
        "{ }\nP0(atomic_int *x) { int r0; atomic_int *r1; \
         r0 = atomic_load_explicit(x, memory_order_relaxed); \
         if (r0 == 2) { atomic_store_explicit(r1, 1, memory_order_relaxed); } \
         atomic_store_explicit(x, 2, memory_order_relaxed); }",
    ),
];

/// A write at an address that is no location stops herd7 in any candidate whose values
/// solve, before its model, its filter or a speed check's goal sees it: a read of a later
/// write of its own thread (but under `-optace true`, where herd7 builds none), reads
/// against coherence, a lock taken twice. hazmat stops there too, under the native models
/// (which once cut those candidates before their values were solved, and stopped the path
/// at the write, without the later write that solves them) and the interpreter alike, and
/// `hazmat check` locates the write. herd7 7.58's answers are written here.
#[test]
fn a_write_at_no_location_stops_as_herd7_does_in_candidates_the_model_forbids() {
    let dir = temp_dir("write-nowhere");
    write_tests(&dir, &WRITE_NOWHERE);
    let lk = |test: &str, more: &[&str]| {
        let mut args = ["herd7", "-I", LKMM, "-conf", "linux-kernel.cfg"]
            .map(String::from)
            .to_vec();
        args.extend(more.iter().map(|a| a.to_string()));
        args.push(test.into());
        args
    };
    let c11 = |test: &str, model: &str, more: &[&str]| {
        let mut args = ["herd7", "-macros", "c11.def", "-model", model]
            .map(String::from)
            .to_vec();
        args.extend(more.iter().map(|a| a.to_string()));
        args.push(test.into());
        args
    };
    let user = |name: &str| {
        format!(
            "Warning: File \"{name}.litmus\": Non-symbolic memory access found on '[0]' \
             (User error)\n"
        )
    };
    let always = |name: &str| {
        format!(
            "States 1\n0:r0=0;\nOk\nWitnesses\nPositive: 1 Negative: 0\n\
             Condition exists (0:r0=0)\nObservation {name} Always 1 0\n"
        )
    };
    let runs: Vec<(Vec<String>, Result<String, String>)> = vec![
        (lk("A1.litmus", &[]), Err(user("A1"))),
        (lk("A1.litmus", &["-optace", "false"]), Err(user("A1"))),
        (lk("A1.litmus", &["-optace", "true"]), Ok(always("A1"))),
        (lk("A1.litmus", &["-speedcheck", "true"]), Err(user("A1"))),
        (lk("A2.litmus", &[]), Err(user("A2"))),
        (lk("A2.litmus", &["-optace", "true"]), Err(user("A2"))),
        (lk("A3.litmus", &[]), Err(user("A3"))),
        (lk("A3.litmus", &["-optace", "true"]), Ok(always("A3"))),
        (lk("A4.litmus", &[]), Err(user("A4"))),
        (lk("A5.litmus", &[]), Err(user("A5"))),
        (lk("A5.litmus", &["-optace", "true"]), Ok(always("A5"))),
        (lk("A6.litmus", &[]), Err(user("A6"))),
        (lk("A6.litmus", &["-optace", "true"]), Ok(always("A6"))),
        (lk("A7.litmus", &["-speedcheck", "true"]), Err(user("A7"))),
        (c11("A8.litmus", "rc11.cat", &[]), Err(user("A8"))),
        (
            c11("A8.litmus", "rc11.cat", &["-optace", "true"]),
            Ok(always("A8")),
        ),
        (c11("A8.litmus", "c11_partialSC.cat", &[]), Err(user("A8"))),
    ];
    answers_or_stops_as_herd7(&dir, runs);
    // `hazmat check` stops where herd7 does, and locates the write, natively and through
    // the kernel's model files alike.
    let cfg = format!("{LKMM}/linux-kernel.cfg");
    for extra in [&[][..], &["--interpret"][..]] {
        let mut args = vec!["check", "--conf", &cfg, "-I", LKMM];
        args.extend(extra);
        args.push("A3.litmus");
        let out = hazmat(&dir, &args);
        let err = text(&out.stderr);
        assert!(
            err.starts_with(
                "A3.litmus:3:146: error: the address of this access is the integer 0, \
                 not a location"
            ),
            "{args:?}: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Read-modify-writes at an address that is no location: an exchange (`R1`, `R5`), an
/// operation (`R2`, `R3`, `R6`, `R8`, `K1`), a compare-exchange (`R4`); spinlocks (`L1`,
/// `L2`).
const RMW_NOWHERE: [(&str, &str); 11] = [
    (
        "L1",
        "{ }\nP0(int *x, int **p) { int r0; int *r1; r1 = READ_ONCE(*p); spin_lock(r1); }\n\
         P1(int *x) { WRITE_ONCE(*x, 1); }",
    ),
    (
        "L2",
        "{ }\nP0(int *x) { int r0; int *r1; r0 = spin_is_locked(r1); }\n\
         P1(int *x) { WRITE_ONCE(*x, 1); }",
    ),
    (
        "R1",
        "{ }\nP0(int *x, int **p) { int r0; int *r1; r1 = READ_ONCE(*p); r0 = xchg(r1, 1); }\n\
         P1(int *x) { WRITE_ONCE(*x, 1); }",
    ),
    (
        "R2",
        "{ int *p = &x; }\nP0(int *x, int **p) { int r0; int *r1; r1 = READ_ONCE(*p); \
         r0 = atomic_fetch_add(1, r1); }\nP1(int *x, int **p) { WRITE_ONCE(*p, 0); }",
    ),
    (
        "R3",
        "{ }\nP0(int *x) { int r0; int *r1; r0 = atomic_fetch_add(1, r1); }\n\
         P1(int *x) { WRITE_ONCE(*x, 1); }",
    ),
    (
        "R4",
        "{ }\nP0(int *x) { int r0; int *r1; r0 = cmpxchg(r1, 0, 1); }\n\
         P1(int *x) { WRITE_ONCE(*x, 1); }",
    ),
    (
        "R5",
        "{ }\nP0(int *x, int **p) { int r0; int *r1; r1 = READ_ONCE(*p); \
         r0 = cmpxchg(r1, 1, 1); }\nP1(int *x) { WRITE_ONCE(*x, 1); }",
    ),
    (
        "R6",
        "{ }\nP0(int *x, int **p) { int r0; int *r1; r1 = READ_ONCE(*p); \
         r0 = atomic_fetch_add(0, r1); }\nP1(int *x) { WRITE_ONCE(*x, 1); }",
    ),
    (
        "R7",
        "{ int *p = &x; }\nP0(int *x, int **p) { int r0; int *r1; r1 = READ_ONCE(*p); \
         r0 = xchg(r1, 1); WRITE_ONCE(*p, 0); }",
    ),
    (
        "R8",
        "{ }\nP0(int *x, int **p) { int r0; int *r1; r1 = READ_ONCE(*p); \
         r0 = atomic_add_unless(r1, 1, 0); }\nP1(int *x) { WRITE_ONCE(*x, 1); }",
    ),
    (
        "K1",
        "{ }\nP0(atomic_int *x, atomic_int **p) { int r0; atomic_int *r1; \
         r1 = atomic_load_explicit(p, memory_order_relaxed); \
         r0 = atomic_fetch_add_explicit(r1, 1, memory_order_relaxed); }\n\
         P1(atomic_int *x) { atomic_store_explicit(x, 1, memory_order_relaxed); }",
    ),
];

/// The read of a read-modify-write at an address that is no location is paired by herd7,
/// as any read, with a write at the same address: there is no initial write there, so
/// under `-optace true` and `iico` the candidate is dropped (its write never stops herd7),
/// and under `-optace false` the read may read its own write, which stops herd7 only where
/// the values solve: an exchange's value, a compare-exchange's where its new value is its
/// expected one, an operation's only for `+ 0` and `| 0` (herd7 leaves `v + 1 = v`
/// unsolved). At a constant address, a combination with no write to pair with (a failed
/// compare-exchange) stops herd7 before the search. A later write of the thread read by
/// the address (`R7`) still solves it. hazmat answers the same natively, through the
/// kernel's model files, under `cos.cat` and RC11 (it once stopped on every such access as
/// on a write); herd7 7.58's answers are written here. herd7 pairs no lock read with a
/// write before its model: it drops the candidates of `spin_is_locked` there, and runs a
/// lock there, which hazmat refuses by name (it once claimed herd7 stops).
#[test]
fn a_read_modify_write_at_no_location_reads_a_write_there_as_herd7s_does() {
    let dir = temp_dir("rmw-nowhere");
    write_tests(&dir, &RMW_NOWHERE);
    // herd7 with the kernel's model files at hand and `more` options, on `test`.
    let with = |more: &[&str], test: &str| {
        let mut args = vec!["herd7".to_string(), "-I".into(), LKMM.into()];
        args.extend(more.iter().chain([&test]).map(|a| a.to_string()));
        args
    };
    let lk = |test: &str, more: &[&str]| {
        with(&[&["-conf", "linux-kernel.cfg"][..], more].concat(), test)
    };
    let user = |name: &str| {
        format!(
            "Warning: File \"{name}.litmus\": Non-symbolic memory access found on '[0]' (User error)\n"
        )
    };
    let fatal = |name: &str| {
        format!(
            "Warning: File \"{name}.litmus\": Non symbolic location with no initial write: '[0]'\n\n"
        )
    };
    let shown = |name: &str, state: &str, pos: u32, neg: u32| {
        let (ok, verdict) = match (pos, neg) {
            (0, _) => ("No", "Never"),
            (_, 0) => ("Ok", "Always"),
            _ => ("Ok", "Sometimes"),
        };
        format!(
            "States {}\n{state}{ok}\nWitnesses\nPositive: {pos} Negative: {neg}\n\
             Condition exists (0:r0=0)\nObservation {name} {verdict} {pos} {neg}\n",
            state.lines().count()
        )
    };
    let never = |name: &str| shown(name, "", 0, 0);
    let cos = ["-macros", "linux-kernel.def", "-model", "cos.cat"];
    let cos_false = [&cos[..], &["-optace", "false"]].concat();
    let f = ["-optace", "false"];
    let runs: Vec<(Vec<String>, Result<String, String>)> = vec![
        (lk("R1.litmus", &[]), Ok(never("R1"))),
        (lk("R1.litmus", &["-optace", "true"]), Ok(never("R1"))),
        (lk("R1.litmus", &f), Err(user("R1"))),
        (lk("R1.litmus", &["-speedcheck", "true"]), Ok(never("R1"))),
        (with(&cos, "R1.litmus"), Ok(never("R1"))),
        (with(&cos_false, "R1.litmus"), Err(user("R1"))),
        (lk("R2.litmus", &[]), Ok(shown("R2", "0:r0=0;\n", 1, 0))),
        (lk("R2.litmus", &f), Ok(shown("R2", "0:r0=0;\n", 1, 0))),
        (lk("R3.litmus", &[]), Err(fatal("R3"))),
        (lk("R3.litmus", &f), Ok(never("R3"))),
        (lk("R4.litmus", &f), Err(fatal("R4"))),
        (lk("R5.litmus", &[]), Ok(never("R5"))),
        (lk("R5.litmus", &f), Err(user("R5"))),
        (lk("R6.litmus", &[]), Ok(never("R6"))),
        (lk("R6.litmus", &f), Err(user("R6"))),
        (lk("R7.litmus", &[]), Ok(shown("R7", "0:r0=0;\n", 1, 0))),
        (lk("R7.litmus", &f), Err(user("R7"))),
        (lk("R8.litmus", &f), Ok(never("R8"))),
        (with(&cos_false, "R8.litmus"), Ok(never("R8"))),
        (
            with(&["-macros", "c11.def", "-model", "rc11.cat"], "K1.litmus"),
            Ok(never("K1")),
        ),
        (lk("L2.litmus", &[]), Ok(never("L2"))),
    ];
    answers_or_stops_as_herd7(&dir, runs);
    // `hazmat check` answers as herd7 does, natively and through the kernel's model files.
    let cfg = format!("{LKMM}/linux-kernel.cfg");
    for extra in [&[][..], &["--interpret"][..]] {
        let mut args = vec!["check", "--conf", &cfg, "-I", LKMM];
        args.extend(extra);
        args.push("R1.litmus");
        let out = hazmat(&dir, &args);
        let stdout = text(&out.stdout);
        assert!(
            stdout.contains("Observation R1 Never 0 0\n"),
            "{args:?}: {stdout}{}",
            text(&out.stderr)
        );
    }
    // herd7 runs a spinlock at no location (`L1` is `Always 1 0`): hazmat refuses it.
    let out = hazmat(&dir, &["check", "L1.litmus"]);
    let err = text(&out.stderr);
    assert!(
        err.starts_with(
            "L1.litmus:3:60: error: this spinlock is at 0, not a location: herd7 does not \
             stop on a lock operation there but runs it"
        ),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Read-modify-writes at an address read from `p`, which holds 0 (no location) but where
/// `p` is written: the read-modify-write itself may write there, and herd7 pairs the read
/// of `p` with its write, as with every write of every location (`P0` reads `p` into
/// `r1`; `x` holds 1 after `P1`, or `P1` writes 0 to `p`).
const RMW_ESCAPES: [(&str, &str); 7] = [
    (
        "D01",
        "{ }\nP0(int *x, int **p) { int r0; int *r1; int r3; r1 = READ_ONCE(*p); \
         r3 = READ_ONCE(*x); r0 = atomic_fetch_add(r3, r1); }\n\
         P1(int *x, int **p) { WRITE_ONCE(*x, 1); }",
    ),
    (
        "D02",
        "{ }\nP0(int *x, int **p) { int r0; int *r1; r1 = READ_ONCE(*p); \
         r0 = atomic_add_unless(r1, 0, 5); }\nP1(int *x, int **p) { WRITE_ONCE(*x, 1); }",
    ),
    (
        "D04",
        "{ }\nP0(int *x, int **p) { int r0; int *r1; r1 = READ_ONCE(*p); \
         r0 = atomic_fetch_xor(0, r1); }\nP1(int *x, int **p) { WRITE_ONCE(*x, 1); }",
    ),
    (
        "D05",
        "{ }\nP0(int *x, int **p) { int r0; int *r1; r1 = READ_ONCE(*p); \
         r0 = atomic_fetch_andnot(0, r1); }\nP1(int *x, int **p) { WRITE_ONCE(*x, 1); }",
    ),
    (
        "D14",
        "{ }\nP0(int *x, int **p) { int r0; int *r1; r1 = READ_ONCE(*p); \
         r0 = atomic_fetch_and(0, r1); }\nP1(int *x, int **p) { WRITE_ONCE(*x, 1); }",
    ),
    (
        "E14",
        "{ int *p = &x; }\nP0(int *x, int **p) { int r0; int *r1; r1 = READ_ONCE(*p); \
         r0 = atomic_fetch_and(0, r1); }\nP1(int *x, int **p) { WRITE_ONCE(*p, 0); }",
    ),
    (
        "T01",
        "{ int *p = &x; }\nP0(int *x, int **p) { int r0; int *r1; int r3; \
         r1 = READ_ONCE(*p); r3 = READ_ONCE(*x); r0 = atomic_fetch_add(r3, r1); }\n\
         P1(int *x, int **p) { WRITE_ONCE(*x, 1); }",
    ),
];

/// A read-modify-write whose address, read from `p`, is no location on the obvious path:
/// herd7 pairs every read with every write whose location may be its own before it solves
/// a value, and an address computed from a value read may be any location, so the read
/// of `p` may read the read-modify-write's own write. Under `-optace false` its read may
/// read that write too: the values then solve with the read-modify-write at `p` (`r0=p`,
/// `D01`; `r0=1`, `D02`) or stop herd7 on an operator with no meaning on `p` (`D04`,
/// `D05`, `D14`); with `p` holding `&x` at first, the read-modify-write at `p` reads it,
/// and its `&` stops herd7 whether or not it may read its own write (`E14`). hazmat
/// once missed those candidates, whose access a path at no location stood for
/// (herd7 7.58's answers are written here); `cos.cat`, which checks coherence only,
/// keeps them too.
#[test]
fn a_read_modify_write_at_no_location_may_be_where_its_address_was_read() {
    let dir = temp_dir("rmw-escapes");
    write_tests(&dir, &RMW_ESCAPES);
    std::fs::write(dir.join("none.cat"), "\"no checks\"\n").expect("model");
    let illegal = |name: &str, op: &str, a: &str| {
        Err(format!(
            "Warning: File \"{name}.litmus\": Illegal operation {op} on constants {a} and 0 \
             (User error)\n"
        ))
    };
    let runs = vec![
        (
            run_kernel("none.cat", "false", "D01"),
            shown("D01", "0:r0=p;\n", 0, 1),
        ),
        (
            run_kernel("none.cat", "iico", "D01"),
            shown("D01", "", 0, 0),
        ),
        (
            run_kernel("cos.cat", "false", "D01"),
            shown("D01", "0:r0=p;\n", 0, 1),
        ),
        (
            run_kernel("none.cat", "false", "D02"),
            shown("D02", "0:r0=1;\n", 0, 1),
        ),
        (
            run_kernel("none.cat", "false", "D04"),
            illegal("D04", "^", "p"),
        ),
        (
            run_kernel("none.cat", "false", "D05"),
            illegal("D05", "andnot2", "p"),
        ),
        (
            run_kernel("none.cat", "false", "D14"),
            illegal("D14", "&", "p"),
        ),
        (
            run_kernel("none.cat", "iico", "D14"),
            shown("D14", "", 0, 0),
        ),
        (
            run_kernel("none.cat", "false", "E14"),
            illegal("E14", "&", "x"),
        ),
        (
            run_kernel("none.cat", "iico", "E14"),
            illegal("E14", "&", "x"),
        ),
        (
            run_kernel("none.cat", "false", "T01"),
            shown("T01", "0:r0=0;\n0:r0=1;\n0:r0=p;\n", 2, 3),
        ),
        (
            run_kernel("none.cat", "iico", "T01"),
            shown("T01", "0:r0=0;\n0:r0=1;\n", 2, 2),
        ),
    ];
    answers_or_stops_as_herd7(&dir, runs);
    let _ = std::fs::remove_dir_all(&dir);
}

/// [`kernel`]'s command line for the test `name` of [`write_tests`].
fn run_kernel(model: &str, optace: &str, name: &str) -> Vec<String> {
    kernel(model, optace, &format!("{name}.litmus"))
        .into_iter()
        .map(String::from)
        .collect()
}

/// Read-modify-writes at an address read from `p`, which holds 0 (no location), that add
/// or or 0, whose result is then used or not: by an operator (`F01`, `F06`, the second on
/// both threads), by a branch (`F03`), by nothing (`F02`), by a write (`F05`), by `+ 0`,
/// which herd7 makes no operator (`F07`); `F04` has a write at no location beside it.
const RMW_OWN: [(&str, &str); 7] = [
    (
        "F01",
        "{}\nP0(int **p) { int *r1; int r0; int r3; r1 = READ_ONCE(*p); \
         r0 = atomic_fetch_add(0, r1); r3 = r0 + 1; }",
    ),
    (
        "F02",
        "{}\nP0(int **p) { int *r1; int r0; r1 = READ_ONCE(*p); r0 = atomic_fetch_add(0, r1); }",
    ),
    (
        "F03",
        "{}\nP0(int **p, int *x) { int *r1; int r0; r1 = READ_ONCE(*p); \
         r0 = atomic_fetch_or(0, r1); if (r0 == 1) WRITE_ONCE(*x, 1); }\n\
         P1(int *x) { int r4; r4 = READ_ONCE(*x); }",
    ),
    (
        "F04",
        "{}\nP0(int **p) { int *r1; int r0; int r3; r1 = READ_ONCE(*p); \
         r0 = atomic_fetch_add(0, r1); r3 = r0 + 1; }\n\
         P1(int **q) { int *r2; r2 = READ_ONCE(*q); WRITE_ONCE(*r2, 5); }",
    ),
    (
        "F05",
        "{}\nP0(int **p, int *x) { int *r1; int r0; int r3; r1 = READ_ONCE(*p); \
         r0 = atomic_add_return(0, r1); WRITE_ONCE(*x, r0); r3 = READ_ONCE(*x); }",
    ),
    (
        "F06",
        "{}\nP0(int **p) { int *r1; int r0; int r3; r1 = READ_ONCE(*p); \
         r0 = atomic_fetch_add(0, r1); r3 = r0 + 1; }\n\
         P1(int **q) { int *r2; int r5; r2 = READ_ONCE(*q); r5 = atomic_fetch_add(0, r2); \
         r5 = r5 + 2; }",
    ),
    (
        "F07",
        "{}\nP0(int **p) { int *r1; int r0; int r3; r1 = READ_ONCE(*p); \
         r0 = atomic_fetch_add(0, r1); r3 = r0 + 0; }",
    ),
];

/// A read-modify-write adding or oring 0 at no location, whose read reads its own write
/// (`-optace false`): herd7 writes the read's value as it is, which no equation solves,
/// so an operator or branch on the result leaves an equation unsolved and the candidate
/// is dropped (`F01`, `F03`, `F06`, with the read-modify-write at `p` left: `r0=p`);
/// unused, written or added 0 at build time (`F02`, `F05`, `F07`), the candidate solves
/// and its write at no location stops herd7; beside a write there that its read may read
/// (`F04`), that pairing solves and stops herd7. Under `iico` the read reads no write and
/// there is no candidate, but in `F04`. hazmat stopped on all but `F04` and `F06` with
/// `iico` (herd7 7.58's answers are written here).
#[test]
fn a_read_modify_write_at_no_location_reading_its_own_write_leaves_its_result_unsolved() {
    let dir = temp_dir("rmw-own");
    write_tests(&dir, &RMW_OWN);
    std::fs::write(dir.join("none.cat"), "\"no checks\"\n").expect("model");
    let stops = |name: &str| {
        Err(format!(
            "Warning: File \"{name}.litmus\": Non-symbolic memory access found on '[0]' \
             (User error)\n"
        ))
    };
    let mut runs = Vec::new();
    for model in ["none.cat", "cos.cat"] {
        runs.extend([
            (
                run_kernel(model, "false", "F01"),
                shown("F01", "0:r0=p;\n", 0, 1),
            ),
            (run_kernel(model, "iico", "F01"), shown("F01", "", 0, 0)),
            (run_kernel(model, "false", "F02"), stops("F02")),
            (run_kernel(model, "iico", "F02"), shown("F02", "", 0, 0)),
            (
                run_kernel(model, "false", "F03"),
                shown("F03", "0:r0=p;\n", 0, 1),
            ),
            (run_kernel(model, "iico", "F03"), shown("F03", "", 0, 0)),
            (run_kernel(model, "false", "F04"), stops("F04")),
            (run_kernel(model, "iico", "F04"), stops("F04")),
            (run_kernel(model, "false", "F05"), stops("F05")),
            (run_kernel(model, "iico", "F05"), shown("F05", "", 0, 0)),
            (
                run_kernel(model, "false", "F06"),
                shown("F06", "0:r0=p;\n", 0, 2),
            ),
            (run_kernel(model, "iico", "F06"), shown("F06", "", 0, 0)),
            (run_kernel(model, "false", "F07"), stops("F07")),
            (run_kernel(model, "iico", "F07"), shown("F07", "", 0, 0)),
        ]);
    }
    answers_or_stops_as_herd7(&dir, runs);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `spin_is_locked` at an address read from `p`, which holds 0 (no location), always
/// (`G01`) or on a branch (`G02`): herd7 leaves lock reads to the model, and the kernel's
/// `lock.cat` gives such a read no write to read (no candidate: `Never 0 0`, and `r0=0`
/// alone on the other branch), while a model without it keeps both outcomes. hazmat,
/// which builds no lock read at no location, answered `Never`/`Always` under such a model;
/// it now answers under `lock.cat` (native or interpreted) and refuses otherwise, at the
/// call.
#[test]
fn spin_is_locked_at_no_location_is_left_to_lock_cat_and_refused_without_it() {
    let dir = temp_dir("is-locked-nowhere");
    write_tests(
        &dir,
        &[
            (
                "G01",
                "{}\nP0(int **p, spinlock_t *l) { int *r1; int r0; r1 = READ_ONCE(*p); \
                 r0 = spin_is_locked(r1); }",
            ),
            (
                "G02",
                "{}\nP0(int **p, int *x) { int *r1; int r0; r1 = READ_ONCE(*p); \
                 r0 = READ_ONCE(*x); if (r0 == 1) r0 = spin_is_locked(r1); }\n\
                 P1(int *x) { WRITE_ONCE(*x, 1); }",
            ),
        ],
    );
    for (name, states, pos, neg) in [("G01", "", 0, 0), ("G02", "0:r0=0;\n", 1, 0)] {
        let test = format!("{name}.litmus");
        let conf = ["herd7", "-I", LKMM, "-conf", "linux-kernel.cfg", &test];
        answers_or_stops_as_herd7(
            &dir,
            vec![(
                conf.map(String::from).to_vec(),
                shown(name, states, pos, neg),
            )],
        );
        let out = hazmat(
            &dir,
            &[
                "check",
                "--interpret",
                "-I",
                LKMM,
                "--conf",
                "linux-kernel.cfg",
                &test,
            ],
        );
        let stdout = text(&out.stdout);
        let observed = format!(
            "Observation {name} {} {pos} {neg}\n",
            ["Never", "Always"][pos as usize]
        );
        assert!(stdout.contains(&observed), "{stdout}{}", text(&out.stderr));
        for model in ["cos.cat", "sc.cat"] {
            let args = [
                "check",
                "-I",
                LKMM,
                "--macros",
                "linux-kernel.def",
                "--cat",
                model,
                &test,
            ];
            let out = hazmat(&dir, &args);
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{model} {name}: {stderr}");
            assert!(
                stderr.contains(&format!("{test}:3:"))
                    && stderr.contains("this spin_is_locked is at 0, not a location")
                    && stderr.contains("keeps both of its outcomes"),
                "{model} {name}: {stderr}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// What herd7 shows of a test written by [`write_tests`] with `states` and its witnesses.
fn shown(name: &str, states: &str, pos: u32, neg: u32) -> Result<String, String> {
    let verdict = match (pos, neg) {
        (0, _) => "No\nWitnesses",
        _ => "Ok\nWitnesses",
    };
    let observed = match (pos, neg) {
        (0, _) => "Never",
        (_, 0) => "Always",
        _ => "Sometimes",
    };
    Ok(format!(
        "States {}\n{states}{verdict}\nPositive: {pos} Negative: {neg}\n\
         Condition exists (0:r0=0)\nObservation {name} {observed} {pos} {neg}\n",
        states.lines().count()
    ))
}

/// A test of `y` whose thread `P0` has `params` and `body` (a compare-exchange on `y`),
/// and `more` threads.
fn cas_on_itself(name: &str, init: &str, params: &str, body: &str, more: &str) -> String {
    format!("C {name}\n{{ {init} }}\nP0({params}) {{ int r0; {body} }}\n{more}exists (y=2)\n")
}

/// Under `cos.cat` alone with `-optace false`, a C11 compare-exchange whose expected value
/// is its own object may read the value its failure writes back, and that value goes round
/// the cycle. herd7 names it by the root of its union-find, and the write-back stores the
/// failed read's value with no register between, so the plain read of the expected value
/// (`S3`), when it reads the write-back too, is the root over the failed read (`S4`): two
/// states where the class's highest number gave one. The same through the other forms
/// (strong, without `_explicit`, the expected value read through a pointer to the object,
/// a second thread's exchange or a reader copying the value on), and where a hoisted read
/// is stored as it is (`*y = *y;`). herd7 7.58's states and counts are written here.
#[test]
fn values_out_of_thin_air_through_a_compare_exchanges_write_back_are_named_as_herd7s() {
    let dir = temp_dir("write-back");
    let relaxed = "memory_order_relaxed, memory_order_relaxed";
    let weak = format!("r0 = atomic_compare_exchange_weak_explicit(y, y, 1, {relaxed});");
    let reader = "P1(int *y, int *x) { int r0; r0 = atomic_load_explicit(y, memory_order_relaxed); \
                  atomic_store_explicit(x, r0, memory_order_relaxed); }\n";
    let tests = [
        ("W", cas_on_itself("W", "", "int *y", &weak, "")),
        (
            "WP",
            cas_on_itself(
                "WP",
                "",
                "int *y",
                "r0 = atomic_compare_exchange_weak(y, y, 1);",
                "",
            ),
        ),
        (
            "SP",
            cas_on_itself(
                "SP",
                "",
                "int *y",
                &format!("r0 = atomic_compare_exchange_strong_explicit(y, y, 1, {relaxed});"),
                "",
            ),
        ),
        (
            "PT",
            cas_on_itself(
                "PT",
                "int *z = &y;",
                "int *y, int **z",
                "int *r1; r1 = *z; r0 = atomic_compare_exchange_weak(y, r1, 1);",
                "",
            ),
        ),
        (
            "PX",
            cas_on_itself(
                "PX",
                "int *x = &y;",
                "int *y, int **x",
                &format!("r0 = atomic_compare_exchange_weak_explicit(y, *x, 1, {relaxed});"),
                "",
            ),
        ),
        (
            "T2",
            cas_on_itself(
                "T2",
                "",
                "int *y",
                &weak,
                "P1(int *y) { int r0; r0 = atomic_compare_exchange_strong(y, y, 2); }\n",
            ),
        ),
        (
            "TR",
            cas_on_itself("TR", "", "int *y", &weak, reader).replace("(y=2)", "(x=2 /\\ y=2)"),
        ),
        (
            "DS",
            cas_on_itself("DS", "", "int *y", "*y = *y; *y = *y;", ""),
        ),
    ];
    for (name, source) in &tests {
        std::fs::write(dir.join(format!("{name}.litmus")), source).expect("test");
    }
    let regression = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../litmus/tests/regressions/c11-cas-expected-is-object-two-thin-air-names.litmus");
    let regression = regression.to_str().expect("path");
    let four =
        "States 4\n[y]=S3;\n[y]=S4;\n[y]=0;\n[y]=1;\nNo\nWitnesses\nPositive: 0 Negative: 5\n";
    for (file, shown) in [
        (regression, four.to_string()),
        ("W.litmus", four.to_string()),
        ("WP.litmus", four.to_string()),
        // A strong exchange fails only on another value: the cycle is never built.
        ("SP.litmus", "States 1\n[y]=1;\nNo\n".to_string()),
        (
            "PT.litmus",
            "States 4\n[y]=S5;\n[y]=S6;\n[y]=0;\n[y]=1;\nNo\nWitnesses\nPositive: 0 Negative: 5\n"
                .to_string(),
        ),
        (
            "PX.litmus",
            "States 4\n[y]=S4;\n[y]=S5;\n[y]=0;\n[y]=1;\nNo\nWitnesses\nPositive: 0 Negative: 5\n"
                .to_string(),
        ),
        (
            "T2.litmus",
            "States 6\n[y]=S3;\n[y]=S4;\n[y]=S7;\n[y]=0;\n[y]=1;\n[y]=2;\nOk\nWitnesses\n\
             Positive: 52 Negative: 48\n"
                .to_string(),
        ),
        (
            "TR.litmus",
            "States 6\n[x]=S8; [y]=S8;\n[x]=0; [y]=S3;\n[x]=0; [y]=S4;\n[x]=0; [y]=0;\n\
             [x]=0; [y]=1;\n[x]=1; [y]=1;\nNo\nWitnesses\nPositive: 0 Negative: 10\n"
                .to_string(),
        ),
        (
            "DS.litmus",
            "States 3\n[y]=S3;\n[y]=S6;\n[y]=0;\nNo\nWitnesses\nPositive: 0 Negative: 18\n"
                .to_string(),
        ),
    ] {
        let args = ["herd7", "-model", "cos.cat", "-optace", "false", file];
        let out = hazmat(&dir, &args);
        assert_eq!(text(&out.stderr), "", "{args:?}");
        let stdout = untimed(&text(&out.stdout));
        assert!(stdout.contains(&shown), "{args:?}: {stdout}");
        same_as_herd7(&dir, &args[1..]);
    }
    // Chains of write-backs read across threads, under `cos.cat` and `c11_cos.cat` (the
    // default `-optace`): herd7 names the value `S7` in some executions and `S19` in others,
    // and hazmat prints its 41 states. herd7 7.58 loses candidates to its solver there (see
    // the file's comment), so only the states are compared with its.
    let chain = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../litmus/tests/regressions/c11-cas-write-back-chain-expected-is-object.litmus");
    let chain = chain.to_str().expect("path");
    for model in ["cos.cat", "c11_cos.cat"] {
        let args = ["herd7", "-model", model, "-macros", "c11.def", chain];
        let states = |o: &std::process::Output| {
            let out = text(&o.stdout);
            out[..out.find("Witnesses").unwrap_or(out.len())].to_string()
        };
        let ours = states(&hazmat(&dir, &args));
        for line in [
            "States 41\n",
            "\n0:r0=0; 0:r1=0; 1:r0=0; 2:r0=0; [x]=S7; [y]=S7;\n",
            "\n0:r0=0; 0:r1=0; 1:r0=0; 2:r0=0; [x]=S19; [y]=S19;\n",
        ] {
            assert!(ours.contains(line), "{args:?}: {ours}");
        }
        if let Some(theirs) = herd7_cli::oracle(&dir, &args[1..]) {
            assert_eq!(ours, states(&theirs), "{args:?}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The order in which herd7 numbers the fresh values of the code after an instruction with
/// two outcomes or an `if`, replayed where such values go round a compare-exchange's
/// write-back (`cos.cat` alone, `-optace false`): herd7 lists a sequence's ways reversed
/// once per statement, so a compare-exchange after one statement of a branch runs the code
/// after the `if` after its success first (`IS`: the load after the `if` is `S17`, not
/// `S15`; `IT`: with a statement after it, `S19`); the code after a branch that hazmat
/// knows is not taken, but herd7 does not (`r1 = r0 == 0;`, `r0` never written), is
/// counted all the same (`KB`: `S9` and `S12`, not `S7` and `S10`); and a successful
/// exchange's read, numbered as the plain read of its expected value, comes first in the
/// union-find as the later event (`TA`: `S20`, not `S11`). herd7 7.58's states are written
/// here.
#[test]
fn thin_air_names_follow_herd7s_order_of_ways() {
    let dir = temp_dir("ways");
    let relaxed = "memory_order_relaxed";
    let cas = |weak: &str, obj: &str, exp: &str, new: u32, r: &str| {
        format!(
            "{r} = atomic_compare_exchange_{weak}_explicit({obj}, {exp}, {new}, {relaxed}, \
             {relaxed});"
        )
    };
    let is = |name: &str, branch: &str| {
        format!(
            "C {name}\n{{}}\nP0(int *x, int *y) {{ int r0; int r1; int r2; int r3; \
             r0 = atomic_load_explicit(y, {relaxed}); r1 = r0 == 0; \
             if (r1 >= 0) {{ {branch} }} r3 = atomic_load_explicit(x, {relaxed}); }}\n\
             locations [0:r3; x;]\nexists (0:r0=2)\n"
        )
    };
    let store = |loc: &str| format!("atomic_store_explicit({loc}, 2, {relaxed});");
    let tests = [
        (
            "IS",
            is(
                "IS",
                &format!("{} {}", store("x"), cas("weak", "x", "x", 1, "r2")),
            ),
        ),
        (
            "IT",
            is(
                "IT",
                &format!(
                    "{} {} {}",
                    store("x"),
                    cas("weak", "x", "x", 1, "r2"),
                    store("y")
                ),
            ),
        ),
        (
            "KB",
            format!(
                "C KB\n{{}}\nP0(int *x, int *y) {{ int r0; int r1; int r2; r1 = r0 == 0; \
                 if (r1 >= 0) {{ atomic_store_explicit(x, 1, {relaxed}); }} \
                 r2 = atomic_load_explicit(y, {relaxed}); }}\n\
                 P1(int *y) {{ int r0; {} }}\nexists (0:r2=0)\n",
                cas("weak", "y", "y", 2, "r0")
            ),
        ),
        (
            "TA",
            format!(
                "C TA\n{{}}\nP0(int *x) {{ int r0; {} }}\n\
                 P1(int *x, int *y) {{ int r0; int r1; {} {} }}\n\
                 P2(int *x) {{ int r0; r0 = *x; }}\n\
                 locations [1:r0; 1:r1; 2:r0; x; y;]\nexists (y=1)\n",
                cas("weak", "x", "x", 2, "r0"),
                cas("weak", "y", "y", 2, "r0"),
                cas("strong", "x", "y", 1, "r1")
            ),
        ),
    ];
    for (name, source) in &tests {
        std::fs::write(dir.join(format!("{name}.litmus")), source).expect("test");
    }
    for (name, shown) in [
        (
            "IS",
            "States 14\n0:r0=0; 0:r3=S17; [x]=S17;\n0:r0=0; 0:r3=S17; [x]=2;\n",
        ),
        (
            "IT",
            "States 28\n0:r0=0; 0:r3=S19; [x]=S19;\n0:r0=0; 0:r3=S19; [x]=2;\n",
        ),
        (
            "KB",
            "States 4\n0:r2=S9;\n0:r2=S12;\n0:r2=0;\n0:r2=2;\nOk\n",
        ),
        ("TA", "\n1:r0=0; 1:r1=1; 2:r0=S20; [x]=S20; [y]=S20;\n"),
    ] {
        let file = format!("{name}.litmus");
        let args = ["herd7", "-model", "cos.cat", "-optace", "false", &file];
        let out = hazmat(&dir, &args);
        assert_eq!(text(&out.stderr), "", "{args:?}");
        let stdout = untimed(&text(&out.stdout));
        assert!(stdout.contains(shown), "{args:?}: {stdout}");
        same_as_herd7(&dir, &args[1..]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// herd7's C front end lists the ways through a sequence of statements reversed once per
/// statement, and a branch written without braces, a block in a block and a declaration in
/// braces are one statement more or less to it (a branch in braces is a sequence of its
/// own, a declaration without a value in braces an instruction): the names of values out of
/// thin air after them follow. Under `cos.cat` alone and `-optace false`, a compare-exchange
/// whose expected value is its own object in a branch without braces (`UT`), in a block in
/// the branch (`NT`), after a declaration (`DT`), in an `else` without braces (`UE`, `EI`
/// after an `else if`), in an `if` of a branch (`II`, `IE`), and in blocks at several
/// depths (`IB`, `DD`), makes the load after it print another name than in braces (`BT`,
/// `BE`); the blocks whose order comes out the same (`TB`, `T3`, `JB`, `UB`) too. The
/// same with the kernel's `cmpxchg` (a value a load reads back from its own store, under a
/// model without checks): `KU`, `KN`, `KD`, `KE`, `KW`, `KX` differ from the braced `KB`;
/// `KC`, `KA`, `KT` come out the same. herd7 7.58's states are written here. herd7 refuses
/// an empty block (`{}`), and so does hazmat, at the same place.
#[test]
fn thin_air_names_follow_herd7s_statements_with_and_without_braces() {
    let dir = temp_dir("braces");
    let relaxed = "memory_order_relaxed";
    let cas = format!("r2 = atomic_compare_exchange_weak_explicit(x, x, 1, {relaxed}, {relaxed});");
    let store = |loc: &str| format!("atomic_store_explicit({loc}, 2, {relaxed});");
    let (sx, sy) = (store("x"), store("y"));
    let c11 = |name: &str, code: &str| {
        format!(
            "C {name}\n{{}}\nP0(int *x, int *y) {{ int r0; int r1; int r2; int r3; \
             r0 = atomic_load_explicit(y, {relaxed}); r1 = r0 == 0; {code} \
             r3 = atomic_load_explicit(x, {relaxed}); }}\n\
             locations [0:r3; x;]\nexists (0:r0=2)\n"
        )
    };
    let tests = [
        ("BT", format!("if (r1 >= 0) {{ {cas} }}")),
        ("UT", format!("if (r1 >= 0) {cas}")),
        ("NT", format!("if (r1 >= 0) {{ {{ {cas} }} }}")),
        ("DT", format!("if (r1 >= 0) {{ int r5; {cas} }}")),
        ("BE", format!("if (r1 < 0) {{ {sy} }} else {{ {cas} }}")),
        ("UE", format!("if (r1 < 0) {sy} else {cas}")),
        ("UB", format!("if (r1 < 0) {sy} else {{ {sy} {cas} }}")),
        (
            "EI",
            format!("if (r1 < 0) {sy} else if (r1 > 5) {sy} else {cas}"),
        ),
        ("II", format!("if (r1 >= 0) if (r0 >= 0) {cas}")),
        (
            "IE",
            format!("if (r1 >= 0) {{ if (r0 >= 0) {cas} else {{ {sy} }} }}"),
        ),
        ("TB", format!("{{ {sx} {cas} }}")),
        ("T3", format!("{{ {{ {sy} {{ {cas} }} }} }}")),
        ("IB", format!("if (r1 >= 0) {{ {sx} {{ {cas} }} }}")),
        ("JB", format!("if (r1 >= 0) {{ {{ {sx} }} {cas} }}")),
        ("DD", format!("{{ int r5; {{ int r6; {cas} }} {sy} }}")),
    ];
    for (name, code) in &tests {
        std::fs::write(dir.join(format!("{name}.litmus")), c11(name, code)).expect("test");
    }
    for (name, states, n) in [
        ("BT", 6, 14),
        ("UT", 6, 16),
        ("NT", 6, 16),
        ("DT", 6, 16),
        ("BE", 6, 13),
        ("UE", 6, 15),
        ("UB", 12, 16),
        ("EI", 6, 18),
        ("II", 6, 16),
        ("IE", 6, 21),
        ("TB", 14, 11),
        ("T3", 12, 11),
        ("IB", 14, 15),
        ("JB", 14, 17),
        ("DD", 12, 12),
    ] {
        let file = format!("{name}.litmus");
        let args = ["herd7", "-model", "cos.cat", "-optace", "false", &file];
        let out = hazmat(&dir, &args);
        assert_eq!(text(&out.stderr), "", "{args:?}");
        let stdout = untimed(&text(&out.stdout));
        let shown = format!("States {states}\n0:r0=0; 0:r3=S{n}; [x]=S{n};\n");
        assert!(stdout.contains(&shown), "{args:?}: {stdout}");
        same_as_herd7(&dir, &args[1..]);
    }
    // The kernel's `cmpxchg` before a value a load reads back from its own store.
    std::fs::write(dir.join("none.cat"), "\"no checks\"\n").expect("model");
    let cx = "r2 = cmpxchg(y, 0, 1);";
    let kernel_test = |name: &str, code: &str| {
        format!(
            "C {name}\n{{}}\nP0(int *x, int *y, int *z, spinlock_t *l) {{ int r0; int r1; \
             int r2; r1 = READ_ONCE(*y); {code} r0 = READ_ONCE(*z); WRITE_ONCE(*z, r0); }}\n\
             locations [0:r0;]\nexists (0:r1=2)\n"
        )
    };
    let kernel_tests = [
        ("KB", format!("if (r1 >= 0) {{ {cx} }}"), "S21"),
        ("KU", format!("if (r1 >= 0) {cx}"), "S17"),
        ("KN", format!("{{ {cx} }}"), "S11"),
        ("KD", format!("if (r1 >= 0) {{ int r5; {cx} }}"), "S17"),
        (
            "KE",
            format!("if (r1 > 0) WRITE_ONCE(*x, 1); else {cx}"),
            "S14",
        ),
        (
            "KW",
            format!("if (r1 > 0) {{ WRITE_ONCE(*x, 1); {{ {cx} }} }}"),
            "S14",
        ),
        (
            "KX",
            "if (r1 > 0) { r2 = xchg(x, 1); } else r2 = cmpxchg_relaxed(x, 1, 2);".to_string(),
            "S19",
        ),
        ("KC", format!("{{ {{ {cx} }} WRITE_ONCE(*x, 1); }}"), "S17"),
        (
            "KA",
            "if (r1) r2 = atomic_add_unless(y, 1, 0); else { WRITE_ONCE(*y, 2); }".to_string(),
            "S15",
        ),
        ("KT", "if (r1 > 0) r2 = spin_trylock(l);".to_string(), "S9"),
    ];
    for (name, code, shown) in &kernel_tests {
        let file = format!("{name}.litmus");
        std::fs::write(dir.join(&file), kernel_test(name, code)).expect("test");
        let args = kernel("none.cat", "false", &file);
        let out = hazmat(&dir, &args);
        assert_eq!(text(&out.stderr), "", "{args:?}");
        let stdout = untimed(&text(&out.stdout));
        assert!(
            stdout.contains(&format!("\n0:r0={shown}; 0:r1=0;\n")),
            "{args:?}: {stdout}"
        );
        same_as_herd7(&dir, &args[1..]);
    }
    // An empty block: herd7 stops at its `}`, with nothing on stdout.
    std::fs::write(dir.join("E0.litmus"), c11("E0", "if (r1 >= 0) {}")).expect("test");
    let args = [
        "herd7",
        "-model",
        "cos.cat",
        "-optace",
        "false",
        "E0.litmus",
    ];
    let out = hazmat(&dir, &args);
    assert_eq!(text(&out.stdout), "", "{args:?}");
    let err = text(&out.stderr);
    assert!(
        err.starts_with("Warning: File \"E0.litmus\", line 3, characters 133-134: "),
        "{err}"
    );
    if let Some(theirs) = herd7_cli::oracle(&dir, &args[1..]) {
        assert_eq!(text(&theirs.stdout), "");
        assert!(text(&theirs.stderr).contains("line 3, characters 133-134: "));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A condition hazmat's paths decide from its form (`r1 == r1`, the same value twice),
/// where herd7 reads two fresh values and evaluates both branches (dropping the way its
/// equations contradict), gives a path that is none of the ways the replay of herd7's
/// numbering makes: its value out of thin air prints under hazmat's own name (`S4`), with
/// a warning at the thread's code; the states and counts are herd7's.
/// FIXME: herd7 7.58 prints `S14`; the replay makes both ways, as herd7 does, but does not
/// know which one hazmat's path is.
#[test]
fn a_value_out_of_thin_air_on_a_path_not_replayed_is_warned_of() {
    let dir = temp_dir("unnamed");
    std::fs::write(dir.join("none.cat"), "\"no checks\"\n").expect("model");
    std::fs::write(
        dir.join("SC.litmus"),
        "C SC\n{}\nP0(int *y, int *z) { int r0; int r1; r1 = READ_ONCE(*y); \
         if (r1 == r1) { WRITE_ONCE(*y, 1); } r0 = READ_ONCE(*z); WRITE_ONCE(*z, r0); }\n\
         locations [0:r0;]\nexists (0:r1=2)\n",
    )
    .expect("test");
    let args = kernel("none.cat", "false", "SC.litmus");
    let out = hazmat(&dir, &args);
    let ours = untimed(&text(&out.stdout));
    assert!(
        ours.contains("States 4\n0:r0=S4; 0:r1=0;\n0:r0=S4; 0:r1=1;\n"),
        "{ours}"
    );
    let err = text(&out.stderr);
    assert!(
        err.starts_with(
            "SC.litmus:3:43: warning: a final state shows a value out of thin air (`S` and a \
             number): herd7 names it by the count of fresh values its C front end keeps, \
             which hazmat does not replay through this instruction"
        ),
        "{err}"
    );
    if let Some(theirs) = herd7_cli::oracle(&dir, &args[1..]) {
        assert_eq!(
            ours.replace("=S4;", "=S14;"),
            untimed(&text(&theirs.stdout))
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
