//! AgentsKit journals: turn snapshots of a session's latest messages.

use super::*;

pub(crate) fn write(sink: &mut Sink<'_>, rng: &mut Rng, text: &Text) -> std::io::Result<()> {
    let session = "session-gen";
    let mut sequence = 0u64;
    let mut clock = START_MILLIS;
    let mut turn = 0u64;
    // The conversation a snapshot carries: the last few messages, so lines stay bounded.
    let mut messages: Vec<serde_json::Value> = Vec::new();
    let mut turn_user: Vec<(String, String)> = Vec::new();
    while !sink.full() {
        turn += 1;
        let turn_id = format!("turn-{turn}");
        clock += rng.range(1_000, 60_000);
        let at = iso_time(clock);
        let size = rng.range(30, 400) as usize;
        let question = text.cut(rng, size);
        sequence += 1;
        value_line(
            sink,
            &json!({"protocol": "agentskit.chat.turn", "version": 1, "eventId": format!("e-{sequence}"),
                "sessionId": session, "turnId": turn_id, "sequence": sequence, "emittedAt": at,
                "event": "client.turn.submit", "payload": {"input": question}}),
        )?;
        let user_id = format!("u-{turn}");
        let lineage = match turn_user.last() {
            Some((parent, source)) if rng.chance(15) => {
                json!({"operation": "regenerate", "parentTurnId": parent, "sourceMessageId": source})
            }
            _ => json!({"operation": "submit"}),
        };
        messages.push(json!({"id": user_id, "role": "user", "content": question, "status": "complete", "createdAt": at}));
        let size = Text::size(rng);
        let answer = text.cut(rng, size);
        // What the model read, as a provider would count it: the conversation so far, framed,
        // and a few tokens of its own.
        let prompt = journalscope_shapes::tokens::RequestTokens::of_messages(
            journalscope_shapes::tokens::tokenizer_for(None),
            messages.iter().map(|m| {
                (
                    m["role"].as_str().unwrap_or_default(),
                    m["content"].as_str().unwrap_or_default(),
                )
            }),
        )
        .total
            + rng.range(0, 8);
        let steps = rng.range(1, 4);
        for step in 1..=steps {
            let partial = &answer[..answer.len() * step as usize / steps as usize];
            let done = step == steps;
            let mut shown = messages.clone();
            shown.push(
                json!({"id": format!("a-{turn}"), "role": "assistant", "content": partial,
                "status": if done { "complete" } else { "streaming" }, "createdAt": at}),
            );
            sequence += 1;
            value_line(
                sink,
                &json!({"protocol": "agentskit.chat.turn", "version": 1, "eventId": format!("e-{sequence}"),
                    "sessionId": session, "turnId": turn_id, "sequence": sequence, "emittedAt": at,
                    "event": "server.turn.snapshot", "payload": {"messages": shown,
                    "status": if done { "complete" } else { "streaming" },
                    "usage": {"promptTokens": prompt, "completionTokens": partial.len() / 4, "totalTokens": prompt + partial.len() as u64 / 4},
                    "lineage": lineage}}),
            )?;
            if done {
                messages.push(json!({"id": format!("a-{turn}"), "role": "assistant", "content": answer, "status": "complete", "createdAt": at}));
            }
        }
        turn_user.push((turn_id, user_id));
        if messages.len() > 4 {
            messages.drain(..messages.len() - 4);
        }
    }
    Ok(())
}
