//! The threads of a run: readers, pool writers, sticky holders and sticky waiters, and the
//! controller that starts them, prints interim statistics, stops them and judges the run.
//!
//! Every thread holds the run's [`State`] through an `Arc`, so if some thread never finishes
//! (a `synchronize` that never returns) the controller can give up on it, report it as
//! stalled and return, instead of hanging.
//! Readers and writers keep their counts locally and flush them to shared atomics every few
//! hundred sections, so the counting does not serialize them.

use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU8, AtomicU64};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use hazptr::{Config, Domain, Guard};

use super::pool::{self, LIVE, Obj, PIPE_LEN, Pool};
use super::report::{Latency, Report};
use super::rng::Rng;
use super::scenario::{Hold, Plan};
use super::sticky::Sticky;

/// How many BUGs a run describes in full.
const BUG_SAMPLES: usize = 8;
/// Sections between flushes of a reader's local counts.
const FLUSH_EVERY: u64 = 256;

/// What every thread of a run shares. The domain is declared first so that it drops first:
/// dropping it reclaims the objects still retired, which go back to the pool.
pub(crate) struct State {
    domain: Domain,
    pool: Pool,
    sticky: Sticky,
    /// One source per pool writer; readers pick one at random.
    sources: Box<[AtomicPtr<Obj>]>,
    plan: Plan,
    seed: u64,
    /// The negative control: writers skip `synchronize` and free retired objects at once.
    skip: bool,
    stop: AtomicBool,
    started: Instant,
    /// Readers hammer sticky addresses until then.
    hammer_until: Instant,
    counts: Counts,
}

/// Shared counters, flushed into by every thread.
#[derive(Default)]
struct Counts {
    acquires: AtomicU64,
    releases: AtomicU64,
    nested: AtomicU64,
    sticky_acquires: AtomicU64,
    reader_pipe: [AtomicU64; PIPE_LEN + 1],
    writer_ops: AtomicU64,
    grace_periods: AtomicU64,
    retires: AtomicU64,
    hammer_waits: [AtomicU64; 2],
    holds: AtomicU64,
    longest_hold_ns: AtomicU64,
    sync_latency: Mutex<Vec<Duration>>,
    sticky_latency: Mutex<Vec<Duration>>,
    bugs: AtomicU64,
    bug_samples: Mutex<Vec<String>>,
}

impl Counts {
    fn bugs(&self, found: &mut Vec<String>) {
        if found.is_empty() {
            return;
        }
        self.bugs.fetch_add(found.len() as u64, Relaxed);
        let mut samples = self.bug_samples.lock().unwrap();
        let room = BUG_SAMPLES.saturating_sub(samples.len());
        samples.extend(found.drain(..).take(room));
        found.clear();
    }
}

/// What a thread is doing, for the stall report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Doing {
    Running = 0,
    Synchronize = 1,
    StickyWait = 2,
    Holding = 3,
    Done = 4,
}

impl Doing {
    fn name(v: u8) -> &'static str {
        match v {
            0 => "running",
            1 => "in synchronize",
            2 => "waiting on a sticky address",
            3 => "holding a sticky address",
            _ => "done",
        }
    }
}

struct Worker {
    name: String,
    doing: Arc<AtomicU8>,
    handle: JoinHandle<()>,
}

