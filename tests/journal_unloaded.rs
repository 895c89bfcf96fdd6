//! A journal opened without loading its events (`Journal::open_unloaded`), as the window opens
//! one: the projection it shows from the analysis's tip and from short folds of the store must
//! be the projection a loaded journal shows, and what it cannot show yet says so.

mod common;

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use journalscope::breakpoint::Breakpoint;
use journalscope::dialect::{self, Dialect};
use journalscope::import::ImportControl;
use journalscope::iterate::view::Tip;
use journalscope::iterate::Transport;
use journalscope::journal::{Journal, JournalError, LoadedViews};
use journalscope::store::Store;

fn quiet_open(path: &Path, db: &Path, unloaded: bool) -> Journal {
    let mut quiet = |_| {};
    let mut control = ImportControl {
        progress: &mut quiet,
        cancel: None,
    };
    if unloaded {
        Journal::open_unloaded(path, Some(db), &mut control).expect("opens unloaded")
    } else {
        Journal::open(path, Some(db), &mut control).expect("opens")
    }
}

/// A generated iterate journal of `events` events (longer than the store's prefix fold) imported
/// into a database of its own: the database, and the journal opened loaded from it.
fn long_journal(dir: &Path, events: u64, compact_every: u64) -> (PathBuf, Journal) {
    let file = dir.join("long.jsonl");
    let mut text = Vec::new();
    journalscope::gen::write_synthetic(&mut text, events, compact_every).expect("generate");
    std::fs::write(&file, text).expect("write");
    let db = dir.join("journal.sqlite");
    let loaded = quiet_open(&file, &db, false);
    (db, loaded)
}

