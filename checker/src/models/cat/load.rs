//! Building a runnable model from its files: the standard library, the bell file, then
//! the cat file (with everything they include), compiled as one program.
//!
//! herd7 runs a model in the same order: its standard library, the bell file, the cat
//! file, the later ones seeing the names the earlier ones define.
//! The standard library is the file `stdlib.cat`, found through the [`Library`] as herd7
//! finds its own: a user's copy first, and hazmat's (`lib/stdlib.cat`, built in) last.

use super::ast::{self, Span};
use super::compile::{self, CompileError, Includes};
use super::error::{CatError, ErrorKind, model_error};
use super::files::{FileSystem, Library, Loaded, PRELUDE_NAME};
use super::known::{self, Known};
use super::model::CatModel;
use super::source::Files;
use super::stage;
use std::path::Path;
use std::sync::Arc;

/// The architectures herd7 knows besides C: a model whose first word names one is for
/// that architecture's tests only.
const ARCHITECTURES: &[&str] = &[
    "X86", "X86_64", "PPC", "ARM", "AArch64", "MIPS", "RISCV", "RISC-V", "CPP", "LISA", "BPF",
    "JAVA", "ASL",
];

/// What a model is made of, as herd7's command line or configuration file names it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Spec {
    /// The cat file, by name (searched for) or path.
    pub cat: String,
    /// The bell file, if any.
    pub bell: Option<String>,
    /// The variants set (`lkmmv2`, `cos-opt`...).
    pub variants: Vec<String>,
    /// The names of the checks of the model's files (the bell file's too) not applied:
    /// herd7's `-skipcheck`.
    pub skip: Vec<String>,
    /// herd7's `-strictskip true`: the checks named in `skip` are evaluated, and only the
    /// executions on which exactly those fail are kept.
    pub strictskip: bool,
}

/// A model that could not be built: the error, and the files it is located in.
#[derive(Clone, Debug)]
pub struct LoadError {
    /// The error.
    pub error: CatError,
    /// The files read, which the error's place refers to.
    pub files: Files,
}

impl LoadError {
    /// The diagnostic, with the file name, the source line and a caret.
    pub fn render(&self) -> String {
        self.error.render(&self.files)
    }
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.render().trim_end())
    }
}

impl std::error::Error for LoadError {}

/// When an included file that cannot be found, or that does not parse, is reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IncludeErrors {
    /// Before anything runs, as the model's one located error (`hazmat check`).
    #[default]
    Upfront,
    /// On each test whose run reaches the `include`, in herd7's words, as herd7 reports
    /// it (`hazmat herd7`): herd7 looks for an included file only when it runs the
    /// `include`. The prelude is read as under `Upfront`; an include of the bell file,
    /// which herd7 runs once before any test, that fails where that run reaches it stops
    /// the load with herd7's words ([`ErrorKind::StopsHerd7`]).
    PerTest,
}

/// Reads, parses and compiles the model `spec` names, finding its files through `library`
/// in `fs`.
pub fn load(library: &Library, fs: &dyn FileSystem, spec: &Spec) -> Result<CatModel, LoadError> {
    load_with(library, fs, spec, IncludeErrors::Upfront)
}

