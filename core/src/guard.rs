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
use crate::slot::{self, EMPTY, Node, SlotList};

/// A reader handle: one primary slot, and access to an overflow list for nested protections.
pub struct Reader<'d, B: Backend = Std> {
    primary: &'d Node<B>,
    overflow: &'d SlotList<B>,
    force_slow_path: bool,
    /// The light fence, looked up once: the kind is constant once the domain exists.
    fence: LightFence,
    /// Copied from the domain's [`Config`](crate::Config).
    record_sites: bool,
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
        Self {
            primary,
            overflow,
            force_slow_path: config.force_slow_path,
            fence: B::light_fence_kind(),
            record_sites: config.record_sites,
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
        // Relaxed: this reader is the only writer of its primary slot, so the load sees its own
        // last store; the slot is non-empty exactly while a guard holds it.
        if self.primary.addr.load(Relaxed) != EMPTY {
            return self.protect_backup(src);
        }
        let p = slot::publish::<B, T>(&self.primary.addr, src, self.fence, self.force_slow_path);
        let ptr = NonNull::new(p)?;
        self.note_acquire(self.primary);
        Some(Guard::new(ptr, self.primary, false))
    }

    /// The nested path of [`Reader::protect`]: a backup slot from the overflow list.
    #[cold]
    #[inline(never)]
    #[track_caller]
    fn protect_backup<T>(&self, src: &B::AtomicPtr<T>) -> Option<Guard<'_, T, B>> {
        let node = self.overflow.claim();
        // Relaxed: read only by stall reports, which are diagnostics.
        node.owner_primary.store(self.primary.index, Relaxed);
        let p = slot::publish::<B, T>(&node.addr, src, self.fence, self.force_slow_path);
        match NonNull::new(p) {
            Some(ptr) => {
                self.note_acquire(node);
                Some(Guard::new(ptr, node, true))
            }
            None => {
                node.unclaim();
                None
            }
        }
    }
}

impl<B: Backend> Reader<'_, B> {
    /// Records, for stall reports, where and (under `debug_holders`) when a protection was
    /// taken.
    #[inline(always)]
    #[track_caller]
    fn note_acquire(&self, node: &Node<B>) {
        if self.record_sites {
            let site: &'static Location<'static> = Location::caller();
            // Relaxed: read only by stall reports, which are diagnostics.
            node.site
                .store(ptr::from_ref(site).expose_provenance(), Relaxed);
        }
        if self.debug_holders {
            self.note_acquire_debug(node);
        }
    }

    #[cold]
    #[inline(never)]
    fn note_acquire_debug(&self, node: &Node<B>) {
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
    /// The slot's node, tagged in its low bit when it is a backup slot. The tag lives in the
    /// pointer rather than in a field so that, once `protect` is inlined, the release path of
    /// a primary slot knows it statically and the guard stays two words.
    node: NonNull<Node<B>>,
    /// Borrows the object and the node, and keeps the guard on its thread (`*const` is
    /// neither `Send` nor `Sync`): the reader's primary slot is cleared by its own thread.
    _t: PhantomData<(&'r T, &'r Node<B>, *const ())>,
}

/// The tag bit of [`Guard::node`].
const BACKUP_TAG: usize = 1;

impl<'r, T, B: Backend> Guard<'r, T, B> {
    #[inline(always)]
    fn new(ptr: NonNull<T>, node: &'r Node<B>, backup: bool) -> Self {
        const { assert!(align_of::<Node<B>>() > BACKUP_TAG) };
        let node = NonNull::from(node).map_addr(|a| a | (backup as usize * BACKUP_TAG));
        Self {
            ptr,
            node,
            _t: PhantomData,
        }
    }

    #[inline(always)]
    fn node(&self) -> &'r Node<B> {
        let node = self.node.as_ptr().map_addr(|a| a & !BACKUP_TAG);
        // Safety: `new` tagged a reference that lives for `'r`; clearing the tag restores it.
        unsafe { &*node }
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
        self.node.addr().get() & BACKUP_TAG != 0
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
        let node = self.node();
        slot::clear::<B>(&node.addr);
        // Relaxed: a stale zero only leaves the mark for the scanner's re-snapshot to remove;
        // the clearing store in `drain::release_mark` carries the ordering.
        if node.drain_gen.load(Relaxed) != 0 {
            drain::release_mark::<B>(node);
        }
        if self.is_backup() {
            node.unclaim();
        }
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
