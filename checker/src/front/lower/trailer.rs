//! The trailer of a test: its `locations`, `filter` and condition, as cells and
//! propositions, and herd7's check of the threads they name.
//!
//! herd7 checks, once it has expanded the macros and before anything else it refuses
//! after parsing, that the registers of the init block, of `locations` and of the test's
//! own condition belong to threads the test has ("Bad process P5"): the init block's in
//! order, then those of `locations`, then the condition's from its last atom to its first
//! (the two sides of an atom left to right).
//! It checks neither the filter's nor those of a condition a `-conds` file gives in place
//! of the test's own, and reads such a register as 0: lowering makes it a
//! [`Cell::Missing`] of the program.

use super::{Cx, LowerError, LowerErrorKind, err};
use crate::exec::event::Value;
use crate::front::program::{Cell, Condition, Operand, Prop, Quantifier};
use hazmat_litmus::ast;

/// Where the condition a test is decided under comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ConditionSource {
    /// The test's own, whose threads herd7 checks.
    #[default]
    Own,
    /// A `-conds` file's, written into the test's text in place of its own: herd7 checks
    /// the threads of the test's own condition (the first thread it names that the test
    /// does not have, in herd7's order of checking, is `own_missing`), then replaces it,
    /// and checks none of this one's.
    Replaced {
        /// The thread herd7's check of the test's own condition stops at, if any
        /// ([`missing_thread`]).
        own_missing: Option<u32>,
    },
}

/// The first thread the condition of `test` names that `test` does not have, in the
/// order herd7 checks the condition's registers (see the module's notes).
pub fn missing_thread(test: &ast::Test) -> Option<u32> {
    let has = |n: u32| test.threads.iter().any(|t| t.id == n);
    let c = test.condition.as_ref()?;
    first_missing(&c.prop, &has).map(|(n, _)| n)
}

/// The first register of `p` whose thread `has` says the test does not have, in herd7's
/// order: the atoms from the last to the first, each atom's two sides left to right.
fn first_missing(p: &ast::Prop, has: &dyn Fn(u32) -> bool) -> Option<(u32, ast::Span)> {
    match &p.kind {
        ast::PropKind::True | ast::PropKind::False => None,
        ast::PropKind::Atom(a) => {
            let lhs = match &a.loc {
                ast::Location::Register { thread, span, .. } => Some((*thread, *span)),
                ast::Location::Global(_) => None,
            };
            let rhs = match &a.value {
                ast::Value::Register { thread, span, .. } => Some((*thread, *span)),
                _ => None,
            };
            [lhs, rhs].into_iter().flatten().find(|&(n, _)| !has(n))
        }
        ast::PropKind::Not(q) => first_missing(q, has),
        ast::PropKind::And(a, b) | ast::PropKind::Or(a, b) | ast::PropKind::Implies(a, b) => {
            first_missing(b, has).or_else(|| first_missing(a, has))
        }
    }
}

/// herd7's "Bad process P5": a thread the test does not have, named where herd7 checks.
fn bad_process(number: u32, span: ast::Span) -> LowerError {
    LowerError {
        message: format!("there is no thread P{number}"),
        span,
        kind: LowerErrorKind::NoThread(number),
    }
}

/// Refuses, as herd7 does, a register of a thread the test does not have in the init
/// block, in `locations` or in the test's own condition (see the module's notes).
pub(super) fn check_threads(
    cx: &Cx,
    test: &ast::Test,
    source: ConditionSource,
) -> Result<(), LowerError> {
    let has = |n: u32| cx.thread_index.contains_key(&n);
    let init = test.init.iter().map(|item| &item.target);
    for l in init.chain(test.locations.iter().flatten()) {
        if let ast::Location::Register { thread, span, .. } = l
            && !has(*thread)
        {
            return Err(bad_process(*thread, *span));
        }
    }
    match source {
        ConditionSource::Own => match test
            .condition
            .as_ref()
            .and_then(|c| first_missing(&c.prop, &has))
        {
            Some((n, span)) => Err(bad_process(n, span)),
            None => Ok(()),
        },
        // The condition is no longer in the text: its place is the test's start.
        ConditionSource::Replaced {
            own_missing: Some(n),
        } => Err(bad_process(n, ast::Span::new(0, 0))),
        ConditionSource::Replaced { own_missing: None } => Ok(()),
    }
}

