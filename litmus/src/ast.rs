//! The abstract syntax tree of a herd7 C litmus test.
//!
//! The tree follows the file: a header (name, doc string, info lines, comments and the
//! `Result:` expectations found in them), the init block, the threads, and the trailer
//! (`locations`, `filter` and the final condition).
//!
//! # Spans and equality
//!
//! Every node carries a [`Span`], the byte range of the source text it came from.
//! Two spans always compare equal and hash alike, so the derived `PartialEq` of every node
//! is structural equality *ignoring spans*: `parse(&print(&t)) == Ok(t)` holds although the
//! printed text places everything elsewhere.
//! Compare positions with [`Span::same_range`] when they matter.
//!
//! # Stability
//!
//! The enums that are likely to grow (`ExprKind`, `StmtKind`, `InitValue`, `Value`,
//! `Outcome`) are `#[non_exhaustive]`: match them with a final arm that refuses the rest.

use std::fmt;
use std::hash::{Hash, Hasher};

/// A byte range `start..end` of the source text.
///
/// Equality and hashing ignore the range: any two spans are equal (see the module notes).
#[derive(Clone, Copy, Default)]
pub struct Span {
    /// Offset of the first byte.
    pub start: usize,
    /// Offset one past the last byte.
    pub end: usize,
}

impl Span {
    /// The span `start..end`.
    pub const fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// A span that names no source text, for trees built by hand.
    pub const DUMMY: Span = Span { start: 0, end: 0 };

    /// The smallest span covering both `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// Whether both spans cover the same bytes (the comparison `==` does not make).
    pub fn same_range(self, other: Span) -> bool {
        self.start == other.start && self.end == other.end
    }

    /// The 1-based line and column (in characters) of `self.start` in `source`.
    pub fn line_col(self, source: &str) -> (usize, usize) {
        line_col(source, self.start)
    }
}

impl PartialEq for Span {
    fn eq(&self, _other: &Span) -> bool {
        true
    }
}

impl Eq for Span {}

impl Hash for Span {
    fn hash<H: Hasher>(&self, _state: &mut H) {}
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// The 1-based line and column (counted in characters) of byte `offset` in `source`.
///
/// An offset past the end, or inside a character, is clamped to the nearest boundary before it.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &source[..offset];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1;
    (line, col)
}

/// A name with its place in the source: a variable, register, parameter or function.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Ident {
    /// The name as written.
    pub name: String,
    /// Where it is written.
    pub span: Span,
}

impl Ident {
    /// An identifier with the given name and span.
    pub fn new(name: impl Into<String>, span: Span) -> Ident {
        Ident {
            name: name.into(),
            span,
        }
    }
}

/// One litmus test: a whole `.litmus` file.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Test {
    /// The architecture word of the first line; `C` for every test this crate accepts.
    pub arch: String,
    /// The test name, the rest of the first line (for example `MP+poonceonces`).
    pub name: Ident,
    /// The optional quoted doc string that follows the name, without its quotes.
    pub doc: Option<String>,
    /// Other header lines before the init block, in order, such as `Cycle=Rfe PodRR Fre`.
    pub info: Vec<InfoLine>,
    /// Every `(* ... *)` comment outside the thread bodies, in source order.
    pub comments: Vec<Comment>,
    /// The expected outcomes stated by `Result:` lines inside those comments.
    pub expectations: Vec<Expectation>,
    /// The init block `{ ... }`, item by item.
    pub init: Vec<InitItem>,
    /// The threads `P0`, `P1`, ... in source order.
    pub threads: Vec<Thread>,
    /// `regions: x:PROP, y:A B`, after the threads: the memory regions of locations.
    pub regions: Option<Vec<Region>>,
    /// `locations [x; 0:r1;]`: extra locations to show in the final states.
    pub locations: Option<Vec<Location>>,
    /// `filter (...)`: executions failing it are discarded before the condition is judged.
    pub filter: Option<Prop>,
    /// The final condition; absent in a few tests that only check for deadlock.
    pub condition: Option<Condition>,
    /// The whole file.
    pub span: Span,
}

