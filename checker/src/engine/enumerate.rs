//! Enumeration: every candidate execution of a program, judged by a memory model.
//!
//! The second half of herd7's semantics.
//! For each combination of thread paths (the `paths` module) the enumeration builds the
//! events and the relations the paths fix (po, rmw, addr, data, ctrl) once, then searches
//! the choices that remain, location by location:
//!
//! 1. reads-from: each read of the location picks a write of it; for spinlocks, `lock.cat`'s
//!    rules fix the coherence order of lock writes, the unlock events' place in it, and the
//!    writes lock reads read from;
//! 2. coherence: the location's writes in every total order, initial write first (the
//!    order does not depend on values, so a location's coherence is complete, and its
//!    coherence axioms checkable, as soon as its own reads and writes are placed);
//! 3. values, once every location is done: the symbols of the paths are solved; a
//!    combination whose branch, compare-and-exchange or address assumptions fail, or
//!    depend on values that depend on themselves, is not a candidate; a value that
//!    depends only on itself (a cycle through rf and data, out of thin air) stays an
//!    unsolved symbol ([`Value::Sym`]), as herd7 keeps it.
//!    Assumptions and the filter are also checked as soon as the values they read are
//!    known, after each read's choice.
//!
//! After each location (its reads-from and coherence both placed), a model that declares
//! itself [monotone](MemoryModel::monotone) judges the partial execution: a partial execution it rejects has no allowed completion,
//! so the whole subtree is cut.
//! Such a judgement costs as much as one of a complete candidate, so each search keeps,
//! per stage, how often it cuts and how many judgements lie below what it lets through,
//! and stops judging at a stage where a cut saves less than the judgement costs (sampling
//! one partial execution in sixteen there to follow a change). Leaving one out changes no
//! answer: the judgement of each complete candidate rejects what it would have cut.
//!
//! Choices no model could accept are never generated, and the rules are documented here
//! because every native model must agree with them (each includes SC per location and
//! atomicity):
//! a read never reads from a write of its own thread that comes after it in program order
//! or that a later write of its thread to the same location overwrites before the read;
//! coherence never orders two writes of one thread against program order; and the write of
//! a read-modify-write comes right after the write its read reads from.
//!
//! Two kinds of combinations are searched as herd7 searches them instead, with none of
//! these rules: those of a model that [completes](MemoryModel::completes) candidates
//! itself (a model file, which gets reads-from for ordinary reads only and the final write
//! of each observed location, and chooses the coherence order and the lock reads'
//! sources itself), and those with a run cut off by a loop's unrolling (which herd7 marks
//! `Loop` for any reads-from its values allow, before its model judges it).
//!
//! The enumeration does no I/O; it reports each allowed execution to a callback.

use crate::engine::paths::{self, Assumption, Node, Path, truth};
use crate::engine::symmetry::Symmetry;
use crate::exec::event::{Event, EventKind, Loc, Tag, Tags, Value};
use crate::exec::execution::Execution;
use crate::exec::relation::{EventSet, Growable, Relation, Width, Words, as_width};
use crate::front::program::{
    Applied, Cell, Op, Operand, Program, Prop, Term, herd_binary, herd_unary,
};
use crate::models::model::{JudgeAt, Judgement, MemoryModel};
use std::time::Instant;

mod may;
mod split;

pub use split::enumerate_split;

/// Bounds on one enumeration.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// Stop after judging this many complete candidates.
    pub max_executions: Option<u64>,
    /// Stop at this instant.
    pub deadline: Option<Instant>,
    /// The narrowest width, in words of 128 events, the search may use (rounded up to one
    /// of [`crate::exec::relation::WIDTHS`]; past the widest, the growable width); by default the
    /// narrowest that holds each combination's events. Tests set it to hold the wide
    /// engines to the narrow one on small tests.
    pub min_width: usize,
    /// Whether [`enumerate_split`] shares a search out among the threads of the current
    /// rayon pool: the same states, counts of allowed executions, flags and errors, in
    /// less time on a machine with idle cores.
    pub split: Split,
}

/// When [`enumerate_split`] shares a search out among threads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Split {
    /// Never: the whole search runs on the calling thread.
    #[default]
    Never,
    /// When it is still running after a short probe on one thread.
    Large,
    /// Always, where the search allows it; tests use it to split small programs.
    Always,
}

/// Counts of one enumeration, for benchmarks and `--json`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Combinations of thread paths.
    pub path_combinations: u64,
    /// Complete candidate executions judged by the model.
    pub candidates: u64,
    /// Partial executions cut by a monotone model's check (each stands for one or more
    /// candidates never built).
    pub pruned: u64,
    /// Executions the model allowed, with the images counted for each one built under the
    /// program's symmetry.
    pub allowed: u64,
    /// Of [`Stats::allowed`], the executions counted as images of one built, under the
    /// program's symmetry ([`crate::engine::symmetry`]), and never built themselves.
    pub images: u64,
    /// The nodes a search shared out among threads was split into, and searched (0 when
    /// it ran on one thread; see [`enumerate_split`]).
    pub nodes: u64,
    /// Why the candidates and partial executions that did not reach the final state left
    /// the enumeration.
    pub removed: Removed,
}

