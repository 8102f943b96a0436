//! The std backend: real threads, std atomics, and on Linux an asymmetric fence built on
//! `membarrier`.
//!
//! The asymmetric fence moves the cost of ordering a reader's slot publication from the
//! reader to the scanner.
//! The reader's light half is only a compiler fence; the scanner's heavy half is
//! `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)`, which makes every running thread of the
//! process execute a full memory barrier before the call returns.
//! Either that barrier falls before a reader's re-read of the source pointer, and the re-read
//! sees the writer's unlink, or it falls after the reader's slot store, and the scanner's
//! slot loads see the slot.
//! The command must be registered once per process
//! (`MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED`); [`Std`] does so when the first domain is
//! created, before any reader exists.
//! If registration fails, or off Linux, both halves become `fence(SeqCst)`.

use ::std::sync::atomic::{
    AtomicBool, AtomicPtr, AtomicU8, AtomicU64, AtomicUsize, Ordering, compiler_fence, fence,
};
use ::std::sync::{Condvar, Mutex, Once};
use ::std::thread::{self, JoinHandle};
use ::std::time::{Duration, Instant};

use super::{Backend, Clock, HeavyFence, LightFence, ThreadInfo, condvar_sync, forward_atomics};

forward_atomics!(int AtomicUsize, usize);
forward_atomics!(int AtomicU64, u64);
forward_atomics!(plain AtomicBool, bool);
forward_atomics!(ptr AtomicPtr);

/// The default backend: std atomics and threads, `membarrier` on Linux.
#[derive(Clone, Copy, Debug, Default)]
pub struct Std;

/// Which asymmetric fence the process uses; decided once, by [`Std::init`].
const FENCE_UNDECIDED: u8 = 0;
const FENCE_MEMBARRIER: u8 = 1;
const FENCE_PLAIN: u8 = 2;
static FENCE_KIND: AtomicU8 = AtomicU8::new(FENCE_UNDECIDED);
static FENCE_INIT: Once = Once::new();

#[cfg(target_os = "linux")]
mod membarrier {
    //! The two `membarrier` commands the std backend needs, by their kernel ABI numbers.

    const CMD_QUERY: libc::c_long = 0;
    const CMD_PRIVATE_EXPEDITED: libc::c_long = 1 << 3;
    const CMD_REGISTER_PRIVATE_EXPEDITED: libc::c_long = 1 << 4;

    fn call(cmd: libc::c_long) -> libc::c_long {
        // Safety: `membarrier` takes a command and two integer arguments; it reads and
        // writes no memory of ours.
        unsafe {
            libc::syscall(
                libc::SYS_membarrier,
                cmd,
                0 as libc::c_long,
                0 as libc::c_long,
            )
        }
    }

    /// Registers the process for private expedited barriers; returns whether it can use them.
    pub(super) fn register() -> bool {
        let supported = call(CMD_QUERY);
        if supported < 0 || supported & CMD_PRIVATE_EXPEDITED == 0 {
            return false;
        }
        call(CMD_REGISTER_PRIVATE_EXPEDITED) == 0
    }

    /// Issues a private expedited barrier; returns whether the kernel accepted it.
    pub(super) fn barrier() -> bool {
        call(CMD_PRIVATE_EXPEDITED) == 0
    }
}

#[cfg(not(target_os = "linux"))]
mod membarrier {
    //! No `membarrier` off Linux: the backend always takes the plain-fence fallback.

    pub(super) fn register() -> bool {
        false
    }

    pub(super) fn barrier() -> bool {
        false
    }
}

impl Std {
    /// Whether this process uses `membarrier` for the heavy half of the asymmetric fence.
    ///
    /// False until the first domain is created, and where registration failed.
    #[inline(always)]
    pub fn uses_membarrier() -> bool {
        // Relaxed: the kind is written once, inside `FENCE_INIT`, and every caller that
        // matters (a reader, the scanner) runs after a domain's creation completed that
        // `Once`, which synchronizes with it.
        FENCE_KIND.load(Ordering::Relaxed) == FENCE_MEMBARRIER
    }
}

impl Backend for Std {
    const NAME: &'static str = "std";
    type AtomicUsize = AtomicUsize;
    type AtomicU64 = AtomicU64;
    type AtomicBool = AtomicBool;
    type AtomicPtr<T> = AtomicPtr<T>;
    type Mutex<T: Send> = Mutex<T>;
    type Event = StdEvent;
    type Clock = StdClock;
    type JoinHandle = JoinHandle<()>;

    fn init() {
        FENCE_INIT.call_once(|| {
            let kind = if membarrier::register() {
                FENCE_MEMBARRIER
            } else {
                FENCE_PLAIN
            };
            // Relaxed: published by the `Once`, which every later reader of the kind has
            // synchronized with (see `uses_membarrier`).
            FENCE_KIND.store(kind, Ordering::Relaxed);
        });
    }

    #[inline(always)]
    fn fence(order: Ordering) {
        fence(order);
    }

    #[inline(always)]
    fn light_fence_kind() -> LightFence {
        if Self::uses_membarrier() {
            LightFence::Compiler
        } else {
            LightFence::Full
        }
    }

    #[inline(always)]
    fn light_fence(kind: LightFence) {
        if kind == LightFence::Compiler {
            // Pairs with the scanner's membarrier in `heavy_fence`: the compiler keeps the
            // slot store before the re-read, and the barrier the kernel runs on this thread
            // orders them in hardware.
            // Checked by litmus/tests/hazptr/hazptr-acquire-before-scan.litmus.
            compiler_fence(Ordering::SeqCst);
        } else {
            fence(Ordering::SeqCst);
        }
    }

    fn heavy_fence() -> HeavyFence {
        if Self::uses_membarrier() {
            // Once registered, the command cannot fail; if the kernel says otherwise the
            // readers' compiler fences order nothing, and continuing would be unsound.
            assert!(
                membarrier::barrier(),
                "membarrier failed after a successful registration"
            );
            HeavyFence::Membarrier
        } else {
            fence(Ordering::SeqCst);
            HeavyFence::Fence
        }
    }

    fn spawn(name: &str, f: Box<dyn FnOnce() + Send>) -> JoinHandle<()> {
        thread::Builder::new()
            .name(name.to_owned())
            .spawn(f)
            .expect("failed to spawn the hazptr scan thread")
    }

    fn join(handle: JoinHandle<()>) {
        // A panic on the scan thread has already been reported by the panic hook; the
        // domain is being torn down either way.
        let _ = handle.join();
    }

    #[inline]
    fn yield_now() {
        thread::yield_now();
    }

    fn current_thread() -> ThreadInfo {
        thread_info()
    }

    #[inline]
    fn thread_token() -> usize {
        ::std::thread_local! {
            static TOKEN: u8 = const { 0 };
        }
        // The address of a thread-local: distinct for every live thread.
        TOKEN.with(|token| ::core::ptr::from_ref(token).addr())
    }
}

condvar_sync! {
    /// The std backend's event: a flag under a mutex, and a condition variable.
    StdEvent,
    fn wait_timeout(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut flag = self.flag.lock().unwrap_or_else(|p| p.into_inner());
        while !*flag {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            flag = self
                .cond
                .wait_timeout(flag, deadline - now)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        *flag = false;
        true
    }
}

/// The std backend's clock: [`Instant`] since the clock's creation.
#[derive(Debug)]
pub struct StdClock {
    epoch: Instant,
}

impl Clock for StdClock {
    fn new() -> Self {
        Self {
            epoch: Instant::now(),
        }
    }

    fn now(&self) -> Duration {
        self.epoch.elapsed()
    }
}
