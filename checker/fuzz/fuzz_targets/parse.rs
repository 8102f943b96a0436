//! The parser on arbitrary bytes: it must return a test or an error, never panic or hang,
//! and a test it returns must print to text that parses back to the same test.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    match hazmat_litmus::parse(source) {
        Ok(test) => {
            let printed = hazmat_litmus::print(&test);
            let again = match hazmat_litmus::parse(&printed) {
                Ok(again) => again,
                // FIXME: the printer parenthesises nested prefix operators (`*(*x)`), so a
                // test within the parser's nesting limit may print beyond it; see
                // `the_printer_may_cross_the_nesting_limit` in checker/tests/robustness.rs.
                Err(e) if e.message.starts_with("nesting deeper than") => return,
                Err(e) => panic!("the printed test does not parse: {}\n{printed}", e.message),
            };
            assert_eq!(
                again, test,
                "the printed test parses to another test:\n{printed}"
            );
        }
        Err(e) => {
            // Rendering the error must not panic either (it slices the source at the span).
            let _ = e.render("fuzz.litmus", source);
        }
    }
});
