//! Families of litmus tests that grow with one number, for the growth benchmark
//! (`checker/examples/growth.rs`) and for anyone who wants to see how a decider scales.
//!
//! Each generator returns the text of a herd7 C litmus test, so the same file can be
//! given to hazmat and to herd7:
//!
//! - [`value_chain`]: Dartagnan's value-passing chain: thread 0 writes `x0 = 1`, thread
//!   `i + 1` reads `x_i` and writes the value it read to `x_{i+1}` (the last one to `y`),
//!   and the condition asks `exists (y=1)`. Every read has two writes to read from and
//!   every combination is allowed, so there are `2^(n+1)` candidates but two final states.
//! - [`rw_chain`] and [`rr_chain`]: release-acquire chains of the shape of the
//!   `C-RW-*+CK` tests in Paul McKenney's litmus collection: thread 0 accesses `y` and
//!   releases `x1`, each middle thread acquires `x_i` and releases `x_{i+1}`, and the last
//!   acquires the chain's end, issues `smp_mb()` and writes `y` (RW: a read-to-write cycle
//!   through `y`) or reads it (RR: thread 0 writes `y`, the last thread reads it).
//!   Both are forbidden (`Never`), so deciding them needs a proof that no execution
//!   satisfies the condition.
//! - [`treiber_push`]: `n` threads each push one node on a Treiber stack: read the top,
//!   link the node to it, and `cmpxchg_release` the top from the value read to the node;
//!   the condition asks for the stack built in thread order with every link intact.

use std::fmt::Write as _;

/// The families [`family`] knows, by name.
pub const FAMILIES: &[&str] = &["value-chain", "rw-chain", "rr-chain", "treiber-push"];

/// The test of family `name` at size `n`, if there is such a family and `n` is a size it
/// has (see [`smallest`]).
pub fn family(name: &str, n: usize) -> Option<String> {
    if n < smallest(name)? {
        return None;
    }
    Some(match name {
        "value-chain" => value_chain(n),
        "rw-chain" => rw_chain(n),
        "rr-chain" => rr_chain(n),
        "treiber-push" => treiber_push(n),
        _ => return None,
    })
}

/// The smallest size of family `name`.
pub fn smallest(name: &str) -> Option<usize> {
    match name {
        "value-chain" => Some(0),
        "rw-chain" | "rr-chain" => Some(2),
        "treiber-push" => Some(1),
        _ => None,
    }
}

/// The value-passing chain of `n + 1` links: `n + 2` threads, `n + 2` locations.
pub fn value_chain(n: usize) -> String {
    let mut s =
        format!("C value-chain-{n}\n\n{{\n}}\n\nP0(int *x0)\n{{\n\tWRITE_ONCE(*x0, 1);\n}}\n");
    for i in 0..=n {
        let to = if i == n {
            "y".to_string()
        } else {
            format!("x{}", i + 1)
        };
        let _ = write!(
            s,
            "\nP{}(int *x{i}, int *{to})\n{{\n\tint r0;\n\n\tr0 = READ_ONCE(*x{i});\n\tWRITE_ONCE(*{to}, r0);\n}}\n",
            i + 1
        );
    }
    s.push_str("\nexists (y=1)\n");
    s
}

/// The RW release-acquire chain of `n` threads (`n >= 2`).
pub fn rw_chain(n: usize) -> String {
    chain("rw-chain", n, true)
}

/// The RR release-acquire chain of `n` threads (`n >= 2`).
pub fn rr_chain(n: usize) -> String {
    chain("rr-chain", n, false)
}

