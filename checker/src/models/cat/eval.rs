//! Evaluating a compiled model on one execution.
//!
//! Values are sets of events and relations as the enumeration's bit matrices, of the
//! execution's width (the interpreter is generic over it, as the native models are), tags,
//! sets of values (the sets of relations `with` chooses from, the sets of events `classes`
//! returns), tuples and functions.
//! `0` and `{}` are one polymorphic empty value, which is whatever empty thing its
//! context needs.
//!
//! A model runs from its first instruction; at `with x from S` the rest of the model runs
//! once for each element of `S`, and each run that passes every check is one allowed
//! execution, which [`Machine::run`] reports to its callback with the flags it raised and
//! the values of the names it defined (`co`, `rf`...).
//!
//! The machine and what it runs over are here; the rest is in one module per concept:
//! `value` (the values and their equalities), `run` (the top level and its `with`
//! choices), `instr` (one instruction), `expr` (one expression, and the calls of
//! functions), `ops` (the operators of sets and relations), `builtin` (herd7's built-in
//! functions), `coerce` (a value read as the kind an operation needs), `slot` (where a
//! name's value lives), `check` (what a check does), `spare` (relations recycled),
//! `reuse` (what a run reuses from the run before it on the same thread paths) and
//! `vanish` (what it need not evaluate at all).

use super::ast::Span;
use super::compile::{Code, Slot};
use crate::exec::execution::Execution;
use crate::exec::relation::{EventSet, Relation, Width, Words};
use std::rc::Rc;
use std::sync::Arc;

mod builtin;
mod check;
mod coerce;
mod expr;
mod instr;
mod intrinsic;
mod ops;
mod reuse;
mod run;
mod slot;
mod spare;
mod value;
mod vanish;

pub use check::{failed_assertion, failed_include};
use reuse::Memo;
pub(crate) use value::Val;

/// Why evaluation failed: `try` catches it; elsewhere it is the model's error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct EvalError {
    /// What went wrong, starting lowercase.
    pub message: String,
    /// Where.
    pub span: Span,
    /// Whether `try` lets it through: a name herd7 gives a value hazmat does not compute
    /// (see [`Expr::Unbound`]), where catching it would answer with the `with` branch
    /// when herd7 answers with the value.
    ///
    /// [`Expr::Unbound`]: crate::models::cat::compile::Expr::Unbound
    pub(crate) uncaught: bool,
}

fn fail<T>(message: impl Into<String>, span: Span) -> Result<T, EvalError> {
    Err(EvalError {
        message: message.into(),
        span,
        uncaught: false,
    })
}

/// What the model sees of one execution besides its relations: the names of its events'
/// tags, and what it needs for built-ins.
pub(crate) struct World<'a, W: Width = Words<1>> {
    /// The execution.
    pub(crate) exec: &'a Execution<W>,
    /// The number of events.
    pub(crate) n: usize,
    /// The base values to set before the run, by global slot: all of them for the first
    /// execution of some thread paths, those that differ between executions of the same
    /// paths for the others.
    pub(crate) base: Vec<(usize, Val<W>)>,
    /// The events carrying each tag, by the tag's name as a model writes it.
    pub(crate) tag_events: &'a dyn Fn(&str) -> EventSet<W>,
    /// The events that are both read and write: herd7's single read-modify-write events
    /// of its C11 dialect (see `merge`), which have no one value.
    pub(crate) both: EventSet<W>,
}

/// What a machine leaves for the next execution with the same thread paths: the global
/// slots, those the paths fix among them (whose values the next run reuses instead of
/// computing them again), and the shared empty and identity relations.
pub(crate) struct Kept<W: Width = Words<1>> {
    globals: Vec<Val<W>>,
    known: Vec<bool>,
    empty_rel: Rc<Relation<W>>,
    id_rel: Rc<Relation<W>>,
    spare: Vec<Rc<Relation<W>>>,
    memo: Vec<Option<Memo<W>>>,
    vanish: Vec<Option<bool>>,
    always_empty: Vec<bool>,
    settled: Vec<bool>,
    dead: Dead,
    empty_terms: Vec<Option<Box<[bool]>>>,
}

