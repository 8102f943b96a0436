//! Symmetry changes no answer: a program whose threads and locations can be renamed into
//! itself is answered alike when one execution of each group of images is built and
//! counted for all of them, and when every execution is built.

use hazmat_checker::engine::enumerate::Limits;
use hazmat_checker::models::model::MemoryModel;
use hazmat_checker::testkit::generate::{self, Config};
use hazmat_checker::{Checked, Options, check_source, model, testkit::harness::litmus_files};
use rayon::prelude::*;

#[path = "common/env.rs"]
mod env;
#[path = "common/two_ways.rs"]
mod two_ways;
#[path = "common/untimed.rs"]
mod untimed;

/// herd7's output without its `Time` line.
fn herd_text(c: &Checked) -> String {
    untimed::untimed(&c.herd_text())
}

/// The output of `text` under `m` with images counted and with every execution built,
/// and how many executions the first counted as images; `None` if building every
/// execution takes more than `cap` candidates (a limit on candidates turns symmetry off,
/// so the full run takes it, and the symmetric run, which builds fewer, runs unbounded).
fn both(text: &str, m: &dyn MemoryModel, cap: Option<u64>) -> Option<(String, String, u64)> {
    let run = |every_image, max_executions| {
        let options = Options {
            limits: Limits {
                max_executions,
                ..Default::default()
            },
            speedcheck: false,
            whole: true,
            every_image,
            ..Default::default()
        };
        match check_source(text, m, &options) {
            Ok(c) if c.outcome.unknown.is_some() => None,
            Ok(c) => Some((herd_text(&c), c.outcome.stats.images)),
            Err(e) => Some((format!("error: {e}"), 0)),
        }
    };
    let without = run(true, cap)?.0;
    let (with, images) = run(false, None).expect("no limit");
    Some((with, without, images))
}

/// Every shipped litmus file, and the kernel's documentation tests and the manual lock
/// tests of three and four threads when the shared corpus is beside the repository.
#[test]
fn the_corpus_is_answered_alike_with_images_counted_and_built() {
    let mut files = two_ways::shipped_and_kernel_doc();
    if let Some(shared) = two_ways::shared() {
        // The manual's lock tests are symmetric; those of five threads take long to
        // build in full, and the benchmark holds them to herd7's output instead.
        let absperf = litmus_files(shared.join("paulmck-manual/absperf"));
        files.extend(absperf.into_iter().filter(|f| {
            let name = f.to_string_lossy();
            name.matches("l-o-o-u").count() <= 4
        }));
    }
    let mut symmetric = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        let (with, without, images) =
            both(&text, two_ways::model_for(f).as_ref(), None).expect("no limit");
        assert_eq!(with, without, "{}", f.display());
        symmetric += usize::from(images > 0);
    }
    eprintln!("{} files, {symmetric} with images counted", files.len());
    assert!(symmetric >= 3, "only {symmetric} files used their symmetry");
}

/// The most candidates a generated program's full run may build.
const CAP: u64 = 200_000;

/// The locations a program's threads take as parameters, with their types, in order of
/// first appearance.
fn parameters(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text
        .lines()
        .filter(|l| l.starts_with('P') && l.contains('('))
    {
        let inside = &line[line.find('(').unwrap() + 1..line.rfind(')').unwrap()];
        for param in inside.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (ty, name) = param.rsplit_once('*').expect("a pointer parameter");
            let name = name.trim().to_string();
            if !out.iter().any(|(n, _)| *n == name) {
                out.push((name, ty.trim().to_string()));
            }
        }
    }
    out
}

/// The threads of a printed test, each from its `P` line to its closing brace.
fn threads(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if line.starts_with('P') && line.contains('(') {
            current = Some(String::new());
        }
        if let Some(c) = &mut current {
            c.push_str(line);
            c.push('\n');
            if line == "}" {
                out.push(current.take().unwrap());
            }
        }
    }
    out
}

/// `code` with each identifier `rename` maps replaced.
fn rename(code: &str, rename: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(&rename(word).unwrap_or_else(|| word.clone()));
        word.clear();
    };
    for c in code.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// A thread renumbered to `P{n}`.
fn numbered(thread: &str, n: usize) -> String {
    let rest = &thread[thread.find('(').unwrap()..];
    format!("P{n}{rest}")
}

/// The declared registers of a thread.
fn registers(thread: &str) -> Vec<String> {
    thread
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("int r")?
                .strip_suffix(';')
                .map(|n| format!("r{n}"))
        })
        .collect()
}

