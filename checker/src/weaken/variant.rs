//! Variants: a test with some of its sites written otherwise, as text.
//!
//! An assignment gives each slot (the sites, then the gaps) the index of one of its
//! choices; the variant is the source with the edits of the choices that differ from the
//! test's own, spliced in at their spans, so everything else stays as written.
//! A variant written to a file ([`file()`]) also gets a name of its own, the `Result:` line of
//! the model it was decided under, and a comment saying what changed.

use super::site::{Edit, Site, SiteKind};
use hazmat_litmus::ast::Test;

/// One choice per slot, by index into the slot's choices.
pub type Assignment = Vec<usize>;

/// The assignment that changes nothing.
pub fn original(slots: &[Site]) -> Assignment {
    slots.iter().map(|s| s.current).collect()
}

/// The slots an assignment changes, in order.
pub fn changed(slots: &[Site], a: &[usize]) -> Vec<usize> {
    (0..slots.len())
        .filter(|&i| a[i] != slots[i].current)
        .collect()
}

/// `source` with the edits of `a`'s changes.
pub fn text(source: &str, slots: &[Site], a: &[usize]) -> String {
    let edits = changed(slots, a)
        .into_iter()
        .filter_map(|i| slots[i].choices[a[i]].edit.clone())
        .collect();
    splice(source, edits)
}

/// `source` with `edits`, which must not overlap, applied.
pub fn splice(source: &str, mut edits: Vec<Edit>) -> String {
    edits.sort_by_key(|e| (e.start, e.end));
    let mut out = String::with_capacity(source.len() + 64);
    let mut at = 0;
    for e in edits {
        let start = e.start.max(at);
        out.push_str(&source[at..start]);
        out.push_str(&e.text);
        at = e.end.max(start);
    }
    out.push_str(&source[at..]);
    out
}

/// What the change of slot `i` to choice `c` is called in a variant's name:
/// `no-mb-L18`, `once-L21`, `mb-before-L17`.
pub fn tag(slots: &[Site], i: usize, c: usize) -> String {
    let s = &slots[i];
    let at = if slots.iter().enumerate().any(|(j, t)| {
        j != i && t.line == s.line && (t.kind == SiteKind::Gap) == (s.kind == SiteKind::Gap)
    }) {
        format!("L{}c{}", s.line, s.column)
    } else {
        format!("L{}", s.line)
    };
    let choice = &s.choices[c];
    // A compare-exchange's two orders share the call's place: the order names the site.
    let at = match s.part {
        Some(part) => format!("{part}-{at}"),
        None => at,
    };
    match s.kind {
        SiteKind::Gap => format!("{}-before-{at}", choice.tag),
        _ if choice.text.is_empty() => format!("no-{}-{at}", s.choices[s.current].tag),
        _ => format!("{}-{at}", choice.tag),
    }
}

/// The suffix that names a variant: `+no-mb-L18+once-L21`.
pub fn suffix(slots: &[Site], a: &[usize]) -> String {
    changed(slots, a)
        .into_iter()
        .map(|i| format!("+{}", tag(slots, i, a[i])))
        .collect()
}

/// One change, in words: `line 18: smp_mb() removed`.
pub fn describe(slots: &[Site], i: usize, c: usize) -> String {
    let s = &slots[i];
    let new = &s.choices[c].text;
    match s.kind {
        SiteKind::Gap => format!("{new} inserted before line {} (P{})", s.line, s.thread),
        _ if new.is_empty() => format!("line {}: {} removed", s.line, s.shown()),
        _ => format!("line {}: {} -> {new}", s.line, s.shown()),
    }
}

/// The variant as a file of its own: renamed `NAME+changes`, its `Result:` line for
/// `model` saying `result` (the other models' lines dropped, since it was not decided
/// under them), and a closing comment listing the changes.
pub fn file(
    source: &str,
    test: &Test,
    slots: &[Site],
    a: &[usize],
    model: &str,
    result: &str,
) -> String {
    let mut edits: Vec<Edit> = changed(slots, a)
        .into_iter()
        .filter_map(|i| slots[i].choices[a[i]].edit.clone())
        .collect();
    edits.push(Edit {
        start: test.name.span.start,
        end: test.name.span.end,
        text: format!("{}{}", test.name.name, suffix(slots, a)),
    });
    let ours = |m: &Option<String>| match m.as_deref() {
        None => model == "lkmm",
        Some(name) => name == model,
    };
    let line = if model == "lkmm" {
        format!("Result: {result}")
    } else {
        format!("Result({model}): {result}")
    };
    let mut written = false;
    for e in &test.expectations {
        if ours(&e.model) && !written {
            written = true;
            edits.push(Edit {
                start: e.span.start,
                end: e.span.end,
                text: line.clone(),
            });
            continue;
        }
        // Another model's line, or a second line for this one: dropped, with its comment
        // when the comment holds nothing else.
        let comment = test
            .comments
            .iter()
            .find(|c| c.span.start <= e.span.start && e.span.end <= c.span.end);
        match comment {
            Some(c) if c.text.trim() == source[e.span.start..e.span.end].trim() => {
                edits.push(whole_lines(source, c.span.start, c.span.end));
            }
            _ => edits.push(Edit {
                start: e.span.start,
                end: e.span.end,
                text: String::new(),
            }),
        }
    }
    let mut changes: Vec<String> = changed(slots, a)
        .into_iter()
        .map(|i| describe(slots, i, a[i]))
        .collect();
    if changes.is_empty() {
        changes.push("no change".to_string());
    }
    let mut note = format!("\n(*\n * Made by hazmat weaken from {}:\n", test.name.name);
    for c in changes {
        // `(*` and `*)` would open or close a comment.
        let c = c.replace("(*", "( *").replace("*)", "* )");
        note.push_str(&format!(" * - {c}\n"));
    }
    if !written {
        note.push_str(&format!(" *\n * {line}\n"));
    }
    note.push_str(" *)\n");
    let end = source.len();
    edits.push(Edit {
        start: end,
        end,
        text: if source.ends_with('\n') {
            note
        } else {
            format!("\n{note}")
        },
    });
    splice(source, edits)
}

/// The edit that removes `start..end`, with its whole lines when nothing else stands on
/// them.
fn whole_lines(source: &str, start: usize, end: usize) -> Edit {
    let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = source[end..]
        .find('\n')
        .map_or(source.len(), |i| end + i + 1);
    if source[line_start..start].trim().is_empty() && source[end..line_end].trim().is_empty() {
        Edit {
            start: line_start,
            end: line_end,
            text: String::new(),
        }
    } else {
        Edit {
            start,
            end,
            text: String::new(),
        }
    }
}
