//! The Linux-kernel memory model (LKMM), natively on bit-matrix relations.
//!
//! This module implements the model that `herd7 -conf linux-kernel.cfg` runs: the kernel's
//! `tools/memory-model/linux-kernel.bell` (annotations, RCU and SRCU critical sections,
//! marked and plain accesses), `lock.cat` (spinlocks) and `linux-kernel.cat` (variant
//! `lkmmv2`: ppo, cumul-fence, prop, hb, pb, the RCU orderings and the plain-access rules).
//! Each relation below names, in its doc comment, the cat definition it implements; the
//! book's memory-models chapter explains them in words.
//!
//! # What the execution must already hold
//! herd7 does part of the work of `lock.cat` inside its enumeration (`with co from ...`,
//! `with rf-lf from ...`), so the [`Execution`] this model judges must come with:
//! - the lock events as herd7 makes them, with the classes of `lock.cat`: `spin_lock()` is
//!   an [`Tag::Lkr`] read followed by an [`Tag::Lkw`] write, `spin_unlock()` an [`Tag::Ul`]
//!   write, a failed `spin_trylock()` an [`Tag::Lf`] read, `spin_is_locked()` an
//!   [`Tag::Rl`] or [`Tag::Ru`] read (true or false);
//! - `co` over the lock writes as `lock.cat` generates it: the LKW events of a lock in any
//!   order with the one allowed unmatched LKW last, each UL right after the LKW of its
//!   critical section ([`critical`]);
//! - `rf` with the lock edges: each LKR from the co-predecessor of its LKW, each LF from an
//!   LKW (the one whose critical section holds it, [`rfi_lf`], else any LKW of another
//!   thread), each RU from a UL (the last po-earlier one, or one of another thread, or the
//!   initial write);
//! - `srcu_read_lock()` and `srcu_down_read()` as reads of the SRCU structure tagged
//!   [`Tag::SrcuLock`], `srcu_read_unlock()` and `srcu_up_read()` as writes of it tagged
//!   [`Tag::SrcuUnlock`], `synchronize_srcu()` as a [`EventKind::Fence`](crate::exec::event::EventKind)
//!   event tagged [`Tag::SyncSrcu`] whose `loc` is the structure;
//! - every read-modify-write event tagged [`Tag::Rmw`] (a failed `cmpxchg()` or
//!   `atomic_add_unless()` is one such read with no write), with the annotation of its
//!   macro on both its read and its write.
//!
//! - `ctrl` from the reads an `if` condition depends on to the events inside its branches
//!   only, as herd7's C semantics has it (the events after the `if` are not
//!   ctrl-dependent).
//!
//! `rmw` may or may not already hold the LKR/LKW pairs: the model adds `lk-rmw` itself.
//!
//! # Monotonicity
//! Every checked relation (coherence, atomic, happens-before, propagation, rcu,
//! plain-coherence) is built from `rf`, `co` and fixed relations by union, intersection,
//! sequence and closure only; the differences in the model subtract relations that do not
//! depend on `rf` or `co` (`id`, the critical-section matchings, `FailedRMW`).
//! So a check that fails on a partial execution fails on every completion of it, provided
//! the partial `rf` and `co` are subsets of the final ones (the LKR edges, which follow the
//! *immediate* co-predecessor, are only final once the lock's co is).
//! The lock checks (lock-nest, nested-is-locked, unmatched-locks) depend on the paths
//! alone.
//!
//! The model, its checks in herd7's order ([`judge_with`]) and the event sets it reads
//! ([`Sets`]) are here; the relations have a file each: the `lock.cat` relations
//! (`locks`), RCU's critical sections and `rcu-order` (`rcu`), the relations the thread
//! paths alone fix and the fences (`fixed`), the relations of `rf` and `co` (`dynamic`),
//! the plain-access rules (`plain`), the flags (`flags`), and the same relations as
//! witness terms, for explanations ([`terms`]).

use std::cell::RefCell;
use std::collections::BTreeMap;

use crate::exec::event::{Event, EventKind, Loc, Tag, Tags};
use crate::exec::execution::{AnyExecution, Execution};
use crate::exec::relation::{EventSet, Relation, Width, Words};
use crate::models::model::{Judge, Judgement, MemoryModel, Pairs, as_pairs};

