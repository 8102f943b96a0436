//! herdtools7's own regression suites for C, run as herdtools7's `Makefile` runs them, through
//! `hazmat herd7`: hazmat's output must be herd7 7.58's, byte for byte (`Time` aside, the
//! `Hash=` digest included), and its exit code herd7's, on every test.
//!
//! Two suites (`tests/herdtools7/README.md` says where they come from):
//! - `gen-C`: the programs of herdtools7's `gen/tests/C`, which herdtools7 generates with
//!   `diycross7` over six segments of edges ([`SEGMENTS`]); diy7, given each cycle of the
//!   cross product as one relaxation, makes the same 24 programs, kept in `gen-C/` (the test
//!   [`gen_c_programs_are_diy7s`] makes them again when diy7 is at hand). herdtools7 runs
//!   `herd7 -exit true -set-libdir ./herd/libdir -conf ./gen/tests/C/C.cfg FILE`, where
//!   `C.cfg` reads herd7's `cpp11.cfg`, then sets `cat rc11.cat`.
//! - `instructions-C`: the hand-written tests of herdtools7's `herd/tests/instructions/C`,
//!   run as `herd7 -exit true -set-libdir ./herd/libdir -conf
//!   ./herd/tests/instructions/C/ci.cfg ./herd/tests/instructions/C/FILE`, where `ci.cfg`
//!   sets `hexa true`, `model herd/libdir/rc11.cat` and `variant S128`. The tests are
//!   herdtools7's files, which the project does not hold: they are read from a herdtools7
//!   tree named by `$HAZMAT_HERDTOOLS7`, or from `tests/herdtools7/instructions-C/` when
//!   someone puts them there; herd7's outputs for them are kept there
//!   (`NAME.litmus.expected`, and `NAME.litmus.expected-failure`, herd7's message, for the
//!   test herd7 refuses).
//!
//! Each test runs in a temporary directory laid out as herdtools7's tree, where
//! `herd/libdir` is herd7's library beside the oracle, with the suite's configuration file
//! written there, exactly as the `Makefile` runs it, by `hazmat herd7` and, with the oracle
//! at hand (`$HAZMAT_ORACLE`, or `../shared/oracle/herd7` from the workspace root), by herd7
//! itself, whose output must also be the one kept. A test herd7 refuses, hazmat must refuse
//! too, printing nothing on stdout and its reason on stderr, with herd7's exit code.
//! `tests/herdtools7/known-differences.txt` lists the tests on which hazmat's run differs
//! for a reason fixed elsewhere; each must still differ (the list may only shrink), and
//! every test of a suite that has one is run once more with a configuration file mended
//! round it ([`Suite::mended`]), which hazmat and herd7 must agree on, with no exception.
//! Without the oracle, `gen-C` runs through `hazmat herd7` alone, with the same command
//! line in a tree without `herd/libdir`: `cpp11.cfg`, `rc11.cat` and `c11.def` are then
//! hazmat's own library's, and the outputs must be the ones kept; `instructions-C`, whose
//! `ci.cfg` names herd7's `herd/libdir/rc11.cat` by its path, is skipped, saying so.

#[path = "common/scratch.rs"]
mod scratch;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "common/untimed.rs"]
mod untimed;
use untimed::untimed;

/// The suites' data: the generated programs, herd7's outputs, the known differences.
fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/herdtools7")
}

/// diycross7's arguments for `gen/tests/C` in herdtools7's `Makefile`, one segment each,
/// with the wildcards (`PodW*`, `Pod**`) spelled out: each cycle takes one choice of every
/// segment, in order.
const SEGMENTS: [&[&str]; 6] = [
    &["Rlx,Coe,Rlx", "Rlx,Rfe,Rlx", "Rlx,Fre,Rlx", "Rlx,Hat,Rlx"],
    &["PosRW", "Fetch.Add", "Exch"],
    &["Rlx"],
    &["PodWR", "PodWW"],
    &["Rlx,Coe,Rlx", "Rlx,Rfe,Rlx", "Rlx,Fre,Rlx"],
    &[
        "PodRR",
        "PodRW",
        "PodWR",
        "PodWW",
        "Fetch.Add,Rlx,PodWR",
        "Fetch.Add,Rlx,PodWW",
    ],
];

