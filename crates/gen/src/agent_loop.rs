//! Iterate journals of the agent loop (contract "agent" v16): one agent's turns of requests,
//! model responses, scripts and their results, with idle summaries.

use super::*;

/// The agent loop's own stamp on what it writes (`source.processor`).
const LOOP_VERSION: u64 = 16;

/// Events between two compactions of a generated agent loop, about: the loop compacts when an
/// idle agent's context has grown, every few hundred events.
const LOOP_COMPACT_EVERY: (u64, u64) = (200, 500);

/// Idle summaries the loop keeps beside each other before it merges them.
const LOOP_SUMMARIES_BEFORE_MERGE: u64 = 4;

/// Who wrote an event of the agent loop: the loop itself, the agent's own context (its user),
/// another context, or a scheduled job.
enum Writer<'w> {
    Loop,
    Own,
    Other(&'w str),
    Schedule(&'w str),
}

/// An agent-loop journal as it is written: each event's envelope and `source`, its offset,
/// its time, and what the loop has open, so that every request names the trigger it opens on.
struct LoopStream<'s, 'a> {
    sink: &'s mut Sink<'a>,
    offset: i64,
    clock: u64,
    path: String,
    /// The item the next request opens on.
    trigger: Option<i64>,
}

impl LoopStream<'_, '_> {
    /// The run `run` settles and its result comes back as the item the next request opens on;
    /// `None` once the journal has its count.
    fn result(&mut self, rng: &mut Rng, run: i64, result: &str) -> std::io::Result<Option<i64>> {
        let settled =
            json!({"requestOffset": run, "settlement": {"status": "succeeded", "result": result}});
        if self
            .event(rng, "itx/run-settled", Writer::Loop, &settled)?
            .is_none()
        {
            return Ok(None);
        }
        let said = self.event(
            rng,
            "agent/context-added",
            Writer::Loop,
            &json!({"role": "developer", "content": result, "actor": {"type": "script", "requestOffset": run}}),
        )?;
        if said.is_some() {
            self.trigger = said;
        }
        Ok(said)
    }

    /// Writes one event; `None` once the journal has its count.
    fn event(
        &mut self,
        rng: &mut Rng,
        name: &str,
        writer: Writer<'_>,
        payload: &serde_json::Value,
    ) -> std::io::Result<Option<i64>> {
        if self.sink.full() {
            return Ok(None);
        }
        self.offset += 1;
        self.clock += rng.range(20, 8_000);
        let offset = self.offset;
        let line = &mut self.sink.line;
        write!(
            line,
            r#"{{"offset":{offset},"type":"events.iterate.com/{name}","createdAt":"{}","path":"#,
            iso_time(self.clock)
        )?;
        push_str(line, &self.path);
        line.extend_from_slice(br#","payload":"#);
        serde_json::to_writer(&mut *line, payload)?;
        line.extend_from_slice(br#","source":{"origin":"#);
        match writer {
            Writer::Loop => {
                push_str(line, &self.path);
                write!(
                    line,
                    r#","processor":{{"slug":"agent","version":{LOOP_VERSION}}}}}"#
                )?;
            }
            Writer::Own => {
                push_str(line, &self.path);
                line.push(b'}');
            }
            Writer::Other(origin) => {
                push_str(line, origin);
                line.push(b'}');
            }
            Writer::Schedule(key) => {
                push_str(line, &self.path);
                line.extend_from_slice(br#","schedule":{"key":"#);
                push_str(line, key);
                line.extend_from_slice(b"}}");
            }
        }
        if offset % 7 == 0 {
            write!(line, r#","idempotencyKey":"gen-{offset}""#)?;
        }
        line.push(b'}');
        self.sink.flush_line()?;
        Ok(Some(offset))
    }

    /// Offsets that ephemeral response chunks consumed: absent from the journal.
    fn gap(&mut self, rng: &mut Rng) {
        if rng.chance(60) {
            self.offset += rng.range(1, 12) as i64;
        }
    }

    /// Words from outside the loop that wake it: the agent's user, another agent, a scheduled
    /// job. A triggering item becomes the pending trigger.
    fn words(&mut self, rng: &mut Rng, text: &Text) -> std::io::Result<Option<i64>> {
        let size = Text::size(rng).min(8_000);
        let content = text.cut(rng, size);
        let roll = rng.range(0, 100);
        let written = if roll < 72 {
            let mut payload =
                json!({"role": "user", "content": content, "actor": {"type": "user"}});
            if rng.chance(15) {
                payload["answerOwed"] = json!(true);
            }
            if rng.chance(6) {
                let size = rng.range(200, 200_000);
                payload["files"] = json!([{"contentType": "text/plain", "filename": "notes.txt",
                    "path": format!("/files/notes-{}.txt", rng.range(0, 10_000)), "size": size}]);
            }
            self.event(rng, "agent/context-added", Writer::Own, &payload)?
        } else if roll < 86 {
            let other = *rng.pick(&["/agents/support", "/agents/reviewer", "/agents/ops"]);
            let payload = json!({"role": "user", "content": content, "answerOwed": true});
            let Some(said) =
                self.event(rng, "agent/context-added", Writer::Other(other), &payload)?
            else {
                return Ok(None);
            };
            // The loop lets the other context's words through its gate.
            self.trigger = Some(said);
            self.event(
                rng,
                "agent/input-gated",
                Writer::Loop,
                &json!({"inputOffset": said, "wake": true}),
            )?;
            return Ok(Some(said));
        } else {
            let key = *rng.pick(&["nightly", "hourly-digest", "inbox-sweep"]);
            let payload = json!({"role": "user", "content": content});
            self.event(rng, "agent/context-added", Writer::Schedule(key), &payload)?
        };
        if written.is_some() {
            self.trigger = written;
        }
        Ok(written)
    }
}

/// The sections the loop shows the model, as its head snapshot names them.
fn loop_sections(text: &Text, rng: &mut Rng) -> serde_json::Value {
    json!({
        "identity": "You are Gen, an agent that keeps a repository healthy.",
        "instructions": text.cut(rng, 1_500),
        "memory": text.cut(rng, 600),
        "capability-tree": "itx.files, itx.git, itx.cd, itx.fetch, itx.schedule",
    })
}

/// One long life of iterate's agent loop (contract "agent" v16) as its processor writes it:
/// born and configured, then turns. A turn opens on words from the user, another agent or a
/// scheduled job; each request stamps its trigger, the first carries the head snapshot of the
/// sections and later ones now and then a section update; each answer is a model response
/// (reasoning, a message, a `run` call) whose script runs and whose result opens the next
/// request, until an answer without a script ends the turn. Now and then a provider fails and
/// the request is retried, or a script's result comes back after the conversation moved on.
/// An idle agent is checked, kept warm or summarized (idle summaries kept beside each other
/// until a merge), every few hundred events. Usage reports and messages to the web client go
/// between, as the loop writes them. Every request opens and renders, and each input extends
/// the one before it unless a compaction lies between them.
pub(crate) fn write(
    sink: &mut Sink<'_>,
    rng: &mut Rng,
    text: &Text,
    seed: u64,
) -> std::io::Result<()> {
    let mut stream = LoopStream {
        sink,
        offset: 0,
        clock: START_MILLIS + (seed % 1000) * 86_400_000,
        path: format!("/agents/loop-{seed}"),
        trigger: None,
    };
    let model = "gpt-5.1";
    let path = stream.path.clone();
    macro_rules! or_full {
        ($written:expr) => {
            match $written? {
                Some(offset) => offset,
                None => return Ok(()),
            }
        };
    }
    or_full!(stream.event(rng, "agent/created", Writer::Loop, &json!({"path": path})));
    or_full!(stream.event(
        rng,
        "agent/configured",
        Writer::Loop,
        &json!({"config": {"llm": {"model": model}}})
    ));
    let mut requests = 0u64;
    let mut last_request = 0i64;
    let mut calls = 0u64;
    let mut head_written = false;
    let mut since_compaction = 0u64;
    let mut compact_after = rng.range(LOOP_COMPACT_EVERY.0, LOOP_COMPACT_EVERY.1);
    let mut cutoff = 0i64;
    let mut summaries = 0u64;
    // Where the turn before the last one ended: a compaction keeps the last turn whole.
    let mut turn_ends: (i64, i64) = (0, 0);
    // A run whose result has not come back yet: its offset and its result.
    let mut late: Option<(i64, String)> = None;
    loop {
        let start = stream.offset;
        // A result that came back late has opened this turn already.
        if stream.trigger.is_none() {
            or_full!(stream.words(rng, text));
        }
        // Steps of one turn: each a request and its answer.
        let steps = rng.range(1, 6);
        let mut step = 0;
        while step < steps {
            let Some(trigger) = stream.trigger.take() else {
                break;
            };
            let expires = iso_time(stream.clock + 300_000);
            let request = or_full!(stream.event(
                rng,
                "agent/llm-request-requested",
                Writer::Loop,
                &json!({"model": model, "expiresAt": expires, "triggerOffset": trigger}),
            ));
            requests += 1;
            last_request = request;
            stream.sink.summary.requests = requests;
            stream.gap(rng);
            if !head_written {
                head_written = true;
                let sections = loop_sections(text, rng);
                or_full!(stream.event(
                    rng,
                    "agent/context-added",
                    Writer::Loop,
                    &json!({"role": "system", "content": "", "llmRequestOffset": request,
                        "snapshot": true, "sections": sections}),
                ));
            } else if rng.chance(4) {
                let memory = text.cut(rng, 600);
                or_full!(stream.event(
                    rng,
                    "agent/context-added",
                    Writer::Loop,
                    &json!({"role": "system",
                        "content": format!("The section \"memory\" now reads: {memory}"),
                        "llmRequestOffset": request, "sections": {"memory": memory}}),
                ));
            }
            let started = stream.clock;
            if rng.chance(2) {
                // The provider refused: the loop retries on the failed request itself.
                or_full!(stream.event(
                    rng,
                    "agent/llm-request-settled",
                    Writer::Loop,
                    &json!({"requestOffset": request, "durationMs": stream.clock - started,
                        "result": {"status": "failed", "errorMessage": "upstream returned 529 overloaded"}}),
                ));
                stream.trigger = Some(request);
                continue;
            }
            step += 1;
            let last = step >= steps;
            let prose_size = rng.range(20, 400) as usize;
            let prose = text.cut(rng, prose_size).trim().to_string();
            let mut provider_items = Vec::new();
            if rng.chance(70) {
                let summary_size = rng.range(40, 300) as usize;
                provider_items.push(json!({"type": "reasoning", "id": format!("rs_{request}"),
                    "summary": [{"type": "summary_text", "text": text.cut(rng, summary_size)}],
                    "encrypted_content": format!("gAAAA{:016x}{:016x}", rng.next_u64(), rng.next_u64())}));
            }
            provider_items.push(
                json!({"type": "message", "id": format!("msg_{request}"), "role": "assistant",
                "content": [{"type": "output_text", "text": prose}]}),
            );
            let mut payload = json!({"role": "assistant", "llmRequestOffset": request,
                "actor": {"type": "agent"}, "providerModel": model,
                "llmRequestPolicy": {"behaviour": "dont-trigger-request"}});
            let call = if last {
                payload["content"] = json!(prose);
                None
            } else {
                calls += 1;
                let call_id = format!("call_{calls:08}");
                let status = *rng.pick(&[
                    "reading the changelog",
                    "running the tests",
                    "",
                    "checking the branch",
                ]);
                let script_size = rng.range(30, 600) as usize;
                let script = format!(
                    "const notes = {};\nreturn await itx.files.get(\"notes.md\").text()",
                    serde_json::Value::String(text.cut(rng, script_size).to_string())
                );
                let opener = if status.is_empty() {
                    "<codemode>".to_string()
                } else {
                    format!("<codemode status=\"{status}\">")
                };
                payload["content"] = json!(format!("{prose}\n{opener}\n{script}\n</codemode>"));
                payload["call"] = json!({"callId": call_id, "status": status, "script": script});
                provider_items.push(
                    json!({"type": "function_call", "id": format!("fc_{request}"),
                    "call_id": call_id, "name": "run",
                    "arguments": json!({"status": status, "script": script}).to_string()}),
                );
                Some(script)
            };
            payload["providerItems"] = json!(provider_items);
            let answer = payload["content"].clone();
            or_full!(stream.event(rng, "agent/context-added", Writer::Loop, &payload));
            let input_tokens = 2_000 + (stream.offset - cutoff).max(0) as u64 * 180;
            let output_tokens = answer.as_str().map_or(0, str::len) as u64 / 4 + 1;
            or_full!(stream.event(
                rng,
                "agent/llm-request-settled",
                Writer::Loop,
                &json!({"requestOffset": request, "durationMs": stream.clock - started,
                    "result": {"status": "succeeded", "text": answer,
                        "usage": {"inputTokens": input_tokens, "outputTokens": output_tokens}}}),
            ));
            if rng.chance(30) {
                or_full!(stream.event(
                    rng,
                    "agent/token-usage-reported",
                    Writer::Loop,
                    &json!({"llmRequestOffset": request, "model": model, "maxContextTokens": 400_000,
                        "inputTokens": input_tokens, "outputTokens": output_tokens,
                        "cachedInputTokens": input_tokens * 9 / 10}),
                ));
            }
            let Some(script) = call else {
                or_full!(stream.event(
                    rng,
                    "agent/web-message-sent",
                    Writer::Loop,
                    &json!({"messageId": format!("wm_{request}"), "text": answer}),
                ));
                break;
            };
            let run = or_full!(stream.event(
                rng,
                "itx/run-requested",
                Writer::Loop,
                &json!({"code": script})
            ));
            let size = Text::size(rng);
            let result = text.cut(rng, size).to_string();
            if late.is_none() && step + 1 < steps && rng.chance(8) {
                // The script is slow: the user speaks meanwhile and the conversation moves on.
                late = Some((run, result));
                or_full!(stream.words(rng, text));
                continue;
            }
            or_full!(stream.result(rng, run, &result));
        }
        if let Some((run, result)) = late.take() {
            // The slow script's result, after the turn it belonged to: it opens the next
            // request of its own.
            or_full!(stream.result(rng, run, &result));
            continue;
        }
        turn_ends = (turn_ends.1, stream.offset);
        since_compaction += (stream.offset - start).max(0) as u64;
        if since_compaction < compact_after {
            continue;
        }
        // The agent is idle: the loop checks it, keeps its cache warm or summarizes it.
        or_full!(stream.event(
            rng,
            "agent/idle-check",
            Writer::Loop,
            &json!({"afterRequestOffset": last_request, "inputTokens": 2_000 + since_compaction * 180,
                "keepWarmUntil": iso_time(stream.clock + 3_600_000)}),
        ));
        let through = turn_ends.0;
        if through <= cutoff || rng.chance(20) {
            or_full!(stream.event(rng, "agent/cache-kept-warm", Writer::Loop, &json!({})));
            continue;
        }
        summaries += 1;
        let keeps = !summaries.is_multiple_of(LOOP_SUMMARIES_BEFORE_MERGE);
        let size = rng.range(800, 4_000) as usize;
        let summary = text.cut(rng, size);
        or_full!(stream.event(
            rng,
            "agent/context-added",
            Writer::Loop,
            &json!({"role": "developer", "content": format!("Summary of the conversation so far: {summary}"),
                "actor": {"type": "agent"},
                "compaction": {"replacesHistoryThrough": through, "keepsEarlierSummaries": keeps,
                    "usage": {"inputTokens": 2_000 + since_compaction * 180, "outputTokens": size / 4}}}),
        ));
        stream.sink.summary.compactions += 1;
        cutoff = through;
        since_compaction = 0;
        compact_after = rng.range(LOOP_COMPACT_EVERY.0, LOOP_COMPACT_EVERY.1);
    }
}
