//! The enumeration's entry points, and the driver that runs one search per combination of
//! thread paths.
//!
//! [`enumerate`] and its variants prepare the paths of each thread (the first half of
//! herd7's semantics, with the errors that stop a test before any candidate is built),
//! walk the combinations of those paths in order, search each at the narrowest width that
//! holds its events, add up the counts, and end with the enumeration's own soundness
//! check (`check_something_allowed`).
//! The shared-out search of the `split` module drives the same pieces from several
//! threads.

use super::plan::StageCounts;
use super::{Allowed, Flow, Herd7Stop, Limits, RunError, Search, Searched, Setup, Stats, Stop};
use crate::engine::paths::{self, Path, Wide};
use crate::engine::symmetry::Symmetry;
use crate::engine::{nowhere, unsolved};
use crate::exec::event::{EventKind, Loc, Tag, Value};
use crate::exec::relation::{Growable, Width, Words};
use crate::front::c11::{self, Dialect};
use crate::front::program::{Op, Program, Prop, ThreadCode};
use crate::models::model::{JudgeAt, MemoryModel};
use crate::models::optace::OptAce;
use std::time::Instant;

/// Enumerates the executions of `program` that `model` allows, calling `visit` on each.
///
/// With a `goal`, subtrees whose known registers already falsify it are cut, like those
/// the filter discards: the caller then sees only executions that may satisfy it (which is
/// how `--speedcheck` decides a condition without enumerating what cannot decide it).
///
/// Returns the counts, and the reason it stopped early if it did.
///
/// # Complexity
/// Exponential in the test, as any exhaustive enumeration: the product over threads of
/// their paths, times the product over reads of the writes each may read, times the
/// product over locations of the orders of their writes; pruning by a monotone model cuts
/// most of it on forbidden shapes.
pub fn enumerate(
    program: &Program,
    model: &dyn MemoryModel,
    limits: &Limits,
    goal: Option<&Prop>,
    visit: &mut dyn FnMut(&Allowed<'_>) -> Flow,
) -> Result<(Stats, Option<Stop>), RunError> {
    enumerate_with(program, model, limits, goal, None, visit)
}

/// Enumerates as [`enumerate`] does, building only one execution of each group of images
/// under `symmetry` (an automorphism of `program`, see [`crate::engine::symmetry`]) and reporting
/// it once per image: [`Allowed::value`] then reads the image's final state, and
/// [`Allowed::execution`] is `None` for an image.
///
/// The symmetry is not used (every execution is built) with a goal, a limit on
/// candidates, a model that completes candidates itself, a path cut off by a loop or one
/// that reaches an address that is no location, or when a thread of its cycle has a way
/// to run with no write to each location the symmetry leaves in place.
pub fn enumerate_with(
    program: &Program,
    model: &dyn MemoryModel,
    limits: &Limits,
    goal: Option<&Prop>,
    symmetry: Option<&Symmetry>,
    visit: &mut dyn FnMut(&Allowed<'_>) -> Flow,
) -> Result<(Stats, Option<Stop>), RunError> {
    let prepared = prepare(program, model, limits, goal, symmetry)?;
    match sequential(program, model, limits, goal, &prepared, None, visit)? {
        Sequential::Done(stats, stop) => Ok((*stats, stop)),
        Sequential::OverBudget => unreachable!("no budget was set"),
    }
}

/// What a test's enumeration starts from: the paths of each thread, and what they allow.
pub(super) struct Prepared<'p> {
    pub(super) per_thread: Vec<Vec<Path>>,
    /// Paths left out because they break a lock axiom on their own.
    broken: u64,
    /// The code of the first thread with paths that herd7's names of fresh values were not
    /// given to ([`crate::engine::symbol::name`]).
    unnamed: Option<(usize, usize)>,
    /// Whether nothing about the search makes it need every candidate in order: no goal, no
    /// limit on candidates, no model that completes candidates, no run cut off by a loop
    /// and no escaping address (so its symmetry may be used, and it may be split).
    pub(super) usable: bool,
    /// The program's symmetry, when usable, and the location its cut is made at.
    pub(super) symmetry: Option<(&'p Symmetry, Loc)>,
}

/// The paths of each thread of `program`, or the error that stops the test before any
/// candidate is built.
pub(super) fn prepare<'p>(
    program: &Program,
    model: &dyn MemoryModel,
    limits: &Limits,
    goal: Option<&Prop>,
    symmetry: Option<&'p Symmetry>,
) -> Result<Prepared<'p>, RunError> {
    let pointees = paths::pointees(program);
    let adjacent = paths::adjacent(program);
    let build = |t: &ThreadCode, wide: &Wide| {
        paths::thread_paths(t, &pointees, &adjacent, &program.addr_order, wide).map_err(|e| {
            RunError {
                message: e.message,
                span: e.span,
                herd7: None,
            }
        })
    };
    let none = Wide::default();
    let mut per_thread = Vec::with_capacity(program.threads.len());
    for t in &program.threads {
        per_thread.push(build(t, &none)?);
    }
    // An access whose address may be unsolved is tried at every location, as herd7 pairs
    // it with every write; the reads it adds may close new cycles, so to a fixpoint.
    let self_reads = limits.optace == OptAce::False
        && (model.completes() || per_thread.iter().flatten().any(|p| p.cutoff.is_some()));
    let mut wide = vec![none; program.threads.len()];
    loop {
        let mut changed = false;
        for (t, found) in unsolved::widen(program, &per_thread, self_reads)
            .into_iter()
            .enumerate()
        {
            if found.stmts.is_subset(&wide[t].stmts) {
                continue;
            }
            wide[t].stmts.extend(found.stmts);
            wide[t].targets = found.targets;
            per_thread[t] = build(&program.threads[t], &wide[t])?;
            changed = true;
        }
        if !changed {
            break;
        }
    }
    if let Some(e) = unwritten_adjacent_read(program, &per_thread) {
        return Err(e);
    }
    // A read at an address known without reading memory that is no location: herd7 stops
    // the test if some combination of paths has no write it may pair the read with, or if
    // the read's own path writes there after it ([`nowhere`]); otherwise the search drops
    // the candidates with the read. One next to a location stops it at once.
    let constant = |p: &Path| {
        let e = p.escapes().find(|e| e.always)?;
        Some((e, p.constant(e.sym)?))
    };
    if let Some((e, v)) = per_thread
        .iter()
        .flatten()
        .filter_map(constant)
        .find(|(_, v)| !matches!(v, Value::Int(_)))
    {
        return Err(RunError {
            message: paths::not_a_location(program, v),
            span: e.source,
            herd7: paths::not_a_location_herd7(v).map(|w| Herd7Stop::User(w.into())),
        });
    }
    if per_thread.iter().flatten().any(|p| constant(p).is_some()) {
        let mut shapes = Vec::with_capacity(program.threads.len());
        for t in &program.threads {
            shapes.push(
                paths::thread_shapes(t, &adjacent, &program.addr_order).map_err(|e| RunError {
                    message: e.message,
                    span: e.span,
                    herd7: None,
                })?,
            );
        }
        if let Some(u) = nowhere::unpaired(&shapes, limits.optace) {
            let v = Value::Int(u.value);
            return Err(if u.own {
                RunError {
                    message: paths::not_a_location(program, v),
                    span: u.source,
                    herd7: paths::not_a_location_herd7(v).map(|w| Herd7Stop::User(w.into())),
                }
            } else {
                RunError {
                    message: nowhere::unpaired_message(u.value),
                    span: u.source,
                    herd7: Some(Herd7Stop::Fatal(nowhere::unpaired_herd7(u.value).into())),
                }
            });
        }
    }
    // A path that breaks a lock axiom on its own matters only to a run cut off by a loop,
    // which herd7 marks whatever the model says, to a model that completes candidates
    // itself and so checks the axioms itself, and to a write at no location, which herd7
    // stops on before its model judges the candidate.
    let keep_broken = model.completes()
        || per_thread
            .iter()
            .flatten()
            .any(|p| p.cutoff.is_some() || p.writes_nowhere());
    let mut broken = 0;
    if !keep_broken {
        for ps in &mut per_thread {
            let before = ps.len();
            ps.retain(|p| !p.breaks_lock_axiom);
            broken += (before - ps.len()) as u64;
        }
    }
    let unnamed = crate::engine::symbol::name(program, &mut per_thread);
    let usable = goal.is_none()
        && limits.max_executions.is_none()
        && !model.completes()
        && per_thread
            .iter()
            .flatten()
            .all(|p| p.cutoff.is_none() && p.escape.is_none());
    let symmetry = symmetry
        .filter(|_| usable)
        .and_then(|s| Some((s, first_write(program, s, &per_thread)?)));
    Ok(Prepared {
        per_thread,
        broken,
        unnamed,
        usable,
        symmetry,
    })
}

