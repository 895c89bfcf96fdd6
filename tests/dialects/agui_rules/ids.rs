//! Message ids used again: what the client merges, and what the journal says of it.

use super::*;

/// The fold's diagnostics of one code: the seq each is stored at, its offset and severity.
fn raised(events: &[StoredEvent], code: &str) -> Vec<(u64, Option<i64>, Severity)> {
    analyse(events)
        .diagnostics
        .into_iter()
        .filter(|(_, d)| d.code == code)
        .map(|(seq, d)| (seq, d.offset, d.severity))
        .collect()
}

fn said(text: &str, id: &str) -> [Value; 3] {
    [
        json!({"type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": text}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": id}),
    ]
}

#[test]
fn given_a_message_that_ended_when_a_start_names_its_id_again_then_it_is_an_error_and_the_client_merges_the_two(
) {
    // Given a text message m1 that started and ended,
    let mut list = vec![start("r1")];
    list.extend(said("one", "m1"));
    // when a TEXT_MESSAGE_START names m1 again and streams more text,
    list.extend(said("two", "m1"));
    list.push(finish("r1"));
    let events = journal(&list);
    // then the start is an error at its own offset, and only the start: the content and end
    // that follow belong to the message it opened again.
    assert_eq!(
        raised(&events, "message-id-reused-after-end"),
        [(4, Some(5), Severity::Error)],
        "the second start under an id whose message ended is an error"
    );
    assert_eq!(
        codes(&events),
        ["message-id-reused-after-end"],
        "nothing else is said about the second message's content or end"
    );
    // and the thread is what the official client builds: one message holding both texts.
    let end = final_state(&events);
    assert_eq!(
        ids(&end.messages),
        ["m1"],
        "the client opens no second message under a held id"
    );
    assert_eq!(
        end.messages[0]["content"], "onetwo",
        "the client appends the second message's text to the first"
    );
}

#[test]
fn given_a_message_ended_in_an_earlier_run_when_a_later_run_starts_one_under_its_id_then_it_is_still_a_reuse(
) {
    // Given m1 ended in run r1 and the run finished,
    let mut list = vec![start("r1")];
    list.extend(said("one", "m1"));
    list.push(finish("r1"));
    // when run r2 streams a message under m1 again,
    list.push(start("r2"));
    list.extend(said("two", "m1"));
    list.push(finish("r2"));
    let events = journal(&list);
    // then it is a reuse: message ids name one message of the thread, whatever the run (the
    // messages persist across runs, so the client merges them as within one run).
    assert_eq!(
        raised(&events, "message-id-reused-after-end"),
        [(6, Some(7), Severity::Error)],
        "a message id is unique to the thread, not to the run"
    );
}

#[test]
fn given_a_reasoning_message_that_ended_when_a_chunk_or_a_text_start_names_its_id_then_each_is_a_reuse(
) {
    // Given a reasoning message th1 that ended,
    let mut list = vec![start("r1")];
    list.extend(reasoning("th1"));
    // when a reasoning chunk opens th1 again, and later a text message starts under th1,
    list.push(json!({"type": "REASONING_MESSAGE_CHUNK", "messageId": "th1", "delta": "more"}));
    list.push(json!({"type": "TEXT_MESSAGE_START", "messageId": "th1"}));
    list.push(finish("r1"));
    let events = journal(&list);
    // then both are reuses: reasoning and text messages share one set of ids, and a chunk that
    // opens a message is its start. The text start meets th1 after the chunk's implied end.
    assert_eq!(
        raised(&events, "message-id-reused-after-end"),
        [(4, Some(5), Severity::Error), (5, Some(6), Severity::Error)],
        "a chunk and a start of the other kind under an ended id are both reuses"
    );
}

#[test]
fn given_ids_the_thread_holds_but_no_end_closed_when_a_message_starts_under_them_then_it_is_no_reuse(
) {
    let events = journal(&[
        start("r1"),
        // Given a message a snapshot brought, an assistant message a tool call created under
        // its parent id, and a message still open when its run failed,
        json!({"type": "MESSAGES_SNAPSHOT", "messages": [text("held", "assistant", "from before")]}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f", "parentMessageId": "parent"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "cut"}),
        json!({"type": "RUN_ERROR", "message": "boom"}),
        start("r2"),
        // when messages start under each of those ids,
        json!({"type": "TEXT_MESSAGE_START", "messageId": "held"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "held"}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "parent"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "parent"}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "cut"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "cut"}),
        finish("r2"),
    ]);
    // then none is a reuse: only an end closes a message for good (the client streams text
    // into a tool call's parent message by design).
    let codes = codes(&events);
    assert!(
        !codes
            .iter()
            .any(|c| c == "message-id-reused-after-end" || c == "message-already-ended"),
        "a held message no end closed may be streamed into: {codes:?}"
    );
}

