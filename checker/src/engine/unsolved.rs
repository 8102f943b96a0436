//! Addresses herd7 may leave unsolved, and the accesses at them that it tries everywhere.
//!
//! herd7 pairs every read with every write whose location may be the read's before it
//! solves a single value, then solves the equations of each pairing: the value read is the
//! value written, and the read's address is the write's location.
//! An address computed from values read is solved in most candidates, and then only a
//! location whose address the test handles as a value can match it, which is where the
//! paths try it ([`crate::engine::paths::pointees`]).
//! Where it depends on a value that goes round a cycle (a read-modify-write reading its
//! own write under `-optace false`, or a value out of thin air), herd7 pairs the read with
//! every write of every location: an address that is the cycle's value itself is bound to
//! the write's location, which solves the cycle (`enumerate::unify`), and a candidate
//! whose address stays unsolved is dropped, unless an operator fails on a value read, when
//! herd7 keeps it and stops with the failure if the model allows it.
//! So the paths try an access whose address may depend on such a value at every location
//! ([`Wide`]); [`widen`] finds those accesses by a graph of how values flow between the
//! accesses of every path: a read flows into the writes whose values it computes, a write
//! into the reads that may read it (at the same location on some paths).
//! A read on a cycle of that graph, or reached from one, may hold a value out of a cycle.
//!
//! An access at a computed address that a path tries at none of the locations it knows
//! stops the path there ([`Path::escapes`]), without its events; to herd7 it is still an
//! access at every location. So its write flows into the reads of every location but those
//! the test handles as values (where the paths try it), its read from their writes (and
//! its own write under `self_reads`), and its value from the reads it is computed from.
//! A read its address is computed from flows into that write too, where its value is
//! computed from values read: a read of the write makes its value the write's, which the
//! address's location equation binds. A read-modify-write at an address read from `p`,
//! which holds 0, may thus be at `p`, read by that very read: its value then solves to
//! `p`, or an operator fails on `p` (`Illegal operation & on constants p and 0`).
//!
//! # Complexity
//! Linear in the events of the paths, plus the flow edges from writes to reads: at most
//! the product of the writes and the reads of each location, and of the accesses at no
//! location with those of every location.

use crate::engine::paths::{self, Path, Wide};
use crate::exec::event::{EventKind, Loc};
use crate::front::c11;
use crate::front::program::Program;
use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One access of the program: its thread, its instruction, which run of that instruction
/// along its path it is in (the iterations of a loop differ), and whether it writes.
type Site = (usize, u32, u32, bool);

/// The accesses of one kind at one location, each with its site.
type Accesses = BTreeSet<(NodeIndex, Site)>;

/// The flow graph of values between the program's accesses.
#[derive(Default)]
struct Flow {
    graph: DiGraph<(), ()>,
    sites: HashMap<Site, NodeIndex>,
    /// Per location, the writes and the reads at it, each with its site.
    at: BTreeMap<Loc, (Accesses, Accesses)>,
    /// The writes that are half of a C11 read-modify-write, one event to herd7, whose read
    /// never reads it.
    single: BTreeSet<NodeIndex>,
    /// The accesses at a computed address: thread, instruction, and the reads the address
    /// is computed from.
    addresses: Vec<(usize, u32, Vec<NodeIndex>)>,
    /// The writes and the reads of the accesses at a computed address that a path tries at
    /// none of the locations it knows ([`Path::escapes`]): herd7 pairs them with the
    /// accesses of every location.
    anywhere: (Accesses, Accesses),
}

impl Flow {
    fn node(&mut self, site: Site) -> NodeIndex {
        *self
            .sites
            .entry(site)
            .or_insert_with(|| self.graph.add_node(()))
    }

    /// Adds the accesses of thread `t`'s path `p` and the flow inside it.
    fn add_path(&mut self, t: usize, p: &Path) {
        let mut runs: HashMap<u32, u32> = HashMap::new();
        let mut reads = Vec::with_capacity(p.reads as usize);
        let of = |reads: &[NodeIndex], bits: u64| {
            (0..64)
                .filter(|k| bits >> k & 1 == 1)
                .filter_map(|k| reads.get(k).copied())
                .collect::<Vec<_>>()
        };
        for (i, e) in p.events.iter().enumerate() {
            if i == 0 || p.events[i - 1].stmt != e.stmt {
                *runs.entry(e.stmt).or_default() += 1;
            }
            let run = runs[&e.stmt];
            let writes = match e.kind {
                EventKind::Fence => continue,
                EventKind::Read => false,
                EventKind::Write => true,
            };
            let site = (t, e.stmt, run, writes);
            let n = self.node(site);
            if let Some(loc) = e.loc {
                let (ws, rs) = self.at.entry(loc).or_default();
                if writes { ws } else { rs }.insert((n, site));
            }
            if e.addr_dep != 0 {
                let from = of(&reads, e.addr_dep);
                self.addresses.push((t, e.stmt, from));
            }
            if writes {
                if c11::is_single_event(e.tags) {
                    self.single.insert(n);
                }
                for r in of(&reads, p.taint[e.value as usize]) {
                    self.graph.update_edge(r, n, ());
                }
            } else {
                reads.push(n);
            }
        }
        for escape in p.escapes() {
            let from = of(&reads, p.taint[escape.sym as usize]);
            if let Some(written) = escape.written {
                let run = runs.get(&escape.stmt).map_or(1, |r| r + 1);
                let site = (t, escape.stmt, run, true);
                let w = self.node(site);
                self.anywhere.0.insert((w, site));
                if written.single {
                    self.single.insert(w);
                }
                for r in of(&reads, written.taint) {
                    self.graph.update_edge(r, w, ());
                }
                if written.own {
                    let site = (t, escape.stmt, run, false);
                    let r = self.node(site);
                    self.anywhere.1.insert((r, site));
                    self.graph.update_edge(r, w, ());
                }
                // A read that computes the address and reads this write makes its value
                // the write's, which the address's location equation binds: herd7 solves
                // (or fails on) a value computed from values read there.
                if written.taint != 0 || written.own {
                    for &r in &from {
                        self.graph.update_edge(r, w, ());
                    }
                }
            }
            self.addresses.push((t, escape.stmt, from));
        }
    }

