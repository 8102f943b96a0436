//! The memory-model strategy: what decides whether a candidate execution is allowed.
//!
//! A model is a set of named checks over an [`Execution`] (cat's `acyclic`, `irreflexive`
//! and `empty`), plus flags that mark an execution without rejecting it (cat's `flag`).
//! The enumeration is generic over the model, so every model benefits from the same
//! pruning: a model that says its checked relations only grow as `rf` and `co` grow
//! ([`MemoryModel::monotone`]) lets the enumeration reject a partial execution and all its
//! completions at once.

use crate::exec::execution::{AnyExecution, Execution};
use crate::exec::relation::{EventSet, Growable, Relation, Width, Words};
use crate::exec::witness::Violation;
use std::time::Instant;

/// The flag a model's `undefined_unless` check raises on an execution that fails it,
/// herd7's name: herd7 then says `Undef` where it says `Ok` or `No`.
pub const UNDEFINED: &str = "*undef*";

/// The verdict a model gives one execution.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Judgement {
    /// The name of the first check that rejects the execution (`"coherence"`, `"happens-before"`,
    /// ...), or `None` when the model allows it.
    pub rejected_by: Option<&'static str>,
    /// The flags the execution raises (`"data-race"`, `"unmatched-rcu-lock"`, ...), in the
    /// order the model declares them.
    pub flags: Vec<&'static str>,
}

impl Judgement {
    /// Whether the model allows the execution.
    pub fn allowed(&self) -> bool {
        self.rejected_by.is_none()
    }
}

/// One way a model completes a candidate execution and allows it: the coherence order and
/// reads-from it chose, and its judgement (flags).
pub struct Completion<'a, W: Width = Words<1>> {
    /// The coherence order.
    pub co: &'a Relation<W>,
    /// The reads-from relation, with the reads the model placed itself (lock reads).
    pub rf: &'a Relation<W>,
    /// The judgement.
    pub judgement: &'a Judgement,
}

/// How a model judges the executions of one width: `W` words of 128 events.
///
/// A model writes [`Judge`] once, generic over the width, and `judge_at_every_width!`
/// makes it this trait at each width the engine uses.
pub trait JudgeAt<W: Width> {
    /// Judges one complete execution.
    fn judge(&self, execution: &Execution<W>) -> Judgement;

    /// Whether the model allows every completion of a partial execution whose checks at
    /// the events `open` pass, judged once on `union`: the partial execution with every
    /// write each of its unread reads may read at once, and the coherence order of their
    /// locations ([`Judge::vouch_any`]).
    fn vouch(&self, union: &Execution<W>, open: &EventSet<W>) -> bool;

    /// Judges one complete execution among those [`vouch`](Self::vouch) vouched for with
    /// `open`: as [`judge`](Self::judge) does, checking only what the vouching left open.
    fn judge_vouched(&self, execution: &Execution<W>, open: &EventSet<W>) -> Judgement;

    /// For a model that [completes](MemoryModel::completes) candidates: calls `each` with every
    /// completion of `execution` the model allows (until `each` returns `false`), given
    /// the final writes of the locations the test observes and herd7's `pco` (the initial
    /// writes before the others, the final writes after them).
    /// A model that may take long on one execution stops with an error once `deadline`
    /// has passed; the enumeration then reports the test undecided.
    fn completions(
        &self,
        execution: &Execution<W>,
        final_writes: EventSet<W>,
        pco: &Relation<W>,
        deadline: Option<Instant>,
        each: &mut dyn FnMut(Completion<'_, W>) -> bool,
    ) -> Result<(), String>;
}

/// A model's judgement at any width, written once: [`JudgeAt`] at each width calls it
/// (`judge_at_every_width!`).
pub trait Judge {
    /// Judges one complete execution ([`JudgeAt::judge`]).
    fn judge_any<W: Width>(&self, execution: &Execution<W>) -> Judgement;

    /// Whether every completion of a partial execution is allowed as soon as its checks
    /// at the events `open` pass ([`JudgeAt::vouch`]); `false`, the default, vouches for
    /// nothing.
    ///
    /// `union` is the partial execution with, for each read still unread, an `rf` edge
    /// from every write it may read, and the coherence order of every location complete;
    /// `open` holds the events of the locations of those reads. Each completion has the
    /// same `co` and an `rf` inside `union`'s. A [monotone](MemoryModel::monotone) model
    /// whose checks outside `open` all pass on `union` may say `true` when every check
    /// that may fail on a completion and not on `union` lies inside `open` (coherence and
    /// atomicity, which are checks of one location each), and the flags of a completion
    /// need no relation that grows with `rf`; [`judge_vouched_any`](Self::judge_vouched_any)
    /// then judges each completion by the checks inside `open` alone.
    fn vouch_any<W: Width>(&self, union: &Execution<W>, open: &EventSet<W>) -> bool {
        let _ = (union, open);
        false
    }

