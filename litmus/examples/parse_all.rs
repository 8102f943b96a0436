//! Parses every `.litmus` file under the given directories and reports failures.

use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "litmus") {
            out.push(p);
        }
    }
}

fn main() {
    let mut files = Vec::new();
    for arg in std::env::args().skip(1) {
        collect(Path::new(&arg), &mut files);
    }
    files.sort();
    let mut failed = 0;
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap_or_default();
        if let Err(e) = hazmat_litmus::parse(&src) {
            failed += 1;
            print!("{}", e.render(&f.display().to_string(), &src));
        }
    }
    println!("{} files, {} failed", files.len(), failed);
}
