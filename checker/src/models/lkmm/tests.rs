//! The LKMM's unit tests: hand-built executions the model must allow or forbid, and the
//! relations it builds over them.

use super::flags::{
    DATA_RACE, LOCK_FINAL, MULTIPLE_SRCU_MATCHES, SRCU_BAD_VALUE_MATCH, UNMATCHED_SRCU_LOCK,
    UNMATCHED_SRCU_UNLOCK,
};
use super::*;
use crate::exec::event::{Loc, Tags, Value};
use crate::models::model::JudgeAt;

/// A hand-built execution: events in creation order, po by thread.
struct Builder {
    events: Vec<Event>,
    rf: Vec<(usize, usize)>,
    co: Vec<Vec<usize>>,
    rmw: Vec<(usize, usize)>,
    data: Vec<(usize, usize)>,
    addr: Vec<(usize, usize)>,
    /// The initial writes of the locations the final state shows.
    observed: Vec<usize>,
}

const X: Loc = Loc(0);
const Y: Loc = Loc(1);
const L: Loc = Loc(2);

impl Builder {
    /// Initial writes of `locs` locations.
    fn new(locs: u32) -> Builder {
        let events = (0..locs)
            .map(|l| Event {
                thread: None,
                kind: EventKind::Write,
                loc: Some(Loc(l)),
                value: Value::Int(0),
                tags: Tags::of(&[Tag::Init]),
                source: None,
            })
            .collect();
        Builder {
            events,
            rf: vec![],
            co: vec![],
            rmw: vec![],
            data: vec![],
            addr: vec![],
            observed: vec![],
        }
    }

    fn ev(
        &mut self,
        thread: usize,
        kind: EventKind,
        loc: Option<Loc>,
        v: i64,
        tags: &[Tag],
    ) -> usize {
        self.events.push(Event {
            thread: Some(thread),
            kind,
            loc,
            value: Value::Int(v),
            tags: Tags::of(tags),
            source: None,
        });
        self.events.len() - 1
    }

    fn w(&mut self, thread: usize, loc: Loc, v: i64, tags: &[Tag]) -> usize {
        self.ev(thread, EventKind::Write, Some(loc), v, tags)
    }

    fn r(&mut self, thread: usize, loc: Loc, v: i64, tags: &[Tag]) -> usize {
        self.ev(thread, EventKind::Read, Some(loc), v, tags)
    }

    fn f(&mut self, thread: usize, tag: Tag) -> usize {
        self.ev(thread, EventKind::Fence, None, 0, &[tag])
    }

    fn build(&self) -> Execution {
        let n = self.events.len();
        let po = Relation::from_fn(n, |a, b| {
            let (ea, eb) = (&self.events[a], &self.events[b]);
            ea.thread.is_some() && ea.thread == eb.thread && a < b
        });
        let mut co = Relation::empty(n);
        for chain in &self.co {
            for (i, &a) in chain.iter().enumerate() {
                for &b in &chain[i + 1..] {
                    co.add(a, b);
                }
            }
        }
        Execution {
            events: self.events.clone(),
            po,
            rf: Relation::from_pairs(n, self.rf.iter().copied()),
            co,
            rmw: Relation::from_pairs(n, self.rmw.iter().copied()),
            addr: Relation::from_pairs(n, self.addr.iter().copied()),
            data: Relation::from_pairs(n, self.data.iter().copied()),
            ctrl: Relation::empty(n),
            observed: self.observed.iter().copied().collect(),
            shape: 0,
        }
    }
}

fn judge(b: &Builder) -> Judgement {
    Lkmm.judge(&b.build())
}

/// SB: each thread writes one location and reads the other, both reads see 0.
fn store_buffering(fence: Option<Tag>) -> Builder {
    let mut b = Builder::new(2);
    let wx = b.w(0, X, 1, &[Tag::Once]);
    if let Some(t) = fence {
        b.f(0, t);
    }
    let ry = b.r(0, Y, 0, &[Tag::Once]);
    let wy = b.w(1, Y, 1, &[Tag::Once]);
    if let Some(t) = fence {
        b.f(1, t);
    }
    let rx = b.r(1, X, 0, &[Tag::Once]);
    b.rf = vec![(1, ry), (0, rx)];
    b.co = vec![vec![0, wx], vec![1, wy]];
    b
}

