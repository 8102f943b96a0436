//! The printer: a test back to canonical litmus text.
//!
//! The canonical form is the kernel's house style: the name line, the doc string, the info
//! lines and the header comments, the init block one item per line, the comments that
//! stood between threads, each thread with tab-indented statements, the trailer, and the
//! comments that followed it.
//! Expressions and propositions get the parentheses their precedence needs, those that keep
//! a mix readable (see [`clarify`]: `(a == b) & c`, `(p /\ q) \/ r`, `(p => q) /\ r`), and the customary
//! pair around a whole condition.
//!
//! Parsing the printed text gives back the same tree (spans aside); printing is idempotent.

use std::fmt::Write as _;

use crate::ast::*;

/// The canonical text, as [`print()`] writes it.
impl std::fmt::Display for Test {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&print(self))
    }
}

/// Writes `test` as canonical litmus text.
pub fn print(test: &Test) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} {}", test.arch, test.name.name);
    if let Some(doc) = &test.doc {
        let _ = writeln!(out, "\"{doc}\"");
    }
    for line in &test.info {
        let _ = writeln!(out, "{}", line.text);
    }
    write_comments(&mut out, test, CommentPlace::Header);
    write_init(&mut out, &test.init);
    for thread in &test.threads {
        out.push('\n');
        write_thread(&mut out, thread);
    }
    if let Some(regions) = &test.regions {
        out.push_str("\nregions:");
        for (k, r) in regions.iter().enumerate() {
            out.push_str(if k > 0 { ", " } else { " " });
            let _ = write!(out, "{}:", r.loc.name);
            let names: Vec<&str> = r.regions.iter().map(|n| n.name.as_str()).collect();
            out.push_str(&names.join(" "));
        }
        out.push('\n');
    }
    let trailer = test.locations.is_some() || test.filter.is_some() || test.condition.is_some();
    if trailer {
        out.push('\n');
    }
    if let Some(locations) = &test.locations {
        out.push_str("locations [");
        for loc in locations {
            write_location(&mut out, loc);
            out.push_str("; ");
        }
        if !locations.is_empty() {
            out.pop();
        }
        out.push_str("]\n");
    }
    if let Some(filter) = &test.filter {
        out.push_str("filter (");
        write_prop(&mut out, filter, 0);
        out.push_str(")\n");
    }
    if let Some(cond) = &test.condition {
        out.push_str(&print_condition(cond));
        out.push('\n');
    }
    write_comments(&mut out, test, CommentPlace::Trailer);
    out
}

/// Writes a final condition as [`print()`] writes a test's: `exists (0:r0=1)`.
pub fn print_condition(cond: &Condition) -> String {
    let mut out = String::from(match cond.quantifier {
        Quantifier::Exists => "exists",
        Quantifier::NotExists => "~exists",
        Quantifier::Forall => "forall",
    });
    out.push_str(" (");
    write_prop(&mut out, &cond.prop, 0);
    out.push(')');
    out
}

fn write_comments(out: &mut String, test: &Test, place: CommentPlace) {
    for c in test.comments.iter().filter(|c| c.place == place) {
        let _ = writeln!(out, "(*{}*)", c.text);
    }
}

fn write_init(out: &mut String, init: &[InitItem]) {
    if init.is_empty() {
        out.push_str("{}\n");
        return;
    }
    out.push_str("{\n");
    for item in init {
        out.push('\t');
        if let Some(ty) = &item.ty {
            write_type(out, ty);
        }
        write_location(out, &item.target);
        if let Some(value) = &item.value {
            out.push_str(" = ");
            match value {
                InitValue::Int(v) => {
                    let _ = write!(out, "{v}");
                }
                // A pointer takes C's `&y`; the bare `y` of other items is herd7's own
                // spelling of the same address, and the only one it takes there.
                InitValue::Addr(id) => {
                    if item.ty.as_ref().is_some_and(|t| t.pointers > 0) {
                        out.push('&');
                    }
                    out.push_str(&id.name);
                }
                InitValue::AtomicInit(v) => {
                    let _ = write!(out, "ATOMIC_INIT({v})");
                }
            }
        }
        out.push_str(";\n");
    }
    out.push_str("}\n");
}

/// A type followed by what it declares: `int *` before `x` gives `int *x`.
fn write_type(out: &mut String, ty: &Type) {
    if ty.volatile {
        out.push_str("volatile ");
    }
    // An empty base is herd7's pointer of the default type, `*p` in the init block.
    if !ty.base.is_empty() {
        out.push_str(&ty.base);
        out.push(' ');
    }
    for _ in 0..ty.pointers {
        out.push('*');
    }
}

/// A type on its own, as in a cast: `char **`.
fn write_bare_type(out: &mut String, ty: &Type) {
    write_type(out, ty);
    if ty.pointers == 0 {
        out.pop();
    }
}

fn write_location(out: &mut String, loc: &Location) {
    match loc {
        Location::Global(id) => out.push_str(&id.name),
        Location::Register { thread, reg, .. } => {
            let _ = write!(out, "{thread}:{}", reg.name);
        }
    }
}