mod dynamic;
mod fixed;
mod flags;
mod locks;
mod plain;
mod rcu;
pub mod terms;
#[cfg(test)]
mod tests;

pub use dynamic::Dynamic;
use dynamic::Workspace;
pub use fixed::{Fences, Fixed, fencerel};
pub use flags::flags;
pub use locks::{critical, is_lock_event, lk_rmw, rfi_lf};
pub use plain::PlainRelations;
pub use rcu::{rcu_order, rcu_rscs};

use flags::flags_without_plain_or_srcu;

/// The Linux-kernel memory model, as `herd7 -conf linux-kernel.cfg` runs it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lkmm;

/// The names of the checks, in the order herd7 evaluates them.
pub const CHECKS: [&str; 9] = [
    "lock-nest",
    "nested-is-locked",
    "unmatched-locks",
    "coherence",
    "atomic",
    "happens-before",
    "propagation",
    "rcu",
    "plain-coherence",
];

/// The names of the flags, in the order the model files declare them.
pub const FLAGS: [&str; 14] = [
    "unmatched-rcu-lock",
    "unmatched-rcu-unlock",
    "unmatched-srcu-lock",
    "unmatched-srcu-unlock",
    "multiple-srcu-matches",
    "invalid-sleep",
    "srcu-bad-value-match",
    "mixed-lock-accesses",
    "unpaired-LKW",
    "unpaired-LKR",
    "lock-final",
    "unmatched-unlock",
    "mixed-accesses",
    "data-race",
];

crate::models::model::judge_at_every_width!(Lkmm);

impl Judge for Lkmm {
    /// Judges `execution`, reusing this thread's last skeleton (the path-only [`Sets`] and
    /// [`Fixed`]) when the execution has the same events, `po` and `rmw`, as consecutive
    /// candidates of one combination of paths do.
    fn judge_any<W: Width>(&self, execution: &Execution<W>) -> Judgement {
        with_skeleton(execution, |skeleton| {
            judge_in(
                execution,
                &skeleton.sets,
                &skeleton.fixed,
                &mut skeleton.work,
            )
        })
    }

    /// Every check of the model is monotone, and all but coherence and atomicity relate
    /// events of several locations; so when every check passes on `union`, with those two
    /// left out at the events `open`, each completion is allowed exactly when they pass
    /// at `open` (and is rejected by the same check as [`Lkmm::judge_any`] would name,
    /// since they come first). Not when the flags or plain-coherence read the relations
    /// (a potential race, an SRCU event).
    fn vouch_any<W: Width>(&self, union: &Execution<W>, open: &EventSet<W>) -> bool {
        with_skeleton(union, |skeleton| {
            let (s, f) = (&skeleton.sets, &skeleton.fixed);
            if !(f.no_c11_rmw && f.lock_nest_ok && f.nested_is_locked_ok && f.unmatched_locks_ok)
                || uses_relations(s, f)
            {
                return false;
            }
            let outside = EventSet::full(s.n) - open.clone();
            skeleton.work.check(union, s, f, Some(&outside)).is_ok()
        })
    }

    fn judge_vouched_any<W: Width>(
        &self,
        execution: &Execution<W>,
        open: &EventSet<W>,
    ) -> Judgement {
        with_skeleton(execution, |skeleton| {
            let (s, f) = (&skeleton.sets, &skeleton.fixed);
            let mut judgement = Judgement::default();
            if let Err(check) = coherent_at(execution, f, open) {
                judgement.rejected_by = Some(check);
            } else if is_complete(execution, f.co_pairs) {
                judgement.flags = flags_without_plain_or_srcu(execution, s, f);
            }
            judgement
        })
    }
}

/// Calls `f` with this thread's skeleton of `execution`: the last one, when it has the
/// same events, `po` and `rmw`, or one computed anew (in place, when this thread has one
/// of this width).
fn with_skeleton<W: Width, R>(
    execution: &Execution<W>,
    f: impl FnOnce(&mut Skeleton<W>) -> R,
) -> R {
    SKELETON.with(|cell| {
        let mut cached = cell.borrow_mut();
        let reuse = cached
            .as_ref()
            .and_then(|s| s.downcast_ref::<Skeleton<W>>())
            .is_some_and(|s| s.matches(execution));
        if !reuse {
            // Refilled in place when this thread has one of this width: a skeleton holds
            // many relations, and moving them costs more than computing some.
            match cached
                .as_mut()
                .and_then(|s| s.downcast_mut::<Skeleton<W>>())
            {
                Some(skeleton) => skeleton.refill(execution),
                None => *cached = Some(Box::new(Skeleton::new(execution))),
            }
        }
        let skeleton = cached
            .as_mut()
            .and_then(|s| s.downcast_mut::<Skeleton<W>>())
            .expect("just filled");
        // A skeleton found alike by its parts (that of an earlier search of the same
        // combination of paths, as a split search's probe leaves) takes the new shape, so
        // that the next executions of the shape are known by it alone.
        skeleton.shape = execution.shape;
        f(skeleton)
    })
}

