//! Checkpointed folding must be invisible: request diffs and request rows read from the store
//! are those a plain fold of the whole journal gives.

use crate::support::iterate_lines;

use journalscope::import::{import_file, ImportControl};
use journalscope::store::Store;
use journalscope_iterate::iterate::IterateJournal;
use std::path::PathBuf;

#[test]
fn a_journal_whose_offsets_go_backwards_still_folds_every_event_at_or_below_the_offset() {
    let lines = vec![
        iterate_lines::system_prompt(5, "prompt"),
        iterate_lines::user(9, "late"),
        iterate_lines::user(7, "out of order"),
    ];
    let journal = iterate_lines::journal(&lines);
    let at_seven = journal.projection_at(7);
    let offsets: Vec<i64> = at_seven.history.iter().map(|i| i.offset).collect();
    assert_eq!(
        offsets,
        [7],
        "the event at @7 counts at @7 though it comes after @9"
    );
}

fn synthetic(events: u64, seed: u64) -> Vec<String> {
    let mut text = Vec::new();
    journalscope_gen::write_synthetic(&mut text, events, seed).expect("write to memory");
    String::from_utf8(text)
        .expect("utf-8")
        .lines()
        .map(str::to_string)
        .collect()
}

/// Writes `lines` as a journal file in `dir` and imports it (again, when it grew).
fn imported(dir: &tempfile::TempDir, lines: &[String]) -> (Store, i64, PathBuf) {
    let file = dir.path().join("journal.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").expect("write the journal");
    let store = Store::open(&dir.path().join("journal.sqlite")).expect("store");
    let mut quiet = |_| {};
    import_file(
        &store,
        &file,
        &mut ImportControl {
            progress: &mut quiet,
            cancel: None,
        },
    )
    .expect("import");
    let id = store
        .latest_journal()
        .expect("journal")
        .expect("a journal")
        .id;
    (store, id, file)
}

/// The plain fold of a stored journal: every record parsed, each view folded from the first.
fn loaded(store: &Store, id: i64) -> IterateJournal {
    IterateJournal::from_stored(&store.events(id).expect("events"))
}

#[test]
fn a_request_diff_read_from_the_checkpoints_equals_the_loaded_journals_for_every_pair_of_neighbours_and_across_compactions(
) {
    // Protects `diff` on a journal that is not loaded: both requests rendered from their
    // checkpoints and the events between them folded from the store must explain the same
    // break as the loaded journal does.
    use journalscope_iterate::iterate::diff::{request_before_stored, request_diff_stored};
    use journalscope_iterate::iterate::Transport;
    let lines = synthetic(6_000, 11);
    let dir = tempfile::tempdir().expect("temp dir");
    let (store, id, _) = imported(&dir, &lines);
    let journal = loaded(&store, id);
    let requests = journal.request_offsets();
    assert!(
        requests.len() > 100,
        "enough requests to compare: {}",
        requests.len()
    );
    let mut pairs: Vec<(i64, i64)> = requests.windows(2).map(|w| (w[0], w[1])).collect();
    // Pairs far apart cross compactions and checkpoints; reversed ones diff backwards.
    pairs.extend(
        requests
            .iter()
            .step_by(37)
            .zip(requests.iter().skip(90).step_by(37))
            .map(|(a, b)| (*a, *b)),
    );
    pairs.push((requests[requests.len() - 1], requests[0]));
    let mut compactions = 0;
    for (from, to) in pairs {
        for transport in [Transport::Openai, Transport::WorkersAi] {
            let loaded_diff = journal
                .request_diff((from, transport), (to, transport))
                .expect("loaded diff");
            compactions += usize::from(format!("{loaded_diff:?}").contains("Compaction {"));
            let stored = request_diff_stored(&store, id, (from, transport), (to, transport))
                .expect("read")
                .expect("stored diff");
            assert_eq!(stored, loaded_diff, "@{from} -> @{to} on {transport:?}");
        }
        assert_eq!(
            request_before_stored(&store, id, to).expect("read"),
            journal.request_before(to),
            "the request before @{to}"
        );
    }
    assert!(compactions > 0, "some pairs have a compaction between them");
}

#[test]
fn the_request_rows_the_analysis_stores_equal_the_loaded_journals_requests_after_one_import_or_appends(
) {
    // Protects the request list of a journal that is not loaded: the rows written as the
    // records are folded, and resumed from a checkpoint by appends, must be the loaded fold's.
    let lines = synthetic(9_000, 5);
    let dir = tempfile::tempdir().expect("temp dir");
    let (store, id, _) = imported(&dir, &lines[..4_000]);
    drop(store);
    let (store, id_grown, _) = imported(&dir, &lines);
    assert_eq!(id_grown, id, "the growth was appended");
    let journal = loaded(&store, id);
    let stored: Vec<journalscope_iterate::iterate::view::RequestSummary> = store
        .request_rows(id)
        .expect("rows")
        .into_iter()
        .map(|(_, row)| serde_json::from_str(&row).expect("a request row"))
        .collect();
    let expected = journal.requests();
    assert!(expected.len() > 500, "enough requests: {}", expected.len());
    assert!(
        expected.iter().any(|r| r.compactions_before > 0),
        "some requests follow a compaction"
    );
    assert_eq!(stored, expected, "the stored rows are the loaded requests");

    // Offsets that go back once: the loaded fold counts what each request newly publishes
    // by scanning, and so must the rows.
    let mut shuffled = lines.clone();
    shuffled.swap(2_000, 2_001);
    shuffled.swap(6_000, 6_003);
    let dir = tempfile::tempdir().expect("temp dir");
    let (store, id, _) = imported(&dir, &shuffled);
    assert!(
        !store
            .checkpoint_cover(id)
            .expect("cover")
            .expect("a cover")
            .seekable,
        "the swapped records make offsets go back"
    );
    let journal = loaded(&store, id);
    let stored: Vec<journalscope_iterate::iterate::view::RequestSummary> = store
        .request_rows(id)
        .expect("rows")
        .into_iter()
        .map(|(_, row)| serde_json::from_str(&row).expect("a request row"))
        .collect();
    assert_eq!(
        stored,
        journal.requests(),
        "with offsets out of order, the stored rows are the loaded requests"
    );
}
