//! Given/when/then tests of every iterate rule of `interpretation.md` §1, on small journals
//! written in code and read through the importer's reader.

use crate::support::iterate_lines;

use iterate_lines::*;
use journalscope_iterate::iterate::event::Role;
use journalscope_iterate::iterate::projection::Projection;
use journalscope_iterate::iterate::render::{header_line, PROTOCOL_MESSAGE};
use journalscope_iterate::iterate::roles::{provider_role, Rule};
use journalscope_iterate::iterate::view::VIEW_DIAGNOSTICS;
use journalscope_iterate::iterate::{IterateJournal, Transport};
use serde_json::json;

mod roles;

fn offsets(items: &[journalscope_iterate::iterate::projection::Item]) -> Vec<i64> {
    items.iter().map(|i| i.offset).collect()
}

fn at(journal: &IterateJournal, offset: i64) -> Projection {
    journal.projection_at(offset)
}

fn body(journal: &IterateJournal, r: i64, transport: Transport) -> Vec<u8> {
    journal
        .request(r, transport)
        .expect("the offset is a request")
        .body()
}

// ── lanes and appending ─────────────────────────────────────────────────────────────────

#[test]
fn given_items_of_every_role_when_folded_then_system_goes_to_system_lane_and_the_rest_to_history() {
    let lines = [
        system_prompt(1, "prompt"),
        ctx(2, json!({"role": "developer", "content": "dev"})),
        user(3, "hi"),
        ctx(4, json!({"role": "assistant", "content": "hello"})),
        ctx(5, json!({"role": "system", "content": "more rules"})),
    ];
    let p = at(&journal(&lines), 5);
    assert_eq!(
        offsets(&p.system),
        vec![1, 5],
        "only system items fill the system lane"
    );
    assert_eq!(
        offsets(&p.history),
        vec![2, 3, 4],
        "developer, user and assistant items fill history in stream order"
    );
}

#[test]
fn given_unkeyed_items_with_equal_content_when_folded_then_each_appends() {
    let lines = [
        system_prompt(1, "p"),
        user(2, "same"),
        user(3, "same"),
        ctx(4, json!({"role": "system", "content": "s"})),
        ctx(5, json!({"role": "system", "content": "s"})),
    ];
    let p = at(&journal(&lines), 5);
    assert_eq!(
        offsets(&p.history),
        vec![2, 3],
        "unkeyed history items always append"
    );
    assert_eq!(
        offsets(&p.system),
        vec![1, 4, 5],
        "unkeyed system items always append"
    );
}

#[test]
fn given_a_new_key_when_folded_then_a_slot_is_appended_without_updates() {
    let lines = [
        system_prompt(1, "p"),
        user(2, "u"),
        keyed(3, "developer", "task", "v1"),
    ];
    let p = at(&journal(&lines), 3);
    assert_eq!(
        offsets(&p.history),
        vec![2, 3],
        "first occurrence of a key appends a new slot"
    );
    assert_eq!(
        p.history[1].key.as_deref(),
        Some("task"),
        "the slot keeps its key"
    );
    assert_eq!(
        p.history[1].updates_offset, None,
        "a new slot updates nothing"
    );
}

// ── keyed slots and publication ─────────────────────────────────────────────────────────

#[test]
fn given_an_unpublished_slot_when_its_key_is_updated_then_it_is_replaced_in_place_with_the_newer_offset(
) {
    let lines = [
        system_prompt(1, "p"),
        keyed(2, "developer", "task", "v1"),
        user(3, "between"),
        keyed(4, "developer", "task", "v2"),
        request(5),
    ];
    let j = journal(&lines);
    let p = at(&j, 4);
    assert_eq!(
        offsets(&p.history),
        vec![4, 3],
        "the slot keeps its lane position; rendered offsets need not increase"
    );
    assert_eq!(
        &*p.history[0].content, "v2",
        "the model sees only the latest value"
    );
    assert_eq!(
        p.history[0].updates_offset, None,
        "replacing an unpublished slot keeps its (absent) updatesOffset"
    );
    assert_eq!(
        p.history[0].coalesced,
        vec![2],
        "the replaced occurrence is remembered for the inspector"
    );
    let snapshot = j.request(5, Transport::Openai).expect("request");
    let rendered: Vec<i64> = snapshot.items.iter().map(|i| i.offset).collect();
    assert_eq!(
        rendered,
        vec![1, 4, 3],
        "the request renders the newer offset before a lower one"
    );
}

