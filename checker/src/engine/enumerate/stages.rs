//! The walk through the stages of one search: reads-from, coherence and spinlocks.
//!
//! Each stage tries every choice its plan leaves (the writes a read may read, the orders
//! of a location's writes, `lock.cat`'s order of a spinlock's critical sections and the
//! writes its lock reads read) and goes on to the next stage with each; the values are
//! solved on the way into the first coherence stage, and a complete candidate is judged
//! past the last.
//! Between stages a monotone model judges the partial execution where that pays
//! (`StageCounts`), and the paths' assumptions, the filter and the goal are checked as
//! far as the values are known.
//! Every step counts against the search's budget and its deadline.

use super::plan::{CoPlan, LockPlan, ReadChoice, Stage};
use super::{Allowed, Flow, NONE, Search, Stop};
use crate::exec::relation::{EventSet, Width};
use std::time::Instant;

impl<W: Width> Search<'_, W> {
    pub(super) fn run(&mut self, visit: &mut dyn FnMut(&Allowed<'_>) -> Flow) -> Option<Stop> {
        self.stage(0, visit)
    }

    fn tick(&mut self) -> Option<Stop> {
        self.steps += 1;
        if self.steps > self.budget {
            self.over_budget = true;
            return Some(Stop::Limit("steps".into()));
        }
        if self.steps.is_multiple_of(256)
            && let Some(d) = self.limits.deadline
            && Instant::now() >= d
        {
            return Some(Stop::Limit("timeout".into()));
        }
        None
    }

    /// Runs stage `i` and everything after it; in a split search, at the stage where the
    /// nodes are, only on the nodes this thread claims ([`super::split`]).
    pub(super) fn stage(
        &mut self,
        i: usize,
        visit: &mut dyn FnMut(&Allowed<'_>) -> Flow,
    ) -> Option<Stop> {
        match (self.claim, &mut self.counting) {
            (_, Some((met, enough))) if i == self.split_at => {
                *met += 1;
                (met >= enough).then_some(Stop::Done)
            }
            (Some(claim), None) if i == self.split_at => self.node(claim, i, visit),
            _ => self.stage_here(i, visit),
        }
    }

    /// Runs stage `i` and everything after it.
    pub(super) fn stage_here(
        &mut self,
        i: usize,
        visit: &mut dyn FnMut(&Allowed<'_>) -> Flow,
    ) -> Option<Stop> {
        if let Some(s) = self.tick() {
            return Some(s);
        }
        if i == self.first_co {
            if let Err(why) = self.solve() {
                self.stats.count(why);
                return None;
            }
            if self.failure.is_some() {
                return Some(Stop::Done);
            }
        }
        // herd7 marks a run cut off by a loop's unrolling before its model judges it, so
        // the model prunes nothing on its way there.
        if i > 0 && i < self.stages.len() && self.prune {
            if i < self.first_co
                && (self.lookahead || !self.values_checked[self.rf_depth])
                && let Err(why) = self.constraints_hold()
            {
                self.stats.count(why);
                return None;
            }
            // Judged once a location's reads-from and coherence are both placed; not above
            // the nodes of a split search, which every thread walks alike.
            if self.vouched.is_none()
                && !matches!(self.stages[i], Stage::Co(_))
                && !self.above_nodes(i)
            {
                if let Some(r) = self.vouched_stage(i, 0, &[], visit) {
                    return r;
                }
                return self.judged_stage(i, visit);
            }
        }
        self.walk_stage(i, visit)
    }

    /// Judges the partial execution before stage `i`, where that pays, and runs stage
    /// `i` and everything after it if the model allows it; keeps the stage's counts.
    pub(super) fn judged_stage(
        &mut self,
        i: usize,
        visit: &mut dyn FnMut(&Allowed<'_>) -> Flow,
    ) -> Option<Stop> {
        let counts = &mut self.at_stage[i];
        if !self.adaptive || counts.worth_judging() {
            counts.judged += 1;
            self.judgements += 1;
            self.stats.partial += 1;
            if !self.judge.judge(&self.exec).allowed() {
                counts.pruned += 1;
                self.stats.pruned += 1;
                return None;
            }
        }
        let before = self.judgements;
        let r = self.walk_stage(i, visit);
        let counts = &mut self.at_stage[i];
        counts.passed += 1;
        counts.below += self.judgements - before;
        r
    }

    /// Runs stage `i` and everything after it, with no judgement before it.
    pub(super) fn walk_stage(
        &mut self,
        i: usize,
        visit: &mut dyn FnMut(&Allowed<'_>) -> Flow,
    ) -> Option<Stop> {
        if i == self.stages.len() {
            return self.complete(visit);
        }
        // Take the stage out to borrow `self` mutably while walking it.
        let stage = std::mem::replace(&mut self.stages[i], Stage::Rf(Vec::new()));
        let r = match &stage {
            Stage::Rf(choices) => self.rf(i, choices, 0, visit),
            Stage::Co(plan) => {
                let mut order = Vec::with_capacity(plan.writes.len());
                self.co(i, plan, &mut order, 0, visit)
            }
            Stage::Lock(plan) => {
                let mut order = Vec::with_capacity(plan.lkws.len());
                self.lock_co(i, plan, &mut order, 0, visit)
            }
        };
        self.stages[i] = stage;
        r
    }

    pub(super) fn rf(
        &mut self,
        i: usize,
        choices: &[ReadChoice],
        j: usize,
        visit: &mut dyn FnMut(&Allowed<'_>) -> Flow,
    ) -> Option<Stop> {
        // The reads of one location are chosen in one stage, by this recursion: the
        // deadline is checked here too, since a stage may hold many of them.
        if let Some(s) = self.tick() {
            return Some(s);
        }
        let Some(c) = choices.get(j) else {
            return self.stage(i + 1, visit);
        };
        if j > 0
            && let Some(r) = self.vouched_stage(i, j, choices, visit)
        {
            return r;
        }
        for &w in &c.candidates {
            // Atomicity: two read-modify-writes that read one write would both have to
            // come right after it.
            if c.rmw
                && choices[..j]
                    .iter()
                    .any(|o| o.rmw && self.rf_src[o.read] == w)
            {
                self.stats.removed.atomicity += 1;
                continue;
            }
            self.set_rf(c.read, w);
            if let Err(why) = self.constraints_hold() {
                self.stats.count(why);
                self.unset_rf(c.read, w);
                continue;
            }
            let r = self.rf(i, choices, j + 1, visit);
            self.unset_rf(c.read, w);
            if r.is_some() {
                return r;
            }
        }
        None
    }

    fn set_rf(&mut self, r: usize, w: usize) {
        self.exec.rf.add(w, r);
        self.rf_src[r] = w;
        self.values_change();
    }

    fn unset_rf(&mut self, r: usize, w: usize) {
        self.exec.rf.remove(w, r);
        self.rf_src[r] = NONE;
        self.values_restored();
    }

    /// One more read's value is chosen: the values are not checked yet.
    fn values_change(&mut self) {
        self.rf_depth += 1;
        self.values_checked[self.rf_depth] = false;
    }

    /// The last choice of [`values_change`](Self::values_change) is undone: the values
    /// are as they were, and so is what was found of them. Choices are undone in the
    /// reverse order of their making, or all at once.
    fn values_restored(&mut self) {
        self.rf_depth -= 1;
        let depth = self.rf_depth;
        self.met_at
            .iter_mut()
            .filter(|d| **d > depth)
            .for_each(|d| *d = usize::MAX);
    }

    fn co(
        &mut self,
        i: usize,
        plan: &CoPlan,
        order: &mut Vec<usize>,
        placed: u64,
        visit: &mut dyn FnMut(&Allowed<'_>) -> Flow,
    ) -> Option<Stop> {
        if let Some(s) = self.tick() {
            return Some(s);
        }
        if order.len() == plan.writes.len() {
            let chain: Vec<usize> = std::iter::once(plan.init)
                .chain(order.iter().map(|&p| plan.writes[p]))
                .collect();
            self.set_chain(&chain);
            let r = self.stage(i + 1, visit);
            self.clear_chain(&chain);
            return r;
        }
        // Atomicity: the write of a read-modify-write comes right after the write its
        // read reads from, so only that write may follow `prev`, and no other time.
        let prev = order.last().map_or(plan.init, |&p| plan.writes[p]);
        let mut forced = None;
        for p in 0..plan.writes.len() {
            if self.rmw_source(plan.writes[p]) == Some(prev) {
                if forced.is_some() || placed >> p & 1 == 1 {
                    // Two RMWs read from one write, or the RMW was placed elsewhere.
                    self.stats.removed.atomicity += 1;
                    return None;
                }
                forced = Some(p);
            }
        }
        for p in 0..plan.writes.len() {
            if placed >> p & 1 == 1 || plan.before[p] & !placed != 0 {
                continue;
            }
            if forced.is_some_and(|f| f != p)
                || (forced.is_none() && self.rmw_source(plan.writes[p]).is_some())
                || self.off_canon(i, placed, p)
            {
                continue;
            }
            order.push(p);
            let r = self.co(i, plan, order, placed | 1 << p, visit);
            order.pop();
            if r.is_some() {
                return r;
            }
        }
        None
    }

    /// For the write of a read-modify-write, the write its read reads from.
    fn rmw_source(&self, w: usize) -> Option<usize> {
        if w == 0 || !self.exec.rmw.contains(w - 1, w) {
            return None;
        }
        let src = self.rf_src[w - 1];
        (src != NONE && self.exec.events[src].loc == self.exec.events[w].loc).then_some(src)
    }

    pub(super) fn set_chain(&mut self, chain: &[usize]) {
        let mut after = EventSet::EMPTY;
        for &w in chain.iter().rev() {
            self.exec.co.set_successors(w, after.clone());
            after.insert(w);
        }
    }

    pub(super) fn clear_chain(&mut self, chain: &[usize]) {
        for &w in chain {
            self.exec.co.set_successors(w, EventSet::EMPTY);
        }
    }

    /// `lock.cat` for one spinlock: orders the lock writes (an unmatched one last), puts
    /// each matched unlock right after its lock write, makes each lock read read from the
    /// write just before its lock write, then chooses the writes lock-fail and is-locked
    /// reads read from.
    fn lock_co(
        &mut self,
        i: usize,
        plan: &LockPlan,
        order: &mut Vec<usize>,
        placed: u64,
        visit: &mut dyn FnMut(&Allowed<'_>) -> Flow,
    ) -> Option<Stop> {
        if let Some(s) = self.tick() {
            return Some(s);
        }
        if order.len() == plan.lkws.len() {
            let mut chain = vec![plan.init];
            for &p in order.iter() {
                let (w, _, ul) = plan.lkws[p];
                chain.push(w);
                chain.extend(ul);
            }
            self.set_chain(&chain);
            let mut prev = plan.init;
            let mut pairs = Vec::with_capacity(order.len());
            for &p in order.iter() {
                let (w, r, ul) = plan.lkws[p];
                pairs.push((r, prev));
                prev = ul.unwrap_or(w);
            }
            for &(r, w) in &pairs {
                self.set_rf(r, w);
            }
            let r = self.rf_lock_reads(i, &plan.reads, 0, visit);
            for &(r, w) in &pairs {
                self.unset_rf(r, w);
            }
            self.clear_chain(&chain);
            return r;
        }
        let unmatched: Vec<usize> = (0..plan.lkws.len())
            .filter(|&p| plan.lkws[p].2.is_none())
            .collect();
        if unmatched.len() > 1 {
            // lock.cat's unmatched-locks: two critical sections that never end deadlock.
            self.stats.removed.deadlock += 1;
            return None;
        }
        for p in 0..plan.lkws.len() {
            if placed >> p & 1 == 1 || plan.before[p] & !placed != 0 {
                continue;
            }
            // The unmatched lock write comes last.
            if plan.lkws[p].2.is_none() && order.len() + 1 != plan.lkws.len()
                || self.off_canon(i, placed, p)
            {
                continue;
            }
            order.push(p);
            let r = self.lock_co(i, plan, order, placed | 1 << p, visit);
            order.pop();
            if r.is_some() {
                return r;
            }
        }
        None
    }

    fn rf_lock_reads(
        &mut self,
        i: usize,
        reads: &[ReadChoice],
        j: usize,
        visit: &mut dyn FnMut(&Allowed<'_>) -> Flow,
    ) -> Option<Stop> {
        if let Some(s) = self.tick() {
            return Some(s);
        }
        let Some(c) = reads.get(j) else {
            return self.stage(i + 1, visit);
        };
        for &w in &c.candidates {
            self.set_rf(c.read, w);
            let r = self.rf_lock_reads(i, reads, j + 1, visit);
            self.unset_rf(c.read, w);
            if r.is_some() {
                return r;
            }
        }
        None
    }
}
