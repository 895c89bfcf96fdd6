//! A thread's messages, in order, with what the reducer looks up by key: the first message
//! with an id, and the first message holding a tool call. Each text delta and tool argument
//! names its message, and a scan of every message for each of them made a long thread's fold
//! grow with the square of its length (200,000 events took eleven minutes to import). The list
//! changes only through these methods, so the index cannot go stale, and so that they can say
//! which positions changed since a checkpoint last asked.

use std::collections::{BTreeSet, HashMap};
use std::ops::Deref;

use serde_json::Value;

use journalscope_shapes::record_json::Field;

#[derive(Debug, Clone, Default)]
pub struct Messages {
    list: Vec<Value>,
    /// The first position of each message id among `list[..indexed]`.
    by_id: HashMap<String, usize>,
    /// The first message holding each tool call id among `list[..indexed]`.
    by_call: HashMap<String, usize>,
    /// Messages taken into the index; those after it were pushed since and are taken in at the
    /// next lookup.
    indexed: usize,
    touched: Touched,
}

/// The positions that changed since [`Messages::take_touched`] last asked: a checkpoint keeps
/// the stored copy of every other message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Touched {
    /// Every position from this one on may have changed: a push, an insert, a replacement.
    pub from: Option<usize>,
    /// Positions changed in place.
    pub at: BTreeSet<usize>,
}

impl Touched {
    fn all_from(&mut self, at: usize) {
        self.from = Some(self.from.map_or(at, |from| from.min(at)));
    }

    /// Whether any position in `range` may have changed.
    pub fn any_in(&self, range: std::ops::Range<usize>) -> bool {
        self.from.is_some_and(|from| from < range.end) || self.at.range(range).next().is_some()
    }
}

impl PartialEq for Messages {
    fn eq(&self, other: &Self) -> bool {
        self.list == other.list
    }
}

impl Deref for Messages {
    type Target = Vec<Value>;

    fn deref(&self) -> &Vec<Value> {
        &self.list
    }
}

impl From<Vec<Value>> for Messages {
    fn from(list: Vec<Value>) -> Messages {
        Messages {
            list,
            ..Messages::default()
        }
    }
}

fn id_of(message: &Value) -> Option<&str> {
    message.field("id").and_then(Value::as_str)
}

