//! `hazmat weaken`: the textbook shapes under the LKMM and RC11, the hand-written twins of
//! the hazptr tests found among the variants the tool reports, bad input, and the
//! command line's table, JSON and written variants.

#[path = "common/scratch.rs"]
mod scratch;
use hazmat_checker::engine::outcome::Verdict;
use hazmat_checker::weaken::decide::{Judge, Question};
use hazmat_checker::weaken::{self, Analysis, Setup, WeakenError, variant};
use hazmat_checker::{front::program::Quantifier, model};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn analyse(source: &str, model_name: &str) -> Analysis {
    let m = model(model_name).expect("a model");
    weaken::analyse(source, &Setup::new(m.as_ref(), true)).expect("analysed")
}

fn analyse_err(source: &str, model_name: &str, setup: impl Fn(&mut Setup<'_>)) -> WeakenError {
    let m = model(model_name).expect("a model");
    let mut s = Setup::new(m.as_ref(), true);
    setup(&mut s);
    match weaken::analyse(source, &s) {
        Ok(a) => panic!("expected an error, got {}", weaken::render::text(&a)),
        Err(e) => e,
    }
}

/// The texts of the choices of the site on `line` that keep the verdict.
fn keeps(a: &Analysis, line: usize) -> Vec<String> {
    let (i, s) = a
        .sites
        .iter()
        .enumerate()
        .find(|(_, s)| s.line == line)
        .unwrap_or_else(|| panic!("a site on line {line}: {}", weaken::render::text(a)));
    a.each[i]
        .keeps()
        .into_iter()
        .map(|c| s.choices[c].text.clone())
        .collect()
}

fn status(a: &Analysis, line: usize) -> &'static str {
    let (i, s) = a
        .sites
        .iter()
        .enumerate()
        .find(|(_, s)| s.line == line)
        .expect("a site");
    weaken::render::status(a, s, &a.each[i])
}

/// The cheapest strengthening as `(line, text)` pairs, with its cost.
fn cheapest(a: &Analysis) -> (u32, Vec<(usize, String)>) {
    let st = a.strengthening.as_ref().expect("a strengthening search");
    let slots = a.slots();
    let set = st.sets.first().expect("a strengthening");
    (
        set.cost,
        set.changes
            .iter()
            .map(|&(i, c)| (slots[i].line, slots[i].choices[c].text.clone()))
            .collect(),
    )
}

const MP_MB: &str = "C MP+mbs
{}
P0(int *x, int *y)
{
\tWRITE_ONCE(*x, 1);
\tsmp_mb();
\tWRITE_ONCE(*y, 1);
}
P1(int *x, int *y)
{
\tint r0;
\tint r1;
\tr0 = READ_ONCE(*y);
\tsmp_mb();
\tr1 = READ_ONCE(*x);
}
exists (1:r0=1 /\\ 1:r1=0)
";

const SB_MB: &str = "C SB+mbs
{}
P0(int *x, int *y)
{
\tint r0;
\tWRITE_ONCE(*x, 1);
\tsmp_mb();
\tr0 = READ_ONCE(*y);
}
P1(int *x, int *y)
{
\tint r0;
\tWRITE_ONCE(*y, 1);
\tsmp_mb();
\tr0 = READ_ONCE(*x);
}
exists (0:r0=0 /\\ 1:r0=0)
";

const SB: &str = "C SB
{}
P0(int *x, int *y)
{
\tint r0;
\tWRITE_ONCE(*x, 1);
\tr0 = READ_ONCE(*y);
}
P1(int *x, int *y)
{
\tint r0;
\tWRITE_ONCE(*y, 1);
\tr0 = READ_ONCE(*x);
}
exists (0:r0=0 /\\ 1:r0=0)
";

