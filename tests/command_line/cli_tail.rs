//! `journalscope tail` run as a binary, against the test server and a growing file, in text
//! and `--json` output. Every run is bounded by `--max-events` and by a kill deadline.

use crate::support::stream_server;

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use stream_server::{
    load_journal, Certificate, Ending, Faults, RunServer, Script, ScriptServer, Step, StreamServer,
    TestCa,
};

const BOUND: Duration = Duration::from_secs(60);

fn fixture() -> Vec<(i64, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tail/iterate-200.jsonl");
    load_journal(&path).expect("fixture loads")
}

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_journalscope"))
        .arg("tail")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("journalscope runs")
}

/// Waits for the child, killing it if it outlives the bound. Output is drained while it runs
/// so that a full pipe never stalls it.
fn finish(mut child: Child) -> Output {
    fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    }
    let stdout = drain(child.stdout.take().expect("piped stdout"));
    let stderr = drain(child.stderr.take().expect("piped stderr"));
    let deadline = Instant::now() + BOUND;
    let status = loop {
        match child.try_wait().expect("poll child") {
            Some(status) => break status,
            None if Instant::now() > deadline => {
                let _ = child.kill();
                let _ = child.wait();
                let stderr = stderr.join().expect("stderr reader");
                panic!(
                    "journalscope tail did not stop within {BOUND:?}; stderr: {}",
                    String::from_utf8_lossy(&stderr)
                );
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    Output {
        status,
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
    }
}

const QUICK: [&str; 4] = ["--retry-initial-ms", "2", "--retry-max-ms", "20"];

#[test]
fn text_output_prints_each_event_of_a_faulty_sse_stream_once() {
    let server = StreamServer::start(fixture(), Faults::harsh(21), None, 0).expect("server");
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("t.sqlite");
    let url = server.url("/sse");
    let db_arg = db.to_string_lossy().into_owned();
    let mut args = vec![url.as_str(), "--db", db_arg.as_str(), "--max-events", "200"];
    args.extend(QUICK);
    let output = finish(spawn(&args));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "tail exits cleanly: {stderr}");
    let stdout = String::from_utf8(output.stdout).expect("utf-8 output");
    let offsets: Vec<String> = stdout
        .lines()
        .map(|l| l.split('\t').next().unwrap_or("").to_string())
        .collect();
    let expected: Vec<String> = fixture().iter().map(|(o, _)| format!("@{o}")).collect();
    assert_eq!(
        offsets, expected,
        "one line per event, in order, none twice"
    );
    assert!(
        stdout.lines().all(|l| l.split('\t').count() == 3),
        "offset, type and summary on every line"
    );
    assert!(
        stderr.contains("reconnecting in"),
        "reconnects are shown on stderr: {stderr}"
    );
    assert!(server.cuts() > 0, "the stream really was cut");
}

#[test]
fn json_output_carries_events_statuses_and_gaps() {
    let server = StreamServer::start(fixture(), Faults::harsh(22), None, 0).expect("server");
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("t.sqlite");
    let url = server.url("/ws");
    let db_arg = db.to_string_lossy().into_owned();
    let mut args = vec![
        url.as_str(),
        "--db",
        db_arg.as_str(),
        "--json",
        "--max-events",
        "200",
    ];
    args.extend(QUICK);
    let output = finish(spawn(&args));
    assert!(
        output.status.success(),
        "tail exits cleanly: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let updates: Vec<serde_json::Value> = String::from_utf8(output.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is JSON"))
        .collect();
    let raws: Vec<String> = updates
        .iter()
        .filter(|u| u["kind"] == "event")
        .map(|u| u["event"]["raw"].as_str().expect("raw text").to_string())
        .collect();
    let expected: Vec<String> = fixture().into_iter().map(|(_, line)| line).collect();
    assert_eq!(
        raws, expected,
        "events carry their verbatim text, each once"
    );
    assert!(
        updates
            .iter()
            .any(|u| u["kind"] == "status" && u["status"]["state"] == "live"),
        "live status is reported"
    );
    assert!(
        updates.iter().any(|u| u["kind"] == "gap"),
        "offset gaps are reported"
    );
    assert!(
        updates
            .iter()
            .any(|u| u["kind"] == "status" && u["status"]["state"] == "stopped"),
        "the end is reported"
    );
}

