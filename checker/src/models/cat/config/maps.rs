//! herd7's maps from test names to values, read from files of lines `NAME VALUE`: its
//! `-conds` files (a final condition that replaces the test's), its `-kinds` files (the
//! kind of condition, `Allowed`, `Forbidden` or `Required`, that sets the condition's
//! quantifier) and its `-rename` files (the name the test goes by).
//!
//! The files are read as herd7 7.58's `LexRename` reads them:
//!
//! - each line is a name, then, apart by blanks, a value (one word, or any text between
//!   double quotes, newlines included) or none (the empty value); blanks, then a comment
//!   from `#` or `%` to the end of the line, may follow; a name or word holds anything but
//!   blanks, newlines, `#`, `%` and `"`;
//! - a line of blanks only, or a comment that starts the line, is skipped, but a comment
//!   after blanks is no line herd7 reads;
//! - every line ends with a newline, the last one too;
//! - within a file the later line for a name wins; across files, the first file that names
//!   it (herd7 reads the files from the last to the first, each over the ones after).
//!
//! A line herd7 cannot read, or a value it refuses, stops the run with herd7's located
//! error, counting lines as herd7 does (a newline inside quotes starts no line).
//! The command line reads the files; this module only reads their text.

use std::collections::HashMap;

/// One value of a map, with where its text stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry<T> {
    /// The value.
    pub value: T,
    /// The value's text, as written (without its quotes).
    pub text: String,
    /// The file it was read from, as named.
    pub file: String,
    /// Where the text starts in the file: the 1-based line and the 0-based column in
    /// characters, counted as people count them.
    pub at: (usize, usize),
}

/// A map from test names to values, read from herd7's files of lines `NAME VALUE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameMap<T> {
    entries: HashMap<String, Entry<T>>,
}

impl<T> Default for NameMap<T> {
    fn default() -> Self {
        NameMap {
            entries: HashMap::new(),
        }
    }
}

/// A line of a map herd7 cannot read, or a value it refuses, in herd7's words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("File \"{file}\", line {line}, character {character}: error in rename map, {message}")]
pub struct MapError {
    /// The file, as named.
    pub file: String,
    /// The line, counted as herd7 counts it.
    pub line: usize,
    /// herd7's character: 0 at a line it cannot read, the line's length after a value it
    /// refuses.
    pub character: usize,
    /// `LexRename` (herd7's word for a line it cannot read), or `V is not a valid value`.
    pub message: String,
}

impl<T> NameMap<T> {
    /// Reads the files, each given as its name and text, in the order given; `parse`
    /// turns a value's text into a value, `None` for one herd7 refuses.
    pub fn read(
        files: &[(String, String)],
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<NameMap<T>, MapError> {
        let mut entries = HashMap::new();
        // From the last file to the first, each over the ones after it, as herd7 folds.
        for (file, text) in files.iter().rev() {
            for line in lines(file, text)? {
                let Some(value) = parse(&line.value) else {
                    return Err(MapError {
                        file: file.clone(),
                        line: line.herd7_line,
                        character: line.len,
                        message: format!("{} is not a valid value", line.value),
                    });
                };
                let entry = Entry {
                    value,
                    text: line.value,
                    file: file.clone(),
                    at: line.value_at,
                };
                entries.insert(line.name, entry);
            }
        }
        Ok(NameMap { entries })
    }

    /// The value for the test named `name`, if the map names it.
    pub fn get(&self, name: &str) -> Option<&Entry<T>> {
        self.entries.get(name)
    }

    /// Whether the map names no test.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The maps of herd7's `-conds` and `-kinds` files, which change a test's condition by
/// its name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Conditions {
    /// `-conds`: the text of the condition that replaces the test's.
    pub conds: NameMap<String>,
    /// `-kinds`: the quantifier that replaces the condition's, if any (see [`kind`]).
    pub kinds: NameMap<Option<hazmat_litmus::ast::Quantifier>>,
}

/// A condition of a `-conds` file that does not parse, located in its file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CondError {
    /// The file, as named.
    pub file: String,
    /// The 1-based line in the file.
    pub line: usize,
    /// The 0-based columns, in characters, of the offending text on that line, as herd7
    /// gives its `characters A-B`.
    pub columns: (usize, usize),
    /// The 1-based line in the condition's text alone, where herd7 locates it (in a file
    /// it names `""`).
    pub text_line: usize,
    /// The 0-based columns on that line of the condition's text alone.
    pub text_columns: (usize, usize),
    /// What is wrong, starting lowercase.
    pub message: String,
}