const MP_C11: &str = "C MP+scfences
{}
P0(atomic_int *x, atomic_int *y)
{
\tatomic_store_explicit(x, 1, memory_order_relaxed);
\tatomic_thread_fence(memory_order_seq_cst);
\tatomic_store_explicit(y, 1, memory_order_relaxed);
}
P1(atomic_int *x, atomic_int *y)
{
\tint r0 = atomic_load_explicit(y, memory_order_relaxed);
\tatomic_thread_fence(memory_order_seq_cst);
\tint r1 = atomic_load_explicit(x, memory_order_relaxed);
}
exists (1:r0=1 /\\ 1:r1=0)
";

const MP_C11_SC: &str = "C MP+sc
{}
P0(atomic_int *x, atomic_int *y)
{
\tatomic_store_explicit(x, 1, memory_order_relaxed);
\tatomic_store_explicit(y, 1, memory_order_seq_cst);
}
P1(atomic_int *x, atomic_int *y)
{
\tint r0 = atomic_load_explicit(y, memory_order_seq_cst);
\tint r1 = atomic_load_explicit(x, memory_order_relaxed);
}
exists (1:r0=1 /\\ 1:r1=0)
";

const SB_C11_FENCES: &str = "C SB+scfences
{}
P0(atomic_int *x, atomic_int *y)
{
\tatomic_store_explicit(x, 1, memory_order_relaxed);
\tatomic_thread_fence(memory_order_seq_cst);
\tint r0 = atomic_load_explicit(y, memory_order_relaxed);
}
P1(atomic_int *x, atomic_int *y)
{
\tatomic_store_explicit(y, 1, memory_order_relaxed);
\tatomic_thread_fence(memory_order_seq_cst);
\tint r0 = atomic_load_explicit(x, memory_order_relaxed);
}
exists (0:r0=0 /\\ 1:r0=0)
";

const SB_C11: &str = "C SB+relaxed
{}
P0(atomic_int *x, atomic_int *y)
{
\tatomic_store_explicit(x, 1, memory_order_relaxed);
\tint r0 = atomic_load_explicit(y, memory_order_relaxed);
}
P1(atomic_int *x, atomic_int *y)
{
\tatomic_store_explicit(y, 1, memory_order_relaxed);
\tint r0 = atomic_load_explicit(x, memory_order_relaxed);
}
exists (0:r0=0 /\\ 1:r0=0)
";

#[test]
fn message_passing_with_full_fences_needs_only_the_write_and_read_fences() {
    let a = analyse(MP_MB, "lkmm");
    assert_eq!(a.verdict, Verdict::Never);
    assert_eq!(keeps(&a, 6), ["smp_wmb()"], "{}", weaken::render::text(&a));
    assert_eq!(keeps(&a, 14), ["smp_rmb()"], "{}", weaken::render::text(&a));
    assert_eq!(status(&a, 6), "stronger than needed");
    assert_eq!(status(&a, 14), "stronger than needed");
    // The accesses are as weak as they go: the weakest whole assignment is the two
    // one-way fences.
    let w = a.weakest.as_ref().expect("the weakest assignments");
    assert!(w.exact);
    assert_eq!(w.non_monotone, 0);
    let texts: Vec<Vec<String>> = w
        .assignments
        .iter()
        .map(|asg| {
            variant::changed(&a.sites, asg)
                .into_iter()
                .map(|i| a.sites[i].choices[asg[i]].text.clone())
                .collect()
        })
        .collect();
    assert_eq!(texts, [["smp_wmb()", "smp_rmb()"]]);
}

