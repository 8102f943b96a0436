//! The folder a test writes its files in: under cargo's temporary folder for tests
//! (`target/tmp`), named for the test and emptied when made. A run leaves nothing behind
//! it in the system's temporary directory, the next run starts from an empty folder, and
//! a failing run's files stay there to be read. Included by the tests that write files
//! (`#[path]`).

#![allow(dead_code, reason = "each includer uses part of the module")]

use std::path::{Path, PathBuf};

/// The empty folder `name` (a name no other test of the workspace uses).
pub(crate) fn folder(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

/// The folder `name`, emptied the first time a test of this run asks for it through
/// `once` and shared by every test of the run after that (for files each test names on
/// its own).
pub(crate) fn shared(once: &'static std::sync::OnceLock<PathBuf>, name: &str) -> PathBuf {
    once.get_or_init(|| folder(name)).clone()
}