/// The condition, the filter and the cells herd7's final state shows (the condition's
/// and those of `locations`), not yet in order.
pub(super) fn trailer(
    cx: &mut Cx,
    test: &ast::Test,
) -> Result<(Condition, Option<Prop>, Vec<Cell>), LowerError> {
    let condition = match &test.condition {
        Some(c) => Condition {
            quantifier: match c.quantifier {
                ast::Quantifier::Exists => Quantifier::Exists,
                ast::Quantifier::NotExists => Quantifier::NotExists,
                ast::Quantifier::Forall => Quantifier::Forall,
            },
            prop: cx.prop(&c.prop)?,
        },
        None => Condition {
            quantifier: Quantifier::Forall,
            prop: Prop::True,
        },
    };
    let filter = test.filter.as_ref().map(|f| cx.prop(f)).transpose()?;
    let mut shown = Vec::new();
    condition.prop.cells(&mut shown);
    if let Some(locs) = &test.locations {
        for l in locs {
            shown.push(cx.cell(l));
        }
    }
    Ok((condition, filter, shown))
}

impl Cx {
    /// The cell of a register or location the trailer names; a register of a thread the
    /// test does not have is a [`Cell::Missing`], made on first use.
    fn cell(&mut self, l: &ast::Location) -> Cell {
        match l {
            ast::Location::Global(id) => Cell::Loc(self.loc(&id.name)),
            ast::Location::Register { thread, reg, .. } => self.register(*thread, &reg.name),
        }
    }

    fn register(&mut self, number: u32, name: &str) -> Cell {
        match self.thread_index.get(&number) {
            Some(&t) => Cell::Reg {
                thread: t,
                reg: self.reg(t, name),
            },
            None => {
                let key = (number, name.to_string());
                let i = match self.missing.iter().position(|m| *m == key) {
                    Some(i) => i,
                    None => {
                        self.missing.push(key);
                        self.missing.len() - 1
                    }
                };
                Cell::Missing(i)
            }
        }
    }

    fn prop(&mut self, p: &ast::Prop) -> Result<Prop, LowerError> {
        Ok(match &p.kind {
            ast::PropKind::True => Prop::True,
            ast::PropKind::False => Prop::False,
            ast::PropKind::Atom(a) => {
                let cell = self.cell(&a.loc);
                let operand = match &a.value {
                    ast::Value::Int(n) => Operand::Value(Value::Int(*n)),
                    ast::Value::Addr(id) => Operand::Value(Value::Addr(self.loc(&id.name))),
                    ast::Value::Register { thread, reg, .. } => {
                        Operand::Cell(self.register(*thread, &reg.name))
                    }
                    _ => return err("unsupported value in a condition", a.span),
                };
                let eq = Prop::Eq(cell, operand);
                match a.op {
                    ast::CmpOp::Eq => eq,
                    ast::CmpOp::Ne => Prop::Not(Box::new(eq)),
                }
            }
            ast::PropKind::Not(q) => Prop::Not(Box::new(self.prop(q)?)),
            ast::PropKind::And(a, b) => Prop::And(Box::new(self.prop(a)?), Box::new(self.prop(b)?)),
            ast::PropKind::Or(a, b) => Prop::Or(Box::new(self.prop(a)?), Box::new(self.prop(b)?)),
            ast::PropKind::Implies(a, b) => {
                Prop::Implies(Box::new(self.prop(a)?), Box::new(self.prop(b)?))
            }
        })
    }
}
