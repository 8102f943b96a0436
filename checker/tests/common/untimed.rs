//! herd7's output without its `Time` line, which varies from run to run. Included by the
//! tests that compare outputs (`#[path]`).

/// `text` without its `Time` lines.
pub(crate) fn untimed(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("Time "))
        .map(|l| format!("{l}\n"))
        .collect()
}
