//! Accesses at an address that is no location (an integer, as a register never assigned
//! gives): where a path stops at one or goes on past it, and the errors that name them.
//!
//! herd7 stops on a write there in any candidate whose values solve; it pairs a read
//! there with a write at the same address, and there is no initial write there, so a
//! read-modify-write there reads first: its own write may be read under `-optace false`,
//! where herd7 solves what that pairing asks ([`OwnWrite`]). herd7 runs a spinlock there
//! instead, which hazmat refuses ([`not_a_lock`]). See also [`crate::engine::nowhere`].

use super::{Access, Frame, Node, Path, PathError, State, SymId, Walker, set, truth};
use crate::exec::event::Value;
use crate::exec::event::{EventKind, Loc};
use crate::front::c11;
use crate::front::program::{BinOp, Program, Reg};

/// Where a path stops because an address computed from values read denotes none of the
/// locations the test handles as values.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Escape {
    /// The address.
    pub(crate) sym: SymId,
    /// The access.
    pub(crate) source: (usize, usize),
    /// Whether the access reads there (only, at an address computed from values read; at
    /// an address known without reading memory, a read-modify-write too): herd7 pairs such
    /// a read with no write but one at the same address, and drops the candidate otherwise
    /// ([`crate::engine::nowhere`]), where it stops with an error on a write there.
    pub(crate) read: bool,
    /// Whether the access writes there too: a plain write, or a read-modify-write whose
    /// read finds a write to pair with; herd7 stops on it in any candidate whose values
    /// solve.
    pub(crate) writes: bool,
    /// For a read-modify-write whose read may read its own write (herd7 pairs them under
    /// `-optace false`, but for a C11 one, one event to herd7): a value non-zero exactly
    /// when that pairing's values solve ([`OwnWrite`]).
    pub(crate) own: Option<SymId>,
    /// Whether the path goes on past the access, reading its own write, with a register
    /// set to a value nothing solves ([`Node::Free`]): herd7 drops that pairing's
    /// candidate where an operator uses the value, but pairs the read with any other
    /// write at the same address too ([`crate::engine::enumerate`]'s `solve`).
    pub(crate) free: bool,
    /// Whether the access reads at an address known without reading memory: herd7 stops
    /// on it as soon as a combination of paths has no write it may pair it with
    /// ([`crate::engine::nowhere`]).
    pub(crate) always: bool,
    /// Whether the access is a spinlock's ([`OwnWrite::Lock`]), which herd7 does not stop
    /// on there: it runs it, and hazmat refuses the test ([`not_a_lock`]).
    pub(crate) lock: bool,
    /// The instruction of the access ([`crate::engine::paths::PathEvent::stmt`]).
    pub(crate) stmt: u32,
    /// At an address computed from values read, what the access writes, as the flow of
    /// values between accesses sees it ([`crate::engine::unsolved`]): herd7 pairs such an
    /// access with the accesses of every location. `None` for an access that writes
    /// nothing, or at an address known without reading memory.
    pub(crate) written: Option<Written>,
}

/// The value an access at no location writes, as the flow of values sees it
/// ([`Escape::written`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Written {
    /// The reads of the path the value is computed from (as bits).
    pub(crate) taint: u64,
    /// Whether it is computed from the access's own read too (a read-modify-write's
    /// operation).
    pub(crate) own: bool,
    /// Whether the write is one event with its read, as herd7's C11 read-modify-write is,
    /// which never reads it.
    pub(crate) single: bool,
}

/// Whether herd7's values solve when a read-modify-write at an address that is no
/// location reads its own write, which herd7's `-optace false` lets it do (there is no
/// initial write there to read).
///
/// The read's value is then an unknown `v`, and the write's value must equal it: an
/// exchange's (`xchg`, a successful `cmpxchg`) does not depend on `v` and solves it,
/// but a successful `cmpxchg` also asks `v` to be its expected value; an operation's
/// (`atomic_add`...) is `v op k`, which herd7 builds as `v` itself only for `+ 0` and
/// `| 0` with `0` known as it builds the instruction, and leaves unsolved otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum OwnWrite {
    /// No write of its own to read: not a read-modify-write, a failure that does not
    /// write, or a C11 one.
    No,
    /// A spinlock's: herd7 pairs no lock read with a write before its model, and does not
    /// stop on a lock at no location but runs it. hazmat refuses the test where one takes
    /// a path to it ([`not_a_lock`]), but for `spin_is_locked`, whose candidates herd7
    /// drops: a read there.
    Lock,
    /// It reads its own write; the values solve exactly when this holds. The register it
    /// then sets and the value, where known (the write's), for the path to go on with:
    /// a write of the thread after it may solve its address under `-optace false`.
    Solves(Solves, Option<(Option<Reg>, SymId)>),
}

/// When the values of a read-modify-write reading its own write solve ([`OwnWrite`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Solves {
    Always,
    Never,
    /// When the two values are equal (a successful `cmpxchg`'s new and expected values).
    Equal(SymId, SymId),
}

impl OwnWrite {
    /// Whether reading its own write sets the register to a value nothing solves.
    pub(super) fn free(self, st: &State) -> bool {
        matches!(self, OwnWrite::Solves(_, Some((_, v))) if matches!(st.path.nodes[v as usize], Node::Free))
    }
}

impl Path {
    /// Whether the path stops at a write to an address that is no location (a
    /// read-modify-write's too, a lock's), which herd7 stops on in any candidate whose
    /// values solve, whatever its model says of it.
    pub(crate) fn writes_nowhere(&self) -> bool {
        self.escape.is_some_and(|e| e.writes)
    }
}

