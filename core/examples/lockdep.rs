//! A lockdep-style key registry: the use case that motivated the kernel's shared scan and
//! drain-assist.
//!
//! Keys live in a hash table whose buckets are permanent: a bucket's address is never freed,
//! so readers keep re-acquiring it. A lookup protects its bucket and scans the bucket's keys;
//! unregistering a key clears it from its bucket, then waits with `synchronize` on the bucket
//! until every lookup that might have seen the key has finished. Lookups of other keys, in
//! the same bucket and in others, keep running meanwhile, so the bucket address may be held
//! in every scan: drain-assist is what lets the unregistering thread through.
//!
//! Run with `cargo run --release -p hazptr --example lockdep`; it prints the wait times it saw
//! and the domain's drain statistics.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering::*};
use std::thread;
use std::time::{Duration, Instant};

use hazptr::{Config, Domain};

const BUCKETS: usize = 8;
const KEYS_PER_BUCKET: usize = 8;
const LOOKUP_THREADS: usize = 3;
const UNREGISTERS: usize = 200;

/// One hash bucket: a fixed array of key slots (0 = free). Permanent for the table's life.
struct Bucket {
    keys: [AtomicU64; KEYS_PER_BUCKET],
}

/// The table: each entry points at its bucket and never changes, like a permanent list head.
struct Table {
    heads: Vec<AtomicPtr<Bucket>>,
}

impl Table {
    fn new() -> Self {
        let heads = (0..BUCKETS)
            .map(|_| {
                let bucket = Bucket {
                    keys: std::array::from_fn(|_| AtomicU64::new(0)),
                };
                AtomicPtr::new(Box::into_raw(Box::new(bucket)))
            })
            .collect();
        Self { heads }
    }

    fn head(&self, key: u64) -> &AtomicPtr<Bucket> {
        &self.heads[key as usize % BUCKETS]
    }

    /// Registers `key` in a free slot of its bucket; returns the slot.
    fn register(&self, key: u64) -> usize {
        // Safety: buckets are freed only in `drop`, after every reader.
        let bucket = unsafe { &*self.head(key).load(Acquire) };
        (0..KEYS_PER_BUCKET)
            .find(|&i| {
                bucket.keys[i]
                    .compare_exchange(0, key, AcqRel, Relaxed)
                    .is_ok()
            })
            .expect("a bucket never fills in this example")
    }

    /// Whether `key` is registered: the read side, under a hazard pointer on the bucket.
    fn lookup(&self, reader: &mut hazptr::Reader<'_>, key: u64) -> bool {
        // Safety: every pointer in `heads` stays valid until the table drops.
        let bucket = unsafe { reader.protect(self.head(key)) }.expect("heads are never null");
        bucket.keys.iter().any(|k| k.load(Acquire) == key)
    }

    /// Unregisters `key` from `slot`, then waits until no lookup can still be looking at it;
    /// returns how long the wait took.
    fn unregister(&self, domain: &Domain, key: u64, slot: usize) -> Duration {
        let head = self.head(key);
        // Safety: as in `register`.
        let bucket = unsafe { &*head.load(Acquire) };
        bucket.keys[slot].store(0, Release);
        let start = Instant::now();
        domain.synchronize(head.load(Acquire));
        start.elapsed()
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        for head in &self.heads {
            // Safety: from `Box::into_raw` in `new`; no reader remains.
            drop(unsafe { Box::from_raw(head.load(Relaxed)) });
        }
    }
}

fn main() {
    let domain = Domain::with_config(Config::default().drain_threshold(20));
    let table = Table::new();
    let stop = AtomicBool::new(false);
    let lookups = AtomicUsize::new(0);
    // Long-lived keys that lookups hit continuously, one per bucket.
    for b in 0..BUCKETS as u64 {
        table.register(1000 + b);
    }
    let mut waits = Vec::with_capacity(UNREGISTERS);
    thread::scope(|s| {
        for t in 0..LOOKUP_THREADS {
            let (domain, table, stop, lookups) = (&domain, &table, &stop, &lookups);
            s.spawn(move || {
                let mut reader = domain.reader();
                let mut n = 0;
                // Thread 0 stays on bucket 1, where the unregisters happen.
                let mut key = if t == 0 { 1001 } else { 1000 + t as u64 };
                while !stop.load(Relaxed) {
                    black_box(table.lookup(&mut reader, key));
                    // The first thread keeps looking up a key of the hot bucket; the others
                    // walk every bucket.
                    if t != 0 {
                        key = 1000 + (key + 1) % BUCKETS as u64;
                    }
                    n += 1;
                }
                lookups.fetch_add(n, Relaxed);
            });
        }
        for i in 0..UNREGISTERS as u64 {
            let key = 1 + i * BUCKETS as u64; // Always bucket 1, the hot one.
            let slot = table.register(key);
            waits.push(table.unregister(&domain, key, slot));
        }
        stop.store(true, Relaxed);
    });
    waits.sort();
    let stats = domain.stats();
    println!(
        "{UNREGISTERS} unregisters while {LOOKUP_THREADS} threads ran {} lookups",
        lookups.load(Relaxed)
    );
    println!(
        "synchronize waits: min {:?}, p50 {:?}, p99 {:?}, max {:?}",
        waits[0],
        waits[waits.len() / 2],
        waits[waits.len() * 99 / 100],
        waits[waits.len() - 1]
    );
    println!(
        "scan cycles {}, membarrier calls {}, drains engaged {} (completed {}, orphaned {}, \
         fairness cap {}), wildcard deferrals {}",
        stats.scan_cycles,
        stats.membarrier_calls,
        stats.drain_engages,
        stats.drain_completed,
        stats.drain_orphaned,
        stats.drain_fairness_disengages,
        stats.wildcard_deferrals
    );
}
