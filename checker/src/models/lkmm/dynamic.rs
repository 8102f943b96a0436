//! The relations of the model that depend on `rf` and `co`, and the checks of
//! `linux-kernel.cat` over them (coherence, atomic, happens-before, propagation, rcu), each
//! run as soon as the relations it needs exist.
//!
//! They are computed in place, in a [`Workspace`] that the model keeps from one candidate
//! to the next of a combination of thread paths: no relation is allocated or moved per
//! candidate, and the relations that depend on `rf` alone (the dependencies after
//! `carry-dep`, the fences, `cumul-fence` and its closure, most of `ppo`) are kept while
//! consecutive candidates share their `rf`, as the coherence orders of one `rf` do, and
//! for the last `rf`s met ([`RfCache`]): the search places a location's coherence before
//! the reads-from of the next locations, so one `rf` comes back once for each coherence
//! order of the locations placed before.

use super::Sets;
use super::fixed::{Fences, Fixed};
use super::rcu::rcu_order;
use crate::exec::execution::Execution;
use crate::exec::relation::{EventSet, Relation, Width, Words};

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
    /// [`PlainRelations::coherent`](super::PlainRelations::coherent)).
    ///
    /// Each check runs as soon as the relations it needs exist, so a rejected execution
    /// costs only the relations up to its first failing check.
    pub fn new(x: &Execution<W>, s: &Sets<W>, f: &Fixed<W>) -> Result<Dynamic<W>, &'static str> {
        let mut work = Workspace::new(s.n);
        work.check(x, s, f, None)?;
        work.finish_rf();
        Ok(work.d)
    }

    /// Makes every relation empty, over `n` events, in place.
    fn reset(&mut self, n: usize) {
        for r in self.rest() {
            r.reset(n);
        }
        for r in [
            &mut self.rf,
            &mut self.co,
            &mut self.fr,
            &mut self.rfe,
            &mut self.fences.strong,
            &mut self.fences.nonrw,
            &mut self.fences.all,
            &mut self.fences.internal,
            &mut self.fences.strong_or_release,
            &mut self.ppo,
            &mut self.prop,
            &mut self.hb,
            &mut self.pb,
            &mut self.rcu_fence,
            &mut self.rb,
            &mut self.com,
        ] {
            r.reset(n);
        }
    }

    /// Every relation empty, over `n` events.
    fn empty(n: usize) -> Dynamic<W> {
        let e = || Relation::empty(n);
        Dynamic {
            rf: e(),
            co: e(),
            fr: e(),
            rfe: e(),
            rfi: e(),
            addr: e(),
            data: e(),
            ctrl: e(),
            srcu_rscs: e(),
            po_unlock_lock_po: e(),
            fences: Fences::empty(n),
            ppo: e(),
            rmw_sequence: e(),
            cumul_fence: e(),
            prop: e(),
            hb: e(),
            pb: e(),
            rcu_fence: e(),
            rb: e(),
            com: e(),
        }
    }
}

/// The relations of [`Dynamic`] for one execution after another of the same combination
/// of thread paths (same events, `po`, `rmw` and dependencies), computed in place, with
/// the scratch relations the computation needs.
#[derive(Clone, Debug)]
pub(super) struct Workspace<W: Width = Words<1>> {
    /// The relations of the last execution checked; all of them once a check has passed
    /// them all.
    pub(super) d: Dynamic<W>,
    /// Whether the relations that depend on `rf` alone (`rfe`, `rfi`, the dependencies,
    /// `srcu-rscs`, `po-unlock-lock-po`, the fences, `rmw-sequence`, `cumul-fence`,
    /// `cumul_plus` and `ppo_rf`) are those of `d.rf`.
    rf_done: bool,
    /// `cumul-fence+` (`cumul-fence*` is it and the identity).
    cumul_plus: Relation<W>,
    /// The terms of `ppo` that do not depend on `co`: all but `overwrite & int`.
    ppo_rf: Relation<W>,
    /// `overwrite = co | fr`.
    overwrite: Relation<W>,
    /// `hb+`, when a strong fence or a grace period needs it.
    hb_plus: Relation<W>,
    /// The relations of `rf` alone for the last `rf`s met.
    cache: RfCache<W>,
    /// The slot of `cache` that holds the relations of `d.rf` not yet taken back into
    /// `d`: those the checks do not read ([`Workspace::restore_rf`]).
    pending: Option<usize>,
    /// Scratch relations.
    t1: Relation<W>,
    t2: Relation<W>,
}

