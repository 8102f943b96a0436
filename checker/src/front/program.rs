//! Programs: what lowering makes of a litmus test, and what the enumeration runs.
//!
//! A [`Program`] is a litmus test with every name resolved: shared variables are
//! [`Loc`]s, registers are small indices per thread, every call of a kernel primitive is
//! one [`Op`] whose events and annotations the primitive table fixed, and expressions are
//! pure (calls nested in expressions were hoisted into temporaries, left to right).
//! The condition, the filter and the `locations` list refer to [`Cell`]s.

use crate::exec::event::{Loc, Tags, Value};
use std::fmt::Write as _;

/// A register of one thread, as an index into [`ThreadCode::regs`].
pub type Reg = usize;

/// A lowered litmus test.
#[derive(Clone, Debug)]
pub struct Program {
    /// The test's name.
    pub name: String,
    /// The shared locations, indexed by [`Loc`].
    pub locs: Vec<LocDecl>,
    /// The threads, in the order of their numbers.
    pub threads: Vec<ThreadCode>,
    /// The columns of a final state, in herd7's order: registers by thread and name, then
    /// locations by name.
    pub shown: Vec<Cell>,
    /// The `filter` clause, if any.
    pub filter: Option<Prop>,
    /// Whether the filter discards the executions whose final state fails it, as herd7
    /// does by default; under herd7's `-checkfilter false` it discards none, though the
    /// final state still holds the filter's locations (see [`Program::applied_filter`]).
    pub check_filter: bool,
    /// The final condition; `forall (true)` when the test has none.
    pub condition: Condition,
    /// The registers of threads the test does not have that a filter or a `-conds`
    /// condition names (`5:r0` in a two-thread test), by [`Cell::Missing`]: the thread's
    /// number and the register's name. herd7 checks the threads of the test's own
    /// condition and `locations` only, and reads such a register as 0.
    pub missing: Vec<(u32, String)>,
    /// What herd7's `-outcomereads true` needs of each execution, when it is asked for
    /// ([`crate::front::lower::reads`]).
    pub reads: Option<Reads>,
    /// herd7's order of the addresses of [`Program::locs`], which subtracting two
    /// addresses computes; kept with the locations as they are added.
    pub addr_order: AddrOrder,
}

impl Program {
    /// The filter that discards executions: the `filter` clause, unless herd7's
    /// `-checkfilter false` asked for none ([`Program::check_filter`]).
    pub fn applied_filter(&self) -> Option<&Prop> {
        self.filter.as_ref().filter(|_| self.check_filter)
    }

    /// Puts [`Program::shown`] in herd7's order, each cell once: registers by thread
    /// number and name, then locations by name.
    pub fn sort_shown(&mut self) {
        let mut shown = std::mem::take(&mut self.shown);
        shown.sort_by_cached_key(|&c| match c {
            Cell::Loc(_) => (1, 0, self.cell_name(c)),
            Cell::Reg { thread, reg } => (
                0,
                self.threads[thread].number,
                self.threads[thread].regs[reg].clone(),
            ),
            Cell::Missing(i) => (0, self.missing[i].0, self.missing[i].1.clone()),
        });
        shown.dedup();
        self.shown = shown;
    }

    /// The name herd7 prints for a cell: `0:r1` or `x`.
    pub fn cell_name(&self, cell: Cell) -> String {
        let mut name = String::new();
        self.write_cell_name(&mut name, cell);
        name
    }

    /// Appends [`cell_name`](Program::cell_name) to `out`, allocating nothing more.
    pub fn write_cell_name(&self, out: &mut String, cell: Cell) {
        match cell {
            Cell::Reg { thread, reg } => {
                let t = &self.threads[thread];
                push_int(out, i64::from(t.number));
                out.push(':');
                out.push_str(&t.regs[reg]);
            }
            Cell::Loc(loc) => out.push_str(&self.locs[loc.0 as usize].name),
            Cell::Missing(i) => {
                let (thread, reg) = &self.missing[i];
                let _ = write!(out, "{thread}:{reg}");
            }
        }
    }

    /// The location next to `base` at `offset` (`y+1`), if the program has it.
    pub fn adjacent(&self, base: Loc, offset: i64) -> Option<Loc> {
        let at = Some((base, offset));
        (0..self.locs.len())
            .find(|&l| self.locs[l].next_to == at)
            .map(|l| Loc(l as u32))
    }

    /// Adds herd7's location next to `base` at `offset`, named as herd7 prints it (`y+1`,
    /// `z+-1`), unless the program has it.
    pub fn add_adjacent(&mut self, base: Loc, offset: i64) -> Loc {
        if let Some(l) = self.adjacent(base, offset) {
            return l;
        }
        let name = format!("{}+{offset}", self.locs[base.0 as usize].name);
        self.locs.push(LocDecl {
            name,
            init: Value::Int(0),
            spinlock: false,
            next_to: Some((base, offset)),
        });
        self.addr_order = AddrOrder::of(&self.locs);
        Loc(self.locs.len() as u32 - 1)
    }