/// The cycles of [`SEGMENTS`], each as one relaxation of diy7's: `[A,B,...]`.
fn cycles() -> Vec<String> {
    let mut out = vec![String::new()];
    for segment in SEGMENTS {
        out = out
            .iter()
            .flat_map(|c| {
                segment.iter().map(move |s| {
                    if c.is_empty() {
                        s.to_string()
                    } else {
                        format!("{c},{s}")
                    }
                })
            })
            .collect();
    }
    out.into_iter().map(|c| format!("[{c}]")).collect()
}

/// One suite: where its tests stand in herdtools7's tree and how the `Makefile` runs them.
struct Suite {
    /// Its folder under `tests/herdtools7/`.
    name: &'static str,
    /// Where its configuration file stands, from the tree's root.
    cfg: &'static str,
    /// The configuration file's settings.
    cfg_text: &'static str,
    /// The same settings mended round what `known-differences.txt` lists: what herd7 makes
    /// of the file, written so that hazmat reads it the same today.
    mended: &'static str,
    /// Where its tests stand in the tree, from the root.
    tests: &'static str,
}

const GEN_C: Suite = Suite {
    name: "gen-C",
    cfg: "gen/tests/C/C.cfg",
    cfg_text: "conf cpp11.cfg\ncat rc11.cat\n",
    // herd7 reads `cpp11.cfg`, whose `model c11_partialSC.cat` the later `cat rc11.cat`
    // replaces; its `macros c11.def` stays (its other settings draw figures).
    mended: "macros c11.def\ncat rc11.cat\n",
    tests: "gen-C",
};

const INSTRUCTIONS_C: Suite = Suite {
    name: "instructions-C",
    cfg: "herd/tests/instructions/C/ci.cfg",
    cfg_text: "hexa true\nmodel herd/libdir/rc11.cat\nvariant S128\n",
    // Values in decimal.
    mended: "model herd/libdir/rc11.cat\nvariant S128\n",
    tests: "herd/tests/instructions/C",
};

/// What one run printed, and how it ended.
#[derive(Debug)]
struct Run {
    stdout: String,
    stderr: String,
    code: Option<i32>,
}

/// Runs `exe` with `args` in `dir`; stdout without its `Time` lines.
fn run(exe: &Path, args: &[String], dir: &Path) -> Run {
    let out = Command::new(exe)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
    Run {
        stdout: untimed(&String::from_utf8_lossy(&out.stdout)),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code(),
    }
}

/// herd7 7.58 beside the shared folder, or `$HAZMAT_ORACLE`; `None` when absent.
fn oracle() -> Option<PathBuf> {
    let exe = match std::env::var_os("HAZMAT_ORACLE") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/oracle/herd7"),
    };
    exe.is_file().then_some(exe)
}

/// The library of the oracle's herd7 (`herd/` beside its wrapper).
fn library(herd7: &Path) -> PathBuf {
    herd7.parent().unwrap_or(Path::new(".")).join("herd")
}

/// The known differences: `SUITE/NAME` to the reason.
fn known_differences() -> BTreeMap<String, String> {
    let path = data().join("known-differences.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (k, v) = l.split_once(':').unwrap_or((l, ""));
            (k.trim().to_string(), v.trim().to_string())
        })
        .collect()
}

/// A temporary directory laid out as herdtools7's tree for `suite`: `herd/libdir` is
/// `library` (absent without one), the configuration file is written in its place
/// (`cfg_text`), and the tests `files` are copied to their place.
fn tree(
    suite: &Suite,
    tag: &str,
    library: Option<&Path>,
    cfg_text: &str,
    files: &[PathBuf],
) -> PathBuf {
    let dir = scratch::folder(&format!("herdtools7-{}-{tag}", suite.name));
    let libdir = dir.join("herd/libdir");
    std::fs::create_dir_all(libdir.parent().expect("herd/")).expect("the tree");
    if let Some(library) = library {
        std::os::unix::fs::symlink(library, &libdir).expect("herd/libdir");
    }
    let cfg = dir.join(suite.cfg);
    std::fs::create_dir_all(cfg.parent().expect("a folder")).expect("the cfg's folder");
    std::fs::write(&cfg, cfg_text).expect("the cfg");
    let tests = dir.join(suite.tests);
    std::fs::create_dir_all(&tests).expect("the tests' folder");
    for f in files {
        std::fs::copy(f, tests.join(f.file_name().expect("a name"))).expect("a test");
    }
    dir
}

