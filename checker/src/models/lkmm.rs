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

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::BTreeMap;

use crate::exec::event::{Event, EventKind, Loc, Tag, Tags};
use crate::exec::execution::Execution;
use crate::exec::relation::{EventSet, Relation, Width, Words};
use crate::models::model::{JudgeAt, Judgement, MemoryModel};

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

impl<W: Width> JudgeAt<W> for Lkmm {
    /// Judges `execution`, reusing this thread's last skeleton (the path-only [`Sets`] and
    /// [`Fixed`]) when the execution has the same events, `po` and `rmw`, as consecutive
    /// candidates of one combination of paths do.
    fn judge(&self, execution: &Execution<W>) -> Judgement {
        SKELETON.with(|cell| {
            let mut cached = cell.borrow_mut();
            let reuse = cached
                .as_ref()
                .and_then(|s| s.downcast_ref::<Skeleton<W>>())
                .is_some_and(|s| s.matches(execution));
            if !reuse {
                *cached = Some(Box::new(Skeleton::new(execution)));
            }
            let skeleton = cached
                .as_ref()
                .and_then(|s| s.downcast_ref::<Skeleton<W>>())
                .expect("just filled");
            judge_with(execution, &skeleton.sets, &skeleton.fixed)
        })
    }
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

    fn explain(&self, execution: &Execution) -> Option<crate::exec::witness::Violation> {
        crate::models::lkmm_terms::explain(execution)
    }

    fn relations(&self, execution: &Execution) -> Vec<(&'static str, Relation)> {
        crate::models::lkmm_terms::relations(execution)
    }
}

thread_local! {
    /// The last skeleton [`Lkmm::judge`] computed on this thread, of the width of the
    /// execution it was computed for.
    static SKELETON: RefCell<Option<Box<dyn std::any::Any>>> = const { RefCell::new(None) };
}

/// The path-only parts of the model for one combination of thread paths, with what they
/// were computed from.
struct Skeleton<W: Width = Words<1>> {
    events: Vec<(Option<usize>, EventKind, Option<Loc>, Tags)>,
    po: Relation<W>,
    rmw: Relation<W>,
    sets: Sets<W>,
    fixed: Fixed<W>,
}

impl<W: Width> Skeleton<W> {
    fn new(x: &Execution<W>) -> Skeleton<W> {
        let sets = Sets::new(x);
        let fixed = Fixed::new(x, &sets);
        Skeleton {
            events: x.events.iter().map(skeleton_key).collect(),
            po: x.po.clone(),
            rmw: x.rmw.clone(),
            sets,
            fixed,
        }
    }

