//! Compiling a model: names resolved to slots, once, before any execution is judged.
//!
//! A model is parsed once and judged against many executions, so the interpreter does not
//! walk the syntax tree with an environment of names: this module turns the tree into a
//! program ([`Code`]) whose variables are slots.
//! A top-level binding gets a global slot of its own (a model that redefines `R` gets a
//! second slot, and every later use reads it), the names a function body binds get slots
//! in the function's frame, and a function captures the values of the enclosing frame's
//! names it uses when it is created, so that lookups at run time are array reads.
//! Conditions on variants (`if "cos-opt" ... end`) are decided here, since the variants
//! are fixed for a run.
//!
//! The names an execution provides (`po`, `rf`, `R`, `loc`...) and the built-in functions
//! (`domain`, `linearisations`...) are the first global slots ([`Base`]), filled for each
//! execution before the program runs.
//! The program is then staged ([`super::stage`]): what the thread paths fix is marked, or
//! taken out of what they do not, to be computed once for every execution of those paths.

use super::ast::{self, Cond, Exp, Instr, Op1, Op2, Pattern, Role, Span, Test, VariantCond};
use super::config::keys;
use super::known::Known;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Why a model cannot be compiled, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub(crate) struct CompileError {
    /// What is wrong, starting lowercase.
    pub(crate) message: String,
    /// Where.
    pub(crate) span: Span,
}

fn err<T>(message: impl Into<String>, span: Span) -> Result<T, CompileError> {
    Err(CompileError {
        message: message.into(),
        span,
    })
}

/// A name the execution or the interpreter provides before the model runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Base {
    /// A set or relation of the execution, by its cat name.
    Exec(&'static str),
    /// A built-in function.
    Builtin(Builtin),
}

/// The built-in functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Builtin {
    /// `domain r`.
    Domain,
    /// `range r`.
    Range,
    /// `fencerel S`: `(po & (_ * S)) ; po`.
    Fencerel,
    /// `classes r`: the equivalence classes of `r`, a set of sets.
    Classes,
    /// `classes-loc S`: the events of `S` by location, a set of sets.
    ClassesLoc,
    /// `linearisations (S, r)`: every total order of `S` that extends `r`.
    Linearisations,
    /// `different-values r`: the pairs of `r` whose events have different values.
    DifferentValues,
    /// `tag2events 'tag`: the events carrying the tag.
    Tag2Events,
    /// `partition S`: an alias of `classes-loc`.
    Partition,
}

impl Builtin {
    /// Whether the builtin reads the events' values, not only its argument: its result may
    /// change between two executions of the same thread paths, so a run never reuses what
    /// the run before computed with it.
    pub(crate) fn reads_values(self) -> bool {
        matches!(self, Builtin::DifferentValues)
    }
}

/// The names provided before the model runs, and what each is.
pub(crate) const BASE: &[(&str, Base)] = &[
    ("M", Base::Exec("M")),
    // herd7's explicit accesses: in a C test, every memory event.
    ("Exp", Base::Exec("M")),
    ("R", Base::Exec("R")),
    ("W", Base::Exec("W")),
    ("F", Base::Exec("F")),
    ("IW", Base::Exec("IW")),
    ("FW", Base::Exec("FW")),
    ("B", Base::Exec("B")),
    ("RMW", Base::Exec("RMW")),
    ("LK", Base::Exec("LK")),
    ("LKR", Base::Exec("LKR")),
    ("LKW", Base::Exec("LKW")),
    ("LS", Base::Exec("LS")),
    ("LF", Base::Exec("LF")),
    ("UL", Base::Exec("UL")),
    ("RL", Base::Exec("RL")),
    ("RU", Base::Exec("RU")),
    ("ACQ", Base::Exec("ACQ")),
    ("SC", Base::Exec("SC")),
    ("REL", Base::Exec("REL")),
    ("ACQ_REL", Base::Exec("ACQ_REL")),
    ("RLX", Base::Exec("RLX")),
    ("CON", Base::Exec("CON")),
    ("A", Base::Exec("A")),
    ("NA", Base::Exec("NA")),
    ("annot", Base::Exec("annot")),
    ("id", Base::Exec("id")),
    ("loc", Base::Exec("loc")),
    ("int", Base::Exec("int")),
    ("ext", Base::Exec("ext")),
    ("po", Base::Exec("po")),
    ("rf", Base::Exec("rf")),
    ("rmw", Base::Exec("rmw")),
    ("addr", Base::Exec("addr")),
    ("data", Base::Exec("data")),
    ("ctrl", Base::Exec("ctrl")),
    // herd7's atomic memory operations: in C, every read-modify-write.
    ("amo", Base::Exec("rmw")),
    ("pco", Base::Exec("pco")),
    ("sm", Base::Exec("sm")),
    // herd7's name for the same relation.
    ("si", Base::Exec("sm")),
    // What herd7 gives every model and leaves empty on a C test, whatever its dialect
    // (held to herd7 7.58 over the conformance corpus and C11 tests): speculation,
    // spurious and implicit accesses, branch and register events (empty sets), and the
    // relations of instruction semantics C has none of (empty relations, so that `~r`
    // is the full relation, as in herd7).
    ("SPEC", Base::Exec("no-events")),
    ("SPURIOUS", Base::Exec("no-events")),
    ("NExp", Base::Exec("no-events")),
    ("BCC", Base::Exec("no-events")),
    ("PRED", Base::Exec("no-events")),
    ("Rreg", Base::Exec("no-events")),
    ("Wreg", Base::Exec("no-events")),
    ("aligned", Base::Exec("no-pairs")),
    ("iico_order", Base::Exec("no-pairs")),
    ("partial_po", Base::Exec("no-pairs")),
    ("success", Base::Exec("no-pairs")),
    ("tst", Base::Exec("no-pairs")),
    // The events that are not speculated: every memory event.
    ("EXEC", Base::Exec("M")),
    ("domain", Base::Builtin(Builtin::Domain)),
    ("range", Base::Builtin(Builtin::Range)),
    ("fencerel", Base::Builtin(Builtin::Fencerel)),
    ("classes", Base::Builtin(Builtin::Classes)),
    ("classes-loc", Base::Builtin(Builtin::ClassesLoc)),
    ("partition", Base::Builtin(Builtin::Partition)),
    ("linearisations", Base::Builtin(Builtin::Linearisations)),
    ("different-values", Base::Builtin(Builtin::DifferentValues)),
    ("tag2events", Base::Builtin(Builtin::Tag2Events)),
    ("tag2instrs", Base::Builtin(Builtin::Tag2Events)),
];

