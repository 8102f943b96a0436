//! Traces and explanations: snapshots of the text a person reads, well-formed and
//! deterministic SVG, an explanation for every `Never` test of the corpus, and the witness
//! terms of each model checked against the model itself on every candidate.
//!
//! Refresh the snapshots with `UPDATE_EXPECT=1 cargo test -p hazmat-checker --test traces`.

#[path = "common/scratch.rs"]
mod scratch;
use expect_test::expect_file;
use hazmat_checker::engine::enumerate::{Flow, Limits, enumerate};
use hazmat_checker::exec::execution::{AnyExecution, Execution};
use hazmat_checker::exec::relation::Width;
use hazmat_checker::exec::witness::CheckKind;
use hazmat_checker::explain_source;
use hazmat_checker::front::lower::lower;
use hazmat_checker::front::program::{Program, Prop, Quantifier};
use hazmat_checker::model;
use hazmat_checker::models::lkmm::terms::Terms;
use hazmat_checker::models::lkmm::{Dynamic, Fixed, Sets};
use hazmat_checker::models::model::{self as memory_model, MemoryModel};
use hazmat_checker::report::expected;
use hazmat_checker::report::explain::{AllCandidates, Answer, explain};
use hazmat_checker::report::graph::EdgeKind;
use hazmat_checker::report::trace::{self, Format, Show};
use hazmat_checker::testkit::generate::families;
use hazmat_checker::testkit::harness::litmus_files;
use hazmat_litmus::ast::Outcome;
use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../litmus/tests")
}

fn program(path: &Path) -> (hazmat_litmus::Test, Program) {
    let source = std::fs::read_to_string(path).expect("readable litmus file");
    let test = hazmat_litmus::parse(&source).expect("a valid litmus test");
    let program = lower(&test).expect("a test hazmat can run");
    (test, program)
}

/// The drawings of every execution `show` selects, in `format`.
fn drawings(rel: &str, model_name: &str, show: Show, format: Format) -> String {
    let (_, p) = program(&corpus().join(rel));
    let m = model(model_name).expect("a model");
    let trace::Selected { shown, total, .. } =
        trace::executions(&p, m.as_ref(), show, 10, &Limits::default()).expect("runs");
    let mut out = String::new();
    for (i, x) in shown.iter().enumerate() {
        let title = format!(
            "{}: {} {} of {total} under {model_name}",
            p.name,
            show.noun(x.satisfies),
            i + 1
        );
        out.push_str(&format.render(&trace::graph(&p, x, title, &[])));
        out.push('\n');
    }
    out
}

fn explained(rel: &str, model_name: &str) -> String {
    let source = std::fs::read_to_string(corpus().join(rel)).expect("readable");
    let m = model(model_name).expect("a model");
    explain_source(&source, None, m.as_ref(), &Limits::default())
        .expect("explains")
        .text
}

/// One snapshot per test: the witnesses under the LKMM, then the explanations.
fn snapshot(rel: &str, models: &[&str]) -> String {
    let mut s = format!("$ hazmat check --show witness {rel}\n\n");
    s.push_str(&drawings(rel, "lkmm", Show::Witness, Format::Text));
    for m in models {
        s.push_str(&format!("$ hazmat explain --model {m} {rel}\n\n"));
        s.push_str(&explained(rel, m));
        s.push('\n');
    }
    s
}

#[test]
fn mp_trace_and_explanation() {
    expect_file!["snapshots/MP.txt"].assert_eq(&snapshot("classic/MP.litmus", &["lkmm", "sc"]));
}

#[test]
fn mp_with_fences_is_forbidden_by_a_happens_before_cycle() {
    expect_file!["snapshots/MP+wmb+rmb.txt"]
        .assert_eq(&snapshot("classic/MP+wmb+rmb.litmus", &["lkmm", "tso"]));
}

#[test]
fn sb_trace_and_explanation() {
    expect_file!["snapshots/SB.txt"].assert_eq(&snapshot("classic/SB.litmus", &["lkmm", "sc"]));
}

