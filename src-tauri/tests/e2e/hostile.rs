//! Hostile journals in the real window. A journal is remote-written: every string the window
//! shows (content, keys, refs, actor names, event types, models, AG-UI state keys and values,
//! AgentsKit ids and messages) tries to run `window.__pwned = 1` through HTML, `<script>`,
//! `javascript:` URLs and SVG handlers. The window must show them as text, create no element
//! from them, stay responsive after a megabyte-long string, and export requests with their
//! secrets redacted unless exact bytes are asked for, byte for byte as the CLI does.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fantoccini::Client;
use serde_json::{json, Value};

use crate::common::*;

fn fixture(name: &str) -> PathBuf {
    workspace().join("tests/e2e").join(name)
}

/// What a payload would leave behind had it run or been parsed as markup.
const INERT_SCRIPT: &str = "\
    const bad = [...document.querySelectorAll('[onerror], [onload], [data-pwn], iframe, \
      #app script, #app style, a[href^=\"javascript:\"], img[src=\"x\"]')]; \
    return { pwned: window.__pwned === undefined ? null : String(window.__pwned), \
      bad: bad.map(e => e.outerHTML.slice(0, 80)) };";

/// Nothing ran and nothing from the journal became an element.
async fn inert(c: &Client, when: &str) -> Outcome {
    let state = js(c, INERT_SCRIPT).await?;
    check(
        state["pwned"].is_null(),
        &format!(
            "{when}: a payload ran (window.__pwned = {})",
            state["pwned"]
        ),
    )?;
    check(
        state["bad"].as_array().is_some_and(Vec::is_empty),
        &format!("{when}: journal markup became elements: {}", state["bad"]),
    )
}

