//! The checker on structurally generated programs: the fuzzer's bytes seed the project's
//! program generator, and each program is decided under SC, TSO and the LKMM (in full and
//! with `--speedcheck`) and by the operational shuttle engine when it is small enough.
//! Nothing may panic or hang, the models must nest (SC ⊆ TSO ⊆ LKMM), the speed check must
//! agree with the full check, and the two SC engines must find the same states.

#![no_main]

use hazmat_checker::engine::{enumerate::Limits, interp};
use hazmat_checker::testkit::generate::{self, Config};
use hazmat_checker::{Options, check_source, model};
use libfuzzer_sys::fuzz_target;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

fn options(speedcheck: bool) -> Options {
    Options {
        limits: Limits {
            max_executions: Some(500_000),
            deadline: Some(Instant::now() + Duration::from_secs(5)),
            ..Default::default()
        },
        speedcheck,
    }
}

fuzz_target!(|data: &[u8]| {
    let Some(sketch) = generate::from_bytes(data, Config::default()) else {
        return;
    };
    let text = hazmat_litmus::print(&sketch.to_test("fuzz"));
    let mut all = Vec::new();
    for name in ["sc", "tso", "lkmm"] {
        let m = model(name).expect("the model exists");
        let full = check_source(&text, m.as_ref(), &options(false))
            .unwrap_or_else(|e| panic!("{name}: {}\n{text}", e.render("fuzz", &text)));
        let fast = check_source(&text, m.as_ref(), &options(true))
            .unwrap_or_else(|e| panic!("{name}: {}\n{text}", e.render("fuzz", &text)));
        if full.outcome.unknown.is_some() || fast.outcome.unknown.is_some() {
            return;
        }
        let q = full.program.condition.quantifier;
        assert_eq!(
            full.outcome.holds(q),
            fast.outcome.holds(q),
            "{name}: --speedcheck disagrees with the full check on\n{text}"
        );
        let states: BTreeSet<_> = full.outcome.states.iter().cloned().collect();
        all.push((states, full));
    }
    assert!(
        all[0].0.is_subset(&all[1].0),
        "SC allows states TSO forbids:\n{text}"
    );
    assert!(
        all[1].0.is_subset(&all[2].0),
        "TSO allows states the LKMM forbids:\n{text}"
    );
    // Shuttle under the sanitiser runs some hundred interleavings a second.
    if sketch.interleavings() <= 300 {
        let sc = &all[0].1;
        let o = interp::run(&sc.program, &options(false).limits)
            .unwrap_or_else(|e| panic!("shuttle: {}\n{text}", e.message));
        if o.unknown.is_none() {
            assert_eq!(
                o.states, sc.outcome.states,
                "the engines disagree on\n{text}"
            );
        }
    }
});
