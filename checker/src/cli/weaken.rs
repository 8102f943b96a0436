//! `hazmat weaken`: for each test, which fences and orderings its verdict needs, which are
//! stronger than needed, and (for a `Sometimes` verdict) the cheapest strengthenings that
//! forbid its outcome ([`hazmat_checker::weaken`]); as a table, JSON or Markdown, and the
//! variants as litmus files.
//!
//! Exit codes: 0 every file analysed; 2 an error (bad usage, an unreadable or invalid file,
//! a test with nothing to weaken or no condition); 3 a test or a variant undecided within
//! `--timeout`. No partial table is printed for a file that fails.

use super::expand;
use super::model::ModelArgs;
use hazmat_checker::weaken::{self, Setup, WeakenError};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(clap::Args)]
pub(crate) struct WeakenArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Give up on a variant (or the test) after this many seconds: the file then fails.
    #[arg(long)]
    timeout: Option<f64>,
    /// Print one JSON object per test.
    #[arg(long, conflicts_with = "markdown")]
    json: bool,
    /// Print Markdown tables, as the book shows them.
    #[arg(long)]
    markdown: bool,
    /// Write each variant reported (each site's weaker choices, the weakest assignments,
    /// the strengthenings) as a litmus file in this directory.
    #[arg(long, value_name = "DIR")]
    write: Option<PathBuf>,
    /// Decide every whole assignment of weaker choices when there are at most this many;
    /// past it, a greedy search.
    #[arg(long, default_value_t = 4096)]
    exact_limit: usize,
    /// The most variants the strengthening search decides.
    #[arg(long, default_value_t = 4000)]
    budget: usize,
    /// The most changes in one strengthening.
    #[arg(long, default_value_t = 4)]
    max_changes: usize,
    /// Threads deciding variants in parallel (default: all cores).
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// Files or directories.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

pub(crate) fn weaken(args: WeakenArgs) -> u8 {
    let chosen = match args.model.choose("lkmm") {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    if let Some(j) = args.jobs {
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(j.max(1))
            .build_global();
    }
    let setup = Setup {
        macros: chosen.macros.as_deref(),
        timeout: args.timeout.map(|s| Duration::from_secs_f64(s.max(0.0))),
        exact_limit: args.exact_limit,
        budget: args.budget,
        max_changes: args.max_changes,
        optace: chosen.settings.optace,
        ..Setup::new(
            chosen.model.as_ref(),
            chosen.kind == hazmat_checker::models::choose::Kind::Native,
        )
    };
    let mut code = 0u8;
    let mut out = std::io::stdout().lock();
    for path in expand(&args.paths) {
        let file = path.display().to_string();
        let source = match std::fs::read_to_string(&path) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{file}: error: {e}");
                code = 2;
                continue;
            }
        };
        let analysis = match weaken::analyse(&source, &setup) {
            Ok(a) => a,
            Err(e) => {
                eprintln!("{}", e.render(&file, &source));
                code = code.max(match e {
                    WeakenError::Undecided { .. } | WeakenError::TestUndecided(_) => 3,
                    _ => 2,
                });
                continue;
            }
        };
        let text = if args.json {
            let mut t = weaken::render::json(&file, &analysis).to_string();
            t.push('\n');
            t
        } else if args.markdown {
            weaken::render::markdown(&analysis)
        } else {
            weaken::render::text(&analysis)
        };
        let _ = out.write_all(text.as_bytes());
        if !args.json {
            let _ = out.write_all(b"\n");
        }
        if let Some(dir) = &args.write
            && let Err(e) = write_variants(dir, &path, &source, &analysis, &setup)
        {
            eprintln!("{e}");
            code = code.max(2);
        }
    }
    let _ = out.flush();
    code
}

/// Writes the analysis's variants beside one another in `dir`, named after the test's
/// file, and says which on stderr.
fn write_variants(
    dir: &Path,
    path: &Path,
    source: &str,
    analysis: &weaken::Analysis,
    setup: &Setup<'_>,
) -> Result<(), String> {
    let file = path.display().to_string();
    let files =
        weaken::variant_files(source, analysis, setup).map_err(|e| e.render(&file, source))?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: error: {e}", dir.display()))?;
    let stem = path.file_stem().map_or_else(
        || analysis.name.clone(),
        |s| s.to_string_lossy().into_owned(),
    );
    for v in files {
        let target = dir.join(format!("{stem}{}.litmus", v.suffix));
        std::fs::write(&target, v.text).map_err(|e| format!("{}: error: {e}", target.display()))?;
        eprintln!("wrote {}", target.display());
    }
    Ok(())
}
