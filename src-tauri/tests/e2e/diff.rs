//! End-to-end test of the request diff view on the bundled iterate demo: `d` opens the diff of
//! the selected request against the one before, its prefix numbers and break cause match
//! `journalscope diff --json` for the same requests, cause links jump to the journal, and the
//! prefix chart marks the breaks, explains them on hover and selects a request on click.
//! The demo breaks its prefix twice: @19 republishes the system prompt (keyed slot, updates=@4)
//! before request @21, and the compaction at @25 replaces history before request @29.

use std::path::Path;
use std::process::Command;

use fantoccini::Client;
use serde_json::Value;

use crate::common::*;

fn cli_diff(cache: &Path, from: i64, to: i64) -> Result<Value, String> {
    let out = Command::new(cli_binary())
        .args([
            "diff",
            "demo",
            "--from",
            &from.to_string(),
            "--to",
            &to.to_string(),
            "--json",
        ])
        .env("JOURNALSCOPE_CACHE_DIR", cache)
        .output()
        .map_err(|e| format!("run the CLI: {e}"))?;
    check(out.status.success(), "the CLI diff succeeds")?;
    serde_json::from_slice(&out.stdout).map_err(|e| format!("CLI JSON: {e}"))
}

/// What the diff view shows, read from its data attributes.
const VIEW_SCRIPT: &str =
    "const q = (s) => document.querySelector(s); const v = q('[data-testid=diff-view]'); \
    if (!v || !q('[data-testid=diff-numbers]')) return null; \
    return { to: Number(v.dataset.to), \
      commonMessages: Number(q('[data-testid=diff-common-messages]').textContent), \
      commonBytes: Number(q('[data-testid=diff-common-bytes]').dataset.bytes), \
      idealBytes: Number(q('[data-testid=diff-ideal-bytes]').dataset.bytes), \
      reusedBytes: Number(q('[data-testid=diff-reused-bytes]').dataset.bytes), \
      cause: q('[data-testid=diff-break]').dataset.cause, \
      at: Number(q('[data-testid=diff-break]').dataset.at), \
      first: !!q('[data-testid=diff-first-to]'), \
      added: q('[data-testid=char-diff] [data-testid=char-added]')?.textContent ?? null };";

async fn diff_view(c: &Client, to: i64) -> Result<Value, String> {
    wait_until(
        c,
        &format!("the diff view of @{to}"),
        &format!("const v = document.querySelector('[data-testid=diff-view]'); return !!v && v.dataset.to === '{to}' && !!document.querySelector('[data-testid=diff-numbers]') && !!document.querySelector('[data-testid=prefix-chart]');"),
    )
    .await?;
    js(c, VIEW_SCRIPT).await
}

/// The window's numbers and cause equal the CLI's for the same two requests.
fn same_as_cli(view: &Value, cli: &Value, what: &str) -> Outcome {
    let pairs = [
        ("commonMessages", "commonPrefixMessages"),
        ("commonBytes", "commonPrefixBytes"),
        ("idealBytes", "idealPrefixBytes"),
        ("reusedBytes", "reusedPrefixBytes"),
    ];
    for (ours, theirs) in pairs {
        check(
            view[ours].as_u64() == cli[theirs].as_u64(),
            &format!(
                "{what}: the window's {ours} {} equals the CLI's {theirs} {}",
                view[ours], cli[theirs]
            ),
        )?;
    }
    check(
        view["cause"] == cli["prefixBreak"]["causes"][0]["kind"],
        &format!(
            "{what}: the cause shown {} is the CLI's {}",
            view["cause"], cli["prefixBreak"]["causes"][0]["kind"]
        ),
    )?;
    check(
        view["at"] == cli["prefixBreak"]["atMessage"],
        &format!(
            "{what}: the break is at the CLI's message {}",
            cli["prefixBreak"]["atMessage"]
        ),
    )?;
    check(
        view["first"] == Value::Bool(true),
        &format!("{what}: the first differing message is highlighted"),
    )
}

async fn click_js(c: &Client, css: &str) -> Outcome {
    let script = format!(
        "const e = document.querySelector(\"{css}\"); if (!e) return false; e.dispatchEvent(new MouseEvent('click', {{bubbles: true}})); return true;"
    );
    check(
        js(c, &script).await? == Value::Bool(true),
        &format!("{css} is there to click"),
    )
}

/// @21 against @8: the republished system prompt broke the prefix; its link jumps to @4.
async fn keyed_republish(c: &Client, cache: &Path) -> Outcome {
    goto(c, 21).await?;
    wait_for(c, "[data-testid=request-view][data-offset='21']").await?;
    keys(c, "d").await?;
    let view = diff_view(c, 21).await?;
    same_as_cli(&view, &cli_diff(cache, 8, 21)?, "@8 → @21")?;
    check(
        view["cause"] == "keyed-slot-republished",
        "the cause is the republished slot",
    )?;
    check(
        view["added"].as_str().is_some_and(|s| !s.is_empty()),
        "the character diff marks added text",
    )?;
    let links = js(c, "return [...document.querySelectorAll('[data-testid=cause-link]')].map(e => e.textContent);").await?;
    check(
        links.to_string().contains("updates=@4") && links.to_string().contains("item @19"),
        &format!("the cause links the new occurrence and updates=@4: {links}"),
    )?;
    screenshot(c, "diff-01-keyed-republish").await?;
    // Expanding the common prefix shows it as text.
    wait_for(c, "[data-testid=diff-common]")
        .await?
        .click()
        .await
        .map_err(err("expand"))?;
    screenshot(c, "diff-02-common-expanded").await?;
    click_js(c, "[data-testid=cause-link]:last-of-type").await?;
    wait_selected(c, 4).await
}

