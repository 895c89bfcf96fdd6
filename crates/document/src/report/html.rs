//! The report as one self-contained HTML file: inline CSS, inline SVG, no script, no external
//! resource, a Content-Security-Policy that forbids both anyway, light and dark by
//! `prefers-color-scheme`. Every piece of journal text goes through `escape`. Tables and charts
//! are capped so a large journal still gives a file of bounded size, with a visible note of
//! what was left out.

use journalscope_registry::dialect::Registered as _;
use std::fmt::Write;

use super::{ContextSizes, Report, ReportMark};

/// The policy the file carries: nothing may load, styles are inline, images only `data:`.
pub const CONTENT_SECURITY_POLICY: &str =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/// Rows shown in each table at most.
pub const MAX_ROWS: usize = 500;
/// Bars the context-size chart draws at most.
pub const MAX_BARS: usize = 600;
/// Horizontal positions of the timeline: marks sharing one are drawn once.
const TIMELINE_SLOTS: usize = 960;

/// Text made safe for element content and attribute values alike.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// `12345` → `12 345`: readable without a locale.
fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('\u{2009}');
        }
        out.push(c);
    }
    out
}

fn offset(o: Option<i64>) -> String {
    o.map_or_else(|| "–".to_string(), |o| format!("@{o}"))
}

const STYLE: &str = r#"
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1d2127; --muted: #5e6673; --line: #d5d9e0;
  --panel: #f4f6f9; --frame: #aab2bf; --system: #6a4fc4; --history: #2f7dd1; --summary: #d08a12;
  --compaction: #c2410c; --break: #be123c; --request: #2f7dd1; --downgrade: #a16207; --diag: #be123c; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #15181d; --fg: #e3e7ee; --muted: #99a2b0; --line: #303641; --panel: #1d2129;
    --frame: #5d6573; --system: #a08cf0; --history: #5aa6f0; --summary: #f0b43c;
    --compaction: #fb923c; --break: #fb7185; --request: #5aa6f0; --downgrade: #eab308; --diag: #fb7185; }
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1100px; padding: 16px 20px 40px; background: var(--bg); color: var(--fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 14px; margin: 16px 0 6px; }
.muted, .note { color: var(--muted); }
.note { font-style: italic; }
code, .mono, td.num { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 12.5px; }
dl.summary { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0; }
dl.summary dt { color: var(--muted); }
dl.summary dd { margin: 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--panel); font-weight: 600; }
td.num, th.num { text-align: right; white-space: nowrap; }
td.text { white-space: pre-wrap; overflow-wrap: anywhere; }
.err { color: var(--diag); font-weight: 600; }
.warn { color: var(--downgrade); font-weight: 600; }
.info { font-weight: 600; }
.yes { color: var(--break); font-weight: 600; }
svg { display: block; width: 100%; height: auto; background: var(--panel); border: 1px solid var(--line); border-radius: 4px; }
svg text { fill: var(--muted); font: 11px system-ui, sans-serif; }
svg .axis { stroke: var(--line); }
svg .frame { fill: var(--frame); }
svg .system { fill: var(--system); }
svg .history { fill: var(--history); }
svg .summary { fill: var(--summary); }
svg .compaction { stroke: var(--compaction); stroke-width: 2; stroke-dasharray: 4 3; }
svg .compaction-tick { fill: var(--compaction); }
svg .break { fill: var(--break); }
svg .request { fill: var(--request); }
svg .downgrade { fill: var(--downgrade); }
svg .diagnostic { fill: var(--diag); }
svg .other { fill: var(--frame); }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 6px 0 0; padding: 0; list-style: none; color: var(--muted); font-size: 12px; }
.legend li::before { content: ""; display: inline-block; width: 10px; height: 10px; margin-right: 5px; vertical-align: -1px; border-radius: 2px; background: var(--c); }
.legend .frame { --c: var(--frame); } .legend .system { --c: var(--system); } .legend .history { --c: var(--history); }
.legend .summary { --c: var(--summary); } .legend .compaction { --c: var(--compaction); } .legend .break { --c: var(--break); }
.legend .request { --c: var(--request); } .legend .downgrade { --c: var(--downgrade); } .legend .diagnostic { --c: var(--diag); }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; }
"#;

