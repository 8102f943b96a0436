//! Counting a test piece by piece: full-mode outcomes of tests whose threads form a
//! pipeline, without enumerating every combination of the pieces' choices.
//!
//! The full mode prints the distinct final states and the number of allowed executions
//! that satisfy the condition and that do not. The enumeration finds them one execution at
//! a time, so a chain of N threads that each pass on a value read (herd7 counts 2^N
//! executions of it) takes 2^N candidates. Yet most of those choices are independent:
//! what one end of the chain does cannot change what the model says of the other end.
//! When that is so, the count is a product, and the pieces can be enumerated one at a
//! time.
//!
//! # When a test splits
//!
//! The threads are put in order and cut into pieces. A cut between the threads before it
//! (A) and those after it (B) is kept when at most one location is shared across it, and
//! that location, the cut's *channel*, is written by one thread of A once at most and
//! read by one thread of B once at most, and accessed by no other thread; every other
//! location a thread of B accesses is written by no thread of A, and the converse. Then the only
//! edges between the two sides are the channel's: `rf` from the write to the read (A to B)
//! when the read reads it, or `fr` from the read to the write (B to A) when it reads the
//! initial value. The two exclude each other, so no path goes from one side to the other
//! and back.
//!
//! For a model that [factors](MemoryModel::factors) (the LKMM, SC and TSO), each check is
//! over relations whose pairs are joined by paths of `rf`, `co`, `fr` and relations inside
//! one thread, so a cycle, or a pair a check relates, that touched both sides would take
//! such a path there and back: every check fails inside one side or not at all. The
//! model's verdict on the whole test is the conjunction of its verdicts on the pieces, each
//! judged with its channel's write standing alone, and the values B computes depend on A
//! only through the value the channel's read returns.
//!
//! The tests that split are those whose accesses are all marked (a plain access makes the
//! LKMM relate accesses of different threads with no path between them, in its data-race
//! and plain-coherence checks), with no lock, RCU or SRCU primitive, no filter, no loop cut
//! off by its unrolling, no address computed from values read, and no address stored as a
//! value. Any other test, and any piece that turns out to need something the product
//! cannot carry (a flag, an unsolved value), goes to the whole enumeration instead.
//!
//! # How it counts
//!
//! Piece by piece, in order, a table maps each partial final state (the shown cells the
//! pieces so far own) and the value of the pending channel's write (or its absence) to a
//! number of executions. A piece is enumerated as a test of its own: its threads, every
//! other thread emptied, and, where it reads the channel, the channel's writer replaced by
//! one `WRITE_ONCE` of each value the table holds for it. Its executions whose channel read
//! reads that write join the table's entries of that value; the others (which read the
//! initial value, or take no path with the read) join every entry. Counts multiply.

use crate::engine::enumerate::{Limits, RunError, Stats, Stop, enumerate};
use crate::engine::outcome::{Options, Outcome, herd7_order_by};
use crate::engine::paths::{self, Assumption};
use crate::exec::event::{EventKind, Loc, Tag, Tags, Value};
use crate::front::program::{Cell, Expr, Instr, Op, Program, Statement};
use crate::models::model::MemoryModel;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The tags an event of a test that splits may carry.
const ALLOWED: [Tag; 11] = [
    Tag::Once,
    Tag::Release,
    Tag::Acquire,
    Tag::Noreturn,
    Tag::Mb,
    Tag::Rmw,
    Tag::Rmb,
    Tag::Wmb,
    Tag::Barrier,
    Tag::BeforeAtomic,
    Tag::AfterAtomic,
];

/// The tags that make an access marked.
const MARKED: [Tag; 5] = [
    Tag::Once,
    Tag::Release,
    Tag::Acquire,
    Tag::Mb,
    Tag::Noreturn,
];

/// How one thread uses the locations: per location, the most writes and the most reads
/// one of its paths makes.
#[derive(Default)]
struct Uses {
    writes: BTreeMap<Loc, usize>,
    reads: BTreeMap<Loc, usize>,
}

