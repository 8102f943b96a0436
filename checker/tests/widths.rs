//! The engine at every width gives the same answers: event sets and relations are as wide
//! as each execution needs (`relation::WIDTHS`, then the growable width past the widest),
//! and a test past one word (128 events), or past the widest fixed width (1,024 events), is
//! decided as a small one is.

use hazmat_checker::engine::enumerate::Limits;
use hazmat_checker::models::model::MemoryModel;
use hazmat_checker::testkit::generate::families;
use hazmat_checker::{Checked, Options, check_source, model, testkit::harness::litmus_files};
use std::path::{Path, PathBuf};

#[path = "common/env.rs"]
mod env;
#[path = "common/generated.rs"]
mod generated;
#[path = "common/untimed.rs"]
mod untimed;

/// herd7's output without its `Time` line, with the enumeration's counts.
fn answer(c: &Checked) -> String {
    let mut s = untimed::untimed(&c.herd_text());
    s.push_str(&format!("{:?}\n", c.outcome.stats));
    s
}

/// The whole enumeration at `min_width` or wider: a test that splits into pieces is not
/// split, since these tests hold the enumeration's widths to each other.
fn options(min_width: usize, speedcheck: bool) -> Options {
    Options {
        limits: Limits {
            min_width,
            ..Default::default()
        },
        speedcheck,
        whole: true,
        every_image: false,
        ..Default::default()
    }
}

/// A width past the widest fixed one, which asks for the growable width.
const GROWABLE: usize = 16;

/// Checks that `file` under `m` gives at each of `widths` the output, counts or error it
/// gives at the narrowest width.
fn same_answers_at_every_width(file: &Path, m: &dyn MemoryModel, widths: &[usize]) {
    let source = std::fs::read_to_string(file).expect("readable");
    let narrow = check_source(&source, m, &options(0, false));
    for &width in widths {
        let wide = check_source(&source, m, &options(width, false));
        match (&narrow, &wide) {
            (Ok(n), Ok(w)) => assert_eq!(answer(n), answer(w), "{} at {width}", file.display()),
            (Err(n), Err(w)) => {
                assert_eq!(
                    n.to_string(),
                    w.to_string(),
                    "{} at {width}",
                    file.display()
                )
            }
            _ => panic!(
                "{} at {width}: one width failed, the other did not",
                file.display()
            ),
        }
    }
}

/// Every shipped litmus file, under the model its folder is judged by, gives the same
/// output and the same counts at every width, the growable one included (asked for by a
/// width past the widest fixed one).
#[test]
fn every_width_gives_the_shipped_corpus_the_same_answers() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../litmus/tests");
    let lkmm = model("lkmm").expect("lkmm");
    let rc11 = model("rc11").expect("rc11");
    let mut compared = 0;
    for file in litmus_files(dir) {
        let m = if file.to_string_lossy().contains("c11") {
            rc11.as_ref()
        } else {
            lkmm.as_ref()
        };
        let widths: Vec<usize> = hazmat_checker::exec::relation::WIDTHS
            .into_iter()
            .skip(1)
            .chain([GROWABLE])
            .collect();
        same_answers_at_every_width(&file, m, &widths);
        compared += 1;
    }
    assert!(compared > 100, "only {compared} files compared");
}

/// The folder named by `var`, else `default` beside the repository, if it holds `marker`.
fn shared_dir(var: &str, default: &str, marker: &str) -> Option<PathBuf> {
    let dir = match std::env::var_os(var) {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join(default),
    };
    dir.join(marker).is_file().then_some(dir)
}

/// Model files give the shipped litmus files the same answers at one word, at two and at
/// the growable width, as the interpreter runs at each execution's width: the model
/// written for this test ([`CHECKS`]) on the kernel's files, and, when herd7's library
/// (`$HAZMAT_HERDLIB`) and the conformance corpus (`$HAZMAT_CONFORMANCE`) are present, the
/// kernel's own model files from the corpus on the kernel's files and herd7's `rc11.cat`
/// in the C11 dialect on the C11 files.
#[test]
fn every_width_gives_model_files_the_same_answers() {
    use hazmat_checker::models::cat::config::{Places, Settings};
    use hazmat_checker::models::cat::files::Disk;
    use hazmat_checker::models::cat::{Library, Spec, load};
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../litmus/tests");
    let (c11, kernel): (Vec<PathBuf>, Vec<PathBuf>) = litmus_files(dir)
        .into_iter()
        .partition(|f| f.to_string_lossy().contains("c11"));
    let orders = in_memory_model("orders.cat", &format!("\"orders\"\n{ORDERS}{CHECKS}"));
    let mut runs: Vec<(Box<dyn MemoryModel>, &[PathBuf])> = vec![(Box::new(orders), &kernel)];
    let herdlib = shared_dir("HAZMAT_HERDLIB", "../../shared/oracle/herd", "stdlib.cat");
    let corpus = shared_dir(
        "HAZMAT_CONFORMANCE",
        "../../shared/conformance",
        "README.md",
    );
    match (&herdlib, &corpus) {
        (Some(herdlib), Some(corpus)) => {
            let model_dir = corpus.join("lkmm-model");
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
            let library = Library::new().include(&model_dir).include(herdlib);
            let lkmm = load(&library, &Disk, &spec).unwrap_or_else(|e| panic!("{}", e.render()));
            runs.push((Box::new(lkmm), &kernel));
            let spec = Spec {
                cat: "rc11.cat".into(),
                bell: None,
                variants: Vec::new(),
                ..Spec::default()
            };
            let rc11 = load(&Library::new().include(herdlib), &Disk, &spec)
                .unwrap_or_else(|e| panic!("{}", e.render()))
                .in_dialect(hazmat_checker::front::lower::Dialect::C11);
            runs.push((Box::new(rc11), &c11));
        }
        _ => eprintln!(
            "herd7's library or the conformance corpus not found; the kernel's model files and rc11.cat not checked"
        ),
    }
    let mut compared = 0;
    for (m, files) in &runs {
        for file in files.iter() {
            same_answers_at_every_width(file, m.as_ref(), &[2, GROWABLE]);
            compared += 1;
        }
    }
    assert!(compared > 80, "only {compared} files compared");
}