/// The names herd7 gives every model a value that hazmat does not compute, with what each
/// is: relations of herd7's own translation of a test into events (the data flow inside
/// an instruction, register reads-from, the instances of an instruction), and the
/// primitives of other architectures' models. A model that reads one is refused where it
/// reads it, even under `try`, which would otherwise answer with its `with` branch where
/// herd7 answers with the value.
pub(crate) const UNCOMPUTED: &[(&str, &str)] = &[
    ("iico_data", "herd7's data flow inside one instruction"),
    ("iico_ctrl", "herd7's control flow inside one instruction"),
    ("rf-reg", "herd7's reads-from through registers"),
    ("depend", "herd7's dependencies through registers"),
    (
        "control",
        "herd7's control dependencies of its event structure",
    ),
    (
        "equiv-spec",
        "herd7's classes of events equivalent under speculation",
    ),
    (
        "same-instr",
        "herd7's relation of the events of one instruction",
    ),
    (
        "same-static",
        "herd7's relation of the events of one static instruction",
    ),
    (
        "same-instance",
        "herd7's relation of the events of one instruction instance",
    ),
    (
        "same-low-order-bits",
        "herd7's relation of the accesses whose addresses share their low-order bits",
    ),
    ("DATA", "herd7's set of the events on a data port"),
    ("NDATA", "herd7's set of the events on no data port"),
    (
        "AMO",
        "herd7's set of an assembly's atomic memory operations (on a C test herd7 7.58 stops with an internal error)",
    ),
    (
        "at-least-one-writable",
        "a primitive of herd7's page-table models",
    ),
    ("oa-changes", "a primitive of herd7's page-table models"),
    ("same-oa", "a primitive of herd7's page-table models"),
    (
        "fromto",
        "herd7's primitive over the program order between two events",
    ),
    (
        "lift",
        "herd7's primitive lifting a relation to classes of events",
    ),
    (
        "delift",
        "herd7's primitive lowering a relation between classes to events",
    ),
    (
        "deliftinter",
        "herd7's primitive lowering a relation between classes to events",
    ),
    ("bisimulation", "herd7's primitive of bisimilar events"),
    (
        "tag2scope",
        "herd7's primitive of the scope trees of GPU tests",
    ),
    (
        "tag2level",
        "herd7's primitive of the scope trees of GPU tests",
    ),
    (
        "tag2fenced",
        "herd7's primitive of the events a tagged fence separates",
    ),
    (
        "loc2events",
        "herd7's primitive of the events at a location",
    ),
    (
        "fail",
        "herd7's primitive that stops a model with its argument",
    ),
    (
        "inter_transitive",
        "herd7's primitive over transitive relations",
    ),
    (
        "as_transitive",
        "herd7's primitive over transitive relations",
    ),
];

/// Where a compiled variable reads its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// A global slot.
    Global(usize),
    /// A slot of the running function's (or procedure's) frame.
    Local(usize),
    /// A value the running function captured when it was created.
    Capture(usize),
    /// The `i`-th function of the running function's recursive group.
    Sibling(usize),
}

/// A compiled pattern: the slots of the running frame it fills.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Pat {
    /// One value into one slot, or dropped.
    One(Option<Slot>),
    /// A tuple, element by element.
    Tuple(Vec<Option<Slot>>),
}

/// A function of hazmat's own library (or herd7's `cross.cat`, which has the same two
/// functions) that the machine computes natively, with the meaning of its cat text,
/// whenever its argument has the shape that text expects (else the text runs): the
/// functions that enumerate coherence orders, which every model with
/// `cos-opt.cat`, `cos.cat` or `lock.cat` calls on every execution, through dozens of
/// calls of cat functions each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Intrinsic {
    /// `cross.cat`'s `cross`: every union taking one relation from each set of a set of
    /// sets of relations.
    Cross,
    /// `cross.cat`'s `co_locs`: the set of the `linearisations` of each class.
    CoLocs,
}

impl Intrinsic {
    /// The intrinsic that the function `name` of the known file `file` is.
    fn of(file: Known, name: &str) -> Option<Intrinsic> {
        match (file, name) {
            (Known::Cross, "cross") => Some(Intrinsic::Cross),
            (Known::Cross, "co_locs") => Some(Intrinsic::CoLocs),
            _ => None,
        }
    }
}

/// A compiled function: its parameter, body and frame, and what it captures from the frame
/// it is created in.
#[derive(Debug)]
pub(crate) struct FunCode {
    /// The function's name, for messages (`*fun*` for an anonymous one).
    pub(crate) name: String,
    /// The parameter pattern (into this function's frame).
    pub(crate) param: Pat,
    /// The body.
    pub(crate) body: Expr,
    /// The number of slots of the frame.
    pub(crate) frame: usize,
    /// Where the creating frame finds each captured value.
    pub(crate) captures: Vec<Slot>,
    /// For a function that is not recursive and reads a name defined nowhere: the error
    /// and the function's place. herd7 looks up every name such a function reads when it
    /// makes the function, and stops there, at the function, whether or not a call would
    /// read the name; hazmat stops at a call of the function.
    pub(crate) unbound: Option<(Arc<str>, Span)>,
    /// For a function of a known `cross.cat` computed natively: which.
    pub(crate) intrinsic: Option<Intrinsic>,
}

/// A compiled procedure: a function whose body is instructions (checks, mostly).
#[derive(Debug)]
pub(crate) struct ProcCode {
    /// Its name.
    pub(crate) name: String,
    /// The parameter pattern.
    pub(crate) param: Pat,
    /// The body.
    pub(crate) body: Vec<Ins>,
    /// The number of slots of its frame.
    pub(crate) frame: usize,
    /// What it captures when defined.
    pub(crate) captures: Vec<Slot>,
}

/// A compiled condition.
#[derive(Debug)]
pub(crate) enum CondIr {
    /// Equality of values.
    Eq(Expr, Expr),
    /// Inclusion.
    Subset(Expr, Expr),
    /// Membership.
    In(Expr, Expr),
    /// A condition on variants, decided when compiling.
    Known(bool),
}

