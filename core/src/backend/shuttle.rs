//! The shuttle backend (feature `shuttle`): shuttle's atomics, locks and threads, for
//! randomised, PCT or exhaustive schedule exploration under sequential consistency.
//!
//! Shuttle runs every access sequentially consistent, so the fences order nothing it could
//! reorder; both halves of the asymmetric fence are `fence(SeqCst)` all the same, so the code
//! has the shape the loom backend checks.
//! Time is logical: each reading of the clock advances it by one tick.
//! [`crate::backend::Event::wait_timeout`] yields and reports whether a wake-up was already stored; models
//! drive scan cycles by hand and never depend on a timeout.

use ::core::sync::atomic::Ordering;
use ::core::time::Duration;

use ::shuttle::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, fence};
use ::shuttle::sync::{Condvar, Mutex};
use ::shuttle::thread::{self, JoinHandle};

use super::{Backend, HeavyFence, LightFence, ThreadInfo, condvar_sync, forward_atomics};

forward_atomics!(int AtomicUsize, usize);
forward_atomics!(int AtomicU64, u64);
forward_atomics!(plain AtomicBool, bool);
forward_atomics!(ptr AtomicPtr);

/// The shuttle backend. Use it inside `shuttle::check_random` and its siblings.
#[derive(Clone, Copy, Debug, Default)]
pub struct Shuttle;

impl Backend for Shuttle {
    const NAME: &'static str = "shuttle";
    const MODEL: bool = true;
    type AtomicUsize = AtomicUsize;
    type AtomicU64 = AtomicU64;
    type AtomicBool = AtomicBool;
    type AtomicPtr<T> = AtomicPtr<T>;
    type Mutex<T: Send> = Mutex<T>;
    type Event = ShuttleEvent;
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
        // Pairs with the scanner's `heavy_fence`; both are SeqCst fences under shuttle.
        // Checked by litmus/tests/hazptr/hazptr-acquire-before-scan.litmus.
        fence(Ordering::SeqCst);
    }

    fn heavy_fence() -> HeavyFence {
        // Pairs with the reader's `light_fence`.
        // Checked by litmus/tests/hazptr/hazptr-acquire-before-scan.litmus.
        fence(Ordering::SeqCst);
        HeavyFence::Fence
    }

    fn spawn(name: &str, f: Box<dyn FnOnce() + Send>) -> JoinHandle<()> {
        thread::Builder::new()
            .name(name.to_owned())
            .spawn(f)
            .expect("shuttle refused to spawn the hazptr scan thread")
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
    /// The shuttle backend's event: a flag under a shuttle mutex, and a shuttle condition variable.
    ShuttleEvent,
    fn wait_timeout(&self, _timeout: Duration) -> bool {
        if self.try_take() {
            return true;
        }
        thread::yield_now();
        self.try_take()
    }
}
