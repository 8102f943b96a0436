//! RC11, the repaired C11 memory model of Lahav, Vafeiadis, Kang, Hur and Dreyer
//! ("Repairing Sequential Consistency in C/C++11", PLDI 2017): the model Rust's atomics
//! live in.
//!
//! It judges the events of herd7's C11 dialect ([`crate::front::c11`]): accesses and fences carry
//! their memory order as a tag, plain accesses none.
//! An execution is consistent when:
//! - `hb ; eco?` is irreflexive (coherence), where `hb = (sb | sw)+` and
//!   `eco = (rf | mo | rb)+`;
//! - an RMW reads the write just before its own in `mo`: `rmw ; eco` is irreflexive and
//!   `rmw ∩ (rb ; mo)` is empty (atomicity);
//! - the partial SC order `psc` of the paper's section 3 is acyclic (SC);
//! - `sb | rf` is acyclic (no out-of-thin-air values).
//!
//! Two conflicting accesses of different threads, not both atomic and not ordered by `hb`,
//! are a data race, which makes the program's behaviour undefined: the execution stays
//! allowed and carries [`UNDEFINED`], which herd7 prints as `Flag *undef*` and an `Undef`
//! result.
//!
//! herd7 makes a read-modify-write one event, both read and write; hazmat makes it a read
//! and a write related by `rmw`, both carrying the RMW's order.
//! The model reads that pair as one event: the read starts what the event starts as a read
//! (`rb`, the acquire end of `sw`), the write what it starts as a write (`mo`, `rf`, the
//! release sequence), and with `myrmw = [RMW] | rmw` (every half of an RMW, and the pair)
//! its coherence and atomicity checks reject exactly the executions that reject the single
//! event.
//! Every relation checked grows with `rf` and `mo`, so the model is monotone; the race is
//! a flag, decided on complete executions only.

use crate::exec::event::Tag;
use crate::exec::execution::{AnyExecution, Execution};
use crate::exec::relation::{EventSet, Growable, Relation, Width, Words};
use crate::exec::witness::{self, Term, Violation};
use crate::models::model::{Judge, JudgeAt, Judgement, MemoryModel, Pairs, as_pairs};

/// The flag of an execution whose behaviour is undefined (a data race), as herd7 prints
/// it: the one a model's `undefined_unless` raises.
pub use crate::models::model::UNDEFINED;

/// The RC11 model.
#[derive(Clone, Copy, Debug, Default)]
pub struct Rc11;

/// The relations of RC11 over one execution that its coherence and atomicity checks read:
/// the first the judgement computes, before [`psc`] and `sb | rf`, which it computes only
/// for an execution that passes them.
struct Terms<W: Width = Words<1>> {
    orders: Orders<W>,
    hb: Relation<W>,
    eco: Relation<W>,
    myrmw: Relation<W>,
    rb: Relation<W>,
}

/// The event sets of the C11 orders.
struct Orders<W: Width = Words<1>> {
    sc: EventSet<W>,
    /// `REL | ACQ_REL | SC`: the events that may start a synchronisation.
    releasing: EventSet<W>,
    /// `ACQ | ACQ_REL | SC`: the events that may end one.
    acquiring: EventSet<W>,
    /// `RLX | REL | ACQ | ACQ_REL | SC`: the orders a synchronising access may have (all but
    /// consume).
    ordered: EventSet<W>,
    /// cat's `A`: accesses with an order.
    atomic: EventSet<W>,
}

fn orders<W: Width>(x: &Execution<W>) -> Orders<W> {
    let any = |tags: &[Tag]| x.set(|e| tags.iter().any(|t| e.has(*t)));
    let accesses = x.accesses();
    Orders {
        sc: any(&[Tag::SeqCst]),
        releasing: any(&[Tag::Rel, Tag::AcqRel, Tag::SeqCst]),
        acquiring: any(&[Tag::Acq, Tag::AcqRel, Tag::SeqCst]),
        ordered: any(&[Tag::Rlx, Tag::Rel, Tag::Acq, Tag::AcqRel, Tag::SeqCst]),
        atomic: any(&Tag::C11_ORDERS).inter(accesses),
    }
}