/// A compiled expression.
#[derive(Debug)]
pub(crate) enum Expr {
    /// `0`, `{}`.
    Empty,
    /// `_`.
    Universe,
    /// `'tag`.
    Tag(Arc<str>),
    /// A variable.
    Var(Slot),
    /// A name bound nowhere: an error when evaluated, with its message ("`X` is not
    /// defined", and why, when a tag could have given the set), and whether `try` catches
    /// it: not for a name herd7 gives every model a value that hazmat does not compute
    /// ([`UNCOMPUTED`]).
    Unbound(Arc<str>, Span, bool),
    /// A unary operator.
    Op1(Op1, Box<Expr>, Span),
    /// A binary operator over two or more operands.
    Op(Op2, Vec<Expr>, Span),
    /// A tuple.
    Tuple(Vec<Expr>),
    /// An application.
    App(Box<Expr>, Box<Expr>, Span),
    /// `let pats = exps in body`.
    Let(Vec<(Pat, Expr)>, Box<Expr>),
    /// `let rec` of functions: the group, into the slots, then the body.
    LetRecFuns(Arc<Vec<Arc<FunCode>>>, Vec<Slot>, Box<Expr>),
    /// `let rec` of values: their least fixpoint, into the slots, then the body.
    LetRecValues(Vec<(Slot, Expr)>, Box<Expr>, Span),
    /// `fun pat -> body`.
    Fun(Arc<FunCode>),
    /// `{a, b}`.
    Set(Vec<Expr>, Span),
    /// `match` on a tag.
    MatchTag(Box<Expr>, Vec<(Arc<str>, Expr)>, Option<Box<Expr>>, Span),
    /// `match` on a set.
    MatchSet {
        /// The set.
        exp: Box<Expr>,
        /// When it is empty.
        empty: Box<Expr>,
        /// The slot of the element taken out.
        elt: Option<Slot>,
        /// The slot of the rest.
        rest: Option<Slot>,
        /// Otherwise.
        nonempty: Box<Expr>,
        /// Where it is written.
        span: Span,
    },
    /// `try e with e2`.
    Try(Box<Expr>, Box<Expr>),
    /// `if cond then e1 else e2`.
    If(Box<CondIr>, Box<Expr>, Box<Expr>),
}

/// For an instruction whose values the thread paths fix, the global slots it sets: the
/// names it binds and those bound inside its expressions, which a run keeps for the next
/// execution with the same paths, and restores together; `None` for any other.
pub(crate) type Fixed = Option<Vec<usize>>;

/// A compiled instruction.
#[derive(Debug)]
pub(crate) enum Ins {
    /// Bindings into slots of the running frame; [`Fixed`] when they are top-level
    /// bindings of values that depend only on what the thread paths fix (see
    /// [`super::stage`]), so that a run may reuse them from an earlier execution with the
    /// same paths.
    Let(Vec<(Pat, Expr)>, Fixed),
    /// A recursive group of functions.
    LetRecFuns(Arc<Vec<Arc<FunCode>>>, Vec<Slot>),
    /// A fixpoint of values, with the check `when` makes after each step; [`Fixed`] when
    /// it may be reused as [`Ins::Let`] may.
    LetRecValues(Vec<(Slot, Expr)>, Option<Box<WhenIr>>, Span, Fixed),
    /// A check.
    Check {
        /// What a failure does.
        role: Role,
        /// Whether negated.
        negated: bool,
        /// The test.
        test: Test,
        /// Its operand.
        exp: Expr,
        /// Its name, or the name of the procedure call it is in.
        name: Option<Arc<str>>,
        /// Where it is written.
        span: Span,
        /// Whether it is named to be skipped under herd7's `-strictskip true`: then, when
        /// its test fails, its name is recorded instead of what its role does.
        skipped: bool,
    },
    /// `with slot from set`.
    WithFrom(Slot, Expr, Span),
    /// A procedure call.
    Call(Expr, Expr, Span, Calling),
    /// A procedure definition, into its slot.
    Procedure(Slot, Arc<ProcCode>),
    /// `forall slot in set do body end`.
    Forall(Slot, Expr, Vec<Ins>, Span),
    /// `match` on a tag.
    Match(Expr, Vec<(Arc<str>, Vec<Ins>)>, Option<Vec<Ins>>, Span),
    /// An `enum`: the set of its tags into the slot.
    Enum(Slot, Vec<Arc<str>>),
    /// An `include` whose file cannot be found or parsed: the run stops there, with
    /// herd7's words for it ([`Includes::failed`]).
    Fail(Arc<str>, Span),
}

/// How a `call` runs.
#[derive(Debug)]
pub(crate) enum Calling {
    /// As written: a check failing in it fails the execution, its flags are raised.
    Plain,
    /// Named to be skipped under herd7's `-strictskip true`: it runs for whether it passes
    /// alone, and what it raises or records is forgotten; when it fails, its `as` name is
    /// recorded (herd7 stops, on an `option is None` exception, when it has none).
    Judged(Option<Arc<str>>),
}

/// The checks herd7's `-skipcheck` (`-skipchecks`, the `skipchecks` key) names, and its
/// `-strictskip`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Skip<'a> {
    /// The names.
    pub(crate) names: &'a [String],
    /// With `strictskip true`, the checks so named are evaluated: a failing one does not
    /// do what its role does but has its name recorded, and an execution is kept only if
    /// the names recorded are exactly these.
    pub(crate) strict: bool,
}

/// The compiled check of `let rec ... when test exp as name`.
#[derive(Debug)]
pub(crate) struct WhenIr {
    /// Whether negated.
    pub(crate) negated: bool,
    /// The test.
    pub(crate) test: Test,
    /// Its operand.
    pub(crate) exp: Expr,
    /// Where it is written.
    pub(crate) span: Span,
}

/// A compiled model.
#[derive(Debug)]
pub(crate) struct Code {
    /// The instructions.
    pub(crate) instrs: Vec<Ins>,
    /// The number of global slots.
    pub(crate) globals: usize,
    /// The tags each `enum` declares, with the set name herd7 gives each.
    pub(crate) tag_sets: Vec<(Slot, Arc<str>)>,
    /// The slot each top-level name has at the end of the model (where `co` and `rf` are
    /// read from).
    pub(crate) finals: HashMap<String, Slot>,
    /// What the model does that is most likely a mistake, though herd7 runs it (and warns):
    /// each message and where.
    pub(crate) warnings: Vec<(String, Span)>,
    /// For each top-level instruction whose value may change between executions of the
    /// same thread paths, the global slots it reads that may change (see
    /// [`super::stage`]): a run that finds them as the run before it left them need not
    /// evaluate it again. Empty until staged.
    pub(crate) inputs: Vec<Option<Vec<usize>>>,
    /// For each top-level instruction, the global slots it reads (what its functions and
    /// procedures capture included) and those it sets; with [`Code::roots`], what a run
    /// needs to find the bindings nothing it evaluates reads (see `eval::reuse`). Empty
    /// until staged.
    pub(crate) reads: Vec<Vec<usize>>,
    pub(crate) sets: Vec<Vec<usize>>,
    /// The global slots the enumeration reads after a run: the model's last `co` and `rf`.
    pub(crate) roots: Vec<usize>,
    /// Whether the model has an `assert` (not skipped), which herd7 evaluates on the runs
    /// it cuts at a loop too.
    pub(crate) asserts: bool,
    /// Under herd7's `-strictskip true`, the names of the checks skipped, each once: an
    /// execution is kept only if the skipped checks that fail on it are exactly these.
    pub(crate) strict: Option<Vec<Arc<str>>>,
}

