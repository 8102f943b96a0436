//! Agreement with herd7 on generated programs: differential testing against the oracle.
//!
//! Programs are drawn from the generator's LKMM vocabulary ([`Config::lkmm`]), from a seed
//! taken from the clock (printed; `HAZMAT_ORACLE_SEED` replays a run), 400 of them
//! (`HAZMAT_ORACLE_CASES`), and from its C11 vocabulary ([`Config::c11`]), 300 of them
//! (`HAZMAT_ORACLE_C11_SEED`, `HAZMAT_ORACLE_C11_CASES`), decided under RC11 by both; herd7 decides them in batches while hazmat decides them here,
//! and the two must agree on every program: both reject it, or both decide it with the same
//! verdict, final states, witness counts and flags, printed the same way line for line
//! (`Time` and `Hash=` aside).
//! A disagreement is minimised (threads, statements, dependencies and condition atoms
//! dropped while it lasts, herd7 asked again at each step), written as a litmus file under
//! the test's temporary directory (and `$HAZMAT_ORACLE_OUT` when set), and the test fails
//! printing it with both outputs, then every disagreement of the run, one line each.
//! Minimised disagreements belong in `litmus/tests/regressions/` (see the book's
//! reliability chapter).
//! Without herd7 (`../shared/oracle/herd7` from the workspace root, or `$HAZMAT_ORACLE`)
//! the test says so and checks nothing.
//! Older versions of the kernel's model get 40 programs each (`HAZMAT_ORACLE_HISTORY_CASES`,
//! `HAZMAT_ORACLE_HISTORY_SEED`).
//! `examples/oracle.rs` runs the same comparison offline on many more programs.

#[path = "common/oracle.rs"]
mod oracle;

use hazmat_checker::report::read;
use hazmat_checker::testkit::generate::{Config, Sketch};
use oracle::{Answer, Compared, Herd7, Kind, Settings};
use std::path::PathBuf;
use std::time::Duration;

fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    match v.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => v.parse().ok(),
    }
}

#[test]
fn hazmat_agrees_with_herd7_on_generated_programs() {
    let herd7 = match Herd7::find() {
        Ok(h) => h,
        Err(why) => {
            eprintln!("oracle absent: {why}; nothing to check");
            return;
        }
    };
    let cases = env_u64("HAZMAT_ORACLE_CASES").unwrap_or(400);
    agree(&herd7, Config::lkmm(), cases, "");
}

/// The same under RC11: programs of herd7's C11 dialect, 300 of them
/// (`HAZMAT_ORACLE_C11_CASES`), smaller than the offline tool's, since herd7 takes longer
/// over RC11 than over the LKMM; herd7 runs `-model rc11.cat -macros c11.def`.
#[test]
fn hazmat_agrees_with_herd7_under_rc11_on_generated_c11_programs() {
    let herd7 = match Herd7::find_rc11() {
        Ok(h) => h,
        Err(why) => {
            eprintln!("oracle absent: {why}; nothing to check");
            return;
        }
    };
    let cases = env_u64("HAZMAT_ORACLE_C11_CASES").unwrap_or(300);
    let config = Config {
        max_size: 6,
        ..Config::c11()
    };
    agree(&herd7, config, cases, "_C11");
}

/// The same under older versions of the kernel's model (`tests/lkmm-history/`: 2018, 2019
/// and v6.14, the last before `lkmmv2`), each run by herd7 with its folder's
/// `linux-kernel.cfg` and by hazmat's interpreter from the same folder, its def file
/// included: 40 programs a version (`HAZMAT_ORACLE_HISTORY_CASES`).
#[test]
fn hazmat_agrees_with_herd7_under_older_kernel_models_on_generated_programs() {
    let cases = env_u64("HAZMAT_ORACLE_HISTORY_CASES").unwrap_or(40);
    for version in ["2018", "2019", "v6.14"] {
        let cfg = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/lkmm-history")
            .join(version)
            .join("linux-kernel.cfg");
        let herd7 = match Herd7::find_conf(&cfg) {
            Ok(h) => h,
            Err(why) => {
                eprintln!("oracle absent: {why}; nothing to check");
                return;
            }
        };
        assert!(herd7.cat.is_some() && herd7.macros.is_some(), "{version}");
        let config = Config {
            macros: herd7.macros.clone(),
            ..Config::lkmm()
        };
        agree(&herd7, config, cases, "_HISTORY");
    }
}

