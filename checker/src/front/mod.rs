//! The front end: a parsed litmus test to a [`program::Program`].
//!
//! [`lower`] resolves every name and turns each call into one instruction, through the
//! kernel's primitive table ([`primitive`]), herd7's C11 dialect ([`c11`]), herd7's
//! internal instructions written in the code ([`instruction`]) or a user's macro file
//! ([`defs`]), its read-modify-writes annotated as herd7's variant reads them
//! ([`variant`]); [`program`] is what it makes, and what the engine runs.
//!
//! It may import [`crate::exec`] (events and values) and nothing above it: the front end
//! knows nothing of models, of the search or of reports.

pub mod c11;
pub mod defs;
pub mod instruction;
pub mod lower;
pub(crate) mod names;
pub mod primitive;
pub mod program;
pub mod variant;

/// How a test is read beyond its dialect and macros: the options of herd7's that change
/// the program it makes of the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reading {
    /// herd7's variant `S128` (`-variant S128`): 64-bit and 128-bit types in the init
    /// block; a test's own `Variant=S128` line sets it too.
    pub s128: bool,
    /// How many times a `while` loop is unrolled (herd7's `-unroll`, 2 for C by default).
    pub unroll: u32,
}

impl Default for Reading {
    fn default() -> Reading {
        Reading {
            s128: false,
            unroll: lower::UNROLL,
        }
    }
}
