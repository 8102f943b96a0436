//! Readers and guards: the read side of the API.
//!
//! A [`Reader`] is a per-thread handle owning one primary slot, the kernel's per-CPU slot.
//! [`Reader::protect`] publishes a pointer into that slot through the `try_acquire` fast path
//! and returns a [`Guard`] that clears the slot when it drops (the kernel's `scoped_guard`).
//! While the primary slot is in use, further protections through the same reader take a
//! backup slot from the reader's overflow list; [`Guard::is_backup`] says which kind a guard
//! holds.
//! A reader is `Send` but not `Sync`, and a guard is neither: a protection is released on the
//! thread that took it.

use core::cell::Cell;
use core::fmt;
use core::marker::PhantomData;
use core::ops::Deref;
use core::panic::Location;
use core::ptr::{self, NonNull};
use core::sync::atomic::Ordering::Relaxed;
use std::backtrace::Backtrace;

use crate::backend::{Atomic, Backend, Clock, LightFence, Lock, Std};
use crate::domain::Domain;
use crate::drain;
use crate::slot::{self, BACKUP_BIT, EMPTY, GENERATION_MASK, Node, SlotList};

/// A reader handle: one primary slot, and access to an overflow list for nested protections.
pub struct Reader<'d, B: Backend = Std> {
    primary: &'d Node<B>,
    /// The inline fast path's gate: the primary slot itself when the fast path applies (then
    /// "is the gate empty?" is also "is the primary slot free?"), else the domain's closed
    /// gate, which is never empty, so every protection takes the general path.
    gate: &'d B::AtomicUsize,
    overflow: &'d SlotList<B>,
    force_slow_path: bool,
    /// The light fence, looked up once: the kind is constant once the domain exists.
    fence: LightFence,
    /// Copied from the domain's [`Config`](crate::Config).
    debug_holders: bool,
    clock: &'d B::Clock,
    /// Makes the reader `!Sync`: two threads protecting through one reader would race for
    /// its primary slot.
    _not_sync: PhantomData<Cell<()>>,
}

impl<'d, B: Backend> Reader<'d, B> {
    pub(crate) fn new(
        domain: &'d Domain<B>,
        primary: &'d Node<B>,
        overflow: &'d SlotList<B>,
    ) -> Self {
        primary
            .owner
            .with(|owner| *owner = Some(B::current_thread()));
        // Relaxed: read only by stall reports, which are diagnostics.
        primary.owner_primary.store(primary.index, Relaxed);
        let config = domain.config();
        let fence = B::light_fence_kind();
        // The inline path assumes the compiler-fence light half, the try_acquire fast path
        // and no debug recording; anything else goes through `protect_general`.
        let inline =
            fence == LightFence::Compiler && !config.force_slow_path && !config.debug_holders;
        Self {
            primary,
            gate: if inline {
                &primary.addr
            } else {
                &domain.shared().closed_gate
            },
            overflow,
            force_slow_path: config.force_slow_path,
            fence,
            debug_holders: config.debug_holders,
            clock: &domain.shared().clock,
            _not_sync: PhantomData,
        }
    }

    /// Loads the pointer in `src` and protects it: until the guard drops, a writer that
    /// unlinks the object and then calls [`Domain::synchronize`] on it waits, and one that
    /// retires it does not see it reclaimed.
    ///
    /// Returns `None`, holding no slot, if the pointer is null.
    ///
    /// # Safety
    ///
    /// 1. Every non-null pointer stored in `src` while the guard lives points to a valid `T`
    ///    that may be shared between threads, and stays valid until it has been unlinked from
    ///    `src` (and every other place a reader could load it) and then either passed to
    ///    `synchronize` of this reader's domain before being freed, or retired into it.
    #[inline]
    #[track_caller]
    pub unsafe fn protect<T>(&self, src: &B::AtomicPtr<T>) -> Option<Guard<'_, T, B>> {
        // Relaxed: the gate is this reader's primary slot, whose only writer is this reader,
        // so the load sees its own last store (the slot is non-empty exactly while a guard
        // holds it), or the closed gate, which never changes.
        if self.gate.load(Relaxed) == EMPTY {
            let p = slot::publish::<B, T>(self.gate, src, LightFence::Compiler, false);
            let ptr = NonNull::new(p)?;
            return Some(Guard::new(ptr, self.primary));
        }
        self.protect_general(src)
    }

    /// Every case of [`Reader::protect`] but the inline one: a busy primary slot (nesting:
    /// a backup slot from the overflow list), a full light fence, the forced slow path, debug
    /// recording.
    #[cold]
    #[inline(never)]
    #[track_caller]
    fn protect_general<T>(&self, src: &B::AtomicPtr<T>) -> Option<Guard<'_, T, B>> {
        // Relaxed: as in `protect`.
        let node = if self.primary.addr.load(Relaxed) == EMPTY {
            self.primary
        } else {
            let node = self.overflow.claim();
            // Relaxed: read only by stall reports, which are diagnostics.
            node.owner_primary.store(self.primary.index, Relaxed);
            node
        };
        let p = slot::publish::<B, T>(&node.addr, src, self.fence, self.force_slow_path);
        let Some(ptr) = NonNull::new(p) else {
            if node.is_backup() {
                node.unclaim();
            }
            return None;
        };
        if self.debug_holders {
            self.note_acquire_debug(node, Location::caller());
        }
        Some(Guard::new(ptr, node))
    }
}