    /// A value as herd7 prints it: an integer, or the name of the location it points to.
    pub fn value_text(&self, value: Value) -> String {
        let mut text = String::new();
        self.write_value_text(&mut text, value);
        text
    }

    /// Appends [`value_text`](Program::value_text) to `out`, allocating nothing more.
    pub fn write_value_text(&self, out: &mut String, value: Value) {
        let _ = match value {
            Value::Int(n) => {
                push_int(out, n);
                Ok(())
            }
            Value::Addr(loc) => {
                out.push_str(&self.locs[loc.0 as usize].name);
                Ok(())
            }
            Value::Shifted(loc, off) => write!(out, "{}+{off}", self.locs[loc.0 as usize].name),
            Value::Sym(n) => write!(out, "S{n}"),
        };
    }

    /// The span of the first instruction whose operation satisfies `is`, thread by
    /// thread, in program order, into both branches of each `if`.
    pub fn first_instr(&self, is: impl Fn(&Op) -> bool) -> Option<(usize, usize)> {
        fn find(code: &[Instr], is: &dyn Fn(&Op) -> bool) -> Option<(usize, usize)> {
            code.iter().find_map(|i| match &i.op {
                op if is(op) => Some(i.span),
                Op::If { then, els, .. } => find(then, is).or_else(|| find(els, is)),
                _ => None,
            })
        }
        self.threads.iter().find_map(|t| find(&t.code, &is))
    }
}

/// Writes `n` in decimal: a digit alone without the formatting machinery (most values
/// and thread numbers of a test's output are).
fn push_int(out: &mut String, n: i64) {
    match u8::try_from(n) {
        Ok(d @ 0..=9) => out.push(char::from(b'0' + d)),
        _ => {
            let _ = write!(out, "{n}");
        }
    }
}

/// A shared location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocDecl {
    /// Its name.
    pub name: String,
    /// Its initial value.
    pub init: Value,
    /// Whether it is a spinlock (`spinlock_t`), whose accesses follow `lock.cat`.
    pub spinlock: bool,
    /// For herd7's location next to a variable, which an access at `y + 1` makes (named
    /// `y+1`), the variable and the offset: such a location has no initial write, so a
    /// read of it reads a write of the program.
    pub next_to: Option<(Loc, i64)>,
}

/// One thread's code.
#[derive(Clone, Debug)]
pub struct ThreadCode {
    /// The thread number, the `1` of `P1`.
    pub number: u32,
    /// Register names; temporaries introduced by lowering start with `%`.
    pub regs: Vec<String>,
    /// Initial register values (from the init block; 0 otherwise).
    pub init: Vec<Value>,
    /// The instructions.
    pub code: Vec<Instr>,
    /// How herd7's C front end groups the instructions into statements and blocks, which
    /// decides the order in which it numbers their fresh values (see [`Statement`]).
    pub statements: Vec<Statement>,
}

/// One statement of herd7's C front end, over the instructions lowered from it (by
/// their [`Instr::stmt`]): herd7 lists the ways through a sequence of statements
/// reversed once per statement, and a block, a declaration in a block or a branch with or
/// without braces is one statement more or less to it, so the order of its ways, and the
/// names of values out of thin air, follow these statements (see `engine::symbol`).
/// Lowering flattens blocks; nothing but that numbering reads these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Statement {
    /// A statement other than an `if` or a block: the instructions with this
    /// [`Instr::stmt`].
    Plain(u32),
    /// An `if` (or one round of a `while` loop), the instructions numbered `stmt` ending
    /// with its [`Op::If`], and what each branch is: a statement written without braces,
    /// or a [`Statement::Block`]. An `if` without `else` has `None` there.
    If {
        /// The number of its instructions.
        stmt: u32,
        /// Its `then` branch.
        then: Box<Statement>,
        /// Its `else` branch, if written.
        els: Option<Box<Statement>>,
    },
    /// Statements between braces: herd7's sequence, one statement to the code around it.
    Block(Vec<Statement>),
    /// A declaration without a value inside braces: a statement of herd7's with no
    /// instruction (herd7 drops those of a thread's body).
    Decl,
}

/// A place whose final value a state shows or a condition tests.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Cell {
    /// A register of a thread (thread index, register index).
    Reg {
        /// The thread index in [`Program::threads`].
        thread: usize,
        /// The register index in [`ThreadCode::regs`].
        reg: Reg,
    },
    /// A shared location; its final value is the last write in coherence order.
    Loc(Loc),
    /// A register of a thread the test does not have, by its index in
    /// [`Program::missing`]: it holds 0 in every execution.
    Missing(usize),
}

/// A pure expression over registers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// A constant.
    Const(Value),
    /// A register's current value.
    Reg(Reg),
    /// A unary operator.
    Unary(UnOp, Box<Expr>),
    /// A binary operator.
    Binary(BinOp, Box<Expr>, Box<Expr>),
}

/// Unary operators on values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// `-e`
    Neg,
    /// `!e`
    Not,
    /// `~e`
    BitNot,
}

/// Binary operators on values; comparisons give 0 or 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `&`
    And,
    /// `|`
    Or,
    /// `^`
    Xor,
    /// `&~`, the and-not of `atomic_andnot`.
    AndNot,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `&&`
    LogAnd,
    /// `||`
    LogOr,
}

