//! Random litmus programs, for the differential tests and the fuzz targets.
//!
//! A generated program is first a small [`Sketch`]: per thread, a few statements drawn from
//! the primitives that SC, TSO and the LKMM all give meaning to (`READ_ONCE`/`WRITE_ONCE`,
//! acquire loads and release stores, `smp_mb`/`smp_rmb`/`smp_wmb`, `xchg`, `cmpxchg` and
//! `atomic_fetch_add` in their four orderings, `atomic_add`, and `if` on a register read
//! earlier).
//! [`Sketch::to_test`] turns it into a [`hazmat_litmus::Test`] whose `locations` list names
//! every register and every variable, so that a final state is the whole final state, and
//! whose `exists` clause is a conjunction over a few of them.
//!
//! RCU, SRCU and spinlocks are deliberately absent: under TSO, `synchronize_rcu()` is only
//! a full fence and read-side critical sections mean nothing, so TSO allows RCU outcomes
//! the LKMM forbids (store buffering across a grace period, for one), and the inclusion
//! TSO ⊆ LKMM that the differential tests check would not hold.
//!
//! The strategies are proptest strategies, so failures shrink; the fuzz targets reuse them
//! by drawing from a random source seeded with the fuzzer's bytes ([`from_bytes`]).

use hazmat_litmus::ast::{
    self, BinaryOp, Condition, Expr, ExprKind, Ident, Location, Param, Prop, PropKind, Quantifier,
    Span, Stmt, StmtKind, Test, Thread, Type,
};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};

/// The names of the shared variables, in order.
const VARS: [&str; 3] = ["x", "y", "z"];

/// The ordering of a read-modify-write, which names its suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ordering {
    /// Fully ordered (no suffix).
    Full,
    /// `_relaxed`.
    Relaxed,
    /// `_acquire`.
    Acquire,
    /// `_release`.
    Release,
}

impl Ordering {
    fn suffix(self) -> &'static str {
        match self {
            Ordering::Full => "",
            Ordering::Relaxed => "_relaxed",
            Ordering::Acquire => "_acquire",
            Ordering::Release => "_release",
        }
    }
}

/// A fence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fence {
    /// `smp_mb()`.
    Mb,
    /// `smp_rmb()`.
    Rmb,
    /// `smp_wmb()`.
    Wmb,
}

/// One statement of a sketch; `var` indexes the shared variables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SketchStmt {
    /// `WRITE_ONCE(*x, v)`, or `smp_store_release(x, v)`.
    Write {
        /// The variable written.
        var: usize,
        /// The value written.
        value: i64,
        /// Whether it is a release store.
        release: bool,
    },
    /// `r = READ_ONCE(*x)`, or `r = smp_load_acquire(x)`.
    Read {
        /// The variable read.
        var: usize,
        /// Whether it is an acquire load.
        acquire: bool,
    },
    /// A fence.
    Fence(Fence),
    /// `r = xchg(x, v)`.
    Xchg {
        /// The variable.
        var: usize,
        /// The value stored.
        value: i64,
        /// The ordering.
        ordering: Ordering,
    },
    /// `r = cmpxchg(x, old, new)`.
    Cmpxchg {
        /// The variable.
        var: usize,
        /// The value compared with.
        expected: i64,
        /// The value stored on success.
        new: i64,
        /// The ordering.
        ordering: Ordering,
    },
    /// `r = atomic_fetch_add(v, x)`.
    FetchAdd {
        /// The variable.
        var: usize,
        /// The value added.
        value: i64,
        /// The ordering.
        ordering: Ordering,
    },
    /// `atomic_add(v, x)`, which returns nothing.
    Add {
        /// The variable.
        var: usize,
        /// The value added.
        value: i64,
    },
    /// `if (r == v) { body }`, where `r` is the register of an earlier statement of the
    /// thread (`reg` is taken modulo their number; with none, the body runs unguarded).
    If {
        /// Which earlier register.
        reg: usize,
        /// The value compared with.
        value: i64,
        /// The guarded statement (never an `if`).
        body: Box<SketchStmt>,
    },
}

impl SketchStmt {
    /// The number of memory accesses the statement makes when it runs (an RMW counts once:
    /// it is one atomic step).
    fn accesses(&self) -> usize {
        match self {
            SketchStmt::Fence(_) => 0,
            SketchStmt::If { body, .. } => body.accesses(),
            _ => 1,
        }
    }
}

/// What an atom of the condition tests; indices are taken modulo what exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// A register: a thread, and one of its registers.
    Reg(usize, usize),
    /// A shared variable.
    Var(usize),
}

