//! The sections contract's fold (iterate 7.0.0 and 8.0.0), as `iterate-sections-contract.md`
//! §3 says: one ordered list of messages, sections and request stamps, kept in the history
//! lane, beside the agent loop's trigger, open request and pause. Like the seed fold it does
//! no I/O and cannot fail; what breaks a rule becomes a diagnostic.

use std::collections::HashSet;

use serde_json::{json, Value};

use super::event::{
    derive_role, Behaviour, ContextAdded, EventKind, IterateEvent, Rewrite, Role, Settlement,
};
use super::projection::{
    compaction_cutoff, AppliedCompaction, AppliedRewrite, Item, Lane, Projection, Rules, Trigger,
};
use journalscope_shapes::diagnostic::Diagnostic;

/// Failed requests retried before the loop gives up, as upstream's default.
const RETRY_CAP: u32 = 3;

impl Item {
    /// A context item as the sections contract keeps it: its role derived, never stated.
    pub(crate) fn from_sections_context(event: &IterateEvent, context: &ContextAdded) -> Item {
        let mut item = Item::from_context(event, context);
        item.role = context.derived_role();
        if item.compaction.is_some() {
            // A summary is a message; a key on it names no section.
            item.key = None;
            item.role = Role::User;
        }
        item
    }

    /// The fresh section a `context-rewritten` replace leaves, by the platform.
    pub(crate) fn from_rewrite(event: &IterateEvent, key: &str, content: &str) -> Item {
        Item {
            offset: event.offset,
            seq: event.seq,
            role: Role::System,
            actor: Some(json!({"type": "platform"})),
            key: Some(key.to_string()),
            updates_offset: None,
            refs: Vec::new(),
            files: Vec::new(),
            content: content.into(),
            compaction: None,
            llm_request_offset: None,
            coalesced: Vec::new(),
            stamp: false,
            tokens: Default::default(),
        }
    }

    /// The stamp an opened request leaves: its `createdAt`, verbatim.
    pub(crate) fn stamp(event: &IterateEvent) -> Item {
        Item {
            offset: event.offset,
            seq: event.seq,
            role: Role::Developer,
            actor: None,
            key: None,
            updates_offset: None,
            refs: Vec::new(),
            files: Vec::new(),
            content: event.created_at.as_deref().unwrap_or("").into(),
            compaction: None,
            llm_request_offset: None,
            coalesced: Vec::new(),
            stamp: true,
            tokens: Default::default(),
        }
    }

    /// Whether the item is a section: keyed, and neither a stamp nor a summary.
    pub fn is_section(&self) -> bool {
        self.key.is_some() && !self.stamp
    }

    /// Whether the item can stand in the standing document: a section that supersedes none.
    pub fn is_standing(&self) -> bool {
        self.is_section() && self.updates_offset.is_none()
    }
}

impl Projection {
    /// How many items open the list as its standing document: the leading run of sections,
    /// up to the first message, stamp or superseding section.
    pub fn standing_len(&self) -> usize {
        self.history
            .iter()
            .take_while(|item| item.is_standing())
            .count()
    }

    /// Moves a journal folded so far by the seed rules onto the sections contract's: the items
    /// in the order they arrived, keyed ones as sections. Before the first request this is the
    /// list the sections fold would have built.
    pub(super) fn move_onto_sections(&mut self) {
        let mut items: Vec<Item> = std::mem::take(&mut self.system);
        items.append(&mut self.history);
        items.sort_by_key(|item| item.coalesced.first().copied().unwrap_or(item.offset));
        for item in &mut items {
            item.role = derive_role(
                item.role,
                item.key.is_some(),
                item.compaction.is_some(),
                item.actor.as_ref(),
            );
        }
        self.history = items;
        self.waiting_for_system_prompt.clear();
        self.rules = Rules::Sections;
        self.rebuild_slots();
    }

