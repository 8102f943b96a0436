//! Choosing what runs a model given by its files: the native LKMM when the files are the
//! kernel's current model, the interpreter otherwise.
//!
//! The files are compared by content, not by name: each file's tokens (comments and blanks
//! dropped, see [`normalized`]) are digested in the order the model loads them, with
//! the variants, and the digest is compared with the one of the kernel's model that the
//! native [`Lkmm`](crate::models::lkmm::Lkmm) implements (`linux-kernel.bell`, `linux-kernel.cat`,
//! `lock.cat` and the herd7 library files they include, variant `lkmmv2`).
//! Only the digest is kept here, never the files.

use super::files::{Files, Origin};
use super::load::PRELUDE_NAME;
use super::model::CatModel;
use super::parser::normalized;
use crate::models::model::MemoryModel;

/// The digest ([`fingerprint`]) of the kernel's current model, as herd7 7.58 runs it with
/// `-conf linux-kernel.cfg` and its own library.
pub const LKMM_FINGERPRINT: &str = "5d63c9505fe129f673542cae4ad56c92";

/// The digest of the kernel's `linux-kernel.def`, normalised as by [`normalized_def`].
pub const LKMM_DEF_FINGERPRINT: &str = "aaf373b63a2f2c51c2c3d961cd612035";

/// The digest of a model's files (the prelude aside), each normalised, in the order they
/// were loaded, and of its variants; `None` when a file does not lex.
pub fn fingerprint(files: &Files, variants: &[String]) -> Option<String> {
    let mut text = String::new();
    let mut variants: Vec<&String> = variants.iter().collect();
    variants.sort();
    variants.dedup();
    for v in variants {
        text.push_str("variant ");
        text.push_str(v);
        text.push('\n');
    }
    for (_, f) in files.iter() {
        if f.name == PRELUDE_NAME && f.origin == Origin::Text {
            continue;
        }
        text.push_str(&normalized(&f.text)?);
        text.push('\n');
    }
    Some(digest(text.as_bytes()))
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

/// The digest of a `.def` file, for comparison with [`LKMM_DEF_FINGERPRINT`].
pub fn def_fingerprint(text: &str) -> String {
    digest(normalized_def(text).as_bytes())
}

/// The digest ([`fingerprint`]) of herd7's `rc11.cat` and the files it includes, whose
/// native twin ([`crate::models::rc11::Rc11`]) runs in its place unless the interpreter is asked
/// for.
pub const RC11_FINGERPRINT: &str = "b60b8eedefe07e9cbbc2fd8dc821bc78";

/// Whether `model` is herd7's `rc11.cat` (see [`RC11_FINGERPRINT`]).
pub fn is_rc11(model: &CatModel, variants: &[String]) -> bool {
    fingerprint(model.files(), variants).as_deref() == Some(RC11_FINGERPRINT)
}

/// The digest of herd7's C11 macros, `c11.def`, normalised as by [`normalized_def`].
pub const C11_DEF_FINGERPRINT: &str = "016758538f630a642c434cfe8e3f2ce5";

/// What a `.def` file gives the tests' calls: the kernel's `linux-kernel.def` and herd7's
/// `c11.def`, recognised by their digests, give hazmat's own tables in their dialects;
/// any other file gives its own macros, read by [`crate::front::defs::Macros::parse`], in the
/// kernel's dialect, or where it cannot be read.
pub fn read_macros(
    text: &str,
) -> Result<
    (
        crate::front::c11::Dialect,
        Option<crate::front::defs::Macros>,
    ),
    crate::front::defs::DefError,
> {
    match def_fingerprint(text).as_str() {
        LKMM_DEF_FINGERPRINT => Ok((crate::front::c11::Dialect::Kernel, None)),
        C11_DEF_FINGERPRINT => Ok((crate::front::c11::Dialect::C11, None)),
        _ => crate::front::defs::Macros::parse(text)
            .map(|m| (crate::front::c11::Dialect::Kernel, Some(m))),
    }
}

/// The MD5 digest of `bytes`, as hex: what the fingerprints above are written in.
fn digest(bytes: &[u8]) -> String {
    format!("{:x}", md5::compute(bytes))
}

/// Which model runs.
pub enum Chosen {
    /// The native LKMM: the files are the kernel's current model.
    Native(crate::models::lkmm::Lkmm),
    /// The interpreter.
    Interpreted(Box<CatModel>),
}

impl Chosen {
    /// The model to run.
    pub fn model(&self) -> &dyn MemoryModel {
        match self {
            Chosen::Native(m) => m,
            Chosen::Interpreted(m) => &**m,
        }
    }

    /// `native` or `interpreted`.
    pub fn kind(&self) -> &'static str {
        match self {
            Chosen::Native(_) => "native",
            Chosen::Interpreted(_) => "interpreted",
        }
    }
}

/// The native LKMM when `model`'s files are the kernel's current model and `interpret` is
/// not asked, else `model` itself.
pub fn choose(model: CatModel, variants: &[String], interpret: bool) -> Chosen {
    if !interpret && fingerprint(model.files(), variants).as_deref() == Some(LKMM_FINGERPRINT) {
        Chosen::Native(crate::models::lkmm::Lkmm)
    } else {
        Chosen::Interpreted(Box::new(model))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::cat::files::Disk;
    use crate::models::cat::{Library, Spec, load};
    use std::path::Path;

    /// The digests of herd7's `c11.def` and `rc11.cat` are those of the files of herd7's
    /// library, when it is at hand.
    #[test]
    fn c11_digests_are_those_of_herd7s_files() {
        let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/oracle/herd");
        let Ok(def) = std::fs::read_to_string(lib.join("c11.def")) else {
            return;
        };
        assert_eq!(def_fingerprint(&def), C11_DEF_FINGERPRINT);
        assert_eq!(
            read_macros(&def),
            Ok((crate::front::c11::Dialect::C11, None))
        );
        let spec = |cat: &str| Spec {
            cat: cat.into(),
            bell: None,
            variants: Vec::new(),
        };
        let library = Library::new().include(&lib);
        let rc11 = load(&library, &Disk, &spec("rc11.cat")).expect("rc11.cat loads");
        assert_eq!(
            fingerprint(rc11.files(), &[]).as_deref(),
            Some(RC11_FINGERPRINT)
        );
        assert!(is_rc11(&rc11, &[]));
        let other = load(&library, &Disk, &spec("c11_partialSC.cat")).expect("it loads");
        assert!(!is_rc11(&other, &[]));
    }
}
