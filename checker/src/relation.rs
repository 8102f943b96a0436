//! Sets of events and binary relations over them, as bit matrices.
//!
//! Every memory model in hazmat is written in the vocabulary of herd7's cat language:
//! union, intersection, difference, sequence (`;`), inverse (`^-1`), the closures `+`, `*`
//! and `?`, the restrictions `[S] ; r` and `r ; [S]`, and the checks `acyclic`,
//! `irreflexive` and `empty`.
//! Litmus tests have few events, so a set is one `u128` and a relation is one `u128` row per
//! event: every operation is a handful of word operations per row.
//! An execution with more than [`MAX_EVENTS`] events is refused by the lowering before any
//! relation is built.

use std::fmt;

/// The most events one execution may have, initial writes included.
pub const MAX_EVENTS: usize = 128;

/// A set of events of one execution, as a bit set indexed by event number.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct EventSet(u128);

impl EventSet {
    /// The empty set.
    pub const EMPTY: EventSet = EventSet(0);

    /// The set of the first `n` events, `0..n`.
    pub fn full(n: usize) -> EventSet {
        debug_assert!(n <= MAX_EVENTS);
        if n == MAX_EVENTS {
            EventSet(u128::MAX)
        } else {
            EventSet((1u128 << n) - 1)
        }
    }

    /// The set holding only event `e`.
    pub fn singleton(e: usize) -> EventSet {
        EventSet(1u128 << e)
    }

    /// Builds a set from the events `0..n` that satisfy `pred`.
    pub fn from_fn(n: usize, mut pred: impl FnMut(usize) -> bool) -> EventSet {
        let mut s = EventSet::EMPTY;
        for e in 0..n {
            if pred(e) {
                s.insert(e);
            }
        }
        s
    }

    /// The raw bits: bit `e` is set when event `e` is in the set.
    pub fn bits(self) -> u128 {
        self.0
    }

    /// A set from raw bits.
    pub fn from_bits(bits: u128) -> EventSet {
        EventSet(bits)
    }

    /// Whether event `e` is in the set.
    pub fn contains(self, e: usize) -> bool {
        self.0 >> e & 1 == 1
    }

    /// Adds event `e`.
    pub fn insert(&mut self, e: usize) {
        self.0 |= 1u128 << e;
    }

    /// Removes event `e`.
    pub fn remove(&mut self, e: usize) {
        self.0 &= !(1u128 << e);
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The number of events in the set.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// `self ∪ other`.
    pub fn union(self, other: EventSet) -> EventSet {
        EventSet(self.0 | other.0)
    }

    /// `self ∩ other`.
    pub fn inter(self, other: EventSet) -> EventSet {
        EventSet(self.0 & other.0)
    }

    /// `self \ other`.
    pub fn minus(self, other: EventSet) -> EventSet {
        EventSet(self.0 & !other.0)
    }

    /// The smallest event in the set.
    pub fn first(self) -> Option<usize> {
        (self.0 != 0).then(|| self.0.trailing_zeros() as usize)
    }

    /// The events of the set in increasing order.
    pub fn iter(self) -> EventSetIter {
        EventSetIter(self.0)
    }
}

impl std::ops::BitOr for EventSet {
    type Output = EventSet;
    fn bitor(self, rhs: EventSet) -> EventSet {
        self.union(rhs)
    }
}

impl std::ops::BitAnd for EventSet {
    type Output = EventSet;
    fn bitand(self, rhs: EventSet) -> EventSet {
        self.inter(rhs)
    }
}

impl std::ops::Sub for EventSet {
    type Output = EventSet;
    fn sub(self, rhs: EventSet) -> EventSet {
        self.minus(rhs)
    }
}

impl std::ops::BitOrAssign for EventSet {
    fn bitor_assign(&mut self, rhs: EventSet) {
        self.0 |= rhs.0;
    }
}

impl fmt::Debug for EventSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// Iterator over the events of an [`EventSet`], in increasing order.
#[derive(Clone)]
pub struct EventSetIter(u128);

impl Iterator for EventSetIter {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let e = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(e)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for EventSetIter {}

impl FromIterator<usize> for EventSet {
    fn from_iter<I: IntoIterator<Item = usize>>(iter: I) -> EventSet {
        let mut s = EventSet::EMPTY;
        for e in iter {
            s.insert(e);
        }
        s
    }
}

/// A binary relation over the events `0..n` of one execution: row `a` holds every `b` with
/// `(a, b)` in the relation.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Relation {
    rows: Rows,
}

/// The rows of a relation: inline up to [`INLINE_EVENTS`] events, so that the relations of
/// most litmus tests are built and dropped without an allocator call.
type Rows = smallvec::SmallVec<[EventSet; INLINE_EVENTS]>;

/// How many events a relation holds without allocating.
const INLINE_EVENTS: usize = 32;

impl Relation {
    /// The empty relation over `n` events.
    pub fn empty(n: usize) -> Relation {
        assert!(
            n <= MAX_EVENTS,
            "relation over {n} events exceeds MAX_EVENTS"
        );
        Relation {
            rows: smallvec::smallvec![EventSet::EMPTY; n],
        }
    }

