//! Sets of events and binary relations over them, as bit matrices.
//!
//! Every memory model in hazmat is written in the vocabulary of herd7's cat language:
//! union, intersection, difference, sequence (`;`), inverse (`^-1`), the closures `+`, `*`
//! and `?`, the restrictions `[S] ; r` and `r ; [S]`, and the checks `acyclic`,
//! `irreflexive` and `empty`.
//! Litmus tests have few events, so a set is one `u128` and a relation is one `u128` row per
//! event: every operation is a handful of word operations per row.
//! A larger execution gets wider sets, of as many words as its events need ([`WIDTHS`]);
//! the engine, the native models and the relations are generic over that width (the
//! [`Width`] of their sets), and each width is compiled apart, so that the narrow one keeps
//! its one-word operations.
//! An execution with more than [`MAX_FIXED_EVENTS`] events is refused before any relation
//! is built.

use std::fmt;

/// The widths, in 128-bit words, an execution's event sets and relations may take when
/// their width is fixed: the engine runs each combination of thread paths at the narrowest
/// that holds its events, and at [`Growable`] width past the widest.
/// The enumeration's dispatch and [`crate::models::model::MemoryModel`]'s supertraits name the same
/// widths, each compiled apart; `tests/widths.rs` runs the shipped corpus at each.
pub const WIDTHS: [usize; 4] = [1, 2, 4, 8];

/// The most events one execution may have at a fixed width, initial writes included; a
/// larger one gets [`Growable`] sets.
pub const MAX_FIXED_EVENTS: usize = 128 * WIDTHS[WIDTHS.len() - 1];

/// The narrowest of [`WIDTHS`] that holds `n` events, if one does.
pub fn width_for(n: usize) -> Option<usize> {
    WIDTHS.into_iter().find(|w| n <= 128 * w)
}

/// `N` words of 128 bits: the storage of an event set of fixed width, which holds the
/// events `0..128 * N`.
pub type Words<const N: usize> = [u128; N];

/// As many words of 128 bits as the set's largest event needs: the storage of an event set
/// with no fixed width, for executions past [`MAX_FIXED_EVENTS`].
/// It holds no zero word at its end, so that equal sets have equal storage.
pub type Growable = Vec<u128>;

/// The storage of an event set: [`Words`] of a fixed width, or [`Growable`].
/// The engine, the native models and the relations are generic over it.
pub trait Width:
    Clone + PartialEq + Eq + std::hash::Hash + PartialOrd + Ord + Send + Sync + 'static
{
    /// The storage of the empty set.
    const EMPTY: Self;
    /// The most events a set of this width holds.
    const CAPACITY: usize;
    /// The words, lowest events first.
    fn words(&self) -> &[u128];
    /// The words, to change in place; a change that may leave zero words at the end is
    /// followed by [`Width::trim`].
    fn words_mut(&mut self) -> &mut [u128];
    /// Makes sure that word `i` is stored (for a fixed width, it always is).
    fn reach(&mut self, i: usize);
    /// Drops the zero words at the end of a growable set.
    fn trim(&mut self);
}

impl<const N: usize> Width for Words<N> {
    const EMPTY: Self = [0; N];
    const CAPACITY: usize = 128 * N;
    #[inline(always)]
    fn words(&self) -> &[u128] {
        self
    }
    #[inline(always)]
    fn words_mut(&mut self) -> &mut [u128] {
        self
    }
    #[inline(always)]
    fn reach(&mut self, i: usize) {
        debug_assert!(i < N, "word {i} of a set {N} words wide");
    }
    #[inline(always)]
    fn trim(&mut self) {}
}

impl Width for Growable {
    const EMPTY: Self = Vec::new();
    const CAPACITY: usize = usize::MAX;
    fn words(&self) -> &[u128] {
        self
    }
    fn words_mut(&mut self) -> &mut [u128] {
        self
    }
    fn reach(&mut self, i: usize) {
        if self.len() <= i {
            self.resize(i + 1, 0);
        }
    }
    fn trim(&mut self) {
        while self.last() == Some(&0) {
            self.pop();
        }
    }
}

/// A set of events of one execution, as a bit set indexed by event number, of the width `W`
/// (one word of 128 events by default, which holds the events of almost every litmus test).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventSet<W: Width = Words<1>>(W);

impl<W: Width> Default for EventSet<W> {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl<W: Width> EventSet<W> {
    /// The empty set.
    pub const EMPTY: EventSet<W> = EventSet(W::EMPTY);

    /// The most events a set of this width holds.
    pub const CAPACITY: usize = W::CAPACITY;

    /// The set of the first `n` events, `0..n`.
    pub fn full(n: usize) -> EventSet<W> {
        debug_assert!(n <= Self::CAPACITY);
        let mut s = Self::EMPTY;
        if n > 0 {
            s.0.reach((n - 1) / 128);
        }
        for (i, w) in s.0.words_mut().iter_mut().enumerate() {
            let lo = i * 128;
            *w = if n >= lo + 128 {
                u128::MAX
            } else if n > lo {
                (1u128 << (n - lo)) - 1
            } else {
                0
            };
        }
        s
    }

