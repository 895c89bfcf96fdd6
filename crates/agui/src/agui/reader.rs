//! Reading AG-UI events one record at a time: the event's offset (its 1-based position), its
//! type, its time and a one-line summary, with the checks that need no fold (unknown types,
//! missing or mistyped required fields, `metadata: null`).

use serde_json::{Map, Value};

use journalscope_shapes::diagnostic::Diagnostic;
use journalscope_shapes::record_json::Field;
use journalscope_shapes::source::RawRecord;
use journalscope_store::derived::ReadEvent;

/// Every event type of the AG-UI protocol, with the fields a producer must send for it.
/// `THINKING_*` are the deprecated spellings of reasoning events: known, but they build nothing.
pub const EVENT_TYPES: &[(&str, &[&str])] = &[
    ("RUN_STARTED", &["threadId", "runId"]),
    ("RUN_FINISHED", &["threadId", "runId"]),
    ("RUN_ERROR", &["message"]),
    ("STEP_STARTED", &["stepName"]),
    ("STEP_FINISHED", &["stepName"]),
    ("TEXT_MESSAGE_START", &["messageId"]),
    ("TEXT_MESSAGE_CONTENT", &["messageId", "delta"]),
    ("TEXT_MESSAGE_END", &["messageId"]),
    ("TEXT_MESSAGE_CHUNK", &[]),
    ("TOOL_CALL_START", &["toolCallId", "toolCallName"]),
    ("TOOL_CALL_ARGS", &["toolCallId", "delta"]),
    ("TOOL_CALL_END", &["toolCallId"]),
    ("TOOL_CALL_CHUNK", &[]),
    ("TOOL_CALL_RESULT", &["messageId", "toolCallId", "content"]),
    ("STATE_SNAPSHOT", &["snapshot"]),
    ("STATE_DELTA", &["delta"]),
    ("MESSAGES_SNAPSHOT", &["messages"]),
    (
        "ACTIVITY_SNAPSHOT",
        &["messageId", "activityType", "content"],
    ),
    ("ACTIVITY_DELTA", &["messageId", "activityType", "patch"]),
    ("REASONING_START", &["messageId"]),
    ("REASONING_END", &["messageId"]),
    ("REASONING_MESSAGE_START", &["messageId"]),
    ("REASONING_MESSAGE_CONTENT", &["messageId", "delta"]),
    ("REASONING_MESSAGE_END", &["messageId"]),
    ("REASONING_MESSAGE_CHUNK", &[]),
    (
        "REASONING_ENCRYPTED_VALUE",
        &["subtype", "entityId", "encryptedValue"],
    ),
    ("THINKING_START", &[]),
    ("THINKING_END", &[]),
    ("THINKING_TEXT_MESSAGE_START", &[]),
    ("THINKING_TEXT_MESSAGE_CONTENT", &[]),
    ("THINKING_TEXT_MESSAGE_END", &[]),
    ("RAW", &["event"]),
    ("CUSTOM", &["name", "value"]),
];

/// Fields that, when present, must be strings: ids and text deltas.
const STRING_FIELDS: &[&str] = &[
    "threadId",
    "runId",
    "messageId",
    "toolCallId",
    "toolCallName",
    "parentMessageId",
    "stepName",
    "activityType",
    "delta",
    "role",
];

pub fn is_known_type(kind: &str) -> bool {
    EVENT_TYPES.iter().any(|(name, _)| *name == kind)
}

fn required_fields(kind: &str) -> &'static [&'static str] {
    EVENT_TYPES
        .iter()
        .find(|(name, _)| *name == kind)
        .map_or(&[], |(_, fields)| fields)
}

/// An AG-UI event is an object whose `type` is one of the protocol's upper-case names.
pub fn looks_like(value: &Value) -> bool {
    value
        .field("type")
        .and_then(Value::as_str)
        .is_some_and(is_known_type)
}

#[derive(Debug, Default)]
pub struct Reader {
    /// Records read so far, shown in debug output; it also keeps the reader a value rather
    /// than a unit struct, which the seam builds with `default()`.
    records: u64,
}

impl Reader {
    pub fn read(&mut self, record: &RawRecord, value: Option<&Value>) -> ReadEvent {
        self.records += 1;
        let offset = Some(record.seq as i64 + 1);
        let Some(value) = value else {
            return ReadEvent {
                offset,
                summary: one_line(&String::from_utf8_lossy(&record.bytes), 100),
                ..ReadEvent::default()
            };
        };
        let line = record.line;
        let Some(object) = value.as_object() else {
            return ReadEvent {
                offset,
                summary: one_line(&String::from_utf8_lossy(&record.bytes), 100),
                diagnostics: vec![Diagnostic::error(
                    line,
                    offset,
                    "not-an-object",
                    "an AG-UI event must be a JSON object",
                )],
                ..ReadEvent::default()
            };
        };
        let kind = object.field("type").and_then(Value::as_str);
        ReadEvent {
            offset,
            kind: kind.map(str::to_string),
            created_at: object
                .field("timestamp")
                .and_then(Value::as_i64)
                .and_then(iso_from_millis),
            summary: summarize(kind.unwrap_or("?"), object),
            diagnostics: check(object, kind, line, offset),
        }
    }
}

