//! An analysis written for people (a table and the witnesses), for tools (JSON), or for
//! the book (Markdown).

use super::decide::Fate;
use super::site::{Site, SiteKind};
use super::variant;
use super::{Analysis, search::SiteResult};
use crate::engine::outcome::Verdict;
use serde_json::{Value, json};
use std::fmt::Write as _;

/// A choice as a cell of a table: its text, or `(no fence)`.
fn shown(text: &str) -> String {
    if text.is_empty() {
        "(no fence)".to_string()
    } else {
        text.to_string()
    }
}

/// What each site alone says: `needed`, `weaker would do`, `not needed` (for a
/// `Sometimes` test: `keeps Sometimes`).
pub fn status(a: &Analysis, s: &Site, r: &SiteResult) -> &'static str {
    if r.fates.is_empty() {
        return "weakest already";
    }
    let keeps = r.keeps();
    if a.verdict == Verdict::Sometimes {
        return if keeps.len() == r.fates.len() {
            "weakening keeps Sometimes"
        } else {
            "some weakening loses Sometimes"
        };
    }
    if keeps.is_empty() {
        "needed"
    } else if keeps.iter().any(|&c| s.choices[c].strength == 0) {
        "not needed"
    } else {
        "stronger than needed"
    }
}

fn list(s: &Site, choices: impl IntoIterator<Item = usize>) -> String {
    let v: Vec<String> = choices
        .into_iter()
        .map(|c| shown(&s.choices[c].text))
        .collect();
    if v.is_empty() {
        "-".to_string()
    } else {
        v.join(", ")
    }
}

/// The weakest choices of a site's `keeps` (none weaker keeps).
pub fn weakest_keeps(s: &Site, r: &SiteResult) -> Vec<usize> {
    let keeps = r.keeps();
    keeps
        .iter()
        .copied()
        .filter(|&c| {
            !keeps
                .iter()
                .any(|&d| super::lattice::weaker(s.choices[d].strength, s.choices[c].strength))
        })
        .collect()
}

fn loss(f: &Fate) -> String {
    match f {
        Fate::Holds => String::new(),
        Fate::Lost { flag: None } => "verdict".to_string(),
        Fate::Lost { flag: Some(f) } => format!("flag {f}"),
    }
}

fn verdict_text(a: &Analysis) -> String {
    let mut v = a.verdict.as_str().to_string();
    for f in &a.flags {
        v.push_str(&format!(" (flag {f})"));
    }
    v
}