impl Test {
    /// The name as herd7 keeps it: the header's, without a `.litmus` suffix, so that
    /// `C t.litmus` and `C t` name one test.
    pub fn herd7_name(&self) -> &str {
        self.name
            .name
            .strip_suffix(".litmus")
            .unwrap_or(&self.name.name)
    }

    /// The expectation for `model` (`None`: the kernel's plain `Result:` line, the LKMM one).
    pub fn expectation(&self, model: Option<&str>) -> Option<&Expectation> {
        self.expectations
            .iter()
            .find(|e| e.model.as_deref() == model)
    }

    /// The value of the header line `key=value`, if the header has one.
    pub fn info(&self, key: &str) -> Option<&str> {
        self.info
            .iter()
            .find_map(|line| line.key_value().filter(|(k, _)| *k == key).map(|(_, v)| v))
    }

    /// The value of the first header line whose key is `key` in any case, as herd7 finds
    /// the keys it reads (`Unroll`, `Variant`), with where the line is written.
    pub fn info_any_case(&self, key: &str) -> Option<(&str, Span)> {
        self.info.iter().find_map(|line| {
            let (k, v) = line.key_value()?;
            k.eq_ignore_ascii_case(key).then_some((v, line.span))
        })
    }
}

/// A header line between the test name and the init block that is neither doc string nor
/// comment, kept verbatim (trimmed); the generators write `Key=value` lines such as
/// `Cycle=...`, `Relax=...`, `Safe=...`, `Prefetch=...`, `Com=...`, `Orig=...`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct InfoLine {
    /// The line's text, without surrounding white space.
    pub text: String,
    /// Where it is written.
    pub span: Span,
}

impl InfoLine {
    /// The line split at its first `=` into a trimmed key and value, if it has one.
    pub fn key_value(&self) -> Option<(&str, &str)> {
        let (k, v) = self.text.split_once('=')?;
        Some((k.trim(), v.trim()))
    }
}

/// Where a comment stands, which is where the printer puts it back.
///
/// herd7 reads everything between the init block and the trailer as C, where `(*` is no
/// comment, so a `(* ... *)` comment stands either before that part or after it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum CommentPlace {
    /// In the header or the init block.
    Header,
    /// In the trailer (`locations`, `filter`, condition) or after it.
    Trailer,
}

/// A `(* ... *)` comment.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Comment {
    /// The text between `(*` and `*)`, verbatim.
    pub text: String,
    /// Where the comment stands.
    pub place: CommentPlace,
    /// The comment, delimiters included.
    pub span: Span,
}

/// The outcome a `Result:` line expects.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum Outcome {
    /// No allowed execution satisfies the `exists` clause.
    Never,
    /// Some but not all allowed executions satisfy it.
    Sometimes,
    /// Every allowed execution satisfies it.
    Always,
    /// `DEADLOCK`: the test has no complete execution; judged as `Never` with no states.
    Deadlock,
}

impl Outcome {
    /// The word as written in a `Result:` line.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Never => "Never",
            Outcome::Sometimes => "Sometimes",
            Outcome::Always => "Always",
            Outcome::Deadlock => "DEADLOCK",
        }
    }
}

/// One `Result:` line of a comment: `Result: Never`, `Result: Sometimes DATARACE`,
/// `Result(sc): Never`, `Result: Flag srcu-bad-nesting`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Expectation {
    /// `Some("sc")` for `Result(sc):`; `None` for the kernel's plain `Result:` (LKMM).
    pub model: Option<String>,
    /// The expected outcome; `None` when the line states only flags.
    pub outcome: Option<Outcome>,
    /// The other words of the line, verbatim: `DATARACE`, or `Flag`'s argument such as
    /// `srcu-bad-nesting`.
    pub flags: Vec<String>,
    /// The `Result...` line inside its comment.
    pub span: Span,
}

