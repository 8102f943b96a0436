//! Explanations: why a final state is allowed or forbidden under a model.
//!
//! `hazmat explain` asks one question of a test: can an execution the model allows end in
//! this state (the test's condition, or one given on the command line)?
//! - If one can, the answer is a witness: the first such execution, drawn as a trace.
//! - If none can, the answer is the candidates: every candidate execution (thread paths,
//!   rf and co chosen, values consistent, filter passed) that reaches the state, each with
//!   the check that rejects it and the shortest cycle behind it
//!   ([`MemoryModel::explain`]).
//!   Candidates that fail the same check with the same cycle shape (events of the same
//!   kinds joined by the same relations, whatever their locations and values) form one
//!   group, shown once with its count.
//! - If no candidate reaches the state, no model could allow it; and a test with no
//!   candidate at all (every path blocks, as in a deadlock, or the filter removes all)
//!   says so.
//!
//! The candidates come from the ordinary enumeration under a model that allows everything
//! ([`AllCandidates`]), so they are exactly the executions a model is asked to judge.
//! Like the enumeration, this module does no I/O.

use crate::engine::enumerate::{Allowed, Flow, Limits, Removed, RunError, Stats, Stop, enumerate};
use crate::exec::execution::{AnyExecution, Execution};
use crate::exec::relation::Width;
use crate::exec::witness::Violation;
use crate::front::program::{Cell, Program, Prop, Quantifier};
use crate::models::model::{self, Judge, Judgement, MemoryModel, Pairs};
use crate::report::graph::{ExecutionGraph, event_text};
use crate::report::trace::{self, Shown};
use crate::report::write::condition_text;
use std::fmt::Write as _;

/// A model that allows every candidate execution: the enumeration under it visits the
/// whole candidate set.
#[derive(Clone, Copy, Debug, Default)]
pub struct AllCandidates;

crate::models::model::judge_at_every_width!(AllCandidates);

impl Judge for AllCandidates {
    fn judge_any<W: Width>(&self, _: &Execution<W>) -> Judgement {
        Judgement::default()
    }
}

impl MemoryModel for AllCandidates {
    fn name(&self) -> &'static str {
        "candidates"
    }
}

/// Candidates rejected for one reason: the same check and the same cycle shape.
#[derive(Clone, Debug)]
pub struct Group {
    /// The failing check, as the model names it.
    pub check: &'static str,
    /// The cycle of the first candidate of the group, if the model explains the check.
    pub violation: Option<Violation>,
    /// The first candidate of the group.
    pub first: Shown,
    /// How many candidates the group holds.
    pub count: u64,
}

/// The answer to one question.
#[derive(Clone, Debug)]
pub enum Answer {
    /// An allowed execution reaches the state; here is the first.
    Allowed(Box<Shown>),
    /// Candidates reach the state but the model rejects each; grouped by reason.
    Forbidden(Vec<Group>),
    /// No candidate reaches the state; `any_candidate` says whether the test has
    /// candidates at all.
    NoCandidate {
        /// Whether some candidate execution (reaching any state) exists.
        any_candidate: bool,
        /// The counts of the enumeration of every candidate: why it removed what it built.
        stats: Stats,
    },
}

/// The shape of a cycle: what its events do (kind and annotations, without locations or
/// values) and the relations between them, from the rotation that reads first in
/// lexicographic order, so that the same cycle through other events of the same kinds has
/// the same shape.
fn shape(p: &Program, x: &AnyExecution, v: &Option<Violation>) -> String {
    let Some(v) = v else {
        return String::new();
    };
    let steps: Vec<String> = v
        .cycle
        .iter()
        .map(|st| {
            let text = event_text(p, x, st.from);
            let what = if x.events[st.from].is_fence() {
                text
            } else {
                text.split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .to_string()
            };
            format!("{what} -{}-> ", st.label)
        })
        .collect();
    (0..steps.len().max(1))
        .map(|r| {
            let mut rotated = steps.clone();
            rotated.rotate_left(r.min(steps.len().saturating_sub(1)));
            rotated.concat()
        })
        .min()
        .unwrap_or_default()
}

