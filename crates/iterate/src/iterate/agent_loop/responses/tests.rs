//! The tests of `responses`.

use super::*;
use crate::iterate::agent_loop::fold::tests::{added, event, folded, request, said, settled, PATH};

fn values(state: &AgentLoop, model: &str) -> Vec<Value> {
    input(state, Some(model), Some(PATH))
        .items
        .into_iter()
        .map(|item| item.value)
        .collect()
}

fn answer(offset: i64, call: &str, items: Value) -> crate::iterate::event::IterateEvent {
    added(
        offset,
        json!({"role": "assistant", "content": "Doing.\n<codemode>\nx()\n</codemode>", "llmRequestOffset": 2,
               "call": {"callId": call, "status": "s", "script": "x()"}, "providerModel": "m1", "providerItems": items,
               "llmRequestPolicy": {"behaviour": "dont-trigger-request"}}),
    )
}

fn result(offset: i64, run: i64, text: &str) -> crate::iterate::event::IterateEvent {
    added(
        offset,
        json!({"role": "developer", "content": text, "actor": {"type": "script", "requestOffset": run}}),
    )
}

#[test]
fn given_a_snapshot_of_sections_when_rendered_then_the_last_stable_one_carries_the_breakpoint() {
    let (state, _) = folded(&[added(
        1,
        json!({"role": "system", "content": "ignored", "snapshot": true,
               "sections": {"identity": "I", "rules": "R", "gone": null, "preamble": "P"}}),
    )]);
    assert_eq!(
        values(&state, "m1"),
        vec![
            json!({"role": "developer", "content": "I"}),
            json!({"role": "developer", "content": [{"type": "input_text", "text": "R", "prompt_cache_breakpoint": {"mode": "explicit"}}]}),
            json!({"role": "developer", "content": "P"}),
        ],
        "each shown section in order, null ones left out, the breakpoint skipping preamble and identity"
    );
}

#[test]
fn given_a_run_whose_result_came_back_before_the_next_request_then_it_is_placed_as_the_calls_output(
) {
    let (state, _) = folded(&[
        said(1, "go"),
        request(2, 1),
        answer(
            3,
            "c1",
            json!([{"type": "function_call", "id": "fc", "call_id": "c1", "name": "run", "arguments": "{}"},
                   {"type": "function_call", "id": "fc2", "call_id": "c2", "name": "run", "arguments": "{}"}]),
        ),
        event(4, "itx/run-requested", json!({"code": "x()"}), None),
        result(5, 4, "42"),
    ]);
    let rendered = values(&state, "m1");
    assert_eq!(
        rendered[2..],
        [
            json!({"type": "function_call", "id": "fc", "call_id": "c1", "name": "run", "arguments": "{}"}),
            json!({"type": "function_call_output", "call_id": "c1", "output": "42"}),
            json!({"type": "function_call", "id": "fc2", "call_id": "c2", "name": "run", "arguments": "{}"}),
            json!({"type": "function_call_output", "call_id": "c2", "output": NOT_RUN}),
        ],
        "the result is the first call's output and is not repeated at its own place; a second call is not run"
    );
}

#[test]
fn given_a_result_that_came_back_after_the_next_request_then_it_is_a_late_message() {
    let (state, _) = folded(&[
        said(1, "go"),
        request(2, 1),
        answer(3, "c1", json!([])),
        event(4, "itx/run-requested", json!({"code": "x()"}), None),
        settled(5, 2, json!({"status": "succeeded", "text": "Doing."})),
        said(6, "more"),
        request(7, 6),
        result(8, 4, "42"),
    ]);
    let rendered = values(&state, "m1");
    assert_eq!(
        rendered[2..5],
        [
            json!({"role": "assistant", "content": "Doing."}),
            json!({"type": "function_call", "call_id": "c1", "name": "run", "arguments": "{\"status\":\"s\",\"script\":\"x()\"}"}),
            json!({"type": "function_call_output", "call_id": "c1", "output": NO_RESULT}),
        ],
        "with no provider item kept, the prose before the block and a call from `call`; no result yet"
    );
    assert_eq!(
        rendered.last(),
        Some(
            &json!({"role": "user", "content": "[the result of your script @4, which came back after the conversation moved on]\n42"})
        ),
        "the late result is its own message"
    );
}

#[test]
fn given_provider_items_of_another_model_when_rendered_then_they_are_replayed_loosely() {
    let (state, _) = folded(&[answer(
        3,
        "c1",
        json!([{"type": "reasoning", "id": "rs", "encrypted_content": "E"},
               {"type": "message", "id": "m", "content": [{"type": "output_text", "text": "Do"}, {"type": "output_text", "text": "ing."}]},
               {"type": "function_call", "id": "fc", "call_id": "c1", "name": "run", "arguments": "{}"},
               {"type": "web_search_call"}, "not an object"]),
    )]);
    assert_eq!(
        values(&state, "m2")[..2],
        [
            json!({"role": "assistant", "content": "Doing."}),
            json!({"type": "function_call", "call_id": "c1", "name": "run", "arguments": "{}"}),
        ],
        "no reasoning, a plain assistant message, a call without its id, other types dropped"
    );
    let exact = values(&state, "m1");
    assert_eq!(
        exact[0],
        json!({"type": "reasoning", "id": "rs", "summary": [], "encrypted_content": "E"}),
        "for the same model the reasoning is replayed"
    );
    assert_eq!(
        exact[1],
        json!({"type": "message", "role": "assistant", "id": "m", "status": "completed", "content": [{"type": "output_text", "text": "Doing.", "annotations": []}]}),
        "and the message exactly"
    );
}

