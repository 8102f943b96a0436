//! Choosing what runs a model given by its files: the one decision that `hazmat check
//! --cat/--conf` and `hazmat herd7` both make.
//!
//! The files are a cat file, a bell file, a macro (`.def`) file and variants, as a
//! configuration file or a command line names them ([`Request`]). They choose:
//! - the dialect of the tests' calls, from the macro file: herd7's `c11.def` gives the C11
//!   dialect; the kernel's `linux-kernel.def`, no file, or a user's own file (whose macros
//!   then replace the kernel's) give the kernel's;
//! - the model: in the kernel's dialect, the native [`Lkmm`] when the model files are the
//!   kernel's current model with its variant ([`known::is_kernel_model`]); in the C11
//!   dialect, the native [`Rc11`] when they are herd7's `rc11.cat`
//!   ([`known::is_rc11`]); the cat interpreter for anything else, or when it is asked for
//!   ([`Request::interpret`]).
//!
//! The kernel's model is recognised before anything is compiled, file by file, so the
//! kernel's scripts, which start one process per test, pay nothing for the choice; a
//! command line that takes an absent kernel file for the kernel's own
//! ([`Request::kernel_by_name`]) runs the native model with no file at hand.
//! Files are found as herd7 finds them ([`Library`]) and read through a [`FileSystem`],
//! so this module does no I/O of its own.

use std::sync::Arc;

use super::cat::config::Settings;
use super::cat::files::{FileSystem, Found, Library};
use super::cat::known::{self, KERNEL_VARIANT, Known};
use super::cat::{CatModel, IncludeErrors, LoadError, Spec, load_with};
use super::lkmm::Lkmm;
use super::model::MemoryModel;
use super::optace::OptAce;
use super::rc11::Rc11;
use crate::front::c11::Dialect;
use crate::front::defs::{DefError, Macros};
use crate::front::variant::LkmmVersion;

/// The files a command line or configuration names for a model.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// The cat file, by name (searched for) or path.
    pub cat: String,
    /// The bell file, if any.
    pub bell: Option<String>,
    /// The macro file, if any.
    pub macros: Option<String>,
    /// How the tests' calls are read when no macro file is named: in the kernel's
    /// dialect (`hazmat check`'s default, the default of [`Request`]), or in
    /// [`Dialect::Bare`], as herd7 reads them without one.
    pub without_macros: Dialect,
    /// The variants set.
    pub variants: Vec<String>,
    /// Run the interpreter even for a model hazmat knows natively.
    pub interpret: bool,
    /// The names of the checks not applied (herd7's `-skipcheck`): the interpreter then
    /// runs, whatever the model.
    pub skip: Vec<String>,
    /// herd7's `-strictskip true`: the checks named in `skip` are evaluated, and only the
    /// executions on which exactly those fail are kept.
    pub strictskip: bool,
    /// Take a kernel file that cannot be found for the kernel's own, by its name (as
    /// `hazmat herd7` does, so that `-conf linux-kernel.cfg` works anywhere).
    pub kernel_by_name: bool,
    /// herd7's `-optace`: under `true`, herd7 sets the variant `cos-opt` for a model file
    /// (the candidates it builds are the engine's business, [`crate::models::optace`]).
    pub optace: OptAce,
    /// When an included file that cannot be found or parsed is reported: before anything
    /// runs (`hazmat check`'s way, the default), or on each test that reaches it (herd7's).
    pub include_errors: IncludeErrors,
}

/// herd7's model for C tests when none is named: `c11_partialSC.cat` (found as any model
/// file is; hazmat's own library has one).
pub const DEFAULT_C_MODEL: &str = "c11_partialSC.cat";

impl Request {
    /// The request that configuration lines and options make ([`Settings`]): their model,
    /// or herd7's default for C ([`DEFAULT_C_MODEL`]); their bell and macro files and
    /// their variants.
    pub fn from_settings(settings: &Settings) -> Request {
        Request {
            cat: settings
                .model
                .clone()
                .unwrap_or_else(|| DEFAULT_C_MODEL.to_string()),
            bell: settings.bell.clone(),
            macros: settings.macros.clone(),
            variants: settings.variants.clone(),
            skip: settings.skipchecks.clone(),
            strictskip: settings.strictskip,
            optace: settings.optace,
            ..Request::default()
        }
    }
}

/// What runs a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A native model, written in Rust.
    Native,
    /// The cat interpreter, running the model's files.
    Interpreted,
}

impl Kind {
    /// `native` or `interpreted`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Native => "native",
            Kind::Interpreted => "interpreted",
        }
    }
}

