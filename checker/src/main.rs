//! The `hazmat` command line.
//!
//! `hazmat check` decides litmus files under a memory model and prints herd7's output;
//! `hazmat parse` and `hazmat fmt` expose the parser and the canonical printer;
//! `hazmat herd7 ARGS...`, or the binary started as `herd7`, is herd7's command line
//! ([`cli::herd7`]).
//! Exit codes: 0 success; 1 `--judge` found a disagreement (or `fmt --check` a file to
//! reformat); 2 an error (bad usage, unreadable or invalid file, unknown primitive,
//! unavailable model); 3 a test stopped at a limit and is undecided.
//! When several apply, the first in the order 2, 1, 3 wins.
//! Warnings (what herd7 reads otherwise than a test probably means) go to stderr, like
//! errors, and leave stdout herd7's and the exit code alone.

use clap::{Parser, Subcommand};
use hazmat_checker::engine::enumerate::{Limits, Split};
use hazmat_checker::report::expected;
use hazmat_checker::report::write::{self, SummaryRow};
use hazmat_checker::{CheckError, Engine, Options, check_source, model};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(
    name = "hazmat",
    version,
    about = "Litmus tests under the Linux-kernel memory model, SC, TSO, RC11 and herd7's cat models"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Decide litmus files (directories are searched for `.litmus` files).
    Check(Box<CheckArgs>),
    /// Parse litmus files and report the first error of each.
    Parse {
        /// Files to parse.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Say whether a final state is allowed, with a witness, or why the model forbids it.
    Explain(ExplainArgs),
    /// Measure tests per second and enumeration counts over litmus files, on all cores.
    Bench(BenchArgs),
    /// Run as herd7: herd7's options and output, for the kernel's scripts (also when the
    /// binary is started under the name `herd7`). `hazmat herd7 -help` lists the options.
    Herd7 {
        /// herd7's arguments, such as `-conf linux-kernel.cfg test.litmus`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Rewrite litmus files in canonical form.
    Fmt {
        /// Only report the files that are not in canonical form.
        #[arg(long)]
        check: bool,
        /// Files to format.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

#[derive(clap::Args)]
struct CheckArgs {
    /// The memory model: lkmm, sc, tso or rc11 (default: lkmm; sc with `--engine shuttle`).
    /// `--cat` or `--conf` run a model from its files instead.
    #[arg(long)]
    model: Option<String>,
    /// How to decide: `axiomatic` (candidate executions judged by the model) or `shuttle`
    /// (every interleaving run under shuttle's DFS scheduler; SC only, no spinlocks).
    #[arg(long, default_value = "axiomatic")]
    engine: String,
    /// Threads checking files in parallel (default: all cores).
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// Give up on a test after this many seconds (it is then `Unknown`).
    #[arg(long)]
    timeout: Option<f64>,
    /// Give up on a test after judging this many candidate executions.
    #[arg(long)]
    max_executions: Option<u64>,
    /// Print one JSON object per test instead of herd7's text.
    #[arg(long)]
    json: bool,
    /// Compare each verdict with the file's `Result` line for the model.
    #[arg(long)]
    judge: bool,
    /// Stop each test as soon as its condition is decided (partial states and counts).
    #[arg(long)]
    speedcheck: bool,
    /// Draw allowed executions: witness (the final state satisfies the condition), counter
    /// (it does not), all, or none.
    #[arg(long, default_value = "none", value_parser = ["witness", "counter", "all", "none"])]
    show: String,
    /// Draw at most this many executions per test.
    #[arg(long, default_value_t = 10)]
    show_max: usize,
    /// Write each drawn execution to a file in this directory instead of stdout.
    #[arg(long)]
    graph: Option<PathBuf>,
    /// How to draw executions: text, dot or svg.
    #[arg(long, default_value = "text", value_parser = ["text", "dot", "svg"])]
    graph_format: String,
    /// Model relations to draw as well, such as `ppo,hb`.
    #[arg(long, value_delimiter = ',')]
    relations: Vec<String>,
    /// A model in herd7's cat language, run by hazmat's interpreter; when the files loaded
    /// are the kernel's current LKMM or herd7's RC11 (by content), the native model runs
    /// instead, unless `--interpret` is given.
    #[arg(long, value_name = "FILE", conflicts_with = "model")]
    cat: Option<String>,
    /// The bell file run before the cat file (herd7's `-bell`).
    #[arg(long, value_name = "FILE", conflicts_with = "model")]
    bell: Option<String>,
    /// The file of C macros (herd7's `-macros`): the kernel's `linux-kernel.def`, herd7's
    /// `c11.def` (the tests in herd7's C11 dialect), or a file of one's own, whose macros
    /// then replace the kernel's.
    #[arg(long, value_name = "FILE", conflicts_with = "model")]
    macros: Option<String>,
    /// A directory where model files are looked for, after the current one (herd7's `-I`);
    /// `$HERDLIB` is searched after these.
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    include: Vec<PathBuf>,
    /// A herd7 configuration file naming the model, bell, macros and variants (herd7's
    /// `-conf`), such as the kernel's `linux-kernel.cfg`.
    #[arg(long, value_name = "FILE", conflicts_with = "model")]
    conf: Option<String>,
    /// Variants the model tests with `if "name"` (herd7's `-variant`).
    #[arg(long, value_delimiter = ',')]
    variant: Vec<String>,
    /// Run the interpreter even when the model files are the kernel's current LKMM or
    /// herd7's RC11.
    #[arg(long)]
    interpret: bool,
    /// Files or directories.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

/// A model to run, and what runs it.
type ChosenModel = (
    Box<dyn hazmat_checker::models::model::MemoryModel>,
    ModelSource,
);

/// What runs the model: `native` or `interpreted`, and the model file, if one was given.
#[derive(Clone, Debug)]
struct ModelSource {
    kind: &'static str,
    file: Option<String>,
    /// A user's C macros (`--macros`, when not the kernel's `linux-kernel.def`).
    macros: Option<std::sync::Arc<hazmat_checker::front::defs::Macros>>,
}

/// The model `--cat`, `--bell`, `--macros` and `--conf` name, and which engine runs it
/// ([`hazmat_checker::models::choose`]); `None` when none of them is given.
fn model_from_files(args: &CheckArgs) -> Option<Result<ChosenModel, String>> {
    use hazmat_checker::models::cat::config::parse_config;
    use hazmat_checker::models::cat::files::{Disk, FileSystem, Found};
    use hazmat_checker::models::cat::{Files, Library, Origin};
    use hazmat_checker::models::choose::{ChooseError, Request, choose};
    if args.cat.is_none() && args.bell.is_none() && args.macros.is_none() && args.conf.is_none() {
        return None;
    }
    let herdlib = std::env::var_os("HERDLIB").map(PathBuf::from);
    let mut library = Library::new();
    for dir in &args.include {
        library = library.include(dir);
    }
    let not_found = |name: &str, searched: &[String]| {
        format!(
            "hazmat: error: cannot find the file `{name}`\n  = note: looked in {}",
            searched.join(", ")
        )
    };
    let (mut cat, mut bell, mut macros, mut variants) = (None, None, None, Vec::new());
    if let Some(conf) = &args.conf {
        let lib = library.clone().herdlib(herdlib.clone());
        let (name, text) = match lib.find(&Disk, conf) {
            Ok(Found::Path(p)) => match Disk.read(&p) {
                Ok(t) => (p.display().to_string(), t),
                Err(e) => {
                    return Some(Err(format!(
                        "hazmat: error: cannot read `{}`: {e}",
                        p.display()
                    )));
                }
            },
            Ok(Found::Builtin { name, text }) => (name.to_string(), text.to_string()),
            Err(searched) => return Some(Err(not_found(conf, &searched))),
        };
        let config = match parse_config(&text, 0) {
            Ok(c) => c,
            Err(e) => {
                let mut files = Files::new();
                files.add(name, Origin::Text, text);
                return Some(Err(e.render(&files).trim_end().to_string()));
            }
        };
        cat = config.model.map(|s| s.value);
        bell = config.bell.map(|s| s.value);
        macros = config.macros.map(|s| s.value);
        variants.extend(config.variants.into_iter().map(|s| s.value));
        for dir in config.includes {
            library = library.include(dir.value);
        }
    }
    variants.extend(args.variant.iter().cloned());
    let Some(cat) = args.cat.clone().or(cat) else {
        return Some(Err(
            "hazmat: error: no cat file: give `--cat FILE`, or a `--conf` file that names a model"
                .to_string(),
        ));
    };
    let request = Request {
        cat,
        bell: args.bell.clone().or(bell),
        macros: args.macros.clone().or(macros),
        variants,
        interpret: args.interpret,
        kernel_by_name: false,
    };
    let library = library.herdlib(herdlib);
    match choose(&library, &Disk, &request) {
        Ok(choice) => Some(Ok((
            choice.model,
            ModelSource {
                kind: choice.kind.as_str(),
                file: Some(choice.file),
                macros: choice.macros,
            },
        ))),
        Err(ChooseError::NotFound { name, searched }) => Some(Err(not_found(&name, &searched))),
        Err(ChooseError::Read { name, error }) => {
            Some(Err(format!("hazmat: error: cannot read `{name}`: {error}")))
        }
        Err(ChooseError::Def { name, error }) => Some(Err(format!(
            "{name}:{}:{}: error: {}",
            error.line, error.column, error.message
        ))),
        Err(ChooseError::Load(e)) => Some(Err(e.render().trim_end().to_string())),
    }
}

#[derive(clap::Args)]
struct BenchArgs {
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

mod cli {
    pub(crate) mod herd7;
}

fn main() -> ExitCode {
    // Started as `herd7` (a symlink on PATH), or as `hazmat herd7`: herd7's command line,
    // which clap cannot read (single-dash words).
    let argv: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let argv0 = argv.first().cloned().unwrap_or_default();
    if Path::new(&argv0).file_stem().is_some_and(|s| s == "herd7") {
        return ExitCode::from(cli::herd7::main(&argv0, &argv[1..]));
    }
    if argv.get(1).is_some_and(|a| a == "herd7") {
        return ExitCode::from(cli::herd7::main(&format!("{argv0} herd7"), &argv[2..]));
    }
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Check(args) => check(*args),
        Command::Parse { files } => parse(&files),
        Command::Bench(args) => bench(args),
        Command::Fmt { check, files } => fmt(check, &files),
        Command::Explain(args) => explain(args),
        // Read above, before clap.
        Command::Herd7 { .. } => cli::herd7::main("hazmat herd7", &[]),
    };
    ExitCode::from(code)
}

/// What happened to one file.
struct FileResult {
    file: String,
    text: String,
    /// The warnings, rendered, for stderr: stdout stays herd7's.
    warnings: Vec<String>,
    error: Option<String>,
    row: SummaryRow,
    disagreement: Option<String>,
    unknown: bool,
}

fn check(args: CheckArgs) -> u8 {
    if args.json && args.show != "none" && args.graph.is_none() {
        // Drawings on stdout would break the one-object-per-line JSON.
        eprintln!("hazmat: error: --show with --json needs --graph DIR to write the drawings to");
        return 2;
    }
    let default = if args.engine == "shuttle" {
        "sc"
    } else {
        "lkmm"
    };
    let engine = match Engine::new(&args.engine, args.model.as_deref().unwrap_or(default)) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("hazmat: error: {e}");
            return 2;
        }
    };
    let (m, source) = match model_from_files(&args) {
        Some(Ok(x)) => x,
        Some(Err(e)) => {
            eprintln!("{e}");
            return 2;
        }
        None => match model(args.model.as_deref().unwrap_or(default)) {
            Ok(m) => (
                m,
                ModelSource {
                    kind: "native",
                    file: None,
                    macros: None,
                },
            ),
            Err(e) => {
                eprintln!("hazmat: error: {e}");
                return 2;
            }
        },
    };
    if engine != Engine::Axiomatic && source.file.is_some() {
        eprintln!("hazmat: error: a model given by its files runs on the axiomatic engine only");
        return 2;
    }
    let mut files = expand(&args.paths);
    if args.judge {
        // A file that states results for other models only is not judged under this one,
        // nor run: it may be written in another dialect (a C11 test under the LKMM).
        let before = files.len();
        let mut others = Vec::new();
        files.retain(|f| {
            let keep = states_result_for(f, m.name());
            if !keep {
                others.push(f.display().to_string());
            }
            keep
        });
        if !others.is_empty() {
            eprintln!(
                "hazmat: {} of {before} file(s) state results for other models only and are not \
                 judged under {} (`--model` chooses; the first: {})",
                others.len(),
                m.name(),
                others[0]
            );
        }
    }
    if let Some(j) = args.jobs {
        // The global pool may be built once; a second build fails harmlessly.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(j.max(1))
            .build_global();
    }
    let bar = if std::io::stderr().is_terminal() && files.len() > 1 {
        let b = ProgressBar::new(files.len() as u64);
        if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed} {msg}") {
            b.set_style(style);
        }
        Some(b)
    } else {
        None
    };
    let results: Vec<FileResult> = files
        .par_iter()
        .map(|f| {
            let r = check_file(f, engine, m.as_ref(), &source, &args);
            if let Some(b) = &bar {
                b.inc(1);
            }
            r
        })
        .collect();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let mut out = std::io::stdout().lock();
    let mut code = 0u8;
    let mut disagreements = Vec::new();
    for r in &results {
        let _ = out.write_all(r.text.as_bytes());
        for w in &r.warnings {
            eprintln!("{w}");
        }
        if let Some(e) = &r.error {
            eprintln!("{e}");
            code = 2;
        }
        if let Some(d) = &r.disagreement {
            disagreements.push(format!("{}: {d}", r.file));
        }
    }
    if results.len() > 1 && !args.json {
        let rows: Vec<SummaryRow> = results.iter().map(|r| r.row.clone()).collect();
        let _ = write!(out, "{}", write::summary(&rows));
    }
    let _ = out.flush();
    if !disagreements.is_empty() {
        eprintln!(
            "hazmat: {} disagreement(s) with the files' Result lines:",
            disagreements.len()
        );
        for d in &disagreements {
            eprintln!("  {d}");
        }
        if code == 0 {
            code = 1;
        }
    }
    if code == 0 && results.iter().any(|r| r.unknown) {
        code = 3;
    }
    code
}

/// Whether the file at `path` states a `Result` line for `model`, or none for any model
/// (a file that cannot be read or parsed counts as stating one, so that its error shows).
fn states_result_for(path: &Path, model: &str) -> bool {
    let Ok(source) = std::fs::read_to_string(path) else {
        return true;
    };
    let Ok(test) = hazmat_litmus::parse(&source) else {
        return true;
    };
    test.expectations.is_empty() || expected::expectation(&test, model).is_some()
}

fn check_file(
    path: &Path,
    engine: Engine,
    m: &dyn hazmat_checker::models::model::MemoryModel,
    model_source: &ModelSource,
    args: &CheckArgs,
) -> FileResult {
    let file = path.display().to_string();
    let start = Instant::now();
    let mut result = FileResult {
        file: file.clone(),
        text: String::new(),
        warnings: Vec::new(),
        error: None,
        row: SummaryRow {
            file: file.clone(),
            verdict: "error".into(),
            counts: None,
            expected: None,
            judged: "",
            seconds: 0.0,
        },
        disagreement: None,
        unknown: false,
    };
    let source = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) => {
            result.error = Some(format!("{file}: error: {e}"));
            return result;
        }
    };
    let options = Options {
        limits: Limits {
            max_executions: args.max_executions,
            deadline: args
                .timeout
                .map(|s| start + Duration::from_secs_f64(s.max(0.0))),
            split: Split::Large,
            ..Default::default()
        },
        speedcheck: args.speedcheck,
        ..Default::default()
    };
    let checked = match &model_source.macros {
        Some(macros) => hazmat_checker::check_source_with_macros(&source, macros, m, &options),
        None => engine.check_source(&source, m, &options),
    };
    let checked = match checked {
        Ok(c) => c,
        Err(e) => {
            result.error = Some(render(&e, &file, &source));
            result.row.seconds = start.elapsed().as_secs_f64();
            return result;
        }
    };
    result.warnings = checked
        .warnings
        .iter()
        .map(|w| w.render(&file, &source).trim_end().to_string())
        .collect();
    let o = &checked.outcome;
    let seconds = checked.elapsed.as_secs_f64();
    result.text = if args.json {
        let mut j = write::json(&checked.program, o, m.name(), &file, &checked.hash, seconds);
        j["model_source"] = serde_json::json!({
            "kind": model_source.kind,
            "file": model_source.file,
        });
        let mut j = j.to_string();
        j.push('\n');
        j
    } else {
        checked.herd_text()
    };
    if args.show != "none" {
        match traces(&checked, m, args) {
            // Under --json, stdout holds JSON only; the drawings are in their files.
            Ok(t) if !args.json => result.text.push_str(&t),
            Ok(_) => {}
            Err(e) => result.error = Some(format!("{file}: error: {e}")),
        }
    }
    result.unknown = o.unknown.is_some();
    result.row.verdict = if o.unknown.is_some() {
        "Unknown".into()
    } else {
        o.verdict().as_str().into()
    };
    result.row.counts = Some((o.positive, o.negative));
    result.row.seconds = seconds;
    if let Some(e) = expected::expectation(&checked.test, m.name()) {
        result.row.expected = Some(expected::expectation_text(e));
        if args.judge {
            match expected::judge(e, o) {
                Ok(()) => result.row.judged = "agree",
                Err(why) => {
                    result.row.judged = "DISAGREE";
                    result.disagreement = Some(why);
                }
            }
        }
    }
    result
}