/// The command line of herdtools7's `Makefile` for `file` of `suite` (herd7's arguments).
fn command_line(suite: &Suite, file: &Path) -> Vec<String> {
    let name = file.file_name().expect("a name").to_string_lossy();
    vec![
        "-exit".into(),
        "true".into(),
        "-set-libdir".into(),
        "./herd/libdir".into(),
        "-conf".into(),
        format!("./{}", suite.cfg),
        format!("./{}/{name}", suite.tests),
    ]
}

/// hazmat as herd7, with herd7's `args`.
fn hazmat(args: &[String], dir: &Path) -> Run {
    let mut all = vec!["herd7".to_string()];
    all.extend_from_slice(args);
    run(Path::new(env!("CARGO_BIN_EXE_hazmat")), &all, dir)
}

/// Why hazmat's run `ours` is not herd7's run `theirs`, if it is not.
fn difference(ours: &Run, theirs: &Run) -> Option<String> {
    if ours.stdout != theirs.stdout {
        return Some(format!(
            "stdout differs\nhazmat (exit {:?}):\n{}{}\nherd7 (exit {:?}):\n{}{}",
            ours.code, ours.stdout, ours.stderr, theirs.code, theirs.stdout, theirs.stderr
        ));
    }
    if theirs.stdout.is_empty() && ours.stderr.trim().is_empty() {
        return Some("herd7 refuses the test, and hazmat says nothing on stderr".into());
    }
    if ours.code != theirs.code {
        return Some(format!(
            "exit code {:?}, herd7's is {:?}\n{}",
            ours.code, theirs.code, ours.stderr
        ));
    }
    None
}

/// What herd7 7.58 printed for `file`, as kept beside it: its output, or an empty stdout,
/// its message and exit code 1 for a test it refuses.
fn kept(file: &Path, expected_dir: &Path) -> Run {
    let name = file.file_name().expect("a name").to_string_lossy();
    let out = expected_dir.join(format!("{name}.expected"));
    let failure = expected_dir.join(format!("{name}.expected-failure"));
    if let Ok(stdout) = std::fs::read_to_string(&out) {
        return Run {
            stdout,
            stderr: String::new(),
            code: Some(0),
        };
    }
    let stderr = std::fs::read_to_string(&failure)
        .unwrap_or_else(|_| panic!("neither {} nor {}", out.display(), failure.display()));
    Run {
        stdout: String::new(),
        stderr,
        code: Some(1),
    }
}

/// Runs every test of `suite` (`files`, herd7's outputs in `expected_dir`) as herdtools7
/// runs it, by hazmat and herd7, and once more with the mended configuration where the
/// suite has known differences; returns the failures.
fn check_suite(suite: &Suite, files: &[PathBuf], expected_dir: &Path, herd7: &Path) -> Vec<String> {
    let known = known_differences();
    let library = library(herd7);
    let exact = tree(suite, "exact", Some(&library), suite.cfg_text, files);
    let mut failures = Vec::new();
    let mut mend = false;
    for file in files {
        let name = file.file_name().expect("a name").to_string_lossy();
        let stem = name.trim_end_matches(".litmus");
        let key = format!("{}/{stem}", suite.name);
        let args = command_line(suite, file);
        let theirs = run(herd7, &args, &exact);
        let want = kept(file, expected_dir);
        if theirs.stdout != want.stdout || (want.stdout.is_empty() && theirs.stderr != want.stderr)
        {
            failures.push(format!(
                "{key}: herd7's output is not the one kept:\n{}{}\nkept:\n{}{}",
                theirs.stdout, theirs.stderr, want.stdout, want.stderr
            ));
        }
        let ours = hazmat(&args, &exact);
        match (difference(&ours, &theirs), known.get(&key)) {
            (Some(d), None) => failures.push(format!("{key}: {d}")),
            (None, Some(why)) => failures.push(format!(
                "{key}: hazmat now agrees with herd7; take it out of known-differences.txt \
                 ({why})"
            )),
            (Some(_), Some(_)) => mend = true,
            (None, None) => {}
        }
    }
    if mend {
        let mended = tree(suite, "mended", Some(&library), suite.mended, files);
        for file in files {
            let name = file.file_name().expect("a name").to_string_lossy();
            let args = command_line(suite, file);
            let theirs = run(herd7, &args, &mended);
            let ours = hazmat(&args, &mended);
            if let Some(d) = difference(&ours, &theirs) {
                failures.push(format!(
                    "{}/{name} under the mended configuration:\n{}\n{d}",
                    suite.name, suite.mended
                ));
            }
        }
        let _ = std::fs::remove_dir_all(&mended);
    }
    let _ = std::fs::remove_dir_all(&exact);
    failures
}

