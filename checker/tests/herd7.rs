//! hazmat as herd7: the command line herd7's callers use, and the kernel's
//! `tools/memory-model/scripts/` run unchanged with hazmat on `PATH` as `herd7`.
//!
//! The script tests need the shared folder beside the repository (`../shared` from the
//! root, or `$HAZMAT_SHARED`): the kernel's scripts (`kernel-scripts/`), the model files
//! and the corpora with herd7's recorded outputs (`conformance/`), and herd7's `mselect7`
//! (`oracle/`). Without them they pass after saying so. They run the scripts with `sh`,
//! `/usr/bin/time` and `timeout`, and check that every test is judged as herd7 judges it
//! and that hazmat's output is herd7's, line for line, the `Time` line aside.

#[path = "common/scratch.rs"]
mod scratch;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "common/untimed.rs"]
mod untimed;
use untimed::untimed;

const SB: &str = "C SB\n{}\n\
                  P0(int *x, int *y) { int r0; WRITE_ONCE(*x, 1); r0 = READ_ONCE(*y); }\n\
                  P1(int *x, int *y) { int r0; WRITE_ONCE(*y, 1); r0 = READ_ONCE(*x); }\n\
                  exists (0:r0=0 /\\ 1:r0=0)\n";

/// A fresh temporary directory for one test.
fn temp_dir(tag: &str) -> PathBuf {
    scratch::folder(&format!("herd7-{tag}"))
}

