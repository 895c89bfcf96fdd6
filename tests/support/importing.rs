//! Importing a journal file into a store for a test, without progress or cancelling: the id of
//! the journal it lands in, a new one or the one an append grew.

use std::path::Path;

use journalscope::import::{import_file, ImportControl};
use journalscope::store::Store;

pub fn import_quietly(store: &Store, path: &Path) -> i64 {
    let mut quiet = |_| {};
    import_file(
        store,
        path,
        &mut ImportControl {
            progress: &mut quiet,
            cancel: None,
        },
    )
    .expect("import");
    store
        .latest_journal()
        .expect("journal")
        .expect("a journal")
        .id
}

/// `lines` written as a JSONL file in `dir` and imported into a store beside it.
pub fn import_lines(dir: &Path, lines: &[String]) -> (Store, i64) {
    let path = dir.join("journal.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").expect("journal written");
    let store = Store::open(&dir.join("journal.sqlite")).expect("store");
    let id = import_quietly(&store, &path);
    (store, id)
}

/// Everything a fold derived for journal `id`, as one comparable value: its marks,
/// diagnostics, tip, request rows and links. Two ways of storing the same records must
/// derive the same.
pub fn derived(store: &Store, id: i64) -> String {
    format!(
        "{:#?}",
        (
            store.marks(id).expect("marks"),
            store.diagnostics(id).expect("diagnostics"),
            store.tip(id).expect("tip"),
            store.request_rows(id).expect("request rows"),
            store.links(id).expect("links"),
        )
    )
}
