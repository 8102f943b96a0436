//! Witnesses: why a pair of events is in a derived relation, as a path of labelled steps.
//!
//! A model checks derived relations (`hb`, `pb`, `ghb`...), but a person reads a cycle in
//! the base relations it is built from: `a: W x=1 -po-> b: F mb -po-> c: R y=0 -fre-> a`.
//! A [`Term`] is a relation expression (union, sequence, closures, `[S]`) whose leaves are
//! labelled relations; it computes its relation once, bottom up, and can then explain any
//! pair of it as the [`Step`]s of one derivation ([`Term::witness`]).
//! A model explains a rejection ([`crate::models::model::MemoryModel::explain`]) by building the
//! term of the failing check, finding its shortest cycle and expanding each edge.
//!
//! A term is exact when each node's relation is the model's; a union may list a detailed
//! form first (a fence shown as `po ; [F] ; po`) and the model's exact relation last as a
//! single labelled leaf, so the relation stays exact while witnesses prefer the detail.

use crate::exec::execution::Execution;
use crate::exec::relation::{EventSet, Relation, Width, Words};
use std::rc::Rc;

/// One step of a derivation: `from` is related to `to` by the base relation `label`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Step {
    /// The source event.
    pub from: usize,
    /// The base relation (`po`, `rfe`, `fre`, `addr`, `po-rel`...).
    pub label: &'static str,
    /// The target event.
    pub to: usize,
}

/// What kind of check failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CheckKind {
    /// cat's `acyclic r`: the steps form a cycle of `r`.
    Acyclic,
    /// cat's `irreflexive r`: the steps lead from an event back to itself through `r`.
    Irreflexive,
    /// cat's `empty r`: the steps show a pair of `r`, closed into a cycle by the inverse of
    /// the relation it must not meet.
    Empty,
    /// A check over the thread paths alone, with no cycle to show.
    Paths,
}

/// Why a model rejects one execution: the failing check and a concrete cycle behind it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The name of the check (`"happens-before"`, `"sc"`, `"coherence"`...).
    pub check: &'static str,
    /// The relation the check constrains (`"hb"`, `"po | rf | co | fr"`...).
    pub relation: &'static str,
    /// How the relation fails.
    pub kind: CheckKind,
    /// The steps of the cycle; the last one ends where the first begins.
    /// Empty for [`CheckKind::Paths`].
    pub cycle: Vec<Step>,
}

impl Violation {
    /// The violation of `acyclic term as check`, with the shortest cycle of the term's
    /// relation (in its own edges), each edge expanded into base steps; `None` when the
    /// relation is acyclic.
    pub fn acyclic<W: Width>(
        check: &'static str,
        relation: &'static str,
        term: &Term<W>,
    ) -> Option<Violation> {
        let cycle = term.relation().shortest_cycle()?;
        let mut steps = Vec::new();
        for (i, &a) in cycle.iter().enumerate() {
            let b = cycle[(i + 1) % cycle.len()];
            steps.extend(term.witness(a, b)?);
        }
        Some(Violation {
            check,
            relation,
            kind: CheckKind::Acyclic,
            cycle: steps,
        })
    }

    /// The violation of `irreflexive term as check`: the derivation of the first event
    /// related to itself; `None` when the relation is irreflexive.
    pub fn irreflexive<W: Width>(
        check: &'static str,
        relation: &'static str,
        term: &Term<W>,
    ) -> Option<Violation> {
        let r = term.relation();
        let a = (0..r.size()).find(|&a| r.contains(a, a))?;
        Some(Violation {
            check,
            relation,
            kind: CheckKind::Irreflexive,
            cycle: term.witness(a, a)?,
        })
    }

    /// A check over the paths alone, which no cycle explains.
    pub fn paths(check: &'static str, relation: &'static str) -> Violation {
        Violation {
            check,
            relation,
            kind: CheckKind::Paths,
            cycle: Vec::new(),
        }
    }

    /// The events of the cycle, in order, each once per visit.
    pub fn events(&self) -> impl Iterator<Item = usize> + '_ {
        self.cycle.iter().map(|s| s.from)
    }
}

/// The communication relations of `x`, split into their external and internal parts:
/// `rfe`, `rfi`, `coe`, `coi`, `fre`, `fri`, in that order.
pub fn com_terms<W: Width>(x: &Execution<W>) -> Vec<Term<W>> {
    let (int, ext) = (x.int(), x.ext());
    let fr = x.fr();
    vec![
        Term::base("rfe", x.rf.inter(&ext)),
        Term::base("rfi", x.rf.inter(&int)),
        Term::base("coe", x.co.inter(&ext)),
        Term::base("coi", x.co.inter(&int)),
        Term::base("fre", fr.inter(&ext)),
        Term::base("fri", fr.inter(&int)),
    ]
}

