//! A large search shared out among the threads of the current rayon pool.
//!
//! Every thread walks the top stages of each combination of thread paths itself, with no
//! partial judgement there (its adaptive counts would differ from thread to thread): that
//! walk reads nothing the others change, so each thread meets the same entries to the
//! stage below in the same order. The stage is the first with at least
//! [`NODES_PER_THREAD`] entries per thread, found by a walk that counts them. Those
//! entries are the *nodes*, and the threads share them out by tickets: a thread takes the
//! next ticket from a shared counter, searches the node whose number is its ticket when it
//! meets it, walks past the others, and takes another ticket once done. Each node is
//! searched by exactly one thread.
//!
//! A node's search keeps its own partial-judgement counts (see [`super::plan::StageCounts`]),
//! started afresh, so its counts do not depend on which thread searched it or what that
//! thread searched before: the counts of a split search that runs to its end are the same
//! from run to run.
//!
//! The results are put back in the order of the nodes: the states and flags, the first
//! error (the one the search on one thread would meet first) and the first stop. A node
//! that stops the search (an error, or a callback that asks to stop) makes the threads leave
//! every node after it.
//!
//! A search is split only past a probe: the whole search runs on one thread first, within
//! [`PROBE_STEPS`] steps, so that the many small tests pay nothing for threads.

use super::driver::{
    Combinations, Prepared, Sequential, check_something_allowed, prepare, search_at_width,
    sequential,
};
use super::plan::StageCounts;
use super::{Allowed, Flow, Limits, RunError, Search, Setup, Split, Stats, Stop};
use crate::engine::symmetry::Symmetry;
use crate::exec::relation::Width;
use crate::models::model::MemoryModel;
use rayon::prelude::*;
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicU64, Ordering};

/// The steps a search takes on one thread before it is split: a tenth of a second or so.
pub(super) const PROBE_STEPS: u64 = 1 << 17;

/// What the threads of a split search share.
pub(super) struct Shared {
    /// The next ticket.
    next: AtomicU64,
    /// The first node whose search stopped the enumeration; the nodes past it are left.
    stopped: AtomicU64,
}

/// One thread's part in a split search.
pub(super) struct Claim<'a> {
    shared: &'a Shared,
    /// The nodes this thread has met, its own and the others'.
    met: Cell<u64>,
    /// The node this thread searches next.
    ticket: Cell<u64>,
    /// Called as a node of this thread's begins.
    begin: &'a dyn Fn(u64),
    /// Called as it ends: why it stopped the enumeration if it did, the error that
    /// stopped it if any, and its counts.
    end: &'a dyn Fn(Option<Stop>, Option<RunError>, Stats),
}

impl Claim<'_> {
    /// Counts the next node met, and returns its number if it is this thread's (then
    /// taking the next ticket).
    fn take(&self) -> Option<u64> {
        let id = self.met.get();
        self.met.set(id + 1);
        if id != self.ticket.get() {
            return None;
        }
        self.ticket
            .set(self.shared.next.fetch_add(1, Ordering::Relaxed));
        Some(id)
    }

    /// Marks the enumeration stopped at node `id`.
    fn stop_at(&self, id: u64) {
        self.shared.stopped.fetch_min(id, Ordering::Relaxed);
    }
}

/// The nodes a search is split into, at least, per thread: enough that the threads end
/// close together however unequal the nodes.
const NODES_PER_THREAD: u64 = 32;

