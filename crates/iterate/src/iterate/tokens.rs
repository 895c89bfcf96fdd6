//! What a rendered request costs in tokens. Each item's message is counted once per encoding,
//! when a request or a checkpoint first needs it, and kept with the item (and, in o200k_base,
//! in the checkpoints), so a fold that renders every request counts each item once, not once
//! per request.

use std::sync::OnceLock;

use super::event::Role;
use super::projection::{Item, Projection, Rules};
use super::render::{
    item_message_parts, timestamp_message, Message, RequestSnapshot, PROTOCOL_MESSAGE,
};
use super::roles::{provider_role, Transport};
use super::section_text::{item_text_parts, wire_role, SECTIONS_PROTOCOL_MESSAGE};
use journalscope_shapes::tokens::{
    encoding_for, message_framing, tokenizer_for, Encoding, RequestTokens, REPLY_PRIMING,
};

/// What an item's o200k_base count was taken of: the header line changes with these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Counted {
    rules: Rules,
    updates: Option<i64>,
    keyed: bool,
    tokens: u32,
}

/// An item's counts, one per encoding, kept once taken. Two items are equal whatever their
/// memos hold: it is a cache of a pure function of the item.
#[derive(Debug, Clone, Default)]
pub struct TokenMemo([OnceLock<Counted>; 2]);

impl Counted {
    /// The header facts a count was taken under, packed into one number: the memo's key as the
    /// stored counts keep it, so the two cannot drift apart.
    fn variant(&self) -> Option<i64> {
        let rules = match self.rules {
            Rules::Seed => 0,
            Rules::Sections => 1,
            Rules::AgentLoop => 2,
        };
        let (updates, present) = match self.updates {
            None => (0, 0),
            Some(offset) if offset.unsigned_abs() < 1 << 58 => (offset, 1),
            Some(_) => return None,
        };
        Some((updates << 4) | (present << 3) | (i64::from(self.keyed) << 2) | rules)
    }
}

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

    fn counted(&self, rules: Rules, tokens: u32) -> Counted {
        Counted {
            rules,
            updates: self.updates_offset,
            keyed: self.key.is_some(),
            tokens,
        }
    }

    /// Tokens of this item's message content in o200k_base, counted on first need.
    pub fn tokens(&self, rules: Rules) -> u32 {
        self.tokens_in(rules, Encoding::O200kBase)
    }

    /// Tokens of this item's message content in `encoding`, counted on first need: a fold
    /// renders every request, and each would otherwise count the whole context again.
    pub fn tokens_in(&self, rules: Rules, encoding: Encoding) -> u32 {
        let memo = &self.tokens.0[encoding as usize];
        if let Some(counted) = memo.get() {
            if *counted == self.counted(rules, counted.tokens) {
                return counted.tokens;
            }
            // A clone whose header changed after its count: count again, keep the first.
            return self.count_message(rules, encoding);
        }
        let tokens = self.count_message(rules, encoding);
        let _ = memo.set(self.counted(rules, tokens));
        tokens
    }

    /// What else than its record the item's count depends on (its rules and header), as one
    /// number to store beside the count; `None` for an `updates` offset too large to pack.
    pub(super) fn token_variant(&self, rules: Rules) -> Option<i64> {
        self.counted(rules, 0).variant()
    }

    /// Whether the item's o200k_base count is taken (or restored).
    pub(super) fn has_tokens(&self) -> bool {
        self.tokens.0[Encoding::O200kBase as usize].get().is_some()
    }

    /// Restores an o200k_base count a checkpoint kept.
    pub(super) fn restore_tokens(&self, rules: Rules, tokens: u32) {
        let _ = self.tokens.0[Encoding::O200kBase as usize].set(self.counted(rules, tokens));
    }

    /// Forgets the counts, for a copy whose header is about to change.
    pub(super) fn forget_tokens(&mut self) {
        self.tokens = TokenMemo::default();
    }
}

