//! A model run by the interpreter, as a [`MemoryModel`].
//!
//! herd7 splits the work on a candidate execution in two: its own code picks the writes
//! ordinary reads read from, solves the values, and picks the final write of each location
//! the test observes; the model picks the rest with `with ... from` (the coherence order,
//! the writes lock reads read from) and judges each choice.
//! An interpreted model does the same: the enumeration hands it executions with `rf` for
//! ordinary reads, no `co`, and the final writes chosen (`CatWorld`), and the model
//! reports every completion that passes its checks ([`MemoryModel`]`::completions`).
//!
//! A model sees the execution as herd7's C front end builds it, each C11
//! read-modify-write one event (`Merge`), in whichever dialect it runs
//! ([`CatModel::in_dialect`], which says which macros give the calls their meaning).

use super::ast::Span;
use super::compile::{self, Base, Code, Slot};
use super::eval::{EvalError, Go, Kept, Machine, Val, World};
use super::merge::Merge;
use super::source::Files;
use super::stage;
use crate::exec::event::{EventKind, Tag, Tags};
use crate::exec::execution::Execution;
use crate::exec::relation::{EventSet, Relation, Width};
use crate::front::c11::Dialect;
use crate::front::variant::LkmmVersion;
use crate::models::model::{Completion, Judge, Judgement, MemoryModel};

/// A model compiled from its cat files.
#[derive(Debug)]
pub struct CatModel {
    name: &'static str,
    code: Code,
    /// The slots `co` and `rf` have at the end of the model.
    co: Option<Slot>,
    rf: Option<Slot>,
    /// The files the model was read from, for the messages of errors at run time.
    files: Files,
    /// The index of the cat file among them.
    cat: u32,
    /// This model's number (see [`MODELS`]).
    id: usize,
    /// Which macros give the tests' calls their meaning.
    dialect: Dialect,
    /// The reading of the kernel's RMW instructions its variants choose.
    lkmm: LkmmVersion,
    /// Whether the model includes a file named `lock.cat`, the kernel's judgement of
    /// spinlocks ([`MemoryModel::judges_lock_reads`]).
    lock_cat: bool,
}

impl CatModel {
    /// The model compiled from its files (a prelude first), named `name` on the command
    /// line and in `Result(name):` lines.
    pub(crate) fn new(name: &str, code: Code, files: Files, cat: u32) -> CatModel {
        let co = code.finals.get("co").copied();
        let rf = code.finals.get("rf").copied();
        CatModel {
            name: intern(name),
            code,
            co,
            rf,
            files,
            cat,
            id: MODELS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            dialect: Dialect::Kernel,
            lkmm: LkmmVersion::V2,
            lock_cat: false,
        }
    }

    /// The model, which includes the kernel's `lock.cat` when `lock_cat` holds (a file of
    /// that name: every version of it gives lock reads their writes alike).
    pub(crate) fn with_lock_cat(mut self, lock_cat: bool) -> CatModel {
        self.lock_cat = lock_cat;
        self
    }

    /// The model run under `variants`, which choose how herd7 reads the kernel's
    /// read-modify-write instructions ([`LkmmVersion::of_variants`]).
    pub(crate) fn under_variants(mut self, variants: &[String]) -> CatModel {
        self.lkmm = LkmmVersion::of_variants(variants);
        self
    }

    /// The model deciding tests whose calls `dialect` gives their meaning (herd7's
    /// `-macros`).
    pub fn in_dialect(mut self, dialect: Dialect) -> CatModel {
        self.dialect = dialect;
        self
    }

    /// The files the model was read from.
    pub fn files(&self) -> &Files {
        &self.files
    }

    /// The cat file's index among [`files`](Self::files).
    pub fn cat_file(&self) -> u32 {
        self.cat
    }

    /// A run-time error, located in the model's files.
    pub fn render_error(&self, e: &EvalError) -> String {
        super::error::model_error(&self.files, e.span, e.message.clone())
            .render(&self.files)
            .trim_end()
            .to_string()
    }
}

/// What an execution's fixed bindings depend on: the model, and what the thread paths
/// fix (the events without their values, program order, the dependencies, `rmw`).
#[derive(PartialEq)]
struct Paths<W: Width> {
    model: usize,
    events: Vec<(
        Option<usize>,
        EventKind,
        Option<crate::exec::event::Loc>,
        crate::exec::event::Tags,
    )>,
    relations: [Relation<W>; 5],
    observed: EventSet<W>,
}