#[test]
fn given_a_reasoning_phase_and_its_message_under_one_id_when_both_end_then_nothing_is_said() {
    // Given the .NET SDK's way: REASONING_START and the reasoning message inside it share an
    // id, and REASONING_END follows the message's end,
    let mut list = vec![
        start("r1"),
        json!({"type": "REASONING_START", "messageId": "x"}),
    ];
    list.extend(reasoning("x"));
    list.push(json!({"type": "REASONING_END", "messageId": "x"}));
    list.push(finish("r1"));
    let events = journal(&list);
    // then the phase's end is no late event for the message, and the phase is closed.
    assert_eq!(
        codes(&events),
        Vec::<String>::new(),
        "a reasoning phase's id is not a message id"
    );
}

#[test]
fn given_an_ended_message_when_content_and_another_end_arrive_for_it_then_each_is_a_warning_and_the_text_still_appends(
) {
    // Given m1 ended,
    let mut list = vec![start("r1")];
    list.extend(said("done", "m1"));
    // when content and a second end arrive for it without a new start,
    list.push(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": " or not"}));
    list.push(json!({"type": "TEXT_MESSAGE_END", "messageId": "m1"}));
    list.push(finish("r1"));
    let events = journal(&list);
    // then each is a warning (the SDKs' validators reject both; the client tolerates them),
    assert_eq!(
        raised(&events, "message-already-ended"),
        [
            (4, Some(5), Severity::Warning),
            (5, Some(6), Severity::Warning)
        ],
        "content and an end after the end are each flagged"
    );
    assert!(
        raised(&events, "message-not-started").is_empty(),
        "a message that ended did start"
    );
    // and the content lands where the official client puts it: on the ended message.
    assert_eq!(
        final_state(&events).messages[0]["content"],
        "done or not",
        "the client appends late content to the ended message"
    );
}

#[test]
fn given_reasoning_that_never_ends_when_the_journal_ends_then_a_warning_is_said_at_its_start() {
    // Given one reasoning phase that ends and one that does not,
    let events = journal(&[
        start("r1"),
        json!({"type": "REASONING_START", "messageId": "closed"}),
        json!({"type": "REASONING_END", "messageId": "closed"}),
        json!({"type": "REASONING_START", "messageId": "open"}),
        json!({"type": "REASONING_MESSAGE_START", "messageId": "open-text"}),
        json!({"type": "REASONING_MESSAGE_END", "messageId": "open-text"}),
        finish("r1"),
    ]);
    // when the journal ends, then only the open one is reported, as a warning at its start,
    assert_eq!(
        raised(&events, "reasoning-never-ended"),
        [(3, Some(4), Severity::Warning)],
        "the REASONING_START with no REASONING_END, where it started"
    );
    let analysis = analyse(&events);
    let said = analysis
        .diagnostics
        .iter()
        .find(|(_, d)| d.code == "reasoning-never-ended")
        .map(|(_, d)| d.message.clone())
        .unwrap_or_default();
    assert!(
        said.contains("\"open\""),
        "the warning names the reasoning's id: {said}"
    );
    // and it describes the journal's end, so a later end replaces it.
    assert!(
        analysis
            .provisional_codes
            .contains(&"reasoning-never-ended"),
        "an end that finds the reasoning closed withdraws the warning"
    );
    // A view at an offset folds no end: the warning is not the step's.
    assert!(
        !final_state(&events)
            .diagnostics
            .iter()
            .any(|d| d.code == "reasoning-never-ended"),
        "the thread at the last event says nothing of the journal's end"
    );
}
