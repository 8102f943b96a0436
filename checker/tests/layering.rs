//! The checker's layering, held to what `docs/ARCHITECTURE.md` states.
//!
//! ARCHITECTURE.md names the floors of `checker/src` in order, lowest first, on one line
//! of its "Layers" section (`layers: exec < front < ...`), and the circles of files it
//! accepts, each on a line `circle: FILE FILE ...`.
//! This test reads every `.rs` file of `checker/src` and `litmus/src`, finds each path it
//! names into its own crate (`crate::`, `super::`, `self::`, a child module's name, and in
//! the binary `hazmat_checker::`), resolves it to the file that defines the module (through
//! the `pub use` re-exports of the modules on the way), and fails
//! - when a file of the checker names a file on a higher floor (an upward import);
//! - when files name one another round a circle that ARCHITECTURE.md does not list.
//!
//! A file may use the items of the modules it is a part of (its parent file, and theirs):
//! a module split over a file and the folder of its children is one module, so that arrow
//! is not counted in circles (an upward one across floors still is). The unit tests of a
//! file (a `#[cfg(test)]` module) may use anything and are not read. Comments and strings
//! are not read: only code names files.

#[path = "common/scratch.rs"]
mod scratch;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// A token of Rust source, as far as paths need: identifiers and the punctuation that
/// builds paths and blocks.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    PathSep,
    Open,
    Close,
    Comma,
    Semi,
    Star,
    Hash,
    OpenBracket,
    CloseBracket,
    OpenParen,
    CloseParen,
    Other,
}

/// The tokens of `text`, each with its 1-based line; comments, strings and characters
/// dropped.
fn tokens(text: &str) -> Vec<(Tok, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
            i += 1;
        } else if c.is_ascii_whitespace() {
            i += 1;
        } else if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(b[i] == b'\n');
                    i += 1;
                }
            }
        } else if c == b'r' && (b.get(i + 1) == Some(&b'#') || b.get(i + 1) == Some(&b'"')) {
            // A raw string: r"...", r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push((Tok::Ident("r".into()), line));
                i += 1;
                continue;
            }
            j += 1;
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            while j < b.len() && !b[j..].starts_with(&close) {
                line += usize::from(b[j] == b'\n');
                j += 1;
            }
            i = j + close.len();
        } else if c == b'"' || (c == b'b' && b.get(i + 1) == Some(&b'"')) {
            let mut j = i + if c == b'b' { 2 } else { 1 };
            while j < b.len() && b[j] != b'"' {
                if b[j] == b'\\' {
                    j += 1;
                }
                line += usize::from(b.get(j) == Some(&b'\n'));
                j += 1;
            }
            i = j + 1;
        } else if c == b'\'' {
            // A character ('a', '\n', '\'') or a lifetime ('a).
            if b.get(i + 1) == Some(&b'\\') {
                let mut j = i + 2;
                while j < b.len() && b[j] != b'\'' {
                    j += 1;
                }
                i = j + 1;
            } else if b.get(i + 2) == Some(&b'\'') {
                i += 3;
            } else {
                i += 1;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
            }
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push((Tok::Ident(text[start..i].to_string()), line));
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                i += 1;
            }
            out.push((Tok::Other, line));
        } else {
            let tok = match c {
                b':' if b.get(i + 1) == Some(&b':') => {
                    i += 1;
                    Tok::PathSep
                }
                b'{' => Tok::Open,
                b'}' => Tok::Close,
                b',' => Tok::Comma,
                b';' => Tok::Semi,
                b'*' => Tok::Star,
                b'#' => Tok::Hash,
                b'[' => Tok::OpenBracket,
                b']' => Tok::CloseBracket,
                b'(' => Tok::OpenParen,
                b')' => Tok::CloseParen,
                _ => Tok::Other,
            };
            out.push((tok, line));
            i += 1;
        }
    }
    out
}

/// One crate's files: the module path of each (`["engine", "enumerate"]`), its file.
struct Crate {
    /// Module path to the file (relative to the source folder).
    files: BTreeMap<Vec<String>, PathBuf>,
}

impl Crate {
    /// The deepest module of `path` that has a file of its own, and how many segments it
    /// took.
    fn module_of(&self, path: &[String]) -> Option<(Vec<String>, usize)> {
        (0..=path.len())
            .rev()
            .find(|&n| self.files.contains_key(&path[..n]))
            .map(|n| (path[..n].to_vec(), n))
    }
}

