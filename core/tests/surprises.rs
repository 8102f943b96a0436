//! No silent surprise: each test makes a mistake a user makes, or waits for something a user
//! waits for, and asserts what the user now sees.
//!
//! - `synchronize` on an address the calling thread protects itself: a panic naming the
//!   guard in debug builds, and in every build a stall report that names the waiter as the
//!   holder;
//! - a stall with no `tracing` subscriber installed: the report on standard error;
//! - `retire`: counted at once in `Stats::retired`;
//! - reclamation on request: `Domain::reclaim`.

use std::panic::{self, AssertUnwindSafe};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering::*};
use std::thread;
use std::time::Duration;

use hazptr::{Config, Domain, ScanMode};

fn boxed(value: u64) -> AtomicPtr<u64> {
    AtomicPtr::new(Box::into_raw(Box::new(value)))
}

/// Frees what `boxed` allocated, once nothing protects it.
fn free(src: &AtomicPtr<u64>) {
    // Safety: from `boxed`; the caller holds no guard on it and no reader remains.
    drop(unsafe { Box::from_raw(src.load(Relaxed)) });
}

/// The mistake: a thread waits for a pointer it protects itself. In a debug build the call
/// panics at once, naming the guard's slot and the line that took it; a release build waits
/// for ever, and the stall reports say the holder is the waiter (see the next test).
#[test]
fn synchronize_on_an_address_the_caller_protects_names_the_guard() {
    let domain = Domain::new();
    let src = boxed(7);
    let mut reader = domain.reader();
    // Safety: `src` is freed only at the end, after the guard.
    let guard = unsafe { reader.protect(&src) }.unwrap();
    let line = line!() - 1;
    if cfg!(debug_assertions) {
        let ptr = guard.as_ptr();
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| domain.synchronize(ptr)));
        let payload = outcome.expect_err("a debug build refuses to wait for its own guard");
        let message = payload
            .downcast_ref::<String>()
            .expect("a formatted panic message");
        for expected in [
            &format!("synchronize({:#x})", ptr as usize),
            "protects that address itself",
            "primary slot",
            &format!("{}:{line}:", file!()),
            "drop the guard before synchronizing",
        ] {
            assert!(
                message.contains(expected),
                "missing `{expected}` in: {message}"
            );
        }
        // The guard is untouched; the waiter never joined the queue.
        assert_eq!(*guard, 7);
        drop(guard);
        assert_eq!(domain.stats().waiters_enqueued, 0);
        domain.synchronize(src.load(Relaxed));
    } else {
        // A release build does not look: the thread that makes the mistake waits for ever.
        // Make it on a thread of its own, let the stall detector find it, and leave it.
        drop(guard);
        let domain: &'static Domain = Box::leak(Box::new(Domain::with_config(
            Config::default().stall_timeout(Some(Duration::from_millis(20))),
        )));
        let src: &'static AtomicPtr<u64> = Box::leak(Box::new(boxed(7)));
        thread::Builder::new()
            .name("self-waiter".into())
            .spawn(move || {
                let mut reader = domain.reader();
                // Safety: the leaked object is never freed.
                let guard = unsafe { reader.protect(src) }.unwrap();
                domain.synchronize(guard.as_ptr());
                unreachable!("the waiter holds what it waits for");
            })
            .unwrap();
        while domain.stall_reports().is_empty() {
            thread::sleep(Duration::from_millis(5));
        }
        let report = &domain.stall_reports()[0];
        assert_eq!(report.waiter_thread_name.as_deref(), Some("self-waiter"));
        assert!(report.holders.iter().any(|h| h.is_waiter), "{report}");
        assert!(
            report.to_string().contains("the waiting thread itself"),
            "{report}"
        );
    }
    drop(reader);
    free(&src);
}

