//! The `hazmat` command line, one file per command: [`check`], [`explain`], [`bench`](mod@bench),
//! [`fmt`] (and `parse`), [`weaken`], and [`herd7`], herd7's own command line; [`model`]
//! reads the model options a command shares, and [`judge`] is `check --judge`'s bookkeeping.
//!
//! Only the command line reads files from disk, writes to stdout and stderr and sets the
//! exit code; the library below it returns values.

pub(crate) mod bench;
pub(crate) mod check;
pub(crate) mod explain;
pub(crate) mod fmt;
pub(crate) mod herd7;
pub(crate) mod judge;
pub(crate) mod model;
pub(crate) mod weaken;

use hazmat_checker::CheckError;
use std::path::PathBuf;

/// The files named, directories replaced by the litmus files below them.
pub(crate) fn expand(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            files.extend(hazmat_checker::testkit::harness::litmus_files(p));
        } else {
            files.push(p.clone());
        }
    }
    files
}

/// An error as `file:line:col: error: message`.
pub(crate) fn render(e: &CheckError, file: &str, source: &str) -> String {
    e.render(file, source)
}
