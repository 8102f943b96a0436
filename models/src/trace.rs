//! Step logs: a backend that records every operation the core makes, with its thread and its
//! code location, so that a failing model can print the interleaving that broke it.
//!
//! [`Traced<B>`] wraps a model backend (`Loom` or `Shuttle`): each atomic access, fence,
//! lock, event and spawn is forwarded to `B` unchanged and then logged.
//! The wrappers' methods are `#[track_caller]`, so the location logged is the line of the
//! core (or of the model) that made the call, such as `core/src/slot.rs:195`.
//! Loom and shuttle run every thread of a model as a coroutine on the calling OS thread, one
//! at a time, so the log is a plain thread-local of that OS thread and its order is the
//! execution's order.
//! Logging stores a few words per step and formats nothing until a failure is rendered.
//!
//! A model starts each execution with [`begin`]; a panic during the execution (a failed
//! assertion, a data race loom found, shuttle's deadlock or step-bound report) marks the
//! log, and [`render`] prints the steps up to that mark.

use core::fmt::{self, Write as _};
use core::hash::{Hash, Hasher};
use core::marker::PhantomData;
use core::panic::Location;
use core::sync::atomic::Ordering;
use core::time::Duration;
use std::cell::RefCell;
use std::collections::hash_map::DefaultHasher;
use std::sync::Once;

use hazptr::backend::{
    Atomic, AtomicInt, Backend, Event, HeavyFence, LightFence, Lock, Loom, Shuttle, ThreadInfo,
};
use hazptr::raw::WILDCARD;

/// A model backend whose threads the step log can tell apart.
pub trait Base: Backend {
    /// A key for the calling model thread, unique within one execution.
    fn thread_key() -> u64;
    /// The calling model thread's name, if it has one.
    fn thread_name() -> Option<String>;
}

fn hash_of(value: impl Hash) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

impl Base for Loom {
    fn thread_key() -> u64 {
        hash_of(loom::thread::current().id())
    }

    fn thread_name() -> Option<String> {
        loom::thread::current().name().map(str::to_owned)
    }
}

impl Base for Shuttle {
    fn thread_key() -> u64 {
        usize::from(shuttle::current::me()) as u64
    }

    fn thread_name() -> Option<String> {
        shuttle::thread::current().name().map(str::to_owned)
    }
}

impl<B: Base> Base for Traced<B> {
    fn thread_key() -> u64 {
        B::thread_key()
    }

    fn thread_name() -> Option<String> {
        B::thread_name()
    }
}

/// What one step did.
#[derive(Clone, Debug)]
enum Op {
    Load(Ordering, Value),
    Store(Ordering, Value),
    Swap(Ordering, Value, Value),
    CompareExchange(Ordering, Value, Value, Result<Value, Value>),
    FetchAdd(Ordering, Value, Value),
    FetchSub(Ordering, Value, Value),
    Fence(Ordering),
    LightFence,
    HeavyFence,
    Lock,
    EventSet,
    EventWait,
    EventWaitTimeout(bool),
    EventTryTake(bool),
    Spawn(String),
    Join,
    Yield,
    Note(String),
    Panic(String),
}

#[derive(Clone, Debug)]
struct Step {
    thread: usize,
    location: &'static Location<'static>,
    op: Op,
}

#[derive(Default)]
struct Log {
    recording: bool,
    /// Thread keys in order of first appearance, with their names.
    threads: Vec<(u64, String)>,
    steps: Vec<Step>,
    /// Names given to values (object addresses), for rendering.
    names: Vec<(u64, String)>,
}

std::thread_local! {
    static LOG: RefCell<Log> = RefCell::new(Log::default());
}

static PANIC_HOOK: Once = Once::new();

/// Starts a new execution's log, forgetting the previous one.
///
/// The model runners call it at the start of each execution.
pub fn begin() {
    PANIC_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let message = payload_message(info.payload());
            // Only the project's own locations: a checker's internals say nothing to a reader.
            let location = info
                .location()
                .filter(|l| !l.file().starts_with('/'))
                .map(|l| format!(" at {}:{}", l.file(), l.line()));
            // A panic while the log is borrowed (inside a step) is not marked; the panic
            // itself is still reported.
            let _ = LOG.try_with(|log| {
                if let Ok(mut log) = log.try_borrow_mut()
                    && log.recording
                {
                    let panic = format!("{message}{}", location.unwrap_or_default());
                    log.steps.push(Step {
                        thread: usize::MAX,
                        location: Location::caller(),
                        op: Op::Panic(panic),
                    });
                }
            });
            previous(info);
        }));
    });
    LOG.with(|log| {
        let mut log = log.borrow_mut();
        log.recording = true;
        log.threads.clear();
        log.steps.clear();
        log.names.clear();
    });
}

