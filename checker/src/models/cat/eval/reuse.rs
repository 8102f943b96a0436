//! What a run reuses from the run before it on the same thread paths: the values of the
//! bindings the paths fix, the last result of each top-level instruction with the inputs
//! it read, which instructions and terms of unions the paths make empty on every
//! execution, and which bindings only those read.

use super::slot::Frame;
use super::value::{identical, is_empty};
use super::{EvalError, Kept, Machine, Val};
use crate::exec::relation::Width;
use crate::models::cat::ast::{Op1, Op2, Span};
use crate::models::cat::compile::{BASE, Builtin, Expr, Ins, Pat, Slot};

/// What the last evaluation of a top-level instruction read and gave, for a later run
/// that finds its inputs unchanged (see [`Code::inputs`]).
///
/// [`Code::inputs`]: crate::models::cat::compile::Code::inputs
pub(super) struct Memo<W: Width> {
    /// The values of its inputs.
    pub(super) inputs: Vec<Val<W>>,
    /// Whether its check held (for a check), or whether it passed (for a binding).
    pub(super) holds: bool,
    /// The set it chose from (for a `with`).
    pub(super) choices: Option<Val<W>>,
}

/// Whether `slot` is one of the machine's global slots, which outlive a run.
fn is_global(slot: &Slot) -> bool {
    matches!(slot, Slot::Global(_))
}

impl<'a, W: Width> Machine<'a, W> {
    /// What this machine leaves for the next execution with the same thread paths.
    pub(crate) fn into_kept(self) -> Kept<W> {
        Kept {
            globals: self.globals,
            known: self.known,
            empty_rel: self.empty_rel,
            id_rel: self.id_rel,
            spare: self.spare,
            memo: self.memo,
            vanish: self.vanish,
            always_empty: self.always_empty,
            settled: self.settled,
            dead: self.dead,
            empty_terms: self.empty_terms,
        }
    }

    /// Whether top-level instruction `ins` set what these paths fix, as it would set it
    /// again: a fixed binding computed, or a definition made from fixed values.
    pub(super) fn settles(&self, ins: &Ins) -> bool {
        match ins {
            Ins::Let(_, Some(slots)) | Ins::LetRecValues(_, _, _, Some(slots)) => self.known(slots),
            Ins::Enum(slot, _) => is_global(slot),
            Ins::Procedure(slot, code) => is_global(slot) && self.fixed_captures(&code.captures),
            Ins::LetRecFuns(codes, slots) => {
                slots.iter().all(is_global)
                    && self.fixed_captures(codes.iter().flat_map(|c| &c.captures))
            }
            _ => false,
        }
    }

    /// Whether the global `slots` hold values computed for these thread paths.
    pub(super) fn known(&self, slots: &[usize]) -> bool {
        slots
            .iter()
            .all(|&i| self.known.get(i).copied().unwrap_or(false))
    }

    /// Marks the global `slots` as holding values computed for these thread paths.
    pub(super) fn keep(&mut self, slots: &[usize]) {
        for &i in slots {
            if let Some(k) = self.known.get_mut(i) {
                *k = true;
            }
        }
    }

