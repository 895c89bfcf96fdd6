//! End-to-end tests of what the window does around a journal rather than inside it: opening a
//! file by dropping it onto the window, the recent-files list that open leaves behind (across
//! a restart), copying a request body to the system clipboard, and scrubbing the timeline; and
//! which panes a journal of iterate's agent loop is shown in (its list and loop state, and a
//! request as the Responses-API input items it sent). Ignored by a plain `cargo test`;
//! scripts/e2e.sh runs them. Each scenario leaves a screenshot under
//! target/e2e-screenshots/app-*.png.
//!
//! What the drop scenario covers and what it cannot: WebDriver cannot synthesise an OS file
//! drag, so the app (started with `JOURNALSCOPE_TEST_HOOKS=1`) emits the same
//! `tauri://drag-enter` / `tauri://drag-drop` / `tauri://drag-leave` events, payload and
//! webview target that Tauri's runtime emits for a real drag (see src-tauri/src/test_hooks.rs).
//! Covered: the UI's drag-drop listener, the hover outline, the open of the dropped path, the
//! recent list. Not covered: GTK/WebKit turning a real pointer drag into that event.

use std::path::{Path, PathBuf};

use fantoccini::actions::{InputSource, MouseActions, PointerAction, MOUSE_BUTTON_LEFT};
use fantoccini::Client;
use serde_json::{json, Value};

use crate::common::*;

/// Asks the backend to emit what a real drag of `path` emits at `stage` (enter, drop, leave).
async fn drag(c: &Client, path: &Path, stage: &str) -> Outcome {
    let answer = c
        .execute_async(
            "const done = arguments[arguments.length - 1]; \
             window.__TAURI_INTERNALS__.invoke('simulate_drag', arguments[0]) \
               .then(() => done('ok'), (e) => done(JSON.stringify(e)));",
            vec![json!({"paths": [path.to_string_lossy()], "stage": stage})],
        )
        .await
        .map_err(err("simulate_drag"))?;
    check(
        answer == json!("ok"),
        &format!("the drag hook answered {answer}"),
    )
}

async fn wait_opened(c: &Client, file_name: &str) -> Outcome {
    wait_until(
        c,
        &format!("{file_name} to open"),
        &format!(
            "const f = document.querySelector('[data-testid=file-name]'); const d = document.querySelector('[data-testid=detail]'); \
             return !!f && f.textContent === '{file_name}' && !!d && d.dataset.seq === '0' && !document.querySelector('[data-testid=import-progress]');"
        ),
    )
    .await
    .map(drop)
}

const HOVER: &str = "return !!document.querySelector('.shell.drop');";
const NO_HOVER: &str = "return !document.querySelector('.shell.drop');";

/// Dragging a file over the window outlines it; leaving does nothing; dropping opens the file
/// and puts it first in the recent list, on screen and on disk.
async fn drop_open(c: &Client, dropped: &Path, config: &Path) -> Outcome {
    let name = file_name(dropped);
    drag(c, dropped, "enter").await?;
    wait_until(c, "the drop outline", HOVER).await?;
    screenshot(c, "app-01a-drag-over").await?;
    drag(c, dropped, "leave").await?;
    wait_until(c, "the outline to go", NO_HOVER).await?;
    let still = text_of(c, "[data-testid=file-name]").await?;
    check(
        still.contains("iterate-demo"),
        &format!("a drag that leaves opens nothing (showing {still})"),
    )?;

    drag(c, dropped, "enter").await?;
    drag(c, dropped, "drop").await?;
    wait_opened(c, &name).await?;
    check(
        js(c, HOVER).await? == Value::Bool(false),
        "the outline is gone after the drop",
    )?;
    let title = c.title().await.map_err(err("title"))?;
    check(
        title.starts_with(&name),
        &format!("the window title names the dropped file: {title}"),
    )?;

    let on_disk = std::fs::read_to_string(
        config
            .join("dev.journalscope.app")
            .join("recent-files.json"),
    )
    .map_err(|e| format!("the recent list on disk: {e}"))?;
    let list: Value = serde_json::from_str(&on_disk).map_err(|e| e.to_string())?;
    let canonical = canonical(dropped);
    check(
        list[0]["path"] == json!(canonical),
        &format!("the dropped file is first in recent-files.json: {list}"),
    )?;
    wait_for(c, "[data-testid=home]")
        .await?
        .click()
        .await
        .map_err(err("home"))?;
    let first = wait_for(c, "[data-testid=recent-file]").await?;
    check(
        attr(&first, "data-path").await? == canonical,
        "the welcome screen lists the dropped file first",
    )
}

