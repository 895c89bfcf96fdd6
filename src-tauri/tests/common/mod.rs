//! The end-to-end harness shared by every suite of `e2e/`: tauri-driver in front of
//! WebKitWebDriver (under the Xvfb display scripts/e2e.sh starts), a fresh app per scenario
//! driven with fantoccini, and a screenshot under target/e2e-screenshots/ for each one.
//! Each suite uses a subset of it.
#![allow(dead_code)]

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::actions::{
    InputSource, KeyAction, KeyActions, MouseActions, PointerAction, MOUSE_BUTTON_LEFT,
};
use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};

pub type Outcome = Result<(), String>;

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("src-tauri sits in the workspace")
        .to_path_buf()
}

pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target"))
}

/// Cargo builds the app for its integration tests, with the default `custom-protocol` feature,
/// so it serves the built UI, not a dev server.
pub fn app_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_journalscope-app"))
}

/// Built by scripts/e2e.sh (`cargo build -p journalscope --bin journalscope`).
pub fn cli_binary() -> PathBuf {
    target_dir().join("debug").join("journalscope")
}

/// Built by scripts/e2e.sh (`cargo build -p journalscope --example tail_server`).
pub fn server_binary() -> PathBuf {
    target_dir()
        .join("debug")
        .join("examples")
        .join("tail_server")
}

/// A child process stopped with SIGTERM and waited for (tauri-driver must not be SIGKILLed:
/// WebKitWebDriver would keep our pipes open).
pub struct Process {
    pub child: Child,
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

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free local port")
}

/// One tauri-driver on free ports, with the app's cache and config in a temporary home so
/// no test sees another's recent files or databases.
pub struct Harness {
    pub port: u16,
    pub home: tempfile::TempDir,
    pub cache: PathBuf,
    pub config: PathBuf,
    _driver: Process,
}