/// Draws `cases` programs of `config` from a seed (`HAZMAT_ORACLE{suffix}_SEED`, or the
/// clock), has hazmat and `herd7` decide them, and fails on any disagreement.
fn agree(herd7: &Herd7, config: Config, cases: u64, suffix: &str) {
    let seed_var = format!("HAZMAT_ORACLE{suffix}_SEED");
    let cases_var = if suffix.is_empty() {
        "HAZMAT_ORACLE_CASES".to_string()
    } else {
        format!("HAZMAT_ORACLE{suffix}_CASES")
    };
    let seed = env_u64(&seed_var).unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    eprintln!(
        "oracle: {cases} programs from seed {seed} (replay with {seed_var}={seed} \
         {cases_var}={cases})"
    );
    let settings = Settings {
        config,
        seed,
        cases,
        batch: 50,
        jobs: std::thread::available_parallelism().map_or(2, |n| n.get()),
        timeout: Duration::from_secs(10),
        minimise: 3,
        kind: None,
    };
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("oracle{suffix}-{seed}"));
    let report = oracle::run(herd7, &settings, &scratch, |_| {});
    let _ = std::fs::remove_dir_all(&scratch);
    eprintln!("{}", report.stats.table());
    let out = std::env::var_os("HAZMAT_ORACLE_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("oracle-findings"));
    let mut shown = String::new();
    for f in &report.findings {
        let file =
            oracle::write_finding(&out, f).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
        shown.push_str(&format!(
            "\n{} ({}):\n{}\nherd7: {}\n",
            file.display(),
            f.detail,
            f.litmus,
            herd7.command(&file.display().to_string())
        ));
    }
    let undecided = report.stats.total.undecided;
    assert!(
        undecided * 10 <= cases,
        "{undecided} of {cases} programs undecided: the generator draws programs too big\n{:?}",
        report.undecided
    );
    assert!(
        report.disagreements.is_empty(),
        "hazmat disagrees with herd7 on {} of {cases} programs (seed {seed}); minimised:\n{shown}\n\
         every disagreement (seed, kinds, classes, difference):\n{}",
        report.disagreements.len(),
        oracle::disagreement_lines(&report)
    );
}

/// A program both tools decide alike, and the same program with hazmat's answer altered in
/// each field in turn: the comparison must see each change, as the kind it is.
#[test]
fn the_comparison_sees_every_kind_of_difference() {
    let text = "C t\n{}\nP0(int *x) { int r0; r0 = READ_ONCE(*x); }\n\
                P1(int *x) { WRITE_ONCE(*x, 1); }\nexists (0:r0=1)\n";
    let ours = oracle::hazmat(text, Duration::from_secs(10));
    let Answer::Decided { text: out, .. } = &ours else {
        panic!("hazmat decides the test: {ours:?}");
    };
    let theirs = ours.clone();
    assert!(matches!(oracle::compare(&ours, &theirs), Compared::Agree));
    let altered = |from: &str, to: &str| {
        let text = out.replacen(from, to, 1);
        Answer::Decided {
            summary: read::parse(&text).expect("altered text reads back"),
            text,
        }
    };
    let cases = [
        (altered("Sometimes", "Always"), Kind::Verdict),
        (altered("0:r0=1;", "0:r0=2;"), Kind::States),
        (altered("Positive: 1", "Positive: 2"), Kind::Witnesses),
        (
            altered("Condition", "Flag data-race\nCondition"),
            Kind::Flags,
        ),
        (altered("Ok", "No"), Kind::Text),
        (Answer::Rejected("error".into()), Kind::HazmatRejects),
        (Answer::Panicked("boom".into()), Kind::HazmatPanics),
    ];
    for (answer, kind) in cases {
        match oracle::compare(&answer, &theirs) {
            Compared::Disagree(kinds, _) => assert_eq!(kinds[0], kind, "{answer:?}"),
            other => panic!("{kind:?} not seen: {other:?}"),
        }
    }
    match oracle::compare(&ours, &Answer::Rejected("error".into())) {
        Compared::Disagree(kinds, _) => assert_eq!(kinds, [Kind::Herd7Rejects]),
        other => panic!("herd7's rejection not seen: {other:?}"),
    }
    assert!(matches!(
        oracle::compare(&Answer::Rejected("a".into()), &Answer::Rejected("b".into())),
        Compared::Agree
    ));
    assert!(matches!(
        oracle::compare(&ours, &Answer::Undecided("timeout".into())),
        Compared::Undecided(_)
    ));
}

