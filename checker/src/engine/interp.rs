//! The operational engine: a program's threads run as shuttle tasks, under shuttle's
//! exhaustive depth-first scheduler.
//!
//! This is a second, independent way of deciding a test under sequential consistency,
//! which the differential tests hold against the axiomatic [`crate::models::sc::Sc`] model.
//! Where the axiomatic engine builds candidate executions (thread paths, `rf`, `co`) and
//! asks whether `po ∪ rf ∪ co ∪ fr` is acyclic, this engine simply runs the program: each
//! thread is a shuttle task interpreting its instructions over one shared memory, every
//! memory access is preceded by a scheduling point, and the DFS scheduler tries every
//! interleaving of those points.
//! The final state of each interleaving is recorded; the distinct executions behind the
//! interleavings (which write each read took, and the order of the writes to each
//! location) are counted once each, so the counts match herd7's, which count executions.
//!
//! Only the parser and the lowering are shared with the axiomatic engine; the enumeration,
//! the relations and the model are not.
//!
//! # Gaps
//! - It is sequentially consistent by construction: fences, acquire and release are no-ops,
//!   and it can only be compared with `--model sc`.
//! - Spinlocks (`spin_lock`, `spin_unlock`, `spin_trylock`, `spin_is_locked`) are refused
//!   with an error: their `lock.cat` semantics are not those of a simple interleaving.
//! - RCU read-side markers and `synchronize_rcu()` are fences, hence no-ops, as the SC
//!   model treats them; `synchronize_srcu()` likewise.
//! - An access whose address is not a location, or an operation without meaning (division
//!   by zero, arithmetic on addresses), ends the interleaving without a final state, as
//!   the axiomatic engine drops the candidate.
//!
//! # Complexity
//! The number of interleavings is the multinomial coefficient of the threads' access
//! counts (for 3 threads of 3 accesses, 1680), with no partial-order reduction: meant for
//! small tests; [`Limits`] bound it.

use crate::engine::enumerate::{Limits, RunError, Stats};
use crate::engine::outcome::Outcome;
use crate::engine::paths::truth;
use crate::exec::event::{Loc, Value};
use crate::front::program::{
    BinOp, Cell, Expr, Instr, Op, Program, Quantifier, RmwWrite, apply_binary, apply_unary,
};
use shuttle::scheduler::{DfsScheduler, Schedule, Scheduler, Task, TaskId};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

/// A write: the thread and the write's number in it; `None` is the initial write.
type WriteId = Option<(usize, u32)>;

/// The identity of one execution: the write each read took, per thread in program order,
/// and the coherence order of each location.
type Signature = (Vec<Vec<WriteId>>, Vec<Vec<WriteId>>);

/// The memory and the record of one interleaving.
struct Run {
    mem: Vec<Value>,
    last: Vec<WriteId>,
    co: Vec<Vec<WriteId>>,
    rf: Vec<Vec<WriteId>>,
    writes: Vec<u32>,
    regs: Vec<Vec<Value>>,
    /// The locations no write has reached yet among herd7's locations next to a variable
    /// (`y+1`), which have no initial write.
    unwritten: Vec<bool>,
    /// The interleaving did something without meaning; it has no final state.
    bad: bool,
}

/// What the engine found over all interleavings.
#[derive(Default)]
struct Found {
    executions: BTreeMap<Signature, Vec<Value>>,
    interleavings: u64,
    error: Option<RunError>,
}

/// Checks `program` by running every interleaving of its threads under sequential
/// consistency, and sums up the final states as [`crate::engine::decide::run`] does.
///
/// The limits bound the interleavings explored (`max_executions`) and the time; when one
/// stops the search, the outcome is `Unknown` with the reason.
/// `stats.candidates` counts interleavings, `stats.allowed` distinct executions.
pub fn run(program: &Program, limits: &Limits) -> Result<Outcome, RunError> {
    run_counting(program, limits, false)
}