/// The stall report of a waiter that holds its own address says so. The waiter is enqueued
/// with `raw::enqueue`, which does not make the debug build's check, and its cycles run by
/// hand, so the test runs alike in every build.
#[test]
fn a_stall_report_says_when_the_holder_is_the_waiter_itself() {
    let config = Config::default()
        .scan_mode(ScanMode::Caller)
        .stall_timeout(Some(Duration::from_millis(5)));
    let domain = Domain::with_config(config);
    let src = boxed(7);
    let mut reader = domain.reader();
    // Safety: `src` is freed only at the end, after the guard.
    let guard = unsafe { reader.protect(&src) }.unwrap();
    let wait = hazptr::raw::enqueue(&domain, guard.as_ptr());
    hazptr::raw::scan_cycle(&domain);
    thread::sleep(Duration::from_millis(10));
    hazptr::raw::scan_cycle(&domain);
    assert!(!wait.is_complete());
    let reports = domain.stall_reports();
    let report = reports.first().expect("the waiter stalled");
    assert_eq!(report.holders.len(), 1, "{report}");
    assert!(report.holders[0].is_waiter, "{report}");
    let me = format!("{:?}", thread::current().id());
    assert_eq!(report.waiter_thread_id, me);
    let text = report.to_string();
    assert!(text.contains(&format!("on thread {me}")), "{text}");
    assert!(
        text.contains("the waiting thread itself: it waits for its own guard"),
        "{text}"
    );
    drop(guard);
    hazptr::raw::scan_cycle(&domain);
    assert!(wait.is_complete());

    // A holder on another thread is not called the waiter.
    let (held, done) = (AtomicBool::new(false), AtomicBool::new(false));
    let other = thread::scope(|s| {
        let (domain, src, held, done) = (&domain, &src, &held, &done);
        s.spawn(move || {
            let mut reader = domain.reader();
            // Safety: as above.
            let guard = unsafe { reader.protect(src) }.unwrap();
            held.store(true, SeqCst);
            while !done.load(SeqCst) {
                thread::sleep(Duration::from_millis(1));
            }
            drop(guard);
        });
        while !held.load(SeqCst) {
            thread::yield_now();
        }
        let wait = hazptr::raw::enqueue(domain, src.load(Relaxed));
        hazptr::raw::scan_cycle(domain);
        thread::sleep(Duration::from_millis(10));
        hazptr::raw::scan_cycle(domain);
        done.store(true, SeqCst);
        let report = domain.stall_reports().last().cloned().expect("stalled");
        while !wait.is_complete() {
            hazptr::raw::scan_cycle(domain);
        }
        report
    });
    assert!(other.holders.iter().all(|h| !h.is_waiter), "{other}");
    assert!(!other.to_string().contains("the waiting thread itself"));
    drop(reader);
    free(&src);
}

/// What the child processes of the stderr tests run, chosen by this variable.
const CHILD: &str = "HAZPTR_SURPRISES_CHILD";

/// In a child process: a waiter stalls for a while on an address another thread holds, with
/// a 10 ms stall timeout, reports suppressed if `suppress`; prints a line once it returns.
fn stall_in_child(suppress: bool) {
    let config = Config::default()
        .stall_timeout(Some(Duration::from_millis(10)))
        .stall_suppress(suppress);
    let domain = Domain::with_config(config);
    let src = boxed(7);
    let held = AtomicBool::new(false);
    thread::scope(|s| {
        s.spawn(|| {
            let mut reader = domain.reader();
            // Safety: `src` is freed only after the scope.
            let guard = unsafe { reader.protect(&src) }.unwrap();
            held.store(true, SeqCst);
            while domain.stats().stalls == 0 {
                thread::sleep(Duration::from_millis(1));
            }
            drop(guard);
        });
        while !held.load(SeqCst) {
            thread::yield_now();
        }
        domain.synchronize(src.load(Relaxed));
    });
    free(&src);
    eprintln!("child: synchronize returned");
}

/// Runs this test binary's test `name` in a child process with `CHILD` set to `role`;
/// returns its standard error.
fn child(name: &str, role: &str) -> String {
    let output = Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, role)
        .output()
        .expect("the test binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("1 passed"),
        "the child ran no test:\n{stdout}"
    );
    assert!(stderr.contains("child: synchronize returned"), "{stderr}");
    stderr
}