impl BinOp {
    /// The operator as C writes it.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
            BinOp::AndNot => "&~",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::LogAnd => "&&",
            BinOp::LogOr => "||",
        }
    }

    /// Whether the operator compares (`==`, `!=`, `<`, `<=`, `>`, `>=`), which herd7 takes
    /// as a condition as it is, where it tests any other value as `e != 0`.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }
}

/// A value as herd7's evaluator holds it while it builds or solves an execution: known, or
/// a variable not solved yet.
///
/// Two variables with the same number are the same value, which is what lets herd7 compute
/// `r ^ r` or `r == r` before it knows `r`.
/// [`Value::Sym`], an unsolved symbol of a finished execution, is a variable too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    /// A known value.
    Val(Value),
    /// A value not known yet, by its number.
    Var(u32),
}

impl Term {
    fn is_var(self) -> bool {
        matches!(self, Term::Var(_) | Term::Val(Value::Sym(_)))
    }

    fn int(self) -> Option<i64> {
        match self {
            Term::Val(Value::Int(n)) => Some(n),
            _ => None,
        }
    }

    fn is_zero(self) -> bool {
        self == Term::Val(Value::Int(0))
    }

    /// The location and offset of an address.
    fn addr(self) -> Option<(Loc, i64)> {
        match self {
            Term::Val(Value::Addr(l)) => Some((l, 0)),
            Term::Val(Value::Shifted(l, o)) => Some((l, o)),
            _ => None,
        }
    }
}

/// herd7's order of addresses, by the name of their variable, then by their offset (its
/// `compare` of symbolic constants, which subtracting two addresses gives: -1, 0 or 1).
///
/// [`Loc`] numbers follow the order in which the test declares its variables, which is not
/// this one when the init block or the parameters do not list them by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AddrOrder {
    /// By location: the rank of its variable's name among the variables' names, and its
    /// offset from the variable (not 0 for herd7's location next to a variable, `y+1`).
    keys: Vec<(u32, i64)>,
}

impl AddrOrder {
    /// The order of the addresses of `locs`.
    pub fn of(locs: &[LocDecl]) -> AddrOrder {
        let base = |l: usize| match locs[l].next_to {
            Some((b, o)) => (b.0 as usize, o),
            None => (l, 0),
        };
        // herd7 compares names as OCaml's `String.compare` does: byte by byte.
        let mut names: Vec<&str> = (0..locs.len())
            .map(|l| locs[base(l).0].name.as_str())
            .collect();
        names.sort_unstable();
        names.dedup();
        let keys = (0..locs.len())
            .map(|l| {
                let (b, o) = base(l);
                let rank = names.partition_point(|n| *n < locs[b].name.as_str());
                (rank as u32, o)
            })
            .collect();
        AddrOrder { keys }
    }

    /// How the address `off` cells from `loc` compares with the address `off2` cells from
    /// `loc2`, as herd7 orders them.
    fn cmp(&self, (loc, off): (Loc, i64), (loc2, off2): (Loc, i64)) -> std::cmp::Ordering {
        let key = |l: Loc, o: i64| {
            let (rank, base) = self.keys.get(l.0 as usize).copied().unwrap_or((l.0, 0));
            (rank, base.wrapping_add(o))
        };
        key(loc, off).cmp(&key(loc2, off2))
    }
}

/// What an operator gives, as herd7 computes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applied {
    /// A value, known or a variable (`r + 0` is `r` itself).
    Term(Term),
    /// Nothing yet: an operand is a variable and no identity decides the result (herd7
    /// keeps an equation, solved once the variable is).
    Undetermined,
    /// The operator has no meaning on these values (arithmetic on addresses, division by
    /// zero): herd7 stops the test with an error when an execution it allows needs it.
    Illegal,
}

fn int(n: i64) -> Applied {
    Applied::Term(Term::Val(Value::Int(n)))
}

fn boolean(b: bool) -> Applied {
    int(b as i64)
}

/// An address `off` cells from `loc`, as herd7 writes it: `x`, or `x+1`.
pub fn shifted(loc: Loc, off: i64) -> Value {
    if off == 0 {
        Value::Addr(loc)
    } else {
        Value::Shifted(loc, off)
    }
}

