//! iterate's agent loop (contract "agent" v16): the envelope fields its fold reads beside the
//! typed event, its codemode scripts, its fold, the Responses-API body of each request and the
//! check that each request's input extends the one before.

pub mod append_only;
pub mod codemode;
pub mod diff;
pub mod fold;
pub mod item;
pub mod request;
pub mod responses;
pub mod view;

use serde_json::Value;

use journalscope_shapes::record_json::Node;

/// The agent loop's event names after `events.iterate.com/`, as its journals write them.
const NAMES: &[&str] = &[
    "agent/context-added",
    "agent/llm-request-requested",
    "agent/llm-request-settled",
    "itx/run-requested",
    "itx/run-settled",
    "agent/create-requested",
    "agent/created",
    "agent/create-failed",
    "agent/delete-requested",
    "agent/deleted",
    "agent/configured",
    "agent/paused",
    "agent/resumed",
    "agent/preamble-entry-set",
    "agent/preamble-entry-quarantined",
    "agent/summary-updated",
    "agent/input-gated",
    "agent/answer-reminded",
    "agent/idle-check",
    "agent/web-message-sent",
    "agent/token-usage-reported",
    "agent/cache-kept-warm",
    // Ephemeral in the loop's own log, but a journal taken from its live stream holds them.
    "agent/llm-response-frame",
];

/// The name of an event type in the loop's vocabulary (`agent/input-gated`), without its
/// `https://events.iterate.com/` prefix; `None` for any other type.
pub fn name_of(kind: &str) -> Option<&'static str> {
    let rest = kind
        .strip_prefix("https://")
        .or_else(|| kind.strip_prefix("http://"))
        .unwrap_or(kind);
    let rest = rest.strip_prefix("events.iterate.com/")?;
    NAMES.iter().copied().find(|name| *name == rest)
}

/// Whether `kind` is one of the loop's own event types.
pub fn known(kind: &str) -> bool {
    name_of(kind).is_some()
}

/// The processor that stamped an event (`source.processor`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Processor {
    pub slug: Option<String>,
    /// `version` as written, a number given as its text.
    pub version: Option<String>,
}

/// What the loop's fold reads of an event beyond the typed [`super::event::EventKind`]: where
/// it came from and the payload's own fields. The payload keeps everything but `content`,
/// which the typed event holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    /// The loop's name for the type, when it is one of its own.
    pub name: Option<&'static str>,
    /// The agent's context (`path`, or `streamPath`).
    pub path: Option<String>,
    /// `source.origin`.
    pub origin: Option<String>,
    pub processor: Option<Processor>,
    /// `source.schedule.key`, or the empty text for a schedule without a key.
    pub schedule: Option<String>,
    pub idempotency_key: Option<String>,
    pub payload: Value,
}

fn text<J: Node>(value: Option<&J>) -> Option<String> {
    let value = value?;
    match value.as_str() {
        Some(text) => Some(text.to_string()),
        None => value.as_number().map(ToString::to_string),
    }
}

impl Envelope {
    /// The envelope of `value`, for an event in the iterate vocabulary.
    pub fn of<J: Node>(value: &J) -> Option<Envelope> {
        let kind = value.field("type").and_then(J::as_str)?;
        let name = name_of(kind);
        if name.is_none() && super::reader::short_type(kind).is_none() {
            return None;
        }
        let source = value.field("source");
        let processor = source
            .and_then(|s| s.field("processor"))
            .map(|p| Processor {
                slug: text(p.field("slug")),
                version: text(p.field("version")),
            });
        // The content is kept apart by the event; the envelope keeps the rest.
        let payload = value
            .field("payload")
            .map_or(Value::Null, |payload| payload.to_value_without("content"));
        Some(Envelope {
            name,
            path: text(value.field("path").or_else(|| value.field("streamPath"))),
            origin: text(source.and_then(|s| s.field("origin"))),
            processor,
            schedule: source
                .and_then(|s| s.field("schedule"))
                .filter(|s| s.is_object())
                .map(|s| text(s.field("key")).unwrap_or_default()),
            idempotency_key: text(value.field("idempotencyKey")),
            payload,
        })
    }

    /// `source.origin`, or the path when the event names no origin.
    pub fn origin_or_path(&self) -> Option<&str> {
        self.origin.as_deref().or(self.path.as_deref())
    }

    /// A payload field, absent when null.
    pub fn field(&self, name: &str) -> Option<&Value> {
        self.payload.field(name).filter(|v| !v.is_null())
    }
}
