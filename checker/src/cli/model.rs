//! The model options of a command that decides tests (`--model`, or a model given by its
//! files: `--cat`, `--bell`, `--macros`, `--conf`, `-I`, `--variant`, `--interpret`), and
//! the one choice of what runs them ([`hazmat_checker::models::choose`]).
//!
//! `hazmat weaken` takes them from here; `hazmat check` has its own copy of the same
//! reading in `check.rs`, which can move here.

use hazmat_checker::front::defs::Macros;
use hazmat_checker::models::model::MemoryModel;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(clap::Args, Clone, Debug)]
pub(crate) struct ModelArgs {
    /// The memory model: lkmm, sc, tso or rc11 (default: lkmm). `--cat` or `--conf` run a
    /// model from its files instead.
    #[arg(long)]
    pub(crate) model: Option<String>,
    /// A model in herd7's cat language, run by hazmat's interpreter (the native model when
    /// the files are the kernel's current LKMM or herd7's RC11, unless `--interpret`).
    #[arg(long, value_name = "FILE", conflicts_with = "model")]
    cat: Option<String>,
    /// The bell file run before the cat file (herd7's `-bell`).
    #[arg(long, value_name = "FILE", conflicts_with = "model")]
    bell: Option<String>,
    /// The file of C macros (herd7's `-macros`).
    #[arg(long, value_name = "FILE", conflicts_with = "model")]
    macros: Option<String>,
    /// A directory where model files are looked for (herd7's `-I`).
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    include: Vec<PathBuf>,
    /// A herd7 configuration file naming the model, bell, macros and variants (herd7's
    /// `-conf`).
    #[arg(long, value_name = "FILE", conflicts_with = "model")]
    conf: Option<String>,
    /// Variants the model tests with `if "name"` (herd7's `-variant`).
    #[arg(long, value_delimiter = ',')]
    variant: Vec<String>,
    /// Run the interpreter even when the model files are the kernel's current LKMM or
    /// herd7's RC11.
    #[arg(long)]
    interpret: bool,
}

/// The model chosen, whether it is native, and a user's macros.
pub(crate) struct Chosen {
    pub(crate) model: Box<dyn MemoryModel>,
    pub(crate) native: bool,
    pub(crate) macros: Option<Arc<Macros>>,
}

impl ModelArgs {
    /// The model these options name, or the message to print.
    pub(crate) fn choose(&self) -> Result<Chosen, String> {
        use hazmat_checker::models::cat::config::parse_config;
        use hazmat_checker::models::cat::files::{Disk, FileSystem, Found};
        use hazmat_checker::models::cat::{Files, Library, Origin};
        use hazmat_checker::models::choose::{ChooseError, Kind, Request, choose};
        if self.cat.is_none() && self.bell.is_none() && self.macros.is_none() && self.conf.is_none()
        {
            let name = self.model.as_deref().unwrap_or("lkmm");
            return hazmat_checker::model(name)
                .map(|model| Chosen {
                    model,
                    native: true,
                    macros: None,
                })
                .map_err(|e| format!("hazmat: error: {e}"));
        }
        let herdlib = std::env::var_os("HERDLIB").map(PathBuf::from);
        let mut library = Library::new();
        for dir in &self.include {
            library = library.include(dir);
        }
        let not_found = |name: &str, searched: &[String]| {
            format!(
                "hazmat: error: cannot find the file `{name}`\n  = note: looked in {}",
                searched.join(", ")
            )
        };
        let (mut cat, mut bell, mut macros, mut variants) = (None, None, None, Vec::new());
        if let Some(conf) = &self.conf {
            let lib = library.clone().herdlib(herdlib.clone());
            let (name, text) = match lib.find(&Disk, conf) {
                Ok(Found::Path(p)) => match Disk.read(&p) {
                    Ok(t) => (p.display().to_string(), t),
                    Err(e) => {
                        return Err(format!("hazmat: error: cannot read `{}`: {e}", p.display()));
                    }
                },
                Ok(Found::Builtin { name, text }) => (name.to_string(), text.to_string()),
                Err(searched) => return Err(not_found(conf, &searched)),
            };
            let config = match parse_config(&text, 0) {
                Ok(c) => c,
                Err(e) => {
                    let mut files = Files::new();
                    files.add(name, Origin::Text, text);
                    return Err(e.render(&files).trim_end().to_string());
                }
            };
            cat = config.model.map(|s| s.value);
            bell = config.bell.map(|s| s.value);
            macros = config.macros.map(|s| s.value);
            variants.extend(config.variants.into_iter().map(|s| s.value));
            for dir in config.includes {
                library = library.include(dir.value);
            }
        }
        variants.extend(self.variant.iter().cloned());
        let Some(cat) = self.cat.clone().or(cat) else {
            return Err(
                "hazmat: error: no cat file: give `--cat FILE`, or a `--conf` file that names a model"
                    .to_string(),
            );
        };
        let request = Request {
            cat,
            bell: self.bell.clone().or(bell),
            macros: self.macros.clone().or(macros),
            variants,
            interpret: self.interpret,
            kernel_by_name: false,
        };
        let library = library.herdlib(herdlib);
        match choose(&library, &Disk, &request) {
            Ok(choice) => Ok(Chosen {
                model: choice.model,
                native: choice.kind == Kind::Native,
                macros: choice.macros,
            }),
            Err(ChooseError::NotFound { name, searched }) => Err(not_found(&name, &searched)),
            Err(ChooseError::Read { name, error }) => {
                Err(format!("hazmat: error: cannot read `{name}`: {error}"))
            }
            Err(ChooseError::Def { name, error }) => Err(format!(
                "{name}:{}:{}: error: {}",
                error.line, error.column, error.message
            )),
            Err(ChooseError::Load(e)) => Err(e.render().trim_end().to_string()),
        }
    }
}
