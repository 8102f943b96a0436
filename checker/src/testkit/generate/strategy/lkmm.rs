//! The statements of the LKMM's whole vocabulary, in diy7's spelling: accesses with false
//! and true dependencies, every fence, every family of read-modify-write, spinlocks, RCU,
//! SRCU, pointers, `if`s and `while` loops.

use super::{choose, ordering};
use crate::testkit::generate::{
    ArithOp, Class, Cond, Config, Dep, DepKind, Fence, LOCKS, LoopCond, Probe, ProbeRead, ReadKind,
    RmwOp, SRCU, SketchStmt, TestOp, ValueForm, WriteKind, Zero,
};
use proptest::prelude::*;

fn zero() -> impl Strategy<Value = Zero> {
    prop_oneof![
        6 => Just(Zero::Xor),
        1 => Just(Zero::Sub),
        1 => Just(Zero::And),
        1 => Just(Zero::Mul),
    ]
}

fn value_form() -> impl Strategy<Value = ValueForm> {
    prop_oneof![
        6 => Just(ValueForm::Plain),
        1 => Just(ValueForm::PlusZero),
        1 => Just(ValueForm::OrZero),
        1 => Just(ValueForm::Copy),
        1 => any::<usize>().prop_map(ValueForm::PlusRegister),
    ]
}

/// The dependency of an access: none, or one of `kinds`.
fn dep(config: &Config, kinds: &[DepKind]) -> BoxedStrategy<Option<Dep>> {
    let mut arms: Vec<(u32, Option<Class>, BoxedStrategy<Option<Dep>>)> = Vec::new();
    for &kind in kinds {
        let class = match kind {
            DepKind::Addr => Class::AddrDep,
            DepKind::Data => Class::DataDep,
            DepKind::Value => Class::ValueDep,
        };
        let weight = if kind == DepKind::Value { 1 } else { 3 };
        arms.push((
            weight,
            Some(class),
            (any::<usize>(), zero(), value_form())
                .prop_map(move |(reg, zero, form)| {
                    Some(Dep {
                        reg,
                        kind,
                        zero,
                        form,
                    })
                })
                .boxed(),
        ));
    }
    let deps = choose(config, arms, Just(None).boxed());
    prop_oneof![3 => Just(None), 2 => deps].boxed()
}

