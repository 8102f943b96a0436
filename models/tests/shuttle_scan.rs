//! The shared scan thread under shuttle: many waiters, readers in the wildcard window, the
//! Bloom filter's false positives, and shutdown.
//!
//! Shuttle explores schedules of more threads than loom can afford, at random or with PCT,
//! under sequential consistency; its negative controls therefore remove protocol steps, not
//! orderings.
//! Every model runs the real core on the traced shuttle backend, so a failure prints its
//! schedule and the command that replays it, and the replay prints every step.

use std::sync::Arc as StdArc;
use std::sync::atomic::AtomicUsize as StdAtomicUsize;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, SeqCst};

use hazmat_models::replay::{Model, Strategy};
use hazmat_models::trace::{self, TracedShuttle};
use hazptr::backend::{Atomic, Backend};
use hazptr::raw::weaken::{self, Weakening};
use hazptr::{Config, Domain, ScanMode};
use shuttle::sync::Arc;
use shuttle::sync::atomic::{AtomicBool, AtomicUsize};

type B = TracedShuttle;
type Src = <B as Backend>::AtomicPtr<Obj>;

const BINARY: &str = "shuttle_scan";

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

/// Three writers unlink one object each and synchronize, all served by the one scan thread,
/// while two readers protect every source in turn through the wildcard slow path.
fn many_waiters() {
    let config = Config::model()
        .scan_mode(ScanMode::Thread)
        .force_slow_path(true);
    let domain = Arc::new(Domain::<B>::with_backend_config(config));
    let srcs: Arc<Vec<Src>> = Arc::new((0..3).map(|i| Src::new(obj(&format!("old{i}")))).collect());
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
    assert_eq!(domain.stats().waiters_completed, 3);
    drop(domain);
    freed.extend(srcs.iter().map(|s| s.load(Acquire) as usize));
    for addr in freed {
        // Safety: every thread is done; each object is freed once.
        drop(unsafe { Box::from_raw(addr as *mut Obj) });
    }
}

fn scan_thread_model(name: &'static str) -> Model {
    Model::new(BINARY, name).iterations(300)
}

/// The negative control's exploration: PCT finds the reader's short window between loading
/// the pointer and publishing it, which uniformly random choices rarely keep open long enough
/// for a whole scan cycle.
fn no_deferral_model() -> Model {
    scan_thread_model(NO_DEFERRAL).strategy(Strategy::Pct { depth: 3 })
}

#[test]
fn scan_thread_serves_many_waiters_random() {
    scan_thread_model("scan_thread_serves_many_waiters_random").check(many_waiters);
}

#[test]
fn scan_thread_serves_many_waiters_pct() {
    scan_thread_model("scan_thread_serves_many_waiters_pct")
        .strategy(Strategy::Pct { depth: 3 })
        .check(many_waiters);
}

const NO_DEFERRAL: &str = "scan_thread_fails_without_wildcard_deferral";

#[test]
fn scan_thread_fails_without_wildcard_deferral() {
    let _weak = weaken::set(Weakening::NoWildcardDeferral);
    let failure = no_deferral_model()
        .explore(many_waiters)
        .expect_err("the model must see the missing wildcard deferral");
    eprintln!("{failure}");
    assert!(failure.message.contains("read a freed object"), "{failure}");
}

/// The replay command a failing model prints reproduces the failure, step by step.
#[test]
fn a_printed_replay_command_reproduces_the_failure() {
    let _weak = weaken::set(Weakening::NoWildcardDeferral);
    let failure = no_deferral_model()
        .explore(many_waiters)
        .expect_err("the model must see the missing wildcard deferral");
    let command = failure
        .replay
        .as_deref()
        .expect("shuttle failures are replayable");
    let (assignment, cargo) = command.split_once(' ').expect("VAR=VALUE cargo ...");
    let value = assignment
        .strip_prefix("HAZMAT_REPLAY=")
        .expect("the command sets HAZMAT_REPLAY");
    assert!(
        cargo.starts_with(&format!(
            "cargo test -p hazmat-models --test {BINARY} {NO_DEFERRAL} -- --exact"
        )),
        "{command}"
    );
    // Run what the command runs: this test binary, the named test, the variable set.
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([NO_DEFERRAL, "--exact", "--nocapture", "--test-threads=1"])
        .env("HAZMAT_REPLAY", value)
        .output()
        .expect("the test binary runs");
    let text = String::from_utf8_lossy(&output.stderr).into_owned()
        + &String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}");
    assert!(text.contains("1 passed"), "the replay ran no test:\n{text}");
    for expected in [
        "steps of the failing execution:",
        "FAILED: ",
        "read a freed object",
        "store Release WILDCARD",
        "reader-",
        "hazptr-scan",
        "core/src/scan.rs",
        "core/src/slot.rs",
        "models/tests/shuttle_scan.rs",
    ] {
        assert!(text.contains(expected), "missing `{expected}` in:\n{text}");
    }
}

/// Addresses that no allocation has: the Bloom model only compares them, never dereferences.
fn fake(i: usize) -> usize {
    0x5a00_0000 + i * 0x40
}

/// A no-op deleter for fake addresses.
///
/// # Safety
///
/// Always safe: it does nothing.
unsafe fn forget(_ptr: *mut u64) {}

