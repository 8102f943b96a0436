//! Retired objects waiting for reclamation.
//!
//! `Domain::retire` hands over a pointer and a deleter; the object's address joins the next
//! scan cycle's batch like a waiter's, and the first cycle that finds no slot holding it
//! (and no wildcard) runs the deleter.
//! The deleter's type is erased behind a monomorphized trampoline, so a batch of objects of
//! different types is one `Vec`.

/// One retired object: its address, and how to reclaim it.
pub(crate) struct Retired {
    addr: usize,
    ptr: *mut (),
    deleter: *const (),
    trampoline: unsafe fn(*mut (), *const ()),
}

// Safety: `Retired::new` requires the object to be sendable to the thread that reclaims it,
// and the deleter is a plain function pointer.
unsafe impl Send for Retired {}

/// Calls the type-erased `deleter` on `ptr` at their original types.
///
/// # Safety
///
/// 1. `deleter` was made from an `unsafe fn(*mut T)` of this very `T`.
/// 2. Calling that deleter on `ptr.cast::<T>()` is safe.
unsafe fn trampoline<T>(ptr: *mut (), deleter: *const ()) {
    // Safety: by (1) the transmute restores the original function pointer type.
    let deleter: unsafe fn(*mut T) = unsafe { core::mem::transmute(deleter) };
    // Safety: by (2).
    unsafe { deleter(ptr.cast()) }
}

impl Retired {
    /// Records `ptr` for reclamation by `deleter`.
    ///
    /// # Safety
    ///
    /// 1. Calling `deleter(ptr)` once, on any thread, after no reader protects `ptr` any more,
    ///    is safe.
    pub(crate) unsafe fn new<T>(ptr: *mut T, deleter: unsafe fn(*mut T)) -> Self {
        Self {
            addr: ptr as usize,
            ptr: ptr.cast(),
            deleter: deleter as *const (),
            trampoline: trampoline::<T>,
        }
    }

    /// The object's address, as readers publish it.
    pub(crate) fn addr(&self) -> usize {
        self.addr
    }

    /// Runs the deleter.
    ///
    /// # Safety
    ///
    /// 1. No reader protects the object: a scan cycle found no slot holding its address, or
    ///    no reader exists.
    pub(crate) unsafe fn reclaim(self) {
        // Safety: the trampoline was made for the deleter's own `T` in `new`, and the
        // contract of `new` together with (1) makes the call safe.
        unsafe { (self.trampoline)(self.ptr, self.deleter) }
    }
}

/// The deleter for objects that came from `Box::into_raw`.
///
/// # Safety
///
/// 1. `ptr` came from `Box::<T>::into_raw` and is dropped nowhere else.
pub(crate) unsafe fn drop_box<T>(ptr: *mut T) {
    // Safety: by (1).
    drop(unsafe { Box::from_raw(ptr) });
}