impl Conditions {
    /// The condition herd7 decides the test named `name` under, when the maps change it:
    /// the `-conds` file's instead of the test's (`None` for the test's), then the
    /// `-kinds` file's quantifier over it; `Ok(None)` when they leave it as it is.
    /// A test without a condition has herd7's `forall (true)`.
    pub fn condition(
        &self,
        name: &str,
        test: &hazmat_litmus::Test,
    ) -> Result<Option<hazmat_litmus::ast::Condition>, CondError> {
        let mut changed = None;
        if let Some(e) = self.conds.get(name) {
            let c = hazmat_litmus::parse_condition(&e.text).map_err(|p| {
                let (line, from) = if p.line == 1 {
                    (e.at.0, e.at.1 + p.col - 1)
                } else {
                    (e.at.0 + p.line - 1, p.col - 1)
                };
                let width = e.text[p.span.start..p.span.end].chars().count();
                CondError {
                    file: e.file.clone(),
                    line,
                    columns: (from, from + width),
                    text_line: p.line,
                    text_columns: (p.col - 1, p.col - 1 + width),
                    message: p.message,
                }
            })?;
            changed = Some(c);
        }
        if let Some(Entry { value: Some(q), .. }) = self.kinds.get(name) {
            use hazmat_litmus::ast::{Condition, Prop, PropKind, Span};
            let mut c = changed
                .or_else(|| test.condition.clone())
                .unwrap_or(Condition {
                    quantifier: *q,
                    prop: Prop {
                        kind: PropKind::True,
                        span: Span::DUMMY,
                    },
                    span: Span::DUMMY,
                });
            c.quantifier = *q;
            changed = Some(c);
        }
        Ok(changed)
    }
}

/// `source`, the text of `test`, with `condition` in place of its condition (after its
/// trailer, for a test without one).
pub fn with_condition(
    source: &str,
    test: &hazmat_litmus::Test,
    condition: &hazmat_litmus::ast::Condition,
) -> String {
    let text = hazmat_litmus::print_condition(condition);
    match &test.condition {
        Some(c) => format!("{}{text}{}", &source[..c.span.start], &source[c.span.end..]),
        None => format!("{source}\n{text}\n"),
    }
}

/// herd7's kinds of condition, by the words of its `-kinds` files: `Some(None)` for the
/// words that leave the condition as it is (`Unknown`, `???`, `---`, nothing),
/// `None` for a word herd7 does not take.
pub fn kind(word: &str) -> Option<Option<hazmat_litmus::ast::Quantifier>> {
    use hazmat_litmus::ast::Quantifier;
    Some(match word {
        "Allow" | "Allowed" => Some(Quantifier::Exists),
        "Forbid" | "Forbidden" => Some(Quantifier::NotExists),
        "Require" | "Required" => Some(Quantifier::Forall),
        "" | "Unknown" | "???" | "---" => None,
        _ => return None,
    })
}

/// One line of a map, read.
struct Line {
    name: String,
    value: String,
    /// Where the value's text starts (see [`Entry::at`]).
    value_at: (usize, usize),
    /// The line's number as herd7 counts it.
    herd7_line: usize,
    /// The line's length in bytes, its newline and any newline in quotes included.
    len: usize,
}

/// Whether `c` may be part of a name or an unquoted value.
fn is_word(c: char) -> bool {
    !matches!(c, ' ' | '\t' | '\n' | '\r' | '%' | '#' | '"')
}

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r')
}

