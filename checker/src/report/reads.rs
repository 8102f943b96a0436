//! The final states herd7 prints under its `-outcomereads true`.
//!
//! The engine's states hold, beside the cells the test shows, every register an
//! instruction that reads memory may write and its ghost registers
//! ([`crate::front::lower::reads`]). herd7 keeps the registers that some allowed execution
//! wrote in such an instruction (the union over the executions), and drops every other
//! register, those of the condition and of `locations` included; of the registers it
//! keeps, a state holds those its execution wrote or its initial state holds, and those
//! the test shows, whatever their execution did.
//! Each state is then a map from cells to values, so two states are one when they hold
//! the same cells with the same values, and they are ordered as herd7 orders its maps:
//! cell by cell in the order of the columns, a state that lacks a cell before one that
//! holds a later cell there, then by value, the shorter first when one is a prefix of the
//! other.

use crate::engine::outcome::{ValueOrder, value_order};
use crate::exec::event::Value;
use crate::front::program::{Cell, Program, Reads};
use std::collections::BTreeMap;

/// The states herd7 prints: its columns, and per state the value of each column it
/// holds (`None` where it holds none).
pub(crate) struct Restricted {
    /// The cells of the states, in herd7's order.
    pub(crate) columns: Vec<Cell>,
    /// The states, in herd7's order, each with one entry per column.
    pub(crate) states: Vec<Vec<Option<Value>>>,
}

/// herd7's states of the engine's `states`, each over [`Program::shown`].
pub(crate) fn restrict(p: &Program, reads: &Reads, states: &[Vec<Value>]) -> Restricted {
    let at = |c: Cell| p.shown.iter().position(|&s| s == c);
    let one = Value::Int(1);
    // The registers some execution wrote from memory.
    let kept: Vec<_> = reads
        .tracked
        .iter()
        .filter(|t| at(t.loaded).is_some_and(|l| states.iter().any(|s| s[l] == one)))
        .collect();
    // Each column: its place in the engine's states, and for a register the place of the
    // ghost that says whether the execution wrote it, when a state may lack it.
    let mut columns = Vec::new();
    let mut places: Vec<(usize, Option<usize>)> = Vec::new();
    for (i, &c) in p.shown.iter().enumerate() {
        match c {
            Cell::Loc(_) if reads.displayed.contains(&c) => places.push((i, None)),
            Cell::Loc(_) => continue,
            Cell::Reg { .. } | Cell::Missing(_) => {
                let Some(t) = kept.iter().find(|t| t.cell == c) else {
                    continue;
                };
                let written = match t.written {
                    Some(w) if !reads.displayed.contains(&c) => at(w),
                    _ => None,
                };
                places.push((i, written));
            }
        }
        columns.push(c);
    }
    let mut rows: BTreeMap<Vec<(usize, ValueOrder<'_>)>, Vec<Option<Value>>> = BTreeMap::new();
    for s in states {
        let mut key = Vec::with_capacity(places.len());
        let mut row = Vec::with_capacity(places.len());
        for (k, &(i, written)) in places.iter().enumerate() {
            if written.is_some_and(|w| s[w] != one) {
                row.push(None);
            } else {
                key.push((k, value_order(p, s[i])));
                row.push(Some(s[i]));
            }
        }
        rows.entry(key).or_insert(row);
    }
    Restricted {
        columns,
        states: rows.into_values().collect(),
    }
}
