//! What a rendered request costs in tokens. Each item's message is counted once, when a
//! request or a checkpoint first needs it, and kept with the item (and in the checkpoints), so
//! a fold that renders every request counts each item once, not once per request.

use std::sync::OnceLock;

use super::event::Role;
use super::projection::{Item, Projection, Rules};
use super::render::{
    item_message_parts, timestamp_message, Message, RequestSnapshot, PROTOCOL_MESSAGE,
};
use super::roles::{provider_role, Transport};
use super::section_text::{
    item_text_parts, standing_document, wire_role, SECTIONS_PROTOCOL_MESSAGE,
};
use crate::tokens::{tokenizer_for, Encoding, RequestTokens};

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
    /// Tokens of this item's message under `rules` in `encoding`.
    fn count_message(&self, rules: Rules, encoding: Encoding) -> u32 {
        let (head, content) = match rules {
            Rules::Seed => item_message_parts(self),
            _ => item_text_parts(self),
        };
        encoding.count_after_line(&head, content)
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
            return self.count_message(rules, Encoding::O200kBase);
        }
        let tokens = self.count_message(rules, Encoding::O200kBase);
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

/// Counts `text` with `encoding`, taking the item's kept o200k_base count when it applies.
fn item_tokens(item: &Item, rules: Rules, encoding: Encoding) -> u32 {
    match encoding {
        Encoding::O200kBase => item.tokens(rules),
        other => item.count_message(rules, other),
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
    RequestTokens::framed(
        tokenizer,
        messages
            .into_iter()
            .map(|(role, tokens)| (role.as_str(), tokens)),
    )
}

/// Counts each message's text afresh: the plain way, which the kept counts agree with.
pub fn count_messages(model: Option<&str>, messages: &[Message]) -> RequestTokens {
    RequestTokens::of_messages(
        tokenizer_for(model),
        messages
            .iter()
            .map(|m| (m.role.as_str(), m.content.as_str())),
    )
}

impl RequestSnapshot {
    /// Tokens of this request's first `messages` messages, each with its framing: what a
    /// provider's prefix cache can serve when they are shared with the request before.
    pub fn prefix_tokens(&self, messages: usize) -> u64 {
        let encoding = self.tokens.tokenizer.encoding;
        self.messages
            .iter()
            .zip(&self.tokens.messages)
            .take(messages)
            .map(|(message, tokens)| {
                u64::from(*tokens)
                    + u64::from(crate::tokens::message_framing(
                        encoding,
                        message.role.as_str(),
                    ))
            })
            .sum()
    }
}