impl<W: Width> Paths<W> {
    /// Whether `x`, judged by model `model`, has these paths.
    fn matches(&self, model: usize, x: &Execution<W>) -> bool {
        self.model == model
            && self.observed == x.observed
            && self.events.len() == x.events.len()
            && self
                .events
                .iter()
                .zip(&x.events)
                .all(|(p, e)| *p == (e.thread, e.kind, e.loc, e.tags))
            && self.relations[0] == x.po
            && self.relations[1] == x.rmw
            && self.relations[2] == x.addr
            && self.relations[3] == x.data
            && self.relations[4] == x.ctrl
    }

    fn of(model: usize, x: &Execution<W>) -> Paths<W> {
        Paths {
            model,
            events: x
                .events
                .iter()
                .map(|e| (e.thread, e.kind, e.loc, e.tags))
                .collect(),
            relations: [
                x.po.clone(),
                x.rmw.clone(),
                x.addr.clone(),
                x.data.clone(),
                x.ctrl.clone(),
            ],
            observed: x.observed.clone(),
        }
    }
}

/// What judging an execution of width `W` leaves for the next: the values of its fixed
/// bindings, what they depend on, and herd7's view of the execution, for a model in the
/// C11 dialect.
type Left<W> = (Paths<W>, Option<Kept<W>>, Option<Merge<W>>);

thread_local! {
    /// What the last execution this thread judged left ([`Left`], at that execution's
    /// width): the enumeration judges every candidate of one combination of thread paths
    /// in a row, at one width. The box is made when the thread first judges an execution
    /// of a width, and kept while the width stays.
    static KEPT: std::cell::RefCell<Option<Box<dyn std::any::Any>>> =
        const { std::cell::RefCell::new(None) };
}

/// Takes what the last execution this thread judged left, if it had width `W`: boxed, so
/// that taking and keeping it moves a pointer, not its relations.
fn take_left<W: Width>() -> Option<Box<Left<W>>> {
    KEPT.with(|k| {
        k.borrow_mut()
            .as_mut()?
            .downcast_mut::<Option<Box<Left<W>>>>()?
            .take()
    })
}

/// Keeps what an execution of width `W` left, for the next execution this thread judges.
fn keep_left<W: Width>(left: Box<Left<W>>) {
    KEPT.with(|k| {
        let mut k = k.borrow_mut();
        match k
            .as_mut()
            .and_then(|b| b.downcast_mut::<Option<Box<Left<W>>>>())
        {
            Some(slot) => *slot = Some(left),
            None => *k = Some(Box::new(Some(left))),
        }
    })
}

/// A number for each model built, so that a model never reuses another's values.
static MODELS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A name made `'static` once for the run, as flags and model names are.
pub(crate) fn intern(s: &str) -> &'static str {
    use std::collections::HashSet;
    use std::sync::Mutex;
    static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    let names = names.get_or_insert_with(HashSet::new);
    if let Some(n) = names.get(s) {
        return n;
    }
    let n: &'static str = Box::leak(s.to_string().into_boxed_str());
    names.insert(n);
    n
}

/// Whether `e` is an event of one of `lock.cat`'s lock classes.
fn lock_event<W: Width>(x: &Execution<W>, e: usize) -> bool {
    let ev = &x.events[e];
    [Tag::Lkr, Tag::Lkw, Tag::Ul, Tag::Lf, Tag::Rl, Tag::Ru]
        .iter()
        .any(|t| ev.has(*t))
}

