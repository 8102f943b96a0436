//! Differential testing against herd7: generated programs decided by hazmat and by herd7,
//! compared, and disagreements minimised into litmus files.
//!
//! A [`Case`] is a program drawn from the generator's LKMM vocabulary by its seed.
//! [`decide`] writes a batch of cases to files, runs herd7 once on all of them while
//! hazmat decides each in this process, and compares the two [`Answer`]s of each: both
//! reject it, or both decide it with the same verdict, states, witness counts and flags
//! and, that being so, the same text line for line (`Time` aside, `Hash=` included).
//! [`run`] does it for many cases on several workers, counts the results per construct
//! class ([`Stats`]) and minimises a few disagreements ([`finding`]): each becomes a litmus
//! file whose `Result:` line is herd7's verdict, with both outputs in its comment, and a
//! `.expected` file with herd7's output.
//!
//! Included by the oracle test (`tests/oracle.rs`) and the offline tool
//! (`examples/oracle.rs`), which differ only in their sizes and in what they print.
//! herd7 is found through `$HAZMAT_ORACLE`, or at `../shared/oracle/herd7` from the
//! workspace root, with the LKMM's model files in the conformance corpus's `lkmm-model`
//! (`$HAZMAT_CONFORMANCE`, or `../shared/conformance`).

#![allow(
    dead_code,
    reason = "the test and the tool each use part of the module"
)]

use hazmat_checker::engine::enumerate::Limits;
use hazmat_checker::report::read::{self, Field, Summary};
use hazmat_checker::testkit::generate::{self, Class, Config, Sketch};
use hazmat_checker::{Options, check_source};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The workspace root.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The oracle: herd7 under the kernel's LKMM configuration, or under RC11 with herd7's
/// C11 macros.
pub(crate) struct Herd7 {
    exe: PathBuf,
    /// herd7's options that choose the model (`-I DIR -conf linux-kernel.cfg`).
    args: Vec<String>,
    /// The model hazmat decides the same programs under.
    pub(crate) hazmat_model: &'static str,
    /// The model hazmat runs instead, when herd7 runs a cat file of its own library other
    /// than `rc11.cat` ([`Herd7::find_c11_cat`]) or a configuration file of the user's
    /// ([`Herd7::find_conf`]).
    pub(crate) cat: Option<std::sync::Arc<hazmat_checker::models::cat::CatModel>>,
    /// The macros of the configuration's def file, when they are not the kernel's current
    /// ones ([`Herd7::find_conf`]).
    pub(crate) macros: Option<std::sync::Arc<hazmat_checker::front::defs::Macros>>,
    /// herd7's budget per test, in CPU seconds (its `-timeout`); a test it does not decide
    /// within it is undecided.
    pub(crate) timeout: f64,
    /// How the configuration file has herd7 build the candidates (its `optace` key,
    /// [`Herd7::find_conf`]), which hazmat's interpreter then builds alike.
    pub(crate) optace: hazmat_checker::models::optace::OptAce,
}

impl Herd7 {
    /// herd7 and the model files, or why they are absent.
    pub(crate) fn find() -> Result<Herd7, String> {
        let exe = match std::env::var_os("HAZMAT_ORACLE") {
            Some(p) => PathBuf::from(p),
            None => workspace().join("../shared/oracle/herd7"),
        };
        if !exe.is_file() {
            return Err(format!("no herd7 at {} (set HAZMAT_ORACLE)", exe.display()));
        }
        let corpus = match std::env::var_os("HAZMAT_CONFORMANCE") {
            Some(p) => PathBuf::from(p),
            None => workspace().join("../shared/conformance"),
        };
        let model = corpus.join("lkmm-model");
        if !model.join("linux-kernel.cfg").is_file() {
            return Err(format!(
                "no LKMM model files in {} (set HAZMAT_CONFORMANCE)",
                model.display()
            ));
        }
        Ok(Herd7 {
            exe,
            args: vec![
                "-I".into(),
                model.display().to_string(),
                "-conf".into(),
                "linux-kernel.cfg".into(),
            ],
            hazmat_model: "lkmm",
            cat: None,
            macros: None,
            timeout: 10.0,
            optace: Default::default(),
        })
    }

    /// herd7 under RC11 (`-model rc11.cat -macros c11.def`, from its own library), compared
    /// with hazmat's native RC11, or why it is absent.
    pub(crate) fn find_rc11() -> Result<Herd7, String> {
        let exe = match std::env::var_os("HAZMAT_ORACLE") {
            Some(p) => PathBuf::from(p),
            None => workspace().join("../shared/oracle/herd7"),
        };
        if !exe.is_file() {
            return Err(format!("no herd7 at {} (set HAZMAT_ORACLE)", exe.display()));
        }
        Ok(Herd7 {
            exe,
            args: vec![
                "-model".into(),
                "rc11.cat".into(),
                "-macros".into(),
                "c11.def".into(),
            ],
            hazmat_model: "rc11",
            cat: None,
            macros: None,
            timeout: 10.0,
            optace: Default::default(),
        })
    }

    /// herd7 running the C11 model `cat` of its library (`-model CAT -macros c11.def`),
    /// compared with hazmat's interpreter running the same file from the same library in
    /// the C11 dialect, or why either is absent.
    pub(crate) fn find_c11_cat(cat: &str) -> Result<Herd7, String> {
        Herd7::find_cat(cat, true)
    }

