//! `hazmat check`: decide litmus files under a memory model, print herd7's output (or JSON),
//! judge verdicts against the files' `Result:` lines, and draw executions.
//!
//! A model given by its files (`--cat`, `--bell`, `--macros`, `--conf`) goes to the
//! library's one choice of what runs it ([`hazmat_checker::models::choose`]).

use super::model::{Chosen, ModelArgs};
use super::{expand, render};
use hazmat_checker::engine::enumerate::{Limits, Split};
use hazmat_checker::models::cat::config::Speedcheck;
use hazmat_checker::report::expected;
use hazmat_checker::report::write::{self, SummaryRow};
use hazmat_checker::{Engine, Options};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    model: ModelArgs,
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
    /// Unroll each `while` loop this many times (herd7's `-unroll`; twice by default, as
    /// herd7 does for C); a run that would go round once more is cut off.
    #[arg(long)]
    unroll: Option<u32>,
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
    /// Files or directories.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Values printed in hexadecimal, as a configuration file's `hexa true` asks.
    #[arg(skip)]
    hexa: bool,
    /// The final states show the registers read from memory, as a configuration file's
    /// `outcomereads true` asks (herd7's `-outcomereads`).
    #[arg(skip)]
    outcome_reads: bool,
    /// Only the executions that can decide the condition count, every one of them, as a
    /// configuration file's `speedcheck true` asks (herd7's `-speedcheck true`).
    #[arg(skip)]
    deciding_only: bool,
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
    /// Whether final states are left out of the output: `--timeout` passed before they
    /// were written, or drawn.
    cut: bool,
}