    /// The set holding only event `e`.
    pub fn singleton(e: usize) -> EventSet<W> {
        let mut s = Self::EMPTY;
        s.insert(e);
        s
    }

    /// Builds a set from the events `0..n` that satisfy `pred`.
    pub fn from_fn(n: usize, mut pred: impl FnMut(usize) -> bool) -> EventSet<W> {
        let mut s = EventSet::EMPTY;
        for e in 0..n {
            if pred(e) {
                s.insert(e);
            }
        }
        s
    }

    /// The set of the events `offset + i` for every bit `i` set in `bits`.
    pub fn from_bits_at(bits: u128, offset: usize) -> EventSet<W> {
        let mut s = Self::EMPTY;
        let (word, shift) = (offset / 128, offset % 128);
        if bits == 0 {
            return s;
        }
        let high = if shift == 0 { 0 } else { bits >> (128 - shift) };
        s.0.reach(if high != 0 { word + 1 } else { word });
        let words = s.0.words_mut();
        words[word] = bits << shift;
        if high != 0 && word + 1 < words.len() {
            words[word + 1] = high;
        }
        s.0.trim();
        s
    }

    /// Whether event `e` is in the set.
    #[inline]
    pub fn contains(&self, e: usize) -> bool {
        self.0
            .words()
            .get(e / 128)
            .is_some_and(|w| w >> (e % 128) & 1 == 1)
    }

    /// Adds event `e`.
    #[inline]
    pub fn insert(&mut self, e: usize) {
        self.0.reach(e / 128);
        self.0.words_mut()[e / 128] |= 1u128 << (e % 128);
    }

    /// Removes event `e`.
    #[inline]
    pub fn remove(&mut self, e: usize) {
        if let Some(w) = self.0.words_mut().get_mut(e / 128) {
            *w &= !(1u128 << (e % 128));
            self.0.trim();
        }
    }

    /// Whether the set is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.words().iter().all(|&w| w == 0)
    }

    /// The number of events in the set.
    pub fn len(&self) -> usize {
        self.0.words().iter().map(|w| w.count_ones() as usize).sum()
    }

    /// `self ∪ other`.
    #[inline]
    pub fn union(mut self, other: EventSet<W>) -> EventSet<W> {
        self.union_with(&other);
        self
    }

    /// Adds every event of `other`.
    #[inline]
    pub fn union_with(&mut self, other: &EventSet<W>) {
        let o = other.0.words();
        if let Some(last) = o.len().checked_sub(1) {
            self.0.reach(last);
        }
        for (a, b) in self.0.words_mut().iter_mut().zip(o) {
            *a |= b;
        }
    }

    /// `self ∩ other`.
    #[inline]
    pub fn inter(mut self, other: EventSet<W>) -> EventSet<W> {
        self.inter_with(&other);
        self
    }

    /// Keeps only the events also in `other`.
    #[inline]
    pub fn inter_with(&mut self, other: &EventSet<W>) {
        let o = other.0.words();
        let s = self.0.words_mut();
        let common = s.len().min(o.len());
        for (a, b) in s[..common].iter_mut().zip(o) {
            *a &= b;
        }
        s[common..].iter_mut().for_each(|a| *a = 0);
        self.0.trim();
    }

    /// `self \ other`.
    #[inline]
    pub fn minus(mut self, other: EventSet<W>) -> EventSet<W> {
        self.minus_with(&other);
        self
    }

    /// Removes every event of `other`.
    #[inline]
    pub fn minus_with(&mut self, other: &EventSet<W>) {
        for (a, b) in self.0.words_mut().iter_mut().zip(other.0.words()) {
            *a &= !b;
        }
        self.0.trim();
    }

    /// Whether every event of `self` is in `other`.
    #[inline]
    pub fn is_subset(&self, other: &EventSet<W>) -> bool {
        let o = other.0.words();
        self.0
            .words()
            .iter()
            .enumerate()
            .all(|(i, a)| a & !o.get(i).copied().unwrap_or(0) == 0)
    }

    /// Whether `self` and `other` have no event in common.
    #[inline]
    pub fn is_disjoint(&self, other: &EventSet<W>) -> bool {
        let o = other.0.words();
        self.0.words().iter().zip(o).all(|(a, b)| a & b == 0)
    }

    /// The smallest event in the set that is not in `other`.
    #[inline]
    pub fn first_outside(&self, other: &EventSet<W>) -> Option<usize> {
        let o = other.0.words();
        self.0.words().iter().enumerate().find_map(|(i, &w)| {
            let left = w & !o.get(i).copied().unwrap_or(0);
            (left != 0).then(|| i * 128 + left.trailing_zeros() as usize)
        })
    }

    /// The smallest event in the set.
    pub fn first(&self) -> Option<usize> {
        let words = self.0.words();
        words
            .iter()
            .position(|&w| w != 0)
            .map(|i| i * 128 + words[i].trailing_zeros() as usize)
    }

