//! The stall detector: reports waiters blocked past a timeout, naming every holder.
//!
//! After each scan cycle, every waiter blocked for longer than the stall timeout (default
//! 21 s) gets a report, and another one each further timeout it stays blocked.
//! A report lists every slot holding the waiter's address (or the wildcard): the slot, the
//! holding thread's id and name, and how long the scanner has seen it held; under
//! `Config::debug_holders` (the kernel's `CONFIG_HAZPTR_DEBUG`), also the acquire call site,
//! the exact hold time and the acquire backtrace.
//! Consecutive reports tell one long hold (the same slot, with a hold time that keeps
//! growing) from repeated re-acquisition (holders that come and go, or a hold time that
//! restarts); without `debug_holders` the hold time is what consecutive scan cycles observed,
//! so a release and re-acquisition between two cycles looks like one hold.
//! Reports go to `tracing` at warn level, to standard error as well when no `tracing`
//! subscriber is installed (none set globally, nor on the reporting thread), so that a stall
//! is never silent, and to [`Domain::stall_reports`]; they are counted even when suppressed.
//! A holder that is the waiting thread itself is called out: that waiter waits for ever.
//! The timeout and the suppression can be changed at run time (the kernel's sysfs knobs):
//! [`Domain::set_stall_timeout`], [`Domain::set_stall_suppressed`].
//!
//! [`Domain::stall_reports`]: crate::Domain::stall_reports
//! [`Domain::set_stall_timeout`]: crate::Domain::set_stall_timeout
//! [`Domain::set_stall_suppressed`]: crate::Domain::set_stall_suppressed

use core::fmt;
use core::panic::Location;
use core::time::Duration;

/// Emits a stall report: a `tracing` warning under the target `hazptr`, and a copy on
/// standard error when no `tracing` subscriber would receive it.
pub(crate) fn emit(report: &StallReport) {
    tracing::warn!(target: "hazptr", "{report}");
    if !subscriber_installed() {
        eprintln!("{report}");
    }
}

/// Whether a `tracing` subscriber is installed for the calling thread: a scoped default on
/// this thread, or the global default.
fn subscriber_installed() -> bool {
    tracing::dispatcher::get_default(|dispatch| !dispatch.is::<tracing::subscriber::NoSubscriber>())
}

/// Which kind of slot a holder occupies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotKind {
    /// A reader's primary slot.
    Primary,
    /// A backup slot from an overflow list (a nested protection).
    Backup,
}

/// One holder of a stalled waiter's address.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Holder {
    /// The kind of slot.
    pub kind: SlotKind,
    /// The slot's index in its list.
    pub slot: usize,
    /// Whether the slot held the wildcard rather than the address itself.
    pub wildcard: bool,
    /// The holding thread's id, if known.
    pub thread_id: Option<String>,
    /// The holding thread's name, if it has one.
    pub thread_name: Option<String>,
    /// How long consecutive scan cycles have seen this slot hold the address.
    pub observed_for: Duration,
    /// Under `Config::debug_holders`, how long the current protection has been held.
    pub held_for: Option<Duration>,
    /// Under `Config::debug_holders`, where the protection was taken.
    pub site: Option<&'static Location<'static>>,
    /// Under `Config::debug_holders`, the backtrace of the acquire.
    pub backtrace: Option<String>,
    /// Whether the holder is the waiting thread itself, which then waits for ever: its
    /// guard cannot drop while it waits. Exact in debug builds, which record the thread of
    /// each protection; otherwise the reader's thread (the one that created it) stands for
    /// the protection's.
    pub is_waiter: bool,
}

/// A report on one waiter blocked past the stall timeout.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct StallReport {
    /// The address the waiter waits for.
    pub addr: usize,
    /// How long it has waited.
    pub waited: Duration,
    /// How many scan cycles it has been blocked.
    pub cycles: u64,
    /// 1 for the first report on this waiter, 2 for the next, and so on.
    pub sequence: u32,
    /// The waiting thread's id.
    pub waiter_thread_id: String,
    /// The waiting thread's name, if it has one.
    pub waiter_thread_name: Option<String>,
    /// Every slot holding the address (or the wildcard) in the reporting cycle.
    pub holders: Vec<Holder>,
}

impl fmt::Display for StallReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "hazptr: synchronize({:#x}) on thread {} ({}) blocked for {:.3?} ({} scan cycles), report #{}, {} holder(s):",
            self.addr,
            self.waiter_thread_id,
            self.waiter_thread_name.as_deref().unwrap_or("unnamed"),
            self.waited,
            self.cycles,
            self.sequence,
            self.holders.len()
        )?;
        for h in &self.holders {
            let kind = match h.kind {
                SlotKind::Primary => "primary",
                SlotKind::Backup => "backup",
            };
            write!(f, "  {kind} slot {}", h.slot)?;
            if h.wildcard {
                write!(f, " (wildcard: acquiring, may hold it)")?;
            }
            write!(
                f,
                ": thread {} ({})",
                h.thread_id.as_deref().unwrap_or("?"),
                h.thread_name.as_deref().unwrap_or("unnamed")
            )?;
            if h.is_waiter {
                write!(
                    f,
                    ", the waiting thread itself: it waits for its own guard and will wait for \
                     ever (drop the guard before synchronizing on the pointer it protects)"
                )?;
            }
            match h.held_for {
                Some(held) => write!(f, ", held for {held:.3?}")?,
                None => write!(f, ", seen held for {:.3?}", h.observed_for)?,
            }
            match h.site {
                Some(site) => writeln!(f, ", acquired at {site}")?,
                None => writeln!(f, " (acquire site: enable Config::debug_holders)")?,
            }
            if let Some(trace) = &h.backtrace {
                for line in trace.lines() {
                    writeln!(f, "      {line}")?;
                }
            }
        }
        write!(
            f,
            "  Long-lived references are a hazard-pointer feature, not necessarily a bug: \
             compare consecutive reports to tell one long hold from repeated re-acquisition."
        )
    }
}
