//! Values solved as herd7 solves them where computing them forward finds none: as
//! equations, by unification.
//!
//! hazmat computes a candidate's values forward, from each write to the reads of it
//! ([`values`](super::values)); a cycle of values that depends only on itself gets a
//! symbol, and an operator on a symbol leaves the candidate unsolved.
//! herd7 instead collects equations and solves them by union-find: one per read
//! (`loaded := written`), one per operator, and, for a successful compare-exchange, the
//! read's value is the expected value itself (C11's `ECas` gives the read-modify-write
//! event the symbol of the expected value's plain read; the kernel's `cmpxchg` adds the
//! equation `read := expected`, `M.assign` in `linux_cmpexch_ok`); a failed
//! `atomic_add_unless`'s read is its limit in the same way (herd7 solves a cycle of values
//! through it, `add-unless-failed-limit-solves-a-cycle.litmus`).
//! An address computed from values read is, on a path that assumes it denotes a location,
//! that location: herd7 equates a read's address with the location of the write it reads,
//! which binds an address that is a cycle's value itself (see
//! [`crate::engine::unsolved`]).
//! Those equations are the only ones that carry a value backwards, against reads-from: the
//! expected value, known, flows through the write the exchange reads into a cycle of
//! values that nothing else solves (`litmus/tests/regressions/c11-models-rmw-reads-write-back.litmus`:
//! a cycle through `&` that the exchange's 0 solves).
//! So where the forward computation leaves a candidate with such an equation unsolved,
//! [`Search::unify`] solves its equations herd7's way, to a fixpoint, and fixes every
//! read's value from the solution; the checks of [`Search::solve`] then run as before.
//! herd7 7.58's solver is one pass, where this iterates: an execution herd7 loses there
//! is kept, as the forward computation keeps those (see the book's oracle page).
//!
//! # Complexity
//! Each round of the fixpoint visits every operator node once; a round that solves nothing
//! ends it, and each other round solves one node at least: O(n²) union-find steps for n
//! nodes and reads, on the rare candidates that need it.

use super::values::Known;
use super::{NONE, Search, Why};
use crate::engine::paths::{Assumption, Node, SymId};
use crate::exec::event::{EventKind, Value};
use crate::exec::relation::Width;
use crate::front::program::{Applied, BinOp, Term, herd_binary, herd_unary};

/// One side of an equation: a constant, or a variable (a read's value, or an operator's).
#[derive(Clone, Copy)]
enum Atom {
    Val(Value),
    Var(usize),
}

/// Variables by union-find, each class with its value once known.
struct Classes {
    parent: Vec<usize>,
    value: Vec<Option<Value>>,
}

/// Two values that the equations make one: no solution.
struct Contradiction;

impl Classes {
    fn root(&mut self, mut v: usize) -> usize {
        while self.parent[v] != v {
            let p = self.parent[v];
            self.parent[v] = self.parent[p];
            v = p;
        }
        v
    }

    fn term(&mut self, a: Atom) -> Term {
        match a {
            Atom::Val(v) => Term::Val(v),
            Atom::Var(x) => {
                let r = self.root(x);
                match self.value[r] {
                    Some(v) => Term::Val(v),
                    None => Term::Var(r as u32),
                }
            }
        }
    }

    /// Makes `x` equal to `a`; whether anything changed.
    fn equate(&mut self, x: usize, a: Atom) -> Result<bool, Contradiction> {
        let rx = self.root(x);
        match a {
            Atom::Val(v) => match self.value[rx] {
                Some(u) if u == v => Ok(false),
                Some(_) => Err(Contradiction),
                None => {
                    self.value[rx] = Some(v);
                    Ok(true)
                }
            },
            Atom::Var(y) => {
                let ry = self.root(y);
                if rx == ry {
                    return Ok(false);
                }
                let value = match (self.value[rx], self.value[ry]) {
                    (Some(u), Some(v)) if u != v => return Err(Contradiction),
                    (u, v) => u.or(v),
                };
                // The lower variable (the first read, in event order) is the root, so that
                // a class of values out of thin air is named after its first read, as the
                // forward computation names a cycle.
                let (top, below) = if rx < ry { (rx, ry) } else { (ry, rx) };
                self.parent[below] = top;
                self.value[top] = value;
                Ok(true)
            }
        }
    }
}

