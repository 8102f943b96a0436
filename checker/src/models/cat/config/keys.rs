//! Every key herd7 7.58 reads in a configuration file, the values it takes, and what
//! hazmat does with it.
//!
//! The keys and their values are those of herd7's configuration lexer (`lexConf_herd.mll`
//! in herdtools7): a value is checked as herd7 checks it, and refused in herd7's words
//! ("bool parameter expected", "bad tags for graph, allowed tag are free,cluster,columns").
//! Then each key is one of:
//! - [`Use::Model`]: it names the model (`model`, `bell`, `macros`, `variant`,
//!   `include`; `conf` is the reader's own);
//! - [`Use::Run`]: hazmat honours it (`timeout`, `speedcheck`, `hexa`, `show`...);
//! - [`Use::Figure`]: it changes only herd7's drawings or the files it writes beside them,
//!   never its text output: accepted, without effect on hazmat's drawings;
//! - [`Use::Only`]: hazmat honours the values listed, which leave herd7's output as its
//!   default leaves it, and refuses the others;
//! - [`Use::Refused`]: hazmat cannot honour it, and says so by name.
//!
//! Nothing is ignored in silence: a key no table line names is herd7's "Unknown key".

/// What a key's value must be, as herd7 reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// `true` or `false`.
    Bool,
    /// An integer.
    Int,
    /// An integer, or `none`.
    IntOrNone,
    /// A floating-point number.
    Float,
    /// A floating-point number, or `none`.
    FloatOrNone,
    /// Two floating-point numbers, `x,y`.
    Pair,
    /// Any text.
    Text,
    /// One of the tags listed (compared as written unless [`Value::TagsAnyCase`]).
    Tags(&'static [&'static str]),
    /// One of the tags listed, in upper or lower case.
    TagsAnyCase(&'static [&'static str]),
    /// A model: a file name ending in `.cat` or `.mdl`, or one of herd7's internal
    /// models.
    Model,
    /// A comma-separated list of herd7's variants.
    Variants,
    /// One of herd7's debugging tags.
    Debug,
    /// `label,attribute,value`.
    EdgeAttr,
    /// Comma-separated floating-point numbers.
    Floats,
}

/// What hazmat does with a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    /// It names the model's files or variants, or where files are looked for.
    Model,
    /// hazmat honours it.
    Run,
    /// It changes only herd7's drawings (or the files written beside them): accepted,
    /// without effect.
    Figure,
    /// hazmat honours these values, which leave the output as herd7's default leaves it,
    /// and refuses the others, saying why.
    Only(&'static [&'static str], &'static str),
    /// hazmat cannot honour it, for this reason.
    Refused(&'static str),
}

/// One key herd7 reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    /// Its name.
    pub name: &'static str,
    /// Its value.
    pub value: Value,
    /// What hazmat does with it.
    pub use_: Use,
}

const fn key(name: &'static str, value: Value, use_: Use) -> Key {
    Key { name, value, use_ }
}

/// herd7's variants, as its `-variant` option and `variant` key list them.
pub const VARIANTS: &[&str] = &[
    "success",
    "instr",
    "specialx0",
    "normw",
    "acqrelasfence",
    "backcompat",
    "fullscdepend",
    "splittedrmw",
    "switchdepscwrite",
    "switchdepscresult",
    "lrscdiffok",
    "mixed",
    "dontcheckmixed",
    "weakpredicated",
    "lkmmv1",
    "lkmmv2",
    "memtag",
    "vmsa",
    "kvm",
    "synchronous",
    "sync",
    "asynchronous",
    "async",
    "asymmetric",
    "asym",
    "handled",
    "fatal",
    "faultToNext",
    "CutOff",
    "deps",
    "morello",
    "instances",
    "noptebranch",
    "pte2",
    "pte-squared",
    "PhantomOnLoad",
    "OptRfRMW",
    "ConstrainedUnpredictable",
    "exp",
    "self",
    "cos-opt",
    "test",
    "T[0-9][0-9]",
    "asl",
    "strict",
    "warn",
    "S128",
    "ASLType+Warn",
    "ASLType+Silence",
    "ASLType+Check",
    "ASL+Experimental",
    "ASL+AArch64+UDF",
    "telechat",
    "OldSolver",
    "oota",
];

