//! Scale benchmarks of the hazptr core beside the Rust libraries people would otherwise use,
//! in the shape of the kernel's refscale and rcuscale tables.
//!
//! - Readers (refscale): the cost of one protect, dereference and release, with 1, 2 and 4
//!   readers (more readers than the 2 cores the published figures come from); the median of
//!   several runs of each, in nanoseconds per operation per reader.
//! - Writers (rcuscale): one writer operation is "replace the object in my source, then wait
//!   for readers and free the old one" (hazptr `synchronize`) or "… then hand the old one
//!   over" (hazptr `retire`, crossbeam-epoch, seize, haphazard; arc-swap's `store`); with 1
//!   and 16 writers, readers absent and present; the aggregate cost (window divided by the
//!   operations of all writers, rcuscale's "effective per-GP") and the p50/p90/p99 latency
//!   of single calls.
//! - Heavy fences per `synchronize`, from the core's `Stats`, as writers grow: the shared
//!   scan serves every waiter present with one fence (one `membarrier` call on Linux), and a
//!   lone call's self-scan costs one.
//!
//! hazptr `synchronize` runs in both of its modes in the same run: the default, where a lone
//! call scans by itself, and `Config::skip_self_scan`, where every call goes through the scan
//! thread.
//!
//! `cargo bench -p hazmat-models --bench scale` writes `docs/src/scale/`: the Markdown
//! tables, three CSV files and three SVG charts. `-- --quick` shortens every window.
//! Without `--bench` (as `cargo test --benches` runs it) it only smoke-tests each subject
//! briefly and writes nothing.

mod svg;

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::PathBuf;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed};
use std::sync::atomic::{AtomicBool, AtomicPtr};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use svg::Series;

/// The subjects of the benchmarks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lib {
    Hazptr,
    CrossbeamEpoch,
    Seize,
    Haphazard,
    ArcSwap,
    /// An `Acquire` load and dereference with no protection at all: the floor.
    Unprotected,
}

impl Lib {
    const READERS: [Lib; 6] = [
        Lib::Hazptr,
        Lib::CrossbeamEpoch,
        Lib::Seize,
        Lib::Haphazard,
        Lib::ArcSwap,
        Lib::Unprotected,
    ];

    fn name(self) -> &'static str {
        match self {
            Lib::Hazptr => "hazptr",
            Lib::CrossbeamEpoch => "crossbeam-epoch",
            Lib::Seize => "seize",
            Lib::Haphazard => "haphazard",
            Lib::ArcSwap => "arc-swap",
            Lib::Unprotected => "unprotected load",
        }
    }
}

/// A writer-side subject: a library and how its writers get rid of the old object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WriterKind {
    HazptrSynchronize,
    /// `synchronize` with `Config::skip_self_scan`: every call through the scan thread.
    HazptrSynchronizeScanThread,
    HazptrRetire,
    CrossbeamDefer,
    SeizeRetire,
    HaphazardRetire,
    ArcSwapStore,
}

impl WriterKind {
    const ALL: [WriterKind; 7] = [
        WriterKind::HazptrSynchronize,
        WriterKind::HazptrSynchronizeScanThread,
        WriterKind::HazptrRetire,
        WriterKind::CrossbeamDefer,
        WriterKind::SeizeRetire,
        WriterKind::HaphazardRetire,
        WriterKind::ArcSwapStore,
    ];