/// How a sequential enumeration ended.
pub(super) enum Sequential {
    /// With its counts (boxed: they are most of its size), and why it stopped early if it
    /// did.
    Done(Box<Stats>, Option<Stop>),
    /// It took more steps than its budget allowed.
    OverBudget,
}

impl Prepared<'_> {
    /// The counts of a test before any combination is searched.
    pub(super) fn stats(&self) -> Stats {
        let mut stats = Stats {
            unnamed_at: self.unnamed,
            ..Stats::default()
        };
        stats.removed.deadlock += self.broken;
        stats
    }
}

/// The combinations of thread paths of a test, in order.
pub(super) struct Combinations<'p> {
    per_thread: &'p [Vec<Path>],
    /// The next combination's path of each thread; `None` past the last.
    choice: Option<Vec<usize>>,
    completes: bool,
    deadline: Option<Instant>,
}

impl<'p> Combinations<'p> {
    pub(super) fn new(
        model: &dyn MemoryModel,
        limits: &Limits,
        per_thread: &'p [Vec<Path>],
    ) -> Self {
        // A thread with no way through (every way deadlocks on a lock it holds) leaves none.
        let choice =
            Some(vec![0; per_thread.len()]).filter(|_| per_thread.iter().all(|p| !p.is_empty()));
        Combinations {
            per_thread,
            choice,
            completes: model.completes(),
            deadline: limits.deadline,
        }
    }

