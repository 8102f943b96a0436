//! Generated cat models (`testkit::models`) held to herd7: each model runs in both tools,
//! hazmat's with its own library, herd7's with herd7's, over the same litmus files, and
//! for every file herd7 decides hazmat gives herd7's output, `Time` aside; where herd7
//! refuses the model, hazmat refuses it too, at the line and column herd7 names for a
//! syntax error. Kernel-dialect models run with the kernel's bell and macros over a sample
//! of the conformance corpus; C11 models with herd7's `c11.def` over the project's C11
//! tests and herdtools7's generated C tests; both over a few generated programs
//! (`testkit::generate`, `HAZMAT_GENERATED_MODELS_PROGRAMS`, 8 unless set).
//!
//! herd7 is found through `$HAZMAT_ORACLE` or `../shared/oracle/herd7`; without it, or
//! without the corpus for the kernel dialect, a test passes having checked nothing, and
//! says so. `HAZMAT_GENERATED_MODELS` sets the number of models per dialect (24 unless
//! set), `HAZMAT_GENERATED_MODELS_SEED` the first seed (1 unless set), and
//! `HAZMAT_GENERATED_MODELS_STRIDE` the sample of the corpus (every 120th test of each
//! folder unless set), and `HAZMAT_GENERATED_MODELS_OPTACE=true` (or `false`) gives both
//! tools herd7's `-optace true` (`iico`, herd7's default, unless set): thousands of models
//! run offline
//! the same way. A failing run's
//! folder of models and programs is kept, a passing one's too under
//! `HAZMAT_GENERATED_MODELS_KEEP`.

#[path = "common/cat_oracle.rs"]
mod cat_oracle;
#[path = "common/corpus.rs"]
mod corpus;
#[path = "common/env.rs"]
mod env;