impl Harness {
    /// `extra_env` reaches the app (tauri-driver passes its environment on).
    pub fn start(extra_env: &[(&str, &Path)]) -> Harness {
        assert!(
            app_binary().exists(),
            "build the app first: {}",
            app_binary().display()
        );
        let home = tempfile::tempdir().expect("temp home");
        let cache = home.path().join("cache");
        let config = home.path().join("config");
        // Free ports, not tauri-driver's default 4444: other checkouts on the machine may run
        // their own driver at the same time.
        let port = free_port();
        let native = free_port();
        let mut cmd = Command::new("tauri-driver");
        cmd.args([
            "--port",
            &port.to_string(),
            "--native-port",
            &native.to_string(),
        ])
        .env("JOURNALSCOPE_CACHE_DIR", &cache)
        .env("XDG_CONFIG_HOME", &config)
        // The webview keeps its local storage (palette, column widths) under the data home:
        // each harness starts from none, whatever an earlier run left.
        .env("XDG_DATA_HOME", home.path().join("data"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit());
        for (k, v) in extra_env {
            cmd.env(k, v);
        }
        let child = cmd
            .spawn()
            .expect("tauri-driver on PATH (scripts/desktop-deps.sh --e2e installs it)");
        Harness {
            port,
            home,
            cache,
            config,
            _driver: Process { child },
        }
    }
}

/// Serves `fixture` with the `tail_server` example (no faults) and waits until it accepts.
pub fn stream_server(fixture: &Path) -> Result<(Process, u16), String> {
    serve_stream(fixture, &[])
}

/// `stream_server` over TLS, under a CA the server makes and writes to `ca_file`.
pub fn tls_stream_server(fixture: &Path, ca_file: &Path) -> Result<(Process, u16), String> {
    let served = serve_stream(
        fixture,
        &["--tls".to_string(), ca_file.to_string_lossy().into_owned()],
    )?;
    check(ca_file.is_file(), "the TLS stream server wrote its CA")?;
    Ok(served)
}

fn serve_stream(fixture: &Path, extra: &[String]) -> Result<(Process, u16), String> {
    let port = free_port();
    let child = Command::new(server_binary())
        .arg(fixture)
        .args(["--port", &port.to_string()])
        .args(extra)
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

pub async fn connect(port: u16, args: &[String]) -> Result<Client, String> {
    connect_app(port, &app_binary(), args).await
}

/// A session with the window of `application` (another build of the app, an installed one).
pub async fn connect_app(port: u16, application: &Path, args: &[String]) -> Result<Client, String> {
    let mut caps = serde_json::Map::new();
    caps.insert("browserName".into(), json!("wry"));
    caps.insert(
        "tauri:options".into(),
        json!({"application": application, "args": args}),
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

pub fn err(context: &str) -> impl Fn(fantoccini::error::CmdError) -> String + '_ {
    move |e| format!("{context}: {e}")
}

pub async fn wait_for(c: &Client, css: &str) -> Result<Element, String> {
    // Retries on any error: WebKitWebDriver can answer a find with an error (not "no such
    // element") while the page re-renders.
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        match c.find(Locator::Css(css)).await {
            Ok(e) => return Ok(e),
            Err(e) if Instant::now() > deadline => return Err(format!("waiting for `{css}`: {e}")),
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

pub async fn js(c: &Client, script: &str) -> Result<Value, String> {
    c.execute(script, vec![]).await.map_err(err("execute"))
}

/// What a failure message shows of the window.
pub const STATE_SCRIPT: &str = "const q = (s) => document.querySelector(s); return { \
    count: q('.events .count')?.textContent, \
    live: q('[data-testid=live-status]')?.textContent, \
    follow: q('[data-testid=follow-state]')?.textContent, \
    notice: q('[data-testid=live-notice]')?.textContent, \
    error: q('[data-testid=error]')?.textContent, \
    connectError: q('[data-testid=connect-error]')?.textContent, \
    seq: q('[data-testid=detail]')?.dataset.seq, \
    offset: q('[data-testid=detail]')?.dataset.offset };";

/// Polls a script until it returns true (20 s at most); answers how long that took.
pub async fn wait_until(c: &Client, what: &str, script: &str) -> Result<Duration, String> {
    wait_until_within(c, what, script, Duration::from_secs(20)).await
}

pub async fn wait_until_within(
    c: &Client,
    what: &str,
    script: &str,
    limit: Duration,
) -> Result<Duration, String> {
    let started = Instant::now();
    let deadline = started + limit;
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

pub async fn keys(c: &Client, text: &str) -> Outcome {
    let mut seq = KeyActions::new("keyboard".into());
    for ch in text.chars() {
        seq = seq
            .then(KeyAction::Down { value: ch })
            .then(KeyAction::Up { value: ch });
    }
    c.perform_actions(seq).await.map_err(err("keys"))
}

pub async fn ctrl(c: &Client, ch: char) -> Outcome {
    let control = '\u{e009}';
    let seq = KeyActions::new("keyboard".into())
        .then(KeyAction::Down { value: control })
        .then(KeyAction::Down { value: ch })
        .then(KeyAction::Up { value: ch })
        .then(KeyAction::Up { value: control });
    c.perform_actions(seq).await.map_err(err("ctrl chord"))
}

/// Clicks the element `css` finds, once it is there.
pub async fn click(c: &Client, css: &str) -> Outcome {
    wait_for(c, css).await?.click().await.map_err(err(css))
}

/// Opens the request pane's Export menu, which holds the redaction options, unless it is open.
pub async fn open_export_menu(c: &Client) -> Outcome {
    let open = js(
        c,
        "return !!document.querySelector('[data-testid=export-options]');",
    )
    .await?;
    if open != Value::Bool(true) {
        click(c, "[data-testid=export-menu]").await?;
    }
    wait_for(c, "[data-testid=export-options]").await.map(drop)
}

/// A real pointer click at the centre of what `css` finds. WebKitWebDriver refuses to click
/// SVG shapes as elements, so this moves the mouse there and presses instead.
pub async fn click_at(c: &Client, css: &str) -> Outcome {
    wait_for(c, css).await?;
    let script = format!(
        "const r = document.querySelector(\"{css}\").getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2];"
    );
    let centre = js(c, &script).await?;
    let (Some(x), Some(y)) = (centre[0].as_f64(), centre[1].as_f64()) else {
        return Err(format!("no position for {css}: {centre}"));
    };
    let press = MouseActions::new("mouse".into())
        .then(PointerAction::MoveTo {
            duration: None,
            x: x.round(),
            y: y.round(),
        })
        .then(PointerAction::Down {
            button: MOUSE_BUTTON_LEFT,
        })
        .then(PointerAction::Up {
            button: MOUSE_BUTTON_LEFT,
        });
    c.perform_actions(press).await.map_err(err("pointer click"))
}

pub async fn selected_offset(c: &Client) -> Result<Option<i64>, String> {
    let d = wait_for(c, "[data-testid=detail]").await?;
    Ok(d.attr("data-offset")
        .await
        .map_err(err("detail offset"))?
        .and_then(|s| s.parse().ok()))
}

/// Waits until `offset` is selected and its step has rendered: the detail shows it and the
/// change line speaks of it.
pub async fn wait_selected(c: &Client, offset: i64) -> Outcome {
    let script = format!(
        "const d = document.querySelector('[data-testid=detail]'); const l = document.querySelector('[data-testid=change-line]'); \
         return !!d && d.dataset.offset === '{offset}' && !!l && l.textContent.startsWith('@{offset} ');"
    );
    wait_until(c, &format!("selection @{offset}"), &script).await?;
    Ok(())
}

/// `Ctrl+G`, the offset, Enter; waits until the selection is there.
pub async fn goto(c: &Client, offset: i64) -> Outcome {
    ctrl(c, 'g').await?;
    let input = wait_for(c, "[data-testid=goto-input]").await?;
    let enter = fantoccini::key::Key::Enter;
    input
        .send_keys(&format!("{offset}{}", char::from(enter)))
        .await
        .map_err(err("type offset"))?;
    wait_selected(c, offset).await
}

pub async fn card(c: &Client, scope: &str, offset: i64) -> Result<Element, String> {
    wait_for(
        c,
        &format!("{scope} [data-testid=item-card][data-offset='{offset}']"),
    )
    .await
}

pub async fn attr(e: &Element, name: &str) -> Result<String, String> {
    Ok(e.attr(name).await.map_err(err("attr"))?.unwrap_or_default())
}

pub async fn text_of(c: &Client, css: &str) -> Result<String, String> {
    wait_for(c, css).await?.text().await.map_err(err("text"))
}

pub async fn screenshot(c: &Client, name: &str) -> Outcome {
    let dir = target_dir().join("e2e-screenshots");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    // Two frames, so the picture is of the page the assertions just read, not the frame
    // before. Best effort: a failed scenario's page is pictured as it is.
    let _ = js(
        c,
        "return new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))));",
    )
    .await;
    let png = c.screenshot().await.map_err(err("screenshot"))?;
    std::fs::write(dir.join(format!("{name}.png")), png).map_err(|e| e.to_string())
}

/// Runs the CLI on the app's cache directory (so both read the same database) with `args`
/// and `-o out`; answers the bytes it wrote there.
pub fn cli_written(cache: &Path, args: &[&str], out: &Path) -> Result<Vec<u8>, String> {
    let _ = std::fs::remove_file(out);
    let status = Command::new(cli_binary())
        .args(args)
        .arg("-o")
        .arg(out)
        .env("JOURNALSCOPE_CACHE_DIR", cache)
        .status()
        .map_err(|e| format!("run the CLI: {e}"))?;
    check(
        status.success(),
        &format!("the CLI runs `{}`", args.join(" ")),
    )?;
    std::fs::read(out).map_err(|e| format!("CLI output of `{}`: {e}", args.join(" ")))
}

pub fn check(cond: bool, what: &str) -> Outcome {
    if cond {
        Ok(())
    } else {
        Err(what.to_string())
    }
}

/// Runs one scenario in a fresh app (launched with `args`) once its journal has opened, and
/// always leaves a screenshot named `name`.
pub async fn scenario<F, Fut>(port: u16, name: &str, args: &[String], body: F) -> Outcome
where
    F: FnOnce(Client) -> Fut,
    Fut: std::future::Future<Output = (Client, Outcome)>,
{
    scenario_within(port, name, args, Duration::from_secs(180), body).await
}

/// `scenario` with its own bound on the body, for scenarios that import large journals.
pub async fn scenario_within<F, Fut>(
    port: u16,
    name: &str,
    args: &[String],
    limit: Duration,
    body: F,
) -> Outcome
where
    F: FnOnce(Client) -> Fut,
    Fut: std::future::Future<Output = (Client, Outcome)>,
{
    // A window that cannot start leaves WebKitWebDriver waiting forever: bound the session.
    // Now and then the display refuses a new window at start-up ("Failed to initialize GTK",
    // seen once among hundreds of starts on a loaded machine): the window is started once
    // more before the scenario counts as failed, and the first failure is printed.
    let start = || async {
        tokio::time::timeout(Duration::from_secs(60), connect(port, args))
            .await
            .map_err(|_| format!("{name}: no session within 60 s (did the app start?)"))?
    };
    let c = match start().await {
        Ok(c) => c,
        Err(first) => {
            eprintln!("{first}; starting the window once more");
            start().await?
        }
    };
    // The window opens its journal by itself; keys pressed during the import are ignored.
    // Generous: large generated journals import in the debug build.
    let loaded = wait_until_within(
        &c,
        "the journal to open",
        "const d = document.querySelector('[data-testid=detail]'); return !!d && d.dataset.seq !== '' && !document.querySelector('[data-testid=import-progress]');",
        Duration::from_secs(180),
    )
    .await;
    let (c, outcome) = match loaded {
        Ok(_) => {
            let c2 = c.clone();
            match tokio::time::timeout(limit, body(c)).await {
                Ok(done) => done,
                Err(_) => (c2, Err(format!("scenario took over {} s", limit.as_secs()))),
            }
        }
        Err(e) => (c, Err(e)),
    };
    let shot = screenshot(&c, name).await;
    let _ = c.close().await;
    outcome.and(shot).map_err(|e| format!("{name}: {e}"))
}

/// Fails the test with every scenario's failure listed.
pub fn assert_all(outcomes: Vec<Outcome>, what: &str) {
    let failures: Vec<String> = outcomes.into_iter().filter_map(Result::err).collect();
    for f in &failures {
        eprintln!("FAILED {f}");
    }
    assert!(failures.is_empty(), "{what} failed: {failures:#?}");
}
