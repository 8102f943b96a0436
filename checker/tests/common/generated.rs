//! Generated programs of both of the generator's vocabularies, each with the native models
//! that judge it: the LKMM vocabulary under the LKMM, SC and TSO, herd7's C11 dialect under
//! RC11. Included by the tests that hold two ways of deciding to the same answer
//! (`#[path]`).

#![allow(dead_code, reason = "each includer uses part of the module")]

use hazmat_checker::models::model::MemoryModel;
use hazmat_checker::testkit::generate::{self, Config};

/// Calls `f` with the seed, the printed program and the model's name and model, for
/// `cases` programs of each vocabulary from `seed` on, under each model that judges it;
/// returns the number of calls (`cases * 4`).
/// The programs are judged on every core (rayon's pool), so `f` is called from several
/// threads at once; a panic in one stops the test with its message.
pub(crate) fn for_each(
    cases: u64,
    seed: u64,
    f: impl Fn(u64, &str, &str, &dyn MemoryModel) + Sync,
) -> u64 {
    run(cases, seed, true, f)
}

/// [`for_each`] one program after the other, for a test whose runs use the cores
/// themselves.
pub(crate) fn for_each_in_turn(
    cases: u64,
    seed: u64,
    f: impl Fn(u64, &str, &str, &dyn MemoryModel) + Sync,
) -> u64 {
    run(cases, seed, false, f)
}

fn run(
    cases: u64,
    seed: u64,
    parallel: bool,
    f: impl Fn(u64, &str, &str, &dyn MemoryModel) + Sync,
) -> u64 {
    use rayon::prelude::*;
    let native = |m: &'static str| (m, hazmat_checker::model(m).expect("a native model"));
    let kernel = [native("lkmm"), native("sc"), native("tso")];
    let c11 = [native("rc11")];
    let mut calls = 0;
    for (config, models) in [(Config::lkmm(), &kernel[..]), (Config::c11(), &c11[..])] {
        let one = |s: u64| {
            let name = format!("G{s}");
            let program = generate::from_seed(s, config.clone()).to_test(&name);
            let text = hazmat_litmus::print(&program);
            for (m, model) in models {
                f(s, &text, m, model.as_ref());
            }
            models.len() as u64
        };
        calls += if parallel {
            (seed..seed + cases).into_par_iter().map(one).sum::<u64>()
        } else {
            (seed..seed + cases).map(one).sum::<u64>()
        };
    }
    calls
}
