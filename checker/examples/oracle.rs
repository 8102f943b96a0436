//! The oracle comparison, offline: many generated programs decided by hazmat and herd7,
//! counted per construct class, every minimised disagreement written to a folder.
//!
//! ```text
//! cargo run --release -p hazmat-checker --example oracle -- --cases 20000 --out DIR
//! cargo run --release -p hazmat-checker --example oracle -- --model rc11 --cases 20000 --out DIR
//! cargo run --release -p hazmat-checker --example oracle -- --cat c11_partialSC.cat --cases 2000 --out DIR
//! cargo run --release -p hazmat-checker --example oracle -- --cat rc11.cat --no-macros --cases 2000 --out DIR
//! cargo run --release -p hazmat-checker --example oracle -- --conf OLD-LKMM/linux-kernel.cfg --cases 2000 --out DIR
//! cargo run --release -p hazmat-checker --example oracle -- --optace false --cases 2000 --out DIR
//! cargo run --release -p hazmat-checker --example oracle -- --vars 5 --without plain,lock,rcu --cases 3000 --out DIR
//! ```
//!
//! It runs what `tests/oracle.rs` runs (the code is shared: `tests/common/oracle.rs`), on
//! as many programs as asked, in batches of `--batch` per herd7 run on `--jobs` workers.
//! It prints the counts after each batch, then a table of programs, agreements,
//! disagreements and undecided programs per class; it writes each minimised disagreement
//! as `DIR/KIND-SEED.litmus` (herd7's `Result`, the seed, the classes and both outputs in
//! its comment) with herd7's output beside it (`.litmus.expected`), and every disagreement,
//! minimised or not, as a line of `DIR/disagreements.tsv`, and the programs either tool
//! did not decide in `--timeout` seconds as `DIR/undecided-NAME.litmus`, with the
//! reasons in `DIR/undecided.tsv`.
//! `--minimise` bounds the minimisations (each asks herd7 a few dozen times), taking the
//! kinds of disagreement in turn and the smallest program of each first (`--kind` picks
//! one kind); `--without` leaves classes out of the programs, to look past a known
//! disagreement, and `--with` draws only programs of the classes it names, to test a rare
//! construct on many programs (`--with loop`).

#[path = "../tests/common/oracle.rs"]
mod oracle;

