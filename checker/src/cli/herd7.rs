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
//!   an error otherwise.
//! - After a test whose runs went round a loop more often than the unrolling allows, the
//!   warning `unrolling limit exceeded at While` follows its output on stderr.
//!
//! # Models
//!
//! Model files (`-conf`, `-model`/`-cat`, `-bell`, `-macros`, and the files they include)
//! are looked up as herd7 looks them up ([`Library`]): the current directory, the `-I`
//! directories, `$HERDLIB`, then hazmat's own knowledge.
//! hazmat knows the current Linux-kernel memory model natively: a file found is
//! recognised by a digest of its text without comments and with blanks collapsed (the
//! project holds no copy of the kernel's files), and a file not found at all is taken for
//! the kernel's when it has the kernel's name, so `-conf linux-kernel.cfg` works without
//! the files beside it.
//! Any other model runs in the cat interpreter, from its files; [`choose_model`] asks the
//! library's one choice ([`hazmat_checker::models::choose`]), as `hazmat check` does.

use hazmat_checker::engine::enumerate::{Limits, Split};
use hazmat_checker::models::cat::config::{Config, parse_config};
use hazmat_checker::models::cat::files::{Disk, Found, Library};
use hazmat_checker::models::cat::known::KERNEL_VARIANT;
use hazmat_checker::models::choose::{Choice, ChooseError, Request, choose};
use hazmat_checker::models::model::MemoryModel;
use hazmat_checker::{CheckError, Options, check_source};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The version line `-version` prints: the herd7 release whose output hazmat reproduces.
const VERSION: &str = concat!("7.58, Rev: hazmat ", env!("CARGO_PKG_VERSION"));

/// How deep configuration files may read one another (`conf` lines), so that a file that
/// reads itself is an error rather than a stack overflow.
const MAX_CONF_DEPTH: usize = 16;

/// The configuration file of the kernel's model, known by name.
const KERNEL_CFG: &str = "linux-kernel.cfg";

/// The variants herd7 knows; hazmat runs the LKMM with `lkmmv2` alone.
const HERD_VARIANTS: &[&str] = &[
    "success",
    "instr",
    "specialx0",
    "normw",
    "acqrelasfence",
    "backcompat",
    "fullscdepend",
    "splittedrmw",
    "switchdepscwrite",
    "switchdepscresult",
    "lrscdiffok",
    "mixed",
    "dontcheckmixed",
    "weakpredicated",
    "lkmmv1",
    "lkmmv2",
    "memtag",
    "vmsa",
    "kvm",
    "synchronous",
    "sync",
    "asynchronous",
    "async",
    "asymmetric",
    "asym",
    "handled",
    "fatal",
    "faultToNext",
    "CutOff",
    "deps",
    "morello",
    "instances",
    "noptebranch",
    "pte2",
    "pte-squared",
    "PhantomOnLoad",
    "OptRfRMW",
    "ConstrainedUnpredictable",
    "exp",
    "self",
    "cos-opt",
    "test",
    "asl",
    "strict",
    "warn",
    "S128",
    "telechat",
    "OldSolver",
    "oota",
];

/// Configuration keys and options that only change herd7's figures: accepted, and
/// without effect on hazmat's drawings, which have their own layout.
const FIGURE_KEYS: &[&str] = &[
    "graph",
    "squished",
    "showevents",
    "movelabel",
    "fontsize",
    "xscale",
    "yscale",
    "scale",
    "arrowsize",
    "showinitrf",
    "showfinalrf",
    "showinitwrites",
    "splines",
    "pad",
    "margin",
    "edgeattr",
    "doshow",
    "unshow",
    "showlegend",
    "showkind",
    "shortlegend",
    "showthread",
    "mono",
    "dotmode",
    "dotcom",
    "oneinit",
    "labelinit",
    "showpo",
    "showobserved",
    "brackets",
    "penwidth",
    "fontname",
    "sep",
    "overlap",
    "withbox",
    "labelbox",
    "symetric",
    "noid",
    "showraw",
    "edgemerge",
    "initpos",
    "initrfpos",
    "finalrfpos",
    "threadposy",
    "dsiy",
    "siwidth",
    "ptscale",
    "boxscale",
    "extrachars",
    "fixedsize",
    "texmacros",
    "tikz",
    "relabel",
    "edgefontsizedelta",
    "classes",
    "shift",
];

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