fn check(
    object: &Map<String, Value>,
    kind: Option<&str>,
    line: u64,
    offset: Option<i64>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    match kind {
        None => out.push(Diagnostic::error(
            line,
            offset,
            "missing-type",
            "the event has no string `type`: shown, but it changes nothing",
        )),
        Some(kind) if !is_known_type(kind) => out.push(Diagnostic::warning(
            line,
            offset,
            "unknown-type",
            format!("{kind:?} is not an AG-UI event type: shown raw, it changes nothing"),
        )),
        Some(kind) => {
            for field in required_fields(kind) {
                if object.field(field).is_none_or(Value::is_null) {
                    out.push(Diagnostic::error(
                        line,
                        offset,
                        "missing-field",
                        format!("{kind} requires `{field}`: a consumer rejects this event"),
                    ));
                }
            }
        }
    }
    for field in STRING_FIELDS {
        // A state delta's `delta` is a patch; its shape is judged when it is folded.
        if *field == "delta" && kind == Some("STATE_DELTA") {
            continue;
        }
        if let Some(value) = object.field(field) {
            if !value.is_string() && !value.is_null() {
                out.push(Diagnostic::error(
                    line,
                    offset,
                    "invalid-field",
                    format!("`{field}` must be a string, found {}", type_name(value)),
                ));
            }
        }
    }
    match object.field("metadata") {
        Some(Value::Null) => out.push(Diagnostic::error(
            line,
            offset,
            "metadata-null",
            "`metadata: null` is invalid: omit it or send an object",
        )),
        Some(Value::Object(_)) | None => {}
        Some(other) => out.push(Diagnostic::error(
            line,
            offset,
            "invalid-field",
            format!("`metadata` must be an object, found {}", type_name(other)),
        )),
    }
    if let Some(timestamp) = object.field("timestamp") {
        if !timestamp.is_number() {
            out.push(Diagnostic::warning(
                line,
                offset,
                "invalid-timestamp",
                format!(
                    "`timestamp` must be a number, found {}",
                    type_name(timestamp)
                ),
            ));
        }
    }
    out
}

pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn text<'a>(object: &'a Map<String, Value>, field: &str) -> &'a str {
    object.field(field).and_then(Value::as_str).unwrap_or("")
}

fn quoted(text: &str) -> String {
    let escaped = serde_json::to_string(text).unwrap_or_default();
    one_line_keep(&escaped, 80)
}

/// One line for the event list: the type, the id it concerns, and a short excerpt.
fn summarize(kind: &str, object: &Map<String, Value>) -> String {
    let parts: Vec<String> = match kind {
        "RUN_STARTED" | "RUN_FINISHED" => {
            let mut parts = vec![format!(
                "{}/{}",
                text(object, "threadId"),
                text(object, "runId")
            )];
            if let Some(outcome) = object
                .field("outcome")
                .and_then(|o| o.field("type"))
                .and_then(Value::as_str)
            {
                parts.push(outcome.to_string());
            }
            parts
        }
        "RUN_ERROR" => vec![quoted(text(object, "message"))],
        "STEP_STARTED" | "STEP_FINISHED" => vec![text(object, "stepName").to_string()],
        "TEXT_MESSAGE_START" => vec![
            text(object, "messageId").to_string(),
            object
                .field("role")
                .and_then(Value::as_str)
                .unwrap_or("assistant")
                .to_string(),
        ],
        "TEXT_MESSAGE_CONTENT"
        | "REASONING_MESSAGE_CONTENT"
        | "TEXT_MESSAGE_CHUNK"
        | "REASONING_MESSAGE_CHUNK" => vec![
            text(object, "messageId").to_string(),
            quoted(text(object, "delta")),
        ],
        "TOOL_CALL_START" => vec![
            text(object, "toolCallId").to_string(),
            text(object, "toolCallName").to_string(),
        ],
        "TOOL_CALL_ARGS" | "TOOL_CALL_CHUNK" => vec![
            text(object, "toolCallId").to_string(),
            quoted(text(object, "delta")),
        ],
        "TOOL_CALL_END" => vec![text(object, "toolCallId").to_string()],
        "TOOL_CALL_RESULT" => {
            let content = match object.field("content") {
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            vec![text(object, "toolCallId").to_string(), quoted(&content)]
        }
        "STATE_SNAPSHOT" => vec![shape(object.field("snapshot"))],
        "STATE_DELTA" => vec![match object.field("delta") {
            Some(Value::Array(ops)) => {
                let names: Vec<String> = ops
                    .iter()
                    .map(|op| {
                        format!(
                            "{} {}",
                            op.field("op").and_then(Value::as_str).unwrap_or("?"),
                            op.field("path").and_then(Value::as_str).unwrap_or("?")
                        )
                    })
                    .collect();
                one_line_keep(&names.join(", "), 80)
            }
            other => shape(other),
        }],
        "MESSAGES_SNAPSHOT" => vec![match object.field("messages") {
            Some(Value::Array(messages)) => format!("{} messages", messages.len()),
            other => shape(other),
        }],
        "ACTIVITY_SNAPSHOT" | "ACTIVITY_DELTA" => vec![
            text(object, "messageId").to_string(),
            text(object, "activityType").to_string(),
        ],
        "REASONING_START"
        | "REASONING_END"
        | "REASONING_MESSAGE_START"
        | "REASONING_MESSAGE_END"
        | "TEXT_MESSAGE_END" => vec![text(object, "messageId").to_string()],
        "CUSTOM" => vec![text(object, "name").to_string()],
        "RAW" => vec![text(object, "source").to_string()],
        _ => vec![],
    };
    let mut out = kind.to_string();
    for part in parts.iter().filter(|p| !p.is_empty()) {
        out.push(' ');
        out.push_str(part);
    }
    out
}

fn shape(value: Option<&Value>) -> String {
    match value {
        None => "(missing)".to_string(),
        Some(Value::Object(map)) => format!("{{{} keys}}", map.len()),
        Some(Value::Array(items)) => format!("[{} items]", items.len()),
        Some(other) => one_line_keep(&other.to_string(), 60),
    }
}

/// Collapses whitespace and cuts at `max` characters, marking the cut.
fn one_line(text: &str, max: usize) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    one_line_keep(&joined, max)
}