/// [`run`], counting only the executions that can decide the condition when
/// `deciding_only` is set ([`crate::engine::outcome::Options::deciding_only`]).
pub fn run_counting(
    program: &Program,
    limits: &Limits,
    deciding_only: bool,
) -> Result<Outcome, RunError> {
    refuse_unsupported(program)?;
    let program = Arc::new(program.clone());
    let found = Arc::new(Mutex::new(Found::default()));
    let exhausted = Arc::new(Mutex::new(false));
    let deadline = limits.deadline;
    let body = {
        let program = Arc::clone(&program);
        let found = Arc::clone(&found);
        move || one_interleaving(&program, &found)
    };
    let scheduler = Exhaustive {
        dfs: DfsScheduler::new(None, false),
        max: limits.max_executions,
        exhausted: Arc::clone(&exhausted),
        deadline,
        started: 0,
    };
    let mut config = shuttle::Config::new();
    config.failure_persistence = shuttle::FailurePersistence::None;
    config.silence_warnings = true;
    shuttle::Runner::new(scheduler, config).run(body);

    let found = std::mem::take(&mut *lock(&found));
    if let Some(e) = found.error {
        return Err(e);
    }
    let unknown = if *lock(&exhausted) {
        None
    } else if deadline.is_some_and(|d| Instant::now() >= d) {
        Some("timeout".to_string())
    } else {
        Some(format!(
            "{} interleavings",
            limits.max_executions.unwrap_or(found.interleavings)
        ))
    };
    Ok(summarise(&program, found, unknown, deciding_only))
}

/// Sums up the executions found, as the axiomatic engine does: with `deciding_only`,
/// those that can decide the condition only.
fn summarise(
    program: &Program,
    found: Found,
    unknown: Option<String>,
    deciding_only: bool,
) -> Outcome {
    let mut states = BTreeSet::new();
    let (mut positive, mut negative) = (0, 0);
    let index: BTreeMap<Cell, usize> = all_cells(program)
        .into_iter()
        .enumerate()
        .map(|(i, c)| (c, i))
        .collect();
    for values in found.executions.values() {
        // A register of a thread the test does not have holds 0.
        let get = |c: Cell| index.get(&c).map_or(Value::Int(0), |&i| values[i]);
        if let Some(f) = program.applied_filter()
            && !f.eval(&get)
        {
            continue;
        }
        let sat = program.condition.prop.eval(&get);
        if deciding_only && sat == (program.condition.quantifier == Quantifier::Forall) {
            continue;
        }
        states.insert(program.shown.iter().map(|&c| get(c)).collect::<Vec<_>>());
        if sat {
            positive += 1;
        } else {
            negative += 1;
        }
    }
    let states = crate::engine::outcome::herd7_order(program, states);
    Outcome {
        states,
        positive,
        negative,
        flags: Vec::new(),
        stats: Stats {
            path_combinations: 0,
            candidates: found.interleavings,
            pruned: 0,
            partial: 0,
            unions: 0,
            vouched: 0,
            counted: 0,
            allowed: found.executions.len() as u64,
            images: 0,
            nodes: 0,
            removed: Default::default(),
            nowhere_at: None,
            unnamed_at: None,
        },
        unknown,
        cut_short: false,
        pieces: 1,
        // The shuttle engine always explores every interleaving: its counts are whole.
        speedcheck: None,
        // Its tests are small: each final state costs it a whole interleaving.
        states_left_out: 0,
    }
}

/// An upper bound on the interleavings [`run`] explores for `program`: the multinomial
/// coefficient of the threads' access counts, each thread counted along its longest path
/// (saturating at `u64::MAX`).
pub fn interleavings(program: &Program) -> u64 {
    fn longest(code: &[Instr]) -> u64 {
        code.iter()
            .map(|i| match &i.op {
                Op::Let { .. } | Op::Fence { .. } | Op::SyncSrcu { .. } | Op::Srcu { .. } => 0,
                Op::If { then, els, .. } => longest(then).max(longest(els)),
                _ => 1,
            })
            .sum()
    }
    multinomial(program.threads.iter().map(|t| longest(&t.code)))
}

