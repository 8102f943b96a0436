//! A search shared out among threads changes no answer: every test is answered alike when
//! its search runs on one thread and when it is split into nodes searched by several, and
//! the error a test stops with is the one the search on one thread meets first.

use hazmat_checker::engine::enumerate::{Limits, Split};
use hazmat_checker::models::model::MemoryModel;
use hazmat_checker::{Options, check_source, model};

#[path = "common/env.rs"]
mod env;
#[path = "common/generated.rs"]
mod generated;
#[path = "common/two_ways.rs"]
mod two_ways;
#[path = "common/untimed.rs"]
mod untimed;

/// herd7's output for `text` under `m` (or the error), the allowed executions and the nodes
/// searched, on a pool of `threads` threads, split as `split` says.
fn answer(
    text: &str,
    m: &dyn MemoryModel,
    threads: usize,
    split: Split,
    every_image: bool,
) -> (String, u64, u64) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool");
    let options = Options {
        limits: Limits {
            split,
            ..Default::default()
        },
        every_image,
        ..Default::default()
    };
    pool.install(|| match check_source(text, m, &options) {
        Ok(c) => (
            untimed::untimed(&c.herd_text()),
            c.outcome.stats.allowed,
            c.outcome.stats.nodes,
        ),
        Err(e) => (format!("error: {e} ({e:?})"), 0, 0),
    })
}

/// Compares the answer on one thread with the answers split among 2 and 3 threads;
/// returns the nodes of the split runs.
fn compare(text: &str, m: &dyn MemoryModel, every_image: bool, what: &str) -> u64 {
    let (one, allowed, nodes) = answer(text, m, 1, Split::Always, every_image);
    assert_eq!(nodes, 0, "one thread split {what}");
    let mut split_nodes = 0;
    for threads in [2, 3] {
        let (many, many_allowed, n) = answer(text, m, threads, Split::Always, every_image);
        assert_eq!(one, many, "{what} on {threads} threads");
        assert_eq!(allowed, many_allowed, "{what} on {threads} threads");
        split_nodes += n;
    }
    split_nodes
}

/// Every shipped litmus file, and the kernel's documentation tests when the shared corpus
/// is beside the repository.
#[test]
fn the_corpus_is_answered_alike_on_one_thread_and_split() {
    let files = two_ways::shipped_and_kernel_doc();
    let mut split = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        let what = f.display().to_string();
        split += usize::from(compare(&text, two_ways::model_for(f).as_ref(), false, &what) > 0);
    }
    eprintln!("{} files, {split} split", files.len());
    assert!(split * 2 >= files.len(), "only {split} files were split");
}

/// Generated programs of both vocabularies under the native models of each, half of them
/// with every execution built. `HAZMAT_SPLIT_CASES` sets the number of programs of each
/// vocabulary (default 150) and `HAZMAT_SPLIT_SEED` the first seed.
#[test]
fn generated_programs_are_answered_alike_on_one_thread_and_split() {
    let cases = env::number("HAZMAT_SPLIT_CASES", 150u64);
    let seed = env::number("HAZMAT_SPLIT_SEED", 3_100_000u64);
    let split_runs = std::sync::atomic::AtomicU64::new(0);
    // Each run splits its search among the threads of a pool of its own (`answer`), so
    // the programs can be judged on every core at once.
    let runs = generated::for_each(cases, seed, |s, text, name, m| {
        let what = format!("seed {s} under {name}:\n{text}");
        let was_split = compare(text, m, s % 2 == 0, &what) > 0;
        split_runs.fetch_add(u64::from(was_split), std::sync::atomic::Ordering::Relaxed);
    });
    let split = split_runs.into_inner();
    eprintln!("{runs} runs, {split} split");
    assert!(split * 2 >= runs, "only {split} of {runs} runs were split");
}

/// Every execution needs a division by zero, whose message names the value read first:
/// the test stops with the error the search on one thread meets first, however it is
/// split. (Which nodes the threads search before one stops depends on timing; the order
/// the nodes are put back in is held by the unit tests of `enumerate::split`.)
#[test]
fn the_first_error_is_the_one_met_on_one_thread() {
    let text = r#"C errors
{ x = 0; y = 0; }
P0(int *x, int *y)
{
    int r0; int r1; int r2;
    r0 = READ_ONCE(*x);
    r1 = READ_ONCE(*y);
    r2 = (r0 + 10) / (r1 - r1);
}
P1(int *x, int *y)
{
    WRITE_ONCE(*x, 1);
    WRITE_ONCE(*x, 2);
    WRITE_ONCE(*y, 1);
}
P2(int *x, int *y)
{
    WRITE_ONCE(*x, 3);
    WRITE_ONCE(*y, 2);
}
exists (0:r0=1)
"#;
    let lkmm = model("lkmm").expect("lkmm");
    let (one, _, _) = answer(text, lkmm.as_ref(), 1, Split::Always, false);
    assert!(one.starts_with("error: division by zero"), "{one}");
    for threads in [2, 3, 4] {
        for _ in 0..5 {
            let (many, _, _) = answer(text, lkmm.as_ref(), threads, Split::Always, false);
            assert_eq!(one, many, "on {threads} threads");
        }
    }
    // With an operator that always has a meaning, the same program is split.
    let total = text.replace(" / ", " * ");
    let (_, _, nodes) = answer(&total, lkmm.as_ref(), 2, Split::Always, false);
    assert!(nodes > 1, "split into {nodes} nodes");
}
