//! Iterate's text of `diff` and `cache`: the prefix two requests share, why it broke, and each
//! request's prefix against the ideal as a bar.

use std::fmt::{self, Write};

use crate::iterate::diff::{
    BodyField, BreakCause, CacheReport, DiffMessage, DiffOp, PrefixBreak, RequestDiff,
};

/// Characters of unchanged text shown on each side of a change; the rest is elided.
const CONTEXT: usize = 60;

fn first_line(text: &str, width: usize) -> String {
    let line = text.lines().next().unwrap_or("");
    let mut shown: String = line.chars().take(width).collect();
    if line.chars().count() > width || text.contains('\n') {
        shown.push('…');
    }
    shown
}

fn message_label(message: &Option<DiffMessage>) -> String {
    match message {
        None => "(none)".to_string(),
        Some(m) => {
            let what = match m.item {
                Some(offset) => format!("@{offset}"),
                None if m.index == 0 => "protocol".to_string(),
                None => "time".to_string(),
            };
            // An agent-loop input item says its type beside its role.
            let kind = match m.kind.as_deref() {
                Some("message") | None => String::new(),
                Some(kind) => format!(" {kind}"),
            };
            format!(
                "[{}] {}{kind} {what}: {}",
                m.index,
                m.role.as_str(),
                first_line(&m.content, 40)
            )
        }
    }
}

fn elide(text: &str, keep_start: bool, keep_end: bool) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= 2 * CONTEXT {
        return text.to_string();
    }
    match (keep_start, keep_end) {
        (true, true) => format!(
            "{}…{}",
            chars[..CONTEXT].iter().collect::<String>(),
            chars[chars.len() - CONTEXT..].iter().collect::<String>()
        ),
        (true, false) => format!("{}…", chars[..CONTEXT].iter().collect::<String>()),
        _ => format!(
            "…{}",
            chars[chars.len() - CONTEXT..].iter().collect::<String>()
        ),
    }
}

fn cause_line(cause: &BreakCause) -> String {
    let kind = match cause {
        BreakCause::Compaction { .. } => "compaction",
        BreakCause::SystemLaneUpdate { .. } => "system-lane-update",
        BreakCause::KeyedSlotRepublished { .. } => "keyed-slot-republished",
        BreakCause::ModelChange { .. } => "model-change",
        BreakCause::TransportChange { .. } => "transport-change",
        BreakCause::ContextRewritten { .. } => "context-rewritten",
        BreakCause::SectionSuperseded { .. } => "section-superseded",
        BreakCause::Unexpected { .. } => "UNEXPECTED",
    };
    format!("{kind}: {}", cause.explain())
}

fn prefix_break(out: &mut dyn Write, broke: &PrefixBreak) -> fmt::Result {
    let at = |item: Option<i64>| item.map_or_else(|| "-".to_string(), |o| format!("@{o}"));
    writeln!(
        out,
        "break at message {} ({} → {}) · {} byte(s) lost{}",
        broke.at_message,
        at(broke.earlier_item),
        at(broke.later_item),
        broke.lost_bytes,
        if broke.expected { "" } else { " · UNEXPECTED" }
    )?;
    for (index, cause) in broke.causes.iter().enumerate() {
        let label = if index == 0 { "cause" } else { "also " };
        writeln!(out, "  {label}  {}", cause_line(cause))?;
    }
    if let Some(field) = &broke.field {
        writeln!(
            out,
            "  field  input item {} differs in `{field}`",
            broke.at_message
        )?;
    }
    if let Some(point) = broke.breakpoint {
        let side = if point < broke.at_message {
            "before the first difference: the input through it can still be read from the cache"
        } else {
            "at or after the first difference: what was cached through it is not reused"
        };
        writeln!(out, "  breakpoint  input item {point}, {side}")?;
    }
    Ok(())
}

/// Two requests side by side: their common prefix, where and why it broke, the rows from
/// the first difference on and the characters of the first changed message.
pub fn diff(out: &mut dyn Write, diff: &RequestDiff) -> fmt::Result {
    let model = |m: &Option<String>| m.clone().unwrap_or_else(|| "-".to_string());
    writeln!(
        out,
        "diff request @{} ({}, {}) → @{} ({}, {})",
        diff.from.request_offset,
        model(&diff.from.model),
        diff.from.transport.as_str(),
        diff.to.request_offset,
        model(&diff.to.model),
        diff.to.transport.as_str()
    )?;
    writeln!(
        out,
        "common prefix  {} message(s), {} byte(s) · ideal {} message(s), {} byte(s) · reused {} byte(s)",
        diff.common_prefix_messages,
        diff.common_prefix_bytes,
        diff.ideal_prefix_messages,
        diff.ideal_prefix_bytes,
        diff.reused_prefix_bytes
    )?;
    match &diff.prefix_break {
        Some(broke) => prefix_break(out, broke)?,
        None => writeln!(out, "no break: the later request extends the earlier one")?,
    }
    body_fields(out, &diff.body_fields)?;
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
    for row in &diff.rows {
        let sign = match row.op {
            DiffOp::Same => ' ',
            DiffOp::Changed => '~',
            DiffOp::Removed => '-',
            DiffOp::Added => '+',
        };
        writeln!(
            out,
            "{sign} {:<60} │ {}",
            message_label(&row.from),
            message_label(&row.to)
        )?;
    }
    if let Some(characters) = &diff.characters {
        writeln!(
            out,
            "\n── characters of message {} ── {} → {}{}",
            characters.message,
            characters.from_role.as_str(),
            characters.to_role.as_str(),
            if characters.coarse { " (coarse)" } else { "" }
        )?;
        let last = characters.segments.len().saturating_sub(1);
        let mut text = String::new();
        for (index, segment) in characters.segments.iter().enumerate() {
            match segment.op {
                DiffOp::Removed => text.push_str(&format!("[-{}-]", segment.text)),
                DiffOp::Added => text.push_str(&format!("{{+{}+}}", segment.text)),
                _ => text.push_str(&elide(&segment.text, index != 0, index != last)),
            }
        }
        writeln!(out, "{text}")?;
    }
    Ok(())
}

