//! Snapshots and deltas in the AG-UI fold: the state (patched or replaced), the messages
//! reconciled against a snapshot, the activities, and encrypted values.

use super::*;

impl Thread {
    pub(super) fn state_delta(&mut self, at: At, event: &Value, report: &mut Outcome) {
        let Some(delta) = event.field("delta") else {
            return;
        };
        if !self.state_established {
            // Said once: from here the thread's state is whatever the deltas built on `{}`.
            self.state_established = true;
            self.state_only_from_deltas = true;
            Self::warn(
                report,
                at,
                "state-delta-before-snapshot",
                "STATE_DELTA before any STATE_SNAPSHOT or run input state: it patches the empty state `{}`",
            );
        }
        if let Some(reason) = malformed(delta) {
            Self::error(
                report,
                at,
                "malformed-patch",
                format!(
                    "STATE_DELTA is not a JSON Patch ({reason}): a consumer stops this run here"
                ),
            );
            self.run.status = RunStatus::Error;
            self.halted_by_patch = true;
            report
                .marks
                .push(("patch-failed".into(), format!("malformed: {reason}")));
            report.patch_failure = Some(format!("malformed: {reason}"));
            return;
        }
        match patch_in_place(&mut self.state, delta) {
            Ok(()) => {
                self.deltas_since_snapshot += 1;
                let count = delta.as_array().map_or(0, Vec::len);
                report
                    .marks
                    .push(("state-delta".into(), format!("{count} operations applied")));
            }
            Err(reason) => {
                Self::warn(
                    report,
                    at,
                    "patch-failed",
                    format!("STATE_DELTA does not apply ({reason}): state left unchanged"),
                );
                report.marks.push(("patch-failed".into(), short(&reason)));
                report.patch_failure = Some(reason);
            }
        }
    }

    pub(super) fn messages_snapshot(&mut self, at: At, event: &Value, report: &mut Outcome) {
        let Some(snapshot) = event.field("messages").and_then(Value::as_array) else {
            return;
        };
        let has_activity = snapshot.iter().any(|m| role_of(m) == "activity");
        let has_reasoning = snapshot.iter().any(|m| role_of(m) == "reasoning");
        // Client-only material survives unless the snapshot itself carries that role, which
        // declares the complete set for it.
        let preserved = |m: &Value| {
            (role_of(m) == "activity" && !has_activity)
                || (role_of(m) == "reasoning" && !has_reasoning)
        };
        let mut by_id: HashMap<&str, &Value> = HashMap::new();
        for message in snapshot {
            match id_of(message) {
                Some(id) => {
                    by_id.insert(id, message);
                }
                None => Self::warn(
                    report,
                    at,
                    "message-without-id",
                    "a MESSAGES_SNAPSHOT message has no string id: it is appended",
                ),
            }
        }
        let mut next = Vec::with_capacity(snapshot.len());
        let mut fates = Vec::new();
        let record =
            |message: &Value, fate: MessageFate, fates: &mut Vec<MessageReconciliation>| {
                fates.push(MessageReconciliation {
                    message_id: id_of(message).unwrap_or("").to_string(),
                    role: role_of(message).to_string(),
                    fate,
                });
            };
        for held in self.messages.iter() {
            if preserved(held) {
                record(held, MessageFate::KeptClientOnly, &mut fates);
                next.push(held.clone());
            } else if let Some(replacement) = id_of(held).and_then(|id| by_id.get(id)) {
                record(replacement, MessageFate::Replaced, &mut fates);
                next.push((*replacement).clone());
            } else {
                record(held, MessageFate::Dropped, &mut fates);
            }
        }
        let existing: HashSet<String> = next.iter().filter_map(id_of).map(str::to_string).collect();
        for message in snapshot {
            if !id_of(message).is_some_and(|id| existing.contains(id)) {
                record(message, MessageFate::Appended, &mut fates);
                next.push(message.clone());
            }
        }
        self.messages.replace(next);
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for fate in &fates {
            let word = match fate.fate {
                MessageFate::Replaced => "replaced",
                MessageFate::Appended => "appended",
                MessageFate::Dropped => "dropped",
                MessageFate::KeptClientOnly => "kept",
            };
            *counts.entry(word).or_default() += 1;
        }
        let note: Vec<String> = ["replaced", "appended", "dropped", "kept"]
            .iter()
            .filter_map(|w| counts.get(w).map(|n| format!("{n} {w}")))
            .collect();
        let note = if note.is_empty() {
            "no messages".to_string()
        } else {
            note.join(", ")
        };
        report.marks.push(("messages-snapshot".into(), note));
        report.reconciliation = fates;
    }

