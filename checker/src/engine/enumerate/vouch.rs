//! Vouching: the last stages of a search judged once for all their choices.
//!
//! On the last stages of a search, where most of its candidates are built, the choices
//! left are often reads-from alone (each read picks among a few writes) and coherence
//! orders that program order fixes.
//! A monotone model's relations only grow with `rf`, so the execution with every write
//! each remaining read may read, all at once (the *union*), has every relation of each of
//! its completions.
//! When each of the model's checks that can relate events of several locations passes on
//! the union, it passes on every completion; what is left to judge per completion is the
//! checks of one location each (for the LKMM, coherence and atomicity) at the locations of
//! those reads, which are far cheaper ([`JudgeAt::vouch`](crate::models::model::JudgeAt::vouch),
//! [`JudgeAt::judge_vouched`](crate::models::model::JudgeAt::judge_vouched)).
//! Each completion still goes through the search as before (its values, the paths'
//! assumptions, the filter, its final state and the model's judgement of it), so the
//! answer is the same, judgement for judgement; only its cost changes.
//!
//! A union can fail where no completion does (two reads-from of one read close a cycle no
//! completion has), so a stage whose unions fail more often than they pass stops asking,
//! but for one entry in [`SAMPLE`], as partial judgements do.

use super::plan::{ReadChoice, Stage};
use super::{Allowed, Flow, Search, Stop};
use crate::exec::event::Loc;
use crate::exec::relation::{EventSet, Width};

/// Unions are always tried at a stage until it has tried this many.
const WARM_UP: u64 = 32;

/// Past the warm-up, a stage whose unions fail more often than they pass still tries one
/// entry in this many, to follow a change.
const SAMPLE: u64 = 16;

/// How the unions tried at one stage have fared.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct VouchCounts {
    tried: u64,
    passed: u64,
    skipped: u64,
}

impl VouchCounts {
    fn worth_trying(&mut self) -> bool {
        if self.tried < WARM_UP || 4 * self.passed >= self.tried {
            return true;
        }
        self.skipped += 1;
        self.skipped.is_multiple_of(SAMPLE)
    }
}

