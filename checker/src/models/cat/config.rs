//! herd7's configuration files (`linux-kernel.cfg`): `key value` lines that stand for
//! command-line options, read as herd7 7.58 reads them, by both of hazmat's command lines.
//!
//! A line is a key of letters, then `=` or blanks, then a value that runs to the end of
//! the line (trailing blanks dropped); a line that starts with `#` is a comment, and blank
//! lines are skipped.
//! As herd7 reads them, a key must start its line, a comment must too (and end with a
//! newline), and the value may hold anything, `#` included.
//!
//! Lines are applied in order, each as the option of the same name would be, so the later
//! line wins: a `conf` line reads the file it names where it stands (found through the
//! `include` lines and `-I` directories before it, as herd7 finds it), and the lines after
//! it override what that file set.
//! herdtools7's own `C.cfg` is `conf cpp11.cfg` then `cat rc11.cat`: its model is
//! `rc11.cat`, not the `c11_partialSC.cat` that `cpp11.cfg` names.
//!
//! Every key herd7 reads is known ([`keys::KEYS`]), and its value checked as herd7 checks
//! it; each is then honoured, accepted without effect when it changes only herd7's
//! drawings, or refused by name with a located error when hazmat cannot honour it.
//! A key herd7 does not read is herd7's "Unknown key" error.
//! [`Settings`] holds what the lines set; `models::choose::Request` is made from it, and
//! the command lines read the rest.

pub mod keys;
pub mod maps;

use std::path::PathBuf;

use super::ast::Span;
use super::error::{CatError, ErrorKind};
use super::files::{FileSystem, Found, Library};
use super::source::{Files, Origin};
use crate::models::optace::OptAce;
use keys::{Key, Use};

/// How deep configuration files may read one another (`conf` lines), so that a file that
/// reads itself is an error rather than a stack overflow.
pub const MAX_DEPTH: usize = 16;

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

/// A line herd7's configuration reader refuses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    /// The error, in hazmat's words and place.
    pub error: CatError,
    /// herd7's 1-based line and 0-based character of its message.
    pub herd7_at: (usize, usize),
    /// herd7's message.
    pub herd7: String,
}

/// The lines of a configuration file, the `file`th of the files read, in order, each
/// parsed when it is reached; the first error ends them.
pub fn lines(text: &str, file: u32) -> impl Iterator<Item = Result<Setting, Box<LineError>>> + '_ {
    let mut offset = 0usize;
    let mut line_no = 0usize;
    let mut failed = u32::try_from(text.len()).is_err();
    let mut too_long = failed;
    std::iter::from_fn(move || {
        if too_long {
            too_long = false;
            return Some(Err(Box::new(LineError {
                error: CatError::nowhere(
                    ErrorKind::Limit,
                    format!("the file is longer than {} bytes", u32::MAX),
                ),
                herd7_at: (1, 0),
                herd7: "file too long".to_string(),
            })));
        }
        while !failed && offset < text.len() {
            let raw = text[offset..]
                .split_inclusive('\n')
                .next()
                .unwrap_or_default();
            let start = offset;
            offset += raw.len();
            line_no += 1;
            match line(text, raw, start, line_no, file) {
                Ok(None) => {}
                Ok(Some(s)) => return Some(Ok(s)),
                Err(e) => {
                    failed = true;
                    return Some(Err(Box::new(e)));
                }
            }
        }
        None
    })
}

/// Parses every line of a configuration file (see [`lines`]).
pub fn parse_config(text: &str, file: u32) -> Result<Vec<Setting>, CatError> {
    lines(text, file).map(|l| l.map_err(|e| e.error)).collect()
}