/// Whether an allowed execution of `program` under `model` reaches a final state
/// satisfying `state` (after the filter), and if not, why.
///
/// # Complexity
/// One enumeration under the model, which stops at the first witness; when there is none,
/// a second one over the candidates that may reach the state (the state's registers cut
/// the others early), with one model explanation per candidate.
pub fn explain(
    program: &Program,
    model: &dyn MemoryModel,
    state: &Prop,
    limits: &Limits,
) -> Result<Answer, RunError> {
    let shown = |x: &Allowed<'_>, execution: AnyExecution, satisfies: bool, flags| Shown {
        execution,
        state: program.shown.iter().map(|&c| x.value(c)).collect(),
        satisfies,
        flags,
    };
    let passes = |x: &Allowed<'_>| {
        let get = |c: Cell| x.value(c);
        program.applied_filter().is_none_or(|f| f.eval(&get)) && state.eval(&get)
    };
    let limited = |stop: Option<Stop>| match stop {
        Some(Stop::Limit(why)) => Err(RunError {
            message: format!("gave up at the limit of {why}; the answer is unknown"),
            span: (0, 0),
            herd7: None,
        }),
        _ => Ok(()),
    };
    // `enumerate` uses no symmetry, so every execution is built and has a copy.
    let mut witness = None;
    let (_, stop) = enumerate(program, model, limits, Some(state), &mut |x| match x
        .execution()
        .filter(|_| passes(x))
    {
        Some(e) => {
            let sat = program.condition.prop.eval(&|c: Cell| x.value(c));
            witness = Some(shown(x, e, sat, x.judgement.flags.clone()));
            Flow::Stop
        }
        None => Flow::Continue,
    })?;
    limited(stop)?;
    if let Some(w) = witness {
        return Ok(Answer::Allowed(Box::new(w)));
    }
    let mut groups: Vec<(String, Group)> = Vec::new();
    let (_, stop) = enumerate(program, &AllCandidates, limits, Some(state), &mut |x| {
        let Some(e) = x.execution().filter(|_| passes(x)) else {
            return Flow::Continue;
        };
        let judgement = model::judge(model, &e);
        let check = judgement.rejected_by.unwrap_or("(none)");
        let violation = model.explain(&e);
        let key = format!("{check} {}", shape(program, &e, &violation));
        if let Some((_, g)) = groups.iter_mut().find(|(k, _)| *k == key) {
            g.count += 1;
        } else {
            let sat = program.condition.prop.eval(&|c: Cell| x.value(c));
            groups.push((
                key,
                Group {
                    check,
                    violation,
                    first: shown(x, e, sat, Vec::new()),
                    count: 1,
                },
            ));
        }
        Flow::Continue
    })?;
    limited(stop)?;
    if !groups.is_empty() {
        return Ok(Answer::Forbidden(
            groups.into_iter().map(|(_, g)| g).collect(),
        ));
    }
    let mut any_candidate = false;
    let (stats, stop) = enumerate(program, &AllCandidates, limits, None, &mut |_| {
        any_candidate = true;
        Flow::Stop
    })?;
    limited(stop)?;
    Ok(Answer::NoCandidate {
        any_candidate,
        stats,
    })
}

