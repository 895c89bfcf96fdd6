//! What a tail says about the connection itself: a server scripted in time (types, silences,
//! bursts, frames without data, endings) is tailed, and each fault must be a diagnostic of the
//! stream at the record where it was seen, stored beside the records' own diagnostics, while
//! the records themselves land exactly as they would without it.

use crate::support::stream_server;

use std::path::Path;
use std::time::Duration;

use journalscope::diagnostic::{Diagnostic, Severity};
use journalscope::store::Store;
use journalscope::tail::{self, Backoff, Source, TailOptions};
use serde_json::json;
use stream_server::{Ending, Script, ScriptServer, Step};

fn options(stop_after: Option<u64>) -> TailOptions {
    TailOptions {
        backoff: Backoff {
            initial: Duration::from_millis(5),
            max: Duration::from_millis(20),
            factor: 2.0,
            jitter: 0.5,
            max_attempts: Some(50),
        },
        flush_interval: Duration::from_millis(10),
        stop_after,
        ..TailOptions::default()
    }
}

fn event(offset: i64) -> String {
    json!({
        "offset": offset,
        "type": "events.iterate.com/agent/context-added",
        "payload": {"role": "user", "content": format!("note {offset}")},
    })
    .to_string()
}

fn sse(offset: i64) -> Step {
    Step::Send(format!("id: {offset}\ndata: {}\n\n", event(offset)))
}

fn script(content_type: &'static str, steps: Vec<Step>, ending: Ending) -> Script {
    Script {
        content_type: Some(content_type),
        steps,
        ending,
    }
}

/// Tails `url` until it stops by itself; every diagnostic stored, as (offset, code, severity).
fn tail_and_diagnose(
    db: &Path,
    source: Source,
    options: TailOptions,
) -> Vec<(Option<i64>, String, Severity)> {
    let _ = tail::start(db, source, options, |_| {})
        .expect("tail starts")
        .wait();
    diagnostics(db)
        .into_iter()
        .map(|d| (d.offset, d.code, d.severity))
        .collect()
}

fn diagnostics(db: &Path) -> Vec<Diagnostic> {
    let store = Store::open(db).expect("store opens");
    let journal = store
        .latest_journal()
        .expect("journal query")
        .expect("a journal landed");
    store
        .diagnostics(journal.id)
        .expect("diagnostics")
        .into_iter()
        .map(|(_, d)| d)
        .collect()
}

fn stored_offsets(db: &Path) -> Vec<Option<i64>> {
    let store = Store::open(db).expect("store opens");
    let journal = store.latest_journal().expect("query").expect("a journal");
    store
        .events(journal.id)
        .expect("events")
        .iter()
        .map(|e| e.offset)
        .collect()
}

fn stream(url: &str) -> Source {
    Source::parse(url, vec![]).expect("valid URL")
}

#[test]
fn given_a_stream_served_as_json_when_tailed_then_the_type_is_told_at_its_first_record() {
    let lines = format!("{}\n{}\n", event(1), event(2));
    let server = ScriptServer::start(vec![script(
        "application/json",
        vec![Step::Send(lines)],
        Ending::Close,
    )])
    .expect("server");
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("db.sqlite");
    let found = tail_and_diagnose(&db, stream(&server.url("/sse")), options(Some(2)));
    assert_eq!(
        stored_offsets(&db),
        vec![Some(1), Some(2)],
        "read as NDJSON all the same"
    );
    assert_eq!(
        found,
        vec![(
            Some(1),
            "unexpected-content-type".to_string(),
            Severity::Warning
        )],
        "one warning, at the first record of the connection"
    );
    let message = diagnostics(&db).remove(0).message;
    assert!(
        message.contains("\"application/json\"") && message.contains("text/event-stream"),
        "says what came and what was expected: {message}"
    );
}

#[test]
fn given_an_ndjson_endpoint_served_as_ndjson_when_tailed_then_nothing_is_told() {
    let lines = format!("{}\n{}\n", event(1), event(2));
    let server = ScriptServer::start(vec![script(
        "application/x-ndjson",
        vec![Step::Send(lines)],
        Ending::Close,
    )])
    .expect("server");
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("db.sqlite");
    let found = tail_and_diagnose(&db, stream(&server.url("/ndjson")), options(Some(2)));
    assert!(found.is_empty(), "a well-served stream is quiet: {found:?}");
}

#[test]
fn given_frames_without_data_when_tailed_then_they_are_told_and_an_id_still_moves_the_resume_point()
{
    let server = ScriptServer::start(vec![
        script(
            "text/event-stream",
            vec![
                sse(1),
                Step::Send("id: 41\n\n".into()),
                Step::Send("event: tick\n\n".into()),
                sse(2),
                Step::Send("id: 42\nretry: 5\n\n".into()),
            ],
            Ending::Cut,
        ),
        script("text/event-stream", vec![sse(3)], Ending::Close),
    ])
    .expect("server");
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("db.sqlite");
    let found = tail_and_diagnose(&db, stream(&server.url("/sse")), options(Some(3)));
    assert_eq!(
        stored_offsets(&db),
        vec![Some(1), Some(2), Some(3)],
        "every record once"
    );
    assert_eq!(
        found,
        vec![
            (Some(2), "event-without-data".to_string(), Severity::Warning),
            (Some(2), "frame-without-data".to_string(), Severity::Info),
        ],
        "the two frames before @2 are one warning (one named an event); the id-only frame after it is advice"
    );
    assert_eq!(
        server
            .header_values("last-event-id")
            .get(1)
            .cloned()
            .flatten()
            .as_deref(),
        Some("42"),
        "the reconnect resumes after the id of a frame without data"
    );
}

