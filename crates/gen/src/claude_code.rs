//! Claude Code journals: a session's transcript lines, with compactions now and then.

use super::*;

/// Lines between two compactions of a generated Claude Code session, about.
const CLAUDE_COMPACT_EVERY: u64 = 400;

/// One long Claude Code session as the client writes it: prompts, responses written a block a
/// line (thinking, text, tool calls) with their usage repeated on every line, tool results, hook
/// progress lines between them, and now and then a compaction whose summary starts the history
/// again. Every line hangs on the one before, as a session without rewinds does.
pub(crate) fn write(sink: &mut Sink<'_>, rng: &mut Rng, text: &Text) -> std::io::Result<()> {
    let session = "5e551000-0000-4000-8000-000000000000";
    let mut clock = START_MILLIS;
    let mut count = 0u64;
    let mut parent: Option<String> = None;
    let mut since_compaction = 0u64;
    let mut request = 0u64;
    let mut context = 20_000u64;
    let uuid = |n: u64| format!("00000000-0000-4000-8000-{n:012}");
    let mut line = |sink: &mut Sink<'_>,
                    parent: &mut Option<String>,
                    mut value: serde_json::Value,
                    clock: u64|
     -> std::io::Result<bool> {
        count += 1;
        let id = uuid(count);
        value["uuid"] = json!(id);
        value["parentUuid"] = json!(parent.clone());
        value["sessionId"] = json!(session);
        value["timestamp"] = json!(iso_time(clock));
        value["isSidechain"] = json!(false);
        value["version"] = json!("2.1.39");
        *parent = Some(id);
        value_line(sink, &value)
    };
    while !sink.full() {
        clock += rng.range(2_000, 90_000);
        let size = rng.range(20, 600) as usize;
        let prompt = text.cut(rng, size);
        if !line(
            sink,
            &mut parent,
            json!({"type": "user", "message": {"role": "user", "content": prompt}}),
            clock,
        )? {
            break;
        }
        since_compaction += 1;
        // A turn: responses that call tools until one answers in text.
        for step in 0..rng.range(1, 6) {
            request += 1;
            sink.summary.requests = request;
            let request_id = format!("req_{request:016}");
            let message_id = format!("msg_{request:016}");
            context += rng.range(200, 4_000);
            let usage = json!({"input_tokens": 3, "cache_creation_input_tokens": rng.range(0, 3_000),
                "cache_read_input_tokens": context, "output_tokens": rng.range(10, 900)});
            let last = step > 0 && rng.chance(35);
            let mut blocks = Vec::new();
            if rng.chance(40) {
                let size = rng.range(50, 800) as usize;
                blocks.push(json!({"type": "thinking", "thinking": text.cut(rng, size), "signature": "c2lnbmF0dXJl"}));
            }
            let size = rng.range(20, 700) as usize;
            blocks.push(json!({"type": "text", "text": text.cut(rng, size)}));
            let calls: Vec<String> = if last {
                Vec::new()
            } else {
                (0..rng.range(1, 4))
                    .map(|n| format!("toolu_{request:012}{n:04}"))
                    .collect()
            };
            for call in &calls {
                let path = format!("src/{}.rs", text.cut(rng, 8).replace([' ', '.', '\n'], "_"));
                blocks.push(json!({"type": "tool_use", "id": call, "name": rng.pick(&["Read", "Bash", "Edit", "Grep"]),
                    "input": {"file_path": path}}));
            }
            for block in blocks {
                clock += rng.range(100, 3_000);
                let value = json!({"type": "assistant", "requestId": request_id,
                    "message": {"model": "claude-opus-4-6", "id": message_id, "type": "message",
                        "role": "assistant", "content": [block], "usage": usage}});
                if !line(sink, &mut parent, value, clock)? {
                    return Ok(());
                }
                since_compaction += 1;
            }
            for call in &calls {
                clock += rng.range(200, 20_000);
                if rng.chance(50)
                    && !line(
                        sink,
                        &mut parent,
                        json!({"type": "progress", "data": {"type": "hook_progress", "hookEvent": "PostToolUse"},
                            "toolUseID": call}),
                        clock,
                    )?
                {
                    return Ok(());
                }
                let output = Text::size(rng).min(20_000);
                let value = json!({"type": "user", "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": call, "content": text.cut(rng, output)}]}});
                if !line(sink, &mut parent, value, clock)? {
                    return Ok(());
                }
                since_compaction += 1;
            }
            if last {
                break;
            }
        }
        if since_compaction >= CLAUDE_COMPACT_EVERY {
            since_compaction = 0;
            clock += rng.range(5_000, 60_000);
            let logical = parent.take();
            let boundary = json!({"type": "system", "subtype": "compact_boundary",
                "content": "Conversation compacted", "logicalParentUuid": logical,
                "compactMetadata": {"trigger": "auto", "preTokens": context}});
            if !line(sink, &mut parent, boundary, clock)? {
                break;
            }
            context = 20_000;
            let size = rng.range(1_000, 8_000) as usize;
            let summary = json!({"type": "user", "isCompactSummary": true,
                "message": {"role": "user", "content": format!("This session is being continued from a previous conversation. Summary: {}", text.cut(rng, size))}});
            if !line(sink, &mut parent, summary, clock)? {
                break;
            }
            sink.summary.compactions += 1;
        }
    }
    Ok(())
}
