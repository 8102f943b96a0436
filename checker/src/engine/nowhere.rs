//! Reads at an address known without reading memory that is no location, and the writes
//! herd7 may pair them with.
//!
//! herd7 builds one event structure per combination of thread paths, each address in it a
//! constant or, where it is computed from values read, a variable, and pairs each read
//! with every write it may read before it solves any value: a write at the same constant
//! address, or at a variable one.
//! So a read at a constant that is no location (`READ_ONCE(*r1)` with `r1` holding 0)
//! finds a write only where the structure has a write at a computed address, or at that
//! same constant; where it finds none, herd7 stops the whole test (`Non symbolic location
//! with no initial write`).
//! Where it finds one, each pairing asks the write's address to be the read's, which fails
//! for a write at a location: the candidate is dropped, and one whose write is at that
//! very address is solved and stops herd7 (`Non-symbolic memory access found`), as the
//! enumeration does for a write at no location.
//!
//! Which structure leaves such a read alone is decided here, before the search, on the
//! paths of each thread as herd7 builds them ([`crate::engine::paths::thread_shapes`]): they go on past an
//! access at no location and do not fork on the location a computed address denotes.
//! A read may read a later write of its thread but under `-optace true`, and the write of
//! its own instruction only under `-optace false`, never that of a C11 read-modify-write
//! (one event to herd7); its own write stops herd7 only where that pairing's values solve
//! ([`Shape::own_solves`]), and the search drops the candidates where they do not.
//!
//! # Complexity
//! Per read at no location, linear in the accesses of every path of every thread.

use crate::engine::paths::{At, Path, Shape};
use crate::exec::event::Value;
use crate::models::optace::OptAce;
use std::cmp::Ordering;

/// A read at no location that stops herd7 before any candidate is judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Unpaired {
    /// The read's address, an integer.
    pub(crate) value: i64,
    /// The read.
    pub(crate) source: (usize, usize),
    /// Whether it reads a later write of its own path at the same address (or its own
    /// instruction's), which herd7 solves and stops on as on any access at no location;
    /// otherwise some combination of paths has no write it may pair the read with.
    pub(crate) own: bool,
}

/// The first read at an integer address that stops herd7 before the search, if any, in
/// the paths of each thread as herd7 builds them ([`crate::engine::paths::thread_shapes`]).
pub(crate) fn unpaired(shapes: &[Vec<Path>], optace: OptAce) -> Option<Unpaired> {
    for (t, paths) in shapes.iter().enumerate() {
        for p in paths {
            for (i, a) in p.accesses.iter().enumerate() {
                let At::Nowhere(v @ Value::Int(n)) = a.at else {
                    continue;
                };
                // herd7 pairs no lock read with a write before its model.
                if !a.reads || a.lock {
                    continue;
                }
                let feeds =
                    |b: &Shape| b.writes && (b.at == At::Computed || b.at == At::Nowhere(v));
                // Which writes of its own path the read may read.
                let may_read = |j: usize, b: &Shape| match j.cmp(&i) {
                    Ordering::Less => true,
                    Ordering::Greater => optace != OptAce::True,
                    Ordering::Equal => optace == OptAce::False && !b.single,
                };
                let mut paired = false;
                for (j, b) in p.accesses.iter().enumerate() {
                    if !feeds(b) || !may_read(j, b) {
                        continue;
                    }
                    // Its own write, where the values that pairing asks for may not solve
                    // ([`Shape::own_solves`]): the search drops those candidates.
                    if j == i && !b.own_solves {
                        paired = true;
                        continue;
                    }
                    // An earlier write there stops the path itself, which the search meets.
                    if b.at == At::Nowhere(v) && j >= i {
                        return Some(Unpaired {
                            value: n,
                            source: a.source,
                            own: true,
                        });
                    }
                    paired = true;
                }
                let alone = !paired
                    && shapes
                        .iter()
                        .enumerate()
                        .filter(|&(u, _)| u != t)
                        .all(|(_, qs)| qs.iter().any(|q| !q.accesses.iter().any(feeds)));
                if alone {
                    return Some(Unpaired {
                        value: n,
                        source: a.source,
                        own: false,
                    });
                }
            }
        }
    }
    None
}

/// Why a read at the integer `n` cannot be run: no write may be at its address.
pub(crate) fn unpaired_message(n: i64) -> String {
    format!(
        "this read's address is the integer {n}, not a location, and no write at an address \
         computed from values read (nor at {n}) may be read by it when this path runs \
         (herd7 stops on it: it finds no initial write there)"
    )
}

/// herd7's words for a read at the integer `n` it finds no write for.
pub(crate) fn unpaired_herd7(n: i64) -> String {
    format!("Non symbolic location with no initial write: '[{n}]'\n")
}
