//! What a turn's prompt costs in tokens, set against the `promptTokens` its snapshot reports.
//!
//! A snapshot carries the whole conversation and names no model, so the prompt is taken as the
//! messages before the reply the turn is producing (its last message, when that is the
//! assistant's), counted with o200k_base as an estimate, and the chat format's framing added.

use serde::Serialize;
use ts_rs::TS;

use super::decoder::{Message, Role, Snapshot};
use journalscope_shapes::tokens::{tokenizer_for, Reconciliation, RequestTokens};

/// A turn's prompt counted, and its reported size when the snapshot has one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct PromptTokens {
    /// The snapshot's messages that make the prompt: the first this many.
    pub messages: usize,
    pub counted: RequestTokens,
    /// `usage.promptTokens`, unless it is 0: no prompt is empty, so 0 is a turn not yet
    /// measured.
    #[ts(type = "number | null")]
    pub reported: Option<u64>,
    pub reconciliation: Option<Reconciliation>,
}

/// The messages of `snapshot` that its turn's model call read.
pub fn prompt_messages(snapshot: &Snapshot) -> &[Message] {
    match snapshot.messages.split_last() {
        Some((last, before)) if last.role == Role::Assistant => before,
        _ => &snapshot.messages,
    }
}

/// The text a message puts before the model: its content, and each tool call's name,
/// arguments and result.
fn message_text(message: &Message) -> String {
    let mut text = message.content.clone();
    for call in message.tool_calls.iter().flatten() {
        text.push('\n');
        text.push_str(&call.name);
        text.push_str(&call.args.to_string());
        if let Some(result) = call.result.as_deref().or(call.error.as_deref()) {
            text.push('\n');
            text.push_str(result);
        }
    }
    text
}

impl PromptTokens {
    pub fn of(snapshot: &Snapshot) -> PromptTokens {
        let prompt = prompt_messages(snapshot);
        let texts: Vec<(&str, String)> = prompt
            .iter()
            .map(|m| (m.role.as_str(), message_text(m)))
            .collect();
        let counted = RequestTokens::of_messages(
            tokenizer_for(None),
            texts.iter().map(|(role, text)| (*role, text.as_str())),
        );
        let reported = Some(snapshot.usage.prompt_tokens).filter(|&tokens| tokens > 0);
        let reconciliation = reported
            .map(|reported| Reconciliation::of(counted.total, reported, counted.tokenizer.exact));
        PromptTokens {
            messages: prompt.len(),
            counted,
            reported,
            reconciliation,
        }
    }

    /// One line: the count, the report and how far apart they are.
    pub fn line(&self) -> String {
        let counted = format!(
            "prompt tokens: {} counted ({} content + {} framing, {}{})",
            self.counted.total,
            self.counted.total - self.counted.framing,
            self.counted.framing,
            self.counted.tokenizer.encoding.as_str(),
            if self.counted.tokenizer.exact {
                ""
            } else {
                " estimate"
            }
        );
        match &self.reconciliation {
            Some(r) => format!(
                "{counted} against {} reported: {:+}, {} the tolerance of {}",
                r.reported,
                r.difference,
                if r.within { "within" } else { "beyond" },
                r.tolerance
            ),
            None => format!("{counted}, none reported"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agentskit::decoder::{decode, TurnBody};
    use serde_json::json;

    fn snapshot(messages: serde_json::Value, prompt_tokens: u64) -> Snapshot {
        let line = json!({
            "protocol": "agentskit.chat.turn", "version": 1, "eventId": "e1", "sessionId": "s",
            "turnId": "t1", "sequence": 1, "emittedAt": "2026-07-11T10:00:00Z",
            "event": "server.turn.snapshot",
            "payload": {"messages": messages, "status": "streaming",
                        "usage": {"promptTokens": prompt_tokens, "completionTokens": 0,
                                  "totalTokens": prompt_tokens}}
        });
        match decode(Some(&line)).map(|event| event.body) {
            Ok(TurnBody::Snapshot(snapshot)) => snapshot,
            other => panic!("not a snapshot: {other:?}"),
        }
    }

    fn message(id: &str, role: &str, content: &str) -> serde_json::Value {
        json!({"id": id, "role": role, "content": content, "status": "complete",
               "createdAt": "2026-07-11T10:00:00.000Z"})
    }

    #[test]
    fn given_a_streaming_reply_when_counted_then_the_prompt_is_what_came_before_it() {
        let snapshot = snapshot(
            json!([
                message("u1", "user", "What is the capital of France?"),
                message("a1", "assistant", "The capital")
            ]),
            14,
        );
        let tokens = PromptTokens::of(&snapshot);
        assert_eq!(tokens.messages, 1, "the reply being written is not prompt");
        // 7 content tokens, 3 + 1 framing for the message and 3 priming the reply.
        assert_eq!(tokens.counted.total, 14);
        assert!(
            !tokens.counted.tokenizer.exact,
            "no model is named: an estimate"
        );
        let reconciliation = tokens
            .reconciliation
            .clone()
            .expect("a report to set it against");
        assert_eq!(reconciliation.difference, 0);
        assert!(tokens.line().contains("within"), "{}", tokens.line());
    }

    #[test]
    fn given_no_reply_yet_when_counted_then_every_message_is_prompt_and_zero_is_no_report() {
        let snapshot = snapshot(json!([message("u1", "user", "Summarise my inbox")]), 0);
        let tokens = PromptTokens::of(&snapshot);
        assert_eq!(tokens.messages, 1);
        assert_eq!(
            tokens.reported, None,
            "0 prompt tokens is a turn not measured"
        );
        assert!(tokens.reconciliation.is_none());
        assert!(
            tokens.line().ends_with("none reported"),
            "{}",
            tokens.line()
        );
    }

    #[test]
    fn given_a_report_far_above_the_count_when_counted_then_it_is_beyond_the_tolerance() {
        let snapshot = snapshot(json!([message("u1", "user", "hi")]), 900);
        let reconciliation = PromptTokens::of(&snapshot)
            .reconciliation
            .expect("reported");
        assert!(!reconciliation.within, "{reconciliation:?}");
        assert_eq!(
            reconciliation.tolerance, 225,
            "25% of the report for an estimate"
        );
    }
}
