//! An annotation's spelling, as herd7 matches it: herd7 gives an event the annotation its
//! macro (or test) writes, as written, and a bell's set `'once` holds only the events
//! annotated `once` exactly (`ONCE` and `Once` are other annotations). The macro file,
//! not the variant, decides the spelling.
//!
//! Each case is a kernel version of `tests/lkmm-history/` with its macro file edited as the
//! test says, and litmus files in `tests/annotation-case/` with herd7's whole output beside
//! them (`FILE.litmus.expected`, without the `Time` line), which hazmat's two command
//! lines (`hazmat check --interpret --conf linux-kernel.cfg` and `hazmat herd7 -conf
//! linux-kernel.cfg`) must print; they run without herd7.
//! hazmat used to match the annotations in any case, and gave every one but
//! `xchg-without-variant` another answer.

#[path = "common/cat_oracle.rs"]
mod cat_oracle;
#[path = "common/history.rs"]
mod history;

#[path = "common/scratch.rs"]
mod scratch;
use cat_oracle::{compare, herd7, kept_answer};
use history::{Runner, Tool};
use std::path::{Path, PathBuf};

/// This test's own files.
fn own_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/annotation-case")
}

/// The kernel's files of `version` in a folder of their own for the case `who`, with each
/// `(from, to)` of `edits` made in the macro file (each must apply to one line) and the
/// cfg's `variant` line left out when `variant` is false.
fn model(who: &str, version: &str, edits: &[(&str, &str)], variant: bool) -> PathBuf {
    let from = history::versions_dir().join(version);
    let dir = scratch::folder(&format!("case-{who}"));
    for file in ["linux-kernel.cat", "linux-kernel.bell", "lock.cat"] {
        std::fs::copy(from.join(file), dir.join(file))
            .unwrap_or_else(|e| panic!("{}: {e}", from.join(file).display()));
    }
    let def = std::fs::read_to_string(from.join("linux-kernel.def")).expect("the macro file");
    let mut lines: Vec<String> = def.lines().map(str::to_string).collect();
    for (old, new) in edits {
        let at: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].starts_with(old))
            .collect();
        assert_eq!(at.len(), 1, "{version}: `{old}` on one line");
        lines[at[0]] = lines[at[0]].replacen(old, new, 1);
    }
    std::fs::write(dir.join("linux-kernel.def"), lines.join("\n") + "\n").expect("the def");
    let cfg = std::fs::read_to_string(from.join("linux-kernel.cfg")).expect("the cfg");
    let cfg: String = cfg
        .lines()
        .filter(|l| variant || !l.starts_with("variant"))
        .flat_map(|l| [l, "\n"])
        .collect();
    std::fs::write(dir.join("linux-kernel.cfg"), cfg).expect("the cfg");
    dir
}

/// The kernel's files of `version` in a folder of their own for the case `who`, with every
/// occurrence of each `(file, from, to)` of `edits` replaced in that file (each must apply).
fn renamed(who: &str, version: &str, edits: &[(&str, &str, &str)]) -> PathBuf {
    let from = history::versions_dir().join(version);
    let dir = scratch::folder(&format!("case-{who}"));
    for file in [
        "linux-kernel.cat",
        "linux-kernel.bell",
        "linux-kernel.def",
        "linux-kernel.cfg",
        "lock.cat",
    ] {
        let mut text = std::fs::read_to_string(from.join(file))
            .unwrap_or_else(|e| panic!("{}: {e}", from.join(file).display()));
        for (_, old, new) in edits.iter().filter(|(f, _, _)| *f == file) {
            assert!(text.contains(old), "{version}: `{old}` in {file}");
            text = text.replace(old, new);
        }
        std::fs::write(dir.join(file), text).expect("a model file");
    }
    dir
}