/// herd7's names of one variant each (its `Variant.parse`, with the precisions and
/// fault handlings it reads there too), after it lowers the case: the first name of each
/// group is the one hazmat keeps. `dic` and `idc` are not among them: herd7 refuses them,
/// as it refuses `weakpredicated`, which its list of variants shows.
const NAMES: &[&[&str]] = &[
    &["success"],
    &["instr"],
    &["specialx0", "amox0", "x0"],
    &["normw"],
    &["acqrelasfence"],
    &["backcompat", "back"],
    &["fullscdepend", "scdepend"],
    &["splittedrmw"],
    &["switchdepscwrite"],
    &["switchdepscresult"],
    &["lrscdiffok"],
    &["mixed"],
    &["unaligned"],
    &["dontcheckmixed"],
    &["notweakpredicated", "notweakpred"],
    &["lkmmv1"],
    &["lkmmv2"],
    &["memtag", "tagmem", "mte"],
    &["cutoff"],
    &["morello"],
    &["neon"],
    &["sve"],
    &["sme"],
    &["deps"],
    &["instances", "instance"],
    &["vmsa", "kvm"],
    &["ets"],
    &["ets2"],
    &["ets3"],
    &["exs"],
    &["eis"],
    &["eos"],
    &["noptebranch", "nobranch"],
    &["pte2", "pte-squared"],
    &["phantomonload"],
    &["optrfrmw"],
    &["constrainedunpredictable", "cu"],
    &["exp"],
    &["self", "ifetch"],
    &["cos-opt"],
    &["test"],
    &["asl"],
    &["asl_aarch64", "aslaarch64", "asl+aarch64"],
    &["aslv0", "asl0", "asl_0"],
    &["aslv1", "asl1", "asl_1"],
    &["asltype+warn"],
    &["asltype+silence"],
    &["asltype+check"],
    &["asl+experimental", "asl+exp"],
    &["asl+aarch64+udf"],
    &["s128"],
    &["strict"],
    &["warn"],
    &["telechat"],
    &["nv2"],
    &["oldsolver"],
    &["oota"],
    &["handled", "imprecise"],
    &["fatal", "precise"],
    &["faulttonext", "skip"],
    &["synchronous", "sync"],
    &["asynchronous", "async"],
    &["asymmetric", "asym"],
];

/// The variant herd7 reads `tag` as, by the name hazmat keeps for it: herd7 lowers the
/// case and takes its other names (`back` is `backcompat`, `LKMMv2` is `lkmmv2`), `t`
/// and two digits, and `sve:N` and `sme:N` with a number; `None` for a name herd7 refuses.
pub fn variant(tag: &str) -> Option<String> {
    let lower = tag.to_ascii_lowercase();
    if let Some(group) = NAMES.iter().find(|g| g.contains(&lower.as_str())) {
        return Some(group[0].to_string());
    }
    let b = lower.as_bytes();
    let numbered = b.len() == 3 && b[0] == b't' && b[1..].iter().all(u8::is_ascii_digit);
    let length = vector_length(&lower).is_some_and(|(_, n)| valid_length(n));
    (numbered || length).then_some(lower)
}

/// The vector length of `sve:N` or `sme:N`, with the name of its extension.
fn vector_length(lower: &str) -> Option<(&'static str, i64)> {
    [("sve:", "SVE"), ("sme:", "SME")]
        .iter()
        .find_map(|(p, name)| Some((*name, lower.strip_prefix(p)?.parse::<i64>().ok()?)))
}

/// Whether herd7 takes `n` for a vector length.
fn valid_length(n: i64) -> bool {
    (128..=2048).contains(&n) && n % 128 == 0
}

/// Whether `tag` is one of herd7's variants, by any of its names.
pub fn is_variant(tag: &str) -> bool {
    variant(tag).is_some()
}