/// The oracle's answers reach the comparison: a test herd7 rejects comes back rejected,
/// and a test it decides comes back with the states it prints.
#[test]
fn herd7_answers_each_file_of_a_batch() {
    let Ok(herd7) = Herd7::find() else {
        eprintln!("oracle absent; nothing to check");
        return;
    };
    let sketch = |seed| oracle::Case::new(seed, &Config::lkmm()).sketch;
    let good: Sketch = sketch(1);
    let mut cases = vec![
        oracle::Case::of(1, good.clone(), "A".into()),
        oracle::Case::of(2, good, "B".into()),
    ];
    // herd7 has no address-of operator in thread code.
    cases[1].text = cases[1].text.replacen("{\n", "{\n\tr9 = &r9;\n", 1);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("oracle-batch");
    let decided = oracle::decide(&herd7, cases, &dir, Duration::from_secs(10));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        matches!(&decided[0].herd7, Answer::Decided { text, .. } if text.starts_with("Test A ")),
        "{:?}",
        decided[0].herd7
    );
    assert!(
        matches!(&decided[1].herd7, Answer::Rejected(_)),
        "{:?}",
        decided[1].herd7
    );
}

/// herd7's solver output, read for candidates lost although solved: a cycle whose left-over
/// equation its own solution satisfies counts; one it contradicts, or one left with a
/// symbol no equation solves (out of thin air), does not.
#[test]
fn candidates_lost_by_herd7s_solver_are_recognised() {
    let lost = "Solutions: S18<-2, S14<-2, S2<-0\nUnsolved equations:\n2:=S14\nUnsolvable system\n";
    assert_eq!(oracle::lost_in_debug_output(lost), 1);
    let twice = format!("{lost}++ Solve memory\n{lost}");
    assert_eq!(oracle::lost_in_debug_output(&twice), 2);
    let contradicted = "Solutions: S14<-1\nUnsolved equations:\n2:=S14\nUnsolvable system\n";
    assert_eq!(oracle::lost_in_debug_output(contradicted), 0);
    let thin_air = "Solutions: S2<-0\nUnsolved equations:\nS7:=S9\nUnsolvable system\n";
    assert_eq!(oracle::lost_in_debug_output(thin_air), 0);
    let solved = "Solutions: S14<-2, S2<-0\nFinal rfmap, final state=0:r0=2;\n";
    assert_eq!(oracle::lost_in_debug_output(solved), 0);
    // A cycle through operators (`S9:=S5^1, S5:=S9+1` with `S9:=0`), as herd7 prints what
    // is left of it.
    let operators = "Solutions: S9<-0, S6<-0, S5<-1, S3<-1, S2<-0\nUnsolved equations:\n\
                     0:=S5^1\n-1:=S9-1\n1:=S5==S3\nUnsolvable system\n";
    assert_eq!(oracle::lost_in_debug_output(operators), 1);
    let wrong = "Solutions: S5<-1\nUnsolved equations:\n1:=S5^1\nUnsolvable system\n";
    assert_eq!(oracle::lost_in_debug_output(wrong), 0);
    let unknown = "Solutions: S2<-0\nUnsolved equations:\n0:=S5^1\nUnsolvable system\n";
    assert_eq!(oracle::lost_in_debug_output(unknown), 0);
    // A cycle of copies its solution makes one symbol, out of thin air.
    let symbol = "Solutions: S16<-S18, S8<-S16, S3<-0\nUnsolved equations:\n\
                  S16:=S18\nS18:=S16\nUnsolvable system\n";
    assert_eq!(oracle::lost_in_debug_output(symbol), 1);
    // A cycle of three operators herd7 7.58 solves in one pass, in the order that leaves
    // `S6` unknown: the equations left solve it.
    let pass = "Solutions: S17<-1, S9<-1, S4<--1, S2<-1\nUnsolved equations:\n\
                1:=S6+1\nS6:=S4&0\nUnsolvable system\n";
    assert_eq!(oracle::lost_in_debug_output(pass), 1);
    let thin_air_operator = "Solutions: S17<-0, S9<-1, S4<-S2\nUnsolved equations:\n\
                             1:=S6+1\nS6:=S2&0\nS2:=S2-2\nUnsolvable system\n";
    assert_eq!(oracle::lost_in_debug_output(thin_air_operator), 0);
    // herd7 prints `atomic_andnot`'s operation as a function.
    let andnot = "Solutions: S11<-2, S10<-2, S6<-0, S4<-2\nUnsolved equations:\n\
                  2:=andnot2(2,S8)\nS8:=S6+1\nUnsolvable system\n";
    assert_eq!(oracle::lost_in_debug_output(andnot), 1);
    let not_andnot = "Solutions: S6<-0\nUnsolved equations:\n2:=andnot2(1,S8)\n\
                      S8:=S6+1\nUnsolvable system\n";
    assert_eq!(oracle::lost_in_debug_output(not_andnot), 0);
}

