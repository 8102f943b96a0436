//! Execution graphs: one candidate execution as a petgraph graph, ready to draw.
//!
//! The graph is what every trace format renders ([`crate::report::trace`] as text, [`crate::report::dot`]
//! for graphviz, [`crate::report::svg`] on its own): one node per event, named `a`, `b`, `c`... in
//! thread and program order (initial writes are named `init`), with the text a person
//! reads (`W x=1`, `F mb`, `R[acquire] y=0`), and one edge per pair worth drawing:
//! - `po` between consecutive events of a thread (its transitive pairs are implied);
//! - `rf` from each write to the reads that read it, initial writes included;
//! - `co` between consecutive writes of a location, the initial write left out;
//! - `fr` from each read to the write that immediately follows, in coherence, the write it
//!   reads;
//! - on request, every pair of a model's derived relation (`ppo`, `hb`...), by name.
//!
//! Everything is in event order, so the same execution always gives the same graph.

use crate::exec::event::{EventKind, Tag};
use crate::exec::execution::AnyExecution;
use crate::exec::relation::{EventSet, Growable, Relation};
use crate::front::program::Program;
use crate::models::model::Pairs;
use petgraph::graph::DiGraph;
use std::collections::BTreeSet;

/// A thread with more events than this is shortened: each run of two or more consecutive
/// events that no edge but `po` touches, other than its first and last event, is drawn as
/// one box that says how many events it stands for.
pub const LONG_THREAD: usize = 16;

/// With more initial writes than this, those no edge touches are left out.
pub const MANY_INITS: usize = 8;

/// Threads are drawn side by side in bands of at most this many, one band below the other,
/// and the initial writes in rows of at most this many.
pub const BAND: usize = 8;

/// One event as drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventNode {
    /// The event's index in its execution.
    pub index: usize,
    /// Its short name: `a`, `b`... or `init`.
    pub name: String,
    /// What it does: `W x=1`, `R[acquire] y=0`, `F mb`.
    pub text: String,
    /// Its thread, `None` for an initial write.
    pub thread: Option<usize>,
    /// Its position in its thread's program order as drawn (initial writes: by
    /// location).
    pub row: usize,
    /// For a box that stands for a run of elided events, how many; 0 for an event.
    pub elided: usize,
}

impl EventNode {
    /// `a: W x=1`.
    pub fn label(&self) -> String {
        format!("{}: {}", self.name, self.text)
    }
}

/// Which relation an edge belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EdgeKind {
    /// Program order.
    Po,
    /// Reads-from.
    Rf,
    /// Coherence.
    Co,
    /// From-reads.
    Fr,
    /// A model relation drawn on request.
    Model,
}

/// One edge as drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The relation.
    pub kind: EdgeKind,
    /// Its name: `po`, `rf`, `co`, `fr`, or the model relation's.
    pub label: String,
}

/// One execution, drawn.
#[derive(Clone, Debug)]
pub struct ExecutionGraph {
    /// A title: the test, which execution, under which model.
    pub title: String,
    /// The thread names, `P0`, `P1`...
    pub threads: Vec<String>,
    /// The events and edges.
    pub graph: DiGraph<EventNode, Edge>,
    /// The final state, as herd7 prints a state line.
    pub state: String,
    /// The flags the execution raises.
    pub flags: Vec<&'static str>,
    /// What the drawing leaves out, one sentence each (empty when it shows every event).
    pub notes: Vec<String>,
}

/// One box of a drawing: an event, or a run of elided events of one thread.
struct Group {
    /// The events, in program order.
    events: Vec<usize>,
    /// Its row in its thread's column (or among the initial writes).
    row: usize,
}

/// Which events a drawing shows, and how it groups the others.
struct Layout {
    /// The boxes, by their first event.
    nodes: Vec<Group>,
    notes: Vec<String>,
}