/// The base values of an execution, by global slot: all of them when `all`, else only
/// those that differ between executions with the same thread paths (see
/// [`super::stage`]).
///
/// `both` are the events that are both read and write (herd7's C11 read-modify-writes,
/// see [`Merge`]); `x`'s own kind puts them among the reads.
fn base<W: Width>(
    x: &Execution<W>,
    both: &EventSet<W>,
    fw: &EventSet<W>,
    pco: &Relation<W>,
    all: bool,
) -> Vec<(usize, Val<W>)> {
    // The values that differ between executions of the same paths.
    let dynamic = |name: &str| match name {
        "rf" => Some(Val::Rel(std::rc::Rc::new(x.rf.clone()))),
        "FW" => Some(Val::Set(fw.clone())),
        "pco" => Some(Val::Rel(std::rc::Rc::new(pco.clone()))),
        _ => None,
    };
    if !all {
        return compile::BASE
            .iter()
            .enumerate()
            .filter(|(_, (name, _))| stage::DYNAMIC_BASE.contains(name))
            .filter_map(|(i, (name, _))| Some((i, dynamic(name)?)))
            .collect();
    }
    let n = x.len();
    let tagged = |t: Tag| x.tagged(t);
    // herd7's memory events are its reads and writes: not its lock events, which
    // `lock.cat` puts in `R` and `W`, and then in `M` (`let M = R | W`), itself.
    let (r, w) = reads_and_writes(x, both);
    let m = r.clone() | w.clone();
    // herd7's fences: not its SRCU events on a structure, which have a location.
    let f = x.set(|e| e.kind == EventKind::Fence && e.loc.is_none());
    let rmw_set = tagged(Tag::Rmw);
    // herd7's `annot`: the accesses and fences whose annotation list is not empty (an
    // annotation, not a C11 memory order or a lock's or SRCU structure's own action).
    let annotated = x.set(|e| match e.kind {
        EventKind::Read | EventKind::Write => {
            e.tags.iter().any(|t| t.spelling().is_some()) || e.tags.has_other()
        }
        // A C11 fence carries a memory order, and an SRCU event on a structure is not a
        // fence to herd7.
        EventKind::Fence => e.loc.is_none() && !e.tags.iter().any(Tag::is_c11_order),
    });
    // herd7's atomic accesses (its C front end's `A`): C11's accesses with an order, its
    // read-modify-writes among them; not the reads and writes of the kernel's
    // read-modify-write instructions, which carry an annotation rather than an order.
    let atomic = |m: &EventSet<W>| {
        let mut a = x.set(|e| e.tags.iter().any(Tag::is_c11_order));
        a.inter_with(m);
        a
    };
    // `lock.cat` makes the lock read and write one RMW itself.
    let mut rmw = x.rmw.clone();
    for (a, b) in x.rmw.pairs().collect::<Vec<_>>() {
        if lock_event(x, a) || lock_event(x, b) {
            rmw.remove(a, b);
        }
    }
    compile::BASE
        .iter()
        .enumerate()
        .map(|(i, (name, b))| {
            (
                i,
                match b {
                    _ if stage::DYNAMIC_BASE.contains(name)
                        && let Some(v) = dynamic(name) =>
                    {
                        v
                    }
                    Base::Builtin(f) => Val::Builtin(*f),
                    Base::Exec(name) => {
                        match *name {
                            "M" => Val::Set(m.clone()),
                            "R" => Val::Set(r.clone()),
                            "W" => Val::Set(w.clone()),
                            "F" => Val::Set(f.clone()),
                            "IW" => Val::Set(tagged(Tag::Init)),
                            "RMW" => Val::Set(rmw_set.clone()),
                            "LK" => Val::Set(tagged(Tag::Lkr) | tagged(Tag::Lkw)),
                            // herd7's successful C11 mutex locks: hazmat has none.
                            "LS" => Val::Set(EventSet::EMPTY),
                            "LKR" => Val::Set(tagged(Tag::Lkr)),
                            "LKW" => Val::Set(tagged(Tag::Lkw)),
                            "LF" => Val::Set(tagged(Tag::Lf)),
                            "UL" => Val::Set(tagged(Tag::Ul)),
                            "RL" => Val::Set(tagged(Tag::Rl)),
                            "RU" => Val::Set(tagged(Tag::Ru)),
                            "ACQ" => Val::Set(tagged(Tag::Acq)),
                            "SC" => Val::Set(tagged(Tag::SeqCst)),
                            "REL" => Val::Set(tagged(Tag::Rel)),
                            "ACQ_REL" => Val::Set(tagged(Tag::AcqRel)),
                            "RLX" => Val::Set(tagged(Tag::Rlx)),
                            "CON" => Val::Set(tagged(Tag::Con)),
                            "A" => Val::Set(atomic(&m)),
                            // Every event but the atomic accesses: fences and lock events
                            // included, as herd7 fills it.
                            "NA" => Val::Set(EventSet::full(n) - atomic(&m)),
                            "annot" => Val::Set(annotated.clone()),
                            "id" => Val::Rel(std::rc::Rc::new(Relation::identity(n))),
                            "loc" => Val::Rel(std::rc::Rc::new(x.loc())),
                            "int" => Val::Rel(std::rc::Rc::new(x.int())),
                            // herd7's initial writes are external to every thread's events,
                            // but not to one another.
                            "ext" => Val::Rel(std::rc::Rc::new(x.ext().minus(
                                &Relation::cartesian(n, &tagged(Tag::Init), &tagged(Tag::Init)),
                            ))),
                            "po" => Val::Rel(std::rc::Rc::new(x.po.clone())),
                            "rmw" => Val::Rel(std::rc::Rc::new(rmw.clone())),
                            "addr" => Val::Rel(std::rc::Rc::new(x.addr.clone())),
                            "data" => Val::Rel(std::rc::Rc::new(x.data.clone())),
                            "ctrl" => Val::Rel(std::rc::Rc::new(x.ctrl.clone())),
                            // herd7's same-access relation of mixed-size tests: in C, every access is
                            // one event, so it relates each memory event to itself.
                            "sm" => Val::Rel(std::rc::Rc::new(Relation::id_on(n, &m))),
                            // What `BASE` gives no events or no pairs on a C test.
                            "no-events" => Val::Set(EventSet::EMPTY),
                            "no-pairs" => Val::Rel(std::rc::Rc::new(Relation::empty(n))),
                            // `B` (branch events): none in C's events.
                            _ => Val::Empty,
                        }
                    }
                },
            )
        })
        .collect()
}