/// One file's result in a benchmark pass.
struct BenchOne {
    file: String,
    seconds: f64,
    stats: Option<hazmat_checker::engine::enumerate::Stats>,
    decided: bool,
}

fn bench(args: BenchArgs) -> u8 {
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

fn expand(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            files.extend(hazmat_checker::testkit::harness::litmus_files(p));
        } else {
            files.push(p.clone());
        }
    }
    files
}

fn render(e: &CheckError, file: &str, source: &str) -> String {
    e.render(file, source)
}

fn parse(files: &[PathBuf]) -> u8 {
    let mut code = 0;
    for f in files {
        let name = f.display().to_string();
        match std::fs::read_to_string(f) {
            Ok(src) => match hazmat_litmus::parse(&src) {
                Ok(t) => println!(
                    "{name}: ok: test {} with {} threads",
                    t.name.name,
                    t.threads.len()
                ),
                Err(e) => {
                    eprintln!("{}", e.render(&name, &src).trim_end());
                    code = 2;
                }
            },
            Err(e) => {
                eprintln!("{name}: error: {e}");
                code = 2;
            }
        }
    }
    code
}

fn fmt(check: bool, files: &[PathBuf]) -> u8 {
    let mut code = 0;
    for f in files {
        let name = f.display().to_string();
        let src = match std::fs::read_to_string(f) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{name}: error: {e}");
                code = 2;
                continue;
            }
        };
        let test = match hazmat_litmus::parse_keeping_comments(&src) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{}", e.render(&name, &src).trim_end());
                code = 2;
                continue;
            }
        };
        let printed = hazmat_litmus::print(&test);
        if printed == src {
            continue;
        }
        if check {
            println!("{name}: not in canonical form");
            if code == 0 {
                code = 1;
            }
        } else if let Err(e) = std::fs::write(f, printed) {
            eprintln!("{name}: error: {e}");
            code = 2;
        }
    }
    code
}

