//! The plan of one search: the execution a combination of thread paths fixes, and the
//! stages that choose the rest.
//!
//! `Search::new` builds the events and the relations the paths fix (po, rmw, addr, data,
//! ctrl) once per combination; `Search::plan` then lays out its stages, location by
//! location: the reads-from of a location's reads with the writes each may read (never
//! the writes coherence rules out), its coherence order, or for a spinlock the one stage
//! that follows `lock.cat`; and, where the program's symmetry is used, the cut that builds
//! one execution of each group of images (`Canon`).
//! A model file, or a run cut off by a loop, gets herd7's own stages instead
//! (`Search::plan_for_completion`).
//! Each stage keeps the counts by which the search decides whether judging partial
//! executions there pays (`StageCounts`).

use super::values::Known;
use super::{Limits, NONE, RunError, Search, Stats, may};
use crate::engine::paths::Path;
use crate::engine::symmetry::Symmetry;
use crate::exec::event::{Event, EventKind, Loc, Tag, Tags};
use crate::exec::execution::Execution;
use crate::exec::relation::{EventSet, Relation, Width, Words};
use crate::front::c11;
use crate::front::program::{Cell, Program, Prop};
use crate::models::model::{JudgeAt, MemoryModel};
use crate::models::optace::OptAce;

/// What the partial judgements at one stage have done so far in one search: how often
/// they cut, and how much judging the partial executions they let through cost below.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct StageCounts {
    /// Partial executions the model judged here.
    pub(super) judged: u64,
    /// Of those, the ones it rejected.
    pub(super) pruned: u64,
    /// Partial executions not cut here (judged and allowed, or not judged).
    pub(super) passed: u64,
    /// The judgements made below the partial executions not cut here, all told.
    pub(super) below: u64,
    /// Partial executions met here past the warm-up while judging them did not pay.
    unpaid: u64,
    /// Partial executions met here, judged or not.
    met: u64,
}

/// Partial judgements at a stage are always made until it has made this many.
const WARM_UP: u64 = 32;

/// Past the warm-up, a stage whose judgements do not pay still judges one partial
/// execution in this many, to follow a change in how often they cut.
const SAMPLE: u64 = 16;

impl StageCounts {
    /// Whether to judge the next partial execution here: never the first met (a search
    /// that comes here once, as one whose every stage has one choice left, has nothing
    /// below to save but the one candidate, which is judged anyway: a chain of hundreds
    /// of threads made a judgement of its whole execution at each of its hundreds of
    /// stages), then always during the warm-up, then while the judgements a cut saves
    /// (the share cut times the judgements below a partial execution that is not cut)
    /// outweigh the one judgement it costs, and one time in [`SAMPLE`] otherwise.
    pub(super) fn worth_judging(&mut self) -> bool {
        self.met += 1;
        if self.met == 1 {
            return false;
        }
        if self.judged < WARM_UP {
            return true;
        }
        // pruned / judged * below / passed >= 1, in integers.
        let saved = u128::from(self.pruned) * u128::from(self.below);
        let cost = u128::from(self.judged) * u128::from(self.passed.max(1));
        if saved >= cost {
            return true;
        }
        self.unpaid += 1;
        self.unpaid.is_multiple_of(SAMPLE)
    }
}

/// A read whose write is still to choose, with the writes it may read.
pub(super) struct ReadChoice {
    pub(super) read: usize,
    pub(super) candidates: Vec<usize>,
    /// Whether the read is that of a read-modify-write of its location, whose write
    /// comes right after the write it reads from in coherence order, so that no other
    /// such read of the location may read the same write (the native plan's rule; `false`
    /// in herd7's own stages, which follow no rule).
    pub(super) rmw: bool,
}

/// One step of the search.
pub(super) enum Stage {
    /// Reads-from for the plain reads of a location.
    Rf(Vec<ReadChoice>),
    /// Coherence, rf of lock reads, and the reads of `spin_trylock`/`spin_is_locked`, for a
    /// spinlock.
    Lock(LockPlan),
    /// Coherence order for a location.
    Co(CoPlan),
}