/// The location shared across a cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Channel {
    loc: Loc,
    /// The thread that writes it.
    writer: usize,
    /// The thread that reads it after the cut.
    reader: usize,
}

/// How a test splits: the pieces, as thread lists in order, and the channel of the cut
/// after each piece but the last (`None` when nothing is shared across it).
#[derive(Debug)]
struct Plan {
    pieces: Vec<Vec<usize>>,
    cuts: Vec<Option<Channel>>,
}

/// A partial final state (the shown cells, `None` where no piece so far owns the cell) and
/// the value of the pending channel's write, `None` when there is none.
type Key = (Vec<Option<Value>>, Option<Value>);

/// Why a split run stops without an outcome.
#[derive(Clone, Copy)]
enum Halt {
    /// A piece needs what the product cannot carry: the whole enumeration decides the
    /// test instead.
    GiveUp,
    /// The number of executions outgrows `u128`, at the piece whose first instruction's
    /// source is given.
    Overflow((usize, usize)),
}
use Halt::GiveUp;

/// Checks `program` piece by piece when it splits (see the module's documentation):
/// `None` when it does not, or when a piece needs what the product cannot carry.
pub(crate) fn run(
    program: &Program,
    model: &dyn MemoryModel,
    options: &Options,
) -> Option<Result<Outcome, RunError>> {
    if options.speedcheck
        || options.deciding_only
        || options.whole
        || options.limits.max_executions.is_some()
        || program.filter.is_some()
        || !model.factors()
        || model.completes()
        || !paths::pointees(program).is_empty()
    {
        return None;
    }
    let mut cells = Vec::new();
    program.condition.prop.cells(&mut cells);
    if cells.iter().any(|c| !program.shown.contains(c)) {
        return None;
    }
    // Most tests do not split, and their code alone says so, before their paths are
    // computed.
    if let Some(bits) = sketch(program)?
        && (entangled(&bits) || plan(program, &uses_of(&bits)).is_none())
    {
        return None;
    }
    let uses = uses(program)?;
    let plan = plan(program, &uses)?;
    match count(program, model, &options.limits, &uses, &plan) {
        Ok(r) => r.map(Ok),
        Err(GiveUp) => None,
        Err(Halt::Overflow(span)) => Some(Err(RunError {
            message: format!(
                "the test has more than {} allowed executions, more than hazmat counts",
                u128::MAX
            ),
            span,
            herd7: None,
        })),
    }
}

/// Per thread, the locations its code reads and those it writes, as bits: `None` when
/// the code has something a split cannot carry, `Some(None)` when the code cannot say (an
/// address that is not a constant, more than 128 locations or threads).
/// The code has every access any path makes, so a cut [`plan`] keeps on the paths' uses
/// is one it keeps on these, every access counted once.
fn sketch(program: &Program) -> Option<Option<Vec<(u128, u128)>>> {
    fn walk(code: &[Instr], bits: &mut (u128, u128)) -> Option<bool> {
        for i in code {
            let (addr, read, write) = match &i.op {
                Op::Let { .. } | Op::Fence { .. } => continue,
                Op::Load { addr, .. } => (addr, true, false),
                Op::Store { addr, .. } => (addr, false, true),
                Op::Rmw { addr, .. }
                | Op::Cmpxchg { addr, .. }
                | Op::CompareExchange { addr, .. }
                | Op::AddUnless { addr, .. } => (addr, true, true),
                Op::If { then, els, .. } => {
                    if !(walk(then, bits)? && walk(els, bits)?) {
                        return Some(false);
                    }
                    continue;
                }
                _ => return None,
            };
            let Expr::Const(Value::Addr(l)) = addr else {
                return Some(false);
            };
            let Some(bit) = 1u128.checked_shl(l.0) else {
                return Some(false);
            };
            if read {
                bits.0 |= bit;
            }
            if write {
                bits.1 |= bit;
            }
        }
        Some(true)
    }
    let mut all = Vec::with_capacity(program.threads.len());
    for t in &program.threads {
        let mut bits = (0, 0);
        if !walk(&t.code, &mut bits)? {
            return Some(None);
        }
        all.push(bits);
    }
    Some((all.len() <= 128).then_some(all))
}