impl Stats {
    /// Adds the counts of another enumeration, or of one combination of thread paths.
    pub(crate) fn add(&mut self, other: &Stats) {
        self.path_combinations += other.path_combinations;
        self.candidates += other.candidates;
        self.pruned += other.pruned;
        self.allowed += other.allowed;
        self.images += other.images;
        self.nodes += other.nodes;
        self.removed.add(&other.removed);
    }
}

/// The reasons a candidate leaves the enumeration, each with the number of times it did:
/// the only reasons there are (see the module's documentation).
///
/// A count is of the places the search was cut, complete candidates and partial
/// executions alike, so one cut may stand for many candidates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Removed {
    /// Complete candidates the model forbids (partial ones are [`Stats::pruned`]).
    pub model: u64,
    /// Coherence orders the model's atomicity axiom forbids, never built.
    pub atomicity: u64,
    /// Candidates the `filter` clause discards.
    pub filter: u64,
    /// Candidates whose values take the other way through an `if`.
    pub branch: u64,
    /// Candidates whose values make a compare-and-exchange (or `atomic_add_unless`)
    /// succeed where the path assumes it fails, or the converse.
    pub rmw: u64,
    /// Candidates whose computed address denotes another location than the path assumes.
    pub address: u64,
    /// Lock orders in which two critical sections never end (`lock.cat`'s
    /// unmatched-locks), and paths and combinations of them in which a thread takes a lock
    /// it holds or sees it unlocked (`lock-nest`, `nested-is-locked`).
    pub deadlock: u64,
    /// Candidates with a value herd7 cannot solve: an operator applied to a value that
    /// depends only on itself (an out-of-thin-air cycle through arithmetic).
    pub unsolvable: u64,
    /// Candidates that read at a computed address that is no location (an integer, or a
    /// cell beside a variable): herd7 finds no write for such a read.
    pub nowhere: u64,
    /// Candidates that go round a `while` loop more often than herd7 unrolls it: herd7
    /// cuts them off, and the result line says `Loop`.
    pub cutoff: u64,
    /// Candidates cut because they cannot decide the condition (`--speedcheck`).
    pub speedcheck: u64,
}

impl Removed {
    fn add(&mut self, other: &Removed) {
        self.model += other.model;
        self.atomicity += other.atomicity;
        self.filter += other.filter;
        self.branch += other.branch;
        self.rmw += other.rmw;
        self.address += other.address;
        self.deadlock += other.deadlock;
        self.unsolvable += other.unsolvable;
        self.nowhere += other.nowhere;
        self.cutoff += other.cutoff;
        self.speedcheck += other.speedcheck;
    }

    fn count(&mut self, why: Why) {
        let n = match why {
            Why::Assumption(Assumption::Branch) => &mut self.branch,
            Why::Assumption(Assumption::Rmw) => &mut self.rmw,
            Why::Assumption(Assumption::Address) => &mut self.address,
            Why::Filter => &mut self.filter,
            Why::Goal => &mut self.speedcheck,
            Why::Unsolvable => &mut self.unsolvable,
            Why::Nowhere => &mut self.nowhere,
            Why::Cutoff => &mut self.cutoff,
        };
        *n += 1;
    }
}

/// Why values remove a candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Why {
    Assumption(Assumption),
    Filter,
    Goal,
    Unsolvable,
    Nowhere,
    Cutoff,
}

/// Why an enumeration stopped before the end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The callback asked to stop.
    Done,
    /// A limit was reached; the text names it.
    Limit(String),
}

/// An error in the program that only running it reveals.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct RunError {
    /// What is wrong.
    pub message: String,
    /// The byte range of the source at fault.
    pub span: (usize, usize),
}

/// What the callback sees of one allowed execution.
pub struct Allowed<'a> {
    /// The execution, when it has at most 128 events: the width explanations, traces and
    /// drawings take.
    execution: Option<&'a Execution>,
    /// The model's judgement (flags).
    pub judgement: &'a Judgement,
    search: &'a dyn FinalValue,
    /// For an image `g^j·e` of the execution built, the symmetry and `j`.
    image: Option<(&'a Symmetry, usize)>,
}

