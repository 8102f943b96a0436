//! `hazmat parse` and `hazmat fmt`: the parser's first error of each file, and the canonical
//! printer.

use std::path::PathBuf;

pub(crate) fn parse(files: &[PathBuf]) -> u8 {
    let mut code = 0;
    for f in files {
        let name = f.display().to_string();
        match std::fs::read_to_string(f) {
            Ok(src) => match hazmat_litmus::parse(&src) {
                Ok(t) => println!(
                    "{name}: ok: test {} with {} threads",
                    t.name.name,
                    t.threads.len()
                ),
                Err(e) => {
                    eprintln!("{}", e.render(&name, &src).trim_end());
                    code = 2;
                }
            },
            Err(e) => {
                eprintln!("{name}: error: {e}");
                code = 2;
            }
        }
    }
    code
}

pub(crate) fn fmt(check: bool, files: &[PathBuf]) -> u8 {
    let mut code = 0;
    for f in files {
        let name = f.display().to_string();
        let src = match std::fs::read_to_string(f) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{name}: error: {e}");
                code = 2;
                continue;
            }
        };
        let test = match hazmat_litmus::parse_keeping_comments(&src) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{}", e.render(&name, &src).trim_end());
                code = 2;
                continue;
            }
        };
        let printed = hazmat_litmus::print(&test);
        if printed == src {
            continue;
        }
        if check {
            println!("{name}: not in canonical form");
            if code == 0 {
                code = 1;
            }
        } else if let Err(e) = std::fs::write(f, printed) {
            eprintln!("{name}: error: {e}");
            code = 2;
        }
    }
    code
}
