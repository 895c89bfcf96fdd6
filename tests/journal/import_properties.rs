//! Property tests of importing: whatever lines a journal holds (events, text, invalid UTF-8,
//! blank lines, CRLF, a BOM, a cut last line), the stored records export back to exactly the
//! file's bytes, and importing a file in two growths stores what importing it whole does.

use std::path::Path;

use journalscope::import::{import_file, ImportControl, ImportKind};
use journalscope::source::{detect_framing, Framing};
use journalscope::store::{Store, StoredEvent};
use proptest::prelude::*;

const PREFIX: &str = "events.iterate.com/agent/";

fn line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => (0i64..50, "[a-z ]{0,12}").prop_map(|(offset, text)| format!(
            r#"{{"offset":{offset},"type":"{PREFIX}context-added","payload":{{"role":"user","content":"{text}"}}}}"#
        ).into_bytes()),
        1 => (0i64..50).prop_map(|offset| format!(
            r#"{{"offset":{offset},"type":"{PREFIX}llm-request-requested","payload":{{"model":"m"}}}}"#
        ).into_bytes()),
        1 => "[ -~]{0,30}".prop_map(String::into_bytes),
        // Any bytes but a newline or NUL: invalid UTF-8 included.
        1 => proptest::collection::vec(1u8..=255, 0..30)
            .prop_map(|bytes| bytes.into_iter().filter(|b| *b != b'\n').collect()),
        1 => "[ \t]{0,3}".prop_map(String::into_bytes),
    ]
}

fn journal() -> impl Strategy<Value = Vec<u8>> {
    (
        any::<bool>(),
        proptest::collection::vec((line(), any::<bool>()), 0..40),
        any::<bool>(),
    )
        .prop_map(|(bom, lines, cut_last)| {
            let mut out = Vec::new();
            if bom {
                out.extend_from_slice(b"\xEF\xBB\xBF");
            }
            let count = lines.len();
            for (index, (text, crlf)) in lines.into_iter().enumerate() {
                out.extend_from_slice(&text);
                if cut_last && index + 1 == count {
                    break;
                }
                out.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
            }
            out
        })
}

fn import(store: &Store, path: &Path) -> ImportKind {
    let mut progress = |_| {};
    let mut control = ImportControl {
        progress: &mut progress,
        cancel: None,
    };
    import_file(store, path, &mut control)
        .expect("a journal of any lines imports")
        .kind
}

