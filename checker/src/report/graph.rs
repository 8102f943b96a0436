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
use crate::exec::execution::Execution;
use crate::exec::relation::{EventSet, Relation};
use crate::front::program::Program;
use petgraph::graph::{DiGraph, NodeIndex};

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
    /// Its position in its thread's program order (initial writes: by location).
    pub row: usize,
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
}

/// The short name of event `e`: `init` for an initial write, else `a`, `b`, ... `z`,
/// `aa`, `ab`... in event order.
pub fn event_name(x: &Execution, e: usize) -> String {
    let ev = &x.events[e];
    if ev.thread.is_none() {
        return "init".into();
    }
    let first = x.events.iter().take_while(|e| e.thread.is_none()).count();
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
pub fn event_text(p: &Program, x: &Execution, e: usize) -> String {
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
pub fn event_label(p: &Program, x: &Execution, e: usize) -> String {
    format!("{}: {}", event_name(x, e), event_text(p, x, e))
}

/// The pairs of a transitive relation that no third event splits (its Hasse diagram).
fn immediate(r: &Relation) -> Relation {
    r.minus(&r.seq(r))
}

impl ExecutionGraph {
    /// Draws `x`, an execution of `p`, with the model relations `extra` added by name.
    pub fn new(
        p: &Program,
        x: &Execution,
        title: String,
        state: String,
        flags: Vec<&'static str>,
        extra: &[(String, Relation)],
    ) -> ExecutionGraph {
        let mut graph = DiGraph::new();
        let mut rows = vec![0usize; p.threads.len()];
        let mut init_row = 0;
        let nodes: Vec<NodeIndex> = (0..x.len())
            .map(|e| {
                let thread = x.events[e].thread;
                let row = match thread {
                    Some(t) => {
                        rows[t] += 1;
                        rows[t] - 1
                    }
                    None => {
                        init_row += 1;
                        init_row - 1
                    }
                };
                graph.add_node(EventNode {
                    index: e,
                    name: event_name(x, e),
                    text: event_text(p, x, e),
                    thread,
                    row,
                })
            })
            .collect();
        let co_imm = immediate(&x.co);
        let fr = x.rf.inverse().seq(&co_imm);
        let init = x.tagged(Tag::Init);
        let mut add = |r: &Relation, kind: EdgeKind, label: &str| {
            for (a, b) in r.pairs() {
                graph.add_edge(
                    nodes[a],
                    nodes[b],
                    Edge {
                        kind,
                        label: label.to_string(),
                    },
                );
            }
        };
        add(&immediate(&x.po), EdgeKind::Po, "po");
        add(&x.rf, EdgeKind::Rf, "rf");
        add(
            &co_imm.restrict_domain(&(EventSet::full(x.len()) - init)),
            EdgeKind::Co,
            "co",
        );
        add(&fr, EdgeKind::Fr, "fr");
        for (name, r) in extra {
            add(r, EdgeKind::Model, name);
        }
        ExecutionGraph {
            title,
            threads: p.threads.iter().map(|t| format!("P{}", t.number)).collect(),
            graph,
            state,
            flags,
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

    fn execution(events: Vec<Event>) -> Execution {
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
            condition: crate::front::program::Condition {
                quantifier: crate::front::program::Quantifier::Exists,
                prop: crate::front::program::Prop::True,
            },
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
