//! Pathological inputs and resource limits: every run ends with an answer, `Unknown` with a
//! reason, or an error naming its place; never a panic, a stack overflow or a hang.
//!
//! The inputs are generated here.
//! Each check runs on a thread with a 2 MB stack, the size of the worker threads
//! `hazmat check` decides files on, so that a recursion too deep for them fails here too.

#[path = "common/scratch.rs"]
mod scratch;
use hazmat_checker::engine::enumerate::Limits;
use hazmat_checker::{CheckError, Checked, Engine, Options, check_source, model};
use std::fmt::Write as _;
use std::process::Command;
use std::time::{Duration, Instant};

/// Checks `source` under `model_name` with `options` on a small-stack thread.
fn check(source: String, model_name: &'static str, options: Options) -> Result<Checked, String> {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let m = model(model_name).expect("the model exists");
            check_source(&source, m.as_ref(), &options).map_err(|e| render(&e, &source))
        })
        .expect("the thread starts")
        .join()
        .expect("the check does not panic")
}

fn render(e: &CheckError, source: &str) -> String {
    e.render("t.litmus", source)
}

fn no_limits() -> Options {
    Options::default()
}

fn thread(n: usize, body: &str) -> String {
    format!("P{n}(int *x, int *y)\n{{\n{body}}}\n\n")
}

fn test(threads: &str, condition: &str) -> String {
    format!("C t\n\n{{}}\n\n{threads}exists ({condition})\n")
}

#[track_caller]
/// The line an error names, from its `t.litmus:LINE:COL` prefix.
fn error_line(e: &str) -> usize {
    e.strip_prefix("t.litmus:")
        .and_then(|rest| rest.split(':').next())
        .and_then(|line| line.parse().ok())
        .unwrap_or_else(|| panic!("the error has no place: {e}"))
}

/// The 1-based number of the first line of `source` that contains `needle`.
fn first_line_with(source: &str, needle: &str) -> usize {
    source
        .lines()
        .position(|l| l.contains(needle))
        .expect("the line exists")
        + 1
}

fn assert_error(result: Result<Checked, String>, expected: &str) {
    match result {
        Ok(c) => panic!(
            "expected an error containing {expected:?}, got {:?}",
            c.outcome.verdict()
        ),
        Err(e) => {
            assert!(e.starts_with("t.litmus:"), "the error has no place: {e}");
            assert!(e.contains(expected), "{e}");
        }
    }
}

#[test]
fn a_ten_megabyte_test_gets_an_error() {
    let body = "\tWRITE_ONCE(*x, 1);\n".repeat(10_000_000 / 20);
    let source = test(&thread(0, &body), "x=1");
    assert!(source.len() >= 10_000_000);
    let start = Instant::now();
    assert_error(
        check(source, "lkmm", no_limits()),
        "accesses and branches on one path",
    );
    assert!(start.elapsed() < Duration::from_secs(60));
}

#[test]
fn ten_megabytes_of_garbage_get_a_parse_error() {
    let source = format!("C g\n{}", "(".repeat(10_000_000));
    assert_error(check(source, "lkmm", no_limits()), "expected");
    let source = format!("C g\n{{}}\n{}", "\u{0}\u{7f}é".repeat(3_000_000));
    assert_error(check(source, "lkmm", no_limits()), "expected");
}

#[test]
fn deep_nesting_gets_an_error() {
    let d = 100_000;
    let cases = [
        test(
            &thread(
                0,
                &format!("\tint r0;\n\tr0 = {}1{};\n", "(".repeat(d), ")".repeat(d)),
            ),
            "0:r0=1",
        ),
        test(
            &thread(0, &format!("\tint r0;\n\tr0 = {}1;\n", "-".repeat(d))),
            "0:r0=1",
        ),
        test(
            &thread(0, &format!("\tint r0;\n\tr0 = 1{};\n", " + 1".repeat(d))),
            "0:r0=1",
        ),
        test(
            &thread(
                0,
                &format!(
                    "\tint r0;\n{}r0 = 1;{}\n",
                    "if (r0) {".repeat(5_000),
                    "}".repeat(5_000)
                ),
            ),
            "0:r0=1",
        ),
        format!(
            "C t\n\n{{}}\n\n{}exists {}(x=1)\n",
            thread(0, "\tWRITE_ONCE(*x, 1);\n"),
            "~".repeat(d)
        ),
    ];
    for source in cases {
        match check(source, "lkmm", no_limits()) {
            // A long left-associated sum is not nested in the source; it may be accepted.
            Ok(c) => assert!(c.outcome.unknown.is_none()),
            Err(e) => assert!(e.starts_with("t.litmus:") && e.contains("error"), "{e}"),
        }
    }
}

