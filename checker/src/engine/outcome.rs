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
use std::time::Instant;

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
    /// The distinct final states not in [`Outcome::states`]: when the deadline had passed
    /// once the search ended and the states were more than [`ALWAYS_SHOWN`], they were not
    /// put in order, which takes seconds for a million of them; 0 otherwise.
    pub states_left_out: usize,
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
pub(crate) type ValueOrder<'p> = (u8, i64, &'p str, i64);

/// The place of `v` in herd7's order ([`ValueOrder`]), allocating nothing.
pub(crate) fn value_order(program: &Program, v: Value) -> ValueOrder<'_> {
    match v {
        Value::Sym(n) => (0, i64::from(n), "", 0),
        Value::Int(n) => (1, n, "", 0),
        Value::Addr(l) => (2, 0, program.locs[l.0 as usize].name.as_str(), 0),
        Value::Shifted(l, o) => (2, 0, program.locs[l.0 as usize].name.as_str(), o),
    }
}

/// `a` against `b` in herd7's order ([`value_order`]).
fn value_cmp(program: &Program, a: Value, b: Value) -> Ordering {
    value_order(program, a).cmp(&value_order(program, b))
}

/// How many final states are always put in order and written, however late: a moment's
/// work, so that a test its deadline stopped still shows the states it found when they are
/// few. Past this many, the deadline decides (when the states are put in order, and in the
/// reports: [`crate::report::write::herd_text_by`]).
pub const ALWAYS_SHOWN: usize = 4096;

/// The distinct final states in herd7's order as [`herd7_order`] gives them, and 0; or,
/// when `deadline` passes before they are in order and they are more than
/// [`ALWAYS_SHOWN`], none of them and how many distinct ones were left out. `distinct`
/// says that no state is given twice.
pub(crate) fn herd7_order_by(
    program: &Program,
    states: impl IntoIterator<Item = Vec<Value>>,
    distinct: bool,
    deadline: Option<Instant>,
) -> (Vec<Vec<Value>>, usize) {
    let states: Vec<Vec<Value>> = states.into_iter().collect();
    let Some(deadline) = deadline.filter(|_| states.len() > ALWAYS_SHOWN) else {
        return (herd7_order(program, states), 0);
    };
    match sort_until(states, &|a, b| state_cmp(program, a, b), deadline) {
        Ok(mut sorted) => {
            sorted.dedup();
            (sorted, 0)
        }
        Err(states) => {
            let left_out = if distinct {
                states.len()
            } else {
                let set: foldhash::HashSet<&[Value]> = states.iter().map(Vec::as_slice).collect();
                set.len()
            };
            (Vec::new(), left_out)
        }
    }
}

/// `items` sorted by `cmp`, or, when `deadline` passes first, all of them in no order: runs
/// of 65,536 items sorted one by one, the deadline checked before each, then merged at once,
/// the deadline checked every 1,024 items (sorting a million states takes a second).
///
/// # Complexity
/// `O(n log n)` comparisons, as one sort; the merge reads each item once, and compares
/// only the heads of the runs, which stay in the cache.
fn sort_until<T>(
    items: Vec<T>,
    cmp: &impl Fn(&T, &T) -> Ordering,
    deadline: Instant,
) -> Result<Vec<T>, Vec<T>> {
    const RUN: usize = 1 << 16;
    let n = items.len();
    let mut runs: Vec<std::vec::IntoIter<T>> = Vec::new();
    let mut rest = items.into_iter();
    loop {
        let mut run: Vec<T> = rest.by_ref().take(RUN).collect();
        if run.is_empty() {
            break;
        }
        if Instant::now() >= deadline {
            let all = runs.into_iter().flatten().chain(run).chain(rest);
            return Err(all.collect());
        }
        run.sort_unstable_by(cmp);
        runs.push(run.into_iter());
    }
    if runs.len() <= 1 {
        return Ok(runs.pop().map(Iterator::collect).unwrap_or_default());
    }
    // The smallest head first: `BinaryHeap` pops its greatest.
    struct Head<'c, T, C> {
        item: T,
        run: usize,
        cmp: &'c C,
    }
    impl<T, C: Fn(&T, &T) -> Ordering> Ord for Head<'_, T, C> {
        fn cmp(&self, other: &Self) -> Ordering {
            (self.cmp)(&other.item, &self.item).then(other.run.cmp(&self.run))
        }
    }
    impl<T, C: Fn(&T, &T) -> Ordering> PartialOrd for Head<'_, T, C> {
        fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
            Some(self.cmp(other))
        }
    }
    impl<T, C: Fn(&T, &T) -> Ordering> PartialEq for Head<'_, T, C> {
        fn eq(&self, other: &Self) -> bool {
            self.cmp(other) == Ordering::Equal
        }
    }
    impl<T, C: Fn(&T, &T) -> Ordering> Eq for Head<'_, T, C> {}
    let mut heads = std::collections::BinaryHeap::with_capacity(runs.len());
    for (run, items) in runs.iter_mut().enumerate() {
        heads.extend(items.next().map(|item| Head { item, run, cmp }));
    }
    let mut out = Vec::with_capacity(n);
    while let Some(Head { item, run, .. }) = heads.pop() {
        out.push(item);
        heads.extend(runs[run].next().map(|item| Head { item, run, cmp }));
        if out.len().is_multiple_of(1024) && Instant::now() >= deadline {
            out.extend(heads.into_iter().map(|h| h.item));
            out.extend(runs.into_iter().flatten());
            return Err(out);
        }
    }
    Ok(out)
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
    states.sort_unstable_by(|a, b| state_cmp(program, a, b));
    states.dedup();
    states
}