/// Stops logging on this OS thread (the log is kept for [`render`]).
pub fn end() {
    LOG.with(|log| log.borrow_mut().recording = false);
}

/// Names a value (typically an object's address) in the rendered log.
pub fn name_value(value: usize, name: &str) {
    LOG.with(|log| log.borrow_mut().names.push((value as u64, name.to_owned())));
}

/// Logs a step of the model itself, at the caller's location.
#[track_caller]
pub fn note<B: Base>(text: &str) {
    record::<B>(Location::caller(), Op::Note(text.to_owned()));
}

/// The text of a panic payload.
pub fn payload_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a non-text payload".to_owned()
    }
}

fn record<B: Base>(location: &'static Location<'static>, op: Op) {
    let key = B::thread_key();
    LOG.with(|log| {
        let Ok(mut log) = log.try_borrow_mut() else {
            return;
        };
        if !log.recording {
            return;
        }
        let thread = match log.threads.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                let name = B::thread_name().unwrap_or_else(|| {
                    if log.threads.is_empty() {
                        "main".to_owned()
                    } else {
                        format!("thread-{}", log.threads.len())
                    }
                });
                log.threads.push((key, name));
                log.threads.len() - 1
            }
        };
        log.steps.push(Step {
            thread,
            location,
            op,
        });
    });
}

/// The number of steps logged so far in the current execution.
pub fn len() -> usize {
    LOG.with(|log| log.borrow().steps.len())
}

/// Renders the current execution's log, up to and including the first panic, one step a line:
/// step number, thread, code location, operation.
pub fn render() -> String {
    LOG.with(|log| {
        let log = log.borrow();
        let value = |v: Value| -> String {
            let (bits, word) = (v.bits, v.word);
            let v = bits;
            if let Some((_, name)) = log.names.iter().find(|(n, _)| *n == v) {
                name.clone()
            } else if word && v == WILDCARD as u64 {
                "WILDCARD".to_owned()
            } else if v > 0xffff {
                format!("{v:#x}")
            } else {
                v.to_string()
            }
        };
        let width = log.threads.iter().map(|(_, n)| n.len()).max().unwrap_or(4);
        let mut out = String::new();
        for (i, step) in log.steps.iter().enumerate() {
            let op = match &step.op {
                Op::Load(o, v) => format!("load {o:?} -> {}", value(*v)),
                Op::Store(o, v) => format!("store {o:?} {}", value(*v)),
                Op::Swap(o, new, old) => {
                    format!("swap {o:?} {} (was {})", value(*new), value(*old))
                }
                Op::CompareExchange(o, cur, new, r) => match r {
                    Ok(_) => format!("cas {o:?} {} -> {} ok", value(*cur), value(*new)),
                    Err(v) => format!(
                        "cas {o:?} {} -> {} failed, saw {}",
                        value(*cur),
                        value(*new),
                        value(*v)
                    ),
                },
                Op::FetchAdd(o, v, old) => {
                    format!("fetch_add {o:?} {} (was {})", value(*v), value(*old))
                }
                Op::FetchSub(o, v, old) => {
                    format!("fetch_sub {o:?} {} (was {})", value(*v), value(*old))
                }
                Op::Fence(o) => format!("fence {o:?}"),
                Op::LightFence => "light fence (reader's half)".to_owned(),
                Op::HeavyFence => "heavy fence (scanner's half)".to_owned(),
                Op::Lock => "lock".to_owned(),
                Op::EventSet => "event set".to_owned(),
                Op::EventWait => "event wait returns".to_owned(),
                Op::EventWaitTimeout(b) => format!("event wait_timeout returns {b}"),
                Op::EventTryTake(b) => format!("event try_take -> {b}"),
                Op::Spawn(name) => format!("spawn {name}"),
                Op::Join => "join returns".to_owned(),
                Op::Yield => "yield".to_owned(),
                Op::Note(text) => format!("-- {text}"),
                Op::Panic(text) => {
                    let _ = writeln!(out, "{:>4}  FAILED: {text}", i + 1);
                    break;
                }
            };
            let thread = &log.threads[step.thread].1;
            let location = format!("{}:{}", step.location.file(), step.location.line());
            let _ = writeln!(out, "{:>4}  {thread:<width$}  {location:<28}  {op}", i + 1);
        }
        out
    })
}