/// One line, `raw` (with its newline, if it has one), at byte `start` of `text`.
#[allow(
    clippy::result_large_err,
    reason = "one line's error, boxed by `lines`, which is all that calls it"
)]
fn line(
    text: &str,
    raw: &str,
    start: usize,
    line_no: usize,
    file: u32,
) -> Result<Option<Setting>, LineError> {
    let line = raw.strip_suffix('\n').unwrap_or(raw);
    let span = |a: usize, b: usize| Span {
        file,
        start: (start + a) as u32,
        end: (start + b) as u32,
    };
    // herd7 reports a line it cannot read at its start.
    let unknown = |error: CatError| LineError {
        error,
        herd7_at: (line_no, 0),
        herd7: "Unknown key in configuration file".to_string(),
    };
    let blank_line = line.trim_matches(is_blank).is_empty();
    if blank_line && (raw.ends_with('\n') || line.is_empty()) {
        return Ok(None);
    }
    if line.starts_with('#') || blank_line {
        if raw.ends_with('\n') {
            return Ok(None);
        }
        let (what, kind) = if blank_line {
            ("the blanks", "a blank line")
        } else {
            ("the comment", "a comment")
        };
        return Err(unknown(
            CatError::at(
                ErrorKind::Config,
                text,
                span(0, line.len()),
                format!("expected a newline after {what}"),
            )
            .note(format!(
                "herd7 reads {kind} up to its newline, which the last line lacks"
            )),
        ));
    }
    let key_len = line.bytes().take_while(u8::is_ascii_alphabetic).count();
    if key_len == 0 {
        let e = CatError::at(
            ErrorKind::Config,
            text,
            span(0, 1.min(line.len())),
            "expected a key of letters at the start of the line".to_string(),
        );
        return Err(unknown(if line.starts_with(is_blank) {
            e.note("herd7 reads no blanks before a key or a `#` comment")
        } else {
            e
        }));
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
        return Err(unknown(
            CatError::at(
                ErrorKind::Config,
                text,
                span(at, (at + 1).min(line.len())),
                format!("expected a value after the key `{key}`"),
            )
            .note("a line is `key value` or `key = value`"),
        ));
    }
    let value_start = line.len() - value_text.len();
    Ok(Some(Setting {
        key: key.to_string(),
        value: value.to_string(),
        span: span(0, value_start + value.len()),
    }))
}

/// herd7's blanks in configuration files.
fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r')
}

/// Where herd7 looks for files besides the current directory and the `-I` directories:
/// the directory `$HERDLIB` names and its own library directory (`-set-libdir`), both
/// given by the caller, which reads the environment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Places {
    /// `$HERDLIB`.
    pub herdlib: Option<PathBuf>,
    /// herd7's library directory, as `-set-libdir` gives it.
    pub libdir: Option<PathBuf>,
}

/// The tests herd7 runs by their names (its `-names` and `-excl` files): those named in a
/// `names` file, if any is given, but none named in an `excl` file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// The names of the `names` files, `None` without one.
    names: Option<std::collections::HashSet<String>>,
    /// The names of the `excl` files.
    excl: std::collections::HashSet<String>,
}

impl Selection {
    /// The selection of the texts of the `names` files (`None` without one) and of the
    /// `excl` files, read as herd7 reads them: each line's first word (up to its first
    /// space) is a name. The command line reads the files.
    pub fn new(names: Option<&[String]>, excl: &[String]) -> Selection {
        let read = |texts: &[String]| -> std::collections::HashSet<String> {
            texts
                .iter()
                .flat_map(|text| text.lines())
                .map(|l| l.split(' ').next().unwrap_or("").to_string())
                .collect()
        };
        Selection {
            names: names.map(read),
            excl: read(excl),
        }
    }

    /// Whether the test named `name` runs.
    pub fn runs(&self, name: &str) -> bool {
        self.names.as_ref().is_none_or(|n| n.contains(name)) && !self.excl.contains(name)
    }
}

/// An I/O error as OCaml words it (`No such file or directory`), without Rust's
/// `(os error N)`.
pub fn io_message(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(n) => s[..n].to_string(),
        None => s,
    }
}

/// herd7's speed check (`-speedcheck`, the `speedcheck` key): which executions it counts,
/// and whether it stops at the first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Speedcheck {
    /// `false`, the default: every allowed execution.
    #[default]
    False,
    /// `true`: every allowed execution that can decide the condition (one whose final
    /// state satisfies the proposition, for `exists` and `~exists`, or fails it, for
    /// `forall`), and no other; herd7 reads its verdict from those counts as ever.
    True,
    /// `fast`: as `true`, stopping at the first such execution.
    Fast,
}