/// Runs `plan` for `duration`, calling `progress` with interim statistics lines every
/// `interval`, and returns the final report labelled `label`.
pub(crate) fn run(
    label: &str,
    plan: Plan,
    duration: Duration,
    seed: u64,
    skip: bool,
    interval: Option<Duration>,
    progress: &mut dyn FnMut(&str),
) -> Report {
    let mut config = Config::default()
        .force_slow_path(plan.force_slow_path)
        .retire_batch(8);
    if let Some(cycles) = plan.drain_threshold {
        config = config.drain_threshold(cycles);
    }
    if let Some(cycles) = plan.drain_max_cycles {
        config = config.drain_max_cycles(cycles);
    }
    if plan.stall_timeout.is_some() {
        config = config.stall_timeout(plan.stall_timeout);
    }
    let started = Instant::now();
    let hammer = duration * plan.hammer_percent / 100;
    let state = Arc::new(State {
        domain: Domain::with_config(config),
        pool: Pool::new(plan.writers.max(1) * 4 * PIPE_LEN + 64),
        sticky: Sticky::new(plan.sticky, plan.readers + plan.holders.len()),
        sources: (0..plan.writers)
            .map(|_| AtomicPtr::new(std::ptr::null_mut()))
            .collect(),
        seed,
        skip,
        stop: AtomicBool::new(false),
        started,
        hammer_until: started + hammer,
        counts: Counts::default(),
        plan,
    });

    let mut workers = Vec::new();
    let mut spawn = |name: String, body: fn(&State, usize, &AtomicU8), index: usize| {
        let doing = Arc::new(AtomicU8::new(Doing::Running as u8));
        let (s, d) = (Arc::clone(&state), Arc::clone(&doing));
        let handle = thread::Builder::new()
            .name(name.clone())
            .spawn(move || {
                body(&s, index, &d);
                d.store(Doing::Done as u8, Release);
            })
            .expect("failed to spawn a torture thread");
        workers.push(Worker {
            name,
            doing,
            handle,
        });
    };
    for r in 0..state.plan.readers {
        spawn(format!("reader {r}"), reader, r);
    }
    for w in 0..state.plan.writers {
        spawn(format!("writer {w}"), writer, w);
    }
    for h in 0..state.plan.holders.len() {
        spawn(format!("holder {h}"), holder, h);
    }
    for w in 0..state.plan.sticky_waiters.len() {
        spawn(format!("sticky waiter {w}"), sticky_waiter, w);
    }

    let end = started + duration;
    let mut next_stats = interval.map(|i| started + i);
    loop {
        let now = Instant::now();
        if now >= end {
            break;
        }
        let wake = next_stats.map_or(end, |n| n.min(end));
        thread::sleep(wake.saturating_duration_since(now));
        if let (Some(at), Some(i)) = (next_stats, interval)
            && Instant::now() >= at
            && Instant::now() < end
        {
            // Interim lines carry the time in their label and no verdict: the run goes on.
            let when = format!("{label} at {:.0}s", started.elapsed().as_secs_f64());
            let mut lines = snapshot(&state, &when, &[]).lines();
            lines.pop();
            for line in lines {
                progress(&line);
            }
            next_stats = Some(at + i);
        }
    }
    state.stop.store(true, Release);
    let elapsed = started.elapsed();

    // Holders release within a few milliseconds of the stop, and every wait they caused
    // then completes; a thread still running after the grace below is stalled.
    let grace = Duration::from_secs(10);
    let deadline = Instant::now() + grace;
    while workers.iter().any(|w| !w.handle.is_finished()) && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(5));
    }
    let mut stalled = Vec::new();
    for w in workers {
        if w.handle.is_finished() {
            if w.handle.join().is_err() {
                stalled.push(format!("{} panicked", w.name));
            }
        } else {
            // Left running: it holds the state through its `Arc`, so nothing dangles.
            stalled.push(format!(
                "{} still {} {:.1}s after the stop",
                w.name,
                Doing::name(w.doing.load(Acquire)),
                grace.as_secs_f64()
            ));
        }
    }
    let mut report = snapshot(&state, label, &stalled);
    report.elapsed = elapsed;
    report
}

