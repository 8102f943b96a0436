//! Candidate executions: the events of one run and the relations that tie them.
//!
//! An [`Execution`] is what the enumeration hands to a memory model: the events of one
//! combination of thread paths, with values resolved, the program-order and dependency
//! relations that the paths fix, and the reads-from and coherence relations that the
//! enumeration chose.
//! Models derive everything else (fr, the internal and external parts, ppo, hb...) from
//! these base relations, exactly as the cat files derive them from herd7's.

use crate::exec::event::{Event, EventKind, Tag};
use crate::exec::relation::{EventSet, Growable, Relation, Width, Words};

/// One candidate execution.
///
/// Conventions, which every model may rely on:
/// - events are numbered `0..events.len()`; the initial writes come first, one per location
///   the test touches, and carry [`Tag::Init`];
/// - `po` is transitive and relates only events of the same thread; initial writes are in
///   no thread and not in `po`;
/// - `co` is transitive and total over the writes of each location, initial write first;
///   for spinlocks it is the coherence order after `lock.cat` merges the unlock events;
/// - `rf` relates each read to the one write it reads from (for lock events, after
///   `lock.cat` adds the lock-fail, is-locked and lock-read edges);
/// - `rmw` relates the read and the write of each successful read-modify-write, including
///   the LKR/LKW pair of a spin lock;
/// - `addr`, `data` and `ctrl` are the syntactic dependencies through registers, before
///   the model's `carry-dep` extension.
#[derive(Clone, Debug)]
pub struct Execution<W: Width = Words<1>> {
    /// The events, initial writes first.
    pub events: Vec<Event>,
    /// Program order.
    pub po: Relation<W>,
    /// Reads-from: write to read.
    pub rf: Relation<W>,
    /// Coherence order.
    pub co: Relation<W>,
    /// Read to write of each successful read-modify-write.
    pub rmw: Relation<W>,
    /// Address dependencies: read to the access whose address it computes.
    pub addr: Relation<W>,
    /// Data dependencies: read to the write whose value it computes.
    pub data: Relation<W>,
    /// Control dependencies: read to every event po-after a branch on its value.
    pub ctrl: Relation<W>,
    /// The initial writes of the locations whose final value the test reads (in its
    /// condition, `locations` or filter): their co-last writes are herd7's final writes,
    /// cat's `FW`.
    pub observed: EventSet<W>,
    /// Names the events (but their values), `po`, `rmw` and the dependencies: two
    /// executions with the same nonzero `shape` have the same, so that a model may keep
    /// what it computed from them without comparing them ([`Shape::fresh`]). 0 names
    /// nothing.
    pub shape: u64,
}

/// The source of [`Execution::shape`]s.
pub struct Shape;

impl Shape {
    /// A shape no execution had before: the enumeration gives one to each combination
    /// of thread paths, whose executions differ in `rf`, `co` and values only.
    pub fn fresh() -> u64 {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }
}

impl<W: Width> Execution<W> {
    /// The number of events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether the execution has no event.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The events that satisfy `pred`.
    pub fn set(&self, pred: impl Fn(&Event) -> bool) -> EventSet<W> {
        EventSet::<W>::from_fn(self.len(), |e| pred(&self.events[e]))
    }

    /// The events carrying `tag`.
    pub fn tagged(&self, tag: Tag) -> EventSet<W> {
        self.set(|e| e.has(tag))
    }

    /// The reads (cat's `R`, before `lock.cat` adds its lock reads).
    pub fn reads(&self) -> EventSet<W> {
        self.set(|e| e.kind == EventKind::Read)
    }

    /// The writes (cat's `W`).
    pub fn writes(&self) -> EventSet<W> {
        self.set(|e| e.kind == EventKind::Write)
    }

    /// The memory accesses (cat's `M`).
    pub fn accesses(&self) -> EventSet<W> {
        self.set(|e| e.kind != EventKind::Fence)
    }

    /// The fences (cat's `F`).
    pub fn fences(&self) -> EventSet<W> {
        self.set(|e| e.kind == EventKind::Fence)
    }

    /// Pairs of memory accesses to the same location (cat's `loc`).
    pub fn loc(&self) -> Relation<W> {
        self.same(|e| e.loc)
    }

    /// Pairs of events of the same thread (cat's `int`); initial writes are internal to
    /// none.
    pub fn int(&self) -> Relation<W> {
        self.same(|e| e.thread)
    }

    /// Pairs of events of different threads (cat's `ext`).
    pub fn ext(&self) -> Relation<W> {
        let n = self.len();
        let mut ext = self.int();
        let all = EventSet::<W>::full(n);
        for a in 0..n {
            ext.set_successors(a, all.clone() - ext.successors(a));
        }
        ext
    }

    /// The pairs of events with the same key, among those that have one: each event's row
    /// is the set of its key, built once per key.
    fn same<K: PartialEq>(&self, key: impl Fn(&Event) -> Option<K>) -> Relation<W> {
        let mut groups: Vec<(K, EventSet<W>)> = Vec::new();
        for (i, e) in self.events.iter().enumerate() {
            let Some(k) = key(e) else { continue };
            match groups.iter_mut().find(|(g, _)| *g == k) {
                Some((_, set)) => set.insert(i),
                None => groups.push((k, EventSet::singleton(i))),
            }
        }
        let mut r = Relation::<W>::empty(self.len());
        for (_, set) in &groups {
            for e in set.iter() {
                r.set_successors(e, set.clone());
            }
        }
        r
    }

    /// From-reads: cat's `fr = rf^-1 ; co`.
    pub fn fr(&self) -> Relation<W> {
        self.rf.inverse().seq(&self.co)
    }

    /// The same execution with sets and relations of width `V`, which must hold its events.
    pub fn to_width<V: Width>(&self) -> Execution<V> {
        Execution {
            events: self.events.clone(),
            po: self.po.to_width(),
            rf: self.rf.to_width(),
            co: self.co.to_width(),
            rmw: self.rmw.to_width(),
            addr: self.addr.to_width(),
            data: self.data.to_width(),
            ctrl: self.ctrl.to_width(),
            observed: self.observed.to_width(),
            shape: self.shape,
        }
    }
}

/// An execution of any size, as explanations, traces and drawings take it: at the growable
/// width, which holds any number of events.
///
/// The engine runs each execution at the narrowest width that holds it; what explains and
/// draws executions (the models' explanations and named relations, traces, graphs) takes
/// them at this one width only, so that its code is compiled once, not once per width.
/// Showing an execution is not on the search's hot path: it is copied to this width once
/// ([`Execution::widen`]).
pub type AnyExecution = Execution<Growable>;

impl<W: Width> Execution<W> {
    /// The same execution at the growable width ([`AnyExecution`]).
    pub fn widen(&self) -> AnyExecution {
        self.to_width()
    }
}
