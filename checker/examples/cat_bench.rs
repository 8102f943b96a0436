//! The interpreted LKMM against the native one and herd7, on one thread, over a folder of
//! the conformance corpus (`paulmck-luc` unless named): the total time of each, herd7's
//! time as one process over the same files in the same run (when the oracle is found,
//! through `$HAZMAT_ORACLE` or `../shared/oracle/herd7`), herd7's total from the folder's
//! `herd7.tsv`, the ratios, and the interpreter's slowest files.
//!
//! ```sh
//! cargo run --release -p hazmat-checker --example cat_bench -- [FOLDER]
//! ```
//!
//! The corpus is found through `$HAZMAT_CONFORMANCE` (or `../shared/conformance` from the
//! workspace root), herd7's library through `$HAZMAT_HERDLIB` (or
//! `../shared/oracle/herd`).

use hazmat_checker::models::cat::config::{Places, Settings};
use hazmat_checker::models::cat::files::Disk;
use hazmat_checker::models::cat::{Library, Spec, load};
use hazmat_checker::models::model::MemoryModel;
use std::path::{Path, PathBuf};
use std::time::Instant;

fn env_dir(var: &str, default: &str) -> PathBuf {
    std::env::var_os(var).map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join(default),
        PathBuf::from,
    )
}

/// Each file's time and whether it was decided.
fn run(model: &dyn MemoryModel, files: &[(PathBuf, String)]) -> (f64, Vec<(f64, String, bool)>) {
    let start = Instant::now();
    let mut each = Vec::new();
    for (path, source) in files {
        let t = Instant::now();
        let options = hazmat_checker::Options {
            limits: hazmat_checker::engine::enumerate::Limits {
                max_executions: None,
                deadline: Some(t + std::time::Duration::from_secs(60)),
                ..Default::default()
            },
            speedcheck: false,
            ..Default::default()
        };
        let decided = hazmat_checker::check_source(source, model, &options)
            .is_ok_and(|c| c.outcome.unknown.is_none());
        each.push((
            t.elapsed().as_secs_f64(),
            path.display().to_string(),
            decided,
        ));
    }
    (start.elapsed().as_secs_f64(), each)
}

fn main() {
    let folder = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "paulmck-luc".into());
    let root = env_dir("HAZMAT_CONFORMANCE", "../../shared/conformance");
    let herdlib = env_dir("HAZMAT_HERDLIB", "../../shared/oracle/herd");
    let dir = root.join(&folder);
    let model_dir = root.join("lkmm-model");
    if !model_dir.join("linux-kernel.cfg").is_file() {
        eprintln!("no corpus at {}", root.display());
        return;
    }
    let mut cfg = Settings::default();
    cfg.read_config(
        &model_dir.join("linux-kernel.cfg").display().to_string(),
        &Places::default(),
        &Disk,
    )
    .expect("the kernel's cfg reads");
    let spec = Spec {
        cat: cfg.model.expect("a model"),
        bell: cfg.bell,
        variants: cfg.variants,
        ..Default::default()
    };
    let library = Library::new().include(&model_dir).include(&herdlib);
    let interpreted = match load(&library, &Disk, &spec) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{}", e.render());
            return;
        }
    };
    let files: Vec<(PathBuf, String)> = hazmat_checker::testkit::harness::litmus_files(&dir)
        .into_iter()
        .filter_map(|f| Some((f.clone(), std::fs::read_to_string(&f).ok()?)))
        .collect();
    let herd: f64 = std::fs::read_to_string(dir.join("herd7.tsv"))
        .unwrap_or_default()
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').nth(6)?.parse::<f64>().ok())
        .sum();
    // The best of `HAZMAT_BENCH_REPEAT` runs of each (1 unless set), against the noise of
    // a shared machine.
    let repeat: usize = std::env::var("HAZMAT_BENCH_REPEAT")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(1)
        .max(1);
    let best = |model: &dyn MemoryModel| {
        (0..repeat)
            .map(|_| run(model, &files))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .expect("at least one run")
    };
    let (native, _) = best(&hazmat_checker::models::lkmm::Lkmm);
    let (interp, mut each) = best(&interpreted);
    let oracle = std::env::var_os("HAZMAT_ORACLE").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/oracle/herd7"),
        PathBuf::from,
    );
    let one_process = oracle.is_file().then(|| {
        let t = Instant::now();
        let status = std::process::Command::new(&oracle)
            .arg("-I")
            .arg(&model_dir)
            .args(["-conf", "linux-kernel.cfg"])
            .args(files.iter().map(|(f, _)| f))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
        (t.elapsed().as_secs_f64(), status.is_ok_and(|s| s.success()))
    });
    let undecided = each.iter().filter(|e| !e.2).count();
    println!("{folder}: {} files, one thread", files.len());
    println!("herd7 (its Time lines, summed): {herd:.3} s");
    match one_process {
        Some((t, ok)) => {
            println!(
                "herd7, one process, this run: {t:.3} s{}",
                if ok { "" } else { " (it failed)" }
            );
            println!(
                "  native {:.1}x faster, interpreted {:.1}x faster",
                t / native,
                t / interp
            );
        }
        None => println!(
            "herd7 not found at {}: no same-run baseline",
            oracle.display()
        ),
    }
    println!(
        "native LKMM:      {native:.3} s  ({:.1}x faster than herd7)",
        herd / native
    );
    println!(
        "interpreted LKMM: {interp:.3} s  ({:.1}x faster than herd7; {undecided} undecided)",
        herd / interp
    );
    each.sort_by(|a, b| b.0.total_cmp(&a.0));
    println!("interpreter's slowest files:");
    for (t, f, _) in each.iter().take(8) {
        println!("  {t:>8.3} s  {f}");
    }
}