    pub(super) fn apply_sections(&mut self, event: &IterateEvent) {
        match &event.kind {
            EventKind::ContextAdded(context) => self.add_section_context(event, context),
            EventKind::ContextRewritten(rewrite) => self.rewrite(event, rewrite),
            EventKind::RequestRequested { .. } => self.open_request(event),
            EventKind::RequestSettled {
                request,
                settlement,
            } => self.settle(event, *request, *settlement),
            EventKind::Paused => {
                self.loop_state.paused = true;
                if self.loop_state.trigger.is_some_and(|t| !t.external) {
                    self.loop_state.trigger = None;
                }
            }
            EventKind::Resumed => self.loop_state.paused = false,
            EventKind::UsageReported(_) | EventKind::Other => {}
        }
    }

    fn sent(&self, offset: i64) -> bool {
        self.published_through.is_some_and(|sent| offset <= sent)
    }

    fn add_section_context(&mut self, event: &IterateEvent, context: &ContextAdded) {
        if let Some(compaction) = &context.compaction {
            self.rebuild(event, context, compaction);
            return;
        }
        let role = context.derived_role();
        if role == Role::Assistant {
            if let Some(request) = context.llm_request_offset {
                if self.loop_state.open != Some(request) {
                    self.diagnostics.push(Diagnostic::warning(
                        event.line,
                        Some(event.offset),
                        "stale-model-output",
                        format!(
                            "model output for request @{request}, which is not the open request{}: dropped from the context",
                            match self.loop_state.open {
                                Some(open) => format!(" (@{open} is)"),
                                None => " (none is open)".to_string(),
                            }
                        ),
                    ));
                    return;
                }
            }
        }
        let mut item = Item::from_sections_context(event, context);
        match context.key.clone() {
            None => self.push(Lane::History, item),
            Some(key) => match self.slots.get(&(Lane::History, key)).copied() {
                Some(index) if !self.sent(self.history[index].offset) => {
                    let existing = &self.history[index];
                    item.updates_offset = existing.updates_offset;
                    item.coalesced = existing.coalesced.clone();
                    item.coalesced.push(existing.offset);
                    self.history[index] = item;
                    self.edits.note();
                    self.last_item = Some((Lane::History, index));
                }
                Some(index) => {
                    item.updates_offset = Some(self.history[index].offset);
                    self.push(Lane::History, item);
                }
                None => self.push(Lane::History, item),
            },
        }
        let triggers = match role {
            Role::System | Role::Assistant => None,
            _ if context.behaviour == Behaviour::DontTriggerRequest => None,
            Role::User => Some(true),
            Role::Developer => Some(false),
        };
        if let Some(external) = triggers {
            self.loop_state.trigger = Some(Trigger {
                offset: event.offset,
                external,
            });
        }
    }

    /// A compaction: the newest of every key (standing again), every unkeyed system message,
    /// the summary, then the stamps and other messages after the cutoff.
    fn rebuild(&mut self, event: &IterateEvent, context: &ContextAdded, compaction: &Value) {
        let cutoff = match compaction_cutoff(event.offset, compaction) {
            Ok(cutoff) => cutoff,
            Err(reason) => {
                self.diagnostics.push(Diagnostic::error(
                    event.line,
                    Some(event.offset),
                    "compaction-cutoff-not-before-item",
                    format!("compaction ignored: {reason}"),
                ));
                return;
            }
        };
        let list = std::mem::take(&mut self.history);
        let mut newest: std::collections::HashMap<&str, usize> = Default::default();
        let mut key_order: Vec<&str> = Vec::new();
        for (index, item) in list.iter().enumerate() {
            if let Some(key) = item.key.as_deref().filter(|_| item.is_section()) {
                if newest.insert(key, index).is_none() {
                    key_order.push(key);
                }
            }
        }
        let keep_sections: HashSet<usize> = newest.values().copied().collect();
        let mut rebuilt: Vec<Item> = Vec::with_capacity(list.len());
        let mut kept = Vec::new();
        for key in &key_order {
            let mut section = list[newest[key]].clone();
            section.updates_offset = None;
            section.forget_tokens();
            rebuilt.push(section);
        }
        let collapsed: Vec<i64> = list
            .iter()
            .enumerate()
            .filter(|(index, item)| item.is_section() && !keep_sections.contains(index))
            .map(|(_, item)| item.offset)
            .collect();
        let system_message =
            |item: &Item| !item.is_section() && !item.stamp && item.role == Role::System;
        rebuilt.extend(list.iter().filter(|item| system_message(item)).cloned());
        let summary = Item::from_sections_context(event, context);
        rebuilt.push(summary);
        let mut dropped = Vec::new();
        for item in &list {
            if item.is_section() || system_message(item) {
                continue;
            }
            if item.offset > cutoff {
                kept.push(item.offset);
                rebuilt.push(item.clone());
            } else {
                dropped.push(item.offset);
            }
        }
        self.history = rebuilt;
        self.rebuild_slots();
        self.last_compaction = Some(AppliedCompaction {
            offset: event.offset,
            cutoff,
            dropped,
            kept,
            collapsed,
        });
        self.last_item = Some((Lane::History, self.standing_len()));
        self.published_through = Some(self.published_through.map_or(cutoff, |p| p.max(cutoff)));
    }