/// The number of interleavings of sequences of the given lengths: their multinomial
/// coefficient, saturating at `u64::MAX`.
pub(crate) fn multinomial(lengths: impl IntoIterator<Item = u64>) -> u64 {
    let mut total: u64 = 0;
    let mut product: u128 = 1;
    for n in lengths {
        // product *= C(total + n, n), one factor at a time (each step stays integral).
        for k in 1..=n {
            product = product * u128::from(total + k) / u128::from(k);
            if product > u128::from(u64::MAX) {
                return u64::MAX;
            }
        }
        total += n;
    }
    product as u64
}

/// Every cell a final state may need: all registers, then all locations.
fn all_cells(program: &Program) -> Vec<Cell> {
    let mut cells = Vec::new();
    for (thread, t) in program.threads.iter().enumerate() {
        cells.extend((0..t.regs.len()).map(|reg| Cell::Reg { thread, reg }));
    }
    cells.extend((0..program.locs.len()).map(|l| Cell::Loc(Loc(l as u32))));
    cells
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Shuttle runs one task at a time, so the lock is never contended; a poisoned lock
    // only means an earlier task panicked, and the data is still what it recorded.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Refuses the instructions this engine does not run.
fn refuse_unsupported(program: &Program) -> Result<(), RunError> {
    fn walk(code: &[Instr]) -> Result<(), RunError> {
        for i in code {
            let what = match &i.op {
                Op::Lock { .. } => "spin_lock",
                Op::Unlock { .. } => "spin_unlock",
                Op::Trylock { .. } => "spin_trylock",
                Op::IsLocked { .. } => "spin_is_locked",
                Op::If { then, els, .. } => {
                    walk(then)?;
                    walk(els)?;
                    continue;
                }
                Op::Cutoff => {
                    return Err(RunError {
                        message: "the shuttle engine does not support `while` loops".into(),
                        span: i.span,
                        herd7: None,
                    });
                }
                Op::Load { deref: true, .. } => {
                    return Err(RunError {
                        message: "the shuttle engine runs an instruction's accesses in \
                                  order, and herd7 orders nothing after the read of a \
                                  dependent load (`__load{deref}`) inside its instruction"
                            .into(),
                        span: i.span,
                        herd7: None,
                    });
                }
                _ => continue,
            };
            return Err(RunError {
                message: format!("the shuttle engine does not support spinlocks (`{what}`)"),
                span: i.span,
                herd7: None,
            });
        }
        Ok(())
    }
    program.threads.iter().try_for_each(|t| walk(&t.code))
}

/// One iteration of the DFS: spawn the threads, join them, record the final state.
fn one_interleaving(program: &Arc<Program>, found: &Arc<Mutex<Found>>) {
    let nthreads = program.threads.len();
    let run = Arc::new(Mutex::new(Run {
        mem: program.locs.iter().map(|l| l.init).collect(),
        last: vec![None; program.locs.len()],
        co: vec![Vec::new(); program.locs.len()],
        rf: vec![Vec::new(); nthreads],
        writes: vec![0; nthreads],
        regs: program.threads.iter().map(|t| t.init.clone()).collect(),
        unwritten: program.locs.iter().map(|l| l.next_to.is_some()).collect(),
        bad: false,
    }));
    let handles: Vec<_> = (0..nthreads)
        .map(|t| {
            let program = Arc::clone(program);
            let run = Arc::clone(&run);
            let found = Arc::clone(found);
            shuttle::thread::spawn(move || {
                let mut thread = ThreadRun {
                    program: &program,
                    thread: t,
                    regs: program.threads[t].init.clone(),
                    run: &run,
                    first: true,
                };
                match thread.block(&program.threads[t].code) {
                    Ok(true) => lock(&run).regs[t] = thread.regs,
                    Ok(false) => lock(&run).bad = true,
                    Err(e) => {
                        lock(&run).bad = true;
                        lock(&found).error.get_or_insert(e);
                    }
                }
            })
        })
        .collect();
    for h in handles {
        // A task only ends by returning: the interpreter does not panic.
        let _ = h.join();
    }
    let run = lock(&run);
    let mut found = lock(found);
    found.interleavings += 1;
    if run.bad {
        return;
    }
    let mut values = Vec::new();
    for (t, regs) in run.regs.iter().enumerate() {
        values.extend(regs.iter().copied());
        debug_assert_eq!(regs.len(), program.threads[t].regs.len());
    }
    values.extend(run.mem.iter().copied());
    found
        .executions
        .entry((run.rf.clone(), run.co.clone()))
        .or_insert(values);
}

/// One thread's interpreter.
struct ThreadRun<'a> {
    program: &'a Program,
    thread: usize,
    regs: Vec<Value>,
    run: &'a Mutex<Run>,
    /// No access made yet: the task's start is the scheduling point before the first.
    first: bool,
}

