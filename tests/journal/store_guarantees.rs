//! What the store promises the people who open it: a database written by a newer Journalscope
//! is refused with a clear message (and its own exit status and error code) instead of being
//! misread, and readers (the desktop's windows) never see "database is locked" while a tail
//! writes to the same database; two readers of the same journal agree.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use journalscope::journal::{Journal, JournalError};
use journalscope::store::{Store, StoreError};

const BIN: &str = env!("CARGO_BIN_EXE_journalscope");
const PREFIX: &str = "events.iterate.com/agent/";

fn line(offset: u64) -> String {
    format!(
        r#"{{"offset":{offset},"type":"{PREFIX}context-added","payload":{{"role":"user","content":"message {offset}"}}}}"#
    )
}

fn journal_file(dir: &Path, count: u64) -> std::path::PathBuf {
    let path = dir.join("journal.jsonl");
    let text: String = (1..=count).map(|o| line(o) + "\n").collect();
    std::fs::write(&path, text).expect("write journal");
    path
}

/// A three-event journal imported by the CLI into a database of its own: the journal and the
/// database.
fn imported_db(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let file = journal_file(dir, 3);
    let db = dir.join("journal.sqlite");
    let status = Command::new(BIN)
        .args([
            "import",
            &file.to_string_lossy(),
            "--db",
            &db.to_string_lossy(),
        ])
        .stdout(Stdio::null())
        .status()
        .expect("import");
    assert!(status.success(), "the journal imports");
    (file, db)
}

#[test]
fn a_database_from_a_newer_version_is_refused_with_a_clear_message() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (file, db) = imported_db(dir.path());
    {
        let store = Store::open(&db).expect("open");
        store
            .inspection_connection()
            .pragma_update(None, "user_version", 999)
            .expect("pretend a newer version wrote it");
    }
    let before = std::fs::read(&db).expect("read database");

    let out = Command::new(BIN)
        .args(["events", &db.to_string_lossy()])
        .output()
        .expect("events");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(4),
        "a newer database exits with the documented status 4: {stderr}"
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(
        stderr.contains("newer Journalscope") && stderr.contains("schema 999"),
        "the message says what is wrong: {stderr}"
    );
    assert!(out.stdout.is_empty(), "nothing is misread onto stdout");

    let out = Command::new(BIN)
        .args([
            "import",
            &file.to_string_lossy(),
            "--db",
            &db.to_string_lossy(),
        ])
        .output()
        .expect("import into the newer database");
    assert_eq!(
        out.status.code(),
        Some(4),
        "importing into a newer database is refused too"
    );
    assert_eq!(
        std::fs::read(&db).expect("read database"),
        before,
        "a refused database is left as it was"
    );

    match Journal::open_quietly(&db) {
        Err(err @ JournalError::Store(StoreError::TooNew { .. })) => assert_eq!(
            err.code(),
            "database-too-new",
            "the desktop gets a stable error code"
        ),
        Err(other) => panic!("expected a too-new refusal, got {other}"),
        Ok(_) => panic!("a newer database must not open"),
    }
}