/// Two symmetric programs made of a generated one: its threads with two more copies of
/// one of them (the condition unchanged, so that it is not symmetric itself), and a
/// ring of copies of that thread, each with the integer locations turned one step
/// further, as many as there are of them.
fn symmetric(text: &str, seed: u64) -> Vec<String> {
    let ts = threads(text);
    let Some(first) = text.find("\nP0(") else {
        return Vec::new();
    };
    let header = &text[..first + 1];
    let last = text.rfind("\n}\n").unwrap() + 3;
    // The filter would break the symmetry; the `locations` list names other threads.
    let trailer: String = text[last..]
        .lines()
        .filter(|l| !l.starts_with("filter") && !l.starts_with("locations"))
        .map(|l| format!("{l}\n"))
        .collect();
    let pick = (seed as usize / 7) % ts.len();
    let mut copies = header.to_string();
    for t in &ts {
        copies.push_str(t);
        copies.push('\n');
    }
    for k in 0..2 {
        copies.push_str(&numbered(&ts[pick], ts.len() + k));
        copies.push('\n');
    }
    copies.push_str(&trailer);
    let mut out = vec![copies];
    let ints: Vec<String> = parameters(&ts[pick])
        .into_iter()
        .filter(|(_, ty)| ty == "int")
        .map(|(n, _)| n)
        .collect();
    if ints.len() >= 2 {
        let k = ints.len();
        let mut ring = format!("{}\n{{}}\n\n", header.lines().next().unwrap());
        for j in 0..k {
            let turned = rename(&ts[pick], &|w| {
                let i = ints.iter().position(|n| n == w)?;
                Some(ints[(i + j) % k].clone())
            });
            ring.push_str(&numbered(&turned, j));
            ring.push('\n');
        }
        let regs = registers(&ts[pick]);
        let condition = match regs.first() {
            Some(r) => format!("exists (0:{r}={} /\\ 1:{r}={})\n", seed % 3, (seed / 3) % 3),
            None => format!("exists ({}={})\n", ints[0], seed % 3),
        };
        ring.push_str(&condition);
        out.push(ring);
    }
    out
}

/// Symmetric programs made of generated ones of both vocabularies, under the native models
/// of each: the same herd7 output with images counted and with every execution built.
/// `HAZMAT_SYMMETRY_CASES` sets the number of generated programs of each vocabulary
/// (default 100) and `HAZMAT_SYMMETRY_SEED` the first seed.
#[test]
fn symmetric_programs_are_answered_alike_with_images_counted_and_built() {
    let cases = env::number("HAZMAT_SYMMETRY_CASES", 100u64);
    let seed = env::number("HAZMAT_SYMMETRY_SEED", 2_500_000u64);
    let native = |m: &'static str| (m, model(m).expect("a native model"));
    let kernel = [native("lkmm"), native("sc"), native("tso")];
    let c11 = [native("rc11")];
    // Small programs, since copies of a thread add to them and every execution is built.
    let small = |c: Config| Config {
        max_threads: 3,
        max_stmts: 3,
        max_size: 5,
        ..c
    };
    // Per seed: programs, runs that counted images, runs over the cap, runs; on every core.
    let mut tally = [0u64; 4];
    for (config, models) in [
        (small(Config::lkmm()), &kernel[..]),
        (small(Config::c11()), &c11[..]),
    ] {
        let seen = (seed..seed + cases)
            .into_par_iter()
            .map(|s| {
                let mut t = [0u64; 4];
                let generated = generate::from_seed(s, config.clone()).to_test(&format!("S{s}"));
                for text in symmetric(&hazmat_litmus::print(&generated), s) {
                    t[0] += 1;
                    for (name, m) in models {
                        // A few programs have too many candidates to build in full in a test.
                        t[3] += 1;
                        let Some((with, without, images)) = both(&text, m.as_ref(), Some(CAP))
                        else {
                            t[2] += 1;
                            continue;
                        };
                        assert_eq!(with, without, "seed {s} under {name}:\n{text}");
                        t[1] += u64::from(images > 0);
                    }
                }
                t
            })
            .reduce(|| [0; 4], |a, b| std::array::from_fn(|i| a[i] + b[i]));
        tally = std::array::from_fn(|i| tally[i] + seen[i]);
    }
    let [programs, used, slow, runs] = tally;
    eprintln!(
        "{programs} symmetric programs; {used} runs counted images, {slow} had over {CAP} candidates"
    );
    assert!(
        slow * 20 <= runs,
        "{slow} runs of {runs} had over {CAP} candidates"
    );
    // Most programs qualify; some use addresses or operators the symmetry refuses.
    assert!(
        used * 2 >= programs,
        "only {used} runs of {programs} programs used symmetry"
    );
}
