//! hazmat as herd7: herd7's command line, model lookup, output and errors, so that the
//! kernel's `tools/memory-model/scripts/` run unchanged with hazmat in herd7's place.
//!
//! It runs as `hazmat herd7 ARGS...`, or as `herd7 ARGS...` when the binary is started
//! under that name (a symlink on `PATH`).
//!
//! # What herd7 does, and so this module
//!
//! - Options are single-dash words read in order, as OCaml's `Arg` reads them; every other
//!   argument is a test file, decided in order, one block of output each on stdout.
//!   Without any, the test files are named on stdin, one a line.
//!   A bad option or value is reported as `ARGV0: MESSAGE.` with a usage on stderr, exit
//!   code 2.
//! - A test that cannot be read, parsed or run is a warning on stderr,
//!   `Warning: File "F": MESSAGE (User error)`, and the run goes on; the exit code stays 0.
//!   `judgelitmus.sh` reads `: Unknown macro NAME (User error)` from it.
//! - A test that runs out of `-timeout` prints nothing at all.
//! - A second test of the same name is skipped when its hash is the first one's, and is
//!   an error otherwise; a test counts as seen only once it has run to its end (one that
//!   failed or ran out of time is run again).
//! - An included model file that cannot be found or parsed stops each test whose run
//!   reaches the `include`, with herd7's located words alone on stderr
//!   (`File "m.cat", line 2, characters 0-20: Cannot find file x.cat`); the other tests
//!   run, and the exit code stays 0 (1 under `-exit true`, which stops there).
//!   One the bell file's run reaches, which herd7 makes once before any test, stops the
//!   whole run instead, with the same words and exit code 2.
//! - After a test whose runs went round a loop more often than the unrolling allows, the
//!   warning `unrolling limit exceeded at While` follows its output on stderr.
//!
//! # Models
//!
//! Model files (`-conf`, `-model`/`-cat`, `-bell`, `-macros`, and the files they include)
//! are looked up as herd7 looks them up ([`Library`]): the current directory, the `-I`
//! directories, `$HERDLIB`, then hazmat's own knowledge.
//!
//! [`Library`]: hazmat_checker::models::cat::files::Library
//! hazmat knows the current Linux-kernel memory model natively: a file found is
//! recognised by a digest of its text without comments and with blanks collapsed (the
//! project holds no copy of the kernel's files), and a file not found at all is taken for
//! the kernel's when it has the kernel's name, so `-conf linux-kernel.cfg` works without
//! the files beside it.
//! Any other model runs in the cat interpreter, from its files; [`choose_model`] asks the
//! library's one choice ([`hazmat_checker::models::choose`]), as `hazmat check` does.

use hazmat_checker::engine::enumerate::{Herd7Stop, Limits, Split};
use hazmat_checker::front::c11::Dialect;
use hazmat_checker::front::lower::{ConditionSource, missing_thread};
use hazmat_checker::models::cat::config::keys::{self, Value};
use hazmat_checker::models::cat::config::maps::{self, Conditions, NameMap};
use hazmat_checker::models::cat::config::{
    self, ConfigError, Herd7Words, Places, Selection, Settings, Speedcheck, io_message,
};
use hazmat_checker::models::cat::files::Disk;
use hazmat_checker::models::cat::known::{self, KERNEL_VARIANT};
use hazmat_checker::models::cat::{ErrorKind, IncludeErrors};
use hazmat_checker::models::choose::{Choice, ChooseError, Request, choose};
use hazmat_checker::models::model::MemoryModel;
use hazmat_checker::report::write::Radix;
use hazmat_checker::{CheckError, Options, check_source};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The version line `-version` prints: the herd7 release whose output hazmat reproduces.
const VERSION: &str = concat!("7.58, Rev: hazmat ", env!("CARGO_PKG_VERSION"));

/// The configuration file of the kernel's model, known by name.
const KERNEL_CFG: &str = "linux-kernel.cfg";

/// Which executions `-show` draws, in herd7's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ShowWhat {
    None,
    /// `prop`, `wit`, `cond`: those that satisfy the condition's proposition.
    Witness,
    /// `neg`: those that do not.
    Counter,
    /// `all`.
    All,
}

impl ShowWhat {
    /// The executions herd7's `show` tag names.
    fn of(tag: Option<&str>) -> ShowWhat {
        match tag {
            Some("prop" | "wit" | "cond") => ShowWhat::Witness,
            Some("neg") => ShowWhat::Counter,
            Some("all") => ShowWhat::All,
            _ => ShowWhat::None,
        }
    }
}

/// The command line, once read.
#[derive(Debug)]
struct Args {
    /// What the options and configuration files set, shared with `hazmat check`.
    settings: Settings,
    /// `$HERDLIB` and `-set-libdir`.
    places: Places,
    /// `-exit true`: stop at the first test that fails, with exit code 1.
    exit: bool,
    /// `-checkfilter`: whether the filter discards executions (herd7's default, `true`).
    check_filter: bool,
    out_dir: Option<PathBuf>,
    files: Vec<String>,
}

/// A refusal of the command line: the message and how herd7 prints it.
struct Refusal {
    message: String,
    form: Form,
}

/// How herd7 prints a refusal of its command line.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    /// `ARGV0: MESSAGE`.
    Plain,
    /// `ARGV0: MESSAGE`, then the usage.
    Usage,
    /// The message as it is (a configuration file's located error).
    Bare,
}