impl Expectation {
    /// Whether the line carries the `DATARACE` marker.
    pub fn data_race(&self) -> bool {
        self.flags.iter().any(|f| f == "DATARACE")
    }
}

/// A C type as litmus tests use it: `int`, `volatile int *`, `spinlock_t *`,
/// `struct srcu_struct *`, `char **`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Type {
    /// Whether `volatile` was written.
    pub volatile: bool,
    /// The base type, `struct` included when written: `int`, `atomic_t`, `struct srcu_struct`;
    /// empty for the init block's `*p`, herd7's pointer of the default type.
    pub base: String,
    /// The number of `*` after the base type.
    pub pointers: u32,
    /// Where the type is written.
    pub span: Span,
}

/// One item of the init block, with its `;`.
///
/// Examples: `x=1;` (no type, integer), `y=x;` and `int *p=&y;` (an address), `int x;`
/// (declaration only, value 0), `atomic_t v = ATOMIC_INIT(1);`, `0:r1=0;`, `int 0:r1 = z;`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct InitItem {
    /// The declared type, if any.
    pub ty: Option<Type>,
    /// The location initialised: a shared variable or a thread's register.
    pub target: Location,
    /// The initial value, if given.
    pub value: Option<InitValue>,
    /// The item, type to value.
    pub span: Span,
}

/// The value of an init item.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum InitValue {
    /// An integer, possibly negative.
    Int(i64),
    /// The address of a shared variable: `y=x;` and `y=&x;` both mean this.
    Addr(Ident),
    /// `ATOMIC_INIT(n)`.
    AtomicInit(i64),
}

/// A location named in the init block, the trailer or the condition.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Location {
    /// A shared variable: `x`, or `[x]` in a condition.
    Global(Ident),
    /// A thread's register: `0:r1`.
    Register {
        /// The thread number, the `0` of `P0`.
        thread: u32,
        /// The register name.
        reg: Ident,
        /// The whole `0:r1`.
        span: Span,
    },
}

impl Location {
    /// Where the location is written.
    pub fn span(&self) -> Span {
        match self {
            Location::Global(id) => id.span,
            Location::Register { span, .. } => *span,
        }
    }
}

/// One entry of the `regions:` section that may follow the threads: a location and the
/// regions it lies in (`x:PROP`, `y:A B`).
///
/// herd7 gives a region's events to a model only through a bell file that declares the
/// region; for every other model the section changes nothing.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Region {
    /// The location.
    pub loc: Ident,
    /// The regions it lies in, at least one.
    pub regions: Vec<Ident>,
    /// The whole entry.
    pub span: Span,
}

/// A thread: `P0(int *x, spinlock_t *l) { ... }`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Thread {
    /// The thread number: 0 for `P0`.
    pub id: u32,
    /// The `P0` itself.
    pub name_span: Span,
    /// The parameters, which name the shared variables the thread uses.
    pub params: Vec<Param>,
    /// The statements of the body, in order.
    pub body: Vec<Stmt>,
    /// The whole thread, `P0` to the closing brace.
    pub span: Span,
}

/// A thread parameter: `int *x`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Param {
    /// Its type, usually a pointer.
    pub ty: Type,
    /// Its name, which is the shared variable's name.
    pub name: Ident,
    /// The whole parameter.
    pub span: Span,
}

/// A statement of a thread body.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Stmt {
    /// What the statement is.
    pub kind: StmtKind,
    /// The whole statement, its `;` or closing brace included.
    pub span: Span,
}

