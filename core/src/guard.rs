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
use core::ptr::NonNull;

use crate::backend::{Backend, Std};
use crate::domain::Domain;
use crate::slot::{self, Node, SlotList};

/// A reader handle: one primary slot, and access to an overflow list for nested protections.
pub struct Reader<'d, B: Backend = Std> {
    primary: &'d Node<B>,
    primary_busy: Cell<bool>,
    overflow: &'d SlotList<B>,
    primaries: &'d SlotList<B>,
    force_slow_path: bool,
}

impl<'d, B: Backend> Reader<'d, B> {
    pub(crate) fn new(
        domain: &'d Domain<B>,
        primary: &'d Node<B>,
        overflow: &'d SlotList<B>,
    ) -> Self {
        Self {
            primary,
            primary_busy: Cell::new(false),
            overflow,
            primaries: &domain.shared().primaries,
            force_slow_path: domain.config().force_slow_path,
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
    pub unsafe fn protect<T>(&self, src: &B::AtomicPtr<T>) -> Option<Guard<'_, T, B>> {
        if !self.primary_busy.get() {
            let p = slot::publish::<B, T>(&self.primary.addr, src, self.force_slow_path);
            let ptr = NonNull::new(p)?;
            self.primary_busy.set(true);
            return Some(Guard {
                ptr,
                node: self.primary,
                owner: Owner::Primary(&self.primary_busy),
                _t: PhantomData,
            });
        }
        self.protect_backup(src)
    }

    /// The nested path of [`Reader::protect`]: a backup slot from the overflow list.
    #[cold]
    #[inline(never)]
    fn protect_backup<T>(&self, src: &B::AtomicPtr<T>) -> Option<Guard<'_, T, B>> {
        let node = self.overflow.claim();
        let p = slot::publish::<B, T>(&node.addr, src, self.force_slow_path);
        match NonNull::new(p) {
            Some(ptr) => Some(Guard {
                ptr,
                node,
                owner: Owner::Backup(self.overflow),
                _t: PhantomData,
            }),
            None => {
                self.overflow.unclaim(node);
                None
            }
        }
    }
}

impl<B: Backend> Drop for Reader<'_, B> {
    fn drop(&mut self) {
        // Every guard borrows the reader, so the primary slot is empty here.
        self.primaries.unclaim(self.primary);
    }
}

impl<B: Backend> fmt::Debug for Reader<'_, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reader")
            .field("primary_slot", &self.primary.index)
            .field("primary_busy", &self.primary_busy.get())
            .finish()
    }
}

/// Which kind of slot a guard holds, and how to give it back.
enum Owner<'r, B: Backend> {
    Primary(&'r Cell<bool>),
    Backup(&'r SlotList<B>),
}

/// A protected pointer; the protection ends when the guard drops.
pub struct Guard<'r, T, B: Backend = Std> {
    ptr: NonNull<T>,
    node: &'r Node<B>,
    owner: Owner<'r, B>,
    _t: PhantomData<&'r T>,
}

impl<T, B: Backend> Guard<'_, T, B> {
    /// The protected pointer.
    pub fn as_ptr(&self) -> *mut T {
        self.ptr.as_ptr()
    }

    /// Whether the guard holds a backup slot from an overflow list rather than its reader's
    /// primary slot.
    pub fn is_backup(&self) -> bool {
        matches!(self.owner, Owner::Backup(_))
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
        match self.owner {
            Owner::Primary(busy) => busy.set(false),
            Owner::Backup(list) => list.unclaim(self.node),
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
