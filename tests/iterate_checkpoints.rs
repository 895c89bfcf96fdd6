//! Checkpointed folding must be invisible: the projection at any offset is the same whether it
//! is folded from the start or resumed from a checkpoint.

mod common;

use journalscope::import::{import_file, ImportControl};
use journalscope::iterate::projection::fold_through;
use journalscope::iterate::IterateJournal;
use journalscope::store::Store;
use std::ops::ControlFlow;
use std::path::PathBuf;

#[test]
fn projection_from_checkpoints_equals_a_fold_from_the_start_at_every_offset() {
    let mut text = Vec::new();
    // Enough events for several checkpoints, with compactions and offset gaps.
    journalscope::gen::write_synthetic(&mut text, 9_000, 5).expect("write to memory");
    let lines: Vec<String> = String::from_utf8(text)
        .expect("utf-8")
        .lines()
        .map(str::to_string)
        .collect();
    let journal = common::journal(&lines);
    let last = journal.events.last().map_or(0, |e| e.offset);
    for at in (0..=last + 1)
        .step_by(97)
        .chain([2047, 2048, 2049, 4096, last])
    {
        assert_eq!(
            journal.projection_at(at),
            fold_through(&journal.events, at),
            "checkpoints must not change the projection at @{at}"
        );
    }
}

#[test]
fn a_journal_whose_offsets_go_backwards_still_folds_every_event_at_or_below_the_offset() {
    let lines = vec![
        common::system_prompt(5, "prompt"),
        common::user(9, "late"),
        common::user(7, "out of order"),
    ];
    let journal = common::journal(&lines);
    let at_seven = journal.projection_at(7);
    let offsets: Vec<i64> = at_seven.history.iter().map(|i| i.offset).collect();
    assert_eq!(
        offsets,
        [7],
        "the event at @7 counts at @7 though it comes after @9"
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]

    /// Any generated journal, any offset: resuming from a checkpoint equals folding from 0.
    #[test]
    fn a_checkpoint_plus_a_short_fold_equals_the_full_fold(
        seed in 0u64..1_000_000,
        fractions in proptest::collection::vec(0u64..=1000, 8),
    ) {
        let mut text = Vec::new();
        journalscope::gen::write_synthetic(&mut text, 3_000, seed).expect("write to memory");
        let lines: Vec<String> = String::from_utf8(text)
            .expect("utf-8")
            .lines()
            .map(str::to_string)
            .collect();
        let journal = common::journal(&lines);
        let last = journal.events.last().map_or(0, |e| e.offset);
        for fraction in fractions {
            let at = (last as u64 * fraction / 1000) as i64;
            proptest::prop_assert_eq!(
                journal.projection_at(at),
                fold_through(&journal.events, at),
                "checkpoints must not change the projection at @{}", at
            );
        }
    }
}

#[test]
fn a_journal_loaded_from_its_store_in_slices_on_every_core_equals_one_parsed_whole() {
    // More events than two load slices, so that parts and slices both have seams.
    let mut lines = synthetic(36_000, 11);
    // Records with read-time and parse-time diagnostics, on either side of a slice's seam.
    for at in [16_383, 16_385, 30_001] {
        lines.insert(at, "not json at all".to_string());
        lines.insert(
            at + 1,
            r#"{"offset":-1,"type":"events.iterate.com/agent/context-added","payload":{"role":"wizard","content":"x"}}"#
                .to_string(),
        );
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let (store, id, _) = imported(&dir, &lines);

    let mut heard = Vec::new();
    let sliced = IterateJournal::from_store(&store, id, &mut |done| {
        heard.push(done);
        ControlFlow::Continue(())
    })
    .expect("load in slices")
    .expect("a load nobody stopped ends");
    let total = store.event_count(id).expect("count");
    assert!(
        heard.windows(2).all(|w| w[0] <= w[1]) && heard.last() == Some(&total) && heard.len() > 2,
        "the load tells how far it got, slice by slice, up to every record: {heard:?}"
    );
    let mut asked = 0;
    let abandoned = IterateJournal::from_store(&store, id, &mut |_| {
        asked += 1;
        if asked > 1 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .expect("the store reads");
    assert!(
        abandoned.is_none(),
        "a load the watch stops (a cancel) gives nothing"
    );
    let whole = IterateJournal::from_stored(&store.events(id).expect("events"));
    assert_eq!(
        sliced.events, whole.events,
        "the same events, in file order"
    );
    assert_eq!(
        sliced.analyse(),
        whole.analyse(),
        "the same parse-time diagnostics and marks"
    );
    let last = whole.events.last().map_or(0, |e| e.offset);
    for at in [0, 16_000, 16_400, 30_010, last] {
        assert_eq!(
            sliced.projection_view(at),
            whole.projection_view(at),
            "the same projection and read-time diagnostics at @{at}"
        );
    }
    assert!(
        whole.projection_view(last).diagnostics.len() >= 6,
        "the diagnostics the seams were given are there to compare"
    );
}

fn synthetic(events: u64, seed: u64) -> Vec<String> {
    let mut text = Vec::new();
    journalscope::gen::write_synthetic(&mut text, events, seed).expect("write to memory");
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

fn loaded(store: &Store, id: i64) -> IterateJournal {
    IterateJournal::from_store(store, id, &mut |_| ControlFlow::Continue(()))
        .expect("load")
        .expect("a load nobody stopped ends")
}

#[test]
fn a_journal_extended_by_what_a_follower_appended_equals_one_loaded_whole() {
    let lines = synthetic(24_000, 3);
    let dir = tempfile::tempdir().expect("temp dir");
    let (store, id, _) = imported(&dir, &lines[..20_000]);
    let mut followed = loaded(&store, id);
    drop(store);

    let (store, grown_id, _) = imported(&dir, &lines);
    assert_eq!(
        grown_id, id,
        "the growth was appended to the same generation"
    );
    followed
        .extend_from_store(&store, id, 20_000, 24_000)
        .expect("extend");
    let whole = loaded(&store, id);
    assert_eq!(
        followed.events, whole.events,
        "the same events, in file order"
    );
    assert_eq!(followed.analyse(), whole.analyse(), "the same analysis");
    let last = whole.events.last().map_or(0, |e| e.offset);
    for at in (0..=last).step_by(4_001).chain([last]) {
        assert_eq!(
            followed.projection_at(at),
            fold_through(&whole.events, at),
            "the extended checkpoints give the fold's projection at @{at}"
        );
    }
}

#[test]
fn a_request_diff_read_from_the_checkpoints_equals_the_loaded_journals_for_every_pair_of_neighbours_and_across_compactions(
) {
    // Protects `diff` on a journal that is not loaded: both requests rendered from their
    // checkpoints and the events between them folded from the store must explain the same
    // break as the loaded journal does.
    use journalscope::iterate::diff::{request_before_stored, request_diff_stored};
    use journalscope::iterate::Transport;
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
                .expect("the checkpoints answer")
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
    let stored: Vec<journalscope::iterate::view::RequestSummary> = store
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
    let stored: Vec<journalscope::iterate::view::RequestSummary> = store
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