/// A model's source: its instructions and those of the files it includes, resolved by the
/// caller.
pub(crate) trait Includes {
    /// The parsed model of the file `name`, as an `include` at `span` names it.
    fn include(&mut self, name: &str, span: Span) -> Result<Arc<ast::Model>, CompileError>;

    /// The file of index `file` when hazmat knows it ([`super::known`]: one of hazmat's own
    /// library, or herd7 7.58's by its text), for the functions the machine computes
    /// natively ([`Intrinsic`]); `None` for any other file, an edited copy included.
    fn known(&self, file: u32) -> Option<Known> {
        let _ = file;
        None
    }

    /// herd7's words for why the `include` of `name` at `span` fails, when the caller
    /// leaves that error to the run ([`super::load::IncludeErrors::PerTest`]): the
    /// include then compiles to [`Ins::Fail`], and nothing after it in its body.
    fn failed(&self, name: &str, span: Span) -> Option<String> {
        let _ = (name, span);
        None
    }
}

/// Compiles `models` (a prelude first, then the model), in order, as one program, with
/// `variants` set; `bell` is the index of the bell file among them, if there is one; the
/// checks named in `skip` are left out, as herd7's `-skipcheck` leaves them (a check, a
/// flag, a `when` or a `call` so named, the bell file's too: herd7 runs the bell file's
/// instructions in the cat file's interpreter, which skips them), or, with `strictskip
/// true`, kept to be judged as herd7 judges them then ([`Skip::strict`]); the caller
/// stages the program
/// ([`super::stage::stage`]) before it runs.
pub(crate) fn compile(
    models: &[&ast::Model],
    bell: Option<usize>,
    variants: &[String],
    skip: Skip<'_>,
    includes: &mut dyn Includes,
) -> Result<Code, CompileError> {
    let mut cx = Compiler {
        globals: 0,
        scopes: vec![Scope::default()],
        frames: Vec::new(),
        variants,
        skip: skip.names,
        strict: skip.strict,
        includes,
        tag_sets: Vec::new(),
        declared: None,
        unlisted: HashMap::new(),
        warnings: Vec::new(),
        depth: 0,
        including: Vec::new(),
        asserts: false,
        stopped: false,
        bound: None,
    };
    cx.declared = declared_tags(bell.and_then(|b| models.get(b).copied()), &|c| {
        cx.variant(c)
    });
    for (k, (name, _)) in BASE.iter().enumerate() {
        let slot = cx.global(name);
        debug_assert_eq!(slot, Slot::Global(k));
    }
    let mut instrs = Vec::new();
    for m in models {
        cx.instrs(&m.instrs, &mut instrs)?;
    }
    let finals = std::mem::take(&mut cx.scopes[0].names);
    Ok(Code {
        instrs,
        globals: cx.globals,
        tag_sets: cx.tag_sets,
        finals,
        warnings: cx.warnings,
        inputs: Vec::new(),
        reads: Vec::new(),
        sets: Vec::new(),
        roots: Vec::new(),
        asserts: cx.asserts,
        strict: (skip.strict && !skip.names.is_empty()).then(|| {
            let mut names: Vec<Arc<str>> = Vec::new();
            for n in skip.names {
                if !names.iter().any(|m| **m == **n) {
                    names.push(Arc::from(n.as_str()));
                }
            }
            names
        }),
    })
}

/// The tags the `instructions` and `default` declarations of the bell file list (none
/// without one), as herd7 collects them (its bell's `all_events`: those of a cat file give
/// no set), following the branches `variant` takes; `None` when one lists something other
/// than tags, sets of them, enums and their unions, which only a run could evaluate (then
/// every tag of every `enum` gets its set).
fn declared_tags(
    bell: Option<&ast::Model>,
    variant: &dyn Fn(&VariantCond) -> bool,
) -> Option<HashSet<String>> {
    fn walk(
        instrs: &[Instr],
        variant: &dyn Fn(&VariantCond) -> bool,
        enums: &mut HashMap<String, Vec<String>>,
        declared: &mut HashSet<String>,
    ) -> Option<()> {
        for i in instrs {
            match i {
                Instr::Enum { name, tags, .. } => {
                    enums.insert(name.clone(), tags.clone());
                }
                Instr::Events { args, .. } => {
                    for a in args {
                        tags_of(a, enums, declared)?;
                    }
                }
                Instr::IfVariant {
                    cond, then, els, ..
                } => walk(
                    if variant(cond) { then } else { els },
                    variant,
                    enums,
                    declared,
                )?,
                _ => {}
            }
        }
        Some(())
    }
    fn tags_of(
        e: &Exp,
        enums: &HashMap<String, Vec<String>>,
        out: &mut HashSet<String>,
    ) -> Option<()> {
        match e {
            Exp::Tag(t, _) => {
                out.insert(t.clone());
            }
            Exp::Var(name, _) => out.extend(enums.get(name)?.iter().cloned()),
            Exp::Set(items, _) | Exp::Op(Op2::Union, items, _) => {
                for item in items {
                    tags_of(item, enums, out)?;
                }
            }
            Exp::Empty(_) => {}
            _ => return None,
        }
        Some(())
    }
    let mut declared = HashSet::new();
    if let Some(bell) = bell {
        walk(&bell.instrs, variant, &mut HashMap::new(), &mut declared)?;
    }
    Some(declared)
}

/// The names visible at one level: a map from name to slot.
#[derive(Default)]
struct Scope {
    names: HashMap<String, Slot>,
}

/// A function being compiled: its slots, and what it captures.
struct Frame {
    /// The number of slots so far.
    slots: usize,
    /// The captured values: where the enclosing frame finds each, and the name.
    captures: Vec<(Slot, String)>,
    /// The index in `Compiler::scopes` of the function's first scope: names below it
    /// belong to enclosing frames.
    first_scope: usize,
    /// The function's recursive group, by name, if any.
    siblings: Vec<String>,
    /// Where a function that is not recursive is written (`f(r) = body`, or `fun r ->
    /// body`); `None` for a recursive one and a procedure, which herd7 makes without
    /// looking up the names they read.
    fun_span: Option<Span>,
    /// The first by name of the names defined nowhere that the function reads, which herd7
    /// meets first when it makes the function.
    unbound: Option<String>,
}