/// A restarted window still lists the file, and clicking it opens it again.
async fn recent_after_restart(c: &Client, dropped: &Path) -> Outcome {
    wait_for(c, "[data-testid=home]")
        .await?
        .click()
        .await
        .map_err(err("home"))?;
    let first = wait_for(c, "[data-testid=recent-file]").await?;
    check(
        attr(&first, "data-path").await? == canonical(dropped),
        "after a restart the recent list still starts with the dropped file",
    )?;
    screenshot(c, "app-02a-recent-files").await?;
    first.click().await.map_err(err("recent file"))?;
    wait_opened(c, &file_name(dropped)).await
}

/// "Copy body" puts the request body on the system clipboard: the text read back from the X
/// clipboard (by this process, another X client) equals the bytes the CLI exports, both
/// redacted by default.
async fn clipboard(c: &Client, cache: &Path, scratch: &Path) -> Outcome {
    goto(c, 21).await?;
    wait_for(c, "[data-testid=copy-request]")
        .await?
        .click()
        .await
        .map_err(err("copy"))?;
    wait_until(
        c,
        "the copy notice",
        "const n = document.querySelector('[data-testid=notice]'); return !!n && n.textContent.startsWith('request body copied');",
    )
    .await?;
    let cli_out = scratch.join("request-21.json");
    let body = String::from_utf8(cli_written(
        cache,
        &["request", "demo", "--at", "21", "--transport", "openai"],
        &cli_out,
    )?)
    .map_err(|e| format!("the CLI's body is UTF-8: {e}"))?;
    // The app owns the selection; asking for it from a blocking thread lets it answer.
    let copied = tokio::task::spawn_blocking(|| {
        arboard::Clipboard::new()
            .and_then(|mut board| board.get_text())
            .map_err(|e| format!("read the clipboard: {e}"))
    })
    .await
    .map_err(|e| e.to_string())??;
    check(
        copied == body,
        &format!(
            "the clipboard holds exactly the request body ({} vs {} bytes)",
            copied.len(),
            body.len()
        ),
    )?;
    let shown = js(
        c,
        "return document.querySelector('[data-testid=request-view]').dataset.offset;",
    )
    .await?;
    check(
        shown == json!("21"),
        "the copied request is the one on screen",
    )
}

/// Every selection and projection the window shows while the scrubber is dragged.
const RECORD: &str = "window.__scrub = []; \
    const d = document.querySelector('[data-testid=detail]'); \
    new MutationObserver(() => window.__scrub.push(Number(d.dataset.offset))) \
      .observe(d, { attributes: true, attributeFilter: ['data-offset'] }); return true;";

/// Dragging across the timeline steps the selection forward through the journal, and the
/// centre follows it to where the pointer is released.
async fn scrub(c: &Client) -> Outcome {
    keys(c, "g").await?;
    wait_selected(c, 1).await?;
    js(c, RECORD).await?;
    let canvas = wait_for(c, "[data-testid=timeline] canvas").await?;
    let width = js(
        c,
        "return document.querySelector('[data-testid=timeline] canvas').getBoundingClientRect().width;",
    )
    .await?
    .as_f64()
    .unwrap_or(0.0);
    check(
        width > 100.0,
        &format!("the scrubber has a width ({width})"),
    )?;
    let half = width / 2.0;
    let mut drag = MouseActions::new("mouse".into())
        .then(PointerAction::MoveToElement {
            element: canvas.clone(),
            duration: None,
            x: -half + 2.0,
            y: 0.0,
        })
        .then(PointerAction::Down {
            button: MOUSE_BUTTON_LEFT,
        });
    let steps = 12;
    for i in 1..=steps {
        drag = drag
            .then(PointerAction::MoveToElement {
                element: canvas.clone(),
                duration: Some(std::time::Duration::from_millis(40)),
                x: -half + 2.0 + (width - 4.0) * f64::from(i) / f64::from(steps),
                y: 0.0,
            })
            .then(PointerAction::Pause {
                duration: std::time::Duration::from_millis(60),
            });
    }
    drag = drag.then(PointerAction::Up {
        button: MOUSE_BUTTON_LEFT,
    });
    c.perform_actions(drag)
        .await
        .map_err(err("drag the scrubber"))?;
    wait_selected(c, 33).await?;
    let seen: Vec<i64> = serde_json::from_value(js(c, "return window.__scrub;").await?)
        .map_err(|e| e.to_string())?;
    let mut distinct = seen.clone();
    distinct.dedup();
    check(
        distinct.len() >= 4,
        &format!("the drag stepped through several offsets on the way: {seen:?}"),
    )?;
    check(
        seen.windows(2).all(|w| w[0] <= w[1]),
        &format!("a left-to-right drag only moves forward: {seen:?}"),
    )?;
    // @33 is an ordinary event: the centre shows the projection folded through it.
    let at = js(
        c,
        "const p = document.querySelector('[data-testid=projection]'); return p ? p.dataset.at : null;",
    )
    .await?;
    check(
        at == json!("33"),
        &format!("the projection follows the scrubber to @33 ({at})"),
    )
}

