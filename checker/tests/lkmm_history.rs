//! The kernel's memory model at every version it shipped, against herd7.
//!
//! `tests/lkmm-history/` holds the model files (`linux-kernel.{cat,bell,def,cfg}`,
//! `lock.cat`) of each distinct version of the kernel's `tools/memory-model/` whose files
//! could be had exactly, from 2018 to today (its README gives each file's provenance by
//! blob id, and names the versions missing).
//! Under each version, hazmat's two command lines (`hazmat check --interpret --conf
//! linux-kernel.cfg` and `hazmat herd7 -conf linux-kernel.cfg`) must print herd7's whole
//! output (`Time` aside, compared through `report::read`) for a fixed sample of the shared
//! conformance corpus: every `HAZMAT_HISTORY_STRIDE`-th file of the sorted list (64 unless
//! set, leaving out the tests herd7 takes over a second for under the current model;
//! `HAZMAT_HISTORY_STRIDE=4` runs the full sample, 984 tests a version, slow ones
//! included). Each test gets `HAZMAT_HISTORY_TIMEOUT` seconds (20); tests herd7 does not
//! decide in that time are skipped and counted. `HAZMAT_HISTORY_VERSION=NAME` runs one
//! version. herd7 is `$HAZMAT_ORACLE` or `../shared/oracle/herd7`.
//!
//! The model library the files include (`cross.cat`, `cos-opt.cat`) is hazmat's own,
//! built in: no herd7 file is on hazmat's path, and `HERDLIB` is unset for it
//! (`HAZMAT_HISTORY_LIBRARY=herd7` runs with herd7's library on the path instead).
//!
//! `tests/lkmm-history/regressions/VERSION/` holds the disagreements found, each a litmus
//! file with herd7's whole output beside it (`FILE.litmus.expected`): they run without
//! herd7, under their version, through both command lines.
//! Without the shared folder the tests pass having checked nothing, and say so.

#[path = "common/cat_oracle.rs"]
mod cat_oracle;
#[path = "common/corpus.rs"]
mod corpus;
#[path = "common/env.rs"]
mod env;
#[path = "common/history.rs"]
mod history;

use cat_oracle::{compare, herd7, kept_answer};
use history::{Runner, Tool, Version, versions};
use std::path::{Path, PathBuf};

/// The versions to run: all, or the one `HAZMAT_HISTORY_VERSION` names.
fn chosen() -> Vec<Version> {
    let all = versions();
    assert!(all.len() >= 11, "the versions' folders: {}", all.len());
    match std::env::var("HAZMAT_HISTORY_VERSION") {
        Ok(name) if !name.is_empty() => {
            let one: Vec<Version> = all.into_iter().filter(|v| v.name == name).collect();
            assert!(!one.is_empty(), "no version {name}");
            one
        }
        _ => all,
    }
}

fn runner(herd7: PathBuf) -> Runner {
    Runner {
        library: history::library(&herd7),
        herd7,
        hazmat: PathBuf::from(env!("CARGO_BIN_EXE_hazmat")),
        timeout: env::number("HAZMAT_HISTORY_TIMEOUT", 20.0),
    }
}

#[test]
fn every_version_agrees_with_herd7_on_the_sample() {
    let (Some(root), Some(herd7)) = (corpus::conformance_dir(), herd7()) else {
        eprintln!("the conformance corpus or herd7 is absent; nothing checked");
        return;
    };
    let stride: usize = env::number("HAZMAT_HISTORY_STRIDE", 64);
    let mut files = history::sample(&history::corpus_files(&root), stride);
    if stride > 4 {
        // The quick sample: the tests herd7 decides within a second under today's model.
        let quick: Vec<PathBuf> = corpus::load_cases(&root)
            .unwrap_or_else(|e| panic!("{e}"))
            .into_iter()
            .filter(|c| c.herd_time <= 1.0)
            .map(|c| c.file)
            .collect();
        files.retain(|f| quick.contains(f));
    }
    let runner = runner(herd7);
    // The versions on every core: each runs herd7 and hazmat one file after the other.
    use rayon::prelude::*;
    let reports: Vec<(String, Vec<String>)> = chosen()
        .into_par_iter()
        .map(|version| {
            let start = std::time::Instant::now();
            let tally = history::compare_version(&runner, &version, &files);
            let line = format!(
                "{}: {} tests (every {stride}th): {} decided by herd7, {} refused by both, {} \
                 not decided by herd7 in {}s (skipped); {} disagreements, in {:.1?}",
                version.name,
                files.len(),
                tally.decided,
                tally.refused,
                tally.undecided,
                runner.timeout,
                tally.disagreements.len(),
                start.elapsed()
            );
            let failures = tally
                .disagreements
                .into_iter()
                .map(|(file, tool, d)| {
                    format!(
                        "{}: {} ({}): {d}",
                        version.name,
                        file.strip_prefix(&root).unwrap_or(&file).display(),
                        tool.name()
                    )
                })
                .collect();
            (line, failures)
        })
        .collect();
    let mut failures = Vec::new();
    for (line, f) in reports {
        eprintln!("{line}");
        failures.extend(f);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The regression files of one version: each litmus file with its `.expected`.
fn regressions(version: &Version) -> Vec<(PathBuf, String)> {
    let dir = history::versions_dir()
        .join("regressions")
        .join(&version.name);
    hazmat_checker::testkit::harness::litmus_files(&dir)
        .into_iter()
        .filter_map(|f| {
            let expected = std::fs::read_to_string(format!("{}.expected", f.display())).ok()?;
            Some((f, expected))
        })
        .collect()
}

#[test]
fn the_regressions_print_herd7s_outputs() {
    let library = history::library(&herd7().unwrap_or_default());
    let runner = Runner {
        herd7: PathBuf::new(),
        hazmat: PathBuf::from(env!("CARGO_BIN_EXE_hazmat")),
        library,
        timeout: 60.0,
    };
    let mut failures = Vec::new();
    let mut count = 0;
    for version in versions() {
        let cases = regressions(&version);
        let files: Vec<PathBuf> = cases.iter().map(|(f, _)| f.clone()).collect();
        for tool in [Tool::Check, Tool::HazmatHerd7] {
            let ours = runner.run(tool, &version.dir, &files);
            for ((file, expected), answer) in cases.iter().zip(&ours) {
                count += 1;
                let theirs = kept_answer(file, expected);
                if let Some(d) = compare(answer, &theirs) {
                    failures.push(format!("{} ({}): {d}", rel(file), tool.name()));
                }
            }
        }
    }
    eprintln!("{count} regression runs, {} failed", failures.len());
    assert!(count >= 8, "the regression files: {count} runs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn rel(file: &Path) -> String {
    file.strip_prefix(history::versions_dir())
        .unwrap_or(file)
        .display()
        .to_string()
}
