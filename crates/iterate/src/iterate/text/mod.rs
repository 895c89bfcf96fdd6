//! Iterate's text of the views the command line prints: the projection, the request list, one
//! request and the context sizes (`prefix` writes diffs and the cache report). Text is for
//! people at a terminal; each view's JSON is the value itself.

pub mod prefix;

use std::fmt::{self, Write};

use journalscope_shapes::text::{diagnostic_line, offset_text, token_method};
use journalscope_shapes::tokens::Reconciliation;

use super::projection::Rules;
use super::render::RequestSnapshot;
use super::sizes::ContextSizes;
use super::view::{ItemView, ProjectionView, RequestSummary};

fn indent(text: &str, prefix: &str) -> String {
    text.lines()
        .map(|line| format!("{prefix}{line}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn item_text(out: &mut dyn Write, item: &ItemView, rules: Option<Rules>) -> fmt::Result {
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
    writeln!(out, "{}", indent(&item.content, "      "))
}

/// The projection at an offset: its lanes (or the agent loop's list and runs) and the latest
/// diagnostics.
pub fn projection(out: &mut dyn Write, view: &ProjectionView) -> fmt::Result {
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
            writeln!(out, "{}", diagnostic_line(d))?;
        }
    }
    Ok(())
}

/// Every request, one row each: what it published and how many items it sent.
pub fn requests(out: &mut dyn Write, requests: &[RequestSummary]) -> fmt::Result {
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

/// A request's JSON: the snapshot, each message carrying its own count beside the request's
/// totals.
pub fn request_json(snapshot: &RequestSnapshot) -> serde_json::Value {
    // Serialising plain data does not fail.
    let mut value = serde_json::to_value(snapshot).unwrap_or(serde_json::Value::Null);
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
    value
}

/// One request as its provider gets it: each message with the item it stands for and its
/// tokens, or an agent-loop request's Responses-API body.
pub fn request(out: &mut dyn Write, snapshot: &RequestSnapshot) -> fmt::Result {
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
        writeln!(out, "{body}")?;
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

/// Each request's context by lane, in tokens, with marks for estimates, counts that miss the
/// reported input, compactions and prefix breaks.
pub fn sizes(out: &mut dyn Write, sizes: &[ContextSizes]) -> fmt::Result {
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
            let check = Reconciliation::of(s.total_tokens, reported, s.tokenizer.exact);
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
