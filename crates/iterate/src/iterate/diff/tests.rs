//! The tests of `diff`.

use super::edit::{edit_script, myers, Edit};
use super::*;
use crate::iterate::render::RenderedItem;
use crate::iterate::roles::Rule;

fn apply(a: &[char], b: &[char], edits: &[Edit]) -> (Vec<char>, Vec<char>) {
    let (mut left, mut right) = (Vec::new(), Vec::new());
    let (mut i, mut j) = (0, 0);
    for edit in edits {
        match edit {
            Edit::Same => {
                assert_eq!(a[i], b[j], "a `same` edit pairs equal elements");
                left.push(a[i]);
                right.push(b[j]);
                i += 1;
                j += 1;
            }
            Edit::Delete => {
                left.push(a[i]);
                i += 1;
            }
            Edit::Insert => {
                right.push(b[j]);
                j += 1;
            }
        }
    }
    (left, right)
}

fn chars(text: &str) -> Vec<char> {
    text.chars().collect()
}

#[test]
fn given_two_strings_when_diffed_then_the_script_rebuilds_both_with_the_fewest_edits() {
    for (a, b, distance) in [
        ("ABCABBA", "CBABAC", 5),
        ("", "abc", 3),
        ("abc", "", 3),
        ("same", "same", 0),
        ("kitten", "sitting", 5),
    ] {
        let (a, b) = (chars(a), chars(b));
        let edits = myers(&a, &b, 100).expect("within the bound");
        let (left, right) = apply(&a, &b, &edits);
        assert_eq!(
            (left, right),
            (a.clone(), b.clone()),
            "the script must rebuild both sides"
        );
        let edited = edits.iter().filter(|e| **e != Edit::Same).count();
        assert_eq!(
            edited, distance,
            "Myers finds a shortest script for {a:?} → {b:?}"
        );
    }
}

#[test]
fn given_a_distance_past_the_bound_when_diffed_then_the_script_is_coarse_but_complete() {
    let a: Vec<u32> = (0..50).collect();
    let b: Vec<u32> = (100..150).collect();
    assert!(
        myers(&a, &b, 10).is_none(),
        "100 edits exceed a bound of 10"
    );
    let (edits, coarse) = edit_script(&a, &b);
    assert!(!coarse, "the default bound covers 100 edits");
    assert_eq!(edits.len(), 100, "every element removed or added");
}

fn message(role: Role, content: &str) -> Message {
    Message {
        role,
        content: content.to_string(),
    }
}

fn item(offset: i64, lane: &str, role: Role) -> RenderedItem {
    RenderedItem {
        offset,
        lane: lane.to_string(),
        product_role: role,
        provider_role: role,
        rule: Rule::User,
    }
}

/// A snapshot built by hand: the protocol, `items` as `(offset, lane, text)`, the time.
fn snapshot(request: i64, items: &[(i64, &str, &str)], time: &str) -> RequestSnapshot {
    let mut messages = vec![message(Role::System, "protocol")];
    let mut rendered = Vec::new();
    for (offset, lane, text) in items {
        let role = if *lane == "system" {
            Role::System
        } else {
            Role::User
        };
        messages.push(message(role, &format!("@{offset}\n{text}")));
        rendered.push(item(*offset, lane, role));
    }
    messages.push(message(Role::Developer, time));
    RequestSnapshot {
        request_offset: request,
        transport: Transport::Openai,
        model: Some("m".to_string()),
        tokens: crate::iterate::tokens::count_messages(Some("m"), &messages),
        messages,
        items: rendered,
        responses_body: None,
        notes: Vec::new(),
    }
}

#[test]
fn given_a_snapshot_when_its_message_starts_are_computed_then_they_cut_the_body_at_each_message() {
    let s = snapshot(
        9,
        &[(1, "system", "sys"), (2, "history", "héllo \"q\"")],
        "t",
    );
    let body = s.body();
    let starts = message_starts(&s);
    for (index, start) in starts.iter().enumerate() {
        let text = serde_json::to_vec(&s.messages[index]).expect("serialises");
        let start = *start as usize;
        assert_eq!(
            &body[start..start + text.len()],
            &text[..],
            "message {index} must start where message_starts says"
        );
    }
}

#[test]
fn given_an_appended_item_when_diffed_then_the_prefix_is_ideal_and_nothing_broke() {
    let a = snapshot(5, &[(1, "system", "s"), (2, "history", "h")], "t1");
    let b = snapshot(
        9,
        &[
            (1, "system", "s"),
            (2, "history", "h"),
            (7, "history", "new"),
        ],
        "t2",
    );
    let diff = diff_snapshots(&a, &b, &Changes::default());
    assert_eq!(
        diff.common_prefix_messages, 3,
        "protocol and both items are shared"
    );
    assert_eq!(
        diff.ideal_prefix_messages, 3,
        "ideal: all of the earlier request but its time"
    );
    assert_eq!(
        diff.reused_prefix_bytes, diff.ideal_prefix_bytes,
        "nothing lost"
    );
    assert!(
        diff.common_prefix_bytes >= diff.ideal_prefix_bytes,
        "bodies share the ideal bytes"
    );
    assert_eq!(
        diff.prefix_break, None,
        "an append does not break the prefix"
    );
    assert_eq!(
        diff.first_difference,
        Some(3),
        "the time is the first difference"
    );
    assert_eq!(
        diff.rows[0].op,
        DiffOp::Changed,
        "the earlier time pairs with the new item"
    );
}

