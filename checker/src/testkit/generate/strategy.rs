//! The proptest strategies that draw sketches: the whole sketch (threads, initial values,
//! condition, filter, `locations` clause) here, and the statements of each vocabulary in
//! [`basic`], [`lkmm`] and [`c11`].
//!
//! No strategy depends on another's value, and the order of the draws is the order of
//! the code: a seed gives the same sketch as long as neither changes.

mod basic;
mod c11;
mod lkmm;

use super::{
    Atom, Class, Config, Join, Ordering, Shown, Sketch, SketchStmt, Target, VARS, Vocabulary,
};
use hazmat_litmus::ast::{Quantifier, Test};
use proptest::prelude::*;
use proptest::strategy::Union;

/// A weighted choice among the alternatives whose class `config` allows (an alternative
/// of no class is always allowed), or `fallback` when it allows none.
fn choose<T: Clone + std::fmt::Debug + 'static>(
    config: &Config,
    arms: Vec<(u32, Option<Class>, BoxedStrategy<T>)>,
    fallback: BoxedStrategy<T>,
) -> BoxedStrategy<T> {
    let arms: Vec<(u32, BoxedStrategy<T>)> = arms
        .into_iter()
        .filter(|(_, class, _)| class.is_none_or(|c| config.allows(c)))
        .map(|(w, _, s)| (w, s))
        .collect();
    if arms.is_empty() {
        fallback
    } else {
        Union::new_weighted(arms).boxed()
    }
}

fn ordering() -> impl Strategy<Value = Ordering> {
    prop_oneof![
        Just(Ordering::Full),
        Just(Ordering::Relaxed),
        Just(Ordering::Acquire),
        Just(Ordering::Release),
    ]
}

