//! Two requests of a transcript side by side: the messages they share from the start, where
//! they part, and what the prompt cache made of the later one.

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use super::cache::CacheEntry;
use super::one_line;

use journalscope_shapes::record_json::Field;

/// Characters of a message's text a row keeps: enough to recognise it, bounded whatever the
/// message holds.
const TEXT_CHARS: usize = 400;

/// How a row of the diff changed between the two requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export, rename = "TranscriptDiffOp")]
pub enum RowChange {
    Same,
    Changed,
    Removed,
    Added,
}

/// One message (or Responses API item) of one side of a row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TranscriptDiffMessage {
    #[ts(type = "number")]
    pub index: u64,
    pub role: String,
    /// The message's text on one line, tool calls and results named, cut to a few hundred
    /// characters.
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TranscriptDiffRow {
    pub op: RowChange,
    pub from: Option<TranscriptDiffMessage>,
    pub to: Option<TranscriptDiffMessage>,
}

/// One side of the diff: a request by its first line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TranscriptDiffSide {
    #[ts(type = "number")]
    pub request_offset: i64,
    pub model: Option<String>,
    #[ts(type = "number")]
    pub messages: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TranscriptDiff {
    pub from: TranscriptDiffSide,
    pub to: TranscriptDiffSide,
    /// Leading messages equal in every field.
    #[ts(type = "number")]
    pub common_prefix_messages: u64,
    /// The first message that differs, when one does.
    #[ts(type = "number | null")]
    pub first_difference: Option<u64>,
    /// From the first difference on, the two lists message by message.
    pub rows: Vec<TranscriptDiffRow>,
    /// What the later request read from the cache against what `from` left, when `from` is
    /// the request before it in its thread.
    pub cache: Option<CacheEntry>,
}

/// One side's request: its first line, model and messages as the provider got them.
pub struct Side<'a> {
    pub request_offset: i64,
    pub model: Option<String>,
    pub messages: &'a [Value],
}

/// The diff of `from` and `to`; `cache` is the later request's cache entry, kept only when it
/// measured against `from`.
pub fn diff(from: Side<'_>, to: Side<'_>, cache: Option<CacheEntry>) -> TranscriptDiff {
    let common = from
        .messages
        .iter()
        .zip(to.messages)
        .take_while(|(a, b)| a == b)
        .count();
    let longest = from.messages.len().max(to.messages.len());
    let rows = (common..longest)
        .map(|index| {
            let a = from.messages.get(index);
            let b = to.messages.get(index);
            let op = match (a, b) {
                (Some(a), Some(b)) if a == b => RowChange::Same,
                (Some(_), Some(_)) => RowChange::Changed,
                (Some(_), None) => RowChange::Removed,
                _ => RowChange::Added,
            };
            TranscriptDiffRow {
                op,
                from: a.map(|m| message(index, m)),
                to: b.map(|m| message(index, m)),
            }
        })
        .collect();
    let cache = cache.filter(|entry| {
        entry.request_offset == to.request_offset
            && entry.previous_request == Some(from.request_offset)
    });
    TranscriptDiff {
        common_prefix_messages: common as u64,
        first_difference: (common < longest).then_some(common as u64),
        rows,
        cache,
        from: side(&from),
        to: side(&to),
    }
}

fn side(side: &Side<'_>) -> TranscriptDiffSide {
    TranscriptDiffSide {
        request_offset: side.request_offset,
        model: side.model.clone(),
        messages: side.messages.len() as u64,
    }
}

