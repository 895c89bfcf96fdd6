//! The bundled iterate demo journal exercises every situation the inspector must explain;
//! each test names one and checks it through the library API.

use crate::support::iterate_lines;

use journalscope::import::ImportControl;
use journalscope::journal::{Demo, Journal};
use journalscope::store::StoredEvent;
use journalscope_iterate::iterate::event::Role;
use journalscope_iterate::iterate::roles::Rule;
use journalscope_iterate::iterate::{IterateJournal, Transport};

fn demo_lines() -> Vec<String> {
    let text = String::from_utf8(
        Demo::named("iterate")
            .expect("the iterate demo")
            .bytes()
            .to_vec(),
    )
    .expect("the demo is UTF-8");
    text.lines().map(str::to_string).collect()
}

fn demo_stored() -> Vec<StoredEvent> {
    iterate_lines::stored(&demo_lines())
}

fn demo() -> IterateJournal {
    IterateJournal::from_stored(&demo_stored())
}

fn codes(offset: i64) -> Vec<String> {
    iterate_lines::codes_at(&iterate_lines::diagnostics(&demo_lines()), offset)
}

#[test]
fn demo_has_input_before_the_system_prompt_pending() {
    let view = demo().projection_view(3);
    let pending = view
        .pending
        .expect("the user message @3 waits for the system prompt");
    assert_eq!(
        pending.offsets,
        vec![3],
        "the early input is the pending trigger"
    );
    assert!(
        demo().projection_view(4).pending.is_none(),
        "the system prompt @4 clears it"
    );
}

#[test]
fn demo_has_a_github_webhook_summary_downgraded_to_user() {
    let view = demo().projection_view(8);
    let item = view
        .history
        .iter()
        .find(|i| i.offset == 7)
        .expect("@7 github summary is projected");
    assert_eq!(
        item.actor
            .as_ref()
            .and_then(|a| a.get("type"))
            .and_then(|t| t.as_str()),
        Some("github"),
        "@7 is from github"
    );
    assert!(
        !item.refs.is_empty(),
        "the webhook summary carries an event ref"
    );
    for role in [item.provider_roles.openai, item.provider_roles.workers_ai] {
        assert_eq!(
            (role.role, role.rule),
            (Role::User, Rule::ExternalActorDowngrade),
            "github developer context is downgraded on every transport"
        );
    }
}

#[test]
fn demo_has_a_script_result_downgraded_to_user() {
    let view = demo().projection_view(21);
    let item = view
        .history
        .iter()
        .find(|i| i.offset == 15)
        .expect("@15 script output");
    assert_eq!(
        item.role,
        Role::Developer,
        "the script result is developer context"
    );
    assert_eq!(
        item.provider_roles.openai.role,
        Role::User,
        "a script result travels as user on openai"
    );
    assert_eq!(
        item.provider_roles.workers_ai.role,
        Role::User,
        "a script result travels as user on workers-ai"
    );
}

#[test]
fn demo_has_an_agent_authored_developer_item() {
    let view = demo().projection_view(21);
    let item = view
        .history
        .iter()
        .find(|i| i.offset == 16)
        .expect("@16 planner item");
    assert_eq!(
        item.provider_roles.openai.role,
        Role::Developer,
        "agent developer context stays developer on openai"
    );
    assert_eq!(
        item.provider_roles.workers_ai.role,
        Role::System,
        "agent developer context maps to system on workers-ai"
    );
}

#[test]
fn demo_has_a_keyed_slot_updated_before_and_after_publication() {
    let before = demo().projection_at(8);
    let slot = before
        .history
        .iter()
        .find(|i| i.key.as_deref() == Some("github/review-task"))
        .expect("the review-task slot");
    assert_eq!(
        (slot.offset, slot.coalesced.clone(), slot.updates_offset),
        (7, vec![6], None),
        "@7 replaced unpublished @6 in place"
    );
    let after = demo().projection_at(21);
    let slots: Vec<(i64, Option<i64>, Vec<i64>)> = after
        .history
        .iter()
        .filter(|i| i.key.as_deref() == Some("github/review-task"))
        .map(|i| (i.offset, i.updates_offset, i.coalesced.clone()))
        .collect();
    assert_eq!(
        slots,
        vec![(7, None, vec![6]), (18, Some(7), vec![17])],
        "after publication @17 appends (updates @7) and @18 coalesces into it"
    );
}

