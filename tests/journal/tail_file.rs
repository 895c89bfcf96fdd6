//! Following a local file: appends land, a half-written line waits for its newline, and a
//! truncated or rotated file starts a new generation while the store keeps the old one.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use journalscope::store::Store;

use crate::support::importing;
use importing::{derived, import_quietly};
use journalscope::tail::{self, GenerationReason, Source, TailOptions, TailStatus, TailUpdate};

const BOUND: Duration = Duration::from_secs(20);

fn line(offset: i64, text: &str) -> String {
    format!(
        r#"{{"offset":{offset},"type":"events.iterate.com/agent/context-added","payload":{{"role":"user","content":"{text}"}},"createdAt":"2026-11-01T00:00:00Z","path":"/a"}}"#
    )
}

fn append(path: &Path, text: &str) {
    let mut file = OpenOptions::new()
        .append(true)
        .open(path)
        .expect("open journal for append");
    file.write_all(text.as_bytes()).expect("append");
    file.flush().expect("flush");
}

/// Waits for `count` events (and returns every update seen on the way).
fn wait_events(updates: &mpsc::Receiver<TailUpdate>, count: usize) -> Vec<TailUpdate> {
    let deadline = Instant::now() + BOUND;
    let mut seen = Vec::new();
    let mut events = 0;
    while events < count {
        let left = deadline.saturating_duration_since(Instant::now());
        let update = updates
            .recv_timeout(left)
            .unwrap_or_else(|e| panic!("waited for {count} events, got {events}: {e}"));
        if let TailUpdate::Status {
            status: TailStatus::Failed { reason },
        } = &update
        {
            panic!("the tail failed: {reason}");
        }
        events += usize::from(matches!(update, TailUpdate::Event { .. }));
        seen.push(update);
    }
    seen
}

/// Every journal generation of the store, oldest first, as its events' raw lines.
fn generations(db: &Path) -> Vec<Vec<String>> {
    let store = Store::open(db).expect("store");
    let mut stmt = store
        .inspection_connection()
        .prepare("SELECT id FROM journals ORDER BY id")
        .expect("query");
    let ids: Vec<i64> = stmt
        .query_map([], |r| r.get(0))
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("ids");
    ids.iter()
        .map(|id| {
            store
                .events(*id)
                .expect("events")
                .iter()
                .map(|e| e.raw_text())
                .collect()
        })
        .collect()
}

fn generation_reason(updates: &[TailUpdate]) -> Option<GenerationReason> {
    updates.iter().find_map(|u| match u {
        TailUpdate::Generation { reason, .. } => Some(*reason),
        _ => None,
    })
}

#[test]
fn following_a_file_through_appends_partial_lines_truncation_and_rotation() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = dir.path().join("agent.jsonl");
    let db = dir.path().join("tail.sqlite");
    let first: Vec<String> = (1..=3).map(|o| line(o, &format!("m{o}"))).collect();
    fs::write(&journal, first.join("\n") + "\n").expect("write journal");

    let (send, updates) = mpsc::channel();
    let handle = tail::start(
        &db,
        Source::File(journal.clone()),
        TailOptions::default(),
        move |u| {
            let _ = send.send(u);
        },
    )
    .expect("tail starts");

    // Given the file as it was: its records land in a first generation.
    let seen = wait_events(&updates, 3);
    assert_eq!(
        generation_reason(&seen),
        Some(GenerationReason::First),
        "first generation"
    );
    assert_eq!(
        generations(&db),
        vec![first.clone()],
        "existing records landed"
    );

    // When two complete lines are appended, then they land, promptly.
    let appended = [line(4, "m4"), line(6, "m6")];
    let written = Instant::now();
    append(&journal, &format!("{}\n{}\n", appended[0], appended[1]));
    wait_events(&updates, 2);
    let latency = written.elapsed();
    eprintln!("two appended lines landed {latency:?} after the write");
    assert!(
        latency < Duration::from_secs(1),
        "appends land quickly, took {latency:?}"
    );
    let mut expected = first.clone();
    expected.extend(appended.iter().cloned());
    assert_eq!(
        generations(&db),
        vec![expected.clone()],
        "appended records landed"
    );

    // When half a line is written, then nothing of it is stored...
    let half = line(7, "half and half");
    let (head, rest) = half.split_at(half.len() / 2);
    append(&journal, head);
    std::thread::sleep(Duration::from_millis(400));
    let early: Vec<TailUpdate> = updates.try_iter().collect();
    assert!(
        !early.iter().any(|u| matches!(u, TailUpdate::Event { .. })),
        "a half-written line is never stored"
    );
    assert_eq!(
        generations(&db),
        vec![expected.clone()],
        "store unchanged by half a line"
    );
    // ...and when the rest and its newline arrive, then the whole line lands once.
    append(&journal, &format!("{rest}\n"));
    wait_events(&updates, 1);
    expected.push(half.clone());
    assert_eq!(
        generations(&db),
        vec![expected.clone()],
        "the completed line landed whole"
    );

    // When the file is truncated and rewritten shorter, then a new generation holds the new
    // content and the old one is kept.
    let truncated = vec![line(1, "again")];
    fs::write(&journal, truncated.join("\n") + "\n").expect("truncate");
    let seen = wait_events(&updates, 1);
    assert_eq!(
        generation_reason(&seen),
        Some(GenerationReason::FileTruncated),
        "truncation is detected and told"
    );
    assert_eq!(
        generations(&db),
        vec![expected.clone(), truncated.clone()],
        "the store keeps what it had and imports the new content"
    );

    // When the file is rotated (moved away, a new one in its place), then the new file's
    // content lands in a new generation.
    fs::rename(&journal, dir.path().join("agent.jsonl.1")).expect("rotate away");
    let rotated: Vec<String> = (1..=3)
        .map(|o| line(o, &format!("rotated {o} longer")))
        .collect();
    fs::write(&journal, rotated.join("\n") + "\n").expect("new file");
    let seen = wait_events(&updates, 3);
    assert_eq!(
        generation_reason(&seen),
        Some(GenerationReason::FileReplaced),
        "a replaced file is detected and told"
    );
    assert_eq!(
        generations(&db),
        vec![expected, truncated, rotated],
        "every generation is kept"
    );
    let summary = handle.stop().expect("stops");
    assert_eq!(
        summary.events,
        3 + 2 + 1 + 1 + 3,
        "every landing counted once"
    );
}