#[test]
fn message_passing_with_seq_cst_fences_needs_only_release_and_acquire_under_rc11() {
    let a = analyse(MP_C11, "rc11");
    assert_eq!(a.verdict, Verdict::Never);
    let text = weaken::render::text(&a);
    assert!(
        keeps(&a, 6).contains(&"atomic_thread_fence(memory_order_release)".to_string()),
        "{text}"
    );
    assert!(
        !keeps(&a, 6).contains(&"atomic_thread_fence(memory_order_acquire)".to_string()),
        "{text}"
    );
    assert!(
        keeps(&a, 12).contains(&"atomic_thread_fence(memory_order_acquire)".to_string()),
        "{text}"
    );
    assert!(!keeps(&a, 12).contains(&String::new()), "{text}");
    assert_eq!(status(&a, 6), "stronger than needed");
    // The seq_cst accesses of the other form weaken to release and acquire.
    let b = analyse(MP_C11_SC, "rc11");
    assert_eq!(
        keeps(&b, 6),
        ["atomic_store_explicit(y, 1, memory_order_release)"]
    );
    assert_eq!(
        keeps(&b, 10),
        ["atomic_load_explicit(y, memory_order_acquire)"]
    );
}

#[test]
fn store_buffering_with_full_fences_needs_both() {
    let a = analyse(SB_MB, "lkmm");
    assert_eq!(a.verdict, Verdict::Never);
    assert_eq!(status(&a, 7), "needed", "{}", weaken::render::text(&a));
    assert_eq!(status(&a, 14), "needed");
    assert!(keeps(&a, 7).is_empty());
    let w = a.weakest.as_ref().expect("the weakest assignments");
    assert_eq!(w.assignments, [variant::original(&a.sites)]);
    let c = analyse(SB_C11_FENCES, "rc11");
    assert_eq!(status(&c, 6), "needed", "{}", weaken::render::text(&c));
    assert_eq!(status(&c, 12), "needed");
}

#[test]
fn store_buffering_without_fences_is_forbidden_by_two_full_fences_and_nothing_cheaper() {
    let a = analyse(SB, "lkmm");
    assert_eq!(a.verdict, Verdict::Sometimes);
    let (cost, changes) = cheapest(&a);
    assert_eq!(
        changes,
        [(7, "smp_mb()".to_string()), (13, "smp_mb()".to_string())],
        "{}",
        weaken::render::text(&a)
    );
    assert_eq!(cost, 16);
    let st = a.strengthening.as_ref().expect("strengthened");
    assert!(st.complete);
    assert!(st.sets.iter().all(|s| s.cost >= 16));
    let c = analyse(SB_C11, "rc11");
    let (cost, changes) = cheapest(&c);
    assert_eq!(
        changes,
        [
            (6, "atomic_thread_fence(memory_order_seq_cst)".to_string()),
            (11, "atomic_thread_fence(memory_order_seq_cst)".to_string())
        ],
        "{}",
        weaken::render::text(&c)
    );
    assert_eq!(cost, 16);
    let st = c.strengthening.as_ref().expect("strengthened");
    assert!(st.sets.iter().all(|s| s.cost >= 16));
    assert_eq!(st.sets.iter().filter(|s| s.cost == 16).count(), 1);
}

#[test]
fn message_passing_without_ordering_is_forbidden_by_release_and_acquire_first() {
    let text = "C MP
{}
P0(int *x, int *y)
{
\tWRITE_ONCE(*x, 1);
\tWRITE_ONCE(*y, 1);
}
P1(int *x, int *y)
{
\tint r0;
\tint r1;
\tr0 = READ_ONCE(*y);
\tr1 = READ_ONCE(*x);
}
exists (1:r0=1 /\\ 1:r1=0)
";
    let a = analyse(text, "lkmm");
    let (cost, changes) = cheapest(&a);
    assert_eq!(cost, 4, "{}", weaken::render::text(&a));
    assert_eq!(
        changes,
        [
            (6, "smp_store_release(y, 1)".to_string()),
            (12, "smp_load_acquire(y)".to_string())
        ]
    );
    // The one-way fences are among the minimal sets, dearer.
    let slots = a.slots();
    let st = a.strengthening.as_ref().expect("strengthened");
    assert!(st.sets.iter().any(|s| {
        s.changes
            .iter()
            .map(|&(i, c)| slots[i].choices[c].text.as_str())
            .collect::<Vec<_>>()
            == ["smp_wmb()", "smp_rmb()"]
    }));
}