/// Every `.rs` file below `src` and its module path; `root` is the crate's root file
/// (`lib` or `main`), and the files and folders in `skip` belong to another crate.
fn crate_files(src: &Path, root: &str, skip: &[&str]) -> Crate {
    let mut files = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let rel = p.strip_prefix(src).expect("below src").to_path_buf();
            if skip.iter().any(|s| rel.starts_with(s)) {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let mut module: Vec<String> = rel
                    .with_extension("")
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                if module.last().is_some_and(|m| m == "mod") {
                    module.pop();
                }
                if module == [root] {
                    module.clear();
                } else if module.len() == 1 && (module[0] == "lib" || module[0] == "main") {
                    continue;
                }
                files.insert(module, rel);
            }
        }
    }
    Crate { files }
}

/// A path a file names, with the line it is on.
struct Named {
    /// The path, made absolute from the crate's root.
    path: Vec<String>,
    line: usize,
}

/// What one file names: the paths into its crate, and its `pub use` re-exports (name to
/// the path it stands for). A glob re-export (`pub use x::*`) is not followed: a name
/// through it is taken for the re-exporting module's, which names `x` in turn.
#[derive(Default)]
struct FileUses {
    named: Vec<Named>,
    reexports: HashMap<String, Vec<String>>,
}

/// Reads a `use` tree starting at `toks[i]` (after `use`), calling `leaf` with each full
/// path and the name it binds (`None` for a glob); returns the index after the tree.
fn use_tree(
    toks: &[(Tok, usize)],
    mut i: usize,
    prefix: &[String],
    leaf: &mut dyn FnMut(Vec<String>, Option<String>),
) -> usize {
    let mut path = prefix.to_vec();
    loop {
        match toks.get(i).map(|t| &t.0) {
            Some(Tok::PathSep) => i += 1,
            Some(Tok::Ident(id)) if id == "as" => {
                let name = match toks.get(i + 1).map(|t| &t.0) {
                    Some(Tok::Ident(n)) => n.clone(),
                    _ => String::new(),
                };
                leaf(path, Some(name));
                return i + 2;
            }
            Some(Tok::Ident(id)) => {
                path.push(id.clone());
                i += 1;
            }
            Some(Tok::Star) => {
                leaf(path, None);
                return i + 1;
            }
            Some(Tok::Open) => {
                i += 1;
                loop {
                    match toks.get(i).map(|t| &t.0) {
                        Some(Tok::Close) => return i + 1,
                        Some(Tok::Comma) => i += 1,
                        None => return i,
                        _ => i = use_tree(toks, i, &path, leaf),
                    }
                }
            }
            _ => {
                if path.last().is_some_and(|l| l == "self") {
                    path.pop();
                }
                let name = path.last().cloned();
                if path.len() > prefix.len() || name.is_some() {
                    leaf(path, name);
                }
                return i;
            }
        }
    }
}