impl Refusal {
    fn usage(message: impl Into<String>) -> Refusal {
        Refusal {
            message: message.into(),
            form: Form::Usage,
        }
    }

    fn plain(message: impl Into<String>) -> Refusal {
        Refusal {
            message: message.into(),
            form: Form::Plain,
        }
    }

    /// A configuration file's error, in herd7's words.
    fn config(e: ConfigError) -> Refusal {
        match e.herd7 {
            Herd7Words::Located(message) => Refusal {
                message,
                form: Form::Bare,
            },
            Herd7Words::Program(message) => Refusal::plain(message),
            Herd7Words::Usage(message) => Refusal::usage(format!("{message}.")),
        }
    }
}

/// Why `-libdir` has no answer unless `-set-libdir` came first.
const NO_LIBDIR: &str = "hazmat has no installation directory, its library of herd7's standard \
                         model files is built into the binary (-set-libdir DIR names a directory \
                         it looks in, which -libdir then prints)";

/// Runs herd7's command line; `argv0` is the name it was started under, `args` the rest.
/// Returns the exit code.
pub(crate) fn main(argv0: &str, args: &[String]) -> u8 {
    let answer = {
        // The first -version or -libdir that is no option's value.
        let mut i = 0;
        loop {
            match args.get(i).map(String::as_str) {
                None => break None,
                Some("-version" | "-libdir") => break Some(i),
                Some(a) if a.starts_with('-') && matches!(arity(a), Some(Some(_))) => i += 2,
                Some(_) => i += 1,
            }
        }
    };
    if let Some(at) = answer
        && !args.iter().any(|a| a == "-help")
    {
        // herd7 answers -version and -libdir as soon as it reads them, whatever follows.
        let before = match read_args(argv0, &args[..at]) {
            Ok(before) => before,
            Err(r) => return refuse(argv0, &r),
        };
        if args[at] == "-version" {
            println!("{VERSION}");
            return 0;
        }
        // herd7 prints its installation directory, the one -set-libdir names if given
        // first. hazmat has none, its library being built in: it answers only with the
        // -set-libdir directory, where it looks for model files too.
        return match &before.places.libdir {
            Some(dir) => {
                println!("{}", dir.display());
                0
            }
            None => refuse(
                argv0,
                &Refusal::plain(format!(
                    "-libdir is not supported by hazmat as herd7: {NO_LIBDIR}"
                )),
            ),
        };
    }
    if args.iter().any(|a| a == "-help" || a == "--help") {
        print!("{}", usage(argv0));
        return 0;
    }
    let mut args = match read_args(argv0, args) {
        Ok(a) => a,
        Err(r) => return refuse(argv0, &r),
    };
    if args.files.is_empty() {
        // With no test on the command line, herd7 reads their names from stdin, one a line.
        args.files = std::io::stdin()
            .lines()
            .map_while(Result::ok)
            .map(|l| l.trim().to_string())
            .filter(|l| !l.is_empty())
            .collect();
    }
    let (choice, missing_macros) = match choose_model(&args.settings, &args.places) {
        Ok(c) => c,
        Err(r) => return refuse(argv0, &r),
    };
    let by_name = match read_by_name(&args.settings) {
        Ok(b) => b,
        Err(r) => return refuse(argv0, &r),
    };
    run_tests(&args, &choice, missing_macros.as_deref(), &by_name)
}

/// What herd7's files of test names say of each test: the name it goes by, whether it
/// runs, and the condition it is decided under.
struct ByName {
    /// `-rename`.
    rename: NameMap<String>,
    /// `-names` and `-excl`.
    selection: Selection,
    /// `-conds` and `-kinds`.
    conditions: Conditions,
}

impl ByName {
    /// The name the test `name` goes by.
    fn name<'a>(&'a self, name: &'a str) -> &'a str {
        self.rename.get(name).map_or(name, |e| &e.value)
    }
}

/// Reads the files of test names as herd7 reads them once the model is read: the
/// `-rename` files, the `-names` and `-excl` files (through the `-rename` map), the
/// `-kinds` files, then the `-conds` files, those of each option from the last to the
/// first; one that cannot be opened or read stops the run.
fn read_by_name(settings: &Settings) -> Result<ByName, Refusal> {
    let read = |f: &str| -> Result<String, Refusal> {
        std::fs::read(f)
            .map(|text| String::from_utf8_lossy(&text).into_owned())
            .map_err(|e| Refusal::plain(format!("open_in failed: {f}: {}", io_message(&e))))
    };
    let texts = |files: &[String]| -> Result<Vec<(String, String)>, Refusal> {
        let mut texts = Vec::new();
        for f in files.iter().rev() {
            texts.push((f.clone(), read(f)?));
        }
        texts.reverse();
        Ok(texts)
    };
    let bare = |e: maps::MapError| Refusal {
        message: e.to_string(),
        form: Form::Bare,
    };
    let text = |s: &str| Some(s.to_string());
    let rename = NameMap::read(&texts(&settings.rename)?, text).map_err(bare)?;
    // herd7 looks the names of the files of names up in its `-rename` map too, and reads
    // the files they map to, in order.
    let names = |files: &[String]| -> Result<Vec<String>, Refusal> {
        files
            .iter()
            .map(|f| read(rename.get(f).map_or(f, |e| &e.value)))
            .collect()
    };
    let included = match settings.names.as_slice() {
        [] => None,
        files => Some(names(files)?),
    };
    let selection = Selection::new(included.as_deref(), &names(&settings.excl)?);
    let kinds = NameMap::read(&texts(&settings.kinds)?, maps::kind).map_err(bare)?;
    let conds = NameMap::read(&texts(&settings.conds)?, text).map_err(bare)?;
    Ok(ByName {
        rename,
        selection,
        conditions: Conditions { conds, kinds },
    })
}

