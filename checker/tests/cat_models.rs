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
//! unless set); `HAZMAT_CAT_STRIDE=1` runs the whole corpus, `HAZMAT_CAT_FOLDER=NAME` one
//! folder, `HAZMAT_CAT_TIMEOUT` sets the budget of each test in seconds (60), and
//! `HAZMAT_CAT_VERBOSE=1` names each test as it starts.
//! Without the corpus or herd7's library, the tests pass having checked nothing, and say so.

#[path = "common/corpus.rs"]
mod corpus;

#[path = "common/scratch.rs"]
mod scratch;
use corpus::{Case, conformance_dir, load_cases};
use hazmat_checker::models::cat::config::{Places, Settings};
use hazmat_checker::models::cat::files::Disk;
use hazmat_checker::models::cat::{CatModel, Library, Spec, load};
use hazmat_checker::report::read;
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
    let mut cfg = Settings::default();
    cfg.read_config(
        &model_dir.join("linux-kernel.cfg").display().to_string(),
        &Places::default(),
        &Disk,
    )
    .unwrap_or_else(|e| panic!("linux-kernel.cfg: {e}"));
    let spec = Spec {
        cat: cfg.model.expect("the cfg names a model"),
        bell: cfg.bell,
        variants: cfg.variants,
        ..Spec::default()
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
        limits: hazmat_checker::engine::enumerate::Limits {
            max_executions: None,
            deadline: Some(std::time::Instant::now() + timeout()),
            ..Default::default()
        },
        speedcheck: false,
        ..Default::default()
    };
    let start = std::time::Instant::now();
    if std::env::var_os("HAZMAT_CAT_VERBOSE").is_some() {
        eprintln!("start: {}", case.key);
    }
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
    let diffs = match read::parse(&text) {
        Ok(actual) => {
            let mut d = read::differences(&case.expected, &actual);
            if d.is_empty() {
                let herd7 = corpus::herd7_output(root, &case.key).unwrap_or_default();
                d.extend(read::first_text_difference(&text, &herd7));
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
        let only = std::env::var("HAZMAT_CAT_FOLDER").unwrap_or_default();
        if k % stride == 0 && (only.is_empty() || only == f) {
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
    use hazmat_checker::models::cat::known::{self, Known};
    use hazmat_checker::models::choose::{self, Chosen};
    let (Some(root), Some(herdlib)) = (conformance_dir(), herdlib()) else {
        eprintln!("conformance corpus or herd7's library not found; nothing to check");
        return;
    };
    let dir = root.join("lkmm-model");
    let variants = vec!["lkmmv2".to_string()];
    let model = lkmm_interpreted(&dir, &herdlib);
    assert!(
        known::is_kernel_model(model.files(), &variants),
        "the kernel's model files changed"
    );
    let def = std::fs::read_to_string(dir.join("linux-kernel.def")).expect("the def file");
    assert_eq!(known::def_file(&def), Some(Known::KernelDef));
    assert!(matches!(
        choose::loaded(model, &variants, false),
        Chosen::Native(_)
    ));
    assert!(matches!(
        choose::loaded(lkmm_interpreted(&dir, &herdlib), &variants, true),
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
            ..Spec::default()
        };
        // herd7's library files come from the disk, the rest from memory.
        let both = Both { mem: fs };
        load(&lib, &both, &spec).unwrap_or_else(|e| panic!("{}", e.render()))
    };
    assert!(matches!(
        choose::loaded(load_from(&renamed), &variants, false),
        Chosen::Native(_)
    ));
    assert!(matches!(
        choose::loaded(load_from(&edited), &variants, false),
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

#[path = "common/cat_oracle.rs"]
mod cat_oracle;
#[path = "common/env.rs"]
mod env;

use cat_oracle::{Answer, ModelFiles, compare, corpus_sample, run_hazmat, run_herd7};
use hazmat_checker::models::cat::ast::{Exp, Instr, Op1, Op2, Role, Span};

/// herd7's library models `sc.cat`, `tso.cat` and `x86tso.cat`, run with the kernel's bell
/// and def files, get the same answers from hazmat's interpreter as from herd7 itself on a
/// sample of the corpus (every `HAZMAT_CAT_LIBRARY_STRIDE`-th file of each folder, 60
/// unless set; 1 for all); herd7 refuses the last two on C tests, and so must hazmat.
/// Where the native `--model sc` applies (no lock, no SRCU), it gives the interpreted
/// `sc.cat`'s verdict, states and witness counts.
#[test]
fn library_models_agree_with_herd7() {
    use rayon::prelude::*;
    let (Some(root), Some(herd7)) = (conformance_dir(), cat_oracle::herd7()) else {
        eprintln!("conformance corpus or herd7 not found; nothing to check");
        return;
    };
    let herdlib = cat_oracle::herdlib(&herd7);
    let files = corpus_sample(&root, env::number("HAZMAT_CAT_LIBRARY_STRIDE", 60));
    // herd7 takes minutes on a few lock tests; those it does not decide in 10 s are left
    // out of the comparison.
    let timeout = std::time::Duration::from_secs(30);
    let mut problems = Vec::new();
    for cat in ["sc.cat", "tso.cat", "x86tso.cat"] {
        let model = ModelFiles {
            dir: root.join("lkmm-model"),
            cat: cat.into(),
            bell: Some("linux-kernel.bell".into()),
            macros: Some("linux-kernel.def".into()),
            variants: Vec::new(),
        };
        let theirs = run_herd7(&herd7, &model, &files, 10.0);
        let ours: Vec<Answer> = match model.load(&herdlib) {
            Ok(m) => files
                .par_iter()
                .map(|f| run_hazmat(&m, f, timeout))
                .collect(),
            Err(e) => files.iter().map(|_| Answer::Error(e.clone())).collect(),
        };
        let decided = theirs
            .iter()
            .filter(|a| matches!(a, Answer::Decided(..)))
            .count();
        let mut disagree = 0;
        for ((f, o), t) in files.iter().zip(&ours).zip(&theirs) {
            if let Some(d) = compare(o, t) {
                disagree += 1;
                problems.push(format!("{cat} {}: {d}", f.display()));
            }
        }
        eprintln!(
            "{cat}: {} files, herd7 decides {decided}, hazmat disagrees on {disagree}",
            files.len()
        );
        if cat == "sc.cat" {
            let native = hazmat_checker::models::sc::Sc;
            let mut compared = 0;
            for (f, o) in files.iter().zip(&ours) {
                let text = std::fs::read_to_string(f).unwrap_or_default();
                if text.contains("spin_") || text.contains("srcu") {
                    continue;
                }
                let Answer::Decided(_, o) = o else { continue };
                let Answer::Decided(_, n) = run_hazmat(&native, f, timeout) else {
                    continue;
                };
                compared += 1;
                let same = (&o.verdict, &o.states, o.positive, o.negative)
                    == (&n.verdict, &n.states, n.positive, n.negative);
                if !same {
                    problems.push(format!(
                        "native sc and sc.cat differ on {}: {} {:?} vs {} {:?}",
                        f.display(),
                        n.verdict,
                        (n.positive, n.negative),
                        o.verdict,
                        (o.positive, o.negative)
                    ));
                }
            }
            eprintln!("sc.cat and native sc compared on {compared} files");
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// One small edit of a model file: replace the bytes `start..end` with `with`.
#[derive(Clone, Debug)]
struct Mutation {
    what: String,
    start: usize,
    end: usize,
    with: &'static str,
}

impl Mutation {
    fn apply(&self, text: &str) -> String {
        format!("{}{}{}", &text[..self.start], self.with, &text[self.end..])
    }
}

/// Every edit of the kinds the differential test makes, in the order of the text: a check
/// dropped, a term dropped from a union, an intersection or a sequence, `r*` weakened to
/// `r?`, `r+` to `r`.
fn mutations(text: &str, model: &hazmat_checker::models::cat::ast::Model) -> Vec<Mutation> {
    fn exp(text: &str, e: &Exp, out: &mut Vec<Mutation>) {
        let s = |sp: Span| (sp.start as usize, sp.end as usize);
        match e {
            Exp::Op(op, args, _) => {
                if matches!(op, Op2::Union | Op2::Inter | Op2::Seq) && args.len() >= 2 {
                    for i in 0..args.len() {
                        let (start, end) = if i == 0 {
                            (s(args[0].span()).0, s(args[1].span()).0)
                        } else {
                            (s(args[i - 1].span()).1, s(args[i].span()).1)
                        };
                        out.push(Mutation {
                            what: format!(
                                "drop `{}`",
                                text[s(args[i].span()).0..s(args[i].span()).1].trim()
                            ),
                            start,
                            end,
                            with: "",
                        });
                    }
                }
                for a in args {
                    exp(text, a, out);
                }
            }
            Exp::Op1(op, a, sp) => {
                let (_, end) = s(*sp);
                match op {
                    Op1::Star if text[..end].ends_with('*') => out.push(Mutation {
                        what: format!("`*` to `?` at byte {}", end - 1),
                        start: end - 1,
                        end,
                        with: "?",
                    }),
                    Op1::Plus if text[..end].ends_with('+') => out.push(Mutation {
                        what: format!("drop `+` at byte {}", end - 1),
                        start: end - 1,
                        end,
                        with: "",
                    }),
                    _ => {}
                }
                exp(text, a, out);
            }
            Exp::App(f, a, _) => {
                exp(text, f, out);
                exp(text, a, out);
            }
            Exp::Let(bs, body, _) | Exp::LetRec(bs, body, _) => {
                for b in bs {
                    exp(text, &b.exp, out);
                }
                exp(text, body, out);
            }
            Exp::Fun(_, body, _) => exp(text, body, out),
            Exp::Tuple(args, _) | Exp::Set(args, _) => {
                for a in args {
                    exp(text, a, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for i in &model.instrs {
        match i {
            Instr::Check {
                role: Role::Check,
                span,
                name,
                exp: e,
                ..
            } => {
                out.push(Mutation {
                    what: format!("drop the check {}", name.as_deref().unwrap_or("?")),
                    start: span.start as usize,
                    end: span.end as usize,
                    with: "",
                });
                exp(text, e, &mut out);
            }
            Instr::Check { exp: e, .. } => exp(text, e, &mut out),
            Instr::Let { bindings, .. } | Instr::LetRec { bindings, .. } => {
                for b in bindings {
                    exp(text, &b.exp, &mut out);
                }
            }
            _ => {}
        }
    }
    out
}

/// Model edits: `linux-kernel.cat` changed in small ways (see [`mutations`]), each run by
/// herd7 and by hazmat's interpreter on a fixed sample of the corpus (the kernel's own
/// litmus tests, `tools-memory-model` and `kernel-doc`), must get the same answers.
/// `HAZMAT_CAT_MUTATIONS` edits are tried, evenly spread over all those possible (3 unless
/// set; offline, 60 or more).
#[test]
fn edited_lkmm_agrees_with_herd7() {
    use rayon::prelude::*;
    let (Some(root), Some(herd7)) = (conformance_dir(), cat_oracle::herd7()) else {
        eprintln!("conformance corpus or herd7 not found; nothing to check");
        return;
    };
    let herdlib = cat_oracle::herdlib(&herd7);
    let model_dir = root.join("lkmm-model");
    let cat = std::fs::read_to_string(model_dir.join("linux-kernel.cat")).expect("the cat file");
    let tree = hazmat_checker::models::cat::parse(&cat, 0).expect("the kernel's model parses");
    let normal = hazmat_checker::models::cat::normalized(&cat);
    // The edits that still parse and change the model.
    let all: Vec<Mutation> = mutations(&cat, &tree)
        .into_iter()
        .filter(|m| {
            let t = m.apply(&cat);
            hazmat_checker::models::cat::parse(&t, 0).is_ok()
                && hazmat_checker::models::cat::normalized(&t) != normal
        })
        .collect();
    assert!(all.len() >= 60, "only {} edits of the model", all.len());
    let wanted = env::number("HAZMAT_CAT_MUTATIONS", 3).clamp(1, all.len());
    let chosen: Vec<&Mutation> = (0..wanted).map(|k| &all[k * all.len() / wanted]).collect();
    let mut files = Vec::new();
    for folder in ["tools-memory-model", "kernel-doc"] {
        files.extend(hazmat_checker::testkit::harness::litmus_files(
            root.join(folder),
        ));
    }
    let tmp = scratch::folder("cat-mutants");
    let mut problems = Vec::new();
    let mut differing_from_lkmm = 0;
    for (k, m) in chosen.iter().enumerate() {
        let dir = tmp.join(format!("m{k}"));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        for f in [
            "linux-kernel.bell",
            "linux-kernel.def",
            "linux-kernel.cfg",
            "lock.cat",
        ] {
            std::fs::copy(model_dir.join(f), dir.join(f)).expect("a model file copies");
        }
        std::fs::write(dir.join("linux-kernel.cat"), m.apply(&cat)).expect("the mutant");
        let model = ModelFiles {
            dir: dir.clone(),
            cat: "linux-kernel.cat".into(),
            bell: Some("linux-kernel.bell".into()),
            macros: Some("linux-kernel.def".into()),
            variants: vec!["lkmmv2".into()],
        };
        let theirs = run_herd7(&herd7, &model, &files, 60.0);
        let mutant = model
            .load(&herdlib)
            .unwrap_or_else(|e| panic!("{}: {e}", m.what));
        let ours: Vec<Answer> = files
            .par_iter()
            .map(|f| run_hazmat(&mutant, f, std::time::Duration::from_secs(60)))
            .collect();
        let native: Vec<Answer> = files
            .par_iter()
            .map(|f| {
                run_hazmat(
                    &hazmat_checker::models::lkmm::Lkmm,
                    f,
                    std::time::Duration::from_secs(60),
                )
            })
            .collect();
        let changed = ours.iter().zip(&native).filter(|(a, b)| a != b).count();
        if changed > 0 {
            differing_from_lkmm += 1;
        }
        let mut disagree = 0;
        for ((f, o), t) in files.iter().zip(&ours).zip(&theirs) {
            if let Some(d) = compare(o, t) {
                disagree += 1;
                problems.push(format!("{}: {}: {d}", m.what, f.display()));
            }
        }
        eprintln!(
            "edit {k} ({}): {changed} of {} answers change, {disagree} disagreements",
            m.what,
            files.len()
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
    eprintln!(
        "{} edits tried of {} possible; {differing_from_lkmm} change some answer",
        chosen.len(),
        all.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A `let rec` of values is iterated as herd7 iterates it, each binding seeing the values
/// the bindings before it got in the same round: the bell file's matching of RCU critical
/// sections, which is not monotone, pairs two sections in a row each with its own unlock
/// only so. (Iterating all the bindings from the previous round's values also matched the
/// first lock with the second unlock, and lost three states of herdtools' catalogue test
/// `C-RomanPenyaev-list-rcu-rr`.)
#[test]
fn a_fixpoint_sees_the_values_of_the_bindings_before_it() {
    use hazmat_checker::models::cat::files::InMemory;
    // The tags' sets come from a bell's `instructions`, as in herd7.
    let bell = "\"sections\"\nenum Barriers = 'rcu-lock || 'rcu-unlock\ninstructions F[Barriers]\n";
    let model = r#""sections"
let rscs = let rec
      ul = Rcu-lock \ domain(matched)
  and uu = Rcu-unlock \ range(matched)
  and um = ul | uu
  and upo = [um] ; po ; [um]
  and ultu = [ul] ; po ; [uu]
  and matched = matched | (ultu \ (upo ; upo))
  in matched
flag ~empty rscs & (po ; [Rcu-unlock] ; po) as cross-matched
flag ~empty Rcu-lock \ domain(rscs) as unmatched
"#;
    let test = "C two-sections
{}
P0(int *x) { rcu_read_lock(); WRITE_ONCE(*x, 1); rcu_read_unlock(); rcu_read_lock(); rcu_read_unlock(); }
exists (x=1)
";
    let fs = InMemory::new()
        .with("sections.cat", model)
        .with("sections.bell", bell);
    let spec = Spec {
        cat: "sections.cat".into(),
        bell: Some("sections.bell".into()),
        ..Spec::default()
    };
    let m = load(&Library::new(), &fs, &spec).unwrap_or_else(|e| panic!("{}", e.render()));
    let checked = hazmat_checker::check_source(test, &m, &hazmat_checker::Options::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(checked.outcome.flags, Vec::<&str>::new());
    assert_eq!(checked.outcome.positive, 1);
}

/// A thread that takes a spinlock it holds, under herd7's `sc.cat` (which, unlike the
/// LKMM, does not include `lock.cat` and its `lock-nest` check): herd7 allows the
/// execution (`Always 1 0`). Found by `library_models_agree_with_herd7` on the whole
/// corpus (`paulmck-manual/locked/self-deadlock.litmus`), when the enumeration removed
/// such runs before a model that completes candidates itself could see them.
#[test]
fn a_self_deadlock_under_sc_cat_is_allowed_as_herd7_allows_it() {
    let (Some(root), Some(herd7)) = (conformance_dir(), cat_oracle::herd7()) else {
        eprintln!("conformance corpus or herd7 not found; nothing to check");
        return;
    };
    let herdlib = cat_oracle::herdlib(&herd7);
    let test = "C relock
{}
P0(spinlock_t *l, int *x)
{
	spin_lock(l);
	WRITE_ONCE(*x, 1);
	spin_lock(l);
}
exists (x=1)
";
    let dir = scratch::folder("relock");
    let file = dir.join("relock.litmus");
    std::fs::write(&file, test).expect("the test");
    let model = ModelFiles {
        dir: root.join("lkmm-model"),
        cat: "sc.cat".into(),
        bell: Some("linux-kernel.bell".into()),
        macros: Some("linux-kernel.def".into()),
        variants: vec!["lkmmv2".into()],
    };
    let theirs = run_herd7(&herd7, &model, std::slice::from_ref(&file), 10.0);
    let sc = model.load(&herdlib).unwrap_or_else(|e| panic!("{e}"));
    let ours = run_hazmat(&sc, &file, std::time::Duration::from_secs(10));
    let _ = std::fs::remove_dir_all(&dir);
    let summary = |a: &Answer| match a {
        Answer::Decided(_, s) => format!("{} {} {}", s.verdict, s.positive, s.negative),
        other => format!("{other:?}"),
    };
    assert_eq!(summary(&theirs[0]), "Always 1 0", "herd7's answer");
    assert_eq!(summary(&ours), "Always 1 0", "hazmat's answer");
}

/// The interpreted LKMM against the native one on programs of the generator's LKMM
/// vocabulary (every access and fence kind, RMWs, locks, RCU and SRCU, loops): the same
/// states, witnesses and flags. The native model is held to herd7 by the oracle test, so
/// this holds the interpreter's staging and reuse to herd7 on programs no corpus has,
/// without running herd7. `HAZMAT_CAT_GENERATED` programs (1,000 unless set; thousands
/// offline), from the seed `HAZMAT_CAT_SEED` (the clock's unless set, printed).
#[test]
fn interpreted_lkmm_agrees_with_the_native_one_on_generated_programs() {
    use hazmat_checker::testkit::generate::{self, Config};
    use rayon::prelude::*;
    let (Some(root), Some(herdlib)) = (conformance_dir(), herdlib()) else {
        eprintln!("conformance corpus or herd7's library not found; nothing to check");
        return;
    };
    let interpreted = lkmm_interpreted(&root.join("lkmm-model"), &herdlib);
    let cases = env::number("HAZMAT_CAT_GENERATED", 1000);
    let seed: u64 = std::env::var("HAZMAT_CAT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        });
    eprintln!("{cases} programs from seed {seed} (HAZMAT_CAT_SEED={seed} reruns them)");
    let answer = |model: &dyn hazmat_checker::models::model::MemoryModel, text: &str| {
        let options = hazmat_checker::Options {
            limits: hazmat_checker::engine::enumerate::Limits {
                max_executions: None,
                deadline: Some(std::time::Instant::now() + std::time::Duration::from_secs(20)),
                ..Default::default()
            },
            speedcheck: false,
            ..Default::default()
        };
        match hazmat_checker::check_source(text, model, &options) {
            Ok(c) if c.outcome.unknown.is_none() => {
                Some(Ok(cat_oracle::without_time(&c.herd_text())))
            }
            Ok(_) => None,
            Err(e) => Some(Err(e.to_string())),
        }
    };
    // Per program: whether both decided it, and the disagreement if any.
    let results: Vec<(bool, Option<String>)> = (0..cases as u64)
        .into_par_iter()
        .map(|k| {
            let s = seed.wrapping_add(k);
            let sketch = generate::from_seed(s, Config::lkmm());
            let text = hazmat_litmus::print(&sketch.to_test(&format!("G{s:016x}")));
            let (Some(native), Some(ours)) = (
                answer(&hazmat_checker::models::lkmm::Lkmm, &text),
                answer(&interpreted, &text),
            ) else {
                return (false, None);
            };
            let problem = (native != ours)
                .then(|| format!("seed {s}:\n{text}\nnative: {native:?}\ninterpreted: {ours:?}"));
            (true, problem)
        })
        .collect();
    let compared = results.iter().filter(|r| r.0).count();
    let problems: Vec<&String> = results.iter().filter_map(|r| r.1.as_ref()).collect();
    eprintln!(
        "{compared} of {cases} programs decided by both; {} disagree",
        problems.len()
    );
    assert!(
        compared * 10 >= cases * 9,
        "only {compared} of {cases} programs decided"
    );
    assert!(
        problems.is_empty(),
        "{}",
        problems
            .iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}

/// The project's C11 litmus files that herd7's answer is kept for: `litmus/tests/c11/` and
/// the C11 regressions with herd7's output beside them (the regressions still open, with a
/// FIXME and no `.expected` file, are left out).
fn c11_files(litmus: &Path) -> Vec<PathBuf> {
    let mut files = hazmat_checker::testkit::harness::litmus_files(litmus.join("c11"));
    files.extend(
        hazmat_checker::testkit::harness::litmus_files(litmus.join("regressions"))
            .into_iter()
            .filter(|f| {
                f.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("c11-"))
            })
            .filter(|f| f.with_extension("litmus.expected").is_file()),
    );
    files
}

/// RC11 three ways on the C11 litmus files of the project (`litmus/tests/c11/`, the hazptr
/// twins of `litmus/tests/hazptr-c11/` and the C11 regressions that hazmat passes): herd7
/// running `rc11.cat` with its C11 macros, hazmat's interpreter running the same file in the
/// C11 dialect, and hazmat's native RC11 give one answer, line for line.
#[test]
fn rc11_interpreted_and_native_agree_with_herd7() {
    let Some(herd7) = cat_oracle::herd7() else {
        eprintln!("herd7 not found; nothing to check");
        return;
    };
    let herdlib = cat_oracle::herdlib(&herd7);
    let litmus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../litmus/tests");
    let mut files = c11_files(&litmus);
    files.extend(hazmat_checker::testkit::harness::litmus_files(
        litmus.join("hazptr-c11"),
    ));
    files.retain(|f| {
        // Those where herd7 7.58 loses executions to its solver are left out: their
        // `.expected` files hold hazmat's count, which the litmus harness holds both of
        // hazmat's RC11s to, and `tests/oracle.rs` checks that herd7 still loses them.
        !std::fs::read_to_string(f).is_ok_and(|t| t.contains("herd7 7.58's output, for the record"))
    });
    assert!(files.len() >= 37, "the C11 litmus files are missing");
    let model = ModelFiles {
        dir: herdlib.clone(),
        cat: "rc11.cat".into(),
        bell: None,
        macros: Some("c11.def".into()),
        variants: Vec::new(),
    };
    let theirs = run_herd7(&herd7, &model, &files, 30.0);
    let interpreted = model
        .load(&herdlib)
        .expect("rc11.cat loads")
        .in_dialect(hazmat_checker::front::lower::Dialect::C11);
    let native = hazmat_checker::models::rc11::Rc11;
    let timeout = std::time::Duration::from_secs(30);
    let mut problems = Vec::new();
    for (f, t) in files.iter().zip(&theirs) {
        assert!(
            matches!(t, Answer::Decided(..)),
            "herd7 decides {}: {t:?}",
            f.display()
        );
        for (name, m) in [
            (
                "interpreted",
                &interpreted as &dyn hazmat_checker::models::model::MemoryModel,
            ),
            (
                "native",
                &native as &dyn hazmat_checker::models::model::MemoryModel,
            ),
        ] {
            if let Some(d) = compare(&run_hazmat(m, f, timeout), t) {
                problems.push(format!("{name} rc11 on {}: {d}", f.display()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// herd7's other C11 models, each a whole model (the Batty, Donaldson and Wickerson models
/// `c11_orig.cat`, `c11_partialSC.cat` and `c11_simp.cat`, and `simple-c11.cat`), run by
/// the interpreter in the C11 dialect, where it sees each read-modify-write as herd7's one
/// event: herd7's answer, line for line, on the project's C11 litmus files (the C11
/// regressions included) and on
/// generated C11 programs (`HAZMAT_CAT_C11_GENERATED` a model, 50 unless set, from seed
/// `HAZMAT_CAT_C11_SEED`, 1 unless set).
#[test]
fn c11_models_interpreted_agree_with_herd7() {
    let Some(herd7) = cat_oracle::herd7() else {
        eprintln!("herd7 not found; nothing to check");
        return;
    };
    let herdlib = cat_oracle::herdlib(&herd7);
    let litmus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../litmus/tests");
    let mut files = c11_files(&litmus);
    // On this one herd7 7.58's solver loses candidates that hazmat keeps (see its comment).
    files.retain(|f| !f.ends_with("c11-cas-write-back-chain-expected-is-object.litmus"));
    let generated = env::number("HAZMAT_CAT_C11_GENERATED", 50);
    let seed = env::number::<u64>("HAZMAT_CAT_C11_SEED", 1);
    let dir = scratch::folder("c11-models");
    let config = hazmat_checker::testkit::generate::Config {
        max_size: 6,
        ..hazmat_checker::testkit::generate::Config::c11()
    };
    for i in 0..generated as u64 {
        let name = format!("G{:016x}", seed + i);
        let sketch = hazmat_checker::testkit::generate::from_seed(seed + i, config.clone());
        let file = dir.join(format!("{name}.litmus"));
        std::fs::write(&file, hazmat_litmus::print(&sketch.to_test(&name)))
            .expect("a scratch file");
        files.push(file);
    }
    let mut decided = 0;
    let problems = c11_models_against_herd7(
        &herd7,
        &herdlib,
        &[
            "c11_orig.cat",
            "c11_partialSC.cat",
            "c11_simp.cat",
            "simple-c11.cat",
        ],
        &files,
        |t| decided += usize::from(matches!(t, Answer::Decided(..))),
    );
    // The generated programs stay where they were written when one of them disagrees.
    if problems
        .iter()
        .all(|p| !p.contains(&*dir.to_string_lossy()))
    {
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        decided * 10 >= files.len() * 4 * 8,
        "herd7 decides only {decided} of {} runs",
        files.len() * 4
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// herd7's library model `cat` of the C11 dialect with `c11.def`, as herd7 runs it: its
/// files, and hazmat's model of them in the C11 dialect.
fn c11_model(herdlib: &Path, cat: &str) -> (ModelFiles, CatModel) {
    let files = ModelFiles {
        dir: herdlib.to_path_buf(),
        cat: cat.into(),
        bell: None,
        macros: Some("c11.def".into()),
        variants: Vec::new(),
    };
    let model = files
        .load(herdlib)
        .unwrap_or_else(|e| panic!("{cat} loads: {e}"))
        .in_dialect(hazmat_checker::front::lower::Dialect::C11);
    (files, model)
}

/// Each of herd7's C11 models `cats` on `files`, herd7 (10 s a file) against hazmat (30
/// s): the differences, each naming the model and the file; `each` sees herd7's answer of
/// every run.
fn c11_models_against_herd7(
    herd7: &Path,
    herdlib: &Path,
    cats: &[&str],
    files: &[PathBuf],
    mut each: impl FnMut(&Answer),
) -> Vec<String> {
    let timeout = std::time::Duration::from_secs(30);
    let mut problems = Vec::new();
    for cat in cats {
        let (model, ours) = c11_model(herdlib, cat);
        let theirs = run_herd7(herd7, &model, files, 10.0);
        for (f, t) in files.iter().zip(&theirs) {
            each(t);
            if let Some(d) = compare(&run_hazmat(&ours, f, timeout), t) {
                problems.push(format!("{cat} on {}: {d}", f.display()));
            }
        }
    }
    problems
}

/// A value out of thin air prints under herd7's name under the C11 models that allow one,
/// through compare-exchanges that fail and succeed (`engine::symbol` replays herd7's count
/// of fresh values through them): herd7's answer, line for line, on the C11 regressions
/// about those names, under `c11_cos.cat` and the models of `c11_base.cat`.
#[test]
fn thin_air_names_through_compare_exchanges_are_herd7s() {
    let Some(herd7) = cat_oracle::herd7() else {
        eprintln!("herd7 not found; nothing to check");
        return;
    };
    let herdlib = cat_oracle::herdlib(&herd7);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../litmus/tests/regressions");
    let files: Vec<PathBuf> = [
        "c11-cas-thin-air-symbol-name.litmus",
        "c11-cas-thin-air-name-counts-failure-first.litmus",
        "c11-cas-thin-air-name-after-success.litmus",
        "c11-cas-thin-air-name-of-a-reader.litmus",
    ]
    .iter()
    .map(|f| dir.join(f))
    .collect();
    let mut symbols = 0;
    let problems = c11_models_against_herd7(
        &herd7,
        &herdlib,
        &[
            "c11_cos.cat",
            "c11_partialSC.cat",
            "c11_orig.cat",
            "c11_simp.cat",
        ],
        &files,
        |t| {
            if let Answer::Decided(text, _) = t {
                symbols += usize::from(text.contains("=S"));
            }
        },
    );
    assert!(
        symbols >= 3,
        "herd7 shows a value out of thin air on {symbols} runs"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Where values go round a cycle that only a successful compare-exchange's expected value
/// solves, hazmat solves it as herd7's equations do (`engine::enumerate::unify`), under the
/// C11 models that allow such cycles: herd7 7.58's counts, from hazmat's own library, with
/// no warning. These four files were the unification class, with fewer executions in
/// hazmat (270 against 282, 29 against 32, 78 against 82, a final state fewer...).
#[test]
fn cycles_solved_through_an_exchanges_expected_value_are_herd7s() {
    let regressions = Path::new(env!("CARGO_MANIFEST_DIR")).join("../litmus/tests/regressions");
    // herd7 7.58's `States` and `Observation` lines, with `-macros c11.def`.
    let expected = [
        (
            "c11-models-rmw-reads-write-back",
            "c11_cos.cat",
            2,
            "Never 0 282",
        ),
        (
            "c11-models-rmw-reads-write-back",
            "c11_partialSC.cat",
            2,
            "Never 0 32",
        ),
        (
            "c11-models-rmw-reads-write-back",
            "simple-c11.cat",
            2,
            "Never 0 16",
        ),
        (
            "c11-cas-on-its-own-expected-location",
            "c11_cos.cat",
            2,
            "Sometimes 8 82",
        ),
        (
            "c11-cas-on-its-own-expected-location",
            "c11_orig.cat",
            2,
            "Sometimes 1 8",
        ),
        (
            "c11-cos-state-lost-to-an-unsolved-cycle",
            "c11_cos.cat",
            6,
            "Sometimes 80 1042",
        ),
        (
            "c11-cos-executions-lost-to-an-unsolved-cycle",
            "c11_cos.cat",
            9,
            "Sometimes 132 52",
        ),
    ];
    for (name, cat, states, observation) in expected {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_hazmat"))
            .args(["herd7", "-model", cat, "-macros", "c11.def"])
            .arg(regressions.join(format!("{name}.litmus")))
            .env_remove("HERDLIB")
            .output()
            .expect("hazmat runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stdout.contains(&format!("\nStates {states}\n"))
                && stdout.contains(&format!("Observation {name} {observation}\n")),
            "{name} under {cat}: herd7 7.58 prints States {states}, {observation}:\n{stdout}"
        );
        assert!(!stderr.contains("warning"), "{name} under {cat}: {stderr}");
    }
}

/// A failed `atomic_add_unless` equates its read with its limit in herd7's equations, as
/// a successful exchange equates its read with its expected value: under a model with no
/// checks, the cycle of values through the exchange of
/// `add-unless-failed-limit-solves-a-cycle.litmus` is solved through it.
#[test]
fn cycles_solved_through_a_failed_add_unless_limit_are_herd7s() {
    let Some(root) = conformance_dir() else {
        eprintln!("conformance corpus not found; nothing to check");
        return;
    };
    let kernel = root.join("lkmm-model");
    let dir = scratch::folder("no-checks");
    let cat = dir.join("no-checks.cat");
    std::fs::write(&cat, "\"no checks\"\n").expect("the model");
    let name = "add-unless-failed-limit-solves-a-cycle";
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../litmus/tests/regressions")
        .join(format!("{name}.litmus"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hazmat"))
        .arg("herd7")
        .arg("-bell")
        .arg(kernel.join("linux-kernel.bell"))
        .arg("-macros")
        .arg(kernel.join("linux-kernel.def"))
        .arg("-model")
        .arg(&cat)
        .arg(&file)
        .env_remove("HERDLIB")
        .output()
        .expect("hazmat runs");
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    // herd7 7.58's `States` and `Observation` lines, and the state it adds.
    assert!(
        stdout.contains("\nStates 6\n")
            && stdout.contains("\n0:r0=2; 0:r1=2; 0:r2=0; 1:r0=0; [x]=2;\n")
            && stdout.contains(&format!("Observation {name} Never 0 8\n")),
        "herd7 7.58 prints States 6, Never 0 8:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
