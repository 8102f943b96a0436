//! Random cat models, for the tests that hold hazmat's interpreter to herd7 on models no
//! one wrote: the same model file is given to both tools over the same litmus files, and
//! their outputs must agree, or both must refuse the model (at the same place, when herd7
//! names one).
//!
//! A model ([`model`]) includes herd7's `cos.cat` (so that `co`, `fr` and their parts come
//! from the library, hazmat's or herd7's), binds a few relations, sometimes a function of
//! one or two arguments, a function written as a value (`fun x -> ...`), two bindings made
//! at once (`let a = ... and b = ...`), a recursive binding, two mutually recursive ones
//! and a binding under an `if` on a variant or a `try`, sometimes herd7's `filters.cat`,
//! sometimes calls a procedure that raises two flags, sometimes shows a relation, then
//! raises a dozen flags (`~empty`, `~acyclic`, `~irreflexive` over relations and sets, now
//! and then un-negated) and sometimes makes a check that cuts executions (`acyclic`,
//! `irreflexive`, `empty`, `undefined_unless`, `assert`). Its expressions are drawn over
//! the names herd7 gives every model on a C test, in one of two [`Dialect`]s (the kernel's
//! sets, its bell's tags, or herd7's C11 ones), the standard library's functions
//! (`fencerel`, `toid`, `udr`, `imply`, `nodetour`, `singlestep`) and local bindings (`let
//! t = ... in`). The universe `_` and `~0` appear where a set or a relation is read, as
//! herd7's polymorphic universe; a few postfix operators are written after a complement
//! without parentheses, which herd7's grammar refuses, so that the two tools' syntax errors
//! are compared too.
//!
//! The same seed and dialect give the same model.

use std::fmt::Write as _;

/// The names a model's expressions are drawn over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// The kernel's: its bell's tags (`ONCE`, `MB`, `Rcu-lock`...) beside herd7's sets,
    /// for tests run with the kernel's bell and macros.
    Kernel,
    /// herd7's C11 sets (`ACQ`, `SC`, `NA`...), for tests run with herd7's `c11.def`.
    C11,
}

/// Relations herd7 gives every model on a C test, in both dialects.
const RELATIONS: &[&str] = &[
    "_", "(~0)", "po", "rf", "co", "fr", "loc", "ext", "int", "id", "addr", "data", "ctrl", "rmw",
    "po-loc", "rfe", "rfi", "coe", "coi", "fre", "fri", "amo", "sm", "co0",
];

/// Relations herd7 gives every model that are empty or equal to another on C tests.
const RELATIONS_C11: &[&str] = &["si", "partial_po", "iico_order"];

/// Sets of both dialects.
const SETS: &[&str] = &[
    "M", "R", "W", "F", "IW", "FW", "_", "RMW", "LKR", "LKW", "UL", "A", "NA", "annot", "EXEC",
    "SPEC", "emptyset",
];

/// The kernel's bell's tags.
const SETS_KERNEL: &[&str] = &[
    "ONCE",
    "ACQUIRE",
    "RELEASE",
    "MB",
    "NORETURN",
    "Rmb",
    "Wmb",
    "Rcu-lock",
    "Sync-rcu",
    "Before-atomic",
    "Srcu-lock",
];

/// herd7's C11 sets.
const SETS_C11: &[&str] = &[
    "ACQ", "REL", "SC", "RLX", "ACQ_REL", "CON", "NExp", "SPURIOUS", "Rreg",
];

/// The variants a model's `if` asks about, one of which the run may set.
pub const VARIANTS: &[&str] = &["lkmmv2", "cos-opt", "backcompat"];

/// SplitMix64: small, and the same numbers everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `p`.
    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

/// An expression's text, and how it may be written as an operand.
struct Exp {
    text: String,
    form: Form,
}

/// What an expression's text ends with, for the operators that may follow it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    /// A name, a call, a bracket or parentheses: anything may follow or precede it.
    Atom,
    /// A postfix operator: another one would make a token of its own (`+` then `+` is
    /// herd7's `++`), and herd7's grammar refuses one after a complement (`~r?`).
    Postfixed,
    /// An infix or prefix operator: an operand only in parentheses.
    Compound,
}

impl Exp {
    fn atom(text: impl Into<String>) -> Exp {
        Exp {
            text: text.into(),
            form: Form::Atom,
        }
    }