fn message(index: usize, value: &Value) -> TranscriptDiffMessage {
    let role = value
        .field("role")
        .or_else(|| value.field("type"))
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_string();
    // A tool set reads as its tools' names: a changed schema still marks the row changed.
    let text = if role == "tools" {
        let names: Vec<&str> = value
            .field("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|tool| tool.field("name").and_then(Value::as_str))
            .collect();
        format!("{} tools: {}", names.len(), names.join(", "))
    } else {
        text_of(value)
    };
    TranscriptDiffMessage {
        index: index as u64,
        role,
        text: one_line(&text, TEXT_CHARS),
    }
}

/// A Messages API message or block, or a Responses API item, as text a person reads: its
/// text, and the names of the tool calls and results in it.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.iter().map(text_of).collect::<Vec<_>>().join(" "),
        Value::Object(fields) => {
            let kind = fields.field("type").and_then(Value::as_str).unwrap_or("");
            let field = |name: &str| fields.get(name).map(text_of).unwrap_or_default();
            let compact = |name: &str| {
                fields
                    .get(name)
                    .map(|v| match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .unwrap_or_default()
            };
            match kind {
                "tool_use" | "server_tool_use" => {
                    format!("[tool_use {} {}]", field("name"), compact("input"))
                }
                "tool_result" => format!("[tool_result {}]", field("content")),
                "thinking" | "redacted_thinking" | "reasoning" => format!("[{kind}]"),
                "function_call" | "custom_tool_call" | "local_shell_call" => format!(
                    "[{kind} {} {}]",
                    field("name"),
                    compact(if fields.contains_key("arguments") {
                        "arguments"
                    } else {
                        "input"
                    })
                ),
                "function_call_output" | "custom_tool_call_output" => {
                    format!("[{kind} {}]", compact("output"))
                }
                _ if fields.contains_key("text") => field("text"),
                _ if fields.contains_key("content") => field("content"),
                _ => value.to_string(),
            }
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn side(offset: i64, messages: &[Value]) -> Side<'_> {
        Side {
            request_offset: offset,
            model: Some("m".into()),
            messages,
        }
    }

    #[test]
    fn given_a_request_that_extends_the_one_before_then_only_added_rows_follow_the_prefix() {
        let before = [
            json!({"role": "user", "content": "hi"}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "hello"}]}),
        ];
        let mut after = before.to_vec();
        after.push(json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]}));
        let d = diff(side(2, &before), side(5, &after), None);
        assert_eq!(d.common_prefix_messages, 2, "both shared messages count");
        assert_eq!(
            d.first_difference,
            Some(2),
            "they part where the new one starts"
        );
        assert_eq!(d.rows.len(), 1, "only the part after the prefix is listed");
        assert_eq!(d.rows[0].op, RowChange::Added, "the new message is added");
        assert_eq!(
            d.rows[0].to.as_ref().map(|m| m.text.as_str()),
            Some("[tool_result ok]"),
            "a tool result is named and its content shown"
        );
    }

    #[test]
    fn given_a_compacted_history_then_the_first_message_changes_and_the_rest_is_removed() {
        let before = [
            json!({"role": "user", "content": "a"}),
            json!({"role": "assistant", "content": "b"}),
            json!({"role": "user", "content": "c"}),
        ];
        let after = [json!({"role": "user", "content": "summary of a b c"})];
        let d = diff(side(3, &before), side(9, &after), None);
        assert_eq!(d.common_prefix_messages, 0, "nothing is shared");
        let ops: Vec<RowChange> = d.rows.iter().map(|r| r.op).collect();
        assert_eq!(
            ops,
            [RowChange::Changed, RowChange::Removed, RowChange::Removed],
            "the summary replaces the first message and the rest is gone"
        );
    }

    #[test]
    fn a_cache_entry_is_kept_only_when_it_measured_the_later_request_against_the_earlier() {
        let m = [json!({"role": "user", "content": "x"})];
        let entry = |previous: Option<i64>| CacheEntry {
            request_offset: 9,
            previous_request: previous,
            thread: "main".into(),
            model: None,
            input_tokens: 0,
            cache_read_tokens: 0,
            cache_write_tokens: 0,
            expected_read_tokens: 0,
            missed_tokens: 0,
            broke: false,
            causes: Vec::new(),
            explanation: String::new(),
            reported_reason: None,
        };
        assert!(
            diff(side(4, &m), side(9, &m), Some(entry(Some(4))))
                .cache
                .is_some(),
            "measured against @4: kept"
        );
        assert!(
            diff(side(2, &m), side(9, &m), Some(entry(Some(4))))
                .cache
                .is_none(),
            "measured against another request: dropped, it would mislead"
        );
        assert_eq!(
            diff(side(2, &m), side(9, &m), None).first_difference,
            None,
            "identical requests part nowhere"
        );
    }
}
