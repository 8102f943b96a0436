//! Every torture scenario, briefly, on the real core: each must end in SUCCESS with no BUG.
//! The negative controls skip `synchronize` and must end in FAILURE with BUGs.
//!
//! The scenarios run one at a time (the lock below), since each one's threads are meant to
//! have the machine to themselves.

use std::sync::Mutex;
use std::time::Duration;

use hazmat_models::torture::{self, Options, Report, Scenario, Verdict, Weakening};

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

const BRIEF: Duration = Duration::from_secs(1);

fn run(options: Options) -> Vec<Report> {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let reports = torture::run(&options, &mut |_| {});
    for report in &reports {
        print!("{report}");
    }
    reports
}

/// Runs `scenario` briefly and checks that it succeeded and did its basic work.
fn succeeds(scenario: Scenario) -> Report {
    let mut reports = run(Options::new(scenario, BRIEF));
    assert_eq!(reports.len(), 1);
    let report = reports.pop().unwrap();
    assert_eq!(report.bugs, 0, "{report}");
    assert!(report.stalled.is_empty(), "{report}");
    assert_eq!(report.verdict(), Verdict::Success);
    assert!(report.lines().last().unwrap().ends_with("SUCCESS BUGs 0"));
    assert_eq!(report.acquires, report.releases, "{report}");
    assert!(report.writer_ops > 0, "{report}");
    assert_eq!(report.core.waiters_enqueued, report.core.waiters_completed);
    report
}

/// Readers see only pipe counts zero and one.
fn pipe_is_clean(report: &Report) {
    assert!(report.reader_pipe[..2].iter().sum::<u64>() > 0, "{report}");
    assert!(report.reader_pipe[2..].iter().all(|&n| n == 0), "{report}");
}

#[test]
fn preempt() {
    let report = succeeds(Scenario::Preempt);
    pipe_is_clean(&report);
    assert!(report.nested > 0, "{report}");
    assert!(report.grace_periods > 0 && report.retires > 0, "{report}");
    assert!(report.frees > 0, "{report}");
}

#[test]
fn nopreempt() {
    pipe_is_clean(&succeeds(Scenario::NoPreempt));
}

#[test]
fn slowpath() {
    let report = succeeds(Scenario::SlowPath);
    assert!(report.slow_path);
    pipe_is_clean(&report);
}

#[test]
fn lockdep() {
    let report = succeeds(Scenario::Lockdep);
    pipe_is_clean(&report);
    assert!(report.sticky_acquires > 0, "{report}");
    assert!(report.sticky_latency.count > 0, "{report}");
}

#[test]
fn readers0() {
    let report = succeeds(Scenario::Readers0);
    assert_eq!(report.readers, 0);
    assert_eq!(report.acquires, 0);
    // With no reader, every self-scan a lone writer takes returns at once.
    assert!(report.core.self_scan_completions > 0, "{report}");
    assert_eq!(
        report.core.self_scan_completions, report.core.self_scans,
        "{report}"
    );
    assert!(report.grace_periods > 0, "{report}");
}

#[test]
fn readers4() {
    let report = succeeds(Scenario::Readers4);
    assert_eq!(report.readers, 4);
    pipe_is_clean(&report);
}

#[test]
fn hotaddr() {
    let report = succeeds(Scenario::HotAddr);
    // The waiter keeps completing once the hammer stops.
    assert!(report.hammer_waits.1 > 0, "{report}");
    assert!(report.sticky_acquires > 0, "{report}");
    // The scenario lowers the drain threshold to four cycles, so drains engage and end.
    let c = &report.core;
    assert!(c.drain_engages > 0, "{report}");
    // Every drain ended one way or another, except perhaps one still engaged when the
    // counters were read.
    let ended = c.drain_completed + c.drain_orphaned + c.drain_fairness_disengages;
    assert!(
        ended <= c.drain_engages && c.drain_engages <= ended + 1,
        "{report}"
    );
}

#[test]
fn longhold() {
    let report = succeeds(Scenario::LongHold);
    assert!(report.holds.0 > 0, "{report}");
    // The waiter blocks while the holder holds (a quarter of the run at a time).
    assert!(
        report.sticky_latency.max >= Duration::from_millis(50),
        "{report}"
    );
    // The stall timeout is a quarter of the hold: the detector reports during each hold and
    // names the holder thread.
    assert!(report.core.stalls > 0, "{report}");
    let last = report.stall_reports.last().expect("a stall report");
    assert!(last.contains("(holder 0)"), "{report}");
}

#[test]
fn fairness() {
    // Drains engage for the stuck addresses and the fairness cap rotates them, once a drain
    // has stayed engaged long enough while its holder holds: on a loaded machine one brief
    // run may end before the scan thread gets that far (its drains end orphaned instead).
    // Every run must succeed; the rotation must show within a few runs.
    let mut runs = Vec::new();
    for _ in 0..5 {
        let report = succeeds(Scenario::Fairness);
        // Both holders held, and both waiters (one per address) completed waits.
        assert!(report.holds.0 >= 2, "{report}");
        assert!(report.sticky_latency.count >= 2, "{report}");
        let rotated = report.core.drain_fairness_disengages > 0;
        runs.push(report);
        if rotated {
            return;
        }
    }
    panic!(
        "the fairness cap rotated no drain in {} runs:\n{}",
        runs.len(),
        runs.iter().map(|r| r.to_string()).collect::<String>()
    );
}

#[test]
fn sweep() {
    let reports = run(Options::new(Scenario::Sweep, BRIEF / 2).sweep(vec![1, 4]));
    let labels: Vec<&str> = reports.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(labels, ["SWEEP/1", "SWEEP/4"]);
    for report in &reports {
        assert_eq!(report.verdict(), Verdict::Success, "{report}");
        pipe_is_clean(report);
    }
}

#[test]
fn skipping_synchronize_is_caught_by_readers() {
    let reports = run(Options::new(Scenario::Preempt, BRIEF).weakening(Weakening::SkipSynchronize));
    let report = &reports[0];
    assert!(report.weakened);
    assert!(report.bugs > 0, "{report}");
    assert!(!report.bug_samples.is_empty());
    assert_eq!(report.verdict(), Verdict::Failure);
    assert!(report.lines().last().unwrap().contains("FAILURE BUGs"));
}

#[test]
fn skipping_synchronize_on_a_held_sticky_address_is_caught() {
    // No readers: every BUG comes from the sticky holder the waiter failed to wait for.
    let reports = run(Options::new(Scenario::LongHold, BRIEF)
        .readers(0)
        .weakening(Weakening::SkipSynchronize));
    let report = &reports[0];
    assert!(report.bugs > 0, "{report}");
    assert!(
        report
            .bug_samples
            .iter()
            .all(|b| b.contains("still held it")),
        "{report}"
    );
    assert_eq!(report.verdict(), Verdict::Failure);
}