    /// herd7 running the model `cat` of its library with no macro file (`-model CAT`),
    /// compared with hazmat's interpreter running the same file in the kernel's dialect,
    /// where C11's `_explicit` words, compare-exchanges and herd7's internal instructions
    /// are what herd7's grammar makes them, or why either is absent.
    pub(crate) fn find_cat_without_macros(cat: &str) -> Result<Herd7, String> {
        Herd7::find_cat(cat, false)
    }

    fn find_cat(cat: &str, c11_macros: bool) -> Result<Herd7, String> {
        use hazmat_checker::front::lower::Dialect;
        use hazmat_checker::models::cat::{Library, Spec, files::Disk, load};
        let mut h = Herd7::find_rc11()?;
        let lib = h.exe.parent().unwrap_or(Path::new(".")).join("herd");
        let spec = Spec {
            cat: cat.into(),
            bell: None,
            variants: Vec::new(),
            ..Default::default()
        };
        let model = load(&Library::new().include(&lib), &Disk, &spec)
            .map_err(|e| e.render().trim_end().to_string())?
            .in_dialect(if c11_macros {
                Dialect::C11
            } else {
                Dialect::Kernel
            });
        h.args[1] = cat.into();
        if !c11_macros {
            h.args.truncate(2);
        }
        h.cat = Some(std::sync::Arc::new(model));
        Ok(h)
    }

    /// herd7 with the configuration file `cfg` (`-I DIR -conf NAME`, `DIR` the file's
    /// folder: an older version of the kernel's model, or an edited one), compared with
    /// hazmat's interpreter running what the same file chooses from the same folder, with
    /// hazmat's own library for what the folder lacks; or why either is absent.
    pub(crate) fn find_conf(cfg: &Path) -> Result<Herd7, String> {
        use hazmat_checker::models::cat::Library;
        use hazmat_checker::models::cat::config::{Places, Settings};
        use hazmat_checker::models::cat::files::Disk;
        use hazmat_checker::models::choose::{Request, choose};
        let mut h = Herd7::find_rc11()?;
        // herd7 runs in a scratch folder, so the folder is named by its whole path.
        let cfg = &std::fs::canonicalize(cfg).map_err(|e| format!("{}: {e}", cfg.display()))?;
        let dir = cfg.parent().unwrap_or(Path::new("."));
        let name = cfg
            .file_name()
            .ok_or_else(|| format!("{}: not a file", cfg.display()))?;
        let mut settings = Settings::default();
        settings
            .read_config(&cfg.display().to_string(), &Places::default(), &Disk)
            .map_err(|e| format!("{}: {e}", cfg.display()))?;
        let request = Request {
            interpret: true,
            ..Request::from_settings(&settings)
        };
        let library = Library::new().include(dir);
        // The choice gives the dialect and the macros; the interpreter's model is loaded
        // as a value of its own, which the workers share.
        let choice =
            choose(&library, &Disk, &request).map_err(|e| format!("{}: {e:?}", cfg.display()))?;
        // Under `optace true`, herd7 runs the model with the variant `cos-opt` too.
        let mut variants = request.variants.clone();
        if settings.optace == hazmat_checker::models::optace::OptAce::True {
            variants.push("cos-opt".into());
        }
        let spec = hazmat_checker::models::cat::Spec {
            cat: request.cat.clone(),
            bell: request.bell.clone(),
            variants,
            ..Default::default()
        };
        let model = hazmat_checker::models::cat::load(&library, &Disk, &spec)
            .map_err(|e| e.render().trim_end().to_string())?
            .in_dialect(choice.dialect);
        h.args = vec![
            "-I".into(),
            dir.display().to_string(),
            "-conf".into(),
            name.to_string_lossy().into_owned(),
        ];
        h.cat = Some(std::sync::Arc::new(model));
        h.macros = choice.macros;
        h.optace = settings.optace;
        Ok(h)
    }

    /// herd7 with `-optace TAG` added to its options, and hazmat building the candidates
    /// alike, natively or in its interpreter.
    pub(crate) fn with_optace(mut self, optace: hazmat_checker::models::optace::OptAce) -> Herd7 {
        self.args.extend(["-optace".into(), optace.as_str().into()]);
        self.optace = optace;
        self
    }

    /// How many candidates herd7 loses on the test `NAME.litmus` of `dir` ([`lost_in_debug_output`]),
    /// from a run of its own with `-debug solver`.
    pub(crate) fn lost_candidates(&self, dir: &Path, name: &str) -> usize {
        let Ok(child) = Command::new(&self.exe)
            .arg("-timeout")
            .arg(format!("{}", self.timeout))
            .args(&self.args)
            .args(["-debug", "solver"])
            .arg(format!("{name}.litmus"))
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
        else {
            return 0;
        };
        match child.wait_with_output() {
            Ok(out) => lost_in_debug_output(&String::from_utf8_lossy(&out.stderr)),
            Err(_) => 0,
        }
    }

    /// The command line that decides `file`, for messages.
    pub(crate) fn command(&self, file: &str) -> String {
        format!("{} {} {file}", self.exe.display(), self.args.join(" "))
    }

