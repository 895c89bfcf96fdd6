//! End-to-end tests of live ingestion in the real window: connecting to a stream served by the
//! root crate's `tail_server` example through the "Connect to stream…" dialog, and following
//! a journal file while lines are appended and the file is truncated. Same harness as
//! desktop.rs (tauri-driver under Xvfb, fantoccini; scripts/e2e.sh starts both); ignored
//! by a plain `cargo test`. Screenshots go to target/e2e-screenshots/.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use fantoccini::Client;
use serde_json::json;

use crate::common::*;

fn fixture() -> PathBuf {
    workspace().join("tests/fixtures/tail/iterate-200.jsonl")
}

fn count_is(n: u64) -> String {
    format!(
        "const e = document.querySelector('.events .count'); return !!e && e.textContent.trim().startsWith('{n} events');"
    )
}

fn selected_seq_is(seq: u64) -> String {
    format!(
        "const d = document.querySelector('[data-testid=detail]'); return !!d && d.dataset.seq === '{seq}';"
    )
}

/// The dialog connects to a stream; its 200 events land in the list, the status shows live
/// and the selection follows the newest event.
async fn live_stream(c: &Client, stream_port: u16) -> Outcome {
    keys(c, "o").await?;
    let url = wait_for(c, "[data-testid=connect-url]").await?;
    // Something that is not a stream URL is refused in the dialog, with its code.
    url.send_keys("ftp://nowhere")
        .await
        .map_err(err("type a bad URL"))?;
    wait_for(c, "[data-testid=connect-submit]")
        .await?
        .click()
        .await
        .map_err(err("click Connect"))?;
    let refused = wait_for(c, "[data-testid=connect-error]")
        .await?
        .text()
        .await
        .map_err(err("error text"))?;
    check(
        refused.contains("invalid-target"),
        &format!("a non-stream URL is refused as invalid-target: {refused}"),
    )?;
    url.clear().await.map_err(err("clear the URL"))?;
    url.send_keys(&format!("http://127.0.0.1:{stream_port}/sse"))
        .await
        .map_err(err("type the URL"))?;
    wait_for(c, "[data-testid=connect-oldest]")
        .await?
        .click()
        .await
        .map_err(err("choose oldest"))?;
    wait_for(c, "[data-testid=connect-submit]")
        .await?
        .click()
        .await
        .map_err(err("click Connect"))?;
    wait_until(
        c,
        "the dialog to close",
        "return !document.querySelector('[data-testid=connect-dialog]');",
    )
    .await?;
    wait_until(c, "200 events in the list", &count_is(200)).await?;
    wait_until(
        c,
        "the status to show live",
        "const s = document.querySelector('[data-testid=live-status]'); return !!s && s.dataset.state === 'live' && s.textContent.includes('live');",
    )
    .await?;
    wait_until(
        c,
        "the selection to follow the newest event",
        &selected_seq_is(199),
    )
    .await?;
    let follow = js(
        c,
        "return document.querySelector('[data-testid=follow-state]').dataset.following;",
    )
    .await?;
    check(
        follow == json!("true"),
        &format!("a new stream is followed ({follow})"),
    )?;
    let title = js(
        c,
        "return document.querySelector('[data-testid=file-name]').getAttribute('title');",
    )
    .await?;
    check(
        title
            .as_str()
            .is_some_and(|t| t.contains(&format!("127.0.0.1:{stream_port}"))),
        &format!("the window shows the stream's journal ({title})"),
    )?;
    // `=` pauses and resumes ingestion.
    keys(c, "=").await?;
    wait_until(
        c,
        "the status to show paused",
        "return document.querySelector('[data-testid=live-status]').dataset.state === 'paused';",
    )
    .await?;
    keys(c, "=").await?;
    wait_until(
        c,
        "the status to show live again",
        "return document.querySelector('[data-testid=live-status]').dataset.state === 'live';",
    )
    .await?;
    Ok(())
}

/// Over TLS: without the stream's CA the tail fails at once and the status says why; with
/// the CA's file in the dialog, every event lands.
async fn live_stream_over_tls(c: &Client, stream_port: u16, ca_file: &Path) -> Outcome {
    let url = format!("https://127.0.0.1:{stream_port}/ndjson");
    for trusted in [false, true] {
        keys(c, "o").await?;
        wait_for(c, "[data-testid=connect-url]")
            .await?
            .send_keys(&url)
            .await
            .map_err(err("type the URL"))?;
        if trusted {
            wait_for(c, "[data-testid=connect-cacert]")
                .await?
                .send_keys(&ca_file.to_string_lossy())
                .await
                .map_err(err("type the CA file"))?;
            screenshot(c, "07c-connect-dialog-tls").await?;
        }
        wait_for(c, "[data-testid=connect-oldest]")
            .await?
            .click()
            .await
            .map_err(err("choose oldest"))?;
        wait_for(c, "[data-testid=connect-submit]")
            .await?
            .click()
            .await
            .map_err(err("click Connect"))?;
        if !trusted {
            wait_until(
                c,
                "the status to say the certificate has an unknown issuer",
                "const s = document.querySelector('[data-testid=live-status]'); return !!s && s.dataset.state === 'failed' && s.textContent.includes('unknown issuer');",
            )
            .await?;
            screenshot(c, "07b-live-tls-refused").await?;
        }
    }
    wait_until(c, "200 events in the list", &count_is(200)).await?;
    let title = js(
        c,
        "return document.querySelector('[data-testid=file-name]').getAttribute('title');",
    )
    .await?;
    check(
        title
            .as_str()
            .is_some_and(|t| t.starts_with("https://127.0.0.1")),
        &format!("the window shows the TLS stream's journal ({title})"),
    )
}