/// Prints a refusal of the command line as herd7 does; returns herd7's exit code, 2.
fn refuse(argv0: &str, r: &Refusal) -> u8 {
    let mut err = std::io::stderr().lock();
    match r.form {
        Form::Bare => {
            let _ = writeln!(err, "{}", r.message);
        }
        Form::Plain => {
            let _ = writeln!(err, "{argv0}: {}", r.message);
        }
        Form::Usage => {
            let _ = writeln!(err, "{argv0}: {}", r.message);
            let _ = write!(err, "{}", usage(argv0));
        }
    }
    2
}

/// The usage: the options hazmat takes as herd7.
fn usage(argv0: &str) -> String {
    format!(
        "Usage {argv0} [options] [test]*\n\
         hazmat, as herd7 (the Linux-kernel memory model natively, other models interpreted):\n  \
         -version  show version number and exit\n  \
         -libdir  show the directory -set-libdir names and exit\n  \
         -set-libdir <path> set installation directory to <path>\n  \
         -v  show hazmat's own warnings about the tests\n  \
         -q  do not show diagnostics (the default)\n  \
         -I <dir> add <dir> to search path\n  \
         -exit <bool> exit in case of failure, default false\n  \
         -conf <name> read configuration file <name>\n  \
         -model <name>  select model (a cat file), default for C: c11_partialSC.cat\n  \
         -cat <name>  alias for -model\n  \
         -bell <name> read bell file <name>\n  \
         -macros <name> read macro (.def) file <name>\n  \
         -variant <tags> select variants (lkmmv2, cos-opt...)\n  \
         -timeout <float|none> give up on a test after this many seconds\n  \
         -speedcheck <false|true|fast> decide the condition only\n  \
         -hexa <bool> print numbers in hexadecimal, default false\n  \
         -through <none> what to let through besides valid executions (none only)\n  \
         -show <prop|all|neg|cond|none|wit> executions drawn under -o, default none\n  \
         -outcomereads <bool> show the registers read from memory in the final states, \
         default false\n  \
         -checkfilter <bool> discard the executions the filter fails, default true\n  \
         -switch  accepted, without effect on C tests (herd7 7.58's switch of its CAV12 \
         models)\n  \
         -nshow <n> draw at most <n> executions\n  \
         -o <dir> write the drawings (DOT) into <dir>\n  \
         -names <file>, -excl <file> run only the tests named, none of those named\n  \
         -rename <file>, -kinds <file>, -conds <file> give the tests named another name, \
         kind or condition\n  \
         -graph <free|cluster|columns>, -showevents <all|mem|noregs|memf>, and herd7's other \
         figure options: accepted, without effect on hazmat's drawings\n  \
         -help  Display this list of options\n"
    )
}

/// What kind of value an option takes, for herd7's messages.
#[derive(Clone, Copy)]
enum Kind {
    Str,
    Bool,
    Float,
    FloatOrNone,
    Int,
    IntOrNone,
}

/// How many values an option takes, and of what kind; `None` for an option herd7 does
/// not have.
fn arity(option: &str) -> Option<Option<Kind>> {
    let name = option.strip_prefix('-')?;
    Some(match name {
        "version" | "q" | "v" | "gv" | "evince" | "preview" | "libdir" | "web" | "c11"
        | "switch" => None,
        "I" | "set-libdir" | "o" | "throughflag" | "skipcheck" | "cycles" => Some(Kind::Str),
        "maxphantom" => Some(Kind::IntOrNone),
        // An integer on the command line (OCaml's `Arg.Int`), `none` too in a file.
        "unroll" => Some(Kind::Int),
        "exit" | "dumpes" | "morefences" | "checkfilter" | "candidates" | "statelessrc11"
        | "showone" | "tikz" | "dumpallfaults" => Some(Kind::Bool),
        // The configuration keys that are options too, with the same values.
        "verbose" | "include" => return None,
        _ => Some(match keys::find(name)?.value {
            Value::Bool => Kind::Bool,
            Value::Int => Kind::Int,
            Value::IntOrNone => Kind::IntOrNone,
            Value::Float => Kind::Float,
            Value::FloatOrNone => Kind::FloatOrNone,
            _ => Kind::Str,
        }),
    })
}

/// Reads the command line, configuration files included, in order.
fn read_args(argv0: &str, argv: &[String]) -> Result<Args, Refusal> {
    let _ = argv0;
    let mut args = Args {
        settings: Settings::default(),
        places: Places {
            herdlib: std::env::var_os("HERDLIB").map(PathBuf::from),
            libdir: None,
        },
        exit: false,
        check_filter: true,
        out_dir: None,
        files: Vec::new(),
    };
    let mut i = 0;
    while i < argv.len() {
        let a = &argv[i];
        i += 1;
        if !a.starts_with('-') || a == "-" {
            args.files.push(a.clone());
            continue;
        }
        let Some(kind) = arity(a) else {
            return Err(Refusal::usage(format!("unknown option '{a}'.")));
        };
        let value = match kind {
            None => "",
            Some(kind) => {
                let Some(v) = argv.get(i) else {
                    return Err(Refusal::usage(format!("option '{a}' needs an argument.")));
                };
                i += 1;
                check_kind(a, v, kind)?;
                v.as_str()
            }
        };
        apply(&mut args, &a[1..], value)?;
    }
    Ok(args)
}

