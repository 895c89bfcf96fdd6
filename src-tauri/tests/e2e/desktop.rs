//! End-to-end tests of the real window: tauri-driver in front of WebKitWebDriver (under Xvfb,
//! started by scripts/e2e.sh), driven with fantoccini. Ignored by a plain `cargo test`; run
//! with `make e2e`. Every scenario starts its own app, saves a screenshot under
//! target/e2e-screenshots/, and all scenarios run even when one fails.

use std::path::Path;

use fantoccini::Client;
use serde_json::{json, Value};

use crate::common::*;

// Scenarios. Offsets refer to the bundled iterate demo (demo/iterate-demo.jsonl) and to
// tests/e2e/hostile.jsonl.

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
    wait_for(c, "[data-testid=demo-agentskit]").await?;
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
    .map(drop)
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
    // The threshold: @21's reported 578 input tokens reached 0.8 of its 640-token window.
    let threshold = text_of(c, "[data-testid=compaction-threshold]").await?;
    check(
        threshold.starts_with("tokens: 578 reported ≥ threshold 512 (0.8 × 640) · ")
            && threshold.contains(" after · summary "),
        &format!("the compaction names the request's usage against its threshold: {threshold}"),
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
    // Many downgrades fold under their count; the toggle lists them.
    let folded = js(
        c,
        "return [!!document.querySelector('[data-testid=downgrades-toggle]'), document.querySelectorAll('[data-testid=downgrade]').length];",
    )
    .await?;
    check(
        folded == json!([true, 0]),
        &format!("@21's downgrades on workers-ai are folded under their count: {folded}"),
    )?;
    // The request's tokens against its reported input, and a count on every message.
    let tokens = text_of(c, "[data-testid=request-tokens]").await?;
    check(
        tokens.contains(" tokens (o200k_base, exact) · reported 578"),
        &format!("@21's count stands beside its reported input: {tokens}"),
    )?;
    let counted = js(
        c,
        "return [document.querySelectorAll('[data-testid=message-tokens]').length,          document.querySelectorAll('[data-testid=request-message], [data-testid=protocol-message]').length];",
    )
    .await?;
    check(
        counted[0] == counted[1] && counted[0].as_u64().unwrap_or(0) > 2,
        &format!("every message shows its tokens: {counted}"),
    )?;
    click(c, "[data-testid=downgrades-toggle]").await?;
    wait_until(
        c,
        "request @21 lists the github downgrade with its rule",
        "return [...document.querySelectorAll('[data-testid=downgrade]')].some(d => d.dataset.rule === 'external-actor-downgrade' && d.textContent.includes('external-actor-downgrade'));",
    )
    .await?;
    Ok(())
}

/// "Export…" with "exact bytes" ticked writes exactly the bytes of the CLI's
/// `request --exact -o` (redacted exports are compared in hostile.rs).
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
    click(c, "[data-testid=export-menu]").await?;
    wait_for(c, "[data-testid=export-exact]")
        .await?
        .click()
        .await
        .map_err(err("tick exact bytes"))?;
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
    let theirs = cli_written(
        cache,
        &[
            "request",
            "demo",
            "--at",
            "21",
            "--transport",
            "workers-ai",
            "--exact",
        ],
        &cli_out,
    )?;
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
    .map(drop)
}

