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
    /// herd7's reading of the kernel's read-modify-write instructions (`__xchg{mb}`...),
    /// which the model's variants choose, where no macro file says it
    /// ([`defs::Macros`]'s own is taken where one does).
    pub lkmm: variant::LkmmVersion,
    /// Whether the condition is the test's own or a `-conds` file's, written into the
    /// text in place of it: herd7 checks the threads of the test's own condition only.
    pub condition: lower::ConditionSource,
    /// herd7's `-outcomereads true`: the program carries what herd7 needs to show, in each
    /// final state, the registers some execution wrote from a read of memory
    /// ([`lower::reads`]).
    pub outcome_reads: bool,
    /// Whether the filter discards executions (herd7's `-checkfilter`, true by default;
    /// [`program::Program::check_filter`]).
    pub check_filter: bool,
}

impl Reading {
    /// `self` as the test's own header amends it, as herd7 reads it (each key in any
    /// case): a `Variant=S128` line sets `s128`, and an `Unroll=N` line replaces `unroll`,
    /// whatever the command line says; a value that is no integer is refused there, as
    /// herd7 refuses it ("unroll expects an integer argument").
    pub fn of_test(self, test: &hazmat_litmus::ast::Test) -> Result<Reading, lower::LowerError> {
        let s128 = self.s128
            || test.info_any_case("Variant").is_some_and(|(v, _)| {
                v.split([',', ' ', '\t'])
                    .any(|w| w.trim().eq_ignore_ascii_case("S128"))
            });
        let unroll = match test.info_any_case("Unroll") {
            None => self.unroll,
            Some((v, span)) => match integer(v) {
                // A negative count unrolls nothing, as on herd7's command line.
                Some(n) => u32::try_from(n.max(0)).unwrap_or(u32::MAX),
                None => {
                    return Err(lower::LowerError {
                        message: format!(
                            "`Unroll={v}`: the test's unrolling must be an integer (herd7: \
                             \"unroll exects an integer argument\")"
                        ),
                        span,
                        kind: lower::LowerErrorKind::Other,
                    });
                }
            },
        };
        Ok(Reading {
            s128,
            unroll,
            ..self
        })
    }
}

/// An integer as OCaml's `int_of_string` reads one: an optional sign, decimal or `0x`,
/// `0o`, `0b` digits, underscores between them.
fn integer(text: &str) -> Option<i64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let lower = digits.to_ascii_lowercase();
    let (radix, body) = [("0x", 16), ("0o", 8), ("0b", 2)]
        .iter()
        .find_map(|(p, r)| lower.strip_prefix(p).map(|b| (*r, b)))
        .unwrap_or((10, lower.as_str()));
    if body.is_empty() || body.starts_with('_') {
        return None;
    }
    let n = i64::from_str_radix(&body.replace('_', ""), radix).ok()?;
    Some(if negative { -n } else { n })
}

impl Default for Reading {
    fn default() -> Reading {
        Reading {
            s128: false,
            unroll: lower::UNROLL,
            lkmm: variant::LkmmVersion::V2,
            condition: lower::ConditionSource::Own,
            outcome_reads: false,
            check_filter: true,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn integers_are_read_as_ocaml_reads_them() {
        for (text, n) in [
            ("3", Some(3)),
            ("-1", Some(-1)),
            ("+2", Some(2)),
            ("0x10", Some(16)),
            ("0b101", Some(5)),
            ("1_000", Some(1000)),
            ("x", None),
            ("", None),
            ("0x", None),
            ("3.0", None),
        ] {
            assert_eq!(super::integer(text), n, "{text}");
        }
    }
}
