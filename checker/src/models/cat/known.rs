//! The model files hazmat knows by their content: the one recogniser of the kernel's
//! memory model, herd7's library files it includes, herd7's C11 macros and `rc11.cat`.
//!
//! A file is known by the MD5 digest of its text normalised: a cat or bell file by its
//! tokens one space apart ([`normalized`]: comments and blanks do not count), a `.def` file
//! by its lines without `//` comments and with blanks collapsed ([`normalized_def`]).
//! Names do not count either: the kernel's `linux-kernel.cat` copied to `my.cat` is still
//! the kernel's model, and one changed token makes it another.
//! A file built into hazmat (`Origin::Builtin`) is known by its name, since it is written
//! to mean what herd7's file of that name means.
//! Only the digests are kept here, never the files: the project holds no text of the
//! kernel's or herd7's model files.
//!
//! [`models::choose`](crate::models::choose) asks these questions to choose what runs a
//! model: the native LKMM for the kernel's current model ([`is_kernel_model`]), the native
//! RC11 for herd7's `rc11.cat` ([`is_rc11`]), the interpreter for anything else.

use super::parser::normalized;
use super::source::{Files, Origin, SourceFile};

/// A file hazmat knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Known {
    /// The kernel's `linux-kernel.cat` (current version).
    KernelCat,
    /// The kernel's `lock.cat`, which `linux-kernel.cat` includes.
    KernelLock,
    /// The kernel's `linux-kernel.bell`.
    KernelBell,
    /// The kernel's `linux-kernel.def`.
    KernelDef,
    /// herd7's library file `cross.cat`, which `lock.cat` includes.
    Cross,
    /// herd7's library file `cos-opt.cat`, which `lock.cat` includes.
    CosOpt,
    /// herd7's library file `cos.cat`, which `rc11.cat` includes.
    Cos,
    /// herd7's library file `cos-ok-opt.cat`, which `cos.cat` includes.
    CosOkOpt,
    /// herd7's library file `cos-no-opt.cat`, which `cos.cat` includes.
    CosNoOpt,
    /// herd7's `rc11.cat`.
    Rc11,
    /// herd7's C11 macros, `c11.def`.
    C11Def,
    /// herd7's standard library, `stdlib.cat`, which every model starts with.
    Stdlib,
}

/// Each known file: what it is, the name herd7's configuration or library gives it, and
/// the digest of its normalised text.
const KNOWN: &[(Known, &str, &str)] = &[
    (
        Known::KernelCat,
        "linux-kernel.cat",
        "c29d85098d646a31da6f5478b0191bbe",
    ),
    (
        Known::KernelLock,
        "lock.cat",
        "5886469d6fd9a82a4fad2435855ee49c",
    ),
    (
        Known::KernelBell,
        "linux-kernel.bell",
        "6ffb2756a332dfaa710ea5b2c9950710",
    ),
    (
        Known::KernelDef,
        "linux-kernel.def",
        "aaf373b63a2f2c51c2c3d961cd612035",
    ),
    (
        Known::Cross,
        "cross.cat",
        "a78cb681b33fef98a96c5c2b5aac58ab",
    ),
    (
        Known::CosOpt,
        "cos-opt.cat",
        "c568de3820aaaa892f389c60b09bbe51",
    ),
    (Known::Cos, "cos.cat", "315b8cc10c676919112d966c68fb42ea"),
    (
        Known::CosOkOpt,
        "cos-ok-opt.cat",
        "6e6a3d9df832818f4915ea167a59ea06",
    ),
    (
        Known::CosNoOpt,
        "cos-no-opt.cat",
        "b1e372a6aa5f04f1ab54ee0e965e4133",
    ),
    (Known::Rc11, "rc11.cat", "549d2cb5f251e4235270c5caf9dcd23e"),
    (Known::C11Def, "c11.def", "016758538f630a642c434cfe8e3f2ce5"),
    (
        Known::Stdlib,
        "stdlib.cat",
        "c7d7dbf7f2b1189b51f4b479b07d18d4",
    ),
];

/// The files of the kernel's current model, as herd7 loads them with its own library.
const KERNEL_MODEL: &[Known] = &[
    Known::KernelBell,
    Known::KernelCat,
    Known::KernelLock,
    Known::Cross,
    Known::CosOpt,
];

