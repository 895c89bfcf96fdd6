//! AG-UI checkpoints: the thread at any offset, read from the nearest checkpoint plus the
//! records after it, and the run boundaries, read from the run marks, must be a plain fold
//! from the first record; a journal grown by appends
//! (each refresh going on from the latest checkpoint) must derive what one import derives; and
//! the checkpoints, sharing what they hold in common, must stay a small part of the journal.

use crate::support::agui_recordings;
use crate::support::importing;

use std::ops::ControlFlow;

use journalscope::derived::Analysis;
use journalscope::store::Store;
use journalscope::{derived::Dialect, store::StoredEvent};
use journalscope_agui::agui::{
    runs, runs_stored, state_at, state_at_stored, step_view, step_view_stored,
};
use journalscope_gen::{write_journal, GenOptions};
use serde_json::json;

/// Pieces a random journal is made of: every lint fixture (bad lines, failed and malformed
/// patches, runs that never end), a state whose array is long enough to be kept in blocks and
/// is appended to, edited and shifted, message snapshots, reused tool call ids.
fn pieces() -> Vec<Vec<String>> {
    let mut pieces = Vec::new();
    let dir = agui_recordings::fixtures("lint");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("lint fixtures")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    paths.sort();
    for path in paths {
        let text = std::fs::read_to_string(&path).expect("fixture readable");
        pieces.push(text.lines().map(str::to_string).collect());
    }
    let items: Vec<u64> = (0..150).collect();
    pieces.push(vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "long"}).to_string(),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"items": items, "nested": {"list": items}}})
            .to_string(),
        json!({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/items/-", "value": 1}]})
            .to_string(),
        json!({"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/items/3", "value": "x"}]})
            .to_string(),
        json!({"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/items/0"}]}).to_string(),
        json!({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/nested/list/-", "value": {"deep": [1, 2]}}]})
            .to_string(),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "long"}).to_string(),
    ]);
    pieces.push(vec![
        json!({"type": "MESSAGES_SNAPSHOT", "messages": [
            {"id": "kept", "role": "user", "content": "hello"},
            {"id": "m-1", "role": "assistant", "content": "replaced"}
        ]})
        .to_string(),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m-1", "role": "assistant"}).to_string(),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m-1", "delta": "more"}).to_string(),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "m-1"}).to_string(),
    ]);
    pieces.push(vec![
        json!({"type": "TOOL_CALL_START", "toolCallId": "same", "toolCallName": "t"}).to_string(),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "same", "delta": "{}"}).to_string(),
        json!({"type": "TOOL_CALL_END", "toolCallId": "same"}).to_string(),
        "not json at all".to_string(),
        "{}".to_string(),
    ]);
    let mut generated = Vec::new();
    write_journal(
        &mut generated,
        &GenOptions {
            dialect: Dialect::AgUi,
            events: 120,
            seed: 9,
            contract: journalscope_gen::ContractName::Seed,
        },
    )
    .expect("generate");
    pieces.push(
        String::from_utf8(generated)
            .expect("utf-8")
            .lines()
            .map(str::to_string)
            .collect(),
    );
    pieces
}

fn rebuild(store: &Store, id: i64, spacing: u64) {
    let mut unwatched = |_: u64| ControlFlow::Continue(());
    let journal = store.journal(id).expect("read").expect("the journal");
    let dialect = journalscope_agui::agui::AgUi::with_spacing(spacing);
    journalscope::ingest::refresh_with(store, &journal, &dialect, &mut unwatched)
        .expect("refresh")
        .expect("not abandoned");
}

fn derived(store: &Store, id: i64) -> impl PartialEq + std::fmt::Debug {
    (
        store.marks(id).expect("marks"),
        store.diagnostics(id).expect("diagnostics"),
    )
}

