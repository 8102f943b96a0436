//! A user's own C macros (`--macros`, herd7's `-macros`): a copy of the kernel's model
//! folder whose `linux-kernel.def` gains macros of the user's, run by herd7 and by hazmat
//! as herd7 on tests that call them, must print the same (`Time` aside); and without the
//! kernel's folder, a `.def` file's macros replace the kernel's. Also the two checks of a
//! model whose failures herd7 reports in words of its own, `undefined_unless` and
//! `assert`.
//! The oracle test reads the shared folder and herd7, and passes having checked nothing
//! without them.

#[path = "common/cat_oracle.rs"]
mod cat_oracle;

#[path = "common/scratch.rs"]
mod scratch;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn hazmat(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hazmat"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("hazmat runs")
}

fn temp_dir(name: &str) -> PathBuf {
    scratch::folder(&format!("defs-{name}"))
}

/// herd7 and the kernel's model folder, or `None` (having said so) without them.
fn oracle_and_kernel() -> Option<(PathBuf, PathBuf)> {
    let Some(herd7) = cat_oracle::herd7() else {
        eprintln!("herd7 not found; nothing to check");
        return None;
    };
    let kernel = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance/lkmm-model");
    if !kernel.join("linux-kernel.def").is_file() {
        eprintln!("the kernel's model files not found; nothing to check");
        return None;
    }
    Some((herd7, kernel))
}

/// The macros a user adds to the kernel's file: new names for the kernel's instructions,
/// parameters in an order of their own, a macro defined by another, a comparison with 0,
/// blocks of several instructions (one of them calling another such block), each of which
/// herd7 runs as an instruction of its own (hazmat once refused any block but a store and
/// a fence, and, taking them as one instruction, lost their program order), and numbers
/// where an instruction takes a value (refused once too).
const ADDED: &str = "
// A user's own macros.
my_store_release(X,V) { __store{RELEASE}(*X,V); }
my_load_acquire(X) __load{ACQUIRE}(*X)
my_fetch_add(X,V) __atomic_fetch_op{MB}(X,+,V)
my_add_relaxed(X,V) { __atomic_op{NORETURN}(X,+,V); }
my_read(X) READ_ONCE(*X)
my_dec_and_test(X) __atomic_op_return{MB}(X,-,1) == 0
my_full_fence() { __fence{MB}; }
my_xchg_acquire(X,V) __xchg{ACQUIRE}(X,V)
my_two(X,Y,V) { __store{ONCE}(*X,V); __fence{MB}; __store{ONCE}(*Y,V); }
my_pub(X,Y,V) { __fence{wmb}; __store{RELEASE}(*X,V); __atomic_op{ONCE}(Y,+,V); }
my_nest(X,Y,V) { my_two(X,Y,V); my_full_fence(); WRITE_ONCE(*X,V); }
my_rdrd(X,Y) { __load{ONCE}(*X); __fence{rmb}; __load{ACQUIRE}(*Y); }
my_set(X) { __store{ONCE}(*X,1); }
my_xchg1(X) __xchg{MB}(X,1)
my_cas01(X) __cmpxchg{MB}(X,0,1)
my_seq(X,Y) { my_set(X); __fence{MB}; __store{RELEASE}(*Y,2); }
my_three(X,Y) { my_two(X,Y,3); my_store_release(Y,4); }
my_aun(X) __atomic_add_unless{MB}(X,1,2)
";

