//! A view at an offset read from the store (the checkpoint before it plus a short fold of the
//! stored records after it) must be the view a plain fold of the whole journal from its first
//! record gives, whichever way the journal reached the store (a streamed import, a whole-file
//! import, or appends) and whether or not its offsets always rise.

use crate::support::importing;
use crate::support::iterate_lines;

use std::io::Write;
use std::path::Path;

use importing::import_quietly as import;
use journalscope::store::Store;
use journalscope_iterate::iterate::IterateJournal;
use journalscope_iterate::iterate::{checkpoint, diff, stored};
use serde_json::json;

/// A journal with everything that makes a view: keyed slots replaced before and after
/// requests, compactions (valid and not), records that are not JSON or have no offset, unknown
/// types and roles (more diagnostics than a view lists), offset gaps. Offsets increase.
fn varied(events: usize, seed: u64) -> Vec<String> {
    varied_with(events, seed, false)
}

/// [`varied`], and with `late`, records whose offset goes back below earlier ones (a user
/// item, a keyed slot, a request) now and then, as a journal written by several processes
/// may have.
fn varied_with(events: usize, seed: u64, late: bool) -> Vec<String> {
    let mut rng = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = |bound: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % bound
    };
    let mut lines = Vec::new();
    let mut offset = 0i64;
    let mut last_request = None;
    if !seed.is_multiple_of(3) {
        lines.push(iterate_lines::system_prompt(offset, "you are a test"));
        offset += 1;
    }
    while lines.len() < events {
        let line = match next(16) {
            0..=3 => iterate_lines::user(offset, &format!("hello {offset}")),
            4 | 5 => iterate_lines::keyed(offset, "system", &format!("slot/{}", next(4)), "keyed"),
            6 => iterate_lines::keyed(offset, "user", &format!("note/{}", next(3)), "user keyed"),
            7 | 8 => {
                last_request = Some(offset);
                iterate_lines::request(offset)
            }
            9 => iterate_lines::ctx(
                offset,
                json!({"role": "assistant", "content": "answer", "llmRequestOffset": last_request}),
            ),
            10 => match last_request {
                Some(cutoff) if next(2) == 0 => {
                    iterate_lines::compaction(offset, json!(cutoff), "summary")
                }
                _ => iterate_lines::compaction(offset, json!(offset + 5), "a cutoff in the future"),
            },
            11 if late && offset > 30 => {
                let back = offset - 1 - next(30) as i64;
                let line = match next(3) {
                    0 => iterate_lines::user(back, "arrived late"),
                    1 => iterate_lines::keyed(
                        back,
                        "user",
                        &format!("note/{}", next(3)),
                        "late keyed",
                    ),
                    _ => iterate_lines::request(back),
                };
                lines.push(line);
                continue;
            }
            11 => iterate_lines::event(offset, "something-new", json!({})),
            12 => iterate_lines::ctx(offset, json!({"role": "wizard", "content": "x"})),
            13 => "not json at all".to_string(),
            14 => {
                json!({"type": "events.iterate.com/agent/context-added", "payload": {}}).to_string()
            }
            _ => {
                offset += next(5) as i64;
                iterate_lines::user(offset, "after a gap")
            }
        };
        lines.push(line);
        offset += 1;
    }
    lines
}

/// How many checkpoints the store keeps for journal `id`.
fn checkpoints_kept(store: &Store, id: i64) -> i64 {
    store
        .inspection_connection()
        .query_row(
            "SELECT count(*) FROM checkpoints WHERE journal_id = ?1",
            [id],
            |r| r.get(0),
        )
        .expect("count")
}

fn write(path: &Path, lines: &[String], gzip: bool) {
    let text = lines.join("\n") + "\n";
    if gzip {
        let file = std::fs::File::create(path).expect("create");
        let mut encoder = flate2::write::GzEncoder::new(file, flate2::Compression::fast());
        encoder.write_all(text.as_bytes()).expect("write");
        encoder.finish().expect("finish");
    } else {
        std::fs::write(path, text).expect("write the journal");
    }
}

/// The plain fold: every record of the journal parsed, each view folded from the first.
fn plain(store: &Store, id: i64) -> IterateJournal {
    IterateJournal::from_stored(&store.events(id).expect("the store reads"))
}

/// Every offset from before the first to past the last, at `step`: the store's view there
/// equals the plain fold's.
fn assert_seeks_equal_the_fold(store: &Store, id: i64, step: usize, what: &str) {
    let loaded = plain(store, id);
    let last = loaded.events.iter().map(|e| e.offset).max().unwrap_or(0);
    let mut compared = 0;
    for at in (-1..=last + 2).step_by(step).chain([last]) {
        let seek = checkpoint::view_at(store, id, at).expect("the store reads");
        assert_eq!(
            seek,
            loaded.projection_view(at),
            "{what}: the view at @{at} from a checkpoint equals the fold of the whole journal"
        );
        compared += 1;
    }
    assert!(compared > 10, "{what}: enough offsets were compared");
}