/// Where a model reads a name it defines nowhere, from the diagnostic that reports it
/// (`PATH:LINE:COL: error: `NAME` is not defined...`, as `Compiler` words it and
/// [`crate::models::cat::CatModel`] renders it, with carets under the place): the file as
/// named, the 1-based line and column, the width of the place in characters (the
/// carets', or the name's, or, for a function herd7 stops at, its whole length, which
/// the message says), and the name; for herd7's wording of it, `unbound var: NAME`.
pub fn unbound_var(message: &str) -> Option<(&str, usize, usize, usize, &str)> {
    let mut lines = message.lines();
    let first = lines.next()?;
    let (head, rest) = first.split_once(": error: `")?;
    let (name, rest) = rest.split_once('`')?;
    if !rest.starts_with(" is not defined") {
        return None;
    }
    let at = head.rsplit_once(": ").map_or(head, |(_, at)| at);
    let mut parts = at.rsplitn(3, ':');
    let col = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    let path = parts.next()?;
    // A function herd7 stops at is as long as the message says; otherwise the first caret
    // line underlines the place: `  |     ^^^^`.
    let said = rest
        .strip_suffix(" characters)")
        .and_then(|r| r.rsplit_once('('))
        .and_then(|(_, n)| n.parse().ok());
    let width = said
        .or_else(|| {
            lines.take(3).find_map(|l| {
                let (_, marks) = l.split_once('|')?;
                let marks = marks.trim();
                (!marks.is_empty() && marks.chars().all(|c| c == '^'))
                    .then(|| marks.chars().count())
            })
        })
        .unwrap_or_else(|| name.chars().count());
    Some((path, line, col, width, name))
}

struct Compiler<'a> {
    globals: usize,
    scopes: Vec<Scope>,
    frames: Vec<Frame>,
    variants: &'a [String],
    /// The names of the checks left out.
    skip: &'a [String],
    /// Whether they are judged instead ([`Skip::strict`]).
    strict: bool,
    includes: &'a mut dyn Includes,
    tag_sets: Vec<(Slot, Arc<str>)>,
    /// The tags an `instructions` (or `default`) declaration lists: herd7 gives a set only
    /// to those. `None` when a declaration lists something only a run could evaluate.
    declared: Option<HashSet<String>>,
    /// The sets the tags of `enum`s would have given but for `declared`: the set's name,
    /// the tag and its `enum`.
    unlisted: HashMap<String, (Arc<str>, String)>,
    warnings: Vec<(String, Span)>,
    depth: usize,
    including: Vec<String>,
    /// Whether an `assert` was compiled.
    asserts: bool,
    /// Whether the instructions being compiled follow an include that fails, in their body.
    stopped: bool,
    /// The name of the binding whose value is being compiled, for an anonymous function
    /// that is its value ([`Intrinsic`]: herd7's `let cross = let rec ... in fun ...`).
    bound: Option<String>,
}

/// The deepest nesting of expressions compiled, so that a deep model cannot overflow the
/// stack (the parser bounds it too).
const MAX_DEPTH: usize = 512;