/// The command line, once read.
#[derive(Debug)]
struct Args {
    includes: Vec<PathBuf>,
    libdir: Option<PathBuf>,
    model: Option<String>,
    bell: Option<String>,
    macros: Option<String>,
    variants: Vec<String>,
    speedcheck: bool,
    timeout: Option<f64>,
    show: ShowWhat,
    nshow: Option<usize>,
    out_dir: Option<PathBuf>,
    verbose: bool,
    files: Vec<String>,
    /// How many configuration files are being read, one inside another.
    conf_depth: usize,
}

/// A refusal of the command line: the message (without `ARGV0: `) and whether herd7
/// follows it with its usage.
struct Refusal {
    message: String,
    usage: bool,
}

impl Refusal {
    fn usage(message: impl Into<String>) -> Refusal {
        Refusal {
            message: message.into(),
            usage: true,
        }
    }

    fn plain(message: impl Into<String>) -> Refusal {
        Refusal {
            message: message.into(),
            usage: false,
        }
    }
}

/// Runs herd7's command line; `argv0` is the name it was started under, `args` the rest.
/// Returns the exit code.
pub(crate) fn main(argv0: &str, args: &[String]) -> u8 {
    if args.iter().any(|a| a == "-version") && !args.iter().any(|a| a == "-help") {
        // herd7 answers -version as soon as it reads it, whatever follows.
        let before: Vec<&String> = args.iter().take_while(|a| *a != "-version").collect();
        if let Err(r) = read_args(argv0, &before.into_iter().cloned().collect::<Vec<_>>()) {
            return refuse(argv0, &r);
        }
        println!("{VERSION}");
        return 0;
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
    let choice = match choose_model(&args) {
        Ok(c) => c,
        Err(r) => return refuse(argv0, &r),
    };
    run_tests(&args, choice.model.as_ref(), choice.macros.as_deref());
    0
}

/// Prints a refusal of the command line as herd7 does; returns herd7's exit code, 2.
fn refuse(argv0: &str, r: &Refusal) -> u8 {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{argv0}: {}", r.message);
    if r.usage {
        let _ = write!(err, "{}", usage(argv0));
    }
    2
}

/// The usage: the options hazmat takes as herd7.
fn usage(argv0: &str) -> String {
    format!(
        "Usage {argv0} [options] [test]*\n\
         hazmat, as herd7 (the Linux-kernel memory model natively, other models interpreted):\n  \
         -version  show version number and exit\n  \
         -set-libdir <path> set installation directory to <path>\n  \
         -v  show hazmat's own warnings about the tests\n  \
         -q  do not show diagnostics (the default)\n  \
         -I <dir> add <dir> to search path\n  \
         -conf <name> read configuration file <name>\n  \
         -model <name>  select model (a cat file)\n  \
         -cat <name>  alias for -model\n  \
         -bell <name> read bell file <name>\n  \
         -macros <name> read macro (.def) file <name>\n  \
         -variant <tags> select variants (lkmmv2)\n  \
         -timeout <float|none> give up on a test after this many seconds\n  \
         -speedcheck <false|true|fast> decide the condition only\n  \
         -through <none> what to let through besides valid executions (none only)\n  \
         -show <prop|all|neg|cond|none|wit> executions drawn under -o, default none\n  \
         -nshow <n> draw at most <n> executions\n  \
         -o <dir> write the drawings (DOT) into <dir>\n  \
         -graph <free|cluster|columns>, -showevents <all|mem|noregs|memf>, and herd7's other \
         figure options: accepted, without effect on hazmat's drawings\n  \
         -help  Display this list of options\n"
    )
}

/// How many values an option takes, and of what kind.
enum Arity {
    /// No value.
    Flag,
    /// One value, of this kind (for messages).
    Value(Kind),
}

#[derive(Clone, Copy)]
enum Kind {
    Str,
    Bool,
    Float,
    Int,
}

/// The herd7 options hazmat knows of, honoured or not, with their arity.
fn arity(option: &str) -> Option<Arity> {
    let name = option.strip_prefix('-')?;
    Some(match name {
        "version" | "q" | "v" | "gv" | "evince" | "preview" | "libdir" | "web" | "c11"
        | "switch" | "dumpallfaults" | "showone" => Arity::Flag,
        "I" | "conf" | "bell" | "macros" | "model" | "cat" | "variant" | "speedcheck"
        | "through" | "show" | "o" | "graph" | "showevents" | "set-libdir" | "view" | "suffix"
        | "debug" | "throughflag" | "skipcheck" | "skipchecks" | "cycles" | "machsize"
        | "endian" | "optace" | "showflag" | "badflag" | "restrict" | "names" | "excl"
        | "rename" | "kinds" | "conds" | "dotheader" => Arity::Value(Kind::Str),
        "timeout" | "maxphantom" => Arity::Value(Kind::Float),
        "nshow" | "unroll" => Arity::Value(Kind::Int),
        "exit" | "dumpes" | "hexa" | "morefences" | "strictskip" | "archcheck" | "initwrites"
        | "badexecs" | "checkfilter" | "statelessrc11" | "candidates" | "outcomereads" => {
            Arity::Value(Kind::Bool)
        }
        n if FIGURE_KEYS.contains(&n) => Arity::Value(Kind::Str),
        _ => return None,
    })
}

/// Reads the command line, configuration files included, in order.
fn read_args(argv0: &str, argv: &[String]) -> Result<Args, Refusal> {
    let _ = argv0;
    let mut args = Args {
        includes: Vec::new(),
        libdir: None,
        model: None,
        bell: None,
        macros: None,
        variants: Vec::new(),
        speedcheck: false,
        timeout: None,
        show: ShowWhat::None,
        nshow: None,
        out_dir: None,
        verbose: false,
        files: Vec::new(),
        conf_depth: 0,
    };
    let mut i = 0;
    while i < argv.len() {
        let a = &argv[i];
        i += 1;
        if !a.starts_with('-') || a == "-" {
            args.files.push(a.clone());
            continue;
        }
        let Some(ar) = arity(a) else {
            return Err(Refusal::usage(format!("unknown option '{a}'.")));
        };
        let value = match ar {
            Arity::Flag => None,
            Arity::Value(kind) => {
                let Some(v) = argv.get(i) else {
                    return Err(Refusal::usage(format!("option '{a}' needs an argument.")));
                };
                i += 1;
                check_kind(a, v, kind)?;
                Some(v.as_str())
            }
        };
        apply(&mut args, &a[1..], value, false)?;
    }
    Ok(args)
}

/// Checks that `value` is of `kind`, in herd7's words.
fn check_kind(option: &str, value: &str, kind: Kind) -> Result<(), Refusal> {
    let (ok, what) = match kind {
        Kind::Str => (true, ""),
        Kind::Bool => (matches!(value, "true" | "false"), "a boolean"),
        Kind::Float => (
            value.parse::<f64>().is_ok() || (option == "-timeout" && value == "none"),
            "a float",
        ),
        Kind::Int => (value.parse::<i64>().is_ok(), "an integer"),
    };
    if ok {
        Ok(())
    } else {
        Err(Refusal::usage(format!(
            "wrong argument '{value}'; option '{option}' expects {what}."
        )))
    }
}

/// Applies one option (or configuration line: `from_config`) to `args`.
fn apply(
    args: &mut Args,
    name: &str,
    value: Option<&str>,
    from_config: bool,
) -> Result<(), Refusal> {
    let v = value.unwrap_or("");
    match name {
        "q" => args.verbose = false,
        "v" => args.verbose = true,
        "I" | "include" => args.includes.push(PathBuf::from(v)),
        "set-libdir" => args.libdir = Some(PathBuf::from(v)),
        "conf" if args.conf_depth >= MAX_CONF_DEPTH => {
            return Err(Refusal::plain(format!(
                "configuration files read each other more than {MAX_CONF_DEPTH} deep (at {v})"
            )));
        }
        "conf" => {
            args.conf_depth += 1;
            let read = read_config(args, v);
            args.conf_depth -= 1;
            read?;
        }
        "model" | "cat" => args.model = Some(v.to_string()),
        "bell" => args.bell = Some(v.to_string()),
        "macros" => args.macros = Some(v.to_string()),
        "variant" => {
            for tag in v.split(',').filter(|t| !t.is_empty()) {
                let known = HERD_VARIANTS.contains(&tag)
                    || (tag.len() == 3
                        && tag.starts_with('T')
                        && tag[1..].bytes().all(|b| b.is_ascii_digit()));
                if !known {
                    return Err(Refusal::usage(format!(
                        "tag {tag} for -variant is wrong, allowed tags are {}.",
                        HERD_VARIANTS.join(",")
                    )));
                }
                if !args.variants.iter().any(|t| t == tag) {
                    args.variants.push(tag.to_string());
                }
            }
        }
        "speedcheck" => match v {
            "false" => args.speedcheck = false,
            "true" | "fast" => args.speedcheck = true,
            _ => {
                return Err(Refusal::usage(
                    "bad tag for -speedcheck, allowed tag are false,true,fast.",
                ));
            }
        },
        "timeout" => {
            args.timeout = if v == "none" {
                None
            } else {
                Some(v.parse::<f64>().unwrap_or(0.0).max(0.0))
            }
        }
        "through" => match v {
            "none" => {}
            "all" | "invalid" => {
                return Err(Refusal::plain(format!(
                    "-through {v} is not supported by hazmat: it lets through only the \
                     executions the model allows"
                )));
            }
            _ => {
                return Err(Refusal::usage(
                    "bad tag for -through, allowed tag are all,invalid,none.",
                ));
            }
        },
        "show" => {
            args.show = match v {
                "none" => ShowWhat::None,
                "prop" | "wit" | "cond" => ShowWhat::Witness,
                "neg" => ShowWhat::Counter,
                "all" => ShowWhat::All,
                _ => {
                    return Err(Refusal::usage(
                        "bad tag for -show, allowed tag are prop,all,neg,cond,none,wit.",
                    ));
                }
            }
        }
        "showone" => args.nshow = Some(1),
        "nshow" => args.nshow = v.parse::<usize>().ok(),
        "o" => args.out_dir = Some(PathBuf::from(v)),
        "unroll" if v == "2" => {}
        "exit" => {}
        "checkfilter" | "badexecs" if v == "true" => {}
        "archcheck" | "candidates" | "hexa" | "dumpes" | "morefences" | "initwrites"
        | "outcomereads" | "strictskip" | "statelessrc11"
            if v == "false" => {}
        n if FIGURE_KEYS.contains(&n) => {}
        "gv" | "evince" | "preview" | "view" => {
            return Err(Refusal::plain(format!(
                "-{name} is not supported by hazmat, which starts no viewer: write the \
                 drawings with -o DIR and open them yourself"
            )));
        }
        _ => {
            let shown = match value {
                Some(v) if from_config => format!("{name} {v}"),
                Some(v) => format!("-{name} {v}"),
                None => format!("-{name}"),
            };
            return Err(Refusal::plain(format!(
                "{shown} is not supported by hazmat as herd7"
            )));
        }
    }
    Ok(())
}

/// The library files are looked up in: `-I` directories so far, `$HERDLIB`, the library
/// directory.
fn library(args: &Args) -> Library {
    let mut lib = Library::new();
    for dir in &args.includes {
        lib = lib.include(dir.clone());
    }
    if let Some(d) = &args.libdir {
        lib = lib.include(d.clone());
    }
    lib.herdlib(std::env::var_os("HERDLIB").map(PathBuf::from))
}

/// Reads a configuration file and applies its lines.
fn read_config(args: &mut Args, name: &str) -> Result<(), Refusal> {
    let path = match library(args).find(&Disk, name) {
        Ok(Found::Path(p)) => p,
        Ok(Found::Builtin { .. }) | Err(_) => {
            if Path::new(name).file_name().and_then(|n| n.to_str()) == Some(KERNEL_CFG) {
                // The kernel's configuration, known by name.
                args.model = Some("linux-kernel.cat".into());
                args.bell = Some("linux-kernel.bell".into());
                args.macros = Some("linux-kernel.def".into());
                if !args.variants.iter().any(|v| v == KERNEL_VARIANT) {
                    args.variants.push(KERNEL_VARIANT.into());
                }
                return Ok(());
            }
            return Err(Refusal::plain(format!("Cannot find file {name}")));
        }
    };
    let text = std::fs::read_to_string(&path)
        .map_err(|e| Refusal::plain(format!("{}: {e}", path.display())))?;
    let config: Config = parse_config(&text, 0).map_err(|e| {
        Refusal::plain(
            e.render_in(&path.display().to_string(), &text)
                .trim_end()
                .to_string(),
        )
    })?;
    for s in &config.includes {
        apply(args, "include", Some(&s.value), true)?;
    }
    if let Some(s) = &config.model {
        apply(args, "model", Some(&s.value), true)?;
    }
    if let Some(s) = &config.bell {
        apply(args, "bell", Some(&s.value), true)?;
    }
    if let Some(s) = &config.macros {
        apply(args, "macros", Some(&s.value), true)?;
    }
    for s in &config.variants {
        apply(args, "variant", Some(&s.value), true)?;
    }
    for s in &config.other {
        if arity(&format!("-{}", s.key)).is_none() && s.key != "conf" {
            return Err(Refusal::plain(format!(
                "File \"{}\": Unknown key '{}' in configuration file",
                path.display(),
                s.key
            )));
        }
        apply(args, &s.key, Some(&s.value), true)?;
    }
    Ok(())
}

/// The model the command line names, and what runs it
/// ([`hazmat_checker::models::choose`]): a kernel file that cannot be found is taken for
/// the kernel's own, by its name.
fn choose_model(args: &Args) -> Result<Choice, Refusal> {
    let Some(model) = &args.model else {
        return Err(Refusal::plain(
            "hazmat as herd7 needs a model: herd7's default for C, c11_partialSC.cat, is not \
             supported; give -conf linux-kernel.cfg",
        ));
    };
    let request = Request {
        cat: model.clone(),
        bell: args.bell.clone(),
        macros: args.macros.clone(),
        variants: args.variants.clone(),
        interpret: false,
        kernel_by_name: true,
    };
    choose(&library(args), &Disk, &request).map_err(|e| match e {
        ChooseError::NotFound { name, .. } => Refusal::plain(format!("Cannot find file {name}")),
        ChooseError::Read { name, error } => Refusal::plain(format!("{name}: {error}")),
        ChooseError::Def { name, error } => Refusal::plain(format!(
            "File \"{name}\", line {}, character {}: {}",
            error.line, error.column, error.message
        )),
        ChooseError::Load(e) => Refusal::plain(e.render().trim_end().to_string()),
    })
}

/// Decides each test file in order, printing herd7's output.
fn run_tests(
    args: &Args,
    model: &dyn MemoryModel,
    macros: Option<&hazmat_checker::front::defs::Macros>,
) {
    // Test name to (hash, file), to skip a test seen before, as herd7 does.
    let mut seen: HashMap<String, (String, String)> = HashMap::new();
    for file in &args.files {
        let (out, err) = run_one(args, model, macros, file, &mut seen);
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(out.as_bytes());
        let _ = stdout.flush();
        drop(stdout);
        let mut stderr = std::io::stderr().lock();
        let _ = stderr.write_all(err.as_bytes());
        let _ = stderr.flush();
    }
}

/// A warning about a test, as herd7 words it.
fn user_error(file: &str, message: &str) -> String {
    format!("Warning: File \"{file}\": {message} (User error)\n")
}

/// One test: its stdout and stderr text.
fn run_one(
    args: &Args,
    model: &dyn MemoryModel,
    macros: Option<&hazmat_checker::front::defs::Macros>,
    file: &str,
    seen: &mut HashMap<String, (String, String)>,
) -> (String, String) {
    let start = Instant::now();
    let source = match std::fs::read(file) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            return (
                String::new(),
                format!(
                    "Warning: File \"{file}\": open_in failed: {file}: {}\n",
                    io_message(&e)
                ),
            );
        }
    };
    let test = match hazmat_litmus::parse(&source) {
        Ok(t) => t,
        Err(e) => {
            let len = source
                .get(e.span.start..e.span.end)
                .unwrap_or("")
                .chars()
                .take_while(|&c| c != '\n')
                .count()
                .max(1);
            let from = e.col.saturating_sub(1);
            return (
                String::new(),
                format!(
                    "Warning: File \"{file}\", line {}, characters {from}-{}: {} (User error)\n",
                    e.line,
                    from + len,
                    e.message
                ),
            );
        }
    };
    let hash = hazmat_litmus::herd_hash(&test, &source);
    let name = test.name.name.clone();
    if let Some((h, first)) = seen.get(&name) {
        if *h == hash {
            return (String::new(), String::new());
        }
        return (
            String::new(),
            user_error(
                file,
                &format!("Different hashes for test {name} (previous file {first})"),
            ),
        );
    }
    seen.insert(name, (hash, file.to_string()));
    let options = Options {
        limits: Limits {
            max_executions: None,
            deadline: args
                .timeout
                .map(|s| start + Duration::from_secs_f64(s.min(1e9))),
            split: Split::Large,
            ..Default::default()
        },
        speedcheck: args.speedcheck,
        s128: args.variants.iter().any(|v| v == "S128"),
        ..Default::default()
    };
    let checked = match macros {
        Some(m) => hazmat_checker::check_source_with_macros(&source, m, model, &options),
        None => check_source(&source, model, &options),
    };
    let mut checked = match checked {
        Ok(c) => c,
        Err(e) => return (String::new(), check_error(file, &source, &e)),
    };
    if checked.outcome.unknown.is_some() {
        // herd7 prints nothing for a test that runs out of time.
        return (String::new(), String::new());
    }
    if args.speedcheck {
        speedcheck_as_herd7(&mut checked);
    }
    let out = checked.herd_text();
    let mut err = String::new();
    if args.verbose {
        for w in &checked.warnings {
            err.push_str(w.render(file, &source).trim_end());
            err.push('\n');
        }
    }
    if checked.outcome.stats.removed.cutoff > 0 {
        err.push_str(&format!(
            "Warning: File \"{file}\": unrolling limit exceeded at While, legal outcomes may \
             be missing.\n"
        ));
    }
    if args.show != ShowWhat::None
        && let Some(dir) = &args.out_dir
        && let Err(e) = draw(args, model, &checked, dir)
    {
        err.push_str(&user_error(file, &e));
    }
    (out, err)
}

