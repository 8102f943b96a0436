//! `hazmat check`: decide litmus files under a memory model, print herd7's output (or JSON),
//! judge verdicts against the files' `Result:` lines, and draw executions.
//!
//! A model given by its files (`--cat`, `--bell`, `--macros`, `--conf`) goes to the
//! library's one choice of what runs it ([`hazmat_checker::models::choose`]).

use super::{expand, render};
use hazmat_checker::engine::enumerate::{Limits, Split};
use hazmat_checker::report::expected;
use hazmat_checker::report::write::{self, SummaryRow};
use hazmat_checker::{Engine, Options, model};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub(crate) struct CheckArgs {
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

pub(crate) fn check(args: CheckArgs) -> u8 {
    if args.json && args.show != "none" && args.graph.is_none() {
        // Drawings on stdout would break the one-object-per-line JSON.
        eprintln!("hazmat: error: --show with --json needs --graph DIR to write the drawings to");
        return 2;
    }
    if let Some(e) = drawing_without_show(&args) {
        eprintln!("hazmat: error: {e}");
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
    let left_out = args
        .judge
        .then(|| super::judge::select(&mut files, m.name()));
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
    if let Some(left) = &left_out {
        let judged = results.iter().filter(|r| !r.row.judged.is_empty()).count();
        let errors = results.iter().filter(|r| r.error.is_some()).count();
        let unstated = results.len() - judged - errors;
        let (line, nothing) = super::judge::summary(left, m.name(), judged, errors, unstated);
        eprintln!("{line}");
        if nothing {
            code = 2;
        }
    }
    if code == 0 && results.iter().any(|r| r.unknown) {
        code = 3;
    }
    code
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
    if args.judge
        && let Some(e) = super::judge::problems(&checked.test, m.name(), &file, &source)
    {
        result.error = Some(e);
        return result;
    }
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
/// Why the drawing options given would draw nothing: `--graph`, `--graph-format` or
/// `--relations` without `--show`, which chooses the executions drawn.
fn drawing_without_show(args: &CheckArgs) -> Option<String> {
    if args.show != "none" {
        return None;
    }
    let given = match (
        &args.graph,
        args.graph_format.as_str(),
        args.relations.is_empty(),
    ) {
        (Some(dir), _, _) => format!("--graph {}", dir.display()),
        (None, "text", true) => return None,
        (None, "text", false) => "--relations".to_string(),
        (None, format, _) => format!("--graph-format {format}"),
    };
    Some(format!(
        "{given} draws the executions `--show` chooses, and none is chosen: add `--show \
         witness` (or `counter`, `all`)"
    ))
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
