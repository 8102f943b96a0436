//! Exhaustive litmus-test checking under the Linux-kernel memory model, SC and TSO.
//!
//! The path from text to verdict: [`hazmat_litmus::parse`] gives the AST, [`front::lower::lower`]
//! a [`front::program::Program`], [`engine::decide::run`] enumerates its candidate executions
//! ([`enumerate`]) under a [`models::model::MemoryModel`] and sums up the allowed ones, and
//! [`report`] prints the result as herd7 does.
//! [`check_source`] does all of it for one file; [`harness`] turns a directory of litmus
//! files into `cargo test` cases.

pub mod engine;
pub mod exec;
pub mod front;
pub mod models;
pub mod report;
pub mod testkit;

use hazmat_litmus::ast::{Span, line_col};
use std::time::{Duration, Instant};

pub use engine::outcome::{Options, Outcome, Verdict};

/// The names of the models `--model` accepts.
pub const MODELS: &[&str] = &["lkmm", "sc", "tso", "rc11"];

/// The names of every kernel primitive hazmat knows (the macros of `linux-kernel.def`).
pub fn primitives() -> impl Iterator<Item = &'static str> {
    front::primitive::names()
}

/// Why a test could not be checked.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The text is not a litmus test.
    #[error("{}", .0.message)]
    Parse(hazmat_litmus::ParseError),
    /// The test uses something hazmat cannot run.
    #[error(transparent)]
    Lower(#[from] front::lower::LowerError),
    /// Running the test revealed an error.
    #[error(transparent)]
    Run(#[from] engine::enumerate::RunError),
    /// The model asked for does not exist or is not available.
    #[error("{0}")]
    Model(String),
}

impl CheckError {
    /// The error as `file:line:col: error: message` (and, for parse and lowering errors,
    /// the source line with a caret under the place).
    pub fn render(&self, file: &str, source: &str) -> String {
        let at = |span: Span| {
            let (l, c) = line_col(source, span.start);
            format!("{file}:{l}:{c}")
        };
        match self {
            CheckError::Parse(e) => e.render(file, source).trim_end().to_string(),
            CheckError::Lower(e) => e.render(file, source).trim_end().to_string(),
            CheckError::Run(e) => format!(
                "{}: error: {}",
                at(Span::new(e.span.0, e.span.1)),
                e.message
            ),
            CheckError::Model(m) => format!("{file}: error: {m}"),
        }
    }
}

/// Finds a model by name.
pub fn model(name: &str) -> Result<Box<dyn models::model::MemoryModel>, CheckError> {
    match name {
        "sc" => Ok(Box::new(models::sc::Sc)),
        "tso" => Ok(Box::new(models::tso::Tso)),
        "lkmm" => Ok(Box::new(models::lkmm::Lkmm)),
        "rc11" => Ok(Box::new(models::rc11::Rc11)),
        other => Err(CheckError::Model(format!(
            "unknown model `{other}`; the models are {}",
            MODELS.join(", ")
        ))),
    }
}

/// The names of the engines `--engine` accepts.
pub const ENGINES: &[&str] = &["axiomatic", "shuttle"];

/// How a test is decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// Candidate executions judged by a memory model ([`engine::decide::run`]).
    Axiomatic,
    /// Every interleaving run under shuttle's DFS scheduler ([`engine::interp::run`]); sequentially
    /// consistent only.
    Shuttle,
}

impl Engine {
    /// The engine named `name`, checked against the model it is asked to decide.
    pub fn new(name: &str, model: &str) -> Result<Engine, CheckError> {
        match name {
            "axiomatic" => Ok(Engine::Axiomatic),
            "shuttle" if model == "sc" => Ok(Engine::Shuttle),
            "shuttle" => Err(CheckError::Model(format!(
                "the shuttle engine decides only `--model sc`, not `{model}`"
            ))),
            other => Err(CheckError::Model(format!(
                "unknown engine `{other}`; the engines are {}",
                ENGINES.join(", ")
            ))),
        }
    }

    /// [`check_source`] with this engine.
    pub fn check_source(
        self,
        source: &str,
        model: &dyn models::model::MemoryModel,
        options: &Options,
    ) -> Result<Checked, CheckError> {
        match self {
            Engine::Axiomatic => check_source(source, model, options),
            Engine::Shuttle => check_source_with(source, model.dialect(), None, |p| {
                engine::interp::run(p, &options.limits)
            }),
        }
    }
}