/// Each text is on screen, literally.
async fn shows(c: &Client, scope: &str, texts: &[&str], when: &str) -> Outcome {
    let script = format!(
        "const e = document.querySelector({scope}); return e ? e.innerText : '';",
        scope = json!(scope)
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let shown = js(c, &script).await?;
        let shown = shown.as_str().unwrap_or_default();
        let missing: Vec<&&str> = texts.iter().filter(|t| !shown.contains(**t)).collect();
        if missing.is_empty() {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!(
                "{when}: {missing:?} is not shown as text in {scope} ({} chars shown)",
                shown.len()
            ));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// iterate: content, keys, refs, actor names, event types, the model and the path.
async fn iterate(c: &Client) -> Outcome {
    inert(c, "after opening").await?;
    goto(c, 4).await?;
    card(c, "[data-testid=projection]", 4).await?;
    shows(
        c,
        "[data-testid=projection]",
        &[
            "<svg onload=\"window.__pwned=1\">",
            "javascript:window.__pwned=1",
            "<script>window.__pwned=1</script>",
            "<iframe srcdoc=",
            "{@html '<img src=x onerror=window.__pwned=1>'}",
        ],
        "the projection at @4",
    )
    .await?;
    inert(c, "the projection at @4").await?;
    for offset in [5, 6, 7, 8] {
        goto(c, offset).await?;
        shows(
            c,
            "[data-testid=detail-json]",
            &["window.__pwned=1"],
            &format!("the detail of @{offset}"),
        )
        .await?;
        inert(c, &format!("@{offset}")).await?;
    }
    goto(c, 5).await?;
    wait_for(c, "[data-testid=request-view]").await?;
    shows(
        c,
        "[data-testid=request-view]",
        &[
            "<img src=x onerror=\"window.__pwned=1\">",
            "javascript:window.__pwned=1",
        ],
        "the request at @5",
    )
    .await?;
    inert(c, "the request at @5").await?;
    shows(
        c,
        "[data-testid=event-list]",
        &["<script>window.__pwned=1</script>"],
        "the hostile event type in the list",
    )
    .await?;
    // Clicking rendered text must not follow anything: no anchor was made from it.
    wait_for(c, "[data-testid=request-message]")
        .await?
        .click()
        .await
        .map_err(err("click a message"))?;
    inert(c, "after clicking a message").await
}

/// AG-UI: hostile state keys and values, a patch that adds a hostile key, message content,
/// tool names and ids.
async fn agui(c: &Client) -> Outcome {
    inert(c, "after opening").await?;
    goto(c, 3).await?;
    wait_for(c, "[data-testid=agui-view]").await?;
    shows(
        c,
        "[data-testid=agui-view]",
        &[
            "javascript:window.__pwned=1",
            "<iframe srcdoc=",
            "<svg onload=\"window.__pwned=1\">",
        ],
        "the state after the hostile patch",
    )
    .await?;
    inert(c, "the AG-UI state at 3").await?;
    for offset in [6, 9, 10] {
        goto(c, offset).await?;
        wait_for(c, "[data-testid=agui-view]").await?;
        shows(
            c,
            "[data-testid=agui-view]",
            &["window.__pwned=1"],
            &format!("AG-UI step {offset}"),
        )
        .await?;
        inert(c, &format!("AG-UI step {offset}")).await?;
    }
    Ok(())
}

/// AgentsKit: hostile session id, event ids and message content.
async fn agentskit(c: &Client) -> Outcome {
    inert(c, "after opening").await?;
    goto(c, 2).await?;
    wait_for(c, "[data-testid=agentskit-view]").await?;
    shows(
        c,
        "[data-testid=agentskit-view]",
        &[
            "<script>window.__pwned=1</script>",
            "javascript:window.__pwned=1",
        ],
        "the AgentsKit snapshot",
    )
    .await?;
    inert(c, "the AgentsKit snapshot").await
}

/// A journal with megabyte-long content, a long key and a long actor name, written next to
/// the hostile fixture.
fn huge_journal(dir: &Path) -> PathBuf {
    let mut text =
        std::fs::read_to_string(fixture("hostile-iterate.jsonl")).expect("the hostile fixture");
    let chunk = "<img src=x onerror=\"window.__pwned=1\"> <b>bold?</b> ";
    let content = format!(
        "HUGE-START {} HUGE-END",
        chunk.repeat((1 << 20) / chunk.len())
    );
    let key = format!("long-key-{}", "k".repeat(64 * 1024));
    let actor = format!(
        "<script>window.__pwned=1</script>{}",
        "a".repeat(100 * 1024)
    );
    for line in [
        json!({"offset": 9, "type": "events.iterate.com/agent/context-added",
            "payload": {"role": "user", "key": key, "actor": {"type": "user", "userId": actor},
                "content": content},
            "createdAt": "2026-11-20T09:00:09.000Z"}),
        json!({"offset": 10, "type": "events.iterate.com/agent/llm-request-requested",
            "payload": {"model": "gpt-5.1"}, "createdAt": "2026-11-20T09:00:10.000Z"}),
    ] {
        text.push_str(&line.to_string());
        text.push('\n');
    }
    let path = dir.join("hostile-huge.jsonl");
    std::fs::write(&path, text).expect("write the huge journal");
    path
}

/// After a megabyte of markup is on screen, the window still answers a key within seconds.
async fn huge(c: &Client) -> Outcome {
    goto(c, 10).await?;
    wait_for(c, "[data-testid=request-view]").await?;
    shows(
        c,
        "[data-testid=request-view]",
        &["HUGE-START", "HUGE-END"],
        "the megabyte message in the request",
    )
    .await?;
    inert(c, "the request with the megabyte message").await?;
    js(
        c,
        "document.activeElement && document.activeElement.blur(); return true;",
    )
    .await?;
    keys(c, "k").await?;
    let took = wait_until_within(
        c,
        "the previous event after the huge render",
        "const d = document.querySelector('[data-testid=detail]'); return !!d && d.dataset.offset === '9';",
        Duration::from_secs(10),
    )
    .await?;
    eprintln!("hostile: a keystroke after the 1 MB render answered in {took:?}");
    shows(
        c,
        "[data-testid=detail-json]",
        &["HUGE-START", "HUGE-END"],
        "the megabyte event's detail",
    )
    .await?;
    inert(c, "the megabyte event's detail").await?;
    keys(c, "j").await?;
    wait_until_within(
        c,
        "the next event after the huge detail",
        "const d = document.querySelector('[data-testid=detail]'); return !!d && d.dataset.offset === '10';",
        Duration::from_secs(10),
    )
    .await
    .map(drop)
}

/// A diagnostic on every event: 5,000 events of a type this reader does not know, spelt as
/// markup.
fn flood_journal(dir: &Path) -> PathBuf {
    let mut text = json!({"offset": 0, "type": "events.iterate.com/agent/context-added",
        "payload": {"role": "system", "key": "agent/system-prompt", "content": "p"}})
    .to_string();
    text.push('\n');
    for offset in 1..=5000 {
        text.push_str(
            &json!({"offset": offset,
                "type": "events.iterate.com/github/<b onclick=\"window.__pwned=1\">webhook</b>"})
            .to_string(),
        );
        text.push('\n');
    }
    let path = dir.join("hostile-flood.jsonl");
    std::fs::write(&path, text).expect("write the flood journal");
    path
}

/// At the last event the projection counts every diagnostic and lists only the latest: the
/// view of each step carried them all before (25 MB at 100,000).
async fn flood(c: &Client) -> Outcome {
    let started = Instant::now();
    keys(c, "G").await?;
    wait_until_within(
        c,
        "the last event",
        "const d = document.querySelector('[data-testid=detail]'); return !!d && d.dataset.offset === '5000';",
        Duration::from_secs(20),
    )
    .await?;
    let scope = "[data-testid=projection-diagnostics]";
    shows(
        c,
        scope,
        &["5,000 diagnostics through @5,000"],
        "the count of every diagnostic",
    )
    .await?;
    eprintln!(
        "hostile: the last of 5,000 events with a diagnostic each shown in {:?}",
        started.elapsed()
    );
    js(
        c,
        &format!("document.querySelector('{scope}').open = true; return true;"),
    )
    .await?;
    shows(
        c,
        scope,
        &["The latest 100 shown", "<b onclick"],
        "the latest diagnostics, opened",
    )
    .await?;
    let listed = js(
        c,
        &format!("return document.querySelectorAll('{scope} .diag').length;"),
    )
    .await?;
    if listed != json!(100) {
        return Err(format!(
            "the projection lists {listed} diagnostics; it should list the latest 100"
        ));
    }
    inert(c, "the flood of diagnostics").await
}

/// Clicks one export button and waits for its file; answers the bytes.
async fn export_with(c: &Client, button: &str, exported: &Path) -> Result<Vec<u8>, String> {
    let _ = std::fs::remove_file(exported);
    open_export_menu(c).await?;
    wait_for(c, &format!("[data-testid={button}]"))
        .await?
        .click()
        .await
        .map_err(err("click export"))?;
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if let Ok(bytes) = std::fs::read(exported) {
            if !bytes.is_empty() {
                return Ok(bytes);
            }
        }
        if Instant::now() > deadline {
            let state = js(c, STATE_SCRIPT).await.unwrap_or(Value::Null);
            return Err(format!("{button} wrote nothing; window: {state}"));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn cli_export(journal: &Path, cache: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let journal = journal.to_string_lossy();
    let mut all = vec!["request", journal.as_ref()];
    all.extend_from_slice(args);
    cli_written(cache, &all, &cache.join("cli-export.out"))
}

const SECRETS: &[&str] = &["sk-proj-HOSTILEsecretKEY0123456789", "hostile-cookie-42"];

fn has(bytes: &[u8], text: &str) -> bool {
    bytes.windows(text.len()).any(|w| w == text.as_bytes())
}

/// The app's exports: redacted by default, with the user's paths, exact on request, and as
/// `curl` for both transports; each equal to the CLI's bytes for the same options.
async fn export(c: &Client, journal: &Path, exported: &Path, cache: &Path) -> Outcome {
    goto(c, 5).await?;
    wait_for(c, "[data-testid=request-view]").await?;
    let same = |ours: &[u8], theirs: &[u8], what: &str| {
        check(
            ours == theirs,
            &format!(
                "{what}: the app's export equals the CLI's ({} vs {} bytes)",
                ours.len(),
                theirs.len()
            ),
        )
    };

    let ours = export_with(c, "export-request", exported).await?;
    for secret in SECRETS {
        check(
            !has(&ours, secret),
            &format!("the default export hides {secret}"),
        )?;
    }
    check(
        has(&ours, "[REDACTED:"),
        "the default export marks what it hid",
    )?;
    same(
        &ours,
        &cli_export(journal, cache, &["--at", "5"])?,
        "redacted body",
    )?;

    open_export_menu(c).await?;
    wait_for(c, "[data-testid=export-redact-paths]")
        .await?
        .send_keys("/model")
        .await
        .map_err(err("type a path"))?;
    let ours = export_with(c, "export-request", exported).await?;
    let body: Value = serde_json::from_slice(&ours).map_err(|e| format!("JSON: {e}"))?;
    check(
        body["model"]
            .as_str()
            .is_some_and(|m| m.starts_with("[REDACTED:")),
        &format!("the user's path is redacted: {}", body["model"]),
    )?;
    same(
        &ours,
        &cli_export(journal, cache, &["--at", "5", "--redact-path", "/model"])?,
        "body with a redacted path",
    )?;

    let ours = export_with(c, "export-curl", exported).await?;
    let text = String::from_utf8_lossy(&ours);
    check(
        text.contains("$")
            && text.contains("OPENAI_API_KEY")
            && !SECRETS.iter().any(|s| text.contains(s)),
        &format!(
            "the curl command reads the key from the environment and hides secrets: {text:.300}"
        ),
    )?;
    same(
        &ours,
        &cli_export(
            journal,
            cache,
            &["--at", "5", "--redact-path", "/model", "--format", "curl"],
        )?,
        "curl command",
    )?;

    open_export_menu(c).await?;
    wait_for(c, "[data-testid=export-exact]")
        .await?
        .click()
        .await
        .map_err(err("tick exact"))?;
    let ours = export_with(c, "export-request", exported).await?;
    check(
        SECRETS.iter().all(|s| has(&ours, s)),
        "exact bytes keep what the journal sent",
    )?;
    same(
        &ours,
        &cli_export(journal, cache, &["--at", "5", "--exact"])?,
        "exact body",
    )?;
    screenshot(c, "h5-export-options").await?;

    // Untick exact, leave the field, switch transport: workers-ai's URL carries the
    // journal's (hostile) model, quoted.
    open_export_menu(c).await?;
    wait_for(c, "[data-testid=export-exact]")
        .await?
        .click()
        .await
        .map_err(err("untick exact"))?;
    js(
        c,
        "document.activeElement && document.activeElement.blur(); return true;",
    )
    .await?;
    keys(c, "t").await?;
    wait_until(
        c,
        "the workers-ai snapshot",
        "return document.querySelector('[data-testid=transport]').value === 'workers-ai';",
    )
    .await?;
    let ours = export_with(c, "export-curl", exported).await?;
    same(
        &ours,
        &cli_export(
            journal,
            cache,
            &[
                "--at",
                "5",
                "--transport",
                "workers-ai",
                "--redact-path",
                "/model",
                "--format",
                "curl",
            ],
        )?,
        "workers-ai curl command",
    )?;
    inert(c, "after exporting").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display, WebKitWebDriver and tauri-driver: run `make e2e`"]
async fn hostile_journals_stay_text() {
    let dir = tempfile::tempdir().expect("temp dir");
    let exported = dir.path().join("exported");
    let harness = Harness::start(&[("JOURNALSCOPE_EXPORT_PATH", &exported)]);
    let port = harness.port;
    let arg = |p: &Path| vec![p.to_string_lossy().into_owned()];
    let iterate_path = fixture("hostile-iterate.jsonl");
    let huge_path = huge_journal(dir.path());
    let mut out = Vec::new();
    out.push(
        scenario(
            port,
            "h1-iterate-hostile",
            &arg(&iterate_path),
            |c| async move {
                let r = iterate(&c).await;
                (c, r)
            },
        )
        .await,
    );
    out.push(
        scenario(
            port,
            "h2-agui-hostile",
            &arg(&fixture("hostile-agui.sse")),
            |c| async move {
                let r = agui(&c).await;
                (c, r)
            },
        )
        .await,
    );
    out.push(
        scenario(
            port,
            "h3-agentskit-hostile",
            &arg(&fixture("hostile-agentskit.ndjson")),
            |c| async move {
                let r = agentskit(&c).await;
                (c, r)
            },
        )
        .await,
    );
    out.push(
        scenario(
            port,
            "h4-megabyte-strings",
            &arg(&huge_path),
            |c| async move {
                let r = huge(&c).await;
                (c, r)
            },
        )
        .await,
    );
    out.push(
        scenario(
            port,
            "h6-a-diagnostic-on-every-event",
            &arg(&flood_journal(dir.path())),
            |c| async move {
                let r = flood(&c).await;
                (c, r)
            },
        )
        .await,
    );
    let (journal, cache) = (iterate_path.clone(), harness.cache.clone());
    out.push(
        scenario(
            port,
            "h5-export-redaction",
            &arg(&iterate_path),
            |c| async move {
                let r = export(&c, &journal, &exported, &cache).await;
                (c, r)
            },
        )
        .await,
    );
    assert_all(out, "hostile journal scenarios");
}