#[test]
fn given_a_rewritten_published_item_when_diffed_then_the_break_is_unexpected() {
    // A journal cannot produce this (published items are never rewritten), so the case is
    // built from two hand-made snapshots.
    let a = snapshot(
        5,
        &[(1, "system", "s"), (2, "history", "hello world")],
        "t1",
    );
    let b = snapshot(
        9,
        &[(1, "system", "s"), (2, "history", "hello there world")],
        "t2",
    );
    let diff = diff_snapshots(&a, &b, &Changes::default());
    let broke = diff.prefix_break.expect("a rewrite breaks the prefix");
    assert_eq!(
        broke.at_message, 2,
        "the rewritten item is the first difference"
    );
    assert!(!broke.expected, "no journal change explains a rewrite");
    assert!(
        matches!(&broke.causes[0], BreakCause::Unexpected { message: 2, explanation } if explanation.contains("@2 was rewritten")),
        "the cause names the rewritten item: {:?}",
        broke.causes
    );
    assert!(broke.lost_bytes > 0, "bytes past the rewrite are lost");
    let characters = diff.characters.expect("both sides have message 2");
    let added: String = characters
        .segments
        .iter()
        .filter(|s| s.op == DiffOp::Added)
        .map(|s| s.text.as_str())
        .collect();
    assert_eq!(
        added, "there ",
        "the character diff shows exactly the inserted word"
    );
}

#[test]
fn given_a_system_item_inserted_without_a_journal_cause_when_diffed_then_it_is_unexpected() {
    let a = snapshot(5, &[(1, "system", "s"), (2, "history", "h")], "t1");
    let b = snapshot(
        9,
        &[(1, "system", "s"), (7, "system", "x"), (2, "history", "h")],
        "t2",
    );
    let diff = diff_snapshots(&a, &b, &Changes::default());
    let broke = diff.prefix_break.expect("an insertion breaks the prefix");
    assert!(
        !broke.expected,
        "with no changes given, nothing explains it"
    );
    let changes = Changes {
        compactions: Vec::new(),
        system_additions: vec![BreakCause::SystemLaneUpdate {
            offset: 7,
            key: None,
        }],
    };
    let diff = diff_snapshots(&a, &b, &changes);
    let broke = diff.prefix_break.expect("still a break");
    assert!(broke.expected, "the system-lane update explains it");
    assert_eq!(broke.later_item, Some(7), "the new item sits at the break");
}

#[test]
fn given_the_same_request_on_two_transports_when_diffed_then_the_transport_explains_it() {
    let a = snapshot(5, &[(1, "history", "h")], "t");
    let mut b = a.clone();
    b.transport = Transport::WorkersAi;
    b.messages[1].role = Role::System;
    let diff = diff_snapshots(&a, &b, &Changes::default());
    let broke = diff.prefix_break.expect("a role change breaks the prefix");
    assert_eq!(
        broke.causes,
        vec![BreakCause::TransportChange {
            from: Transport::Openai,
            to: Transport::WorkersAi
        }],
        "the transport change is the cause"
    );
    let characters = diff.characters.expect("message 1 on both sides");
    assert_eq!(
        (characters.from_role, characters.to_role),
        (Role::User, Role::System),
        "the roles are shown"
    );
}

fn lcs(a: &[u8], b: &[u8]) -> usize {
    let mut table = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in 0..a.len() {
        for j in 0..b.len() {
            table[i + 1][j + 1] = if a[i] == b[j] {
                table[i][j] + 1
            } else {
                table[i][j + 1].max(table[i + 1][j])
            };
        }
    }
    table[a.len()][b.len()]
}

proptest::proptest! {
    #[test]
    fn any_two_sequences_get_a_script_that_rebuilds_them_with_the_fewest_edits(
        a in proptest::collection::vec(0u8..4, 0..40),
        b in proptest::collection::vec(0u8..4, 0..40),
    ) {
        let edits = myers(&a, &b, 1000).expect("80 elements are within the bound");
        let (mut left, mut right) = (Vec::new(), Vec::new());
        let (mut i, mut j) = (0, 0);
        for edit in &edits {
            match edit {
                Edit::Same => {
                    proptest::prop_assert_eq!(a[i], b[j], "same pairs equal elements");
                    left.push(a[i]);
                    right.push(b[j]);
                    i += 1;
                    j += 1;
                }
                Edit::Delete => {
                    left.push(a[i]);
                    i += 1;
                }
                Edit::Insert => {
                    right.push(b[j]);
                    j += 1;
                }
            }
        }
        proptest::prop_assert_eq!(&left, &a, "the script walks all of a");
        proptest::prop_assert_eq!(&right, &b, "the script walks all of b");
        let edited = edits.iter().filter(|e| **e != Edit::Same).count();
        proptest::prop_assert_eq!(edited, a.len() + b.len() - 2 * lcs(&a, &b), "a shortest script");
    }
}