/// The kinds of statement.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum StmtKind {
    /// `int r0;` or `int *r4 = x;`: a local (register) declaration.
    Decl {
        /// The declared type.
        ty: Type,
        /// The name declared.
        name: Ident,
        /// The initialiser, if any.
        init: Option<Expr>,
    },
    /// `lhs = rhs;`, where `lhs` is a register (`r0`) or a dereference (`*x`).
    Assign {
        /// The place assigned.
        lhs: Expr,
        /// The value assigned.
        rhs: Expr,
    },
    /// An expression evaluated for its effect: `WRITE_ONCE(*x, 1);`, `smp_mb();`.
    Expr(Expr),
    /// `if (cond) then else els`; either branch may be a block or a single statement.
    If {
        /// The condition.
        cond: Expr,
        /// The statement run when it holds.
        then: Box<Stmt>,
        /// The statement run otherwise, if any.
        els: Option<Box<Stmt>>,
    },
    /// `{ ... }`.
    Block(Vec<Stmt>),
    /// `while (cond) body`.
    While {
        /// The loop condition.
        cond: Expr,
        /// The loop body.
        body: Box<Stmt>,
    },
    /// A C comment between statements, kept only by
    /// [`parse_keeping_comments`](crate::parse_keeping_comments) (for formatting);
    /// [`parse`](crate::parse) never produces it, so the checker need not handle it.
    Comment {
        /// The text between `//` and the end of the line, or between `/*` and `*/`.
        text: String,
        /// Whether it was written `/* ... */` rather than `// ...`.
        block: bool,
        /// Whether it ends the line of the statement before it, rather than standing on its
        /// own line.
        trailing: bool,
    },
}

/// An expression.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Expr {
    /// What the expression is.
    pub kind: ExprKind,
    /// The whole expression, its parentheses excluded.
    pub span: Span,
}

/// The kinds of expression, those of herd7's C dialect.
///
/// Parentheses leave no node: the tree's shape records the grouping, and the printer writes
/// the parentheses that precedence requires.
/// The dialect has no unary operator but the dereference: no `-e`, `!e`, `~e` or `&x`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum ExprKind {
    /// An integer literal, decimal in thread code; `-1` is one literal, as herd7 reads it.
    Int(i64),
    /// A register or parameter.
    Ident(Ident),
    /// `*e`: the location at the address `e`.
    Deref(Box<Expr>),
    /// A binary operator applied to two operands.
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// A call of a primitive or macro by name: `READ_ONCE(*x)`, `smp_mb()`.
    Call {
        /// The name called.
        func: Ident,
        /// The arguments, in order.
        args: Vec<Expr>,
    },
    /// A cast: `(int)e`, `(char **)y`, `(void)e`.
    Cast(Type, Box<Expr>),
    /// One of herd7's internal instructions, the ones the kernel's macros expand to, written
    /// in thread code with its annotations: `__load{once}(*x)`, `__store{release}(*x, 1)`,
    /// `__fence{mb}`, `__xchg{mb}(x, 1)`, `__cmpxchg{acquire}(x, 0, 1)`,
    /// `__atomic_op{noreturn}(x, +, 1)`, `__atomic_op_return{mb}(x, -, 1)`,
    /// `__atomic_fetch_op{once}(x, |, 1)`, `__atomic_add_unless{mb}(x, 1, 0)`,
    /// `__srcu{srcu-lock}(s)`.
    /// herd7's grammar knows them whatever macro file it reads.
    Instruction {
        /// The instruction's name.
        func: Ident,
        /// The annotations between the braces, in order (`mb`, `rcu-lock`); empty for
        /// `__atomic_op(...)` written without braces, the one instruction that may be.
        annotations: Vec<Ident>,
        /// The operator of `__atomic_op`, `__atomic_op_return` and `__atomic_fetch_op`,
        /// written as their second argument.
        op: Option<AtomicOp>,
        /// The other arguments, in order; none for `__fence`, which has no parentheses.
        args: Vec<Expr>,
    },
}

/// The operator an atomic operation instruction applies (`__atomic_op{..}(x, OP, v)`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum AtomicOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `&`
    And,
    /// `|`
    Or,
    /// `^`
    Xor,
    /// `&~`: the old value and the complement of the operand.
    AndNot,
}