/// Renders the report. The output depends on the report alone (no clock, no path), so the
/// same journal and range always give the same bytes.
pub fn render(report: &Report) -> String {
    let mut h = String::with_capacity(64 * 1024);
    let title = format!("Journalscope report: {}", report.file_name);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"light dark\">\n\
         <title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        csp = CONTENT_SECURITY_POLICY,
        title = escape(&title),
    );
    let _ = writeln!(
        h,
        "<header><h1>{}</h1><p class=\"muted\">{} · {}</p></header>",
        escape(&title),
        escape(report.dialect.as_str()),
        escape(&report.range.label())
    );
    summary(&mut h, report);
    timeline(&mut h, report);
    if report
        .dialect
        .offers(journalscope_registry::dialect::View::Requests)
    {
        context_chart(&mut h, report);
        requests(&mut h, report);
        compactions(&mut h, report);
        downgrades(&mut h, report);
    }
    if let Some(cache) = &report.prompt_cache {
        prompt_cache(&mut h, cache);
    }
    h.push_str(
        "<footer>Written by journalscope. Sizes are UTF-8 bytes of the rendered message contents \
         on the openai transport; tokens are counted with the model's tokenizer where it is public \
         (o200k_base as an estimate elsewhere), framing included. A prefix break: the request does not start \
         with the previous request's messages.</footer>\n</body>\n</html>\n",
    );
    h
}

fn more_note(h: &mut String, shown: usize, total: usize, what: &str) {
    if total > shown {
        let _ = writeln!(
            h,
            "<p class=\"note\" data-more=\"{}\">{} more {what} not shown.</p>",
            total - shown,
            group((total - shown) as u64)
        );
    }
}

fn summary(h: &mut String, r: &Report) {
    h.push_str("<section id=\"summary\"><h2>Summary</h2><dl class=\"summary\">\n");
    let mut row = |k: &str, v: String| {
        let _ = writeln!(h, "<dt>{k}</dt><dd>{v}</dd>");
    };
    row("file", escape(&r.file_name));
    row(
        "dialect",
        format!("{} ({})", escape(r.dialect.as_str()), escape(&r.framing)),
    );
    row("range", escape(&r.range.label()));
    row(
        "events",
        format!("{} of {}", group(r.events), group(r.journal_events)),
    );
    row(
        "offsets",
        format!("{} … {}", offset(r.first_offset), offset(r.last_offset)),
    );
    let count = |kind: &str| r.marks.iter().filter(|m| m.kind == kind).count() as u64;
    row("requests", group(count("request")));
    row("compactions", group(count("compaction")));
    row("downgrades", group(count("downgrade")));
    row(
        "diagnostics",
        format!(
            "<span class=\"{}\">{} error(s)</span>, <span class=\"{}\">{} warning(s)</span>",
            if r.errors > 0 { "err" } else { "muted" },
            group(r.errors),
            if r.warnings > 0 { "warn" } else { "muted" },
            group(r.warnings)
        ),
    );
    h.push_str("</dl>\n");
    if !r.diagnostics.is_empty() {
        h.push_str("<h3>Diagnostics</h3>\n<table id=\"diagnostics\"><thead><tr><th>offset</th><th class=\"num\">line</th><th>severity</th><th>code</th><th>message</th></tr></thead><tbody>\n");
        for d in r.diagnostics.iter().take(MAX_ROWS) {
            let _ = writeln!(
                h,
                "<tr><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"{}\">{}</td><td><code>{}</code></td><td class=\"text\">{}</td></tr>",
                offset(d.offset),
                d.line,
                match d.severity {
                    journalscope_shapes::diagnostic::Severity::Error => "err",
                    journalscope_shapes::diagnostic::Severity::Warning => "warn",
                    journalscope_shapes::diagnostic::Severity::Info => "info",
                },
                escape(d.severity.as_str()),
                escape(&d.code),
                escape(&d.message)
            );
        }
        h.push_str("</tbody></table>\n");
        more_note(
            h,
            MAX_ROWS.min(r.diagnostics.len()),
            r.diagnostics.len(),
            "diagnostics",
        );
    }
    h.push_str("</section>\n");
}