    /// Runs herd7 once on the files `names` of `dir` (`NAME.litmus`, each holding the test
    /// `NAME`), and returns its answer for each, in order.
    pub(crate) fn run(&self, dir: &Path, names: &[String]) -> Vec<Answer> {
        let files: Vec<String> = names.iter().map(|n| format!("{n}.litmus")).collect();
        let mut child = match Command::new(&self.exe)
            .arg("-timeout")
            .arg(format!("{}", self.timeout))
            .args(&self.args)
            .args(&files)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
        {
            Ok(c) => c,
            Err(e) => {
                let why = format!("herd7 does not start: {e}");
                return names
                    .iter()
                    .map(|_| Answer::Undecided(why.clone()))
                    .collect();
            }
        };
        let mut stdout = child.stdout.take();
        let mut stderr = child.stderr.take();
        let out = std::thread::spawn(move || {
            let mut s = String::new();
            if let Some(o) = stdout.as_mut() {
                let _ = o.read_to_string(&mut s);
            }
            s
        });
        let err = std::thread::spawn(move || {
            let mut s = String::new();
            if let Some(e) = stderr.as_mut() {
                let _ = e.read_to_string(&mut s);
            }
            s
        });
        // herd7's own timeout bounds each test's CPU time; this bounds the whole run, on a
        // machine that may be busy.
        let deadline = Instant::now()
            + Duration::from_secs_f64(30.0 + 3.0 * self.timeout * files.len() as f64);
        let mut killed = false;
        loop {
            match child.try_wait() {
                Ok(Some(_)) => break,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    killed = true;
                    break;
                }
            }
        }
        let stdout = out.join().unwrap_or_default();
        let stderr = err.join().unwrap_or_default();
        let blocks: BTreeMap<String, String> = read::blocks(&stdout).into_iter().collect();
        let mut errors: BTreeMap<String, String> = BTreeMap::new();
        for (file, message) in read::errors(&stderr) {
            errors.entry(file).or_insert(message);
        }
        names
            .iter()
            .zip(&files)
            .map(|(name, file)| {
                if let Some(text) = blocks.get(name) {
                    match read::parse(text) {
                        Ok(summary) => Answer::Decided {
                            text: without_time(text),
                            summary,
                        },
                        Err(e) => Answer::Undecided(format!("herd7's output unread: {e}")),
                    }
                } else if let Some(message) = errors.get(file) {
                    Answer::Rejected(message.clone())
                } else if killed {
                    Answer::Undecided("herd7 was stopped".into())
                } else {
                    Answer::Undecided(format!("herd7 timeout ({} s)", self.timeout))
                }
            })
            .collect()
    }
}

/// herd7's output without its `Time` line, as the conformance corpus keeps it.
fn without_time(text: &str) -> String {
    let mut out: String = text
        .lines()
        .filter(|l| !l.starts_with("Time "))
        .flat_map(|l| [l, "\n"])
        .collect();
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// One tool's answer to one test.
#[derive(Clone, Debug)]
pub(crate) enum Answer {
    /// The test is decided: the tool's herd7-format text (`Time` line aside), read back.
    Decided {
        /// The text.
        text: String,
        /// What it says.
        summary: Summary,
    },
    /// The tool refuses the test, with this message.
    Rejected(String),
    /// The tool did not decide it in time.
    Undecided(String),
    /// hazmat panicked.
    Panicked(String),
}

impl Answer {
    /// The answer as a few lines, for messages and comments.
    pub(crate) fn text(&self) -> String {
        match self {
            Answer::Decided { text, .. } => text.trim_end().to_string(),
            Answer::Rejected(m) => format!("error: {m}"),
            Answer::Undecided(m) => format!("undecided: {m}"),
            Answer::Panicked(m) => format!("panic: {m}"),
        }
    }
}

/// hazmat's answer to the test `text`, decided under the LKMM within `timeout`.
pub(crate) fn hazmat(text: &str, timeout: Duration) -> Answer {
    hazmat_under("lkmm", text, timeout)
}

/// hazmat's answer to the test `text`, decided under `model` within `timeout`.
pub(crate) fn hazmat_under(model: &str, text: &str, timeout: Duration) -> Answer {
    match hazmat_checker::model(model) {
        Ok(m) => hazmat_with(m.as_ref(), text, timeout),
        Err(e) => Answer::Rejected(e.to_string()),
    }
}

/// hazmat's answer to the test `text`, decided by `model` within `timeout`.
pub(crate) fn hazmat_with(
    model: &dyn hazmat_checker::models::model::MemoryModel,
    text: &str,
    timeout: Duration,
) -> Answer {
    hazmat_with_macros(model, None, text, timeout, Default::default())
}

/// hazmat's answer to the test `text`, its calls read by `macros` (the model's dialect
/// when none), decided by `model` within `timeout`, its candidates built as herd7's
/// `-optace` says.
pub(crate) fn hazmat_with_macros(
    model: &dyn hazmat_checker::models::model::MemoryModel,
    macros: Option<&hazmat_checker::front::defs::Macros>,
    text: &str,
    timeout: Duration,
    optace: hazmat_checker::models::optace::OptAce,
) -> Answer {
    let options = Options {
        limits: Limits {
            max_executions: None,
            deadline: Some(Instant::now() + timeout),
            optace,
            ..Default::default()
        },
        speedcheck: false,
        ..Default::default()
    };
    // A panic is reported as such; no model keeps state that a panic leaves half made.
    let decided = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        match macros {
            Some(m) => hazmat_checker::check_source_with_macros(text, m, model, &options),
            None => check_source(text, model, &options),
        }
        .map(|c| {
            let unknown = c.outcome.unknown.clone();
            (c.herd_text(), unknown)
        })
    }));
    match decided {
        Err(panic) => Answer::Panicked(
            panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default(),
        ),
        Ok(Err(e)) => Answer::Rejected(e.render("generated.litmus", text)),
        Ok(Ok((_, Some(why)))) => Answer::Undecided(format!("hazmat: {why}")),
        Ok(Ok((text, None))) => match read::parse(&text) {
            Ok(summary) => Answer::Decided {
                text: without_time(&text),
                summary,
            },
            Err(e) => Answer::Panicked(format!("hazmat's output unread: {e}\n{text}")),
        },
    }
}

