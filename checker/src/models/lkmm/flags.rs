//! The flags an allowed execution raises, in the order the model files declare them
//! ([`FLAGS`]): those the thread paths raise, `lock-final`, the SRCU flags and
//! `data-race`.

use super::dynamic::Dynamic;
use super::fixed::Fixed;
use super::plain::PlainRelations;
use super::{FLAGS, Sets};
use crate::exec::execution::Execution;
use crate::exec::relation::{Relation, Width};

/// Where the flags that depend on the execution sit in [`FLAGS`].
pub(super) const UNMATCHED_SRCU_LOCK: usize = 2;
pub(super) const UNMATCHED_SRCU_UNLOCK: usize = 3;
pub(super) const MULTIPLE_SRCU_MATCHES: usize = 4;
pub(super) const SRCU_BAD_VALUE_MATCH: usize = 6;
pub(super) const LOCK_FINAL: usize = 10;
pub(super) const DATA_RACE: usize = 13;

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
pub(super) fn flags_without_plain_or_srcu<W: Width>(
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