/// A journal of iterate's sections contract: the title bar names the contract, which its
/// views are not folded by, and a journal of the seed contract names none.
async fn contract_named(c: &Client) -> Outcome {
    wait_opened(c, "contract-sections-8.jsonl").await?;
    let named = js(
        c,
        "const t = document.querySelector('[data-testid=contract]'); \
         return t ? { text: t.textContent.trim(), name: t.dataset.contract, title: t.title } : null;",
    )
    .await?;
    check(
        named["text"] == "sections 8.0.0" && named["name"] == "sections",
        &format!("the title bar names the sections contract and its version: {named}"),
    )?;
    check(
        named["title"]
            .as_str()
            .is_some_and(|t| t.contains("diagnostics")),
        &format!("its tooltip says where to read why: {named}"),
    )?;
    wait_until(
        c,
        "the projection to show the standing document and the list",
        "const a = document.querySelector('[data-testid=first-lane]'); \
         const b = document.querySelector('[data-testid=second-lane]'); \
         return !!a && !!b && a.textContent === 'Standing document' && b.textContent === 'List';",
    )
    .await?;
    screenshot(c, "app-05a-sections-contract").await?;
    // The demo, opened from the home screen as a user opens it.
    wait_for(c, "[data-testid=home]")
        .await?
        .click()
        .await
        .map_err(err("home"))?;
    wait_for(c, "[data-testid=demo-iterate]")
        .await?
        .click()
        .await
        .map_err(err("the iterate demo"))?;
    wait_until(
        c,
        "the seed journal's title bar to name no contract",
        "const f = document.querySelector('[data-testid=file-name]'); \
         return !!f && f.textContent === 'iterate-demo.jsonl' && !document.querySelector('[data-testid=contract]');",
    )
    .await
    .map(drop)
}

/// A journal whose first sign of the agent loop comes at its request: the pane says the journal
/// follows the loop and shows no seed lanes at any offset; before that sign it lists no items
/// yet, and from it the loop's own list.
async fn agent_loop_contract(c: &Client) -> Outcome {
    wait_opened(c, "contract-agent-loop.jsonl").await?;
    wait_until(
        c,
        "the projection to say the journal follows the agent loop, with no lanes, and every event listed",
        "const n = document.querySelector('[data-testid=loop-note]'); \
         return !!n && n.textContent.includes('agent loop') \
           && !document.querySelector('[data-testid=first-lane]') \
           && document.querySelectorAll('[data-testid=event-row]').length === 4;",
    )
    .await?;
    screenshot(c, "app-06a-agent-loop-contract").await?;
    keys(c, "G").await?;
    wait_selected(c, 4).await?;
    wait_until(
        c,
        "the loop's list and state at the last event, still with no lanes",
        "return document.querySelectorAll('[data-testid=projection] [data-testid=item-card]').length > 0 \
           && !!document.querySelector('[data-testid=agent-loop]') \
           && !document.querySelector('[data-testid=first-lane]');",
    )
    .await
    .map(drop)
}