impl<B: Backend> Reader<'_, B> {
    /// Under `debug_holders`, records for stall reports where and when the protection was
    /// taken, and its backtrace. Like the kernel's `CONFIG_HAZPTR_DEBUG` acquire fields, this
    /// is a debug option: even the one store of a call site costs the inline read path a
    /// measurable share of its time.
    #[cold]
    #[inline(never)]
    fn note_acquire_debug(&self, node: &Node<B>, site: &'static Location<'static>) {
        // Relaxed: read only by stall reports, which are diagnostics.
        node.site
            .store(ptr::from_ref(site).expose_provenance(), Relaxed);
        let now = u64::try_from(self.clock.now().as_nanos()).unwrap_or(u64::MAX - 1);
        // Relaxed: read only by stall reports, which are diagnostics.
        node.acquired_at.store(now + 1, Relaxed);
        let trace = Backtrace::force_capture().to_string();
        node.backtrace.with(|slot| *slot = Some(trace));
    }
}

impl<B: Backend> Drop for Reader<'_, B> {
    fn drop(&mut self) {
        // Every guard borrows the reader, so the primary slot is empty here.
        self.primary.unclaim();
    }
}

impl<B: Backend> fmt::Debug for Reader<'_, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reader")
            .field("primary_slot", &self.primary.index)
            .field("primary_busy", &(self.primary.addr.load(Relaxed) != EMPTY))
            .finish()
    }
}

/// A protected pointer; the protection ends when the guard drops.
pub struct Guard<'r, T, B: Backend = Std> {
    ptr: NonNull<T>,
    node: &'r Node<B>,
    /// Borrows the object, and keeps the guard on its thread (`*const` is neither `Send` nor
    /// `Sync`): the reader's primary slot is cleared by its own thread.
    _t: PhantomData<(&'r T, *const ())>,
}

impl<'r, T, B: Backend> Guard<'r, T, B> {
    #[inline(always)]
    fn new(ptr: NonNull<T>, node: &'r Node<B>) -> Self {
        Self {
            ptr,
            node,
            _t: PhantomData,
        }
    }
}

impl<T, B: Backend> Guard<'_, T, B> {
    /// The protected pointer.
    pub fn as_ptr(&self) -> *mut T {
        self.ptr.as_ptr()
    }

    /// Whether the guard holds a backup slot from an overflow list rather than its reader's
    /// primary slot.
    pub fn is_backup(&self) -> bool {
        self.node.is_backup()
    }
}

impl<T, B: Backend> Deref for Guard<'_, T, B> {
    type Target = T;

    fn deref(&self) -> &T {
        // Safety: `protect`'s contract (1) keeps the object valid and shareable while its
        // address is published, which it is until this guard drops.
        unsafe { self.ptr.as_ref() }
    }
}

impl<T, B: Backend> Drop for Guard<'_, T, B> {
    #[inline]
    fn drop(&mut self) {
        slot::clear::<B>(&self.node.addr);
        // Relaxed: the word is zero for an unmarked primary slot, the common case. A stale
        // zero for a slot the scanner has just marked only leaves the mark for the scanner's
        // re-snapshot to remove; `release_cold` carries the ordering when there is work.
        if self.node.drain_gen.load(Relaxed) != 0 {
            release_cold(self.node);
        }
    }
}

/// The rest of a release: clear a drain mark, give a backup slot back.
#[cold]
#[inline(never)]
fn release_cold<B: Backend>(node: &Node<B>) {
    // Relaxed: the node's own word; the mark's clearing below carries the ordering.
    let word = node.drain_gen.load(Relaxed);
    if word & GENERATION_MASK != 0 {
        drain::release_mark::<B>(node, word & BACKUP_BIT);
    }
    if word & BACKUP_BIT != 0 {
        node.unclaim();
    }
}

impl<T, B: Backend> fmt::Debug for Guard<'_, T, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Guard")
            .field("ptr", &self.ptr)
            .field("backup", &self.is_backup())
            .finish()
    }
}