pub(super) struct CoPlan {
    pub(super) init: usize,
    pub(super) writes: Vec<usize>,
    /// For each write (by position in `writes`), the positions that must come before it
    /// (earlier writes of the same thread).
    pub(super) before: Vec<u64>,
}

/// Where the search builds one execution of each group of images under the program's
/// symmetry: at stage `stage`, the first write placed of the threads of its cycle must be
/// one of the cycle's first thread.
pub(super) struct Canon {
    stage: usize,
    /// Positions, in the stage's order of writes, of the writes of the cycle's threads.
    of_cycle: u64,
    /// Of those, the ones not by the cycle's first thread.
    of_others: u64,
}

impl Canon {
    /// The stage at which the cut is made.
    pub(super) fn stage(&self) -> usize {
        self.stage
    }
}

pub(super) struct LockPlan {
    pub(super) init: usize,
    /// Lock writes, with the read of their pair and their matching unlock.
    pub(super) lkws: Vec<(usize, usize, Option<usize>)>,
    pub(super) before: Vec<u64>,
    /// Lock-fail, read-locked and read-unlocked reads with the writes each may read.
    pub(super) reads: Vec<ReadChoice>,
}

impl<'a, W: Width> Search<'a, W> {
    pub(super) fn new(
        program: &'a Program,
        model: &'a dyn MemoryModel,
        judge: &'a dyn JudgeAt<W>,
        limits: &'a Limits,
        goal: Option<&'a Prop>,
        symmetry: Option<(&'a Symmetry, Loc)>,
        paths: Vec<&'a Path>,
    ) -> Result<Search<'a, W>, RunError> {
        let nlocs = program.locs.len();
        let total = nlocs + paths.iter().map(|p| p.events.len()).sum::<usize>();
        debug_assert!(total <= EventSet::<W>::CAPACITY);
        let mut events = Vec::with_capacity(total);
        let mut origin = Vec::with_capacity(total);
        for l in &program.locs {
            events.push(Event {
                thread: None,
                kind: EventKind::Write,
                loc: Some(Loc(events.len() as u32)),
                value: l.init,
                tags: Tags::of(&[Tag::Init]),
                source: None,
            });
            origin.push(None);
        }
        let n = total;
        let mut po = Relation::empty(n);
        let mut rmw = Relation::empty(n);
        let mut addr = Relation::empty(n);
        let mut data = Relation::empty(n);
        let mut ctrl = Relation::empty(n);
        let mut read_event = Vec::with_capacity(paths.len());
        for (t, p) in paths.iter().enumerate() {
            let base = events.len();
            let mut reads = vec![NONE; p.reads as usize];
            for (i, e) in p.events.iter().enumerate() {
                let g = base + i;
                if let Some(k) = e.read {
                    reads[k as usize] = g;
                }
                let value = p.constant(e.value).unwrap_or_default();
                events.push(Event {
                    thread: Some(t),
                    kind: e.kind,
                    loc: e.loc,
                    value,
                    tags: e.tags,
                    source: Some(e.source),
                });
                origin.push(Some((t, i)));
            }
            for (i, after) in program_order(p, base).into_iter().enumerate() {
                po.set_successors(base + i, after);
            }
            for (i, e) in p.events.iter().enumerate() {
                let g = base + i;
                if e.rmw_with_prev {
                    rmw.add(g - 1, g);
                }
                for (rel, mask) in [
                    (&mut addr, e.addr_dep),
                    (&mut data, e.data_dep),
                    (&mut ctrl, e.ctrl_dep),
                ] {
                    for k in EventSet::<Words<1>>::from_bits_at(mask.into(), 0).iter() {
                        rel.add(reads[k], g);
                    }
                }
            }
            read_event.push(reads);
        }
        // herd7's final state holds the locations the condition, `locations` and the
        // filter read.
        let mut cells = program.shown.clone();
        if let Some(f) = &program.filter {
            f.cells(&mut cells);
        }
        let observed = cells
            .iter()
            .filter_map(|c| match c {
                Cell::Loc(l) => Some(l.0 as usize),
                Cell::Reg { .. } | Cell::Missing(_) => None,
            })
            .collect();
        let exec = Execution {
            events,
            po,
            rf: Relation::empty(n),
            co: Relation::empty(n),
            rmw,
            addr,
            data,
            ctrl,
            observed,
            shape: crate::exec::execution::Shape::fresh(),
        };
        // Orders of a location's writes are tracked as bits of a `u64`.
        for l in 0..nlocs {
            let mut writes = exec
                .events
                .iter()
                .filter(|e| e.kind == EventKind::Write && e.loc == Some(Loc(l as u32)));
            // The write the limit falls on, in thread order, and the count.
            if let Some(past) = writes.nth(64) {
                let count = 65 + writes.count();
                return Err(RunError {
                    message: format!(
                        "location `{}` has {count} writes in one execution; at most 64 are supported",
                        program.locs[l].name
                    ),
                    span: past.source.unwrap_or((0, 0)),
                    herd7: None,
                });
            }
        }
        let completes = model.completes();
        let escapes_by_write = paths.iter().any(|p| p.writes_nowhere());
        // herd7 stops on a write at no location in any candidate whose values solve, before
        // its model judges it: the model prunes nothing on the way there.
        let prune = model.monotone()
            && !completes
            && !escapes_by_write
            && !paths.iter().any(|p| p.cutoff.is_some());
        let lookahead = goal.is_some()
            && !completes
            && paths
                .iter()
                .all(|p| p.cutoff.is_none() && p.escape.is_none());
        let adaptive = limits.max_executions.is_none() && paths.iter().all(|p| p.escape.is_none());
        let (constraint_base, constraints) = offsets(paths.iter().map(|p| p.constraints.len()));
        let (node_base, nodes) = offsets(paths.iter().map(|p| p.nodes.len()));
        let mut search = Search {
            program,
            judge,
            limits,
            goal,
            paths,
            exec,
            read_event,
            origin,
            rf_src: vec![NONE; n],
            known: vec![Known::Unknown; n],
            node_values: vec![None; nodes],
            node_base,
            rf_depth: 0,
            values_checked: vec![false; n + 1],
            met_at: vec![usize::MAX; constraints],
            constraint_base,
            stages: Vec::new(),
            first_co: 0,
            stats: Stats::default(),
            steps: 0,
            bad: None,
            failure: None,
            prune,
            adaptive,
            at_stage: Vec::new(),
            judgements: 0,
            completes,
            judges_cut_runs: completes && model.judges_cut_runs(),
            judges_lock_reads: model.judges_lock_reads(),
            finals: None,
            known_reads: EventSet::EMPTY,
            escapes_by_write,
            rf_options: vec![None; n],
            lookahead,
            may_memo: vec![may::Memo::Unknown; n],
            symmetry,
            canon: None,
            budget: u64::MAX,
            over_budget: false,
            claim: None,
            split_at: 0,
            counting: None,
            halted: false,
            vouch_regions: Vec::new(),
            vouch_counts: Vec::new(),
            vouch_backoff: (0, 1),
            vouched: None,
            count_plans: Vec::new(),
        };
        search.plan();
        search.at_stage = vec![StageCounts::default(); search.stages.len()];
        search.prepare_vouching(model.vouches());
        Ok(search)
    }