/// The group of thread `t` in the union-find forest `g` (each thread's parent; a root is
/// its own), shortening its path.
fn find(g: &mut [usize], t: usize) -> usize {
    let mut r = t;
    while g[r] != r {
        r = g[r];
    }
    g[t] = r;
    r
}

/// Puts the groups of threads `a` and `b` together, under the smaller root.
fn join(g: &mut [usize], a: usize, b: usize) {
    let (a, b) = (find(g, a), find(g, b));
    g[a.max(b)] = a.min(b);
}

/// Whether no cut can be kept, from the threads' reads and writes as bits ([`sketch`]):
/// when the threads are connected by pairs that share two locations, or that access one
/// location that has two writers, or one writer and two other accessors (so it is no
/// channel), every cut has such a pair across it.
fn entangled(bits: &[(u128, u128)]) -> bool {
    let n = bits.len();
    let mut group: Vec<usize> = (0..n).collect();
    let access: Vec<u128> = bits.iter().map(|b| b.0 | b.1).collect();
    let all = access.iter().fold(0u128, |m, b| m | b);
    for l in ones(all) {
        let mut accessors = (0..n).filter(|&t| access[t] >> l & 1 == 1);
        let writers = bits.iter().filter(|b| b.1 >> l & 1 == 1).count();
        let count = accessors.clone().count();
        if writers >= 2 || (writers == 1 && count >= 3) {
            let first = accessors.next().expect("an accessor");
            for t in accessors {
                join(&mut group, first, t);
            }
        }
    }
    for t in 0..n {
        for u in t + 1..n {
            if (access[t] & access[u]).count_ones() >= 2 {
                join(&mut group, t, u);
            }
        }
    }
    (1..n).all(|t| find(&mut group, t) == find(&mut group, 0))
}

/// The positions of the bits set in `m`, lowest first.
fn ones(mut m: u128) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        let l = m.trailing_zeros();
        m &= m.wrapping_sub(1);
        (l < 128).then_some(l)
    })
}

/// The uses [`sketch`]'s bits stand for, every access counted once.
fn uses_of(bits: &[(u128, u128)]) -> Vec<Uses> {
    let map = |m: u128| ones(m).map(|l| (Loc(l), 1)).collect();
    bits.iter()
        .map(|&(reads, writes)| Uses {
            reads: map(reads),
            writes: map(writes),
        })
        .collect()
}

/// Each thread's uses of the locations, or `None` when a path has something a split
/// cannot carry.
fn uses(program: &Program) -> Option<Vec<Uses>> {
    let mut all = Vec::with_capacity(program.threads.len());
    for t in &program.threads {
        let ps =
            paths::thread_paths(t, &[], &[], &program.addr_order, &paths::Wide::default()).ok()?;
        let mut u = Uses::default();
        for p in &ps {
            if p.cutoff.is_some()
                || p.escape.is_some()
                || p.breaks_lock_axiom
                || p.constraints.iter().any(|c| c.kind == Assumption::Address)
            {
                return None;
            }
            let mut writes: BTreeMap<Loc, usize> = BTreeMap::new();
            let mut reads: BTreeMap<Loc, usize> = BTreeMap::new();
            let allowed = Tags::of(&ALLOWED);
            for e in &p.events {
                if Tag::ALL.iter().any(|&t| e.tags.has(t) && !allowed.has(t)) {
                    return None;
                }
                let counts = match e.kind {
                    EventKind::Fence => continue,
                    EventKind::Read => &mut reads,
                    EventKind::Write => &mut writes,
                };
                let loc = e.loc?;
                if program.locs[loc.0 as usize].spinlock || !MARKED.iter().any(|&t| e.tags.has(t)) {
                    return None;
                }
                *counts.entry(loc).or_default() += 1;
            }
            for (l, n) in writes {
                let m = u.writes.entry(l).or_default();
                *m = (*m).max(n);
            }
            for (l, n) in reads {
                let m = u.reads.entry(l).or_default();
                *m = (*m).max(n);
            }
        }
        all.push(u);
    }
    Some(all)
}

