//! A model's files: finding them as herd7 does, reading them, and the table that spans
//! and errors point into.
//!
//! herd7 looks for a file it is given by a bare name (a model, a bell or configuration
//! file, or a file named by `include "x.cat"`) in this order, taking the first place that
//! holds it: the current directory, each `-I` directory in the order given (`+dir` names a
//! directory of its own library), the directory `$HERDLIB` names, and its own library.
//! The including file's directory is *not* searched.
//! A name that is a path (it starts with `/`, `./` or `../`) is used as it is.
//! [`Library`] follows the same order; hazmat's own library is the set of files built into
//! the binary ([`BUILTIN`]), none of them copied from herd7's.
//!
//! [`Loaded`] reads a model and, before anything runs, every file it includes, at any depth
//! and in every branch, each once; the evaluator then finds an included file by its name
//! ([`Loaded::include`]) and needs no file system.
//! A file that includes itself, through any chain, is an error (herd7 would include it
//! until its stack ran out).
//! Unlike herd7, which looks for an included file only when it runs the `include`, a file
//! that cannot be found is an error even in a branch of an `if` on variants the run would
//! not take.
//! Under herd7's command line, which reports such an error on each test as herd7 does, the
//! loader instead records an included file that cannot be found or parsed, in herd7's words
//! ([`Loaded::include_errors_per_test`], [`Loaded::failed_include`]), and loads the rest;
//! the compiled model then stops where it runs that `include`.
//!
//! The file system is a [`FileSystem`], so that the library reads files only through the
//! one its caller passes: [`Disk`] for the command line, [`InMemory`] for tests.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use super::ast::{Instr, Model, Span};
use super::error::{CatError, ErrorKind};
use super::parser::parse;
use super::source::{Files, Origin};

/// hazmat's standard library, `stdlib.cat`: the definitions every model sees before its
/// own, loaded first by [`super::load::load`] as herd7 loads its standard library, and
/// found by that name as herd7 finds it (a `stdlib.cat` of the current directory, an
/// `-I` directory or `$HERDLIB` comes first; this one, built in, is the last).
pub const PRELUDE: &str = include_str!("lib/stdlib.cat");

/// The name herd7 looks its standard library up by.
pub const PRELUDE_NAME: &str = "stdlib.cat";

/// The files built into hazmat, by name, in the place of herd7's own library: hazmat's
/// own writing of the meaning of herd7's standard library (`stdlib.cat`), of the files
/// its models and the kernel's include (`cross.cat`, `cos.cat` and the three files it
/// chooses from, `filters.cat`, the fences of each architecture, `c11_base.cat` and the
/// two it includes), of the library models a user runs on C tests (`sc.cat`,
/// `tso.cat`, `x86tso.cat`, `rc11.cat`, the `c11_*.cat` models, `simple-c11.cat`), and of
/// the C11 macros and configuration (`c11.def`, `cpp11.cfg`, which herd7's `-c11` reads),
/// and of the drawings' configuration that `-web` reads (`web.cfg`).
///
/// They are looked up last, after `$HERDLIB`, as herd7 looks up its library, so a user's
/// own copy always wins; a file named `dir/name.cat` here is what `-I +dir` finds as
/// `name.cat`.
/// To add one, write it under `checker/src/models/cat/lib/` and list it here as
/// `("name.cat", include_str!("lib/name.cat"))`.
/// None of herd7's library files may be copied here: their licence is not the project's.
/// Each file is held to herd7's of the same name by `checker/tests/cat_library.rs`.
pub const BUILTIN: &[(&str, &str)] = &[
    ("stdlib.cat", PRELUDE),
    ("cross.cat", include_str!("lib/cross.cat")),
    ("cos.cat", include_str!("lib/cos.cat")),
    ("cos-opt.cat", include_str!("lib/cos-opt.cat")),
    ("cos-ok-opt.cat", include_str!("lib/cos-ok-opt.cat")),
    ("cos-no-opt.cat", include_str!("lib/cos-no-opt.cat")),
    ("filters.cat", include_str!("lib/filters.cat")),
    ("fences.cat", include_str!("lib/fences.cat")),
    ("x86fences.cat", include_str!("lib/x86fences.cat")),
    ("armfences.cat", include_str!("lib/armfences.cat")),
    ("ppcfences.cat", include_str!("lib/ppcfences.cat")),
    ("aarch64fences.cat", include_str!("lib/aarch64fences.cat")),
    ("sc.cat", include_str!("lib/sc.cat")),
    ("tso.cat", include_str!("lib/tso.cat")),
    ("x86tso.cat", include_str!("lib/x86tso.cat")),
    ("rc11.cat", include_str!("lib/rc11.cat")),
    ("c11_base.cat", include_str!("lib/c11_base.cat")),
    ("c11_cos.cat", include_str!("lib/c11_cos.cat")),
    ("c11_los.cat", include_str!("lib/c11_los.cat")),
    ("c11_partialSC.cat", include_str!("lib/c11_partialSC.cat")),
    ("c11_orig.cat", include_str!("lib/c11_orig.cat")),
    ("c11_simp.cat", include_str!("lib/c11_simp.cat")),
    ("simple-c11.cat", include_str!("lib/simple-c11.cat")),
    ("c11.def", include_str!("lib/c11.def")),
    ("cpp11.cfg", include_str!("lib/cpp11.cfg")),
    ("web.cfg", include_str!("lib/web.cfg")),
];

