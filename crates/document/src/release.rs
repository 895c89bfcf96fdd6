//! What this build is: the version from `Cargo.toml` and the commit it was built from, for
//! `--version` and the app's About box.

/// The package version, from `Cargo.toml`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The commit the build came from (12 hex digits), or "unknown" outside a git checkout.
pub const COMMIT: &str = env!("JOURNALSCOPE_COMMIT");

/// "0.1.0 (commit 0123456789ab)": one line for `--version` and the About box.
pub const DESCRIPTION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("JOURNALSCOPE_COMMIT"),
    ")"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_description_names_the_version_and_the_commit() {
        // Protects the line users paste into bug reports: both parts must be in it.
        assert!(DESCRIPTION.starts_with(VERSION));
        assert!(DESCRIPTION.contains(COMMIT));
        assert!(!COMMIT.is_empty());
    }
}
