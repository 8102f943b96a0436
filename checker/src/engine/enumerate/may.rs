//! The values a partial execution may still take: the look-ahead of `--speedcheck`.
//!
//! A speed check looks for one execution that satisfies its goal (the condition's
//! proposition, or its negation for `forall`).
//! The search cuts a subtree when the registers already known falsify the goal; this
//! module cuts it earlier, when no completion of the partial execution can satisfy it.
//! For each read whose write is still to choose it takes the union of the values of the
//! writes it may read, for each location the union of the values of the writes that may
//! end its coherence order, and evaluates the goal over these sets, three-valued.
//! The sets over-approximate the values of every completion, so a goal false over them is
//! false in every completion, and the subtree holds no execution the speed check would
//! report: cutting it changes which executions are judged, never which is found first,
//! so the output stays the same.
//!
//! The analysis gives up (any value) on what it cannot bound: more than [`MAX_VALUES`]
//! values, a value that depends on itself through rf (an out-of-thin-air cycle, which
//! herd7 keeps as a symbol), an operator herd7 cannot compute, and the reads of spinlocks.
//! It is used only where a cut can hide nothing but the executions the goal rejects: not
//! with a run cut off by a loop (marked before the model judges it), a path that escapes
//! to an address that is no location (an error once its assumptions hold), a model that
//! completes candidates itself, or an operator that may have no meaning (an error if an
//! execution the model allows needs it).

use super::values::kleene;
use super::{NONE, Search};
use crate::engine::paths::{Node, SymId};
use crate::exec::event::{EventKind, Tag, Value};
use crate::exec::relation::Width;
use crate::front::program::{Applied, Cell, Operand, Prop, Term, herd_binary, herd_unary};

/// The most values a set holds before the analysis gives up on it.
const MAX_VALUES: usize = 16;

/// The values something may take: a few, or any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum May {
    /// Any value.
    Any,
    /// One of these values (sorted, distinct).
    Some(Vec<Value>),
}

impl May {
    fn one(v: Value) -> May {
        May::Some(vec![v])
    }

    fn union(self, other: May) -> May {
        match (self, other) {
            (May::Some(mut a), May::Some(b)) => {
                a.extend(b);
                a.sort_unstable();
                a.dedup();
                if a.len() > MAX_VALUES {
                    May::Any
                } else {
                    May::Some(a)
                }
            }
            _ => May::Any,
        }
    }
}

/// The analysis's memory of one read while it runs.
#[derive(Clone, Debug)]
pub(super) enum Memo {
    Unknown,
    Busy,
    Done(May),
}

