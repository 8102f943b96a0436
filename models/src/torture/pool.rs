//! The object pool and the aging pipeline, rcutorture's way of catching early frees.
//!
//! Writers allocate objects from a fixed pool and publish them; after unlinking one they
//! wait (`synchronize`) or hand it to the domain (`retire`), and then age it through a
//! pipeline: every later operation of the same writer bumps its `pipe` count, and at
//! [`PIPE_LEN`] the object is poisoned and goes back to the free list, to be recycled with a
//! new generation.
//! A reader that protected an object must never see its `pipe` count above one (a grace
//! period ended while it held the object), its poison marker, or its generation change.
//!
//! The pool's memory lives as long as the run, so a reader that sees a "freed" object reads
//! valid atomics and counts a BUG instead of invoking undefined behaviour; this is what
//! lets the negative control skip `synchronize` safely.

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::{Arc, Mutex};

/// Grace periods an unlinked object ages through before it is freed, as in rcutorture.
pub const PIPE_LEN: usize = 10;

/// The magic word of a live object.
pub(crate) const LIVE: u64 = 0x11FE_0B1E_C711_FE00;
/// The magic word of a freed object.
pub(crate) const POISON: u64 = 0xDEAD_DEAD_DEAD_DEAD;

/// One object of the pool.
pub(crate) struct Obj {
    /// Bumped on every allocation, so a reader can tell a recycled object from the one it
    /// protected.
    pub(crate) generation: AtomicU64,
    /// Zero while published, one once unlinked, then one more per later writer operation.
    pub(crate) pipe: AtomicU64,
    /// [`LIVE`] between allocation and free, [`POISON`] after.
    pub(crate) magic: AtomicU64,
    /// This object's index in the pool.
    index: usize,
    /// The pool's free list, reached from the retire deleter, which gets only the pointer.
    free: Arc<FreeList>,
}

/// Indices of free objects.
struct FreeList {
    indices: Mutex<Vec<usize>>,
    /// How many times an object was freed.
    frees: AtomicU64,
}

/// The fixed pool of objects every writer allocates from.
pub(crate) struct Pool {
    objects: Box<[Obj]>,
    free: Arc<FreeList>,
    /// Allocations that found the pool empty.
    pub(crate) alloc_failures: AtomicU64,
    /// `circulation[i]`: objects that reached pipe count `i` (the last bucket takes the rest).
    pub(crate) circulation: [AtomicU64; PIPE_LEN + 1],
}

impl Pool {
    /// A pool of `size` free objects.
    pub(crate) fn new(size: usize) -> Self {
        let free = Arc::new(FreeList {
            indices: Mutex::new((0..size).rev().collect()),
            frees: AtomicU64::new(0),
        });
        let objects = (0..size)
            .map(|index| Obj {
                generation: AtomicU64::new(0),
                pipe: AtomicU64::new(PIPE_LEN as u64),
                magic: AtomicU64::new(POISON),
                index,
                free: Arc::clone(&free),
            })
            .collect();
        Self {
            objects,
            free,
            alloc_failures: AtomicU64::new(0),
            circulation: Default::default(),
        }
    }

    /// Takes a free object, makes it live with a new generation, and returns it; `None` when
    /// the pool is empty.
    ///
    /// The caller publishes the pointer with a release store (or swap), which carries these
    /// stores to any reader that acquires it.
    pub(crate) fn alloc(&self) -> Option<*mut Obj> {
        let index = self.free.indices.lock().unwrap().pop();
        let Some(index) = index else {
            self.alloc_failures.fetch_add(1, Relaxed);
            return None;
        };
        let obj = &self.objects[index];
        obj.generation.fetch_add(1, Relaxed);
        obj.pipe.store(0, Relaxed);
        obj.magic.store(LIVE, Relaxed);
        Some(obj as *const Obj as *mut Obj)
    }

    /// Counts an object as having reached pipe count `count`.
    fn circulate(&self, count: u64) {
        let bucket = (count as usize).min(PIPE_LEN);
        self.circulation[bucket].fetch_add(1, Relaxed);
    }

    /// Marks a just-unlinked object: pipe count one.
    pub(crate) fn unlinked(&self, obj: &Obj) {
        self.circulate(0);
        // Release: a reader that acquires this count sees the unlink before it.
        obj.pipe.store(1, Release);
    }

    /// Ages every object of a writer's pipeline by one step and frees those that reach
    /// [`PIPE_LEN`].
    pub(crate) fn age(&self, pipeline: &mut Vec<*mut Obj>) {
        pipeline.retain(|&ptr| {
            // Safety: pool objects live as long as the pool, and only this writer touches
            // the pipe count of an object in its pipeline.
            let obj = unsafe { &*ptr };
            let count = obj.pipe.load(Relaxed);
            self.circulate(count);
            // Release: a reader that acquires this count sees the `synchronize` that
            // returned before it, which is what the reader is judged against.
            obj.pipe.store(count + 1, Release);
            if count + 1 >= PIPE_LEN as u64 {
                free(obj);
                false
            } else {
                true
            }
        });
    }

    /// How many times an object was freed.
    pub(crate) fn frees(&self) -> u64 {
        self.free.frees.load(Acquire)
    }
}

/// Poisons `obj` and returns it to its pool's free list.
fn free(obj: &Obj) {
    // Release: pairs with the reader's acquire loads in its checks.
    obj.pipe.store(PIPE_LEN as u64, Release);
    obj.magic.store(POISON, Release);
    obj.free.frees.fetch_add(1, Relaxed);
    obj.free.indices.lock().unwrap().push(obj.index);
}

/// The retire deleter: frees a retired object at once, since the domain calls it only once
/// no reader protects the object.
///
/// # Safety
///
/// 1. `ptr` points to an object of a pool that is still alive.
pub(crate) unsafe fn reclaim(ptr: *mut Obj) {
    // Safety: by (1) the object is valid; pool objects are only ever shared.
    free(unsafe { &*ptr });
}
