//! Counting piece by piece gives what enumerating the whole test gives.
//!
//! A test whose threads form a pipeline (see `hazmat_checker`'s `pieces` module) is
//! counted one piece at a time; these tests hold that count to the whole enumeration's,
//! output for output, on generated programs of the LKMM's vocabulary (those that split),
//! under the LKMM, SC and TSO, and on the value chains of the growth benchmark.
//! `HAZMAT_PIECES_CASES` sets the number of generated programs (default 3000) and
//! `HAZMAT_PIECES_SEED` the first seed.

use hazmat_checker::testkit::generate::{self, Class, Config, families};
use hazmat_checker::{Options, check_source};

#[path = "common/untimed.rs"]
mod untimed;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The generator's LKMM vocabulary without what never splits (plain accesses, locks, RCU,
/// SRCU, pointers, computed addresses, loops and filters), over more variables, so that
/// many programs split.
pub fn config() -> Config {
    use Class::*;
    Config {
        max_vars: 5,
        without: vec![
            Plain,
            Lock,
            TryLock,
            IsLocked,
            LockFinal,
            Rcu,
            Srcu,
            RcuPointer,
            Pointer,
            AddrDep,
            Loop,
            Filter,
            FenceSpinlock,
            FenceUnlockLock,
            FenceSrcu,
        ],
        ..Config::lkmm()
    }
}

/// The whole output and the piece count of `text` under `model`, split or whole.
fn run(
    text: &str,
    model: &dyn hazmat_checker::models::model::MemoryModel,
    whole: bool,
) -> (String, usize) {
    let options = Options {
        whole,
        ..Default::default()
    };
    match check_source(text, model, &options) {
        Ok(c) => (c.herd_text(), c.outcome.pieces),
        Err(e) => (format!("error: {e}"), 0),
    }
}

/// The `Time` line varies.
fn without_time(text: &str) -> String {
    untimed::untimed(text)
}

#[test]
fn generated_programs_that_split_count_as_the_whole() {
    let cases = env("HAZMAT_PIECES_CASES", 3000);
    let seed = env("HAZMAT_PIECES_SEED", 910_000);
    let config = config();
    let models: [(&str, &dyn hazmat_checker::models::model::MemoryModel); 3] = [
        ("lkmm", &hazmat_checker::models::lkmm::Lkmm),
        ("sc", &hazmat_checker::models::sc::Sc),
        ("tso", &hazmat_checker::models::tso::Tso),
    ];
    let mut split = 0;
    let mut by_model = [0; 3];
    for s in seed..seed + cases {
        let name = format!("G{s}");
        let text = hazmat_litmus::print(&generate::from_seed(s, config.clone()).to_test(&name));
        for (k, (m, model)) in models.into_iter().enumerate() {
            let (pieces_out, pieces) = run(&text, model, false);
            if pieces <= 1 {
                continue;
            }
            split += 1;
            by_model[k] += 1;
            let (whole_out, _) = run(&text, model, true);
            assert_eq!(
                without_time(&pieces_out),
                without_time(&whole_out),
                "seed {s} under {m}, counted in {pieces} pieces:\n{text}"
            );
        }
    }
    // The property is only as good as the programs that split.
    assert!(
        split * 5 >= cases,
        "only {split} of {} runs split",
        cases * 3
    );
    eprintln!(
        "{split} of {} runs split (of {cases} programs: {} under the LKMM, {} under SC, {} under TSO)",
        cases * 3,
        by_model[0],
        by_model[1],
        by_model[2]
    );
}

#[test]
fn value_chains_count_as_the_whole() {
    for n in 1..=12 {
        let text = families::value_chain(n);
        let (pieces_out, pieces) = run(&text, &hazmat_checker::models::lkmm::Lkmm, false);
        assert_eq!(pieces, n + 2, "value chain {n}");
        let (whole_out, whole) = run(&text, &hazmat_checker::models::lkmm::Lkmm, true);
        assert_eq!(whole, 1);
        assert_eq!(
            without_time(&pieces_out),
            without_time(&whole_out),
            "value chain {n}"
        );
    }
}

#[test]
fn a_long_value_chain_is_counted_in_full() {
    // 2^101 executions, of which one writes 1 to y.
    let text = families::value_chain(100);
    let (out, pieces) = run(&text, &hazmat_checker::models::lkmm::Lkmm, false);
    assert_eq!(pieces, 102);
    let total: u128 = 1 << 101;
    assert!(
        out.contains(&format!("Positive: 1 Negative: {}\n", total - 1)),
        "{out}"
    );
}

#[test]
fn a_count_of_exactly_two_to_the_128_is_not_mistaken_for_none() {
    // 2^128 executions: the negative count is u128::MAX, and the total does not fit (a
    // first version summed the two counts, wrapped to 0 and fell back to enumerating).
    let text = families::value_chain(127);
    let (out, pieces) = run(&text, &hazmat_checker::models::lkmm::Lkmm, false);
    assert_eq!(pieces, 129);
    assert!(
        out.contains(&format!("Positive: 1 Negative: {}\n", u128::MAX)),
        "{out}"
    );
}

#[test]
fn a_count_past_u128_is_a_located_error() {
    // 2^201 executions.
    let text = families::value_chain(200);
    let (out, _) = run(&text, &hazmat_checker::models::lkmm::Lkmm, false);
    assert!(
        out.starts_with("error: the test has more than 340282366920938463463374607431768211455 allowed executions"),
        "{out}"
    );
    let Err(err) = check_source(
        &text,
        &hazmat_checker::models::lkmm::Lkmm,
        &Options::default(),
    ) else {
        panic!("a count past u128 was not refused");
    };
    let rendered = err.render("chain.litmus", &text);
    // The first instruction of the piece past which a count overflows: P129's read.
    let line = text
        .lines()
        .position(|l| l.contains("r0 = READ_ONCE(*x128);"))
        .expect("P129 reads x128")
        + 1;
    assert!(
        rendered.starts_with(&format!("chain.litmus:{line}:")),
        "{rendered}"
    );
}