/// Applies a binary operator as herd7 7.58 does for C (its symbolic values, `SymbValue`).
///
/// Integers compute as herd7's C integers do, on 32 bits, wrapping.
/// An address is a location and an offset: adding or subtracting an integer moves the
/// offset, subtracting two addresses compares them in herd7's `order` (-1, 0 or 1),
/// comparing an address with an integer for equality is false, and `<` orders an address
/// above zero; every other operator on an address is illegal (see [`Program::herd7_illegal`] for
/// how herd7 words each).
/// With a variable among the operands the result is undetermined, except for the identities
/// herd7 applies before it knows the variable: `v + 0 = 0 + v = v`, `v | 0 = 0 | v = v`,
/// `v ^ v = 0`, `v == v` is true and `v != v` false.
pub fn herd_binary(op: BinOp, a: Term, b: Term, order: &AddrOrder) -> Applied {
    let either_var = a.is_var() || b.is_var();
    // herd7's `binop`: two known integers compute; two known values that are not both
    // integers are illegal; a variable leaves it undetermined.
    // herd7's C integers are 32-bit and wrap: `2147483647 + 1` is -2147483648.
    let arith = |f: fn(i32, i32) -> Option<i32>| -> Applied {
        if either_var {
            return Applied::Undetermined;
        }
        match (a.int(), b.int()) {
            (Some(x), Some(y)) => f(x as i32, y as i32).map_or(Applied::Illegal, |v| int(v.into())),
            _ => Applied::Illegal,
        }
    };
    match op {
        BinOp::Add => {
            if a.is_zero() {
                return Applied::Term(b);
            }
            if b.is_zero() {
                return Applied::Term(a);
            }
            match (a.addr(), b.addr(), a.int(), b.int()) {
                (Some((l, o)), None, _, Some(i)) | (None, Some((l, o)), Some(i), _) => {
                    Applied::Term(Term::Val(shifted(l, o.wrapping_add(i))))
                }
                _ => arith(|x, y| Some(x.wrapping_add(y))),
            }
        }
        BinOp::Sub => match (a.addr(), b.addr(), b.int()) {
            (Some(x), Some(y), _) => int(order.cmp(x, y) as i64),
            (Some((l, o)), None, Some(d)) => {
                Applied::Term(Term::Val(shifted(l, o.wrapping_sub(d))))
            }
            _ => arith(|x, y| Some(x.wrapping_sub(y))),
        },
        BinOp::Mul => arith(|x, y| Some(x.wrapping_mul(y))),
        BinOp::Div => arith(|x, y| (y != 0).then(|| x.wrapping_div(y))),
        BinOp::Rem => arith(|x, y| (y != 0).then(|| x.wrapping_rem(y))),
        BinOp::And => arith(|x, y| Some(x & y)),
        BinOp::AndNot => arith(|x, y| Some(x & !y)),
        BinOp::Shl => arith(|x, y| Some(x.wrapping_shl(y as u32))),
        BinOp::Shr => arith(|x, y| Some(x.wrapping_shr(y as u32))),
        BinOp::Or => {
            if a.is_zero() {
                return Applied::Term(b);
            }
            if b.is_zero() {
                return Applied::Term(a);
            }
            arith(|x, y| Some(x | y))
        }
        BinOp::Xor => {
            if a == b {
                return int(0);
            }
            arith(|x, y| Some(x ^ y))
        }
        BinOp::Eq | BinOp::Ne => {
            let eq = herd_eq(a, b);
            match (op, eq) {
                (BinOp::Ne, Applied::Term(Term::Val(Value::Int(n)))) => boolean(n == 0),
                _ => eq,
            }
        }
        BinOp::Lt => herd_lt(a, b),
        BinOp::Gt => herd_lt(b, a),
        BinOp::Le => arith(|x, y| Some((x <= y) as i32)),
        BinOp::Ge => arith(|x, y| Some((x >= y) as i32)),
        // C's logical operators, which herd7's dialect does not have; lowering refuses
        // them, and other callers get C's meaning on integers.
        BinOp::LogAnd => arith(|x, y| Some((x != 0 && y != 0) as i32)),
        BinOp::LogOr => arith(|x, y| Some((x != 0 || y != 0) as i32)),
    }
}

fn herd_eq(a: Term, b: Term) -> Applied {
    if a.is_var() && a == b {
        return boolean(true);
    }
    if a.is_var() || b.is_var() {
        return Applied::Undetermined;
    }
    match (a, b) {
        (Term::Val(x), Term::Val(y)) => boolean(x == y),
        _ => Applied::Undetermined,
    }
}

fn herd_lt(a: Term, b: Term) -> Applied {
    match (a.addr(), b.addr()) {
        (Some(_), None) if b.is_zero() => return boolean(false),
        (None, Some(_)) if a.is_zero() => return boolean(true),
        _ => {}
    }
    if a.is_var() || b.is_var() {
        return Applied::Undetermined;
    }
    match (a.int(), b.int()) {
        (Some(x), Some(y)) => boolean(x < y),
        _ => Applied::Illegal,
    }
}

/// Applies a unary operator to a term (herd7's C dialect has none; lowering makes none
/// but for its own uses, on integers).
pub fn herd_unary(op: UnOp, a: Term) -> Applied {
    if a.is_var() {
        return Applied::Undetermined;
    }
    match a.int() {
        Some(n) => {
            let n = n as i32;
            int(match op {
                UnOp::Neg => n.wrapping_neg(),
                UnOp::Not => (n == 0) as i32,
                UnOp::BitNot => !n,
            }
            .into())
        }
        None => Applied::Illegal,
    }
}

/// Applies a unary operator to a known value; `None` when herd7 gives it no meaning.
pub fn apply_unary(op: UnOp, v: Value) -> Option<Value> {
    match herd_unary(op, Term::Val(v)) {
        Applied::Term(Term::Val(v)) => Some(v),
        _ => None,
    }
}