    fn compound(text: String) -> Exp {
        Exp {
            text,
            form: Form::Compound,
        }
    }

    /// The text as an infix operator's operand: parenthesised unless an atom or
    /// postfixed.
    fn operand(self) -> String {
        match self.form {
            Form::Compound => format!("({})", self.text),
            _ => self.text,
        }
    }

    /// The text as the operand of a postfix operator or a complement: parenthesised
    /// unless an atom.
    fn tight(self) -> String {
        match self.form {
            Form::Atom => self.text,
            _ => format!("({})", self.text),
        }
    }
}

/// The drawing state: the names drawn from, growing as the model binds new ones.
struct Draw {
    rng: Rng,
    relations: Vec<String>,
    sets: Vec<String>,
    /// The names of local bindings (`let tN = ... in`) drawn so far.
    fresh: u32,
}

impl Draw {
    /// One of `names`, drawn without copying the list.
    fn name(rng: &mut Rng, names: &[String]) -> Exp {
        Exp::atom(names[rng.below(names.len())].clone())
    }

    fn set(&mut self, depth: u32) -> Exp {
        if depth == 0 || self.rng.chance(0.4) {
            return Self::name(&mut self.rng, &self.sets);
        }
        match self.rng.below(7) {
            0 => {
                let op = self.rng.pick(&["|", "&", "\\"]);
                let (a, b) = (self.set(depth - 1), self.set(depth - 1));
                Exp::compound(format!("{} {op} {}", a.operand(), b.operand()))
            }
            1 => Exp::atom(format!("domain({})", self.relation(depth - 1).text)),
            2 => Exp::atom(format!("range({})", self.relation(depth - 1).text)),
            3 => Exp::compound(format!("~{}", self.set(depth - 1).tight())),
            // The standard library's functions of sets.
            4 => Exp::atom(format!("udr({})", self.relation(depth - 1).text)),
            5 => {
                let (a, b) = (self.set(depth - 1), self.set(depth - 1));
                Exp::atom(format!("imply({}, {})", a.text, b.text))
            }
            _ => {
                let s = self.set(depth - 1);
                Exp::atom(format!("({})", s.text))
            }
        }
    }

    fn relation(&mut self, depth: u32) -> Exp {
        if depth == 0 || self.rng.chance(0.3) {
            return Self::name(&mut self.rng, &self.relations);
        }
        match self.rng.below(17) {
            0 | 1 => {
                let op = self.rng.pick(&["|", "&", "\\"]);
                let (a, b) = (self.relation(depth - 1), self.relation(depth - 1));
                Exp::compound(format!("{} {op} {}", a.operand(), b.operand()))
            }
            2 => {
                let (a, b) = (self.relation(depth - 1), self.relation(depth - 1));
                Exp::compound(format!("{} ; {}", a.operand(), b.operand()))
            }
            3 => self.postfix(depth, "^-1"),
            4 => self.postfix(depth, "+"),
            5 => self.postfix(depth, "*"),
            6 => self.postfix(depth, "?"),
            7 => Exp::atom(format!("[{}]", self.set(depth - 1).text)),
            8 => {
                let (a, b) = (self.set(depth - 1), self.set(depth - 1));
                Exp::compound(format!("{} * {}", a.operand(), b.operand()))
            }
            9 => {
                let r = self.relation(depth - 1);
                // Now and then a postfix operator right after a complement, which
                // herd7's grammar refuses: the two tools' syntax errors are compared.
                if self.rng.chance(0.03) {
                    let op = self.rng.pick(&["+", "*", "?"]);
                    Exp::compound(format!("~{}{op}", r.tight()))
                } else {
                    Exp::compound(format!("~{}", r.tight()))
                }
            }
            10 => Exp::atom(format!("fencerel({})", self.set(depth - 1).text)),
            // The standard library's functions of relations.
            13 => Exp::atom(format!("toid({})", self.set(depth - 1).text)),
            14 => {
                let (a, b, c) = (
                    self.relation(depth - 1),
                    self.relation(depth - 1),
                    self.relation(depth - 1),
                );
                Exp::atom(format!("nodetour({}, {}, {})", a.text, b.text, c.text))
            }
            15 => Exp::atom(format!("singlestep({})", self.relation(depth - 1).text)),
            // A local binding, as herd7's library writes them.
            16 => {
                self.fresh += 1;
                let t = format!("t{}", self.fresh);
                let bound = self.relation(depth - 1);
                self.relations.push(t.clone());
                let body = self.relation(depth - 1);
                self.relations.pop();
                Exp::atom(format!("(let {t} = {} in {})", bound.text, body.text))
            }
            11 => {
                let r = self.relation(depth - 1);
                Exp::atom(format!("({})", r.text))
            }
            _ => {
                let (a, b) = (self.relation(depth - 1), self.relation(depth - 1));
                Exp::compound(format!("{} \\ {}", a.operand(), b.operand()))
            }
        }
    }

