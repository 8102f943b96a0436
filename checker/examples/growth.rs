//! The growth benchmark: families of tests of increasing size (`generate::families`),
//! each decided by hazmat in full, by hazmat with `--speedcheck` and by herd7, with the
//! time each takes.
//!
//! ```text
//! cargo run --release -p hazmat-checker --example growth -- --out docs/src/scale
//! ```
//!
//! Each decider gets `--budget` seconds per test (hazmat a deadline, herd7 `timeout`);
//! once it fails to decide a size in time it is not run on the larger sizes of that
//! family.
//! Where hazmat in full and herd7 both decide a test, their answers (verdict, states,
//! witness counts, flags) are compared and a difference is reported.
//! The run writes `growth.csv` (one row per family, size and decider), `growth.md` (the
//! table, with the largest size each decider decides within the budget) and
//! `growth.svg` (time against size, one panel per family) into `--out`.
//! herd7 is found through `$HAZMAT_ORACLE` or at `../shared/oracle/herd7`, its model
//! files through `$HAZMAT_CONFORMANCE` or at `../shared/conformance`; without them only
//! hazmat is measured.

use clap::Parser;
use hazmat_checker::Options;
use hazmat_checker::engine::enumerate::Limits;
use hazmat_checker::report::read;
use hazmat_checker::testkit::generate::families;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Runs the growth families with hazmat and herd7.
#[derive(Parser)]
struct Args {
    /// Seconds each decider gets per test.
    #[arg(long, default_value_t = 10.0)]
    budget: f64,
    /// Where the table, the CSV file and the SVG plot go.
    #[arg(long, default_value = "docs/src/scale")]
    out: PathBuf,
    /// The families to run, comma-separated; all by default.
    #[arg(long, value_delimiter = ',')]
    families: Vec<String>,
    /// Leave herd7 out.
    #[arg(long)]
    no_herd7: bool,
}

/// The sizes each family is run at.
fn sizes(family: &str) -> Vec<usize> {
    match family {
        "value-chain" => vec![
            0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 25, 30, 35, 40, 41, 42, 50, 60, 80, 100, 127,
            128, 150, 200, 250, 300, 339, 340, 400, 500, 700, 1000,
        ],
        "rw-chain" | "rr-chain" => (2..=20)
            .step_by(2)
            .chain([30, 40, 60, 80, 100, 200, 340, 345, 400, 500])
            .collect(),
        "treiber-push" => (1..=8).chain([10, 12, 16, 20]).collect(),
        _ => Vec::new(),
    }
}

const DECIDERS: [&str; 3] = ["hazmat", "hazmat --speedcheck", "herd7"];