/// herd7's variants that hazmat refuses, by the name it keeps for each, and why: each
/// changes what herd7 7.58 answers on a C test in a way hazmat does not follow.
pub const REFUSED_VARIANTS: &[(&str, &str)] = &[
    (
        "mixed",
        "under the variant `mixed`, herd7 7.58 finds no execution of any C test (`States 0`)",
    ),
    (
        "deps",
        "under the variant `deps`, herd7 7.58 gives a model no `addr`, `data` nor `ctrl`",
    ),
    (
        "vmsa",
        "under the variant `vmsa` (or `kvm`), herd7 7.58 stops with an internal error on a C test",
    ),
    (
        "morello",
        "under the variant `morello`, herd7 7.58 stops with an internal error on a C test",
    ),
];

/// herd7's `show` tags.
pub const SHOW: &[&str] = &["prop", "all", "neg", "cond", "none", "wit"];
/// herd7's `speedcheck` tags.
pub const SPEEDCHECK: &[&str] = &["false", "true", "fast"];
const THROUGH: &[&str] = &["all", "invalid", "none"];
const MACHSIZE: &[&str] = &["auto", "byte", "short", "word", "quad", "s128"];
const ENDIAN: &[&str] = &["little", "big"];
const OPTACE: &[&str] = &["false", "true", "iico"];
const RESTRICT: &[&str] = &["observed", "nonambiguous", "condone", "none"];
const DOTMODE: &[&str] = &["plain", "fig"];
const DOTCOM: &[&str] = &["dot", "neato", "circo"];
const VIEW: &[&str] = &["gv", "evince", "preview"];
const SHOWEVENTS: &[&str] = &["all", "mem", "noregs", "memf"];
const GRAPH: &[&str] = &["free", "cluster", "columns"];
const SPLINES: &[&str] = &[
    "spline", "true", "line", "false", "polyline", "ortho", "curved", "none",
];

/// herd7's debugging tags.
pub const DEBUG: &[&str] = &[
    "solver",
    "lexer",
    "top",
    "mem",
    "monad",
    "barrier",
    "model",
    "res",
    "rfm",
    "pretty",
    "mixed",
    "files",
    "timeout",
    "profile_cat",
    "profile_asl",
    "exception",
];