/// Runs the background load an unloaded journal owes, to its end, as the window's thread does.
fn read_views(journal: &Journal) -> LoadedViews {
    journal
        .views_load()
        .expect("an unloaded iterate journal owes a load")
        .run(&mut |_| ControlFlow::Continue(()))
        .expect("the load reads the store")
        .expect("the load runs to its end")
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

/// Asserts that `unloaded` shows what `loaded` shows at every event, or says it is loading;
/// returns how many events it answered.
fn assert_unloaded_agrees(name: &str, unloaded: &Journal, loaded: &Journal) -> u64 {
    let mut answered = 0;
    for seq in 0..loaded.event_count() {
        let want = loaded
            .projection_at_seq(seq)
            .expect("a loaded journal answers");
        match unloaded.projection_at_seq(seq) {
            Ok(got) => {
                assert_eq!(
                    got, want,
                    "{name}: the projection at event {seq} is the loaded one"
                );
                answered += 1;
            }
            Err(JournalError::Loading) => {}
            Err(other) => panic!("{name}: event {seq} failed while unloaded: {other}"),
        }
    }
    answered
}

#[test]
fn given_every_iterate_fixture_when_opened_unloaded_then_each_projection_it_shows_is_the_loaded_one(
) {
    let mut checked = 0;
    for path in iterate_journals() {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = dir.path().join("journal.sqlite");
        let loaded = quiet_open(&path, &db, false);
        if loaded.dialect() != Dialect::Iterate {
            continue;
        }
        let name = path.display().to_string();
        let unloaded = quiet_open(&db, &db, true);
        assert!(!unloaded.is_loaded(), "{name}: opened without its events");
        let answered = assert_unloaded_agrees(&name, &unloaded, &loaded);
        assert_eq!(
            answered,
            loaded.event_count(),
            "{name}: a journal this short folds from the store at every event"
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
        let journal = quiet_open(&path, &db, false);
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
            journal.projection(at).expect("loaded"),
            "{}: past the last offset the tip is the loaded projection",
            path.display()
        );
    }
}

/// A journal longer than an unloaded journal folds from the store: every offset shows at once
/// from the checkpoints, whole-journal views wait for the load, and after the install
/// everything answers.
#[test]
fn given_a_long_journal_when_opened_unloaded_then_its_ends_show_at_once_and_the_rest_after_install()
{
    let dir = tempfile::tempdir().expect("temp dir");
    let (db, loaded) = long_journal(dir.path(), 30_000, 5);
    let mut unloaded = quiet_open(&db, &db, true);
    let last = loaded.event_count() - 1;

    for seq in [0, 1, 100, 19_000, last] {
        assert_eq!(
            unloaded
                .projection_at_seq(seq)
                .expect("shown while unloaded"),
            loaded.projection_at_seq(seq).expect("loaded"),
            "event {seq}, near an end, shows the loaded projection before the load"
        );
    }
    assert_eq!(
        unloaded
            .projection_at_seq(25_000)
            .expect("the middle shows from a checkpoint"),
        loaded.projection_at_seq(25_000).expect("loaded"),
        "the middle of a long journal is a checkpoint plus a short fold, not a wait for the load"
    );
    assert_eq!(
        unloaded
            .requests()
            .expect("the request list reads from the store"),
        loaded.requests().expect("loaded"),
        "the request list is the analysis's rows, the same as the loaded fold's, without a load"
    );
    for transport in [
        journalscope::iterate::Transport::Openai,
        journalscope::iterate::Transport::WorkersAi,
    ] {
        assert_eq!(
            unloaded
                .cache_report(transport)
                .expect("the cache report reads the request rows and checkpoints"),
            loaded.cache_report(transport).expect("loaded"),
            "the cache report on {transport:?} is the loaded fold's, without a load"
        );
    }
    let developer_items = journalscope::search::SearchQuery {
        role: Some("developer".to_string()),
        ..Default::default()
    };
    assert_eq!(
        unloaded
            .search(&developer_items)
            .expect("item filters read the stored records"),
        loaded.search(&developer_items).expect("loaded"),
        "search's item filters give the loaded fold's hits without a load"
    );
    assert_eq!(
        JournalError::Loading.code(),
        "loading",
        "the window tells a wait from a failure by this code"
    );

    let load = unloaded
        .views_load()
        .expect("an unloaded iterate journal needs a load");
    assert_eq!(
        load.events(),
        loaded.event_count(),
        "the load covers every event"
    );
    let views = load
        .run(&mut |_| ControlFlow::Continue(()))
        .expect("the load reads")
        .expect("nobody stopped it");
    assert!(
        unloaded.install(views).expect("install"),
        "the load is taken in"
    );
    assert!(unloaded.is_loaded(), "installed, the journal is loaded");
    assert!(unloaded.views_load().is_none(), "and needs no second load");
    for seq in (0..=last).step_by(1_499).chain([25_000, last]) {
        assert_eq!(
            unloaded.projection_at_seq(seq).expect("loaded"),
            loaded.projection_at_seq(seq).expect("loaded"),
            "event {seq} after the install"
        );
    }
    assert_eq!(
        unloaded.requests().expect("loaded"),
        loaded.requests().expect("loaded"),
        "whole-journal views answer after the install"
    );
}

#[test]
fn given_a_long_journal_when_its_offsets_increase_then_no_view_waits_for_a_load_and_when_one_goes_back_then_they_do(
) {
    let dir = tempfile::tempdir().expect("temp dir");
    let (db, _) = long_journal(dir.path(), 30_000, 5);
    let unloaded = quiet_open(&db, &db, true);
    assert!(
        !unloaded.views_wait_for_load().expect("the store reads"),
        "the checkpoints answer every view of a journal whose offsets increase: a window never \
         loads it"
    );

    let file = dir.path().join("backwards.jsonl");
    let mut text = Vec::new();
    journalscope::gen::write_synthetic(&mut text, 30_000, 5).expect("generate");
    text.extend_from_slice(common::user(3, "out of order").as_bytes());
    text.push(b'\n');
    std::fs::write(&file, text).expect("write");
    let backwards_db = dir.path().join("backwards.sqlite");
    let mut unloaded = quiet_open(&file, &backwards_db, true);
    assert!(
        unloaded.views_wait_for_load().expect("the store reads"),
        "a journal whose offsets go back cannot start a fold from a checkpoint: its views wait \
         for the load, so a window starts it at once"
    );
    assert!(
        matches!(
            unloaded.projection_at_seq(25_000),
            Err(JournalError::Loading)
        ),
        "the middle of such a journal waits for the load"
    );
    let views = read_views(&unloaded);
    assert!(
        unloaded.install(views).expect("install"),
        "the load is taken in"
    );
    assert!(
        !unloaded.views_wait_for_load().expect("the store reads"),
        "loaded, no view waits any more"
    );
    unloaded
        .projection_at_seq(25_000)
        .expect("the middle answers once loaded");
}

#[test]
fn given_a_tip_for_another_event_count_when_opened_unloaded_then_it_is_not_shown() {
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
    let unloaded = quiet_open(&db, &db, true);
    let last = loaded.event_count() - 1;
    assert_eq!(
        unloaded
            .projection_at_seq(last)
            .expect("the checkpoints answer"),
        loaded.projection_at_seq(last).expect("loaded"),
        "a tip that does not describe every stored event is not shown as the journal's end: \
         the checkpoints give the loaded view instead of its cleared history"
    );
}

#[test]
fn given_another_journal_load_when_installed_then_it_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let first = quiet_open(
        &root.join("tests/fixtures/iterate/basic.jsonl"),
        &dir.path().join("a.sqlite"),
        true,
    );
    let mut second = quiet_open(
        &root.join("tests/fixtures/iterate/keyed.jsonl"),
        &dir.path().join("b.sqlite"),
        true,
    );
    let views = read_views(&first);
    // Both databases hold journal 1: only where the load read tells them apart.
    assert!(
        !second.install(views).expect("install"),
        "a load read from another database is never taken in"
    );
    assert!(
        !second.is_loaded(),
        "and the journal still waits for its own"
    );
}

