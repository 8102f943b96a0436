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

use crate::engine::enumerate::{Limits, Stats};
use crate::exec::event::Value;
use crate::front::program::{Program, Quantifier};
use std::cmp::Ordering;

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
    /// Count only the allowed executions that can decide the condition (herd7's
    /// `-speedcheck true`): those whose final state satisfies the proposition, for
    /// `exists` and `~exists`, or fails it, for `forall`. The others are cut as a speed
    /// check cuts them, but the enumeration goes on to the end, so the states, counts and
    /// flags are those of every deciding execution, and the verdict is read from them as
    /// from a full run's (`Always` when there is one and the proposition holds on it,
    /// `Never` when there is none). With [`Options::speedcheck`], it stops at the first.
    pub deciding_only: bool,
    /// Enumerate the whole test even when it splits into pieces that can be counted one by
    /// one (`engine::pieces`); tests set it to hold the two to the same outcome.
    pub whole: bool,
    /// Build every execution even when the program's symmetry makes some of them images of
    /// others, counted without being built ([`crate::engine::symmetry`]); tests set it to hold the
    /// two to the same outcome.
    pub every_image: bool,
    /// Build every completion of a partial execution the model vouches for, even where
    /// they can be counted in groups without being built (`engine::enumerate`'s `count`
    /// module); tests set it to hold the two to the same outcome.
    pub every_completion: bool,
    /// herd7's variant `S128` (`-variant S128`), under which herd7 takes 64-bit and
    /// 128-bit types in the init block; a test's own `Variant=S128` line sets it too.
    pub s128: bool,
    /// How many times a `while` loop is unrolled (herd7's `-unroll`), when not herd7's
    /// default for C ([`crate::front::lower::UNROLL`]).
    pub unroll: Option<u32>,
    /// Whether the condition is the test's own or a `-conds` file's written in its place
    /// ([`crate::front::lower::ConditionSource`]).
    pub condition: crate::front::lower::ConditionSource,
    /// herd7's `-outcomereads true`: each final state shows, besides the locations the
    /// test shows, the registers some allowed execution wrote in an instruction that reads
    /// memory (see [`crate::front::lower::reads`]); the states hold what herd7 needs
    /// for it, and its reports print herd7's.
    pub outcome_reads: bool,
    /// herd7's `-checkfilter false`: the filter discards no execution
    /// ([`Program::check_filter`]).
    pub unchecked_filter: bool,
}

impl Options {
    /// How the test is read: [`Options::s128`] and [`Options::unroll`].
    pub fn reading(&self) -> crate::front::Reading {
        crate::front::Reading {
            s128: self.s128,
            unroll: self.unroll.unwrap_or(crate::front::lower::UNROLL),
            condition: self.condition,
            outcome_reads: self.outcome_reads,
            check_filter: !self.unchecked_filter,
            ..crate::front::Reading::default()
        }
    }
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
    /// The number of pieces the test was counted in (`engine::pieces`): 1 when the whole
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

/// The place of a value in herd7's order of the values of a final state: unsolved
/// symbols first, then integers, then addresses by the name of their location.
pub(crate) type ValueOrder = (u8, i64, String, i64);

/// The place of `v` in herd7's order ([`ValueOrder`]).
pub(crate) fn value_order(program: &Program, v: Value) -> ValueOrder {
    match v {
        Value::Sym(n) => (0, i64::from(n), String::new(), 0),
        Value::Int(n) => (1, n, String::new(), 0),
        Value::Addr(l) => (2, 0, program.locs[l.0 as usize].name.clone(), 0),
        Value::Shifted(l, o) => (2, 0, program.locs[l.0 as usize].name.clone(), o),
    }
}

/// `a` against `b` in herd7's order ([`value_order`]), allocating nothing.
fn value_cmp(program: &Program, a: Value, b: Value) -> Ordering {
    let rank = |v: Value| match v {
        Value::Sym(_) => 0u8,
        Value::Int(_) => 1,
        Value::Addr(_) | Value::Shifted(..) => 2,
    };
    let place = |v: Value| match v {
        Value::Addr(l) => (l, 0),
        Value::Shifted(l, o) => (l, o),
        Value::Sym(_) | Value::Int(_) => unreachable!("only addresses have a place"),
    };
    match (a, b) {
        (Value::Sym(x), Value::Sym(y)) => x.cmp(&y),
        (Value::Int(x), Value::Int(y)) => x.cmp(&y),
        _ if rank(a) != rank(b) => rank(a).cmp(&rank(b)),
        _ => {
            let ((la, oa), (lb, ob)) = (place(a), place(b));
            let name = |l: crate::exec::event::Loc| program.locs[l.0 as usize].name.as_str();
            name(la).cmp(name(lb)).then(oa.cmp(&ob))
        }
    }
}

/// The distinct final states in herd7's order: value by value, unsolved symbols first, then
/// integers, then addresses by name; a state given twice is kept once.
///
/// # Complexity
/// `O(n log n)` comparisons of states, with no allocation per state: a test may have a
/// million of them, and the key of each built apart cost more than finding them.
pub(crate) fn herd7_order(
    program: &Program,
    states: impl IntoIterator<Item = Vec<Value>>,
) -> Vec<Vec<Value>> {
    let mut states: Vec<Vec<Value>> = states.into_iter().collect();
    states.sort_unstable_by(|a, b| {
        let mut herd7 = a.iter().zip(b).map(|(&x, &y)| value_cmp(program, x, y));
        herd7
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
            .then_with(|| a.len().cmp(&b.len()))
            // Values herd7 places alike (an address and its shift by 0) keep one order.
            .then_with(|| a.cmp(b))
    });
    states.dedup();
    states
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::event::Loc;

    /// The order sorted by each state's key of [`value_order`], which the comparisons of
    /// [`herd7_order`] stand for.
    fn by_keys(program: &Program, states: &[Vec<Value>]) -> Vec<Vec<Value>> {
        let mut sorted: Vec<Vec<Value>> = states.to_vec();
        sorted.sort();
        sorted.dedup();
        sorted.sort_by_cached_key(|s| {
            s.iter()
                .map(|&v| value_order(program, v))
                .collect::<Vec<_>>()
        });
        sorted
    }

    #[test]
    fn states_sort_as_their_keys_do_and_once_each() {
        let source = "C order\n{ int *p = &y; }\nP0(int *x, int *y) { WRITE_ONCE(*x, 1); }\n\
                      exists (x=1)\n";
        let test = hazmat_litmus::parse(source).expect("parses");
        let program = crate::front::lower::lower(&test).expect("lowers");
        let loc = |name: &str| {
            let i = program
                .locs
                .iter()
                .position(|l| l.name == name)
                .expect("a location");
            Loc(i as u32)
        };
        let values = [
            Value::Sym(2),
            Value::Sym(0),
            Value::Int(-3),
            Value::Int(0),
            Value::Int(7),
            Value::Addr(loc("y")),
            Value::Addr(loc("x")),
            Value::Shifted(loc("x"), 1),
            Value::Shifted(loc("p"), 2),
        ];
        let mut states = Vec::new();
        for &a in &values {
            for &b in values.iter().rev() {
                states.push(vec![a, b]);
                states.push(vec![b, a]);
            }
        }
        assert_eq!(
            herd7_order(&program, states.clone()),
            by_keys(&program, &states)
        );
        assert_eq!(
            herd7_order(&program, states).len(),
            values.len() * values.len()
        );
    }
}