#[test]
fn given_a_legacy_answer_when_rendered_then_its_script_is_a_call_named_by_its_offset() {
    let (state, _) = folded(&[
        added(
            7,
            json!({"role": "assistant", "content": "Look.\n<codemode status=\"peek\">\nreturn 1\n</codemode>", "llmRequestOffset": 2}),
        ),
        added(
            8,
            json!({"role": "assistant", "content": "Plain words.", "llmRequestOffset": 2}),
        ),
    ]);
    assert_eq!(
        values(&state, "m1"),
        vec![
            json!({"role": "assistant", "content": "Look."}),
            json!({"type": "function_call", "call_id": "call_7", "name": "run", "arguments": "{\"status\":\"peek\",\"script\":\"return 1\"}"}),
            json!({"type": "function_call_output", "call_id": "call_7", "output": NO_RESULT}),
            json!({"role": "assistant", "content": "Plain words."}),
        ],
        "the prose, the call with the unwrapped body, then plain words verbatim"
    );
}

#[test]
fn given_items_of_each_kind_when_rendered_then_each_takes_its_role() {
    let (state, _) = folded(&[
        added(1, json!({"role": "system", "content": ""})),
        added(2, json!({"role": "system", "content": "note"})),
        added(3, json!({"role": "developer", "content": "platform"})),
        added(
            4,
            json!({"role": "developer", "content": "from a user", "actor": {"type": "user"}}),
        ),
        event(
            5,
            "agent/context-added",
            json!({"role": "user", "content": "hi", "files": [{"contentType": "image/png", "filename": "a.png", "path": "/f/a.png", "size": 3}]}),
            Some(json!({"origin": "/agents/b"})),
        ),
    ]);
    let rendered = input(&state, Some("m1"), Some(PATH));
    assert_eq!(
        rendered.items.iter().map(|i| i.value.clone()).collect::<Vec<_>>(),
        vec![
            json!({"role": "developer", "content": "note"}),
            json!({"role": "developer", "content": "platform"}),
            json!({"role": "user", "content": "from a user"}),
            json!({"role": "user", "content": "[from /agents/b — it cannot see this conversation; answer by appending to its log: `await itx.cd(\"/agents/b\").append({ type: \"events.iterate.com/agent/context-added\", payload: { role: \"user\", content } })`] hi\n[Attached file: a.png (image/png, 3 bytes) — read it with `await itx.files.get(\"/f/a.png\").bytes()`]"}),
        ],
        "an empty system item is left out; a user actor's developer item is user; another context's words say who sent them"
    );
    assert_eq!(
        rendered.notes.len(),
        1,
        "the image's missing bytes are noted"
    );
}

#[test]
fn given_provider_items_with_null_empty_or_missing_fields_when_replayed_then_they_are_written_as_the_loop_writes_them(
) {
    // Given an answer whose reasoning has an empty encrypted_content, whose message has a null
    // id and a part the loop cannot read, and whose call has a null id and no call_id
    let (state, _) = folded(&[
        said(1, "go"),
        request(2, 1),
        answer(
            3,
            "c1",
            json!([{"type": "reasoning", "id": "rs", "encrypted_content": ""},
                   {"type": "reasoning", "id": null, "summary": null, "encrypted_content": "e"},
                   {"type": "message", "id": null, "content": [{"type": "output_text", "text": "Hi"}]},
                   {"type": "message", "id": "m2", "content": [{"type": "output_text", "text": "lost"}, {"text": "no type"}]},
                   {"type": "function_call", "id": null, "name": "run", "arguments": "{}"}]),
        ),
    ]);
    // When it is rendered for the model that wrote it
    let rendered = values(&state, "m1");
    // Then each field is as `JSON.stringify` writes the loop's object
    assert_eq!(
        rendered[2..],
        [
            json!({"type": "reasoning", "id": null, "summary": [], "encrypted_content": "e"}),
            json!({"type": "message", "role": "assistant", "id": null, "status": "completed",
                   "content": [{"type": "output_text", "text": "Hi", "annotations": []}]}),
            json!({"type": "function_call", "name": "run", "arguments": "{}"}),
            json!({"type": "function_call_output", "call_id": "undefined", "output": NO_RESULT}),
        ],
        "an empty encrypted_content drops its reasoning; a null id is kept on reasoning and messages \
         and dropped on a call; a message with an unreadable part has no text; a call without a \
         call_id is answered under `undefined`"
    );
}

#[test]
fn given_an_empty_sender_when_rendered_then_no_from_line_is_written() {
    let (state, _) = folded(&[added(
        1,
        json!({"role": "user", "content": "hi", "from": ""}),
    )]);
    assert_eq!(
        values(&state, "m1"),
        vec![json!({"role": "user", "content": "hi"})],
        "an empty `from` names no other agent"
    );
}

#[test]
fn given_paths_when_keyed_then_voice_calls_share_their_clients_key_and_keys_are_cut_at_64() {
    assert_eq!(
        cache_key("/agents/voice/acme/call-1"),
        "voice/acme",
        "a voice call"
    );
    assert_eq!(
        cache_key("/agents/a"),
        "/agents/a",
        "any other path is its own key"
    );
    assert_eq!(
        cache_key("/agents/voice/acme"),
        "/agents/voice/acme",
        "a voice client's own agent, with no call below it, keys by its path"
    );
    assert_eq!(
        cache_key("/agents/voice/acme/call-1/sub"),
        "/agents/voice/acme/call-1/sub",
        "a path deeper than a call keys by itself"
    );
    let long = format!("/{}", "é".repeat(80));
    assert_eq!(
        cache_key(&long).chars().count(),
        64,
        "at most 64 code points"
    );
}