impl ThreadRun<'_> {
    /// Runs `code`; `Ok(false)` when the run has no meaning (see the module notes).
    fn block(&mut self, code: &[Instr]) -> Result<bool, RunError> {
        for i in code {
            if !self.instr(i)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn eval(&self, e: &Expr) -> Option<Value> {
        match e {
            Expr::Const(v) => Some(*v),
            Expr::Reg(r) => Some(self.regs[*r]),
            Expr::Unary(op, a) => apply_unary(*op, self.eval(a)?),
            Expr::Binary(op, a, b) => {
                apply_binary(*op, self.eval(a)?, self.eval(b)?, &self.program.addr_order)
            }
        }
    }

    fn set(&mut self, dst: Option<usize>, v: Value) {
        if let Some(r) = dst {
            self.regs[r] = v;
        }
    }

    /// The scheduling point before an access, then the memory, held for the access.
    fn access(&mut self) -> MutexGuard<'_, Run> {
        if !self.first {
            shuttle::thread::yield_now();
        }
        self.first = false;
        lock(self.run)
    }

    fn instr(&mut self, i: &Instr) -> Result<bool, RunError> {
        let t = self.thread;
        let order = &self.program.addr_order;
        // Evaluates an expression, or ends the run when it has no meaning.
        macro_rules! eval {
            ($e:expr) => {
                match self.eval($e) {
                    Some(v) => v,
                    None => return Ok(false),
                }
            };
        }
        macro_rules! loc {
            ($e:expr) => {
                match self.eval($e) {
                    Some(Value::Addr(l)) => l.0 as usize,
                    // herd7's location next to a variable, when the program has it.
                    Some(Value::Shifted(base, offset)) => match self.program.adjacent(base, offset) {
                        Some(l) => l.0 as usize,
                        None => return Ok(false),
                    },
                    _ => return Ok(false),
                }
            };
        }
        match &i.op {
            Op::Let { dst, val } => {
                let v = eval!(val);
                self.regs[*dst] = v;
            }
            Op::Load { dst, addr, .. } => {
                let l = loc!(addr);
                let v = self.access().read(t, l);
                self.set(*dst, v);
            }
            Op::Store { addr, val, .. } => {
                let l = loc!(addr);
                let v = eval!(val);
                self.access().write(t, l, v);
            }
            Op::Fence { .. } | Op::SyncSrcu { .. } => {}
            // An SRCU event of the files before 2023 touches no memory: it only carries
            // its value.
            Op::Srcu { dst, value, .. } => {
                let v = eval!(value);
                if let Some(d) = dst {
                    self.regs[*d] = v;
                }
            }
            Op::Cutoff => {
                return Err(RunError {
                    message: "the shuttle engine does not support `while` loops".into(),
                    span: i.span,
                    herd7: None,
                });
            }
            Op::Rmw {
                dst,
                addr,
                write,
                ret_new,
                ..
            } => {
                let l = loc!(addr);
                let operand = match write {
                    RmwWrite::Set(e) | RmwWrite::Apply(_, e) => eval!(e),
                };
                let mut run = self.access();
                let old = run.read(t, l);
                let new = match write {
                    RmwWrite::Set(_) => Some(operand),
                    RmwWrite::Apply(op, _) => apply_binary(*op, old, operand, order),
                };
                let Some(new) = new else {
                    return Ok(false);
                };
                run.write(t, l, new);
                drop(run);
                self.set(*dst, if *ret_new { new } else { old });
            }
            Op::Cmpxchg {
                dst,
                addr,
                expected,
                new,
                ..
            } => {
                let l = loc!(addr);
                let expected = eval!(expected);
                let new = eval!(new);
                let mut run = self.access();
                let old = run.read(t, l);
                if apply_binary(BinOp::Eq, old, expected, order).is_some_and(truth) {
                    run.write(t, l, new);
                }
                drop(run);
                self.set(*dst, old);
            }
            Op::CompareExchange {
                ok,
                old,
                addr,
                expected,
                desired,
                strong,
                ..
            } => {
                if !*strong {
                    return Err(RunError {
                        message: "the shuttle engine does not support a weak \
                                  compare-exchange, which may fail spuriously"
                            .into(),
                        span: i.span,
                        herd7: None,
                    });
                }
                let l = loc!(addr);
                let expected = eval!(expected);
                let desired = eval!(desired);
                let mut run = self.access();
                let value = run.read(t, l);
                let equal = apply_binary(BinOp::Eq, value, expected, order).is_some_and(truth);
                if equal {
                    run.write(t, l, desired);
                }
                drop(run);
                self.set(Some(*ok), Value::Int(equal as i64));
                self.set(Some(*old), value);
            }
            Op::AddUnless {
                dst,
                addr,
                add,
                unless,
                ..
            } => {
                let l = loc!(addr);
                let add = eval!(add);
                let unless = eval!(unless);
                let mut run = self.access();
                let old = run.read(t, l);
                let added = old != unless;
                if added {
                    let Some(new) = apply_binary(BinOp::Add, old, add, order) else {
                        return Ok(false);
                    };
                    run.write(t, l, new);
                }
                drop(run);
                self.set(*dst, Value::Int(added as i64));
            }
            Op::If { cond, then, els } => {
                let c = eval!(cond);
                let branch = if truth(c) { then } else { els };
                return self.block(branch);
            }
            Op::Lock { .. } | Op::Unlock { .. } | Op::Trylock { .. } | Op::IsLocked { .. } => {
                return Err(RunError {
                    message: "the shuttle engine does not support spinlocks".into(),
                    span: i.span,
                    herd7: None,
                });
            }
        }
        let _ = self.program;
        Ok(true)
    }
}

