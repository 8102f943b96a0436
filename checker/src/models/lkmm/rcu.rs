//! RCU's orderings: bell's matching of read-side critical sections, and cat's recursive
//! `rcu-order` over grace periods and critical sections.

use crate::exec::relation::{EventSet, Relation, Width};

/// bell's `rcu-rscs`: the least fixpoint that matches each `rcu_read_lock()` with the
/// po-next `rcu_read_unlock()` that no unmatched pair separates, innermost pairs first.
pub fn rcu_rscs<W: Width>(
    po: &Relation<W>,
    locks: EventSet<W>,
    unlocks: EventSet<W>,
) -> Relation<W> {
    let mut matched = Relation::empty(po.size());
    if locks.is_empty() || unlocks.is_empty() {
        return matched;
    }
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

/// cat's recursive `rcu-order`, as a least fixpoint: sequences of grace periods and
/// read-side critical sections (each unlock-to-lock, `rcu-rscsi`), joined by `rcu-link`,
/// with at least as many grace periods as critical sections; SRCU terms only pair events
/// of the same `srcu_struct` (`& loc`).
/// `link` is read only from a grace period or a critical section's end to another (every
/// term puts one on each side of it), so its other pairs may be left out.
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
