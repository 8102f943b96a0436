//! `herd_hash` against the `Hash=` lines herd7 printed for every test of the conformance
//! corpus (`FOLDER/herd7-out/PATH.out`), when the corpus is present, and on small tests
//! whose hashes herd7 printed, always.
//!
//! The corpus is found through `$HAZMAT_CONFORMANCE`, else `../../shared/conformance`
//! from this package; without it that test passes after saying so.

use std::path::{Path, PathBuf};

fn corpus_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("HAZMAT_CONFORMANCE") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance"),
    };
    dir.is_dir().then_some(dir)
}

fn hash_of(source: &str) -> String {
    let test = hazmat_litmus::parse(source).expect("the test parses");
    hazmat_litmus::herd_hash(&test, source)
}

/// Tests written for this file, each with the hash herd7 7.58 printed for it.
#[test]
fn small_tests_hash_as_herd7_hashes_them() {
    let cases: &[(&str, &str)] = &[
        (
            "C SB\n{}\nP0(int *x, int *y) { WRITE_ONCE(*x, 1); r0 = READ_ONCE(*y); }\n\
             P1(int *x, int *y) { WRITE_ONCE(*y, 1); r0 = READ_ONCE(*x); }\n\
             exists (0:r0=0 /\\ 1:r0=0)\n",
            "c5b13ad9677e04b81561c9c1b5f64991",
        ),
        (
            "C init-forms\n{\nint *p = &y;\nx = 1;\n0:r1 = 0x10;\natomic_t v = ATOMIC_INIT(-2);\n\
             int z;\n}\n\n\
             P0(int *x, volatile int *y, atomic_t *v) {\n\tint r0;\n\t// a comment { with a brace }\n\
             \tr0 = READ_ONCE(*x);\n}\n\n\
             locations [z; 0:r1]\nexists (0:r0=1 /\\ y=2)\n",
            "4fbeeff71e1ac2f0e4c46b53c193dc34",
        ),
        (
            "C forms2\n{\n_Atomic int w = 3;\nint *p;\ny = x;\n1:r2 = x;\n}\n\n\
             void P0(const int *x, int volatile *y, int **p, struct srcu_struct *s) {\n\
             \tint r0;\n\tr0 = READ_ONCE(*x);\n}\n\n\
             P1(int *x) {\n\tint r2;\n\tr2 = READ_ONCE(*x);\n}\n\n\
             filter (1:r2=0)\nexists (0:r0=1:r2 \\/ ~x=2)\n",
            "4ded710704387198bb56d944adb42560",
        ),
        (
            "C brackets\n{ [x] = 0; int [y] = 2; *z = x; int *[w] = &y; }\n\
             P0(int *x, int *y) { WRITE_ONCE(*x, 1); int r0 = READ_ONCE(*y); }\n\
             locations [y;x;]\nexists ([x]=1 /\\ 0:r0=2)\n",
            "0b40594906faa8448e7084179336f359",
        ),
        (
            "C utf8\n{}\nP0(int *x) /* é */ { /* é → ü */ WRITE_ONCE(*x, 1); // ∀x\n}\n\
             exists (x=1)\n",
            "b629cbdb6016723758c9022ec881b308",
        ),
        (
            "C given\nHash=0123abcd\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nexists (x=1)\n",
            "0123abcd",
        ),
    ];
    for (source, expected) in cases {
        assert_eq!(hash_of(source), *expected, "{source}");
    }
}

#[test]
fn every_conformance_hash_is_herd7s() {
    let Some(dir) = corpus_dir() else {
        eprintln!("conformance corpus not found; set HAZMAT_CONFORMANCE to check it");
        return;
    };
    let mut checked = 0;
    let mut failures = Vec::new();
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("herd7-out").is_dir())
        .collect();
    folders.sort();
    for folder in &folders {
        for out in outs(&folder.join("herd7-out")) {
            let rel = out
                .strip_prefix(folder.join("herd7-out"))
                .unwrap_or(&out)
                .to_path_buf();
            let litmus = folder.join(rel.with_extension(""));
            let (Ok(text), Ok(source)) = (
                std::fs::read_to_string(&out),
                std::fs::read_to_string(&litmus),
            ) else {
                continue;
            };
            let Some(expected) = text.lines().find_map(|l| l.strip_prefix("Hash=")) else {
                continue;
            };
            let Ok(test) = hazmat_litmus::parse(&source) else {
                failures.push(format!("{}: does not parse", litmus.display()));
                continue;
            };
            let got = hazmat_litmus::herd_hash(&test, &source);
            checked += 1;
            if got != expected {
                failures.push(format!("{}: {got} vs herd7's {expected}", litmus.display()));
            }
        }
    }
    eprintln!("{checked} hashes compared with herd7's");
    assert!(
        failures.is_empty(),
        "{} of {checked} hashes differ from herd7's:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every `.out` file under `dir`, sorted.
fn outs(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "out") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}
