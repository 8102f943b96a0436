//! Differential properties on generated litmus programs.
//!
//! Each property draws programs from [`hazmat_checker::testkit::generate`] and compares two ways of
//! deciding them:
//! - the models nest: the final states SC allows are among those TSO allows, and those
//!   among the states the LKMM allows;
//! - a full fence never adds a state: inserting `smp_mb()` anywhere in a program allows no
//!   final state the program without it did not allow, under each model;
//! - the engines agree: the operational engine (every interleaving under shuttle's DFS
//!   scheduler) finds exactly the final states and execution counts of the axiomatic SC
//!   model;
//! - the printer and the parser agree on every generated program.
//!
//! Every generated program shows all its registers and variables, so a state is a whole
//! final state.
//! `HAZMAT_PROPTEST_CASES` sets the number of programs per property (default 64).

use hazmat_checker::engine::enumerate::Limits;
use hazmat_checker::front::lower;
use hazmat_checker::testkit::generate::{self, Config, Sketch};
use hazmat_checker::{Options, Outcome, check_source, model};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use std::collections::BTreeSet;

/// One final state, as `(cell, value)` pairs in the program's order.
type State = Vec<(String, String)>;

fn cases() -> u32 {
    std::env::var("HAZMAT_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: cases(),
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        ..ProptestConfig::default()
    }
}

/// Enough for every generated program; a program that reaches it is skipped, not judged.
fn options() -> Options {
    Options {
        limits: Limits {
            max_executions: Some(2_000_000),
            deadline: None,
            ..Default::default()
        },
        speedcheck: false,
        ..Default::default()
    }
}

/// The states of `text` under `model`, or `None` when a limit stopped the check.
fn states(text: &str, model_name: &str) -> Option<(BTreeSet<State>, Outcome)> {
    let m = model(model_name).expect("the model exists");
    let checked = check_source(text, m.as_ref(), &options())
        .unwrap_or_else(|e| panic!("{model_name}: {}\n{text}", e.render("generated", text)));
    if checked.outcome.unknown.is_some() {
        return None;
    }
    let states = named_states(&checked.program, &checked.outcome);
    Some((states, checked.outcome))
}

fn named_states(program: &hazmat_checker::front::program::Program, o: &Outcome) -> BTreeSet<State> {
    o.states
        .iter()
        .map(|s| {
            program
                .shown
                .iter()
                .zip(s)
                .map(|(&c, &v)| (program.cell_name(c), program.value_text(v)))
                .collect()
        })
        .collect()
}

fn text(s: &Sketch) -> String {
    hazmat_litmus::print(&s.to_test("generated"))
}

/// Programs small enough for the operational engine: at most this many interleavings.
const MAX_INTERLEAVINGS: u64 = 5_000;

