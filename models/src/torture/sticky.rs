//! Sticky addresses: objects that are never unlinked, which writers nonetheless wait on.
//!
//! The lockdep conversion in the seeds waits on a hash-bucket address that stays reachable
//! for good, so `synchronize` cannot rely on readers failing to find it; it must see every
//! reader that protected the bucket *before* the wait began release it.
//! The harness checks exactly that.
//! A writer bumps the address's epoch, calls `synchronize` on it, and then looks at every
//! holder's marker: a holder that still holds the address under an older epoch was missed,
//! and counts a BUG.
//! A holder stores its marker after its protection is published and the epoch read, and
//! clears it before releasing, so a correct `synchronize` either waits for the clear or was
//! preceded by the holder's fence, in which case the holder read the new epoch.
//! HOTADDR, LONGHOLD, FAIRNESS and LOCKDEP are built on these.

use std::sync::atomic::Ordering::SeqCst;
use std::sync::atomic::{AtomicPtr, AtomicU64};

use hazptr::{Domain, Guard, Reader};

/// One sticky address; the object's own address is the one protected and waited on.
pub(crate) struct StickyAddr {
    /// Bumped by a writer before it waits on this address.
    epoch: AtomicU64,
    /// The source readers protect; it always points at this very object.
    src: AtomicPtr<StickyAddr>,
}

/// A set of sticky addresses and one marker per holder.
pub(crate) struct Sticky {
    addrs: Box<[StickyAddr]>,
    /// `markers[h]`: zero, or the address index plus one in the high bits and the epoch that
    /// holder `h` read when it protected the address in the low [`EPOCH_BITS`] bits.
    markers: Box<[AtomicU64]>,
}

const EPOCH_BITS: u32 = 40;

/// A holder's protection of a sticky address.
pub(crate) struct Hold<'r> {
    guard: Guard<'r, StickyAddr>,
    marker: &'r AtomicU64,
}

impl Sticky {
    /// `count` addresses and `holders` markers.
    pub(crate) fn new(count: usize, holders: usize) -> Self {
        let addrs: Box<[StickyAddr]> = (0..count)
            .map(|_| StickyAddr {
                epoch: AtomicU64::new(0),
                src: AtomicPtr::new(std::ptr::null_mut()),
            })
            .collect();
        for addr in addrs.iter() {
            // The boxed slice never moves, so the self-pointer stays valid.
            addr.src
                .store(addr as *const StickyAddr as *mut StickyAddr, SeqCst);
        }
        Self {
            addrs,
            markers: (0..holders).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// How many sticky addresses there are.
    pub(crate) fn len(&self) -> usize {
        self.addrs.len()
    }

    /// Protects address `index` through `reader` on behalf of holder `holder`.
    pub(crate) fn hold<'r>(
        &'r self,
        reader: &'r mut Reader<'_>,
        holder: usize,
        index: usize,
    ) -> Hold<'r> {
        let addr = &self.addrs[index];
        // Safety: `src` always points at `addr`, which lives as long as `self` and is never
        // freed while the run lasts.
        let guard = unsafe { reader.protect(&addr.src) }.expect("sticky sources are never null");
        // SeqCst, like the writer's bump: the holder's fence in `protect` orders this read
        // after its slot store, so a scan that misses the slot comes before the bump is missed.
        let epoch = guard.epoch.load(SeqCst);
        let marker = &self.markers[holder];
        marker.store(((index as u64 + 1) << EPOCH_BITS) | epoch, SeqCst);
        Hold { guard, marker }
    }

    /// Waits on address `index` as a writer would after "unregistering" it, and returns how
    /// many holders were still holding it under an epoch from before the wait: BUGs.
    ///
    /// With `skip` (the negative control) the wait itself is left out.
    pub(crate) fn synchronize(
        &self,
        domain: &Domain,
        index: usize,
        skip: bool,
        bugs: &mut Vec<String>,
    ) {
        let addr = &self.addrs[index];
        let epoch = addr.epoch.fetch_add(1, SeqCst) + 1;
        if !skip {
            domain.synchronize(addr as *const StickyAddr);
        }
        for (holder, marker) in self.markers.iter().enumerate() {
            let m = marker.load(SeqCst);
            let held = (m >> EPOCH_BITS) as usize;
            let held_epoch = m & ((1 << EPOCH_BITS) - 1);
            if held == index + 1 && held_epoch < epoch {
                bugs.push(format!(
                    "synchronize on sticky address {index} (epoch {epoch}) returned while \
                     holder {holder} still held it since epoch {held_epoch}"
                ));
            }
        }
    }
}

impl Hold<'_> {
    /// Ends the hold: the marker is cleared before the slot is.
    pub(crate) fn release(self) {
        self.marker.store(0, SeqCst);
        drop(self.guard);
    }
}
