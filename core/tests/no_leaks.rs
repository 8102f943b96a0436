//! No leaks: a counting global allocator checks that a domain's whole life (readers, nested
//! guards, the scan thread, synchronize, retire) gives back every byte it took.
//!
//! This file holds a single test so that no other test allocates concurrently.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering::*};
use std::thread;

use hazptr::{Config, Domain, ScanMode};

struct Counting;

static LIVE_BYTES: AtomicUsize = AtomicUsize::new(0);

// Safety: forwards to the system allocator and only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE_BYTES.fetch_add(layout.size(), Relaxed);
        // Safety: the caller's contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size(), Relaxed);
        // Safety: the caller's contract is the system allocator's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn workload(mode: ScanMode) {
    let domain = Domain::with_config(Config::default().scan_mode(mode).retire_batch(8));
    let srcs: Vec<AtomicPtr<Vec<u64>>> = (0..4)
        .map(|i| AtomicPtr::new(Box::into_raw(Box::new(vec![i; 8]))))
        .collect();
    let stop = AtomicBool::new(false);
    thread::scope(|s| {
        for r in 0..3 {
            let (domain, srcs, stop) = (&domain, &srcs, &stop);
            s.spawn(move || {
                let mut reader = domain.reader();
                let mut i = r;
                while !stop.load(Relaxed) {
                    // Safety: objects come from boxes, and are synchronized or retired after
                    // being unlinked.
                    if let Some(g) = unsafe { reader.protect(&srcs[i % 4]) } {
                        // Safety: as above.
                        let h = unsafe { g.protect_nested(&srcs[(i + 1) % 4]) };
                        assert!(g.len() == 8 && h.is_none_or(|h| h.len() == 8));
                    }
                    i += 1;
                    // Leave the scan thread and the writer some of the machine's few cores.
                    if i.is_multiple_of(64) {
                        thread::yield_now();
                    }
                }
            });
        }
        let (domain, srcs) = (&domain, &srcs);
        let writer = s.spawn(move || {
            for round in 0..60u64 {
                let src = &srcs[round as usize % 4];
                let old = src.swap(Box::into_raw(Box::new(vec![round; 8])), AcqRel);
                if round % 2 == 0 {
                    domain.synchronize(old);
                    // Safety: unlinked and synchronized.
                    drop(unsafe { Box::from_raw(old) });
                } else {
                    // Safety: unlinked; from a box.
                    unsafe { domain.retire_box(old) };
                }
            }
        });
        writer.join().unwrap();
        stop.store(true, Relaxed);
    });
    for src in &srcs {
        // Safety: the last objects; no reader remains.
        unsafe { domain.retire_box(src.load(Relaxed)) };
    }
    drop(domain);
}

#[test]
fn a_domain_gives_back_everything_it_allocates() {
    // A first run warms up whatever std allocates once per process.
    workload(ScanMode::Thread);
    workload(ScanMode::Caller);
    // std keeps a little per-thread bookkeeping whose release it may defer (a drift of a few
    // hundred bytes either way between runs, not growing). A leak in the domain would grow
    // with each run: every run creates at least three primary slots, three backup slots and
    // hundreds of objects, so five runs would leak well over the tolerance.
    let before = LIVE_BYTES.load(SeqCst) as isize;
    for mode in [
        ScanMode::Thread,
        ScanMode::Caller,
        ScanMode::Thread,
        ScanMode::Caller,
        ScanMode::Thread,
    ] {
        workload(mode);
    }
    let drift = LIVE_BYTES.load(SeqCst) as isize - before;
    assert!(
        drift.abs() < 256,
        "{drift} bytes not given back over five domains"
    );
}
