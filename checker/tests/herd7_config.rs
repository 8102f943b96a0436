//! herd7's configuration files and the options around them, as both of hazmat's command
//! lines read them (`models::cat::config`): the later line wins, a `conf` line is read
//! where it stands, every key herd7 7.58 reads is honoured or refused by name, and
//! herd7's `-hexa`, `-exit`, default model for C and missing macro file behave as
//! herd7's do.
//!
//! Each test asserts hazmat's own answer, then compares it with herd7's when herd7 is
//! present (`$HAZMAT_ORACLE` or `../shared/oracle/herd7`). Every file a test needs is
//! written here or built into hazmat, so none needs the shared folder.

#[path = "common/herd7_cli.rs"]
mod herd7_cli;
#[path = "common/untimed.rs"]
mod untimed;

use hazmat_checker::models::cat::config::keys::{KEYS, Use, Value};
use herd7_cli::{hazmat, oracle, same_as_herd7, text};
use std::path::{Path, PathBuf};
use untimed::untimed;

/// A fresh temporary directory for one test.
fn temp_dir(tag: &str) -> PathBuf {
    herd7_cli::temp_dir(&format!("herd7-config-{tag}"))
}

/// Load buffering, relaxed, one store through `c11.def`'s `atomic_store`: herd7's
/// `rc11.cat` forbids it, its `c11_partialSC.cat` allows it.
const LB: &str = "C LB\n{}\n\
    P0(atomic_int *x, atomic_int *y) { int r0 = atomic_load_explicit(x, memory_order_relaxed); \
    atomic_store_explicit(y, 1, memory_order_relaxed); }\n\
    P1(atomic_int *x, atomic_int *y) { int r1 = atomic_load_explicit(y, memory_order_relaxed); \
    atomic_store(x, 1); }\n\
    exists (0:r0=1 /\\ 1:r1=1)\n";