/// How hazmat's answer differs from herd7's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Kind {
    /// hazmat panics.
    HazmatPanics,
    /// herd7 rejects the test; hazmat decides it.
    Herd7Rejects,
    /// hazmat rejects the test; herd7 decides it.
    HazmatRejects,
    /// Another verdict.
    Verdict,
    /// Another set of final states.
    States,
    /// Other witness counts.
    Witnesses,
    /// Other flags.
    Flags,
    /// The same answer, printed differently.
    Text,
}

impl Kind {
    /// Every kind, in order.
    pub(crate) const ALL: [Kind; 8] = [
        Kind::HazmatPanics,
        Kind::Herd7Rejects,
        Kind::HazmatRejects,
        Kind::Verdict,
        Kind::States,
        Kind::Witnesses,
        Kind::Flags,
        Kind::Text,
    ];

    /// The kind's name: `states`, `herd7-rejects`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::HazmatPanics => "hazmat-panics",
            Kind::Herd7Rejects => "herd7-rejects",
            Kind::HazmatRejects => "hazmat-rejects",
            Kind::Verdict => "verdict",
            Kind::States => "states",
            Kind::Witnesses => "witnesses",
            Kind::Flags => "flags",
            Kind::Text => "text",
        }
    }
}

/// The comparison of two answers.
#[derive(Clone, Debug)]
pub(crate) enum Compared {
    /// Both reject the test, or both decide it alike.
    Agree,
    /// One of them did not decide it: nothing to compare.
    Undecided(String),
    /// They differ: how (the first kind is the main one), and a line saying it.
    Disagree(Vec<Kind>, String),
    /// hazmat counts executions that herd7 7.58 loses to its solver, and they agree
    /// otherwise (see [`Herd7::lost_candidates`]): a line saying so.
    Herd7Lost(String),
}

/// Compares hazmat's answer with herd7's.
pub(crate) fn compare(hazmat: &Answer, herd7: &Answer) -> Compared {
    match (hazmat, herd7) {
        (Answer::Panicked(m), _) => Compared::Disagree(
            vec![Kind::HazmatPanics],
            format!("hazmat panics: {}", m.lines().next().unwrap_or_default()),
        ),
        (Answer::Undecided(why), _) | (_, Answer::Undecided(why)) => {
            Compared::Undecided(why.clone())
        }
        (Answer::Rejected(_), Answer::Rejected(_)) => Compared::Agree,
        (Answer::Decided { .. }, Answer::Rejected(m)) => Compared::Disagree(
            vec![Kind::Herd7Rejects],
            format!("herd7 rejects it ({m}); hazmat decides it"),
        ),
        (Answer::Rejected(m), Answer::Decided { .. }) => Compared::Disagree(
            vec![Kind::HazmatRejects],
            format!(
                "hazmat rejects it ({}); herd7 decides it",
                m.lines().next().unwrap_or_default()
            ),
        ),
        (
            Answer::Decided {
                text: ours,
                summary: actual,
            },
            Answer::Decided {
                text: theirs,
                summary: expected,
            },
        ) => {
            let kinds: Vec<Kind> = read::differing(expected, actual)
                .into_iter()
                .map(|f| match f {
                    Field::Verdict => Kind::Verdict,
                    Field::States => Kind::States,
                    Field::Witnesses => Kind::Witnesses,
                    Field::Flags => Kind::Flags,
                })
                .collect();
            if !kinds.is_empty() {
                let detail = read::differences(expected, actual).join("; ");
                return Compared::Disagree(kinds, format!("{detail} (hazmat vs herd7)"));
            }
            match read::first_text_difference(ours, theirs) {
                Some(d) => Compared::Disagree(vec![Kind::Text], format!("{d} (hazmat vs herd7)")),
                None => Compared::Agree,
            }
        }
        (Answer::Rejected(_) | Answer::Decided { .. }, Answer::Panicked(m)) => {
            Compared::Undecided(format!("herd7's answer unread: {m}"))
        }
    }
}

/// One generated program.
#[derive(Clone, Debug)]
pub(crate) struct Case {
    /// The seed that draws it ([`generate::from_seed`]).
    pub(crate) seed: u64,
    /// Its sketch.
    pub(crate) sketch: Sketch,
    /// The name of its test, unique within a batch.
    pub(crate) name: String,
    /// Its litmus text.
    pub(crate) text: String,
    /// Its construct classes.
    pub(crate) classes: BTreeSet<Class>,
}

impl Case {
    /// The program `seed` draws under `config`.
    pub(crate) fn new(seed: u64, config: &Config) -> Case {
        Case::of(
            seed,
            generate::from_seed(seed, config.clone()),
            format!("G{seed:016x}"),
        )
    }

    /// The program of `sketch`, named `name`.
    pub(crate) fn of(seed: u64, sketch: Sketch, name: String) -> Case {
        let text = hazmat_litmus::print(&sketch.to_test(&name));
        let classes = sketch.classes();
        Case {
            seed,
            sketch,
            name,
            text,
            classes,
        }
    }
}

/// A case and both answers.
#[derive(Clone, Debug)]
pub(crate) struct Decided {
    /// The program.
    pub(crate) case: Case,
    /// hazmat's answer.
    pub(crate) hazmat: Answer,
    /// herd7's answer.
    pub(crate) herd7: Answer,
    /// How they compare.
    pub(crate) compared: Compared,
}