#[test]
fn lb_trace_and_explanation() {
    expect_file!["snapshots/LB.txt"].assert_eq(&snapshot("classic/LB.litmus", &["lkmm", "tso"]));
}

#[test]
fn rcu_mp_is_forbidden_by_the_rcu_check() {
    expect_file!["snapshots/RCU-MP.txt"]
        .assert_eq(&snapshot("traces/RCU-MP.litmus", &["lkmm", "sc"]));
}

#[test]
fn a_filter_that_removes_everything_leaves_no_candidate() {
    let text = explained("traces/Filter-removes-all.litmus", "lkmm");
    assert!(
        text.contains("the test has no candidate execution at all"),
        "{text}"
    );
}

/// When every read of a test goes to an address that is no location, `explain` says so,
/// and its warning points to the access: no deadlock, no filter.
#[test]
fn reads_at_no_location_are_the_reason_named_when_nothing_is_left() {
    let source = "C star\n{}\nP0(int *ready) { smp_store_release(ready, 1); }\n\
                  P1(int *ready) { int r0; r0 = smp_load_acquire(*ready); }\nexists (1:r0=1)\n";
    let m = model("lkmm").expect("a model");
    let explained = explain_source(source, None, m.as_ref(), &Limits::default()).expect("explains");
    assert!(
        explained.text.contains(
            "no candidate execution at all: its reads at an address that is no location find no \
             write"
        ),
        "{}",
        explained.text
    );
    assert!(!explained.text.contains("deadlock"), "{}", explained.text);
    let warnings: Vec<String> = explained
        .warnings
        .iter()
        .map(|w| w.render("star.litmus", source))
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with("star.litmus:4:31: warning: in every execution, this access reads"),
        "{warnings:?}"
    );
}

#[test]
fn dot_output() {
    expect_file!["snapshots/MP.dot"].assert_eq(&drawings(
        "classic/MP.litmus",
        "lkmm",
        Show::Witness,
        Format::Dot,
    ));
}

#[test]
fn explain_with_a_given_state() {
    let source = std::fs::read_to_string(corpus().join("classic/SB+mbs.litmus")).expect("read");
    let m = model("lkmm").expect("lkmm");
    let limits = Limits::default();
    let text = explain_source(&source, Some("0:r0=1 /\\ 1:r0=1"), m.as_ref(), &limits)
        .expect("explains")
        .text;
    assert!(text.contains("State 0:r0=1 /\\ 1:r0=1"), "{text}");
    assert!(text.contains("Allowed:"), "{text}");
    let err = explain_source(&source, Some("0:r0=1 /\\"), m.as_ref(), &limits)
        .expect_err("not a proposition");
    let shown = err.render("SB+mbs.litmus");
    assert!(shown.starts_with("--state:1:"), "{shown}");
    let err = explain_source(&source, Some("0:r0=1 /\\ 1:r9=0"), m.as_ref(), &limits)
        .expect_err("no such register");
    assert_eq!(
        err.render("SB+mbs.litmus"),
        "--state:1:11: error: the test has no `1:r9`"
    );
    let err =
        explain_source(&source, Some("zz=1"), m.as_ref(), &limits).expect_err("no such location");
    assert_eq!(
        err.render("SB+mbs.litmus"),
        "--state:1:1: error: the test has no `zz`"
    );
}

