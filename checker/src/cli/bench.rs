//! `hazmat bench`: tests per second and enumeration counts over litmus files.

use super::expand;
use hazmat_checker::engine::enumerate::Limits;
use hazmat_checker::{Options, check_source, model};
use rayon::prelude::*;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub(crate) struct BenchArgs {
    /// The memory model: lkmm, sc, tso or rc11.
    #[arg(long, default_value = "lkmm")]
    model: String,
    /// Threads checking files in parallel (default: all cores).
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// How many times to check the whole set; the best pass is reported.
    #[arg(long, default_value_t = 3)]
    repeat: u32,
    /// Give up on a test after this many seconds (it then counts as undecided).
    #[arg(long)]
    timeout: Option<f64>,
    /// Decide only the conditions.
    #[arg(long)]
    speedcheck: bool,
    /// Files or directories.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

struct BenchOne {
    file: String,
    seconds: f64,
    stats: Option<hazmat_checker::engine::enumerate::Stats>,
    decided: bool,
}

pub(crate) fn bench(args: BenchArgs) -> u8 {
    let m = match model(&args.model) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("hazmat: error: {e}");
            return 2;
        }
    };
    let files = expand(&args.paths);
    let sources: Vec<(String, String)> = files
        .iter()
        .filter_map(|f| Some((f.display().to_string(), std::fs::read_to_string(f).ok()?)))
        .collect();
    if let Some(j) = args.jobs {
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(j.max(1))
            .build_global();
    }
    let mut best: Option<(f64, Vec<BenchOne>)> = None;
    for _ in 0..args.repeat.max(1) {
        let start = Instant::now();
        let results: Vec<BenchOne> = sources
            .par_iter()
            .map(|(file, src)| {
                let t = Instant::now();
                let options = Options {
                    limits: Limits {
                        max_executions: None,
                        deadline: args
                            .timeout
                            .map(|s| t + Duration::from_secs_f64(s.max(0.0))),
                        ..Default::default()
                    },
                    speedcheck: args.speedcheck,
                    ..Default::default()
                };
                let r = check_source(src, m.as_ref(), &options).ok();
                BenchOne {
                    file: file.clone(),
                    seconds: t.elapsed().as_secs_f64(),
                    decided: r.as_ref().is_some_and(|c| c.outcome.unknown.is_none()),
                    stats: r.map(|c| c.outcome.stats),
                }
            })
            .collect();
        let wall = start.elapsed().as_secs_f64();
        if best.as_ref().is_none_or(|(w, _)| wall < *w) {
            best = Some((wall, results));
        }
    }
    let Some((wall, mut results)) = best else {
        return 0;
    };
    let n = results.len();
    let sum = |f: fn(&hazmat_checker::engine::enumerate::Stats) -> u64| -> u64 {
        results.iter().filter_map(|r| r.stats.as_ref()).map(f).sum()
    };
    let (candidates, pruned, allowed) =
        (sum(|s| s.candidates), sum(|s| s.pruned), sum(|s| s.allowed));
    let cpu: f64 = results.iter().map(|r| r.seconds).sum();
    let decided = results.iter().filter(|r| r.decided).count();
    let errors = results.iter().filter(|r| r.stats.is_none()).count();
    println!(
        "model {}: {n} files, {decided} decided, {errors} errors",
        m.name()
    );
    println!(
        "wall {wall:.3} s (best of {}), {:.1} tests/s; {cpu:.3} s summed over tests",
        args.repeat.max(1),
        n as f64 / wall
    );
    println!(
        "candidates judged {candidates}, partial executions pruned {pruned}, executions allowed {allowed}"
    );
    results.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
    println!("slowest:");
    for r in results.iter().take(10) {
        println!("  {:>8.3} s  {}", r.seconds, r.file);
    }
    0
}