impl Speedcheck {
    /// The setting herd7 names `tag`, in any case.
    pub fn parse(tag: &str) -> Option<Speedcheck> {
        match tag.to_ascii_lowercase().as_str() {
            "false" => Some(Speedcheck::False),
            "true" => Some(Speedcheck::True),
            "fast" => Some(Speedcheck::Fast),
            _ => None,
        }
    }
}

/// What the options and configuration lines read so far set, the later one winning:
/// the model's files and where they are looked for, and the options hazmat honours.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    /// `model` (or `cat`): the cat file.
    pub model: Option<String>,
    /// `bell`: the bell file.
    pub bell: Option<String>,
    /// `macros`: the file defining the C macros.
    pub macros: Option<String>,
    /// `variant`: the variants, each once, in the order first given.
    pub variants: Vec<String>,
    /// `include` (and `-I`): the directories searched, in order.
    pub includes: Vec<String>,
    /// `timeout`: seconds of a test's run, if bounded.
    pub timeout: Option<f64>,
    /// `speedcheck`: decide the condition only (`true` or `fast`).
    pub speedcheck: Speedcheck,
    /// `hexa`: values printed in hexadecimal.
    pub hexa: bool,
    /// `show`: which executions herd7 draws (its tag: `prop`, `all`, `neg`, `cond`,
    /// `none` or `wit`).
    pub show: Option<String>,
    /// `nshow`: how many executions herd7 draws at most.
    pub nshow: Option<usize>,
    /// `verbose`: how much herd7 says on stderr.
    pub verbose: i64,
    /// `unroll`: how many times a `while` loop is unrolled, if not herd7's default (a
    /// negative count unrolls none, as in herd7).
    pub unroll: Option<u32>,
    /// `skipchecks` (and `-skipcheck`): the names of the model's checks not applied, each
    /// once, in the order first given.
    pub skipchecks: Vec<String>,
    /// `outcomereads`: the final states show the registers some execution wrote from a
    /// read of memory, and no other register (see `front::lower::reads`).
    pub outcome_reads: bool,
    /// `strictskip`: the skipped checks are evaluated, and only the executions on which
    /// exactly the checks named fail are kept (see `compile::compile`).
    pub strictskip: bool,
    /// `optace`: how herd7 builds the candidates it gives the model
    /// ([`crate::models::optace`]).
    pub optace: OptAce,
    /// `names` (and `-names`): files of the names of the tests to run, in order.
    pub names: Vec<String>,
    /// `excl` (and `-excl`): files of the names of the tests not to run, in order.
    pub excl: Vec<String>,
    /// `conds` (and `-conds`): files of the conditions that replace tests', by their
    /// names, in order ([`maps`]).
    pub conds: Vec<String>,
    /// `kinds` (and `-kinds`): files of the kinds of tests' conditions, by their names, in
    /// order ([`maps`]).
    pub kinds: Vec<String>,
    /// `rename` (and `-rename`): files of the names tests go by, by their names, in order
    /// ([`maps`]).
    pub rename: Vec<String>,
}

/// Why one key cannot be applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// herd7 reads no key of this name.
    Unknown,
    /// herd7 refuses the value, in these words.
    Value(String),
    /// herd7 refuses the variants, in these words (its command line's, with its usage).
    Variant(String),
    /// herd7 takes it, but hazmat cannot honour it, for this reason.
    Unsupported(&'static str),
}