/// Message passing padded with a thread that writes 150 locations of its own: past one
/// word of events, and answered as the test without the padding, in full and in a speed
/// check.
#[test]
fn a_test_past_one_word_is_answered_as_its_core() {
    let (core, padded) = padded_mp();
    let lkmm = model("lkmm").expect("lkmm");
    for speedcheck in [false, true] {
        let small = check_source(&core, lkmm.as_ref(), &options(0, speedcheck)).expect("core");
        let large = check_source(&padded, lkmm.as_ref(), &options(0, speedcheck)).expect("padded");
        let observation = |c: &Checked| {
            c.herd_text()
                .lines()
                .filter(|l| !l.starts_with("Time ") && !l.starts_with("Hash="))
                .map(|l| format!("{l}\n"))
                .collect::<String>()
        };
        assert_eq!(observation(&small), observation(&large));
        assert!(observation(&large).contains("Observation MP Never 0 "));
        assert_eq!(
            small.outcome.stats.candidates,
            large.outcome.stats.candidates
        );
    }
}

/// A value-passing chain of 101 links (305 events) is decided by the speed check, with the
/// witness that carries the value to the end.
#[test]
fn a_chain_of_three_hundred_events_is_decided() {
    let lkmm = model("lkmm").expect("lkmm");
    let c = check_source(
        &families::value_chain(100),
        lkmm.as_ref(),
        &options(0, true),
    )
    .expect("the chain is checked");
    let text = c.herd_text();
    assert!(
        text.contains("Observation value-chain-100 Sometimes 1 0"),
        "{text}"
    );
}

/// Past the widest fixed width, the engine goes on with growable sets: a value-passing chain
/// of 400 links (1,205 events) is decided whole by the speed check, with the witness that
/// carries the value to the end, and a read-write chain of 345 threads (1,037 events) is
/// proved to have no witness.
#[test]
fn a_test_past_the_widest_fixed_width_is_decided() {
    let lkmm = model("lkmm").expect("lkmm");
    for (family, n, observation) in [
        (
            "value-chain",
            400,
            "Observation value-chain-400 Sometimes 1 0",
        ),
        ("rw-chain", 345, "Observation rw-chain-345 Never 0 0"),
    ] {
        let source = families::family(family, n).expect("a family");
        let c = check_source(&source, lkmm.as_ref(), &options(0, true))
            .unwrap_or_else(|e| panic!("{family} {n}: {e}"));
        let text = c.herd_text();
        assert!(text.contains(observation), "{text}");
    }
}

/// A model file judges a test past one word (128 events) as it judges a small one, and as
/// the native models do: message passing padded past one word with a thread that writes
/// 150 locations of its own gets, in full and in a speed check, the answer and the counts
/// of the test without the padding, under a model that forbids only cycles of `po | rf`
/// and under a model file of sequential consistency, which answers as the native one.
#[test]
fn a_model_file_decides_a_test_past_one_word() {
    let lb = in_memory_model("lb.cat", "\"lb\"\nacyclic po | rf as lb\n");
    let small = check_source(&families::value_chain(3), &lb, &options(0, false))
        .expect("a small chain is checked");
    assert!(
        small
            .herd_text()
            .contains("Observation value-chain-3 Sometimes 1 15")
    );
    let sc_file = in_memory_model("sc.cat", &format!("\"sc\"\n{ORDERS}{SC}"));
    let sc = model("sc").expect("sc");
    let (core, padded) = padded_mp();
    let text = |c: &Checked| {
        c.herd_text()
            .lines()
            .filter(|l| !l.starts_with("Time ") && !l.starts_with("Hash="))
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    };
    for speedcheck in [false, true] {
        for (m, observation) in [
            (&lb as &dyn MemoryModel, "Observation MP Sometimes 1 "),
            (&sc_file, "Observation MP Never 0 "),
        ] {
            let small = check_source(&core, m, &options(0, speedcheck)).expect("core");
            let large = check_source(&padded, m, &options(0, speedcheck))
                .unwrap_or_else(|e| panic!("157 events under a model file: {e}"));
            assert_eq!(text(&small), text(&large));
            assert!(text(&large).contains(observation), "{}", text(&large));
            assert_eq!(
                small.outcome.stats.candidates,
                large.outcome.stats.candidates
            );
        }
        let native = check_source(&padded, sc.as_ref(), &options(0, speedcheck)).expect("sc");
        let interpreted = check_source(&padded, &sc_file, &options(0, speedcheck)).expect("sc.cat");
        assert_eq!(text(&native), text(&interpreted));
    }
}