#[test]
fn the_flags_set_per_execution_are_where_flags_names_them() {
    let at = |i: usize| FLAGS[i];
    assert_eq!(at(UNMATCHED_SRCU_LOCK), "unmatched-srcu-lock");
    assert_eq!(at(UNMATCHED_SRCU_UNLOCK), "unmatched-srcu-unlock");
    assert_eq!(at(MULTIPLE_SRCU_MATCHES), "multiple-srcu-matches");
    assert_eq!(at(SRCU_BAD_VALUE_MATCH), "srcu-bad-value-match");
    assert_eq!(at(LOCK_FINAL), "lock-final");
    assert_eq!(at(DATA_RACE), "data-race");
}

#[test]
fn store_buffering_needs_full_fences() {
    assert!(judge(&store_buffering(None)).allowed());
    assert!(judge(&store_buffering(Some(Tag::Wmb))).allowed());
    assert!(judge(&store_buffering(Some(Tag::Rmb))).allowed());
    let j = judge(&store_buffering(Some(Tag::Mb)));
    assert_eq!(j.rejected_by, Some("propagation"));
}

/// MP: P0 writes x then y, P1 reads y=1 then x=0.
fn message_passing(w_fence: Option<Tag>, r_fence: Option<Tag>, wtag: Tag, rtag: Tag) -> Builder {
    let mut b = Builder::new(2);
    let wx = b.w(0, X, 1, &[Tag::Once]);
    if let Some(t) = w_fence {
        b.f(0, t);
    }
    let wy = b.w(0, Y, 1, &[wtag]);
    let ry = b.r(1, Y, 1, &[rtag]);
    if let Some(t) = r_fence {
        b.f(1, t);
    }
    let rx = b.r(1, X, 0, &[Tag::Once]);
    b.rf = vec![(wy, ry), (0, rx)];
    b.co = vec![vec![0, wx], vec![1, wy]];
    b
}

#[test]
fn message_passing_needs_ordering_on_both_sides() {
    let once = Tag::Once;
    assert!(judge(&message_passing(None, None, once, once)).allowed());
    assert!(judge(&message_passing(Some(Tag::Wmb), None, once, once)).allowed());
    assert!(judge(&message_passing(None, Some(Tag::Rmb), once, once)).allowed());
    let fenced = judge(&message_passing(Some(Tag::Wmb), Some(Tag::Rmb), once, once));
    assert_eq!(fenced.rejected_by, Some("happens-before"));
    let rel_acq = judge(&message_passing(None, None, Tag::Release, Tag::Acquire));
    assert_eq!(rel_acq.rejected_by, Some("happens-before"));
    // An acquire annotation on the writing side orders nothing.
    assert!(judge(&message_passing(None, None, Tag::Acquire, Tag::Acquire)).allowed());
}

#[test]
fn coherence_forbids_reading_backwards() {
    // CoRR: P1 reads x=1 then x=0 while P0 writes x=1.
    let mut b = Builder::new(1);
    let wx = b.w(0, X, 1, &[Tag::Once]);
    let r1 = b.r(1, X, 1, &[Tag::Once]);
    let r2 = b.r(1, X, 0, &[Tag::Once]);
    b.rf = vec![(wx, r1), (0, r2)];
    b.co = vec![vec![0, wx]];
    assert_eq!(judge(&b).rejected_by, Some("coherence"));
    b.rf = vec![(0, r1), (wx, r2)];
    assert!(judge(&b).allowed());
}

/// Two xchg() on x that both read the initial value.
fn two_exchanges(second_reads_first: bool) -> Builder {
    let mut b = Builder::new(1);
    let r0 = b.r(0, X, 0, &[Tag::Mb, Tag::Rmw]);
    let w0 = b.w(0, X, 1, &[Tag::Mb, Tag::Rmw]);
    let r1 = b.r(
        1,
        X,
        if second_reads_first { 1 } else { 0 },
        &[Tag::Mb, Tag::Rmw],
    );
    let w1 = b.w(1, X, 2, &[Tag::Mb, Tag::Rmw]);
    b.rmw = vec![(r0, w0), (r1, w1)];
    b.rf = vec![(0, r0), (if second_reads_first { w0 } else { 0 }, r1)];
    b.co = vec![vec![0, w0, w1]];
    b
}

