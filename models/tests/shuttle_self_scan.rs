//! The self-scan beside the shared scan thread under shuttle: writers that find themselves
//! alone scan by themselves, the others join the scan thread, while readers protect every
//! source in turn.
//!
//! Shuttle explores schedules of more threads than loom can afford, under sequential
//! consistency, so its negative control removes a protocol step, not an ordering: the
//! self-scan's wildcard rule. The ordering of the self-scan is loom's (`loom_self_scan`).
//! Every model runs the real core on the traced shuttle backend, so a failure prints its
//! schedule and the command that replays it.

use std::sync::Arc as StdArc;
use std::sync::atomic::AtomicU64 as StdAtomicU64;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, SeqCst};

use hazmat_models::replay::{Model, Strategy};
use hazmat_models::trace::{self, TracedShuttle};
use hazptr::backend::{Atomic, Backend};
use hazptr::raw::weaken::{self, Weakening};
use hazptr::{Config, Domain, ScanMode};
use shuttle::sync::Arc;
use shuttle::sync::atomic::AtomicUsize;

type B = TracedShuttle;
type Src = <B as Backend>::AtomicPtr<Obj>;

const BINARY: &str = "shuttle_self_scan";

/// An object with a liveness flag: 1 while live, 0 once its writer "freed" it.
struct Obj {
    alive: AtomicUsize,
}

fn obj(name: &str) -> *mut Obj {
    let ptr = Box::into_raw(Box::new(Obj {
        alive: AtomicUsize::new(1),
    }));
    trace::name_value(ptr as usize, name);
    ptr
}

fn spawn<T: Send + 'static>(
    name: String,
    f: impl FnOnce() -> T + Send + 'static,
) -> shuttle::thread::JoinHandle<T> {
    shuttle::thread::Builder::new()
        .name(name)
        .spawn(f)
        .expect("shuttle spawns model threads")
}

/// What the runs of a model did, summed over its schedules.
#[derive(Default)]
struct Totals {
    self_scan_completions: StdAtomicU64,
    self_scan_fallbacks: StdAtomicU64,
    shared_waiters: StdAtomicU64,
}

/// Three writers unlink one object each and synchronize with the self-scan on and no backoff,
/// served by the scan thread when they are not alone or their walk finds their object held,
/// while two readers protect every source in turn (through the wildcard slow path if
/// `slow_path`).
fn writers_and_readers(slow_path: bool, totals: StdArc<Totals>) -> impl Fn() + Send + Sync {
    move || {
        let config = Config::model()
            .scan_mode(ScanMode::Thread)
            .skip_self_scan(false)
            .force_slow_path(slow_path);
        let domain = Arc::new(Domain::<B>::with_backend_config(config));
        let srcs: Arc<Vec<Src>> =
            Arc::new((0..3).map(|i| Src::new(obj(&format!("old{i}")))).collect());
        let readers: Vec<_> = (0..2)
            .map(|r| {
                let (domain, srcs) = (Arc::clone(&domain), Arc::clone(&srcs));
                spawn(format!("reader-{r}"), move || {
                    let mut reader = domain.reader();
                    for i in 0..srcs.len() {
                        let src = &srcs[(r + i) % srcs.len()];
                        // Safety: objects come from `obj`; a writer marks one dead only after
                        // unlinking and synchronizing it, and it is freed after every join.
                        if let Some(guard) = unsafe { reader.protect(src) } {
                            trace::note::<B>("reader uses the object it protects");
                            assert_eq!(guard.alive.load(SeqCst), 1, "read a freed object");
                        }
                    }
                })
            })
            .collect();
        let writers: Vec<_> = (0..3)
            .map(|w| {
                let (domain, srcs) = (Arc::clone(&domain), Arc::clone(&srcs));
                spawn(format!("writer-{w}"), move || {
                    let old = srcs[w].swap(obj(&format!("new{w}")), AcqRel);
                    domain.synchronize(old);
                    trace::note::<B>("writer frees the unlinked object");
                    // Safety: unlinked and synchronized.
                    unsafe { (*old).alive.store(0, SeqCst) };
                    old as usize
                })
            })
            .collect();
        for reader in readers {
            reader.join().unwrap();
        }
        let mut freed: Vec<usize> = writers.into_iter().map(|w| w.join().unwrap()).collect();
        let stats = domain.stats();
        assert_eq!(stats.waits_completed(), 3, "every writer's wait ended once");
        totals
            .self_scan_completions
            .fetch_add(stats.self_scan_completions, Relaxed);
        totals
            .self_scan_fallbacks
            .fetch_add(stats.self_scans - stats.self_scan_completions, Relaxed);
        totals
            .shared_waiters
            .fetch_add(stats.waiters_completed, Relaxed);
        drop(domain);
        freed.extend(srcs.iter().map(|s| s.load(Acquire) as usize));
        for addr in freed {
            // Safety: every thread is done; each object is freed once.
            drop(unsafe { Box::from_raw(addr as *mut Obj) });
        }
    }
}

fn model(name: &'static str) -> Model {
    Model::new(BINARY, name).iterations(300)
}

/// Both paths and the fallback between them must occur, or the model checks less than it
/// claims.
fn assert_every_path_taken(totals: &Totals) {
    let (done, fell_back, shared) = (
        totals.self_scan_completions.load(Relaxed),
        totals.self_scan_fallbacks.load(Relaxed),
        totals.shared_waiters.load(Relaxed),
    );
    assert!(done > 0, "no self-scan completed a wait");
    assert!(fell_back > 0, "no self-scan found its object held");
    assert!(shared > 0, "no wait went to the scan thread");
    eprintln!(
        "self-scans that returned: {done}, that fell back: {fell_back}; waits served by the scan thread: {shared}"
    );
}

#[test]
fn self_scan_beside_the_scan_thread_random() {
    let totals = StdArc::new(Totals::default());
    model("self_scan_beside_the_scan_thread_random")
        .check(writers_and_readers(false, StdArc::clone(&totals)));
    assert_every_path_taken(&totals);
}

#[test]
fn self_scan_beside_the_scan_thread_slow_path_pct() {
    let totals = StdArc::new(Totals::default());
    model("self_scan_beside_the_scan_thread_slow_path_pct")
        .strategy(Strategy::Pct { depth: 3 })
        .check(writers_and_readers(true, StdArc::clone(&totals)));
    assert_every_path_taken(&totals);
}

#[test]
fn self_scan_fails_without_deferring_on_the_wildcard() {
    let _weak = weaken::set(Weakening::NoSelfScanWildcard);
    let failure = model("self_scan_fails_without_deferring_on_the_wildcard")
        .strategy(Strategy::Pct { depth: 3 })
        .explore(writers_and_readers(true, StdArc::default()))
        .expect_err("the model must see the self-scan ignoring the wildcard");
    eprintln!("{failure}");
    assert!(failure.message.contains("read a freed object"), "{failure}");
}
