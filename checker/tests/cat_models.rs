//! The cat interpreter against herd7: the kernel's model, run from its own files by the
//! interpreter, on the shared conformance corpus.
//!
//! Every folder of the corpus that holds herd7's answers counts (`common/corpus.rs`); each
//! of its decided tests must get herd7's verdict, states, witness counts and flags, and,
//! when those agree, herd7's text line for line (`Time` and `Hash=` aside), exactly as the
//! native model must in `conformance.rs`.
//! The model files are read from the corpus's `lkmm-model/` folder as its
//! `linux-kernel.cfg` names them, and the files they include from herd7's library beside
//! the oracle (`../shared/oracle/herd`, or `$HAZMAT_HERDLIB`).
//!
//! By default a fixed sample of each folder runs (every `HAZMAT_CAT_STRIDE`-th test, 10
//! unless set); `HAZMAT_CAT_STRIDE=1` runs the whole corpus.
//! Without the corpus or herd7's library, the tests pass having checked nothing, and say so.

#[path = "common/corpus.rs"]
mod corpus;

use corpus::{Case, conformance_dir, load_cases};
use hazmat_checker::herd_output;
use hazmat_checker::models::cat::config::parse_config;
use hazmat_checker::models::cat::files::Disk;
use hazmat_checker::models::cat::{CatModel, Library, Spec, load};
use std::path::{Path, PathBuf};

/// herd7's model library, when present.
fn herdlib() -> Option<PathBuf> {
    let dir = match std::env::var_os("HAZMAT_HERDLIB") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/oracle/herd"),
    };
    dir.join("stdlib.cat").is_file().then_some(dir)
}

/// The LKMM as the corpus's configuration file names it, compiled by the interpreter.
fn lkmm_interpreted(model_dir: &Path, herdlib: &Path) -> CatModel {
    let cfg = std::fs::read_to_string(model_dir.join("linux-kernel.cfg"))
        .expect("the model folder has its linux-kernel.cfg");
    let cfg = parse_config(&cfg, 0).unwrap_or_else(|e| panic!("linux-kernel.cfg: {e}"));
    let spec = Spec {
        cat: cfg.model.expect("the cfg names a model").value,
        bell: cfg.bell.map(|b| b.value),
        variants: cfg.variants.into_iter().map(|v| v.value).collect(),
    };
    let library = Library::new().include(model_dir).include(herdlib);
    load(&library, &Disk, &spec).unwrap_or_else(|e| panic!("{}", e.render()))
}

/// Per-test budget: `HAZMAT_CAT_TIMEOUT` seconds, 60 unless set.
fn timeout() -> std::time::Duration {
    let secs = std::env::var("HAZMAT_CAT_TIMEOUT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60.0f64);
    std::time::Duration::from_secs_f64(secs)
}

/// How a test's answer under `model` differs from herd7's, if it does.
fn disagreement(root: &Path, case: &Case, model: &CatModel) -> Option<String> {
    let source = std::fs::read_to_string(&case.file).ok()?;
    let options = hazmat_checker::Options {
        limits: hazmat_checker::enumerate::Limits {
            max_executions: None,
            deadline: Some(std::time::Instant::now() + timeout()),
        },
        speedcheck: false,
    };
    let start = std::time::Instant::now();
    let checked = hazmat_checker::check_source(&source, model, &options);
    if start.elapsed().as_secs_f64() > 2.0 {
        eprintln!("slow: {} {:.1?}", case.key, start.elapsed());
    }
    let text = match checked {
        Ok(c) => match &c.outcome.unknown {
            Some(why) => return Some(format!("unknown: {why}")),
            None => c.herd_text(),
        },
        Err(e) => return Some(e.render(&case.key, &source)),
    };
    let diffs = match herd_output::parse(&text) {
        Ok(actual) => {
            let mut d = herd_output::differences(&case.expected, &actual);
            if d.is_empty() {
                let herd7 = corpus::herd7_output(root, &case.key).unwrap_or_default();
                d.extend(herd_output::first_text_difference(&text, &herd7));
            }
            d
        }
        Err(e) => vec![e],
    };
    (!diffs.is_empty()).then(|| diffs.join("; "))
}

/// The stride of the sample: every test when `HAZMAT_CAT_STRIDE=1`.
fn stride() -> usize {
    std::env::var("HAZMAT_CAT_STRIDE")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|&s| s > 0)
        .unwrap_or(10)
}