/// hazmat's two command lines on the litmus files of `cases` (a folder of
/// `tests/annotation-case/`) under the model in `dir`, against herd7's outputs.
fn agree(cases: &str, dir: &Path) {
    let files = hazmat_checker::testkit::harness::litmus_files(own_dir().join(cases));
    assert!(!files.is_empty(), "{cases}: no litmus file");
    let runner = Runner {
        herd7: PathBuf::new(),
        hazmat: PathBuf::from(env!("CARGO_BIN_EXE_hazmat")),
        library: history::library(&herd7().unwrap_or_default()),
        timeout: 60.0,
    };
    let mut failures = Vec::new();
    for tool in [Tool::Check, Tool::HazmatHerd7] {
        let ours = runner.run(tool, dir, &files);
        for (file, answer) in files.iter().zip(&ours) {
            let expected = std::fs::read_to_string(format!("{}.expected", file.display()))
                .unwrap_or_else(|e| panic!("{}.expected: {e}", file.display()));
            let theirs = kept_answer(file, &expected);
            if let Some(d) = compare(answer, &theirs) {
                failures.push(format!(
                    "{} ({}): {d}",
                    file.file_name().unwrap_or_default().to_string_lossy(),
                    tool.name()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Today's files (`lkmmv2`, a bell naming `'ONCE` and `'MB`) with `READ_ONCE()` and
/// `xchg()` spelled in lower case: plain reads that race, an exchange that orders nothing
/// (the native model runs these files too, and must read them so).
#[test]
fn todays_model_reads_a_lower_case_annotation_as_none() {
    let dir = model(
        "lkmmv2",
        "v6.15-lkmmv2",
        &[
            ("READ_ONCE(X) __load{ONCE}", "READ_ONCE(X) __load{once}"),
            ("xchg(X,V)  __xchg{MB}", "xchg(X,V)  __xchg{mb}"),
        ],
        true,
    );
    agree("lkmmv2", &dir);
}

/// v6.14's files (no variant, a bell naming `'once` and `'mb`) with `READ_ONCE()` and
/// `xchg()` spelled in capitals: the same.
#[test]
fn the_older_model_reads_a_capital_annotation_as_none() {
    let dir = model(
        "before-lkmmv2",
        "v6.14",
        &[
            ("READ_ONCE(X) __load{once}", "READ_ONCE(X) __load{ONCE}"),
            ("xchg(X,V)  __xchg{mb}", "xchg(X,V)  __xchg{MB}"),
        ],
        true,
    );
    agree("before-lkmmv2", &dir);
}

/// Today's files with `READ_ONCE()` written `__load{Once}`: an annotation in no set.
#[test]
fn a_mixed_case_annotation_is_in_no_set() {
    let dir = model(
        "mixed",
        "v6.15-lkmmv2",
        &[("READ_ONCE(X) __load{ONCE}", "READ_ONCE(X) __load{Once}")],
        true,
    );
    agree("mixed", &dir);
}

/// Today's files run without `variant lkmmv2`: an instruction written `__load{once}` in
/// the test keeps its spelling, which today's bell does not read, and `xchg()`'s events
/// are herd7's own lower-case `once`, with no fence.
#[test]
fn without_the_variant_the_spelling_is_still_the_writers() {
    let dir = model("no-variant", "v6.15-lkmmv2", &[], false);
    agree("no-variant", &dir);
}

/// Today's files with the annotations renamed in the macro file, the bell and the cat
/// alike, to words of the user's own (`Once`, `Releasing`, `Full`, `rdb`, `cbarrier`...):
/// herd7 gives the events the words written and the bell's sets read them, so every answer
/// is the kernel's; a word that no bell names (`foo`, `Bar`) is a plain access. hazmat
/// used to refuse every such word but `Once`, and to take `Once` for no annotation.
#[test]
fn a_models_own_words_are_its_annotations() {
    let mut edits = Vec::new();
    for (old, new) in [
        ("ONCE", "Once"),
        ("RELEASE", "Releasing"),
        ("ACQUIRE", "Acquiring"),
        ("NORETURN", "Noret"),
        ("MB", "Full"),
        ("rmb", "rdb"),
        ("barrier", "cbarrier"),
    ] {
        edits.push((
            "linux-kernel.def",
            format!("{{{old}}}"),
            format!("{{{new}}}"),
        ));
        edits.push(("linux-kernel.bell", format!("'{old} "), format!("'{new} ")));
    }
    for (old, new) in [
        ("ACQUIRE \\", "Acquiring \\"),
        ("RELEASE \\", "Releasing \\"),
        ("MB \\", "Full \\"),
        ("NORETURN \\", "Noret \\"),
        (
            "| ONCE | RELEASE | ACQUIRE | MB |",
            "| Once | Releasing | Acquiring | Full |",
        ),
    ] {
        edits.push(("linux-kernel.bell", old.to_string(), new.to_string()));
    }
    for (old, new) in [("Rmb)", "Rdb)"), ("(Barrier | Rmb |", "(Cbarrier | Rdb |")] {
        edits.push(("linux-kernel.cat", old.to_string(), new.to_string()));
    }
    let edits: Vec<(&str, &str, &str)> = edits
        .iter()
        .map(|(f, a, b)| (*f, a.as_str(), b.as_str()))
        .collect();
    let dir = renamed("own-words", "v6.15-lkmmv2", &edits);
    agree("own-words", &dir);
}