/// Which row of the timeline a mark kind is drawn on.
fn timeline_row(kind: &str) -> (usize, &'static str) {
    match kind {
        "request" => (0, "request"),
        "compaction" => (1, "compaction-tick"),
        "downgrade" => (2, "downgrade"),
        "diagnostic" => (3, "diagnostic"),
        _ => (4, "other"),
    }
}

fn timeline(h: &mut String, r: &Report) {
    const W: f64 = 960.0;
    const LEFT: f64 = 84.0;
    const ROW: f64 = 16.0;
    let rows = [
        "requests",
        "compactions",
        "downgrades",
        "diagnostics",
        "other marks",
    ];
    let height = 10.0 + ROW * rows.len() as f64 + 18.0;
    h.push_str("<section id=\"timeline\"><h2>Timeline</h2>\n");
    let _ = writeln!(
        h,
        "<svg id=\"timeline-chart\" viewBox=\"0 0 {W} {height}\" role=\"img\" aria-label=\"marks along the selected events\">"
    );
    let plot = W - LEFT - 10.0;
    for (i, label) in rows.iter().enumerate() {
        let y = 10.0 + ROW * i as f64;
        let _ = writeln!(
            h,
            "<text x=\"4\" y=\"{:.1}\">{label}</text><line class=\"axis\" x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"/>",
            y + 11.0,
            W - 10.0,
            y + ROW - 1.0,
            y + ROW - 1.0
        );
    }
    let span = r.events.saturating_sub(1).max(1) as f64;
    let x_of = |seq: u64| LEFT + plot * (seq.saturating_sub(r.first_seq)) as f64 / span;
    // Marks sharing a slot are drawn once, with a count: the file stays bounded.
    let mut slots: std::collections::BTreeMap<(usize, usize), (usize, &ReportMark)> =
        std::collections::BTreeMap::new();
    let diagnostic_marks: Vec<ReportMark> = r
        .diagnostic_seqs
        .iter()
        .map(|seq| ReportMark {
            seq: *seq,
            offset: None,
            kind: "diagnostic".to_string(),
            note: "diagnostic".to_string(),
        })
        .collect();
    for mark in r.marks.iter().chain(&diagnostic_marks) {
        let (row, _) = timeline_row(&mark.kind);
        let slot =
            (((x_of(mark.seq) - LEFT) / plot) * (TIMELINE_SLOTS - 1) as f64).round() as usize;
        slots
            .entry((row, slot))
            .and_modify(|(n, _)| *n += 1)
            .or_insert((1, mark));
    }
    for ((row, _), (n, mark)) in &slots {
        let (_, class) = timeline_row(&mark.kind);
        let y = 10.0 + ROW * *row as f64 + 2.0;
        let more = if *n > 1 {
            format!(" (+{} more here)", n - 1)
        } else {
            String::new()
        };
        let _ = writeln!(
            h,
            "<rect class=\"{class}\" data-kind=\"{}\" x=\"{:.1}\" y=\"{y:.1}\" width=\"3\" height=\"{:.1}\"><title>{}</title></rect>",
            escape(&mark.kind),
            x_of(mark.seq) - 1.5,
            ROW - 5.0,
            escape(&format!("{} {}: {}{more}", offset(mark.offset), mark.kind, mark.note))
        );
    }
    let _ = writeln!(
        h,
        "<text x=\"{LEFT}\" y=\"{:.1}\">event 1</text><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">event {}</text>",
        height - 4.0,
        W - 10.0,
        height - 4.0,
        group(r.events)
    );
    h.push_str("</svg>\n</section>\n");
}

fn bar_title(s: &ContextSizes) -> String {
    let mut t = format!(
        "@{} · {} messages · system {} B · history {} B · summary {} B · protocol and time {} B · total {} B · {} tokens{}",
        s.request_offset,
        s.messages,
        group(s.system_bytes),
        group(s.history_bytes),
        group(s.summary_bytes),
        group(s.frame_bytes),
        group(s.total_bytes),
        group(s.total_tokens),
        if s.tokenizer.exact { "" } else { " (estimate)" }
    );
    if let Some(reported) = s.reported_input {
        let _ = write!(t, " · {} reported", group(reported));
    }
    if s.compactions_before > 0 {
        let _ = write!(t, " · {} compaction(s) before it", s.compactions_before);
    }
    if s.prefix_break {
        let _ = write!(
            t,
            " · prefix break after {} common bytes",
            group(s.common_prefix_bytes)
        );
    }
    t
}