#[test]
fn many_sequential_branches_get_an_error() {
    let body = format!(
        "\tint r0;\n\tr0 = READ_ONCE(*x);\n{}",
        "\tif (r0) { r0 = 0; }\n".repeat(100_000)
    );
    assert_error(
        check(test(&thread(0, &body), "x=1"), "lkmm", no_limits()),
        "accesses and branches on one path",
    );
}

#[test]
fn hundreds_of_threads_get_an_error() {
    // 300 writes to one location: past what its coherence orders are tracked in.
    let mut threads = String::new();
    for i in 0..300 {
        threads.push_str(&thread(i, &format!("\tWRITE_ONCE(*x, {i});\n")));
    }
    let source = test(&threads, "x=1");
    let e = check(source.clone(), "lkmm", no_limits()).expect_err("too many writes");
    assert!(
        e.contains("location `x` has 301 writes in one execution; at most 64"),
        "{e}"
    );
    // The place is the write the limit falls on: the 65th, after the initial one, is P63's.
    assert_eq!(
        error_line(&e),
        first_line_with(&source, "WRITE_ONCE(*x, 63)"),
        "{e}"
    );
}

#[test]
fn a_thread_of_too_many_reads_gets_an_error_at_the_read_past_the_limit() {
    // Dependencies on a path are tracked as bits of a 64-bit word: one per read.
    let body: String = (0..70)
        .map(|i| format!("\tint r{i} = READ_ONCE(*x); /* read {i} */\n"))
        .collect();
    let source = test(&thread(0, &body), "x=0");
    let e = check(source.clone(), "lkmm", no_limits()).expect_err("too many reads");
    assert!(e.contains("a thread performs more than 64 reads"), "{e}");
    // The place is the 65th read.
    assert_eq!(
        error_line(&e),
        first_line_with(&source, "/* read 64 */"),
        "{e}"
    );
    // 64 reads are within the limit.
    let body: String = (0..64)
        .map(|i| format!("\tint r{i} = READ_ONCE(*x);\n"))
        .collect();
    let c = check(test(&thread(0, &body), "x=0"), "lkmm", no_limits()).expect("decided");
    assert_eq!(c.outcome.positive, 1);
}

#[test]
fn a_test_past_the_widest_fixed_width_is_decided_whole() {
    // 520 threads, each writing its own location: 1,040 events with the initial writes,
    // past the 1,024 of the widest fixed width, so the engine takes growable sets.
    // The writes are plain, so that the test does not split into pieces counted one by
    // one (each of which would be small).
    let mut threads = String::new();
    for i in 0..520 {
        let _ = write!(threads, "P{i}(int *x{i})\n{{\n\t*x{i} = 1;\n}}\n\n");
    }
    let source = test(&threads, "x0=1");
    let c = check(source, "sc", no_limits()).expect("decided whole");
    assert!(c.outcome.pieces <= 1, "{} pieces", c.outcome.pieces);
    assert_eq!(c.outcome.stats.candidates, 1);
    let out = c.herd_text();
    assert!(out.contains("Observation t Always 1 0"), "{out}");
}

#[test]
fn a_test_that_splits_is_counted_piece_by_piece() {
    // The same 520 threads with marked writes split into 520 pieces of two events (and
    // the initial writes), each enumerated alone.
    let mut threads = String::new();
    for i in 0..520 {
        let _ = write!(
            threads,
            "P{i}(int *x{i})\n{{\n\tWRITE_ONCE(*x{i}, 1);\n}}\n\n"
        );
    }
    let source = test(&threads, "x0=1");
    let c = check(source, "sc", no_limits()).expect("decided piece by piece");
    assert_eq!(c.outcome.pieces, 520);
    let out = c.herd_text();
    assert!(out.contains("Observation t Always 1 0"), "{out}");
}

