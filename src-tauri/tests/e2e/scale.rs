//! The window on a large journal: a generated 200,000-event iterate journal (and a Claude Code
//! session of as many lines, and an AG-UI thread of 25,000 messages) is opened in the
//! app, then the test prints how long the journal took to show after its import, how fast a
//! held `j` steps (measured in the page), how long frames took meanwhile, the app's memory
//! after the views of 1,000 random offsets, and whether scrolling the whole list keeps the DOM
//! bounded. Figures are printed, never asserted as timings (a shared 2-core machine); what is
//! asserted is correctness (every step lands, the last offset shows, every view answers)
//! and that the list stays virtualised (a bounded number of row elements).
//!
//! The journals come from `journalscope gen --events N --seed S -o FILE` (the generator
//! crate's `write_journal`, same bytes, when the CLI binary is not built).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::Client;
use serde_json::Value;

use crate::common::*;

/// Events in the generated journal, unless `JOURNALSCOPE_SCALE_EVENTS` asks for another size
/// (a million, say, to measure the app's memory at the size the benchmarks use).
fn events() -> u64 {
    std::env::var("JOURNALSCOPE_SCALE_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000)
}
/// `j` presses sent in one burst, as a held key's auto-repeat would send them.
const PRESSES: usize = 300;
/// Row elements the list may hold at once: a screenful plus overscan, far below the journal.
const ROW_BOUND: u64 = 200;
/// Message rows the AG-UI pane may hold at once: its list's screenful plus overscan.
const MESSAGE_ROW_BOUND: u64 = 40;
/// Messages in the long AG-UI thread, and messages without an id its snapshot adds (each
/// raises a diagnostic at that one step).
const THREAD_MESSAGES: u64 = 25_000;
const THREAD_DIAGNOSTICS: u64 = 5_000;
/// Views asked for at random offsets before the app's memory is read.
const RANDOM_OFFSETS: u64 = 1_000;

/// Writes `events` events of `dialect` with `journalscope gen` (the library generator it runs
/// when the CLI binary is not built).
fn generate(path: &Path, dialect: &str, events: u64) {
    let started = Instant::now();
    let by_cli = Command::new(cli_binary())
        .args(["gen", "--events", &events.to_string(), "--seed", "7"])
        .args(["--dialect", dialect, "-o"])
        .arg(path)
        .output()
        .is_ok_and(|o| o.status.success());
    if !by_cli {
        let options = journalscope_gen::GenOptions {
            dialect: journalscope_registry::dialect::Dialect::parse(dialect)
                .expect("a dialect the generator writes"),
            events,
            seed: 7,
            contract: journalscope_gen::ContractName::Seed,
        };
        let file = std::fs::File::create(path).expect("create the journal");
        let mut out = std::io::BufWriter::new(file);
        journalscope_gen::write_journal(&mut out, &options).expect("write the journal");
        std::io::Write::flush(&mut out).expect("flush the journal");
    }
    eprintln!(
        "scale: generated {events} {dialect} events ({} bytes) with {} in {:.1} s",
        std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
        if by_cli {
            "`journalscope gen`"
        } else {
            "journalscope_gen"
        },
        started.elapsed().as_secs_f64()
    );
}

fn ms(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

/// From the end of the import to the first frame showing the list and the projection, from the
/// marks the UI leaves (session.svelte.ts); then `G` to the projection at the last offset and a
/// go-to to the middle, each answered from the store.
async fn time_to_visible(c: &Client) -> Outcome {
    // The shown mark waits for a frame, which can come after the list is already there.
    let _ = wait_until(
        c,
        "the first frame's mark",
        "return performance.getEntriesByName('journalscope:shown').length > 0;",
    )
    .await;
    let marks = js(
        c,
        "const m = (n) => performance.getEntriesByName(n)[0]?.startTime ?? null; \
         return [m('journalscope:imported'), m('journalscope:shown'), document.querySelectorAll('[data-testid=event-row]').length];",
    )
    .await?;
    let shown = ms(&marks[1]) - ms(&marks[0]);
    if shown.is_nan() {
        eprintln!("scale: import finished → first view: not measured (the page has no marks)");
    } else {
        eprintln!(
            "scale: import finished → list and first projection shown: {shown:.0} ms ({} rows in the DOM)",
            marks[2]
        );
    }
    let last = js(
        c,
        "return Number(document.querySelector('[data-testid=file-offsets]')?.dataset.last ?? NaN);",
    )
    .await?;
    let started = Instant::now();
    keys(c, "G").await?;
    let last = last.as_i64().ok_or("the title bar names the last offset")?;
    wait_until(
        c,
        "the projection at the last offset",
        &format!(
            "const d = document.querySelector('[data-testid=detail]'); const p = document.querySelector('[data-testid=projection], [data-testid=request-view]'); \
             return !!d && d.dataset.offset === '{last}' && !!p && (p.dataset.at ?? p.dataset.offset) === '{last}';"
        ),
    )
    .await?;
    eprintln!(
        "scale: G → projection at the last offset @{last} shown: {:.0} ms (includes WebDriver round trips)",
        started.elapsed().as_secs_f64() * 1000.0
    );
    screenshot(c, "scale-01b-last").await?;
    title_bar_is_one_line(c).await?;
    middle(c).await
}

/// At 1280 px, with a long file name and the live controls, the title bar keeps to one line: it used to wrap the file name, the event count and
/// the offsets onto two lines and push the whole window down.
async fn title_bar_is_one_line(c: &Client) -> Outcome {
    let sizes = js(
        c,
        "const bar = document.querySelector('header.bar'); \
         const kids = [...bar.children].map((k) => k.getBoundingClientRect()).filter((r) => r.height > 0); \
         const name = document.querySelector('[data-testid=file-name]'); \
         return { bar: bar.getBoundingClientRect().height, lowestTop: Math.max(...kids.map((r) => r.top)), \
                  highestBottom: Math.min(...kids.map((r) => r.bottom)), \
                  name: name.getBoundingClientRect().height, \
                  wrapped: [...bar.querySelectorAll('span')].filter((t) => t.getBoundingClientRect().height >= 1.5 * (parseFloat(getComputedStyle(t).lineHeight) || 20)).map((t) => t.textContent.trim()) };",
    )
    .await?;
    let figure = |key: &str| sizes[key].as_f64().unwrap_or(f64::NAN);
    eprintln!(
        "scale: title bar {:.0} px high, the file name {:.0} px",
        figure("bar"),
        figure("name"),
    );
    // On one line, every item starts above the bottom of every other.
    if figure("lowestTop") >= figure("highestBottom") || figure("lowestTop").is_nan() {
        return Err(format!("the title bar wraps onto a second line: {sizes}"));
    }
    if sizes["wrapped"]
        .as_array()
        .is_none_or(|wrapped| !wrapped.is_empty())
    {
        return Err(format!("text in the title bar wraps: {sizes}"));
    }
    Ok(())
}

/// Goes to the middle of the journal: the view there shows by itself (the projection, or the
/// request when the event is one).
async fn middle(c: &Client) -> Outcome {
    let middle = c
        .execute_async(
            "const done = arguments[arguments.length - 1]; \
             window.__TAURI_INTERNALS__.invoke('events_page', { query: { types: [], text: null, start: arguments[0], limit: 1 } }) \
               .then((p) => done(p.rows[0]?.offset ?? null), () => done(null));",
            vec![Value::from(events() / 2)],
        )
        .await
        .map_err(err("the middle event"))?
        .as_i64()
        .ok_or("the middle event has an offset")?;
    let started = Instant::now();
    goto(c, middle).await?;
    wait_until_within(
        c,
        "the view in the middle of the journal",
        &format!(
            "const p = document.querySelector('[data-testid=projection], [data-testid=request-view]'); return !!p && (p.dataset.at ?? p.dataset.offset) === '{middle}';"
        ),
        Duration::from_secs(120),
    )
    .await?;
    eprintln!(
        "scale: go to @{middle}, the middle: its view shown {:.0} ms later",
        started.elapsed().as_secs_f64() * 1000.0
    );
    Ok(())
}

/// The views of 1,000 random offsets, asked for as stepping asks for them (the `step` question
/// at a random `seq`: a projection, or a conversation for a transcript), each answer from the
/// store and leave the app's process small. Its resident size is printed (the target is a
/// benchmark figure, not asserted here).
async fn random_views(c: &Client, cache: &Path) -> Outcome {
    let pid = app_pid(cache);
    let before = pid.and_then(memory_kib);
    // Started by one script and read back by another: a single asynchronous script held open
    // for the whole run (up to half a minute) came back once as "Could not parse script
    // result" from WebKitWebDriver, with nothing wrong in the page.
    c.execute(
        "const n = arguments[0], count = arguments[1]; window.__views = null; \
         let x = 12345; const next = () => { x = (x * 1103515245 + 12345) % 2147483648; return x % count; }; \
         (async () => { const t0 = performance.now(); let failed = null; \
           for (let i = 0; i < n; i++) { \
             try { await window.__TAURI_INTERNALS__.invoke('ask', { ask: { ask: 'step', seq: next(), session: null, window: { start: 0, limit: 1000 } } }); } \
             catch (e) { failed = failed ?? JSON.stringify(e); } } \
           window.__views = { ms: performance.now() - t0, failed }; })(); return true;",
        vec![Value::from(RANDOM_OFFSETS), Value::from(events())],
    )
    .await
    .map_err(err("start the views at random offsets"))?;
    // Polled four times a second, so the polling does not weigh on what it measures.
    let deadline = Instant::now() + Duration::from_secs(300);
    let figures = loop {
        let figures = js(c, "return window.__views;").await?;
        if !figures.is_null() {
            break figures;
        }
        if Instant::now() > deadline {
            return Err("the views at random offsets did not finish in 300 s".into());
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    let after = pid.and_then(memory_kib);
    let mib = |m: Option<(u64, u64)>, peak: bool| {
        m.map(|(rss, hwm)| format!("{:.0} MiB", (if peak { hwm } else { rss }) as f64 / 1024.0))
            .unwrap_or_else(|| "not measured".to_string())
    };
    eprintln!(
        "scale: the views at {RANDOM_OFFSETS} random offsets in {:.0} ms ({:.1} ms each, through IPC); the app's process: {} resident before, {} after, {} at its peak",
        ms(&figures["ms"]),
        ms(&figures["ms"]) / RANDOM_OFFSETS as f64,
        mib(before, false),
        mib(after, false),
        mib(after, true),
    );
    check(
        figures["failed"].is_null(),
        &format!(
            "every view at a random offset answers from the store: {}",
            figures["failed"]
        ),
    )
}

/// The app's process this harness started: the one that runs the app binary with this
/// harness's cache directory in its environment (other checkouts may run their own).
fn app_pid(cache: &Path) -> Option<u32> {
    let binary = std::fs::canonicalize(app_binary()).ok()?;
    let wanted = format!("JOURNALSCOPE_CACHE_DIR={}", cache.display());
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .find_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let exe = std::fs::read_link(entry.path().join("exe")).ok()?;
            let environ = std::fs::read(entry.path().join("environ")).ok()?;
            let ours = exe == binary
                && environ
                    .split(|b| *b == 0)
                    .any(|var| var == wanted.as_bytes());
            ours.then_some(pid)
        })
}

/// A process's resident and peak resident size, in KiB, from `/proc/PID/status`.
fn memory_kib(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

/// Records, in the page, when the selection changes and how long each animation frame takes.
const RECORDER: &str = "const d = document.querySelector('[data-testid=detail]'); \
    window.__steps = []; window.__frames = []; window.__recording = true; \
    new MutationObserver(() => window.__steps.push(performance.now())) \
      .observe(d, { attributes: true, attributeFilter: ['data-seq'] }); \
    let last = performance.now(); \
    const frame = (t) => { window.__frames.push(t - last); last = t; if (window.__recording) requestAnimationFrame(frame); }; \
    requestAnimationFrame(frame); return true;";

/// Frames for a second with `change` applied to the page at each one (`n` counts them), then
/// undone: how long a frame takes here when that is all that changes.
fn pace_script(change: &str, undo: &str) -> String {
    format!(
        "return await new Promise((done) => {{ const f = []; let last = performance.now(); \
           const t0 = last; let n = 0; \
           const tick = (t) => {{ f.push(t - last); last = t; n++; {change}; \
             if (t - t0 < 1000) {{ requestAnimationFrame(tick); return; }} \
             {undo}; f.sort((a, b) => a - b); \
             done({{ frames: f.length, longFrames: f.filter((x) => x > 34).length, \
                    medianMs: f[f.length >> 1], worstMs: f[f.length - 1] }}); }}; \
           requestAnimationFrame(tick); }});"
    )
}

/// What a frame costs on this display before the app does anything: at rest, with one line of
/// the detail pane recoloured each frame, and with the whole window's background changed each
/// frame. Under Xvfb, WebKit paints in software, and the frames while stepping only mean
/// something against these.
async fn display_pace(c: &Client) -> Outcome {
    let cases = [
        ("at rest", String::new(), String::new()),
        (
            "one line recoloured a frame",
            "document.querySelector('[data-testid=detail] .meta').style.color = n % 2 ? '#345' : ''"
                .to_string(),
            "document.querySelector('[data-testid=detail] .meta').style.color = ''".to_string(),
        ),
        (
            "whole window repainted a frame",
            "document.body.style.backgroundColor = n % 2 ? '#fefefe' : ''".to_string(),
            "document.body.style.backgroundColor = ''".to_string(),
        ),
    ];
    for (label, change, undo) in cases {
        let pace = js(c, &pace_script(&change, &undo)).await?;
        eprintln!(
            "scale: display pace, {label}: {} frames in 1 s, {} over 34 ms, median {:.0} ms, worst {:.0} ms",
            pace["frames"],
            pace["longFrames"],
            ms(&pace["medianMs"]),
            ms(&pace["worstMs"])
        );
    }
    Ok(())
}

/// A held `j`: many presses in one burst; every one must land, in order.
async fn held_j(c: &Client) -> Outcome {
    keys(c, "g").await?;
    // The first event, whatever its offset (the generator starts at 0).
    wait_until(
        c,
        "the first event",
        "const d = document.querySelector('[data-testid=detail]'); return !!d && d.dataset.seq === '0';",
    )
    .await?;
    display_pace(c).await?;
    js(c, RECORDER).await?;
    let mut burst = KeyActions::new("keyboard".into());
    for _ in 0..PRESSES {
        burst = burst
            .then(KeyAction::Down { value: 'j' })
            .then(KeyAction::Up { value: 'j' });
    }
    let started = Instant::now();
    c.perform_actions(burst).await.map_err(err("held j"))?;
    let sent = started.elapsed();
    wait_until_within(
        c,
        "every j to land",
        &format!(
            "return document.querySelector('[data-testid=detail]').dataset.seq === '{PRESSES}';"
        ),
        Duration::from_secs(120),
    )
    .await?;
    let landed = started.elapsed();
    let figures = js(
        c,
        "window.__recording = false; const s = window.__steps, f = window.__frames.slice(1); \
         const span = s.length > 1 ? s[s.length - 1] - s[0] : 0; \
         return { steps: s.length, spanMs: span, frames: f.length, \
                  longFrames: f.filter((x) => x > 34).length, worstFrameMs: Math.max(0, ...f) };",
    )
    .await?;
    let steps = figures["steps"].as_f64().unwrap_or(0.0);
    // Repeats that arrive while a step renders join it, so the selection is drawn fewer times
    // than j was pressed; what the user feels is how soon it lands after the key is released.
    eprintln!(
        "scale: held j: {PRESSES} presses sent in {:.0} ms; the selection was {PRESSES} events on {:.0} ms after the first ({:.0} events/s), {:.0} ms after the last was sent, drawn {steps} times on the way",
        sent.as_secs_f64() * 1000.0,
        landed.as_secs_f64() * 1000.0,
        PRESSES as f64 / landed.as_secs_f64(),
        (landed - sent).as_secs_f64() * 1000.0,
    );
    eprintln!(
        "scale: frames while stepping: {} frames, {} over 34 ms (two 60 Hz frames), worst {:.0} ms",
        figures["frames"],
        figures["longFrames"],
        ms(&figures["worstFrameMs"])
    );
    Ok(())
}

/// Scrolls the list from top to bottom in at most 400 jumps (a screen each, or more on a list
/// too long to page through a screen at a time in the script's time); the number of row
/// elements stays bounded all the way and the last rows load.
async fn scroll_all(c: &Client) -> Outcome {
    c.update_timeouts(fantoccini::wd::TimeoutConfiguration::new(
        Some(Duration::from_secs(150)),
        None,
        None,
    ))
    .await
    .map_err(err("script timeout"))?;
    let figures = c
        .execute_async(
            "const done = arguments[arguments.length - 1]; \
             const v = document.querySelector('[data-testid=event-list]'); \
             const rows = () => document.querySelectorAll('#app [data-testid=event-row], #app .row.placeholder').length; \
             const mem = () => performance.memory ? performance.memory.usedJSHeapSize : null; \
             const frame = () => new Promise((r) => requestAnimationFrame(() => r())); \
             (async () => { \
               const memStart = mem(); let most = 0; let jumps = 0; const t0 = performance.now(); \
               v.scrollTop = 0; await frame(); \
               const jump = Math.max(v.clientHeight, Math.ceil(v.scrollHeight / 400)); \
               while (v.scrollTop + v.clientHeight < v.scrollHeight - 1) { \
                 v.scrollTop += jump; jumps++; await frame(); most = Math.max(most, rows()); \
               } \
               const elapsed = performance.now() - t0; \
               for (let i = 0; i < 200 && document.querySelector('#app .row.placeholder'); i++) await new Promise((r) => setTimeout(r, 50)); \
               const lastRows = [...document.querySelectorAll('[data-testid=event-row]')]; \
               done({ jumps, most, elapsed, memStart, memEnd: mem(), \
                      lastSeq: lastRows.length ? Number(lastRows[lastRows.length - 1].dataset.seq) : null, \
                      placeholders: document.querySelectorAll('#app .row.placeholder').length }); \
             })();",
            vec![],
        )
        .await
        .map_err(err("scroll the list"))?;
    eprintln!(
        "scale: scrolled the list end to end in {} jumps in {:.0} ms; at most {} row elements; JS heap {} → {}",
        figures["jumps"],
        ms(&figures["elapsed"]),
        figures["most"],
        figures["memStart"],
        figures["memEnd"]
    );
    if figures["memStart"].is_null() {
        eprintln!(
            "scale: WebKit exposes no performance.memory; the bounded row count stands in for it"
        );
    }
    let most = figures["most"].as_u64().unwrap_or(u64::MAX);
    check(
        most > 0 && most <= ROW_BOUND,
        &format!("the list stays virtualised while scrolling: at most {most} row elements (bound {ROW_BOUND})"),
    )?;
    let count = js(
        c,
        "return Number(document.querySelector('.events .count').textContent.replace(/[^0-9]/g, ''));",
    )
    .await?;
    check(
        count.as_u64().is_some_and(|n| n > 0)
            && figures["lastSeq"].as_u64() == count.as_u64().map(|n| n - 1),
        &format!(
            "the bottom of the list is the last of {count} events ({})",
            figures["lastSeq"]
        ),
    )
}

/// Opens a large AG-UI journal (dropped onto the window through the test hook) and cancels
/// it while it is being analysed: the figures move during the analysis, the cancel
/// ends it there, and the journal already open stays.
async fn cancel_while_importing(c: &Client, copy: &Path) -> Outcome {
    let before = text_of(c, "[data-testid=file-name]").await?;
    // The page watches the whole import below; the default script timeout is shorter.
    c.update_timeouts(fantoccini::wd::TimeoutConfiguration::new(
        Some(Duration::from_secs(200)),
        None,
        None,
    ))
    .await
    .map_err(err("script timeout"))?;
    let answer = c
        .execute_async(
            "const done = arguments[arguments.length - 1]; \
             window.__TAURI_INTERNALS__.invoke('simulate_drag', { paths: [arguments[0]], stage: 'drop' }) \
               .then(() => done('ok'), (e) => done(JSON.stringify(e)));",
            vec![Value::String(copy.to_string_lossy().into_owned())],
        )
        .await
        .map_err(err("drop the copy"))?;
    check(
        answer == Value::String("ok".into()),
        &format!("the drop hook answered {answer}"),
    )?;
    // Collects the figures the overlay shows, in the page, until two distinct ones of the
    // storing stage (which folds each record as it stores it) have been seen.
    let seen = c
        .execute_async(
            "const done = arguments[arguments.length - 1]; const seen = []; const t0 = performance.now(); \
             const poll = () => { \
               const f = document.querySelector('[data-testid=import-figures]'); \
               if (f && f.dataset.stage === 'storing' && seen[seen.length - 1] !== f.textContent) seen.push(f.textContent); \
               if (seen.length >= 2 || performance.now() - t0 > 170000) return done(seen); \
               setTimeout(poll, 5); }; \
             poll();",
            vec![],
        )
        .await
        .map_err(err("watch the import"))?;
    let seen: Vec<String> = serde_json::from_value(seen).map_err(|e| e.to_string())?;
    eprintln!("scale: import figures seen before the cancel: {seen:?}");
    check(
        seen.len() >= 2,
        &format!("the figures keep moving while the journal is stored and folded: {seen:?}"),
    )?;
    screenshot(c, "scale-02a-importing").await?;
    wait_for(c, "[data-testid=cancel-import]")
        .await?
        .click()
        .await
        .map_err(err("cancel"))?;
    wait_until(
        c,
        "the cancelled import to go",
        "const n = document.querySelector('[data-testid=notice]'); return !document.querySelector('[data-testid=import-progress]') && !!n && n.textContent.includes('cancelled') && !document.querySelector('[data-testid=error]');",
    )
    .await?;
    let after = text_of(c, "[data-testid=file-name]").await?;
    check(
        after == before,
        &format!("the journal open before the cancelled import stays ({before} → {after})"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display, WebKitWebDriver and tauri-driver: run scripts/e2e.sh"]
async fn scale_end_to_end() {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let journal = scratch.path().join("scale-200k.jsonl");
    generate(&journal, "iterate", events());
    // Every journal is folded as it is stored: the cancel scenario imports a second, long one
    // and cancels it midway.
    let copy = scratch.path().join("scale-200k-copy.jsonl");
    generate(&copy, "iterate", events());
    let hooks = PathBuf::from("1");
    let harness = Harness::start(&[("JOURNALSCOPE_TEST_HOOKS", &hooks)]);
    let args = [journal.to_string_lossy().into_owned()];
    let cache = harness.cache.clone();
    let started = Instant::now();
    let limit = Duration::from_secs(600);
    let outcome = scenario_within(
        harness.port,
        "scale-01-200k",
        &args,
        limit,
        |c| async move {
            eprintln!(
                "scale: window start + import + first view: {:.1} s (debug build)",
                started.elapsed().as_secs_f64()
            );
            let mut r = time_to_visible(&c).await;
            if r.is_ok() {
                r = held_j(&c).await;
            }
            if r.is_ok() {
                r = random_views(&c, &cache).await;
            }
            if r.is_ok() {
                r = scroll_all(&c).await;
            }
            if r.is_ok() {
                r = cancel_while_importing(&c, &copy).await;
            }
            (c, r)
        },
    )
    .await;
    assert_all(vec![outcome], "scale end-to-end");
}

/// The window on a long Claude Code session: a generated session of as many lines as the
/// iterate journal has events opens from the command line, shows its conversation, and answers
/// the conversations at 1,000 random lines from the store; the app's memory is printed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display, WebKitWebDriver and tauri-driver: run scripts/e2e.sh"]
async fn session_scale_end_to_end() {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let journal = scratch.path().join("scale-session.jsonl");
    generate(&journal, "claude-code", events());
    let harness = Harness::start(&[]);
    let args = [journal.to_string_lossy().into_owned()];
    let cache = harness.cache.clone();
    let started = Instant::now();
    let outcome = scenario_within(
        harness.port,
        "scale-02-session",
        &args,
        Duration::from_secs(600),
        |c| async move {
            let mut r = wait_until_within(
                &c,
                "the session's conversation",
                "return !!document.querySelector('[data-testid=conversation]') \
                 && !document.querySelector('[data-testid=import-progress]');",
                Duration::from_secs(300),
            )
            .await
            .map(|_| ());
            eprintln!(
                "scale: a {}-line session imported and its conversation shown in {:.1} s (debug build)",
                events(),
                started.elapsed().as_secs_f64()
            );
            if r.is_ok() {
                r = random_views(&c, &cache).await;
            }
            (c, r)
        },
    )
    .await;
    assert_all(vec![outcome], "session scale end-to-end");
}

/// Writes an AG-UI run of one long thread: `THREAD_MESSAGES` text messages, then a
/// `MESSAGES_SNAPSHOT` of them all and `THREAD_DIAGNOSTICS` more without an id. The generator's
/// threads stay short (its snapshots trim them), so this one is written here. Returns the
/// snapshot's offset.
fn long_thread(path: &Path) -> i64 {
    use std::io::Write;
    let file = std::fs::File::create(path).expect("create the journal");
    let mut out = std::io::BufWriter::new(file);
    line(
        &mut out,
        serde_json::json!({"type": "RUN_STARTED", "threadId": "t-long", "runId": "run-1"}),
    );
    let mut snapshot = Vec::new();
    for i in 1..=THREAD_MESSAGES {
        let id = format!("msg-{i}");
        let role = if i % 2 == 0 { "assistant" } else { "user" };
        let content = format!("message {i} of {THREAD_MESSAGES}\nits second line");
        line(
            &mut out,
            serde_json::json!({"type": "TEXT_MESSAGE_START", "messageId": id, "role": role}),
        );
        line(
            &mut out,
            serde_json::json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": content}),
        );
        line(
            &mut out,
            serde_json::json!({"type": "TEXT_MESSAGE_END", "messageId": id}),
        );
        snapshot.push(serde_json::json!({"id": id, "role": role, "content": content}));
    }
    for k in 1..=THREAD_DIAGNOSTICS {
        snapshot.push(serde_json::json!({"role": "user", "content": format!("no id {k}")}));
    }
    line(
        &mut out,
        serde_json::json!({"type": "MESSAGES_SNAPSHOT", "messages": snapshot}),
    );
    line(
        &mut out,
        serde_json::json!({"type": "RUN_FINISHED", "threadId": "t-long", "runId": "run-1"}),
    );
    out.flush().expect("flush the journal");
    (3 * THREAD_MESSAGES + 2) as i64
}

/// Writes one event as a line of the journal.
fn line(out: &mut impl std::io::Write, event: Value) {
    writeln!(out, "{event}").expect("write an event");
}

/// The rows a list of the AG-UI pane holds, and the length it says it has.
async fn list_figures(c: &Client, testid: &str) -> Result<(u64, u64), String> {
    let seen = js(
        c,
        &format!(
            "const v = document.querySelector('[data-testid={testid}]'); \
             return {{ total: Number(v.dataset.total), rows: v.querySelectorAll('[role=option]').length }};"
        ),
    )
    .await?;
    Ok((
        seen["total"].as_u64().unwrap_or(0),
        seen["rows"].as_u64().unwrap_or(u64::MAX),
    ))
}

/// The AG-UI pane on a long thread: at the snapshot both its lists hold a screenful of rows,
/// scrolling the message list to the bottom reads the last page and shows the last message,
/// a number typed into "go to" lands on that message, and a focused diagnostic list's End goes
/// to its last diagnostic without moving the journal's selection.
async fn agui_thread(c: &Client, snapshot: i64) -> Outcome {
    goto(c, snapshot).await?;
    wait_until_within(
        c,
        "the snapshot's message and diagnostic lists",
        "return !!document.querySelector('[data-testid=agui-messages] [data-testid=agui-message]') \
           && !!document.querySelector('[data-testid=agui-diagnostics] [data-testid=agui-diagnostic]');",
        Duration::from_secs(120),
    )
    .await?;
    let messages = THREAD_MESSAGES + THREAD_DIAGNOSTICS;
    for (testid, total) in [
        ("agui-messages", messages),
        ("agui-diagnostics", THREAD_DIAGNOSTICS),
    ] {
        let (said, rows) = list_figures(c, testid).await?;
        eprintln!("scale: AG-UI snapshot step: {testid} of {said}, {rows} rows in the DOM");
        check(said == total, &format!("{testid} counts {total}: {said}"))?;
        check(
            rows > 0 && rows <= MESSAGE_ROW_BOUND,
            &format!("{testid} holds a screenful of rows: {rows} (bound {MESSAGE_ROW_BOUND})"),
        )?;
    }
    screenshot(c, "scale-03a-agui-thread").await?;
    // Scrolled to the bottom, the last page is read and the last message drawn.
    js(
        c,
        "const v = document.querySelector('[data-testid=agui-messages]'); v.scrollTop = v.scrollHeight; return true;",
    )
    .await?;
    wait_until_within(
        c,
        "the last message row",
        &format!(
            "const v = document.querySelector('[data-testid=agui-messages]'); \
             return !!v.querySelector('[data-row=\"{last}\"] [data-testid=agui-message]') \
               && v.querySelectorAll('[role=option]').length <= {MESSAGE_ROW_BOUND};",
            last = messages - 1
        ),
        Duration::from_secs(60),
    )
    .await?;
    screenshot(c, "scale-03b-agui-thread-end").await?;
    // A number typed into "go to" moves the cursor there, brings it into view and shows it whole.
    let middle = THREAD_MESSAGES / 2;
    let jump = wait_for(c, "[data-testid=agui-messages-jump]").await?;
    jump.send_keys(&format!(
        "{}{}",
        middle + 1,
        char::from(fantoccini::key::Key::Enter)
    ))
    .await
    .map_err(err("type a message number"))?;
    wait_until_within(
        c,
        "the message jumped to",
        &format!(
            "const r = document.querySelector('[data-testid=agui-messages] [data-row=\"{middle}\"]'); \
             const w = document.querySelector('[data-testid=agui-message-whole]'); \
             return !!r && r.getAttribute('aria-selected') === 'true' && !!r.querySelector('[data-testid=agui-message]') \
               && !!w && w.textContent.includes('message {n} of');",
            n = middle + 1
        ),
        Duration::from_secs(60),
    )
    .await?;
    // The diagnostic list's own End: its last row, and the journal's selection stays.
    click(c, "[data-testid=agui-diagnostics] [data-row]").await?;
    keys(c, &char::from(fantoccini::key::Key::End).to_string()).await?;
    wait_until(
        c,
        "the last diagnostic",
        &format!(
            "const r = document.querySelector('[data-testid=agui-diagnostics] [data-row=\"{}\"]'); \
             return !!r && r.getAttribute('aria-selected') === 'true';",
            THREAD_DIAGNOSTICS - 1
        ),
    )
    .await?;
    screenshot(c, "scale-03c-agui-keys").await?;
    check(
        selected_offset(c).await? == Some(snapshot),
        "End in the focused list moved the list, not the journal's selection",
    )
}

/// The window on a long AG-UI thread: its message and diagnostic lists stay a screenful of rows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display, WebKitWebDriver and tauri-driver: run scripts/e2e.sh"]
async fn agui_thread_scale_end_to_end() {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let journal = scratch.path().join("scale-agui.ndjson");
    let snapshot = long_thread(&journal);
    let harness = Harness::start(&[]);
    let args = [journal.to_string_lossy().into_owned()];
    let outcome = scenario_within(
        harness.port,
        "scale-03-agui",
        &args,
        Duration::from_secs(600),
        |c| async move {
            let mut r = wait_until_within(
                &c,
                "the journal's list",
                "return !!document.querySelector('[data-testid=event-row]') \
                 && !document.querySelector('[data-testid=import-progress]');",
                Duration::from_secs(300),
            )
            .await
            .map(|_| ());
            if r.is_ok() {
                r = agui_thread(&c, snapshot).await;
            }
            (c, r)
        },
    )
    .await;
    assert_all(vec![outcome], "AG-UI thread scale end-to-end");
}
