//! hazmat beside herd7, in one run: for each folder of the conformance corpus named
//! (`paulmck-luc` and `herdtools-catalogue` unless named), herd7 7.58 as one process over
//! the folder's files, then hazmat over the same files with the native LKMM and with the
//! cat interpreter running the kernel's model files, each on one thread and on two, the
//! interpreter with hazmat's own library (as a kernel tree alone runs) and, on one thread,
//! with herd7's on the path; it prints each time and its ratio to herd7's.
//!
//! ```sh
//! cargo run --release -p hazmat-checker --example side_by_side -- [FOLDER...]
//! ```
//!
//! Each hazmat time is the best of `HAZMAT_BENCH_REPEAT` passes (3 unless set), each file
//! checked as `hazmat check` checks it, its own parse and herd7's text included (the files
//! are read beforehand; herd7 reads its own); herd7 runs once per folder, since it takes
//! seconds.
//! The corpus is found through `$HAZMAT_CONFORMANCE` (or `../shared/conformance` from the
//! workspace root), herd7 through `$HAZMAT_ORACLE` (or `../shared/oracle/herd7`) and its
//! library through `$HAZMAT_HERDLIB` (or `../shared/oracle/herd`).
//! Times of one run compare; those of two runs on a shared machine do not.
//! The example allocates with the `hazmat` binary's allocator, so that its times are the
//! binary's.

use hazmat_checker::models::cat::config::{Places, Settings};
use hazmat_checker::models::cat::files::Disk;
use hazmat_checker::models::cat::{Library, Spec, load};
use hazmat_checker::models::model::MemoryModel;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn env_dir(var: &str, default: &str) -> PathBuf {
    std::env::var_os(var).map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join(default),
        PathBuf::from,
    )
}

/// The wall time of checking every file with `model` on `jobs` threads, and how many files
/// were decided.
fn pass(model: &dyn MemoryModel, files: &[String], jobs: usize) -> (f64, usize) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .expect("a thread pool");
    pool.install(|| {
        let start = Instant::now();
        let decided = files
            .par_iter()
            .filter(|source| {
                // herd7 prints its output; so does `hazmat check`: the text is made here.
                hazmat_checker::check_source(source, model, &hazmat_checker::Options::default())
                    .is_ok_and(|c| !c.herd_text().is_empty() && c.outcome.unknown.is_none())
            })
            .count();
        (start.elapsed().as_secs_f64(), decided)
    })
}

/// herd7's wall time as one process over `paths`, or why there is none.
fn herd7(oracle: &Path, model_dir: &Path, paths: &[PathBuf]) -> Result<f64, String> {
    if !oracle.is_file() {
        return Err(format!("herd7 not found at {}", oracle.display()));
    }
    let start = Instant::now();
    let status = std::process::Command::new(oracle)
        .arg("-I")
        .arg(model_dir)
        .args(["-conf", "linux-kernel.cfg"])
        .args(paths)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map_err(|e| format!("herd7 did not run: {e}"))?;
    let wall = start.elapsed().as_secs_f64();
    if status.success() {
        Ok(wall)
    } else {
        Err(format!("herd7 failed ({status}) after {wall:.3} s"))
    }
}

fn main() {
    let mut folders: Vec<String> = std::env::args().skip(1).collect();
    if folders.is_empty() {
        folders = vec!["paulmck-luc".into(), "herdtools-catalogue".into()];
    }
    let root = env_dir("HAZMAT_CONFORMANCE", "../../shared/conformance");
    let herdlib = env_dir("HAZMAT_HERDLIB", "../../shared/oracle/herd");
    let oracle = env_dir("HAZMAT_ORACLE", "../../shared/oracle/herd7");
    let model_dir = root.join("lkmm-model");
    if !model_dir.join("linux-kernel.cfg").is_file() {
        eprintln!("no corpus at {}: nothing measured", root.display());
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
        ..Spec::default()
    };
    // The kernel's files with hazmat's own library, as `hazmat check --conf
    // linux-kernel.cfg` runs them from a kernel tree, and with herd7's library on the path
    // (`-I`).
    let (interpreted, with_herdlib) = match (
        load(&Library::new().include(&model_dir), &Disk, &spec),
        load(
            &Library::new().include(&model_dir).include(&herdlib),
            &Disk,
            &spec,
        ),
    ) {
        (Ok(m), Ok(h)) => (m, h),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("{}", e.render());
            return;
        }
    };
    let repeat: usize = std::env::var("HAZMAT_BENCH_REPEAT")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3)
        .max(1);
    let native = hazmat_checker::models::lkmm::Lkmm;
    let runs: [(&str, &dyn MemoryModel, usize); 5] = [
        ("native -j1", &native, 1),
        ("native -j2", &native, 2),
        ("interpreted -j1", &interpreted, 1),
        ("interpreted -j2", &interpreted, 2),
        ("herd7's lib -j1", &with_herdlib, 1),
    ];
    for folder in &folders {
        let paths = hazmat_checker::testkit::harness::litmus_files(root.join(folder));
        let files: Vec<String> = paths
            .iter()
            .filter_map(|f| std::fs::read_to_string(f).ok())
            .collect();
        println!("{folder}: {} files", files.len());
        let herd = herd7(&oracle, &model_dir, &paths);
        match &herd {
            Ok(t) => println!("  {:<16} {t:>9.3} s", "herd7"),
            Err(why) => println!("  {:<16} {why}: no ratios", "herd7"),
        }
        for (name, model, jobs) in runs {
            let (wall, decided) = (0..repeat)
                .map(|_| pass(model, &files, jobs))
                .min_by(|a, b| a.0.total_cmp(&b.0))
                .expect("at least one pass");
            let ratio = match &herd {
                Ok(t) => format!("{:>7.1}x herd7", t / wall),
                Err(_) => String::new(),
            };
            let undecided = files.len() - decided;
            let undecided = if undecided == 0 {
                String::new()
            } else {
                format!("  ({undecided} undecided)")
            };
            println!("  {name:<16} {wall:>9.3} s  {ratio}{undecided}");
        }
    }
}
