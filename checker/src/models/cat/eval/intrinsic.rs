//! The functions of `cross.cat` (hazmat's own, or herd7's, known by its text) that the
//! machine computes natively ([`Intrinsic`]), each with the meaning of its cat text: the same
//! operations (`linearisations`, with the order's closure made once for every class, `|`,
//! the machine's own, and `++`, made in place as the machine makes it) in the same order, so
//! the value is the one the text makes, its elements in the same order. An argument of
//! another shape than the text expects is left to the text (`None`), so that what it
//! does with it, an error included, is the text's.

use super::builtin::{linearisations_closed, orders_or_fail};
use super::{EvalError, Machine, Val};
use crate::exec::relation::Width;
use crate::models::cat::ast::{Op2, Span};
use crate::models::cat::compile::{Builtin, Intrinsic};
use std::rc::Rc;

impl<'a, W: Width> Machine<'a, W> {
    /// The value of the intrinsic `f` applied to `arg`, or `None` when `arg` is not of the
    /// shape it computes natively.
    pub(super) fn intrinsic(
        &mut self,
        f: Intrinsic,
        arg: &Val<W>,
        span: Span,
    ) -> Result<Option<Val<W>>, EvalError> {
        match f {
            Intrinsic::CoLocs => self.co_locs(arg, span),
            Intrinsic::Cross => self.cross(arg, span),
        }
    }