#[test]
fn readers_never_see_a_locked_database_while_a_tail_writes_and_agree() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("growing.jsonl");
    std::fs::write(&file, line(1) + "\n").expect("create journal");
    let db = dir.path().join("tail.sqlite");
    let total = 600u64;
    let mut tail = Command::new(BIN)
        .args([
            "tail",
            &file.to_string_lossy(),
            "--db",
            &db.to_string_lossy(),
            "--max-events",
            &total.to_string(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("tail starts");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !db.exists() || Journal::open_quietly(&db).is_err() {
        assert!(Instant::now() < deadline, "the tail creates its database");
        std::thread::sleep(Duration::from_millis(50));
    }

    let writing = Arc::new(AtomicBool::new(true));
    let windows: Vec<_> = (0..2)
        .map(|window| {
            let db = db.clone();
            let writing = Arc::clone(&writing);
            std::thread::spawn(move || {
                let mut reads = 0u64;
                let mut last = 0u64;
                while writing.load(Ordering::Relaxed) || reads == 0 {
                    let journal = Journal::open_quietly(&db).unwrap_or_else(|e| {
                        panic!("window {window}: reading while a tail writes never fails: {e}")
                    });
                    let count = journal.info().expect("info").event_count;
                    assert!(count >= last, "window {window}: what was seen stays");
                    last = count;
                    reads += 1;
                }
                reads
            })
        })
        .collect();

    {
        let mut out = std::fs::OpenOptions::new()
            .append(true)
            .open(&file)
            .expect("open for append");
        for offset in 2..=total {
            out.write_all((line(offset) + "\n").as_bytes())
                .expect("append");
            if offset % 20 == 0 {
                out.flush().expect("flush");
                std::thread::sleep(Duration::from_millis(15));
            }
        }
    }
    let status = tail.wait().expect("tail ends after --max-events");
    assert!(status.success(), "the tail lands every event and stops");
    writing.store(false, Ordering::Relaxed);
    for window in windows {
        assert!(
            window.join().expect("window thread") > 0,
            "each window read"
        );
    }

    let one = Journal::open_quietly(&db).expect("window one");
    let two = Journal::open_quietly(&db).expect("window two");
    assert_eq!(
        one.info().expect("info").event_count,
        total,
        "every event landed"
    );
    let raws = |journal: &Journal| -> Vec<Vec<u8>> {
        journal
            .store()
            .events(journal.row().id)
            .expect("events")
            .into_iter()
            .map(|e| e.raw)
            .collect()
    };
    assert_eq!(raws(&one), raws(&two), "two windows see the same events");
    assert_eq!(
        one.diagnostics().expect("diagnostics read"),
        two.diagnostics().expect("diagnostics read"),
        "two windows see the same diagnostics"
    );
}

#[test]
fn a_database_with_the_old_search_index_drops_it_and_still_searches() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (_, db) = imported_db(dir.path());
    {
        let store = Store::open(&db).expect("open");
        store
            .inspection_connection()
            .execute_batch(
                "CREATE VIRTUAL TABLE event_text USING fts5(
                     body, journal_id UNINDEXED, seq UNINDEXED, tokenize = 'trigram');
                 CREATE TABLE event_text_state (journal_id INTEGER PRIMARY KEY, indexed INTEGER);
                 INSERT INTO event_text (body, journal_id, seq) VALUES ('message 2', 1, 1);
                 DROP TABLE record_tokens;
                 DROP TABLE links;
                 DROP TABLE late_records;
                 DROP TABLE event_blocks;
                 UPDATE events SET summary = (SELECT b.summary FROM event_bytes b
                                              WHERE b.id = (events.journal_id << 40) | events.seq);
                 DROP VIEW event_records;
                 ALTER TABLE event_bytes DROP COLUMN summary;
                 CREATE VIEW event_records AS
                     SELECT e.journal_id, e.seq, e.line, e.byte_start, e.byte_len, b.raw,
                            e.offset, e.type, e.created_at, e.summary
                     FROM events e LEFT JOIN event_bytes b ON b.id = (e.journal_id << 40) | e.seq;
                 PRAGMA user_version = 10;",
            )
            .expect("pretend the version before wrote it, index and all");
    }
    let out = Command::new(BIN)
        .args(["search", &db.to_string_lossy(), "MESSAGE 2", "--json"])
        .output()
        .expect("search");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        result["hits"][0]["offset"],
        serde_json::json!(2),
        "the search reads the stored bytes: {result}"
    );
    let store = Store::open(&db).expect("open");
    let left: i64 = store
        .inspection_connection()
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name LIKE 'event_text%'",
            [],
            |r| r.get(0),
        )
        .expect("schema");
    assert_eq!(
        left, 0,
        "the index and its state are gone, and their disk with them"
    );
}

#[test]
fn a_database_written_before_late_records_were_listed_lists_them_when_opened() {
    // Protects migration 13: a journal whose offsets go back, stored by a version that did not
    // list its late records, gets them listed, and its views then answer as a plain fold does.
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("late.jsonl");
    let line = |offset: i64, text: &str| {
        format!(
            r#"{{"offset":{offset},"type":"events.iterate.com/agent/context-added","payload":{{"role":"user","content":"{text}"}}}}"#
        )
    };
    let lines = [
        line(1, "one"),
        line(5, "five"),
        line(3, "three, late"),
        line(9, "nine"),
        line(5, "five again"),
    ];
    std::fs::write(&file, lines.join("\n") + "\n").expect("write");
    let db = dir.path().join("late.sqlite");
    let journal = Journal::open(
        &file,
        Some(&db),
        &mut journalscope::import::ImportControl {
            progress: &mut |_| {},
            cancel: None,
        },
    )
    .expect("import");
    let want = journal.projection(4).expect("the view at @4");
    drop(journal);
    {
        let store = Store::open(&db).expect("open");
        store
            .inspection_connection()
            .execute_batch(
                "DROP TABLE record_tokens; DROP TABLE links; DROP TABLE late_records;
                 PRAGMA user_version = 12;",
            )
            .expect("pretend the version before wrote it");
    }
    let reopened = Journal::open_quietly(&db).expect("the older database opens");
    assert!(
        reopened
            .store()
            .has_late_records(reopened.row().id)
            .expect("reads"),
        "the migration listed the records whose offset went back"
    );
    let history: Vec<i64> = want.history.iter().map(|item| item.offset).collect();
    assert_eq!(
        history,
        [1, 3],
        "@4 holds the late @3 that follows @5 in the file"
    );
    assert_eq!(
        reopened.projection(4).expect("the view at @4"),
        want,
        "the migrated database answers as it did"
    );
}
