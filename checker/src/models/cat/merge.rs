//! herd7's view of an execution: each C11 read-modify-write one event.
//!
//! hazmat builds a C11 exchange, fetch operation or successful compare-exchange as two
//! events, a read and a write related by `rmw`, both carrying [`crate::exec::event::Tag::Rmw`] and the
//! operation's order (see [`crate::front::c11`]).
//! herd7's C front end builds one event, both read and write, carrying the order as
//! written (`'acq_rel` for an `acq_rel` exchange), with `rmw` empty; its C11 models read
//! that form (`rs_prime = int | (_ * (R & W))` in `c11_base.cat`, `mo` generated over the
//! atomic writes only in `c11_cos.cat`).
//! A [`Merge`] presents a model with herd7's view, whatever macro file gives the calls
//! their meaning (C11's read-modify-writes are words of herd7's grammar): every `rmw` pair
//! of a C11 read-modify-write becomes one event in `R`, `W`, `M` and `RMW`, with the tags of both halves; every base
//! relation is mapped through the merge, a data dependency into the merged event being
//! an address dependency too, as in herd7 (a pair between the two halves of one
//! read-modify-write, its program order or its dependencies, would relate the event to
//! itself, which herd7's single event does not, and is dropped; a read that reads from its
//! own read-modify-write is kept, as herd7 keeps it for its models to reject); and the
//! coherence order and reads-from the model leaves are mapped back onto hazmat's events
//! (a merged event is its write in `co` and in the source of `rf`, its read in the target).
//! Failed compare-exchanges are no `rmw` pair (a lone read and a plain write-back), as in
//! herd7, and are left alone; so are the kernel's read-modify-writes (`xchg()`,
//! `__atomic_add_unless{mb}(...)`), which herd7 builds as a read and a write related by
//! `rmw`.

use crate::exec::event::{Event, Tags};
use crate::exec::execution::Execution;
use crate::exec::relation::{EventSet, Relation, Width, Words};
use crate::front::c11;

/// An execution's events as herd7 has them, and the way back to hazmat's.
#[derive(Debug)]
pub(crate) struct Merge<W: Width = Words<1>> {
    /// herd7's view: the events, program order, dependencies and final-write candidates
    /// mapped; `rf` is set for each execution by [`Merge::set_rf`]; `co` and `rmw` are
    /// empty.
    pub(crate) exec: Execution<W>,
    /// The events that are both read and write.
    pub(crate) both: EventSet<W>,
    /// For each of hazmat's events, its event in herd7's view.
    of: Vec<usize>,
    /// For each event of herd7's view, the read it stands for (itself if none other).
    read: Vec<usize>,
    /// For each event of herd7's view, the write it stands for (itself if none other).
    write: Vec<usize>,
}

impl<W: Width> Merge<W> {
    /// herd7's view of `x`, or `None` when `x` has no C11 read-modify-write (the view is
    /// then `x` itself). The pairs of `x.rmw` whose halves carry a C11 order
    /// ([`c11::is_single_event`]) are merged, the merged event taking the read's place in
    /// the numbering; the others, the kernel's read-modify-writes, which herd7 builds as two
    /// events too, stay pairs of `rmw`.
    pub(crate) fn of(x: &Execution<W>) -> Option<Merge<W>> {
        if x.rmw.is_empty() {
            return None;
        }
        let n = x.len();
        // The write half of each C11 pair joins its read.
        let mut partner: Vec<Option<usize>> = vec![None; n];
        let mut halves: EventSet<W> = EventSet::EMPTY;
        for (r, w) in x.rmw.pairs() {
            if c11::is_single_event(x.events[w].tags) {
                partner[w] = Some(r);
                halves.insert(w);
            }
        }
        if halves.is_empty() {
            return None;
        }
        let mut of = vec![0; n];
        let mut read = Vec::with_capacity(n);
        let mut write = Vec::with_capacity(n);
        let mut events: Vec<Event> = Vec::with_capacity(n);
        for (e, (event, slot)) in x.events.iter().zip(of.iter_mut()).enumerate() {
            if halves.contains(e) {
                continue;
            }
            *slot = events.len();
            read.push(e);
            write.push(e);
            events.push(event.clone());
        }
        let mut both = EventSet::EMPTY;
        for w in halves.iter() {
            let r = partner[w].unwrap_or(w);
            let m = of[r];
            of[w] = m;
            write[m] = w;
            both.insert(m);
            let tags = Tags::from_bits(events[m].tags.bits() | x.events[w].tags.bits());
            events[m].tags = tags;
        }
        let m = events.len();
        let mut merge = Merge {
            exec: Execution {
                events,
                po: Relation::empty(m),
                rf: Relation::empty(m),
                co: Relation::empty(m),
                rmw: Relation::empty(m),
                addr: Relation::empty(m),
                data: Relation::empty(m),
                ctrl: Relation::empty(m),
                observed: EventSet::EMPTY,
                shape: 0,
            },
            both,
            of,
            read,
            write,
        };
        merge.exec.po = merge.relation(&x.po);
        // The kernel's read-modify-writes stay two events, related by `rmw`.
        merge.exec.rmw = merge.relation(&x.rmw);
        merge.exec.addr = merge.relation(&x.addr);
        merge.exec.data = merge.relation(&x.data);
        // herd7 makes the value a read-modify-write writes an address dependency of its
        // one event too: a data dependency into it is also in `addr`.
        let into_rmw = merge.exec.data.restrict_range(&merge.both);
        merge.exec.addr.union_with(&into_rmw);
        merge.exec.ctrl = merge.relation(&x.ctrl);
        merge.exec.observed = merge.set(&x.observed);
        Some(merge)
    }