/// The analysis as text: a table of the sites, then the witnesses, then the weakest
/// assignments or the strengthenings.
pub fn text(a: &Analysis) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Test {} under {}: {} for {}",
        a.name,
        a.model,
        verdict_text(a),
        a.condition
    );
    let _ = writeln!(
        out,
        "{} ordering site(s); {} variant(s) decided in {:.3} s",
        a.sites.len(),
        a.decided,
        a.elapsed.as_secs_f64()
    );
    out.push('\n');
    let mut rows = vec![[
        "line".to_string(),
        "P".to_string(),
        "as written".to_string(),
        "status".to_string(),
        "weakest that keep".to_string(),
        "first to lose".to_string(),
    ]];
    for (s, r) in a.sites.iter().zip(&a.each) {
        let first: Vec<usize> = r.witnesses.iter().map(|(c, _)| *c).collect();
        rows.push([
            s.line.to_string(),
            s.thread.to_string(),
            s.shown(),
            status(a, s, r).to_string(),
            list(s, weakest_keeps(s, r)),
            list(s, first),
        ]);
    }
    out.push_str(&table(&rows));
    for (s, r) in a.sites.iter().zip(&a.each) {
        for (c, w) in &r.witnesses {
            let fate = r
                .fates
                .iter()
                .find(|(d, _)| d == c)
                .map(|(_, f)| loss(f))
                .unwrap_or_default();
            match w {
                Some(w) => {
                    let _ = writeln!(
                        out,
                        "\nline {} ({}): {} loses the {fate}; the witness:",
                        s.line,
                        s.shown(),
                        shown(&s.choices[*c].text)
                    );
                    for l in w.lines() {
                        let _ = writeln!(out, "    {l}");
                    }
                }
                None => {
                    let _ = writeln!(
                        out,
                        "\nline {} ({}): {} keeps the verdict but raises the {fate} (a data \
                         race, where the test has none)",
                        s.line,
                        s.shown(),
                        shown(&s.choices[*c].text)
                    );
                }
            }
        }
    }
    if let Some(w) = &a.weakest {
        out.push('\n');
        let how = if w.exact {
            format!("exact: all {} assignments decided", w.space)
        } else {
            format!(
                "greedy, sites in source order then in reverse, until no site can be \
                 weakened further; {} assignments, too many to decide all",
                w.space
            )
        };
        let _ = writeln!(
            out,
            "Weakest whole assignments that keep {} ({how}):",
            verdict_text(a)
        );
        for (k, asg) in w.assignments.iter().enumerate() {
            let changes = variant::changed(&a.sites, asg);
            if changes.is_empty() {
                let _ = writeln!(
                    out,
                    "  {}. the test as written (no site can be weakened)",
                    k + 1
                );
                continue;
            }
            let _ = writeln!(out, "  {}.", k + 1);
            for i in changes {
                let _ = writeln!(out, "     {}", variant::describe(&a.sites, i, asg[i]));
            }
        }
        if w.non_monotone > 0 {
            let _ = writeln!(
                out,
                "  note: {} pair(s) where an assignment loses what a weaker one keeps: the \
                 model is not monotone here, so read the weakest assignments with care",
                w.non_monotone
            );
        }
    }
    if let Some(st) = &a.strengthening {
        out.push('\n');
        let slots = a.slots();
        if !st.possible {
            let _ = writeln!(
                out,
                "No strengthening forbids the outcome: even with every site at its strongest \
                 and a full fence in every gap, an execution reaches it:"
            );
            if let Some(w) = &st.witness {
                for l in w.lines() {
                    let _ = writeln!(out, "    {l}");
                }
            }
        } else {
            let _ = writeln!(
                out,
                "Cheapest strengthenings that forbid the outcome ({}):",
                completeness(st)
            );
            for (k, set) in st.sets.iter().enumerate() {
                let _ = writeln!(out, "  {}. cost {}", k + 1, set.cost);
                for &(i, c) in &set.changes {
                    let _ = writeln!(out, "     {}", variant::describe(&slots, i, c));
                }
            }
            if st.sets.is_empty() {
                let _ = writeln!(out, "  none found within the search's limits");
            }
        }
    }
    out
}

fn completeness(st: &super::strengthen::Strengthening) -> String {
    match st.complete_below {
        None => format!(
            "every minimal set of at most {} changes costing at most {} more than the \
             cheapest, cheapest first",
            st.max_changes,
            super::strengthen::MARGIN
        ),
        Some(c) => format!(
            "search stopped at its budget: complete below cost {c}, with at most {} changes",
            st.max_changes
        ),
    }
}

