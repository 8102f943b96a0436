//! The names of a test's trailer held against what its threads and its init block use.
//!
//! herd7 reads a location that the condition (or the filter, or `locations [...]`) names
//! and nothing else does as a variable that holds 0 in every execution, and a register
//! that its thread never mentions as a register that holds 0: a misspelt `count` for
//! `cnt`, or `0:r0` for `1:r0`, turns the test into another one that is decided without
//! a word (`Never`, where `Sometimes` was meant).
//! [`trailer_warnings`] says so of each such name, with the name probably meant; the
//! library returns these warnings after lowering's own ([`crate::check_source`]).

use crate::front::c11::{self, Dialect};
use crate::front::lower::Warning;
use crate::front::primitive;
use hazmat_litmus::ast;
use hazmat_litmus::diagnostic::{closest, did_you_mean};

/// What one thread's code does with its names.
#[derive(Default)]
struct ThreadNames<'t> {
    number: u32,
    /// Parameters, registers the code reads or writes, and registers the init block sets.
    used: Vec<&'t str>,
    /// Registers the code declares without giving them a value, and never assigns or reads.
    declared: Vec<&'t str>,
    /// The names the code calls, in the order written.
    calls: Vec<&'t ast::Ident>,
}

impl<'t> ThreadNames<'t> {
    fn of(test: &'t ast::Test, thread: &'t ast::Thread) -> ThreadNames<'t> {
        let mut names = ThreadNames {
            number: thread.id,
            ..Default::default()
        };
        names
            .used
            .extend(thread.params.iter().map(|p| p.name.name.as_str()));
        for item in &test.init {
            if let ast::Location::Register { thread, reg, .. } = &item.target
                && *thread == names.number
            {
                names.used.push(&reg.name);
            }
        }
        names.stmts(&thread.body);
        names.declared.retain(|d| !names.used.contains(d));
        names
    }

    fn stmts(&mut self, body: &'t [ast::Stmt]) {
        for s in body {
            match &s.kind {
                ast::StmtKind::Decl { name, init, .. } => match init {
                    Some(e) => {
                        self.used.push(&name.name);
                        self.expr(e);
                    }
                    None => self.declared.push(&name.name),
                },
                ast::StmtKind::Assign { lhs, rhs } => {
                    self.expr(lhs);
                    self.expr(rhs);
                }
                ast::StmtKind::Expr(e) => self.expr(e),
                ast::StmtKind::If { cond, then, els } => {
                    self.expr(cond);
                    self.stmts(std::slice::from_ref(then));
                    if let Some(e) = els {
                        self.stmts(std::slice::from_ref(e));
                    }
                }
                ast::StmtKind::Block(b) => self.stmts(b),
                ast::StmtKind::While { cond, body } => {
                    self.expr(cond);
                    self.stmts(std::slice::from_ref(body));
                }
                // Comments, and whatever herd7's grammar grows.
                _ => {}
            }
        }
    }

    fn expr(&mut self, e: &'t ast::Expr) {
        match &e.kind {
            ast::ExprKind::Ident(id) => self.used.push(&id.name),
            ast::ExprKind::Deref(e) | ast::ExprKind::Cast(_, e) => self.expr(e),
            ast::ExprKind::Binary(_, a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ast::ExprKind::Call { func, args } => {
                self.calls.push(func);
                args.iter().for_each(|a| self.expr(a));
            }
            _ => {}
        }
    }

    fn has(&self, name: &str) -> bool {
        self.used.contains(&name)
    }
}