/// A walk over the requests of a range visits, in file order, each request in the range and
/// the one before each of them in the file, each rendered as the plain fold renders it alone:
/// over the whole journal, from and up to a request in the middle, and between two offsets
/// that are no request.
fn assert_walks_equal_the_fold(
    store: &Store,
    id: i64,
    loaded: &IterateJournal,
    requests: &[i64],
    what: &str,
) {
    use journalscope_iterate::iterate::Transport;
    let middle = requests[requests.len() / 2];
    let quarter = requests[requests.len() / 4];
    let ranges = [
        (None, None),
        (Some(middle), None),
        (None, Some(middle)),
        (Some(quarter + 1), Some(middle - 1)),
    ];
    let transports = [Transport::Openai, Transport::WorkersAi];
    for (from, to) in ranges {
        let inside = |o: i64| from.is_none_or(|f| o >= f) && to.is_none_or(|t| o <= t);
        let expected: Vec<(i64, Vec<Vec<u8>>)> = requests
            .iter()
            .enumerate()
            .filter(|(i, o)| inside(**o) || requests.get(i + 1).is_some_and(|n| inside(*n)))
            .map(|(_, o)| *o)
            .filter(|offset| loaded.request(*offset, transports[0]).is_ok())
            .map(|offset| {
                let bodies = transports
                    .iter()
                    .map(|t| loaded.request(offset, *t).expect("a request").body())
                    .collect();
                (offset, bodies)
            })
            .collect();
        let mut walked = Vec::new();
        stored::walk_requests(store, id, (from, to), &transports, |offset, snaps| {
            walked.push((offset, snaps.iter().map(|s| s.body()).collect::<Vec<_>>()));
        })
        .expect("the store reads");
        assert_eq!(
            walked.iter().map(|(o, _)| *o).collect::<Vec<_>>(),
            expected.iter().map(|(o, _)| *o).collect::<Vec<_>>(),
            "{what}: a walk over {from:?}..={to:?} visits its requests and the one before"
        );
        assert!(
            walked == expected,
            "{what}: each request a walk over {from:?}..={to:?} renders is the bytes the loaded \
             journal renders for it"
        );
    }
}

/// The cache report of a window of requests around one, read from the store, is the loaded
/// journal's whole report cut to that window: the same entries, each still set against the
/// request before it (inside the window or not), and totals over the window alone.
fn assert_windows_equal_the_fold(
    store: &Store,
    id: i64,
    loaded: &IterateJournal,
    requests: &[i64],
    what: &str,
) {
    use journalscope_iterate::iterate::Transport;
    let whole = loaded
        .cache_report(Transport::Openai)
        .expect("a cache report");
    let middle = requests.len() / 2;
    for (index, before, after) in [(middle, 3, 2), (0, 5, 1), (requests.len() - 1, 1, 4)] {
        // A late request may repeat an earlier request's offset: the offset names the first.
        let index = requests
            .iter()
            .position(|o| *o == requests[index])
            .unwrap_or(index);
        let range = stored::requests_around(store, id, requests[index], (before, after))
            .expect("the store reads");
        let first = requests[index.saturating_sub(before as usize)];
        let last = requests[(index + after as usize).min(requests.len() - 1)];
        assert_eq!(
            range,
            (Some(first), Some(last)),
            "{what}: {before} requests before @{} and {after} after it, as far as there are",
            requests[index]
        );
        let window = diff::cache_report_stored(store, id, Transport::Openai, range)
            .expect("the store reads");
        assert_eq!(
            window,
            diff::cache_report_within(whole.clone(), range),
            "{what}: the window {range:?} from the store is the whole report cut to it"
        );
    }
}