#[test]
fn demo_has_a_system_prompt_update_after_publication() {
    let p = demo().projection_at(21);
    let system: Vec<(i64, Option<i64>)> = p
        .system
        .iter()
        .map(|i| (i.offset, i.updates_offset))
        .collect();
    assert_eq!(
        system,
        vec![(4, None), (19, Some(4))],
        "the post-publication prompt update appends in the system lane"
    );
}

#[test]
fn demo_has_several_requests_with_assistant_answers_one_without_a_genuine_request() {
    let requests: Vec<i64> = demo().requests().iter().map(|r| r.offset).collect();
    assert_eq!(requests, vec![8, 21, 29], "three requests");
    assert!(
        !codes(12).contains(&"assistant-without-genuine-request".to_string()),
        "@12 answers request @8"
    );
    assert!(
        !codes(30).contains(&"assistant-without-genuine-request".to_string()),
        "@30 answers request @29"
    );
    assert!(
        codes(22).contains(&"assistant-without-genuine-request".to_string()),
        "@22 has no llmRequestOffset"
    );
}

#[test]
fn demo_has_content_starting_with_at() {
    let snapshot = demo().request(21, Transport::Openai).expect("request @21");
    let message = snapshot
        .messages
        .iter()
        .find(|m| m.content.starts_with("@20\n"))
        .expect("@20 is rendered");
    assert!(
        message.content.starts_with("@20\n@7 key="),
        "the spoofed header stays content after the real one"
    );
    assert_eq!(
        snapshot.items.iter().filter(|i| i.offset == 7).count(),
        1,
        "the spoof creates no second @7 item"
    );
}

#[test]
fn demo_has_a_compaction_with_usage_and_keyed_system_collapse() {
    let view = demo().compaction(25).expect("@25 is a compaction");
    assert!(view.valid, "the demo compaction is valid");
    assert_eq!(
        view.cutoff,
        Some(21),
        "it replaces history through request @21"
    );
    assert_eq!(view.request_at_cutoff, Some(21), "its cutoff is a request");
    assert!(view.usage.is_some(), "it carries summarizer usage");
    assert_eq!(
        view.collapsed,
        vec![4],
        "the old system prompt @4 collapses into @19"
    );
    assert_eq!(view.kept, vec![22], "the answer after the cutoff survives");
    let body = String::from_utf8(
        demo()
            .request(29, Transport::Openai)
            .expect("request @29")
            .body(),
    )
    .expect("utf-8");
    assert!(!body.contains("14302"), "usage is never rendered");
}

#[test]
fn demo_has_settled_usage_unknown_and_malformed_events() {
    let stored = demo_stored();
    let short = |e: &StoredEvent| {
        e.kind
            .as_deref()
            .and_then(journalscope_iterate::iterate::short_type)
            .map(str::to_string)
    };
    assert!(
        stored
            .iter()
            .any(|e| short(e).as_deref() == Some("llm-request-settled")),
        "llm-request-settled is present"
    );
    assert!(
        stored
            .iter()
            .any(|e| short(e).as_deref() == Some("token-usage-reported")),
        "token-usage-reported is present"
    );
    assert!(
        codes(26).contains(&"unknown-type".to_string()),
        "@26 is an unknown type"
    );
    let malformed = stored
        .iter()
        .find(|e| e.diagnostics.iter().any(|d| d.code == "invalid-json"))
        .expect("a malformed line");
    assert_eq!(
        malformed.line, 24,
        "the crash-truncated line is stored and reported"
    );
}

#[test]
fn demo_opened_through_the_facade_reports_the_same_diagnostics() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("iterate-demo.jsonl");
    std::fs::write(
        &file,
        Demo::named("iterate").expect("the iterate demo").bytes(),
    )
    .expect("write demo");
    let mut progress = |_| {};
    let journal = Journal::open(
        &file,
        Some(&dir.path().join("demo.sqlite")),
        &mut ImportControl {
            progress: &mut progress,
            cancel: None,
        },
    )
    .expect("the demo opens");
    let found: Vec<String> = journal
        .diagnostics()
        .expect("diagnostics read")
        .iter()
        .map(|d| d.code.clone())
        .collect();
    for code in [
        "invalid-json",
        "unknown-type",
        "assistant-without-genuine-request",
    ] {
        assert!(
            found.contains(&code.to_string()),
            "the facade reports {code}, got {found:?}"
        );
    }
    assert_eq!(
        journal.requests().expect("iterate").len(),
        3,
        "the facade sees three requests"
    );
}