#[test]
fn interpreted_lkmm_agrees_with_herd7() {
    use rayon::prelude::*;
    let (Some(root), Some(herdlib)) = (conformance_dir(), herdlib()) else {
        eprintln!("conformance corpus or herd7's library not found; nothing to check");
        return;
    };
    let model = lkmm_interpreted(&root.join("lkmm-model"), &herdlib);
    let cases = load_cases(&root).unwrap_or_else(|e| panic!("{e}"));
    let stride = stride();
    // Every `stride`-th test of each folder, so that each folder is sampled.
    let mut sample: Vec<&Case> = Vec::new();
    let mut folder = "";
    let mut k = 0;
    for case in &cases {
        let f = case.key.split('/').next().unwrap_or_default();
        if f != folder {
            folder = f;
            k = 0;
        }
        if k % stride == 0 {
            sample.push(case);
        }
        k += 1;
    }
    let start = std::time::Instant::now();
    let mut found: Vec<String> = sample
        .par_iter()
        .filter_map(|case| disagreement(&root, case, &model).map(|d| format!("{}: {d}", case.key)))
        .collect();
    found.sort();
    eprintln!(
        "interpreted LKMM: {} of {} sampled tests (every {stride}th of {}) agree with herd7 in full, in {:.1?}",
        sample.len() - found.len(),
        sample.len(),
        cases.len(),
        start.elapsed()
    );
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The kernel's current model, loaded from its files, is recognised by content as the
/// model the native LKMM implements (so `hazmat check --conf linux-kernel.cfg` runs the
/// native model), and an edit of it is not.
#[test]
fn the_kernel_files_select_the_native_model_and_an_edit_does_not() {
    use hazmat_checker::models::cat::files::InMemory;
    use hazmat_checker::models::cat::select::{self, Chosen};
    let (Some(root), Some(herdlib)) = (conformance_dir(), herdlib()) else {
        eprintln!("conformance corpus or herd7's library not found; nothing to check");
        return;
    };
    let dir = root.join("lkmm-model");
    let variants = vec!["lkmmv2".to_string()];
    let model = lkmm_interpreted(&dir, &herdlib);
    let digest = select::fingerprint(model.files(), &variants);
    assert_eq!(
        digest.as_deref(),
        Some(select::LKMM_FINGERPRINT),
        "the kernel's model files changed"
    );
    let def = std::fs::read_to_string(dir.join("linux-kernel.def")).expect("the def file");
    assert_eq!(select::def_fingerprint(&def), select::LKMM_DEF_FINGERPRINT);
    assert!(matches!(
        select::choose(model, &variants, false),
        Chosen::Native(_)
    ));
    assert!(matches!(
        select::choose(lkmm_interpreted(&dir, &herdlib), &variants, true),
        Chosen::Interpreted(_)
    ));

    // The same files under other names (those they include aside), with comments and
    // blanks changed, are the same model; one term less is another.
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).expect("a model file");
    let cat = read("linux-kernel.cat");
    let renamed = format!("(* renamed *)\n{cat}").replace("    ", "\t");
    let edited = renamed.replace("| rcu-fence\n", "\n");
    assert_ne!(edited, renamed, "the edit applies");
    let load_from = |cat_text: &str| {
        let fs = InMemory::new()
            .with("m/lkmm.cat", cat_text)
            .with("m/lkmm.bell", read("linux-kernel.bell"))
            .with("m/lock.cat", read("lock.cat"));
        let lib = Library::new().include("m").include(&herdlib);
        let spec = Spec {
            cat: "lkmm.cat".into(),
            bell: Some("lkmm.bell".into()),
            variants: variants.clone(),
        };
        // herd7's library files come from the disk, the rest from memory.
        let both = Both { mem: fs };
        load(&lib, &both, &spec).unwrap_or_else(|e| panic!("{}", e.render()))
    };
    assert!(matches!(
        select::choose(load_from(&renamed), &variants, false),
        Chosen::Native(_)
    ));
    assert!(matches!(
        select::choose(load_from(&edited), &variants, false),
        Chosen::Interpreted(_)
    ));
}

/// Files from memory first, then from the disk.
struct Both {
    mem: hazmat_checker::models::cat::files::InMemory,
}

impl hazmat_checker::models::cat::files::FileSystem for Both {
    fn is_file(&self, path: &Path) -> bool {
        self.mem.is_file(path) || Disk.is_file(path)
    }
    fn read(&self, path: &Path) -> std::io::Result<String> {
        self.mem.read(path).or_else(|_| Disk.read(path))
    }
}