    /// The same events in a set of width `V`, which must hold them.
    pub fn to_width<V: Width>(&self) -> EventSet<V> {
        let mut s = EventSet::<V>::EMPTY;
        for (i, &w) in self.0.words().iter().enumerate() {
            if w != 0 {
                s.0.reach(i);
                s.0.words_mut()[i] = w;
            }
        }
        s
    }

    /// The events of the set in increasing order.
    pub fn iter(&self) -> EventSetIter<W> {
        EventSetIter {
            current: self.0.words().first().copied().unwrap_or(0),
            words: self.0.clone(),
            at: 0,
        }
    }
}

impl<W: Width> std::ops::BitOr for EventSet<W> {
    type Output = EventSet<W>;
    #[inline]
    fn bitor(self, rhs: EventSet<W>) -> EventSet<W> {
        self.union(rhs)
    }
}

impl<W: Width> std::ops::BitAnd for EventSet<W> {
    type Output = EventSet<W>;
    #[inline]
    fn bitand(self, rhs: EventSet<W>) -> EventSet<W> {
        self.inter(rhs)
    }
}

impl<W: Width> std::ops::Sub for EventSet<W> {
    type Output = EventSet<W>;
    #[inline]
    fn sub(self, rhs: EventSet<W>) -> EventSet<W> {
        self.minus(rhs)
    }
}

impl<W: Width> std::ops::BitOrAssign for EventSet<W> {
    #[inline]
    fn bitor_assign(&mut self, rhs: EventSet<W>) {
        self.union_with(&rhs);
    }
}

impl<W: Width> fmt::Debug for EventSet<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// Iterator over the events of an [`EventSet`], in increasing order.
#[derive(Clone)]
pub struct EventSetIter<W: Width = Words<1>> {
    words: W,
    /// The word being read, `words[at]` with the events already returned removed.
    current: u128,
    at: usize,
}

impl<W: Width> Iterator for EventSetIter<W> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        while self.current == 0 {
            self.at += 1;
            self.current = *self.words.words().get(self.at)?;
        }
        let e = self.current.trailing_zeros() as usize;
        self.current &= self.current - 1;
        Some(self.at * 128 + e)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let later: usize = self
            .words
            .words()
            .iter()
            .skip(self.at + 1)
            .map(|w| w.count_ones() as usize)
            .sum();
        let n = self.current.count_ones() as usize + later;
        (n, Some(n))
    }
}

impl<W: Width> ExactSizeIterator for EventSetIter<W> {}

impl<W: Width> FromIterator<usize> for EventSet<W> {
    fn from_iter<I: IntoIterator<Item = usize>>(iter: I) -> EventSet<W> {
        let mut s = EventSet::EMPTY;
        for e in iter {
            s.insert(e);
        }
        s
    }
}

/// A binary relation over the events `0..n` of one execution: row `a` holds every `b` with
/// `(a, b)` in the relation.
#[derive(PartialEq, Eq, Hash)]
pub struct Relation<W: Width = Words<1>> {
    rows: Rows<W>,
}

impl<W: Width> Clone for Relation<W> {
    fn clone(&self) -> Self {
        Relation {
            rows: self.rows.clone(),
        }
    }

    /// Copies `source` into the rows `self` already has, without allocating when they
    /// hold it.
    fn clone_from(&mut self, source: &Self) {
        self.rows.clone_from(&source.rows);
    }
}

/// The rows of a relation: inline up to [`INLINE_EVENTS`] events, so that the relations of
/// most litmus tests are built and dropped without an allocator call.
type Rows<W> = smallvec::SmallVec<[EventSet<W>; INLINE_EVENTS]>;

/// How many events a relation holds without allocating.
const INLINE_EVENTS: usize = 32;

impl<W: Width> Relation<W> {
    /// The empty relation over `n` events.
    pub fn empty(n: usize) -> Relation<W> {
        assert!(
            n <= EventSet::<W>::CAPACITY,
            "relation over {n} events exceeds its width"
        );
        Relation {
            rows: smallvec::smallvec![EventSet::<W>::EMPTY; n],
        }
    }

    /// The identity on the events `0..n`.
    pub fn identity(n: usize) -> Relation<W> {
        Relation::<W>::id_on(n, &EventSet::<W>::full(n))
    }

    /// The identity restricted to `set`: cat's `[S]`.
    pub fn id_on(n: usize, set: &EventSet<W>) -> Relation<W> {
        let mut r = Relation::<W>::empty(n);
        for e in set.iter() {
            r.rows[e].insert(e);
        }
        r
    }

    /// The cartesian product `from × to`: cat's `S1 * S2`.
    pub fn cartesian(n: usize, from: &EventSet<W>, to: &EventSet<W>) -> Relation<W> {
        let mut r = Relation::<W>::empty(n);
        for e in from.iter() {
            r.rows[e] = to.clone();
        }
        r
    }