/// The relations [`Workspace::compute_rf`] computes from `rf` alone, as they were for
/// one `rf`: those the checks read (`checked`, and the strong fences), taken back at
/// once, and the others (`rest`, and the other fences), taken back when every relation
/// is asked for ([`Workspace::relations`]).
#[derive(Clone, Debug)]
struct OfRf<W: Width> {
    rf: Relation<W>,
    /// `rf`'s hash, its key in [`RfCache::index`].
    hash: u64,
    checked: [Relation<W>; 3],
    rest: [Relation<W>; 8],
    fences: Fences<W>,
}

impl<W: Width> OfRf<W> {
    fn empty(n: usize) -> OfRf<W> {
        OfRf {
            rf: Relation::empty(n),
            hash: 0,
            checked: std::array::from_fn(|_| Relation::empty(n)),
            rest: std::array::from_fn(|_| Relation::empty(n)),
            fences: Fences::empty(n),
        }
    }
}

/// The relations of `rf` alone that the checks read, the strong fences apart: `rfe`,
/// `ppo_rf` and `cumul_plus`, in [`OfRf::checked`]'s order.
fn checked<'a, W: Width>(
    d: &'a mut Dynamic<W>,
    ppo_rf: &'a mut Relation<W>,
    cumul_plus: &'a mut Relation<W>,
) -> [&'a mut Relation<W>; 3] {
    [&mut d.rfe, ppo_rf, cumul_plus]
}

impl<W: Width> Dynamic<W> {
    /// The other relations of `rf` alone, in [`OfRf::rest`]'s order (the fences apart).
    fn rest(&mut self) -> [&mut Relation<W>; 8] {
        [
            &mut self.rfi,
            &mut self.addr,
            &mut self.data,
            &mut self.ctrl,
            &mut self.srcu_rscs,
            &mut self.po_unlock_lock_po,
            &mut self.rmw_sequence,
            &mut self.cumul_fence,
        ]
    }
}

/// How many relations an [`OfRf`] holds, to size the cache.
const OF_RF_RELATIONS: usize = 17;

/// The most bytes of relations an [`RfCache`] keeps.
const RF_CACHE_BYTES: usize = 1 << 20;

/// The most `rf`s an [`RfCache`] keeps: more than the candidates below one coherence
/// order of the search's early locations in the tests that have many.
const RF_CACHE_SLOTS: usize = 64;

/// How many times `rf` changes between the candidates a workspace judges before its cache
/// keeps any: a test with few candidates would pay for slots it never reads.
pub(super) const RF_CACHE_AFTER: usize = 256;

/// The relations of `rf` alone for the last `rf`s met, each in a slot, the oldest
/// replaced first.
#[derive(Clone, Debug)]
struct RfCache<W: Width> {
    /// How many `rf`s were computed, up to [`RF_CACHE_AFTER`].
    computed: usize,
    slots: Vec<OfRf<W>>,
    /// The slot of each `rf` kept, by a hash of it.
    index: foldhash::HashMap<u64, usize>,
    /// The slot the next `rf` kept replaces, once every slot is taken.
    next: usize,
    /// How many slots the cache may take, for executions of its size.
    capacity: usize,
}

impl<W: Width> RfCache<W> {
    /// An empty cache for executions of `n` events.
    fn new(n: usize) -> RfCache<W> {
        let entry = OF_RF_RELATIONS * n.max(1) * std::mem::size_of::<EventSet<W>>();
        RfCache {
            computed: 0,
            slots: Vec::new(),
            index: foldhash::HashMap::default(),
            next: 0,
            capacity: (RF_CACHE_BYTES / entry).min(RF_CACHE_SLOTS),
        }
    }

    fn hash(rf: &Relation<W>) -> u64 {
        use std::hash::BuildHasher;
        foldhash::fast::FixedState::default().hash_one(rf)
    }

    /// The slot that holds `rf`, or, if none does, `rf`'s hash when it was computed.
    fn find(&self, rf: &Relation<W>) -> Result<usize, Option<u64>> {
        if self.slots.is_empty() {
            return Err(None);
        }
        let hash = Self::hash(rf);
        match self.index.get(&hash) {
            Some(&slot) if self.slots[slot].rf == *rf => Ok(slot),
            _ => Err(Some(hash)),
        }
    }