/// Finds the pieces: `None` when the test does not split.
fn plan(program: &Program, uses: &[Uses]) -> Option<Plan> {
    let n = uses.len();
    if n < 2 {
        return None;
    }
    let nlocs = program.locs.len();
    let mut writers: Vec<Vec<usize>> = vec![Vec::new(); nlocs];
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); nlocs];
    for (t, u) in uses.iter().enumerate() {
        for l in u.writes.keys() {
            writers[l.0 as usize].push(t);
        }
        for l in u.reads.keys() {
            readers[l.0 as usize].push(t);
        }
    }
    // Threads that write one location go together.
    let mut group: Vec<usize> = (0..n).collect();
    for ws in &writers {
        for &w in ws.iter().skip(1) {
            join(&mut group, ws[0], w);
        }
    }
    // The groups in an order that puts every writer's group before its readers' (the
    // smallest thread first among those free to go); groups that pass values round a
    // cycle go together, until there is such an order.
    let (roots, order) = loop {
        let roots: Vec<usize> = (0..n).map(|t| find(&mut group, t)).collect();
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut preds = vec![0usize; n];
        for (ws, rs) in writers.iter().zip(&readers) {
            if let Some(&w) = ws.first() {
                for &r in rs {
                    if roots[r] != roots[w] && !succ[roots[w]].contains(&roots[r]) {
                        succ[roots[w]].push(roots[r]);
                        preds[roots[r]] += 1;
                    }
                }
            }
        }
        let mut free: BTreeSet<usize> =
            (0..n).filter(|&g| roots[g] == g && preds[g] == 0).collect();
        let mut order = Vec::new();
        while let Some(g) = free.pop_first() {
            order.push(g);
            for &h in &succ[g] {
                preds[h] -= 1;
                if preds[h] == 0 {
                    free.insert(h);
                }
            }
        }
        if order.len() == (0..n).filter(|&g| roots[g] == g).count() {
            break (roots, order);
        }
        // The groups left over are on cycles or after them: merge the groups of one
        // cycle.
        let reach = |from: usize| {
            let mut seen = vec![false; n];
            let mut stack = vec![from];
            while let Some(g) = stack.pop() {
                for &h in &succ[g] {
                    if !seen[h] {
                        seen[h] = true;
                        stack.push(h);
                    }
                }
            }
            seen
        };
        let on_cycle = (0..n)
            .filter(|&g| roots[g] == g && preds[g] > 0)
            .find(|&g| reach(g)[g])?;
        let from = reach(on_cycle);
        for (g, _) in from.iter().enumerate().filter(|&(_, &r)| r) {
            if reach(g)[on_cycle] {
                join(&mut group, on_cycle, g);
            }
        }
    };
    let mut pos = vec![0; n];
    for (i, &g) in order.iter().enumerate() {
        pos[g] = i;
    }
    let at = |t: usize| pos[roots[t]];
    // The cuts worth keeping: those with at most one channel, used once on each side.
    let mut crossing: Vec<Vec<Loc>> = vec![Vec::new(); order.len().saturating_sub(1)];
    for (l, (ws, rs)) in writers.iter().zip(&readers).enumerate() {
        if let Some(&w) = ws.first() {
            let last = rs.iter().map(|&r| at(r)).max().unwrap_or(0);
            for c in crossing.iter_mut().take(last).skip(at(w)) {
                c.push(Loc(l as u32));
            }
        }
    }
    let mut pieces = vec![Vec::new()];
    let mut cuts = Vec::new();
    for (j, &g) in order.iter().enumerate() {
        pieces
            .last_mut()
            .expect("one piece at least")
            .extend((0..n).filter(|&t| roots[t] == g));
        let Some(across) = crossing.get(j) else {
            break;
        };
        let channel = match across[..] {
            [] => Some(None),
            [l] => {
                // One writer, and one reader besides it (after the cut, then).
                let ws = &writers[l.0 as usize];
                let rs: Vec<usize> = readers[l.0 as usize]
                    .iter()
                    .copied()
                    .filter(|t| !ws.contains(t))
                    .collect();
                match (&ws[..], &rs[..]) {
                    (&[writer], &[reader])
                        if uses[writer].writes[&l] == 1 && uses[reader].reads[&l] == 1 =>
                    {
                        Some(Some(Channel {
                            loc: l,
                            writer,
                            reader,
                        }))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some(c) = channel {
            cuts.push(c);
            pieces.push(Vec::new());
        }
    }
    if cuts.is_empty() {
        return None;
    }
    Some(Plan { pieces, cuts })
}

/// Runs the plan: the outcome, `Ok(None)` when the test turns out to have no allowed
/// execution (which the whole enumeration then reports as it does), or why it halted.
fn count(
    program: &Program,
    model: &dyn MemoryModel,
    limits: &Limits,
    uses: &[Uses],
    plan: &Plan,
) -> Result<Option<Outcome>, Halt> {
    let n = program.threads.len();
    let mut piece_of = vec![0; n];
    for (k, p) in plan.pieces.iter().enumerate() {
        for &t in p {
            piece_of[t] = k;
        }
    }
    // The piece that owns each shown cell: a register's thread's, a location's writers'
    // (they are all in one piece), the first for a location no thread writes.
    let owner: Vec<usize> = program
        .shown
        .iter()
        .map(|&c| match c {
            Cell::Reg { thread, .. } => piece_of[thread],
            Cell::Loc(l) => (0..n)
                .find(|&t| uses[t].writes.contains_key(&l))
                .map_or(0, |t| piece_of[t]),
            Cell::Missing(_) => 0,
        })
        .collect();
    let mut stats = Stats::default();
    let mut table: HashMap<Key, u128> = HashMap::new();
    table.insert((vec![None; program.shown.len()], None), 1);
    for (k, threads) in plan.pieces.iter().enumerate() {
        let incoming = k.checked_sub(1).and_then(|c| plan.cuts[c]);
        let outgoing = plan.cuts.get(k).copied().flatten();
        let consumed = incoming.filter(|c| threads.contains(&c.reader));
        let produced = outgoing.filter(|c| threads.contains(&c.writer));
        let mut keep = vec![false; n];
        for &t in threads {
            keep[t] = true;
        }
        let owned: Vec<usize> = (0..owner.len()).filter(|&i| owner[i] == k).collect();
        let overflow = Halt::Overflow(first_instruction(program, threads));
        let piece = Piece {
            program,
            model,
            limits,
            owned: &owned,
            produced,
        };
        // The executions that do not read the channel's write, and those that read each
        // value of it the table holds.
        let alone = match piece.run(&sub_program(program, &keep, None), None, &mut stats)? {
            Runs::Done(found) => found,
            Runs::Stopped(why) => return Ok(Some(stopped(stats, why))),
        };
        let mut reading: HashMap<Value, Found> = HashMap::new();
        if let Some(c) = consumed {
            let values: BTreeSet<Value> = table.keys().filter_map(|k| k.1).collect();
            for v in values {
                // An address passed on would make the piece's test point where the whole
                // test does not.
                if !matches!(v, Value::Int(_)) {
                    return Err(GiveUp);
                }
                let p = sub_program(program, &keep, Some((c.writer, c.loc, v)));
                match piece.run(&p, Some(c.loc), &mut stats)? {
                    Runs::Done(found) => reading.insert(v, found),
                    Runs::Stopped(why) => return Ok(Some(stopped(stats, why))),
                };
            }
        }
        let mut next: HashMap<Key, u128> = HashMap::new();
        for ((state, pending), &ca) in &table {
            let mut join = |(cells, out): &(Vec<Value>, Option<Value>), cb: u128| {
                let mut s = state.clone();
                for (&i, &v) in owned.iter().zip(cells) {
                    s[i] = Some(v);
                }
                // A channel the piece neither reads nor writes passes on.
                let pending = if produced.is_some() {
                    *out
                } else if consumed.is_some() {
                    None
                } else {
                    *pending
                };
                let c = ca.checked_mul(cb).ok_or(overflow)?;
                let e = next.entry((s, pending)).or_default();
                *e = e.checked_add(c).ok_or(overflow)?;
                Ok::<(), Halt>(())
            };
            for (key, &cb) in &alone {
                join(key, cb)?;
            }
            if let Some(v) = pending
                && consumed.is_some()
            {
                for (key, &cb) in reading.get(v).into_iter().flatten() {
                    join(key, cb)?;
                }
            }
        }
        table = next;
    }
    let mut states = BTreeSet::new();
    let (mut positive, mut negative) = (0u128, 0u128);
    let last = Halt::Overflow(first_instruction(
        program,
        plan.pieces.last().expect("one piece at least"),
    ));
    for ((state, _), &c) in &table {
        let state: Vec<Value> = state
            .iter()
            .map(|v| v.ok_or(GiveUp))
            .collect::<Result<_, _>>()?;
        let get = |cell: Cell| {
            let i = program.shown.iter().position(|&s| s == cell);
            state[i.expect("the condition's cells are shown")]
        };
        if program.condition.prop.eval(&get) {
            positive = positive.checked_add(c).ok_or(last)?;
        } else {
            negative = negative.checked_add(c).ok_or(last)?;
        }
        states.insert(state);
    }
    if positive == 0 && negative == 0 {
        return Ok(None);
    }
    let (states, states_left_out) = herd7_order_by(program, states, true, limits.deadline);
    Ok(Some(Outcome {
        states,
        states_left_out,
        positive,
        negative,
        flags: Vec::new(),
        stats,
        unknown: None,
        cut_short: false,
        speedcheck: None,
        pieces: plan.pieces.len(),
    }))
}

/// What a timed-out split run reports: what the whole enumeration reports when a limit
/// stops it, with the counts so far.
fn stopped(stats: Stats, why: String) -> Outcome {
    Outcome {
        states: Vec::new(),
        positive: 0,
        negative: 0,
        flags: Vec::new(),
        stats,
        unknown: Some(why),
        cut_short: false,
        speedcheck: None,
        pieces: 1,
        states_left_out: 0,
    }
}

/// The source of the first instruction of the first of `threads` that has one.
fn first_instruction(program: &Program, threads: &[usize]) -> (usize, usize) {
    threads
        .iter()
        .find_map(|&t| program.threads[t].code.first())
        .map_or((0, 0), |i| i.span)
}

/// The test with only the threads of `keep` left, the others emptied, and `ext`'s thread,
/// if any, replaced by one `WRITE_ONCE` of the value to the location.
fn sub_program(program: &Program, keep: &[bool], ext: Option<(usize, Loc, Value)>) -> Program {
    let mut p = program.clone();
    for (t, code) in p.threads.iter_mut().enumerate() {
        if !keep[t] {
            code.code.clear();
            code.statements.clear();
        }
    }
    if let Some((t, loc, v)) = ext {
        p.threads[t].code = vec![Instr {
            op: Op::Store {
                addr: Expr::Const(Value::Addr(loc)),
                val: Expr::Const(v),
                tags: Tags::of(&[Tag::Once]),
                write_back: false,
            },
            span: (0, 0),
            stmt: 0,
        }];
        p.threads[t].statements = vec![Statement::Plain(0)];
    }
    p
}

/// What one piece's enumeration gives: its executions, or why a limit stopped it.
enum Runs {
    Done(Found),
    Stopped(String),
}

/// A piece's executions by the values of the cells it owns and the value of its channel's
/// write, with their numbers.
type Found = HashMap<(Vec<Value>, Option<Value>), u128>;

/// One piece of a plan, as [`count`] enumerates it.
struct Piece<'a> {
    program: &'a Program,
    model: &'a dyn MemoryModel,
    limits: &'a Limits,
    /// The shown cells it owns.
    owned: &'a [usize],
    /// The channel it writes, if any.
    produced: Option<Channel>,
}

impl Piece<'_> {
    /// Enumerates `sub`, a piece's test: with `reading`, only the executions whose read of
    /// that location reads a thread's write.
    fn run(&self, sub: &Program, reading: Option<Loc>, stats: &mut Stats) -> Result<Runs, Halt> {
        let mut found = Found::new();
        let mut failed = false;
        let (s, stop) = enumerate(sub, self.model, self.limits, None, &mut |x| {
            if let Some(l) = reading
                && !x.traffic(l).1
            {
                return crate::engine::enumerate::Flow::Continue;
            }
            let cells: Vec<Value> = self
                .owned
                .iter()
                .map(|&i| x.value(self.program.shown[i]))
                .collect();
            let out = match self.produced {
                None => None,
                Some(c) => match x.traffic(c.loc).0 {
                    0 => None,
                    _ => Some(x.value(Cell::Loc(c.loc))),
                },
            };
            if !x.judgement.flags.is_empty()
                || cells.iter().chain(&out).any(|v| matches!(v, Value::Sym(_)))
            {
                failed = true;
                return crate::engine::enumerate::Flow::Stop;
            }
            *found.entry((cells, out)).or_default() += 1;
            crate::engine::enumerate::Flow::Continue
        })
        .map_err(|_| GiveUp)?;
        if failed {
            return Err(GiveUp);
        }
        stats.add(&s);
        Ok(match stop {
            Some(Stop::Limit(why)) => Runs::Stopped(why),
            Some(Stop::Done) | None => Runs::Done(found),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(src: &str) -> Program {
        let test = hazmat_litmus::parse(src).expect("parses");
        crate::front::lower::lower(&test).expect("lowers")
    }

    fn plan_of(src: &str) -> Option<Plan> {
        let p = program(src);
        plan(&p, &uses(&p)?)
    }

    fn splits(src: &str) -> bool {
        plan_of(src).is_some()
    }

    #[test]
    fn a_value_chain_splits_at_every_thread() {
        let plan = plan_of(
            "C chain\n{}\nP0(int *x0) { WRITE_ONCE(*x0, 1); }\n\
             P1(int *x0, int *x1) { int r0 = READ_ONCE(*x0); WRITE_ONCE(*x1, r0); }\n\
             P2(int *x1, int *y) { int r0 = READ_ONCE(*x1); WRITE_ONCE(*y, r0); }\n\
             exists (y=1)\n",
        )
        .expect("splits");
        assert_eq!(plan.pieces, vec![vec![0], vec![1], vec![2]]);
        assert_eq!(plan.cuts.len(), 2);
        assert_eq!(plan.cuts[0].map(|c| (c.writer, c.reader)), Some((0, 1)));
    }

    #[test]
    fn message_passing_does_not_split() {
        // Two locations cross the only cut.
        assert!(!splits(
            "C MP\n{}\nP0(int *x, int *y) { WRITE_ONCE(*x, 1); WRITE_ONCE(*y, 1); }\n\
             P1(int *x, int *y) { int r0 = READ_ONCE(*y); int r1 = READ_ONCE(*x); }\n\
             exists (1:r0=1 /\\ 1:r1=0)\n",
        ));
    }

    #[test]
    fn two_reads_of_the_channel_do_not_split() {
        assert!(!splits(
            "C CoRR\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\n\
             P1(int *x) { int r0 = READ_ONCE(*x); int r1 = READ_ONCE(*x); }\n\
             exists (1:r0=1 /\\ 1:r1=0)\n",
        ));
    }

    #[test]
    fn a_channel_with_a_third_reader_does_not_split() {
        // WRC: x is read by both other threads, so no cut has one channel, and the code
        // alone says so.
        let src = "C WRC\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\n\
                   P1(int *x, int *y) { int r0 = READ_ONCE(*x); WRITE_ONCE(*y, 1); }\n\
                   P2(int *x, int *y) { int r0 = READ_ONCE(*y); int r1 = READ_ONCE(*x); }\n\
                   exists (1:r0=1 /\\ 2:r0=1 /\\ 2:r1=0)\n";
        assert!(!splits(src));
        let bits = sketch(&program(src)).flatten().expect("constant addresses");
        assert!(entangled(&bits));
    }

    #[test]
    fn the_code_alone_keeps_a_chain() {
        let src = "C chain\n{}\nP0(int *x0) { WRITE_ONCE(*x0, 1); }\n\
                   P1(int *x0, int *x1) { int r0 = READ_ONCE(*x0); WRITE_ONCE(*x1, r0); }\n\
                   P2(int *x1, int *y) { int r0 = READ_ONCE(*x1); WRITE_ONCE(*y, r0); }\n\
                   exists (y=1)\n";
        let bits = sketch(&program(src)).flatten().expect("constant addresses");
        assert!(!entangled(&bits));
        assert!(plan(&program(src), &uses_of(&bits)).is_some());
    }

    #[test]
    fn the_code_alone_never_rejects_a_test_that_splits() {
        use crate::testkit::generate::{self, Class, Config};
        let config = Config {
            max_vars: 5,
            without: vec![
                Class::Plain,
                Class::Lock,
                Class::Rcu,
                Class::Srcu,
                Class::Loop,
            ],
            ..Config::lkmm()
        };
        let mut split = 0;
        for seed in 0..2000 {
            let name = format!("G{seed}");
            let test = generate::from_seed(seed, config.clone()).to_test(&name);
            let Ok(p) = crate::front::lower::lower(&test) else {
                continue;
            };
            let Some(exact) = uses(&p).and_then(|u| plan(&p, &u)) else {
                continue;
            };
            split += 1;
            if let Some(Some(bits)) = sketch(&p) {
                assert!(!entangled(&bits), "seed {seed}: {exact:?}");
                assert!(plan(&p, &uses_of(&bits)).is_some(), "seed {seed}");
            }
        }
        assert!(split > 200, "only {split} programs split");
    }

    #[test]
    fn plain_accesses_do_not_split() {
        assert!(!splits(
            "C plain\n{}\nP0(int *x) { *x = 1; }\n\
             P1(int *x) { int r0 = READ_ONCE(*x); }\n\
             exists (1:r0=1)\n",
        ));
    }

    #[test]
    fn independent_threads_split_with_no_channel() {
        let plan = plan_of(
            "C two\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); int r0 = READ_ONCE(*x); }\n\
             P1(int *y) { WRITE_ONCE(*y, 1); int r0 = READ_ONCE(*y); }\n\
             exists (0:r0=1 /\\ 1:r0=1)\n",
        )
        .expect("splits");
        assert_eq!(plan.cuts, vec![None]);
    }

    #[test]
    fn load_buffering_is_one_piece() {
        // Each thread reads what the other writes: a cycle, so one group.
        assert!(!splits(
            "C LB\n{}\nP0(int *x, int *y) { int r0 = READ_ONCE(*x); WRITE_ONCE(*y, 1); }\n\
             P1(int *x, int *y) { int r0 = READ_ONCE(*y); WRITE_ONCE(*x, 1); }\n\
             exists (0:r0=1 /\\ 1:r0=1)\n",
        ));
    }
}
