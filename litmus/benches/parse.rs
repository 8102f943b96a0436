//! Parsing speed: the whole conformance corpus, when present, and the project's fixture.
//!
//! The corpus is found through `$HAZMAT_CONFORMANCE`, else `../../shared/conformance` from
//! this package; without it only the fixture is measured.
//! Run with `cargo bench -p hazmat-litmus --bench parse`.

// criterion_group! defines an undocumented function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn corpus() -> Option<Vec<String>> {
    let dir = match std::env::var_os("HAZMAT_CONFORMANCE") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance"),
    };
    let sources: Vec<String> = hazmat_litmus::litmus_files(&dir)
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .collect();
    (!sources.is_empty()).then_some(sources)
}

fn bench(c: &mut Criterion) {
    let fixture = include_str!("../fixtures/every-construct.litmus");
    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Bytes(fixture.len() as u64));
    group.bench_function("fixture", |b| {
        b.iter(|| hazmat_litmus::parse(black_box(fixture)))
    });
    match corpus() {
        Some(sources) => {
            let bytes: usize = sources.iter().map(String::len).sum();
            eprintln!("conformance corpus: {} files, {bytes} bytes", sources.len());
            group.throughput(Throughput::Bytes(bytes as u64));
            group.sample_size(20);
            group.bench_function("conformance corpus", |b| {
                b.iter(|| {
                    for s in &sources {
                        let _ = black_box(hazmat_litmus::parse(black_box(s)));
                    }
                })
            });
            let tests: Vec<_> = sources
                .iter()
                .filter_map(|s| hazmat_litmus::parse(s).ok())
                .collect();
            group.bench_function("print conformance corpus", |b| {
                b.iter(|| {
                    for t in &tests {
                        black_box(hazmat_litmus::print(black_box(t)));
                    }
                })
            });
        }
        None => eprintln!("conformance corpus not found; set HAZMAT_CONFORMANCE to measure it"),
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
