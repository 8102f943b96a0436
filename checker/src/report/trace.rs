//! Traces: the executions `hazmat check --show` selects, and their text rendering.
//!
//! [`executions`] enumerates a program again under its model and keeps the allowed
//! executions a [`Show`] asks for: the witnesses (their final state satisfies the
//! condition's proposition), the counter-examples (it does not), or all.
//! [`text`] draws an [`ExecutionGraph`] for a terminal or a code review: a header with the
//! final state, one column per thread with its events in program order, then one line per
//! rf, co and fr edge (and per pair of the model relations asked for).
//! [`cycle_text`] prints a [`Violation`]'s cycle event by event, with the relation on
//! each edge.
//! The output depends only on the execution, so it is the same on every run.

use crate::engine::enumerate::{Flow, Limits, RunError, Stop, enumerate};
use crate::exec::event::Value;
use crate::exec::execution::AnyExecution;
use crate::exec::witness::{CheckKind, Violation};
use crate::front::program::{Cell, Program, Prop};
use crate::models::model::{MemoryModel, Pairs};
use crate::report::graph::{EdgeKind, ExecutionGraph, event_label, event_name};
use crate::report::write::state_line;
use std::fmt::Write as _;

/// Which allowed executions to show.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Show {
    /// Those whose final state satisfies the condition's proposition.
    Witness,
    /// Those whose final state does not.
    Counter,
    /// Every allowed execution.
    All,
    /// None.
    #[default]
    None,
}

impl Show {
    /// Parses `witness`, `counter`, `all` or `none`.
    pub fn parse(s: &str) -> Option<Show> {
        Some(match s {
            "witness" => Show::Witness,
            "counter" => Show::Counter,
            "all" => Show::All,
            "none" => Show::None,
            _ => return None,
        })
    }

    /// The word for one shown execution: `witness`, `counter-example` or `execution`.
    pub fn noun(self, satisfies: bool) -> &'static str {
        match (self, satisfies) {
            (Show::All, _) => "execution",
            (_, true) => "witness",
            (_, false) => "counter-example",
        }
    }
}

/// One allowed execution kept for showing.
#[derive(Clone, Debug)]
pub struct Shown {
    /// The execution.
    pub execution: AnyExecution,
    /// Its final state over [`Program::shown`].
    pub state: Vec<Value>,
    /// Whether the state satisfies the condition's proposition.
    pub satisfies: bool,
    /// The flags it raises.
    pub flags: Vec<&'static str>,
}

impl Shown {
    /// The final state as a state line.
    pub fn state_text(&self, p: &Program) -> String {
        state_line(p, &self.state)
    }
}

/// The executions [`executions`] selects.
#[derive(Debug)]
pub struct Selected {
    /// The first ones, as many as asked for.
    pub shown: Vec<Shown>,
    /// How many it selects in all; when a limit stopped the search, how many it met before.
    pub total: u64,
    /// Why the search stopped early, if a limit (the deadline) stopped it.
    pub unknown: Option<String>,
}

/// The first `max` allowed executions of `program` under `model` that `show` selects (in
/// enumeration order, after the filter), and how many it selects in all.
///
/// # Complexity
/// One enumeration of the allowed executions; for witnesses (counter-examples), with the
/// condition's proposition (its negation) as the goal, which cuts the subtrees none of
/// whose executions it selects, so that a test with few of them is quick however many
/// executions it has.
pub fn executions(
    program: &Program,
    model: &dyn MemoryModel,
    show: Show,
    max: usize,
    limits: &Limits,
) -> Result<Selected, RunError> {
    let mut kept = Vec::new();
    let mut total = 0u64;
    if show == Show::None {
        return Ok(Selected {
            shown: kept,
            total,
            unknown: None,
        });
    }
    let prop = &program.condition.prop;
    let goal = match show {
        Show::Witness => Some(prop.clone()),
        Show::Counter => Some(Prop::Not(Box::new(prop.clone()))),
        Show::All | Show::None => None,
    };
    let (_, stop) = enumerate(program, model, limits, goal.as_ref(), &mut |x| {
        let get = |c: Cell| x.value(c);
        if let Some(f) = program.applied_filter()
            && !f.eval(&get)
        {
            return Flow::Continue;
        }
        let satisfies = program.condition.prop.eval(&get);
        let wanted = match show {
            Show::Witness => satisfies,
            Show::Counter => !satisfies,
            Show::All => true,
            Show::None => false,
        };
        if wanted {
            total += 1;
            // `enumerate` uses no symmetry, so every execution is built and has a copy.
            if kept.len() < max
                && let Some(execution) = x.execution()
            {
                kept.push(Shown {
                    execution,
                    state: program.shown.iter().map(|&c| x.value(c)).collect(),
                    satisfies,
                    flags: x.judgement.flags.clone(),
                });
            }
        }
        Flow::Continue
    })?;
    let unknown = match stop {
        Some(Stop::Limit(why)) => Some(why),
        Some(Stop::Done) | None => None,
    };
    Ok(Selected {
        shown: kept,
        total,
        unknown,
    })
}

/// The graph of a shown execution, with the model relations `extra` drawn by name.
pub fn graph(
    p: &Program,
    shown: &Shown,
    title: String,
    extra: &[(String, Pairs)],
) -> ExecutionGraph {
    ExecutionGraph::new(
        p,
        &shown.execution,
        title,
        shown.state_text(p),
        shown.flags.clone(),
        extra,
    )
}

