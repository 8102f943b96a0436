//! The syntax of herd7's model language: cat files, and the bell files written in it.
//!
//! A model is a list of [`Instr`]uctions: definitions (`let`, `let rec`), checks
//! (`acyclic`, `irreflexive`, `empty`, negated with `~`, as `flag`s or plain checks),
//! choices (`with x from S`), `include`s, procedures, and the bell file's declarations
//! (`enum`, `instructions`).
//! Expressions denote sets of events, relations, tags, sets of tags or of relations,
//! tuples and functions; their operators are the same for sets and relations
//! (`|` union, `&` intersection, `\` difference, `;` sequence, `*` product or closure,
//! `+`, `?`, `^-1`, `~` complement, `[S]` the identity on a set, `++` adding to a set).
//!
//! Every node carries its [`Span`], a byte range in one of the model's files.

/// A byte range in one file of the model (a model includes others: see
/// [`Span::file`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// The file, as an index into the list of files a model was read from.
    pub file: u32,
    /// The first byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

/// A parsed model file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Model {
    /// The model's name, the quoted string (or the word) it opens with, if any: the last
    /// of the two in `NAME "title"` and `NAME1 NAME2`.
    pub title: Option<String>,
    /// The first word (or the lone string) the model opens with, which herd7 reads as the
    /// name of an architecture: when it names one, herd7 refuses to run the model on a test
    /// of another (`X86 TSO` is a model for x86 tests titled `TSO`).
    pub arch: Option<String>,
    /// `catdep` after the opening: the model computes the dependencies itself, so herd7
    /// keeps the register events it otherwise drops before running a model.
    pub catdep: bool,
    /// The instructions, in order.
    pub instrs: Vec<Instr>,
}

/// A name bound by a pattern, or `_`.
pub type Name = Option<String>;

/// What a binding or a function binds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// One name: `x`, or `_`.
    Var(Name),
    /// A tuple of names: `(x, y)`; `()` binds nothing.
    Tuple(Vec<Name>),
}

/// `pat = exp`, as `let` and `let rec` bind it; `f(x, y) = e` is `f = fun (x, y) -> e`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// What is bound.
    pub pat: Pattern,
    /// Its value.
    pub exp: Exp,
    /// Where the binding is written.
    pub span: Span,
}

/// What a check tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Test {
    /// `acyclic r`: `r+` is irreflexive.
    Acyclic,
    /// `irreflexive r`.
    Irreflexive,
    /// `empty e`.
    Empty,
}

/// What a check does when it fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A plain check: the execution is forbidden.
    Check,
    /// `flag`: the execution is kept, and the flag raised (when the test *holds*, herd7
    /// raises it: `flag ~empty r` raises when `r` is not empty).
    Flag,
    /// `undefined_unless`: the execution's behaviour is undefined.
    UndefinedUnless,
    /// `assert`.
    Assert,
}

/// The check after `when` in `let rec b and b ... when [~]test exp [as name]`.
///
/// herd7 makes it after every step of the fixpoint iteration, not only at its end, and
/// rejects the execution as soon as it fails.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct When {
    /// Whether the test is negated (`~acyclic r`).
    pub negated: bool,
    /// The test.
    pub test: Test,
    /// What it is applied to.
    pub exp: Exp,
    /// Its name (`as sc`).
    pub name: Option<String>,
    /// Where the test is written, from its first word to its name.
    pub span: Span,
}

/// A condition of `if ... then ... else` or of an `if` on variants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    /// `e1 = e2`.
    Eq(Exp, Exp),
    /// `e1 subset e2`.
    Subset(Exp, Exp),
    /// `e1 in e2`.
    In(Exp, Exp),
    /// A condition on the variants the model runs with (`"cos-opt"`, `not "x"`, ...).
    Variant(VariantCond),
}

/// A condition on variants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VariantCond {
    /// `"name"` or `variant "name"`: the variant is set.
    Is(String),
    /// `not c`.
    Not(Box<VariantCond>),
    /// `c && c`.
    And(Box<VariantCond>, Box<VariantCond>),
    /// `c || c`.
    Or(Box<VariantCond>, Box<VariantCond>),
}

