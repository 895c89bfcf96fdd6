//! End-to-end tests of reports and sharing in the real window: the context-size plot on the
//! demo (one bar per request, the compaction and the prefix break marked, a click selects the
//! request) and "Export…" of an HTML report and a JSONL slice, byte for byte what the CLI's
//! `report -o` and `slice -o` write. Ignored by a plain `cargo test`; scripts/e2e.sh runs it.

use std::path::Path;

use fantoccini::{Client, Locator};

use crate::common::*;

/// `x` opens the plot: a bar per request of the demo (@8, @21, @29), the compaction before @29
/// and the prefix breaks marked, and a click on a bar selects that request.
async fn plot(c: &Client) -> Outcome {
    keys(c, "x").await?;
    wait_for(c, "[data-testid=context-plot]").await?;
    wait_until(
        c,
        "the plot's bars",
        "return document.querySelectorAll('[data-testid=context-bar]').length > 0;",
    )
    .await?;
    let bars = c
        .find_all(Locator::Css("[data-testid=context-bar]"))
        .await
        .map_err(err("bars"))?;
    let mut offsets = Vec::new();
    for bar in &bars {
        offsets.push(attr(bar, "data-offset").await?);
    }
    check(
        offsets == ["8", "21", "29"],
        &format!("one bar per request of the demo, in order: {offsets:?}"),
    )?;
    let compactions = c
        .find_all(Locator::Css("[data-testid=context-compaction]"))
        .await
        .map_err(err("compaction marks"))?;
    check(
        compactions.len() == 1,
        &format!(
            "the demo's one compaction is marked ({} marks)",
            compactions.len()
        ),
    )?;
    let breaks = c
        .find_all(Locator::Css("[data-testid=context-break]"))
        .await
        .map_err(err("break marks"))?;
    check(
        breaks.len() == 2,
        &format!(
            "both prefix breaks are marked: @21 (a new system item) and @29 (the compaction); {} marks",
            breaks.len()
        ),
    )?;
    let title = js(
        c,
        "return document.querySelector(\"[data-testid=context-bar][data-offset='29'] title\").textContent;",
    )
    .await?;
    check(
        title.as_str().unwrap_or("").contains("prefix break"),
        &format!("the bar's title explains the break: {title}"),
    )?;
    // In tokens, with the reported input drawn over the two requests that report one.
    let unit = text_of(c, "[data-testid=context-plot-unit]").await?;
    check(
        unit.starts_with("tokens of the messages")
            && unit.contains("o200k_base, the encoding of gpt-5.1"),
        &format!("the plot names its unit and tokenizer: {unit}"),
    )?;
    let reported = js(
        c,
        "return [...document.querySelectorAll('[data-testid=context-reported]')].map(l => l.closest('[data-testid=context-bar]').dataset.offset);",
    )
    .await?;
    check(
        reported == serde_json::json!(["8", "21"]),
        &format!("@8 and @21 have their reported input drawn; @29 reports none: {reported}"),
    )?;
    let title21 = js(
        c,
        "return document.querySelector(\"[data-testid=context-bar][data-offset='21'] title\").textContent;",
    )
    .await?;
    check(
        title21
            .as_str()
            .unwrap_or("")
            .starts_with("@21 · 12 messages · 578 tokens")
            && title21.as_str().unwrap_or("").contains("reported 578"),
        &format!("@21's bar says its tokens and the reported input: {title21}"),
    )?;
    screenshot(c, "reports-01a-plot").await?;
    click_at(c, "[data-testid=context-bar][data-offset='21'] rect.hit").await?;
    wait_selected(c, 21).await?;
    wait_until(
        c,
        "the request view of @21",
        "const r = document.querySelector('[data-testid=request-view]'); return !!r && r.dataset.offset === '21';",
    )
    .await?;
    wait_until(
        c,
        "the bar of @21 marked selected",
        "const b = document.querySelector(\"[data-testid=context-bar][data-offset='21']\"); return !!b && b.classList.contains('selected');",
    )
    .await?;
    // The plot stays open under the request, and `x` hides it again.
    keys(c, "x").await?;
    wait_until(
        c,
        "the plot to close",
        "return !document.querySelector('[data-testid=context-plot]');",
    )
    .await?;
    keys(c, "x").await?;
    wait_for(c, "[data-testid=context-plot]").await?;
    Ok(())
}