    fn name(self) -> &'static str {
        match self {
            WriterKind::HazptrSynchronize => "hazptr synchronize",
            WriterKind::HazptrSynchronizeScanThread => "hazptr synchronize (scan thread only)",
            WriterKind::HazptrRetire => "hazptr retire",
            WriterKind::CrossbeamDefer => "crossbeam-epoch defer_destroy",
            WriterKind::SeizeRetire => "seize retire",
            WriterKind::HaphazardRetire => "haphazard retire",
            WriterKind::ArcSwapStore => "arc-swap store",
        }
    }

    /// Whether the writer waits for readers before it frees (a grace period per operation),
    /// rather than deferring the free.
    fn blocks(self) -> bool {
        matches!(
            self,
            WriterKind::HazptrSynchronize
                | WriterKind::HazptrSynchronizeScanThread
                | WriterKind::ArcSwapStore
        )
    }

    /// The hazptr domain's configuration for this kind.
    fn config(self) -> hazptr::Config {
        hazptr::Config::default().skip_self_scan(self == WriterKind::HazptrSynchronizeScanThread)
    }
}

/// How long and how often to measure.
#[derive(Clone, Copy, Debug)]
struct Budget {
    reader_window: Duration,
    reader_runs: usize,
    writer_window: Duration,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bench = args.iter().any(|a| a == "--bench");
    let quick = args.iter().any(|a| a == "--quick");
    let out = args
        .iter()
        .position(|a| a == "--out")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/src/scale"));
    let budget = match (bench, quick) {
        (false, _) => Budget {
            reader_window: Duration::from_millis(5),
            reader_runs: 1,
            writer_window: Duration::from_millis(10),
        },
        (true, true) => Budget {
            reader_window: Duration::from_millis(100),
            reader_runs: 3,
            writer_window: Duration::from_millis(300),
        },
        (true, false) => Budget {
            reader_window: Duration::from_millis(300),
            reader_runs: 5,
            writer_window: Duration::from_secs(1),
        },
    };
    let cores = thread::available_parallelism().map_or(0, usize::from);
    let load_before = load_average();

    eprintln!("scale: readers (refscale)");
    let reader_counts = [1, 2, 4];
    let mut readers = Vec::new();
    for lib in Lib::READERS {
        for &n in &reader_counts {
            let mut runs: Vec<f64> = (0..budget.reader_runs)
                .map(|_| reader_ns(lib, n, budget.reader_window))
                .collect();
            runs.sort_by(f64::total_cmp);
            let median = runs[runs.len() / 2];
            eprintln!("  {:<18} readers {n}: {median:8.2} ns", lib.name());
            readers.push(ReaderRow {
                lib,
                readers: n,
                ns: median,
                runs,
            });
        }
    }

    eprintln!("scale: writers (rcuscale)");
    let mut writers = Vec::new();
    for kind in WriterKind::ALL {
        for w in [1, 16] {
            for r in [0, 2] {
                let row = writer_run(kind, w, r, budget.writer_window);
                eprintln!(
                    "  {:<30} writers {w:2} readers {r}: {:10.2} us/op p50 {:.2} p99 {:.2} us",
                    kind.name(),
                    row.per_op_ns / 1e3,
                    row.p50 / 1e3,
                    row.p99 / 1e3
                );
                writers.push(row);
            }
        }
    }

    eprintln!("scale: heavy fences per synchronize");
    let mut fences = Vec::new();
    for kind in SYNCHRONIZE_MODES {
        for w in [1, 2, 4, 8, 16] {
            for r in [0, 2] {
                let row = fence_run(kind, w, r, budget.writer_window);
                eprintln!(
                    "  {:<38} writers {w:2} readers {r}: {} synchronize, {} self-scans, {} fences ({} membarrier), {:.3} per synchronize",
                    kind.name(),
                    row.synchronizes,
                    row.self_scans,
                    row.heavy_fences,
                    row.membarrier_calls,
                    row.per_synchronize()
                );
                fences.push(row);
            }
        }
    }

    let load = (load_before, load_average());
    let tables = tables(&readers, &writers, &fences, cores, load);
    print!("{tables}");
    if bench {
        write_outputs(&out, &tables, &readers, &writers, &fences);
        eprintln!("scale: wrote {}", out.display());
    }
}

// ---------------------------------------------------------------------------------------
// Readers.

