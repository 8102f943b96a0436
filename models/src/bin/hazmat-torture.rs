//! `hazmat-torture`: runs a torture scenario of the hazptr core on real threads and prints
//! its statistics, ending with `SUCCESS` or `FAILURE` and the BUG count.
//!
//! ```text
//! hazmat-torture --scenario PREEMPT --duration 30s --readers 4 --writers 1
//! hazmat-torture --scenario ALL --duration 30s
//! hazmat-torture --scenario PREEMPT --duration 2s --skip-synchronize   # negative control
//! ```
//!
//! The exit status is 0 when every run succeeded, 1 when some run failed, 2 on bad usage.

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use hazmat_models::torture::{self, Options, Scenario, Verdict, Weakening};

/// Torture the hazptr core: readers check every object they protect for early frees.
#[derive(Parser, Debug)]
#[command(name = "hazmat-torture", version)]
struct Args {
    /// Scenario: PREEMPT, NOPREEMPT, SLOWPATH, LOCKDEP, READERS0, READERS4, HOTADDR, LONGHOLD,
    /// FAIRNESS, SWEEP, or ALL for each in turn.
    #[arg(long, default_value = "PREEMPT")]
    scenario: String,
    /// How long each run lasts: `30s`, `500ms`, `2m`.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    duration: Duration,
    /// Reader threads (default: the scenario's).
    #[arg(long)]
    readers: Option<usize>,
    /// Pool writer threads (default: the scenario's).
    #[arg(long)]
    writers: Option<usize>,
    /// Seed of the threads' random streams.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print interim statistics this often (`10s`).
    #[arg(long, value_parser = parse_duration)]
    stat_interval: Option<Duration>,
    /// Reader counts of the SWEEP scenario, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = Scenario::SWEEP_READERS)]
    sweep: Vec<usize>,
    /// Negative control: skip `synchronize` and free retired objects at once. The run must
    /// end in FAILURE.
    #[arg(long)]
    skip_synchronize: bool,
}

/// Parses `30s`, `500ms`, `2m`, `1.5s` or `250us`.
fn parse_duration(s: &str) -> Result<Duration, String> {
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .ok_or_else(|| format!("duration `{s}` has no unit; write e.g. `30s` or `500ms`"))?;
    let (number, unit) = s.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("duration `{s}`: `{number}` is not a number"))?;
    let seconds = match unit {
        "us" => value / 1e6,
        "ms" => value / 1e3,
        "s" => value,
        "m" => value * 60.0,
        _ => {
            return Err(format!(
                "duration `{s}`: unknown unit `{unit}`; use us, ms, s or m"
            ));
        }
    };
    Duration::try_from_secs_f64(seconds).map_err(|e| format!("duration `{s}`: {e}"))
}

/// Thread counts above this are refused rather than left to fail at spawn time.
const MAX_THREADS: usize = 4096;

/// Checks what clap cannot: a positive duration and thread counts the machine can spawn.
fn validate(args: &Args) -> Result<(), String> {
    if args.duration.is_zero() {
        return Err("--duration: must be longer than zero".to_owned());
    }
    let counts = [("--readers", args.readers), ("--writers", args.writers)];
    for (flag, n) in counts {
        if n.is_some_and(|n| n > MAX_THREADS) {
            return Err(format!("{flag}: at most {MAX_THREADS} threads"));
        }
    }
    if let Some(n) = args.sweep.iter().find(|&&n| n > MAX_THREADS) {
        return Err(format!("--sweep: {n} readers is more than {MAX_THREADS}"));
    }
    if args.stat_interval.is_some_and(|i| i.is_zero()) {
        return Err("--stat-interval: must be longer than zero".to_owned());
    }
    Ok(())
}

fn main() -> ExitCode {
    let args = Args::parse();
    if let Err(e) = validate(&args) {
        eprintln!("hazmat-torture: {e}");
        return ExitCode::from(2);
    }
    let scenarios: Vec<Scenario> = if args.scenario.eq_ignore_ascii_case("ALL") {
        Scenario::ALL.to_vec()
    } else {
        match args.scenario.parse() {
            Ok(s) => vec![s],
            Err(e) => {
                eprintln!("hazmat-torture: --scenario: {e} ALL");
                return ExitCode::from(2);
            }
        }
    };
    let mut failed = false;
    for scenario in scenarios {
        let mut options = Options::new(scenario, args.duration)
            .seed(args.seed)
            .sweep(args.sweep.clone());
        if let Some(n) = args.readers {
            options = options.readers(n);
        }
        if let Some(n) = args.writers {
            options = options.writers(n);
        }
        if let Some(i) = args.stat_interval {
            options = options.stat_interval(i);
        }
        if args.skip_synchronize {
            options = options.weakening(Weakening::SkipSynchronize);
        }
        for report in torture::run(&options, &mut |line| println!("{line}")) {
            print!("{report}");
            failed |= report.verdict() == Verdict::Failure;
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::{Args, parse_duration, validate};
    use clap::Parser;
    use std::time::Duration;

    fn check(argv: &[&str]) -> Result<(), String> {
        let args = Args::try_parse_from(["hazmat-torture"].iter().chain(argv))
            .map_err(|e| e.to_string())?;
        validate(&args)
    }

    #[test]
    fn bad_arguments_get_a_message_naming_the_flag() {
        assert_eq!(check(&["--duration", "2s", "--readers", "3"]), Ok(()));
        assert!(
            check(&["--duration", "0s"])
                .unwrap_err()
                .starts_with("--duration")
        );
        assert!(
            check(&["--readers", "100000"])
                .unwrap_err()
                .starts_with("--readers")
        );
        assert!(
            check(&["--sweep", "1,99999"])
                .unwrap_err()
                .starts_with("--sweep")
        );
        assert!(
            check(&["--duration", "30"])
                .unwrap_err()
                .contains("no unit")
        );
        assert!(check(&["--readers", "-1"]).is_err());
    }

    #[test]
    fn durations_take_a_unit() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert!(parse_duration("30").unwrap_err().contains("no unit"));
        assert!(
            parse_duration("3h")
                .unwrap_err()
                .contains("unknown unit `h`")
        );
        assert!(
            parse_duration("1.2.3s")
                .unwrap_err()
                .contains("not a number")
        );
    }
}
