//! Events: the reads, writes and fences that one run of a litmus program performs.
//!
//! An event carries the annotations herd7's C front end gives it (the `{ONCE}`,
//! `{RELEASE}`, `{MB}`... of `linux-kernel.def`, the lock and SRCU classes of `lock.cat`
//! and `linux-kernel.bell`) as a small set of [`Tag`]s, so that every model reads the same
//! event and picks the tags it gives meaning to.
//! An annotation keeps the spelling its macro or test wrote, since herd7 puts an event in a
//! bell's set only when the set's name is spelled as the annotation exactly: `ONCE` and
//! `once` are two tags ([`Tag::Once`], [`Tag::OnceLower`]).
//! Any other word a macro or test writes as an annotation (`Once`, `RMB`, `foo`), which
//! herd7 keeps as it keeps the kernel's, is an annotation of its own ([`Tags::annotation`]):
//! a bell that names it reads it, and every other model sees a plain access.
//! Values and locations are resolved: an event knows the location it touches and the value
//! it reads or writes in the execution at hand.

use std::fmt;

/// A memory location of the test, as an index into the test's location table.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Loc(pub u32);

/// A value held by a register or a location: an integer, or the address of a location.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Value {
    /// An integer.
    Int(i64),
    /// The address of a location (`&x`, or `y=x;` in an init block).
    Addr(Loc),
    /// An address some cells away from a location's, as herd7 computes `x + 1` (never at
    /// offset 0: that is [`Value::Addr`]).
    Shifted(Loc, i64),
    /// A value that depends only on itself: a read in an out-of-thin-air cycle of rf and
    /// data dependencies, which herd7 keeps as an unsolved symbol (printed `S<n>`).
    /// The number is herd7's (see `symbol`), or, where hazmat cannot replay herd7's
    /// numbering, the event of the read the symbol was introduced at.
    Sym(u32),
}

impl Default for Value {
    fn default() -> Value {
        Value::Int(0)
    }
}

/// What an event does to memory.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum EventKind {
    /// A read of a location.
    Read,
    /// A write to a location.
    Write,
    /// A fence, or another event that touches no location (RCU read-side markers).
    Fence,
}

/// One annotation of an event, as herd7's LKMM front end and `lock.cat` name them, and the
/// memory orders its C11 front end gives atomic accesses and fences.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(u8)]
pub enum Tag {
    /// The initial write of a location (cat's `IW`).
    Init,
    /// `READ_ONCE`, `WRITE_ONCE`, relaxed RMWs (`'ONCE`).
    Once,
    /// `once` spelled in lower case, as the kernel's files before 2025 write it, as herd7
    /// annotates the read of `__load{deref}` and `__load{lderef}` and the events of a
    /// read-modify-write without the `lkmmv2` variant: a bell naming `'once` counts it, one
    /// naming `'ONCE` does not (see [`Tag::spelling`]); to the native models, whose
    /// kernel's bell names `'ONCE`, a plain access.
    OnceLower,
    /// `release` in lower case (see [`Tag::OnceLower`]).
    ReleaseLower,
    /// `acquire` in lower case (see [`Tag::OnceLower`]).
    AcquireLower,
    /// `noreturn` in lower case (see [`Tag::OnceLower`]).
    NoreturnLower,
    /// `mb` in lower case (see [`Tag::OnceLower`]).
    MbLower,
    /// `smp_store_release` and release RMWs (`'RELEASE`).
    Release,
    /// `smp_load_acquire` and acquire RMWs (`'ACQUIRE`).
    Acquire,
    /// The read of a non-value-returning RMW such as `atomic_inc` (`'NORETURN`).
    Noreturn,
    /// A fully ordered RMW, or the `smp_mb()` fence (`'MB`).
    Mb,
    /// An event of a read-modify-write instruction, successful or failed (cat's `RMW`).
    Rmw,
    /// `smp_rmb()`.
    Rmb,
    /// `smp_wmb()`.
    Wmb,
    /// herd7's `rb_dep` fence: `smp_read_barrier_depends()` in the kernel's files of 2017,
    /// `__fence{rb_dep}`, and the fence herd7 puts after the read of `__load{deref}` and
    /// `__load{lderef}` (`rcu_dereference` and `lockless_dereference` in those files).
    RbDep,
    /// `barrier()`.
    Barrier,
    /// `rcu_read_lock()`.
    RcuLock,
    /// `rcu_read_unlock()`.
    RcuUnlock,
    /// `synchronize_rcu()` and `synchronize_rcu_expedited()`.
    SyncRcu,
    /// `smp_mb__before_atomic()`.
    BeforeAtomic,
    /// `smp_mb__after_atomic()`.
    AfterAtomic,
    /// `smp_mb__after_spinlock()`.
    AfterSpinlock,
    /// `smp_mb__after_unlock_lock()`.
    AfterUnlockLock,
    /// `smp_mb__after_srcu_read_unlock()`.
    AfterSrcuReadUnlock,
    /// `srcu_read_lock()` and `srcu_down_read()`: a read of the SRCU structure.
    SrcuLock,
    /// `srcu_read_unlock()` and `srcu_up_read()`: a write of the SRCU structure.
    SrcuUnlock,
    /// `synchronize_srcu()`: an event on the SRCU structure's location.
    SyncSrcu,
    /// Lock-Read: the read half of `spin_lock()` or a successful `spin_trylock()`.
    Lkr,
    /// Lock-Write: the write half of `spin_lock()` or a successful `spin_trylock()`.
    Lkw,
    /// Unlock: `spin_unlock()`.
    Ul,
    /// Lock-Fail: a failed `spin_trylock()`.
    Lf,
    /// Read-Locked: `spin_is_locked()` returning true.
    Rl,
    /// Read-Unlocked: `spin_is_locked()` returning false.
    Ru,
    /// C11's `memory_order_relaxed` (cat's `RLX`).
    Rlx,
    /// C11's `memory_order_consume` (cat's `CON`).
    Con,
    /// C11's `memory_order_acquire` (cat's `ACQ`).
    Acq,
    /// C11's `memory_order_release` (cat's `REL`).
    Rel,
    /// C11's `memory_order_acq_rel` (cat's `ACQ_REL`).
    AcqRel,
    /// C11's `memory_order_seq_cst` (cat's `SC`).
    SeqCst,
}

