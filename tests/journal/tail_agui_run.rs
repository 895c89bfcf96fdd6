//! Recording AG-UI runs from an endpoint: the run input is POSTed once, the Server-Sent Events
//! answer is stored until the response ends, and the recorded journal ends in the state and
//! messages the official client computes for the same events (the corpus goldens). A dropped
//! connection fails the run and is never answered by POSTing again.

use crate::support::agui_recordings;
use crate::support::stream_server;

use std::path::{Path, PathBuf};

use agui_recordings::{events_of, recordings};
use journalscope::dialect::Dialect;
use journalscope::store::Store;
use journalscope::tail::{self, Source, TailOptions};
use journalscope_agui::agui;
use serde_json::{json, Value};
use stream_server::RunServer;

fn corpus_dir() -> PathBuf {
    agui_recordings::fixtures("corpus")
}

fn run_input(events: &[Value]) -> Value {
    let started = events.first().expect("a run has events");
    json!({
        "threadId": started["threadId"],
        "runId": started["runId"],
        "state": {},
        "messages": [],
        "tools": [],
        "context": [],
        "forwardedProps": {},
    })
}

/// POSTs `input` to the server and records its answer into `db`.
fn record_run(
    server: &RunServer,
    db: &Path,
    input: Value,
) -> Result<tail::TailSummary, tail::TailError> {
    let source = Source::posted(&server.url(), vec![], input).expect("a run");
    tail::start(db, source, TailOptions::default(), |_| {})
        .expect("tail starts")
        .wait()
}

/// The stored events, parsed back.
fn raw_values(events: &[journalscope::store::StoredEvent]) -> Vec<Value> {
    events
        .iter()
        .map(|e| serde_json::from_slice(&e.raw).expect("stored JSON"))
        .collect()
}

fn stored(db: &Path) -> (Dialect, Vec<journalscope::store::StoredEvent>) {
    let store = Store::open(db).expect("store opens");
    let journal = store
        .latest_journal()
        .expect("read journals")
        .expect("the run made a journal");
    let events = store.events(journal.id).expect("events");
    (journal.dialect, events)
}

#[test]
fn every_recorded_run_is_stored_whole_and_ends_as_the_client_computes() {
    let files = recordings("corpus");
    assert_eq!(files.len(), 20, "all 20 corpus captures");
    for path in files {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("?")
            .to_string();
        let events = events_of(&path);
        let server = RunServer::start(vec![events.clone()], None).expect("run server");
        let dir = tempfile::tempdir().expect("temp dir");
        let db = dir.path().join("run.sqlite");
        let input = run_input(&events);
        let summary = record_run(&server, &db, input.clone())
            .unwrap_or_else(|e| panic!("{name}: the run is recorded: {e}"));
        assert_eq!(
            summary.events,
            events.len() as u64,
            "{name}: every event of the run landed"
        );
        assert_eq!(server.posts(), 1, "{name}: the run input was POSTed once");
        assert_eq!(
            server.inputs(),
            vec![input],
            "{name}: the server got the run input as given"
        );

        let (dialect, stored) = stored(&db);
        assert_eq!(
            dialect,
            Dialect::AgUi,
            "{name}: the recording is an AG-UI journal"
        );
        let raw = raw_values(&stored);
        assert_eq!(
            raw, events,
            "{name}: the stored events are the server's, in order"
        );
        let last = stored.len() as i64;
        let thread = agui::state_at(&stored, last);
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(path.with_extension("expected.json")).expect("golden"),
        )
        .expect("golden JSON");
        assert_eq!(
            thread.state, expected["state"],
            "{name}: final state as the client's"
        );
        assert_eq!(
            Value::Array(thread.messages),
            expected["messages"],
            "{name}: final messages as the client's"
        );
    }
}

