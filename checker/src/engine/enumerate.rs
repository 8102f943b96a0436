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
//! itself [monotone](crate::models::model::MemoryModel::monotone) judges the partial
//! execution: a partial execution it rejects has no allowed completion, so the whole
//! subtree is cut.
//! Such a judgement costs as much as one of a complete candidate, so the searches of a
//! test keep, per stage, how often it cuts and how many judgements lie below what it lets
//! through (carried from one combination of thread paths to the next, on one thread: a
//! combination often has too few partial executions to learn it alone), and stop judging
//! at a stage where a cut saves less than the judgement costs (sampling one partial
//! execution in sixteen there to follow a change). Leaving one out changes no
//! answer: the judgement of each complete candidate rejects what it would have cut.
//! On the last stages, where only reads-from and coherence orders fixed by program order
//! are left, a model may instead vouch for every completion at once (the `vouch` module).
//!
//! Choices no model could accept are never generated, and the rules are documented here
//! because every native model must agree with them (each includes SC per location and
//! atomicity):
//! a read never reads from a write of its own thread that comes after it in program order
//! or that a later write of its thread to the same location overwrites before the read;
//! coherence never orders two writes of one thread against program order; and the write of
//! a read-modify-write comes right after the write its read reads from (so no two
//! read-modify-writes of a location read the same write).
//!
//! Three kinds of combinations are searched as herd7 searches them instead, with none of
//! these rules: those of a model that
//! [completes](crate::models::model::MemoryModel::completes) candidates itself (a model
//! file, which gets reads-from for ordinary reads only and the final write of each
//! observed location, and chooses the coherence order and the lock reads' sources
//! itself), those with a run cut off by a loop's unrolling (which herd7 marks
//! `Loop` for any reads-from its values allow, before its model judges it; a model file
//! with an `assert` still judges their candidates, as herd7's does, and a failed assertion
//! stops the test), and those with a write at an address that is no location (which
//! herd7 stops on in any candidate its values allow, before its model, its filter or a
//! speed check's goal sees it: the search goes to the first such candidate, unpruned).
//!
//! The enumeration does no I/O; it reports each allowed execution to a callback.
//!
//! This file holds the enumeration's public types and the state of one search
//! (`Search`), whose steps the child modules implement, each in an `impl` block of its
//! own: `driver` (the entry points, and the combinations of thread paths run one after
//! the other), `plan` (the execution a combination fixes, and the stages that choose the
//! rest), `stages` (the walk through the stages: reads-from, coherence, spinlocks, and
//! the partial judgements between them), `values` (solving the values, the filter and the
//! goal), `completion` (judging a complete candidate, and the candidates a model file
//! completes), `vouch` (the last stages' reads-from judged once for all their
//! completions, where the model vouches for them), `count` (those completions counted in
//! groups without being built, where the reads left open feed nothing), `may` (the speed check's look-ahead)
//! and `split` (a search shared out among threads).

use crate::engine::paths::{Assumption, Path};
use crate::engine::symmetry::Symmetry;
use crate::exec::event::{Loc, Value};
use crate::exec::execution::{AnyExecution, Execution};
use crate::exec::relation::{EventSet, Width};
use crate::front::program::{Cell, Program, Prop};
use crate::models::model::{JudgeAt, Judgement};
use crate::models::optace::OptAce;
use plan::{Canon, Stage, StageCounts};
use std::time::Instant;
use values::Known;

mod completion;
mod count;
mod driver;
mod may;
mod plan;
mod split;
mod stages;
mod unify;
mod values;
mod vouch;

pub use driver::{enumerate, enumerate_with};
pub use split::enumerate_split;

/// Bounds on one enumeration, and how herd7 builds the candidates it leaves to a model.
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
    /// How herd7 builds the candidates it gives a model file, and those of runs cut at a
    /// loop's unrolling, which it marks before any model judges them (herd7's `-optace`,
    /// [`OptAce`]): under `true`, fewer reads-from and final writes, and a `pco` that
    /// holds what program order shows of coherence.
    pub optace: OptAce,
    /// Whether every complete candidate gets the model's whole judgement, the model's
    /// vouching for many at once unused ([`Stats::vouched`]); tests set it to hold the
    /// vouching to the whole judgements.
    pub no_vouching: bool,
    /// Whether the completions the model vouches for may be counted without being built,
    /// each group of them that ends in one final state reported once, with its number
    /// ([`Allowed::count`]; the `count` module): only for a callback that reads that
    /// number, and not for one that wants the executions themselves.
    pub count_completions: bool,
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
    /// Partial executions a monotone model judged, cut or not.
    pub partial: u64,
    /// Unions of the completions of a partial execution the model was asked to vouch for,
    /// passed or not ([`crate::models::model::JudgeAt::vouch`]).
    pub unions: u64,
    /// Of the complete candidates, those judged by the checks the model's vouching left
    /// open alone ([`crate::models::model::JudgeAt::vouch`]).
    pub vouched: u64,
    /// Of [`Stats::vouched`], those counted in groups without being built (the `count`
    /// module).
    pub counted: u64,
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
    /// Of the accesses at an address that is no location where candidates were dropped
    /// ([`Removed::nowhere`]), the first in the source, as its byte range: the place a
    /// warning points to.
    #[serde(skip)]
    pub nowhere_at: Option<(usize, usize)>,
    /// The code of the first thread some of whose paths have no names of herd7's for
    /// their values (`engine::symbol::name`), as its byte range: a value out of
    /// thin air of theirs prints under hazmat's own name, and a warning says so.
    #[serde(skip)]
    pub unnamed_at: Option<(usize, usize)>,
}

