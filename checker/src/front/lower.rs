//! Lowering: from a parsed litmus test to a [`Program`].
//!
//! Lowering resolves every name (shared variables become [`Loc`]s, registers become
//! per-thread indices), expands each call of a kernel primitive through the primitive
//! table into one instruction, hoists calls nested in expressions into temporaries (left
//! to right, as herd7 evaluates them), and converts the trailer into cells and
//! propositions.
//!
//! # Names in thread code
//!
//! Names mean what herd7 makes of them: in a thread's code every name is a register.
//! A parameter `int *x` is a register that starts with the address of the shared variable
//! `x` (and is a constant address unless the thread assigns to it); any other name is a
//! register that starts with its init-block value (`0:r1=2;`) or 0, even one the thread
//! never declares or assigns, such as `true` or a shared variable the thread does not take
//! as a parameter.
//! Since herd7 accepts those silently, lowering returns a [`Warning`] for each register the
//! code reads that nothing declares, assigns or initialises.
//!
//! # Refusals
//!
//! What herd7 refuses after parsing is refused here, with the place it is written, in the
//! order herd7 finds it: an unknown primitive (with the names it was probably meant to be),
//! a register of a thread the test does not have in the init block, `locations` or the
//! test's own condition (see `trailer`),
//! a primitive that gives a value used as a statement or one that gives none used in an
//! expression (herd7 expands neither), a location argument without its `*`
//! (`READ_ONCE(x)`), then a parameter named twice or given an init-block value, and an
//! init-block type whose size herd7 does not know.
//! A `while` loop is not refused: it is unrolled as herd7 unrolls it ([`UNROLL`] times), and
//! a run that would go round once more ends in `Op::Cutoff`.
//!
//! # Dialects
//!
//! herd7 gives calls their meaning through a macro file: the kernel's `linux-kernel.def`
//! by default, herd7's `c11.def` in the C11 [`Dialect`] (see [`crate::front::c11`]).
//! C11's `_explicit` primitives, compare-exchanges and fences are words of herd7's grammar,
//! known in both.

use crate::exec::event::{Loc, Tags, Value};
use crate::front::c11;
pub use crate::front::c11::Dialect;
use crate::front::instruction;
use crate::front::primitive::{self, Returns, Shape};
use crate::front::program::{
    AddrOrder, BinOp, Expr, Instr, LocDecl, Op, Program, RmwWrite, Statement, ThreadCode,
};
use crate::front::variant::{self, LkmmVersion, RmwKind};
use hazmat_litmus::ast;
use hazmat_litmus::diagnostic::{self, Severity};
use std::collections::{HashMap, HashSet};

mod c11_calls;
pub mod reads;
mod trailer;

pub use trailer::{ConditionSource, missing_thread};

/// How many times herd7 runs the body of a `while` loop at most by default (its `-unroll`
/// for C); [`crate::front::Reading::unroll`] sets another.
pub const UNROLL: u32 = 2;

/// Why a test cannot be lowered, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct LowerError {
    /// What is wrong, starting lowercase.
    pub message: String,
    /// Where.
    pub span: ast::Span,
    /// What is wrong, for a caller that acts on it.
    pub kind: LowerErrorKind,
}

/// The kinds of [`LowerError`] a caller may act on.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LowerErrorKind {
    /// A call of a name that is no macro of the kernel's `linux-kernel.def` (herd7's
    /// "Unknown macro"); the error's span is the name's.
    UnknownPrimitive {
        /// The name called.
        name: String,
        /// The known primitives it was probably meant to be, nearest first (at most three).
        suggestions: Vec<String>,
        /// Whether the call gives a value (herd7 names an unknown one a "Macro call", and a
        /// statement a "Procedure call", when it has no macro file).
        gives_value: bool,
    },
    /// The threads are not `P0`, `P1`, ... in the order written, which herd7 refuses
    /// ("Processes must be P0, P1, ..."); the error's span is the first misplaced name.
    ThreadNumbering,
    /// A register of a thread the test does not have, in the init block, in `locations`
    /// or in the test's own condition, which herd7 refuses ("Bad process P5").
    NoThread(u32),
    /// Anything else.
    Other,
}

/// Something herd7 accepts but reads otherwise than the test's author probably meant; the
/// test is checked all the same.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// What herd7 makes of it, starting lowercase.
    pub message: String,
    /// Where.
    pub span: ast::Span,
    /// What was probably meant.
    pub notes: Vec<String>,
}

impl LowerError {
    /// The error as a person reads it: `file:line:col: error: message`, the source line and
    /// a caret under the place.
    pub fn render(&self, file: &str, source: &str) -> String {
        diagnostic::render(file, source, self.span, Severity::Error, &self.message, &[])
    }
}

impl Warning {
    /// The warning as a person reads it: `file:line:col: warning: message`, the source line,
    /// a caret under the place, and the notes.
    pub fn render(&self, file: &str, source: &str) -> String {
        diagnostic::render(
            file,
            source,
            self.span,
            Severity::Warning,
            &self.message,
            &self.notes,
        )
    }
}

fn err<T>(message: impl Into<String>, span: ast::Span) -> Result<T, LowerError> {
    Err(LowerError {
        message: message.into(),
        span,
        kind: LowerErrorKind::Other,
    })
}

fn sp(s: ast::Span) -> (usize, usize) {
    (s.start, s.end)
}

/// The name of the register that counts herd7's instructions along a path
/// ([`ThreadLowering::poi`]): hazmat's bookkeeping, not a value of herd7's.
pub(crate) const POI: &str = "%poi";

/// The init-block types whose size herd7 knows; it refuses the others, pointers aside.
const SIZED_TYPES: &[&str] = &[
    "char",
    "short",
    "int",
    "long",
    "int8_t",
    "uint8_t",
    "int16_t",
    "uint16_t",
    "int32_t",
    "uint32_t",
    "intptr_t",
    "uintptr_t",
    "atomic_t",
];

/// The init-block types herd7 makes 64 or 128 bits wide, which take a value only under its
/// variant `S128` (their values are then herd7's 128-bit integers; hazmat's small values
/// compute alike, division aside, which hazmat refuses under `S128`).
const WIDE_TYPES: &[&str] = &[
    "int64_t",
    "uint64_t",
    "__int128",
    "__int128_t",
    "__uint128",
    "__uint128_t",
    "int128_t",
    "uint128_t",
];

/// Lowers a parsed test.
pub fn lower(test: &ast::Test) -> Result<Program, LowerError> {
    lower_with_warnings(test, Dialect::Kernel).map(|(program, _)| program)
}

