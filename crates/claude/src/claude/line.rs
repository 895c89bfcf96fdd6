//! One line of a Claude Code transcript, as the fold and the views read it: what kind of line
//! it is, where it hangs in the conversation graph, which response it belongs to and which
//! tool calls and results it carries. Nothing is copied out of the parsed value.

use serde_json::Value;

use journalscope_shapes::record_json::Field;

/// The line types a transcript is recognised by (its first line that parses has one of them).
pub const LINE_TYPES: &[&str] = &[
    "user",
    "assistant",
    "system",
    "progress",
    "attachment",
    "summary",
    "file-history-snapshot",
    "queue-operation",
    "pr-link",
    "custom-title",
    "tag",
    // The client's own record of each request (2.1.3xx).
    "api-request",
    "api-request-shape",
    "api-request-blob",
    "api-request-resumed",
    // Bookkeeping the client writes again as the session goes, the last one counting.
    "last-prompt",
    "mode",
    "permission-mode",
    "ai-title",
    "agent-name",
    "agent-color",
    "agent-setting",
    "bridge-session",
    "file-history-delta",
    "worktree-state",
    "relocated",
    "isolation-latch",
    "atis-latch",
    "tools-used",
    "cost-state",
    // Records kept beside the conversation.
    "content-replacement",
    "fork-context-ref",
    "frame-link",
    "attribution-snapshot",
    "ended-by-model",
    "observer-ref",
    "marble-origami-commit",
    "marble-origami-snapshot",
    "marble-origami-reset",
];

/// What a parsed line says about itself.
#[derive(Debug, Clone, Copy)]
pub struct Line<'a> {
    pub value: &'a Value,
    pub kind: &'a str,
}

impl<'a> Line<'a> {
    /// The line, when it is a JSON object with a type.
    pub fn of(value: &'a Value) -> Option<Line<'a>> {
        let kind = value.field("type")?.as_str()?;
        Some(Line { value, kind })
    }

    fn text(&self, field: &str) -> Option<&'a str> {
        self.value.get(field).and_then(Value::as_str)
    }