    /// Builds the relation of the pairs `(a, b)` of `0..n` that satisfy `pred`.
    pub fn from_fn(n: usize, mut pred: impl FnMut(usize, usize) -> bool) -> Relation<W> {
        let mut r = Relation::<W>::empty(n);
        for a in 0..n {
            r.rows[a] = EventSet::<W>::from_fn(n, |b| pred(a, b));
        }
        r
    }

    /// Builds a relation from a list of pairs.
    pub fn from_pairs(n: usize, pairs: impl IntoIterator<Item = (usize, usize)>) -> Relation<W> {
        let mut r = Relation::<W>::empty(n);
        for (a, b) in pairs {
            r.add(a, b);
        }
        r
    }

    /// The same pairs in a relation of width `V`, which must hold its events.
    pub fn to_width<V: Width>(&self) -> Relation<V> {
        Relation {
            rows: self.rows.iter().map(EventSet::to_width).collect(),
        }
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
    pub fn successors(&self, a: usize) -> EventSet<W> {
        self.rows[a].clone()
    }

    /// Sets the successors of `a` to `set`.
    pub fn set_successors(&mut self, a: usize, set: EventSet<W>) {
        self.rows[a] = set;
    }

    /// The events `a` with `(a, b)` in the relation.
    pub fn predecessors(&self, b: usize) -> EventSet<W> {
        EventSet::<W>::from_fn(self.size(), |a| self.rows[a].contains(b))
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
    pub fn domain(&self) -> EventSet<W> {
        self.rows
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.is_empty())
            .map(|(a, _)| a)
            .collect()
    }

    /// The events with at least one predecessor: cat's `range(r)`.
    pub fn range(&self) -> EventSet<W> {
        self.rows.iter().fold(EventSet::<W>::EMPTY, |mut acc, r| {
            acc.union_with(r);
            acc
        })
    }

    /// `self ∪ other`: cat's `r | s`.
    pub fn union(&self, other: &Relation<W>) -> Relation<W> {
        self.zip(other, EventSet::union_with)
    }

    /// `self ∩ other`: cat's `r & s`.
    pub fn inter(&self, other: &Relation<W>) -> Relation<W> {
        self.zip(other, EventSet::inter_with)
    }

    /// `self \ other`: cat's `r \ s`.
    pub fn minus(&self, other: &Relation<W>) -> Relation<W> {
        self.zip(other, EventSet::minus_with)
    }

    /// Adds every pair of `other` to `self`.
    pub fn union_with(&mut self, other: &Relation<W>) {
        debug_assert_eq!(self.size(), other.size());
        for (a, b) in self.rows.iter_mut().zip(&other.rows) {
            a.union_with(b);
        }
    }

    /// Keeps only the pairs also in `other`.
    pub fn inter_with(&mut self, other: &Relation<W>) {
        debug_assert_eq!(self.size(), other.size());
        for (a, b) in self.rows.iter_mut().zip(&other.rows) {
            a.inter_with(b);
        }
    }

    /// Removes every pair of `other` from `self`.
    pub fn minus_with(&mut self, other: &Relation<W>) {
        debug_assert_eq!(self.size(), other.size());
        for (a, b) in self.rows.iter_mut().zip(&other.rows) {
            a.minus_with(b);
        }
    }

    /// Keeps only the pairs whose first event is in `set`, in place: `[S] ; r`.
    pub fn retain_domain(&mut self, set: &EventSet<W>) {
        for (a, row) in self.rows.iter_mut().enumerate() {
            if !set.contains(a) {
                *row = EventSet::<W>::EMPTY;
            }
        }
    }

    /// Keeps only the pairs whose second event is in `set`, in place: `r ; [S]`.
    pub fn retain_range(&mut self, set: &EventSet<W>) {
        for row in self.rows.iter_mut() {
            row.inter_with(set);
        }
    }

    /// A copy of `self` with `f` applied to each row and the row of `other` beside it
    /// (copied whole, then changed in place).
    fn zip(&self, other: &Relation<W>, f: impl Fn(&mut EventSet<W>, &EventSet<W>)) -> Relation<W> {
        debug_assert_eq!(self.size(), other.size());
        let mut out = self.clone();
        for (a, b) in out.rows.iter_mut().zip(&other.rows) {
            f(a, b);
        }
        out
    }

    /// The inverse: cat's `r^-1`.
    pub fn inverse(&self) -> Relation<W> {
        let mut r = Relation::<W>::empty(self.size());
        for (a, b) in self.pairs() {
            r.add(b, a);
        }
        r
    }

    /// Writes the inverse of `self` into `out`, a relation over as many events.
    pub fn inverse_into(&self, out: &mut Relation<W>) {
        debug_assert_eq!(self.size(), out.size());
        out.rows.iter_mut().for_each(|r| *r = EventSet::<W>::EMPTY);
        for (a, b) in self.pairs() {
            out.add(b, a);
        }
    }

    /// Sequential composition: cat's `r ; s`, the pairs `(a, c)` with `(a, b)` in `self`
    /// and `(b, c)` in `other` for some `b`.
    ///
    /// # Complexity
    /// O(n · |pairs of self| / n) word operations: one union per pair of `self`.
    pub fn seq(&self, other: &Relation<W>) -> Relation<W> {
        let mut out = Relation::<W>::empty(self.size());
        self.add_seq_to(other, &mut out);
        out
    }

    /// `self? ; other`, without building `self?`: the pairs of `other`, and those of
    /// `self ; other`.
    pub fn optional_seq(&self, other: &Relation<W>) -> Relation<W> {
        let mut out = other.clone();
        self.add_seq_to(other, &mut out);
        out
    }

    /// `self ; other?`, without building `other?`: the pairs of `self`, and those of
    /// `self ; other`.
    pub fn seq_optional(&self, other: &Relation<W>) -> Relation<W> {
        let mut out = self.clone();
        self.add_seq_to(other, &mut out);
        out
    }

    /// Adds the pairs of `self ; other` to `out`, a relation over as many events.
    fn add_seq_to(&self, other: &Relation<W>, out: &mut Relation<W>) {
        debug_assert_eq!(self.size(), other.size());
        debug_assert_eq!(self.size(), out.size());
        for (row, o) in self.rows.iter().zip(out.rows.iter_mut()) {
            for b in row.iter() {
                o.union_with(&other.rows[b]);
            }
        }
    }

    /// Adds the pairs of `a ; b` to `self`, a relation over as many events, without building
    /// `a ; b`: `self | (a ; b)`, in place.
    pub fn union_with_seq(&mut self, a: &Relation<W>, b: &Relation<W>) {
        a.add_seq_to(b, self);
    }

    /// [`Relation::union_with_seq`] following only the events of `b`'s domain: less work
    /// where `a` is dense and few events have successors in `b` (a coherence order before
    /// `rfe`), a little more otherwise.
    pub fn union_with_seq_through(&mut self, a: &Relation<W>, b: &Relation<W>) {
        debug_assert_eq!(self.size(), a.size());
        debug_assert_eq!(self.size(), b.size());
        let middle = b.domain();
        if middle.is_empty() {
            return;
        }
        for (row, o) in a.rows.iter().zip(self.rows.iter_mut()) {
            let mut through = row.clone();
            through.inter_with(&middle);
            for m in through.iter() {
                o.union_with(&b.rows[m]);
            }
        }
    }

    /// Whether `self` and `a ; b` have a pair in common, without building `a ; b`: only the
    /// rows of `self` with a pair are composed.
    pub fn meets_seq(&self, a: &Relation<W>, b: &Relation<W>) -> bool {
        debug_assert_eq!(self.size(), a.size());
        debug_assert_eq!(self.size(), b.size());
        self.rows.iter().zip(&a.rows).any(|(row, a_row)| {
            if row.is_empty() {
                return false;
            }
            let mut reached = EventSet::<W>::EMPTY;
            for m in a_row.iter() {
                reached.union_with(&b.rows[m]);
            }
            !reached.is_disjoint(row)
        })
    }

    /// Makes `self` the empty relation over `n` events, in place.
    pub fn reset(&mut self, n: usize) {
        assert!(
            n <= EventSet::<W>::CAPACITY,
            "relation over {n} events exceeds its width"
        );
        self.rows.clear();
        self.rows.resize(n, EventSet::<W>::EMPTY);
    }

    /// Removes every pair, in place, keeping the size.
    pub fn clear(&mut self) {
        self.rows.iter_mut().for_each(|r| *r = EventSet::<W>::EMPTY);
    }

    /// Removes every pair `(a, a)`, in place: `r \ id`.
    pub fn remove_identity(&mut self) {
        for (a, row) in self.rows.iter_mut().enumerate() {
            row.remove(a);
        }
    }

    /// Writes `self ; other` into `out`, a relation over as many events.
    pub fn seq_into(&self, other: &Relation<W>, out: &mut Relation<W>) {
        debug_assert_eq!(self.size(), other.size());
        debug_assert_eq!(self.size(), out.size());
        for (row, o) in self.rows.iter().zip(out.rows.iter_mut()) {
            *o = EventSet::<W>::EMPTY;
            for b in row.iter() {
                o.union_with(&other.rows[b]);
            }
        }
    }

    /// Makes `self` a copy of `other`, a relation over as many events, without allocating.
    pub fn copy_from(&mut self, other: &Relation<W>) {
        debug_assert_eq!(self.size(), other.size());
        self.rows.clone_from_slice(&other.rows);
    }

    /// Restricts the domain to `set`: cat's `[S] ; r`.
    pub fn restrict_domain(&self, set: &EventSet<W>) -> Relation<W> {
        let mut out = self.clone();
        out.retain_domain(set);
        out
    }

    /// Restricts the range to `set`: cat's `r ; [S]`.
    pub fn restrict_range(&self, set: &EventSet<W>) -> Relation<W> {
        let mut out = self.clone();
        out.retain_range(set);
        out
    }

    /// Restricts both ends: cat's `[S1] ; r ; [S2]`.
    pub fn restrict(&self, from: &EventSet<W>, to: &EventSet<W>) -> Relation<W> {
        let mut out = self.clone();
        out.retain_domain(from);
        out.retain_range(to);
        out
    }

    /// The reflexive closure: cat's `r?`.
    pub fn optional(&self) -> Relation<W> {
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
    pub fn plus(&self) -> Relation<W> {
        let mut r = self.clone();
        r.close_transitively();
        r
    }

    /// Replaces `self` by its transitive closure, in place.
    ///
    /// # Complexity
    /// Warshall's algorithm on bit rows, over the events that have both a predecessor and
    /// a successor (only they can join two pairs) and the rows that are not empty (only
    /// they grow): O(n²) word operations at most, far fewer on a sparse relation.
    pub fn close_transitively(&mut self) {
        let domain = self.domain();
        let mut middle = self.range();
        middle.inter_with(&domain);
        let rows = &mut self.rows;
        for k in middle.iter() {
            let row_k = rows[k].clone();
            for a in domain.iter() {
                if rows[a].contains(k) {
                    rows[a].union_with(&row_k);
                }
            }
        }
    }

    /// The transitive closure, when the relation is acyclic; `None` when it has a cycle.
    /// The same as `plus()` checked irreflexive, for less work on the sparse, mostly
    /// forward relations of an execution.
    ///
    /// # Complexity
    /// Each event's row is the union of its successors' rows, taken once every successor
    /// is done; each round over the events with successors (the others are done from the
    /// start, with an empty row) finishes at least one, or finds a cycle: O(n²) word
    /// operations in the worst case, one round of O(pairs) on a forward relation.
    pub fn plus_if_acyclic(&self) -> Option<Relation<W>> {
        let mut out = Relation::<W>::empty(self.size());
        self.plus_if_acyclic_into(&mut out).then_some(out)
    }

    /// Writes the transitive closure of `self` into `out`, a relation over as many events,
    /// and returns `true`, when `self` is acyclic; returns `false` (leaving `out` partly
    /// written) when it has a cycle.
    /// [`Relation::plus_if_acyclic`] without allocating the result.
    pub fn plus_if_acyclic_into(&self, out: &mut Relation<W>) -> bool {
        let n = self.size();
        debug_assert_eq!(n, out.size());
        out.clear();
        let mut left: smallvec::SmallVec<[usize; 64]> =
            (0..n).rev().filter(|&a| !self.rows[a].is_empty()).collect();
        let mut done = EventSet::<W>::full(n);
        for &a in &left {
            done.remove(a);
        }
        while !left.is_empty() {
            let before = left.len();
            left.retain(|a| {
                let a = *a;
                let succ = &self.rows[a];
                if !succ.is_subset(&done) {
                    return true;
                }
                let mut closed = succ.clone();
                for b in succ.iter() {
                    closed.union_with(&out.rows[b]);
                }
                out.rows[a] = closed;
                done.insert(a);
                false
            });
            if left.len() == before {
                return false;
            }
        }
        true
    }

    /// The reflexive-transitive closure: cat's `r*`.
    pub fn star(&self) -> Relation<W> {
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
    /// A depth-first search from each event with a successor, on bit rows: each event is
    /// entered once, and each of its successors looked at once, so O(n + m) steps of
    /// O(words) each, for m pairs.
    pub fn is_acyclic(&self) -> bool {
        // Finished: every event reachable from it explored, and none on a cycle.
        let mut done = EventSet::<W>::EMPTY;
        // On the path from the search's root to the event explored.
        let mut on_path = EventSet::<W>::EMPTY;
        let mut path: Vec<usize> = Vec::with_capacity(self.rows.len().min(256));
        for root in self.domain().iter() {
            if done.contains(root) {
                continue;
            }
            path.push(root);
            on_path.insert(root);
            while let Some(&a) = path.last() {
                match self.rows[a].first_outside(&done) {
                    // A successor on the path closes a cycle.
                    Some(b) if on_path.contains(b) => return false,
                    Some(b) => {
                        path.push(b);
                        on_path.insert(b);
                    }
                    None => {
                        path.pop();
                        on_path.remove(a);
                        done.insert(a);
                    }
                }
            }
        }
        true
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
            let mut seen = EventSet::<W>::EMPTY;
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
                    for b in (self.rows[a].clone() - seen.clone()).iter() {
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

impl<W: Width> fmt::Debug for Relation<W> {
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
        assert_eq!(EventSet::<Words<1>>::full(128).len(), 128);
        assert_eq!(EventSet::<Words<1>>::full(3).len(), 3);
        assert_eq!(a.first(), Some(0));
        assert!(EventSet::<Words<1>>::EMPTY.first().is_none());
    }

    #[test]
    fn wide_sets_cross_their_words() {
        let a: EventSet<Words<4>> = [0, 127, 128, 300, 511].into_iter().collect();
        let b: EventSet<Words<4>> = [127, 129, 511].into_iter().collect();
        assert_eq!(
            (a | b).iter().collect::<Vec<_>>(),
            vec![0, 127, 128, 129, 300, 511]
        );
        assert_eq!((a & b).iter().collect::<Vec<_>>(), vec![127, 511]);
        assert_eq!((a - b).iter().collect::<Vec<_>>(), vec![0, 128, 300]);
        assert_eq!((b - a).first(), Some(129));
        assert_eq!(a.len(), 5);
        assert_eq!(a.iter().len(), 5);
        for n in [0, 1, 127, 128, 129, 255, 256, 300, 512] {
            let full = EventSet::<Words<4>>::full(n);
            assert_eq!(full.len(), n);
            assert_eq!(full.iter().last(), n.checked_sub(1));
        }
        for offset in [0, 5, 127, 128, 200, 383] {
            let s = EventSet::<Words<4>>::from_bits_at(0b1011, offset);
            let want: Vec<usize> = [0, 1, 3].iter().map(|i| i + offset).collect();
            assert_eq!(s.iter().collect::<Vec<_>>(), want, "offset {offset}");
        }
        assert_eq!(crate::exec::relation::width_for(128), Some(1));
        assert_eq!(crate::exec::relation::width_for(129), Some(2));
        assert_eq!(crate::exec::relation::width_for(300), Some(4));
        assert_eq!(crate::exec::relation::width_for(MAX_FIXED_EVENTS + 1), None);
    }

    /// A relation of 4 words agrees with the same relation of one word, on every operator,
    /// when its events fit in one; and a chain longer than one word closes and cycles.
    /// Growable sets give the same events as fixed-width ones under every operation, and
    /// equal sets are equal however they were built (no zero word is kept at the end).
    #[test]
    fn growable_sets_agree_with_fixed_ones_and_are_canonical() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move |bound: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % bound as u64) as usize
        };
        for _ in 0..300 {
            let n = 1 + next(1024);
            let events = |next: &mut dyn FnMut(usize) -> usize| -> Vec<usize> {
                (0..next(12)).map(|_| next(n)).collect()
            };
            let (ea, eb) = (events(&mut next), events(&mut next));
            let fixed = |e: &[usize]| -> EventSet<Words<8>> { e.iter().copied().collect() };
            let grow = |e: &[usize]| -> EventSet<Growable> { e.iter().copied().collect() };
            let same = |f: &EventSet<Words<8>>, g: &EventSet<Growable>| {
                assert_eq!(f.iter().collect::<Vec<_>>(), g.iter().collect::<Vec<_>>());
                assert_eq!(f.len(), g.len());
                assert_eq!(f.first(), g.first());
                assert_eq!(f.is_empty(), g.is_empty());
                assert_ne!(g.0.last(), Some(&0), "a zero word kept");
            };
            let (fa, fb, ga, gb) = (fixed(&ea), fixed(&eb), grow(&ea), grow(&eb));
            same(&(fa | fb), &(ga.clone() | gb.clone()));
            same(&(fa & fb), &(ga.clone() & gb.clone()));
            same(&(fa - fb), &(ga.clone() - gb.clone()));
            same(&(fb - fa), &(gb.clone() - ga.clone()));
            assert_eq!(fa.is_subset(&fb), ga.is_subset(&gb));
            assert_eq!(fa.cmp(&fb), ga.cmp(&gb), "order of {ea:?} and {eb:?}");
            same(&EventSet::full(n), &EventSet::full(n));
            let offset = next(n.saturating_sub(124).max(1));
            same(
                &EventSet::from_bits_at(0b1011 << 120, offset),
                &EventSet::from_bits_at(0b1011 << 120, offset),
            );
            // Built apart, emptied apart: equal.
            let mut g = ga.clone();
            for &e in &ea {
                g.remove(e);
            }
            assert_eq!(g, EventSet::<Growable>::EMPTY);
            assert_eq!(ga.clone() - ga.clone(), EventSet::EMPTY);
            assert_eq!(ga.clone() & EventSet::EMPTY, EventSet::EMPTY);
            assert_eq!(
                (ga.clone() | gb.clone()) - gb.clone(),
                ga.clone() - gb.clone()
            );
        }
    }

    #[test]
    fn wide_relations_agree_with_narrow_ones() {
        let pairs = [
            (0, 1),
            (1, 2),
            (2, 0),
            (3, 4),
            (4, 5),
            (5, 6),
            (6, 3),
            (7, 7),
        ];
        let other = [(1, 3), (2, 6), (5, 0), (7, 1)];
        let n: Relation = Relation::from_pairs(9, pairs);
        let w: Relation<Words<4>> = Relation::from_pairs(9, pairs);
        let no: Relation = Relation::from_pairs(9, other);
        let wo: Relation<Words<4>> = Relation::from_pairs(9, other);
        let same = |a: &Relation, b: &Relation<Words<4>>| {
            assert_eq!(a.pairs().collect::<Vec<_>>(), b.pairs().collect::<Vec<_>>());
        };
        same(&n.seq(&no), &w.seq(&wo));
        same(&n.plus(), &w.plus());
        same(&n.star(), &w.star());
        same(&n.inverse(), &w.inverse());
        same(&n.union(&no), &w.union(&wo));
        same(&n.minus(&no), &w.minus(&wo));
        assert_eq!(n.is_acyclic(), w.is_acyclic());
        assert_eq!(n.shortest_cycle(), w.shortest_cycle());
        // A path through 400 events, closed into a cycle by its last pair.
        let mut long: Relation<Words<4>> = Relation::from_pairs(400, (0..399).map(|e| (e, e + 1)));
        assert!(long.is_acyclic());
        assert!(long.plus().contains(0, 399));
        long.add(399, 0);
        assert!(!long.is_acyclic());
        assert_eq!(long.shortest_cycle().map(|c| c.len()), Some(400));
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
        assert_eq!(r.restrict_domain(&s0), rel(3, &[(0, 1), (0, 2)]));
        assert_eq!(r.restrict_range(&s2), rel(3, &[(1, 2), (0, 2)]));
        assert_eq!(r.restrict(&s0, &s2), rel(3, &[(0, 2)]));
        assert_eq!(Relation::cartesian(3, &s0, &s2), rel(3, &[(0, 2)]));
        assert_eq!(Relation::id_on(3, &s2), rel(3, &[(2, 2)]));
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
            let r: Relation = Relation::from_pairs(
                4,
                all.iter()
                    .enumerate()
                    .filter(|(i, _)| mask >> i & 1 == 1)
                    .map(|(_, p)| *p),
            );
            assert_eq!(r.is_acyclic(), r.plus().is_irreflexive(), "{r:?}");
            assert_eq!(r.is_acyclic(), r.shortest_cycle().is_none(), "{r:?}");
            let acyclic_plus = r.plus_if_acyclic();
            assert_eq!(acyclic_plus.is_some(), r.is_acyclic(), "{r:?}");
            if let Some(p) = acyclic_plus {
                assert_eq!(p, r.plus(), "{r:?}");
            }
        }
    }

    #[test]
    fn the_closure_of_an_acyclic_relation_is_its_transitive_closure() {
        // Random relations over 1 to 300 events, one word and three words wide, sparse and
        // dense, pairs in both directions: the closure agrees with Warshall's, and a cycle
        // gives none.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..400 {
            let n = 1 + (next() % if round % 4 == 0 { 300 } else { 40 }) as usize;
            let pairs = (next() % (2 * n as u64 + 1)) as usize;
            let forward = round % 2 == 0;
            let edges: Vec<(usize, usize)> = (0..pairs)
                .map(|_| {
                    let (a, b) = ((next() % n as u64) as usize, (next() % n as u64) as usize);
                    if forward && a > b { (b, a) } else { (a, b) }
                })
                .collect();
            if n <= 128 {
                let r: Relation<Words<1>> = Relation::from_pairs(n, edges.iter().copied());
                let got = r.plus_if_acyclic();
                assert_eq!(got.is_some(), r.is_acyclic(), "n {n}, {edges:?}");
                if let Some(p) = got {
                    assert_eq!(p, r.plus(), "n {n}, {edges:?}");
                }
            }
            let r: Relation<Words<4>> = Relation::from_pairs(n, edges.iter().copied());
            let got = r.plus_if_acyclic();
            assert_eq!(got.is_some(), r.is_acyclic(), "n {n}, {edges:?}");
            if let Some(p) = got {
                assert_eq!(p, r.plus(), "n {n}, {edges:?}");
            }
        }
    }