/// A leaf statement of the LKMM vocabulary.
fn lkmm_leaf(vars: usize, config: &Config) -> BoxedStrategy<SketchStmt> {
    let var = 0..vars;
    let value = 1i64..=2;
    let read_kind = choose(
        config,
        vec![
            (8, Some(Class::Once), Just(ReadKind::Once).boxed()),
            (1, Some(Class::Once), Just(ReadKind::AtomicRead).boxed()),
            (4, Some(Class::Plain), Just(ReadKind::Plain).boxed()),
            (3, Some(Class::AcqRel), Just(ReadKind::Acquire).boxed()),
            (
                1,
                Some(Class::AcqRel),
                Just(ReadKind::AtomicReadAcquire).boxed(),
            ),
            (
                2,
                Some(Class::RcuPointer),
                Just(ReadKind::Dereference).boxed(),
            ),
        ],
        Just(ReadKind::Once).boxed(),
    );
    let write_kind = choose(
        config,
        vec![
            (8, Some(Class::Once), Just(WriteKind::Once).boxed()),
            (1, Some(Class::Once), Just(WriteKind::AtomicSet).boxed()),
            (4, Some(Class::Plain), Just(WriteKind::Plain).boxed()),
            (3, Some(Class::AcqRel), Just(WriteKind::Release).boxed()),
            (
                1,
                Some(Class::AcqRel),
                Just(WriteKind::AtomicSetRelease).boxed(),
            ),
            (
                2,
                Some(Class::RcuPointer),
                Just(WriteKind::AssignPointer).boxed(),
            ),
            (1, Some(Class::FenceMb), Just(WriteKind::StoreMb).boxed()),
        ],
        Just(WriteKind::Once).boxed(),
    );
    let fence = choose(
        config,
        vec![
            (4, Some(Class::FenceMb), Just(Fence::Mb).boxed()),
            (2, Some(Class::FenceRmb), Just(Fence::Rmb).boxed()),
            (2, Some(Class::FenceWmb), Just(Fence::Wmb).boxed()),
            (
                1,
                Some(Class::FenceAtomic),
                Just(Fence::BeforeAtomic).boxed(),
            ),
            (
                1,
                Some(Class::FenceAtomic),
                Just(Fence::AfterAtomic).boxed(),
            ),
            (
                1,
                Some(Class::FenceSpinlock),
                Just(Fence::AfterSpinlock).boxed(),
            ),
            (
                1,
                Some(Class::FenceUnlockLock),
                Just(Fence::AfterUnlockLock).boxed(),
            ),
            (
                1,
                Some(Class::FenceSrcu),
                Just(Fence::AfterSrcuReadUnlock).boxed(),
            ),
            (1, Some(Class::Barrier), Just(Fence::Barrier).boxed()),
            (2, Some(Class::Rcu), Just(Fence::SynchronizeRcu).boxed()),
            (
                1,
                Some(Class::Rcu),
                Just(Fence::SynchronizeRcuExpedited).boxed(),
            ),
        ],
        Just(Fence::Mb).boxed(),
    );
    let write_dep = dep(config, &[DepKind::Addr, DepKind::Data, DepKind::Value]);
    let read_dep = dep(config, &[DepKind::Addr]);
    let arith = prop_oneof![
        Just(ArithOp::Add),
        Just(ArithOp::Sub),
        Just(ArithOp::Inc),
        Just(ArithOp::Dec),
        Just(ArithOp::And),
        Just(ArithOp::Or),
        Just(ArithOp::Xor),
        Just(ArithOp::AndNot),
    ];
    let rmw_op = choose(
        config,
        vec![
            (
                3,
                Some(Class::RmwXchg),
                (value.clone(), any::<bool>())
                    .prop_map(|(value, atomic)| RmwOp::Xchg { value, atomic })
                    .boxed(),
            ),
            (
                3,
                Some(Class::RmwCmpxchg),
                (0i64..=2, value.clone(), any::<bool>())
                    .prop_map(|(expected, new, atomic)| RmwOp::Cmpxchg {
                        expected,
                        new,
                        atomic,
                    })
                    .boxed(),
            ),
            (
                2,
                Some(Class::RmwOp),
                (arith.clone(), value.clone())
                    .prop_map(|(op, value)| RmwOp::Op { op, value })
                    .boxed(),
            ),
            (
                2,
                Some(Class::RmwReturn),
                (
                    prop_oneof![
                        Just(ArithOp::Add),
                        Just(ArithOp::Sub),
                        Just(ArithOp::Inc),
                        Just(ArithOp::Dec)
                    ],
                    value.clone(),
                )
                    .prop_map(|(op, value)| RmwOp::OpReturn { op, value })
                    .boxed(),
            ),
            (
                2,
                Some(Class::RmwFetch),
                (arith, value.clone())
                    .prop_map(|(op, value)| RmwOp::FetchOp { op, value })
                    .boxed(),
            ),
            (
                1,
                Some(Class::RmwTest),
                (
                    prop_oneof![
                        Just(TestOp::SubAndTest),
                        Just(TestOp::DecAndTest),
                        Just(TestOp::IncAndTest),
                        Just(TestOp::AddNegative)
                    ],
                    value.clone(),
                )
                    .prop_map(|(op, value)| RmwOp::Test { op, value })
                    .boxed(),
            ),
            (
                1,
                Some(Class::RmwAddUnless),
                (value.clone(), 0i64..=2)
                    .prop_map(|(value, unless)| RmwOp::AddUnless { value, unless })
                    .boxed(),
            ),
        ],
        Just(RmwOp::Xchg {
            value: 1,
            atomic: false,
        })
        .boxed(),
    );
    let rmw_dep = dep(config, &[DepKind::Addr, DepKind::Data]);
    let lock = 0..LOCKS.len();
    let mut arms = vec![
        (
            12,
            None,
            (var.clone(), value.clone(), write_kind, write_dep)
                .prop_map(|(var, value, kind, dep)| SketchStmt::Write {
                    var,
                    value,
                    kind,
                    dep,
                })
                .boxed(),
        ),
        (
            12,
            None,
            (var.clone(), read_kind, read_dep)
                .prop_map(|(var, kind, dep)| SketchStmt::Read { var, kind, dep })
                .boxed(),
        ),
        (5, None, fence.prop_map(SketchStmt::Fence).boxed()),
        (
            1,
            Some(Class::IsLocked),
            lock.prop_map(|lock| SketchStmt::IsLocked { lock }).boxed(),
        ),
        (
            1,
            Some(Class::Srcu),
            (0..SRCU.len())
                .prop_map(|domain| SketchStmt::SynchronizeSrcu { domain })
                .boxed(),
        ),
        (
            1,
            Some(Class::Pointer),
            (
                prop_oneof![
                    2 => Just(ReadKind::Dereference),
                    1 => Just(ReadKind::Once),
                    1 => Just(ReadKind::Acquire),
                ],
                prop_oneof![
                    1 => Just(None),
                    2 => Just(Some(ReadKind::Once)),
                    1 => Just(Some(ReadKind::Plain)),
                    1 => Just(Some(ReadKind::Acquire)),
                ],
            )
                .prop_map(|(kind, deref)| SketchStmt::PtrRead { kind, deref })
                .boxed(),
        ),
        (
            1,
            Some(Class::Pointer),
            (
                var.clone(),
                prop_oneof![
                    2 => Just(WriteKind::AssignPointer),
                    1 => Just(WriteKind::Once),
                    1 => Just(WriteKind::Release),
                ],
            )
                .prop_map(|(var, kind)| SketchStmt::PtrWrite { var, kind })
                .boxed(),
        ),
        (
            1,
            Some(Class::Pointer),
            (
                any::<usize>(),
                prop_oneof![Just(None), value.clone().prop_map(Some)],
            )
                .prop_map(|(reg, value)| SketchStmt::Deref { reg, value })
                .boxed(),
        ),
    ];
    if config.rmws {
        arms.push((
            5,
            None,
            (var.clone(), rmw_op, ordering(), rmw_dep)
                .prop_map(|(var, op, ordering, dep)| SketchStmt::Rmw {
                    var,
                    op,
                    ordering,
                    dep,
                })
                .boxed(),
        ));
    }
    choose(config, arms, Just(SketchStmt::Fence(Fence::Mb)).boxed())
}

