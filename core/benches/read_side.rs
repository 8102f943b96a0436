//! Read-side cost: one protect and release, against the alternatives and a hand-written floor.
//!
//! The floor is the least a hazard-pointer read can do: a relaxed slot store, a compiler
//! fence, a re-read and compare of the source, and a release store clearing the slot.
//! Every other entry protects (or pins, or loads) one pointer and releases it.
//! Run with `cargo bench -p hazptr --bench read_side`.
#![expect(
    missing_docs,
    reason = "criterion_group! generates an undocumented public function"
)]

use std::hint::black_box;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering, compiler_fence};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use hazptr::{Config, Domain, Std};

fn floor(c: &mut Criterion) {
    let value = Box::into_raw(Box::new(7_u64));
    let src = AtomicPtr::new(value);
    let slot = AtomicUsize::new(0);
    c.bench_function("floor (store, compiler fence, re-read, release)", |b| {
        b.iter(|| {
            let p = src.load(Ordering::Acquire);
            slot.store(p as usize, Ordering::Relaxed);
            compiler_fence(Ordering::SeqCst);
            if src.load(Ordering::Relaxed) != p {
                unreachable!("nobody writes the source");
            }
            // Safety: `value` lives until the end of the function.
            black_box(unsafe { *p });
            slot.store(0, Ordering::Release);
        })
    });
    // Safety: from the box above; no reader remains.
    drop(unsafe { Box::from_raw(value) });
}

fn hazptr(c: &mut Criterion) {
    for (name, config) in [
        ("hazptr protect+release", Config::default()),
        (
            "hazptr protect+release (forced slow path)",
            Config::default().force_slow_path(true),
        ),
    ] {
        let domain = Domain::with_config(config);
        let value = Box::into_raw(Box::new(7_u64));
        let src = AtomicPtr::new(value);
        let mut reader = domain.reader();
        c.bench_function(name, |b| {
            b.iter(|| {
                // Safety: `value` is never unlinked while the benchmark runs.
                if let Some(guard) = unsafe { reader.protect(&src) } {
                    black_box(*guard);
                }
            })
        });
        drop(reader);
        // Safety: from the box above; no reader remains.
        drop(unsafe { Box::from_raw(value) });
    }
    eprintln!("hazptr: membarrier in use: {}", Std::uses_membarrier());
}

fn crossbeam_epoch(c: &mut Criterion) {
    use crossbeam_epoch::{Atomic, pin};
    let atomic = Atomic::new(7_u64);
    // Register this thread before measuring.
    drop(pin());
    c.bench_function("crossbeam-epoch pin+load+unpin", |b| {
        b.iter(|| {
            let guard = pin();
            let shared = atomic.load(Ordering::Acquire, &guard);
            // Safety: the value is never retired while the benchmark runs.
            black_box(unsafe { shared.as_ref() }.copied());
        })
    });
    // Safety: no other thread uses the atomic.
    drop(unsafe { atomic.into_owned() });
}

fn haphazard(c: &mut Criterion) {
    use haphazard::{AtomicPtr as HazAtomicPtr, HazardPointer};
    let atomic: HazAtomicPtr<u64> = HazAtomicPtr::from(Box::new(7_u64));
    let mut hp = HazardPointer::new();
    c.bench_function("haphazard protect+reset", |b| {
        b.iter(|| {
            black_box(atomic.safe_load(&mut hp).copied());
            hp.reset_protection();
        })
    });
}

fn seize(c: &mut Criterion) {
    use seize::{Collector, Guard};
    let collector = Collector::new();
    let value = Box::into_raw(Box::new(7_u64));
    let atomic = AtomicPtr::new(value);
    drop(collector.enter());
    c.bench_function("seize enter+protect+leave", |b| {
        b.iter(|| {
            let guard = collector.enter();
            let p = guard.protect(&atomic, Ordering::Acquire);
            // Safety: the value is never retired while the benchmark runs.
            black_box(unsafe { *p });
        })
    });
    // Safety: from the box above; no reader remains.
    drop(unsafe { Box::from_raw(value) });
}

fn arc_swap(c: &mut Criterion) {
    let swap = arc_swap::ArcSwap::from_pointee(7_u64);
    c.bench_function("arc-swap load", |b| b.iter(|| black_box(**swap.load())));
}

fn rwlock(c: &mut Criterion) {
    let lock = Arc::new(RwLock::new(7_u64));
    c.bench_function("std RwLock read (uncontended)", |b| {
        b.iter(|| black_box(*lock.read().unwrap()))
    });
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(50)
}

criterion_group! {
    name = read_side;
    config = config();
    targets = floor, hazptr, crossbeam_epoch, haphazard, seize, arc_swap, rwlock
}
criterion_main!(read_side);