#[test]
fn atomicity_of_read_modify_writes() {
    assert_eq!(judge(&two_exchanges(false)).rejected_by, Some("atomic"));
    assert!(judge(&two_exchanges(true)).allowed());
}

#[test]
fn failed_rmw_loses_its_annotations() {
    // SB with a failed cmpxchg() on a third location between each thread's write and
    // read: a lone read tagged MB and RMW, which orders nothing.
    let mut b = Builder::new(3);
    let wx = b.w(0, X, 1, &[Tag::Once]);
    let f0 = b.r(0, L, 0, &[Tag::Mb, Tag::Rmw]);
    let ry = b.r(0, Y, 0, &[Tag::Once]);
    let wy = b.w(1, Y, 1, &[Tag::Once]);
    let f1 = b.r(1, L, 0, &[Tag::Mb, Tag::Rmw]);
    let rx = b.r(1, X, 0, &[Tag::Once]);
    b.rf = vec![(2, f0), (2, f1), (1, ry), (0, rx)];
    b.co = vec![vec![0, wx], vec![1, wy]];
    let x = b.build();
    let sets = Sets::new(&x);
    assert!(sets.failed_rmw.contains(f0) && !sets.mb.contains(f0));
    assert!(sets.marked.contains(f0));
    assert!(judge(&b).allowed());
    // The same reads as smp_mb() fences forbid the outcome.
    for e in [f0, f1] {
        b.events[e].kind = EventKind::Fence;
        b.events[e].loc = None;
        b.events[e].tags = Tags::of(&[Tag::Mb]);
    }
    b.rf.retain(|&(_, r)| r != f0 && r != f1);
    assert_eq!(judge(&b).rejected_by, Some("propagation"));
}

#[test]
fn sb_with_successful_xchg_is_fenced() {
    // SB where each thread's write is an xchg(): full barriers around the RMW.
    let mut b = Builder::new(2);
    let r0 = b.r(0, X, 0, &[Tag::Mb, Tag::Rmw]);
    let w0 = b.w(0, X, 1, &[Tag::Mb, Tag::Rmw]);
    let ry = b.r(0, Y, 0, &[Tag::Once]);
    let r1 = b.r(1, Y, 0, &[Tag::Mb, Tag::Rmw]);
    let w1 = b.w(1, Y, 1, &[Tag::Mb, Tag::Rmw]);
    let rx = b.r(1, X, 0, &[Tag::Once]);
    b.rmw = vec![(r0, w0), (r1, w1)];
    b.rf = vec![(0, r0), (1, r1), (1, ry), (0, rx)];
    b.co = vec![vec![0, w0], vec![1, w1]];
    assert_eq!(judge(&b).rejected_by, Some("propagation"));
    // The relaxed form orders nothing.
    for e in [r0, w0, r1, w1] {
        b.events[e].tags = Tags::of(&[Tag::Once, Tag::Rmw]);
    }
    assert!(judge(&b).allowed());
}

#[test]
fn rcu_grace_period_waits_for_readers() {
    // P0: rcu_read_lock; r0 = x; r1 = y; rcu_read_unlock.
    // P1: y = 1; synchronize_rcu; x = 1.  Forbidden: r0 = 1 and r1 = 0.
    let mut b = Builder::new(2);
    b.f(0, Tag::RcuLock);
    let rx = b.r(0, X, 1, &[Tag::Once]);
    let ry = b.r(0, Y, 0, &[Tag::Once]);
    b.f(0, Tag::RcuUnlock);
    let wy = b.w(1, Y, 1, &[Tag::Once]);
    b.f(1, Tag::SyncRcu);
    let wx = b.w(1, X, 1, &[Tag::Once]);
    b.rf = vec![(wx, rx), (1, ry)];
    b.co = vec![vec![0, wx], vec![1, wy]];
    let j = judge(&b);
    assert_eq!(j.rejected_by, Some("rcu"));
    // Without the critical section the outcome is allowed.
    b.events[2].tags = Tags::of(&[Tag::Barrier]);
    b.events[5].tags = Tags::of(&[Tag::Barrier]);
    assert!(judge(&b).allowed());
}