impl<W: Width> Search<'_, W> {
    /// Whether some path assumes a compare-exchange (or `cmpxchg`) succeeds or an
    /// `atomic_add_unless` fails: an equation between its read and its expected value or
    /// its limit, which herd7 solves by unification.
    pub(super) fn has_exchange_equations(&self) -> bool {
        self.paths.iter().any(|p| {
            p.constraints.iter().any(|c| {
                c.kind == Assumption::Rmw
                    && matches!(
                        (c.truth, p.nodes[c.sym as usize]),
                        (true, Node::Bin(BinOp::Eq, ..)) | (false, Node::Bin(BinOp::Ne, ..))
                    )
            })
        })
    }

    /// Whether some path assumes an address computed from values read denotes a location:
    /// an equation between the address and the location, which herd7 solves with the
    /// others.
    pub(super) fn has_address_equations(&self) -> bool {
        self.paths.iter().any(|p| {
            p.constraints
                .iter()
                .any(|c| c.kind == Assumption::Address && c.truth)
        })
    }

    /// The variable of thread `t`'s node `sym`, or its constant.
    fn atom(&self, t: usize, mut sym: SymId) -> Atom {
        let path = self.paths[t];
        loop {
            match path.nodes[sym as usize] {
                Node::Const(v) => return Atom::Val(v),
                Node::Read(k) => return Atom::Var(self.read_event[t][k as usize]),
                Node::Alias(s) => sym = s,
                Node::Un(..) | Node::Bin(..) | Node::Free => {
                    return Atom::Var(self.exec.events.len() + self.node_base[t] + sym as usize);
                }
            }
        }
    }

    /// Solves the candidate's values as herd7's equations and fixes every read's value
    /// from the solution (a value out of thin air as `Sym` of its class's first read);
    /// returns those first reads. `Err` when the equations have no solution.
    pub(super) fn unify(&mut self) -> Result<Vec<usize>, Why> {
        let nevents = self.exec.events.len();
        let nnodes: usize = self.paths.iter().map(|p| p.nodes.len()).sum();
        let mut classes = Classes {
            parent: (0..nevents + nnodes).collect(),
            value: vec![None; nevents + nnodes],
        };
        let contradiction = |_| Why::Assumption(Assumption::Rmw);
        let nlocs = self.program.locs.len();
        // Reads-from: each read's value is its write's.
        for g in nlocs..nevents {
            if self.exec.events[g].kind != EventKind::Read {
                continue;
            }
            let written = match self.rf_src[g] {
                NONE if self.known_reads.contains(g) => Atom::Val(Value::Int(0)),
                NONE => continue,
                w => match self.origin[w] {
                    None => Atom::Val(self.program.locs[w].init),
                    Some((t, i)) => self.atom(t, self.paths[t].events[i].value),
                },
            };
            classes.equate(g, written).map_err(contradiction)?;
        }
        // A successful exchange's read is its expected value, and a failed
        // `atomic_add_unless`'s its limit; an address computed from values read is the
        // location the path assumes, which herd7 equates with the location of the write
        // its read reads.
        for t in 0..self.paths.len() {
            for c in &self.paths[t].constraints {
                let why = match c.kind {
                    Assumption::Rmw => Why::Assumption(Assumption::Rmw),
                    Assumption::Address if c.truth => Why::Assumption(Assumption::Address),
                    _ => continue,
                };
                if let (true, Node::Bin(BinOp::Eq, read, expected))
                | (false, Node::Bin(BinOp::Ne, read, expected)) =
                    (c.truth, self.paths[t].nodes[c.sym as usize])
                    && let Atom::Var(x) = self.atom(t, read)
                {
                    let e = self.atom(t, expected);
                    classes.equate(x, e).map_err(|_| why)?;
                }
            }
        }
        // The operators, whenever their operands are known, to a fixpoint.
        let mut operators = Vec::new();
        for t in 0..self.paths.len() {
            for sym in 0..self.paths[t].nodes.len() as SymId {
                if let node @ (Node::Un(..) | Node::Bin(..)) = self.paths[t].nodes[sym as usize] {
                    operators.push((t, sym, node));
                }
            }
        }
        loop {
            let mut changed = false;
            for &(t, sym, node) in &operators {
                let Atom::Var(x) = self.atom(t, sym) else {
                    continue;
                };
                let applied = match node {
                    Node::Un(op, a) => herd_unary(op, classes.term(self.atom(t, a))),
                    Node::Bin(op, a, b) => {
                        let (a, b) = (self.atom(t, a), self.atom(t, b));
                        herd_binary(
                            op,
                            classes.term(a),
                            classes.term(b),
                            &self.program.addr_order,
                        )
                    }
                    _ => continue,
                };
                let result = match applied {
                    Applied::Term(Term::Val(v)) => Atom::Val(v),
                    Applied::Term(Term::Var(y)) => Atom::Var(y as usize),
                    // Left to the checks of `solve`, which find it unsolved or illegal.
                    Applied::Undetermined | Applied::Illegal => continue,
                };
                changed |= classes.equate(x, result).map_err(contradiction)?;
            }
            if !changed {
                break;
            }
        }
        // Every read's value, from its class.
        let mut firsts = Vec::new();
        for g in nlocs..nevents {
            if self.exec.events[g].kind != EventKind::Read {
                continue;
            }
            let r = classes.root(g);
            self.known[g] = match classes.value[r] {
                Some(v) => Known::Value(v),
                None if r < nevents && self.exec.events[r].kind == EventKind::Read => {
                    if !firsts.contains(&r) {
                        firsts.push(r);
                    }
                    Known::Value(Value::Sym(r as u32))
                }
                // A class with no read of its own at its root: an operator's value left
                // unknown, which `solve` finds unsolved.
                None => Known::Unsolved,
            };
        }
        self.node_values.fill(None);
        Ok(firsts)
    }
}
