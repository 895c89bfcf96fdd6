//! How a request reads under the sections contract (`iterate-sections-contract.md` §5): the
//! protocol message, the standing document, then every later item of the list in order:
//! stamps, superseding sections and messages, a header first only on the machinery's items.

use serde_json::Value;

use super::event::Role;
use super::projection::{Item, Projection};
use super::render::{compact, push_refs, Message, RenderedItem, RequestSnapshot};
use super::roles::{actor_type, Rule, Transport};

use journalscope_shapes::record_json::Field;

/// The first message of every sections-contract request. Upstream's text is opaque to this
/// project (requests compare by role and position there), so this one is Journalscope's own,
/// and as stable as the seed contract's.
pub const SECTIONS_PROTOCOL_MESSAGE: &str = "\
Context protocol. The next message is the standing document: one <section key=\"...\"> block \
per section. Every later message is one item of the agent's context in the order it arrived: \
a section that supersedes an earlier one (supersedes=\"@<offset>\"), a \"Requested at:\" stamp \
left by each request, or a message. A message from the platform, an agent, a script, an \
integration or an external channel starts with one header line (@<offset>, actor=, refs=); \
only that first line is a header, everything after it is the item's content, verbatim.";

/// The line after an agent actor's header, telling the model how its reply reaches the agent.
pub const AGENT_REPLY_LINE: &str =
    "This message comes from another agent: reply to it with a message to that agent, not in your own output.";

/// `<section key="K">`, content, `</section>`; ` supersedes="@N"` after the key when the
/// section supersedes an earlier one.
pub fn section_block(item: &Item) -> String {
    let key = compact(&Value::String(item.key.clone().unwrap_or_default()));
    let supersedes = item
        .updates_offset
        .map(|offset| format!(" supersedes=\"@{offset}\""))
        .unwrap_or_default();
    format!(
        "<section key={key}{supersedes}>\n{}\n</section>",
        item.content
    )
}

/// The `actor=` label of an actor; `None` for the model and the platform, which a header never
/// names.
pub fn actor_label(actor: &Value) -> Option<String> {
    let kind = actor_type(Some(actor)).unwrap_or("unknown");
    let field = |name: &str| compact(actor.field(name).unwrap_or(&Value::String(String::new())));
    let label = match kind {
        "model" | "platform" => return None,
        "user" => format!(
            "user:{}",
            actor
                .field("origin")
                .and_then(Value::as_str)
                .unwrap_or("unknown")
        ),
        "agent" => format!("agent:{}", field("path")),
        "script" => format!("script:{}", field("executionId")),
        "worker" => format!("worker:{}", field("name")),
        "integration" => format!("integration:{}", field("name")),
        other => {
            let id = actor.as_object().and_then(|fields| {
                fields
                    .iter()
                    .find(|(name, value)| {
                        (name.as_str() == "id" || name.ends_with("Id")) && !value.is_null()
                    })
                    .map(|(_, value)| value)
            });
            let id = id.map(compact).unwrap_or_else(|| "\"unknown\"".to_string());
            format!("{other}:{id}")
        }
    };
    Some(label)
}

/// A message's header line, when it has one: on system and developer items, a compaction
/// summary, an actor other than a user or the model, or refs.
pub fn message_header(item: &Item) -> Option<String> {
    let actor = actor_type(item.actor.as_ref());
    let wanted = matches!(item.role, Role::System | Role::Developer)
        || item.compaction.is_some()
        || actor.is_some_and(|a| !matches!(a, "user" | "model"))
        || !item.refs.is_empty();
    if !wanted {
        return None;
    }
    let mut header = format!("@{}", item.offset);
    if let Some(label) = item.actor.as_ref().and_then(actor_label) {
        header.push_str(" actor=");
        header.push_str(&label);
    }
    push_refs(&mut header, &item.refs);
    Some(header)
}

/// The text one item of the list stands for in a request.
pub fn item_text(item: &Item) -> String {
    let (head, content) = item_text_parts(item);
    head + content
}

/// [`item_text`] in two parts: what comes before the content (empty, or ending with a line
/// break), and the content (empty when the whole text is made here).
pub fn item_text_parts(item: &Item) -> (String, &str) {
    if item.stamp {
        return (format!("Requested at: {}", item.content), "");
    }
    if item.is_section() {
        return (section_block(item), "");
    }
    let mut head = String::new();
    if let Some(header) = message_header(item) {
        head.push_str(&header);
        head.push('\n');
        if actor_type(item.actor.as_ref()) == Some("agent") {
            head.push_str(AGENT_REPLY_LINE);
            head.push('\n');
        }
    }
    (head, &item.content)
}

/// The first line of [`item_text`]: what a view shows as the item's header.
pub fn item_header(item: &Item) -> String {
    if item.stamp || item.is_section() {
        return item_text(item).lines().next().unwrap_or("").to_string();
    }
    message_header(item).unwrap_or_default()
}

/// The standing document's one message: its sections' blocks joined by a blank line.
pub fn standing_document(sections: &[Item]) -> String {
    sections
        .iter()
        .map(section_block)
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// An item's wire role on a transport: developer travels as system where the transport has
/// no developer role; the fold already gave external actors the user role.
pub fn wire_role(item: &Item, transport: Transport) -> (Role, Rule) {
    let agent = actor_type(item.actor.as_ref()) == Some("agent");
    match (item.role, transport) {
        (Role::System, _) => (Role::System, Rule::System),
        (Role::User, _) => (Role::User, Rule::User),
        (Role::Assistant, _) => (Role::Assistant, Rule::Assistant),
        (Role::Developer, Transport::Openai) if agent => (Role::Developer, Rule::AgentDeveloper),
        (Role::Developer, Transport::Openai) => (Role::Developer, Rule::TrustedDeveloper),
        (Role::Developer, Transport::WorkersAi) if agent => {
            (Role::System, Rule::AgentDeveloperAsSystem)
        }
        (Role::Developer, Transport::WorkersAi) => (Role::System, Rule::TrustedDeveloperAsSystem),
    }
}

/// The request at `request_offset` from the list folded through it.
pub fn render(
    projection: &Projection,
    request_offset: i64,
    model: Option<String>,
    transport: Transport,
) -> RequestSnapshot {
    let standing = projection.standing_len();
    let (document, rest) = projection.history.split_at(standing);
    let mut messages = vec![
        Message {
            role: Role::System,
            content: SECTIONS_PROTOCOL_MESSAGE.to_string(),
        },
        Message {
            role: Role::System,
            content: standing_document(document),
        },
    ];
    let mut items = vec![RenderedItem {
        offset: document.first().map_or(request_offset, |item| item.offset),
        lane: "standing".to_string(),
        product_role: Role::System,
        provider_role: Role::System,
        rule: Rule::System,
    }];
    for item in rest {
        let (role, rule) = wire_role(item, transport);
        messages.push(Message {
            role,
            content: item_text(item),
        });
        items.push(RenderedItem {
            offset: item.offset,
            lane: "list".to_string(),
            product_role: item.role,
            provider_role: role,
            rule,
        });
    }
    let tokens = super::tokens::count_request(projection, model.as_deref(), None, transport);
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