/// Tests calling them.
const TESTS: &[(&str, &str)] = &[
    (
        "MP+mine",
        "C MP+mine
{}
P0(int *x, int *y) { WRITE_ONCE(*x, 1); my_store_release(y, 1); }
P1(int *x, int *y) { int r0; int r1; r0 = my_load_acquire(y); r1 = my_read(x); }
exists (1:r0=1 /\\ 1:r1=0)
",
    ),
    (
        "SB+mine",
        "C SB+mine
{}
P0(int *x, int *y) { int r0; WRITE_ONCE(*x, 1); my_full_fence(); r0 = READ_ONCE(*y); }
P1(int *x, int *y) { int r0; WRITE_ONCE(*y, 1); my_full_fence(); r0 = READ_ONCE(*x); }
exists (0:r0=0 /\\ 1:r0=0)
",
    ),
    (
        "RMW+mine",
        "C RMW+mine
{ int x = 1; }
P0(int *x, int *y) { int r0; r0 = my_fetch_add(x, 2); my_add_relaxed(y, 1); }
P1(int *x, int *y) { int r0; int r1; r0 = my_dec_and_test(x); r1 = my_xchg_acquire(y, 5); }
exists (0:r0=1 /\\ 1:r0=0)
",
    ),
    (
        "MP+blocks",
        "C MP+blocks
{}
P0(int *x, int *y) { my_two(x, y, 1); my_add_relaxed(y, 2); }
P1(int *x, int *y) { int r0; int r1; r0 = my_read(y); my_full_fence(); r1 = my_fetch_add(x, 1); }
exists (1:r0=1 /\\ 1:r1=0)
",
    ),
    (
        "MP+pub",
        "C MP+pub
{}
P0(int *x, int *y) { WRITE_ONCE(*y, 3); my_pub(x, y, 1); }
P1(int *x, int *y) { int r0; int r1; r0 = smp_load_acquire(x); r1 = READ_ONCE(*y); }
exists (1:r0=1 /\\ 1:r1=3)
",
    ),
    (
        "MP+nested-blocks",
        "C MP+nested-blocks
{}
P0(int *x, int *y) { my_nest(x, y, 2); }
P1(int *x, int *y) { int r0; int r1; r0 = READ_ONCE(*y); smp_rmb(); r1 = READ_ONCE(*x); my_rdrd(x, y); }
exists (1:r0=2 /\\ 1:r1=0)
",
    ),
    (
        "MP+numbers",
        "C MP+numbers
{}
P0(int *x, int *y) { my_seq(x, y); }
P1(int *x, int *y) { int r0; int r1; int r2; r0 = smp_load_acquire(y); r1 = my_xchg1(x); r2 = my_cas01(y); }
exists (1:r0=2 /\\ 1:r1=0)
",
    ),
    (
        "MP+nested-numbers",
        "C MP+nested-numbers
{ int y = 2; }
P0(int *x, int *y) { my_three(x, y); my_store_release(x, 7); }
P1(int *x, int *y) { int r0; int r1; int r2; r0 = READ_ONCE(*y); r1 = my_aun(y); r2 = READ_ONCE(*x); }
exists (1:r0=4 /\\ 1:r2=0)
",
    ),
];

#[test]
fn a_users_macros_give_herd7s_output() {
    let Some((herd7, kernel)) = oracle_and_kernel() else {
        return;
    };
    let dir = temp_dir("oracle");
    for f in [
        "linux-kernel.cat",
        "linux-kernel.bell",
        "linux-kernel.cfg",
        "lock.cat",
    ] {
        std::fs::copy(kernel.join(f), dir.join(f)).expect("a copy of the kernel's file");
    }
    let def = std::fs::read_to_string(kernel.join("linux-kernel.def")).expect("the def file");
    std::fs::write(dir.join("linux-kernel.def"), def + ADDED).expect("the user's def file");
    let mut files = Vec::new();
    for (name, text) in TESTS {
        let f = dir.join(format!("{name}.litmus"));
        std::fs::write(&f, text).expect("a test");
        files.push(
            f.file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_string(),
        );
    }
    let lib = cat_oracle::herdlib(&herd7);
    let args = |extra: &[String]| -> Vec<String> {
        let mut a: Vec<String> = vec![
            "-I".into(),
            ".".into(),
            "-I".into(),
            lib.display().to_string(),
            "-conf".into(),
            "linux-kernel.cfg".into(),
        ];
        a.extend_from_slice(extra);
        a
    };
    for file in &files {
        let theirs = Command::new(&herd7)
            .args(args(std::slice::from_ref(file)))
            .current_dir(&dir)
            .output()
            .expect("herd7 runs");
        let mut ours_args = vec!["herd7".to_string()];
        ours_args.extend(args(std::slice::from_ref(file)));
        let ours_args: Vec<&str> = ours_args.iter().map(String::as_str).collect();
        let ours = hazmat(&ours_args, &dir);
        let (theirs, ours) = (
            cat_oracle::without_time(&String::from_utf8_lossy(&theirs.stdout)),
            cat_oracle::without_time(&String::from_utf8_lossy(&ours.stdout)),
        );
        assert!(theirs.contains("Observation"), "herd7 on {file}: {theirs}");
        assert_eq!(ours, theirs, "{file}");
    }
}

