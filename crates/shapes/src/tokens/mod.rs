//! Token counts: which tokenizer a model's provider uses, counting a text with it, the chat
//! format's framing overhead per message, and the tolerance a reported usage is held to.
//!
//! OpenAI publishes its encodings, so a count for its models is exact. Anthropic, Meta and
//! most Workers AI models publish none here: their counts are o200k_base counts marked as
//! estimates, with the method and the known bias named, so no figure passes for what it is not.

mod pieces;
mod starts;

use serde::Serialize;
use ts_rs::TS;

/// A byte-pair encoding whose vocabulary ships with the build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Encoding {
    O200kBase,
    Cl100kBase,
}

impl Encoding {
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    /// Tokens in `text`, as the provider counts message content: special-token lookalikes such
    /// as `<|endoftext|>` are ordinary text there.
    pub fn count(self, text: &str) -> u32 {
        u32::try_from(pieces::count(self, text)).unwrap_or(u32::MAX)
    }

    /// Tokens of `head` followed by `tail`, where `head` is empty or ends with a line break:
    /// the two are counted apart, so the text is never put together, unless `tail` could run
    /// on a piece of `head`.
    pub fn count_after_line(self, head: &str, tail: &str) -> u32 {
        if head.is_empty() || tail.is_empty() {
            return self.count(head).saturating_add(self.count(tail));
        }
        if head.ends_with('\n') && pieces::starts_a_piece_after_line_break(tail) {
            return self.count(head).saturating_add(self.count(tail));
        }
        self.count(&format!("{head}{tail}"))
    }
}

/// How a request's tokens are counted: the encoding, and whether the count is the provider's
/// own or an estimate (and then how, and which way it leans).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Tokenizer {
    pub encoding: Encoding,
    /// The encoding is the one the model's provider counts with.
    pub exact: bool,
    /// How the count is made, in a sentence.
    pub method: String,
    /// For an estimate: what is known of its error.
    pub bias: Option<String>,
}

/// Families of OpenAI models by the encoding they use; the first prefix that matches wins, so
/// `gpt-4o` is listed before `gpt-4`.
const OPENAI_MODELS: &[(&str, Encoding)] = &[
    ("gpt-4o", Encoding::O200kBase),
    ("chatgpt-4o", Encoding::O200kBase),
    ("gpt-4.1", Encoding::O200kBase),
    ("gpt-4.5", Encoding::O200kBase),
    ("gpt-5", Encoding::O200kBase),
    ("gpt-oss", Encoding::O200kBase),
    ("o1", Encoding::O200kBase),
    ("o3", Encoding::O200kBase),
    ("o4", Encoding::O200kBase),
    ("codex-mini", Encoding::O200kBase),
    ("gpt-4", Encoding::Cl100kBase),
    ("gpt-3.5", Encoding::Cl100kBase),
    ("text-embedding-3", Encoding::Cl100kBase),
    ("text-embedding-ada-002", Encoding::Cl100kBase),
];

/// What is known of an estimate's error, by the family of the model.
fn estimate_bias(model: &str) -> &'static str {
    let lower = model.to_ascii_lowercase();
    if lower.contains("claude") || lower == "sonnet" || lower == "opus" || lower == "haiku" {
        "Anthropic's tokenizer has a smaller vocabulary than o200k_base, so it splits the same \
         text into more tokens: expect the estimate to fall short, more for code and non-English \
         text. The error is not measured here."
    } else if lower.contains("llama") || lower.contains("mistral") || lower.contains("qwen") {
        "open-weight models ship their own vocabularies; on English prose they count within a \
         few percent of o200k_base, elsewhere the error is not measured here."
    } else {
        "the model's tokenizer is unknown; the error is not measured here."
    }
}

/// The encoding of `model`'s provider, when it is public.
fn known_encoding(model: Option<&str>) -> Option<Encoding> {
    let model = model?;
    let name = model.rsplit('/').next().unwrap_or(model);
    OPENAI_MODELS
        .iter()
        .find(|(prefix, _)| {
            name.get(..prefix.len())
                .is_some_and(|start| start.eq_ignore_ascii_case(prefix))
        })
        .map(|(_, encoding)| *encoding)
}

/// The encoding [`tokenizer_for`] counts `model`'s requests with, and whether the count is
/// exact, without describing the method: what a fold needs at every request.
pub fn encoding_for(model: Option<&str>) -> (Encoding, bool) {
    match known_encoding(model) {
        Some(encoding) => (encoding, true),
        None => (Encoding::O200kBase, false),
    }
}

/// The tokenizer for a request sent to `model` (a provider prefix such as `openai/` or
/// `@cf/openai/` is ignored).
pub fn tokenizer_for(model: Option<&str>) -> Tokenizer {
    match (known_encoding(model), model) {
        (Some(encoding), Some(model)) => Tokenizer {
            encoding,
            exact: true,
            method: format!("{}, the encoding of {model}", encoding.as_str()),
            bias: None,
        },
        (_, Some(model)) => Tokenizer {
            encoding: Encoding::O200kBase,
            exact: false,
            method: format!("o200k_base as a proxy: {model} has no public tokenizer here"),
            bias: Some(estimate_bias(model).to_string()),
        },
        (_, None) => Tokenizer {
            encoding: Encoding::O200kBase,
            exact: false,
            method: "o200k_base as a proxy: the request names no model".to_string(),
            bias: Some(estimate_bias("").to_string()),
        },
    }
}

/// Tokens the chat format adds around each message's content: its start and end markers and
/// the separator (3), plus its role. OpenAI's published accounting for chat requests.
pub const MESSAGE_OVERHEAD: u32 = 3;

