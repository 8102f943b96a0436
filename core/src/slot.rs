//! Slots: where readers publish the addresses they protect, and the publication protocol.
//!
//! A slot holds one `usize`: [`EMPTY`], an address, [`WILDCARD`], or an address with the
//! drain's [`MARK`] bit set by a scanner (see `drain`).
//! Each reader owns one primary slot (the kernel's per-CPU slot) for its fast path; nested
//! or extra protections take backup slots from one of the domain's overflow lists.
//! Both kinds live in [`SlotList`]s: append-only lock-free lists whose nodes are claimed and
//! unclaimed, never unlinked, and freed only with the domain.
//! Because nothing is ever unlinked, a scanner walks a list with plain acquire loads and no
//! generation counter or retry, and a slot's memory outlives every guard that refers to it.
//!
//! # Publication
//!
//! [`publish`] is the reader's side of the protocol.
//! The fast path (`try_acquire`) loads the source pointer, stores it into the slot with a
//! relaxed store, issues the light half of the asymmetric fence, and re-reads the source: if
//! the pointer is unchanged it is protected.
//! Otherwise, or when the debug option forces it, the slow path stores [`WILDCARD`], fences,
//! loads the source once more, and stores what it loaded, which needs no re-check: while the
//! slot holds the wildcard every scanner treats it as holding every address.
//!
//! The argument, for a writer that unlinks `p` (store A) and then waits for `p`: the scanner
//! runs the heavy half of the fence after store A and before loading the slots.
//! If the reader's fence comes first, the scanner's slot load sees the reader's slot store
//! (`p`, or the wildcard that precedes it) and defers; if the scanner's fence comes first,
//! the reader's re-read sees store A, finds the pointer changed, and does not use `p`.
//! Checked by litmus/tests/hazptr/hazptr-acquire-before-scan.litmus (the fast path) and
//! litmus/tests/hazptr/hazptr-wildcard-protocol.litmus (the wildcard slow path).

use core::panic::Location;
use core::ptr;
use core::sync::atomic::Ordering::{Acquire, Relaxed, Release};

use crate::backend::{Atomic, AtomicInt, Backend, LightFence, Lock, ThreadInfo};
use crate::weaken::{self, Weakening};

/// The value of an unused slot.
pub const EMPTY: usize = 0;

/// The value a reader publishes while it is between loading a pointer and publishing it:
/// "this slot may hold any address". No object starts at the last byte of the address space,
/// so the value is never a real address.
pub const WILDCARD: usize = usize::MAX;

/// The bit a drain sets in a slot holding its address, to tell that protection from a later
/// one of the same address (see `drain`). The reader never tests it: its release store of
/// [`EMPTY`], or any later publication, overwrites the whole word and the mark with it.
///
/// The top bit is free in every user-space address of the 64-bit targets in use (x86-64 and
/// AArch64 keep user space in the lower half). A pointer that sets it all the same, as
/// AArch64's top-byte tags may, stays safe, because the scanner compares slot values and
/// addresses with the bit masked off on both sides, which can only make two
/// addresses collide; only the drain loses its grip on such an address, since marking it
/// changes nothing.
pub const MARK: usize = 1 << (usize::BITS - 1);

/// What the scanner compares: a slot value or an address without the [`MARK`] bit.
/// Not for [`EMPTY`] or [`WILDCARD`], which the scanner tests first.
#[inline]
pub(crate) fn key(value: usize) -> usize {
    value & !MARK
}

/// One slot and its bookkeeping, as a node of a [`SlotList`].
pub(crate) struct Node<B: Backend> {
    /// The published value: [`EMPTY`], an address, or [`WILDCARD`].
    pub(crate) addr: B::AtomicUsize,
    /// Whether a reader (primary) or a guard (backup) owns the slot.
    claimed: B::AtomicBool,
    /// Position in the list, counted from the first node ever added.
    pub(crate) index: usize,
    /// Whether this is a backup slot from an overflow list; fixed for the node's life.
    backup: bool,
    /// Where the slot's current protection was taken: a `&'static Location` as an exposed
    /// address, or 0 when sites are not recorded.
    pub(crate) site: B::AtomicUsize,
    /// Under `Config::debug_holders`, when the current protection was taken, in nanoseconds
    /// of the domain's clock plus one; 0 when unknown.
    pub(crate) acquired_at: B::AtomicU64,
    /// For a primary slot, the thread that owns it; for a backup slot, the index of the
    /// primary slot of the reader that claimed it (see `stall`).
    pub(crate) owner: B::Mutex<Option<ThreadInfo>>,
    pub(crate) owner_primary: B::AtomicUsize,
    /// Under `Config::debug_holders`, the backtrace of the current protection's acquire.
    pub(crate) backtrace: B::Mutex<Option<String>>,
    /// In debug builds on the std backend, the [`Backend::thread_token`] of the thread that
    /// took the current protection, stored before its publication; 0 otherwise. It lets
    /// `synchronize` tell a caller that protects the very address it waits for.
    pub(crate) protector: B::AtomicUsize,
    /// With `protector`, where that protection was taken: a `&'static Location` as an exposed
    /// address, or 0.
    pub(crate) protector_site: B::AtomicUsize,
    /// The next node; written once, before the node is published, and never again.
    next: *const Node<B>,
}