    /// The slot in which to keep the relations of `rf` (whose hash is `hash` when
    /// [`RfCache::find`] computed it), if the cache keeps any: a new one while there is
    /// room, else the oldest, forgotten first.
    fn slot_for(
        &mut self,
        rf: &Relation<W>,
        hash: Option<u64>,
        fill: impl FnOnce() -> OfRf<W>,
    ) -> Option<usize> {
        if self.computed < RF_CACHE_AFTER {
            self.computed += 1;
            return None;
        }
        if self.capacity < 2 {
            return None;
        }
        let slot = if self.slots.len() < self.capacity {
            self.slots.push(fill());
            self.slots.len() - 1
        } else {
            let slot = self.next;
            self.next = (self.next + 1) % self.capacity;
            let old = self.slots[slot].hash;
            if self.index.get(&old) == Some(&slot) {
                self.index.remove(&old);
            }
            slot
        };
        let hash = hash.unwrap_or_else(|| Self::hash(rf));
        self.slots[slot].hash = hash;
        self.index.insert(hash, slot);
        Some(slot)
    }
}

impl<W: Width> Workspace<W> {
    /// A workspace for executions of `n` events.
    pub(super) fn new(n: usize) -> Workspace<W> {
        Workspace {
            d: Dynamic::empty(n),
            rf_done: false,
            cumul_plus: Relation::empty(n),
            ppo_rf: Relation::empty(n),
            overwrite: Relation::empty(n),
            hb_plus: Relation::empty(n),
            cache: RfCache::new(n),
            pending: None,
            t1: Relation::empty(n),
            t2: Relation::empty(n),
        }
    }

    /// Makes `self` a fresh workspace for executions of `n` events, in place.
    pub(super) fn reset(&mut self, n: usize) {
        self.d.reset(n);
        self.rf_done = false;
        self.cache = RfCache::new(n);
        self.pending = None;
        for r in [
            &mut self.cumul_plus,
            &mut self.ppo_rf,
            &mut self.overwrite,
            &mut self.hb_plus,
            &mut self.t1,
            &mut self.t2,
        ] {
            r.reset(n);
        }
    }

