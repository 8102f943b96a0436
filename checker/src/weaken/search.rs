//! The weakening searches of a test whose verdict is `Never` or `Always`: each site alone,
//! then the weakest whole assignments.
//!
//! # Each site alone
//! Every choice weaker than the test's own is decided with the other sites as written.
//! The choices that keep the verdict are the site's `keeps`; the weakest of them (none
//! weaker keeps), and the strongest that lose it (none stronger loses, the first a
//! reviewer meets going down the lattice), are reported, the latter with a witness.
//!
//! # The weakest whole assignments
//! An assignment gives every site one of its choices, the test's own or a weaker one; the
//! weakest assignments that keep the verdict are those no other keeping assignment is
//! weaker than, site by site.
//! When the assignments number at most [`Cx::exact_limit`], every one is decided (in
//! parallel) and the weakest are read off exactly, with no assumption about the model;
//! the same run counts the pairs where a stronger assignment loses what a weaker one
//! keeps, which a model monotone in its orderings never shows.
//! Otherwise a greedy search runs: sites in source order, each set to its weakest choice
//! that keeps the verdict given the choices made so far, in passes until a pass changes
//! nothing; then the same in reverse order. Each result is a local minimum (no single
//! site of it can be weakened further, which the last pass checked) but other minima may
//! exist.
//!
//! # Complexity
//! Each site alone: one decision per weaker choice. Exact: one per assignment, the
//! product of the sites' numbers of choices. Greedy: per pass, one per weaker choice.

use super::decide::Fate;
use super::variant::{self, Assignment};
use super::{Cx, WeakenError};

/// The fate of each weaker choice of one site.
#[derive(Clone, Debug)]
pub struct SiteResult {
    /// `(choice, fate)` for each choice weaker than the test's own, in family order.
    pub fates: Vec<(usize, Fate)>,
    /// Each losing choice that no stronger choice of the site loses, with the witness
    /// execution that reaches the outcome (none when the verdict held and a new flag
    /// lost it).
    pub witnesses: Vec<(usize, Option<String>)>,
}

impl SiteResult {
    /// The choices that keep the verdict.
    pub fn keeps(&self) -> Vec<usize> {
        self.fates
            .iter()
            .filter(|(_, f)| f.holds())
            .map(|&(c, _)| c)
            .collect()
    }

    /// Whether every weaker choice loses the verdict: the site's ordering is needed.
    pub fn needed(&self) -> bool {
        !self.fates.is_empty() && self.fates.iter().all(|(_, f)| !f.holds())
    }
}

/// Decides each weaker choice of each site alone; witnesses for the first losers.
pub fn each_site(cx: &Cx<'_>) -> Result<Vec<SiteResult>, WeakenError> {
    let base = variant::original(cx.slots);
    let mut asked = Vec::new();
    for (i, s) in cx.slots.iter().enumerate() {
        for c in s.weaker() {
            let mut a = base.clone();
            a[i] = c;
            asked.push((i, c, a));
        }
    }
    let fates = cx.ask_all(asked.iter().map(|(_, _, a)| a.clone()).collect())?;
    let mut results: Vec<SiteResult> = cx
        .slots
        .iter()
        .map(|_| SiteResult {
            fates: Vec::new(),
            witnesses: Vec::new(),
        })
        .collect();
    for ((i, c, _), fate) in asked.iter().zip(fates) {
        results[*i].fates.push((*c, fate));
    }
    // The first losers: no stronger weaker-choice of the site loses. Those that lost the
    // verdict get a witness; those that raised a new flag kept the verdict and have none.
    let mut first = Vec::new();
    let mut flagged = Vec::new();
    for (i, r) in results.iter().enumerate() {
        let s = &cx.slots[i];
        for (c, f) in &r.fates {
            let stronger_loses = r.fates.iter().any(|(d, g)| {
                !g.holds() && super::lattice::weaker(s.choices[*c].strength, s.choices[*d].strength)
            });
            if !f.holds() && !stronger_loses {
                let mut a = base.clone();
                a[i] = *c;
                match f {
                    Fate::Lost { flag: None } => first.push((i, *c, a)),
                    _ => flagged.push((i, *c)),
                }
            }
        }
    }
    let witnesses = cx.witnesses(first.iter().map(|(_, _, a)| a.clone()).collect())?;
    for ((i, c, _), w) in first.into_iter().zip(witnesses) {
        results[i].witnesses.push((c, Some(w)));
    }
    for (i, c) in flagged {
        results[i].witnesses.push((c, None));
    }
    for r in &mut results {
        r.witnesses.sort_by_key(|(c, _)| *c);
    }
    Ok(results)
}

/// How the weakest assignments were found.
#[derive(Clone, Debug)]
pub struct Weakest {
    /// Whether every assignment was decided.
    pub exact: bool,
    /// The number of assignments.
    pub space: u128,
    /// The weakest assignments that keep the verdict, in the order found.
    pub assignments: Vec<Assignment>,
    /// Pairs (exact search only) where an assignment loses what a weaker one keeps.
    pub non_monotone: usize,
}