fn context_chart(h: &mut String, r: &Report) {
    const W: f64 = 960.0;
    const H: f64 = 260.0;
    const LEFT: f64 = 64.0;
    const TOP: f64 = 18.0;
    const BOTTOM: f64 = 26.0;
    h.push_str("<section id=\"context\"><h2>Context size per request</h2>\n");
    if r.requests.is_empty() {
        h.push_str("<p class=\"muted\">No requests in this range.</p>\n</section>\n");
        return;
    }
    let bars: Vec<&ContextSizes> = r.requests.iter().take(MAX_BARS).map(|q| &q.sizes).collect();
    let max = bars.iter().map(|s| s.total_bytes).max().unwrap_or(0).max(1) as f64;
    let plot_w = W - LEFT - 10.0;
    let plot_h = H - TOP - BOTTOM;
    let slot = plot_w / bars.len() as f64;
    let width = (slot * 0.7).max(1.0);
    let _ = writeln!(
        h,
        "<svg id=\"context-chart\" viewBox=\"0 0 {W} {H}\" role=\"img\" aria-label=\"context bytes per request by lane\">"
    );
    let _ = writeln!(
        h,
        "<line class=\"axis\" x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{} B</text><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">0</text>",
        W - 10.0,
        TOP + plot_h,
        TOP + plot_h,
        LEFT - 6.0,
        TOP + 10.0,
        group(max as u64),
        LEFT - 6.0,
        TOP + plot_h
    );
    let label_every = (bars.len() / 24).max(1);
    for (i, s) in bars.iter().enumerate() {
        let x = LEFT + slot * i as f64;
        let bar_x = x + (slot - width) / 2.0;
        let mut y = TOP + plot_h;
        let _ = writeln!(
            h,
            "<g class=\"bar\" data-offset=\"{}\"><title>{}</title>",
            s.request_offset,
            escape(&bar_title(s))
        );
        for (class, bytes) in [
            ("frame", s.frame_bytes),
            ("system", s.system_bytes),
            ("summary", s.summary_bytes),
            ("history", s.history_bytes),
        ] {
            if bytes == 0 {
                continue;
            }
            let height = plot_h * bytes as f64 / max;
            y -= height;
            let _ = writeln!(
                h,
                "<rect class=\"{class}\" x=\"{bar_x:.1}\" y=\"{y:.1}\" width=\"{width:.1}\" height=\"{height:.1}\"/>"
            );
        }
        h.push_str("</g>\n");
        if s.compactions_before > 0 {
            let _ = writeln!(
                h,
                "<line class=\"compaction\" data-mark=\"compaction\" x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{TOP}\" y2=\"{:.1}\"><title>{}</title></line>",
                TOP + plot_h,
                escape(&format!(
                    "{} compaction(s) between the previous request and @{}",
                    s.compactions_before, s.request_offset
                ))
            );
        }
        if s.prefix_break {
            let cx = bar_x + width / 2.0;
            let _ = writeln!(
                h,
                "<polygon class=\"break\" data-mark=\"prefix-break\" points=\"{:.1},{:.1} {:.1},{:.1} {cx:.1},{:.1}\"><title>{}</title></polygon>",
                cx - 5.0,
                y - 12.0,
                cx + 5.0,
                y - 12.0,
                y - 3.0,
                escape(&format!(
                    "prefix break at @{}: it does not start with @{}'s messages (first change at message {}, {} common bytes)",
                    s.request_offset,
                    s.previous_request.unwrap_or_default(),
                    s.first_changed_message.unwrap_or_default(),
                    group(s.common_prefix_bytes)
                ))
            );
        }
        if i.is_multiple_of(label_every) {
            let _ = writeln!(
                h,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">@{}</text>",
                bar_x + width / 2.0,
                H - 8.0,
                s.request_offset
            );
        }
    }
    h.push_str("</svg>\n");
    h.push_str(
        "<ul class=\"legend\"><li class=\"frame\">protocol and time</li><li class=\"system\">system lane</li>\
         <li class=\"summary\">compaction summary</li><li class=\"history\">history</li>\
         <li class=\"compaction\">compaction (dashed line)</li><li class=\"break\">prefix break (triangle)</li></ul>\n",
    );
    more_note(h, bars.len(), r.requests.len(), "requests (not drawn)");
    h.push_str("</section>\n");
}

