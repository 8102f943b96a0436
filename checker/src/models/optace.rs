//! herd7's `-optace`: which candidates herd7's own code leaves out before a model sees
//! them.
//!
//! herd7 builds a candidate in two halves: its own code picks the write each ordinary
//! read reads and the final write of each location the test observes, and computes
//! `pco`, the part of the coherence order those choices already show; the model does the
//! rest.
//! `-optace` says how much of the uniprocessor (per-location) order herd7 enforces while
//! it does its half, so a model with no check of its own on coherence answers
//! differently under each setting (herd7's `herd/optAce.ml` and `herd/mem.ml`):
//! - `iico`, herd7's default with a model file, so hazmat's: a read reads any write of its
//!   location but those its own instruction makes after it (a read-modify-write's own
//!   write); every write may be the final one; `pco` is the initial write before the
//!   others and the final write after them.
//! - `true`: a read reads no write that comes after it in program order either, and no
//!   write that a write between the two in program order overwrites; a write followed in
//!   program order by another of its location is never the final one; `pco` also holds
//!   what program order on one location and reads-from show of the coherence order (a
//!   write before a later write, the write a read reads before a later write, ...),
//!   herd7's `obsco`; a candidate whose `pco` has a cycle is dropped. herd7 also sets the
//!   variant `cos-opt` for the model, so that its `cos.cat` takes this `pco` as its
//!   starting point.
//! - `false`: a read may read even its own instruction's later write (a kernel
//!   read-modify-write's own write, the store of `WRITE_ONCE(*x, READ_ONCE(*x))`; a C11
//!   read-modify-write is one event to herd7, which never reads itself); nothing else is
//!   left out. The value such a read reads goes round a cycle (`atomic_add_return(0, x)`
//!   reading itself reads what it writes), which the enumeration solves as herd7's
//!   equations do, through a compare-exchange's expected value too
//!   (`engine::enumerate::unify`), or leaves unsolved with herd7's name for it (`S2`).
//!   FIXME: herd7 pairs a read at an address it cannot solve (computed from such a value,
//!   or from a value out of thin air under any setting) with every write of every
//!   location, and drops the candidate as unsolved unless an operator fails on the value
//!   read, which stops herd7 once the model allows the candidate (`Illegal operation * on
//!   constants z and 0` where the read meets a location holding an address); hazmat tries
//!   such a read only at the locations whose address the test handles as a value and at
//!   those the address names, so it decides those tests
//!   (`checker/tests/herd7_optace.rs`). Only a model that allows the candidate stops
//!   herd7: one without the kernel's checks, or a C11 model that allows values out of thin
//!   air (`c11_partialSC.cat`).
//!
//! A model that checks coherence (the kernel's, RC11, SC...) rejects every candidate
//! `true` leaves out, so only a model without such a check answers differently; the
//! kernel's model and RC11 reject every candidate `false` adds too (herd7 gives the same
//! answers on the conformance corpus and on generated programs), so their native versions,
//! which never build those candidates, run under any setting. The runs cut at a loop's
//! unrolling, which herd7 marks `Loop` before any model judges them, are marked only when
//! some candidate of theirs is left in, under any model and setting.

/// How herd7 builds the candidates it gives a model: its `-optace` (and `optace` key).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OptAce {
    /// `iico`, herd7's default for C with a model file: a read never reads its own
    /// instruction's later write.
    #[default]
    Iico,
    /// `true`: the per-location order of each thread is enforced as herd7 builds the
    /// candidates (see the module's documentation).
    True,
    /// `false`: nothing is left out; a read may read its own instruction's later write.
    False,
}

impl OptAce {
    /// The setting herd7 names `tag`, in any case, among those hazmat builds.
    pub fn parse(tag: &str) -> Option<OptAce> {
        match tag.to_ascii_lowercase().as_str() {
            "iico" => Some(OptAce::Iico),
            "true" => Some(OptAce::True),
            "false" => Some(OptAce::False),
            _ => None,
        }
    }

    /// herd7's name for it.
    pub fn as_str(self) -> &'static str {
        match self {
            OptAce::Iico => "iico",
            OptAce::True => "true",
            OptAce::False => "false",
        }
    }
}
