//! Reports: herd7's text format, JSON, and the summary table of a run over many files.
//!
//! The text format is herd7's, line for line, so that scripts written for herd7 keep
//! working:
//!
//! ```text
//! Test NAME Allowed|Forbidden|Required     (exists | ~exists | forall)
//! States N                                 (distinct final states)
//! 0:r0=0; 1:r0=1; [x]=2;                   (one line per state)
//! [Loop ]Ok|No                             (whether the condition holds; `Loop` when a run
//!                                           went round a `while` more than twice)
//! Witnesses
//! Positive: P Negative: N                  (allowed executions (not) satisfying it;
//!                                           for ~exists, those (not) satisfying ~P)
//! Flag data-race                           (one line per flag raised)
//! Condition exists (1:r0=1 /\ [x]=2)
//! Observation NAME Never|Sometimes|Always P N
//! Time NAME 0.01
//! Hash=HEX
//! ```
//!
//! followed by an empty line.
//! `Hash=` is herd7's own digest of the test ([`hazmat_litmus::herd_hash()`]), so that the
//! whole output, `Time` aside, is herd7's byte for byte.
//! A test stopped by a limit prints `Observation NAME Unknown P N` and, before it, a line
//! `Unknown REASON`.
//!
//! The state lines are written until a deadline, when one is given ([`herd_text_by`],
//! [`json_by`]): the first [`ALWAYS_SHOWN`] always, then as long as the deadline has not
//! passed (checked every 1,024 lines).
//! The states not written, and those the search left out for the same reason
//! ([`Outcome::states_left_out`]), are said in a line after those written,
//! `States left out: L of N (...)`, where `N` is the `States` line's count: a list cut
//! short never looks whole.

use crate::engine::outcome::{ALWAYS_SHOWN, Outcome};
use crate::exec::event::Value;
use crate::front::program::{Cell, Operand, Program, Prop, Quantifier};
use std::fmt::Write as _;
use std::time::Instant;

/// The word of the `Test` line.
pub fn kind(q: Quantifier) -> &'static str {
    match q {
        Quantifier::Exists => "Allowed",
        Quantifier::NotExists => "Forbidden",
        Quantifier::Forall => "Required",
    }
}

/// A cell as herd7 prints it in a state or condition: `0:r1` or `[x]`.
pub fn cell_text(p: &Program, c: Cell) -> String {
    match c {
        Cell::Reg { .. } | Cell::Missing(_) => p.cell_name(c),
        Cell::Loc(_) => format!("[{}]", p.cell_name(c)),
    }
}

/// How herd7 prints values: in decimal, or in hexadecimal (its `-hexa true`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Radix {
    /// `-3`, `4096`.
    #[default]
    Decimal,
    /// `0xfffffffd`, `0x1000`: an integer as herd7's 32-bit values print in hexadecimal
    /// (two's complement), one beyond 32 bits on 64.
    Hexadecimal,
}

/// A value as herd7 prints it in `radix`: an integer, or the name of the location it
/// points to.
pub fn value_text(p: &Program, v: Value, radix: Radix) -> String {
    match (v, radix) {
        (Value::Int(n), Radix::Hexadecimal) => match i32::try_from(n) {
            Ok(n) => format!("0x{:x}", n as u32),
            Err(_) => match u32::try_from(n) {
                Ok(n) => format!("0x{n:x}"),
                Err(_) => format!("0x{:x}", n as u64),
            },
        },
        _ => p.value_text(v),
    }
}

/// The condition as herd7 prints it: `exists (0:r0=1 /\ not ([x]=2))`.
pub fn condition_text(p: &Program) -> String {
    condition_text_in(p, Radix::Decimal)
}

/// The condition as herd7 prints it, its values in `radix`.
pub fn condition_text_in(p: &Program, radix: Radix) -> String {
    let q = match p.condition.quantifier {
        Quantifier::Exists => "exists",
        Quantifier::NotExists => "~exists",
        Quantifier::Forall => "forall",
    };
    format!("{q} ({})", prop_text(p, &p.condition.prop, radix))
}

