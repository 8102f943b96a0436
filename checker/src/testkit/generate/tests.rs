use super::*;
use hazmat_litmus::ast::{self, Quantifier};
use std::collections::BTreeSet;

#[test]
fn a_sketch_prints_as_litmus_text() {
    let s = Sketch {
        vars: 2,
        init: Vec::new(),
        threads: vec![
            vec![
                SketchStmt::Write {
                    var: 0,
                    value: 1,
                    kind: WriteKind::Once,
                    dep: None,
                },
                SketchStmt::Write {
                    var: 1,
                    value: 1,
                    kind: WriteKind::Release,
                    dep: None,
                },
            ],
            vec![
                SketchStmt::Read {
                    var: 1,
                    kind: ReadKind::Acquire,
                    dep: None,
                },
                SketchStmt::If {
                    reg: 0,
                    cond: Cond::Eq(1),
                    then: vec![SketchStmt::Rmw {
                        var: 0,
                        op: RmwOp::Xchg {
                            value: 2,
                            atomic: false,
                        },
                        ordering: Ordering::Relaxed,
                        dep: None,
                    }],
                    els: Vec::new(),
                },
            ],
        ],
        quantifier: Quantifier::Exists,
        condition: vec![Atom::eq(Target::Reg(1, 0), 1), Atom::eq(Target::Var(0), 1)],
        filter: Vec::new(),
        shown: Shown::All,
        all_params: true,
    };
    expect_test::expect![[r#"
        C generated
        {}

        P0(int *x, int *y)
        {
        	WRITE_ONCE(*x, 1);
        	smp_store_release(y, 1);
        }

        P1(int *x, int *y)
        {
        	int r0;
        	int r1;
        	r0 = smp_load_acquire(y);
        	if (r0 == 1) {
        		r1 = xchg_relaxed(x, 2);
        	}
        }

        locations [1:r0; 1:r1; x; y;]
        exists (1:r0=1 /\ x=1)
    "#]]
    .assert_eq(&hazmat_litmus::print(&s.to_test("generated")));
    assert_eq!(s.interleavings(), 6);
    assert_eq!(s.with_mb(1, 1).threads[1][1], SketchStmt::Fence(Fence::Mb));
    let classes: Vec<&str> = s.classes().iter().map(|c| c.name()).collect();
    assert_eq!(classes, ["once", "acq-rel", "ctrl-dep", "rmw-xchg"]);
}

#[test]
fn loops_print_in_their_three_shapes() {
    let once = |var| Probe {
        var,
        read: ProbeRead::Read(ReadKind::Once),
        ne: false,
        value: 0,
    };
    let write = SketchStmt::Write {
        var: 1,
        value: 1,
        kind: WriteKind::Once,
        dep: None,
    };
    let s = Sketch {
        vars: 2,
        init: Vec::new(),
        threads: vec![
            vec![
                SketchStmt::While {
                    cond: LoopCond::Spin(Probe {
                        read: ProbeRead::Read(ReadKind::Acquire),
                        ..once(0)
                    }),
                    body: Vec::new(),
                },
                SketchStmt::Read {
                    var: 1,
                    kind: ReadKind::Once,
                    dep: None,
                },
            ],
            vec![
                SketchStmt::While {
                    cond: LoopCond::Poll(Probe {
                        ne: true,
                        value: 1,
                        ..once(1)
                    }),
                    body: vec![SketchStmt::Fence(Fence::Mb)],
                },
                // With nothing else to do, a loop on a read is a spin loop.
                SketchStmt::While {
                    cond: LoopCond::Poll(Probe {
                        read: ProbeRead::Cmpxchg(Ordering::Acquire),
                        ne: true,
                        ..once(0)
                    }),
                    body: Vec::new(),
                },
            ],
            vec![SketchStmt::While {
                cond: LoopCond::Count { bound: 2 },
                body: vec![
                    SketchStmt::Rmw {
                        var: 0,
                        op: RmwOp::FetchOp {
                            op: ArithOp::Add,
                            value: 1,
                        },
                        ordering: Ordering::Relaxed,
                        dep: None,
                    },
                    write,
                ],
            }],
        ],
        quantifier: Quantifier::Exists,
        condition: vec![
            Atom::eq(Target::Reg(0, 1), 0),
            Atom::eq(Target::Reg(2, 0), 2),
        ],
        filter: Vec::new(),
        shown: Shown::None,
        all_params: false,
    };
    let printed = hazmat_litmus::print(&s.to_test("loops"));
    expect_test::expect![[r#"
        C loops
        {}

        P0(int *x, int *y)
        {
        	int r0;
        	int r1;
        	r0 = smp_load_acquire(x);
        	while (r0 == 0)
        		r0 = smp_load_acquire(x);
        	r1 = READ_ONCE(*y);
        }

        P1(int *x, int *y)
        {
        	int r0;
        	while (READ_ONCE(*y) != 1) {
        		smp_mb();
        	}
        	r0 = cmpxchg_acquire(x, 0, 1);
        	while (r0 != 0) {
        		r0 = cmpxchg_acquire(x, 0, 1);
        	}
        }

        P2(int *x, int *y)
        {
        	int r0;
        	int r1;
        	r0 = 0;
        	while (r0 < 2) {
        		r1 = atomic_fetch_add_relaxed(1, x);
        		WRITE_ONCE(*y, 1);
        		r0 = r0 + 1;
        	}
        }

        exists (0:r1=0 /\ 2:r0=2)
    "#]]
    .assert_eq(&printed);
    let parsed = hazmat_litmus::parse(&printed).unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(parsed, s.to_test("loops"));
    let classes: Vec<&str> = s.classes().iter().map(|c| c.name()).collect();
    assert_eq!(
        classes,
        [
            "once",
            "acq-rel",
            "loop",
            "fence-mb",
            "rmw-cmpxchg",
            "rmw-fetch",
            "locations-none"
        ]
    );
    // A loop's read and body count twice, as herd7 runs them twice.
    let sizes: Vec<usize> = s.threads.iter().flatten().map(SketchStmt::size).collect();
    assert_eq!(sizes, [3, 1, 5, 3, 5]);
}

#[test]
fn a_loop_shrinks_to_its_body_or_to_a_simpler_loop() {
    let probe = Probe {
        var: 0,
        read: ProbeRead::Xchg(Ordering::Acquire),
        ne: false,
        value: 1,
    };
    let fence = SketchStmt::Fence(Fence::Rmb);
    let spin = SketchStmt::While {
        cond: LoopCond::Spin(probe),
        body: vec![fence.clone()],
    };
    let smaller = shrink::smaller_stmt(&spin);
    let with_cond = |cond| {
        vec![SketchStmt::While {
            cond,
            body: vec![fence.clone()],
        }]
    };
    let xchg = SketchStmt::Rmw {
        var: 0,
        op: RmwOp::Xchg {
            value: 1,
            atomic: false,
        },
        ordering: Ordering::Acquire,
        dep: None,
    };
    assert_eq!(
        smaller,
        [
            // Unwrapped: the body alone, then the first round.
            vec![fence.clone()],
            vec![xchg, fence.clone()],
            // The body shrunk.
            vec![SketchStmt::While {
                cond: LoopCond::Spin(probe),
                body: Vec::new(),
            }],
            vec![SketchStmt::While {
                cond: LoopCond::Spin(probe),
                body: vec![SketchStmt::Fence(Fence::Mb)],
            }],
            // The read made plainer.
            with_cond(LoopCond::Spin(Probe {
                read: ProbeRead::Read(ReadKind::Once),
                ..probe
            })),
            with_cond(LoopCond::Spin(Probe {
                read: ProbeRead::Xchg(Ordering::Relaxed),
                ..probe
            })),
        ]
    );
    let count = SketchStmt::While {
        cond: LoopCond::Count { bound: 3 },
        body: vec![fence.clone()],
    };
    assert!(shrink::smaller_stmt(&count).contains(&with_cond(LoopCond::Count { bound: 2 })));
    // A loop is dropped like any statement.
    let s = Sketch {
        vars: 1,
        init: Vec::new(),
        threads: vec![vec![spin, fence.clone()]],
        quantifier: Quantifier::Exists,
        condition: Vec::new(),
        filter: Vec::new(),
        shown: Shown::All,
        all_params: true,
    };
    assert!(
        s.smaller()
            .iter()
            .any(|t| t.threads == [vec![fence.clone()]])
    );
}

#[test]
fn minimising_a_loop_keeps_a_bare_loop() {
    let has_loop = |s: &Sketch| hazmat_litmus::print(&s.to_test("t")).contains("while (");
    let config = Config {
        with: vec![Class::Loop],
        ..Config::lkmm()
    };
    for seed in 0..100 {
        let s = from_seed(seed, config.clone());
        assert!(has_loop(&s), "{s:?}");
        let m = minimise(&s, 7, 1000, |chunk| chunk.iter().position(has_loop));
        let [thread] = m.threads.as_slice() else {
            panic!("more than one thread left: {m:?}");
        };
        let [SketchStmt::While { cond, body }] = thread.as_slice() else {
            panic!("more than the loop left: {m:?}");
        };
        assert!(body.is_empty(), "{m:?}");
        match cond {
            LoopCond::Spin(p) | LoopCond::Poll(p) => {
                assert_eq!(p.read, ProbeRead::Read(ReadKind::Once));
            }
            LoopCond::Count { bound } => assert_eq!(*bound, 1),
        }
    }
}

#[test]
fn loops_are_drawn_only_from_the_lkmm_vocabulary() {
    let loops = |config: Config| {
        (0..1000)
            .filter(|&seed| {
                from_seed(seed, config.clone())
                    .classes()
                    .contains(&Class::Loop)
            })
            .count()
    };
    assert_eq!(loops(Config::default()), 0);
    let lkmm = loops(Config::lkmm());
    assert!((50..=300).contains(&lkmm), "{lkmm} of 1000 programs loop");
    assert_eq!(
        loops(Config {
            branches: false,
            ..Config::lkmm()
        }),
        0
    );
}

#[test]
fn bytes_drive_the_generator_deterministically() {
    let a = from_bytes(b"some fuzzer input", Config::default());
    let b = from_bytes(b"some fuzzer input", Config::default());
    assert!(a.is_some());
    assert_eq!(a, b);
    assert!(from_bytes(&[], Config::default()).is_some());
    assert!(from_bytes(&[0; 4096], Config::default()).is_some());
    assert!(from_bytes(&[0xff; 4096], Config::default()).is_some());
    assert_eq!(from_seed(7, Config::lkmm()), from_seed(7, Config::lkmm()));
    assert_ne!(from_seed(7, Config::lkmm()), from_seed(8, Config::lkmm()));
}

#[test]
fn class_names_are_distinct_and_read_back() {
    let names: BTreeSet<&str> = Class::ALL.iter().map(|c| c.name()).collect();
    assert_eq!(names.len(), Class::ALL.len());
    for c in Class::ALL {
        assert_eq!(Class::from_name(c.name()), Some(c));
    }
}

/// The classes only the C11 vocabulary draws.
const C11_CLASSES: [Class; 7] = [
    Class::C11Access,
    Class::C11Rmw,
    Class::C11Cas,
    Class::C11Fence,
    Class::C11Implicit,
    Class::C11Dropped,
    Class::KernelRmw,
];

#[test]
fn the_lkmm_vocabulary_reaches_every_class() {
    let mut seen = BTreeSet::new();
    for seed in 0..3000 {
        seen.extend(from_seed(seed, Config::lkmm()).classes());
    }
    let missing: Vec<&str> = Class::ALL
        .iter()
        .filter(|c| !seen.contains(c) && !C11_CLASSES.contains(c))
        .map(|c| c.name())
        .collect();
    assert!(missing.is_empty(), "never drawn: {missing:?}");
}

/// The C11 vocabulary draws each of its classes, every order on every operation, and
/// nothing of the kernel's.
#[test]
fn the_c11_vocabulary_reaches_every_order_of_every_operation() {
    let mut seen = BTreeSet::new();
    let mut spelled = BTreeSet::new();
    for seed in 0..2000 {
        let sketch = from_seed(seed, Config::c11());
        seen.extend(sketch.classes());
        let text = hazmat_litmus::print(&sketch.to_test("t"));
        assert!(!text.contains("ONCE") && !text.contains("smp_"), "{text}");
        for word in text.split(|c: char| !c.is_ascii_alphanumeric() && c != '_') {
            if word.starts_with("atomic_") || word.starts_with("memory_order_") {
                spelled.insert(word.to_string());
            }
        }
    }
    for c in C11_CLASSES {
        assert!(seen.contains(&c), "never drawn: {c}");
    }
    for op in [
        "load",
        "store",
        "exchange",
        "fetch_add",
        "fetch_sub",
        "fetch_or",
        "fetch_xor",
        "fetch_and",
        "compare_exchange_strong",
        "compare_exchange_weak",
    ] {
        assert!(spelled.contains(&format!("atomic_{op}")), "atomic_{op}");
        assert!(
            spelled.contains(&format!("atomic_{op}_explicit")),
            "{op}_explicit"
        );
    }
    assert!(spelled.contains("atomic_thread_fence"));
    for order in Order::ALL {
        assert!(spelled.contains(order.word()), "{}", order.word());
    }
}

#[test]
fn a_class_left_out_is_never_drawn() {
    let config = Config {
        without: vec![Class::AddrDep, Class::Lock, Class::Plain],
        ..Config::lkmm()
    };
    for seed in 0..500 {
        let classes = from_seed(seed, config.clone()).classes();
        assert!(!classes.contains(&Class::AddrDep));
        assert!(!classes.contains(&Class::Lock));
        assert!(!classes.contains(&Class::Plain));
    }
}

#[test]
fn a_class_asked_for_is_always_drawn() {
    let config = Config {
        with: vec![Class::Loop, Class::Once],
        ..Config::lkmm()
    };
    for seed in 0..300 {
        let classes = from_seed(seed, config.clone()).classes();
        assert!(classes.contains(&Class::Loop));
        assert!(classes.contains(&Class::Once));
    }
}

#[test]
fn minimising_keeps_what_fails_and_nothing_more() {
    let has_wmb = |s: &Sketch| hazmat_litmus::print(&s.to_test("t")).contains("smp_wmb();");
    let mut minimised = 0;
    for seed in 0..300 {
        let s = from_seed(seed, Config::lkmm());
        if !has_wmb(&s) {
            continue;
        }
        let m = minimise(&s, 7, 1000, |chunk| chunk.iter().position(has_wmb));
        assert!(has_wmb(&m));
        assert_eq!(m.threads, vec![vec![SketchStmt::Fence(Fence::Wmb)]]);
        minimised += 1;
    }
    assert!(minimised > 10, "only {minimised} sketches with smp_wmb()");
}

#[test]
fn smaller_sketches_are_smaller_and_print() {
    let loops = Config {
        with: vec![Class::Loop],
        ..Config::lkmm()
    };
    let sketches = (0..200)
        .map(|seed| from_seed(seed, Config::lkmm()))
        .chain((0..100).map(|seed| from_seed(seed, loops.clone())));
    for s in sketches {
        let size = |s: &Sketch| format!("{:?}", s).len();
        for t in s.smaller() {
            assert!(size(&t) < size(&s) || t.condition.len() <= s.condition.len());
            assert_ne!(t, s);
            let printed = hazmat_litmus::print(&t.to_test("smaller"));
            hazmat_litmus::parse(&printed).unwrap_or_else(|e| panic!("{}", e.message));
        }
    }
}

/// Given the macros of an older def file, every program calls only what they define, and
/// the vocabulary left is still varied.
#[test]
fn programs_call_only_what_the_macros_define() {
    let def = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/lkmm-history/2018/linux-kernel.def"
    ))
    .expect("the 2018 def file");
    let macros = crate::front::defs::Macros::parse(&def).expect("it reads");
    assert!(!macros.defines("atomic_xor") && !macros.defines("srcu_read_lock"));
    let config = Config {
        macros: Some(std::sync::Arc::new(macros.clone())),
        ..Config::lkmm()
    };
    let mut seen = BTreeSet::new();
    for seed in 0..200 {
        let calls = from_seed(seed, config.clone()).calls();
        assert!(calls.iter().all(|c| macros.defines(c)), "{calls:?}");
        seen.extend(calls);
    }
    assert!(seen.len() >= 20, "{seen:?}");
    // Without them, the same seeds call what the 2018 file lacks.
    let lacking = (0..200)
        .flat_map(|seed| from_seed(seed, Config::lkmm()).calls())
        .filter(|c| !macros.defines(c))
        .count();
    assert!(lacking > 0);
}

/// Branches and loop bodies come in braces mostly, and some of one statement without
/// them, some as a block in a block, which herd7 numbers otherwise; a `then` branch
/// without braces is never an `if`, whose `else` it would take.
#[test]
fn branches_come_with_and_without_braces() {
    fn walk(s: &ast::Stmt, count: &mut [usize; 4]) {
        let branch = |b: &ast::Stmt, count: &mut [usize; 4]| {
            let k = match &b.kind {
                ast::StmtKind::Block(inner) if matches!(&inner[..], [i] if matches!(i.kind, ast::StmtKind::Block(_))) => {
                    1
                }
                ast::StmtKind::Block(_) => 0,
                ast::StmtKind::If { .. } => 3,
                _ => 2,
            };
            count[k] += 1;
            walk(b, count);
        };
        match &s.kind {
            ast::StmtKind::If { then, els, .. } => {
                assert!(els.is_none() || !matches!(then.kind, ast::StmtKind::If { .. }));
                branch(then, count);
                if let Some(e) = els {
                    branch(e, count);
                }
            }
            ast::StmtKind::While { body, .. } => branch(body, count),
            ast::StmtKind::Block(b) => b.iter().for_each(|s| walk(s, count)),
            _ => {}
        }
    }
    // Braced, a block in a block, one statement, an `if` (an `else if`).
    let mut count = [0; 4];
    for seed in 0..400 {
        for config in [Config::lkmm(), Config::c11()] {
            for t in from_seed(seed, config).to_test("t").threads {
                t.body.iter().for_each(|s| walk(s, &mut count));
            }
        }
    }
    let [braced, nested, bare, _] = count;
    assert!(bare > 20 && nested > 20, "{count:?}");
    assert!(braced > bare + nested, "{count:?}");
}
