//! SVG: an execution graph drawn by hazmat itself, with no external program.
//!
//! The layout is fixed and simple, so that the same execution always gives the same
//! picture, byte for byte:
//! - threads are columns, events are rows in program order, each event a labelled box;
//!   initial writes form a row of their own above the threads;
//! - many threads are drawn in bands of at most [`BAND`] columns, one band below the
//!   other, and many initial writes in rows of at most [`BAND`];
//! - what the graph leaves out ([`ExecutionGraph::notes`]) is said under the final state,
//!   and a box that stands for elided events is grey and dashed;
//! - `po` edges are straight grey arrows down a column;
//! - `rf`, `co`, `fr` and model relations are quadratic curves, bent to the left of their
//!   direction (so that `a -> b` and `b -> a` never overlap) and further apart for each
//!   parallel edge; each label sits beside its curve, on the outer side and clear of it
//!   (at another point of the curve for each parallel edge, so that their labels do not
//!   stack);
//! - the title and the final state head the picture; a final state wider than the drawing
//!   (and than `STATE_CHARS`) is wrapped between its `;`-separated cells.
//!
//! Text is monospace and its width estimated from its length; coordinates are printed
//! with one decimal.

use crate::report::dot::edge_style;
use crate::report::graph::{BAND, EdgeKind, ExecutionGraph};
use petgraph::visit::EdgeRef;
use std::collections::BTreeMap;
use std::fmt::Write as _;

const CHAR_W: f64 = 7.8;
const BOX_H: f64 = 24.0;
const ROW_H: f64 = 64.0;
const COL_GAP: f64 = 90.0;
const MARGIN: f64 = 24.0;
const HEADER_H: f64 = 56.0;
/// The height of each note under the final state.
const NOTE_H: f64 = 20.0;
/// The space between two bands of threads.
const BAND_GAP: f64 = 16.0;
/// The fewest characters a line of the final state may hold before it wraps.
const STATE_CHARS: usize = 80;

/// Escapes text for XML character data and attribute values.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

#[derive(Clone, Copy)]
struct Pt {
    x: f64,
    y: f64,
}

/// A box centred on `c` with half-sizes `hw`, `hh`.
#[derive(Clone, Copy)]
struct Boxed {
    c: Pt,
    hw: f64,
    hh: f64,
}

impl Boxed {
    /// Where the segment from the centre towards `p` leaves the box.
    fn exit_towards(self, p: Pt) -> Pt {
        let (dx, dy) = (p.x - self.c.x, p.y - self.c.y);
        if dx == 0.0 && dy == 0.0 {
            return self.c;
        }
        let tx = if dx == 0.0 {
            f64::INFINITY
        } else {
            self.hw / dx.abs()
        };
        let ty = if dy == 0.0 {
            f64::INFINITY
        } else {
            self.hh / dy.abs()
        };
        let t = tx.min(ty).min(1.0);
        Pt {
            x: self.c.x + dx * t,
            y: self.c.y + dy * t,
        }
    }
}

fn label_width(s: &str) -> f64 {
    s.chars().count() as f64 * CHAR_W
}

/// `text` in lines of at most `max` characters, broken after the `; ` between two cells of
/// a state (a cell longer than `max` keeps a line of its own).
fn wrap_cells(text: &str, max: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for cell in text.split_inclusive("; ") {
        if !line.is_empty()
            && line.trim_end().chars().count() + cell.trim_end().chars().count() > max
        {
            lines.push(line.trim_end().to_string());
            line = String::from("  ");
        }
        line.push_str(cell);
    }
    lines.push(line.trim_end().to_string());
    lines
}