impl Decided {
    /// The main kind of the disagreement, if they disagree.
    pub(crate) fn kind(&self) -> Option<Kind> {
        match &self.compared {
            Compared::Disagree(kinds, _) => kinds.first().copied(),
            _ => None,
        }
    }

    /// Whether they disagree in the way `kind` says.
    pub(crate) fn disagrees_by(&self, kind: Kind) -> bool {
        matches!(&self.compared, Compared::Disagree(kinds, _) if kinds.contains(&kind))
    }
}

/// Sizes and budgets of a run.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    /// The vocabulary and sizes of the programs.
    pub(crate) config: Config,
    /// The first seed: case `i` is drawn by seed `seed + i`.
    pub(crate) seed: u64,
    /// The number of programs.
    pub(crate) cases: u64,
    /// Programs per herd7 run.
    pub(crate) batch: usize,
    /// Workers, each running herd7 on a batch while hazmat decides it.
    pub(crate) jobs: usize,
    /// hazmat's budget per test.
    pub(crate) timeout: Duration,
    /// The most disagreements to minimise.
    pub(crate) minimise: usize,
    /// Minimise only the disagreements of this kind, keeping it (otherwise each keeps its
    /// main kind).
    pub(crate) kind: Option<Kind>,
}

/// Writes the cases as `NAME.litmus` files of `dir`, has herd7 decide them in one run
/// while hazmat decides them here, and compares the answers.
pub(crate) fn decide(
    herd7: &Herd7,
    cases: Vec<Case>,
    dir: &Path,
    timeout: Duration,
) -> Vec<Decided> {
    if let Err(e) = std::fs::create_dir_all(dir) {
        panic!("{}: {e}", dir.display());
    }
    for c in &cases {
        let file = dir.join(format!("{}.litmus", c.name));
        std::fs::write(&file, &c.text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    }
    let names: Vec<String> = cases.iter().map(|c| c.name.clone()).collect();
    let (theirs, ours) = std::thread::scope(|s| {
        let theirs = s.spawn(|| herd7.run(dir, &names));
        let ours: Vec<Answer> = cases
            .iter()
            .map(|c| match &herd7.cat {
                Some(m) => hazmat_with_macros(
                    m.as_ref(),
                    herd7.macros.as_deref(),
                    &c.text,
                    timeout,
                    herd7.optace,
                ),
                None => match hazmat_checker::model(herd7.hazmat_model) {
                    Ok(m) => hazmat_with_macros(m.as_ref(), None, &c.text, timeout, herd7.optace),
                    Err(e) => Answer::Rejected(e.to_string()),
                },
            })
            .collect();
        (
            theirs.join().expect("the herd7 runner does not panic"),
            ours,
        )
    });
    let decided: Vec<Decided> = cases
        .into_iter()
        .zip(ours)
        .zip(theirs)
        .map(|((case, hazmat), theirs)| {
            let compared = classify(herd7, dir, &case.name, &hazmat, &theirs);
            Decided {
                case,
                hazmat,
                herd7: theirs,
                compared,
            }
        })
        .collect();
    for d in &decided {
        let _ = std::fs::remove_file(dir.join(format!("{}.litmus", d.case.name)));
    }
    decided
}

/// Compares hazmat's answer with herd7's on the test `NAME.litmus` of `dir`, as
/// [`compare`] does, but where hazmat only counts more executions, asks herd7's solver
/// whether it lost them ([`Compared::Herd7Lost`]).
pub(crate) fn classify(
    herd7: &Herd7,
    dir: &Path,
    name: &str,
    ours: &Answer,
    theirs: &Answer,
) -> Compared {
    let compared = compare(ours, theirs);
    if more_executions_only(&compared, ours, theirs) {
        let lost = herd7.lost_candidates(dir, name);
        if lost > 0 {
            return Compared::Herd7Lost(format!(
                "herd7 drops {lost} candidate(s) whose equations its own solution satisfies, \
                 and hazmat counts more executions, agreeing otherwise"
            ));
        }
    }
    compared
}

/// Whether the answers differ only as they do where herd7 loses executions: the same
/// flags, hazmat's states including herd7's, hazmat's counts at least herd7's, one of them
/// more, and the same verdict unless those counts make herd7's `Always` or `Never`
/// hazmat's `Sometimes` (the execution herd7 lost was the only one of its kind).
fn more_executions_only(compared: &Compared, ours: &Answer, theirs: &Answer) -> bool {
    let Compared::Disagree(kinds, _) = compared else {
        return false;
    };
    let (Answer::Decided { summary: o, .. }, Answer::Decided { summary: t, .. }) = (ours, theirs)
    else {
        return false;
    };
    kinds
        .iter()
        .all(|k| matches!(k, Kind::Witnesses | Kind::States | Kind::Verdict))
        && (o.verdict == t.verdict || o.verdict == "Sometimes")
        && o.flags == t.flags
        && o.states.is_superset(&t.states)
        && o.positive >= t.positive
        && o.negative >= t.negative
        && o.positive + o.negative > t.positive + t.negative
}

/// The candidates that herd7's solver debugging output (`-debug solver`) shows rejected as
/// unsolvable although its own solution satisfies every equation left: the printed
/// `Solutions: S1<-2, ...` line, then `Unsolved equations:` with lines such as `2:=S14`
/// (or `S16:=S18` where the solution makes both one symbol, `S16<-S18`), then
/// `Unsolvable system`. herd7 7.58 solves a cycle of equations in one pass, so an
/// equation whose variable a later equation of the cycle solves stays "unsolved", and the
/// candidate is dropped (herdtools7 iterates the pass to a fixpoint since April 2025).
/// The equations left are solved here to that fixpoint first: a variable a left equation
/// defines (`S6:=S4&0` with `S4<--1`) solves the others (`1:=S6+1`).
pub(crate) fn lost_in_debug_output(stderr: &str) -> usize {
    let lines: Vec<&str> = stderr.lines().collect();
    let mut lost = 0;
    for (i, line) in lines.iter().enumerate() {
        let Some(solutions) = line.strip_prefix("Solutions: ") else {
            continue;
        };
        if lines.get(i + 1) != Some(&"Unsolved equations:") {
            continue;
        }
        let mut known: BTreeMap<String, String> = BTreeMap::new();
        for binding in solutions.split(", ") {
            if let Some((var, value)) = binding.split_once("<-") {
                known.insert(var.trim().to_string(), value.trim().to_string());
            }
        }
        let Some(end) = lines[i + 2..]
            .iter()
            .position(|l| *l == "Unsolvable system")
        else {
            continue;
        };
        let left = &lines[i + 2..i + 2 + end];
        // herd7's pass to its fixpoint: a left equation whose right side is known now
        // solves its variable.
        loop {
            let mut solved = false;
            for (l, r) in left.iter().filter_map(|eq| eq.split_once(":=")) {
                let l = l.trim();
                let symbol = l.starts_with('S') && l[1..].chars().all(|c| c.is_ascii_digit());
                if symbol
                    && !known.contains_key(l)
                    && let Some(v) = value(&known, r)
                {
                    known.insert(l.to_string(), v.to_string());
                    solved = true;
                }
            }
            if !solved {
                break;
            }
        }
        // Two sides equal: as numbers, or as one symbol (`S16:=S18` with `S16<-S18`).
        let holds = |l: &str, r: &str| match (value(&known, l), value(&known, r)) {
            (Some(a), Some(b)) => a == b,
            _ => {
                let (a, b) = (resolve(&known, l), resolve(&known, r));
                a == b && a.starts_with('S') && a[1..].chars().all(|c| c.is_ascii_digit())
            }
        };
        let satisfied = left
            .iter()
            .all(|eq| eq.split_once(":=").is_some_and(|(l, r)| holds(l, r)));
        if !left.is_empty() && satisfied {
            lost += 1;
        }
    }
    lost
}

/// An atom as the solution `known` leaves it: a number, or the symbol its class is named by.
fn resolve(known: &BTreeMap<String, String>, atom: &str) -> String {
    let mut a = atom.trim();
    for _ in 0..known.len() {
        match known.get(a) {
            Some(v) if v != a => a = v,
            _ => break,
        }
    }
    a.to_string()
}

/// The value of an atom or of `a OP b` under the solution `known`, if it is a number.
fn value(known: &BTreeMap<String, String>, expr: &str) -> Option<i64> {
    let atom = |a: &str| resolve(known, a).parse::<i64>().ok();
    atom(expr).or_else(|| binary(expr, &atom))
}

/// The value of an equation's right-hand side `a OP b` as herd7 prints it (`S5^1`,
/// `S10==S9`, and `andnot2(S10,1)`, `atomic_andnot`'s `a & ~b`), its atoms valued by
/// `atom`, in herd7's 32-bit C integers.
fn binary(expr: &str, atom: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
    if let Some(args) = expr
        .strip_prefix("andnot2(")
        .and_then(|e| e.strip_suffix(')'))
    {
        let (x, y) = args.split_once(',')?;
        return Some(i64::from(atom(x)? as i32 & !(atom(y)? as i32)));
    }
    const OPS: [&str; 16] = [
        "==", "!=", "<=", ">=", "<<", ">>", "+", "-", "*", "/", "%", "&", "|", "^", "<", ">",
    ];
    for op in OPS {
        // The first character is never the operator: it may be a negative number's sign.
        let Some(at) = expr.get(1..).and_then(|rest| rest.find(op)).map(|i| i + 1) else {
            continue;
        };
        let (x, y) = (
            atom(&expr[..at])? as i32,
            atom(&expr[at + op.len()..])? as i32,
        );
        return Some(i64::from(match op {
            "==" => (x == y) as i32,
            "!=" => (x != y) as i32,
            "<=" => (x <= y) as i32,
            ">=" => (x >= y) as i32,
            "<" => (x < y) as i32,
            ">" => (x > y) as i32,
            "<<" => x.wrapping_shl(y as u32),
            ">>" => x.wrapping_shr(y as u32),
            "+" => x.wrapping_add(y),
            "-" => x.wrapping_sub(y),
            "*" => x.wrapping_mul(y),
            "/" => x.checked_div(y)?,
            "%" => x.checked_rem(y)?,
            "&" => x & y,
            "|" => x | y,
            _ => x ^ y,
        }));
    }
    None
}

/// Counts of programs and of how they compared.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Tally {
    /// Programs.
    pub(crate) programs: u64,
    /// Programs on which hazmat agrees with herd7.
    pub(crate) agree: u64,
    /// Programs on which they disagree.
    pub(crate) disagree: u64,
    /// Programs one of them did not decide.
    pub(crate) undecided: u64,
    /// Programs where herd7 loses executions to its solver ([`Compared::Herd7Lost`]).
    pub(crate) herd7_lost: u64,
}