#[test]
fn rcu_critical_sections_match_innermost_first() {
    let mut b = Builder::new(1);
    let l1 = b.f(0, Tag::RcuLock);
    let l2 = b.f(0, Tag::RcuLock);
    let u2 = b.f(0, Tag::RcuUnlock);
    let u1 = b.f(0, Tag::RcuUnlock);
    let extra = b.f(0, Tag::RcuUnlock);
    let x = b.build();
    let m = rcu_rscs(&x.po, x.tagged(Tag::RcuLock), x.tagged(Tag::RcuUnlock));
    assert_eq!(m, Relation::from_pairs(x.len(), [(l2, u2), (l1, u1)]));
    assert_eq!(judge(&b).flags, vec!["unmatched-rcu-unlock"]);
    assert!(!m.range().contains(extra));
}

#[test]
fn concurrent_plain_writes_race() {
    let mut b = Builder::new(1);
    let w0 = b.w(0, X, 1, &[]);
    let w1 = b.w(1, X, 2, &[]);
    b.co = vec![vec![0, w0, w1]];
    let j = judge(&b);
    assert!(j.allowed());
    assert_eq!(j.flags, vec!["data-race"]);
    // Marking both writes removes the race.
    for e in [w0, w1] {
        b.events[e].tags = Tags::of(&[Tag::Once]);
    }
    assert_eq!(judge(&b).flags, Vec::<&str>::new());
}

#[test]
fn message_passing_protects_plain_accesses() {
    // P0: x = 1 (plain); smp_store_release(y, 1).
    // P1: r0 = smp_load_acquire(y); if r0 == 1 then r1 = x (plain).
    let mut b = Builder::new(2);
    let wx = b.w(0, X, 1, &[]);
    let wy = b.w(0, Y, 1, &[Tag::Release]);
    let ry = b.r(1, Y, 1, &[Tag::Acquire]);
    let rx = b.r(1, X, 1, &[]);
    b.rf = vec![(wy, ry), (wx, rx)];
    b.co = vec![vec![0, wx], vec![1, wy]];
    let j = judge(&b);
    assert!(j.allowed());
    assert!(j.flags.is_empty(), "{:?}", j.flags);
    // Reading the stale value is a plain-coherence violation.
    b.rf = vec![(wy, ry), (0, rx)];
    b.events[rx].value = Value::Int(0);
    assert_eq!(judge(&b).rejected_by, Some("plain-coherence"));
    // Without the release-acquire pair, the accesses race.
    b.events[wy].tags = Tags::of(&[Tag::Once]);
    b.events[ry].tags = Tags::of(&[Tag::Once]);
    b.rf = vec![(wy, ry), (wx, rx)];
    let j = judge(&b);
    assert!(j.allowed());
    assert_eq!(j.flags, vec!["data-race"]);
}

/// P0: spin_lock(l); x = 1; spin_unlock(l).  P1: spin_lock(l); r = x; spin_unlock(l),
/// with P1's critical section second.
fn two_critical_sections(r_value: i64) -> Builder {
    let mut b = Builder::new(3);
    let lkr0 = b.r(0, L, 0, &[Tag::Lkr]);
    let lkw0 = b.w(0, L, 1, &[Tag::Lkw]);
    let wx = b.w(0, X, 1, &[Tag::Once]);
    let ul0 = b.w(0, L, 0, &[Tag::Ul]);
    let lkr1 = b.r(1, L, 0, &[Tag::Lkr]);
    let lkw1 = b.w(1, L, 1, &[Tag::Lkw]);
    let rx = b.r(1, X, r_value, &[Tag::Once]);
    let ul1 = b.w(1, L, 0, &[Tag::Ul]);
    b.rf = vec![
        (2, lkr0),
        (ul0, lkr1),
        (if r_value == 0 { 0 } else { wx }, rx),
    ];
    b.co = vec![vec![0, wx], vec![2, lkw0, ul0, lkw1, ul1]];
    b
}

#[test]
fn spinlocks_order_critical_sections() {
    let ok = judge(&two_critical_sections(1));
    assert!(ok.allowed());
    assert!(ok.flags.is_empty(), "{:?}", ok.flags);
    assert_eq!(
        judge(&two_critical_sections(0)).rejected_by,
        Some("happens-before")
    );
    let x = two_critical_sections(1).build();
    let sets = Sets::new(&x);
    assert_eq!(
        lk_rmw(&x, &sets),
        Relation::from_pairs(x.len(), [(3, 4), (7, 8)])
    );
    assert_eq!(
        critical(&x, &sets),
        Relation::from_pairs(x.len(), [(4, 6), (8, 10)])
    );
}

