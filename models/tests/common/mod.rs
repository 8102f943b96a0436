//! What the loom models share: objects whose every use is a tracked access, so that loom
//! reports a use after free as a data race, and the domain and thread helpers.

#![allow(dead_code, unreachable_pub)]

use std::sync::atomic::Ordering::{AcqRel, Acquire};

use hazmat_models::trace::{self, TracedLoom};
use hazptr::backend::{Atomic, Backend};
use hazptr::{Config, Domain, Stats};
use loom::cell::UnsafeCell;
use loom::sync::Arc;

/// The backend every loom model runs on: loom, with every operation logged.
pub type B = TracedLoom;

/// An object readers protect. Its value is a loom cell: a reader reads it while protecting
/// the object, and the writer overwrites it once the object is unlinked and no reader may
/// protect it any more (the "free"). Loom reports any read that does not happen before that
/// write as a causality violation: a use after free.
pub struct Obj {
    pub value: UnsafeCell<u64>,
}

/// A new object with `value`, named in the step log.
pub fn obj(value: u64, name: &str) -> *mut Obj {
    let ptr = Box::into_raw(Box::new(Obj {
        value: UnsafeCell::new(value),
    }));
    trace::name_value(ptr as usize, name);
    ptr
}

/// Reads an object's value, as a reader protecting it does.
///
/// # Safety
///
/// 1. `ptr` came from `obj` and is not deallocated.
pub unsafe fn read(ptr: *const Obj) -> u64 {
    // Safety: by (1); loom checks that the read does not race with `poison`.
    unsafe { (*ptr).value.with(|v| *v) }
}

/// Overwrites an object's value: the model's stand-in for freeing it.
///
/// # Safety
///
/// 1. `ptr` came from `obj` and is not deallocated.
pub unsafe fn poison(ptr: *mut Obj) {
    // Safety: by (1); loom checks that no read of the value races with this write.
    unsafe { (*ptr).value.with_mut(|v| *v = 0) }
}

/// Deallocates an object once every thread of the model is done with it.
///
/// # Safety
///
/// 1. `ptr` came from `obj`, nothing uses it any more, and it is freed once.
pub unsafe fn free(ptr: *mut Obj) {
    // Safety: by (1).
    drop(unsafe { Box::from_raw(ptr) });
}

/// A loom domain with the model configuration changed by `config`.
pub fn domain(config: impl FnOnce(Config) -> Config) -> Domain<B> {
    Domain::<B>::with_backend_config(config(Config::model()))
}

/// Spawns a named loom thread.
pub fn spawn<T: Send + 'static>(
    name: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> loom::thread::JoinHandle<T> {
    loom::thread::Builder::new()
        .name(name.to_owned())
        .spawn(f)
        .expect("loom spawns model threads")
}

/// The publication models' one execution: a reader protects the object in a source once and
/// uses it; the writer replaces it, synchronizes on the unlinked object, and frees (poisons)
/// it. `config` changes the model configuration (the fast path, the forced slow path, the
/// self-scan). Returns the domain's statistics at the end.
pub fn reader_against_synchronize(config: impl FnOnce(Config) -> Config) -> Stats {
    let domain = Arc::new(domain(config));
    let old = obj(1, "old");
    let src = Arc::new(<B as Backend>::AtomicPtr::<Obj>::new(old));
    let reader = {
        let (domain, src) = (Arc::clone(&domain), Arc::clone(&src));
        spawn("reader", move || {
            let mut reader = domain.reader();
            // Safety: objects come from `obj`; the writer poisons one only after unlinking
            // and synchronizing it, and frees it after joining this thread.
            if let Some(guard) = unsafe { reader.protect(&*src) } {
                trace::note::<B>("reader uses the object it protects");
                // Safety: protected, hence not freed.
                assert_eq!(unsafe { read(guard.as_ptr()) }, 1, "read a freed object");
            }
        })
    };
    let unlinked = src.swap(obj(1, "new"), AcqRel);
    domain.synchronize(unlinked);
    trace::note::<B>("writer frees the unlinked object");
    // Safety: unlinked and synchronized: no reader protects it.
    unsafe { poison(unlinked) };
    reader.join().unwrap();
    // Safety: every thread is done.
    unsafe {
        free(unlinked);
        free(src.load(Acquire));
    }
    domain.stats()
}