/// Lowers a parsed test in `dialect`, with the warnings about what herd7 reads otherwise
/// than the test probably means (see the module notes), in source order.
pub fn lower_with_warnings(
    test: &ast::Test,
    dialect: Dialect,
) -> Result<(Program, Vec<Warning>), LowerError> {
    lower_with_macros(test, dialect, None)
}

/// Lowers a parsed test as [`lower_with_warnings`] does, with the C macros of a user's
/// `.def` file (herd7's `-macros`) in place of the kernel's when `macros` is given.
pub fn lower_with_macros(
    test: &ast::Test,
    dialect: Dialect,
    macros: Option<&crate::front::defs::Macros>,
) -> Result<(Program, Vec<Warning>), LowerError> {
    lower_with_variant(test, dialect, macros, crate::front::Reading::default())
}

/// Lowers a parsed test as [`lower_with_macros`] does, read as `reading` says: under
/// herd7's variant `S128` when it is set or the test's header says `Variant=S128` (herd7
/// then takes 64-bit and 128-bit types in the init block), its loops unrolled
/// `reading.unroll` times.
pub fn lower_with_variant(
    test: &ast::Test,
    dialect: Dialect,
    macros: Option<&crate::front::defs::Macros>,
    reading: crate::front::Reading,
) -> Result<(Program, Vec<Warning>), LowerError> {
    let reading = reading.of_test(test)?;
    let s128 = reading.s128;
    let mut cx = Cx {
        dialect,
        s128,
        unroll: reading.unroll,
        lkmm: reading.lkmm,
        locs: Vec::new(),
        loc_index: HashMap::new(),
        threads: Vec::new(),
        thread_index: HashMap::new(),
        params: Vec::new(),
        missing: Vec::new(),
    };
    // Shared locations: the init block, then the parameters, in order of appearance.
    for item in &test.init {
        if let ast::Location::Global(id) = &item.target {
            let l = cx.loc(&id.name);
            if item.ty.as_ref().is_some_and(is_spinlock) {
                cx.locs[l.0 as usize].spinlock = true;
            }
        }
    }
    for (i, t) in test.threads.iter().enumerate() {
        if t.id as usize != i {
            let message = if test.threads[..i].iter().any(|u| u.id == t.id) {
                format!("thread P{} is defined twice", t.id)
            } else {
                format!(
                    "threads must be P0, P1, ... in the order written, as herd7 requires: \
                     P{} stands where P{i} should",
                    t.id
                )
            };
            return Err(LowerError {
                message,
                span: t.name_span,
                kind: LowerErrorKind::ThreadNumbering,
            });
        }
    }
    for (i, t) in test.threads.iter().enumerate() {
        cx.thread_index.insert(t.id, i);
        for p in &t.params {
            let l = cx.loc(&p.name.name);
            if is_spinlock(&p.ty) {
                cx.locs[l.0 as usize].spinlock = true;
            }
        }
        cx.threads.push(ThreadCode {
            number: t.id,
            regs: Vec::new(),
            init: Vec::new(),
            code: Vec::new(),
            statements: Vec::new(),
        });
        cx.params
            .push(t.params.iter().map(|p| p.name.name.clone()).collect());
    }
    // Initial values.
    for item in &test.init {
        let value = match &item.value {
            None => Value::Int(0),
            Some(ast::InitValue::Int(n)) | Some(ast::InitValue::AtomicInit(n)) => Value::Int(*n),
            Some(ast::InitValue::Addr(id)) => Value::Addr(cx.loc(&id.name)),
            Some(_) => return err("unsupported initial value", item.span),
        };
        match &item.target {
            ast::Location::Global(id) => {
                let l = cx.loc(&id.name);
                cx.locs[l.0 as usize].init = value;
            }
            // A thread the test does not have is refused once the macros are expanded.
            ast::Location::Register { thread, reg, .. } => {
                if let Some(&t) = cx.thread_index.get(thread) {
                    let r = cx.reg(t, &reg.name);
                    cx.threads[t].init[r] = value;
                }
            }
        }
    }
    // Threads.
    let mut warnings = Vec::new();
    let mut failed = None;
    for (i, t) in test.threads.iter().enumerate() {
        let mut assigned = HashSet::new();
        assigned_names(&t.body, &mut assigned);
        let mut lw = ThreadLowering {
            cx: &mut cx,
            macros,
            thread: i,
            params: t.params.iter().map(|p| p.name.name.clone()).collect(),
            assigned,
            declared: HashSet::new(),
            reads: Vec::new(),
            temps: 0,
            stmt: 0,
            stmts: 0,
            in_block: false,
            poi: None,
        };
        if macros.is_some_and(crate::front::defs::Macros::numbers_srcu_locks) {
            lw.poi = Some(lw.cx.reg(i, POI));
        }
        let mut code = Vec::new();
        let mut shape = Vec::new();
        failed = t
            .body
            .iter()
            .find_map(|s| lw.stmt(s, &mut code, &mut shape).err());
        if failed.is_some() {
            break;
        }
        warnings.extend(lw.warnings(test));
        cx.threads[i].code = code;
        cx.threads[i].statements = shape;
    }
    // herd7 expands a macro file's macros first (an unknown one is its first error), then
    // checks the threads the trailer names, then refuses what it meets in the code.
    if let Some(e) = failed.take_if(|e| {
        matches!(e.kind, LowerErrorKind::UnknownPrimitive { .. }) && dialect != Dialect::Bare
    }) {
        return Err(e);
    }
    trailer::check_threads(&cx, test, reading.condition)?;
    if let Some(e) = failed {
        return Err(e);
    }
    for t in &test.threads {
        let mut seen = HashSet::new();
        for p in &t.params {
            if !seen.insert(&p.name.name) {
                return err(
                    format!(
                        "`{}` names two parameters of P{}; herd7 refuses the test",
                        p.name.name, t.id
                    ),
                    p.name.span,
                );
            }
        }
    }
    let mut initialised = HashSet::new();
    for item in &test.init {
        let target = match &item.target {
            ast::Location::Global(id) => id.name.clone(),
            ast::Location::Register { thread, reg, .. } => format!("{thread}:{}", reg.name),
        };
        if !initialised.insert(target.clone()) {
            return err(
                format!("`{target}` is given an initial value twice; herd7 refuses the test"),
                item.target.span(),
            );
        }
        if let ast::Location::Register { thread, reg, span } = &item.target {
            let t = cx.thread(*thread, *span)?;
            if cx.params[t].contains(&reg.name) {
                return err(
                    format!(
                        "`{0}` is a parameter of P{1}, which starts with the address of `{0}`; \
                         herd7 refuses an init-block value for `{1}:{0}`",
                        reg.name, thread
                    ),
                    *span,
                );
            }
        }
        if let Some(ty) = &item.ty
            && ty.pointers == 0
            && WIDE_TYPES.contains(&ty.base.as_str())
            && !cx.s128
        {
            return err(
                format!(
                    "herd7 stores the initial value of a `{}` location, a 32-bit constant, only \
                     under its variant `S128`, and stops without it (\"mask 32 bit value ... \
                     mask\"): add `Variant=S128` to the test's header, or `-variant S128` to \
                     the command line",
                    ty.base
                ),
                ty.span,
            );
        }
        if let Some(ty) = &item.ty
            && ty.pointers == 0
            && !SIZED_TYPES.contains(&ty.base.as_str())
            && !WIDE_TYPES.contains(&ty.base.as_str())
        {
            return err(
                format!(
                    "herd7 knows no size for the type `{}` in the init block; its types are `{}` \
                     and pointers",
                    ty.base,
                    SIZED_TYPES.join("`, `")
                ),
                ty.span,
            );
        }
    }
    let (condition, filter, shown) = trailer::trailer(&mut cx, test)?;
    let mut program = Program {
        name: test.herd7_name().to_string(),
        locs: cx.locs,
        threads: cx.threads,
        shown,
        filter,
        check_filter: reading.check_filter,
        condition,
        missing: cx.missing,
        reads: None,
        addr_order: AddrOrder::default(),
    };
    program.addr_order = AddrOrder::of(&program.locs);
    program.sort_shown();
    if reading.outcome_reads {
        reads::track(test, &mut program);
    }
    Ok((program, warnings))
}

