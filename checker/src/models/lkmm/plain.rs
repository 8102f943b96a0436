//! The plain-access part of `linux-kernel.cat`: executes-before, visibility, the
//! lifetimes of plain accesses, the `plain-coherence` check and the data races.

use super::Sets;
use super::dynamic::Dynamic;
use super::fixed::Fixed;
use crate::exec::relation::{EventSet, Relation, Width, Words};

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
