//! The strengthening search of a test whose verdict is `Sometimes`: the cheapest sets of
//! changes that forbid its outcome.
//!
//! A change is an upgrade of a site to a stronger choice of its family (`READ_ONCE` to
//! `smp_load_acquire`, `smp_wmb()` to `smp_mb()`, `memory_order_relaxed` to
//! `memory_order_release`) or a fence inserted in a gap between two statements of a
//! thread; it costs the difference of the two choices' costs
//! ([`super::lattice::COSTS`]). A set of changes, at most one per slot, *forbids* when
//! the variant it makes reaches the outcome in no execution (for a `forall` test: fails it
//! in none) and raises no flag the test does not.
//!
//! The search first decides the strongest variant, every slot at its strongest choice: if
//! even that reaches the outcome, nothing within reach forbids it, and the search says so.
//! Otherwise it is a best-first branch and bound over sets of changes, cheapest first:
//! - a set is grown only by slots after its last one, so each set is met once;
//! - a set at least as strong, slot by slot, as one that already forbids is not minimal
//!   and is skipped with everything grown from it;
//! - a set is grown only if it, with every later slot at its strongest, forbids (the
//!   bound): otherwise no set grown from it can, if the model is monotone in its orderings.
//!
//! Sets are decided in batches of equal cost, each batch in parallel, so every minimal
//! forbidding set found is reported with all the cheaper ones; the search stops when
//! nothing is left to grow, or at its budget of decisions or of changes per set, and then
//! says up to which cost it is complete.
//!
//! # Complexity
//! At most the budget of decisions; each popped set costs one decision, and one more for
//! its bound.

use super::decide::Fate;
use super::variant::{self, Assignment};
use super::{Cx, WeakenError};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// How far above the cheapest forbidding set's cost the search still looks for others:
/// the price of an acquire and a release.
pub const MARGIN: u32 = 4;

/// A set of changes: `(slot, choice)`, slots in increasing order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Set {
    /// The changes.
    pub changes: Vec<(usize, usize)>,
    /// What they cost together.
    pub cost: u32,
}

/// What the search found.
#[derive(Clone, Debug)]
pub struct Strengthening {
    /// Whether the strongest variant forbids the outcome.
    pub possible: bool,
    /// The strongest variant's witness, when it does not.
    pub witness: Option<String>,
    /// The minimal forbidding sets found, cheapest first.
    pub sets: Vec<Set>,
    /// Whether the search ran to its end (every minimal set within the limit on changes,
    /// up to [`MARGIN`] above the cheapest's cost, is among `sets`).
    pub complete: bool,
    /// When it did not: every set cheaper than this was decided.
    pub complete_below: Option<u32>,
    /// The most changes a set may have.
    pub max_changes: usize,
}

/// The strongest choice of slot `i`: most guarantees, then dearest.
fn strongest(cx: &Cx<'_>, i: usize) -> Option<usize> {
    let s = &cx.slots[i];
    s.stronger()
        .into_iter()
        .max_by_key(|&c| (s.choices[c].strength.count_ones(), s.choices[c].cost))
}

fn cost(cx: &Cx<'_>, changes: &[(usize, usize)]) -> u32 {
    changes
        .iter()
        .map(|&(i, c)| {
            let s = &cx.slots[i];
            s.choices[c].cost.saturating_sub(s.choices[s.current].cost)
        })
        .sum()
}

fn assignment(cx: &Cx<'_>, changes: &[(usize, usize)]) -> Assignment {
    let mut a = variant::original(cx.slots);
    for &(i, c) in changes {
        a[i] = c;
    }
    a
}

/// `changes` with every slot after `after` at its strongest.
fn bound(cx: &Cx<'_>, changes: &[(usize, usize)], after: Option<usize>) -> Assignment {
    let mut a = assignment(cx, changes);
    let from = after.map_or(0, |k| k + 1);
    for (i, slot) in a.iter_mut().enumerate().skip(from) {
        if let Some(c) = strongest(cx, i) {
            *slot = c;
        }
    }
    a
}