/// The file system a [`Library`] searches and a [`Loaded`] reads.
pub trait FileSystem {
    /// Whether `path` names a file that is not a directory.
    fn is_file(&self, path: &Path) -> bool;
    /// The text of the file at `path`, invalid UTF-8 replaced by U+FFFD.
    fn read(&self, path: &Path) -> std::io::Result<String>;
    /// A name that is the same for every path of one file, to recognise a file reached
    /// twice; the path itself by default.
    fn identity(&self, path: &Path) -> PathBuf {
        path.to_path_buf()
    }
}

/// The real file system, relative paths taken from the current directory.
#[derive(Clone, Copy, Debug, Default)]
pub struct Disk;

impl FileSystem for Disk {
    fn is_file(&self, path: &Path) -> bool {
        path.is_file()
    }

    fn read(&self, path: &Path) -> std::io::Result<String> {
        let bytes = std::fs::read(path)?;
        Ok(match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        })
    }

    fn identity(&self, path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
    }
}

/// A file system held in memory: files by path, the current directory being `.`.
///
/// Paths are compared as written after dropping `.` components, so `./a.cat` and `a.cat`
/// are one file.
#[derive(Clone, Debug, Default)]
pub struct InMemory {
    files: BTreeMap<PathBuf, String>,
}

impl InMemory {
    /// No files.
    pub fn new() -> InMemory {
        InMemory::default()
    }

    /// Adds (or replaces) a file.
    pub fn with(mut self, path: impl AsRef<Path>, text: impl Into<String>) -> InMemory {
        self.files.insert(normal(path.as_ref()), text.into());
        self
    }
}

/// A path without its `.` components.
fn normal(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect()
}

impl FileSystem for InMemory {
    fn is_file(&self, path: &Path) -> bool {
        self.files.contains_key(&normal(path))
    }

    fn read(&self, path: &Path) -> std::io::Result<String> {
        self.files
            .get(&normal(path))
            .cloned()
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
    }

    fn identity(&self, path: &Path) -> PathBuf {
        normal(path)
    }
}

/// A place a [`Library`] searches.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Place {
    /// A directory of the file system (`.` for the current one).
    Dir(PathBuf),
    /// The files built into hazmat whose names start with this prefix (`""` for all of
    /// them, `"dir/"` for `-I +dir`).
    Builtin(String),
}

/// Where files given by a bare name are looked for, in herd7's order: the current
/// directory, the `-I` directories, `$HERDLIB`, herd7's library directory when one is
/// given, and the files built into hazmat.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Library {
    includes: Vec<Place>,
    herdlib: Option<PathBuf>,
    libdir: Option<PathBuf>,
}

/// A file a [`Library`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// A file of the file system.
    Path(PathBuf),
    /// A file built into hazmat.
    Builtin {
        /// Its name in [`BUILTIN`].
        name: &'static str,
        /// Its text.
        text: &'static str,
    },
}

impl Library {
    /// The current directory and the built-in files, without `-I` directories or
    /// `$HERDLIB`.
    pub fn new() -> Library {
        Library::default()
    }