/// The graph as an SVG document, ending with a newline.
pub fn svg(g: &ExecutionGraph) -> String {
    let bands = g.bands();
    // The widest band sets the width: the first, which is full when there are several.
    let nthreads = bands.first().map_or(1, |b| b.len()).max(1);
    let columns: Vec<_> = (0..g.threads.len()).map(|t| g.column(t)).collect();
    let inits = g.inits();
    let col_w = g
        .graph
        .node_weights()
        .map(|n| label_width(&n.label()) + 16.0)
        .chain(g.threads.iter().map(|t| label_width(t)))
        .fold(120.0, f64::max);
    let init_rows = inits.len().div_ceil(BAND);
    let width_threads = nthreads as f64 * col_w + (nthreads - 1) as f64 * COL_GAP;
    let width_inits = inits.len().min(BAND) as f64 * (col_w + 16.0);
    let content_w = width_threads.max(width_inits);
    let state_chars = ((content_w / CHAR_W) as usize).max(STATE_CHARS);
    let header = wrap_cells(&format!("final state: {}", g.state), state_chars);
    let width = g
        .notes
        .iter()
        .chain(header.iter())
        .chain([&g.title])
        .map(|t| label_width(t) + 2.0 * MARGIN)
        .fold(content_w + 2.0 * MARGIN, f64::max);
    // The lines of the final state past its first push the notes and the drawing down.
    let below_header = NOTE_H * (header.len() - 1) as f64;
    let top = MARGIN + HEADER_H + below_header + NOTE_H * g.notes.len() as f64;
    // Each band: its thread names, then its rows; the bands one below the other.
    let band_tops: Vec<f64> = bands
        .iter()
        .scan(top + init_rows as f64 * ROW_H, |y, band| {
            let at = *y;
            let depth = band.clone().map(|t| columns[t].len()).max().unwrap_or(0);
            *y += 28.0 + depth as f64 * ROW_H + BAND_GAP;
            Some(at)
        })
        .collect();
    let last_depth = bands.last().map_or(0, |b| {
        b.clone().map(|t| columns[t].len()).max().unwrap_or(0)
    });
    let bottom = band_tops
        .last()
        .map_or(top + init_rows as f64 * ROW_H, |y| {
            y + last_depth as f64 * ROW_H
        });
    let height = bottom + 28.0 + MARGIN;
    let x0 = (width - width_threads) / 2.0;

    // Event boxes, by event index.
    let mut boxes: BTreeMap<usize, Boxed> = BTreeMap::new();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" font-weight=\"bold\">{}</text>",
        MARGIN,
        MARGIN + 12.0,
        escape(&g.title)
    );
    for (i, line) in header.iter().enumerate() {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            MARGIN,
            MARGIN + 32.0 + NOTE_H * i as f64,
            escape(line)
        );
    }
    for (i, note) in g.notes.iter().enumerate() {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-style=\"italic\" fill=\"#555555\">{}</text>",
            MARGIN,
            MARGIN + 52.0 + below_header + NOTE_H * i as f64,
            escape(note)
        );
    }

    // Positions: the initial writes in rows of at most `BAND`, spread over the width.
    for (r, row) in inits.chunks(BAND).enumerate() {
        let step = content_w / row.len() as f64;
        let left = (width - content_w) / 2.0;
        for (i, n) in row.iter().enumerate() {
            let c = Pt {
                x: left + step * (i as f64 + 0.5),
                y: top + r as f64 * ROW_H + ROW_H / 2.0,
            };
            boxes.insert(n.index, node_box(c, &n.label()));
        }
    }
    // Thread names go on top of the edges, with the edge labels.
    let mut heads = String::new();
    for (band, &rows_top) in bands.iter().zip(&band_tops) {
        for (k, t) in band.clone().enumerate() {
            let cx = x0 + k as f64 * (col_w + COL_GAP) + col_w / 2.0;
            let _ = writeln!(
                heads,
                "<text x=\"{cx:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-weight=\"bold\" stroke=\"white\" stroke-width=\"4\" paint-order=\"stroke\">{}</text>",
                rows_top + 4.0,
                escape(&g.threads[t])
            );
            for (r, n) in columns[t].iter().enumerate() {
                let c = Pt {
                    x: cx,
                    y: rows_top + 28.0 + r as f64 * ROW_H + ROW_H / 2.0 - 8.0,
                };
                boxes.insert(n.index, node_box(c, &n.label()));
            }
        }
    }

    // Edges first, so that boxes and labels sit on top of them.
    let mut parallel: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    let mut labels = String::new();
    // The leftmost and rightmost x of the labels.
    let mut extent = (0.0_f64, width);
    for e in g.graph.edge_references() {
        let (a, b) = (&g.graph[e.source()], &g.graph[e.target()]);
        let edge = e.weight();
        let (Some(&ba), Some(&bb)) = (boxes.get(&a.index), boxes.get(&b.index)) else {
            continue;
        };
        let (colour, style) = edge_style(edge.kind);
        let dash = if style == "dashed" {
            " stroke-dasharray=\"5 3\""
        } else {
            ""
        };
        let marker = format!("url(#arrow-{})", kind_name(edge.kind));
        if edge.kind == EdgeKind::Po {
            let p = ba.exit_towards(bb.c);
            let q = bb.exit_towards(ba.c);
            let _ = writeln!(
                s,
                "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{colour}\" stroke-width=\"1.2\" marker-end=\"{marker}\"/>",
                p.x, p.y, q.x, q.y
            );
            continue;
        }
        let key = (a.index.min(b.index), a.index.max(b.index));
        let k = parallel.entry(key).or_insert(0);
        let rank = *k;
        *k += 1;
        let (dx, dy) = (bb.c.x - ba.c.x, bb.c.y - ba.c.y);
        let len = (dx * dx + dy * dy).sqrt().max(1.0);
        // The left normal of the direction, and a bend that grows with each parallel edge.
        let (nx, ny) = (dy / len, -dx / len);
        let bend = if dx.abs() < col_w / 2.0 {
            // (Nearly) the same column: swing wide to the side so the curve clears the
            // boxes between.
            ba.hw.max(bb.hw) + 30.0 + 22.0 * rank as f64
        } else {
            0.18 * len + 22.0 * rank as f64
        };
        let (p, ctrl, q) = if a.index == b.index {
            // An event related to itself: a loop out of the box's right side and back.
            let right = ba.c.x + ba.hw;
            (
                Pt {
                    x: right,
                    y: ba.c.y - 6.0,
                },
                Pt {
                    x: right + 40.0 + 22.0 * rank as f64,
                    y: ba.c.y,
                },
                Pt {
                    x: right,
                    y: ba.c.y + 6.0,
                },
            )
        } else {
            let ctrl = Pt {
                x: (ba.c.x + bb.c.x) / 2.0 + nx * bend,
                y: (ba.c.y + bb.c.y) / 2.0 + ny * bend,
            };
            (ba.exit_towards(ctrl), ctrl, bb.exit_towards(ctrl))
        };
        let _ = writeln!(
            s,
            "<path d=\"M {:.1} {:.1} Q {:.1} {:.1} {:.1} {:.1}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.4\"{dash} marker-end=\"{marker}\"/>",
            p.x, p.y, ctrl.x, ctrl.y, q.x, q.y
        );
        let at = label_place(p, ctrl, q, &edge.label, rank);
        let b = label_box(at, &edge.label);
        extent = (
            extent.0.min(b.c.x - b.hw - 4.0),
            extent.1.max(b.c.x + b.hw + 4.0),
        );
        let _ = writeln!(
            labels,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"{colour}\" stroke=\"white\" stroke-width=\"4\" paint-order=\"stroke\" font-size=\"12\">{}</text>",
            at.x,
            at.y + LABEL_BASELINE,
            escape(&edge.label)
        );
    }
    for n in g.graph.node_weights() {
        let Some(b) = boxes.get(&n.index) else {
            continue;
        };
        // A box of elided events is grey and dashed.
        let (fill, dash) = if n.elided > 0 {
            ("#eeeeee", " stroke-dasharray=\"4 3\"")
        } else if n.thread.is_none() {
            ("#f2f2f2", "")
        } else {
            ("#fffbe6", "")
        };
        let _ = writeln!(
            s,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"4\" fill=\"{fill}\" stroke=\"#555555\"{dash}/>",
            b.c.x - b.hw,
            b.c.y - b.hh,
            2.0 * b.hw,
            2.0 * b.hh
        );
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            b.c.x,
            b.c.y + 4.5,
            escape(&n.label())
        );
    }
    s.push_str(&heads);
    s.push_str(&labels);
    if !g.flags.is_empty() {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\">flags: {}</text>",
            MARGIN,
            height - MARGIN,
            escape(&g.flags.join(", "))
        );
    }
    // Labels beside the outermost curves may stand out of the columns: the picture widens
    // to hold them.
    let pad_left = (-extent.0).max(0.0).ceil();
    let width = width + pad_left + (extent.1 - width).max(0.0).ceil();
    let body = s;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.1}\" height=\"{height:.1}\" viewBox=\"0 0 {width:.1} {height:.1}\" font-family=\"monospace\" font-size=\"13\">"
    );
    let _ = writeln!(s, "<defs>");
    for kind in [
        EdgeKind::Po,
        EdgeKind::Rf,
        EdgeKind::Co,
        EdgeKind::Fr,
        EdgeKind::Model,
    ] {
        let (colour, _) = edge_style(kind);
        let _ = writeln!(
            s,
            "<marker id=\"arrow-{}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"{colour}\"/></marker>",
            kind_name(kind)
        );
    }
    let _ = writeln!(s, "</defs>");
    let _ = writeln!(
        s,
        "<rect x=\"0\" y=\"0\" width=\"{width:.1}\" height=\"{height:.1}\" fill=\"white\"/>"
    );
    if pad_left > 0.0 {
        let _ = writeln!(s, "<g transform=\"translate({pad_left:.1} 0)\">");
        s.push_str(&body);
        let _ = writeln!(s, "</g>");
    } else {
        s.push_str(&body);
    }
    let _ = writeln!(s, "</svg>");
    s
}