    /// Adds the flow from each write to the reads that may read it: those at its location,
    /// but a read of the same run of the same instruction unless it may read its own
    /// instruction's write (`self_reads`, herd7's `-optace false`), and never the read of
    /// a C11 read-modify-write.
    ///
    /// An access at a computed address that a path tries at none of the locations it knows
    /// ([`Flow::anywhere`]) is paired with those of every location but the ones the test
    /// handles as values (`known`), where the paths try it.
    fn add_reads_from(&mut self, self_reads: bool, known: &BTreeSet<Loc>) {
        let mut edges = Vec::new();
        let mut pair = |ws: &Accesses, rs: &Accesses| {
            for &(w, (t, stmt, run, _)) in ws {
                for &(r, (u, stmt2, run2, _)) in rs {
                    let same = (t, stmt, run) == (u, stmt2, run2);
                    if !same || self_reads && !self.single.contains(&w) {
                        edges.push((w, r));
                    }
                }
            }
        };
        let (ws_anywhere, rs_anywhere) = &self.anywhere;
        pair(ws_anywhere, rs_anywhere);
        for (loc, (ws, rs)) in &self.at {
            pair(ws, rs);
            if !known.contains(loc) {
                pair(ws_anywhere, rs);
                pair(ws, rs_anywhere);
            }
        }
        for (w, r) in edges {
            self.graph.update_edge(w, r, ());
        }
    }

    /// The reads and writes whose value may go round a cycle, or come from one.
    fn cyclic(&self) -> Vec<bool> {
        let g = &self.graph;
        let mut marked = vec![false; g.node_count()];
        let mut todo = Vec::new();
        for scc in tarjan_scc(g) {
            if scc.len() > 1 || g.contains_edge(scc[0], scc[0]) {
                todo.extend(scc);
            }
        }
        while let Some(n) = todo.pop() {
            if std::mem::replace(&mut marked[n.index()], true) {
                continue;
            }
            todo.extend(g.neighbors(n).filter(|m| !marked[m.index()]));
        }
        marked
    }
}

/// Per thread, the accesses whose address may depend on a value out of a cycle, and every
/// location a write may be at (the locations next to a variable, which have no initial
/// write, only where a path writes them); `self_reads` says whether a read may read its own
/// instruction's write.
pub(crate) fn widen(program: &Program, per_thread: &[Vec<Path>], self_reads: bool) -> Vec<Wide> {
    let mut wide = vec![Wide::default(); per_thread.len()];
    let computed = |p: &Path| p.escape.is_some() || p.events.iter().any(|e| e.addr_dep != 0);
    // A cycle of values passes through a write of a value computed from a read.
    let carried = |p: &Path| {
        p.events
            .iter()
            .any(|e| e.kind == EventKind::Write && p.taint[e.value as usize] != 0)
            || p.escapes()
                .filter_map(|e| e.written)
                .any(|w| w.taint != 0 || w.own)
    };
    let paths = || per_thread.iter().flatten();
    if !paths().any(computed) || !paths().any(carried) {
        return wide;
    }
    let mut flow = Flow::default();
    for (t, paths) in per_thread.iter().enumerate() {
        for p in paths {
            flow.add_path(t, p);
        }
    }
    let known: BTreeSet<Loc> = paths::pointees(program).into_iter().collect();
    flow.add_reads_from(self_reads, &known);
    let cyclic = flow.cyclic();
    for (t, stmt, from) in &flow.addresses {
        if from.iter().any(|r| cyclic[r.index()]) {
            wide[*t].stmts.insert(*stmt);
        }
    }
    if wide.iter().all(|w| w.stmts.is_empty()) {
        return wide;
    }
    let written: BTreeSet<Loc> = flow
        .at
        .iter()
        .filter(|(_, (ws, _))| !ws.is_empty())
        .map(|(l, _)| *l)
        .collect();
    let targets: Vec<Loc> = (0..program.locs.len())
        .map(|l| Loc(l as u32))
        .filter(|l| program.locs[l.0 as usize].next_to.is_none() || written.contains(l))
        .collect();
    for w in &mut wide {
        if !w.stmts.is_empty() {
            w.targets = targets.clone();
        }
    }
    wide
}
