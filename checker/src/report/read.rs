//! herd7's text output read back: what a test's answer is, and how two answers differ.
//!
//! hazmat prints herd7's format ([`crate::report::write`]); the conformance and oracle tests read
//! both tools' text back into a [`Summary`] (verdict, state lines, witness counts, flags)
//! and compare them field by field, then line by line.
//! A run of herd7 on many files prints one block per test on stdout ([`blocks`]) and its
//! errors on stderr, one `Warning: File "..."` line each ([`errors`]).
//! Everything here is text in, values out: running herd7 is the tests' business.

use std::collections::BTreeSet;

/// One test's answer, as herd7's text format states it.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Summary {
    /// `Never`, `Sometimes` or `Always`: the verdict of the `Observation` line.
    pub verdict: String,
    /// The state lines, as printed (trailing spaces aside).
    pub states: BTreeSet<String>,
    /// The count of executions satisfying the condition.
    pub positive: u128,
    /// The count of executions not satisfying it.
    pub negative: u128,
    /// The flags, in the order of their `Flag` lines.
    pub flags: Vec<String>,
}

/// Which part of two answers differs, in the order [`differences`] reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Field {
    /// The verdict.
    Verdict,
    /// The set of final states.
    States,
    /// The witness counts.
    Witnesses,
    /// The flags.
    Flags,
}

impl Field {
    /// The field's name: `verdict`, `states`, `witnesses`, `flags`.
    pub fn name(self) -> &'static str {
        match self {
            Field::Verdict => "verdict",
            Field::States => "states",
            Field::Witnesses => "witnesses",
            Field::Flags => "flags",
        }
    }
}

/// Reads the answer of one test from herd7's text format: the state lines after
/// `States N`, the `Positive: P Negative: N` line, the `Flag` lines and the verdict of the
/// `Observation` line.
pub fn parse(text: &str) -> Result<Summary, String> {
    let mut out = Summary::default();
    let mut lines = text.lines();
    let mut seen_states = false;
    let mut seen_observation = false;
    let bad = |line: &str| format!("bad line {line:?}");
    while let Some(line) = lines.next() {
        if let Some(n) = line.strip_prefix("States ") {
            let n: usize = n.trim().parse().map_err(|_| bad(line))?;
            for _ in 0..n {
                let state = lines.next().ok_or("missing state lines")?;
                out.states.insert(state.trim_end().to_string());
            }
            seen_states = true;
        } else if let Some(rest) = line.strip_prefix("Positive: ") {
            let (p, n) = rest.split_once(" Negative: ").ok_or_else(|| bad(line))?;
            out.positive = p.trim().parse().map_err(|_| bad(line))?;
            out.negative = n.trim().parse().map_err(|_| bad(line))?;
        } else if let Some(flag) = line.strip_prefix("Flag ") {
            out.flags.push(flag.trim().to_string());
        } else if let Some(rest) = line.strip_prefix("Observation ") {
            let words: Vec<&str> = rest.split_whitespace().collect();
            let [.., verdict, _, _] = words.as_slice() else {
                return Err(bad(line));
            };
            out.verdict = verdict.to_string();
            seen_observation = true;
        }
    }
    if !seen_states || !seen_observation {
        return Err("no States or Observation line".to_string());
    }
    Ok(out)
}

/// The fields in which `actual` differs from `expected`, in [`Field`] order.
pub fn differing(expected: &Summary, actual: &Summary) -> Vec<Field> {
    let mut fields = Vec::new();
    if expected.verdict != actual.verdict {
        fields.push(Field::Verdict);
    }
    if expected.states != actual.states {
        fields.push(Field::States);
    }
    if (expected.positive, expected.negative) != (actual.positive, actual.negative) {
        fields.push(Field::Witnesses);
    }
    if expected.flags != actual.flags {
        fields.push(Field::Flags);
    }
    fields
}

/// The differences between an expected answer (herd7's) and an actual one (hazmat's), as
/// short phrases: `verdict Never vs Sometimes` (actual first).
pub fn differences(expected: &Summary, actual: &Summary) -> Vec<String> {
    differing(expected, actual)
        .into_iter()
        .map(|field| match field {
            Field::Verdict => format!("verdict {} vs {}", actual.verdict, expected.verdict),
            Field::States => {
                let missing = expected.states.difference(&actual.states).count();
                let extra = actual.states.difference(&expected.states).count();
                format!("states: {missing} missing, {extra} extra")
            }
            Field::Witnesses => format!(
                "witnesses {} {} vs {} {}",
                actual.positive, actual.negative, expected.positive, expected.negative
            ),
            Field::Flags => format!("flags {:?} vs {:?}", actual.flags, expected.flags),
        })
        .collect()
}