    /// Builds the stages: reads-from (and locks) per location, then coherence per location.
    fn plan(&mut self) {
        // A combination with a run cut off by a loop can only be marked `Loop`, and herd7
        // marks it for any reads-from of its ordinary reads that its values allow, before
        // the model would forbid incoherent ones. One with a write at no location has no
        // execution either: herd7 stops on the write in any candidate its values allow,
        // incoherent ones included, and drops the others.
        if self.completes || self.escapes_by_write || self.paths.iter().any(|p| p.cutoff.is_some())
        {
            self.plan_for_completion();
            return;
        }
        let nlocs = self.program.locs.len();
        // The symmetry's location first, so that its cut comes first.
        let first = self.symmetry.map(|(_, l)| l.0 as usize);
        let order = first
            .into_iter()
            .chain((0..nlocs).filter(|&l| Some(l) != first));
        for l in order {
            let ev = &self.exec.events;
            let loc = Some(Loc(l as u32));
            let on_loc: Vec<usize> = (nlocs..ev.len()).filter(|&e| ev[e].loc == loc).collect();
            if on_loc.iter().any(|&e| ev[e].tags.is_lock()) {
                let plan = self.lock_plan(l, &on_loc);
                if Some(l) == first {
                    self.canon = Some(self.canon_at(plan.lkws.iter().map(|w| w.0)));
                }
                self.stages.push(Stage::Lock(plan));
                continue;
            }
            let reads: Vec<usize> = on_loc
                .iter()
                .copied()
                .filter(|&e| ev[e].kind == EventKind::Read)
                .collect();
            let writes: Vec<usize> = on_loc
                .iter()
                .copied()
                .filter(|&e| ev[e].kind == EventKind::Write)
                .collect();
            let choices: Vec<ReadChoice> = reads
                .iter()
                .map(|&r| {
                    // Own writes po-after the read, or overwritten in po by an own write
                    // po-before it, are never read (coherence); the initial write is
                    // not, once an own write comes po-before.
                    let po = &self.exec.po;
                    let own: Vec<usize> = writes
                        .iter()
                        .copied()
                        .filter(|&w| ev[w].thread == ev[r].thread && !po.contains(r, w))
                        .collect();
                    let before: Vec<usize> =
                        own.iter().copied().filter(|&w| po.contains(w, r)).collect();
                    let mut candidates: Vec<usize> = own
                        .iter()
                        .copied()
                        .filter(|&w| !before.iter().any(|&v| po.contains(w, v)))
                        .collect();
                    // A location next to a variable has no initial write.
                    if before.is_empty() && self.program.locs[l].next_to.is_none() {
                        candidates.insert(0, l);
                    }
                    candidates.extend(
                        writes
                            .iter()
                            .copied()
                            .filter(|&w| ev[w].thread != ev[r].thread),
                    );
                    ReadChoice {
                        read: r,
                        candidates,
                        rmw: self.exec.rmw.contains(r, r + 1)
                            && ev.get(r + 1).is_some_and(|w| w.loc == loc),
                    }
                })
                .collect();
            for c in &choices {
                self.rf_options[c.read] = Some(c.candidates.clone());
            }
            if !choices.is_empty() {
                self.stages.push(Stage::Rf(choices));
            }
            if writes.len() > 1 {
                if Some(l) == first {
                    self.canon = Some(self.canon_at(writes.iter().copied()));
                }
                let before = same_thread_before(&self.exec.po, &writes);
                self.stages.push(Stage::Co(CoPlan {
                    init: l,
                    writes,
                    before,
                }));
            } else if let Some(&w) = writes.first() {
                // One write: its coherence order is fixed.
                self.exec.co.add(l, w);
            }
        }
        self.first_co = self.stages.len();
    }

