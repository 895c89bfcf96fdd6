//! Reading iterate envelopes: offset, type, time and a one-line summary per record, with the
//! checks that need no fold (missing or non-increasing offsets, unknown types).

use serde_json::Value;

use journalscope_shapes::diagnostic::Diagnostic;
use journalscope_shapes::record_json::Node;
use journalscope_shapes::source::RawRecord;
use journalscope_store::derived::ReadEvent;

const TYPE_PREFIXES: &[&str] = &["events.iterate.com/agent/", "events.iterate.com/agents/"];

/// Event types the projection knows, by their last segment.
pub const KNOWN_TYPES: &[&str] = &[
    "context-added",
    "context-rewritten",
    "llm-request-requested",
    "llm-request-settled",
    "llm-response-chunk",
    "token-usage-reported",
    "created",
    "configured",
    "paused",
    "resumed",
];

/// The last segment of an iterate type after its optional agent prefix, or `None` for a type
/// outside the agent vocabulary.
pub fn short_type(kind: &str) -> Option<&str> {
    let rest = TYPE_PREFIXES
        .iter()
        .find_map(|prefix| kind.strip_prefix(prefix))
        .unwrap_or(kind);
    KNOWN_TYPES.contains(&rest).then_some(rest)
}

pub fn looks_like(value: &Value) -> bool {
    value.field("offset").is_some_and(Value::is_i64)
        || value
            .field("type")
            .and_then(Node::as_str)
            .is_some_and(|t| t.starts_with("events.iterate.com/") || short_type(t).is_some())
}

#[derive(Debug, Default)]
pub struct Reader {
    last_offset: Option<i64>,
}

impl Reader {
    pub fn resume_after(&mut self, offset: Option<i64>) {
        self.last_offset = offset;
    }

    pub fn read<J: Node>(&mut self, record: &RawRecord, value: Option<&J>) -> ReadEvent {
        let Some(value) = value else {
            return ReadEvent {
                summary: summarize_text(&record.bytes),
                ..ReadEvent::default()
            };
        };
        let mut diagnostics = Vec::new();
        let line = record.line;
        let object = value;
        if !object.is_object() {
            diagnostics.push(Diagnostic::error(
                line,
                None,
                "not-an-object",
                "an event must be a JSON object",
            ));
            return ReadEvent {
                summary: summarize_text(&record.bytes),
                diagnostics,
                ..ReadEvent::default()
            };
        }
        let offset = match object.field("offset") {
            Some(n) if n.is_i64() => n.as_i64(),
            Some(text) if text.as_str().is_some_and(|s| s.parse::<i64>().is_ok()) => {
                let s = text.as_str().unwrap_or_default();
                diagnostics.push(Diagnostic::warning(
                    line,
                    s.parse().ok(),
                    "offset-not-integer",
                    format!("offset is the string {s:?}, read as a number"),
                ));
                s.parse().ok()
            }
            Some(other) => {
                diagnostics.push(Diagnostic::error(
                    line,
                    None,
                    "missing-offset",
                    format!("offset is {other}, not an integer: the event is not reduced"),
                ));
                None
            }
            None => {
                diagnostics.push(Diagnostic::error(
                    line,
                    None,
                    "missing-offset",
                    "the event has no offset: it is shown but not reduced",
                ));
                None
            }
        };
        if let Some(offset) = offset.filter(|o| *o < 0) {
            diagnostics.push(Diagnostic::warning(
                line,
                Some(offset),
                "negative-offset",
                format!("offset {offset} is negative: journal offsets count up from 0"),
            ));
        }
        if let (Some(offset), Some(last)) = (offset, self.last_offset) {
            if offset <= last {
                diagnostics.push(Diagnostic::error(
                    line,
                    Some(offset),
                    "offset-not-increasing",
                    format!("offset {offset} follows offset {last}: reduced in file order"),
                ));
            }
        }
        if let Some(offset) = offset {
            self.last_offset = Some(self.last_offset.map_or(offset, |last| last.max(offset)));
        }
        let kind = object
            .field("type")
            .and_then(Node::as_str)
            .map(str::to_string);
        match &kind {
            None => diagnostics.push(Diagnostic::error(
                line,
                offset,
                "missing-type",
                "the event has no type",
            )),
            Some(kind) if short_type(kind).is_none() && !super::agent_loop::known(kind) => diagnostics.push(Diagnostic::warning(
                line,
                offset,
                "unknown-type",
                format!("type {kind:?} is not an agent event: shown raw, it does not change the projection"),
            )),
            Some(_) => {}
        }
        let created_at = object
            .field("createdAt")
            .and_then(Node::as_str)
            .map(str::to_string);
        ReadEvent {
            offset,
            summary: summarize(kind.as_deref(), object.field("payload")),
            kind,
            created_at,
            diagnostics,
        }
    }
}