    pub(super) fn activity_snapshot(&mut self, event: &Value) {
        let (Some(id), Some(activity_type)) = (
            str_field(event, "messageId"),
            str_field(event, "activityType"),
        ) else {
            return;
        };
        let content = event.field("content").cloned().unwrap_or(json!({}));
        let replace = event
            .field("replace")
            .and_then(Value::as_bool)
            .unwrap_or(true);
        let mut fresh = json!({"id": id, "role": "activity", "activityType": activity_type, "content": content});
        merge_metadata(&mut fresh, event);
        match self.messages.position(id) {
            None => self.messages.push(fresh),
            Some(index) if role_of(&self.messages[index]) == "activity" => {
                if replace {
                    self.messages.edit(index, |message| {
                        if let Some(map) = message.as_object_mut() {
                            map.insert(
                                "activityType".into(),
                                Value::String(activity_type.to_string()),
                            );
                            map.insert("content".into(), content);
                        }
                        merge_metadata(message, event);
                    });
                }
            }
            Some(index) => {
                if replace {
                    self.messages.set(index, fresh);
                }
            }
        }
    }

    pub(super) fn activity_delta(&mut self, at: At, event: &Value, report: &mut Outcome) {
        let (Some(id), Some(activity_type), Some(patch)) = (
            str_field(event, "messageId"),
            str_field(event, "activityType"),
            event.field("patch"),
        ) else {
            return;
        };
        let Some(index) = self.messages.position(id) else {
            Self::warn(
                report,
                at,
                "activity-not-started",
                format!("ACTIVITY_DELTA for {id:?}, which no ACTIVITY_SNAPSHOT created: ignored"),
            );
            return;
        };
        if role_of(&self.messages[index]) != "activity" {
            Self::warn(
                report,
                at,
                "activity-not-started",
                format!("ACTIVITY_DELTA for {id:?}, which is not an activity message: ignored"),
            );
            return;
        }
        let base = self.messages[index]
            .field("content")
            .cloned()
            .unwrap_or(json!({}));
        let result = match malformed(patch) {
            Some(reason) => Err(format!("malformed: {reason}")),
            None => apply_patch(&base, patch),
        };
        match result {
            Ok(content) => self.messages.edit(index, |message| {
                if let Some(map) = message.as_object_mut() {
                    map.insert("content".into(), content);
                    map.insert(
                        "activityType".into(),
                        Value::String(activity_type.to_string()),
                    );
                }
            }),
            Err(reason) => Self::warn(
                report,
                at,
                "activity-patch-failed",
                format!(
                    "ACTIVITY_DELTA for {id:?} does not apply ({reason}): content left unchanged"
                ),
            ),
        }
    }

    pub(super) fn encrypted_value(&mut self, event: &Value) {
        let (Some(entity), Some(value)) =
            (str_field(event, "entityId"), event.field("encryptedValue"))
        else {
            return;
        };
        if str_field(event, "subtype") == Some("tool-call") {
            self.edit_tool_call(entity, |call| {
                if let Some(call) = call.as_object_mut() {
                    call.insert("encryptedValue".into(), value.clone());
                }
            });
        } else {
            self.edit_message(entity, |message| {
                if role_of(message) != "activity" {
                    if let Some(map) = message.as_object_mut() {
                        map.insert("encryptedValue".into(), value.clone());
                    }
                }
            });
        }
    }
}