/// Checks that `value` is of `kind`, in herd7's words.
fn check_kind(option: &str, value: &str, kind: Kind) -> Result<(), Refusal> {
    let (ok, what) = match kind {
        Kind::Str => (true, ""),
        Kind::Bool => (keys::is_bool(value), "a boolean"),
        Kind::Float => (keys::is_float(value), "a float"),
        Kind::FloatOrNone => (value == "none" || keys::is_float(value), "a float"),
        Kind::Int => (keys::is_int(value), "an integer"),
        Kind::IntOrNone => (value == "none" || keys::is_int(value), "an integer"),
    };
    if ok {
        Ok(())
    } else {
        Err(Refusal::usage(format!(
            "wrong argument '{value}'; option '{option}' expects {what}."
        )))
    }
}

/// Applies one option to `args`, in order: a `-conf` file is read where it stands.
fn apply(args: &mut Args, name: &str, v: &str) -> Result<(), Refusal> {
    let unsupported = |why: &str| {
        let shown = if v.is_empty() {
            format!("-{name}")
        } else {
            format!("-{name} {v}")
        };
        Err(Refusal::plain(format!(
            "{shown} is not supported by hazmat as herd7: {why}"
        )))
    };
    match name {
        "q" => args.settings.verbose = -1,
        "v" => args.settings.verbose = args.settings.verbose.max(0) + 1,
        "I" => args.settings.includes.push(v.to_string()),
        "set-libdir" => args.places.libdir = Some(PathBuf::from(v)),
        "conf" => read_conf(args, v)?,
        "web" => read_conf(args, "web.cfg")?,
        "c11" => read_conf(args, "cpp11.cfg")?,
        "exit" => args.exit = v == "true",
        "o" => args.out_dir = Some(PathBuf::from(v)),
        "showone" => {
            if v == "true" {
                args.settings.nshow = Some(1);
            }
        }
        // herd7 7.58's `-switch` sets a switch only its native CAV12 models read, which
        // hazmat does not run: on a C test it changes nothing.
        "morefences" | "tikz" | "maxphantom" | "switch" => {}
        "checkfilter" => args.check_filter = v == "true",
        "dumpes" | "candidates" | "statelessrc11" if v == "false" => {}
        "throughflag" if v == "none" => {}
        "dumpes" | "candidates" => {
            return unsupported("hazmat prints herd7's output and no more");
        }
        "statelessrc11" => return unsupported("hazmat has no stateless RC11 checker"),
        "throughflag" => {
            return unsupported("hazmat lets through only the executions the model allows");
        }
        // `-skipcheck NAME` adds one name, as `-skipchecks` adds a list.
        "skipcheck" => {
            if let Err(config::Refusal::Unsupported(why)) = args.settings.apply("skipchecks", v) {
                return unsupported(why);
            }
        }
        "cycles" => return unsupported("hazmat draws no failing check as a cycle"),
        "gv" | "evince" | "preview" => {
            return unsupported(
                "hazmat starts no viewer: write the drawings with -o DIR and open them yourself",
            );
        }
        "libdir" => return unsupported(NO_LIBDIR),
        _ => {
            if let Err(r) = args.settings.apply(name, v) {
                return Err(match r {
                    config::Refusal::Unknown => {
                        Refusal::usage(format!("unknown option '-{name}'."))
                    }
                    config::Refusal::Value(m) => Refusal::usage(option_value_error(name, v, &m)),
                    config::Refusal::Variant(m) => Refusal::usage(format!(
                        "{}.",
                        m.replacen(" for variant ", " for -variant ", 1)
                    )),
                    config::Refusal::Unsupported(why) => return unsupported(why),
                });
            }
        }
    }
    Ok(())
}

/// herd7's command line's words for a value it refuses, from its configuration reader's.
fn option_value_error(name: &str, value: &str, message: &str) -> String {
    match message.strip_prefix("bad tags for ") {
        Some(rest) => {
            let list = rest.split_once(", ").map_or(rest, |(_, l)| l);
            if matches!(name, "machsize" | "endian" | "view") {
                format!("{value} is a bad tag for -{name}, {list}.")
            } else {
                format!("bad tag for -{name}, {list}.")
            }
        }
        None => format!("bad argument for option -{name}: '{value}'."),
    }
}

/// Reads a configuration file and applies its lines, where `-conf` stands: the kernel's
/// `linux-kernel.cfg` is known by name when it is found nowhere.
fn read_conf(args: &mut Args, name: &str) -> Result<(), Refusal> {
    match args.settings.read_config(name, &args.places, &Disk) {
        Ok(()) => Ok(()),
        Err(e)
            if e.error.kind == ErrorKind::NotFound
                && e.error.at.is_none()
                && Path::new(name).file_name().and_then(|n| n.to_str()) == Some(KERNEL_CFG) =>
        {
            // The kernel's configuration, known by name: its model, bell, macros and
            // variant (its other lines only change herd7's drawings).
            for (key, value) in [
                ("model", "linux-kernel.cat"),
                ("bell", "linux-kernel.bell"),
                ("macros", "linux-kernel.def"),
                ("variant", KERNEL_VARIANT),
            ] {
                let _ = args.settings.apply(key, value);
            }
            Ok(())
        }
        Err(e) => Err(Refusal::config(*e)),
    }
}