impl Settings {
    /// The first of the keys that work on tests by their names (`rename`, `names`,
    /// `excl`, `kinds`, `conds`) these settings give, if any: only `hazmat herd7` reads
    /// them.
    pub fn by_name(&self) -> Option<&'static str> {
        [
            ("rename", &self.rename),
            ("names", &self.names),
            ("excl", &self.excl),
            ("kinds", &self.kinds),
            ("conds", &self.conds),
        ]
        .into_iter()
        .find_map(|(key, files)| (!files.is_empty()).then_some(key))
    }

    /// Applies one key with its value, as herd7 applies the configuration line or the
    /// option of the same name; `conf` is [`Settings::read_config`]'s.
    pub fn apply(&mut self, name: &str, value: &str) -> Result<(), Refusal> {
        let key = keys::find(name).ok_or(Refusal::Unknown)?;
        if key.value == keys::Value::Variants {
            if let Some(m) = keys::variant_error(name, value) {
                return Err(Refusal::Variant(m));
            }
        } else if let Some(m) = keys::value_error(key, value) {
            return Err(Refusal::Value(m));
        }
        self.honour(key, value)
    }

    /// Applies a key whose value is known to be one herd7 takes.
    fn honour(&mut self, key: &Key, value: &str) -> Result<(), Refusal> {
        let refuse = |why: &'static str| Err(Refusal::Unsupported(why));
        match key.use_ {
            Use::Figure => return Ok(()),
            Use::Refused(why) => return refuse(why),
            Use::Only(values, why) => {
                let lower = value.to_ascii_lowercase();
                return if values.contains(&lower.as_str()) {
                    Ok(())
                } else {
                    refuse(why)
                };
            }
            Use::Model | Use::Run => {}
        }
        match key.name {
            "model" | "cat" if keys::is_cav12(value) => {
                return refuse("hazmat has none of herd7's CAV12 models built in");
            }
            "model" | "cat" => self.model = Some(value.to_string()),
            "bell" => self.bell = Some(value.to_string()),
            "macros" => self.macros = Some(value.to_string()),
            "include" => self.includes.push(value.to_string()),
            "variant" => {
                // By the name hazmat keeps for each, whatever name herd7 was given.
                for tag in value.split(',').filter_map(keys::variant) {
                    if let Some((_, why)) = keys::REFUSED_VARIANTS.iter().find(|(v, _)| *v == tag) {
                        return refuse(why);
                    }
                    if !self.variants.contains(&tag) {
                        self.variants.push(tag);
                    }
                }
            }
            "timeout" => {
                self.timeout = (value != "none").then(|| float(value).max(0.0));
            }
            "speedcheck" => self.speedcheck = Speedcheck::parse(value).unwrap_or_default(),
            "hexa" => self.hexa = value == "true",
            "show" => self.show = Some(value.to_string()),
            "nshow" => self.nshow = usize::try_from(int(value)).ok(),
            "verbose" => self.verbose = int(value),
            "unroll" => {
                self.unroll =
                    (value != "none").then(|| u32::try_from(int(value).max(0)).unwrap_or(u32::MAX));
            }
            "names" => self.names.push(value.to_string()),
            "excl" => self.excl.push(value.to_string()),
            "conds" => self.conds.push(value.to_string()),
            "kinds" => self.kinds.push(value.to_string()),
            "rename" => self.rename.push(value.to_string()),
            "skipchecks" => {
                for name in value.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                    if !self.skipchecks.iter().any(|s| s == name) {
                        self.skipchecks.push(name.to_string());
                    }
                }
            }
            "strictskip" => self.strictskip = value == "true",
            "outcomereads" => self.outcome_reads = value == "true",
            "optace" => {
                // The keys' table has checked the tag already.
                if let Some(optace) = OptAce::parse(value) {
                    self.optace = optace;
                }
            }
            // Without the keys that make executions bad or select faults, these change
            // nothing herd7 prints.
            "badexecs" | "dumpallfaults" => {}
            _ => return refuse("hazmat does not honour it"),
        }
        Ok(())
    }

    /// These settings with the variants of the test's own `Variant=` line (its key in any
    /// case, its tags apart by spaces or commas) added, as herd7 adds them to its command
    /// line's for that test; `None` when it adds none. A tag herd7 does not know is
    /// refused in herd7's words, one hazmat cannot honour by name, with the line's byte
    /// offset in the test.
    pub fn with_test_variants(
        &self,
        test: &hazmat_litmus::ast::Test,
    ) -> Result<Option<Settings>, (String, usize)> {
        let Some((line, at)) = test.info_any_case("Variant") else {
            return Ok(None);
        };
        let at = at.start;
        let mut own = self.clone();
        for tag in line.split_whitespace() {
            let refusal = match own.apply("variant", tag) {
                Ok(()) => continue,
                Err(Refusal::Variant(m)) => m,
                Err(Refusal::Unsupported(why)) => {
                    format!("Variant={tag} cannot be honoured by hazmat: {why}")
                }
                Err(e) => format!("Variant={tag}: {e:?}"),
            };
            return Err((refusal, at));
        }
        Ok((own.variants != self.variants).then_some(own))
    }

    /// Where files given by a bare name are looked for: the current directory, the
    /// `include` directories so far, then `places`, then the files built into hazmat.
    pub fn library(&self, places: &Places) -> Library {
        let mut library = Library::new();
        for dir in &self.includes {
            library = library.include(dir);
        }
        library
            .herdlib(places.herdlib.clone())
            .libdir(places.libdir.clone())
    }

    /// Reads the configuration file `name`, found as herd7 finds it, and applies its lines
    /// in order, a `conf` line reading its file where it stands.
    pub fn read_config(
        &mut self,
        name: &str,
        places: &Places,
        fs: &dyn FileSystem,
    ) -> Result<(), Box<ConfigError>> {
        let mut files = Files::new();
        self.read_at(name, places, fs, &mut files, None, 0)
    }

    /// Reads `name` for the `conf` line at `from` (none for the first file), `depth`
    /// files deep.
    fn read_at(
        &mut self,
        name: &str,
        places: &Places,
        fs: &dyn FileSystem,
        files: &mut Files,
        from: Option<Span>,
        depth: usize,
    ) -> Result<(), Box<ConfigError>> {
        let located = |files: &Files, error: CatError| match from
            .and_then(|s| Some((s, files.get(s.file)?)))
        {
            Some((span, f)) => {
                let at = CatError::at(error.kind, &f.text, span, error.message);
                error.notes.into_iter().fold(at, CatError::note)
            }
            None => error,
        };
        if depth >= MAX_DEPTH {
            let error = CatError::nowhere(
                ErrorKind::Config,
                format!(
                    "configuration files read one another more than {MAX_DEPTH} deep (at \
                     `{name}`)"
                ),
            )
            .note("herd7 would read them until it ran out of stack");
            let error = located(files, error);
            let herd7 = error.message.clone();
            return Err(ConfigError::new(error, files, Herd7Words::Program(herd7)));
        }
        let (shown, origin, text) = match self.library(places).find(fs, name) {
            Ok(Found::Path(path)) => {
                let text = fs.read(&path).map_err(|e| {
                    let error = located(
                        files,
                        CatError::nowhere(
                            ErrorKind::Read,
                            format!("cannot read `{}`: {e}", path.display()),
                        ),
                    );
                    let words = Herd7Words::Program(format!("{}: {e}", path.display()));
                    ConfigError::new(error, files, words)
                })?;
                (path.display().to_string(), Origin::Path(path), text)
            }
            Ok(Found::Builtin { name, text }) => {
                (name.to_string(), Origin::Builtin, text.to_string())
            }
            Err(searched) => {
                let error = CatError::nowhere(
                    ErrorKind::NotFound,
                    format!("cannot find the file `{name}`"),
                )
                .note(format!("looked in {}", searched.join(", ")));
                let error = located(files, error);
                return Err(ConfigError::new(
                    error,
                    files,
                    Herd7Words::Program(format!("Cannot find file {name}")),
                ));
            }
        };
        let file = files.add(shown.clone(), origin, text.clone());
        for setting in lines(&text, file) {
            let setting = setting.map_err(|e| {
                let words = Herd7Words::located(&shown, e.herd7_at, e.herd7);
                ConfigError::new(e.error, files, words)
            })?;
            // herd7 reports a key's mistakes after reading its whole line.
            let herd7_at = herd7_end(&text, setting.span);
            let at =
                |message: String| CatError::at(ErrorKind::Config, &text, setting.span, message);
            if setting.key == "conf" {
                self.read_at(
                    &setting.value,
                    places,
                    fs,
                    files,
                    Some(setting.span),
                    depth + 1,
                )?;
                continue;
            }
            if setting.key == "dotheader" && self.library(places).find(fs, &setting.value).is_err()
            {
                // herd7 reads the file when it starts, drawing or not.
                let error = at(format!("cannot find the file `{}`", setting.value));
                let words = Herd7Words::Program(format!("Cannot find file {}", setting.value));
                return Err(ConfigError::new(error, files, words));
            }
            if let Err(refusal) = self.apply(&setting.key, &setting.value) {
                let (error, words) = match refusal {
                    Refusal::Unknown => (
                        at(format!("unknown key `{}`", setting.key))
                            .note("herd7 7.58 reads no key of this name"),
                        Herd7Words::located(
                            &shown,
                            herd7_at,
                            format!("Unknown key '{}' in configuration file", setting.key),
                        ),
                    ),
                    Refusal::Value(m) => (
                        at(format!("`{}`: {m}", setting.key)),
                        Herd7Words::located(&shown, herd7_at, m),
                    ),
                    Refusal::Variant(m) => (at(m.clone()), Herd7Words::Usage(m)),
                    Refusal::Unsupported(why) => {
                        let m = format!(
                            "hazmat cannot honour `{} {}`: {why}",
                            setting.key, setting.value
                        );
                        (at(m.clone()), Herd7Words::located(&shown, herd7_at, m))
                    }
                };
                return Err(ConfigError::new(error, files, words));
            }
        }
        Ok(())
    }
}