impl Allowed<'_> {
    /// The final value of a cell: a register's last value, or the value of the last write
    /// in coherence order to a location.
    pub fn value(&self, cell: Cell) -> Value {
        match self.image {
            // The symmetry's programs hold integers only, which renaming leaves as they are.
            Some((s, j)) => self.search.final_value(s.preimage(cell, j)),
            None => self.search.final_value(cell),
        }
    }

    /// Whether this execution stands for an image of the one built, under the program's
    /// symmetry, rather than for the one built itself.
    pub fn is_image(&self) -> bool {
        self.image.is_some_and(|(_, j)| j > 0)
    }

    /// The execution, unless it has more than 128 events (the width explanations, traces
    /// and drawings take) or is an image of the one built under the program's symmetry.
    pub fn execution(&self) -> Option<&Execution> {
        self.execution.filter(|_| !self.is_image())
    }

    /// How threads use a location in this execution: the number of writes to it by
    /// threads, and whether a read reads one of them.
    pub(crate) fn traffic(&self, loc: Loc) -> (usize, bool) {
        match self.image.map(|(s, j)| s.preimage(Cell::Loc(loc), j)) {
            Some(Cell::Loc(l)) => self.search.traffic(l),
            _ => self.search.traffic(loc),
        }
    }
}

/// The final values of a search of any width.
trait FinalValue {
    fn final_value(&self, cell: Cell) -> Value;
    fn traffic(&self, loc: Loc) -> (usize, bool);
}

impl<W: Width> FinalValue for Search<'_, W> {
    fn final_value(&self, cell: Cell) -> Value {
        Search::final_value(self, cell)
    }

    fn traffic(&self, loc: Loc) -> (usize, bool) {
        let x = &self.exec;
        let writes = (0..x.len()).filter(|&w| {
            x.events[w].is_write() && x.events[w].thread.is_some() && x.events[w].loc == Some(loc)
        });
        let mut n = 0;
        let mut read = false;
        for w in writes {
            n += 1;
            read |= !x.rf.successors(w).is_empty();
        }
        (n, read)
    }
}

/// Whether the callback wants more executions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Keep going.
    Continue,
    /// Stop the enumeration.
    Stop,
}

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
        Sequential::Done(stats, stop) => Ok((stats, stop)),
        Sequential::OverBudget => unreachable!("no budget was set"),
    }
}

/// What a test's enumeration starts from: the paths of each thread, and what they allow.
struct Prepared<'p> {
    per_thread: Vec<Vec<Path>>,
    /// Paths left out because they break a lock axiom on their own.
    broken: u64,
    /// Whether nothing about the search makes it need every candidate in order: no goal, no
    /// limit on candidates, no model that completes candidates, no run cut off by a loop
    /// and no escaping address (so its symmetry may be used, and it may be split).
    usable: bool,
    /// The program's symmetry, when usable, and the location its cut is made at.
    symmetry: Option<(&'p Symmetry, Loc)>,
}

/// The paths of each thread of `program`, or the error that stops the test before any
/// candidate is built.
fn prepare<'p>(
    program: &Program,
    model: &dyn MemoryModel,
    limits: &Limits,
    goal: Option<&Prop>,
    symmetry: Option<&'p Symmetry>,
) -> Result<Prepared<'p>, RunError> {
    let pointees = paths::pointees(program);
    let mut per_thread = Vec::with_capacity(program.threads.len());
    for t in &program.threads {
        let ps = paths::thread_paths(t, &pointees).map_err(|e| RunError {
            message: e.message,
            span: e.span,
        })?;
        per_thread.push(ps);
    }
    // herd7 reads the initial value of every location a path reads before it looks at the
    // values read, so a read at an address known without reading memory that is no
    // location stops the test if any path makes it.
    if let Some((e, v)) = per_thread.iter().flatten().find_map(|p| {
        let e = p.escape.filter(|e| e.always)?;
        Some((e, p.constant(e.sym)?))
    }) {
        return Err(RunError {
            message: paths::not_a_location(program, v),
            span: e.source,
        });
    }
    // A path that breaks a lock axiom on its own matters only to a run cut off by a loop,
    // which herd7 marks whatever the model says, and to a model that completes candidates
    // itself and so checks the axioms itself.
    let keep_broken = model.completes() || per_thread.iter().flatten().any(|p| p.cutoff.is_some());
    let mut broken = 0;
    if !keep_broken {
        for ps in &mut per_thread {
            let before = ps.len();
            ps.retain(|p| !p.breaks_lock_axiom);
            broken += (before - ps.len()) as u64;
        }
    }
    crate::engine::symbol::name(program, &mut per_thread);
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
        usable,
        symmetry,
    })
}

/// How a sequential enumeration ended.
enum Sequential {
    /// With its counts, and why it stopped early if it did.
    Done(Stats, Option<Stop>),
    /// It took more steps than its budget allowed.
    OverBudget,
}

impl Prepared<'_> {
    /// The counts of a test before any combination is searched.
    fn stats(&self) -> Stats {
        let mut stats = Stats::default();
        stats.removed.deadlock += self.broken;
        stats
    }
}

/// The combinations of thread paths of a test, in order.
struct Combinations<'p> {
    per_thread: &'p [Vec<Path>],
    /// The next combination's path of each thread; `None` past the last.
    choice: Option<Vec<usize>>,
    completes: bool,
    deadline: Option<Instant>,
}

