//! Reports and slices: context sizes on the demo, the HTML report (golden on the demo,
//! self-contained, well-formed, hostile text escaped, bounded on large journals), the JSONL
//! slice (whole range is the file, any slice re-imports into the same events), and the
//! `sizes` / `report` / `slice` commands on text and `--json`.
//!
//! The golden file is tests/fixtures/report/iterate-demo.html; after a deliberate change,
//! rewrite it with `JOURNALSCOPE_BLESS=1 cargo test --test journal report_exports` and review the diff.

use std::path::{Path, PathBuf};
use std::process::Command;

use journalscope::import::{ImportControl, ImportProgress};
use journalscope::journal::{Demo, Journal};
use journalscope::report::{self, html, slice, OffsetRange};
use journalscope_iterate::iterate::Transport;
use proptest::prelude::*;
use serde_json::{json, Value};

use crate::support::cli;
use cli::Cli;

mod slices;

fn open_at(path: &Path, db: &Path) -> Journal {
    let mut progress = |_: ImportProgress| {};
    Journal::open(
        path,
        Some(db),
        &mut ImportControl {
            progress: &mut progress,
            cancel: None,
        },
    )
    .expect("the journal opens")
}

/// Writes `bytes` as `name` in `dir` and opens it with a database of its own.
fn open_bytes(dir: &Path, name: &str, bytes: &[u8]) -> Journal {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write the journal");
    open_at(&path, &dir.join(format!("{name}.sqlite")))
}

fn demo(dir: &Path) -> Journal {
    open_bytes(
        dir,
        "iterate-demo.jsonl",
        Demo::named("iterate").expect("the iterate demo").bytes(),
    )
}

const PREFIX: &str = "events.iterate.com/agent/";

fn line(offset: i64, short: &str, payload: Value) -> String {
    json!({
        "offset": offset,
        "type": format!("{PREFIX}{short}"),
        "payload": payload,
        "createdAt": format!("2026-01-01T00:00:{:02}Z", offset % 60),
    })
    .to_string()
}

fn journal_text(lines: &[String]) -> String {
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

// ---------------------------------------------------------------- context sizes

#[test]
fn given_the_demo_when_sizes_are_measured_then_each_request_has_its_lanes_and_marks() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = demo(dir.path());
    let sizes = report::context_sizes(&journal, OffsetRange::all(), Transport::Openai)
        .expect("sizes of the demo");
    let offsets: Vec<i64> = sizes.iter().map(|s| s.request_offset).collect();
    assert_eq!(offsets, vec![8, 21, 29], "one bar per request of the demo");
    for s in &sizes {
        assert_eq!(
            s.total_bytes,
            s.frame_bytes + s.system_bytes + s.history_bytes + s.summary_bytes,
            "the lanes add up to the total at @{}",
            s.request_offset
        );
        let snapshot = journal
            .request(s.request_offset, Transport::Openai)
            .expect("snapshot");
        let content: u64 = snapshot
            .messages
            .iter()
            .map(|m| m.content.len() as u64)
            .sum();
        assert_eq!(
            s.total_bytes, content,
            "the total is the bytes of the message contents at @{}",
            s.request_offset
        );
        let counted = journalscope_iterate::iterate::tokens::count_messages(
            snapshot.model.as_deref(),
            &snapshot.messages,
        );
        assert_eq!(
            s.total_tokens, counted.total,
            "the sizes' tokens at @{} are the rendered messages counted afresh, framing included",
            s.request_offset
        );
        assert_eq!(
            s.frame_tokens
                + s.system_tokens
                + s.history_tokens
                + s.summary_tokens
                + s.framing_tokens,
            s.total_tokens,
            "the lanes and the framing add up to the total"
        );
        assert!(
            s.system_bytes > 0,
            "the demo's system prompt is in every request"
        );
    }
    assert!(
        !sizes[0].prefix_break,
        "the first request has nothing to break"
    );
    assert_eq!(
        sizes[0].previous_request, None,
        "the first request has no predecessor"
    );
    assert_eq!(sizes[0].summary_bytes, 0, "no summary before a compaction");
    assert!(
        sizes[1].prefix_break && sizes[1].first_changed_message == Some(2),
        "@21 adds a system item, which sits before history: @8's messages stop being a prefix at message 2"
    );
    let last = &sizes[2];
    assert_eq!(last.compactions_before, 1, "the demo compacts before @29");
    assert!(last.summary_bytes > 0, "@29 carries the compaction summary");
    assert!(
        last.prefix_break,
        "a compaction rewrites history, so @29 cannot start with @21's messages"
    );
    assert!(
        last.common_prefix_bytes > 0,
        "the protocol message is still a common prefix"
    );
    assert_eq!(last.previous_request, Some(21), "@29 is compared with @21");
}