fn is_spinlock(ty: &ast::Type) -> bool {
    ty.base == "spinlock_t"
}

struct Cx {
    dialect: Dialect,
    /// herd7's variant `S128`.
    s128: bool,
    /// How many times a `while` loop is unrolled.
    unroll: u32,
    /// The reading of the kernel's RMW instructions where no macro file gives one.
    lkmm: LkmmVersion,
    locs: Vec<LocDecl>,
    loc_index: HashMap<String, Loc>,
    threads: Vec<ThreadCode>,
    thread_index: HashMap<u32, usize>,
    /// Each thread's parameter names, by thread index.
    params: Vec<Vec<String>>,
    /// The registers of threads the test does not have ([`Program::missing`]).
    missing: Vec<(u32, String)>,
}

impl Cx {
    fn loc(&mut self, name: &str) -> Loc {
        if let Some(l) = self.loc_index.get(name) {
            return *l;
        }
        let l = Loc(self.locs.len() as u32);
        self.locs.push(LocDecl {
            name: name.to_string(),
            init: Value::Int(0),
            spinlock: false,
            next_to: None,
        });
        self.loc_index.insert(name.to_string(), l);
        l
    }

    fn thread(&self, number: u32, span: ast::Span) -> Result<usize, LowerError> {
        match self.thread_index.get(&number) {
            Some(t) => Ok(*t),
            None => err(format!("there is no thread P{number}"), span),
        }
    }

    /// The register `name` of thread `t`, made on first use: a parameter's register starts
    /// with the address of its variable, any other with 0.
    fn reg(&mut self, t: usize, name: &str) -> usize {
        if let Some(r) = self.threads[t].regs.iter().position(|n| n == name) {
            return r;
        }
        let init = if self.params[t].iter().any(|p| p == name) {
            Value::Addr(self.loc(name))
        } else {
            Value::Int(0)
        };
        let th = &mut self.threads[t];
        th.regs.push(name.to_string());
        th.init.push(init);
        th.regs.len() - 1
    }
}

/// The names a thread's code assigns: the registers of `r = e;` and `int r = e;`.
fn assigned_names(body: &[ast::Stmt], out: &mut HashSet<String>) {
    for s in body {
        match &s.kind {
            ast::StmtKind::Assign { lhs, .. } => {
                if let ast::ExprKind::Ident(id) = &lhs.kind {
                    out.insert(id.name.clone());
                }
            }
            ast::StmtKind::Decl {
                name,
                init: Some(_),
                ..
            } => {
                out.insert(name.name.clone());
            }
            ast::StmtKind::If { then, els, .. } => {
                assigned_names(std::slice::from_ref(then), out);
                if let Some(e) = els {
                    assigned_names(std::slice::from_ref(e), out);
                }
            }
            ast::StmtKind::Block(b) => assigned_names(b, out),
            ast::StmtKind::While { body, .. } => assigned_names(std::slice::from_ref(body), out),
            _ => {}
        }
    }
}

struct ThreadLowering<'a> {
    cx: &'a mut Cx,
    /// A user's macros, in place of the built-in table.
    macros: Option<&'a crate::front::defs::Macros>,
    thread: usize,
    params: Vec<String>,
    /// The names the code assigns somewhere.
    assigned: HashSet<String>,
    /// The names the code declares somewhere before their use.
    declared: HashSet<String>,
    /// The registers the code reads, each with its first read, in order.
    reads: Vec<(String, ast::Span)>,
    temps: usize,
    /// The herd7 instruction being lowered (see [`Instr::stmt`]).
    stmt: u32,
    /// The next instruction's number.
    stmts: u32,
    /// Whether the statement being lowered is inside braces, where herd7 keeps a
    /// declaration without a value as a statement.
    in_block: bool,
    /// The register that counts herd7's instructions as herd7 numbers them along a path
    /// (its `program_order_index`), when the macros make SRCU locks on the structure,
    /// whose number it gives (see [`ThreadLowering::count`]).
    poi: Option<usize>,
}

/// A branch as herd7 sees it, from what its one statement pushed: that statement.
fn branch(mut statements: Vec<Statement>) -> Statement {
    match statements.len() {
        1 => statements.pop().unwrap_or(Statement::Block(Vec::new())),
        _ => Statement::Block(statements),
    }
}