/// One run of a model over an execution.
pub(crate) struct Machine<'a, W: Width = Words<1>> {
    code: &'a Code,
    world: &'a World<'a, W>,
    globals: Vec<Val<W>>,
    /// The flags raised on the current way through the `with` choices.
    flags: Vec<Arc<str>>,
    /// Under herd7's `-strictskip true`, the names of the skipped checks that failed on
    /// the current way, each once.
    skipped: Vec<Arc<str>>,
    depth: usize,
    /// The operations evaluated so far on this execution, bounded by [`MAX_STEPS`].
    steps: u64,
    /// When to give up.
    deadline: Option<std::time::Instant>,
    /// For each global slot, whether it holds the value of a fixed binding ([`Ins::Let`]'s
    /// flag) computed for these thread paths, on this execution or an earlier one.
    ///
    /// [`Ins::Let`]: super::compile::Ins::Let
    known: Vec<bool>,
    /// The empty relation and the identity over the execution's events, shared by every
    /// operation that yields them.
    empty_rel: Rc<Relation<W>>,
    id_rel: Rc<Relation<W>>,
    /// Relations over the execution's events that nothing holds any more, for operations
    /// to compute into instead of allocating (see [`Machine::scratch`]).
    spare: Vec<Rc<Relation<W>>>,
    /// For each top-level instruction, what its last evaluation on these paths read.
    memo: Vec<Option<Memo<W>>>,
    /// For each top-level instruction, once looked at on these paths, whether what the
    /// paths fix makes its value empty whatever the rest ([`Machine::vanishes`]).
    vanish: Vec<Option<bool>>,
    /// For each global slot, whether its value is empty on every execution of these
    /// paths.
    always_empty: Vec<bool>,
    /// For each top-level instruction, whether what it sets is fixed by these paths and
    /// already set (a fixed binding computed, a definition made from fixed values): a
    /// later run passes over it.
    settled: Vec<bool>,
    /// The top-level bindings whose values nothing a run evaluates on these paths reads.
    dead: Dead,
    /// For each top-level binding of a union, once looked at on these paths, which of its
    /// terms what the paths fix makes empty on every execution, when some are and some
    /// are not ([`Machine::find_empty_terms`]).
    empty_terms: Vec<Option<Box<[bool]>>>,
}

/// The top-level bindings a run passes over because nothing it evaluates on these paths
/// reads their values (see [`Machine::find_dead`]).
#[derive(Default)]
pub(crate) struct Dead {
    /// For each top-level instruction, whether it is such a binding.
    pub(super) ins: Vec<bool>,
    /// How many top-level instructions had been looked at (their entry in
    /// [`Machine::vanish`] set) when `ins` was found, and how many have been since.
    pub(super) found_at: usize,
    pub(super) looked: usize,
}

/// What a way through the model that passes every check leaves.
pub(crate) struct Leaf<'m, W: Width = Words<1>> {
    /// The flags raised, in the order raised.
    pub(crate) flags: &'m [Arc<str>],
    /// The global slots, to read the final `co` and `rf` from.
    pub(crate) globals: &'m [Val<W>],
}

/// The operands of one operator, evaluated.
type Operands<W> = smallvec::SmallVec<[Val<W>; 4]>;

/// Whether to go on with other choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Go {
    /// Go on.
    On,
    /// Stop the run.
    Stop,
}

/// The most operations one execution may take, every `with` choice included: a model that
/// needs more stops with an error instead of running for ever.
const MAX_STEPS: u64 = 50_000_000;

/// The deepest nesting of calls and expressions evaluated.
const MAX_DEPTH: usize = 500;

impl<'a, W: Width> Machine<'a, W> {
    /// A machine for `code` over `world`, with what the machine before it left when it
    /// judged an execution with the same thread paths.
    pub(crate) fn new(
        code: &'a Code,
        world: &'a World<'a, W>,
        deadline: Option<std::time::Instant>,
        kept: Option<Kept<W>>,
    ) -> Machine<'a, W> {
        let kept = kept.unwrap_or_else(|| {
            let mut globals = vec![Val::Empty; code.globals];
            for (slot, tag) in &code.tag_sets {
                if let Slot::Global(i) = slot {
                    globals[*i] = Val::Set((world.tag_events)(tag));
                }
            }
            // The base values other than reads-from, the final writes and `pco`, and the
            // tags' sets, are what the paths fix.
            let mut known = vec![false; code.globals];
            for (k, (name, _)) in super::compile::BASE.iter().enumerate() {
                known[k] = !super::stage::DYNAMIC_BASE.contains(name);
            }
            for (slot, _) in &code.tag_sets {
                if let Slot::Global(i) = slot {
                    known[*i] = true;
                }
            }
            Kept {
                globals,
                known,
                empty_rel: Rc::new(Relation::empty(world.n)),
                id_rel: Rc::new(Relation::identity(world.n)),
                spare: Vec::new(),
                memo: Vec::new(),
                vanish: vec![None; code.instrs.len()],
                always_empty: vec![false; code.globals],
                settled: vec![false; code.instrs.len()],
                dead: Dead {
                    ins: vec![false; code.instrs.len()],
                    ..Dead::default()
                },
                empty_terms: vec![None; code.instrs.len()],
            }
        });
        let Kept {
            mut globals,
            known,
            empty_rel,
            id_rel,
            spare,
            mut memo,
            vanish,
            always_empty,
            settled,
            dead,
            empty_terms,
        } = kept;
        memo.resize_with(code.instrs.len(), || None);
        for (i, v) in &world.base {
            globals[*i] = v.clone();
        }
        Machine {
            code,
            world,
            globals,
            flags: Vec::new(),
            skipped: Vec::new(),
            depth: 0,
            steps: 0,
            deadline,
            known,
            empty_rel,
            id_rel,
            spare,
            memo,
            vanish,
            always_empty,
            settled,
            dead,
            empty_terms,
        }
    }
}