/// herd7's `R` and `W`: the reads and the writes, each with the events `both` read and
/// write, and without the lock events.
fn reads_and_writes<W: Width>(x: &Execution<W>, both: &EventSet<W>) -> (EventSet<W>, EventSet<W>) {
    let locked = EventSet::from_fn(x.len(), |e| lock_event(x, e));
    let mut r = x.reads();
    r.union_with(both);
    r.minus_with(&locked);
    let mut w = x.writes();
    w.union_with(both);
    w.minus_with(&locked);
    (r, w)
}

/// The events of `x` carrying the tag a model names `t`: for herd7's annotations, those
/// spelled `t` exactly, case included, as herd7 compares them (`'ONCE` is not `'once`, see
/// [`Tag::spelling`]), a word of the user's own among them ([`Tags::named`]); for its other
/// sets (`IW`, `RMW`, the lock classes, C11's orders), the tag of that name whatever its
/// case.
fn tag_events<W: Width>(x: &Execution<W>, t: &str) -> EventSet<W> {
    if let Some(tag) = Tag::spelled(t) {
        return x.tagged(tag);
    }
    let other = Tags::named(t);
    if other != Tags::NONE {
        return x.set(|e| e.tags.contains(other));
    }
    match Tag::ALL
        .iter()
        .find(|tag| tag.spelling().is_none() && tag.name().eq_ignore_ascii_case(t))
    {
        Some(tag) => x.tagged(*tag),
        None => EventSet::EMPTY,
    }
}