/// The model chosen for a [`Request`], and how the tests' calls are read.
pub struct Choice {
    /// The model to run.
    pub model: Box<dyn MemoryModel>,
    /// What runs it.
    pub kind: Kind,
    /// The cat file: the path it was found at, or the name it was asked by.
    pub file: String,
    /// The dialect of the tests' calls.
    pub dialect: Dialect,
    /// A user's own macros, which replace the kernel's ([`crate::front::defs`]).
    pub macros: Option<Arc<Macros>>,
}

/// Why no model could be chosen.
#[derive(Debug)]
pub enum ChooseError {
    /// A file named is in none of the places searched.
    NotFound {
        /// The name asked for.
        name: String,
        /// The places searched, as [`Library::find`] lists them.
        searched: Vec<String>,
    },
    /// A file was found and could not be read.
    Read {
        /// The file.
        name: String,
        /// Why.
        error: std::io::Error,
    },
    /// The macro file cannot be read into macros hazmat can run.
    Def {
        /// The file.
        name: String,
        /// What is wrong, and where.
        error: DefError,
    },
    /// The cat or bell file (or a file they include) cannot be loaded.
    Load(LoadError),
}

/// What a macro file gives the tests' calls: the kernel's `linux-kernel.def` and herd7's
/// `c11.def`, recognised by their content, give hazmat's own tables in their dialects; any
/// other file gives its own macros, in the kernel's dialect, or an error where it cannot be
/// read.
pub fn read_macros(text: &str) -> Result<(Dialect, Option<Macros>), DefError> {
    match known::def_file(text) {
        Some(Known::C11Def) => Ok((Dialect::C11, None)),
        Some(_) => Ok((Dialect::Kernel, None)),
        None => Macros::parse(text).map(|m| (Dialect::Kernel, Some(m))),
    }
}

/// Which of the native LKMM and the interpreter runs a loaded model in the kernel's
/// dialect.
pub enum Chosen {
    /// The native LKMM: the files are the kernel's current model.
    Native(Lkmm),
    /// The interpreter.
    Interpreted(Box<CatModel>),
}

/// The native LKMM when `model`'s files are the kernel's current model with `variants`
/// and `interpret` is not asked, else `model` itself.
pub fn loaded(model: CatModel, variants: &[String], interpret: bool) -> Chosen {
    if !interpret && known::is_kernel_model(model.files(), variants) {
        Chosen::Native(Lkmm)
    } else {
        Chosen::Interpreted(Box::new(model))
    }
}

/// The model `request` names, and what runs it.
pub fn choose(
    library: &Library,
    fs: &dyn FileSystem,
    request: &Request,
) -> Result<Choice, ChooseError> {
    let (dialect, macros) = match &request.macros {
        None => (request.without_macros, None),
        // hazmat's own `c11.def` is known by its name, as its other built-in files are.
        Some(name) if matches!(library.find(fs, name), Ok(Found::Builtin { name, .. }) if name == Known::C11Def.name()) => {
            (Dialect::C11, None)
        }
        Some(name) => match text_of(library, fs, name, request.kernel_by_name)? {
            Some(text) => read_macros(&text).map_err(|error| ChooseError::Def {
                name: found_name(library, fs, name),
                error,
            })?,
            None => (Dialect::Kernel, None),
        },
    };
    // herd7 reads the kernel's read-modify-writes as the variants say: without `lkmmv2`,
    // even the kernel's current macros are read the `lkmmv1` way.
    let lkmm = LkmmVersion::of_variants(&request.variants);
    let macros = match (macros, lkmm, dialect) {
        (Some(m), ..) => Some(m.with_lkmm(lkmm)),
        (None, LkmmVersion::V1, Dialect::Kernel) => Some(Macros::builtin().with_lkmm(lkmm)),
        (None, ..) => None,
    };
    let macros = macros.map(Arc::new);
    let mut file = found_name(library, fs, &request.cat);
    for name in std::iter::once(&request.cat).chain(&request.bell) {
        if let Err(searched) = library.find(fs, name)
            && !(request.kernel_by_name && known::kernel_file_named(name).is_some())
        {
            return Err(ChooseError::NotFound {
                name: name.clone(),
                searched,
            });
        }
    }
    // A model with checks skipped is no longer the one hazmat knows natively.
    let interpret = request.interpret || !request.skip.is_empty();
    if !interpret && dialect == Dialect::Kernel && kernel_files(library, fs, request)? {
        return Ok(Choice {
            model: Box::new(Lkmm),
            kind: Kind::Native,
            file,
            dialect,
            macros,
        });
    }
    // Under `-optace true`, herd7 runs a model file with the variant `cos-opt` set too
    // (its `cos.cat` then starts from the `pco` herd7 computes); the other variants choose
    // the model as given.
    let mut variants = request.variants.clone();
    if request.optace == OptAce::True && !variants.iter().any(|v| v == "cos-opt") {
        variants.push("cos-opt".to_string());
    }
    let spec = Spec {
        cat: request.cat.clone(),
        bell: request.bell.clone(),
        variants,
        skip: request.skip.clone(),
        strictskip: request.strictskip,
    };
    let model = load_with(library, fs, &spec, request.include_errors).map_err(ChooseError::Load)?;
    if let Some(f) = model.files().get(model.cat_file()) {
        file.clone_from(&f.name);
    }
    // The native RC11 reads calls as `c11.def` gives them; without a macro file, the
    // interpreter runs `rc11.cat`, so that the calls only that file defines stay unknown.
    let native = !interpret
        && match dialect {
            Dialect::Kernel => known::is_kernel_model(model.files(), &request.variants),
            Dialect::C11 => known::is_rc11(model.files(), &request.variants),
            Dialect::Bare => false,
        };
    let (model, kind): (Box<dyn MemoryModel>, Kind) = match (native, dialect) {
        (true, Dialect::Kernel) => (Box::new(Lkmm), Kind::Native),
        (true, Dialect::C11) => (Box::new(Rc11), Kind::Native),
        (_, _) => (Box::new(model.in_dialect(dialect)), Kind::Interpreted),
    };
    Ok(Choice {
        model,
        kind,
        file,
        dialect,
        // A C11 model reads herd7's C11 dialect, whose macros are hazmat's own.
        macros: if dialect.is_c11() { None } else { macros },
    })
}