struct ReaderRow {
    lib: Lib,
    readers: usize,
    /// Median over the runs, nanoseconds per operation per reader.
    ns: f64,
    runs: Vec<f64>,
}

/// Runs `threads` threads for `window`, each making its state with `setup` and then calling
/// `op` in a loop; returns the mean over threads of nanoseconds per call.
fn hammer<S>(
    threads: usize,
    window: Duration,
    setup: impl Fn(usize) -> S + Sync,
    op: impl Fn(&mut S) + Sync,
) -> f64 {
    let stop = AtomicBool::new(false);
    let barrier = Barrier::new(threads + 1);
    let per_thread: Vec<f64> = thread::scope(|s| {
        let (setup, op, stop, barrier) = (&setup, &op, &stop, &barrier);
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                s.spawn(move || {
                    let mut state = setup(i);
                    barrier.wait();
                    let started = Instant::now();
                    let mut n = 0_u64;
                    // At least one batch, so a thread the scheduler starved still measures.
                    loop {
                        for _ in 0..256 {
                            op(&mut state);
                        }
                        n += 256;
                        if stop.load(Relaxed) {
                            break;
                        }
                    }
                    started.elapsed().as_nanos() as f64 / n as f64
                })
            })
            .collect();
        barrier.wait();
        thread::sleep(window);
        stop.store(true, Relaxed);
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    per_thread.iter().sum::<f64>() / per_thread.len() as f64
}

/// Nanoseconds per protect, dereference and release of one object, per reader.
fn reader_ns(lib: Lib, readers: usize, window: Duration) -> f64 {
    match lib {
        Lib::Hazptr => {
            let domain = hazptr::Domain::new();
            let src = AtomicPtr::new(Box::into_raw(Box::new(1_u64)));
            let ns = hammer(
                readers,
                window,
                |_| domain.reader(),
                |r| {
                    // Safety: `src` holds a box that is freed only after every reader is gone.
                    let guard = unsafe { r.protect(&src) }.expect("never null");
                    black_box(*guard);
                },
            );
            // Safety: the readers are gone.
            drop(unsafe { Box::from_raw(src.load(Relaxed)) });
            ns
        }
        Lib::CrossbeamEpoch => {
            let src = crossbeam_epoch::Atomic::new(1_u64);
            let ns = hammer(
                readers,
                window,
                |_| (),
                |_| {
                    let guard = crossbeam_epoch::pin();
                    let p = src.load(Acquire, &guard);
                    // Safety: the object is never retired while readers run.
                    black_box(unsafe { *p.deref() });
                },
            );
            // Safety: the readers are gone.
            drop(unsafe { src.into_owned() });
            ns
        }
        Lib::Seize => {
            use seize::Guard as _;
            let collector = seize::Collector::new();
            let src = AtomicPtr::new(Box::into_raw(Box::new(1_u64)));
            let ns = hammer(
                readers,
                window,
                |_| (),
                |_| {
                    let guard = collector.enter();
                    let p = guard.protect(&src, Acquire);
                    // Safety: the object is never retired while readers run.
                    black_box(unsafe { *p });
                },
            );
            // Safety: the readers are gone.
            drop(unsafe { Box::from_raw(src.load(Relaxed)) });
            ns
        }
        Lib::Haphazard => {
            let src = haphazard::AtomicPtr::from(Box::new(1_u64));
            let ns = hammer(
                readers,
                window,
                |_| haphazard::HazardPointer::new(),
                |hp| {
                    let v = src.safe_load(hp).expect("never null");
                    black_box(*v);
                    hp.reset_protection();
                },
            );
            // Safety: the readers are gone, and the box is handed to the global domain.
            unsafe { src.retire() };
            ns
        }
        Lib::ArcSwap => {
            let src = arc_swap::ArcSwap::from_pointee(1_u64);
            hammer(
                readers,
                window,
                |_| (),
                |_| {
                    black_box(**src.load());
                },
            )
        }
        Lib::Unprotected => {
            let src = AtomicPtr::new(Box::into_raw(Box::new(1_u64)));
            let ns = hammer(
                readers,
                window,
                |_| (),
                |_| {
                    // Safety: the object is freed only after the readers are gone.
                    black_box(unsafe { *src.load(Acquire) });
                },
            );
            // Safety: the readers are gone.
            drop(unsafe { Box::from_raw(src.load(Relaxed)) });
            ns
        }
    }
}

