//! Tool calls in the AG-UI fold: a call's start on its parent message, and its result as a tool
//! message.

use super::*;

impl Thread {
    /// Changes the tool call `tool_call_id` in the first message holding it, if any.
    pub(super) fn edit_tool_call<R>(
        &mut self,
        tool_call_id: &str,
        change: impl FnOnce(&mut Value) -> R,
    ) -> Option<R> {
        let owner = self.messages.call_owner(tool_call_id)?;
        self.messages.edit(owner, |message| {
            message
                .get_mut("toolCalls")
                .and_then(Value::as_array_mut)?
                .iter_mut()
                .find(|c| id_of(c) == Some(tool_call_id))
                .map(change)
        })
    }

    pub(super) fn tool_call_start(&mut self, at: At, event: &Value, report: &mut Outcome) {
        let (Some(id), Some(name)) = (
            str_field(event, "toolCallId"),
            str_field(event, "toolCallName"),
        ) else {
            return;
        };
        self.open_tool_calls.insert(id.to_string());
        // A start for a tool call the thread already holds only renames it.
        let renamed = self.edit_tool_call(id, |call| {
            if let Some(function) = call.get_mut("function").and_then(Value::as_object_mut) {
                function.insert("name".into(), Value::String(name.to_string()));
            }
        });
        if renamed.is_some() {
            return;
        }
        let parent = str_field(event, "parentMessageId").filter(|p| !p.is_empty());
        let existing = parent.and_then(|p| self.messages.position(p));
        let index = match (parent, existing) {
            (Some(_), Some(index)) if role_of(&self.messages[index]) == "assistant" => index,
            // A parent id taken by a non-assistant message falls back to the tool call id.
            (Some(_), Some(_)) | (None, _) => {
                self.messages
                    .push(json!({"id": id, "role": "assistant", "toolCalls": []}));
                self.messages.len() - 1
            }
            (Some(parent), None) => {
                Self::info(
                    report,
                    at,
                    "tool-call-unknown-parent",
                    format!("TOOL_CALL_START names parent message {parent:?}, which the thread does not hold: the call opens a new assistant message under that id"),
                );
                self.messages
                    .push(json!({"id": parent, "role": "assistant", "toolCalls": []}));
                self.messages.len() - 1
            }
        };
        self.messages.edit(index, |message| {
            let Some(message) = message.as_object_mut() else {
                return;
            };
            let calls = message
                .entry("toolCalls")
                .or_insert_with(|| Value::Array(Vec::new()));
            if !calls.is_array() {
                *calls = Value::Array(Vec::new());
            }
            if let Some(calls) = calls.as_array_mut() {
                calls.push(json!({
                    "id": id,
                    "type": "function",
                    "function": {"name": name, "arguments": ""},
                }));
            }
        });
    }

    pub(super) fn tool_call_result(&mut self, at: At, event: &Value, report: &mut Outcome) {
        let (Some(message_id), Some(tool_call_id)) = (
            str_field(event, "messageId"),
            str_field(event, "toolCallId"),
        ) else {
            return;
        };
        if self.open_tool_calls.contains(tool_call_id) {
            Self::warn(
                report,
                at,
                "tool-result-before-call-ended",
                format!("a result for tool call {tool_call_id:?} arrives before its TOOL_CALL_END"),
            );
        }
        let mut message = json!({
            "id": message_id,
            "toolCallId": tool_call_id,
            "role": str_field(event, "role").filter(|r| !r.is_empty()).unwrap_or("tool"),
            "content": event.field("content").cloned().unwrap_or(Value::Null),
        });
        merge_metadata(&mut message, event);
        let holds_call = |m: &Value| {
            role_of(m) == "assistant"
                && m.field("toolCalls")
                    .and_then(Value::as_array)
                    .is_some_and(|calls| calls.iter().any(|c| id_of(c) == Some(tool_call_id)))
        };
        let owner = match self.messages.call_owner(tool_call_id) {
            Some(first) if role_of(&self.messages[first]) == "assistant" => Some(first),
            // The first holder is not an assistant message (a snapshot can say anything): a
            // later one may be.
            Some(_) => self.messages.iter().position(holds_call),
            None => None,
        };
        match owner {
            Some(owner) => {
                // After the owner and any results already recorded for it, so parallel results
                // keep their order and the call is directly followed by its results.
                let mut insert_at = owner + 1;
                while insert_at < self.messages.len()
                    && role_of(&self.messages[insert_at]) == "tool"
                {
                    insert_at += 1;
                }
                self.messages.insert(insert_at, message);
            }
            None => {
                Self::warn(
                    report,
                    at,
                    "tool-result-unknown-call",
                    format!("result for tool call {tool_call_id:?}, which no assistant message holds: appended"),
                );
                self.messages.push(message);
            }
        }
    }
}