impl Layout {
    /// The boxes of `x`, an execution of `p`, whose events an edge other than `po`
    /// touches when `touched` says so.
    fn new(p: &Program, x: &AnyExecution, touched: &[bool]) -> Layout {
        let events = &x.events;
        let mut nodes = Vec::new();
        let mut notes = Vec::new();
        let inits: Vec<usize> = (0..events.len())
            .filter(|&e| events[e].thread.is_none())
            .collect();
        let shown_inits: Vec<usize> = if inits.len() > MANY_INITS {
            inits.iter().copied().filter(|&e| touched[e]).collect()
        } else {
            inits.clone()
        };
        if shown_inits.len() < inits.len() {
            let left_out = inits.len() - shown_inits.len();
            notes.push(format!(
                "not drawn: the initial writes of {left_out} of {} locations, which no edge touches",
                inits.len()
            ));
        }
        nodes.extend(shown_inits.into_iter().enumerate().map(|(row, e)| Group {
            events: vec![e],
            row,
        }));
        let (mut elided, mut groups) = (0, 0);
        for t in 0..p.threads.len() {
            let column: Vec<usize> = (0..events.len())
                .filter(|&e| events[e].thread == Some(t))
                .collect();
            let long = column.len() > LONG_THREAD;
            let kept = |i: usize| !long || i == 0 || i + 1 == column.len() || touched[column[i]];
            let (mut i, mut row) = (0, 0);
            while i < column.len() {
                let mut j = i + 1;
                if !kept(i) {
                    while j < column.len() && !kept(j) {
                        j += 1;
                    }
                }
                // A run of one is drawn as itself: a box for it would save nothing.
                if j - i > 1 {
                    elided += j - i;
                    groups += 1;
                }
                nodes.push(Group {
                    events: column[i..j].to_vec(),
                    row,
                });
                row += 1;
                i = j;
            }
        }
        if elided > 0 {
            notes.push(format!(
                "elided: {elided} events of threads longer than {LONG_THREAD}, which no edge but po touches, drawn as {groups} {}",
                if groups == 1 { "box" } else { "boxes" }
            ));
        }
        nodes.sort_by_key(|g| g.events[0]);
        Layout { nodes, notes }
    }
}

/// The short name of event `e`: `init` for an initial write, else `a`, `b`, ... `z`,
/// `aa`, `ab`... in event order.
pub fn event_name(x: &AnyExecution, e: usize) -> String {
    let events = &x.events;
    if events[e].thread.is_none() {
        return "init".into();
    }
    let first = events.iter().take_while(|e| e.thread.is_none()).count();
    let mut k = e - first;
    let mut name = Vec::new();
    loop {
        name.push(b'a' + (k % 26) as u8);
        if k < 26 {
            break;
        }
        k = k / 26 - 1;
    }
    name.reverse();
    String::from_utf8(name).unwrap_or_default()
}

/// What event `e` does, as a person reads it: `W x=1`, `R[acquire] y=0`, `F mb`.
///
/// Accesses show their annotations in brackets, except `once` (the common case) and the
/// initial write's; an access with none is `plain`.
pub fn event_text(p: &Program, x: &AnyExecution, e: usize) -> String {
    let ev = &x.events[e];
    let loc = ev
        .loc
        .map(|l| p.locs[l.0 as usize].name.clone())
        .unwrap_or_default();
    let tags: Vec<&str> = ev
        .tags
        .iter()
        .filter(|t| !matches!(t, Tag::Init | Tag::Once))
        .map(Tag::name)
        .chain(ev.tags.other_words())
        .collect();
    match ev.kind {
        EventKind::Fence => {
            let name = tags.join(",");
            if loc.is_empty() {
                format!("F {name}")
            } else {
                format!("F {name} {loc}")
            }
        }
        kind => {
            let k = if kind == EventKind::Read { "R" } else { "W" };
            let ann = if ev.has(Tag::Init) || ev.has(Tag::Once) && tags.is_empty() {
                String::new()
            } else if tags.is_empty() {
                "[plain]".into()
            } else {
                format!("[{}]", tags.join(","))
            };
            format!("{k}{ann} {loc}={}", p.value_text(ev.value))
        }
    }
}