/// Tokens that prime the model's reply, once per request.
pub const REPLY_PRIMING: u32 = 3;

/// The framing one message costs beyond its content.
pub fn message_framing(encoding: Encoding, role: &str) -> u32 {
    MESSAGE_OVERHEAD + role_tokens(encoding, role)
}

/// The chat roles, each one token in both encodings: a request's framing is counted per
/// message, so these are known rather than counted again each time.
const ROLES: &[&str] = &["system", "developer", "user", "assistant", "tool"];

fn role_tokens(encoding: Encoding, role: &str) -> u32 {
    if ROLES.contains(&role) {
        1
    } else {
        encoding.count(role)
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

impl RequestTokens {
    /// Counts each message, given as its role and content, with `tokenizer`.
    pub fn of_messages<'a>(
        tokenizer: Tokenizer,
        messages: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> RequestTokens {
        let encoding = tokenizer.encoding;
        let counted = messages
            .into_iter()
            .map(|(role, content)| (role, encoding.count(content)));
        RequestTokens::framed(tokenizer, counted)
    }

    /// Content counts, each with its message's role, with the chat format's framing added.
    pub fn framed<'a>(
        tokenizer: Tokenizer,
        messages: impl IntoIterator<Item = (&'a str, u32)>,
    ) -> RequestTokens {
        let encoding = tokenizer.encoding;
        let mut framing = u64::from(REPLY_PRIMING);
        let mut content = 0;
        let mut counts = Vec::new();
        for (role, tokens) in messages {
            framing += u64::from(message_framing(encoding, role));
            content += u64::from(tokens);
            counts.push(tokens);
        }
        RequestTokens {
            tokenizer,
            messages: counts,
            framing,
            total: content + framing,
        }
    }
}

/// How far a counted request may be from the input its provider reported before the
/// difference is a diagnostic: 2% of the reported input or 32 tokens, whichever is more, for
/// an exact count (a provider may add a few tokens of its own); 25% for an estimate.
pub fn tolerance(reported: u64, exact: bool) -> u64 {
    if exact {
        (reported / 50).max(32)
    } else {
        (reported / 4).max(32)
    }
}

/// A request's count set against what its provider reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Reconciliation {
    #[ts(type = "number")]
    pub counted: u64,
    #[ts(type = "number")]
    pub reported: u64,
    /// `counted - reported`.
    #[ts(type = "number")]
    pub difference: i64,
    #[ts(type = "number")]
    pub tolerance: u64,
    pub within: bool,
}

impl Reconciliation {
    pub fn of(counted: u64, reported: u64, exact: bool) -> Reconciliation {
        let difference = counted as i64 - reported as i64;
        let tolerance = tolerance(reported, exact);
        Reconciliation {
            counted,
            reported,
            difference,
            tolerance,
            // A build that counts nothing (the `uncounted` feature) finds no difference worth
            // a diagnostic, so that its import does only what the default build's does.
            within: difference.unsigned_abs() <= tolerance || cfg!(feature = "uncounted"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_models_are_exact_and_others_are_estimates() {
        // Protects the table: gpt-4o must not fall through to gpt-4's older encoding.
        assert_eq!(
            tokenizer_for(Some("gpt-4o-mini")).encoding,
            Encoding::O200kBase
        );
        assert_eq!(
            tokenizer_for(Some("gpt-4-turbo")).encoding,
            Encoding::Cl100kBase
        );
        assert!(tokenizer_for(Some("gpt-5.1")).exact);
        assert!(tokenizer_for(Some("@cf/openai/gpt-oss-120b")).exact);
        let claude = tokenizer_for(Some("claude-opus-4-6"));
        assert!(!claude.exact, "no public tokenizer: an estimate");
        assert!(claude.bias.is_some_and(|b| b.contains("fall short")));
        assert!(!tokenizer_for(None).exact);
    }

    #[test]
    fn each_chat_role_is_one_token_in_both_encodings() {
        // Protects the framing's shortcut: a role taken as one token must be one.
        for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
            for role in ROLES {
                assert_eq!(encoding.count(role), 1, "{role} in {}", encoding.as_str());
            }
        }
        assert_eq!(
            message_framing(Encoding::O200kBase, "critic"),
            3 + Encoding::O200kBase.count("critic")
        );
    }

    #[test]
    fn the_folds_encoding_is_the_tokenizers() {
        // Protects the fold's request totals: they must be counted as the request view counts.
        for model in [
            None,
            Some("gpt-4"),
            Some("GPT-4o-mini"),
            Some("openai/gpt-5.1"),
            Some("@cf/openai/gpt-oss-120b"),
            Some("gpt-3.5-turbo"),
            Some("claude-sonnet-4.5"),
            Some("o3-mini"),
            Some("g"),
            Some("ünï"),
        ] {
            let tokenizer = tokenizer_for(model);
            assert_eq!(
                encoding_for(model),
                (tokenizer.encoding, tokenizer.exact),
                "{model:?}"
            );
        }
    }

    #[test]
    fn special_token_lookalikes_count_as_text() {
        // A chat API treats `<|endoftext|>` in content as text: several tokens, not one.
        assert!(Encoding::O200kBase.count("<|endoftext|>") > 1);
        assert_eq!(Encoding::O200kBase.count(""), 0);
    }

    #[test]
    fn reconciliation_holds_counts_to_the_tolerance() {
        assert!(
            Reconciliation::of(1000, 1010, true).within,
            "within 32 tokens"
        );
        let off = Reconciliation::of(1000, 2000, true);
        assert!(!off.within);
        assert_eq!(off.difference, -1000);
        assert!(
            Reconciliation::of(1000, 1200, false).within,
            "an estimate gets 25%"
        );
    }
}
