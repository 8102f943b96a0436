//! An `include` of a cat file that cannot be found or parsed, under herd7's command line:
//! herd7 looks for an included file only when a test's run reaches the `include`, so it
//! reports the failure on each such test, in its own located words alone on stderr, runs
//! the other tests, and exits with 0 (1 under `-exit true`, which stops at the first).
//! `hazmat check` keeps its one located error before any test.
//!
//! Each test asserts herd7 7.58's exact output, written here, then compares with herd7
//! itself when it is present (`$HAZMAT_ORACLE` or `../shared/oracle/herd7`). Every file a
//! test needs is written here.

#[path = "common/herd7_cli.rs"]
mod herd7_cli;
#[path = "common/untimed.rs"]
mod untimed;

use hazmat_checker::models::cat::files::{InMemory, Library, Loaded};
use herd7_cli::{hazmat, run, text};
use std::path::PathBuf;

/// A fresh temporary directory holding `files` (name, text).
fn dir_with(tag: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = herd7_cli::temp_dir(&format!("herd7-includes-{tag}"));
    for (name, text) in files {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("directory");
        }
        std::fs::write(path, text).expect("file");
    }
    dir
}

/// One relaxed store: under a model that only asks `po | rf` to be acyclic, `x=1` always.
fn store(name: &str) -> String {
    format!(
        "C {name}\n{{}}\n\
         P0(atomic_int *x) {{ atomic_store_explicit(x, 1, memory_order_relaxed); }}\n\
         exists (x=1)\n"
    )
}

/// Two relaxed stores to one location: program order is not empty.
const TWO_STORES: &str = "C t2\n{}\n\
    P0(atomic_int *x) { atomic_store_explicit(x, 1, memory_order_relaxed); \
    atomic_store_explicit(x, 2, memory_order_relaxed); }\n\
    exists (x=1)\n";

/// herd7's whole output for `store("t")` when the model allows its one execution.
const T_ALWAYS: &str = "Test t Allowed\nStates 1\n[x]=1;\nOk\nWitnesses\n\
    Positive: 1 Negative: 0\nCondition exists ([x]=1)\nObservation t Always 1 0\n\
    Hash=a98c520b4b930d1957231751b12ad9df\n\n";

/// herd7's whole output for [`TWO_STORES`] when the model forbids every execution.
const T2_NEVER: &str = "Test t2 Allowed\nStates 0\nNo\nWitnesses\nPositive: 0 Negative: 0\n\
    Condition exists ([x]=1)\nObservation t2 Never 0 0\n\
    Hash=7825378622e6fbdc993b4527f77acb94\n\n";