    fn rewrite(&mut self, event: &IterateEvent, rewrite: &Rewrite) {
        self.edits.note();
        let before: Vec<i64> = self.history.iter().map(|item| item.offset).collect();
        let (op, key) = match rewrite {
            Rewrite::DeleteAll => {
                self.history.clear();
                ("delete *", None)
            }
            Rewrite::Delete { key } => {
                self.history
                    .retain(|item| !(item.is_section() && item.key.as_deref() == Some(key)));
                ("delete", Some(key.clone()))
            }
            Rewrite::Replace { key, content } => {
                let fresh = Item::from_rewrite(event, key, content);
                let of_key = |item: &Item| item.is_section() && item.key.as_deref() == Some(key);
                match self.history.iter().position(of_key) {
                    None => {
                        self.history.push(fresh);
                        self.last_item = Some((Lane::History, self.history.len() - 1));
                    }
                    Some(first) => {
                        self.history[first] = fresh;
                        let mut index = 0;
                        self.history.retain(|item| {
                            let keep = index <= first || !of_key(item);
                            index += 1;
                            keep
                        });
                        self.last_item = Some((Lane::History, first));
                    }
                }
                ("replace", Some(key.clone()))
            }
        };
        let after: HashSet<i64> = self.history.iter().map(|item| item.offset).collect();
        let removed: Vec<i64> = before
            .into_iter()
            .filter(|offset| !after.contains(offset))
            .collect();
        self.rebuild_slots();
        self.last_rewrite = Some(AppliedRewrite {
            offset: event.offset,
            op,
            key,
            removed,
        });
    }

    fn open_request(&mut self, event: &IterateEvent) {
        let state = self.loop_state;
        let why = if state.trigger.is_none() {
            Some("nothing has asked for a model turn since the last request".to_string())
        } else if let Some(open) = state.open {
            Some(format!("request @{open} is still open"))
        } else if state.paused {
            Some("the agent is paused".to_string())
        } else {
            None
        };
        if let Some(why) = why {
            self.diagnostics.push(Diagnostic::warning(
                event.line,
                Some(event.offset),
                "request-not-opened",
                format!(
                    "request @{} opened nothing and sent nothing: {why}",
                    event.offset
                ),
            ));
            return;
        }
        self.loop_state.trigger = None;
        self.loop_state.open = Some(event.offset);
        self.published_through = Some(event.offset);
        self.requests.insert(event.offset);
        self.push(Lane::History, Item::stamp(event));
    }

    fn settle(&mut self, event: &IterateEvent, request: Option<i64>, settlement: Settlement) {
        if request.is_none() || request != self.loop_state.open {
            return;
        }
        self.loop_state.open = None;
        match settlement {
            Settlement::Succeeded => self.loop_state.failures = 0,
            Settlement::Cancelled => {}
            Settlement::Failed => {
                self.loop_state.failures += 1;
                if self.loop_state.failures < RETRY_CAP {
                    self.loop_state.trigger = Some(Trigger {
                        offset: event.offset,
                        external: false,
                    });
                }
            }
        }
    }
}