fn requests(h: &mut String, r: &Report) {
    h.push_str("<section id=\"requests\"><h2>Requests</h2>\n");
    if r.requests.is_empty() {
        h.push_str("<p class=\"muted\">none</p>\n</section>\n");
        return;
    }
    h.push_str("<table><thead><tr><th>offset</th><th>model</th><th class=\"num\">messages</th><th class=\"num\">bytes</th><th class=\"num\">tokens</th><th class=\"num\">system</th><th class=\"num\">history</th><th class=\"num\">summary</th><th class=\"num\">newly published</th><th class=\"num\">compactions before</th><th>prefix break</th></tr></thead><tbody>\n");
    for q in r.requests.iter().take(MAX_ROWS) {
        let s = &q.sizes;
        let _ = writeln!(
            h,
            "<tr data-offset=\"{}\"><td class=\"num\">@{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            q.summary.offset,
            q.summary.offset,
            escape(q.summary.model.as_deref().unwrap_or("–")),
            s.messages,
            group(s.total_bytes),
            group(s.total_tokens),
            group(s.system_bytes),
            group(s.history_bytes),
            group(s.summary_bytes),
            q.summary.newly_published,
            q.summary.compactions_before,
            if s.prefix_break {
                format!(
                    "<span class=\"yes\">yes</span> <span class=\"muted\">at message {}</span>",
                    s.first_changed_message.unwrap_or_default()
                )
            } else {
                "no".to_string()
            }
        );
    }
    h.push_str("</tbody></table>\n");
    more_note(
        h,
        MAX_ROWS.min(r.requests.len()),
        r.requests.len(),
        "requests",
    );
    h.push_str("</section>\n");
}

fn prompt_cache(h: &mut String, cache: &journalscope_transcript::transcript::cache::CacheReport) {
    h.push_str("<section id=\"prompt-cache\"><h2>Requests and prompt cache</h2>\n");
    let _ = writeln!(
        h,
        "<p class=\"muted\">Tokens as each response reported them. A request expects to read \
         what the request before it in its thread read and wrote; a miss is explained from the \
         journal where it can be. {} break(s), {} unexplained; {} tokens missed.</p>",
        cache.breaks,
        cache.unexplained_breaks,
        group(cache.total_missed_tokens)
    );
    if cache.requests.is_empty() {
        h.push_str("<p class=\"muted\">none</p>\n</section>\n");
        return;
    }
    h.push_str("<table><thead><tr><th>offset</th><th>thread</th><th>model</th><th class=\"num\">input</th><th class=\"num\">cache write</th><th class=\"num\">cache read</th><th class=\"num\">expected</th><th class=\"num\">missed</th><th>why</th></tr></thead><tbody>\n");
    for e in cache.requests.iter().take(MAX_ROWS) {
        let why = match (e.broke, e.causes.is_empty()) {
            (false, _) => String::new(),
            (true, true) => format!(
                "<span class=\"yes\">unexplained</span> {}",
                escape(&e.explanation)
            ),
            (true, false) => escape(&e.explanation),
        };
        let _ = writeln!(
            h,
            "<tr data-offset=\"{}\"><td class=\"num\">@{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            e.request_offset,
            e.request_offset,
            escape(&e.thread),
            escape(e.model.as_deref().unwrap_or("–")),
            group(e.input_tokens),
            group(e.cache_write_tokens),
            group(e.cache_read_tokens),
            group(e.expected_read_tokens),
            group(e.missed_tokens),
            why
        );
    }
    h.push_str("</tbody></table>\n");
    more_note(
        h,
        MAX_ROWS.min(cache.requests.len()),
        cache.requests.len(),
        "requests",
    );
    h.push_str("</section>\n");
}