    /// The library with one more `-I` directory, searched after those given before; as in
    /// herd7, `+dir` names the directory `dir` of the library built into hazmat.
    pub fn include(mut self, dir: impl Into<PathBuf>) -> Library {
        let dir = dir.into();
        let place = match dir.to_str().and_then(|d| d.strip_prefix('+')) {
            Some(sub) => Place::Builtin(format!("{}/", sub.trim_end_matches('/'))),
            None => Place::Dir(dir),
        };
        self.includes.push(place);
        self
    }

    /// The library with the directory that `$HERDLIB` names, searched after the `-I`
    /// directories (the caller reads the environment).
    pub fn herdlib(mut self, dir: Option<PathBuf>) -> Library {
        self.herdlib = dir;
        self
    }

    /// The library with herd7's own library directory (its `-set-libdir`), searched after
    /// `$HERDLIB` and before the files built into hazmat.
    pub fn libdir(mut self, dir: Option<PathBuf>) -> Library {
        self.libdir = dir;
        self
    }

    /// The places searched, in order.
    fn places(&self) -> Vec<Place> {
        let mut places = vec![Place::Dir(PathBuf::from("."))];
        places.extend(self.includes.iter().cloned());
        places.extend(self.herdlib.iter().cloned().map(Place::Dir));
        places.extend(self.libdir.iter().cloned().map(Place::Dir));
        places.push(Place::Builtin(String::new()));
        places
    }

    /// Finds the file `name` names, as herd7 does; otherwise, the places searched, as
    /// they read in a message.
    pub fn find(&self, fs: &dyn FileSystem, name: &str) -> Result<Found, Vec<String>> {
        if !is_implicit(name) {
            let path = PathBuf::from(name);
            return if fs.is_file(&path) {
                Ok(Found::Path(path))
            } else {
                Err(vec![format!("`{name}` itself, a path used as it is")])
            };
        }
        let mut searched = Vec::new();
        for place in self.places() {
            match place {
                Place::Dir(dir) => {
                    let path = dir.join(name);
                    if fs.is_file(&path) {
                        return Ok(Found::Path(path));
                    }
                    let herdlib = self.herdlib.as_ref() == Some(&dir);
                    searched.push(if herdlib {
                        format!("`{}` ($HERDLIB)", dir.display())
                    } else {
                        format!("`{}`", dir.display())
                    });
                }
                Place::Builtin(prefix) => {
                    let key = format!("{prefix}{name}");
                    if let Some(&(name, text)) = BUILTIN.iter().find(|(n, _)| *n == key) {
                        return Ok(Found::Builtin { name, text });
                    }
                    searched.push(if prefix.is_empty() {
                        "the files built into hazmat".to_string()
                    } else {
                        format!("the files built into hazmat under `{prefix}`")
                    });
                }
            }
        }
        Err(searched)
    }
}

/// Whether a file name is to be searched for (OCaml's `Filename.is_implicit`): it does not
/// start with `/`, `./` or `../`.
fn is_implicit(name: &str) -> bool {
    !(name.starts_with('/') || name.starts_with("./") || name.starts_with("../"))
}

/// A model's files, parsed, with every file they include.
#[derive(Clone, Debug, Default)]
pub struct Loaded {
    files: Files,
    /// The tree of each file, by index.
    models: Vec<Option<Model>>,
    /// The file each name given to `include` loads.
    includes: BTreeMap<String, u32>,
    /// The file each identity was read into.
    by_identity: HashMap<PathBuf, u32>,
    /// Whether an include that cannot be found or parsed is recorded in `failed` instead
    /// of stopping the load.
    per_test: bool,
    /// Why each name given to `include` loads no file, in herd7's words.
    failed: BTreeMap<String, String>,
}

impl Loaded {
    /// Nothing loaded yet.
    pub fn new() -> Loaded {
        Loaded::default()
    }

    /// Loads the model file `name`, found through `library`, and every file it includes;
    /// returns its index.
    /// A file loaded before (by an earlier call, or as an include) is not read again.
    pub fn load(
        &mut self,
        library: &Library,
        fs: &dyn FileSystem,
        name: &str,
    ) -> Result<u32, CatError> {
        self.load_file(library, fs, name, None, &mut Vec::new())
    }