/// A hint, at the first C11 atomic the code calls, that a test read in the kernel's
/// dialect (under the LKMM, SC or TSO) is written in C11's: herd7 decides it, and hazmat
/// gives herd7's answer, but RC11 is the model such a test is usually written for.
pub(crate) fn dialect_warning(test: &ast::Test, dialect: Dialect) -> Option<Warning> {
    if dialect != Dialect::Kernel {
        return None;
    }
    // The C11 names the kernel's primitives do not also have, made once.
    static C11_ONLY: std::sync::OnceLock<std::collections::HashSet<&'static str>> =
        std::sync::OnceLock::new();
    let c11 = C11_ONLY.get_or_init(|| {
        let kernel: Vec<&str> = primitive::names().collect();
        c11::names(Dialect::Kernel)
            .filter(|n| !kernel.contains(n))
            .collect()
    });
    let call = test.threads.iter().find_map(|t| {
        ThreadNames::of(test, t)
            .calls
            .into_iter()
            .find(|f| c11.contains(f.name.as_str()))
    })?;
    Some(Warning {
        message: format!(
            "`{}` is a C11 atomic: this test is decided under the model asked for, as herd7 \
             decides it without C11's macros",
            call.name
        ),
        span: call.span,
        notes: vec![
            "`--model rc11` decides it under RC11, the model of C11's and Rust's atomics"
                .to_string(),
        ],
    })
}

/// A warning for each location the trailer names that no thread takes as a parameter and
/// the init block does not set (nor points to), and for each register it names that its
/// thread never reads, writes or takes as a parameter and the init block does not set, in
/// the order written; each name once.
pub(crate) fn trailer_warnings(test: &ast::Test) -> Vec<Warning> {
    let mut locations: Vec<&str> = Vec::new();
    for item in &test.init {
        if let ast::Location::Global(id) = &item.target {
            locations.push(&id.name);
        }
        if let Some(ast::InitValue::Addr(id)) = &item.value {
            locations.push(&id.name);
        }
    }
    for t in &test.threads {
        locations.extend(t.params.iter().map(|p| p.name.name.as_str()));
    }
    let mut unique = Vec::new();
    for l in locations {
        if !unique.contains(&l) {
            unique.push(l);
        }
    }
    let cx = Names {
        locations: unique,
        threads: test
            .threads
            .iter()
            .map(|t| ThreadNames::of(test, t))
            .collect(),
    };
    let mut named = Vec::new();
    if let Some(locs) = &test.locations {
        named.extend(locs.iter().map(Named::of));
    }
    if let Some(f) = &test.filter {
        prop_names(f, &mut named);
    }
    if let Some(c) = &test.condition {
        prop_names(&c.prop, &mut named);
    }
    let mut warned: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for n in named {
        let key = n.key();
        if warned.contains(&key) {
            continue;
        }
        if let Some(w) = cx.warning(&n) {
            warned.push(key);
            out.push(w);
        }
    }
    out.sort_by_key(|w| w.span.start);
    out
}

/// A name of the trailer: a shared variable (or its address), or a thread's register.
enum Named<'t> {
    Global(&'t ast::Ident),
    Register {
        thread: u32,
        reg: &'t ast::Ident,
        span: ast::Span,
    },
}

impl<'t> Named<'t> {
    fn of(l: &'t ast::Location) -> Named<'t> {
        match l {
            ast::Location::Global(id) => Named::Global(id),
            ast::Location::Register { thread, reg, span } => Named::Register {
                thread: *thread,
                reg,
                span: *span,
            },
        }
    }

    fn key(&self) -> String {
        match self {
            Named::Global(id) => id.name.clone(),
            Named::Register { thread, reg, .. } => format!("{thread}:{}", reg.name),
        }
    }
}

fn prop_names<'t>(p: &'t ast::Prop, out: &mut Vec<Named<'t>>) {
    match &p.kind {
        ast::PropKind::True | ast::PropKind::False => {}
        ast::PropKind::Atom(a) => {
            out.push(Named::of(&a.loc));
            match &a.value {
                ast::Value::Addr(id) => out.push(Named::Global(id)),
                ast::Value::Register { thread, reg, span } => out.push(Named::Register {
                    thread: *thread,
                    reg,
                    span: *span,
                }),
                _ => {}
            }
        }
        ast::PropKind::Not(q) => prop_names(q, out),
        ast::PropKind::And(a, b) | ast::PropKind::Or(a, b) | ast::PropKind::Implies(a, b) => {
            prop_names(a, out);
            prop_names(b, out);
        }
    }
}

/// The names a test's threads and init block use.
struct Names<'t> {
    locations: Vec<&'t str>,
    threads: Vec<ThreadNames<'t>>,
}

