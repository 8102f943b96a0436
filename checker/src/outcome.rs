//! Outcomes: what the allowed executions of a test add up to.
//!
//! herd7's definitions, which hazmat keeps: the *states* are the distinct final states of
//! the allowed executions that pass the `filter`, shown over the cells the condition and
//! the `locations` list name; the *positive* and *negative* counts are numbers of allowed
//! executions (not states) whose final state satisfies, or fails, the condition's
//! proposition; the verdict is `Never` when no execution satisfies it, `Always` when every
//! one does (and there is one), `Sometimes` otherwise.
//! States are sorted value by value in column order: unsolved symbols first, then integers
//! in numeric order, then addresses by the name of the location.

use crate::enumerate::{
    Allowed, Flow, Limits, RunError, Stats, Stop, enumerate_split, enumerate_with,
};
use crate::event::Value;
use crate::model::MemoryModel;
use crate::program::{Cell, Program, Prop, Quantifier};
use std::collections::BTreeSet;

/// How the condition's proposition fares over the allowed executions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Verdict {
    /// No allowed execution satisfies it.
    Never,
    /// Some do and some do not.
    Sometimes,
    /// All do, and there is at least one.
    Always,
}

impl Verdict {
    /// The word herd7 prints.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Never => "Never",
            Verdict::Sometimes => "Sometimes",
            Verdict::Always => "Always",
        }
    }
}

/// Options of one check.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Bounds on the enumeration.
    pub limits: Limits,
    /// Decide only the condition (herd7's `-speedcheck`): executions that cannot decide it
    /// are cut and the enumeration stops at the first that does, so the verdict says
    /// whether the condition can hold but the states and counts are partial.
    pub speedcheck: bool,
    /// Enumerate the whole test even when it splits into pieces that can be counted one by
    /// one ([`crate::pieces`]); tests set it to hold the two to the same outcome.
    pub whole: bool,
    /// Build every execution even when the program's symmetry makes some of them images of
    /// others, counted without being built ([`crate::symmetry`]); tests set it to hold the
    /// two to the same outcome.
    pub every_image: bool,
}

/// The result of checking one program under one model.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The distinct final states, each over [`Program::shown`], in herd7's order.
    pub states: Vec<Vec<Value>>,
    /// Allowed executions satisfying the proposition.
    pub positive: u128,
    /// Allowed executions not satisfying it.
    pub negative: u128,
    /// Flags raised by allowed executions, in the order first raised.
    pub flags: Vec<&'static str>,
    /// Enumeration counts.
    pub stats: Stats,
    /// Why the enumeration stopped early, if a limit stopped it.
    pub unknown: Option<String>,
    /// Whether `--speedcheck` cut the enumeration short once decided.
    pub cut_short: bool,
    /// The condition's quantifier when the run was a speed check, whose counts are partial.
    pub speedcheck: Option<Quantifier>,
    /// The number of pieces the test was counted in ([`crate::pieces`]): 1 when the whole
    /// test was enumerated.
    pub pieces: usize,
}

impl Outcome {
    /// The verdict on the proposition.
    ///
    /// After a speed check, which only looks for the executions that decide the condition,
    /// `Sometimes` means "at least one": a witness of `exists` or `~exists`, or a
    /// counterexample of `forall`, was found; `Never` and `Always` mean the search found
    /// none.
    pub fn verdict(&self) -> Verdict {
        match self.speedcheck {
            Some(Quantifier::Forall) => {
                return if self.negative > 0 {
                    Verdict::Sometimes
                } else {
                    Verdict::Always
                };
            }
            Some(_) => {
                return if self.positive > 0 {
                    Verdict::Sometimes
                } else {
                    Verdict::Never
                };
            }
            None => {}
        }
        if self.positive == 0 {
            Verdict::Never
        } else if self.negative == 0 {
            Verdict::Always
        } else {
            Verdict::Sometimes
        }
    }

    /// Whether the condition holds: herd7's `Ok` (`exists`: some execution satisfies the
    /// proposition; `~exists`: none does; `forall`: all do).
    pub fn holds(&self, quantifier: Quantifier) -> bool {
        match quantifier {
            Quantifier::Exists => self.positive > 0,
            Quantifier::NotExists => self.positive == 0,
            Quantifier::Forall => self.negative == 0,
        }
    }

    /// Whether a flag was raised.
    pub fn flagged(&self, flag: &str) -> bool {
        self.flags.contains(&flag)
    }
}

/// Checks `program` under `model`: the free function behind `hazmat check`.
pub fn run(
    program: &Program,
    model: &dyn MemoryModel,
    options: &Options,
) -> Result<Outcome, RunError> {
    if let Some(split) = crate::pieces::run(program, model, options) {
        return split;
    }
    let symmetry = if options.every_image {
        None
    } else {
        crate::symmetry::Symmetry::find(program)
    };
    match run_with(program, model, options, symmetry.as_ref())? {
        Some(outcome) => Ok(outcome),
        // An image's state holds an unsolved symbol, whose name renaming may change:
        // every execution is built instead.
        None => {
            Ok(run_with(program, model, options, None)?
                .expect("with no symmetry, no image gives up"))
        }
    }
}

/// What one check reads of each allowed execution, and how it counts it.
struct Reading<'p> {
    program: &'p Program,
    /// The cells read: the state's columns, then those only the condition reads.
    read: Vec<Cell>,
    speedcheck: bool,
    /// Whether some executions are images under the program's symmetry.
    symmetric: bool,
}

