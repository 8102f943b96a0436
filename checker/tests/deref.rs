//! herd7's dependent loads, `__load{deref}` and `__load{lderef}`, and their fence
//! `__fence{rb_dep}`, in a macro file: the kernel's model of 2018 (`tests/lkmm-history/2018/`)
//! with `tests/deref/linux-kernel.def`, a macro file written for these tests that maps
//! `rcu_dereference()` and `lockless_dereference()` to the dependent loads and
//! `smp_read_barrier_depends()` to the fence, as the kernel's first files did.
//!
//! Under it, hazmat's two command lines (`hazmat check --interpret --conf linux-kernel.cfg`
//! and `hazmat herd7 -conf linux-kernel.cfg`) must print herd7's whole output (`Time`
//! aside) for every test of the shared conformance corpus that calls one of the three, and
//! for every `HAZMAT_DEREF_STRIDE`-th file of the corpus (64 unless set); as in
//! `lkmm_history.rs`, a stride over 4 leaves out the tests herd7 takes over a second for
//! under the current model, and each test gets `HAZMAT_HISTORY_TIMEOUT` seconds (20).
//! `tests/deref/regressions/` holds the disagreements found, each a litmus file with
//! herd7's whole output beside it (`FILE.litmus.expected`), which run without herd7.
//!
//! The instructions written directly in a test, under the 2018 model and today's, are
//! regressions of `lkmm_history.rs` (`tests/lkmm-history/regressions/2018/` and
//! `v6.15-lkmmv2/`).
//! Without the shared folder or herd7 the comparison passes having checked nothing, and
//! says so.

#[path = "common/cat_oracle.rs"]
mod cat_oracle;
#[path = "common/corpus.rs"]
mod corpus;
#[path = "common/env.rs"]
mod env;
#[path = "common/history.rs"]
mod history;

#[path = "common/scratch.rs"]
mod scratch;
use cat_oracle::{compare, herd7, kept_answer};
use history::{Runner, Tool, Version};
use std::path::{Path, PathBuf};

/// This test's own files.
fn own_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/deref")
}

/// A model in a folder of its own for the test `who`: `files` copied from the folders they
/// are named with, and the macro file of these tests.
fn assemble(who: &str, files: &[(&Path, &str)]) -> Version {
    let dir = scratch::folder(&format!("deref-{who}"));
    let def = own_dir();
    for (from, file) in files
        .iter()
        .chain([(def.as_path(), "linux-kernel.def")].iter())
    {
        std::fs::copy(from.join(file), dir.join(file))
            .unwrap_or_else(|e| panic!("{}: {e}", from.join(file).display()));
    }
    Version {
        name: who.to_string(),
        dir,
    }
}

/// The 2018 model (cat, bell, `lock.cat` and cfg) with the macro file of these tests.
fn model(who: &str) -> Version {
    let old = history::versions_dir().join("2018");
    let files = [
        "linux-kernel.cat",
        "linux-kernel.bell",
        "linux-kernel.cfg",
        "lock.cat",
    ];
    let files: Vec<(&Path, &str)> = files.iter().map(|f| (old.as_path(), *f)).collect();
    assemble(&format!("2018-{who}"), &files)
}

/// The litmus files of `dir` with herd7's outputs beside them.
fn expected(dir: &Path) -> Vec<(PathBuf, String)> {
    hazmat_checker::testkit::harness::litmus_files(dir)
        .into_iter()
        .filter_map(|f| {
            let expected = std::fs::read_to_string(format!("{}.expected", f.display())).ok()?;
            Some((f, expected))
        })
        .collect()
}

/// hazmat's two command lines on `cases` under `version`, against herd7's outputs; the
/// failures, and the number of runs.
fn against_expected(version: &Version, cases: &[(PathBuf, String)]) -> (Vec<String>, usize) {
    let runner = Runner {
        herd7: PathBuf::new(),
        hazmat: PathBuf::from(env!("CARGO_BIN_EXE_hazmat")),
        library: history::library(&herd7().unwrap_or_default()),
        timeout: 60.0,
    };
    let files: Vec<PathBuf> = cases.iter().map(|(f, _)| f.clone()).collect();
    let mut failures = Vec::new();
    let mut count = 0;
    for tool in [Tool::Check, Tool::HazmatHerd7] {
        let ours = runner.run(tool, &version.dir, &files);
        for ((file, expected), answer) in cases.iter().zip(&ours) {
            count += 1;
            let theirs = kept_answer(file, expected);
            if let Some(d) = compare(answer, &theirs) {
                failures.push(format!(
                    "{} ({}): {d}",
                    file.file_name().unwrap_or_default().to_string_lossy(),
                    tool.name()
                ));
            }
        }
    }
    (failures, count)
}

fn runner(herd7: PathBuf) -> Runner {
    Runner {
        library: history::library(&herd7),
        herd7,
        hazmat: PathBuf::from(env!("CARGO_BIN_EXE_hazmat")),
        timeout: env::number("HAZMAT_HISTORY_TIMEOUT", 20.0),
    }
}