/// herdtools7's `C.cfg` is `conf cpp11.cfg` then `cat rc11.cat`: a `conf` line is read
/// where it stands, so the later `cat` line wins and herd7 runs `rc11.cat`; with the two
/// lines the other way round, `cpp11.cfg`'s `c11_partialSC.cat` wins. The same through an
/// include of one's own, and through both command lines.
#[test]
fn a_conf_line_is_read_where_it_stands_and_the_later_line_wins() {
    let dir = temp_dir("precedence");
    std::fs::write(dir.join("LB.litmus"), LB).expect("test");
    std::fs::write(dir.join("C.cfg"), "conf cpp11.cfg\ncat rc11.cat\n").expect("cfg");
    std::fs::write(dir.join("R.cfg"), "cat rc11.cat\nconf cpp11.cfg\n").expect("cfg");
    std::fs::write(
        dir.join("inner.cfg"),
        "macros c11.def\nmodel c11_partialSC.cat\ngraph columns\n",
    )
    .expect("cfg");
    std::fs::create_dir_all(dir.join("sub")).expect("sub");
    // `include` reaches `sub/` for the `conf` line after it.
    std::fs::write(dir.join("sub/deep.cfg"), "conf inner.cfg\nmodel rc11.cat\n").expect("cfg");
    std::fs::write(dir.join("outer.cfg"), "include sub\nconf deep.cfg\n").expect("cfg");
    for (cfg, verdict, model, kind) in [
        ("C.cfg", "Never", "rc11.cat", "native"),
        ("R.cfg", "Sometimes", "c11_partialSC.cat", "interpreted"),
        ("outer.cfg", "Never", "rc11.cat", "native"),
        ("inner.cfg", "Sometimes", "c11_partialSC.cat", "interpreted"),
    ] {
        let out = hazmat(&dir, &["herd7", "-conf", cfg, "LB.litmus"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(
            text(&out.stdout).contains(&format!("Observation LB {verdict} ")),
            "{cfg}: {}",
            text(&out.stdout)
        );
        let out = hazmat(&dir, &["check", "--json", "--conf", cfg, "LB.litmus"]);
        let j: serde_json::Value =
            serde_json::from_str(text(&out.stdout).trim()).expect("one JSON object");
        assert_eq!(j["verdict"], verdict, "{cfg}");
        assert_eq!(j["model_source"]["file"], model, "{cfg}");
        assert_eq!(j["model_source"]["kind"], kind, "{cfg}");
        same_as_herd7(&dir, &["-conf", cfg, "LB.litmus"]);
    }
    // An option after `-conf` overrides its lines, and one before it is overridden.
    let after = hazmat(
        &dir,
        &[
            "herd7",
            "-conf",
            "C.cfg",
            "-cat",
            "c11_partialSC.cat",
            "LB.litmus",
        ],
    );
    assert!(text(&after.stdout).contains("Observation LB Sometimes "));
    let before = hazmat(
        &dir,
        &[
            "herd7",
            "-cat",
            "c11_partialSC.cat",
            "-conf",
            "C.cfg",
            "LB.litmus",
        ],
    );
    assert!(text(&before.stdout).contains("Observation LB Never "));
    same_as_herd7(
        &dir,
        &["-conf", "C.cfg", "-cat", "c11_partialSC.cat", "LB.litmus"],
    );
    same_as_herd7(
        &dir,
        &["-cat", "c11_partialSC.cat", "-conf", "C.cfg", "LB.litmus"],
    );
    // `hazmat check`'s own options win over the file's lines.
    let out = hazmat(
        &dir,
        &[
            "check",
            "--conf",
            "C.cfg",
            "--cat",
            "c11_partialSC.cat",
            "LB.litmus",
        ],
    );
    assert!(text(&out.stdout).contains("Observation LB Sometimes "));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A loop that reads `x` until it sees the third write, counting the reads after the
/// first: how far it goes depends on how many times the loop is unrolled.
const LOOP: &str = "C W1\n{}\n\
    P0(atomic_int *x) { atomic_store_explicit(x, 1, memory_order_relaxed); \
    atomic_store_explicit(x, 2, memory_order_relaxed); \
    atomic_store_explicit(x, 3, memory_order_relaxed); }\n\
    P1(atomic_int *x) { int r0; int r1; r1 = 0; \
    r0 = atomic_load_explicit(x, memory_order_relaxed); \
    while (r0 != 3) { r1 = r1 + 1; r0 = atomic_load_explicit(x, memory_order_relaxed); } }\n\
    exists (1:r1=2)\n";

/// herd7's `-unroll N` (and a configuration's `unroll N`) runs a `while` loop's body at
/// most `N` times, a negative `N` as `0`; `none` is taken in a file (herd7's default, 2)
/// and refused on the command line, as herd7 does; a test's own `Unroll=N` line wins
/// over both. herd7 7.58's counts (under its default model for C) are written here.
#[test]
fn unroll_sets_how_often_a_loop_runs() {
    let dir = temp_dir("unroll");
    std::fs::write(dir.join("W1.litmus"), LOOP).expect("test");
    std::fs::write(dir.join("three.cfg"), "unroll 3\n").expect("cfg");
    std::fs::write(dir.join("none.cfg"), "unroll 3\nunroll none\n").expect("cfg");
    std::fs::write(dir.join("later.cfg"), "conf three.cfg\nunroll 1\n").expect("cfg");
    let runs: [(&[&str], &str); 8] = [
        (&[], "Sometimes 6 4"),
        (&["-unroll", "-1"], "Never 0 1"),
        (&["-unroll", "0"], "Never 0 1"),
        (&["-unroll", "1"], "Never 0 4"),
        (&["-unroll", "3"], "Sometimes 6 14"),
        (&["-conf", "three.cfg"], "Sometimes 6 14"),
        (&["-conf", "none.cfg"], "Sometimes 6 4"),
        (&["-conf", "later.cfg"], "Never 0 4"),
    ];
    for (options, observation) in runs {
        let mut args = vec!["herd7"];
        args.extend(options);
        args.push("W1.litmus");
        let out = hazmat(&dir, &args);
        assert!(
            text(&out.stdout).contains(&format!("Observation W1 {observation}\n")),
            "{args:?}: {}",
            text(&out.stdout)
        );
        same_as_herd7(&dir, &args[1..]);
    }
    // A negative count unrolls none; `hazmat check` takes the option and the key too.
    for args in [
        &["check", "--unroll", "3", "--json", "W1.litmus"][..],
        &["check", "--conf", "three.cfg", "--json", "W1.litmus"][..],
    ] {
        let out = hazmat(&dir, args);
        let j: serde_json::Value =
            serde_json::from_str(text(&out.stdout).trim()).expect("one JSON object");
        assert_eq!(
            (&j["positive"], &j["negative"]),
            (&6.into(), &14.into()),
            "{args:?}"
        );
    }
    let out = hazmat(&dir, &["check", "--unroll", "1", "W1.litmus"]);
    assert!(
        text(&out.stderr).contains("more than 1 times, herd7's unrolling limit (`-unroll`)"),
        "{}",
        text(&out.stderr)
    );
    // A test's own `Unroll=N` line (its key in any case) wins over the command line; a
    // value that is no integer is the test's error.
    std::fs::write(
        dir.join("U3.litmus"),
        LOOP.replacen("C W1\n", "C U3\nunroll=3\n", 1),
    )
    .expect("test");
    std::fs::write(
        dir.join("Ux.litmus"),
        LOOP.replacen("C W1\n", "C Ux\nUnroll=x\n", 1),
    )
    .expect("test");
    for args in [&["U3.litmus"][..], &["-unroll", "1", "U3.litmus"][..]] {
        let mut ours = vec!["herd7"];
        ours.extend(args);
        let out = hazmat(&dir, &ours);
        assert!(
            text(&out.stdout).contains("Observation U3 Sometimes 6 14\n"),
            "{args:?}: {}",
            text(&out.stdout)
        );
        same_as_herd7(&dir, args);
    }
    let out = hazmat(&dir, &["herd7", "Ux.litmus"]);
    assert!(
        text(&out.stderr).starts_with("Warning: File \"Ux.litmus\": `Unroll=x`"),
        "{}",
        text(&out.stderr)
    );
    let out = hazmat(&dir, &["herd7", "-unroll", "none", "W1.litmus"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("wrong argument 'none'; option '-unroll' expects an integer.")
    );
    same_as_herd7(&dir, &["-unroll", "none", "W1.litmus"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// herd7's `-skipcheck NAME` (cumulative, and `-skipchecks A,B`, a configuration's
/// `skipchecks`) leaves the model's checks so named out: `rc11.cat` forbids load
/// buffering by `no-thin-air` alone, so without it the test is `Sometimes`. The model then
/// runs in the interpreter, since it is no longer the one hazmat knows natively.
#[test]
fn skipcheck_leaves_the_named_checks_out() {
    let dir = temp_dir("skipcheck");
    std::fs::write(dir.join("LB.litmus"), LB).expect("test");
    std::fs::write(
        dir.join("skip.cfg"),
        "macros c11.def\nmodel rc11.cat\nskipchecks SC\nskipchecks no-thin-air\n",
    )
    .expect("cfg");
    let rc11 = ["-model", "rc11.cat", "-macros", "c11.def"];
    for (skip, verdict) in [
        (&[][..], "Never"),
        (&["-skipcheck", "no-thin-air"][..], "Sometimes"),
        (
            &["-skipcheck", "SC", "-skipcheck", "no-thin-air"][..],
            "Sometimes",
        ),
        (&["-skipchecks", "SC,no-thin-air"][..], "Sometimes"),
        (&["-skipcheck", "SC"][..], "Never"),
        (&["-skipcheck", "no-such-check"][..], "Never"),
    ] {
        let mut args: Vec<&str> = rc11.to_vec();
        args.extend(skip);
        args.push("LB.litmus");
        let mut ours = vec!["herd7"];
        ours.extend(&args);
        let out = hazmat(&dir, &ours);
        assert!(
            text(&out.stdout).contains(&format!("Observation LB {verdict} ")),
            "{args:?}: {}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
        same_as_herd7(&dir, &args);
    }
    same_as_herd7(&dir, &["-conf", "skip.cfg", "LB.litmus"]);
    let out = hazmat(
        &dir,
        &["check", "--json", "--conf", "skip.cfg", "LB.litmus"],
    );
    let j: serde_json::Value =
        serde_json::from_str(text(&out.stdout).trim()).expect("one JSON object");
    assert_eq!(j["verdict"], "Sometimes");
    assert_eq!(j["model_source"]["kind"], "interpreted");
    let _ = std::fs::remove_dir_all(&dir);
}

/// herd7 runs the bell file's instructions in the cat file's interpreter, which skips the
/// checks `-skipchecks` names there too: the kernel's bell flags an RCU read-side lock
/// that nothing unlocks, and `-skipchecks unmatched-rcu-lock` leaves that flag out (hazmat
/// once kept the bell file's checks). Under `-strictskip true` the flag, raised, is not a
/// failure to record, and the execution is dropped; a bell flag that fails is recorded.
/// The expected lines are herd7 7.58's.
#[test]
fn skipcheck_skips_the_bell_files_checks_too() {
    let dir = temp_dir("skipcheck-bell");
    std::fs::write(
        dir.join("U.litmus"),
        "C U\n{}\nP0(int *x) { rcu_read_lock(); WRITE_ONCE(*x, 1); }\nexists (x=1)\n",
    )
    .expect("test");
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lkmm-history/v6.15-lkmmv2");
    let cfg = model.join("linux-kernel.cfg");
    let (cfg, model) = (cfg.to_str().expect("path"), model.to_str().expect("path"));
    let kept = "States 1\n[x]=1;\nOk\nPositive: 1 Negative: 0\n";
    let flagged = format!("{kept}Flag unmatched-rcu-lock\nObservation U Always 1 0");
    for (skip, expected) in [
        (&[][..], flagged.clone()),
        (
            &["-skipchecks", "unmatched-rcu-lock"][..],
            format!("{kept}Observation U Always 1 0"),
        ),
        (
            &["-strictskip", "true", "-skipchecks", "unmatched-rcu-lock"][..],
            "States 0\nNo\nPositive: 0 Negative: 0\nObservation U Never 0 0".to_string(),
        ),
        (
            &["-strictskip", "true", "-skipchecks", "unmatched-rcu-unlock"][..],
            flagged.clone(),
        ),
    ] {
        let mut args = vec!["-conf", cfg, "-I", model];
        args.extend(skip);
        args.push("U.litmus");
        let mut ours = vec!["herd7"];
        ours.extend(&args);
        let out = hazmat(&dir, &ours);
        assert_eq!(
            states_to_observation(&text(&out.stdout)),
            expected,
            "{skip:?}: {}",
            text(&out.stderr)
        );
        same_as_herd7(&dir, &args);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A model whose checks, of every kind, fail on load buffering's cycle or on every
/// execution of LB (whose reads from the initial writes are external too).
const STRICT_CAT: &str = "\"strict\"\nprocedure p(r) =\n  acyclic r as inner\nend\n\
    call p(po | rf) as lb\nlet rec t = po | rf | (t;t) when acyclic t as loop\n\
    flag ~empty rf as reads\nundefined_unless empty (rf & ext) as undef\n\
    assert empty (rf & ext) as stop\n";

/// The lines of herd7's report from `States` to `Observation`, its `Witnesses` and
/// `Condition` lines aside.
fn states_to_observation(out: &str) -> String {
    let from = out.find("States").unwrap_or(out.len());
    let mut lines = Vec::new();
    for l in out[from..].lines() {
        if !l.starts_with("Witnesses") && !l.starts_with("Condition") {
            lines.push(l);
        }
        if l.starts_with("Observation") {
            break;
        }
    }
    lines.join("\n")
}

/// herd7's `-strictskip true` (and the configuration's `strictskip true`): the checks
/// named by `-skipchecks` are evaluated; one that fails has its name recorded, and does
/// not reject the execution, stop the test (an `assert`) or make it undefined; one that
/// holds does what it does unskipped (a flag is raised); a skipped `call` runs for whether
/// it passes; a skipped `let rec ... when` is judged on the fixpoint. An execution is kept
/// only if the names recorded are exactly those given, so a name no check has keeps none.
/// The expected lines are herd7 7.58's.
#[test]
fn strictskip_keeps_the_executions_that_fail_exactly_the_skipped_checks() {
    let dir = temp_dir("strictskip");
    std::fs::write(dir.join("LB.litmus"), LB).expect("test");
    std::fs::write(dir.join("strict.cat"), STRICT_CAT).expect("cat");
    std::fs::write(
        dir.join("strict.cfg"),
        "macros c11.def\nmodel rc11.cat\nskipchecks no-thin-air\nstrictskip true\n",
    )
    .expect("cfg");
    let never = "States 0\nNo\nPositive: 0 Negative: 0\nObservation LB Never 0 0";
    let cycle = "States 1\n0:r0=1; 1:r1=1;\nOk\nPositive: 1 Negative: 0\n";
    let cycle_only = format!("{cycle}Observation LB Always 1 0");
    let cycle_flagged = format!("{cycle}Flag reads\nObservation LB Always 1 0");
    for (model, skip, expected) in [
        ("rc11.cat", "no-thin-air", cycle_only.as_str()),
        ("rc11.cat", "SC", never),
        ("rc11.cat", "SC,no-thin-air", never),
        ("rc11.cat", "no-such-check", never),
        ("strict.cat", "lb,loop,undef,stop", &cycle_flagged),
        ("strict.cat", "inner,loop,undef,stop", &cycle_flagged),
        ("strict.cat", "lb,loop,undef,stop,reads", never),
        (
            "strict.cat",
            "undef,stop",
            "States 3\n0:r0=0; 1:r1=0;\n0:r0=0; 1:r1=1;\n0:r0=1; 1:r1=0;\nNo\n\
             Positive: 0 Negative: 3\nFlag reads\nObservation LB Never 0 3",
        ),
    ] {
        let args = [
            "-model",
            model,
            "-macros",
            "c11.def",
            "-strictskip",
            "true",
            "-skipchecks",
            skip,
            "LB.litmus",
        ];
        let mut ours = vec!["herd7"];
        ours.extend(args);
        let out = hazmat(&dir, &ours);
        assert_eq!(
            states_to_observation(&text(&out.stdout)),
            expected,
            "{args:?}: {}",
            text(&out.stderr)
        );
        same_as_herd7(&dir, &args);
    }
    let out = hazmat(&dir, &["herd7", "-conf", "strict.cfg", "LB.litmus"]);
    assert_eq!(states_to_observation(&text(&out.stdout)), cycle_only);
    same_as_herd7(&dir, &["-conf", "strict.cfg", "LB.litmus"]);
    let out = hazmat(
        &dir,
        &["check", "--json", "--conf", "strict.cfg", "LB.litmus"],
    );
    let j: serde_json::Value =
        serde_json::from_str(text(&out.stdout).trim()).expect("one JSON object");
    assert_eq!(j["verdict"], "Always");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A test's own `Variant=` line (its key in any case, its tags apart by spaces) adds its
/// variants to the command line's for that test, as herd7 adds them: a model's `if
/// "cos-opt"` then holds; a tag herd7 does not know is the test's error, in herd7's words.
/// `hazmat check` reads the line as well, for a model given by its files.
#[test]
fn a_tests_own_variant_line_adds_to_the_variants() {
    let dir = temp_dir("test-variant");
    std::fs::write(
        dir.join("probe.cat"),
        "\"probe\"\nif \"cos-opt\" flag ~empty _ as cosopt end\n\
         if \"S128\" flag ~empty _ as s128 end\n",
    )
    .expect("cat");
    for (name, line, flags) in [
        ("V0", "", &[][..]),
        ("V1", "Variant=cos-opt\n", &["cosopt"][..]),
        ("V2", "variant=S128 cos-opt\n", &["cosopt", "s128"][..]),
    ] {
        let test = LB.replacen("C LB\n", &format!("C {name}\n{line}"), 1);
        std::fs::write(dir.join(format!("{name}.litmus")), test).expect("test");
        let file = format!("{name}.litmus");
        let args = ["-model", "probe.cat", "-macros", "c11.def", file.as_str()];
        let mut ours = vec!["herd7"];
        ours.extend(args);
        let out = text(&hazmat(&dir, &ours).stdout);
        for flag in ["cosopt", "s128"] {
            assert_eq!(
                out.contains(&format!("Flag {flag}\n")),
                flags.contains(&flag),
                "{name} {flag}: {out}"
            );
        }
        same_as_herd7(&dir, &args);
        // `hazmat check` reads the line as well, for a model given by its files.
        let checked = hazmat(
            &dir,
            &["check", "--cat", "probe.cat", "--macros", "c11.def", &file],
        );
        let checked = text(&checked.stdout);
        for flag in ["cosopt", "s128"] {
            assert_eq!(
                checked.contains(&format!("Flag {flag}\n")),
                flags.contains(&flag),
                "check {name} {flag}: {checked}"
            );
        }
    }
    std::fs::write(
        dir.join("V3.litmus"),
        LB.replacen("C LB\n", "C V3\nVariant=foo\n", 1),
    )
    .expect("test");
    let out = hazmat(&dir, &["herd7", "-model", "probe.cat", "V3.litmus"]);
    assert!(
        text(&out.stderr).starts_with("Warning: File \"V3.litmus\": tag foo for variant is wrong"),
        "{}",
        text(&out.stderr)
    );
    same_as_herd7(&dir, &["-model", "probe.cat", "V3.litmus"]);
    let out = hazmat(&dir, &["check", "--cat", "probe.cat", "V3.litmus"]);
    assert!(
        text(&out.stderr).contains("V3.litmus:2:1: error: tag foo for variant is wrong"),
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// herd7's `-names FILE` runs only the tests a file of names names (each line's first
/// word), `-excl FILE` none of those it names, as the configuration's `names` and `excl`
/// lines do; a file that cannot be read stops the run. `hazmat check` runs the tests its
/// paths name, and refuses the lines.
#[test]
fn names_and_excl_select_tests_by_name() {
    let dir = temp_dir("names");
    std::fs::write(dir.join("LB.litmus"), LB).expect("test");
    std::fs::write(dir.join("LB2.litmus"), LB.replacen("C LB\n", "C LB2\n", 1)).expect("test");
    std::fs::write(dir.join("two.txt"), "LB2 the second\nnone\n").expect("names");
    std::fs::write(
        dir.join("two.cfg"),
        "macros c11.def\nmodel rc11.cat\nexcl two.txt\n",
    )
    .expect("cfg");
    let rc11 = ["-model", "rc11.cat", "-macros", "c11.def"];
    for (select, shown) in [
        (&[][..], &["LB", "LB2"][..]),
        (&["-names", "two.txt"][..], &["LB2"][..]),
        (&["-excl", "two.txt"][..], &["LB"][..]),
        (&["-names", "two.txt", "-excl", "two.txt"][..], &[][..]),
        (&["-conf", "two.cfg"][..], &["LB"][..]),
    ] {
        let mut args: Vec<&str> = rc11.to_vec();
        args.extend(select);
        args.extend(["LB.litmus", "LB2.litmus"]);
        let mut ours = vec!["herd7"];
        ours.extend(&args);
        let out = text(&hazmat(&dir, &ours).stdout);
        for name in ["LB", "LB2"] {
            assert_eq!(
                out.contains(&format!("Test {name} ")),
                shown.contains(&name),
                "{args:?} {name}: {out}"
            );
        }
        same_as_herd7(&dir, &args);
    }
    // herd7 reads a test's name from its first line before its code: a test whose code
    // does not parse is reported only when it runs, but one its splitter cannot read
    // (an init block never closed) always.
    std::fs::write(
        dir.join("LB2.litmus"),
        LB.replacen("C LB\n", "C LB2\n", 1).replacen(
            "memory_order_relaxed); }",
            "memory_order_relaxed) }",
            1,
        ),
    )
    .expect("test");
    std::fs::write(dir.join("LB3.litmus"), "C LB3\n{ x=1;\n").expect("test");
    for (select, reported) in [
        (&["-excl", "two.txt"][..], &["LB3"][..]),
        (&["-names", "two.txt"][..], &["LB2", "LB3"][..]),
    ] {
        let mut args: Vec<&str> = rc11.to_vec();
        args.extend(select);
        args.extend(["LB2.litmus", "LB3.litmus"]);
        let mut ours = vec!["herd7"];
        ours.extend(&args);
        let err = text(&hazmat(&dir, &ours).stderr);
        for name in ["LB2", "LB3"] {
            assert_eq!(
                err.contains(&format!("\"{name}.litmus\"")),
                reported.contains(&name),
                "{args:?}: {err}"
            );
        }
        if let Some(theirs) = oracle(&dir, &args) {
            let theirs = text(&theirs.stderr);
            for name in ["LB2", "LB3"] {
                assert_eq!(
                    theirs.contains(&format!("\"{name}.litmus\"")),
                    reported.contains(&name),
                    "herd7 {args:?}: {theirs}"
                );
            }
        }
    }
    let out = hazmat(&dir, &["herd7", "-names", "nowhere.txt", "LB.litmus"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("open_in failed: nowhere.txt: No such file or directory"));
    let out = hazmat(&dir, &["check", "--conf", "two.cfg", "LB.litmus"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr)
            .contains("the configuration's `excl` lines work on the tests `hazmat herd7` runs")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// herd7's `-conds FILE` (and the configuration's `conds` lines) decides each test the
/// file names under the file's condition (`exists`, `~exists`, `forall`, and herd7's other
/// spellings of `exists`: `final p`, `(p)`, `observed`; nothing is `forall (true)`),
/// shows the locations of that condition, and prints the test's hash as written; a test
/// the file does not name keeps its own. Within a file the later line wins, across files
/// the first file. A condition that does not parse is that test's warning, located as herd7
/// locates it, in the condition's text alone (in the file `""`); a line herd7 cannot read
/// stops the run with herd7's located error.
#[test]
fn conds_replace_the_condition_of_the_tests_they_name() {
    let dir = temp_dir("conds");
    std::fs::write(dir.join("LB.litmus"), LB).expect("test");
    std::fs::write(dir.join("LB2.litmus"), LB.replacen("C LB\n", "C LB2\n", 1)).expect("test");
    let rc11 = ["-model", "rc11.cat", "-macros", "c11.def"];
    let tests = ["LB.litmus", "LB2.litmus"];
    for (n, (conds, condition, observation)) in [
        (
            "LB \"exists (0:r0=0)\"\n",
            "exists (0:r0=0)",
            "Sometimes 2 1",
        ),
        (
            "# the tests\n\nLB \"forall (0:r0=0 \\/ 1:r1=0)\" # each\n",
            "forall (0:r0=0 \\/ 1:r1=0)",
            "Always 3 0",
        ),
        (
            "LB \"~exists (1:r1=1)\"\n",
            "~exists (1:r1=1)",
            "Sometimes 1 2",
        ),
        (
            "LB \"not exists (0:r0=0)\"\n",
            "~exists (0:r0=0)",
            "Sometimes 2 1",
        ),
        (
            "LB \"~exists (0:r0=1 /\\ 1:r1=1)\"\n",
            "~exists (0:r0=1 /\\ 1:r1=1)",
            "Never 0 3",
        ),
        ("LB \"forall (x=1)\"\n", "forall ([x]=1)", "Always 3 0"),
        ("LB \"final 1:r1=1\"\n", "exists (1:r1=1)", "Sometimes 1 2"),
        ("LB (1:r1=1)\n", "exists (1:r1=1)", "Sometimes 1 2"),
        (
            "LB \"observed 0:r0=0; 1:r1=0; and 1:r1=1;\"\n",
            "exists (0:r0=0 /\\ 1:r1=0 \\/ 1:r1=1)",
            "Sometimes 2 1",
        ),
        ("LB\n", "forall (true)", "Always 3 0"),
        (
            "LB \"exists (0:r0=1)\"\nLB \"exists (1:r1=1)\"\n",
            "exists (1:r1=1)",
            "Sometimes 1 2",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let file = format!("c{n}.txt");
        std::fs::write(dir.join(&file), conds).expect("conds");
        let mut args: Vec<&str> = rc11.to_vec();
        args.extend(["-conds", &file]);
        args.extend(tests);
        let mut ours = vec!["herd7"];
        ours.extend(&args);
        let out = text(&hazmat(&dir, &ours).stdout);
        assert!(
            out.contains(&format!("Condition {condition}\n")),
            "{conds}: {out}"
        );
        assert!(
            out.contains(&format!("Observation LB {observation}\n")),
            "{conds}: {out}"
        );
        // The test the file does not name keeps its own condition.
        assert!(
            out.contains("Observation LB2 Never 0 3\n"),
            "{conds}: {out}"
        );
        // The hash is the test's as written.
        let hashes: Vec<&str> = out.lines().filter(|l| l.starts_with("Hash=")).collect();
        assert_eq!(hashes.len(), 2, "{out}");
        assert_eq!(hashes[0], hashes[1], "{out}");
        same_as_herd7(&dir, &args);
    }
    // Across files the first wins, the configuration's lines and the options in order.
    std::fs::write(dir.join("first.cfg"), "conds c1.txt\n").expect("cfg");
    for (args, condition) in [
        (
            &["-conds", "c1.txt", "-conds", "c3.txt"][..],
            "forall (0:r0=0",
        ),
        (
            &["-conds", "c3.txt", "-conds", "c1.txt"][..],
            "~exists (0:r0=0)",
        ),
        (
            &["-conf", "first.cfg", "-conds", "c3.txt"][..],
            "forall (0:r0=0",
        ),
        (
            &["-conds", "c3.txt", "-conf", "first.cfg"][..],
            "~exists (0:r0=0)",
        ),
    ] {
        let mut all: Vec<&str> = rc11.to_vec();
        all.extend(args);
        all.push("LB.litmus");
        let mut ours = vec!["herd7"];
        ours.extend(&all);
        let out = text(&hazmat(&dir, &ours).stdout);
        assert!(
            out.contains(&format!("Condition {condition}")),
            "{args:?}: {out}"
        );
        same_as_herd7(&dir, &all);
    }
    // A condition that does not parse: the test's warning, located in the condition's text
    // as herd7 locates it, and the run goes on.
    std::fs::write(
        dir.join("bad.txt"),
        "LB2 \"exists (0:r0=1)\"\nLB \"exists 0:r0=1;\"\n",
    )
    .expect("conds");
    let mut args = vec!["herd7"];
    args.extend(rc11);
    args.extend(["-conds", "bad.txt", "LB.litmus", "LB2.litmus"]);
    let out = hazmat(&dir, &args);
    assert_eq!(
        text(&out.stderr),
        "Warning: File \"\", line 1, characters 13-14: expected the end of the condition, \
         found `;` (in cond) (User error)\n"
    );
    assert!(!text(&out.stdout).contains("Test LB "));
    assert!(text(&out.stdout).contains("Observation LB2 Sometimes 1 2\n"));
    assert_eq!(out.status.code(), Some(0));
    if let Some(theirs) = oracle(&dir, &args[1..]) {
        assert_eq!(
            text(&theirs.stderr),
            "Warning: File \"\", line 1, characters 13-14: unexpected ';' (in cond) (User error)\n"
        );
        assert_eq!(untimed(&text(&theirs.stdout)), untimed(&text(&out.stdout)));
    }
    // A line herd7 cannot read, or a file it cannot open, stops the run.
    std::fs::write(
        dir.join("lines.txt"),
        "LB \"exists (0:r0=1)\"\nLB exists (0:r0=1)\n",
    )
    .expect("conds");
    for (file, message) in [
        (
            "lines.txt",
            "File \"lines.txt\", line 2, character 0: error in rename map, LexRename\n",
        ),
        (
            "nowhere.txt",
            "open_in failed: nowhere.txt: No such file or directory\n",
        ),
    ] {
        let mut args = vec!["herd7"];
        args.extend(rc11);
        args.extend(["-conds", file, "LB.litmus"]);
        let out = hazmat(&dir, &args);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            text(&out.stderr).ends_with(message),
            "{}",
            text(&out.stderr)
        );
        assert!(out.stdout.is_empty());
        if let Some(theirs) = oracle(&dir, &args[1..]) {
            assert_eq!(theirs.status.code(), Some(2));
            assert!(text(&theirs.stderr).contains(message.trim_end()));
        }
    }
    // `hazmat check` runs the tests as they are written.
    std::fs::write(
        dir.join("conds.cfg"),
        "macros c11.def\nmodel rc11.cat\nconds c1.txt\n",
    )
    .expect("cfg");
    let out = hazmat(&dir, &["check", "--conf", "conds.cfg", "LB.litmus"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("the configuration's `conds` lines work on the tests"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// herd7's `-kinds FILE` (and the configuration's `kinds` lines) gives each test the file
/// names the kind of condition the file says, which sets its quantifier (`Allowed` is
/// `exists`, `Forbidden` `~exists`, `Required` `forall`, each also without its `ed`;
/// `Unknown`, `???`, `---` or nothing leave it as it is), over a `-conds` file's condition
/// too, and over herd7's `forall (true)` for a test without one. A word herd7 does not
/// take stops the run with herd7's located error.
#[test]
fn kinds_set_the_quantifier_of_the_tests_they_name() {
    let dir = temp_dir("kinds");
    std::fs::write(dir.join("LB.litmus"), LB).expect("test");
    std::fs::write(dir.join("LB2.litmus"), LB.replacen("C LB\n", "C LB2\n", 1)).expect("test");
    let bare = LB.replacen("C LB\n", "C LB3\n", 1);
    let bare = &bare[..bare.find("exists").expect("a condition")];
    std::fs::write(dir.join("LB3.litmus"), bare).expect("test");
    std::fs::write(dir.join("conds.txt"), "LB2 \"exists (1:r1=1)\"\n").expect("conds");
    let rc11 = ["-model", "rc11.cat", "-macros", "c11.def"];
    let tests = ["LB.litmus", "LB2.litmus", "LB3.litmus"];
    for (kinds, shown) in [
        (
            "LB Forbidden\nLB2 Require\nLB3 Allow\n",
            [
                "Test LB Forbidden",
                "Condition ~exists (0:r0=1 /\\ 1:r1=1)",
                "Observation LB Never 0 3",
                "Test LB2 Required",
                "Condition forall (1:r1=1)",
                "Observation LB2 Sometimes 1 2",
                "Test LB3 Allowed",
                "Condition exists (true)",
                "Observation LB3 Always 3 0",
            ],
        ),
        (
            "# none changes\nLB Unknown\nLB2 ???\nLB3 ---\n",
            [
                "Test LB Allowed",
                "Condition exists (0:r0=1 /\\ 1:r1=1)",
                "Observation LB Never 0 3",
                "Test LB2 Allowed",
                "Condition exists (1:r1=1)",
                "Observation LB2 Sometimes 1 2",
                "Test LB3 Required",
                "Condition forall (true)",
                "Observation LB3 Always 3 0",
            ],
        ),
    ] {
        std::fs::write(dir.join("kinds.txt"), kinds).expect("kinds");
        std::fs::write(dir.join("kinds.cfg"), "kinds kinds.txt\n").expect("cfg");
        for by in [&["-kinds", "kinds.txt"][..], &["-conf", "kinds.cfg"][..]] {
            let mut args: Vec<&str> = rc11.to_vec();
            args.extend(by);
            args.extend(["-conds", "conds.txt"]);
            args.extend(tests);
            let mut ours = vec!["herd7"];
            ours.extend(&args);
            let out = text(&hazmat(&dir, &ours).stdout);
            for line in shown {
                assert!(out.contains(&format!("{line}\n")), "{kinds}: {line}: {out}");
            }
            same_as_herd7(&dir, &args);
        }
    }
    std::fs::write(dir.join("bad.txt"), "LB Allowed\nLB2 allowed\n").expect("kinds");
    let mut args = vec!["herd7"];
    args.extend(rc11);
    args.extend(["-kinds", "bad.txt", "LB.litmus"]);
    let out = hazmat(&dir, &args);
    let message = "File \"bad.txt\", line 2, character 12: error in rename map, allowed is \
                   not a valid value\n";
    assert_eq!(
        (out.status.code(), text(&out.stderr)),
        (Some(2), message.to_string())
    );
    assert!(out.stdout.is_empty());
    if let Some(theirs) = oracle(&dir, &args[1..]) {
        assert_eq!(theirs.status.code(), Some(2));
        assert!(text(&theirs.stderr).starts_with(message));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// herd7's `-rename FILE` (and the configuration's `rename` lines) gives each test the
/// file names the name the file says, in its output and wherever herd7 looks a test up by
/// name: `-names`, `-excl`, `-conds`, `-kinds` and the check for a second test of the
/// same name. The hash stays the test's. herd7 looks the names of `-names` and `-excl`
/// files themselves up in the map too.
#[test]
fn rename_renames_the_tests_it_names() {
    let dir = temp_dir("rename");
    std::fs::write(dir.join("LB.litmus"), LB).expect("test");
    std::fs::write(dir.join("LB2.litmus"), LB.replacen("C LB\n", "C LB2\n", 1)).expect("test");
    // A test of another name and text, renamed to the first's new name.
    let other = LB.replacen("C LB\n", "C LB3\n", 1).replacen(
        "memory_order_relaxed); }",
        "memory_order_acquire); }",
        1,
    );
    std::fs::write(dir.join("LB3.litmus"), other).expect("test");
    std::fs::write(dir.join("rename.txt"), "LB \"LB renamed\"\nLB2 LB+new\n").expect("map");
    std::fs::write(dir.join("same.txt"), "LB NEW\nLB3 NEW\n").expect("map");
    std::fs::write(dir.join("names.txt"), "LB+new\n").expect("names");
    std::fs::write(dir.join("old.txt"), "LB2\n").expect("names");
    std::fs::write(dir.join("files.txt"), "old.txt names.txt\n").expect("map");
    std::fs::write(dir.join("conds.txt"), "LB+new \"forall (1:r1=0)\"\n").expect("conds");
    std::fs::write(dir.join("rename.cfg"), "rename rename.txt\n").expect("cfg");
    let rc11 = ["-model", "rc11.cat", "-macros", "c11.def"];
    for (options, tests, shown, count) in [
        (
            &["-rename", "rename.txt"][..],
            &["LB.litmus", "LB2.litmus"][..],
            &[
                "Test LB renamed Allowed",
                "Observation LB renamed Never 0 3",
                "Test LB+new ",
            ][..],
            2,
        ),
        (
            &["-conf", "rename.cfg", "-names", "names.txt"][..],
            &["LB.litmus", "LB2.litmus"][..],
            &["Observation LB+new Never 0 3"][..],
            1,
        ),
        (
            &["-rename", "rename.txt", "-names", "old.txt"][..],
            &["LB.litmus", "LB2.litmus"][..],
            &[][..],
            0,
        ),
        (
            &["-rename", "rename.txt", "-excl", "names.txt"][..],
            &["LB.litmus", "LB2.litmus"][..],
            &["Observation LB renamed Never 0 3"][..],
            1,
        ),
        (
            &["-rename", "rename.txt", "-conds", "conds.txt"][..],
            &["LB2.litmus"][..],
            &[
                "Condition forall (1:r1=0)",
                "Observation LB+new Sometimes 2 1",
            ][..],
            1,
        ),
        (
            &["-rename", "files.txt", "-names", "old.txt"][..],
            &["LB.litmus", "LB2.litmus"][..],
            &[][..],
            0,
        ),
        (
            &["-rename", "same.txt"][..],
            &["LB.litmus", "LB3.litmus"][..],
            &["Observation NEW Never 0 3"][..],
            1,
        ),
    ] {
        let mut args: Vec<&str> = rc11.to_vec();
        args.extend(options);
        args.extend(tests);
        let mut ours = vec!["herd7"];
        ours.extend(&args);
        let out = hazmat(&dir, &ours);
        let stdout = text(&out.stdout);
        for line in shown {
            assert!(stdout.contains(line), "{args:?}: {line}: {stdout}");
        }
        // The tests decided, the others left out by name.
        let decided = stdout.lines().filter(|l| l.starts_with("Test ")).count();
        assert_eq!(decided, count, "{args:?}: {stdout}");
        if options.contains(&"same.txt") {
            assert!(
                text(&out.stderr)
                    .contains("Different hashes for test NEW (previous file LB.litmus)")
            );
        }
        same_as_herd7(&dir, &args);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A value herd7 takes for each kind of value, and one it refuses.
fn values(v: Value) -> (&'static str, Option<&'static str>) {
    match v {
        Value::Bool => ("true", Some("yes")),
        Value::Int => ("3", Some("three")),
        Value::IntOrNone => ("none", Some("x")),
        Value::Float => ("1.5", Some("x")),
        Value::FloatOrNone => ("none", Some("x")),
        Value::Pair => ("0.5,1", Some("1")),
        Value::Text => ("something", None),
        Value::Tags(t) | Value::TagsAnyCase(t) => (t[0], Some("bogus")),
        Value::Model => ("sc.cat", Some("sc")),
        Value::Variants => ("lkmmv2", Some("bogus")),
        Value::Debug => ("solver", Some("bogus")),
        Value::EdgeAttr => ("hb,color,indigo", Some("hb,color")),
        Value::Floats => ("1,2.5", Some("1,x")),
    }
}

/// Every key herd7 7.58 reads is honoured, accepted without effect (the figures' keys) or
/// refused by name with its place; a value herd7 refuses is refused in herd7's words, at
/// herd7's place; a key herd7 does not read is herd7's "Unknown key". `hazmat check`
/// refuses the same lines, located in its own way.
#[test]
fn every_key_is_honoured_or_refused_by_name() {
    let dir = temp_dir("keys");
    std::fs::write(dir.join("LB.litmus"), LB).expect("test");
    std::fs::write(dir.join("names.txt"), "LB the test\n").expect("names");
    std::fs::write(dir.join("none.txt"), "").expect("names");
    let header = "macros c11.def\nmodel rc11.cat\n";
    let mut refused = 0;
    for key in KEYS {
        if matches!(key.name, "conf" | "include" | "dotheader") {
            continue;
        }
        let (good, bad) = values(key.value);
        let good = match key.use_ {
            Use::Only(values, _) => values[0],
            _ => good,
        };
        // A model or macros line of its own would run another model.
        let good = match key.name {
            "model" | "cat" => "rc11.cat",
            "macros" => "c11.def",
            "bell" => continue,
            // Files of test names: one that names the test, one that names none.
            "names" => "names.txt",
            "excl" | "conds" | "kinds" | "rename" => "none.txt",
            _ => good,
        };
        let cfg = format!("{header}{} {good}\n", key.name);
        std::fs::write(dir.join("k.cfg"), &cfg).expect("cfg");
        let out = hazmat(&dir, &["herd7", "-conf", "k.cfg", "LB.litmus"]);
        let err = text(&out.stderr);
        match key.use_ {
            Use::Refused(_) => {
                refused += 1;
                assert_eq!(out.status.code(), Some(2), "{cfg}");
                assert_eq!(
                    err.trim_end(),
                    format!(
                        "File \"./k.cfg\", line 3, character {}: hazmat cannot honour `{} \
                         {good}`: {}",
                        key.name.len() + good.len() + 2,
                        key.name,
                        match key.use_ {
                            Use::Refused(why) => why,
                            _ => "",
                        }
                    ),
                    "{cfg}"
                );
                let check = hazmat(&dir, &["check", "--conf", "k.cfg", "LB.litmus"]);
                assert_eq!(check.status.code(), Some(2), "{cfg}");
                assert!(
                    text(&check.stderr).starts_with("./k.cfg:3:1: error: hazmat cannot honour `"),
                    "{}",
                    text(&check.stderr)
                );
            }
            _ => {
                assert_eq!(out.status.code(), Some(0), "{cfg}: {err}");
                assert!(
                    text(&out.stdout).contains("Observation LB "),
                    "{cfg}: {err}"
                );
                // herd7's diagnostics are its own; hazmat prints its warnings instead.
                if key.name != "verbose" {
                    same_as_herd7(&dir, &["-conf", "k.cfg", "LB.litmus"]);
                }
            }
        }
        if let Use::Only(values, why) = key.use_
            && let Some(other) = match key.value {
                Value::Bool => Some(if values[0] == "true" { "false" } else { "true" }),
                Value::Tags(t) | Value::TagsAnyCase(t) => {
                    t.iter().copied().find(|t| !values.contains(t))
                }
                Value::IntOrNone => Some("5"),
                Value::Text => Some("something"),
                _ => None,
            }
        {
            std::fs::write(dir.join("k.cfg"), format!("{header}{} {other}\n", key.name))
                .expect("cfg");
            let out = hazmat(&dir, &["herd7", "-conf", "k.cfg", "LB.litmus"]);
            assert_eq!(out.status.code(), Some(2), "{} {other}", key.name);
            assert!(text(&out.stderr).contains(why), "{}", text(&out.stderr));
        }
        if let Some(bad) = bad {
            std::fs::write(dir.join("k.cfg"), format!("{header}{} {bad}\n", key.name))
                .expect("cfg");
            let out = hazmat(&dir, &["herd7", "-conf", "k.cfg", "LB.litmus"]);
            assert_eq!(out.status.code(), Some(2), "{} {bad}", key.name);
            same_as_herd7(&dir, &["-conf", "k.cfg", "LB.litmus"]);
            let check = hazmat(&dir, &["check", "--conf", "k.cfg", "LB.litmus"]);
            assert_eq!(check.status.code(), Some(2), "{} {bad}", key.name);
            assert!(text(&check.stderr).starts_with("./k.cfg:3:1: error: "));
        }
    }
    assert!(refused > 0);
    // A key herd7 does not read.
    std::fs::write(dir.join("k.cfg"), format!("{header}foo bar\n")).expect("cfg");
    let out = hazmat(&dir, &["herd7", "-conf", "k.cfg", "LB.litmus"]);
    assert_eq!(
        text(&out.stderr),
        "File \"./k.cfg\", line 3, character 8: Unknown key 'foo' in configuration file\n"
    );
    assert_eq!(out.status.code(), Some(2));
    same_as_herd7(&dir, &["-conf", "k.cfg", "LB.litmus"]);
    let check = hazmat(&dir, &["check", "--conf", "k.cfg", "LB.litmus"]);
    assert!(
        text(&check.stderr).starts_with("./k.cfg:3:1: error: unknown key `foo`"),
        "{}",
        text(&check.stderr)
    );
    // A line that is no `key value`.
    std::fs::write(dir.join("k.cfg"), format!("{header} model sc.cat\n")).expect("cfg");
    same_as_herd7(&dir, &["-conf", "k.cfg", "LB.litmus"]);
    // A file that `conf` names and no place holds, and a bad variant.
    std::fs::write(dir.join("k.cfg"), format!("{header}conf nothere.cfg\n")).expect("cfg");
    same_as_herd7(&dir, &["-conf", "k.cfg", "LB.litmus"]);
    let check = hazmat(&dir, &["check", "--conf", "k.cfg", "LB.litmus"]);
    assert!(
        text(&check.stderr).starts_with("./k.cfg:3:1: error: cannot find the file `nothere.cfg`"),
        "{}",
        text(&check.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `-web` reads `web.cfg`, whose settings change only the drawings: with hazmat's own
/// library alone, the answer is the one without it, as herd7's.
#[test]
fn web_reads_the_drawings_settings_of_the_library() {
    let dir = temp_dir("web");
    std::fs::write(
        dir.join("LB.litmus"),
        "C LB\n{}\n\
         P0(atomic_int *x, atomic_int *y) { int r0 = atomic_load_explicit(x, memory_order_relaxed); \
         atomic_store_explicit(y, 1, memory_order_relaxed); }\n\
         P1(atomic_int *x, atomic_int *y) { int r0 = atomic_load_explicit(y, memory_order_relaxed); \
         atomic_store_explicit(x, 1, memory_order_relaxed); }\n\
         exists (0:r0=1 /\\ 1:r0=1)\n",
    )
    .expect("test");
    let with = hazmat(&dir, &["herd7", "-c11", "-web", "LB.litmus"]);
    let without = hazmat(&dir, &["herd7", "-c11", "LB.litmus"]);
    assert!(with.status.success(), "{}", text(&with.stderr));
    assert!(
        text(&with.stdout).contains("\nObservation LB "),
        "{}",
        text(&with.stdout)
    );
    assert_eq!(
        untimed(&text(&with.stdout)),
        untimed(&text(&without.stdout))
    );
    same_as_herd7(&dir, &["-c11", "-web", "LB.litmus"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `hexa true`, as an option or a line: values in hexadecimal, as herd7 prints them
/// (a negative 32-bit value in two's complement), in the states and the condition.
#[test]
fn hexa_prints_values_in_hexadecimal() {
    let dir = temp_dir("hexa");
    std::fs::write(
        dir.join("NEG.litmus"),
        "C NEG\n{ x=-3; }\n\
         P0(atomic_int *x) { int r0 = atomic_load_explicit(x, memory_order_relaxed); \
         atomic_store_explicit(x, 4096, memory_order_relaxed); }\n\
         exists (0:r0=-3)\n",
    )
    .expect("test");
    std::fs::write(dir.join("hexa.cfg"), "conf cpp11.cfg\nhexa true\n").expect("cfg");
    let expected = "Test NEG Allowed\nStates 1\n0:r0=0xfffffffd;\nOk\nWitnesses\n\
                    Positive: 1 Negative: 0\nCondition exists (0:r0=0xfffffffd)\n\
                    Observation NEG Always 1 0\nHash=";
    for args in [
        &["herd7", "-c11", "-hexa", "true", "NEG.litmus"][..],
        &["herd7", "-conf", "hexa.cfg", "NEG.litmus"],
        &["check", "--conf", "hexa.cfg", "NEG.litmus"],
    ] {
        let out = hazmat(&dir, args);
        assert!(
            untimed(&text(&out.stdout)).starts_with(expected),
            "{args:?}: {}",
            text(&out.stdout)
        );
    }
    same_as_herd7(&dir, &["-c11", "-hexa", "true", "NEG.litmus"]);
    same_as_herd7(&dir, &["-conf", "hexa.cfg", "NEG.litmus"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// herd7's `-exit true` stops at the first test that fails, with exit code 1, after its
/// warning; without it, every test runs and the exit code is 0.
#[test]
fn exit_true_stops_at_the_first_failure() {
    let dir = temp_dir("exit");
    std::fs::write(dir.join("LB.litmus"), LB).expect("test");
    let run = |exit: &str| {
        hazmat(
            &dir,
            &["herd7", "-exit", exit, "-c11", "absent.litmus", "LB.litmus"],
        )
    };
    let stop = run("true");
    assert_eq!(stop.status.code(), Some(1));
    assert_eq!(text(&stop.stdout), "");
    assert_eq!(
        text(&stop.stderr),
        "Warning: File \"absent.litmus\": open_in failed: absent.litmus: No such file or \
         directory\n"
    );
    let go_on = run("false");
    assert_eq!(go_on.status.code(), Some(0));
    assert!(text(&go_on.stdout).contains("Observation LB Sometimes "));
    same_as_herd7(
        &dir,
        &["-exit", "true", "-c11", "absent.litmus", "LB.litmus"],
    );
    same_as_herd7(
        &dir,
        &["-exit", "false", "-c11", "absent.litmus", "LB.litmus"],
    );
    // A test that runs is no failure.
    let fine = hazmat(
        &dir,
        &["herd7", "-exit", "true", "-c11", "LB.litmus", "LB.litmus"],
    );
    assert_eq!(fine.status.code(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// herd7 takes a test as seen, and skips it when it comes back with the same hash, only
/// once it has run to its end: a test that failed (here, a failed assertion of the model)
/// is run, and reported, again.
#[test]
fn a_test_that_failed_is_run_again_when_it_comes_back() {
    let dir = temp_dir("seen");
    std::fs::write(dir.join("as.cat"), "\"as\"\nassert empty po as a\n").expect("model");
    std::fs::write(
        dir.join("t2.litmus"),
        "C t2\n{}\nP0(atomic_int *x) { atomic_store_explicit(x, 1, memory_order_relaxed); \
         atomic_store_explicit(x, 2, memory_order_relaxed); }\nexists (x=1)\n",
    )
    .expect("test");
    let args = ["-model", "./as.cat", "t2.litmus", "t2.litmus"];
    let out = hazmat(&dir, &[&["herd7"][..], &args].concat());
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(
        text(&out.stderr),
        "Warning: File \"t2.litmus\": a assertion failed, check input test. (User error)\n"
            .repeat(2)
    );
    same_as_herd7(&dir, &args);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `-macros` file found nowhere is not a refusal of the command line: herd7 looks for it
/// as it reads each test, once the test is parsed, and warns on each (`-exit true` stops
/// at the first).
#[test]
fn a_missing_macro_file_is_a_warning_on_each_test() {
    let dir = temp_dir("macros");
    std::fs::write(dir.join("LB.litmus"), LB).expect("test");
    std::fs::write(
        dir.join("bad.litmus"),
        "C bad\n{}\nP0(int *x) { WRITE_ONCE(*x 1); }\nexists (x=1)\n",
    )
    .expect("test");
    let out = hazmat(
        &dir,
        &[
            "herd7",
            "-model",
            "rc11.cat",
            "-macros",
            "nod.def",
            "LB.litmus",
            "bad.litmus",
            "LB.litmus",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "");
    let err = text(&out.stderr);
    assert!(
        err.starts_with("Warning: File \"LB.litmus\": Cannot find file nod.def\n"),
        "{err}"
    );
    assert!(
        err.ends_with("Warning: File \"LB.litmus\": Cannot find file nod.def\n"),
        "{err}"
    );
    assert!(
        err.contains("Warning: File \"bad.litmus\", line 3,"),
        "{err}"
    );
    let stop = hazmat(
        &dir,
        &[
            "herd7",
            "-exit",
            "true",
            "-model",
            "rc11.cat",
            "-macros",
            "nod.def",
            "LB.litmus",
            "LB.litmus",
        ],
    );
    assert_eq!(stop.status.code(), Some(1));
    same_as_herd7(
        &dir,
        &[
            "-model",
            "rc11.cat",
            "-macros",
            "nod.def",
            "LB.litmus",
            "LB.litmus",
        ],
    );
    same_as_herd7(
        &dir,
        &[
            "-exit",
            "true",
            "-model",
            "rc11.cat",
            "-macros",
            "nod.def",
            "LB.litmus",
        ],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// With no model and no configuration, herd7 runs a C test under its default,
/// `c11_partialSC.cat`, with no macro file: C11's atomics as its grammar reads them, and
/// no other call. hazmat does the same with its own library.
#[test]
fn herd7s_default_model_for_c() {
    let dir = temp_dir("default");
    let sb = "C SB11\n{}\n\
        P0(atomic_int *x, atomic_int *y) { atomic_store_explicit(x, 1, memory_order_release); \
        int r0 = atomic_load_explicit(y, memory_order_acquire); }\n\
        P1(atomic_int *x, atomic_int *y) { atomic_store_explicit(y, 1, memory_order_release); \
        int r1 = atomic_load_explicit(x, memory_order_acquire); }\n\
        exists (0:r0=0 /\\ 1:r1=0)\n";
    std::fs::write(dir.join("SB11.litmus"), sb).expect("test");
    std::fs::write(dir.join("LB.litmus"), LB).expect("test");
    std::fs::write(
        dir.join("kernel.litmus"),
        "C kernel\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nexists (x=1)\n",
    )
    .expect("test");
    let out = hazmat(
        &dir,
        &["herd7", "SB11.litmus", "LB.litmus", "kernel.litmus"],
    );
    assert_eq!(out.status.code(), Some(0));
    let stdout = untimed(&text(&out.stdout));
    assert!(
        stdout.contains("Observation SB11 Sometimes 1 3\n"),
        "{stdout}"
    );
    // `atomic_store`, which only `c11.def` defines, is unknown without a macro file.
    assert_eq!(
        text(&out.stderr),
        "Warning: File \"LB.litmus\": Procedure call atomic_store in CSem\n\
         Warning: File \"kernel.litmus\": Procedure call WRITE_ONCE in CSem\n"
    );
    same_as_herd7(&dir, &["SB11.litmus", "LB.litmus", "kernel.litmus"]);
    let _ = std::fs::remove_dir_all(&dir);
}