    fn message(&self) -> Option<&'a Value> {
        self.value.field("message")
    }

    pub fn uuid(&self) -> Option<&'a str> {
        self.text("uuid")
    }

    pub fn parent(&self) -> Option<&'a str> {
        self.text("parentUuid")
    }

    pub fn timestamp(&self) -> Option<&'a str> {
        self.text("timestamp")
    }

    pub fn subtype(&self) -> Option<&'a str> {
        self.text("subtype")
    }

    pub fn is_sidechain(&self) -> bool {
        self.value
            .field("isSidechain")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    pub fn agent_id(&self) -> Option<&'a str> {
        self.text("agentId")
    }

    /// The agent a Task result came from, as the result line records it (2.0.x and later).
    pub fn spawned_agent(&self) -> Option<&'a str> {
        self.value
            .field("toolUseResult")?
            .field("agentId")?
            .as_str()
            .filter(|id| !id.is_empty())
    }

    pub fn is_known_type(&self) -> bool {
        LINE_TYPES.contains(&self.kind)
    }

    /// A user or assistant line: the lines that can be model input.
    pub fn is_message(&self) -> bool {
        matches!(self.kind, "user" | "assistant")
    }

    pub fn model(&self) -> Option<&'a str> {
        self.message()?.field("model")?.as_str()
    }

    /// An assistant line the client wrote itself ("API Error…", "No response requested."): no
    /// response, and not model input.
    pub fn is_synthetic(&self) -> bool {
        self.kind == "assistant" && self.model() == Some("<synthetic>")
    }

    pub fn is_api_error(&self) -> bool {
        self.value
            .field("isApiErrorMessage")
            .and_then(Value::as_bool)
            .unwrap_or(false)
            || (self.kind == "system" && self.subtype() == Some("api_error"))
    }

    pub fn is_compact_boundary(&self) -> bool {
        self.kind == "system" && self.subtype() == Some("compact_boundary")
    }

    pub fn is_compact_summary(&self) -> bool {
        self.value
            .field("isCompactSummary")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    pub fn has_preserved_segment(&self) -> bool {
        self.value
            .field("compactMetadata")
            .is_some_and(|m| m.field("preservedSegment").is_some())
    }

    /// The uuid of the last line of the history a compaction keeps: its `preservedMessages`
    /// list's last, else its `preservedSegment`'s tail (the client prefers the list).
    pub fn preserved_tail(&self) -> Option<&'a str> {
        let metadata = self.value.field("compactMetadata")?;
        metadata
            .field("preservedMessages")
            .and_then(|m| m.field("uuids"))
            .and_then(Value::as_array)
            .and_then(|uuids| uuids.last())
            .and_then(Value::as_str)
            .or_else(|| {
                metadata
                    .field("preservedSegment")?
                    .field("tailUuid")?
                    .as_str()
            })
    }

    /// The uuids a compaction keeps, and the line they follow: its `preservedMessages`, else
    /// its `preservedSegment`'s head and anchor (its lines are then read back from the tail).
    pub fn preserved_segment(&self) -> Option<(Option<&'a str>, Option<&'a str>)> {
        let metadata = self.value.field("compactMetadata")?;
        let segment = metadata.field("preservedSegment");
        let messages = metadata.field("preservedMessages");
        let anchor = messages
            .and_then(|m| m.field("anchorUuid"))
            .or_else(|| segment?.field("anchorUuid"))
            .and_then(Value::as_str);
        let head = messages
            .and_then(|m| m.field("uuids"))
            .and_then(Value::as_array)
            .and_then(|uuids| uuids.first())
            .or_else(|| segment?.field("headUuid"))
            .and_then(Value::as_str);
        (segment.is_some() || messages.is_some()).then_some((head, anchor))
    }

    pub fn request_id(&self) -> Option<&'a str> {
        self.text("requestId")
    }

    pub fn message_id(&self) -> Option<&'a str> {
        self.message()?.field("id")?.as_str()
    }

    /// The response an assistant line belongs to: its `requestId`, else its message's `id`.
    pub fn response_key(&self) -> Option<&'a str> {
        self.request_id().or_else(|| self.message_id())
    }

    /// The provider's reason for a prompt-cache miss, as the response's diagnostics give it.
    pub fn cache_miss_reason(&self) -> Option<&'a str> {
        self.message()?
            .field("diagnostics")?
            .field("cache_miss_reason")?
            .field("type")?
            .as_str()
    }

    pub fn usage(&self) -> Option<&'a Value> {
        self.message()?.field("usage").filter(|u| u.is_object())
    }

    /// The message's content blocks as written; a string content is one text block.
    pub fn blocks(&self) -> Vec<Value> {
        match self.message().and_then(|m| m.field("content")) {
            Some(Value::Array(blocks)) => blocks.clone(),
            Some(Value::String(text)) => {
                vec![serde_json::json!({"type": "text", "text": text})]
            }
            _ => Vec::new(),
        }
    }

    fn raw_blocks(&self) -> &'a [Value] {
        match self.message().and_then(|m| m.field("content")) {
            Some(Value::Array(blocks)) => blocks,
            _ => &[],
        }
    }

    /// The ids of the tool calls an assistant line makes.
    pub fn tool_uses(&self) -> impl Iterator<Item = &'a str> {
        self.raw_blocks()
            .iter()
            .filter(|b| b.field("type").and_then(Value::as_str) == Some("tool_use"))
            .filter_map(|b| b.field("id").and_then(Value::as_str))
    }

    /// The tool calls an assistant line makes, with their names and inputs.
    pub fn tool_calls(&self) -> impl Iterator<Item = &'a Value> {
        self.raw_blocks()
            .iter()
            .filter(|b| b.field("type").and_then(Value::as_str) == Some("tool_use"))
    }

    /// The ids of the tool calls a user line answers.
    pub fn tool_results(&self) -> impl Iterator<Item = &'a str> {
        self.raw_blocks()
            .iter()
            .filter(|b| b.field("type").and_then(Value::as_str) == Some("tool_result"))
            .filter_map(|b| b.field("tool_use_id").and_then(Value::as_str))
    }

    /// A user line that says something besides tool results: it starts a turn.
    pub fn starts_a_turn(&self) -> bool {
        self.kind == "user"
            && match self.message().and_then(|m| m.field("content")) {
                Some(Value::String(_)) => true,
                Some(Value::Array(blocks)) => blocks
                    .iter()
                    .any(|b| b.field("type").and_then(Value::as_str) != Some("tool_result")),
                _ => false,
            }
    }

    /// The first text a user line holds, for a summary or to link a sidechain to its call.
    pub fn first_text(&self) -> Option<&'a str> {
        match self.message().and_then(|m| m.field("content")) {
            Some(Value::String(text)) => Some(text),
            Some(Value::Array(blocks)) => blocks
                .iter()
                .find(|b| b.field("type").and_then(Value::as_str) == Some("text"))
                .and_then(|b| b.field("text"))
                .and_then(Value::as_str),
            _ => None,
        }
    }
}