    /// Whether `x` has the events, `po` and `rmw` this skeleton was computed from: the
    /// only inputs of [`Sets::new`] and [`Fixed::new`].
    fn matches(&self, x: &Execution<W>) -> bool {
        self.events.len() == x.events.len()
            && self.po == x.po
            && self.rmw == x.rmw
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
    let mut judgement = Judgement::default();
    for (name, ok) in [
        ("lock-nest", fixed.lock_nest_ok),
        ("nested-is-locked", fixed.nested_is_locked_ok),
        ("unmatched-locks", fixed.unmatched_locks_ok),
    ] {
        if !ok {
            judgement.rejected_by = Some(name);
            return judgement;
        }
    }
    // The plain-access checks and the SRCU flags are the only users of the relations
    // once the checks have passed; without plain races or SRCU they are not kept.
    let keep = !fixed.pre_race.is_empty()
        || !(sets.srcu_lock.clone() | sets.srcu_unlock.clone()).is_empty();
    let dynamic = match Dynamic::checked(execution, sets, fixed, keep) {
        Ok(Some(d)) => d,
        Ok(None) => {
            if is_complete(execution, fixed.co_pairs) {
                judgement.flags = flags_without_plain_or_srcu(execution, sets, fixed);
            }
            return judgement;
        }
        Err(check) => {
            judgement.rejected_by = Some(check);
            return judgement;
        }
    };
    let plain = PlainRelations::new(sets, fixed, &dynamic);
    if !plain.coherent() {
        judgement.rejected_by = Some("plain-coherence");
        return judgement;
    }
    // Flags only matter for complete executions; partial ones are judged for pruning.
    if is_complete(execution, fixed.co_pairs) {
        judgement.flags = flags(execution, sets, fixed, &dynamic, &plain);
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

/// cat's `fencerel(S) = po ; [S] ; po`: the pairs of events po-separated by an event of `s`.
pub fn fencerel<W: Width>(po: &Relation<W>, s: EventSet<W>) -> Relation<W> {
    po.restrict_range(&s).seq(po)
}

/// `lock.cat`'s `lk-rmw = ([LKR] ; po-loc ; [LKW]) \ (po ; po)`: each lock read with the
/// lock write right after it.
pub fn lk_rmw<W: Width>(x: &Execution<W>, sets: &Sets<W>) -> Relation<W> {
    let po_loc = x.po.inter(&x.loc());
    po_loc
        .restrict(&sets.lkr, &sets.lkw)
        .minus(&x.po.seq(&x.po))
}

/// `lock.cat`'s `critical = ([LKW] ; po-loc ; [UL]) \ (po-loc ; [LKW | UL] ; po-loc)`: each
/// lock write with the unlock that ends its critical section.
pub fn critical<W: Width>(x: &Execution<W>, sets: &Sets<W>) -> Relation<W> {
    let po_loc = x.po.inter(&x.loc());
    let between = po_loc
        .restrict_range(&(sets.lkw.clone() | sets.ul.clone()))
        .seq(&po_loc);
    po_loc.restrict(&sets.lkw, &sets.ul).minus(&between)
}

/// `lock.cat`'s `rfi-lf = ([LKW] ; po-loc ; [LF]) \ ([LKW] ; po-loc ; [UL] ; po-loc)`:
/// each failed lock attempt inside a critical section of the same lock, which reads from
/// that section's lock write.
pub fn rfi_lf<W: Width>(x: &Execution<W>, sets: &Sets<W>) -> Relation<W> {
    let po_loc = x.po.inter(&x.loc());
    let after_unlock = po_loc.restrict(&sets.lkw, &sets.ul).seq(&po_loc);
    po_loc.restrict(&sets.lkw, &sets.lf).minus(&after_unlock)
}

/// The parts of the model that depend on the thread paths only, not on `rf` or `co`.
#[derive(Clone, Debug)]
pub struct Fixed<W: Width = Words<1>> {
    /// Program order.
    pub po: Relation<W>,
    /// cat's `loc`.
    pub loc: Relation<W>,
    /// `po-loc = po & loc`.
    pub po_loc: Relation<W>,
    /// cat's `int`.
    pub int: Relation<W>,
    /// cat's `ext`.
    pub ext: Relation<W>,
    /// `rmw | lk-rmw`.
    pub rmw: Relation<W>,
    /// `lock.cat`'s `lk-rmw`.
    pub lk_rmw: Relation<W>,
    /// `lock.cat`'s `critical`.
    pub critical: Relation<W>,
    /// bell's `rcu-rscs`: each `rcu_read_lock()` with its matching `rcu_read_unlock()`.
    pub rcu_rscs: Relation<W>,
    /// cat's `acq-po = [Acquire] ; po ; [M]`.
    pub acq_po: Relation<W>,
    /// cat's `po-rel = [M] ; po ; [Release]`.
    pub po_rel: Relation<W>,
    /// cat's `rmb = [R4rmb] ; fencerel(Rmb) ; [R4rmb]`.
    pub rmb: Relation<W>,
    /// cat's `wmb = [W] ; fencerel(Wmb) ; [W]`.
    pub wmb: Relation<W>,
    /// cat's `mb` less its `po-unlock-lock-po` term, which depends on `rf`.
    pub mb_static: Relation<W>,
    /// cat's `gp = po ; [Sync-rcu | Sync-srcu] ; po?`.
    pub gp: Relation<W>,
    /// cat's `barrier`, for the mixed-accesses flag.
    pub barrier: Relation<W>,
    /// `fencerel(Rmb)`, for the lifetimes of plain reads.
    pub fencerel_rmb: Relation<W>,
    /// cat's `pre-race = ext & ((Plain * M) | ((M \ IW) * Plain))`, restricted to `loc`
    /// (every use intersects it with `rf`, `co` or `fr`).
    pub pre_race: Relation<W>,
    /// The fences, when the test has no lock events (no `po-unlock-lock-po`); `None`
    /// otherwise, and [`Dynamic`] computes them for each execution.
    pub lockless_fences: Option<Fences<W>>,
    /// The number of pairs of writes to the same location, which a complete `co` orders.
    pub co_pairs: usize,
    /// The flags of [`FLAGS`] that the thread paths alone raise (the others are false
    /// here, and [`flags`] works them out for each execution).
    pub path_flags: [bool; FLAGS.len()],
    /// The unmatched-lock check passes.
    pub unmatched_locks_ok: bool,
    /// The lock-nest check passes.
    pub lock_nest_ok: bool,
    /// The nested-is-locked check passes.
    pub nested_is_locked_ok: bool,
}

impl<W: Width> Fixed<W> {
    /// Computes the path-only parts of the model for `x`.
    pub fn new(x: &Execution<W>, s: &Sets<W>) -> Fixed<W> {
        let n = s.n;
        let po = x.po.clone();
        let loc = x.loc();
        let po_loc = po.inter(&loc);
        let lk_rmw = lk_rmw(x, s);
        let rmw = x.rmw.union(&lk_rmw);
        let critical = critical(x, s);
        let t = |tag| x.tagged(tag);

        // lock.cat's checks.
        let ul_between = po_loc.restrict_range(&s.ul).seq(&po_loc);
        let lock_nest_ok = po_loc
            .restrict(&s.lkw, &s.lkr)
            .minus(&ul_between)
            .is_empty();
        let nested_is_locked_ok = po_loc.restrict(&s.lkw, &s.ru).minus(&ul_between).is_empty();
        let unmatched_lkw = s.lkw.clone() - critical.domain();
        let unmatched_locks_ok = loc
            .restrict(&unmatched_lkw, &unmatched_lkw)
            .minus(&Relation::identity(n))
            .is_empty();

        let acq_po = po.restrict(&s.acquire, &s.m);
        let po_rel = po.restrict(&s.m, &s.release);
        let fencerel_rmb = fencerel(&po, t(Tag::Rmb));
        let rmb = fencerel_rmb.restrict(&s.r4rmb, &s.r4rmb);
        let wmb = fencerel(&po, t(Tag::Wmb)).restrict(&s.w, &s.w);
        let po_opt = po.optional();
        let mut mb_static = fencerel(&po, s.mb.clone()).restrict(&s.m, &s.m);
        mb_static.union_with(&po.restrict(&s.m, &(s.mb.clone() & s.r.clone())));
        mb_static.union_with(&po.restrict(&(s.mb.clone() & s.w.clone()), &s.m));
        // [M] ; fencerel(Before-atomic) ; [RMW] ; po? ; [M]
        mb_static.union_with(
            &fencerel(&po, t(Tag::BeforeAtomic))
                .restrict(&s.m, &s.rmw_events)
                .seq(&po_opt)
                .restrict_range(&s.m),
        );
        // [M] ; po? ; [RMW] ; fencerel(After-atomic) ; [M]
        mb_static.union_with(
            &po_opt
                .restrict(&s.m, &s.rmw_events)
                .seq(&fencerel(&po, t(Tag::AfterAtomic)))
                .restrict_range(&s.m),
        );
        // [M] ; po? ; [LKW] ; fencerel(After-spinlock) ; [M]
        mb_static.union_with(
            &po_opt
                .restrict(&s.m, &s.lkw)
                .seq(&fencerel(&po, t(Tag::AfterSpinlock)))
                .restrict_range(&s.m),
        );
        // [M] ; po? ; [Srcu-unlock] ; fencerel(After-srcu-read-unlock) ; [M]
        mb_static.union_with(
            &po_opt
                .restrict(&s.m, &s.srcu_unlock)
                .seq(&fencerel(&po, t(Tag::AfterSrcuReadUnlock)))
                .restrict_range(&s.m),
        );
        let gp = po
            .restrict_range(&(s.sync_rcu.clone() | s.sync_srcu.clone()))
            .seq(&po_opt);

        let barrier_set = t(Tag::Barrier)
            | t(Tag::Rmb)
            | t(Tag::Wmb)
            | s.mb.clone()
            | s.sync_rcu.clone()
            | s.sync_srcu.clone()
            | t(Tag::BeforeAtomic)
            | t(Tag::AfterAtomic)
            | s.acquire.clone()
            | s.release.clone()
            | t(Tag::RcuLock)
            | t(Tag::RcuUnlock)
            | s.srcu_lock.clone()
            | s.srcu_unlock.clone();
        let mut barrier = fencerel(&po, barrier_set);
        barrier.union_with(&po.restrict_range(&s.release));
        barrier.union_with(&po.restrict_domain(&s.acquire));

        let rcu_rscs = rcu_rscs(&po, t(Tag::RcuLock), t(Tag::RcuUnlock));
        let ext = x.ext();
        let pre_race = {
            let plain_any = Relation::cartesian(n, &s.plain, &s.m);
            let any_plain = Relation::cartesian(n, &(s.m.clone() - s.iw.clone()), &s.plain);
            plain_any.union(&any_plain).inter(&ext).inter(&loc)
        };
        let mixed_accesses = {
            let po_loc_nb = po_loc.minus(&barrier);
            let plain_w = s.plain.clone() & s.w.clone();
            !po_loc_nb.restrict(&plain_w, &s.marked).is_empty()
                || !po_loc_nb.restrict(&s.marked, &plain_w).is_empty()
        };
        // In the order of FLAGS; the SRCU flags, lock-final and data-race depend on the
        // execution.
        let path_flags = [
            !(t(Tag::RcuLock) - rcu_rscs.domain()).is_empty(),
            !(t(Tag::RcuUnlock) - rcu_rscs.range()).is_empty(),
            false,
            false,
            false,
            !rcu_rscs
                .inter(&fencerel(&po, s.sync_srcu.clone()))
                .is_empty(),
            false,
            !loc.restrict(
                &(s.m.clone() - s.iw.clone() - s.all_locks.clone()),
                &s.all_locks,
            )
            .is_empty(),
            !(s.lkw.clone() - lk_rmw.range()).is_empty(),
            !(s.lkr.clone() - lk_rmw.domain()).is_empty(),
            false,
            !(s.ul.clone() - critical.range()).is_empty(),
            mixed_accesses,
            false,
        ];

        let mut fixed = Fixed {
            lockless_fences: None,
            rcu_rscs,
            int: x.int(),
            ext,
            pre_race,
            co_pairs: co_pairs(x),
            path_flags,
            po,
            loc,
            po_loc,
            rmw,
            lk_rmw,
            critical,
            acq_po,
            po_rel,
            rmb,
            wmb,
            mb_static,
            gp,
            barrier,
            fencerel_rmb,
            unmatched_locks_ok,
            lock_nest_ok,
            nested_is_locked_ok,
        };
        // po-unlock-lock-po, the fences' one term that depends on rf, needs both an unlock
        // and a lock read.
        if s.ul.is_empty() || s.lkr.is_empty() {
            fixed.lockless_fences = Some(Fences::new(x, s, &fixed, &Relation::empty(n)));
        }
        fixed
    }
}

/// bell's `rcu-rscs`: the least fixpoint that matches each `rcu_read_lock()` with the
/// po-next `rcu_read_unlock()` that no unmatched pair separates, innermost pairs first.
pub fn rcu_rscs<W: Width>(
    po: &Relation<W>,
    locks: EventSet<W>,
    unlocks: EventSet<W>,
) -> Relation<W> {
    let mut matched = Relation::empty(po.size());
    loop {
        let unmatched_locks = locks.clone() - matched.domain();
        let unmatched_unlocks = unlocks.clone() - matched.range();
        let unmatched = unmatched_locks.clone() | unmatched_unlocks.clone();
        let unmatched_po = po.restrict(&unmatched, &unmatched);
        let l2u = po.restrict(&unmatched_locks, &unmatched_unlocks);
        let next = matched.union(&l2u.minus(&unmatched_po.seq(&unmatched_po)));
        if next == matched {
            return matched;
        }
        matched = next;
    }
}

/// cat's fences, which depend on `rf` only through `po-unlock-lock-po`: computed once per
/// combination of paths for a test without lock events ([`Fixed::lockless_fences`]), and
/// for each execution otherwise.
#[derive(Clone, Debug)]
pub struct Fences<W: Width = Words<1>> {
    /// cat's `strong-fence = mb | gp`, before the RCU extension.
    pub strong: Relation<W>,
    /// cat's `nonrw-fence = strong-fence | po-rel | acq-po`.
    pub nonrw: Relation<W>,
    /// cat's `fence = nonrw-fence | wmb | rmb`, before the RCU extension.
    pub all: Relation<W>,
    /// `fence & int`, ppo's term.
    pub internal: Relation<W>,
    /// `strong-fence | po-rel`, the argument of cumul-fence's `A-cumul`.
    pub strong_or_release: Relation<W>,
}

impl<W: Width> Fences<W> {
    /// The fences of `x`, given its `po-unlock-lock-po`.
    pub fn new(
        x: &Execution<W>,
        s: &Sets<W>,
        f: &Fixed<W>,
        po_unlock_lock_po: &Relation<W>,
    ) -> Fences<W> {
        let mut mb = f.mb_static.clone();
        if !po_unlock_lock_po.is_empty() {
            mb.union_with(
                &po_unlock_lock_po
                    .restrict(&s.m, &x.tagged(Tag::AfterUnlockLock))
                    .seq(&f.po)
                    .restrict_range(&s.m),
            );
        }
        let strong = mb.union(&f.gp);
        let nonrw = strong.union(&f.po_rel).union(&f.acq_po);
        let all = nonrw.union(&f.wmb).union(&f.rmb);
        Fences {
            internal: all.inter(&f.int),
            strong_or_release: strong.union(&f.po_rel),
            strong,
            nonrw,
            all,
        }
    }
}

/// The relations of the model that depend on `rf` and `co`.
#[derive(Clone, Debug)]
pub struct Dynamic<W: Width = Words<1>> {
    /// `rf`.
    pub rf: Relation<W>,
    /// `co`.
    pub co: Relation<W>,
    /// `fr = rf^-1 ; co`.
    pub fr: Relation<W>,
    /// `rfe = rf & ext`.
    pub rfe: Relation<W>,
    /// `rfi = rf & int`.
    pub rfi: Relation<W>,
    /// cat's `addr` after bell's `carry-dep`.
    pub addr: Relation<W>,
    /// cat's `data` after bell's `carry-dep`.
    pub data: Relation<W>,
    /// cat's `ctrl` after bell's `carry-dep`.
    pub ctrl: Relation<W>,
    /// bell's `srcu-rscs = ([Srcu-lock] ; carry-srcu-data ; data ; [Srcu-unlock]) & loc`.
    pub srcu_rscs: Relation<W>,
    /// cat's `po-unlock-lock-po = po ; [UL] ; (po | rf) ; [LKR] ; po`.
    pub po_unlock_lock_po: Relation<W>,
    /// The fences, before the RCU extension.
    pub fences: Fences<W>,
    /// cat's `ppo = to-r | to-w | (fence & int) | (po-unlock-lock-po & int)`.
    pub ppo: Relation<W>,
    /// cat's `rmw-sequence = (rf ; rmw)*`.
    pub rmw_sequence: Relation<W>,
    /// cat's `cumul-fence = [Marked] ; (A-cumul(strong-fence | po-rel) | wmb |
    /// po-unlock-lock-po) ; [Marked] ; rmw-sequence`.
    pub cumul_fence: Relation<W>,
    /// cat's `prop = [Marked] ; (overwrite & ext)? ; cumul-fence* ; [Marked] ; rfe? ;
    /// [Marked]`.
    pub prop: Relation<W>,
    /// cat's `hb = [Marked] ; (ppo | rfe | ((prop \ id) & int)) ; [Marked]`.
    pub hb: Relation<W>,
    /// cat's `pb = prop ; strong-fence ; hb* ; [Marked]`.
    pub pb: Relation<W>,
    /// cat's `rcu-fence = po ; rcu-order ; po?`.
    pub rcu_fence: Relation<W>,
    /// cat's `rb = prop ; rcu-fence ; hb* ; pb* ; [Marked]`.
    pub rb: Relation<W>,
    /// cat's `com = rf | co | fr`.
    pub com: Relation<W>,
}

impl<W: Width> Dynamic<W> {
    /// Computes the relations of `x` that depend on `rf` and `co`, or names the first
    /// check of `linux-kernel.cat` that fails (coherence, atomic, happens-before,
    /// propagation, rcu, in herd7's order; plain-coherence is
    /// [`PlainRelations::coherent`]).
    ///
    /// Each check runs as soon as the relations it needs exist, so a rejected execution
    /// costs only the relations up to its first failing check.
    pub fn new(x: &Execution<W>, s: &Sets<W>, f: &Fixed<W>) -> Result<Dynamic<W>, &'static str> {
        Ok(Dynamic::checked(x, s, f, true)?.expect("kept"))
    }

    /// Runs the checks of [`Dynamic::new`], and returns the relations only when `keep` is
    /// set: a caller that needs the verdict alone saves building (and moving) them.
    fn checked(
        x: &Execution<W>,
        s: &Sets<W>,
        f: &Fixed<W>,
        keep: bool,
    ) -> Result<Option<Dynamic<W>>, &'static str> {
        let n = s.n;
        let (rf, co) = (&x.rf, &x.co);
        let fr = rf.inverse().seq(co);
        let com = rf.union(co).union(&fr);
        // acyclic po-loc | com as coherence
        if !f.po_loc.union(&com).is_acyclic() {
            return Err("coherence");
        }
        // empty rmw & (fre ; coe) as atomic
        let fre = fr.inter(&f.ext);
        let coe = co.inter(&f.ext);
        if !f.rmw.inter(&fre.seq(&coe)).is_empty() {
            return Err("atomic");
        }
        let rfe = rf.inter(&f.ext);
        let rfi = rf.inter(&f.int);
        let marked = s.marked.clone();

        // bell: srcu-rscs, then carry-dep.  Both are skipped when their inputs are empty,
        // as they are in most tests.
        let not_srcu_unlock = EventSet::full(n) - s.srcu_unlock.clone();
        let srcu_rscs = if s.srcu_lock.is_empty() || s.srcu_unlock.is_empty() {
            Relation::empty(n)
        } else {
            let carry_srcu_data = x.data.restrict_range(&not_srcu_unlock).seq(rf).star();
            carry_srcu_data
                .restrict_domain(&s.srcu_lock)
                .seq(&x.data.restrict_range(&s.srcu_unlock))
                .inter(&f.loc)
        };
        // Without data dependencies carry-dep is the identity, and the dependencies are
        // the paths' own, borrowed.
        let carry_base = if x.data.is_empty() {
            None
        } else {
            Some(x.data.restrict_range(&not_srcu_unlock).seq(&rfi)).filter(|c| !c.is_empty())
        };
        let (addr, data, ctrl) = match carry_base {
            None => (
                Cow::Borrowed(&x.addr),
                Cow::Borrowed(&x.data),
                Cow::Borrowed(&x.ctrl),
            ),
            Some(carry_base) => {
                let carry_dep = carry_base.star();
                (
                    Cow::Owned(carry_dep.seq(&x.addr)),
                    Cow::Owned(carry_dep.seq(&x.data)),
                    Cow::Owned(carry_dep.seq(&x.ctrl)),
                )
            }
        };

        // Fences.
        let po_unlock_lock_po = if s.ul.is_empty() || s.lkr.is_empty() {
            Relation::empty(n)
        } else {
            let po_or_rf = f.po.union(rf);
            f.po.restrict_range(&s.ul)
                .seq(&po_or_rf.restrict_range(&s.lkr))
                .seq(&f.po)
        };
        // Without lock events they depend on the paths alone, and `Fixed` has them.
        let with_locks;
        let fences = match &f.lockless_fences {
            Some(fences) => fences,
            None => {
                with_locks = Fences::new(x, s, f, &po_unlock_lock_po);
                &with_locks
            }
        };
        let strong_fence = &fences.strong;

        // Preserved program order: to-w, to-r and the fences, each term built only when
        // its relations have a pair.
        let overwrite = co.union(&fr);
        // to-w = rwdep | (overwrite & int) | (addr ; [Plain] ; wmb)
        let mut ppo = overwrite.inter(&f.int);
        if !(addr.is_empty() && data.is_empty() && ctrl.is_empty()) {
            let dep = addr.union(&data);
            // rwdep = (dep | ctrl) ; [W]
            ppo.union_with(&dep.union(&ctrl).restrict_range(&s.w));
            if !addr.is_empty() {
                ppo.union_with(&addr.restrict_range(&s.plain).seq(&f.wmb));
                // to-r = (addr ; [R]) | ((dep ; [Marked]) ; rfi)
                ppo.union_with(&addr.restrict_range(&s.r));
            }
            ppo.union_with(&dep.restrict_range(&marked).seq(&rfi));
        }
        ppo.union_with(&fences.internal);
        if !po_unlock_lock_po.is_empty() {
            ppo.union_with(&po_unlock_lock_po.inter(&f.int));
        }

        // Propagation.
        let a_cumul = |r: &Relation<W>| rfe.restrict_range(&marked).optional_seq(r);
        let rf_rmw = rf.seq(&f.rmw);
        let rmw_sequence = if rf_rmw.is_empty() {
            Relation::identity(n)
        } else {
            rf_rmw.star()
        };
        let mut cumul_inner = a_cumul(&fences.strong_or_release);
        cumul_inner.union_with(&f.wmb);
        cumul_inner.union_with(&po_unlock_lock_po);
        let cumul_fence = cumul_inner.restrict(&marked, &marked).seq(&rmw_sequence);
        let mut prop = overwrite.inter(&f.ext).optional_seq(&cumul_fence.star());
        prop.retain_domain(&marked);
        prop.retain_range(&marked);
        let mut prop = prop.seq_optional(&rfe);
        prop.retain_range(&marked);

        // Happens-before and propagation.
        let mut hb = ppo.union(&rfe);
        let mut prop_int = prop.inter(&f.int);
        prop_int.remove_identity();
        hb.union_with(&prop_int);
        let hb = hb.restrict(&marked, &marked);
        // Every term of rcu-order holds a grace period, so without one rcu-fence and rb
        // are empty; without a strong fence, so is pb. hb's closure is needed only for
        // them.
        let rcu = !(s.sync_rcu.clone() | s.sync_srcu.clone()).is_empty();
        let closure = rcu || !strong_fence.is_empty();
        // acyclic hb as happens-before
        let hb_plus = if closure {
            let Some(hb_plus) = hb.plus_if_acyclic() else {
                return Err("happens-before");
            };
            Some(hb_plus)
        } else if hb.is_acyclic() {
            None
        } else {
            return Err("happens-before");
        };
        let pb = match &hb_plus {
            Some(hb_plus) if !strong_fence.is_empty() => {
                let mut pb = prop.seq(strong_fence).seq_optional(hb_plus);
                pb.retain_range(&marked);
                pb
            }
            _ => Relation::empty(n),
        };
        // acyclic pb as propagation
        if !pb.is_acyclic() {
            return Err("propagation");
        }

        // RCU.
        let (rcu_fence, rb) = if !rcu {
            (Relation::empty(n), Relation::empty(n))
        } else {
            let hb_star = hb_plus.expect("built with a grace period").optional();
            let pb_star = pb.star();
            let rcu_link =
                f.po.optional()
                    .seq(&hb_star)
                    .seq(&pb_star)
                    .seq(&prop)
                    .seq(&f.po);
            let rcu_order = rcu_order(
                &rcu_link,
                &f.rcu_rscs.inverse(),
                &srcu_rscs.inverse(),
                s.sync_rcu.clone(),
                s.sync_srcu.clone(),
                &f.loc,
            );
            let rcu_fence = f.po.seq(&rcu_order).seq(&f.po.optional());
            let rb = prop
                .seq(&rcu_fence)
                .seq(&hb_star)
                .seq(&pb_star)
                .restrict_range(&marked);
            (rcu_fence, rb)
        };
        // irreflexive rb as rcu
        if !rb.is_irreflexive() {
            return Err("rcu");
        }

        if !keep {
            return Ok(None);
        }
        Ok(Some(Dynamic {
            rf: rf.clone(),
            co: co.clone(),
            fr,
            rfe,
            rfi,
            addr: addr.into_owned(),
            data: data.into_owned(),
            ctrl: ctrl.into_owned(),
            srcu_rscs,
            po_unlock_lock_po,
            fences: fences.clone(),
            ppo,
            rmw_sequence,
            cumul_fence,
            prop,
            hb,
            pb,
            rcu_fence,
            rb,
            com,
        }))
    }
}

/// cat's recursive `rcu-order`, as a least fixpoint: sequences of grace periods and
/// read-side critical sections (each unlock-to-lock, `rcu-rscsi`), joined by `rcu-link`,
/// with at least as many grace periods as critical sections; SRCU terms only pair events
/// of the same `srcu_struct` (`& loc`).
///
/// # Complexity
/// Each round is a handful of compositions, O(n³ / 128) word operations; a round only adds
/// pairs, so there are at most n² rounds and in practice two or three.
pub fn rcu_order<W: Width>(
    link: &Relation<W>,
    rcu_rscsi: &Relation<W>,
    srcu_rscsi: &Relation<W>,
    sync_rcu: EventSet<W>,
    sync_srcu: EventSet<W>,
    loc: &Relation<W>,
) -> Relation<W> {
    let n = link.size();
    // rcu-gp ; rcu-link and rcu-link ; rcu-gp, and the same for srcu-gp.
    let gp_link = link.restrict_domain(&sync_rcu);
    let sgp_link = link.restrict_domain(&sync_srcu);
    let link_gp = link.restrict_range(&sync_rcu);
    let link_sgp = link.restrict_range(&sync_srcu);
    let rscsi_link = rcu_rscsi.seq(link);
    let srscsi_link = srcu_rscsi.seq(link);
    let link_rscsi = link.seq(rcu_rscsi);
    let link_srscsi = link.seq(srcu_rscsi);

    let mut base = Relation::id_on(n, &(sync_rcu.clone() | sync_srcu.clone()));
    base.union_with(&gp_link.seq(rcu_rscsi));
    base.union_with(&sgp_link.seq(srcu_rscsi).inter(loc));
    base.union_with(&rscsi_link.restrict_range(&sync_rcu));
    base.union_with(&srscsi_link.restrict_range(&sync_srcu).inter(loc));

    let mut order = base.clone();
    loop {
        let mut next = base.clone();
        next.union_with(&gp_link.seq(&order).seq(&link_rscsi));
        next.union_with(&sgp_link.seq(&order).seq(&link_srscsi).inter(loc));
        next.union_with(&rscsi_link.seq(&order).seq(&link_gp));
        next.union_with(&srscsi_link.seq(&order).seq(&link_sgp).inter(loc));
        next.union_with(&order.seq(link).seq(&order));
        next.union_with(&order);
        if next == order {
            return order;
        }
        order = next;
    }
}

/// The relations of the plain-access part of `linux-kernel.cat`: executes-before,
/// visibility, the lifetimes of plain accesses and the races.
///
/// Every relation here is only needed when the execution has a potential race
/// (`pre-race`, a plain access and another access to the same location in other threads);
/// when it has none, the constructor stops early and every relation is empty.
#[derive(Clone, Debug)]
pub struct PlainRelations<W: Width = Words<1>> {
    /// cat's `pre-race = ext & ((Plain * M) | ((M \ IW) * Plain))`, restricted to `loc`
    /// (every use intersects it with `rf`, `co` or `fr`).
    pub pre_race: Relation<W>,
    /// cat's `wr-incoh | rw-incoh | ww-incoh`: plain accesses that break coherence.
    pub incoherent: Relation<W>,
    /// cat's `ww-race | wr-race | rw-race`.
    pub race: Relation<W>,
}

impl<W: Width> PlainRelations<W> {
    /// Computes the plain-access relations.
    pub fn new(s: &Sets<W>, f: &Fixed<W>, d: &Dynamic<W>) -> PlainRelations<W> {
        let n = s.n;
        let pre_race = f.pre_race.clone();
        if pre_race.is_empty() {
            return PlainRelations {
                incoherent: pre_race.clone(),
                race: pre_race.clone(),
                pre_race,
            };
        }
        let marked = s.marked.clone();
        let xbstar = d.hb.union(&d.pb).union(&d.rb).star();
        // The fence and strong-fence of the cat file after `rcu-fence` joins them.
        let fence = d.fences.all.union(&d.rcu_fence);
        let strong_fence = d.fences.strong.union(&d.rcu_fence);

        // vis = cumul-fence* ; rfe? ; [Marked] ;
        //       ((strong-fence ; [Marked] ; xbstar) | (xbstar & int))
        let vis = d
            .cumul_fence
            .star()
            .seq(&d.rfe.optional())
            .restrict_range(&marked)
            .seq(
                &strong_fence
                    .restrict_range(&marked)
                    .seq(&xbstar)
                    .union(&xbstar.inter(&f.int)),
            );
        let not_noreturn = EventSet::full(n) - s.noreturn.clone();
        let w_pre_bounded = d.addr.union(&fence).optional().restrict_domain(&marked);
        let mut r_pre_inner = d.addr.union(&d.fences.nonrw);
        r_pre_inner.union_with(&f.fencerel_rmb.restrict(&s.r4rmb, &not_noreturn));
        let r_pre_bounded = r_pre_inner.optional().restrict_domain(&marked);
        let w_post_bounded = fence
            .optional()
            .restrict_range(&marked)
            .seq(&d.rmw_sequence);
        let r_post_bounded = d
            .fences
            .nonrw
            .union(&f.fencerel_rmb.restrict(&not_noreturn, &s.r4rmb))
            .optional()
            .restrict_range(&marked);

        let strong_xb = strong_fence.seq(&xbstar);
        let post_vis = w_post_bounded.seq(&vis);
        let mut ww_vis = fence.union(&strong_xb.seq(&w_pre_bounded));
        ww_vis.union_with(&post_vis.seq(&w_pre_bounded));
        let mut wr_vis = fence.union(&strong_xb.seq(&r_pre_bounded));
        wr_vis.union_with(&post_vis.seq(&r_pre_bounded));
        let rw_xbstar = fence.union(&r_post_bounded.seq(&xbstar).seq(&w_pre_bounded));

        let pre_rf = pre_race.inter(&d.rf);
        let pre_fr = pre_race.inter(&d.fr);
        let pre_co = pre_race.inter(&d.co);
        let mut incoherent = pre_rf.inter(&rw_xbstar.inverse());
        incoherent.union_with(&pre_fr.inter(&wr_vis.inverse()));
        incoherent.union_with(&pre_co.inter(&ww_vis.inverse()));

        let marked_w = Relation::cartesian(n, &marked, &s.w);
        let w_marked = Relation::cartesian(n, &s.w, &marked);
        let ww_nonrace = ww_vis
            .inter(&marked_w.union(&rw_xbstar))
            .inter(&w_marked.union(&wr_vis));
        let mut race = pre_co.minus(&ww_nonrace);
        race.union_with(
            &pre_race
                .inter(&d.co.optional().seq(&d.rf))
                .minus(&wr_vis)
                .minus(&rw_xbstar.inverse()),
        );
        race.union_with(&pre_fr.minus(&rw_xbstar));
        PlainRelations {
            pre_race,
            incoherent,
            race,
        }
    }