    /// The symmetry's cut at the next stage, whose writes of its location are `writes` in
    /// the order the stage places them by.
    fn canon_at(&self, writes: impl Iterator<Item = usize>) -> Canon {
        let orbit = self.symmetry.map_or(&[][..], |(s, _)| s.orbit());
        let mut canon = Canon {
            stage: self.stages.len(),
            of_cycle: 0,
            of_others: 0,
        };
        for (p, w) in writes.enumerate() {
            let t = self.exec.events[w].thread;
            if t.is_some_and(|t| orbit.contains(&t)) {
                canon.of_cycle |= 1 << p;
                if t != orbit.first().copied() {
                    canon.of_others |= 1 << p;
                }
            }
        }
        canon
    }

    /// Whether placing write `p` next at stage `i`, with the writes `placed` before it,
    /// makes an execution that is not the one built of its group of images: one whose
    /// first write of the symmetry's cycle is not by the cycle's first thread.
    pub(super) fn off_canon(&self, i: usize, placed: u64, p: usize) -> bool {
        self.canon
            .as_ref()
            .is_some_and(|c| c.stage == i && placed & c.of_cycle == 0 && c.of_others >> p & 1 == 1)
    }

    /// The stages herd7 itself goes through before a model file completes a candidate,
    /// and before it meets a write at no location (`Search::escapes_by_write`):
    /// reads-from for the ordinary reads of each location, from any write of it but those
    /// its own instruction makes after it (a read-modify-write's own write; herd7's
    /// `-optace iico`, its default with a model file), leaving what coherence allows to
    /// the model; under `-optace true`, from no write after it in program order at all;
    /// under `-optace false`, from any write but a C11 read-modify-write's own, herd7's
    /// one event (`OptAce`). Lock events are the model's.
    /// The lock reads, whose values herd7 does not track, read 0.
    fn plan_for_completion(&mut self) {
        let nlocs = self.program.locs.len();
        let ev = &self.exec.events;
        let optace = self.limits.optace;
        let lock = |e: &Event| e.tags.is_lock();
        for l in 0..nlocs {
            let loc = Some(Loc(l as u32));
            let on_loc: Vec<usize> = (nlocs..ev.len()).filter(|&e| ev[e].loc == loc).collect();
            let writes: Vec<usize> = on_loc
                .iter()
                .copied()
                .filter(|&e| ev[e].kind == EventKind::Write && !lock(&ev[e]))
                .collect();
            let mut choices = Vec::new();
            for &r in &on_loc {
                if ev[r].kind != EventKind::Read {
                    continue;
                }
                if lock(&ev[r]) {
                    self.known_reads.insert(r);
                    continue;
                }
                // A location next to a variable has no initial write.
                let mut candidates = if self.program.locs[l].next_to.is_none() {
                    vec![l]
                } else {
                    Vec::new()
                };
                candidates.extend(writes.iter().copied().filter(|&w| {
                    if !self.exec.po.contains(r, w) {
                        return true;
                    }
                    match optace {
                        // A C11 read-modify-write is one event to herd7, which never
                        // reads itself.
                        OptAce::False => {
                            !(self.exec.rmw.contains(r, w) && c11::is_single_event(ev[w].tags))
                        }
                        OptAce::True => false,
                        OptAce::Iico => !match (self.origin[r], self.origin[w]) {
                            (Some((t, i)), Some((u, j))) => {
                                t == u
                                    && self.paths[t].events[i].stmt == self.paths[t].events[j].stmt
                            }
                            _ => false,
                        },
                    }
                }));
                choices.push(ReadChoice {
                    read: r,
                    candidates,
                    rmw: false,
                });
            }
            if !choices.is_empty() {
                self.stages.push(Stage::Rf(choices));
            }
        }
        self.first_co = self.stages.len();
    }