    /// The identity on the events `0..n`.
    pub fn identity(n: usize) -> Relation {
        Relation::id_on(n, EventSet::full(n))
    }

    /// The identity restricted to `set`: cat's `[S]`.
    pub fn id_on(n: usize, set: EventSet) -> Relation {
        let mut r = Relation::empty(n);
        for e in set.iter() {
            r.rows[e].insert(e);
        }
        r
    }

    /// The cartesian product `from × to`: cat's `S1 * S2`.
    pub fn cartesian(n: usize, from: EventSet, to: EventSet) -> Relation {
        let mut r = Relation::empty(n);
        for e in from.iter() {
            r.rows[e] = to;
        }
        r
    }

    /// Builds the relation of the pairs `(a, b)` of `0..n` that satisfy `pred`.
    pub fn from_fn(n: usize, mut pred: impl FnMut(usize, usize) -> bool) -> Relation {
        let mut r = Relation::empty(n);
        for a in 0..n {
            r.rows[a] = EventSet::from_fn(n, |b| pred(a, b));
        }
        r
    }

    /// Builds a relation from a list of pairs.
    pub fn from_pairs(n: usize, pairs: impl IntoIterator<Item = (usize, usize)>) -> Relation {
        let mut r = Relation::empty(n);
        for (a, b) in pairs {
            r.add(a, b);
        }
        r
    }

    /// The number of events the relation ranges over.
    pub fn size(&self) -> usize {
        self.rows.len()
    }

    /// Adds the pair `(a, b)`.
    pub fn add(&mut self, a: usize, b: usize) {
        self.rows[a].insert(b);
    }

    /// Removes the pair `(a, b)`.
    pub fn remove(&mut self, a: usize, b: usize) {
        self.rows[a].remove(b);
    }

    /// Whether `(a, b)` is in the relation.
    pub fn contains(&self, a: usize, b: usize) -> bool {
        self.rows[a].contains(b)
    }

    /// The events `b` with `(a, b)` in the relation.
    pub fn successors(&self, a: usize) -> EventSet {
        self.rows[a]
    }

    /// Sets the successors of `a` to `set`.
    pub fn set_successors(&mut self, a: usize, set: EventSet) {
        self.rows[a] = set;
    }

    /// The events `a` with `(a, b)` in the relation.
    pub fn predecessors(&self, b: usize) -> EventSet {
        EventSet::from_fn(self.size(), |a| self.rows[a].contains(b))
    }

    /// Whether the relation has no pair.
    pub fn is_empty(&self) -> bool {
        self.rows.iter().all(|r| r.is_empty())
    }

    /// The number of pairs.
    pub fn len(&self) -> usize {
        self.rows.iter().map(|r| r.len()).sum()
    }

    /// Every pair, in row-major order.
    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.rows
            .iter()
            .enumerate()
            .flat_map(|(a, row)| row.iter().map(move |b| (a, b)))
    }

