//! Remote credentials never leave memory: a stream URL with userinfo, credential-like query
//! parameters and a key-shaped path segment, plus an `Authorization` header, tailed against a
//! closed port (so every attempt fails with the library's own message) leaves no trace of
//! them in the status updates, the error, the database files or the CLI's output.

use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use journalscope::tail::{self, Backoff, Header, Source, TailOptions, TailUpdate};

const SECRETS: &[&str] = &[
    "alice-user",
    "pa55word-9",
    "tok-secret-123",
    "k3y-value-77",
    "sk-proj-PATHsecret0123456789",
    "hdr-secret-55",
];

/// A local port nothing listens on.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    port
}

fn url(scheme: &str, port: u16) -> String {
    format!(
        "{scheme}://alice-user:pa55word-9@127.0.0.1:{port}/streams/sk-proj-PATHsecret0123456789/tail?token=tok-secret-123&x-api-key=k3y-value-77&view=full"
    )
}

fn leaks(text: &str) -> Vec<&'static str> {
    SECRETS
        .iter()
        .copied()
        .filter(|s| text.contains(s))
        .collect()
}

fn options() -> TailOptions {
    TailOptions {
        backoff: Backoff {
            initial: Duration::from_millis(5),
            max: Duration::from_millis(20),
            factor: 2.0,
            jitter: 0.0,
            max_attempts: Some(2),
        },
        ..TailOptions::default()
    }
}

#[test]
fn a_failing_tail_never_reveals_its_credentials() {
    for scheme in ["http", "ws"] {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = dir.path().join("tail.sqlite");
        let header = Header::parse("Authorization: Bearer hdr-secret-55").expect("header");
        let source = Source::parse(&url(scheme, closed_port()), vec![header]).expect("a URL");
        assert!(
            leaks(&format!("{source:?}")).is_empty(),
            "{scheme}: Debug of the source shows no credential: {source:?}"
        );
        let (send, updates) = mpsc::channel();
        let handle = tail::start(&db, source, options(), move |u| {
            let _ = send.send(u);
        })
        .expect("the tail starts");
        let err = handle
            .wait()
            .expect_err("a closed port fails after two attempts");
        let mut seen = format!("{err}\n{err:?}\n");
        let updates: Vec<TailUpdate> = updates.try_iter().collect();
        assert!(
            updates
                .iter()
                .any(|u| matches!(u, TailUpdate::Status { .. })),
            "{scheme}: statuses were reported"
        );
        for update in &updates {
            seen.push_str(&serde_json::to_string(update).expect("serialisable"));
            seen.push('\n');
        }
        assert!(
            leaks(&seen).is_empty(),
            "{scheme}: credentials in the statuses or the error: {:?}\n{seen}",
            leaks(&seen)
        );
        let mut bytes = Vec::new();
        for entry in std::fs::read_dir(dir.path()).expect("list db files") {
            bytes.extend(std::fs::read(entry.expect("entry").path()).expect("read db file"));
        }
        let stored = String::from_utf8_lossy(&bytes);
        assert!(
            leaks(&stored).is_empty(),
            "{scheme}: credentials in the database files: {:?}",
            leaks(&stored)
        );
    }
}

/// Runs `journalscope tail` against a closed port for a moment (it retries for ever) and
/// answers everything it printed.
fn run_tail(extra: &[&str]) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut child = Command::new(env!("CARGO_BIN_EXE_journalscope"))
        .args(["tail", &url("ws", closed_port())])
        .args(extra)
        .args(["--header", "Authorization: Bearer hdr-secret-55"])
        .args(["--retry-initial-ms", "5", "--retry-max-ms", "10"])
        .arg("--db")
        .arg(dir.path().join("t.sqlite"))
        .env("JOURNALSCOPE_CACHE_DIR", dir.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    std::thread::sleep(Duration::from_millis(1500));
    let _ = child.kill();
    let output = child.wait_with_output().expect("output");
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn the_cli_tail_prints_no_credential() {
    for extra in [&[][..], &["--json"][..]] {
        let text = run_tail(extra);
        assert!(
            text.to_lowercase().contains("connect"),
            "{extra:?}: the tail reported its attempts: {text:.500}"
        );
        assert!(
            leaks(&text).is_empty(),
            "{extra:?}: credentials printed by `journalscope tail`: {:?}\n{text:.2000}",
            leaks(&text)
        );
    }
}