/// Whether the plain-access checks or the flags read the relations of `rf` and `co`: only
/// with a potential race or an SRCU event.
fn uses_relations<W: Width>(s: &Sets<W>, f: &Fixed<W>) -> bool {
    !(f.pre_race.is_empty() && s.srcu_lock.is_empty() && s.srcu_unlock.is_empty())
}

/// Coherence (`acyclic po-loc | com`) and atomicity (`empty rmw & (fre ; coe)`) at the
/// events `open`, which hold every event of their locations: both relate events of one
/// location only.
///
/// # Complexity
/// Quadratic in the size of `open`: each event's successors among the others, as bits of
/// a word when there are at most 128 of them.
fn coherent_at<W: Width>(
    x: &Execution<W>,
    f: &Fixed<W>,
    open: &EventSet<W>,
) -> Result<(), &'static str> {
    let mut events = [0usize; 128];
    let mut k = 0;
    for e in open.iter() {
        if k == events.len() {
            return coherent_at_wide(x, f, open);
        }
        events[k] = e;
        k += 1;
    }
    let events = &events[..k];
    let local = |set: EventSet<W>| -> u128 {
        set.iter()
            .filter_map(|e| events.binary_search(&e).ok())
            .fold(0, |m, i| m | 1 << i)
    };
    // The write each read of `open` reads from, and po-loc | rf | co | fr from each event.
    let mut source = [usize::MAX; 128];
    let mut next = [0u128; 128];
    for (i, &e) in events.iter().enumerate() {
        let reads = local(x.rf.successors(e));
        next[i] = local(f.po_loc.successors(e)) | reads | local(x.co.successors(e));
        let mut m = reads;
        while m != 0 {
            source[m.trailing_zeros() as usize] = i;
            m &= m - 1;
        }
    }
    for i in 0..k {
        if source[i] != usize::MAX {
            next[i] |= local(x.co.successors(events[source[i]]));
        }
    }
    // Takes away, as long as there is one, an event with no successor left; a cycle
    // leaves events that all have one.
    let mut left: u128 = if k == 128 { !0 } else { (1 << k) - 1 };
    while left != 0 {
        let mut m = left;
        let mut sink = None;
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            if next[i] & left == 0 {
                sink = Some(i);
                break;
            }
            m &= m - 1;
        }
        let Some(i) = sink else {
            return Err("coherence");
        };
        left &= !(1 << i);
    }
    for (i, &r) in events.iter().enumerate() {
        if source[i] != usize::MAX {
            atomic_at(x, f, r, events[source[i]])?;
        }
    }
    Ok(())
}

/// [`coherent_at`] on more than 128 events, on event sets.
fn coherent_at_wide<W: Width>(
    x: &Execution<W>,
    f: &Fixed<W>,
    open: &EventSet<W>,
) -> Result<(), &'static str> {
    let events: Vec<usize> = open.iter().collect();
    let sources: Vec<EventSet<W>> = events
        .iter()
        .map(|&e| x.rf.predecessors(e).inter(open.clone()))
        .collect();
    let mut next: Vec<EventSet<W>> = events
        .iter()
        .zip(&sources)
        .map(|(&e, src)| {
            let mut out = f.po_loc.successors(e);
            out.union_with(&x.rf.successors(e));
            out.union_with(&x.co.successors(e));
            for w in src.iter() {
                out.union_with(&x.co.successors(w));
            }
            out.inter_with(open);
            out
        })
        .collect();
    let mut left = open.clone();
    for _ in 0..events.len() {
        let Some(k) =
            (0..events.len()).find(|&k| left.contains(events[k]) && next[k].is_disjoint(&left))
        else {
            return Err("coherence");
        };
        left.remove(events[k]);
        next[k] = EventSet::EMPTY;
    }
    for (k, &r) in events.iter().enumerate() {
        for src in sources[k].iter() {
            atomic_at(x, f, r, src)?;
        }
    }
    Ok(())
}