impl<'p> Combinations<'p> {
    fn new(model: &dyn MemoryModel, limits: &Limits, per_thread: &'p [Vec<Path>]) -> Self {
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
    /// each whose paths break a lock axiom together (unless a run is cut off by a loop, or
    /// the model checks the axioms itself); a timeout once the deadline has passed.
    fn next(&mut self, stats: &mut Stats) -> Option<Result<Vec<&'p Path>, Stop>> {
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
                && combo.iter().all(|p| p.cutoff.is_none())
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
fn sequential(
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
    while let Some(next) = combinations.next(&mut stats) {
        let combo = match next {
            Ok(combo) => combo,
            Err(timeout) => return Ok(Sequential::Done(stats, Some(timeout))),
        };
        let setup = Setup {
            symmetry: prepared.symmetry,
            budget: left,
            claim: None,
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
            return Ok(Sequential::Done(stats, searched.stop));
        }
        if let Some(max) = limits.max_executions
            && stats.candidates >= max
        {
            return Ok(Sequential::Done(
                stats,
                Some(Stop::Limit(format!("{max} executions"))),
            ));
        }
    }
    check_something_allowed(program, model, goal, per_thread, &stats)?;
    Ok(Sequential::Done(stats, None))
}

/// How one search runs beside the others of its test.
struct Setup<'a> {
    symmetry: Option<(&'a Symmetry, Loc)>,
    /// The most steps it may take.
    budget: u64,
    /// Its part in a split search, if it is one.
    claim: Option<&'a split::Claim<'a>>,
}

/// What one search of one combination of thread paths did.
struct Searched {
    stats: Stats,
    /// The error that stopped it, if any.
    failure: Option<RunError>,
    /// Why it stopped early, if it did.
    stop: Option<Stop>,
    /// The steps it took.
    steps: u64,
    /// Whether it stopped at its budget of steps.
    over_budget: bool,
    /// Whether it stopped at a node past the one a split search stopped at.
    halted: bool,
}

/// Searches one combination of thread paths at the narrowest width that holds its events
/// (and at least the one `limits` asks for).
fn search_at_width<'a>(
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
            .any(|e| e.loc == Some(l) && is_lock_event(e.tags));
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

/// Whether an event is one of `lock.cat`'s, whose location's coherence the lock stage
/// orders.
fn is_lock_event(tags: Tags) -> bool {
    [Tag::Lkr, Tag::Lkw, Tag::Ul, Tag::Lf, Tag::Rl, Tag::Ru]
        .iter()
        .any(|t| tags.has(*t))
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
    let stop = search.run(visit);
    Ok(Searched {
        stats: search.stats,
        failure: search.failure.take(),
        stop,
        steps: search.steps,
        over_budget: search.over_budget,
        halted: search.halted,
    })
}

/// Enumerates as [`enumerate`] does, for callers that need each execution itself
/// (explanations, traces and drawings), which take executions of at most 128 events: a
/// wider one stops the enumeration with an error.
pub fn enumerate_narrow(
    program: &Program,
    model: &dyn MemoryModel,
    limits: &Limits,
    goal: Option<&Prop>,
    visit: &mut dyn FnMut(&Allowed<'_>, &Execution) -> Flow,
) -> Result<(Stats, Option<Stop>), RunError> {
    let mut wide = None;
    let r = enumerate(program, model, limits, goal, &mut |x| match x.execution() {
        Some(e) => visit(x, e),
        None => {
            wide = Some(RunError {
                message: format!(
                    "explanations, traces and drawings show executions of at most {} events, \
                     and this test has more",
                    EventSet::<Words<1>>::CAPACITY
                ),
                span: (0, 0),
            });
            Flow::Stop
        }
    })?;
    match wide {
        Some(e) => Err(e),
        None => Ok(r),
    }
}

/// A condition in three-valued logic: `None` where it depends on an equation `eq` cannot
/// decide yet.
fn kleene<F: FnMut(Cell, &Operand) -> Option<bool>>(p: &Prop, eq: &mut F) -> Option<bool> {
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
/// Two exceptions are the model's and herd7's own: a thread that waits for a grace period
/// inside its own RCU or SRCU read-side critical section deadlocks every run (the LKMM's
/// rcu axiom forbids them all), and herd7 answers a program whose reads all go through
/// addresses that are no location with no execution.
fn check_something_allowed(
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
        || per_thread.iter().flatten().any(waits_inside_its_own_reader)
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
    })
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

/// What a value is known to be during the search.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Known {
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

/// What the partial judgements at one stage have done so far in one search: how often
/// they cut, and how much judging the partial executions they let through cost below.
#[derive(Clone, Copy, Debug, Default)]
struct StageCounts {
    /// Partial executions the model judged here.
    judged: u64,
    /// Of those, the ones it rejected.
    pruned: u64,
    /// Partial executions not cut here (judged and allowed, or not judged).
    passed: u64,
    /// The judgements made below the partial executions not cut here, all told.
    below: u64,
    /// Partial executions met here past the warm-up while judging them did not pay.
    unpaid: u64,
}

/// Partial judgements at a stage are always made until it has made this many.
const WARM_UP: u64 = 32;

/// Past the warm-up, a stage whose judgements do not pay still judges one partial
/// execution in this many, to follow a change in how often they cut.
const SAMPLE: u64 = 16;

impl StageCounts {
    /// Whether to judge the next partial execution here: always during the warm-up, then
    /// while the judgements a cut saves (the share cut times the judgements below a
    /// partial execution that is not cut) outweigh the one judgement it costs, and one
    /// time in [`SAMPLE`] otherwise.
    fn worth_judging(&mut self) -> bool {
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
struct ReadChoice {
    read: usize,
    candidates: Vec<usize>,
}

/// One step of the search.
enum Stage {
    /// Reads-from for the plain reads of a location.
    Rf(Vec<ReadChoice>),
    /// Coherence, rf of lock reads, and the reads of `spin_trylock`/`spin_is_locked`, for a
    /// spinlock.
    Lock(LockPlan),
    /// Coherence order for a location.
    Co(CoPlan),
}

struct CoPlan {
    init: usize,
    writes: Vec<usize>,
    /// For each write (by position in `writes`), the positions that must come before it
    /// (earlier writes of the same thread).
    before: Vec<u64>,
}

/// Where the search builds one execution of each group of images under the program's
/// symmetry: at stage `stage`, the first write placed of the threads of its cycle must be
/// one of the cycle's first thread.
struct Canon {
    stage: usize,
    /// Positions, in the stage's order of writes, of the writes of the cycle's threads.
    of_cycle: u64,
    /// Of those, the ones not by the cycle's first thread.
    of_others: u64,
}

struct LockPlan {
    init: usize,
    /// Lock writes, with the read of their pair and their matching unlock.
    lkws: Vec<(usize, usize, Option<usize>)>,
    before: Vec<u64>,
    /// Lock-fail, read-locked and read-unlocked reads with the writes each may read.
    reads: Vec<ReadChoice>,
}

struct Search<'a, W: Width> {
    program: &'a Program,
    /// The model, as it judges executions of this width.
    judge: &'a dyn JudgeAt<W>,
    limits: &'a Limits,
    goal: Option<&'a Prop>,
    paths: Vec<&'a Path>,
    exec: Execution<W>,
    /// Global event of each path-local read, per thread.
    read_event: Vec<Vec<usize>>,
    /// Thread and path-local event of each global event (`None` for initial writes).
    origin: Vec<Option<(usize, usize)>>,
    rf_src: Vec<usize>,
    known: Vec<Known>,
    stages: Vec<Stage>,
    /// The stage at which values are solved: after every choice.
    first_co: usize,
    stats: Stats,
    steps: u64,
    /// An operator with no meaning that the current candidate needs, if any (checked once
    /// the model has judged it).
    bad: Option<RunError>,
    /// The error that stopped the search.
    failure: Option<RunError>,
    /// Whether a monotone model may cut partial executions: not on the way to a run cut
    /// off by a loop, which herd7 marks before its model judges it.
    prune: bool,
    /// Whether partial judgements may be left out where they do not pay
    /// ([`StageCounts::worth_judging`]). A monotone model's partial judgement only cuts
    /// what the judgement of each complete candidate would reject, so leaving one out
    /// changes no answer, only the counts of [`Stats`]. Not with a write to an address
    /// that is no location (the error it stops the test with must not depend on what
    /// was cut), nor under `max_executions` (which counts complete candidates).
    adaptive: bool,
    /// The partial judgements of each stage so far.
    at_stage: Vec<StageCounts>,
    /// Every judgement made so far, partial or complete.
    judgements: u64,
    /// Whether the model completes candidates itself ([`MemoryModel::completes`]): the
    /// search then chooses reads-from for ordinary reads only, no coherence order, and
    /// the final writes of the observed locations.
    completes: bool,
    /// The final writes chosen, while the model completes a candidate.
    finals: Option<EventSet<W>>,
    /// Reads whose value is 0 without a write to read from: the lock reads, when the model
    /// completes candidates.
    known_reads: EventSet<W>,
    /// Whether a path of the combination stops at a write to an address that is no
    /// location: herd7 stops the test if any candidate takes it, and its candidates do not
    /// depend on which lock write a failed `spin_trylock` or `spin_is_locked` reads, since
    /// lock reads are its model's; so a lock read with no lock write to read then still
    /// goes on to the values, as a phantom, to reach that error.
    escapes_by_write: bool,
    /// How many lock reads of the current candidate read no write ([`Self::escapes_by_write`]).
    phantom: u32,
    /// For each read of an `Rf` stage, the writes it may read.
    rf_options: Vec<Option<Vec<usize>>>,
    /// Whether a speed check may cut a partial execution none of whose completions can
    /// satisfy its goal (see the `may` module).
    lookahead: bool,
    /// The look-ahead's memory of each read's values while it runs.
    may_memo: Vec<may::Memo>,
    /// The program's symmetry and the location whose order picks the execution built of
    /// each group of images ([`crate::engine::symmetry`]).
    symmetry: Option<(&'a Symmetry, Loc)>,
    /// The cut that symmetry makes.
    canon: Option<Canon>,
    /// The most steps the search may take ([`Self::tick`]).
    budget: u64,
    /// Whether it stopped at its budget.
    over_budget: bool,
    /// Its part in a split search, if it is one: the entries to stage
    /// [`Self::split_at`] are the nodes the threads share out ([`split`]).
    claim: Option<&'a split::Claim<'a>>,
    split_at: usize,
    /// While the split search looks for its stage of nodes: the nodes met at
    /// [`Self::split_at`], and how many are enough.
    counting: Option<(u64, u64)>,
    /// Whether it met a node past the one the split search stopped at.
    halted: bool,
}

const NONE: usize = usize::MAX;

impl<'a, W: Width> Search<'a, W> {
    fn new(
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
                Cell::Reg { .. } => None,
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
                });
            }
        }
        let completes = model.completes();
        let prune = model.monotone() && !completes && !paths.iter().any(|p| p.cutoff.is_some());
        let lookahead = goal.is_some()
            && !completes
            && paths
                .iter()
                .all(|p| p.cutoff.is_none() && p.escape.is_none());
        let escapes_by_write = paths.iter().any(|p| p.escape.is_some_and(|e| !e.read));
        let adaptive = limits.max_executions.is_none() && paths.iter().all(|p| p.escape.is_none());
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
            finals: None,
            known_reads: EventSet::EMPTY,
            escapes_by_write,
            phantom: 0,
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
        };
        search.plan();
        search.at_stage = vec![StageCounts::default(); search.stages.len()];
        Ok(search)
    }

