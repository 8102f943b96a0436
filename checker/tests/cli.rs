//! The `hazmat` binary: subcommands, output and documented exit codes.

#[path = "common/scratch.rs"]
mod scratch;
use std::path::PathBuf;
use std::process::{Command, Output};

fn hazmat(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hazmat"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("hazmat runs")
}

/// Writes `text` to a file of its own in the temporary directory.
fn temp_file(name: &str, text: &str) -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let dir = scratch::shared(&DIR, "cli");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("temporary file");
    path
}

const SB: &str = "C SB
(*
 * Result(sc): Sometimes
 *)
{}
P0(int *x, int *y) { int r0; WRITE_ONCE(*x, 1); r0 = READ_ONCE(*y); }
P1(int *x, int *y) { int r0; WRITE_ONCE(*y, 1); r0 = READ_ONCE(*x); }
exists (0:r0=0 /\\ 1:r0=0)
";

#[test]
fn the_project_corpus_agrees_under_every_model() {
    for model in ["lkmm", "sc", "tso"] {
        let out = hazmat(&["check", "--model", model, "--judge", "litmus/tests"]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{model}: {stdout}");
        assert!(stdout.contains("Observation MP "), "{stdout}");
        assert!(stdout.contains(" 0 disagreements, "), "{stdout}");
    }
}

#[test]
fn a_disagreement_exits_1_and_is_listed() {
    let f = temp_file("sb.litmus", SB);
    let out = hazmat(&[
        "check",
        "--model",
        "sc",
        "--judge",
        f.to_str().unwrap_or_default(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr.contains("expected Sometimes, got Never"), "{stderr}");
    // Under TSO the file states nothing, so nothing is judged: that fails, and says why.
    let out = hazmat(&[
        "check",
        "--model",
        "tso",
        "--judge",
        f.to_str().unwrap_or_default(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "hazmat: error: judged 0 of 1 file(s) under tso; 1 state results for sc only and \
             were not run (`--model sc` judges them; the first: "
        ),
        "{stderr}"
    );
}

/// `--judge` says how many files it judged and why it left the others out; a run that
/// judges none, or a `Result` line that names no model or misspells an outcome, fails.
#[test]
fn judging_says_what_it_judged_and_refuses_result_lines_no_run_would_judge() {
    let out = hazmat(&["check", "--judge", "litmus/tests/c11"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("state results for rc11 only and were not run (`--model rc11` judges them"),
        "{stderr}"
    );
    let out = hazmat(&["check", "--model", "rc11", "--judge", "litmus/tests/c11"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("hazmat: judged 10 of 10 file(s) under rc11\n"),
        "{stderr}"
    );
    let body = "{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nexists (x=1)\n";
    let c11 = "{}\nP0(atomic_int *x) { atomic_store_explicit(x, 1, memory_order_relaxed); }\n\
               exists (x=1)\n";
    let upper = temp_file(
        "upper.litmus",
        &format!("C upper\n(* Result(RC11): Always *)\n{c11}"),
    );
    let lower = temp_file(
        "lower.litmus",
        &format!("C lower\n(* Result: always *)\n{body}"),
    );
    for (f, model, message) in [
        (
            &upper,
            "rc11",
            "`Result(RC11):` names no model, so no run judges this line; did you mean `rc11`?",
        ),
        (
            &lower,
            "lkmm",
            "`always` is no outcome, and would be judged as a flag the test must raise; did you mean `Always`?",
        ),
    ] {
        let out = hazmat(&[
            "check",
            "--model",
            model,
            "--judge",
            f.to_str().unwrap_or_default(),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(message), "{stderr}");
        assert!(
            stderr.contains("1 could not be checked or judged"),
            "{stderr}"
        );
    }
}

#[test]
fn an_unknown_primitive_exits_2_with_its_place() {
    let f = temp_file(
        "memb.litmus",
        "C memb\n{}\nP0(int *x) {\n\tsmp_memb();\n}\nexists (x=0)\n",
    );
    let out = hazmat(&["check", f.to_str().unwrap_or_default()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.contains("memb.litmus:4:2: error: unknown primitive `smp_memb`"),
        "{stderr}"
    );
}

#[test]
fn a_misspelt_primitive_gets_a_caret_and_the_near_names() {
    let f = temp_file(
        "aquire.litmus",
        "C aquire\n{}\nP0(int *x) {\n\tint r0;\n\tr0 = smp_load_aquire(x);\n}\nexists (x=0)\n",
    );
    let out = hazmat(&["check", f.to_str().unwrap_or_default()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.contains(
            "aquire.litmus:5:7: error: unknown primitive `smp_load_aquire`; did you mean \
             `smp_load_acquire`?\n  |\n5 | \tr0 = smp_load_aquire(x);\n  | \t     ^^^^^^^^^^^^^^^"
        ),
        "{stderr}"
    );
}

/// A register nothing defines is read as 0, as herd7 does: the verdict is herd7's, on
/// stdout, and the warning goes to stderr without changing the exit code.
#[test]
fn a_register_nothing_defines_gets_a_warning_on_stderr() {
    let source = "C truth\n{}\nP0(int *x) {\n\tint r0;\n\tr0 = true;\n\tWRITE_ONCE(*x, r0);\n}\nexists (x=1)\n";
    let f = temp_file("truth.litmus", source);
    let out = hazmat(&["check", f.to_str().unwrap_or_default()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout.contains("Observation truth Never 0 1\n"), "{stdout}");
    assert!(!stdout.contains("warning"), "{stdout}");
    assert!(
        stderr.contains(
            "truth.litmus:5:7: warning: `true` is never assigned, declared or given an initial \
             value: herd7 reads it as a register holding 0\n"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("= note: herd7's C dialect has no `true` or `false`: write 1 or 0"));
}

#[test]
fn a_limit_exits_3_and_json_has_one_object_per_test() {
    let f = temp_file("sb-limit.litmus", SB);
    let out = hazmat(&[
        "check",
        "--model",
        "sc",
        "--json",
        "--max-executions",
        "1",
        f.to_str().unwrap_or_default(),
    ]);
    assert_eq!(out.status.code(), Some(3));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1);
    let v: serde_json::Value = serde_json::from_str(lines[0]).expect("valid JSON");
    assert_eq!(v["verdict"], "Unknown");
    assert_eq!(v["unknown"], "1 executions");
    assert_eq!(v["test"], "SB");
}

#[test]
fn parse_and_fmt() {
    let out = hazmat(&["parse", "litmus/tests/classic/MP.litmus"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("ok: test MP with 2 threads"));
    let out = hazmat(&["fmt", "--check", "litmus/tests/classic/MP.litmus"]);
    assert_eq!(out.status.code(), Some(0));
    let f = temp_file("ugly.litmus", SB);
    let out = hazmat(&["fmt", "--check", f.to_str().unwrap_or_default()]);
    assert_eq!(out.status.code(), Some(1));
    let bad = temp_file("bad.litmus", "C bad\n{\n");
    let out = hazmat(&["parse", bad.to_str().unwrap_or_default()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.litmus:"));
}

/// `--judge` leaves out a file that states results for other models only, and says so.
#[test]
fn judging_says_which_files_it_leaves_to_other_models() {
    let file = temp_file("SB-sc-only.litmus", SB);
    let path = file.display().to_string();
    let out = hazmat(&["check", "--judge", &path]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Judging nothing fails.
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        stderr.contains("judged 0 of 1 file(s) under lkmm; 1 state results for sc only")
            && stderr.contains(&path),
        "{stderr}"
    );
    let out = hazmat(&["check", "--model", "sc", "--judge", &path]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("were not run"));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Observation SB "));
}

/// A C11 test checked under the default LKMM keeps herd7's answer and exit code, with a
/// hint on stderr that `--model rc11` exists; a kernel test under RC11 is refused with a
/// hint about `--model`.
#[test]
fn a_test_under_the_other_dialect_s_model_gets_a_hint() {
    let c11 = "litmus/tests/c11/MP+rel+acq.litmus";
    let out = hazmat(&["check", c11]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains("Observation MP+rel+acq Sometimes 1 3\n"),
        "{stdout}"
    );
    assert!(
        stderr.contains(
            "MP+rel+acq.litmus:14:2: warning: `atomic_store_explicit` is a C11 atomic: this \
             test is decided under the model asked for, as herd7 decides it without C11's \
             macros"
        ) && stderr.contains(
            "= note: `--model rc11` decides it under RC11, the model of C11's and Rust's atomics"
        ),
        "{stderr}"
    );
    // Under RC11 itself, no hint.
    let out = hazmat(&["check", "--model", "rc11", c11]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("warning"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = hazmat(&[
        "check",
        "--model",
        "rc11",
        "litmus/tests/classic/MP+wmb+rmb.litmus",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "MP+wmb+rmb.litmus:15:2: error: unknown primitive `WRITE_ONCE`; `WRITE_ONCE` is the \
             Linux kernel's, and this model reads C11's atomics: the kernel's primitives are \
             read under the LKMM (`--model lkmm`, the default)"
        ),
        "{stderr}"
    );
}

/// Drawing options without `--show` would draw nothing: an error says so and what to add.
#[test]
fn drawing_options_without_show_say_why_nothing_is_drawn() {
    let dir = scratch::folder("cli-graphs");
    let file = "litmus/tests/classic/MP+wmb+rmb.litmus";
    let dir_arg = dir.display().to_string();
    for (args, given) in [
        (
            vec!["--graph", dir_arg.as_str(), "--graph-format", "svg"],
            format!("--graph {dir_arg}"),
        ),
        (vec!["--graph-format", "dot"], "--graph-format dot".into()),
        (vec!["--relations", "hb"], "--relations".into()),
    ] {
        let mut all = vec!["check"];
        all.extend(args);
        all.push(file);
        let out = hazmat(&all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(out.stdout.is_empty());
        assert!(
            stderr.contains(&format!(
                "hazmat: error: {given} draws the executions `--show` chooses, and none is \
                 chosen: add `--show witness` (or `counter`, `all`)"
            )),
            "{stderr}"
        );
    }
    // With --show, the drawings are written and listed.
    let out = hazmat(&[
        "check",
        "--show",
        "counter",
        "--show-max",
        "1",
        "--graph",
        &dir_arg,
        "--graph-format",
        "svg",
        file,
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let written = dir.join("MP+wmb+rmb-counter-example-1.svg");
    let exists = written.exists();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        exists && stdout.contains(&format!("wrote {}", written.display())),
        "{stdout}"
    );
}

/// `explain --model rc11` shows a happens-before edge as the steps it is made of: the
/// program order and the release store's `rf` to the acquire load.
#[test]
fn explain_under_rc11_shows_the_steps_of_happens_before() {
    let out = hazmat(&[
        "explain",
        "--model",
        "rc11",
        "litmus/tests/c11/MP+rel+acq.litmus",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains(
            "a: W[rlx] data=1 -sb-> b: W[rel] flag=1 -rf-> c: R[acq] flag=1 -sb-> d: R[rlx] \
             data=0 -rb-> a"
        ),
        "{stdout}"
    );
    assert!(!stdout.contains("-hb->"), "{stdout}");
}

/// A bell file with no cat file runs herd7's default model for C, as herd7 does; hazmat
/// says so, since a user giving a bell file most likely meant a model of their own.
#[test]
fn a_bell_file_without_a_cat_file_names_the_model_that_runs() {
    let bell = temp_file("alone.bell", "\"alone\"\n");
    let out = hazmat(&[
        "check",
        "--bell",
        bell.to_str().expect("a path"),
        "litmus/tests/c11/MP+fence-rel+fence-acq.litmus",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no cat file is named") && stderr.contains("`c11_partialSC.cat`"),
        "{stderr}"
    );
    // With a cat file named, nothing is said.
    let out = hazmat(&[
        "check",
        "--cat",
        "rc11.cat",
        "--bell",
        bell.to_str().expect("a path"),
        "litmus/tests/c11/MP+fence-rel+fence-acq.litmus",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("no cat file is named"), "{stderr}");
}