    /// Loads a model given as text, named `name` in messages, and every file it includes;
    /// returns its index.
    pub fn load_text(
        &mut self,
        library: &Library,
        fs: &dyn FileSystem,
        name: &str,
        text: impl Into<String>,
    ) -> Result<u32, CatError> {
        let file = self.files.add(name, Origin::Text, text);
        self.parse_and_follow(library, fs, file, &mut Vec::new())?;
        Ok(file)
    }

    /// From now on, an included file that cannot be found, or that does not parse, stops
    /// nothing: why is recorded, in herd7's words ([`Loaded::failed_include`]), for the
    /// model to report when it runs the `include`, as herd7 reports it on each test.
    /// The files given to [`Loaded::load`] themselves are still errors, as are an include
    /// cycle and a file that cannot be read.
    pub fn include_errors_per_test(&mut self, on: bool) {
        self.per_test = on;
    }

    /// Why `include "name"` loads no file, in herd7's words (`Cannot find file NAME`, or
    /// the parse error of the file it names, located as herd7 locates it), when
    /// [`Loaded::include_errors_per_test`] recorded it.
    pub fn failed_include(&self, name: &str) -> Option<&str> {
        self.failed.get(name).map(String::as_str)
    }

    /// The files read so far.
    pub fn files(&self) -> &Files {
        &self.files
    }

    /// The tree of a file.
    pub fn model(&self, file: u32) -> Option<&Model> {
        self.models.get(file as usize)?.as_ref()
    }

    /// The file that `include "name"` loads, wherever it is written: herd7's search does
    /// not depend on the including file.
    pub fn include(&self, name: &str) -> Option<u32> {
        self.includes.get(name).copied()
    }

    /// The files and their trees.
    pub fn into_parts(self) -> (Files, Vec<Option<Model>>) {
        (self.files, self.models)
    }

    /// Finds, reads and parses `name`, then the files it includes; `from` is the include
    /// that names it and `stack` the files being loaded around it.
    fn load_file(
        &mut self,
        library: &Library,
        fs: &dyn FileSystem,
        name: &str,
        from: Option<Span>,
        stack: &mut Vec<u32>,
    ) -> Result<u32, CatError> {
        let found = library.find(fs, name).map_err(|searched| {
            let message = format!("cannot find the file `{name}`");
            self.error(from, ErrorKind::NotFound, message)
                .note(format!("looked in {}", searched.join(", ")))
        })?;
        let identity = match &found {
            Found::Path(path) => fs.identity(path),
            Found::Builtin { name, .. } => PathBuf::from(format!("builtin:{name}")),
        };
        if let Some(&file) = self.by_identity.get(&identity) {
            if let Some(at) = stack.iter().position(|&f| f == file) {
                return Err(self.cycle(from, &stack[at..], file));
            }
            if self.model(file).is_none() {
                // A file read before that did not parse (recorded under another name for
                // it): its error again.
                let text = self.files.get(file).map_or("", |f| f.text.as_str());
                parse(text, file)?;
            }
            return Ok(file);
        }
        let file = match found {
            Found::Path(path) => {
                let text = fs.read(&path).map_err(|e| {
                    let message = format!("cannot read `{}`: {e}", path.display());
                    self.error(from, ErrorKind::Read, message)
                })?;
                let shown = path.display().to_string();
                self.files.add(shown, Origin::Path(path), text)
            }
            Found::Builtin { name, text } => self.files.add(name, Origin::Builtin, text),
        };
        self.by_identity.insert(identity, file);
        self.parse_and_follow(library, fs, file, stack)?;
        Ok(file)
    }

    /// Parses file `file` and loads the files it includes.
    fn parse_and_follow(
        &mut self,
        library: &Library,
        fs: &dyn FileSystem,
        file: u32,
        stack: &mut Vec<u32>,
    ) -> Result<(), CatError> {
        let text = self.files.get(file).map_or("", |f| f.text.as_str());
        let model = parse(text, file)?;
        let mut includes = Vec::new();
        collect_includes(&model.instrs, &mut includes);
        if self.models.len() <= file as usize {
            self.models.resize(file as usize + 1, None);
        }
        self.models[file as usize] = Some(model);
        stack.push(file);
        for (name, span) in includes {
            if self.failed.contains_key(&name) {
                continue;
            }
            let included = self.load_file(library, fs, &name, Some(span), stack);
            let included =
                included.map_err(
                    |e| match self.herd7_words(&name, &e).filter(|_| self.per_test) {
                        Some(why) => Ok(why),
                        None => Err(e),
                    },
                );
            match included {
                Ok(included) => {
                    self.includes.insert(name, included);
                }
                Err(Ok(why)) => {
                    self.failed.insert(name, why);
                }
                Err(Err(e)) => {
                    stack.pop();
                    return Err(e);
                }
            }
        }
        stack.pop();
        Ok(())
    }

