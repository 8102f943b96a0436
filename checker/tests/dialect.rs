//! herd7's meaning of names in thread code and of its conditions, and what it refuses after
//! parsing: the checker agrees with herd7 on every example (states, condition as printed,
//! verdict), or refuses where herd7 does.
//!
//! The oracle is `$HAZMAT_ORACLE`, else `../shared/oracle/herd7` beside the repository, with
//! the model files of `$HAZMAT_CONFORMANCE/lkmm-model` (else
//! `../shared/conformance/lkmm-model`); without them the test says so and checks only that
//! hazmat decides the examples it should.

#[path = "common/scratch.rs"]
mod scratch;
use hazmat_checker::{Options, check_source, model};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Tests herd7 decides; the checker must print the same states and observation.
const DECIDED: &[(&str, &str)] = &[
    (
        "undeclared names are registers holding 0",
        "C t\n{ y=1; 0:r5=3; }\nP0(int *x) {\n\tint r0; int r1;\n\tr0 = true + y;\n\tif (false) WRITE_ONCE(*x, 1);\n\tr1 = r5 + r9;\n\tif (r0 == 0) return;\n}\nlocations [0:r9]\nexists (0:r0=0 /\\ 0:r1=3 /\\ x=0)\n",
    ),
    (
        "C keywords are registers",
        "C t\n{ 0:do=1; }\nP0(int *x) {\n\tint for;\n\tfor = do + break + continue + switch;\n\tWRITE_ONCE(*x, for);\n}\nexists (x=1 /\\ 0:for=1)\n",
    ),
    (
        "a parameter is a register that starts with its address",
        "C t\n{ x=1; y=2; }\nP0(int *x, int *y) {\n\tint r0; int r1;\n\tr0 = READ_ONCE(*x);\n\tx = y;\n\tr1 = READ_ONCE(*x);\n}\nexists (0:r0=1 /\\ 0:r1=2 /\\ 0:x=y /\\ 0:y=y)\n",
    ),
    (
        "a parameter assigned in a branch",
        "C t\n{ x=1; }\nP0(int *x) {\n\tint r0;\n\tr0 = READ_ONCE(*x);\n\tif (r0 == 1) { x = 5; }\n}\nexists (0:x=5)\n",
    ),
    (
        "a parameter declared again keeps its address",
        "C t\n{ x=1; }\nP0(int *x) {\n\tint r0; int x;\n\tr0 = READ_ONCE(*x);\n}\nexists (0:r0=1)\n",
    ),
    (
        "a parameter declared with a value",
        "C t\n{ x=1; }\nP0(int *x) {\n\tint r0; int *x = y;\n\tr0 = 5;\n}\nexists (0:r0=5 /\\ 0:x=0)\n",
    ),
    (
        "a register holding an address from the init block",
        "C t\n{ 0:r1=x; x=3; }\nP0(int *x) {\n\tint r0;\n\tr0 = READ_ONCE(*r1);\n}\nexists (0:r0=3)\n",
    ),
    (
        "hexadecimal initial values are 32-bit patterns",
        "C t\n{ x=0xffffffff; }\nP0(int *x) {\n\tint r0;\n\tr0 = READ_ONCE(*x);\n}\nexists (0:r0=-1)\n",
    ),
    (
        "a primitive that gives a value, cast to void",
        "C t\n{}\nP0(int *x) {\n\t(void)xchg(x, 1);\n}\nexists (x=1)\n",
    ),
    (
        "=> binds tighter than \\/ and /\\",
        "C t\n{}\nP0(int *x) {\n\tWRITE_ONCE(*x, 1);\n}\nfilter (x=2 => x=3 /\\ x=1)\nexists (x=2 \\/ x=1 => x=2 \\/ ~x=1 => x=1 => x=2)\n",
    ),
    (
        "an expression statement is computed",
        "C t\n{}\nP0(int *x) {\n\tx + 1;\n\tWRITE_ONCE(*x, 1);\n}\nexists (x=1)\n",
    ),
    (
        "a lone return does nothing",
        "C t\n{}\nP0(int *x) {\n\tint r0;\n\tr0 = READ_ONCE(*x);\n\tif (r0 == 0) return;\n\tWRITE_ONCE(*x, 2);\n}\nexists (x=2)\n",
    ),
];