impl<W: Width> Search<'_, W> {
    /// Whether stage `i` is above the nodes of a split search: walked by every thread
    /// alike, with no partial judgement (whose adaptive counts differ between threads).
    pub(super) fn above_nodes(&self, i: usize) -> bool {
        (self.claim.is_some() || self.counting.is_some()) && i < self.split_at
    }

    /// Picks the stage whose entries are the nodes: the first whose entries (walking the
    /// stages above it with no judgement) number at least [`NODES_PER_THREAD`] per thread,
    /// or the last. The walk is the same on every thread, so they all pick the same.
    pub(super) fn choose_split(&mut self, visit: &mut dyn FnMut(&Allowed<'_>) -> Flow) {
        let enough = NODES_PER_THREAD * rayon::current_num_threads() as u64;
        let stats = self.stats;
        let steps = self.steps;
        self.split_at = 0;
        while self.split_at < self.stages.len() {
            self.split_at += 1;
            self.counting = Some((0, enough));
            let stop = self.stage(0, visit);
            let (met, _) = self.counting.take().expect("counting");
            if stop.is_some() && met < enough {
                // A limit (the deadline) stopped the walk: split here.
                break;
            }
            if met >= enough {
                break;
            }
        }
        self.stats = stats;
        self.steps = steps;
    }

    /// Meets a node: searches it if it is this thread's, with counts of its own.
    pub(super) fn node(
        &mut self,
        claim: &Claim<'_>,
        i: usize,
        visit: &mut dyn FnMut(&Allowed<'_>) -> Flow,
    ) -> Option<Stop> {
        // Another thread's node: walked past.
        let id = claim.take()?;
        if id > claim.shared.stopped.load(Ordering::Relaxed) {
            self.halted = true;
            return Some(Stop::Done);
        }
        (claim.begin)(id);
        for counts in &mut self.at_stage[i..] {
            *counts = StageCounts::default();
        }
        self.forget_vouching_from(i);
        let above = std::mem::take(&mut self.stats);
        let stop = self.stage_here(i, visit);
        let node = std::mem::replace(&mut self.stats, above);
        self.stats.add(&node);
        let failure = self.failure.take();
        if stop.is_some() || failure.is_some() {
            claim.stop_at(id);
        }
        (claim.end)(stop.clone(), failure, node);
        // A limit stops this thread; any other stop is the node's, and the nodes after
        // it are left as they are met.
        stop.filter(|s| matches!(s, Stop::Limit(_)))
    }
}

/// One node's results.
struct Node<C> {
    id: u64,
    collector: C,
    stop: Option<Stop>,
    failure: Option<RunError>,
}

/// One thread's results.
struct Worker<C> {
    stats: Stats,
    nodes: Vec<Node<C>>,
    /// A limit that stopped the thread.
    stop: Option<Stop>,
}

/// Enumerates as [`super::enumerate_with`] does with no goal, giving each allowed
/// execution to `visit` with a collector made by `new`. As `limits.split` says, the search
/// is shared out among the threads of the current rayon pool, each node with a collector
/// of its own. Returns the collectors in the order the search on one thread would have
/// met their executions, to be merged in that order.
pub fn enumerate_split<C: Send>(
    program: &crate::front::program::Program,
    model: &dyn MemoryModel,
    limits: &Limits,
    symmetry: Option<&Symmetry>,
    new: &(dyn Fn() -> C + Sync),
    visit: &(dyn Fn(&mut C, &Allowed<'_>) -> Flow + Sync),
) -> Result<(Stats, Option<Stop>, Vec<C>), RunError> {
    let prepared = prepare(program, model, limits, None, symmetry)?;
    // The pool is asked for its threads only once the probe is over: a process that checks
    // one small test starts none.
    let budget = match limits.split {
        _ if !prepared.usable => None,
        Split::Never => None,
        Split::Large => Some(PROBE_STEPS),
        Split::Always => Some(0),
    };
    let mut one = new();
    let mut probe = sequential(program, model, limits, None, &prepared, budget, &mut |x| {
        visit(&mut one, x)
    })?;
    let over = matches!(probe, Sequential::OverBudget);
    let threads = if over {
        rayon::current_num_threads()
    } else {
        1
    };
    if over && threads < 2 {
        one = new();
        probe = sequential(program, model, limits, None, &prepared, None, &mut |x| {
            visit(&mut one, x)
        })?;
    }
    if let Sequential::Done(stats, stop) = probe {
        return Ok((*stats, stop, vec![one]));
    }
    drop(one);
    let shared = Shared {
        next: AtomicU64::new(0),
        stopped: AtomicU64::new(u64::MAX),
    };
    let workers: Vec<Worker<C>> = (0..threads)
        .into_par_iter()
        .map(|w| {
            worker(
                w == 0,
                program,
                model,
                limits,
                &prepared,
                &shared,
                new,
                visit,
            )
        })
        .collect();
    let mut stats = Stats::default();
    let mut limit = None;
    let mut nodes = Vec::new();
    for w in workers {
        stats.add(&w.stats);
        limit = limit.or(w.stop);
        nodes.extend(w.nodes);
    }
    stats.nodes = nodes.len() as u64;
    let (collectors, stop) = put_back(nodes)?;
    if stop.is_some() {
        return Ok((stats, stop, collectors));
    }
    if limit.is_some() {
        return Ok((stats, limit, collectors));
    }
    check_something_allowed(program, model, None, &prepared.per_thread, &stats)?;
    Ok((stats, None, collectors))
}

/// The nodes' collectors in the order of the nodes, up to the first that stopped the
/// enumeration, with why it stopped; the error of the first node with one.
fn put_back<C>(mut nodes: Vec<Node<C>>) -> Result<(Vec<C>, Option<Stop>), RunError> {
    nodes.sort_by_key(|n| n.id);
    let mut collectors = Vec::with_capacity(nodes.len());
    for n in nodes {
        if let Some(e) = n.failure {
            return Err(e);
        }
        collectors.push(n.collector);
        if n.stop.is_some() {
            return Ok((collectors, n.stop));
        }
    }
    Ok((collectors, None))
}

/// One thread of a split search: every combination of thread paths, searching the nodes
/// it claims. The first thread also keeps the counts made outside the nodes.
#[allow(clippy::too_many_arguments)]
fn worker<C>(
    first: bool,
    program: &crate::front::program::Program,
    model: &dyn MemoryModel,
    limits: &Limits,
    prepared: &Prepared<'_>,
    shared: &Shared,
    new: &(dyn Fn() -> C + Sync),
    visit: &(dyn Fn(&mut C, &Allowed<'_>) -> Flow + Sync),
) -> Worker<C> {
    let nodes: RefCell<Vec<Node<C>>> = RefCell::new(Vec::new());
    let owned = Cell::new(Stats::default());
    let begin = |id| {
        nodes.borrow_mut().push(Node {
            id,
            collector: new(),
            stop: None,
            failure: None,
        });
    };
    let end = |stop, failure, stats: Stats| {
        if let Some(n) = nodes.borrow_mut().last_mut() {
            n.stop = stop;
            n.failure = failure;
        }
        let mut all = owned.get();
        all.add(&stats);
        owned.set(all);
    };
    let claim = Claim {
        shared,
        met: Cell::new(0),
        ticket: Cell::new(shared.next.fetch_add(1, Ordering::Relaxed)),
        begin: &begin,
        end: &end,
    };
    let mut route = |x: &Allowed<'_>| {
        let mut nodes = nodes.borrow_mut();
        let node = nodes
            .last_mut()
            .expect("a node begun before its executions");
        visit(&mut node.collector, x)
    };
    let mut above = prepared.stats();
    let mut stop = None;
    let mut combinations = Combinations::new(model, limits, &prepared.per_thread);
    while let Some(next) = combinations.next(&mut above) {
        let combo = match next {
            Ok(combo) => combo,
            Err(timeout) => {
                stop = Some(timeout);
                break;
            }
        };
        let setup = Setup {
            symmetry: prepared.symmetry,
            budget: u64::MAX,
            claim: Some(&claim),
            learned: None,
        };
        match search_at_width(program, model, limits, None, &setup, combo, &mut route) {
            // Every thread meets the error here, and counts it as a node; the thread
            // whose node it is keeps it.
            Err(e) => {
                if let Some(id) = claim.take() {
                    begin(id);
                    end(Some(Stop::Done), Some(e), Stats::default());
                    claim.stop_at(id);
                }
            }
            Ok(searched) => {
                above.add(&searched.stats);
                if searched.halted {
                    break;
                }
                if let Some(Stop::Limit(_)) = searched.stop {
                    stop = searched.stop;
                    break;
                }
            }
        }
    }
    Worker {
        // The first thread's counts hold its nodes' and those made outside any node.
        stats: if first { above } else { owned.get() },
        nodes: nodes.into_inner(),
        stop,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: u64, stop: Option<Stop>, failure: Option<&str>) -> Node<u64> {
        Node {
            id,
            collector: id,
            stop,
            failure: failure.map(|m| RunError {
                message: m.into(),
                span: (0, 0),
                herd7: None,
            }),
        }
    }

    #[test]
    fn nodes_are_put_back_in_order_up_to_the_first_that_stopped() {
        let done = || Some(Stop::Done);
        let put = put_back(vec![
            node(2, None, None),
            node(0, None, None),
            node(1, None, None),
        ]);
        assert_eq!(put, Ok((vec![0, 1, 2], None)));
        let put = put_back(vec![
            node(3, done(), None),
            node(1, done(), None),
            node(0, None, None),
        ]);
        assert_eq!(put, Ok((vec![0, 1], done())));
    }

    #[test]
    fn the_error_of_the_first_node_with_one_is_kept() {
        let done = || Some(Stop::Done);
        let nodes = vec![
            node(4, done(), Some("later")),
            node(0, None, None),
            node(2, done(), Some("first")),
            node(3, None, None),
        ];
        assert_eq!(put_back(nodes).map(|_| ()).unwrap_err().message, "first");
        // A node that stopped without an error, before one that has an error.
        let nodes = vec![node(2, done(), Some("later")), node(1, done(), None)];
        assert_eq!(put_back(nodes), Ok((vec![1], done())));
    }
}
