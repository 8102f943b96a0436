//! Spans point at the text of their node: every name's span covers exactly the name, every
//! statement's span (comments aside) ends with its `;` or `}`, every call's span starts with
//! its name and ends with its `)`.
//! Checked on the fixture and, when present, the whole conformance corpus.

mod common;

use std::path::PathBuf;

use hazmat_litmus::ast::*;

struct Check<'s> {
    src: &'s str,
    problems: Vec<String>,
}

impl Check<'_> {
    fn text(&self, span: Span) -> &str {
        self.src
            .get(span.start..span.end)
            .unwrap_or("<out of range>")
    }

    fn fail(&mut self, what: &str, span: Span) {
        let (l, c) = span.line_col(self.src);
        let text = self.text(span).to_string();
        self.problems.push(format!("{l}:{c}: {what}: `{text}`"));
    }

    fn ident(&mut self, id: &Ident) {
        if self.text(id.span) != id.name {
            self.fail(&format!("span of name `{}`", id.name), id.span);
        }
    }

    fn location(&mut self, loc: &Location) {
        match loc {
            Location::Global(id) => self.ident(id),
            Location::Register { thread, reg, span } => {
                self.ident(reg);
                if self.text(*span) != format!("{thread}:{}", reg.name) {
                    self.fail("span of register", *span);
                }
            }
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        let text = self.text(s.span);
        let comment = matches!(s.kind, StmtKind::Comment { .. });
        let ends_right = text.ends_with(';') || text.ends_with('}');
        let starts_as_comment = text.starts_with("//") || text.starts_with("/*");
        if !comment && !ends_right {
            self.fail("statement span end", s.span);
        }
        if comment && !starts_as_comment {
            self.fail("comment statement span", s.span);
        }
        match &s.kind {
            StmtKind::Decl { name, init, .. } => {
                self.ident(name);
                if let Some(e) = init {
                    self.expr(e);
                }
            }
            StmtKind::Assign { lhs, rhs } => {
                self.expr(lhs);
                self.expr(rhs);
            }
            StmtKind::Expr(e) => self.expr(e),
            StmtKind::If { cond, then, els } => {
                self.expr(cond);
                self.stmt(then);
                if let Some(e) = els {
                    self.stmt(e);
                }
            }
            StmtKind::Block(b) => b.iter().for_each(|s| self.stmt(s)),
            StmtKind::While { cond, body } => {
                self.expr(cond);
                self.stmt(body);
            }
            _ => {}
        }
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Ident(id) => {
                self.ident(id);
                if !e.span.same_range(id.span) {
                    self.fail("span of a name expression", e.span);
                }
            }
            ExprKind::Call { func, args } => {
                self.ident(func);
                if !self.text(e.span).starts_with(&func.name) || !self.text(e.span).ends_with(')') {
                    self.fail("span of a call", e.span);
                }
                args.iter().for_each(|a| self.expr(a));
            }
            ExprKind::Deref(x) | ExprKind::Cast(_, x) => self.expr(x),
            ExprKind::Binary(_, l, r) => {
                if e.span.start != l.span.start || e.span.end != r.span.end {
                    self.fail("span of a binary expression", e.span);
                }
                self.expr(l);
                self.expr(r);
            }
            _ => {}
        }
    }

    fn prop(&mut self, p: &Prop) {
        match &p.kind {
            PropKind::Atom(a) => {
                self.location(&a.loc);
                if let Value::Addr(id) = &a.value {
                    self.ident(id);
                }
            }
            PropKind::Not(q) => self.prop(q),
            PropKind::And(l, r) | PropKind::Or(l, r) | PropKind::Implies(l, r) => {
                self.prop(l);
                self.prop(r);
            }
            _ => {}
        }
    }

    fn test(&mut self, t: &Test) {
        self.ident(&t.name);
        for item in &t.init {
            self.location(&item.target);
        }
        for th in &t.threads {
            if self.text(th.name_span) != format!("P{}", th.id) {
                self.fail("thread name span", th.name_span);
            }
            for p in &th.params {
                self.ident(&p.name);
            }
            th.body.iter().for_each(|s| self.stmt(s));
        }
        for c in &t.comments {
            let text = self.text(c.span);
            if !(text.starts_with("(*") && text.ends_with("*)")) {
                self.fail("comment span", c.span);
            }
        }
        for e in &t.expectations {
            if !self.text(e.span).starts_with("Result") {
                self.fail("expectation span", e.span);
            }
        }
        t.locations.iter().flatten().for_each(|l| self.location(l));
        if let Some(f) = &t.filter {
            self.prop(f);
        }
        if let Some(c) = &t.condition {
            self.prop(&c.prop);
        }
    }
}

fn check(name: &str, src: &str) -> Vec<String> {
    let t = match hazmat_litmus::parse_keeping_comments(src) {
        Ok(t) => t,
        Err(e) => return vec![e.render(name, src)],
    };
    let mut c = Check {
        src,
        problems: Vec::new(),
    };
    c.test(&t);
    c.problems
        .into_iter()
        .map(|p| format!("{name}:{p}"))
        .collect()
}

#[test]
fn spans_cover_their_nodes_in_the_fixture() {
    let problems = check(
        "fixture",
        include_str!("../fixtures/every-construct.litmus"),
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn spans_cover_their_nodes_in_the_conformance_corpus() {
    let dir = match std::env::var_os("HAZMAT_CONFORMANCE") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance"),
    };
    let mut problems = Vec::new();
    for path in hazmat_litmus::litmus_files(&dir) {
        let src = std::fs::read_to_string(&path).unwrap_or_default();
        let rel = path
            .strip_prefix(&dir)
            .unwrap_or(&path)
            .display()
            .to_string();
        problems.extend(check(&rel, &src));
    }
    problems.truncate(20);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