/// A minimal XML well-formedness check: balanced, properly nested tags, quoted
/// attributes, known entities, one root element.
fn well_formed(xml: &str) -> Result<(), String> {
    let mut stack: Vec<&str> = Vec::new();
    let mut roots = 0;
    let mut rest = xml.trim();
    while !rest.is_empty() {
        if let Some(tag) = rest.strip_prefix('<') {
            let end = tag.find('>').ok_or("unclosed tag")?;
            let inner = &tag[..end];
            rest = &tag[end + 1..];
            if let Some(name) = inner.strip_prefix('/') {
                let open = stack.pop().ok_or("close without open")?;
                if open != name.trim() {
                    return Err(format!("</{name}> closes <{open}>"));
                }
                continue;
            }
            let self_closing = inner.ends_with('/');
            let body = inner.trim_end_matches('/');
            let name = body.split_whitespace().next().ok_or("empty tag")?;
            if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
                return Err(format!("bad tag name {name:?}"));
            }
            // Attributes: name="value" pairs.
            let mut attrs = body[name.len()..].trim();
            while !attrs.is_empty() {
                let eq = attrs
                    .find('=')
                    .ok_or(format!("attribute without value in <{name}>"))?;
                let value = attrs[eq + 1..]
                    .strip_prefix('"')
                    .ok_or(format!("unquoted attribute in <{name}>"))?;
                let close = value.find('"').ok_or("unterminated attribute")?;
                if value[..close].contains('<') {
                    return Err("`<` in an attribute".into());
                }
                attrs = value[close + 1..].trim_start();
            }
            if stack.is_empty() {
                roots += 1;
            }
            if !self_closing {
                stack.push(name);
            }
        } else {
            let end = rest.find('<').unwrap_or(rest.len());
            let text = &rest[..end];
            for (i, _) in text.match_indices('&') {
                let entity = &text[i..];
                if !["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
                    .iter()
                    .any(|e| entity.starts_with(e))
                {
                    return Err(format!("bad entity near {entity:?}"));
                }
            }
            if stack.is_empty() && !text.trim().is_empty() {
                return Err("text outside the root".into());
            }
            rest = &rest[end..];
        }
    }
    if !stack.is_empty() {
        return Err(format!("unclosed <{}>", stack.join("> <")));
    }
    if roots != 1 {
        return Err(format!("{roots} root elements"));
    }
    Ok(())
}

#[test]
fn the_xml_check_rejects_broken_documents() {
    assert!(well_formed("<svg><g></svg>").is_err());
    assert!(well_formed("<svg a=1/>").is_err());
    assert!(well_formed("<svg>a & b</svg>").is_err());
    assert!(well_formed("<svg/><svg/>").is_err());
    assert!(well_formed("<svg><text x=\"1\">a &amp; b</text></svg>").is_ok());
}

#[test]
fn svg_is_well_formed_and_identical_across_runs() {
    let mut drawn = 0;
    for file in litmus_files(corpus().join("classic"))
        .into_iter()
        .chain(litmus_files(corpus().join("traces")))
    {
        let rel = file
            .strip_prefix(corpus())
            .expect("under the corpus")
            .display()
            .to_string();
        let first = drawings(&rel, "lkmm", Show::All, Format::Svg);
        let second = drawings(&rel, "lkmm", Show::All, Format::Svg);
        assert_eq!(first, second, "{rel}: SVG differs between runs");
        for doc in first.split("</svg>\n").filter(|d| !d.trim().is_empty()) {
            let doc = format!("{doc}</svg>");
            if let Err(e) = well_formed(&doc) {
                panic!("{rel}: malformed SVG: {e}\n{doc}");
            }
            drawn += 1;
        }
    }
    assert!(drawn > 30, "only {drawn} drawings");
}

/// The numbers after `key=\"` in `line`.
fn attribute(line: &str, key: &str) -> Option<f64> {
    let rest = &line[line.find(&format!(" {key}=\""))? + key.len() + 3..];
    rest[..rest.find('"')?].parse().ok()
}