/// The brief's example: a missing include and an included file that does not parse are
/// reported once per test, with nothing on stdout and exit code 0; `-exit true` stops at
/// the first, with 1; with no test, nothing is reported.
#[test]
fn a_failed_include_is_reported_on_each_test() {
    let dir = dir_with(
        "each",
        &[
            (
                "m.cat",
                "\"m\"\ninclude \"nosuch.cat\"\nacyclic po | rf as x\n",
            ),
            (
                "m2.cat",
                "\"m\"\ninclude \"bad.cat\"\nacyclic po | rf as x\n",
            ),
            ("bad.cat", "let x = (\n"),
            ("t.litmus", &store("t")),
            ("u.litmus", &store("u")),
        ],
    );
    let missing = "File \"./m.cat\", line 2, characters 0-20: Cannot find file nosuch.cat\n";
    assert_eq!(
        run(&dir, &["-model", "./m.cat", "t.litmus", "u.litmus"]),
        (String::new(), missing.repeat(2), Some(0))
    );
    assert_eq!(
        run(
            &dir,
            &["-exit", "true", "-model", "./m.cat", "t.litmus", "u.litmus"]
        ),
        (String::new(), missing.to_string(), Some(1))
    );
    let unparsed = "File \"./m2.cat\", line 2, characters 0-17: File \"./bad.cat\", line 2, \
                    characters 0-0: unexpected '' (in model)\n";
    assert_eq!(
        run(&dir, &["-model", "./m2.cat", "t.litmus", "u.litmus"]),
        (String::new(), unparsed.repeat(2), Some(0))
    );
    assert_eq!(
        run(&dir, &["-model", "./m.cat"]),
        (String::new(), String::new(), Some(0))
    );
    // A test that failed is not taken as seen: it comes back, it is run and reported
    // again.
    assert_eq!(
        run(&dir, &["-model", "./m.cat", "t.litmus", "t.litmus"]),
        (String::new(), missing.repeat(2), Some(0))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The loader records why an include fails, in herd7's words, only when asked to leave it
/// to the run; otherwise it is the load's error. A cycle stays an error either way.
#[test]
fn the_loader_records_a_failed_include_only_when_asked() {
    let fs = InMemory::new()
        .with(
            "m.cat",
            "\"m\"\ninclude \"nosuch.cat\"\ninclude \"bad.cat\"\ninclude \"bad.cat\"\n",
        )
        .with("bad.cat", "let x = (\n")
        .with("loop.cat", "include \"loop.cat\"\n");
    let library = Library::new();
    let e = Loaded::new()
        .load(&library, &fs, "m.cat")
        .expect_err("a missing include");
    assert_eq!(
        e.to_string(),
        "2:1: cannot find the file `nosuch.cat`; looked in `.`, the files built into hazmat"
    );
    let mut loaded = Loaded::new();
    loaded.include_errors_per_test(true);
    loaded
        .load(&library, &fs, "m.cat")
        .expect("left to the run");
    assert_eq!(
        loaded.failed_include("nosuch.cat"),
        Some("Cannot find file nosuch.cat")
    );
    assert_eq!(
        loaded.failed_include("bad.cat"),
        Some("File \"./bad.cat\", line 2, characters 0-0: unexpected '' (in model)")
    );
    assert_eq!(loaded.failed_include("m.cat"), None);
    let e = loaded.load(&library, &fs, "loop.cat").expect_err("a cycle");
    assert!(e.to_string().contains("includes itself"), "{e}");
}

/// `hazmat check` keeps its single located error, before any test.
#[test]
fn hazmat_check_stops_before_any_test() {
    let dir = dir_with(
        "check",
        &[
            (
                "m.cat",
                "\"m\"\ninclude \"nosuch.cat\"\nacyclic po | rf as x\n",
            ),
            ("t.litmus", &store("t")),
        ],
    );
    let out = hazmat(&dir, &["check", "--cat", "./m.cat", "t.litmus"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "");
    assert!(
        text(&out.stderr).starts_with("./m.cat:2:1: error: cannot find the file `nosuch.cat`\n"),
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// herd7's words for an included file that does not parse: the first token it cannot
/// read, its columns counted in bytes from 0, or its lexer's error at a character or at
/// the end of an unclosed comment; the place of the `include` before them, as written.
#[test]
fn an_included_file_that_does_not_parse_is_located_as_herd7_locates_it() {
    let includes = |name: &str| format!("\"w\"\ninclude \"{name}\"\nacyclic po as x\n");
    let cases = [
        (
            "tok.cat",
            "\"b\"\nlet x = a b c ) d\n",
            "File \"./tok.cat\", line 2, characters 14-15: unexpected ')' (in model)",
        ),
        (
            "bind.cat",
            "\"b\"\nlet = x\n",
            "File \"./bind.cat\", line 2, characters 4-5: unexpected '=' (in model)",
        ),
        (
            "as.cat",
            "\"b\"\nacyclic po as\n",
            "File \"./as.cat\", line 3, characters 0-0: unexpected '' (in model)",
        ),
        (
            "kw.cat",
            "\"b\"\nlet x = po |\nshow x\n",
            "File \"./kw.cat\", line 3, characters 0-4: unexpected 'show' (in model)",
        ),
        (
            "bytes.cat",
            "\"b\"\nlet x = \"\u{e9}\" po\n",
            "File \"./bytes.cat\", line 2, characters 8-12: unexpected '\"\u{e9}\"' (in model)",
        ),
        (
            "char.cat",
            "\"b\"\nlet x = $\n",
            "File \"./char.cat\", line 2, character 8: Lex error Model lexer (in model)",
        ),
        (
            "tag.cat",
            "\"b\"\nlet x = ' po\n",
            "File \"./tag.cat\", line 2, character 8: Lex error Model lexer (in model)",
        ),
        (
            "string.cat",
            "\"b\"\nlet x = po\ninclude \"abc\n",
            "File \"./string.cat\", line 3, character 8: Lex error Model lexer (in model)",
        ),
        (
            "comment.cat",
            "\"b\"\nlet x = po (* abc\n",
            "File \"./comment.cat\", line 3, character 0: Lex error eof in skip_comment (in \
             model)",
        ),
    ];
    let mut files: Vec<(String, String)> = vec![("t.litmus".into(), store("t"))];
    for (name, text, _) in &cases {
        files.push((name.to_string(), text.to_string()));
        files.push((format!("i{name}"), includes(name)));
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let dir = dir_with("parse", &files);
    for (name, _, words) in cases {
        let prefix = format!(
            "File \"./i{name}\", line 2, characters 0-{}: ",
            name.len() + 10
        );
        assert_eq!(
            run(&dir, &["-model", &format!("./i{name}"), "t.litmus"]),
            (String::new(), format!("{prefix}{words}\n"), Some(0)),
            "{name}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// herd7 runs an `include` where the model's run reaches it: the innermost failing
/// include is reported; a file included twice, once; a run that a check stops before the
/// include reports nothing, and its test is decided; an include in a branch of a variant
/// not taken or in a procedure never called is never looked for; what the missing file
/// would have defined is never needed.
#[test]
fn an_include_is_looked_for_when_the_run_reaches_it() {
    let dir = dir_with(
        "reach",
        &[
            ("t.litmus", &store("t")),
            ("t2.litmus", TWO_STORES),
            ("a.cat", "\"a\"\ninclude \"nosuch.cat\"\nlet y = po\n"),
            (
                "nested.cat",
                "\"n\"\nlet z = po\ninclude \"a.cat\"\nacyclic po | rf as x\n",
            ),
            ("a2.cat", "\"a2\"\nlet y = po\n  include \"bad.cat\"\n"),
            ("bad.cat", "let x = (\n"),
            (
                "nested2.cat",
                "\"n2\"\ninclude \"a2.cat\"\nacyclic po | rf as x\n",
            ),
            (
                "twice.cat",
                "\"tw\"\ninclude \"nosuch.cat\"\ninclude \"nosuch.cat\"\nacyclic po | rf as x\n",
            ),
            (
                "after.cat",
                "\"ef\"\nempty po as x\ninclude \"nosuch.cat\"\n",
            ),
            (
                "variant.cat",
                "\"vv\"\nif \"exp\" include \"nosuch.cat\" end\nacyclic po | rf as x\n",
            ),
            (
                "else.cat",
                "\"vm\"\nif \"exp\" include \"nosuch.cat\" else include \"nosuch2.cat\" \
                 end\nacyclic po | rf as x\n",
            ),
            (
                "uncalled.cat",
                "\"pp\"\nprocedure p() = include \"nosuch.cat\" end\nacyclic po | rf as x\n",
            ),
            (
                "called.cat",
                "\"m4\"\nprocedure p() = include \"nosuch.cat\" end\ncall p()\nacyclic po as \
                 x\n",
            ),
            (
                "defines.cat",
                "\"m3\"\ninclude \"nosuch.cat\"\nacyclic fooo as x\n",
            ),
        ],
    );
    let nosuch = |file: &str, line: usize, cols: &str| {
        format!("File \"./{file}\", line {line}, characters {cols}: Cannot find file nosuch.cat\n")
    };
    for (model, tests, out, err) in [
        (
            "nested.cat",
            &["t.litmus"][..],
            "",
            nosuch("a.cat", 2, "0-20"),
        ),
        (
            "nested2.cat",
            &["t.litmus"],
            "",
            "File \"./a2.cat\", line 3, characters 2-19: File \"./bad.cat\", line 2, \
             characters 0-0: unexpected '' (in model)\n"
                .to_string(),
        ),
        (
            "twice.cat",
            &["t.litmus"],
            "",
            nosuch("twice.cat", 2, "0-20"),
        ),
        (
            "after.cat",
            &["t.litmus", "t2.litmus"],
            T2_NEVER,
            nosuch("after.cat", 3, "0-20"),
        ),
        ("variant.cat", &["t.litmus"], T_ALWAYS, String::new()),
        (
            "else.cat",
            &["t.litmus"],
            "",
            "File \"./else.cat\", line 2, characters 35-56: Cannot find file nosuch2.cat\n"
                .to_string(),
        ),
        ("uncalled.cat", &["t.litmus"], T_ALWAYS, String::new()),
        (
            "called.cat",
            &["t.litmus"],
            "",
            nosuch("called.cat", 2, "16-36"),
        ),
        (
            "defines.cat",
            &["t.litmus"],
            "",
            nosuch("defines.cat", 2, "0-20"),
        ),
    ] {
        let model = format!("./{model}");
        let mut args = vec!["-model", model.as_str()];
        args.extend(tests);
        assert_eq!(run(&dir, &args), (out.to_string(), err, Some(0)), "{model}");
    }
    assert_eq!(
        run(
            &dir,
            &["-variant", "exp", "-model", "./variant.cat", "t.litmus"]
        ),
        (String::new(), nosuch("variant.cat", 2, "9-29"), Some(0))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// An included file is looked for as herd7 looks for it (the current directory, then the
/// `-I` directories in order) and named as found; a path used as it is fails to open; a
/// configuration file's model reports the same.
#[test]
fn an_include_is_looked_for_in_herd7s_places() {
    let dir = dir_with(
        "places",
        &[
            ("t.litmus", &store("t")),
            ("u.litmus", &store("u")),
            ("d1/ib.cat", "\"d1b\"\ninclude \"nosuch.cat\"\n"),
            ("d2/ib.cat", "\"d2b\"\nlet y = po\n"),
            (
                "d1/ic.cat",
                "\"ic\"\ninclude \"ib.cat\"\nacyclic po | rf as x\n",
            ),
            ("d2/bad.cat", "\"bad\"\nlet = y\n"),
            ("bad.cat", "let x = (\n"),
            (
                "d1/ie.cat",
                "\"ie\"\ninclude \"bad.cat\"\nacyclic po | rf as x\n",
            ),
            ("path.cat", "\"p\"\nlet x = po\ninclude \"./nosuch.cat\"\n"),
            ("sub.cat", "\"s\"\nlet x = po\ninclude \"sub/nosuch.cat\"\n"),
            (
                "m.cat",
                "\"m\"\ninclude \"nosuch.cat\"\nacyclic po | rf as x\n",
            ),
            ("c1.cfg", "model ./m.cat\n"),
            ("c2.cfg", "model m.cat\n"),
        ],
    );
    let d1 = "File \"d1/ib.cat\", line 2, characters 0-20: Cannot find file nosuch.cat\n";
    assert_eq!(
        run(
            &dir,
            &["-I", "d1", "-I", "d2", "-model", "ic.cat", "t.litmus"]
        ),
        (String::new(), d1.to_string(), Some(0))
    );
    assert_eq!(
        run(
            &dir,
            &["-I", "d2", "-I", "d1", "-model", "ic.cat", "t.litmus"]
        ),
        (T_ALWAYS.to_string(), String::new(), Some(0))
    );
    // The current directory's `bad.cat` comes before `d2`'s.
    assert_eq!(
        run(
            &dir,
            &["-I", "d2", "-I", "d1", "-model", "ie.cat", "t.litmus"]
        ),
        (
            String::new(),
            "File \"d1/ie.cat\", line 2, characters 0-17: File \"./bad.cat\", line 2, \
             characters 0-0: unexpected '' (in model)\n"
                .to_string(),
            Some(0)
        )
    );
    assert_eq!(
        run(&dir, &["-model", "./path.cat", "t.litmus"]),
        (
            String::new(),
            "File \"./path.cat\", line 3, characters 0-22: open_in failed: ./nosuch.cat: No \
             such file or directory\n"
                .to_string(),
            Some(0)
        )
    );
    assert_eq!(
        run(&dir, &["-model", "./sub.cat", "t.litmus"]),
        (
            String::new(),
            "File \"./sub.cat\", line 3, characters 0-24: Cannot find file sub/nosuch.cat\n"
                .to_string(),
            Some(0)
        )
    );
    let missing = "File \"./m.cat\", line 2, characters 0-20: Cannot find file nosuch.cat\n";
    for cfg in ["c1.cfg", "c2.cfg"] {
        assert_eq!(
            run(&dir, &["-conf", cfg, "t.litmus", "u.litmus"]),
            (String::new(), missing.repeat(2), Some(0)),
            "{cfg}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// herd7 runs the bell file once, before any test: an include it reaches then that fails
/// stops the run, with herd7's words and the exception that stops it, exit code 2, even
/// with no test; one in a branch of a variant not set is never looked for, and one in a
/// procedure the bell file calls fails on each test, as the cat file's do.
#[test]
fn a_bell_files_failed_include_stops_the_run_where_herd7_runs_it() {
    let dir = dir_with(
        "bell",
        &[
            ("t.litmus", &store("t")),
            ("u.litmus", &store("u")),
            ("tc.cat", "\"tc\"\nacyclic po | rf as x\n"),
            ("bad.cat", "let x = (\n"),
            ("top.bell", "\"bl\"\ninclude \"nosuch.cat\"\n"),
            ("bad.bell", "\"bb\"\ninclude \"bad.cat\"\n"),
            (
                "variant.bell",
                "\"bv\"\nif \"exp\" include \"nosuch.cat\" end\n",
            ),
            (
                "called.bell",
                "\"bp\"\nprocedure p() = include \"nosuch.cat\" end\ncall p()\n",
            ),
        ],
    );
    let fatal = |words: &str| {
        (
            String::new(),
            format!("{words}\nFatal error: exception Misc.Exit\n"),
            Some(2),
        )
    };
    assert_eq!(
        run(
            &dir,
            &["-bell", "./top.bell", "-model", "./tc.cat", "t.litmus"]
        ),
        fatal("File \"./top.bell\", line 2, characters 0-20: Cannot find file nosuch.cat")
    );
    assert_eq!(
        run(&dir, &["-bell", "./top.bell", "-model", "./tc.cat"]),
        fatal("File \"./top.bell\", line 2, characters 0-20: Cannot find file nosuch.cat")
    );
    assert_eq!(
        run(
            &dir,
            &["-bell", "./bad.bell", "-model", "./tc.cat", "t.litmus"]
        ),
        fatal(
            "File \"./bad.bell\", line 2, characters 0-17: File \"./bad.cat\", line 2, \
             characters 0-0: unexpected '' (in model)"
        )
    );
    assert_eq!(
        run(
            &dir,
            &["-bell", "./variant.bell", "-model", "./tc.cat", "t.litmus"]
        ),
        (T_ALWAYS.to_string(), String::new(), Some(0))
    );
    assert_eq!(
        run(
            &dir,
            &[
                "-variant",
                "exp",
                "-bell",
                "./variant.bell",
                "-model",
                "./tc.cat",
                "t.litmus"
            ]
        ),
        fatal("File \"./variant.bell\", line 2, characters 9-29: Cannot find file nosuch.cat")
    );
    assert_eq!(
        run(
            &dir,
            &[
                "-bell",
                "./called.bell",
                "-model",
                "./tc.cat",
                "t.litmus",
                "u.litmus"
            ]
        ),
        (
            String::new(),
            "File \"./called.bell\", line 2, characters 16-36: Cannot find file nosuch.cat\n"
                .repeat(2),
            Some(0)
        )
    );
    // `hazmat check` stops before any test, with its own located error, as ever.
    let out = hazmat(
        &dir,
        &[
            "check",
            "--bell",
            "./variant.bell",
            "--cat",
            "./tc.cat",
            "t.litmus",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}