#[test]
fn given_a_published_slot_when_its_key_is_updated_then_a_new_item_appends_with_updates_offset() {
    let lines = [
        system_prompt(1, "p"),
        keyed(2, "developer", "task", "v1"),
        request(3),
        user(4, "later"),
        keyed(5, "developer", "task", "v2"),
    ];
    let p = at(&journal(&lines), 5);
    assert_eq!(
        offsets(&p.history),
        vec![2, 4, 5],
        "a published slot is never rewritten: the update appends"
    );
    assert_eq!(
        &*p.history[0].content, "v1",
        "the published occurrence keeps its bytes"
    );
    assert_eq!(
        p.history[2].updates_offset,
        Some(2),
        "the new occurrence points at the published one"
    );
}

#[test]
fn given_an_update_of_a_published_slot_when_updated_again_before_a_request_then_updates_coalesce_into_the_new_slot(
) {
    let lines = [
        system_prompt(1, "p"),
        keyed(2, "developer", "task", "v1"),
        request(3),
        keyed(4, "developer", "task", "v2"),
        user(5, "between"),
        keyed(6, "developer", "task", "v3"),
    ];
    let p = at(&journal(&lines), 6);
    assert_eq!(
        offsets(&p.history),
        vec![2, 6, 5],
        "v3 replaces the unpublished v2 slot in place"
    );
    assert_eq!(
        p.history[1].updates_offset,
        Some(2),
        "the coalesced slot keeps its updatesOffset"
    );
    assert_eq!(
        &*p.history[1].content, "v3",
        "the coalesced slot shows the latest value"
    );
    assert_eq!(
        p.history[1].coalesced,
        vec![4],
        "the coalesced occurrence is remembered"
    );
}

#[test]
fn given_the_same_key_in_both_lanes_when_folded_then_each_lane_has_its_own_slot() {
    let lines = [
        system_prompt(1, "p"),
        keyed(2, "system", "k", "sys"),
        keyed(3, "developer", "k", "dev"),
    ];
    let p = at(&journal(&lines), 3);
    assert_eq!(
        offsets(&p.system),
        vec![1, 2],
        "the system slot stays in the system lane"
    );
    assert_eq!(
        offsets(&p.history),
        vec![3],
        "a key has one slot per lane: the developer item does not replace the system one"
    );
}

#[test]
fn given_a_request_at_r_when_projected_then_items_through_r_are_published_and_later_ones_are_not() {
    let lines = [
        system_prompt(1, "p"),
        user(9, "before"),
        request(10),
        user(11, "after"),
    ];
    let j = journal(&lines);
    let before = j.projection_view(9);
    assert_eq!(
        before.published_through, None,
        "nothing is published before the first request"
    );
    assert!(
        before.history.iter().all(|i| !i.published),
        "without a request no item is published"
    );
    let view = j.projection_view(11);
    assert_eq!(
        view.published_through,
        Some(10),
        "llm-request-requested publishes through its offset"
    );
    assert!(
        view.system[0].published,
        "the system prompt at @1 < r is published"
    );
    assert!(view.history[0].published, "the item at r-1 is published");
    assert!(
        !view.history[1].published,
        "the item at r+1 is not published"
    );
}

#[test]
fn given_a_compaction_cutoff_c_when_projected_then_the_item_at_c_is_published_and_the_item_at_c_plus_1_is_not(
) {
    let lines = [
        system_prompt(1, "p"),
        ctx(3, json!({"role": "system", "content": "at the cutoff"})),
        ctx(4, json!({"role": "system", "content": "after the cutoff"})),
        compaction(6, json!(3), "summary"),
    ];
    let view = journal(&lines).projection_view(6);
    assert_eq!(
        view.published_through,
        Some(3),
        "a compaction publishes through its cutoff"
    );
    let flags: Vec<(i64, bool)> = view
        .system
        .iter()
        .map(|i| (i.offset, i.published))
        .collect();
    assert_eq!(
        flags,
        vec![(1, true), (3, true), (4, false)],
        "published exactly when offset <= publishedThrough"
    );
    assert!(
        !view.history[0].published,
        "the summary itself (offset > cutoff) is not yet published"
    );
}