/// The model the command line names, and what runs it
/// ([`hazmat_checker::models::choose`]): herd7's default for C when it names none; a
/// kernel file that cannot be found is taken for the kernel's own, by its name.
/// herd7 reads the macro file as it reads each test, after parsing it, so a macro file it
/// cannot find is a warning on each test, not a refusal of the command line: its name is
/// returned beside the choice.
fn choose_model(settings: &Settings, places: &Places) -> Result<(Choice, Option<String>), Refusal> {
    let library = settings.library(places);
    let mut request = Request::from_settings(settings);
    request.kernel_by_name = true;
    request.without_macros = Dialect::Bare;
    // herd7 looks for an included file when a test's run reaches the `include`, and
    // reports one it cannot find or parse on that test.
    request.include_errors = IncludeErrors::PerTest;
    let mut missing = None;
    if let Some(m) = &request.macros
        && library.find(&Disk, m).is_err()
        && known::kernel_file_named(m).is_none()
    {
        missing = request.macros.take();
    }
    let choice = choose(&library, &Disk, &request).map_err(|e| match e {
        ChooseError::NotFound { name, .. } => Refusal::plain(format!("Cannot find file {name}")),
        ChooseError::Read { name, error } => Refusal::plain(format!("{name}: {error}")),
        ChooseError::Def { name, error } => Refusal::plain(format!(
            "File \"{name}\", line {}, character {}: {}",
            error.line, error.column, error.message
        )),
        // herd7 stops on an include of the bell file that fails where it runs the file, with
        // its words and the exception that stops it.
        ChooseError::Load(e) if e.error.kind == ErrorKind::StopsHerd7 => Refusal {
            message: format!("{}\nFatal error: exception Misc.Exit", e.error.message),
            form: Form::Bare,
        },
        ChooseError::Load(e) => Refusal::plain(e.render().trim_end().to_string()),
    })?;
    for warning in choice.model.warnings() {
        eprintln!("{warning}");
    }
    Ok((choice, missing))
}

/// Decides each test file in order, printing herd7's output; returns the exit code: 1
/// when `-exit true` stops the run at a test that fails, 0 otherwise.
fn run_tests(args: &Args, choice: &Choice, missing_macros: Option<&str>, by_name: &ByName) -> u8 {
    // Test name to (hash, file), to skip a test seen before, as herd7 does.
    let mut seen: HashMap<String, (String, String)> = HashMap::new();
    // The model under the variants tests add with their own `Variant=` line, by variants.
    let mut others: Others = HashMap::new();
    for file in &args.files {
        let one = run_one(
            args,
            choice,
            missing_macros,
            (file, by_name),
            &mut seen,
            &mut others,
        );
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(one.out.as_bytes());
        let _ = stdout.flush();
        drop(stdout);
        let mut stderr = std::io::stderr().lock();
        let _ = stderr.write_all(one.err.as_bytes());
        let _ = stderr.flush();
        if one.failed && args.exit {
            return 1;
        }
    }
    0
}

/// What one test printed, and whether it failed (herd7's `-exit true` stops there).
struct One {
    out: String,
    err: String,
    failed: bool,
}

impl One {
    /// A test that failed with this warning.
    fn failed(err: String) -> One {
        One {
            out: String::new(),
            err,
            failed: true,
        }
    }
}

/// A warning about a test, as herd7 words it.
fn user_error(file: &str, message: &str) -> String {
    format!("Warning: File \"{file}\": {message} (User error)\n")
}

/// The models chosen under the variants of tests' own `Variant=` lines, by variants, or
/// why none could be.
type Others = HashMap<Vec<String>, Result<Choice, String>>;