/// A speed check's outcome as herd7 prints it: herd7 records only the executions that
/// decide the condition (those satisfying the proposition for `exists` and `~exists`,
/// failing it for `forall`), and reads its verdict from those counts as ever, while
/// hazmat's speed check also counts the executions it met before, which could not be cut
/// early.
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

/// An I/O error as OCaml words it (`No such file or directory`), without Rust's
/// `(os error N)`.
fn io_message(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(n) => s[..n].to_string(),
        None => s,
    }
}

/// A test hazmat cannot run, as herd7 reports one.
fn check_error(file: &str, source: &str, e: &CheckError) -> String {
    if let CheckError::Lower(l) = e
        && let hazmat_checker::front::lower::LowerErrorKind::UnknownPrimitive { name, .. } = &l.kind
    {
        return user_error(file, &format!("Unknown macro {name}"));
    }
    if let CheckError::Lower(l) = e
        && l.kind == hazmat_checker::front::lower::LowerErrorKind::ThreadNumbering
    {
        // herd7 words this one without its "(User error)".
        return format!("Warning: File \"{file}\": Processes must be P0, P1, ...\n");
    }
    let rendered = e.render(file, source);
    if let Some(name) = hazmat_checker::models::cat::failed_assertion(&rendered) {
        return user_error(file, &format!("{name} assertion failed, check input test."));
    }
    let first = rendered.lines().next().unwrap_or("");
    // `file:line:col: error: message` becomes herd7's located warning.
    let message = first
        .split_once(": error: ")
        .map_or(first, |(_, m)| m)
        .to_string();
    user_error(file, &message)
}