fn compactions(h: &mut String, r: &Report) {
    h.push_str("<section id=\"compactions\"><h2>Compactions</h2>\n");
    if r.compactions.is_empty() {
        h.push_str("<p class=\"muted\">none</p>\n</section>\n");
        return;
    }
    h.push_str("<table><thead><tr><th>offset</th><th>cutoff</th><th>valid</th><th class=\"num\">dropped</th><th class=\"num\">kept</th><th class=\"num\">collapsed</th><th>tokens</th><th>summary</th></tr></thead><tbody>\n");
    for c in r.compactions.iter().take(MAX_ROWS) {
        let valid = if c.valid {
            "yes".to_string()
        } else {
            format!(
                "<span class=\"err\">no</span> {}",
                escape(c.invalid_reason.as_deref().unwrap_or(""))
            )
        };
        let _ = writeln!(
            h,
            "<tr data-offset=\"{}\"><td class=\"num\">@{}</td><td class=\"num\">{}</td><td>{valid}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td class=\"text\">{}</td></tr>",
            c.offset,
            c.offset,
            offset(c.cutoff),
            c.dropped,
            c.kept,
            c.collapsed,
            escape(&c.tokens.line()),
            escape(c.summary_excerpt.as_deref().unwrap_or("–"))
        );
    }
    h.push_str("</tbody></table>\n");
    more_note(
        h,
        MAX_ROWS.min(r.compactions.len()),
        r.compactions.len(),
        "compactions",
    );
    h.push_str("</section>\n");
}

fn downgrades(h: &mut String, r: &Report) {
    h.push_str("<section id=\"downgrades\"><h2>Downgrades</h2>\n<p class=\"muted\">Items the requests in this range sent with a provider role below their product role, per transport.</p>\n");
    for t in &r.downgrades {
        let _ = writeln!(
            h,
            "<h3>{} <span class=\"muted\">({})</span></h3>",
            escape(t.transport.as_str()),
            t.downgrades.len()
        );
        if t.downgrades.is_empty() {
            h.push_str("<p class=\"muted\">none</p>\n");
            continue;
        }
        let _ = writeln!(
            h,
            "<table data-transport=\"{}\"><thead><tr><th>item</th><th>product → provider</th><th>rule</th><th>why</th><th>first request</th><th class=\"num\">requests</th></tr></thead><tbody>",
            escape(t.transport.as_str())
        );
        for d in t.downgrades.iter().take(MAX_ROWS) {
            let _ = writeln!(
                h,
                "<tr><td class=\"num\">@{}</td><td>{} → {}</td><td><code>{}</code></td><td>{}</td><td class=\"num\">@{}</td><td class=\"num\">{}</td></tr>",
                d.offset,
                escape(&d.product_role),
                escape(&d.provider_role),
                escape(d.rule.as_str()),
                escape(&d.explanation),
                d.first_request,
                d.requests
            );
        }
        h.push_str("</tbody></table>\n");
        more_note(
            h,
            MAX_ROWS.min(t.downgrades.len()),
            t.downgrades.len(),
            "downgrades",
        );
    }
    h.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_hostile_text_when_escaped_then_no_markup_survives() {
        let hostile = "<script>alert(1)</script>\"><img onerror=x>'</style>]]>&";
        let out = escape(hostile);
        assert!(
            !out.contains('<') && !out.contains('>'),
            "no angle bracket survives: {out}"
        );
        assert!(
            !out.contains('"') && !out.contains('\''),
            "no quote can end an attribute: {out}"
        );
        assert!(
            out.ends_with("&amp;"),
            "ampersands are escaped first and once: {out}"
        );
    }

    #[test]
    fn given_numbers_when_grouped_then_thousands_are_separated() {
        assert_eq!(group(0), "0", "zero stays");
        assert_eq!(group(999), "999", "three digits need no separator");
        assert_eq!(
            group(1234567),
            "1\u{2009}234\u{2009}567",
            "groups of three from the right"
        );
    }
}