/// Applies a binary operator to known values, as herd7 does; `None` when herd7 gives it no
/// meaning (arithmetic on addresses, division by zero) or cannot compute it (an unsolved
/// symbol).
pub fn apply_binary(op: BinOp, a: Value, b: Value, order: &AddrOrder) -> Option<Value> {
    match herd_binary(op, Term::Val(a), Term::Val(b), order) {
        Applied::Term(Term::Val(v)) => Some(v),
        _ => None,
    }
}

impl Program {
    /// herd7's words for an operator it gives no meaning on the known values `a` and `b`,
    /// with which it stops its run of the test: `Illegal operation * on constants a and
    /// 2`, `Illegal | on a and b`; `>` and `>=` are `<` and `<=` of the operands swapped,
    /// as herd7 computes them.
    /// `None` where herd7 fails with an exception of its own instead: a division by zero,
    /// and `|` of an address and an integer other than 0.
    pub fn herd7_illegal(&self, op: BinOp, a: Value, b: Value) -> Option<String> {
        let is_addr = |v: Value| matches!(v, Value::Addr(_) | Value::Shifted(..));
        let (op, a, b) = match op {
            BinOp::Gt => (BinOp::Lt, b, a),
            BinOp::Ge => (BinOp::Le, b, a),
            BinOp::Or if is_addr(a) && is_addr(b) => {
                return Some(format!(
                    "Illegal | on {} and {}",
                    self.value_text(a),
                    self.value_text(b)
                ));
            }
            BinOp::Or => return None,
            BinOp::Div if !is_addr(a) && b == Value::Int(0) => return None,
            BinOp::Add
            | BinOp::Sub
            | BinOp::Mul
            | BinOp::Div
            | BinOp::And
            | BinOp::Xor
            | BinOp::Lt
            | BinOp::Le => (op, a, b),
            BinOp::AndNot => (op, a, b),
            // Not herd7's C operators (hazmat's lowering makes them for its own uses, on
            // integers), or never illegal.
            _ => return None,
        };
        // herd7 names `&~` (`atomic_andnot`'s operation) by its own operator's name.
        let name = match op {
            BinOp::AndNot => "andnot2",
            _ => op.symbol(),
        };
        Some(format!(
            "Illegal operation {} on constants {} and {}",
            name,
            self.value_text(a),
            self.value_text(b)
        ))
    }
}

/// One instruction, with the byte range of the source it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instr {
    /// What it does.
    pub op: Op,
    /// Byte range of the source statement or call.
    pub span: (usize, usize),
    /// The herd7 instruction it belongs to, numbered within its thread: the statement it
    /// comes from (an `if`: its condition).
    /// herd7's program order runs between instructions; the events of one instruction
    /// (the calls nested in one statement, the read and write of an RMW) are ordered only
    /// as each depends on another.
    pub stmt: u32,
}

/// What an RMW writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RmwWrite {
    /// `xchg`: the given value.
    Set(Expr),
    /// `atomic_add` and friends: the old value combined with the operand.
    Apply(BinOp, Expr),
}