impl Compiler<'_> {
    /// The message of a use of `name`, bound nowhere, and whether `try` catches it.
    fn unbound(&self, name: &str) -> (Arc<str>, bool) {
        if let Some((_, what)) = UNCOMPUTED.iter().find(|(n, _)| *n == name) {
            let message = format!(
                "`{name}` is {what}: herd7 gives it to every model, hazmat does not compute \
                 it, so it cannot run a model that reads it (not even under `try`)"
            );
            return (Arc::from(message), false);
        }
        let why = match self.unlisted.get(name) {
            Some((tag, en)) => format!(
                ": the tag `'{tag}` of `enum {en}` gives it only if an `instructions` (or \
                 `default`) line of the bell file lists the tag, as in herd7"
            ),
            None => String::new(),
        };
        (Arc::from(format!("`{name}` is not defined{why}")), true)
    }

    /// Records that the functions being compiled read `name`, defined nowhere: herd7 stops
    /// when it makes the outermost of them that is not recursive (the recursive ones it
    /// makes without looking up the names they read).
    fn unbound_in_function(&mut self, name: &str) {
        if let Some(frame) = self.frames.iter_mut().find(|f| f.fun_span.is_some())
            && frame.unbound.as_deref().is_none_or(|first| name < first)
        {
            frame.unbound = Some(name.to_string());
        }
    }

    fn global(&mut self, name: &str) -> Slot {
        let slot = Slot::Global(self.globals);
        self.globals += 1;
        self.scopes[0].names.insert(name.to_string(), slot);
        slot
    }

    /// A new slot for `name` in the innermost scope: a global at top level, a frame slot
    /// inside a function or procedure.
    fn bind(&mut self, name: &str) -> Slot {
        let slot = match self.frames.last_mut() {
            None => {
                let slot = Slot::Global(self.globals);
                self.globals += 1;
                slot
            }
            Some(f) => {
                f.slots += 1;
                Slot::Local(f.slots - 1)
            }
        };
        self.scopes
            .last_mut()
            .expect("a scope is open")
            .names
            .insert(name.to_string(), slot);
        slot
    }

    /// The slot `name` has where it is used, capturing it from enclosing frames if needed.
    fn lookup(&mut self, name: &str) -> Option<Slot> {
        // Find the innermost scope that binds it.
        let (i, slot) = self
            .scopes
            .iter()
            .enumerate()
            .rev()
            .find_map(|(i, s)| s.names.get(name).map(|slot| (i, *slot)))?;
        if let Slot::Global(_) = slot {
            return Some(slot);
        }
        Some(self.capture(name, i, slot, self.frames.len()))
    }

    /// The slot that frame `level - 1` (the innermost being `frames.len() - 1`) reads
    /// `name` through, found as `slot` in scope `scope`.
    fn capture(&mut self, name: &str, scope: usize, slot: Slot, level: usize) -> Slot {
        if level == 0 {
            return slot;
        }
        let f = &self.frames[level - 1];
        if scope >= f.first_scope {
            return slot;
        }
        if let Some(k) = f.siblings.iter().position(|s| s == name)
            && scope + 1 == f.first_scope
        {
            return Slot::Sibling(k);
        }
        if let Some(k) = f.captures.iter().position(|(_, n)| n == name) {
            return Slot::Capture(k);
        }
        let outer = self.capture(name, scope, slot, level - 1);
        let f = &mut self.frames[level - 1];
        f.captures.push((outer, name.to_string()));
        Slot::Capture(f.captures.len() - 1)
    }

    fn instrs(&mut self, instrs: &[Instr], out: &mut Vec<Ins>) -> Result<(), CompileError> {
        for i in instrs {
            // Past an include that fails, nothing of the body runs: it is not compiled
            // either, since it may name what the file would have defined.
            if self.stopped {
                break;
            }
            self.instr(i, out)?;
        }
        Ok(())
    }

    /// [`Compiler::instrs`] for the body of a procedure, a `forall` or a `match` clause,
    /// which may not run: an include that fails in it stops only the rest of it.
    fn body(&mut self, instrs: &[Instr], out: &mut Vec<Ins>) -> Result<(), CompileError> {
        let r = self.instrs(instrs, out);
        self.stopped = false;
        r
    }

    /// Whether a check of this name is left out (herd7's `-skipcheck`).
    fn skipped(&self, name: &Option<String>) -> bool {
        name.as_ref().is_some_and(|n| self.skip.contains(n))
    }

    fn instr(&mut self, i: &Instr, out: &mut Vec<Ins>) -> Result<(), CompileError> {
        match i {
            Instr::Let { bindings, .. } => {
                let b = self.let_bindings(bindings)?;
                out.push(Ins::Let(b, None));
            }
            Instr::LetRec {
                bindings,
                when,
                span,
            } => match self.let_rec(bindings, *span)? {
                Rec::Funs(group, slots) => {
                    if let Some(w) = when {
                        return err(
                            "`when` checks a fixpoint of values, not of functions",
                            w.span,
                        );
                    }
                    out.push(Ins::LetRecFuns(group, slots))
                }
                Rec::Values(values) => {
                    let when = match when {
                        Some(w) if self.skipped(&w.name) => {
                            out.push(Ins::LetRecValues(values, None, *span, None));
                            // Judged on the fixpoint, as a check right after it.
                            if self.strict {
                                out.push(Ins::Check {
                                    role: Role::Check,
                                    negated: w.negated,
                                    test: w.test,
                                    exp: self.exp(&w.exp)?,
                                    name: w.name.as_deref().map(Arc::from),
                                    span: w.span,
                                    skipped: true,
                                });
                            }
                            return Ok(());
                        }
                        Some(w) => Some(Box::new(WhenIr {
                            negated: w.negated,
                            test: w.test,
                            exp: self.exp(&w.exp)?,
                            span: w.span,
                        })),
                        None => None,
                    };
                    out.push(Ins::LetRecValues(values, when, *span, None))
                }
            },
            Instr::Check {
                role,
                negated,
                test,
                exp,
                name,
                span,
            } => {
                let skipped = self.skipped(name);
                if skipped && !self.strict {
                    return Ok(());
                }
                let exp = self.exp(exp)?;
                // A skipped `assert` never stops the test.
                self.asserts |= *role == Role::Assert && !skipped;
                out.push(Ins::Check {
                    role: *role,
                    negated: *negated,
                    test: *test,
                    exp,
                    name: name.as_deref().map(Arc::from),
                    span: *span,
                    skipped,
                });
            }
            // What a model shows is for herd7's drawings, which evaluate it lazily and only
            // when drawing (hazmat draws its own relations): nothing runs. The expression
            // of a `show ... as` is compiled all the same, so that it is refused where it
            // was.
            Instr::ShowAs { exp, .. } => {
                self.exp(exp)?;
            }
            Instr::Show { .. }
            | Instr::Unshow { .. }
            | Instr::Debug { .. }
            | Instr::Events { .. } => {}
            Instr::Include { file, span } => {
                if self.including.iter().any(|f| f == file) {
                    return err(format!("`{file}` includes itself"), *span);
                }
                if let Some(words) = self.includes.failed(file, *span) {
                    out.push(Ins::Fail(Arc::from(words), *span));
                    self.stopped = true;
                    return Ok(());
                }
                let model = self.includes.include(file, *span)?;
                self.including.push(file.clone());
                let r = self.instrs(&model.instrs, out);
                self.including.pop();
                r?;
            }
            Instr::Procedure {
                name,
                params,
                body,
                rec,
                span: _,
            } => {
                // A recursive procedure sees its own name; another one sees the name's
                // previous meaning.
                let slot = if *rec { Some(self.bind(name)) } else { None };
                self.frames.push(Frame {
                    slots: 0,
                    captures: Vec::new(),
                    first_scope: self.scopes.len(),
                    siblings: Vec::new(),
                    fun_span: None,
                    unbound: None,
                });
                self.scopes.push(Scope::default());
                let param = self.pattern(params);
                let mut code = Vec::new();
                let r = self.body(body, &mut code);
                self.scopes.pop();
                let frame = self.frames.pop().expect("pushed above");
                r?;
                let slot = slot.unwrap_or_else(|| self.bind(name));
                out.push(Ins::Procedure(
                    slot,
                    Arc::new(ProcCode {
                        name: name.clone(),
                        param,
                        body: code,
                        frame: frame.slots,
                        captures: frame.captures.into_iter().map(|(s, _)| s).collect(),
                    }),
                ));
            }
            Instr::Call {
                name,
                arg,
                as_name,
                span,
            } => {
                let calling = if self.skipped(as_name) || self.skip.contains(name) {
                    if !self.strict {
                        return Ok(());
                    }
                    Calling::Judged(as_name.as_deref().map(Arc::from))
                } else {
                    Calling::Plain
                };
                let f = match self.lookup(name) {
                    Some(slot) => Expr::Var(slot),
                    None => {
                        let (message, caught) = self.unbound(name);
                        Expr::Unbound(message, *span, caught)
                    }
                };
                let arg = self.exp(arg)?;
                out.push(Ins::Call(f, arg, *span, calling));
            }
            Instr::Enum { name, tags, span } => {
                let tags: Vec<Arc<str>> = tags.iter().map(|t| Arc::from(t.as_str())).collect();
                // herd7 gives each tag `'t` the set of events carrying it, named `t` with
                // its first letter in capitals (`'rcu-lock` gives `Rcu-lock`).
                for t in &tags {
                    let set = capitalise(t);
                    // herd7 names the events of the tags that `instructions` lines list;
                    // a tag no line lists has no set (`unbound var` in herd7 too).
                    if self
                        .declared
                        .as_ref()
                        .is_some_and(|d| !d.contains(t.as_ref()))
                    {
                        self.unlisted.insert(set, (t.clone(), name.clone()));
                        continue;
                    }
                    if BASE.iter().any(|(base, _)| *base == set) {
                        self.warnings.push((
                            format!(
                                "the tag `'{t}` of `enum {name}` gives the set `{set}`, which \
                                 replaces the set of that name herd7 gives every model: the \
                                 model's `{set}` holds only the events tagged `'{t}` (herd7 \
                                 warns too: redefining key '{set}' in cat interpreter initial \
                                 environment)"
                            ),
                            *span,
                        ));
                    }
                    // Two tags spelled apart whose sets have one name (`'once`, `'Once`):
                    // herd7 keeps the set of the tag last in byte order, wherever each is
                    // declared (it builds the sets from its sorted set of annotations).
                    if let Some((_, other)) = self
                        .tag_sets
                        .iter()
                        .rev()
                        .find(|(_, u)| u != t && capitalise(u) == set)
                    {
                        let (kept, lost) = if other > t { (other, t) } else { (t, other) };
                        self.warnings.push((
                            format!(
                                "the tags `'{other}` and `'{t}` both give the set `{set}`: as in \
                                 herd7, it holds the events tagged `'{kept}` (the tag last in \
                                 byte order) and no set holds those tagged `'{lost}` (herd7 \
                                 warns too: redefining key '{set}' in cat interpreter initial \
                                 environment)"
                            ),
                            *span,
                        ));
                        if kept != t {
                            continue;
                        }
                    }
                    let slot = self.bind(&set);
                    self.tag_sets.push((slot, t.clone()));
                }
                let slot = self.bind(name);
                out.push(Ins::Enum(slot, tags));
            }
            Instr::Forall {
                var,
                set,
                body,
                span,
            } => {
                let set = self.exp(set)?;
                self.scopes.push(Scope::default());
                let slot = self.bind(var);
                let mut code = Vec::new();
                let r = self.body(body, &mut code);
                self.scopes.pop();
                r?;
                out.push(Ins::Forall(slot, set, code, *span));
            }
            Instr::WithFrom { var, set, span } => {
                let set = self.exp(set)?;
                let slot = self.bind(var);
                out.push(Ins::WithFrom(slot, set, *span));
            }
            Instr::IfVariant {
                cond,
                then,
                els,
                span,
            } => {
                self.warn_unknown_variants(cond, *span);
                let branch = if self.variant(cond) { then } else { els };
                self.instrs(branch, out)?;
            }
            Instr::Match {
                exp,
                clauses,
                default,
                span,
            } => {
                let exp = self.exp(exp)?;
                let mut cls = Vec::new();
                for (tag, body) in clauses {
                    let mut code = Vec::new();
                    self.body(body, &mut code)?;
                    cls.push((Arc::from(tag.as_str()), code));
                }
                let default = match default {
                    Some(d) => {
                        let mut code = Vec::new();
                        self.body(d, &mut code)?;
                        Some(code)
                    }
                    None => None,
                };
                out.push(Ins::Match(exp, cls, default, *span));
            }
        }
        Ok(())
    }

    /// Whether `c` holds: a variant is named as herd7 reads it (any case, any of its
    /// names: `"back"` is `backcompat`), and one herd7 does not know is unset.
    fn variant(&self, c: &VariantCond) -> bool {
        match c {
            VariantCond::Is(v) => keys::variant(v).is_some_and(|v| self.variants.contains(&v)),
            VariantCond::Not(c) => !self.variant(c),
            VariantCond::And(a, b) => self.variant(a) && self.variant(b),
            VariantCond::Or(a, b) => self.variant(a) || self.variant(b),
        }
    }

    /// Warns of each name in `c` that is none of herd7's variants, which herd7 takes as
    /// unset with a warning of its own.
    fn warn_unknown_variants(&mut self, c: &VariantCond, span: Span) {
        match c {
            VariantCond::Is(v) => {
                if keys::variant(v).is_none() {
                    self.warnings.push((
                        format!(
                            "\"{v}\" is none of herd7's variants, so it is never set and the \
                             condition reads it as unset (herd7 warns too: non-existent \
                             variant \"{v}\", assumed unset)"
                        ),
                        span,
                    ));
                }
            }
            VariantCond::Not(c) => self.warn_unknown_variants(c, span),
            VariantCond::And(a, b) | VariantCond::Or(a, b) => {
                self.warn_unknown_variants(a, span);
                self.warn_unknown_variants(b, span);
            }
        }
    }

    fn pattern(&mut self, p: &Pattern) -> Pat {
        match p {
            Pattern::Var(n) => Pat::One(n.as_ref().map(|n| self.bind(n))),
            Pattern::Tuple(ns) => Pat::Tuple(
                ns.iter()
                    .map(|n| n.as_ref().map(|n| self.bind(n)))
                    .collect(),
            ),
        }
    }

    /// `let` bindings: the values are compiled in the scope before the bindings, then the
    /// names bound.
    fn let_bindings(
        &mut self,
        bindings: &[ast::Binding],
    ) -> Result<Vec<(Pat, Expr)>, CompileError> {
        let mut exps = Vec::with_capacity(bindings.len());
        for b in bindings {
            exps.push(self.exp_named(&b.exp, &b.pat)?);
        }
        Ok(bindings
            .iter()
            .zip(exps)
            .map(|(b, e)| (self.pattern(&b.pat), e))
            .collect())
    }

    /// The value of a binding, naming a function after the name it is bound to.
    fn exp_named(&mut self, e: &Exp, pat: &Pattern) -> Result<Expr, CompileError> {
        match (e, pat) {
            (Exp::Fun(p, body, _), Pattern::Var(Some(name))) => {
                Ok(Expr::Fun(self.fun(name, p, body, Vec::new(), e.span())?))
            }
            (_, Pattern::Var(Some(name))) => {
                let outer = self.bound.replace(name.to_string());
                let r = self.exp(e);
                self.bound = outer;
                r
            }
            _ => self.exp(e),
        }
    }

    fn let_rec(&mut self, bindings: &[ast::Binding], span: Span) -> Result<Rec, CompileError> {
        let names: Vec<&str> = bindings
            .iter()
            .map(|b| match &b.pat {
                Pattern::Var(Some(n)) => Ok(n.as_str()),
                _ => err("`let rec` binds names, one per binding", b.span),
            })
            .collect::<Result<_, _>>()?;
        let funs = bindings.iter().all(|b| matches!(b.exp, Exp::Fun(..)));
        if funs {
            let slots: Vec<Slot> = names.iter().map(|n| self.bind(n)).collect();
            let siblings: Vec<String> = names.iter().map(|s| s.to_string()).collect();
            let mut group = Vec::new();
            for (b, n) in bindings.iter().zip(&names) {
                let Exp::Fun(p, body, _) = &b.exp else {
                    unreachable!("checked above");
                };
                group.push(self.fun(n, p, body, siblings.clone(), b.exp.span())?);
            }
            return Ok(Rec::Funs(Arc::new(group), slots));
        }
        if bindings.iter().any(|b| matches!(b.exp, Exp::Fun(..))) {
            return err(
                "a `let rec` binds either functions or values, not both",
                span,
            );
        }
        let slots: Vec<Slot> = names.iter().map(|n| self.bind(n)).collect();
        let mut values = Vec::new();
        for (b, slot) in bindings.iter().zip(slots) {
            values.push((slot, self.exp(&b.exp)?));
        }
        Ok(Rec::Values(values))
    }

    fn fun(
        &mut self,
        name: &str,
        param: &Pattern,
        body: &Exp,
        siblings: Vec<String>,
        span: Span,
    ) -> Result<Arc<FunCode>, CompileError> {
        let fun_span = siblings.is_empty().then_some(span);
        self.frames.push(Frame {
            slots: 0,
            captures: Vec::new(),
            first_scope: self.scopes.len(),
            siblings,
            fun_span,
            unbound: None,
        });
        self.scopes.push(Scope::default());
        let param = self.pattern(param);
        let body = self.exp(body);
        self.scopes.pop();
        let frame = self.frames.pop().expect("pushed above");
        let unbound = frame.unbound.map(|n| {
            let (message, _) = self.unbound(&n);
            // herd7 locates the whole function, which may span lines: its length is said,
            // for `unbound_var`.
            let message = format!(
                "{message}, and the function `{name}` reads it: herd7 looks up every name a \
                 function reads when it makes the function, and stops at the whole function \
                 ({} characters)",
                span.end.saturating_sub(span.start)
            );
            (Arc::from(message), span)
        });
        // A function is an intrinsic by its own name, or, anonymous, by the name of the
        // binding it is the value of.
        let named = match (name, &self.bound) {
            ("*fun*", Some(bound)) => bound.as_str(),
            _ => name,
        };
        let intrinsic = self
            .includes
            .known(span.file)
            .and_then(|file| Intrinsic::of(file, named));
        Ok(Arc::new(FunCode {
            name: name.to_string(),
            param,
            body: body?,
            frame: frame.slots,
            captures: frame.captures.into_iter().map(|(s, _)| s).collect(),
            unbound,
            intrinsic,
        }))
    }

    fn exp(&mut self, e: &Exp) -> Result<Expr, CompileError> {
        if self.depth >= MAX_DEPTH {
            return err("the model nests expressions too deeply", e.span());
        }
        self.depth += 1;
        let r = self.exp_inner(e);
        self.depth -= 1;
        r
    }

    fn exp_inner(&mut self, e: &Exp) -> Result<Expr, CompileError> {
        Ok(match e {
            Exp::Empty(_) => Expr::Empty,
            Exp::Universe(_) => Expr::Universe,
            Exp::Tag(t, _) => Expr::Tag(Arc::from(t.as_str())),
            Exp::Var(n, span) => match self.lookup(n) {
                Some(slot) => Expr::Var(slot),
                None => {
                    let (message, caught) = self.unbound(n);
                    if caught {
                        self.unbound_in_function(n);
                    }
                    Expr::Unbound(message, *span, caught)
                }
            },
            Exp::Op1(op, a, span) => Expr::Op1(*op, Box::new(self.exp(a)?), *span),
            Exp::Op(op, args, span) => Expr::Op(
                *op,
                args.iter().map(|a| self.exp(a)).collect::<Result<_, _>>()?,
                *span,
            ),
            Exp::Tuple(args, _) => {
                Expr::Tuple(args.iter().map(|a| self.exp(a)).collect::<Result<_, _>>()?)
            }
            Exp::App(f, a, span) => {
                Expr::App(Box::new(self.exp(f)?), Box::new(self.exp(a)?), *span)
            }
            Exp::Let(bindings, body, _) => {
                let mut exps = Vec::new();
                for b in bindings {
                    exps.push(self.exp_named(&b.exp, &b.pat)?);
                }
                self.scopes.push(Scope::default());
                let pats: Vec<Pat> = bindings.iter().map(|b| self.pattern(&b.pat)).collect();
                let body = self.exp(body);
                self.scopes.pop();
                Expr::Let(pats.into_iter().zip(exps).collect(), Box::new(body?))
            }
            Exp::LetRec(bindings, body, span) => {
                self.scopes.push(Scope::default());
                let rec = self.let_rec(bindings, *span);
                let body = rec.and_then(|rec| Ok((rec, self.exp(body)?)));
                self.scopes.pop();
                let (rec, body) = body?;
                match rec {
                    Rec::Funs(group, slots) => Expr::LetRecFuns(group, slots, Box::new(body)),
                    Rec::Values(values) => Expr::LetRecValues(values, Box::new(body), *span),
                }
            }
            Exp::Fun(p, body, span) => Expr::Fun(self.fun("*fun*", p, body, Vec::new(), *span)?),
            Exp::Set(args, span) => Expr::Set(
                args.iter().map(|a| self.exp(a)).collect::<Result<_, _>>()?,
                *span,
            ),
            Exp::Match {
                exp,
                clauses,
                default,
                span,
            } => Expr::MatchTag(
                Box::new(self.exp(exp)?),
                clauses
                    .iter()
                    .map(|(t, e)| Ok((Arc::from(t.as_str()), self.exp(e)?)))
                    .collect::<Result<_, CompileError>>()?,
                match default {
                    Some(d) => Some(Box::new(self.exp(d)?)),
                    None => None,
                },
                *span,
            ),
            Exp::MatchSet {
                exp,
                empty,
                pre,
                elt,
                rest,
                nonempty,
                span,
            } => {
                if pre.is_some() {
                    return err(
                        "the interpreter does not support the `pre | x ++ rest` form of a match on a set",
                        *span,
                    );
                }
                let exp = self.exp(exp)?;
                let empty = self.exp(empty)?;
                self.scopes.push(Scope::default());
                let elt = elt.as_ref().map(|n| self.bind(n));
                let rest = rest.as_ref().map(|n| self.bind(n));
                let nonempty = self.exp(nonempty);
                self.scopes.pop();
                Expr::MatchSet {
                    exp: Box::new(exp),
                    empty: Box::new(empty),
                    elt,
                    rest,
                    nonempty: Box::new(nonempty?),
                    span: *span,
                }
            }
            Exp::Try(a, b, _) => Expr::Try(Box::new(self.exp(a)?), Box::new(self.exp(b)?)),
            Exp::If(c, a, b, span) => {
                if let Cond::Variant(v) = &**c {
                    self.warn_unknown_variants(v, *span);
                }
                let c = match &**c {
                    Cond::Eq(x, y) => CondIr::Eq(self.exp(x)?, self.exp(y)?),
                    Cond::Subset(x, y) => CondIr::Subset(self.exp(x)?, self.exp(y)?),
                    Cond::In(x, y) => CondIr::In(self.exp(x)?, self.exp(y)?),
                    Cond::Variant(v) => CondIr::Known(self.variant(v)),
                };
                Expr::If(Box::new(c), Box::new(self.exp(a)?), Box::new(self.exp(b)?))
            }
        })
    }
}

enum Rec {
    Funs(Arc<Vec<Arc<FunCode>>>, Vec<Slot>),
    Values(Vec<(Slot, Expr)>),
}

/// herd7's name for the set of events carrying tag `t`: `t` with its first letter in
/// capitals.
pub(crate) fn capitalise(t: &str) -> String {
    let mut c = t.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}
