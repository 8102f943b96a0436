//! Symmetry: a program that looks the same with its threads and locations renamed has
//! executions that come in groups of renamed copies, and one of each group is enough.
//!
//! An automorphism `g` of a program renames threads by a permutation `π` and locations by
//! a permutation `σ` so that thread `π(t)` runs the code of thread `t` with its locations
//! renamed by `σ`, and each location starts with the value of its preimage. The native
//! models never look at a thread's number or a location's name, so `g` maps an execution
//! the model allows to an execution it allows, with the same flags, in which register
//! `π(t):r` holds what `t:r` held and location `σ(x)` ends with what `x` ended with.
//!
//! The enumeration uses the group `{g^0, …, g^(m-1)}` of an automorphism of order `m`
//! whose `π` has a cycle `O` of length `m`, and a location `L` that `σ` fixes and that
//! every thread of `O` writes on every way it runs (the enumeration checks this on the
//! paths). In an execution `e`, let `f(e)` be the thread of `O` whose write to `L` comes
//! first in coherence order among the writes of `O`'s threads. Then
//! `f(g^j·e) = π^j(f(e))`, and these are `m` different threads: so the `m` images of `e`
//! are different executions, and exactly one of them has `f` equal to `O`'s first
//! thread. The enumeration builds only those (it places no other thread of `O` first in
//! `L`'s coherence order) and reports each one `m` times, once per image.
//!
//! Only programs whose values are integers qualify: every address is a constant in the
//! address of an access, so no value names a location (herd7 compares addresses by
//! name), and no operator can fail (no `/` or `%`), so no error depends on which copy
//! is met first. A test with a filter, a speed check's goal, a limit on candidates, a run
//! cut off by a loop or a model file is enumerated in full.

use crate::exec::event::{Loc, Value};
use crate::front::program::{Cell, Expr, Instr, Op, Program, RmwWrite};

/// How many partial assignments of threads the search for an automorphism may try.
const BUDGET: usize = 100_000;

/// An automorphism of a program, of order [`Symmetry::order`], with its cycle of threads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symmetry {
    /// `pre[j]` maps a cell of `g^j·e` to the cell of `e` that holds its value.
    pre_threads: Vec<Vec<usize>>,
    pre_locs: Vec<Vec<Loc>>,
    /// `σ`, by location.
    locs: Vec<Loc>,
    /// The cycle `O` of `π`, from its smallest thread on.
    orbit: Vec<usize>,
}

impl Symmetry {
    /// The largest automorphism of `program` the enumeration can use, if it has one (see
    /// the module's documentation for what qualifies).
    pub fn find(program: &Program) -> Option<Symmetry> {
        if program.filter.is_some()
            || program
                .locs
                .iter()
                .any(|l| !matches!(l.init, Value::Int(_)))
        {
            return None;
        }
        let mut shapes = Vec::with_capacity(program.threads.len());
        for t in &program.threads {
            if t.init.iter().any(|v| !matches!(v, Value::Int(_))) {
                return None;
            }
            let mut used = Vec::new();
            let shape = rename(&t.code, &mut |l| {
                let k = used.iter().position(|&u| u == l).unwrap_or_else(|| {
                    used.push(l);
                    used.len() - 1
                });
                Loc(k as u32)
            })?;
            shapes.push((shape, used));
        }
        let n = program.threads.len();
        let mut finder = Finder {
            program,
            shapes: &shapes,
            pi: vec![usize::MAX; n],
            taken: vec![false; n],
            sigma: vec![None; program.locs.len()],
            budget: BUDGET,
            best: None,
        };
        finder.assign(0);
        let (pi, sigma, orbit) = finder.best?;
        let m = orbit.len();
        let inverse = |p: &[usize]| {
            let mut q = vec![0; p.len()];
            for (i, &x) in p.iter().enumerate() {
                q[x] = i;
            }
            q
        };
        let pi_inv = inverse(&pi);
        let sigma_inv: Vec<Loc> = inverse(&sigma.iter().map(|l| l.0 as usize).collect::<Vec<_>>())
            .into_iter()
            .map(|l| Loc(l as u32))
            .collect();
        let mut pre_threads = vec![(0..n).collect::<Vec<_>>()];
        let mut pre_locs = vec![
            (0..program.locs.len())
                .map(|l| Loc(l as u32))
                .collect::<Vec<_>>(),
        ];
        for j in 1..m {
            pre_threads.push(pre_threads[j - 1].iter().map(|&t| pi_inv[t]).collect());
            pre_locs.push(
                pre_locs[j - 1]
                    .iter()
                    .map(|l| sigma_inv[l.0 as usize])
                    .collect(),
            );
        }
        Some(Symmetry {
            pre_threads,
            pre_locs,
            locs: sigma,
            orbit,
        })
    }

