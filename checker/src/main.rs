//! The `hazmat` command line.

fn main() {
    eprintln!("hazmat: no subcommands yet");
    std::process::exit(2);
}