/// The tool call ids a message holds, in order.
fn calls_of(message: &Value) -> impl Iterator<Item = &str> {
    message
        .field("toolCalls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(id_of)
}

/// Every key a message is found by: its id, then its tool calls'.
fn keys_of(message: &Value) -> (Option<String>, Vec<String>) {
    (
        id_of(message).map(str::to_string),
        calls_of(message).map(str::to_string).collect(),
    )
}

/// Records `at` as where `key` is found, unless an earlier message already holds it.
fn note(map: &mut HashMap<String, usize>, key: &str, at: usize) {
    match map.get_mut(key) {
        Some(first) => *first = (*first).min(at),
        None => {
            map.insert(key.to_string(), at);
        }
    }
}

impl Messages {
    pub fn into_vec(self) -> Vec<Value> {
        self.list
    }

    fn register(&mut self, at: usize) {
        let message = &self.list[at];
        if let Some(id) = id_of(message) {
            note(&mut self.by_id, id, at);
        }
        for call in calls_of(message) {
            note(&mut self.by_call, call, at);
        }
    }

    /// Takes the messages pushed since the last lookup into the index.
    fn catch_up(&mut self) {
        while self.indexed < self.list.len() {
            self.register(self.indexed);
            self.indexed += 1;
        }
    }

    fn forget_index(&mut self) {
        self.by_id.clear();
        self.by_call.clear();
        self.indexed = 0;
    }

    /// Where the first message with `id` is.
    pub fn position(&mut self, id: &str) -> Option<usize> {
        self.catch_up();
        self.by_id.get(id).copied()
    }

    /// Where the first message holding tool call `call` is.
    pub fn call_owner(&mut self, call: &str) -> Option<usize> {
        self.catch_up();
        self.by_call.get(call).copied()
    }

    /// What changed since the last call, which starts the count again.
    pub fn take_touched(&mut self) -> Touched {
        std::mem::take(&mut self.touched)
    }

    pub fn push(&mut self, message: Value) {
        self.touched.all_from(self.list.len());
        self.list.push(message);
    }

    /// Inserts before position `at`: the messages after it move one place on.
    pub fn insert(&mut self, at: usize, message: Value) {
        self.touched.all_from(at);
        self.catch_up();
        // Only the messages from `at` on hold the positions that move, and an insert lands
        // near the end of a thread (a tool result after its call), so few are walked. Last
        // first, so that a position moved on is not met again.
        for index in (at..self.list.len()).rev() {
            let (id, calls) = keys_of(&self.list[index]);
            let moved = |map: &mut HashMap<String, usize>, key: &str| {
                if let Some(first) = map.get_mut(key) {
                    if *first == index {
                        *first = index + 1;
                    }
                }
            };
            if let Some(id) = &id {
                moved(&mut self.by_id, id);
            }
            for call in &calls {
                moved(&mut self.by_call, call);
            }
        }
        self.list.insert(at, message);
        self.indexed += 1;
        self.register(at);
    }

    /// Changes the message at `at` in place. A change that drops one of its keys (its id, a
    /// tool call) rebuilds the index at the next lookup; one that adds keys is taken in now.
    pub fn edit<R>(&mut self, at: usize, change: impl FnOnce(&mut Value) -> R) -> R {
        self.touched.at.insert(at);
        let before = (at < self.indexed).then(|| keys_of(&self.list[at]));
        let result = change(&mut self.list[at]);
        if let Some((id, calls)) = before {
            let (now_id, now_calls) = keys_of(&self.list[at]);
            if id.is_some() && id != now_id || calls.iter().any(|c| !now_calls.contains(c)) {
                self.forget_index();
            } else {
                self.register(at);
            }
        }
        result
    }

    /// Replaces the message at `at`.
    pub fn set(&mut self, at: usize, message: Value) {
        self.edit(at, |held| *held = message);
    }

    /// Replaces every message.
    pub fn replace(&mut self, list: Vec<Value>) {
        self.touched.all_from(0);
        self.list = list;
        self.forget_index();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The first position with `id`, by a scan: what the index must answer.
    fn scan(messages: &Messages, id: &str) -> Option<usize> {
        messages.iter().position(|m| id_of(m) == Some(id))
    }

    fn scan_call(messages: &Messages, call: &str) -> Option<usize> {
        messages.iter().position(|m| calls_of(m).any(|c| c == call))
    }

    #[test]
    fn given_pushes_inserts_edits_and_duplicates_when_looked_up_then_the_index_answers_as_a_scan() {
        let mut messages = Messages::default();
        let ids = ["a", "b", "a", "c", "d"];
        let mut step = 0u64;
        let mut rng = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |bound: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % bound
        };
        while step < 2_000 {
            step += 1;
            let id = ids[next(ids.len() as u64) as usize];
            let call = format!("call-{}", next(6));
            match next(6) {
                0 | 1 => messages.push(json!({"id": id, "role": "assistant"})),
                2 if !messages.is_empty() => {
                    let at = next(messages.len() as u64 + 1) as usize;
                    messages.insert(at, json!({"id": id, "toolCalls": [{"id": call}]}));
                }
                3 if !messages.is_empty() => {
                    let at = next(messages.len() as u64) as usize;
                    let call = call.clone();
                    messages.edit(at, |m| {
                        if let Some(map) = m.as_object_mut() {
                            map.insert("toolCalls".into(), json!([{"id": call}]));
                        }
                    });
                }
                4 if !messages.is_empty() => {
                    let at = next(messages.len() as u64) as usize;
                    messages.set(at, json!({"id": id}));
                }
                5 if next(20) == 0 => {
                    let kept: Vec<Value> = messages.iter().rev().take(3).cloned().collect();
                    messages.replace(kept);
                }
                _ => {}
            }
            for id in ids {
                assert_eq!(
                    messages.position(id),
                    scan(&messages, id),
                    "step {step}: the first message with id {id}"
                );
            }
            for n in 0..6 {
                let call = format!("call-{n}");
                assert_eq!(
                    messages.call_owner(&call),
                    scan_call(&messages, &call),
                    "step {step}: the first holder of {call}"
                );
            }
        }
    }
}
