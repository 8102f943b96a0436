//! Generated programs of both of the generator's vocabularies, each with the native models
//! that judge it: the LKMM vocabulary under the LKMM, SC and TSO, herd7's C11 dialect under
//! RC11. Included by the tests that hold two ways of deciding to the same answer
//! (`#[path]`).

use hazmat_checker::models::model::MemoryModel;
use hazmat_checker::testkit::generate::{self, Config};

/// Calls `f` with the seed, the printed program and the model's name and model, for
/// `cases` programs of each vocabulary from `seed` on, under each model that judges it;
/// returns the number of calls (`cases * 4`).
pub(crate) fn for_each(
    cases: u64,
    seed: u64,
    mut f: impl FnMut(u64, &str, &str, &dyn MemoryModel),
) -> u64 {
    let native = |m: &'static str| (m, hazmat_checker::model(m).expect("a native model"));
    let kernel = [native("lkmm"), native("sc"), native("tso")];
    let c11 = [native("rc11")];
    let mut calls = 0;
    for (config, models) in [(Config::lkmm(), &kernel[..]), (Config::c11(), &c11[..])] {
        for s in seed..seed + cases {
            let name = format!("G{s}");
            let text = hazmat_litmus::print(&generate::from_seed(s, config.clone()).to_test(&name));
            for (m, model) in models {
                f(s, &text, m, model.as_ref());
                calls += 1;
            }
        }
    }
    calls
}
