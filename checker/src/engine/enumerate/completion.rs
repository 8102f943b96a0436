//! The end of one search's walk: a complete candidate judged and reported.
//!
//! A candidate the filter keeps is counted, judged by the model, and given to the callback
//! once for the execution built and once for each of its images under the program's
//! symmetry.
//! A model file completes candidates itself: the search then does herd7's last steps
//! first (a final write for each observed location, the filter and the goal on that final
//! state) and reports every completion the model allows.

use super::{Allowed, Flow, NONE, RunError, Search, Stop};
use crate::engine::symmetry::Symmetry;
use crate::exec::event::{Event, EventKind, Loc, Tag};
use crate::exec::relation::{EventSet, Relation, Width};
use crate::front::c11;
use crate::front::program::Prop;
use crate::models::optace::OptAce;
use std::time::Instant;

impl<W: Width> Search<'_, W> {
    pub(super) fn complete(&mut self, visit: &mut dyn FnMut(&Allowed<'_>) -> Flow) -> Option<Stop> {
        if self.completes {
            return self.complete_by_model(visit);
        }
        if self.bad.is_none()
            && let Some(filter) = self.program.applied_filter()
            && !filter.eval(&|c| self.final_value(c))
        {
            self.stats.removed.filter += 1;
            return None;
        }
        self.stats.candidates += 1;
        if let Some(max) = self.limits.max_executions
            && self.stats.candidates > max
        {
            return Some(Stop::Limit(format!("{max} executions")));
        }
        let judgement = match &self.vouched {
            // Cheap: not counted among the judgements partial ones are weighed against.
            Some(open) => {
                self.stats.vouched += 1;
                self.judge.judge_vouched(&self.exec, open)
            }
            None => {
                self.judgements += 1;
                self.judge.judge(&self.exec)
            }
        };
        if !judgement.allowed() {
            self.stats.removed.model += 1;
            return None;
        }
        if let Some(e) = self.bad.take() {
            // An execution the model allows needs a value herd7 cannot compute: the test
            // stops with an error, as in herd7.
            self.failure = Some(e);
            return Some(Stop::Done);
        }
        // Once for the execution built, and once for each of its other images.
        let symmetry = self.symmetry.map(|(s, _)| s);
        let m = symmetry.map_or(1, Symmetry::order);
        self.stats.allowed += m as u64;
        self.stats.images += m as u64 - 1;
        for j in 0..m {
            let allowed = Allowed {
                judgement: &judgement,
                search: self,
                image: symmetry.map(|s| (s, j)),
                count: 1,
            };
            if visit(&allowed) == Flow::Stop {
                return Some(Stop::Done);
            }
        }
        None
    }

    /// herd7's last steps before a model file judges a candidate: a final write for each
    /// location the test observes (every choice whose `pco`, the initial write first and
    /// the final write last, is acyclic), the filter and the speed-check goal on the
    /// final state, then every completion the model allows.
    fn complete_by_model(&mut self, visit: &mut dyn FnMut(&Allowed<'_>) -> Flow) -> Option<Stop> {
        let mut stop = None;
        self.for_each_final_choice(&mut |me, pco| {
            let finals = me.finals.clone().unwrap_or_default();
            stop = me.judge_completions(finals, pco, visit);
            stop.is_none()
        });
        stop
    }

    /// herd7's evaluation of a model file on a candidate of a run cut at a loop, which it
    /// drops whatever the model says: each choice of final writes whose state passes the
    /// filter goes to the model, its completions unused; an error of the model (a failed
    /// `assert`) stops the test, and this returns `true`.
    pub(super) fn judge_cut_run(&mut self) -> bool {
        let model = self.judge;
        let mut failure = None;
        self.for_each_final_choice(&mut |me, pco| {
            if let Some(filter) = me.program.applied_filter()
                && !filter.eval(&|c| me.final_value(c))
            {
                return true;
            }
            let finals = me.finals.clone().unwrap_or_default();
            let deadline = me.limits.deadline;
            match model.completions(&me.exec, finals, pco, deadline, &mut |_| true) {
                Ok(()) => true,
                // Out of time: the search's own check of the deadline stops it.
                Err(_) if deadline.is_some_and(|d| Instant::now() >= d) => false,
                Err(message) => {
                    failure = Some(RunError {
                        message,
                        span: (0, 0),
                        herd7: None,
                    });
                    false
                }
            }
        });
        let failed = failure.is_some();
        if failed {
            self.failure = failure;
        }
        failed
    }

    /// Whether some choice of final writes for the observed locations (as
    /// [`complete_by_model`](Self::complete_by_model) makes them, whose `pco` is acyclic)
    /// gives a final state that passes the filter and the speed-check goal.
    pub(super) fn some_final_state_passes(&mut self) -> bool {
        // Under herd7's default `-optace iico` (and `false`), some choice always has an
        // acyclic `pco`.
        if self.program.applied_filter().is_none()
            && self.goal.is_none()
            && self.limits.optace != OptAce::True
        {
            return true;
        }
        let mut passes = false;
        self.for_each_final_choice(&mut |me, _| {
            let ok = |p: Option<&Prop>| p.is_none_or(|p| p.eval(&|c| me.final_value(c)));
            passes = ok(me.program.applied_filter()) && ok(me.goal);
            !passes
        });
        passes
    }

    /// Calls `f` with each choice of final writes whose `pco` is acyclic (set in
    /// [`Search::finals`] meanwhile) until it returns `false`.
    fn for_each_final_choice(&mut self, f: &mut dyn FnMut(&mut Self, &Relation<W>) -> bool) {
        let n = self.exec.events.len();
        let nlocs = self.program.locs.len();
        let writes_of = |ev: &[Event], l: usize| -> Vec<usize> {
            (0..n)
                .filter(|&w| {
                    ev[w].kind == EventKind::Write
                        && ev[w].loc == Some(Loc(l as u32))
                        && !ev[w].has(Tag::Lkw)
                        && !ev[w].has(Tag::Ul)
                })
                .collect()
        };
        let ev = &self.exec.events;
        let optace = self.limits.optace;
        let po = &self.exec.po;
        let options: Vec<Vec<usize>> = self
            .exec
            .observed
            .iter()
            .map(|l| {
                let mut writes = writes_of(ev, l);
                if optace == OptAce::True {
                    // A write that a later write of its thread overwrites is not final.
                    let all = writes.clone();
                    writes.retain(|&w| !all.iter().any(|&v| po.contains(w, v)));
                }
                writes
            })
            .collect();
        let mut pco0 = Relation::empty(n);
        for l in 0..nlocs {
            for w in writes_of(ev, l) {
                if w != l {
                    pco0.add(l, w);
                }
            }
        }
        if optace == OptAce::True {
            self.add_observed_coherence(&mut pco0);
        }
        let mut pick = vec![0usize; options.len()];
        loop {
            let mut finals = EventSet::EMPTY;
            let mut pco = pco0.clone();
            for (o, &p) in options.iter().zip(&pick) {
                let fw = o[p];
                finals.insert(fw);
                for &w in o {
                    if w != fw {
                        pco.add(w, fw);
                    }
                }
            }
            if pco.is_acyclic() {
                self.finals = Some(finals);
                let go_on = f(self, &pco);
                self.finals = None;
                if !go_on {
                    return;
                }
            }
            let mut i = 0;
            loop {
                if i == pick.len() {
                    return;
                }
                pick[i] += 1;
                if pick[i] < options[i].len() {
                    break;
                }
                pick[i] = 0;
                i += 1;
            }
        }
    }

    /// Adds to `pco` what the threads' own accesses to one location show of the coherence
    /// order, given reads-from, as herd7 adds it under `-optace true` (its `obsco`): for
    /// two memory accesses of one location in program order, a write before a later
    /// write, the write a read reads before a later write, a write before the write a
    /// later read reads, and the write a read reads before the write a later read reads
    /// (the last two when the writes differ). Lock events are not memory accesses to
    /// herd7; nor is the program order between the two halves of a C11
    /// read-modify-write, which herd7 builds as one event.
    fn add_observed_coherence(&self, pco: &mut Relation<W>) {
        let ev = &self.exec.events;
        let memory = |e: usize| {
            matches!(ev[e].kind, EventKind::Read | EventKind::Write)
                && ev[e].loc.is_some()
                && !ev[e].tags.is_lock()
        };
        // The write an access stands for: a write itself, the write a read reads.
        let write_of = |e: usize| match ev[e].kind {
            EventKind::Write => Some(e),
            _ => Some(self.rf_src[e]).filter(|&w| w != NONE),
        };
        let nlocs = self.program.locs.len();
        for a in (nlocs..ev.len()).filter(|&a| memory(a)) {
            for b in self.exec.po.successors(a).iter() {
                if !memory(b)
                    || ev[b].loc != ev[a].loc
                    || (self.exec.rmw.contains(a, b) && c11::is_single_event(ev[b].tags))
                {
                    continue;
                }
                let (Some(wa), Some(wb)) = (write_of(a), write_of(b)) else {
                    continue;
                };
                // Two reads of one write, or a read of the write before it, show nothing.
                if wa != wb || ev[b].kind == EventKind::Write {
                    pco.add(wa, wb);
                }
            }
        }
    }

    /// One choice of final writes: the filter and the goal, then the model's completions.
    fn judge_completions(
        &mut self,
        finals: EventSet<W>,
        pco: &Relation<W>,
        visit: &mut dyn FnMut(&Allowed<'_>) -> Flow,
    ) -> Option<Stop> {
        if let Some(filter) = self.program.applied_filter()
            && !filter.eval(&|c| self.final_value(c))
        {
            self.stats.removed.filter += 1;
            return None;
        }
        if let Some(goal) = self.goal
            && !goal.eval(&|c| self.final_value(c))
        {
            self.stats.removed.speedcheck += 1;
            return None;
        }
        self.stats.candidates += 1;
        if let Some(max) = self.limits.max_executions
            && self.stats.candidates > max
        {
            return Some(Stop::Limit(format!("{max} executions")));
        }
        let model = self.judge;
        let exec = self.exec.clone();
        let mut allowed = 0u64;
        let mut stop = None;
        let mut bad = self.bad.take();
        let r = model.completions(&exec, finals, pco, self.limits.deadline, &mut |c| {
            if let Some(e) = bad.take() {
                // An execution the model allows needs a value herd7 cannot compute.
                stop = Some(Err(e));
                return false;
            }
            allowed += 1;
            self.exec.co = c.co.clone();
            self.exec.rf = c.rf.clone();
            let a = Allowed {
                judgement: c.judgement,
                search: self,
                image: None,
                count: 1,
            };
            match visit(&a) {
                Flow::Continue => true,
                Flow::Stop => {
                    stop = Some(Ok(()));
                    false
                }
            }
        });
        self.exec.co = exec.co;
        self.exec.rf = exec.rf;
        self.stats.allowed += allowed;
        if allowed == 0 {
            self.stats.removed.model += 1;
        }
        match (r, stop) {
            (Err(_), _) if self.limits.deadline.is_some_and(|d| Instant::now() >= d) => {
                Some(Stop::Limit("timeout".into()))
            }
            (Err(message), _) => {
                self.failure = Some(RunError {
                    message,
                    span: (0, 0),
                    herd7: None,
                });
                Some(Stop::Done)
            }
            (Ok(()), Some(Err(e))) => {
                self.failure = Some(e);
                Some(Stop::Done)
            }
            (Ok(()), Some(Ok(()))) => Some(Stop::Done),
            (Ok(()), None) => None,
        }
    }
}
