//! A journal's views answer from its database, whatever its length and whether or not its
//! offsets always rise: the projection at every event (from the analysis's tip at the end and
//! from the checkpoints elsewhere), the request list, the cache report, search's item filters
//! and the breakpoints must be what a plain fold of every parsed record gives.

use crate::support::iterate_lines;

use std::path::{Path, PathBuf};

use journalscope::breakpoint::Breakpoint;
use journalscope::dialect::{self, Ask, Dialect, MessageWindow};
use journalscope::import::ImportControl;
use journalscope::journal::Journal;
use journalscope::store::Store;
use journalscope_iterate::iterate::view::Tip;
use journalscope_iterate::iterate::{IterateJournal, Transport};

/// The window's step at row `seq`: the projection there.
fn step(seq: u64) -> Ask {
    Ask::Step {
        seq,
        session: None,
        window: MessageWindow::FIRST,
    }
}

fn quiet_open(path: &Path, db: &Path) -> Journal {
    let mut quiet = |_| {};
    let mut control = ImportControl {
        progress: &mut quiet,
        cancel: None,
    };
    Journal::open(path, Some(db), &mut control).expect("opens")
}

/// The plain fold of a journal: every stored record parsed, each view folded from the first.
fn plain(journal: &Journal) -> IterateJournal {
    IterateJournal::from_stored(&journal.store().events(journal.row().id).expect("events"))
}

/// A generated iterate journal of `events` events imported into a database of its own: the
/// database, and the journal opened from it.
fn long_journal(dir: &Path, events: u64, compact_every: u64) -> (PathBuf, Journal) {
    let file = dir.join("long.jsonl");
    let mut text = Vec::new();
    journalscope_gen::write_synthetic(&mut text, events, compact_every).expect("generate");
    std::fs::write(&file, text).expect("write");
    let db = dir.join("journal.sqlite");
    let journal = quiet_open(&file, &db);
    (db, journal)
}

/// Every iterate journal of the fixture corpus, the rule fixtures and the demo.
fn iterate_journals() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = vec![root.join("demo/iterate-demo.jsonl")];
    for dir in ["tests/fixtures/iterate", "tests/fixtures/bad"] {
        let mut found: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .expect("fixture dir")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        found.sort();
        paths.extend(found);
    }
    paths
}

/// Asserts that `journal` shows at event `seq` what the plain fold shows at that event's offset.
fn assert_projection_is_plain(name: &str, journal: &Journal, plain: &IterateJournal, seq: u64) {
    let at = journal
        .store()
        .offset_at_or_before_seq(journal.row().id, seq)
        .expect("the store reads");
    let mut want = plain.projection_view(at.unwrap_or(i64::MIN));
    if at.is_none() {
        want.at = 0;
    }
    // The journal knows its contract whole, and its views follow it at every offset.
    use journalscope_iterate::iterate::contract::ContractName;
    want = match journal.contract().expect("the marks read").map(|c| c.name) {
        Some(ContractName::AgentLoop) => want.under_agent_loop(),
        Some(ContractName::Sections) => want.under_sections(),
        _ => want,
    };
    assert_eq!(
        journal.view(&step(seq)).expect("the store answers"),
        serde_json::to_value(&want).expect("a projection is JSON"),
        "{name}: the projection at event {seq} is the plain fold's"
    );
}

#[test]
fn given_every_iterate_fixture_when_opened_then_each_projection_it_shows_is_the_plain_folds() {
    let mut checked = 0;
    for path in iterate_journals() {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = dir.path().join("journal.sqlite");
        let journal = quiet_open(&path, &db);
        if journal.dialect() != Dialect::Iterate {
            continue;
        }
        let name = path.display().to_string();
        let plain = plain(&journal);
        for seq in 0..journal.event_count() {
            assert_projection_is_plain(&name, &journal, &plain, seq);
        }
        assert_eq!(
            journal.requests().expect("the analysis's rows"),
            plain.requests(),
            "{name}: the request list"
        );
        checked += 1;
    }
    assert!(
        checked >= 8,
        "the corpus has iterate journals to check ({checked})"
    );
}

#[test]
fn given_an_import_when_analysed_again_from_the_store_then_the_tip_is_the_one_the_import_kept() {
    for path in iterate_journals() {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = dir.path().join("journal.sqlite");
        let journal = quiet_open(&path, &db);
        if journal.dialect() != Dialect::Iterate {
            continue;
        }
        let store = journal.store();
        let id = journal.row().id;
        let kept = store.tip(id).expect("read the tip");
        let events = store.events(id).expect("events");
        let again = dialect::analyse(Dialect::Iterate, &events);
        assert_eq!(
            kept,
            again.tip,
            "{}: the import's fold and a fold of the stored records leave the same tip",
            path.display()
        );
        let kept = Tip::from_row(&kept.expect("an iterate import keeps a tip"))
            .expect("the kept view reads");
        assert_eq!(
            kept.events,
            journal.event_count(),
            "the tip counts every record"
        );
        let at = kept.through.max(0) + 7;
        assert_eq!(
            kept.view_at(at).expect("past the last offset"),
            plain(&journal).projection_view(at),
            "{}: past the last offset the tip is the plain fold's projection",
            path.display()
        );
    }
}

