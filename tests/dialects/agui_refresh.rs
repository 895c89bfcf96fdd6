//! An AG-UI journal's derived tables are folded slice by slice from the store; they must be
//! what one fold of every event gives, across the seams between slices.

use journalscope::dialect::{Dialect, Mark};
use journalscope::import::{import_file, ImportControl};
use journalscope::store::Store;
use journalscope_gen::{write_journal, GenOptions};

#[test]
fn given_a_long_ag_ui_journal_when_imported_then_its_marks_and_diagnostics_are_one_whole_fold() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("thread.jsonl");
    let mut bytes = Vec::new();
    write_journal(
        &mut bytes,
        &GenOptions {
            dialect: Dialect::AgUi,
            events: 10_000,
            seed: 4,
            contract: journalscope_gen::ContractName::Seed,
        },
    )
    .expect("generate");
    // A patch that fails and a message that was never started, on either side of a seam.
    let text = String::from_utf8(bytes).expect("utf-8");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for at in [4_095, 4_097, 8_193] {
        lines.insert(
            at,
            r#"{"type":"STATE_DELTA","delta":[{"op":"remove","path":"/nowhere"}]}"#.to_string(),
        );
        lines.insert(
            at + 1,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"never","delta":"x"}"#.to_string(),
        );
    }
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    let store = Store::open(&dir.path().join("thread.sqlite")).expect("store");
    let mut quiet = |_| {};
    import_file(
        &store,
        &path,
        &mut ImportControl {
            progress: &mut quiet,
            cancel: None,
        },
    )
    .expect("import");
    let id = store.latest_journal().expect("read").expect("a journal").id;
    let events = store.events(id).expect("events");
    let whole = journalscope_agui::agui::analyse(&events);
    let stored_marks: Vec<Mark> = store.marks(id).expect("marks");
    assert_eq!(
        stored_marks, whole.marks,
        "the marks of one whole fold, in order"
    );
    let fold: Vec<_> = whole.diagnostics;
    let stored: Vec<_> = store
        .diagnostics(id)
        .expect("diagnostics")
        .into_iter()
        .filter(|(seq, d)| !events[*seq as usize].diagnostics.contains(d))
        .collect();
    assert_eq!(
        stored, fold,
        "the fold diagnostics of one whole fold, in order"
    );
    assert!(
        fold.len() >= 6,
        "the inserted failures are among them: {}",
        fold.len()
    );
}

#[test]
fn regression_ag_ui_databases_kept_the_diagnostics_of_older_rules_until_reimported() {
    // Given a journal imported under the current rules,
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("run.jsonl");
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/agui/lint/run-id-changed.jsonl"),
        &path,
    )
    .expect("copy the fixture");
    let store = Store::open(&dir.path().join("run.sqlite")).expect("store");
    let mut quiet = |_| {};
    let mut control = ImportControl {
        progress: &mut quiet,
        cancel: None,
    };
    import_file(&store, &path, &mut control).expect("import");
    let id = store.latest_journal().expect("read").expect("a journal").id;
    assert!(
        journalscope::dialect::is_current(&store, id, Dialect::AgUi).expect("check"),
        "an import records which rules derived its diagnostics"
    );
    // when the database looks as an older version left it (its diagnostics from older rules,
    // no record of the rules),
    store
        .inspection_connection()
        .execute_batch("DELETE FROM checkpoint_cover; DELETE FROM fold_diagnostics;")
        .expect("age the database");
    assert!(
        !journalscope::dialect::is_current(&store, id, Dialect::AgUi).expect("check"),
        "tables from unknown rules are not current"
    );
    // then opening the unchanged file again derives them anew.
    import_file(&store, &path, &mut control).expect("reopen");
    assert!(journalscope::dialect::is_current(&store, id, Dialect::AgUi).expect("check"));
    let codes: Vec<String> = store
        .diagnostics(id)
        .expect("diagnostics")
        .into_iter()
        .map(|(_, d)| d.code)
        .collect();
    assert!(
        codes.iter().any(|c| c == "run-id-changed"),
        "the current rules' diagnostics are there: {codes:?}"
    );
}