/// [`load`], with the errors of included files reported as `include_errors` says.
pub fn load_with(
    library: &Library,
    fs: &dyn FileSystem,
    spec: &Spec,
    include_errors: IncludeErrors,
) -> Result<CatModel, LoadError> {
    let mut loaded = Loaded::new();
    let fail = |loaded: &Loaded, error: CatError| LoadError {
        error,
        files: loaded.files().clone(),
    };
    let prelude = loaded
        .load(library, fs, PRELUDE_NAME)
        .map_err(|e| fail(&loaded, e))?;
    // The bell file's includes too: herd7 runs it before any test, and stops at one that
    // fails only if that run reaches it (the compiled code says: `Code::at_start`).
    loaded.include_errors_per_test(include_errors == IncludeErrors::PerTest);
    let bell = match &spec.bell {
        Some(b) => Some(loaded.load(library, fs, b).map_err(|e| fail(&loaded, e))?),
        None => None,
    };
    let cat = loaded
        .load(library, fs, &spec.cat)
        .map_err(|e| fail(&loaded, e))?;
    let files = loaded.files().clone();
    for f in [bell, Some(cat)].into_iter().flatten() {
        if let Some(arch) = loaded.model(f).and_then(|m| m.arch.as_deref())
            && let Some(a) = ARCHITECTURES.iter().find(|a| a.eq_ignore_ascii_case(arch))
        {
            let name = files.get(f).map_or("", |s| s.name.as_str());
            return Err(LoadError {
                error: CatError::nowhere(
                    ErrorKind::Model,
                    format!(
                        "`{name}` is a model for {a} tests, and hazmat's tests are C tests \
                         (herd7 refuses it too: architecture mismatch)"
                    ),
                ),
                files,
            });
        }
    }
    let mut order: Vec<Arc<ast::Model>> = Vec::new();
    // The prelude, then the bell file if there is one, then the cat file.
    let bell_at = bell.map(|_| 1);
    for f in [Some(prelude), bell, Some(cat)].into_iter().flatten() {
        let model = loaded.model(f).cloned().unwrap_or_else(|| ast::Model {
            title: None,
            arch: None,
            catdep: false,
            instrs: Vec::new(),
        });
        order.push(Arc::new(model));
    }
    let known = loaded
        .files()
        .iter()
        .map(|(_, f)| known::loaded_file(f))
        .collect();
    let mut includes = FromLoaded {
        loaded: &loaded,
        cache: Vec::new(),
        known,
    };
    let models: Vec<&ast::Model> = order.iter().map(|m| &**m).collect();
    let skip = compile::Skip {
        names: &spec.skip,
        strict: spec.strictskip,
    };
    // herd7 runs the bell file once, before any test: an include that fails where that run
    // reaches it (the prelude and the bell compiled alone then end with it) stops the load.
    if let (IncludeErrors::PerTest, Some(b)) = (include_errors, bell_at) {
        let code = compile::compile(&models[..=b], bell_at, &spec.variants, skip, &mut includes)
            .map_err(|e| LoadError {
                error: located(&files, &e),
                files: files.clone(),
            })?;
        if let Some(compile::Ins::Fail(words, _)) = code.instrs.last() {
            return Err(LoadError {
                error: CatError::nowhere(ErrorKind::StopsHerd7, words.to_string()),
                files,
            });
        }
    }
    let mut code = compile::compile(&models, bell_at, &spec.variants, skip, &mut includes)
        .map_err(|e| LoadError {
            error: located(&files, &e),
            files: files.clone(),
        })?;
    stage::stage(&mut code);
    let lock_cat = includes
        .cache
        .iter()
        .any(|(name, _)| Path::new(name).file_name() == Some("lock.cat".as_ref()));
    let title = order
        .last()
        .and_then(|m| m.title.clone())
        .unwrap_or_else(|| spec.cat.clone());
    Ok(CatModel::new(&title, code, files, cat)
        .under_variants(&spec.variants)
        .with_lock_cat(lock_cat))
}

/// A compile error as a located [`CatError`].
fn located(files: &Files, e: &CompileError) -> CatError {
    model_error(files, e.span, e.message.clone())
}

/// The included files' trees, from what the loader read.
struct FromLoaded<'a> {
    loaded: &'a Loaded,
    cache: Vec<(String, Arc<ast::Model>)>,
    /// For each file, what [`Includes::known`] says of it.
    known: Vec<Option<Known>>,
}

impl Includes for FromLoaded<'_> {
    fn include(&mut self, name: &str, span: Span) -> Result<Arc<ast::Model>, CompileError> {
        if let Some((_, m)) = self.cache.iter().find(|(n, _)| n == name) {
            return Ok(m.clone());
        }
        let model = self
            .loaded
            .include(name)
            .and_then(|f| self.loaded.model(f))
            .ok_or_else(|| CompileError {
                message: format!("cannot find the file `{name}`"),
                span,
            })?;
        let model = Arc::new(model.clone());
        self.cache.push((name.to_string(), model.clone()));
        Ok(model)
    }

    fn known(&self, file: u32) -> Option<Known> {
        self.known.get(file as usize).copied().flatten()
    }

    fn failed(&self, name: &str, span: Span) -> Option<String> {
        let why = self.loaded.failed_include(name)?;
        // herd7 prefixes why with the place of the `include`: its line, and its columns
        // counted in bytes from 0.
        let file = self.loaded.files().get(span.file)?;
        let text = file.text.as_str();
        let (start, end) = (span.start as usize, span.end as usize);
        let line_start = text.get(..start)?.rfind('\n').map_or(0, |i| i + 1);
        let line = text[..start].matches('\n').count() + 1;
        Some(format!(
            "File \"{}\", line {line}, characters {}-{}: {why}",
            file.name,
            start - line_start,
            end - line_start
        ))
    }
}