impl AtomicOp {
    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        match self {
            AtomicOp::Add => "+",
            AtomicOp::Sub => "-",
            AtomicOp::And => "&",
            AtomicOp::Or => "|",
            AtomicOp::Xor => "^",
            AtomicOp::AndNot => "&~",
        }
    }
}

/// Binary operators, those of herd7's C dialect (see [`BinaryOp::precedence`]).
///
/// The dialect has no `%`, `<<`, `>>`, `&&` or `||`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum BinaryOp {
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `&`
    BitAnd,
    /// `^`
    BitXor,
    /// `|`
    BitOr,
}

impl BinaryOp {
    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        match self {
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitXor => "^",
            BinaryOp::BitOr => "|",
        }
    }

    /// herd7's binding strength: higher binds tighter (`*` is 6, `|` is 1).
    ///
    /// The order is C's, except that the six comparisons share one level and do not
    /// associate: `a == b == c` and `a < b == c` are errors, `(a == b) == c` is not.
    /// The other operators associate to the left.
    pub fn precedence(self) -> u8 {
        match self {
            BinaryOp::Mul | BinaryOp::Div => 6,
            BinaryOp::Add | BinaryOp::Sub => 5,
            BinaryOp::Lt
            | BinaryOp::Le
            | BinaryOp::Gt
            | BinaryOp::Ge
            | BinaryOp::Eq
            | BinaryOp::Ne => 4,
            BinaryOp::BitAnd => 3,
            BinaryOp::BitXor => 2,
            BinaryOp::BitOr => 1,
        }
    }

    /// Whether the operator is one of the six comparisons, which do not associate.
    pub fn is_comparison(self) -> bool {
        self.precedence() == 4
    }
}

/// The final condition: a quantifier and a proposition.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Condition {
    /// `exists`, `~exists` (also written `not exists`) or `forall`.
    pub quantifier: Quantifier,
    /// The proposition over the final state.
    pub prop: Prop,
    /// The whole condition, keyword included.
    pub span: Span,
}

/// How the condition's proposition is judged over the allowed executions.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Quantifier {
    /// `exists`: some execution satisfies it.
    Exists,
    /// `~exists` or `not exists`: no execution satisfies it.
    NotExists,
    /// `forall`: every execution satisfies it.
    Forall,
}

/// A proposition over the final state, as in `exists`, `forall` and `filter`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Prop {
    /// What the proposition is.
    pub kind: PropKind,
    /// The whole proposition, its parentheses excluded.
    pub span: Span,
}

/// The kinds of proposition. Binding, tightest first: `~`, `/\`, `\/`, `=>`;
/// `/\` and `\/` associate to the left, `=>` to the right.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum PropKind {
    /// `true`
    True,
    /// `false`
    False,
    /// `loc=value` or `loc!=value`.
    Atom(Atom),
    /// `~p`
    Not(Box<Prop>),
    /// `p /\ q`
    And(Box<Prop>, Box<Prop>),
    /// `p \/ q`
    Or(Box<Prop>, Box<Prop>),
    /// `p => q`
    Implies(Box<Prop>, Box<Prop>),
}

/// An atomic proposition: `0:r1=1`, `x=2`, `[x]=y`, `x!=0`, `0:r1=1:r2`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Atom {
    /// The location whose final value is tested.
    pub loc: Location,
    /// `=` or `!=`.
    pub op: CmpOp,
    /// The value it is compared with.
    pub value: Value,
    /// The whole atom.
    pub span: Span,
}

/// Comparison of an atom.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum CmpOp {
    /// `=`
    Eq,
    /// `!=` (also written `<>`)
    Ne,
}

/// The right-hand side of an atom.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum Value {
    /// An integer, possibly negative.
    Int(i64),
    /// The address of a shared variable: `x=y` means "x holds the address of y".
    Addr(Ident),
    /// Another thread's register, whose final value is compared: `0:r1=1:r2`.
    Register {
        /// The thread number.
        thread: u32,
        /// The register name.
        reg: Ident,
        /// The whole `1:r2`.
        span: Span,
    },
}
