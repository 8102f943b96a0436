//! Counts what the parser finds in a corpus: `cargo run --example stats -- DIR`.

use std::collections::BTreeMap;

fn main() {
    let mut files = Vec::new();
    for arg in std::env::args().skip(1) {
        files.extend(hazmat_litmus::litmus_files(arg));
    }
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap_or_default();
        let Ok(t) = hazmat_litmus::parse(&src) else {
            continue;
        };
        for e in &t.expectations {
            *counts
                .entry(format!(
                    "result {:?} {:?} {:?}",
                    e.model, e.outcome, e.flags
                ))
                .or_default() += 1;
        }
        *counts
            .entry(format!("expectations per file {}", t.expectations.len()))
            .or_default() += 1;
        for l in &t.info {
            let key = l
                .key_value()
                .map_or(format!("info line without = `{}`", l.text), |(k, _)| {
                    format!("info {k}")
                });
            *counts.entry(key).or_default() += 1;
        }
        if t.doc.is_some() {
            *counts.entry("doc".into()).or_default() += 1;
        }
        for i in &t.init {
            *counts
                .entry(format!(
                    "init {:?} {:?}",
                    i.ty.as_ref().map(|t| (&t.base, t.pointers)),
                    i.value.as_ref().map(std::mem::discriminant)
                ))
                .or_default() += 1;
        }
    }
    for (k, v) in counts {
        println!("{v:6} {k}");
    }
}