    /// The events with at least one successor: cat's `domain(r)`.
    pub fn domain(&self) -> EventSet {
        self.rows
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.is_empty())
            .map(|(a, _)| a)
            .collect()
    }

    /// The events with at least one predecessor: cat's `range(r)`.
    pub fn range(&self) -> EventSet {
        self.rows.iter().fold(EventSet::EMPTY, |acc, r| acc | *r)
    }

    /// `self ∪ other`: cat's `r | s`.
    pub fn union(&self, other: &Relation) -> Relation {
        self.zip(other, |a, b| a | b)
    }

    /// `self ∩ other`: cat's `r & s`.
    pub fn inter(&self, other: &Relation) -> Relation {
        self.zip(other, |a, b| a & b)
    }

    /// `self \ other`: cat's `r \ s`.
    pub fn minus(&self, other: &Relation) -> Relation {
        self.zip(other, |a, b| a - b)
    }

    /// Adds every pair of `other` to `self`.
    pub fn union_with(&mut self, other: &Relation) {
        debug_assert_eq!(self.size(), other.size());
        for (a, b) in self.rows.iter_mut().zip(&other.rows) {
            *a |= *b;
        }
    }

    /// Keeps only the pairs also in `other`.
    pub fn inter_with(&mut self, other: &Relation) {
        debug_assert_eq!(self.size(), other.size());
        for (a, b) in self.rows.iter_mut().zip(&other.rows) {
            *a = *a & *b;
        }
    }

    /// Removes every pair of `other` from `self`.
    pub fn minus_with(&mut self, other: &Relation) {
        debug_assert_eq!(self.size(), other.size());
        for (a, b) in self.rows.iter_mut().zip(&other.rows) {
            *a = *a - *b;
        }
    }

    /// Keeps only the pairs whose first event is in `set`, in place: `[S] ; r`.
    pub fn retain_domain(&mut self, set: EventSet) {
        for (a, row) in self.rows.iter_mut().enumerate() {
            if !set.contains(a) {
                *row = EventSet::EMPTY;
            }
        }
    }

    /// Keeps only the pairs whose second event is in `set`, in place: `r ; [S]`.
    pub fn retain_range(&mut self, set: EventSet) {
        for row in self.rows.iter_mut() {
            *row = *row & set;
        }
    }

    fn zip(&self, other: &Relation, f: impl Fn(EventSet, EventSet) -> EventSet) -> Relation {
        debug_assert_eq!(self.size(), other.size());
        Relation {
            rows: self
                .rows
                .iter()
                .zip(&other.rows)
                .map(|(a, b)| f(*a, *b))
                .collect(),
        }
    }

    /// The inverse: cat's `r^-1`.
    pub fn inverse(&self) -> Relation {
        let mut r = Relation::empty(self.size());
        for (a, b) in self.pairs() {
            r.add(b, a);
        }
        r
    }

    /// Writes the inverse of `self` into `out`, a relation over as many events.
    pub fn inverse_into(&self, out: &mut Relation) {
        debug_assert_eq!(self.size(), out.size());
        out.rows.iter_mut().for_each(|r| *r = EventSet::EMPTY);
        for (a, b) in self.pairs() {
            out.add(b, a);
        }
    }

    /// Sequential composition: cat's `r ; s`, the pairs `(a, c)` with `(a, b)` in `self`
    /// and `(b, c)` in `other` for some `b`.
    ///
    /// # Complexity
    /// O(n · |pairs of self| / n) word operations: one union per pair of `self`.
    pub fn seq(&self, other: &Relation) -> Relation {
        debug_assert_eq!(self.size(), other.size());
        let rows = self
            .rows
            .iter()
            .map(|row| {
                row.iter()
                    .fold(EventSet::EMPTY, |acc, b| acc | other.rows[b])
            })
            .collect();
        Relation { rows }
    }

    /// Writes `self ; other` into `out`, a relation over as many events.
    pub fn seq_into(&self, other: &Relation, out: &mut Relation) {
        debug_assert_eq!(self.size(), other.size());
        debug_assert_eq!(self.size(), out.size());
        for (row, o) in self.rows.iter().zip(out.rows.iter_mut()) {
            *o = row
                .iter()
                .fold(EventSet::EMPTY, |acc, b| acc | other.rows[b]);
        }
    }

    /// Makes `self` a copy of `other`, a relation over as many events, without allocating.
    pub fn copy_from(&mut self, other: &Relation) {
        debug_assert_eq!(self.size(), other.size());
        self.rows.copy_from_slice(&other.rows);
    }

    /// Restricts the domain to `set`: cat's `[S] ; r`.
    pub fn restrict_domain(&self, set: EventSet) -> Relation {
        let rows = self
            .rows
            .iter()
            .enumerate()
            .map(|(a, row)| {
                if set.contains(a) {
                    *row
                } else {
                    EventSet::EMPTY
                }
            })
            .collect();
        Relation { rows }
    }

    /// Restricts the range to `set`: cat's `r ; [S]`.
    pub fn restrict_range(&self, set: EventSet) -> Relation {
        Relation {
            rows: self.rows.iter().map(|row| *row & set).collect(),
        }
    }

    /// Restricts both ends: cat's `[S1] ; r ; [S2]`.
    pub fn restrict(&self, from: EventSet, to: EventSet) -> Relation {
        self.restrict_domain(from).restrict_range(to)
    }

    /// The reflexive closure: cat's `r?`.
    pub fn optional(&self) -> Relation {
        let mut r = self.clone();
        r.add_identity();
        r
    }

    /// Adds every pair `(a, a)`, in place.
    pub fn add_identity(&mut self) {
        for (a, row) in self.rows.iter_mut().enumerate() {
            row.insert(a);
        }
    }

    /// The transitive closure: cat's `r+`.
    pub fn plus(&self) -> Relation {
        let mut r = self.clone();
        r.close_transitively();
        r
    }

    /// Replaces `self` by its transitive closure, in place.
    ///
    /// # Complexity
    /// Warshall's algorithm on bit rows: O(n²) word operations.
    pub fn close_transitively(&mut self) {
        let rows = &mut self.rows;
        for k in 0..rows.len() {
            let row_k = rows[k];
            if row_k.is_empty() {
                continue;
            }
            for row in rows.iter_mut() {
                if row.contains(k) {
                    *row |= row_k;
                }
            }
        }
    }

    /// The reflexive-transitive closure: cat's `r*`.
    pub fn star(&self) -> Relation {
        let mut r = self.plus();
        r.add_identity();
        r
    }

    /// Whether no event is related to itself: cat's `irreflexive r`.
    pub fn is_irreflexive(&self) -> bool {
        self.rows
            .iter()
            .enumerate()
            .all(|(a, row)| !row.contains(a))
    }

    /// Whether the relation has no cycle: cat's `acyclic r`.
    ///
    /// # Complexity
    /// Repeatedly removes events with no predecessor left (Kahn's algorithm on bit rows):
    /// O(n²) word operations in the worst case.
    pub fn is_acyclic(&self) -> bool {
        let n = self.size();
        let mut alive = EventSet::full(n);
        loop {
            // An event is a source when no alive event points to it.
            let targets = alive
                .iter()
                .fold(EventSet::EMPTY, |acc, a| acc | (self.rows[a] & alive));
            let sources = alive - targets;
            if sources.is_empty() {
                return alive.is_empty();
            }
            alive = alive - sources;
        }
    }

    /// A shortest cycle, as the list of its events (the first is not repeated at the end),
    /// or `None` when the relation is acyclic.
    ///
    /// # Complexity
    /// A breadth-first search from each event: O(n³ / 128) word operations.
    pub fn shortest_cycle(&self) -> Option<Vec<usize>> {
        let n = self.size();
        let mut best: Option<Vec<usize>> = None;
        for start in 0..n {
            // Breadth-first search for a path from the successors of `start` back to it.
            let mut parent = vec![usize::MAX; n];
            let mut seen = EventSet::EMPTY;
            let mut frontier: Vec<usize> = Vec::new();
            for b in self.rows[start].iter() {
                parent[b] = start;
                seen.insert(b);
                frontier.push(b);
            }
            let mut found = seen.contains(start);
            while !found && !frontier.is_empty() {
                let mut next = Vec::new();
                for &a in &frontier {
                    for b in (self.rows[a] - seen).iter() {
                        parent[b] = a;
                        seen.insert(b);
                        next.push(b);
                        if b == start {
                            found = true;
                        }
                    }
                }
                frontier = next;
            }
            if found {
                let mut cycle = vec![start];
                let mut at = parent[start];
                while at != start {
                    cycle.push(at);
                    at = parent[at];
                }
                cycle.reverse();
                // `cycle` now runs start's predecessor chain forward; rotate so it begins at start.
                let pos = cycle.iter().position(|&e| e == start).unwrap_or(0);
                cycle.rotate_left(pos);
                if best.as_ref().is_none_or(|b| cycle.len() < b.len()) {
                    best = Some(cycle);
                }
            }
        }
        best
    }
}

