//! What herd7 makes of a kernel read-modify-write instruction's annotation, which depends
//! on the variant the model is run with.
//!
//! herd7 7.58 has two readings of the kernel's internal RMW instructions (`__xchg{A}`,
//! `__cmpxchg{A}`, `__atomic_op{A}`, `__atomic_op_return{A}`, `__atomic_fetch_op{A}`,
//! `__atomic_add_unless{A}`), chosen by the `lkmmv2` variant (its C semantics, `lkmmv1`
//! whenever `lkmmv2` is not set):
//! - under `lkmmv2` (the kernel's model since the 2025 series that set it in
//!   `linux-kernel.cfg`), every event of the instruction carries its annotation `A`, and the
//!   model's bell file filters what an annotation means on a read, a write or a failed
//!   instruction;
//! - under `lkmmv1` (every model before it), the read and the write carry `once`, except
//!   the read of an instruction annotated exactly `acquire` and the write of one annotated
//!   exactly `release`; an instruction annotated exactly `mb`, and every successful
//!   `__atomic_add_unless`, is wrapped in two `mb` fences, one before its read and one
//!   after its write, in program order; a failed `__cmpxchg` or `__atomic_add_unless` is a
//!   lone `once` read, with no fence; the read of `__atomic_op` (which returns nothing) is
//!   `noreturn`, its write `once`, whatever its annotation.
//!
//! herd7 compares annotations as strings, so `{MB}` is not `mb` to `lkmmv1`: a macro file
//! in capitals run without `lkmmv2` gets `once` events and no fences. The annotations
//! `lkmmv1` gives are its own, in lower case ([`Tag::OnceLower`], [`Tag::MbLower`]...),
//! which a bell spelling its sets in capitals does not read.
//! The events of both readings belong to herd7's `RMW` set ([`Tag::Rmw`]).

use crate::exec::event::{Tag, Tags};
use crate::front::program::RmwTags;

/// herd7's reading of the kernel's RMW annotations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LkmmVersion {
    /// Without the `lkmmv2` variant: `once` events, and `mb` fences around fully ordered
    /// instructions.
    V1,
    /// With it: every event carries the instruction's annotation.
    #[default]
    V2,
}

/// The variant that selects [`LkmmVersion::V2`].
pub const LKMMV2: &str = "lkmmv2";

impl LkmmVersion {
    /// The reading herd7 runs with `variants`.
    pub fn of_variants<S: AsRef<str>>(variants: &[S]) -> LkmmVersion {
        if variants.iter().any(|v| v.as_ref() == LKMMV2) {
            LkmmVersion::V2
        } else {
            LkmmVersion::V1
        }
    }
}

/// The kinds of RMW instruction `lkmmv1` reads apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RmwKind {
    /// `__xchg`, `__cmpxchg`, `__atomic_op_return`, `__atomic_fetch_op`.
    Ordered,
    /// `__atomic_op`, which returns nothing.
    NoReturn,
    /// `__atomic_add_unless`.
    AddUnless,
}

/// The annotations of the events of an RMW instruction of `kind` annotated `tags`
/// ([`Tag::Rmw`] and the annotation), written in lower case when `lower` (herd7 knows
/// `mb`, `acquire` and `release` only so), under `lkmm`.
pub(crate) fn rmw_tags(lkmm: LkmmVersion, kind: RmwKind, tags: Tags, lower: bool) -> RmwTags {
    let rmw = Tags::of(&[Tag::Rmw]);
    let tags = tags.with(Tag::Rmw);
    if lkmm == LkmmVersion::V2 {
        return RmwTags::uniform(tags);
    }
    // herd7's own annotations, in lower case, and the instruction's own where it keeps
    // them, which it knows only spelled in lower case.
    let is = |t: Tag| lower && tags.has(t);
    let once = rmw.with(Tag::OnceLower);
    let mb = Some(Tags::of(&[Tag::MbLower]));
    match kind {
        RmwKind::NoReturn => RmwTags {
            read: rmw.with(Tag::NoreturnLower),
            write: once,
            failed: rmw.with(Tag::NoreturnLower),
            fence: None,
        },
        RmwKind::AddUnless => RmwTags {
            read: once,
            write: once,
            failed: once,
            fence: mb,
        },
        RmwKind::Ordered => RmwTags {
            read: if is(Tag::AcquireLower) {
                rmw.with(Tag::AcquireLower)
            } else {
                once
            },
            write: if is(Tag::ReleaseLower) {
                rmw.with(Tag::ReleaseLower)
            } else {
                once
            },
            failed: once,
            fence: if is(Tag::MbLower) { mb } else { None },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variant_chooses_the_reading() {
        assert_eq!(LkmmVersion::of_variants(&["lkmmv2"]), LkmmVersion::V2);
        assert_eq!(
            LkmmVersion::of_variants(&["cos-opt", "lkmmv2"]),
            LkmmVersion::V2
        );
        assert_eq!(LkmmVersion::of_variants::<&str>(&[]), LkmmVersion::V1);
        assert_eq!(LkmmVersion::of_variants(&["lkmmv1"]), LkmmVersion::V1);
    }

    #[test]
    fn lkmmv1_fences_a_lower_case_mb_and_keeps_acquire_on_the_read_only() {
        let mb = rmw_tags(
            LkmmVersion::V1,
            RmwKind::Ordered,
            Tags::of(&[Tag::MbLower]),
            true,
        );
        assert_eq!(mb.fence, Some(Tags::of(&[Tag::MbLower])));
        assert_eq!(mb.read, Tags::of(&[Tag::Rmw, Tag::OnceLower]));
        let upper = rmw_tags(
            LkmmVersion::V1,
            RmwKind::Ordered,
            Tags::of(&[Tag::Mb]),
            false,
        );
        assert_eq!(upper.fence, None);
        let acq = rmw_tags(
            LkmmVersion::V1,
            RmwKind::Ordered,
            Tags::of(&[Tag::AcquireLower]),
            true,
        );
        assert_eq!(acq.read, Tags::of(&[Tag::Rmw, Tag::AcquireLower]));
        assert_eq!(acq.write, Tags::of(&[Tag::Rmw, Tag::OnceLower]));
        assert_eq!(acq.failed, Tags::of(&[Tag::Rmw, Tag::OnceLower]));
        let add = rmw_tags(LkmmVersion::V1, RmwKind::AddUnless, Tags::NONE, true);
        assert_eq!(add.fence, Some(Tags::of(&[Tag::MbLower])));
        let v2 = rmw_tags(
            LkmmVersion::V2,
            RmwKind::Ordered,
            Tags::of(&[Tag::Mb]),
            false,
        );
        assert_eq!(v2, RmwTags::uniform(Tags::of(&[Tag::Rmw, Tag::Mb])));
    }
}