/// Draws the executions `--show` selects: returns the text for stdout, or writes one file
/// per execution under `--graph` and returns the list of files written.
fn traces(
    checked: &hazmat_checker::Checked,
    m: &dyn hazmat_checker::models::model::MemoryModel,
    args: &CheckArgs,
) -> Result<String, String> {
    use hazmat_checker::report::trace::{self, Format, Show};
    let show = Show::parse(&args.show).unwrap_or_default();
    let format = Format::parse(&args.graph_format).unwrap_or_default();
    let p = &checked.program;
    // The drawings get the same budget as the check itself.
    let limits = Limits {
        max_executions: args.max_executions,
        deadline: args
            .timeout
            .map(|s| Instant::now() + Duration::from_secs_f64(s.max(0.0))),
        ..Default::default()
    };
    let (shown, total) =
        trace::executions(p, m, show, args.show_max, &limits).map_err(|e| e.message)?;
    let mut out = String::new();
    for (i, x) in shown.iter().enumerate() {
        let extra = trace::select_relations(m, &x.execution, &args.relations)?;
        let noun = show.noun(x.satisfies);
        let title = format!("{}: {noun} {} of {total} under {}", p.name, i + 1, m.name());
        let drawn = format.render(&trace::graph(p, x, title, &extra));
        match &args.graph {
            Some(dir) => {
                std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                let stem = trace::file_stem(&p.name);
                let path = dir.join(format!("{stem}-{noun}-{}.{}", i + 1, format.extension()));
                std::fs::write(&path, drawn).map_err(|e| format!("{}: {e}", path.display()))?;
                out.push_str(&format!("wrote {}\n", path.display()));
            }
            None => {
                out.push_str(&drawn);
                out.push('\n');
            }
        }
    }
    if shown.is_empty() {
        out.push_str(&format!(
            "{}: no {} to show\n\n",
            p.name,
            show.noun(show != Show::Counter)
        ));
    } else if (shown.len() as u64) < total {
        out.push_str(&format!(
            "{}: {} more not shown (--show-max {})\n\n",
            p.name,
            total - shown.len() as u64,
            args.show_max
        ));
    }
    Ok(out)
}