impl CatModel {
    /// Runs the model on `x`, with the final writes `fw` and herd7's `pco`, calling `each`
    /// with every completion that passes its checks.
    pub(crate) fn run<W: Width>(
        &self,
        x: &Execution<W>,
        fw: &EventSet<W>,
        pco: &Relation<W>,
        deadline: Option<std::time::Instant>,
        each: &mut dyn FnMut(Completion<'_, W>) -> bool,
    ) -> Result<(), EvalError> {
        let (mut left, kept) = match take_left::<W>() {
            Some(mut left) if left.0.matches(self.id, x) => {
                let kept = left.1.take();
                (left, kept)
            }
            Some(mut left) => {
                *left = (Paths::of(self.id, x), None, Merge::of(x));
                (left, None)
            }
            None => (Box::new((Paths::of(self.id, x), None, Merge::of(x))), None),
        };
        let merge = &mut left.2;
        // What the model sees: `x`, or herd7's view of it.
        if let Some(m) = merge {
            m.set_rf(&x.rf);
        }
        let mapped;
        let mapped_fw;
        let (view, both, fw, pco) = match &merge {
            None => (x, EventSet::EMPTY, fw, pco),
            Some(m) => {
                mapped = m.relation(pco);
                mapped_fw = m.set(fw);
                (&m.exec, m.both.clone(), &mapped_fw, &mapped)
            }
        };
        let tags = |t: &str| tag_events(view, t);
        let world = World {
            exec: view,
            n: view.len(),
            base: base(view, &both, fw, pco, kept.is_none()),
            tag_events: &tags,
            both,
        };
        let mut machine = Machine::new(&self.code, &world, deadline, kept);
        let n = view.len();
        let mut error = None;
        let empty = Relation::empty(n);
        let r = machine.run(&mut |leaf| {
            // The model's own values, read in place.
            let rel = |slot: Option<Slot>| -> Result<&Relation<W>, EvalError> {
                match slot {
                    Some(Slot::Global(i)) => match &leaf.globals[i] {
                        Val::Rel(r) => Ok(r),
                        Val::Empty => Ok(&empty),
                        _ => Err(EvalError {
                            message: "the model's `co` or `rf` is not a relation".into(),
                            span: Span::default(),
                            uncaught: false,
                        }),
                    },
                    _ => Ok(&empty),
                }
            };
            let back;
            let (co, rf) = match (rel(self.co), rel(self.rf)) {
                (Ok(co), Ok(rf)) => match &merge {
                    None => (co, rf),
                    Some(m) => {
                        back = (m.co_back(co, x.len()), m.rf_back(rf, x.len()));
                        (&back.0, &back.1)
                    }
                },
                (Err(e), _) | (_, Err(e)) => {
                    error = Some(e);
                    return Go::Stop;
                }
            };
            let flags: Vec<&'static str> = leaf.flags.iter().map(|f| intern(f)).collect();
            if each(Completion {
                co,
                rf,
                judgement: &Judgement {
                    rejected_by: None,
                    flags,
                },
            }) {
                Go::On
            } else {
                Go::Stop
            }
        });
        let kept = machine.into_kept();
        left.1 = Some(kept);
        keep_left(left);
        r?;
        match error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

crate::models::model::judge_at_every_width!(CatModel);

impl Judge for CatModel {
    /// Judges a complete execution as the native models are judged: allowed when some
    /// completion of it passes, with the flags of the first.
    fn judge_any<W: Width>(&self, execution: &Execution<W>) -> Judgement {
        let n = execution.len();
        let mut found = None;
        let r = self.run(
            execution,
            &EventSet::EMPTY,
            &Relation::empty(n),
            None,
            &mut |c| {
                found = Some(c.judgement.clone());
                false
            },
        );
        match (r, found) {
            (Ok(()), Some(j)) => j,
            _ => Judgement {
                rejected_by: Some("model"),
                flags: Vec::new(),
            },
        }
    }

    fn completions_any<W: Width>(
        &self,
        execution: &Execution<W>,
        final_writes: EventSet<W>,
        pco: &Relation<W>,
        deadline: Option<std::time::Instant>,
        each: &mut dyn FnMut(Completion<'_, W>) -> bool,
    ) -> Result<(), String> {
        self.run(execution, &final_writes, pco, deadline, each)
            .map_err(|e| format!("the model cannot run: {}", self.render_error(&e)))
    }
}

impl MemoryModel for CatModel {
    fn name(&self) -> &'static str {
        self.name
    }

    fn warnings(&self) -> Vec<String> {
        self.code
            .warnings
            .iter()
            .map(|(message, span)| match self.files.get(span.file) {
                Some(file) => {
                    let (line, col) = hazmat_litmus::ast::line_col(&file.text, span.start as usize);
                    format!("{}:{line}:{col}: warning: {message}", file.name)
                }
                None => format!("warning: {message}"),
            })
            .collect()
    }

    fn dialect(&self) -> Dialect {
        self.dialect
    }

    fn lkmm(&self) -> LkmmVersion {
        self.lkmm
    }

    fn completes(&self) -> bool {
        true
    }

    fn judges_lock_reads(&self) -> bool {
        self.lock_cat
    }

    fn judges_cut_runs(&self) -> bool {
        self.code.asserts
    }

    /// A model file need not allow every sequentially consistent execution (it may be
    /// anything a user writes).
    fn includes_sc(&self) -> bool {
        false
    }
}
