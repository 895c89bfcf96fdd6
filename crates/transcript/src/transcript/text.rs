//! The text the command line prints of a transcript's views (the conversation at a line, the
//! request list, the cache report, the context sizes, the diff of two requests, a compaction
//! and the subagents), written to any `fmt::Write` so that each transcript dialect makes its
//! answers of them.

use std::fmt::{self, Write};

use serde_json::Value;

use super::cache::{CacheEntry, CacheReport};
use super::diff::{RowChange, TranscriptDiff, TranscriptDiffMessage};
use super::{ConversationView, RequestRow, SpawnedBy, Subagent, TranscriptCompaction};

/// A block of a transcript message in one line: its type and the start of what it says.
pub fn block_line(block: &Value) -> String {
    let kind = block.get("type").and_then(Value::as_str).unwrap_or("?");
    let said = match kind {
        "text" => block
            .get("text")
            .and_then(Value::as_str)
            .map(str::to_string),
        "thinking" => block
            .get("thinking")
            .and_then(Value::as_str)
            .map(str::to_string),
        "tool_use" => Some(format!(
            "{} {}",
            block.get("name").and_then(Value::as_str).unwrap_or("?"),
            block.get("input").map(Value::to_string).unwrap_or_default()
        )),
        "tool_result" => Some(format!(
            "for {}: {}",
            block
                .get("tool_use_id")
                .and_then(Value::as_str)
                .unwrap_or("?"),
            match block.get("content") {
                Some(Value::String(text)) => text.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            }
        )),
        _ => None,
    };
    let said: String = said
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let cut: String = said.chars().take(100).collect();
    if cut.len() < said.len() {
        format!("[{kind}] {cut}…")
    } else {
        format!("[{kind}] {cut}")
    }
}

/// A transcript's conversation at an offset.
pub fn conversation(out: &mut impl Write, view: &ConversationView) -> fmt::Result {
    writeln!(
        out,
        "conversation at @{} · {} lines · system prompt and tools are not recorded",
        view.at,
        view.history.len()
    )?;
    for item in &view.history {
        writeln!(out, "@{} {}", item.offset, item.role)?;
        for block in &item.content {
            writeln!(out, "    {}", block_line(block))?;
        }
    }
    Ok(())
}

/// A transcript's requests, by their first line.
pub fn requests(out: &mut impl Write, requests: &[RequestRow]) -> fmt::Result {
    writeln!(
        out,
        "{:>8}  {:<20} {:>9} {:>12} {:>12} {:>8}  thread",
        "request", "model", "input", "cache write", "cache read", "output"
    )?;
    let field = |usage: &Option<Value>, name: &str| {
        usage
            .as_ref()
            .and_then(|u| u.get(name))
            .map_or_else(|| "-".to_string(), Value::to_string)
    };
    for r in requests {
        writeln!(
            out,
            "{:>8}  {:<20} {:>9} {:>12} {:>12} {:>8}  {}",
            format!("@{}", r.offset),
            r.model.as_deref().unwrap_or("-"),
            field(&r.usage, "input_tokens"),
            field(&r.usage, "cache_creation_input_tokens"),
            // Codex counts what the cache served as `cached_input_tokens`.
            match field(&r.usage, "cache_read_input_tokens").as_str() {
                "-" => field(&r.usage, "cached_input_tokens"),
                read => read.to_string(),
            },
            field(&r.usage, "output_tokens"),
            if r.sidechain { "sidechain" } else { "main" }
        )?;
    }
    Ok(())
}