impl Stats {
    /// Adds the counts of another enumeration, or of one combination of thread paths.
    pub(crate) fn add(&mut self, other: &Stats) {
        self.path_combinations += other.path_combinations;
        self.candidates += other.candidates;
        self.pruned += other.pruned;
        self.partial += other.partial;
        self.unions += other.unions;
        self.vouched += other.vouched;
        self.counted += other.counted;
        self.allowed += other.allowed;
        self.images += other.images;
        self.nodes += other.nodes;
        self.removed.add(&other.removed);
        self.nowhere_at = match (self.nowhere_at, other.nowhere_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.unnamed_at = match (self.unnamed_at, other.unnamed_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }

    /// Counts a candidate removed for `why`.
    pub(crate) fn count(&mut self, why: Why) {
        if let Why::Nowhere(Some(at)) = why {
            self.nowhere_at = Some(self.nowhere_at.map_or(at, |a| a.min(at)));
        }
        self.removed.count(why);
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
            Why::Nowhere(_) => &mut self.nowhere,
            Why::Cutoff => &mut self.cutoff,
        };
        *n += 1;
    }
}

/// Why values remove a candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Why {
    Assumption(Assumption),
    Filter,
    Goal,
    Unsolvable,
    /// A read at an address that is no location, with the access if a path stops there.
    Nowhere(Option<(usize, usize)>),
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
    /// herd7's own words for the error, where herd7 stops on it with a message hazmat
    /// reproduces (the herd7 command prints them in place of `message`).
    pub herd7: Option<Herd7Stop>,
}

/// herd7's words for an error it stops a test on, by the way it prints them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Herd7Stop {
    /// A user error: `Warning: File "F": WORDS (User error)`.
    User(Box<str>),
    /// A fatal error: `Warning: File "F": WORDS`, the words ending with their own line
    /// break.
    Fatal(Box<str>),
}

