//! End-to-end: search with n/N, a breakpoint run with F8/F7 landing where the CLI's
//! `break --json` says, a SQL console query, and a bookmark added with `m` and jumped to with
//! `u`, on the bundled iterate demo. Run by scripts/e2e.sh; screenshots go to
//! target/e2e-screenshots/.

use std::path::Path;
use std::process::Command;

use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::Client;
use serde_json::Value;

use crate::common::*;

const F7: char = '\u{E037}';
const F8: char = '\u{E038}';
const ENTER: char = '\u{E007}';
const KEY: &str = "github/review-task";

async fn press(c: &Client, key: char) -> Outcome {
    let seq = KeyActions::new("keyboard".into())
        .then(KeyAction::Down { value: key })
        .then(KeyAction::Up { value: key });
    c.perform_actions(seq).await.map_err(err("key"))
}

/// What the CLI says a breakpoint run from `from` stops at, on the same demo.
fn cli_break(cache: &Path, on: &str, from: i64, backward: bool) -> Result<Option<i64>, String> {
    let from = from.to_string();
    let mut args = vec!["break", "demo", "--from", &from, "--on", on, "--json"];
    if backward {
        args.push("--backward");
    }
    let out = Command::new(cli_binary())
        .env("JOURNALSCOPE_CACHE_DIR", cache)
        .args(&args)
        .output()
        .map_err(|e| format!("run the CLI: {e}"))?;
    let v: Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        format!(
            "break --json: {e}: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    Ok(v["hit"]["offset"].as_i64())
}

async fn search_text(c: &Client) -> Result<String, String> {
    text_of(c, "[data-testid=search-count]").await
}

/// `/` focuses the search box, Enter jumps to the first hit, n/N step through the others.
async fn search(c: &Client) -> Outcome {
    keys(c, "g").await?;
    wait_selected(c, 1).await?;
    keys(c, "/").await?;
    // The focus moves in the window's next task, so wait for it rather than read it once.
    wait_until(
        c,
        "/ to focus the search box",
        "return document.activeElement?.dataset?.testid === 'search-box';",
    )
    .await?;
    wait_for(c, "[data-testid=search-box]")
        .await?
        .send_keys(&format!("approve{ENTER}"))
        .await
        .map_err(err("type the search"))?;
    wait_selected(c, 4).await?;
    let count = search_text(c).await?;
    check(
        count.contains("1 / 7"),
        &format!("first of seven hits: {count}"),
    )?;
    keys(c, "n").await?;
    wait_selected(c, 15).await?;
    keys(c, "n").await?;
    wait_selected(c, 19).await?;
    keys(c, "N").await?;
    wait_selected(c, 15).await?;
    let count = search_text(c).await?;
    check(
        count.contains("2 / 7"),
        &format!("second of seven hits: {count}"),
    )?;
    screenshot(c, "search-01-hits").await?;
    Ok(())
}

/// F8 and F7 run a "key changes" breakpoint forward and backward, stopping where the CLI does.
async fn breakpoint(c: &Client, cache: &Path) -> Outcome {
    js(
        c,
        "const s = document.querySelector('[data-testid=break-kind]'); s.value = 'key'; s.dispatchEvent(new Event('change')); return true;",
    )
    .await?;
    wait_for(c, "[data-testid=break-arg]")
        .await?
        .send_keys(KEY)
        .await
        .map_err(err("type the key"))?;
    // Escape leaves the field so that F8 reaches the window.
    press(c, '\u{E00C}').await?;
    keys(c, "g").await?;
    wait_selected(c, 1).await?;
    let on = format!("key:{KEY}");
    let mut at = 1;
    let mut stops = Vec::new();
    for _ in 0..3 {
        let expected = cli_break(cache, &on, at, false)?
            .ok_or_else(|| format!("the CLI finds a hit after @{at}"))?;
        press(c, F8).await?;
        wait_selected(c, expected).await?;
        stops.push(expected);
        at = expected;
    }
    check(
        stops == [6, 7, 17],
        &format!("F8 stops at each change of the key: {stops:?}"),
    )?;
    wait_for(c, "[data-testid=legend-breaks]").await?;
    let notice = text_of(c, "[data-testid=notice]").await?;
    check(
        notice.contains("breakpoint @17"),
        &format!("the footer says why it stopped: {notice}"),
    )?;
    screenshot(c, "search-02-breakpoint-f8").await?;
    let back = cli_break(cache, &on, at, true)?.ok_or("the CLI finds a hit before @17")?;
    press(c, F7).await?;
    wait_selected(c, back).await?;
    check(back == 7, &format!("F7 runs back to @7, not @{back}"))?;
    Ok(())
}

/// `s` opens the console; a query over the events view shows as a text table.
async fn console(c: &Client) -> Outcome {
    keys(c, "s").await?;
    wait_for(c, "[data-testid=sql-console]").await?;
    js(
        c,
        "const t = document.querySelector('[data-testid=sql-input]'); t.value = \"SELECT offset, type FROM events WHERE type LIKE '%settled' ORDER BY seq\"; t.dispatchEvent(new Event('input')); return true;",
    )
    .await?;
    wait_for(c, "[data-testid=sql-run]")
        .await?
        .click()
        .await
        .map_err(err("run"))?;
    wait_until(
        c,
        "the console result",
        "return (document.querySelector('[data-testid=sql-result]')?.textContent ?? '').includes('(3 rows)');",
    )
    .await?;
    let table = text_of(c, "[data-testid=sql-result]").await?;
    check(
        table.contains("offset | type")
            && table.contains("23     | events.iterate.com/agent/llm-request-settled"),
        &format!("a text table of the settled requests: {table}"),
    )?;
    // A write is refused with its code.
    js(
        c,
        "const t = document.querySelector('[data-testid=sql-input]'); t.value = 'DELETE FROM events'; t.dispatchEvent(new Event('input')); return true;",
    )
    .await?;
    wait_for(c, "[data-testid=sql-run]")
        .await?
        .click()
        .await
        .map_err(err("run"))?;
    let refused = text_of(c, "[data-testid=sql-error]").await?;
    check(
        refused.starts_with("refused"),
        &format!("a write is refused: {refused}"),
    )?;
    screenshot(c, "search-03-sql-console").await?;
    Ok(())
}

/// `m` bookmarks the selection with a note, `u` jumps back to it, and the CLI sees it.
async fn bookmark(c: &Client, cache: &Path) -> Outcome {
    goto(c, 7).await?;
    keys(c, "m").await?;
    wait_for(c, "[data-testid=bookmark-note]")
        .await?
        .send_keys(&format!("coalesced @6{ENTER}"))
        .await
        .map_err(err("type the note"))?;
    keys(c, "b").await?;
    keys(c, "G").await?;
    wait_selected(c, 33).await?;
    keys(c, "U").await?;
    wait_selected(c, 7).await?;
    keys(c, "g").await?;
    wait_selected(c, 1).await?;
    keys(c, "u").await?;
    wait_selected(c, 7).await?;
    // The list is read after stepping: right after `m` it can still show the note-less entry
    // (a refresh lag noted for the next person).
    let _ = wait_until(
        c,
        "the bookmark in the list",
        "const l = document.querySelector('[data-testid=bookmark-list]'); return !!l && l.textContent.includes('coalesced @6');",
    )
    .await;
    // textContent, not WebDriver's rendered text, which WebKit computes without the note.
    let list = js(
        c,
        "return document.querySelector('[data-testid=bookmark-list]')?.textContent ?? '';",
    )
    .await?
    .as_str()
    .unwrap_or_default()
    .to_string();
    check(
        list.contains("@7") && list.contains("coalesced @6"),
        &format!("the list shows the bookmark: {list}"),
    )?;
    screenshot(c, "search-04-bookmark").await?;
    let out = Command::new(cli_binary())
        .env("JOURNALSCOPE_CACHE_DIR", cache)
        .args(["bookmarks", "demo", "--json"])
        .output()
        .map_err(|e| format!("run the CLI: {e}"))?;
    let listed: Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
    check(
        listed[0]["offset"] == 7 && listed[0]["note"] == "coalesced @6",
        &format!("saved with the journal's database: {listed}"),
    )?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display, WebKitWebDriver and tauri-driver: run `make e2e`"]
async fn search_end_to_end() {
    let harness = Harness::start(&[]);
    let cache = harness.cache.clone();
    let mut out = Vec::new();
    let c1 = cache.clone();
    out.push(
        scenario(
            harness.port,
            "search-search-and-break",
            &[],
            |c| async move {
                let r = async {
                    search(&c).await?;
                    breakpoint(&c, &c1).await
                }
                .await;
                (c, r)
            },
        )
        .await,
    );
    let c2 = cache.clone();
    out.push(
        scenario(
            harness.port,
            "search-console-and-bookmark",
            &[],
            |c| async move {
                let r = async {
                    console(&c).await?;
                    bookmark(&c, &c2).await
                }
                .await;
                (c, r)
            },
        )
        .await,
    );
    assert_all(out, "search end-to-end scenarios");
}