/// The instructions of a thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// `dst = val` with no memory access.
    Let {
        /// The register assigned.
        dst: Reg,
        /// Its new value.
        val: Expr,
    },
    /// A read of memory.
    Load {
        /// The register receiving the value read, if any.
        dst: Option<Reg>,
        /// The address read.
        addr: Expr,
        /// Annotations of the read event.
        tags: Tags,
        /// Whether it is herd7's `__load{deref}` or `__load{lderef}`: the read, then an
        /// `rb_dep` fence that follows it inside the instruction; the value read reaches
        /// `dst` with no dependency on the read (no `addr`, `data` or `ctrl` from it), and
        /// what uses it inside the instruction follows neither the read nor the fence.
        deref: bool,
    },
    /// A write to memory.
    Store {
        /// The address written.
        addr: Expr,
        /// The value written.
        val: Expr,
        /// Annotations of the write event.
        tags: Tags,
        /// Whether it is the write-back of a failed C11 compare-exchange, which herd7
        /// orders after the exchange's reads inside the instruction, with no `data`
        /// dependency on them.
        write_back: bool,
    },
    /// A fence, or another event with no location (RCU read-side markers).
    Fence {
        /// Annotations of the fence event.
        tags: Tags,
    },
    /// An unconditional read-modify-write: a read and a write, related by `rmw`.
    Rmw {
        /// The register receiving the result, if any.
        dst: Option<Reg>,
        /// The address.
        addr: Expr,
        /// What is written.
        write: RmwWrite,
        /// Whether `dst` receives the new value (`_return` forms) rather than the old one.
        ret_new: bool,
        /// Whether herd7 makes the value written a fresh value, tied to the value read by
        /// an equation (C11's `atomic_fetch_*`), rather than computing it with its
        /// operators, which leave `v + 0` and `v | 0` as `v`, with no fresh value (the
        /// kernel's atomic operations): its count of fresh values differs.
        equation: bool,
        /// Annotations of the events ([`crate::exec::event::Tag::Rmw`] included), and
        /// the fences around them.
        tags: RmwTags,
    },
    /// `cmpxchg(addr, expected, new)`: a successful RMW when the read value equals
    /// `expected`, a lone read otherwise; `dst` receives the value read.
    Cmpxchg {
        /// The register receiving the value read, if any.
        dst: Option<Reg>,
        /// The address.
        addr: Expr,
        /// The value compared with.
        expected: Expr,
        /// The value written on success.
        new: Expr,
        /// Annotations of the events ([`crate::exec::event::Tag::Rmw`] included), and
        /// the fences around a success.
        tags: RmwTags,
    },
    /// C11's `atomic_compare_exchange_*`, between the plain read of the expected value and
    /// the plain write-back of a failure, which lowering puts around it: a read-modify-write
    /// with the `success` order that reads `expected` and writes `desired` (`ok` is 1), or
    /// a lone read with the `failure` order of another value, or of any value when the
    /// exchange is weak (`ok` is 0); `old` receives the value read.
    CompareExchange {
        /// The register receiving 1 on success, 0 on failure.
        ok: Reg,
        /// The register receiving the value read.
        old: Reg,
        /// The address of the atomic object.
        addr: Expr,
        /// The expected value.
        expected: Expr,
        /// The value written on success.
        desired: Expr,
        /// Annotations of the read and the write of a success ([`crate::exec::event::Tag::Rmw`]
        /// and the success order).
        success: Tags,
        /// Annotation of the read of a failure (the failure order).
        failure: Tags,
        /// Whether the exchange fails only when the value read differs from the expected
        /// one (`_strong`); a weak one may also fail spuriously.
        strong: bool,
    },
    /// `atomic_add_unless(addr, add, unless)`: adds `add` unless the value read is `unless`;
    /// `dst` receives 1 when it added, 0 otherwise.
    AddUnless {
        /// The register receiving the result, if any.
        dst: Option<Reg>,
        /// The address.
        addr: Expr,
        /// The operand added.
        add: Expr,
        /// The value that prevents the addition.
        unless: Expr,
        /// Annotations of the events ([`crate::exec::event::Tag::Rmw`] included), and
        /// the fences around a success.
        tags: RmwTags,
    },
    /// `spin_lock`: an LKR/LKW pair.
    Lock {
        /// The lock's address.
        addr: Expr,
    },
    /// `spin_unlock`: a UL write.
    Unlock {
        /// The lock's address.
        addr: Expr,
    },
    /// `spin_trylock`: an LKR/LKW pair (result 1) or an LF read (result 0).
    Trylock {
        /// The register receiving the result, if any.
        dst: Option<Reg>,
        /// The lock's address.
        addr: Expr,
    },
    /// `spin_is_locked`: an RL read (result 1) or an RU read (result 0).
    IsLocked {
        /// The register receiving the result, if any.
        dst: Option<Reg>,
        /// The lock's address.
        addr: Expr,
    },
    /// `synchronize_srcu`: a fence-like event on the SRCU structure's location.
    SyncSrcu {
        /// The SRCU structure's address.
        addr: Expr,
    },
    /// herd7's `__srcu{srcu-lock}(X)` and `__srcu{srcu-unlock}(X,V)`, as the kernel's
    /// macros wrote `srcu_read_lock` and `srcu_read_unlock` until 2023: an event on the
    /// SRCU structure's location that is neither a read nor a write, carrying a value
    /// (the lock's is a number herd7 makes of the thread and the instruction, which
    /// `dst` receives; the unlock's is V).
    Srcu {
        /// The register receiving the value, if any.
        dst: Option<Reg>,
        /// The SRCU structure's address.
        addr: Expr,
        /// The value the event carries.
        value: Expr,
        /// Its annotation ([`crate::exec::event::Tag::SrcuLock`] or `SrcuUnlock`).
        tags: Tags,
    },
    /// The end of a `while` loop's unrolling: herd7 runs a loop's body at most
    /// [`crate::front::lower::UNROLL`] times, and a run that would go round once more stops here.
    /// Such a run is cut off: it leaves no execution, and marks the result `Loop`.
    Cutoff,
    /// `if (cond) { then } else { els }`.
    If {
        /// The condition; non-zero is true.
        cond: Expr,
        /// Instructions run when it holds.
        then: Vec<Instr>,
        /// Instructions run otherwise.
        els: Vec<Instr>,
    },
}

/// The annotations of a read-modify-write instruction's events, as herd7 gives them: under
/// the kernel's `lkmmv2` variant every event carries the instruction's annotation; without
/// it (herd7's `lkmmv1`, the default) the read and the write carry `once` unless the
/// annotation is `acquire` (the read's) or `release` (the write's), and a fully ordered
/// instruction is wrapped in two `mb` fences instead (see [`crate::front::variant`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RmwTags {
    /// The read's annotations ([`crate::exec::event::Tag::Rmw`] included).
    pub read: Tags,
    /// The write's.
    pub write: Tags,
    /// The read's when the instruction fails (`cmpxchg`, `atomic_add_unless`).
    pub failed: Tags,
    /// The fence put before and after the instruction when it succeeds, if any.
    pub fence: Option<Tags>,
}

impl RmwTags {
    /// Every event with the same annotations, and no fence.
    pub fn uniform(tags: Tags) -> RmwTags {
        RmwTags {
            read: tags,
            write: tags,
            failed: tags,
            fence: None,
        }
    }
}

