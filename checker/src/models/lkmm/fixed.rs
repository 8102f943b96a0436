//! The parts of the model that depend on the thread paths only, not on `rf` or `co`:
//! program order and its restrictions, the static fences, the lock checks, the flags the
//! paths raise, and the fences themselves when the test has no lock events.
//! They are computed once per combination of thread paths and reused by every candidate
//! of it.

use super::locks::{critical, lk_rmw};
use super::rcu::rcu_rscs;
use super::{FLAGS, Sets, co_pairs};
use crate::exec::event::Tag;
use crate::exec::execution::Execution;
use crate::exec::relation::{EventSet, Relation, Width, Words};

/// cat's `fencerel(S) = po ; [S] ; po`: the pairs of events po-separated by an event of `s`.
pub fn fencerel<W: Width>(po: &Relation<W>, s: EventSet<W>) -> Relation<W> {
    if s.is_empty() {
        return Relation::empty(po.size());
    }
    po.restrict_range(&s).seq(po)
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
    /// otherwise, and [`Dynamic`](super::Dynamic) computes them for each execution.
    pub lockless_fences: Option<Fences<W>>,
    /// The number of pairs of writes to the same location, which a complete `co` orders.
    pub co_pairs: usize,
    /// The flags of [`FLAGS`] that the thread paths alone raise (the others are false
    /// here, and [`flags`](fn@super::flags) works them out for each execution).
    pub path_flags: [bool; FLAGS.len()],
    /// The unmatched-lock check passes.
    pub unmatched_locks_ok: bool,
    /// The lock-nest check passes.
    pub lock_nest_ok: bool,
    /// The nested-is-locked check passes.
    pub nested_is_locked_ok: bool,
    /// No event is half of a C11 read-modify-write: herd7 builds one as a single event,
    /// both read and write, which reads from a write coherence-before its own and so is
    /// from-read before itself, a cycle the coherence check rejects in every execution.
    pub no_c11_rmw: bool,
}

impl<W: Width> Fixed<W> {
    /// Computes the path-only parts of the model for `x`.
    pub fn new(x: &Execution<W>, s: &Sets<W>) -> Fixed<W> {
        let empty = || Relation::empty(s.n);
        let mut fixed = Fixed {
            po: empty(),
            loc: empty(),
            po_loc: empty(),
            int: empty(),
            ext: empty(),
            rmw: empty(),
            lk_rmw: empty(),
            critical: empty(),
            rcu_rscs: empty(),
            acq_po: empty(),
            po_rel: empty(),
            rmb: empty(),
            wmb: empty(),
            mb_static: empty(),
            gp: empty(),
            barrier: empty(),
            fencerel_rmb: empty(),
            pre_race: empty(),
            lockless_fences: None,
            co_pairs: 0,
            path_flags: [false; FLAGS.len()],
            unmatched_locks_ok: true,
            lock_nest_ok: true,
            nested_is_locked_ok: true,
            no_c11_rmw: true,
        };
        fixed.refill(x, s);
        fixed
    }