// ---------------------------------------------------------------------------------------
// Writers.

struct WriterRow {
    kind: WriterKind,
    writers: usize,
    readers: usize,
    ops: u64,
    /// The window divided by the operations of all writers.
    per_op_ns: f64,
    p50: f64,
    p90: f64,
    p99: f64,
}

/// What a writer run contends with.
#[derive(Clone, Copy, Debug)]
struct Shape {
    kind: WriterKind,
    writers: usize,
    readers: usize,
    window: Duration,
}

/// At most this many latency samples per writer.
const SAMPLES: usize = 1 << 18;

/// Runs `writers` writer threads and `readers` reader threads for `window`; each writer
/// times every call of `write`; returns the aggregate cost and the latency percentiles.
fn contend<RS, WS>(
    shape: Shape,
    reader_setup: impl Fn(usize) -> RS + Sync,
    read: impl Fn(&mut RS, usize) + Sync,
    writer_setup: impl Fn(usize) -> WS + Sync,
    write: impl Fn(&mut WS, usize, u64) + Sync,
) -> WriterRow {
    let Shape {
        kind,
        writers,
        readers,
        window,
    } = shape;
    let stop = AtomicBool::new(false);
    let barrier = Barrier::new(writers + readers + 1);
    let mut samples: Vec<Vec<u64>> = thread::scope(|s| {
        let (stop, barrier) = (&stop, &barrier);
        let (reader_setup, read, writer_setup, write) =
            (&reader_setup, &read, &writer_setup, &write);
        for r in 0..readers {
            s.spawn(move || {
                let mut state = reader_setup(r);
                barrier.wait();
                let mut i = r;
                while !stop.load(Relaxed) {
                    for _ in 0..64 {
                        read(&mut state, i % writers);
                        i = i.wrapping_add(1);
                    }
                }
            });
        }
        let handles: Vec<_> = (0..writers)
            .map(|w| {
                s.spawn(move || {
                    let mut state = writer_setup(w);
                    let mut lat = Vec::with_capacity(SAMPLES);
                    barrier.wait();
                    let mut v = 0_u64;
                    while !stop.load(Relaxed) {
                        let t = Instant::now();
                        write(&mut state, w, v);
                        let ns = t.elapsed().as_nanos() as u64;
                        if lat.len() < SAMPLES {
                            lat.push(ns);
                        }
                        v += 1;
                    }
                    (lat, v)
                })
            })
            .collect();
        barrier.wait();
        thread::sleep(window);
        stop.store(true, Relaxed);
        handles
            .into_iter()
            .map(|h| {
                let (lat, ops) = h.join().unwrap();
                let mut with_count = lat;
                with_count.push(ops);
                with_count
            })
            .collect()
    });
    let ops: u64 = samples.iter_mut().map(|s| s.pop().unwrap()).sum();
    let mut all: Vec<u64> = samples.into_iter().flatten().collect();
    all.sort_unstable();
    let at = |q: usize| {
        if all.is_empty() {
            0.0
        } else {
            all[(all.len() - 1) * q / 100] as f64
        }
    };
    WriterRow {
        kind,
        writers,
        readers,
        ops,
        per_op_ns: window.as_nanos() as f64 / ops.max(1) as f64,
        p50: at(50),
        p90: at(90),
        p99: at(99),
    }
}

