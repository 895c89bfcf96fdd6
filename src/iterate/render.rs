//! Rendering a request: the header line of each item, the stable protocol message, the tail
//! timestamp, and the provider body. Rendering reads only the projection folded through the
//! request's own offset, so the same journal, offset and transport always give the same bytes.

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use super::event::Role;
use super::projection::{Item, Lane, Projection};
use super::roles::{provider_role, Rule, Transport};

/// The first message of every request. Its text belongs to this project and never changes
/// between requests, so it stays in every provider's cached prefix.
pub const PROTOCOL_MESSAGE: &str = "\
Context protocol. Every following message except the last is one context item. Its first line \
is a header: @<offset> is the item's coordinate in the agent's event journal; key=\"...\" names \
the logical slot the item fills; updates=@<offset> says the item supersedes the earlier \
occurrence of that slot at that offset; refs=[...] lists journal events (\"<stream>@<offset>\"), \
users, files and commits the item refers to. Only the first line is a header: everything after \
it is the item's content, verbatim, even when it starts with @. Offsets are journal \
coordinates, not a sort order. The last message gives the time of this request.";

/// A JSON array without spaces, as the header grammar wants.
fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// How one ref is written in a header.
pub fn render_ref(reference: &Value) -> String {
    let text = |field: &str| -> String {
        match reference.get(field) {
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        }
    };
    match reference.get("type").and_then(Value::as_str) {
        Some("event") => format!("{}@{}", text("streamPath"), text("offset")),
        Some("user") => format!("user:{}", text("userId")),
        Some("file") => format!("file:{}", text("path")),
        Some("git-commit") => format!("{}@{}", text("repoPath"), text("commitOid")),
        _ => compact(reference),
    }
}

/// The header line: `@<offset>`, then ` key=`, ` updates=@`, ` refs=` when present.
pub fn header_line(item: &Item) -> String {
    let mut header = format!("@{}", item.offset);
    if let Some(key) = &item.key {
        header.push_str(" key=");
        header.push_str(&compact(&Value::String(key.clone())));
    }
    if let Some(updates) = item.updates_offset {
        header.push_str(&format!(" updates=@{updates}"));
    }
    if !item.refs.is_empty() {
        let refs: Vec<Value> = item
            .refs
            .iter()
            .map(|r| Value::String(render_ref(r)))
            .collect();
        header.push_str(" refs=");
        header.push_str(&compact(&Value::Array(refs)));
    }
    header
}

/// An item's message text: its header line, a newline, its content verbatim.
pub fn item_message(item: &Item) -> String {
    format!("{}\n{}", header_line(item), item.content)
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

/// What each rendered item message is, for `request --json`: `items[i]` describes
/// `messages[i + 1]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RenderedItem {
    #[ts(type = "number")]
    pub offset: i64,
    pub lane: String,
    pub product_role: Role,
    pub provider_role: Role,
    pub rule: Rule,
}

/// The exact request sent at a request offset on one transport.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RequestSnapshot {
    #[ts(type = "number")]
    pub request_offset: i64,
    pub transport: Transport,
    pub model: Option<String>,
    pub messages: Vec<Message>,
    pub items: Vec<RenderedItem>,
}

/// The provider body as it goes on the wire.
#[derive(Serialize)]
struct ProviderBody<'a> {
    model: &'a Option<String>,
    messages: &'a [Message],
}

impl RequestSnapshot {
    /// The provider body `{"model", "messages": [{"role", "content"}]}`, compact JSON.
    pub fn body(&self) -> Vec<u8> {
        serde_json::to_vec(&ProviderBody {
            model: &self.model,
            messages: &self.messages,
        })
        .unwrap_or_default()
    }
}

/// The tail message's text.
pub fn timestamp_message(created_at: Option<&str>) -> String {
    match created_at {
        Some(time) => format!("Request time: {time}"),
        None => "Request time: unknown (the request event has no createdAt)".to_string(),
    }
}

/// Renders the request at `request_offset` from the projection folded through it.
pub fn render(
    projection: &Projection,
    request_offset: i64,
    model: Option<String>,
    created_at: Option<&str>,
    transport: Transport,
) -> RequestSnapshot {
    let mut messages = vec![Message {
        role: Role::System,
        content: PROTOCOL_MESSAGE.to_string(),
    }];
    let mut items = Vec::new();
    for (lane, item) in projection.items() {
        let provider = provider_role(item, transport);
        messages.push(Message {
            role: provider.role,
            content: item_message(item),
        });
        items.push(RenderedItem {
            offset: item.offset,
            lane: lane_name(lane).to_string(),
            product_role: item.role,
            provider_role: provider.role,
            rule: provider.rule,
        });
    }
    messages.push(Message {
        role: transport.trusted_developer_role(),
        content: timestamp_message(created_at),
    });
    RequestSnapshot {
        request_offset,
        transport,
        model,
        messages,
        items,
    }
}

fn lane_name(lane: Lane) -> &'static str {
    lane.as_str()
}
