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
//!   read-modify-write's own write; a C11 one is one event to herd7, which never reads
//!   itself); nothing else is left out. hazmat refuses it: the values of such a read go
//!   round a cycle (`atomic_fetch_andnot(1, x)` reading itself reads what it writes), and
//!   every such read makes the search larger. (Built as an experiment, such candidates
//!   gave herd7's answers on tests of one read-modify-write, its `S2` names included, and
//!   fewer executions than herd7's on programs with a `cmpxchg` beside the
//!   read-modify-write that reads itself, cycles herd7 solves through the exchange's
//!   expected value; that was before `engine::enumerate::unify` solved such cycles as
//!   herd7 does, and it has not been measured since.)
//!
//! A model that checks coherence (the kernel's, RC11, SC...) rejects every candidate
//! `true` leaves out, so only a model without such a check answers differently; but the
//! runs cut at a loop's unrolling, which herd7 marks `Loop` before any model judges them,
//! are marked only when some candidate of theirs is left in, under any model.

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
}

impl OptAce {
    /// The setting herd7 names `tag`, in any case, among those hazmat builds.
    pub fn parse(tag: &str) -> Option<OptAce> {
        match tag.to_ascii_lowercase().as_str() {
            "iico" => Some(OptAce::Iico),
            "true" => Some(OptAce::True),
            _ => None,
        }
    }

    /// herd7's name for it.
    pub fn as_str(self) -> &'static str {
        match self {
            OptAce::Iico => "iico",
            OptAce::True => "true",
        }
    }
}