impl Names<'_> {
    fn thread(&self, number: u32) -> Option<&ThreadNames<'_>> {
        self.threads.iter().find(|t| t.number == number)
    }

    /// The threads whose code uses a register `name`.
    fn threads_with(&self, name: &str) -> Vec<u32> {
        self.threads
            .iter()
            .filter(|t| t.has(name) && !self.locations.contains(&name))
            .map(|t| t.number)
            .collect()
    }

    fn warning(&self, named: &Named<'_>) -> Option<Warning> {
        let (name, span) = match named {
            Named::Register { thread, reg, span } => {
                return self.register_warning(*thread, &reg.name, *span);
            }
            Named::Global(id) => (&id.name, id.span),
        };
        if self.locations.contains(&name.as_str()) {
            return None;
        }
        let mut notes = Vec::new();
        let threads = self.threads_with(name);
        if !threads.is_empty() {
            let written: Vec<String> = threads.iter().map(|t| format!("{t}:{name}")).collect();
            let written: Vec<&str> = written.iter().map(String::as_str).collect();
            notes.push(format!(
                "`{name}` is a register of {}: a register's final value is written with its \
                 thread's number; {}",
                thread_list(&threads),
                did_you_mean(&written).unwrap_or_default()
            ));
        } else {
            notes.extend(near(name, &self.locations));
            if notes.is_empty() && !self.locations.is_empty() && self.locations.len() <= 8 {
                notes.push(format!(
                    "the test's locations are {}",
                    quoted_list(&self.locations)
                ));
            }
        }
        Some(Warning {
            message: format!(
                "no thread reads or writes `{name}` and the init block does not set it: herd7 \
                 reads it as a location that holds 0 in every execution"
            ),
            span,
            notes,
        })
    }

    fn register_warning(&self, number: u32, name: &str, span: ast::Span) -> Option<Warning> {
        // A thread that does not exist is lowering's error, but in a filter.
        let Some(t) = self.thread(number) else {
            return Some(Warning {
                message: format!(
                    "there is no thread P{number}: herd7 reads `{number}:{name}` as a register \
                     that holds 0 in every execution"
                ),
                span,
                notes: Vec::new(),
            });
        };
        if t.has(name) {
            return None;
        }
        if t.declared.contains(&name) {
            return Some(Warning {
                message: format!(
                    "P{number} declares `{name}` but never assigns or reads it: it holds 0 in \
                     every execution"
                ),
                span,
                notes: Vec::new(),
            });
        }
        let mut notes = Vec::new();
        let others: Vec<u32> = self
            .threads_with(name)
            .into_iter()
            .filter(|&o| o != number)
            .collect();
        if !others.is_empty() {
            let written: Vec<String> = others.iter().map(|o| format!("{o}:{name}")).collect();
            let written: Vec<&str> = written.iter().map(String::as_str).collect();
            notes.push(format!(
                "`{name}` is a register of {}; {}",
                thread_list(&others),
                did_you_mean(&written).unwrap_or_default()
            ));
        } else if self.locations.contains(&name) {
            notes.push(format!(
                "`{name}` is a shared variable: its final value is written `{name}`, without a \
                 thread number"
            ));
        } else {
            let own: Vec<&str> = t
                .used
                .iter()
                .copied()
                .filter(|r| !r.starts_with('%') && !self.locations.contains(r))
                .collect();
            let mut unique = Vec::new();
            for r in own {
                if !unique.contains(&r) {
                    unique.push(r);
                }
            }
            let near: Vec<String> = near_names(name, &unique)
                .into_iter()
                .map(|r| format!("{number}:{r}"))
                .collect();
            let near: Vec<&str> = near.iter().map(String::as_str).collect();
            notes.extend(did_you_mean(&near));
        }
        Some(Warning {
            message: format!(
                "P{number} has no register `{name}`: no statement of P{number} reads or writes \
                 it and the init block does not set it, so herd7 reads it as 0 in every execution"
            ),
            span,
            notes,
        })
    }
}

