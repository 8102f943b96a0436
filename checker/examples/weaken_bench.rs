//! The `hazmat weaken` benchmark: every hazptr test weakened (or strengthened) under the
//! LKMM and under RC11, timed, against herd7 deciding the same test once.
//!
//! `cargo run --release -p hazmat-checker --example weaken_bench [-- REPEAT]`
//!
//! For each test: the variants decided, hazmat's time to decide them all (the best of
//! REPEAT runs, default 3), herd7's time for the test itself (one run, when herd7 is at
//! `../shared/oracle/herd7` or `$HAZMAT_ORACLE`), and the ratio of the two, all measured
//! in the same run.

use hazmat_checker::weaken::{self, Setup};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// herd7's command for `model`, if herd7 and its model files are at hand.
fn herd7(model: &str) -> Option<(PathBuf, Vec<String>)> {
    let exe = std::env::var_os("HAZMAT_ORACLE")
        .map_or_else(|| workspace().join("../shared/oracle/herd7"), PathBuf::from);
    if !exe.is_file() {
        return None;
    }
    let args = match model {
        "lkmm" => {
            let corpus = std::env::var_os("HAZMAT_CONFORMANCE")
                .map_or_else(|| workspace().join("../shared/conformance"), PathBuf::from);
            let dir = corpus.join("lkmm-model");
            if !dir.join("linux-kernel.cfg").is_file() {
                return None;
            }
            vec![
                "-I".to_string(),
                dir.display().to_string(),
                "-conf".to_string(),
                "linux-kernel.cfg".to_string(),
            ]
        }
        _ => vec![
            "-model".to_string(),
            "rc11.cat".to_string(),
            "-macros".to_string(),
            "c11.def".to_string(),
        ],
    };
    Some((exe, args))
}

fn main() {
    let repeat: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(3);
    println!(
        "{:<58} {:>6} {:>8} {:>10} {:>10} {:>8}",
        "test", "model", "variants", "hazmat s", "herd7 1x s", "ratio"
    );
    let (mut all_hazmat, mut all_herd, mut all_variants) = (0.0, 0.0, 0);
    for (dir, model_name) in [("hazptr", "lkmm"), ("hazptr-c11", "rc11")] {
        let model = hazmat_checker::model(model_name).expect("a native model");
        let setup = Setup::new(model.as_ref(), true);
        let herd = herd7(model_name);
        let mut files: Vec<PathBuf> = std::fs::read_dir(workspace().join("litmus/tests").join(dir))
            .expect("the hazptr corpus")
            .filter_map(|e| Some(e.ok()?.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
            .collect();
        files.sort();
        for f in files {
            let source = std::fs::read_to_string(&f).expect("readable");
            let mut best = f64::INFINITY;
            let mut variants = 0;
            for _ in 0..repeat.max(1) {
                let t = Instant::now();
                let a = weaken::analyse(&source, &setup).expect("analysed");
                best = best.min(t.elapsed().as_secs_f64());
                variants = a.decided;
            }
            let herd_s = herd.as_ref().map(|(exe, args)| {
                let t = Instant::now();
                let status = Command::new(exe)
                    .args(args)
                    .arg(&f)
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status();
                let s = t.elapsed().as_secs_f64();
                if status.is_ok_and(|s| s.success()) {
                    s
                } else {
                    f64::NAN
                }
            });
            let name = f
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            all_hazmat += best;
            all_variants += variants;
            match herd_s {
                Some(h) => {
                    all_herd += h;
                    println!(
                        "{name:<58} {model_name:>6} {variants:>8} {best:>10.3} {h:>10.3} {:>8.2}",
                        best / h
                    );
                }
                None => println!(
                    "{name:<58} {model_name:>6} {variants:>8} {best:>10.3} {:>10} {:>8}",
                    "-", "-"
                ),
            }
        }
    }
    println!(
        "total: {all_variants} variants decided in {all_hazmat:.3} s by hazmat; herd7 took \
         {all_herd:.3} s to decide each test once (ratio {:.2})",
        if all_herd > 0.0 {
            all_hazmat / all_herd
        } else {
            f64::NAN
        }
    );
}