#[test]
fn tailing_a_growing_file_prints_appended_events() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = dir.path().join("growing.jsonl");
    let lines: Vec<String> = fixture().into_iter().take(5).map(|(_, l)| l).collect();
    std::fs::write(&journal, format!("{}\n", lines[0])).expect("write");
    let db = dir.path().join("t.sqlite");
    let journal_arg = journal.to_string_lossy().into_owned();
    let db_arg = db.to_string_lossy().into_owned();
    let child = spawn(&[
        journal_arg.as_str(),
        "--db",
        db_arg.as_str(),
        "--json",
        "--max-events",
        "5",
    ]);
    std::thread::sleep(Duration::from_millis(300));
    for line in &lines[1..] {
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&journal)
            .expect("open for append");
        writeln!(file, "{line}").expect("append");
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = finish(child);
    assert!(
        output.status.success(),
        "tail exits after 5 events: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let raws: Vec<String> = String::from_utf8(output.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON line"))
        .filter(|u| u["kind"] == "event")
        .map(|u| u["event"]["raw"].as_str().expect("raw").to_string())
        .collect();
    assert_eq!(
        raws, lines,
        "the first line and every appended line, once each"
    );
}

#[test]
fn a_bad_from_is_refused_with_a_message() {
    let output = finish(spawn(&[
        "http://127.0.0.1:9/sse",
        "--from",
        "soon",
        "--db",
        "/nonexistent/x",
    ]));
    assert!(!output.status.success(), "exit status says it failed");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--from"),
        "the message names the option: {stderr}"
    );
}

#[test]
fn a_silence_past_the_keep_alive_is_printed_as_a_diagnostic_and_a_bad_interval_is_refused() {
    let event = |o: i64| {
        format!(
            "id: {o}\ndata: {{\"offset\":{o},\"type\":\"events.iterate.com/agent/context-added\",\"payload\":{{\"role\":\"user\",\"content\":\"n\"}}}}\n\n"
        )
    };
    let server = ScriptServer::start(vec![Script {
        content_type: Some("text/event-stream"),
        steps: vec![
            Step::Send(event(1)),
            Step::Wait(Duration::from_millis(800)),
            Step::Send(event(2)),
        ],
        ending: Ending::Close,
    }])
    .expect("server");
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("db.sqlite");
    let url = server.url("/sse");
    let output = finish(spawn(&[
        &url,
        "--db",
        db.to_str().expect("utf-8"),
        "--keep-alive",
        "0.25",
        "--max-events",
        "2",
    ]));
    assert!(output.status.success(), "the tail stops by itself");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("warning keep-alive-gap at @2: nothing arrived for")),
        "the diagnostic is printed where it was seen: {stderr}"
    );
    let refused = finish(spawn(&[
        &url,
        "--keep-alive",
        "0",
        "--db",
        db.to_str().expect("utf-8"),
    ]));
    assert!(!refused.status.success(), "a zero interval is refused");
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("--keep-alive takes a positive number"),
        "and says why"
    );
}

