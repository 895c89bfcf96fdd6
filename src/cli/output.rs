//! Text and JSON renderings of each command's answer. Text is for people at a terminal;
//! JSON is the contract other tools and the tests rely on.

use std::io::Write;

use anyhow::Result;
use serde::Serialize;
use serde_json::json;

use journalscope::diagnostic::{Diagnostic, Severity};
use journalscope::iterate::projection::Rules;
use journalscope::iterate::render::RequestSnapshot;
use journalscope::iterate::view::{ItemView, ProjectionView, RequestSummary};
use journalscope::journal::Journal;
use journalscope::report::ContextSizes;

pub fn json(out: &mut dyn Write, value: &impl Serialize) -> Result<()> {
    // As an io::Error, a closed pipe stays recognisable to `main`, which treats it as success.
    serde_json::to_writer_pretty(&mut *out, value).map_err(std::io::Error::from)?;
    writeln!(out)?;
    Ok(())
}

fn offset_text(offset: Option<i64>) -> String {
    offset.map_or_else(|| "-".to_string(), |o| format!("@{o}"))
}

pub fn import(out: &mut dyn Write, journal: &Journal, as_json: bool) -> Result<()> {
    let info = journal.info()?;
    let by_code: std::collections::BTreeMap<String, u64> =
        journal.diagnostic_codes()?.into_iter().collect();
    if as_json {
        return json(
            out,
            &json!({
                "journal": info.path,
                "db": info.db_path,
                "dialect": info.dialect,
                "framing": info.framing,
                "importKind": info.import_kind,
                "events": info.event_count,
                "firstOffset": info.first_offset,
                "lastOffset": info.last_offset,
                "contract": info.contract.as_ref().map(|c| c.name),
                "contractVersion": info.contract.as_ref().and_then(|c| c.version.clone()),
                "diagnostics": {"errors": info.errors, "warnings": info.warnings, "byCode": by_code},
            }),
        );
    }
    let kind = match info.import_kind {
        journalscope::import::ImportKind::New => "imported",
        journalscope::import::ImportKind::Unchanged => "unchanged, reused",
        journalscope::import::ImportKind::Appended => "grew, appended the new tail of",
        journalscope::import::ImportKind::Replaced => "changed, re-imported",
    };
    writeln!(out, "{kind} {}", info.path)?;
    writeln!(out, "  database   {}", info.db_path)?;
    writeln!(
        out,
        "  dialect    {} ({})",
        info.dialect.as_str(),
        info.framing
    )?;
    if let Some(contract) = &info.contract {
        writeln!(out, "  contract   {}", contract.label())?;
    }
    writeln!(out, "  events     {}", info.event_count)?;
    writeln!(
        out,
        "  offsets    {} … {}",
        offset_text(info.first_offset),
        offset_text(info.last_offset)
    )?;
    writeln!(
        out,
        "  diagnostics {} error(s), {} warning(s)",
        info.errors, info.warnings
    )?;
    for (code, count) in by_code {
        writeln!(out, "    {count:>5} {code}")?;
    }
    Ok(())
}

pub fn events(
    out: &mut dyn Write,
    journal: &Journal,
    from: Option<i64>,
    to: Option<i64>,
    kind: Option<&str>,
    as_json: bool,
) -> Result<()> {
    let rows = journal.list_events(from, to, kind)?;
    if as_json {
        return json(out, &rows);
    }
    for row in rows {
        let kind = row.kind.as_deref().unwrap_or("(no type)");
        let short = kind.rsplit('/').next().unwrap_or(kind);
        let badges = if row.marks.is_empty() {
            String::new()
        } else {
            format!(" [{}]", row.marks.join(","))
        };
        writeln!(
            out,
            "{:>8}  {:<22} {:<24} {}{badges}",
            offset_text(row.offset),
            short,
            row.created_at.as_deref().unwrap_or("-"),
            row.summary
        )?;
    }
    Ok(())
}