fn writer_run(kind: WriterKind, writers: usize, readers: usize, window: Duration) -> WriterRow {
    let boxed = |v: u64| Box::into_raw(Box::new(v));
    match kind {
        WriterKind::HazptrSynchronize
        | WriterKind::HazptrSynchronizeScanThread
        | WriterKind::HazptrRetire => hazptr_writers(kind, writers, readers, window).0,
        WriterKind::CrossbeamDefer => {
            let srcs: Vec<crossbeam_epoch::Atomic<u64>> = (0..writers)
                .map(|_| crossbeam_epoch::Atomic::new(0))
                .collect();
            let row = contend(
                Shape {
                    kind,
                    writers,
                    readers,
                    window,
                },
                |_| (),
                |_, i| {
                    let guard = crossbeam_epoch::pin();
                    let p = srcs[i].load(Acquire, &guard);
                    // Safety: replaced objects are destroyed only after every pin that saw them.
                    black_box(unsafe { *p.deref() });
                },
                |_| (),
                |_, w, v| {
                    let guard = crossbeam_epoch::pin();
                    let old = srcs[w].swap(crossbeam_epoch::Owned::new(v), AcqRel, &guard);
                    // Safety: unlinked; destroyed once no pin can hold it.
                    unsafe { guard.defer_destroy(old) };
                },
            );
            for src in srcs {
                // Safety: no reader or writer remains.
                drop(unsafe { src.into_owned() });
            }
            row
        }
        WriterKind::SeizeRetire => {
            use seize::Guard as _;
            let collector = seize::Collector::new();
            let srcs: Vec<AtomicPtr<u64>> =
                (0..writers).map(|_| AtomicPtr::new(boxed(0))).collect();
            let row = contend(
                Shape {
                    kind,
                    writers,
                    readers,
                    window,
                },
                |_| (),
                |_, i| {
                    let guard = collector.enter();
                    let p = guard.protect(&srcs[i], Acquire);
                    // Safety: replaced objects are retired into the collector.
                    black_box(unsafe { *p });
                },
                |_| (),
                |_, w, v| {
                    let old = srcs[w].swap(boxed(v), AcqRel);
                    // Safety: unlinked; a box.
                    unsafe { collector.retire(old, seize::reclaim::boxed::<u64>) };
                },
            );
            for src in &srcs {
                // Safety: no reader or writer remains; the collector reclaims when it drops.
                unsafe { collector.retire(src.load(Relaxed), seize::reclaim::boxed::<u64>) };
            }
            row
        }
        WriterKind::HaphazardRetire => {
            let srcs: Vec<haphazard::AtomicPtr<u64>> = (0..writers)
                .map(|_| haphazard::AtomicPtr::from(Box::new(0)))
                .collect();
            let row = contend(
                Shape {
                    kind,
                    writers,
                    readers,
                    window,
                },
                |_| haphazard::HazardPointer::new(),
                |hp, i| {
                    let v = srcs[i].safe_load(hp).expect("never null");
                    black_box(*v);
                    hp.reset_protection();
                },
                |_| (),
                |_, w, v| {
                    if let Some(old) = srcs[w].swap(Box::new(v)) {
                        // Safety: unlinked from the only source that held it.
                        unsafe { old.retire() };
                    }
                },
            );
            for src in srcs {
                // Safety: no reader or writer remains.
                unsafe { src.retire() };
            }
            row
        }
        WriterKind::ArcSwapStore => {
            let srcs: Vec<arc_swap::ArcSwap<u64>> = (0..writers)
                .map(|_| arc_swap::ArcSwap::from_pointee(0))
                .collect();
            contend(
                Shape {
                    kind,
                    writers,
                    readers,
                    window,
                },
                |_| (),
                |_, i| {
                    black_box(**srcs[i].load());
                },
                |_| (),
                |_, w, v| srcs[w].store(Arc::new(v)),
            )
        }
    }
}

// ---------------------------------------------------------------------------------------
// Heavy fences.