/// Atomicity at the read `r`, which reads from `src`: no write of another thread comes
/// between `src` and the write of `r`'s read-modify-write in coherence order.
fn atomic_at<W: Width>(
    x: &Execution<W>,
    f: &Fixed<W>,
    r: usize,
    src: usize,
) -> Result<(), &'static str> {
    for w in f.rmw.successors(r).iter() {
        let between = x.co.successors(src).inter(x.co.predecessors(w));
        if between
            .iter()
            .any(|m| f.ext.contains(r, m) && f.ext.contains(m, w))
        {
            return Err("atomic");
        }
    }
    Ok(())
}

impl MemoryModel for Lkmm {
    fn name(&self) -> &'static str {
        "lkmm"
    }

    fn monotone(&self) -> bool {
        true
    }

    fn factors(&self) -> bool {
        true
    }

    fn vouches(&self) -> bool {
        true
    }

    fn judges_lock_reads(&self) -> bool {
        true
    }

    fn explain(&self, execution: &AnyExecution) -> Option<crate::exec::witness::Violation> {
        terms::explain(execution)
    }

    fn relations(&self, execution: &AnyExecution) -> Vec<(&'static str, Pairs)> {
        as_pairs(terms::relations(execution))
    }
}

thread_local! {
    /// The last skeleton [`Lkmm::judge`] computed on this thread, of the width of the
    /// execution it was computed for.
    static SKELETON: RefCell<Option<Box<dyn std::any::Any>>> = const { RefCell::new(None) };
}

/// The path-only parts of the model for one combination of thread paths, with what they
/// were computed from, and the workspace in which its candidates are judged.
struct Skeleton<W: Width = Words<1>> {
    /// The [`Execution::shape`] it was computed from.
    shape: u64,
    events: Vec<(Option<usize>, EventKind, Option<Loc>, Tags)>,
    po: Relation<W>,
    rmw: Relation<W>,
    deps: [Relation<W>; 3],
    sets: Sets<W>,
    fixed: Fixed<W>,
    work: Workspace<W>,
}

impl<W: Width> Skeleton<W> {
    fn new(x: &Execution<W>) -> Skeleton<W> {
        let sets = Sets::new(x);
        let fixed = Fixed::new(x, &sets);
        Skeleton {
            shape: x.shape,
            events: x.events.iter().map(skeleton_key).collect(),
            po: x.po.clone(),
            rmw: x.rmw.clone(),
            deps: [x.addr.clone(), x.data.clone(), x.ctrl.clone()],
            work: Workspace::new(sets.n),
            sets,
            fixed,
        }
    }

    /// Makes `self` the skeleton of `x`, reusing its storage.
    fn refill(&mut self, x: &Execution<W>) {
        self.shape = x.shape;
        self.events.clear();
        self.events.extend(x.events.iter().map(skeleton_key));
        self.po.clone_from(&x.po);
        self.rmw.clone_from(&x.rmw);
        for (dep, of_x) in self.deps.iter_mut().zip([&x.addr, &x.data, &x.ctrl]) {
            dep.clone_from(of_x);
        }
        self.sets = Sets::new(x);
        self.fixed.refill(x, &self.sets);
        self.work.reset(self.sets.n);
    }

    /// Whether `x` has the events, `po`, `rmw` and dependencies this skeleton was
    /// computed from: the only inputs of [`Sets::new`] and [`Fixed::new`], and, with
    /// `rf`, of the relations the workspace keeps while `rf` stays the same; by their
    /// [`Execution::shape`] when it names them, as it does for the candidates of one
    /// combination of thread paths.
    fn matches(&self, x: &Execution<W>) -> bool {
        if x.shape != 0 && x.shape == self.shape {
            return true;
        }
        self.events.len() == x.events.len()
            && self.po == x.po
            && self.rmw == x.rmw
            && self.deps[0] == x.addr
            && self.deps[1] == x.data
            && self.deps[2] == x.ctrl
            && self
                .events
                .iter()
                .zip(&x.events)
                .all(|(k, e)| *k == skeleton_key(e))
    }
}

