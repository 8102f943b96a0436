//! herd7's macro files (`-macros`, `.def`): a user's own C macros, read into the shapes
//! hazmat's lowering knows.
//!
//! A line of a `.def` file defines one macro, `NAME(P1,...,Pn) BODY`, where the body is
//! one of herd7's internal instructions (`__load{once}(X)`, `__xchg{mb}(X,V)`,
//! `__atomic_op_return{mb}(X,-,V) == 0`...), a block of them (`{ __store{release}(*X,V); }`,
//! `{ __store{once}(X,V); __fence{mb}; }`, any number of them), or a macro defined above it
//! (`atomic_read(X) READ_ONCE(*X)`), in a block or not.
//! Each becomes a [`Macro`]: a `Shape` of [`crate::front::primitive`] with its annotations,
//! and the order in which the call's arguments fill the shape's; a block of several
//! instructions, the first so and the others as `Part`s after it, each of which the
//! lowering makes an instruction of its own, in program order, as herd7 does (a store then
//! a full fence, `smp_store_mb`'s block, is one shape).
//! A body hazmat cannot express (an annotation its events do not have, an argument that is
//! neither a parameter nor a number where the instruction takes one) is an error located
//! in the file.
//! Read from the kernel's `linux-kernel.def`, the macros are exactly the built-in table.
//!
//! Every version of the kernel's file reads: the lower-case annotations of the files before
//! 2025 (`__xchg{mb}`), which herd7 reads as its variant says ([`crate::front::variant`],
//! set by [`Macros::with_lkmm`]), and their SRCU instructions on the structure itself
//! (`__srcu{srcu-lock}(X)`, `__srcu{srcu-unlock}(X,Y)`, until 2023).
//! The dependent loads of the files of 2017, `__load{deref}(X)` and `__load{lderef}(X)`
//! (`rcu_dereference`, `lockless_dereference`), and their fence `__fence{rb_dep}`
//! (`smp_read_barrier_depends`), read as herd7 reads them (see
//! [`crate::front::instruction`]).
//! As herd7 does, a file that defines no `atomic_add_unless` still has it, as the
//! unannotated `__atomic_add_unless(X,V,W)` (herd7's "legacy" macro).

use crate::exec::event::{Tag, Tags};
use crate::front::instruction;
use crate::front::primitive::{self, Primitive, Returns, Shape};
use crate::front::program::BinOp;
use crate::front::variant::LkmmVersion;
use hazmat_litmus::ast;
use std::cell::RefCell;
use std::sync::LazyLock;

/// One macro of a `.def` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Macro {
    /// Its name.
    pub name: String,
    pub(crate) shape: Shape,
    pub(crate) tags: Tags,
    /// For each argument the shape takes, in the shape's order (see [`Shape`]), the index
    /// of the call's argument that gives it.
    pub(crate) args: Vec<usize>,
    /// The number of parameters.
    pub(crate) arity: usize,
    /// Whether its annotation is written in lower case (see [`Primitive::lower`]).
    pub(crate) lower: bool,
    /// How many of herd7's instructions a call of it as a statement counts as: a block
    /// counts one, and each instruction in it (a macro of a block, its own count); a
    /// macro that gives a value counts none of its own.
    pub(crate) cost: u32,
    /// The instructions of its block after the first, in order: each runs as a statement
    /// of its own after the one the fields above describe.
    pub(crate) then: Vec<Part>,
    /// The numbers its body writes where an instruction takes a value (`__store{ONCE}(*X,1)`):
    /// an argument index `arity + k` in [`Macro::args`] or a [`Part`]'s is the `k`th.
    pub(crate) consts: Vec<i64>,
}

/// One instruction of a macro's body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Part {
    pub(crate) shape: Shape,
    pub(crate) tags: Tags,
    /// For each argument the shape takes, the index of the call's argument that gives it
    /// (as [`Macro::args`]).
    pub(crate) args: Vec<usize>,
    /// Whether its annotation is written in lower case (see [`Primitive::lower`]).
    pub(crate) lower: bool,
}

impl Part {
    /// The part as the lowering's table entry (see [`Macro::primitive`]).
    pub(crate) fn primitive(&self) -> Primitive {
        Primitive {
            name: "",
            shape: self.shape,
            tags: self.tags,
            lower: self.lower,
        }
    }
}