/// The paths a file names, made absolute: `module` is the file's module path, `children`
/// the modules it declares (`mod x;`), `is_bin` whether it belongs to the binary, whose
/// `hazmat_checker::` paths go into the library (kept with that first segment).
fn file_uses(text: &str, module: &[String], children: &BTreeSet<String>, is_bin: bool) -> FileUses {
    let toks = tokens(text);
    let mut uses = FileUses::default();
    // The module path at each depth of braces: inline `mod name { ... }` blocks.
    let mut scopes: Vec<(usize, Vec<String>, bool)> = Vec::new();
    let mut depth = 0usize;
    let mut cfg_test = false;
    let mut i = 0;
    let absolute = |first: &[String], rest: &[String], current: &[String]| -> Option<Vec<String>> {
        let mut path: Vec<String> = current.to_vec();
        let mut segs = first.iter().chain(rest).peekable();
        match segs.peek().map(|s| s.as_str()) {
            Some("crate") => {
                path.clear();
                segs.next();
            }
            Some("self") => {
                segs.next();
            }
            Some("super") => {
                while segs.peek().is_some_and(|s| *s == "super") {
                    segs.next();
                    path.pop()?;
                }
            }
            Some("hazmat_checker") if is_bin => {
                path = vec!["hazmat_checker".to_string()];
                segs.next();
            }
            Some(s) if children.contains(s) && current == module => {}
            _ => return None,
        }
        path.extend(segs.cloned());
        Some(path)
    };
    while i < toks.len() {
        let (tok, line) = (&toks[i].0, toks[i].1);
        let current: Vec<String> = scopes
            .last()
            .map_or_else(|| module.to_vec(), |s| s.1.clone());
        let in_test = scopes.last().is_some_and(|s| s.2);
        match tok {
            Tok::Hash => {
                // `#[cfg(test)]` marks the next item.
                let mut j = i + 1;
                let mut words = Vec::new();
                if toks.get(j).map(|t| &t.0) == Some(&Tok::OpenBracket) {
                    let mut d = 0;
                    while let Some((t, _)) = toks.get(j) {
                        match t {
                            Tok::OpenBracket => d += 1,
                            Tok::CloseBracket => {
                                d -= 1;
                                if d == 0 {
                                    break;
                                }
                            }
                            Tok::Ident(w) => words.push(w.clone()),
                            _ => {}
                        }
                        j += 1;
                    }
                }
                if words == ["cfg", "test"] {
                    cfg_test = true;
                }
                i = j + 1;
                continue;
            }
            Tok::Ident(kw) if kw == "mod" => {
                if let (Some((Tok::Ident(name), _)), Some((Tok::Open, _))) =
                    (toks.get(i + 1), toks.get(i + 2))
                {
                    let mut inner = current.clone();
                    inner.push(name.clone());
                    depth += 1;
                    scopes.push((depth, inner, in_test || cfg_test));
                    cfg_test = false;
                    i += 3;
                    continue;
                }
                cfg_test = false;
                i += 2;
                continue;
            }
            Tok::Ident(kw) if kw == "use" => {
                let public = i > 0 && matches!(&toks[i - 1].0, Tok::Ident(p) if p == "pub")
                    || (i > 3
                        && matches!(&toks[i - 1].0, Tok::CloseParen)
                        && matches!(&toks[i - 4].0, Tok::Ident(p) if p == "pub"));
                let skip = in_test || cfg_test;
                cfg_test = false;
                let mut leaves = Vec::new();
                i = use_tree(&toks, i + 1, &[], &mut |p, n| leaves.push((p, n)));
                if skip {
                    continue;
                }
                for (p, name) in leaves {
                    let Some(abs) = absolute(&p[..1.min(p.len())], &p[1.min(p.len())..], &current)
                    else {
                        continue;
                    };
                    if public
                        && current == module
                        && let Some(n) = name
                    {
                        uses.reexports.insert(n, abs.clone());
                    }
                    uses.named.push(Named { path: abs, line });
                }
                continue;
            }
            Tok::Open => depth += 1,
            Tok::Close => {
                if scopes.last().is_some_and(|s| s.0 == depth) {
                    scopes.pop();
                }
                depth = depth.saturating_sub(1);
                cfg_test = false;
            }
            Tok::Semi => cfg_test = false,
            Tok::Ident(first) if !(i > 0 && toks[i - 1].0 == Tok::PathSep) => {
                // A path in code: IDENT (:: IDENT)*.
                let mut segs = vec![first.clone()];
                let mut j = i + 1;
                while toks.get(j).map(|t| &t.0) == Some(&Tok::PathSep) {
                    match toks.get(j + 1).map(|t| &t.0) {
                        Some(Tok::Ident(s)) => {
                            segs.push(s.clone());
                            j += 2;
                        }
                        _ => break,
                    }
                }
                if segs.len() > 1
                    && !(in_test || cfg_test)
                    && let Some(abs) = absolute(&segs[..1], &segs[1..], &current)
                {
                    uses.named.push(Named { path: abs, line });
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    uses
}

/// The modules a file declares with `mod name;` (files of their own).
fn declared_children(text: &str) -> BTreeSet<String> {
    let toks = tokens(text);
    let mut out = BTreeSet::new();
    for w in toks.windows(3) {
        if let (Tok::Ident(m), Tok::Ident(name)) = (&w[0].0, &w[1].0)
            && m == "mod"
            && matches!(w[2].0, Tok::Semi | Tok::Open)
        {
            out.insert(name.clone());
        }
    }
    out
}

/// One arrow: a file names another, at a line.
struct Arrow {
    from: PathBuf,
    to: PathBuf,
    line: usize,
}

/// The arrows from the files of one crate (`lib`: for the binary, the library crate, whose
/// files its `hazmat_checker::` paths go into).
fn arrows(src: &Path, krate: &Crate, lib: Option<&Crate>) -> Vec<Arrow> {
    let mut reads: BTreeMap<Vec<String>, FileUses> = BTreeMap::new();
    for (module, rel) in &krate.files {
        let text = std::fs::read_to_string(src.join(rel)).expect("a source file");
        let children = declared_children(&text);
        reads.insert(
            module.clone(),
            file_uses(&text, module, &children, lib.is_some()),
        );
    }
    let lib_reads: BTreeMap<Vec<String>, FileUses> = lib.map_or_else(BTreeMap::new, |l| {
        l.files
            .iter()
            .map(|(m, rel)| {
                let text = std::fs::read_to_string(src.join(rel)).expect("a source file");
                (
                    m.clone(),
                    file_uses(&text, m, &declared_children(&text), false),
                )
            })
            .collect()
    });
    // Follows `pub use` re-exports to the module that defines a name.
    fn resolve(
        krate: &Crate,
        reads: &BTreeMap<Vec<String>, FileUses>,
        path: &[String],
        hops: usize,
    ) -> Option<Vec<String>> {
        let (module, n) = krate.module_of(path)?;
        if hops < 8
            && let Some(name) = path.get(n)
            && let Some(target) = reads.get(&module).and_then(|u| u.reexports.get(name))
        {
            let mut next = target.clone();
            next.extend(path[n + 1..].iter().cloned());
            return resolve(krate, reads, &next, hops + 1).or(Some(module));
        }
        Some(module)
    }
    let mut out = Vec::new();
    for (module, uses) in &reads {
        let from = krate.files[module].clone();
        for named in &uses.named {
            let (target_crate, target_reads, path) = match (lib, named.path.first()) {
                (Some(l), Some(first)) if first == "hazmat_checker" => {
                    (l, &lib_reads, named.path[1..].to_vec())
                }
                _ => (krate, &reads, named.path.clone()),
            };
            let Some(target) = resolve(target_crate, target_reads, &path, 0) else {
                continue;
            };
            let to = target_crate.files[&target].clone();
            if to != from {
                out.push(Arrow {
                    from: from.clone(),
                    to,
                    line: named.line,
                });
            }
        }
    }
    out
}

/// Whether `a`'s module contains `b`'s: `engine/enumerate.rs` contains
/// `engine/enumerate/split.rs`, `models/mod.rs` contains `models/cat/eval.rs`.
fn contains(a: &Path, b: &Path) -> bool {
    let stem = if a.file_name().is_some_and(|n| n == "mod.rs") {
        a.parent().map(Path::to_path_buf)
    } else {
        Some(a.with_extension(""))
    };
    let root = a == Path::new("lib.rs") || a == Path::new("main.rs");
    root || stem.is_some_and(|s| b.starts_with(&s) && b != a)
}

/// The circles among `files`: strongly connected components of two files or more.
fn circles(files: &BTreeSet<PathBuf>, edges: &BTreeSet<(PathBuf, PathBuf)>) -> Vec<Vec<PathBuf>> {
    let nodes: Vec<&PathBuf> = files.iter().collect();
    let index: HashMap<&PathBuf, usize> = nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let mut next = vec![Vec::new(); nodes.len()];
    for (a, b) in edges {
        next[index[a]].push(index[b]);
    }
    // Tarjan's algorithm, iteratively.
    let n = nodes.len();
    let (mut idx, mut low, mut on) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut counter, mut out) = (Vec::new(), 0, Vec::new());
    for s in 0..n {
        if idx[s] != usize::MAX {
            continue;
        }
        let mut work = vec![(s, 0usize)];
        while let Some(&mut (v, ref mut k)) = work.last_mut() {
            if *k == 0 && idx[v] == usize::MAX {
                idx[v] = counter;
                low[v] = counter;
                counter += 1;
                stack.push(v);
                on[v] = true;
            }
            if let Some(&w) = next[v].get(*k) {
                *k += 1;
                if idx[w] == usize::MAX {
                    work.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(idx[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(u, _)) = work.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == idx[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    component.push(nodes[w].clone());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    out.push(component);
                }
            }
        }
    }
    out.sort();
    out
}

/// The floors and accepted circles ARCHITECTURE.md states.
struct Stated {
    floors: Vec<String>,
    circles: Vec<Vec<PathBuf>>,
}

fn stated(architecture: &str) -> Stated {
    let mut floors = Vec::new();
    let mut circles = Vec::new();
    for line in architecture.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("layers:") {
            floors = rest.split('<').map(|f| f.trim().to_string()).collect();
        } else if let Some(rest) = line.strip_prefix("circle:") {
            let mut c: Vec<PathBuf> = rest.split_whitespace().map(PathBuf::from).collect();
            c.sort();
            circles.push(c);
        }
    }
    Stated { floors, circles }
}

/// The floor of a file of `checker/src`: its first component (`engine`, `lib.rs`).
fn floor_of(file: &Path, floors: &[String]) -> Option<usize> {
    let first = file.components().next()?.as_os_str().to_str()?;
    floors.iter().position(|f| f == first)
}

/// Every violation: upward arrows of the checker and circles not stated.
fn violations(root: &Path, architecture: &str) -> Vec<String> {
    let stated = stated(architecture);
    assert!(
        stated.floors.len() > 3,
        "ARCHITECTURE.md states no `layers:` line"
    );
    let mut found = Vec::new();
    let checker = root.join("checker/src");
    let lib = crate_files(&checker, "lib", &["main.rs", "cli"]);
    let bin = crate_files(&checker, "main", &["lib.rs"]);
    let bin = Crate {
        files: bin
            .files
            .into_iter()
            .filter(|(m, _)| m.is_empty() || m.first().is_some_and(|f| f == "cli"))
            .collect(),
    };
    let mut all = arrows(&checker, &lib, None);
    all.extend(arrows(&checker, &bin, Some(&lib)));
    for a in &all {
        let (Some(from), Some(to)) = (
            floor_of(&a.from, &stated.floors),
            floor_of(&a.to, &stated.floors),
        ) else {
            found.push(format!(
                "checker/src/{}: on no floor of ARCHITECTURE.md's `layers:` line (or {} is not)",
                a.from.display(),
                a.to.display()
            ));
            continue;
        };
        if to > from {
            found.push(format!(
                "checker/src/{}:{}: names checker/src/{}, on a higher floor ({} above {})",
                a.from.display(),
                a.line,
                a.to.display(),
                stated.floors[to],
                stated.floors[from]
            ));
        }
    }
    let mut places: Vec<(String, &Crate, Vec<Arrow>)> = vec![(
        "checker/src".into(),
        &lib,
        all.into_iter()
            .filter(|a| {
                lib.files.values().any(|f| *f == a.from) && lib.files.values().any(|f| *f == a.to)
            })
            .collect(),
    )];
    let litmus_src = root.join("litmus/src");
    let litmus = crate_files(&litmus_src, "lib", &[]);
    let litmus_arrows = arrows(&litmus_src, &litmus, None);
    places.push(("litmus/src".into(), &litmus, litmus_arrows));
    for (prefix, krate, arrows) in &places {
        let files: BTreeSet<PathBuf> = krate.files.values().cloned().collect();
        let edges: BTreeSet<(PathBuf, PathBuf)> = arrows
            .iter()
            .filter(|a| !contains(&a.to, &a.from))
            .map(|a| (a.from.clone(), a.to.clone()))
            .collect();
        let found_circles = circles(&files, &edges);
        for stated_circle in &stated.circles {
            if stated_circle.first().is_some_and(|f| f.starts_with(prefix))
                && !found_circles.iter().any(|c| {
                    c.iter()
                        .map(|f| Path::new(prefix).join(f))
                        .eq(stated_circle.iter().cloned())
                })
            {
                let shown: Vec<String> = stated_circle
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect();
                found.push(format!(
                    "ARCHITECTURE.md lists a circle that is gone: {}",
                    shown.join(" ")
                ));
            }
        }
        for circle in found_circles {
            let named: Vec<PathBuf> = circle.iter().map(|f| Path::new(prefix).join(f)).collect();
            if !stated.circles.contains(&named) {
                let shown: Vec<String> = named.iter().map(|p| p.display().to_string()).collect();
                found.push(format!(
                    "a circle of files ARCHITECTURE.md does not list: {}",
                    shown.join(" ")
                ));
            }
        }
    }
    found
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

#[test]
fn the_checker_is_layered_as_architecture_md_states() {
    let root = repo_root();
    let architecture =
        std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let found = violations(&root, &architecture);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The longest a file of `checker/src` or `litmus/src` may be, its unit tests aside: a
/// file a newcomer can hold in their head.
const MAX_LINES: usize = 1500;

/// The files of `dir` and below longer than [`MAX_LINES`], counting the lines before a
/// file's `#[cfg(test)]` module, each with its count.
fn long_files(dir: &Path) -> Vec<(PathBuf, usize)> {
    let mut long = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("a directory").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).expect("the file");
                let lines = text
                    .lines()
                    .take_while(|l| l.trim() != "#[cfg(test)]")
                    .count();
                if lines > MAX_LINES {
                    long.push((p, lines));
                }
            }
        }
    }
    long.sort();
    long
}

#[test]
fn no_file_is_longer_than_a_newcomer_can_hold() {
    let root = repo_root();
    let mut long = Vec::new();
    for part in ["checker/src", "litmus/src"] {
        long.extend(long_files(&root.join(part)));
    }
    let told: Vec<String> = long
        .iter()
        .map(|(p, n)| {
            let rel = p.strip_prefix(&root).unwrap_or(p);
            format!(
                "{}: {n} lines before its tests, over {MAX_LINES}: split it along its seams",
                rel.display()
            )
        })
        .collect();
    assert!(told.is_empty(), "{}", told.join("\n"));
    // The count can fail: a file one line over the limit is caught.
    let copy = scratch::folder("long");
    let text = "// a line\n".repeat(MAX_LINES + 1) + "#[cfg(test)]\nmod tests {}\n";
    std::fs::write(copy.join("long.rs"), text).expect("written");
    let found = long_files(&copy);
    let _ = std::fs::remove_dir_all(&copy);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].1, MAX_LINES + 1);
}