/// A proposition over a final state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prop {
    /// `true`.
    True,
    /// `false`.
    False,
    /// `cell = value`.
    Eq(Cell, Operand),
    /// `~p`.
    Not(Box<Prop>),
    /// `p /\ q`.
    And(Box<Prop>, Box<Prop>),
    /// `p \/ q`.
    Or(Box<Prop>, Box<Prop>),
    /// `p => q`.
    Implies(Box<Prop>, Box<Prop>),
}

/// The right-hand side of an atom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A constant.
    Value(Value),
    /// Another cell's final value.
    Cell(Cell),
}

impl Prop {
    /// Evaluates the proposition, reading cells through `get`.
    pub fn eval(&self, get: &impl Fn(Cell) -> Value) -> bool {
        match self {
            Prop::True => true,
            Prop::False => false,
            Prop::Eq(c, v) => {
                let rhs = match v {
                    Operand::Value(v) => *v,
                    Operand::Cell(c) => get(*c),
                };
                get(*c) == rhs
            }
            Prop::Not(p) => !p.eval(get),
            Prop::And(p, q) => p.eval(get) && q.eval(get),
            Prop::Or(p, q) => p.eval(get) || q.eval(get),
            Prop::Implies(p, q) => !p.eval(get) || q.eval(get),
        }
    }

    /// Every cell the proposition reads.
    pub fn cells(&self, out: &mut Vec<Cell>) {
        match self {
            Prop::True | Prop::False => {}
            Prop::Eq(c, v) => {
                out.push(*c);
                if let Operand::Cell(c) = v {
                    out.push(*c);
                }
            }
            Prop::Not(p) => p.cells(out),
            Prop::And(p, q) | Prop::Or(p, q) | Prop::Implies(p, q) => {
                p.cells(out);
                q.cells(out);
            }
        }
    }
}

/// How a condition's proposition is judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantifier {
    /// `exists`.
    Exists,
    /// `~exists`.
    NotExists,
    /// `forall`.
    Forall,
}

/// What herd7's `-outcomereads true` needs of each execution ([`crate::front::lower::reads`]):
/// the cells herd7 shows without it, and the registers some instruction that reads memory
/// writes, each with the ghost registers that say, in a final state, whether such an
/// instruction, or any, wrote it. [`Program::shown`] holds them all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reads {
    /// The cells the condition and `locations` name, in the order of [`Program::shown`].
    pub displayed: Vec<Cell>,
    /// The registers an instruction that reads memory writes, with their ghosts.
    pub tracked: Vec<Tracked>,
}

/// A register herd7's `-outcomereads true` may show, with its ghosts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tracked {
    /// The register.
    pub cell: Cell,
    /// The ghost that holds 1 once an instruction that reads memory has written it.
    pub loaded: Cell,
    /// The ghost that holds 1 once any instruction has written it; `None` when herd7's
    /// initial state holds the register (the init block sets it, or it is a parameter),
    /// and so every final state does.
    pub written: Option<Cell>,
}

/// The final condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    /// The quantifier.
    pub quantifier: Quantifier,
    /// The proposition.
    pub prop: Prop,
}

#[cfg(test)]
mod tests {
    use super::*;

    const X: Loc = Loc(0);
    const Y: Loc = Loc(1);
    /// No locations: addresses compare by their numbers.
    const O: AddrOrder = AddrOrder { keys: Vec::new() };

    fn int(n: i64) -> Term {
        Term::Val(Value::Int(n))
    }

    fn addr(l: Loc) -> Term {
        Term::Val(Value::Addr(l))
    }

    fn val(t: Term) -> Applied {
        Applied::Term(t)
    }

    #[test]
    fn herd7s_identities_decide_before_the_variable_is_known() {
        let v = Term::Var(3);
        let w = Term::Var(4);
        assert_eq!(herd_binary(BinOp::Xor, v, v, &O), val(int(0)));
        assert_eq!(herd_binary(BinOp::Xor, v, w, &O), Applied::Undetermined);
        assert_eq!(herd_binary(BinOp::Add, v, int(0), &O), val(v));
        assert_eq!(herd_binary(BinOp::Add, int(0), v, &O), val(v));
        assert_eq!(herd_binary(BinOp::Or, int(0), v, &O), val(v));
        assert_eq!(herd_binary(BinOp::Eq, v, v, &O), val(int(1)));
        assert_eq!(herd_binary(BinOp::Ne, v, v, &O), val(int(0)));
        // No identity for these: herd7 waits for the value.
        assert_eq!(herd_binary(BinOp::Sub, v, v, &O), Applied::Undetermined);
        assert_eq!(
            herd_binary(BinOp::And, v, int(0), &O),
            Applied::Undetermined
        );
        assert_eq!(
            herd_binary(BinOp::Mul, v, int(0), &O),
            Applied::Undetermined
        );
        assert_eq!(
            herd_binary(BinOp::Sub, v, int(0), &O),
            Applied::Undetermined
        );
        // An unsolved symbol of a finished execution is a variable too.
        let s = Term::Val(Value::Sym(7));
        assert_eq!(herd_binary(BinOp::Xor, s, s, &O), val(int(0)));
        assert_eq!(
            herd_binary(BinOp::Add, s, int(1), &O),
            Applied::Undetermined
        );
    }