/// The strategy for sketches within `config`.
///
/// Statements draw variable indices below `config.max_vars` and the sketch takes them
/// modulo its own number of variables: no strategy depends on another's value
/// (`prop_flat_map` would split the fuzzers' bytes in halves at each level, leaving the
/// inner strategies almost nothing to read).
pub fn sketch(config: Config) -> impl Strategy<Value = Sketch> {
    let max_vars = config.max_vars.clamp(1, VARS.len());
    let vars = 2.min(max_vars)..=max_vars;
    // The LKMM's and C11's vocabularies draw varied conditions.
    let lkmm = config.vocabulary != Vocabulary::Basic;
    let stmt = match config.vocabulary {
        Vocabulary::Lkmm => lkmm::lkmm_stmt(max_vars, &config),
        Vocabulary::C11 => c11::c11_stmt(max_vars, &config),
        Vocabulary::Basic => basic::basic_stmt(max_vars, &config),
    };
    let thread = prop::collection::vec(stmt, 1..=config.max_stmts.max(1));
    let target = if lkmm {
        prop_oneof![
            12 => (any::<usize>(), any::<usize>()).prop_map(|(t, r)| Target::Reg(t, r)),
            4 => any::<usize>().prop_map(Target::Var),
            1 => any::<usize>().prop_map(Target::Lock),
        ]
        .boxed()
    } else {
        prop_oneof![
            3 => (any::<usize>(), any::<usize>()).prop_map(|(t, r)| Target::Reg(t, r)),
            1 => any::<usize>().prop_map(Target::Var),
        ]
        .boxed()
    };
    let atom = if lkmm {
        (
            target,
            0i64..=2,
            prop_oneof![
                12 => Just(None),
                1 => (any::<usize>(), any::<usize>()).prop_map(Some),
            ],
            prop::bool::weighted(0.08),
            prop::bool::weighted(0.08),
            prop_oneof![
                16 => Just(Join::And),
                3 => Just(Join::Or),
                1 => Just(Join::Implies),
            ],
        )
            .prop_map(|(target, value, against, ne, negated, join)| Atom {
                target,
                value,
                against,
                ne,
                negated,
                join,
            })
            .boxed()
    } else {
        (target, 0i64..=2)
            .prop_map(|(target, value)| Atom::eq(target, value))
            .boxed()
    };
    let quantifier = if lkmm {
        prop_oneof![
            8 => Just(Quantifier::Exists),
            1 => Just(Quantifier::NotExists),
            1 => Just(Quantifier::Forall),
        ]
        .boxed()
    } else {
        Just(Quantifier::Exists).boxed()
    };
    let shown = if lkmm {
        prop_oneof![
            2 => Just(Shown::All),
            2 => Just(Shown::None),
            1 => any::<u64>().prop_map(Shown::Some),
        ]
        .boxed()
    } else {
        Just(Shown::All).boxed()
    };
    let init = if lkmm && config.allows(Class::Init) {
        prop_oneof![
            6 => Just(Vec::new()),
            1 => prop::collection::vec((0..max_vars, 1i64..=2), 1..=2),
        ]
        .boxed()
    } else {
        Just(Vec::new()).boxed()
    };
    let filter = if lkmm {
        prop_oneof![
            12 => Just(Vec::new()),
            1 => prop::collection::vec(atom.clone(), 1..=2),
        ]
        .boxed()
    } else {
        Just(Vec::new()).boxed()
    };
    let max_size = config.max_size.max(1);
    let without = config.without.clone();
    let with = config.with.clone();
    let macros = config.macros.clone();
    let drawn = (
        vars,
        init,
        prop::collection::vec(thread, config.max_threads.max(1)),
        threads(config.min_threads, config.max_threads, lkmm),
        quantifier,
        prop::collection::vec(atom, 1..=3),
        filter,
        shown,
    )
        .prop_map(
            move |(vars, init, mut threads, count, quantifier, condition, filter, shown)| {
                threads.truncate(count);
                trim(&mut threads, max_size);
                Sketch {
                    vars,
                    init,
                    threads,
                    quantifier,
                    condition,
                    filter,
                    shown,
                    all_params: !lkmm,
                }
            },
        );
    if without.is_empty() && with.is_empty() && macros.is_none() {
        return drawn.boxed();
    }
    // Statements of a class left out are never drawn; a condition or a `locations` clause
    // of one is drawn again, and so is a sketch without a class asked for, or with a call
    // the macros do not define.
    drawn
        .prop_filter(
            "a class left out or missing, or a call undefined",
            move |s| {
                let classes = s.classes();
                classes.iter().all(|c| !without.contains(c))
                    && with.iter().all(|c| classes.contains(c))
                    && macros
                        .as_ref()
                        .is_none_or(|m| s.calls().iter().all(|name| m.defines(name)))
            },
        )
        .boxed()
}

/// The number of threads: uniform in `min..=max`, or, for the LKMM vocabulary, two and
/// three twice as often as four, and four twice as often as five and more, as in diy7's
/// tests.
fn threads(min: usize, max: usize, lkmm: bool) -> BoxedStrategy<usize> {
    let (min, max) = (min.max(1), max.max(min.max(1)));
    if !lkmm {
        return (min..=max).boxed();
    }
    let arms: Vec<(u32, BoxedStrategy<usize>)> = (min..=max)
        .map(|n| {
            (
                if n <= 3 {
                    4
                } else if n == 4 {
                    2
                } else {
                    1
                },
                Just(n).boxed(),
            )
        })
        .collect();
    Union::new_weighted(arms).boxed()
}

/// Drops the last statements of the last threads until their [`SketchStmt::size`] is at
/// most `max` in all, leaving each thread at least one.
fn trim(threads: &mut [Vec<SketchStmt>], max: usize) {
    let mut total: usize = threads.iter().flatten().map(SketchStmt::size).sum();
    for t in threads.iter_mut().rev() {
        while total > max && t.len() > 1 {
            total -= t.pop().map_or(0, |s| s.size());
        }
    }
}

/// The strategy for litmus tests within `config`.
pub fn test(config: Config) -> impl Strategy<Value = Test> {
    sketch(config).prop_map(|s| s.to_test("generated"))
}