    /// The order `m` of the automorphism: how many images each execution built stands for.
    pub fn order(&self) -> usize {
        self.orbit.len()
    }

    /// The threads of the cycle `O`, from its smallest on; the first is the one placed first.
    pub fn orbit(&self) -> &[usize] {
        &self.orbit
    }

    /// Whether `σ` leaves a location where it is.
    pub fn fixes(&self, loc: Loc) -> bool {
        self.locs[loc.0 as usize] == loc
    }

    /// The cell of an execution `e` whose final value is that of `cell` in `g^j·e`.
    pub fn preimage(&self, cell: Cell, j: usize) -> Cell {
        match cell {
            Cell::Reg { thread, reg } => Cell::Reg {
                thread: self.pre_threads[j][thread],
                reg,
            },
            Cell::Loc(l) => Cell::Loc(self.pre_locs[j][l.0 as usize]),
            Cell::Missing(_) => cell,
        }
    }
}

/// The search for automorphisms: assigns `π(t)` thread by thread, keeping `σ` consistent.
struct Finder<'a> {
    program: &'a Program,
    /// Per thread, its code with locations numbered by first use, and the locations in
    /// that order.
    shapes: &'a [(Vec<Instr>, Vec<Loc>)],
    pi: Vec<usize>,
    taken: Vec<bool>,
    sigma: Vec<Option<Loc>>,
    budget: usize,
    /// The best so far: `π`, `σ` and the cycle of length the order.
    best: Option<(Vec<usize>, Vec<Loc>, Vec<usize>)>,
}

impl Finder<'_> {
    fn assign(&mut self, t: usize) {
        if self.budget == 0 {
            return;
        }
        self.budget -= 1;
        let n = self.pi.len();
        if t == n {
            self.consider();
            return;
        }
        let code = &self.program.threads[t];
        for u in 0..n {
            let other = &self.program.threads[u];
            if self.taken[u]
                || self.shapes[u].0 != self.shapes[t].0
                || other.regs != code.regs
                || other.init != code.init
            {
                continue;
            }
            // Extend σ with what t's locations become in u; undo on the way back.
            let mut added = Vec::new();
            let mut fits = true;
            for (&from, &to) in self.shapes[t].1.iter().zip(&self.shapes[u].1) {
                match self.sigma[from.0 as usize] {
                    Some(x) if x == to => {}
                    Some(_) => fits = false,
                    None if self.sigma.contains(&Some(to)) => fits = false,
                    None => {
                        self.sigma[from.0 as usize] = Some(to);
                        added.push(from);
                    }
                }
                if !fits {
                    break;
                }
            }
            if fits {
                self.pi[t] = u;
                self.taken[u] = true;
                self.assign(t + 1);
                self.taken[u] = false;
            }
            for l in added {
                self.sigma[l.0 as usize] = None;
            }
        }
    }

    /// A complete `π`: completes `σ` with the locations no thread uses (left in place),
    /// checks the initial state, and keeps it if its longest cycle is the longest yet
    /// and as long as its order.
    fn consider(&mut self) {
        let locs = &self.program.locs;
        let mut sigma = Vec::with_capacity(locs.len());
        for (l, s) in self.sigma.iter().enumerate() {
            let to = s.unwrap_or(Loc(l as u32));
            if s.is_none() && self.sigma.contains(&Some(to)) {
                return;
            }
            let (a, b) = (&locs[l], &locs[to.0 as usize]);
            if a.init != b.init || a.spinlock != b.spinlock {
                return;
            }
            sigma.push(to);
        }
        let n = self.pi.len();
        let mut seen = vec![false; n];
        let mut longest: Vec<usize> = Vec::new();
        let mut order = 1;
        for start in 0..n {
            if seen[start] {
                continue;
            }
            let mut cycle = vec![start];
            seen[start] = true;
            let mut t = self.pi[start];
            while t != start {
                seen[t] = true;
                cycle.push(t);
                t = self.pi[t];
            }
            order = lcm(order, cycle.len());
            if cycle.len() > longest.len() {
                longest = cycle;
            }
        }
        let better = self.best.as_ref().is_none_or(|b| longest.len() > b.2.len());
        if longest.len() >= 2 && longest.len() == order && better {
            self.best = Some((self.pi.clone(), sigma, longest));
        }
    }
}