#[test]
fn given_a_request_when_later_events_arrive_then_its_body_is_byte_identical() {
    let base = vec![
        system_prompt(1, "p"),
        keyed(2, "developer", "task", "v1"),
        user(3, "question"),
        request(4),
    ];
    let mut grown = base.clone();
    grown.extend([
        keyed(5, "developer", "task", "v2"),
        ctx(
            6,
            json!({"role": "assistant", "llmRequestOffset": 4, "content": "answer"}),
        ),
        system_prompt(7, "new prompt"),
        compaction(8, json!(4), "summary"),
        request(9),
    ]);
    for transport in Transport::ALL {
        let first = body(&journal(&base), 4, transport);
        let retry = body(&journal(&grown), 4, transport);
        assert_eq!(
            first, retry,
            "a retry of request @4 renders identical bytes whatever came after ({transport:?})"
        );
    }
}

#[test]
fn given_a_cancelled_request_when_its_published_slot_is_updated_then_the_update_still_appends() {
    let lines = [
        system_prompt(1, "p"),
        keyed(2, "developer", "task", "v1"),
        request(3),
        event(
            4,
            "llm-request-settled",
            json!({"requestOffset": 3, "result": {"status": "cancelled", "reason": "superseded"}}),
        ),
        keyed(5, "developer", "task", "v2"),
        request(6),
    ];
    let p = at(&journal(&lines), 6);
    assert_eq!(
        p.published_through,
        Some(6),
        "publication is never undone by a later settle"
    );
    assert_eq!(
        offsets(&p.history),
        vec![2, 5],
        "the cancelled request sealed @2, so @5 appends"
    );
    assert_eq!(
        p.history[1].updates_offset,
        Some(2),
        "the update points at the occurrence the cancelled request published"
    );
}

// ── compaction ──────────────────────────────────────────────────────────────────────────

fn compaction_journal() -> Vec<String> {
    vec![
        system_prompt(1, "prompt v1"),
        ctx(2, json!({"role": "system", "content": "unkeyed rule A"})),
        user(3, "old question"),
        keyed(4, "developer", "task", "old task"),
        request(5),
        system_prompt(6, "prompt v2"),
        ctx(7, json!({"role": "system", "content": "unkeyed rule B"})),
        ctx(
            8,
            json!({"role": "assistant", "llmRequestOffset": 5, "content": "answer after cutoff"}),
        ),
        compaction(10, json!(5), "dense summary"),
    ]
}

#[test]
fn given_a_valid_compaction_when_folded_then_summary_is_prepended_and_history_through_the_cutoff_is_dropped(
) {
    let p = at(&journal(&compaction_journal()), 10);
    assert_eq!(
        offsets(&p.history),
        vec![10, 8],
        "summary first, then history with offset > cutoff"
    );
    assert_eq!(
        &*p.history[0].content, "dense summary",
        "the summary is the compaction item's content"
    );
    let applied = p
        .last_compaction
        .as_ref()
        .expect("the compaction took effect");
    assert_eq!(
        applied.dropped,
        vec![3, 4],
        "history with offset <= cutoff is dropped"
    );
    assert_eq!(
        applied.kept,
        vec![8],
        "history with offset > cutoff is kept verbatim"
    );
}

#[test]
fn given_a_valid_compaction_when_folded_then_keyed_system_items_collapse_to_the_newest_and_unkeyed_stay(
) {
    let p = at(&journal(&compaction_journal()), 10);
    assert_eq!(
        offsets(&p.system),
        vec![2, 6, 7],
        "@1 collapses into @6; unkeyed @2 and @7 both stay"
    );
    assert_eq!(
        p.system[1].updates_offset,
        Some(1),
        "the surviving occurrence still names the collapsed one"
    );
    assert_eq!(
        p.last_compaction.as_ref().map(|c| c.collapsed.clone()),
        Some(vec![1]),
        "the collapse is reported"
    );
}

