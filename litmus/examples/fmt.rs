//! Prints the canonical form of one file: `cargo run --example fmt -- FILE`.

fn main() {
    let path = std::env::args().nth(1).unwrap_or_default();
    let src = std::fs::read_to_string(&path).unwrap_or_default();
    match hazmat_litmus::parse_keeping_comments(&src) {
        Ok(t) => print!("{}", hazmat_litmus::print(&t)),
        Err(e) => print!("{}", e.render(&path, &src)),
    }
}