#[test]
fn too_many_paths_get_an_error() {
    let mut body = String::from("\tint r0;\n");
    for i in 0..20 {
        let _ = write!(
            body,
            "\tr0 = READ_ONCE(*x);\n\tif (r0 == 1) {{ WRITE_ONCE(*y, {i}); }}\n"
        );
    }
    let threads = thread(0, &body) + &thread(1, "\tWRITE_ONCE(*x, 1);\n");
    let source = test(&threads, "y=1");
    let first = first_line_with(&source, "READ_ONCE");
    let e = check(source, "tso", no_limits()).expect_err("too many paths");
    assert!(e.contains("paths"), "{e}");
    // The place is an access of the thread that branches, not the top of the file.
    assert!(error_line(&e) >= first, "{e}");
}

#[test]
fn huge_integers_get_an_error() {
    // herd7's numbers are 32-bit.
    let literal = test(&thread(0, "\tWRITE_ONCE(*x, 2147483648);\n"), "x=1");
    assert_error(check(literal, "lkmm", no_limits()), "out of range");
    let literal = test(
        &thread(0, "\tWRITE_ONCE(*x, 99999999999999999999999999);\n"),
        "x=1",
    );
    assert_error(check(literal, "lkmm", no_limits()), "out of range");
    let hex = test(
        &thread(0, "\tWRITE_ONCE(*x, 0x1ffffffffffffffffffff);\n"),
        "x=1",
    );
    assert_error(check(hex, "lkmm", no_limits()), "decimal numbers only");
    let init = "C t\n\n{ x=-99999999999999999999999999; }\n\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\n\nexists (x=1)\n";
    assert_error(check(init.into(), "lkmm", no_limits()), "out of range");
    let init =
        "C t\n\n{ x=0x100000000; }\n\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\n\nexists (x=1)\n";
    assert_error(check(init.into(), "lkmm", no_limits()), "out of range");
    let thread_number =
        "C t\n\n{}\n\nP4294967296(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\n\nexists (x=1)\n";
    assert_error(check(thread_number.into(), "lkmm", no_limits()), "thread");
    // The one division without a result is an error.
    let div = test(&thread(0, "\tint r0;\n\tr0 = 1 / 0;\n"), "0:r0=1");
    assert_error(check(div, "lkmm", no_limits()), "division by zero");
}

/// Four threads of six writes to one location: some 10^11 coherence orders.
fn blowup() -> String {
    let mut threads = String::new();
    for i in 0..4 {
        let body: String = (0..6)
            .map(|j| format!("\tWRITE_ONCE(*x, {j});\n"))
            .collect();
        threads.push_str(&thread(i, &body));
    }
    test(&threads, "x=1")
}

#[test]
fn max_executions_ends_in_unknown_with_its_reason() {
    for m in ["sc", "tso", "lkmm"] {
        let options = Options {
            limits: Limits {
                max_executions: Some(1_000),
                deadline: None,
                ..Default::default()
            },
            speedcheck: false,
            ..Default::default()
        };
        let c = check(blowup(), m, options).expect("the test is valid");
        assert_eq!(c.outcome.unknown.as_deref(), Some("1000 executions"), "{m}");
        assert!(c.herd_text().contains("Unknown"), "{m}");
    }
}

#[test]
fn a_timeout_ends_in_unknown_with_its_reason() {
    for m in ["sc", "lkmm"] {
        let start = Instant::now();
        let options = Options {
            limits: Limits {
                max_executions: None,
                deadline: Some(start + Duration::from_millis(300)),
                ..Default::default()
            },
            speedcheck: false,
            ..Default::default()
        };
        let c = check(blowup(), m, options).expect("the test is valid");
        let why = c.outcome.unknown.expect("the timeout stops the check");
        assert!(
            why.contains("timeout") || why.contains("time"),
            "{m}: {why}"
        );
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{m}: too slow to stop"
        );
    }
}

/// Seventeen pushes on a Treiber stack, asked whether the last one read its own push, which
/// no execution does: in a speed check, every read of `top` is chosen in one stage (they
/// read one location) with more values than the look-ahead bounds, so the deadline must be
/// checked between the reads of a stage, not only between stages.
#[test]
fn a_timeout_stops_a_search_within_one_stage() {
    let start = Instant::now();
    let options = Options {
        limits: Limits {
            deadline: Some(start + Duration::from_millis(300)),
            ..Default::default()
        },
        speedcheck: true,
        ..Default::default()
    };
    let pushes = hazmat_checker::testkit::generate::families::treiber_push(17);
    let condition = pushes.rfind("exists").expect("a condition");
    let source = format!("{}exists (top=17 /\\ next17=17)\n", &pushes[..condition]);
    let c = check(source, "lkmm", options).expect("the test is valid");
    assert_eq!(c.outcome.unknown.as_deref(), Some("timeout"));
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "too slow to stop"
    );
}