/// Whether a litmus file calls one of the macros the test's file gives a new meaning.
fn calls_a_dependent_load(file: &Path) -> bool {
    std::fs::read_to_string(file).is_ok_and(|text| {
        [
            "rcu_dereference",
            "lockless_dereference",
            "smp_read_barrier_depends",
        ]
        .iter()
        .any(|m| text.contains(m))
    })
}

#[test]
fn the_dependent_loads_agree_with_herd7_on_the_corpus() {
    let (Some(root), Some(herd7)) = (corpus::conformance_dir(), herd7()) else {
        eprintln!("the conformance corpus or herd7 is absent; nothing checked");
        return;
    };
    let stride: usize = env::number("HAZMAT_DEREF_STRIDE", 64);
    let all = history::corpus_files(&root);
    let sample = history::sample(&all, stride);
    let mut files: Vec<PathBuf> = all
        .iter()
        .filter(|f| calls_a_dependent_load(f) || sample.contains(f))
        .cloned()
        .collect();
    if stride > 4 {
        // The quick sample: the tests herd7 decides within a second under today's model.
        let quick: Vec<PathBuf> = corpus::load_cases(&root)
            .unwrap_or_else(|e| panic!("{e}"))
            .into_iter()
            .filter(|c| c.herd_time <= 1.0)
            .map(|c| c.file)
            .collect();
        files.retain(|f| quick.contains(f));
    }
    let calling = files.iter().filter(|f| calls_a_dependent_load(f)).count();
    let runner = runner(herd7);
    let version = model("corpus");
    let start = std::time::Instant::now();
    let tally = history::compare_version(&runner, &version, &files);
    eprintln!(
        "{}: {} tests ({calling} calling a dependent load, and every {stride}th): {} decided by \
         herd7, {} refused by both, {} not decided by herd7 in {}s (skipped); {} \
         disagreements, in {:.1?}",
        version.name,
        files.len(),
        tally.decided,
        tally.refused,
        tally.undecided,
        runner.timeout,
        tally.disagreements.len(),
        start.elapsed()
    );
    assert!(
        calling >= 10,
        "the corpus's tests calling a dependent load: {calling}"
    );
    let failures: Vec<String> = tally
        .disagreements
        .iter()
        .map(|(file, tool, d)| {
            format!(
                "{} ({}): {d}",
                file.strip_prefix(&root).unwrap_or(file).display(),
                tool.name()
            )
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_regressions_print_herd7s_outputs() {
    let cases = expected(&own_dir().join("regressions"));
    let (failures, count) = against_expected(&model("regressions"), &cases);
    eprintln!("{count} regression runs, {} failed", failures.len());
    assert!(count >= 8, "the regression files: {count} runs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A model whose bell names `'rb_dep` (`tests/deref/rb-dep/`, written for this test) sees
/// the fences of `smp_read_barrier_depends()` and of the dependent loads in its set
/// `Rb_dep`, and orders by them what herd7 orders.
#[test]
fn a_bell_naming_rb_dep_sees_the_fences() {
    let dir = own_dir().join("rb-dep");
    let files: Vec<(&Path, &str)> = ["rb-dep.cat", "rb-dep.bell", "linux-kernel.cfg"]
        .iter()
        .map(|f| (dir.as_path(), *f))
        .collect();
    let version = assemble("rb-dep", &files);
    let cases = expected(&dir);
    let (failures, count) = against_expected(&version, &cases);
    assert!(count >= 6, "the litmus files: {count} runs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Today's model files without their variant (`variant lkmmv2` left out of the cfg):
/// herd7 reads the read-modify-writes the older way, but the read of a dependent load is
/// still `once` in lower case, which today's bell does not name, so it stays a plain read
/// that races (`tests/deref/no-variant/`). (hazmat gave it the kernel's `once` without
/// the variant, and flagged no race.)
#[test]
fn todays_files_without_their_variant_read_the_dependent_load_as_plain() {
    let today = history::versions_dir().join("v6.15-lkmmv2");
    let files: Vec<(&Path, &str)> = ["linux-kernel.cat", "linux-kernel.bell", "lock.cat"]
        .iter()
        .map(|f| (today.as_path(), *f))
        .collect();
    let mut version = assemble("no-variant", &files);
    // Today's own macros, not those of these tests.
    std::fs::copy(
        today.join("linux-kernel.def"),
        version.dir.join("linux-kernel.def"),
    )
    .expect("today's macro file");
    let cfg = std::fs::read_to_string(today.join("linux-kernel.cfg")).expect("today's cfg");
    assert!(cfg.lines().any(|l| l.starts_with("variant")), "{cfg}");
    let without: String = cfg
        .lines()
        .filter(|l| !l.starts_with("variant"))
        .flat_map(|l| [l, "\n"])
        .collect();
    std::fs::write(version.dir.join("linux-kernel.cfg"), without).expect("the cfg");
    version.name = "today's files without lkmmv2".to_string();
    let cases = expected(&own_dir().join("no-variant"));
    let (failures, count) = against_expected(&version, &cases);
    assert!(count >= 2, "the litmus files: {count} runs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
