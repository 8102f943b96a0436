//! Readers and guards: the read side of the API.
//!
//! A [`Reader`] is a per-thread handle owning one primary slot, the kernel's per-CPU slot.
//! [`Reader::protect`] publishes a pointer into that slot through the `try_acquire` fast path
//! and returns a [`Guard`] that clears the slot when it drops (the kernel's `scoped_guard`).
//! The guard borrows the reader mutably, so the primary slot is free whenever `protect` is
//! called and the fast path checks nothing before publishing.
//! Further protections while a guard lives are taken through the guard
//! ([`Guard::protect_nested`]) and publish into backup slots from the reader's overflow list;
//! [`Guard::is_backup`] says which kind a guard holds.
//! A reader is `Send` but not `Sync`, and a guard is neither: a protection is released on the
//! thread that took it.

use core::cell::Cell;
use core::fmt;
use core::marker::PhantomData;
use core::ops::Deref;
use core::panic::Location;
use core::ptr::{self, NonNull};
use core::sync::atomic::Ordering::{Acquire, Relaxed};
use std::backtrace::Backtrace;

use crate::backend::{Atomic, Backend, Clock, LightFence, Lock, Std};
use crate::domain::Domain;
use crate::slot::{self, Node, SlotList};

/// A reader handle: one primary slot, and access to an overflow list for nested protections.
pub struct Reader<'d, B: Backend = Std> {
    primary: &'d Node<B>,
    /// The primary slot again when the inline fast path applies, else `None` (a full light
    /// fence, the forced slow path, debug recording): one load of the reader both decides
    /// the path and gives the slot.
    inline: Option<&'d Node<B>>,
    overflow: &'d SlotList<B>,
    force_slow_path: bool,
    /// The light fence, looked up once: the kind is constant once the domain exists.
    fence: LightFence,
    /// Copied from the domain's [`Config`](crate::Config).
    debug_holders: bool,
    clock: &'d B::Clock,
    /// Makes the reader `!Sync`: two threads protecting through one reader would race for
    /// its slots.
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
            inline: inline.then_some(primary),
            overflow,
            force_slow_path: config.force_slow_path,
            fence,
            debug_holders: config.debug_holders,
            clock: &domain.shared().clock,
            _not_sync: PhantomData,
        }
    }

    /// Loads the pointer in `src` and protects it in the reader's primary slot: until the
    /// guard drops, a writer that unlinks the object and then calls [`Domain::synchronize`]
    /// on it waits, and one that retires it does not see it reclaimed.
    ///
    /// Returns `None`, holding no slot, if the pointer is null.
    /// The guard borrows the reader; protect more pointers meanwhile through the guard
    /// ([`Guard::protect_nested`]) or through a second reader.
    ///
    /// # Safety
    ///
    /// 1. Every non-null pointer stored in `src` while the guard lives points to a valid `T`
    ///    that may be shared between threads, and stays valid until it has been unlinked from
    ///    `src` (and every other place a reader could load it) and then either passed to
    ///    `synchronize` of this reader's domain before being freed, or retired into it.
    #[inline]
    #[track_caller]
    pub unsafe fn protect<T>(&mut self, src: &B::AtomicPtr<T>) -> Option<Guard<'_, T, B>> {
        // Acquire: pairs with the writer's release store of the pointer, so the object's
        // initialization is visible through it.
        let p = src.load(Acquire);
        // No check that the primary slot is free: every guard borrows the reader, so none
        // holds the slot now. A guard leaked with `mem::forget` left its protection behind,
        // which this one replaces; its pointer can no longer be used.
        if let Some(node) = self.inline
            && !p.is_null()
            && {
                node.note_protector(Location::caller());
                slot::try_acquire::<B, T>(&node.addr, src, p, LightFence::Compiler)
            }
        {
            // Safety: checked not null above.
            let ptr = unsafe { NonNull::new_unchecked(p) };
            // `node`, not `self.primary`: the value loaded before the fence, so the fast path
            // reads the reader once.
            return Some(Guard::new(ptr, node, self, false));
        }
        // The general path returns the bare pointer, not a guard, so that the guard is built
        // here from values already in registers and the inline path stores nothing but the
        // slot.
        let ptr = NonNull::new(self.protect_general(self.primary, src))?;
        Some(Guard::new(ptr, self.primary, self, false))
    }

    /// Protects the pointer in `src` in a backup slot; see [`Guard::protect_nested`].
    #[track_caller]
    fn protect_backup<T>(&self, src: &B::AtomicPtr<T>) -> Option<Guard<'_, T, B>> {
        let node = self.overflow.claim();
        // Relaxed: read only by stall reports, which are diagnostics.
        node.owner_primary.store(self.primary.index, Relaxed);
        let ptr = NonNull::new(self.protect_general(node, src))?;
        Some(Guard::new(ptr, node, self, true))
    }

    /// Every case of [`Reader::protect`] but the inline one: a null pointer, a full light
    /// fence, the forced slow path, debug recording, and every backup slot.
    #[cold]
    #[inline(never)]
    #[track_caller]
    fn protect_general<T>(&self, node: &Node<B>, src: &B::AtomicPtr<T>) -> *mut T {
        node.note_protector(Location::caller());
        let p = slot::publish::<B, T>(&node.addr, src, self.fence, self.force_slow_path);
        if p.is_null() {
            if node.is_backup() {
                node.unclaim();
            }
        } else if self.debug_holders {
            self.note_acquire_debug(node, Location::caller());
        }
        p
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
        // Clear what a leaked guard may have left behind, then give the slot back.
        // Release: as a guard's release (`slot::clear`).
        slot::clear::<B>(&self.primary.addr);
        self.primary.unclaim();
    }
}

