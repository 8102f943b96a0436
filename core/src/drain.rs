//! Reader-assisted drain: forward progress for a waiter whose address stays held.
//!
//! A shared scan completes a waiter only when one walk finds no slot holding its address.
//! For an address that readers keep re-acquiring (a permanent hash-bucket address, say), some
//! slot may hold it in every walk, although each individual protection is short: the waiter
//! starves.
//! Yet a waiter only needs the protections that existed when it started waiting to end: a
//! protection taken after a scan's heavy fence cannot have seen the state the waiter is
//! retiring.
//!
//! So when a waiter has been blocked for [`Config::drain_threshold`] cycles, a scan cycle
//! engages a drain for its address: during its walk (after its heavy fence) it notes every
//! slot holding the address, refusing to engage if any slot holds the wildcard, then marks
//! each such slot by setting the [`MARK`] bit in the slot word itself, with a
//! compare-and-swap from the value it saw, and records the slot in a per-list bitmap (the
//! primary slots' bitmap, and one per overflow list).
//! A mark lives exactly as long as the protection it marks: the reader's release store of
//! `EMPTY` overwrites the whole word, mark included, so the release tests nothing and costs
//! what it costs without drains; a later protection of the same address publishes it
//! unmarked. A compare-and-swap that fails found the protection already gone, and the slot
//! stays out of the snapshot.
//! Each later cycle removes from the bitmaps every slot that no longer holds the marked
//! value: its marked protection has ended.
//! A remove-only re-snapshot right after marking recovers the releases that happened between
//! the marks and the end of the engage walk, one cycle earlier than the next walk would.
//! When the bitmaps are empty, every protection that predated the drain has ended, and the
//! drain completes the waiters it covers (those present when it engaged).
//!
//! The outstanding count is the number of bits still set, kept by the scanner alone: the
//! readers write nothing but their slots.
//!
//! This differs from the kernel series, whose readers clear a separate per-slot generation
//! mark on release: a mark inside the slot word needs no generation, since it cannot outlive
//! its protection, and no release-side check, which keeps the read path at the cost of its
//! stores.
//!
//! One address is drained at a time. A drain that lasts [`Config::drain_max_cycles`] cycles
//! while a waiter on another address is stalled disengages (the fairness cap) and the next
//! stalled waiter, in order of arrival after the last one engaged, gets its turn; with no one
//! to give the turn to, the drain goes on. A drain whose waiters the ordinary scan completes
//! first is disengaged as orphaned.
//!
//! What a waiter on a continuously re-acquired address is promised: once a drain for it
//! engages (no wildcard in that cycle's walk), it completes as soon as each protection that
//! was visible to the engage walk has been released once, however many new protections of
//! the address start meanwhile, provided the fairness cap does not expire first (it expires
//! only while a waiter on another address is stalled).
//! What is not promised: formal starvation freedom. Rotation is bounded by the cap, but a
//! drain may be refused engagement while readers sit in the wildcard window, a protection held
//! longer than the cap holds its waiter back until it ends, and a waiter that arrives behind
//! several stalled ones waits for their rounds first.
//!
//! [`MARK`]: crate::raw::MARK
//! [`Config::drain_threshold`]: crate::Config::drain_threshold
//! [`Config::drain_max_cycles`]: crate::Config::drain_max_cycles

/// Why a drain ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Disengage {
    /// Every protection in the snapshot was released: the drain completed its waiters.
    Completed,
    /// The ordinary scan completed the drain's waiters first.
    Orphaned,
    /// The drain reached the fairness cap.
    FairnessCap,
}

/// The one drain in progress.
#[derive(Debug)]
pub(crate) struct Drain {
    /// The drained address.
    pub(crate) addr: usize,
    /// The drain's number, counted from 1, for tracing.
    pub(crate) generation: u64,
    /// The drain completes the waiters for `addr` whose id is at most this.
    pub(crate) covers: u64,
    /// Slots still holding the address since the engage walk: one bitmap per list, the
    /// primaries first, then the overflow lists.
    held: Vec<Vec<u64>>,
    /// Bits set in `held`: the outstanding count.
    pub(crate) outstanding: usize,
    /// Cycles since the drain engaged.
    pub(crate) cycles: u32,
}

impl Drain {
    pub(crate) fn new(addr: usize, generation: u64, covers: u64, lists: usize) -> Self {
        Self {
            addr,
            generation,
            covers,
            held: vec![Vec::new(); lists],
            outstanding: 0,
            cycles: 0,
        }
    }

    /// Adds slot `index` of list `list` to the snapshot.
    pub(crate) fn insert(&mut self, list: usize, index: usize) {
        let words = &mut self.held[list];
        if words.len() <= index / 64 {
            words.resize(index / 64 + 1, 0);
        }
        let bit = 1 << (index % 64);
        if words[index / 64] & bit == 0 {
            words[index / 64] |= bit;
            self.outstanding += 1;
        }
    }

    /// Whether slot `index` of list `list` is in the snapshot.
    pub(crate) fn contains(&self, list: usize, index: usize) -> bool {
        self.held[list]
            .get(index / 64)
            .is_some_and(|w| w & (1 << (index % 64)) != 0)
    }

    /// Removes slot `index` of list `list` from the snapshot.
    pub(crate) fn remove(&mut self, list: usize, index: usize) {
        if self.contains(list, index) {
            self.held[list][index / 64] &= !(1 << (index % 64));
            self.outstanding -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Drain;

    #[test]
    fn the_snapshot_counts_what_it_holds() {
        let mut drain = Drain::new(0x1000, 1, 0, 3);
        drain.insert(0, 3);
        drain.insert(0, 3);
        drain.insert(2, 130);
        assert_eq!(drain.outstanding, 2);
        assert!(drain.contains(0, 3) && drain.contains(2, 130) && !drain.contains(1, 3));
        drain.remove(0, 3);
        drain.remove(0, 3);
        drain.remove(1, 7);
        assert_eq!(drain.outstanding, 1);
        drain.remove(2, 130);
        assert_eq!(drain.outstanding, 0);
    }
}
