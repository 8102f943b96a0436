//! Partial judgements and the model's vouching change no answer: the enumeration judges a
//! partial execution only at the stages of its search where that has paid so far, and a
//! run that judges at every stage (as one under `max_executions` does) prints the same
//! herd7 output; a run in which the model vouches for the completions of the last stages
//! prints what one that judges each of them whole prints, and one that counts them in
//! groups without building them what one that builds each prints.

use hazmat_checker::engine::enumerate::Limits;
use hazmat_checker::{Checked, Options, check_source, model};

#[path = "common/env.rs"]
mod env;
#[path = "common/generated.rs"]
mod generated;
#[path = "common/two_ways.rs"]
mod two_ways;
#[path = "common/untimed.rs"]
mod untimed;

/// herd7's output without its `Time` line.
fn herd_text(c: &Checked) -> String {
    untimed::untimed(&c.herd_text())
}

/// The whole enumeration, judging partial executions where it pays (`every_stage` false)
/// or at every stage: a limit on candidates, even one never reached, turns the choice off.
/// Every execution is built, as a limit on candidates has it (the symmetry test holds
/// images to built executions).
fn options(every_stage: bool) -> Options {
    Options {
        limits: Limits {
            max_executions: every_stage.then_some(u64::MAX),
            ..Default::default()
        },
        speedcheck: false,
        whole: true,
        every_image: true,
        ..Default::default()
    }
}

/// The output of `text` under `m`, judging where it pays and at every stage (the two on
/// two cores: one generated program takes most of the test's time).
fn both(text: &str, m: &dyn hazmat_checker::models::model::MemoryModel) -> (String, String) {
    let run = |every_stage| match check_source(text, m, &options(every_stage)) {
        Ok(c) => herd_text(&c),
        Err(e) => format!("error: {e}"),
    };
    rayon::join(|| run(false), || run(true))
}

/// Every shipped litmus file, and the kernel's documentation tests when the shared corpus
/// is beside the repository, under the model its folder is judged by.
#[test]
fn the_corpus_is_answered_alike_judging_where_it_pays_and_everywhere() {
    let mut compared = 0;
    for file in two_ways::shipped_and_kernel_doc() {
        let text = std::fs::read_to_string(&file).expect("readable");
        let (paying, everywhere) = both(&text, two_ways::model_for(&file).as_ref());
        assert_eq!(paying, everywhere, "{}", file.display());
        compared += 1;
    }
    assert!(compared > 80, "only {compared} files compared");
}

/// Generated programs of the whole LKMM vocabulary under the LKMM, SC and TSO, and of
/// herd7's C11 dialect under RC11. `HAZMAT_PRUNING_CASES` sets the number of programs of
/// each vocabulary (default 300) and `HAZMAT_PRUNING_SEED` the first seed.
#[test]
fn generated_programs_are_answered_alike_judging_where_it_pays_and_everywhere() {
    let cases = env::number("HAZMAT_PRUNING_CASES", 300);
    let seed = env::number("HAZMAT_PRUNING_SEED", 2_400_000);
    let compared = generated::for_each(cases, seed, |s, text, m, model| {
        let (paying, everywhere) = both(text, model);
        assert_eq!(paying, everywhere, "seed {s} under {m}:\n{text}");
    });
    assert_eq!(compared, cases * 4);
}