/// Writes the drawings `-show` asks for into `dir`, one DOT file per test.
fn draw(
    args: &Args,
    model: &dyn MemoryModel,
    checked: &hazmat_checker::Checked,
    dir: &Path,
) -> Result<(), String> {
    use hazmat_checker::report::trace::{self, Format, Show};
    let show = match args.show {
        ShowWhat::None => return Ok(()),
        ShowWhat::Witness => Show::Witness,
        ShowWhat::Counter => Show::Counter,
        ShowWhat::All => Show::All,
    };
    let p = &checked.program;
    let limits = Limits {
        max_executions: None,
        deadline: args
            .timeout
            .map(|s| Instant::now() + Duration::from_secs_f64(s.min(1e9))),
        ..Default::default()
    };
    let (shown, total) =
        trace::executions(p, model, show, args.nshow.unwrap_or(usize::MAX), &limits)
            .map_err(|e| e.message)?;
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
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
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
        ])
        .expect("valid");
        assert!(a.speedcheck);
        assert_eq!(a.timeout, Some(2.5));
        assert_eq!(a.files, ["a.litmus", "b.litmus"]);
        assert_eq!(
            read(&["-bogus"]).err().as_deref(),
            Some("unknown option '-bogus'.")
        );
        assert_eq!(
            read(&["-speedcheck"]).err().as_deref(),
            Some("option '-speedcheck' needs an argument.")
        );
        assert_eq!(
            read(&["-speedcheck", "maybe"]).err().as_deref(),
            Some("bad tag for -speedcheck, allowed tag are false,true,fast.")
        );
        assert_eq!(
            read(&["-timeout", "abc"]).err().as_deref(),
            Some("wrong argument 'abc'; option '-timeout' expects a float.")
        );
        assert!(read(&["-variant", "foo"]).is_err());
        assert!(read(&["-gv"]).is_err());
        assert!(read(&["-through", "all"]).is_err());
    }

    #[test]
    fn the_kernel_configuration_is_known_by_name() {
        let a = read(&["-I", "/nonexistent-dir", "-conf", "linux-kernel.cfg"]).expect("known");
        assert_eq!(a.model.as_deref(), Some("linux-kernel.cat"));
        assert_eq!(a.variants, [KERNEL_VARIANT]);
        assert!(choose_model(&a).is_ok());
        assert_eq!(
            read(&["-conf", "surely-absent.cfg"]).err().as_deref(),
            Some("Cannot find file surely-absent.cfg")
        );
        let sc = read(&["-conf", "linux-kernel.cfg", "-model", "sc.cat"]).expect("read");
        assert!(choose_model(&sc).is_err());
        let v1 = read(&["-conf", "linux-kernel.cfg", "-variant", "lkmmv1"]).expect("read");
        assert!(choose_model(&v1).is_err());
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