#[test]
fn given_a_silence_longer_than_the_keep_alive_when_tailed_then_it_is_told_at_the_record_that_ends_it(
) {
    let server = ScriptServer::start(vec![script(
        "text/event-stream",
        vec![sse(1), Step::Wait(Duration::from_millis(900)), sse(2)],
        Ending::Close,
    )])
    .expect("server");
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("db.sqlite");
    let quick = TailOptions {
        keep_alive: Duration::from_millis(300),
        ..options(Some(2))
    };
    let found = tail_and_diagnose(&db, stream(&server.url("/sse")), quick);
    assert_eq!(
        found,
        vec![(Some(2), "keep-alive-gap".to_string(), Severity::Warning)],
        "the silence before @2"
    );
    let message = diagnostics(&db).remove(0).message;
    assert!(message.contains("0.3 s"), "names the interval: {message}");
}

#[test]
fn given_a_response_released_in_one_burst_at_its_end_when_tailed_then_it_was_buffered() {
    let burst: String = (1..=4)
        .map(|o| format!("id: {o}\ndata: {}\n\n", event(o)))
        .collect();
    let server = ScriptServer::start(vec![
        script(
            "text/event-stream",
            vec![Step::Wait(Duration::from_millis(1_300)), Step::Send(burst)],
            Ending::Close,
        ),
        script("text/event-stream", vec![sse(5)], Ending::Close),
    ])
    .expect("server");
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("db.sqlite");
    let found = tail_and_diagnose(&db, stream(&server.url("/sse")), options(Some(5)));
    assert_eq!(
        found,
        vec![(Some(4), "buffered-response".to_string(), Severity::Warning)],
        "told after the burst's last record"
    );
}

#[test]
fn given_an_ag_ui_stream_cut_during_a_run_when_tailed_then_the_drop_is_told_and_the_run_completes()
{
    let frame = |e: serde_json::Value| Step::Send(format!("data: {e}\n\n"));
    let server = ScriptServer::start(vec![
        script(
            "text/event-stream",
            vec![
                frame(json!({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"})),
                frame(
                    json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}),
                ),
            ],
            Ending::Cut,
        ),
        script(
            "text/event-stream",
            vec![
                frame(json!({"type": "TEXT_MESSAGE_END", "messageId": "m1"})),
                frame(json!({"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"})),
            ],
            Ending::Close,
        ),
    ])
    .expect("server");
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("db.sqlite");
    let found = tail_and_diagnose(&db, stream(&server.url("/events")), options(Some(4)));
    assert_eq!(
        found,
        vec![(Some(2), "dropped-during-run".to_string(), Severity::Warning)],
        "the cut after @2, and no lint: the run finished on the next connection"
    );
    let message = diagnostics(&db).remove(0).message;
    assert!(
        message.contains("run \"r1\"") && message.contains("resumes"),
        "names the run and what the tail does: {message}"
    );
}

#[test]
fn regression_reconnect_attempts_that_fail_during_an_open_run_add_no_drop_of_their_own() {
    let frame = |e: serde_json::Value| Step::Send(format!("data: {e}\n\n"));
    let unavailable = script("text/event-stream", vec![], Ending::Unavailable);
    let server = ScriptServer::start(vec![
        script(
            "text/event-stream",
            vec![frame(
                json!({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"}),
            )],
            Ending::Cut,
        ),
        unavailable.clone(),
        unavailable.clone(),
        unavailable,
        script(
            "text/event-stream",
            vec![frame(
                json!({"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}),
            )],
            Ending::Close,
        ),
    ])
    .expect("server");
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("db.sqlite");
    let found = tail_and_diagnose(&db, stream(&server.url("/events")), options(Some(2)));
    assert!(server.connections() >= 5, "three refusals on the way");
    assert_eq!(
        found,
        vec![(Some(1), "dropped-during-run".to_string(), Severity::Warning)],
        "one drop, however many attempts failed after it"
    );
}

#[test]
fn given_a_posted_run_whose_response_ends_mid_run_when_recorded_then_the_end_is_told() {
    let frame = |e: serde_json::Value| Step::Send(format!("data: {e}\n\n"));
    let server = ScriptServer::start(vec![script(
        "text/event-stream",
        vec![
            frame(json!({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"})),
            frame(json!({"type": "STEP_STARTED", "stepName": "plan"})),
        ],
        Ending::Close,
    )])
    .expect("server");
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("db.sqlite");
    let input = json!({"threadId": "t1", "runId": "r1", "messages": [], "tools": [], "context": [], "state": {}, "forwardedProps": {}});
    let source = Source::posted(&server.url("/agent"), vec![], input).expect("a run");
    let found = tail_and_diagnose(&db, source, options(None));
    assert!(
        found.contains(&(Some(2), "dropped-during-run".to_string(), Severity::Warning)),
        "the response ended with the run open: {found:?}"
    );
    assert!(
        found.contains(&(Some(2), "run-never-finished".to_string(), Severity::Warning)),
        "and the journal's lint agrees: {found:?}"
    );
    assert_eq!(server.connections(), 1, "a run is never POSTed again");
}

#[test]
fn the_manual_documents_every_transport_diagnostic() {
    let manual =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/manual.md"))
            .expect("docs/manual.md readable");
    for rule in tail::TRANSPORT_RULES {
        assert!(
            manual.contains(&format!("| `{}` | {} |", rule.code, rule.severity.as_str())),
            "the transport table of docs/manual.md lists {} as {}",
            rule.code,
            rule.severity.as_str()
        );
    }
    assert!(
        manual.contains("--keep-alive SECONDS"),
        "the interval option is documented"
    );
}
