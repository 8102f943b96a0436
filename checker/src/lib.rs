//! Exhaustive litmus-test checking under the Linux-kernel memory model (LKMM), SC, TSO,
//! RC11 and any model written in herd7's cat language, with herd7's output.
//!
//! The path from text to verdict, one folder per stage, each importing only the ones
//! before it (`docs/ARCHITECTURE.md` states the order, and a test holds the code to it):
//! [`hazmat_litmus::parse`] gives the AST; [`front`] lowers it to a
//! [`front::program::Program`]; [`engine`] enumerates its candidate
//! [`exec`]utions under a [`MemoryModel`] of [`models`] and sums up the allowed ones
//! ([`engine::decide::run`]); [`report`] prints the result as herd7 does, explains it or
//! draws it.
//! [`check_source`] does all of it for one file, [`explain_source`] answers `hazmat
//! explain`; [`weaken`] decides every weakening and strengthening of a test (`hazmat
//! weaken`); [`testkit`] holds the generator of random tests and the harness that turns a
//! directory of litmus files into `cargo test` cases.

pub mod engine;
pub mod exec;
pub mod front;
pub mod models;
pub mod report;
pub mod testkit;
pub mod weaken;

use engine::enumerate::{Limits, RunError};
use front::defs::Macros;
use front::lower::{Dialect, LowerError, Warning};
use front::program::{Op, Program};
use hazmat_litmus::ast::Span;
use models::model::MemoryModel;
use report::explain::Explained;
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
    Lower(#[from] LowerError),
    /// Running the test revealed an error; the notes say what was probably meant.
    #[error("{error}")]
    Run {
        /// The error.
        error: RunError,
        /// The notes of lowering's warnings about the erring statement.
        notes: Vec<String>,
    },
    /// The model asked for does not exist or is not available.
    #[error("{0}")]
    Model(String),
}

impl CheckError {
    /// The error as `file:line:col: error: message` (and, but for a model's error, the
    /// source line with a caret under the place, and notes).
    pub fn render(&self, file: &str, source: &str) -> String {
        match self {
            CheckError::Parse(e) => e.render(file, source).trim_end().to_string(),
            CheckError::Lower(e) => e.render(file, source).trim_end().to_string(),
            CheckError::Run { error, notes } => hazmat_litmus::diagnostic::render(
                file,
                source,
                Span::new(error.span.0, error.span.1),
                hazmat_litmus::diagnostic::Severity::Error,
                &error.message,
                notes,
            )
            .trim_end()
            .to_string(),
            CheckError::Model(m) => format!("{file}: error: {m}"),
        }
    }
}

impl From<RunError> for CheckError {
    fn from(error: RunError) -> CheckError {
        CheckError::Run {
            error,
            notes: Vec::new(),
        }
    }
}

/// Finds a model by name.
pub fn model(name: &str) -> Result<Box<dyn MemoryModel>, CheckError> {
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
        model: &dyn MemoryModel,
        options: &Options,
    ) -> Result<Checked, CheckError> {
        match self {
            Engine::Axiomatic => check_source(source, model, options),
            Engine::Shuttle => check_source_with(
                source,
                model.dialect(),
                None,
                reading(options, model),
                |p| engine::interp::run_counting(p, &options.limits, options.deciding_only),
            ),
        }
    }
}

/// One checked test.
#[derive(Debug)]
pub struct Checked {
    /// The parsed test.
    pub test: hazmat_litmus::Test,
    /// The lowered program.
    pub program: Program,
    /// What herd7 reads otherwise than the test probably means (see [`Warning`]).
    pub warnings: Vec<Warning>,
    /// Where hazmat's answer may not be herd7's (executions left out for values hazmat
    /// cannot solve, names of values out of thin air): every command shows them, `hazmat
    /// herd7` too, where the warnings above wait for `-v`.
    pub doubts: Vec<Warning>,
    /// What the enumeration found.
    pub outcome: Outcome,
    /// herd7's digest of the test, printed as `Hash=` ([`hazmat_litmus::herd_hash()`]).
    pub hash: String,
    /// Time spent lowering and enumerating.
    pub elapsed: Duration,
}