/// A long journal, its offsets rising or going back now and then: every view answers from the
/// database, at its ends and in its middle, as the plain fold does.
#[test]
fn given_a_long_journal_when_opened_then_every_view_answers_from_the_store_as_the_plain_fold() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (_, rising) = long_journal(dir.path(), 8_000, 5);

    let file = dir.path().join("backwards.jsonl");
    let mut text = Vec::new();
    journalscope_gen::write_synthetic(&mut text, 8_000, 5).expect("generate");
    text.extend_from_slice(iterate_lines::user(3, "out of order").as_bytes());
    text.push(b'\n');
    std::fs::write(&file, text).expect("write");
    let backwards = quiet_open(&file, &dir.path().join("backwards.sqlite"));
    assert!(
        backwards
            .store()
            .has_late_records(backwards.row().id)
            .expect("the store reads"),
        "the second journal's offsets go back"
    );

    for (name, journal) in [("rising", &rising), ("going back", &backwards)] {
        let plain = plain(journal);
        let last = journal.event_count() - 1;
        for seq in [0, 1, 100, 4_000, 6_500, last] {
            assert_projection_is_plain(name, journal, &plain, seq);
        }
        assert_eq!(
            journal
                .requests()
                .expect("the request list reads from the store"),
            plain.requests(),
            "{name}: the request list is the analysis's rows, the same as the plain fold's"
        );
        for transport in Transport::ALL {
            assert_eq!(
                journal
                    .cache_report(transport)
                    .expect("the cache report reads the checkpoints"),
                plain.cache_report(transport).expect("plain"),
                "{name}: the cache report on {transport:?} is the plain fold's"
            );
        }
    }
}

#[test]
fn given_a_tip_for_another_event_count_when_opened_then_it_is_not_shown() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (db, loaded) = long_journal(dir.path(), 21_000, 9);
    let id = loaded.row().id;
    {
        // As an append stopped before its analysis leaves it: a tip of fewer events.
        let store = Store::open(&db).expect("store");
        let events = store.events(id).expect("events");
        let mut stale = dialect::analyse(Dialect::Iterate, &events);
        let mut tip = Tip::from_row(stale.tip.as_ref().expect("tip")).expect("reads");
        tip.events -= 1;
        tip.view.history.clear();
        stale.tip = Some(tip.row());
        store
            .replace_analysis(id, &stale)
            .expect("write the stale tip");
    }
    let reopened = quiet_open(&db, &db);
    let last = loaded.event_count() - 1;
    assert_projection_is_plain(
        "a tip that does not describe every stored event is not shown as the journal's end: \
         the checkpoints give the plain view instead of its cleared history",
        &reopened,
        &plain(&reopened),
        last,
    );
}

/// The streaming import stores what its fold finds batch by batch: read back, that must be the
/// analysis a fold of the stored journal writes whole, marks and diagnostics in the same order.
#[test]
fn given_an_import_written_batch_by_batch_when_read_back_then_it_is_the_analysis_written_whole() {
    let dir = tempfile::tempdir().expect("temp dir");
    let long = dir.path().join("long.jsonl");
    let mut text = Vec::new();
    journalscope_gen::write_synthetic(&mut text, 23_000, 11).expect("generate");
    // Odd records among the generated ones: diagnostics in several batches.
    let mut lines: Vec<String> = String::from_utf8(text)
        .expect("utf-8")
        .lines()
        .map(str::to_string)
        .collect();
    for at in [3, 6_001, 12_345, 22_000] {
        lines.insert(at, "{not json".to_string());
    }
    std::fs::write(&long, lines.join("\n") + "\n").expect("write");
    let mut paths = iterate_journals();
    paths.push(long);
    for path in paths {
        let db = dir.path().join("written.sqlite");
        let _ = std::fs::remove_file(&db);
        let journal = quiet_open(&path, &db);
        if journal.dialect() != Dialect::Iterate {
            continue;
        }
        let store = journal.store();
        let id = journal.row().id;
        let (marks, diagnostics) = (
            store.marks(id).expect("marks"),
            store.diagnostics(id).expect("diagnostics"),
        );
        let events = store.events(id).expect("events");
        store
            .replace_analysis(id, &dialect::analyse(Dialect::Iterate, &events))
            .expect("rewrite whole");
        assert_eq!(
            store.marks(id).expect("marks"),
            marks,
            "{}: the same marks, in the same order",
            path.display()
        );
        assert_eq!(
            store.diagnostics(id).expect("diagnostics"),
            diagnostics,
            "{}: the same diagnostics, in the same order",
            path.display()
        );
        if path.ends_with("long.jsonl") {
            assert!(
                marks.len() > 5_000 && diagnostics.len() >= 4,
                "the long journal has marks and diagnostics across batches ({}, {})",
                marks.len(),
                diagnostics.len()
            );
        }
    }
}

