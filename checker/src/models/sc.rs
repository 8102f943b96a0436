//! Sequential consistency: every access and fence of the test is SC.
//!
//! The mapping of kernel primitives is the trivial one: every read, write and
//! read-modify-write is an SC access, and every fence is implied (so fences change
//! nothing).
//! RCU read-side markers are no-ops and `synchronize_rcu()` is only a fence, so SC does not
//! model the RCU grace-period guarantee.
//! Spinlocks follow `lock.cat`, as the enumeration generates them for every model.
//!
//! An execution is allowed when `po ∪ rf ∪ co ∪ fr` is acyclic (Lamport's definition, in
//! the axiomatic form of Shasha and Snir) and no write of another thread comes between the
//! read and the write of a read-modify-write (atomicity).

use crate::exec::execution::{AnyExecution, Execution};
use crate::exec::relation::{Growable, Relation, Width};
use crate::exec::witness::{self, Term, Violation};
use crate::models::model::{Judge, JudgeAt, Judgement, MemoryModel};

/// The sequential-consistency model.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sc;

/// `rmw ∩ (fre ; coe)`: cat's atomicity check, empty in every model hazmat has.
pub(crate) fn atomicity_holds<W: Width>(x: &Execution<W>, fr: &Relation<W>) -> bool {
    let ext = x.ext();
    let fre = fr.inter(&ext);
    let coe = x.co.inter(&ext);
    x.rmw.inter(&fre.seq(&coe)).is_empty()
}

crate::models::model::judge_at_every_width!(Sc);

impl Judge for Sc {
    fn judge_any<W: Width>(&self, x: &Execution<W>) -> Judgement {
        let fr = x.fr();
        let mut order = x.po.union(&x.rf);
        order.union_with(&x.co);
        order.union_with(&fr);
        let rejected_by = if !order.is_acyclic() {
            Some("sc")
        } else if !atomicity_holds(x, &fr) {
            Some("atomicity")
        } else {
            None
        };
        Judgement {
            rejected_by,
            flags: Vec::new(),
        }
    }
}

impl MemoryModel for Sc {
    fn name(&self) -> &'static str {
        "sc"
    }

    fn monotone(&self) -> bool {
        true
    }

    fn factors(&self) -> bool {
        true
    }

    fn explain(&self, x: &AnyExecution) -> Option<Violation> {
        match JudgeAt::<Growable>::judge(self, x).rejected_by? {
            "sc" => {
                let mut parts = vec![Term::base("po", x.po.clone())];
                parts.extend(witness::com_terms(x));
                Violation::acyclic("sc", "po | rf | co | fr", &Term::union(x.len(), parts))
            }
            _ => witness::atomicity("atomicity", x, &x.rmw),
        }
    }
}