/// The violation of cat's `empty rmw & (fre ; coe) as check`: the read of a
/// read-modify-write reads a write that another thread's write follows in coherence before
/// the RMW's own write; the cycle closes with the `rmw` pair reversed.
pub fn atomicity<W: Width>(
    check: &'static str,
    x: &Execution<W>,
    rmw: &Relation<W>,
) -> Option<Violation> {
    let n = x.len();
    let ext = x.ext();
    let fr = x.fr();
    let fre_coe = Term::seq(
        n,
        vec![
            Term::base("fre", fr.inter(&ext)),
            Term::base("coe", x.co.inter(&ext)),
        ],
    );
    let (r, w) = rmw.inter(fre_coe.relation()).pairs().next()?;
    let mut cycle = fre_coe.witness(r, w)?;
    cycle.push(Step {
        from: w,
        label: "rmw^-1",
        to: r,
    });
    Some(Violation {
        check,
        relation: "rmw & (fre ; coe)",
        kind: CheckKind::Empty,
        cycle,
    })
}

/// cat's `fencerel(S) = po ; [S] ; po`, shown through the fence event.
pub fn fencerel<W: Width>(po: &Relation<W>, set: &EventSet<W>) -> Term<W> {
    let n = po.size();
    Term::seq(
        n,
        vec![
            Term::base("po", po.clone()),
            Term::id(n, set),
            Term::base("po", po.clone()),
        ],
    )
}

#[derive(Clone, Debug)]
enum Op {
    Base(&'static str),
    Id,
    Union,
    Seq,
    Opt,
    Plus,
    Mask,
}

/// A relation expression with labelled leaves, its relation computed on construction.
///
/// A term is a shared handle: cloning one to use it in several places copies no relation.
#[derive(Clone, Debug)]
pub struct Term<W: Width = Words<1>>(Rc<Node<W>>);

#[derive(Debug)]
struct Node<W: Width> {
    op: Op,
    rel: Relation<W>,
    args: Vec<Term<W>>,
}

impl<W: Width> Term<W> {
    /// A base relation: each pair is one step labelled `label`.
    pub fn base(label: &'static str, rel: Relation<W>) -> Term<W> {
        Term(Rc::new(Node {
            op: Op::Base(label),
            rel,
            args: Vec::new(),
        }))
    }

    /// cat's `[S]`: the identity on `set`, which adds no step.
    pub fn id(n: usize, set: &EventSet<W>) -> Term<W> {
        Term(Rc::new(Node {
            op: Op::Id,
            rel: Relation::id_on(n, set),
            args: Vec::new(),
        }))
    }

    /// The union of `args`; a witness comes from the first that holds the pair.
    pub fn union(n: usize, args: Vec<Term<W>>) -> Term<W> {
        let mut rel = Relation::empty(n);
        for a in &args {
            rel.union_with(&a.0.rel);
        }
        Term(Rc::new(Node {
            op: Op::Union,
            rel,
            args,
        }))
    }

    /// The sequence `args[0] ; args[1] ; ...`.
    pub fn seq(n: usize, args: Vec<Term<W>>) -> Term<W> {
        let rel = args
            .iter()
            .fold(Relation::identity(n), |acc, a| acc.seq(&a.0.rel));
        Term(Rc::new(Node {
            op: Op::Seq,
            rel,
            args,
        }))
    }

    /// cat's `r?`.
    pub fn opt(t: Term<W>) -> Term<W> {
        Term(Rc::new(Node {
            op: Op::Opt,
            rel: t.0.rel.optional(),
            args: vec![t],
        }))
    }

    /// cat's `r+`.
    pub fn plus(t: Term<W>) -> Term<W> {
        Term(Rc::new(Node {
            op: Op::Plus,
            rel: t.0.rel.plus(),
            args: vec![t],
        }))
    }

    /// cat's `r*`.
    pub fn star(t: Term<W>) -> Term<W> {
        Term::opt(Term::plus(t))
    }

    /// The pairs of `t` that are also in `mask` (cat's `r & m`, or `r \ m` with the
    /// complement of `m`).
    pub fn mask(t: Term<W>, mask: &Relation<W>) -> Term<W> {
        Term(Rc::new(Node {
            op: Op::Mask,
            rel: t.0.rel.inter(mask),
            args: vec![t],
        }))
    }

    /// cat's `[from] ; t ; [to]`.
    pub fn restrict(t: Term<W>, from: &EventSet<W>, to: &EventSet<W>) -> Term<W> {
        let n = t.0.rel.size();
        Term::mask(t, &Relation::cartesian(n, from, to))
    }

    /// The relation the term denotes.
    pub fn relation(&self) -> &Relation<W> {
        &self.0.rel
    }

