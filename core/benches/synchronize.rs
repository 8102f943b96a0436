//! `synchronize` latency with 1 and with 16 concurrent waiters, in both modes in the same
//! run: the default, where a lone call scans by itself (the self-scan), and
//! `Config::skip_self_scan`, where every call is served by the shared scan thread; and how
//! many scan cycles, self-scans and heavy fences (`membarrier` calls where available) they
//! cost.
//!
//! Criterion measures the time per call (1 waiter) and per round of 16 concurrent calls, in
//! each mode. Before it, a summary pass prints per-call p50 and p99 latencies, the ratio of
//! the two modes' medians, scan cycles per round and heavy fences per `synchronize`, from the
//! domain's statistics: the claim that 16 waiters share about one cycle is counted, not
//! timed. No reader holds the addresses, so a lone call costs one self-scan, or one scan
//! cycle's wake-up, fence and walk. Run with `cargo bench -p hazptr --bench synchronize`.
#![expect(
    missing_docs,
    reason = "criterion_group! generates an undocumented public function"
)]

use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group};
use hazptr::{Config, Domain, Std};

const WAITERS: usize = 16;

/// A pool of `WAITERS` threads that each call `synchronize` once per round; returns per-call
/// latencies.
///
/// A round starts by unparking every thread in turn, so the calls start within a few
/// microseconds of each other. A `std::sync::Barrier` would release them through its mutex
/// one at a time: on the 2-vCPU machine that spreads 16 starts over about 400 µs, ten scan
/// cycles' worth, and the waiters would no longer be concurrent.
struct Pool {
    round: Arc<AtomicU64>,
    finished: Arc<AtomicUsize>,
    main: thread::Thread,
    latencies: Arc<Mutex<Vec<Duration>>>,
    stop: Arc<AtomicBool>,
    threads: Vec<thread::JoinHandle<()>>,
}

