//! The loom backend (feature `loom`): loom's atomics, locks and threads, for exhaustive
//! exploration of the protocol under the C11 memory model.
//!
//! Loom models `fence(SeqCst)` but treats SeqCst accesses as AcqRel, so both halves of the
//! asymmetric fence are `fence(SeqCst)`: the shape loom can check.
//! Time is logical: each reading of the clock advances it by one tick.
//! Loom cannot time out a wait, so [`crate::backend::Event::wait_timeout`] yields and reports whether a
//! wake-up was already stored; models drive scan cycles by hand and never depend on a timeout.

use ::core::sync::atomic::Ordering;
use ::core::time::Duration;

use ::loom::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, fence};
use ::loom::sync::{Condvar, Mutex};
use ::loom::thread::{self, JoinHandle};

use super::{Backend, HeavyFence, LightFence, ThreadInfo, condvar_sync, forward_atomics};

forward_atomics!(int AtomicUsize, usize);
forward_atomics!(int AtomicU64, u64);
forward_atomics!(plain AtomicBool, bool);
forward_atomics!(ptr AtomicPtr);

/// The loom backend. Use it inside `loom::model`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Loom;

impl Backend for Loom {
    const NAME: &'static str = "loom";
    const CLEAR_WITH_SWAP: bool = true;
    const MODEL: bool = true;
    type AtomicUsize = AtomicUsize;
    type AtomicU64 = AtomicU64;
    type AtomicBool = AtomicBool;
    type AtomicPtr<T> = AtomicPtr<T>;
    type Mutex<T: Send> = Mutex<T>;
    type Event = LoomEvent;
    type Clock = super::LogicalClock;
    type JoinHandle = JoinHandle<()>;

    fn init() {}

    fn fence(order: Ordering) {
        fence(order);
    }

    fn light_fence_kind() -> LightFence {
        LightFence::Full
    }

    fn light_fence(_kind: LightFence) {
        // Pairs with the scanner's `heavy_fence`; both are SeqCst fences under loom.
        // Checked by litmus/tests/hazptr/hazptr-acquire-before-scan.litmus.
        fence(Ordering::SeqCst);
    }

    fn heavy_fence() -> HeavyFence {
        // Pairs with the reader's `light_fence`.
        // Checked by litmus/tests/hazptr/hazptr-acquire-before-scan.litmus.
        fence(Ordering::SeqCst);
        HeavyFence::Fence
    }

    fn spawn(_name: &str, f: Box<dyn FnOnce() + Send>) -> JoinHandle<()> {
        thread::spawn(f)
    }

    fn join(handle: JoinHandle<()>) {
        // A panic on a model thread already fails the model.
        let _ = handle.join();
    }

    fn yield_now() {
        thread::yield_now();
    }

    fn current_thread() -> ThreadInfo {
        thread_info()
    }

    fn thread_token() -> usize {
        // Every thread looks alike (see `Backend::thread_token`).
        0
    }
}

condvar_sync! {
    /// The loom backend's event: a flag under a loom mutex, and a loom condition variable.
    LoomEvent,
    fn wait_timeout(&self, _timeout: Duration) -> bool {
        if self.try_take() {
            return true;
        }
        thread::yield_now();
        self.try_take()
    }
}