    /// `co_locs (order, classes)`: from the last class to the first, the `linearisations`
    /// of the class and `order` added (`++`) to the set of those after it.
    fn co_locs(&mut self, arg: &Val<W>, span: Span) -> Result<Option<Val<W>>, EvalError> {
        let Val::Tuple(pair) = arg else {
            return Ok(None);
        };
        let [order, classes] = &pair[..] else {
            return Ok(None);
        };
        let classes: &[Val<W>] = match classes {
            Val::Empty => &[],
            Val::Values(vs) => vs,
            _ => return Ok(None),
        };
        // Sets and a relation, as `linearisations` takes them: the order's closure is made
        // once for every class; anything else is left to the built-in, errors included.
        let closed = match order {
            Val::Rel(r) if classes.iter().all(|c| matches!(c, Val::Set(_))) => Some(r.plus()),
            _ => None,
        };
        let n = self.world.n;
        let orders = classes
            .iter()
            .map(|c| {
                self.count(span)?;
                match (&closed, c) {
                    (Some(closed), Val::Set(s)) => {
                        orders_or_fail(linearisations_closed(s, closed, n), span)
                    }
                    _ => {
                        let pair = Val::Tuple(Rc::new(vec![c.clone(), order.clone()]));
                        self.builtin(Builtin::Linearisations, pair, span)
                    }
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut added = Added::default();
        for o in orders.into_iter().rev() {
            added.add(o, self.world.n);
        }
        Ok(Some(added.into_set(Val::Empty)))
    }

    /// `cross choices`: every union of one relation of each set of `choices`, in the
    /// order the text's depth-first walk adds them (`++`) to what it found before.
    fn cross(&mut self, arg: &Val<W>, span: Span) -> Result<Option<Val<W>>, EvalError> {
        let sets: &[Val<W>] = match arg {
            Val::Empty => &[],
            Val::Values(vs) => vs,
            _ => return Ok(None),
        };
        // The text's `|` and `++` cannot fail on sets of relations: anything else is
        // left to it.
        let relations = |v: &Val<W>| matches!(v, Val::Rel(_) | Val::Empty);
        let shaped = sets.iter().all(|s| match s {
            Val::Empty => true,
            Val::Values(os) => os.iter().all(relations),
            _ => false,
        });
        if !shaped {
            return Ok(None);
        }
        let mut found = Added::default();
        self.extend(Val::Empty, sets, &mut found, span)?;
        Ok(Some(found.into_set(Val::Empty)))
    }

    /// The text's `extend (picked, sets, found)`, adding to `found` in place.
    fn extend(
        &mut self,
        picked: Val<W>,
        sets: &[Val<W>],
        found: &mut Added<W>,
        span: Span,
    ) -> Result<(), EvalError> {
        self.count(span)?;
        let Some((options, later)) = sets.split_first() else {
            found.add(picked, self.world.n);
            return Ok(());
        };
        let Val::Values(options) = options else {
            return Ok(());
        };
        for o in options.iter() {
            let union = self.setop(Op2::Union, picked.clone(), o.clone(), span)?;
            self.extend(union, later, found, span)?;
        }
        Ok(())
    }
}

/// The values the text adds one by one (`x ++ s`) to a set that starts empty, kept in
/// the order added: `++` puts a value first unless the set has the same one already.
struct Added<W: Width> {
    values: Vec<Val<W>>,
}

impl<W: Width> Default for Added<W> {
    fn default() -> Self {
        Added { values: Vec::new() }
    }
}

impl<W: Width> Added<W> {
    /// `x ++` the set so far.
    fn add(&mut self, x: Val<W>, n: usize) {
        if !self.values.iter().any(|y| y.same(&x, n)) {
            self.values.push(x);
        }
    }

    /// The set made, `empty` when nothing was added (as the text leaves its start).
    fn into_set(mut self, empty: Val<W>) -> Val<W> {
        if self.values.is_empty() {
            return empty;
        }
        self.values.reverse();
        Val::Values(Rc::new(self.values))
    }
}

#[cfg(test)]
mod tests {
    use crate::models::cat::ast::{self, Span};
    use crate::models::cat::compile::{self, CompileError, Expr, Includes, Ins, Intrinsic};
    use crate::models::cat::files::BUILTIN;
    use crate::models::cat::known::Known;
    use crate::models::cat::parse;
    use std::sync::Arc;

    /// Includes nothing; file 0 is the known file `known`, if any.
    struct Only(Option<Known>);
    impl Includes for Only {
        fn include(&mut self, name: &str, span: Span) -> Result<Arc<ast::Model>, CompileError> {
            Err(CompileError {
                message: format!("no file `{name}` here"),
                span,
            })
        }
        fn known(&self, file: u32) -> Option<Known> {
            self.0.filter(|_| file == 0)
        }
    }

    /// The intrinsic of each top-level function of `cross.cat` compiled as the file `known`.
    fn intrinsics(known: Option<Known>) -> Vec<(String, Option<Intrinsic>)> {
        let text = BUILTIN
            .iter()
            .find(|(n, _)| *n == "cross.cat")
            .map(|(_, t)| *t)
            .expect("cross.cat is built in");
        let model = parse(text, 0).expect("cross.cat parses");
        let code = compile::compile(&[&model], None, &[], Default::default(), &mut Only(known))
            .unwrap_or_else(|e| panic!("{}", e.message));
        code.instrs
            .iter()
            .filter_map(|i| match i {
                Ins::Let(bindings, _) => Some(bindings),
                _ => None,
            })
            .flatten()
            .filter_map(|(_, e)| match e {
                Expr::Fun(f) => Some((f.name.clone(), f.intrinsic)),
                _ => None,
            })
            .collect()
    }

    /// `cross` and `co_locs` of hazmat's own `cross.cat` are computed natively, and no other
    /// function; the same text from anywhere else (a user's copy) runs as written.
    #[test]
    fn only_the_library_s_own_cross_and_co_locs_are_intrinsics() {
        let own = intrinsics(Some(Known::Cross));
        let named = |name: &str| own.iter().find(|(n, _)| n == name).map(|(_, i)| *i);
        assert_eq!(named("cross"), Some(Some(Intrinsic::Cross)), "{own:?}");
        assert_eq!(named("co_locs"), Some(Some(Intrinsic::CoLocs)), "{own:?}");
        assert_eq!(named("generate_cos"), Some(None), "{own:?}");
        let copied = intrinsics(None);
        assert!(!copied.is_empty());
        assert!(copied.iter().all(|(_, i)| i.is_none()), "{copied:?}");
        // Another of hazmat's files defining a function of the same name is not it.
        assert!(
            intrinsics(Some(Known::Cos))
                .iter()
                .all(|(_, i)| i.is_none())
        );
    }
}
