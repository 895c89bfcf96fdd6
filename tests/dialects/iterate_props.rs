//! Property tests of the iterate fold on generated journals: request bytes never depend on
//! what comes after the request, folding is deterministic, and the projection's invariants
//! hold at every offset.

use crate::support::iterate_lines;

use iterate_lines::*;
use journalscope_iterate::iterate::Transport;
use proptest::prelude::*;
use serde_json::{json, Value};

#[derive(Debug, Clone)]
enum Op {
    Context {
        role: usize,
        key: Option<usize>,
        actor: Option<usize>,
        dont_trigger: bool,
        content: String,
    },
    Request,
    /// The cutoff is `offset - back`: `back <= 0` gives an invalid cutoff on purpose.
    Compaction {
        back: i64,
    },
    Unknown,
}

const ROLES: [&str; 4] = ["system", "developer", "user", "assistant"];
const KEYS: [&str; 3] = ["agent/system-prompt", "task", "notes"];
const ACTORS: [&str; 5] = ["agent", "github", "script", "user", "slack"];

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..4usize, proptest::option::of(0..3usize), proptest::option::of(0..5usize), any::<bool>(), "[a-z@ \n]{0,12}")
            .prop_map(|(role, key, actor, dont_trigger, content)| Op::Context { role, key, actor, dont_trigger, content }),
        2 => Just(Op::Request),
        1 => (-2i64..12).prop_map(|back| Op::Compaction { back }),
        1 => Just(Op::Unknown),
    ]
}

/// Mostly increasing gaps; now and then an offset that does not increase, which is diagnosed
/// and reduced in file order.
fn gap() -> impl Strategy<Value = i64> {
    prop_oneof![9 => 1i64..4, 1 => -2i64..1]
}

/// A journal: each op gets an offset with a random gap (ephemeral events consume offsets).
fn journal_lines() -> impl Strategy<Value = (Vec<String>, Vec<(i64, bool)>)> {
    proptest::collection::vec((op(), gap()), 1..30).prop_map(|ops| {
        let mut offset = 0;
        let mut lines = Vec::new();
        let mut kinds = Vec::new();
        let mut last_request = None;
        for (op, gap) in ops {
            offset += gap;
            let (line, is_request) = match op {
                Op::Context { role, key, actor, dont_trigger, content } => {
                    let mut payload = json!({"role": ROLES[role], "content": content});
                    if let Some(key) = key {
                        payload["key"] = json!(KEYS[key]);
                    }
                    if let Some(actor) = actor {
                        payload["actor"] = json!({"type": ACTORS[actor]});
                    }
                    if dont_trigger {
                        payload["llmRequestPolicy"] = json!({"behaviour": "dont-trigger-request"});
                    }
                    if ROLES[role] == "assistant" {
                        if let Some(r) = last_request {
                            payload["llmRequestOffset"] = json!(r);
                        }
                    }
                    (ctx(offset, payload), false)
                }
                Op::Request => {
                    last_request = Some(offset);
                    (request(offset), true)
                }
                Op::Compaction { back } => (compaction(offset, json!(offset - back), "summary"), false),
                Op::Unknown => (
                    json!({"offset": offset, "type": "events.iterate.com/github/webhook-received", "payload": {"role": "user", "content": "x"}}).to_string(),
                    false,
                ),
            };
            lines.push(line);
            kinds.push((offset, is_request));
        }
        (lines, kinds)
    })
}

proptest! {
    #[test]
    fn request_bytes_do_not_change_when_events_are_appended((lines, kinds) in journal_lines()) {
        let whole = journal(&lines);
        for (index, &(offset, is_request)) in kinds.iter().enumerate() {
            if !is_request {
                continue;
            }
            let prefix = journal(&lines[..=index]);
            for transport in Transport::ALL {
                let then = prefix.request(offset, transport).expect("a request").body();
                let now = whole.request(offset, transport).expect("a request").body();
                prop_assert_eq!(then, now, "request @{} on {:?} renders the same bytes after later events", offset, transport);
            }
        }
    }

    #[test]
    fn the_fold_is_deterministic((lines, kinds) in journal_lines()) {
        let one = journal(&lines);
        let two = journal(&lines);
        prop_assert_eq!(one.analyse(), two.analyse(), "folding twice finds the same diagnostics and marks");
        for &(at, is_request) in &kinds {
            prop_assert_eq!(one.projection_at(at), two.projection_at(at), "the projection at @{} is the same on every fold", at);
            if is_request {
                for transport in Transport::ALL {
                    prop_assert_eq!(
                        one.request(at, transport).expect("a request").body(),
                        two.request(at, transport).expect("a request").body(),
                        "request @{} renders the same bytes on every fold", at
                    );
                }
            }
        }
    }

    #[test]
    fn projection_invariants_hold_at_every_offset((lines, kinds) in journal_lines()) {
        let j = journal(&lines);
        for &(at, _) in &kinds {
            let view = j.projection_view(at);
            for item in view.system.iter().chain(view.history.iter()) {
                prop_assert!(item.offset <= at, "item @{} is in the projection at @{}", item.offset, at);
                let expected = view.published_through.is_some_and(|p| item.offset <= p);
                prop_assert_eq!(item.published, expected, "published flag of @{} equals offset <= publishedThrough {:?}", item.offset, view.published_through);
            }
        }
    }

    #[test]
    fn a_compaction_never_removes_history_after_its_cutoff((lines, kinds) in journal_lines()) {
        let j = journal(&lines);
        for &(offset, _) in &kinds {
            let Ok(view) = j.compaction(offset) else { continue };
            let after: Vec<i64> = view.after.history.iter().map(|i| i.offset).collect();
            if !view.valid {
                let before: Vec<i64> = view.before.history.iter().map(|i| i.offset).collect();
                prop_assert_eq!(before, after, "an invalid compaction @{} changes no history", offset);
                continue;
            }
            let cutoff = view.cutoff.expect("a valid compaction has a cutoff");
            for item in &view.before.history {
                if item.offset > cutoff {
                    prop_assert!(after.contains(&item.offset), "@{} > cutoff @{} survives compaction @{}", item.offset, cutoff, offset);
                }
            }
            prop_assert_eq!(after.first().copied(), Some(offset), "the summary is prepended");
            let published: Option<i64> = view.after.published_through;
            prop_assert!(published.is_some_and(|p| p >= cutoff), "publishedThrough reaches the cutoff");
        }
    }
}

#[test]
fn generated_payloads_are_json_objects() {
    // Guards the generator itself: a broken builder would make the properties vacuous.
    let line = ctx(1, json!({"role": "user", "content": "x"}));
    let value: Value = serde_json::from_str(&line).expect("a built line is JSON");
    assert!(value.get("offset").is_some(), "built lines carry an offset");
}