    fn postfix(&mut self, depth: u32, op: &str) -> Exp {
        let r = self.relation(depth - 1);
        Exp {
            text: format!("{}{op}", r.tight()),
            form: Form::Postfixed,
        }
    }
}

/// The model numbered `seed` in `dialect`: a cat file's text, named `generated SEED`.
pub fn model(seed: u64, dialect: Dialect) -> String {
    let (relations, sets): (&[&str], &[&str]) = match dialect {
        Dialect::Kernel => (&[], SETS_KERNEL),
        Dialect::C11 => (RELATIONS_C11, SETS_C11),
    };
    let mut d = Draw {
        rng: Rng(seed ^ 0x6361_745f_6d6f_6465),
        relations: RELATIONS
            .iter()
            .chain(relations)
            .map(|s| s.to_string())
            .collect(),
        sets: SETS.iter().chain(sets).map(|s| s.to_string()).collect(),
        fresh: 0,
    };
    let mut out = String::new();
    let _ = writeln!(out, "\"generated {seed}\"");
    let _ = writeln!(out, "include \"cos.cat\"");
    if d.rng.chance(0.15) {
        // herd7's filters: `WW`, `noid`, and its own `A` and `P`.
        let _ = writeln!(out, "include \"filters.cat\"");
        d.relations
            .extend(["WW(po)".into(), "noid(rf)".into(), "atom".into()]);
        d.sets.push("P".into());
    }
    let mut lets = Vec::new();
    for i in 0..1 + d.rng.below(4) {
        let e = d.relation(3);
        let _ = writeln!(out, "let r{i} = {}", e.text);
        lets.push(format!("r{i}"));
    }
    d.relations.extend(lets.iter().cloned());
    if d.rng.chance(0.2) {
        let e = d.set(2);
        let _ = writeln!(out, "let s0 = {}", e.text);
        d.sets.push("s0".into());
    }
    if d.rng.chance(0.5) {
        let (a, b) = (d.relation(2), d.relation(1));
        let _ = writeln!(out, "let g(a) = (a ; {}) | {}", a.operand(), b.operand());
        let arg = lets[d.rng.below(lets.len())].clone();
        d.relations.push(format!("g({arg})"));
    }
    if d.rng.chance(0.3) {
        let (a, s) = (d.relation(2), d.set(1));
        let _ = writeln!(out, "let h(a, b) = (a & {}) | ([b] ; a)", a.operand());
        let arg = lets[d.rng.below(lets.len())].clone();
        d.relations.push(format!("h({arg}, {})", s.text));
    }
    if d.rng.chance(0.5) {
        let (a, b) = (d.relation(2), d.relation(2));
        let _ = writeln!(out, "let rec q = {} | (q ; {})", a.operand(), b.operand());
        d.relations.push("q".into());
    }
    if d.rng.chance(0.3) {
        let (a, b) = (d.relation(2), d.relation(2));
        let _ = writeln!(
            out,
            "let rec ea = {} | (eb ; po) and eb = {} | (ea ; rf)",
            a.operand(),
            b.operand()
        );
        d.relations.extend(["ea".into(), "eb".into()]);
    }
    if d.rng.chance(0.2) {
        // A function written as a value, and two bindings made at once.
        let (a, b, c) = (d.relation(2), d.relation(2), d.relation(1));
        let _ = writeln!(
            out,
            "let fl = fun x -> (x ; {}) \\ {}",
            a.operand(),
            b.operand()
        );
        let arg = lets[d.rng.below(lets.len())].clone();
        let _ = writeln!(out, "let b1 = fl({arg}) and b2 = {}", c.text);
        d.relations.extend(["b1".into(), "b2".into()]);
    }
    if d.rng.chance(0.2) {
        // A binding whose evaluation may fail (a set where a relation is read, say), and
        // what `try` gives instead.
        let (a, b) = (d.relation(2), d.relation(1));
        let _ = writeln!(out, "let tr = try {} with {}", a.operand(), b.operand());
        d.relations.push("tr".into());
    }
    if d.rng.chance(0.4) {
        let s = d.set(2);
        let v = d.rng.pick(VARIANTS);
        let r = d.relation(1);
        let _ = writeln!(out, "let sv = {}", s.text);
        let _ = writeln!(out, "let hv = if \"{v}\" then [sv] else {}", r.operand());
        d.relations.push("hv".into());
    }
    if d.rng.chance(0.3) {
        let r = d.relation(2);
        let _ = writeln!(
            out,
            "procedure pr(a, b) =\n  flag ~empty (a & b) as in-both\n  flag ~acyclic (a | {}) as pr-cycle\nend",
            r.operand()
        );
        let (a, b) = (d.relation(2), d.relation(2));
        let _ = writeln!(out, "call pr({}, {})", a.text, b.text);
    }
    if d.rng.chance(0.2) {
        let _ = writeln!(out, "show {} as shown", d.relation(2).operand());
    }
    for i in 0..12 {
        let k = d.rng.below(100);
        let line = if k < 3 {
            // A flag that is raised when its check holds.
            let check = d.rng.pick(&["empty", "acyclic", "irreflexive"]);
            format!("flag {check} {} as f{i}", d.relation(2).operand())
        } else if k < 50 {
            format!("flag ~empty {} as f{i}", d.relation(4).operand())
        } else if k < 70 {
            format!("flag ~empty {} as f{i}", d.set(3).operand())
        } else if k < 85 {
            format!("flag ~acyclic {} as f{i}", d.relation(3).operand())
        } else {
            format!("flag ~irreflexive {} as f{i}", d.relation(3).operand())
        };
        let _ = writeln!(out, "{line}");
    }
    if d.rng.chance(0.5) {
        let check = d.rng.pick(&[
            "acyclic",
            "irreflexive",
            "empty",
            "acyclic",
            "irreflexive",
            "empty",
            "undefined_unless empty",
            "assert acyclic",
        ]);
        let _ = writeln!(out, "{check} {} as cut", d.relation(2).operand());
    }
    out
}