fn write_thread(out: &mut String, thread: &Thread) {
    let _ = write!(out, "P{}(", thread.id);
    for (k, p) in thread.params.iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        write_type(out, &p.ty);
        out.push_str(&p.name.name);
    }
    out.push_str(")\n{\n");
    write_body(out, &thread.body, 1);
    out.push_str("}\n");
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push('\t');
    }
}

/// Writes a statement on its own lines at `depth` tabs.
fn write_stmt(out: &mut String, s: &Stmt, depth: usize) {
    indent(out, depth);
    write_stmt_rest(out, s, depth);
}

/// Writes a statement whose first line is already indented.
fn write_stmt_rest(out: &mut String, s: &Stmt, depth: usize) {
    match &s.kind {
        StmtKind::Decl { ty, name, init } => {
            write_type(out, ty);
            out.push_str(&name.name);
            if let Some(e) = init {
                out.push_str(" = ");
                write_expr(out, e, 0);
            }
            out.push_str(";\n");
        }
        StmtKind::Assign { lhs, rhs } => {
            write_lvalue(out, lhs);
            out.push_str(" = ");
            write_expr(out, rhs, 0);
            out.push_str(";\n");
        }
        StmtKind::Expr(e) => {
            write_expr(out, e, 0);
            out.push_str(";\n");
        }
        StmtKind::If { cond, then, els } => {
            out.push_str("if (");
            write_expr(out, cond, 0);
            out.push(')');
            let braced = write_branch(out, then, depth);
            if let Some(els) = els {
                if braced {
                    out.push_str(" else");
                } else {
                    indent(out, depth);
                    out.push_str("else");
                }
                // `else if` stays on one line.
                if matches!(els.kind, StmtKind::If { .. }) {
                    out.push(' ');
                    write_stmt_rest(out, els, depth);
                } else if write_branch(out, els, depth) {
                    out.push('\n');
                }
            } else if braced {
                out.push('\n');
            }
        }
        StmtKind::Block(body) => {
            out.push_str("{\n");
            write_body(out, body, depth + 1);
            indent(out, depth);
            out.push_str("}\n");
        }
        StmtKind::While { cond, body } => {
            out.push_str("while (");
            write_expr(out, cond, 0);
            out.push(')');
            if write_branch(out, body, depth) {
                out.push('\n');
            }
        }
        StmtKind::Comment { text, block, .. } => write_comment(out, text, *block),
    }
}

fn write_comment(out: &mut String, text: &str, block: bool) {
    if block {
        let _ = writeln!(out, "/*{text}*/");
    } else {
        let _ = writeln!(out, "//{text}");
    }
}

/// Writes the statements of a body at `depth` tabs; a trailing comment goes at the end of
/// the line before it.
fn write_body(out: &mut String, body: &[Stmt], depth: usize) {
    for (k, s) in body.iter().enumerate() {
        match &s.kind {
            StmtKind::Comment {
                text,
                block,
                trailing: true,
            } if k > 0 && out.ends_with('\n') => {
                out.pop();
                out.push(' ');
                write_comment(out, text, *block);
            }
            _ => write_stmt(out, s, depth),
        }
    }
}

/// Writes the body of an `if`, `else` or `while`: a block opens on the same line and
/// leaves the closing brace's line open (returns true); another statement goes on the next
/// line, one tab deeper (returns false).
fn write_branch(out: &mut String, s: &Stmt, depth: usize) -> bool {
    match &s.kind {
        StmtKind::Block(body) => {
            out.push_str(" {\n");
            write_body(out, body, depth + 1);
            indent(out, depth);
            out.push('}');
            true
        }
        _ => {
            out.push('\n');
            write_stmt(out, s, depth + 1);
            false
        }
    }
}

/// The binding strength of a dereference or cast: tighter than any binary operator.
const UNARY: u8 = 7;
/// The binding strength of a literal, name or call.
const ATOM: u8 = 8;

fn expr_prec(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Binary(op, ..) => op.precedence(),
        ExprKind::Deref(..) | ExprKind::Cast(..) => UNARY,
        _ => ATOM,
    }
}

