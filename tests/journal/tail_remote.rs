//! Tailing real servers with real faults: the test server cuts connections at random points
//! (mid-frame included), pauses and refuses; whatever happens, the store must end up holding
//! the fixture exactly: same offsets, same bytes, none missing, none twice. The same holds over
//! TLS, under a CA made for the test; without that CA, or with a wrong certificate, the tail
//! refuses at once with one line that says why.

use crate::support::stream_server;

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use journalscope::store::Store;
use journalscope::tail::{
    self, Backoff, Header, Source, StartAt, TailOptions, TailStatus, TailUpdate,
};
use stream_server::{load_journal, Certificate, Faults, Required, StreamServer, TestCa};

/// No test may hang: every wait ends here at the latest.
const BOUND: Duration = Duration::from_secs(90);

fn fixture() -> Vec<(i64, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tail/iterate-200.jsonl");
    load_journal(&path).expect("fixture journal loads")
}

fn quick_options() -> TailOptions {
    TailOptions {
        backoff: Backoff {
            initial: Duration::from_millis(2),
            max: Duration::from_millis(20),
            factor: 2.0,
            jitter: 0.5,
            max_attempts: Some(200),
        },
        flush_interval: Duration::from_millis(10),
        ..TailOptions::default()
    }
}

/// Collects updates until `enough` says stop, failing the test on a failed status or timeout.
fn collect_until(
    updates: &mpsc::Receiver<TailUpdate>,
    mut enough: impl FnMut(&[TailUpdate]) -> bool,
) -> Vec<TailUpdate> {
    let deadline = Instant::now() + BOUND;
    let mut seen = Vec::new();
    while !enough(&seen) {
        let left = deadline.saturating_duration_since(Instant::now());
        match updates.recv_timeout(left) {
            Ok(update) => {
                if let TailUpdate::Status {
                    status: TailStatus::Failed { reason },
                } = &update
                {
                    panic!("the tail failed: {reason}");
                }
                seen.push(update);
            }
            Err(err) => panic!(
                "no progress within {BOUND:?} ({err}); {} events so far",
                events_in(&seen)
            ),
        }
    }
    seen
}

fn events_in(updates: &[TailUpdate]) -> usize {
    updates
        .iter()
        .filter(|u| matches!(u, TailUpdate::Event { .. }))
        .count()
}

/// Stored events as (offset, verbatim bytes).
type Landed = Vec<(Option<i64>, Vec<u8>)>;

fn stored(db: &Path) -> (usize, Landed) {
    let store = Store::open(db).expect("store opens");
    let journals: i64 = store
        .inspection_connection()
        .query_row("SELECT count(*) FROM journals", [], |r| r.get(0))
        .expect("count journals");
    let events = match store.latest_journal().expect("read journals") {
        Some(journal) => store.events(journal.id).expect("events"),
        None => Vec::new(),
    };
    (
        journals as usize,
        events.into_iter().map(|e| (e.offset, e.raw)).collect(),
    )
}

fn expected() -> Landed {
    fixture()
        .into_iter()
        .map(|(o, line)| (Some(o), line.into_bytes()))
        .collect()
}

/// One run of a tail into `db` that stops by itself after `count` events, having landed them.
fn tail_a_run(db: &Path, url: &str, count: u64, options: TailOptions, run: u32) {
    let source = Source::parse(url, vec![]).expect("valid URL");
    let options = TailOptions {
        stop_after: Some(count),
        ..options
    };
    let summary = tail::start(db, source, options, |_| {})
        .expect("tail starts")
        .wait()
        .expect("stops by itself");
    assert_eq!(
        summary.events, count,
        "run {run} landed what it was asked to"
    );
}

fn tail_through_faults(path: &str, seed: u64) {
    let server = StreamServer::start(fixture(), Faults::harsh(seed), None, 0).expect("server");
    tail_server_through_faults(&server, path, quick_options());
}

/// The harsh-faults server over TLS, trusted through `--cacert`'s option.
fn tail_through_faults_over_tls(path: &str, seed: u64) {
    let ca = TestCa::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let ca_file = dir.path().join("ca.pem");
    ca.write_pem(&ca_file);
    let server = StreamServer::start_tls(
        fixture(),
        Faults::harsh(seed),
        0,
        ca.server_config(Certificate::Good),
    )
    .expect("TLS server");
    assert!(server.url(path).starts_with("https://") || server.url(path).starts_with("wss://"));
    let options = TailOptions {
        ca_files: vec![ca_file],
        ..quick_options()
    };
    tail_server_through_faults(&server, path, options);
}

