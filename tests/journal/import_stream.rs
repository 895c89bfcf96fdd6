//! The streaming import (chunks read on a thread) must store exactly what the whole-file import
//! stores: every line verbatim across chunk boundaries, the same analysis, and a position from
//! which an unchanged reopen and an appended tail are recognised.

use journalscope::dialect::Dialect;
use journalscope::import::{ImportControl, ImportKind};
use journalscope::journal::Journal;
use journalscope_gen::{write_journal, GenOptions};

fn open(path: &std::path::Path, db: &std::path::Path) -> Journal {
    let mut quiet = |_| {};
    Journal::open(
        path,
        Some(db),
        &mut ImportControl {
            progress: &mut quiet,
            cancel: None,
        },
    )
    .expect("the journal opens")
}

#[test]
fn a_journal_larger_than_one_read_chunk_is_stored_verbatim_and_reopens_unchanged() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("big.jsonl");
    let db = dir.path().join("big.sqlite");
    let mut bytes = Vec::new();
    // About 19 MB: more than two 8 MiB read chunks, so records straddle chunk boundaries.
    write_journal(
        &mut bytes,
        &GenOptions {
            dialect: Dialect::Iterate,
            events: 20_000,
            seed: 11,
            contract: journalscope_gen::ContractName::Seed,
        },
    )
    .expect("write to memory");
    assert!(bytes.len() > 17 << 20, "the file spans several chunks");
    std::fs::write(&path, &bytes).expect("write the journal");

    let journal = open(&path, &db);
    let info = journal.info().expect("info");
    assert_eq!(info.import_kind, ImportKind::New, "first import");
    assert_eq!(info.event_count, 20_000, "one event per line");
    let lines: Vec<&[u8]> = bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    for seq in (0..20_000u64).step_by(997).chain([19_999]) {
        let event = journal.event(seq).expect("stored event");
        assert_eq!(
            event.raw.as_slice(),
            lines[seq as usize],
            "line {seq} is stored byte for byte"
        );
    }
    let row = journal.row().clone();
    assert_eq!(
        row.content_hash,
        journalscope::source_ends::SourceEnds::whole(&bytes).hash_at(bytes.len() as u64),
        "the hash covers the file's ends and its length, which a later append checks"
    );
    assert_eq!(
        row.imported_bytes,
        bytes.len() as u64,
        "every byte consumed"
    );
    assert_eq!(row.imported_lines, 20_000, "every line counted");
    assert!(
        journal.diagnostics().expect("diagnostics read").is_empty(),
        "the analysis ran on the stream"
    );
    assert!(
        journal
            .timeline(10)
            .expect("the timeline reads")
            .marks
            .iter()
            .any(|m| m.kind == "compaction"),
        "marks come from the streaming analysis"
    );
    drop(journal);

    let journal = open(&path, &db);
    assert_eq!(
        journal.info().expect("info").import_kind,
        ImportKind::Unchanged,
        "the position the stream recorded recognises the same file"
    );
    drop(journal);

    let mut grown = bytes.clone();
    grown.extend_from_slice(
        br#"{"offset":99999999,"type":"events.iterate.com/agents/paused","payload":{},"createdAt":"2027-01-01T00:00:00.000Z","path":"/agents/gen-11"}"#,
    );
    grown.push(b'\n');
    std::fs::write(&path, &grown).expect("append a line");
    let journal = open(&path, &db);
    let info = journal.info().expect("info");
    assert_eq!(
        info.import_kind,
        ImportKind::Appended,
        "growth is an append"
    );
    assert_eq!(info.event_count, 20_001, "only the new line was added");
}

#[test]
fn a_streamed_file_with_a_bom_and_no_final_newline_keeps_its_lines() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("bom.jsonl");
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend_from_slice(
        br#"{"offset":1,"type":"events.iterate.com/agents/created","payload":{},"createdAt":"2026-01-01T00:00:00Z","path":"/a"}"#,
    );
    bytes.extend_from_slice(b"\n\n");
    bytes.extend_from_slice(
        br#"{"offset":2,"type":"events.iterate.com/agents/paused","payload":{},"createdAt":"2026-01-01T00:00:01Z","path":"/a"}"#,
    );
    std::fs::write(&path, &bytes).expect("write");
    let journal = open(&path, &dir.path().join("bom.sqlite"));
    assert_eq!(
        journal.info().expect("info").event_count,
        2,
        "blank lines are not events"
    );
    let second = journal.event(1).expect("second event");
    assert_eq!(second.line, 3, "line numbers count the blank line");
    assert!(
        second.raw.ends_with(b"}"),
        "the unterminated last line is stored whole"
    );
    assert!(journal.row().ends_mid_line, "the file ends mid-line");
    let first = journal.event(0).expect("first event");
    assert!(
        first.raw.starts_with(b"{"),
        "the BOM is not part of the record"
    );
}