impl ThreadLowering<'_> {
    /// Starts a new herd7 instruction: what is lowered from now on belongs to it.
    fn begin(&mut self) {
        self.stmt = self.stmts;
        self.stmts += 1;
    }

    fn temp(&mut self) -> usize {
        let name = format!("%t{}", self.temps);
        self.temps += 1;
        self.cx.reg(self.thread, &name)
    }

    /// Whether `name` is a parameter that the code never assigns, and so a constant address.
    fn is_constant(&self, name: &str) -> bool {
        self.params.iter().any(|p| p == name) && !self.assigned.contains(name)
    }

    /// The value of the name `id` where the code reads it.
    fn read(&mut self, id: &ast::Ident) -> Expr {
        if self.is_constant(&id.name) {
            return Expr::Const(Value::Addr(self.cx.loc(&id.name)));
        }
        if !self.reads.iter().any(|(n, _)| *n == id.name) {
            self.reads.push((id.name.clone(), id.span));
        }
        Expr::Reg(self.cx.reg(self.thread, &id.name))
    }

    /// A warning for each register the code reads that nothing declares, assigns or
    /// initialises: herd7 reads 0 there, which is rarely what was meant.
    fn warnings(&self, test: &ast::Test) -> Vec<Warning> {
        let number = self.cx.threads[self.thread].number;
        let initialised = |name: &str| {
            test.init.iter().any(|item| {
                matches!(&item.target, ast::Location::Register { thread, reg, .. }
                    if *thread == number && reg.name == name)
            })
        };
        self.reads
            .iter()
            .filter(|(name, _)| {
                !self.params.contains(name)
                    && !self.assigned.contains(name)
                    && !self.declared.contains(name)
                    && !initialised(name)
            })
            .map(|(name, span)| Warning {
                message: format!(
                    "`{name}` is never assigned, declared or given an initial value: herd7 \
                     reads it as a register holding 0"
                ),
                span: *span,
                notes: self.why_zero(name, number),
            })
            .collect()
    }

    /// What the author of a read of the undefined register `name` probably meant.
    fn why_zero(&self, name: &str, number: u32) -> Vec<String> {
        match name {
            "true" | "false" => {
                vec!["herd7's C dialect has no `true` or `false`: write 1 or 0".to_string()]
            }
            "return" | "break" | "continue" => vec![format!(
                "herd7's C dialect has no `{name}` statement: `{name};` does nothing"
            )],
            _ if self.cx.loc_index.contains_key(name) => vec![format!(
                "`{name}` is a shared variable, but no parameter of P{number}: add `int *{name}` \
                 to its parameters"
            )],
            _ => {
                let regs = &self.cx.threads[self.thread].regs;
                let known = regs.iter().map(String::as_str).filter(|r| {
                    !r.starts_with('%')
                        && (self.assigned.contains(*r) || self.declared.contains(*r))
                });
                let near = diagnostic::closest(name, known, 3);
                vec![diagnostic::did_you_mean(&near).unwrap_or_else(|| {
                    format!(
                        "if `{name}` is a shared variable, add `int *{name}` to P{number}'s \
                         parameters"
                    )
                })]
            }
        }
    }

    /// Counts `k` more of herd7's instructions on the path, when the thread counts them
    /// (see [`ThreadLowering::poi`]).
    ///
    /// herd7 numbers each instruction it runs: a statement, a block (before its
    /// statements), the call of a macro written as a block (as many as the block holds,
    /// [`crate::front::defs::Macro::cost`]); an `if` counts one, and one more on entering
    /// either branch it has; each test of a `while` counts one; a declaration without a
    /// value counts none.
    fn count(&mut self, k: u32, out: &mut Vec<Instr>) {
        if let (Some(r), true) = (self.poi, k > 0) {
            out.push(Instr {
                stmt: self.stmt,
                op: Op::Let {
                    dst: r,
                    val: Expr::Binary(
                        BinOp::Add,
                        Box::new(Expr::Reg(r)),
                        Box::new(Expr::Const(Value::Int(i64::from(k)))),
                    ),
                },
                span: (0, 0),
            });
        }
    }

    /// What a statement counts as among herd7's instructions, before its parts: a
    /// declaration without a value counts inside braces, where herd7 keeps it.
    fn cost(&self, s: &ast::Stmt) -> u32 {
        match &s.kind {
            ast::StmtKind::Decl { init: None, .. } => u32::from(self.in_block),
            ast::StmtKind::Comment { .. } => 0,
            ast::StmtKind::While { .. } => 0,
            ast::StmtKind::Expr(e) => match &e.kind {
                ast::ExprKind::Call { func, .. } => self
                    .macros
                    .and_then(|m| m.lookup(&func.name))
                    .map_or(1, |m| m.cost.max(1)),
                _ => 1,
            },
            _ => 1,
        }
    }

    /// Lowers `s` into `out`, and pushes it as herd7 sees it onto `shapes` (nothing for what
    /// herd7 drops: a comment, a declaration without a value outside braces).
    fn stmt(
        &mut self,
        s: &ast::Stmt,
        out: &mut Vec<Instr>,
        shapes: &mut Vec<Statement>,
    ) -> Result<(), LowerError> {
        // Each statement is one herd7 instruction, an `if` its condition; blocks are not.
        if !matches!(s.kind, ast::StmtKind::Block(_)) {
            self.begin();
        }
        let (first, shape) = (self.stmt, shapes.len());
        match &s.kind {
            ast::StmtKind::Decl { init: None, .. } if self.in_block => shapes.push(Statement::Decl),
            ast::StmtKind::Decl { init: None, .. }
            | ast::StmtKind::Comment { .. }
            | ast::StmtKind::Block(_)
            | ast::StmtKind::If { .. }
            | ast::StmtKind::While { .. } => {}
            _ => shapes.push(Statement::Plain(self.stmt)),
        }
        self.stmt_body(s, out, shapes)?;
        // A macro that is a block of several instructions (`smp_store_mb`) made one
        // instruction of herd7's each: herd7 expands it as a block of statements.
        if self.stmt > first && shapes.get(shape) == Some(&Statement::Plain(first)) {
            shapes[shape] = Statement::Block((first..=self.stmt).map(Statement::Plain).collect());
        }
        Ok(())
    }

    /// Lowers `s` into `out`, its inner statements' shapes onto `shapes` ([`Self::stmt`]).
    fn stmt_body(
        &mut self,
        s: &ast::Stmt,
        out: &mut Vec<Instr>,
        shapes: &mut Vec<Statement>,
    ) -> Result<(), LowerError> {
        let cost = self.cost(s);
        self.count(cost, out);
        match &s.kind {
            ast::StmtKind::Decl { name, init, .. } => {
                self.declared.insert(name.name.clone());
                match init {
                    Some(e) => {
                        let r = self.cx.reg(self.thread, &name.name);
                        let val = self.expr(e, out)?;
                        out.push(Instr {
                            stmt: self.stmt,
                            op: Op::Let { dst: r, val },
                            span: sp(s.span),
                        });
                    }
                    // herd7 drops a declaration without a value: a parameter keeps its
                    // address, a register its initial value.
                    None if self.params.contains(&name.name) => {}
                    None => {
                        self.cx.reg(self.thread, &name.name);
                    }
                }
            }
            ast::StmtKind::Assign { lhs, rhs } => {
                let val = self.expr(rhs, out)?;
                match &lhs.kind {
                    ast::ExprKind::Ident(id) => {
                        let r = self.cx.reg(self.thread, &id.name);
                        out.push(Instr {
                            stmt: self.stmt,
                            op: Op::Let { dst: r, val },
                            span: sp(s.span),
                        });
                    }
                    ast::ExprKind::Deref(p) => {
                        let addr = self.expr(p, out)?;
                        out.push(Instr {
                            stmt: self.stmt,
                            op: Op::Store {
                                addr,
                                val,
                                tags: Tags::NONE,
                                write_back: false,
                            },
                            span: sp(s.span),
                        });
                    }
                    _ => {
                        return err(
                            "cannot assign to this expression; write to `*x` or a register",
                            lhs.span,
                        );
                    }
                }
            }
            ast::StmtKind::Expr(e) => {
                if let ast::ExprKind::Call { func, args } = &e.kind {
                    self.call(func, args, e.span, false, out)?;
                } else if let ast::ExprKind::Instruction { .. } = &e.kind {
                    self.instruction(e, false, out)?;
                } else {
                    // herd7 computes the value and drops it; computing it may fail, and
                    // reading a register (`r1;`) makes a fresh value, which its names of
                    // values out of thin air count (`engine::symbol`).
                    let val = self.expr(e, out)?;
                    let regs = &self.cx.threads[self.thread].regs;
                    let counted = match &val {
                        // A parameter is a register to herd7.
                        Expr::Const(v) => matches!(v, Value::Addr(_)),
                        // A read hoisted into a temporary is counted where it is made.
                        Expr::Reg(r) => !regs[*r].starts_with('%'),
                        _ => true,
                    };
                    if counted {
                        let dst = self.temp();
                        out.push(Instr {
                            stmt: self.stmt,
                            op: Op::Let { dst, val },
                            span: sp(s.span),
                        });
                    }
                }
            }
            ast::StmtKind::If { cond, then, els } => {
                let id = self.stmt;
                let c = self.expr(cond, out)?;
                let mut t = Vec::new();
                self.count(1, &mut t);
                let mut then_shape = Vec::new();
                self.stmt(then, &mut t, &mut then_shape)?;
                let mut f = Vec::new();
                let mut els_shape = None;
                if let Some(e) = els {
                    self.count(1, &mut f);
                    let mut shape = Vec::new();
                    self.stmt(e, &mut f, &mut shape)?;
                    els_shape = Some(Box::new(branch(shape)));
                }
                shapes.push(Statement::If {
                    stmt: id,
                    then: Box::new(branch(then_shape)),
                    els: els_shape,
                });
                out.push(Instr {
                    stmt: id,
                    op: Op::If {
                        cond: c,
                        then: t,
                        els: f,
                    },
                    span: sp(s.span),
                });
            }
            ast::StmtKind::Block(b) => {
                let outer = std::mem::replace(&mut self.in_block, true);
                let mut inner = Vec::new();
                for s in b {
                    self.stmt(s, out, &mut inner)?;
                }
                self.in_block = outer;
                shapes.push(Statement::Block(inner));
            }
            ast::StmtKind::While { cond, body } => {
                self.unroll(s, cond, body, 0, out, shapes)?;
            }
            ast::StmtKind::Comment { .. } => {}
            _ => return err("unsupported statement", s.span),
        }
        Ok(())
    }

    /// `while (cond) body` as herd7 runs it: iteration `n` tests the condition, as its own
    /// instruction, and runs the body and iteration `n + 1` when it holds, up to
    /// `-unroll` iterations ([`UNROLL`] unless told); a run whose condition still holds
    /// then is cut off. Each iteration is an `if` to [`Statement`], whose `then` branch is
    /// the body, then the next iteration.
    fn unroll(
        &mut self,
        s: &ast::Stmt,
        cond: &ast::Expr,
        body: &ast::Stmt,
        n: u32,
        out: &mut Vec<Instr>,
        shapes: &mut Vec<Statement>,
    ) -> Result<(), LowerError> {
        if n > 0 {
            self.begin();
        }
        self.count(1, out);
        let id = self.stmt;
        let c = self.expr(cond, out)?;
        let mut then = Vec::new();
        let mut round = Vec::new();
        if n >= self.cx.unroll {
            then.push(Instr {
                stmt: id,
                op: Op::Cutoff,
                span: sp(s.span),
            });
        } else {
            self.stmt(body, &mut then, &mut round)?;
            self.unroll(s, cond, body, n + 1, &mut then, &mut round)?;
        }
        shapes.push(Statement::If {
            stmt: id,
            then: Box::new(Statement::Block(round)),
            els: None,
        });
        out.push(Instr {
            stmt: id,
            op: Op::If {
                cond: c,
                then,
                els: Vec::new(),
            },
            span: sp(s.span),
        });
        Ok(())
    }

    fn expr(&mut self, e: &ast::Expr, out: &mut Vec<Instr>) -> Result<Expr, LowerError> {
        Ok(match &e.kind {
            ast::ExprKind::Int(n) => Expr::Const(Value::Int(*n)),
            ast::ExprKind::Ident(id) => self.read(id),
            ast::ExprKind::Deref(a) => {
                let addr = self.expr(a, out)?;
                let t = self.temp();
                out.push(Instr {
                    stmt: self.stmt,
                    op: Op::Load {
                        dst: Some(t),
                        addr,
                        tags: Tags::NONE,
                        deref: false,
                    },
                    span: sp(e.span),
                });
                Expr::Reg(t)
            }
            ast::ExprKind::Binary(op, a, b) => {
                if *op == ast::BinaryOp::Div && self.cx.s128 {
                    return err(
                        "under its variant `S128` herd7 divides its 128-bit integers otherwise \
                         (rounding towards minus infinity, and stopping on a negative divisor), \
                         which hazmat does not compute: leave the division out, or the variant",
                        e.span,
                    );
                }
                let a = self.expr(a, out)?;
                let b = self.expr(b, out)?;
                Expr::Binary(binop(*op), Box::new(a), Box::new(b))
            }
            ast::ExprKind::Call { func, args } => match self.call(func, args, e.span, true, out)? {
                Some(v) => v,
                None => {
                    return err(
                        format!(
                            "`{}` is a statement in herd7 and gives no value; call it on its own",
                            func.name
                        ),
                        e.span,
                    );
                }
            },
            ast::ExprKind::Cast(_, a) => self.expr(a, out)?,
            ast::ExprKind::Instruction { func, .. } => match self.instruction(e, true, out)? {
                Some(v) => v,
                None => {
                    return err(
                        format!(
                            "`{}` is a statement in herd7 and gives no value; write it on its own",
                            func.name
                        ),
                        e.span,
                    );
                }
            },
            _ => return err("unsupported expression", e.span),
        })
    }

    /// The address of the location argument of `prim`, which herd7 takes only as `*p` (a
    /// cast around it aside): the location is at `p`.
    fn lvalue(
        &mut self,
        prim: &str,
        e: &ast::Expr,
        out: &mut Vec<Instr>,
    ) -> Result<Expr, LowerError> {
        match &e.kind {
            ast::ExprKind::Deref(p) => self.expr(p, out),
            ast::ExprKind::Cast(_, a) => self.lvalue(prim, a, out),
            ast::ExprKind::Ident(id) => err(
                format!(
                    "`{prim}` takes a location, `*{0}`, not the pointer `{0}` (herd7 refuses \
                     it)",
                    id.name
                ),
                e.span,
            ),
            _ => err(
                format!("`{prim}` takes a location such as `*x` (herd7 refuses anything else)"),
                e.span,
            ),
        }
    }

    fn call(
        &mut self,
        func: &ast::Ident,
        args: &[ast::Expr],
        span: ast::Span,
        want_value: bool,
        out: &mut Vec<Instr>,
    ) -> Result<Option<Expr>, LowerError> {
        if let Some(prim) = c11::lookup(&func.name, self.cx.dialect) {
            return self.c11_call(prim, args, span, want_value, out);
        }
        if let Some(why) = instruction::c11_mutex(&func.name) {
            return err(why, span);
        }
        if let Some(prim) = instruction::lock_word(&func.name) {
            if self.cx.dialect == Dialect::C11 {
                return err(instruction::lock_word_in_c11(&func.name), span);
            }
            return self.apply(&func.name, prim, args, span, want_value, true, out);
        }
        // A user's macro fills the shape's arguments in its own order.
        let permuted: Vec<ast::Expr>;
        let (known, args) = match self.macros {
            None => (
                primitive::lookup(&func.name).filter(|p| match self.cx.dialect {
                    Dialect::Kernel => true,
                    Dialect::C11 => c11::KERNEL_FENCES.contains(&p.name),
                    Dialect::Bare => false,
                }),
                args,
            ),
            Some(macros) => match macros.lookup(&func.name) {
                None => (None, args),
                Some(m) => {
                    if args.len() != m.arity {
                        return err(
                            format!(
                                "`{}` takes {} argument{}, not {}",
                                func.name,
                                m.arity,
                                if m.arity == 1 { "" } else { "s" },
                                args.len()
                            ),
                            span,
                        );
                    }
                    if !m.then.is_empty() {
                        return self.block_macro(&func.name, m, args, span, want_value, out);
                    }
                    permuted = m.arguments(&m.args, args);
                    (Some(m.primitive()), &permuted[..])
                }
            },
        };
        let Some(prim) = known else {
            let names: Vec<&str> = match (self.macros, self.cx.dialect) {
                (Some(m), _) => m.names().collect(),
                (None, Dialect::Kernel) => primitive::names()
                    .chain(c11::names(Dialect::Kernel))
                    .collect(),
                (None, Dialect::C11) => c11::names(Dialect::C11)
                    .chain(c11::KERNEL_FENCES.iter().copied())
                    .collect(),
                (None, Dialect::Bare) => c11::names(Dialect::Bare).collect(),
            };
            let suggestions: Vec<String> = diagnostic::closest(&func.name, names, 3)
                .into_iter()
                .map(str::to_string)
                .collect();
            let mut message = format!("unknown primitive `{}`", func.name);
            let names: Vec<&str> = suggestions.iter().map(String::as_str).collect();
            if let Some(hint) = diagnostic::did_you_mean(&names) {
                message.push_str("; ");
                message.push_str(&hint);
            }
            if self.macros.is_none()
                && self.cx.dialect == Dialect::C11
                && primitive::names().any(|n| n == func.name)
            {
                message.push_str(&format!(
                    "; `{}` is the Linux kernel's, and this model reads C11's atomics: the \
                     kernel's primitives are read under the LKMM (`--model lkmm`, the default)",
                    func.name
                ));
            }
            return Err(LowerError {
                message,
                span: func.span,
                kind: LowerErrorKind::UnknownPrimitive {
                    name: func.name.clone(),
                    suggestions,
                    gives_value: want_value,
                },
            });
        };
        self.apply(&func.name, prim, args, span, want_value, false, out)
    }

    /// A call of a user's macro whose block holds several instructions: each, in order, as
    /// an instruction of its own, with the call's arguments it takes (each evaluated where
    /// it is taken, as herd7 expands a macro's text); such a block gives no value.
    fn block_macro(
        &mut self,
        name: &str,
        m: &crate::front::defs::Macro,
        args: &[ast::Expr],
        span: ast::Span,
        want_value: bool,
        out: &mut Vec<Instr>,
    ) -> Result<Option<Expr>, LowerError> {
        if want_value {
            // The caller says that a statement gives no value.
            return Ok(None);
        }
        let first = m.first();
        for (k, part) in std::iter::once(&first).chain(&m.then).enumerate() {
            // Each is an instruction of herd7's of its own, in program order.
            if k > 0 {
                self.begin();
            }
            let ordered = m.arguments(&part.args, args);
            self.apply(name, part.primitive(), &ordered, span, false, true, out)?;
        }
        Ok(None)
    }

    /// One of herd7's internal instructions written in the code (see
    /// [`crate::front::instruction`]).
    fn instruction(
        &mut self,
        e: &ast::Expr,
        want_value: bool,
        out: &mut Vec<Instr>,
    ) -> Result<Option<Expr>, LowerError> {
        let ast::ExprKind::Instruction {
            func,
            annotations,
            op,
            args,
        } = &e.kind
        else {
            return err("not an instruction", e.span);
        };
        let lowered = instruction::lower(func, annotations, *op, args.len())
            .or_else(|(message, span)| err(message, span))?;
        let ordered: Vec<ast::Expr> = lowered.args.iter().map(|&i| args[i].clone()).collect();
        self.apply(
            &func.name,
            lowered.prim,
            &ordered,
            e.span,
            want_value,
            true,
            out,
        )
    }

    /// A call of `name`, which lowers to `prim`, with `args` in the order of its shape;
    /// `grammar` tells whether `name` is a word of herd7's grammar, which may stand as a
    /// statement although it gives a value, rather than a macro, which may not.
    #[allow(clippy::too_many_arguments)]
    fn apply(
        &mut self,
        name: &str,
        prim: primitive::Primitive,
        args: &[ast::Expr],
        span: ast::Span,
        want_value: bool,
        grammar: bool,
        out: &mut Vec<Instr>,
    ) -> Result<Option<Expr>, LowerError> {
        let arity = primitive::arity(prim.shape);
        if args.len() != arity {
            return err(
                format!(
                    "`{}` takes {arity} argument{}, not {}",
                    name,
                    if arity == 1 { "" } else { "s" },
                    args.len()
                ),
                span,
            );
        }
        // herd7 expands a macro that gives a value only within an expression, and one that
        // gives none only as a statement; it knows no other (its "Unknown macro").
        if !want_value && !grammar && primitive::gives_value(prim.shape) {
            return err(
                format!(
                    "`{0}` gives a value, and herd7 takes it only within an expression: write \
                     `r = {0}(...);` or `(void){0}(...);`",
                    name
                ),
                span,
            );
        }
        let span2 = sp(span);
        let tags = prim.tags;
        let lkmm = self.macros.map_or(self.cx.lkmm, |m| m.lkmm);
        let rmw_tags = |kind| variant::rmw_tags(lkmm, kind, tags, prim.lower);
        let stmt = self.stmt;
        let emit = |op: Op, out: &mut Vec<Instr>| {
            out.push(Instr {
                op,
                span: span2,
                stmt,
            })
        };
        let dst = |me: &mut Self| if want_value { Some(me.temp()) } else { None };
        Ok(match prim.shape {
            Shape::Load { lvalue, deref } => {
                let addr = if lvalue {
                    self.lvalue(name, &args[0], out)?
                } else {
                    self.expr(&args[0], out)?
                };
                let t = self.temp();
                emit(
                    Op::Load {
                        dst: Some(t),
                        addr,
                        // herd7 annotates the read of `__load{deref}` `once`, in lower case
                        // whatever the model's spelling.
                        tags: if deref {
                            instruction::deref_read_tags()
                        } else {
                            tags
                        },
                        deref,
                    },
                    out,
                );
                Some(Expr::Reg(t))
            }
            Shape::Store { .. } | Shape::StoreMb { .. } => {
                let lvalue = match prim.shape {
                    Shape::Store { lvalue } => lvalue,
                    _ => true,
                };
                let addr = if lvalue {
                    self.lvalue(name, &args[0], out)?
                } else {
                    self.expr(&args[0], out)?
                };
                let val = self.expr(&args[1], out)?;
                emit(
                    Op::Store {
                        addr,
                        val,
                        tags,
                        write_back: false,
                    },
                    out,
                );
                if let Shape::StoreMb { fence } = prim.shape {
                    // `smp_store_mb` is two instructions in herd7's macros: the store, then
                    // the fence.
                    self.begin();
                    out.push(Instr {
                        op: Op::Fence { tags: fence },
                        span: span2,
                        stmt: self.stmt,
                    });
                }
                None
            }
            Shape::Fence => {
                emit(Op::Fence { tags }, out);
                None
            }
            Shape::Xchg => {
                let addr = self.expr(&args[0], out)?;
                let v = self.expr(&args[1], out)?;
                let d = dst(self);
                emit(
                    Op::Rmw {
                        dst: d,
                        addr,
                        write: RmwWrite::Set(v),
                        ret_new: false,
                        equation: false,
                        tags: rmw_tags(RmwKind::Ordered),
                    },
                    out,
                );
                d.map(Expr::Reg)
            }
            Shape::Cmpxchg => {
                let addr = self.expr(&args[0], out)?;
                let expected = self.expr(&args[1], out)?;
                let new = self.expr(&args[2], out)?;
                let d = dst(self);
                emit(
                    Op::Cmpxchg {
                        dst: d,
                        addr,
                        expected,
                        new,
                        tags: rmw_tags(RmwKind::Ordered),
                    },
                    out,
                );
                d.map(Expr::Reg)
            }
            Shape::Op {
                op,
                constant,
                returns,
            } => {
                let (operand, addr) = match constant {
                    Some(c) => (Expr::Const(Value::Int(c)), self.expr(&args[0], out)?),
                    None => {
                        let v = self.expr(&args[0], out)?;
                        (v, self.expr(&args[1], out)?)
                    }
                };
                let d = if returns == Returns::Nothing {
                    None
                } else {
                    dst(self)
                };
                emit(
                    Op::Rmw {
                        dst: d,
                        addr,
                        write: RmwWrite::Apply(op, operand),
                        ret_new: matches!(returns, Returns::New | Returns::Test(_)),
                        equation: false,
                        tags: rmw_tags(if returns == Returns::Nothing {
                            RmwKind::NoReturn
                        } else {
                            RmwKind::Ordered
                        }),
                    },
                    out,
                );
                match (returns, d) {
                    (Returns::Test(cmp), Some(r)) => Some(Expr::Binary(
                        cmp,
                        Box::new(Expr::Reg(r)),
                        Box::new(Expr::Const(Value::Int(0))),
                    )),
                    (_, d) => d.map(Expr::Reg),
                }
            }
            Shape::AddUnless => {
                let addr = self.expr(&args[0], out)?;
                let add = self.expr(&args[1], out)?;
                let unless = self.expr(&args[2], out)?;
                let d = dst(self);
                emit(
                    Op::AddUnless {
                        dst: d,
                        addr,
                        add,
                        unless,
                        tags: rmw_tags(RmwKind::AddUnless),
                    },
                    out,
                );
                d.map(Expr::Reg)
            }
            Shape::Lock => {
                let addr = self.expr(&args[0], out)?;
                emit(Op::Lock { addr }, out);
                None
            }
            Shape::Unlock => {
                let addr = self.expr(&args[0], out)?;
                emit(Op::Unlock { addr }, out);
                None
            }
            Shape::Trylock => {
                let addr = self.expr(&args[0], out)?;
                let d = dst(self);
                emit(Op::Trylock { dst: d, addr }, out);
                d.map(Expr::Reg)
            }
            Shape::IsLocked => {
                let addr = self.expr(&args[0], out)?;
                let d = dst(self);
                emit(Op::IsLocked { dst: d, addr }, out);
                d.map(Expr::Reg)
            }
            Shape::SyncSrcu => {
                let addr = self.expr(&args[0], out)?;
                emit(Op::SyncSrcu { addr }, out);
                None
            }
            Shape::SrcuLock => {
                let addr = self.expr(&args[0], out)?;
                let d = dst(self);
                // herd7's number for the lock: (thread + 1) * 307 + instruction * 599, the
                // instruction as herd7 numbers it on the path (`count`).
                let thread = Expr::Const(Value::Int((self.thread as i64 + 1) * 307));
                let value = match self.poi {
                    Some(r) => Expr::Binary(
                        BinOp::Add,
                        Box::new(thread),
                        Box::new(Expr::Binary(
                            BinOp::Mul,
                            Box::new(Expr::Reg(r)),
                            Box::new(Expr::Const(Value::Int(599))),
                        )),
                    ),
                    None => thread,
                };
                emit(
                    Op::Srcu {
                        dst: d,
                        addr,
                        value,
                        tags,
                    },
                    out,
                );
                d.map(Expr::Reg)
            }
            Shape::SrcuUnlock => {
                let addr = self.expr(&args[0], out)?;
                let value = self.expr(&args[1], out)?;
                emit(
                    Op::Srcu {
                        dst: None,
                        addr,
                        value,
                        tags,
                    },
                    out,
                );
                None
            }
        })
    }
}