/// The lines of a map that are not blank or comments, in order.
fn lines(file: &str, text: &str) -> Result<Vec<Line>, MapError> {
    let mut out = Vec::new();
    // herd7 counts a line for each line it reads, whatever newlines quotes hold.
    let mut herd7_line = 1;
    // Where people count the lines: the line of `pos` and where it starts.
    let mut line = 1;
    let mut line_start = 0;
    let mut pos = 0;
    while pos < text.len() {
        let rest = &text[pos..];
        let at = |off: usize, line: usize, line_start: usize| {
            (line, text[line_start..pos + off].chars().count())
        };
        let skip = |s: &str, f: fn(char) -> bool| s.len() - s.trim_start_matches(f).len();
        let lead = skip(rest, is_blank);
        let name_len = skip(&rest[lead..], is_word);
        let read = if name_len == 0 {
            // Blanks alone, or a comment from the start of the line, then the newline.
            let comment = if rest.starts_with(['#', '%']) {
                rest.find('\n').unwrap_or(rest.len())
            } else {
                lead
            };
            rest[comment..]
                .starts_with('\n')
                .then_some((comment + 1, None))
        } else {
            let name = &rest[lead..lead + name_len];
            let mut i = lead + name_len;
            let blanks = skip(&rest[i..], is_blank);
            // The value: a word or quoted text after blanks, or none.
            let mut value = ("", i);
            let mut ok = true;
            if blanks > 0 {
                let v = &rest[i + blanks..];
                let word = skip(v, is_word);
                if word > 0 {
                    value = (&v[..word], i + blanks);
                    i += blanks + word;
                } else if let Some(q) = v.strip_prefix('"') {
                    match q.find('"') {
                        Some(end) => {
                            value = (&q[..end], i + blanks + 1);
                            i += blanks + end + 2;
                        }
                        None => ok = false,
                    }
                }
            }
            i += skip(&rest[i..], is_blank);
            if rest[i..].starts_with(['#', '%']) {
                i += rest[i..].find('\n').unwrap_or(rest.len() - i);
            }
            (ok && rest[i..].starts_with('\n')).then(|| {
                let (v, off) = value;
                // Newlines in quotes before the value's start: none, it is on this line.
                let value_at = at(off, line, line_start);
                (i + 1, Some((name.to_string(), v.to_string(), value_at)))
            })
        };
        let Some((len, named)) = read else {
            return Err(MapError {
                file: file.to_string(),
                line: herd7_line,
                character: 0,
                message: "LexRename".to_string(),
            });
        };
        if let Some((name, value, value_at)) = named {
            out.push(Line {
                name,
                value,
                value_at,
                herd7_line,
                len,
            });
        }
        for (k, c) in rest[..len].char_indices() {
            if c == '\n' {
                line += 1;
                line_start = pos + k + 1;
            }
        }
        herd7_line += 1;
        pos += len;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<NameMap<String>, MapError> {
        NameMap::read(&[("m.txt".to_string(), text.to_string())], |s| {
            Some(s.to_string())
        })
    }

    fn value(m: &NameMap<String>, name: &str) -> Option<String> {
        m.get(name).map(|e| e.value.clone())
    }

    #[test]
    fn lines_are_read_as_herd7_reads_them() {
        let m = read("# c\n\t\r\nA \"exists (x=1)\"  %c\nB w#c\nC\nD  \nA x\n").expect("map");
        assert_eq!(value(&m, "A").as_deref(), Some("x"));
        assert_eq!(value(&m, "B").as_deref(), Some("w"));
        assert_eq!(value(&m, "C").as_deref(), Some(""));
        assert_eq!(value(&m, "D").as_deref(), Some(""));
        let m = read("A \"exists\n (x=1)\"\n").expect("map");
        assert_eq!(value(&m, "A").as_deref(), Some("exists\n (x=1)"));
        assert_eq!(m.get("A").map(|e| e.at), Some((1, 3)));
    }

    #[test]
    fn lines_herd7_cannot_read_are_located_as_herd7_locates_them() {
        for (text, line) in [
            ("A x", 1),
            ("A x y\n", 1),
            ("  # c\n", 1),
            ("\"A\" x\n", 1),
            ("A \"x\"y\n", 1),
            ("A \"x\n", 1),
            ("A \"x\ny\"\nB\nC d e\n", 3),
        ] {
            let e = read(text).expect_err(text);
            assert_eq!(
                (e.line, e.character, e.message.as_str()),
                (line, 0, "LexRename"),
                "{text:?}"
            );
        }
        let e = NameMap::read(&[("k.txt".to_string(), "A\nX Bad\n".to_string())], kind)
            .expect_err("bad kind");
        assert_eq!(
            e.to_string(),
            "File \"k.txt\", line 2, character 6: error in rename map, Bad is not a valid value"
        );
    }

    #[test]
    fn the_first_file_naming_a_test_wins() {
        let files = [
            ("a".to_string(), "A 1\nA 2\n".to_string()),
            ("b".to_string(), "A 3\nB 4\n".to_string()),
        ];
        let m = NameMap::read(&files, |s| Some(s.to_string())).expect("maps");
        assert_eq!(value(&m, "A").as_deref(), Some("2"));
        assert_eq!(value(&m, "B").as_deref(), Some("4"));
    }
}