impl Checked {
    /// herd7's text output for the test.
    pub fn herd_text(&self) -> String {
        self.herd_text_in(report::write::Radix::Decimal)
    }

    /// herd7's text output, its values in `radix` (herd7's `-hexa`).
    pub fn herd_text_in(&self, radix: report::write::Radix) -> String {
        self.herd_text_by(radix, None).text
    }

    /// herd7's text output, its values in `radix`, its state lines written until `deadline`
    /// ([`report::write::herd_text_by`]), with how many states it leaves out.
    pub fn herd_text_by(
        &self,
        radix: report::write::Radix,
        deadline: Option<Instant>,
    ) -> report::write::Written<String> {
        report::write::herd_text_by(
            &self.program,
            &self.outcome,
            &self.hash,
            self.elapsed.as_secs_f64(),
            radix,
            deadline,
        )
    }
}

/// How `options` read a test under `model`: its reading of the kernel's read-modify-write
/// instructions is the model's ([`MemoryModel::lkmm`]).
fn reading(options: &Options, model: &dyn MemoryModel) -> front::Reading {
    front::Reading {
        lkmm: model.lkmm(),
        ..options.reading()
    }
}

/// How a test is read under `model` by default (herd7's unrolling, no `S128`).
pub(crate) fn model_reading(model: &dyn MemoryModel) -> front::Reading {
    reading(&Options::default(), model)
}

/// Parses, lowers and checks the text of one litmus file.
pub fn check_source(
    source: &str,
    model: &dyn MemoryModel,
    options: &Options,
) -> Result<Checked, CheckError> {
    check_source_with(
        source,
        model.dialect(),
        None,
        reading(options, model),
        |p| engine::decide::run(p, model, options),
    )
    .map(with_symbol_name_warning)
}

/// `checked` with a warning where a final state shows a value out of thin air (`S<n>`)
/// whose name hazmat may not take from herd7's numbering: at the first instruction through
/// which [`engine::symbol`] does not replay it (a `while` loop's unrolling, the result of an
/// instruction with two outcomes used inside an expression), or else at the code of the
/// first thread some of whose paths it could not name ([`engine::enumerate::Stats`]'s
/// `unnamed_at`): the states and counts are herd7's, the name may not be.
fn with_symbol_name_warning(mut checked: Checked) -> Checked {
    let shows_symbol = checked
        .outcome
        .states
        .iter()
        .flatten()
        .any(|v| matches!(v, exec::event::Value::Sym(_)));
    if !shows_symbol {
        return checked;
    }
    let unreplayed = engine::symbol::unreplayed(&checked.program);
    if let Some((start, end)) = unreplayed.or(checked.outcome.stats.unnamed_at) {
        checked.doubts.push(Warning {
            message: "a final state shows a value out of thin air (`S` and a number): herd7 \
                      names it by the count of fresh values its C front end keeps, which \
                      hazmat does not replay through this instruction, so the name may differ \
                      from herd7's (the states and counts do not)"
                .to_string(),
            span: Span::new(start, end),
            notes: Vec::new(),
        });
    }
    checked
}

/// Checks one litmus file as [`check_source`] does, its C macros read from a user's
/// `.def` file (herd7's `-macros`) instead of the kernel's.
pub fn check_source_with_macros(
    source: &str,
    macros: &Macros,
    model: &dyn MemoryModel,
    options: &Options,
) -> Result<Checked, CheckError> {
    check_source_with(
        source,
        model.dialect(),
        Some(macros),
        reading(options, model),
        |p| engine::decide::run(p, model, options),
    )
    .map(with_symbol_name_warning)
}

/// The warning for runs cut off by a `while` loop's unrolling, at the first loop of the
/// program.
fn cutoff_warning(program: &Program, unroll: u32) -> Option<Warning> {
    let (start, end) = program.first_instr(|op| matches!(op, Op::Cutoff))?;
    Some(Warning {
        message: format!(
            "some runs go round this loop more than {unroll} times, herd7's unrolling \
             limit (`-unroll`): herd7 leaves them out, and so does hazmat, so legal \
             outcomes may be missing (the result says `Loop`)"
        ),
        span: Span::new(start, end),
        notes: Vec::new(),
    })
}