impl Tally {
    fn add(&mut self, d: &Decided) {
        self.programs += 1;
        match d.compared {
            Compared::Agree => self.agree += 1,
            Compared::Disagree(..) => self.disagree += 1,
            Compared::Undecided(_) => self.undecided += 1,
            Compared::Herd7Lost(_) => self.herd7_lost += 1,
        }
    }
}

/// The results of a run, in all and per construct class and kind of disagreement.
#[derive(Clone, Debug, Default)]
pub(crate) struct Stats {
    /// All programs.
    pub(crate) total: Tally,
    /// Per construct class.
    pub(crate) classes: BTreeMap<Class, Tally>,
    /// Disagreements per main kind.
    pub(crate) kinds: BTreeMap<Kind, u64>,
}

impl Stats {
    /// Counts one decided case.
    pub(crate) fn add(&mut self, d: &Decided) {
        self.total.add(d);
        for c in &d.case.classes {
            self.classes.entry(*c).or_default().add(d);
        }
        if let Some(k) = d.kind() {
            *self.kinds.entry(k).or_default() += 1;
        }
    }

    /// The counts as a table: one row per class, then the kinds of disagreement.
    pub(crate) fn table(&self) -> String {
        let mut out = format!(
            "{:<18} {:>8} {:>8} {:>8} {:>9} {:>11}\n",
            "class", "programs", "agree", "disagree", "undecided", "herd7-lost"
        );
        let row = |out: &mut String, name: &str, t: &Tally| {
            out.push_str(&format!(
                "{name:<18} {:>8} {:>8} {:>8} {:>9} {:>11}\n",
                t.programs, t.agree, t.disagree, t.undecided, t.herd7_lost
            ));
        };
        for c in Class::ALL {
            if let Some(t) = self.classes.get(&c) {
                row(&mut out, c.name(), t);
            }
        }
        row(&mut out, "all", &self.total);
        if !self.kinds.is_empty() {
            out.push_str("disagreements by kind:");
            for (k, n) in &self.kinds {
                out.push_str(&format!(" {} {n};", k.name()));
            }
            out.push('\n');
        }
        out
    }
}