/// A small random program, before it becomes a litmus test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sketch {
    /// The number of shared variables (1 to 3).
    pub vars: usize,
    /// The statements of each thread.
    pub threads: Vec<Vec<SketchStmt>>,
    /// The atoms `target = value` of the `exists` clause.
    pub condition: Vec<(Target, i64)>,
}

/// Bounds on the sketches a strategy draws.
#[derive(Clone, Debug)]
pub struct Config {
    /// The fewest threads.
    pub min_threads: usize,
    /// The most threads.
    pub max_threads: usize,
    /// The most statements per thread (at least one each).
    pub max_stmts: usize,
    /// The most shared variables (at least two are used when there are two threads or more).
    pub max_vars: usize,
    /// Whether to draw read-modify-writes.
    pub rmws: bool,
    /// Whether to draw `if` statements.
    pub branches: bool,
}

impl Default for Config {
    /// 2 to 4 threads of 1 to 3 statements over 2 or 3 variables, with RMWs and branches.
    fn default() -> Config {
        Config {
            min_threads: 2,
            max_threads: 4,
            max_stmts: 3,
            max_vars: 3,
            rmws: true,
            branches: true,
        }
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

fn leaf(vars: usize, rmws: bool) -> BoxedStrategy<SketchStmt> {
    let var = 0..vars;
    let value = 1i64..=2;
    let plain = prop_oneof![
        4 => (var.clone(), value.clone(), any::<bool>())
            .prop_map(|(var, value, release)| SketchStmt::Write { var, value, release }),
        4 => (var.clone(), any::<bool>()).prop_map(|(var, acquire)| SketchStmt::Read { var, acquire }),
        2 => prop_oneof![Just(Fence::Mb), Just(Fence::Rmb), Just(Fence::Wmb)].prop_map(SketchStmt::Fence),
    ];
    if !rmws {
        return plain.boxed();
    }
    prop_oneof![
        10 => plain,
        1 => (var.clone(), value.clone(), ordering())
            .prop_map(|(var, value, ordering)| SketchStmt::Xchg { var, value, ordering }),
        1 => (var.clone(), 0i64..=1, value.clone(), ordering()).prop_map(
            |(var, expected, new, ordering)| SketchStmt::Cmpxchg { var, expected, new, ordering }
        ),
        1 => (var.clone(), value.clone(), ordering())
            .prop_map(|(var, value, ordering)| SketchStmt::FetchAdd { var, value, ordering }),
        1 => (var, value).prop_map(|(var, value)| SketchStmt::Add { var, value }),
    ]
    .boxed()
}

fn stmt(vars: usize, config: &Config) -> BoxedStrategy<SketchStmt> {
    let leaf = leaf(vars, config.rmws);
    if !config.branches {
        return leaf;
    }
    prop_oneof![
        6 => leaf.clone(),
        1 => (any::<usize>(), 0i64..=2, leaf).prop_map(|(reg, value, body)| SketchStmt::If {
            reg,
            value,
            body: Box::new(body),
        }),
    ]
    .boxed()
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
    let thread = prop::collection::vec(stmt(max_vars, &config), 1..=config.max_stmts.max(1));
    let atom = (
        prop_oneof![
            3 => (any::<usize>(), any::<usize>()).prop_map(|(t, r)| Target::Reg(t, r)),
            1 => any::<usize>().prop_map(Target::Var),
        ],
        0i64..=2,
    );
    (
        vars,
        prop::collection::vec(thread, config.min_threads..=config.max_threads),
        prop::collection::vec(atom, 1..=3),
    )
        .prop_map(|(vars, threads, condition)| Sketch {
            vars,
            threads,
            condition,
        })
}

/// The strategy for litmus tests within `config`.
pub fn test(config: Config) -> impl Strategy<Value = Test> {
    sketch(config).prop_map(|s| s.to_test("generated"))
}

/// Draws a sketch from `bytes` (the fuzzers' input): the bytes are folded into the seed of
/// the ChaCha source proptest draws from.
///
/// Proptest's pass-through source, which would read the bytes themselves, hands half of
/// what is left to every alternative of a `prop_oneof` it does not take, so a few levels
/// down it gives only zeros, on which uniform sampling by rejection never ends (it hung the
/// `check` fuzz target); a seed keeps the draw total, at the price of coarser mutations.
pub fn from_bytes(bytes: &[u8], config: Config) -> Option<Sketch> {
    let mut seed = [0u8; 32];
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ bytes.len() as u64;
    for (i, &b) in bytes.iter().enumerate() {
        // FNV-1a, spread over the seed's 32 bytes.
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        seed[i % 32] ^= (h >> 32) as u8;
    }
    for (i, s) in seed.iter_mut().enumerate() {
        *s ^= (h >> (8 * (i % 8))) as u8;
    }
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed);
    let mut runner = TestRunner::new_with_rng(proptest::test_runner::Config::default(), rng);
    sketch(config)
        .new_tree(&mut runner)
        .ok()
        .map(|tree| tree.current())
}

impl Sketch {
    /// The number of interleavings of the threads' atomic steps: the multinomial
    /// coefficient of their access counts (saturating), an upper bound on the schedules an
    /// operational engine explores.
    pub fn interleavings(&self) -> u64 {
        crate::interp::multinomial(
            self.threads
                .iter()
                .map(|t| t.iter().map(|s| s.accesses() as u64).sum()),
        )
    }