/// What was probably meant by the access at `span` (a call) whose address is no location:
/// when its first argument is `*p` for a parameter `p`, the call takes the pointer `p`
/// itself, as `smp_load_acquire(p)` does, and `*p` is the integer at it.
pub(crate) fn address_note(test: &ast::Test, span: ast::Span) -> Option<String> {
    fn find(stmts: &[ast::Stmt], span: ast::Span) -> Option<&ast::Expr> {
        stmts.iter().find_map(|s| match &s.kind {
            ast::StmtKind::Decl { init: Some(e), .. } | ast::StmtKind::Expr(e) => in_expr(e, span),
            ast::StmtKind::Assign { lhs, rhs } => in_expr(lhs, span).or_else(|| in_expr(rhs, span)),
            ast::StmtKind::If { cond, then, els } => in_expr(cond, span)
                .or_else(|| find(std::slice::from_ref(then), span))
                .or_else(|| {
                    els.as_deref()
                        .and_then(|e| find(std::slice::from_ref(e), span))
                }),
            ast::StmtKind::Block(b) => find(b, span),
            ast::StmtKind::While { cond, body } => {
                in_expr(cond, span).or_else(|| find(std::slice::from_ref(body), span))
            }
            _ => None,
        })
    }
    fn in_expr(e: &ast::Expr, span: ast::Span) -> Option<&ast::Expr> {
        if e.span.start == span.start && e.span.end == span.end {
            return Some(e);
        }
        match &e.kind {
            ast::ExprKind::Deref(a) | ast::ExprKind::Cast(_, a) => in_expr(a, span),
            ast::ExprKind::Binary(_, a, b) => in_expr(a, span).or_else(|| in_expr(b, span)),
            ast::ExprKind::Call { args, .. } => args.iter().find_map(|a| in_expr(a, span)),
            _ => None,
        }
    }
    test.threads.iter().find_map(|t| {
        let ast::ExprKind::Call { func, args } = &find(&t.body, span)?.kind else {
            return None;
        };
        let ast::ExprKind::Deref(p) = &args.first()?.kind else {
            return None;
        };
        let ast::ExprKind::Ident(p) = &p.kind else {
            return None;
        };
        let more = if args.len() > 1 { ", ..." } else { "" };
        t.params.iter().any(|q| q.name.name == p.name).then(|| {
            format!(
                "`{0}` takes the address of a location, such as the parameter `{1}`: write \
                 `{0}({1}{more})`; `*{1}` is the value at that address, an integer",
                func.name, p.name
            )
        })
    })
}

/// The names among `candidates` that `name` was probably meant to be: those within a few
/// edits of it ([`closest`]), or else those it abbreviates or that abbreviate it (`cnt` for
/// `count`).
fn near_names<'a>(name: &str, candidates: &[&'a str]) -> Vec<&'a str> {
    let close = closest(name, candidates.iter().copied(), 3);
    if !close.is_empty() {
        return close;
    }
    candidates
        .iter()
        .copied()
        .filter(|c| abbreviates(name, c) || abbreviates(c, name))
        .take(3)
        .collect()
}

/// "did you mean `cnt`?" among `candidates`, if one is near `name`.
fn near(name: &str, candidates: &[&str]) -> Option<String> {
    did_you_mean(&near_names(name, candidates))
}

/// Whether `short` is `long` with letters left out, both starting with the same letter and
/// `short` at least two letters long: `cnt` for `count`, `flg` for `flag`.
fn abbreviates(short: &str, long: &str) -> bool {
    let (s, l) = (short.to_ascii_lowercase(), long.to_ascii_lowercase());
    if s.len() < 2 || s.len() >= l.len() || s.chars().next() != l.chars().next() {
        return false;
    }
    let mut rest = l.chars();
    s.chars().all(|c| rest.any(|d| d == c))
}

/// "P1", "P0 and P2", "P0, P1 and P2".
fn thread_list(threads: &[u32]) -> String {
    let names: Vec<String> = threads.iter().map(|t| format!("P{t}")).collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// "`a`", "`a` and `b`", "`a`, `b` and `c`".
fn quoted_list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abbreviations() {
        assert!(abbreviates("cnt", "count"));
        assert!(abbreviates("flg", "flag"));
        assert!(!abbreviates("x", "xy"));
        assert!(!abbreviates("count", "cnt"));
        assert!(!abbreviates("tcn", "count"));
    }
}