fn binop(op: ast::BinaryOp) -> BinOp {
    use ast::BinaryOp as A;
    match op {
        A::Mul => BinOp::Mul,
        A::Div => BinOp::Div,
        A::Add => BinOp::Add,
        A::Sub => BinOp::Sub,
        A::Lt => BinOp::Lt,
        A::Le => BinOp::Le,
        A::Gt => BinOp::Gt,
        A::Ge => BinOp::Ge,
        A::Eq => BinOp::Eq,
        A::Ne => BinOp::Ne,
        A::BitAnd => BinOp::And,
        A::BitXor => BinOp::Xor,
        A::BitOr => BinOp::Or,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::event::Tag;
    use crate::front::program::RmwTags;

    /// In the C11 dialect the forms without `_explicit` are sequentially consistent and
    /// `atomic_fetch_add` takes the location first; in the kernel's, that name is the
    /// kernel's (value first), and C11's read-modify-writes, words of herd7's grammar, are
    /// what they are in the C11 dialect.
    #[test]
    fn dialects_give_calls_their_meaning() {
        let src = "C t\n{}\nP0(atomic_int *x) {\n\
                   int r0 = atomic_fetch_add(x, 2);\n\
                   int r1 = atomic_load_explicit(x, memory_order_acquire);\n}\n\
                   exists (0:r0=0)\n";
        let test = hazmat_litmus::parse(src).expect("parses");
        let (c11, _) = lower_with_warnings(&test, Dialect::C11).expect("lowers");
        let ops: Vec<&Op> = c11.threads[0].code.iter().map(|i| &i.op).collect();
        assert!(matches!(
            ops[0],
            Op::Rmw { addr: Expr::Const(Value::Addr(_)), tags, .. }
                if tags.read.has(Tag::SeqCst) && tags.read.has(Tag::Rmw)
        ));
        assert!(matches!(ops[2], Op::Load { tags, .. } if *tags == Tags::of(&[Tag::Acq])));
        // The kernel's atomic_fetch_add(V, X) reads its operands the other way round.
        let (kernel, _) = lower_with_warnings(&test, Dialect::Kernel).expect("lowers");
        assert!(matches!(
            &kernel.threads[0].code[0].op,
            Op::Rmw {
                addr: Expr::Const(Value::Int(2)),
                ..
            }
        ));
        let rmw = src.replace(
            "atomic_fetch_add(x, 2)",
            "atomic_exchange_explicit(x, 2, memory_order_relaxed)",
        );
        let (kernel, _) = lower_with_warnings(
            &hazmat_litmus::parse(&rmw).expect("parses"),
            Dialect::Kernel,
        )
        .expect("lowers");
        assert!(matches!(
            &kernel.threads[0].code[0].op,
            Op::Rmw { tags, .. } if *tags == RmwTags::uniform(Tags::of(&[Tag::Rmw, Tag::Rlx]))
        ));
        // A word of the grammar may stand as a statement, a macro of c11.def may not.
        let dropped = src.replace(
            "int r0 = atomic_fetch_add(x, 2);",
            "atomic_fetch_add_explicit(x, 2, memory_order_relaxed); atomic_compare_exchange_strong(x, x, 1);",
        );
        let t = hazmat_litmus::parse(&dropped).expect("parses");
        assert!(lower_with_warnings(&t, Dialect::Kernel).is_ok());
        let macro_stmt = src.replace(
            "int r0 = atomic_fetch_add(x, 2);",
            "atomic_fetch_add(x, 2);",
        );
        let t = hazmat_litmus::parse(&macro_stmt).expect("parses");
        let e = lower_with_warnings(&t, Dialect::C11).expect_err("refused");
        assert!(
            e.message.contains("only within an expression"),
            "{}",
            e.message
        );
        // c11.def has the kernel's RCU markers, and none of its other macros.
        let rcu = src.replace("int r0 = atomic_fetch_add(x, 2);", "rcu_read_lock();");
        let t = hazmat_litmus::parse(&rcu).expect("parses");
        assert!(lower_with_warnings(&t, Dialect::C11).is_ok());
        let mb = src.replace("int r0 = atomic_fetch_add(x, 2);", "smp_mb();");
        let t = hazmat_litmus::parse(&mb).expect("parses");
        let e = lower_with_warnings(&t, Dialect::C11).expect_err("refused");
        assert!(
            e.message.contains("unknown primitive `smp_mb`"),
            "{}",
            e.message
        );
    }

    /// A primitive gives a value exactly when the kernel's `.def` file makes it an
    /// expression rather than a statement in braces, when the conformance data is at hand.
    #[test]
    fn primitives_give_values_as_the_def_file_says() {
        let dir = std::env::var("HAZMAT_CONFORMANCE")
            .unwrap_or_else(|_| "../../shared/conformance".into());
        let Ok(def) = std::fs::read_to_string(format!("{dir}/lkmm-model/linux-kernel.def")) else {
            return;
        };
        let mut checked = 0;
        for line in def.lines().map(str::trim) {
            if line.is_empty() || line.starts_with("//") {
                continue;
            }
            let name = line.split('(').next().unwrap_or("").trim();
            let prim = primitive::lookup(name).unwrap_or_else(|| panic!("{name} is missing"));
            // The body follows the parameter list: a statement when it starts with `{`.
            let body = line.split_once(')').map_or("", |(_, b)| b.trim());
            assert_eq!(
                primitive::gives_value(prim.shape),
                !body.starts_with('{'),
                "{name}"
            );
            checked += 1;
        }
        assert!(checked > 100);
    }
}
