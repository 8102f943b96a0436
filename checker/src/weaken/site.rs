//! Ordering sites: where a test orders its events, found on the parsed test.
//!
//! A *site* is a fence or an ordered access as the test writes it (`smp_mb()`,
//! `smp_load_acquire(gp)`, `xchg_release(x, 1)`, each `memory_order_*` argument of a C11
//! call, `atomic_thread_fence(...)`), with its family of [`lattice`] choices; a *gap* is a
//! place between two statements of a thread, with accesses before and after it, where a
//! fence could be inserted (a site whose current choice is nothing).
//! Every choice carries the edit that writes it into the source text: the spans of the
//! parsed test say where, and the text around them stays as written, so a variant keeps
//! the test's comments and layout and is a litmus file a person can run.
//! Accesses a site does not cover (plain accesses, the kernel's RCU read-side markers,
//! spinlocks) are left as they are.

use super::lattice::{self, Form, Member, Strength};
use crate::front::c11::{self, Dialect};
use crate::front::defs::Macros;
use crate::front::primitive::{self, Shape};
use hazmat_litmus::ast::{Expr, ExprKind, Span, Stmt, StmtKind, Test, line_col};

/// An edit of the source text: `span` replaced by `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// The byte range replaced (empty for an insertion).
    pub start: usize,
    /// One past its end.
    pub end: usize,
    /// The new text.
    pub text: String,
}

/// One choice at a site.
#[derive(Clone, Debug)]
pub struct Choice {
    /// The fence or access as it would be written (`""` for no fence).
    pub text: String,
    /// A short word for the names of variant files.
    pub tag: String,
    /// What it guarantees.
    pub strength: Strength,
    /// What it costs.
    pub cost: u32,
    /// The edit that writes it; `None` where the choice cannot be written there (a fence
    /// that is an `if`'s only statement cannot be removed).
    pub edit: Option<Edit>,
}

/// What a site is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SiteKind {
    /// A fence the test writes.
    Fence,
    /// An ordered access (or one C11 order argument of it).
    Access,
    /// A place where a fence could be inserted.
    Gap,
}

impl SiteKind {
    /// `fence`, `access` or `gap`.
    pub fn as_str(self) -> &'static str {
        match self {
            SiteKind::Fence => "fence",
            SiteKind::Access => "access",
            SiteKind::Gap => "gap",
        }
    }
}

/// A fence or ordered access, or a gap, with its choices.
#[derive(Clone, Debug)]
pub struct Site {
    /// The thread.
    pub thread: u32,
    /// The 1-based line of the site (of the statement after a gap).
    pub line: usize,
    /// The 1-based column.
    pub column: usize,
    /// The fence or access as written (`""` for a gap).
    pub text: String,
    /// Which order of the call the site is, when the call has two (a C11
    /// compare-exchange's `success` or `failure`).
    pub part: Option<&'static str>,
    /// What it is.
    pub kind: SiteKind,
    /// The choices of its family that can be written here, the current one included.
    pub choices: Vec<Choice>,
    /// The index of the choice the test makes.
    pub current: usize,
}

impl Site {
    /// The choices strictly weaker than the current one, in family order.
    pub fn weaker(&self) -> Vec<usize> {
        let now = self.choices[self.current].strength;
        (0..self.choices.len())
            .filter(|&i| {
                self.choices[i].edit.is_some() && lattice::weaker(self.choices[i].strength, now)
            })
            .collect()
    }

    /// The choices strictly stronger than the current one, in family order.
    pub fn stronger(&self) -> Vec<usize> {
        let now = self.choices[self.current].strength;
        (0..self.choices.len())
            .filter(|&i| {
                self.choices[i].edit.is_some() && lattice::weaker(now, self.choices[i].strength)
            })
            .collect()
    }

    /// The site as people name it: `P0 line 18: smp_mb()`.
    pub fn describe(&self) -> String {
        match self.kind {
            SiteKind::Gap => format!("P{} before line {}", self.thread, self.line),
            _ => format!("P{} line {}: {}", self.thread, self.line, self.shown()),
        }
    }