/// The two modes of `synchronize`, each measured in the same run.
const SYNCHRONIZE_MODES: [WriterKind; 2] = [
    WriterKind::HazptrSynchronize,
    WriterKind::HazptrSynchronizeScanThread,
];

struct FenceRow {
    kind: WriterKind,
    writers: usize,
    readers: usize,
    synchronizes: u64,
    self_scans: u64,
    self_scan_completions: u64,
    scan_cycles: u64,
    heavy_fences: u64,
    membarrier_calls: u64,
    wildcard_deferrals: u64,
}

impl FenceRow {
    fn per_synchronize(&self) -> f64 {
        self.heavy_fences as f64 / self.synchronizes.max(1) as f64
    }
}

/// Runs hazptr writers (`synchronize` or `retire`, as `kind` says) against readers, and
/// returns the row with the domain's statistics of the run.
fn hazptr_writers(
    kind: WriterKind,
    writers: usize,
    readers: usize,
    window: Duration,
) -> (WriterRow, hazptr::Stats) {
    let boxed = |v: u64| Box::into_raw(Box::new(v));
    let domain = hazptr::Domain::with_config(kind.config());
    let srcs: Vec<AtomicPtr<u64>> = (0..writers).map(|_| AtomicPtr::new(boxed(0))).collect();
    let row = contend(
        Shape {
            kind,
            writers,
            readers,
            window,
        },
        |_| domain.reader(),
        |r, i| {
            // Safety: objects are freed only after `synchronize` or through `retire`.
            let guard = unsafe { r.protect(&srcs[i]) }.expect("never null");
            black_box(*guard);
        },
        |_| (),
        |_, w, v| {
            let old = srcs[w].swap(boxed(v), AcqRel);
            if kind != WriterKind::HazptrRetire {
                domain.synchronize(old);
                // Safety: unlinked and synchronized.
                drop(unsafe { Box::from_raw(old) });
            } else {
                // Safety: unlinked; a box.
                unsafe { domain.retire_box(old) };
            }
        },
    );
    let stats = domain.stats();
    for src in &srcs {
        // Safety: no reader or writer remains; the domain drops after this.
        unsafe { domain.retire_box(src.load(Relaxed)) };
    }
    (row, stats)
}

fn fence_run(kind: WriterKind, writers: usize, readers: usize, window: Duration) -> FenceRow {
    let (_, stats) = hazptr_writers(kind, writers, readers, window);
    FenceRow {
        kind,
        writers,
        readers,
        synchronizes: stats.waits_completed(),
        self_scans: stats.self_scans,
        self_scan_completions: stats.self_scan_completions,
        scan_cycles: stats.scan_cycles,
        heavy_fences: stats.heavy_fences,
        membarrier_calls: stats.membarrier_calls,
        wildcard_deferrals: stats.wildcard_deferrals,
    }
}

/// How the tables name a mode of `synchronize`.
fn mode_name(kind: WriterKind) -> &'static str {
    if kind == WriterKind::HazptrSynchronizeScanThread {
        "scan thread only"
    } else {
        "self-scan (default)"
    }
}

// ---------------------------------------------------------------------------------------
// Output.