    /// The next combination to search, counting each met in `stats`, and as a deadlock
    /// each whose paths break a lock axiom together (unless a run is cut off by a loop, a
    /// path writes at no location, or the model checks the axioms itself); a timeout once
    /// the deadline has passed.
    pub(super) fn next(&mut self, stats: &mut Stats) -> Option<Result<Vec<&'p Path>, Stop>> {
        loop {
            let c = self.choice.as_mut()?;
            if self.deadline.is_some_and(|d| Instant::now() >= d) {
                return Some(Err(Stop::Limit("timeout".into())));
            }
            stats.path_combinations += 1;
            let combo: Vec<&Path> = c
                .iter()
                .zip(self.per_thread)
                .map(|(&i, ps)| &ps[i])
                .collect();
            if !next_combination(c, self.per_thread) {
                self.choice = None;
            }
            if !self.completes
                && combo.iter().any(|p| p.breaks_lock_axiom)
                && combo
                    .iter()
                    .all(|p| p.cutoff.is_none() && !p.writes_nowhere())
            {
                stats.removed.deadlock += 1;
                continue;
            }
            return Some(Ok(combo));
        }
    }
}

/// Enumerates every combination of thread paths in order, on this thread, within `budget`
/// steps of the search if one is given.
pub(super) fn sequential(
    program: &Program,
    model: &dyn MemoryModel,
    limits: &Limits,
    goal: Option<&Prop>,
    prepared: &Prepared<'_>,
    budget: Option<u64>,
    visit: &mut dyn FnMut(&Allowed<'_>) -> Flow,
) -> Result<Sequential, RunError> {
    let per_thread = &prepared.per_thread;
    let mut stats = prepared.stats();
    let mut left = budget.unwrap_or(u64::MAX);
    let mut combinations = Combinations::new(model, limits, per_thread);
    let learned = std::cell::Cell::new(Vec::new());
    while let Some(next) = combinations.next(&mut stats) {
        let combo = match next {
            Ok(combo) => combo,
            Err(timeout) => return Ok(Sequential::Done(Box::new(stats), Some(timeout))),
        };
        let setup = Setup {
            symmetry: prepared.symmetry,
            budget: left,
            claim: None,
            learned: Some(&learned),
        };
        let searched = search_at_width(program, model, limits, goal, &setup, combo, visit)?;
        if searched.over_budget {
            return Ok(Sequential::OverBudget);
        }
        left -= searched.steps.min(left);
        stats.add(&searched.stats);
        if let Some(e) = searched.failure {
            return Err(e);
        }
        if searched.stop.is_some() {
            return Ok(Sequential::Done(Box::new(stats), searched.stop));
        }
        if let Some(max) = limits.max_executions
            && stats.candidates >= max
        {
            return Ok(Sequential::Done(
                Box::new(stats),
                Some(Stop::Limit(format!("{max} executions"))),
            ));
        }
    }
    check_something_allowed(program, model, goal, per_thread, &stats)?;
    Ok(Sequential::Done(Box::new(stats), None))
}

/// Searches one combination of thread paths at the narrowest width that holds its events
/// (and at least the one `limits` asks for).
pub(super) fn search_at_width<'a>(
    program: &'a Program,
    model: &'a dyn MemoryModel,
    limits: &'a Limits,
    goal: Option<&'a Prop>,
    setup: &Setup<'a>,
    combo: Vec<&'a Path>,
    visit: &mut dyn FnMut(&Allowed<'_>) -> Flow,
) -> Result<Searched, RunError> {
    match width(program, &combo).max(limits.min_width) {
        0 | 1 => search::<Words<1>>(program, model, model, limits, goal, setup, combo, visit),
        2 => search::<Words<2>>(program, model, model, limits, goal, setup, combo, visit),
        3 | 4 => search::<Words<4>>(program, model, model, limits, goal, setup, combo, visit),
        5..=8 => search::<Words<8>>(program, model, model, limits, goal, setup, combo, visit),
        _ => search::<Growable>(program, model, model, limits, goal, setup, combo, visit),
    }
}

/// The location whose coherence order picks the one execution built of each group of
/// images under `symmetry`: the first one it leaves in place that every thread of its
/// cycle writes on every way it runs (takes, for a location some path locks), if any.
fn first_write(program: &Program, symmetry: &Symmetry, per_thread: &[Vec<Path>]) -> Option<Loc> {
    (0..program.locs.len() as u32).map(Loc).find(|&l| {
        let lock = per_thread
            .iter()
            .flatten()
            .flat_map(|p| &p.events)
            .any(|e| e.loc == Some(l) && e.tags.is_lock());
        symmetry.fixes(l)
            && symmetry.orbit().iter().all(|&t| {
                per_thread[t].iter().all(|p| {
                    p.events.iter().any(|e| {
                        e.loc == Some(l)
                            && e.kind == EventKind::Write
                            && (!lock || e.tags.has(Tag::Lkw))
                    })
                })
            })
    })
}

/// The narrowest width of [`crate::exec::relation::WIDTHS`] that holds the events of one
/// combination of thread paths; past the widest, a larger number: the growable width.
fn width(program: &Program, paths: &[&Path]) -> usize {
    let total = program.locs.len() + paths.iter().map(|p| p.events.len()).sum::<usize>();
    crate::exec::relation::width_for(total).unwrap_or(usize::MAX)
}

/// Searches the candidates of one combination of thread paths at width `W`.
/// (`judge` is `model` at width `W`.)
#[allow(clippy::too_many_arguments)]
fn search<'a, W: Width>(
    program: &'a Program,
    model: &'a dyn MemoryModel,
    judge: &'a dyn JudgeAt<W>,
    limits: &'a Limits,
    goal: Option<&'a Prop>,
    setup: &Setup<'a>,
    combo: Vec<&'a Path>,
    visit: &mut dyn FnMut(&Allowed<'_>) -> Flow,
) -> Result<Searched, RunError> {
    let mut search = Search::<W>::new(program, model, judge, limits, goal, setup.symmetry, combo)?;
    search.budget = setup.budget;
    if let Some(claim) = setup.claim {
        search.claim = Some(claim);
        search.choose_split(visit);
    }
    if let Some(learned) = setup.learned {
        let mut counts = learned.take();
        if counts.len() < search.at_stage.len() {
            counts.resize(search.at_stage.len(), StageCounts::default());
        }
        search.at_stage = counts;
    }
    let stop = search.run(visit);
    if let Some(learned) = setup.learned {
        learned.set(std::mem::take(&mut search.at_stage));
    }
    Ok(Searched {
        stats: search.stats,
        failure: search.failure.take(),
        stop,
        steps: search.steps,
        over_budget: search.over_budget,
        halted: search.halted,
    })
}

/// Moves `choice` to the next combination of paths, odometer style; `false` after the
/// last.
fn next_combination(choice: &mut [usize], per_thread: &[Vec<Path>]) -> bool {
    for t in 0..choice.len() {
        choice[t] += 1;
        if choice[t] < per_thread[t].len() {
            return true;
        }
        choice[t] = 0;
    }
    false
}

/// The enumeration's own soundness check: a program with no `filter` and no lock, under a
/// model that allows every sequentially consistent execution, has at least one allowed
/// execution (run its threads one after the other), so an enumeration that finds none has
/// lost executions, and says so instead of answering `Never`.
///
/// The exceptions are the model's and herd7's own: a thread that waits for a grace period
/// inside its own RCU or SRCU read-side critical section deadlocks every run (the LKMM's
/// rcu axiom forbids them all), a C11 read-modify-write leaves the kernel's model no
/// execution to allow (herd7's single event is from-read before itself), and herd7 answers
/// a program whose reads all go through addresses that are no location with no execution;
/// and a read of a location next to a variable, which has no initial write, may have no
/// write it can read; a read-modify-write at no location that reads its own write leaves
/// a value no operator solves ([`crate::engine::paths::Escape::free`]).
pub(super) fn check_something_allowed(
    program: &Program,
    model: &dyn MemoryModel,
    goal: Option<&Prop>,
    per_thread: &[Vec<Path>],
    stats: &Stats,
) -> Result<(), RunError> {
    if stats.allowed > 0
        || stats.removed.nowhere > 0
        || stats.removed.cutoff > 0
        || goal.is_some()
        || program.filter.is_some()
        || !model.includes_sc()
    {
        return Ok(());
    }
    fn locks(code: &[crate::front::program::Instr]) -> bool {
        code.iter().any(|i| match &i.op {
            Op::Lock { .. } | Op::Trylock { .. } => true,
            Op::If { then, els, .. } => locks(then) || locks(els),
            _ => false,
        })
    }
    if program.threads.iter().any(|t| locks(&t.code))
        || program.locs.iter().any(|l| l.next_to.is_some())
        || per_thread.iter().flatten().any(waits_inside_its_own_reader)
        || per_thread
            .iter()
            .flatten()
            .any(|p| p.escapes().any(|e| e.free))
        || (model.dialect() == Dialect::Kernel
            && per_thread
                .iter()
                .flatten()
                .any(|p| p.events.iter().any(|e| c11::is_single_event(e.tags))))
    {
        return Ok(());
    }
    Err(RunError {
        message: format!(
            "internal error: no execution of this test is allowed, yet it has no filter and \
             no lock, so at least its sequential runs should be ({} candidates: {} forbidden \
             by the model; removed for branches {}, compare-and-exchanges {}, addresses {}, \
             unsolvable values {}); please report this test",
            stats.candidates,
            stats.removed.model,
            stats.removed.branch,
            stats.removed.rmw,
            stats.removed.address,
            stats.removed.unsolvable,
        ),
        span: (0, 0),
        herd7: None,
    })
}

/// The error herd7 stops a test with when one of its runs reads a location next to a
/// variable (`y+1`, which has no initial write) and writes it nowhere but in the reading
/// instruction: herd7 finds the read no write to read ("mixed-size test rejected").
///
/// herd7 looks for a write for each read in every combination of the threads' paths
/// before it solves any value, so a combination no execution takes counts too: the read's
/// own path has no write of the location from another instruction, and each other thread
/// has a path with no write of it.
fn unwritten_adjacent_read(program: &Program, per_thread: &[Vec<Path>]) -> Option<RunError> {
    let writes = |p: &Path, loc: Option<Loc>, but: Option<u32>| {
        p.events
            .iter()
            .any(|e| e.kind == EventKind::Write && e.loc == loc && Some(e.stmt) != but)
    };
    for (t, paths) in per_thread.iter().enumerate() {
        for p in paths {
            for r in p.events.iter().filter(|e| e.kind == EventKind::Read) {
                let Some(l) = r.loc else { continue };
                let decl = &program.locs[l.0 as usize];
                let Some((base, _)) = decl.next_to else {
                    continue;
                };
                if writes(p, r.loc, Some(r.stmt)) {
                    continue;
                }
                let others_may_not = per_thread
                    .iter()
                    .enumerate()
                    .filter(|&(u, _)| u != t)
                    .all(|(_, ps)| ps.iter().any(|q| !writes(q, r.loc, None)));
                if others_may_not {
                    return Some(RunError {
                        message: format!(
                            "this read of `{0}`, herd7's location next to `{1}`, has no write \
                             to read in some run of the test (the location has no initial \
                             write): herd7 rejects the test (\"mixed-size test rejected \
                             (symbol [{0}])\")",
                            decl.name, program.locs[base.0 as usize].name
                        ),
                        span: r.source,
                        herd7: None,
                    });
                }
            }
        }
    }
    None
}

/// Whether the path waits for a grace period inside one of its own read-side critical
/// sections: `synchronize_rcu()` after an `rcu_read_lock()` not yet unlocked, or
/// `synchronize_srcu(s)` after an `srcu_read_lock(s)` of the same structure.
fn waits_inside_its_own_reader(path: &Path) -> bool {
    let mut rcu = 0i32;
    let mut srcu: Vec<(Option<Loc>, i32)> = Vec::new();
    for e in &path.events {
        if e.tags.has(Tag::RcuLock) {
            rcu += 1;
        } else if e.tags.has(Tag::RcuUnlock) {
            rcu -= 1;
        } else if e.tags.has(Tag::SyncRcu) && rcu > 0 {
            return true;
        } else if e.tags.has(Tag::SrcuLock) || e.tags.has(Tag::SrcuUnlock) {
            let step = if e.tags.has(Tag::SrcuLock) { 1 } else { -1 };
            match srcu.iter_mut().find(|(l, _)| *l == e.loc) {
                Some((_, depth)) => *depth += step,
                None => srcu.push((e.loc, step)),
            }
        } else if e.tags.has(Tag::SyncSrcu)
            && srcu.iter().any(|&(l, depth)| l == e.loc && depth > 0)
        {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(source: &str) -> Program {
        crate::front::lower::lower(&hazmat_litmus::parse(source).expect("parses")).expect("lowers")
    }

    #[test]
    fn finding_no_execution_without_a_filter_or_a_lock_is_an_internal_error() {
        let lkmm = crate::models::lkmm::Lkmm;
        let plain = program("C t\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nexists (x=1)\n");
        let none = Stats::default();
        let e =
            check_something_allowed(&plain, &lkmm, None, &[], &none).expect_err("nothing allowed");
        assert!(e.message.starts_with("internal error: "), "{}", e.message);
        let one = Stats {
            allowed: 1,
            ..Stats::default()
        };
        assert!(check_something_allowed(&plain, &lkmm, None, &[], &one).is_ok());
        // A goal (`--speedcheck`), a filter, a lock, or reads that go nowhere may leave
        // nothing.
        assert!(check_something_allowed(&plain, &lkmm, Some(&Prop::False), &[], &none).is_ok());
        let filtered =
            program("C t\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nfilter (x=2)\nexists (x=1)\n");
        assert!(check_something_allowed(&filtered, &lkmm, None, &[], &none).is_ok());
        let locked =
            program("C t\n{}\nP0(spinlock_t *l) { if (1) { spin_lock(l); } }\nexists (true)\n");
        assert!(check_something_allowed(&locked, &lkmm, None, &[], &none).is_ok());
        let mut nowhere = Stats::default();
        nowhere.removed.nowhere = 1;
        assert!(check_something_allowed(&plain, &lkmm, None, &[], &nowhere).is_ok());
    }
}
