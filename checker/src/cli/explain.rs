//! `hazmat explain`: whether a final state is allowed, with a witness, or why the model
//! forbids it ([`hazmat_checker::explain_source`]).

use hazmat_checker::engine::enumerate::Limits;
use hazmat_checker::model;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub(crate) struct ExplainArgs {
    /// The memory model: lkmm, sc, tso or rc11.
    #[arg(long, default_value = "lkmm")]
    model: String,
    /// The final state to explain, in the syntax of a condition (`1:r0=1 /\ x=2`); by
    /// default the test's own condition.
    #[arg(long)]
    state: Option<String>,
    /// Give up after this many seconds.
    #[arg(long)]
    timeout: Option<f64>,
    /// Also draw the witness, or the first candidate of each group with its cycle, into
    /// files in this directory.
    #[arg(long)]
    graph: Option<PathBuf>,
    /// How to draw them: text, dot or svg.
    #[arg(long, default_value = "svg", value_parser = ["text", "dot", "svg"])]
    graph_format: String,
    /// The litmus file.
    file: PathBuf,
}

pub(crate) fn explain(args: ExplainArgs) -> u8 {
    let m = match model(&args.model) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("hazmat: error: {e}");
            return 2;
        }
    };
    let file = args.file.display().to_string();
    let source = match std::fs::read_to_string(&args.file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{file}: error: {e}");
            return 2;
        }
    };
    let limits = Limits {
        max_executions: None,
        deadline: args
            .timeout
            .map(|s| Instant::now() + Duration::from_secs_f64(s.max(0.0))),
        ..Default::default()
    };
    match hazmat_checker::explain_source(&source, args.state.as_deref(), m.as_ref(), &limits) {
        Ok(explained) => {
            for w in &explained.warnings {
                eprintln!("{}", w.render(&file, &source).trim_end());
            }
            print!("{}", explained.text);
            let Some(dir) = &args.graph else {
                return 0;
            };
            let format = hazmat_checker::report::trace::Format::parse(&args.graph_format)
                .unwrap_or_default();
            if let Err(e) = std::fs::create_dir_all(dir) {
                eprintln!("{}: error: {e}", dir.display());
                return 2;
            }
            for (stem, g) in &explained.graphs {
                let path = dir.join(format!("{stem}.{}", format.extension()));
                if let Err(e) = std::fs::write(&path, format.render(g)) {
                    eprintln!("{}: error: {e}", path.display());
                    return 2;
                }
                println!("wrote {}", path.display());
            }
            0
        }
        Err(e) => {
            eprintln!("{}", e.render(&file));
            2
        }
    }
}
