//! End-to-end tests of live ingestion in the real window: connecting to a stream served by the
//! root crate's `tail_server` example through the "Connect to stream…" dialog, and following
//! a journal file while lines are appended and the file is truncated. Same harness as
//! e2e_desktop.rs (tauri-driver under Xvfb, fantoccini; scripts/e2e.sh starts both); ignored
//! by a plain `cargo test`. Screenshots go to target/e2e-screenshots/.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};

type Outcome = Result<(), String>;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("src-tauri sits in the workspace")
        .to_path_buf()
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target"))
}

fn app_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_journalscope-app"))
}

/// Built by scripts/e2e.sh (`cargo build -p journalscope --example tail_server`).
fn server_binary() -> PathBuf {
    target_dir()
        .join("debug")
        .join("examples")
        .join("tail_server")
}

fn fixture() -> PathBuf {
    workspace().join("tests/fixtures/tail/iterate-200.jsonl")
}

/// A child process stopped with SIGTERM and waited for (tauri-driver must not be SIGKILLed:
/// WebKitWebDriver would keep our pipes open).
struct Process {
    child: Child,
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn driver(port: u16, env: &[(&str, &Path)]) -> Process {
    let mut cmd = Command::new("tauri-driver");
    cmd.args([
        "--port",
        &port.to_string(),
        "--native-port",
        &(port + 1).to_string(),
    ])
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::inherit());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let child = cmd
        .spawn()
        .expect("tauri-driver on PATH (scripts/desktop-deps.sh --e2e installs it)");
    Process { child }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free local port")
}

/// Serves the 200-event iterate fixture without faults and waits until it accepts.
fn stream_server() -> Result<(Process, u16), String> {
    let port = free_port();
    let child = Command::new(server_binary())
        .arg(fixture())
        .args(["--port", &port.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("start {}: {e}", server_binary().display()))?;
    let server = Process { child };
    let deadline = Instant::now() + Duration::from_secs(15);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline {
            return Err("the stream server never listened".to_string());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok((server, port))
}

async fn connect(port: u16, args: &[String]) -> Result<Client, String> {
    let mut caps = serde_json::Map::new();
    caps.insert("browserName".into(), json!("wry"));
    caps.insert(
        "tauri:options".into(),
        json!({"application": app_binary(), "args": args}),
    );
    let url = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match ClientBuilder::native()
            .capabilities(caps.clone())
            .connect(&url)
            .await
        {
            Ok(c) => return Ok(c),
            Err(e) if Instant::now() > deadline => return Err(format!("connect: {e}")),
            Err(_) => tokio::time::sleep(Duration::from_millis(250)).await,
        }
    }
}

fn err(context: &str) -> impl Fn(fantoccini::error::CmdError) -> String + '_ {
    move |e| format!("{context}: {e}")
}

async fn wait_for(c: &Client, css: &str) -> Result<Element, String> {
    c.wait()
        .at_most(Duration::from_secs(15))
        .for_element(Locator::Css(css))
        .await
        .map_err(|e| format!("waiting for `{css}`: {e}"))
}

async fn js(c: &Client, script: &str) -> Result<Value, String> {
    c.execute(script, vec![]).await.map_err(err("execute"))
}

/// Polls a script until it returns true; answers how long that took.
async fn wait_until(c: &Client, what: &str, script: &str) -> Result<Duration, String> {
    let started = Instant::now();
    let deadline = started + Duration::from_secs(20);
    loop {
        if js(c, script).await? == Value::Bool(true) {
            return Ok(started.elapsed());
        }
        if Instant::now() > deadline {
            let state = js(c, STATE_SCRIPT).await.unwrap_or(Value::Null);
            return Err(format!("timed out waiting for {what}; window: {state}"));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// What a failure message shows of the window.
const STATE_SCRIPT: &str = "const q = (s) => document.querySelector(s); return { \
    count: q('.events .count')?.textContent, \
    live: q('[data-testid=live-status]')?.textContent, \
    follow: q('[data-testid=follow-state]')?.textContent, \
    notice: q('[data-testid=live-notice]')?.textContent, \
    error: q('[data-testid=error]')?.textContent, \
    connectError: q('[data-testid=connect-error]')?.textContent, \
    seq: q('[data-testid=detail]')?.dataset.seq };";

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

async fn keys(c: &Client, text: &str) -> Outcome {
    let mut seq = KeyActions::new("keyboard".into());
    for ch in text.chars() {
        seq = seq
            .then(KeyAction::Down { value: ch })
            .then(KeyAction::Up { value: ch });
    }
    c.perform_actions(seq).await.map_err(err("keys"))
}

async fn screenshot(c: &Client, name: &str) -> Outcome {
    let dir = target_dir().join("e2e-screenshots");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let png = c.screenshot().await.map_err(err("screenshot"))?;
    std::fs::write(dir.join(format!("{name}.png")), png).map_err(|e| e.to_string())
}

fn check(cond: bool, what: &str) -> Outcome {
    if cond {
        Ok(())
    } else {
        Err(what.to_string())
    }
}

/// Runs one scenario in a fresh app and always leaves a screenshot.
async fn scenario<F, Fut>(port: u16, name: &str, args: &[String], body: F) -> Outcome
where
    F: FnOnce(Client) -> Fut,
    Fut: std::future::Future<Output = (Client, Outcome)>,
{
    let c = connect(port, args).await?;
    let loaded = wait_until(
        &c,
        "the journal to open",
        "const d = document.querySelector('[data-testid=detail]'); return !!d && d.dataset.seq !== '' && !document.querySelector('[data-testid=import-progress]');",
    )
    .await;
    let (c, outcome) = match loaded {
        Ok(_) => body(c).await,
        Err(e) => (c, Err(e)),
    };
    let shot = screenshot(&c, name).await;
    let _ = c.close().await;
    outcome.and(shot).map_err(|e| format!("{name}: {e}"))
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
        app_binary().exists(),
        "build the app first: {}",
        app_binary().display()
    );
    assert!(
        server_binary().exists(),
        "build the stream server first: cargo build -p journalscope --example tail_server"
    );
    let home = tempfile::tempdir().expect("temp home");
    let cache = home.path().join("cache");
    let config = home.path().join("config");
    let port = 4464;
    let _driver = driver(
        port,
        &[
            ("JOURNALSCOPE_CACHE_DIR", &cache),
            ("XDG_CONFIG_HOME", &config),
        ],
    );
    let mut failures = Vec::new();

    let outcome = match stream_server() {
        Ok((_server, stream_port)) => {
            scenario(port, "07-live-stream", &[], |c| async move {
                let r = live_stream(&c, stream_port).await;
                (c, r)
            })
            .await
        }
        Err(e) => Err(format!("07-live-stream: {e}")),
    };
    failures.extend(outcome.err());

    let journal = home.path().join("growing.jsonl");
    std::fs::write(&journal, lines(0, 50)).expect("write the starting journal");
    let path = journal.clone();
    let outcome = scenario(
        port,
        "08-file-follow",
        &[journal.to_string_lossy().into_owned()],
        |c| async move {
            let r = file_follow(&c, &path).await;
            (c, r)
        },
    )
    .await;
    failures.extend(outcome.err());

    for f in &failures {
        eprintln!("FAILED {f}");
    }
    assert!(
        failures.is_empty(),
        "live end-to-end scenarios failed: {failures:#?}"
    );
}