    fn lock_plan(&self, l: usize, on_loc: &[usize]) -> LockPlan {
        let ev = &self.exec.events;
        let lkws: Vec<usize> = on_loc
            .iter()
            .copied()
            .filter(|&e| ev[e].has(Tag::Lkw))
            .collect();
        let triples = lkws
            .iter()
            .map(|&w| {
                // The LKR is the event just before its LKW; the matching unlock is the next
                // lock write or unlock of the thread, if it is an unlock.
                let next = on_loc.iter().copied().find(|&e| {
                    e > w
                        && ev[e].thread == ev[w].thread
                        && (ev[e].has(Tag::Lkw) || ev[e].has(Tag::Ul))
                });
                let ul = next.filter(|&e| ev[e].has(Tag::Ul));
                (w, w - 1, ul)
            })
            .collect::<Vec<_>>();
        let before = same_thread_before(&self.exec.po, &lkws);
        let in_critical = |r: usize| -> Option<usize> {
            // The LKW of this thread's critical section around `r`, if any.
            on_loc
                .iter()
                .copied()
                .filter(|&e| {
                    e < r
                        && ev[e].thread == ev[r].thread
                        && (ev[e].has(Tag::Lkw) || ev[e].has(Tag::Ul))
                })
                .max()
                .filter(|&e| ev[e].has(Tag::Lkw))
        };
        let mut reads = Vec::new();
        for &r in on_loc {
            let e = &ev[r];
            let candidates = if e.has(Tag::Lf) || e.has(Tag::Rl) {
                match in_critical(r) {
                    Some(w) => vec![w],
                    None => lkws
                        .iter()
                        .copied()
                        .filter(|&w| ev[w].thread != e.thread)
                        .collect(),
                }
            } else if e.has(Tag::Ru) {
                let mut c: Vec<usize> = on_loc
                    .iter()
                    .copied()
                    .filter(|&u| u < r && ev[u].thread == e.thread && ev[u].has(Tag::Ul))
                    .max()
                    .into_iter()
                    .collect();
                c.push(l);
                c.extend(
                    on_loc
                        .iter()
                        .copied()
                        .filter(|&u| ev[u].has(Tag::Ul) && ev[u].thread != e.thread),
                );
                c
            } else if e.kind == EventKind::Read && !e.has(Tag::Lkr) {
                // A plain read of a lock (herd7 flags it as mixed-lock-accesses): it reads
                // like any read.
                let mut c = vec![l];
                c.extend(
                    on_loc
                        .iter()
                        .copied()
                        .filter(|&w| ev[w].kind == EventKind::Write && ev[w].thread != e.thread),
                );
                c
            } else {
                continue;
            };
            reads.push(ReadChoice {
                read: r,
                candidates,
                rmw: false,
            });
        }
        LockPlan {
            init: l,
            lkws: triples,
            before,
            reads,
        }
    }
}

