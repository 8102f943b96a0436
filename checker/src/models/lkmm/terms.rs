//! The LKMM's checked relations as witness terms, to explain why it rejects an execution.
//!
//! [`crate::models::lkmm`] computes each relation of `linux-kernel.cat` as fast as it can and stops
//! at the first failing check; this module builds the same relations as [`Term`]s, whose
//! leaves are the base relations a person reads in a cycle (`po`, `rfe`, `fre`, `addr`,
//! `po-rel`, fences shown through their event...), so that [`explain`] can print the cycle
//! behind the failing check.
//! Each term denotes exactly the relation of the same name in [`crate::models::lkmm::Dynamic`];
//! the test `witness_terms_agree_with_the_models` (`tests/traces.rs`) checks that they
//! agree on the first 400 candidate executions of each of the project's litmus tests and,
//! when it is present, of the smaller conformance folders.

use super::dynamic::Dynamic;
use super::fixed::Fixed;
use super::plain::PlainRelations;
use super::rcu::rcu_order;
use super::{Sets, judge_with};
use crate::exec::event::Tag;
use crate::exec::execution::Execution;
use crate::exec::relation::{EventSet, Relation, Width, Words};
use crate::exec::witness::{self, CheckKind, Step, Term, Violation, fencerel};

/// The checked relations of the LKMM over one execution, as terms.
pub struct Terms<W: Width = Words<1>> {
    /// `po-loc | com`, for coherence.
    pub coherence: Term<W>,
    /// cat's `ppo`.
    pub ppo: Term<W>,
    /// cat's `prop`.
    pub prop: Term<W>,
    /// cat's `hb`.
    pub hb: Term<W>,
    /// cat's `pb`.
    pub pb: Term<W>,
    /// cat's `rb`.
    pub rb: Term<W>,
}

