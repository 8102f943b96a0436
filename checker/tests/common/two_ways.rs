//! The litmus files the tests that hold two ways of deciding to one answer run over, and the
//! native model each is judged by. Included by those tests (`#[path]`).

#![allow(dead_code, reason = "each includer uses part of it")]

use std::path::{Path, PathBuf};

/// The shipped litmus files.
pub(crate) fn shipped() -> Vec<PathBuf> {
    hazmat_checker::testkit::harness::litmus_files(PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../litmus/tests"
    )))
}

/// The shared conformance corpus, when it is beside the repository (saying so when not).
pub(crate) fn shared() -> Option<PathBuf> {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/conformance"
    ));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipping the shared corpus: it is not beside the repository");
        None
    }
}

/// The shipped litmus files, and the kernel's documentation tests when the shared corpus
/// is beside the repository.
pub(crate) fn shipped_and_kernel_doc() -> Vec<PathBuf> {
    let mut files = shipped();
    if let Some(dir) = shared() {
        files.extend(hazmat_checker::testkit::harness::litmus_files(
            dir.join("kernel-doc"),
        ));
    }
    files
}

/// The native model a file is judged by: RC11 for a file of the C11 folders, the LKMM
/// otherwise.
pub(crate) fn model_for(file: &Path) -> Box<dyn hazmat_checker::models::model::MemoryModel> {
    let name = if file.to_string_lossy().contains("c11") {
        "rc11"
    } else {
        "lkmm"
    };
    hazmat_checker::model(name).expect("a native model")
}