async fn export_through_dialog(c: &Client, kind: &str, range: Option<(i64, i64)>) -> Outcome {
    wait_for(c, "[data-testid=export-button]")
        .await?
        .click()
        .await
        .map_err(err("Export…"))?;
    wait_for(c, "[data-testid=export-dialog]").await?;
    // Regression: the dialog opened without focus, so the keyboard could not reach it.
    wait_until(
        c,
        "focus in the export dialog",
        "return document.activeElement?.getAttribute('data-testid') === 'export-kind-report';",
    )
    .await?;
    wait_for(c, &format!("[data-testid=export-kind-{kind}]"))
        .await?
        .click()
        .await
        .map_err(err("kind"))?;
    if let Some((from, to)) = range {
        wait_for(c, "[data-testid=export-range]")
            .await?
            .click()
            .await
            .map_err(err("range"))?;
        for (field, value) in [("export-from", from), ("export-to", to)] {
            let input = wait_for(c, &format!("[data-testid={field}]")).await?;
            input.clear().await.map_err(err("clear"))?;
            input
                .send_keys(&value.to_string())
                .await
                .map_err(err("type offset"))?;
        }
    }
    screenshot(c, &format!("reports-02-dialog-{kind}")).await?;
    wait_for(c, "[data-testid=export-go]")
        .await?
        .click()
        .await
        .map_err(err("export"))?;
    wait_until(
        c,
        "the export notice",
        "const n = document.querySelector('[data-testid=notice]'); return !!n && n.textContent.startsWith('exported') && !document.querySelector('[data-testid=export-dialog]');",
    )
    .await?;
    Ok(())
}

/// "Export…" writes the same report and slice as the CLI.
async fn export(c: &Client, exported: &Path, cache: &Path) -> Outcome {
    let _ = std::fs::remove_file(exported);
    export_through_dialog(c, "report", None).await?;
    let ours = std::fs::read(exported).map_err(|e| format!("exported report: {e}"))?;
    let theirs = cli_written(
        cache,
        &["report", "demo"],
        &exported.with_extension("cli.html"),
    )?;
    check(
        ours == theirs,
        &format!(
            "the exported report equals the CLI's ({} vs {} bytes)",
            ours.len(),
            theirs.len()
        ),
    )?;
    let text = String::from_utf8_lossy(&ours);
    check(
        !text.contains("<script") && text.contains("id=\"context-chart\""),
        "the exported report is the self-contained one, with its chart",
    )?;
    let report_copy = exported.with_extension("report.html");
    std::fs::write(&report_copy, &ours).map_err(|e| format!("keep the report: {e}"))?;

    let _ = std::fs::remove_file(exported);
    export_through_dialog(c, "slice", Some((3, 8))).await?;
    let ours = std::fs::read(exported).map_err(|e| format!("exported slice: {e}"))?;
    let theirs = cli_written(
        cache,
        &["slice", "demo", "--from", "3", "--to", "8"],
        &exported.with_extension("cli.jsonl"),
    )?;
    check(
        ours == theirs,
        &format!(
            "the exported slice equals the CLI's ({} vs {} bytes)",
            ours.len(),
            theirs.len()
        ),
    )?;
    check(
        ours.split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .count()
            == 6,
        "@3 … @8 is six lines of the demo",
    )?;
    // A look at the report itself, for people reading the screenshots: the webview may refuse
    // to leave the app, which is no failure of the export.
    let url = format!("file://{}", report_copy.display());
    if tokio::time::timeout(std::time::Duration::from_secs(10), c.goto(&url))
        .await
        .is_ok_and(|r| r.is_ok())
    {
        let _ = screenshot(c, "reports-04-report-html").await;
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display, WebKitWebDriver and tauri-driver: run `make e2e`"]
async fn reports_end_to_end() {
    let export_dir = tempfile::tempdir().expect("temp export dir");
    let exported = export_dir.path().join("exported");
    let harness = Harness::start(&[("JOURNALSCOPE_EXPORT_PATH", &exported)]);
    let port = harness.port;
    let mut outcomes = Vec::new();
    outcomes.push(
        scenario(port, "reports-01-plot", &[], |c| async move {
            let r = plot(&c).await;
            (c, r)
        })
        .await,
    );
    let (file, cache) = (exported.clone(), harness.cache.clone());
    outcomes.push(
        scenario(port, "reports-03-export", &[], |c| async move {
            let r = export(&c, &file, &cache).await;
            (c, r)
        })
        .await,
    );
    assert_all(outcomes, "reports end-to-end scenarios");
}