/// The streaming import stores what its fold finds batch by batch: read back, that must be the
/// analysis a fold of the stored journal writes whole, marks and diagnostics in the same order.
#[test]
fn given_an_import_written_batch_by_batch_when_read_back_then_it_is_the_analysis_written_whole() {
    let dir = tempfile::tempdir().expect("temp dir");
    let long = dir.path().join("long.jsonl");
    let mut text = Vec::new();
    journalscope::gen::write_synthetic(&mut text, 23_000, 11).expect("generate");
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
        let journal = quiet_open(&path, &db, true);
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
fn given_a_replaced_file_when_reloaded_unloaded_then_the_new_generation_shows_its_end_and_loads_later(
) {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let file = dir.path().join("journal.jsonl");
    let db = dir.path().join("journal.sqlite");
    std::fs::copy(root.join("tests/fixtures/iterate/basic.jsonl"), &file).expect("copy");
    let journal = quiet_open(&file, &db, true);
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
    let mut reloaded = journal.reload_unloaded().expect("reload");
    assert_ne!(
        reloaded.row().id,
        first,
        "the reload holds the new generation"
    );
    assert!(
        !reloaded.is_loaded(),
        "a new generation comes back unloaded"
    );
    let fresh = quiet_open(&file, &dir.path().join("fresh.sqlite"), false);
    assert_eq!(
        reloaded.event_count(),
        fresh.event_count(),
        "every new event is counted"
    );
    let last = fresh.event_count() - 1;
    assert_eq!(
        reloaded
            .projection_at_seq(last)
            .expect("the end shows unloaded"),
        fresh.projection_at_seq(last).expect("loaded"),
        "the new generation's end is its own, not the old one's"
    );
    let views = read_views(&reloaded);
    assert!(
        reloaded.install(views).expect("install"),
        "the load is taken in"
    );
    assert_eq!(
        reloaded.requests().expect("loaded"),
        fresh.requests().expect("loaded"),
        "after the load, the new generation's requests"
    );
}

#[test]
fn given_a_journal_stored_without_a_tip_when_loaded_once_then_it_opens_at_its_end_at_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (db, loaded) = long_journal(dir.path(), 21_000, 13);
    let id = loaded.row().id;
    let last = loaded.event_count() - 1;
    {
        // As a database from before migration 7 is: no tip, and no checkpoints either.
        let store = Store::open(&db).expect("store");
        store.keep_tip(id, None).expect("remove the tip");
        store
            .inspection_connection()
            .execute("DELETE FROM checkpoint_cover", [])
            .expect("forget the checkpoints");
    }
    let mut unloaded = quiet_open(&db, &db, true);
    assert!(
        matches!(unloaded.projection_at_seq(last), Err(JournalError::Loading)),
        "without a tip, the end of a long journal waits for the load"
    );
    let views = read_views(&unloaded);
    assert!(unloaded.install(views).expect("install"), "installed");
    drop(unloaded);

    let reopened = quiet_open(&db, &db, true);
    assert!(!reopened.is_loaded(), "opened again without its events");
    assert_eq!(
        reopened
            .projection_at_seq(last)
            .expect("the end shows at once now"),
        loaded.projection_at_seq(last).expect("loaded"),
        "the load kept the tip a fresh analysis keeps"
    );
}