/// The variants a run of the model numbered `seed` sets: none, or one of [`VARIANTS`].
pub fn variants(seed: u64) -> Vec<String> {
    let mut rng = Rng(seed ^ 0x7661_7269_616e_7473);
    match rng.below(2 * VARIANTS.len()) {
        i if i < VARIANTS.len() => vec![VARIANTS[i].to_string()],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_model_and_others_differ() {
        assert_eq!(model(7, Dialect::Kernel), model(7, Dialect::Kernel));
        assert_ne!(model(7, Dialect::Kernel), model(8, Dialect::Kernel));
        assert_ne!(model(7, Dialect::Kernel), model(7, Dialect::C11));
    }

    #[test]
    fn every_model_names_its_seed_includes_cos_and_raises_a_dozen_flags() {
        for seed in 0..200 {
            let m = model(seed, Dialect::C11);
            assert!(m.starts_with(&format!("\"generated {seed}\"\ninclude \"cos.cat\"\n")));
            assert_eq!(
                m.lines().filter(|l| l.starts_with("flag ")).count(),
                12,
                "{m}"
            );
        }
    }

    /// herd7 reads `+` then `+` as its `++`: postfix operators never follow each other.
    #[test]
    fn postfix_operators_are_parenthesised_apart() {
        for seed in 0..500 {
            let m = model(seed, Dialect::Kernel);
            assert!(
                !m.contains("++") && !m.contains("+*") && !m.contains("??"),
                "{m}"
            );
        }
    }

    #[test]
    fn the_dialects_draw_their_own_sets() {
        let kernel: String = (0..100).map(|s| model(s, Dialect::Kernel)).collect();
        let c11: String = (0..100).map(|s| model(s, Dialect::C11)).collect();
        assert!(kernel.contains("ONCE") && !kernel.contains("ACQ_REL"));
        assert!(c11.contains("ACQ_REL") && !c11.contains("Rcu-lock"));
    }
}