#[test]
fn given_a_range_when_sizes_are_measured_then_the_first_request_is_still_compared_with_its_predecessor(
) {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = demo(dir.path());
    let all = report::context_sizes(&journal, OffsetRange::all(), Transport::Openai).expect("all");
    let tail = report::context_sizes(
        &journal,
        OffsetRange {
            from: Some(22),
            to: None,
        },
        Transport::Openai,
    )
    .expect("range");
    assert_eq!(tail.len(), 1, "only @29 lies in @22 … end");
    assert_eq!(
        tail[0], all[2],
        "a request measures the same inside a range as in the whole journal"
    );
}

#[test]
fn given_an_append_only_journal_when_sizes_are_measured_then_no_prefix_breaks() {
    let lines = vec![
        line(
            1,
            "context-added",
            json!({"role": "system", "key": "agent/system-prompt", "content": "be brief"}),
        ),
        line(
            2,
            "context-added",
            json!({"role": "user", "actor": {"type": "user"}, "content": "hello"}),
        ),
        line(3, "llm-request-requested", json!({"model": "m"})),
        line(
            4,
            "context-added",
            json!({"role": "user", "actor": {"type": "user"}, "content": "more"}),
        ),
        line(5, "llm-request-requested", json!({"model": "m"})),
    ];
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = open_bytes(dir.path(), "append.jsonl", journal_text(&lines).as_bytes());
    let sizes =
        report::context_sizes(&journal, OffsetRange::all(), Transport::Openai).expect("sizes");
    assert_eq!(sizes.len(), 2, "two requests");
    assert!(
        !sizes[1].prefix_break,
        "appending history keeps the previous request's messages as a prefix"
    );
    assert!(
        sizes[1].history_bytes > sizes[0].history_bytes,
        "history grew"
    );
}

// ---------------------------------------------------------------- HTML report

/// Start tags and end tags balance (void elements and `/>` excepted), and nothing is left
/// open: a tiny checker, enough for the markup the report writes.
fn check_balanced(html: &str) -> Result<(), String> {
    const VOID: [&str; 6] = ["meta", "br", "hr", "img", "input", "link"];
    let mut stack: Vec<String> = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        rest = &rest[start + 1..];
        let end = rest.find('>').ok_or("a tag is not closed")?;
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if tag.starts_with('!') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack
                .pop()
                .ok_or_else(|| format!("</{name}> closes nothing"))?;
            if open != name.trim() {
                return Err(format!("</{name}> closes <{open}>"));
            }
            continue;
        }
        let name: String = tag
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        if name.is_empty() {
            return Err(format!(
                "a stray `<` before `{}`",
                &tag[..tag.len().min(20)]
            ));
        }
        if tag.ends_with('/') || VOID.contains(&name.as_str()) {
            continue;
        }
        if name == "style" {
            // CSS is not markup; skip to its end tag.
            let close = rest.find("</style>").ok_or("<style> is not closed")?;
            rest = &rest[close + "</style>".len()..];
            continue;
        }
        stack.push(name);
    }
    if stack.is_empty() {
        Ok(())
    } else {
        Err(format!("left open: {stack:?}"))
    }
}