    /// Computes the relations of `x` that depend on `rf` and `co` into `self.d`, or names
    /// the first check of `linux-kernel.cat` that fails, as [`Dynamic::new`] does; `x`
    /// must have the events, `po`, `rmw` and dependencies of the executions this
    /// workspace saw before, since the relations of `rf` alone are kept while `rf` stays
    /// the same.
    ///
    /// With `outside`, coherence and atomicity are checked at the events of `outside`
    /// only: each is a check of one location at a time, and [`Lkmm`](super::Lkmm)'s
    /// vouching leaves those of some locations to each completion.
    pub(super) fn check(
        &mut self,
        x: &Execution<W>,
        s: &Sets<W>,
        f: &Fixed<W>,
        outside: Option<&EventSet<W>>,
    ) -> Result<(), &'static str> {
        if !(self.rf_done && self.d.rf == x.rf) {
            self.rf_done = false;
            self.pending = None;
            self.d.rf.copy_from(&x.rf);
        }
        let (t1, t2) = (&mut self.t1, &mut self.t2);
        let d = &mut self.d;
        d.co.copy_from(&x.co);
        // fr = rf^-1 ; co, com = rf | co | fr
        x.rf.inverse_into(t1);
        t1.seq_into(&x.co, &mut d.fr);
        d.com.copy_from(&x.rf);
        d.com.union_with(&x.co);
        d.com.union_with(&d.fr);
        // acyclic po-loc | com as coherence
        t1.copy_from(&f.po_loc);
        t1.union_with(&d.com);
        if let Some(outside) = outside {
            t1.retain_domain(outside);
        }
        if !t1.is_acyclic() {
            return Err("coherence");
        }
        // empty rmw & (fre ; coe) as atomic
        t1.copy_from(&d.fr);
        t1.inter_with(&f.ext);
        if let Some(outside) = outside {
            t1.retain_domain(outside);
        }
        t2.copy_from(&x.co);
        t2.inter_with(&f.ext);
        if f.rmw.meets_seq(t1, t2) {
            return Err("atomic");
        }
        if !self.rf_done {
            match self.cache.find(&x.rf) {
                Ok(slot) => self.restore_rf(slot),
                Err(hash) => {
                    self.compute_rf(x, s, f);
                    self.keep_rf(hash);
                }
            }
            self.rf_done = true;
        }
        self.compute_co(x, s, f)
    }

    /// Keeps the relations of `rf` alone, just computed, in the cache (`hash` is
    /// `d.rf`'s, when [`RfCache::find`] computed it).
    fn keep_rf(&mut self, hash: Option<u64>) {
        let n = self.d.rf.size();
        let Some(slot) = self.cache.slot_for(&self.d.rf, hash, || OfRf::empty(n)) else {
            return;
        };
        let kept = &mut self.cache.slots[slot];
        let d = &mut self.d;
        kept.rf.copy_from(&d.rf);
        kept.fences.copy_from(&d.fences);
        for (k, r) in kept.rest.iter_mut().zip(d.rest()) {
            k.copy_from(r);
        }
        let now = checked(d, &mut self.ppo_rf, &mut self.cumul_plus);
        for (k, r) in kept.checked.iter_mut().zip(now) {
            k.copy_from(r);
        }
    }

    /// Takes the relations of `rf` alone that the checks read from the cache's `slot`,
    /// which holds `d.rf`'s, and leaves the others there until [`Workspace::relations`]
    /// needs them.
    fn restore_rf(&mut self, slot: usize) {
        let kept = &self.cache.slots[slot];
        let d = &mut self.d;
        d.fences.strong.copy_from(&kept.fences.strong);
        for (r, k) in checked(d, &mut self.ppo_rf, &mut self.cumul_plus)
            .into_iter()
            .zip(&kept.checked)
        {
            r.copy_from(k);
        }
        self.pending = Some(slot);
    }

    /// Takes back the relations of `rf` alone that [`Workspace::restore_rf`] left in the
    /// cache.
    fn finish_rf(&mut self) {
        let Some(slot) = self.pending.take() else {
            return;
        };
        let (d, kept) = (&mut self.d, &self.cache.slots[slot]);
        d.fences.copy_from(&kept.fences);
        for (r, k) in d.rest().into_iter().zip(&kept.rest) {
            r.copy_from(k);
        }
    }

    /// Every relation of the last execution checked, once [`Workspace::check`] passed.
    pub(super) fn relations(&mut self) -> &Dynamic<W> {
        self.finish_rf();
        &self.d
    }

    /// Computes the relations that depend on `rf` alone.
    fn compute_rf(&mut self, x: &Execution<W>, s: &Sets<W>, f: &Fixed<W>) {
        let n = s.n;
        let (t1, t2) = (&mut self.t1, &mut self.t2);
        let d = &mut self.d;
        let rf = &x.rf;
        d.rfe.copy_from(rf);
        d.rfe.inter_with(&f.ext);
        d.rfi.copy_from(rf);
        d.rfi.inter_with(&f.int);
        let marked = &s.marked;

        // bell: srcu-rscs, then carry-dep.  Both are skipped when their inputs are empty,
        // as they are in most tests.
        let not_srcu_unlock = EventSet::full(n) - s.srcu_unlock.clone();
        if s.srcu_lock.is_empty() || s.srcu_unlock.is_empty() {
            d.srcu_rscs.clear();
        } else {
            let carry_srcu_data = x.data.restrict_range(&not_srcu_unlock).seq(rf).star();
            d.srcu_rscs = carry_srcu_data
                .restrict_domain(&s.srcu_lock)
                .seq(&x.data.restrict_range(&s.srcu_unlock))
                .inter(&f.loc);
        }
        // Without data dependencies through rfi, carry-dep is the identity, and the
        // dependencies are the paths' own.
        let mut carried = false;
        if !x.data.is_empty() {
            t1.copy_from(&x.data);
            t1.retain_range(&not_srcu_unlock);
            t1.seq_into(&d.rfi, t2);
            if !t2.is_empty() {
                // carry-dep = (data ; [~Srcu-unlock] ; rfi)*
                t2.close_transitively();
                t2.add_identity();
                t2.seq_into(&x.addr, &mut d.addr);
                t2.seq_into(&x.data, &mut d.data);
                t2.seq_into(&x.ctrl, &mut d.ctrl);
                carried = true;
            }
        }
        if !carried {
            d.addr.copy_from(&x.addr);
            d.data.copy_from(&x.data);
            d.ctrl.copy_from(&x.ctrl);
        }

        // Fences.
        if s.ul.is_empty() || s.lkr.is_empty() {
            d.po_unlock_lock_po.clear();
        } else {
            // po ; [UL] ; (po | rf) ; [LKR] ; po
            t1.copy_from(&f.po);
            t1.union_with(rf);
            t1.retain_range(&s.lkr);
            t2.copy_from(&f.po);
            t2.retain_range(&s.ul);
            t2.seq_into(t1, &mut d.po_unlock_lock_po);
            d.po_unlock_lock_po.seq_into(&f.po, t1);
            d.po_unlock_lock_po.copy_from(t1);
        }
        // Without lock events they depend on the paths alone, and `Fixed` has them.
        match &f.lockless_fences {
            Some(fences) => d.fences.copy_from(fences),
            None => d.fences.compute(x, s, f, &d.po_unlock_lock_po),
        }

        // The terms of preserved program order that do not depend on co: rwdep, the
        // dependencies to reads and the fences, each built only when its relations have a
        // pair.
        let ppo = &mut self.ppo_rf;
        ppo.copy_from(&d.fences.internal);
        let (addr, data, ctrl) = (&d.addr, &d.data, &d.ctrl);
        if !(addr.is_empty() && data.is_empty() && ctrl.is_empty()) {
            // dep = addr | data; rwdep = (dep | ctrl) ; [W]
            t1.copy_from(addr);
            t1.union_with(data);
            t2.copy_from(t1);
            t2.union_with(ctrl);
            t2.retain_range(&s.w);
            ppo.union_with(t2);
            if !addr.is_empty() {
                // addr ; [Plain] ; wmb
                t2.copy_from(addr);
                t2.retain_range(&s.plain);
                ppo.union_with_seq(t2, &f.wmb);
                // to-r = (addr ; [R]) | ((dep ; [Marked]) ; rfi)
                t2.copy_from(addr);
                t2.retain_range(&s.r);
                ppo.union_with(t2);
            }
            t1.retain_range(marked);
            ppo.union_with_seq(t1, &d.rfi);
        }
        if !d.po_unlock_lock_po.is_empty() {
            t1.copy_from(&d.po_unlock_lock_po);
            t1.inter_with(&f.int);
            ppo.union_with(t1);
        }

        // rmw-sequence = (rf ; rmw)*
        rf.seq_into(&f.rmw, &mut d.rmw_sequence);
        if !d.rmw_sequence.is_empty() {
            d.rmw_sequence.close_transitively();
        }
        d.rmw_sequence.add_identity();
        // cumul-fence = [Marked] ; (A-cumul(strong-fence | po-rel) | wmb |
        // po-unlock-lock-po) ; [Marked] ; rmw-sequence, where
        // A-cumul(r) = (rfe ; [Marked])? ; r
        t2.copy_from(&d.rfe);
        t2.retain_range(marked);
        t1.copy_from(&d.fences.strong_or_release);
        t1.union_with_seq(t2, &d.fences.strong_or_release);
        t1.union_with(&f.wmb);
        t1.union_with(&d.po_unlock_lock_po);
        t1.retain_domain(marked);
        t1.retain_range(marked);
        t1.seq_into(&d.rmw_sequence, &mut d.cumul_fence);
        self.cumul_plus.copy_from(&d.cumul_fence);
        self.cumul_plus.close_transitively();
    }

    /// Computes the relations that depend on `co`, once those of `rf` alone are done,
    /// and runs the checks of happens-before, propagation and rcu.
    fn compute_co(
        &mut self,
        x: &Execution<W>,
        s: &Sets<W>,
        f: &Fixed<W>,
    ) -> Result<(), &'static str> {
        let (t1, t2) = (&mut self.t1, &mut self.t2);
        let d = &mut self.d;
        let marked = &s.marked;
        let overwrite = &mut self.overwrite;
        overwrite.copy_from(&x.co);
        overwrite.union_with(&d.fr);
        // ppo: to-w's (overwrite & int), and the terms of rf alone.
        d.ppo.copy_from(overwrite);
        d.ppo.inter_with(&f.int);
        d.ppo.union_with(&self.ppo_rf);

        // prop = [Marked] ; (overwrite & ext)? ; cumul-fence* ; [Marked] ; rfe? ; [Marked]
        t1.copy_from(overwrite);
        t1.inter_with(&f.ext);
        // (overwrite & ext)? ; cumul-fence* = cumul-fence* | (overwrite & ext) |
        // (overwrite & ext) ; cumul-fence+, the last through cumul-fence's few sources.
        t2.copy_from(&self.cumul_plus);
        t2.add_identity();
        t2.union_with(t1);
        t2.union_with_seq_through(t1, &self.cumul_plus);
        t2.retain_domain(marked);
        t2.retain_range(marked);
        d.prop.copy_from(t2);
        d.prop.union_with_seq_through(t2, &d.rfe);
        d.prop.retain_range(marked);

        // hb = [Marked] ; (ppo | rfe | ((prop \ id) & int)) ; [Marked]
        d.hb.copy_from(&d.prop);
        d.hb.inter_with(&f.int);
        d.hb.remove_identity();
        d.hb.union_with(&d.ppo);
        d.hb.union_with(&d.rfe);
        d.hb.retain_domain(marked);
        d.hb.retain_range(marked);
        // Every term of rcu-order holds a grace period, so without one rcu-fence and rb
        // are empty; without a strong fence, so is pb. hb's closure is needed only for
        // them.
        let strong_fence = &d.fences.strong;
        let rcu = !(s.sync_rcu.is_empty() && s.sync_srcu.is_empty());
        let closure = rcu || !strong_fence.is_empty();
        // acyclic hb as happens-before
        let hb_plus = &mut self.hb_plus;
        if closure {
            if !d.hb.plus_if_acyclic_into(hb_plus) {
                return Err("happens-before");
            }
        } else if !d.hb.is_acyclic() {
            return Err("happens-before");
        }
        // pb = prop ; strong-fence ; hb* ; [Marked]
        if closure && !strong_fence.is_empty() {
            d.prop.seq_into(strong_fence, t1);
            d.pb.copy_from(t1);
            d.pb.union_with_seq(t1, hb_plus);
            d.pb.retain_range(marked);
        } else {
            d.pb.clear();
        }
        // acyclic pb as propagation
        if !d.pb.is_acyclic() {
            return Err("propagation");
        }

        // RCU.
        if !rcu {
            d.rcu_fence.clear();
            d.rb.clear();
            return Ok(());
        }
        self.finish_rf();
        let (hb_plus, d) = (&self.hb_plus, &mut self.d);
        let hb_star = hb_plus.optional();
        let pb_star = d.pb.star();
        // rcu-link = po? ; hb* ; pb* ; prop ; po, read by rcu-order only between two of
        // RCU's own events (a grace period, or an end of a read-side critical section:
        // every term puts one of rcu-gp, srcu-gp, rcu-rscsi, srcu-rscsi or rcu-order on
        // each side of it), so only those rows and columns are composed.
        let rcu_rscsi = f.rcu_rscs.inverse();
        let srcu_rscsi = d.srcu_rscs.inverse();
        let mut ends = s.sync_rcu.clone() | s.sync_srcu.clone();
        for r in [&rcu_rscsi, &srcu_rscsi] {
            ends |= r.domain() | r.range();
        }
        let rcu_link =
            f.po.optional()
                .restrict_domain(&ends)
                .seq(&hb_star)
                .seq(&pb_star)
                .seq(&d.prop)
                .seq(&f.po.restrict_range(&ends));
        let rcu_order = rcu_order(
            &rcu_link,
            &rcu_rscsi,
            &srcu_rscsi,
            s.sync_rcu.clone(),
            s.sync_srcu.clone(),
            &f.loc,
        );
        d.rcu_fence = f.po.seq(&rcu_order).seq(&f.po.optional());
        d.rb = d
            .prop
            .seq(&d.rcu_fence)
            .seq(&hb_star)
            .seq(&pb_star)
            .restrict_range(marked);
        // irreflexive rb as rcu
        if !d.rb.is_irreflexive() {
            return Err("rcu");
        }
        Ok(())
    }
}