/// The test can fail: a copy of the sources with one upward import, one with a circle of
/// sibling files, and a listed circle the code no longer has are each caught.
#[test]
fn an_upward_import_and_a_new_circle_are_caught() {
    let root = repo_root();
    let architecture =
        std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let copy = scratch::folder("layering");
    for part in ["checker/src", "litmus/src"] {
        copy_dir(&root.join(part), &copy.join(part));
    }
    let append = |file: &str, text: &str| {
        let path = copy.join(file);
        let mut old = std::fs::read_to_string(&path).expect("the file");
        old.push_str(text);
        std::fs::write(&path, old).expect("written");
    };
    // The execution data naming the engine: an arrow up from the lowest floor.
    append(
        "checker/src/exec/event.rs",
        "\nfn _up() -> Option<crate::engine::enumerate::Limits> { None }\n",
    );
    let found = violations(&copy, &architecture);
    assert!(
        found
            .iter()
            .any(|v| v.starts_with("checker/src/exec/event.rs:")
                && v.contains("names checker/src/engine/enumerate.rs, on a higher floor")),
        "{found:?}"
    );
    // Two siblings naming each other.
    std::fs::write(
        copy.join("checker/src/exec/event.rs"),
        std::fs::read_to_string(root.join("checker/src/exec/event.rs")).expect("the file"),
    )
    .expect("restored");
    append(
        "checker/src/exec/event.rs",
        "\nuse crate::exec::witness::Violation as _V;\n",
    );
    let found = violations(&copy, &architecture);
    assert!(
        found.iter().any(|v| v.contains("circle")
            && v.contains("checker/src/exec/event.rs")
            && v.contains("checker/src/exec/witness.rs")),
        "{found:?}"
    );
    // A circle listed that the code no longer has.
    let stale =
        format!("{architecture}\ncircle: checker/src/exec/event.rs checker/src/exec/relation.rs\n");
    let found = violations(&root, &stale);
    assert!(
        found
            .iter()
            .any(|v| v.starts_with("ARCHITECTURE.md lists a circle that is gone")),
        "{found:?}"
    );
    let _ = std::fs::remove_dir_all(&copy);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a directory");
    for e in std::fs::read_dir(from).expect("a directory").flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).expect("copied");
        }
    }
}