/// Every key herd7 7.58 reads in a configuration file, in the order its lexer lists them.
pub const KEYS: &[Key] = &[
    key("conf", Value::Text, Use::Model),
    key("verbose", Value::Int, Use::Run),
    key("suffix", Value::Text, Use::Figure),
    key("include", Value::Text, Use::Model),
    key("timeout", Value::FloatOrNone, Use::Run),
    key(
        "debug",
        Value::Debug,
        Use::Refused("hazmat prints none of herd7's debugging traces"),
    ),
    key("names", Value::Text, Use::Run),
    key("excl", Value::Text, Use::Run),
    key("rename", Value::Text, Use::Run),
    key("kinds", Value::Text, Use::Run),
    key("conds", Value::Text, Use::Run),
    key("model", Value::Model, Use::Model),
    key("cat", Value::Model, Use::Model),
    key("bell", Value::Text, Use::Model),
    key("macros", Value::Text, Use::Model),
    key("variant", Value::Variants, Use::Model),
    key(
        "machsize",
        Value::Tags(MACHSIZE),
        Use::Only(
            &["auto"],
            "hazmat's values have the sizes of their C types; it sets no machine size",
        ),
    ),
    key(
        "endian",
        Value::Tags(ENDIAN),
        Use::Refused("hazmat's values are not laid out in bytes, so it has no endianness"),
    ),
    key(
        "through",
        Value::TagsAnyCase(THROUGH),
        Use::Only(
            &["none"],
            "hazmat lets through only the executions the model allows",
        ),
    ),
    key("skipchecks", Value::Text, Use::Run),
    key("strictskip", Value::Bool, Use::Run),
    key("unroll", Value::IntOrNone, Use::Run),
    key("optace", Value::TagsAnyCase(OPTACE), Use::Run),
    key(
        "archcheck",
        Value::Bool,
        Use::Only(
            &["true"],
            "hazmat runs no model of another architecture on C tests",
        ),
    ),
    key(
        "initwrites",
        Value::Bool,
        Use::Only(
            &["true"],
            "hazmat's executions always have their initial writes, as herd7's have them by default",
        ),
    ),
    key("speedcheck", Value::TagsAnyCase(SPEEDCHECK), Use::Run),
    key("badexecs", Value::Bool, Use::Run),
    key(
        "badflag",
        Value::Text,
        Use::Only(&["none"], "hazmat counts no execution as bad by its flags"),
    ),
    key("dumpallfaults", Value::Bool, Use::Run),
    key("show", Value::Tags(SHOW), Use::Run),
    key("showflag", Value::Text, Use::Figure),
    key("nshow", Value::Int, Use::Run),
    key(
        "restrict",
        Value::Tags(RESTRICT),
        Use::Only(&["none"], "hazmat prints every final state"),
    ),
    key("showkind", Value::Bool, Use::Figure),
    key("shortlegend", Value::Bool, Use::Figure),
    key("texmacros", Value::Bool, Use::Figure),
    key("hexa", Value::Bool, Use::Run),
    key("outcomereads", Value::Bool, Use::Run),
    key("dotmode", Value::Tags(DOTMODE), Use::Figure),
    key("dotcom", Value::Tags(DOTCOM), Use::Figure),
    key(
        "view",
        Value::Tags(VIEW),
        Use::Refused("hazmat starts no viewer: write the drawings with -o DIR and open them"),
    ),
    key("showevents", Value::Tags(SHOWEVENTS), Use::Figure),
    key("graph", Value::Tags(GRAPH), Use::Figure),
    key("mono", Value::Bool, Use::Figure),
    key("fontname", Value::Text, Use::Figure),
    key("fontsize", Value::IntOrNone, Use::Figure),
    key("edgefontsizedelta", Value::Int, Use::Figure),
    key("penwidth", Value::FloatOrNone, Use::Figure),
    key("arrowsize", Value::FloatOrNone, Use::Figure),
    key("splines", Value::TagsAnyCase(SPLINES), Use::Figure),
    key("overlap", Value::Text, Use::Figure),
    key("sep", Value::Text, Use::Figure),
    key("margin", Value::FloatOrNone, Use::Figure),
    key("pad", Value::FloatOrNone, Use::Figure),
    key("scale", Value::Float, Use::Figure),
    key("xscale", Value::Float, Use::Figure),
    key("yscale", Value::Float, Use::Figure),
    key("dsiy", Value::Float, Use::Figure),
    key("siwidth", Value::Float, Use::Figure),
    key("boxscale", Value::Float, Use::Figure),
    key("ptscale", Value::Float, Use::Figure),
    key("squished", Value::Bool, Use::Figure),
    key("showpo", Value::Bool, Use::Figure),
    key("relabel", Value::Bool, Use::Figure),
    key("withbox", Value::Bool, Use::Figure),
    key("labelbox", Value::Bool, Use::Figure),
    key("showfinalrf", Value::Bool, Use::Figure),
    key("showinitrf", Value::Bool, Use::Figure),
    key("finalrfpos", Value::Pair, Use::Figure),
    key("initrfpos", Value::Pair, Use::Figure),
    key("oneinit", Value::Bool, Use::Figure),
    key("labelinit", Value::Bool, Use::Figure),
    key("initpos", Value::Pair, Use::Figure),
    key("threadposy", Value::Float, Use::Figure),
    key("showinitwrites", Value::Bool, Use::Figure),
    key("showthread", Value::Bool, Use::Figure),
    key("showlegend", Value::Bool, Use::Figure),
    key("brackets", Value::Bool, Use::Figure),
    key("showobserved", Value::Bool, Use::Figure),
    key("movelabel", Value::Bool, Use::Figure),
    key("fixedsize", Value::Bool, Use::Figure),
    key("extrachars", Value::Float, Use::Figure),
    key("dotheader", Value::Text, Use::Figure),
    key("doshow", Value::Text, Use::Figure),
    key("unshow", Value::Text, Use::Figure),
    key("noid", Value::Text, Use::Figure),
    key("symetric", Value::Text, Use::Figure),
    key("classes", Value::Text, Use::Figure),
    key("showraw", Value::Text, Use::Figure),
    key("edgeattr", Value::EdgeAttr, Use::Figure),
    key("shift", Value::Floats, Use::Figure),
    key("edgemerge", Value::Bool, Use::Figure),
];