    /// `empty (wr-incoh | rw-incoh | ww-incoh) as plain-coherence`.
    pub fn coherent(&self) -> bool {
        self.incoherent.is_empty()
    }
}

/// Where the flags that depend on the execution sit in [`FLAGS`].
const UNMATCHED_SRCU_LOCK: usize = 2;
const UNMATCHED_SRCU_UNLOCK: usize = 3;
const MULTIPLE_SRCU_MATCHES: usize = 4;
const SRCU_BAD_VALUE_MATCH: usize = 6;
const LOCK_FINAL: usize = 10;
const DATA_RACE: usize = 13;

/// The flags the thread paths raise ([`Fixed::path_flags`]) with `lock-final`, which the
/// locations the test shows decide.
fn path_and_final_flags<W: Width>(
    x: &Execution<W>,
    s: &Sets<W>,
    f: &Fixed<W>,
) -> [bool; FLAGS.len()] {
    let mut raised = f.path_flags;
    raised[LOCK_FINAL] = lock_final(x, s);
    raised
}

/// The flags an allowed execution raises when it has no potential race
/// (`Fixed::pre_race` is empty) and no SRCU event: [`flags`] without the relations it
/// would not read.
fn flags_without_plain_or_srcu<W: Width>(
    x: &Execution<W>,
    s: &Sets<W>,
    f: &Fixed<W>,
) -> Vec<&'static str> {
    raised_names(path_and_final_flags(x, s, f))
}