impl<B: Backend> fmt::Debug for Reader<'_, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reader")
            .field("primary_slot", &self.primary.index)
            .finish()
    }
}

/// A protected pointer; the protection ends when the guard drops.
pub struct Guard<'r, T, B: Backend = Std> {
    ptr: NonNull<T>,
    node: &'r Node<B>,
    /// The reader the guard came from, for nested protections; borrowed (mutably, through
    /// the first guard) for `'r`, so no other protection goes through it meanwhile.
    reader: &'r Reader<'r, B>,
    /// Whether `node` is a backup slot, to give back on release. A field rather than a load
    /// of the node's flag: on the inline path it is a constant, and the release is one store.
    backup: bool,
    /// Borrows the object, and keeps the guard on its thread (`*const` is neither `Send` nor
    /// `Sync`): the reader's primary slot is cleared by its own thread.
    _t: PhantomData<(&'r T, *const ())>,
}

impl<'r, T, B: Backend> Guard<'r, T, B> {
    #[inline(always)]
    fn new(ptr: NonNull<T>, node: &'r Node<B>, reader: &'r Reader<'r, B>, backup: bool) -> Self {
        debug_assert_eq!(backup, node.is_backup());
        Self {
            ptr,
            node,
            reader,
            backup,
            _t: PhantomData,
        }
    }

    /// Loads the pointer in `src` and protects it in a backup slot from the reader's overflow
    /// list, as [`Reader::protect`] does in the primary slot.
    ///
    /// The new guard borrows the reader, not this guard, so either may drop first: a list is
    /// walked hand over hand by protecting the next node through the current guard and then
    /// replacing the current guard with the new one.
    /// A backup slot costs a claim from the overflow list on top of the slow path's
    /// publication; a thread that keeps two protections at once on a hot path is faster with
    /// two readers.
    ///
    /// Returns `None`, holding no slot, if the pointer is null.
    ///
    /// # Safety
    ///
    /// 1. As [`Reader::protect`]'s contract (1), for `src` and the new guard.
    #[track_caller]
    pub unsafe fn protect_nested<U>(&self, src: &B::AtomicPtr<U>) -> Option<Guard<'r, U, B>> {
        self.reader.protect_backup(src)
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
        self.backup
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
        // The release tests nothing: the store also erases a drain's mark (see `drain`).
        slot::clear::<B>(&self.node.addr);
        if self.backup {
            self.node.unclaim();
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
