//! Running `hazmat herd7` and herd7 itself side by side, for the tests of herd7's command
//! line (`#[path]`): each includer also includes `common/untimed.rs` as `untimed`.
#![allow(dead_code, reason = "each includer uses part of the module")]

use crate::untimed::untimed;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh temporary directory, named `tag`, emptied when made.
pub(crate) fn temp_dir(tag: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(tag);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    dir
}

/// herd7, when present (`$HAZMAT_ORACLE` or `../shared/oracle/herd7`).
pub(crate) fn herd7() -> Option<PathBuf> {
    let exe = match std::env::var_os("HAZMAT_ORACLE") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/oracle/herd7"),
    };
    exe.is_file().then_some(exe)
}

/// `hazmat herd7 ARGS` in `dir`: its stdout without the `Time` lines, its stderr and its
/// exit code; then the same against herd7's, when herd7 is present.
pub(crate) fn run(dir: &Path, args: &[&str]) -> (String, String, Option<i32>) {
    let mut argv = vec!["herd7"];
    argv.extend(args);
    let out = hazmat(dir, &argv);
    same_as_herd7(dir, args);
    (
        untimed(&text(&out.stdout)),
        text(&out.stderr),
        out.status.code(),
    )
}

/// `hazmat ARGS` in `dir`, with no `HERDLIB`: only hazmat's own library.
pub(crate) fn hazmat(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hazmat"))
        .args(args)
        .env_remove("HERDLIB")
        .current_dir(dir)
        .output()
        .expect("hazmat runs")
}

/// herd7 `ARGS` in `dir`, with its own library, when it is present.
pub(crate) fn oracle(dir: &Path, args: &[&str]) -> Option<Output> {
    let exe = herd7()?;
    Some(
        Command::new(exe)
            .args(args)
            .current_dir(dir)
            .output()
            .expect("herd7 runs"),
    )
}

pub(crate) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// hazmat as herd7 prints what herd7 prints, on stdout (the `Time` lines aside) and
/// stderr (herd7's program name aside), with herd7's exit code.
pub(crate) fn same_as_herd7(dir: &Path, args: &[&str]) {
    let mut argv = vec!["herd7"];
    argv.extend(args);
    let ours = hazmat(dir, &argv);
    let Some(theirs) = oracle(dir, args) else {
        return;
    };
    // Each tool's name for itself, and its usage after a refusal, aside.
    let program = |o: &Output, name: &str| {
        let err = text(&o.stderr).replace(name, "PROGRAM");
        match err.find("\nUsage ") {
            Some(n) => err[..=n].to_string(),
            None => err,
        }
    };
    // The wrapper starts herd7 by its real path, links followed.
    let herd7 = herd7().expect("herd7");
    let herd7_name = format!(
        "{}",
        std::fs::canonicalize(&herd7)
            .unwrap_or(herd7)
            .with_extension("bin")
            .display()
    );
    let hazmat_name = format!("{} herd7", env!("CARGO_BIN_EXE_hazmat"));
    assert_eq!(
        (
            untimed(&text(&ours.stdout)),
            program(&ours, &hazmat_name),
            ours.status.code()
        ),
        (
            untimed(&text(&theirs.stdout)),
            program(&theirs, &herd7_name),
            theirs.status.code()
        ),
        "hazmat herd7 {args:?}"
    );
}