fn skeleton_key(e: &Event) -> (Option<usize>, EventKind, Option<Loc>, Tags) {
    (e.thread, e.kind, e.loc, e.tags)
}

/// Whether every read of `x` reads from a write and `co` orders every two writes to the
/// same location (`co_pairs` of them, which the events alone fix: [`co_pairs`]): an
/// execution the enumeration has finished choosing.
fn is_complete<W: Width>(x: &Execution<W>, co_pairs: usize) -> bool {
    (x.reads() - x.rf.range()).is_empty() && x.co.len() == co_pairs
}

/// The number of pairs of distinct writes to the same location: the size of a total `co`.
fn co_pairs<W: Width>(x: &Execution<W>) -> usize {
    let mut writes_per_loc: BTreeMap<Loc, usize> = BTreeMap::new();
    for e in &x.events {
        if let (EventKind::Write, Some(loc)) = (e.kind, e.loc) {
            *writes_per_loc.entry(loc).or_default() += 1;
        }
    }
    writes_per_loc.values().map(|k| k * (k - 1) / 2).sum()
}

/// Judges one execution, reusing the parts of the model that depend on the thread paths
/// only (`sets` and `fixed` may come from any execution with the same events, `po`, `rmw`
/// and dependencies).
pub fn judge_with<W: Width>(
    execution: &Execution<W>,
    sets: &Sets<W>,
    fixed: &Fixed<W>,
) -> Judgement {
    judge_in(execution, sets, fixed, &mut Workspace::new(sets.n))
}

/// [`judge_with`] in `work`, which keeps the relations of `rf` alone from the execution
/// it judged before (of the same events, `po`, `rmw` and dependencies).
fn judge_in<W: Width>(
    execution: &Execution<W>,
    sets: &Sets<W>,
    fixed: &Fixed<W>,
    work: &mut Workspace<W>,
) -> Judgement {
    let mut judgement = Judgement::default();
    for (name, ok) in [
        ("coherence", fixed.no_c11_rmw),
        ("lock-nest", fixed.lock_nest_ok),
        ("nested-is-locked", fixed.nested_is_locked_ok),
        ("unmatched-locks", fixed.unmatched_locks_ok),
    ] {
        if !ok {
            judgement.rejected_by = Some(name);
            return judgement;
        }
    }
    if let Err(check) = work.check(execution, sets, fixed, None) {
        judgement.rejected_by = Some(check);
        return judgement;
    }
    // The plain-access checks and the SRCU flags are the only users of the relations
    // once the checks have passed.
    if !uses_relations(sets, fixed) {
        if is_complete(execution, fixed.co_pairs) {
            judgement.flags = flags_without_plain_or_srcu(execution, sets, fixed);
        }
        return judgement;
    }
    let dynamic = work.relations();
    let plain = PlainRelations::new(sets, fixed, dynamic);
    if !plain.coherent() {
        judgement.rejected_by = Some("plain-coherence");
        return judgement;
    }
    // Flags only matter for complete executions; partial ones are judged for pruning.
    if is_complete(execution, fixed.co_pairs) {
        judgement.flags = flags(execution, sets, fixed, dynamic, &plain);
    }
    judgement
}