/// Every offset's thread and step, and the run boundaries, read from the store, against the
/// plain fold of `events`.
fn assert_views_are_plain_folds(store: &Store, id: i64, events: &[StoredEvent], what: &str) {
    assert_eq!(
        runs_stored(store, id).expect("stored runs"),
        runs(events),
        "{what}: the run boundaries are the plain fold's"
    );
    for at in 0..=events.len() as i64 + 1 {
        assert_eq!(
            state_at_stored(store, id, at).expect("stored state"),
            state_at(events, at),
            "{what}: the thread at {at} is the plain fold"
        );
        assert_eq!(
            step_view_stored(store, id, at).expect("stored step"),
            step_view(events, at),
            "{what}: the step at {at} is the plain fold"
        );
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(10))]

    #[test]
    fn a_view_from_any_checkpoint_and_a_journal_grown_by_appends_equal_the_plain_fold(
        picks in proptest::collection::vec(0usize..64, 2..9),
        spacing in 1u64..40,
        cuts in proptest::collection::vec(1usize..400, 1..4),
    ) {
        let pieces = pieces();
        let lines: Vec<String> = picks
            .iter()
            .flat_map(|pick| pieces[pick % pieces.len()].clone())
            .collect();

        let dir = tempfile::tempdir().expect("temp dir");
        let (whole, whole_id) = importing::import_lines(dir.path(), &lines);
        let imported = derived(&whole, whole_id);
        whole.replace_analysis(whole_id, &Analysis::default()).expect("forget");
        rebuild(&whole, whole_id, spacing);
        proptest::prop_assert_eq!(
            derived(&whole, whole_id),
            imported,
            "checkpoints every {} records derive what the import derived", spacing
        );
        let events = whole.events(whole_id).expect("events");
        assert_views_are_plain_folds(&whole, whole_id, &events, "one import");

        let grown_dir = tempfile::tempdir().expect("temp dir");
        let grows = grown_dir.path().join("grows.jsonl");
        let grown = Store::open(&grown_dir.path().join("grows.sqlite")).expect("store");
        let mut cuts = cuts;
        cuts.sort_unstable();
        cuts.push(lines.len());
        let mut grown_id = 0;
        for end in cuts {
            std::fs::write(&grows, lines[..end.min(lines.len())].join("\n") + "\n")
                .expect("write");
            grown_id = importing::import_quietly(&grown, &grows);
            rebuild(&grown, grown_id, spacing);
        }
        proptest::prop_assert_eq!(
            derived(&grown, grown_id),
            derived(&whole, whole_id),
            "appends, each folded on from the latest checkpoint, derive what one import does"
        );
        assert_views_are_plain_folds(&grown, grown_id, &events, "appends");
    }
}

#[test]
fn given_a_long_thread_when_checkpointed_then_checkpoints_share_blocks_and_stay_small() {
    let mut bytes = Vec::new();
    write_journal(
        &mut bytes,
        &GenOptions {
            dialect: Dialect::AgUi,
            events: 30_000,
            seed: 3,
            contract: journalscope_gen::ContractName::Seed,
        },
    )
    .expect("generate");
    let lines: Vec<String> = String::from_utf8(bytes.clone())
        .expect("utf-8")
        .lines()
        .map(str::to_string)
        .collect();
    let dir = tempfile::tempdir().expect("temp dir");
    let (store, id) = importing::import_lines(dir.path(), &lines);
    store
        .replace_analysis(id, &Analysis::default())
        .expect("forget");
    rebuild(&store, id, 1_024);
    let checkpoints = store.checkpoint_bytes(id).expect("checkpoint bytes");
    assert!(
        checkpoints * 4 < bytes.len() as u64,
        "{} checkpoints share what they hold: {checkpoints} bytes beside a journal of {}",
        lines.len() / 1_024,
        bytes.len()
    );
    let events = store.events(id).expect("events");
    for at in (0..events.len() as i64).step_by(997) {
        assert_eq!(
            state_at_stored(&store, id, at).expect("stored state"),
            state_at(&events, at),
            "the thread at {at}, past many checkpoints, is the plain fold"
        );
    }
}

#[test]
fn given_more_tool_calls_than_a_block_holds_when_folded_from_a_checkpoint_then_a_reused_id_is_still_known(
) {
    // Given more distinct tool call ids than one sealed block of ids holds, checkpointed often,
    let mut lines = vec![json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}).to_string()];
    for n in 0..1_100 {
        lines.push(
            json!({"type": "TOOL_CALL_START", "toolCallId": format!("c{n}"), "toolCallName": "t"})
                .to_string(),
        );
        lines.push(json!({"type": "TOOL_CALL_END", "toolCallId": format!("c{n}")}).to_string());
    }
    // when an id from the first, sealed, block starts again after the last checkpoint,
    lines.push(
        json!({"type": "TOOL_CALL_START", "toolCallId": "c5", "toolCallName": "t"}).to_string(),
    );
    // then the view read from the checkpoint knows it was started before, as the plain fold does.
    reuse_is_known_from_the_checkpoint(&lines, "tool-call-id-reused");
}