/// The edge labels of an SVG drawing that cross their own edge: each curve (`<path d="M p Q
/// c q"`) and, in the same order, its label (a `<text>` of size 12 with a white halo), whose box is
/// `LABEL_CHAR_W` a character wide and `2 * LABEL_HALF_H` high around the point
/// `LABEL_BASELINE` above its baseline.
fn labels_on_their_edges(doc: &str) -> Vec<String> {
    use hazmat_checker::report::svg::{LABEL_BASELINE, LABEL_CHAR_W, LABEL_HALF_H};
    let curves: Vec<Vec<f64>> = doc
        .lines()
        .filter_map(|l| l.strip_prefix("<path d=\"M "))
        .map(|l| {
            l[..l.find('"').unwrap_or(0)]
                .split(' ')
                .filter(|w| *w != "Q")
                .filter_map(|w| w.parse().ok())
                .collect()
        })
        .collect();
    let labels: Vec<(f64, f64, String)> = doc
        .lines()
        .filter(|l| l.starts_with("<text") && l.contains("paint-order=\"stroke\" font-size=\"12\""))
        .filter_map(|l| {
            let text = &l[l.find('>')? + 1..l.rfind("</text>")?];
            let text = text
                .replace("&gt;", ">")
                .replace("&lt;", "<")
                .replace("&amp;", "&");
            Some((attribute(l, "x")?, attribute(l, "y")?, text))
        })
        .collect();
    assert_eq!(curves.len(), labels.len(), "one label per curve:\n{doc}");
    let mut crossed = Vec::new();
    for (c, (x, y, text)) in curves.iter().zip(&labels) {
        let [px, py, cx, cy, qx, qy] = c[..] else {
            panic!("a quadratic curve: {c:?}");
        };
        let (hw, cy0) = (
            text.chars().count() as f64 * LABEL_CHAR_W / 2.0,
            y - LABEL_BASELINE,
        );
        let inside = (0..=100).any(|i| {
            let t = f64::from(i) / 100.0;
            let (u, v, w) = ((1.0 - t) * (1.0 - t), 2.0 * t * (1.0 - t), t * t);
            let (bx, by) = (u * px + v * cx + w * qx, u * py + v * cy + w * qy);
            (bx - x).abs() < hw && (by - cy0).abs() < LABEL_HALF_H
        });
        if inside {
            crossed.push(text.clone());
        }
    }
    crossed
}

/// No edge label of the drawings of the corpus (`rcu-rscs^-1`, `rf`, `rfe` among them)
/// sits on its own edge.
#[test]
fn svg_edge_labels_stand_clear_of_their_edges() {
    let mut labels = 0;
    for (dir, name) in [("classic", "lkmm"), ("traces", "lkmm"), ("c11", "rc11")] {
        let m = model(name).expect("a model");
        for file in litmus_files(corpus().join(dir)) {
            let source = std::fs::read_to_string(&file).expect("readable litmus file");
            let test = hazmat_litmus::parse(&source).expect("a valid litmus test");
            let (p, _) = hazmat_checker::front::lower::lower_with_warnings(&test, m.dialect())
                .expect("a test hazmat can run");
            let shown = trace::executions(&p, m.as_ref(), Show::All, 4, &Limits::default())
                .expect("runs")
                .shown;
            for x in &shown {
                // Every relation the model draws, on top of rf, co and fr.
                let names: Vec<String> = m
                    .relations(&x.execution)
                    .iter()
                    .map(|(n, _)| n.to_string())
                    .collect();
                let extra = trace::select_relations(m.as_ref(), &x.execution, &names)
                    .expect("the model's relations");
                let doc = Format::Svg.render(&trace::graph(&p, x, p.name.clone(), &extra));
                labels += doc.matches("font-size=\"12\"").count();
                let crossed = labels_on_their_edges(&doc);
                assert!(
                    crossed.is_empty(),
                    "{}: {crossed:?} on their edges\n{doc}",
                    file.display()
                );
            }
        }
    }
    assert!(labels > 100, "only {labels} labels");
}

/// The proposition whose states a `Never` expectation says no execution reaches.
fn forbidden_state(p: &Program) -> Prop {
    match p.condition.quantifier {
        Quantifier::Forall => Prop::Not(Box::new(p.condition.prop.clone())),
        _ => p.condition.prop.clone(),
    }
}

