//! The backend: every concurrent primitive the library touches, behind one small trait.
//!
//! The hazard-pointer protocol is written once, against [`Backend`], and runs on three
//! implementations: [`Std`] (the default, real threads and `membarrier` on Linux), `Loom`
//! (feature `loom`, exhaustive exploration under the C11 model) and `Shuttle` (feature
//! `shuttle`, randomised schedules under sequential consistency).
//! The features are additive: each backend lives in its own module behind its own feature,
//! nothing in the crate uses a global `cfg(loom)`, and a test binary can name both model
//! backends at once.
//!
//! Architecture invariant: only the modules below this one name std, loom or shuttle
//! atomics, locks, threads or clocks; the rest of the crate speaks only of `B::…`.
//!
//! The trait names the atomics (`usize`, `u64`, `bool`, raw pointers), plain fences, the two
//! halves of the asymmetric fence that orders a reader's slot publication against the
//! scanner, a lock, a one-shot event for blocking and waking, spawning and joining the scan
//! thread, yielding, and a clock (logical time under the model checkers).

use core::sync::atomic::Ordering;
use core::time::Duration;

mod std;
pub use self::std::Std;

#[cfg(feature = "loom")]
mod loom;
#[cfg(feature = "loom")]
pub use self::loom::Loom;

#[cfg(feature = "shuttle")]
mod shuttle;
#[cfg(feature = "shuttle")]
pub use self::shuttle::Shuttle;

/// An atomic cell holding a `V`, with the operations the library uses.
pub trait Atomic<V: Copy>: Send + Sync {
    /// Creates a cell holding `v`.
    fn new(v: V) -> Self;
    /// Loads the value.
    fn load(&self, order: Ordering) -> V;
    /// Stores `v`.
    fn store(&self, v: V, order: Ordering);
    /// Stores `v` and returns the previous value.
    fn swap(&self, v: V, order: Ordering) -> V;
    /// Stores `new` if the cell holds `current`; returns the previous value either way.
    fn compare_exchange(
        &self,
        current: V,
        new: V,
        success: Ordering,
        failure: Ordering,
    ) -> Result<V, V>;
}

/// An atomic integer: an [`Atomic`] with arithmetic.
pub trait AtomicInt<V: Copy>: Atomic<V> {
    /// Adds `v` (wrapping) and returns the previous value.
    fn fetch_add(&self, v: V, order: Ordering) -> V;
    /// Subtracts `v` (wrapping) and returns the previous value.
    fn fetch_sub(&self, v: V, order: Ordering) -> V;
}

/// A mutual-exclusion lock around a `T`, used through a closure so no guard type leaks out.
pub trait Lock<T>: Send + Sync {
    /// Creates an unlocked lock holding `value`.
    fn new(value: T) -> Self;
    /// Runs `f` with exclusive access to the value.
    ///
    /// A lock poisoned by a panic in another holder is used as is: the library's state
    /// stays consistent across panics because no invariant spans a user callback.
    fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R;
}

/// An auto-reset event: `set` stores one wake-up, the next wait consumes it.
///
/// A `set` before the wait is never lost, which is what makes "enqueue, then kick" race-free.
pub trait Event: Send + Sync {
    /// Creates an event with no stored wake-up.
    fn new() -> Self;
    /// Stores a wake-up and wakes a waiter, if any.
    fn set(&self);
    /// Blocks until a wake-up is stored, then consumes it.
    fn wait(&self);
    /// Like [`Event::wait`] but gives up after `timeout`; returns whether a wake-up was consumed.
    ///
    /// Under the model checkers time is logical, and the wait may return early.
    fn wait_timeout(&self, timeout: Duration) -> bool;
    /// Consumes a stored wake-up without blocking; returns whether there was one.
    fn try_take(&self) -> bool;
}

/// A monotonic clock; logical under the model checkers.
pub trait Clock: Send + Sync {
    /// Creates a clock whose epoch is now.
    fn new() -> Self;
    /// Time elapsed since the clock was created.
    fn now(&self) -> Duration;
}

/// How a backend carries out the light half of the asymmetric fence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LightFence {
    /// A compiler fence only: the heavy half is a `membarrier` that makes every thread run a
    /// full barrier for it.
    Compiler,
    /// A full `fence(SeqCst)`, pairing with a `fence(SeqCst)` heavy half.
    Full,
}

/// How a backend carried out the heavy half of the asymmetric fence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeavyFence {
    /// A `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)` system call: every running thread of
    /// the process executed a full barrier.
    Membarrier,
    /// A plain `fence(SeqCst)`, paired with a `fence(SeqCst)` in every reader.
    Fence,
}