/// Every request of the journal, rendered from the store, is byte for byte the request a
/// loaded journal renders, on both transports; an offset that is no request is refused alike.
fn assert_requests_equal_the_fold(store: &Store, id: i64, what: &str) {
    use journalscope_iterate::iterate::event::EventKind;
    use journalscope_iterate::iterate::Transport;
    let loaded = plain(store, id);
    let requests: Vec<i64> = loaded
        .events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::RequestRequested { .. }))
        .map(|e| e.offset)
        .collect();
    assert!(!requests.is_empty(), "{what}: the journal has requests");
    for &offset in &requests {
        for transport in [Transport::Openai, Transport::WorkersAi] {
            let seek = checkpoint::request_at(store, id, offset, transport)
                .expect("the store reads")
                .map(|snapshot| snapshot.body());
            let whole = loaded
                .request(offset, transport)
                .map(|snapshot| snapshot.body());
            assert_eq!(
                seek,
                whole,
                "{what}: request @{offset} renders the same bytes from a checkpoint: {}",
                String::from_utf8_lossy(seek.as_ref().map(Vec::as_slice).unwrap_or(b"error"))
            );
        }
        let pane = stored::request_view_at(store, id, offset, Transport::WorkersAi)
            .expect("the store reads");
        assert_eq!(
            pane,
            loaded.request_view(offset, Transport::WorkersAi),
            "{what}: the request pane @{offset} (published, unpublished, downgrades) from the \
             store equals the loaded journal's"
        );
    }
    assert_walks_equal_the_fold(store, id, &loaded, &requests, what);
    assert_windows_equal_the_fold(store, id, &loaded, &requests, what);
    for transport in [Transport::Openai, Transport::WorkersAi] {
        assert_eq!(
            diff::cache_report_stored(store, id, transport, (None, None)).expect("the store reads"),
            loaded.cache_report(transport).expect("a cache report"),
            "{what}: one pass over the store reports every request's prefix as the loaded \
             journal does on {transport:?}"
        );
    }
    let compactions: Vec<i64> = loaded
        .events
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::ContextAdded(c) if c.compaction.is_some()))
        .map(|e| e.offset)
        .collect();
    assert!(
        !compactions.is_empty(),
        "{what}: the journal has compactions"
    );
    for offset in compactions {
        let pane = stored::compaction_at(store, id, offset).expect("the store reads");
        assert_eq!(
            pane.map_err(|e| e.to_string()),
            loaded.compaction(offset).map_err(|e| e.to_string()),
            "{what}: the compaction pane @{offset} (both sides, their diagnostics, what it \
             dropped) from the store equals the loaded journal's"
        );
    }
    let other = loaded
        .events
        .iter()
        .find(|e| !matches!(e.kind, EventKind::RequestRequested { .. }))
        .map(|e| e.offset)
        .expect("an event that is no request");
    assert!(
        matches!(
            checkpoint::request_at(store, id, other, Transport::Openai),
            Ok(Err(_))
        ),
        "{what}: @{other} is no request, from the store as loaded"
    );
}

#[test]
fn given_a_streamed_import_when_any_offset_is_viewed_from_the_store_then_it_equals_the_whole_fold()
{
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("journal.jsonl");
    let lines = varied(4_000, 7);
    write(&file, &lines, false);
    let store = Store::open(&dir.path().join("journal.sqlite")).expect("store");
    let id = import(&store, &file);
    let stored = checkpoints_kept(&store, id);
    assert!(
        stored >= 4,
        "a journal of 4,000 records keeps several checkpoints, kept {stored}"
    );
    assert_seeks_equal_the_fold(&store, id, 1, "streamed import");
    assert_requests_equal_the_fold(&store, id, "streamed import");
}

#[test]
fn given_a_compressed_import_and_appends_when_viewed_from_the_store_then_each_equals_the_whole_fold(
) {
    let dir = tempfile::tempdir().expect("temp dir");
    let lines = varied(3_000, 11);
    let gz = dir.path().join("journal.jsonl.gz");
    write(&gz, &lines, true);
    let store = Store::open(&dir.path().join("gz.sqlite")).expect("store");
    let id = import(&store, &gz);
    assert_seeks_equal_the_fold(&store, id, 3, "whole-file import");

    let file = dir.path().join("grows.jsonl");
    let store = Store::open(&dir.path().join("grows.sqlite")).expect("store");
    let mut id = 0;
    for end in [700, 1_900, 3_000] {
        write(&file, &lines[..end], false);
        id = import(&store, &file);
    }
    assert_seeks_equal_the_fold(&store, id, 3, "import then appends");
}

#[test]
fn regression_a_streamed_batch_without_marks_dropped_its_checkpoints() {
    // Given a journal whose batches find no mark and no diagnostic, and whose projection
    // stays small: an agent paused and resumed, over and over
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("quiet.jsonl");
    let mut lines = vec![iterate_lines::system_prompt(0, "prompt")];
    lines.extend((1..12_000).map(|offset| {
        let kind = if offset % 2 == 0 { "paused" } else { "resumed" };
        iterate_lines::event(offset, kind, json!({"reason": "maintenance"}))
    }));
    write(&file, &lines, false);
    // When it is imported by the streaming path
    let store = Store::open(&dir.path().join("quiet.sqlite")).expect("store");
    let id = import(&store, &file);
    // Then every checkpoint the fold took is kept, not only those of batches with marks
    let kept = checkpoints_kept(&store, id);
    assert!(
        kept >= 12_000 / 2 / 512,
        "the checkpoints of quiet batches are stored: {kept}"
    );
    assert_seeks_equal_the_fold(&store, id, 997, "a journal without marks");
}