/// The width of a character of an edge label (monospace at 12 pixels).
pub const LABEL_CHAR_W: f64 = 7.2;
/// Half the height of an edge label's box.
pub const LABEL_HALF_H: f64 = 8.0;
/// How far below its box's centre an edge label's baseline is.
pub const LABEL_BASELINE: f64 = 4.0;

/// The box of an edge label centred on `c`: its text and a margin of two pixels.
fn label_box(c: Pt, label: &str) -> Boxed {
    Boxed {
        c,
        hw: label.chars().count() as f64 * LABEL_CHAR_W / 2.0 + 2.0,
        hh: LABEL_HALF_H,
    }
}

/// Where the label of the curve `p`-`ctrl`-`q` goes: beside the point at a parameter that
/// differs for each parallel edge (`rank`), so that parallel edges keep their labels apart,
/// on the side of the control point and just beyond the tangent there.
/// A quadratic curve lies wholly on the other side of each of its tangents, so the label's
/// box crosses no part of its own edge.
fn label_place(p: Pt, ctrl: Pt, q: Pt, label: &str, rank: usize) -> Pt {
    const PLACES: [f64; 4] = [0.4, 0.6, 0.28, 0.72];
    let t = PLACES[rank % PLACES.len()];
    let (u, v, w) = ((1.0 - t) * (1.0 - t), 2.0 * t * (1.0 - t), t * t);
    let on = Pt {
        x: u * p.x + v * ctrl.x + w * q.x,
        y: u * p.y + v * ctrl.y + w * q.y,
    };
    let tangent = Pt {
        x: (1.0 - t) * (ctrl.x - p.x) + t * (q.x - ctrl.x),
        y: (1.0 - t) * (ctrl.y - p.y) + t * (q.y - ctrl.y),
    };
    let len = (tangent.x * tangent.x + tangent.y * tangent.y)
        .sqrt()
        .max(1e-9);
    let (mut nx, mut ny) = (tangent.y / len, -tangent.x / len);
    if nx * (ctrl.x - on.x) + ny * (ctrl.y - on.y) < 0.0 {
        (nx, ny) = (-nx, -ny);
    }
    let b = label_box(on, label);
    let away = b.hw * nx.abs() + b.hh * ny.abs() + 2.0;
    Pt {
        x: on.x + nx * away,
        y: on.y + ny * away,
    }
}

fn node_box(c: Pt, label: &str) -> Boxed {
    Boxed {
        c,
        hw: label_width(label) / 2.0 + 8.0,
        hh: BOX_H / 2.0,
    }
}

fn kind_name(kind: EdgeKind) -> &'static str {
    match kind {
        EdgeKind::Po => "po",
        EdgeKind::Rf => "rf",
        EdgeKind::Co => "co",
        EdgeKind::Fr => "fr",
        EdgeKind::Model => "model",
    }
}