/// The states, counts and flags of the allowed executions one part of a check met.
struct Collector {
    /// The current execution's values of [`Reading::read`].
    values: Vec<Value>,
    /// Whether an image's state held an unsolved symbol.
    symbolic: bool,
    states: BTreeSet<Vec<Value>>,
    positive: u128,
    negative: u128,
    /// In the order first raised.
    flags: Vec<&'static str>,
    cut_short: bool,
}

impl Collector {
    fn new() -> Collector {
        Collector {
            values: Vec::new(),
            symbolic: false,
            states: BTreeSet::new(),
            positive: 0,
            negative: 0,
            flags: Vec::new(),
            cut_short: false,
        }
    }

    /// Counts one allowed execution.
    fn visit(&mut self, r: &Reading<'_>, x: &Allowed<'_>) -> Flow {
        let values = &mut self.values;
        values.clear();
        values.extend(r.read.iter().map(|&c| x.value(c)));
        if r.symmetric && values.iter().any(|v| matches!(v, Value::Sym(_))) {
            self.symbolic = true;
            return Flow::Stop;
        }
        // The enumeration has applied the filter.
        let shown = r.program.shown.len();
        if !self.states.contains(&values[..shown]) {
            self.states.insert(values[..shown].to_vec());
        }
        for f in &x.judgement.flags {
            if !self.flags.contains(f) {
                self.flags.push(f);
            }
        }
        let get = |c: Cell| values[r.read.iter().position(|&k| k == c).expect("a cell read")];
        let sat = r.program.condition.prop.eval(&get);
        if sat {
            self.positive += 1;
        } else {
            self.negative += 1;
        }
        let decided = match r.program.condition.quantifier {
            Quantifier::Exists | Quantifier::NotExists => sat,
            Quantifier::Forall => !sat,
        };
        if r.speedcheck && decided {
            self.cut_short = true;
            Flow::Stop
        } else {
            Flow::Continue
        }
    }

    /// Adds what `later` met after what `self` met.
    fn merge(&mut self, later: Collector) {
        self.symbolic |= later.symbolic;
        self.states.extend(later.states);
        self.positive += later.positive;
        self.negative += later.negative;
        for f in later.flags {
            if !self.flags.contains(&f) {
                self.flags.push(f);
            }
        }
        self.cut_short |= later.cut_short;
    }
}

/// [`run`] on the whole program, building one execution of each group of images under
/// `symmetry`; `None` if an image's final state holds an unsolved symbol.
fn run_with(
    program: &Program,
    model: &dyn MemoryModel,
    options: &Options,
    symmetry: Option<&crate::symmetry::Symmetry>,
) -> Result<Option<Outcome>, RunError> {
    let mut read: Vec<Cell> = program.shown.clone();
    let mut in_condition = Vec::new();
    program.condition.prop.cells(&mut in_condition);
    for c in in_condition {
        if !read.contains(&c) {
            read.push(c);
        }
    }
    let reading = Reading {
        program,
        read,
        speedcheck: options.speedcheck,
        symmetric: symmetry.is_some(),
    };
    let quantifier = program.condition.quantifier;
    // In a speed check, only executions that can decide the condition matter: those that
    // satisfy the proposition (`exists`, `~exists`) or fail it (`forall`).
    let negated;
    let goal = match (options.speedcheck, quantifier) {
        (false, _) => None,
        (true, Quantifier::Forall) => {
            negated = Prop::Not(Box::new(program.condition.prop.clone()));
            Some(&negated)
        }
        (true, _) => Some(&program.condition.prop),
    };
    let (stats, stop, all) = match goal {
        Some(goal) => {
            let mut c = Collector::new();
            let (stats, stop) = enumerate_with(
                program,
                model,
                &options.limits,
                Some(goal),
                symmetry,
                &mut |x| c.visit(&reading, x),
            )?;
            (stats, stop, c)
        }
        None => {
            let (stats, stop, parts) = enumerate_split(
                program,
                model,
                &options.limits,
                symmetry,
                &Collector::new,
                &|c, x| c.visit(&reading, x),
            )?;
            let mut all = Collector::new();
            for part in parts {
                all.merge(part);
            }
            (stats, stop, all)
        }
    };
    if all.symbolic {
        return Ok(None);
    }
    let unknown = match stop {
        Some(Stop::Limit(why)) => Some(why),
        Some(Stop::Done) | None => None,
    };
    let states = herd7_order(program, all.states);
    Ok(Some(Outcome {
        states,
        positive: all.positive,
        negative: all.negative,
        flags: all.flags,
        stats,
        unknown,
        cut_short: all.cut_short,
        speedcheck: options.speedcheck.then_some(quantifier),
        pieces: 1,
    }))
}

/// The distinct final states in herd7's order: value by value, unsolved symbols first, then
/// integers, then addresses by name.
pub(crate) fn herd7_order(
    program: &Program,
    states: impl IntoIterator<Item = Vec<Value>>,
) -> Vec<Vec<Value>> {
    let mut states: Vec<Vec<Value>> = states.into_iter().collect();
    states.sort_by_cached_key(|s| {
        s.iter()
            .map(|v| match v {
                Value::Sym(n) => (0, i64::from(*n), String::new(), 0),
                Value::Int(n) => (1, *n, String::new(), 0),
                Value::Addr(l) | Value::Shifted(l, _) => (
                    2,
                    0,
                    program.locs[l.0 as usize].name.clone(),
                    match v {
                        Value::Shifted(_, o) => *o,
                        _ => 0,
                    },
                ),
            })
            .collect::<Vec<_>>()
    });
    states
}