#[test]
fn given_more_ended_messages_than_a_block_holds_when_folded_from_a_checkpoint_then_a_reused_id_is_still_known(
) {
    // Given more messages that ended than one sealed block of ids holds, checkpointed often,
    let mut lines = vec![json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}).to_string()];
    for n in 0..1_100 {
        lines.push(json!({"type": "TEXT_MESSAGE_START", "messageId": format!("m{n}")}).to_string());
        lines.push(json!({"type": "TEXT_MESSAGE_END", "messageId": format!("m{n}")}).to_string());
    }
    // when an id from the first, sealed, block starts again after the last checkpoint,
    lines.push(json!({"type": "TEXT_MESSAGE_START", "messageId": "m5"}).to_string());
    // then the view read from the checkpoint knows the message ended, as the plain fold does.
    reuse_is_known_from_the_checkpoint(&lines, "message-id-reused-after-end");
}

/// Imports `lines`, folds them again with a checkpoint every 100 records, and checks that the
/// view at the last record, read from the checkpoint before it, reports `code` there (an id the
/// checkpoint's sealed blocks keep) and is the plain fold's.
fn reuse_is_known_from_the_checkpoint(lines: &[String], code: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let (store, id) = importing::import_lines(dir.path(), lines);
    store
        .replace_analysis(id, &Analysis::default())
        .expect("forget");
    rebuild(&store, id, 100);
    let events = store.events(id).expect("events");
    let last = events.len() as i64;
    let stored = state_at_stored(&store, id, last).expect("stored state");
    assert!(
        stored
            .diagnostics
            .iter()
            .any(|d| d.code == code && d.offset == Some(last)),
        "the reuse ({code}) is found from the ids the checkpoint kept"
    );
    assert_eq!(
        stored,
        state_at(&events, last),
        "the thread at the end is the plain fold"
    );
}

/// The reasoning-never-ended warnings a store holds for journal `id`, by offset.
fn never_ended(store: &Store, id: i64) -> Vec<Option<i64>> {
    store
        .diagnostics(id)
        .expect("diagnostics")
        .into_iter()
        .filter(|(_, d)| d.code == "reasoning-never-ended")
        .map(|(_, d)| d.offset)
        .collect()
}

#[test]
fn regression_an_append_that_ends_the_reasoning_withdraws_its_never_ended_warning() {
    use journalscope::interpreter::Interpreter;

    let custom = |n: usize| json!({"type": "CUSTOM", "name": "tick", "value": n}).to_string();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("grows.jsonl");
    let store = Store::open(&dir.path().join("grows.sqlite")).expect("store");
    let write = |lines: &[String]| {
        std::fs::write(&path, lines.join("\n") + "\n").expect("journal written");
    };

    // Given a journal whose reasoning starts at offset 2 and is still open past its first
    // checkpoint (one every 1,024 records),
    let mut lines = vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}).to_string(),
        json!({"type": "REASONING_START", "messageId": "rs1"}).to_string(),
    ];
    lines.extend((0..1_200).map(custom));
    write(&lines);
    let id = importing::import_quietly(&store, &path);
    assert_eq!(
        never_ended(&store, id),
        [Some(2)],
        "the import says the reasoning never ended, at its start"
    );
    let resumed = journalscope_agui::agui::INTERPRETER
        .resume(&store, id, lines.len() as u64)
        .expect("read the checkpoint")
        .map(|mut fold| fold.end().diagnostics);
    assert!(
        resumed.as_deref().is_some_and(|found| found
            .iter()
            .any(|(seq, d)| *seq == 1 && d.code == "reasoning-never-ended" && d.offset == Some(2))),
        "a fold resumed from the checkpoint still knows the reasoning is open: {resumed:?}"
    );

    // when an append that does not end it is imported, the warning stays, once, where it was;
    lines.extend((1_200..1_300).map(custom));
    write(&lines);
    let id = importing::import_quietly(&store, &path);
    assert_eq!(
        never_ended(&store, id),
        [Some(2)],
        "an append that leaves the reasoning open replaces the warning with the same one"
    );

    // when an append brings its REASONING_END, the warning goes,
    lines.push(json!({"type": "REASONING_END", "messageId": "rs1"}).to_string());
    lines.push(json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}).to_string());
    write(&lines);
    let id = importing::import_quietly(&store, &path);
    assert!(
        never_ended(&store, id).is_empty(),
        "the reasoning ended in the appended records"
    );
    // and the journal derives what one import of the whole file derives.
    let whole_dir = tempfile::tempdir().expect("temp dir");
    let (whole, whole_id) = importing::import_lines(whole_dir.path(), &lines);
    assert_eq!(
        derived(&store, id),
        derived(&whole, whole_id),
        "the grown journal's marks and diagnostics are one import's"
    );
}
