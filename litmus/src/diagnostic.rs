//! Diagnostics as a person reads them: the place in the source with a caret under it, the
//! notes, and the names a misspelt one was probably meant to be.
//!
//! The parser's errors use it, and so does the checker for its own errors and warnings, so
//! that every message about a litmus file looks the same.

use crate::ast::{Span, line_col};

/// How serious a diagnostic is.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Severity {
    /// The file cannot be checked.
    Error,
    /// The file is checked, but probably does not say what its author meant.
    Warning,
}

impl Severity {
    /// The word that introduces the message.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// Renders a diagnostic: `file:line:col: severity: message`, the source line, a caret under
/// `span` (on its first line), and one `= note:` line per note.
///
/// A span outside `source` (or inside a character) is clamped to it, so a caller that passes
/// another text than the one parsed gets a rendering, not a panic.
pub fn render(
    file_name: &str,
    source: &str,
    span: Span,
    severity: Severity,
    message: &str,
    notes: &[String],
) -> String {
    let (line, col) = line_col(source, span.start);
    render_at(
        file_name,
        source,
        (line, col),
        span,
        severity,
        message,
        notes,
    )
}

/// [`render`], for a diagnostic whose line and column were computed against the text it
/// came from (which `source` may not be).
pub(crate) fn render_at(
    file_name: &str,
    source: &str,
    (line, col): (usize, usize),
    span: Span,
    severity: Severity,
    message: &str,
    notes: &[String],
) -> String {
    let mut out = format!(
        "{file_name}:{line}:{col}: {}: {message}\n",
        severity.as_str()
    );
    let line_text = source.lines().nth(line.saturating_sub(1)).unwrap_or("");
    let gutter = line.to_string();
    let pad = " ".repeat(gutter.len());
    out.push_str(&format!("{pad} |\n{gutter} | {line_text}\n"));
    // The caret goes under the column, tabs kept so it lines up.
    let prefix: String = line_text
        .chars()
        .take(col.saturating_sub(1))
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    let width = source
        .get(span.start..span.end)
        .and_then(|s| s.lines().next())
        .map_or(1, |s| s.chars().count().max(1));
    out.push_str(&format!("{pad} | {prefix}{}\n", "^".repeat(width)));
    for note in notes {
        out.push_str(&format!("{pad} = note: {note}\n"));
    }
    out
}

/// Up to `max` of the `candidates` that `word` was probably meant to be, nearest first (ties
/// in the candidates' order): those within a few edits of it, ignoring case, where swapping
/// two neighbouring letters is one edit.
/// A word of fewer than four letters is only matched up to case; one of four to seven
/// letters within one edit, and one more edit is allowed for every four more letters.
///
/// # Complexity
///
/// `O(n · |word| · |candidate|)` over the `n` candidates.
pub fn closest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    max: usize,
) -> Vec<&'a str> {
    let len = word.chars().count();
    let budget = if len < 4 { 0 } else { len / 4 };
    let word = word.to_ascii_lowercase();
    let mut near: Vec<(usize, usize, &'a str)> = candidates
        .into_iter()
        .enumerate()
        .filter(|(_, c)| *c != word)
        .filter_map(|(k, c)| {
            let d = edit_distance(&word, &c.to_ascii_lowercase());
            (d <= budget).then_some((d, k, c))
        })
        .collect();
    near.sort_unstable();
    near.into_iter().take(max).map(|(_, _, c)| c).collect()
}

/// "did you mean `a`?", "did you mean `a` or `b`?", "did you mean `a`, `b` or `c`?"; `None`
/// for no name.
pub fn did_you_mean(names: &[&str]) -> Option<String> {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    let list = match quoted.as_slice() {
        [] => return None,
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    };
    Some(format!("did you mean {list}?"))
}

/// The optimal-string-alignment distance between two short ASCII words: insertions,
/// deletions, substitutions and swaps of neighbours each cost one.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let w = b.len() + 1;
    // Three rows: two back (for swaps), the previous one, and the one being filled.
    let mut rows = vec![vec![0usize; w]; 3];
    // Row `i` lives at `i % 3`; row 0 is the distance from the empty prefix.
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        let (cur, prev, back) = (i % 3, (i + 2) % 3, (i + 1) % 3);
        rows[cur][0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[prev][j - 1] + cost)
                .min(rows[prev][j] + 1)
                .min(rows[cur][j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[back][j - 2] + 1);
            }
            rows[cur][j] = d;
        }
    }
    rows[a.len() % 3][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("abc", ""), 3);
        assert_eq!(edit_distance("exist", "exists"), 1);
        assert_eq!(edit_distance("exsits", "exists"), 1);
        assert_eq!(edit_distance("smp_memb", "smp_mb"), 2);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn near_names() {
        let table = [
            "smp_mb",
            "smp_rmb",
            "smp_wmb",
            "smp_load_acquire",
            "READ_ONCE",
        ];
        assert_eq!(
            closest("smp_load_aquire", table, 3),
            vec!["smp_load_acquire"]
        );
        assert_eq!(
            closest("smp_memb", table, 3),
            vec!["smp_mb", "smp_rmb", "smp_wmb"]
        );
        assert_eq!(closest("smp_memb", table, 1), vec!["smp_mb"]);
        assert_eq!(closest("read_once", table, 3), vec!["READ_ONCE"]);
        assert!(closest("spin_unlock_wait", table, 3).is_empty());
        assert!(closest("mb", table, 3).is_empty());
    }

    #[test]
    fn suggestions_read_as_a_sentence() {
        assert_eq!(did_you_mean(&[]), None);
        assert_eq!(did_you_mean(&["a"]).as_deref(), Some("did you mean `a`?"));
        assert_eq!(
            did_you_mean(&["a", "b", "c"]).as_deref(),
            Some("did you mean `a`, `b` or `c`?")
        );
    }
}