/// herd7's place for a mistake in the line at `span`: the line, and the character after
/// the line and its newline.
fn herd7_end(text: &str, span: Span) -> (usize, usize) {
    let start = span.start as usize;
    let (line, _) = hazmat_litmus::ast::line_col(text, start);
    let line_start = text[..start].rfind('\n').map_or(0, |n| n + 1);
    let rest = &text[line_start..];
    let len = rest.find('\n').map_or(rest.len(), |n| n + 1);
    (line, len)
}

/// The integer herd7 reads in `value` (known to be one).
fn int(value: &str) -> i64 {
    let v: String = value.chars().filter(|&c| c != '_').collect();
    let (neg, v) = match v.strip_prefix('-') {
        Some(rest) => (true, rest.to_string()),
        None => (false, v.trim_start_matches('+').to_string()),
    };
    let parsed = match v.get(..2).map(str::to_ascii_lowercase).as_deref() {
        Some("0x") => i64::from_str_radix(&v[2..], 16),
        Some("0o") => i64::from_str_radix(&v[2..], 8),
        Some("0b") => i64::from_str_radix(&v[2..], 2),
        _ => v.parse(),
    };
    let n = parsed.unwrap_or(i64::MAX);
    if neg { -n } else { n }
}

/// The floating-point number herd7 reads in `value` (known to be one).
fn float(value: &str) -> f64 {
    let v: String = value.chars().filter(|&c| c != '_').collect();
    v.parse().unwrap_or_else(|_| int(&v) as f64)
}

