//! What a rendered request costs in tokens. Each item's message is counted once, when a
//! request or a checkpoint first needs it, and kept with the item (and in the checkpoints), so
//! a fold that renders every request counts each item once, not once per request.

use std::sync::OnceLock;

use serde::Serialize;
use ts_rs::TS;

use super::event::Role;
use super::projection::{Item, Projection, Rules};
use super::render::{item_message, timestamp_message, Message, PROTOCOL_MESSAGE};
use super::roles::{provider_role, Transport};
use super::section_text::{item_text, standing_document, wire_role, SECTIONS_PROTOCOL_MESSAGE};
use crate::tokens::{message_framing, tokenizer_for, Encoding, Tokenizer, REPLY_PRIMING};

/// What an item's o200k_base count was taken of: the header line changes with these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Counted {
    rules: Rules,
    updates: Option<i64>,
    keyed: bool,
    tokens: u32,
}

/// An item's count, kept once taken. Two items are equal whatever their memos hold: it is a
/// cache of a pure function of the item.
#[derive(Debug, Clone, Default)]
pub struct TokenMemo(OnceLock<Counted>);

impl PartialEq for TokenMemo {
    fn eq(&self, _: &TokenMemo) -> bool {
        true
    }
}

impl Item {
    /// The text of this item's message under `rules`.
    fn message_text(&self, rules: Rules) -> String {
        match rules {
            Rules::Seed => item_message(self),
            _ => item_text(self),
        }
    }

    /// Tokens of this item's message content in o200k_base, counted on first need.
    pub fn tokens(&self, rules: Rules) -> u32 {
        let key = |tokens| Counted {
            rules,
            updates: self.updates_offset,
            keyed: self.key.is_some(),
            tokens,
        };
        if let Some(counted) = self.tokens.0.get() {
            if *counted == key(counted.tokens) {
                return counted.tokens;
            }
            // A clone whose header changed after its count: count again, keep the first.
            return Encoding::O200kBase.count(&self.message_text(rules));
        }
        let tokens = Encoding::O200kBase.count(&self.message_text(rules));
        let _ = self.tokens.0.set(key(tokens));
        tokens
    }

    /// Restores a count a checkpoint kept.
    pub(super) fn restore_tokens(&self, rules: Rules, tokens: u32) {
        let _ = self.tokens.0.set(Counted {
            rules,
            updates: self.updates_offset,
            keyed: self.key.is_some(),
            tokens,
        });
    }
}

/// A request's tokens: each message's content, the chat format's framing, and their sum, which
/// is what the provider bills as input for this body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RequestTokens {
    pub tokenizer: Tokenizer,
    /// Content tokens of each message, in the body's order.
    pub messages: Vec<u32>,
    /// Per message, its markers and role; once, the reply's priming.
    #[ts(type = "number")]
    pub framing: u64,
    #[ts(type = "number")]
    pub total: u64,
}

/// Counts `text` with `encoding`, taking the item's kept o200k_base count when it applies.
fn item_tokens(item: &Item, rules: Rules, encoding: Encoding) -> u32 {
    match encoding {
        Encoding::O200kBase => item.tokens(rules),
        other => other.count(&item.message_text(rules)),
    }
}

fn protocol_tokens(encoding: Encoding, sections: bool) -> u32 {
    static COUNTS: OnceLock<[u32; 4]> = OnceLock::new();
    let counts = COUNTS.get_or_init(|| {
        [
            Encoding::O200kBase.count(PROTOCOL_MESSAGE),
            Encoding::O200kBase.count(SECTIONS_PROTOCOL_MESSAGE),
            Encoding::Cl100kBase.count(PROTOCOL_MESSAGE),
            Encoding::Cl100kBase.count(SECTIONS_PROTOCOL_MESSAGE),
        ]
    });
    let index = match encoding {
        Encoding::O200kBase => 0,
        Encoding::Cl100kBase => 2,
    };
    counts[index + usize::from(sections)]
}

/// The tokens of the request at `request_offset`, rendered from `projection` as
/// [`super::render::render`] renders it, message for message.
pub fn count_request(
    projection: &Projection,
    model: Option<&str>,
    created_at: Option<&str>,
    transport: Transport,
) -> RequestTokens {
    let tokenizer = tokenizer_for(model);
    let encoding = tokenizer.encoding;
    let mut messages: Vec<(Role, u32)> = Vec::new();
    if projection.rules != Rules::Seed {
        let standing = projection.standing_len();
        let (document, rest) = projection.history.split_at(standing);
        messages.push((Role::System, protocol_tokens(encoding, true)));
        messages.push((Role::System, encoding.count(&standing_document(document))));
        for item in rest {
            let (role, _) = wire_role(item, transport);
            messages.push((role, item_tokens(item, projection.rules, encoding)));
        }
    } else {
        messages.push((Role::System, protocol_tokens(encoding, false)));
        for (_, item) in projection.items() {
            let role = provider_role(item, transport).role;
            messages.push((role, item_tokens(item, projection.rules, encoding)));
        }
        messages.push((
            transport.trusted_developer_role(),
            encoding.count(&timestamp_message(created_at)),
        ));
    }
    RequestTokens::framed(tokenizer, messages)
}

impl RequestTokens {
    /// Counts each message's text afresh: the plain way, which the kept counts agree with.
    pub fn of_messages(model: Option<&str>, messages: &[Message]) -> RequestTokens {
        let tokenizer = tokenizer_for(model);
        let encoding = tokenizer.encoding;
        let counted = messages
            .iter()
            .map(|m| (m.role, encoding.count(&m.content)))
            .collect();
        RequestTokens::framed(tokenizer, counted)
    }

    /// The content counts with the chat format's framing added.
    fn framed(tokenizer: Tokenizer, messages: Vec<(Role, u32)>) -> RequestTokens {
        let encoding = tokenizer.encoding;
        let framing: u64 = messages
            .iter()
            .map(|(role, _)| u64::from(message_framing(encoding, role.as_str())))
            .sum::<u64>()
            + u64::from(REPLY_PRIMING);
        let content: u64 = messages.iter().map(|(_, tokens)| u64::from(*tokens)).sum();
        RequestTokens {
            tokenizer,
            messages: messages.into_iter().map(|(_, tokens)| tokens).collect(),
            framing,
            total: content + framing,
        }
    }
}