/// A model backend `B` whose every operation is logged; see the module documentation.
pub struct Traced<B>(PhantomData<B>);

impl<B> fmt::Debug for Traced<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Traced")
    }
}

/// A logged value: its bits, and whether it is a `usize` (which may be a slot's wildcard).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Value {
    bits: u64,
    word: bool,
}

/// A value an atomic holds, as the log stores it.
pub trait Raw: Copy {
    /// The value as a `u64`.
    fn raw(self) -> u64;

    /// Whether the value is a `usize`, the type of slot values.
    fn is_word() -> bool {
        false
    }

    /// The value as logged.
    fn logged(self) -> Value {
        Value {
            bits: self.raw(),
            word: Self::is_word(),
        }
    }
}

impl Raw for usize {
    fn raw(self) -> u64 {
        self as u64
    }

    fn is_word() -> bool {
        true
    }
}

impl Raw for u64 {
    fn raw(self) -> u64 {
        self
    }
}

impl Raw for bool {
    fn raw(self) -> u64 {
        self as u64
    }
}

impl<T> Raw for *mut T {
    fn raw(self) -> u64 {
        self as usize as u64
    }
}

/// An atomic of the base backend, logged.
#[derive(Debug)]
pub struct TracedAtomic<A, B> {
    inner: A,
    _backend: PhantomData<fn() -> B>,
}

impl<V: Raw, A: Atomic<V>, B: Base> Atomic<V> for TracedAtomic<A, B> {
    fn new(v: V) -> Self {
        Self {
            inner: A::new(v),
            _backend: PhantomData,
        }
    }

    #[track_caller]
    fn load(&self, order: Ordering) -> V {
        let v = self.inner.load(order);
        record::<B>(Location::caller(), Op::Load(order, v.logged()));
        v
    }

    #[track_caller]
    fn store(&self, v: V, order: Ordering) {
        self.inner.store(v, order);
        record::<B>(Location::caller(), Op::Store(order, v.logged()));
    }

    #[track_caller]
    fn swap(&self, v: V, order: Ordering) -> V {
        let old = self.inner.swap(v, order);
        record::<B>(
            Location::caller(),
            Op::Swap(order, v.logged(), old.logged()),
        );
        old
    }

    #[track_caller]
    fn compare_exchange(
        &self,
        current: V,
        new: V,
        success: Ordering,
        failure: Ordering,
    ) -> Result<V, V> {
        let result = self.inner.compare_exchange(current, new, success, failure);
        let logged = result.map(Raw::logged).map_err(Raw::logged);
        let order = if result.is_ok() { success } else { failure };
        record::<B>(
            Location::caller(),
            Op::CompareExchange(order, current.logged(), new.logged(), logged),
        );
        result
    }
}

impl<V: Raw, A: AtomicInt<V>, B: Base> AtomicInt<V> for TracedAtomic<A, B> {
    #[track_caller]
    fn fetch_add(&self, v: V, order: Ordering) -> V {
        let old = self.inner.fetch_add(v, order);
        record::<B>(
            Location::caller(),
            Op::FetchAdd(order, v.logged(), old.logged()),
        );
        old
    }

    #[track_caller]
    fn fetch_sub(&self, v: V, order: Ordering) -> V {
        let old = self.inner.fetch_sub(v, order);
        record::<B>(
            Location::caller(),
            Op::FetchSub(order, v.logged(), old.logged()),
        );
        old
    }
}

/// A lock of the base backend, logged when taken.
#[derive(Debug)]
pub struct TracedLock<L, B> {
    inner: L,
    _backend: PhantomData<fn() -> B>,
}

impl<T, L: Lock<T>, B: Base> Lock<T> for TracedLock<L, B> {
    fn new(value: T) -> Self {
        Self {
            inner: L::new(value),
            _backend: PhantomData,
        }
    }

    #[track_caller]
    fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        let location = Location::caller();
        self.inner.with(|value| {
            record::<B>(location, Op::Lock);
            f(value)
        })
    }
}

/// An event of the base backend, logged.
#[derive(Debug)]
pub struct TracedEvent<E, B> {
    inner: E,
    _backend: PhantomData<fn() -> B>,
}

impl<E: Event, B: Base> Event for TracedEvent<E, B> {
    fn new() -> Self {
        Self {
            inner: E::new(),
            _backend: PhantomData,
        }
    }

    #[track_caller]
    fn set(&self) {
        self.inner.set();
        record::<B>(Location::caller(), Op::EventSet);
    }