// Safety: every field but `next` is an atomic or a lock; `next` is written once, before the
// node is published, and only read afterwards.
unsafe impl<B: Backend> Send for Node<B> {}
// Safety: as for `Send`.
unsafe impl<B: Backend> Sync for Node<B> {}

impl<B: Backend> Node<B> {
    /// In debug builds on the std backend, records who takes the protection about to be
    /// published in this slot, and where; compiles to nothing otherwise.
    /// Call it before the publication.
    #[inline(always)]
    pub(crate) fn note_protector(&self, site: &'static Location<'static>) {
        if cfg!(debug_assertions) && !B::MODEL {
            // Relaxed: the publication that follows is a release store, and `synchronize`
            // reads these fields only after an acquire load of the slot that read that
            // publication (or a later one), which carries them.
            self.protector.store(B::thread_token(), Relaxed);
            self.protector_site
                .store(ptr::from_ref(site).expose_provenance(), Relaxed);
        }
    }

    /// Whether this is a backup slot.
    pub(crate) fn is_backup(&self) -> bool {
        self.backup
    }

    /// Returns a slot claimed by [`SlotList::claim`]; its value must already be [`EMPTY`].
    pub(crate) fn unclaim(&self) {
        debug_assert_eq!(self.addr.load(Relaxed), EMPTY);
        // Release: pairs with the acquire CAS in `claim`.
        self.claimed.store(false, Release);
    }
}

/// An append-only list of slots.
pub(crate) struct SlotList<B: Backend> {
    head: B::AtomicPtr<Node<B>>,
    len: B::AtomicUsize,
    /// Whether this is an overflow list rather than the primaries.
    backup: bool,
}

// Safety: the raw `next` pointers are written only before a node is published with a release
// CAS and read only after an acquire load of the link that published it, and nodes are freed
// only in `drop`, with `&mut self`; every other field is an atomic.
unsafe impl<B: Backend> Send for SlotList<B> {}
// Safety: as for `Send`.
unsafe impl<B: Backend> Sync for SlotList<B> {}

impl<B: Backend> SlotList<B> {
    /// An empty list of primary slots, or of backup slots if `backup`.
    pub(crate) fn new(backup: bool) -> Self {
        Self {
            head: B::AtomicPtr::new(ptr::null_mut()),
            len: B::AtomicUsize::new(0),
            backup,
        }
    }

    /// Claims an unclaimed slot, adding one if every slot is claimed.
    ///
    /// The returned slot is [`EMPTY`] and stays claimed until [`Node::unclaim`].
    pub(crate) fn claim(&self) -> &Node<B> {
        for node in self.iter() {
            // Acquire on success: pairs with the release in `unclaim`, so the previous owner's
            // last slot store happens before this owner's first.
            if !node.claimed.load(Relaxed)
                && node
                    .claimed
                    .compare_exchange(false, true, Acquire, Relaxed)
                    .is_ok()
            {
                return node;
            }
        }
        // Relaxed: the index only labels the node; nothing is ordered by it.
        let index = self.len.fetch_add(1, Relaxed);
        let node = Box::into_raw(Box::new(Node {
            addr: B::AtomicUsize::new(EMPTY),
            claimed: B::AtomicBool::new(true),
            index,
            backup: self.backup,
            site: B::AtomicUsize::new(0),
            acquired_at: B::AtomicU64::new(0),
            owner: B::Mutex::new(None),
            owner_primary: B::AtomicUsize::new(usize::MAX),
            backtrace: B::Mutex::new(None),
            protector: B::AtomicUsize::new(0),
            protector_site: B::AtomicUsize::new(0),
            next: ptr::null(),
        }));
        // Relaxed: the CAS below re-checks the head it links to.
        let mut head = self.head.load(Relaxed);
        loop {
            // Safety: `node` came from `Box::into_raw` above and is not yet shared.
            unsafe { (*node).next = head };
            // Release: pairs with the acquire loads in `iter`, publishing the node's fields.
            // The push also precedes this reader's light fence in `publish`, so a scanner
            // whose heavy fence comes later sees the node, just as it sees the slot store.
            match self.head.compare_exchange(head, node, Release, Relaxed) {
                Ok(_) => break,
                Err(current) => head = current,
            }
        }
        // Safety: the node is never freed before the list, which `&self` borrows.
        unsafe { &*node }
    }

    /// Walks every node, newest first.
    pub(crate) fn iter(&self) -> Iter<'_, B> {
        // Acquire: pairs with the release CAS in `claim`, so the node's fields are visible.
        Iter {
            next: self.head.load(Acquire),
            _list: self,
        }
    }

    /// Number of nodes ever added.
    pub(crate) fn len(&self) -> usize {
        // Relaxed: a statistic.
        self.len.load(Relaxed)
    }
}

impl<B: Backend> Drop for SlotList<B> {
    fn drop(&mut self) {
        let mut next = self.head.load(Relaxed).cast_const();
        while !next.is_null() {
            // Safety: every node came from `Box::into_raw` in `claim`, is reachable exactly
            // once from the head, and `&mut self` proves no reference to it remains.
            let node = unsafe { Box::from_raw(next.cast_mut()) };
            next = node.next;
        }
    }
}

