//! Every litmus file of the project is a `cargo test` case per model it states a result for,
//! and one more when herd7's whole output is kept beside it (`FILE.litmus.expected`).
//! The tests herd7 refuses, which hazmat must refuse too, live out of the shipped corpus in
//! `litmus/fixtures/refused/`, each with herd7's refusal beside it.

fn main() {
    let args = libtest_mimic::Arguments::from_args();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../litmus/tests");
    let refused = concat!(env!("CARGO_MANIFEST_DIR"), "/../litmus/fixtures/refused");
    let mut trials = hazmat_checker::testkit::harness::trials(dir, hazmat_checker::MODELS);
    trials.extend(hazmat_checker::testkit::harness::expected_trials(dir));
    trials.extend(hazmat_checker::testkit::harness::expected_trials(refused));
    libtest_mimic::run(&args, trials).exit();
}