use cat_oracle::{Answer, ModelFiles, compare, corpus_sample, run_hazmat_under, run_herd7_with};
use hazmat_checker::models::cat::Library;
use hazmat_checker::models::cat::files::Disk;
use hazmat_checker::models::choose::{ChooseError, Request, choose};
use hazmat_checker::models::optace::OptAce;
use hazmat_checker::testkit::generate::{self, Config};
use hazmat_checker::testkit::harness::litmus_files;
use hazmat_checker::testkit::models::{self, Dialect};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A fresh scratch folder for one test.
fn scratch(tag: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("cat-generated-{tag}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// How the models of one run fared.
#[derive(Debug, Default)]
struct Tally {
    /// Models herd7 decided at least one file under, every answer held to hazmat's.
    decided: usize,
    /// Models both tools refused.
    refused: usize,
    /// Models herd7 stopped on with an internal error (an assertion of its own), where
    /// there is no answer of herd7's to hold hazmat to.
    herd7_crashed: usize,
    /// Files whose outputs differ in one of the known ways (see [`known`]), each with it.
    known: Vec<String>,
    /// What differed.
    problems: Vec<String>,
}

/// How both tools build the candidates: herd7's `-optace`, as `HAZMAT_GENERATED_MODELS_OPTACE`
/// names it (`iico`, herd7's default, unless set).
fn optace() -> OptAce {
    std::env::var("HAZMAT_GENERATED_MODELS_OPTACE").map_or(OptAce::Iico, |v| {
        OptAce::parse(&v).unwrap_or_else(|| {
            panic!("HAZMAT_GENERATED_MODELS_OPTACE={v}: not iico, true or false")
        })
    })
}

/// Whether herd7's error is a crash of its own rather than a refusal of the model.
fn crashed(error: &str) -> bool {
    error.starts_with("Problem ") || error.contains("Assertion failed")
}

/// The line and 1-based column herd7's error names (`line L, characters C-D`, C counted
/// from 0), when it names one.
fn herd7_place(error: &str) -> Option<(usize, usize)> {
    let rest = &error[error.find("line ")? + 5..];
    let (line, rest) = rest.split_once(", characters ")?;
    let (col, _) = rest.split_once('-')?;
    Some((
        line.trim().parse().ok()?,
        col.trim().parse::<usize>().ok()? + 1,
    ))
}

/// Runs the models numbered `seeds` of `dialect` in both tools over `files`; `dir` holds
/// the run's other files (the bell and macros), `bell` and `macros` name them.
fn run(
    dialect: Dialect,
    dir: &Path,
    bell: Option<&str>,
    macros: &str,
    seeds: std::ops::Range<u64>,
    files: &[PathBuf],
) -> Tally {
    let herd7 = cat_oracle::herd7().expect("herd7");
    let timeout = Duration::from_secs(30);
    let optace = optace();
    let mut tally = Tally::default();
    for seed in seeds {
        let cat = format!("m{seed}.cat");
        let text = models::model(seed, dialect);
        std::fs::write(dir.join(&cat), &text).expect("a model file");
        let variants = models::variants(seed);
        let files_of_model = ModelFiles {
            dir: dir.to_path_buf(),
            cat: cat.clone(),
            bell: bell.map(String::from),
            macros: Some(macros.into()),
            variants,
        };
        let theirs = run_herd7_with(
            &herd7,
            &files_of_model,
            files,
            10.0,
            &["-optace".to_string(), optace.as_str().to_string()],
        );
        let label = format!("{dialect:?} model {seed} ({})", dir.join(&cat).display());
        if let Some(Answer::Error(e)) = theirs
            .iter()
            .find(|a| matches!(a, Answer::Error(e) if crashed(e)))
        {
            eprintln!("{label}: herd7 crashes ({e}); not compared");
            tally.herd7_crashed += 1;
            continue;
        }
        // hazmat chooses what runs the model as its command lines do (the interpreter,
        // asked for), its library after the model's folder.
        let request = Request {
            cat: cat.clone(),
            bell: bell.map(String::from),
            macros: Some(macros.into()),
            variants: files_of_model.variants.clone(),
            interpret: true,
            optace,
            ..Request::default()
        };
        let loaded = choose(&Library::new().include(dir), &Disk, &request).map_err(|e| match e {
            ChooseError::Load(e) => e.render(),
            other => format!("{other:?}"),
        });
        let refused_by_herd7 = theirs.iter().all(|a| matches!(a, Answer::Error(_)));
        match loaded {
            Err(ours) => {
                if !refused_by_herd7 {
                    tally.problems.push(format!(
                        "{label}: hazmat refuses the model ({ours}); herd7 decides"
                    ));
                    continue;
                }
                let place = theirs.iter().find_map(|a| match a {
                    Answer::Error(e) => herd7_place(e),
                    _ => None,
                });
                match place {
                    Some((line, col)) if !ours.contains(&format!("{cat}:{line}:{col}:")) => {
                        tally.problems.push(format!(
                            "{label}: herd7 refuses it at {line}:{col}, hazmat elsewhere: {ours}"
                        ));
                    }
                    _ => tally.refused += 1,
                }
            }
            Ok(choice) => {
                let compared: Vec<(String, bool)> = files
                    .par_iter()
                    .zip(&theirs)
                    .filter_map(|(f, t)| {
                        let ours = run_hazmat_under(
                            &*choice.model,
                            choice.macros.as_deref(),
                            f,
                            timeout,
                            optace,
                        );
                        let d = compare(&ours, t)?;
                        let d = format!("{label} on {}: {d}", f.display());
                        Some(match known(&ours, t) {
                            Some(class) => (format!("known ({class}): {d}"), true),
                            None => (d, false),
                        })
                    })
                    .collect();
                let (known, found): (Vec<_>, Vec<_>) = compared.into_iter().partition(|c| c.1);
                tally.known.extend(known.into_iter().map(|c| c.0));
                let found: Vec<String> = found.into_iter().map(|c| c.0).collect();
                if refused_by_herd7 && found.is_empty() {
                    tally.refused += 1;
                } else if found.is_empty() {
                    tally.decided += 1;
                }
                tally.problems.extend(found);
            }
        }
    }
    tally
}

/// The known class hazmat's output falls in, where it differs from herd7's: the names of
/// values out of thin air (`S7` where herd7 prints `S13`), the states, counts and flags
/// alike: herd7 names a cycle's value after the root its union-find by rank leaves, which
/// hazmat replays for values stored as they were read, not through other register copies
/// nor in a loop's own thread (`engine::symbol`'s FIXME).
fn known(ours: &Answer, theirs: &Answer) -> Option<&'static str> {
    renamed(ours, theirs).then_some("names of values out of thin air")
}

/// Whether two decided outputs are the same once every name of a value out of thin air
/// (`S` and a number) is `S` and the states are counted as a set.
fn renamed(ours: &Answer, theirs: &Answer) -> bool {
    let (Answer::Decided(a, _), Answer::Decided(b, _)) = (ours, theirs) else {
        return false;
    };
    let unnamed = |text: &str| {
        let mut lines: Vec<String> = text
            .lines()
            .filter(|l| !l.starts_with("States ") && !l.starts_with("Hash="))
            .map(|l| {
                let mut out = String::new();
                let mut chars = l.chars().peekable();
                while let Some(c) = chars.next() {
                    out.push(c);
                    if c == 'S' && chars.peek().is_some_and(char::is_ascii_digit) {
                        while chars.peek().is_some_and(char::is_ascii_digit) {
                            chars.next();
                        }
                    }
                }
                out
            })
            .collect();
        lines.sort();
        lines.dedup();
        lines
    };
    a.contains("=S") && unnamed(a) == unnamed(b)
}

/// `HAZMAT_GENERATED_MODELS_PROGRAMS` (8 unless set) generated programs of `config`,
/// written into `dir`: what no corpus holds (loops, locks and RCU in any mix, in the
/// kernel's vocabulary; every order on every C11 operation).
fn programs(dir: &Path, config: &Config) -> Vec<PathBuf> {
    (1..=env::number("HAZMAT_GENERATED_MODELS_PROGRAMS", 8u64))
        .map(|seed| {
            let name = format!("P{seed:04}");
            let sketch = generate::from_seed(seed, config.clone());
            let file = dir.join(format!("{name}.litmus"));
            std::fs::write(&file, hazmat_litmus::print(&sketch.to_test(&name))).expect("a file");
            file
        })
        .collect()
}

/// Removes a passing run's folder, unless `HAZMAT_GENERATED_MODELS_KEEP` is set (a
/// failing run's stays, for its models and programs to be looked at).
fn tidy(dir: &Path) {
    if std::env::var_os("HAZMAT_GENERATED_MODELS_KEEP").is_none() {
        let _ = std::fs::remove_dir_all(dir);
    } else {
        eprintln!("kept {}", dir.display());
    }
}

/// The seeds of this run.
fn seeds() -> std::ops::Range<u64> {
    let first = env::number("HAZMAT_GENERATED_MODELS_SEED", 1u64);
    first..first + env::number("HAZMAT_GENERATED_MODELS", 24u64)
}

/// Every problem found, and a run that decided too little to mean anything, fail the
/// test; what was run is printed.
fn judge(dialect: &str, tally: &Tally, models: usize) {
    for k in &tally.known {
        eprintln!("{k}");
    }
    eprintln!(
        "{dialect}: {models} models, {} decided alike, {} refused by both, {} crash herd7, \
         {} files differing in a known way, {} problems",
        tally.decided,
        tally.refused,
        tally.herd7_crashed,
        tally.known.len(),
        tally.problems.len()
    );
    assert!(tally.problems.is_empty(), "{}", tally.problems.join("\n"));
    // A generator drifting into models herd7 refuses would check nothing.
    assert!(
        tally.decided * 2 >= models,
        "{dialect}: only {} of {models} models decided",
        tally.decided
    );
}

#[test]
fn generated_kernel_models_agree_with_herd7() {
    let (Some(root), Some(_)) = (corpus::conformance_dir(), cat_oracle::herd7()) else {
        eprintln!("conformance corpus or herd7 not found; nothing to check");
        return;
    };
    let dir = scratch("kernel");
    for f in ["linux-kernel.bell", "linux-kernel.def"] {
        std::fs::copy(root.join("lkmm-model").join(f), dir.join(f)).expect("the kernel's file");
    }
    let mut files = corpus_sample(&root, env::number("HAZMAT_GENERATED_MODELS_STRIDE", 120));
    let config = Config {
        max_size: 7,
        ..Config::lkmm()
    };
    files.extend(programs(&dir, &config));
    let seeds = seeds();
    let tally = run(
        Dialect::Kernel,
        &dir,
        Some("linux-kernel.bell"),
        "linux-kernel.def",
        seeds.clone(),
        &files,
    );
    judge("kernel", &tally, seeds.count());
    tidy(&dir);
}

#[test]
fn generated_c11_models_agree_with_herd7() {
    let Some(herd7) = cat_oracle::herd7() else {
        eprintln!("herd7 not found; nothing to check");
        return;
    };
    let dir = scratch("c11");
    std::fs::copy(
        cat_oracle::herdlib(&herd7).join("c11.def"),
        dir.join("c11.def"),
    )
    .expect("herd7's c11.def");
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = litmus_files(manifest.join("../litmus/tests/c11"));
    files.extend(
        litmus_files(manifest.join("../litmus/tests/hazptr-c11"))
            .into_iter()
            .step_by(3),
    );
    files.extend(
        litmus_files(manifest.join("tests/herdtools7/gen-C"))
            .into_iter()
            .step_by(2),
    );
    let config = Config {
        max_size: 6,
        ..Config::c11()
    };
    files.extend(programs(&dir, &config));
    let seeds = seeds();
    let tally = run(Dialect::C11, &dir, None, "c11.def", seeds.clone(), &files);
    judge("C11", &tally, seeds.count());
    tidy(&dir);
}