/// One test: its stdout and stderr text, and whether it failed.
fn run_one(
    args: &Args,
    choice: &Choice,
    missing_macros: Option<&str>,
    (file, by_name): (&str, &ByName),
    seen: &mut HashMap<String, (String, String)>,
    others: &mut Others,
) -> One {
    let start = Instant::now();
    let source = match std::fs::read(file) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            return One::failed(format!(
                "Warning: File \"{file}\": open_in failed: {file}: {}\n",
                io_message(&e)
            ));
        }
    };
    let test = match hazmat_litmus::parse(&source) {
        Ok(t) => t,
        Err(_)
            if hazmat_litmus::herd7_header_name(&source)
                .is_some_and(|n| !by_name.selection.runs(by_name.name(&n))) =>
        {
            // herd7 reads the name from the first line before the code, and says nothing
            // of a test `-names` or `-excl` leaves out.
            return One {
                out: String::new(),
                err: String::new(),
                failed: false,
            };
        }
        Err(e) => {
            let len = source
                .get(e.span.start..e.span.end)
                .unwrap_or("")
                .chars()
                .take_while(|&c| c != '\n')
                .count()
                .max(1);
            let from = e.col.saturating_sub(1);
            return One::failed(format!(
                "Warning: File \"{file}\", line {}, characters {from}-{}: {} (User error)\n",
                e.line,
                from + len,
                e.message
            ));
        }
    };
    // The name as herd7 keeps it, `-rename` applied, as the report prints it.
    let name = by_name.name(test.herd7_name()).to_string();
    if !by_name.selection.runs(&name) {
        // Left out by `-names` or `-excl`: herd7 says nothing of it.
        return One {
            out: String::new(),
            err: String::new(),
            failed: false,
        };
    }
    if let Some(name) = missing_macros {
        // herd7 looks for the macro file once the test is parsed, and words this one
        // without its "(User error)".
        return One::failed(format!(
            "Warning: File \"{file}\": Cannot find file {name}\n"
        ));
    }
    // herd7 decides the test under the condition of its `-conds` file, with the quantifier
    // of its `-kinds` file, but digests it as it is written.
    let decided = match by_name.conditions.condition(&name, &test) {
        Ok(None) => None,
        Ok(Some(c)) => Some(maps::with_condition(&source, &test, &c)),
        Err(e) => {
            // herd7 parses the condition's text alone, in a file it names `""`.
            return One::failed(format!(
                "Warning: File \"\", line {}, characters {}-{}: {} (in cond) (User error)\n",
                e.text_line, e.text_columns.0, e.text_columns.1, e.message
            ));
        }
    };
    let hash = hazmat_litmus::herd_hash(&test, &source);
    if let Some((h, first)) = seen.get(&name) {
        if *h == hash {
            return One {
                out: String::new(),
                err: String::new(),
                failed: false,
            };
        }
        return One::failed(user_error(
            file,
            &format!("Different hashes for test {name} (previous file {first})"),
        ));
    }
    // herd7 records the test as seen once it has run to its end: a test that fails or runs
    // out of time is run again, and reported again, when it comes back.
    let seen_as = (name.clone(), (hash.clone(), file.to_string()));
    let replaced = decided.is_some();
    let source = decided.unwrap_or(source);
    // The test's own variants: the model is chosen again under them, once for each set.
    let own = match args.settings.with_test_variants(&test) {
        Ok(own) => own,
        Err((m, _)) => return One::failed(user_error(file, &m)),
    };
    let (settings, choice) = match &own {
        None => (&args.settings, choice),
        Some(own) => {
            let other = others.entry(own.variants.clone()).or_insert_with(|| {
                choose_model(own, &args.places)
                    .map(|(c, _)| c)
                    .map_err(|r| r.message)
            });
            match other {
                Ok(c) => (own, &*c),
                Err(m) => return One::failed(user_error(file, m)),
            }
        }
    };
    // One deadline for the whole test: the search, its output and its drawing, as herd7's
    // timeout bounds its whole run of the test.
    let deadline = settings
        .timeout
        .map(|s| start + Duration::from_secs_f64(s.min(1e9)));
    let options = Options {
        limits: Limits {
            max_executions: None,
            deadline,
            split: Split::Large,
            optace: settings.optace,
            ..Default::default()
        },
        speedcheck: settings.speedcheck == Speedcheck::Fast,
        deciding_only: settings.speedcheck == Speedcheck::True,
        s128: settings.variants.iter().any(|v| v == "S128"),
        unroll: settings.unroll,
        // herd7 checks the threads of the test's own condition, not those of a `-conds`
        // file's, which it reads as 0 where the test has none.
        condition: if replaced {
            ConditionSource::Replaced {
                own_missing: missing_thread(&test),
            }
        } else {
            ConditionSource::Own
        },
        outcome_reads: settings.outcome_reads,
        unchecked_filter: !args.check_filter,
        ..Default::default()
    };
    let model = choice.model.as_ref();
    let checked = match choice.macros.as_deref() {
        Some(m) => hazmat_checker::check_source_with_macros(&source, m, model, &options),
        None => check_source(&source, model, &options),
    };
    let mut checked = match checked {
        Ok(c) => c,
        Err(e) => return One::failed(check_error(file, &source, &e, choice.dialect)),
    };
    checked.hash = hash;
    checked.program.name = name;
    if checked.outcome.unknown.is_some() {
        // herd7 prints nothing for a test that runs out of time.
        return One {
            out: String::new(),
            err: String::new(),
            failed: false,
        };
    }
    if settings.speedcheck == Speedcheck::Fast {
        speedcheck_as_herd7(&mut checked);
    }
    let radix = if settings.hexa {
        Radix::Hexadecimal
    } else {
        Radix::Decimal
    };
    let written = checked.herd_text_by(radix, deadline);
    if written.left_out > 0 {
        // Out of time before every state was written: as out of time in the search.
        return One {
            out: String::new(),
            err: String::new(),
            failed: false,
        };
    }
    let out = written.text;
    let mut err = String::new();
    // Where the answer may not be herd7's is said whatever `-v`; the rest waits for it.
    let shown = if settings.verbose > 0 {
        &checked.warnings[..]
    } else {
        &[]
    };
    for w in shown.iter().chain(&checked.doubts) {
        err.push_str(w.render(file, &source).trim_end());
        err.push('\n');
    }
    if checked.outcome.stats.removed.cutoff > 0 {
        err.push_str(&format!(
            "Warning: File \"{file}\": unrolling limit exceeded at While, legal outcomes may \
             be missing.\n"
        ));
    }
    seen.insert(seen_as.0, seen_as.1);
    let show = ShowWhat::of(settings.show.as_deref());
    if show != ShowWhat::None
        && let Some(dir) = &args.out_dir
    {
        match draw(args, show, model, &checked, dir, deadline) {
            Ok(Drawn::Whole) => {}
            // Out of time before every execution to draw was found: as out of time in the
            // search, with no drawing written.
            Ok(Drawn::OutOfTime) => {
                return One {
                    out: String::new(),
                    err: String::new(),
                    failed: false,
                };
            }
            Err(e) => err.push_str(&user_error(file, &e)),
        }
    }
    One {
        out,
        err,
        failed: false,
    }
}