/// An `if` of the LKMM vocabulary around `body`.
pub(super) fn lkmm_if(body: BoxedStrategy<SketchStmt>) -> BoxedStrategy<SketchStmt> {
    let cond = prop_oneof![
        3 => Just(Cond::Diy),
        2 => (0i64..=2).prop_map(Cond::Eq),
        1 => (0i64..=2).prop_map(Cond::Ne),
    ];
    (
        any::<usize>(),
        cond,
        prop::collection::vec(body.clone(), 1..=2),
        prop_oneof![3 => Just(Vec::new()), 1 => prop::collection::vec(body, 1..=1)],
    )
        .prop_map(|(reg, cond, then, els)| SketchStmt::If {
            reg,
            cond,
            then,
            els,
        })
        .boxed()
}

/// A `while` loop of the LKMM vocabulary around a few `body` statements, in the shapes
/// kernel code and hand-written litmus tests use: a spin loop on a register (most often
/// `while (r0 == 0)` or `while (r0 != 1)`, on a `READ_ONCE`, an acquire load or a lock's
/// `xchg` or `cmpxchg`), a loop whose condition is the read, and a counting loop of one to
/// three rounds, so that some runs are cut off and some are not.
fn lkmm_loop(
    vars: usize,
    body: BoxedStrategy<SketchStmt>,
    config: &Config,
) -> BoxedStrategy<SketchStmt> {
    let read = choose(
        config,
        vec![
            (
                6,
                Some(Class::Once),
                Just(ProbeRead::Read(ReadKind::Once)).boxed(),
            ),
            (
                1,
                Some(Class::Once),
                Just(ProbeRead::Read(ReadKind::AtomicRead)).boxed(),
            ),
            (
                3,
                Some(Class::AcqRel),
                Just(ProbeRead::Read(ReadKind::Acquire)).boxed(),
            ),
            (
                1,
                Some(Class::AcqRel),
                Just(ProbeRead::Read(ReadKind::AtomicReadAcquire)).boxed(),
            ),
            (
                1,
                Some(Class::Plain),
                Just(ProbeRead::Read(ReadKind::Plain)).boxed(),
            ),
            (
                1,
                Some(Class::RmwXchg),
                ordering().prop_map(ProbeRead::Xchg).boxed(),
            ),
            (
                1,
                Some(Class::RmwCmpxchg),
                ordering().prop_map(ProbeRead::Cmpxchg).boxed(),
            ),
        ],
        Just(ProbeRead::Read(ReadKind::Once)).boxed(),
    );
    let test = prop_oneof![
        3 => Just((false, 0)),
        2 => Just((true, 1)),
        1 => Just((true, 2)),
        1 => Just((false, 1)),
        1 => Just((true, 0)),
    ];
    let probe = (0..vars, read, test).prop_map(|(var, read, (ne, value))| Probe {
        var,
        read,
        ne,
        value,
    });
    prop_oneof![
        3 => (
            probe.clone(),
            prop_oneof![
                2 => Just(Vec::new()),
                1 => prop::collection::vec(body.clone(), 1..=1),
            ],
        )
            .prop_map(|(probe, body)| SketchStmt::While {
                cond: LoopCond::Spin(probe),
                body,
            }),
        2 => (probe, prop::collection::vec(body.clone(), 1..=2)).prop_map(|(probe, body)| {
            SketchStmt::While {
                cond: LoopCond::Poll(probe),
                body,
            }
        }),
        2 => (1i64..=3, prop::collection::vec(body, 1..=2)).prop_map(|(bound, body)| {
            SketchStmt::While {
                cond: LoopCond::Count { bound },
                body,
            }
        }),
    ]
    .boxed()
}