/// The variant the kernel's configuration sets, and the only one the native LKMM runs.
pub const KERNEL_VARIANT: &str = "lkmmv2";

/// The files of herd7's `rc11.cat`.
const RC11_MODEL: &[Known] = &[
    Known::Rc11,
    Known::Cos,
    Known::CosOkOpt,
    Known::CosNoOpt,
    Known::Cross,
];

impl Known {
    /// The name herd7's configuration or library gives the file.
    pub fn name(self) -> &'static str {
        KNOWN
            .iter()
            .find(|(k, _, _)| *k == self)
            .map_or("", |(_, n, _)| n)
    }

    /// Whether it is a `.def` file (normalised by [`normalized_def`]).
    fn is_def(self) -> bool {
        matches!(self, Known::KernelDef | Known::C11Def)
    }
}

/// The known cat or bell file whose text this is.
pub fn cat_file(text: &str) -> Option<Known> {
    let digest = digest(normalized(text)?.as_bytes());
    KNOWN
        .iter()
        .find(|(k, _, d)| !k.is_def() && *d == digest)
        .map(|(k, _, _)| *k)
}

/// The known `.def` file whose text this is.
pub fn def_file(text: &str) -> Option<Known> {
    let digest = digest(normalized_def(text).as_bytes());
    KNOWN
        .iter()
        .find(|(k, _, d)| k.is_def() && *d == digest)
        .map(|(k, _, _)| *k)
}

/// The kernel's file of this name (its last component), for a command line that takes a
/// file it cannot find for the kernel's own, as `hazmat herd7` does.
pub fn kernel_file_named(name: &str) -> Option<Known> {
    let base = std::path::Path::new(name)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(name);
    KNOWN
        .iter()
        .find(|(k, n, _)| *n == base && (KERNEL_MODEL.contains(k) || *k == Known::KernelDef))
        .map(|(k, _, _)| *k)
}

/// A loaded file, known by its content, or by its name when it is built into hazmat.
pub(crate) fn loaded_file(f: &SourceFile) -> Option<Known> {
    match f.origin {
        Origin::Builtin => KNOWN
            .iter()
            .find(|(k, n, _)| !k.is_def() && *n == f.name)
            .map(|(k, _, _)| *k),
        Origin::Path(_) | Origin::Text => cat_file(&f.text),
    }
}

/// The known files of a loaded model (the standard library aside, hazmat's or herd7's),
/// sorted; `None` when one is not known.
fn loaded_model(files: &Files) -> Option<Vec<Known>> {
    let mut known = Vec::new();
    for (_, f) in files.iter() {
        match loaded_file(f)? {
            Known::Stdlib => {}
            k => known.push(k),
        }
    }
    known.sort_by_key(|k| *k as u8);
    known.dedup();
    Some(known)
}

/// The same set of files as `expected`.
fn same_set(found: Option<Vec<Known>>, expected: &[Known]) -> bool {
    let mut expected = expected.to_vec();
    expected.sort_by_key(|k| *k as u8);
    found.is_some_and(|f| f == expected)
}

/// Whether `variants`, as a set, is `expected`.
fn variants_are(variants: &[String], expected: &[&str]) -> bool {
    let mut v: Vec<&str> = variants.iter().map(String::as_str).collect();
    v.sort_unstable();
    v.dedup();
    v == expected
}

/// Whether a loaded model is the kernel's current model, run with the kernel's variant:
/// the model the native [`Lkmm`](crate::models::lkmm::Lkmm) implements.
pub fn is_kernel_model(files: &Files, variants: &[String]) -> bool {
    variants_are(variants, &[KERNEL_VARIANT]) && same_set(loaded_model(files), KERNEL_MODEL)
}

/// Whether a loaded model is herd7's `rc11.cat`, with no variant: the model the native
/// [`Rc11`](crate::models::rc11::Rc11) implements.
pub fn is_rc11(files: &Files, variants: &[String]) -> bool {
    variants_are(variants, &[]) && same_set(loaded_model(files), RC11_MODEL)
}

/// A `.def` file's text without its `//` comments and with its blanks normalised. (A
/// `.def` file has no `(* *)` comments: `__store{release}(*X,V)` is code.)
pub fn normalized_def(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let words: Vec<&str> = code.split_whitespace().collect();
        if !words.is_empty() {
            out.push_str(&words.join(" "));
            out.push('\n');
        }
    }
    out
}