/// A model compiled from one file held in memory.
fn in_memory_model(name: &str, text: &str) -> hazmat_checker::models::cat::CatModel {
    use hazmat_checker::models::cat::files::InMemory;
    use hazmat_checker::models::cat::{Library, Spec, load};
    let fs = InMemory::new().with(format!("m/{name}"), text);
    let spec = Spec {
        cat: name.into(),
        bell: None,
        variants: Vec::new(),
        ..Spec::default()
    };
    load(&Library::new().include("m"), &fs, &spec).unwrap_or_else(|e| panic!("{}", e.render()))
}

/// The coherence orders of an execution, for a model file to choose from (`with co from
/// ...`): for each location, every order of its writes that extends `co0` (the initial
/// write first, the final write last), through recursive functions over sets.
const ORDERS: &str = r#"let rec unions s = match s with
  || {} -> {}
  || x ++ rest -> x | unions rest
  end
let rec orders ws = match ws with
  || {} -> { 0 }
  || w ++ rest ->
     let os = orders rest in
     unions (map (fun l -> map (fun o -> l | o) os) (linearisations(w, co0)))
  end
with co from orders (classes-loc W)
let fr = (rf^-1 ; co) \ id
"#;

/// Sequential consistency, after [`ORDERS`].
const SC: &str = "acyclic po | rf | co | fr as sc\n";

/// A model written for this test, after [`ORDERS`], which takes the interpreter through
/// its values: sequences with restrictions, closures, a fixpoint, inverses, complements,
/// `fencerel`, `domain` and flags.
const CHECKS: &str = r#"let com = rf | co | fr
acyclic po-loc | com as coherence
empty rmw & ((fr & ext) ; (co & ext)) as atomic
let ppo = ([R] ; po ; [M]) | ([W] ; po ; [W]) | ([M] ; fencerel(F) ; [M])
let rec hb = ppo | rfe | (hb ; hb)
acyclic hb | co | fr as order
let rec prop = (co | fr) ; hb? | (prop ; prop)
irreflexive prop ; hb* as propagation
flag ~empty ([R] ; po ; [R]) & loc & ~(rf^-1 ; rf) as different-reads
flag ~empty (IW & ~domain(co | rf)) as untouched
"#;

/// Message passing, and the same test padded with a thread that writes 150 locations of
/// its own: past one word of events.
fn padded_mp() -> (String, String) {
    let core_threads = "P0(int *x, int *y)\n{\n\tWRITE_ONCE(*x, 1);\n\tsmp_store_release(y, 1);\n}\n\n\
         P1(int *x, int *y)\n{\n\tint r0;\n\tint r1;\n\n\tr0 = smp_load_acquire(y);\n\tr1 = READ_ONCE(*x);\n}\n";
    let condition = "exists (1:r0=1 /\\ 1:r1=0)\n";
    let core = format!("C MP\n\n{{\n}}\n\n{core_threads}\n{condition}");
    let params: Vec<String> = (0..150).map(|i| format!("int *p{i}")).collect();
    let writes: String = (0..150)
        .map(|i| format!("\tWRITE_ONCE(*p{i}, 1);\n"))
        .collect();
    let padded = format!(
        "C MP\n\n{{\n}}\n\n{core_threads}\nP2({})\n{{\n{writes}}}\n\n{condition}",
        params.join(", ")
    );
    (core, padded)
}

/// Generated programs of the whole LKMM vocabulary (locks, RCU, SRCU, plain accesses,
/// loops, filters...) under the LKMM, SC and TSO, and of herd7's C11 dialect under RC11,
/// give the same output and counts at one word and at the growable width.
/// `HAZMAT_WIDTHS_CASES` sets the number of programs of each vocabulary (default 600) and
/// `HAZMAT_WIDTHS_SEED` the first seed.
#[test]
fn generated_programs_are_answered_alike_at_one_word_and_growable() {
    let cases = env::number("HAZMAT_WIDTHS_CASES", 600);
    let seed = env::number("HAZMAT_WIDTHS_SEED", 2_100_000);
    let compared = generated::for_each(cases, seed, |s, text, m, model| {
        let run = |width| match check_source(text, model, &options(width, false)) {
            Ok(c) => answer(&c),
            Err(e) => format!("error: {e}"),
        };
        assert_eq!(run(0), run(16), "seed {s} under {m}:\n{text}");
    });
    assert_eq!(compared, cases * 4);
}