/// Whether a line takes part in the line-by-line comparison: not the `Time` line, which
/// varies from run to run, nor blank lines. The `Hash=` line does: hazmat computes
/// herd7's digest of the test (`hazmat_litmus::herd_hash`).
fn compared(line: &&str) -> bool {
    !line.starts_with("Time ") && !line.trim().is_empty()
}

/// The first line where `actual`'s text differs from `expected`'s, ignoring the `Time`
/// line and blank lines: `output line 3: "..." vs "..."` (actual first).
pub fn first_text_difference(actual: &str, expected: &str) -> Option<String> {
    let ours: Vec<&str> = actual.lines().filter(compared).collect();
    let theirs: Vec<&str> = expected.lines().filter(compared).collect();
    (0..ours.len().max(theirs.len())).find_map(|i| {
        let (a, b) = (ours.get(i).copied(), theirs.get(i).copied());
        (a != b).then(|| {
            format!(
                "output line {}: {:?} vs {:?}",
                i + 1,
                a.unwrap_or("<end>"),
                b.unwrap_or("<end>")
            )
        })
    })
}

/// The blocks of a run's stdout, one per test: `(name, text)`, each block from its
/// `Test NAME ...` line to the line before the next one.
pub fn blocks(stdout: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in stdout.lines() {
        if let Some(rest) = line.strip_prefix("Test ") {
            let name = rest.split_whitespace().next().unwrap_or_default();
            out.push((name.to_string(), String::new()));
        }
        if let Some((_, text)) = out.last_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    out
}

/// The errors of a run's stderr: `(file, message)` for each `Warning: File "FILE"...`
/// line, the message being the rest of the line.
pub fn errors(stderr: &str) -> Vec<(String, String)> {
    stderr
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("Warning: File \"")?;
            let (file, message) = rest.split_once('"')?;
            let message = message.trim_start_matches([':', ',', ' ']);
            Some((file.to_string(), message.trim().to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SB: &str = "Test SB Allowed\nStates 2\n0:r0=0; 1:r0=1;\n0:r0=1; 1:r0=0;\nNo\n\
                      Witnesses\nPositive: 0 Negative: 2\nFlag data-race\n\
                      Condition exists (0:r0=0 /\\ 1:r0=0)\nObservation SB Never 0 2\n\
                      Time SB 0.01\nHash=0123\n\n";

    #[test]
    fn a_block_reads_back() {
        let s = parse(SB).expect("parses");
        assert_eq!(s.verdict, "Never");
        assert_eq!(s.states.len(), 2);
        assert_eq!((s.positive, s.negative), (0, 2));
        assert_eq!(s.flags, ["data-race"]);
        assert!(parse("Test SB Allowed\n").is_err());
    }

    #[test]
    fn differences_name_the_fields_actual_first() {
        let expected = parse(SB).expect("parses");
        let mut actual = expected.clone();
        assert!(differences(&expected, &actual).is_empty());
        actual.verdict = "Sometimes".into();
        actual.states.clear();
        actual.flags.clear();
        assert_eq!(
            differing(&expected, &actual),
            [Field::Verdict, Field::States, Field::Flags]
        );
        assert_eq!(
            differences(&expected, &actual)[0],
            "verdict Sometimes vs Never"
        );
        assert_eq!(
            differences(&expected, &actual)[1],
            "states: 2 missing, 0 extra"
        );
    }

    #[test]
    fn text_differences_skip_time_but_not_hash() {
        let other = SB.replace("0.01", "0.50");
        assert_eq!(first_text_difference(&other, SB), None);
        let other = SB.replace("0123", "4567");
        assert_eq!(
            first_text_difference(&other, SB).as_deref(),
            Some("output line 11: \"Hash=4567\" vs \"Hash=0123\"")
        );
        let other = SB.replace("Flag data-race\n", "");
        assert_eq!(
            first_text_difference(&other, SB).as_deref(),
            Some("output line 8: \"Condition exists (0:r0=0 /\\\\ 1:r0=0)\" vs \"Flag data-race\"")
        );
    }

    #[test]
    fn runs_split_into_blocks_and_errors() {
        let two = format!("{SB}{}", SB.replace("SB", "T"));
        let b = blocks(&two);
        assert_eq!(b.len(), 2);
        assert_eq!(b[1].0, "T");
        assert!(b[1].1.starts_with("Test T Allowed\n"));
        assert_eq!(parse(&b[0].1), parse(SB));
        let e = errors(
            "Warning: File \"a.litmus\", line 3, characters 4-5: unexpected '&' (in prog) (User error)\n\
             Warning: File \"b.litmus\": Unknown macro foo (User error)\n\nother\n",
        );
        assert_eq!(
            e,
            [
                (
                    "a.litmus".to_string(),
                    "line 3, characters 4-5: unexpected '&' (in prog) (User error)".to_string()
                ),
                (
                    "b.litmus".to_string(),
                    "Unknown macro foo (User error)".to_string()
                )
            ]
        );
    }
}
