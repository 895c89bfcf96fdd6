//! End-to-end: the home screen lists the Claude Code and Codex sessions on the machine (here a
//! real Claude Code session and a Codex rollout placed where those tools keep them); a click
//! opens one, `c` steps to its compaction, `K` to the first request after it, whose messages
//! start from the compaction's summary, as `journalscope request --json` says; the line with
//! the subagent's result names it, and its Task call opens the subagent's own transcript, whose
//! lines the event list marks as a sidechain's. Ignored by a
//! plain `cargo test`; scripts/e2e.sh runs it. Screenshots: target/e2e-screenshots/sessions-*.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, SystemTime};

use fantoccini::{Client, Locator};
use serde_json::Value;

use crate::common::*;

const SESSION: &str = "ae4a77f8-aedd-4bc1-888f-c94edc91af04";
/// The session's compact_boundary line, and the first request after it.
const COMPACTION: i64 = 1481;
const REQUEST_AFTER: i64 = 1492;
/// The Task call that ran the session's subagent, the line holding its result, and its id.
const SUBAGENT_CALL: i64 = 71;
const SUBAGENT_RESULT: i64 = 99;
const SUBAGENT: &str = "aac57f5";

fn fixture(rel: &str) -> std::path::PathBuf {
    workspace().join("tests/fixtures/claude-code").join(rel)
}

/// Copies a fixture to `to`, last written `age` ago (older than two minutes: not live).
fn place(from: &Path, to: &Path, age: Duration) -> Result<(), String> {
    let folder = to.parent().ok_or("a folder")?;
    std::fs::create_dir_all(folder).map_err(|e| format!("make {}: {e}", folder.display()))?;
    std::fs::copy(from, to).map_err(|e| format!("copy {}: {e}", from.display()))?;
    let file = std::fs::File::options()
        .write(true)
        .open(to)
        .map_err(|e| format!("open the copy: {e}"))?;
    file.set_modified(SystemTime::now() - age)
        .map_err(|e| format!("age the copy: {e}"))
}

/// The first message's text of the request at `at`, as the CLI renders it.
/// The text blocks of the first message of the request at `at` as the CLI gives it: as the
/// client sends it where that is rendered (`sent`, what the window shows), else as the
/// transcript holds it.
fn cli_first_texts(cache: &Path, session: &Path, at: i64) -> Result<Vec<String>, String> {
    let out = Command::new(cli_binary())
        .env("JOURNALSCOPE_CACHE_DIR", cache)
        .args([
            "request",
            &session.to_string_lossy(),
            "--at",
            &at.to_string(),
            "--json",
        ])
        .output()
        .map_err(|e| format!("run the CLI: {e}"))?;
    let v: Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        format!(
            "request --json: {e}: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let first = if v["sent"].is_array() {
        &v["sent"][0]["content"]
    } else {
        &v["messages"][0]["content"]
    };
    let texts: Vec<String> = match first {
        Value::String(text) => vec![text.clone()],
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    };
    if texts.is_empty() {
        return Err(format!("no first text in {v}"));
    }
    Ok(texts)
}

