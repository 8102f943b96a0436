//! Total store order, as x86 implements it.
//!
//! The mapping of kernel primitives to x86 instructions follows the kernel's x86 port:
//! - `READ_ONCE`, `smp_load_acquire`, `rcu_dereference`, `atomic_read` and the other loads
//!   are plain `mov` loads; `WRITE_ONCE`, `smp_store_release`, `rcu_assign_pointer`,
//!   `atomic_set` and `spin_unlock` are plain `mov` stores; a failed `spin_trylock` and
//!   `spin_is_locked` are plain loads;
//! - every read-modify-write (`xchg`, `cmpxchg`, failed or not, the `atomic_*` operations,
//!   `spin_lock` and a successful `spin_trylock`) is a `lock`-prefixed instruction, hence a
//!   full fence;
//! - `smp_mb()`, `smp_store_mb()`'s fence and `synchronize_rcu()`, `synchronize_srcu()`
//!   are full fences (`mfence`);
//! - `smp_rmb()`, `smp_wmb()`, `barrier()`, `smp_mb__before_atomic()` and the other
//!   `smp_mb__*` fences, and the RCU read-side markers, are compiler barriers only.
//!
//! The axioms are those of x86-TSO (Owens, Sarkar and Sewell, 2009) in herd's style:
//! SC per location (`po-loc ∪ rf ∪ co ∪ fr` acyclic), atomicity, and the global
//! happens-before `ppo ∪ rfe ∪ co ∪ fr ∪ fences` acyclic, where `ppo` is program order
//! minus the write-to-read pairs, and a full fence or locked instruction between a write
//! and a read restores their order.

use crate::exec::event::{EventKind, Tag};
use crate::exec::execution::{AnyExecution, Execution};
use crate::exec::relation::{Growable, Relation, Width};
use crate::exec::witness::{self, Term, Violation};
use crate::models::model::{Judge, JudgeAt, Judgement, MemoryModel, Pairs, as_pairs};
use crate::models::sc::atomicity_holds;

/// The x86-TSO model.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tso;

crate::models::model::judge_at_every_width!(Tso);

impl Judge for Tso {
    fn judge_any<W: Width>(&self, x: &Execution<W>) -> Judgement {
        let fr = x.fr();
        let mut com = x.rf.union(&x.co);
        com.union_with(&fr);
        let po_loc = x.po.inter(&x.loc());
        let rejected_by = if !po_loc.union(&com).is_acyclic() {
            Some("sc-per-location")
        } else if !atomicity_holds(x, &fr) {
            Some("atomicity")
        } else if !ghb(x, &fr).is_acyclic() {
            Some("tso")
        } else {
            None
        };
        Judgement {
            rejected_by,
            flags: Vec::new(),
        }
    }
}

impl MemoryModel for Tso {
    fn name(&self) -> &'static str {
        "tso"
    }

    fn monotone(&self) -> bool {
        true
    }

    fn factors(&self) -> bool {
        true
    }

    fn explain(&self, x: &AnyExecution) -> Option<Violation> {
        let n = x.len();
        match JudgeAt::<Growable>::judge(self, x).rejected_by? {
            "sc-per-location" => {
                let mut parts = vec![Term::base("po", x.po.inter(&x.loc()))];
                parts.extend(witness::com_terms(x));
                Violation::acyclic(
                    "sc-per-location",
                    "po-loc | rf | co | fr",
                    &Term::union(n, parts),
                )
            }
            "atomicity" => witness::atomicity("atomicity", x, &x.rmw),
            _ => Violation::acyclic("tso", "ghb", &ghb_term(x)),
        }
    }

    fn relations(&self, x: &AnyExecution) -> Vec<(&'static str, Pairs)> {
        let fr = x.fr();
        let g = ghb(x, &fr);
        let ppo = g.minus(&x.rf).minus(&x.co).minus(&fr);
        as_pairs(vec![("ppo", ppo), ("ghb", g)])
    }
}

/// [`ghb`] as a witness term: program order kept by TSO, fences shown through their event,
/// and the communication relations.
fn ghb_term(x: &AnyExecution) -> Term<Growable> {
    let n = x.len();
    let fr = x.fr();
    let (reads, writes, accesses) = (x.reads(), x.writes(), x.accesses());
    let full_fences = x.set(|e| {
        e.kind == EventKind::Fence
            && (e.has(Tag::Mb) || e.has(Tag::SyncRcu) || e.has(Tag::SyncSrcu))
    });
    let kept =
        x.po.restrict(&reads, &accesses)
            .union(&x.po.restrict(&writes, &writes));
    let g = ghb(x, &fr);
    let mut parts = vec![
        Term::base("po", kept),
        Term::restrict(witness::fencerel(&x.po, &full_fences), &accesses, &accesses),
        // Other po pairs that ghb holds: those ordered by a locked instruction.
        Term::base("po", x.po.inter(&g)),
    ];
    // ghb has rfe, all of co and all of fr, but not rfi (the second term).
    parts.extend(
        witness::com_terms(x)
            .into_iter()
            .enumerate()
            .filter(|(i, _)| *i != 1)
            .map(|(_, t)| t),
    );
    parts.push(Term::base("ghb", g));
    Term::union(n, parts)
}

/// The global happens-before of x86-TSO.
fn ghb<W: Width>(x: &Execution<W>, fr: &Relation<W>) -> Relation<W> {
    let reads = x.reads();
    let writes = x.writes();
    let accesses = x.accesses();
    // Events that act as full fences: `mfence`-like fences and locked instructions.
    let full = x.set(|e| match e.kind {
        EventKind::Fence => e.has(Tag::Mb) || e.has(Tag::SyncRcu) || e.has(Tag::SyncSrcu),
        _ => e.has(Tag::Rmw) || e.has(Tag::Lkr) || e.has(Tag::Lkw),
    });
    let mut ppo = x.po.restrict(&reads, &accesses);
    ppo.union_with(&x.po.restrict(&writes, &writes));
    // Accesses on both sides of a full fence, and accesses ordered with a locked access.
    let to_full = x.po.restrict_range(&full);
    let from_full = x.po.restrict_domain(&full);
    ppo.union_with(&to_full.seq(&from_full).restrict(&accesses, &accesses));
    ppo.union_with(&to_full.restrict_domain(&accesses));
    ppo.union_with(&from_full.restrict_range(&accesses));
    let ext = x.ext();
    let mut g = ppo;
    g.union_with(&x.rf.inter(&ext));
    g.union_with(&x.co);
    g.union_with(fr);
    g
}