#[derive(clap::Args)]
struct ExplainArgs {
    /// The memory model: lkmm, sc, tso or rc11.
    #[arg(long, default_value = "lkmm")]
    model: String,
    /// The final state to explain, in the syntax of a condition (`1:r0=1 /\ x=2`); by
    /// default the test's own condition.
    #[arg(long)]
    state: Option<String>,
    /// Give up after this many seconds.
    #[arg(long)]
    timeout: Option<f64>,
    /// Also draw the witness, or the first candidate of each group with its cycle, into
    /// files in this directory.
    #[arg(long)]
    graph: Option<PathBuf>,
    /// How to draw them: text, dot or svg.
    #[arg(long, default_value = "svg", value_parser = ["text", "dot", "svg"])]
    graph_format: String,
    /// The litmus file.
    file: PathBuf,
}

fn explain(args: ExplainArgs) -> u8 {
    let m = match model(&args.model) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("hazmat: error: {e}");
            return 2;
        }
    };
    let file = args.file.display().to_string();
    let source = match std::fs::read_to_string(&args.file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{file}: error: {e}");
            return 2;
        }
    };
    let limits = Limits {
        max_executions: None,
        deadline: args
            .timeout
            .map(|s| Instant::now() + Duration::from_secs_f64(s.max(0.0))),
        ..Default::default()
    };
    match hazmat_checker::explain_source(&source, args.state.as_deref(), m.as_ref(), &limits) {
        Ok(explained) => {
            print!("{}", explained.text);
            let Some(dir) = &args.graph else {
                return 0;
            };
            let format = hazmat_checker::report::trace::Format::parse(&args.graph_format)
                .unwrap_or_default();
            if let Err(e) = std::fs::create_dir_all(dir) {
                eprintln!("{}: error: {e}", dir.display());
                return 2;
            }
            for (stem, g) in &explained.graphs {
                let path = dir.join(format!("{stem}.{}", format.extension()));
                if let Err(e) = std::fs::write(&path, format.render(g)) {
                    eprintln!("{}: error: {e}", path.display());
                    return 2;
                }
                println!("wrote {}", path.display());
            }
            0
        }
        Err(e) => {
            eprintln!("{}", e.render(&file));
            2
        }
    }
}