/// Whether `big` is at least as strong as `small` at each slot `small` changes.
fn dominates(cx: &Cx<'_>, big: &[(usize, usize)], small: &[(usize, usize)]) -> bool {
    small.iter().all(|&(i, c)| {
        big.iter().any(|&(j, d)| {
            let (x, y) = (
                cx.slots[i].choices[c].strength,
                cx.slots[j].choices[d].strength,
            );
            i == j && x & y == x
        })
    })
}

/// The cheapest sets of changes that forbid the outcome.
pub fn strengthen(cx: &Cx<'_>) -> Result<Strengthening, WeakenError> {
    let top = bound(cx, &[], None);
    if !cx.ask(&top)?.holds() {
        let witness = cx.witnesses(vec![top])?.pop();
        return Ok(Strengthening {
            possible: false,
            witness,
            sets: Vec::new(),
            complete: true,
            complete_below: None,
            max_changes: cx.max_changes,
        });
    }
    let mut nodes: Vec<Vec<(usize, usize)>> = vec![Vec::new()];
    let mut queue = BinaryHeap::new();
    queue.push(Reverse((0u32, 0usize, 0usize)));
    let mut found: Vec<Set> = Vec::new();
    let mut complete_below = None;
    let mut ceiling = u32::MAX;
    while let Some(&Reverse((c, _, _))) = queue.peek() {
        if c > ceiling {
            break;
        }
        if cx.decided() >= cx.budget {
            complete_below = Some(c);
            break;
        }
        let mut batch = Vec::new();
        while let Some(&Reverse((d, _, k))) = queue.peek() {
            if d != c {
                break;
            }
            queue.pop();
            if !found.iter().any(|f| dominates(cx, &nodes[k], &f.changes)) {
                batch.push(k);
            }
        }
        // The sets themselves (the empty one reaches the outcome: the test's verdict).
        let asked: Vec<Assignment> = batch
            .iter()
            .filter(|&&k| !nodes[k].is_empty())
            .map(|&k| assignment(cx, &nodes[k]))
            .collect();
        let mut fates = cx.ask_all(asked)?.into_iter();
        let mut grow = Vec::new();
        for &k in &batch {
            let forbids = !nodes[k].is_empty() && fates.next().is_some_and(|f| f.holds());
            if forbids {
                ceiling = ceiling.min(c.saturating_add(MARGIN));
                found.push(Set {
                    changes: nodes[k].clone(),
                    cost: c,
                });
            } else if nodes[k].len() < cx.max_changes {
                grow.push(k);
            }
        }
        // The bounds of the sets to grow.
        let bounds: Vec<Assignment> = grow
            .iter()
            .map(|&k| bound(cx, &nodes[k], nodes[k].last().map(|&(i, _)| i)))
            .collect();
        let fates: Vec<Fate> = cx.ask_all(bounds)?;
        for (&k, fate) in grow.iter().zip(fates) {
            if !fate.holds() {
                continue;
            }
            let from = nodes[k].last().map_or(0, |&(i, _)| i + 1);
            for i in from..cx.slots.len() {
                for choice in cx.slots[i].stronger() {
                    let mut child = nodes[k].clone();
                    child.push((i, choice));
                    let cc = cost(cx, &child);
                    let len = child.len();
                    nodes.push(child);
                    queue.push(Reverse((cc, len, nodes.len() - 1)));
                }
            }
        }
    }
    found.sort_by(|a, b| {
        (a.cost, a.changes.len(), &a.changes).cmp(&(b.cost, b.changes.len(), &b.changes))
    });
    Ok(Strengthening {
        possible: true,
        witness: None,
        sets: found,
        complete: complete_below.is_none(),
        complete_below,
        max_changes: cx.max_changes,
    })
}