#[test]
fn every_never_test_is_explained_by_a_check_and_a_cycle() {
    let mut explained = 0;
    let mut without_candidates = Vec::new();
    for file in litmus_files(corpus()) {
        let source = std::fs::read_to_string(&file).expect("readable litmus file");
        let test = hazmat_litmus::parse(&source).expect("a valid litmus test");
        for name in hazmat_checker::MODELS {
            let Some(e) = expected::expectation(&test, name) else {
                continue;
            };
            if !matches!(e.outcome, Some(Outcome::Never | Outcome::Deadlock)) {
                continue;
            }
            let m = model(name).expect("a model");
            // Each model reads the test in its own dialect (a C11 test under RC11).
            // As `hazmat explain` reads it: herd7's locations next to a variable added.
            let (_, p, _) =
                hazmat_checker::parse_and_lower(&source, m.dialect(), None, Default::default())
                    .expect("a test hazmat can run");
            let state = forbidden_state(&p);
            let answer = explain(&p, m.as_ref(), &state, &Limits::default()).expect("runs");
            let what = format!("{} under {name}", file.display());
            match answer {
                Answer::Allowed(_) => panic!("{what}: expected Never, explain found a witness"),
                Answer::Forbidden(groups) => {
                    for g in groups {
                        let v = g
                            .violation
                            .unwrap_or_else(|| panic!("{what}: {} is not explained", g.check));
                        assert_eq!(v.check, g.check, "{what}");
                        if v.kind == CheckKind::Paths {
                            continue;
                        }
                        assert!(!v.cycle.is_empty(), "{what}: empty cycle");
                        for w in v.cycle.windows(2) {
                            assert_eq!(w[0].to, w[1].from, "{what}: broken cycle");
                        }
                        let (first, last) = (&v.cycle[0], &v.cycle[v.cycle.len() - 1]);
                        assert_eq!(first.from, last.to, "{what}: the cycle does not close");
                        explained += 1;
                    }
                }
                Answer::NoCandidate { .. } => without_candidates.push(what),
            }
        }
    }
    assert!(explained >= 30, "only {explained} groups explained");
    // Some states no candidate reaches: the filter removes every execution, a thread's
    // writes against program order in coherence, values out of thin air, and a write
    // between the halves of a read-modify-write (judged under the LKMM only).
    for (known, models) in [
        ("CoWW.litmus", 3),
        ("LB+datas.litmus", 3),
        ("Filter-removes-all.litmus", 3),
        ("Atomic+xchg+xchg.litmus", 1),
    ] {
        let under = without_candidates
            .iter()
            .filter(|w| w.contains(&format!("/{known} under")))
            .count();
        assert_eq!(under, models, "{known}: {without_candidates:#?}");
    }
}

#[test]
fn a_state_no_candidate_reaches_says_so() {
    let text = explained("classic/CoWW.litmus", "lkmm");
    assert!(
        text.contains("no candidate execution reaches this state"),
        "{text}"
    );
}

/// Every litmus file of the project, and the smaller conformance folders when present.
fn term_corpus() -> Vec<PathBuf> {
    let mut files = litmus_files(corpus());
    let shared = std::env::var_os("HAZMAT_CONFORMANCE")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance"));
    for folder in ["kernel-doc", "tools-memory-model", "herdtools-catalogue"] {
        files.extend(litmus_files(shared.join(folder)));
    }
    files
}

#[test]
fn witness_terms_agree_with_the_models() {
    let lkmm = model("lkmm").expect("lkmm");
    let others = [model("sc").expect("sc"), model("tso").expect("tso")];
    let limits = Limits {
        // Enough to see every shape of a small test, few enough to stay fast on big ones.
        max_executions: Some(400),
        deadline: None,
        ..Default::default()
    };
    let mut candidates = 0u64;
    for file in term_corpus() {
        let Ok(source) = std::fs::read_to_string(&file) else {
            continue;
        };
        let Ok(test) = hazmat_litmus::parse(&source) else {
            continue;
        };
        let Ok(p) = lower(&test) else {
            continue;
        };
        let what = file.display().to_string();
        let _ = enumerate(&p, &AllCandidates, &limits, None, &mut |x| {
            let x = x
                .execution()
                .expect("no symmetry: every execution is built");
            candidates += 1;
            terms_agree(&x, &what);
            let models = std::iter::once(&lkmm).chain(&others);
            explanations_agree(models.map(|m| m.as_ref()), &x, &what);
            Flow::Continue
        });
    }
    // The project's own corpus alone has some 180.
    assert!(candidates > 100, "only {candidates} candidates");
}

