//! The `hazmat` binary: subcommands, output and documented exit codes.

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
    let dir = std::env::temp_dir().join(format!("hazmat-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
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
