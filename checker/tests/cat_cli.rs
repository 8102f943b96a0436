//! `hazmat check` with a model given by its files (`--cat`, `--bell`, `--macros`, `-I`,
//! `--conf`, `--interpret`): located diagnostics for the model's mistakes, and `--json`
//! saying which model ran.
//! The tests that need the kernel's model files and herd7's library read them from the
//! shared folder (see `tests/cat_models.rs`) and, without it, pass having checked nothing.

#[path = "common/scratch.rs"]
mod scratch;
use std::path::{Path, PathBuf};
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
    let dir = scratch::shared(&DIR, "cat-cli");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("temporary file");
    path
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap_or_default()
}

/// The flags `hazmat check --json --cat model [--macros macros] file` raises, sorted.
fn flags_raised(model: &Path, macros: Option<&str>, file: &Path) -> Vec<String> {
    let mut args = vec!["check", "--json", "--cat", s(model)];
    if let Some(m) = macros {
        args.extend(["--macros", m]);
    }
    args.push(s(file));
    let out = hazmat(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}: {stdout}", file.display());
    let j: serde_json::Value = serde_json::from_str(stdout.trim()).expect("one JSON object");
    let mut flags: Vec<String> = j["flags"]
        .as_array()
        .expect("flags")
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_string())
        .collect();
    flags.sort();
    flags
}