    /// The same sketch with `smp_mb()` inserted in thread `thread` (modulo their number)
    /// before statement `at` (modulo one more than their number).
    pub fn with_mb(&self, thread: usize, at: usize) -> Sketch {
        let mut s = self.clone();
        let t = thread % s.threads.len();
        let at = at % (s.threads[t].len() + 1);
        s.threads[t].insert(at, SketchStmt::Fence(Fence::Mb));
        s
    }

    /// The litmus test of the sketch, named `name`.
    pub fn to_test(&self, name: &str) -> Test {
        let vars: Vec<&str> = VARS[..self.vars.clamp(1, VARS.len())].to_vec();
        let mut threads = Vec::new();
        let mut regs_per_thread = Vec::new();
        for (i, stmts) in self.threads.iter().enumerate() {
            let mut regs = 0usize;
            let mut body = Vec::new();
            for s in stmts {
                if let Some(st) = lower_stmt(s, &vars, &mut regs) {
                    body.push(st);
                }
            }
            let mut decls: Vec<Stmt> = (0..regs)
                .map(|r| {
                    stmt_of(StmtKind::Decl {
                        ty: int_type(0),
                        name: ident(&format!("r{r}")),
                        init: None,
                    })
                })
                .collect();
            decls.extend(body);
            threads.push(Thread {
                id: i as u32,
                name_span: Span::DUMMY,
                params: vars
                    .iter()
                    .map(|v| Param {
                        ty: int_type(1),
                        name: ident(v),
                        span: Span::DUMMY,
                    })
                    .collect(),
                body: decls,
                span: Span::DUMMY,
            });
            regs_per_thread.push(regs);
        }
        // Every register and variable is shown, so that a state is the whole final state.
        let mut locations = Vec::new();
        for (t, &n) in regs_per_thread.iter().enumerate() {
            for r in 0..n {
                locations.push(register(t, r));
            }
        }
        locations.extend(vars.iter().map(|v| Location::Global(ident(v))));
        let with_regs: Vec<usize> = (0..regs_per_thread.len())
            .filter(|&t| regs_per_thread[t] > 0)
            .collect();
        let mut prop: Option<Prop> = None;
        for &(target, value) in &self.condition {
            let loc = match target {
                Target::Reg(t, r) if !with_regs.is_empty() => {
                    let t = with_regs[t % with_regs.len()];
                    register(t, r % regs_per_thread[t])
                }
                Target::Reg(_, v) | Target::Var(v) => Location::Global(ident(vars[v % vars.len()])),
            };
            let atom = Prop {
                kind: PropKind::Atom(ast::Atom {
                    loc,
                    op: ast::CmpOp::Eq,
                    value: ast::Value::Int(value),
                    span: Span::DUMMY,
                }),
                span: Span::DUMMY,
            };
            prop = Some(match prop {
                None => atom,
                Some(p) => Prop {
                    kind: PropKind::And(Box::new(p), Box::new(atom)),
                    span: Span::DUMMY,
                },
            });
        }
        Test {
            arch: "C".into(),
            name: ident(name),
            doc: None,
            info: Vec::new(),
            comments: Vec::new(),
            expectations: Vec::new(),
            init: Vec::new(),
            threads,
            locations: Some(locations),
            filter: None,
            condition: Some(Condition {
                quantifier: Quantifier::Exists,
                prop: prop.unwrap_or(Prop {
                    kind: PropKind::True,
                    span: Span::DUMMY,
                }),
                span: Span::DUMMY,
            }),
            span: Span::DUMMY,
        }
    }
}

fn ident(name: &str) -> Ident {
    Ident::new(name, Span::DUMMY)
}

fn int_type(pointers: u32) -> Type {
    Type {
        volatile: false,
        base: "int".into(),
        pointers,
        span: Span::DUMMY,
    }
}

fn register(thread: usize, reg: usize) -> Location {
    Location::Register {
        thread: thread as u32,
        reg: ident(&format!("r{reg}")),
        span: Span::DUMMY,
    }
}

fn expr(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::DUMMY,
    }
}

