//! Every litmus file of the project is a `cargo test` case per model it states a result for.

fn main() {
    let args = libtest_mimic::Arguments::from_args();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../litmus/tests");
    let trials = hazmat_checker::harness::trials(dir, hazmat_checker::MODELS);
    libtest_mimic::run(&args, trials).exit();
}