fn protocol_tokens(encoding: Encoding, sections: bool) -> u32 {
    // One encoding's counts at a time: loading an encoding no request uses costs a process
    // tens of milliseconds and tens of megabytes.
    static COUNTS: [OnceLock<[u32; 2]>; 2] = [OnceLock::new(), OnceLock::new()];
    let counts = COUNTS[encoding as usize].get_or_init(|| {
        [
            encoding.count(PROTOCOL_MESSAGE),
            encoding.count(SECTIONS_PROTOCOL_MESSAGE),
        ]
    });
    counts[usize::from(sections)]
}

/// Tokens of the standing document, from its sections' kept counts rather than its text,
/// which every request would otherwise put together and count again. A block ends with the
/// piece `>`, and the blank line that joins it to the next block runs on that piece (`>\n\n`)
/// and ends before the next block's `<section`: each join swaps one piece for the other.
fn standing_tokens(sections: &[Item], rules: Rules, encoding: Encoding) -> u32 {
    let blocks: u64 = sections
        .iter()
        .map(|section| u64::from(section.tokens_in(rules, encoding)))
        .sum();
    u32::try_from(blocks + standing_joins(sections.len(), encoding)).unwrap_or(u32::MAX)
}

/// What joining `sections` blocks adds to the sum of their counts (see [`standing_tokens`]).
fn standing_joins(sections: usize, encoding: Encoding) -> u64 {
    static JOIN: [OnceLock<u32>; 2] = [OnceLock::new(), OnceLock::new()];
    // Never below zero: `>\n\n` is at least as many tokens as `>`.
    let join = JOIN[encoding as usize]
        .get_or_init(|| encoding.count(">\n\n").saturating_sub(encoding.count(">")));
    sections.saturating_sub(1) as u64 * u64::from(*join)
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
        messages.push((
            Role::System,
            standing_tokens(document, projection.rules, encoding),
        ));
        for item in rest {
            let (role, _) = wire_role(item, transport);
            messages.push((role, item.tokens_in(projection.rules, encoding)));
        }
    } else {
        messages.push((Role::System, protocol_tokens(encoding, false)));
        for (_, item) in projection.items() {
            let role = provider_role(item, transport).role;
            messages.push((role, item.tokens_in(projection.rules, encoding)));
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

/// The totals [`count_request`] comes to, kept by a fold across requests: each request adds
/// (and shows the caller) the items appended since the request before, and starts again only
/// when the projection was edited otherwise, so a long list is not read whole at every request.
/// Each role a message takes is one token, so a message's framing is the same whatever its
/// role, and no item's role is looked up.
#[derive(Debug, Clone, Default)]
pub struct RunningTotal(Option<Running>);

#[derive(Debug, Clone, Copy)]
struct Running {
    edits: u64,
    rules: Rules,
    encoding: Encoding,
    /// Items of each lane summed, from the lane's start.
    system: usize,
    history: usize,
    /// Under the sections contract: how many items open the list as its standing document.
    standing: usize,
    /// The summed items' content tokens.
    content: u64,
}

impl RunningTotal {
    /// The input tokens of the request `projection` is rendered into, and whether the count is
    /// exact: the total of [`count_request`].
    pub fn request(
        &mut self,
        projection: &Projection,
        model: Option<&str>,
        created_at: Option<&str>,
        mut summed: impl FnMut(&Item),
    ) -> (u64, bool) {
        let (encoding, exact) = encoding_for(model);
        let rules = projection.rules;
        let fresh = Running {
            edits: projection.edits.0,
            rules,
            encoding,
            system: 0,
            history: 0,
            standing: 0,
            content: 0,
        };
        let mut running = match self.0 {
            Some(kept)
                if kept.edits == fresh.edits
                    && kept.rules == rules
                    && kept.encoding == encoding
                    && kept.system <= projection.system.len()
                    && kept.history <= projection.history.len() =>
            {
                kept
            }
            _ => fresh,
        };
        let mut sum = |items: &[Item]| -> u64 {
            items
                .iter()
                .map(|item| {
                    summed(item);
                    u64::from(item.tokens_in(rules, encoding))
                })
                .sum()
        };
        running.content += sum(&projection.system[running.system..]);
        running.content += sum(&projection.history[running.history..]);
        // The standing document grows only while the whole list is standing.
        if running.standing == running.history {
            running.standing += projection.history[running.history..]
                .iter()
                .take_while(|item| item.is_standing())
                .count();
        }
        running.system = projection.system.len();
        running.history = projection.history.len();
        self.0 = Some(running);

        let (content, messages) = if rules != Rules::Seed {
            let standing = running.standing;
            (
                u64::from(protocol_tokens(encoding, true))
                    + running.content
                    + standing_joins(standing, encoding),
                2 + (running.history - standing) as u64,
            )
        } else {
            (
                u64::from(protocol_tokens(encoding, false))
                    + running.content
                    + u64::from(encoding.count(&timestamp_message(created_at))),
                2 + (running.system + running.history) as u64,
            )
        };
        let framing = u64::from(message_framing(encoding, Role::User.as_str()));
        (
            content + messages * framing + u64::from(REPLY_PRIMING),
            exact,
        )
    }
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
                u64::from(*tokens) + u64::from(message_framing(encoding, message.role.as_str()))
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iterate::section_text::{section_block, standing_document};

    /// A section as a rewrite writes it: an offset is all the event needs.
    fn section(offset: i64, key: &str, content: &str) -> Item {
        let record = serde_json::json!({"offset": offset});
        let (event, _) = super::super::event::parse(offset as u64, 0, &record);
        Item::from_rewrite(&event.expect("a record with an offset"), key, content)
    }

    #[test]
    fn given_sections_when_the_standing_document_is_counted_from_their_counts_then_it_equals_counting_its_text(
    ) {
        // Protects the standing document's count: summing the blocks' kept counts with the
        // joins' correction must equal counting the joined text, whatever the blocks end with.
        let contents = [
            "",
            "plain words",
            "ends with a line break\n",
            "ends in symbols >>",
            "ends in a slash /",
            "  indented\n\n\n",
            "数字 and 🙂",
            "</section>",
            "'s",
            "123",
        ];
        for rules in [Rules::Sections, Rules::AgentLoop] {
            for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
                for len in 0..=contents.len() {
                    let sections: Vec<Item> = contents[..len]
                        .iter()
                        .enumerate()
                        .map(|(i, content)| section(i as i64 + 1, &format!("k\"{i}"), content))
                        .collect();
                    assert_eq!(
                        standing_tokens(&sections, rules, encoding),
                        encoding.count(&standing_document(&sections)),
                        "{len} sections in {}",
                        encoding.as_str()
                    );
                }
            }
        }
    }

    #[test]
    fn given_an_item_counted_in_one_encoding_when_another_asks_then_each_keeps_its_own_count() {
        // Protects the per-encoding memo: a cl100k_base request must not read an o200k_base
        // count, and each encoding counts an item once.
        let item = section(1, "k", "हिन्दी में लिखा पाठ, русский текст, 日本語のテキスト");
        let o200k = item.tokens_in(Rules::Sections, Encoding::O200kBase);
        let cl100k = item.tokens_in(Rules::Sections, Encoding::Cl100kBase);
        assert_eq!(o200k, Encoding::O200kBase.count(&section_block(&item)));
        assert_eq!(cl100k, Encoding::Cl100kBase.count(&section_block(&item)));
        assert_ne!(o200k, cl100k, "the text was chosen to count differently");
        assert_eq!(
            item.tokens_in(Rules::Sections, Encoding::Cl100kBase),
            cl100k
        );
    }
}