/// The key of this name.
pub fn find(name: &str) -> Option<&'static Key> {
    KEYS.iter().find(|k| k.name == name)
}

/// Why herd7 refuses `value` for the key `key`, in its words; `None` when it takes it.
///
/// The message is the one herd7's configuration reader gives; a bad variant is refused by
/// herd7's command line instead, in its own words ([`variant_error`]).
pub fn value_error(key: &Key, value: &str) -> Option<String> {
    let tags = |list: &[&str]| {
        format!(
            "bad tags for {}, allowed tag are {}",
            key.name,
            list.join(",")
        )
    };
    let ok = match key.value {
        Value::Bool => is_bool(value),
        Value::Int => is_int(value),
        Value::IntOrNone => value == "none" || is_int(value),
        Value::Float => is_float(value),
        Value::FloatOrNone => value == "none" || is_float(value),
        Value::Pair => is_pair(value),
        Value::Text | Value::Variants => true,
        Value::Tags(list) => list.contains(&value) || (key.name == "showevents" && alias(value)),
        Value::TagsAnyCase(list) => list.contains(&value.to_ascii_lowercase().as_str()),
        Value::Model => is_model(value),
        Value::Debug => DEBUG.contains(&value) || matches!(value, "file" | "exc"),
        Value::EdgeAttr => value.split(',').count() == 3,
        Value::Floats => value.split(',').all(is_float),
    };
    if ok {
        return None;
    }
    Some(match key.value {
        Value::Bool => "bool parameter expected".to_string(),
        Value::Int | Value::IntOrNone => "integer parameter expected".to_string(),
        Value::Float | Value::FloatOrNone => "float parameter expected".to_string(),
        Value::Pair => "pair of float parameter expected".to_string(),
        // herd7 lists `dotmode`'s tags when it refuses a `dotcom` value.
        Value::Tags(_) if key.name == "dotcom" => tags(DOTMODE),
        Value::Tags(list) | Value::TagsAnyCase(list) => tags(list),
        Value::Model => tags(&["cav12", "<filename>.cat"]),
        Value::Debug => format!("bad argument for key debug: '{value}'"),
        // herd7's own words, misprint and all.
        Value::EdgeAttr => format!("bad ->ument for key edgeattr: '{value}'"),
        Value::Floats => "bad argument for key shift: '%s' arg".to_string(),
        Value::Text | Value::Variants => String::new(),
    })
}

/// The first variant of a `variant` value herd7 does not know, and its message.
pub fn variant_error(option: &str, value: &str) -> Option<String> {
    let bad = value.split(',').find(|t| !is_variant(t))?;
    if let Some((name, n)) = vector_length(&bad.to_ascii_lowercase()) {
        return Some(format!(
            "Constant {n} is not a valid {name} vector length (multiple of 128 between 128 and \
             2048)"
        ));
    }
    Some(format!(
        "tag {bad} for {option} is wrong, allowed tags are {}",
        VARIANTS.join(",")
    ))
}

/// The other names herd7 takes for `showevents` tags.
fn alias(value: &str) -> bool {
    matches!(value, "memory" | "memfence")
}

/// Whether herd7 reads `value` as a boolean (OCaml's `bool_of_string`).
pub fn is_bool(value: &str) -> bool {
    matches!(value, "true" | "false")
}

/// Whether herd7 reads `value` as an integer (OCaml's `int_of_string`: a sign, then
/// decimal digits or `0x`, `0o`, `0b` and their digits, `_` between them).
pub fn is_int(value: &str) -> bool {
    let v = value
        .strip_prefix('-')
        .or_else(|| value.strip_prefix('+'))
        .unwrap_or(value);
    let (digits, radix) = match v.get(..2).map(str::to_ascii_lowercase).as_deref() {
        Some("0x") => (&v[2..], 16),
        Some("0o") => (&v[2..], 8),
        Some("0b") => (&v[2..], 2),
        _ => (v, 10),
    };
    digits.chars().next().is_some_and(|c| c.is_digit(radix))
        && digits.chars().all(|c| c == '_' || c.is_digit(radix))
}