fn summarize_text(bytes: &[u8]) -> String {
    one_line(&String::from_utf8_lossy(bytes), 120)
}

/// Collapses whitespace and cuts at `max` characters, marking the cut.
pub fn one_line(text: &str, max: usize) -> String {
    one_line_words(text.split_whitespace(), max)
}

/// [`one_line`] over words already split. It stops at the word that crosses `max` and takes
/// only what it needs of that word: a context item's content runs to 100 KB, and a summary
/// used to copy and count all of it.
fn one_line_words<'a>(words: impl Iterator<Item = &'a str>, max: usize) -> String {
    let mut out = String::new();
    let mut chars = 0;
    for (count, word) in words.enumerate() {
        if count > 0 {
            out.push(' ');
            chars += 1;
        }
        // One character past `max` is enough to know the cut is there.
        let room = (max + 1).saturating_sub(chars);
        let end = word.char_indices().nth(room).map_or(word.len(), |(i, _)| i);
        out.push_str(&word[..end]);
        chars += word[..end].chars().count();
        if chars > max {
            let cut: String = out.chars().take(max).collect();
            return format!("{cut}…");
        }
    }
    out
}

fn summarize<J: Node>(kind: Option<&str>, payload: Option<&J>) -> String {
    let field = |name: &str| payload.and_then(|p| p.field(name));
    let text = |name: &str| field(name).and_then(Node::as_str).unwrap_or("");
    // A figure as the payload writes it, `null` when it has none.
    let shown = |name: &str| field(name).map_or("null".to_string(), J::to_string);
    match kind.and_then(short_type) {
        Some("context-added") => {
            let role = text("role");
            let actor = field("actor")
                .and_then(|a| a.field("type"))
                .and_then(Node::as_str)
                .map(|a| format!(" ({a})"))
                .unwrap_or_default();
            let key = field("key")
                .and_then(Node::as_str)
                .map(|k| format!(" key={k}"))
                .unwrap_or_default();
            let compaction = if field("compaction").is_some() {
                " compaction"
            } else {
                ""
            };
            let head = format!("{role}{actor}{key}{compaction}:");
            one_line_words(
                head.split_whitespace()
                    .chain(text("content").split_whitespace()),
                120,
            )
        }
        Some("llm-request-requested") => format!("request {}", text("model")),
        Some("llm-request-settled") => {
            let status = field("result")
                .and_then(|r| r.field("status"))
                .and_then(Node::as_str)
                .unwrap_or("?");
            let request = field("requestOffset")
                .map(|o| format!(" @{o}"))
                .unwrap_or_default();
            format!("settled{request} {status}")
        }
        Some("token-usage-reported") => format!(
            "usage in={} out={} of {}",
            shown("inputTokens"),
            shown("outputTokens"),
            shown("maxContextTokens")
        ),
        Some(other) => other.to_string(),
        None => one_line(&payload.map_or("null".to_string(), J::to_string), 120),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The summary as it was first written: collapse everything, then cut.
    fn one_line_whole(text: &str, max: usize) -> String {
        let out = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if out.chars().count() > max {
            let cut: String = out.chars().take(max).collect();
            return format!("{cut}…");
        }
        out
    }

    #[test]
    fn a_long_word_is_cut_at_max_characters() {
        let summary = one_line(&format!("say {}", "é".repeat(100_000)), 10);
        assert_eq!(
            summary,
            format!("say {}…", "é".repeat(6)),
            "the cut counts characters, not bytes, and marks itself"
        );
    }

    proptest! {
        #[test]
        fn reading_only_the_head_gives_the_summary_of_the_whole(
            text in "[a-zé \\t\\n]{0,300}",
            max in 0usize..40,
        ) {
            prop_assert_eq!(
                one_line(&text, max),
                one_line_whole(&text, max),
                "stopping early must not change what the event list shows"
            );
        }
    }
}