/// An iterator over the nodes of a [`SlotList`].
pub(crate) struct Iter<'a, B: Backend> {
    next: *const Node<B>,
    _list: &'a SlotList<B>,
}

impl<'a, B: Backend> Iterator for Iter<'a, B> {
    type Item = &'a Node<B>;

    fn next(&mut self) -> Option<&'a Node<B>> {
        if self.next.is_null() {
            return None;
        }
        // Safety: non-null links point to published nodes (the acquire load in `iter` or the
        // immutable `next` of an earlier node, itself published before the node that links to
        // it), and nodes live as long as the list, which `'a` borrows.
        let node = unsafe { &*self.next };
        self.next = node.next;
        Some(node)
    }
}

/// Publishes the pointer in `src` into `slot` and returns it; the pointer is protected until
/// the slot is cleared. A null pointer is returned with the slot left [`EMPTY`].
#[inline(always)]
pub(crate) fn publish<B: Backend, T>(
    slot: &B::AtomicUsize,
    src: &B::AtomicPtr<T>,
    fence: LightFence,
    force_slow_path: bool,
) -> *mut T {
    if force_slow_path {
        return slow_path::<B, T>(slot, src, fence);
    }
    // Acquire: pairs with the writer's release store of the pointer, so the object's
    // initialization is visible through it.
    let p = src.load(Acquire);
    if p.is_null() {
        return p;
    }
    if try_acquire::<B, T>(slot, src, p, fence) {
        return p;
    }
    slow_path::<B, T>(slot, src, fence)
}

/// The try_acquire fast path of [`publish`], for a non-null `p` already loaded from `src`
/// with an acquire load: stores `p` into `slot` and says whether `src` still holds it after
/// the light fence, which makes `p` protected. On `false` the slot holds a stale `p`, which
/// protects too much but never too little, until the caller publishes again or clears it.
#[inline(always)]
pub(crate) fn try_acquire<B: Backend, T>(
    slot: &B::AtomicUsize,
    src: &B::AtomicPtr<T>,
    p: *mut T,
    fence: LightFence,
) -> bool {
    // Release, though the light fence below orders the publication: a scanner that reads this
    // value where the slot's previous protection was learns that protection has ended, and
    // only a release store carries the reader's earlier accesses to it (the release store of
    // `EMPTY` before it heads no release sequence that a later plain store joins). On x86 a
    // release store is the same instruction as a relaxed one. The LKMM needs no release here
    // (litmus/tests/hazptr/hazptr-drain-slot-mark+reacquire.litmus); C++20 does
    // (models/tests/loom_drain.rs, `drain_fails_with_a_relaxed_publication`).
    slot.store(
        p as usize,
        weaken::order::<B>(Weakening::RelaxedPublication, Release, Relaxed),
    );
    // Pairs with the scanner's heavy fence in `scan::cycle`.
    // Checked by litmus/tests/hazptr/hazptr-acquire-before-scan.litmus.
    if !weaken::active::<B>(Weakening::NoReaderFence) {
        B::light_fence(fence)
    }
    // Relaxed: only compared with `p`, whose target the first load already acquired.
    src.load(Relaxed) == p
}

/// The wildcard slow path of [`publish`].
#[cold]
#[inline(never)]
fn slow_path<B: Backend, T>(
    slot: &B::AtomicUsize,
    src: &B::AtomicPtr<T>,
    fence: LightFence,
) -> *mut T {
    // Release: as the fast path's store in `try_acquire`, for the protection this replaces.
    slot.store(WILDCARD, Release);
    // Pairs with the scanner's heavy fence in `scan::cycle`: a scanner that misses the
    // wildcard ran its fence early enough that the load below sees the writer's unlink.
    // Checked by litmus/tests/hazptr/hazptr-wildcard-protocol.litmus.
    if !weaken::active::<B>(Weakening::NoReaderFence) {
        B::light_fence(fence)
    }
    // Acquire: pairs with the writer's release store of the pointer.
    let p = src.load(Acquire);
    // Replacing the wildcard by a narrower value needs no ordering of its own: a scanner that
    // the fence above obliges to see the wildcard sees it (and defers) or this later value
    // (and compares), never the slot's older value, by coherence.
    // Checked by litmus/tests/hazptr/hazptr-wildcard-protocol.litmus.
    // Release all the same, as every publication: see `try_acquire`.
    slot.store(p as usize, Release);
    p
}

/// Clears a slot, ending the protection it gave.
#[inline(always)]
pub(crate) fn clear<B: Backend>(slot: &B::AtomicUsize) {
    // Release: pairs with the scanner's acquire slot load, so every access the reader made
    // to the object happens before the waiter returns or the object is reclaimed.
    let order = weaken::order::<B>(Weakening::RelaxedRelease, Release, Relaxed);
    if B::CLEAR_WITH_SWAP {
        slot.swap(EMPTY, order);
    } else {
        slot.store(EMPTY, order);
    }
}