#[test]
fn a_connection_dropped_mid_run_fails_keeps_what_arrived_and_is_never_posted_again() {
    let events = events_of(&corpus_dir().join("step02-backendtools-turn1.json"));
    assert!(events.len() > 8, "a run long enough to cut");
    let server = RunServer::start(vec![events.clone()], Some(6)).expect("run server");
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("run.sqlite");
    let err = record_run(&server, &db, run_input(&events))
        .expect_err("a run cut short is a failure, not a finished run");
    let reason = err.to_string();
    assert!(
        reason.contains("dropped during the run after 6 events"),
        "{reason}"
    );
    assert!(reason.contains("never POSTed again"), "{reason}");
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert_eq!(server.posts(), 1, "the run was not sent again");
    let (_, stored) = stored(&db);
    assert_eq!(
        stored.len(),
        6,
        "the complete frames before the cut are kept"
    );
}

#[test]
fn an_endpoint_that_does_not_answer_fails_at_once_without_a_second_post() {
    // A port nothing listens on: bind one, then let it go.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let dir = tempfile::tempdir().expect("temp dir");
    let events = events_of(&corpus_dir().join("step01-gettingstarted-turn1.json"));
    let source = Source::posted(
        &format!("http://127.0.0.1:{port}/agent"),
        vec![],
        run_input(&events),
    )
    .expect("a run");
    let err = tail::start(
        &dir.path().join("run.sqlite"),
        source,
        TailOptions::default(),
        |_| {},
    )
    .expect("tail starts")
    .wait()
    .expect_err("no endpoint, no run");
    assert!(err.to_string().contains("the run was not started"), "{err}");
}

#[test]
fn a_run_input_without_ids_or_a_websocket_url_is_refused_before_sending() {
    let input = json!({"threadId": "t", "runId": "r"});
    assert!(Source::posted("ws://127.0.0.1:1/agent", vec![], input).is_err());
    let err = Source::posted("http://127.0.0.1:1/agent", vec![], json!({"threadId": "t"}))
        .expect_err("a run needs a runId");
    assert!(err.to_string().contains("runId"), "{err}");
}

/// A thread's runs split where each starts.
fn runs_of(events: &[Value]) -> Vec<Vec<Value>> {
    let mut runs: Vec<Vec<Value>> = Vec::new();
    for event in events {
        if event["type"] == "RUN_STARTED" || runs.is_empty() {
            runs.push(Vec::new());
        }
        if let Some(run) = runs.last_mut() {
            run.push(event.clone());
        }
    }
    runs
}

#[test]
fn the_runs_of_a_thread_posted_one_after_another_make_the_journal_an_import_of_the_thread_makes() {
    // Dojo journeys recorded against LangGraph: several runs of one thread, many snapshots.
    let dojo = agui_recordings::fixtures("dojo");
    for name in [
        "langgraph-python-retainsMemory.json",
        "langgraph-typescript-changesBackground.json",
    ] {
        let path = dojo.join(name);
        let events = events_of(&path);
        let runs = runs_of(&events);
        assert!(runs.len() > 2, "{name}: a multi-run journey");
        let server = RunServer::start(runs.clone(), None).expect("run server");
        let dir = tempfile::tempdir().expect("temp dir");
        let db = dir.path().join("thread.sqlite");
        for (i, run) in runs.iter().enumerate() {
            let summary = record_run(&server, &db, run_input(run))
                .unwrap_or_else(|e| panic!("{name}: run {i} is recorded: {e}"));
            assert_eq!(
                summary.events,
                run.len() as u64,
                "{name}: run {i} landed whole"
            );
        }
        assert_eq!(server.posts(), runs.len() as u64, "{name}: one POST a run");
        let (_, stored) = stored(&db);
        let raw = raw_values(&stored);
        assert_eq!(
            raw, events,
            "{name}: the runs follow each other in one journal"
        );
        let imported = agui::read_bytes(&std::fs::read(&path).expect("journey readable"));
        let last = imported.len() as i64;
        let recorded = agui::state_at(&stored, last);
        let expected = agui::state_at(&imported, last);
        assert_eq!(
            recorded.state, expected.state,
            "{name}: the same final state as an import"
        );
        assert_eq!(
            recorded.messages, expected.messages,
            "{name}: the same messages as an import"
        );
    }
}