/// Whether herd7 reads `value` as a floating-point number (OCaml's `float_of_string`).
pub fn is_float(value: &str) -> bool {
    let v: String = value.chars().filter(|&c| c != '_').collect();
    !v.is_empty() && !value.starts_with('_') && (v.parse::<f64>().is_ok() || is_int(&v))
}

/// Whether `value` is two floating-point numbers, `x,y`, with no blank around the comma
/// (herd7 reads it with the format `%f,%f`).
fn is_pair(value: &str) -> bool {
    value
        .split_once(',')
        .is_some_and(|(x, y)| is_float(x) && is_float(y))
}

/// Whether herd7 takes `value` for a model: a file name ending in `.cat` or `.mdl`, or
/// one of its CAV12 models.
pub fn is_model(value: &str) -> bool {
    value.ends_with(".cat") || value.ends_with(".mdl") || is_cav12(value)
}

/// Whether `value` names one of herd7's internal CAV12 models.
pub fn is_cav12(value: &str) -> bool {
    matches!(
        value.to_ascii_lowercase().as_str(),
        "cav12" | "cav12_nocord" | "cav12_lightst" | "cav12_nocord_lightst"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_listed_once() {
        for (i, k) in KEYS.iter().enumerate() {
            assert!(
                KEYS[..i].iter().all(|o| o.name != k.name),
                "{} twice",
                k.name
            );
        }
    }

    #[test]
    fn values_are_checked_as_herd7_checks_them() {
        let k = |n| find(n).expect("a key");
        assert_eq!(value_error(k("hexa"), "true"), None);
        assert_eq!(
            value_error(k("hexa"), "maybe").as_deref(),
            Some("bool parameter expected")
        );
        assert_eq!(value_error(k("fontsize"), "none"), None);
        assert_eq!(
            value_error(k("fontsize"), "x").as_deref(),
            Some("integer parameter expected")
        );
        assert_eq!(value_error(k("nshow"), "0x1f"), None);
        assert_eq!(value_error(k("timeout"), "1.5"), None);
        assert_eq!(value_error(k("xscale"), "2"), None);
        assert_eq!(
            value_error(k("initrfpos"), "1").as_deref(),
            Some("pair of float parameter expected")
        );
        assert!(value_error(k("initrfpos"), "0.5, 1").is_some());
        assert_eq!(value_error(k("initpos"), "0.5,1"), None);
        assert_eq!(
            value_error(k("graph"), "bogus").as_deref(),
            Some("bad tags for graph, allowed tag are free,cluster,columns")
        );
        assert_eq!(value_error(k("splines"), "Spline"), None);
        assert_eq!(
            value_error(k("dotcom"), "bogus").as_deref(),
            Some("bad tags for dotcom, allowed tag are plain,fig")
        );
        assert_eq!(
            value_error(k("model"), "foo").as_deref(),
            Some("bad tags for model, allowed tag are cav12,<filename>.cat")
        );
        assert_eq!(
            value_error(k("cat"), "foo").as_deref(),
            Some("bad tags for cat, allowed tag are cav12,<filename>.cat")
        );
        assert_eq!(value_error(k("edgeattr"), "hb,color,indigo"), None);
        assert_eq!(
            value_error(k("edgeattr"), "a,b").as_deref(),
            Some("bad ->ument for key edgeattr: 'a,b'")
        );
        assert_eq!(
            value_error(k("debug"), "bogus").as_deref(),
            Some("bad argument for key debug: 'bogus'")
        );
        assert!(variant_error("variant", "lkmmv2,cos-opt,T07").is_none());
        assert!(variant_error("variant", "lkmmv2,bogus").is_some_and(|m| {
            m.starts_with("tag bogus for variant is wrong, allowed tags are success,")
        }));
    }
}