#[test]
fn the_shuttle_engine_obeys_the_limits() {
    let source = blowup();
    let sc = model("sc").expect("sc exists");
    let bounded = Options {
        limits: Limits {
            max_executions: Some(500),
            deadline: None,
            ..Default::default()
        },
        speedcheck: false,
        ..Default::default()
    };
    let c = Engine::Shuttle
        .check_source(&source, sc.as_ref(), &bounded)
        .expect("the test is valid");
    assert_eq!(c.outcome.unknown.as_deref(), Some("500 interleavings"));
    assert_eq!(c.outcome.stats.candidates, 500);
    let start = Instant::now();
    let timed = Options {
        limits: Limits {
            max_executions: None,
            deadline: Some(start + Duration::from_millis(300)),
            ..Default::default()
        },
        speedcheck: false,
        ..Default::default()
    };
    let c = Engine::Shuttle
        .check_source(&source, sc.as_ref(), &timed)
        .expect("the test is valid");
    assert_eq!(c.outcome.unknown.as_deref(), Some("timeout"));
    assert!(start.elapsed() < Duration::from_secs(10));
    // Spinlocks are refused with their place.
    let lock = "C t\n\n{}\n\nP0(spinlock_t *l)\n{\n\tspin_lock(l);\n}\n\nexists (l=0)\n";
    let e = Engine::Shuttle
        .check_source(lock, sc.as_ref(), &Options::default())
        .map(|c| c.outcome.verdict())
        .expect_err("spinlocks are refused");
    assert_eq!(
        render(&e, lock),
        "t.litmus:7:2: error: the shuttle engine does not support spinlocks (`spin_lock`)\n  |\n\
         7 | \tspin_lock(l);\n  | \t^^^^^^^^^^^^"
    );
}

#[test]
fn the_cli_answers_a_ten_megabyte_file_with_an_error() {
    let dir = scratch::folder("robustness");
    let file = dir.join("big.litmus");
    let body = "\tWRITE_ONCE(*x, 1);\n".repeat(10_000_000 / 20);
    std::fs::write(&file, test(&thread(0, &body), "x=1")).expect("the file is written");
    let out = Command::new(env!("CARGO_BIN_EXE_hazmat"))
        .args(["check", "--timeout", "30"])
        .arg(&file)
        .output()
        .expect("hazmat runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("big.litmus:519:2: error: a thread runs more than 512"),
        "{stderr}"
    );
    let blow = dir.join("blowup.litmus");
    std::fs::write(&blow, blowup()).expect("the file is written");
    for engine in ["axiomatic", "shuttle"] {
        let out = Command::new(env!("CARGO_BIN_EXE_hazmat"))
            .args([
                "check",
                "--model",
                "sc",
                "--max-executions",
                "100",
                "--engine",
                engine,
            ])
            .arg(&blow)
            .output()
            .expect("hazmat runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(3), "{engine}: {stdout}");
        assert!(
            stdout.contains("Observation t Unknown"),
            "{engine}: {stdout}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Found by the `parse` fuzz target: 110 nested `*` parse, and the printer once wrote them
/// with twice the nesting, so `fmt` wrote a file it then refused.
/// herd7 reads `**p` only where it writes, and `*(*p)` where it reads.
#[test]
fn printed_nested_derefs_parse_back() {
    let read = format!(
        "C t\n\n{{}}\n\nP0(int *x)\n{{\n\tint r0;\n\tr0 = 1 * {}x{};\n}}\n\nexists (0:r0=1)\n",
        "*(".repeat(110),
        ")".repeat(110)
    );
    let write = format!(
        "C t\n\n{{}}\n\nP0(int *x)\n{{\n\t{}x = 1;\n}}\n\nexists (x=1)\n",
        "*".repeat(110)
    );
    for (source, printed_form) in [
        (read, format!("{}*x{}", "*(".repeat(109), ")".repeat(109))),
        (write, "*".repeat(110)),
    ] {
        let test = hazmat_litmus::parse(&source).expect("110 nested `*` are within the limit");
        let printed = hazmat_litmus::print(&test);
        assert!(printed.contains(&printed_form), "{printed}");
        // What `hazmat fmt` writes, the parser reads back: the same test.
        let again = hazmat_litmus::parse(&printed).expect("the printed text parses");
        assert_eq!(again, test);
    }
}
