//! hazmat's RC11 against herd7's `rc11.cat` on the generated C11 corpus: the same
//! programs, decided by herd7 in one run and by hazmat on one thread, natively and through
//! the interpreter running herd7's own `rc11.cat`, with the total time of each and the
//! ratios.
//!
//! ```sh
//! cargo run --release -p hazmat-checker --example c11_bench -- [--cases 300] [--seed 1]
//! ```
//!
//! The programs are those of the oracle test under RC11 (the generator's [`Config::c11`],
//! 6 primitives at most unless `--size` says otherwise), drawn by seeds
//! `SEED..SEED + CASES`; herd7 (`$HAZMAT_ORACLE`, or
//! `../shared/oracle/herd7`) runs them with `-model rc11.cat -macros c11.def` and a
//! budget of `--timeout` seconds each.
//! herd7 runs twice: once to find the programs it decides within its budget, then, timed,
//! on those only, which hazmat then decides too; the tool says how many answers differ
//! (the oracle tool is the place to look at them).

#[path = "../tests/common/oracle.rs"]
mod oracle;

use clap::Parser;
use hazmat_checker::models::cat::files::Disk;
use hazmat_checker::models::cat::{Library, Spec, load};
use hazmat_checker::models::model::MemoryModel;
use hazmat_checker::report::read;
use hazmat_checker::testkit::generate::Config;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// Times hazmat and herd7 under RC11 on generated C11 programs.
#[derive(Parser)]
struct Args {
    /// The number of programs.
    #[arg(long, default_value_t = 300)]
    cases: u64,
    /// The first seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// herd7's budget per program, in seconds.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// The most primitives per program: 6, as in the oracle test, keeps herd7 within its
    /// budget on almost every program, so that its total is not its timeouts'.
    #[arg(long, default_value_t = 6)]
    size: usize,
}

/// Each program's answer (`None` when undecided) and the total time.
fn hazmat(model: &dyn MemoryModel, texts: &[String]) -> (Vec<Option<String>>, f64) {
    let start = Instant::now();
    let answers = texts
        .iter()
        .map(|text| {
            let options = hazmat_checker::Options {
                limits: hazmat_checker::engine::enumerate::Limits {
                    max_executions: None,
                    deadline: Some(Instant::now() + Duration::from_secs(60)),
                    ..Default::default()
                },
                speedcheck: false,
                ..Default::default()
            };
            hazmat_checker::check_source(text, model, &options)
                .ok()
                .filter(|c| c.outcome.unknown.is_none())
                .map(|c| summary(&c.herd_text()))
        })
        .collect();
    (answers, start.elapsed().as_secs_f64())
}

/// The part of an answer both tools must agree on.
fn summary(text: &str) -> String {
    match read::parse(text) {
        Ok(s) => format!(
            "{} {:?} {} {} {:?}",
            s.verdict, s.states, s.positive, s.negative, s.flags
        ),
        Err(e) => format!("unread: {e}"),
    }
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let exe = std::env::var_os("HAZMAT_ORACLE").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/oracle/herd7"),
        PathBuf::from,
    );
    anyhow::ensure!(
        exe.is_file(),
        "no herd7 at {} (set HAZMAT_ORACLE)",
        exe.display()
    );
    let herdlib = exe.parent().map(|d| d.join("herd")).unwrap_or_default();
    let config = Config {
        max_size: args.size,
        ..Config::c11()
    };
    let cases: Vec<oracle::Case> = (args.seed..args.seed + args.cases)
        .map(|s| oracle::Case::new(s, &config))
        .collect();
    let dir = std::env::temp_dir().join(format!("hazmat-c11-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let mut files = Vec::new();
    for c in &cases {
        let f = format!("{}.litmus", c.name);
        std::fs::write(dir.join(&f), &c.text)?;
        files.push(f);
    }

    // herd7: one run over every file, as its users run it on a corpus; then, timed, one
    // run over the files it decided, so that its total is not its timeouts'.
    let run = |files: &[String]| -> anyhow::Result<(BTreeMap<String, String>, f64)> {
        let start = Instant::now();
        let out = Command::new(&exe)
            .arg("-timeout")
            .arg(args.timeout.to_string())
            .args(["-model", "rc11.cat", "-macros", "c11.def"])
            .args(files)
            .current_dir(&dir)
            .output()?;
        let time = start.elapsed().as_secs_f64();
        let blocks = read::blocks(&String::from_utf8_lossy(&out.stdout))
            .into_iter()
            .collect();
        Ok((blocks, time))
    };
    let (blocks, _) = run(&files)?;
    let cases: Vec<oracle::Case> = cases
        .into_iter()
        .filter(|c| blocks.contains_key(&c.name))
        .collect();
    let files: Vec<String> = cases.iter().map(|c| format!("{}.litmus", c.name)).collect();
    let (blocks, herd7_time) = run(&files)?;
    let _ = std::fs::remove_dir_all(&dir);
    let theirs: Vec<Option<String>> = cases
        .iter()
        .map(|c| blocks.get(&c.name).map(|t| summary(t)))
        .collect();

    let texts: Vec<String> = cases.iter().map(|c| c.text.clone()).collect();
    let (native, native_time) = hazmat(&hazmat_checker::models::rc11::Rc11, &texts);
    let library = Library::new().include(&herdlib);
    let spec = Spec {
        cat: "rc11.cat".into(),
        bell: None,
        ..Spec::default()
    };
    let cat = load(&library, &Disk, &spec).map_err(|e| anyhow::anyhow!(e.render()))?;
    let interpreted_model = cat.in_dialect(hazmat_checker::front::lower::Dialect::C11);
    let (interpreted, interpreted_time) = hazmat(&interpreted_model, &texts);

    let decided = |a: &[Option<String>]| a.iter().filter(|x| x.is_some()).count();
    let mut differ = 0;
    for ((t, n), i) in theirs.iter().zip(&native).zip(&interpreted) {
        if let Some(t) = t {
            differ += usize::from(n.as_ref().is_some_and(|n| n != t));
            differ += usize::from(i.as_ref().is_some_and(|i| i != t));
        }
    }
    println!(
        "{} generated C11 programs (seeds {}..{}), of which herd7 decides {} within {} s \
         each: those are timed",
        args.cases,
        args.seed,
        args.seed + args.cases,
        cases.len(),
        args.timeout
    );
    println!(
        "{:<28} {:>10} {:>9} {:>12}",
        "", "time (s)", "decided", "herd7/this"
    );
    println!(
        "{:<28} {:>10.2} {:>9} {:>12}",
        "herd7 -model rc11.cat",
        herd7_time,
        decided(&theirs),
        "1.0"
    );
    for (name, answers, time) in [
        ("hazmat --model rc11", &native, native_time),
        ("hazmat --cat rc11.cat", &interpreted, interpreted_time),
    ] {
        println!(
            "{:<28} {:>10.2} {:>9} {:>12.1}",
            name,
            time,
            decided(answers),
            herd7_time / time.max(1e-9)
        );
    }
    println!("answers that differ from herd7's: {differ}");
    Ok(())
}