fn stmt_of(kind: StmtKind) -> Stmt {
    Stmt {
        kind,
        span: Span::DUMMY,
    }
}

fn int(n: i64) -> Expr {
    expr(ExprKind::Int(n))
}

fn name(n: &str) -> Expr {
    expr(ExprKind::Ident(ident(n)))
}

fn deref(n: &str) -> Expr {
    expr(ExprKind::Deref(Box::new(name(n))))
}

fn call(func: &str, args: Vec<Expr>) -> Expr {
    expr(ExprKind::Call {
        func: ident(func),
        args,
    })
}

fn assign(reg: usize, rhs: Expr) -> Stmt {
    stmt_of(StmtKind::Assign {
        lhs: name(&format!("r{reg}")),
        rhs,
    })
}

/// The statement for `s`, numbering new registers from `*regs`.
fn lower_stmt(s: &SketchStmt, vars: &[&str], regs: &mut usize) -> Option<Stmt> {
    let v = |i: usize| vars[i % vars.len()];
    let mut fresh = || {
        *regs += 1;
        *regs - 1
    };
    Some(match s {
        SketchStmt::Write {
            var,
            value,
            release: false,
        } => stmt_of(StmtKind::Expr(call(
            "WRITE_ONCE",
            vec![deref(v(*var)), int(*value)],
        ))),
        SketchStmt::Write {
            var,
            value,
            release: true,
        } => stmt_of(StmtKind::Expr(call(
            "smp_store_release",
            vec![name(v(*var)), int(*value)],
        ))),
        SketchStmt::Read {
            var,
            acquire: false,
        } => assign(fresh(), call("READ_ONCE", vec![deref(v(*var))])),
        SketchStmt::Read { var, acquire: true } => {
            assign(fresh(), call("smp_load_acquire", vec![name(v(*var))]))
        }
        SketchStmt::Fence(f) => {
            let func = match f {
                Fence::Mb => "smp_mb",
                Fence::Rmb => "smp_rmb",
                Fence::Wmb => "smp_wmb",
            };
            stmt_of(StmtKind::Expr(call(func, Vec::new())))
        }
        SketchStmt::Xchg {
            var,
            value,
            ordering,
        } => assign(
            fresh(),
            call(
                &format!("xchg{}", ordering.suffix()),
                vec![name(v(*var)), int(*value)],
            ),
        ),
        SketchStmt::Cmpxchg {
            var,
            expected,
            new,
            ordering,
        } => assign(
            fresh(),
            call(
                &format!("cmpxchg{}", ordering.suffix()),
                vec![name(v(*var)), int(*expected), int(*new)],
            ),
        ),
        SketchStmt::FetchAdd {
            var,
            value,
            ordering,
        } => assign(
            fresh(),
            call(
                &format!("atomic_fetch_add{}", ordering.suffix()),
                vec![int(*value), name(v(*var))],
            ),
        ),
        SketchStmt::Add { var, value } => stmt_of(StmtKind::Expr(call(
            "atomic_add",
            vec![int(*value), name(v(*var))],
        ))),
        SketchStmt::If { reg, value, body } => {
            let defined = *regs;
            let inner = lower_stmt(body, vars, regs)?;
            if defined == 0 {
                return Some(inner);
            }
            let cond = expr(ExprKind::Binary(
                BinaryOp::Eq,
                Box::new(name(&format!("r{}", reg % defined))),
                Box::new(int(*value)),
            ));
            stmt_of(StmtKind::If {
                cond,
                then: Box::new(stmt_of(StmtKind::Block(vec![inner]))),
                els: None,
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sketch_prints_as_litmus_text() {
        let s = Sketch {
            vars: 2,
            threads: vec![
                vec![
                    SketchStmt::Write {
                        var: 0,
                        value: 1,
                        release: false,
                    },
                    SketchStmt::Write {
                        var: 1,
                        value: 1,
                        release: true,
                    },
                ],
                vec![
                    SketchStmt::Read {
                        var: 1,
                        acquire: true,
                    },
                    SketchStmt::If {
                        reg: 0,
                        value: 1,
                        body: Box::new(SketchStmt::Xchg {
                            var: 0,
                            value: 2,
                            ordering: Ordering::Relaxed,
                        }),
                    },
                ],
            ],
            condition: vec![(Target::Reg(1, 0), 1), (Target::Var(0), 1)],
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
    }
}