/// The report of `state` so far.
fn snapshot(state: &State, label: &str, stalled: &[String]) -> Report {
    let c = &state.counts;
    let load = |a: &AtomicU64| a.load(Relaxed);
    let hist = |h: &[AtomicU64; PIPE_LEN + 1]| core::array::from_fn(|i| load(&h[i]));
    Report {
        label: label.to_owned(),
        readers: state.plan.readers,
        writers: state.plan.writers,
        sticky_threads: state.plan.holders.len() + state.plan.sticky_waiters.len(),
        elapsed: state.started.elapsed(),
        weakened: state.skip,
        slow_path: state.plan.force_slow_path,
        acquires: load(&c.acquires),
        releases: load(&c.releases),
        nested: load(&c.nested),
        sticky_acquires: load(&c.sticky_acquires),
        reader_pipe: hist(&c.reader_pipe),
        circulation: hist(&state.pool.circulation),
        writer_ops: load(&c.writer_ops),
        grace_periods: load(&c.grace_periods),
        retires: load(&c.retires),
        frees: state.pool.frees(),
        alloc_failures: load(&state.pool.alloc_failures),
        sync_latency: Latency::of(&mut c.sync_latency.lock().unwrap().clone()),
        sticky_latency: Latency::of(&mut c.sticky_latency.lock().unwrap().clone()),
        hammer_waits: (load(&c.hammer_waits[0]), load(&c.hammer_waits[1])),
        holds: (
            load(&c.holds),
            Duration::from_nanos(load(&c.longest_hold_ns)),
        ),
        core: state.domain.stats(),
        stall_reports: state
            .domain
            .stall_reports()
            .iter()
            .map(ToString::to_string)
            .collect(),
        bugs: load(&c.bugs),
        bug_samples: c.bug_samples.lock().unwrap().clone(),
        stalled: stalled.to_vec(),
    }
}

fn chance(rng: &mut Rng, one_in: u64) -> bool {
    one_in != 0 && rng.one_in(one_in)
}

fn spin(iterations: u64) {
    for _ in 0..iterations {
        std::hint::spin_loop();
    }
}

/// Sleeps for `d`, in steps, returning early once the run stops.
fn nap(state: &State, d: Duration) {
    let until = Instant::now() + d;
    while !state.stop.load(Acquire) {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        thread::sleep(left.min(Duration::from_millis(10)));
    }
}

/// A reader's local counts.
#[derive(Default)]
struct Tally {
    acquires: u64,
    releases: u64,
    nested: u64,
    sticky: u64,
    pipe: [u64; PIPE_LEN + 1],
    sections: u64,
    bugs: Vec<String>,
}

impl Tally {
    fn flush(&mut self, c: &Counts) {
        c.acquires.fetch_add(self.acquires, Relaxed);
        c.releases.fetch_add(self.releases, Relaxed);
        c.nested.fetch_add(self.nested, Relaxed);
        c.sticky_acquires.fetch_add(self.sticky, Relaxed);
        for (shared, n) in c.reader_pipe.iter().zip(self.pipe) {
            shared.fetch_add(n, Relaxed);
        }
        c.bugs(&mut self.bugs);
        let sections = self.sections;
        *self = Tally {
            sections,
            ..Tally::default()
        };
    }
}

/// Checks a protected pool object: live, of the generation first seen, and not past one
/// grace period. Returns its pipe count.
fn check(obj: &Obj, generation: u64, who: usize, tally: &mut Tally) -> u64 {
    // Acquire: pairs with the writer's release stores of the pipe count and poison, so what
    // the writer did before them (its `synchronize`) is what this reader is judged against.
    let pipe = obj.pipe.load(Acquire);
    let magic = obj.magic.load(Acquire);
    let now = obj.generation.load(Acquire);
    if magic != LIVE {
        tally
            .bugs
            .push(format!("reader {who} saw a poisoned (freed) object"));
    } else if now != generation {
        tally.bugs.push(format!(
            "reader {who} saw its object recycled: generation {generation} became {now}"
        ));
    } else if pipe > 1 {
        tally.bugs.push(format!(
            "reader {who} saw pipe count {pipe}: a grace period ended while it held the object"
        ));
    }
    pipe.min(PIPE_LEN as u64)
}

fn delay(hold: &Hold, rng: &mut Rng) {
    if hold.spin > 0 {
        spin(rng.below(hold.spin));
    }
    if chance(rng, hold.yield_one_in) {
        thread::yield_now();
    }
    if chance(rng, hold.sleep_one_in) {
        thread::sleep(hold.short_sleep);
    }
    if chance(rng, hold.long_one_in) {
        if hold.busy_long {
            let until = Instant::now() + hold.long_sleep;
            while Instant::now() < until {
                std::hint::spin_loop();
            }
        } else {
            thread::sleep(hold.long_sleep);
        }
    }
}