/// A directory holding `herd7`, a symlink to the hazmat binary.
fn herd7_bin(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("bin directory");
    let link = bin.join("herd7");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_hazmat"), &link).expect("symlink");
    bin
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("the command runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn the_kernel_configuration_works_without_its_files() {
    let dir = temp_dir("cli");
    std::fs::write(dir.join("SB.litmus"), SB).expect("test file");
    let bin = herd7_bin(&dir);
    // Through the symlink, as the scripts run it, with no model file anywhere near.
    let out = run(Command::new(bin.join("herd7"))
        .args(["-conf", "linux-kernel.cfg", "SB.litmus"])
        .env_remove("HERDLIB")
        .current_dir(&dir));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        untimed(&text(&out.stdout)),
        "Test SB Allowed\nStates 4\n0:r0=0; 1:r0=0;\n0:r0=0; 1:r0=1;\n0:r0=1; 1:r0=0;\n\
         0:r0=1; 1:r0=1;\nOk\nWitnesses\nPositive: 1 Negative: 3\n\
         Condition exists (0:r0=0 /\\ 1:r0=0)\nObservation SB Sometimes 1 3\n\
         Hash=f49bd0baebf1db2cbf88689f53c5389f\n\n"
    );
    assert_eq!(text(&out.stderr), "");
    // The same as a subcommand.
    let sub = run(Command::new(env!("CARGO_BIN_EXE_hazmat"))
        .args(["herd7", "-conf", "linux-kernel.cfg", "SB.litmus"])
        .current_dir(&dir));
    assert_eq!(untimed(&text(&sub.stdout)), untimed(&text(&out.stdout)));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `-speedcheck` prints only the execution that decides the condition, or none, as herd7
/// does; the outputs are herd7 7.58's.
#[test]
fn speedcheck_prints_what_herd7s_prints() {
    let dir = temp_dir("speedcheck");
    std::fs::write(
        dir.join("CoWW.litmus"),
        "C CoWW\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); WRITE_ONCE(*x, 2); }\nexists (x=1)\n",
    )
    .expect("test file");
    std::fs::write(
        dir.join("SBf.litmus"),
        SB.replace("C SB", "C SBf")
            .replace("exists (0:r0=0 /\\ 1:r0=0)", "forall (0:r0=1 \\/ 1:r0=1)"),
    )
    .expect("test file");
    let out = run(Command::new(env!("CARGO_BIN_EXE_hazmat"))
        .args(["herd7", "-conf", "linux-kernel.cfg", "-speedcheck", "fast"])
        .args(["CoWW.litmus", "SBf.litmus"])
        .current_dir(&dir));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        untimed(&text(&out.stdout)),
        "Test CoWW Allowed\nStates 0\nNo\nWitnesses\nPositive: 0 Negative: 0\n\
         Condition exists ([x]=1)\nObservation CoWW Never 0 0\n\
         Hash=54b4ef4848e709b51ad979a12d11724d\n\n\
         Test SBf Required\nStates 1\n0:r0=0; 1:r0=0;\nNo\nWitnesses\n\
         Positive: 0 Negative: 1\nCondition forall (0:r0=1 \\/ 1:r0=1)\n\
         Observation SBf Never 0 1\nHash=f49bd0baebf1db2cbf88689f53c5389f\n\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// herd7's `-speedcheck true` (and the configuration's `speedcheck true`, which `hazmat
/// check --conf` honours too) counts every allowed execution that can decide the
/// condition, and no other, to the end: one satisfying the proposition for `exists` and
/// `~exists`, one failing it for `forall`. The states, counts and flags are theirs (a
/// data race in the others raises no flag, a run cut off by a loop in the others marks no
/// `Loop`), and the verdict is read from those counts (`Never 0 0` for a `forall` that
/// holds). The outputs are herd7 7.58's.
#[test]
fn speedcheck_true_counts_every_execution_that_decides() {
    let dir = temp_dir("speedcheck-true");
    let tests = [
        (
            "MPx",
            "C MPx\n{}\n\
             P0(int *x, int *y) { WRITE_ONCE(*x, 1); WRITE_ONCE(*y, 1); }\n\
             P1(int *x, int *y) { int r0; int r1; r0 = READ_ONCE(*y); r1 = READ_ONCE(*x); }\n\
             locations [1:r0;]\nexists (1:r1=1)\n",
        ),
        (
            "WWR",
            "C WWR\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nP1(int *x) { WRITE_ONCE(*x, 2); }\n\
             P2(int *x) { int r0; int r1; r0 = READ_ONCE(*x); r1 = READ_ONCE(*x); }\n\
             filter (2:r0=1)\nexists (2:r1=1)\n",
        ),
        (
            "RaceOff",
            "C RaceOff\n{}\n\
             P0(int *x, int *y) { int r0; r0 = READ_ONCE(*x); if (r0 == 1) *y = 1; }\n\
             P1(int *x, int *y) { int r1; WRITE_ONCE(*x, 1); r1 = *y; }\nexists (0:r0=0)\n",
        ),
        (
            "SBne",
            &*SB.replace("C SB", "C SBne")
                .replace("exists (0:r0=0", "~exists (0:r0=0"),
        ),
        (
            "Loop1",
            "C Loop1\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\n\
             P1(int *x) { int r0; r0 = READ_ONCE(*x); while (r0 == 0) r0 = READ_ONCE(*x); }\n\
             exists (1:r0=1)\n",
        ),
        (
            "SBfa2",
            "C SBfa2\n{}\n\
             P0(int *x, int *y) { int r0; WRITE_ONCE(*x, 1); smp_mb(); r0 = READ_ONCE(*y); }\n\
             P1(int *x, int *y) { int r0; WRITE_ONCE(*y, 1); smp_mb(); r0 = READ_ONCE(*x); }\n\
             forall (0:r0=1 \\/ 1:r0=1)\n",
        ),
    ];
    let mut files = Vec::new();
    for (name, source) in tests {
        std::fs::write(dir.join(format!("{name}.litmus")), source).expect("test file");
        files.push(format!("{name}.litmus"));
    }
    let herd7 = "Test MPx Allowed\nStates 2\n1:r0=0; 1:r1=1;\n1:r0=1; 1:r1=1;\nOk\nWitnesses\n\
                 Positive: 2 Negative: 0\nCondition exists (1:r1=1)\n\
                 Observation MPx Always 2 0\nHash=c774a2155939fa7eb36446b4c2400daa\n\n\
                 Test WWR Allowed\nStates 1\n2:r1=1;\nOk\nWitnesses\nPositive: 2 Negative: 0\n\
                 Condition exists (2:r1=1)\nObservation WWR Always 2 0\n\
                 Hash=84dae5e3b971ae646881890eae8ee0b1\n\n\
                 Test RaceOff Allowed\nStates 1\n0:r0=0;\nOk\nWitnesses\n\
                 Positive: 1 Negative: 0\nCondition exists (0:r0=0)\n\
                 Observation RaceOff Always 1 0\nHash=d1d50003a9c35ceb1fe171c71ed8f666\n\n\
                 Test SBne Forbidden\nStates 1\n0:r0=0; 1:r0=0;\nNo\nWitnesses\n\
                 Positive: 0 Negative: 1\nCondition ~exists (0:r0=0 /\\ 1:r0=0)\n\
                 Observation SBne Always 1 0\nHash=f49bd0baebf1db2cbf88689f53c5389f\n\n\
                 Test Loop1 Allowed\nStates 1\n1:r0=1;\nOk\nWitnesses\nPositive: 3 Negative: 0\n\
                 Condition exists (1:r0=1)\nObservation Loop1 Always 3 0\n\
                 Hash=743317dcc05501d8f99faf50a8cae137\n\n\
                 Test SBfa2 Required\nStates 0\nOk\nWitnesses\nPositive: 0 Negative: 0\n\
                 Condition forall (0:r0=1 \\/ 1:r0=1)\nObservation SBfa2 Never 0 0\n\
                 Hash=ba81e616722eb9d0e2df9e8cbcba6f58\n\n";
    std::fs::write(dir.join("speed.cfg"), "speedcheck true\n").expect("cfg");
    for options in [
        &["-speedcheck", "true"][..],
        &["-speedcheck", "TRUE"][..],
        &["-conf", "speed.cfg"][..],
    ] {
        let out = run(Command::new(env!("CARGO_BIN_EXE_hazmat"))
            .args(["herd7", "-conf", "linux-kernel.cfg"])
            .args(options)
            .args(&files)
            .current_dir(&dir));
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stderr), "", "{options:?}");
        assert_eq!(untimed(&text(&out.stdout)), herd7, "{options:?}");
    }
    // herd7 draws only the executions it counts: MPx's two under `-show all`, none under
    // `-show neg` (an empty file).
    for (show, drawn) in [("all", 2), ("neg", 0)] {
        let out = run(Command::new(env!("CARGO_BIN_EXE_hazmat"))
            .args(["herd7", "-conf", "linux-kernel.cfg", "-speedcheck", "true"])
            .args(["-show", show, "-o", show, "MPx.litmus"])
            .current_dir(&dir));
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let dot = std::fs::read_to_string(dir.join(show).join("MPx.dot")).expect("drawing");
        assert_eq!(dot.matches("digraph").count(), drawn, "{show}: {dot}");
    }
    // A C11 test under RC11, through `hazmat check --conf`.
    std::fs::write(
        dir.join("SBc.litmus"),
        "C SBc\n{}\n\
         P0(atomic_int *x, atomic_int *y) { atomic_store_explicit(x, 1, memory_order_relaxed); \
         int r0 = atomic_load_explicit(y, memory_order_relaxed); }\n\
         P1(atomic_int *x, atomic_int *y) { atomic_store_explicit(y, 1, memory_order_relaxed); \
         int r0 = atomic_load_explicit(x, memory_order_relaxed); }\n\
         locations [1:r0;]\nexists (0:r0=0)\n",
    )
    .expect("test file");
    std::fs::write(dir.join("rc11.cfg"), "model rc11.cat\nspeedcheck true\n").expect("cfg");
    let herd7 = "Test SBc Allowed\nStates 2\n0:r0=0; 1:r0=0;\n0:r0=0; 1:r0=1;\nOk\nWitnesses\n\
                 Positive: 2 Negative: 0\nCondition exists (0:r0=0)\n\
                 Observation SBc Always 2 0\nHash=da31e869db921e429793b8485ac239c4\n\n";
    for command in [
        &["herd7", "-conf", "rc11.cfg"][..],
        &["herd7", "-model", "rc11.cat", "-speedcheck", "true"][..],
        &["check", "--conf", "rc11.cfg"][..],
    ] {
        let out = run(Command::new(env!("CARGO_BIN_EXE_hazmat"))
            .args(command)
            .arg("SBc.litmus")
            .current_dir(&dir));
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(untimed(&text(&out.stdout)), herd7, "{command:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Without files on the command line, their names come from stdin; `-show` with `-o DIR`
/// writes the executions shown to `DIR/NAME.dot`.
#[test]
fn tests_named_on_stdin_and_drawings_written_to_a_directory() {
    use std::io::Write as _;
    let dir = temp_dir("stdin");
    std::fs::write(dir.join("SB.litmus"), SB).expect("test file");
    let mut child = Command::new(env!("CARGO_BIN_EXE_hazmat"))
        .args([
            "herd7",
            "-conf",
            "linux-kernel.cfg",
            "-show",
            "prop",
            "-o",
            "figs",
        ])
        .current_dir(&dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("hazmat runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"SB.litmus\n\n")
        .expect("names written");
    let out = child.wait_with_output().expect("hazmat ends");
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("Observation SB Sometimes 1 3\n"));
    let dot = std::fs::read_to_string(dir.join("figs/SB.dot")).expect("the drawing");
    assert_eq!(dot.matches("digraph").count(), 1, "{dot}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn errors_are_worded_and_coded_as_herd7_words_and_codes_them() {
    let dir = temp_dir("errors");
    std::fs::write(
        dir.join("unknown.litmus"),
        "C unknown\n{}\nP0(int *x) { smp_memb(); WRITE_ONCE(*x, 1); }\nexists (x=1)\n",
    )
    .expect("test file");
    let bin = herd7_bin(&dir);
    let herd7 = |args: &[&str]| run(Command::new(bin.join("herd7")).args(args).current_dir(&dir));
    let out = herd7(&[
        "-conf",
        "linux-kernel.cfg",
        "unknown.litmus",
        "absent.litmus",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(
        text(&out.stderr),
        "Warning: File \"unknown.litmus\": Unknown macro smp_memb (User error)\n\
         Warning: File \"absent.litmus\": open_in failed: absent.litmus: No such file or \
         directory\n"
    );
    let bad = herd7(&["-conf", "linux-kernel.cfg", "-bogus"]);
    assert_eq!(bad.status.code(), Some(2));
    let err = text(&bad.stderr);
    assert!(err.contains(": unknown option '-bogus'.\nUsage "), "{err}");
    let missing = herd7(&["-conf", "nothere.cfg", "unknown.litmus"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).ends_with(": Cannot find file nothere.cfg\n"));
    // A model that is not the kernel's goes to the cat interpreter: one of one's own that
    // forbids only cycles of po and rf allows every outcome of SB.
    std::fs::write(
        dir.join("SB.litmus"),
        "C SB\n{}\nP0(int *x, int *y) { int r0; WRITE_ONCE(*x, 1); r0 = READ_ONCE(*y); }\n\
         P1(int *x, int *y) { int r0; WRITE_ONCE(*y, 1); r0 = READ_ONCE(*x); }\n\
         exists (0:r0=0 /\\ 1:r0=0)\n",
    )
    .expect("test file");
    std::fs::write(dir.join("mine.cat"), "\"mine\"\nacyclic po | rf as mine\n").expect("cat");
    // Without a macro file, herd7 knows none of the kernel's macros, and says so in the
    // words of its C semantics.
    let bare = herd7(&["-model", "mine.cat", "SB.litmus"]);
    assert_eq!(bare.status.code(), Some(0));
    assert_eq!(text(&bare.stdout), "");
    assert_eq!(
        text(&bare.stderr),
        "Warning: File \"SB.litmus\": Procedure call WRITE_ONCE in CSem\n"
    );
    let mine = herd7(&[
        "-macros",
        "linux-kernel.def",
        "-model",
        "mine.cat",
        "SB.litmus",
    ]);
    assert_eq!(mine.status.code(), Some(0), "{}", text(&mine.stderr));
    assert!(
        text(&mine.stdout).contains("States 4\n")
            && text(&mine.stdout).contains("Observation SB Sometimes 1 3\n"),
        "{}",
        text(&mine.stdout)
    );
    // An error in it is located in its file.
    std::fs::write(dir.join("bad.cat"), "\"bad\"\nacyclic po | as bad\n").expect("cat");
    let bad = herd7(&["-model", "bad.cat", "SB.litmus"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("bad.cat:2:"),
        "{}",
        text(&bad.stderr)
    );
    // herd7 names a test without the `.litmus` suffix its header may give, so `C t.litmus`
    // and `C t` are one test, and another hash for it is an error.
    std::fs::write(
        dir.join("a.litmus"),
        "C t.litmus\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nexists (x=1)\n",
    )
    .expect("test file");
    std::fs::write(
        dir.join("b.litmus"),
        "C t\n{}\nP0(int *x) { WRITE_ONCE(*x, 2); }\nexists (x=2)\n",
    )
    .expect("test file");
    let twice = herd7(&["-conf", "linux-kernel.cfg", "a.litmus", "b.litmus"]);
    assert_eq!(twice.status.code(), Some(0));
    assert_eq!(
        text(&twice.stderr),
        "Warning: File \"b.litmus\": Different hashes for test t (previous file a.litmus) \
         (User error)\n"
    );
    let version = herd7(&["-version"]);
    assert_eq!(version.status.code(), Some(0));
    assert!(text(&version.stdout).starts_with("7.58, Rev: hazmat "));
    // herd7 prints its installation directory, the one -set-libdir names if given first,
    // and exits, whatever follows (herd7 7.58: `/some/where`, exit code 0); hazmat has none
    // of its own, its library being built in, and says so.
    let libdir = herd7(&["-set-libdir", "/some/where", "-libdir", "-nosuch"]);
    assert_eq!(libdir.status.code(), Some(0));
    assert_eq!(text(&libdir.stdout), "/some/where\n");
    let libdir = herd7(&["-libdir"]);
    assert_eq!(libdir.status.code(), Some(2));
    assert_eq!(text(&libdir.stdout), "");
    assert!(
        text(&libdir.stderr).contains(
            "-libdir is not supported by hazmat as herd7: hazmat has no installation directory, \
             its library of herd7's standard model files is built into the binary"
        ),
        "{}",
        text(&libdir.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Operators on addresses give herd7's values and stop the test with herd7's words, as
/// herd7 7.58 does (the outputs are its own, under the kernel's model and under RC11).
/// The tests declare `z` before `a`: herd7 orders addresses by the names of their
/// variables, so `z - a` is 1 however the test lists them.
#[test]
fn operators_on_addresses_are_herd7s() {
    let dir = temp_dir("addresses");
    let files = [
        (
            "order",
            "C order\n{}\nP0(int *z, int *a) { int r0; int r1; int r2; r0 = z - a; \
             r1 = a - z; r2 = (z + 1) - a; }\nexists (0:r0=1 /\\ 0:r1=-1 /\\ 0:r2=1)\n",
        ),
        (
            "read",
            "C read\n{ int *q = a; int *p = z; }\nP0(int **p, int **q, int *z, int *a) \
             { int *r0; int *r1; int r2; r0 = READ_ONCE(*p); r1 = READ_ONCE(*q); \
             r2 = r0 - r1; }\nP1(int **p, int *a) { WRITE_ONCE(*p, a); }\nexists (0:r2=1)\n",
        ),
        (
            "gt",
            "C gt\n{}\nP0(int *z, int *a) { int r0; r0 = z > a; }\nexists (0:r0=0)\n",
        ),
        (
            "or",
            "C or\n{}\nP0(int *z, int *a) { int r0; r0 = z | a; }\nexists (0:r0=0)\n",
        ),
        (
            "sub",
            "C sub\n{}\nP0(int *z) { int r0; r0 = 1 - z; }\nexists (0:r0=0)\n",
        ),
        (
            "mul",
            "C mul\n{ int *p = z; }\nP0(int **p) { int *r0; int r1; r0 = READ_ONCE(*p); \
             r1 = r0 * 2; }\nP1(int **p) { WRITE_ONCE(*p, 3); }\nexists (0:r1=6)\n",
        ),
        (
            "write",
            "C write\n{ int *p = a; }\nP0(int **p) { int *r0; r0 = READ_ONCE(*p); \
             WRITE_ONCE(*r0, 1); }\nP1(int **p) { WRITE_ONCE(*p, 5); }\nexists (a=1)\n",
        ),
        (
            "c11",
            "C c11\n{ int *p = z; }\nP0(int **p, int *z, int *a) { int *r0; int r1; \
             r0 = atomic_load_explicit(p, memory_order_acquire); r1 = r0 - a; }\n\
             P1(int **p, int *a) { atomic_store_explicit(p, a, memory_order_release); }\n\
             exists (0:r1=1)\n",
        ),
        (
            "c11le",
            "C c11le\n{ int *p = z; }\nP0(int **p, int *z, int *a) { int *r0; int r1; \
             r0 = atomic_load_explicit(p, memory_order_relaxed); r1 = r0 >= a; }\n\
             P1(int **p, int *a) { atomic_store_explicit(p, 2, memory_order_relaxed); }\n\
             exists (0:r1=1)\n",
        ),
        (
            "or1",
            "C or1\n{}\nP0(int *z) { int r0; r0 = z | 1; }\nexists (0:r0=0)\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(format!("{name}.litmus")), text).expect("test file");
    }
    let herd7 = |args: &[&str]| {
        run(Command::new(env!("CARGO_BIN_EXE_hazmat"))
            .arg("herd7")
            .args(args)
            .current_dir(&dir))
    };
    let lkmm = herd7(&[
        "-conf",
        "linux-kernel.cfg",
        "order.litmus",
        "read.litmus",
        "gt.litmus",
        "or.litmus",
        "sub.litmus",
        "mul.litmus",
        "write.litmus",
    ]);
    assert_eq!(lkmm.status.code(), Some(0));
    assert_eq!(
        untimed(&text(&lkmm.stdout)),
        "Test order Allowed\nStates 1\n0:r0=1; 0:r1=-1; 0:r2=1;\nOk\nWitnesses\n\
         Positive: 1 Negative: 0\nCondition exists (0:r0=1 /\\ 0:r1=-1 /\\ 0:r2=1)\n\
         Observation order Always 1 0\nHash=3c944f5dc9419691a5f0d72aa52a1f94\n\n\
         Test read Allowed\nStates 2\n0:r2=0;\n0:r2=1;\nOk\nWitnesses\n\
         Positive: 1 Negative: 1\nCondition exists (0:r2=1)\n\
         Observation read Sometimes 1 1\nHash=fb805632c929fbb32cc7d573dbcd170c\n\n"
    );
    assert_eq!(
        text(&lkmm.stderr),
        "Warning: File \"gt.litmus\": Illegal operation < on constants a and z (User error)\n\
         Warning: File \"or.litmus\": Illegal | on z and a (User error)\n\
         Warning: File \"sub.litmus\": Illegal operation - on constants 1 and z (User error)\n\
         Warning: File \"mul.litmus\": Illegal operation * on constants z and 2 (User error)\n\
         Warning: File \"write.litmus\": Non-symbolic memory access found on '[5]' \
         (User error)\n"
    );
    let rc11 = herd7(&["-model", "rc11.cat", "c11.litmus", "c11le.litmus"]);
    assert_eq!(rc11.status.code(), Some(0));
    assert_eq!(
        untimed(&text(&rc11.stdout)),
        "Test c11 Allowed\nStates 2\n0:r1=0;\n0:r1=1;\nOk\nWitnesses\n\
         Positive: 1 Negative: 1\nCondition exists (0:r1=1)\n\
         Observation c11 Sometimes 1 1\nHash=ef4e2a5cd1bf9d39a4e7a1850827f9ed\n\n"
    );
    assert_eq!(
        text(&rc11.stderr),
        "Warning: File \"c11le.litmus\": Illegal operation <= on constants a and z \
         (User error)\n"
    );
    // herd7 7.58 fails on `|` of an address and an integer other than 0 (`Fatal error:
    // exception File "lib/int32Scalar.ml", line 66, characters 17-23: Assertion failed`,
    // exit code 2, no other test run): hazmat refuses the test by name and goes on.
    let or1 = herd7(&["-conf", "linux-kernel.cfg", "or1.litmus", "order.litmus"]);
    assert_eq!(or1.status.code(), Some(0));
    assert!(untimed(&text(&or1.stdout)).starts_with("Test order Allowed\n"));
    assert_eq!(
        text(&or1.stderr),
        "Warning: File \"or1.litmus\": the operator `|` has no meaning on z and 1 (herd7 \
         7.58 fails on it: an assertion of its 32-bit integers) (User error)\n"
    );
    // `hazmat check` locates the error.
    let check = run(Command::new(env!("CARGO_BIN_EXE_hazmat"))
        .args(["check", "gt.litmus"])
        .current_dir(&dir));
    assert_ne!(check.status.code(), Some(0));
    let all = text(&check.stdout) + &text(&check.stderr);
    assert!(
        all.contains(
            "gt.litmus:3:30: error: the operator `>` has no meaning on z and a (herd7 stops \
             on it: illegal operation)"
        ),
        "{all}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The shared folder, when present.
fn shared() -> Option<PathBuf> {
    let dir = match std::env::var_os("HAZMAT_SHARED") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    };
    let needed = [
        "kernel-scripts/checkalllitmus.sh",
        "conformance/lkmm-model/linux-kernel.cfg",
        "conformance/kernel-doc",
        "conformance/paulmck-manual",
        "oracle/mselect7",
    ];
    needed.iter().all(|n| dir.join(n).exists()).then_some(dir)
}

/// A model directory as the scripts expect it: the model files, `scripts/`, and a `bin/`
/// with hazmat as `herd7`; returns it and the `PATH` to run the scripts with.
fn model_dir(shared: &Path, tag: &str) -> (PathBuf, String) {
    let dir = temp_dir(tag);
    let model = shared.join("conformance/lkmm-model");
    for e in std::fs::read_dir(&model).expect("model files").flatten() {
        std::fs::copy(e.path(), dir.join(e.file_name())).expect("model file");
    }
    std::fs::create_dir_all(dir.join("scripts")).expect("scripts");
    for e in std::fs::read_dir(shared.join("kernel-scripts"))
        .expect("scripts")
        .flatten()
    {
        if e.path().extension().is_some_and(|x| x == "sh") {
            std::fs::copy(e.path(), dir.join("scripts").join(e.file_name())).expect("script");
        }
    }
    let bin = herd7_bin(&dir);
    let mselect = bin.join("mselect7");
    let _ = std::fs::remove_file(&mselect);
    std::os::unix::fs::symlink(shared.join("oracle/mselect7"), &mselect).expect("symlink");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    (dir, path)
}

/// The tests of a corpus folder herd7 did not decide (`herd7-unsolved.tsv`), with its
/// status: `TIMEOUT` or `ERROR`.
fn unsolved(folder: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(folder.join("herd7-unsolved.tsv"))
        .unwrap_or_default()
        .lines()
        .skip(1)
        .filter_map(|l| {
            let mut f = l.split('\t');
            Some((f.next()?.to_string(), f.next()?.to_string()))
        })
        .collect()
}

/// Whether the tool is there to run the scripts.
fn have(tool: &str) -> bool {
    Path::new(tool).exists()
}

/// herd7's recorded output for `rel` in `folder`, or `None`.
fn recorded(folder: &Path, rel: &str) -> Option<String> {
    std::fs::read_to_string(folder.join("herd7-out").join(format!("{rel}.out"))).ok()
}

/// A `.litmus.out` file the scripts wrote, reduced to herd7's stdout as recorded: without
/// the `Herd options:` line, the `Time` line, `/usr/bin/time`'s lines, herd7's
/// warnings on stderr, and the lines `judgelitmus.sh` adds (` !!! ...`, ` --- ...`).
fn script_output(out: &str) -> String {
    out.lines()
        .skip(1)
        .filter(|l| {
            !l.starts_with("Time ")
                && !l.starts_with("Warning: ")
                && !l.contains("maxresident)k")
                && !l.contains("pagefaults")
                && !l.contains("!!!")
                && !l.starts_with(" --- ")
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

/// What `judgelitmus.sh` says of a test whose output is in `destdir`: its exit code and
/// its judging lines (the last line, a copy of `/usr/bin/time`'s, aside).
fn judge(dir: &Path, destdir: &Path, litmus: &str) -> (Option<i32>, Vec<String>) {
    let out = run(Command::new("sh")
        .arg("scripts/judgelitmus.sh")
        .arg(litmus)
        .env("LKMM_DESTDIR", destdir)
        .current_dir(dir));
    let lines = text(&out.stdout)
        .lines()
        .filter(|l| l.contains("!!!") || l.contains("Forgiven") || l.starts_with("Observation"))
        .map(String::from)
        .collect();
    (out.status.code(), lines)
}

#[test]
fn checkalllitmus_judges_every_test_as_with_herd7() {
    let Some(shared) = shared() else {
        eprintln!("the shared folder (kernel scripts, corpus, mselect7) is absent; skipped");
        return;
    };
    if !have("/usr/bin/time") || !have("/usr/bin/timeout") && !have("/bin/timeout") {
        eprintln!("the scripts need /usr/bin/time and timeout; skipped");
        return;
    }
    let (dir, path) = model_dir(&shared, "checkall");
    let tests = dir.join("litmus-tests");
    std::fs::create_dir_all(&tests).expect("litmus-tests");
    // Every test of kernel-doc/ and paulmck-manual/ that has a `Result:` line and that
    // herd7 decided, laid flat as checkalllitmus.sh wants them.
    let mut cases = Vec::new();
    for folder in ["kernel-doc", "paulmck-manual"] {
        let root = shared.join("conformance").join(folder);
        let skip = unsolved(&root);
        for file in hazmat_litmus::litmus_files(&root) {
            let rel = file
                .strip_prefix(&root)
                .expect("below its folder")
                .display()
                .to_string();
            let source = std::fs::read_to_string(&file).expect("test");
            let has_result = source
                .lines()
                .any(|l| l.starts_with("(* Result: ") || l.starts_with(" * Result: "));
            if !has_result || skip.iter().any(|(p, _)| *p == rel) {
                continue;
            }
            let Some(expected) = recorded(&root, &rel) else {
                continue;
            };
            let flat = format!("{folder}__{}", rel.replace('/', "__"));
            std::fs::write(tests.join(&flat), &source).expect("test copy");
            cases.push((flat, expected));
        }
    }
    assert!(
        cases.len() > 100,
        "only {} tests with Result lines",
        cases.len()
    );
    let out = run(Command::new("sh")
        .arg("scripts/checkalllitmus.sh")
        .env("PATH", &path)
        .env_remove("LKMM_DESTDIR")
        .current_dir(&dir));
    let stderr = text(&out.stderr);
    // herd7's recorded outputs, as runlitmus.sh would have written them, judged the same way.
    let theirs = dir.join("herd7-results");
    std::fs::create_dir_all(theirs.join("litmus-tests")).expect("results");
    let mut failures = Vec::new();
    for (flat, expected) in &cases {
        let litmus = format!("litmus-tests/{flat}");
        let ours = std::fs::read_to_string(dir.join(format!("{litmus}.out"))).unwrap_or_default();
        if script_output(&ours) != *expected {
            failures.push(format!(
                "{flat}: output differs from herd7's:\n{ours}\n--- herd7:\n{expected}"
            ));
            continue;
        }
        std::fs::write(
            theirs.join(format!("{litmus}.out")),
            format!(
                "Herd options: -conf linux-kernel.cfg\n{expected}0.01user 0.00system \
                 0:00.01elapsed 90%CPU (0avgtext+0avgdata 9000maxresident)k\n\
                 0inputs+0outputs (0major+900minor)pagefaults 0swaps\n"
            ),
        )
        .expect("herd7's output");
        let a = judge(&dir, &dir, &litmus);
        let b = judge(&dir, &theirs, &litmus);
        if a != b {
            failures.push(format!("{flat}: judged {a:?}, with herd7 {b:?}"));
        }
    }
    eprintln!(
        "{} tests run through checkalllitmus.sh; {}",
        cases.len(),
        stderr.lines().last().unwrap_or("")
    );
    assert!(
        failures.is_empty(),
        "{} of {} tests differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_history_scripts_record_herd7s_outputs() {
    let Some(shared) = shared() else {
        eprintln!("the shared folder (kernel scripts, corpus, mselect7) is absent; skipped");
        return;
    };
    if !have("/usr/bin/time") {
        eprintln!("the scripts need /usr/bin/time; skipped");
        return;
    }
    let (dir, path) = model_dir(&shared, "history");
    // A local litmus/ folder: every fifth test of the paulmck corpora that herd7 decided.
    let mut sample = Vec::new();
    for folder in ["paulmck-manual", "paulmck-luc"] {
        let root = shared.join("conformance").join(folder);
        if !root.is_dir() {
            continue;
        }
        let skip = unsolved(&root);
        for (i, file) in hazmat_litmus::litmus_files(&root).into_iter().enumerate() {
            let rel = file
                .strip_prefix(&root)
                .expect("below its folder")
                .display()
                .to_string();
            if i % 5 != 0 || skip.iter().any(|(p, _)| *p == rel) {
                continue;
            }
            let Some(expected) = recorded(&root, &rel) else {
                continue;
            };
            let local = dir.join("litmus").join(folder).join(&rel);
            std::fs::create_dir_all(local.parent().expect("a folder")).expect("folder");
            std::fs::copy(&file, &local).expect("test copy");
            sample.push((format!("litmus/{folder}/{rel}"), expected));
        }
    }
    assert!(sample.len() > 100, "a sample of {}", sample.len());
    let script = |name: &str| {
        run(Command::new("sh")
            .arg(format!("scripts/{name}"))
            .args(["--procs", "9", "--jobs", "2"])
            .env("PATH", &path)
            .env_remove("LKMM_DESTDIR")
            .current_dir(&dir))
    };
    let init = script("initlitmushist.sh");
    assert_eq!(init.status.code(), Some(0), "{}", text(&init.stderr));
    let mut failures = Vec::new();
    for (litmus, expected) in &sample {
        let ours = std::fs::read_to_string(dir.join(format!("{litmus}.out"))).unwrap_or_default();
        if script_output(&ours) != *expected {
            failures.push(format!("{litmus}:\n{ours}\n--- herd7:\n{expected}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} outputs differ from herd7's:\n{}",
        failures.len(),
        sample.len(),
        failures.join("\n")
    );
    let check = script("checklitmushist.sh");
    let summary = text(&check.stderr);
    assert_eq!(check.status.code(), Some(0), "{summary}");
    assert!(
        summary.contains(&format!("Exact output matches: {}", sample.len())),
        "{summary}"
    );
    eprintln!(
        "{} tests through initlitmushist.sh and checklitmushist.sh",
        sample.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The files of herd7's library that the kernel's model includes count as the model: with
/// an edited `cos-opt.cat` beside the kernel's files, hazmat as herd7 runs the edited model,
/// as herd7 does, not its native LKMM; with the library's own copy, the native one.
#[test]
fn an_edited_library_file_is_another_model() {
    let Some(shared) = shared() else {
        eprintln!("../shared absent; nothing to check");
        return;
    };
    let herdlib = shared.join("oracle/herd");
    let dir = temp_dir("edited-lib");
    for e in std::fs::read_dir(shared.join("conformance/lkmm-model"))
        .expect("model files")
        .flatten()
    {
        std::fs::copy(e.path(), dir.join(e.file_name())).expect("model file");
    }
    std::fs::write(dir.join("SB.litmus"), SB).expect("test file");
    let original = std::fs::read_to_string(herdlib.join("cos-opt.cat")).expect("cos-opt.cat");
    let hazmat = |dir: &Path| {
        run(Command::new(env!("CARGO_BIN_EXE_hazmat"))
            .args(["herd7", "-set-libdir"])
            .arg(&herdlib)
            .args(["-I", ".", "-conf", "linux-kernel.cfg", "SB.litmus"])
            .current_dir(dir))
    };
    std::fs::write(dir.join("cos-opt.cat"), &original).expect("a copy");
    let same = hazmat(&dir);
    assert!(
        !text(&same.stdout).contains("Flag edited"),
        "{}",
        text(&same.stderr)
    );
    assert!(text(&same.stdout).contains("Observation SB Sometimes 1 3"));
    std::fs::write(
        dir.join("cos-opt.cat"),
        format!("{original}\nflag ~empty co as edited\n"),
    )
    .expect("an edited copy");
    let edited = hazmat(&dir);
    assert!(
        text(&edited.stdout).contains("Flag edited"),
        "{}",
        text(&edited.stderr)
    );
    assert!(text(&edited.stdout).contains("Observation SB Sometimes 1 3"));
    let _ = std::fs::remove_dir_all(&dir);
}
