//! The `hazmat` command line.
//!
//! `hazmat check` decides litmus files under a memory model and prints herd7's output;
//! `hazmat parse` and `hazmat fmt` expose the parser and the canonical printer;
//! `hazmat weaken` decides every weakening and strengthening of a test ([`cli::weaken`]);
//! `hazmat herd7 ARGS...`, or the binary started as `herd7`, is herd7's command line
//! ([`cli::herd7`]).
//! Exit codes: 0 success; 1 `--judge` found a disagreement (or `fmt --check` a file to
//! reformat); 2 an error (bad usage, unreadable or invalid file, unknown primitive,
//! unavailable model); 3 a test stopped at a limit and is undecided.
//! When several apply, the first in the order 2, 1, 3 wins.
//! Warnings (what herd7 reads otherwise than a test probably means) go to stderr, like
//! errors, and leave stdout herd7's and the exit code alone.

use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// A test allocates a few hundred small values (the parse, the program, the text written),
/// which the system allocator makes a fifth of a corpus run's instructions; mimalloc takes
/// 12 % off the whole (callgrind over `paulmck-luc`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "hazmat",
    version,
    about = "Litmus tests under the Linux-kernel memory model, SC, TSO, RC11 and herd7's cat models"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Decide litmus files (directories are searched for `.litmus` files) under the LKMM,
    /// SC, TSO, RC11 (C11 atomics: `--model rc11`) or a cat model.
    Check(Box<cli::check::CheckArgs>),
    /// Parse litmus files and report the first error of each.
    Parse {
        /// Files to parse.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Say whether a final state is allowed, with a witness, or why the model forbids it.
    Explain(cli::explain::ExplainArgs),
    /// Measure tests per second and enumeration counts over litmus files, on all cores.
    Bench(cli::bench::BenchArgs),
    /// Run as herd7: herd7's options and output, for the kernel's scripts (also when the
    /// binary is started under the name `herd7`). `hazmat herd7 -help` lists the options.
    Herd7 {
        /// herd7's arguments, such as `-conf linux-kernel.cfg test.litmus`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Decide every weakening of each test's fences and orderings (which are needed, which
    /// are stronger than needed) or, for a `Sometimes` test, the cheapest strengthenings
    /// that forbid its outcome.
    Weaken(Box<cli::weaken::WeakenArgs>),
    /// Rewrite litmus files in canonical form.
    Fmt {
        /// Only report the files that are not in canonical form.
        #[arg(long)]
        check: bool,
        /// Files to format.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

mod cli;

fn main() -> ExitCode {
    // Started as `herd7` (a symlink on PATH), or as `hazmat herd7`: herd7's command line,
    // which clap cannot read (single-dash words).
    let argv: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let argv0 = argv.first().cloned().unwrap_or_default();
    if Path::new(&argv0).file_stem().is_some_and(|s| s == "herd7") {
        return ExitCode::from(cli::herd7::main(&argv0, &argv[1..]));
    }
    if argv.get(1).is_some_and(|a| a == "herd7") {
        return ExitCode::from(cli::herd7::main(&format!("{argv0} herd7"), &argv[2..]));
    }
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Check(args) => cli::check::check(*args),
        Command::Parse { files } => cli::fmt::parse(&files),
        Command::Bench(args) => cli::bench::bench(args),
        Command::Fmt { check, files } => cli::fmt::fmt(check, &files),
        Command::Explain(args) => cli::explain::explain(args),
        Command::Weaken(args) => cli::weaken::weaken(*args),
        // Read above, before clap.
        Command::Herd7 { .. } => cli::herd7::main("hazmat herd7", &[]),
    };
    ExitCode::from(code)
}
