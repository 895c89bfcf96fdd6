//! Codex journals: a rollout's lines, with compactions now and then.

use super::*;

/// Lines between two compactions of a generated Codex rollout, about.
const CODEX_COMPACT_EVERY: u64 = 600;

/// One long Codex rollout as the CLI writes it: the session's metadata and settings, then turns
/// of a user message, reasoning and tool calls with their outputs, an answer, and a token count
/// after each run of output, and now and then a compaction.
pub(crate) fn write(sink: &mut Sink<'_>, rng: &mut Rng, text: &Text) -> std::io::Result<()> {
    let mut clock = START_MILLIS;
    let mut since_compaction = 0u64;
    let mut total = 0u64;
    let mut call = 0u64;
    let line = |sink: &mut Sink<'_>, clock: u64, kind: &str, payload: serde_json::Value| {
        value_line(
            sink,
            &json!({"timestamp": iso_time(clock), "type": kind, "payload": payload}),
        )
    };
    let base = text.cut(rng, 400).to_string();
    if !line(
        sink,
        clock,
        "session_meta",
        json!({"id": "019c0000-0000-7000-8000-00000000gen0",
        "cwd": "/work/gen", "originator": "codex_cli_rs", "cli_version": "0.104.0",
        "base_instructions": {"text": base}}),
    )? {
        return Ok(());
    }
    while !sink.full() {
        clock += rng.range(2_000, 60_000);
        if !line(
            sink,
            clock,
            "turn_context",
            json!({"cwd": "/work/gen", "model": "gpt-5.2-codex", "effort": "medium"}),
        )? {
            break;
        }
        let size = rng.range(20, 500) as usize;
        let prompt = text.cut(rng, size).to_string();
        if !line(
            sink,
            clock,
            "response_item",
            json!({"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": prompt}]}),
        )? {
            break;
        }
        since_compaction += 3;
        for step in 0..rng.range(1, 5) {
            let last = step > 0 && rng.chance(40);
            clock += rng.range(500, 10_000);
            let size = rng.range(20, 400) as usize;
            let thought = text.cut(rng, size).to_string();
            if !line(
                sink,
                clock,
                "response_item",
                json!({"type": "reasoning",
                "summary": [{"type": "summary_text", "text": thought}], "content": null}),
            )? {
                return Ok(());
            }
            let output = if last {
                let size = rng.range(50, 900) as usize;
                json!({"type": "message", "role": "assistant",
                    "content": [{"type": "output_text", "text": text.cut(rng, size)}]})
            } else {
                call += 1;
                json!({"type": "function_call", "name": "shell_command", "call_id": format!("call_{call}"),
                    "arguments": format!("{{\"command\":\"{}\"}}", text.cut(rng, 12).replace(['"', '\\', '\n'], " "))})
            };
            if !line(sink, clock, "response_item", output)? {
                return Ok(());
            }
            let used = rng.range(500, 5_000);
            total += used;
            let usage = json!({"input_tokens": used, "cached_input_tokens": used / 2,
                "output_tokens": 40, "reasoning_output_tokens": 12, "total_tokens": used + 40});
            let totals = json!({"input_tokens": total, "cached_input_tokens": total / 2,
                "output_tokens": 40, "reasoning_output_tokens": 12, "total_tokens": total + 40});
            if !line(
                sink,
                clock,
                "event_msg",
                json!({"type": "token_count",
                "info": {"total_token_usage": totals, "last_token_usage": usage, "model_context_window": 258_400}}),
            )? {
                return Ok(());
            }
            since_compaction += 3;
            sink.summary.requests += 1;
            if last {
                break;
            }
            let size = Text::size(rng).min(8_000);
            if !line(
                sink,
                clock,
                "response_item",
                json!({"type": "function_call_output",
                "call_id": format!("call_{call}"), "output": text.cut(rng, size)}),
            )? {
                return Ok(());
            }
            since_compaction += 1;
        }
        if since_compaction >= CODEX_COMPACT_EVERY {
            since_compaction = 0;
            let size = rng.range(500, 3_000) as usize;
            let summary = text.cut(rng, size).to_string();
            if !line(sink, clock, "compacted", json!({"message": summary}))? {
                break;
            }
            sink.summary.compactions += 1;
        }
    }
    Ok(())
}