/// Tests herd7 refuses after parsing; the checker must refuse them too.
const REFUSED: &[(&str, &str)] = &[
    (
        "an unknown primitive",
        "C t\n{}\nP0(int *x) {\n\tint r0;\n\tr0 = smp_load_aquire(x);\n}\nexists (0:r0=0)\n",
    ),
    (
        "a location argument without its star",
        "C t\n{ x=1; }\nP0(int *x) {\n\tint r0;\n\tr0 = READ_ONCE(x);\n}\nexists (0:r0=1)\n",
    ),
    (
        "a location argument without its star, in a write",
        "C t\n{}\nP0(int *x) {\n\tWRITE_ONCE(x, 1);\n}\nexists (x=1)\n",
    ),
    (
        "a primitive that gives a value, as a statement",
        "C t\n{}\nP0(int *x) {\n\txchg(x, 1);\n}\nexists (x=1)\n",
    ),
    (
        "a primitive that gives no value, in an expression",
        "C t\n{}\nP0(int *x) {\n\tint r0;\n\tr0 = WRITE_ONCE(*x, 1);\n}\nexists (x=1)\n",
    ),
    (
        "an expression statement whose computation fails",
        "C t\n{}\nP0(int *x) {\n\t-1 | x;\n}\nexists (x=1)\n",
    ),
    (
        "a parameter named twice",
        "C t\n{}\nP0(int *x, int *x) {\n\tWRITE_ONCE(*x, 1);\n}\nexists (x=1)\n",
    ),
    (
        "an init-block value for a parameter",
        "C t\n{ 0:x=5; }\nP0(int *x) {\n\tint r0;\n\tr0 = x;\n}\nexists (0:r0=5)\n",
    ),
    (
        "a variable given two initial values",
        "C t\n{ x=1; x=2; }\nP0(int *x) {\n\tWRITE_ONCE(*x, 1);\n}\nexists (x=1)\n",
    ),
    (
        "a register given two initial values",
        "C t\n{ 0:r1=x; 0:r1=y; }\nP0(int *x) {\n\tWRITE_ONCE(*x, 1);\n}\nexists (x=1)\n",
    ),
    (
        "a type of no known size",
        "C t\n{ spinlock_t s; }\nP0(int *x) {\n\tWRITE_ONCE(*x, 1);\n}\nexists (x=1)\n",
    ),
    (
        "a variable that is no parameter, dereferenced",
        "C t\n{ y=1; }\nP0(int *x) {\n\tint r0;\n\tr0 = READ_ONCE(*y);\n}\nexists (0:r0=1)\n",
    ),
];

/// The herd7 oracle and the model it runs, when both are at hand.
fn oracle() -> Option<(PathBuf, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    let herd7 = std::env::var_os("HAZMAT_ORACLE")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("oracle/herd7"));
    let model = std::env::var_os("HAZMAT_CONFORMANCE")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("conformance"))
        .join("lkmm-model");
    (herd7.is_file() && model.is_dir()).then_some((herd7, model))
}

/// The states, the condition and the observation of herd7's text, without the test's name;
/// `None` when there is no observation (herd7 refused the test).
fn outcome(text: &str) -> Option<Vec<String>> {
    let mut lines = text.lines();
    let mut out = Vec::new();
    while let Some(l) = lines.next() {
        if let Some(n) = l.strip_prefix("States ") {
            let n: usize = n.trim().parse().ok()?;
            let mut states: Vec<String> = lines.by_ref().take(n).map(str::to_string).collect();
            states.sort();
            out.extend(states);
        } else if l.starts_with("Condition ") {
            out.push(l.to_string());
        } else if let Some(rest) = l.strip_prefix("Observation ") {
            // `Observation NAME Verdict P N`: the name aside.
            out.push(rest.split_once(' ')?.1.to_string());
            return Some(out);
        }
    }
    None
}

fn hazmat(source: &str) -> Option<Vec<String>> {
    let m = model("lkmm").expect("the model exists");
    let checked = check_source(source, m.as_ref(), &Options::default()).ok()?;
    outcome(&checked.herd_text())
}

fn herd7(herd7: &Path, model: &Path, dir: &Path, k: usize, source: &str) -> Option<Vec<String>> {
    let file = dir.join(format!("t{k}.litmus"));
    std::fs::write(&file, source).expect("the temporary file is written");
    let out = Command::new(herd7)
        .arg("-I")
        .arg(model)
        .args(["-conf", "linux-kernel.cfg"])
        .arg(&file)
        .output()
        .expect("herd7 runs");
    outcome(&String::from_utf8_lossy(&out.stdout))
}

#[test]
fn hazmat_decides_and_refuses_as_herd7_does() {
    for (rule, source) in DECIDED {
        assert!(hazmat(source).is_some(), "hazmat refuses: {rule}");
    }
    for (rule, source) in REFUSED {
        assert!(hazmat(source).is_none(), "hazmat decides: {rule}");
    }
    let Some((oracle, model)) = oracle() else {
        eprintln!("the herd7 oracle is not at hand; set HAZMAT_ORACLE to compare with it");
        return;
    };
    let dir = scratch::folder("names");
    let mut disagreements = Vec::new();
    for (k, (rule, source)) in DECIDED.iter().chain(REFUSED).enumerate() {
        let (ours, theirs) = (hazmat(source), herd7(&oracle, &model, &dir, k, source));
        if ours != theirs {
            disagreements.push(format!("{rule}: hazmat {ours:?}, herd7 {theirs:?}"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}