/// The choices each site may take in a weakening: its own, then the weaker ones.
fn options(cx: &Cx<'_>) -> Vec<Vec<usize>> {
    cx.slots
        .iter()
        .map(|s| {
            let mut o = vec![s.current];
            o.extend(s.weaker());
            o
        })
        .collect()
}

/// Whether `a` is weaker than or equal to `b` at every site.
fn at_most(cx: &Cx<'_>, a: &[usize], b: &[usize]) -> bool {
    cx.slots.iter().enumerate().all(|(i, s)| {
        let (x, y) = (s.choices[a[i]].strength, s.choices[b[i]].strength);
        x & y == x
    })
}

/// The weakest assignments that keep the verdict.
pub fn weakest(cx: &Cx<'_>) -> Result<Weakest, WeakenError> {
    let options = options(cx);
    let space = options
        .iter()
        .try_fold(1u128, |n, o| n.checked_mul(o.len() as u128))
        .unwrap_or(u128::MAX);
    if space <= cx.exact_limit as u128 {
        exact(cx, &options, space)
    } else {
        greedy(cx, &options, space)
    }
}

fn exact(cx: &Cx<'_>, options: &[Vec<usize>], space: u128) -> Result<Weakest, WeakenError> {
    let mut all = Vec::with_capacity(space as usize);
    let mut digits = vec![0usize; options.len()];
    loop {
        all.push(
            digits
                .iter()
                .zip(options)
                .map(|(&d, o)| o[d])
                .collect::<Assignment>(),
        );
        let mut k = 0;
        while k < digits.len() {
            digits[k] += 1;
            if digits[k] < options[k].len() {
                break;
            }
            digits[k] = 0;
            k += 1;
        }
        if k == digits.len() {
            break;
        }
    }
    let fates = cx.ask_all(all.clone())?;
    let (keep, lose): (Vec<_>, Vec<_>) = all.into_iter().zip(fates).partition(|(_, f)| f.holds());
    let keep: Vec<Assignment> = keep.into_iter().map(|(a, _)| a).collect();
    let lose: Vec<Assignment> = lose.into_iter().map(|(a, _)| a).collect();
    let mut minimal: Vec<Assignment> = keep
        .iter()
        .filter(|k| !keep.iter().any(|j| j != *k && at_most(cx, j, k)))
        .cloned()
        .collect();
    minimal.sort_by_key(|a| weakness_key(cx, a));
    let non_monotone = lose
        .iter()
        .map(|l| keep.iter().filter(|k| at_most(cx, k, l)).count())
        .sum();
    Ok(Weakest {
        exact: true,
        space,
        assignments: minimal,
        non_monotone,
    })
}

/// Sorts the weakest assignments: most sites changed first, then cheapest, then by site.
fn weakness_key(cx: &Cx<'_>, a: &[usize]) -> (std::cmp::Reverse<usize>, u32, Vec<usize>) {
    let changed = variant::changed(cx.slots, a);
    let cost = cx
        .slots
        .iter()
        .zip(a)
        .map(|(s, &c)| s.choices[c].cost)
        .sum();
    (std::cmp::Reverse(changed.len()), cost, a.to_vec())
}

fn greedy(cx: &Cx<'_>, options: &[Vec<usize>], space: u128) -> Result<Weakest, WeakenError> {
    let forward: Vec<usize> = (0..cx.slots.len()).collect();
    let backward: Vec<usize> = forward.iter().rev().copied().collect();
    let mut found: Vec<Assignment> = Vec::new();
    for order in [forward, backward] {
        let a = greedy_pass(cx, options, &order)?;
        if !found.contains(&a) {
            found.push(a);
        }
    }
    Ok(Weakest {
        exact: false,
        space,
        assignments: found,
        non_monotone: 0,
    })
}

/// Passes over the sites in `order` until one changes nothing.
fn greedy_pass(
    cx: &Cx<'_>,
    options: &[Vec<usize>],
    order: &[usize],
) -> Result<Assignment, WeakenError> {
    let mut a = variant::original(cx.slots);
    loop {
        let mut changed = false;
        for &i in order {
            let s = &cx.slots[i];
            let now = s.choices[a[i]].strength;
            let mut tries: Vec<usize> = options[i]
                .iter()
                .copied()
                .filter(|&c| super::lattice::weaker(s.choices[c].strength, now))
                .collect();
            // Weakest first: fewest guarantees, then cheapest.
            tries.sort_by_key(|&c| (s.choices[c].strength.count_ones(), s.choices[c].cost));
            let asked: Vec<Assignment> = tries
                .iter()
                .map(|&c| {
                    let mut b = a.clone();
                    b[i] = c;
                    b
                })
                .collect();
            let fates = cx.ask_all(asked)?;
            if let Some((&c, _)) = tries.iter().zip(&fates).find(|(_, f)| f.holds()) {
                a[i] = c;
                changed = true;
            }
        }
        if !changed {
            return Ok(a);
        }
    }
}