fn lcm(a: usize, b: usize) -> usize {
    let gcd = |mut x: usize, mut y: usize| {
        while y != 0 {
            (x, y) = (y, x % y);
        }
        x
    };
    a / gcd(a, b) * b
}

/// A thread's code with its locations renamed by `f` and its source ranges cleared, or
/// `None` if it uses a value that is not an integer other than as a constant address of
/// an access, an operator that can fail, or a loop's cut-off.
fn rename(code: &[Instr], f: &mut dyn FnMut(Loc) -> Loc) -> Option<Vec<Instr>> {
    code.iter()
        .map(|i| {
            Some(Instr {
                op: rename_op(&i.op, f)?,
                span: (0, 0),
                stmt: i.stmt,
            })
        })
        .collect()
}

fn rename_op(op: &Op, f: &mut dyn FnMut(Loc) -> Loc) -> Option<Op> {
    let mut at = |e: &Expr| match e {
        Expr::Const(Value::Addr(l)) => Some(Expr::Const(Value::Addr(f(*l)))),
        _ => None,
    };
    let v = |e: &Expr| integral(e).then(|| e.clone());
    Some(match op {
        Op::Let { dst, val } => Op::Let {
            dst: *dst,
            val: v(val)?,
        },
        Op::Load {
            dst,
            addr,
            tags,
            deref,
        } => Op::Load {
            dst: *dst,
            addr: at(addr)?,
            tags: *tags,
            deref: *deref,
        },
        Op::Store {
            addr,
            val,
            tags,
            write_back,
        } => Op::Store {
            addr: at(addr)?,
            val: v(val)?,
            tags: *tags,
            write_back: *write_back,
        },
        Op::Fence { tags } => Op::Fence { tags: *tags },
        Op::Rmw {
            dst,
            addr,
            write,
            ret_new,
            equation,
            tags,
        } => Op::Rmw {
            dst: *dst,
            addr: at(addr)?,
            write: match write {
                RmwWrite::Set(e) => RmwWrite::Set(v(e)?),
                RmwWrite::Apply(op, e) if !fails(*op) => RmwWrite::Apply(*op, v(e)?),
                RmwWrite::Apply(..) => return None,
            },
            ret_new: *ret_new,
            equation: *equation,
            tags: *tags,
        },
        Op::Cmpxchg {
            dst,
            addr,
            expected,
            new,
            tags,
        } => Op::Cmpxchg {
            dst: *dst,
            addr: at(addr)?,
            expected: v(expected)?,
            new: v(new)?,
            tags: *tags,
        },
        Op::CompareExchange {
            ok,
            old,
            addr,
            expected,
            desired,
            success,
            failure,
            strong,
        } => Op::CompareExchange {
            ok: *ok,
            old: *old,
            addr: at(addr)?,
            expected: v(expected)?,
            desired: v(desired)?,
            success: *success,
            failure: *failure,
            strong: *strong,
        },
        Op::AddUnless {
            dst,
            addr,
            add,
            unless,
            tags,
        } => Op::AddUnless {
            dst: *dst,
            addr: at(addr)?,
            add: v(add)?,
            unless: v(unless)?,
            tags: *tags,
        },
        // The lock's number is the thread's own.
        Op::Srcu { .. } => return None,
        Op::Lock { addr } => Op::Lock { addr: at(addr)? },
        Op::Unlock { addr } => Op::Unlock { addr: at(addr)? },
        Op::Trylock { dst, addr } => Op::Trylock {
            dst: *dst,
            addr: at(addr)?,
        },
        Op::IsLocked { dst, addr } => Op::IsLocked {
            dst: *dst,
            addr: at(addr)?,
        },
        Op::SyncSrcu { addr } => Op::SyncSrcu { addr: at(addr)? },
        Op::Cutoff => return None,
        Op::If { cond, then, els } => Op::If {
            cond: v(cond)?,
            then: rename(then, f)?,
            els: rename(els, f)?,
        },
    })
}

/// Whether an expression computes on integers only, with no operator that can fail.
fn integral(e: &Expr) -> bool {
    match e {
        Expr::Const(v) => matches!(v, Value::Int(_)),
        Expr::Reg(_) => true,
        Expr::Unary(_, a) => integral(a),
        Expr::Binary(op, a, b) => !fails(*op) && integral(a) && integral(b),
    }
}