    /// Makes `self` the path-only parts of the model for `x`, in place: what
    /// [`Fixed::new`] returns, without building a second one and moving it (a `Fixed`
    /// holds a score of relations, and moving them twice cost more than computing some).
    pub fn refill(&mut self, x: &Execution<W>, s: &Sets<W>) {
        let n = s.n;
        self.po.clone_from(&x.po);
        let po = &self.po;
        let loc = x.loc();
        let po_loc = po.inter(&loc);
        let lk_rmw = lk_rmw(x, s);
        let rmw = x.rmw.union(&lk_rmw);
        let critical = critical(x, s);
        let t = |tag| x.tagged(tag);

        // lock.cat's checks, which only a lock write can fail.
        let (lock_nest_ok, nested_is_locked_ok, unmatched_locks_ok) = if s.lkw.is_empty() {
            (true, true, true)
        } else {
            let ul_between = po_loc.restrict_range(&s.ul).seq(&po_loc);
            let unmatched_lkw = s.lkw.clone() - critical.domain();
            (
                po_loc
                    .restrict(&s.lkw, &s.lkr)
                    .minus(&ul_between)
                    .is_empty(),
                po_loc.restrict(&s.lkw, &s.ru).minus(&ul_between).is_empty(),
                loc.restrict(&unmatched_lkw, &unmatched_lkw)
                    .minus(&Relation::identity(n))
                    .is_empty(),
            )
        };

        let acq_po = po.restrict(&s.acquire, &s.m);
        let po_rel = po.restrict(&s.m, &s.release);
        let fencerel_rmb = fencerel(po, t(Tag::Rmb));
        let rmb = fencerel_rmb.restrict(&s.r4rmb, &s.r4rmb);
        let wmb = fencerel(po, t(Tag::Wmb)).restrict(&s.w, &s.w);
        let po_opt = po.optional();
        let mut mb_static = fencerel(po, s.mb.clone()).restrict(&s.m, &s.m);
        mb_static.union_with(&po.restrict(&s.m, &(s.mb.clone() & s.r.clone())));
        mb_static.union_with(&po.restrict(&(s.mb.clone() & s.w.clone()), &s.m));
        // Each of the terms below is empty without its fence.
        // [M] ; fencerel(Before-atomic) ; [RMW] ; po? ; [M]
        if !t(Tag::BeforeAtomic).is_empty() {
            mb_static.union_with(
                &fencerel(po, t(Tag::BeforeAtomic))
                    .restrict(&s.m, &s.rmw_events)
                    .seq(&po_opt)
                    .restrict_range(&s.m),
            );
        }
        // [M] ; po? ; [RMW] ; fencerel(After-atomic) ; [M]
        // [M] ; po? ; [LKW] ; fencerel(After-spinlock) ; [M]
        // [M] ; po? ; [Srcu-unlock] ; fencerel(After-srcu-read-unlock) ; [M]
        for (before, fence) in [
            (&s.rmw_events, Tag::AfterAtomic),
            (&s.lkw, Tag::AfterSpinlock),
            (&s.srcu_unlock, Tag::AfterSrcuReadUnlock),
        ] {
            if !t(fence).is_empty() {
                mb_static.union_with(
                    &po_opt
                        .restrict(&s.m, before)
                        .seq(&fencerel(po, t(fence)))
                        .restrict_range(&s.m),
                );
            }
        }
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
        let mut barrier = fencerel(po, barrier_set);
        barrier.union_with(&po.restrict_range(&s.release));
        barrier.union_with(&po.restrict_domain(&s.acquire));

        let rcu_rscs = rcu_rscs(po, t(Tag::RcuLock), t(Tag::RcuUnlock));
        let ext = x.ext();
        let pre_race = if s.plain.is_empty() {
            Relation::empty(n)
        } else {
            let plain_any = Relation::cartesian(n, &s.plain, &s.m);
            let any_plain = Relation::cartesian(n, &(s.m.clone() - s.iw.clone()), &s.plain);
            plain_any.union(&any_plain).inter(&ext).inter(&loc)
        };
        let plain_w = s.plain.clone() & s.w.clone();
        let mixed_accesses = !plain_w.is_empty() && {
            let po_loc_nb = po_loc.minus(&barrier);
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
                .inter(&fencerel(po, s.sync_srcu.clone()))
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

        self.rcu_rscs = rcu_rscs;
        self.int = x.int();
        self.ext = ext;
        self.pre_race = pre_race;
        self.co_pairs = co_pairs(x);
        self.path_flags = path_flags;
        self.loc = loc;
        self.po_loc = po_loc;
        self.rmw = rmw;
        self.lk_rmw = lk_rmw;
        self.critical = critical;
        self.acq_po = acq_po;
        self.po_rel = po_rel;
        self.rmb = rmb;
        self.wmb = wmb;
        self.mb_static = mb_static;
        self.gp = gp;
        self.barrier = barrier;
        self.fencerel_rmb = fencerel_rmb;
        self.unmatched_locks_ok = unmatched_locks_ok;
        self.lock_nest_ok = lock_nest_ok;
        self.nested_is_locked_ok = nested_is_locked_ok;
        self.no_c11_rmw = !x
            .events
            .iter()
            .any(|e| crate::front::c11::is_single_event(e.tags));
        // po-unlock-lock-po, the fences' one term that depends on rf, needs both an unlock
        // and a lock read.
        if s.ul.is_empty() || s.lkr.is_empty() {
            let mut fences = self
                .lockless_fences
                .take()
                .unwrap_or_else(|| Fences::empty(n));
            fences.reset(n);
            fences.compute(x, s, self, &Relation::empty(n));
            self.lockless_fences = Some(fences);
        } else {
            self.lockless_fences = None;
        }
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
        let mut fences = Fences::empty(s.n);
        fences.compute(x, s, f, po_unlock_lock_po);
        fences
    }

    /// Empty fences over `n` events, to be [computed](Fences::compute) in place.
    pub fn empty(n: usize) -> Fences<W> {
        Fences {
            strong: Relation::empty(n),
            nonrw: Relation::empty(n),
            all: Relation::empty(n),
            internal: Relation::empty(n),
            strong_or_release: Relation::empty(n),
        }
    }

    /// Makes `self` empty fences over `n` events, in place.
    pub fn reset(&mut self, n: usize) {
        for r in [
            &mut self.strong,
            &mut self.nonrw,
            &mut self.all,
            &mut self.internal,
            &mut self.strong_or_release,
        ] {
            r.reset(n);
        }
    }

    /// Makes `self` the fences of `x`, given its `po-unlock-lock-po`, in place: what
    /// [`Fences::new`] returns, without allocating.
    pub fn compute(
        &mut self,
        x: &Execution<W>,
        s: &Sets<W>,
        f: &Fixed<W>,
        po_unlock_lock_po: &Relation<W>,
    ) {
        // mb = mb_static | ([M] ; po-unlock-lock-po ; [After-unlock-lock] ; po ; [M]),
        // with `all` and `nonrw` as scratch before they get their own values.
        self.strong.copy_from(&f.mb_static);
        if !po_unlock_lock_po.is_empty() {
            self.all.copy_from(po_unlock_lock_po);
            self.all.retain_domain(&s.m);
            self.all.retain_range(&x.tagged(Tag::AfterUnlockLock));
            self.all.seq_into(&f.po, &mut self.nonrw);
            self.nonrw.retain_range(&s.m);
            self.strong.union_with(&self.nonrw);
        }
        self.strong.union_with(&f.gp);
        self.nonrw.copy_from(&self.strong);
        self.nonrw.union_with(&f.po_rel);
        self.nonrw.union_with(&f.acq_po);
        self.all.copy_from(&self.nonrw);
        self.all.union_with(&f.wmb);
        self.all.union_with(&f.rmb);
        self.internal.copy_from(&self.all);
        self.internal.inter_with(&f.int);
        self.strong_or_release.copy_from(&self.strong);
        self.strong_or_release.union_with(&f.po_rel);
    }

    /// Makes `self` a copy of `other`, fences over as many events, without allocating.
    pub fn copy_from(&mut self, other: &Fences<W>) {
        self.strong.copy_from(&other.strong);
        self.nonrw.copy_from(&other.nonrw);
        self.all.copy_from(&other.all);
        self.internal.copy_from(&other.internal);
        self.strong_or_release.copy_from(&other.strong_or_release);
    }
}