/// A speed check's outcome as herd7 prints it under `-speedcheck fast`: herd7 records
/// only the executions that decide the condition (those satisfying the proposition for
/// `exists` and `~exists`, failing it for `forall`), and reads its verdict from those
/// counts as ever, while hazmat's speed check also counts the executions it met before,
/// which could not be cut early. (`-speedcheck true` needs no such reading: hazmat counts
/// the deciding executions only, all of them, as herd7 does: `Options::deciding_only`.)
fn speedcheck_as_herd7(checked: &mut hazmat_checker::Checked) {
    use hazmat_checker::front::program::Quantifier;
    let p = &checked.program;
    let o = &mut checked.outcome;
    o.speedcheck = None;
    let forall = p.condition.quantifier == Quantifier::Forall;
    if forall {
        o.positive = 0;
    } else {
        o.negative = 0;
    }
    let mut cells = Vec::new();
    p.condition.prop.cells(&mut cells);
    if cells.iter().all(|c| p.shown.contains(c)) {
        o.states.retain(|state| {
            // Every cell the proposition reads is shown, so each has its place.
            let get = |c| state[p.shown.iter().position(|s| *s == c).unwrap_or(0)];
            p.condition.prop.eval(&get) != forall
        });
    }
}

/// A test hazmat cannot run, as herd7 reports one; `dialect` says whether a macro file
/// gives the calls their meaning.
fn check_error(file: &str, source: &str, e: &CheckError, dialect: Dialect) -> String {
    if let CheckError::Run { error, .. } = e
        && let Some(words) = &error.herd7
    {
        // An error herd7 stops on, in its words.
        return match words {
            Herd7Stop::User(words) => user_error(file, words),
            Herd7Stop::Fatal(words) => format!("Warning: File \"{file}\": {words}\n"),
        };
    }
    if let CheckError::Lower(l) = e
        && let hazmat_checker::front::lower::LowerErrorKind::UnknownPrimitive {
            name,
            gives_value,
            ..
        } = &l.kind
    {
        if dialect == Dialect::Bare {
            // Without a macro file, herd7's C semantics meets the call itself, and words it
            // without its "(User error)".
            let what = if *gives_value { "Macro" } else { "Procedure" };
            return format!("Warning: File \"{file}\": {what} call {name} in CSem\n");
        }
        return user_error(file, &format!("Unknown macro {name}"));
    }
    if let CheckError::Lower(l) = e
        && let hazmat_checker::front::lower::LowerErrorKind::NoThread(n) = l.kind
    {
        // herd7 words this one without its "(User error)" too.
        return format!("Warning: File \"{file}\": Bad process P{n}\n");
    }
    if let CheckError::Lower(l) = e
        && l.kind == hazmat_checker::front::lower::LowerErrorKind::ThreadNumbering
    {
        // herd7 words this one without its "(User error)".
        return format!("Warning: File \"{file}\": Processes must be P0, P1, ...\n");
    }
    let rendered = e.render(file, source);
    if let Some(words) = hazmat_checker::models::cat::failed_include(&rendered) {
        // herd7 words an include it cannot load by the place of the `include` alone, with
        // neither the test nor its "Warning".
        return format!("{words}\n");
    }
    if let Some(name) = hazmat_checker::models::cat::failed_assertion(&rendered) {
        return user_error(file, &format!("{name} assertion failed, check input test."));
    }
    if let Some((model, line, col, width, name)) =
        hazmat_checker::models::cat::unbound_var(&rendered)
    {
        // herd7 locates the name (or the `call`) in the model, and words this one without
        // its test, its "Warning" and its "(User error)".
        let from = col.saturating_sub(1);
        return format!(
            "File \"{model}\", line {line}, characters {from}-{}: unbound var: {name}\n",
            from + width
        );
    }
    let first = rendered.lines().next().unwrap_or("");
    // `file:line:col: error: message` becomes herd7's located warning.
    let message = first
        .split_once(": error: ")
        .map_or(first, |(_, m)| m)
        .to_string();
    user_error(file, &message)
}

/// Whether [`draw`] wrote its file.
#[derive(Debug, PartialEq, Eq)]
enum Drawn {
    Whole,
    /// The deadline passed before every execution to draw was found: nothing is written.
    OutOfTime,
}