/// How herd7 words a configuration error on stderr.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Herd7Words {
    /// As it is: `File "./x.cfg", line 2, character 8: MESSAGE`.
    Located(String),
    /// After herd7's program name: `herd7: MESSAGE`.
    Program(String),
    /// After herd7's program name, with a full stop and its usage.
    Usage(String),
}

impl Herd7Words {
    fn located(file: &str, (line, character): (usize, usize), message: String) -> Herd7Words {
        Herd7Words::Located(format!(
            "File \"{file}\", line {line}, character {character}: {message}"
        ))
    }
}

/// A configuration file that cannot be read or applied.
#[derive(Clone, Debug)]
pub struct ConfigError {
    /// The error, located in hazmat's way.
    pub error: CatError,
    /// The files read, which the error's place refers to.
    pub files: Files,
    /// herd7's words for it.
    pub herd7: Herd7Words,
}

impl ConfigError {
    fn new(error: CatError, files: &Files, herd7: Herd7Words) -> Box<ConfigError> {
        Box::new(ConfigError {
            error,
            files: files.clone(),
            herd7,
        })
    }

    /// The diagnostic, with the file name, the line and a caret.
    pub fn render(&self) -> String {
        self.error.render(&self.files)
    }
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.render().trim_end())
    }
}

impl std::error::Error for ConfigError {}
