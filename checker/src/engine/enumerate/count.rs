//! Counting the completions the model vouched for, without building each.
//!
//! Once the model has vouched for every completion of a partial execution (the `vouch`
//! module), what is left to judge per completion is the checks of one location each at the
//! locations still open, and the completions differ only in which write each of the open
//! reads reads.
//! When none of those reads feeds anything but a register of its own (no operator, no
//! assumption of a path, no written value, no address: an *inert* read, by the paths'
//! taints), every value of the completions but the open reads' own is the same in all of
//! them, and each open read holds the value of the write it reads.
//! So the values are solved once, on one completion; then each completion is judged by
//! the model's checks left open alone, without its values, and the allowed ones are
//! grouped by the values their open reads hold and by their judgement: each group is
//! reported once, with its number of executions ([`Allowed::count`]), and the final state
//! the values of the group give.
//!
//! Only where the caller counts that way ([`Limits::count_completions`](super::Limits)),
//! with no filter, no goal and no limit on candidates, and only where solving the one
//! completion leaves no doubt: a removal, an operator with no meaning, a value out of thin
//! air or a write whose value is not an integer or address sends the search back to
//! building each completion, which decides as before.

use super::{Allowed, Flow, NONE, Search, Stop};
use crate::engine::paths::Node;
use crate::engine::symmetry::Symmetry;
use crate::exec::event::{EventKind, Value};
use crate::exec::relation::{EventSet, Width};
use crate::models::model::Judgement;
use std::collections::HashMap;
use std::time::Instant;

use super::plan::Stage;
use super::values::Known;

/// The open reads and coherence orders of the stages from one stage on, when all of them
/// can be counted.
pub(super) struct CountPlan {
    /// Every read of the stage and the stages after it, in the order the search chooses
    /// them, with the writes it may read and whether it is the read of a read-modify-write
    /// of its location.
    reads: Vec<(usize, Vec<usize>, bool)>,
    /// The one coherence order of each coherence stage from the stage on, initial write
    /// first.
    chains: Vec<Vec<usize>>,
}

/// The completions allowed, grouped: the values of the open reads, the judgement, and the
/// number of completions, in the order the groups were met, with each group's place by
/// its values and flags (a test whose completions all differ has as many groups as
/// completions, which a search through the groups made quadratic).
#[derive(Default)]
struct Tally {
    groups: Vec<(Vec<Value>, Judgement, u64)>,
    /// The groups of each set of values (one per set of flags they raise).
    at: HashMap<Vec<Value>, Vec<usize>>,
}

impl Tally {
    /// Counts one more completion of values `key` under `judgement`; allocates only for a
    /// new group, since a region counts millions of completions into few groups.
    fn add(&mut self, key: &[Value], judgement: Judgement) {
        let same = |g: &usize| self.groups[*g].1.flags == judgement.flags;
        if let Some(&g) = self.at.get(key).and_then(|gs| gs.iter().find(|g| same(g))) {
            self.groups[g].2 += 1;
            return;
        }
        self.at
            .entry(key.to_vec())
            .or_default()
            .push(self.groups.len());
        self.groups.push((key.to_vec(), judgement, 1));
    }
}