impl<'a> Walker<'a> {
    /// Whether an access at no location writes there too, and for a read-modify-write
    /// whose read may read its own write, the value that says whether that pairing's
    /// values solve ([`Escape::own`]).
    pub(super) fn own_write(
        &mut self,
        st: &mut State,
        access: Access,
        own: OwnWrite,
        span: (usize, usize),
    ) -> (bool, Option<SymId>) {
        let solves = match own {
            OwnWrite::No => return (access == Access::Store, None),
            OwnWrite::Lock => return (access != Access::Load, None),
            OwnWrite::Solves(solves, _) => solves,
        };
        let sym = match solves {
            Solves::Always => st.path.push(Node::Const(Value::Int(1)), 0),
            Solves::Never => st.path.push(Node::Const(Value::Int(0)), 0),
            Solves::Equal(a, b) => self.bin(st, BinOp::Eq, a, b, span),
        };
        (true, Some(sym))
    }

    /// Whether the path goes on past a read-modify-write at no location, as it does past
    /// a write there: where its read may read its own write with values that may solve,
    /// and the register it sets is then known, which it sets.
    pub(super) fn reads_own(&self, st: &mut State, own: OwnWrite, ok: Option<SymId>) -> bool {
        let (OwnWrite::Solves(_, Some((dst, v))), Some(ok)) = (own, ok) else {
            return false;
        };
        if st.path.constant(ok).is_some_and(|c| !truth(c)) {
            return false;
        }
        set(st, dst, v);
        true
    }

    /// What an access at an address computed from values read writes, should it be at a
    /// location ([`Escape::written`]): `body` runs the access as at one, on a copy of the
    /// path. A thread with too many reads to run it is assumed to write a value computed
    /// from all of them.
    pub(super) fn written(
        &mut self,
        st: &State,
        body: &mut impl FnMut(&mut Self, &mut State, Loc, u64) -> Result<bool, PathError>,
    ) -> Option<Written> {
        let mut probe = st.clone();
        let first = probe.path.events.len();
        let own = probe.path.reads;
        let bit = 1u64.checked_shl(own).unwrap_or(0);
        match body(self, &mut probe, Loc(u32::MAX), 0) {
            Ok(true) => {}
            Ok(false) => return None,
            Err(_) => {
                return Some(Written {
                    taint: bit.wrapping_sub(1),
                    own: true,
                    single: false,
                });
            }
        }
        let write = probe.path.events[first..]
            .iter()
            .find(|e| e.kind == EventKind::Write)?;
        let taint = probe.path.taint[write.value as usize];
        Some(Written {
            taint: taint & !bit,
            own: taint & bit != 0,
            single: c11::is_single_event(write.tags),
        })
    }

    /// The path reaches an access at an address that is no location.
    ///
    /// A write there stops herd7 in any candidate whose values solve, and what solves
    /// them may come later in the thread (a read of the thread's later write): the path
    /// goes on past the first write there, without its events ([`Path::escape`]). Any
    /// other such access, or one after that write, ends the path ([`Path::then`]).
    pub(super) fn escape(
        &mut self,
        mut st: State,
        todo: Vec<Frame<'a>>,
        escape: Escape,
        go_on: bool,
    ) -> Result<(), PathError> {
        if st.path.escape.is_some() {
            st.path.then = Some(escape);
            return self.finish(st.path);
        }
        st.path.escape = Some(escape);
        if escape.read && !go_on {
            return self.finish(st.path);
        }
        self.walk(st, todo)
    }
}

/// Why an access at `v` cannot be run: `v` is not the address of a location.
pub(crate) fn not_a_location(program: &Program, v: Value) -> String {
    match v {
        Value::Shifted(l, _) => format!(
            "the address of this access is {}, next to `{}`, computed from values read: \
             herd7 makes it a location of its own, with no initial write, which hazmat \
             supports only at an address known without reading memory (`y + 1`, or `y + r` \
             with `r` a constant)",
            program.value_text(v),
            program.locs[l.0 as usize].name
        ),
        Value::Int(n) => format!(
            "the address of this access is the integer {n}, not a location (herd7 stops on \
             it: non-symbolic location)"
        ),
        Value::Sym(_) | Value::Addr(_) => format!(
            "the address of this access is {}, not a location",
            program.value_text(v)
        ),
    }
}

/// Why a spinlock operation at `v`, an address that is no location, cannot be run.
pub(crate) fn not_a_lock(program: &Program, v: Value) -> String {
    format!(
        "this spinlock is at {}, not a location: herd7 does not stop on a lock operation \
         there but runs it, which hazmat does not support",
        program.value_text(v)
    )
}

/// Why `spin_is_locked` at `v`, an address that is no location, cannot be run under a
/// model that does not judge lock reads as `lock.cat` does
/// ([`crate::models::model::MemoryModel::judges_lock_reads`]).
pub(crate) fn not_a_lock_read(program: &Program, v: Value) -> String {
    format!(
        "this spin_is_locked is at {}, not a location: herd7 leaves its read to the model, \
         and a model without the kernel's lock.cat keeps both of its outcomes there, which \
         hazmat does not support (under lock.cat the read has no write to read and the \
         execution does not exist)",
        program.value_text(v)
    )
}

/// herd7's words for an access at `v` it stops on, where `v` is an integer.
pub(crate) fn not_a_location_herd7(v: Value) -> Option<String> {
    match v {
        Value::Int(n) => Some(format!("Non-symbolic memory access found on '[{n}]'")),
        Value::Addr(_) | Value::Shifted(..) | Value::Sym(_) => None,
    }
}
