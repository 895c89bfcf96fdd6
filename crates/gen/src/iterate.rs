//! Iterate journals of the seed contract: roles and actors mixed, keyed slots updated across
//! requests, a request every few events, compactions, payloads of every size and offset gaps.

use super::*;

struct IterateStream<'s, 'a> {
    sink: &'s mut Sink<'a>,
    offset: i64,
    clock: u64,
    path: String,
    /// The journal folded as it is written, so that a reported usage is what the request it
    /// reports on costs, as a provider would report it.
    fold: journalscope_iterate::iterate::fold::IterateFold,
}

impl IterateStream<'_, '_> {
    /// Writes one event whose payload `payload` appends to the line; `None` once the journal
    /// has its count.
    fn event(
        &mut self,
        rng: &mut Rng,
        kind: &str,
        payload: impl FnOnce(&mut Vec<u8>),
    ) -> std::io::Result<Option<i64>> {
        if self.sink.full() {
            return Ok(None);
        }
        self.offset += 1;
        self.clock += rng.range(20, 20_000);
        let offset = self.offset;
        let line = &mut self.sink.line;
        // Both prefix spellings occur in real streams.
        let prefix = if offset % 11 == 0 { "agent" } else { "agents" };
        write!(
            line,
            r#"{{"offset":{offset},"type":"events.iterate.com/{prefix}/{kind}","payload":"#
        )?;
        payload(line);
        write!(line, r#","createdAt":"{}","path":"#, iso_time(self.clock))?;
        push_str(line, &self.path);
        if offset % 5 == 0 {
            write!(line, r#","idempotencyKey":"gen-{offset}-r1""#)?;
        }
        line.push(b'}');
        let seq = self.sink.summary.events;
        if let Ok(value) = serde_json::from_slice(line) {
            self.fold.feed_record(seq, seq + 1, Some(offset), value);
        }
        self.fold.note_read(Some(offset), &[]);
        if seq.is_multiple_of(4_096) {
            // What the fold found is not kept: only its counts are asked for.
            self.fold.take_found();
        }
        self.sink.flush_line()?;
        Ok(Some(offset))
    }

    /// Offsets that ephemeral response chunks consumed: absent from the dump.
    fn gap(&mut self, rng: &mut Rng) {
        self.offset += rng.range(0, 24) as i64;
    }
}

const MODELS: &[&str] = &["gpt-5.1", "gpt-5.1-mini", "claude-sonnet-4.5"];

/// A developer item from the outside world: its actor, its slot key, and a ref when it
/// summarizes a webhook.
fn developer_input(rng: &mut Rng, line: &mut Vec<u8>, content: &str, request_count: u64) {
    line.extend_from_slice(br#"{"role":"developer","#);
    match rng.range(0, 8) {
        0 | 1 => {
            let pr = rng.range(100, 130);
            let _ = write!(
                line,
                r#""actor":{{"type":"github","login":"octo-bot","senderType":"Bot"}},"key":"github/pr-{pr}","refs":[{{"type":"event","streamPath":"/integrations/github/install-789","offset":{},"eventType":"events.iterate.com/github/webhook-received"}}],"#,
                request_count * 3 + rng.range(0, 3)
            );
        }
        2 => {
            let _ = write!(
                line,
                r#""actor":{{"type":"slack","userId":"U0{}","botName":"journalbot"}},"key":"slack/thread-{}","#,
                rng.range(1000, 9999),
                rng.range(0, 12)
            );
        }
        3 => {
            let _ = write!(
                line,
                r#""actor":{{"type":"script","executionId":"exec-{}"}},"files":[{{"contentType":"text/plain","filename":"out.log","path":"/tmp/out.log","size":{},"url":"https://files.example.com/out.log"}}],"#,
                rng.next_u64() % 1_000_000,
                content.len()
            );
        }
        4 => {
            line.extend_from_slice(
                br#""actor":{"type":"agent","path":"/agents/reviewer"},"key":"agent/plan","#,
            );
        }
        5 => {
            line.extend_from_slice(br#""key":"app/workspace-state","#);
        }
        6 => {
            let _ = write!(
                line,
                r#""actor":{{"type":"email","address":"ops@example.com"}},"refs":[{{"type":"user","userId":"u-{}"}}],"#,
                rng.range(1, 40)
            );
        }
        _ => {
            line.extend_from_slice(
                br#""actor":{"type":"integration","name":"linear"},"key":"linear/status","#,
            );
        }
    }
    let behaviour = match rng.range(0, 10) {
        0..=5 => "after-current-request",
        6 | 7 => "dont-trigger-request",
        _ => "interrupt-current-request",
    };
    line.extend_from_slice(b"\"content\":");
    push_str(line, content);
    let _ = write!(
        line,
        r#","llmRequestPolicy":{{"behaviour":"{behaviour}"}}}}"#
    );
}

pub(crate) fn write(
    sink: &mut Sink<'_>,
    rng: &mut Rng,
    text: &Text,
    seed: u64,
) -> std::io::Result<()> {
    let mut stream = IterateStream {
        sink,
        offset: -1,
        clock: START_MILLIS + (seed % 1000) * 86_400_000,
        path: format!("/agents/gen-{seed}"),
        fold: Default::default(),
    };
    let model = *rng.pick(MODELS);
    stream.event(rng, "created", |l| l.extend_from_slice(b"{}"))?;
    stream.event(rng, "configured", |l| {
        let _ = write!(
            l,
            r#"{{"config":{{"llm":{{"model":"{model}"}},"compactionTriggerFraction":0.8}}}}"#
        );
    })?;
    let prompt = text.cut(rng, 1200);
    stream.event(rng, "context-added", |l| {
        l.extend_from_slice(br#"{"role":"system","key":"agent/system-prompt","content":"#);
        push_str(l, prompt);
        l.push(b'}');
    })?;
    let mut requests = 0u64;
    let mut since_compaction = 0u64;
    let compact_every = rng.range(20, 40);
    while !stream.sink.full() {
        // Inputs that arrive before the next request: a user message, outside updates to keyed
        // slots (several may coalesce before publication), now and then a new instruction.
        for _ in 0..rng.range(1, 4) {
            let size = Text::size(rng);
            let content = text.cut(rng, size);
            match rng.range(0, 20) {
                0..=7 => {
                    let user = rng.range(1, 6);
                    let origin = *rng.pick(&["web", "cli", "slack"]);
                    stream.event(rng, "context-added", |l| {
                        let _ = write!(
                            l,
                            r#"{{"role":"user","actor":{{"type":"user","origin":"{origin}","userId":"user-{user}"}},"content":"#
                        );
                        push_str(l, content);
                        l.extend_from_slice(
                            br#","llmRequestPolicy":{"behaviour":"after-current-request"}}"#,
                        );
                    })?;
                }
                8 => {
                    let slot = rng.range(0, 3);
                    stream.event(rng, "context-added", |l| {
                        let _ = write!(
                            l,
                            r#"{{"role":"system","key":"agent/instructions-{slot}","content":"#
                        );
                        push_str(l, content);
                        l.push(b'}');
                    })?;
                }
                9 => {
                    let reason = *rng.pick(&["maintenance", "budget", "user request"]);
                    stream.event(rng, "paused", |l| {
                        let _ = write!(l, r#"{{"reason":"{reason}"}}"#);
                    })?;
                    stream.event(rng, "resumed", |l| l.extend_from_slice(b"{}"))?;
                }
                _ => {
                    let mut payload = Vec::new();
                    developer_input(rng, &mut payload, content, requests);
                    stream.event(rng, "context-added", |l| l.extend_from_slice(&payload))?;
                }
            }
        }
        let expires = stream.clock + 600_000;
        let Some(request) = stream.event(rng, "llm-request-requested", |l| {
            let _ = write!(
                l,
                r#"{{"model":"{model}","expiresAt":"{}"}}"#,
                iso_time(expires)
            );
        })?
        else {
            break;
        };
        requests += 1;
        stream.gap(rng);
        let answer_size = Text::size(rng) / 2 + 50;
        let answer = text.cut(rng, answer_size);
        let duration = rng.range(300, 40_000);
        let outcome = rng.range(0, 50);
        // A provider bills a few tokens of its own beyond the body; an estimate's model counts
        // with another tokenizer, so its figure runs higher.
        let counted = stream.fold.counted_input(request).unwrap_or(0);
        let input_tokens = if model.starts_with("gpt") {
            counted + rng.range(0, 8)
        } else {
            counted + counted * rng.range(5, 15) / 100
        };
        let output_tokens = (answer.len() / 4) as u64 + 1;
        stream.event(rng, "llm-request-settled", |l| {
            let _ = write!(
                l,
                r#"{{"requestOffset":{request},"durationMs":{duration},"result":"#
            );
            match outcome {
                0 => l.extend_from_slice(
                    br#"{"status":"failed","errorMessage":"upstream returned 529 overloaded"}"#,
                ),
                1 => {
                    l.extend_from_slice(
                        br#"{"status":"cancelled","reason":"superseded","partialText":"#,
                    );
                    push_str(l, &answer[..answer.len().min(80)]);
                    l.push(b'}');
                }
                _ => {
                    l.extend_from_slice(br#"{"status":"succeeded","text":"#);
                    push_str(l, answer);
                    let _ = write!(
                        l,
                        r#","usage":{{"inputTokens":{input_tokens},"outputTokens":{output_tokens}}}}}"#
                    );
                }
            }
            l.push(b'}');
        })?;
        stream.event(rng, "token-usage-reported", |l| {
            let _ = write!(
                l,
                r#"{{"llmRequestOffset":{request},"model":"{model}","maxContextTokens":200000,"inputTokens":{input_tokens},"outputTokens":{output_tokens},"cachedInputTokens":{}}}"#,
                input_tokens / 2
            );
        })?;
        if outcome >= 2 {
            stream.event(rng, "context-added", |l| {
                let _ = write!(
                    l,
                    r#"{{"role":"assistant","llmRequestOffset":{request},"content":"#
                );
                push_str(l, answer);
                l.push(b'}');
            })?;
        }
        since_compaction += 1;
        if since_compaction >= compact_every {
            since_compaction = 0;
            let summary_size = rng.range(800, 4000) as usize;
            let summary = text.cut(rng, summary_size);
            let written = stream.event(rng, "context-added", |l| {
                l.extend_from_slice(br#"{"role":"developer","content":"#);
                push_str(l, summary);
                let _ = write!(
                    l,
                    r#","compaction":{{"replacesHistoryThrough":{request},"usage":{{"inputTokens":{input_tokens},"outputTokens":900}}}}}}"#
                );
            })?;
            if written.is_some() {
                stream.sink.summary.compactions += 1;
            }
        }
    }
    stream.sink.summary.requests = requests;
    Ok(())
}
