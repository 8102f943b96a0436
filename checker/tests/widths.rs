//! The engine at every width gives the same answers: event sets and relations are as wide
//! as each execution needs (`relation::WIDTHS`, then the growable width past the widest),
//! and a test past one word (128 events), or past the widest fixed width (1,024 events), is
//! decided as a small one is.

use hazmat_checker::enumerate::Limits;
use hazmat_checker::generate::families;
use hazmat_checker::{CheckError, Checked, Options, check_source, harness::litmus_files, model};

/// herd7's output without its `Time` line, with the enumeration's counts.
fn answer(c: &Checked) -> String {
    let mut s: String = c
        .herd_text()
        .lines()
        .filter(|l| !l.starts_with("Time "))
        .map(|l| format!("{l}\n"))
        .collect();
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
        let source = std::fs::read_to_string(&file).expect("readable");
        let m = if file.to_string_lossy().contains("c11") {
            rc11.as_ref()
        } else {
            lkmm.as_ref()
        };
        let narrow = check_source(&source, m, &options(0, false));
        for width in hazmat_checker::relation::WIDTHS
            .into_iter()
            .skip(1)
            .chain([16])
        {
            let wide = check_source(&source, m, &options(width, false));
            match (&narrow, &wide) {
                (Ok(n), Ok(w)) => assert_eq!(answer(n), answer(w), "{}", file.display()),
                (Err(n), Err(w)) => {
                    assert_eq!(n.to_string(), w.to_string(), "{}", file.display())
                }
                _ => panic!("{}: one width failed, the other did not", file.display()),
            }
        }
        compared += 1;
    }
    assert!(compared > 100, "only {compared} files compared");
}

/// Message passing padded with a thread that writes 150 locations of its own: past one
/// word of events, and answered as the test without the padding, in full and in a speed
/// check.
#[test]
fn a_test_past_one_word_is_answered_as_its_core() {
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

/// A model file is interpreted on one-word executions only: a test past 128 events is
/// refused before any is judged, at the access the limit falls on, naming the model.
#[test]
fn a_model_file_refuses_a_test_past_one_word() {
    use hazmat_checker::models::cat::files::InMemory;
    use hazmat_checker::models::cat::{Library, Spec, load};
    let fs = InMemory::new().with("m/lb.cat", "\"lb\"\nacyclic po | rf as lb\n");
    let spec = Spec {
        cat: "lb.cat".into(),
        bell: None,
        variants: Vec::new(),
    };
    let lb =
        load(&Library::new().include("m"), &fs, &spec).unwrap_or_else(|e| panic!("{}", e.render()));
    let small = check_source(&families::value_chain(3), &lb, &options(0, false))
        .expect("a small chain is checked");
    assert!(
        small
            .herd_text()
            .contains("Observation value-chain-3 Sometimes 1 15")
    );
    // 44 initial writes, P0's write, then a read and a write per thread: the 129th event
    // is P42's write.
    let source = families::value_chain(42);
    let Err(CheckError::Run(err)) = check_source(&source, &lb, &options(0, true)) else {
        panic!("a chain of 131 events was not refused under a model file");
    };
    assert_eq!(
        err.message,
        "the test has 131 events in one execution; at most 128 are supported under model `lb`"
    );
    assert_eq!(&source[err.span.0..err.span.1], "WRITE_ONCE(*x42, r0)");
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Generated programs of the whole LKMM vocabulary (locks, RCU, SRCU, plain accesses,
/// loops, filters...) under the LKMM, SC and TSO, and of herd7's C11 dialect under RC11,
/// give the same output and counts at one word and at the growable width.
/// `HAZMAT_WIDTHS_CASES` sets the number of programs of each vocabulary (default 600) and
/// `HAZMAT_WIDTHS_SEED` the first seed.
#[test]
fn generated_programs_are_answered_alike_at_one_word_and_growable() {
    use hazmat_checker::generate::{self, Config};
    let cases = env("HAZMAT_WIDTHS_CASES", 600);
    let seed = env("HAZMAT_WIDTHS_SEED", 2_100_000);
    let kernel: Vec<(&str, Box<dyn model::MemoryModel>)> = ["lkmm", "sc", "tso"]
        .into_iter()
        .map(|m| (m, model(m).expect("a native model")))
        .collect();
    let c11 = [("rc11", model("rc11").expect("rc11"))];
    let mut compared = 0;
    for (config, models) in [(Config::lkmm(), &kernel[..]), (Config::c11(), &c11[..])] {
        for s in seed..seed + cases {
            let name = format!("G{s}");
            let text = hazmat_litmus::print(&generate::from_seed(s, config.clone()).to_test(&name));
            for (m, model) in models {
                let run = |width| match check_source(&text, model.as_ref(), &options(width, false))
                {
                    Ok(c) => answer(&c),
                    Err(e) => format!("error: {e}"),
                };
                assert_eq!(run(0), run(16), "seed {s} under {m}:\n{text}");
                compared += 1;
            }
        }
    }
    assert_eq!(compared, cases * 4);
}