fn chain(name: &str, n: usize, rw: bool) -> String {
    let n = n.max(2);
    let last = n - 1;
    let mut s = format!("C {name}-{n}\n\n{{\n}}\n\n");
    let first = if rw {
        "\tint r0;\n\n\tr0 = READ_ONCE(*y);\n"
    } else {
        "\tWRITE_ONCE(*y, 1);\n"
    };
    let _ = write!(
        s,
        "P0(int *y, int *x1)\n{{\n{first}\tsmp_store_release(x1, 1);\n}}\n"
    );
    for i in 1..last {
        let _ = write!(
            s,
            "\nP{i}(int *x{i}, int *x{j})\n{{\n\tint r1;\n\n\tr1 = smp_load_acquire(x{i});\n\tsmp_store_release(x{j}, 1);\n}}\n",
            j = i + 1
        );
    }
    let end = if rw {
        "\tWRITE_ONCE(*y, 1);\n"
    } else {
        "\tr2 = READ_ONCE(*y);\n"
    };
    let decl = if rw { "int r1;" } else { "int r1;\n\tint r2;" };
    let _ = write!(
        s,
        "\nP{last}(int *x{last}, int *y)\n{{\n\t{decl}\n\n\tr1 = READ_ONCE(*x{last});\n\tsmp_mb();\n{end}}}\n"
    );
    let mut terms: Vec<String> = (1..=last).map(|i| format!("{i}:r1=1")).collect();
    if rw {
        terms.insert(0, "0:r0=1".to_string());
    } else {
        terms.push(format!("{last}:r2=0"));
    }
    let _ = writeln!(s, "\nexists ({})", terms.join(" /\\ "));
    s
}

/// `n` threads (`n >= 1`) each pushing one node on a Treiber stack.
pub fn treiber_push(n: usize) -> String {
    let n = n.max(1);
    let mut s = format!("C treiber-push-{n}\n\n{{\n}}\n");
    for i in 0..n {
        let node = i + 1;
        let _ = write!(
            s,
            "\nP{i}(int *top, int *next{node})\n{{\n\tint r0;\n\tint r1;\n\n\tr0 = READ_ONCE(*top);\n\tWRITE_ONCE(*next{node}, r0);\n\tr1 = cmpxchg_release(top, r0, {node});\n}}\n"
        );
    }
    let mut terms = vec![format!("top={n}")];
    terms.extend((1..=n).map(|node| format!("next{node}={}", node - 1)));
    let _ = writeln!(s, "\nexists ({})", terms.join(" /\\ "));
    s
}

/// A family's test decided under the LKMM, fully or with `--speedcheck`, for tests.
#[cfg(test)]
pub(crate) fn decide(source: &str, speedcheck: bool) -> crate::Checked {
    let options = crate::engine::outcome::Options {
        speedcheck,
        ..crate::engine::outcome::Options::default()
    };
    crate::check_source(source, &crate::models::lkmm::Lkmm, &options).expect("decided")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::outcome::Verdict;

    #[test]
    fn every_family_gives_tests_hazmat_decides_as_its_shape_says() {
        let chain = decide(&value_chain(3), false);
        assert_eq!(chain.program.threads.len(), 5);
        assert_eq!(chain.outcome.verdict(), Verdict::Sometimes);
        assert_eq!(chain.outcome.states.len(), 2);
        assert_eq!(chain.outcome.positive + chain.outcome.negative, 1 << 4);
        assert_eq!(chain.outcome.positive, 1);
        for n in [2, 3, 5] {
            for source in [rw_chain(n), rr_chain(n)] {
                let c = decide(&source, false);
                assert_eq!(c.program.threads.len(), n);
                assert_eq!(c.outcome.verdict(), Verdict::Never, "{source}");
            }
        }
        let push = decide(&treiber_push(3), false);
        assert_eq!(push.outcome.verdict(), Verdict::Sometimes);
        assert_eq!(push.outcome.positive, 1);
    }

    #[test]
    fn a_family_is_known_by_name_from_its_smallest_size() {
        for name in FAMILIES {
            let n = smallest(name).expect("a size");
            assert!(family(name, n).is_some(), "{name}");
            if n > 0 {
                assert!(family(name, n - 1).is_none(), "{name}");
            }
        }
        assert!(family("no-such-family", 3).is_none());
    }
}
