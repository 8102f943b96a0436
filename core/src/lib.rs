//! Hazard pointers with a shared scan thread, modelled on the Linux-kernel hazptr series.
//!
//! A reader protects a pointer by publishing its address in a slot; a writer that has
//! unlinked an object waits until no slot holds its address ([`Domain::synchronize`]) or
//! hands it over to be reclaimed once none does ([`Domain::retire`]).
//!
//! ```
//! use std::sync::atomic::{AtomicPtr, Ordering};
//! use hazptr::Domain;
//!
//! let domain = Domain::new();
//! let src = AtomicPtr::new(Box::into_raw(Box::new(7_u32)));
//!
//! let mut reader = domain.reader();
//! // Safety: every pointer stored in `src` comes from a box, and is freed only after it has
//! // been unlinked and `synchronize`d.
//! let guard = unsafe { reader.protect(&src) }.expect("not null");
//! assert_eq!(*guard, 7);
//! drop(guard);
//!
//! let old = src.swap(Box::into_raw(Box::new(8)), Ordering::AcqRel);
//! domain.synchronize(old);
//! // Safety: `old` is unlinked, and no reader protects it any more.
//! drop(unsafe { Box::from_raw(old) });
//! # // Safety: the domain is the only user left.
//! # unsafe { domain.retire_box(src.load(Ordering::Relaxed)) };
//! ```
//!
//! Every concurrent primitive comes from a [`Backend`]: [`Std`] by default, or `Loom` and
//! `Shuttle` under the features of those names, so the model checkers run this very code.
//! The book's hazptr chapter gives the protocol and its ordering argument.
//!
//! The feature `weaken` is for tests only: off in every default build, enabled only by the
//! models (package `hazmat-models`), it adds `raw::weaken`, switches that remove one fence,
//! ordering or protocol step at run time so that a model can prove it sees the bug.
//! The feature alone changes nothing: every switch starts off.
#![deny(unsafe_op_in_unsafe_fn)]

pub mod backend;
mod bloom;
mod config;
mod domain;
mod drain;
mod guard;
mod retire;
mod scan;
mod slot;
mod stall;
mod weaken;

pub use backend::{Backend, Std};
pub use config::{Config, ScanMode};
pub use domain::{Domain, Stats};
pub use guard::{Guard, Reader};
pub use stall::{Holder, SlotKind, StallReport};

/// Low-level pieces for models and tests: driving scan cycles by hand, slot values.
pub mod raw {
    pub use crate::scan::CycleReport;
    pub use crate::slot::{EMPTY, MARK, WILDCARD};

    use core::cell::Cell;
    use std::sync::Arc;

    use crate::backend::{Backend, Event};
    use crate::domain::Domain;

    /// Runs one scan cycle of `domain` on the calling thread, serving every waiter and
    /// retired object present when it starts; waits if another cycle is running.
    pub fn scan_cycle<B: Backend>(domain: &Domain<B>) -> CycleReport {
        crate::scan::cycle(domain.shared())
    }

    /// Enqueues a waiter for `ptr`'s address without blocking or waking the scan thread:
    /// `synchronize` split in two, so a model can run cycles by hand, back to back, and ask
    /// [`Wait::is_complete`] in between. Call it after unlinking, as `synchronize`.
    pub fn enqueue<B: Backend, T>(domain: &Domain<B>, ptr: *const T) -> Wait<B> {
        Wait {
            done: domain.enqueue(ptr as usize),
            complete: Cell::new(false),
        }
    }

    /// A waiter enqueued by [`enqueue`].
    pub struct Wait<B: Backend> {
        done: Arc<B::Event>,
        complete: Cell<bool>,
    }

    impl<B: Backend> Wait<B> {
        /// Whether a scan cycle (or a drain) has completed the waiter: no protection taken
        /// before the enqueue still holds the address.
        pub fn is_complete(&self) -> bool {
            if !self.complete.get() && self.done.try_take() {
                self.complete.set(true);
            }
            self.complete.get()
        }
    }

    /// Test-only switches that weaken the protocol (feature `weaken`), one per guard.
    #[cfg(feature = "weaken")]
    pub mod weaken {
        pub use crate::weaken::{Scope, Weakening, set};
    }
}
