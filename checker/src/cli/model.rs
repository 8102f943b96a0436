//! The model options of a command that decides tests (`--model`, or a model given by its
//! files: `--cat`, `--bell`, `--macros`, `--conf`, `-I`, `--variant`, `--interpret`), read
//! once for `hazmat check` and `hazmat weaken`, and the one choice of what runs them
//! ([`hazmat_checker::models::choose`]), which `hazmat herd7` makes too.
//!
//! A configuration file is read as herd7 reads it ([`Settings::read_config`]: its lines
//! in order, the later winning across `conf` includes); the options given on the command
//! line win over its lines, and `-I` directories come before its `include` lines.

use hazmat_checker::front::defs::Macros;
use hazmat_checker::models::cat::config::{Places, Refusal, Settings};
use hazmat_checker::models::cat::files::Disk;
use hazmat_checker::models::choose::{ChooseError, Kind, Request, choose};
use hazmat_checker::models::model::MemoryModel;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(clap::Args, Clone, Debug)]
pub(crate) struct ModelArgs {
    /// The memory model: lkmm, sc, tso or rc11 (default: lkmm; sc under `hazmat check
    /// --engine shuttle`). `--cat` or `--conf` run a model from its files instead.
    #[arg(long)]
    pub(crate) model: Option<String>,
    /// A model in herd7's cat language, run by hazmat's interpreter; when the files loaded
    /// are the kernel's current LKMM or herd7's RC11 (by content), the native model runs
    /// instead, unless `--interpret` is given.
    #[arg(long, value_name = "FILE", conflicts_with = "model")]
    cat: Option<String>,
    /// The bell file run before the cat file (herd7's `-bell`).
    #[arg(long, value_name = "FILE", conflicts_with = "model")]
    bell: Option<String>,
    /// The file of C macros (herd7's `-macros`): the kernel's `linux-kernel.def`, herd7's
    /// `c11.def` (the tests in herd7's C11 dialect), or a file of one's own, whose macros
    /// then replace the kernel's.
    #[arg(long, value_name = "FILE", conflicts_with = "model")]
    macros: Option<String>,
    /// A directory where model files are looked for, after the current one (herd7's `-I`);
    /// `$HERDLIB` is searched after these, and hazmat's own library of herd7's standard
    /// files last.
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    include: Vec<PathBuf>,
    /// A herd7 configuration file naming the model, bell, macros and variants (herd7's
    /// `-conf`), such as the kernel's `linux-kernel.cfg`; read as herd7 reads it, the later
    /// line winning, across its `conf` includes too.
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

/// The model chosen, and what the options and configuration set besides.
pub(crate) struct Chosen {
    /// The model to run.
    pub(crate) model: Box<dyn MemoryModel>,
    /// What runs it.
    pub(crate) kind: Kind,
    /// The cat file: the path it was found at, or its built-in name; `None` for a model
    /// named by `--model`.
    pub(crate) file: Option<String>,
    /// A user's C macros (`--macros`, when not the kernel's `linux-kernel.def`).
    pub(crate) macros: Option<Arc<Macros>>,
    /// What the configuration file set (`speedcheck`, `timeout`, `hexa`...); herd7's
    /// defaults for a model named by `--model`.
    pub(crate) settings: Settings,
}

impl ModelArgs {
    /// Whether a model is given by its files rather than by `--model`.
    pub(crate) fn by_files(&self) -> bool {
        self.cat.is_some() || self.bell.is_some() || self.macros.is_some() || self.conf.is_some()
    }

    /// The model these options name (`default` when none is), or the message to print.
    pub(crate) fn choose(&self, default: &str) -> Result<Chosen, String> {
        if !self.by_files() {
            let name = self.model.as_deref().unwrap_or(default);
            return hazmat_checker::model(name)
                .map(|model| Chosen {
                    model,
                    kind: Kind::Native,
                    file: None,
                    macros: None,
                    settings: Settings::default(),
                })
                .map_err(|e| format!("hazmat: error: {e}"));
        }
        let places = Places {
            herdlib: std::env::var_os("HERDLIB").map(PathBuf::from),
            libdir: None,
        };
        let mut settings = Settings::default();
        for dir in &self.include {
            settings.includes.push(dir.display().to_string());
        }
        if let Some(conf) = &self.conf {
            settings
                .read_config(conf, &places, &Disk)
                .map_err(|e| e.render().trim_end().to_string())?;
            if let Some(key) = settings.by_name() {
                return Err(format!(
                    "hazmat: error: the configuration's `{key}` lines work on the tests \
                     `hazmat herd7` runs, by their names; this command runs the tests its \
                     paths name, as they are written"
                ));
            }
        }
        // The command line's options, read after the configuration, win over its lines.
        for (key, value) in [
            ("model", &self.cat),
            ("bell", &self.bell),
            ("macros", &self.macros),
        ] {
            if let Some(v) = value {
                match key {
                    "model" => settings.model = Some(v.clone()),
                    "bell" => settings.bell = Some(v.clone()),
                    _ => settings.macros = Some(v.clone()),
                }
            }
        }
        for v in &self.variant {
            match settings.apply("variant", v) {
                Ok(()) => {}
                Err(Refusal::Variant(m)) => return Err(format!("hazmat: error: --variant: {m}")),
                Err(Refusal::Unsupported(why)) => {
                    return Err(format!("hazmat: error: --variant {v}: {why}"));
                }
                Err(e) => return Err(format!("hazmat: error: --variant {v}: {e:?}")),
            }
        }
        if settings.model.is_none() {
            // herd7 does the same, silently; a user who gave a bell or macro file most
            // likely meant a model of their own to run with it.
            eprintln!(
                "hazmat: warning: no cat file is named (`--cat`, or a `model` line of \
                 `--conf`): herd7's default model for C, `{}`, decides the tests",
                hazmat_checker::models::choose::DEFAULT_C_MODEL
            );
        }
        self.choose_under(settings)
    }

    /// The model `settings` name, run as these options ask (`--interpret`): what
    /// [`ModelArgs::choose`] chooses once the options and the configuration are read, and
    /// what a test's own `Variant=` line makes of it (`Settings::with_test_variants`).
    pub(crate) fn choose_under(&self, settings: Settings) -> Result<Chosen, String> {
        let places = Places {
            herdlib: std::env::var_os("HERDLIB").map(PathBuf::from),
            libdir: None,
        };
        let mut request = Request::from_settings(&settings);
        request.interpret = self.interpret;
        let choice = choose(&settings.library(&places), &Disk, &request).map_err(|e| match e {
            ChooseError::NotFound { name, searched } => format!(
                "hazmat: error: cannot find the file `{name}`\n  = note: looked in {}",
                searched.join(", ")
            ),
            ChooseError::Read { name, error } => {
                format!("hazmat: error: cannot read `{name}`: {error}")
            }
            ChooseError::Def { name, error } => format!(
                "{name}:{}:{}: error: {}",
                error.line, error.column, error.message
            ),
            ChooseError::Load(e) => e.render().trim_end().to_string(),
        })?;
        for warning in choice.model.warnings() {
            eprintln!("{warning}");
        }
        Ok(Chosen {
            model: choice.model,
            kind: choice.kind,
            file: Some(choice.file),
            macros: choice.macros,
            settings,
        })
    }
}