fn tail_server_through_faults(server: &StreamServer, path: &str, options: TailOptions) {
    let dir = tempfile::tempdir().expect("temp dir");
    let db: PathBuf = dir.path().join("tail.sqlite");
    let (send, updates) = mpsc::channel();
    let source = Source::parse(&server.url(path), vec![]).expect("valid URL");
    let handle = tail::start(&db, source, options, move |u| {
        let _ = send.send(u);
    })
    .expect("tail starts");
    let total = fixture().len();
    let seen = collect_until(&updates, |seen| events_in(seen) >= total);
    let summary = handle.stop().expect("tail stops cleanly");
    assert!(
        server.cuts() >= 20,
        "at least 20 forced disconnects on {path}, got {}",
        server.cuts()
    );
    assert!(
        seen.iter().any(|u| matches!(
            u,
            TailUpdate::Status {
                status: TailStatus::Reconnecting { .. }
            }
        )),
        "reconnecting was shown"
    );
    assert!(
        seen.iter().any(|u| matches!(u, TailUpdate::Gap { .. })),
        "the fixture's offset gaps are shown"
    );
    let (journals, events) = stored(&db);
    assert_eq!(journals, 1, "disconnects never start a new generation");
    assert_eq!(events.len(), total, "every event stored exactly once");
    assert_eq!(
        events,
        expected(),
        "stored events equal the fixture byte for byte"
    );
    assert_eq!(
        summary.events, total as u64,
        "the summary counts what landed"
    );
}

#[test]
fn sse_survives_forced_disconnects() {
    tail_through_faults("/sse", 11);
}

#[test]
fn ndjson_survives_forced_disconnects() {
    tail_through_faults("/ndjson", 12);
}

#[test]
fn websocket_survives_forced_disconnects() {
    tail_through_faults("/ws", 13);
}

#[test]
fn sse_over_tls_survives_forced_disconnects() {
    tail_through_faults_over_tls("/sse", 21);
}

#[test]
fn ndjson_over_tls_survives_forced_disconnects() {
    tail_through_faults_over_tls("/ndjson", 22);
}

#[test]
fn websocket_over_tls_survives_forced_disconnects() {
    tail_through_faults_over_tls("/ws", 23);
}

/// Tails `path` of a TLS server under `certificate`, trusting `trusted` CAs; answers how it
/// failed (the tail's error and its failed status), or panics if it did not.
fn refused_over_tls(path: &str, certificate: Certificate, trust_the_ca: bool) -> String {
    let ca = TestCa::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let ca_file = dir.path().join("ca.pem");
    ca.write_pem(&ca_file);
    let server =
        StreamServer::start_tls(fixture(), Faults::none(), 0, ca.server_config(certificate))
            .expect("TLS server");
    let options = TailOptions {
        ca_files: if trust_the_ca { vec![ca_file] } else { vec![] },
        ..quick_options()
    };
    let (send, updates) = mpsc::channel();
    let source = Source::parse(&server.url(path), vec![]).expect("valid URL");
    let handle = tail::start(&dir.path().join("tail.sqlite"), source, options, move |u| {
        let _ = send.send(u);
    })
    .expect("tail starts");
    let err = handle
        .wait()
        .expect_err("a certificate that does not verify is refused");
    let failed: Vec<String> = updates
        .try_iter()
        .filter_map(|u| match u {
            TailUpdate::Status {
                status: TailStatus::Failed { reason },
            } => Some(reason),
            _ => None,
        })
        .collect();
    assert_eq!(
        failed.len(),
        1,
        "one failed status, not a retry loop: {failed:?}"
    );
    assert_eq!(
        failed[0],
        err.to_string(),
        "the status and the error say the same"
    );
    assert_eq!(
        server.connections(),
        0,
        "no request reached the server over the refused TLS"
    );
    let reason = err.to_string();
    assert!(!reason.contains('\n'), "one line: {reason}");
    assert!(
        reason.contains("127.0.0.1"),
        "the line names the host: {reason}"
    );
    reason
}

#[test]
fn without_the_ca_tls_is_refused_at_once_naming_an_unknown_issuer() {
    for path in ["/sse", "/ndjson", "/ws"] {
        let reason = refused_over_tls(path, Certificate::Good, false);
        assert!(reason.contains("unknown issuer"), "{path}: {reason}");
        assert!(
            reason.contains("--cacert"),
            "{path}: the line says what to do: {reason}"
        );
    }
}

#[test]
fn an_expired_certificate_is_refused_as_expired() {
    for path in ["/sse", "/ws"] {
        let reason = refused_over_tls(path, Certificate::Expired, true);
        assert!(reason.contains("expired"), "{path}: {reason}");
    }
}