/// The LKMM's witness terms denote the relations the model computes, on `x`.
fn terms_agree<W: Width>(x: &Execution<W>, what: &str) {
    let s = Sets::new(x);
    let f = Fixed::new(x, &s);
    let t = Terms::new(x, &s, &f);
    if let Ok(d) = Dynamic::new(x, &s, &f) {
        assert_eq!(t.ppo.relation(), &d.ppo, "{what}: ppo");
        assert_eq!(t.prop.relation(), &d.prop, "{what}: prop");
        assert_eq!(t.hb.relation(), &d.hb, "{what}: hb");
        assert_eq!(t.pb.relation(), &d.pb, "{what}: pb");
        assert_eq!(t.rb.relation(), &d.rb, "{what}: rb");
    }
}

/// Each model explains `x` by the check it rejects it with, if any.
fn explanations_agree<'m>(
    models: impl Iterator<Item = &'m dyn MemoryModel>,
    x: &AnyExecution,
    what: &str,
) {
    for m in models {
        let judged = memory_model::judge(m, x).rejected_by;
        let explained = m.explain(x).map(|v| v.check);
        assert_eq!(judged, explained, "{what} under {}", m.name());
    }
}

/// RC11's explanations (its `hb` and `eco` shown as their steps) name the check that
/// rejects each candidate of the project's C11 tests, and no other.
#[test]
fn rc11_witness_terms_agree_with_the_model() {
    let rc11 = model("rc11").expect("rc11");
    let limits = Limits {
        max_executions: Some(400),
        deadline: None,
        ..Default::default()
    };
    let (mut candidates, mut rejected) = (0u64, 0u64);
    for dir in ["c11", "hazptr-c11"] {
        for file in litmus_files(corpus().join(dir)) {
            let source = std::fs::read_to_string(&file).expect("readable litmus file");
            let test = hazmat_litmus::parse(&source).expect("a valid litmus test");
            let (p, _) = hazmat_checker::front::lower::lower_with_warnings(&test, rc11.dialect())
                .expect("a test hazmat can run");
            let what = file.display().to_string();
            let _ = enumerate(&p, &AllCandidates, &limits, None, &mut |x| {
                let x = x
                    .execution()
                    .expect("no symmetry: every execution is built");
                candidates += 1;
                let judged = memory_model::judge(rc11.as_ref(), &x).rejected_by;
                let explained = rc11.explain(&x).map(|v| v.check);
                rejected += u64::from(judged.is_some());
                assert_eq!(judged, explained, "{what}");
                Flow::Continue
            });
        }
    }
    assert!(
        candidates > 100 && rejected > 20,
        "only {candidates} candidates, {rejected} rejected"
    );
}

/// The pictures of the book's results chapter, regenerated: the MP witness, and the
/// forbidden MP+wmb+rmb candidate with its cycle.
#[test]
fn the_books_pictures_are_current() {
    let witness = drawings("classic/MP.litmus", "lkmm", Show::Witness, Format::Svg);
    // `drawings` ends each drawing with an empty line.
    let witness = format!("{}\n", witness.trim_end());
    expect_file!["../../docs/src/img/MP-witness-1.svg"].assert_eq(&witness);
    let (_, p) = program(&corpus().join("classic/MP+wmb+rmb.litmus"));
    let m = model("lkmm").expect("lkmm");
    let answer = explain(&p, m.as_ref(), &p.condition.prop, &Limits::default()).expect("runs");
    let graphs = hazmat_checker::report::explain::graphs(&p, "lkmm", &answer);
    let (_, g) = graphs.first().expect("one group");
    expect_file!["../../docs/src/img/MP+wmb+rmb-rejected-1.svg"].assert_eq(&Format::Svg.render(g));
}