#[test]
fn a_test_with_no_ordering_site_is_refused() {
    let corr = "C CoRR
{}
P0(int *x) { WRITE_ONCE(*x, 1); }
P1(int *x) { int r0; int r1; r0 = READ_ONCE(*x); r1 = READ_ONCE(*x); }
exists (1:r0=1 /\\ 1:r1=0)
";
    let e = analyse_err(corr, "lkmm", |_| {});
    assert!(matches!(e, WeakenError::NoSite(_)), "{e}");
    assert!(e.to_string().contains("no ordering site"), "{e}");
}

#[test]
fn a_test_with_no_condition_is_refused() {
    let text = "C nocond
{}
P0(int *x) { WRITE_ONCE(*x, 1); smp_mb(); }
";
    let e = analyse_err(text, "lkmm", |_| {});
    assert!(matches!(e, WeakenError::NoCondition), "{e}");
    assert!(e.to_string().contains("no condition"), "{e}");
}

#[test]
fn a_timeout_on_the_test_or_on_a_variant_is_an_error_not_a_partial_table() {
    let e = analyse_err(SB_MB, "lkmm", |s| s.timeout = Some(Duration::ZERO));
    assert!(matches!(e, WeakenError::TestUndecided(_)), "{e}");
    // A variant that runs out of time is an error naming it.
    let m = model("lkmm").expect("lkmm");
    let judge = Judge {
        model: m.as_ref(),
        macros: None,
        timeout: Some(Duration::ZERO),
        native: true,
        optace: hazmat_checker::models::optace::OptAce::Iico,
    };
    let q = Question::keep(Verdict::Never, Quantifier::Exists);
    let e = judge
        .ask(SB_MB, "SB+mbs+no-mb-L7", &q, &[])
        .expect_err("undecided");
    assert!(matches!(e, WeakenError::Undecided { .. }), "{e}");
    assert!(e.to_string().contains("SB+mbs+no-mb-L7"), "{e}");
    assert!(e.to_string().contains("no partial table"), "{e}");
}

fn hazmat(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_hazmat"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("hazmat runs")
}

fn temp_dir(name: &str) -> PathBuf {
    scratch::folder(&format!("weaken-{name}"))
}

