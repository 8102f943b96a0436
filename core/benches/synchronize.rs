//! `synchronize` latency with 1 and with 16 concurrent waiters, served by the shared scan
//! thread, and how many scan cycles and `membarrier` calls they cost.
//!
//! Criterion measures the time per call (1 waiter) and per round of 16 concurrent calls.
//! Before it, a summary pass prints per-call p50 and p99 latencies, scan cycles per round and
//! heavy fences (`membarrier` calls where available) per `synchronize`, from the domain's
//! statistics: the claim that 16 waiters share about one cycle is counted, not timed.
//! No reader holds the addresses, so each call costs one scan cycle's wake-up, fence and
//! walk. Run with `cargo bench -p hazptr --bench synchronize`.
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
use hazptr::{Domain, Std};

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

fn summary() {
    let domain = Arc::new(Domain::new());
    // Never published, so no slot holds it.
    let target = Box::new(0_u64);
    // Warm up: spawn the scan thread.
    domain.synchronize(&*target);

    let rounds = 2000;
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
    let calls = rounds as f64;
    println!(
        "synchronize, 1 waiter: p50 {:?}, p99 {:?}; {:.2} cycles and {:.2} membarrier calls per synchronize",
        percentile(&one, 0.5),
        percentile(&one, 0.99),
        (after.scan_cycles - before.scan_cycles) as f64 / calls,
        (after.membarrier_calls - before.membarrier_calls) as f64 / calls,
    );

    let pool = Pool::new(&domain);
    pool.round();
    pool.latencies.lock().unwrap().clear();
    let rounds = 300;
    let before = domain.stats();
    let mut walls: Vec<Duration> = (0..rounds).map(|_| pool.round()).collect();
    let after = domain.stats();
    let mut all = std::mem::take(&mut *pool.latencies.lock().unwrap());
    pool.finish();
    all.sort();
    walls.sort();
    let calls = (rounds * WAITERS) as f64;
    println!(
        "synchronize, {WAITERS} concurrent waiters: per call p50 {:?}, p99 {:?}; per round p50 {:?}; \
         {:.2} cycles per round of {WAITERS}; {:.3} membarrier calls per synchronize",
        percentile(&all, 0.5),
        percentile(&all, 0.99),
        percentile(&walls, 0.5),
        (after.scan_cycles - before.scan_cycles) as f64 / rounds as f64,
        (after.membarrier_calls - before.membarrier_calls) as f64 / calls,
    );
    println!("membarrier in use: {}", Std::uses_membarrier());
}

fn bench(c: &mut Criterion) {
    let domain = Arc::new(Domain::new());
    // Never published, so no slot holds it.
    let target = Box::new(0_u64);
    domain.synchronize(&*target);
    c.bench_function("synchronize, 1 waiter", |b| {
        b.iter(|| domain.synchronize(&*target))
    });

    let pool = Pool::new(&domain);
    c.bench_function("synchronize, round of 16 concurrent waiters", |b| {
        b.iter_custom(|iters| (0..iters).map(|_| pool.round()).sum())
    });
    pool.finish();
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
