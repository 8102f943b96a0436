//! Hand-written SVG charts: grouped bars and lines, enough for the scale tables.
//!
//! Writing the few elements by hand keeps a plotting stack out of the build, and the output
//! is plain text that diffs well in `docs/`.

use std::fmt::Write;

const WIDTH: f64 = 880.0;
const HEIGHT: f64 = 420.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 250.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;
const COLOURS: [&str; 8] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
];

/// One named series of values, one per group (bars) or per x (lines); `None` is no value.
pub(crate) struct Series {
    pub(crate) name: String,
    pub(crate) values: Vec<Option<f64>>,
}

/// The vertical axis: linear from zero, or logarithmic over the data's decades.
struct Axis {
    lo: f64,
    hi: f64,
    log: bool,
}

impl Axis {
    fn new(series: &[Series], log: bool) -> Self {
        let values = series
            .iter()
            .flat_map(|s| s.values.iter().flatten().copied());
        let (mut lo, mut hi) = (f64::INFINITY, 0.0_f64);
        for v in values {
            if v > 0.0 {
                lo = lo.min(v);
            }
            hi = hi.max(v);
        }
        if hi <= 0.0 {
            hi = 1.0;
        }
        if log {
            let lo = 10f64.powf(lo.min(hi).log10().floor());
            let hi = 10f64.powf(hi.log10().ceil()).max(lo * 10.0);
            Axis { lo, hi, log }
        } else {
            Axis {
                lo: 0.0,
                hi: nice(hi * 1.1),
                log,
            }
        }
    }

    /// The y pixel of `v`.
    fn y(&self, v: f64) -> f64 {
        let plot = HEIGHT - TOP - BOTTOM;
        let f = if self.log {
            (v.max(self.lo).log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        HEIGHT - BOTTOM - f * plot
    }

    fn ticks(&self) -> Vec<f64> {
        if self.log {
            let mut t = Vec::new();
            let mut v = self.lo;
            while v <= self.hi * 1.0001 {
                t.push(v);
                v *= 10.0;
            }
            t
        } else {
            (0..=5).map(|i| self.hi * f64::from(i) / 5.0).collect()
        }
    }
}

/// A round number at least `v`: 1, 2 or 5 times a power of ten.
fn nice(v: f64) -> f64 {
    let p = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|&n| n >= v)
        .unwrap_or(10.0 * p)
}

fn label(v: f64) -> String {
    if v >= 1000.0 || v == 0.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else if v >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

fn frame(out: &mut String, title: &str, y_label: &str, axis: &Axis, series: &[Series]) {
    let _ = write!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{}" y="22" text-anchor="middle" font-size="15">{title}</text>
<text transform="translate(18 {}) rotate(-90)" text-anchor="middle">{y_label}</text>
"##,
        (LEFT + WIDTH - RIGHT) / 2.0,
        (TOP + HEIGHT - BOTTOM) / 2.0,
    );
    for t in axis.ticks() {
        let y = axis.y(t);
        let _ = writeln!(
            out,
            r##"<line x1="{LEFT}" x2="{}" y1="{y:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
            WIDTH - RIGHT,
            LEFT - 6.0,
            y + 4.0,
            label(t)
        );
    }
    let _ = writeln!(
        out,
        r##"<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{}" stroke="black"/><line x1="{LEFT}" x2="{}" y1="{}" y2="{}" stroke="black"/>"##,
        HEIGHT - BOTTOM,
        WIDTH - RIGHT,
        HEIGHT - BOTTOM,
        HEIGHT - BOTTOM
    );
    for (i, s) in series.iter().enumerate() {
        let y = TOP + 10.0 + 20.0 * i as f64;
        let x = WIDTH - RIGHT + 15.0;
        let _ = writeln!(
            out,
            r##"<rect x="{x}" y="{}" width="12" height="12" fill="{}"/><text x="{}" y="{y:.1}">{}</text>"##,
            y - 10.0,
            COLOURS[i % COLOURS.len()],
            x + 18.0,
            s.name
        );
    }
}

/// A grouped bar chart: one group per entry of `groups`, one bar per series.
pub(crate) fn bars(
    title: &str,
    y_label: &str,
    groups: &[String],
    series: &[Series],
    log: bool,
) -> String {
    let axis = Axis::new(series, log);
    let mut out = String::new();
    frame(&mut out, title, y_label, &axis, series);
    let group_w = (WIDTH - LEFT - RIGHT) / groups.len().max(1) as f64;
    let bar_w = group_w * 0.8 / series.len().max(1) as f64;
    for (g, name) in groups.iter().enumerate() {
        let x0 = LEFT + group_w * g as f64 + group_w * 0.1;
        let _ = writeln!(
            out,
            r##"<text x="{:.1}" y="{}" text-anchor="middle">{name}</text>"##,
            x0 + group_w * 0.4,
            HEIGHT - BOTTOM + 18.0
        );
        for (i, s) in series.iter().enumerate() {
            let Some(v) = s.values.get(g).copied().flatten() else {
                continue;
            };
            let y = axis.y(v);
            let _ = writeln!(
                out,
                r##"<rect x="{:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{}"><title>{}: {}</title></rect>"##,
                x0 + bar_w * i as f64,
                bar_w * 0.95,
                (HEIGHT - BOTTOM - y).max(0.0),
                COLOURS[i % COLOURS.len()],
                s.name,
                label(v)
            );
        }
    }
    out.push_str("</svg>\n");
    out
}

/// A line chart over the points `xs`, evenly spaced, one line per series.
pub(crate) fn lines(
    title: &str,
    x_label: &str,
    y_label: &str,
    xs: &[String],
    series: &[Series],
) -> String {
    let axis = Axis::new(series, false);
    let mut out = String::new();
    frame(&mut out, title, y_label, &axis, series);
    let step = (WIDTH - LEFT - RIGHT) / xs.len().max(1) as f64;
    let x_at = |i: usize| LEFT + step * (i as f64 + 0.5);
    for (i, x) in xs.iter().enumerate() {
        let _ = writeln!(
            out,
            r##"<text x="{:.1}" y="{}" text-anchor="middle">{x}</text>"##,
            x_at(i),
            HEIGHT - BOTTOM + 18.0
        );
    }
    let _ = writeln!(
        out,
        r##"<text x="{}" y="{}" text-anchor="middle">{x_label}</text>"##,
        (LEFT + WIDTH - RIGHT) / 2.0,
        HEIGHT - 15.0
    );
    for (i, s) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let points: Vec<String> = s
            .values
            .iter()
            .enumerate()
            .filter_map(|(j, v)| v.map(|v| format!("{:.1},{:.1}", x_at(j), axis.y(v))))
            .collect();
        let _ = writeln!(
            out,
            r##"<polyline fill="none" stroke="{colour}" stroke-width="2" points="{}"/>"##,
            points.join(" ")
        );
        for (j, v) in s.values.iter().enumerate() {
            if let Some(v) = v {
                let _ = writeln!(
                    out,
                    r##"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{colour}"><title>{}: {}</title></circle>"##,
                    x_at(j),
                    axis.y(*v),
                    s.name,
                    label(*v)
                );
            }
        }
    }
    out.push_str("</svg>\n");
    out
}