impl<W: Width> Terms<W> {
    /// Builds the terms for `x`, whose sets and path-only relations are `s` and `f`.
    pub fn new(x: &Execution<W>, s: &Sets<W>, f: &Fixed<W>) -> Terms<W> {
        let n = s.n;
        let all = EventSet::<W>::full(n);
        let base = |label, r: &Relation<W>| Term::base(label, r.clone());
        let com = witness::com_terms(x);
        let (rfe, rfi, coe, coi, fre, fri) = (
            com[0].clone(),
            com[1].clone(),
            com[2].clone(),
            com[3].clone(),
            com[4].clone(),
            com[5].clone(),
        );
        let rf = || Term::union(n, vec![rfe.clone(), rfi.clone()]);
        let mut coherence = vec![base("po", &f.po_loc)];
        coherence.extend(com.iter().cloned());
        let coherence = Term::union(n, coherence);

        // bell: carry-dep.
        let not_srcu_unlock = all.clone() - s.srcu_unlock.clone();
        let carry_dep = Term::star(Term::seq(
            n,
            vec![
                base("data", &x.data.restrict_range(&not_srcu_unlock)),
                rfi.clone(),
            ],
        ));
        let dep_term =
            |label, r: &Relation<W>| Term::seq(n, vec![carry_dep.clone(), base(label, r)]);
        let addr = dep_term("addr", &x.addr);
        let data = dep_term("data", &x.data);
        let ctrl = dep_term("ctrl", &x.ctrl);

        // Fences.
        let po = || base("po", &f.po);
        let po_unlock_lock_po = Term::seq(
            n,
            vec![
                po(),
                Term::id(n, &s.ul),
                Term::union(n, vec![po(), rf()]),
                Term::id(n, &s.lkr),
                po(),
            ],
        );
        // mb's terms, each shown through its events; the exact relation comes last so the
        // union stays exact whatever the detailed terms miss.
        let after_unlock_lock = Term::restrict(
            Term::seq(
                n,
                vec![
                    po_unlock_lock_po.clone(),
                    Term::id(n, &x.tagged(Tag::AfterUnlockLock)),
                    po(),
                ],
            ),
            &s.m,
            &s.m,
        );
        let mut mb_exact = f.mb_static.clone();
        mb_exact.union_with(after_unlock_lock.relation());
        // `[M] ; po? ; [E] ; fencerel(F) ; [M]`: an event of class `E`, then the fence `F`.
        let after = |e: &EventSet<W>, fence: Tag| {
            Term::restrict(
                Term::seq(
                    n,
                    vec![
                        Term::opt(po()),
                        Term::id(n, e),
                        fencerel(&f.po, &x.tagged(fence)),
                    ],
                ),
                &s.m,
                &s.m,
            )
        };
        let before_atomic = Term::restrict(
            Term::seq(
                n,
                vec![
                    fencerel(&f.po, &x.tagged(Tag::BeforeAtomic)),
                    Term::id(n, &s.rmw_events),
                    Term::opt(po()),
                ],
            ),
            &s.m,
            &s.m,
        );
        let mb = Term::union(
            n,
            vec![
                Term::restrict(fencerel(&f.po, &s.mb), &s.m, &s.m),
                base("po", &f.po.restrict(&s.m, &(s.mb.clone() & s.r.clone()))),
                base("po", &f.po.restrict(&(s.mb.clone() & s.w.clone()), &s.m)),
                before_atomic,
                after(&s.rmw_events, Tag::AfterAtomic),
                after(&s.lkw, Tag::AfterSpinlock),
                after(&s.srcu_unlock, Tag::AfterSrcuReadUnlock),
                after_unlock_lock,
                base("mb", &mb_exact),
            ],
        );
        let gp = Term::seq(
            n,
            vec![
                po(),
                Term::id(n, &(s.sync_rcu.clone() | s.sync_srcu.clone())),
                Term::opt(po()),
            ],
        );
        let strong_fence = Term::union(n, vec![mb, gp]);
        let po_rel = base("po-rel", &f.po_rel);
        let acq_po = base("acq-po", &f.acq_po);
        let wmb = Term::restrict(fencerel(&f.po, &x.tagged(Tag::Wmb)), &s.w, &s.w);
        let rmb = Term::restrict(fencerel(&f.po, &x.tagged(Tag::Rmb)), &s.r4rmb, &s.r4rmb);
        let nonrw_fence = Term::union(n, vec![strong_fence.clone(), po_rel.clone(), acq_po]);
        let fence = Term::union(n, vec![nonrw_fence, wmb.clone(), rmb]);

        // Preserved program order.
        let dep = Term::union(n, vec![addr.clone(), data]);
        let rwdep = Term::restrict(Term::union(n, vec![dep.clone(), ctrl]), &all, &s.w);
        let to_w = Term::union(
            n,
            vec![
                rwdep,
                coi,
                fri,
                Term::seq(
                    n,
                    vec![Term::restrict(addr.clone(), &all, &s.plain), wmb.clone()],
                ),
            ],
        );
        let to_r = Term::union(
            n,
            vec![
                Term::restrict(addr, &all, &s.r),
                Term::seq(n, vec![Term::restrict(dep, &all, &s.marked), rfi.clone()]),
            ],
        );
        let ppo = Term::union(
            n,
            vec![
                to_r,
                to_w,
                Term::mask(fence, &f.int),
                Term::mask(po_unlock_lock_po.clone(), &f.int),
            ],
        );

        // Propagation.
        let marked = &s.marked;
        let rmw_sequence = Term::star(Term::seq(n, vec![rf(), base("rmw", &f.rmw)]));
        let a_cumul = |t: Term<W>| {
            Term::seq(
                n,
                vec![Term::opt(Term::restrict(rfe.clone(), &all, marked)), t],
            )
        };
        let cumul_fence = Term::seq(
            n,
            vec![
                Term::restrict(
                    Term::union(
                        n,
                        vec![
                            a_cumul(Term::union(n, vec![strong_fence.clone(), po_rel])),
                            wmb,
                            po_unlock_lock_po,
                        ],
                    ),
                    marked,
                    marked,
                ),
                rmw_sequence,
            ],
        );
        let prop = Term::seq(
            n,
            vec![
                Term::id(n, marked),
                Term::opt(Term::union(n, vec![coe, fre])),
                Term::star(cumul_fence),
                Term::id(n, marked),
                Term::opt(rfe.clone()),
                Term::id(n, marked),
            ],
        );
        let int_not_id = f.int.minus(&Relation::identity(n));
        let hb = Term::restrict(
            Term::union(
                n,
                vec![ppo.clone(), rfe, Term::mask(prop.clone(), &int_not_id)],
            ),
            marked,
            marked,
        );
        let pb = Term::seq(
            n,
            vec![
                prop.clone(),
                strong_fence,
                Term::star(hb.clone()),
                Term::id(n, marked),
            ],
        );

        // RCU.
        let rb = if s.sync_rcu.is_empty() && s.sync_srcu.is_empty() {
            Term::base("rb", Relation::empty(n))
        } else {
            let link = Term::seq(
                n,
                vec![
                    Term::opt(po()),
                    Term::star(hb.clone()),
                    Term::star(pb.clone()),
                    prop.clone(),
                    po(),
                ],
            );
            let not_srcu_unlock_data = x.data.restrict_range(&not_srcu_unlock);
            let carry_srcu_data = not_srcu_unlock_data.seq(&x.rf).star();
            let srcu_rscs = carry_srcu_data
                .restrict_domain(&s.srcu_lock)
                .seq(&x.data.restrict_range(&s.srcu_unlock))
                .inter(&f.loc);
            let rcu_rscsi = f.rcu_rscs.inverse();
            let srcu_rscsi = srcu_rscs.inverse();
            let exact = rcu_order(
                link.relation(),
                &rcu_rscsi,
                &srcu_rscsi,
                s.sync_rcu.clone(),
                s.sync_srcu.clone(),
                &f.loc,
            );
            let unlock_lock = || base("rcu-rscs^-1", &rcu_rscsi);
            let s_unlock_lock = || base("srcu-rscs^-1", &srcu_rscsi);
            let order = Term::union(
                n,
                vec![
                    Term::id(n, &(s.sync_rcu.clone() | s.sync_srcu.clone())),
                    Term::seq(
                        n,
                        vec![Term::id(n, &s.sync_rcu), link.clone(), unlock_lock()],
                    ),
                    Term::seq(
                        n,
                        vec![unlock_lock(), link.clone(), Term::id(n, &s.sync_rcu)],
                    ),
                    Term::mask(
                        Term::seq(
                            n,
                            vec![Term::id(n, &s.sync_srcu), link.clone(), s_unlock_lock()],
                        ),
                        &f.loc,
                    ),
                    Term::mask(
                        Term::seq(
                            n,
                            vec![s_unlock_lock(), link.clone(), Term::id(n, &s.sync_srcu)],
                        ),
                        &f.loc,
                    ),
                    Term::base("rcu-order", exact),
                ],
            );
            let rcu_fence = Term::seq(n, vec![po(), order, Term::opt(po())]);
            Term::seq(
                n,
                vec![
                    prop.clone(),
                    rcu_fence,
                    Term::star(hb.clone()),
                    Term::star(pb.clone()),
                    Term::id(n, marked),
                ],
            )
        };
        Terms {
            coherence,
            ppo,
            prop,
            hb,
            pb,
            rb,
        }
    }
}