impl Tag {
    /// Every tag, in declaration order.
    pub const ALL: [Tag; 39] = [
        Tag::Init,
        Tag::Once,
        Tag::OnceLower,
        Tag::ReleaseLower,
        Tag::AcquireLower,
        Tag::NoreturnLower,
        Tag::MbLower,
        Tag::Release,
        Tag::Acquire,
        Tag::Noreturn,
        Tag::Mb,
        Tag::Rmw,
        Tag::Rmb,
        Tag::Wmb,
        Tag::RbDep,
        Tag::Barrier,
        Tag::RcuLock,
        Tag::RcuUnlock,
        Tag::SyncRcu,
        Tag::BeforeAtomic,
        Tag::AfterAtomic,
        Tag::AfterSpinlock,
        Tag::AfterUnlockLock,
        Tag::AfterSrcuReadUnlock,
        Tag::SrcuLock,
        Tag::SrcuUnlock,
        Tag::SyncSrcu,
        Tag::Lkr,
        Tag::Lkw,
        Tag::Ul,
        Tag::Lf,
        Tag::Rl,
        Tag::Ru,
        Tag::Rlx,
        Tag::Con,
        Tag::Acq,
        Tag::Rel,
        Tag::AcqRel,
        Tag::SeqCst,
    ];

    /// The name herd7 prints for the tag.
    pub fn name(self) -> &'static str {
        match self {
            Tag::Init => "IW",
            Tag::Once => "once",
            Tag::OnceLower => "once",
            Tag::ReleaseLower => "release",
            Tag::AcquireLower => "acquire",
            Tag::NoreturnLower => "noreturn",
            Tag::MbLower => "mb",
            Tag::Release => "release",
            Tag::Acquire => "acquire",
            Tag::Noreturn => "noreturn",
            Tag::Mb => "mb",
            Tag::Rmw => "rmw",
            Tag::Rmb => "rmb",
            Tag::Wmb => "wmb",
            Tag::RbDep => "rb_dep",
            Tag::Barrier => "barrier",
            Tag::RcuLock => "rcu-lock",
            Tag::RcuUnlock => "rcu-unlock",
            Tag::SyncRcu => "sync-rcu",
            Tag::BeforeAtomic => "before-atomic",
            Tag::AfterAtomic => "after-atomic",
            Tag::AfterSpinlock => "after-spinlock",
            Tag::AfterUnlockLock => "after-unlock-lock",
            Tag::AfterSrcuReadUnlock => "after-srcu-read-unlock",
            Tag::SrcuLock => "srcu-lock",
            Tag::SrcuUnlock => "srcu-unlock",
            Tag::SyncSrcu => "sync-srcu",
            Tag::Lkr => "LKR",
            Tag::Lkw => "LKW",
            Tag::Ul => "UL",
            Tag::Lf => "LF",
            Tag::Rl => "RL",
            Tag::Ru => "RU",
            Tag::Rlx => "rlx",
            Tag::Con => "con",
            Tag::Acq => "acq",
            Tag::Rel => "rel",
            Tag::AcqRel => "acq_rel",
            Tag::SeqCst => "sc",
        }
    }

    /// The annotation herd7 gives an event with the tag, spelled exactly as a bell names
    /// its set (herd7 compares the strings, case included): the kernel's current spelling
    /// (`ONCE`, `MB`, `rmb`, `rcu-lock`...) or, for the [`Tag::OnceLower`] family, the
    /// older lower-case one; `None` for what is not an annotation (`IW`, `RMW`, the lock
    /// classes, C11's orders).
    pub fn spelling(self) -> Option<&'static str> {
        Some(match self {
            Tag::Once => "ONCE",
            Tag::Release => "RELEASE",
            Tag::Acquire => "ACQUIRE",
            Tag::Noreturn => "NORETURN",
            Tag::Mb => "MB",
            Tag::OnceLower
            | Tag::ReleaseLower
            | Tag::AcquireLower
            | Tag::NoreturnLower
            | Tag::MbLower
            | Tag::Rmb
            | Tag::Wmb
            | Tag::RbDep
            | Tag::Barrier
            | Tag::RcuLock
            | Tag::RcuUnlock
            | Tag::SyncRcu
            | Tag::BeforeAtomic
            | Tag::AfterAtomic
            | Tag::AfterSpinlock
            | Tag::AfterUnlockLock
            | Tag::AfterSrcuReadUnlock
            | Tag::SrcuLock
            | Tag::SrcuUnlock
            | Tag::SyncSrcu => self.name(),
            _ => return None,
        })
    }

    /// The tag of an annotation spelled `a` exactly (see [`Tag::spelling`]).
    pub fn spelled(a: &str) -> Option<Tag> {
        Tag::ALL.into_iter().find(|t| t.spelling() == Some(a))
    }

    /// The same annotation in the kernel's current spelling: [`Tag::Once`] for
    /// [`Tag::OnceLower`] and so on; any other tag is itself.
    pub fn current(self) -> Tag {
        match self {
            Tag::OnceLower => Tag::Once,
            Tag::ReleaseLower => Tag::Release,
            Tag::AcquireLower => Tag::Acquire,
            Tag::NoreturnLower => Tag::Noreturn,
            Tag::MbLower => Tag::Mb,
            t => t,
        }
    }

    /// C11's memory orders, weakest first.
    pub const C11_ORDERS: [Tag; 6] = [
        Tag::Rlx,
        Tag::Con,
        Tag::Acq,
        Tag::Rel,
        Tag::AcqRel,
        Tag::SeqCst,
    ];

    /// Whether the tag is one of C11's memory orders.
    pub fn is_c11_order(self) -> bool {
        Tag::C11_ORDERS.contains(&self)
    }
}