/// `hb`, from `sb` and the synchronises-with relation `sw`.
fn happens_before<W: Width>(x: &Execution<W>, o: &Orders<W>, myrmw: &Relation<W>) -> Relation<W> {
    let n = x.len();
    let (reads, writes, fences) = (x.reads(), x.writes(), x.fences());
    let sb = &x.po;
    let sb_loc = sb.inter(&x.loc());
    // rs = [W]; (sb & loc)?; [W & ordered]; (rf; myrmw)*
    let ordered_writes = writes.clone().inter(o.ordered.clone());
    let mut head = Relation::id_on(n, &ordered_writes);
    head.union_with(&sb_loc.restrict(&writes, &ordered_writes));
    let rs = head.seq(&x.rf.seq(myrmw).star());
    // sw = [releasing]; ([F]; sb)?; rs; rf; [R & ordered]; (sb; [F])?; [acquiring]
    let mut pre = Relation::id_on(n, &o.releasing);
    pre.union_with(&sb.restrict_domain(&o.releasing.clone().inter(fences.clone())));
    let synchronising_reads = reads.inter(o.ordered.clone());
    let mut post = Relation::id_on(n, &synchronising_reads.clone().inter(o.acquiring.clone()));
    post.union_with(&sb.restrict(&synchronising_reads, &fences.inter(o.acquiring.clone())));
    let sw = pre.seq(&rs).seq(&x.rf).seq(&post);
    sb.union(&sw).plus()
}

fn terms<W: Width>(x: &Execution<W>) -> Terms<W> {
    let n = x.len();
    let orders = orders(x);
    let mut myrmw = Relation::id_on(n, &x.tagged(Tag::Rmw));
    myrmw.union_with(&x.rmw);
    let hb = happens_before(x, &orders, &myrmw);
    let rb = x.fr().minus(&Relation::identity(n));
    let mut eco = x.rf.union(&x.co);
    eco.union_with(&rb);
    let eco = eco.plus();
    Terms {
        orders,
        hb,
        eco,
        myrmw,
        rb,
    }
}

/// `psc = pscb | pscf`, the order the SC accesses and fences must agree with: empty (and
/// not computed) when the execution has none.
fn psc<W: Width>(x: &Execution<W>, t: &Terms<W>) -> Relation<W> {
    let n = x.len();
    let o = &t.orders;
    if o.sc.is_empty() {
        return Relation::empty(n);
    }
    let sc_fences = x.fences().inter(o.sc.clone());
    let (sb, hb, loc, mo) = (&x.po, &t.hb, x.loc(), &x.co);
    // scb = sb | sbl; hb; sbl | hbl | mo | rb
    let sbl = sb.minus(&loc);
    let mut scb = sb.union(&sbl.seq(hb).seq(&sbl));
    scb.union_with(&hb.inter(&loc));
    scb.union_with(mo);
    scb.union_with(&t.rb);
    // pscb = ([SC] | [F & SC]; hb?); scb; ([SC] | hb?; [F & SC])
    let mut left = Relation::id_on(n, &o.sc);
    left.union_with(&hb.restrict_domain(&sc_fences));
    let mut right = Relation::id_on(n, &o.sc);
    right.union_with(&hb.restrict_range(&sc_fences));
    let mut psc = left.seq(&scb).seq(&right);
    // pscf = [F & SC]; (hb | hb; eco; hb); [F & SC]
    if !sc_fences.is_empty() {
        let mut between = hb.union(&hb.seq(&t.eco).seq(hb));
        between = between.restrict(&sc_fences, &sc_fences);
        psc.union_with(&between);
    }
    psc
}

/// `hb = (sb | sw)+` as a term whose witness shows the steps it is made of: `sb`, and each
/// `sw` as its release sequence (`sb`, `rf`, `rmw`), its `rf` and the fences' `sb` around it
/// (the same relation as [`happens_before`]).
fn hb_term(x: &AnyExecution, myrmw: &Relation<Growable>) -> Term<Growable> {
    let n = x.len();
    let o = orders(x);
    let (reads, writes, fences) = (x.reads(), x.writes(), x.fences());
    let sb = || Term::base("sb", x.po.clone());
    let rf = || Term::base("rf", x.rf.clone());
    // rs = [W]; (sb & loc)?; [W & ordered]; (rf; myrmw)*
    let rs = Term::seq(
        n,
        vec![
            Term::id(n, &writes),
            Term::opt(Term::base("sb", x.po.inter(&x.loc()))),
            Term::id(n, &writes.inter(o.ordered.clone())),
            Term::star(Term::seq(n, vec![rf(), Term::base("rmw", myrmw.clone())])),
        ],
    );
    // sw = [releasing]; ([F]; sb)?; rs; rf; [R & ordered]; (sb; [F])?; [acquiring]
    let sw = Term::seq(
        n,
        vec![
            Term::id(n, &o.releasing),
            Term::opt(Term::seq(n, vec![Term::id(n, &fences), sb()])),
            rs,
            rf(),
            Term::id(n, &reads.inter(o.ordered.clone())),
            Term::opt(Term::seq(n, vec![sb(), Term::id(n, &fences)])),
            Term::id(n, &o.acquiring),
        ],
    );
    Term::plus(Term::union(n, vec![sb(), sw]))
}