/// Everything concurrent that the hazard-pointer library touches.
///
/// A std user never names this trait: `Domain` defaults its parameter to [`Std`].
pub trait Backend: Sized + Send + Sync + 'static {
    /// A short name for diagnostics: `"std"`, `"loom"` or `"shuttle"`.
    const NAME: &'static str;
    /// Whether a reader clears its slot with a swap rather than a store. Only loom needs it:
    /// its modification order is a partial order built from causality, so it leaves a
    /// reader's store unordered against a scanner's earlier compare-and-swap on the same
    /// slot (a drain's mark) and lets the reader read the mark back after its own clear,
    /// which the C++ memory model forbids (the exchange's write immediately follows the
    /// value it read). A swap puts the clear after the exchange in loom's order too, and
    /// synchronizes exactly as the release store does.
    const CLEAR_WITH_SWAP: bool = false;
    /// Whether this backend runs under a model checker. The test-only weakenings
    /// (`raw::weaken`, feature `weaken`) apply only to such backends, so a std build compiles
    /// every hook away even when the feature is on, as it is whenever a workspace build
    /// includes the models.
    const MODEL: bool = false;
    /// An atomic `usize`.
    type AtomicUsize: AtomicInt<usize>;
    /// An atomic `u64`.
    type AtomicU64: AtomicInt<u64>;
    /// An atomic `bool`.
    type AtomicBool: Atomic<bool>;
    /// An atomic raw pointer, the type of the sources readers protect.
    type AtomicPtr<T>: Atomic<*mut T>;
    /// A lock around a `T`.
    type Mutex<T: Send>: Lock<T>;
    /// An auto-reset event for blocking and waking.
    type Event: Event;
    /// A monotonic clock.
    type Clock: Clock;
    /// The handle of a spawned thread.
    type JoinHandle: Send;

    /// Prepares the backend; every domain calls it before any reader can run.
    ///
    /// The std backend registers for private expedited `membarrier` here, so that the choice
    /// between the asymmetric fence and its fallback is made before the first reader fences.
    fn init();

    /// A plain fence.
    fn fence(order: Ordering);

    /// Which light half this process uses; constant once [`Backend::init`] has run, so
    /// readers look it up once and pass it to every [`Backend::light_fence`].
    fn light_fence_kind() -> LightFence;

    /// The reader's half of the asymmetric fence: after a slot store, before the re-read.
    /// `kind` is what [`Backend::light_fence_kind`] returned.
    fn light_fence(kind: LightFence);

    /// The scanner's half of the asymmetric fence: before it loads the slots.
    ///
    /// Together with [`Backend::light_fence`] it acts as a `fence(SeqCst)` on both sides:
    /// either the reader's re-read sees the writer's unlink, or the scanner sees the slot.
    fn heavy_fence() -> HeavyFence;

    /// Spawns a thread named `name` running `f`.
    fn spawn(name: &str, f: Box<dyn FnOnce() + Send>) -> Self::JoinHandle;

    /// Waits for a thread spawned by [`Backend::spawn`] to finish.
    fn join(handle: Self::JoinHandle);

    /// Lets other threads run: a hint on std, a scheduling point under the model checkers.
    fn yield_now();

    /// Who the calling thread is, for stall reports.
    fn current_thread() -> ThreadInfo;

    /// A number that tells the calling thread from every other live thread, cheaply (no
    /// allocation): the self-scan's rule uses it to tell a burst of callers on several
    /// threads from one thread calling again, and debug builds record it with each
    /// protection, so that `synchronize` can tell a caller that protects the very address it
    /// waits for. 0 where the backend does not tell threads apart (the model backends, whose
    /// models run with no self-scan backoff and without that check).
    fn thread_token() -> usize;
}

/// A thread's identity, as stall reports name holders.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadInfo {
    /// The backend's thread id, formatted.
    pub id: String,
    /// The thread's name, if it has one.
    pub name: Option<String>,
}

/// A logical clock for the model checkers: each reading advances it by one millisecond.
///
/// The counter is a plain std atomic on purpose: it adds no state for the checker to explore,
/// and the checker's executions are deterministic, so its readings are too.
#[derive(Debug, Default)]
pub struct LogicalClock {
    ticks: ::std::sync::atomic::AtomicU64,
}

impl Clock for LogicalClock {
    fn new() -> Self {
        Self {
            ticks: ::std::sync::atomic::AtomicU64::new(0),
        }
    }

    fn now(&self) -> Duration {
        // Relaxed: the counter only needs to be monotonic; it orders nothing.
        Duration::from_millis(self.ticks.fetch_add(1, Ordering::Relaxed) + 1)
    }
}

/// A statistics counter: a plain std atomic on every backend, as [`LogicalClock`]'s, for the
/// same reason: it orders nothing and decides nothing (only `Domain::stats` reads it), so the
/// model checkers need not explore it, and counting outside the scan cycle's lock keeps the
/// paths that count (the self-scan, a retire) off that lock.
#[derive(Debug, Default)]
pub(crate) struct Counter(::std::sync::atomic::AtomicU64);

impl Counter {
    /// Adds `n`.
    #[inline]
    pub(crate) fn add(&self, n: u64) {
        // Relaxed: a statistic; it orders nothing.
        self.0.fetch_add(n, Ordering::Relaxed);
    }

    /// The count so far.
    pub(crate) fn get(&self) -> u64 {
        // Relaxed: a statistic; the caller wants a recent value, nothing more.
        self.0.load(Ordering::Relaxed)
    }
}