pub(crate) fn check(mut args: CheckArgs) -> u8 {
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
    let engine = match Engine::new(&args.engine, args.model.model.as_deref().unwrap_or(default)) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("hazmat: error: {e}");
            return 2;
        }
    };
    let chosen = match args.model.choose(default) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    // The configuration's options, where the command line gives none.
    args.speedcheck |= chosen.settings.speedcheck == Speedcheck::Fast;
    args.deciding_only = chosen.settings.speedcheck == Speedcheck::True;
    args.timeout = args.timeout.or(chosen.settings.timeout);
    args.hexa = chosen.settings.hexa;
    args.outcome_reads = chosen.settings.outcome_reads;
    args.unroll = args.unroll.or(chosen.settings.unroll);
    let m = chosen.model.as_ref();
    let source = &chosen;
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
    let others = Others::default();
    let results: Vec<FileResult> = files
        .par_iter()
        .map(|f| {
            let r = check_file(f, engine, m, source, &args, &others);
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
    if code == 0 && results.iter().any(|r| r.unknown || r.cut) {
        code = 3;
    }
    code
}

/// The models chosen again under the variants tests add with their own `Variant=` line,
/// by variants, or why none could be.
type Others = Mutex<HashMap<Vec<String>, Result<Arc<Chosen>, String>>>;

/// The model given by its files chosen again under the variants the test's own `Variant=`
/// line adds, as herd7 adds them for that test; `None` when it adds none, or when the
/// model is named by `--model` (the test's error, if any, is the check's to report); a
/// refusal comes with the byte offset of the line.
fn with_own_variants(
    source: &str,
    chosen: &Chosen,
    args: &CheckArgs,
    others: &Others,
) -> Result<Option<Arc<Chosen>>, (String, usize)> {
    // Only a test that says `variant` (in any case) somewhere can have the line: the others
    // are not parsed twice.
    let says_variant = source
        .as_bytes()
        .windows(b"variant".len())
        .any(|w| w.eq_ignore_ascii_case(b"variant"));
    if chosen.file.is_none() || !says_variant {
        return Ok(None);
    }
    let Ok(test) = hazmat_litmus::parse(source) else {
        return Ok(None);
    };
    let Some(own) = chosen.settings.with_test_variants(&test)? else {
        return Ok(None);
    };
    let mut others = others.lock().unwrap_or_else(|e| e.into_inner());
    let other = others
        .entry(own.variants.clone())
        .or_insert_with(|| args.model.choose_under(own).map(Arc::new));
    other.clone().map(Some).map_err(|m| (m, 0))
}

fn check_file(
    path: &Path,
    engine: Engine,
    m: &dyn hazmat_checker::models::model::MemoryModel,
    model_source: &Chosen,
    args: &CheckArgs,
    others: &Others,
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
        cut: false,
    };
    let source = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) => {
            result.error = Some(format!("{file}: error: {e}"));
            return result;
        }
    };
    let own = match with_own_variants(&source, model_source, args, others) {
        Ok(own) => own,
        Err((e, at)) => {
            let before = &source[..at.min(source.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            result.error = Some(format!("{file}:{line}:{col}: error: {e}"));
            return result;
        }
    };
    let (m, model_source) = match &own {
        Some(c) => (c.model.as_ref(), &**c),
        None => (m, model_source),
    };
    // One deadline for the whole test: the search, its report and its drawings.
    let deadline = args
        .timeout
        .map(|s| start + Duration::from_secs_f64(s.max(0.0)));
    let options = Options {
        limits: Limits {
            max_executions: args.max_executions,
            deadline,
            split: Split::Large,
            optace: model_source.settings.optace,
            ..Default::default()
        },
        speedcheck: args.speedcheck,
        deciding_only: args.deciding_only,
        unroll: args.unroll,
        outcome_reads: args.outcome_reads,
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
        .chain(&checked.doubts)
        .map(|w| w.render(&file, &source).trim_end().to_string())
        .collect();
    let o = &checked.outcome;
    let seconds = checked.elapsed.as_secs_f64();
    let left_out;
    result.text = if args.json {
        let j = write::json_by(
            &checked.program,
            o,
            m.name(),
            &file,
            &checked.hash,
            seconds,
            deadline,
        );
        left_out = j.left_out;
        let mut j = j.text;
        j["model_source"] = serde_json::json!({
            "kind": model_source.kind.as_str(),
            "file": model_source.file,
        });
        let mut j = j.to_string();
        j.push('\n');
        j
    } else {
        let radix = if args.hexa {
            hazmat_checker::report::write::Radix::Hexadecimal
        } else {
            hazmat_checker::report::write::Radix::Decimal
        };
        let written = checked.herd_text_by(radix, deadline);
        left_out = written.left_out;
        written.text
    };
    if left_out > 0 {
        result.cut = true;
        result.warnings.push(format!(
            "{file}: warning: {left_out} final states are left out of the output: the \
             --timeout of {} s passed before they were written",
            args.timeout.unwrap_or(0.0)
        ));
    }
    if args.show != "none" {
        match traces(&checked, m, model_source, args, deadline) {
            // Under --json, stdout holds JSON only; the drawings are in their files.
            Ok((t, stopped)) => {
                if stopped {
                    result.cut = true;
                    result.warnings.push(format!(
                        "{file}: warning: the --timeout of {} s passed before every \
                         execution to draw was found",
                        args.timeout.unwrap_or(0.0)
                    ));
                }
                if !args.json {
                    result.text.push_str(&t);
                }
            }
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
/// per execution under `--graph` and returns the list of files written; and whether a limit
/// (the deadline) stopped the search for them.
fn traces(
    checked: &hazmat_checker::Checked,
    m: &dyn hazmat_checker::models::model::MemoryModel,
    model_source: &Chosen,
    args: &CheckArgs,
    deadline: Option<Instant>,
) -> Result<(String, bool), String> {
    use hazmat_checker::report::trace::{self, Format, Show};
    let show = Show::parse(&args.show).unwrap_or_default();
    let format = Format::parse(&args.graph_format).unwrap_or_default();
    let p = &checked.program;
    // The drawings share the check's deadline: `--timeout` bounds the whole test.
    let limits = Limits {
        max_executions: args.max_executions,
        deadline,
        optace: model_source.settings.optace,
        ..Default::default()
    };
    let trace::Selected {
        shown,
        total,
        unknown,
    } = trace::executions(p, m, show, args.show_max, &limits).map_err(|e| e.message)?;
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
    if let Some(why) = &unknown {
        // The search for executions to draw stopped early: the count is of those met.
        out.push_str(&format!(
            "{}: the search for executions to draw stopped ({why}): {total} met, {} drawn, \
             and there may be more\n\n",
            p.name,
            shown.len()
        ));
    } else if shown.is_empty() {
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
    Ok((out, unknown.is_some()))
}
