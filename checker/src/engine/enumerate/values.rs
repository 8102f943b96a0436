//! The values of one search: what each read, write and register holds as far as
//! reads-from is chosen, and the final state.
//!
//! Values are computed as herd7 computes them, through the nodes of the paths and the
//! writes each read reads from.
//! While reads-from is being chosen, the paths' assumptions, the filter and the goal are
//! checked in three-valued logic ([`kleene`]) as far as the values are known; once it is
//! complete, `Search::solve` solves every value, keeps a value that depends only on itself
//! as an unsolved symbol named as herd7 names it, and removes the combinations that are no
//! candidate, with the reason (`Why`).
//! `Search::final_value` reads the final state the condition and the filter see.

use super::{Herd7Stop, NONE, RunError, Search, Why};
use crate::engine::paths::{self, Node, truth};
use crate::engine::symbol::DIRECT;

/// What a read at no location whose path went on with a value nothing solves may be
/// paired with besides its own write ([`Search::beside_free`]).
enum Beside {
    /// A write at an address that may be the same, of this thread.
    Write(usize, paths::Escape),
    /// Nothing, and its own write may not be read: the read at this place.
    Unpaired((usize, usize)),
}

/// The symbol of a value nothing solves ([`Node::Free`]): never printed, since a candidate
/// holding it has a write at no location, which stops the test once its values solve.
const FREE: u32 = u32::MAX;
use crate::exec::event::{EventKind, Tag, Value};
use crate::exec::relation::{EventSet, Width};
use crate::front::program::{Applied, BinOp, Cell, Operand, Prop, Term, herd_binary, herd_unary};
use crate::models::optace::OptAce;

/// What a value is known to be during the search.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Known {
    Unknown,
    Busy,
    Value(Value),
    /// Depends on itself through rf and data (an out-of-thin-air cycle); during solving
    /// only, until one of the cycle's reads gets a symbol.
    Cycle,
    /// An operator on an unsolved symbol that herd7 cannot compute either: it keeps an
    /// equation it cannot solve and rejects the candidate.
    Unsolved,
    /// An operator with no meaning on its operands (node `sym` of thread `thread`'s path):
    /// herd7 stops with an error if an execution it allows needs it.
    Bad {
        thread: u32,
        sym: paths::SymId,
    },
}

/// A condition in three-valued logic: `None` where it depends on an equation `eq` cannot
/// decide yet.
pub(super) fn kleene<F: FnMut(Cell, &Operand) -> Option<bool>>(
    p: &Prop,
    eq: &mut F,
) -> Option<bool> {
    Some(match p {
        Prop::True => true,
        Prop::False => false,
        Prop::Eq(c, v) => eq(*c, v)?,
        Prop::Not(q) => !kleene(q, eq)?,
        Prop::And(a, b) => match (kleene(a, eq), kleene(b, eq)) {
            (Some(false), _) | (_, Some(false)) => false,
            (Some(true), Some(true)) => true,
            _ => return None,
        },
        Prop::Or(a, b) => match (kleene(a, eq), kleene(b, eq)) {
            (Some(true), _) | (_, Some(true)) => true,
            (Some(false), Some(false)) => false,
            _ => return None,
        },
        Prop::Implies(a, b) => match (kleene(a, eq), kleene(b, eq)) {
            (Some(false), _) | (_, Some(true)) => true,
            (Some(true), Some(false)) => false,
            _ => return None,
        },
    })
}