/// Every attribute of every tag, as `name=value` text.
fn attributes(html: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        rest = &rest[start + 1..];
        let Some(end) = rest.find('>') else { break };
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if tag.starts_with("style") {
            if let Some(close) = rest.find("</style>") {
                rest = &rest[close..];
            }
        }
        let mut parts = tag.split('"');
        let mut name_part = parts.next();
        while let (Some(name), Some(value)) = (name_part, parts.next()) {
            let name = name.rsplit(' ').next().unwrap_or("").trim_end_matches('=');
            found.push(format!("{name}={value}"));
            name_part = parts.next();
        }
    }
    found
}

/// What every report must be: one file that loads nothing and runs nothing.
fn assert_self_contained(html: &str, what: &str) {
    assert!(
        html.contains(&format!(
            "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">",
            html::CONTENT_SECURITY_POLICY
        )),
        "{what}: the CSP meta tag forbids loading anything"
    );
    assert_eq!(
        html::CONTENT_SECURITY_POLICY,
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:",
        "the policy is exactly the one promised"
    );
    let lower = html.to_ascii_lowercase();
    assert!(!lower.contains("<script"), "{what}: no script element");
    assert!(!lower.contains("<link"), "{what}: no linked stylesheet");
    assert!(
        !lower.contains("<iframe") && !lower.contains("<object"),
        "{what}: no embeds"
    );
    assert!(
        !lower.contains("@import") && !lower.contains("url("),
        "{what}: CSS loads nothing"
    );
    for attr in attributes(html) {
        let lower = attr.to_ascii_lowercase();
        assert!(
            !lower.starts_with("src=")
                && !lower.starts_with("href=")
                && !lower.starts_with("xlink:href="),
            "{what}: no resource attribute: {attr}"
        );
        assert!(
            !lower.contains("http://") && !lower.contains("https://") && !lower.contains("//"),
            "{what}: no URL in an attribute: {attr}"
        );
        assert!(
            !lower.starts_with("on"),
            "{what}: no event handler attribute: {attr}"
        );
    }
    assert!(
        lower.contains("prefers-color-scheme: dark"),
        "{what}: a dark scheme"
    );
    check_balanced(html).unwrap_or_else(|e| panic!("{what}: tags balance: {e}"));
}

/// `xmllint --html` when the machine has it: a real parser finds no error.
fn xmllint_clean(html: &str, dir: &Path) {
    let file = dir.join("lint.html");
    std::fs::write(&file, html).expect("write for xmllint");
    let Ok(output) = Command::new("xmllint")
        .args(["--html", "--noout"])
        .arg(&file)
        .output()
    else {
        eprintln!("xmllint not installed: skipped the parser check");
        return;
    };
    let errors = String::from_utf8_lossy(&output.stderr);
    // libxml2's HTML parser predates HTML5: it reports every HTML5 and SVG element name as
    // "Tag x invalid". Anything else (an unclosed tag, a stray `<`, a bad entity) is an error.
    let real: Vec<&str> = errors
        .lines()
        .filter(|l| l.contains("error"))
        .filter(|l| {
            let unknown_tag = l
                .split("Tag ")
                .nth(1)
                .is_some_and(|rest| rest.split(' ').nth(1) == Some("invalid"));
            !unknown_tag
        })
        .collect();
    assert!(
        real.is_empty(),
        "xmllint finds the HTML well-formed: {errors}"
    );
}

fn golden_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/report/iterate-demo.html")
}