/// `a` against `b` in herd7's order of states, value by value ([`value_cmp`]).
fn state_cmp(program: &Program, a: &[Value], b: &[Value]) -> Ordering {
    let mut herd7 = a.iter().zip(b).map(|(&x, &y)| value_cmp(program, x, y));
    herd7
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
        .then_with(|| a.len().cmp(&b.len()))
        // Values herd7 places alike (an address and its shift by 0) keep one order.
        .then_with(|| a.cmp(b))
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

    #[test]
    fn states_past_the_deadline_are_left_out_and_counted_when_many() {
        let source = "C many\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nexists (x=1)\n";
        let test = hazmat_litmus::parse(source).expect("parses");
        let program = crate::front::lower::lower(&test).expect("lowers");
        let state = |i: usize| vec![Value::Int((i % (ALWAYS_SHOWN + 5)) as i64)];
        let many: Vec<Vec<Value>> = (0..2 * ALWAYS_SHOWN).map(state).collect();
        let passed = Some(Instant::now());
        // Many, late: none is ordered, and the distinct ones are counted.
        let (kept, left_out) = herd7_order_by(&program, many.clone(), false, passed);
        assert!(kept.is_empty());
        assert_eq!(left_out, ALWAYS_SHOWN + 5);
        // Many, in time: all of them, once each.
        let (kept, left_out) = herd7_order_by(&program, many, false, None);
        assert_eq!((kept.len(), left_out), (ALWAYS_SHOWN + 5, 0));
        // Few, late: all of them still.
        let few: Vec<Vec<Value>> = (0..ALWAYS_SHOWN).map(state).collect();
        let (kept, left_out) = herd7_order_by(&program, few.clone(), false, passed);
        assert_eq!((kept.len(), left_out), (ALWAYS_SHOWN, 0));
        // Said to be distinct, late: counted as they come.
        let (kept, left_out) = herd7_order_by(&program, [few.clone(), few].concat(), true, passed);
        assert_eq!((kept.len(), left_out), (0, 2 * ALWAYS_SHOWN));
    }

    #[test]
    fn a_sort_with_a_deadline_sorts_as_without_or_gives_every_item_back() {
        // Many runs, with items equal across them.
        let items: Vec<u64> = (0..200_000u64)
            .map(|i| i.wrapping_mul(2_654_435_761) % 150_000)
            .collect();
        let mut sorted = items.clone();
        sorted.sort_unstable();
        let far = Instant::now() + std::time::Duration::from_secs(3600);
        assert_eq!(
            sort_until(items.clone(), &u64::cmp, far),
            Ok(sorted.clone())
        );
        let Err(mut back) = sort_until(items, &u64::cmp, Instant::now()) else {
            panic!("a deadline passed stops the sort");
        };
        back.sort_unstable();
        assert_eq!(back, sorted);
    }
}
