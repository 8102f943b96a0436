//! Helpers shared by the integration tests: the round trip.

#![allow(dead_code, unreachable_pub)]

/// Parses `source`, prints it, parses the print and prints again, with and without the
/// C comments kept: `Err` says what broke.
pub fn round_trip(name: &str, source: &str) -> Result<(), String> {
    round_trip_with(name, source, hazmat_litmus::parse)?;
    round_trip_with(name, source, hazmat_litmus::parse_keeping_comments)
}

type ParseFn = fn(&str) -> Result<hazmat_litmus::Test, hazmat_litmus::ParseError>;

fn round_trip_with(name: &str, source: &str, parse: ParseFn) -> Result<(), String> {
    let test = parse(source).map_err(|e| e.render(name, source))?;
    let printed = hazmat_litmus::print(&test);
    let again = parse(&printed).map_err(|e| {
        format!(
            "the printed form does not parse:\n{}",
            e.render(name, &printed)
        )
    })?;
    if again != test {
        return Err(format!("{name}: parse(print(t)) differs from t"));
    }
    let printed_again = hazmat_litmus::print(&again);
    if printed_again != printed {
        return Err(format!("{name}: printing is not idempotent"));
    }
    Ok(())
}