#[test]
fn nested_spin_lock_deadlocks() {
    let mut b = Builder::new(3);
    let lkr0 = b.r(0, L, 0, &[Tag::Lkr]);
    b.w(0, L, 1, &[Tag::Lkw]);
    let lkr1 = b.r(0, L, 0, &[Tag::Lkr]);
    b.w(0, L, 1, &[Tag::Lkw]);
    b.rf = vec![(2, lkr0), (2, lkr1)];
    assert_eq!(judge(&b).rejected_by, Some("lock-nest"));
}

#[test]
fn srcu_sections_match_through_data() {
    // r = srcu_read_lock(s); srcu_read_unlock(s, r); twice unlocked: multiple matches.
    let mut b = Builder::new(3);
    let lock = b.r(0, L, 0, &[Tag::SrcuLock]);
    let u1 = b.w(0, L, 0, &[Tag::SrcuUnlock]);
    let u2 = b.w(0, L, 0, &[Tag::SrcuUnlock]);
    b.rf = vec![(2, lock)];
    b.co = vec![vec![2, u1, u2]];
    b.data = vec![(lock, u1)];
    assert_eq!(judge(&b).flags, vec!["unmatched-srcu-unlock"]);
    b.data = vec![(lock, u1), (lock, u2)];
    assert_eq!(judge(&b).flags, vec!["multiple-srcu-matches"]);
}

#[test]
fn unlock_without_lock_is_flagged() {
    let mut b = Builder::new(3);
    let ul = b.w(0, L, 0, &[Tag::Ul]);
    b.co = vec![vec![2, ul]];
    let j = judge(&b);
    assert!(j.allowed());
    assert_eq!(j.flags, vec!["unmatched-unlock"]);
}

#[test]
fn a_shown_lock_is_flagged_lock_final() {
    // spin_lock(l); spin_unlock(l); with `locations [l]` raises lock-final, and
    // without it nothing.
    let mut b = Builder::new(3);
    let lkr = b.r(0, L, 0, &[Tag::Lkr]);
    let lkw = b.w(0, L, 1, &[Tag::Lkw]);
    let ul = b.w(0, L, 0, &[Tag::Ul]);
    b.rmw = vec![(lkr, lkw)];
    b.rf = vec![(2, lkr)];
    b.co = vec![vec![2, lkw, ul]];
    assert_eq!(judge(&b).flags, Vec::<&str>::new());
    b.observed = vec![2];
    assert_eq!(judge(&b).flags, vec!["lock-final"]);
    b.observed = vec![0];
    assert_eq!(judge(&b).flags, Vec::<&str>::new());
}

#[test]
fn plain_and_marked_writes_in_one_thread_are_mixed() {
    // x = 1; WRITE_ONCE(x, 2): mixed accesses, unless a barrier separates them.
    let mut b = Builder::new(1);
    let w1 = b.w(0, X, 1, &[]);
    let w2 = b.w(0, X, 2, &[Tag::Once]);
    b.co = vec![vec![0, w1, w2]];
    assert_eq!(judge(&b).flags, vec!["mixed-accesses"]);
    let mut b = Builder::new(1);
    let w1 = b.w(0, X, 1, &[]);
    b.f(0, Tag::Barrier);
    let w2 = b.w(0, X, 2, &[Tag::Once]);
    b.co = vec![vec![0, w1, w2]];
    assert!(judge(&b).flags.is_empty());
}

#[test]
fn is_locked_false_inside_own_critical_section_is_rejected() {
    // spin_lock(l); spin_is_locked(l) returning false: nested-is-locked.
    let mut b = Builder::new(3);
    let lkr = b.r(0, L, 0, &[Tag::Lkr]);
    let lkw = b.w(0, L, 1, &[Tag::Lkw]);
    let ru = b.r(0, L, 0, &[Tag::Ru]);
    b.rf = vec![(2, lkr), (2, ru)];
    b.co = vec![vec![2, lkw]];
    assert_eq!(judge(&b).rejected_by, Some("nested-is-locked"));
}

