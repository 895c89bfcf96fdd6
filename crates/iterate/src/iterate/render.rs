//! Rendering a request: the header line of each item, the stable protocol message, the tail
//! timestamp, and the provider body. Rendering reads only the projection folded through the
//! request's own offset, so the same journal, offset and transport always give the same bytes.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use journalscope_shapes::record_json::Field;
use journalscope_shapes::redact::RedactError;

use super::event::Role;
use super::projection::{Item, Lane, Projection, Rules};
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
pub(super) fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// How one ref is written in a header.
pub fn render_ref(reference: &Value) -> String {
    let text = |field: &str| -> String {
        match reference.field(field) {
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        }
    };
    match reference.field("type").and_then(Value::as_str) {
        Some("event") => format!("{}@{}", text("streamPath"), text("offset")),
        Some("user") => format!("user:{}", text("userId")),
        Some("file") => format!("file:{}", text("path")),
        Some("git-commit") => format!("{}@{}", text("repoPath"), text("commitOid")),
        _ => compact(reference),
    }
}

/// Appends ` refs=[…]` to a header when there are refs: each written as [`render_ref`] says,
/// as one compact JSON array (the grammar of both contracts' headers).
pub(super) fn push_refs(header: &mut String, refs: &[Value]) {
    if refs.is_empty() {
        return;
    }
    let refs: Vec<Value> = refs.iter().map(|r| Value::String(render_ref(r))).collect();
    header.push_str(" refs=");
    header.push_str(&compact(&Value::Array(refs)));
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
    push_refs(&mut header, &item.refs);
    header
}

/// An item's message text: its header line, a newline, its content verbatim.
pub fn item_message(item: &Item) -> String {
    let (head, content) = item_message_parts(item);
    head + content
}

/// [`item_message`] in two parts: what comes before the content (ending with a line break),
/// and the content.
pub fn item_message_parts(item: &Item) -> (String, &str) {
    let mut head = header_line(item);
    head.push('\n');
    (head, &item.content)
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
    /// What the body costs in tokens: `tokens.messages[i]` counts `messages[i]`.
    pub tokens: journalscope_shapes::tokens::RequestTokens,
    /// An agent-loop request's body as the OpenAI Responses API gets it; `messages` then
    /// shows its input items as text, one each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "unknown")]
    pub responses_body: Option<Value>,
    /// What the journal does not record of the request, in words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<String>>", optional)]
    pub notes: Vec<String>,
}

/// The provider body as it goes on the wire.
#[derive(Serialize)]
struct ProviderBody<'a> {
    model: &'a Option<String>,
    messages: &'a [Message],
}

impl RequestSnapshot {
    /// The provider body `{"model", "messages": [{"role", "content"}]}`, compact JSON; an
    /// agent-loop request's Responses-API body.
    pub fn body(&self) -> Vec<u8> {
        if let Some(body) = &self.responses_body {
            return serde_json::to_vec(body).unwrap_or_default();
        }
        serde_json::to_vec(&ProviderBody {
            model: &self.model,
            messages: &self.messages,
        })
        .unwrap_or_default()
    }
}

/// What an export writes: the provider body, or a `curl` command that sends it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum ExportFormat {
    #[default]
    Body,
    Curl,
}

/// How to export a request. Redaction is on unless `exact` asks for the bytes as sent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ExportOptions {
    pub format: ExportFormat,
    /// The body exactly as sent, secrets included; `redact_paths` must then be empty.
    pub exact: bool,
    /// JSON paths to redact besides the built-in rules (see [`journalscope_shapes::redact::JsonPath`]).
    pub redact_paths: Vec<String>,
}

/// An exported request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestExport {
    pub bytes: Vec<u8>,
    /// How many secrets were replaced by markers (0 for an exact export).
    pub secrets: usize,
    pub redacted: bool,
}

impl RequestSnapshot {
    /// The body or `curl` command, redacted unless `options.exact`.
    pub fn export(&self, options: &ExportOptions) -> Result<RequestExport, RedactError> {
        let journalscope_shapes::redact::Redacted {
            bytes: body,
            secrets,
        } = journalscope_shapes::redact::export_body(
            self.body(),
            options.exact,
            &options.redact_paths,
        )?;
        let bytes = match options.format {
            ExportFormat::Body => body,
            ExportFormat::Curl => curl_command(self, &body, !options.exact).into_bytes(),
        };
        Ok(RequestExport {
            bytes,
            secrets,
            redacted: !options.exact,
        })
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
    if projection.rules == Rules::AgentLoop {
        // Without the request's event at hand: no own path, and no sections item after it.
        return super::agent_loop::request::render(projection, request_offset, model, None, None);
    }
    if projection.rules != Rules::Seed {
        return super::section_text::render(projection, request_offset, model, transport);
    }
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
    let tokens = super::tokens::count_request(projection, model.as_deref(), created_at, transport);
    RequestSnapshot {
        request_offset,
        transport,
        model,
        messages,
        items,
        tokens,
        responses_body: None,
        notes: Vec::new(),
    }
}

fn lane_name(lane: Lane) -> &'static str {
    lane.as_str()
}

/// A provider's endpoint for `curl`, as shell words: the URL, and the environment variable the
/// credential is read from when the command runs. The credential itself is never written.
struct Endpoint {
    /// Shell text that expands to the URL (already quoted).
    url: String,
    key_var: &'static str,
}

fn endpoint(transport: Transport, model: Option<&str>) -> Endpoint {
    match transport {
        Transport::Openai => Endpoint {
            url: shell_quote("https://api.openai.com/v1/chat/completions"),
            key_var: "OPENAI_API_KEY",
        },
        Transport::WorkersAi => {
            // The model comes from the journal: single-quoted, never inside double quotes.
            let model = match model {
                Some(m) => shell_quote(m),
                None => "\"${WORKERS_AI_MODEL:?set WORKERS_AI_MODEL}\"".to_string(),
            };
            Endpoint {
                url: format!(
                    "\"https://api.cloudflare.com/client/v4/accounts/${{CLOUDFLARE_ACCOUNT_ID:?set CLOUDFLARE_ACCOUNT_ID}}/ai/run/\"{model}"
                ),
                key_var: "CLOUDFLARE_API_TOKEN",
            }
        }
    }
}

/// `text` as one POSIX shell word that expands to exactly `text`.
pub fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// A POSIX shell command that sends `body` to the snapshot's transport with `curl`. The body
/// goes through `printf` (a shell builtin, so no argument-length limit) on stdin, byte for
/// byte; the credential is an environment variable reference that fails when unset.
pub fn curl_command(snapshot: &RequestSnapshot, body: &[u8], redacted: bool) -> String {
    let endpoint = match &snapshot.responses_body {
        Some(_) => Endpoint {
            url: shell_quote("https://api.openai.com/v1/responses"),
            key_var: "OPENAI_API_KEY",
        },
        None => endpoint(snapshot.transport, snapshot.model.as_deref()),
    };
    let body = String::from_utf8_lossy(body);
    format!(
        "# request @{offset} for {transport}; {what}\n\
         printf '%s' {body} |\n  \
         curl -sS {url} \\\n    \
         -H \"Authorization: Bearer ${{{var}:?set {var}}}\" \\\n    \
         -H 'Content-Type: application/json' \\\n    \
         --data-binary @-\n",
        offset = snapshot.request_offset,
        transport = snapshot.transport.as_str(),
        what = if redacted {
            "secrets in the body are redacted"
        } else {
            "the body is exact"
        },
        body = shell_quote(&body),
        url = endpoint.url,
        var = endpoint.key_var,
    )
}