/// The warning for executions dropped at a read whose address is no location (herd7
/// finds no write for it, and drops them too), at the first such access.
/// `every` says whether no execution is left.
fn nowhere_warning(
    test: &hazmat_litmus::Test,
    stats: &engine::enumerate::Stats,
    every: bool,
) -> Option<Warning> {
    let (start, end) = stats.nowhere_at?;
    let which = if every {
        "every execution"
    } else {
        "some executions"
    };
    Some(Warning {
        message: format!(
            "in {which}, this access reads at an address that is no location: herd7 finds no \
             write for such a read and drops the execution, and so does hazmat, so the result \
             counts none of them"
        ),
        span: Span::new(start, end),
        notes: front::names::address_note(test, Span::new(start, end))
            .into_iter()
            .collect(),
    })
}

/// Parses and lowers the text of one litmus file, in `dialect`, with a user's `macros` if
/// given and read as `reading` says (herd7's variant `S128`, `-unroll`): the front half of [`check_source`] and
/// [`explain_source`], for a caller that runs the engine on the [`Program`] itself
/// (with herd7's locations next to a variable added, which lowering alone does not know).
pub fn parse_and_lower(
    source: &str,
    dialect: Dialect,
    macros: Option<&Macros>,
    reading: front::Reading,
) -> Result<(hazmat_litmus::Test, Program, Vec<Warning>), CheckError> {
    let test = hazmat_litmus::parse(source).map_err(CheckError::Parse)?;
    let (mut program, mut warnings) =
        front::lower::lower_with_variant(&test, dialect, macros, reading)?;
    warnings.extend(front::names::trailer_warnings(&test));
    if macros.is_none() {
        warnings.extend(front::names::dialect_warning(&test, dialect));
    }
    engine::paths::add_adjacent_locations(&mut program).map_err(|e| CheckError::Run {
        error: RunError {
            message: e.message,
            span: e.span,
            herd7: None,
        },
        notes: Vec::new(),
    })?;
    Ok((test, program, warnings))
}

/// Parses and lowers the text of one litmus file, and decides it with `decide`.
fn check_source_with(
    source: &str,
    dialect: Dialect,
    macros: Option<&Macros>,
    reading: front::Reading,
    decide: impl FnOnce(&Program) -> Result<Outcome, RunError>,
) -> Result<Checked, CheckError> {
    let start = Instant::now();
    let (test, program, mut warnings) = parse_and_lower(source, dialect, macros, reading)?;
    let outcome = decide(&program).map_err(|error| {
        // What lowering said of the names in the erring statement.
        let within = |w: &&Warning| error.span.0 <= w.span.start && w.span.end <= error.span.1;
        let notes = warnings.iter().filter(within);
        let notes = notes.flat_map(|w| w.notes.iter().cloned()).collect();
        CheckError::Run { error, notes }
    })?;
    let hash = hazmat_litmus::herd_hash(&test, source);
    if outcome.stats.removed.cutoff > 0 {
        // The test's own `Unroll=N` line, which lowering took, wins.
        let unroll = reading.of_test(&test).map_or(reading.unroll, |r| r.unroll);
        warnings.extend(cutoff_warning(&program, unroll));
    }
    let every = outcome.states.is_empty() && outcome.unknown.is_none();
    warnings.extend(nowhere_warning(&test, &outcome.stats, every));
    Ok(Checked {
        test,
        program,
        warnings,
        doubts: Vec::new(),
        outcome,
        hash,
        elapsed: start.elapsed(),
    })
}

/// Why `hazmat explain` could not answer.
#[derive(Debug)]
pub enum ExplainError {
    /// The test itself could not be checked.
    Test {
        /// What went wrong.
        error: CheckError,
        /// The test's text, to place the error.
        source: String,
    },
    /// The state given on the command line is not a proposition over the test's cells.
    State {
        /// What is wrong, starting lowercase.
        message: String,
        /// The 1-based column in the state's text.
        col: usize,
    },
}

impl ExplainError {
    /// The error as `file:line:col: error: message`, or `--state:1:col: error: message`.
    pub fn render(&self, file: &str) -> String {
        match self {
            ExplainError::Test { error, source } => error.render(file, source),
            ExplainError::State { message, col } => format!("--state:1:{col}: error: {message}"),
        }
    }
}