#[test]
fn given_a_replaced_file_when_reloaded_then_the_new_generation_shows_its_own_views() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let file = dir.path().join("journal.jsonl");
    let db = dir.path().join("journal.sqlite");
    std::fs::copy(root.join("tests/fixtures/iterate/basic.jsonl"), &file).expect("copy");
    let journal = quiet_open(&file, &db);
    let first = journal.row().id;

    // The file is replaced (not appended to): its import is a new generation.
    std::fs::copy(root.join("tests/fixtures/iterate/compaction.jsonl"), &file).expect("replace");
    {
        let store = Store::open(&db).expect("store");
        let mut quiet = |_| {};
        journalscope::import::import_file(
            &store,
            &file,
            &mut ImportControl {
                progress: &mut quiet,
                cancel: None,
            },
        )
        .expect("import the replacement");
    }
    let reloaded = journal.reload().expect("reload");
    assert_ne!(
        reloaded.row().id,
        first,
        "the reload holds the new generation"
    );
    let fresh = quiet_open(&file, &dir.path().join("fresh.sqlite"));
    assert_eq!(
        reloaded.event_count(),
        fresh.event_count(),
        "every new event is counted"
    );
    let last = fresh.event_count() - 1;
    assert_eq!(
        reloaded.view(&step(last)).expect("the end shows"),
        fresh.view(&step(last)).expect("fresh"),
        "the new generation's end is its own, not the old one's"
    );
    assert_eq!(
        reloaded.requests().expect("reloaded"),
        fresh.requests().expect("fresh"),
        "the new generation's requests"
    );
}

#[test]
fn given_a_database_written_without_a_tip_or_checkpoints_when_opened_then_they_are_rebuilt() {
    // Protects a database an older version wrote: opening it brings its derived tables up to
    // date once, and its end then shows from the tip.
    let dir = tempfile::tempdir().expect("temp dir");
    let (db, journal) = long_journal(dir.path(), 21_000, 13);
    let id = journal.row().id;
    let last = journal.event_count() - 1;
    let want = journal.view(&step(last)).expect("the end");
    drop(journal);
    {
        let store = Store::open(&db).expect("store");
        store.keep_tip(id, None).expect("remove the tip");
        store
            .inspection_connection()
            .execute("DELETE FROM checkpoint_cover", [])
            .expect("forget the checkpoints");
    }
    let reopened = quiet_open(&db, &db);
    assert!(
        reopened.store().tip(id).expect("read").is_some(),
        "opening the database kept a tip again"
    );
    assert!(
        reopened
            .store()
            .checkpoint_cover(id)
            .expect("read")
            .is_some(),
        "and the checkpoints"
    );
    assert_eq!(
        reopened.view(&step(last)).expect("the end shows"),
        want,
        "the rebuilt tip is the one a fresh analysis keeps"
    );
}

