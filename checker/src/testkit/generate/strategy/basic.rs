//! The statements of the basic vocabulary: the primitives SC, TSO and the LKMM all give
//! meaning to, and `if` on a register read earlier.

use super::ordering;
use crate::testkit::generate::{
    ArithOp, Cond, Config, Fence, Ordering, ReadKind, RmwOp, SketchStmt, WriteKind,
};
use proptest::prelude::*;

/// A leaf statement of the basic vocabulary.
fn basic_leaf(vars: usize, rmws: bool) -> BoxedStrategy<SketchStmt> {
    let var = 0..vars;
    let value = 1i64..=2;
    let plain = prop_oneof![
        4 => (var.clone(), value.clone(), any::<bool>()).prop_map(|(var, value, release)| {
            SketchStmt::Write {
                var,
                value,
                kind: if release { WriteKind::Release } else { WriteKind::Once },
                dep: None,
            }
        }),
        4 => (var.clone(), any::<bool>()).prop_map(|(var, acquire)| SketchStmt::Read {
            var,
            kind: if acquire { ReadKind::Acquire } else { ReadKind::Once },
            dep: None,
        }),
        2 => prop_oneof![Just(Fence::Mb), Just(Fence::Rmb), Just(Fence::Wmb)].prop_map(SketchStmt::Fence),
    ];
    if !rmws {
        return plain.boxed();
    }
    let rmw = |var, op, ordering| SketchStmt::Rmw {
        var,
        op,
        ordering,
        dep: None,
    };
    prop_oneof![
        10 => plain,
        1 => (var.clone(), value.clone(), ordering()).prop_map(move |(var, value, ordering)| {
            rmw(var, RmwOp::Xchg { value, atomic: false }, ordering)
        }),
        1 => (var.clone(), 0i64..=1, value.clone(), ordering()).prop_map(
            move |(var, expected, new, ordering)| {
                rmw(var, RmwOp::Cmpxchg { expected, new, atomic: false }, ordering)
            }
        ),
        1 => (var.clone(), value.clone(), ordering()).prop_map(move |(var, value, ordering)| {
            rmw(var, RmwOp::FetchOp { op: ArithOp::Add, value }, ordering)
        }),
        1 => (var, value).prop_map(move |(var, value)| {
            rmw(var, RmwOp::Op { op: ArithOp::Add, value }, Ordering::Full)
        }),
    ]
    .boxed()
}

/// A statement of the basic vocabulary.
pub(super) fn basic_stmt(vars: usize, config: &Config) -> BoxedStrategy<SketchStmt> {
    let leaf = basic_leaf(vars, config.rmws);
    if !config.branches {
        return leaf;
    }
    prop_oneof![
        6 => leaf.clone(),
        1 => (any::<usize>(), 0i64..=2, leaf).prop_map(|(reg, value, body)| SketchStmt::If {
            reg,
            cond: Cond::Eq(value),
            then: vec![body],
            els: Vec::new(),
        }),
    ]
    .boxed()
}
