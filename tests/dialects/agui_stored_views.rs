//! The AG-UI views read from the store (a slice of records in memory at a time) against the
//! same views folded from every loaded event: on the recordings of real servers and on the lint
//! fixtures (bad lines, failed patches, runs that never end), the thread at every offset, the
//! step at every offset and the run boundaries must be the same.

use crate::support::agui_recordings;
use crate::support::importing;

use journalscope_agui::agui::{
    runs, runs_stored, state_at, state_at_stored, step_view, step_view_stored,
};

fn assert_stored_views_match(name: &str, lines: &[String]) {
    let dir = tempfile::tempdir().expect("temp dir");
    let (store, id) = importing::import_lines(dir.path(), lines);
    let events = store.events(id).expect("events");
    for at in 0..=events.len() as i64 + 1 {
        assert_eq!(
            state_at_stored(&store, id, at).expect("stored state"),
            state_at(&events, at),
            "{name}: the thread at {at}"
        );
        assert_eq!(
            step_view_stored(&store, id, at).expect("stored step"),
            step_view(&events, at),
            "{name}: the step at {at}"
        );
    }
    assert_eq!(
        runs_stored(&store, id).expect("stored runs"),
        runs(&events),
        "{name}: the run boundaries"
    );
}

#[test]
fn given_real_recordings_when_viewed_from_the_store_then_every_offset_matches_the_loaded_fold() {
    let mut seen = 0;
    for folder in ["corpus", "dojo"] {
        for path in agui_recordings::recordings(folder) {
            let lines: Vec<String> = agui_recordings::events_of(&path)
                .iter()
                .map(|event| event.to_string())
                .collect();
            assert_stored_views_match(&path.display().to_string(), &lines);
            seen += 1;
        }
    }
    assert!(seen >= 20, "the recordings were read: {seen}");
}

#[test]
fn given_lint_fixtures_when_viewed_from_the_store_then_every_offset_matches_the_loaded_fold() {
    let dir = agui_recordings::fixtures("lint");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("lint fixtures") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("fixture readable");
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        assert_stored_views_match(&path.display().to_string(), &lines);
        seen += 1;
    }
    assert!(seen >= 30, "the fixtures were read: {seen}");
}