impl<W: Width> Search<'_, W> {
    /// For each stage of a region the model may vouch for, the plan by which its
    /// completions are counted, where they may be.
    pub(super) fn count_plans(&self) -> Vec<Option<CountPlan>> {
        let mut plans: Vec<Option<CountPlan>> = (0..self.stages.len()).map(|_| None).collect();
        if !self.limits.count_completions
            || self.goal.is_some()
            || self.limits.max_executions.is_some()
            || self.program.applied_filter().is_some()
        {
            return plans;
        }
        let inert = self.inert_reads();
        let mut reads = Vec::new();
        let mut chains = Vec::new();
        for i in (0..self.stages.len()).rev() {
            if self.vouch_regions[i].is_none() {
                break;
            }
            match &self.stages[i] {
                Stage::Rf(choices) => {
                    if choices.iter().any(|c| !inert.contains(c.read)) {
                        break;
                    }
                    let mine = choices
                        .iter()
                        .map(|c| (c.read, c.candidates.clone(), c.rmw));
                    reads = mine.chain(reads).collect();
                }
                Stage::Co(plan) => {
                    let order = super::vouch::single_order(&plan.before).expect("a region's");
                    let chain = std::iter::once(plan.init)
                        .chain(order.into_iter().map(|p| plan.writes[p]))
                        .collect();
                    chains.insert(0, chain);
                }
                Stage::Lock(_) => break,
            }
            plans[i] = Some(CountPlan {
                reads: reads.clone(),
                chains: chains.clone(),
            });
        }
        plans
    }

    /// The reads whose value feeds nothing but registers: no operator, no assumption, no
    /// value an event carries and no address mentions them.
    fn inert_reads(&self) -> EventSet<W> {
        let mut inert = EventSet::EMPTY;
        for (t, path) in self.paths.iter().enumerate() {
            let mut used = 0u64;
            for (n, node) in path.nodes.iter().enumerate() {
                if matches!(node, Node::Un(..) | Node::Bin(..)) {
                    used |= path.taint[n];
                }
            }
            for c in &path.constraints {
                used |= path.taint[c.sym as usize];
            }
            for e in &path.events {
                if e.kind != EventKind::Read {
                    used |= path.taint[e.value as usize];
                }
            }
            for e in path.escape.iter().chain(&path.then) {
                used |= path.taint[e.sym as usize];
            }
            for (k, &g) in self.read_event[t].iter().enumerate() {
                if g != NONE && used >> k & 1 == 0 {
                    inert.insert(g);
                }
            }
        }
        inert
    }

    /// Counts the completions of the partial execution before the `j`th read of stage
    /// `i`, which the model vouched for, leaving the checks of the events `open` to each;
    /// `None` when they cannot be counted here, and are to be built one by one.
    pub(super) fn count_vouched(
        &mut self,
        i: usize,
        j: usize,
        open: &EventSet<W>,
        visit: &mut dyn FnMut(&Allowed<'_>) -> Flow,
    ) -> Option<Option<Stop>> {
        let plan = self.count_plans.get_mut(i)?.take()?;
        let r = self.count_with(&plan, j, open, visit);
        self.count_plans[i] = Some(plan);
        r
    }

    fn count_with(
        &mut self,
        plan: &CountPlan,
        j: usize,
        open: &EventSet<W>,
        visit: &mut dyn FnMut(&Allowed<'_>) -> Flow,
    ) -> Option<Option<Stop>> {
        let reads = &plan.reads[j..];
        if reads.iter().any(|(_, c, _)| c.is_empty()) {
            return None;
        }
        for chain in &plan.chains {
            self.set_chain(chain);
        }
        // The values, solved once on the completion that reads each read's first write.
        for (r, c, _) in reads {
            self.exec.rf.add(c[0], *r);
            self.rf_src[*r] = c[0];
        }
        let failed = self.failure.is_some();
        let solved = self.solve().is_ok() && self.bad.is_none() && self.failure.is_none();
        if !failed {
            self.failure = None;
        }
        let mut values: Vec<Vec<Value>> = Vec::with_capacity(reads.len());
        if solved {
            for (_, c, _) in reads {
                let mut of = Vec::with_capacity(c.len());
                for &w in c {
                    match self.write_value(w) {
                        Known::Value(v) if !matches!(v, Value::Sym(_)) => of.push(v),
                        _ => break,
                    }
                }
                if of.len() < c.len() {
                    break;
                }
                values.push(of);
            }
        }
        self.bad = None;
        for (r, c, _) in reads {
            self.exec.rf.remove(c[0], *r);
            self.rf_src[*r] = NONE;
        }
        if values.len() < reads.len() {
            for chain in &plan.chains {
                self.clear_chain(chain);
            }
            return None;
        }
        let mut tally = Tally::default();
        let mut key = Vec::with_capacity(reads.len());
        let stop = match self.tally(reads, &values, 0, open, &mut key, &mut tally) {
            Some(out_of_time) => Some(out_of_time),
            None => self.report(reads, tally, visit),
        };
        for chain in &plan.chains {
            self.clear_chain(chain);
        }
        Some(stop)
    }

    /// Judges every completion of the reads from the `k`th on, by the checks the model
    /// left open, and adds the allowed ones to `tally`; stops once the deadline has
    /// passed (checked every 1,024 completions), which a region of many completions may
    /// take long to count.
    #[allow(clippy::too_many_arguments)]
    fn tally(
        &mut self,
        reads: &[(usize, Vec<usize>, bool)],
        values: &[Vec<Value>],
        k: usize,
        open: &EventSet<W>,
        key: &mut Vec<Value>,
        tally: &mut Tally,
    ) -> Option<Stop> {
        let Some((r, candidates, rmw)) = reads.get(k) else {
            self.stats.candidates += 1;
            self.stats.vouched += 1;
            self.stats.counted += 1;
            if self.stats.counted.is_multiple_of(1024)
                && self.limits.deadline.is_some_and(|d| Instant::now() >= d)
            {
                return Some(Stop::Limit("timeout".into()));
            }
            let judgement = self.judge.judge_vouched(&self.exec, open);
            if !judgement.allowed() {
                self.stats.removed.model += 1;
                return None;
            }
            tally.add(key, judgement);
            return None;
        };
        let r = *r;
        let loc = self.exec.events[r].loc;
        for (p, &w) in candidates.iter().enumerate() {
            // Atomicity: two read-modify-writes that read one write would both have to
            // come right after it.
            if *rmw && self.rmw_reads_of(loc, w) {
                self.stats.removed.atomicity += 1;
                continue;
            }
            self.exec.rf.add(w, r);
            self.rf_src[r] = w;
            // The value it reads, where a model's checks would find it.
            self.exec.events[r].value = values[k][p];
            key.push(values[k][p]);
            let stop = self.tally(reads, values, k + 1, open, key, tally);
            key.pop();
            self.exec.rf.remove(w, r);
            self.rf_src[r] = NONE;
            if stop.is_some() {
                return stop;
            }
        }
        None
    }

    /// Whether the read of a read-modify-write of location `loc` reads `w` already.
    fn rmw_reads_of(&self, loc: Option<crate::exec::event::Loc>, w: usize) -> bool {
        self.exec.rf.successors(w).iter().any(|r| {
            self.exec.events[r].loc == loc
                && self.exec.rmw.contains(r, r + 1)
                && self.exec.events.get(r + 1).is_some_and(|x| x.loc == loc)
        })
    }

    /// Reports each group of `tally` once per image under the program's symmetry, with
    /// its number of completions, the open reads holding the group's values; stops once
    /// the deadline has passed (checked at each group).
    fn report(
        &mut self,
        reads: &[(usize, Vec<usize>, bool)],
        tally: Tally,
        visit: &mut dyn FnMut(&Allowed<'_>) -> Flow,
    ) -> Option<Stop> {
        let symmetry = self.symmetry.map(|(s, _)| s);
        let m = symmetry.map_or(1, Symmetry::order) as u64;
        for (key, judgement, count) in tally.groups {
            // A region may hold as many groups as completions (one final state each), and
            // regions come by the thousand.
            if self.limits.deadline.is_some_and(|d| Instant::now() >= d) {
                return Some(Stop::Limit("timeout".into()));
            }
            for ((r, _, _), v) in reads.iter().zip(key) {
                self.exec.events[*r].value = v;
            }
            self.stats.allowed += m * count;
            self.stats.images += (m - 1) * count;
            for j in 0..m as usize {
                let allowed = Allowed {
                    judgement: &judgement,
                    search: self,
                    image: symmetry.map(|s| (s, j)),
                    count,
                };
                if visit(&allowed) == Flow::Stop {
                    return Some(Stop::Done);
                }
            }
        }
        None
    }
}