/// The command bar, break menu, legend and keys show only what the journal's dialect answers:
/// none of iterate's item filters (looked for inside the open Filter popover), exactly `breaks`
/// in the break menu, exactly `legend` on the timeline, and no key help line for requests,
/// compactions, transports or sizes; J/K step by `unit`, when the dialect has one.
async fn only_its_controls(
    c: &Client,
    breaks: &[&str],
    legend: &[&str],
    unit: Option<&str>,
) -> Outcome {
    click(c, "[data-testid=filter-button]").await?;
    wait_for(c, "[data-testid=filter-popover]").await?;
    keys(c, "?").await?;
    wait_for(c, "[data-testid=key-help]").await?;
    let shown = js(
        c,
        "return { filters: ['role', 'lane', 'published', 'actor', 'key'].filter((f) => \
             document.querySelector(`[data-testid=search-${f}]`)), \
           popover: !!document.querySelector('[data-testid=filter-popover] [data-testid=search-type]'), \
           breaks: [...document.querySelectorAll('[data-testid=break-kind] option')].map((o) => o.value), \
           legend: ['request', 'compaction', 'diagnostic', 'run'].filter((k) => \
             document.querySelector(`[data-testid=legend-${k}]`)), \
           keys: [...document.querySelectorAll('[data-testid=key-binding]')].map((r) => r.textContent) };",
    )
    .await?;
    keys(c, "?").await?;
    click(c, "[data-testid=filter-button]").await?;
    check(
        shown["popover"] == json!(true),
        "the Filter popover opens, with its type filter",
    )?;
    check(
        shown["filters"].as_array().is_some_and(Vec::is_empty),
        &format!("no item filter of iterate's is shown: {}", shown["filters"]),
    )?;
    check(
        shown["breaks"] == json!(breaks),
        &format!("the break menu offers {breaks:?}: {}", shown["breaks"]),
    )?;
    check(
        shown["legend"] == json!(legend),
        &format!("the legend names {legend:?}: {}", shown["legend"]),
    )?;
    let help: Vec<String> = shown["keys"]
        .as_array()
        .map(|k| {
            k.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    check(!help.is_empty(), "the key help lists the journal's keys")?;
    for iterate_only in ["request", "compaction", "transport", "context-size"] {
        check(
            !help.iter().any(|line| line.contains(iterate_only)),
            &format!("no key help line mentions {iterate_only}: {help:?}"),
        )?;
    }
    let stepping = help.iter().find(|line| line.starts_with("J / K"));
    match unit {
        Some(unit) => check(
            stepping.is_some_and(|line| line.ends_with(&format!("previous / next {unit}"))),
            &format!("J/K step by {unit}: {stepping:?}"),
        ),
        None => check(
            stepping.is_none(),
            &format!("no J/K without a unit: {stepping:?}"),
        ),
    }
}

/// The window's layout at 1280×800: the chrome above the panes fits in 120 px; stepping says
/// what the event changed and highlights the card it touched; a filter that hides the selection
/// says so in a pinned row that clears it; the dark palette is one click away.
async fn design(c: &Client) -> Outcome {
    wait_for(c, "[data-testid=projection], [data-testid=request-view]").await?;
    let chrome = js(
        c,
        "return [document.querySelector('[data-testid=panes]').getBoundingClientRect().top, innerWidth, innerHeight];",
    )
    .await?;
    check(
        chrome[1].as_f64() == Some(1280.0) && chrome[2].as_f64() == Some(800.0),
        &format!("the window is 1280×800: {chrome}"),
    )?;
    check(
        chrome[0].as_f64().is_some_and(|top| top <= 120.0),
        &format!("the fixed chrome above the content is at most 120 px: {chrome}"),
    )?;

    goto(c, 17).await?;
    let said = wait_until(
        c,
        "the change line for @17",
        "const l = document.querySelector('[data-testid=change-line]'); return !!l && l.textContent.startsWith('@17 ');",
    )
    .await;
    let line = js(
        c,
        "return document.querySelector('[data-testid=change-line]')?.textContent;",
    )
    .await?;
    check(
        said.is_ok()
            && line
                == json!(
                    "@17 replaces @7 · key=github/review-task · unpublished · next sent by @21"
                ),
        &format!("the change line says what @17 did: {line}"),
    )?;
    let touched = js(
        c,
        "const card = document.querySelector(\"[data-testid=projection] [data-testid=item-card][data-offset='17']\"); \
         const pane = card.closest('.body').getBoundingClientRect(); const r = card.getBoundingClientRect(); \
         return { touched: card.dataset.touched, inView: r.top >= pane.top && r.bottom <= pane.bottom, \
                  others: [...document.querySelectorAll('[data-testid=projection] [data-testid=item-card][data-touched=true]')].map((e) => e.dataset.offset) };",
    )
    .await?;
    check(
        touched == json!({ "touched": "true", "inView": true, "others": ["17"] }),
        &format!("@17's card, and only it, is highlighted and in view: {touched}"),
    )?;
    screenshot(c, "09-change-line").await?;
    goto(c, 18).await?;
    wait_until(
        c,
        "the change line for @18",
        "return document.querySelector('[data-testid=change-line]').textContent.startsWith('@18 replaces @17 in place');",
    )
    .await?;
    // The delta view lists only what @18 changed: its item in, @17 out.
    click(c, "[data-testid=delta-toggle]").await?;
    wait_until(
        c,
        "the delta view at @18",
        "const d = [...document.querySelectorAll('[data-testid=delta-item]')].map((e) => `${e.dataset.change}:${e.dataset.offset}`); \
         return d.join(' ') === 'replaced:18 removed:17';",
    )
    .await?;
    screenshot(c, "09d-delta-view").await?;
    click(c, "[data-testid=delta-toggle]").await?;
    wait_for(c, "[data-testid=first-lane]").await?;

    // A type filter that hides the selection: the list says so, and "clear" brings it back.
    js(
        c,
        "const s = document.querySelector('[data-testid=type-filter]'); \
         s.value = 'events.iterate.com/agent/llm-request-requested'; s.dispatchEvent(new Event('change', { bubbles: true })); return true;",
    )
    .await?;
    wait_for(c, "[data-testid=selection-hidden]").await?;
    let hidden = js(
        c,
        "return document.querySelector('[data-testid=selection-hidden]').textContent;",
    )
    .await?;
    let hidden = hidden.as_str().unwrap_or_default();
    check(
        hidden.contains("@18 is hidden by the filter"),
        &format!("the pinned row names the hidden selection: {hidden}"),
    )?;
    screenshot(c, "09a-selection-hidden").await?;
    click(c, "[data-testid=clear-filter]").await?;
    wait_until(
        c,
        "the selection back in the list",
        "const r = document.querySelector('[data-testid=event-row].selected'); \
         return !document.querySelector('[data-testid=selection-hidden]') && !!r && r.dataset.offset === '18';",
    )
    .await?;

    // The type column widens by 10 px for each → on its handle, and keeps the width per row.
    let widths = js(
        c,
        "const w = () => document.querySelector('[data-testid=event-row] .type').getBoundingClientRect().width; \
         const before = w(); const h = document.querySelector('[data-testid=resize-type]'); \
         for (let i = 0; i < 3; i++) h.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true })); \
         return new Promise((done) => requestAnimationFrame(() => done([before, w()])));",
    )
    .await?;
    check(
        widths[1]
            .as_f64()
            .zip(widths[0].as_f64())
            .is_some_and(|(after, before)| (after - before - 30.0).abs() < 1.0),
        &format!("three → on the type column's handle widen it by 30 px: {widths}"),
    )?;
    // Back as it was: the width is kept, and the scenarios after this one share the profile.
    js(
        c,
        "const h = document.querySelector('[data-testid=resize-type]'); \
         for (let i = 0; i < 3; i++) h.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft', bubbles: true })); return true;",
    )
    .await?;

    // Shift+drag over the left half of the timeline zooms into it; "whole journal" zooms out.
    js(
        c,
        "const cv = document.querySelector('[data-testid=timeline] canvas'); const r = cv.getBoundingClientRect(); \
         const at = (type, x) => cv.dispatchEvent(new PointerEvent(type, { bubbles: true, shiftKey: true, pointerId: 7, clientX: r.left + x, clientY: r.top + 10 })); \
         at('pointerdown', 0); at('pointermove', r.width / 2); at('pointerup', r.width / 2); return true;",
    )
    .await?;
    wait_for(c, "[data-testid=timeline-zoom]").await?;
    let zoom = js(
        c,
        "const z = document.querySelector('[data-testid=timeline-zoom]'); return [Number(z.dataset.first), Number(z.dataset.last)];",
    )
    .await?;
    let span = (zoom[0].as_u64(), zoom[1].as_u64());
    check(
        span.0 == Some(0) && span.1.is_some_and(|last| (12..=17).contains(&last)),
        &format!("the brush over the left half of 30 events zooms into about the first 15: {zoom}"),
    )?;
    screenshot(c, "09c-timeline-zoomed").await?;
    click(c, "[data-testid=zoom-out]").await?;
    wait_until(
        c,
        "the whole journal again",
        "return !document.querySelector('[data-testid=timeline-zoom]');",
    )
    .await?;

    // The palette: system, light, dark, and back to system for the scenarios after this one.
    for _ in 0..3 {
        let theme = js(c, "return document.documentElement.dataset.theme;").await?;
        if theme == json!("dark") {
            break;
        }
        click(c, "[data-testid=theme-button]").await?;
    }
    let dark = js(
        c,
        "const m = getComputedStyle(document.body).backgroundColor.match(/\\d+/g).map(Number); \
         return [document.documentElement.dataset.theme, (0.2126 * m[0] + 0.7152 * m[1] + 0.0722 * m[2]) / 255];",
    )
    .await?;
    check(
        dark[0] == json!("dark") && dark[1].as_f64().is_some_and(|l| l < 0.2),
        &format!("the dark palette darkens the window: {dark}"),
    )?;
    goto(c, 17).await?;
    screenshot(c, "09b-dark-palette").await?;
    for _ in 0..3 {
        let choice = js(c, "return document.documentElement.dataset.themeChoice;").await?;
        if choice == json!("system") {
            break;
        }
        click(c, "[data-testid=theme-button]").await?;
    }
    Ok(())
}

/// AG-UI: a STATE_DELTA step shows the state tree with its changed paths highlighted and
/// the patch beside it; a failing patch is shown in red with its reason; a MESSAGES_SNAPSHOT
/// marks what it did to each message.
async fn agui(c: &Client) -> Outcome {
    open_demo(c, "ag-ui").await?;
    goto(c, 22).await?;
    wait_for(c, "[data-testid=agui-view]").await?;
    only_its_controls(
        c,
        &["diagnostic", "sql"],
        &["diagnostic", "run"],
        Some("run"),
    )
    .await?;
    // J/K step by run: from @22, K lands on the second RUN_STARTED (@29) and J back on the first.
    keys(c, "K").await?;
    wait_selected(c, 29).await?;
    keys(c, "J").await?;
    wait_selected(c, 1).await?;
    goto(c, 22).await?;
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
    .map(drop)
}

/// AgentsKit: every line carries its verdict, the lineage tree highlights the turn of the held
/// snapshot, and clicking another turn jumps to its first snapshot.
async fn agentskit(c: &Client) -> Outcome {
    open_demo(c, "agentskit").await?;
    keys(c, "G").await?;
    wait_for(c, "[data-testid=agentskit-view]").await?;
    only_its_controls(c, &["diagnostic", "sql"], &["diagnostic"], None).await?;
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
    // The held snapshot's prompt, counted and set against the promptTokens it reported.
    let prompt = wait_for(c, "[data-testid=kit-prompt-tokens]").await?;
    let prompt = prompt.text().await.map_err(err("prompt tokens"))?;
    check(
        prompt.contains(
            "prompt of 1 message: 14 tokens (o200k_base, an estimate) · reported 14 · the same",
        ),
        &format!("the prompt's count stands against its report: {prompt}"),
    )?;
    let first_turn = wait_for(c, "[data-testid=lineage-turn]").await?;
    first_turn.click().await.map_err(err("lineage turn"))?;
    wait_until(
        c,
        "the first turn's snapshot to be selected",
        "const s = document.querySelector('[data-testid=lineage-turn].selected'); return !!s && s === document.querySelector('[data-testid=lineage-turn]');",
    )
    .await
    .map(drop)
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
        scenario(port, "09-design", &[], |c| async move {
            let r = design(&c).await;
            (c, r)
        })
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
    let export_dir = tempfile::tempdir().expect("temp export dir");
    let export = export_dir.path().join("exported-request.json");
    let harness = Harness::start(&[("JOURNALSCOPE_EXPORT_PATH", &export)]);
    let outcomes = run_scenarios(harness.port, &export, &harness.cache).await;
    assert_all(outcomes, "desktop end-to-end scenarios");
}