/// The text drawing of an execution graph, ending with a newline: the threads side by side
/// in bands of at most [`crate::report::graph::BAND`], then one line per edge other than
/// `po`.
pub fn text(g: &ExecutionGraph) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}", g.title);
    let _ = writeln!(s, "final state: {}", g.state);
    if !g.flags.is_empty() {
        let _ = writeln!(s, "flags: {}", g.flags.join(", "));
    }
    for note in &g.notes {
        let _ = writeln!(s, "{note}");
    }
    for band in g.bands() {
        s.push('\n');
        let names = &g.threads[band.clone()];
        let columns: Vec<Vec<String>> = band
            .map(|t| g.column(t).iter().map(|n| n.label()).collect())
            .collect();
        let widths: Vec<usize> = columns
            .iter()
            .zip(names)
            .map(|(c, name)| {
                c.iter()
                    .map(|l| l.len())
                    .chain([name.len()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let row = |cells: Vec<&str>| {
            let mut line = String::from("  ");
            for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
                if i > 0 {
                    line.push_str(" | ");
                }
                let _ = write!(line, "{c:<w$}");
            }
            line.trim_end().to_string()
        };
        let _ = writeln!(s, "{}", row(names.iter().map(String::as_str).collect()));
        let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
        let _ = writeln!(
            s,
            "  {}",
            rule.iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join("-+-")
        );
        let depth = columns.iter().map(Vec::len).max().unwrap_or(0);
        for r in 0..depth {
            let cells = columns
                .iter()
                .map(|c| c.get(r).map_or("", String::as_str))
                .collect();
            let _ = writeln!(s, "{}", row(cells));
        }
    }
    if g.threads.is_empty() {
        s.push('\n');
    }
    let edges: Vec<_> = g
        .edges()
        .into_iter()
        .filter(|(_, e, _)| e.kind != EdgeKind::Po)
        .collect();
    if !edges.is_empty() {
        s.push('\n');
        let w = edges
            .iter()
            .map(|(_, e, _)| e.label.len())
            .max()
            .unwrap_or(2);
        for (a, e, b) in edges {
            let _ = writeln!(s, "  {:<w$}  {} -> {}", e.label, a.label(), b.label());
        }
    }
    s
}

/// A violation's cycle, event by event with the relation on each edge:
/// `a: W x=1 -po-> b: F mb -po-> c: R y=0 -fre-> a`, on one line if it fits in 100
/// columns, else one step per line.
pub fn cycle_text(p: &Program, x: &AnyExecution, v: &Violation) -> String {
    let Some(first) = v.cycle.first() else {
        return match v.kind {
            CheckKind::Paths => "(no cycle: the thread paths alone fail the check)".into(),
            _ => "(no cycle)".into(),
        };
    };
    let start = first.from;
    let mut parts = vec![event_label(p, x, start)];
    for st in &v.cycle {
        let to = if st.to == start {
            event_name(x, st.to)
        } else {
            event_label(p, x, st.to)
        };
        parts.push(format!("-{}-> {}", st.label, to));
    }
    let one_line = parts.join(" ");
    if one_line.len() <= 100 {
        one_line
    } else {
        parts.join("\n  ")
    }
}

/// How to draw an execution graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    /// [`text`], for terminals and code review.
    #[default]
    Text,
    /// [`crate::report::dot::dot`], for graphviz.
    Dot,
    /// [`crate::report::svg::svg`], drawn by hazmat.
    Svg,
}

impl Format {
    /// Parses `text`, `dot` or `svg`.
    pub fn parse(s: &str) -> Option<Format> {
        Some(match s {
            "text" => Format::Text,
            "dot" => Format::Dot,
            "svg" => Format::Svg,
            _ => return None,
        })
    }

    /// The file extension: `txt`, `dot` or `svg`.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Text => "txt",
            Format::Dot => "dot",
            Format::Svg => "svg",
        }
    }

    /// Draws `g` in this format.
    pub fn render(self, g: &ExecutionGraph) -> String {
        match self {
            Format::Text => text(g),
            Format::Dot => crate::report::dot::dot(g),
            Format::Svg => crate::report::svg::svg(g),
        }
    }
}

/// The model relations named in `names` (as `--relations ppo,hb` gives them) over `x`, or
/// an error naming the unknown one and the relations the model has.
pub fn select_relations(
    model: &dyn MemoryModel,
    x: &AnyExecution,
    names: &[String],
) -> Result<Vec<(String, Pairs)>, String> {
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let available = model.relations(x);
    names
        .iter()
        .map(|name| {
            available
                .iter()
                .find(|(n, _)| n == name)
                .map(|(n, r)| (n.to_string(), r.clone()))
                .ok_or_else(|| {
                    let known: Vec<&str> = available.iter().map(|(n, _)| *n).collect();
                    if known.is_empty() {
                        format!("the model {} draws no relation", model.name())
                    } else {
                        format!(
                            "unknown relation `{name}` for the model {}; it has {}",
                            model.name(),
                            known.join(", ")
                        )
                    }
                })
        })
        .collect()
}

/// A test name made safe for a file name: characters other than ASCII letters, digits and
/// `+-_.` become `_`.
pub fn file_stem(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "+-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}