/// A minimised disagreement, ready to be written as a litmus file.
#[derive(Clone, Debug)]
pub(crate) struct Finding {
    /// The file's stem and the test's name: `states-0123456789abcdef`.
    pub(crate) name: String,
    /// The main kind of the disagreement.
    pub(crate) kind: Kind,
    /// The seed of the program it was minimised from.
    pub(crate) seed: u64,
    /// The litmus file: the minimised program, with a comment giving herd7's `Result`,
    /// the seed, the classes and both outputs.
    pub(crate) litmus: String,
    /// herd7's output (`Time` line aside), or its error message.
    pub(crate) expected: String,
    /// The comparison, on the minimised program.
    pub(crate) detail: String,
}

/// Minimises the disagreement of `d` while it keeps the kind `kind`, and writes it up.
pub(crate) fn finding(
    herd7: &Herd7,
    d: &Decided,
    kind: Kind,
    dir: &Path,
    timeout: Duration,
) -> Finding {
    let seed = d.case.seed;
    let mut step = 0;
    let minimised = generate::minimise(&d.case.sketch, 24, 200, |chunk| {
        step += 1;
        let cases = chunk
            .iter()
            .enumerate()
            .map(|(i, s)| Case::of(seed, s.clone(), format!("M{step}x{i}")))
            .collect();
        decide(herd7, cases, dir, timeout)
            .iter()
            .position(|d| d.disagrees_by(kind))
    });
    let name = format!("{}-{seed:016x}", kind.name());
    let case = Case::of(seed, minimised, name.clone());
    let classes: Vec<&str> = case.classes.iter().map(|c| c.name()).collect();
    let decided = decide(herd7, vec![case.clone()], dir, timeout)
        .pop()
        .expect("one answer per case");
    let detail = match &decided.compared {
        Compared::Disagree(_, detail) => detail.clone(),
        Compared::Agree => "they agree on the minimised program (a flaky disagreement)".into(),
        Compared::Undecided(why) => format!("undecided on the minimised program: {why}"),
        Compared::Herd7Lost(why) => format!("on the minimised program, {why}"),
    };
    let (result, expected) = match &decided.herd7 {
        Answer::Decided { summary, text } => {
            let race = summary.flags.iter().any(|f| f == "data-race");
            (
                format!(
                    "Result: {}{}",
                    summary.verdict,
                    if race { " DATARACE" } else { "" }
                ),
                format!("{}\n", text.trim_end()),
            )
        }
        Answer::Rejected(m) => (
            "herd7 rejects this test, so no Result line: see its answer below".to_string(),
            format!("{m}\n"),
        ),
        other => (
            "herd7 decides nothing: see its answer below".to_string(),
            format!("{}\n", other.text()),
        ),
    };
    // The digests differ between the tools and with every edit: they are left out.
    let quote = |text: &str| -> String {
        text.lines()
            .filter(|l| !l.starts_with("Hash="))
            .map(|l| {
                let l = l.replace("(*", "( *").replace("*)", "* )");
                format!(" *   {l}\n")
            })
            .collect()
    };
    let mut comment = format!(
        "(*\n * {result}\n *\n * A disagreement with herd7 found by the oracle test (checker/tests/oracle.rs):\n \
         * {}: {detail}.\n * Classes: {}.\n * Minimised from the program of seed {seed} \
         (HAZMAT_ORACLE_SEED={seed} HAZMAT_ORACLE_CASES=1).\n *\n * hazmat said:\n",
        kind.name(),
        classes.join(", "),
    );
    comment.push_str(&quote(&decided.hazmat.text()));
    comment.push_str(" *\n * herd7 says:\n");
    comment.push_str(&quote(&decided.herd7.text()));
    comment.push_str(" *)\n");
    let (first, rest) = case.text.split_once('\n').unwrap_or((&case.text, ""));
    let litmus = format!("{first}\n{comment}{rest}");
    Finding {
        name,
        kind,
        seed,
        litmus,
        expected,
        detail,
    }
}