fn lines(from: usize, to: usize) -> String {
    let text = std::fs::read_to_string(fixture()).expect("the tail fixture");
    text.lines()
        .skip(from)
        .take(to - from)
        .map(|l| format!("{l}\n"))
        .collect()
}

fn append(path: &Path, text: &str) -> Outcome {
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(|e| format!("open for append: {e}"))?;
    file.write_all(text.as_bytes())
        .and_then(|_| file.flush())
        .map_err(|e| format!("append: {e}"))
}

/// Appended lines show in the list; G follows them; a truncation is announced and the new
/// content shows.
async fn file_follow(c: &Client, journal: &Path) -> Outcome {
    wait_until(c, "the first 50 events", &count_is(50)).await?;
    wait_until(
        c,
        "the open file to be followed",
        "const s = document.querySelector('[data-testid=live-status]'); return !!s && s.dataset.state === 'live';",
    )
    .await?;
    keys(c, "G").await?;
    wait_until(c, "G to select the last event", &selected_seq_is(49)).await?;
    append(journal, &lines(50, 80))?;
    let took = wait_until(c, "the 30 appended events", &count_is(80)).await?;
    eprintln!("file-follow: appended lines listed after {took:?}");
    check(
        took < Duration::from_millis(1500),
        &format!("appended lines show promptly ({took:?})"),
    )?;
    wait_until(
        c,
        "the selection to follow to the newest",
        &selected_seq_is(79),
    )
    .await?;
    keys(c, "k").await?;
    wait_until(
        c,
        "stepping away stops following",
        "return document.querySelector('[data-testid=follow-state]').dataset.following === 'false';",
    )
    .await?;
    append(journal, &lines(80, 90))?;
    wait_until(c, "10 more events", &count_is(90)).await?;
    wait_until(
        c,
        "the selection to stay where the user left it",
        &selected_seq_is(78),
    )
    .await?;
    // Truncate and rewrite: a new generation, announced.
    std::fs::write(journal, lines(0, 12)).map_err(|e| format!("truncate: {e}"))?;
    wait_until(
        c,
        "the truncation notice",
        "const n = document.querySelector('[data-testid=live-notice]'); return !!n && n.textContent.includes('truncated');",
    )
    .await?;
    wait_until(c, "the new content (12 events)", &count_is(12)).await?;
    append(journal, &lines(12, 20))?;
    wait_until(c, "lines appended after the truncation", &count_is(20)).await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display, WebKitWebDriver, tauri-driver and the tail_server example: run `make e2e`"]
async fn live_end_to_end() {
    assert!(
        server_binary().exists(),
        "build the stream server first: cargo build -p journalscope --example tail_server"
    );
    let harness = Harness::start(&[]);
    let port = harness.port;
    let mut outcomes = Vec::new();

    outcomes.push(match stream_server(&fixture()) {
        Ok((_server, stream_port)) => {
            scenario(port, "07-live-stream", &[], |c| async move {
                let r = live_stream(&c, stream_port).await;
                (c, r)
            })
            .await
        }
        Err(e) => Err(format!("07-live-stream: {e}")),
    });

    let ca_file = harness.home.path().join("stream-ca.pem");
    outcomes.push(match tls_stream_server(&fixture(), &ca_file) {
        Ok((_server, stream_port)) => {
            let ca = ca_file.clone();
            scenario(port, "07c-live-stream-tls", &[], |c| async move {
                let r = live_stream_over_tls(&c, stream_port, &ca).await;
                (c, r)
            })
            .await
        }
        Err(e) => Err(format!("07c-live-stream-tls: {e}")),
    });

    let journal = harness.home.path().join("growing.jsonl");
    std::fs::write(&journal, lines(0, 50)).expect("write the starting journal");
    let path = journal.clone();
    outcomes.push(
        scenario(
            port,
            "08-file-follow",
            &[journal.to_string_lossy().into_owned()],
            |c| async move {
                let r = file_follow(&c, &path).await;
                (c, r)
            },
        )
        .await,
    );
    assert_all(outcomes, "live end-to-end scenarios");
}
