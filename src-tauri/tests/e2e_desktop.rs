//! End-to-end tests of the real window: tauri-driver in front of WebKitWebDriver (under Xvfb,
//! started by scripts/e2e.sh), driven with fantoccini. Ignored by a plain `cargo test`; run
//! with `make e2e`. Every scenario starts its own app, saves a screenshot under
//! target/e2e-screenshots/, and all scenarios run even when one fails.

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

/// Cargo builds the app for its integration tests, with this test's features
/// (with the default `custom-protocol` feature, so it serves the built UI, not a dev server).
fn app_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_journalscope-app"))
}

fn cli_binary() -> PathBuf {
    target_dir().join("debug").join("journalscope")
}

/// tauri-driver, stopped with SIGTERM (SIGKILL would leave WebKitWebDriver holding our pipes).
struct Driver {
    child: Child,
}

impl Driver {
    fn start(port: u16, env: &[(&str, &Path)]) -> Driver {
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
        Driver { child }
    }
}

impl Drop for Driver {
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

/// Polls a script until it returns true.
async fn wait_until(c: &Client, what: &str, script: &str) -> Outcome {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let v = c.execute(script, vec![]).await.map_err(err("execute"))?;
        if v == Value::Bool(true) {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("timed out waiting for {what}"));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
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

async fn ctrl(c: &Client, ch: char) -> Outcome {
    let control = '\u{e009}';
    let seq = KeyActions::new("keyboard".into())
        .then(KeyAction::Down { value: control })
        .then(KeyAction::Down { value: ch })
        .then(KeyAction::Up { value: ch })
        .then(KeyAction::Up { value: control });
    c.perform_actions(seq).await.map_err(err("ctrl chord"))
}

async fn selected_offset(c: &Client) -> Result<Option<i64>, String> {
    let d = wait_for(c, "[data-testid=detail]").await?;
    Ok(d.attr("data-offset")
        .await
        .map_err(err("detail offset"))?
        .and_then(|s| s.parse().ok()))
}

async fn wait_selected(c: &Client, offset: i64) -> Outcome {
    let script = format!(
        "const d = document.querySelector('[data-testid=detail]'); return !!d && d.dataset.offset === '{offset}';"
    );
    if let Err(e) = wait_until(c, &format!("selection @{offset}"), &script).await {
        let now = selected_offset(c).await.ok().flatten();
        return Err(format!("{e} (selected is {now:?})"));
    }
    Ok(())
}

async fn goto(c: &Client, offset: i64) -> Outcome {
    ctrl(c, 'g').await?;
    let input = wait_for(c, "[data-testid=goto-input]").await?;
    let enter = fantoccini::key::Key::Enter;
    input
        .send_keys(&format!("{offset}{}", char::from(enter)))
        .await
        .map_err(err("type offset"))?;
    wait_selected(c, offset).await
}

async fn card(c: &Client, scope: &str, offset: i64) -> Result<Element, String> {
    wait_for(
        c,
        &format!("{scope} [data-testid=item-card][data-offset='{offset}']"),
    )
    .await
}

async fn attr(e: &Element, name: &str) -> Result<String, String> {
    Ok(e.attr(name).await.map_err(err("attr"))?.unwrap_or_default())
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
    // A window that cannot start leaves WebKitWebDriver waiting forever: bound the session.
    let c = tokio::time::timeout(Duration::from_secs(60), connect(port, args))
        .await
        .map_err(|_| format!("{name}: no session within 60 s (did the app start?)"))??;
    // The window opens its journal by itself; keys pressed during the import are ignored.
    let loaded = wait_until(
        &c,
        "the journal to open",
        "const d = document.querySelector('[data-testid=detail]'); return !!d && d.dataset.seq !== '' && !document.querySelector('[data-testid=import-progress]');",
    )
    .await;
    let (c, outcome) = match loaded {
        Ok(()) => {
            let c2 = c.clone();
            match tokio::time::timeout(Duration::from_secs(120), body(c)).await {
                Ok(done) => done,
                Err(_) => (c2, Err("scenario took over 120 s".to_string())),
            }
        }
        Err(e) => (c, Err(e)),
    };
    let shot = screenshot(&c, name).await;
    let _ = c.close().await;
    outcome.and(shot).map_err(|e| format!("{name}: {e}"))
}

// Scenarios. Offsets refer to the bundled iterate demo (demo/iterate-demo.jsonl) and to
// tests/e2e/hostile.jsonl.

async fn text_of(c: &Client, css: &str) -> Result<String, String> {
    wait_for(c, css).await?.text().await.map_err(err("text"))
}

async fn js(c: &Client, script: &str) -> Result<Value, String> {
    c.execute(script, vec![]).await.map_err(err("execute"))
}

/// Stepping with the keyboard moves the selection and the projection follows it.
async fn stepping(c: &Client) -> Outcome {
    wait_for(c, "[data-testid=projection], [data-testid=request-view]").await?;
    keys(c, "g").await?;
    wait_selected(c, 1).await?;
    keys(c, "jjjjjjj").await?;
    wait_selected(c, 8).await?;
    let req = wait_for(c, "[data-testid=request-view]").await?;
    check(
        attr(&req, "data-offset").await? == "8",
        "stepping onto @8 shows its request snapshot",
    )?;
    keys(c, "K").await?;
    wait_selected(c, 21).await?;
    keys(c, "J").await?;
    wait_selected(c, 8).await?;
    keys(c, "G").await?;
    wait_selected(c, 33).await?;
    keys(c, "g").await?;
    wait_selected(c, 1).await?;
    keys(c, "?").await?;
    wait_for(c, "[data-testid=key-help]").await?;
    screenshot(c, "01a-key-help").await?;
    keys(c, "?").await?;
    // The welcome screen lists the demos and the recent files.
    wait_for(c, "[data-testid=home]")
        .await?
        .click()
        .await
        .map_err(err("home"))?;
    wait_for(c, "[data-testid=demo-agents-kit]").await?;
    Ok(())
}

/// Items before the first request are unpublished; after it they are published.
async fn published_marks(c: &Client) -> Outcome {
    goto(c, 7).await?;
    let item = card(c, "[data-testid=projection]", 7).await?;
    check(
        attr(&item, "data-published").await? == "false",
        "@7 is unpublished before the first request",
    )?;
    let coalesced = js(
        c,
        "const b = document.querySelector(\"[data-testid=item-card][data-offset='7'] [data-testid=coalesced]\"); return b ? b.textContent : '';",
    )
    .await?;
    check(
        coalesced.as_str().unwrap_or("").contains("coalesced ×1"),
        &format!("@7 replaced @6 in place: {coalesced}"),
    )?;
    goto(c, 13).await?;
    let sys = card(c, "[data-testid=projection]", 4).await?;
    check(
        attr(&sys, "data-published").await? == "true",
        "the system prompt @4 is published by request @8",
    )?;
    let header = text_of(
        c,
        "[data-testid=projection] [data-testid=item-card][data-offset='4'] [data-testid=item-header]",
    )
    .await?;
    check(
        header.starts_with("@4"),
        &format!("the card starts with the exact header line: {header}"),
    )?;
    // The text filter narrows the list to matching events, queried from SQLite.
    wait_for(c, "[data-testid=text-filter]")
        .await?
        .send_keys("Deploy freeze")
        .await
        .map_err(err("type filter"))?;
    wait_until(
        c,
        "the filtered list",
        "const rows = document.querySelectorAll('[data-testid=event-row]'); return rows.length === 1 && rows[0].dataset.offset === '32';",
    )
    .await
}

/// The compaction at @25 shows before and after with dropped items struck through.
async fn compaction(c: &Client) -> Outcome {
    goto(c, 25).await?;
    wait_for(c, "[data-testid=compaction-view]").await?;
    let dropped = text_of(c, "[data-testid=dropped]").await?;
    let kept = text_of(c, "[data-testid=kept]").await?;
    check(
        dropped.contains('@'),
        &format!("the compaction drops items: {dropped}"),
    )?;
    check(!kept.is_empty(), "the kept list is shown")?;
    let struck = js(
        c,
        "return document.querySelectorAll('[data-testid=compaction-before] .card.struck').length;",
    )
    .await?;
    check(
        struck.as_u64().unwrap_or(0) > 0,
        "dropped items are struck through in the before column",
    )?;
    let after_has_dropped = js(
        c,
        "const d = [...document.querySelectorAll('[data-testid=compaction-before] .card.struck')].map(e => e.dataset.offset); \
         return d.some(o => document.querySelector(`[data-testid=compaction-after] [data-testid=item-card][data-offset='${o}']`));",
    )
    .await?;
    check(
        after_has_dropped == Value::Bool(false),
        "no dropped item survives into the after column",
    )?;
    Ok(())
}

/// The transport switch recolours items by provider role, and a request lists its
/// downgrades with the rule that made each.
async fn transport(c: &Client) -> Outcome {
    goto(c, 13).await?;
    let openai = js(c, "return document.querySelector(\"[data-testid=projection] [data-testid=item-card][data-offset='5']\").dataset.providerRole;").await?;
    check(
        openai == json!("developer"),
        &format!("@5 is a developer message on openai ({openai})"),
    )?;
    keys(c, "t").await?;
    wait_until(
        c,
        "the transport switch",
        "return document.querySelector('[data-testid=transport]').value === 'workers-ai';",
    )
    .await?;
    wait_until(
        c,
        "@5 recoloured as system on workers-ai",
        "return document.querySelector(\"[data-testid=projection] [data-testid=item-card][data-offset='5']\").dataset.providerRole === 'system';",
    )
    .await?;
    goto(c, 21).await?;
    wait_for(c, "[data-testid=request-view]").await?;
    wait_until(
        c,
        "request @21 lists the github downgrade with its rule",
        "return [...document.querySelectorAll('[data-testid=downgrade]')].some(d => d.dataset.rule === 'external-actor-downgrade' && d.textContent.includes('external-actor-downgrade'));",
    )
    .await?;
    Ok(())
}

/// "Export…" writes exactly the bytes of the CLI's `request -o`.
async fn export(c: &Client, exported: &Path, cache: &Path) -> Outcome {
    let _ = std::fs::remove_file(exported);
    goto(c, 21).await?;
    keys(c, "t").await?;
    wait_until(
        c,
        "the workers-ai snapshot",
        "return document.querySelector('[data-testid=transport]').value === 'workers-ai';",
    )
    .await?;
    wait_for(c, "[data-testid=export-request]")
        .await?
        .click()
        .await
        .map_err(err("click export"))?;
    wait_until(
        c,
        "the export notice",
        "const n = document.querySelector('[data-testid=notice]'); return !!n && n.textContent.startsWith('exported');",
    )
    .await?;
    let ours = std::fs::read(exported).map_err(|e| format!("exported file: {e}"))?;
    let cli_out = exported.with_extension("cli.json");
    let status = Command::new(cli_binary())
        .args([
            "request",
            "demo",
            "--at",
            "21",
            "--transport",
            "workers-ai",
            "-o",
        ])
        .arg(&cli_out)
        .env("JOURNALSCOPE_CACHE_DIR", cache)
        .status()
        .map_err(|e| format!("run the CLI: {e}"))?;
    check(status.success(), "the CLI exports the same request")?;
    let theirs = std::fs::read(&cli_out).map_err(|e| format!("CLI output: {e}"))?;
    check(
        ours == theirs,
        &format!(
            "exported bytes equal the CLI's ({} vs {} bytes)",
            ours.len(),
            theirs.len()
        ),
    )
}

/// Markup in a journal is shown as text and never runs.
async fn hostile(c: &Client) -> Outcome {
    wait_for(c, "[data-testid=detail]").await?;
    goto(c, 3).await?;
    let content = text_of(
        c,
        "[data-testid=projection] [data-testid=item-card][data-offset='3'] .content",
    )
    .await?;
    check(
        content.contains("<img src=x onerror=alert(1)>")
            && content.contains("<script>alert(2)</script>"),
        &format!("markup is literal text: {content}"),
    )?;
    let injected = js(
        c,
        "return document.querySelectorAll('#app img, #app script, #app b').length;",
    )
    .await?;
    check(
        injected.as_u64() == Some(0),
        &format!("no element was created from journal content ({injected})"),
    )?;
    let json = text_of(c, "[data-testid=detail-json]").await?;
    check(
        json.contains("onerror=alert(1)"),
        "the detail pane shows the raw markup as text",
    )?;
    Ok(())
}

async fn open_demo(c: &Client, demo: &str) -> Outcome {
    wait_for(c, "[data-testid=home]")
        .await?
        .click()
        .await
        .map_err(err("home"))?;
    wait_for(c, &format!("[data-testid=demo-{demo}]"))
        .await?
        .click()
        .await
        .map_err(err("demo button"))?;
    wait_until(
        c,
        "the demo to open",
        &format!("const f = document.querySelector('[data-testid=file-name]'); return !!f && f.textContent.includes('{demo_file}') && !document.querySelector('[data-testid=import-progress]');",
            demo_file = if demo == "ag-ui" { "agui-demo" } else { "agentskit-demo" }),
    )
    .await
}

/// AG-UI: a STATE_DELTA step shows the state tree with its changed paths highlighted and
/// the patch beside it; a failing patch is shown in red with its reason; a MESSAGES_SNAPSHOT
/// marks what it did to each message.
async fn agui(c: &Client) -> Outcome {
    open_demo(c, "ag-ui").await?;
    goto(c, 22).await?;
    wait_for(c, "[data-testid=agui-view]").await?;
    wait_until(
        c,
        "a highlighted changed path",
        "return document.querySelectorAll('[data-testid=agui-view] .node.changed').length > 0;",
    )
    .await?;
    let patch = text_of(c, "[data-testid=agui-view] .patch").await?;
    check(
        patch.contains("\"op\""),
        &format!("the step's patch is shown: {patch}"),
    )?;
    screenshot(c, "07a-agui-state-delta").await?;
    // @23 is the demo's failing patch: state unchanged, reason shown.
    goto(c, 23).await?;
    let failure = text_of(c, "[data-testid=patch-failure]").await?;
    check(
        failure.contains("patch failed"),
        &format!("a failing patch says why: {failure}"),
    )?;
    screenshot(c, "07b-agui-failed-patch").await?;
    // @33 is the MESSAGES_SNAPSHOT that reorders, drops and preserves.
    goto(c, 33).await?;
    wait_until(
        c,
        "reconciliation marks",
        "const f = [...document.querySelectorAll('[data-testid=agui-view] .fate')].map(e => e.textContent.trim()); return ['replaced', 'appended', 'dropped', 'kept-client-only'].every(k => f.includes(k));",
    )
    .await
}

/// AgentsKit: every line carries its verdict, the lineage tree highlights the turn of the held
/// snapshot, and clicking another turn jumps to its first snapshot.
async fn agentskit(c: &Client) -> Outcome {
    open_demo(c, "agents-kit").await?;
    keys(c, "G").await?;
    wait_for(c, "[data-testid=agentskit-view]").await?;
    wait_until(
        c,
        "verdicts and the selected turn",
        "return document.querySelectorAll('[data-testid=kit-line]').length > 0 && !!document.querySelector('[data-testid=lineage-turn].selected');",
    )
    .await?;
    let verdicts = js(
        c,
        "return [...document.querySelectorAll('[data-testid=kit-line]')].map(e => e.textContent).join(' ');",
    )
    .await?;
    let verdicts = verdicts.as_str().unwrap_or_default().to_string();
    for verdict in [
        "accepted",
        "duplicate",
        "stale",
        "foreign-session",
        "malformed",
        "not-a-snapshot",
    ] {
        check(
            verdicts.contains(verdict),
            &format!("the {verdict} verdict is shown: {verdicts}"),
        )?;
    }
    let first_turn = wait_for(c, "[data-testid=lineage-turn]").await?;
    first_turn.click().await.map_err(err("lineage turn"))?;
    wait_until(
        c,
        "the first turn's snapshot to be selected",
        "const s = document.querySelector('[data-testid=lineage-turn].selected'); return !!s && s === document.querySelector('[data-testid=lineage-turn]');",
    )
    .await
}

async fn run_scenarios(port: u16, exported: &Path, cache: &Path) -> Vec<Outcome> {
    let hostile_path = workspace().join("tests/e2e/hostile.jsonl");
    let mut out = Vec::new();
    out.push(
        scenario(port, "01-stepping", &[], |c| async move {
            let r = stepping(&c).await;
            (c, r)
        })
        .await,
    );
    out.push(
        scenario(port, "02-published-marks", &[], |c| async move {
            let r = published_marks(&c).await;
            (c, r)
        })
        .await,
    );
    out.push(
        scenario(port, "03-compaction", &[], |c| async move {
            let r = compaction(&c).await;
            (c, r)
        })
        .await,
    );
    out.push(
        scenario(port, "04-transport-downgrade", &[], |c| async move {
            let r = transport(&c).await;
            (c, r)
        })
        .await,
    );
    let (exported, cache) = (exported.to_path_buf(), cache.to_path_buf());
    out.push(
        scenario(port, "05-export-request", &[], |c| async move {
            let r = export(&c, &exported, &cache).await;
            (c, r)
        })
        .await,
    );
    out.push(
        scenario(
            port,
            "06-hostile-content",
            &[hostile_path.to_string_lossy().into_owned()],
            |c| async move {
                let r = hostile(&c).await;
                (c, r)
            },
        )
        .await,
    );
    out.push(
        scenario(port, "07-agui", &[], |c| async move {
            let r = agui(&c).await;
            (c, r)
        })
        .await,
    );
    out.push(
        scenario(port, "08-agentskit", &[], |c| async move {
            let r = agentskit(&c).await;
            (c, r)
        })
        .await,
    );
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display, WebKitWebDriver and tauri-driver: run `make e2e`"]
async fn desktop_end_to_end() {
    assert!(
        app_binary().exists(),
        "build the app first: {}",
        app_binary().display()
    );
    let home = tempfile::tempdir().expect("temp home");
    let cache = home.path().join("cache");
    let config = home.path().join("config");
    let export = home.path().join("exported-request.json");
    // Not tauri-driver's default 4444: other worktrees on this machine may run their own.
    let port = std::env::var("E2E_PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(47444);
    let _driver = Driver::start(
        port,
        &[
            ("JOURNALSCOPE_CACHE_DIR", &cache),
            ("XDG_CONFIG_HOME", &config),
            ("JOURNALSCOPE_EXPORT_PATH", &export),
        ],
    );
    let mut failures = Vec::new();
    for outcome in run_scenarios(port, &export, &cache).await {
        if let Err(e) = outcome {
            eprintln!("FAILED {e}");
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "end-to-end scenarios failed: {failures:#?}"
    );
}