/// Rows of cells as an aligned table.
fn table(rows: &[[String; 6]]) -> String {
    let mut widths = [0usize; 6];
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    for r in rows {
        let mut line = String::new();
        for (k, (w, c)) in widths.iter().zip(r).enumerate() {
            if k > 0 {
                line.push_str("  ");
            }
            let pad = w - c.chars().count();
            if k == 0 {
                line.push_str(&" ".repeat(pad));
                line.push_str(c);
            } else {
                line.push_str(c);
                line.push_str(&" ".repeat(pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn change_json(slots: &[Site], i: usize, c: usize) -> Value {
    let s = &slots[i];
    json!({
        "line": s.line,
        "column": s.column,
        "thread": s.thread,
        "kind": if s.kind == SiteKind::Gap { "insert" } else { "replace" },
        "was": s.text,
        "text": s.choices[c].text,
        "cost": s.choices[c].cost.saturating_sub(s.choices[s.current].cost),
    })
}

/// The analysis as one JSON object.
pub fn json(file: &str, a: &Analysis) -> Value {
    let sites: Vec<Value> = a
        .sites
        .iter()
        .zip(&a.each)
        .map(|(s, r)| {
            let keeps: Vec<&str> = r
                .keeps()
                .into_iter()
                .map(|c| s.choices[c].text.as_str())
                .collect();
            let loses: Vec<Value> = r
                .fates
                .iter()
                .filter(|(_, f)| !f.holds())
                .map(|(c, f)| {
                    json!({
                        "text": s.choices[*c].text,
                        "lost": loss(f),
                        "witness": r.witnesses.iter().find(|(d, _)| d == c).and_then(|(_, w)| w.as_ref()),
                    })
                })
                .collect();
            json!({
                "line": s.line,
                "column": s.column,
                "thread": s.thread,
                "kind": s.kind.as_str(),
                "text": s.text,
                "order": s.part,
                "status": status(a, s, r),
                "needed": r.needed(),
                "keeps": keeps,
                "weakest": weakest_keeps(s, r).into_iter().map(|c| s.choices[c].text.as_str()).collect::<Vec<_>>(),
                "loses": loses,
            })
        })
        .collect();
    let mut j = json!({
        "file": file,
        "test": a.name,
        "model": a.model,
        "verdict": a.verdict.as_str(),
        "flags": a.flags,
        "condition": a.condition,
        "sites": sites,
        "variants_decided": a.decided,
        "seconds": a.elapsed.as_secs_f64(),
    });
    if let Some(w) = &a.weakest {
        j["weakest"] = json!({
            "exact": w.exact,
            "assignments_total": w.space.to_string(),
            "non_monotone_pairs": w.non_monotone,
            "assignments": w.assignments.iter().map(|asg| {
                variant::changed(&a.sites, asg).into_iter().map(|i| change_json(&a.sites, i, asg[i])).collect::<Vec<_>>()
            }).collect::<Vec<_>>(),
        });
    }
    if let Some(st) = &a.strengthening {
        let slots = a.slots();
        j["strengthenings"] = json!(
            st.sets
                .iter()
                .map(|set| json!({
                    "cost": set.cost,
                    "changes": set.changes.iter().map(|&(i, c)| change_json(&slots, i, c)).collect::<Vec<_>>(),
                }))
                .collect::<Vec<_>>()
        );
        j["strengthening"] = json!({
            "possible": st.possible,
            "complete": st.complete,
            "complete_below_cost": st.complete_below,
            "max_changes": st.max_changes,
            "witness": st.witness,
        });
    }
    j
}

/// The analysis as Markdown, for the book: a table of the sites and the weakest
/// assignments (a `Never` or `Always` test), or the strengthenings (a `Sometimes` test).
pub fn markdown(a: &Analysis) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "`{}` under {}: **{}** for `{}`.\n",
        a.name,
        a.model,
        verdict_text(a),
        a.condition
    );
    if a.verdict != Verdict::Sometimes {
        let _ = writeln!(
            out,
            "| line | P | as written | status | weakest that keep | first to lose |"
        );
        let _ = writeln!(out, "| ---: | -: | --- | --- | --- | --- |");
        let cell = |t: String| t.replace('|', "\\|");
        for (s, r) in a.sites.iter().zip(&a.each) {
            let first: Vec<usize> = r.witnesses.iter().map(|(c, _)| *c).collect();
            let _ = writeln!(
                out,
                "| {} | {} | `{}` | {} | {} | {} |",
                s.line,
                s.thread,
                cell(s.shown()),
                status(a, s, r),
                cell(code_list(s, weakest_keeps(s, r))),
                cell(code_list(s, first)),
            );
        }
    }
    if let Some(w) = &a.weakest {
        let how = if w.exact { "exact" } else { "greedy" };
        let _ = writeln!(out, "\nWeakest whole assignments ({how}, of {}):", w.space);
        for asg in &w.assignments {
            let changes: Vec<String> = variant::changed(&a.sites, asg)
                .into_iter()
                .map(|i| variant::describe(&a.sites, i, asg[i]))
                .collect();
            let _ = writeln!(
                out,
                "- {}",
                if changes.is_empty() {
                    "the test as written".to_string()
                } else {
                    changes.join("; ")
                }
            );
        }
    }
    if let Some(st) = &a.strengthening {
        let slots = a.slots();
        if !st.possible {
            let _ = writeln!(
                out,
                "No strengthening forbids the outcome: even the strongest variant (every \
                 site at its strongest, a full fence in every gap) reaches it."
            );
            return out;
        }
        let _ = writeln!(out, "Cheapest strengthenings ({}):", completeness(st));
        for set in &st.sets {
            let changes: Vec<String> = set
                .changes
                .iter()
                .map(|&(i, c)| variant::describe(&slots, i, c))
                .collect();
            let _ = writeln!(out, "- cost {}: {}", set.cost, changes.join("; "));
        }
    }
    out
}

fn code_list(s: &Site, choices: Vec<usize>) -> String {
    if choices.is_empty() {
        return "-".to_string();
    }
    choices
        .into_iter()
        .map(|c| format!("`{}`", shown(&s.choices[c].text)))
        .collect::<Vec<_>>()
        .join(", ")
}