/// `a: W x=1`: an event's name and text.
pub fn event_label(p: &Program, x: &AnyExecution, e: usize) -> String {
    format!("{}: {}", event_name(x, e), event_text(p, x, e))
}

/// The pairs of a transitive relation that no third event splits (its Hasse diagram).
fn immediate(r: &Relation<Growable>) -> Relation<Growable> {
    r.minus(&r.seq(r))
}

/// The edges drawn of the base relations of `x`: `po`, `rf`, `co` and `fr`, in that order,
/// each as its pairs (see the module's documentation).
fn base_edges(x: &AnyExecution) -> [(EdgeKind, &'static str, Pairs); 4] {
    let co_imm = immediate(&x.co);
    let fr = x.rf.inverse().seq(&co_imm);
    let init = x.tagged(Tag::Init);
    let co = co_imm.restrict_domain(&(EventSet::full(x.len()) - init));
    [
        (EdgeKind::Po, "po", immediate(&x.po).pairs().collect()),
        (EdgeKind::Rf, "rf", x.rf.pairs().collect()),
        (EdgeKind::Co, "co", co.pairs().collect()),
        (EdgeKind::Fr, "fr", fr.pairs().collect()),
    ]
}

impl ExecutionGraph {
    /// Draws `x`, an execution of `p`, with the model relations `extra` added by name.
    ///
    /// A long thread is shortened (see [`LONG_THREAD`]), and the initial writes no edge
    /// touches are left out when there are many (see [`MANY_INITS`]); [`Self::notes`] says
    /// what was left out.
    pub fn new(
        p: &Program,
        x: &AnyExecution,
        title: String,
        state: String,
        flags: Vec<&'static str>,
        extra: &[(String, Pairs)],
    ) -> ExecutionGraph {
        let events = &x.events;
        let mut edges: Vec<(EdgeKind, String, Pairs)> = base_edges(x)
            .into_iter()
            .map(|(kind, label, r)| (kind, label.to_string(), r))
            .collect();
        edges.extend(
            extra
                .iter()
                .map(|(name, r)| (EdgeKind::Model, name.clone(), r.clone())),
        );
        // The events an edge other than `po` touches are always drawn.
        let mut touched = vec![false; events.len()];
        for (_, _, r) in edges.iter().filter(|(k, _, _)| *k != EdgeKind::Po) {
            for &(a, b) in r {
                touched[a] = true;
                touched[b] = true;
            }
        }
        let layout = Layout::new(p, x, &touched);
        let mut graph = DiGraph::new();
        let mut node_of = vec![None; events.len()];
        for group in &layout.nodes {
            let (first, last) = (group.events[0], group.events[group.events.len() - 1]);
            let (name, text) = if group.events.len() == 1 {
                (event_name(x, first), event_text(p, x, first))
            } else {
                (
                    format!("{}..{}", event_name(x, first), event_name(x, last)),
                    format!("{} events elided", group.events.len()),
                )
            };
            let node = graph.add_node(EventNode {
                index: first,
                name,
                text,
                thread: events[first].thread,
                row: group.row,
                elided: if group.events.len() > 1 {
                    group.events.len()
                } else {
                    0
                },
            });
            for &e in &group.events {
                node_of[e] = Some(node);
            }
        }
        for (kind, label, r) in &edges {
            let mut drawn = BTreeSet::new();
            for &(a, b) in r {
                let (Some(na), Some(nb)) = (node_of[a], node_of[b]) else {
                    continue;
                };
                // `po` into, out of and inside a group of elided events is drawn once.
                if na == nb || !drawn.insert((na, nb)) {
                    continue;
                }
                graph.add_edge(
                    na,
                    nb,
                    Edge {
                        kind: *kind,
                        label: label.clone(),
                    },
                );
            }
        }
        ExecutionGraph {
            title,
            threads: p.threads.iter().map(|t| format!("P{}", t.number)).collect(),
            graph,
            state,
            flags,
            notes: layout.notes,
        }
    }

    /// The events of thread `t`, in program order.
    pub fn column(&self, t: usize) -> Vec<&EventNode> {
        let mut col: Vec<&EventNode> = self
            .graph
            .node_weights()
            .filter(|n| n.thread == Some(t))
            .collect();
        col.sort_by_key(|n| n.row);
        col
    }

    /// The threads of each band, in order (see [`BAND`]): one band for at most [`BAND`]
    /// threads.
    pub fn bands(&self) -> Vec<std::ops::Range<usize>> {
        (0..self.threads.len())
            .step_by(BAND)
            .map(|t| t..(t + BAND).min(self.threads.len()))
            .collect()
    }

    /// The initial writes, by location.
    pub fn inits(&self) -> Vec<&EventNode> {
        self.graph
            .node_weights()
            .filter(|n| n.thread.is_none())
            .collect()
    }

    /// Every edge as (source, edge, target), in the order they were added: by relation,
    /// then by source and target event.
    pub fn edges(&self) -> Vec<(&EventNode, &Edge, &EventNode)> {
        self.graph
            .edge_indices()
            .filter_map(|i| {
                let (a, b) = self.graph.edge_endpoints(i)?;
                Some((&self.graph[a], &self.graph[i], &self.graph[b]))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::event::{Event, EventKind, Loc, Tags, Value};
    use crate::exec::execution::Execution;
    use crate::front::program::LocDecl;

    fn event(thread: Option<usize>, kind: EventKind, tags: &[Tag], value: i64) -> Event {
        Event {
            thread,
            kind,
            loc: (kind != EventKind::Fence).then_some(Loc(0)),
            value: Value::Int(value),
            tags: Tags::of(tags),
            source: None,
        }
    }

    fn execution(events: Vec<Event>) -> AnyExecution {
        let n = events.len();
        Execution {
            events,
            po: Relation::empty(n),
            rf: Relation::empty(n),
            co: Relation::empty(n),
            rmw: Relation::empty(n),
            addr: Relation::empty(n),
            data: Relation::empty(n),
            ctrl: Relation::empty(n),
            observed: EventSet::EMPTY,
            shape: 0,
        }
    }

    fn program() -> Program {
        Program {
            name: "T".into(),
            locs: vec![LocDecl {
                name: "x".into(),
                init: Value::Int(0),
                spinlock: false,
                next_to: None,
            }],
            threads: Vec::new(),
            shown: Vec::new(),
            filter: None,
            check_filter: true,
            condition: crate::front::program::Condition {
                quantifier: crate::front::program::Quantifier::Exists,
                prop: crate::front::program::Prop::True,
            },
            missing: Vec::new(),
            reads: None,
            addr_order: Default::default(),
        }
    }

    #[test]
    fn names_run_from_a_to_z_then_aa() {
        let mut events = vec![event(None, EventKind::Write, &[Tag::Init], 0)];
        events.extend((0..30).map(|_| event(Some(0), EventKind::Write, &[Tag::Once], 1)));
        let x = execution(events);
        let names: Vec<String> = [0, 1, 26, 27, 28]
            .iter()
            .map(|&e| event_name(&x, e))
            .collect();
        assert_eq!(names, ["init", "a", "z", "aa", "ab"]);
    }

    #[test]
    fn text_shows_annotations_but_once() {
        let p = program();
        let x = execution(vec![
            event(None, EventKind::Write, &[Tag::Init], 0),
            event(Some(0), EventKind::Write, &[Tag::Once], 1),
            event(Some(0), EventKind::Read, &[Tag::Acquire], 1),
            event(Some(0), EventKind::Read, &[], 2),
            event(Some(0), EventKind::Fence, &[Tag::Mb], 0),
            event(Some(0), EventKind::Read, &[Tag::Once, Tag::Mb, Tag::Rmw], 3),
        ]);
        let texts: Vec<String> = (0..x.len()).map(|e| event_text(&p, &x, e)).collect();
        assert_eq!(
            texts,
            [
                "W x=0",
                "W x=1",
                "R[acquire] x=1",
                "R[plain] x=2",
                "F mb",
                "R[mb,rmw] x=3"
            ]
        );
    }
}