/// The MD5 digest of `bytes`, as hex: what the table above holds.
fn digest(bytes: &[u8]) -> String {
    format!("{:x}", md5::compute(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::cat::files::Disk;
    use crate::models::cat::{Library, Spec, load};
    use std::path::{Path, PathBuf};

    fn shared(dir: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared")
            .join(dir)
    }

    /// Every digest is that of the file it names, where the shared folder holds it: the
    /// kernel's model files and herd7's library.
    #[test]
    fn the_digests_are_those_of_the_files() {
        let (kernel, herd) = (shared("conformance/lkmm-model"), shared("oracle/herd"));
        if !kernel.is_dir() || !herd.is_dir() {
            eprintln!("the model files are not at hand; nothing to check");
            return;
        }
        for &(known, name, _) in KNOWN {
            let dir = if name.starts_with("linux-kernel") || name == "lock.cat" {
                &kernel
            } else {
                &herd
            };
            let text = std::fs::read_to_string(dir.join(name)).expect("the file");
            let found = if known.is_def() {
                def_file(&text)
            } else {
                cat_file(&text)
            };
            assert_eq!(found, Some(known), "{name}");
            assert_eq!(known.name(), name);
        }
        let spec = |cat: &str, bell: Option<&str>, variants: &[&str]| Spec {
            cat: cat.into(),
            bell: bell.map(Into::into),
            variants: variants.iter().map(|v| v.to_string()).collect(),
            ..Spec::default()
        };
        let library = Library::new().include(&kernel).include(&herd);
        let lkmm = load(
            &library,
            &Disk,
            &spec(
                "linux-kernel.cat",
                Some("linux-kernel.bell"),
                &[KERNEL_VARIANT],
            ),
        )
        .expect("the kernel's model loads");
        assert!(is_kernel_model(lkmm.files(), &[KERNEL_VARIANT.into()]));
        assert!(!is_kernel_model(lkmm.files(), &[]));
        assert!(!is_rc11(lkmm.files(), &[]));
        let rc11 = load(&library, &Disk, &spec("rc11.cat", None, &[])).expect("rc11.cat loads");
        assert!(is_rc11(rc11.files(), &[]));
        assert!(!is_rc11(rc11.files(), &["lkmmv2".into()]));
        let other = load(&library, &Disk, &spec("c11_partialSC.cat", None, &[])).expect("loads");
        assert!(!is_rc11(other.files(), &[]));
        assert!(!is_kernel_model(other.files(), &[KERNEL_VARIANT.into()]));
    }

    /// Comments and blanks do not change what a file is; a token does.
    #[test]
    fn comments_and_blanks_do_not_change_a_digest() {
        let cat = |text: &str| digest(normalized(text).expect("lexes").as_bytes());
        let a = cat("let a = po (* the (* nested *) order *)\n\nacyclic a");
        assert_eq!(a, cat("let a = po acyclic   a"));
        assert_ne!(a, cat("let a = rf acyclic a"));
        let def = |text: &str| digest(normalized_def(text).as_bytes());
        let d = def("// a comment\nsmp_mb() { __fence{MB}; } // mb\n");
        assert_eq!(d, def("smp_mb() { __fence{MB}; }"));
        assert_ne!(d, def("smp_mb() { __fence{RMB}; }"));
    }

    /// Names do not count, and a file built into hazmat is known by its name.
    #[test]
    fn names_do_not_count_but_for_built_in_files() {
        assert_eq!(
            kernel_file_named("some/dir/linux-kernel.def"),
            Some(Known::KernelDef)
        );
        assert_eq!(kernel_file_named("cross.cat"), Some(Known::Cross));
        assert_eq!(kernel_file_named("rc11.cat"), None);
        assert_eq!(cat_file("let x = po"), None);
        let mut files = Files::new();
        files.add("cross.cat", Origin::Builtin, "anything");
        assert_eq!(
            loaded_file(files.get(0).expect("a file")),
            Some(Known::Cross)
        );
        let mut files = Files::new();
        files.add("cross.cat", Origin::Text, "let x = po");
        assert_eq!(loaded_file(files.get(0).expect("a file")), None);
    }
}