/// One instruction of a model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Instr {
    /// `let b and b ...` (an optional `in` after it is ignored).
    Let {
        /// The bindings, evaluated in the environment before the instruction.
        bindings: Vec<Binding>,
        /// Where it is written.
        span: Span,
    },
    /// `let rec b and b ...`: relations and sets defined as the least fixpoint of their
    /// definitions, functions that may call themselves.
    LetRec {
        /// The bindings.
        bindings: Vec<Binding>,
        /// The check of `let rec ... when acyclic r`, if any.
        when: Option<Box<When>>,
        /// Where it is written.
        span: Span,
    },
    /// A check: `[flag] [~] acyclic|irreflexive|empty exp [as name]`.
    Check {
        /// What fails the check.
        role: Role,
        /// Whether the test is negated (`~empty r`).
        negated: bool,
        /// The test.
        test: Test,
        /// What it is applied to.
        exp: Exp,
        /// Its name (`as coherence`).
        name: Option<String>,
        /// Where it is written.
        span: Span,
    },
    /// `show a, b`: relations to draw.
    Show {
        /// The names.
        names: Vec<String>,
        /// Where it is written.
        span: Span,
    },
    /// `show e as name`.
    ShowAs {
        /// The relation.
        exp: Exp,
        /// Its name in drawings.
        name: String,
        /// Where it is written.
        span: Span,
    },
    /// `unshow a, b`.
    Unshow {
        /// The names.
        names: Vec<String>,
        /// Where it is written.
        span: Span,
    },
    /// `include "file.cat"`.
    Include {
        /// The file name, as written.
        file: String,
        /// Where it is written.
        span: Span,
    },
    /// `procedure [rec] name(params) = instrs end`.
    Procedure {
        /// The name.
        name: String,
        /// The parameters.
        params: Pattern,
        /// The body.
        body: Vec<Instr>,
        /// Whether it may call itself.
        rec: bool,
        /// Where it is written.
        span: Span,
    },
    /// `call name arg [as name]`.
    Call {
        /// The procedure.
        name: String,
        /// Its argument.
        arg: Exp,
        /// The name of the checks it makes, for their messages.
        as_name: Option<String>,
        /// Where it is written.
        span: Span,
    },
    /// `enum Name = 'a || 'b ...`: a type of tags, and the set `Name` of them.
    Enum {
        /// The name.
        name: String,
        /// The tags, in order.
        tags: Vec<String>,
        /// Where it is written.
        span: Span,
    },
    /// `forall x in e do instrs end`.
    Forall {
        /// The name bound to each element.
        var: String,
        /// The set iterated over.
        set: Exp,
        /// The body.
        body: Vec<Instr>,
        /// Where it is written.
        span: Span,
    },
    /// `debug e`.
    Debug {
        /// What to print.
        exp: Exp,
        /// Where it is written.
        span: Span,
    },
    /// `with x from e`: the rest of the model runs once for each element of `e`, with `x`
    /// bound to it; each run is an execution of its own.
    WithFrom {
        /// The name bound.
        var: String,
        /// The set of choices.
        set: Exp,
        /// Where it is written.
        span: Span,
    },
    /// A bell file's `instructions R[Accesses]` (or `default ...`): which tags events of
    /// kind `R` may carry.
    Events {
        /// The kind of events (`R`, `W`, `F`, `RMW`, ...).
        name: String,
        /// The enums (or tags) they may carry.
        args: Vec<Exp>,
        /// Whether it is a `default` declaration.
        default: bool,
        /// Where it is written.
        span: Span,
    },
    /// `if cond instrs [else instrs] end`, on variants.
    IfVariant {
        /// The condition.
        cond: VariantCond,
        /// Run when it holds.
        then: Vec<Instr>,
        /// Run otherwise.
        els: Vec<Instr>,
        /// Where it is written.
        span: Span,
    },
    /// `match e with 'tag -> instrs || ... [|| _ -> instrs] end`.
    Match {
        /// The tag matched.
        exp: Exp,
        /// The clauses, by tag.
        clauses: Vec<(String, Vec<Instr>)>,
        /// The clause for any other tag.
        default: Option<Vec<Instr>>,
        /// Where it is written.
        span: Span,
    },
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op1 {
    /// `r+`: transitive closure.
    Plus,
    /// `r*`: reflexive-transitive closure.
    Star,
    /// `r?`: reflexive closure.
    Opt,
    /// `~e`: complement.
    Comp,
    /// `r^-1`: inverse.
    Inv,
    /// `[S]`: the identity on a set.
    ToId,
}