    /// Builds the stages: reads-from (and locks) per location, then coherence per location.
    fn plan(&mut self) {
        // A combination with a run cut off by a loop can only be marked `Loop`, and herd7
        // marks it for any reads-from of its ordinary reads that its values allow, before
        // the model would forbid incoherent ones.
        if self.completes || self.paths.iter().any(|p| p.cutoff.is_some()) {
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
            if on_loc.iter().any(|&e| is_lock_event(ev[e].tags)) {
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
                    if before.is_empty() {
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
    fn off_canon(&self, i: usize, placed: u64, p: usize) -> bool {
        self.canon
            .as_ref()
            .is_some_and(|c| c.stage == i && placed & c.of_cycle == 0 && c.of_others >> p & 1 == 1)
    }

    /// The stages herd7 itself goes through before a model file completes a candidate:
    /// reads-from for the ordinary reads of each location, from any write of it but those
    /// its own instruction makes after it (a read-modify-write's own write; herd7's
    /// `-optace iico`, its default with a model file), leaving what coherence allows to
    /// the model; lock events are the model's.
    /// The lock reads, whose values herd7 does not track, read 0.
    fn plan_for_completion(&mut self) {
        let nlocs = self.program.locs.len();
        let ev = &self.exec.events;
        let lock = |e: &Event| is_lock_event(e.tags);
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
                let mut candidates = vec![l];
                candidates.extend(writes.iter().copied().filter(|&w| {
                    let same_instruction = match (self.origin[r], self.origin[w]) {
                        (Some((t, i)), Some((u, j))) => {
                            t == u && self.paths[t].events[i].stmt == self.paths[t].events[j].stmt
                        }
                        _ => false,
                    };
                    !(same_instruction && self.exec.po.contains(r, w))
                }));
                choices.push(ReadChoice {
                    read: r,
                    candidates,
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
            });
        }
        LockPlan {
            init: l,
            lkws: triples,
            before,
            reads,
        }
    }

    fn run(&mut self, visit: &mut dyn FnMut(&Allowed<'_>) -> Flow) -> Option<Stop> {
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
    /// nodes are, only on the nodes this thread claims ([`split`]).
    fn stage(&mut self, i: usize, visit: &mut dyn FnMut(&Allowed<'_>) -> Flow) -> Option<Stop> {
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
    fn stage_here(
        &mut self,
        i: usize,
        visit: &mut dyn FnMut(&Allowed<'_>) -> Flow,
    ) -> Option<Stop> {
        if let Some(s) = self.tick() {
            return Some(s);
        }
        if i == self.first_co {
            if let Err(why) = self.solve() {
                self.stats.removed.count(why);
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
                && let Err(why) = self.constraints_hold()
            {
                self.stats.removed.count(why);
                return None;
            }
            // Judged once a location's reads-from and coherence are both placed; not above
            // the nodes of a split search, which every thread walks alike.
            if !matches!(self.stages[i], Stage::Co(_)) && !self.above_nodes(i) {
                return self.judged_stage(i, visit);
            }
        }
        self.walk_stage(i, visit)
    }

    /// Judges the partial execution before stage `i`, where that pays, and runs stage
    /// `i` and everything after it if the model allows it; keeps the stage's counts.
    fn judged_stage(
        &mut self,
        i: usize,
        visit: &mut dyn FnMut(&Allowed<'_>) -> Flow,
    ) -> Option<Stop> {
        let counts = &mut self.at_stage[i];
        if !self.adaptive || counts.worth_judging() {
            counts.judged += 1;
            self.judgements += 1;
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
    fn walk_stage(
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

    fn rf(
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
        for &w in &c.candidates {
            self.set_rf(c.read, w);
            if let Err(why) = self.constraints_hold() {
                self.stats.removed.count(why);
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
    }

    fn unset_rf(&mut self, r: usize, w: usize) {
        self.exec.rf.remove(w, r);
        self.rf_src[r] = NONE;
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

    fn set_chain(&mut self, chain: &[usize]) {
        let mut after = EventSet::EMPTY;
        for &w in chain.iter().rev() {
            self.exec.co.set_successors(w, after.clone());
            after.insert(w);
        }
    }

    fn clear_chain(&mut self, chain: &[usize]) {
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
        if c.candidates.is_empty() && self.escapes_by_write {
            self.phantom += 1;
            self.known_reads.insert(c.read);
            let r = self.rf_lock_reads(i, reads, j + 1, visit);
            self.known_reads.remove(c.read);
            self.phantom -= 1;
            return r;
        }
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

    fn write_value(&mut self, w: usize) -> Known {
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
            Node::Un(op, a) => {
                let x = self.eval(t, a);
                self.apply(t, sym, x, Known::Value(Value::Int(0)), |x, _| {
                    herd_unary(op, x)
                })
            }
            Node::Bin(op, a, b) => {
                let x = self.eval(t, a);
                let y = self.eval(t, b);
                self.apply(t, sym, x, y, |x, y| herd_binary(op, x, y))
            }
        }
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
    fn constraints_hold(&mut self) -> Result<(), Why> {
        self.known.iter_mut().for_each(|k| *k = Known::Unknown);
        for t in 0..self.paths.len() {
            for c in 0..self.paths[t].constraints.len() {
                let con = self.paths[t].constraints[c];
                if let Known::Value(v) = self.eval(t, con.sym)
                    && truth(v) != con.truth
                {
                    return Err(Why::Assumption(con.kind));
                }
            }
        }
        self.props_hold()
    }

    /// The filter and the goal, as far as the registers they read are known.
    fn props_hold(&mut self) -> Result<(), Why> {
        // The filter discards executions whatever the model says: once the registers it
        // reads are known, a failing filter cuts the subtree.
        if let Some(f) = &self.program.filter
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
        }
    }

    /// Stops the search at thread `t`'s write to an address that is no location, as herd7
    /// stops on it.
    fn fail_at_escape(&mut self, t: usize) {
        let Some(escape) = self.paths[t].escape else {
            return;
        };
        let message = match self.eval(t, escape.sym) {
            Known::Value(v) => paths::not_a_location(self.program, v),
            _ => "the address of this access cannot be computed".to_string(),
        };
        self.failure = Some(RunError {
            message,
            span: escape.source,
        });
    }

    /// Solves every value once rf is complete; `Err` when the combination is not a
    /// candidate, with the reason.
    ///
    /// As in herd7, a contradiction (an assumption that fails) removes the candidate
    /// first; then an operator with no meaning is an error if the model allows the
    /// candidate ([`Search::bad`]); then a value herd7 cannot solve removes it.
    fn solve(&mut self) -> Result<(), Why> {
        self.known.iter_mut().for_each(|k| *k = Known::Unknown);
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
            self.known[g] = Known::Value(Value::Sym(g as u32));
            symbols.push(g);
        }
        // Every value a path computes must be solved, as herd7 solves every equation:
        // the assumptions first, then every node.
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
        if let Some((thread, sym)) = bad {
            let span = self.paths[thread as usize].spans[sym as usize];
            self.bad = Some(RunError {
                message: self.illegal_message(thread as usize, sym),
                span,
            });
        } else if unsolved {
            return Err(Why::Unsolvable);
        }
        // A candidate with a lock read that reads no write is herd7's only on the way to a
        // write at no location ([`Self::escapes_by_write`]): the error, or nothing.
        if self.phantom > 0 {
            self.bad = None;
            if let Some(t) =
                (0..self.paths.len()).find(|&t| self.paths[t].escape.is_some_and(|e| !e.read))
            {
                self.fail_at_escape(t);
                return Ok(());
            }
            return Err(Why::Nowhere);
        }
        // A run that goes round a loop once more than herd7 unrolls it is cut off, whatever
        // the model says of it, once some choice of final writes passes the filter.
        if self.paths.iter().any(|p| p.cutoff.is_some()) {
            self.bad = None;
            // The filter reads the registers the run ends with: its values first.
            self.store_values();
            return Err(if self.some_final_state_passes() {
                Why::Cutoff
            } else {
                Why::Filter
            });
        }
        // A path that stops at an address that is none of the test's locations drops the
        // candidate if it reads there, as herd7 finds no write for it, and is an error if
        // it writes, once its assumptions hold.
        for t in 0..self.paths.len() {
            if let Some(escape) = self.paths[t].escape {
                if escape.read {
                    return Err(Why::Nowhere);
                }
                self.fail_at_escape(t);
                return Ok(());
            }
        }
        if self.bad.is_some() {
            return Ok(());
        }
        if !symbols.is_empty() {
            self.name_symbols(&symbols);
        }
        self.store_values();
        self.props_hold()
    }

    /// Writes the value each access reads or writes into its event, where the final state
    /// and the model find it.
    fn store_values(&mut self) {
        for g in self.program.locs.len()..self.exec.events.len() {
            let v = match self.exec.events[g].kind {
                EventKind::Read => self.read_value(g),
                EventKind::Write => self.write_value(g),
                EventKind::Fence => continue,
            };
            if let Known::Value(v) = v {
                self.exec.events[g].value = v;
            }
        }
    }

    /// The message for an operator with no meaning: the operator and its operands' values.
    fn illegal_message(&mut self, t: usize, sym: paths::SymId) -> String {
        let node = self.paths[t].nodes[sym as usize];
        let text = |me: &mut Self, s: paths::SymId| match me.eval(t, s) {
            Known::Value(v) => me.program.value_text(v),
            _ => "?".to_string(),
        };
        match node {
            Node::Bin(op, a, b) => {
                let (x, y) = (text(self, a), text(self, b));
                match (op, x.as_str(), y.as_str()) {
                    (
                        crate::front::program::BinOp::Div | crate::front::program::BinOp::Rem,
                        _,
                        "0",
                    ) => {
                        format!("division by zero ({x} {} {y})", op.symbol())
                    }
                    _ => format!(
                        "the operator `{}` has no meaning on {x} and {y} (herd7 stops on it: \
                         illegal operation)",
                        op.symbol()
                    ),
                }
            }
            Node::Un(op, a) => {
                let x = text(self, a);
                format!("the operator {op:?} has no meaning on {x}")
            }
            _ => "an operator has no meaning on its operands".to_string(),
        }
    }

    /// Renames the unsolved symbols, each `Sym(g)` after the first read `g` of its cycle, to
    /// the names herd7 prints (see [`crate::engine::symbol`]), when the paths carry them: the
    /// highest herd7 number among the cycle's reads and the writes that copy them.
    fn name_symbols(&mut self, firsts: &[usize]) {
        let nlocs = self.program.locs.len();
        let mut names = Vec::with_capacity(firsts.len());
        for &g in firsts {
            let sym = Known::Value(Value::Sym(g as u32));
            let mut name = 0;
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
                if herd == 0 && kind == EventKind::Read {
                    return;
                }
                name = name.max(herd);
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
    }

    fn complete(&mut self, visit: &mut dyn FnMut(&Allowed<'_>) -> Flow) -> Option<Stop> {
        if self.completes {
            return self.complete_by_model(visit);
        }
        if self.bad.is_none()
            && let Some(filter) = &self.program.filter
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
        self.judgements += 1;
        let judgement = self.judge.judge(&self.exec);
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
                execution: as_width(&self.exec),
                judgement: &judgement,
                search: self,
                image: symmetry.map(|s| (s, j)),
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

    /// Whether some choice of final writes for the observed locations (as
    /// [`complete_by_model`](Self::complete_by_model) makes them) gives a final state that
    /// passes the filter and the speed-check goal.
    fn some_final_state_passes(&mut self) -> bool {
        if self.program.filter.is_none() && self.goal.is_none() {
            return true;
        }
        let mut passes = false;
        self.for_each_final_choice(&mut |me, _| {
            let ok = |p: Option<&Prop>| p.is_none_or(|p| p.eval(&|c| me.final_value(c)));
            passes = ok(me.program.filter.as_ref()) && ok(me.goal);
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
        let options: Vec<Vec<usize>> = self
            .exec
            .observed
            .iter()
            .map(|l| writes_of(ev, l))
            .collect();
        let mut pco0 = Relation::empty(n);
        for l in 0..nlocs {
            for w in writes_of(ev, l) {
                if w != l {
                    pco0.add(l, w);
                }
            }
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

    /// One choice of final writes: the filter and the goal, then the model's completions.
    fn judge_completions(
        &mut self,
        finals: EventSet<W>,
        pco: &Relation<W>,
        visit: &mut dyn FnMut(&Allowed<'_>) -> Flow,
    ) -> Option<Stop> {
        if let Some(filter) = &self.program.filter
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
                execution: as_width(&self.exec),
                judgement: c.judgement,
                search: self,
                image: None,
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

    fn final_value(&self, cell: Cell) -> Value {
        match cell {
            Cell::Reg { thread, reg } => {
                let path = self.paths[thread];
                let sym = path.regs[reg];
                path.eval_known(sym, &|k| {
                    let g = self.read_event[thread][k as usize];
                    self.exec.events[g].value
                })
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