/// The macros of one `.def` file, which replace the built-in table when a user gives one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Macros {
    list: Vec<Macro>,
    /// herd7's reading of the read-modify-writes' annotations, which the model's variants
    /// choose ([`LkmmVersion::V2`] unless told).
    pub(crate) lkmm: LkmmVersion,
}

/// herd7's `atomic_add_unless` for a macro file that does not define it: the instruction
/// with no annotation.
static LEGACY_ADD_UNLESS: LazyLock<Macro> = LazyLock::new(|| Macro {
    name: "atomic_add_unless".to_string(),
    shape: Shape::AddUnless,
    tags: Tags::NONE.with(Tag::Rmw),
    args: vec![0, 1, 2],
    arity: 3,
    lower: true,
    cost: 0,
    then: Vec::new(),
    consts: Vec::new(),
});

/// An error in a `.def` file: what, and where (line and column, from 1).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct DefError {
    /// What is wrong.
    pub message: String,
    /// The line.
    pub line: usize,
    /// The column.
    pub column: usize,
}

impl Macros {
    /// Reads a `.def` file.
    pub fn parse(text: &str) -> Result<Macros, DefError> {
        let mut macros = Macros::default();
        for (k, raw) in text.lines().enumerate() {
            let line = raw.trim_end();
            let content = line.trim_start();
            if content.is_empty() || content.starts_with("//") {
                continue;
            }
            let indent = line.len() - content.len();
            let at = |offset: usize, message: String| DefError {
                message,
                line: k + 1,
                column: indent + offset + 1,
            };
            let m = macros.definition(content).map_err(|(o, m)| at(o, m))?;
            if let Some(old) = macros.list.iter_mut().find(|x| x.name == m.name) {
                *old = m;
            } else {
                macros.list.push(m);
            }
        }
        Ok(macros)
    }

    /// The kernel's current macros, hazmat's built-in table, as a macro file.
    pub fn builtin() -> Macros {
        Macros {
            list: primitive::names()
                .filter_map(primitive::lookup)
                .map(|p| Macro {
                    name: p.name.to_string(),
                    shape: p.shape,
                    tags: p.tags,
                    args: (0..primitive::arity(p.shape)).collect(),
                    arity: primitive::arity(p.shape),
                    lower: p.lower,
                    // The kernel's file writes a block for each macro that gives no
                    // value, of one instruction but `smp_store_mb`'s two; the blocks of
                    // `atomic_set` and `atomic_set_release` call the store's macro.
                    cost: match p.shape {
                        _ if primitive::gives_value(p.shape) => 0,
                        Shape::StoreMb { .. } => 3,
                        _ if matches!(p.name, "atomic_set" | "atomic_set_release") => 3,
                        _ => 2,
                    },
                    then: Vec::new(),
                    consts: Vec::new(),
                })
                .collect(),
            lkmm: LkmmVersion::V2,
        }
    }

    /// The same macros, their read-modify-writes read as `lkmm` says.
    pub fn with_lkmm(mut self, lkmm: LkmmVersion) -> Macros {
        self.lkmm = lkmm;
        self
    }

    /// Whether a macro makes herd7's SRCU lock on the structure, whose number counts the
    /// thread's instructions (see [`Macro::cost`]).
    pub(crate) fn numbers_srcu_locks(&self) -> bool {
        self.list.iter().any(|m| {
            m.shape == Shape::SrcuLock || m.then.iter().any(|p| p.shape == Shape::SrcuLock)
        })
    }

    /// The macro called `name`: one of the file's, or herd7's legacy `atomic_add_unless`.
    pub(crate) fn lookup(&self, name: &str) -> Option<&Macro> {
        self.list
            .iter()
            .find(|m| m.name == name)
            .or_else(|| (name == LEGACY_ADD_UNLESS.name).then(|| &*LEGACY_ADD_UNLESS))
    }

    /// Whether a call of `name` has a meaning under these macros: one of the file's, or
    /// herd7's legacy `atomic_add_unless`.
    pub fn defines(&self, name: &str) -> bool {
        self.lookup(name).is_some()
    }