    #[test]
    fn shortcuts_agree_with_their_definitions() {
        // Random relations over 1 to 60 events, cyclic or not: the closure agrees with a
        // fixpoint of compositions, and the fused operations with the ones they fuse.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut random = |n: usize| -> Relation<Words<1>> {
            let pairs = (next() % (3 * n as u64 + 1)) as usize;
            let edges: Vec<(usize, usize)> = (0..pairs)
                .map(|_| ((next() % n as u64) as usize, (next() % n as u64) as usize))
                .collect();
            Relation::from_pairs(n, edges)
        };
        for round in 0..300 {
            let n = 1 + round % 60;
            let (r, s) = (random(n), random(n));
            let mut fixpoint = r.clone();
            loop {
                let grown = fixpoint.union(&fixpoint.seq(&r));
                if grown == fixpoint {
                    break;
                }
                fixpoint = grown;
            }
            assert_eq!(r.plus(), fixpoint, "{r:?}");
            assert_eq!(r.is_acyclic(), fixpoint.is_irreflexive(), "{r:?}");
            assert_eq!(r.optional_seq(&s), r.optional().seq(&s));
            assert_eq!(r.seq_optional(&s), r.seq(&s.optional()));
            let (mut through, mut full) = (s.clone(), s.clone());
            through.union_with_seq_through(&r, &s);
            full.union_with_seq(&r, &s);
            assert_eq!(through, full, "{r:?} ; {s:?}");
            let mut no_id = r.clone();
            no_id.remove_identity();
            assert_eq!(no_id, r.minus(&Relation::identity(n)));
            for a in 0..n {
                let (x, y) = (r.successors(a), s.successors(a));
                assert_eq!(x.is_disjoint(&y), (x & y).is_empty());
            }
        }
    }
}
