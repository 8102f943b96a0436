//! What a strategy draws: the [`Vocabulary`] and the bounds on the sketches, with the
//! classes left out or asked for.

use super::Class;
use crate::front::defs::Macros;
use std::sync::Arc;

/// Which primitives a strategy draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vocabulary {
    /// The primitives SC, TSO and the LKMM all give meaning to (see the module's
    /// documentation), every location shown, `exists` of a conjunction.
    Basic,
    /// The LKMM's whole vocabulary, in diy7's spelling, with varied conditions.
    Lkmm,
    /// herd7's C11 dialect (`c11.def`): every memory order on every atomic operation,
    /// fences, read-modify-writes, compare-exchanges and plain accesses, with varied
    /// conditions.
    C11,
}

/// Bounds on the sketches a strategy draws.
#[derive(Clone, Debug)]
pub struct Config {
    /// The fewest threads.
    pub min_threads: usize,
    /// The most threads.
    pub max_threads: usize,
    /// The most statements per thread (at least one each), compound statements counting
    /// once.
    pub max_stmts: usize,
    /// The most shared variables (at least two are used when there are two threads or more).
    pub max_vars: usize,
    /// Whether to draw read-modify-writes.
    pub rmws: bool,
    /// Whether to draw `if` statements and `while` loops.
    pub branches: bool,
    /// Which primitives to draw.
    pub vocabulary: Vocabulary,
    /// Classes never to draw (with [`Vocabulary::Lkmm`]): statements of them are not drawn,
    /// and a sketch with a condition or a `locations` clause of them is drawn again.
    pub without: Vec<Class>,
    /// Classes every program has (with [`Vocabulary::Lkmm`]): a sketch without one of them
    /// is drawn again, so that a rare construct can be tested on many programs.
    pub with: Vec<Class>,
    /// The most primitives in all threads together
    /// ([`SketchStmt::size`](super::SketchStmt::size); the last threads lose statements
    /// beyond it), so that tests of many threads stay small.
    pub max_size: usize,
    /// The macros that must define every call of a program (with [`Vocabulary::Lkmm`]: a
    /// def file of an older kernel model, which lacks some of today's primitives): a
    /// sketch calling another name is drawn again.
    pub macros: Option<Arc<Macros>>,
}

impl Default for Config {
    /// 2 to 4 threads of 1 to 3 statements over 2 or 3 variables, with RMWs and branches,
    /// from the basic vocabulary.
    fn default() -> Config {
        Config {
            min_threads: 2,
            max_threads: 4,
            max_stmts: 3,
            max_vars: 3,
            rmws: true,
            branches: true,
            vocabulary: Vocabulary::Basic,
            without: Vec::new(),
            with: Vec::new(),
            max_size: usize::MAX,
            macros: None,
        }
    }
}

impl Config {
    /// 2 to 5 threads (2 and 3 most often) of 1 to 4 statements, 9 primitives at most in
    /// all, over 2 or 3 variables, from the LKMM's whole vocabulary.
    pub fn lkmm() -> Config {
        Config {
            min_threads: 2,
            max_threads: 5,
            max_stmts: 4,
            max_vars: 3,
            rmws: true,
            branches: true,
            vocabulary: Vocabulary::Lkmm,
            without: Vec::new(),
            with: Vec::new(),
            max_size: 9,
            macros: None,
        }
    }

    /// 2 to 4 threads of 1 to 4 statements, 8 primitives at most in all, over 2 or 3
    /// variables, from herd7's C11 dialect.
    pub fn c11() -> Config {
        Config {
            min_threads: 2,
            max_threads: 4,
            max_stmts: 4,
            max_vars: 3,
            rmws: true,
            branches: true,
            vocabulary: Vocabulary::C11,
            without: Vec::new(),
            with: Vec::new(),
            max_size: 8,
            macros: None,
        }
    }

    pub(super) fn allows(&self, class: Class) -> bool {
        !self.without.contains(&class)
            && (self.rmws || !class.name().starts_with("rmw-"))
            && (self.branches || !matches!(class, Class::CtrlDep | Class::Loop))
    }
}