/// Judges each of `variants` (executions of one shape that differ in `rf`) in turn
/// through one thread's skeleton, long enough for its workspace to keep every `rf`, and
/// checks each judgement against one computed afresh.
fn judged_alike_when_kept(variants: &[Execution]) -> Vec<Judgement> {
    let fresh: Vec<Judgement> = variants
        .iter()
        .map(|x| judge_with(x, &Sets::new(x), &Fixed::new(x, &Sets::new(x))))
        .collect();
    for round in 0..dynamic::RF_CACHE_AFTER + 64 {
        for (x, judgement) in variants.iter().zip(&fresh) {
            assert_eq!(&Lkmm.judge(x), judgement, "round {round}");
        }
    }
    fresh
}

/// The four reads-from of MP's two reads, `from_y` and `from_x` the writes read when
/// taken, and the initial writes otherwise.
fn four_reads_from(
    b: &mut Builder,
    (ry, from_y): (usize, usize),
    (rx, from_x): (usize, usize),
    shape: u64,
) -> Vec<Execution> {
    (0..4)
        .map(|k| {
            let y = if k & 1 == 1 { from_y } else { 1 };
            let x = if k & 2 == 2 { from_x } else { 0 };
            b.rf = vec![(y, ry), (x, rx)];
            let mut x = b.build();
            x.shape = shape;
            x
        })
        .collect()
}

#[test]
fn the_relations_kept_for_an_rf_met_before_judge_as_a_fresh_computation() {
    // MP with wmb and rmb: its events are 0 and 1 (initial), wx, wmb, wy, ry, rmb, rx.
    let mut b = message_passing(Some(Tag::Wmb), Some(Tag::Rmb), Tag::Once, Tag::Once);
    let fenced = judged_alike_when_kept(&four_reads_from(&mut b, (5, 4), (7, 2), u64::MAX));
    let allowed: Vec<bool> = fenced.iter().map(Judgement::allowed).collect();
    assert_eq!(
        allowed,
        [true, false, true, true],
        "only MP's forbidden outcome fails"
    );
    // MP of plain x under release and acquire: the relations after the checks count too.
    let mut b = Builder::new(2);
    let wx = b.w(0, X, 1, &[]);
    let wy = b.w(0, Y, 1, &[Tag::Release]);
    let ry = b.r(1, Y, 1, &[Tag::Acquire]);
    let rx = b.r(1, X, 1, &[]);
    b.co = vec![vec![0, wx], vec![1, wy]];
    let plain = judged_alike_when_kept(&four_reads_from(&mut b, (ry, wy), (rx, wx), u64::MAX - 1));
    assert_eq!(plain[1].rejected_by, Some("plain-coherence"));
    assert!(
        plain.iter().any(|j| j.flags.contains(&"data-race")),
        "{plain:?}"
    );
    // The same through a relaxed exchange, whose read makes or breaks the release
    // sequence (`rmw-sequence`, which only the plain-access rules read after the checks).
    let mut b = Builder::new(2);
    let wx = b.w(0, X, 1, &[]);
    let wy = b.w(0, Y, 1, &[Tag::Release]);
    let (ry1, wy1) = (
        b.r(1, Y, 1, &[Tag::Once, Tag::Rmw]),
        b.w(1, Y, 2, &[Tag::Once, Tag::Rmw]),
    );
    b.rmw = vec![(ry1, wy1)];
    let ry2 = b.r(2, Y, 2, &[Tag::Acquire]);
    let rx = b.r(2, X, 1, &[]);
    let variants: Vec<Execution> = (0..4)
        .map(|k| {
            let (from_y, co_y) = match k & 1 {
                0 => (wy, vec![1, wy, wy1]),
                _ => (1, vec![1, wy1, wy]),
            };
            b.rf = vec![
                (from_y, ry1),
                (wy1, ry2),
                (if k & 2 == 0 { wx } else { 0 }, rx),
            ];
            b.co = vec![vec![0, wx], co_y];
            let mut x = b.build();
            x.shape = u64::MAX - 2;
            x
        })
        .collect();
    let sequence = judged_alike_when_kept(&variants);
    assert_eq!(
        sequence[0],
        Judgement::default(),
        "the release sequence orders x"
    );
    assert_eq!(sequence[1].flags, ["data-race"], "without it, x races");
    assert!(!sequence[2].allowed(), "{sequence:?}");
}