/// @29 against @21: the compaction at @25; the chart's @21 bar selects @21 and keeps the diff.
async fn compaction_and_chart(c: &Client, cache: &Path) -> Outcome {
    goto(c, 29).await?;
    wait_for(c, "[data-testid=request-view][data-offset='29']").await?;
    keys(c, "d").await?;
    let view = diff_view(c, 29).await?;
    same_as_cli(&view, &cli_diff(cache, 21, 29)?, "@21 → @29")?;
    check(view["cause"] == "compaction", "the cause is the compaction")?;
    let markers = js(c, "return document.querySelectorAll('[data-testid=prefix-chart] [data-testid=break-marker]').length;").await?;
    check(
        markers == 2,
        &format!("the chart marks the demo's two breaks: {markers}"),
    )?;
    // Hovering the @21 bar explains its break.
    js(c, "document.querySelector(\"[data-testid=prefix-bar][data-offset='21']\").dispatchEvent(new MouseEvent('mouseenter')); return true;").await?;
    wait_until(
        c,
        "the hover explanation of @21",
        "return (document.querySelector('[data-testid=chart-explanation]')?.textContent ?? '').includes('republished');",
    )
    .await?;
    // The chart is in tokens, as `cache` counts them, with the cached input @21 reports.
    let explained = js(
        c,
        "return document.querySelector('[data-testid=chart-explanation]').textContent;",
    )
    .await?;
    let explained = explained.as_str().unwrap_or_default().to_string();
    check(
        explained.contains("578 tokens, 186 reused, 113 lost, 0 reported cached"),
        &format!("the hover gives @21's tokens: {explained}"),
    )?;
    let totals = js(
        c,
        "return document.querySelector('[data-testid=prefix-chart-totals]').textContent;",
    )
    .await?;
    check(
        totals
            .as_str()
            .is_some_and(|t| t.contains("tokens: 523 lost, 328 reused of 1,258")),
        &format!("the legend totals the tokens: {totals}"),
    )?;
    screenshot(c, "diff-03-compaction-hover").await?;
    click_js(c, "[data-testid=prefix-bar][data-offset='21']").await?;
    wait_selected(c, 21).await?;
    let view = diff_view(c, 21).await?;
    check(
        view["cause"] == "keyed-slot-republished",
        "clicking a bar selects its request and the diff follows",
    )?;
    // The compaction link of @29 jumps to the compaction's step-debugger.
    goto(c, 29).await?;
    diff_view(c, 29).await?;
    click_js(c, "[data-testid=cause-link]").await?;
    wait_selected(c, 25).await?;
    wait_for(
        c,
        "[data-testid=compaction-view], [data-testid=tab-compaction].active",
    )
    .await?;
    Ok(())
}

/// The first request has nothing before it; the chart still shows the journal.
async fn first_request(c: &Client) -> Outcome {
    goto(c, 8).await?;
    wait_for(c, "[data-testid=request-view][data-offset='8']").await?;
    keys(c, "d").await?;
    wait_for(c, "[data-testid=diff-problem]").await?;
    let text = text_of(c, "[data-testid=diff-problem]").await?;
    check(
        text.contains("first request"),
        &format!("the view says why there is no diff: {text}"),
    )?;
    wait_for(c, "[data-testid=prefix-chart]").await?;
    let bars = js(
        c,
        "return document.querySelectorAll('[data-testid=prefix-bar]').length;",
    )
    .await?;
    check(bars == 3, &format!("one bar per demo request: {bars}"))?;
    screenshot(c, "diff-04-first-request").await?;
    // `d` again goes back to the request.
    keys(c, "d").await?;
    wait_for(c, "[data-testid=request-view][data-offset='8']")
        .await
        .map(drop)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display, WebKitWebDriver and tauri-driver: run `make e2e`"]
async fn diff_end_to_end() {
    let harness = Harness::start(&[]);
    let port = harness.port;
    let mut out = Vec::new();
    let c1 = harness.cache.clone();
    out.push(
        scenario(port, "diff-keyed-republish", &[], |c| async move {
            let r = keyed_republish(&c, &c1).await;
            (c, r)
        })
        .await,
    );
    let c2 = harness.cache.clone();
    out.push(
        scenario(port, "diff-compaction-chart", &[], |c| async move {
            let r = compaction_and_chart(&c, &c2).await;
            (c, r)
        })
        .await,
    );
    out.push(
        scenario(port, "diff-first-request", &[], |c| async move {
            let r = first_request(&c).await;
            (c, r)
        })
        .await,
    );
    assert_all(out, "diff end-to-end scenarios");
}