/// A reader: protected sections over pool objects, nested protections, sticky lookups.
fn reader(state: &State, id: usize, _doing: &AtomicU8) {
    let plan = &state.plan;
    let mut reader = state.domain.reader();
    let mut rng = Rng::new(state.seed, id as u64);
    let mut tally = Tally::default();
    while !state.stop.load(Relaxed) {
        tally.sections += 1;
        let hammering = state.sticky.len() > 0 && Instant::now() < state.hammer_until;
        if hammering || (state.sticky.len() > 0 && chance(&mut rng, plan.lookup_one_in)) {
            let addr = rng.below(state.sticky.len() as u64) as usize;
            let hold = state.sticky.hold(&mut reader, id, addr);
            spin(rng.below(64));
            hold.release();
            tally.acquires += 1;
            tally.releases += 1;
            tally.sticky += 1;
        } else if !state.sources.is_empty() {
            let nest = rng.below(plan.nest as u64 + 1) as usize;
            let mut held: Vec<(Guard<'_, Obj>, u64)> = Vec::with_capacity(nest + 1);
            let src = &state.sources[rng.below(state.sources.len() as u64) as usize];
            // The first protection takes the reader's primary slot, the nested ones a backup
            // slot each, through the first guard.
            // Safety: every pointer stored in a source is a pool object, which stays valid
            // for the whole run; the pool is what the checks below judge.
            let mut first = unsafe { reader.protect(src) };
            for depth in 0..=nest {
                let guard = if depth == 0 {
                    first.take()
                } else {
                    let src = &state.sources[rng.below(state.sources.len() as u64) as usize];
                    // Safety: as above.
                    held.first()
                        .and_then(|(g, _)| unsafe { g.protect_nested(src) })
                };
                let Some(guard) = guard else {
                    continue;
                };
                tally.acquires += 1;
                if depth > 0 {
                    tally.nested += 1;
                }
                let generation = guard.generation.load(Acquire);
                check(&guard, generation, id, &mut tally);
                held.push((guard, generation));
            }
            delay(&plan.hold, &mut rng);
            for (guard, generation) in &held {
                let pipe = check(guard, *generation, id, &mut tally);
                tally.pipe[pipe as usize] += 1;
            }
            tally.releases += held.len() as u64;
        }
        if tally.sections.is_multiple_of(FLUSH_EVERY) {
            tally.flush(&state.counts);
        }
        if rng.one_in(128) {
            thread::sleep(Duration::from_micros(50));
        }
    }
    tally.flush(&state.counts);
}

/// A pool writer: replace the object in its source, then wait for or retire the old one and
/// age its pipeline; sometimes wait on a sticky address instead.
fn writer(state: &State, id: usize, doing: &AtomicU8) {
    let plan = &state.plan;
    let mut rng = Rng::new(state.seed, 1_000 + id as u64);
    let mut pipeline = Vec::new();
    let mut latencies = Vec::new();
    let mut sticky_latencies = Vec::new();
    let mut bugs = Vec::new();
    let (mut ops, mut grace_periods, mut retires) = (0, 0, 0);
    let src = &state.sources[id];
    while !state.stop.load(Relaxed) {
        if rng.one_in(2) {
            thread::sleep(Duration::from_micros(20 + rng.below(100)));
        } else {
            spin(rng.below(1024));
        }
        if state.sticky.len() > 0 && chance(&mut rng, plan.unregister_one_in) {
            let addr = rng.below(state.sticky.len() as u64) as usize;
            doing.store(Doing::StickyWait as u8, Relaxed);
            let t = Instant::now();
            state
                .sticky
                .synchronize(&state.domain, addr, state.skip, &mut bugs);
            sticky_latencies.push(t.elapsed());
            doing.store(Doing::Running as u8, Relaxed);
            ops += 1;
            continue;
        }
        let Some(new) = state.pool.alloc() else {
            thread::yield_now();
            continue;
        };
        // Release: publishes the allocation's stores to readers that acquire the pointer.
        let old = src.swap(new, Release);
        ops += 1;
        if old.is_null() {
            continue;
        }
        // Safety: pool objects stay valid for the whole run.
        state.pool.unlinked(unsafe { &*old });
        if chance(&mut rng, plan.retire_one_in) {
            if state.skip {
                // Safety: `old` is a pool object; the negative control frees it too early on
                // purpose, which the pool turns into a BUG count rather than a real free.
                unsafe { pool::reclaim(old) };
            } else {
                // Safety: `old` is unlinked from the only source that held it, and
                // `pool::reclaim` may run on any thread once no reader protects it.
                unsafe { state.domain.retire(old, pool::reclaim) };
            }
            retires += 1;
        } else {
            doing.store(Doing::Synchronize as u8, Relaxed);
            let t = Instant::now();
            if !state.skip {
                state.domain.synchronize(old);
            }
            latencies.push(t.elapsed());
            doing.store(Doing::Running as u8, Relaxed);
            grace_periods += 1;
            pipeline.push(old);
        }
        state.pool.age(&mut pipeline);
        if ops % 64 == 0 {
            state.counts.bugs(&mut bugs);
        }
    }
    let c = &state.counts;
    c.writer_ops.fetch_add(ops, Relaxed);
    c.grace_periods.fetch_add(grace_periods, Relaxed);
    c.retires.fetch_add(retires, Relaxed);
    c.sync_latency.lock().unwrap().extend(latencies);
    c.sticky_latency.lock().unwrap().extend(sticky_latencies);
    c.bugs(&mut bugs);
}

/// A sticky holder: holds its address for a long time, releases it briefly, repeats.
fn holder(state: &State, id: usize, doing: &AtomicU8) {
    let plan = &state.plan.holders[id];
    let mut reader = state.domain.reader();
    let mut longest = Duration::ZERO;
    let mut holds = 0;
    while !state.stop.load(Relaxed) {
        let t = Instant::now();
        let hold = state
            .sticky
            .hold(&mut reader, state.plan.readers + id, plan.addr);
        doing.store(Doing::Holding as u8, Relaxed);
        nap(state, plan.hold);
        hold.release();
        doing.store(Doing::Running as u8, Relaxed);
        longest = longest.max(t.elapsed());
        holds += 1;
        nap(state, plan.gap);
    }
    let c = &state.counts;
    c.holds.fetch_add(holds, Relaxed);
    c.acquires.fetch_add(holds, Relaxed);
    c.releases.fetch_add(holds, Relaxed);
    c.sticky_acquires.fetch_add(holds, Relaxed);
    c.longest_hold_ns
        .fetch_max(longest.as_nanos() as u64, Relaxed);
}

/// A sticky waiter: waits on its address in a loop, as the lockdep conversion would when
/// unregistering keys of one bucket.
fn sticky_waiter(state: &State, id: usize, doing: &AtomicU8) {
    let addr = state.plan.sticky_waiters[id];
    let mut rng = Rng::new(state.seed, 2_000 + id as u64);
    let mut latencies = Vec::new();
    let mut bugs = Vec::new();
    let mut phases = [0, 0];
    while !state.stop.load(Relaxed) {
        let t = Instant::now();
        doing.store(Doing::StickyWait as u8, Relaxed);
        state
            .sticky
            .synchronize(&state.domain, addr, state.skip, &mut bugs);
        doing.store(Doing::Running as u8, Relaxed);
        latencies.push(t.elapsed());
        phases[usize::from(t >= state.hammer_until)] += 1;
        thread::sleep(Duration::from_micros(100 + rng.below(900)));
    }
    let c = &state.counts;
    c.hammer_waits[0].fetch_add(phases[0], Relaxed);
    c.hammer_waits[1].fetch_add(phases[1], Relaxed);
    c.writer_ops.fetch_add(latencies.len() as u64, Relaxed);
    c.sticky_latency.lock().unwrap().extend(latencies);
    c.bugs(&mut bugs);
}