#[test]
fn a_certificate_for_another_name_is_refused_as_such() {
    for path in ["/ndjson", "/ws"] {
        let reason = refused_over_tls(path, Certificate::OtherName, true);
        assert!(reason.contains("another name"), "{path}: {reason}");
        assert!(
            reason.contains("streams.example"),
            "{path}: names what it is for: {reason}"
        );
    }
}

#[test]
fn a_tls_server_that_restarts_is_resumed_after_the_stored_offset() {
    let ca = TestCa::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let ca_file = dir.path().join("ca.pem");
    ca.write_pem(&ca_file);
    let db = dir.path().join("tail.sqlite");
    let mut port = 0;
    for (run, count) in [(1, 50u64), (2, 150u64)] {
        // A new process on the same port: new connections, a new certificate from the same CA.
        let server = StreamServer::start_tls(
            fixture(),
            Faults::none(),
            port,
            ca.server_config(Certificate::Good),
        )
        .expect("TLS server");
        port = server.addr.port();
        let options = TailOptions {
            ca_files: vec![ca_file.clone()],
            ..quick_options()
        };
        tail_a_run(&db, &server.url("/sse"), count, options, run);
    }
    let (journals, events) = stored(&db);
    assert_eq!(
        journals, 1,
        "the restarted server's stream continues the same journal"
    );
    assert_eq!(
        events,
        expected(),
        "no event missing or twice across the restart"
    );
}

#[test]
fn wrapped_websocket_deliveries_are_unwrapped_and_deduplicated() {
    tail_through_faults("/ws?wrap=stream-1", 14);
}

#[test]
fn regression_a_paused_tail_held_every_arrival_in_memory_instead_of_storing_it() {
    // Pausing freezes what the window shows; what arrives is stored all the same, so a long
    // pause on a fast stream costs disk, never memory.
    let server = StreamServer::start(fixture(), Faults::harsh(5), None, 0).expect("server");
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("tail.sqlite");
    let (send, updates) = mpsc::channel();
    let source = Source::parse(&server.url("/ndjson"), vec![]).expect("valid URL");
    let handle = tail::start(&db, source, quick_options(), move |u| {
        let _ = send.send(u);
    })
    .expect("tail starts");
    // Given a tail paused from the start,
    handle.pause();
    let total = fixture().len();
    // when the whole stream arrives,
    let seen = collect_until(&updates, |seen| events_in(seen) >= total);
    // then every event was stored while paused, and the status comes to count them all as
    // not shown (reported at most once a second, the last count by the tail's own tick).
    let (_, stored_while_paused) = stored(&db);
    assert_eq!(
        stored_while_paused,
        expected(),
        "a paused tail stores every arrival"
    );
    // Events landed before the pause took effect are shown; the rest the view lacks.
    let before_pause = seen
        .iter()
        .take_while(|u| {
            !matches!(
                u,
                TailUpdate::Status {
                    status: TailStatus::Paused { .. }
                }
            )
        })
        .filter(|u| matches!(u, TailUpdate::Event { .. }))
        .count();
    let total_behind = (total - before_pause) as u64;
    let counted = |u: &TailUpdate| matches!(u, TailUpdate::Status { status: TailStatus::Paused { behind } } if *behind == total_behind);
    if !seen.iter().any(counted) {
        collect_until(&updates, |more| more.iter().any(counted));
    }
    // And resuming shows live again, with nothing missing or twice.
    handle.resume();
    let rest = collect_until(&updates, |seen| {
        seen.iter().any(|u| {
            matches!(
                u,
                TailUpdate::Status {
                    status: TailStatus::Live { .. }
                }
            )
        })
    });
    assert!(!rest.is_empty(), "live again after resuming");
    handle.stop().expect("stops");
    let (_, events) = stored(&db);
    assert_eq!(events, expected(), "every event once");
}