/// One checked test.
#[derive(Debug)]
pub struct Checked {
    /// The parsed test.
    pub test: hazmat_litmus::Test,
    /// The lowered program.
    pub program: front::program::Program,
    /// What herd7 reads otherwise than the test probably means (see [`front::lower::Warning`]).
    pub warnings: Vec<front::lower::Warning>,
    /// What the enumeration found.
    pub outcome: Outcome,
    /// herd7's digest of the test, printed as `Hash=` ([`hazmat_litmus::herd_hash`]).
    pub hash: String,
    /// Time spent lowering and enumerating.
    pub elapsed: Duration,
}

impl Checked {
    /// herd7's text output for the test.
    pub fn herd_text(&self) -> String {
        report::write::herd_text(
            &self.program,
            &self.outcome,
            &self.hash,
            self.elapsed.as_secs_f64(),
        )
    }
}

/// Parses, lowers and checks the text of one litmus file.
pub fn check_source(
    source: &str,
    model: &dyn models::model::MemoryModel,
    options: &Options,
) -> Result<Checked, CheckError> {
    check_source_with(source, model.dialect(), None, |p| {
        engine::decide::run(p, model, options)
    })
    .map(|c| with_thin_air_warning(c, model))
}

/// `checked` with a warning where the model may allow executions hazmat drops for values
/// it cannot solve ([`models::model::MemoryModel::keeps_thin_air`]): some were dropped, and the
/// test has a compare-exchange, whose expected value herd7 may solve them through.
fn with_thin_air_warning(mut checked: Checked, model: &dyn models::model::MemoryModel) -> Checked {
    fn find(code: &[front::program::Instr]) -> Option<(usize, usize)> {
        code.iter().find_map(|i| match &i.op {
            front::program::Op::CompareExchange { .. } => Some(i.span),
            front::program::Op::If { then, els, .. } => find(then).or_else(|| find(els)),
            _ => None,
        })
    }
    if checked.outcome.stats.removed.unsolvable == 0 || !model.keeps_thin_air() {
        return checked;
    }
    if let Some((start, end)) = checked.program.threads.iter().find_map(|t| find(&t.code)) {
        checked.warnings.push(front::lower::Warning {
            message: format!(
                "{} candidate execution(s) were left out because their values go round a \
                 cycle hazmat cannot solve; herd7 solves some such cycles through a \
                 compare-exchange's expected value, and this model may allow them, so the \
                 counts may be smaller than herd7's",
                checked.outcome.stats.removed.unsolvable
            ),
            span: hazmat_litmus::ast::Span::new(start, end),
            notes: Vec::new(),
        });
    }
    checked
}

/// Checks one litmus file as [`check_source`] does, its C macros read from a user's
/// `.def` file (herd7's `-macros`) instead of the kernel's.
pub fn check_source_with_macros(
    source: &str,
    macros: &front::defs::Macros,
    model: &dyn models::model::MemoryModel,
    options: &Options,
) -> Result<Checked, CheckError> {
    check_source_with(source, model.dialect(), Some(macros), |p| {
        engine::decide::run(p, model, options)
    })
    .map(|c| with_thin_air_warning(c, model))
}

/// The warning for runs cut off by a `while` loop's unrolling, at the first loop of the
/// program.
fn cutoff_warning(program: &front::program::Program) -> Option<front::lower::Warning> {
    fn find(code: &[front::program::Instr]) -> Option<(usize, usize)> {
        code.iter().find_map(|i| match &i.op {
            front::program::Op::Cutoff => Some(i.span),
            front::program::Op::If { then, els, .. } => find(then).or_else(|| find(els)),
            _ => None,
        })
    }
    let (start, end) = program.threads.iter().find_map(|t| find(&t.code))?;
    Some(front::lower::Warning {
        message: format!(
            "some runs go round this loop more than {} times, herd7's unrolling limit: \
             herd7 leaves them out, and so does hazmat, so legal outcomes may be missing \
             (the result says `Loop`)",
            front::lower::UNROLL
        ),
        span: hazmat_litmus::ast::Span::new(start, end),
        notes: Vec::new(),
    })
}

/// Parses and lowers the text of one litmus file, and decides it with `decide`.
fn check_source_with(
    source: &str,
    dialect: front::lower::Dialect,
    macros: Option<&front::defs::Macros>,
    decide: impl FnOnce(&front::program::Program) -> Result<Outcome, engine::enumerate::RunError>,
) -> Result<Checked, CheckError> {
    let start = Instant::now();
    let test = hazmat_litmus::parse(source).map_err(CheckError::Parse)?;
    let (program, mut warnings) = front::lower::lower_with_macros(&test, dialect, macros)?;
    let outcome = decide(&program)?;
    let hash = hazmat_litmus::herd_hash(&test, source);
    if outcome.stats.removed.cutoff > 0 {
        warnings.extend(cutoff_warning(&program));
    }
    Ok(Checked {
        test,
        program,
        warnings,
        outcome,
        hash,
        elapsed: start.elapsed(),
    })
}