#[test]
fn a_paused_file_tail_goes_on_storing_and_counts_what_the_view_does_not_show() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = dir.path().join("agent.jsonl");
    let db = dir.path().join("tail.sqlite");
    fs::write(&journal, line(1, "a") + "\n").expect("write");
    let (send, updates) = mpsc::channel();
    let handle = tail::start(
        &db,
        Source::File(journal.clone()),
        TailOptions::default(),
        move |u| {
            let _ = send.send(u);
        },
    )
    .expect("tail starts");
    wait_events(&updates, 1);
    handle.pause();
    std::thread::sleep(Duration::from_millis(300));
    append(&journal, &(line(2, "b") + "\n"));
    let mut during = wait_events(&updates, 1);
    std::thread::sleep(Duration::from_millis(1_300));
    during.extend(updates.try_iter());
    assert!(
        during.iter().any(|u| matches!(
            u,
            TailUpdate::Status {
                status: TailStatus::Paused { behind: 1 }
            }
        )),
        "paused is shown, one event behind: {during:?}"
    );
    assert_eq!(
        generations(&db).concat().len(),
        2,
        "the line appended while paused is stored"
    );
    handle.resume();
    handle.stop().expect("stops");
    assert_eq!(generations(&db).concat().len(), 2, "every line once");
}

/// What a follower and an import derive from a journal (marks, diagnostics, tip, request rows
/// and links), printed, to compare the two.
/// The newest journal of the store at `db`, and what it derived.
fn derived_at(db: &Path) -> String {
    let store = Store::open(db).expect("store");
    let id = store
        .latest_journal()
        .expect("journal")
        .expect("a journal")
        .id;
    derived(&store, id)
}

/// `lines` written to a file of their own and imported once.
fn imported(dir: &Path, name: &str, lines: &[&str]) -> String {
    let path = dir.join(format!("{name}.jsonl"));
    fs::write(&path, lines.join("\n") + "\n").expect("write");
    let db = dir.join(format!("{name}.sqlite"));
    let store = Store::open(&db).expect("store");
    let id = import_quietly(&store, &path);
    derived(&store, id)
}

#[test]
fn following_a_claude_code_session_that_writes_one_response_over_several_appends() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/claude-code/split-response.jsonl"
    );
    let text = fs::read_to_string(fixture).expect("fixture");
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines.len() >= 5,
        "the fixture has a prompt and a response over several lines"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let session = dir.path().join("session.jsonl");
    let db = dir.path().join("tail.sqlite");
    // Given the prompt and the first line of the response (its thinking) on disk...
    fs::write(&session, lines[..2].join("\n") + "\n").expect("write session");
    let (send, updates) = mpsc::channel();
    let handle = tail::start(
        &db,
        Source::File(session.clone()),
        TailOptions::default(),
        move |u| {
            let _ = send.send(u);
        },
    )
    .expect("tail starts");
    wait_events(&updates, 2);
    assert_eq!(
        derived_at(&db),
        imported(dir.path(), "two", &lines[..2]),
        "the follower derives from the first lines what an import of them does"
    );

    // ...when the response's next line is appended, then the request grows by it.
    append(&session, &format!("{}\n", lines[2]));
    wait_events(&updates, 1);
    assert_eq!(
        derived_at(&db),
        imported(dir.path(), "three", &lines[..3]),
        "a response's second line joins its request as it would on import"
    );

    // When the next line is written in two writes, then nothing lands until its newline...
    let (head, rest) = lines[3].split_at(lines[3].len() / 2);
    append(&session, head);
    std::thread::sleep(Duration::from_millis(400));
    assert!(
        !updates
            .try_iter()
            .any(|u| matches!(u, TailUpdate::Event { .. })),
        "half a line of a response is never stored"
    );
    append(&session, &format!("{rest}\n"));
    wait_events(&updates, 1);
    assert_eq!(
        derived_at(&db),
        imported(dir.path(), "four", &lines[..4]),
        "the completed line lands once and the request is what an import makes of it"
    );

    // ...and when the rest of the session arrives, then the follower holds what one import of
    // the whole session holds.
    append(&session, &(lines[4..].join("\n") + "\n"));
    wait_events(&updates, lines.len() - 4);
    assert_eq!(
        derived_at(&db),
        imported(dir.path(), "whole", &lines),
        "a followed session ends as an imported one"
    );
    let store = Store::open(&db).expect("store");
    let id = store.latest_journal().expect("journal").expect("one").id;
    let rows = store.request_rows(id).expect("request rows");
    let (_, first) = rows.first().expect("the split response is a request");
    let first: serde_json::Value = serde_json::from_str(first).expect("row JSON");
    assert_eq!(
        first["usage"]["output_tokens"], 12,
        "the request's usage is its response's last line's: {first}"
    );
    handle.stop().expect("stops");
}