impl<W: Width> Search<'_, W> {
    /// Forgets every value computed: reads-from changed.
    fn forget_values(&mut self) {
        self.known.fill(Known::Unknown);
        self.node_values.fill(None);
    }

    /// The value of global read `r`, solving through rf as far as rf is chosen.
    fn read_value(&mut self, r: usize) -> Known {
        match self.known[r] {
            Known::Unknown => {}
            Known::Busy => return Known::Cycle,
            k => return k,
        }
        let w = self.rf_src[r];
        if w == NONE {
            if self.known_reads.contains(r) {
                return Known::Value(Value::Int(0));
            }
            return Known::Unknown;
        }
        self.known[r] = Known::Busy;
        let k = self.write_value(w);
        self.known[r] = k;
        k
    }

    pub(super) fn write_value(&mut self, w: usize) -> Known {
        match self.origin[w] {
            None => Known::Value(self.program.locs[w].init),
            Some((t, i)) => {
                let sym = self.paths[t].events[i].value;
                self.eval(t, sym)
            }
        }
    }

    /// The value of node `sym` of thread `t`'s path, as far as reads-from is chosen,
    /// computed as herd7 computes it.
    fn eval(&mut self, t: usize, sym: paths::SymId) -> Known {
        let path = self.paths[t];
        match path.nodes[sym as usize] {
            Node::Const(v) => Known::Value(v),
            Node::Read(k) => {
                let g = self.read_event[t][k as usize];
                self.read_value(g)
            }
            Node::Alias(s) => self.eval(t, s),
            // A variable of herd7's that no equation solves, kept as a symbol: an
            // operator on it gives no value.
            Node::Free => Known::Value(Value::Sym(FREE)),
            Node::Un(op, a) => self.remembered(t, sym, |s| {
                let x = s.eval(t, a);
                s.apply(t, sym, x, Known::Value(Value::Int(0)), |x, _| {
                    herd_unary(op, x)
                })
            }),
            Node::Bin(op, a, b) => self.remembered(t, sym, |s| {
                let x = s.eval(t, a);
                let y = s.eval(t, b);
                s.apply(t, sym, x, y, |x, y| {
                    herd_binary(op, x, y, &s.program.addr_order)
                })
            }),
        }
    }

    /// The value of operator node `sym` of thread `t`'s path, computed by `compute` unless
    /// it was computed to a value before (solving a candidate computes every node, each
    /// through the nodes under it). Only values are kept: every read under one is known
    /// and stays so, where another answer (a cycle met through a read being computed) can
    /// depend on where the computation started.
    fn remembered(
        &mut self,
        t: usize,
        sym: paths::SymId,
        compute: impl FnOnce(&mut Self) -> Known,
    ) -> Known {
        let at = self.node_base[t] + sym as usize;
        if let Some(v) = self.node_values[at] {
            return Known::Value(v);
        }
        let k = compute(self);
        if let Known::Value(v) = k {
            self.node_values[at] = Some(v);
        }
        k
    }

    /// Combines the values of an operator's operands: an illegal operand makes an illegal
    /// result, then an unknown one an unknown result, and so on; two values give what
    /// herd7 computes.
    fn apply(
        &self,
        t: usize,
        sym: paths::SymId,
        x: Known,
        y: Known,
        f: impl Fn(Term, Term) -> Applied,
    ) -> Known {
        match (x, y) {
            (b @ Known::Bad { .. }, _) | (_, b @ Known::Bad { .. }) => b,
            (Known::Unknown | Known::Busy, _) | (_, Known::Unknown | Known::Busy) => Known::Unknown,
            (Known::Cycle, _) | (_, Known::Cycle) => Known::Cycle,
            (Known::Unsolved, _) | (_, Known::Unsolved) => Known::Unsolved,
            (Known::Value(a), Known::Value(b)) => match f(Term::Val(a), Term::Val(b)) {
                // An identity (`0 + v`, `v | 0`) gives back a value out of thin air: the
                // operator's equation becomes `x := v` once the other operand is solved,
                // which herd7 keeps as a leftover (its union-find ran before), so the
                // candidate is unsolved. Identities on a value known when herd7 builds the
                // event made no operator (`paths`).
                Applied::Term(Term::Val(Value::Sym(_))) => Known::Unsolved,
                Applied::Term(Term::Val(v)) => Known::Value(v),
                Applied::Term(Term::Var(_)) | Applied::Undetermined => Known::Unsolved,
                Applied::Illegal => Known::Bad {
                    thread: t as u32,
                    sym,
                },
            },
        }
    }

    /// Whether the assumptions of the paths, the filter and the speed-check goal hold as
    /// far as reads-from is chosen: the first that fails, if one does.
    ///
    /// Values still unknown, or not known yet to be illegal or unsolvable, cut nothing:
    /// only the complete candidate ([`solve`](Self::solve)) decides those.
    pub(super) fn constraints_hold(&mut self) -> Result<(), Why> {
        self.forget_values();
        for t in 0..self.paths.len() {
            for c in 0..self.paths[t].constraints.len() {
                let at = self.constraint_base[t] + c;
                if self.met_at[at] <= self.rf_depth {
                    continue;
                }
                let con = self.paths[t].constraints[c];
                if let Known::Value(v) = self.eval(t, con.sym) {
                    if truth(v) != con.truth {
                        return Err(Why::Assumption(con.kind));
                    }
                    self.met_at[at] = self.rf_depth;
                }
            }
        }
        // herd7 stops on a write at no location before it applies the filter, and before
        // a speed check's goal, so while a path of the combination writes there, neither
        // cuts anything: the complete candidate ([`solve`](Self::solve)) meets the write
        // first.
        if !self.escapes_by_write {
            self.props_hold(true)?;
        }
        self.values_checked[self.rf_depth] = true;
        Ok(())
    }

    /// The filter (when `filter` is set) and the goal, as far as the registers they read
    /// are known.
    fn props_hold(&mut self, filter: bool) -> Result<(), Why> {
        // The filter discards executions whatever the model says: once the registers it
        // reads are known, a failing filter cuts the subtree.
        if filter
            && let Some(f) = self.program.applied_filter()
            && self.prop3(f) == Some(false)
        {
            return Err(Why::Filter);
        }
        if let Some(g) = self.goal
            && (self.prop3(g) == Some(false) || self.lookahead && !self.goal_may_hold(g))
        {
            return Err(Why::Goal);
        }
        Ok(())
    }

    /// Evaluates a proposition as far as the registers it reads are known; locations are
    /// unknown until coherence is complete.
    fn prop3(&mut self, p: &Prop) -> Option<bool> {
        kleene(p, &mut |c, v| {
            let a = self.cell3(c)?;
            let b = match v {
                Operand::Value(v) => *v,
                Operand::Cell(c) => self.cell3(*c)?,
            };
            Some(a == b)
        })
    }

    fn cell3(&mut self, c: Cell) -> Option<Value> {
        match c {
            Cell::Reg { thread, reg } => {
                let sym = self.paths[thread].regs[reg];
                match self.eval(thread, sym) {
                    Known::Value(v) => Some(v),
                    _ => None,
                }
            }
            Cell::Loc(_) => None,
            Cell::Missing(_) => Some(Value::Int(0)),
        }
    }

    /// Where a path went on past a read-modify-write at no location with a value nothing
    /// solves ([`paths::Escape::free`]), what else its read may be paired with: another
    /// access of the candidate that writes at an address that is no location and may be
    /// the same (the first such, with its thread; not another such read-modify-write,
    /// whose write is of a value nothing solves too), or nothing where its own write may
    /// not be read either.
    fn beside_free(&mut self) -> Option<Beside> {
        let mut escapes = Vec::new();
        for t in 0..self.paths.len() {
            for (k, escape) in self.paths[t].escapes().enumerate() {
                let at = match self.eval(t, escape.sym) {
                    Known::Value(v) => Some(v),
                    _ => None,
                };
                escapes.push(((t, k), at, escape));
            }
        }
        let own = self.limits.optace == OptAce::False;
        let free = escapes.iter().filter(|(_, _, e)| e.free);
        free.into_iter().find_map(|&(id, at, free)| {
            // Another such read-modify-write writes a value nothing solves too.
            let other = escapes.iter().find(|&&(other, w, e)| {
                other != id && e.writes && !e.free && (at.is_none() || w.is_none() || w == at)
            });
            match other {
                Some(&((t, _), _, escape)) => Some(Beside::Write(t, escape)),
                None if !own => Some(Beside::Unpaired(free.source)),
                None => None,
            }
        })
    }

    /// Stops the search at thread `t`'s write to an address that is no location, as herd7
    /// stops on it.
    fn fail_at_escape(&mut self, t: usize, escape: paths::Escape) {
        let (message, herd7) = match self.eval(t, escape.sym) {
            Known::Value(v) if escape.lock && !escape.writes => {
                (paths::not_a_lock_read(self.program, v), None)
            }
            Known::Value(v) if escape.lock => (paths::not_a_lock(self.program, v), None),
            Known::Value(v) => (
                paths::not_a_location(self.program, v),
                paths::not_a_location_herd7(v).map(|w| Herd7Stop::User(w.into())),
            ),
            _ => (
                "the address of this access cannot be computed".to_string(),
                None,
            ),
        };
        self.failure = Some(RunError {
            message,
            span: escape.source,
            herd7,
        });
    }

    /// Solves every value once rf is complete; `Err` when the combination is not a
    /// candidate, with the reason.
    ///
    /// As in herd7, a contradiction (an assumption that fails) removes the candidate
    /// first; then an operator with no meaning is an error if the model allows the
    /// candidate ([`Search::bad`]); then a value herd7 cannot solve removes it.
    pub(super) fn solve(&mut self) -> Result<(), Why> {
        self.forget_values();
        self.bad = None;
        let nlocs = self.program.locs.len();
        // Values that depend only on themselves stay unsolved symbols, as in herd7: the
        // first read of each cycle gets a symbol, and the others follow from it.
        let mut symbols = Vec::new();
        loop {
            let mut cyclic = None;
            for g in nlocs..self.exec.events.len() {
                if self.exec.events[g].kind == EventKind::Read && self.read_value(g) == Known::Cycle
                {
                    cyclic.get_or_insert(g);
                }
            }
            let Some(g) = cyclic else { break };
            for k in self.known.iter_mut() {
                if *k == Known::Cycle {
                    *k = Known::Unknown;
                }
            }
            self.node_values.fill(None);
            self.known[g] = Known::Value(Value::Sym(g as u32));
            symbols.push(g);
        }
        // A read of a cycle's value that is not on the cycle can come first and get a
        // symbol of its own; herd7's union-find puts it in the cycle's class, so it takes
        // the cycle's symbol (and its name is the class's).
        let mut i = 0;
        while i < symbols.len() {
            let g = symbols[i];
            let w = self.rf_src[g];
            let cycle = match w {
                NONE => None,
                w => match self.write_value(w) {
                    Known::Value(Value::Sym(h)) if h as usize != g => Some(h),
                    _ => None,
                },
            };
            let Some(h) = cycle else {
                i += 1;
                continue;
            };
            for k in self.known.iter_mut() {
                if *k == Known::Value(Value::Sym(g as u32)) {
                    *k = Known::Value(Value::Sym(h));
                }
            }
            self.node_values.fill(None);
            symbols.remove(i);
        }
        let (mut unsolved, mut bad) = self.check_solved()?;
        // Forward, a cycle of values gets a symbol and an operator on it stays unsolved;
        // herd7's equations may solve it through a successful exchange's expected value,
        // or through the location an address is assumed to denote.
        if unsolved && (self.has_exchange_equations() || self.has_address_equations()) {
            symbols = self.unify()?;
            (unsolved, bad) = self.check_solved()?;
        }
        if let Some((thread, sym)) = bad {
            self.bad = Some(self.illegal(thread as usize, sym));
        } else if unsolved {
            // A read-modify-write at no location that read its own write went on with a
            // value nothing solves; herd7 pairs its read with every other write at that
            // address too, in candidates whose values may solve, and a write there stops
            // herd7 in any of them: hazmat, which does not build those pairings, stops as
            // herd7 would.
            // Where its own write may not be read (`-optace` but `false`) and no other
            // write is there, herd7 builds no candidate at all.
            match self.beside_free() {
                Some(Beside::Write(t, escape)) => {
                    self.fail_at_escape(t, escape);
                    return Ok(());
                }
                Some(Beside::Unpaired(source)) => return Err(Why::Nowhere(Some(source))),
                None => return Err(Why::Unsolvable),
            }
        }
        // A run that goes round a loop once more than herd7 unrolls it is cut off, whatever
        // the model says of it, once some choice of final writes passes the filter.
        if self.paths.iter().any(|p| p.cutoff.is_some()) {
            self.bad = None;
            // The filter reads the registers the run ends with: its values first.
            self.store_values();
            // herd7 evaluates a model file on the run before it drops it, and a failed
            // `assert` stops the test.
            if self.judges_cut_runs && self.judge_cut_run() {
                return Ok(());
            }
            return Err(if self.some_final_state_passes() {
                Why::Cutoff
            } else {
                Why::Filter
            });
        }
        // A path that stops at an address that is none of the test's locations: herd7
        // pairs a read there with no write but one at the same address (a
        // read-modify-write's own write too, under `-optace false`, where its values
        // solve), and drops the candidate otherwise (see [`crate::engine::nowhere`]); a
        // write there is an error, once its assumptions hold.
        let mut reads = Vec::new();
        let mut writes = Vec::new();
        for t in 0..self.paths.len() {
            for (k, escape) in self.paths[t].escapes().enumerate() {
                // An address left unsolved is none of these: herd7 tries such an access
                // at every location, which the path's other forks are
                // ([`crate::engine::unsolved`]).
                let Known::Value(v) = self.eval(t, escape.sym) else {
                    return Err(Why::Unsolvable);
                };
                if escape.read {
                    let own = self.limits.optace == OptAce::False
                        && escape.own.is_some_and(
                            |s| matches!(self.eval(t, s), Known::Value(x) if truth(x)),
                        );
                    reads.push(((t, k), escape.source, v, own));
                }
                if escape.writes {
                    writes.push(((t, k), v));
                }
                // A spinlock there, which herd7 runs, is refused wherever its path is taken;
                // and `spin_is_locked` there, unless the model judges lock reads as
                // `lock.cat` does, which leaves it no write to read.
                if escape.lock && (escape.writes || !self.judges_lock_reads) {
                    self.fail_at_escape(t, escape);
                    return Ok(());
                }
            }
        }
        if let Some(&(_, source, _, _)) = reads.iter().find(|&&(at, _, v, own)| {
            !own && writes.iter().all(|&(other, w)| other == at || w != v)
        }) {
            return Err(Why::Nowhere(Some(source)));
        }
        if let Some(&((t, k), _)) = writes.first() {
            if let Some(escape) = self.paths[t].escapes().nth(k) {
                self.fail_at_escape(t, escape);
            }
            return Ok(());
        }
        if self.bad.is_some() {
            return Ok(());
        }
        if !symbols.is_empty() {
            self.name_symbols(&symbols);
        }
        self.store_values();
        self.props_hold(true)
    }

    /// Whether every value a path computes is solved, as herd7 solves every equation (the
    /// assumptions first, then every node), and the first operator with no meaning; `Err`
    /// when an assumption fails.
    fn check_solved(&mut self) -> Result<(bool, Option<(u32, paths::SymId)>), Why> {
        let nlocs = self.program.locs.len();
        let mut unsolved = false;
        let mut bad = None;
        for t in 0..self.paths.len() {
            for c in 0..self.paths[t].constraints.len() {
                let con = self.paths[t].constraints[c];
                match self.eval(t, con.sym) {
                    Known::Value(v) if truth(v) != con.truth => {
                        return Err(Why::Assumption(con.kind));
                    }
                    Known::Value(_) => {}
                    Known::Bad { thread, sym } => {
                        bad.get_or_insert((thread, sym));
                    }
                    Known::Unknown | Known::Busy | Known::Cycle | Known::Unsolved => {
                        unsolved = true
                    }
                }
            }
        }
        for t in 0..self.paths.len() {
            for sym in 0..self.paths[t].nodes.len() as paths::SymId {
                if !matches!(
                    self.paths[t].nodes[sym as usize],
                    Node::Un(..) | Node::Bin(..)
                ) {
                    continue;
                }
                match self.eval(t, sym) {
                    Known::Value(_) => {}
                    Known::Bad { thread, sym } => {
                        bad.get_or_insert((thread, sym));
                    }
                    _ => unsolved = true,
                }
            }
        }
        for g in nlocs..self.exec.events.len() {
            if self.exec.events[g].kind == EventKind::Read
                && !matches!(self.read_value(g), Known::Value(_))
            {
                unsolved = true;
            }
        }
        Ok((unsolved, bad))
    }

    /// Writes the value each access reads or writes into its event, where the final state
    /// and the model find it; and the value an SRCU event of the files before 2023 carries
    /// (`__srcu{srcu-unlock}(X,Y)` carries `Y`), which `different-values` compares and which
    /// may be a value read from memory.
    fn store_values(&mut self) {
        for g in self.program.locs.len()..self.exec.events.len() {
            let v = match self.exec.events[g].kind {
                EventKind::Read => self.read_value(g),
                EventKind::Write | EventKind::Fence => self.write_value(g),
            };
            if let Known::Value(v) = v {
                self.exec.events[g].value = v;
            }
        }
    }

    /// The error for an operator with no meaning: the operator and its operands' values,
    /// and herd7's words for it where herd7 has its own.
    fn illegal(&mut self, t: usize, sym: paths::SymId) -> RunError {
        let span = self.paths[t].spans[sym as usize];
        let node = self.paths[t].nodes[sym as usize];
        let value = |me: &mut Self, s: paths::SymId| match me.eval(t, s) {
            Known::Value(v) => Some(v),
            _ => None,
        };
        let text =
            |me: &Self, v: Option<Value>| v.map_or("?".to_string(), |v| me.program.value_text(v));
        let (message, herd7) = match node {
            Node::Bin(op, a, b) => {
                let (a, b) = (value(self, a), value(self, b));
                let (x, y) = (text(self, a), text(self, b));
                let herd7 = a
                    .zip(b)
                    .and_then(|(a, b)| self.program.herd7_illegal(op, a, b));
                let integer = matches!(a, Some(Value::Int(_)));
                let message = match op {
                    BinOp::Div | BinOp::Rem if integer && b == Some(Value::Int(0)) => {
                        format!("division by zero ({x} {} {y})", op.symbol())
                    }
                    _ if herd7.is_none() && op == BinOp::Or => format!(
                        "the operator `|` has no meaning on {x} and {y} (herd7 7.58 fails on \
                         it: an assertion of its 32-bit integers)"
                    ),
                    _ => format!(
                        "the operator `{}` has no meaning on {x} and {y} (herd7 stops on it: \
                         illegal operation)",
                        op.symbol()
                    ),
                };
                (message, herd7)
            }
            Node::Un(op, a) => {
                let a = value(self, a);
                let x = text(self, a);
                (format!("the operator {op:?} has no meaning on {x}"), None)
            }
            _ => (
                "an operator has no meaning on its operands".to_string(),
                None,
            ),
        };
        RunError {
            message,
            span,
            herd7: herd7.map(|w| Herd7Stop::User(w.into())),
        }
    }

    /// Renames the unsolved symbols, each `Sym(g)` after the first read `g` of its cycle, to
    /// the names herd7 prints (see [`crate::engine::symbol`]), when the paths carry them:
    /// the root herd7's union-find leaves ([`Self::herd_root`]), or, where a write of the
    /// class stores no read's value as it is, the highest herd7 number among the class's
    /// reads and register copies (a write numbered [`DIRECT`], which stores a read's value
    /// through no register, has no number of its own), which may not be herd7's: the
    /// statistics then point to such a write (`unnamed_at`), for a warning.
    fn name_symbols(&mut self, firsts: &[usize]) {
        let nlocs = self.program.locs.len();
        let mut names = Vec::with_capacity(firsts.len());
        for &g in firsts {
            let sym = Known::Value(Value::Sym(g as u32));
            let mut name = 0;
            // The class's reads with their numbers, and its writes with the number of the
            // register read that copies their value and the read whose value it is, each
            // with the parent herd7's round of union-find on the registers leaves it.
            let mut reads = Vec::new();
            let mut writes = Vec::new();
            let mut copies = true;
            // The register equations herd7's round on memory unites after its own, of the
            // values of the class's reads.
            let mut leftover: Vec<(u32, u32, u32, u32)> = Vec::new();
            for x in nlocs..self.exec.events.len() {
                let Some((t, i)) = self.origin[x] else {
                    continue;
                };
                let kind = self.exec.events[x].kind;
                let member = match kind {
                    EventKind::Read => self.read_value(x) == sym,
                    EventKind::Write => self.write_value(x) == sym,
                    EventKind::Fence => false,
                };
                if !member {
                    continue;
                }
                let herd = self.paths[t].herd.get(i).copied().unwrap_or(0);
                let parent = self.paths[t].herd_parent.get(i).copied().unwrap_or(herd);
                if herd == 0 && kind == EventKind::Read {
                    return;
                }
                if herd != DIRECT {
                    name = name.max(herd);
                }
                match kind {
                    EventKind::Read => {
                        reads.push((x, herd, parent));
                        let path = self.paths[t];
                        let own = path.herd_leftover.iter().filter(|e| e.0 == herd);
                        leftover.extend(own.copied());
                    }
                    _ => match self.copied_read(t, i) {
                        Some(r) if herd != 0 => writes.push((x, herd, r, parent)),
                        // The write of a C11 read-modify-write, one event with its read.
                        Some(_)
                            if crate::front::c11::is_single_event(self.paths[t].events[i].tags) =>
                        {
                            copies = false
                        }
                        // A write of a value computed from a read, to herd7 (`r1 + r2`,
                        // even where hazmat knows `r1` is 0): the name below is not
                        // herd7's union-find replayed (the module's FIXME), and a warning
                        // points to the write.
                        _ => {
                            copies = false;
                            let at = self.paths[t].events[i].source;
                            self.stats.unnamed_at =
                                Some(self.stats.unnamed_at.map_or(at, |u| u.min(at)));
                        }
                    },
                }
            }
            leftover.sort_by_key(|e| e.1);
            if copies && let Some(root) = self.herd_root(&reads, &writes, &leftover) {
                name = root;
            }
            names.push((g as u32, name));
        }
        for k in self.known.iter_mut() {
            if let Known::Value(Value::Sym(s)) = *k
                && let Some(&(_, n)) = names.iter().find(|(g, _)| *g == s)
            {
                *k = Known::Value(Value::Sym(n));
            }
        }
        self.node_values.fill(None);
    }

    /// The read whose value the write `i` of thread `t`'s path stores, when it stores
    /// one read's value as it is.
    fn copied_read(&self, t: usize, i: usize) -> Option<usize> {
        let path = self.paths[t];
        let mut node = path.events[i].value;
        loop {
            match path.nodes[node as usize] {
                Node::Read(k) => return Some(self.read_event[t][k as usize]),
                Node::Alias(s) => node = s,
                _ => return None,
            }
        }
    }

    /// The name herd7 gives a class of values out of thin air: the root of its two rounds
    /// of union-find by rank (see [`crate::engine::symbol`]). After the registers' round
    /// each value is the parent that round leaves it (`reads`: each read's number and
    /// parent; `writes`: the number of the register read whose value each stores, or
    /// [`DIRECT`] for a read's value through no register, the read, and that parent);
    /// memory's, with fresh ranks, unites for each read, the last first (herd7's list of
    /// loads is in the reverse of its events' order, which is the numbers'), the read's
    /// value with the value its write stores, the read's winning a tie, then the two sides
    /// of each equation the registers' round left (`leftover`, in herd7's order).
    /// `None` when a read of the class reads a write that stores no read of it.
    fn herd_root(
        &self,
        reads: &[(usize, u32, u32)],
        writes: &[(usize, u32, usize, u32)],
        leftover: &[(u32, u32, u32, u32)],
    ) -> Option<u32> {
        let parent = |read: usize| reads.iter().find(|r| r.0 == read).map(|r| r.2);
        // Each value met, its parent and its rank.
        let mut sets: Vec<(u32, u32, u32)> = Vec::new();
        fn root(sets: &[(u32, u32, u32)], mut v: u32) -> u32 {
            while let Some(&(_, p, _)) = sets.iter().find(|e| e.0 == v) {
                if p == v {
                    break;
                }
                v = p;
            }
            v
        }
        let rank =
            |sets: &[(u32, u32, u32)], v: u32| sets.iter().find(|e| e.0 == v).map_or(0, |e| e.2);
        let mut order = reads.to_vec();
        // A successful compare-exchange's read has the number of the expected value's
        // plain read, which it follows: the later event first.
        order.sort_by_key(|r| std::cmp::Reverse((r.1, r.0)));
        let mut pairs = Vec::with_capacity(order.len() + leftover.len());
        for &(x, _, loaded) in &order {
            let &(_, number, source, stored) = writes.iter().find(|w| w.0 == self.rf_src[x])?;
            let written = if number == DIRECT {
                parent(source)?
            } else {
                stored
            };
            pairs.push((loaded, written));
        }
        pairs.extend(leftover.iter().map(|e| (e.2, e.3)));
        for (a, b) in pairs {
            for v in [a, b] {
                if !sets.iter().any(|e| e.0 == v) {
                    sets.push((v, v, 0));
                }
            }
            let (ra, rb) = (root(&sets, a), root(&sets, b));
            if ra == rb {
                continue;
            }
            let (ka, kb) = (rank(&sets, ra), rank(&sets, rb));
            let (top, below) = if kb > ka { (rb, ra) } else { (ra, rb) };
            for e in sets.iter_mut() {
                if e.0 == below {
                    e.1 = top;
                } else if e.0 == top && ka == kb {
                    e.2 += 1;
                }
            }
        }
        let &(_, _, first) = order.first()?;
        Some(root(&sets, first))
    }

    pub(super) fn final_value(&self, cell: Cell) -> Value {
        match cell {
            Cell::Missing(_) => Value::Int(0),
            Cell::Reg { thread, reg } => {
                let path = self.paths[thread];
                let sym = path.regs[reg];
                path.eval_known(
                    sym,
                    &|k| {
                        let g = self.read_event[thread][k as usize];
                        self.exec.events[g].value
                    },
                    &self.program.addr_order,
                )
                .unwrap_or_default()
            }
            Cell::Loc(l) => {
                let loc = Some(l);
                let ev = &self.exec.events;
                if let Some(f) = &self.finals
                    && let Some(w) = f.iter().find(|&w| ev[w].loc == loc)
                {
                    return ev[w].value;
                }
                // herd7's final write of a location is its last memory write: lock and
                // unlock writes are not memory writes to it, so a spinlock ends holding
                // its last plain value (its initial one, if none).
                let memory = |w: usize| {
                    ev[w].kind == EventKind::Write
                        && ev[w].loc == loc
                        && !ev[w].has(Tag::Lkw)
                        && !ev[w].has(Tag::Ul)
                };
                (0..ev.len())
                    .filter(|&w| memory(w))
                    .find(|&w| {
                        (self.exec.co.successors(w) & EventSet::from_fn(ev.len(), memory))
                            .is_empty()
                    })
                    .map_or(self.program.locs[l.0 as usize].init, |w| ev[w].value)
            }
        }
    }
}
