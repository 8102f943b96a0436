//! Tests per second on the project's litmus corpus, per model.
//!
//! Each benchmark checks every `litmus/tests/**/*.litmus` file once (parsing, lowering,
//! enumeration and judging); criterion reports the time per pass, and the enumeration
//! counts (candidates judged, partial executions pruned, executions allowed) are printed
//! once per model before measuring.
//! `hazmat bench` measures the same on any set of files, on all cores.

// `criterion_group!` generates a function no doc comment can reach.
#![allow(missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use hazmat_checker::{Options, check_source, model, testkit::harness::litmus_files};

fn corpus(c: &mut Criterion) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../litmus/tests");
    let sources: Vec<String> = litmus_files(dir)
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .collect();
    for name in ["sc", "tso", "lkmm"] {
        let Ok(m) = model(name) else { continue };
        let run = || {
            let mut totals = (0u64, 0u64, 0u64, 0usize);
            for s in &sources {
                if let Ok(checked) = check_source(s, m.as_ref(), &Options::default()) {
                    let st = checked.outcome.stats;
                    totals.0 += st.candidates;
                    totals.1 += st.pruned;
                    totals.2 += st.allowed;
                    totals.3 += 1;
                }
            }
            totals
        };
        let (candidates, pruned, allowed, tests) = run();
        println!(
            "{name}: {tests} tests, {candidates} candidates judged, {pruned} partial executions pruned, {allowed} executions allowed"
        );
        c.bench_function(&format!("corpus/{name}/{tests}-tests"), |b| b.iter(run));
    }
}

criterion_group!(benches, corpus);
criterion_main!(benches);