/// A test whose first thread writes twenty locations before it releases a flag, for the
/// drawing of a long thread.
fn long_thread() -> String {
    let params: Vec<String> = (0..20).map(|i| format!("int *x{i}")).collect();
    let writes: String = (0..20)
        .map(|i| format!("\tWRITE_ONCE(*x{i}, 1);\n"))
        .collect();
    format!(
        "C Long-thread\n\n{{}}\n\nP0({}, int *y)\n{{\n{writes}\tsmp_store_release(y, 1);\n}}\n\n\
         P1(int *x0, int *x19, int *y)\n{{\n\tint r0;\n\tint r1;\n\tint r2;\n\n\
         \tr0 = smp_load_acquire(y);\n\tr1 = READ_ONCE(*x19);\n\tr2 = READ_ONCE(*x0);\n}}\n\n\
         exists (1:r0=1 /\\ 1:r1=0)\n",
        params.join(", ")
    )
}

/// A thread longer than the drawings show whole is shortened: the events no edge but `po`
/// touches are grouped into one box that says how many they are, and the drawing says so.
#[test]
fn a_long_thread_is_drawn_with_its_untouched_events_elided() {
    let source = long_thread();
    let m = model("lkmm").expect("lkmm");
    let explained =
        explain_source(&source, None, m.as_ref(), &Limits::default()).expect("explains");
    let (_, g) = explained.graphs.first().expect("one group");
    let text = Format::Text.render(g);
    expect_file!["snapshots/Long-thread.txt"].assert_eq(&format!("{}\n{text}", explained.text));
    let svg = Format::Svg.render(g);
    assert_eq!(well_formed(&svg), Ok(()));
    assert!(svg.contains("b..s: 18 events elided"), "{svg}");
    assert!(svg.contains("stroke-dasharray=\"4 3\""), "{svg}");
    let dot = Format::Dot.render(g);
    assert!(dot.contains("style=dashed"), "{dot}");
    assert!(dot.contains("elided: 18 events"), "{dot}");
}

/// A final state wider than the drawing is wrapped between its cells, so that the picture
/// keeps the width of its threads.
#[test]
fn a_wide_final_state_is_wrapped_between_its_cells() {
    let locations: String = (0..20).map(|i| format!("x{i}; ")).collect();
    let source = long_thread().replace("exists", &format!("locations [{locations}]\nexists"));
    let m = model("lkmm").expect("lkmm");
    let explained =
        explain_source(&source, None, m.as_ref(), &Limits::default()).expect("explains");
    let (_, g) = explained.graphs.first().expect("one group");
    let svg = Format::Svg.render(g);
    assert_eq!(well_formed(&svg), Ok(()));
    let lines: Vec<&str> = svg
        .lines()
        .filter(|l| l.starts_with("<text") && (l.contains("final state:") || l.contains(">  ")))
        .collect();
    assert!(lines.len() >= 2, "the state is one line:\n{svg}");
    assert!(lines[0].contains("final state: "), "{svg}");
    assert!(lines.iter().any(|l| l.contains("[x19]=1")), "{svg}");
    // Every line of the state fits in the picture's width (7.8 pixels a character).
    let width: f64 = svg
        .split("width=\"")
        .nth(1)
        .and_then(|w| w.split('"').next())
        .and_then(|w| w.parse().ok())
        .expect("a width");
    for l in &lines {
        let text = l
            .split('>')
            .nth(1)
            .and_then(|t| t.split('<').next())
            .unwrap_or("");
        assert!(
            text.chars().count() as f64 * 7.8 <= width,
            "{l} wider than {width}"
        );
    }
    let full = g.state.chars().count() as f64 * 7.8;
    assert!(
        width < full,
        "the picture is as wide as the unwrapped state ({width})"
    );
}