    /// herd7's words for why `include "name"` fails with `e`, when herd7 reports it on
    /// each test: the file is nowhere (`Cannot find file NAME`; for a path used as it is,
    /// the failure to open it), or it does not parse (herd7's message for the first token
    /// it cannot read, located in bytes, or for a character or comment its lexer cannot
    /// read). `None` for the errors still fatal.
    fn herd7_words(&self, name: &str, e: &CatError) -> Option<String> {
        match e.kind {
            ErrorKind::NotFound if is_implicit(name) => Some(format!("Cannot find file {name}")),
            ErrorKind::NotFound => {
                Some(format!("open_in failed: {name}: No such file or directory"))
            }
            ErrorKind::Syntax => {
                let at = e.at?;
                let file = self.files.get(at.span.file)?;
                let text = file.text.as_str();
                let place = |offset: usize| {
                    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
                    let line = text[..offset].matches('\n').count() + 1;
                    (line, offset - line_start)
                };
                let (start, end) = (at.span.start as usize, at.span.end as usize);
                let head = format!("File \"{}\"", file.name);
                let lexer = |what: &str, offset: usize| {
                    let (line, col) = place(offset);
                    format!("{head}, line {line}, character {col}: Lex error {what} (in model)")
                };
                Some(if e.message.starts_with("unclosed comment") {
                    // herd7's lexer meets the end of the file in the comment.
                    lexer("eof in skip_comment", text.len())
                } else if e.message.starts_with("unclosed string")
                    || e.message.starts_with("unexpected character")
                    || e.message.starts_with("expected a name after `'`")
                {
                    lexer("Model lexer", start)
                } else {
                    let (line, col) = place(start);
                    let token = text.get(start..end)?;
                    format!(
                        "{head}, line {line}, characters {col}-{}: unexpected '{token}' (in \
                         model)",
                        col + token.len()
                    )
                })
            }
            _ => None,
        }
    }

    /// An error at `span` (of a file already read), or in no file.
    fn error(&self, span: Option<Span>, kind: ErrorKind, message: String) -> CatError {
        match span.and_then(|s| Some((s, self.files.get(s.file)?))) {
            Some((span, file)) => CatError::at(kind, &file.text, span, message),
            None => CatError::nowhere(kind, message),
        }
    }

    /// The error for an include at `span` that names `file`, which is being loaded around
    /// it through `chain` (which starts with `file`).
    fn cycle(&self, span: Option<Span>, chain: &[u32], file: u32) -> CatError {
        let name = |f: u32| self.files.get(f).map_or("?", |s| s.name.as_str());
        let mut names: Vec<String> = chain.iter().map(|&f| format!("`{}`", name(f))).collect();
        names.push(format!("`{}`", name(file)));
        let message = if chain.len() == 1 {
            format!("`{}` includes itself", name(file))
        } else {
            format!("include cycle: {}", names.join(" includes "))
        };
        self.error(span, ErrorKind::IncludeCycle, message)
            .note("herd7 would keep including them until it ran out of stack")
    }
}

/// The `include`s of a list of instructions, at any depth, in order.
fn collect_includes(instrs: &[Instr], out: &mut Vec<(String, Span)>) {
    for instr in instrs {
        match instr {
            Instr::Include { file, span } => out.push((file.clone(), *span)),
            Instr::Procedure { body, .. } | Instr::Forall { body, .. } => {
                collect_includes(body, out);
            }
            Instr::IfVariant { then, els, .. } => {
                collect_includes(then, out);
                collect_includes(els, out);
            }
            Instr::Match {
                clauses, default, ..
            } => {
                for (_, body) in clauses {
                    collect_includes(body, out);
                }
                if let Some(body) = default {
                    collect_includes(body, out);
                }
            }
            _ => {}
        }
    }
}