    /// Judges a complete execution that [`vouch_any`](Self::vouch_any) vouched for with
    /// `open`, with the judgement [`judge_any`](Self::judge_any) gives it.
    fn judge_vouched_any<W: Width>(
        &self,
        execution: &Execution<W>,
        open: &EventSet<W>,
    ) -> Judgement {
        let _ = open;
        self.judge_any(execution)
    }

    /// The completions of `execution` the model allows ([`JudgeAt::completions`]): for a
    /// model that does not complete candidates, the execution itself when it allows it.
    fn completions_any<W: Width>(
        &self,
        execution: &Execution<W>,
        final_writes: EventSet<W>,
        pco: &Relation<W>,
        deadline: Option<Instant>,
        each: &mut dyn FnMut(Completion<'_, W>) -> bool,
    ) -> Result<(), String> {
        let _ = (final_writes, pco, deadline);
        let judgement = self.judge_any(execution);
        if judgement.allowed() {
            each(Completion {
                co: &execution.co,
                rf: &execution.rf,
                judgement: &judgement,
            });
        }
        Ok(())
    }
}

/// Makes a model's [`Judge`] its [`JudgeAt`] at each width of
/// [`crate::exec::relation::WIDTHS`], by methods of one width each that are never inlined.
///
/// So the judging code (a cat model's interpreter, the native LKMM...) is compiled once,
/// in this crate: a program that makes a `dyn MemoryModel` of the model (a test, an
/// example) calls these methods, where a generic `impl<W> JudgeAt<W>` would have it
/// compile its own copy of all that code at every width.
macro_rules! judge_at_every_width {
    ($model:ty) => {
        $crate::models::model::judge_at_every_width!(
            $model;
            $crate::exec::relation::Words<1>,
            $crate::exec::relation::Words<2>,
            $crate::exec::relation::Words<4>,
            $crate::exec::relation::Words<8>,
            $crate::exec::relation::Growable
        );
    };
    ($model:ty; $($w:ty),*) => {
        $(
            impl $crate::models::model::JudgeAt<$w> for $model {
                #[inline(never)]
                fn judge(
                    &self,
                    execution: &$crate::exec::execution::Execution<$w>,
                ) -> $crate::models::model::Judgement {
                    $crate::models::model::Judge::judge_any(self, execution)
                }

                #[inline(never)]
                fn vouch(
                    &self,
                    union: &$crate::exec::execution::Execution<$w>,
                    open: &$crate::exec::relation::EventSet<$w>,
                ) -> bool {
                    $crate::models::model::Judge::vouch_any(self, union, open)
                }

                #[inline(never)]
                fn judge_vouched(
                    &self,
                    execution: &$crate::exec::execution::Execution<$w>,
                    open: &$crate::exec::relation::EventSet<$w>,
                ) -> $crate::models::model::Judgement {
                    $crate::models::model::Judge::judge_vouched_any(self, execution, open)
                }

                #[inline(never)]
                fn completions(
                    &self,
                    execution: &$crate::exec::execution::Execution<$w>,
                    final_writes: $crate::exec::relation::EventSet<$w>,
                    pco: &$crate::exec::relation::Relation<$w>,
                    deadline: Option<std::time::Instant>,
                    each: &mut dyn FnMut($crate::models::model::Completion<'_, $w>) -> bool,
                ) -> Result<(), String> {
                    $crate::models::model::Judge::completions_any(
                        self,
                        execution,
                        final_writes,
                        pco,
                        deadline,
                        each,
                    )
                }
            }
        )*
    };
}

pub(crate) use judge_at_every_width;

/// A memory model: a strategy the enumeration consults for each candidate execution.
///
/// A model judges executions of every width the engine uses ([`JudgeAt`] for each of
/// [`crate::exec::relation::WIDTHS`]); one generic `impl<W: Width> JudgeAt<W>` gives them all.
pub trait MemoryModel:
    Send
    + Sync
    + JudgeAt<Words<1>>
    + JudgeAt<Words<2>>
    + JudgeAt<Words<4>>
    + JudgeAt<Words<8>>
    + JudgeAt<Growable>
{
    /// The model's name on the command line and in `Result(name):` lines.
    fn name(&self) -> &'static str;

    /// Which macro file gives the test's calls their meaning under this model: the kernel's,
    /// unless the model is one of C11's.
    fn dialect(&self) -> crate::front::c11::Dialect {
        crate::front::c11::Dialect::Kernel
    }

    /// How herd7 reads the kernel's read-modify-write instructions (`__xchg{mb}`...) under
    /// this model's variants, where no macro file says it: `lkmmv1` (an `mb` instruction
    /// between two `mb` fences) unless the variants hold `lkmmv2`, as the native LKMM's do.
    fn lkmm(&self) -> crate::front::variant::LkmmVersion {
        crate::front::variant::LkmmVersion::V2
    }

    /// What the model's files do that is most likely a mistake, though herd7 runs them too,
    /// each as `file:line:col: warning: ...`: the command lines print them once, before
    /// the first test (herd7 prints its own warning again for every execution).
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }

    /// Whether every relation this model checks only grows when pairs are added to `rf` and
    /// `co`, so that a check failing on a partial execution fails on all its completions.
    fn monotone(&self) -> bool {
        false
    }

    /// Whether the model may vouch for every completion of a partial execution at once
    /// ([`JudgeAt::vouch`]): the enumeration asks it only then.
    fn vouches(&self) -> bool {
        false
    }

    /// Whether the model's verdict on a test split in two parts factors into verdicts on
    /// each part, whenever the parts communicate through a single read of a single write
    /// and every access is marked: true when each of the model's checks (acyclic,
    /// irreflexive, empty) is over relations built from `rf`, `co`, `fr` and relations
    /// inside one thread, by union, sequence, closure, inverse, and intersection or
    /// difference with such relations or with same-location and other-thread tests, but no
    /// product of sets that relates plain accesses across threads. Then every cycle, and
    /// every pair a check relates, lies inside one part, since going from one part to the
    /// other and back takes both a read of the write and a read of the initial value by
    /// the one read; see `engine::pieces`.
    fn factors(&self) -> bool {
        false
    }

    /// Whether the model completes candidates itself, as herd7's model files do: it then
    /// gets executions with reads-from for ordinary reads only, and no coherence order,
    /// through [`completions`](JudgeAt::completions), instead of [`judge`](JudgeAt::judge).
    fn completes(&self) -> bool {
        false
    }

    /// Whether the model judges the candidates of runs cut at a loop's unrolling too, as
    /// herd7 evaluates a model file on them before it drops them: true for a model that
    /// [completes](Self::completes) candidates and has an `assert`, which then stops the
    /// test when it fails on one of them.
    fn judges_cut_runs(&self) -> bool {
        false
    }

    /// Whether the model gives lock reads (`spin_is_locked`, a failed `spin_trylock`) their
    /// writes as the kernel's `lock.cat` does, at every version: each from a lock write or
    /// the initial write of its own address, so that one at an address that is no location
    /// (a null pointer), where there is neither, leaves no candidate. herd7 pairs no lock
    /// read with a write itself; under a model without such a judgement it keeps both of
    /// `spin_is_locked`'s outcomes there, which hazmat does not build.
    fn judges_lock_reads(&self) -> bool {
        false
    }

    /// Whether the model allows every sequentially consistent execution, as every model of
    /// a real machine or language does.
    /// The enumeration then knows that a program with no `filter` and no lock has an
    /// allowed execution, and reports finding none as an internal error.
    fn includes_sc(&self) -> bool {
        true
    }

    /// Why the model rejects `execution`: the first failing check, as [`judge`](JudgeAt::judge)
    /// names it, with a concrete cycle in the base relations; `None` when the model allows
    /// the execution or cannot explain its checks.
    fn explain(&self, execution: &AnyExecution) -> Option<Violation> {
        let _ = execution;
        None
    }

    /// The model's key derived relations over `execution`, by name (`ppo`, `hb`...), each
    /// as its pairs, for traces that draw them on request.
    fn relations(&self, execution: &AnyExecution) -> Vec<(&'static str, Pairs)> {
        let _ = execution;
        Vec::new()
    }
}

/// A relation as the list of its pairs, in row-major order: what drawings take of a model's
/// relations, whatever the width of the execution.
pub type Pairs = Vec<(usize, usize)>;

/// Named relations as [`Pairs`], for [`MemoryModel::relations`].
pub fn as_pairs<W: Width>(
    relations: Vec<(&'static str, Relation<W>)>,
) -> Vec<(&'static str, Pairs)> {
    relations
        .into_iter()
        .map(|(name, r)| (name, r.pairs().collect()))
        .collect()
}

/// The verdict `model` gives `execution`, at its width.
pub fn judge(model: &dyn MemoryModel, execution: &AnyExecution) -> Judgement {
    JudgeAt::<Growable>::judge(model, execution)
}