fn prop_text(p: &Program, prop: &Prop, radix: Radix) -> String {
    /// Where a proposition stands, for herd7's choice of parentheses.
    #[derive(Clone, Copy, PartialEq)]
    enum Above {
        Top,
        And,
        Or,
        Implies,
    }
    /// herd7 parenthesises a connective within another unless both are the same, or a
    /// conjunction stands within a disjunction (so `(a => b) => c` prints as `a => b => c`).
    fn paren(above: Above, here: Above) -> bool {
        !matches!(
            (above, here),
            (Above::Top, _)
                | (Above::Implies, Above::Implies)
                | (Above::And, Above::And)
                | (Above::Or, Above::And | Above::Or)
        )
    }
    fn text(p: &Program, prop: &Prop, above: Above, radix: Radix) -> String {
        let join = |here: Above, a: &Prop, op: &str, b: &Prop| {
            let t = format!("{}{op}{}", text(p, a, here, radix), text(p, b, here, radix));
            if paren(above, here) {
                format!("({t})")
            } else {
                t
            }
        };
        match prop {
            Prop::True => "true".into(),
            Prop::False => "false".into(),
            Prop::Eq(c, v) => {
                let rhs = match v {
                    Operand::Value(v) => value_text(p, *v, radix),
                    Operand::Cell(c) => cell_text(p, *c),
                };
                format!("{}={}", cell_text(p, *c), rhs)
            }
            Prop::Not(q) => format!("not ({})", text(p, q, Above::Top, radix)),
            Prop::And(a, b) => join(Above::And, a, " /\\ ", b),
            Prop::Or(a, b) => join(Above::Or, a, " \\/ ", b),
            Prop::Implies(a, b) => join(Above::Implies, a, " => ", b),
        }
    }
    text(p, prop, Above::Top, radix)
}

/// One state line: `0:r0=0; 1:r0=1; [x]=2;`.
pub fn state_line(p: &Program, values: &[Value]) -> String {
    state_line_in(p, values, Radix::Decimal)
}

/// One state line, its values in `radix`.
pub fn state_line_in(p: &Program, values: &[Value], radix: Radix) -> String {
    let mut line = String::new();
    write_state_line_in(&mut line, p, values, radix);
    line
}

/// Appends [`state_line`] to `out`, allocating nothing more: the text output prints one
/// line per final state, and building each cell's text apart cost more than deciding
/// many tests.
pub fn write_state_line(out: &mut String, p: &Program, values: &[Value]) {
    write_state_line_in(out, p, values, Radix::Decimal);
}

/// Appends [`state_line_in`] to `out`, its values in `radix`; under herd7's
/// `-outcomereads true`, without the ghost registers that serve it
/// ([`crate::front::lower::reads`]).
pub fn write_state_line_in(out: &mut String, p: &Program, values: &[Value], radix: Radix) {
    let cells = p.shown.iter().copied().zip(values.iter().copied());
    match &p.reads {
        None => write_cells(out, p, cells, radix),
        Some(reads) => {
            let ghost = |c: Cell| {
                reads
                    .tracked
                    .iter()
                    .any(|t| t.loaded == c || t.written == Some(c))
            };
            write_cells(out, p, cells.filter(|&(c, _)| !ghost(c)), radix);
        }
    }
}

/// Appends the state of these cells and values to `out`, its values in `radix`.
fn write_cells(
    out: &mut String,
    p: &Program,
    cells: impl Iterator<Item = (Cell, Value)>,
    radix: Radix,
) {
    for (i, (c, v)) in cells.enumerate() {
        if i > 0 {
            out.push(' ');
        }
        match c {
            Cell::Reg { .. } | Cell::Missing(_) => p.write_cell_name(out, c),
            Cell::Loc(_) => {
                out.push('[');
                p.write_cell_name(out, c);
                out.push(']');
            }
        }
        out.push('=');
        match (v, radix) {
            (Value::Int(_), Radix::Hexadecimal) => out.push_str(&value_text(p, v, radix)),
            _ => p.write_value_text(out, v),
        }
        out.push(';');
    }
}

/// The state lines herd7 prints for the outcome `o` of `p`, its values in `radix`: one per
/// state, or under herd7's `-outcomereads true` ([`Program::reads`]) herd7's states made
/// of them (`report::reads`).
pub fn state_lines(p: &Program, o: &Outcome, radix: Radix) -> Vec<String> {
    let Some(reads) = &p.reads else {
        return o
            .states
            .iter()
            .map(|s| state_line_in(p, s, radix))
            .collect();
    };
    let r = crate::report::reads::restrict(p, reads, &o.states);
    r.states
        .iter()
        .map(|row| {
            let mut line = String::new();
            let cells = r.columns.iter().zip(row);
            let held = cells.filter_map(|(&c, v)| Some((c, (*v)?)));
            write_cells(&mut line, p, held, radix);
            line
        })
        .collect()
}

/// herd7's text output for one test, `Time` included, ending with an empty line.
pub fn herd_text(p: &Program, o: &Outcome, hash: &str, seconds: f64) -> String {
    herd_text_in(p, o, hash, seconds, Radix::Decimal)
}