    /// Whether every slot captured is a global the paths fix.
    fn fixed_captures<'s>(&self, captures: impl IntoIterator<Item = &'s Slot>) -> bool {
        captures.into_iter().all(|s| match s {
            Slot::Global(i) => self.known.get(*i).copied().unwrap_or(false),
            _ => false,
        })
    }

    /// What the last evaluation of top-level instruction `i` left, if its `inputs` are as
    /// it read them.
    pub(super) fn unchanged(&self, i: usize, inputs: &[usize]) -> Option<&Memo<W>> {
        self.memo.get(i)?.as_ref().filter(|m| {
            inputs
                .iter()
                .zip(&m.inputs)
                .all(|(&g, old)| identical(&self.globals[g], old))
        })
    }

    /// Records what the evaluation of top-level instruction `i` read and gave.
    pub(super) fn remember(
        &mut self,
        i: usize,
        inputs: &[usize],
        holds: bool,
        choices: Option<Val<W>>,
    ) {
        let Some(slot) = self.memo.get_mut(i) else {
            return;
        };
        let m = slot.get_or_insert_with(|| Memo {
            inputs: Vec::with_capacity(inputs.len()),
            holds,
            choices: None,
        });
        m.inputs.clear();
        m.inputs
            .extend(inputs.iter().map(|&g| self.globals[g].clone()));
        m.holds = holds;
        m.choices = choices;
    }

    /// Finds the top-level bindings whose values nothing a run evaluates on these paths
    /// reads, for later runs to pass over: bindings read only by instructions that are
    /// empty on every execution of these paths (which a run passes over, see
    /// [`Self::vanishes`]) and by other such bindings, not by the enumeration (the model's
    /// last `co` and `rf`). In the kernel's model, without plain accesses, the relations
    /// only the data-race checks read; without a grace period, `rcu-link`.
    ///
    /// Only a binding evaluated on an earlier run of these paths is passed over (as an
    /// instruction empty on every execution is), and an instruction no run has reached
    /// yet counts as reading what it names.
    pub(super) fn find_dead(&mut self) {
        let code = self.code;
        self.dead.found_at = self.dead.looked;
        if code.reads.len() != code.instrs.len() || code.sets.len() != code.instrs.len() {
            return;
        }
        let mut live = vec![false; self.globals.len()];
        for &g in &code.roots {
            live[g] = true;
        }
        for (i, ins) in code.instrs.iter().enumerate().rev() {
            let looked = self.vanish.get(i).copied().flatten();
            if looked == Some(true) {
                continue;
            }
            let binding = matches!(ins, Ins::Let(_, None) | Ins::LetRecValues(_, _, _, None));
            if binding && looked == Some(false) && !code.sets[i].iter().any(|&g| live[g]) {
                self.dead.ins[i] = true;
                continue;
            }
            for &g in &code.reads[i] {
                live[g] = true;
            }
        }
    }

    /// Whether what the paths fix makes the value of `ins` (a binding or a check) empty on
    /// every execution: a sequence or an intersection with an empty operand, a union of
    /// empty operands, a difference from an empty set, a closure or inverse of one, a
    /// fixpoint whose terms are all empty while its names are. The names it binds are then
    /// marked as always empty.
    pub(super) fn vanishes(&mut self, ins: &Ins) -> bool {
        match ins {
            Ins::Let(bindings, None) => {
                if !bindings
                    .iter()
                    .all(|(p, e)| matches!(p, Pat::One(_)) && self.always_empty_exp(e))
                {
                    return false;
                }
                for (p, _) in bindings {
                    if let Pat::One(Some(Slot::Global(g))) = p {
                        self.always_empty[*g] = true;
                    }
                }
                true
            }
            Ins::LetRecValues(values, None, _, None) => {
                let slots: Vec<usize> = values
                    .iter()
                    .filter_map(|(s, _)| match s {
                        Slot::Global(g) => Some(*g),
                        _ => None,
                    })
                    .collect();
                if slots.len() != values.len() {
                    return false;
                }
                for &g in &slots {
                    self.always_empty[g] = true;
                }
                let empty = values.iter().all(|(_, e)| self.always_empty_exp(e));
                if !empty {
                    for &g in &slots {
                        self.always_empty[g] = false;
                    }
                }
                empty
            }
            Ins::Check { exp, .. } => self.always_empty_exp(exp),
            _ => false,
        }
    }

    /// Records which terms of binding `i`, when it binds a union, what the paths fix makes
    /// empty on every execution, when some are and some are not: `lock.cat`'s
    /// `rf | ([IW | UL] ; singlestep(co) ; lk-rmw^-1)` without a lock, the kernel's
    /// `fence | rcu-fence` without a grace period. Later runs leave them out
    /// ([`Self::step_without_empty_terms`]), as they pass over an instruction empty on
    /// every execution.
    pub(super) fn find_empty_terms(&mut self, i: usize, ins: &Ins) {
        let Ins::Let(bindings, None) = ins else {
            return;
        };
        let [(Pat::One(_), Expr::Op(Op2::Union, args, _))] = &bindings[..] else {
            return;
        };
        let empty: Box<[bool]> = args.iter().map(|a| self.always_empty_exp(a)).collect();
        if empty.contains(&true)
            && empty.contains(&false)
            && let Some(t) = self.empty_terms.get_mut(i)
        {
            *t = Some(empty);
        }
    }

    /// Runs binding `i` without the terms of its union that are empty on every execution
    /// of these paths ([`Self::find_empty_terms`]): `Some(true)` once bound, `None` when it
    /// has no such terms or when the others' union is not a relation (an empty term might
    /// then give the union its kind), for the binding to be evaluated whole, on this run
    /// and, the kinds of its terms being those of these paths, on the later ones.
    pub(super) fn step_without_empty_terms(
        &mut self,
        i: usize,
        ins: &Ins,
        frame: &mut Frame<'_, W>,
    ) -> Result<Option<bool>, EvalError> {
        if !matches!(self.empty_terms.get(i), Some(Some(_))) {
            return Ok(None);
        }
        let Ins::Let(bindings, None) = ins else {
            return Ok(None);
        };
        let [(p, Expr::Op(Op2::Union, args, span))] = &bindings[..] else {
            return Ok(None);
        };
        self.count(*span)?;
        let mut acc: Option<Val<W>> = None;
        for (k, a) in args.iter().enumerate() {
            if self.empty_terms[i].as_ref().is_some_and(|e| e[k]) {
                continue;
            }
            let v = self.eval(a, frame)?;
            acc = Some(match acc {
                None => v,
                Some(acc) => self.setop(Op2::Union, acc, v, *span)?,
            });
        }
        match acc {
            Some(v @ Val::Rel(_)) => {
                self.bind(p, v, frame, Span::default())?;
                Ok(Some(true))
            }
            other => {
                if let Some(v) = other {
                    self.recycle(v);
                }
                self.empty_terms[i] = None;
                Ok(None)
            }
        }
    }

    /// Whether `e` is empty on every execution of these paths (see [`Self::vanishes`]).
    fn always_empty_exp(&self, e: &Expr) -> bool {
        match e {
            Expr::Empty => true,
            Expr::Var(Slot::Global(g)) => {
                self.always_empty.get(*g).copied().unwrap_or(false)
                    || (self.known.get(*g).copied().unwrap_or(false)
                        && is_empty(&self.globals[*g], 0))
            }
            Expr::Op(Op2::Seq | Op2::Inter | Op2::Cartesian, args, _) => {
                args.iter().any(|a| self.always_empty_exp(a))
            }
            Expr::Op(Op2::Union, args, _) => args.iter().all(|a| self.always_empty_exp(a)),
            Expr::Op(Op2::Diff, args, _) => args.first().is_some_and(|a| self.always_empty_exp(a)),
            Expr::Op1(Op1::Plus | Op1::Inv | Op1::ToId, a, _) => self.always_empty_exp(a),
            // A built-in that gives the empty value of an empty argument: `domain`,
            // `range`, `different-values` (the bell's `srcu-bad-value-match` without SRCU),
            // named by a fixed binding or by herd7's own name (a slot of `BASE`, which
            // nothing binds again; `different-values` is one whose results change).
            Expr::App(f, a, _) => {
                matches!(**f, Expr::Var(Slot::Global(g))
                if (g < BASE.len() || self.known.get(g).copied().unwrap_or(false))
                    && matches!(
                        self.globals[g],
                        Val::Builtin(Builtin::Domain | Builtin::Range | Builtin::DifferentValues)
                    ))
                    && self.always_empty_exp(a)
            }
            _ => false,
        }
    }
}