#[test]
fn cacert_trusts_a_private_ca_and_without_it_the_one_line_reason_is_printed() {
    let ca = TestCa::new();
    let server = StreamServer::start_tls(
        fixture(),
        Faults::none(),
        0,
        ca.server_config(Certificate::Good),
    )
    .expect("TLS server");
    let dir = tempfile::tempdir().expect("temp dir");
    let ca_file = dir.path().join("ca.pem");
    ca.write_pem(&ca_file);
    let ca_arg = ca_file.to_string_lossy().into_owned();
    let db = dir.path().join("t.sqlite");
    let db_arg = db.to_string_lossy().into_owned();
    let url = server.url("/ndjson");
    assert!(url.starts_with("https://"), "{url}");

    let mut trusted = vec![
        url.as_str(),
        "--db",
        db_arg.as_str(),
        "--cacert",
        ca_arg.as_str(),
        "--max-events",
        "200",
    ];
    trusted.extend(QUICK);
    let output = finish(spawn(&trusted));
    assert!(
        output.status.success(),
        "tail over TLS exits cleanly: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).lines().count(),
        200,
        "every event printed once"
    );

    let mut untrusted = vec![url.as_str(), "--db", db_arg.as_str(), "--max-events", "200"];
    untrusted.extend(QUICK);
    let output = finish(spawn(&untrusted));
    assert!(
        !output.status.success(),
        "an untrusted certificate fails the command"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    let error: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("journalscope: error:"))
        .collect();
    assert_eq!(error.len(), 1, "one error line: {stderr}");
    assert!(
        error[0].contains("unknown issuer") && error[0].contains("127.0.0.1"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("reconnecting"),
        "a certificate problem is not retried: {stderr}"
    );

    let missing = dir
        .path()
        .join("missing.pem")
        .to_string_lossy()
        .into_owned();
    let output = finish(spawn(&[
        url.as_str(),
        "--db",
        db_arg.as_str(),
        "--cacert",
        missing.as_str(),
    ]));
    assert!(
        !output.status.success(),
        "a CA file that cannot be read fails the command"
    );
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("missing.pem"),
        "the error names the file"
    );
}

#[test]
fn post_records_an_ag_ui_run_that_state_then_reads_to_the_clients_answer() {
    let capture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agui/corpus/step03-frontendtools-turn1.json");
    let text = std::fs::read_to_string(&capture).expect("capture");
    let events: Vec<serde_json::Value> =
        serde_json::from_str(text.trim_start_matches('\u{feff}')).expect("events");
    let server = RunServer::start(vec![events.clone()], None).expect("run server");
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("input.json");
    let run = serde_json::json!({
        "threadId": events[0]["threadId"], "runId": events[0]["runId"],
        "state": {}, "messages": [], "tools": [], "context": [], "forwardedProps": {}
    });
    std::fs::write(&input, run.to_string()).expect("write the run input");
    let db = dir.path().join("run.sqlite");
    let (url, db_arg, input_arg) = (
        server.url(),
        db.to_string_lossy().into_owned(),
        input.to_string_lossy().into_owned(),
    );
    let output = finish(spawn(&[
        url.as_str(),
        "--post",
        input_arg.as_str(),
        "--db",
        db_arg.as_str(),
    ]));
    assert!(
        output.status.success(),
        "the run is recorded: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        stdout.lines().count(),
        events.len(),
        "one line per event of the run"
    );
    assert!(
        stdout
            .lines()
            .next()
            .is_some_and(|l| l.contains("RUN_STARTED")),
        "{stdout}"
    );
    assert_eq!(server.posts(), 1, "POSTed once");

    let last = events.len().to_string();
    let state = Command::new(env!("CARGO_BIN_EXE_journalscope"))
        .args(["state", db_arg.as_str(), "--at", last.as_str(), "--json"])
        .output()
        .expect("state runs");
    assert!(
        state.status.success(),
        "{}",
        String::from_utf8_lossy(&state.stderr)
    );
    let state: serde_json::Value = serde_json::from_slice(&state.stdout).expect("state JSON");
    let expected: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(capture.with_extension("expected.json")).expect("golden"),
    )
    .expect("golden JSON");
    assert_eq!(
        state["messages"], expected["messages"],
        "the client's messages"
    );
    assert_eq!(state["state"], expected["state"], "the client's state");

    let output = finish(spawn(&[
        "ws://127.0.0.1:1/ws",
        "--post",
        input_arg.as_str(),
    ]));
    assert!(
        !output.status.success(),
        "a run is not POSTed to a WebSocket"
    );
}