/// What the callback sees of one allowed execution.
pub struct Allowed<'a> {
    /// The model's judgement (flags).
    pub judgement: &'a Judgement,
    search: &'a dyn FinalValue,
    /// For an image `g^j·e` of the execution built, the symmetry and `j`.
    image: Option<(&'a Symmetry, usize)>,
    /// The number of executions it stands for, with this final state and judgement.
    count: u64,
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

    /// For an image `g^j·e` of the execution built under the program's symmetry, `j`
    /// (`0` for the one built itself); `None` when the search builds every execution.
    pub fn image(&self) -> Option<usize> {
        self.image.map(|(_, j)| j)
    }

    /// Whether this execution stands for an image of the one built, under the program's
    /// symmetry, rather than for the one built itself.
    pub fn is_image(&self) -> bool {
        self.image.is_some_and(|(_, j)| j > 0)
    }

    /// The number of executions this stands for, all with its final state and judgement:
    /// 1, but for a group of completions counted without being built
    /// ([`Limits::count_completions`]).
    pub fn count(&self) -> u64 {
        self.count
    }

    /// A copy of the execution, at the width explanations, traces and drawings take,
    /// unless it is an image of the one built under the program's symmetry, or stands for
    /// several executions not built.
    pub fn execution(&self) -> Option<AnyExecution> {
        (!self.is_image() && self.count == 1).then(|| self.search.execution())
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

/// The final values, and the execution, of a search of any width.
trait FinalValue {
    fn final_value(&self, cell: Cell) -> Value;
    fn traffic(&self, loc: Loc) -> (usize, bool);
    fn execution(&self) -> AnyExecution;
}

impl<W: Width> FinalValue for Search<'_, W> {
    fn final_value(&self, cell: Cell) -> Value {
        Search::final_value(self, cell)
    }

    fn execution(&self) -> AnyExecution {
        self.exec.widen()
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

/// How one search runs beside the others of its test.
struct Setup<'a> {
    symmetry: Option<(&'a Symmetry, Loc)>,
    /// The most steps it may take.
    budget: u64,
    /// Its part in a split search, if it is one.
    claim: Option<&'a split::Claim<'a>>,
    /// The partial-judgement counts of the searches of the test's combinations before it,
    /// which it starts from and leaves its own in: one combination of a test is often too
    /// small to learn alone that its partial judgements do not pay.
    learned: Option<&'a std::cell::Cell<Vec<StageCounts>>>,
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

/// The search of one combination of thread paths at width `W`: the execution built so far
/// and what the stages need to go on.
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
    /// The value of each operator node of each thread's path (`node_base[t] + sym`), once
    /// computed to a value since `known` was last cleared: a value depends only on reads
    /// already known, so it stays true until they are forgotten.
    node_values: Vec<Option<Value>>,
    node_base: Vec<usize>,
    /// How many choices of reads-from (and reads known without a write) are made, and for
    /// each such depth whether the values as they stand were found to meet the paths'
    /// constraints: a stage after a coherence stage meets the same values again (unless
    /// the look-ahead, which reads coherence, is on).
    rf_depth: usize,
    values_checked: Vec<bool>,
    /// Per constraint of each path (`constraint_base[t] + c`), the depth of reads-from at
    /// which its value was found to meet it, or `usize::MAX`: a value known stays known as
    /// reads-from grows, so a constraint met at some depth is met below it, until that
    /// choice is undone.
    met_at: Vec<usize>,
    constraint_base: Vec<usize>,
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
    /// off by a loop, which herd7 marks before its model judges it, nor to a write at no
    /// location, which herd7 stops on before its model judges the candidate.
    prune: bool,
    /// Whether partial judgements may be left out where they do not pay
    /// ([`StageCounts::worth_judging`]). A monotone model's partial judgement only cuts
    /// what the judgement of each complete candidate would reject, so leaving one out
    /// changes no answer, only the counts of [`Stats`]. Not with a write to an address
    /// that is no location (the error it stops the test with must not depend on what
    /// was cut), nor under `max_executions` (which counts complete candidates).
    adaptive: bool,
    /// The partial judgements of each stage so far (at least one per stage).
    at_stage: Vec<StageCounts>,
    /// Every judgement made so far, partial or complete.
    judgements: u64,
    /// Whether the model completes candidates itself
    /// ([`crate::models::model::MemoryModel::completes`]): the search then chooses
    /// reads-from for ordinary reads only, no coherence order, and the final writes of the
    /// observed locations.
    completes: bool,
    /// Whether the model judges the candidates of runs cut at a loop too
    /// ([`crate::models::model::MemoryModel::judges_cut_runs`]).
    judges_cut_runs: bool,
    /// Whether the model gives lock reads their writes as `lock.cat` does
    /// ([`crate::models::model::MemoryModel::judges_lock_reads`]).
    judges_lock_reads: bool,
    /// The final writes chosen, while the model completes a candidate.
    finals: Option<EventSet<W>>,
    /// Reads whose value is 0 without a write to read from: the lock reads, when the
    /// candidates are built as herd7 builds them (`plan_for_completion`).
    known_reads: EventSet<W>,
    /// Whether a path of the combination stops at a write to an address that is no
    /// location: herd7 stops the test on it in any candidate whose values solve, before
    /// its model, its filter or a speed check's goal sees the candidate, and its
    /// candidates do not depend on which lock write a lock read reads, since lock reads
    /// are its model's. So the combination is searched as herd7 builds its candidates
    /// (`plan_for_completion`), with no pruning, to that error or to nothing.
    escapes_by_write: bool,
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
    /// For each stage, the events of the locations whose choices the model may vouch for
    /// from there on, if it may ([`vouch`]).
    vouch_regions: Vec<Option<EventSet<W>>>,
    /// How the model's vouching has fared at each stage, at its entry and within it.
    vouch_counts: Vec<[vouch::VouchCounts; 2]>,
    /// On the way down the search, the first stage where a union may be tried before the
    /// stage again, and how far past it the next is once that one fails
    /// ([`Search::vouched_stage`]).
    vouch_backoff: (usize, usize),
    /// While the model has vouched for every completion of a partial execution, the
    /// events whose checks it left to each completion.
    vouched: Option<EventSet<W>>,
    /// For each stage, how the completions the model vouches for from there on are
    /// counted, where they may be ([`count`]).
    count_plans: Vec<Option<count::CountPlan>>,
}

const NONE: usize = usize::MAX;