    /// The text as written, with the order it is when the call has two.
    pub fn shown(&self) -> String {
        match self.part {
            Some(p) => format!("{} [{p} order]", self.text),
            None => self.text.clone(),
        }
    }
}

/// Where the calls of a test get their meaning.
#[derive(Clone, Copy)]
pub struct Vocabulary<'a> {
    /// The dialect of the test's calls.
    pub dialect: Dialect,
    /// A user's macros, which replace the kernel's.
    pub macros: Option<&'a Macros>,
}

impl Vocabulary<'_> {
    /// Whether a kernel primitive of this name can be written.
    fn kernel(&self, name: &str) -> bool {
        self.dialect == Dialect::Kernel
            && match self.macros {
                Some(m) => m.lookup(name).is_some(),
                None => primitive::lookup(name).is_some(),
            }
    }
}

/// The ordering sites and the gaps of `test`, in source order.
pub fn find(test: &Test, source: &str, vocabulary: Vocabulary<'_>) -> (Vec<Site>, Vec<Site>) {
    let mut walk = Walk {
        source,
        vocabulary,
        thread: 0,
        sites: Vec::new(),
        accesses: Vec::new(),
        fences: Vec::new(),
        lists: Vec::new(),
    };
    let mut gaps = Vec::new();
    for t in &test.threads {
        walk.thread = t.id;
        walk.accesses.clear();
        walk.lists.clear();
        walk.fences.clear();
        walk.stmts(&t.body, true);
        gaps.extend(walk.gaps());
    }
    (walk.sites, gaps)
}

/// A memory access of a thread, for the gaps: where it is, and whether it reads or
/// writes.
#[derive(Clone, Copy, Debug)]
struct Access {
    at: usize,
    read: bool,
    write: bool,
}

struct Walk<'a> {
    source: &'a str,
    vocabulary: Vocabulary<'a>,
    thread: u32,
    sites: Vec<Site>,
    accesses: Vec<Access>,
    /// Where the current thread's fence sites start.
    fences: Vec<usize>,
    /// The statements of each list (a body or a block) of the current thread.
    lists: Vec<Vec<Span>>,
}