/// The usage a response reports, as the spec names its fields: only those present.
pub fn reported_usage(usage: &Value) -> Value {
    let mut out = serde_json::Map::new();
    for field in [
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
        "output_tokens",
    ] {
        if let Some(v) = usage.get(field) {
            out.insert(field.to_string(), v.clone());
        }
    }
    Value::Object(out)
}

/// A stable 64-bit digest of a text: the fold keeps these instead of the texts themselves (two
/// of a million ids meet with a chance of about one in thirty million).
pub fn digest(text: &str) -> u64 {
    let hash = blake3::hash(text.as_bytes());
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&hash.as_bytes()[..8]);
    u64::from_le_bytes(bytes)
}

/// A response line's shape: the [`digest`] of its time, a NUL and its message as compact JSON,
/// hashed as the message is written out rather than from a copy of it in text (a response's
/// lines are each shaped once or twice, and the copy was most of the cost).
pub fn shape(line: &Line<'_>) -> u64 {
    let mut hasher = blake3::Hasher::new();
    hasher.update(line.timestamp().unwrap_or("").as_bytes());
    hasher.update(b"\0");
    if let Some(message) = line.value.field("message") {
        // Writing into a hasher cannot fail, and a `Value` always serialises.
        let _ = serde_json::to_writer(&mut hasher, message);
    }
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&hasher.finalize().as_bytes()[..8]);
    u64::from_le_bytes(bytes)
}

/// Hashes a [`digest`] as itself in a map keyed by digests: it is already uniform, and hashing
/// it again was a tenth of the time an append took to rebuild a long transcript's nodes.
#[derive(Default)]
pub struct DigestHasher(u64);

impl std::hash::Hasher for DigestHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*byte);
        }
    }

    fn write_u64(&mut self, digest: u64) {
        self.0 = digest;
    }
}

/// A map keyed by digests, hashed by [`DigestHasher`].
pub type ByDigest = std::hash::BuildHasherDefault<DigestHasher>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shape_is_the_digest_of_the_time_and_the_message_as_text() {
        // Given an assistant line with a time and a message of nested content
        let value = serde_json::json!({
            "type": "assistant",
            "timestamp": "2026-12-06T10:00:00.000Z",
            "message": {"id": "msg_1", "content": [{"type": "text", "text": "a \"quoted\" é"}]}
        });
        let line = Line::of(&value).expect("a typed line");
        // When it is shaped as the message is written out
        // Then it is the digest of the time and the message written out whole, as before
        assert_eq!(
            shape(&line),
            digest(&format!(
                "2026-12-06T10:00:00.000Z\u{0}{}",
                value["message"]
            )),
            "checkpoints keep shapes, so the digest is unchanged"
        );
    }
}