#[test]
fn given_a_compaction_when_folded_then_published_through_is_the_max_of_before_and_cutoff() {
    let p = at(&journal(&compaction_journal()), 10);
    assert_eq!(
        p.published_through,
        Some(5),
        "cutoff 5 equals the last request: max(5, 5)"
    );
    let lower = [
        system_prompt(1, "p"),
        user(2, "u"),
        request(3),
        user(4, "v"),
        request(6),
        compaction(7, json!(3), "s"),
    ];
    assert_eq!(
        at(&journal(&lower), 7).published_through,
        Some(6),
        "a cutoff below publishedThrough never lowers it"
    );
    let higher = [
        system_prompt(1, "p"),
        user(2, "u"),
        user(4, "v"),
        compaction(7, json!(4), "s"),
    ];
    assert_eq!(
        at(&journal(&higher), 7).published_through,
        Some(4),
        "a cutoff above publishedThrough raises it"
    );
}

#[test]
fn given_a_compaction_with_usage_when_rendered_then_usage_is_not_model_visible() {
    let mut lines = compaction_journal();
    lines.push(request(11));
    let j = journal(&lines);
    let p = at(&j, 11);
    assert!(
        p.history[0]
            .compaction
            .as_ref()
            .and_then(|c| c.get("usage"))
            .is_some(),
        "usage is kept as metadata"
    );
    for transport in Transport::ALL {
        let text = String::from_utf8(body(&j, 11, transport)).expect("utf-8 body");
        assert!(
            !text.contains("4321")
                && !text.contains("inputTokens")
                && !text.contains("replacesHistoryThrough"),
            "compaction metadata is never rendered ({transport:?})"
        );
        assert!(
            text.contains("@10\\ndense summary"),
            "the summary renders as an ordinary item ({transport:?})"
        );
    }
}

#[test]
fn given_invalid_compaction_cutoffs_when_folded_then_they_are_ignored_and_diagnosed() {
    let cases = [
        ("equal to own offset", Some(json!(10))),
        ("after own offset", Some(json!(12))),
        ("string", Some(json!("5"))),
        ("float", Some(json!(5.5))),
        ("missing", None),
    ];
    for (name, cutoff) in cases {
        let mut compaction_payload = json!({"usage": {"inputTokens": 1}});
        if let Some(cutoff) = cutoff {
            compaction_payload["replacesHistoryThrough"] = cutoff;
        }
        let lines = [
            system_prompt(1, "p"),
            user(3, "keep me"),
            request(5),
            ctx(
                10,
                json!({"role": "developer", "content": "bad summary", "compaction": compaction_payload}),
            ),
        ];
        let p = at(&journal(&lines), 10);
        assert_eq!(
            offsets(&p.history),
            vec![3],
            "an invalid compaction ({name}) erases nothing and adds nothing"
        );
        assert_eq!(
            p.published_through,
            Some(5),
            "an invalid compaction ({name}) does not publish"
        );
        let codes = codes_at(&diagnostics(&lines), 10);
        assert!(
            codes.contains(&"compaction-cutoff-not-before-item".to_string()),
            "an invalid compaction ({name}) is reported, got {codes:?}"
        );
    }
}

#[test]
fn given_an_update_of_an_occurrence_that_compaction_removed_when_projected_then_updates_offset_still_names_it(
) {
    let lines = [
        system_prompt(1, "p"),
        keyed(2, "developer", "task", "v1"),
        request(3),
        keyed(4, "developer", "task", "v2"),
        compaction(6, json!(3), "summary"),
        request(7),
    ];
    let j = journal(&lines);
    let p = at(&j, 7);
    assert_eq!(
        offsets(&p.history),
        vec![6, 4],
        "@2 is compacted away, @4 survives"
    );
    assert_eq!(
        p.history[1].updates_offset,
        Some(2),
        "updatesOffset still names the removed occurrence"
    );
    assert_eq!(
        header_line(&p.history[1]),
        "@4 key=\"task\" updates=@2",
        "the header keeps the journal coordinate"
    );
    let view = j.projection_view(7);
    assert_eq!(
        view.history[1].updates_offset,
        Some(2),
        "the view links to the removed occurrence"
    );
}

// ── provider roles ──────────────────────────────────────────────────────────────────────