#[test]
fn reopening_compares_the_bytes_at_the_ends_so_a_same_size_rewrite_there_is_a_new_generation() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("same-size.jsonl");
    let db = dir.path().join("same-size.sqlite");
    let line = |word: &str| {
        format!(
            r#"{{"offset":1,"type":"events.iterate.com/agent/context-added","payload":{{"role":"user","content":"{word}"}}}}"#
        ) + "\n"
    };
    std::fs::write(&path, line("apple")).expect("write");
    drop(open(&path, &db));
    assert_eq!(
        open(&path, &db).info().expect("info").import_kind,
        ImportKind::Unchanged,
        "the same bytes are recognised without importing again"
    );
    std::fs::write(&path, line("apply")).expect("rewrite in place, same size");
    let journal = open(&path, &db);
    assert_eq!(
        journal.info().expect("info").import_kind,
        ImportKind::Replaced,
        "the check reads the bytes at the file's ends, not only the size: a changed file is imported anew"
    );
    assert!(
        journal
            .event(0)
            .expect("event")
            .raw_text()
            .contains("apply"),
        "the new bytes are what the journal shows"
    );
}

#[test]
fn given_a_grown_file_when_imported_then_only_a_change_at_its_ends_makes_a_new_generation() {
    // Protects the append that reads only what was added: the file's ends and length still
    // tell a rewritten or replaced file from a grown one, and a database whose hash covers
    // the whole prefix (an older import) still takes appends.
    let dir = tempfile::tempdir().expect("temporary directory");
    let lines = |from: i64, to: i64| -> String {
        (from..to)
            .map(|offset| {
                format!(
                    "{{\"offset\":{offset},\"type\":\"events.iterate.com/agent/context-added\",\"payload\":{{\"role\":\"user\",\"content\":\"line {offset} {}\"}}}}\n",
                    "x".repeat(200)
                )
            })
            .collect()
    };
    let first = lines(0, 2_000);
    let grown = format!("{first}{}", lines(2_000, 2_100));
    let import = |name: &str, before: &str, after: &str, legacy: bool| -> ImportKind {
        let path = dir.path().join(format!("{name}.jsonl"));
        let db = dir.path().join(format!("{name}.sqlite"));
        std::fs::write(&path, before).expect("write");
        let journal = open(&path, &db);
        if legacy {
            journal
                .store()
                .inspection_connection()
                .execute(
                    "UPDATE journals SET content_hash = ?1",
                    [blake3::hash(before.as_bytes()).to_hex().to_string()],
                )
                .expect("an older hash");
        }
        drop(journal);
        std::fs::write(&path, after).expect("write");
        let mut quiet = |_| {};
        let store = journalscope::store::Store::open(&db).expect("store");
        journalscope::import::import_file(
            &store,
            &path,
            &mut ImportControl {
                progress: &mut quiet,
                cancel: None,
            },
        )
        .expect("import")
        .kind
    };
    assert_eq!(
        import("grown", &first, &grown, false),
        ImportKind::Appended,
        "a file that grew is appended to"
    );
    assert_eq!(
        import("legacy", &first, &grown, true),
        ImportKind::Appended,
        "a journal hashed whole by an older import is appended to"
    );
    let rewritten_head = grown.replacen("line 0 ", "line 0!", 1);
    assert_eq!(
        import("head", &first, &rewritten_head, false),
        ImportKind::Replaced,
        "a change in the first bytes is a new generation"
    );
    let at = first.len() - 20;
    let mut rewritten_tail = grown.clone().into_bytes();
    rewritten_tail[at] = b'y';
    assert_eq!(
        import(
            "tail",
            &first,
            &String::from_utf8(rewritten_tail).expect("utf-8"),
            false
        ),
        ImportKind::Replaced,
        "a change just before where the import stopped is a new generation"
    );
}

#[test]
fn regression_a_blank_file_that_grows_is_read_as_what_it_grew_into() {
    // Protects growth from a file of blank lines: the framing and dialect a blank file was
    // stored with (JSONL, iterate) are guesses, and must not decide how what is written after
    // them reads. A JSON array was read as one bad line per line, a Codex session as iterate.
    let dir = tempfile::tempdir().expect("temporary directory");
    let codex = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/claude-code/codex-compaction.jsonl"),
    )
    .expect("read the Codex fixture");
    let array = "\n[\n{\"offset\":0,\"type\":\"events.iterate.com/agent/context-added\",\"payload\":{\"role\":\"user\",\"content\":\"hi\"}}\n]\n";
    let iterate = "\n{\"offset\":0,\"type\":\"events.iterate.com/agent/context-added\",\"payload\":{\"role\":\"user\",\"content\":\"hi\"}}\n";
    for (name, grown, dialect, records, kind) in [
        ("array", array, Dialect::Iterate, 1, ImportKind::Replaced),
        (
            "codex",
            &*format!("\n{codex}"),
            Dialect::Codex,
            codex.lines().count() as u64,
            ImportKind::Replaced,
        ),
        (
            "iterate",
            iterate,
            Dialect::Iterate,
            1,
            ImportKind::Appended,
        ),
    ] {
        let path = dir.path().join(format!("{name}.jsonl"));
        let db = dir.path().join(format!("{name}.sqlite"));
        std::fs::write(&path, "\n").expect("write a blank line");
        assert_eq!(
            open(&path, &db).event_count(),
            0,
            "{name}: a blank file holds no records"
        );
        std::fs::write(&path, grown).expect("grow the file");
        let journal = open(&path, &db);
        assert_eq!(
            journal.dialect(),
            dialect,
            "{name}: the dialect is read from the records"
        );
        assert_eq!(
            journal.event_count(),
            records,
            "{name}: one record per record written, none of them the array's brackets"
        );
        assert_eq!(
            journal.info().expect("info").import_kind,
            kind,
            "{name}: growth that reads as the blank file guessed is appended"
        );
    }
}
