//! Test-only weakenings: switches that remove one fence, ordering or protocol step at run
//! time, so that a model can show it finds the bug the removed guard prevents.
//!
//! Every model of the core has a negative control: the same model run against a weakened
//! protocol, which must fail.
//! A model that passes whatever the code does proves nothing; one that fails once a guard is
//! gone proves it sees what the guard is for.
//! The switches live behind the Cargo feature `weaken`, which is off by default and enabled
//! only by the models and the torture harness (package `hazmat-models`).
//! Without the feature [`active`] is the constant `false` and every hook compiles away; with
//! it, the same holds for every backend but the model checkers' ([`Backend::MODEL`]), so the
//! std build that the torture harness and the benchmarks of `hazmat-models` run (where the
//! feature is on) has no hook on its paths.
//! Under a model backend nothing changes until a test calls `hazptr::raw::weaken::set`: the
//! feature alone weakens nothing, so a build that unifies features across the workspace
//! stays correct.
//!
//! A weakening applies to the calling OS thread, where loom and shuttle run every thread of a
//! model, until the returned [`Scope`] drops.
//!
//! [`Backend::MODEL`]: crate::Backend::MODEL
//! The state is a plain std atomic and a std thread-local on purpose: the model checkers must
//! not explore it, and it does not change while a model runs.
//!
//! Each hook is one line at its site, naming the weakening it obeys.

use core::sync::atomic::Ordering;

use crate::backend::Backend;

/// One guard of the protocol that a model can remove.
#[cfg_attr(not(feature = "weaken"), allow(unreachable_pub))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Weakening {
    /// The reader skips the light half of the asymmetric fence after publishing its slot
    /// (`slot::publish` and `slot::slow_path`).
    /// Checked by litmus/tests/hazptr/hazptr-acquire-before-scan+no-reader-mb.litmus.
    NoReaderFence,
    /// The scan cycle skips the heavy half of the asymmetric fence before loading the slots.
    /// Checked by litmus/tests/hazptr/hazptr-acquire-before-scan+no-scan-mb.litmus.
    NoScanFence,
    /// The scan cycle ignores a slot holding the wildcard instead of deferring.
    /// Checked by litmus/tests/hazptr/hazptr-bloom-wildcard-hole+no-wildcard-defer.litmus.
    NoWildcardDeferral,
    /// The scan cycle trusts the Bloom filter: a slot value the filter lets through holds
    /// every address of the batch, so a false positive can hold a waiter back for good.
    NoExactMatch,
    /// The fast path publishes with a relaxed store instead of a release store, so a scanner
    /// that reads the new protection where the previous one was learns of the previous one's
    /// end without its accesses.
    /// The LKMM orders the use before the relaxed store all the same
    /// (litmus/tests/hazptr/hazptr-drain-slot-mark+reacquire.litmus); C++20 does not, and
    /// `loom_drain::drain_fails_with_a_relaxed_publication` shows it.
    RelaxedPublication,
    /// A guard clears its slot with a relaxed store instead of a release store.
    /// Checked by litmus/tests/hazptr/hazptr-release-before-reclaim+no-release.litmus.
    RelaxedRelease,
    /// Dropping a domain sets the shutdown flag but does not wake the scan thread.
    NoShutdownKick,
    /// A drain engages even when its walk saw a slot holding the wildcard.
    /// Checked by litmus/tests/hazptr/hazptr-drain-engage-wildcard+no-wildcard-defer.litmus.
    NoEngageDeferral,
    /// Engage records the holders' slots without setting the mark in them, so the next check
    /// takes a protection that is still held for one that has ended.
    NoMark,
    /// Engage skips the remove-only re-snapshot after marking the holders' slots.
    NoResnapshot,
    /// A drain never disengages at the fairness cap.
    NoFairnessCap,
    /// The self-scan of `synchronize` skips the heavy half of the asymmetric fence before
    /// loading the slots.
    /// Checked by litmus/tests/hazptr/hazptr-self-scan+no-scan-mb.litmus.
    NoSelfScanFence,
    /// The self-scan of `synchronize` ignores a slot holding the wildcard instead of leaving
    /// the waiter to the shared scan.
    NoSelfScanWildcard,
}

impl Weakening {
    #[cfg(feature = "weaken")]
    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

/// Whether `weakening` is in force for the calling thread, under backend `B`.
#[inline(always)]
pub(crate) fn active<B: Backend>(weakening: Weakening) -> bool {
    #[cfg(feature = "weaken")]
    {
        B::MODEL && imp::active(weakening)
    }
    #[cfg(not(feature = "weaken"))]
    {
        let _ = weakening;
        false
    }
}

/// `normal`, or `weakened` while `weakening` is in force: for hooks that relax an ordering.
#[inline(always)]
pub(crate) fn order<B: Backend>(
    weakening: Weakening,
    normal: Ordering,
    weakened: Ordering,
) -> Ordering {
    if active::<B>(weakening) {
        weakened
    } else {
        normal
    }
}

#[cfg(feature = "weaken")]
pub use imp::{Scope, set};

#[cfg(feature = "weaken")]
mod imp {
    use core::cell::Cell;

    use super::Weakening;

    std::thread_local! {
        static LOCAL: Cell<u32> = const { Cell::new(0) };
    }

    pub(super) fn active(weakening: Weakening) -> bool {
        LOCAL.with(Cell::get) & weakening.bit() != 0
    }

    /// Keeps a weakening in force until it drops.
    #[must_use = "the weakening ends when the scope drops"]
    #[derive(Debug)]
    pub struct Scope {
        weakening: Weakening,
    }

    /// Puts `weakening` in force on the calling OS thread (and so on every thread of a loom
    /// or shuttle model run from it) until the returned scope drops.
    pub fn set(weakening: Weakening) -> Scope {
        LOCAL.with(|local| local.set(local.get() | weakening.bit()));
        Scope { weakening }
    }

    impl Drop for Scope {
        fn drop(&mut self) {
            let bit = self.weakening.bit();
            LOCAL.with(|local| local.set(local.get() & !bit));
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn a_scope_weakens_its_thread_until_it_drops() {
            assert!(!active(Weakening::NoReaderFence));
            let scope = set(Weakening::NoReaderFence);
            assert!(active(Weakening::NoReaderFence));
            assert!(!active(Weakening::NoScanFence));
            let elsewhere = std::thread::spawn(|| active(Weakening::NoReaderFence));
            assert!(!elsewhere.join().unwrap());
            drop(scope);
            assert!(!active(Weakening::NoReaderFence));
        }
    }
}