fn raised_names(raised: [bool; FLAGS.len()]) -> Vec<&'static str> {
    FLAGS
        .iter()
        .zip(raised)
        .filter(|(_, on)| *on)
        .map(|(name, _)| *name)
        .collect()
}

/// The flags an allowed execution raises, in the order of [`FLAGS`].
pub fn flags<W: Width>(
    x: &Execution<W>,
    s: &Sets<W>,
    f: &Fixed<W>,
    d: &Dynamic<W>,
    p: &PlainRelations<W>,
) -> Vec<&'static str> {
    let mut raised = path_and_final_flags(x, s, f);
    if !(s.srcu_lock.clone() | s.srcu_unlock.clone()).is_empty() {
        let value = |e: usize| x.events[e].value;
        let id = Relation::identity(s.n);
        raised[UNMATCHED_SRCU_LOCK] = !(s.srcu_lock.clone() - d.srcu_rscs.domain()).is_empty();
        raised[UNMATCHED_SRCU_UNLOCK] = !(s.srcu_unlock.clone() - d.srcu_rscs.range()).is_empty();
        raised[MULTIPLE_SRCU_MATCHES] = !d
            .srcu_rscs
            .inverse()
            .seq(&d.srcu_rscs)
            .minus(&id)
            .is_empty();
        raised[SRCU_BAD_VALUE_MATCH] = d.srcu_rscs.pairs().any(|(a, b)| value(a) != value(b));
    }
    raised[DATA_RACE] = !p.race.is_empty();
    raised_names(raised)
}