/// The event sets of the model: cat's sets after `linux-kernel.bell` and `lock.cat` have
/// filtered and extended them.
#[derive(Clone, Debug)]
pub struct Sets<W: Width = Words<1>> {
    /// The number of events.
    pub n: usize,
    /// cat's `IW`: the initial writes.
    pub iw: EventSet<W>,
    /// cat's `R` after `lock.cat`: reads, including LKR, LF, RL and RU.
    pub r: EventSet<W>,
    /// cat's `W` after `lock.cat`: writes, including LKW and UL.
    pub w: EventSet<W>,
    /// cat's `M`: `R | W`.
    pub m: EventSet<W>,
    /// bell's `Marked`: `(~M) | IW | ONCE | RELEASE | ACQUIRE | MB | RMW | LKR | LKW | UL |
    /// LF | RL | RU | Srcu-lock | Srcu-unlock`.
    pub marked: EventSet<W>,
    /// bell's `Plain`: `M \ Marked`.
    pub plain: EventSet<W>,
    /// cat's `RMW`: every event of a read-modify-write instruction, failed or not.
    pub rmw_events: EventSet<W>,
    /// bell's `FailedRMW = RMW \ (domain(rmw) | range(rmw))`.
    pub failed_rmw: EventSet<W>,
    /// bell's `Acquire = ACQUIRE \ W \ FailedRMW`, with `lock.cat`'s `| LKR`.
    pub acquire: EventSet<W>,
    /// bell's `Release = RELEASE \ R \ FailedRMW`, with `lock.cat`'s `| UL`.
    pub release: EventSet<W>,
    /// bell's `Mb = MB \ FailedRMW`: `smp_mb()` and the events of fully ordered RMWs.
    pub mb: EventSet<W>,
    /// bell's `Noreturn = NORETURN \ W`.
    pub noreturn: EventSet<W>,
    /// cat's `R4rmb = R \ Noreturn`: the reads `smp_rmb()` orders.
    pub r4rmb: EventSet<W>,
    /// `LKR`, the lock reads.
    pub lkr: EventSet<W>,
    /// `LKW`, the lock writes.
    pub lkw: EventSet<W>,
    /// `UL`, the unlocks.
    pub ul: EventSet<W>,
    /// `lock.cat`'s `LF = LF | RL`.
    pub lf: EventSet<W>,
    /// `RU`, the `spin_is_locked()` reads that return false.
    pub ru: EventSet<W>,
    /// `Srcu-lock`.
    pub srcu_lock: EventSet<W>,
    /// `Srcu-unlock`.
    pub srcu_unlock: EventSet<W>,
    /// `Sync-srcu`.
    pub sync_srcu: EventSet<W>,
    /// `Sync-rcu`.
    pub sync_rcu: EventSet<W>,
    /// `lock.cat`'s `ALL-LOCKS = LKR | LKW | UL | LF | RU | Srcu-lock | Srcu-unlock |
    /// Sync-srcu`.
    pub all_locks: EventSet<W>,
}

impl<W: Width> Sets<W> {
    /// Classifies the events of `x`.
    pub fn new(x: &Execution<W>) -> Sets<W> {
        let n = x.len();
        let t = |tag| x.tagged(tag);
        let iw = t(Tag::Init);
        let r = x.reads();
        let w = x.writes();
        let m = r.clone() | w.clone();
        let lkr = t(Tag::Lkr);
        let lkw = t(Tag::Lkw);
        let ul = t(Tag::Ul);
        let lf = t(Tag::Lf) | t(Tag::Rl);
        let ru = t(Tag::Ru);
        let srcu_lock = t(Tag::SrcuLock);
        let srcu_unlock = t(Tag::SrcuUnlock);
        let sync_srcu = t(Tag::SyncSrcu);
        let rmw_events = t(Tag::Rmw);
        let not_m = EventSet::full(n) - m.clone();
        let marked = not_m
            | iw.clone()
            | t(Tag::Once)
            | t(Tag::Release)
            | t(Tag::Acquire)
            | t(Tag::Mb)
            | rmw_events.clone()
            | lkr.clone()
            | lkw.clone()
            | ul.clone()
            | lf.clone()
            | ru.clone()
            | srcu_lock.clone()
            | srcu_unlock.clone();
        let plain = m.clone() - marked.clone();
        let failed_rmw = rmw_events.clone() - (x.rmw.domain() | x.rmw.range());
        let acquire = (t(Tag::Acquire) - w.clone() - failed_rmw.clone()) | lkr.clone();
        let release = (t(Tag::Release) - r.clone() - failed_rmw.clone()) | ul.clone();
        let mb = t(Tag::Mb) - failed_rmw.clone();
        let noreturn = t(Tag::Noreturn) - w.clone();
        Sets {
            n,
            iw,
            r: r.clone(),
            w,
            m,
            marked,
            plain,
            rmw_events,
            failed_rmw,
            acquire,
            release,
            mb,
            noreturn: noreturn.clone(),
            r4rmb: r - noreturn,
            lkr: lkr.clone(),
            lkw: lkw.clone(),
            ul: ul.clone(),
            lf: lf.clone(),
            ru: ru.clone(),
            srcu_lock: srcu_lock.clone(),
            srcu_unlock: srcu_unlock.clone(),
            sync_srcu: sync_srcu.clone(),
            sync_rcu: t(Tag::SyncRcu),
            all_locks: lkr | lkw | ul | lf | ru | srcu_lock | srcu_unlock | sync_srcu,
        }
    }
}
