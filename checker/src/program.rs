//! Programs: what lowering makes of a litmus test, and what the enumeration runs.
//!
//! A [`Program`] is a litmus test with every name resolved: shared variables are
//! [`Loc`]s, registers are small indices per thread, every call of a kernel primitive is
//! one [`Op`] whose events and annotations the primitive table fixed, and expressions are
//! pure (calls nested in expressions were hoisted into temporaries, left to right).
//! The condition, the filter and the `locations` list refer to [`Cell`]s.

use crate::event::{Loc, Tags, Value};

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
    /// The final condition; `forall (true)` when the test has none.
    pub condition: Condition,
}

impl Program {
    /// The name herd7 prints for a cell: `0:r1` or `x`.
    pub fn cell_name(&self, cell: Cell) -> String {
        match cell {
            Cell::Reg { thread, reg } => {
                let t = &self.threads[thread];
                format!("{}:{}", t.number, t.regs[reg])
            }
            Cell::Loc(loc) => self.locs[loc.0 as usize].name.clone(),
        }
    }

    /// A value as herd7 prints it: an integer, or the name of the location it points to.
    pub fn value_text(&self, value: Value) -> String {
        match value {
            Value::Int(n) => n.to_string(),
            Value::Addr(loc) => self.locs[loc.0 as usize].name.clone(),
            Value::Sym(n) => format!("S{n}"),
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

/// Applies a unary operator; `None` when it has no meaning on the value (an address).
pub fn apply_unary(op: UnOp, v: Value) -> Option<Value> {
    let Value::Int(n) = v else {
        return match op {
            UnOp::Not => Some(Value::Int(0)),
            _ => None,
        };
    };
    Some(Value::Int(match op {
        UnOp::Neg => n.wrapping_neg(),
        UnOp::Not => (n == 0) as i64,
        UnOp::BitNot => !n,
    }))
}

/// Applies a binary operator; `None` when it has no meaning on the values (arithmetic on
/// addresses, division by zero).
pub fn apply_binary(op: BinOp, a: Value, b: Value) -> Option<Value> {
    let truth = |v: Value| !matches!(v, Value::Int(0));
    match op {
        BinOp::Eq => return Some(Value::Int((a == b) as i64)),
        BinOp::Ne => return Some(Value::Int((a != b) as i64)),
        BinOp::LogAnd => return Some(Value::Int((truth(a) && truth(b)) as i64)),
        BinOp::LogOr => return Some(Value::Int((truth(a) || truth(b)) as i64)),
        _ => {}
    }
    let (Value::Int(x), Value::Int(y)) = (a, b) else {
        // Adding or subtracting zero keeps an address, as the kernel's tests use to build
        // address dependencies (`r8 = b + (r9 - r9)`); other arithmetic on addresses has
        // no meaning.
        return match (op, a, b) {
            (BinOp::Add | BinOp::Sub, Value::Addr(_), Value::Int(0)) => Some(a),
            (BinOp::Add, Value::Int(0), Value::Addr(_)) => Some(b),
            _ => None,
        };
    };
    Some(Value::Int(match op {
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::Div => x.checked_div(y)?,
        BinOp::Rem => x.checked_rem(y)?,
        BinOp::And => x & y,
        BinOp::Or => x | y,
        BinOp::Xor => x ^ y,
        BinOp::AndNot => x & !y,
        BinOp::Shl => x.wrapping_shl(y as u32),
        BinOp::Shr => x.wrapping_shr(y as u32),
        BinOp::Lt => (x < y) as i64,
        BinOp::Le => (x <= y) as i64,
        BinOp::Gt => (x > y) as i64,
        BinOp::Ge => (x >= y) as i64,
        BinOp::Eq | BinOp::Ne | BinOp::LogAnd | BinOp::LogOr => unreachable!("handled above"),
    }))
}

/// One instruction, with the byte range of the source it came from.
#[derive(Clone, Debug)]
pub struct Instr {
    /// What it does.
    pub op: Op,
    /// Byte range of the source statement or call.
    pub span: (usize, usize),
}

/// What an RMW writes.
#[derive(Clone, Debug)]
pub enum RmwWrite {
    /// `xchg`: the given value.
    Set(Expr),
    /// `atomic_add` and friends: the old value combined with the operand.
    Apply(BinOp, Expr),
}

/// The instructions of a thread.
#[derive(Clone, Debug)]
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
    },
    /// A write to memory.
    Store {
        /// The address written.
        addr: Expr,
        /// The value written.
        val: Expr,
        /// Annotations of the write event.
        tags: Tags,
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
        /// Annotations of both events ([`crate::event::Tag::Rmw`] included).
        tags: Tags,
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
        /// Annotations of the events ([`crate::event::Tag::Rmw`] included).
        tags: Tags,
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
        /// Annotations of the events ([`crate::event::Tag::Rmw`] included).
        tags: Tags,
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

/// The final condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    /// The quantifier.
    pub quantifier: Quantifier,
    /// The proposition.
    pub prop: Prop,
}