#[test]
fn a_def_files_macros_replace_the_kernels() {
    let dir = temp_dir("replace");
    std::fs::write(
        dir.join("mine.def"),
        "READ_ONCE(X) __load{once}(X)\nWRITE_ONCE(X,V) { __store{once}(X,V); }\nfull() { __fence{mb}; }\n",
    )
    .expect("a def file");
    std::fs::write(
        dir.join("sc-ish.cat"),
        "\"po and com\"\nacyclic po | rf as order\n",
    )
    .expect("a model");
    let sb = "C SB\n{}\nP0(int *x, int *y) { int r0; WRITE_ONCE(*x, 1); full(); r0 = READ_ONCE(*y); }\n\
              P1(int *x, int *y) { int r0; WRITE_ONCE(*y, 1); full(); r0 = READ_ONCE(*x); }\n\
              exists (0:r0=0 /\\ 1:r0=0)\n";
    std::fs::write(dir.join("sb.litmus"), sb).expect("a test");
    let out = hazmat(
        &[
            "check",
            "--json",
            "--cat",
            "sc-ish.cat",
            "--macros",
            "mine.def",
            "sb.litmus",
        ],
        &dir,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(j["verdict"], "Sometimes", "{j}");
    assert_eq!(j["states"].as_array().map(Vec::len), Some(4), "{j}");
    // A kernel macro the file does not define is unknown, where it is called.
    std::fs::write(dir.join("mb.litmus"), sb.replace("full()", "smp_mb()")).expect("a test");
    let out = hazmat(
        &[
            "check",
            "--cat",
            "sc-ish.cat",
            "--macros",
            "mine.def",
            "mb.litmus",
        ],
        &dir,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("mb.litmus:3:49:"), "{stderr}");
    assert!(stderr.contains("unknown primitive `smp_mb`"), "{stderr}");
}

/// The kernel's file is recognised by its whole text: a macro added at its end makes it
/// a user's file. (`(*X` in `__store{release}(*X,V)` once opened a comment, and every line
/// after the first release store went unread.)
#[test]
fn an_edit_anywhere_in_the_kernels_def_file_is_seen() {
    use hazmat_checker::models::choose::read_macros;
    let user_macros = |text: &str| read_macros(text).map(|(_, m)| m);
    let kernel = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance/lkmm-model");
    let Ok(def) = std::fs::read_to_string(kernel.join("linux-kernel.def")) else {
        eprintln!("the kernel's model files not found; nothing to check");
        return;
    };
    assert_eq!(user_macros(&def), Ok(None));
    let edited = def.clone() + "\nmy_read(X) __load{once}(X)\n";
    let m = user_macros(&edited).expect("reads").expect("a user's file");
    assert!(m.names().any(|n| n == "my_read"));
    let weakened = def.replace("__xchg{MB}", "__xchg{ONCE}");
    assert!(user_macros(&weakened).expect("reads").is_some());
}

#[test]
fn a_macro_hazmat_cannot_express_is_located_in_its_file() {
    let dir = temp_dir("bad");
    std::fs::write(
        dir.join("bad.def"),
        "// mine\nREAD_ONCE(X) __load{once}(X)\nodd(X) __frob{once}(X)\n",
    )
    .expect("a def file");
    std::fs::write(dir.join("p.cat"), "\"p\"\nacyclic po as p\n").expect("a model");
    std::fs::write(
        dir.join("t.litmus"),
        "C t\n{}\nP0(int *x) { int r0; r0 = READ_ONCE(*x); }\nexists (0:r0=0)\n",
    )
    .expect("a test");
    let out = hazmat(
        &["check", "--cat", "p.cat", "--macros", "bad.def", "t.litmus"],
        &dir,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("bad.def:3:8: error: `__frob` is neither one of herd7's instructions"),
        "{stderr}"
    );
}

/// A model's `undefined_unless` and `assert`, as herd7 reports them: an execution that
/// fails `undefined_unless` raises the flag `*undef*` and the result line says `Undef`;
/// one that fails an `assert` stops the test with no result. (hazmat once said `Ok` and
/// `Flag undefined` for the first, and judged the second a check.)
#[test]
fn undefined_behaviour_and_assertions_are_reported_as_herd7_reports_them() {
    let Some((herd7, kernel)) = oracle_and_kernel() else {
        return;
    };
    let lib = cat_oracle::herdlib(&herd7);
    let dir = temp_dir("undef");
    std::fs::write(
        dir.join("t.litmus"),
        "C t\n{}\nP0(int *x, int *y) { WRITE_ONCE(*x, 1); WRITE_ONCE(*y, 1); }\n\
         P1(int *x, int *y) { int r0; int r1; r0 = READ_ONCE(*y); r1 = READ_ONCE(*x); }\n\
         exists (1:r0=1 /\\ 1:r1=0)\n",
    )
    .expect("a test");
    for (check, result) in [
        ("undefined_unless empty (rfe ; po) as bad", true),
        ("undefined_unless empty (rf & ext) as noext", true),
        ("assert empty (rf & ext & ~(_ * _)) as never", true),
        ("assert empty (rf & ext) as noext", false),
    ] {
        std::fs::write(
            dir.join("m.cat"),
            format!("\"m\"\ninclude \"cos.cat\"\n{check}\n"),
        )
        .expect("a model");
        let args = [
            "-I".to_string(),
            kernel.display().to_string(),
            "-I".to_string(),
            lib.display().to_string(),
            "-macros".into(),
            "linux-kernel.def".into(),
            "-bell".into(),
            "linux-kernel.bell".into(),
            "-model".into(),
            "./m.cat".into(),
            "t.litmus".into(),
        ];
        let theirs = Command::new(&herd7)
            .args(&args)
            .current_dir(&dir)
            .output()
            .expect("herd7 runs");
        let mut ours_args = vec!["herd7"];
        ours_args.extend(args.iter().map(String::as_str));
        let ours = hazmat(&ours_args, &dir);
        let (theirs_out, ours_out) = (
            cat_oracle::without_time(&String::from_utf8_lossy(&theirs.stdout)),
            cat_oracle::without_time(&String::from_utf8_lossy(&ours.stdout)),
        );
        assert_eq!(ours_out, theirs_out, "{check}");
        assert_eq!(!theirs_out.is_empty(), result, "{check}: {theirs_out}");
        if !result {
            // herd7's warning, word for word: scripts read it.
            assert_eq!(
                String::from_utf8_lossy(&ours.stderr),
                String::from_utf8_lossy(&theirs.stderr),
                "{check}"
            );
            assert!(
                String::from_utf8_lossy(&ours.stderr)
                    .contains("noext assertion failed, check input test."),
                "{check}"
            );
            let checked = hazmat(
                &[
                    "check",
                    "--cat",
                    "./m.cat",
                    "-I",
                    &lib.display().to_string(),
                    "t.litmus",
                ],
                &dir,
            );
            assert!(
                String::from_utf8_lossy(&checked.stderr).contains("assertion `noext` fails"),
                "{check}"
            );
        }
    }
}