impl Pool {
    fn new(domain: &Arc<Domain>) -> Self {
        let round = Arc::new(AtomicU64::new(0));
        let finished = Arc::new(AtomicUsize::new(0));
        let main = thread::current();
        let latencies = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..WAITERS)
            .map(|_| {
                let (domain, round, finished, main, latencies, stop) = (
                    Arc::clone(domain),
                    Arc::clone(&round),
                    Arc::clone(&finished),
                    main.clone(),
                    Arc::clone(&latencies),
                    Arc::clone(&stop),
                );
                thread::spawn(move || {
                    let target = Box::new(0_u64);
                    let mut seen = 0;
                    loop {
                        // Acquire: pairs with the release increment that starts a round.
                        while round.load(Acquire) == seen {
                            thread::park();
                        }
                        seen += 1;
                        if stop.load(Relaxed) {
                            return;
                        }
                        let t = Instant::now();
                        domain.synchronize(&*target);
                        let dt = t.elapsed();
                        latencies.lock().unwrap().push(dt);
                        // AcqRel: the last finisher's increment follows every other one.
                        if finished.fetch_add(1, AcqRel) + 1 == WAITERS {
                            main.unpark();
                        }
                    }
                })
            })
            .collect();
        Self {
            round,
            finished,
            main,
            latencies,
            stop,
            threads,
        }
    }

    fn start(&self) {
        self.finished.store(0, Relaxed);
        // Release: pairs with the waiters' acquire loads.
        self.round.fetch_add(1, Release);
        for t in &self.threads {
            t.thread().unpark();
        }
    }

    /// Runs one round; returns its wall time.
    fn round(&self) -> Duration {
        assert_eq!(thread::current().id(), self.main.id());
        let t = Instant::now();
        self.start();
        // Acquire: pairs with the last finisher's increment.
        while self.finished.load(Acquire) < WAITERS {
            thread::park();
        }
        t.elapsed()
    }

    fn finish(self) {
        self.stop.store(true, Relaxed);
        self.start();
        for t in self.threads {
            t.join().unwrap();
        }
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// The two modes, by name.
fn modes() -> [(&'static str, Config); 2] {
    [
        ("self-scan (default)", Config::default()),
        (
            "scan thread only (skip_self_scan)",
            Config::default().skip_self_scan(true),
        ),
    ]
}

/// One waiter, `rounds` calls back to back: sorted latencies, and heavy fences per call.
fn one_waiter(domain: &Domain, rounds: usize) -> (Vec<Duration>, f64) {
    // Never published, so no slot holds it.
    let target = Box::new(0_u64);
    // Warm up: spawn the scan thread, if the mode uses it.
    domain.synchronize(&*target);
    let before = domain.stats();
    let mut one: Vec<Duration> = (0..rounds)
        .map(|_| {
            let t = Instant::now();
            domain.synchronize(&*target);
            t.elapsed()
        })
        .collect();
    let after = domain.stats();
    one.sort();
    let fences = (after.heavy_fences - before.heavy_fences) as f64 / rounds as f64;
    (one, fences)
}

/// A thread that protects and releases an object of `domain` in a loop until `stop` is set:
/// a reader on another core, which the self-scan's `membarrier` must interrupt. The object is
/// never the one the waiter waits for.
fn spinner(domain: &Arc<Domain>, stop: &Arc<AtomicBool>) -> thread::JoinHandle<()> {
    let (domain, stop) = (Arc::clone(domain), Arc::clone(stop));
    thread::spawn(move || {
        let value = Box::into_raw(Box::new(7_u64));
        let src = std::sync::atomic::AtomicPtr::new(value);
        let mut reader = domain.reader();
        while !stop.load(Relaxed) {
            for _ in 0..256 {
                // Safety: `value` is freed only after the loop.
                let guard = unsafe { reader.protect(&src) };
                std::hint::black_box(guard.map(|g| *g));
            }
        }
        drop(reader);
        // Safety: no guard remains.
        drop(unsafe { Box::from_raw(value) });
    })
}

/// One waiter in each mode, the modes alternating in blocks so that both see the same
/// machine; with `spinning`, a reader thread spins on another object meanwhile. Prints the
/// latencies and returns the two medians.
fn one_waiter_both_modes(spinning: bool) -> Vec<Duration> {
    let domains: Vec<(&str, Arc<Domain>)> = modes()
        .into_iter()
        .map(|(name, config)| (name, Arc::new(Domain::with_config(config))))
        .collect();
    let stop = Arc::new(AtomicBool::new(false));
    let spinners: Vec<_> = if spinning {
        domains.iter().map(|(_, d)| spinner(d, &stop)).collect()
    } else {
        Vec::new()
    };
    let mut latencies = vec![Vec::new(); domains.len()];
    let mut fences = vec![0.0; domains.len()];
    let blocks = 10;
    for _ in 0..blocks {
        for (i, (_, domain)) in domains.iter().enumerate() {
            let (mut block, per_call) = one_waiter(domain, 200);
            latencies[i].append(&mut block);
            fences[i] += per_call / blocks as f64;
        }
    }
    stop.store(true, Relaxed);
    for s in spinners {
        s.join().unwrap();
    }
    let case = if spinning {
        "1 waiter, a reader spinning"
    } else {
        "1 waiter"
    };
    let mut p50s = Vec::new();
    for (i, (name, domain)) in domains.iter().enumerate() {
        latencies[i].sort();
        let stats = domain.stats();
        println!(
            "synchronize, {case}, {name}: p50 {:?}, p99 {:?}; {:.2} heavy fences per synchronize; \
             {} self-scans ({} returned), {} scan cycles",
            percentile(&latencies[i], 0.5),
            percentile(&latencies[i], 0.99),
            fences[i],
            stats.self_scans,
            stats.self_scan_completions,
            stats.scan_cycles,
        );
        p50s.push(percentile(&latencies[i], 0.5));
    }
    println!(
        "synchronize, {case}: scan-thread p50 / self-scan p50 = {:.1}",
        p50s[1].as_secs_f64() / p50s[0].as_secs_f64()
    );
    p50s
}

fn summary() {
    one_waiter_both_modes(false);
    // Decided when the first domain was created.
    println!("membarrier in use: {}", Std::uses_membarrier());
    one_waiter_both_modes(true);

    // Sixteen waiters: again the modes alternate, in blocks of rounds, each block with a
    // fresh pool of threads and the two modes' order swapped from block to block, so that
    // neither mode keeps the threads created first (which measured slower on this machine,
    // whatever their mode).
    let domains: Vec<(&str, Arc<Domain>)> = modes()
        .into_iter()
        .map(|(name, config)| (name, Arc::new(Domain::with_config(config))))
        .collect();
    let (blocks, rounds) = (10, 30);
    let mut before = Vec::new();
    let mut walls = vec![Vec::new(); domains.len()];
    let mut all = vec![Vec::new(); domains.len()];
    for block in 0..blocks {
        for k in 0..domains.len() {
            let i = if block % 2 == 0 {
                k
            } else {
                domains.len() - 1 - k
            };
            let domain = &domains[i].1;
            let pool = Pool::new(domain);
            // Warm up: start the threads (and the scan thread).
            pool.round();
            pool.latencies.lock().unwrap().clear();
            if block == 0 {
                before.push((i, domain.stats()));
            }
            walls[i].extend((0..rounds).map(|_| pool.round()));
            all[i].append(&mut pool.latencies.lock().unwrap());
            pool.finish();
        }
    }
    before.sort_by_key(|(i, _)| *i);
    for (i, (name, domain)) in domains.iter().enumerate() {
        // Statistics cover the warm-up rounds of the later blocks too: one round in 31.
        let after = domain.stats();
        let before = &before[i].1;
        all[i].sort();
        walls[i].sort();
        let rounds = ((blocks * (rounds + 1)) - 1) as f64;
        let calls = rounds * WAITERS as f64;
        println!(
            "synchronize, {WAITERS} concurrent waiters, {name}: per call p50 {:?}, p99 {:?}; \
             per round p50 {:?}; {:.2} cycles and {:.2} self-scans per round of {WAITERS}; \
             {:.3} heavy fences ({:.3} membarrier calls) per synchronize",
            percentile(&all[i], 0.5),
            percentile(&all[i], 0.99),
            percentile(&walls[i], 0.5),
            (after.scan_cycles - before.scan_cycles) as f64 / rounds,
            (after.self_scans - before.self_scans) as f64 / rounds,
            (after.heavy_fences - before.heavy_fences) as f64 / calls,
            (after.membarrier_calls - before.membarrier_calls) as f64 / calls,
        );
    }
}

fn bench(c: &mut Criterion) {
    for (name, config) in modes() {
        let domain = Arc::new(Domain::with_config(config));
        // Never published, so no slot holds it.
        let target = Box::new(0_u64);
        domain.synchronize(&*target);
        c.bench_function(&format!("synchronize, 1 waiter, {name}"), |b| {
            b.iter(|| domain.synchronize(&*target))
        });

        let pool = Pool::new(&domain);
        c.bench_function(
            &format!("synchronize, round of 16 concurrent waiters, {name}"),
            |b| b.iter_custom(|iters| (0..iters).map(|_| pool.round()).sum()),
        );
        pool.finish();
    }
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20)
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench
}

fn main() {
    summary();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