async fn session_from_home(c: &Client, cache: &Path, session: &Path) -> Outcome {
    click_at(c, "[data-testid=home]").await?;
    wait_until(
        c,
        "both sessions listed",
        "return document.querySelectorAll('[data-testid=session]').length === 2;",
    )
    .await?;
    let listed = c
        .find_all(Locator::Css("[data-testid=session]"))
        .await
        .map_err(err("sessions"))?;
    let mut dialects = Vec::new();
    for s in &listed {
        dialects.push(attr(s, "data-dialect").await?);
    }
    check(
        dialects == ["codex", "claude-code"],
        &format!("both agents' sessions, newest first: {dialects:?}"),
    )?;
    // textContent, not the rendered text: the prompt is cut with an ellipsis to fit the row.
    let claude = js(
        c,
        "return document.querySelector('[data-testid=session][data-dialect=claude-code]').textContent;",
    )
    .await?;
    let claude = claude.as_str().unwrap_or_default();
    check(
        claude.contains("Work on bead spotter-4te") && claude.contains(SESSION),
        &format!("the row shows the first prompt and the id: {claude}"),
    )?;
    screenshot(c, "sessions-01-home").await?;

    click_at(c, "[data-testid=session][data-dialect=claude-code]").await?;
    wait_until(
        c,
        "the session's conversation",
        "return !!document.querySelector('[data-testid=conversation]') && !document.querySelector('[data-testid=import-progress]');",
    )
    .await?;
    let title = js(c, "return document.title;").await?;
    check(
        title.as_str().is_some_and(|t| t.contains(SESSION)),
        &format!("the window names the session's file: {title}"),
    )?;
    let unknown = text_of(c, "[data-testid=system-unknown]").await?;
    check(
        unknown.contains("not recorded"),
        "the pane says the system prompt is not in the transcript",
    )?;

    // The session's dialect describes its controls: no item filter of iterate's, and breaks
    // at requests, compactions, diagnostics and SQL.
    click(c, "[data-testid=filter-button]").await?;
    wait_for(c, "[data-testid=filter-popover]").await?;
    let controls = js(
        c,
        "return [!!document.querySelector('[data-testid=search-role]'), \
           [...document.querySelectorAll('[data-testid=break-kind] option')].map((o) => o.value)];",
    )
    .await?;
    click(c, "[data-testid=filter-button]").await?;
    check(
        controls == serde_json::json!([false, ["request", "compaction", "diagnostic", "sql"]]),
        &format!("a transcript shows only the controls it answers: {controls}"),
    )?;
    keys(c, "c").await?;
    wait_selected(c, COMPACTION).await?;
    // The change line says what the compaction line did to the conversation.
    wait_until(
        c,
        "the change line at the compaction",
        &format!("const l = document.querySelector('[data-testid=change-line]'); return !!l && l.textContent.startsWith('@{COMPACTION} ');"),
    )
    .await?;
    // The compaction opens before | after: the long conversation it replaced, and the summary
    // the session went on with.
    let pane = wait_for(
        c,
        &format!("[data-testid=transcript-compaction][data-offset='{COMPACTION}']"),
    )
    .await?;
    let before: u64 = attr(
        &wait_for(c, "[data-testid=compaction-before]").await?,
        "data-lines",
    )
    .await?
    .parse()
    .map_err(|e| format!("before's line count: {e}"))?;
    let after: u64 = attr(
        &wait_for(c, "[data-testid=compaction-after]").await?,
        "data-lines",
    )
    .await?
    .parse()
    .map_err(|e| format!("after's line count: {e}"))?;
    check(
        before > after && after >= 1,
        &format!("the compaction replaced {before} lines by {after}"),
    )?;
    let summary = text_of(c, "[data-testid=compaction-after] .text").await?;
    check(
        summary.starts_with("This session is being continued"),
        &format!(
            "after the compaction, the summary: {}",
            &summary[..summary.len().min(80)]
        ),
    )?;
    drop(pane);
    screenshot(c, "sessions-02-compaction").await?;

    keys(c, "K").await?;
    wait_selected(c, REQUEST_AFTER).await?;
    wait_for(
        c,
        &format!("[data-testid=transcript-request][data-offset='{REQUEST_AFTER}']"),
    )
    .await?;
    let texts = cli_first_texts(cache, session, REQUEST_AFTER)?;
    check(
        texts
            .iter()
            .any(|t| t.starts_with("This session is being continued")),
        &format!("the CLI's request starts from the summary: {texts:?}"),
    )?;
    let want = &texts[0];
    let shown = js(
        c,
        "return document.querySelector('[data-testid=transcript-request] [data-testid=transcript-block] pre').textContent;",
    )
    .await?;
    check(
        shown.as_str() == Some(want.as_str()),
        "the window's first message is the CLI's, character for character",
    )?;
    // The client's date context leads the request as sent, marked as context it injected.
    let kind = js(
        c,
        "return document.querySelector('[data-testid=transcript-request] [data-testid=transcript-block]').dataset.kind;",
    )
    .await?;
    check(
        !want.starts_with("<system-reminder>") || kind.as_str() == Some("injected"),
        &format!("the client's own context is marked as injected: {kind}"),
    )?;
    screenshot(c, "sessions-02-request-as-sent").await?;
    // "Copy body" puts the request's body on the clipboard as the CLI exports it, redacted.
    click_at(c, "[data-testid=copy-transcript-request]").await?;
    wait_until(
        c,
        "the copy notice",
        &format!(
            "const n = document.querySelector('[data-testid=notice]'); \
             return !!n && n.textContent.startsWith('body of request @{REQUEST_AFTER} copied');"
        ),
    )
    .await?;
    let exported = cli_written(
        cache,
        &[
            "request",
            &session.to_string_lossy(),
            "--at",
            &REQUEST_AFTER.to_string(),
        ],
        &cache.join("request-body.json"),
    )?;
    let copied = tokio::task::spawn_blocking(|| {
        arboard::Clipboard::new()
            .and_then(|mut board| board.get_text())
            .map_err(|e| format!("read the clipboard: {e}"))
    })
    .await
    .map_err(|e| e.to_string())??;
    check(
        copied.as_bytes() == exported.as_slice(),
        &format!(
            "the clipboard holds the body the CLI exports ({} vs {} bytes)",
            copied.len(),
            exported.len()
        ),
    )?;
    // The diff tab sets the request against the one before it: the cache broke at the
    // compaction, and the cause leads back to it.
    click_at(c, "[data-testid=tab-diff]").await?;
    let cache = wait_for(
        c,
        &format!(
            "[data-testid=transcript-diff][data-to='{REQUEST_AFTER}'] [data-testid=transcript-diff-cache]"
        ),
    )
    .await?;
    check(
        attr(&cache, "data-broke").await? == "true"
            && attr(&cache, "data-cause").await? == "compaction",
        "the request after the compaction missed the cache, and the compaction is the cause",
    )?;
    let said = text_of(c, "[data-testid=transcript-diff-cache]").await?;
    check(
        said.contains(&format!("@{COMPACTION}")),
        &format!("the break names the compaction's line: {said}"),
    )?;
    screenshot(c, "sessions-03-diff").await?;
    click_at(c, "[data-testid=transcript-diff-cause]").await?;
    wait_selected(c, COMPACTION).await?;
    keys(c, "K").await?;
    wait_selected(c, REQUEST_AFTER).await?;
    // The conversation tab still shows the lines in context at the request.
    click_at(c, "[data-testid=tab-projection]").await?;
    let at = attr(&wait_for(c, "[data-testid=conversation]").await?, "data-at").await?;
    check(
        at == REQUEST_AFTER.to_string(),
        &format!("the conversation is the one at the request: @{at}"),
    )?;

    // The parent shows the result its subagent sent back, and the call opens the subagent.
    goto(c, SUBAGENT_RESULT).await?;
    let note = text_of(
        c,
        &format!("[data-testid=transcript-message][data-offset='{SUBAGENT_RESULT}'] .note"),
    )
    .await?;
    check(
        note.contains(&format!("result of subagent {SUBAGENT}")),
        &format!("the result's line names the subagent that produced it: {note}"),
    )?;
    goto(c, SUBAGENT_CALL).await?;
    let open = format!("[data-testid=open-subagent][data-agent='{SUBAGENT}']");
    wait_for(c, &open).await?;
    screenshot(c, "sessions-04-subagent-call").await?;
    click_at(c, &open).await?;
    wait_until(
        c,
        "the subagent's own transcript",
        &format!("return document.title.includes('agent-{SUBAGENT}') && !!document.querySelector('[data-testid=conversation]');"),
    )
    .await?;
    let marked = js(
        c,
        "const rows = [...document.querySelectorAll('[data-testid=event-row]')]; \
         return [rows.length, rows.filter((r) => r.querySelector('.b-sidechain')).length];",
    )
    .await?;
    check(
        marked[0].as_u64().is_some_and(|n| n > 0) && marked[0] == marked[1],
        &format!("every listed line of the subagent is marked a sidechain's: {marked}"),
    )?;
    // And the subagent leads back to the session, at the call that spawned it.
    wait_for(c, "[data-testid=back-to-parent]").await?;
    screenshot(c, "sessions-05-subagent-transcript").await?;
    click_at(c, "[data-testid=back-to-parent]").await?;
    wait_until(
        c,
        "the session again",
        &format!("return document.title.includes('{SESSION}');"),
    )
    .await?;
    wait_selected(c, SUBAGENT_CALL).await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display, WebKitWebDriver and tauri-driver: run `make e2e`"]
async fn sessions_end_to_end() {
    let agents = tempfile::tempdir().expect("temp agent homes");
    let claude = agents.path().join("claude");
    let codex = agents.path().join("codex");
    let session = claude
        .join("projects/-home-USER-projects-spotter-worktrees-spotter-4te")
        .join(format!("{SESSION}.jsonl"));
    place(
        &fixture(&format!("corpus/spotter/{SESSION}.jsonl")),
        &session,
        Duration::from_secs(7_200),
    )
    .expect("place the Claude Code session");
    place(
        &fixture(&format!(
            "corpus/spotter/{SESSION}/subagents/agent-{SUBAGENT}.jsonl"
        )),
        &session
            .with_extension("")
            .join(format!("subagents/agent-{SUBAGENT}.jsonl")),
        Duration::from_secs(7_200),
    )
    .expect("place its subagent where Claude Code 2.1 writes it");
    place(
        &fixture("codex-compaction.jsonl"),
        &codex.join("sessions/2026/03/02/rollout-2026-03-02T11-00-02-019c0000-0000-7000-8000-000000000104.jsonl"),
        Duration::from_secs(3_600),
    )
    .expect("place the Codex rollout");
    let harness = Harness::start(&[("CLAUDE_CONFIG_DIR", &claude), ("CODEX_HOME", &codex)]);
    let (port, cache) = (harness.port, harness.cache.clone());
    let outcome = scenario(port, "sessions-06-back-to-session", &[], |c| async move {
        let r = session_from_home(&c, &cache, &session).await;
        (c, r)
    })
    .await;
    let recorded = fixture(&format!("recorded-2.1.332/c/{RECORDED_SESSION}.jsonl"));
    let args = [recorded.to_string_lossy().into_owned()];
    let shown = scenario(
        port,
        "sessions-07-recorded-request",
        &args,
        |c| async move {
            let r = recorded_request(&c).await;
            (c, r)
        },
    )
    .await;
    assert_all(vec![outcome, shown], "sessions end-to-end scenarios");
}

/// A session Claude Code 2.1.332 wrote, which records each request it sent, and its first
/// request's line.
const RECORDED_SESSION: &str = "7227f51a-bb31-46d7-a624-7b115b27a446";
const RECORDED_REQUEST: i64 = 18;

/// The request pane of a session that records its requests shows the body as sent: the
/// system blocks (the billing block first), the tools, the parameters, the client's reminders
/// marked as injected context, the cache breakpoints on their blocks, and what is not recorded.
async fn recorded_request(c: &Client) -> Outcome {
    wait_until(
        c,
        "the session's conversation",
        "return !!document.querySelector('[data-testid=conversation]') && !document.querySelector('[data-testid=import-progress]');",
    )
    .await?;
    goto(c, RECORDED_REQUEST).await?;
    wait_for(
        c,
        &format!("[data-testid=transcript-request][data-offset='{RECORDED_REQUEST}']"),
    )
    .await?;
    let system = text_of(c, "[data-testid=request-system] h4").await?;
    check(
        system.contains("3 blocks"),
        &format!("the three system blocks: {system}"),
    )?;
    let billing = text_of(
        c,
        "[data-testid=request-system] [data-testid=transcript-block] pre",
    )
    .await?;
    check(
        billing.starts_with("x-anthropic-billing-header: cc_version=2.1.332."),
        &format!("the billing block leads: {billing}"),
    )?;
    let tools = text_of(c, "[data-testid=request-tools] summary").await?;
    check(
        tools.contains("12") && tools.contains("Bash") && tools.contains("Write"),
        &format!("the tools by name: {tools}"),
    )?;
    let params = text_of(c, "[data-testid=request-params]").await?;
    check(
        params.contains("max_tokens 128000") && params.contains("thinking"),
        &format!("the parameters: {params}"),
    )?;
    let counts = js(
        c,
        "const pane = document.querySelector('[data-testid=transcript-request]');          return [pane.querySelectorAll('[data-kind=injected]').length,                  pane.querySelectorAll('[data-breakpoint=yes]').length];",
    )
    .await?;
    check(
        counts[0].as_u64().is_some_and(|n| n >= 1),
        &format!("the client's reminders are marked as injected context: {counts}"),
    )?;
    check(
        counts[1].as_u64() == Some(3),
        &format!("the three cache breakpoints sit on their blocks: {counts}"),
    )?;
    let marks = text_of(c, "[data-testid=cache-breakpoints]").await?;
    check(
        marks.contains("system[1]") && marks.contains("messages[1].content[0]"),
        &format!("the breakpoints' paths in the body as sent: {marks}"),
    )?;
    let missing = text_of(c, "[data-testid=not-recorded]").await?;
    check(
        missing.contains("metadata") && missing.contains("stream"),
        &format!("what the transcript does not record is named: {missing}"),
    )?;
    let digest = text_of(c, "[data-testid=request-digest]").await?;
    check(
        digest.contains("verified"),
        &format!("the client's digest agrees with the rebuilt body: {digest}"),
    )?;
    screenshot(c, "sessions-07-recorded-request").await
}