    /// The names of the macros, in the file's order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.list.iter().map(|m| m.name.as_str())
    }

    /// The macros, in the file's order.
    pub fn iter(&self) -> impl Iterator<Item = &Macro> {
        self.list.iter()
    }

    /// One definition: `NAME(PARAMS) BODY`; errors carry their offset in `s`.
    fn definition(&self, s: &str) -> Result<Macro, (usize, String)> {
        let open = s
            .find('(')
            .ok_or((0, "a macro is `NAME(PARAMETERS) BODY`".to_string()))?;
        let name = s[..open].trim();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err((0, format!("`{name}` is not a macro name")));
        }
        let close = s[open..]
            .find(')')
            .map(|c| open + c)
            .ok_or((open, "the parameter list is not closed".to_string()))?;
        let params: Vec<&str> = s[open + 1..close]
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect();
        let body_at = close + 1;
        let body = &s[body_at..];
        let consts = RefCell::new(Vec::new());
        let mut parts = self
            .body(body, &params, &consts)
            .map_err(|(o, m)| (body_at + o, m))?
            .into_iter();
        let Some(Part {
            shape, tags, args, ..
        }) = parts.next()
        else {
            return Err((body_at, "the macro's block is empty".to_string()));
        };
        // The annotation as written: the body's first `{...}`, or the inner macro's.
        let lower = match body.split_once('{').and_then(|(_, t)| t.split_once('}')) {
            Some((t, _)) if !t.contains(';') => !t.chars().any(|c| c.is_ascii_uppercase()),
            _ => self
                .list
                .iter()
                .find(|m| {
                    let inner = body.trim_start();
                    let inner = inner.strip_prefix('{').unwrap_or(inner).trim_start();
                    inner.starts_with(&format!("{}(", m.name))
                })
                .is_none_or(|m| m.lower),
        };
        Ok(Macro {
            name: name.to_string(),
            shape,
            tags,
            args,
            arity: params.len(),
            lower,
            cost: self.cost(body),
            then: parts.collect(),
            consts: consts.into_inner(),
        })
    }

    /// What a call of a macro of `body` counts as among herd7's instructions (see
    /// [`Macro::cost`]).
    fn cost(&self, body: &str) -> u32 {
        let Some(inner) = body.trim().strip_prefix('{') else {
            return 0;
        };
        let inner = inner.strip_suffix('}').unwrap_or(inner);
        1 + inner
            .split(';')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(|stmt| {
                let head = stmt.split(['(', '{']).next().unwrap_or("").trim();
                self.list
                    .iter()
                    .find(|m| m.name == head)
                    .map_or(1, |m| m.cost.max(1))
            })
            .sum::<u32>()
    }

    /// A body: a block of instructions, or one instruction with an optional comparison
    /// with 0; its instructions in order (a store then a full fence, `smp_store_mb`'s
    /// block, as one).
    fn body(
        &self,
        s: &str,
        params: &[&str],
        consts: &RefCell<Vec<i64>>,
    ) -> Result<Vec<Part>, (usize, String)> {
        let lead = s.len() - s.trim_start().len();
        let t = s.trim();
        if let Some(inner) = t.strip_prefix('{') {
            let inner = inner
                .strip_suffix('}')
                .ok_or((lead, "the block is not closed with `}`".to_string()))?;
            let stmts: Vec<&str> = inner
                .split(';')
                .map(str::trim)
                .filter(|x| !x.is_empty())
                .collect();
            let offset = |stmt: &str| lead + s.trim_start().find(stmt).unwrap_or(0);
            let mut parts = Vec::new();
            for stmt in &stmts {
                let more = self
                    .instruction(stmt, params, None, consts)
                    .map_err(|(o, m)| (offset(stmt) + o, m))?;
                parts.extend(more);
            }
            // A store to the location then a fence (`smp_store_mb`), each with the
            // annotations written.
            if let [store, fence] = parts.as_slice()
                && store.shape == (Shape::Store { lvalue: true })
                && fence.shape == Shape::Fence
            {
                let fence = fence.tags;
                let store = parts.swap_remove(0);
                return Ok(vec![Part {
                    shape: Shape::StoreMb { fence },
                    ..store
                }]);
            }
            return Ok(parts);
        }
        // One instruction, perhaps compared with 0.
        let (call, test) = match t.rsplit_once("==") {
            Some((c, z)) if z.trim() == "0" => (c.trim(), Some(BinOp::Eq)),
            _ => match t.rsplit_once('<') {
                Some((c, z)) if z.trim() == "0" => (c.trim(), Some(BinOp::Lt)),
                _ => (t, None),
            },
        };
        let parts = self
            .instruction(call, params, test, consts)
            .map_err(|(o, m)| (lead + o, m))?;
        if parts.len() > 1 {
            return Err((
                lead,
                format!(
                    "`{call}` is a block of several instructions, which gives no value: write \
                     it in braces"
                ),
            ));
        }
        Ok(parts)
    }

    /// One instruction `PRIM{TAG}(ARGS)` or `MACRO(ARGS)`.
    fn instruction(
        &self,
        s: &str,
        params: &[&str],
        test: Option<BinOp>,
        consts: &RefCell<Vec<i64>>,
    ) -> Result<Vec<Part>, (usize, String)> {
        let (head, args) = match s.find('(') {
            Some(o) => {
                let args = s[o + 1..]
                    .strip_suffix(')')
                    .ok_or((o, "the argument list is not closed".to_string()))?;
                (&s[..o], split_args(args))
            }
            None => (s, Vec::new()),
        };
        let (prim, tag) = match head.split_once('{') {
            Some((p, t)) => {
                let t = t
                    .strip_suffix('}')
                    .ok_or((p.len(), "the annotation is not closed with `}`".to_string()))?;
                (p.trim(), Some(t.trim()))
            }
            None => (head.trim(), None),
        };
        // herd7's dependent load, `__load{deref}(X)` or `__load{lderef}(X)`: a `once` read
        // and an `rb_dep` fence (see `crate::front::instruction`).
        let deref_load = prim == "__load" && tag.is_some_and(instruction::is_deref);
        let tags = match tag {
            None => Tags::NONE,
            Some(_) if deref_load => Tags::NONE,
            // The annotation as spelled: `ONCE` and `once` are two (herd7 matches a bell's
            // names exactly), and any other word one of its own.
            Some(t) => {
                instruction::annotation(t).map_err(|m| (head.find('{').map_or(0, |b| b + 1), m))?
            }
        };
        let param = |a: &str| -> Result<(usize, bool), (usize, String)> {
            let (deref, name) = match a.strip_prefix('*') {
                Some(n) => (true, n.trim()),
                None => (false, a),
            };
            // Where the argument is written, after the instruction's name.
            let at = s[head.len()..]
                .find(a)
                .map_or(head.len(), |o| head.len() + o);
            params
                .iter()
                .position(|p| *p == name)
                .map(|i| (i, deref))
                .ok_or((at, format!("`{a}` is not a parameter of the macro")))
        };
        let want = |n: usize| -> Result<(), (usize, String)> {
            if args.len() == n {
                Ok(())
            } else {
                Err((
                    head.len(),
                    format!("`{prim}` takes {n} arguments, not {}", args.len()),
                ))
            }
        };
        let plain = |a: &str| -> Result<usize, (usize, String)> {
            match param(a)? {
                (i, false) => Ok(i),
                (_, true) => Err((
                    head.len(),
                    format!("hazmat takes `{a}` here only without `*`"),
                )),
            }
        };
        // A value: a parameter, or a number (the index past the parameters of its place
        // among the macro's numbers).
        let constant = |n: i64| {
            let mut c = consts.borrow_mut();
            c.push(n);
            params.len() + c.len() - 1
        };
        let value = |a: &str| -> Result<usize, (usize, String)> {
            match a.parse::<i64>() {
                Ok(n) => Ok(constant(n)),
                Err(_) => plain(a),
            }
        };
        let rmw = tags.with(Tag::Rmw);
        let lower = tag.is_none_or(|t| !t.chars().any(|c| c.is_ascii_uppercase()));
        let one = |(shape, tags, args): (Shape, Tags, Vec<usize>)| {
            vec![Part {
                shape,
                tags,
                args,
                lower,
            }]
        };
        if test.is_some() && !matches!(prim, "__atomic_op_return") {
            return Err((
                0,
                "only `__atomic_op_return` may be compared with 0".to_string(),
            ));
        }
        Ok(one(match prim {
            "__load" => {
                want(1)?;
                let (x, star) = param(&args[0])?;
                (
                    Shape::Load {
                        lvalue: !star,
                        deref: deref_load,
                    },
                    tags,
                    vec![x],
                )
            }
            "__store" => {
                want(2)?;
                let (x, deref) = param(&args[0])?;
                (
                    Shape::Store { lvalue: !deref },
                    tags,
                    vec![x, value(&args[1])?],
                )
            }
            "__fence" => {
                want(0)?;
                (Shape::Fence, tags, Vec::new())
            }
            "__xchg" => {
                want(2)?;
                (Shape::Xchg, rmw, vec![plain(&args[0])?, value(&args[1])?])
            }
            "__cmpxchg" => {
                want(3)?;
                let a = vec![plain(&args[0])?, value(&args[1])?, value(&args[2])?];
                (Shape::Cmpxchg, rmw, a)
            }
            "__atomic_add_unless" => {
                want(3)?;
                let a = vec![plain(&args[0])?, value(&args[1])?, value(&args[2])?];
                (Shape::AddUnless, rmw, a)
            }
            "__srcu" if args.len() == 2 || tags.has(Tag::SrcuLock) => {
                // The SRCU instructions on the structure itself, of the files before 2023.
                if tags.has(Tag::SrcuLock) {
                    want(1)?;
                    (Shape::SrcuLock, tags, vec![plain(&args[0])?])
                } else if tags.has(Tag::SrcuUnlock) {
                    (
                        Shape::SrcuUnlock,
                        tags,
                        vec![plain(&args[0])?, value(&args[1])?],
                    )
                } else {
                    return Err((
                        head.len(),
                        "hazmat takes `__srcu` with 2 arguments only as `__srcu{srcu-unlock}(X,V)`"
                            .to_string(),
                    ));
                }
            }
            "__srcu" if !tags.has(Tag::SyncSrcu) => {
                return Err((
                    head.len(),
                    "hazmat takes `__srcu` as `__srcu{sync-srcu}(X)`, `__srcu{srcu-lock}(X)` \
                     or `__srcu{srcu-unlock}(X,V)`"
                        .to_string(),
                ));
            }
            "__lock" | "__unlock" | "__trylock" | "__islocked" | "__srcu" => {
                want(1)?;
                let shape = match prim {
                    "__lock" => Shape::Lock,
                    "__unlock" => Shape::Unlock,
                    "__trylock" => Shape::Trylock,
                    "__islocked" => Shape::IsLocked,
                    _ => Shape::SyncSrcu,
                };
                (shape, tags, vec![plain(&args[0])?])
            }
            "__atomic_op" | "__atomic_op_return" | "__atomic_fetch_op" => {
                want(3)?;
                let op = match args[1].as_str() {
                    "+" => BinOp::Add,
                    "-" => BinOp::Sub,
                    "&" => BinOp::And,
                    "|" => BinOp::Or,
                    "^" => BinOp::Xor,
                    "&~" => BinOp::AndNot,
                    o => return Err((head.len(), format!("`{o}` is not an operator herd7 takes"))),
                };
                let returns = match (prim, test) {
                    ("__atomic_op", _) => Returns::Nothing,
                    ("__atomic_fetch_op", _) => Returns::Old,
                    (_, Some(t)) => Returns::Test(t),
                    _ => Returns::New,
                };
                let x = plain(&args[0])?;
                let (constant, order) = match args[2].parse::<i64>() {
                    Ok(c) => (Some(c), vec![x]),
                    Err(_) => (None, vec![plain(&args[2])?, x]),
                };
                (
                    Shape::Op {
                        op,
                        constant,
                        returns,
                    },
                    rmw,
                    order,
                )
            }
            name => {
                // A macro defined above: each of its instructions, its arguments taken from
                // this call's.
                let Some(inner) = self.lookup(name) else {
                    return Err((
                        0,
                        format!(
                            "`{name}` is neither one of herd7's instructions nor a macro defined above"
                        ),
                    ));
                };
                if tag.is_some() {
                    return Err((name.len(), format!("`{name}` takes no annotation")));
                }
                want(inner.arity)?;
                let mut parts = Vec::with_capacity(1 + inner.then.len());
                for part in std::iter::once(inner.first()).chain(inner.then.iter().cloned()) {
                    let mut shape = part.shape;
                    let mut order = Vec::with_capacity(part.args.len());
                    for (k, &a) in part.args.iter().enumerate() {
                        // A number of the inner macro's own, or one this call gives it.
                        if a >= inner.arity {
                            order.push(constant(inner.consts[a - inner.arity]));
                            continue;
                        }
                        if let Ok(n) = args[a].parse::<i64>() {
                            order.push(constant(n));
                            continue;
                        }
                        let (i, deref) = param(&args[a])?;
                        if deref {
                            // `*X` for the location of a load or store that takes the
                            // location itself: the outer macro takes its address.
                            match (&mut shape, k) {
                                (Shape::Load { lvalue, .. } | Shape::Store { lvalue }, 0)
                                    if *lvalue =>
                                {
                                    *lvalue = false;
                                }
                                _ => {
                                    return Err((
                                        name.len(),
                                        format!("hazmat takes `{}` here only without `*`", args[a]),
                                    ));
                                }
                            }
                        }
                        order.push(i);
                    }
                    parts.push(Part {
                        shape,
                        args: order,
                        ..part
                    });
                }
                return Ok(parts);
            }
        }))
    }
}