impl fmt::Debug for Relation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.pairs()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(n: usize, pairs: &[(usize, usize)]) -> Relation {
        Relation::from_pairs(n, pairs.iter().copied())
    }

    #[test]
    fn set_operations() {
        let a: EventSet = [0, 2, 127].into_iter().collect();
        let b: EventSet = [2, 3].into_iter().collect();
        assert_eq!((a | b).iter().collect::<Vec<_>>(), vec![0, 2, 3, 127]);
        assert_eq!((a & b).iter().collect::<Vec<_>>(), vec![2]);
        assert_eq!((a - b).iter().collect::<Vec<_>>(), vec![0, 127]);
        assert_eq!(EventSet::full(128).len(), 128);
        assert_eq!(EventSet::full(3).len(), 3);
        assert_eq!(a.first(), Some(0));
        assert!(EventSet::EMPTY.first().is_none());
    }

    #[test]
    fn sequence_and_inverse() {
        let r = rel(4, &[(0, 1), (1, 2)]);
        let s = rel(4, &[(1, 3), (2, 0)]);
        assert_eq!(r.seq(&s), rel(4, &[(0, 3), (1, 0)]));
        assert_eq!(r.inverse(), rel(4, &[(1, 0), (2, 1)]));
        assert_eq!(r.domain().iter().collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(r.range().iter().collect::<Vec<_>>(), vec![1, 2]);
    }

    #[test]
    fn closures() {
        let r = rel(4, &[(0, 1), (1, 2), (2, 3)]);
        let plus = r.plus();
        assert!(plus.contains(0, 3) && plus.contains(1, 3) && !plus.contains(3, 0));
        assert_eq!(plus.len(), 6);
        assert!(r.star().contains(2, 2));
        assert!(!plus.contains(2, 2));
        assert!(r.is_acyclic());
        let cyclic = rel(4, &[(0, 1), (1, 2), (2, 0), (2, 3)]);
        assert!(!cyclic.is_acyclic());
        assert!(cyclic.is_irreflexive());
        assert!(!cyclic.plus().is_irreflexive());
    }

    #[test]
    fn restrictions() {
        let r = rel(3, &[(0, 1), (1, 2), (0, 2)]);
        let s0 = EventSet::singleton(0);
        let s2 = EventSet::singleton(2);
        assert_eq!(r.restrict_domain(s0), rel(3, &[(0, 1), (0, 2)]));
        assert_eq!(r.restrict_range(s2), rel(3, &[(1, 2), (0, 2)]));
        assert_eq!(r.restrict(s0, s2), rel(3, &[(0, 2)]));
        assert_eq!(Relation::cartesian(3, s0, s2), rel(3, &[(0, 2)]));
        assert_eq!(Relation::id_on(3, s2), rel(3, &[(2, 2)]));
    }

    #[test]
    fn shortest_cycle_is_shortest() {
        let r = rel(5, &[(0, 1), (1, 2), (2, 3), (3, 0), (2, 4), (4, 2)]);
        let cycle = r.shortest_cycle().expect("cyclic");
        assert_eq!(cycle.len(), 2);
        assert!(cycle.contains(&2) && cycle.contains(&4));
        let self_loop = rel(2, &[(1, 1)]);
        assert_eq!(self_loop.shortest_cycle(), Some(vec![1]));
        assert_eq!(rel(3, &[(0, 1), (1, 2)]).shortest_cycle(), None);
    }

    #[test]
    fn acyclicity_agrees_with_closure() {
        // Every relation on 4 events with at most 5 pairs from a fixed list.
        let all: Vec<(usize, usize)> = (0..4).flat_map(|a| (0..4).map(move |b| (a, b))).collect();
        for mask in 0u32..(1 << 16) {
            if mask.count_ones() > 5 {
                continue;
            }
            let r = Relation::from_pairs(
                4,
                all.iter()
                    .enumerate()
                    .filter(|(i, _)| mask >> i & 1 == 1)
                    .map(|(_, p)| *p),
            );
            assert_eq!(r.is_acyclic(), r.plus().is_irreflexive(), "{r:?}");
            assert_eq!(r.is_acyclic(), r.shortest_cycle().is_none(), "{r:?}");
        }
    }
}
