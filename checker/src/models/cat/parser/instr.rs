//! The rules of a file and its instructions: the model's identity, `enum`, bindings,
//! checks, `show`, `include`, procedures and their calls, `forall`, `with ... from`,
//! `match` on tags and `if` on variants.

use super::expr::{binary, starts_arg, tuple_pat};
use super::{Parser, T, Token};
use crate::models::cat::ast::*;
use crate::models::cat::error::CatError;

/// Whether a token may start an instruction other than `enum`.
fn starts_ins(t: T) -> bool {
    matches!(
        t,
        T::Let
            | T::Match
            | T::Flag
            | T::Requires
            | T::Assert
            | T::Comp
            | T::Acyclic
            | T::Irreflexive
            | T::TestEmpty
            | T::Show
            | T::Unshow
            | T::Include
            | T::Procedure
            | T::Call
            | T::Debug
            | T::Forall
            | T::With
            | T::If
            | T::Instructions
            | T::Default
    )
}

impl Parser<'_> {
    // ---- A model and its instructions ----

    /// `main: identity catdep topins_list EOF`.
    pub(super) fn model(&mut self) -> Result<Model, CatError> {
        let (arch, title) = self.identity();
        let catdep = self.eat(T::Catdep);
        let mut instrs = Vec::new();
        while self.peek() != T::Eof {
            instrs.push(self.topins()?);
        }
        Ok(Model {
            title,
            arch,
            catdep,
            instrs,
        })
    }

    /// `identity`: `NAME NAME`, `NAME "title"`, `NAME`, `"title"` or nothing; the first is
    /// the architecture (as herd7 reads it), the last the title.
    fn identity(&mut self) -> (Option<String>, Option<String>) {
        let string = |p: &Self, tok: Token| {
            let s = p.text(tok);
            s[1..s.len() - 1].to_string()
        };
        match (self.peek(), self.peek_at(1)) {
            (T::Var, T::Var) => {
                let arch = self.bump();
                let title = self.bump();
                (Some(self.name(arch)), Some(self.name(title)))
            }
            (T::Var, T::Str) => {
                let arch = self.bump();
                let title = self.bump();
                (Some(self.name(arch)), Some(string(self, title)))
            }
            (T::Var, _) => {
                let name = self.bump();
                (Some(self.name(name)), Some(self.name(name)))
            }
            (T::Str, _) => {
                let title = self.bump();
                (Some(string(self, title)), Some(string(self, title)))
            }
            _ => (None, None),
        }
    }

    /// `topins`: an `enum` or an instruction.
    fn topins(&mut self) -> Result<Instr, CatError> {
        match self.peek() {
            T::Enum => self.enum_decl(),
            t if starts_ins(t) => self.ins(),
            _ => Err(self.expected(
                "an instruction (`let`, `include`, a check such as `acyclic`, `show`, ...)",
            )),
        }
    }

    /// `ins_list`: instructions up to a token that starts none (`end`, `else`, `||`).
    fn ins_list(&mut self) -> Result<Vec<Instr>, CatError> {
        self.nested(|p| {
            let mut out = Vec::new();
            while starts_ins(p.peek()) {
                out.push(p.ins()?);
            }
            Ok(out)
        })
    }

    /// `ins`: one instruction.
    fn ins(&mut self) -> Result<Instr, CatError> {
        match self.peek() {
            T::Let => self.ins_let(),
            T::Match => self.ins_match(),
            T::Flag
            | T::Requires
            | T::Assert
            | T::Comp
            | T::Acyclic
            | T::Irreflexive
            | T::TestEmpty => self.deftest(),
            T::Show => self.show(),
            T::Unshow => {
                let kw = self.bump();
                let names = self.var_list()?;
                Ok(Instr::Unshow {
                    names,
                    span: self.since(kw.start),
                })
            }
            T::Include => {
                let kw = self.bump();
                let file = self.expect(T::Str, "the name of a file in quotes after `include`")?;
                let text = self.text(file);
                Ok(Instr::Include {
                    file: text[1..text.len() - 1].to_string(),
                    span: self.since(kw.start),
                })
            }
            T::Procedure => self.procedure(),
            T::Call => self.call(),
            T::Debug => {
                let kw = self.bump();
                let (exp, _) = self.exp()?;
                Ok(Instr::Debug {
                    exp,
                    span: self.since(kw.start),
                })
            }
            T::Forall => self.forall(),
            T::With => {
                let kw = self.bump();
                let var = self.var("the name to bind after `with`")?;
                self.expect(T::From, "`from`")?;
                let (set, _) = self.exp()?;
                Ok(Instr::WithFrom {
                    var,
                    set,
                    span: self.since(kw.start),
                })
            }
            T::If => self.ins_if(),
            T::Instructions | T::Default => self.events(),
            _ => Err(self.expected("an instruction")),
        }
    }

    /// `LET pat_bind_list in_opt` and `LET REC pat_bind_list [WHEN app_test] in_opt`.
    fn ins_let(&mut self) -> Result<Instr, CatError> {
        let kw = self.bump();
        if self.eat(T::Rec) {
            let (bindings, _) = self.pat_bind_list()?;
            let when = if self.peek() == T::When {
                self.bump();
                let start = self.tok().start;
                let (negated, test) = self.test()?;
                let (exp, _) = self.exp()?;
                let name = self.optional_name()?;
                Some(Box::new(When {
                    negated,
                    test,
                    exp,
                    name,
                    span: self.since(start),
                }))
            } else {
                None
            };
            self.eat(T::In);
            Ok(Instr::LetRec {
                bindings,
                when,
                span: self.since(kw.start),
            })
        } else {
            let (bindings, _) = self.pat_bind_list()?;
            self.eat(T::In);
            Ok(Instr::Let {
                bindings,
                span: self.since(kw.start),
            })
        }
    }

    /// `MATCH exp WITH altopt ins_clause_list END`.
    fn ins_match(&mut self) -> Result<Instr, CatError> {
        let kw = self.bump();
        let (exp, _) = self.exp()?;
        self.expect(T::With, "`with`")?;
        self.eat(T::Alt);
        let mut clauses = Vec::new();
        let mut default = None;
        loop {
            match self.peek() {
                T::Tag => {
                    let tag = self.bump();
                    self.expect(T::Arrow, "`->`")?;
                    let body = self.ins_list()?;
                    clauses.push((self.text(tag)[1..].to_string(), body));
                    if !self.eat(T::Alt) {
                        break;
                    }
                }
                T::Underscore => {
                    self.bump();
                    self.expect(T::Arrow, "`->`")?;
                    default = Some(self.ins_list()?);
                    break;
                }
                _ => return Err(self.expected("a clause `'tag -> ...` or `_ -> ...`")),
            }
        }
        self.close(T::End, "`end`", kw)?;
        Ok(Instr::Match {
            exp,
            clauses,
            default,
            span: self.since(kw.start),
        })
    }

    /// `deftest: test_type app_test`, with `app_test: test exp optional_name`.
    fn deftest(&mut self) -> Result<Instr, CatError> {
        let start = self.tok().start;
        let role = match self.peek() {
            T::Flag => Role::Flag,
            T::Requires => Role::UndefinedUnless,
            T::Assert => Role::Assert,
            _ => Role::Check,
        };
        if role != Role::Check {
            self.bump();
        }
        let (negated, test) = self.test()?;
        let (exp, _) = self.exp()?;
        let name = self.optional_name()?;
        Ok(Instr::Check {
            role,
            negated,
            test,
            exp,
            name,
            span: self.since(start),
        })
    }

    /// `test`: `[~] acyclic|irreflexive|empty`.
    fn test(&mut self) -> Result<(bool, Test), CatError> {
        let negated = self.eat(T::Comp);
        let test = match self.peek() {
            T::Acyclic => Test::Acyclic,
            T::Irreflexive => Test::Irreflexive,
            T::TestEmpty => Test::Empty,
            _ => return Err(self.expected("`acyclic`, `irreflexive` or `empty`")),
        };
        self.bump();
        Ok((negated, test))
    }

    /// `optional_name`: `[AS VAR]`.
    fn optional_name(&mut self) -> Result<Option<String>, CatError> {
        if !self.eat(T::As) {
            return Ok(None);
        }
        if self.peek() != T::Var {
            let e = self.expected("a name after `as`");
            return Err(match self.peek() {
                T::Str | T::Tag => e.note("the name is written bare: `as coherence`"),
                _ => e,
            });
        }
        let tok = self.bump();
        Ok(Some(self.name(tok)))
    }

    /// `SHOW base AS VAR` or `SHOW var_list`.
    fn show(&mut self) -> Result<Instr, CatError> {
        let kw = self.bump();
        let next = self.peek_at(1);
        let list = self.peek() == T::Var
            && (next == T::Comma
                || !(starts_arg(next)
                    || binary(next).is_some()
                    || matches!(next, T::Star | T::Plus | T::Opt | T::Hat | T::As)));
        if list {
            let names = self.var_list()?;
            return Ok(Instr::Show {
                names,
                span: self.since(kw.start),
            });
        }
        let (exp, _) = self.base()?;
        self.expect(T::As, "`as` and the name to show it under")?;
        let name = self.var("a name after `as`")?;
        Ok(Instr::ShowAs {
            exp,
            name,
            span: self.since(kw.start),
        })
    }

    /// `var_list`: `VAR (, VAR)*`.
    fn var_list(&mut self) -> Result<Vec<String>, CatError> {
        let mut names = vec![self.var("a name")?];
        while self.eat(T::Comma) {
            names.push(self.var("a name after `,`")?);
        }
        Ok(names)
    }

    /// `PROCEDURE [REC] VAR (LPAR formals RPAR | pat0) EQUAL ins_list END`.
    fn procedure(&mut self) -> Result<Instr, CatError> {
        let kw = self.bump();
        let rec = self.eat(T::Rec);
        let name = self.var("the name of the procedure")?;
        let params = if self.peek() == T::LPar {
            let open = self.bump();
            let formals = self.formals()?;
            self.close(T::RPar, "`)`", open)?;
            tuple_pat(formals)
        } else {
            Pattern::Var(self.pat0("the parameters, `(x, y)` or one name")?)
        };
        self.expect(T::Equal, "`=`")?;
        let body = self.ins_list()?;
        self.close(T::End, "`end`", kw)?;
        Ok(Instr::Procedure {
            name,
            params,
            body,
            rec,
            span: self.since(kw.start),
        })
    }

    /// `CALL VAR simple optional_name`.
    fn call(&mut self) -> Result<Instr, CatError> {
        let kw = self.bump();
        let name = self.var("the name of a procedure")?;
        if self.peek() == T::Var {
            return Err(self
                .expected("the argument of the call")
                .note("herd7 takes a call's argument in parentheses: `call f(x)`"));
        }
        let (arg, _) = self.simple()?;
        let as_name = self.optional_name()?;
        Ok(Instr::Call {
            name,
            arg,
            as_name,
            span: self.since(kw.start),
        })
    }

    /// `FORALL VAR IN exp DO ins_list END`.
    fn forall(&mut self) -> Result<Instr, CatError> {
        let kw = self.bump();
        let var = self.var("the name to bind after `forall`")?;
        self.expect(T::In, "`in`")?;
        let (set, _) = self.exp()?;
        self.expect(T::Do, "`do`")?;
        let body = self.ins_list()?;
        self.close(T::End, "`end`", kw)?;
        Ok(Instr::Forall {
            var,
            set,
            body,
            span: self.since(kw.start),
        })
    }

    /// `IF variant ins_list [ELSE ins_list] END`.
    fn ins_if(&mut self) -> Result<Instr, CatError> {
        let kw = self.bump();
        if !self.starts_variant() {
            return Err(self.expected("a condition on variants").note(
                "among instructions, `if` tests variants (`if \"name\" ... end`); \
                 `if ... then ... else ...` on values is an expression",
            ));
        }
        let (cond, _) = self.variant()?;
        let then = self.ins_list()?;
        let els = if self.eat(T::Else) {
            self.ins_list()?
        } else {
            Vec::new()
        };
        self.close(T::End, "`end`", kw)?;
        Ok(Instr::IfVariant {
            cond,
            then,
            els,
            span: self.since(kw.start),
        })
    }

    /// `INSTRUCTIONS VAR LBRAC args RBRAC` and `DEFAULT VAR LBRAC args RBRAC`.
    fn events(&mut self) -> Result<Instr, CatError> {
        let kw = self.bump();
        let default = kw.t == T::Default;
        let name = self.var("the kind of events (`R`, `W`, `F`, ...)")?;
        let open = self.expect(T::LBrac, "`[`")?;
        let (args, _) = self.args(T::RBrac)?;
        self.close(T::RBrac, "`]`", open)?;
        Ok(Instr::Events {
            name,
            args,
            default,
            span: self.since(kw.start),
        })
    }

    /// `ENUM VAR EQUAL altopt alttags`.
    fn enum_decl(&mut self) -> Result<Instr, CatError> {
        let kw = self.bump();
        let name = self.var("the name of the enumeration")?;
        self.expect(T::Equal, "`=`")?;
        self.eat(T::Alt);
        let mut tags = Vec::new();
        loop {
            let tag = self.expect(T::Tag, "a tag such as `'acquire`")?;
            tags.push(self.text(tag)[1..].to_string());
            if !self.eat(T::Alt) {
                break;
            }
        }
        Ok(Instr::Enum {
            name,
            tags,
            span: self.since(kw.start),
        })
    }
}