/// The regressions where hazmat counts more executions than herd7 7.58 are those its
/// solver loses: on each, herd7's own debugging output shows a candidate dropped with its
/// equations solved, and the comparison says so rather than reporting a disagreement.
#[test]
fn the_executions_herd7_loses_are_told_apart() {
    let Ok(mut herd7) = Herd7::find_rc11() else {
        eprintln!("herd7 not found; nothing to check");
        return;
    };
    // herd7 takes 11 to 12 s on one of these files on a quiet machine, past the default
    // budget, and a timeout is not a disagreement.
    herd7.timeout = 120.0;
    let regressions = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../litmus/tests/regressions");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("oracle-lost");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::create_dir_all(&dir);
    let mut seen = 0;
    for entry in std::fs::read_dir(&regressions).expect("the regressions folder") {
        let path = entry.expect("an entry").path();
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        if !(name.starts_with("c11-cas-write-back") && name.ends_with(".litmus")) {
            continue;
        }
        seen += 1;
        let text = std::fs::read_to_string(&path).expect("the file reads");
        let stem = name.trim_end_matches(".litmus");
        std::fs::write(dir.join(&name), &text).expect("the copy is written");
        let theirs = herd7
            .run(&dir, &[stem.to_string()])
            .pop()
            .expect("one answer");
        let ours = oracle::hazmat_under("rc11", &text, Duration::from_secs(30));
        assert!(
            matches!(oracle::compare(&ours, &theirs), Compared::Disagree(..)),
            "{name}: herd7 no longer differs from hazmat here"
        );
        let classified = oracle::classify(&herd7, &dir, stem, &ours, &theirs);
        assert!(
            matches!(classified, Compared::Herd7Lost(_)),
            "{name}: {classified:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(seen, 3, "the three write-back regressions");
}