/// A transcript's cache report: each request's reported reads against what the request before
/// it in its thread left, breaks explained.
pub fn cache(out: &mut impl Write, report: &CacheReport) -> fmt::Result {
    writeln!(
        out,
        "prompt cache · {} request(s) · each against the one before it in its thread · tokens \
         as reported",
        report.requests.len()
    )?;
    writeln!(
        out,
        " request  previous  thread       input     write      read  expected    missed  model"
    )?;
    for e in &report.requests {
        let previous = e
            .previous_request
            .map_or_else(|| "-".to_string(), |p| format!("@{p}"));
        let mark = match (e.broke, e.causes.is_empty()) {
            (true, true) => "  ✗ UNEXPLAINED",
            (true, false) => "  ✗",
            _ => "",
        };
        writeln!(
            out,
            "{:>8}  {:>8}  {:<9} {:>8}  {:>8}  {:>8}  {:>8}  {:>8}  {}{mark}",
            format!("@{}", e.request_offset),
            previous,
            e.thread,
            e.input_tokens,
            e.cache_write_tokens,
            e.cache_read_tokens,
            e.expected_read_tokens,
            e.missed_tokens,
            e.model.as_deref().unwrap_or("-"),
        )?;
    }
    writeln!(
        out,
        "total    input {} · write {} · read {} · missed {} · {} break(s), {} unexplained",
        report.total_input_tokens,
        report.total_write_tokens,
        report.total_read_tokens,
        report.total_missed_tokens,
        report.breaks,
        report.unexplained_breaks
    )?;
    let breaks: Vec<_> = report.requests.iter().filter(|e| e.broke).collect();
    if !breaks.is_empty() {
        writeln!(out, "\nBREAKS")?;
        for e in breaks {
            writeln!(
                out,
                "@{}: {} of {} expected tokens missed: {}",
                e.request_offset, e.missed_tokens, e.expected_read_tokens, e.explanation
            )?;
        }
    }
    Ok(())
}

/// The first line of `text`, cut to `width` characters; a cut or a dropped line is marked.
fn first_line(text: &str, width: usize) -> String {
    let line = text.lines().next().unwrap_or("");
    let mut shown: String = line.chars().take(width).collect();
    if line.chars().count() > width || text.contains('\n') {
        shown.push('…');
    }
    shown
}

/// Two requests of a transcript side by side, from the first message where they part.
pub fn diff(out: &mut impl Write, diff: &TranscriptDiff) -> fmt::Result {
    let model = |m: &Option<String>| m.clone().unwrap_or_else(|| "-".to_string());
    writeln!(
        out,
        "diff request @{} ({}, {} message(s)) → @{} ({}, {} message(s))",
        diff.from.request_offset,
        model(&diff.from.model),
        diff.from.messages,
        diff.to.request_offset,
        model(&diff.to.model),
        diff.to.messages
    )?;
    writeln!(
        out,
        "common prefix  {} message(s)",
        diff.common_prefix_messages
    )?;
    match &diff.cache {
        Some(e) if e.broke => writeln!(
            out,
            "cache break: {} of {} expected tokens missed: {}",
            e.missed_tokens, e.expected_read_tokens, e.explanation
        )?,
        Some(e) => writeln!(
            out,
            "no cache break: read {} tokens ({} expected), wrote {}",
            e.cache_read_tokens, e.expected_read_tokens, e.cache_write_tokens
        )?,
        None => writeln!(
            out,
            "the later request is not measured against the earlier one in the cache (another \
             thread, or a request in between)"
        )?,
    }
    if diff.rows.is_empty() {
        writeln!(out, "\nthe two requests are identical")?;
        return Ok(());
    }
    writeln!(
        out,
        "\n── from message {} on ── (the {} common message(s) before are not shown)",
        diff.first_difference.unwrap_or(0),
        diff.common_prefix_messages
    )?;
    let label = |m: &Option<TranscriptDiffMessage>| match m {
        None => "(none)".to_string(),
        Some(m) => format!("[{}] {}: {}", m.index, m.role, first_line(&m.text, 40)),
    };
    for row in &diff.rows {
        let sign = match row.op {
            RowChange::Same => ' ',
            RowChange::Changed => '~',
            RowChange::Removed => '-',
            RowChange::Added => '+',
        };
        writeln!(out, "{sign} {:<60} │ {}", label(&row.from), label(&row.to))?;
    }
    Ok(())
}

