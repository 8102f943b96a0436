//! Parses every `.litmus` file under the given directories, checks that each round-trips
//! through the printer, and reports failures: `cargo run --example parse_all -- DIR...`.

fn main() {
    let mut files = Vec::new();
    for arg in std::env::args().skip(1) {
        files.extend(hazmat_litmus::litmus_files(arg));
    }
    files.sort();
    let mut failed = 0;
    for f in &files {
        let name = f.display().to_string();
        let src = std::fs::read_to_string(f).unwrap_or_default();
        let test = match hazmat_litmus::parse(&src) {
            Ok(t) => t,
            Err(e) => {
                failed += 1;
                print!("{}", e.render(&name, &src));
                continue;
            }
        };
        let printed = hazmat_litmus::print(&test);
        match hazmat_litmus::parse(&printed) {
            Ok(again) if again == test && hazmat_litmus::print(&again) == printed => {}
            Ok(_) => {
                failed += 1;
                println!("{name}: does not round-trip");
            }
            Err(e) => {
                failed += 1;
                print!("{}", e.render(&format!("{name} (printed)"), &printed));
            }
        }
    }
    println!("{} files, {} failed", files.len(), failed);
}