/// Whether the request names the kernel's current model, file by file, without compiling
/// it: the standard library is hazmat's or herd7's, the cat, the bell and the files the
/// kernel's model includes are the kernel's, and the variants are its.
fn kernel_files(
    library: &Library,
    fs: &dyn FileSystem,
    request: &Request,
) -> Result<bool, ChooseError> {
    let mut variants: Vec<&str> = request.variants.iter().map(String::as_str).collect();
    variants.sort_unstable();
    variants.dedup();
    let Some(bell) = &request.bell else {
        return Ok(false);
    };
    if variants != [KERNEL_VARIANT] {
        return Ok(false);
    }
    let files = [
        (Known::Stdlib.name(), Known::Stdlib),
        (request.cat.as_str(), Known::KernelCat),
        (bell.as_str(), Known::KernelBell),
        (Known::KernelLock.name(), Known::KernelLock),
        (Known::Cross.name(), Known::Cross),
        (Known::CosOpt.name(), Known::CosOpt),
    ];
    for (name, expected) in files {
        let is = match library.find(fs, name) {
            Ok(Found::Path(path)) => {
                let text = fs.read(&path).map_err(|error| ChooseError::Read {
                    name: path.display().to_string(),
                    error,
                })?;
                known::cat_file(&text) == Some(expected)
            }
            Ok(Found::Builtin { name, .. }) => name == expected.name(),
            Err(_) => request.kernel_by_name && known::kernel_file_named(name) == Some(expected),
        };
        if !is {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The text of the file `name`; `None` when it is not found and is the kernel's file of
/// that name, taken as such.
fn text_of(
    library: &Library,
    fs: &dyn FileSystem,
    name: &str,
    kernel_by_name: bool,
) -> Result<Option<String>, ChooseError> {
    match library.find(fs, name) {
        Ok(Found::Path(path)) => fs.read(&path).map(Some).map_err(|error| ChooseError::Read {
            name: path.display().to_string(),
            error,
        }),
        Ok(Found::Builtin { text, .. }) => Ok(Some(text.to_string())),
        Err(_) if kernel_by_name && known::kernel_file_named(name).is_some() => Ok(None),
        Err(searched) => Err(ChooseError::NotFound {
            name: name.to_string(),
            searched,
        }),
    }
}

/// The name a file is known by once found: its path, its built-in name, or the name
/// asked for when it is not found.
fn found_name(library: &Library, fs: &dyn FileSystem, name: &str) -> String {
    match library.find(fs, name) {
        Ok(Found::Path(path)) => path.display().to_string(),
        Ok(Found::Builtin { name, .. }) => name.to_string(),
        Err(_) => name.to_string(),
    }
}