impl Walk<'_> {
    fn text(&self, span: Span) -> &str {
        &self.source[span.start..span.end]
    }

    fn stmts(&mut self, stmts: &[Stmt], list: bool) {
        if list {
            self.lists.push(stmts.iter().map(|s| s.span).collect());
        }
        for s in stmts {
            self.stmt(s, list);
        }
    }

    fn stmt(&mut self, s: &Stmt, in_list: bool) {
        match &s.kind {
            StmtKind::Decl { init: Some(e), .. } => self.expr(e),
            StmtKind::Assign { lhs, rhs } => {
                self.expr(rhs);
                match &lhs.kind {
                    ExprKind::Deref(a) => {
                        self.expr(a);
                        self.accesses.push(Access {
                            at: lhs.span.start,
                            read: false,
                            write: true,
                        });
                    }
                    _ => self.expr(lhs),
                }
            }
            StmtKind::Expr(e) if !self.fence(s, e, in_list) => self.expr(e),
            StmtKind::If { cond, then, els } => {
                self.expr(cond);
                self.branch(then);
                if let Some(e) = els {
                    self.branch(e);
                }
            }
            StmtKind::Block(b) => self.stmts(b, true),
            StmtKind::While { cond, body } => {
                self.expr(cond);
                self.branch(body);
            }
            _ => {}
        }
    }

    fn branch(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Block(b) => self.stmts(b, true),
            _ => self.stmt(s, false),
        }
    }

    /// Records the fence statement `s` (the call `e`); false if it is no fence.
    fn fence(&mut self, s: &Stmt, e: &Expr, in_list: bool) -> bool {
        let ExprKind::Call { func, args } = &e.kind else {
            return false;
        };
        let name = func.name.as_str();
        let removal = in_list.then(|| self.removal(s));
        let written = self.text(e.span).to_string();
        let mut choices: Vec<(Member, Option<Edit>, String)> = Vec::new();
        let current = match self.vocabulary.dialect {
            Dialect::Kernel => {
                if !args.is_empty() || !self.vocabulary.kernel(name) {
                    return false;
                }
                if lattice::SPECIAL_FENCES.contains(&name) {
                    let this = Member {
                        name: "",
                        form: Form::Fence(""),
                        strength: lattice::SPECIAL,
                        cost: 8,
                        tag: "",
                        only_current: true,
                    };
                    choices.push((lattice::KERNEL_FENCES[0], removal, String::new()));
                    choices.push((this, Some(self.replace(e.span, &written)), written.clone()));
                    1
                } else if lattice::KERNEL_FENCES.iter().any(|m| m.name == name) {
                    for m in lattice::KERNEL_FENCES {
                        if m.name != name && m.only_current {
                            continue;
                        }
                        match m.form {
                            Form::Fence(t) if self.vocabulary.kernel(m.name) => {
                                choices.push((*m, Some(self.replace(e.span, t)), t.to_string()));
                            }
                            Form::Nothing => choices.push((*m, removal.clone(), String::new())),
                            _ => {}
                        }
                    }
                    match choices.iter().position(|(m, _, _)| m.name == name) {
                        Some(i) => i,
                        None => return false,
                    }
                } else {
                    return false;
                }
            }
            Dialect::C11 | Dialect::Bare => {
                let [order] = args.as_slice() else {
                    return false;
                };
                if name != "atomic_thread_fence" {
                    return false;
                }
                let word = self.text(order.span).to_string();
                let before = &self.source[e.span.start..order.span.start];
                let after = &self.source[order.span.end..e.span.end];
                for m in lattice::C11_FENCES {
                    match m.form {
                        Form::Order(w) => choices.push((
                            *m,
                            Some(self.replace(order.span, w)),
                            format!("{before}{w}{after}"),
                        )),
                        _ => choices.push((*m, removal.clone(), String::new())),
                    }
                }
                match choices.iter().position(|(m, _, _)| m.name == word) {
                    Some(i) => i,
                    // A relaxed or consume fence orders nothing: no site.
                    None => return false,
                }
            }
        };
        self.fences.push(e.span.start);
        self.push_texts(e.span, SiteKind::Fence, choices, current);
        true
    }

    /// The edit that removes statement `s`: its whole line when it stands alone on it.
    fn removal(&self, s: &Stmt) -> Edit {
        let src = self.source;
        let line_start = src[..s.span.start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = src[s.span.end..]
            .find('\n')
            .map_or(src.len(), |i| s.span.end + i + 1);
        let alone = src[line_start..s.span.start].trim().is_empty()
            && src[s.span.end..line_end].trim().is_empty();
        if alone {
            Edit {
                start: line_start,
                end: line_end,
                text: String::new(),
            }
        } else {
            Edit {
                start: s.span.start,
                end: s.span.end,
                text: String::new(),
            }
        }
    }

    fn replace(&self, span: Span, text: &str) -> Edit {
        Edit {
            start: span.start,
            end: span.end,
            text: text.to_string(),
        }
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Deref(a) => {
                self.expr(a);
                self.accesses.push(Access {
                    at: e.span.start,
                    read: true,
                    write: false,
                });
            }
            ExprKind::Binary(_, a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Cast(_, a) => self.expr(a),
            ExprKind::Call { func, args } => {
                let lvalue_first = self.call(e, &func.name, args);
                for (i, a) in args.iter().enumerate() {
                    match (&a.kind, i == 0 && lvalue_first) {
                        // The location of a kernel access is the call's, not a plain read.
                        (ExprKind::Deref(inner), true) => self.expr(inner),
                        _ => self.expr(a),
                    }
                }
            }
            _ => {}
        }
    }

    /// Records the access `e` (a call of `name`); whether its first argument is a location
    /// (`*p`) rather than an address.
    fn call(&mut self, e: &Expr, name: &str, args: &[Expr]) -> bool {
        match self.vocabulary.dialect {
            Dialect::Kernel => self.kernel_call(e, name, args),
            Dialect::C11 | Dialect::Bare => {
                self.c11_call(e, name, args);
                false
            }
        }
    }

    fn kernel_call(&mut self, e: &Expr, name: &str, args: &[Expr]) -> bool {
        if !self.vocabulary.kernel(name) {
            return false;
        }
        let Some(prim) = primitive::lookup(name) else {
            // A user's macro hazmat does not know: no site, no access it can place.
            return false;
        };
        let (read, write, lvalue) = match prim.shape {
            Shape::Load { lvalue, .. } => (true, false, lvalue),
            Shape::Store { lvalue } => (false, true, lvalue),
            Shape::StoreMb { .. } => (false, true, true),
            Shape::Fence => return false,
            _ => (true, true, false),
        };
        self.accesses.push(Access {
            at: e.span.start,
            read,
            write,
        });
        let family: &[Member] = match name {
            "READ_ONCE" | "rcu_dereference" | "smp_load_acquire" => lattice::KERNEL_LOADS,
            "WRITE_ONCE" | "smp_store_release" | "rcu_assign_pointer" => lattice::KERNEL_STORES,
            "smp_store_mb" => lattice::KERNEL_STORE_MB,
            "atomic_read" | "atomic_read_acquire" => lattice::ATOMIC_READS,
            "atomic_set" | "atomic_set_release" => lattice::ATOMIC_SETS,
            _ => {
                self.kernel_rmw(e, name);
                return lvalue;
            }
        };
        self.kernel_access(e, name, args, family, lvalue);
        lvalue
    }

    /// A kernel load or store: the family's members rewritten from the location.
    fn kernel_access(
        &mut self,
        e: &Expr,
        name: &str,
        args: &[Expr],
        family: &[Member],
        lvalue: bool,
    ) {
        let Some(first) = args.first() else {
            return;
        };
        // The address: `p` of `*p` for a location, the argument itself otherwise.
        let address = match (&first.kind, lvalue) {
            (ExprKind::Deref(p), true) => p.as_ref(),
            (_, true) => return,
            (_, false) => first,
        };
        if contains_call(address) {
            // Rewriting the address would rewrite the access inside it too.
            return;
        }
        let p = self.text(address.span).to_string();
        let simple = matches!(address.kind, ExprKind::Ident(_));
        let l = if simple {
            format!("*{p}")
        } else {
            format!("*({p})")
        };
        // The edit covers the name and the first argument; the rest stays as written.
        let head = Span::new(e.span.start, first.span.end);
        let tail = &self.source[first.span.end..e.span.end];
        let mut choices = Vec::new();
        let mut current = None;
        for m in family {
            let Form::Access(template) = m.form else {
                continue;
            };
            if m.name != name && (m.only_current || !self.vocabulary.kernel(m.name)) {
                continue;
            }
            let written = template
                .split([',', ')'])
                .next()
                .unwrap_or(template)
                .replace("{l}", &l)
                .replace("{p}", &p);
            if m.name == name {
                current = Some(choices.len());
            }
            let edit = self.replace(head, &written);
            let text = format!("{written}{tail}");
            choices.push((*m, Some(edit), text));
        }
        let Some(current) = current else {
            return;
        };
        self.push_texts(e.span, SiteKind::Access, choices, current);
    }

    /// A kernel read-modify-write with ordered variants: its name changed.
    fn kernel_rmw(&mut self, e: &Expr, name: &str) {
        let ExprKind::Call { func, .. } = &e.kind else {
            return;
        };
        let base = ["_relaxed", "_acquire", "_release"]
            .iter()
            .find_map(|s| name.strip_suffix(s))
            .unwrap_or(name);
        let exists = |suffix: &str| self.vocabulary.kernel(&format!("{base}{suffix}"));
        if !(exists("") && exists("_relaxed") && exists("_acquire") && exists("_release")) {
            return;
        }
        let tail = &self.source[func.span.end..e.span.end];
        let mut choices = Vec::new();
        let mut current = 0;
        for m in lattice::KERNEL_RMW {
            let new = format!("{base}{}", m.name);
            if new == name {
                current = choices.len();
            }
            let edit = self.replace(func.span, &new);
            choices.push((*m, Some(edit), format!("{new}{tail}")));
        }
        self.push_texts(e.span, SiteKind::Access, choices, current);
    }

    fn c11_call(&mut self, e: &Expr, name: &str, args: &[Expr]) {
        let Some(prim) = c11::lookup(name, Dialect::C11) else {
            return;
        };
        let (read, write) = match prim.shape {
            c11::Shape::Load => (true, false),
            c11::Shape::Store => (false, true),
            c11::Shape::Fence => return,
            _ => (true, true),
        };
        self.accesses.push(Access {
            at: e.span.start,
            read,
            write,
        });
        let operands = prim.shape.operands();
        if !prim.explicit {
            let Some(family) = lattice::c11_implicit(name) else {
                return;
            };
            if args.len() != operands {
                return;
            }
            let (Some(first), Some(last)) = (args.first(), args.last()) else {
                return;
            };
            let operands_text = &self.source[first.span.start..last.span.end];
            let mut choices = Vec::new();
            let mut current = 0;
            for m in family {
                let Form::Explicit(order) = m.form else {
                    continue;
                };
                let (text, edit) = if order.is_empty() {
                    current = choices.len();
                    let written = self.text(e.span).to_string();
                    (written.clone(), self.replace(e.span, &written))
                } else {
                    let t = format!("{name}_explicit({operands_text}, {order})");
                    (t.clone(), self.replace(e.span, &t))
                };
                choices.push((*m, Some(edit), text));
            }
            self.push_texts(e.span, SiteKind::Access, choices, current);
            return;
        }
        let families: Vec<&[Member]> = match prim.shape {
            c11::Shape::Load => vec![lattice::C11_LOADS],
            c11::Shape::Store => vec![lattice::C11_STORES],
            c11::Shape::CompareExchange { .. } => vec![lattice::C11_RMW, lattice::C11_LOADS],
            _ => vec![lattice::C11_RMW],
        };
        let parts = families.len();
        for (k, family) in families.into_iter().enumerate() {
            let Some(order) = args.get(operands + k) else {
                return;
            };
            let word = self.text(order.span).to_string();
            let Some(current) = family.iter().position(|m| m.name == word) else {
                continue;
            };
            let before = &self.source[e.span.start..order.span.start];
            let after = &self.source[order.span.end..e.span.end];
            let choices = family
                .iter()
                .enumerate()
                .filter(|(i, m)| *i == current || !m.only_current)
                .filter_map(|(_, m)| {
                    let Form::Order(w) = m.form else {
                        return None;
                    };
                    Some((
                        *m,
                        Some(self.replace(order.span, w)),
                        format!("{before}{w}{after}"),
                    ))
                })
                .collect::<Vec<_>>();
            let current = choices
                .iter()
                .position(|(m, _, _)| m.name == word)
                .unwrap_or(0);
            self.push_texts(e.span, SiteKind::Access, choices, current);
            if parts == 2
                && let Some(site) = self.sites.last_mut()
            {
                site.part = Some(if k == 0 { "success" } else { "failure" });
            }
        }
    }

    fn push_texts(
        &mut self,
        at: Span,
        kind: SiteKind,
        choices: Vec<(Member, Option<Edit>, String)>,
        current: usize,
    ) {
        let (line, column) = line_col(self.source, at.start);
        self.sites.push(Site {
            thread: self.thread,
            line,
            column,
            text: self.text(at).to_string(),
            part: None,
            kind,
            current,
            choices: choices
                .into_iter()
                .map(|(m, edit, text)| Choice {
                    text,
                    tag: m.tag.to_string(),
                    strength: m.strength,
                    cost: m.cost,
                    edit,
                })
                .collect(),
        });
    }

    /// The gaps of the current thread.
    fn gaps(&self) -> Vec<Site> {
        let mut gaps = Vec::new();
        let mut seen: Vec<usize> = self.fences.iter().map(|&at| self.before(at)).collect();
        let mut spots: Vec<usize> = self
            .lists
            .iter()
            .flat_map(|list| list.windows(2).map(|w| w[1].start))
            .collect();
        spots.sort_unstable();
        for at in spots {
            let before = self.before(at);
            if before == 0 || before == self.accesses.len() || seen.contains(&before) {
                continue;
            }
            seen.push(before);
            let (rb, wb) = self.kinds(|a| a.at < at);
            let (ra, wa) = self.kinds(|a| a.at >= at);
            if let Some(g) = self.gap(at, rb && ra, wb && wa) {
                gaps.push(g);
            }
        }
        gaps
    }

    /// The number of accesses of the thread before offset `at`.
    fn before(&self, at: usize) -> usize {
        self.accesses.iter().filter(|a| a.at < at).count()
    }

    fn kinds(&self, keep: impl Fn(&Access) -> bool) -> (bool, bool) {
        let mut r = (false, false);
        for a in self.accesses.iter().filter(|a| keep(a)) {
            r.0 |= a.read;
            r.1 |= a.write;
        }
        r
    }

    /// The gap before offset `at` (a statement's start), with the fences that make sense
    /// there: `smp_rmb()` between reads, `smp_wmb()` between writes.
    fn gap(&self, at: usize, reads: bool, writes: bool) -> Option<Site> {
        let src = self.source;
        let line_start = src[..at].rfind('\n').map_or(0, |i| i + 1);
        let indent = &src[line_start..at];
        let own_line = indent.trim().is_empty();
        let insert = |fence: &str| Edit {
            start: if own_line { line_start } else { at },
            end: if own_line { line_start } else { at },
            text: if own_line {
                format!("{indent}{fence};\n")
            } else {
                format!("{fence}; ")
            },
        };
        let (members, write): (Vec<&Member>, fn(&Member) -> String) = match self.vocabulary.dialect
        {
            Dialect::Kernel => (
                lattice::KERNEL_FENCES
                    .iter()
                    .filter(|m| !m.only_current)
                    .filter(|m| match m.name {
                        "" => true,
                        "smp_rmb" => reads && self.vocabulary.kernel(m.name),
                        "smp_wmb" => writes && self.vocabulary.kernel(m.name),
                        n => self.vocabulary.kernel(n),
                    })
                    .collect(),
                |m| match m.form {
                    Form::Fence(t) => t.to_string(),
                    _ => String::new(),
                },
            ),
            Dialect::C11 | Dialect::Bare => {
                (lattice::C11_FENCES.iter().collect(), |m| match m.form {
                    Form::Order(w) => format!("atomic_thread_fence({w})"),
                    _ => String::new(),
                })
            }
        };
        if members.len() < 2 {
            return None;
        }
        let (line, column) = line_col(src, at);
        let choices = members
            .into_iter()
            .map(|m| {
                let text = write(m);
                let edit = if text.is_empty() {
                    Some(Edit {
                        start: at,
                        end: at,
                        text: String::new(),
                    })
                } else {
                    Some(insert(&text))
                };
                Choice {
                    text,
                    tag: m.tag.to_string(),
                    strength: m.strength,
                    cost: m.cost,
                    edit,
                }
            })
            .collect();
        Some(Site {
            thread: self.thread,
            line,
            column,
            text: String::new(),
            part: None,
            kind: SiteKind::Gap,
            choices,
            current: 0,
        })
    }
}

/// Whether `e` calls anything.
fn contains_call(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Call { .. } => true,
        ExprKind::Deref(a) | ExprKind::Cast(_, a) => contains_call(a),
        ExprKind::Binary(_, a, b) => contains_call(a) || contains_call(b),
        _ => false,
    }
}