proptest! {
    #![proptest_config(config())]

    #[test]
    fn printed_programs_parse_back(s in generate::sketch(Config::default())) {
        let test = s.to_test("generated");
        let printed = hazmat_litmus::print(&test);
        let parsed = hazmat_litmus::parse(&printed)
            .unwrap_or_else(|e| panic!("{}\n{printed}", e.render("generated", &printed)));
        prop_assert_eq!(parsed, test);
    }

    #[test]
    fn sc_within_tso_within_lkmm(s in generate::sketch(Config::default())) {
        let t = text(&s);
        let (Some((sc, _)), Some((tso, _)), Some((lkmm, _))) =
            (states(&t, "sc"), states(&t, "tso"), states(&t, "lkmm"))
        else {
            return Err(TestCaseError::reject("a limit stopped a check"));
        };
        prop_assert!(sc.is_subset(&tso), "SC allows states TSO forbids: {:?}\n{t}", sc.difference(&tso).collect::<Vec<_>>());
        prop_assert!(tso.is_subset(&lkmm), "TSO allows states the LKMM forbids: {:?}\n{t}", tso.difference(&lkmm).collect::<Vec<_>>());
        prop_assert!(!sc.is_empty(), "SC allows no state at all\n{t}");
    }

    #[test]
    fn smp_mb_adds_no_state(
        s in generate::sketch(Config::default()),
        thread in any::<usize>(),
        at in any::<usize>(),
    ) {
        let before = text(&s);
        let after = text(&s.with_mb(thread, at));
        for m in ["sc", "tso", "lkmm"] {
            let (Some((weak, _)), Some((strong, _))) = (states(&before, m), states(&after, m)) else {
                return Err(TestCaseError::reject("a limit stopped a check"));
            };
            prop_assert!(
                strong.is_subset(&weak),
                "{m}: smp_mb() adds states {:?}\nwithout:\n{before}\nwith:\n{after}",
                strong.difference(&weak).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn shuttle_agrees_with_sc(s in generate::sketch(Config::default())) {
        prop_assume!(s.interleavings() <= MAX_INTERLEAVINGS);
        let t = text(&s);
        let Some((sc, axiomatic)) = states(&t, "sc") else {
            return Err(TestCaseError::reject("a limit stopped a check"));
        };
        let program = lower::lower(&hazmat_litmus::parse(&t).expect("generated text parses"))
            .expect("generated programs lower");
        let operational = hazmat_checker::engine::interp::run(&program, &Limits::default())
            .unwrap_or_else(|e| panic!("{}\n{t}", e.message));
        prop_assert!(operational.unknown.is_none());
        let found = named_states(&program, &operational);
        prop_assert_eq!(&found, &sc, "the engines disagree on the states of\n{}", t);
        prop_assert_eq!(
            (operational.positive, operational.negative),
            (axiomatic.positive, axiomatic.negative),
            "the engines disagree on the execution counts of\n{}", t
        );
    }
}

/// The conformance corpus, when present (see the conformance test).
fn conformance_dir() -> Option<std::path::PathBuf> {
    let dir = match std::env::var_os("HAZMAT_CONFORMANCE") {
        Some(d) => std::path::PathBuf::from(d),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance"),
    };
    dir.is_dir().then_some(dir)
}

/// The engines agree on every test of the project's corpus (and of the conformance corpus
/// when present) that the shuttle engine runs in at most `MAX_INTERLEAVINGS` interleavings
/// and that has no spinlock.
/// The conformance corpus is large: by default every tenth file is compared;
/// `HAZMAT_SHUTTLE_CORPUS=all` compares them all.
#[test]
fn shuttle_agrees_with_sc_on_the_corpora() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = hazmat_checker::testkit::harness::litmus_files(root.join("litmus/tests"));
    files.extend(hazmat_checker::testkit::harness::litmus_files(
        root.join("checker/tests"),
    ));
    if let Some(dir) = conformance_dir() {
        let all = std::env::var("HAZMAT_SHUTTLE_CORPUS").is_ok_and(|v| v == "all");
        let step = if all { 1 } else { 10 };
        files.extend(
            hazmat_checker::testkit::harness::litmus_files(dir)
                .into_iter()
                .step_by(step),
        );
    }
    let limits = Limits {
        max_executions: Some(MAX_INTERLEAVINGS),
        deadline: None,
        ..Default::default()
    };
    let (mut compared, mut skipped) = (0, 0);
    for f in &files {
        let Ok(source) = std::fs::read_to_string(f) else {
            continue;
        };
        // As `hazmat check` reads it: herd7's locations next to a variable added.
        let Ok((_, program, _)) =
            hazmat_checker::parse_and_lower(&source, Default::default(), None, Default::default())
        else {
            continue;
        };
        if hazmat_checker::engine::interp::interleavings(&program) > MAX_INTERLEAVINGS {
            skipped += 1;
            continue;
        }
        let operational = match hazmat_checker::engine::interp::run(&program, &limits) {
            Ok(o) if o.unknown.is_none() => o,
            _ => {
                skipped += 1;
                continue;
            }
        };
        let axiomatic = hazmat_checker::engine::decide::run(
            &program,
            &hazmat_checker::models::sc::Sc,
            &options(),
        )
        .unwrap_or_else(|e| panic!("{}: {}", f.display(), e.message));
        assert_eq!(
            named_states(&program, &operational),
            named_states(&program, &axiomatic),
            "{}: the engines disagree on the states",
            f.display()
        );
        assert_eq!(
            (operational.positive, operational.negative),
            (axiomatic.positive, axiomatic.negative),
            "{}: the engines disagree on the execution counts",
            f.display()
        );
        compared += 1;
    }
    eprintln!("shuttle and axiomatic SC agree on {compared} corpus tests ({skipped} skipped)");
    assert!(compared >= 20, "only {compared} corpus tests compared");
}
