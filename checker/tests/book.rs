//! The book (`docs/src/`, built by mdBook): every page is in `SUMMARY.md`, and every
//! relative link of every page leads to a file of the book (a page, or a picture), never
//! out of `docs/src/` (which the built book does not hold), and each `#anchor` to a
//! heading of the page it names, as mdBook makes their ids.

#[path = "common/scratch.rs"]
mod scratch;
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/src")
}

/// `path` with its `.` and `..` taken out, without touching the disk.
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// The text of a page with its `{{#include FILE}}` lines replaced by FILE's text, as
/// mdBook's preprocessor does.
fn expanded(page: &Path) -> String {
    let text = std::fs::read_to_string(page).expect("a readable page");
    let mut out = String::new();
    for line in text.lines() {
        match line
            .trim()
            .strip_prefix("{{#include ")
            .and_then(|l| l.strip_suffix("}}"))
        {
            Some(file) => {
                let included = page.parent().expect("a folder").join(file.trim());
                let body = std::fs::read_to_string(&included)
                    .unwrap_or_else(|e| panic!("{}: cannot include {}: {e}", page.display(), file));
                out.push_str(&body);
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// The lines of `text` outside fenced code blocks, with inline code taken out.
fn prose(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut lines = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut kept = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                kept.push_str(part);
            }
        }
        lines.push(kept);
    }
    lines
}

/// The id mdBook gives a heading: its text in lower case, spaces made `-`, and every
/// character but letters, digits, `-` and `_` dropped.
fn heading_id(heading: &str) -> String {
    let text: String = heading.split('`').collect();
    // A link in a heading keeps its text only.
    let mut plain = String::new();
    let mut rest = text.as_str();
    while let Some(open) = rest.find("](") {
        let close = rest[open..].find(')').map_or(rest.len(), |c| open + c + 1);
        plain.push_str(&rest[..open]);
        rest = &rest[close..];
    }
    plain.push_str(rest);
    plain
        .trim()
        .chars()
        .filter_map(|c| match c {
            c if c.is_alphanumeric() => Some(c.to_lowercase().next().unwrap_or(c)),
            c if c.is_whitespace() => Some('-'),
            '-' | '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The ids of the headings of a page.
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut ids = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced && line.starts_with('#') {
            ids.push(heading_id(line.trim_start_matches('#')));
        }
    }
    ids
}

/// The targets of the inline links and pictures of `line`: `[text](target)`.
fn links(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(open) = rest.find("](") {
        let after = &rest[open + 2..];
        let Some(close) = after.find(')') else {
            break;
        };
        out.push(after[..close].trim().to_string());
        rest = &after[close..];
    }
    out
}

/// The problems of the book's links, one line each.
fn broken_links(src: &Path) -> Vec<String> {
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).expect("SUMMARY.md");
    let listed: Vec<PathBuf> = prose(&summary)
        .iter()
        .flat_map(|l| links(l))
        .map(|l| normal(&src.join(l)))
        .collect();
    let mut pages: BTreeMap<PathBuf, String> = BTreeMap::new();
    for entry in std::fs::read_dir(src).expect("docs/src") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.insert(normal(&path), expanded(&path));
        }
    }
    let mut problems = Vec::new();
    for page in pages.keys() {
        if !page.ends_with("SUMMARY.md") && !listed.contains(page) {
            let name = page.file_name().unwrap_or_default().to_string_lossy();
            problems.push(format!("{name}: not in SUMMARY.md"));
        }
    }
    for (page, text) in &pages {
        let name = page.file_name().unwrap_or_default().to_string_lossy();
        for (n, line) in prose(text).iter().enumerate() {
            for target in links(line) {
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let at = format!("{name}:{}: `{target}`", n + 1);
                let (file, anchor) = match target.split_once('#') {
                    Some((f, a)) => (f, Some(a)),
                    None => (target.as_str(), None),
                };
                let path = if file.is_empty() {
                    page.clone()
                } else {
                    normal(&page.parent().expect("a folder").join(file))
                };
                if !path.starts_with(normal(src)) {
                    problems.push(format!("{at} leads out of the book"));
                } else if !path.exists() {
                    problems.push(format!("{at} names no file"));
                } else if path.extension().is_some_and(|e| e == "md") && !listed.contains(&path) {
                    problems.push(format!("{at} names a page SUMMARY.md does not list"));
                } else if let Some(anchor) = anchor {
                    let ids = pages.get(&path).map(|t| anchors(t)).unwrap_or_default();
                    if !ids.iter().any(|id| id == anchor) {
                        problems.push(format!("{at}: no heading has the id `{anchor}`"));
                    }
                }
            }
        }
    }
    problems
}

#[test]
fn every_link_of_the_book_leads_to_a_page_and_heading_of_the_book() {
    let problems = broken_links(&src());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The architecture is a page of the book, not a file beside it.
    let intro = std::fs::read_to_string(src().join("introduction.md")).expect("introduction");
    assert!(intro.contains("](architecture.md)"), "{intro}");
    assert!(expanded(&src().join("architecture.md")).starts_with("# Architecture\n"));
}

/// The check finds each kind of broken link in a book made for it.
#[test]
fn a_broken_link_is_found() {
    let dir = scratch::folder("book");
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).expect("written");
    write("SUMMARY.md", "# Summary\n\n- [A](a.md)\n");
    write(
        "a.md",
        "# A page\n\n## The `--model` option\n\n[ok](#the---model-option) [out](../ARCHITECTURE.md) \
         [none](b.md) [anchor](a.md#nowhere) `[code](c.md)`\n\n```\n[fenced](d.md)\n```\n",
    );
    write("c.md", "# Unlisted\n");
    let problems = broken_links(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        problems,
        [
            "c.md: not in SUMMARY.md",
            "a.md:5: `../ARCHITECTURE.md` leads out of the book",
            "a.md:5: `b.md` names no file",
            "a.md:5: `a.md#nowhere`: no heading has the id `nowhere`"
        ]
    );
}