#[test]
fn given_offsets_that_go_backwards_when_viewed_from_the_store_then_each_view_equals_the_whole_fold()
{
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("journal.jsonl");
    let mut lines = varied_with(3_000, 5, true);
    lines.push(iterate_lines::user(3, "out of order"));
    write(&file, &lines, false);
    let store = Store::open(&dir.path().join("journal.sqlite")).expect("store");
    let id = import(&store, &file);
    assert!(
        store.has_late_records(id).expect("the store reads"),
        "the journal's offsets go back"
    );
    assert_seeks_equal_the_fold(&store, id, 1, "offsets that go back");
    assert_requests_equal_the_fold(&store, id, "offsets that go back");
}

/// Everything derived from a journal's records: what an import in parts must leave exactly as
/// an import of the whole file does.
fn derived(store: &Store, id: i64) -> impl PartialEq + std::fmt::Debug {
    let checkpoints: Vec<(i64, Vec<u8>)> = store
        .inspection_connection()
        .prepare("SELECT seq, state FROM checkpoints WHERE journal_id = ?1 ORDER BY seq")
        .expect("prepare")
        .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows");
    (
        store.marks(id).expect("marks"),
        store.diagnostics(id).expect("diagnostics"),
        store.tip(id).expect("tip"),
        store.checkpoint_cover(id).expect("cover"),
        checkpoints,
    )
}

#[test]
fn given_a_database_from_before_the_checkpoints_when_its_unchanged_file_is_opened_then_it_gets_them(
) {
    // Protects the migration of an existing database: its journal file is only read, its
    // derived tables are brought up to date once, and views then answer from checkpoints.
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("journal.jsonl");
    write(&file, &varied(2_000, 3), false);
    let before = std::fs::read(&file).expect("read");
    let store = Store::open(&dir.path().join("journal.sqlite")).expect("store");
    let id = import(&store, &file);
    for table in ["checkpoints", "checkpoint_blocks", "checkpoint_cover"] {
        store
            .inspection_connection()
            .execute(&format!("DELETE FROM {table}"), [])
            .expect("forget the checkpoints");
    }
    assert_seeks_equal_the_fold(&store, id, 97, "a database without checkpoints");
    assert_eq!(import(&store, &file), id, "the same generation");
    assert!(
        checkpoints_kept(&store, id) > 0,
        "opening the unchanged file again kept the checkpoints"
    );
    assert_seeks_equal_the_fold(&store, id, 11, "a migrated database");
    assert_eq!(
        std::fs::read(&file).expect("read"),
        before,
        "the journal file is only read"
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(6))]

    /// Appends in random chunk sizes fold from the last checkpoint; what they leave must be
    /// what one import of the whole file leaves, checkpoint bytes included.
    #[test]
    fn an_import_then_appends_in_random_chunks_derive_what_one_import_does(
        seed in 0u64..1_000_000,
        cuts in proptest::collection::vec(1usize..2_400, 1..5),
        late in proptest::bool::ANY,
    ) {
        let lines = varied_with(2_400, seed, late);
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("whole.jsonl");
        write(&file, &lines, false);
        let whole = Store::open(&dir.path().join("whole.sqlite")).expect("store");
        let whole_id = import(&whole, &file);

        let mut cuts = cuts;
        cuts.sort_unstable();
        cuts.push(lines.len());
        let grows = dir.path().join("grows.jsonl");
        let grown = Store::open(&dir.path().join("grows.sqlite")).expect("store");
        let mut grown_id = 0;
        for end in cuts {
            write(&grows, &lines[..end], false);
            grown_id = import(&grown, &grows);
        }
        proptest::prop_assert_eq!(
            derived(&grown, grown_id),
            derived(&whole, whole_id),
            "marks, diagnostics, tip and checkpoints after appends are those of one import"
        );
    }

    /// Any varied journal, streamed or compressed, its offsets rising or not: every view from
    /// the store equals the fold.
    #[test]
    fn a_view_from_a_checkpoint_equals_the_fold_of_the_whole_journal(
        seed in 0u64..1_000_000,
        events in 600usize..2_500,
        gzip in proptest::bool::ANY,
        late in proptest::bool::ANY,
    ) {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join(if gzip { "j.jsonl.gz" } else { "j.jsonl" });
        write(&file, &varied_with(events, seed, late), gzip);
        let store = Store::open(&dir.path().join("j.sqlite")).expect("store");
        let id = import(&store, &file);
        assert_seeks_equal_the_fold(&store, id, 7, "generated journal");
        assert_requests_equal_the_fold(&store, id, "generated journal");
    }
}