impl Run {
    fn read(&mut self, thread: usize, l: usize) -> Value {
        // A read of a location with no initial write, before any write: herd7 finds no
        // write for it and drops the execution.
        if self.unwritten[l] {
            self.bad = true;
        }
        self.rf[thread].push(self.last[l]);
        self.mem[l]
    }

    fn write(&mut self, thread: usize, l: usize, v: Value) {
        let id = Some((thread, self.writes[thread]));
        self.writes[thread] += 1;
        self.mem[l] = v;
        self.unwritten[l] = false;
        self.last[l] = id;
        self.co[l].push(id);
    }
}

/// Shuttle's DFS scheduler, noting whether it ran out of schedules (the search is then
/// complete), and stopping at the limits.
struct Exhaustive {
    dfs: DfsScheduler,
    max: Option<u64>,
    exhausted: Arc<Mutex<bool>>,
    deadline: Option<Instant>,
    started: u64,
}

impl Scheduler for Exhaustive {
    fn new_execution(&mut self) -> Option<Schedule> {
        let out_of_time = self.started > 0 && self.deadline.is_some_and(|d| Instant::now() >= d);
        if out_of_time || self.max.is_some_and(|m| self.started >= m) {
            return None;
        }
        let next = self.dfs.new_execution();
        match next {
            Some(_) => self.started += 1,
            None => *lock(&self.exhausted) = true,
        }
        next
    }

    fn next_task(
        &mut self,
        runnable: &[&Task],
        current: Option<TaskId>,
        is_yielding: bool,
    ) -> Option<TaskId> {
        self.dfs.next_task(runnable, current, is_yielding)
    }

    fn next_u64(&mut self) -> u64 {
        self.dfs.next_u64()
    }
}