/// Implements [`Lock`] for a backend's `Mutex` and defines its [`Event`] as a flag under that
/// mutex with a `Condvar`, from the `Mutex`, `Condvar` and `thread` the calling module
/// imports: std, loom and shuttle spell them alike. Only the timed wait differs (std waits
/// for real; the models yield once), so the caller gives its body.
macro_rules! condvar_sync {
    (
        $(#[$meta:meta])*
        $event:ident,
        fn wait_timeout(&$this:ident, $timeout:ident: Duration) -> bool $wait_timeout:block
    ) => {
        impl<T: Send> $crate::backend::Lock<T> for Mutex<T> {
            fn new(value: T) -> Self {
                Mutex::new(value)
            }

            #[inline]
            fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
                let mut guard = self.lock().unwrap_or_else(|p| p.into_inner());
                f(&mut guard)
            }
        }

        $(#[$meta])*
        #[derive(Debug)]
        pub struct $event {
            flag: Mutex<bool>,
            cond: Condvar,
        }

        impl $crate::backend::Event for $event {
            fn new() -> Self {
                Self {
                    flag: Mutex::new(false),
                    cond: Condvar::new(),
                }
            }

            fn set(&self) {
                *self.flag.lock().unwrap_or_else(|p| p.into_inner()) = true;
                self.cond.notify_one();
            }

            fn wait(&self) {
                let mut flag = self.flag.lock().unwrap_or_else(|p| p.into_inner());
                while !*flag {
                    flag = self.cond.wait(flag).unwrap_or_else(|p| p.into_inner());
                }
                *flag = false;
            }

            fn wait_timeout(&$this, $timeout: Duration) -> bool $wait_timeout

            fn try_take(&self) -> bool {
                ::std::mem::take(&mut *self.flag.lock().unwrap_or_else(|p| p.into_inner()))
            }
        }

        /// The calling thread's id and name, for stall reports.
        fn thread_info() -> $crate::backend::ThreadInfo {
            let thread = thread::current();
            $crate::backend::ThreadInfo {
                id: format!("{:?}", thread.id()),
                name: thread.name().map(str::to_owned),
            }
        }
    };
}
pub(crate) use condvar_sync;

/// Implements [`Atomic`] (and [`AtomicInt`] for integers) for a backend's atomic types by
/// forwarding to their inherent methods, which all three backends spell alike.
macro_rules! forward_atomics {
    (int $ty:ty, $v:ty) => {
        forward_atomics!(plain $ty, $v);
        impl $crate::backend::AtomicInt<$v> for $ty {
            #[inline(always)]
            fn fetch_add(&self, v: $v, order: ::core::sync::atomic::Ordering) -> $v {
                <$ty>::fetch_add(self, v, order)
            }
            #[inline(always)]
            fn fetch_sub(&self, v: $v, order: ::core::sync::atomic::Ordering) -> $v {
                <$ty>::fetch_sub(self, v, order)
            }
        }
    };
    (ptr $ty:ident) => {
        impl<T> $crate::backend::Atomic<*mut T> for $ty<T> {
            #[inline(always)]
            fn new(v: *mut T) -> Self {
                <$ty<T>>::new(v)
            }
            #[inline(always)]
            fn load(&self, order: ::core::sync::atomic::Ordering) -> *mut T {
                <$ty<T>>::load(self, order)
            }
            #[inline(always)]
            fn store(&self, v: *mut T, order: ::core::sync::atomic::Ordering) {
                <$ty<T>>::store(self, v, order)
            }
            #[inline(always)]
            fn swap(&self, v: *mut T, order: ::core::sync::atomic::Ordering) -> *mut T {
                <$ty<T>>::swap(self, v, order)
            }
            #[inline(always)]
            fn compare_exchange(
                &self,
                current: *mut T,
                new: *mut T,
                success: ::core::sync::atomic::Ordering,
                failure: ::core::sync::atomic::Ordering,
            ) -> Result<*mut T, *mut T> {
                <$ty<T>>::compare_exchange(self, current, new, success, failure)
            }
        }
    };
    (plain $ty:ty, $v:ty) => {
        impl $crate::backend::Atomic<$v> for $ty {
            #[inline(always)]
            fn new(v: $v) -> Self {
                <$ty>::new(v)
            }
            #[inline(always)]
            fn load(&self, order: ::core::sync::atomic::Ordering) -> $v {
                <$ty>::load(self, order)
            }
            #[inline(always)]
            fn store(&self, v: $v, order: ::core::sync::atomic::Ordering) {
                <$ty>::store(self, v, order)
            }
            #[inline(always)]
            fn swap(&self, v: $v, order: ::core::sync::atomic::Ordering) -> $v {
                <$ty>::swap(self, v, order)
            }
            #[inline(always)]
            fn compare_exchange(
                &self,
                current: $v,
                new: $v,
                success: ::core::sync::atomic::Ordering,
                failure: ::core::sync::atomic::Ordering,
            ) -> Result<$v, $v> {
                <$ty>::compare_exchange(self, current, new, success, failure)
            }
        }
    };
}
pub(crate) use forward_atomics;