#[test]
fn given_the_demo_when_reported_then_it_matches_the_golden_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = demo(dir.path());
    let built = report::build(&journal, OffsetRange::all()).expect("report");
    let html = html::render(&built);
    assert!(
        !html.contains(&dir.path().to_string_lossy().into_owned()),
        "the report names the file, never a machine-specific path"
    );
    let golden = golden_path();
    if std::env::var_os("JOURNALSCOPE_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(golden.parent().expect("fixture dir")).expect("fixture dir");
        std::fs::write(&golden, &html).expect("bless the golden report");
    }
    let expected = std::fs::read_to_string(&golden).unwrap_or_else(|e| {
        panic!(
            "{} is readable ({e}); bless with JOURNALSCOPE_BLESS=1",
            golden.display()
        )
    });
    assert!(
        html == expected,
        "the demo's report differs from {} (JOURNALSCOPE_BLESS=1 rewrites it)",
        golden.display()
    );
    assert_self_contained(&html, "the demo report");
    xmllint_clean(&html, dir.path());
    for (needle, what) in [
        ("id=\"timeline-chart\"", "a timeline"),
        ("id=\"context-chart\"", "the context-size chart"),
        (
            "data-mark=\"compaction\"",
            "the compaction marked on the chart",
        ),
        (
            "data-mark=\"prefix-break\"",
            "the prefix break marked on the chart",
        ),
        ("external-actor-downgrade", "the downgrade rules"),
        (
            "compaction-summary-downgrade",
            "the compaction summary's rule",
        ),
        ("id=\"compactions\"", "the compactions"),
    ] {
        assert!(
            html.contains(needle),
            "the demo report shows {what} ({needle})"
        );
    }
    assert_eq!(
        html.matches("<g class=\"bar\"").count(),
        3,
        "one bar per request of the demo"
    );
}

#[test]
fn given_the_same_journal_when_reported_twice_then_the_bytes_are_equal() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = demo(dir.path());
    let once = html::render(&report::build(&journal, OffsetRange::all()).expect("report"));
    let again = html::render(&report::build(&journal, OffsetRange::all()).expect("report"));
    assert_eq!(once, again, "a report is deterministic (no clock, no path)");
}

#[test]
fn given_a_range_when_reported_then_only_its_requests_and_events_show() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = demo(dir.path());
    let range = OffsetRange {
        from: Some(9),
        to: Some(24),
    };
    let built = report::build(&journal, range).expect("report of a range");
    let offsets: Vec<i64> = built.requests.iter().map(|r| r.summary.offset).collect();
    assert_eq!(offsets, vec![21], "only @21 lies in @9 … @24");
    assert!(
        built.compactions.is_empty(),
        "the demo's compaction (@25) is after @24"
    );
    assert!(
        built.first_offset >= Some(9) && built.last_offset <= Some(24),
        "the summary's offsets stay in the range: {:?} … {:?}",
        built.first_offset,
        built.last_offset
    );
    let html = html::render(&built);
    assert!(html.contains("@9 … @24"), "the report names its range");
    assert_self_contained(&html, "a range report");
}

const HOSTILE: [&str; 5] = [
    "<script>alert('x')</script>",
    "\"><img src=x onerror=alert(1)>",
    "</style><style>body{display:none}</style>",
    "]]><!--",
    "javascript:alert(1) https://evil.example/x.png",
];

#[test]
fn given_hostile_journal_text_when_reported_then_it_is_escaped_everywhere() {
    let hostile = HOSTILE.join(" ");
    let lines = vec![
        line(
            1,
            "context-added",
            json!({"role": "system", "key": "agent/system-prompt", "content": hostile}),
        ),
        line(
            2,
            "context-added",
            json!({"role": "developer", "key": hostile, "actor": {"type": hostile}, "content": hostile,
            "refs": [{"type": "file", "path": hostile}]}),
        ),
        line(3, "llm-request-requested", json!({"model": hostile})),
        line(
            4,
            "context-added",
            json!({"role": "developer", "content": hostile,
            "compaction": {"replacesHistoryThrough": 3, "usage": hostile}}),
        ),
        line(5, "llm-request-requested", json!({"model": hostile})),
        format!(
            "{{\"offset\": 6, \"type\": \"{hostile_json}\"}}",
            hostile_json = "x<script>y"
        ),
        "not json <script>alert(2)</script>".to_string(),
    ];
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = open_bytes(
        dir.path(),
        "hostile<script>.jsonl",
        journal_text(&lines).as_bytes(),
    );
    let built = report::build(&journal, OffsetRange::all()).expect("report");
    assert!(
        built.compactions.len() == 1,
        "the hostile compaction is reported"
    );
    assert!(
        !built.diagnostics.is_empty(),
        "the broken lines are diagnosed"
    );
    let html = html::render(&built);
    assert_self_contained(&html, "the hostile report");
    let lower = html.to_ascii_lowercase();
    assert!(!lower.contains("<img"), "no injected image");
    assert!(
        !lower.contains("<img") && !lower.contains(" onerror=alert(1)>"),
        "no injected handler survives as markup"
    );
    assert_eq!(
        html.matches("</style>").count(),
        1,
        "only the report's own style element closes"
    );
    assert!(!html.contains("]]>"), "no CDATA terminator survives");
    assert!(!html.contains("<!--"), "no comment opener survives");
    assert!(
        html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"),
        "the hostile text is shown, escaped"
    );
    xmllint_clean(&html, dir.path());
}