impl<W: Width> Search<'_, W> {
    /// Lays out where the model may vouch, if it does, once the stages are planned.
    pub(super) fn prepare_vouching(&mut self, vouches: bool) {
        self.vouch_regions = self.vouching_regions(vouches);
        self.vouch_counts = vec![[VouchCounts::default(); 2]; self.stages.len()];
        self.count_plans = self.count_plans();
    }

    /// Starts the counts of vouching at stage `i` and after afresh, as a node of a split
    /// search does, so that what it does does not depend on the nodes its thread took.
    pub(super) fn forget_vouching_from(&mut self, i: usize) {
        for counts in &mut self.vouch_counts[i..] {
            *counts = Default::default();
        }
    }

    /// For each stage, the events of the locations of it and the stages after it when all
    /// of them can be vouched for at once: reads-from stages, and coherence stages with
    /// one order only (the writes of one thread), not the one where the program's
    /// symmetry makes its cut. `None` where the model does not vouch.
    fn vouching_regions(&self, vouches: bool) -> Vec<Option<EventSet<W>>> {
        let mut regions = vec![None; self.stages.len()];
        if !vouches || !self.prune || self.limits.no_vouching {
            return regions;
        }
        let ev = &self.exec.events;
        let mut open = EventSet::<W>::EMPTY;
        for i in (0..self.stages.len()).rev() {
            let loc = match &self.stages[i] {
                Stage::Rf(choices) => choices.first().and_then(|c| ev[c.read].loc),
                Stage::Co(plan)
                    if single_order(&plan.before).is_some()
                        && self.canon.as_ref().is_none_or(|c| c.stage() != i) =>
                {
                    Some(Loc(plan.init as u32))
                }
                Stage::Co(_) | Stage::Lock(_) => break,
            };
            let Some(loc) = loc else { break };
            for (e, event) in ev.iter().enumerate() {
                if event.loc == Some(loc) {
                    open.insert(e);
                }
            }
            regions[i] = Some(open.clone());
        }
        regions
    }

    /// Asks the model to vouch for every completion of the partial execution before the
    /// `j`th read of stage `i` (before stage `i` for `j` 0), and if it does, runs the rest
    /// with the model's judgement of each completion left to what it did not vouch for.
    /// `None` when the stage is not one whose completions can be vouched for, or the
    /// model did not.
    ///
    /// Within a stage (`j` > 0), the stage is out of [`Search::stages`] while it is walked,
    /// and `within` holds its reads.
    pub(super) fn vouched_stage(
        &mut self,
        i: usize,
        j: usize,
        within: &[ReadChoice],
        visit: &mut dyn FnMut(&Allowed<'_>) -> Flow,
    ) -> Option<Option<Stop>> {
        if self.vouched.is_some() || self.above_nodes(i) {
            return None;
        }
        let open = self.vouch_regions[i].clone()?;
        if j == 0 && i < self.vouch_backoff.0 {
            return None;
        }
        let counts = &mut self.vouch_counts[i][usize::from(j > 0)];
        if self.adaptive && !counts.worth_trying() {
            return None;
        }
        counts.tried += 1;
        self.stats.unions += 1;
        if !self.judge_union(i, &within[j.min(within.len())..], &open) {
            if j > 0 {
                return None;
            }
            // Below a union that failed before a stage, the next is tried before a stage
            // farther down each time one fails on the way: a search whose stages are met
            // once each (a chain of hundreds of threads, one choice left at each) made a
            // union of its whole execution, which failed, before each of its stages.
            let saved = self.vouch_backoff;
            self.vouch_backoff = (i + saved.1, saved.1 * 2);
            let r = self.judged_stage(i, visit);
            self.vouch_backoff = saved;
            return Some(r);
        }
        self.vouch_counts[i][usize::from(j > 0)].passed += 1;
        if let Some(r) = self.count_vouched(i, j, &open, visit) {
            return Some(r);
        }
        self.vouched = Some(open);
        let r = if j == 0 {
            self.walk_stage(i, visit)
        } else {
            self.rf(i, within, j, visit)
        };
        self.vouched = None;
        Some(r)
    }

    /// The model's vouching on the union of the completions of the partial execution
    /// before stage `i` (`within` holding the reads of stage `i` still to choose when it is
    /// being walked, when it is out of [`Search::stages`]): every write each read from
    /// there on may read, and the one coherence order of each of their coherence stages.
    fn judge_union(&mut self, i: usize, within: &[ReadChoice], open: &EventSet<W>) -> bool {
        let mut chains = Vec::new();
        for c in within {
            for &w in &c.candidates {
                self.exec.rf.add(w, c.read);
            }
        }
        for stage in &self.stages[i..] {
            match stage {
                Stage::Rf(choices) => {
                    for c in choices {
                        for &w in &c.candidates {
                            self.exec.rf.add(w, c.read);
                        }
                    }
                }
                Stage::Co(plan) => {
                    let order = single_order(&plan.before).expect("a region's coherence");
                    let chain: Vec<usize> = std::iter::once(plan.init)
                        .chain(order.into_iter().map(|p| plan.writes[p]))
                        .collect();
                    let mut after = EventSet::EMPTY;
                    for &w in chain.iter().rev() {
                        self.exec.co.set_successors(w, after.clone());
                        after.insert(w);
                    }
                    chains.push(chain);
                }
                Stage::Lock(_) => unreachable!("no lock stage is vouched for"),
            }
        }
        self.judgements += 1;
        let vouched = self.judge.vouch(&self.exec, open);
        for c in within {
            for &w in &c.candidates {
                self.exec.rf.remove(w, c.read);
            }
        }
        for stage in &self.stages[i..] {
            if let Stage::Rf(choices) = stage {
                for c in choices {
                    for &w in &c.candidates {
                        self.exec.rf.remove(w, c.read);
                    }
                }
            }
        }
        for w in chains.into_iter().flatten() {
            self.exec.co.set_successors(w, EventSet::EMPTY);
        }
        vouched
    }
}

/// The one order of a location's writes that `before` (for each write by position, the
/// positions that must come before it) allows, if it allows only one: every two writes
/// are of one thread.
pub(super) fn single_order(before: &[u64]) -> Option<Vec<usize>> {
    let mut order: Vec<usize> = (0..before.len()).collect();
    order.sort_by_key(|&p| before[p].count_ones());
    let mut placed = 0u64;
    for &p in &order {
        if before[p] != placed {
            return None;
        }
        placed |= 1 << p;
    }
    Some(order)
}
