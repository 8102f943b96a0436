//! Drain rotation between stalled waiters, and stall reports, under shuttle.
//!
//! Two waiters stall at once, on addresses A and B, each held by its own reader.
//! A's drain engages first; A's holder lets go only once B's waiter returns, and B's holder
//! lets go (and re-protects, again and again) only once a drain for B has engaged, so no walk
//! finds B free before.
//! Only one drain runs at a time: A's drain must give way at the fairness cap so that B's
//! drain gets its turn and completes B's waiter at that release.
//! Without the cap neither waiter ever completes: the negative control removes the cap and
//! must hit the step bound.
//! The same model checks stall reports: with a short stall timeout (on the logical clock),
//! A's waiter is reported with A's holder named.

use std::sync::atomic::AtomicUsize as StdAtomicUsize;
use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::time::Duration;

use hazmat_models::replay::Model;
use hazmat_models::trace::{self, TracedShuttle};
use hazptr::backend::{Atomic, Backend};
use hazptr::raw::weaken::{self, Weakening};
use hazptr::{Config, Domain, ScanMode};
use shuttle::sync::Arc;
use shuttle::sync::atomic::AtomicBool;

type B = TracedShuttle;
type Src = <B as Backend>::AtomicPtr<u64>;

const BINARY: &str = "shuttle_drain";

fn spawn(name: &str, f: impl FnOnce() + Send + 'static) -> shuttle::thread::JoinHandle<()> {
    shuttle::thread::Builder::new()
        .name(name.to_owned())
        .spawn(f)
        .expect("shuttle spawns model threads")
}

/// Stall reports that named A's holder, over every schedule.
static NAMED_REPORTS: StdAtomicUsize = StdAtomicUsize::new(0);

fn rotation() {
    let config = Config::model()
        .scan_mode(ScanMode::Thread)
        .stall_timeout(Some(Duration::from_millis(20)));
    let domain = Arc::new(Domain::<B>::with_backend_config(config));
    // Permanent objects: the model waits for their addresses, it never frees them.
    let a = Box::into_raw(Box::new(1_u64));
    let b = Box::into_raw(Box::new(2_u64));
    trace::name_value(a as usize, "A");
    trace::name_value(b as usize, "B");
    let srcs = Arc::new([Src::new(a), Src::new(b)]);
    let b_done = Arc::new(AtomicBool::new(false));
    let a_held = Arc::new(AtomicBool::new(false));
    let b_held = Arc::new(AtomicBool::new(false));

    let holder = {
        let (domain, srcs, b_done, a_held) = (
            Arc::clone(&domain),
            Arc::clone(&srcs),
            Arc::clone(&b_done),
            Arc::clone(&a_held),
        );
        spawn("reader-a", move || {
            let mut reader = domain.reader();
            // Safety: the objects are permanent.
            let guard = unsafe { reader.protect(&srcs[0]) };
            a_held.store(true, SeqCst);
            while !b_done.load(SeqCst) {
                shuttle::thread::yield_now();
            }
            drop(guard);
        })
    };
    let hammer = {
        let (domain, srcs, b_done, b_held) = (
            Arc::clone(&domain),
            Arc::clone(&srcs),
            Arc::clone(&b_done),
            Arc::clone(&b_held),
        );
        spawn("reader-b", move || {
            let mut reader = domain.reader();
            // Safety: the objects are permanent.
            let guard = unsafe { reader.protect(&srcs[1]) };
            b_held.store(true, SeqCst);
            // Hold B until a drain for it has engaged (its snapshot then holds this slot), so
            // no walk finds B free before; from then on, release and re-protect now and then.
            while domain.stats().drain_addresses < 2 && !b_done.load(SeqCst) {
                shuttle::thread::yield_now();
            }
            let mut guard = guard;
            while !b_done.load(SeqCst) {
                drop(guard);
                // Safety: as above.
                guard = unsafe { reader.protect(&srcs[1]) };
                for _ in 0..3 {
                    shuttle::thread::yield_now();
                }
            }
            drop(guard);
        })
    };
    // Both addresses are held before either waiter arrives.
    while !a_held.load(SeqCst) || !b_held.load(SeqCst) {
        shuttle::thread::yield_now();
    }
    let (a_addr, b_addr) = (a as usize, b as usize);
    let waiter_a = {
        let domain = Arc::clone(&domain);
        spawn("waiter-a", move || {
            domain.synchronize(a_addr as *const u64);
            trace::note::<B>("A's waiter returns");
        })
    };
    // A's drain engages first.
    while domain.stats().drain_engages == 0 {
        shuttle::thread::yield_now();
    }
    let waiter_b = {
        let (domain, b_done) = (Arc::clone(&domain), Arc::clone(&b_done));
        spawn("waiter-b", move || {
            domain.synchronize(b_addr as *const u64);
            trace::note::<B>("B's waiter returns");
            b_done.store(true, SeqCst);
        })
    };
    for thread in [holder, hammer, waiter_a, waiter_b] {
        thread.join().unwrap();
    }
    let stats = domain.stats();
    assert_eq!(stats.waiters_completed, 2);
    // A report lists the slots holding the address when it is written: A's holder, or none
    // if the holder let go between the walk and the report.
    for report in domain
        .stall_reports()
        .iter()
        .filter(|r| r.addr == a as usize)
    {
        for holder in &report.holders {
            assert_eq!(
                holder.thread_name.as_deref(),
                Some("reader-a"),
                "a stall report names A's holder:\n{report}"
            );
            NAMED_REPORTS.fetch_add(1, Relaxed);
        }
    }
    drop(domain);
    // Safety: every thread is done and the domain is gone.
    unsafe {
        drop(Box::from_raw(a));
        drop(Box::from_raw(b));
    }
}

#[test]
fn drains_rotate_between_stalled_waiters() {
    Model::new(BINARY, "drains_rotate_between_stalled_waiters")
        .iterations(100)
        .check(rotation);
    assert!(
        NAMED_REPORTS.load(Relaxed) > 0,
        "some schedule must report A's waiter with its holder"
    );
}

#[test]
fn drains_starve_a_waiter_without_the_fairness_cap() {
    let _weak = weaken::set(Weakening::NoFairnessCap);
    let failure = Model::new(BINARY, "drains_starve_a_waiter_without_the_fairness_cap")
        .iterations(100)
        .max_steps(5_000)
        .explore(rotation)
        .expect_err("the model must see a drain that never gives way");
    eprintln!("{failure}");
    assert!(failure.message.contains("max_steps"), "{failure}");
}