use clap::Parser;
use hazmat_checker::models::optace::OptAce;
use hazmat_checker::testkit::generate::{Class, Config};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Compares hazmat with herd7 on generated LKMM or C11 programs.
#[derive(Parser)]
struct Args {
    /// The number of programs.
    #[arg(long, default_value_t = 2000)]
    cases: u64,
    /// The first seed (program `i` is drawn by seed `SEED + i`); from the clock by default.
    #[arg(long)]
    seed: Option<u64>,
    /// Where the minimised disagreements go.
    #[arg(long, default_value = "oracle-findings")]
    out: PathBuf,
    /// Programs per herd7 run.
    #[arg(long, default_value_t = 100)]
    batch: usize,
    /// Workers (each runs herd7 while hazmat decides the same batch); all cores by default.
    #[arg(long)]
    jobs: Option<usize>,
    /// The most disagreements to minimise.
    #[arg(long, default_value_t = 40)]
    minimise: usize,
    /// Minimise only the disagreements of this kind (`states`, `flags`, ...), keeping it.
    #[arg(long)]
    kind: Option<String>,
    /// Classes never to draw, comma-separated (`addr-dep,lock`).
    #[arg(long, value_delimiter = ',')]
    without: Vec<String>,
    /// Classes every program has, comma-separated (`loop`): programs without one of them are
    /// drawn again.
    #[arg(long, value_delimiter = ',')]
    with: Vec<String>,
    /// The most primitives per program (accesses, fences, lock and SRCU calls, `if`s).
    #[arg(long, default_value_t = Config::lkmm().max_size)]
    size: usize,
    /// The most shared variables per program (more make more programs that split into
    /// pieces counted one by one).
    #[arg(long)]
    vars: Option<usize>,
    /// Each tool's budget per program, in seconds.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// The model: `lkmm` (programs of the LKMM's vocabulary, herd7 with the kernel's
    /// configuration) or `rc11` (programs of herd7's C11 dialect, herd7 with `-model
    /// rc11.cat -macros c11.def`).
    #[arg(long, default_value = "lkmm")]
    model: String,
    /// A C11 model of herd7's library other than `rc11.cat` (`c11_partialSC.cat`,
    /// `simple-c11.cat`...), run by herd7 with `-macros c11.def` and by hazmat's
    /// interpreter in the C11 dialect, on programs of herd7's C11 dialect; `--model` is
    /// then ignored.
    #[arg(long)]
    cat: Option<String>,
    /// With `--cat`: no macro file, neither for herd7 (no `-macros`) nor for hazmat (the
    /// kernel's dialect), so that the programs' C11 words are herd7's grammar alone; the
    /// programs then have no C11 primitive without `_explicit`, which only `c11.def`
    /// defines.
    #[arg(long)]
    no_macros: bool,
    /// A configuration file (an older version of the kernel's model, or an edited one:
    /// `DIR/linux-kernel.cfg`), run by herd7 as `-I DIR -conf NAME` and by hazmat's
    /// interpreter from the same folder, on programs of the LKMM's vocabulary; `--model`
    /// and `--cat` are then ignored.
    #[arg(long)]
    conf: Option<PathBuf>,
    /// How herd7 builds the candidates (`iico`, `true` or `false`), passed to it as
    /// `-optace TAG` after the options that choose the model, and to hazmat alike.
    #[arg(long)]
    optace: Option<String>,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let (found, vocabulary) = match (&args.cat, args.model.as_str()) {
        _ if let Some(cfg) = &args.conf => {
            let found = oracle::Herd7::find_conf(cfg);
            let macros = found.as_ref().ok().and_then(|h| h.macros.clone());
            (
                found,
                Config {
                    macros,
                    ..Config::lkmm()
                },
            )
        }
        (Some(cat), _) if args.no_macros => (
            oracle::Herd7::find_cat_without_macros(cat),
            Config {
                without: vec![Class::C11Implicit],
                ..Config::c11()
            },
        ),
        (Some(cat), _) => (oracle::Herd7::find_c11_cat(cat), Config::c11()),
        (None, "lkmm") => (oracle::Herd7::find(), Config::lkmm()),
        (None, "rc11") => (oracle::Herd7::find_rc11(), Config::c11()),
        (None, other) => anyhow::bail!("unknown model `{other}`; the models are lkmm, rc11"),
    };
    let herd7 = match found {
        Ok(mut h) => {
            h.timeout = args.timeout;
            match &args.optace {
                None => h,
                Some(tag) => h.with_optace(OptAce::parse(tag).ok_or_else(|| {
                    anyhow::anyhow!("unknown -optace `{tag}`; the tags are iico, true, false")
                })?),
            }
        }
        Err(why) => anyhow::bail!("oracle absent: {why}"),
    };
    let mut config = Config {
        max_size: args.size.min(vocabulary.max_size),
        max_vars: args.vars.unwrap_or(vocabulary.max_vars),
        ..vocabulary
    };
    let class = |name: &str| {
        Class::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = Class::ALL.iter().map(|c| c.name()).collect();
            anyhow::anyhow!(
                "unknown class `{name}`; the classes are {}",
                names.join(", ")
            )
        })
    };
    for name in &args.without {
        config.without.push(class(name)?);
    }
    for name in &args.with {
        config.with.push(class(name)?);
    }
    let kind = match &args.kind {
        None => None,
        Some(name) => Some(
            oracle::Kind::ALL
                .into_iter()
                .find(|k| k.name() == name)
                .ok_or_else(|| {
                    let names: Vec<&str> = oracle::Kind::ALL.iter().map(|k| k.name()).collect();
                    anyhow::anyhow!("unknown kind `{name}`; the kinds are {}", names.join(", "))
                })?,
        ),
    };
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let settings = oracle::Settings {
        config,
        seed,
        cases: args.cases,
        batch: args.batch,
        jobs: args
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get())),
        timeout: Duration::from_secs_f64(args.timeout),
        minimise: args.minimise,
        kind,
    };
    println!(
        "oracle: {} programs from seed {seed}, {} per herd7 run on {} workers",
        settings.cases, settings.batch, settings.jobs
    );
    let start = Instant::now();
    let scratch = std::env::temp_dir().join(format!("hazmat-oracle-{}", std::process::id()));
    let report = oracle::run(&herd7, &settings, &scratch, |stats| {
        let t = &stats.total;
        println!(
            "{:>7.1} s: {} programs, {} agree, {} disagree, {} undecided, {} lost by herd7",
            start.elapsed().as_secs_f64(),
            t.programs,
            t.agree,
            t.disagree,
            t.undecided,
            t.herd7_lost
        );
    });
    let _ = std::fs::remove_dir_all(&scratch);
    println!("\n{}", report.stats.table());
    std::fs::create_dir_all(&args.out)?;
    std::fs::write(
        args.out.join("disagreements.tsv"),
        format!(
            "seed\tkinds\tclasses\tdifference\n{}",
            oracle::disagreement_lines(&report)
        ),
    )?;
    std::fs::write(
        args.out.join("undecided.tsv"),
        report
            .undecided
            .iter()
            .map(|(seed, why)| format!("{seed}\t{why}\n"))
            .collect::<String>(),
    )?;
    for (seed, _) in &report.undecided {
        let case = oracle::Case::new(*seed, &settings.config);
        std::fs::write(
            args.out.join(format!("undecided-{}.litmus", case.name)),
            &case.text,
        )?;
    }
    for f in &report.findings {
        let file = oracle::write_finding(&args.out, f)?;
        println!("{}: {}", file.display(), f.detail);
    }
    println!(
        "{} disagreements ({} minimised, {} distinct) in {:.1} s; every one is listed in {}",
        report.disagreements.len(),
        settings.minimise.min(report.disagreements.len()),
        report.findings.len(),
        start.elapsed().as_secs_f64(),
        args.out.join("disagreements.tsv").display()
    );
    Ok(())
}
