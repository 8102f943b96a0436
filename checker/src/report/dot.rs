//! DOT: an execution graph for graphviz users.
//!
//! One cluster per thread holds its events in program order (kept in a column by the
//! `po` edges, drawn in grey); initial writes sit in a cluster of their own at the top.
//! `rf`, `co` and `fr` edges take the colours herd7's graphs use (red, blue, orange), model
//! relations are dashed and green.
//! The final state is the graph's label, with what the drawing leaves out (a box of
//! elided events is dashed).
//! Node identifiers are the event indices, so the output is deterministic.

use crate::report::graph::{EdgeKind, ExecutionGraph};
use std::fmt::Write as _;

/// Escapes a string for a DOT double-quoted string.
fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

/// The colour and style of an edge kind.
pub(crate) fn edge_style(kind: EdgeKind) -> (&'static str, &'static str) {
    match kind {
        EdgeKind::Po => ("#808080", "solid"),
        EdgeKind::Rf => ("#d62728", "solid"),
        EdgeKind::Co => ("#1f5fbf", "solid"),
        EdgeKind::Fr => ("#e07b00", "solid"),
        EdgeKind::Model => ("#2c8c2c", "dashed"),
    }
}

/// The graph in DOT, ending with a newline.
pub fn dot(g: &ExecutionGraph) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "digraph execution {{");
    let mut label = format!("{}\nfinal state: {}", g.title, g.state);
    for note in &g.notes {
        label.push('\n');
        label.push_str(note);
    }
    let _ = writeln!(s, "  label={};", quote(&label));
    let _ = writeln!(s, "  labelloc=t;");
    let _ = writeln!(s, "  node [shape=none, fontname=\"monospace\"];");
    let _ = writeln!(s, "  edge [fontname=\"monospace\", fontsize=10];");
    let inits = g.inits();
    if !inits.is_empty() {
        let _ = writeln!(s, "  subgraph cluster_init {{");
        let _ = writeln!(s, "    label=\"init\"; style=dotted;");
        for n in inits {
            let _ = writeln!(s, "    e{} [label={}];", n.index, quote(&n.label()));
        }
        let _ = writeln!(s, "  }}");
    }
    for (t, name) in g.threads.iter().enumerate() {
        let _ = writeln!(s, "  subgraph cluster_{t} {{");
        let _ = writeln!(s, "    label={};", quote(name));
        for n in g.column(t) {
            // A box of elided events is dashed.
            let style = if n.elided > 0 {
                ", style=dashed, shape=box"
            } else {
                ""
            };
            let _ = writeln!(s, "    e{} [label={}{style}];", n.index, quote(&n.label()));
        }
        let _ = writeln!(s, "  }}");
    }
    for (a, e, b) in g.edges() {
        let (colour, style) = edge_style(e.kind);
        let weight = if e.kind == EdgeKind::Po {
            ", weight=10"
        } else {
            ", constraint=false"
        };
        let _ = writeln!(
            s,
            "  e{} -> e{} [label={}, color=\"{colour}\", fontcolor=\"{colour}\", style={style}{weight}];",
            a.index,
            b.index,
            quote(&e.label)
        );
    }
    let _ = writeln!(s, "}}");
    s
}