/// A reader holds eight unrelated addresses while a writer retires 24 others and then waits
/// for one more: with the 64-bit filter of the model configuration most of its bits are set,
/// so several held addresses pass the filter and only the exact match lets the waiter go.
/// Drain-assist is off: a drain would also rescue the waiter, and hide what is checked here.
fn bloom_false_positives(false_positives: StdArc<StdAtomicUsize>) -> impl Fn() + Send + Sync {
    move || {
        let config = Config::model()
            .bloom_bits(64)
            .retire_batch(1000)
            .drain_assist(false);
        let domain = Arc::new(Domain::<B>::with_backend_config(config));
        let done = Arc::new(AtomicBool::new(false));
        let held = Arc::new(AtomicUsize::new(0));
        let reader = {
            let (domain, done, held) = (Arc::clone(&domain), Arc::clone(&done), Arc::clone(&held));
            spawn("reader".to_owned(), move || {
                let mut reader = domain.reader();
                let srcs: Vec<<B as Backend>::AtomicPtr<u64>> = (0..8)
                    .map(|i| Atomic::new(fake(100 + i) as *mut u64))
                    .collect();
                // Safety: the pointers are never dereferenced, by the core or by this model.
                let first = unsafe { reader.protect(&srcs[0]) }.expect("not null");
                let nested: Vec<_> = srcs[1..]
                    .iter()
                    // Safety: as above.
                    .map(|s| unsafe { first.protect_nested(s) })
                    .collect();
                held.store(1, SeqCst);
                while !done.load(SeqCst) {
                    shuttle::thread::yield_now();
                }
                drop(nested);
                drop(first);
            })
        };
        for i in 0..24 {
            // Safety: `forget` does nothing with the fake address.
            unsafe { domain.retire(fake(i) as *mut u64, forget) };
        }
        while held.load(SeqCst) == 0 {
            shuttle::thread::yield_now();
        }
        domain.synchronize(fake(200) as *const u64);
        trace::note::<B>("the waiter returns");
        done.store(true, SeqCst);
        reader.join().unwrap();
        false_positives.fetch_add(domain.stats().bloom_false_positives as usize, Relaxed);
    }
}

#[test]
fn bloom_false_positives_fall_back_to_the_exact_match() {
    let false_positives = StdArc::new(StdAtomicUsize::new(0));
    Model::new(BINARY, "bloom_false_positives_fall_back_to_the_exact_match")
        .iterations(50)
        .check(bloom_false_positives(StdArc::clone(&false_positives)));
    assert!(
        false_positives.load(Relaxed) > 0,
        "the model must produce Bloom false positives"
    );
}

#[test]
fn bloom_false_positives_hold_waiters_without_the_exact_match() {
    let _weak = weaken::set(Weakening::NoExactMatch);
    let failure = Model::new(
        BINARY,
        "bloom_false_positives_hold_waiters_without_the_exact_match",
    )
    .iterations(50)
    .max_steps(5_000)
    .explore(bloom_false_positives(StdArc::default()))
    .expect_err("the model must see a waiter held by a false positive");
    eprintln!("{failure}");
    assert!(failure.message.contains("max_steps"), "{failure}");
}

/// Writers retire and synchronize through the scan thread, then the domain drops: it must
/// stop and join the scan thread and reclaim every retired object exactly once.
fn shutdown(reclaimed: StdArc<StdAtomicUsize>) -> impl Fn() + Send + Sync {
    static RECLAIMED: StdAtomicUsize = StdAtomicUsize::new(0);
    /// Counts a reclamation and frees the object.
    ///
    /// # Safety
    ///
    /// 1. `ptr` came from `obj` and is freed once.
    unsafe fn count(ptr: *mut Obj) {
        RECLAIMED.fetch_add(1, Relaxed);
        // Safety: by (1).
        drop(unsafe { Box::from_raw(ptr) });
    }
    move || {
        let before = RECLAIMED.load(Relaxed);
        let config = Config::model().scan_mode(ScanMode::Thread);
        let domain = Arc::new(Domain::<B>::with_backend_config(config));
        let src = Arc::new(Src::new(obj("first")));
        let writers: Vec<_> = (0..2)
            .map(|w| {
                let (domain, src) = (Arc::clone(&domain), Arc::clone(&src));
                spawn(format!("writer-{w}"), move || {
                    let old = src.swap(obj("next"), AcqRel);
                    // Safety: unlinked; `count` frees it once.
                    unsafe { domain.retire(old, count) };
                    domain.synchronize(fake(w) as *const u8);
                })
            })
            .collect();
        let reader = {
            let (domain, src) = (Arc::clone(&domain), Arc::clone(&src));
            spawn("reader".to_owned(), move || {
                let mut reader = domain.reader();
                // Safety: objects are freed only once retired and unprotected.
                if let Some(guard) = unsafe { reader.protect(&*src) } {
                    assert_eq!(guard.alive.load(SeqCst), 1, "read a freed object");
                }
            })
        };
        for writer in writers {
            writer.join().unwrap();
        }
        reader.join().unwrap();
        trace::note::<B>("the last handle drops the domain");
        let domain = Arc::into_inner(domain).expect("every other handle is gone");
        drop(domain);
        assert_eq!(
            RECLAIMED.load(Relaxed) - before,
            2,
            "every retired object once"
        );
        // Safety: the domain is gone; the current object was never retired.
        drop(unsafe { Box::from_raw(src.load(Acquire)) });
        reclaimed.fetch_add(1, Relaxed);
    }
}

#[test]
fn shutdown_joins_the_scan_thread_and_reclaims_everything() {
    Model::new(
        BINARY,
        "shutdown_joins_the_scan_thread_and_reclaims_everything",
    )
    .iterations(300)
    .check(shutdown(StdArc::default()));
}

#[test]
fn shutdown_hangs_without_the_kick() {
    let _weak = weaken::set(Weakening::NoShutdownKick);
    let failure = Model::new(BINARY, "shutdown_hangs_without_the_kick")
        .iterations(300)
        .explore(shutdown(StdArc::default()))
        .expect_err("the model must see the scan thread never waking");
    eprintln!("{failure}");
    assert!(failure.message.contains("deadlock"), "{failure}");
}