impl<W: Width> Search<'_, W> {
    /// Whether the goal may still hold in some completion of the partial execution:
    /// `false` only when it is false over the values every completion may take and no
    /// operator of the paths may lack a meaning.
    pub(super) fn goal_may_hold(&mut self, goal: &Prop) -> bool {
        self.may_memo.iter_mut().for_each(|m| *m = Memo::Unknown);
        if self.may_prop(goal) != Some(false) {
            return true;
        }
        // An operator with no meaning is an error if an execution the model allows needs
        // it: cut nothing that may hold one.
        for t in 0..self.paths.len() {
            for sym in 0..self.paths[t].nodes.len() as SymId {
                if matches!(
                    self.paths[t].nodes[sym as usize],
                    Node::Un(..) | Node::Bin(..)
                ) && self.may_node(t, sym) == May::Any
                {
                    return true;
                }
            }
        }
        false
    }

    fn may_prop(&mut self, p: &Prop) -> Option<bool> {
        kleene(p, &mut |c, v| {
            let a = self.may_cell(c);
            let b = match v {
                Operand::Value(v) => May::one(*v),
                Operand::Cell(c) => self.may_cell(*c),
            };
            match (a, b) {
                (May::Some(a), May::Some(b)) => {
                    if a.len() == 1 && a == b {
                        Some(true)
                    } else if a.iter().all(|x| !b.contains(x)) {
                        Some(false)
                    } else {
                        None
                    }
                }
                _ => None,
            }
        })
    }

    fn may_cell(&mut self, c: Cell) -> May {
        match c {
            Cell::Reg { thread, reg } => {
                let sym = self.paths[thread].regs[reg];
                self.may_node(thread, sym)
            }
            Cell::Loc(l) => self.may_loc(l.0 as usize),
            Cell::Missing(_) => May::one(Value::Int(0)),
        }
    }

    /// The values location `l` may end with: those of its memory writes that no other
    /// memory write of it follows in coherence (chosen, or forced by program order), the
    /// initial write only if it is the only one.
    fn may_loc(&mut self, l: usize) -> May {
        let loc = Some(crate::exec::event::Loc(l as u32));
        let ev = &self.exec.events;
        if ev
            .iter()
            .any(|e| e.loc == loc && (e.has(Tag::Lkw) || e.has(Tag::Ul)))
        {
            return May::Any;
        }
        let writes: Vec<usize> = (0..ev.len())
            .filter(|&w| ev[w].kind == EventKind::Write && ev[w].loc == loc)
            .collect();
        let finals: Vec<usize> = writes
            .iter()
            .copied()
            .filter(|&w| {
                !writes.iter().any(|&v| {
                    v != w
                        && (v != l && w == l
                            || self.exec.co.contains(w, v)
                            || ev[v].thread.is_some()
                                && ev[v].thread == ev[w].thread
                                && self.exec.po.contains(w, v))
                })
            })
            .collect();
        let mut may = May::Some(Vec::new());
        for w in finals {
            may = may.union(self.may_write(w));
            if may == May::Any {
                break;
            }
        }
        may
    }

    fn may_read(&mut self, r: usize) -> May {
        match &self.may_memo[r] {
            Memo::Done(m) => return m.clone(),
            Memo::Busy => return May::Any,
            Memo::Unknown => {}
        }
        self.may_memo[r] = Memo::Busy;
        let may = if self.rf_src[r] != NONE {
            self.may_write(self.rf_src[r])
        } else if let Some(options) = self.rf_options[r].clone() {
            let mut may = May::Some(Vec::new());
            for w in options {
                may = may.union(self.may_write(w));
                if may == May::Any {
                    break;
                }
            }
            may
        } else {
            May::Any
        };
        self.may_memo[r] = Memo::Done(may.clone());
        may
    }

    fn may_write(&mut self, w: usize) -> May {
        match self.origin[w] {
            None => May::one(self.program.locs[w].init),
            Some((t, i)) => {
                let sym = self.paths[t].events[i].value;
                self.may_node(t, sym)
            }
        }
    }

    fn may_node(&mut self, t: usize, sym: SymId) -> May {
        let path = self.paths[t];
        match path.nodes[sym as usize] {
            Node::Const(v) => May::one(v),
            Node::Read(k) => {
                let g = self.read_event[t][k as usize];
                self.may_read(g)
            }
            Node::Alias(s) => self.may_node(t, s),
            Node::Free => May::Any,
            Node::Un(op, a) => {
                let x = self.may_node(t, a);
                pointwise(&x, &May::one(Value::Int(0)), |x, _| herd_unary(op, x))
            }
            Node::Bin(op, a, b) => {
                let x = self.may_node(t, a);
                let y = self.may_node(t, b);
                pointwise(&x, &y, |x, y| {
                    herd_binary(op, x, y, &self.program.addr_order)
                })
            }
        }
    }
}

/// An operator over every pair of values: any value if one operand may be anything, or
/// the operator may have no meaning or no value herd7 computes.
fn pointwise(x: &May, y: &May, f: impl Fn(Term, Term) -> Applied) -> May {
    let (May::Some(xs), May::Some(ys)) = (x, y) else {
        return May::Any;
    };
    let mut out = May::Some(Vec::new());
    for &a in xs {
        for &b in ys {
            match f(Term::Val(a), Term::Val(b)) {
                Applied::Term(Term::Val(v)) => out = out.union(May::one(v)),
                _ => return May::Any,
            }
            if out == May::Any {
                return out;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::engine::outcome::Verdict;
    use crate::testkit::generate::families::{self, decide};

    /// A value-passing chain's witness reads every write of the chain, the last of `2^n`
    /// candidates in the search's order: the look-ahead cuts each read of an initial value
    /// at once, so the speed check judges one candidate per link at most, and finds the
    /// witness the full enumeration finds.
    #[test]
    fn a_speed_check_of_a_value_chain_judges_one_candidate_per_link() {
        let n = 12;
        let fast = decide(&families::value_chain(n), true);
        assert_eq!(fast.outcome.verdict(), Verdict::Sometimes);
        assert!(
            fast.outcome.stats.candidates <= n as u64 + 1,
            "{:?}",
            fast.outcome.stats
        );
        let full = decide(&families::value_chain(n), false);
        assert!(full.outcome.states.contains(&fast.outcome.states[0]));
        assert_eq!(fast.outcome.states.len(), 1);
    }

    /// Where the goal may hold, nothing is cut: a chain whose condition asks for the
    /// initial value finds its witness among the first candidates, and a forbidden chain
    /// is still proved so.
    #[test]
    fn a_speed_check_cuts_only_what_cannot_satisfy_the_goal() {
        let zero = families::value_chain(6).replace("exists (y=1)", "exists (y=0)");
        let fast = decide(&zero, true);
        assert_eq!(fast.outcome.verdict(), Verdict::Sometimes);
        assert_eq!(fast.outcome.stats.candidates, 1);
        let never = decide(&families::rw_chain(6), true);
        assert_eq!(never.outcome.verdict(), Verdict::Never);
    }
}