    /// `r` over herd7's events, without the pairs that the merge makes reflexive.
    pub(crate) fn relation(&self, r: &Relation<W>) -> Relation<W> {
        let mut out = Relation::empty(self.exec.len());
        for (a, b) in r.pairs() {
            let (a, b) = (self.of[a], self.of[b]);
            if a != b {
                out.add(a, b);
            }
        }
        out
    }

    /// `s` over herd7's events.
    pub(crate) fn set(&self, s: &EventSet<W>) -> EventSet<W> {
        let mut out = EventSet::EMPTY;
        for e in s.iter() {
            out.insert(self.of[e]);
        }
        out
    }

    /// Sets the view's reads-from to `rf`, hazmat's, every pair kept (a read-modify-write
    /// that reads its own write reads from itself).
    pub(crate) fn set_rf(&mut self, rf: &Relation<W>) {
        let mut out = Relation::empty(self.exec.len());
        for (w, r) in rf.pairs() {
            out.add(self.of[w], self.of[r]);
        }
        self.exec.rf = out;
    }

    /// A coherence order over herd7's events as one over hazmat's: each event is its write.
    pub(crate) fn co_back(&self, co: &Relation<W>, n: usize) -> Relation<W> {
        let mut out = Relation::empty(n);
        for (a, b) in co.pairs() {
            out.add(self.write[a], self.write[b]);
        }
        out
    }

    /// A reads-from over herd7's events as one over hazmat's: from the write, to the read.
    pub(crate) fn rf_back(&self, rf: &Relation<W>, n: usize) -> Relation<W> {
        let mut out = Relation::empty(n);
        for (w, r) in rf.pairs() {
            out.add(self.write[w], self.read[r]);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::event::{EventKind, Loc, Tag, Value};

    fn ev(thread: Option<usize>, kind: EventKind, tags: &[Tag]) -> Event {
        Event {
            thread,
            kind,
            loc: Some(Loc(0)),
            value: Value::Int(0),
            tags: Tags::of(tags),
            source: None,
        }
    }

    /// An exchange after a load, on one location: the exchange's two events become one,
    /// both read and write, with the order; program order is mapped and made irreflexive;
    /// `rf` and `co` go back to the halves they came from.
    #[test]
    fn an_exchange_becomes_one_event_and_comes_back_as_two() {
        let rmw = [Tag::Rmw, Tag::AcqRel];
        let x: Execution = Execution {
            events: vec![
                ev(None, EventKind::Write, &[Tag::Init]),
                ev(Some(0), EventKind::Read, &[Tag::Rlx]),
                ev(Some(0), EventKind::Read, &rmw),
                ev(Some(0), EventKind::Write, &rmw),
            ],
            po: Relation::from_pairs(4, [(1, 2), (1, 3), (2, 3)]),
            rf: Relation::from_pairs(4, [(0, 1), (3, 2)]),
            co: Relation::empty(4),
            rmw: Relation::from_pairs(4, [(2, 3)]),
            addr: Relation::empty(4),
            data: Relation::from_pairs(4, [(1, 3), (2, 3)]),
            ctrl: Relation::empty(4),
            observed: EventSet::singleton(0),
            shape: 0,
        };
        let mut m = Merge::of(&x).expect("one pair to merge");
        assert_eq!(m.exec.len(), 3);
        assert_eq!(m.both, EventSet::singleton(2));
        assert!(m.exec.events[2].has(Tag::AcqRel) && m.exec.events[2].has(Tag::Rmw));
        assert_eq!(m.exec.po, Relation::from_pairs(3, [(1, 2)]));
        assert!(m.exec.rmw.is_empty());
        // The load's value is written: `data` into the one event, and `addr` too.
        assert_eq!(m.exec.data, Relation::from_pairs(3, [(1, 2)]));
        assert_eq!(m.exec.addr, Relation::from_pairs(3, [(1, 2)]));
        assert_eq!(m.exec.observed, EventSet::singleton(0));
        m.set_rf(&x.rf);
        assert_eq!(m.exec.rf, Relation::from_pairs(3, [(0, 1), (2, 2)]));
        assert_eq!(m.rf_back(&m.exec.rf, 4), x.rf);
        let co = Relation::from_pairs(3, [(0, 2)]);
        assert_eq!(m.co_back(&co, 4), Relation::from_pairs(4, [(0, 3)]));
        assert_eq!(m.set(&EventSet::singleton(3)), EventSet::singleton(2));
    }

    /// Without a read-modify-write there is nothing to merge.
    #[test]
    fn no_rmw_no_merge() {
        let x: Execution = Execution {
            events: vec![ev(None, EventKind::Write, &[Tag::Init])],
            po: Relation::empty(1),
            rf: Relation::empty(1),
            co: Relation::empty(1),
            rmw: Relation::empty(1),
            addr: Relation::empty(1),
            data: Relation::empty(1),
            ctrl: Relation::empty(1),
            observed: EventSet::EMPTY,
            shape: 0,
        };
        assert!(Merge::of(&x).is_none());
    }
}