/// Parses, lowers and explains a litmus test ([`report::explain`]): the state is `state`
/// (in the syntax of a condition's proposition) when given, else the test's condition (for
/// `forall`, the states where its proposition fails).
pub fn explain_source(
    source: &str,
    state: Option<&str>,
    model: &dyn MemoryModel,
    limits: &Limits,
) -> Result<Explained, ExplainError> {
    let test_error = |error: CheckError| ExplainError::Test {
        error,
        source: source.to_string(),
    };
    let dialect = model.dialect();
    let (test, original, warnings) =
        parse_and_lower(source, dialect, None, model_reading(model)).map_err(test_error)?;
    let program = match state {
        None => original,
        Some(text) => {
            // The test with its condition replaced by `exists (STATE)`.
            let (start, end) = test
                .condition
                .as_ref()
                .map_or((source.len(), source.len()), |c| (c.span.start, c.span.end));
            let prefix = "exists (";
            let spliced = format!("{}\n{prefix}{text})\n{}", &source[..start], &source[end..]);
            let at = start + 1 + prefix.len();
            let state_error = |message: String, pos: usize| ExplainError::State {
                message,
                col: pos
                    .checked_sub(at)
                    .and_then(|n| text.get(..n))
                    .map_or(1, |t| t.chars().count() + 1),
            };
            let spliced = match parse_and_lower(&spliced, dialect, None, model_reading(model)) {
                Ok((_, program, _)) => program,
                Err(CheckError::Parse(e)) => return Err(state_error(e.message, e.span.start)),
                Err(CheckError::Lower(e)) => return Err(state_error(e.message, e.span.start)),
                Err(e) => return Err(test_error(e)),
            };
            // The state may only name what the test has: lowering would make up a register
            // or a location it does not know.
            if let Some(name) = report::explain::unknown_name(&original, &spliced) {
                let col = text
                    .find(&name)
                    .map_or(1, |i| text[..i].chars().count() + 1);
                return Err(ExplainError::State {
                    message: format!("the test has no `{name}`"),
                    col,
                });
            }
            spliced
        }
    };
    let mut explained = report::explain::explained(&program, model, state, limits)
        .map_err(|e| test_error(e.into()))?;
    explained.warnings = warnings;
    if let report::explain::Answer::NoCandidate {
        any_candidate,
        stats,
    } = &explained.answer
    {
        let warning = nowhere_warning(&test, stats, !any_candidate);
        explained.warnings.extend(warning);
    }
    Ok(explained)
}

#[cfg(test)]
mod tests {
    use super::*;
    use exec::event::Value;

    /// A value out of thin air shown where the enumeration could not name some paths of a
    /// thread ([`engine::enumerate::Stats`]'s `unnamed_at`) is warned of, at that thread's
    /// code, as where the replay stops; nothing is said where no such value is shown.
    #[test]
    fn a_value_out_of_thin_air_on_unnamed_paths_is_warned_of() {
        let source = "C t\n{}\nP0(int *x) { int r0; r0 = READ_ONCE(*x); }\nexists (0:r0=1)\n";
        let checked = |shown: Value, unnamed| {
            let mut c =
                check_source(source, &models::lkmm::Lkmm, &Options::default()).expect("decided");
            assert!(c.doubts.is_empty());
            c.outcome.states = vec![vec![shown]];
            c.outcome.stats.unnamed_at = unnamed;
            with_symbol_name_warning(c).doubts
        };
        let at = source.find("r0 = READ").expect("P0");
        let doubts = checked(Value::Sym(2), Some((at, at + 18)));
        assert_eq!(doubts.len(), 1);
        assert!(
            doubts[0].render("t.litmus", source).contains(
                "hazmat does not replay through this instruction, so the name may differ"
            ),
            "{doubts:?}"
        );
        assert_eq!(doubts[0].span, Span::new(at, at + 18));
        assert!(checked(Value::Sym(2), None).is_empty());
        assert!(checked(Value::Int(0), Some((at, at + 18))).is_empty());
    }
}