/// Four threads that each take a lock word by `xchg_acquire`, write their own variable,
/// read their neighbour's, and release the word: most partial executions the model
/// judges are allowed, so the search stops judging at the late stages, and judges
/// complete candidates it would have cut instead, with the same answer.
#[test]
fn a_search_whose_partial_judgements_do_not_pay_stops_making_them() {
    let mut text = String::from("C xchg-lock-ring\n\n{\n}\n\n");
    let n = 4;
    for t in 0..n {
        let (mine, next) = (format!("v{t}"), format!("v{}", (t + 1) % n));
        text.push_str(&format!(
            "P{t}(int *word, int *{mine}, int *{next})\n{{\n\tint r0;\n\tint r1;\n\n\
             \tr0 = xchg_acquire(word, 1);\n\tWRITE_ONCE(*{mine}, 1);\n\
             \tr1 = READ_ONCE(*{next});\n\tsmp_store_release(word, 0);\n}}\n\n"
        ));
    }
    let all_zero: Vec<String> = (0..n).map(|t| format!("{t}:r1=0")).collect();
    text.push_str(&format!("exists ({})\n", all_zero.join(" /\\ ")));
    let lkmm = model("lkmm").expect("lkmm");
    let paying = check_source(&text, lkmm.as_ref(), &options(false)).expect("decided");
    let everywhere = check_source(&text, lkmm.as_ref(), &options(true)).expect("decided");
    assert_eq!(herd_text(&paying), herd_text(&everywhere));
    assert_eq!(
        paying.outcome.stats.allowed,
        everywhere.outcome.stats.allowed
    );
    assert!(
        paying.outcome.stats.allowed > 1000,
        "{:?}",
        paying.outcome.stats
    );
    // Fewer partial executions cut, so more complete candidates judged.
    let (p, e) = (&paying.outcome.stats, &everywhere.outcome.stats);
    assert!(p.pruned < e.pruned / 2, "{p:?} against {e:?}");
    assert!(p.candidates > e.candidates, "{p:?} against {e:?}");
}

/// The RW release-acquire chain of `n` threads under the speed check: one choice is left
/// at each of its stages, so each is met once, and the one candidate is judged anyway. A
/// partial judgement and a union asked of the model before each stage, each of the whole
/// execution, made the chain of 340 threads take 2.2 s where it now takes 0.08 s; the
/// search now judges no partial execution met once, and asks a union 1, 2, 4, ... stages
/// past one that failed, with the same answer.
#[test]
fn a_search_that_meets_each_stage_once_judges_it_whole_a_few_times() {
    let n = 120;
    let text = hazmat_checker::testkit::generate::families::rw_chain(n);
    let lkmm = model("lkmm").expect("lkmm");
    let options = Options {
        speedcheck: true,
        ..Default::default()
    };
    let c = check_source(&text, lkmm.as_ref(), &options).expect("decided");
    assert!(herd_text(&c).contains(&format!("Observation rw-chain-{n} Never 0 0\n")));
    let s = &c.outcome.stats;
    assert_eq!(s.candidates, 1, "{s:?}");
    assert!(s.partial <= 2, "{s:?}");
    // Unions before the stages 0, 1, 3, 7, 15, 31, 63 at most.
    assert!(s.unions <= 8, "{s:?}");
}

/// Six threads that each read a flag and write one of two variables on the branch it
/// takes: 64 combinations of thread paths with a few candidates each, too few for one
/// combination's search to learn that its partial judgements seldom cut; the searches of
/// the test learn it together, and stop making them.
#[test]
fn the_searches_of_one_test_learn_together_where_partial_judgements_do_not_pay() {
    let mut text = String::from("C branch-ring\n\n{\n}\n\n");
    let n = 6;
    // The flags first, so that their locations' stages come before those of `a` and `b`.
    let flags: Vec<String> = (0..n).map(|t| format!("int *f{t}")).collect();
    let flags = flags.join(", ");
    for t in 0..n {
        let (mine, next) = (format!("f{t}"), format!("f{}", (t + 1) % n));
        text.push_str(&format!(
            "P{t}({flags}, int *a, int *b)\n{{\n\tint r0;\n\n\
             \tWRITE_ONCE(*{mine}, 1);\n\tsmp_mb();\n\tr0 = READ_ONCE(*{next});\n\
             \tif (r0 == 1)\n\t\tWRITE_ONCE(*a, {t});\n\telse\n\t\tWRITE_ONCE(*b, {t});\n}}\n\n"
        ));
    }
    text.push_str("exists (0:r0=0 /\\ 1:r0=0)\n");
    let lkmm = model("lkmm").expect("lkmm");
    let paying = check_source(&text, lkmm.as_ref(), &options(false)).expect("decided");
    let everywhere = check_source(&text, lkmm.as_ref(), &options(true)).expect("decided");
    assert_eq!(herd_text(&paying), herd_text(&everywhere));
    let (p, e) = (&paying.outcome.stats, &everywhere.outcome.stats);
    assert_eq!(p.path_combinations, 64, "{p:?}");
    assert_eq!(p.allowed, e.allowed);
    // Alone, each search would judge all of its partial executions, as `e` does.
    assert!(p.partial * 3 < e.partial * 2, "{p:?} against {e:?}");
}