/// `eco = (rf | mo | rb)+` as a term whose witness shows its `rf`, `mo` and `rb` steps.
fn eco_term(x: &AnyExecution, rb: &Relation<Growable>) -> Term<Growable> {
    let n = x.len();
    Term::plus(Term::union(
        n,
        vec![
            Term::base("rf", x.rf.clone()),
            Term::base("mo", x.co.clone()),
            Term::base("rb", rb.clone()),
        ],
    ))
}

/// Whether the execution has a data race: conflicting accesses of different threads, not
/// both atomic, unordered by `hb` (initial writes race with nothing).
fn races<W: Width>(x: &Execution<W>, hb: &Relation<W>, atomic: EventSet<W>) -> bool {
    let n = x.len();
    let writes = x.writes();
    let init = x.tagged(Tag::Init);
    let accesses = x.accesses();
    let mut cnf = Relation::cartesian(n, &writes, &accesses);
    cnf.union_with(&Relation::cartesian(n, &accesses, &writes));
    cnf.inter_with(&x.loc());
    cnf.inter_with(&x.ext());
    let plain = accesses.minus(init);
    cnf = cnf.restrict(&plain, &plain);
    cnf.minus_with(hb);
    cnf.minus_with(&hb.inverse());
    cnf.minus_with(&Relation::cartesian(n, &atomic, &atomic));
    !cnf.is_empty()
}

crate::models::model::judge_at_every_width!(Rc11);

impl Judge for Rc11 {
    fn judge_any<W: Width>(&self, x: &Execution<W>) -> Judgement {
        let t = terms(x);
        let hb_eco = t.hb.union(&t.hb.seq(&t.eco));
        let rejected_by = if !hb_eco.is_irreflexive() {
            Some("coherence1")
        } else if !t.myrmw.seq(&t.eco).is_irreflexive() {
            Some("coherencermw")
        } else if !t.myrmw.inter(&t.rb.seq(&x.co)).is_empty() {
            Some("atomicity")
        } else if !psc(x, &t).is_acyclic() {
            Some("SC")
        } else if !x.po.union(&x.rf).is_acyclic() {
            Some("no-thin-air")
        } else {
            None
        };
        let mut flags = Vec::new();
        if rejected_by.is_none() && races(x, &t.hb, t.orders.atomic.clone()) {
            flags.push(UNDEFINED);
        }
        Judgement { rejected_by, flags }
    }
}

impl MemoryModel for Rc11 {
    fn name(&self) -> &'static str {
        "rc11"
    }

    fn dialect(&self) -> crate::front::c11::Dialect {
        crate::front::c11::Dialect::C11
    }

    /// herd7's `rc11.cat`, which hazmat runs natively under no variant.
    fn lkmm(&self) -> crate::front::variant::LkmmVersion {
        crate::front::variant::LkmmVersion::V1
    }

    fn monotone(&self) -> bool {
        true
    }

    fn explain(&self, x: &AnyExecution) -> Option<Violation> {
        let t = terms(x);
        let n = x.len();
        match JudgeAt::<Growable>::judge(self, x).rejected_by? {
            "coherence1" => {
                let hb_eco =
                    Term::seq(n, vec![hb_term(x, &t.myrmw), Term::opt(eco_term(x, &t.rb))]);
                Violation::irreflexive("coherence1", "hb; eco?", &hb_eco)
            }
            "coherencermw" => Violation::irreflexive(
                "coherencermw",
                "myrmw; eco",
                &Term::seq(
                    n,
                    vec![Term::base("myrmw", t.myrmw.clone()), eco_term(x, &t.rb)],
                ),
            ),
            "atomicity" => witness::atomicity("atomicity", x, &x.rmw),
            "SC" => Violation::acyclic("SC", "psc", &Term::base("psc", psc(x, &t))),
            _ => {
                let parts = vec![
                    Term::base("sb", x.po.clone()),
                    Term::base("rf", x.rf.clone()),
                ];
                Violation::acyclic("no-thin-air", "sb | rf", &Term::union(n, parts))
            }
        }
    }

    fn relations(&self, x: &AnyExecution) -> Vec<(&'static str, Pairs)> {
        let t = terms(x);
        let psc = psc(x, &t);
        as_pairs(vec![("hb", t.hb), ("eco", t.eco), ("psc", psc)])
    }
}