/// One measurement.
struct Row {
    family: String,
    size: usize,
    decider: &'static str,
    /// Seconds, when decided within the budget.
    seconds: Option<f64>,
    /// The verdict, or why there is none.
    answer: String,
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// herd7 and its model directory, if present.
fn herd7() -> Option<(PathBuf, PathBuf)> {
    let exe = std::env::var_os("HAZMAT_ORACLE")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared/oracle/herd7"));
    let corpus = std::env::var_os("HAZMAT_CONFORMANCE")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared/conformance"));
    let model = corpus.join("lkmm-model");
    (exe.is_file() && model.join("linux-kernel.cfg").is_file()).then_some((exe, model))
}

/// hazmat's text and time for one test, or why it has none.
fn run_hazmat(
    source: &str,
    speedcheck: bool,
    budget: f64,
) -> (Option<f64>, Result<String, String>) {
    let start = Instant::now();
    let options = Options {
        limits: Limits {
            max_executions: None,
            deadline: Some(start + Duration::from_secs_f64(budget)),
            ..Default::default()
        },
        speedcheck,
        ..Default::default()
    };
    match hazmat_checker::check_source(source, &hazmat_checker::models::lkmm::Lkmm, &options) {
        Ok(c) if c.outcome.unknown.is_some() => (None, Err("timeout".into())),
        Ok(c) => (Some(start.elapsed().as_secs_f64()), Ok(c.herd_text())),
        Err(e) => (None, Err(e.to_string())),
    }
}

/// herd7's text and time for one file, or why it has none.
fn run_herd7(
    exe: &Path,
    model: &Path,
    file: &Path,
    budget: f64,
) -> (Option<f64>, Result<String, String>) {
    let start = Instant::now();
    let out = Command::new("timeout")
        .arg(format!("{budget}"))
        .arg(exe)
        .arg("-I")
        .arg(model)
        .args(["-conf", "linux-kernel.cfg"])
        .arg(file)
        .output();
    let seconds = start.elapsed().as_secs_f64();
    match out {
        Ok(o) if o.status.code() == Some(124) => (None, Err("timeout".into())),
        Ok(o) if o.status.success() && !o.stdout.is_empty() => (
            Some(seconds),
            Ok(String::from_utf8_lossy(&o.stdout).into_owned()),
        ),
        Ok(o) => (
            None,
            Err(String::from_utf8_lossy(&o.stderr)
                .lines()
                .next()
                .unwrap_or("no output")
                .to_string()),
        ),
        Err(e) => (None, Err(format!("herd7 does not start: {e}"))),
    }
}

fn verdict(text: &str) -> String {
    match read::parse(text) {
        Ok(s) => format!("{} {}/{}", s.verdict, s.positive, s.negative),
        Err(e) => e,
    }
}

fn main() {
    let args = Args::parse();
    let oracle = if args.no_herd7 { None } else { herd7() };
    if oracle.is_none() && !args.no_herd7 {
        eprintln!("herd7 not found (set HAZMAT_ORACLE and HAZMAT_CONFORMANCE): hazmat only");
    }
    let chosen: Vec<&str> = if args.families.is_empty() {
        families::FAMILIES.to_vec()
    } else {
        families::FAMILIES
            .iter()
            .copied()
            .filter(|f| args.families.iter().any(|a| a == f))
            .collect()
    };
    let dir = std::env::temp_dir().join(format!("hazmat-growth-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let mut rows = Vec::new();
    let mut disagreements = Vec::new();
    for family in &chosen {
        let mut given_up = [false; 3];
        for n in sizes(family) {
            let Some(source) = families::family(family, n) else {
                continue;
            };
            let file = dir.join(format!("{family}-{n}.litmus"));
            std::fs::write(&file, &source).expect("the test file");
            let mut texts: [Option<String>; 3] = [None, None, None];
            for (d, decider) in DECIDERS.iter().enumerate() {
                if given_up[d] || (d == 2 && oracle.is_none()) {
                    continue;
                }
                let (seconds, text) = match (d, &oracle) {
                    (2, Some((exe, model))) => run_herd7(exe, model, &file, args.budget),
                    _ => run_hazmat(&source, d == 1, args.budget),
                };
                let answer = match &text {
                    Ok(t) => verdict(t),
                    Err(e) => e.clone(),
                };
                eprintln!(
                    "{family} {n:>3} {decider:<20} {:>9} {answer}",
                    seconds.map_or("-".to_string(), |s| format!("{s:.3}s"))
                );
                given_up[d] = seconds.is_none();
                texts[d] = text.ok();
                rows.push(Row {
                    family: family.to_string(),
                    size: n,
                    decider,
                    seconds,
                    answer,
                });
            }
            if let (Some(h), Some(o)) = (&texts[0], &texts[2]) {
                let diffs = match (read::parse(o), read::parse(h)) {
                    (Ok(o), Ok(h)) => read::differences(&o, &h),
                    (o, h) => vec![format!("unreadable: {:?} {:?}", o.err(), h.err())],
                };
                if !diffs.is_empty() {
                    eprintln!("DISAGREEMENT {family} {n}: {}", diffs.join("; "));
                    disagreements.push(format!("{family}-{n}: {}", diffs.join("; ")));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&args.out).expect("the output directory");
    let mut csv = String::from("family,size,decider,seconds,answer\n");
    for r in &rows {
        let _ = writeln!(
            csv,
            "{},{},{},{},{}",
            r.family,
            r.size,
            r.decider,
            r.seconds.map_or(String::new(), |s| format!("{s:.4}")),
            r.answer.replace(',', ";")
        );
    }
    std::fs::write(args.out.join("growth.csv"), csv).expect("growth.csv");
    let table = table(&chosen, &rows, args.budget, &disagreements);
    print!("{table}");
    std::fs::write(args.out.join("growth.md"), table).expect("growth.md");
    std::fs::write(
        args.out.join("growth.svg"),
        plot(&chosen, &rows, args.budget),
    )
    .expect("growth.svg");
    if !disagreements.is_empty() {
        std::process::exit(1);
    }
}

/// The table: per family and size, each decider's time, then the largest size each
/// decides within the budget.
fn table(chosen: &[&str], rows: &[Row], budget: f64, disagreements: &[String]) -> String {
    let mut s = String::new();
    for family in chosen {
        let _ = writeln!(s, "#### {family}\n");
        let _ = writeln!(
            s,
            "| size | {} | verdict (positive/negative) |",
            DECIDERS.join(" | ")
        );
        let _ = writeln!(s, "|---:|---:|---:|---:|---|");
        for n in sizes(family) {
            let cells: Vec<&Row> = rows
                .iter()
                .filter(|r| r.family == *family && r.size == n)
                .collect();
            if cells.is_empty() {
                continue;
            }
            let time = |d: &str| {
                cells
                    .iter()
                    .find(|r| r.decider == d)
                    .map_or("not run".to_string(), |r| {
                        r.seconds.map_or_else(
                            || r.answer.chars().take(40).collect(),
                            |t| format!("{t:.3} s"),
                        )
                    })
            };
            let answer = cells
                .iter()
                .find(|r| r.decider == "herd7" && r.seconds.is_some())
                .or_else(|| {
                    cells
                        .iter()
                        .find(|r| r.decider == "hazmat" && r.seconds.is_some())
                })
                .map_or(String::new(), |r| r.answer.clone());
            let _ = writeln!(
                s,
                "| {n} | {} | {} | {} | {answer} |",
                time(DECIDERS[0]),
                time(DECIDERS[1]),
                time(DECIDERS[2])
            );
        }
        let _ = writeln!(s, "\nLargest size decided within {budget} s:");
        for d in DECIDERS {
            let best = rows
                .iter()
                .filter(|r| {
                    r.family == *family && r.decider == d && r.seconds.is_some_and(|t| t <= budget)
                })
                .map(|r| r.size)
                .max();
            let _ = writeln!(
                s,
                "{d}: {}.",
                best.map_or("none".to_string(), |n| n.to_string())
            );
        }
        s.push('\n');
    }
    if !disagreements.is_empty() {
        let _ = writeln!(s, "Disagreements with herd7:\n");
        for d in disagreements {
            let _ = writeln!(s, "- {d}");
        }
    }
    s
}

/// Time against size, log scale, one panel per family, one line per decider.
fn plot(chosen: &[&str], rows: &[Row], budget: f64) -> String {
    const PANEL_W: f64 = 420.0;
    const PANEL_H: f64 = 260.0;
    const LEFT: f64 = 60.0;
    const TOP: f64 = 40.0;
    const GAP: f64 = 50.0;
    const COLOURS: [&str; 3] = ["#1f77b4", "#2ca02c", "#d62728"];
    let (lo, hi) = (1e-4_f64, budget.max(1.0));
    let columns = 2;
    let panels = chosen.len().max(1);
    let height = TOP + panels.div_ceil(columns) as f64 * (PANEL_H + GAP + 30.0) + 40.0;
    let width = LEFT + columns as f64 * (PANEL_W + GAP + LEFT);
    let mut s = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{}" y="22" text-anchor="middle" font-size="15">Time to decide against size (log scale; a line stops where the decider runs out of {budget} s)</text>
"##,
        width / 2.0
    );
    for (i, d) in DECIDERS.iter().enumerate() {
        let x = LEFT + i as f64 * 200.0;
        let _ = writeln!(
            s,
            r##"<rect x="{x}" y="{}" width="12" height="12" fill="{}"/><text x="{}" y="{}">{d}</text>"##,
            height - 28.0,
            COLOURS[i],
            x + 18.0,
            height - 18.0
        );
    }
    for (p, family) in chosen.iter().enumerate() {
        let x0 = LEFT + (p % columns) as f64 * (PANEL_W + GAP + LEFT);
        let y0 = TOP + (p / columns) as f64 * (PANEL_H + GAP + 30.0);
        let ns = sizes(family);
        let (nmin, nmax) = (
            *ns.first().unwrap_or(&0) as f64,
            (*ns.last().unwrap_or(&1) as f64).max(1.0),
        );
        let px = |n: usize| x0 + (n as f64 - nmin) / (nmax - nmin).max(1.0) * PANEL_W;
        let py = |t: f64| {
            y0 + PANEL_H - (t.max(lo).log10() - lo.log10()) / (hi.log10() - lo.log10()) * PANEL_H
        };
        let _ = writeln!(
            s,
            r##"<text x="{}" y="{}" text-anchor="middle" font-size="13">{family}</text>"##,
            x0 + PANEL_W / 2.0,
            y0 - 8.0
        );
        let mut t = lo;
        while t <= hi * 1.0001 {
            let y = py(t);
            let _ = writeln!(
                s,
                r##"<line x1="{x0}" x2="{}" y1="{y:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
                x0 + PANEL_W,
                x0 - 4.0,
                y + 4.0,
                if t >= 1.0 {
                    format!("{t:.0} s")
                } else {
                    format!("{t} s")
                }
            );
            t *= 10.0;
        }
        for &n in ns.iter().step_by((ns.len() / 8).max(1)) {
            let _ = writeln!(
                s,
                r##"<text x="{:.1}" y="{}" text-anchor="middle">{n}</text>"##,
                px(n),
                y0 + PANEL_H + 16.0
            );
        }
        let _ = writeln!(
            s,
            r##"<rect x="{x0}" y="{y0}" width="{PANEL_W}" height="{PANEL_H}" fill="none" stroke="black"/>"##
        );
        for (i, d) in DECIDERS.iter().enumerate() {
            let points: Vec<String> = rows
                .iter()
                .filter(|r| r.family == *family && r.decider == *d)
                .filter_map(|r| Some(format!("{:.1},{:.1}", px(r.size), py(r.seconds?))))
                .collect();
            if points.is_empty() {
                continue;
            }
            let _ = writeln!(
                s,
                r##"<polyline points="{}" fill="none" stroke="{}" stroke-width="2"/>"##,
                points.join(" "),
                COLOURS[i]
            );
            for p in &points {
                let (x, y) = p.split_once(',').unwrap_or(("0", "0"));
                let _ = writeln!(
                    s,
                    r##"<circle cx="{x}" cy="{y}" r="2.5" fill="{}"/>"##,
                    COLOURS[i]
                );
            }
        }
    }
    s.push_str("</svg>\n");
    s
}