/// Writes a finding into `dir` as `NAME.litmus` and `NAME.litmus.expected`.
pub(crate) fn write_finding(dir: &Path, f: &Finding) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let file = dir.join(format!("{}.litmus", f.name));
    std::fs::write(&file, &f.litmus)?;
    std::fs::write(dir.join(format!("{}.litmus.expected", f.name)), &f.expected)?;
    Ok(file)
}

/// What a run found.
#[derive(Debug, Default)]
pub(crate) struct Report {
    /// The counts.
    pub(crate) stats: Stats,
    /// Every disagreement, in seed order.
    pub(crate) disagreements: Vec<Decided>,
    /// The minimised ones, without duplicates.
    pub(crate) findings: Vec<Finding>,
    /// The programs one tool did not decide: seed and why, in seed order.
    pub(crate) undecided: Vec<(u64, String)>,
}

/// Decides `settings.cases` programs on `settings.jobs` workers, a batch per herd7 run,
/// calling `progress` after each batch, then minimises up to `settings.minimise`
/// disagreements (of `settings.kind` only, when given), taking the kinds in turn and the
/// smallest program of each first.
pub(crate) fn run(
    herd7: &Herd7,
    settings: &Settings,
    scratch: &Path,
    progress: impl Fn(&Stats) + Sync,
) -> Report {
    let batch = settings.batch.max(1) as u64;
    let batches = settings.cases.div_ceil(batch) as usize;
    let next = AtomicUsize::new(0);
    let results: Mutex<Report> = Mutex::default();
    let jobs = settings.jobs.max(1);
    std::thread::scope(|s| {
        for worker in 0..jobs {
            let (next, results, progress) = (&next, &results, &progress);
            s.spawn(move || {
                let dir = scratch.join(format!("worker{worker}"));
                loop {
                    let b = next.fetch_add(1, Ordering::Relaxed);
                    if b >= batches {
                        break;
                    }
                    let first = b as u64 * batch;
                    let last = (first + batch).min(settings.cases);
                    let cases = (first..last)
                        .map(|i| Case::new(settings.seed.wrapping_add(i), &settings.config))
                        .collect();
                    let decided = decide(herd7, cases, &dir, settings.timeout);
                    let mut r = results.lock().unwrap_or_else(|e| e.into_inner());
                    for d in decided {
                        r.stats.add(&d);
                        if let Compared::Undecided(why) = &d.compared {
                            r.undecided.push((d.case.seed, why.clone()));
                        }
                        if d.kind().is_some() {
                            r.disagreements.push(d);
                        }
                    }
                    progress(&r.stats);
                }
            });
        }
    });
    let mut report = results.into_inner().unwrap_or_else(|e| e.into_inner());
    report.disagreements.sort_by_key(|d| d.case.seed);
    report.undecided.sort();

    // The kinds in turn, the smallest program of each first.
    let mut by_kind: BTreeMap<Kind, Vec<&Decided>> = BTreeMap::new();
    for d in &report.disagreements {
        match settings.kind {
            Some(k) if d.disagrees_by(k) => by_kind.entry(k).or_default().push(d),
            Some(_) => {}
            None => by_kind
                .entry(d.kind().unwrap_or(Kind::Text))
                .or_default()
                .push(d),
        }
    }
    for list in by_kind.values_mut() {
        list.sort_by_key(|d| (d.case.text.len(), d.case.seed));
    }
    let mut chosen: Vec<(Kind, &Decided)> = Vec::new();
    for round in 0.. {
        let before = chosen.len();
        for (kind, list) in &by_kind {
            if chosen.len() < settings.minimise
                && let Some(d) = list.get(round)
            {
                chosen.push((*kind, *d));
            }
        }
        if chosen.len() == before {
            break;
        }
    }
    let next = AtomicUsize::new(0);
    let found: Mutex<Vec<Finding>> = Mutex::default();
    std::thread::scope(|s| {
        for worker in 0..jobs {
            let (next, found, chosen) = (&next, &found, &chosen);
            s.spawn(move || {
                let dir = scratch.join(format!("minimise{worker}"));
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(kind, d)) = chosen.get(i) else {
                        break;
                    };
                    let f = finding(herd7, d, kind, &dir, settings.timeout);
                    found.lock().unwrap_or_else(|e| e.into_inner()).push(f);
                }
            });
        }
    });
    let mut findings = found.into_inner().unwrap_or_else(|e| e.into_inner());
    findings.sort_by_key(|f| (f.kind, f.seed));
    // Minimised programs often meet: keep one of each, names aside.
    let mut seen = BTreeSet::new();
    findings.retain(|f| {
        let program = f.litmus.replace(&f.name, "");
        let body = program
            .split_once(" *)\n")
            .map_or(program.as_str(), |(_, b)| b);
        seen.insert(body.to_string())
    });
    report.findings = findings;
    report
}

/// A line for each disagreement: seed, kinds, classes, what differs.
pub(crate) fn disagreement_lines(report: &Report) -> String {
    let mut out = String::new();
    for d in &report.disagreements {
        if let Compared::Disagree(kinds, detail) = &d.compared {
            let kinds: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
            let classes: Vec<&str> = d.case.classes.iter().map(|c| c.name()).collect();
            out.push_str(&format!(
                "{}\t{}\t{}\t{detail}\n",
                d.case.seed,
                kinds.join(","),
                classes.join(",")
            ));
        }
    }
    out
}