#[test]
fn given_more_diagnostics_than_a_view_carries_when_imported_then_the_tip_is_the_loaded_view() {
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
    let journal = quiet_open(&path, &db, false);
    let kept = journal
        .store()
        .tip(journal.row().id)
        .expect("read the tip")
        .and_then(|row| Tip::from_row(&row))
        .expect("an iterate import keeps a tip");
    let loaded = journal.projection(240).expect("loaded");
    assert_eq!(
        kept.view_at(240).expect("at the last offset"),
        loaded,
        "the import's tip is the loaded projection at the end"
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
fn folded_stops(journal: &Journal, transport: Transport, key: &str) -> (Vec<u64>, Vec<u64>) {
    use journalscope::iterate::event::{EventKind, Role};
    let events = journal.iterate_events().expect("loaded");
    let mut projection = journalscope::iterate::projection::Projection::default();
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
            journalscope::iterate::roles::provider_role(item, transport)
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
/// and on a journal past the prefix fold, opened without its events, they answer as a fold of
/// every parsed event does.
#[test]
fn given_any_iterate_journal_unloaded_then_item_facts_downgrade_and_key_stops_are_the_folds() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (long_db, long) = long_journal(dir.path(), 21_000, 7);
    let mut cases = vec![(long_db.clone(), long_db, long)];
    for (n, path) in iterate_journals().into_iter().enumerate() {
        let db = dir.path().join(format!("fixture-{n}.sqlite"));
        let loaded = quiet_open(&path, &db, false);
        cases.push((path, db, loaded));
    }
    for (path, db, loaded) in cases {
        if loaded.dialect() != Dialect::Iterate {
            // A broken fixture may read as no dialect at all: it has no iterate stops to check.
            continue;
        }
        let unloaded = quiet_open(&db, &db, true);
        let keys: std::collections::BTreeSet<String> = loaded
            .iterate_events()
            .expect("loaded")
            .iter()
            .filter_map(|event| match &event.kind {
                journalscope::iterate::event::EventKind::ContextAdded(c) => c.key.clone(),
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
            journalscope::search::item_facts(&journalscope::iterate::IterateJournal::from_stored(
                &store.events(loaded.row().id).expect("events")
            )),
            "{}: the item facts read from the store are the loaded fold's",
            path.display()
        );
        let middle = loaded
            .event(loaded.event_count() / 2)
            .ok()
            .and_then(|event| event.offset);
        for key in keys.iter().take(3).cloned().map(Some).chain([None]) {
            for published in [None, Some(true), Some(false)] {
                let query = journalscope::search::SearchQuery {
                    role: key.is_none().then(|| "developer".to_string()),
                    key: key.clone(),
                    published,
                    at: published.and(middle),
                    ..Default::default()
                };
                assert_eq!(
                    unloaded.search(&query).expect("unloaded"),
                    loaded.search(&query).expect("loaded"),
                    "{}: the hits of {query:?}",
                    path.display()
                );
            }
        }
        for transport in Transport::ALL {
            for key in keys.iter().map(String::as_str).chain(["no/such-key"]) {
                let (downgrades, changes) = folded_stops(&loaded, transport, key);
                assert_eq!(
                    stops(
                        &unloaded,
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
                        &unloaded,
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
