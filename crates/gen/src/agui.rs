//! AG-UI journals: one long thread of token-streamed text, tool calls with their results, state
//! deltas, and now and then a messages snapshot.

use super::*;

/// Messages a generated AG-UI server keeps: every few runs it sends a `MESSAGES_SNAPSHOT` of
/// the latest ones, as a server that trims its thread to a context window does.
const AGUI_KEPT_MESSAGES: usize = 40;

/// Runs between two message snapshots.
const AGUI_SNAPSHOT_EVERY: u64 = 20;

/// One long AG-UI thread: runs of token-streamed text (a few bytes a delta, tens to hundreds of
/// deltas a message), tool calls with their results, state deltas on a counter and on a list
/// that grows, and now and then a snapshot of the latest messages.
pub(crate) fn write(sink: &mut Sink<'_>, rng: &mut Rng, text: &Text) -> std::io::Result<()> {
    let thread = "thread-gen";
    let mut run = 0u64;
    let mut counter = 0u64;
    let mut kept: std::collections::VecDeque<serde_json::Value> = std::collections::VecDeque::new();
    while !sink.full() {
        run += 1;
        let run_id = format!("run-{run}");
        value_line(
            sink,
            &json!({"type": "RUN_STARTED", "threadId": thread, "runId": run_id}),
        )?;
        if run == 1 {
            value_line(
                sink,
                &json!({"type": "STATE_SNAPSHOT", "snapshot": {"counter": 0, "notes": []}}),
            )?;
        }
        if run.is_multiple_of(AGUI_SNAPSHOT_EVERY) {
            let messages: Vec<&serde_json::Value> = kept.iter().collect();
            value_line(
                sink,
                &json!({"type": "MESSAGES_SNAPSHOT", "messages": messages}),
            )?;
        }
        let message = format!("msg-{run}");
        value_line(
            sink,
            &json!({"type": "TEXT_MESSAGE_START", "messageId": message, "role": "assistant"}),
        )?;
        let mut content = String::new();
        for _ in 0..rng.range(30, 300) {
            let size = rng.range(1, 9) as usize;
            let delta = text.cut(rng, size);
            content.push_str(delta);
            value_line(
                sink,
                &json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": message, "delta": delta}),
            )?;
        }
        value_line(
            sink,
            &json!({"type": "TEXT_MESSAGE_END", "messageId": message}),
        )?;
        let mut said = json!({"id": message, "role": "assistant", "content": content});
        let mut result = None;
        if rng.chance(50) {
            let call = format!("call-{run}");
            let arguments = "{\"query\":\"status\"}";
            value_line(
                sink,
                &json!({"type": "TOOL_CALL_START", "toolCallId": call, "toolCallName": "search", "parentMessageId": message}),
            )?;
            value_line(
                sink,
                &json!({"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": arguments}),
            )?;
            value_line(sink, &json!({"type": "TOOL_CALL_END", "toolCallId": call}))?;
            let size = Text::size(rng);
            let output = text.cut(rng, size);
            let tool = format!("tool-{run}");
            value_line(
                sink,
                &json!({"type": "TOOL_CALL_RESULT", "messageId": tool, "toolCallId": call, "content": output, "role": "tool"}),
            )?;
            said["toolCalls"] = json!([{"id": call, "type": "function", "function": {"name": "search", "arguments": arguments}}]);
            result =
                Some(json!({"id": tool, "role": "tool", "toolCallId": call, "content": output}));
        }
        kept.push_back(said);
        kept.extend(result);
        while kept.len() > AGUI_KEPT_MESSAGES {
            kept.pop_front();
        }
        counter += 1;
        value_line(
            sink,
            &json!({"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/counter", "value": counter}]}),
        )?;
        if rng.chance(30) {
            value_line(
                sink,
                &json!({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/notes/-", "value": format!("note {run}")}]}),
            )?;
        }
        value_line(
            sink,
            &json!({"type": "RUN_FINISHED", "threadId": thread, "runId": run_id}),
        )?;
    }
    Ok(())
}
