//! Golden tests: each fixture journal's `turns` and `state_at` answers (JSON and text) against
//! committed expected files. Run with `UPDATE_GOLDEN=1` to rewrite them after a deliberate
//! change, then review the diff.

use crate::support::agentskit_lines;

use std::path::{Path, PathBuf};

use journalscope_agentskit::agentskit::{render_state_text, render_turns_text, state_at, turns};

/// `(journal, expected-file stem, session, state at)`; `at = None` folds the whole journal.
const CASES: &[(&str, &str, Option<&str>, Option<i64>)] = &[
    (
        "tests/fixtures/agentskit/stream-and-reconnect.ndjson",
        "stream-and-reconnect",
        None,
        None,
    ),
    (
        "tests/fixtures/agentskit/stream-and-reconnect.ndjson",
        "stream-and-reconnect.at-5",
        None,
        Some(5),
    ),
    (
        "tests/fixtures/agentskit/malformed.ndjson",
        "malformed",
        None,
        None,
    ),
    (
        "tests/fixtures/agentskit/multi-session.ndjson",
        "multi-session",
        None,
        None,
    ),
    (
        "tests/fixtures/agentskit/multi-session.ndjson",
        "multi-session.beta",
        Some("beta"),
        None,
    ),
    (
        "tests/fixtures/agentskit/lineage-warnings.ndjson",
        "lineage-warnings",
        None,
        None,
    ),
    ("demo/agentskit-demo.ndjson", "demo", None, None),
    ("demo/agentskit-demo.ndjson", "demo.at-6", None, Some(6)),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn check(expected: &Path, actual: &str, mismatches: &mut Vec<String>) {
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(expected, actual).expect("golden file is writable");
        return;
    }
    let wanted = std::fs::read_to_string(expected).unwrap_or_default();
    if wanted != actual {
        mismatches.push(format!(
            "{} differs:\n--- expected\n{wanted}\n--- actual\n{actual}",
            expected.display()
        ));
    }
}

#[test]
fn fixture_journals_match_their_expected_turns_and_state() {
    let mut mismatches = Vec::new();
    for (journal, stem, session, case_at) in CASES {
        let text = std::fs::read_to_string(root().join(journal)).expect("fixture is readable");
        let events = agentskit_lines::load(&text);
        let at = case_at.unwrap_or(events.len() as i64);
        let report = turns(&events, *session);
        let state = state_at(&events, at, *session);
        let dir = root().join("tests/fixtures/agentskit/expected");
        std::fs::create_dir_all(&dir).expect("expected dir can be created");
        let json = |value: serde_json::Value| {
            serde_json::to_string_pretty(&value).expect("serialisable") + "\n"
        };
        // Verdicts and lineage do not depend on `at`, so only whole-journal cases keep them.
        if case_at.is_none() {
            check(
                &dir.join(format!("{stem}.turns.json")),
                &json(serde_json::to_value(&report).expect("turns serialise")),
                &mut mismatches,
            );
            check(
                &dir.join(format!("{stem}.turns.txt")),
                &render_turns_text(&report),
                &mut mismatches,
            );
        }
        check(
            &dir.join(format!("{stem}.state.json")),
            &json(serde_json::to_value(&state).expect("state serialises")),
            &mut mismatches,
        );
        check(
            &dir.join(format!("{stem}.state.txt")),
            &render_state_text(&state),
            &mut mismatches,
        );
    }
    assert!(
        mismatches.is_empty(),
        "turns/state output must match the committed golden files (UPDATE_GOLDEN=1 rewrites):\n{}",
        mismatches.join("\n")
    );
}