/// `lock.cat`'s `flag ~empty [FW] ; loc ; [ALL-LOCKS] as lock-final`: the test shows the
/// final value of a location used as a lock (or an SRCU structure).
///
/// herd7's `FW` holds the final writes of the locations its final state shows, and every
/// such location has one (its initial write at least), so the flag is raised exactly when
/// a shown location carries a lock event.
fn lock_final<W: Width>(x: &Execution<W>, s: &Sets<W>) -> bool {
    s.all_locks.iter().any(|l| {
        x.events[l]
            .loc
            .is_some_and(|loc| x.observed.contains(loc.0 as usize))
    })
}

/// Whether `e` is a lock event of `lock.cat` (LKR, LKW, UL, LF, RL or RU).
pub fn is_lock_event(e: &Event) -> bool {
    [Tag::Lkr, Tag::Lkw, Tag::Ul, Tag::Lf, Tag::Rl, Tag::Ru]
        .into_iter()
        .any(|t| e.has(t))
}

/// The kind an event of a `lock.cat` class has in an [`Execution`]: LKR, LF, RL and RU
/// read the lock, LKW and UL write it.
pub fn lock_event_kind(tag: Tag) -> Option<EventKind> {
    match tag {
        Tag::Lkr | Tag::Lf | Tag::Rl | Tag::Ru => Some(EventKind::Read),
        Tag::Lkw | Tag::Ul => Some(EventKind::Write),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::event::{Loc, Tags, Value};

    /// A hand-built execution: events in creation order, po by thread.
    struct Builder {
        events: Vec<Event>,
        rf: Vec<(usize, usize)>,
        co: Vec<Vec<usize>>,
        rmw: Vec<(usize, usize)>,
        data: Vec<(usize, usize)>,
        addr: Vec<(usize, usize)>,
        /// The initial writes of the locations the final state shows.
        observed: Vec<usize>,
    }

    const X: Loc = Loc(0);
    const Y: Loc = Loc(1);
    const L: Loc = Loc(2);

    impl Builder {
        /// Initial writes of `locs` locations.
        fn new(locs: u32) -> Builder {
            let events = (0..locs)
                .map(|l| Event {
                    thread: None,
                    kind: EventKind::Write,
                    loc: Some(Loc(l)),
                    value: Value::Int(0),
                    tags: Tags::of(&[Tag::Init]),
                    source: None,
                })
                .collect();
            Builder {
                events,
                rf: vec![],
                co: vec![],
                rmw: vec![],
                data: vec![],
                addr: vec![],
                observed: vec![],
            }
        }

        fn ev(
            &mut self,
            thread: usize,
            kind: EventKind,
            loc: Option<Loc>,
            v: i64,
            tags: &[Tag],
        ) -> usize {
            self.events.push(Event {
                thread: Some(thread),
                kind,
                loc,
                value: Value::Int(v),
                tags: Tags::of(tags),
                source: None,
            });
            self.events.len() - 1
        }

        fn w(&mut self, thread: usize, loc: Loc, v: i64, tags: &[Tag]) -> usize {
            self.ev(thread, EventKind::Write, Some(loc), v, tags)
        }

        fn r(&mut self, thread: usize, loc: Loc, v: i64, tags: &[Tag]) -> usize {
            self.ev(thread, EventKind::Read, Some(loc), v, tags)
        }

        fn f(&mut self, thread: usize, tag: Tag) -> usize {
            self.ev(thread, EventKind::Fence, None, 0, &[tag])
        }

        fn build(&self) -> Execution {
            let n = self.events.len();
            let po = Relation::from_fn(n, |a, b| {
                let (ea, eb) = (&self.events[a], &self.events[b]);
                ea.thread.is_some() && ea.thread == eb.thread && a < b
            });
            let mut co = Relation::empty(n);
            for chain in &self.co {
                for (i, &a) in chain.iter().enumerate() {
                    for &b in &chain[i + 1..] {
                        co.add(a, b);
                    }
                }
            }
            Execution {
                events: self.events.clone(),
                po,
                rf: Relation::from_pairs(n, self.rf.iter().copied()),
                co,
                rmw: Relation::from_pairs(n, self.rmw.iter().copied()),
                addr: Relation::from_pairs(n, self.addr.iter().copied()),
                data: Relation::from_pairs(n, self.data.iter().copied()),
                ctrl: Relation::empty(n),
                observed: self.observed.iter().copied().collect(),
            }
        }
    }

    fn judge(b: &Builder) -> Judgement {
        Lkmm.judge(&b.build())
    }

    /// SB: each thread writes one location and reads the other, both reads see 0.
    fn store_buffering(fence: Option<Tag>) -> Builder {
        let mut b = Builder::new(2);
        let wx = b.w(0, X, 1, &[Tag::Once]);
        if let Some(t) = fence {
            b.f(0, t);
        }
        let ry = b.r(0, Y, 0, &[Tag::Once]);
        let wy = b.w(1, Y, 1, &[Tag::Once]);
        if let Some(t) = fence {
            b.f(1, t);
        }
        let rx = b.r(1, X, 0, &[Tag::Once]);
        b.rf = vec![(1, ry), (0, rx)];
        b.co = vec![vec![0, wx], vec![1, wy]];
        b
    }

    #[test]
    fn the_flags_set_per_execution_are_where_flags_names_them() {
        let at = |i: usize| FLAGS[i];
        assert_eq!(at(UNMATCHED_SRCU_LOCK), "unmatched-srcu-lock");
        assert_eq!(at(UNMATCHED_SRCU_UNLOCK), "unmatched-srcu-unlock");
        assert_eq!(at(MULTIPLE_SRCU_MATCHES), "multiple-srcu-matches");
        assert_eq!(at(SRCU_BAD_VALUE_MATCH), "srcu-bad-value-match");
        assert_eq!(at(LOCK_FINAL), "lock-final");
        assert_eq!(at(DATA_RACE), "data-race");
    }

    #[test]
    fn store_buffering_needs_full_fences() {
        assert!(judge(&store_buffering(None)).allowed());
        assert!(judge(&store_buffering(Some(Tag::Wmb))).allowed());
        assert!(judge(&store_buffering(Some(Tag::Rmb))).allowed());
        let j = judge(&store_buffering(Some(Tag::Mb)));
        assert_eq!(j.rejected_by, Some("propagation"));
    }

    /// MP: P0 writes x then y, P1 reads y=1 then x=0.
    fn message_passing(
        w_fence: Option<Tag>,
        r_fence: Option<Tag>,
        wtag: Tag,
        rtag: Tag,
    ) -> Builder {
        let mut b = Builder::new(2);
        let wx = b.w(0, X, 1, &[Tag::Once]);
        if let Some(t) = w_fence {
            b.f(0, t);
        }
        let wy = b.w(0, Y, 1, &[wtag]);
        let ry = b.r(1, Y, 1, &[rtag]);
        if let Some(t) = r_fence {
            b.f(1, t);
        }
        let rx = b.r(1, X, 0, &[Tag::Once]);
        b.rf = vec![(wy, ry), (0, rx)];
        b.co = vec![vec![0, wx], vec![1, wy]];
        b
    }

    #[test]
    fn message_passing_needs_ordering_on_both_sides() {
        let once = Tag::Once;
        assert!(judge(&message_passing(None, None, once, once)).allowed());
        assert!(judge(&message_passing(Some(Tag::Wmb), None, once, once)).allowed());
        assert!(judge(&message_passing(None, Some(Tag::Rmb), once, once)).allowed());
        let fenced = judge(&message_passing(Some(Tag::Wmb), Some(Tag::Rmb), once, once));
        assert_eq!(fenced.rejected_by, Some("happens-before"));
        let rel_acq = judge(&message_passing(None, None, Tag::Release, Tag::Acquire));
        assert_eq!(rel_acq.rejected_by, Some("happens-before"));
        // An acquire annotation on the writing side orders nothing.
        assert!(judge(&message_passing(None, None, Tag::Acquire, Tag::Acquire)).allowed());
    }

    #[test]
    fn coherence_forbids_reading_backwards() {
        // CoRR: P1 reads x=1 then x=0 while P0 writes x=1.
        let mut b = Builder::new(1);
        let wx = b.w(0, X, 1, &[Tag::Once]);
        let r1 = b.r(1, X, 1, &[Tag::Once]);
        let r2 = b.r(1, X, 0, &[Tag::Once]);
        b.rf = vec![(wx, r1), (0, r2)];
        b.co = vec![vec![0, wx]];
        assert_eq!(judge(&b).rejected_by, Some("coherence"));
        b.rf = vec![(0, r1), (wx, r2)];
        assert!(judge(&b).allowed());
    }

    /// Two xchg() on x that both read the initial value.
    fn two_exchanges(second_reads_first: bool) -> Builder {
        let mut b = Builder::new(1);
        let r0 = b.r(0, X, 0, &[Tag::Mb, Tag::Rmw]);
        let w0 = b.w(0, X, 1, &[Tag::Mb, Tag::Rmw]);
        let r1 = b.r(
            1,
            X,
            if second_reads_first { 1 } else { 0 },
            &[Tag::Mb, Tag::Rmw],
        );
        let w1 = b.w(1, X, 2, &[Tag::Mb, Tag::Rmw]);
        b.rmw = vec![(r0, w0), (r1, w1)];
        b.rf = vec![(0, r0), (if second_reads_first { w0 } else { 0 }, r1)];
        b.co = vec![vec![0, w0, w1]];
        b
    }

    #[test]
    fn atomicity_of_read_modify_writes() {
        assert_eq!(judge(&two_exchanges(false)).rejected_by, Some("atomic"));
        assert!(judge(&two_exchanges(true)).allowed());
    }

    #[test]
    fn failed_rmw_loses_its_annotations() {
        // SB with a failed cmpxchg() on a third location between each thread's write and
        // read: a lone read tagged MB and RMW, which orders nothing.
        let mut b = Builder::new(3);
        let wx = b.w(0, X, 1, &[Tag::Once]);
        let f0 = b.r(0, L, 0, &[Tag::Mb, Tag::Rmw]);
        let ry = b.r(0, Y, 0, &[Tag::Once]);
        let wy = b.w(1, Y, 1, &[Tag::Once]);
        let f1 = b.r(1, L, 0, &[Tag::Mb, Tag::Rmw]);
        let rx = b.r(1, X, 0, &[Tag::Once]);
        b.rf = vec![(2, f0), (2, f1), (1, ry), (0, rx)];
        b.co = vec![vec![0, wx], vec![1, wy]];
        let x = b.build();
        let sets = Sets::new(&x);
        assert!(sets.failed_rmw.contains(f0) && !sets.mb.contains(f0));
        assert!(sets.marked.contains(f0));
        assert!(judge(&b).allowed());
        // The same reads as smp_mb() fences forbid the outcome.
        for e in [f0, f1] {
            b.events[e].kind = EventKind::Fence;
            b.events[e].loc = None;
            b.events[e].tags = Tags::of(&[Tag::Mb]);
        }
        b.rf.retain(|&(_, r)| r != f0 && r != f1);
        assert_eq!(judge(&b).rejected_by, Some("propagation"));
    }

    #[test]
    fn sb_with_successful_xchg_is_fenced() {
        // SB where each thread's write is an xchg(): full barriers around the RMW.
        let mut b = Builder::new(2);
        let r0 = b.r(0, X, 0, &[Tag::Mb, Tag::Rmw]);
        let w0 = b.w(0, X, 1, &[Tag::Mb, Tag::Rmw]);
        let ry = b.r(0, Y, 0, &[Tag::Once]);
        let r1 = b.r(1, Y, 0, &[Tag::Mb, Tag::Rmw]);
        let w1 = b.w(1, Y, 1, &[Tag::Mb, Tag::Rmw]);
        let rx = b.r(1, X, 0, &[Tag::Once]);
        b.rmw = vec![(r0, w0), (r1, w1)];
        b.rf = vec![(0, r0), (1, r1), (1, ry), (0, rx)];
        b.co = vec![vec![0, w0], vec![1, w1]];
        assert_eq!(judge(&b).rejected_by, Some("propagation"));
        // The relaxed form orders nothing.
        for e in [r0, w0, r1, w1] {
            b.events[e].tags = Tags::of(&[Tag::Once, Tag::Rmw]);
        }
        assert!(judge(&b).allowed());
    }

    #[test]
    fn rcu_grace_period_waits_for_readers() {
        // P0: rcu_read_lock; r0 = x; r1 = y; rcu_read_unlock.
        // P1: y = 1; synchronize_rcu; x = 1.  Forbidden: r0 = 1 and r1 = 0.
        let mut b = Builder::new(2);
        b.f(0, Tag::RcuLock);
        let rx = b.r(0, X, 1, &[Tag::Once]);
        let ry = b.r(0, Y, 0, &[Tag::Once]);
        b.f(0, Tag::RcuUnlock);
        let wy = b.w(1, Y, 1, &[Tag::Once]);
        b.f(1, Tag::SyncRcu);
        let wx = b.w(1, X, 1, &[Tag::Once]);
        b.rf = vec![(wx, rx), (1, ry)];
        b.co = vec![vec![0, wx], vec![1, wy]];
        let j = judge(&b);
        assert_eq!(j.rejected_by, Some("rcu"));
        // Without the critical section the outcome is allowed.
        b.events[2].tags = Tags::of(&[Tag::Barrier]);
        b.events[5].tags = Tags::of(&[Tag::Barrier]);
        assert!(judge(&b).allowed());
    }

    #[test]
    fn rcu_critical_sections_match_innermost_first() {
        let mut b = Builder::new(1);
        let l1 = b.f(0, Tag::RcuLock);
        let l2 = b.f(0, Tag::RcuLock);
        let u2 = b.f(0, Tag::RcuUnlock);
        let u1 = b.f(0, Tag::RcuUnlock);
        let extra = b.f(0, Tag::RcuUnlock);
        let x = b.build();
        let m = rcu_rscs(&x.po, x.tagged(Tag::RcuLock), x.tagged(Tag::RcuUnlock));
        assert_eq!(m, Relation::from_pairs(x.len(), [(l2, u2), (l1, u1)]));
        assert_eq!(judge(&b).flags, vec!["unmatched-rcu-unlock"]);
        assert!(!m.range().contains(extra));
    }

    #[test]
    fn concurrent_plain_writes_race() {
        let mut b = Builder::new(1);
        let w0 = b.w(0, X, 1, &[]);
        let w1 = b.w(1, X, 2, &[]);
        b.co = vec![vec![0, w0, w1]];
        let j = judge(&b);
        assert!(j.allowed());
        assert_eq!(j.flags, vec!["data-race"]);
        // Marking both writes removes the race.
        for e in [w0, w1] {
            b.events[e].tags = Tags::of(&[Tag::Once]);
        }
        assert_eq!(judge(&b).flags, Vec::<&str>::new());
    }

    #[test]
    fn message_passing_protects_plain_accesses() {
        // P0: x = 1 (plain); smp_store_release(y, 1).
        // P1: r0 = smp_load_acquire(y); if r0 == 1 then r1 = x (plain).
        let mut b = Builder::new(2);
        let wx = b.w(0, X, 1, &[]);
        let wy = b.w(0, Y, 1, &[Tag::Release]);
        let ry = b.r(1, Y, 1, &[Tag::Acquire]);
        let rx = b.r(1, X, 1, &[]);
        b.rf = vec![(wy, ry), (wx, rx)];
        b.co = vec![vec![0, wx], vec![1, wy]];
        let j = judge(&b);
        assert!(j.allowed());
        assert!(j.flags.is_empty(), "{:?}", j.flags);
        // Reading the stale value is a plain-coherence violation.
        b.rf = vec![(wy, ry), (0, rx)];
        b.events[rx].value = Value::Int(0);
        assert_eq!(judge(&b).rejected_by, Some("plain-coherence"));
        // Without the release-acquire pair, the accesses race.
        b.events[wy].tags = Tags::of(&[Tag::Once]);
        b.events[ry].tags = Tags::of(&[Tag::Once]);
        b.rf = vec![(wy, ry), (wx, rx)];
        let j = judge(&b);
        assert!(j.allowed());
        assert_eq!(j.flags, vec!["data-race"]);
    }

    /// P0: spin_lock(l); x = 1; spin_unlock(l).  P1: spin_lock(l); r = x; spin_unlock(l),
    /// with P1's critical section second.
    fn two_critical_sections(r_value: i64) -> Builder {
        let mut b = Builder::new(3);
        let lkr0 = b.r(0, L, 0, &[Tag::Lkr]);
        let lkw0 = b.w(0, L, 1, &[Tag::Lkw]);
        let wx = b.w(0, X, 1, &[Tag::Once]);
        let ul0 = b.w(0, L, 0, &[Tag::Ul]);
        let lkr1 = b.r(1, L, 0, &[Tag::Lkr]);
        let lkw1 = b.w(1, L, 1, &[Tag::Lkw]);
        let rx = b.r(1, X, r_value, &[Tag::Once]);
        let ul1 = b.w(1, L, 0, &[Tag::Ul]);
        b.rf = vec![
            (2, lkr0),
            (ul0, lkr1),
            (if r_value == 0 { 0 } else { wx }, rx),
        ];
        b.co = vec![vec![0, wx], vec![2, lkw0, ul0, lkw1, ul1]];
        b
    }

    #[test]
    fn spinlocks_order_critical_sections() {
        let ok = judge(&two_critical_sections(1));
        assert!(ok.allowed());
        assert!(ok.flags.is_empty(), "{:?}", ok.flags);
        assert_eq!(
            judge(&two_critical_sections(0)).rejected_by,
            Some("happens-before")
        );
        let x = two_critical_sections(1).build();
        let sets = Sets::new(&x);
        assert_eq!(
            lk_rmw(&x, &sets),
            Relation::from_pairs(x.len(), [(3, 4), (7, 8)])
        );
        assert_eq!(
            critical(&x, &sets),
            Relation::from_pairs(x.len(), [(4, 6), (8, 10)])
        );
    }

    #[test]
    fn nested_spin_lock_deadlocks() {
        let mut b = Builder::new(3);
        let lkr0 = b.r(0, L, 0, &[Tag::Lkr]);
        b.w(0, L, 1, &[Tag::Lkw]);
        let lkr1 = b.r(0, L, 0, &[Tag::Lkr]);
        b.w(0, L, 1, &[Tag::Lkw]);
        b.rf = vec![(2, lkr0), (2, lkr1)];
        assert_eq!(judge(&b).rejected_by, Some("lock-nest"));
    }

    #[test]
    fn srcu_sections_match_through_data() {
        // r = srcu_read_lock(s); srcu_read_unlock(s, r); twice unlocked: multiple matches.
        let mut b = Builder::new(3);
        let lock = b.r(0, L, 0, &[Tag::SrcuLock]);
        let u1 = b.w(0, L, 0, &[Tag::SrcuUnlock]);
        let u2 = b.w(0, L, 0, &[Tag::SrcuUnlock]);
        b.rf = vec![(2, lock)];
        b.co = vec![vec![2, u1, u2]];
        b.data = vec![(lock, u1)];
        assert_eq!(judge(&b).flags, vec!["unmatched-srcu-unlock"]);
        b.data = vec![(lock, u1), (lock, u2)];
        assert_eq!(judge(&b).flags, vec!["multiple-srcu-matches"]);
    }

    #[test]
    fn unlock_without_lock_is_flagged() {
        let mut b = Builder::new(3);
        let ul = b.w(0, L, 0, &[Tag::Ul]);
        b.co = vec![vec![2, ul]];
        let j = judge(&b);
        assert!(j.allowed());
        assert_eq!(j.flags, vec!["unmatched-unlock"]);
    }

    #[test]
    fn a_shown_lock_is_flagged_lock_final() {
        // spin_lock(l); spin_unlock(l); with `locations [l]` raises lock-final, and
        // without it nothing.
        let mut b = Builder::new(3);
        let lkr = b.r(0, L, 0, &[Tag::Lkr]);
        let lkw = b.w(0, L, 1, &[Tag::Lkw]);
        let ul = b.w(0, L, 0, &[Tag::Ul]);
        b.rmw = vec![(lkr, lkw)];
        b.rf = vec![(2, lkr)];
        b.co = vec![vec![2, lkw, ul]];
        assert_eq!(judge(&b).flags, Vec::<&str>::new());
        b.observed = vec![2];
        assert_eq!(judge(&b).flags, vec!["lock-final"]);
        b.observed = vec![0];
        assert_eq!(judge(&b).flags, Vec::<&str>::new());
    }

    #[test]
    fn plain_and_marked_writes_in_one_thread_are_mixed() {
        // x = 1; WRITE_ONCE(x, 2): mixed accesses, unless a barrier separates them.
        let mut b = Builder::new(1);
        let w1 = b.w(0, X, 1, &[]);
        let w2 = b.w(0, X, 2, &[Tag::Once]);
        b.co = vec![vec![0, w1, w2]];
        assert_eq!(judge(&b).flags, vec!["mixed-accesses"]);
        let mut b = Builder::new(1);
        let w1 = b.w(0, X, 1, &[]);
        b.f(0, Tag::Barrier);
        let w2 = b.w(0, X, 2, &[Tag::Once]);
        b.co = vec![vec![0, w1, w2]];
        assert!(judge(&b).flags.is_empty());
    }

    #[test]
    fn is_locked_false_inside_own_critical_section_is_rejected() {
        // spin_lock(l); spin_is_locked(l) returning false: nested-is-locked.
        let mut b = Builder::new(3);
        let lkr = b.r(0, L, 0, &[Tag::Lkr]);
        let lkw = b.w(0, L, 1, &[Tag::Lkw]);
        let ru = b.r(0, L, 0, &[Tag::Ru]);
        b.rf = vec![(2, lkr), (2, ru)];
        b.co = vec![vec![2, lkw]];
        assert_eq!(judge(&b).rejected_by, Some("nested-is-locked"));
    }
}