/// The whole enumeration with the model's vouching for the last stages' completions
/// (`no_vouching` false) or with every complete candidate judged whole.
fn vouching_options(vouching: bool) -> Options {
    Options {
        limits: Limits {
            no_vouching: !vouching,
            ..Default::default()
        },
        speedcheck: false,
        whole: true,
        ..Default::default()
    }
}

/// The output of `text` under `m` with the options `first` and `second`, and the counts of
/// the first run.
fn both_ways(
    text: &str,
    m: &dyn hazmat_checker::models::model::MemoryModel,
    first: &Options,
    second: &Options,
) -> (
    String,
    String,
    Option<hazmat_checker::engine::enumerate::Stats>,
) {
    let run = |options| match check_source(text, m, options) {
        Ok(c) => (herd_text(&c), Some(c.outcome.stats)),
        Err(e) => (format!("error: {e}"), None),
    };
    let ((a, stats), (b, _)) = rayon::join(|| run(first), || run(second));
    (a, b, stats)
}

/// The output of `text` under `m`, with the model's vouching and without it, and the
/// counts of the first.
fn vouched_or_not(
    text: &str,
    m: &dyn hazmat_checker::models::model::MemoryModel,
) -> (
    String,
    String,
    Option<hazmat_checker::engine::enumerate::Stats>,
) {
    both_ways(text, m, &vouching_options(true), &vouching_options(false))
}

/// Every shipped litmus file, and the kernel's documentation tests when the shared corpus
/// is beside the repository, under the model its folder is judged by, with the model's
/// vouching and without.
#[test]
fn the_corpus_is_answered_alike_with_vouching_and_without() {
    let mut compared = 0;
    for file in two_ways::shipped_and_kernel_doc() {
        let text = std::fs::read_to_string(&file).expect("readable");
        let (vouched, whole, _) = vouched_or_not(&text, two_ways::model_for(&file).as_ref());
        assert_eq!(vouched, whole, "{}", file.display());
        compared += 1;
    }
    assert!(compared > 80, "only {compared} files compared");
}

/// Generated programs of the whole LKMM vocabulary under the LKMM, SC and TSO, and of
/// herd7's C11 dialect under RC11, with the model's vouching and without.
/// `HAZMAT_PRUNING_CASES` sets the number of programs of each vocabulary (default 300)
/// and `HAZMAT_PRUNING_SEED` the first seed.
#[test]
fn generated_programs_are_answered_alike_with_vouching_and_without() {
    let cases = env::number("HAZMAT_PRUNING_CASES", 300);
    let seed = env::number("HAZMAT_PRUNING_SEED", 2_500_000);
    let compared = generated::for_each(cases, seed, |s, text, m, model| {
        let (vouched, whole, _) = vouched_or_not(text, model);
        assert_eq!(vouched, whole, "seed {s} under {m}:\n{text}");
    });
    assert_eq!(compared, cases * 4);
}

/// The whole enumeration, with the completions the model vouches for counted in groups
/// without being built (`every_completion` false) or each built, judged and reported.
fn counting_options(counting: bool) -> Options {
    Options {
        speedcheck: false,
        whole: true,
        every_completion: !counting,
        ..Default::default()
    }
}

/// The output of `text` under `m`, with the completions the model vouches for counted
/// and built, and the counts of the first.
fn counted_or_not(
    text: &str,
    m: &dyn hazmat_checker::models::model::MemoryModel,
) -> (
    String,
    String,
    Option<hazmat_checker::engine::enumerate::Stats>,
) {
    both_ways(text, m, &counting_options(true), &counting_options(false))
}

