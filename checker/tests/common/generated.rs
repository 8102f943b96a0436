//! Generated programs of both of the generator's vocabularies, each with the native models
//! that judge it: the LKMM vocabulary under the LKMM, SC and TSO, herd7's C11 dialect under
//! RC11. Included by the tests that hold two ways of deciding to the same answer
//! (`#[path]`).

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
    use rayon::prelude::*;
    let native = |m: &'static str| (m, hazmat_checker::model(m).expect("a native model"));
    let kernel = [native("lkmm"), native("sc"), native("tso")];
    let c11 = [native("rc11")];
    let vocabularies = [(Config::lkmm(), &kernel[..]), (Config::c11(), &c11[..])];
    // One piece of work per program and model, both vocabularies in one pool: a program
    // that takes long under each model takes no longer than under one.
    let work: Vec<(usize, u64, usize)> = vocabularies
        .iter()
        .enumerate()
        .flat_map(|(v, (_, models))| {
            (seed..seed + cases).flat_map(move |s| (0..models.len()).map(move |m| (v, s, m)))
        })
        .collect();
    work.into_par_iter()
        .map(|(v, s, m)| {
            let (config, models) = &vocabularies[v];
            let program = generate::from_seed(s, config.clone()).to_test(&format!("G{s}"));
            let (name, model) = &models[m];
            f(s, &hazmat_litmus::print(&program), name, model.as_ref());
        })
        .count() as u64
}