/// Binary operators; union, intersection and sequence chain over any number of operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op2 {
    /// `|`, on sets or relations.
    Union,
    /// `&`, on sets or relations.
    Inter,
    /// `\`, on sets or relations.
    Diff,
    /// `;`: sequential composition of relations.
    Seq,
    /// `S * T`: the relation from every element of `S` to every element of `T`.
    Cartesian,
    /// `e ++ S`: `S` with `e` added.
    Add,
}

/// An expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exp {
    /// `0` or `{}`: the empty set or relation, whichever the context needs.
    Empty(Span),
    /// `_`: the universe, every event (or every pair).
    Universe(Span),
    /// `'name`: a tag.
    Tag(String, Span),
    /// A name.
    Var(String, Span),
    /// A unary operator.
    Op1(Op1, Box<Exp>, Span),
    /// A binary operator over two or more operands (`a | b | c` is one node).
    Op(Op2, Vec<Exp>, Span),
    /// `(a, b)`, or `()`.
    Tuple(Vec<Exp>, Span),
    /// `f arg`, or `f(a, b)` which applies `f` to a tuple.
    App(Box<Exp>, Box<Exp>, Span),
    /// `let bindings in exp`.
    Let(Vec<Binding>, Box<Exp>, Span),
    /// `let rec bindings in exp`.
    LetRec(Vec<Binding>, Box<Exp>, Span),
    /// `fun pat -> exp`.
    Fun(Pattern, Box<Exp>, Span),
    /// `{a, b, c}`: the set of the elements.
    Set(Vec<Exp>, Span),
    /// `match e with 'tag -> e || ... [|| _ -> e] end`, on a tag.
    Match {
        /// The tag matched.
        exp: Box<Exp>,
        /// The clauses.
        clauses: Vec<(String, Exp)>,
        /// The clause for other tags.
        default: Option<Box<Exp>>,
        /// Where it is written.
        span: Span,
    },
    /// `match e with {} -> e1 || x ++ rest -> e2 end`, on a set: `e1` when it is empty,
    /// otherwise `e2` with one element (`x`) taken out.
    /// The clauses may come in either order.
    ///
    /// The other form of the second clause, `pre | x ++ rest -> e2`, splits the set at the
    /// element: `pre` is bound to the elements ordered before `x`, `rest` to those after it.
    MatchSet {
        /// The set matched.
        exp: Box<Exp>,
        /// The value when it is empty.
        empty: Box<Exp>,
        /// The name bound to the elements before `elt`, in the `pre | x ++ rest` form.
        pre: Option<Name>,
        /// The element bound.
        elt: Name,
        /// The rest bound: the other elements, or those after `elt` when `pre` is given.
        rest: Name,
        /// The value otherwise.
        nonempty: Box<Exp>,
        /// Where it is written.
        span: Span,
    },
    /// `try e with e2`: `e`, or `e2` if `e` fails (an unbound name, a type error).
    Try(Box<Exp>, Box<Exp>, Span),
    /// `if cond then e1 else e2`.
    If(Box<Cond>, Box<Exp>, Box<Exp>, Span),
}

impl Exp {
    /// Where the expression is written.
    pub fn span(&self) -> Span {
        match self {
            Exp::Empty(s)
            | Exp::Universe(s)
            | Exp::Tag(_, s)
            | Exp::Var(_, s)
            | Exp::Op1(_, _, s)
            | Exp::Op(_, _, s)
            | Exp::Tuple(_, s)
            | Exp::App(_, _, s)
            | Exp::Let(_, _, s)
            | Exp::LetRec(_, _, s)
            | Exp::Fun(_, _, s)
            | Exp::Set(_, s)
            | Exp::Try(_, _, s)
            | Exp::If(_, _, _, s) => *s,
            Exp::Match { span, .. } | Exp::MatchSet { span, .. } => *span,
        }
    }
}