/// herd7's text output for one test, its values in `radix`.
pub fn herd_text_in(p: &Program, o: &Outcome, hash: &str, seconds: f64, radix: Radix) -> String {
    herd_text_by(p, o, hash, seconds, radix, None).text
}

/// A report and how many of its final states it leaves out.
#[derive(Clone, Debug)]
pub struct Written<T> {
    /// The report.
    pub text: T,
    /// The final states it does not show: those the search left out
    /// ([`Outcome::states_left_out`]) and those not written before the deadline.
    pub left_out: usize,
}

/// Whether the writing of the `n`th state line should stop: the first [`ALWAYS_SHOWN`]
/// are always written, then the deadline is checked every 1,024 lines.
fn late(n: usize, deadline: Option<Instant>) -> bool {
    n >= ALWAYS_SHOWN && n.is_multiple_of(1024) && deadline.is_some_and(|d| Instant::now() >= d)
}

/// The state lines of [`state_lines`] written before `deadline` (see [`late`]), with how
/// many of the outcome's states are left out.
fn state_lines_by(
    p: &Program,
    o: &Outcome,
    radix: Radix,
    deadline: Option<Instant>,
) -> Written<Vec<String>> {
    let (all, total): (Box<dyn Iterator<Item = String>>, usize) = match &p.reads {
        None => (
            Box::new(o.states.iter().map(|st| state_line_in(p, st, radix))),
            o.states.len(),
        ),
        // herd7's states under `-outcomereads` are made of all of them at once.
        Some(_) => {
            let all = state_lines(p, o, radix);
            let total = all.len();
            (Box::new(all.into_iter()), total)
        }
    };
    let mut lines = Vec::new();
    for line in all {
        if late(lines.len(), deadline) {
            break;
        }
        lines.push(line);
    }
    let left_out = total - lines.len() + o.states_left_out;
    Written {
        text: lines,
        left_out,
    }
}

/// The line that says how many of the `total` states are left out, after those written.
fn left_out_line(left_out: usize, total: usize) -> String {
    format!(
        "States left out: {left_out} of {total} (the time limit passed before they were written)"
    )
}

/// herd7's text output for one test, its values in `radix`, its state lines written until
/// `deadline` (see the module's notes); with none, every state the outcome holds.
pub fn herd_text_by(
    p: &Program,
    o: &Outcome,
    hash: &str,
    seconds: f64,
    radix: Radix,
    deadline: Option<Instant>,
) -> Written<String> {
    let mut s = String::new();
    let q = p.condition.quantifier;
    let _ = writeln!(s, "Test {} {}", p.name, kind(q));
    let mut written = 0;
    let total;
    if p.reads.is_some() {
        let lines = state_lines_by(p, o, radix, deadline);
        total = lines.text.len() + lines.left_out;
        let _ = writeln!(s, "States {total}");
        for line in lines.text {
            s.push_str(&line);
            s.push('\n');
            written += 1;
        }
    } else {
        total = o.states.len() + o.states_left_out;
        let _ = writeln!(s, "States {total}");
        for st in &o.states {
            if late(written, deadline) {
                break;
            }
            write_state_line_in(&mut s, p, st, radix);
            s.push('\n');
            written += 1;
        }
    }
    let left_out = total - written;
    if left_out > 0 {
        let _ = writeln!(s, "{}", left_out_line(left_out, total));
    }
    // herd7 says `Loop` first when a run went round a loop more often than it unrolls.
    let looped = if o.stats.removed.cutoff > 0 {
        "Loop "
    } else {
        ""
    };
    // herd7 says `Undef` when an allowed execution has undefined behaviour (a model's
    // `undefined_unless` failed on it).
    let result = if o.flags.contains(&crate::models::model::UNDEFINED) {
        "Undef"
    } else if o.holds(q) {
        "Ok"
    } else {
        "No"
    };
    let _ = writeln!(s, "{looped}{result}");
    let _ = writeln!(s, "Witnesses");
    // herd7 counts the witnesses of the condition as a whole: for `~exists P`, the
    // positive ones are the executions that do not satisfy `P`; the `Observation` line
    // counts those that do, whatever the quantifier.
    let (yes, no) = match q {
        Quantifier::NotExists => (o.negative, o.positive),
        Quantifier::Exists | Quantifier::Forall => (o.positive, o.negative),
    };
    let _ = writeln!(s, "Positive: {yes} Negative: {no}");
    // herd7 keeps its flags in a map ordered by name, and prints them in that order.
    let mut flags = o.flags.clone();
    flags.sort_unstable();
    for f in &flags {
        let _ = writeln!(s, "Flag {f}");
    }
    let _ = writeln!(s, "Condition {}", condition_text_in(p, radix));
    if let Some(why) = &o.unknown {
        let _ = writeln!(s, "Unknown {why}");
    }
    let word = if o.unknown.is_some() {
        "Unknown"
    } else {
        o.verdict().as_str()
    };
    let _ = writeln!(
        s,
        "Observation {} {} {} {}",
        p.name, word, o.positive, o.negative
    );
    let _ = writeln!(s, "Time {} {:.2}", p.name, seconds);
    let _ = writeln!(s, "Hash={hash}");
    s.push('\n');
    Written { text: s, left_out }
}