/// Every shipped litmus file, and the kernel's documentation tests when the shared corpus
/// is beside the repository, under the model its folder is judged by, with the vouched
/// completions counted and built.
#[test]
fn the_corpus_is_answered_alike_counting_vouched_completions_and_building_them() {
    let mut compared = 0;
    let mut counted = 0;
    for file in two_ways::shipped_and_kernel_doc() {
        let text = std::fs::read_to_string(&file).expect("readable");
        let (with, without, stats) = counted_or_not(&text, two_ways::model_for(&file).as_ref());
        assert_eq!(with, without, "{}", file.display());
        compared += 1;
        counted += stats.map_or(0, |s| s.counted);
    }
    assert!(compared > 80, "only {compared} files compared");
    assert!(counted > 0, "nothing counted");
}

/// Generated programs of the whole LKMM vocabulary under the LKMM, SC and TSO, and of
/// herd7's C11 dialect under RC11, with the vouched completions counted and built.
/// `HAZMAT_PRUNING_CASES` sets the number of programs of each vocabulary (default 300)
/// and `HAZMAT_PRUNING_SEED` the first seed.
#[test]
fn generated_programs_are_answered_alike_counting_vouched_completions_and_building_them() {
    let cases = env::number("HAZMAT_PRUNING_CASES", 300);
    let seed = env::number("HAZMAT_PRUNING_SEED", 2_600_000);
    let compared = generated::for_each(cases, seed, |s, text, m, model| {
        let (with, without, _) = counted_or_not(text, model);
        assert_eq!(with, without, "seed {s} under {m}:\n{text}");
    });
    assert_eq!(compared, cases * 4);
}

/// A thread that takes two `xchg` locks nested and two identical threads that take one
/// (a smaller `C-ManfredSpraul-L1G2xchg`): the last location is written twice by the
/// first thread and read twice by each of the others, so many candidates are judged
/// under the LKMM's vouching for the completions of a partial execution, and those that
/// read it against coherence by coherence at that location alone, with the same answer.
#[test]
fn the_lkmm_vouches_for_the_completions_of_the_last_reads() {
    let mut text = String::from("C xchg-locks-vouched\n\n{\n}\n\n");
    text.push_str(
        "P0(int *g, int *l, int *gh, int *lh)\n{\n\tint r1; int r2; int r3;\n\n\
         \tr1 = xchg_acquire(l, 1);\n\tr2 = xchg_acquire(g, 1);\n\
         \tr3 = READ_ONCE(*gh);\n\tWRITE_ONCE(*lh, 1);\n\tWRITE_ONCE(*lh, 0);\n\
         \tsmp_store_release(g, 0);\n\tsmp_store_release(l, 0);\n}\n\n",
    );
    for t in 1..3 {
        text.push_str(&format!(
            "P{t}(int *g, int *l, int *gh, int *lh)\n{{\n\tint r1; int r2; int r3;\n\n\
             \tr1 = xchg_acquire(g, 1);\n\tr2 = READ_ONCE(*lh);\n\tr3 = READ_ONCE(*lh);\n\
             \tWRITE_ONCE(*gh, 1);\n\tWRITE_ONCE(*gh, 0);\n\
             \tsmp_store_release(g, 0);\n}}\n\n"
        ));
    }
    text.push_str("exists (0:r3=1 /\\ 0:r1=0 /\\ 0:r2=0 /\\ 1:r1=0 /\\ 2:r1=0)\n");
    let lkmm = model("lkmm").expect("lkmm");
    let (vouched, whole, stats) = vouched_or_not(&text, lkmm.as_ref());
    assert_eq!(vouched, whole);
    assert!(vouched.contains("Never 0 41394"), "{vouched}");
    let stats = stats.expect("decided");
    assert!(stats.vouched * 3 > stats.candidates, "{stats:?}");
    // Counted in groups, their reads of `lh` feeding only registers of their own.
    let (counted, built, stats) = counted_or_not(&text, lkmm.as_ref());
    assert_eq!(counted, built);
    assert_eq!(counted, vouched);
    let stats = stats.expect("decided");
    assert!(stats.counted * 2 > stats.vouched, "{stats:?}");
}