/// Whether an operator can fail on integers (division by zero).
fn fails(op: crate::front::program::BinOp) -> bool {
    matches!(
        op,
        crate::front::program::BinOp::Div | crate::front::program::BinOp::Rem
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(source: &str) -> Program {
        let test = hazmat_litmus::parse(source).expect("parses");
        crate::front::lower::lower(&test).expect("lowers")
    }

    const RING: &str = "C ring
{}
P0(int *l, int *x0, int *x1) { int r0; int r1; r0 = xchg(l, 1); WRITE_ONCE(*x0, 1); r1 = READ_ONCE(*x1); }
P1(int *l, int *x1, int *x2) { int r0; int r1; r0 = xchg(l, 1); WRITE_ONCE(*x1, 1); r1 = READ_ONCE(*x2); }
P2(int *l, int *x2, int *x0) { int r0; int r1; r0 = xchg(l, 1); WRITE_ONCE(*x2, 1); r1 = READ_ONCE(*x0); }
exists (0:r1=0 /\\ 1:r1=0)
";

    #[test]
    fn a_ring_of_threads_is_a_rotation() {
        let p = program(RING);
        let s = Symmetry::find(&p).expect("a rotation");
        assert_eq!(s.order(), 3);
        assert_eq!(s.orbit()[0], 0);
        let x = |name: &str| Loc(p.locs.iter().position(|l| l.name == name).unwrap() as u32);
        assert!(s.fixes(x("l")));
        assert!(!s.fixes(x("x0")));
        // In the image under g, thread π(0)'s registers hold what thread 0's held, and
        // σ(x0) ends as x0 ended.
        let next = s.orbit()[1];
        assert_eq!(
            s.preimage(
                Cell::Reg {
                    thread: next,
                    reg: 0
                },
                1
            ),
            Cell::Reg { thread: 0, reg: 0 }
        );
        let image_of_x0 = (0..p.locs.len() as u32)
            .map(Loc)
            .find(|&l| s.preimage(Cell::Loc(l), 1) == Cell::Loc(x("x0")))
            .expect("x0 has an image");
        assert_ne!(image_of_x0, x("x0"));
        for j in 0..3 {
            assert_eq!(s.preimage(Cell::Loc(x("l")), j), Cell::Loc(x("l")));
        }
    }

    #[test]
    fn what_breaks_the_symmetry_is_seen() {
        // Another register name, another constant, a value that is an address, a
        // division, a filter: no automorphism.
        for (from, to) in [
            (
                "int r0; int r1; r0 = xchg(l, 1); WRITE_ONCE(*x2, 1)",
                "int r0; int r2; r0 = xchg(l, 1); WRITE_ONCE(*x2, 1)",
            ),
            ("WRITE_ONCE(*x2, 1)", "WRITE_ONCE(*x2, 2)"),
            ("WRITE_ONCE(*x2, 1)", "WRITE_ONCE(*x2, x0)"),
            ("WRITE_ONCE(*x2, 1)", "WRITE_ONCE(*x2, 1 / r0)"),
            ("exists", "filter (0:r0=0)\nexists"),
        ] {
            let source = RING.replacen(from, to, 1);
            assert_ne!(source, RING, "{from}");
            let p = program(&source);
            let s = Symmetry::find(&p);
            // A division or an address in one thread only breaks the ring, but two
            // identical threads may remain.
            assert!(s.as_ref().is_none_or(|s| s.order() < 3), "{to}: {s:?}");
        }
        let divides = RING
            .replace("WRITE_ONCE(*x0, 1)", "WRITE_ONCE(*x0, 1 / r0)")
            .replace("WRITE_ONCE(*x1, 1)", "WRITE_ONCE(*x1, 1 / r0)")
            .replace("WRITE_ONCE(*x2, 1)", "WRITE_ONCE(*x2, 1 / r0)");
        assert!(Symmetry::find(&program(&divides)).is_none());
        let initialised = RING.replace("{}", "{ x0 = 1; }");
        assert!(Symmetry::find(&program(&initialised)).is_none());
    }

    #[test]
    fn two_identical_threads_beside_a_third_are_a_swap() {
        let source = "C swap
{}
P0(int *l, int *y) { int r0; r0 = READ_ONCE(*y); WRITE_ONCE(*l, 2); }
P1(int *l, int *y) { int r0; r0 = xchg(l, 1); WRITE_ONCE(*y, 1); }
P2(int *l, int *y) { int r0; r0 = xchg(l, 1); WRITE_ONCE(*y, 1); }
exists (1:r0=0)
";
        let s = Symmetry::find(&program(source)).expect("a swap");
        assert_eq!(s.order(), 2);
        assert_eq!(s.orbit(), &[1, 2]);
        assert_eq!(
            s.preimage(Cell::Reg { thread: 0, reg: 0 }, 1),
            Cell::Reg { thread: 0, reg: 0 }
        );
    }
}