#[test]
fn given_more_diagnostics_than_a_view_carries_when_imported_then_the_tip_is_the_plain_view() {
    // Protects the import's bounded tail of read diagnostics: its tip must count and list
    // exactly what a view of every diagnostic gives, fold diagnostics (two errors, one among
    // the latest) and a record without an offset (in no view) included.
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("noisy.jsonl");
    let unknown = |offset: u64| {
        format!(r#"{{"offset":{offset},"type":"events.iterate.com/github/webhook-received"}}"#)
    };
    let bad_compaction = |offset: u64| {
        format!(
            r#"{{"offset":{offset},"type":"events.iterate.com/agent/context-added","payload":{{"role":"developer","content":"s","compaction":{{"replacesHistoryThrough":{offset}}}}}}}"#
        )
    };
    let mut lines = vec![
        r#"{"offset":1,"type":"events.iterate.com/agent/context-added","payload":{"role":"system","key":"agent/system-prompt","content":"p"}}"#.to_string(),
        "not json".to_string(),
        bad_compaction(2),
    ];
    lines.extend((3..=200).map(unknown));
    lines.push(bad_compaction(201));
    lines.extend((202..=240).map(unknown));
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");

    let db = dir.path().join("noisy.sqlite");
    let journal = quiet_open(&path, &db);
    let kept = journal
        .store()
        .tip(journal.row().id)
        .expect("read the tip")
        .and_then(|row| Tip::from_row(&row))
        .expect("an iterate import keeps a tip");
    let loaded = plain(&journal).projection_view(240);
    assert_eq!(
        kept.view_at(240).expect("at the last offset"),
        loaded,
        "the import's tip is the plain fold's projection at the end"
    );
    assert_eq!(
        (loaded.diagnostic_count, loaded.error_count),
        (237 + 2, 2),
        "every unknown type and both bad compactions count; the line without an offset does not"
    );
    assert!(
        loaded
            .diagnostics
            .iter()
            .any(|d| d.code == "compaction-cutoff-not-before-item"),
        "the late fold error is among the latest"
    );
}

/// The downgrade and key stops a plain fold of the parsed events gives: where an item whose
/// provider role on `transport` is a downgrade enters the projection, and every event setting
/// keyed slot `key`.
fn folded_stops(plain: &IterateJournal, transport: Transport, key: &str) -> (Vec<u64>, Vec<u64>) {
    use journalscope_iterate::iterate::event::{EventKind, Role};
    let events = &plain.events;
    let mut projection = journalscope_iterate::iterate::projection::Projection::default();
    let (mut downgrades, mut keys) = (Vec::new(), Vec::new());
    for event in events {
        projection.apply(event);
        let EventKind::ContextAdded(context) = &event.kind else {
            continue;
        };
        if context.key.as_deref() == Some(key)
            && !(context.role == Role::Developer && context.compaction.is_some())
        {
            keys.push(event.seq);
        }
        let entered = projection
            .last_item
            .and_then(|(lane, index)| projection.lane(lane).get(index))
            .filter(|item| item.seq == event.seq);
        if entered.is_some_and(|item| {
            journalscope_iterate::iterate::roles::provider_role(item, transport)
                .rule
                .is_downgrade()
        }) {
            downgrades.push(event.seq);
        }
    }
    (downgrades, keys)
}

fn stops(journal: &Journal, breakpoint: Breakpoint) -> Vec<u64> {
    breakpoint
        .hits(journal)
        .expect("the breakpoint answers from the store")
        .iter()
        .map(|hit| hit.seq)
        .collect()
}

/// Protects search's item filters, the downgrade breakpoint of one transport and the key
/// breakpoint, which read the analysis's marks and the stored records: on every iterate fixture
/// and on a long journal they answer as a fold of every parsed event does.
#[test]
fn given_any_iterate_journal_then_item_facts_downgrade_and_key_stops_are_the_folds() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (long_db, long) = long_journal(dir.path(), 21_000, 7);
    let mut cases = vec![(long_db.clone(), long_db, long)];
    for (n, path) in iterate_journals().into_iter().enumerate() {
        let db = dir.path().join(format!("fixture-{n}.sqlite"));
        let journal = quiet_open(&path, &db);
        cases.push((path, db, journal));
    }
    for (path, db, loaded) in cases {
        if loaded.dialect() != Dialect::Iterate {
            // A broken fixture may read as no dialect at all: it has no iterate stops to check.
            continue;
        }
        let folded = plain(&loaded);
        let keys: std::collections::BTreeSet<String> = folded
            .events
            .iter()
            .filter_map(|event| match &event.kind {
                journalscope_iterate::iterate::event::EventKind::ContextAdded(c) => c.key.clone(),
                _ => None,
            })
            .take(20)
            .collect();
        let store = Store::open(&db).expect("store");
        assert_eq!(
            journalscope::search::stored_item_facts(
                &store,
                loaded.row().id,
                &journalscope::search::SearchQuery::default()
            )
            .expect("reads"),
            journalscope::search::item_facts(
                &journalscope_iterate::iterate::IterateJournal::from_stored(
                    &store.events(loaded.row().id).expect("events")
                )
            ),
            "{}: the item facts read from the store are the plain fold's",
            path.display()
        );
        for transport in Transport::ALL {
            for key in keys.iter().map(String::as_str).chain(["no/such-key"]) {
                let (downgrades, changes) = folded_stops(&folded, transport, key);
                assert_eq!(
                    stops(
                        &loaded,
                        Breakpoint::NextDowngrade {
                            transport: Some(transport)
                        }
                    ),
                    downgrades,
                    "{}: downgrades on {transport:?}",
                    path.display()
                );
                assert_eq!(
                    stops(
                        &loaded,
                        Breakpoint::KeyChanges {
                            key: key.to_string()
                        }
                    ),
                    changes,
                    "{}: changes of key {key:?}",
                    path.display()
                );
            }
        }
    }
}
