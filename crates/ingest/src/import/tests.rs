//! The tests of `import`.

use super::*;

/// A generated journal of `events` events in a fresh directory.
fn journal(dialect: Dialect, events: u64) -> (tempfile::TempDir, PathBuf, Store) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.jsonl");
    write(&path, dialect, events);
    let store = Store::open(&dir.path().join("long.sqlite")).unwrap();
    (dir, path, store)
}

fn write(path: &Path, dialect: Dialect, events: u64) {
    let mut bytes = Vec::new();
    let options = journalscope_gen::GenOptions {
        dialect,
        events,
        seed: 3,
        contract: journalscope_gen::ContractName::Seed,
    };
    journalscope_gen::write_journal(&mut bytes, &options).unwrap();
    fs::write(path, bytes).unwrap();
}

const EVENTS: u64 = 12_000;

fn import_recording(store: &Store, path: &Path) -> Vec<ImportProgress> {
    let mut seen = Vec::new();
    let mut record = |p: ImportProgress| seen.push(p);
    import_file(
        store,
        path,
        &mut ImportControl {
            progress: &mut record,
            cancel: None,
        },
    )
    .unwrap();
    seen
}

#[test]
fn regression_import_progress_sits_still_during_analysis() {
    // The fold runs as the records are read, so an import's progress moves with the bytes
    // stored from its first report to its last, then says it saves.
    let (_dir, path, store) = journal(Dialect::AgentsKit, EVENTS);
    let seen = import_recording(&store, &path);
    let events = store
        .event_count(store.latest_journal().unwrap().unwrap().id)
        .unwrap();
    let mut order: Vec<ImportStage> = seen.iter().map(|p| p.stage).collect();
    order.dedup();
    assert_eq!(
        order,
        [ImportStage::Storing, ImportStage::Saving],
        "a first import stores (folding as it reads), then saves what the fold says of the end"
    );
    let stored: Vec<(u64, u64)> = seen
        .iter()
        .filter(|p| p.stage == ImportStage::Storing)
        .map(|p| (p.done_bytes, p.events))
        .collect();
    assert!(
        stored.len() >= 3 && stored.windows(2).all(|w| w[0] <= w[1]),
        "storing reports several times and never goes back: {stored:?}"
    );
    assert_eq!(
        seen.last().map(|p| p.analysed),
        Some(events),
        "the import ends with every event done"
    );
}

#[test]
fn regression_import_progress_sits_still_while_an_append_is_reanalysed_and_the_append_folds_from_the_last_checkpoint(
) {
    let (_dir, path, store) = journal(Dialect::Iterate, EVENTS);
    import_recording(&store, &path);
    let mut grown = fs::read(&path).unwrap();
    for i in 0..50 {
        grown.extend_from_slice(format!(
            "{{\"offset\":{},\"type\":\"events.iterate.com/agent/context-added\",\"payload\":{{\"role\":\"user\",\"content\":\"appended {i}\"}}}}\n",
            100_000_000 + i
        ).as_bytes());
    }
    fs::write(&path, grown).unwrap();
    let seen = import_recording(&store, &path);
    let events = store
        .event_count(store.latest_journal().unwrap().unwrap().id)
        .unwrap();
    let mut order: Vec<ImportStage> = seen.iter().map(|p| p.stage).collect();
    order.dedup();
    assert_eq!(
        order,
        [
            ImportStage::Folding,
            ImportStage::Storing,
            ImportStage::Saving
        ],
        "an append folds on from the last checkpoint, then folds what it reads as it stores it"
    );
    let folded: Vec<u64> = seen
        .iter()
        .filter(|p| p.stage == ImportStage::Folding)
        .map(|p| p.analysed)
        .collect();
    assert!(
        folded.windows(2).all(|w| w[0] <= w[1]) && folded.last() <= Some(&events),
        "folding moves on, never back: {folded:?}"
    );
    assert!(
        folded[0] > events / 2,
        "the fold resumes from the last checkpoint instead of folding {events} records again: {folded:?}"
    );
}

#[test]
fn an_agentskit_append_folds_only_the_new_records() {
    let (_dir, path, store) = journal(Dialect::AgentsKit, EVENTS);
    import_recording(&store, &path);
    // A longer generated journal starts with the shorter one: the extra lines are an append.
    write(&path, Dialect::AgentsKit, EVENTS + 50);
    let seen = import_recording(&store, &path);
    let folded: Vec<u64> = seen
        .iter()
        .filter(|p| p.stage == ImportStage::Folding)
        .map(|p| p.analysed)
        .collect();
    assert_eq!(
        folded.first(),
        Some(&EVENTS),
        "the fold goes on from the last refresh's checkpoint: {folded:?}"
    );
    let id = store.latest_journal().unwrap().unwrap().id;
    assert_eq!(
        store.event_count(id).unwrap(),
        EVENTS + 50,
        "the append landed in the same journal"
    );
}

/// Cancels from the progress callback at the first report of `stage` past its start, and
/// checks that nothing is reported after it and nothing is kept.
fn cancel_during(stage: ImportStage) {
    let (_dir, path, store) = journal(Dialect::AgentsKit, EVENTS);
    let cancel = AtomicBool::new(false);
    let mut after_cancel = Vec::new();
    let mut record = |p: ImportProgress| {
        if cancel.load(Ordering::Relaxed) {
            after_cancel.push(p);
        } else if p.stage == stage && (p.analysed > 0 || p.done_bytes > 0) {
            cancel.store(true, Ordering::Relaxed);
        }
    };
    let result = import_file(
        &store,
        &path,
        &mut ImportControl {
            progress: &mut record,
            cancel: Some(&cancel),
        },
    );
    assert!(
        matches!(result, Err(ImportError::Cancelled)),
        "a cancel while {stage:?} ends the import as cancelled: {result:?}"
    );
    assert!(
        after_cancel.is_empty(),
        "the import stops at the next check after the cancel, without reporting more: {after_cancel:?}"
    );
    assert!(
        store.latest_journal().unwrap().is_none(),
        "a cancelled first import leaves no journal behind"
    );
}

#[test]
fn regression_cancel_ignored_while_folding() {
    // A first import folds while it stores.
    cancel_during(ImportStage::Storing);
}
