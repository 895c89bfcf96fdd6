//! Shared by the AG-UI integration tests: where the real recordings are, and reading one.
// Each test file uses its own subset of these.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// tests/fixtures/agui/`name`.
pub fn fixtures(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agui")
        .join(name)
}

/// The recordings of a fixture folder (`corpus`, `dojo`): its JSON files but the goldens.
pub fn recordings(folder: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures(folder))
        .expect("the recordings are committed")
        .map(|entry| entry.expect("readable directory entry").path())
        .filter(|path| {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.ends_with(".json") && !name.ends_with(".expected.json")
        })
        .collect();
    files.sort();
    files
}

/// A recording's events: one JSON array, behind a byte-order mark in the .NET baselines.
pub fn events_of(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).expect("recording readable");
    serde_json::from_str(text.trim_start_matches('\u{feff}')).expect("a JSON array of events")
}
