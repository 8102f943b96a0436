//! herd7's configuration files (`linux-kernel.cfg`): `key value` lines that stand for
//! command-line options.
//!
//! A line is a key of letters, then `=` or blanks, then a value that runs to the end of
//! the line (trailing blanks dropped); a line that starts with `#` is a comment, and blank
//! lines are skipped.
//! As herd7 reads them, a key must start its line, a comment must too, and the value may
//! hold anything, `#` included.
//! [`Config`] keeps what choosing a model needs (`model`, `bell`, `macros`, `variant`,
//! `include`) apart, and every other line as it was written, for the command line to
//! apply or refuse; which keys exist, and what their values may be, is its business.

use super::ast::Span;
use super::error::{CatError, ErrorKind};

/// One line of a configuration file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    /// The key.
    pub key: String,
    /// The value, as written.
    pub value: String,
    /// Where the line is, from the key to the end of the value.
    pub span: Span,
}

/// A configuration file's settings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    /// `model` (or its synonym `cat`): the model, a file name or one of herd7's internal
    /// models; the last one given counts.
    pub model: Option<Setting>,
    /// `bell`: the bell file; the last one given counts.
    pub bell: Option<Setting>,
    /// `macros`: the file defining the C primitives; the last one given counts.
    pub macros: Option<Setting>,
    /// `variant`: the variants, one setting for each name of each comma-separated list,
    /// in order.
    pub variants: Vec<Setting>,
    /// `include`: directories to search, as `-I` gives them, in order.
    pub includes: Vec<Setting>,
    /// Every other line, in order (`conf`, which reads another configuration file at that
    /// point, included).
    pub other: Vec<Setting>,
}

/// Parses the text of a configuration file, the `file`th of the files read (see
/// [`Files`](super::source::Files)).
pub fn parse_config(text: &str, file: u32) -> Result<Config, CatError> {
    if u32::try_from(text.len()).is_err() {
        return Err(CatError::nowhere(
            ErrorKind::Limit,
            format!("the file is longer than {} bytes", u32::MAX),
        ));
    }
    let mut config = Config::default();
    let mut offset = 0usize;
    for raw in text.split_inclusive('\n') {
        let start = offset;
        offset += raw.len();
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        let span = |a: usize, b: usize| Span {
            file,
            start: (start + a) as u32,
            end: (start + b) as u32,
        };
        if line.trim_matches(is_blank).is_empty() {
            continue;
        }
        if line.starts_with('#') {
            if !raw.ends_with('\n') {
                return Err(CatError::at(
                    ErrorKind::Config,
                    text,
                    span(0, line.len()),
                    "expected a newline after the comment".to_string(),
                )
                .note("herd7 reads a comment up to its newline, which the last line lacks"));
            }
            continue;
        }
        let key_len = line.bytes().take_while(u8::is_ascii_alphabetic).count();
        if key_len == 0 {
            let e = CatError::at(
                ErrorKind::Config,
                text,
                span(0, 1.min(line.len())),
                "expected a key of letters at the start of the line".to_string(),
            );
            return Err(if line.starts_with(is_blank) {
                e.note("herd7 reads no blanks before a key or a `#` comment")
            } else {
                e
            });
        }
        let key = &line[..key_len];
        let rest = &line[key_len..];
        let after_blanks = rest.trim_start_matches(is_blank);
        let value_text = match after_blanks.strip_prefix('=') {
            Some(v) => v.trim_start_matches(is_blank),
            None if after_blanks.len() < rest.len() => after_blanks,
            None => "",
        };
        let value = value_text.trim_end_matches(is_blank);
        if value.is_empty() {
            let at = key_len + (rest.len() - after_blanks.len());
            return Err(CatError::at(
                ErrorKind::Config,
                text,
                span(at, (at + 1).min(line.len())),
                format!("expected a value after the key `{key}`"),
            )
            .note("a line is `key value` or `key = value`"));
        }
        let value_start = line.len() - value_text.len();
        let setting = Setting {
            key: key.to_string(),
            value: value.to_string(),
            span: span(0, value_start + value.len()),
        };
        match key {
            "model" | "cat" => config.model = Some(setting),
            "bell" => config.bell = Some(setting),
            "macros" => config.macros = Some(setting),
            "include" => config.includes.push(setting),
            "variant" => {
                let mut at = value_start;
                for name in value.split(',') {
                    config.variants.push(Setting {
                        key: setting.key.clone(),
                        value: name.to_string(),
                        span: span(at, at + name.len()),
                    });
                    at += name.len() + 1;
                }
            }
            _ => config.other.push(setting),
        }
    }
    Ok(config)
}

/// herd7's blanks in configuration files.
fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r')
}