fn indent(text: &str, prefix: &str) -> String {
    text.lines()
        .map(|line| format!("{prefix}{line}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn item_text(out: &mut dyn Write, item: &ItemView, rules: Option<Rules>) -> Result<()> {
    let sections = rules.is_some();
    let openai = &item.provider_roles.openai;
    let workers = &item.provider_roles.workers_ai;
    let roles = if openai.role == workers.role {
        format!("→ {}", openai.role.as_str())
    } else {
        format!(
            "→ openai {} · workers-ai {}",
            openai.role.as_str(),
            workers.role.as_str()
        )
    };
    let actor = item
        .actor
        .as_ref()
        .and_then(|a| a.get("type"))
        .and_then(|t| t.as_str())
        .map(|t| format!(" actor {t}"))
        .unwrap_or_default();
    let state = match (item.published, sections) {
        (true, false) => "published",
        (false, false) => "UNPUBLISHED",
        (true, true) => "sent",
        (false, true) => "UNSENT",
    };
    // A sections-contract message has no header unless the machinery wrote it.
    let header = if sections && !item.header.starts_with('@') {
        format!("@{} {}", item.offset, item.header)
    } else {
        item.header.clone()
    };
    let coalesced = if item.coalesced.is_empty() {
        String::new()
    } else {
        let earlier: Vec<String> = item.coalesced.iter().map(|o| format!("@{o}")).collect();
        format!(" · coalesced {}", earlier.join(", "))
    };
    writeln!(
        out,
        "  {}  [{}{actor} {roles} · {state}{coalesced}]",
        header.trim_end(),
        item.role.as_str()
    )?;
    writeln!(out, "{}", indent(&item.content, "      "))?;
    Ok(())
}

pub fn projection(out: &mut dyn Write, view: &ProjectionView, as_json: bool) -> Result<()> {
    if as_json {
        return json(out, view);
    }
    match view.rules {
        None => {
            writeln!(
                out,
                "projection @{} · published through {} · {} system, {} history",
                view.at,
                offset_text(view.published_through),
                view.system.len(),
                view.history.len()
            )?;
        }
        Some(Rules::Sections) => {
            writeln!(
                out,
                "projection @{} · sections contract · sent through {} · {} standing, {} in the list",
                view.at,
                offset_text(view.published_through),
                view.system.len(),
                view.history.len()
            )?;
        }
        Some(Rules::AgentLoop) | Some(Rules::Seed) => {
            writeln!(
                out,
                "projection @{} · iterate's agent loop · sent through {}: its context items \
                 are the loop's own; `request --at` renders each request it sent",
                view.at,
                offset_text(view.published_through),
            )?;
        }
    }
    if let Some(pending) = &view.pending {
        let offsets: Vec<String> = pending.offsets.iter().map(|o| format!("@{o}")).collect();
        writeln!(
            out,
            "pending: {} ({})",
            pending.reason.replace('-', " "),
            offsets.join(", ")
        )?;
    }
    let (first, second) = match view.rules {
        None => ("SYSTEM LANE", "HISTORY LANE"),
        Some(_) => ("STANDING DOCUMENT", "LIST"),
    };
    if let Some(agent) = &view.agent_loop {
        writeln!(out, "\nLIST")?;
        for item in &view.history {
            item_text(out, item, view.rules)?;
        }
        writeln!(out, "\nRUNS")?;
        for run in &agent.runs {
            let result = match run.result {
                Some(offset) => format!("result @{offset}"),
                None => "no result in the list".to_string(),
            };
            let settled = if run.settled { "settled" } else { "running" };
            writeln!(out, "  @{} {} · {settled} · {result}", run.run, run.call_id)?;
        }
        let offset = |o: Option<i64>| o.map_or("none".to_string(), |o| format!("@{o}"));
        writeln!(
            out,
            "\ntrigger {} · open request {} · owed answer {}{} · {} · {} failures, {} autonomous turns",
            offset(agent.pending_trigger),
            offset(agent.open_request),
            offset(agent.owed_answer),
            agent
                .owed_why
                .as_deref()
                .map(|why| format!(" ({why})"))
                .unwrap_or_default(),
            if agent.paused { "paused" } else { "running" },
            agent.consecutive_llm_failures,
            agent.autonomous_turn_count
        )?;
    } else if view.rules != Some(Rules::AgentLoop) {
        writeln!(out, "\n{first}")?;
        for item in &view.system {
            item_text(out, item, view.rules)?;
        }
        writeln!(out, "\n{second}")?;
        for item in &view.history {
            item_text(out, item, view.rules)?;
        }
    }
    if !view.diagnostics.is_empty() {
        writeln!(out, "\nDIAGNOSTICS")?;
        let earlier = view
            .diagnostic_count
            .saturating_sub(view.diagnostics.len() as u64);
        if earlier > 0 {
            writeln!(
                out,
                "  ({earlier} earlier not shown: `journalscope diagnostics` lists every one)"
            )?;
        }
        for d in &view.diagnostics {
            diagnostic_line(out, d)?;
        }
    }
    Ok(())
}

pub fn requests(out: &mut dyn Write, requests: &[RequestSummary], as_json: bool) -> Result<()> {
    if as_json {
        return json(out, &requests);
    }
    writeln!(
        out,
        "{:>8}  {:<14} {:>10} {:>6} {:>6} {:>12}",
        "request", "model", "published", "new", "items", "compactions"
    )?;
    for r in requests {
        writeln!(
            out,
            "{:>8}  {:<14} {:>10} {:>6} {:>6} {:>12}",
            format!("@{}", r.offset),
            r.model.as_deref().unwrap_or("-"),
            format!("≤ @{}", r.published_through),
            r.newly_published,
            r.items,
            r.compactions_before
        )?;
    }
    Ok(())
}

pub fn request(out: &mut dyn Write, snapshot: &RequestSnapshot, as_json: bool) -> Result<()> {
    if as_json {
        // Each message carries its own count beside the request's totals.
        let mut value = serde_json::to_value(snapshot)?;
        if let Some(messages) = value
            .get_mut("messages")
            .and_then(serde_json::Value::as_array_mut)
        {
            for (message, tokens) in messages.iter_mut().zip(&snapshot.tokens.messages) {
                if let Some(fields) = message.as_object_mut() {
                    fields.insert("tokens".to_string(), (*tokens).into());
                }
            }
        }
        return json(out, &value);
    }
    if let Some(body) = &snapshot.responses_body {
        writeln!(
            out,
            "request @{} · model {} · OpenAI Responses API · {} input items · about {} tokens ({})",
            snapshot.request_offset,
            snapshot.model.as_deref().unwrap_or("-"),
            snapshot.messages.len(),
            snapshot.tokens.total,
            token_method(&snapshot.tokens.tokenizer)
        )?;
        for note in &snapshot.notes {
            writeln!(out, "note: {note}")?;
        }
        writeln!(out, "\n── body ──")?;
        writeln!(out, "{}", serde_json::to_string(body)?)?;
        return Ok(());
    }
    writeln!(
        out,
        "request @{} · model {} · transport {} · {} messages · {} tokens ({} content, {} framing; {})",
        snapshot.request_offset,
        snapshot.model.as_deref().unwrap_or("-"),
        snapshot.transport.as_str(),
        snapshot.messages.len(),
        snapshot.tokens.total,
        snapshot.tokens.total - snapshot.tokens.framing,
        snapshot.tokens.framing,
        token_method(&snapshot.tokens.tokenizer)
    )?;
    for (index, message) in snapshot.messages.iter().enumerate() {
        // Every message after the protocol stands for an item, but the seed contract's last
        // one, which gives the request's time.
        let item = index.checked_sub(1).and_then(|i| snapshot.items.get(i));
        let label = if index == 0 {
            "protocol".to_string()
        } else if let Some(item) = item {
            if item.provider_role == item.product_role {
                format!("{} item @{}", item.lane, item.offset)
            } else {
                // A downgrade lowers trust; other mappings only rename the role.
                let arrow = if item.rule.is_downgrade() {
                    "⇣"
                } else {
                    "→"
                };
                format!(
                    "{} item @{} · {} {arrow} {} by {}",
                    item.lane,
                    item.offset,
                    item.product_role.as_str(),
                    item.provider_role.as_str(),
                    item.rule.as_str()
                )
            }
        } else {
            "request time".to_string()
        };
        let tokens = snapshot.tokens.messages.get(index).copied().unwrap_or(0);
        writeln!(
            out,
            "\n── {} ── {label} · {tokens} tokens",
            message.role.as_str()
        )?;
        writeln!(out, "{}", message.content)?;
    }
    Ok(())
}

/// How a count was made, in a few words: the encoding, and whether it is an estimate.
fn token_method(tokenizer: &journalscope::tokens::Tokenizer) -> String {
    if tokenizer.exact {
        format!("{}, exact", tokenizer.encoding.as_str())
    } else {
        format!("{}, an estimate", tokenizer.encoding.as_str())
    }
}

fn diagnostic_line(out: &mut dyn Write, d: &Diagnostic) -> Result<()> {
    let severity = d.severity.as_str();
    writeln!(
        out,
        "  line {:<5} {:>7}  {severity:<7} {:<36} {}",
        d.line,
        offset_text(d.offset),
        d.code,
        d.message
    )?;
    Ok(())
}

pub fn diagnostics(out: &mut dyn Write, diagnostics: &[Diagnostic], as_json: bool) -> Result<()> {
    if as_json {
        return json(out, &diagnostics);
    }
    if diagnostics.is_empty() {
        writeln!(out, "no diagnostics")?;
        return Ok(());
    }
    for d in diagnostics {
        diagnostic_line(out, d)?;
    }
    let count = |severity| {
        diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    };
    let advice = match count(Severity::Info) {
        0 => String::new(),
        n => format!(", {n} info"),
    };
    writeln!(
        out,
        "{} error(s), {} warning(s){advice}",
        count(Severity::Error),
        count(Severity::Warning)
    )?;
    Ok(())
}

pub fn search(
    out: &mut dyn Write,
    result: &journalscope::search::SearchResult,
    as_json: bool,
) -> Result<()> {
    if as_json {
        return json(out, result);
    }
    let plural = if result.total == 1 { "" } else { "s" };
    writeln!(out, "{} hit{plural}", result.total)?;
    for hit in &result.hits {
        let kind = hit.kind.as_deref().unwrap_or("(no type)");
        let short = kind.rsplit('/').next().unwrap_or(kind);
        let text = hit
            .snippet
            .as_deref()
            .unwrap_or(&hit.summary)
            .replace('\n', " ⏎ ");
        writeln!(
            out,
            "{:>8}  {:<22} {}",
            offset_text(hit.offset),
            short,
            text
        )?;
    }
    if result.truncated {
        writeln!(out, "… {} more", result.total - result.hits.len() as u64)?;
    }
    Ok(())
}

pub fn breakpoint(
    out: &mut dyn Write,
    on: &journalscope::breakpoint::Breakpoint,
    from: Option<i64>,
    forward: bool,
    hit: Option<&journalscope::breakpoint::BreakpointHit>,
    as_json: bool,
) -> Result<()> {
    if as_json {
        return json(
            out,
            &json!({"breakpoint": on, "from": from, "forward": forward, "hit": hit}),
        );
    }
    let direction = if forward { "forward" } else { "backward" };
    let start = from.map_or_else(
        || {
            if forward {
                "the start".to_string()
            } else {
                "the end".to_string()
            }
        },
        |o| format!("@{o}"),
    );
    match hit {
        Some(hit) => writeln!(
            out,
            "{:>8}  {}  (running {direction} from {start} on {})",
            offset_text(hit.offset),
            hit.note,
            on.describe()
        )?,
        None => writeln!(out, "no {} running {direction} from {start}", on.describe())?,
    }
    Ok(())
}

pub fn bookmarks(
    out: &mut dyn Write,
    bookmarks: &[journalscope::bookmark::Bookmark],
    as_json: bool,
) -> Result<()> {
    if as_json {
        return json(out, &bookmarks);
    }
    if bookmarks.is_empty() {
        writeln!(out, "no bookmarks")?;
    }
    for b in bookmarks {
        writeln!(out, "{:>8}  {}", offset_text(b.offset), b.note)?;
    }
    Ok(())
}

pub fn sizes(out: &mut dyn Write, sizes: &[ContextSizes], as_json: bool) -> Result<()> {
    if as_json {
        return json(out, &sizes);
    }
    writeln!(
        out,
        "{:>8}  {:>5}  {:>8}  {:>8}  {:>8}  {:>6}  {:>7}  {:>8}  {:>9}  {:>9}  marks",
        "request",
        "msgs",
        "system",
        "history",
        "summary",
        "frame",
        "framing",
        "tokens",
        "reported",
        "bytes"
    )?;
    let mut methods: Vec<&str> = Vec::new();
    for s in sizes {
        let mut marks = Vec::new();
        if !s.tokenizer.exact {
            marks.push("estimate".to_string());
        }
        if let Some(reported) = s.reported_input {
            let check = journalscope::tokens::Reconciliation::of(
                s.total_tokens,
                reported,
                s.tokenizer.exact,
            );
            if !check.within {
                marks.push(format!("counted{:+}", check.difference));
            }
        }
        if s.compactions_before > 0 {
            marks.push(format!("compaction×{}", s.compactions_before));
        }
        if s.prefix_break {
            marks.push(format!(
                "prefix-break@msg{}",
                s.first_changed_message.unwrap_or_default()
            ));
        }
        if !methods.contains(&s.tokenizer.method.as_str()) {
            methods.push(&s.tokenizer.method);
        }
        writeln!(
            out,
            "{:>8}  {:>5}  {:>8}  {:>8}  {:>8}  {:>6}  {:>7}  {:>8}  {:>9}  {:>9}  {}",
            format!("@{}", s.request_offset),
            s.messages,
            s.system_tokens,
            s.history_tokens,
            s.summary_tokens,
            s.frame_tokens,
            s.framing_tokens,
            s.total_tokens,
            s.reported_input
                .map_or_else(|| "-".to_string(), |r| r.to_string()),
            s.total_bytes,
            marks.join(" ")
        )?;
    }
    writeln!(
        out,
        "tokens of the rendered messages (frame = protocol and request-time messages); framing = \
         3 per message and its role, and 3 that prime the reply; reported = the input the \
         journal reports; bytes = UTF-8 bytes of the message contents"
    )?;
    for method in methods {
        writeln!(out, "counted with {method}")?;
    }
    Ok(())
}

/// A block of a transcript message in one line: its type and the start of what it says.
fn block_line(block: &serde_json::Value) -> String {
    let kind = block
        .get("type")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("?");
    let said = match kind {
        "text" => block
            .get("text")
            .and_then(serde_json::Value::as_str)
            .map(str::to_string),
        "thinking" => block
            .get("thinking")
            .and_then(serde_json::Value::as_str)
            .map(str::to_string),
        "tool_use" => Some(format!(
            "{} {}",
            block
                .get("name")
                .and_then(serde_json::Value::as_str)
                .unwrap_or("?"),
            block
                .get("input")
                .map(serde_json::Value::to_string)
                .unwrap_or_default()
        )),
        "tool_result" => Some(format!(
            "for {}: {}",
            block
                .get("tool_use_id")
                .and_then(serde_json::Value::as_str)
                .unwrap_or("?"),
            match block.get("content") {
                Some(serde_json::Value::String(text)) => text.clone(),
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
pub fn conversation(
    out: &mut dyn Write,
    view: &journalscope::claude::ConversationView,
    as_json: bool,
) -> Result<()> {
    if as_json {
        return json(out, view);
    }
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
pub fn conversation_requests(
    out: &mut dyn Write,
    requests: &[journalscope::claude::RequestRow],
    as_json: bool,
) -> Result<()> {
    if as_json {
        return json(out, &requests);
    }
    writeln!(
        out,
        "{:>8}  {:<20} {:>9} {:>12} {:>12} {:>8}  thread",
        "request", "model", "input", "cache write", "cache read", "output"
    )?;
    let field = |usage: &Option<serde_json::Value>, name: &str| {
        usage
            .as_ref()
            .and_then(|u| u.get(name))
            .map_or_else(|| "-".to_string(), serde_json::Value::to_string)
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

/// A transcript's request as the Messages API got it.
pub fn conversation_request(
    out: &mut dyn Write,
    request: &journalscope::dialect::TranscriptRequest,
    as_json: bool,
) -> Result<()> {
    if as_json {
        return json(out, request);
    }
    let request = match request {
        journalscope::dialect::TranscriptRequest::Messages(request) => request,
        journalscope::dialect::TranscriptRequest::Items(request) => {
            writeln!(
                out,
                "request @{} · model {} · {} input items",
                request.request_offset,
                request.model.as_deref().unwrap_or("-"),
                request.input.len()
            )?;
            for item in &request.input {
                let role = item
                    .get("role")
                    .or_else(|| item.get("type"))
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or("?");
                let blocks = item
                    .get("content")
                    .and_then(serde_json::Value::as_array)
                    .cloned()
                    .unwrap_or_else(|| vec![item.clone()]);
                writeln!(out, "{role}")?;
                for block in &blocks {
                    writeln!(out, "    {}", block_line(block))?;
                }
            }
            return Ok(());
        }
    };
    // The messages as the client sends them where its rendering is known, as the window shows.
    let messages: Vec<(String, Vec<serde_json::Value>)> = match &request.sent {
        Some(sent) => sent
            .iter()
            .map(|m| {
                let role = m.get("role").and_then(serde_json::Value::as_str);
                let content = m.get("content").unwrap_or(&serde_json::Value::Null);
                (
                    role.unwrap_or("?").to_string(),
                    journalscope::claude::hash::content_blocks(content),
                )
            })
            .collect(),
        None => request
            .messages
            .iter()
            .map(|m| (m.role.clone(), m.content.clone()))
            .collect(),
    };
    writeln!(
        out,
        "request @{} · model {} · {} message{}{}",
        request.request_offset,
        request.model.as_deref().unwrap_or("-"),
        messages.len(),
        if messages.len() == 1 { "" } else { "s" },
        if request.sent.is_some() {
            " as the client sends them"
        } else {
            ""
        }
    )?;
    for (role, content) in &messages {
        writeln!(out, "{role}")?;
        for block in content {
            writeln!(out, "    {}", block_line(block))?;
        }
    }
    if !request.not_recorded.is_empty() {
        writeln!(out, "not recorded: {}", request.not_recorded.join("; "))?;
    }
    for d in &request.diagnostics {
        writeln!(out, "{} {}: {}", d.severity.as_str(), d.code, d.message)?;
    }
    Ok(())
}

/// The sessions on this machine, newest first.
pub fn sessions(
    out: &mut dyn Write,
    sessions: &[journalscope::transcript::Session],
    as_json: bool,
) -> Result<()> {
    if as_json {
        return json(out, &sessions);
    }
    if sessions.is_empty() {
        writeln!(out, "no Claude Code or Codex sessions found")?;
        return Ok(());
    }
    for s in sessions {
        let size = if s.bytes >= 1 << 20 {
            format!("{:.1} MiB", s.bytes as f64 / 1048576.0)
        } else {
            format!("{:.0} KiB", s.bytes as f64 / 1024.0)
        };
        writeln!(
            out,
            "{}  {:<11} {:>9}{}  {}",
            s.id,
            s.dialect.as_str(),
            size,
            if s.live { "  live" } else { "" },
            s.project.as_deref().unwrap_or("-")
        )?;
        if let Some(prompt) = &s.first_prompt {
            writeln!(out, "    {prompt}")?;
        }
    }
    Ok(())
}

/// The session or thread that ran this subagent's transcript, where it is one.
pub fn spawned_by(
    out: &mut dyn Write,
    parent: Option<&journalscope::transcript::SpawnedBy>,
) -> Result<()> {
    let Some(parent) = parent else {
        return Ok(());
    };
    let id = parent.parent_id.as_deref().unwrap_or("an unnamed session");
    match &parent.path {
        Some(path) => writeln!(out, "spawned by {id}\n    {path}")?,
        None => writeln!(
            out,
            "spawned by {id} (its file is not where its writer keeps it)"
        )?,
    }
    Ok(())
}

pub fn subagents(
    out: &mut dyn Write,
    subagents: &[journalscope::transcript::Subagent],
) -> Result<()> {
    if subagents.is_empty() {
        writeln!(out, "no subagents")?;
        return Ok(());
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