#[test]
fn the_command_line_prints_json_and_writes_variants_that_check_as_stated() {
    let dir = temp_dir("cli");
    let file = dir.join("MP+mbs.litmus");
    std::fs::write(&file, MP_MB).expect("written");
    let f = file.to_str().unwrap_or_default();
    let out = hazmat(&["weaken", "--json", f]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(j["verdict"], "Never");
    let sites = j["sites"].as_array().expect("sites");
    assert_eq!(sites.len(), 2);
    assert_eq!(sites[0]["line"], 6);
    assert_eq!(sites[0]["text"], "smp_mb()");
    assert_eq!(sites[0]["keeps"], serde_json::json!(["smp_wmb()"]));
    assert_eq!(sites[1]["keeps"], serde_json::json!(["smp_rmb()"]));
    // The losing weakenings carry their witness.
    let loses = sites[0]["loses"].as_array().expect("loses");
    assert!(loses.iter().any(|l| l["text"] == "smp_rmb()"
        && l["witness"].as_str().is_some_and(|w| w.contains("witness"))));
    // Strengthenings, in JSON.
    let sb = dir.join("SB.litmus");
    std::fs::write(&sb, SB).expect("written");
    let out = hazmat(&["weaken", "--json", sb.to_str().unwrap_or_default()]);
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(j["verdict"], "Sometimes");
    let first = &j["strengthenings"][0];
    assert_eq!(first["cost"], 16);
    assert_eq!(first["changes"][0]["line"], 7);
    assert_eq!(first["changes"][0]["text"], "smp_mb()");
    // The variants, written, are litmus files whose Result lines hazmat check agrees with.
    let written = dir.join("variants");
    let out = hazmat(&["weaken", "--write", written.to_str().unwrap_or_default(), f]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let names: Vec<String> = std::fs::read_dir(&written)
        .expect("written")
        .filter_map(|e| Some(e.ok()?.file_name().to_string_lossy().into_owned()))
        .collect();
    assert!(
        names.contains(&"MP+mbs+no-mb-L6.litmus".to_string()),
        "{names:?}"
    );
    assert!(
        names.contains(&"MP+mbs+wmb-L6.litmus".to_string()),
        "{names:?}"
    );
    let out = hazmat(&["check", "--judge", written.to_str().unwrap_or_default()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_command_line_says_why_it_cannot_weaken() {
    let dir = temp_dir("errors");
    let file = dir.join("MP+mbs.litmus");
    std::fs::write(&file, MP_MB).expect("written");
    let out = hazmat(&[
        "weaken",
        "--timeout",
        "0",
        file.to_str().unwrap_or_default(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("undecided"), "{stderr}");
    assert!(out.stdout.is_empty(), "no partial table");
    let nosite = dir.join("CoRR.litmus");
    std::fs::write(
        &nosite,
        "C CoRR\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nP1(int *x) { int r0; r0 = READ_ONCE(*x); }\nexists (1:r0=2)\n",
    )
    .expect("written");
    let out = hazmat(&["weaken", nosite.to_str().unwrap_or_default()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("CoRR.litmus: error: the test has no ordering site"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

/// The project's shipped hazptr tests.
fn corpus(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../litmus/tests")
        .join(dir)
}

/// The twins that change no ordering of their base, with why: no variant of the tool's can
/// be them.
const NOT_ORDERING_TWINS: &[(&str, &str)] = &[
    (
        "+no-wildcard-defer",
        "changes the scan's logic (the wildcard test), not an ordering",
    ),
    (
        "+reacquire",
        "adds a statement (the reader's re-publication); its verdict is the base's",
    ),
    (
        "+relaxed-use",
        "changes the object's type and a plain access to a relaxed one as well",
    ),
];

#[test]
fn every_hand_written_hazptr_twin_is_among_the_variants_that_lose_the_verdict() {
    for (dir, model_name) in [("hazptr", "lkmm"), ("hazptr-c11", "rc11")] {
        let mut matched = 0;
        for entry in std::fs::read_dir(corpus(dir)).expect("the hazptr corpus") {
            let twin_path = entry.expect("an entry").path();
            let name = twin_path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let Some((base_name, changes)) = name.split_once('+') else {
                continue;
            };
            let base = std::fs::read_to_string(corpus(dir).join(format!("{base_name}.litmus")))
                .expect("the twin's base");
            let twin_text = std::fs::read_to_string(&twin_path).expect("the twin");
            let twin = hazmat_litmus::parse(&twin_text).expect("the twin parses");
            let a = analyse(&base, model_name);
            // The single-site variants, as threads.
            let original = variant::original(&a.sites);
            let mut found = None;
            for (i, r) in a.each.iter().enumerate() {
                for (c, fate) in &r.fates {
                    let mut asg = original.clone();
                    asg[i] = *c;
                    let text = variant::text(&base, &a.sites, &asg);
                    let v = hazmat_litmus::parse(&text).expect("a variant parses");
                    if v.threads == twin.threads {
                        found = Some((i, *c, fate.clone()));
                    }
                }
            }
            let expected = twin
                .expectations
                .iter()
                .find(|e| match model_name {
                    "lkmm" => e.model.is_none(),
                    m => e.model.as_deref() == Some(m),
                })
                .expect("the twin's Result line");
            let not_ordering = NOT_ORDERING_TWINS
                .iter()
                .find(|(suffix, _)| format!("+{changes}").contains(suffix));
            match (found, not_ordering) {
                (Some((i, _, fate)), None) => {
                    matched += 1;
                    // The twin's verdict is the one the tool says the change loses.
                    assert!(
                        !fate.holds(),
                        "{name}: the tool says {:?} keeps",
                        a.sites[i]
                    );
                    let says_race = expected.flags.iter().any(|f| f == "DATARACE");
                    let verdict_lost = fate == weaken::decide::Fate::Lost { flag: None };
                    assert_eq!(
                        verdict_lost, !says_race,
                        "{name}: {fate:?} against {:?}",
                        expected
                    );
                }
                (None, Some(_)) => {}
                (Some(_), Some((_, why))) => {
                    panic!("{name} is said to be no ordering twin ({why}) but the tool makes it")
                }
                (None, None) => panic!(
                    "{name}: no single-site variant of {base_name} is this twin:\n{}",
                    weaken::render::text(&a)
                ),
            }
        }
        assert!(matched >= 10, "{dir}: {matched} twins matched");
    }
}

/// herd7 and its arguments for `model`, when at hand.
fn herd7(model_name: &str) -> Option<(PathBuf, Vec<String>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let exe = std::env::var_os("HAZMAT_ORACLE")
        .map_or_else(|| root.join("shared/oracle/herd7"), PathBuf::from);
    if !exe.is_file() {
        return None;
    }
    let args = if model_name == "lkmm" {
        let corpus = std::env::var_os("HAZMAT_CONFORMANCE")
            .map_or_else(|| root.join("shared/conformance"), PathBuf::from);
        let dir = corpus.join("lkmm-model");
        if !dir.join("linux-kernel.cfg").is_file() {
            return None;
        }
        vec![
            "-I".to_string(),
            dir.display().to_string(),
            "-conf".to_string(),
            "linux-kernel.cfg".to_string(),
        ]
    } else {
        ["-model", "rc11.cat", "-macros", "c11.def"]
            .map(String::from)
            .to_vec()
    };
    Some((exe, args))
}

#[test]
fn herd7_gives_the_written_variants_the_verdicts_hazmat_states() {
    let cases = [
        ("hazptr", "hazptr-acquire-before-scan", "lkmm"),
        ("hazptr", "hazptr-drain-slot-mark", "lkmm"),
        ("hazptr", "hazptr-wildcard-protocol+no-mb", "lkmm"),
        ("hazptr-c11", "hazptr-acquire-before-scan", "rc11"),
        ("hazptr-c11", "hazptr-drain-slot-mark", "rc11"),
    ];
    let mut compared = 0;
    for (dir, name, model_name) in cases {
        let Some((exe, args)) = herd7(model_name) else {
            eprintln!("no herd7 at hand: the written variants are not compared with it");
            return;
        };
        let source = std::fs::read_to_string(corpus(dir).join(format!("{name}.litmus")))
            .expect("the hazptr test");
        let m = model(model_name).expect("a model");
        let setup = Setup::new(m.as_ref(), true);
        let a = weaken::analyse(&source, &setup).expect("analysed");
        let out = temp_dir(&format!("herd7-{dir}-{name}"));
        for v in weaken::variant_files(&source, &a, &setup).expect("the variants") {
            let path = out.join(format!("{name}{}.litmus", v.suffix));
            std::fs::write(&path, &v.text).expect("written");
            let stated = hazmat_litmus::parse(&v.text)
                .expect("a variant parses")
                .expectations
                .iter()
                .find_map(|e| e.outcome)
                .expect("a Result line")
                .as_str();
            let run = Command::new(&exe)
                .args(&args)
                .arg(&path)
                .output()
                .expect("herd7 runs");
            let stdout = String::from_utf8_lossy(&run.stdout);
            let verdict = stdout
                .lines()
                .find_map(|l| l.strip_prefix("Observation "))
                .and_then(|l| l.split_whitespace().nth(1))
                .unwrap_or_else(|| panic!("herd7's output for {}:\n{stdout}", path.display()));
            assert_eq!(verdict, stated, "{}:\n{}", path.display(), v.text);
            compared += 1;
        }
    }
    assert!(compared >= 10, "{compared} variants compared");
}