    #[test]
    fn addresses_move_by_integers_and_nothing_else_applies_to_them() {
        assert_eq!(
            herd_binary(BinOp::Add, addr(X), int(2), &O),
            val(Term::Val(Value::Shifted(X, 2)))
        );
        assert_eq!(
            herd_binary(BinOp::Sub, Term::Val(Value::Shifted(X, 2)), int(2), &O),
            val(addr(X))
        );
        assert_eq!(herd_binary(BinOp::Sub, addr(X), addr(Y), &O), val(int(-1)));
        assert_eq!(herd_binary(BinOp::Sub, addr(Y), addr(X), &O), val(int(1)));
        assert_eq!(herd_binary(BinOp::Eq, addr(X), int(0), &O), val(int(0)));
        assert_eq!(herd_binary(BinOp::Ne, addr(X), int(0), &O), val(int(1)));
        assert_eq!(herd_binary(BinOp::Lt, addr(X), int(0), &O), val(int(0)));
        assert_eq!(herd_binary(BinOp::Gt, addr(X), int(0), &O), val(int(1)));
        assert_eq!(herd_binary(BinOp::Xor, addr(X), addr(X), &O), val(int(0)));
        for op in [BinOp::Mul, BinOp::And, BinOp::Le, BinOp::Xor] {
            assert_eq!(
                herd_binary(op, addr(X), int(2), &O),
                Applied::Illegal,
                "{op:?}"
            );
        }
        assert_eq!(
            herd_binary(BinOp::Add, addr(X), addr(Y), &O),
            Applied::Illegal
        );
        assert_eq!(
            herd_binary(BinOp::Div, int(6), int(0), &O),
            Applied::Illegal
        );
        assert_eq!(herd_binary(BinOp::Div, int(-7), int(2), &O), val(int(-3)));
        // herd7's integers are 32-bit.
        assert_eq!(
            herd_binary(BinOp::Add, int(2147483647), int(1), &O),
            val(int(-2147483648))
        );
        assert_eq!(
            herd_binary(BinOp::Mul, int(65536), int(65536), &O),
            val(int(0))
        );
    }

    #[test]
    fn addresses_compare_by_the_names_of_their_variables_then_by_offset() {
        let decl = |name: &str, next_to| LocDecl {
            name: name.into(),
            init: Value::Int(0),
            spinlock: false,
            next_to,
        };
        // Declared `z`, `a`, then herd7's location `z+1` next to `z`.
        let locs = [decl("z", None), decl("a", None), decl("z+1", Some((X, 1)))];
        let order = AddrOrder::of(&locs);
        let sub = |a, b| herd_binary(BinOp::Sub, Term::Val(a), Term::Val(b), &order);
        assert_eq!(sub(Value::Addr(X), Value::Addr(Y)), val(int(1)));
        assert_eq!(sub(Value::Addr(Y), Value::Addr(X)), val(int(-1)));
        assert_eq!(sub(Value::Shifted(Y, 5), Value::Addr(X)), val(int(-1)));
        assert_eq!(sub(Value::Shifted(X, -1), Value::Addr(X)), val(int(-1)));
        assert_eq!(sub(Value::Addr(Loc(2)), Value::Shifted(X, 1)), val(int(0)));
        assert_eq!(sub(Value::Addr(Loc(2)), Value::Addr(X)), val(int(1)));
    }

    #[test]
    fn herd7_words_the_operators_it_stops_on() {
        let mut program = crate::front::lower::lower(
            &hazmat_litmus::parse(
                "C t\n{}\nP0(int *z, int *a) { WRITE_ONCE(*z, 1); }\nexists (z=1)\n",
            )
            .expect("parses"),
        )
        .expect("lowers");
        let z = Value::Addr(Loc(0));
        let a = Value::Addr(Loc(1));
        program.addr_order = AddrOrder::of(&program.locs);
        let words = |op, x, y| program.herd7_illegal(op, x, y);
        assert_eq!(
            words(BinOp::Gt, z, a).as_deref(),
            Some("Illegal operation < on constants a and z")
        );
        assert_eq!(
            words(BinOp::Ge, Value::Shifted(Loc(0), -1), Value::Int(0)).as_deref(),
            Some("Illegal operation <= on constants 0 and z+-1")
        );
        assert_eq!(
            words(BinOp::Or, z, a).as_deref(),
            Some("Illegal | on z and a")
        );
        assert_eq!(words(BinOp::Or, z, Value::Int(1)), None);
        assert_eq!(words(BinOp::Div, Value::Int(6), Value::Int(0)), None);
        assert_eq!(
            words(BinOp::Div, z, Value::Int(0)).as_deref(),
            Some("Illegal operation / on constants z and 0")
        );
        assert_eq!(
            words(BinOp::AndNot, z, Value::Int(0)).as_deref(),
            Some("Illegal operation andnot2 on constants z and 0")
        );
    }
}
