//! The statements of herd7's C11 dialect: every memory order on every atomic operation,
//! fences, read-modify-writes, compare-exchanges, plain accesses, and now and then an `if`.

use super::choose;
use super::lkmm::lkmm_if;
use crate::testkit::generate::{
    C11Op, Class, Config, FetchOp, KernelAnnotation, Order, SketchStmt,
};
use proptest::prelude::*;

fn c11_order() -> BoxedStrategy<Order> {
    prop::sample::select(Order::ALL.to_vec()).boxed()
}

/// An order, or now and then none: the form without `_explicit`.
fn c11_maybe_order() -> BoxedStrategy<Option<Order>> {
    prop_oneof![
        6 => c11_order().prop_map(Some),
        1 => Just(None),
    ]
    .boxed()
}

/// A leaf statement of the C11 vocabulary: every order on every operation.
fn c11_leaf(vars: usize, config: &Config) -> BoxedStrategy<SketchStmt> {
    let var = 0..vars;
    let value = 1i64..=2;
    let op = prop::sample::select(vec![
        FetchOp::Add,
        FetchOp::Sub,
        FetchOp::Or,
        FetchOp::Xor,
        FetchOp::And,
    ]);
    let c11 = |s: BoxedStrategy<C11Op>| s.prop_map(SketchStmt::C11).boxed();
    choose(
        config,
        vec![
            (
                5,
                Some(Class::C11Access),
                c11((var.clone(), c11_maybe_order())
                    .prop_map(|(var, order)| C11Op::Load { var, order })
                    .boxed()),
            ),
            (
                5,
                Some(Class::C11Access),
                c11((var.clone(), value.clone(), c11_maybe_order())
                    .prop_map(|(var, value, order)| C11Op::Store { var, value, order })
                    .boxed()),
            ),
            (
                2,
                Some(Class::Plain),
                c11(var.clone().prop_map(|var| C11Op::PlainRead { var }).boxed()),
            ),
            (
                2,
                Some(Class::Plain),
                c11((var.clone(), value.clone())
                    .prop_map(|(var, value)| C11Op::PlainWrite { var, value })
                    .boxed()),
            ),
            (
                2,
                Some(Class::C11Fence),
                c11(c11_order().prop_map(C11Op::Fence).boxed()),
            ),
            (
                1,
                Some(Class::C11Rmw),
                c11((var.clone(), value.clone(), c11_maybe_order())
                    .prop_map(|(var, value, order)| C11Op::Exchange { var, value, order })
                    .boxed()),
            ),
            (
                1,
                Some(Class::C11Rmw),
                c11((var.clone(), op.clone(), value.clone(), c11_maybe_order())
                    .prop_map(|(var, op, value, order)| C11Op::Fetch {
                        var,
                        op,
                        value,
                        order,
                    })
                    .boxed()),
            ),
            (
                2,
                Some(Class::C11Cas),
                c11((
                    var.clone(),
                    var.clone(),
                    value.clone(),
                    prop_oneof![
                        6 => (c11_order(), c11_order()).prop_map(Some),
                        1 => Just(None),
                    ],
                    any::<bool>(),
                )
                    .prop_map(
                        |(var, expected, desired, orders, strong)| C11Op::CompareExchange {
                            var,
                            expected,
                            desired,
                            orders,
                            strong,
                        },
                    )
                    .boxed()),
            ),
            (
                1,
                Some(Class::C11Dropped),
                c11(prop_oneof![
                    (var.clone(), value.clone(), c11_order()).prop_map(|(var, value, o)| {
                        C11Op::Exchange {
                            var,
                            value,
                            order: Some(o),
                        }
                    }),
                    (var.clone(), op.clone(), value.clone(), c11_order()).prop_map(
                        |(var, op, value, o)| C11Op::Fetch {
                            var,
                            op,
                            value,
                            order: Some(o),
                        }
                    ),
                    (
                        var.clone(),
                        var.clone(),
                        value.clone(),
                        prop::option::of((c11_order(), c11_order())),
                        any::<bool>(),
                    )
                        .prop_map(
                            |(var, expected, desired, orders, strong)| {
                                C11Op::CompareExchange {
                                    var,
                                    expected,
                                    desired,
                                    orders,
                                    strong,
                                }
                            }
                        ),
                ]
                .prop_map(|op| C11Op::Dropped(Box::new(op)))
                .boxed()),
            ),
            (
                1,
                Some(Class::KernelRmw),
                c11((
                    var,
                    value,
                    prop::option::of(op),
                    prop::sample::select(KernelAnnotation::ALL.to_vec()),
                )
                    .prop_map(|(var, value, op, annotation)| C11Op::Kernel {
                        var,
                        value,
                        op,
                        annotation,
                    })
                    .boxed()),
            ),
        ],
        Just(SketchStmt::C11(C11Op::Fence(Order::SeqCst))).boxed(),
    )
}

/// A statement of the C11 vocabulary: a leaf, or now and then an `if` around some.
pub(super) fn c11_stmt(vars: usize, config: &Config) -> BoxedStrategy<SketchStmt> {
    let leaf = c11_leaf(vars, config);
    choose(
        config,
        vec![
            (8, None, leaf.clone()),
            (1, Some(Class::CtrlDep), lkmm_if(leaf.clone())),
        ],
        leaf,
    )
}
