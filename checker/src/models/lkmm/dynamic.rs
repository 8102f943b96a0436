//! The relations of the model that depend on `rf` and `co`, and the checks of
//! `linux-kernel.cat` over them (coherence, atomic, happens-before, propagation, rcu), each
//! run as soon as the relations it needs exist.

use std::borrow::Cow;

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
        Ok(Dynamic::checked(x, s, f, true)?.expect("kept"))
    }

    /// Runs the checks of [`Dynamic::new`], and returns the relations only when `keep` is
    /// set: a caller that needs the verdict alone saves building (and moving) them.
    pub(super) fn checked(
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