/// Each transcript request's context as its response reported it, as a bar: read from the
/// cache `█`, written to it `▒`, neither `░`.
pub fn sizes(out: &mut impl Write, report: &CacheReport) -> fmt::Result {
    const WIDTH: u64 = 40;
    let context = |e: &CacheEntry| e.input_tokens + e.cache_write_tokens + e.cache_read_tokens;
    writeln!(
        out,
        "context size · {} request(s) · tokens as each response reported them",
        report.requests.len()
    )?;
    writeln!(
        out,
        " request  thread      context  model                         (█ cache read ▒ cache \
         write ░ input)"
    )?;
    let scale = report.requests.iter().map(context).max().unwrap_or(1);
    for e in &report.requests {
        let cells = |tokens: u64| (tokens * WIDTH).div_ceil(scale.max(1));
        let read = cells(e.cache_read_tokens);
        let written = cells(e.cache_read_tokens + e.cache_write_tokens).saturating_sub(read);
        let rest = cells(context(e)).saturating_sub(read + written);
        let note = if e.broke {
            format!("  ✗ {}", e.explanation)
        } else {
            String::new()
        };
        writeln!(
            out,
            "{:>8}  {:<9} {:>9}  {:<29} {}{}{}{note}",
            format!("@{}", e.request_offset),
            e.thread,
            context(e),
            e.model.as_deref().unwrap_or("-"),
            "█".repeat(read as usize),
            "▒".repeat(written as usize),
            "░".repeat(rest as usize),
        )?;
    }
    Ok(())
}

/// A compaction: what the transcript says of it, the conversation before it, and the one the
/// transcript went on with.
pub fn compaction(out: &mut impl Write, compaction: &TranscriptCompaction) -> fmt::Result {
    writeln!(
        out,
        "compaction @{}  {}",
        compaction.offset, compaction.note
    )?;
    writeln!(out, "before:")?;
    conversation(out, &compaction.before)?;
    match &compaction.after {
        Some(after) => {
            writeln!(out, "after:")?;
            conversation(out, after)
        }
        None => writeln!(out, "after: nothing yet"),
    }
}

/// The session or thread that ran this subagent's transcript, where it is one.
pub fn spawned_by(out: &mut impl Write, parent: Option<&SpawnedBy>) -> fmt::Result {
    let Some(parent) = parent else {
        return Ok(());
    };
    let id = parent.parent_id.as_deref().unwrap_or("an unnamed session");
    match &parent.path {
        Some(path) => writeln!(out, "spawned by {id}\n    {path}"),
        None => writeln!(
            out,
            "spawned by {id} (its file is not where its writer keeps it)"
        ),
    }
}

/// The subagents a session ran, a call each: where it was made, where its result came back,
/// and where the subagent's own lines are.
pub fn subagents(out: &mut impl Write, subagents: &[Subagent]) -> fmt::Result {
    if subagents.is_empty() {
        return writeln!(out, "no subagents");
    }
    let at = |offset: Option<i64>| offset.map_or_else(|| "-".to_string(), |o| format!("@{o}"));
    for s in subagents {
        let agent = s.agent_id.as_deref().unwrap_or("inline");
        writeln!(
            out,
            "call {:>6}  result {:>6}  agent {agent}  {}",
            at(s.call_offset),
            at(s.result_offset),
            s.description.as_deref().unwrap_or("")
        )?;
        match (&s.path, s.root_offset, &s.agent_id) {
            (Some(path), _, _) => writeln!(out, "    {path}")?,
            (None, Some(root), _) => writeln!(out, "    in this session from @{root}")?,
            (None, None, Some(_)) => writeln!(out, "    its file is not beside the session")?,
            (None, None, None) => {}
        }
    }
    Ok(())
}