    /// The steps of one derivation of `(a, b)`, or `None` when the pair is not in the
    /// relation.
    ///
    /// The derivation is deterministic: unions try their terms in order, sequences pick
    /// the lowest intermediate event, closures a shortest path.
    ///
    /// # Complexity
    /// Each node does at most one breadth-first search or one composition of its
    /// arguments' relations: polynomial in the events, and small for litmus tests.
    pub fn witness(&self, a: usize, b: usize) -> Option<Vec<Step>> {
        if !self.0.rel.contains(a, b) {
            return None;
        }
        match &self.0.op {
            Op::Base(label) => Some(vec![Step {
                from: a,
                label,
                to: b,
            }]),
            Op::Id => Some(Vec::new()),
            Op::Union => self.0.args.iter().find_map(|t| t.witness(a, b)),
            Op::Mask => self.0.args[0].witness(a, b),
            Op::Opt => {
                if a == b {
                    Some(Vec::new())
                } else {
                    self.0.args[0].witness(a, b)
                }
            }
            Op::Plus => {
                let inner = &self.0.args[0];
                let hops = shortest_path(&inner.0.rel, a, b)?;
                let mut steps = Vec::new();
                for w in hops.windows(2) {
                    steps.extend(inner.witness(w[0], w[1])?);
                }
                Some(steps)
            }
            Op::Seq => seq_witness(&self.0.args, a, b),
        }
    }
}

/// A derivation of `(a, b)` through the sequence `args`.
fn seq_witness<W: Width>(args: &[Term<W>], a: usize, b: usize) -> Option<Vec<Step>> {
    let Some((first, rest)) = args.split_first() else {
        return (a == b).then(Vec::new);
    };
    if rest.is_empty() {
        return first.witness(a, b);
    }
    let n = first.0.rel.size();
    let tail = rest
        .iter()
        .fold(Relation::<W>::identity(n), |acc, t| acc.seq(&t.0.rel));
    let mids = first.0.rel.successors(a) & tail.predecessors(b);
    // Prefer the intermediate event that keeps the derivation shortest.
    let mut best: Option<Vec<Step>> = None;
    for c in mids.iter() {
        let mut steps = first.witness(a, c)?;
        steps.extend(seq_witness(rest, c, b)?);
        if best.as_ref().is_none_or(|s| steps.len() < s.len()) {
            best = Some(steps);
        }
    }
    best
}

/// A shortest path of at least one edge from `a` to `b` in `r`, as its events.
fn shortest_path<W: Width>(r: &Relation<W>, a: usize, b: usize) -> Option<Vec<usize>> {
    let n = r.size();
    let mut parent = vec![usize::MAX; n];
    let mut seen = EventSet::<W>::EMPTY;
    let mut frontier = Vec::new();
    for c in r.successors(a).iter() {
        parent[c] = a;
        seen.insert(c);
        frontier.push(c);
    }
    while !seen.contains(b) {
        if frontier.is_empty() {
            return None;
        }
        let mut next = Vec::new();
        for &c in &frontier {
            for d in (r.successors(c) - seen.clone()).iter() {
                parent[d] = c;
                seen.insert(d);
                next.push(d);
            }
        }
        frontier = next;
    }
    let mut path = vec![b];
    let mut at = parent[b];
    while at != a {
        path.push(at);
        at = parent[at];
    }
    path.push(a);
    path.reverse();
    Some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn witness_expands_a_fence_between_two_po_steps() {
        // 0 -po-> 1 (fence) -po-> 2, po transitive.
        let n = 3;
        let po: Relation = Relation::from_pairs(n, [(0, 1), (1, 2), (0, 2)]);
        let fence = EventSet::singleton(1);
        let t = Term::union(
            n,
            vec![
                Term::seq(
                    n,
                    vec![
                        Term::base("po", po.clone()),
                        Term::id(n, &fence),
                        Term::base("po", po.clone()),
                    ],
                ),
                Term::base("mb", Relation::from_pairs(n, [(0, 2)])),
            ],
        );
        let steps = t.witness(0, 2).expect("in the relation");
        assert_eq!(
            steps,
            vec![
                Step {
                    from: 0,
                    label: "po",
                    to: 1
                },
                Step {
                    from: 1,
                    label: "po",
                    to: 2
                }
            ]
        );
        assert_eq!(t.witness(2, 0), None);
    }

    #[test]
    fn acyclic_violation_closes_the_cycle() {
        let n = 4;
        let r: Term = Term::union(
            n,
            vec![
                Term::base("po", Relation::from_pairs(n, [(0, 1), (2, 3)])),
                Term::base("rfe", Relation::from_pairs(n, [(1, 2)])),
                Term::base("fre", Relation::from_pairs(n, [(3, 0)])),
            ],
        );
        let v = Violation::acyclic("sc", "po | rf | fr", &r).expect("a cycle");
        let labels: Vec<_> = v.cycle.iter().map(|s| s.label).collect();
        assert_eq!(labels, ["po", "rfe", "po", "fre"]);
        assert_eq!(
            v.cycle.first().map(|s| s.from),
            v.cycle.last().map(|s| s.to)
        );
        for w in v.cycle.windows(2) {
            assert_eq!(w[0].to, w[1].from);
        }
    }

    #[test]
    fn closures_take_a_shortest_path() {
        let n = 4;
        let r: Relation = Relation::from_pairs(n, [(0, 1), (1, 2), (2, 3), (0, 3)]);
        let t = Term::plus(Term::base("r", r));
        assert_eq!(t.witness(0, 3).map(|s| s.len()), Some(1));
        assert_eq!(t.witness(1, 3).map(|s| s.len()), Some(2));
        let s: Term = Term::star(Term::base("r", Relation::empty(n)));
        assert_eq!(s.witness(2, 2), Some(Vec::new()));
    }
}