/// Cuts at `max` characters without touching whitespace (deltas keep their spaces).
fn one_line_keep(text: &str, max: usize) -> String {
    if text.chars().count() > max {
        let cut: String = text.chars().take(max).collect();
        format!("{cut}…")
    } else {
        text.to_string()
    }
}

/// Milliseconds since the Unix epoch as an RFC 3339 UTC time.
fn iso_from_millis(millis: i64) -> Option<String> {
    let seconds = millis.div_euclid(1000);
    let ms = millis.rem_euclid(1000);
    let days = seconds.div_euclid(86_400);
    let secs = seconds.rem_euclid(86_400);
    // Civil-from-days (Howard Hinnant's algorithm), valid for the proleptic Gregorian calendar.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    if !(0..=9999).contains(&year) {
        return None;
    }
    Some(format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{ms:03}Z",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(seq: u64, text: &str) -> RawRecord {
        RawRecord {
            seq,
            line: seq + 1,
            byte_start: 0,
            byte_len: text.len() as u64,
            bytes: text.as_bytes().to_vec(),
        }
    }

    fn read(seq: u64, value: Value) -> ReadEvent {
        Reader::default().read(&record(seq, &value.to_string()), Some(&value))
    }

    #[test]
    fn content_summary_quotes_the_delta_and_offset_is_the_position() {
        let event = read(
            4,
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"msg_01","delta":"Hello, "}),
        );
        assert_eq!(
            event.summary, "TEXT_MESSAGE_CONTENT msg_01 \"Hello, \"",
            "the summary names the type, the message and the delta"
        );
        assert_eq!(event.offset, Some(5), "offset is the 1-based position");
        assert!(
            event.diagnostics.is_empty(),
            "a well-formed event has no diagnostics"
        );
    }

    #[test]
    fn unknown_types_missing_fields_and_null_metadata_are_reported() {
        let unknown = read(0, json!({"type":"UNKNOWN_EVENT_TYPE"}));
        assert_eq!(
            unknown.diagnostics[0].code, "unknown-type",
            "unknown type is flagged"
        );
        let missing = read(0, json!({"type":"TEXT_MESSAGE_START"}));
        assert_eq!(
            missing.diagnostics[0].code, "missing-field",
            "messageId is required"
        );
        let delta = read(0, json!({"type":"STATE_DELTA","delta":[]}));
        assert!(
            delta.diagnostics.is_empty(),
            "a state delta's delta is an array, not text"
        );
        let null = read(0, json!({"type":"RAW","event":{},"metadata":null}));
        assert_eq!(
            null.diagnostics[0].code, "metadata-null",
            "metadata null is invalid"
        );
    }

    #[test]
    fn looks_like_needs_an_ag_ui_type() {
        assert!(
            looks_like(&json!({"type":"RUN_STARTED"})),
            "AG-UI type is detected"
        );
        assert!(
            !looks_like(&json!({"type":"context-added"})),
            "other types are not AG-UI"
        );
        assert!(
            !looks_like(&json!({"type":"run_started"})),
            "types are upper-case"
        );
    }

    #[test]
    fn timestamps_in_milliseconds_become_utc_times() {
        assert_eq!(
            iso_from_millis(1_700_000_000_123).as_deref(),
            Some("2023-11-14T22:13:20.123Z"),
            "epoch milliseconds convert to RFC 3339"
        );
    }
}