/// An agent-loop body's fields besides its input: the same ones by name, each other with
/// both values.
fn body_fields(out: &mut dyn Write, fields: &[BodyField]) -> fmt::Result {
    if fields.is_empty() {
        return Ok(());
    }
    let same: Vec<&str> = fields
        .iter()
        .filter(|f| f.op == DiffOp::Same)
        .map(|f| f.name.as_str())
        .collect();
    if !same.is_empty() {
        writeln!(out, "body fields the same: {}", same.join(", "))?;
    }
    let absent = || "(none)".to_string();
    for field in fields.iter().filter(|f| f.op != DiffOp::Same) {
        writeln!(
            out,
            "body field {}: {} → {}",
            field.name,
            field.from.clone().unwrap_or_else(absent),
            field.to.clone().unwrap_or_else(absent)
        )?;
    }
    Ok(())
}

/// A bar of `width` cells: reused prefix `█`, lost against the ideal `▒`, the rest `░`.
fn bar(reused: u64, lost: u64, body: u64, scale: u64, width: u64) -> String {
    let cells = |bytes: u64| (bytes * width).div_ceil(scale.max(1));
    let reused_cells = cells(reused);
    let lost_cells = cells(reused + lost).saturating_sub(reused_cells);
    let rest = cells(body).saturating_sub(reused_cells + lost_cells);
    format!(
        "{}{}{}",
        "█".repeat(reused_cells as usize),
        "▒".repeat(lost_cells as usize),
        "░".repeat(rest as usize)
    )
}

/// Each request's cached prefix against the one before, as a bar, with the totals and the
/// breaks explained.
pub fn cache(out: &mut dyn Write, report: &CacheReport) -> fmt::Result {
    writeln!(
        out,
        "cache prefix · transport {} · {} request(s) · each against the one before",
        report.transport.as_str(),
        report.requests.len()
    )?;
    writeln!(
        out,
        " request  previous    tokens    reused     ideal      lost    cached     bytes  prefix in tokens (█ reused ▒ lost ░ new)"
    )?;
    let scale = report.requests.iter().map(|r| r.tokens).max().unwrap_or(1);
    for entry in &report.requests {
        let previous = entry
            .previous_request
            .map_or_else(|| "-".to_string(), |p| format!("@{p}"));
        let mark = match &entry.prefix_break {
            Some(b) if !b.expected => "  ✗ UNEXPECTED",
            Some(_) => "  ✗",
            None => "",
        };
        writeln!(
            out,
            "{:>8}  {:>8}  {:>8}  {:>8}  {:>8}  {:>8}  {:>8}  {:>8}  {}{mark}",
            format!("@{}", entry.request_offset),
            previous,
            entry.tokens,
            entry.reused_prefix_tokens,
            entry.ideal_prefix_tokens,
            entry.lost_tokens,
            entry
                .reported_cached
                .map_or_else(|| "-".to_string(), |c| c.to_string()),
            entry.body_bytes,
            bar(
                entry.reused_prefix_tokens,
                entry.lost_tokens,
                entry.tokens,
                scale,
                30
            )
        )?;
    }
    writeln!(
        out,
        "tokens   sent {} · reused {} · lost {} (cached = the cached input the journal reports)",
        report.total_tokens, report.total_reused_tokens, report.total_lost_tokens
    )?;
    writeln!(
        out,
        "bytes    body {} · reused {} · ideal {} · lost {} · {} break(s), {} unexpected",
        report.total_body_bytes,
        report.total_reused_bytes,
        report.total_ideal_bytes,
        report.total_lost_bytes,
        report.breaks,
        report.unexpected_breaks
    )?;
    let breaks: Vec<_> = report
        .requests
        .iter()
        .filter_map(|e| e.prefix_break.as_ref().map(|b| (e, b)))
        .collect();
    if !breaks.is_empty() {
        writeln!(out, "\nBREAKS")?;
        for (entry, broke) in breaks {
            write!(out, "@{}: ", entry.request_offset)?;
            prefix_break(out, broke)?;
        }
    }
    Ok(())
}
