//! The trailer, after the threads: the `locations` clause, the filter and the condition,
//! with the propositions, atoms and values they are made of; and the `Result:` expectations
//! that the test's comments state.

use nom::Err;
use nom::Parser as _;
use nom::combinator::cut;
use nom::error::context;

use super::Parser;
use super::lex::{PError, PResult, fail, failure, failure_msg, fatal, ml_comment_in_program};
use crate::ast::*;

impl<'a> Parser<'a> {
    /// `trailer ::= ("locations" "[" ... "]")? ("filter" prop)? condition?`, in this order.
    #[allow(clippy::type_complexity)]
    pub(super) fn trailer(
        &self,
        i: &'a str,
    ) -> PResult<'a, (Option<Vec<Location>>, Option<Prop>, Option<Condition>)> {
        let mut locations = None;
        let mut filter = None;
        let mut condition = None;
        let mut i = i;
        loop {
            let (rest, ()) = self.trivia(i)?;
            // Before the first clause, herd7 still reads C; from it on, `(*` opens comments.
            if rest.starts_with("(*") && self.in_program.get() {
                return failure_msg(rest, ml_comment_in_program());
            }
            self.in_program.set(false);
            if let Ok((r, kw)) = self.keyword("locations", "")(rest) {
                if locations.is_some() {
                    return failure_msg(
                        &self.src[kw.start..],
                        "a second `locations` clause".to_string(),
                    );
                }
                if filter.is_some() || condition.is_some() {
                    return failure_msg(
                        &self.src[kw.start..],
                        "herd7 takes `locations` before the filter and the condition".to_string(),
                    );
                }
                let (r, locs) =
                    cut(context("the `locations` clause", |i| self.locations(i))).parse(r)?;
                locations = Some(locs);
                i = r;
            } else if let Ok((r, kw)) = self.keyword("filter", "")(rest) {
                if filter.is_some() {
                    return failure_msg(
                        &self.src[kw.start..],
                        "a second `filter` clause".to_string(),
                    );
                }
                if condition.is_some() {
                    return failure_msg(
                        &self.src[kw.start..],
                        "herd7 takes the filter before the condition".to_string(),
                    );
                }
                let (r, p) = cut(context("the filter", |i| self.prop(i))).parse(r)?;
                filter = Some(p);
                i = r;
            } else if condition.is_none() {
                match context("the condition", |i| self.condition(i)).parse(rest) {
                    Ok((r, c)) => {
                        condition = Some(c);
                        i = r;
                    }
                    Err(Err::Error(_)) => return Ok((rest, (locations, filter, condition))),
                    Err(e) => return Err(e),
                }
            } else {
                return Ok((rest, (locations, filter, condition)));
            }
        }
    }

    /// `locations ::= "[" (location ";")* location? "]"`
    fn locations(&self, i: &'a str) -> PResult<'a, Vec<Location>> {
        let (mut i, open) = self.tok("[", "`[` after `locations`")(i)?;
        let mut locs = Vec::new();
        loop {
            if self.peek(i, "]")? {
                let (rest, _) = self.tok("]", "`]`")(i)?;
                return Ok((rest, locs));
            }
            let (rest, l) = cut(|i| self.location(i))
                .parse(i)
                .map_err(|e| self.closing(e, open, "`]`", "the locations"))?;
            locs.push(l);
            i = self.location_type(rest)?.0;
            match self.tok(";", "`;`")(i) {
                Ok((rest, _)) => i = rest,
                Err(_) => {
                    let (rest, _) = cut(self.tok("]", "`]`"))
                        .parse(i)
                        .map_err(|e| self.closing(e, open, "`]`", "the locations"))?;
                    return Ok((rest, locs));
                }
            }
        }
    }

    /// `location-type ::= "*" | name "*"?`, after a location of the `locations` clause
    /// (`x int`, `p int*`, `0:r1 *`): herd7's grammar takes a type there, for litmus7, and
    /// herd7 prints the values as it does without one; so does hazmat.
    fn location_type(&self, i: &'a str) -> PResult<'a, ()> {
        let (j, ()) = self.trivia(i)?;
        let j = match self.word(j) {
            Ok((rest, _)) => self.trivia(rest)?.0,
            Err(_) if j.starts_with('*') => j,
            Err(_) => return Ok((i, ())),
        };
        Ok((j.strip_prefix('*').unwrap_or(j), ()))
    }

    /// `condition ::= (quantified | "final" prop | observed) ";"? kinds?`: herd7 tolerates a
    /// `;` after a test's condition, which carries nothing, and takes its other spellings
    /// of `exists p` but `(p)`, which its reading of the threads does not stop at.
    fn condition(&self, i: &'a str) -> PResult<'a, Condition> {
        let (i, ()) = self.trivia(i)?;
        let (rest, c) = match self.exists_by_another_name(i, false)? {
            Some(found) => found,
            None => self.quantified(i)?,
        };
        let rest = match self.tok(";", "`;`")(rest) {
            Ok((r, _)) => r,
            Err(_) => rest,
        };
        let (rest, ()) = self.kinds(rest)?;
        Ok((rest, c))
    }

    /// `kinds ::= "with" kind (";" kind)* ";"?`, `kind ::= name ":" ("forall" | "exists" |
    /// ("~" | "not") "exists")`: the kind a test is expected to have, by name, which herd7's
    /// grammar takes after a test's condition (for litmus7) and herd7 then drops; so does
    /// hazmat.
    fn kinds(&self, i: &'a str) -> PResult<'a, ()> {
        let (j, ()) = self.trivia(i)?;
        let Ok((mut r, _)) = self.keyword("with", "")(j) else {
            return Ok((i, ()));
        };
        loop {
            let (name, ()) = self.trivia(r)?;
            let n = state_name_len(name);
            if n == 0 {
                return failure(name, "a test's name and its kind, as in `with SB: exists`");
            }
            let rest = &name[n..];
            let (rest, _) = cut(self.tok(":", "`:` after the test's name")).parse(rest)?;
            let (rest, ()) = self.trivia(rest)?;
            let rest = if let Ok((r, _)) =
                self.keyword("forall", "")(rest).or_else(|_| self.keyword("exists", "")(rest))
            {
                r
            } else if let Some(r) = rest
                .strip_prefix('~')
                .or_else(|| self.keyword("not", "").parse(rest).ok().map(|(r, _)| r))
            {
                cut(self.keyword("exists", "`exists` after the negation"))
                    .parse(r)?
                    .0
            } else {
                return failure(rest, "`forall`, `exists` or `~exists`");
            };
            let Ok((rest, _)) = self.tok(";", "`;`")(rest) else {
                return Ok((rest, ()));
            };
            let (after, ()) = self.trivia(rest)?;
            if after.is_empty() {
                return Ok((rest, ()));
            }
            r = after;
        }
    }

    /// `condition_alone ::= (quantified | "final" prop | "(" prop ")" | observed)? EOF`: a
    /// condition given apart from any test (herd7's `-conds` files), as herd7's grammar of
    /// one reads it: no `;` after it; nothing at all is `forall (true)`; `final p` and
    /// `(p)` are `exists (p)`.
    pub(crate) fn condition_alone(&self, i: &'a str) -> PResult<'a, Condition> {
        let (i, ()) = self.trivia(i)?;
        let (rest, c) = if i.is_empty() {
            let span = self.span(i, i);
            let prop = Prop {
                kind: PropKind::True,
                span,
            };
            let c = Condition {
                quantifier: Quantifier::Forall,
                prop,
                span,
            };
            (i, c)
        } else if let Some(found) = self.exists_by_another_name(i, true)? {
            found
        } else {
            self.quantified(i)?
        };
        let (rest, ()) = self.trivia(rest)?;
        if !rest.is_empty() {
            return failure(rest, "the end of the condition");
        }
        Ok((rest, c))
    }

    /// herd7's other spellings of `exists p`: `final p`, `(p)` (when `parenthesised`: a
    /// condition given alone), and `observed` with sets of atoms, each atom followed by `;`,
    /// the sets apart by `and`, for the disjunction of their conjunctions; `None` for none
    /// of them.
    fn exists_by_another_name(
        &self,
        i: &'a str,
        parenthesised: bool,
    ) -> Result<Option<(&'a str, Condition)>, Err<PError<'a>>> {
        let exists = |rest: &'a str, prop| Condition {
            quantifier: Quantifier::Exists,
            prop,
            span: self.span(i, rest),
        };
        if let Ok((r, _)) = self.keyword("final", "")(i) {
            let (r, p) = cut(|i| self.prop(i)).parse(r)?;
            return Ok(Some((r, exists(r, p))));
        }
        if parenthesised && i.starts_with('(') {
            let (r, p) = self.neg(i)?;
            return Ok(Some((r, exists(r, p))));
        }
        let observed = self.keyword("observed", "")(i).or_else(|_| self.keyword("Observed", "")(i));
        let Ok((mut r, _)) = observed else {
            return Ok(None);
        };
        let mut disjunction: Option<Prop> = None;
        loop {
            let mut conjunction: Option<Prop> = None;
            loop {
                let (rest, ()) = self.trivia(r)?;
                if rest.is_empty()
                    || self.keyword("and", "")(rest).is_ok()
                    || self.keyword("with", "")(rest).is_ok()
                {
                    break;
                }
                let (rest, atom) = cut(|i| self.atom(i)).parse(rest)?;
                let (rest, _) = cut(self.tok(";", "`;` after the atom")).parse(rest)?;
                let p = Prop {
                    span: atom.span,
                    kind: PropKind::Atom(atom),
                };
                conjunction = Some(join(conjunction, p, PropKind::And));
                r = rest;
            }
            let p = conjunction.unwrap_or(Prop {
                kind: PropKind::True,
                span: self.span(r, r),
            });
            disjunction = Some(join(disjunction, p, PropKind::Or));
            match self.keyword("and", "")(self.trivia(r)?.0) {
                Ok((rest, _)) => r = rest,
                Err(_) => break,
            }
        }
        let p = disjunction.unwrap_or(Prop {
            kind: PropKind::True,
            span: self.span(r, r),
        });
        Ok(Some((r, exists(r, p))))
    }

    /// `quantified ::= ("exists" | "~" "exists" | "not" "exists" | "forall") prop`
    fn quantified(&self, i: &'a str) -> PResult<'a, Condition> {
        let (i, ()) = self.trivia(i)?;
        let start = i;
        let (rest, quantifier) = if let Ok((r, _)) = self.keyword("exists", "")(i) {
            (r, Quantifier::Exists)
        } else if let Ok((r, _)) = self.keyword("forall", "")(i) {
            (r, Quantifier::Forall)
        } else if let Some(r) = i
            .strip_prefix('~')
            .or_else(|| self.keyword("not", "").parse(i).ok().map(|(r, _)| r))
        {
            let (r, _) = cut(self.keyword("exists", "`exists` after the negation")).parse(r)?;
            (r, Quantifier::NotExists)
        } else {
            return fail(
                i,
                "`locations`, `filter`, `exists`, `forall` or the end of the file",
            );
        };
        let (rest, prop) = cut(|i| self.prop(i)).parse(rest)?;
        let span = self.span(start, rest);
        Ok((
            rest,
            Condition {
                quantifier,
                prop,
                span,
            },
        ))
    }

    /// `prop ::= disj`: herd7 binds `~` tightest, then `=>` (to the right), then `/\`,
    /// then `\/`, so `a \/ b => c` is `a \/ (b => c)`.
    pub(crate) fn prop(&self, i: &'a str) -> PResult<'a, Prop> {
        self.enter(i)?;
        let r = self.disj(i);
        self.leave();
        r
    }

    /// `implication ::= neg ("=>" implication)?`; each `=>` is one more level of nesting.
    fn implication(&self, i: &'a str) -> PResult<'a, Prop> {
        let (i, lhs) = self.neg(i)?;
        match self.tok("=>", "`=>`")(i) {
            Ok((rest, _)) => {
                self.enter(i)?;
                let r = cut(|i| self.implication(i)).parse(rest);
                self.leave();
                let (rest, rhs) = r?;
                let span = lhs.span.to(rhs.span);
                Ok((
                    rest,
                    Prop {
                        kind: PropKind::Implies(Box::new(lhs), Box::new(rhs)),
                        span,
                    },
                ))
            }
            Err(_) => Ok((i, lhs)),
        }
    }

    /// `disj ::= conj ("\/" conj)*`
    fn disj(&self, i: &'a str) -> PResult<'a, Prop> {
        self.chain(|| self.disj_chain(i))
    }

    fn disj_chain(&self, i: &'a str) -> PResult<'a, Prop> {
        let (mut i, mut lhs) = self.conj(i)?;
        while let Ok((rest, _)) = self.tok("\\/", "`\\/`")(i) {
            self.link(i)?;
            let (rest, rhs) = cut(|i| self.conj(i)).parse(rest)?;
            let span = lhs.span.to(rhs.span);
            lhs = Prop {
                kind: PropKind::Or(Box::new(lhs), Box::new(rhs)),
                span,
            };
            i = rest;
        }
        self.c_connective(i)?;
        Ok((i, lhs))
    }

    /// Refuses C's `&&`, `||`, `&` and `|` after a proposition, with the connective herd7's
    /// conditions write instead (herd7 stops at them too, with a bare "unexpected").
    fn c_connective(&self, i: &'a str) -> Result<(), Err<PError<'a>>> {
        let (i, ()) = self.trivia(i)?;
        match ["&&", "||", "&", "|"]
            .into_iter()
            .find(|op| i.starts_with(op))
        {
            Some(op) => Err(fatal(
                i,
                format!("herd7's conditions have no `{op}`: and is `/\\`, or is `\\/`, not is `~`"),
            )),
            None => Ok(()),
        }
    }

    /// `conj ::= implication ("/\" implication)*`
    fn conj(&self, i: &'a str) -> PResult<'a, Prop> {
        self.chain(|| self.conj_chain(i))
    }

    fn conj_chain(&self, i: &'a str) -> PResult<'a, Prop> {
        let (mut i, mut lhs) = self.implication(i)?;
        while let Ok((rest, _)) = self.tok("/\\", "`/\\`")(i) {
            self.link(i)?;
            let (rest, rhs) = cut(|i| self.implication(i)).parse(rest)?;
            let span = lhs.span.to(rhs.span);
            lhs = Prop {
                kind: PropKind::And(Box::new(lhs), Box::new(rhs)),
                span,
            };
            i = rest;
        }
        Ok((i, lhs))
    }

    /// `neg ::= ("~" | "not") neg | "(" prop ")" | "true" | "false" | atom`
    fn neg(&self, i: &'a str) -> PResult<'a, Prop> {
        let (i, ()) = self.trivia(i)?;
        let start = i;
        let not = i
            .strip_prefix('~')
            .or_else(|| self.keyword("not", "").parse(i).ok().map(|(r, _)| r));
        if let Some(rest) = not {
            self.enter(i)?;
            let r = cut(|i| self.neg(i)).parse(rest);
            self.leave();
            let (rest, p) = r?;
            let span = self.span(start, rest);
            return Ok((
                rest,
                Prop {
                    kind: PropKind::Not(Box::new(p)),
                    span,
                },
            ));
        }
        if let Some(rest) = i.strip_prefix('(') {
            let (rest, p) = cut(|i| self.prop(i)).parse(rest)?;
            let (rest, _) = cut(self.tok(")", "`)`"))
                .parse(rest)
                .map_err(|e| self.closing(e, start, "`)`", "the condition"))?;
            return Ok((rest, p));
        }
        if let Ok((rest, span)) = self.keyword("true", "")(i) {
            return Ok((
                rest,
                Prop {
                    kind: PropKind::True,
                    span,
                },
            ));
        }
        if let Ok((rest, span)) = self.keyword("false", "")(i) {
            return Ok((
                rest,
                Prop {
                    kind: PropKind::False,
                    span,
                },
            ));
        }
        if i.starts_with('!') {
            return Err(fatal(
                i,
                "herd7's conditions have no `!`: not is `~`, and is `/\\`, or is `\\/`".into(),
            ));
        }
        let (rest, atom) = self.atom(i)?;
        let span = atom.span;
        Ok((
            rest,
            Prop {
                kind: PropKind::Atom(atom),
                span,
            },
        ))
    }

    /// `atom ::= (location | "[" location "]") ("=" | "==" | "!=" | "<>") value`
    fn atom(&self, i: &'a str) -> PResult<'a, Atom> {
        let (i, ()) = self.trivia(i)?;
        let start = i;
        let (rest, loc) = if let Some(r) = i.strip_prefix('[') {
            let (r, loc) = cut(|i| self.location(i)).parse(r)?;
            let (r, _) = cut(self.tok("]", "`]`")).parse(r)?;
            (r, loc)
        } else {
            self.location(i).map_err(|e| {
                e.map(|mut err| {
                    if err.input.len() == i.len() {
                        err.set_expected("a condition such as `0:r0=1` or `x=2`");
                    }
                    err
                })
            })?
        };
        let (rest, ()) = self.trivia(rest)?;
        let (rest, op) = if let Some(r) = rest.strip_prefix("!=").or(rest.strip_prefix("<>")) {
            (r, CmpOp::Ne)
        } else if let Some(r) = rest.strip_prefix("==").or(rest.strip_prefix('=')) {
            (r, CmpOp::Eq)
        } else {
            return failure(rest, "`=` or `!=` after the location");
        };
        let at = rest;
        let (rest, value) = cut(|i| self.value(i)).parse(rest)?;
        if op == CmpOp::Ne && matches!(value, Value::Register { .. }) {
            // herd7's condition grammar compares a register with another only by `=`.
            let (at, ()) = self.trivia(at)?;
            return failure_msg(
                at,
                "herd7 compares with a register only by `=`: for `!=`, negate the equality, as in `~(x=0:r1)`"
                    .to_string(),
            );
        }
        Ok((
            rest,
            Atom {
                loc,
                op,
                value,
                span: self.span(start, rest),
            },
        ))
    }

    /// `value ::= state-int | digits ":" name | name`
    fn value(&self, i: &'a str) -> PResult<'a, Value> {
        let (i, ()) = self.trivia(i)?;
        if i.starts_with('-') {
            let (rest, (v, _)) = self.state_int(i)?;
            return Ok((rest, Value::Int(v)));
        }
        if i.starts_with(|c: char| c.is_ascii_digit()) {
            let (rest, (v, _)) = self.state_int(i)?;
            if self.peek(rest, ":")? {
                let (rest, loc) = self.location(i)?;
                if let Location::Register { thread, reg, span } = loc {
                    return Ok((rest, Value::Register { thread, reg, span }));
                }
            }
            return Ok((rest, Value::Int(v)));
        }
        let (rest, id) = self.state_name(i).map_err(|e| {
            e.map(|mut err| {
                err.set_expected("a value (an integer or an address)");
                err
            })
        })?;
        Ok((rest, Value::Addr(id)))
    }
}

/// `lhs` joined with `rhs` by `op` (`And` or `Or`), or `rhs` alone.
fn join(lhs: Option<Prop>, rhs: Prop, op: fn(Box<Prop>, Box<Prop>) -> PropKind) -> Prop {
    match lhs {
        None => rhs,
        Some(l) => {
            let span = l.span.to(rhs.span);
            Prop {
                kind: op(Box::new(l), Box::new(rhs)),
                span,
            }
        }
    }
}

/// The `Result:` lines of a comment: `Result: Never`, `Result(sc): Sometimes DATARACE`.
pub(super) fn expectations_in(c: &Comment) -> Vec<Expectation> {
    let mut out = Vec::new();
    let mut line_start = 0;
    for line in c.text.split_inclusive('\n') {
        let trimmed = line.trim_start_matches(|ch: char| ch.is_whitespace() || ch == '*');
        let at = line_start + (line.len() - trimmed.len());
        line_start += line.len();
        let Some(rest) = trimmed.strip_prefix("Result") else {
            continue;
        };
        let (model, rest) = match rest.strip_prefix('(') {
            Some(r) => match r.split_once(')') {
                Some((m, r)) => (Some(m.trim().to_string()), r),
                None => continue,
            },
            None => (None, rest),
        };
        let Some(rest) = rest.trim_start().strip_prefix(':') else {
            continue;
        };
        let mut outcome = None;
        let mut flags = Vec::new();
        // Trailing punctuation, as in `Result: Never.`, is not part of a word.
        let words = rest
            .split_whitespace()
            .map(|w| w.trim_end_matches(['.', ',', ';', ':']))
            .filter(|w| !w.is_empty());
        for word in words {
            match word {
                "Never" if outcome.is_none() => outcome = Some(Outcome::Never),
                "Sometimes" if outcome.is_none() => outcome = Some(Outcome::Sometimes),
                "Always" if outcome.is_none() => outcome = Some(Outcome::Always),
                "DEADLOCK" if outcome.is_none() => outcome = Some(Outcome::Deadlock),
                "Flag" => {}
                w => flags.push(w.to_string()),
            }
        }
        let text_start = c.span.start + 2;
        let len = trimmed.trim_end().len();
        out.push(Expectation {
            model,
            outcome,
            flags,
            span: Span::new(text_start + at, text_start + at + len),
        });
    }
    out
}

/// The length of the name `text` starts with, by herd7's rule for a name in a state or a
/// condition: letters, `_`, `.` and `$`, then these, digits, `/` and `-` too (`MP`,
/// `lb-2`, `c/mp.1`; no `+`).
fn state_name_len(text: &str) -> usize {
    let head = text
        .find(|c: char| !(c.is_ascii_alphabetic() || matches!(c, '_' | '.' | '$')))
        .unwrap_or(text.len());
    if head == 0 {
        return 0;
    }
    head + text[head..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '/' | '.' | '-')))
        .unwrap_or(text.len() - head)
}