/// The explanation as text: `question` is the line that states what was asked
/// (`Condition exists (...)`), ending with a newline.
pub fn render(p: &Program, model: &str, question: &str, answer: &Answer) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Test {} under {model}", p.name);
    let _ = writeln!(s, "{question}");
    match answer {
        Answer::Allowed(w) => {
            let _ = writeln!(
                s,
                "Allowed: an execution {model} allows reaches this state. A witness:"
            );
            s.push('\n');
            let title = format!("{}: witness under {model}", p.name);
            s.push_str(&indent(&trace::text(&trace::graph(p, w, title, &[]))));
        }
        Answer::Forbidden(groups) => {
            let total: u64 = groups.iter().map(|g| g.count).sum();
            let _ = writeln!(
                s,
                "Forbidden: no execution {model} allows reaches this state."
            );
            let _ = writeln!(
                s,
                "{} {} it; {model} rejects {}:",
                plural(total, "candidate execution", "candidate executions"),
                if total == 1 { "reaches" } else { "reach" },
                match (total, groups.len()) {
                    (1, _) => "it for this reason".to_string(),
                    (_, 1) => "each for the same reason".to_string(),
                    (_, k) => format!("each, for {k} reasons"),
                }
            );
            for (i, g) in groups.iter().enumerate() {
                s.push('\n');
                let x = &g.first.execution;
                let what = match &g.violation {
                    Some(v) => format!("{} ({} is not {})", g.check, v.relation, property(v)),
                    None => g.check.to_string(),
                };
                let _ = writeln!(
                    s,
                    "{}. {what}: {}",
                    i + 1,
                    plural(g.count, "candidate", "candidates")
                );
                let cycle = match &g.violation {
                    Some(v) => trace::cycle_text(p, x, v),
                    None => format!("(the model does not explain {})", g.check),
                };
                for line in cycle.lines() {
                    let _ = writeln!(s, "   {line}");
                }
                s.push('\n');
                let title = format!(
                    "{}: {} candidate{}",
                    p.name,
                    if g.count > 1 { "first" } else { "the" },
                    if g.count > 1 { " of this group" } else { "" }
                );
                let shown_trace = trace::text(&trace::graph(p, &g.first, title, &[]));
                s.push_str(&indent(&indent(&shown_trace)));
            }
        }
        Answer::NoCandidate {
            any_candidate: true,
            ..
        } => {
            let _ = writeln!(
                s,
                "Forbidden: no candidate execution reaches this state, so no model allows it."
            );
            let _ = writeln!(
                s,
                "(hazmat builds no candidate that every model rejects: one where a thread's write is coherence-before its own earlier write, where a read reads its own thread's later write, where another write comes between the read and the write of a read-modify-write, or whose values justify themselves out of thin air.)"
            );
        }
        Answer::NoCandidate {
            any_candidate: false,
            stats,
        } => {
            let _ = writeln!(
                s,
                "Forbidden: the test has no candidate execution at all: {}.",
                no_candidate_reasons(&stats.removed)
            );
        }
    }
    s
}

/// Why every candidate left the enumeration, from what it counted: the reasons that
/// removed some, joined as a sentence.
fn no_candidate_reasons(removed: &Removed) -> String {
    let reasons: Vec<&str> = [
        (
            removed.nowhere,
            "its reads at an address that is no location find no write, so herd7 drops every \
             execution that makes one (the warning points to the access)",
        ),
        (
            removed.filter,
            "the filter removes the executions that remain",
        ),
        (removed.deadlock, "its threads deadlock on their locks"),
        (
            removed.cutoff,
            "its runs go round a loop more often than herd7 unrolls it",
        ),
        (
            removed.atomicity + removed.unsolvable,
            "its values cannot be solved, or its read-modify-writes are not atomic",
        ),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(_, why)| why)
    .collect();
    match reasons.as_slice() {
        [] => {
            "every combination of thread paths blocks (a deadlock) or fails the filter".to_string()
        }
        [one] => one.to_string(),
        [rest @ .., last] => format!("{}; and {last}", rest.join("; ")),
    }
}

fn property(v: &Violation) -> &'static str {
    use crate::exec::witness::CheckKind;
    match v.kind {
        CheckKind::Acyclic => "acyclic",
        CheckKind::Irreflexive => "irreflexive",
        CheckKind::Empty => "empty",
        CheckKind::Paths => "satisfied",
    }
}

fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| {
            if l.is_empty() {
                "\n".to_string()
            } else {
                format!("  {l}\n")
            }
        })
        .collect()
}