/// Explanations, traces and drawings take executions of any size: a release-acquire chain
/// of 50 threads (151 events, past one word of 128) is forbidden by a cycle through every
/// thread, and the witness of a value-passing chain of 52 threads (155 events) is drawn in
/// bands of at most eight threads.
#[test]
fn explanations_and_drawings_take_executions_past_one_word() {
    let m = model("lkmm").expect("lkmm");
    let limits = Limits::default();
    let rw = families::rw_chain(50);
    let explained = explain_source(&rw, None, m.as_ref(), &limits).expect("explains");
    let text = &explained.text;
    assert!(
        text.contains("Forbidden: no execution lkmm allows reaches this state."),
        "{text}"
    );
    let (_, g) = explained.graphs.first().expect("one group");
    assert_eq!(g.threads.len(), 50);
    let drawn = Format::Text.render(g);
    assert_eq!(g.bands().len(), 7, "{drawn}");
    assert!(
        drawn.lines().all(|l| l.split(" | ").count() <= 8),
        "{drawn}"
    );
    assert_eq!(well_formed(&Format::Svg.render(g)), Ok(()));
    let cycle_threads: std::collections::BTreeSet<usize> = g
        .edges()
        .iter()
        .filter(|(_, e, _)| e.kind == EdgeKind::Model)
        .filter_map(|(a, _, _)| a.thread)
        .collect();
    assert_eq!(
        cycle_threads.len(),
        50,
        "the cycle goes through every thread"
    );

    let (_, p) = program_of(&families::value_chain(50));
    let trace::Selected { shown, total, .. } =
        trace::executions(&p, m.as_ref(), Show::Witness, 1, &limits).expect("runs");
    assert!(total >= 1);
    let x = shown.first().expect("a witness");
    assert_eq!(x.execution.len(), 155);
    let g = trace::graph(&p, x, "value chain".into(), &[]);
    assert_eq!(well_formed(&Format::Svg.render(&g)), Ok(()));
    let drawn = Format::Text.render(&g);
    assert!(drawn.contains("P51"), "{drawn}");
    assert!(drawn.contains("R x50=1"), "{drawn}");
}

fn program_of(source: &str) -> (hazmat_litmus::Test, Program) {
    let test = hazmat_litmus::parse(source).expect("a valid litmus test");
    let program = lower(&test).expect("a test hazmat can run");
    (test, program)
}

/// The command line end to end: `check --show` to stdout and to files, and `explain`.
#[test]
fn the_command_line_draws_and_explains() {
    use std::process::Command;
    let hazmat = env!("CARGO_BIN_EXE_hazmat");
    let mp = corpus().join("classic/MP.litmus");
    let out = Command::new(hazmat)
        .args(["check", "--show", "witness", "--relations", "hb"])
        .arg(&mp)
        .output()
        .expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("Test MP Allowed"), "{text}");
    assert!(text.contains("MP: witness 1 of 1 under lkmm"), "{text}");
    assert!(text.contains("  hb  "), "{text}");

    let dir = scratch::folder("traces");
    let out = Command::new(hazmat)
        .args(["check", "--show", "all", "--graph-format", "svg", "--graph"])
        .arg(&dir)
        .arg(&mp)
        .output()
        .expect("runs");
    assert!(out.status.success());
    for k in 1..=4 {
        let svg = std::fs::read_to_string(dir.join(format!("MP-execution-{k}.svg")))
            .expect("one file per execution");
        assert_eq!(well_formed(&svg), Ok(()));
    }

    let out = Command::new(hazmat)
        .args(["explain", "--graph"])
        .arg(&dir)
        .arg(corpus().join("classic/MP+wmb+rmb.litmus"))
        .output()
        .expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("1. happens-before (hb is not acyclic)"),
        "{text}"
    );
    assert!(dir.join("MP+wmb+rmb-rejected-1.svg").exists());
    let _ = std::fs::remove_dir_all(&dir);

    let out = Command::new(hazmat)
        .args(["explain", "--state", "1:r0=", "--model", "sc"])
        .arg(&mp)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("--state:1:"));
}

#[test]
fn a_search_for_executions_to_draw_stopped_by_its_deadline_says_so() {
    let m = model("lkmm").expect("a model");
    let (_, p) = program_of(&families::rw_chain(4));
    let late = Limits {
        deadline: Some(std::time::Instant::now()),
        ..Limits::default()
    };
    let stopped = trace::executions(&p, m.as_ref(), Show::All, 4, &late).expect("runs");
    assert_eq!(stopped.unknown.as_deref(), Some("timeout"));
    let whole = trace::executions(&p, m.as_ref(), Show::All, 4, &Limits::default()).expect("runs");
    assert_eq!(
        (whole.unknown, whole.shown.len(), whole.total),
        (None, 4, 15)
    );
}
