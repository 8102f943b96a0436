//! Numbers the tests read from the environment, to run more cases, or other seeds, than by
//! default. Included by the tests that take them (`#[path]`).

/// The number `name` holds in the environment, or `default` when it is unset or no number.
pub(crate) fn number<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