/// herd7's program order over the events of one path, as path-local sets of successors:
/// an event comes before every event of a later instruction, and before the events of its
/// own instruction that depend on it (by address, data, or the control inside an
/// instruction, transitively), as the read of an RMW comes before its write; two calls
/// nested in one statement are otherwise unordered.
fn program_order<W: Width>(p: &Path, base: usize) -> Vec<EventSet<W>> {
    let n = p.events.len();
    // Within each instruction, the events each event must follow.
    let mut before = vec![EventSet::<W>::EMPTY; n];
    for i in 0..n {
        let e = &p.events[i];
        let needs = e.addr_dep | e.data_dep | e.inner;
        for j in (0..i).rev() {
            let f = &p.events[j];
            if f.stmt != e.stmt {
                break;
            }
            let feeds = f.read.is_some_and(|k| needs >> k & 1 == 1);
            if feeds || (e.rmw_with_prev && j + 1 == i) {
                before[i].insert(j);
                before[i] = before[i].clone() | before[j].clone();
            }
        }
    }
    (0..n)
        .map(|j| {
            let mut after = EventSet::EMPTY;
            for (i, b) in before.iter().enumerate().skip(j + 1) {
                if p.events[i].stmt != p.events[j].stmt || b.contains(j) {
                    after.insert(base + i);
                }
            }
            after
        })
        .collect()
}

/// For each write (by position), the positions of the writes po-before it.
fn same_thread_before<W: Width>(po: &Relation<W>, writes: &[usize]) -> Vec<u64> {
    writes
        .iter()
        .map(|&w| {
            writes
                .iter()
                .enumerate()
                .filter(|&(_, &v)| po.contains(v, w))
                .fold(0u64, |m, (p, _)| m | 1 << p)
        })
        .collect()
}

/// Where each of a run of lists of `lens` starts when they are laid end to end, and their
/// total length.
fn offsets(lens: impl Iterator<Item = usize>) -> (Vec<usize>, usize) {
    let mut total = 0;
    let starts = lens
        .map(|len| {
            let start = total;
            total += len;
            start
        })
        .collect();
    (starts, total)
}