/// The `.litmus` files of `dir`, by name.
fn litmus_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn fail_on(failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{} failure(s):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Every known difference names a test of a suite.
#[test]
fn known_differences_name_tests_of_the_suites() {
    for key in known_differences().keys() {
        let (suite, name) = key.split_once('/').unwrap_or(("", key));
        let kept = data().join(suite).join(format!("{name}.litmus.expected"));
        let failure = data()
            .join(suite)
            .join(format!("{name}.litmus.expected-failure"));
        assert!(
            kept.is_file() || failure.is_file(),
            "{key}: no such test ({})",
            kept.display()
        );
    }
}

#[test]
fn gen_c_suite_matches_herd7() {
    let dir = data().join(GEN_C.name);
    let files = litmus_files(&dir);
    assert_eq!(files.len(), 24, "gen/tests/C has 24 programs");
    let Some(herd7) = oracle() else {
        eprintln!(
            "no herd7 (set HAZMAT_ORACLE): gen-C run by hazmat alone, its library built in, \
             against herd7's outputs kept"
        );
        let tree = tree(&GEN_C, "alone", None, GEN_C.cfg_text, &files);
        let failures = files
            .iter()
            .filter_map(|file| {
                let ours = hazmat(&command_line(&GEN_C, file), &tree);
                let d = difference(&ours, &kept(file, &dir))?;
                Some(format!("{}: {d}", file.display()))
            })
            .collect();
        let _ = std::fs::remove_dir_all(&tree);
        return fail_on(failures);
    };
    fail_on(check_suite(&GEN_C, &files, &dir, &herd7));
}

#[test]
fn instructions_c_suite_matches_herd7() {
    let kept = data().join(INSTRUCTIONS_C.name);
    let source = std::env::var_os("HAZMAT_HERDTOOLS7")
        .map(|t| PathBuf::from(t).join("herd/tests/instructions/C"))
        .unwrap_or_else(|| kept.clone());
    let files = litmus_files(&source);
    if files.is_empty() {
        eprintln!(
            "herdtools7's herd/tests/instructions/C is not here (set HAZMAT_HERDTOOLS7 to a \
             herdtools7 tree); nothing to check"
        );
        return;
    }
    // The tests and herd7's outputs kept go together.
    let expected = std::fs::read_dir(&kept)
        .expect("instructions-C")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".litmus.expected"))
        .count();
    assert_eq!(
        expected,
        files.len(),
        "one output kept per test of {}",
        source.display()
    );
    let Some(herd7) = oracle() else {
        eprintln!("no herd7 (set HAZMAT_ORACLE), whose library has rc11.cat; nothing to check");
        return;
    };
    fail_on(check_suite(&INSTRUCTIONS_C, &files, &kept, &herd7));
}

/// diy7, given each cycle of the cross product of herdtools7's segments as one relaxation,
/// makes exactly the programs kept in `gen-C/`, byte for byte.
#[test]
fn gen_c_programs_are_diy7s() {
    let Some(herd7) = oracle() else {
        eprintln!("no oracle folder (set HAZMAT_ORACLE); nothing to check");
        return;
    };
    let diy7 = herd7.with_file_name("diy7");
    if !diy7.is_file() {
        eprintln!("no diy7 beside herd7; nothing to check");
        return;
    }
    let out = scratch::folder("herdtools7-diy7");
    let status = Command::new(&diy7)
        .args([
            "-arch", "C", "-num", "false", "-size", "1", "-nprocs", "4", "-safe",
        ])
        .arg(cycles().join(" "))
        .current_dir(&out)
        .output()
        .expect("diy7 runs");
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let made = litmus_files(&out);
    let kept = litmus_files(&data().join(GEN_C.name));
    let names = |v: &[PathBuf]| -> Vec<String> {
        v.iter()
            .map(|p| {
                p.file_name()
                    .expect("a name")
                    .to_string_lossy()
                    .into_owned()
            })
            .collect()
    };
    assert_eq!(names(&made), names(&kept));
    for (m, k) in made.iter().zip(&kept) {
        assert_eq!(
            std::fs::read_to_string(m).expect("made"),
            std::fs::read_to_string(k).expect("kept"),
            "{}",
            k.display()
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}