#[test]
fn given_a_large_journal_when_reported_then_tables_are_capped_and_the_file_is_bounded() {
    let requests = html::MAX_ROWS + 40;
    let mut lines = vec![line(
        1,
        "context-added",
        json!({"role": "system", "key": "agent/system-prompt", "content": "s"}),
    )];
    let mut offset = 1;
    for i in 0..requests {
        offset += 1;
        // A keyed slot: the context stays small however many requests there are.
        lines.push(line(
            offset,
            "context-added",
            json!({"role": "user", "key": "turn", "actor": {"type": "user"}, "content": format!("turn {i}")}),
        ));
        offset += 1;
        lines.push(line(offset, "llm-request-requested", json!({"model": "m"})));
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = open_bytes(dir.path(), "large.jsonl", journal_text(&lines).as_bytes());
    let built = report::build(&journal, OffsetRange::all()).expect("report");
    assert_eq!(
        built.requests.len(),
        requests,
        "the model keeps every request"
    );
    let html = html::render(&built);
    assert_eq!(
        html.matches("<tr data-offset=").count(),
        html::MAX_ROWS,
        "the requests table is capped"
    );
    assert!(
        html.contains("data-more=\"40\">40 more requests not shown."),
        "the cap is said in so many words"
    );
    assert!(
        html.len() < 2 * 1024 * 1024,
        "the file stays bounded: {} bytes",
        html.len()
    );
    assert_self_contained(&html, "the large report");
}

#[test]
fn given_an_ag_ui_journal_when_reported_then_summary_and_timeline_only() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = open_bytes(
        dir.path(),
        "agui-demo.sse",
        Demo::named("ag-ui").expect("the AG-UI demo").bytes(),
    );
    let built = report::build(&journal, OffsetRange::all()).expect("report");
    assert!(built.requests.is_empty(), "AG-UI has no iterate requests");
    let html = html::render(&built);
    assert!(
        html.contains("id=\"timeline-chart\""),
        "the timeline is there"
    );
    assert!(
        !html.contains("id=\"context-chart\""),
        "no iterate chart for AG-UI"
    );
    assert_self_contained(&html, "the AG-UI report");
}

// ---------------------------------------------------------------- JSONL slice

#[test]
fn given_the_demo_when_sliced_whole_then_the_slice_is_the_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = demo(dir.path());
    let bytes = slice::slice_bytes(&journal, OffsetRange::all()).expect("slice");
    assert_eq!(
        bytes,
        Demo::named("iterate").expect("the iterate demo").bytes(),
        "the whole slice is the demo, byte for byte"
    );
    let bounded = slice::slice_bytes(
        &journal,
        OffsetRange {
            from: Some(1),
            to: Some(33),
        },
    )
    .expect("slice");
    assert_eq!(
        bounded,
        Demo::named("iterate").expect("the iterate demo").bytes(),
        "first to last offset is the whole file"
    );
}

#[test]
fn given_a_range_with_no_events_when_sliced_then_the_slice_is_empty() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = demo(dir.path());
    let none = slice::slice_bytes(
        &journal,
        OffsetRange {
            from: Some(100),
            to: Some(200),
        },
    )
    .expect("slice");
    assert!(none.is_empty(), "no event lies in @100 … @200");
    let inverted = slice::slice_bytes(
        &journal,
        OffsetRange {
            from: Some(20),
            to: Some(10),
        },
    )
    .expect("slice");
    assert!(inverted.is_empty(), "an inverted range selects nothing");
}