/// What the window shows of each input item of the request on screen: its type, role, the
/// context item it renders, its call, whether it carries the cache breakpoint, and its text.
const INPUT_ITEMS: &str =
    "return [...document.querySelectorAll('[data-testid=input-item]')].map((i) => ({ \
    kind: i.dataset.kind, role: i.dataset.role, offset: i.dataset.offset, \
    call: i.querySelector('[data-testid=input-call]')?.textContent ?? null, \
    breakpoint: !!i.querySelector('[data-testid=cache-breakpoint]'), \
    text: i.querySelector('[data-testid=input-text]').textContent }));";

/// The release journal of the agent loop: stepping through it, the projection lists the loop's
/// items beside its runs, open request, owed answer and pause; at a request offset the request
/// pane lists the Responses-API input items it sent (the head with its cache breakpoint, the
/// words, the reasoning, the `run` call and its output), the model, and what the journal does
/// not record; an item's offset there leads back to the projection.
async fn agent_loop_request(c: &Client) -> Outcome {
    wait_opened(c, "release.jsonl").await?;
    keys(c, "g").await?;
    wait_selected(c, 1).await?;
    wait_until(
        c,
        "the loop's state before its first words: no run, no request, nothing owed",
        "const l = document.querySelector('[data-testid=agent-loop]'); \
         return !!l && !!document.querySelector('[data-testid=loop-items-empty]') \
           && l.querySelector('[data-testid=loop-open-request]').textContent.trim() === 'none' \
           && l.querySelector('[data-testid=loop-owed]').textContent.trim() === 'none';",
    )
    .await?;
    // K steps a request forward: @4, then @11, the second request.
    keys(c, "K").await?;
    wait_selected(c, 4).await?;
    keys(c, "K").await?;
    wait_selected(c, 11).await?;
    wait_until(
        c,
        "the request pane at @11",
        "const r = document.querySelector('[data-testid=request-view]'); \
         return !!r && r.dataset.offset === '11' && document.querySelectorAll('[data-testid=input-item]').length > 0;",
    )
    .await?;
    let model = text_of(c, "[data-testid=request-model]").await?;
    check(
        model == "gpt-5.1",
        &format!("the request names the model the journal gives it ({model})"),
    )?;
    let items = js(c, INPUT_ITEMS).await?;
    let list = items.as_array().cloned().unwrap_or_default();
    let kinds: Vec<&str> = list.iter().filter_map(|i| i["kind"].as_str()).collect();
    check(
        kinds
            == [
                "message",
                "message",
                "message",
                "message",
                "message",
                "reasoning",
                "message",
                "function_call",
                "function_call_output",
                "message",
                "message",
            ],
        &format!("the 11 input items of @11, in the order sent: {kinds:?}"),
    )?;
    let roles: Vec<&str> = list.iter().filter_map(|i| i["role"].as_str()).collect();
    check(
        roles.get(..4) == Some(&["developer", "developer", "developer", "user"][..]),
        &format!("the head goes as developer items before the user's words: {roles:?}"),
    )?;
    let breakpoints: Vec<usize> = list
        .iter()
        .enumerate()
        .filter(|(_, i)| i["breakpoint"] == json!(true))
        .map(|(at, _)| at)
        .collect();
    check(
        breakpoints == [1] && list[1]["text"] == json!("Ship releases."),
        &format!("the cache breakpoint is on the last head section that may carry it, only: {breakpoints:?}"),
    )?;
    let output = &list[8];
    check(
        output["text"] == json!("# Changelog\n1.4: fixes")
            && output["call"] == json!("call_a1")
            && output["offset"] == json!("10"),
        &format!(
            "the run's output is the script's result, under its call, from the script item @10 that carries it: {output}"
        ),
    )?;
    check(
        list[7]["call"] == json!("call_a1")
            && list[7]["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("run ") && t.contains("CHANGELOG.md")),
        &format!("the call is `run` with its script: {}", list[7]),
    )?;
    let notes = text_of(c, "[data-testid=request-notes]").await?;
    check(
        notes.contains("the loop's default at contract v16")
            && notes.contains("descriptions are not recorded"),
        &format!(
            "the pane says what the journal does not record, and where the effort came from: {notes}"
        ),
    )?;
    check(
        js(
            c,
            "return !document.querySelector('[data-testid=request-message]') && !document.querySelector('[data-testid=protocol-message]');",
        )
        .await?
            == Value::Bool(true),
        "no chat message, protocol or otherwise, is shown for a Responses-API request",
    )?;
    screenshot(c, "app-07a-agent-loop-request").await?;

    // The output's offset is a link: a click selects the script result @10, where the
    // projection shows the run settled and its result in the list.
    click(
        c,
        "[data-testid=input-item]:nth-child(9) [data-testid=input-offset]",
    )
    .await?;
    wait_selected(c, 10).await?;
    click(c, "[data-testid=tab-projection]").await?;
    wait_until(
        c,
        "the projection at @10 with the run settled, its result listed and in time",
        "const p = document.querySelector('[data-testid=projection]'); \
         const run = document.querySelector('[data-testid=loop-run]'); \
         return !!p && p.dataset.at === '10' && !!run && run.dataset.settled === 'true' \
           && run.dataset.inTime === 'true' && run.textContent.includes('in time') \
           && run.textContent.includes('call_a1') \
           && !!p.querySelector('[data-testid=item-card][data-offset=\"10\"]');",
    )
    .await?;
    // The pause the loop was put in at @29.
    goto(c, 29).await?;
    wait_until(
        c,
        "the loop paused at @29",
        "const l = document.querySelector('[data-testid=agent-loop]'); \
         return !!l && l.querySelector('[data-testid=loop-paused]').textContent.trim() === 'yes';",
    )
    .await?;
    screenshot(c, "app-07b-agent-loop-paused").await
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn canonical(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

/// A journal of its own for the drop, so the demo's name cannot satisfy the assertions.
fn dropped_journal(dir: &Path) -> PathBuf {
    let path = dir.join("dropped-journal.jsonl");
    std::fs::copy(workspace().join("tests/e2e/hostile.jsonl"), &path)
        .expect("copy the hostile fixture as the dropped journal");
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display, WebKitWebDriver and tauri-driver: run scripts/e2e.sh"]
async fn app_end_to_end() {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let dropped = dropped_journal(scratch.path());
    let hooks = PathBuf::from("1");
    let harness = Harness::start(&[("JOURNALSCOPE_TEST_HOOKS", &hooks)]);
    let (port, config, cache) = (harness.port, harness.config.clone(), harness.cache.clone());
    let mut out = Vec::new();
    let (d, cfg) = (dropped.clone(), config.clone());
    out.push(
        scenario(port, "app-01-drop-open", &[], |c| async move {
            let r = drop_open(&c, &d, &cfg).await;
            (c, r)
        })
        .await,
    );
    let d = dropped.clone();
    out.push(
        scenario(port, "app-02-recent-after-restart", &[], |c| async move {
            let r = recent_after_restart(&c, &d).await;
            (c, r)
        })
        .await,
    );
    let s = scratch.path().to_path_buf();
    out.push(
        scenario(port, "app-03-clipboard", &[], |c| async move {
            let r = clipboard(&c, &cache, &s).await;
            (c, r)
        })
        .await,
    );
    out.push(
        scenario(port, "app-04-scrubber", &[], |c| async move {
            let r = scrub(&c).await;
            (c, r)
        })
        .await,
    );
    let sections = workspace()
        .join("tests/fixtures/iterate/contract-sections-8.jsonl")
        .to_string_lossy()
        .into_owned();
    out.push(
        scenario(port, "app-05-contract", &[sections], |c| async move {
            let r = contract_named(&c).await;
            (c, r)
        })
        .await,
    );
    assert_all(out, "app end-to-end scenarios");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display, WebKitWebDriver and tauri-driver: run scripts/e2e.sh"]
async fn agent_loop_end_to_end() {
    let harness = Harness::start(&[]);
    let port = harness.port;
    let fixture = |name: &str| {
        workspace()
            .join("tests/fixtures/iterate")
            .join(name)
            .to_string_lossy()
            .into_owned()
    };
    let mut out = Vec::new();
    out.push(
        scenario(
            port,
            "app-06-agent-loop-contract",
            &[fixture("contract-agent-loop.jsonl")],
            |c| async move {
                let r = agent_loop_contract(&c).await;
                (c, r)
            },
        )
        .await,
    );
    out.push(
        scenario(
            port,
            "app-07-agent-loop-request",
            &[fixture("agent-loop/release.jsonl")],
            |c| async move {
                let r = agent_loop_request(&c).await;
                (c, r)
            },
        )
        .await,
    );
    assert_all(out, "agent-loop end-to-end scenarios");
}