/// Writes `e`, in parentheses if it binds more loosely than `min`.
fn write_expr(out: &mut String, e: &Expr, min: u8) {
    let paren = expr_prec(e) < min;
    if paren {
        out.push('(');
    }
    match &e.kind {
        ExprKind::Int(v) => {
            let _ = write!(out, "{v}");
        }
        ExprKind::Ident(id) => out.push_str(&id.name),
        ExprKind::Deref(operand) => {
            // herd7 reads `*x`, `*(type)x` and `*(e)`; nothing else follows a `*`.
            out.push('*');
            match &operand.kind {
                ExprKind::Ident(_) => write_expr(out, operand, ATOM),
                ExprKind::Cast(_, inner) if matches!(inner.kind, ExprKind::Ident(_)) => {
                    write_expr(out, operand, UNARY)
                }
                _ => write_expr(out, operand, ATOM + 1),
            }
        }
        ExprKind::Binary(op, lhs, rhs) => {
            let p = op.precedence();
            // Comparisons do not associate: one within another takes parentheses.
            let left = if op.is_comparison() { p + 1 } else { p };
            write_expr(out, lhs, if clarify(*op, lhs) { ATOM + 1 } else { left });
            let _ = write!(out, " {} ", op.as_str());
            write_expr(out, rhs, if clarify(*op, rhs) { ATOM + 1 } else { p + 1 });
        }
        ExprKind::Call { func, args } => {
            out.push_str(&func.name);
            out.push('(');
            for (k, a) in args.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                write_expr(out, a, 0);
            }
            out.push(')');
        }
        ExprKind::Cast(ty, operand) => {
            out.push('(');
            write_bare_type(out, ty);
            out.push(')');
            write_expr(out, operand, UNARY);
        }
        ExprKind::Instruction {
            func,
            annotations,
            op,
            args,
        } => {
            out.push_str(&func.name);
            if !annotations.is_empty() {
                out.push('{');
                for (k, a) in annotations.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(&a.name);
                }
                out.push('}');
            }
            // `__fence{...}` alone has no parentheses.
            if func.name != "__fence" {
                out.push('(');
                for (k, a) in args.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    write_expr(out, a, 0);
                    if k == 0
                        && let Some(op) = op
                    {
                        let _ = write!(out, ", {}", op.as_str());
                    }
                }
                out.push(')');
            }
        }
    }
    if paren {
        out.push(')');
    }
}

/// Writes the target of an assignment, where herd7 reads `**p` without parentheses but
/// no cast after a `*`.
fn write_lvalue(out: &mut String, e: &Expr) {
    match &e.kind {
        ExprKind::Deref(operand) => {
            out.push('*');
            match &operand.kind {
                ExprKind::Ident(_) | ExprKind::Deref(_) => write_lvalue(out, operand),
                _ => write_expr(out, operand, ATOM + 1),
            }
        }
        _ => write_expr(out, e, 0),
    }
}

/// Whether `child`, an operand of `op`, gets parentheses that precedence does not need but
/// a reader does (the mixes C compilers warn about): a comparison or another bitwise
/// operator within a bitwise one.
fn clarify(op: BinaryOp, child: &Expr) -> bool {
    use BinaryOp::*;
    let ExprKind::Binary(inner, ..) = &child.kind else {
        return false;
    };
    let bitwise = |o: BinaryOp| matches!(o, BitAnd | BitOr | BitXor);
    bitwise(op) && ((bitwise(*inner) && *inner != op) || inner.is_comparison())
}

/// Binding strengths of propositions, loosest first, as herd7 binds them: `\/`, `/\`,
/// `=>`, `~`.
fn prop_prec(p: &Prop) -> u8 {
    match &p.kind {
        PropKind::Or(..) => 1,
        PropKind::And(..) => 2,
        PropKind::Implies(..) => 3,
        PropKind::Not(..) => 4,
        PropKind::True | PropKind::False | PropKind::Atom(_) => 5,
    }
}

fn is_and(p: &Prop) -> bool {
    matches!(p.kind, PropKind::And(..))
}

fn is_implies(p: &Prop) -> bool {
    matches!(p.kind, PropKind::Implies(..))
}

/// Writes `p`, in parentheses if it binds more loosely than `min`.
fn write_prop(out: &mut String, p: &Prop, min: u8) {
    let paren = prop_prec(p) < min;
    if paren {
        out.push('(');
    }
    match &p.kind {
        PropKind::True => out.push_str("true"),
        PropKind::False => out.push_str("false"),
        PropKind::Atom(a) => {
            write_location(out, &a.loc);
            out.push_str(match a.op {
                CmpOp::Eq => "=",
                CmpOp::Ne => "!=",
            });
            match &a.value {
                Value::Int(v) => {
                    let _ = write!(out, "{v}");
                }
                Value::Addr(id) => out.push_str(&id.name),
                Value::Register { thread, reg, .. } => {
                    let _ = write!(out, "{thread}:{}", reg.name);
                }
            }
        }
        PropKind::Not(q) => {
            out.push('~');
            write_prop(out, q, 4);
        }
        // A conjunction within a disjunction gets parentheses for the reader, as the kernel's
        // tests write it; an implication within either, as herd7 prints it.
        PropKind::And(l, r) => {
            write_prop(out, l, if is_implies(l) { 6 } else { 2 });
            out.push_str(" /\\ ");
            write_prop(out, r, if is_implies(r) { 6 } else { 3 });
        }
        PropKind::Or(l, r) => {
            let clear = |p: &Prop| is_and(p) || is_implies(p);
            write_prop(out, l, if clear(l) { 6 } else { 1 });
            out.push_str(" \\/ ");
            write_prop(out, r, if clear(r) { 6 } else { 2 });
        }
        PropKind::Implies(l, r) => {
            write_prop(out, l, 4);
            out.push_str(" => ");
            write_prop(out, r, 3);
        }
    }
    if paren {
        out.push(')');
    }
}