/// Why the LKMM rejects `x`, with the cycle behind the first failing check.
pub fn explain<W: Width>(x: &Execution<W>) -> Option<Violation> {
    let s = Sets::new(x);
    let f = Fixed::new(x, &s);
    let check = judge_with(x, &s, &f).rejected_by?;
    let terms = || Terms::new(x, &s, &f);
    match check {
        "lock-nest" | "nested-is-locked" | "unmatched-locks" => {
            Some(Violation::paths(check, "lock.cat"))
        }
        // herd7's one event of a C11 read-modify-write is from-read before itself, in
        // every execution: no cycle of hazmat's two events shows it.
        "coherence" if !f.no_c11_rmw => Some(Violation::paths(
            check,
            "po-loc | com (a C11 read-modify-write, herd7's one event, is from-read before \
             itself)",
        )),
        "coherence" => Violation::acyclic(check, "po-loc | com", &terms().coherence),
        "atomic" => witness::atomicity(check, x, &f.rmw),
        "happens-before" => Violation::acyclic(check, "hb", &terms().hb),
        "propagation" => Violation::acyclic(check, "pb", &terms().pb),
        "rcu" => Violation::irreflexive(check, "rb", &terms().rb),
        "plain-coherence" => plain_incoherence(x, &s, &f),
        _ => None,
    }
}

/// The model's key relations over `x`, by name.
pub fn relations<W: Width>(x: &Execution<W>) -> Vec<(&'static str, Relation<W>)> {
    let s = Sets::new(x);
    let f = Fixed::new(x, &s);
    let t = Terms::new(x, &s, &f);
    vec![
        ("ppo", t.ppo.relation().clone()),
        ("prop", t.prop.relation().clone()),
        ("hb", t.hb.relation().clone()),
        ("pb", t.pb.relation().clone()),
        ("rb", t.rb.relation().clone()),
    ]
}

/// `plain-coherence`: a plain access and a communication edge whose reverse the
/// executes-before and visibility relations hold.
fn plain_incoherence<W: Width>(x: &Execution<W>, s: &Sets<W>, f: &Fixed<W>) -> Option<Violation> {
    let d = Dynamic::new(x, s, f).ok()?;
    let p = PlainRelations::new(s, f, &d);
    let (a, b) = p.incoherent.pairs().next()?;
    let (label, back) = if d.rf.contains(a, b) {
        ("rf", "rw-xbstar")
    } else if d.fr.contains(a, b) {
        ("fr", "wr-vis")
    } else {
        ("co", "ww-vis")
    };
    Some(Violation {
        check: "plain-coherence",
        relation: "wr-incoh | rw-incoh | ww-incoh",
        kind: CheckKind::Empty,
        cycle: vec![
            Step {
                from: a,
                label,
                to: b,
            },
            Step {
                from: b,
                label: back,
                to: a,
            },
        ],
    })
}