/// A statement of the LKMM vocabulary: a leaf, a compound statement around one or two
/// leaves or `if`s of leaves, or a loop around a few leaves.
pub(super) fn lkmm_stmt(vars: usize, config: &Config) -> BoxedStrategy<SketchStmt> {
    let leaf = lkmm_leaf(vars, config);
    let inner = choose(
        config,
        vec![
            (5, None, leaf.clone()),
            (1, Some(Class::CtrlDep), lkmm_if(leaf.clone())),
        ],
        leaf.clone(),
    );
    let body = prop::collection::vec(inner, 1..=2);
    let lock = 0..LOCKS.len();
    choose(
        config,
        vec![
            (16, None, leaf.clone()),
            (3, Some(Class::CtrlDep), lkmm_if(leaf.clone())),
            (1, Some(Class::Loop), lkmm_loop(vars, leaf, config)),
            (
                1,
                Some(Class::Lock),
                (lock.clone(), body.clone())
                    .prop_map(|(lock, body)| SketchStmt::Lock { lock, body })
                    .boxed(),
            ),
            (
                1,
                Some(Class::TryLock),
                (lock, body.clone())
                    .prop_map(|(lock, body)| SketchStmt::TryLock { lock, body })
                    .boxed(),
            ),
            (
                2,
                Some(Class::Rcu),
                body.clone().prop_map(SketchStmt::RcuRead).boxed(),
            ),
            (
                1,
                Some(Class::Srcu),
                (0..SRCU.len(), body)
                    .prop_map(|(domain, body)| SketchStmt::SrcuRead { domain, body })
                    .boxed(),
            ),
        ],
        Just(SketchStmt::Fence(Fence::Mb)).boxed(),
    )
}