/// One test as a JSON object.
pub fn json(
    p: &Program,
    o: &Outcome,
    model: &str,
    file: &str,
    hash: &str,
    seconds: f64,
) -> serde_json::Value {
    json_by(p, o, model, file, hash, seconds, None).text
}

/// One test as a JSON object, its state lines written until `deadline` (see the module's
/// notes); `states_left_out` counts the states not among `states`.
pub fn json_by(
    p: &Program,
    o: &Outcome,
    model: &str,
    file: &str,
    hash: &str,
    seconds: f64,
    deadline: Option<Instant>,
) -> Written<serde_json::Value> {
    let states = state_lines_by(p, o, Radix::Decimal, deadline);
    let text = serde_json::json!({
        "file": file,
        "test": p.name,
        "model": model,
        "kind": kind(p.condition.quantifier),
        "condition": condition_text(p),
        "ok": o.holds(p.condition.quantifier),
        "verdict": if o.unknown.is_some() { "Unknown" } else { o.verdict().as_str() },
        "unknown": o.unknown,
        "states": states.text,
        "states_left_out": states.left_out,
        "positive": count(o.positive),
        "negative": count(o.negative),
        "flags": o.flags,
        "time": seconds,
        "hash": hash,
        "stats": o.stats,
        "pieces": o.pieces,
    });
    Written {
        text,
        left_out: states.left_out,
    }
}

/// A number of executions in JSON: a number up to `u64::MAX`, a decimal string past it
/// (which JSON numbers of most readers cannot hold exactly).
fn count(n: u128) -> serde_json::Value {
    match u64::try_from(n) {
        Ok(n) => n.into(),
        Err(_) => n.to_string().into(),
    }
}

/// One row of the summary table.
#[derive(Clone, Debug)]
pub struct SummaryRow {
    /// The file checked.
    pub file: String,
    /// The verdict word, `Unknown`, or `error`.
    pub verdict: String,
    /// Positive and negative counts.
    pub counts: Option<(u128, u128)>,
    /// The expectation for the model, if the file states one.
    pub expected: Option<String>,
    /// `agree`, `DISAGREE`, or empty when not judged.
    pub judged: &'static str,
    /// Seconds spent.
    pub seconds: f64,
}

/// The summary table of a run over many files, with a totals line.
pub fn summary(rows: &[SummaryRow]) -> String {
    let w = rows.iter().map(|r| r.file.len()).max().unwrap_or(4).max(4);
    let counts: Vec<(String, String)> = rows
        .iter()
        .map(|r| {
            r.counts.map_or((String::new(), String::new()), |(p, n)| {
                (p.to_string(), n.to_string())
            })
        })
        .collect();
    // Counts are as wide as the widest (a test counted piece by piece may have 39 digits).
    let pw = counts.iter().map(|c| c.0.len()).max().unwrap_or(0).max(8);
    let nw = counts.iter().map(|c| c.1.len()).max().unwrap_or(0).max(8);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<w$}  {:<9}  {:>pw$}  {:>nw$}  {:<18}  {:<8}  {:>7}",
        "file", "verdict", "positive", "negative", "expected", "judged", "seconds"
    );
    for (r, (p, n)) in rows.iter().zip(counts) {
        let _ = writeln!(
            s,
            "{:<w$}  {:<9}  {:>pw$}  {:>nw$}  {:<18}  {:<8}  {:>7.3}",
            r.file,
            r.verdict,
            p,
            n,
            r.expected.as_deref().unwrap_or(""),
            r.judged,
            r.seconds
        );
    }
    let total: f64 = rows.iter().map(|r| r.seconds).sum();
    let errors = rows.iter().filter(|r| r.verdict == "error").count();
    let disagree = rows.iter().filter(|r| r.judged == "DISAGREE").count();
    let _ = writeln!(
        s,
        "{} files, {} errors, {} disagreements, {:.3} s in checks",
        rows.len(),
        errors,
        disagree,
        total
    );
    s
}