#[test]
fn headers_are_sent_but_never_stored_and_refusal_fails_with_reason() {
    let secret = "Bearer very-secret-token-42";
    let required = Required {
        name: "Authorization".to_string(),
        value: secret.to_string(),
    };
    let server = StreamServer::start(fixture(), Faults::none(), Some(required), 0).expect("server");
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("tail.sqlite");

    // Without the header the server refuses for good: the tail fails and says why.
    let (send, updates) = mpsc::channel();
    let source = Source::parse(&server.url("/sse"), vec![]).expect("valid URL");
    let handle = tail::start(&db, source, quick_options(), move |u| {
        let _ = send.send(u);
    })
    .expect("tail starts");
    let err = handle.wait().expect_err("a 401 is not retried");
    assert!(
        err.to_string().contains("401"),
        "the reason names the refusal: {err}"
    );
    let statuses: Vec<TailUpdate> = updates.try_iter().collect();
    assert!(
        statuses.iter().any(|u| matches!(u, TailUpdate::Status { status: TailStatus::Failed { reason } } if reason.contains("401"))),
        "failed status carries the reason"
    );

    // With it (and a password in the URL), everything lands and no secret is written.
    let url = server
        .url("/sse")
        .replace("http://", "http://alice:pa55word@");
    let header = Header::parse(&format!("Authorization: {secret}")).expect("header");
    let source = Source::parse(&url, vec![header]).expect("valid URL");
    let options = TailOptions {
        stop_after: Some(fixture().len() as u64),
        start: StartAt::Oldest,
        ..quick_options()
    };
    let handle = tail::start(&db, source, options, |_| {}).expect("tail starts");
    let summary = handle.wait().expect("stops after all events");
    assert_eq!(summary.events, fixture().len() as u64, "all events landed");
    // The same header goes along on a WebSocket upgrade.
    let header = Header::parse(&format!("Authorization: {secret}")).expect("header");
    let source = Source::parse(&server.url("/ws"), vec![header]).expect("valid URL");
    let options = TailOptions {
        stop_after: Some(5),
        ..quick_options()
    };
    let summary = tail::start(&db, source, options, |_| {})
        .expect("tail starts")
        .wait()
        .expect("the WebSocket upgrade carried the header");
    assert_eq!(summary.events, 5, "WebSocket events landed");
    drop(server);
    let mut bytes = Vec::new();
    for entry in std::fs::read_dir(dir.path()).expect("list db files") {
        bytes.extend(std::fs::read(entry.expect("entry").path()).expect("read db file"));
    }
    let text = String::from_utf8_lossy(&bytes);
    assert!(
        !text.contains("very-secret-token-42"),
        "header value never stored"
    );
    assert!(!text.contains("pa55word"), "URL password never stored");
    let store = Store::open(&db).expect("store");
    let url: String = store
        .inspection_connection()
        .query_row(
            "SELECT url FROM streams ORDER BY journal_id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .expect("stream row");
    assert_eq!(
        url,
        server_url_without_secrets(&url),
        "stored URL has no userinfo"
    );
}

fn server_url_without_secrets(url: &str) -> String {
    url.replace("alice:pa55word@", "")
}

#[test]
fn a_restart_resumes_after_the_stored_offset() {
    let server = StreamServer::start(fixture(), Faults::none(), None, 0).expect("server");
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("tail.sqlite");
    for (run, count) in [(1, 50u64), (2, 150u64)] {
        tail_a_run(&db, &server.url("/ndjson"), count, quick_options(), run);
    }
    let (journals, events) = stored(&db);
    assert_eq!(
        journals, 1,
        "the second run appended to the first run's journal"
    );
    assert_eq!(events, expected(), "no event missing or twice across runs");
}

#[test]
fn from_an_offset_or_latest_starts_there() {
    let server = StreamServer::start(fixture(), Faults::none(), None, 0).expect("server");
    let dir = tempfile::tempdir().expect("temp dir");
    let from = fixture()[100].0;
    let source = Source::parse(&server.url("/ws"), vec![]).expect("valid URL");
    let options = TailOptions {
        start: StartAt::Offset(from),
        stop_after: Some(10),
        ..quick_options()
    };
    let db = dir.path().join("from.sqlite");
    tail::start(&db, source, options, |_| {})
        .expect("tail starts")
        .wait()
        .expect("stops after 10");
    let (_, events) = stored(&db);
    assert_eq!(
        events,
        expected()[100..110].to_vec(),
        "starts at the given offset"
    );

    let (send, updates) = mpsc::channel();
    let source = Source::parse(&server.url("/sse"), vec![]).expect("valid URL");
    let options = TailOptions {
        start: StartAt::Latest,
        ..quick_options()
    };
    let db = dir.path().join("latest.sqlite");
    let handle = tail::start(&db, source, options, move |u| {
        let _ = send.send(u);
    })
    .expect("tail starts");
    collect_until(&updates, |seen| {
        seen.iter().any(|u| {
            matches!(
                u,
                TailUpdate::Status {
                    status: TailStatus::Live { .. }
                }
            )
        })
    });
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        events_in(&updates.try_iter().collect::<Vec<_>>()),
        0,
        "latest skips history"
    );
    handle.stop().expect("stops");
}