/// Writes the drawings `-show` asks for into `dir`, one DOT file per test, unless
/// `deadline` passes first.
fn draw(
    args: &Args,
    show: ShowWhat,
    model: &dyn MemoryModel,
    checked: &hazmat_checker::Checked,
    dir: &Path,
    deadline: Option<Instant>,
) -> Result<Drawn, String> {
    use hazmat_checker::report::trace::{self, Format, Show};
    let show = match show {
        ShowWhat::None => return Ok(Drawn::Whole),
        ShowWhat::Witness => Show::Witness,
        ShowWhat::Counter => Show::Counter,
        ShowWhat::All => Show::All,
    };
    let p = &checked.program;
    let limits = Limits {
        max_executions: None,
        deadline,
        optace: args.settings.optace,
        ..Default::default()
    };
    let mut nshow = args.settings.nshow.unwrap_or(usize::MAX);
    // herd7's speed check meets only the executions that can decide the condition (those
    // satisfying the proposition, or failing it for `forall`), and `fast` only the first,
    // so it draws no other; with nothing to draw, its file is empty.
    let show = match args.settings.speedcheck {
        Speedcheck::False => Some(show),
        speed => {
            if speed == Speedcheck::Fast {
                nshow = nshow.min(1);
            }
            let forall =
                p.condition.quantifier == hazmat_checker::front::program::Quantifier::Forall;
            let deciding = if forall { Show::Counter } else { Show::Witness };
            (show == Show::All || show == deciding).then_some(deciding)
        }
    };
    let (shown, total) = match show {
        Some(show) => {
            let selected =
                trace::executions(p, model, show, nshow, &limits).map_err(|e| e.message)?;
            if selected.unknown.is_some() {
                return Ok(Drawn::OutOfTime);
            }
            (selected.shown, selected.total)
        }
        None => (Vec::new(), 0),
    };
    let show = show.unwrap_or(Show::None);
    let mut text = String::new();
    for (i, x) in shown.iter().enumerate() {
        let title = format!(
            "{}: {} {} of {total} under {}",
            p.name,
            show.noun(x.satisfies),
            i + 1,
            model.name()
        );
        text.push_str(&Format::Dot.render(&trace::graph(p, x, title, &[])));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(format!("{}.dot", p.name));
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Drawn::Whole)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(argv: &[&str]) -> Result<Args, String> {
        let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
        read_args("herd7", &argv).map_err(|r| r.message)
    }

    #[test]
    fn options_are_read_as_herd7_reads_them() {
        let a = read(&[
            "-speedcheck",
            "fast",
            "-timeout",
            "2.5",
            "a.litmus",
            "-q",
            "b.litmus",
            "-hexa",
            "true",
            "-exit",
            "true",
        ])
        .expect("valid");
        assert_eq!(a.settings.speedcheck, config::Speedcheck::Fast);
        assert!(a.settings.hexa);
        assert!(a.exit);
        assert_eq!(a.settings.timeout, Some(2.5));
        assert_eq!(a.files, ["a.litmus", "b.litmus"]);
        assert_eq!(
            read(&["-bogus"]).err().as_deref(),
            Some("unknown option '-bogus'.")
        );
        assert_eq!(
            read(&["-speedcheck"]).err().as_deref(),
            Some("option '-speedcheck' needs an argument.")
        );
        // herd7 7.58's words, each.
        for (argv, message) in [
            (
                ["-speedcheck", "maybe"],
                "bad tag for -speedcheck, allowed tag are false,true,fast.",
            ),
            (
                ["-model", "foo"],
                "bad tag for -model, allowed tag are cav12,<filename>.cat.",
            ),
            (
                ["-machsize", "foo"],
                "foo is a bad tag for -machsize, allowed tag are auto,byte,short,word,quad,s128.",
            ),
            (
                ["-hexa", "maybe"],
                "wrong argument 'maybe'; option '-hexa' expects a boolean.",
            ),
            (
                ["-timeout", "abc"],
                "wrong argument 'abc'; option '-timeout' expects a float.",
            ),
        ] {
            assert_eq!(read(&argv).err().as_deref(), Some(message));
        }
        assert!(read(&["-fontsize", "none"]).is_ok());
        assert!(read(&["-variant", "foo"]).is_err());
        assert!(read(&["-gv"]).is_err());
        assert!(read(&["-through", "all"]).is_err());
        assert!(read(&["-initwrites", "false"]).is_err());
        assert!(read(&["-initwrites", "true", "-graph", "columns"]).is_ok());
        let a = read(&["-switch", "-checkfilter", "false", "-outcomereads", "true"]);
        assert!(a.is_ok_and(|a| !a.check_filter && a.settings.outcome_reads));
    }

    #[test]
    fn the_kernel_configuration_is_known_by_name() {
        let a = read(&["-I", "/nonexistent-dir", "-conf", "linux-kernel.cfg"]).expect("known");
        assert_eq!(a.settings.model.as_deref(), Some("linux-kernel.cat"));
        assert_eq!(a.settings.variants, [KERNEL_VARIANT]);
        assert!(choose_model(&a.settings, &a.places).is_ok());
        assert_eq!(
            read(&["-conf", "surely-absent.cfg"]).err().as_deref(),
            Some("Cannot find file surely-absent.cfg")
        );
        let v1 = read(&["-conf", "linux-kernel.cfg", "-variant", "lkmmv1"]).expect("read");
        assert!(choose_model(&v1.settings, &v1.places).is_err());
    }

    #[test]
    fn a_configuration_that_reads_itself_is_refused() {
        let dir = std::env::temp_dir().join(format!("hazmat-herd7-conf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temporary directory");
        let cfg = dir.join("loop.cfg");
        std::fs::write(&cfg, format!("conf {}\n", cfg.display())).expect("cfg");
        let r = read(&["-conf", &cfg.display().to_string()]);
        let _ = std::fs::remove_dir_all(&dir);
        assert!(r.err().is_some_and(|m| m.contains("more than 16 deep")));
    }
}