/// `hazmat check --interpret` with `options` (the model's files) on `test`: its exit
/// code, standard output and standard error.
fn interpret(options: &[&str], test: &Path) -> (Option<i32>, String, String) {
    let mut args = vec!["check", "--interpret"];
    args.extend_from_slice(options);
    args.push(s(test));
    let out = hazmat(&args);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The `Flag` lines of herd7's output, in order.
fn flag_lines(stdout: &str) -> Vec<&str> {
    stdout.lines().filter(|l| l.starts_with("Flag ")).collect()
}

/// A coherence test of two reads of one write (CoRR), named `name`.
fn corr(name: &str) -> PathBuf {
    temp_file(
        &format!("{name}.litmus"),
        &format!(
            "C {name}\n{{}}\n\
             P0(int *x) {{ WRITE_ONCE(*x, 1); }}\n\
             P1(int *x) {{ int r0; int r1; r0 = READ_ONCE(*x); r1 = READ_ONCE(*x); }}\n\
             exists (1:r0=1 /\\ 1:r1=0)\n"
        ),
    )
}

/// `hazmat herd7` running `model` under `variant` on `tests`, with the kernel's macros.
fn herd7_kernel_macros(model: &Path, variant: &str, tests: &[&Path]) -> Output {
    let macros = "checker/tests/lkmm-history/v6.15-lkmmv2/linux-kernel.def";
    let mut args = vec![
        "herd7",
        "-macros",
        macros,
        "-model",
        s(model),
        "-variant",
        variant,
    ];
    args.extend(tests.iter().map(|t| s(t)));
    hazmat(&args)
}

/// A test file named `name` of the threads `body`, whose condition asks for `x=1`.
fn test_of(name: &str, body: &str) -> PathBuf {
    temp_file(
        &format!("{name}.litmus"),
        &format!("C {name}\n{{}}\n{body}\nexists (x=1)\n"),
    )
}

const SB: &str = "C SB
{}
P0(int *x, int *y) { int r0; WRITE_ONCE(*x, 1); r0 = READ_ONCE(*y); }
P1(int *x, int *y) { int r0; WRITE_ONCE(*y, 1); r0 = READ_ONCE(*x); }
exists (0:r0=0 /\\ 1:r0=0)
";

#[test]
fn a_model_of_ones_own_runs_and_json_says_the_interpreter_ran_it() {
    let test = temp_file("sb.litmus", SB);
    // No coherence order is chosen: reads-from alone, under a check it cannot fail.
    let model = temp_file("po-rf.cat", "\"po and rf\"\nacyclic po | rf as causality\n");
    let out = hazmat(&["check", "--json", "--cat", s(&model), s(&test)]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let j: serde_json::Value = serde_json::from_str(stdout.trim()).expect("one JSON object");
    assert_eq!(j["verdict"], "Sometimes");
    assert_eq!(j["model_source"]["kind"], "interpreted");
    assert!(
        j["model_source"]["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("po-rf.cat")),
        "{j}"
    );
}

#[test]
fn a_syntax_error_in_a_model_is_located() {
    let test = temp_file("sb2.litmus", SB);
    let model = temp_file("broken.cat", "\"broken\"\nlet x = po |\n");
    let out = hazmat(&["check", "--cat", s(&model), s(&test)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.contains("broken.cat:3:1: error: expected an expression"),
        "{stderr}"
    );
}

#[test]
fn a_name_defined_nowhere_is_located_when_the_model_runs() {
    let test = temp_file("sb3.litmus", SB);
    let model = temp_file("unbound.cat", "\"unbound\"\nacyclic po | hb2 as sc\n");
    let out = hazmat(&["check", "--cat", s(&model), s(&test)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.contains("unbound.cat:2:14: error: `hb2` is not defined"),
        "{stderr}"
    );
    assert!(stderr.contains("^^^"), "{stderr}");
}

/// Under `hazmat herd7`, a name the model defines nowhere stops each test that reads it
/// with herd7's error on standard error, and the run goes on with exit code 0: the place
/// is herd7's (the name, the whole `call` of a procedure defined nowhere, or the whole
/// function that is not recursive and reads it), the model named as herd7 names it. The
/// outputs are herd7 7.58's.
#[test]
fn a_name_defined_nowhere_is_herd7s_unbound_var_under_hazmat_herd7() {
    let dir = scratch::folder("cat-cli-unbound");
    let sb = "P0(atomic_int *x, atomic_int *y) { atomic_store_explicit(x, 1, memory_order_relaxed); \
              int r0 = atomic_load_explicit(y, memory_order_relaxed); }\n\
              exists (0:r0=0)\n";
    std::fs::write(dir.join("U1.litmus"), format!("C U1\n{{}}\n{sb}")).expect("test");
    std::fs::write(dir.join("U2.litmus"), format!("C U2\n{{}}\n{sb}")).expect("test");
    for (model, text, herd7) in [
        (
            "top.cat",
            "\"top\"\nlet a = po | nosuch\nacyclic a as x\n",
            "File \"./top.cat\", line 2, characters 13-19: unbound var: nosuch\n",
        ),
        (
            "proc.cat",
            "\"proc\"\nprocedure p(r) =\n  acyclic r | nosuch as x\nend\ncall p(po)\n",
            "File \"./proc.cat\", line 3, characters 14-20: unbound var: nosuch\n",
        ),
        (
            "rec.cat",
            "\"rec\"\nlet rec f(r) = r | nosuch\nlet a = f(po)\nacyclic a as x\n",
            "File \"./rec.cat\", line 2, characters 19-25: unbound var: nosuch\n",
        ),
        (
            "nocall.cat",
            "\"nocall\"\ncall nosuch(po)\n",
            "File \"./nocall.cat\", line 2, characters 0-15: unbound var: nosuch\n",
        ),
        // In a function that is not recursive, herd7 looks up every name the function
        // reads when it makes it, and locates the whole function, over its lines
        // (characters counted from the start of its first line), the outermost one that
        // is not recursive, the first name by name, whether or not a call reads it.
        (
            "fun.cat",
            "\"fun\"\nlet f(r) = r | nosuch\nlet a = f(po)\nacyclic a as x\n",
            "File \"./fun.cat\", line 2, characters 4-21: unbound var: nosuch\n",
        ),
        (
            "lines.cat",
            "\"lines\"\nlet f(r) =\n  r | nosuch\nlet a = f(po)\nacyclic a as x\n",
            "File \"./lines.cat\", line 2, characters 4-23: unbound var: nosuch\n",
        ),
        (
            "nested.cat",
            "\"nested\"\nlet f(r) = let g(x) = x | zz | nosuch in g(r)\nlet a = f(po)\n\
             acyclic a as x\n",
            "File \"./nested.cat\", line 2, characters 4-45: unbound var: nosuch\n",
        ),
        (
            "inrec.cat",
            "\"inrec\"\nlet rec f(r) = let g(x) = x | nosuch in g(r)\nlet a = f(po)\n\
             acyclic a as x\n",
            "File \"./inrec.cat\", line 2, characters 19-36: unbound var: nosuch\n",
        ),
        (
            "lambda.cat",
            "\"lambda\"\nlet f = fun r -> r | nosuch\nlet a = f(po)\nacyclic a as x\n",
            "File \"./lambda.cat\", line 2, characters 8-27: unbound var: nosuch\n",
        ),
        (
            "unread.cat",
            "\"unread\"\nlet f(r) = if \"lkmmv2\" then nosuch else r\nlet a = f(po)\n\
             acyclic a as x\n",
            "File \"./unread.cat\", line 2, characters 4-41: unbound var: nosuch\n",
        ),
    ] {
        std::fs::write(dir.join(model), text).expect("model");
        let out = Command::new(env!("CARGO_BIN_EXE_hazmat"))
            .args([
                "herd7",
                "-model",
                &format!("./{model}"),
                "U1.litmus",
                "U2.litmus",
            ])
            .current_dir(&dir)
            .output()
            .expect("hazmat runs");
        assert_eq!(out.status.code(), Some(0), "{model}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "", "{model}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!("{herd7}{herd7}"),
            "{model}"
        );
    }
    // Under `try`, the function's error is caught, and the test is decided with the
    // `with` branch, as in herd7.
    // FIXME: herd7 also prints its error on standard error, once for each execution it
    // runs the model on (`File "./try.cat", line 2, characters 4-21: unbound var: nosuch`,
    // once for U1); hazmat prints nothing.
    std::fs::write(
        dir.join("try.cat"),
        "\"try\"\nlet f(r) = r | nosuch\nlet a = try f(po) with po\nacyclic a as x\n",
    )
    .expect("model");
    let out = Command::new(env!("CARGO_BIN_EXE_hazmat"))
        .args(["herd7", "-model", "./try.cat", "U1.litmus"])
        .current_dir(&dir)
        .output()
        .expect("hazmat runs");
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Observation U1 Always 1 0\n"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A name herd7 gives every model that hazmat does not compute (`iico_data`, the data
/// flow inside one of herd7's instructions) is refused where the answer needs it, with
/// what it is, even under `try`, whose `with` branch would be another answer than
/// herd7's; where only an unneeded binding reads it, the model runs, as in herd7.
#[test]
fn a_name_herd7_gives_that_hazmat_does_not_compute_is_refused_even_under_try() {
    let test = temp_file("sb-iico.litmus", SB);
    let model = temp_file(
        "iico.cat",
        "\"iico\"\nlet d = try iico_data with 0\nacyclic po | d as x\n",
    );
    let (code, _, stderr) = interpret(&["--cat", s(&model)], &test);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "iico.cat:2:13: error: `iico_data` is herd7's data flow inside one instruction: \
             herd7 gives it to every model, hazmat does not compute it"
        ),
        "{stderr}"
    );
    let unneeded = temp_file(
        "iico-unneeded.cat",
        "\"iico\"\nlet d = try iico_data with 0\nlet e = d | po\nacyclic po as x\n",
    );
    let (code, stdout, _) = interpret(&["--cat", s(&unneeded)], &test);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("Sometimes 1 3"), "{stdout}");
}

#[test]
fn a_missing_include_names_where_it_was_looked_for() {
    let test = temp_file("sb4.litmus", SB);
    let model = temp_file("includes.cat", "\"includes\"\ninclude \"nowhere.cat\"\n");
    let out = hazmat(&["check", "--cat", s(&model), s(&test)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.contains("cannot find the file `nowhere.cat`"),
        "{stderr}"
    );
    assert!(stderr.contains("looked in"), "{stderr}");
}

/// The shared folder's model files and herd7's library, if present.
fn kernel_model() -> Option<(PathBuf, PathBuf)> {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    let model = shared.join("conformance/lkmm-model");
    let lib = shared.join("oracle/herd");
    (model.join("linux-kernel.cfg").is_file() && lib.join("cross.cat").is_file())
        .then_some((model, lib))
}

#[test]
fn the_kernels_cfg_runs_the_native_model_unless_interpret_is_given() {
    let Some((model, lib)) = kernel_model() else {
        eprintln!("the kernel's model files or herd7's library not found; nothing to check");
        return;
    };
    let test = temp_file("sb6.litmus", SB);
    let base = [
        "check",
        "--json",
        "-I",
        s(&model),
        "-I",
        s(&lib),
        "--conf",
        "linux-kernel.cfg",
    ];
    let run = |extra: &[&str]| -> serde_json::Value {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        args.push(s(&test));
        let out = hazmat(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("one JSON object")
    };
    let native = run(&[]);
    let interpreted = run(&["--interpret"]);
    assert_eq!(native["model_source"]["kind"], "native");
    assert_eq!(interpreted["model_source"]["kind"], "interpreted");
    for field in ["verdict", "states", "positive", "negative", "flags"] {
        assert_eq!(native[field], interpreted[field], "{field}");
    }
}

/// A bell tag named as a set herd7 gives every model (`'M`) replaces that set, as in
/// herd7, which warns on every execution: hazmat warns once, at the `enum`, and answers as
/// herd7 7.58 does (its flags below). The kernel's own bell draws no such warning.
#[test]
fn a_bell_tag_named_as_a_set_of_every_model_replaces_it_with_a_warning() {
    let bell = temp_file(
        "own-sets.bell",
        "\"a bell whose tag names a set herd7 gives every model\"\n\
         enum Accesses = 'once || 'M\ninstructions R[Accesses]\ninstructions W[Accesses]\n",
    );
    let cat = temp_file(
        "own-sets.cat",
        "\"reads M\"\nflag ~empty (W \\ M) as writes-outside-M\n\
         flag ~empty (R \\ M) as reads-outside-M\nflag ~empty (M & Once) as once-inside-M\n",
    );
    let test = temp_file(
        "own-sets.litmus",
        "C own-sets\n{}\nP0(int *x, int *y) { int r0; __store{M}(*x, 1); r0 = __load{once}(*y); }\n\
         exists (0:r0=0)\n",
    );
    let (code, stdout, stderr) = interpret(&["--bell", s(&bell), "--cat", s(&cat)], &test);
    assert_eq!(code, Some(0), "{stderr}");
    // herd7 7.58: `Flag writes-outside-M`, `Flag reads-outside-M`, no `once-inside-M`.
    assert_eq!(
        flag_lines(&stdout),
        ["Flag reads-outside-M", "Flag writes-outside-M"],
        "{stdout}"
    );
    assert!(
        stdout.contains("Observation own-sets Always 1 0"),
        "{stdout}"
    );
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("warning:")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].starts_with(&format!(
            "{}:2:1: warning: the tag `'M` of `enum Accesses`",
            s(&bell)
        )),
        "{stderr}"
    );
    let kernel = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lkmm-history/v6.15-lkmmv2");
    let sb = temp_file("sb-own-sets.litmus", SB);
    let (code, _, stderr) = interpret(&["-I", s(&kernel), "--conf", "linux-kernel.cfg"], &sb);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("warning: the tag"), "{stderr}");
}

/// The sets a bell's tags give, as herd7 7.58 gives them: only to the tags an
/// `instructions` line lists (a tag only its `enum` names has none: herd7 stops with
/// `unbound var: Q`); and of two tags whose sets have one name (`'once`, `'Once`), the set
/// holds the events of the tag last in byte order, whichever is declared first (herd7
/// builds the sets from its sorted set of annotations), with a warning.
#[test]
fn a_bells_tag_sets_are_herd7s() {
    let test = temp_file(
        "tag-sets.litmus",
        "C tag-sets\n{}\n\
         P0(int *x, int *y) { int r0; __store{Once}(*x, 1); r0 = __load{once}(*y); r0 = __load{p}(*x); }\n\
         exists (0:r0=0)\n",
    );
    let run = |bell: &str, cat: &str| {
        let bell = temp_file("tag-sets.bell", bell);
        let cat = temp_file("tag-sets.cat", cat);
        interpret(&["--bell", s(&bell), "--cat", s(&cat)], &test)
    };
    let once =
        "\"once\"\nflag ~empty (W & Once) as w-in-Once\nflag ~empty (R & Once) as r-in-Once\n";
    for order in ["'once || 'Once", "'Once || 'once"] {
        let bell = format!(
            "\"tags\"\nenum Acc = {order} || 'p\ninstructions R[Acc]\ninstructions W[Acc]\n"
        );
        let (code, stdout, stderr) = run(&bell, once);
        assert_eq!(code, Some(0), "{stderr}");
        // herd7 7.58, either order: `Flag r-in-Once` alone.
        assert_eq!(flag_lines(&stdout), ["Flag r-in-Once"], "{order}: {stdout}");
        assert!(
            stderr.contains("warning: the tags")
                && stderr.contains("holds the events tagged `'once`"),
            "{order}: {stderr}"
        );
    }
    let unlisted = "\"tags\"\nenum Acc = 'once || 'p || 'q\ninstructions R[{'once, 'p}]\n";
    let (code, stdout, _) = run(unlisted, "\"p\"\nflag ~empty P as p-nonempty\n");
    assert_eq!(code, Some(0));
    assert_eq!(flag_lines(&stdout), ["Flag p-nonempty"], "{stdout}");
    let (code, stdout, stderr) = run(unlisted, "\"q\"\nflag ~empty Q as q-nonempty\n");
    assert_ne!(code, Some(0), "{stdout}");
    assert!(
        stderr.contains(
            "tag-sets.cat:2:13: error: `Q` is not defined: the tag `'q` of `enum Acc` gives it \
             only if an `instructions` (or `default`) line of the bell file lists the tag"
        ),
        "{stderr}"
    );
    // A cat file's own `enum` and `instructions` give no set either (herd7 7.58: `unbound
    // var: P`).
    let cat = temp_file(
        "tag-sets-alone.cat",
        "\"alone\"\nenum Acc = 'p\ninstructions R[Acc]\nflag ~empty P as p-nonempty\n",
    );
    let (code, _, stderr) = interpret(&["--cat", s(&cat)], &test);
    assert_ne!(code, Some(0));
    assert!(
        stderr.contains("tag-sets-alone.cat:4:13: error: `P` is not defined"),
        "{stderr}"
    );
}

/// The fence words of the kernel's macro files of 2017 (`__fence{rcu_read_lock}`,
/// `__fence{sync}`, written with underscores and named by a bell's `enum`) are
/// annotations like any other, as herd7 reads them: the output is herd7 7.58's, line for
/// line (`Time` aside).
#[test]
fn the_fence_words_of_2017_are_annotations() {
    let def = temp_file(
        "k17.def",
        "rcu_read_lock() { __fence{rcu_read_lock}; }\n\
         rcu_read_unlock() { __fence{rcu_read_unlock}; }\n\
         synchronize_rcu() { __fence{sync}; }\n\
         READ_ONCE(X) __load{once}(X)\nWRITE_ONCE(X,V) { __store{once}(X,V); }\n",
    );
    let bell = temp_file(
        "k17.bell",
        "\"k17\"\nenum Accesses = 'once\ninstructions R[Accesses]\ninstructions W[Accesses]\n\
         enum Barriers = 'rcu_read_lock || 'rcu_read_unlock || 'sync\ninstructions F[Barriers]\n",
    );
    let cat = temp_file(
        "k17.cat",
        "\"k17\"\nflag ~empty Rcu_read_lock as has-lock\nflag ~empty Sync as has-sync\n\
         flag ~empty (Rcu_read_unlock & Sync) as unlock-is-sync\n",
    );
    let test = temp_file(
        "k17.litmus",
        "C k17\n{}\n\
         P0(int *x, int *y) { int r0; rcu_read_lock(); r0 = READ_ONCE(*x); rcu_read_unlock(); }\n\
         P1(int *x) { WRITE_ONCE(*x, 1); synchronize_rcu(); }\nexists (0:r0=1)\n",
    );
    let (code, stdout, stderr) = interpret(
        &["--macros", s(&def), "--bell", s(&bell), "--cat", s(&cat)],
        &test,
    );
    assert_eq!(code, Some(0), "{stderr}");
    let ours: Vec<&str> = stdout.lines().filter(|l| !l.starts_with("Time ")).collect();
    let herd7 = [
        "Test k17 Allowed",
        "States 2",
        "0:r0=0;",
        "0:r0=1;",
        "Ok",
        "Witnesses",
        "Positive: 1 Negative: 1",
        "Flag has-lock",
        "Flag has-sync",
        "Condition exists (0:r0=1)",
        "Observation k17 Sometimes 1 1",
        "Hash=b2cd74b67b023e060e45006c30469d5f",
        "",
    ];
    assert_eq!(ours, herd7, "{stdout}");
}

/// herd7's model library, beside the oracle, when present.
fn herdlib() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/oracle/herd");
    dir.join("c11.def").is_file().then_some(dir)
}

const XCHG: &str = "C XCHG
{}
P0(atomic_int *x) { int r0 = atomic_exchange_explicit(x, 1, memory_order_acq_rel); }
P1(atomic_int *x) { int r0 = atomic_load_explicit(x, memory_order_relaxed); }
exists (1:r0=1)
";

/// With herd7's C11 macros, a model of one's own sees an exchange as herd7's one event,
/// both read and write with its order, and `rmw` empty; herd7's other C11 models run in
/// the interpreter, rc11.cat natively.
#[test]
fn with_c11_macros_a_model_sees_one_event_per_read_modify_write() {
    let Some(lib) = herdlib() else {
        eprintln!("herd7's library not found; nothing to check");
        return;
    };
    let test = temp_file("xchg.litmus", XCHG);
    let model = temp_file(
        "one-event.cat",
        "C one-event\nflag ~empty (R & W & ACQ_REL & RMW) as one-event\n\
         flag ~empty rmw as two-events\n",
    );
    let json = |cat: &str| -> serde_json::Value {
        let out = hazmat(&[
            "check",
            "--json",
            "-I",
            s(&lib),
            "--macros",
            "c11.def",
            "--cat",
            cat,
            s(&test),
        ]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_str(stdout.trim()).expect("one JSON object")
    };
    let mine = json(s(&model));
    assert_eq!(mine["model_source"]["kind"], "interpreted");
    let flags = mine["flags"].to_string();
    assert!(
        flags.contains("one-event") && !flags.contains("two-events"),
        "{mine}"
    );
    for (cat, kind) in [
        ("c11_partialSC.cat", "interpreted"),
        ("simple-c11.cat", "interpreted"),
        ("rc11.cat", "native"),
    ] {
        let j = json(cat);
        assert_eq!(j["model_source"]["kind"], kind, "{cat}: {j}");
        assert_eq!(j["verdict"], "Sometimes", "{cat}: {j}");
    }
}

/// herd7's `annot` set, as its C front end fills it: the accesses and fences that carry an
/// annotation (`WRITE_ONCE`, `smp_mb()`, a word of one's own), not a plain access, not a
/// C11 fence (which carries a memory order), not the SRCU event of `synchronize_srcu()`
/// on its structure. hazmat put every fence in it, the C11 fence and the SRCU event
/// included. The flags are herd7 7.58's on the same files.
#[test]
fn herd7s_annot_set_holds_the_annotated_accesses_and_fences() {
    let model = temp_file(
        "annot.cat",
        "\"annot\"\nflag ~empty (annot & F) as annotated-fence\n\
         flag ~empty (annot & M) as annotated-access\n\
         flag ~empty (annot \\ (F | M)) as annotated-other\n",
    );
    let flags = |macros: Option<&str>, name: &str, body: &str| {
        flags_raised(&model, macros, &test_of(name, body))
    };
    assert_eq!(
        flags(None, "plain-mb", "P0(int *x) { *x = 1; smp_mb(); }"),
        ["annotated-fence"]
    );
    assert_eq!(
        flags(
            None,
            "once-srcu",
            "P0(int *x, struct srcu_struct *s) { WRITE_ONCE(*x, 1); synchronize_srcu(s); }"
        ),
        ["annotated-access"]
    );
    assert_eq!(
        flags(None, "own-word", "P0(int *x) { __store{mine}(*x, 1); }"),
        ["annotated-access"]
    );
    assert!(
        flags(
            Some("c11.def"),
            "c11-fence",
            "P0(atomic_int *x) { atomic_store_explicit(x, 1, memory_order_relaxed); \
             atomic_thread_fence(memory_order_seq_cst); }"
        )
        .is_empty()
    );
}

/// herd7's `NA` is every event that is not a C11 atomic access (fences, lock events and
/// initial writes included), and its `LS` holds only successful C11 mutex locks, which the
/// kernel's `spin_lock()` is not. hazmat had `NA` as the memory accesses only and `LS` as
/// the spinlock's events. The flags are herd7 7.58's on the same files.
#[test]
fn herd7s_na_and_ls_sets_are_filled_as_herd7_fills_them() {
    let model = temp_file(
        "na-ls.cat",
        "\"na-ls\"\nflag ~empty (NA & F) as na-fence\nflag ~empty (NA & LK) as na-lock\n\
         flag ~empty (NA & IW) as na-init\nflag ~empty LS as ls\nflag ~empty LK as lk\n",
    );
    let flags = |name: &str, body: &str| flags_raised(&model, None, &test_of(name, body));
    assert_eq!(
        flags("na-mb", "P0(int *x) { *x = 1; smp_mb(); }"),
        ["na-fence", "na-init"]
    );
    assert_eq!(
        flags(
            "na-lock",
            "P0(spinlock_t *l, int *x) { spin_lock(l); WRITE_ONCE(*x, 1); spin_unlock(l); }"
        ),
        ["lk", "na-init", "na-lock"]
    );
}

/// Every set herd7's C front end gives a model, met with every kind of event, and every
/// relation, between every two kinds, in both dialects: the flags of
/// `tests/cat-sets/probe.cat` and `relations.cat` on each litmus file there are herd7
/// 7.58's (`FILE.flags`, `FILE.relations`). This found `annot` holding C11 fences and missing the SRCU
/// read and write of today's macro file, `NA` without fences and lock events, and `LS`
/// holding the spinlock's events.
#[test]
fn the_sets_a_model_reads_are_herd7s() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cat-sets");
    let kernel_def = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/lkmm-history/v6.15-lkmmv2/linux-kernel.def");
    let files = hazmat_checker::testkit::harness::litmus_files(&dir);
    assert!(files.len() >= 8, "{} litmus files", files.len());
    for (probe, kind) in [
        ("probe.cat", "flags"),
        ("relations.cat", "relations"),
        ("others.cat", "others"),
    ] {
        let probe = dir.join(probe);
        for file in &files {
            compare_flags(&dir, &kernel_def, &probe, kind, file);
        }
    }
}

/// hazmat's flags of the model `probe` on `file` against herd7's in `FILE.kind`.
fn compare_flags(dir: &Path, kernel_def: &Path, probe: &Path, kind: &str, file: &Path) {
    let name = file
        .file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .to_string();
    let macros = if name.starts_with('c') {
        "c11.def"
    } else {
        s(kernel_def)
    };
    let ours = flags_raised(probe, Some(macros), file);
    let expected =
        std::fs::read_to_string(dir.join(format!("{name}.{kind}"))).expect("herd7's flags");
    let theirs: Vec<&str> = expected.lines().collect();
    assert_eq!(ours, theirs, "{name}.{kind}");
}

/// A variant is read as herd7 reads it, on the command line and in a model's `if`: in any
/// case and by any of its names (`back` is `backcompat`, `LKMMv2` is `lkmmv2`, `t07` is
/// `T07`); a name none of herd7's variants has is unset, with a warning at the `if`, as
/// herd7 warns; herd7's flags of 7.58 on the model below, held line for line.
#[test]
fn a_variant_is_read_by_any_of_its_names_as_herd7_reads_it() {
    let test = temp_file("sb-variants.litmus", SB);
    let model = temp_file(
        "variants.cat",
        "\"variants\"\n\
         if \"backcompat\" flag ~empty po as set-backcompat end\n\
         if \"LKMMv2\" flag ~empty po as set-lkmmv2 end\n\
         if \"frob\" flag ~empty po as set-frob end\n\
         let x = if \"T07\" then po else 0\n\
         flag ~empty x as set-t07\n",
    );
    let run = |variant: &str| {
        let out = herd7_kernel_macros(&model, variant, &[&test]);
        assert_eq!(out.status.code(), Some(0), "{variant}");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let flags: Vec<String> = flag_lines(&stdout).iter().map(|l| l.to_string()).collect();
        (flags, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (flags, stderr) = run("back,lkmmv2,t07");
    assert_eq!(
        flags,
        ["Flag set-backcompat", "Flag set-lkmmv2", "Flag set-t07"]
    );
    assert!(
        stderr.contains("variants.cat:4:1: warning: \"frob\" is none of herd7's variants"),
        "{stderr}"
    );
    let (flags, _) = run("BackCompat");
    assert_eq!(flags, ["Flag set-backcompat"]);
}

/// The variants under which herd7 7.58 answers a C test in a way hazmat does not follow
/// (`mixed`: no execution at all; `deps`: no `addr`, `data`, `ctrl`; `vmsa`, `kvm`,
/// `morello`: an internal error) are refused by name on both command lines, and the names
/// herd7 refuses (`weakpredicated`, which its own list shows, and `dic`) are herd7's error.
#[test]
fn the_variants_hazmat_does_not_follow_are_refused_by_name() {
    let test = temp_file("sb-refused-variants.litmus", SB);
    let conf = "checker/tests/lkmm-history/v6.15-lkmmv2/linux-kernel.cfg";
    for variant in ["mixed", "deps", "kvm", "Morello"] {
        let out = hazmat(&["herd7", "-conf", conf, "-variant", variant, s(&test)]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(0), "{variant}");
        assert!(
            stderr.contains(&format!("-variant {variant} is not supported by hazmat"))
                && stderr.contains("herd7 7.58"),
            "{variant}: {stderr}"
        );
        let out = hazmat(&["check", "--conf", conf, "--variant", variant, s(&test)]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(0), "{variant}");
        assert!(stderr.contains("herd7 7.58"), "{variant}: {stderr}");
    }
    for variant in ["weakpredicated", "dic"] {
        let out = hazmat(&["herd7", "-conf", conf, "-variant", variant, s(&test)]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("tag {variant} for -variant is wrong")),
            "{variant}: {stderr}"
        );
    }
}

/// herd7's universe `_` (and `~0`, the complement of its empty value) is every event or
/// every pair of events, whichever the operation that meets it reads: a relation beside
/// `po`, under `;`, `*`, `^-1` and the checks, a set under `domain` and beside sets. The
/// flags are herd7 7.58's on this model and test.
#[test]
fn the_universe_is_a_set_or_a_relation_as_herd7_reads_it() {
    let test = temp_file("sb-universe.litmus", SB);
    let model = temp_file(
        "universe.cat",
        "\"universe\"\n\
         flag ~empty (po & _) as inter-is-po\n\
         flag ~empty ((_ \\ po) & po) as minus-po-has-po\n\
         flag ~empty ((_ \\ po) & (R * W)) as minus-po-has-rw\n\
         flag ~empty (_ ; po) as seq\n\
         flag ~acyclic (~0) as complement-of-0-cyclic\n\
         flag ~empty ((_*) \\ _) as star-beyond\n\
         flag ~empty (domain(_) \\ M) as domain-beyond-m\n\
         flag ~empty ((po | _) \\ (_ * _)) as union-beyond-product\n\
         flag ~empty (~_) as complement-of-universe\n\
         flag ~empty (_ \\ (W | R | F)) as universe-set-beyond\n\
         flag ~irreflexive (_^-1) as inverse-reflexive\n",
    );
    let macros = "checker/tests/lkmm-history/v6.15-lkmmv2/linux-kernel.def";
    let out = hazmat(&["herd7", "-macros", macros, "-model", s(&model), s(&test)]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert_eq!(
        flag_lines(&stdout),
        [
            "Flag complement-of-0-cyclic",
            "Flag inter-is-po",
            "Flag inverse-reflexive",
            "Flag minus-po-has-rw",
            "Flag seq",
        ],
        "{stdout}"
    );
}

/// herd7's `pco`, as it gives it to a model file under its default `-optace iico` (`-optace
/// true` adds more, see `tests/herd7_config.rs`): each location's initial write before its
/// other writes, and the writes
/// before the final one. Not the coherence program order and reads-from show: under
/// `cos-opt`, `cos.cat` generates coherence orders from `pco`, and a model without a
/// check of its own sees the orders that contradict them (hazmat had added them to `pco`
/// and lost those executions). The outputs are herd7 7.58's on this model and these tests.
#[test]
fn pco_is_herd7s_initial_and_final_writes_only() {
    let corr = corr("CoRR-pco");
    let corw = temp_file(
        "corw-pco.litmus",
        "C CoRW-pco\n{}\n\
         P0(int *x) { int r0; r0 = READ_ONCE(*x); WRITE_ONCE(*x, 2); }\n\
         P1(int *x) { WRITE_ONCE(*x, 1); WRITE_ONCE(*x, 3); }\n\
         exists (0:r0=3 /\\ x=2)\n",
    );
    let model = temp_file(
        "pco.cat",
        "\"pco probe\"\n\
         include \"cos.cat\"\n\
         flag ~empty pco as pco-nonempty\n\
         flag ~empty (pco & ((W \\ IW) * (W \\ IW))) as pco-between-writes\n\
         flag ~empty (pco & po) as pco-in-po\n\
         flag ~empty (pco & (IW * W)) as pco-from-init\n",
    );
    for variant in ["cos-opt", "lkmmv2"] {
        let out = herd7_kernel_macros(&model, variant, &[&corr, &corw]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{stdout}");
        let lines: Vec<&str> = stdout
            .lines()
            .filter(|l| {
                ["States", "Flag", "Observation"]
                    .iter()
                    .any(|w| l.starts_with(w))
            })
            .collect();
        assert_eq!(
            lines,
            [
                "States 4",
                "Flag pco-from-init",
                "Flag pco-nonempty",
                "Observation CoRR-pco Sometimes 1 3",
                "States 12",
                "Flag pco-between-writes",
                "Flag pco-from-init",
                "Flag pco-in-po",
                "Flag pco-nonempty",
                "Observation CoRW-pco Sometimes 2 22",
            ],
            "{variant}: {stdout}"
        );
    }
}

/// A local binding in a function's body of what changes from one execution to the next
/// (`let t1 = rf in t1`) is evaluated on each execution: it had been taken for a fixed
/// value, kept from the first execution of the same thread paths (found by generated
/// models). herd7 7.58 raises none of these flags on these tests.
#[test]
fn a_local_binding_in_a_function_is_evaluated_on_each_execution() {
    let corr = corr("CoRR-local");
    let model = temp_file(
        "local.cat",
        "\"local bindings in functions\"\n\
         include \"cos.cat\"\n\
         let k1(a) = (let t1 = rf in t1)\n\
         let k2(a) = (a ; (let t1 = rfe in t1))\n\
         let k3(a) = (let rec t1 = rf | (t1 ; rf) in t1)\n\
         flag ~empty (k1(po) \\ rf) as k1-is-not-rf\n\
         flag ~empty (k2(_) \\ (_ ; rfe)) as k2-is-not-seq\n\
         flag ~empty (k3(po) \\ rf+) as k3-is-not-rf-plus\n",
    );
    let out = herd7_kernel_macros(&model, "lkmmv2", &[&corr]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("Observation CoRR-local"), "{stdout}");
    assert_eq!(flag_lines(&stdout), Vec::<&str>::new(), "{stdout}");
}

/// herd7 evaluates a model file on the runs it cuts at a loop's unrolling too, before it
/// drops them, so an `assert` that fails only on such a run stops the test: here two reads
/// of one write in program order, which only the run cut after two rounds of the loop
/// has. Without the `assert` the test is decided, the cut runs dropped with a warning.
#[test]
fn an_assert_failing_on_a_run_cut_at_a_loop_stops_the_test_as_in_herd7() {
    let test = temp_file(
        "cut-loop.litmus",
        "C cut-loop\n{ x = 0; }\n\
         P0(int *x) { int r0 = 0; while (r0 == 0) { r0 = READ_ONCE(*x); } }\n\
         P1(int *x) { WRITE_ONCE(*x, 1); }\n\
         exists (0:r0=1)\n",
    );
    let model = |name: &str, assert: bool| {
        let check = if assert { "assert " } else { "flag ~" };
        temp_file(
            name,
            &format!(
                "\"two reads of one write\"\n\
                 let same = ([R] ; po ; [R]) & (rf^-1 ; rf)\n\
                 {check}empty same as same\n\
                 acyclic po | rf as sc\n"
            ),
        )
    };
    let macros = "checker/tests/lkmm-history/v6.15-lkmmv2/linux-kernel.def";
    let asserting = model("cut-assert.cat", true);
    let out = hazmat(&[
        "herd7",
        "-macros",
        macros,
        "-model",
        s(&asserting),
        s(&test),
    ]);
    // herd7 7.58's whole output.
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Warning: File \"cut-loop.litmus\": same assertion failed, check input test. (User \
         error)\n"
            .replace("cut-loop.litmus", s(&test))
    );
    let (code, stdout, stderr) = interpret(&["--cat", s(&asserting), "--macros", macros], &test);
    assert_eq!(code, Some(2), "{stdout}");
    assert!(stderr.contains("the assertion `same` fails"), "{stderr}");

    let flagging = model("cut-flag.cat", false);
    let out = hazmat(&["herd7", "-macros", macros, "-model", s(&flagging), s(&test)]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("Observation cut-loop Always 2 0"),
        "{stdout}"
    );
    assert!(!stdout.contains("Flag same"), "{stdout}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("unrolling limit exceeded"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// herd7 reads the kernel's internal read-modify-writes (`__xchg{mb}`) in a C11 test, with
/// `c11.def` or no macro file, as the model's variants say: without `lkmmv2` an `mb`
/// instruction sits between two fences, with it there are none. hazmat read them the
/// `lkmmv2` way whenever no macro file of the kernel's dialect was given, so a model
/// reading the fences lost its flags (found by the generated models: a `fencerel(F)` flag).
#[test]
fn a_kernel_rmw_in_a_c11_test_has_its_fences_as_the_variants_say() {
    let test = temp_file(
        "c11-xchg-mb.litmus",
        "C c11-xchg-mb\n{}\nP0(int *x) { int r2; r2 = __xchg{mb}(x, 2); }\nexists (x=2)\n",
    );
    let model = temp_file(
        "fences.cat",
        "\"fences\"\n\
         flag ~empty F as fence\n\
         flag ~empty ([F] ; po ; [F]) as fence-fence\n\
         flag ~empty ([RMW] ; po ; [F]) as rmw-fence\n\
         flag ~empty ([F] ; po ; [RMW]) as fence-rmw\n",
    );
    // herd7 7.58's flags: without lkmmv2, with c11.def and with no macro file alike.
    let v1 = [
        "Flag fence",
        "Flag fence-fence",
        "Flag fence-rmw",
        "Flag rmw-fence",
    ];
    for (variant, macros, expected) in [
        (None, Some("c11.def"), &v1[..]),
        (None, None, &v1[..]),
        (Some("lkmmv2"), Some("c11.def"), &[][..]),
        (Some("lkmmv2"), None, &[][..]),
    ] {
        let mut args = vec!["herd7", "-model", s(&model)];
        if let Some(v) = variant {
            args.extend(["-variant", v]);
        }
        if let Some(m) = macros {
            args.extend(["-macros", m]);
        }
        args.push(s(&test));
        let out = hazmat(&args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("Observation c11-xchg-mb Always 1 0"),
            "{stdout}"
        );
        assert_eq!(
            flag_lines(&stdout),
            expected,
            "{variant:?} {macros:?}: {stdout}"
        );
    }
}

/// `hazmat herd7` with `options` on `test` under a model with no check, with the kernel's
/// current bell and macros: every execution allowed, values out of thin air too.
fn herd7_with_no_check(options: &[&str], test: &Path) -> Output {
    // A model file of the test's own, as the tests run side by side.
    let stem = test
        .file_stem()
        .map_or("test".into(), |n| n.to_string_lossy());
    let model = temp_file(&format!("no-check-{stem}.cat"), "\"no check\"\n");
    let kernel = "checker/tests/lkmm-history/v6.15-lkmmv2";
    let (bell, macros) = (
        format!("{kernel}/linux-kernel.bell"),
        format!("{kernel}/linux-kernel.def"),
    );
    let mut args = vec![
        "herd7",
        "-bell",
        &bell,
        "-macros",
        &macros,
        "-model",
        s(&model),
    ];
    args.extend_from_slice(options);
    args.push(s(test));
    hazmat(&args)
}

/// herd7 counts the fresh values of a `while` loop's rounds as those of nested `if`s, a
/// way cut off at the unrolling limit ending its thread, so a value out of thin air in a
/// later thread is named after that count: here the index two SRCU calls pass round in
/// `P1`, after `P0`'s loop, under a model with no check. hazmat counted no loop, and kept
/// its own numbering (`S3` where herd7 prints `S18`).
#[test]
fn a_value_out_of_thin_air_after_a_loop_is_named_as_herd7_names_it() {
    let test = temp_file(
        "loop-srcu.litmus",
        "C loop-srcu\n{ x = 1; }\n\
         P0(int *x) { int r0; r0 = smp_load_acquire(x); \
         while (r0 == 0) { r0 = smp_load_acquire(x); } }\n\
         P1(int *x, struct srcu_struct *t) { int r0; int r1; r0 = srcu_read_lock(t); \
         r1 = READ_ONCE(*x); srcu_read_unlock(t, r0); }\n\
         locations [0:r0; 1:r0; 1:r1; x;]\n\
         exists ((1:r0=0 \\/ x=0) /\\ ~x=1:r1)\n",
    );
    // herd7 7.58's name for each unrolling limit.
    for (unroll, name) in [("0", "S10"), ("1", "S14"), ("2", "S18"), ("3", "S22")] {
        let out = herd7_with_no_check(&["-unroll", unroll], &test);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains(&format!("0:r0=1; 1:r0={name}; 1:r1=1; [x]=1;")),
            "-unroll {unroll}: {stdout}"
        );
        assert!(
            stdout.contains("Observation loop-srcu Never 0 2"),
            "{stdout}"
        );
    }
}

/// herd7 names a class of values out of thin air after the root its union-find by rank
/// leaves: the registers' round makes each read's value one class with the register
/// read that copies it, and memory's, with fresh ranks, unites them read by read, the
/// last read first, so the two SRCU read-side sections that pass their indices round
/// here print `S7` (`P0`'s copy) where the highest number is `S13`, in the executions
/// where both read `P1`'s unlock. Under a model with no check; herd7 7.58's whole
/// output, `Time` aside.
#[test]
fn values_out_of_thin_air_are_named_after_herd7s_union_find() {
    let test = temp_file("srcu-round.litmus", SRCU_ROUND);
    let out = herd7_with_no_check(&[], &test);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let ours: String = stdout
        .lines()
        .filter(|l| !l.starts_with("Time "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(ours, SRCU_ROUND_HERD7);
}

const SRCU_ROUND: &str = "C srcu-round
{}

P0(int *y, struct srcu_struct *s)
{
	int r0;
	int r1;
	r0 = srcu_read_lock(s);
	WRITE_ONCE(*y, 2);
	r1 = READ_ONCE(*y);
	srcu_read_unlock(s, r0);
}

P1(int *z, struct srcu_struct *s)
{
	int r0;
	int r1;
	r0 = srcu_read_lock(s);
	smp_mb();
	r1 = rcu_dereference(*z);
	srcu_read_unlock(s, r0);
}

locations [0:r0; 0:r1; 1:r0; 1:r1; y; z;]
forall (1:r0=0 \\/ z=0 \\/ 0:r0=2)
";

const SRCU_ROUND_HERD7: &str = "Test srcu-round Required
States 12
0:r0=S7; 0:r1=0; 1:r0=S7; 1:r1=0; [y]=2; [z]=0;
0:r0=S7; 0:r1=0; 1:r0=S13; 1:r1=0; [y]=2; [z]=0;
0:r0=S7; 0:r1=0; 1:r0=0; 1:r1=0; [y]=2; [z]=0;
0:r0=S7; 0:r1=2; 1:r0=S7; 1:r1=0; [y]=2; [z]=0;
0:r0=S7; 0:r1=2; 1:r0=S13; 1:r1=0; [y]=2; [z]=0;
0:r0=S7; 0:r1=2; 1:r0=0; 1:r1=0; [y]=2; [z]=0;
0:r0=S13; 0:r1=0; 1:r0=S13; 1:r1=0; [y]=2; [z]=0;
0:r0=S13; 0:r1=2; 1:r0=S13; 1:r1=0; [y]=2; [z]=0;
0:r0=0; 0:r1=0; 1:r0=S13; 1:r1=0; [y]=2; [z]=0;
0:r0=0; 0:r1=0; 1:r0=0; 1:r1=0; [y]=2; [z]=0;
0:r0=0; 0:r1=2; 1:r0=S13; 1:r1=0; [y]=2; [z]=0;
0:r0=0; 0:r1=2; 1:r0=0; 1:r1=0; [y]=2; [z]=0;
Ok
Witnesses
Positive: 18 Negative: 0
Flag this-model-requires-variant-higher-than-lkmmv1
Condition forall (1:r0=0 \\/ [z]=0 \\/ 0:r0=2)
Observation srcu-round Always 18 0
Hash=4c52ea5e6239d5e6a87f286b58ebf57e

";

/// An instruction whose value changes between executions but that what the thread paths
/// fix makes empty on every one (here, without a fence, anything sequenced after `[F]`) is
/// not evaluated, but only when its evaluation could not fail: the checks of empty values
/// hold, and a set where a relation belongs is still found, located, whether the test has
/// a fence or not.
#[test]
fn instructions_empty_on_every_execution_keep_their_errors() {
    let sb = temp_file("sb-vanish.litmus", SB);
    let fenced = temp_file(
        "sb-vanish-mb.litmus",
        &SB.replacen("WRITE_ONCE(*x, 1);", "WRITE_ONCE(*x, 1); smp_mb();", 1),
    );
    assert_ne!(std::fs::read_to_string(&fenced).unwrap(), SB);
    let good = temp_file(
        "vanish-good.cat",
        "\"empty terms\"\n\
         let fenced = ([F] ; po) | ([F] ; rf)\n\
         let rec chain = fenced | (chain ; fenced)\n\
         acyclic chain as fences\n\
         flag ~empty fenced as has-fence\n\
         flag empty fenced as no-fence\n\
         acyclic po | rf as sc\n",
    );
    assert_eq!(flags_raised(&good, None, &sb), ["no-fence"]);
    assert_eq!(flags_raised(&good, None, &fenced), ["has-fence"]);
    let bad = temp_file(
        "vanish-bad.cat",
        "\"a set sequenced\"\n\
         let fenced = [F] ; rf ; F\n\
         acyclic fenced as fences\n",
    );
    for test in [&sb, &fenced] {
        let (code, _, stderr) = interpret(&["--cat", s(&bad)], test);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(
            stderr.contains("vanish-bad.cat:2:")
                && stderr.contains("a relation was expected, not a set"),
            "{stderr}"
        );
    }
}

/// A binding that only checks empty on every execution of the thread paths read (here
/// `only-fences`, without a fence) is passed over on the later executions of those paths,
/// and so is a term of a union that is empty on every execution (`fence-pairs ; rf`);
/// one a check reads that is not empty (`late`, read after a check that some executions
/// fail) is evaluated on each, and the checks reject the executions herd7 7.58 rejects.
#[test]
fn bindings_and_terms_empty_on_every_execution_change_no_answer() {
    let model = temp_file(
        "dead.cat",
        "\"bindings only empty checks read\"\n\
         include \"cos.cat\"\n\
         let com = rf | co | fr\n\
         acyclic po-loc | com as coherence\n\
         let order = (po | com)+\n\
         let fence-pairs = ext & ((F * _) | (_ * F))\n\
         let only-fences = order ; order\n\
         flag ~empty (fence-pairs & only-fences) as fence-order\n\
         flag ~empty (order & rfe & (W * R)) as external-read\n\
         let late = fr ; order\n\
         irreflexive late as late-order\n\
         flag ~empty (fence-pairs & late) as late-fence\n\
         let fenced-com = com | (fence-pairs ; rf) | rfe\n\
         flag ~empty (fenced-com \\ com) as fence-com\n\
         acyclic fenced-com | po as fenced-sc\n",
    );
    let mp = |name: &str, fence: &str| {
        temp_file(
            &format!("{name}.litmus"),
            &format!(
                "C {name}\n{{}}\n\
                 P0(int *x, int *y) {{ WRITE_ONCE(*x, 1); {fence} WRITE_ONCE(*y, 1); }}\n\
                 P1(int *x, int *y) {{ int r0; int r1; r0 = READ_ONCE(*y); \
                 r1 = READ_ONCE(*x); }}\n\
                 exists (1:r0=1 /\\ 1:r1=0)\n"
            ),
        )
    };
    // herd7 7.58's flags and observations.
    for (test, flags, observation) in [
        (
            corr("CoRR-dead"),
            vec!["Flag external-read"],
            "Observation CoRR-dead Never 0 3",
        ),
        (
            mp("MP-dead", ""),
            vec!["Flag external-read"],
            "Observation MP-dead Never 0 3",
        ),
        (
            mp("MP-dead-mb", "smp_mb();"),
            vec!["Flag external-read", "Flag fence-com", "Flag fence-order"],
            "Observation MP-dead-mb Never 0 2",
        ),
    ] {
        let out = herd7_kernel_macros(&model, "lkmmv2", &[&test]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{stdout}");
        assert_eq!(flag_lines(&stdout), flags, "{stdout}");
        assert!(stdout.contains(&format!("{observation}\n")), "{stdout}");
    }
}