    #[track_caller]
    fn wait(&self) {
        self.inner.wait();
        record::<B>(Location::caller(), Op::EventWait);
    }

    #[track_caller]
    fn wait_timeout(&self, timeout: Duration) -> bool {
        let woken = self.inner.wait_timeout(timeout);
        record::<B>(Location::caller(), Op::EventWaitTimeout(woken));
        woken
    }

    #[track_caller]
    fn try_take(&self) -> bool {
        let taken = self.inner.try_take();
        record::<B>(Location::caller(), Op::EventTryTake(taken));
        taken
    }
}

impl<B: Base> Backend for Traced<B> {
    const NAME: &'static str = B::NAME;
    const CLEAR_WITH_SWAP: bool = B::CLEAR_WITH_SWAP;
    const MODEL: bool = B::MODEL;
    type AtomicUsize = TracedAtomic<B::AtomicUsize, B>;
    type AtomicU64 = TracedAtomic<B::AtomicU64, B>;
    type AtomicBool = TracedAtomic<B::AtomicBool, B>;
    type AtomicPtr<T> = TracedAtomic<B::AtomicPtr<T>, B>;
    type Mutex<T: Send> = TracedLock<B::Mutex<T>, B>;
    type Event = TracedEvent<B::Event, B>;
    type Clock = B::Clock;
    type JoinHandle = B::JoinHandle;

    fn init() {
        B::init();
    }

    #[track_caller]
    fn fence(order: Ordering) {
        B::fence(order);
        record::<B>(Location::caller(), Op::Fence(order));
    }

    fn light_fence_kind() -> LightFence {
        B::light_fence_kind()
    }

    #[track_caller]
    fn light_fence(kind: LightFence) {
        B::light_fence(kind);
        record::<B>(Location::caller(), Op::LightFence);
    }

    #[track_caller]
    fn heavy_fence() -> HeavyFence {
        let kind = B::heavy_fence();
        record::<B>(Location::caller(), Op::HeavyFence);
        kind
    }

    #[track_caller]
    fn spawn(name: &str, f: Box<dyn FnOnce() + Send>) -> Self::JoinHandle {
        let handle = B::spawn(name, f);
        record::<B>(Location::caller(), Op::Spawn(name.to_owned()));
        handle
    }

    #[track_caller]
    fn join(handle: Self::JoinHandle) {
        B::join(handle);
        record::<B>(Location::caller(), Op::Join);
    }

    #[track_caller]
    fn yield_now() {
        B::yield_now();
        record::<B>(Location::caller(), Op::Yield);
    }

    fn current_thread() -> ThreadInfo {
        B::current_thread()
    }

    fn thread_token() -> usize {
        B::thread_token()
    }
}

/// The loom backend, logged: the backend of every loom model.
pub type TracedLoom = Traced<Loom>;
/// The shuttle backend, logged: the backend of every shuttle model.
pub type TracedShuttle = Traced<Shuttle>;

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-thread shuttle model on the traced backend: its log is deterministic.
    /// The snapshot names this file's lines; refresh it with `UPDATE_EXPECT=1`.
    fn logged_run() -> String {
        let rendered = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let out = std::sync::Arc::clone(&rendered);
        shuttle::check_random(
            move || {
                begin();
                name_value(0x1000, "obj");
                let slot = <TracedShuttle as Backend>::AtomicUsize::new(0);
                slot.store(0x1000, Ordering::Relaxed);
                TracedShuttle::light_fence(LightFence::Full);
                slot.store(WILDCARD, Ordering::Relaxed);
                let _ = slot.compare_exchange(0, 1, Ordering::AcqRel, Ordering::Acquire);
                note::<TracedShuttle>("done");
                end();
                *out.lock().unwrap() = render();
            },
            1,
        );
        rendered.lock().unwrap().clone()
    }

    #[test]
    fn a_log_renders_thread_location_and_operation() {
        expect_test::expect![[r#"
            |   1  main-thread  models/src/trace.rs:588       store Relaxed obj|
            |   2  main-thread  models/src/trace.rs:589       light fence (reader's half)|
            |   3  main-thread  models/src/trace.rs:590       store Relaxed WILDCARD|
            |   4  main-thread  models/src/trace.rs:591       cas Acquire 0 -> 1 failed, saw WILDCARD|
            |   5  main-thread  models/src/trace.rs:592       -- done|
        "#]]
        // Each line is fenced with `|`: the snapshot keeps the log's leading spaces.
        .assert_eq(
            &logged_run()
                .lines()
                .map(|l| format!("|{l}|\n"))
                .collect::<String>(),
        );
    }
}