/// The answer to one question of `program` under `model`: can an allowed execution end in
/// `state` (the text the program's condition was replaced with), or, with no state, in the
/// program's condition (for `forall`, in the states where its proposition fails)?
/// [`crate::explain_source`] parses and lowers the test and calls this.
pub fn explained(
    program: &Program,
    model: &dyn MemoryModel,
    state: Option<&str>,
    limits: &Limits,
) -> Result<Explained, RunError> {
    let (question, prop) = match (state, program.condition.quantifier) {
        (Some(text), _) => (format!("State {text}"), program.condition.prop.clone()),
        (None, Quantifier::Forall) => (
            format!(
                "Condition {}: explaining the final states where it fails",
                condition_text(program)
            ),
            Prop::Not(Box::new(program.condition.prop.clone())),
        ),
        (None, _) => (
            format!("Condition {}", condition_text(program)),
            program.condition.prop.clone(),
        ),
    };
    let answer = explain(program, model, &prop, limits)?;
    Ok(Explained {
        text: render(program, model.name(), &question, &answer),
        graphs: graphs(program, model.name(), &answer),
        answer,
        warnings: Vec::new(),
    })
}

/// What [`explained`] gives: the text, and the executions it shows as graphs.
#[derive(Clone, Debug)]
pub struct Explained {
    /// The answer itself.
    pub answer: Answer,
    /// The explanation as [`render`] prints it.
    pub text: String,
    /// The graphs of [`graphs`], each with a file stem.
    pub graphs: Vec<(String, ExecutionGraph)>,
    /// What the test probably does not mean, as `hazmat check` warns of it (lowering's
    /// warnings, and reads at no location); [`crate::explain_source`] fills them in.
    pub warnings: Vec<crate::front::lower::Warning>,
}

/// The executions an answer shows, as graphs named for files: the witness
/// (`NAME-witness`), or the first candidate of each group (`NAME-rejected-K`) with the
/// steps of its cycle drawn as extra edges, labelled by their relations.
pub fn graphs(p: &Program, model: &str, answer: &Answer) -> Vec<(String, ExecutionGraph)> {
    match answer {
        Answer::Allowed(w) => {
            let title = format!("{}: witness under {model}", p.name);
            vec![(
                format!("{}-witness", trace::file_stem(&p.name)),
                trace::graph(p, w, title, &[]),
            )]
        }
        Answer::Forbidden(groups) => groups
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let mut extra: Vec<(String, Pairs)> = Vec::new();
                for st in g.violation.iter().flat_map(|v| &v.cycle) {
                    let label = st.label.to_string();
                    let pair = (st.from, st.to);
                    match extra.iter_mut().find(|(l, _)| *l == label) {
                        Some((_, r)) => r.push(pair),
                        None => extra.push((label, vec![pair])),
                    }
                }
                // Each relation's pairs once, in row-major order, as a relation gives them.
                for (_, r) in &mut extra {
                    r.sort_unstable();
                    r.dedup();
                }
                let title = format!(
                    "{}: rejected by {} under {model} (cycle dashed)",
                    p.name, g.check
                );
                (
                    format!("{}-rejected-{}", trace::file_stem(&p.name), i + 1),
                    trace::graph(p, &g.first, title, &extra),
                )
            })
            .collect(),
        Answer::NoCandidate { .. } => Vec::new(),
    }
}

/// The first register (`1:r9`) or location `spliced` has that `original` has not.
pub(crate) fn unknown_name(original: &Program, spliced: &Program) -> Option<String> {
    for (t, code) in spliced.threads.iter().enumerate() {
        let known = original.threads.get(t).map_or(&[][..], |c| &c.regs[..]);
        if let Some(r) = code.regs.iter().find(|r| !known.contains(r)) {
            return Some(format!("{}:{r}", code.number));
        }
    }
    spliced
        .locs
        .iter()
        .find(|l| !original.locs.iter().any(|o| o.name == l.name))
        .map(|l| l.name.clone())
}
