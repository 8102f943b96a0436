//! The trees of herd7's model language as text people read: each expression an
//! S-expression (`(| a b c)`, `(app f x)`), each instruction a line, bodies indented.
//! Spans are left out, so two trees print alike when they differ only in where they are
//! written.
//!
//! Shared by the parser's snapshot tests (`tests/cat_syntax.rs`) and its comparison with
//! herd7 (`tests/cat_herd7.rs`).

use std::fmt::Write as _;

use hazmat_checker::models::cat::ast::*;

fn name(n: &Name) -> &str {
    n.as_deref().unwrap_or("_")
}

fn pattern(p: &Pattern) -> String {
    match p {
        Pattern::Var(n) => name(n).to_string(),
        Pattern::Tuple(ns) => format!("({})", ns.iter().map(name).collect::<Vec<_>>().join(", ")),
    }
}

fn bindings(bs: &[Binding]) -> String {
    bs.iter()
        .map(|b| format!("{} = {}", pattern(&b.pat), exp(&b.exp)))
        .collect::<Vec<_>>()
        .join(" and ")
}

fn op2(op: Op2) -> &'static str {
    match op {
        Op2::Union => "|",
        Op2::Inter => "&",
        Op2::Diff => "\\",
        Op2::Seq => ";",
        Op2::Cartesian => "cartesian",
        Op2::Add => "++",
    }
}

fn op1(op: Op1) -> &'static str {
    match op {
        Op1::Plus => "+",
        Op1::Star => "*",
        Op1::Opt => "?",
        Op1::Comp => "~",
        Op1::Inv => "^-1",
        Op1::ToId => "[]",
    }
}

fn variant(v: &VariantCond) -> String {
    match v {
        VariantCond::Is(s) => format!("{s:?}"),
        VariantCond::Not(v) => format!("(not {})", variant(v)),
        VariantCond::And(a, b) => format!("(&& {} {})", variant(a), variant(b)),
        VariantCond::Or(a, b) => format!("(|| {} {})", variant(a), variant(b)),
    }
}

fn cond(c: &Cond) -> String {
    match c {
        Cond::Eq(a, b) => format!("(= {} {})", exp(a), exp(b)),
        Cond::Subset(a, b) => format!("(subset {} {})", exp(a), exp(b)),
        Cond::In(a, b) => format!("(in {} {})", exp(a), exp(b)),
        Cond::Variant(v) => variant(v),
    }
}

/// An expression as an S-expression: `(| a b c)`, `(app f x)`, ...
pub(crate) fn exp(e: &Exp) -> String {
    let list = |es: &[Exp]| es.iter().map(exp).collect::<Vec<_>>().join(" ");
    match e {
        Exp::Empty(_) => "0".to_string(),
        Exp::Universe(_) => "_".to_string(),
        Exp::Tag(t, _) => format!("'{t}"),
        Exp::Var(v, _) => v.clone(),
        Exp::Op1(op, e, _) => format!("({} {})", op1(*op), exp(e)),
        Exp::Op(op, es, _) => format!("({} {})", op2(*op), list(es)),
        Exp::Tuple(es, _) => format!("(tuple {})", list(es)).replace("tuple )", "tuple)"),
        Exp::App(f, a, _) => format!("(app {} {})", exp(f), exp(a)),
        Exp::Let(bs, e, _) => format!("(let {} in {})", bindings(bs), exp(e)),
        Exp::LetRec(bs, e, _) => format!("(let rec {} in {})", bindings(bs), exp(e)),
        Exp::Fun(p, e, _) => format!("(fun {} -> {})", pattern(p), exp(e)),
        Exp::Set(es, _) => format!("(set {})", list(es)),
        Exp::Match {
            exp: e,
            clauses,
            default,
            ..
        } => {
            let mut s = format!("(match {}", exp(e));
            for (t, e) in clauses {
                write!(s, " ('{t} {})", exp(e)).unwrap();
            }
            if let Some(d) = default {
                write!(s, " (_ {})", exp(d)).unwrap();
            }
            s + ")"
        }
        Exp::MatchSet {
            exp: e,
            empty,
            pre,
            elt,
            rest,
            nonempty,
            ..
        } => {
            let pre = pre
                .as_ref()
                .map(|p| format!("{} | ", name(p)))
                .unwrap_or_default();
            format!(
                "(match-set {} ({{}} {}) ({pre}{} ++ {} {}))",
                exp(e),
                exp(empty),
                name(elt),
                name(rest),
                exp(nonempty)
            )
        }
        Exp::Try(a, b, _) => format!("(try {} {})", exp(a), exp(b)),
        Exp::If(c, a, b, _) => format!("(if {} {} {})", cond(c), exp(a), exp(b)),
    }
}