/// The one-minute load average, where the system reports it.
fn load_average() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn tables(
    readers: &[ReaderRow],
    writers: &[WriterRow],
    fences: &[FenceRow],
    cores: usize,
    load: (Option<f64>, Option<f64>),
) -> String {
    let mut t = String::new();
    let counts: Vec<usize> = {
        let mut c: Vec<usize> = readers.iter().map(|r| r.readers).collect();
        c.sort_unstable();
        c.dedup();
        c
    };
    let ns = |lib: Lib, n: usize| {
        readers
            .iter()
            .find(|r| r.lib == lib && r.readers == n)
            .map_or(f64::NAN, |r| r.ns)
    };
    let show = |l: Option<f64>| l.map_or("unknown".to_owned(), |l| format!("{l:.1}"));
    // The head of both reader tables: one column per reader count.
    let reader_header = |t: &mut String| {
        let _ = write!(t, "| library |");
        for n in &counts {
            let _ = write!(t, " {n} reader{} |", if *n == 1 { "" } else { "s" });
        }
        let _ = write!(t, "\n|---|");
        for _ in &counts {
            let _ = write!(t, "---:|");
        }
        t.push('\n');
    };
    let _ = writeln!(
        t,
        "Measured on {cores} cores shared with other work (one-minute load average {} at the start, {} at the end), so treat the figures as rough.\n",
        show(load.0),
        show(load.1)
    );
    let _ = writeln!(
        t,
        "#### Reader overhead (ns per protect, dereference and release, median per reader)\n"
    );
    reader_header(&mut t);
    for lib in Lib::READERS {
        let _ = write!(t, "| {} |", lib.name());
        for &n in &counts {
            let _ = write!(t, " {:.2} |", ns(lib, n));
        }
        t.push('\n');
    }
    let _ = writeln!(
        t,
        "\n#### Reader overhead relative to hazptr (the alternative's time divided by hazptr's)\n"
    );
    reader_header(&mut t);
    for lib in Lib::READERS.into_iter().filter(|&l| l != Lib::Hazptr) {
        let _ = write!(t, "| {} |", lib.name());
        for &n in &counts {
            let _ = write!(t, " {:.2}x |", ns(lib, n) / ns(Lib::Hazptr, n));
        }
        t.push('\n');
    }

    let _ = writeln!(
        t,
        "\n#### Writer cost (per operation: window / operations of all writers; latency of single calls)\n"
    );
    let _ = writeln!(
        t,
        "| writer operation | waits for readers | writers | readers | ops | per op (us) | p50 (us) | p90 (us) | p99 (us) |"
    );
    let _ = writeln!(t, "|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for w in writers {
        let _ = writeln!(
            t,
            "| {} | {} | {} | {} | {} | {:.3} | {:.3} | {:.3} | {:.3} |",
            w.kind.name(),
            if w.kind.blocks() {
                "yes"
            } else {
                "no (deferred)"
            },
            w.writers,
            w.readers,
            w.ops,
            w.per_op_ns / 1e3,
            w.p50 / 1e3,
            w.p90 / 1e3,
            w.p99 / 1e3
        );
    }

    let _ = writeln!(t, "\n#### Heavy fences per synchronize (hazptr `Stats`)\n");
    let _ = writeln!(
        t,
        "| synchronize | writers | readers | synchronize calls | self-scans (returned) | scan cycles | wildcard deferrals | heavy fences | membarrier calls | fences per synchronize |"
    );
    let _ = writeln!(t, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for f in fences {
        let _ = writeln!(
            t,
            "| {} | {} | {} | {} | {} ({}) | {} | {} | {} | {} | {:.3} |",
            mode_name(f.kind),
            f.writers,
            f.readers,
            f.synchronizes,
            f.self_scans,
            f.self_scan_completions,
            f.scan_cycles,
            f.wildcard_deferrals,
            f.heavy_fences,
            f.membarrier_calls,
            f.per_synchronize()
        );
    }
    t
}

fn write_outputs(
    out: &PathBuf,
    tables: &str,
    readers: &[ReaderRow],
    writers: &[WriterRow],
    fences: &[FenceRow],
) {
    std::fs::create_dir_all(out).expect("cannot create the output directory");
    let write = |name: &str, text: &str| {
        std::fs::write(out.join(name), text)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", out.join(name).display()));
    };
    write("tables.md", tables);

    let mut csv = String::from("library,readers,ns_per_op_median,runs_ns\n");
    for r in readers {
        let runs: Vec<String> = r.runs.iter().map(|x| format!("{x:.3}")).collect();
        let _ = writeln!(
            csv,
            "{},{},{:.3},{}",
            r.lib.name(),
            r.readers,
            r.ns,
            runs.join(";")
        );
    }
    write("readers.csv", &csv);

    let mut csv = String::from(
        "writer_operation,waits_for_readers,writers,readers,ops,per_op_ns,p50_ns,p90_ns,p99_ns\n",
    );
    for w in writers {
        let _ = writeln!(
            csv,
            "{},{},{},{},{},{:.1},{:.0},{:.0},{:.0}",
            w.kind.name(),
            w.kind.blocks(),
            w.writers,
            w.readers,
            w.ops,
            w.per_op_ns,
            w.p50,
            w.p90,
            w.p99
        );
    }
    write("writers.csv", &csv);

    let mut csv = String::from(
        "synchronize,writers,readers,synchronize_calls,self_scans,self_scan_completions,scan_cycles,wildcard_deferrals,heavy_fences,membarrier_calls,fences_per_synchronize\n",
    );
    for f in fences {
        let _ = writeln!(
            csv,
            "{},{},{},{},{},{},{},{},{},{},{:.4}",
            mode_name(f.kind),
            f.writers,
            f.readers,
            f.synchronizes,
            f.self_scans,
            f.self_scan_completions,
            f.scan_cycles,
            f.wildcard_deferrals,
            f.heavy_fences,
            f.membarrier_calls,
            f.per_synchronize()
        );
    }
    write("fences.csv", &csv);

    let counts = [1, 2, 4];
    let groups: Vec<String> = counts
        .iter()
        .map(|n| format!("{n} reader{}", if *n == 1 { "" } else { "s" }))
        .collect();
    let series: Vec<Series> = Lib::READERS
        .iter()
        .map(|&lib| Series {
            name: lib.name().to_owned(),
            values: counts
                .iter()
                .map(|&n| {
                    readers
                        .iter()
                        .find(|r| r.lib == lib && r.readers == n)
                        .map(|r| r.ns)
                })
                .collect(),
        })
        .collect();
    write(
        "readers.svg",
        &svg::bars(
            "Reader overhead per protect and release",
            "ns per operation",
            &groups,
            &series,
            false,
        ),
    );

    let configs = [(1, 0), (1, 2), (16, 0), (16, 2)];
    let groups: Vec<String> = configs
        .iter()
        .map(|(w, r)| format!("{w} writer{}, {r} readers", if *w == 1 { "" } else { "s" }))
        .collect();
    let series: Vec<Series> = WriterKind::ALL
        .iter()
        .map(|&kind| Series {
            name: kind.name().to_owned(),
            values: configs
                .iter()
                .map(|&(w, r)| {
                    writers
                        .iter()
                        .find(|x| x.kind == kind && x.writers == w && x.readers == r)
                        .map(|x| x.per_op_ns / 1e3)
                })
                .collect(),
        })
        .collect();
    write(
        "writers.svg",
        &svg::bars(
            "Writer cost per operation (log scale)",
            "microseconds per operation",
            &groups,
            &series,
            true,
        ),
    );

    let ws = [1, 2, 4, 8, 16];
    let xs: Vec<String> = ws.iter().map(|w| w.to_string()).collect();
    let series: Vec<Series> = SYNCHRONIZE_MODES
        .iter()
        .flat_map(|&kind| [0, 2].map(|r| (kind, r)))
        .map(|(kind, r)| Series {
            name: format!("{}, {r} readers", mode_name(kind)),
            values: ws
                .iter()
                .map(|&w| {
                    fences
                        .iter()
                        .find(|f| f.kind == kind && f.writers == w && f.readers == r)
                        .map(FenceRow::per_synchronize)
                })
                .collect(),
        })
        .collect();
    write(
        "fences.svg",
        &svg::lines(
            "Heavy fences per synchronize",
            "concurrent writers",
            "fences per synchronize",
            &xs,
            &series,
        ),
    );
}