fn events(store: &Store) -> Vec<StoredEvent> {
    let journal = store
        .latest_journal()
        .expect("read journals")
        .expect("a journal");
    store.events(journal.id).expect("read events")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn stored_records_export_back_to_the_original_bytes(file in journal()) {
        // A capture of Server-Sent Events keeps its frames' data, not its lines: another test.
        prop_assume!(detect_framing(&file) != Framing::Sse);
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("journal.jsonl");
        std::fs::write(&path, &file).expect("write journal");
        let store = Store::in_memory().expect("store");
        import(&store, &path);
        let mut covered = vec![false; file.len()];
        for event in events(&store) {
            let start = event.byte_start as usize;
            let end = start + event.byte_len as usize;
            prop_assert_eq!(&file[start..end], &event.raw[..], "record {} is its span of the file, verbatim", event.seq);
            covered[start..end].iter_mut().for_each(|c| *c = true);
        }
        // Export: the records put back at their spans, everything between is line breaks,
        // blank-line whitespace or the BOM; so no byte the user wrote is lost.
        let body_start = if file.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
        for (index, byte) in file.iter().enumerate().skip(body_start) {
            prop_assert!(covered[index] || byte.is_ascii_whitespace(), "byte {} ({:#04x}) belongs to a record", index, byte);
        }
    }

    #[test]
    fn importing_a_file_as_it_grows_stores_what_importing_it_whole_does(file in journal(), cut in any::<prop::sample::Index>()) {
        // Growth is cut on a line boundary, as an appending writer leaves it.
        let breaks: Vec<usize> = file.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i + 1).collect();
        prop_assume!(!breaks.is_empty());
        let at = breaks[cut.index(breaks.len())];
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("journal.jsonl");

        let whole = Store::in_memory().expect("store");
        std::fs::write(&path, &file).expect("write journal");
        import(&whole, &path);

        let grown = Store::in_memory().expect("store");
        std::fs::write(&path, &file[..at]).expect("write the first part");
        import(&grown, &path);
        std::fs::write(&path, &file).expect("write the rest");
        let kind = import(&grown, &path);
        // A JSON array is read whole (its closing bracket moves as it grows), and a first part
        // of blank lines decided neither framing nor dialect: the growth of either may be a
        // new generation, which must still hold what a whole import does.
        let array = detect_framing(&file[..at]) == Framing::JsonArray;
        let blank = file[..at].strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&file[..at]).iter().all(u8::is_ascii_whitespace);
        prop_assert!(
            matches!(kind, ImportKind::Appended | ImportKind::Unchanged) || ((array || blank) && kind == ImportKind::Replaced),
            "growth is read as appended records, not {:?}", kind
        );
        prop_assert_eq!(events(&grown), events(&whole), "records, positions and read diagnostics match");
        let id = |store: &Store| store.latest_journal().expect("journals").expect("a journal").id;
        prop_assert_eq!(
            grown.diagnostics(id(&grown)).expect("diagnostics"),
            whole.diagnostics(id(&whole)).expect("diagnostics"),
            "fold diagnostics match"
        );
        // `event_count` reads the highest seq instead of counting rows: that holds only while
        // every generation's events are numbered 0, 1, … without gaps, imported whole or grown.
        for store in [&whole, &grown] {
            let rows: i64 = store
                .inspection_connection()
                .query_row("SELECT count(*) FROM events WHERE journal_id = ?1", [id(store)], |r| r.get(0))
                .expect("count");
            prop_assert_eq!(store.event_count(id(store)).expect("event count"), rows as u64, "seqs have no gaps");
            // The type list reads counts kept by each append instead of grouping the events:
            // they must be what grouping says, however many appends built them.
            let grouped: Vec<(String, u64)> = store
                .inspection_connection()
                .prepare("SELECT coalesce(type, '(none)'), count(*) FROM events WHERE journal_id = ?1 GROUP BY 1 ORDER BY 2 DESC, 1")
                .expect("prepare")
                .query_map([id(store)], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)))
                .expect("group")
                .collect::<Result<_, _>>()
                .expect("rows");
            prop_assert_eq!(store.type_counts(id(store)).expect("type counts"), grouped, "kept type counts match the events");
        }
    }
}

#[test]
fn a_resumed_import_judges_offsets_against_the_highest_stored_offset() {
    // Regression: a resumed reader compared the next offset with the last stored event's
    // offset (3) rather than the highest (5), so @4 went unreported after a restart.
    let event = |offset: i64| {
        format!(
            r#"{{"offset":{offset},"type":"{PREFIX}context-added","payload":{{"role":"user","content":"x"}}}}"#
        )
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("journal.jsonl");
    let store = Store::in_memory().expect("store");
    std::fs::write(&path, format!("{}\n{}\n", event(5), event(3))).expect("write");
    import(&store, &path);
    std::fs::write(&path, format!("{}\n{}\n{}\n", event(5), event(3), event(4))).expect("grow");
    assert_eq!(
        import(&store, &path),
        ImportKind::Appended,
        "the growth is appended"
    );
    let flagged: Vec<u64> = events(&store)
        .into_iter()
        .filter(|e| {
            e.diagnostics
                .iter()
                .any(|d| d.code == "offset-not-increasing")
        })
        .map(|e| e.line)
        .collect();
    assert_eq!(flagged, [2, 3], "@3 and @4 both follow @5");
}