/// The arguments of an instruction, split at top-level commas.
fn split_args(s: &str) -> Vec<String> {
    s.split(',')
        .map(|a| a.trim().to_string())
        .filter(|a| !a.is_empty())
        .collect()
}

impl Macro {
    /// The arguments a shape of this macro takes, `args` its indices (see [`Macro::args`]),
    /// from a call's arguments `call`: each the call's argument, or a number of the body's.
    pub(crate) fn arguments(&self, args: &[usize], call: &[ast::Expr]) -> Vec<ast::Expr> {
        args.iter()
            .map(|&i| match call.get(i) {
                Some(e) if i < self.arity => e.clone(),
                _ => ast::Expr {
                    kind: ast::ExprKind::Int(self.consts[i - self.arity]),
                    span: call.first().map_or_else(ast::Span::default, |e| e.span),
                },
            })
            .collect()
    }

    /// The macro's first instruction (its only one but for a block of several).
    pub(crate) fn first(&self) -> Part {
        Part {
            shape: self.shape,
            tags: self.tags,
            args: self.args.clone(),
            lower: self.lower,
        }
    }

    /// The macro as the lowering's table entry: its shape and annotations (lowering names
    /// a call by the name written, so the entry carries none).
    pub(crate) fn primitive(&self) -> Primitive {
        self.first().primitive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel's file gives the built-in table, entry for entry, with the arguments in
    /// the table's order.
    #[test]
    fn the_kernels_file_gives_the_built_in_table() {
        let dir = std::env::var("HAZMAT_CONFORMANCE")
            .unwrap_or_else(|_| "../../shared/conformance".into());
        let Ok(def) = std::fs::read_to_string(format!("{dir}/lkmm-model/linux-kernel.def")) else {
            eprintln!("no corpus; nothing to check");
            return;
        };
        let macros = Macros::parse(&def).unwrap_or_else(|e| panic!("{e}"));
        let names: Vec<&str> = crate::front::primitive::names().collect();
        assert_eq!(macros.names().collect::<Vec<_>>(), names);
        for m in macros.iter() {
            let p = crate::front::primitive::lookup(&m.name).expect("in the table");
            assert_eq!((m.shape, m.tags), (p.shape, p.tags), "{}", m.name);
            let identity: Vec<usize> = (0..m.args.len()).collect();
            assert_eq!(m.args, identity, "{}", m.name);
        }
    }

    #[test]
    fn a_users_macro_takes_its_arguments_in_its_own_order() {
        let m = Macros::parse(
            "READ_ONCE(X) __load{ONCE}(X)\n\
             my_add(X,V) { __atomic_op{NORETURN}(X,+,V); }\n\
             my_read(P) READ_ONCE(*P)\n\
             my_dec_and_test(X) __atomic_op_return{MB}(X,-,1) == 0\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let add = m.lookup("my_add").expect("defined");
        assert_eq!(add.args, vec![1, 0]);
        let read = m.lookup("my_read").expect("defined");
        assert_eq!(
            read.shape,
            Shape::Load {
                lvalue: false,
                deref: false
            }
        );
        let dec = m.lookup("my_dec_and_test").expect("defined");
        assert!(matches!(
            dec.shape,
            Shape::Op {
                constant: Some(1),
                returns: Returns::Test(BinOp::Eq),
                ..
            }
        ));
    }

    /// The SRCU instructions on the structure of the files before 2023, as the kernel wrote
    /// them from 2018 on.
    #[test]
    fn the_srcu_instructions_of_older_files_read() {
        let m = Macros::parse(
            "WRITE_ONCE(X,V) { __store{once}(X,V); }\n\
             srcu_read_lock(X)  __srcu{srcu-lock}(X)\n\
             srcu_read_unlock(X,Y) { __srcu{srcu-unlock}(X,Y); }\n\
             synchronize_srcu(X)  { __srcu{sync-srcu}(X); }\n\
             atomic_set(X,V) { WRITE_ONCE(*X,V); }\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let lock = m.lookup("srcu_read_lock").expect("defined");
        assert_eq!((lock.shape, lock.cost), (Shape::SrcuLock, 0));
        let unlock = m.lookup("srcu_read_unlock").expect("defined");
        assert_eq!(
            (unlock.shape, unlock.args.clone()),
            (Shape::SrcuUnlock, vec![0, 1])
        );
        assert_eq!(unlock.cost, 2);
        assert_eq!(
            m.lookup("synchronize_srcu").expect("defined").shape,
            Shape::SyncSrcu
        );
        // A block calling a block: herd7 counts both blocks and the store.
        assert_eq!(m.lookup("atomic_set").expect("defined").cost, 3);
        assert!(m.numbers_srcu_locks());
        assert!(!Macros::builtin().numbers_srcu_locks());
    }

    #[test]
    fn a_file_without_atomic_add_unless_has_herd7s_own() {
        let m = Macros::parse("READ_ONCE(X) __load{once}(X)\n").unwrap_or_else(|e| panic!("{e}"));
        let add = m.lookup("atomic_add_unless").expect("herd7's legacy macro");
        assert_eq!(
            (add.shape, add.tags),
            (Shape::AddUnless, Tags::of(&[Tag::Rmw]))
        );
        assert!(!m.names().any(|n| n == "atomic_add_unless"));
        let own = Macros::parse("atomic_add_unless(X,V,W) __atomic_add_unless{MB}(X,V,W)\n")
            .unwrap_or_else(|e| panic!("{e}"));
        let add = own.lookup("atomic_add_unless").expect("defined");
        assert!(add.tags.has(Tag::Mb) && !add.lower);
    }

    #[test]
    fn an_annotations_case_is_kept() {
        let m = Macros::parse(
            "xchg(X,V) __xchg{mb}(X,V)\n\
             XCHG(X,V) __xchg{MB}(X,V)\n\
             my_xchg(X,V) xchg(X,V)\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(m.lookup("xchg").expect("defined").lower);
        assert!(!m.lookup("XCHG").expect("defined").lower);
        assert!(m.lookup("my_xchg").expect("defined").lower);
    }

    #[test]
    fn the_builtin_table_reads_as_the_kernels_file() {
        let dir = std::env::var("HAZMAT_CONFORMANCE")
            .unwrap_or_else(|_| "../../shared/conformance".into());
        let Ok(def) = std::fs::read_to_string(format!("{dir}/lkmm-model/linux-kernel.def")) else {
            eprintln!("no corpus; nothing to check");
            return;
        };
        let parsed = Macros::parse(&def).unwrap_or_else(|e| panic!("{e}"));
        let builtin = Macros::builtin();
        assert_eq!(parsed.list.len(), builtin.list.len());
        for (p, b) in parsed.iter().zip(builtin.iter()) {
            assert_eq!(
                (&p.name, p.shape, p.tags, &p.args, p.arity, p.cost),
                (&b.name, b.shape, b.tags, &b.args, b.arity, b.cost),
            );
            // The case of an annotation counts for read-modify-writes only.
            if p.tags.has(Tag::Rmw) {
                assert_eq!(p.lower, b.lower, "{}", p.name);
            }
        }
    }

    /// The dependent loads of the kernel's files of 2017 and their fence.
    #[test]
    fn the_dependent_loads_read() {
        let m = Macros::parse(
            "rcu_dereference(X) __load{deref}(X)\n\
             lockless_dereference(X) __load{lderef}(X)\n\
             my_deref(P) rcu_dereference(*P)\n\
             smp_read_barrier_depends() { __fence{rb_dep}; }\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        for (name, lvalue) in [
            ("rcu_dereference", true),
            ("lockless_dereference", true),
            ("my_deref", false),
        ] {
            let d = m.lookup(name).expect("defined");
            assert_eq!(
                d.shape,
                Shape::Load {
                    lvalue,
                    deref: true
                },
                "{name}"
            );
            assert_eq!(d.tags, Tags::NONE, "{name}");
        }
        let fence = m.lookup("smp_read_barrier_depends").expect("defined");
        assert_eq!(fence.shape, Shape::Fence);
        assert_eq!(fence.tags, Tags::of(&[Tag::RbDep]));
    }

    /// Any word is an annotation, kept as written, as herd7 keeps it: a bell that names
    /// it reads it.
    #[test]
    fn a_macro_file_may_use_words_of_its_own() {
        let m = Macros::parse(
            "READ_ONCE(X) __load{Once}(X)\n\
             smp_store_mb(X,V) { __store{Once}(X,V); __fence{Full}; }\n\
             odd(X,V) { __store{deref}(X,V); }\n",
        )
        .expect("parses");
        let once = Tags::annotation("Once").expect("room for a word");
        let read = m.lookup("READ_ONCE").expect("defined");
        assert_eq!(read.tags, once);
        let store_mb = m.lookup("smp_store_mb").expect("defined");
        assert_eq!(
            store_mb.shape,
            Shape::StoreMb {
                fence: Tags::annotation("Full").expect("room for a word")
            }
        );
        assert_eq!(store_mb.tags, once);
        // `deref` is herd7's dependent load on a load alone; elsewhere, a word as any other.
        let odd = m.lookup("odd").expect("defined");
        assert_eq!(
            odd.tags,
            Tags::annotation("deref").expect("room for a word")
        );
        assert!(odd.tags.has_other() && Tags::named("deref") == odd.tags);
    }

    #[test]
    fn a_block_of_several_instructions_is_each_in_order() {
        let text = "two(X,V) { __fence{MB}; __store{ONCE}(X,V); }\n\
                    three(X,V) { two(X,V); __load{ACQUIRE}(*X); }\n";
        let macros = Macros::parse(text).unwrap_or_else(|e| panic!("{e}"));
        let three = macros.lookup("three").expect("defined");
        let shapes: Vec<Shape> = std::iter::once(three.shape)
            .chain(three.then.iter().map(|p| p.shape))
            .collect();
        assert_eq!(
            shapes,
            [
                Shape::Fence,
                Shape::Store { lvalue: true },
                Shape::Load {
                    lvalue: false,
                    deref: false
                }
            ]
        );
        assert_eq!(three.then[0].args, [0, 1]);
        assert_eq!(three.then[1].args, [0]);
    }

    /// A number where an instruction takes a value is the macro's own, after its
    /// parameters; a macro that calls it with a number, or calls one that has its own, too.
    #[test]
    fn numbers_in_a_body_are_the_macros_own() {
        let text = "set(X) { __store{ONCE}(*X,1); }\n\
                    cas(X,V) __cmpxchg{MB}(X,V,2)\n\
                    both(X) { set(X); __xchg{MB}(X,3); }\n";
        let macros = Macros::parse(text).unwrap_or_else(|e| panic!("{e}"));
        let set = macros.lookup("set").expect("defined");
        assert_eq!(
            (set.args.as_slice(), set.consts.as_slice()),
            (&[0, 1][..], &[1][..])
        );
        let cas = macros.lookup("cas").expect("defined");
        assert_eq!(
            (cas.args.as_slice(), cas.consts.as_slice()),
            (&[0, 1, 2][..], &[2][..])
        );
        let both = macros.lookup("both").expect("defined");
        assert_eq!(both.consts, [1, 3]);
        assert_eq!(
            (both.args.as_slice(), both.then[0].args.as_slice()),
            (&[0, 1][..], &[0, 2][..])
        );
    }

    #[test]
    fn what_hazmat_cannot_express_is_located() {
        for (text, line, column, says) in [
            (
                "two(X) { __fence{MB}; __fence{MB}; }\nm(X) two(X)\n",
                2,
                6,
                "a block of several instructions, which gives no value",
            ),
            (
                "m(X) __frob(X)\n",
                1,
                6,
                "neither one of herd7's instructions",
            ),
            ("  m(X) __load{ONCE}(Y)\n", 1, 21, "`Y` is not a parameter"),
            (
                "m(X) { __fence{MB}; __load{ONCE}(1); }\n",
                1,
                34,
                "`1` is not a parameter",
            ),
        ] {
            let e = Macros::parse(text).expect_err(text);
            assert_eq!((e.line, e.column), (line, column), "{text}: {e}");
            assert!(e.message.contains(says), "{text}: {e}");
        }
    }
}