fn test_name(negated: bool, test: Test) -> String {
    let t = match test {
        Test::Acyclic => "acyclic",
        Test::Irreflexive => "irreflexive",
        Test::Empty => "empty",
    };
    format!("{}{t}", if negated { "~" } else { "" })
}

fn as_name(n: &Option<String>) -> String {
    n.as_ref().map(|n| format!(" as {n}")).unwrap_or_default()
}

/// Instructions, one a line, bodies indented.
fn instrs(out: &mut String, is: &[Instr], indent: usize) {
    let pad = "  ".repeat(indent);
    for i in is {
        match i {
            Instr::Let { bindings: bs, .. } => writeln!(out, "{pad}let {}", bindings(bs)),
            Instr::LetRec {
                bindings: bs, when, ..
            } => {
                let when = when
                    .as_ref()
                    .map(|w| {
                        format!(
                            " when {} {}{}",
                            test_name(w.negated, w.test),
                            exp(&w.exp),
                            as_name(&w.name)
                        )
                    })
                    .unwrap_or_default();
                writeln!(out, "{pad}let rec {}{when}", bindings(bs))
            }
            Instr::Check {
                role,
                negated,
                test,
                exp: e,
                name,
                ..
            } => writeln!(
                out,
                "{pad}{role:?} {} {}{}",
                test_name(*negated, *test),
                exp(e),
                as_name(name)
            ),
            Instr::Show { names, .. } => writeln!(out, "{pad}show {}", names.join(", ")),
            Instr::ShowAs { exp: e, name, .. } => {
                writeln!(out, "{pad}show {} as {name}", exp(e))
            }
            Instr::Unshow { names, .. } => writeln!(out, "{pad}unshow {}", names.join(", ")),
            Instr::Include { file, .. } => writeln!(out, "{pad}include {file:?}"),
            Instr::Procedure {
                name,
                params,
                body,
                rec,
                ..
            } => {
                let rec = if *rec { "rec " } else { "" };
                writeln!(out, "{pad}procedure {rec}{name} {}", pattern(params)).unwrap();
                instrs(out, body, indent + 1);
                writeln!(out, "{pad}end")
            }
            Instr::Call {
                name,
                arg,
                as_name: n,
                ..
            } => writeln!(out, "{pad}call {name} {}{}", exp(arg), as_name(n)),
            Instr::Enum { name, tags, .. } => {
                writeln!(out, "{pad}enum {name} = {}", tags.join(" "))
            }
            Instr::Forall { var, set, body, .. } => {
                writeln!(out, "{pad}forall {var} in {}", exp(set)).unwrap();
                instrs(out, body, indent + 1);
                writeln!(out, "{pad}end")
            }
            Instr::Debug { exp: e, .. } => writeln!(out, "{pad}debug {}", exp(e)),
            Instr::WithFrom { var, set, .. } => {
                writeln!(out, "{pad}with {var} from {}", exp(set))
            }
            Instr::Events {
                name,
                args,
                default,
                ..
            } => {
                let kw = if *default { "default" } else { "instructions" };
                let args = args.iter().map(exp).collect::<Vec<_>>().join(", ");
                writeln!(out, "{pad}{kw} {name}[{args}]")
            }
            Instr::IfVariant {
                cond, then, els, ..
            } => {
                writeln!(out, "{pad}if {}", variant(cond)).unwrap();
                instrs(out, then, indent + 1);
                writeln!(out, "{pad}else").unwrap();
                instrs(out, els, indent + 1);
                writeln!(out, "{pad}end")
            }
            Instr::Match {
                exp: e,
                clauses,
                default,
                ..
            } => {
                writeln!(out, "{pad}match {}", exp(e)).unwrap();
                for (t, body) in clauses {
                    writeln!(out, "{pad}'{t} ->").unwrap();
                    instrs(out, body, indent + 1);
                }
                if let Some(body) = default {
                    writeln!(out, "{pad}_ ->").unwrap();
                    instrs(out, body, indent + 1);
                }
                writeln!(out, "{pad}end")
            }
        }
        .unwrap();
    }
}

pub(crate) fn model(m: &Model) -> String {
    let mut out = format!(
        "title {:?}, arch {:?}, catdep {}\n",
        m.title, m.arch, m.catdep
    );
    instrs(&mut out, &m.instrs, 0);
    out
}