/// A set of [`Tag`]s, and of the other annotations of [`Tags::annotation`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Tags(u64);

/// The first bit of the annotations that are no [`Tag`] ([`Tags::annotation`]).
const FIRST_OTHER: usize = Tag::ALL.len();

/// How many annotations other than the kernel's one run of hazmat can carry: the bits of
/// [`Tags`] that no [`Tag`] takes.
pub const MAX_OTHER_ANNOTATIONS: usize = 64 - FIRST_OTHER;

/// The words of the annotations that are no [`Tag`], in the order they were first met:
/// the one at index `i` is bit `FIRST_OTHER + i` of a [`Tags`].
static OTHER_WORDS: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());

/// The words met so far (a poisoned lock still holds a sound list: each push is whole).
fn words_met() -> std::sync::MutexGuard<'static, Vec<&'static str>> {
    OTHER_WORDS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Tags {
    /// No tag.
    pub const NONE: Tags = Tags(0);

    /// The set whose bit `t as u8` is set for each tag `t` in it.
    pub const fn from_bits(bits: u64) -> Tags {
        Tags(bits)
    }

    /// The raw bits of the set.
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// The set holding `tags`.
    pub fn of(tags: &[Tag]) -> Tags {
        tags.iter().fold(Tags::NONE, |acc, t| acc.with(*t))
    }

    /// The set with `tag` added.
    pub fn with(self, tag: Tag) -> Tags {
        Tags(self.0 | 1 << tag as u8)
    }

    /// Whether `tag` is in the set.
    pub fn has(self, tag: Tag) -> bool {
        self.0 >> tag as u8 & 1 == 1
    }

    /// Whether the set has no tag.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The set of the annotation written `word`, whatever the word: the kernel's annotation
    /// so spelled ([`Tag::spelled`]), or an annotation of its own, which herd7 keeps on
    /// the event as it keeps the kernel's and a bell naming the word exactly reads
    /// ([`Tags::named`]). `None` when the run has met [`MAX_OTHER_ANNOTATIONS`] such words
    /// already.
    pub fn annotation(word: &str) -> Option<Tags> {
        if let Some(t) = Tag::spelled(word) {
            return Some(Tags::NONE.with(t));
        }
        let mut words = words_met();
        let i = match words.iter().position(|w| *w == word) {
            Some(i) => i,
            None if words.len() < MAX_OTHER_ANNOTATIONS => {
                words.push(Box::leak(word.to_owned().into_boxed_str()));
                words.len() - 1
            }
            None => return None,
        };
        Some(Tags(1 << (FIRST_OTHER + i)))
    }

    /// The annotation that is no [`Tag`] spelled `word` exactly, as a set of one, if an
    /// event of this run was given it ([`Tags::annotation`]); no tag otherwise.
    pub fn named(word: &str) -> Tags {
        match words_met().iter().position(|w| *w == word) {
            Some(i) => Tags(1 << (FIRST_OTHER + i)),
            None => Tags::NONE,
        }
    }

    /// Whether the set holds every annotation of `other`.
    pub fn contains(self, other: Tags) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether the set holds an annotation that is no [`Tag`] ([`Tags::annotation`]).
    pub fn has_other(self) -> bool {
        self.0 >> FIRST_OTHER != 0
    }

    /// The words of the set's annotations that are no [`Tag`], in the order they were met.
    pub fn other_words(self) -> Vec<&'static str> {
        let words = words_met();
        (0..words.len())
            .filter(|i| self.0 >> (FIRST_OTHER + i) & 1 == 1)
            .map(|i| words[i])
            .collect()
    }

    /// Whether the set holds one of `lock.cat`'s classes of lock events (LKR, LKW, UL, LF,
    /// RL or RU).
    pub fn is_lock(self) -> bool {
        [Tag::Lkr, Tag::Lkw, Tag::Ul, Tag::Lf, Tag::Rl, Tag::Ru]
            .iter()
            .any(|t| self.has(*t))
    }

    /// The tags in the set, in declaration order (without its other annotations, see
    /// [`Tags::other_words`]).
    pub fn iter(self) -> impl Iterator<Item = Tag> {
        Tag::ALL.into_iter().filter(move |t| self.has(*t))
    }
}

impl fmt::Debug for Tags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.iter().map(Tag::name))
            .entries(self.other_words())
            .finish()
    }
}

/// One event of an execution.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Event {
    /// The thread that performs it, `None` for an initial write.
    pub thread: Option<usize>,
    /// Read, write or fence.
    pub kind: EventKind,
    /// The location touched, `None` for a fence.
    pub loc: Option<Loc>,
    /// The value read or written in this execution (`Int(0)` for a fence).
    pub value: Value,
    /// Annotations.
    pub tags: Tags,
    /// Byte range of the source statement that produced the event, for traces and
    /// diagnostics; `None` for initial writes.
    pub source: Option<(usize, usize)>,
}

impl Event {
    /// Whether the event reads memory.
    pub fn is_read(&self) -> bool {
        self.kind == EventKind::Read
    }

    /// Whether the event writes memory.
    pub fn is_write(&self) -> bool {
        self.kind == EventKind::Write
    }

    /// Whether the event is a fence or another non-memory event.
    pub fn is_fence(&self) -> bool {
        self.kind == EventKind::Fence
    }

    /// Whether the event carries `tag`.
    pub fn has(&self, tag: Tag) -> bool {
        self.tags.has(tag)
    }
}