/// With no `tracing` subscriber, a stall report reaches standard error; suppressed, it does
/// not.
#[test]
fn stall_reports_reach_stderr_without_a_subscriber() {
    const NAME: &str = "stall_reports_reach_stderr_without_a_subscriber";
    match std::env::var(CHILD).as_deref() {
        Ok("reported") => return stall_in_child(false),
        Ok("suppressed") => return stall_in_child(true),
        _ => {}
    }
    let stderr = child(NAME, "reported");
    assert!(stderr.contains("hazptr: synchronize(0x"), "{stderr}");
    assert!(stderr.contains("blocked for"), "{stderr}");
    assert!(stderr.contains("primary slot"), "{stderr}");
    let stderr = child(NAME, "suppressed");
    assert!(!stderr.contains("hazptr: synchronize("), "{stderr}");
}

/// A subscriber that counts the events it receives.
struct Counting(&'static AtomicUsize);

impl tracing::Subscriber for Counting {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        if *event.metadata().level() == tracing::Level::WARN {
            self.0.fetch_add(1, SeqCst);
        }
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

/// With a `tracing` subscriber installed, the report goes to it, and standard error stays
/// quiet.
#[test]
fn stall_reports_go_to_an_installed_subscriber_only() {
    const NAME: &str = "stall_reports_go_to_an_installed_subscriber_only";
    if std::env::var(CHILD).as_deref() == Ok("subscriber") {
        static WARNINGS: AtomicUsize = AtomicUsize::new(0);
        tracing::subscriber::set_global_default(Counting(&WARNINGS)).unwrap();
        stall_in_child(false);
        assert!(WARNINGS.load(SeqCst) > 0, "the subscriber got the report");
        return;
    }
    let stderr = child(NAME, "subscriber");
    assert!(!stderr.contains("hazptr: synchronize("), "{stderr}");
}

/// A deleter that counts its calls, then frees the box.
///
/// # Safety
///
/// 1. `ptr` came from `Box::into_raw` and is freed nowhere else.
unsafe fn counted(ptr: *mut u64) {
    RECLAIMED.fetch_add(1, SeqCst);
    // Safety: by (1).
    drop(unsafe { Box::from_raw(ptr) });
}

static RECLAIMED: AtomicUsize = AtomicUsize::new(0);

/// `Stats::retired` counts a retire when it happens, not when a later cycle takes it.
#[test]
fn retire_is_counted_at_once() {
    let domain = Domain::new();
    assert_eq!(domain.stats().retired, 0);
    // Safety: never published, so never protected; from `Box::into_raw`.
    unsafe { domain.retire_box(Box::into_raw(Box::new(1_u64))) };
    let stats = domain.stats();
    assert_eq!(stats.retired, 1);
    assert_eq!((stats.scan_cycles, stats.reclaimed), (0, 0), "{stats:?}");
}

/// `Domain::reclaim` reclaims at once whatever no reader protects, and leaves the rest.
#[test]
fn reclaim_frees_what_no_reader_protects_now() {
    let domain = Domain::new();
    let (held, free) = (boxed(1), boxed(2));
    let mut reader = domain.reader();
    // Safety: `held` is retired only after being unlinked below, and freed by the domain.
    let guard = unsafe { reader.protect(&held) }.unwrap();
    let before = RECLAIMED.load(SeqCst);
    // Safety: each pointer is unlinked (swapped out of its source) and came from a box;
    // `counted` frees it once.
    unsafe {
        domain.retire(held.swap(std::ptr::null_mut(), AcqRel), counted);
        domain.retire(free.swap(std::ptr::null_mut(), AcqRel), counted);
    }
    // Well below the batch of 64: nothing has been reclaimed yet.
    assert_eq!(domain.stats().reclaimed, 0);
    assert_eq!(domain.reclaim(), 1, "only the unprotected object");
    assert_eq!(RECLAIMED.load(SeqCst) - before, 1);
    assert_eq!(*guard, 1);
    drop(guard);
    assert_eq!(domain.reclaim(), 1, "the other, once released");
    assert_eq!(domain.reclaim(), 0, "nothing is left");
    let stats = domain.stats();
    assert_eq!((stats.retired, stats.reclaimed), (2, 2));
    drop(reader);
}
