//! Deterministic generation of realistic journals (`journalscope gen`): the same dialect, event
//! count and seed always write the same bytes. Iterate journals mix roles and actors, update
//! keyed slots across requests, request every few events, compact, carry payloads from about
//! 100 bytes to 100 KB and leave offset gaps where ephemeral chunks were; every generated
//! journal folds without a diagnostic. An iterate journal of the agent loop (contract "agent"
//! v16) is one agent's turns of requests, model responses, scripts and their results, with idle
//! summaries; it folds without a warning. The other dialects are simpler but valid.

use std::io::Write;

use serde_json::json;

use crate::dialect::Dialect;
pub use crate::iterate::contract::ContractName;

/// A small, fast, seedable generator (SplitMix64): enough for realistic variety, and stable
/// across platforms and crate versions, which a dependency would not promise.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `low..high` (`low` when the range is empty).
    pub fn range(&mut self, low: u64, high: u64) -> u64 {
        if high <= low {
            return low;
        }
        low + self.next_u64() % (high - low)
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.range(0, 100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.range(0, items.len() as u64) as usize]
    }
}

/// What `gen` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GenOptions {
    pub dialect: Dialect,
    pub events: u64,
    pub seed: u64,
    /// Which of iterate's contracts an iterate journal follows: the seed contract or the agent
    /// loop (contract "agent" v16). The other dialects have one shape and ignore it.
    pub contract: ContractName,
}

/// What was written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GenSummary {
    pub events: u64,
    pub bytes: u64,
    pub requests: u64,
    pub compactions: u64,
}

/// Writes a journal of exactly `options.events` events, one JSON object a line.
pub fn write_journal(out: &mut dyn Write, options: &GenOptions) -> std::io::Result<GenSummary> {
    let mut sink = Sink {
        out,
        line: Vec::with_capacity(256 * 1024),
        summary: GenSummary::default(),
        limit: options.events,
    };
    let mut rng = Rng::new(options.seed);
    let text = Text::new(&mut rng);
    match options.dialect {
        Dialect::Iterate => match options.contract {
            ContractName::Seed => iterate(&mut sink, &mut rng, &text, options.seed)?,
            ContractName::AgentLoop => agent_loop(&mut sink, &mut rng, &text, options.seed)?,
            ContractName::Sections => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "journals of the sections contract are not generated",
                ))
            }
        },
        Dialect::AgUi => agui(&mut sink, &mut rng, &text)?,
        Dialect::AgentsKit => agentskit(&mut sink, &mut rng, &text)?,
        Dialect::ClaudeCode => claude_code(&mut sink, &mut rng, &text)?,
        Dialect::Codex => codex(&mut sink, &mut rng, &text)?,
    }
    Ok(sink.summary)
}

/// Writes lines until the requested count, then refuses more so generators can stop anywhere.
struct Sink<'a> {
    out: &'a mut dyn Write,
    line: Vec<u8>,
    summary: GenSummary,
    limit: u64,
}

impl Sink<'_> {
    fn full(&self) -> bool {
        self.summary.events >= self.limit
    }

    /// Writes the line built in `self.line`.
    fn flush_line(&mut self) -> std::io::Result<()> {
        self.line.push(b'\n');
        self.out.write_all(&self.line)?;
        self.summary.events += 1;
        self.summary.bytes += self.line.len() as u64;
        self.line.clear();
        Ok(())
    }
}

/// A pool of prose to cut payloads from: slicing a fixed buffer is much faster than drawing
/// every word, and the text still varies from one payload to the next.
struct Text {
    pool: String,
}

const WORDS: &[&str] = &[
    "the",
    "agent",
    "review",
    "pull",
    "request",
    "changed",
    "files",
    "test",
    "failed",
    "passed",
    "deploy",
    "branch",
    "commit",
    "merge",
    "issue",
    "customer",
    "asked",
    "about",
    "invoice",
    "latency",
    "error",
    "retry",
    "timeout",
    "database",
    "migration",
    "schema",
    "index",
    "query",
    "slow",
    "fast",
    "please",
    "check",
    "summary",
    "context",
    "model",
    "token",
    "budget",
    "cache",
    "prefix",
    "webhook",
    "payload",
    "integration",
    "slack",
    "thread",
    "email",
    "reply",
    "draft",
    "script",
    "output",
    "exit",
    "code",
    "zero",
    "warning",
    "and",
    "or",
    "with",
    "for",
    "from",
    "into",
    "after",
    "before",
    "when",
    "then",
    "because",
    "so",
    "it",
    "is",
    "was",
    "will",
    "not",
];

const POOL_BYTES: usize = 256 * 1024;

impl Text {
    fn new(rng: &mut Rng) -> Text {
        let mut pool = String::with_capacity(POOL_BYTES + 64);
        let mut sentence = 0;
        while pool.len() < POOL_BYTES {
            let word = rng.pick(WORDS);
            if sentence == 0 {
                let mut chars = word.chars();
                if let Some(first) = chars.next() {
                    pool.extend(first.to_uppercase());
                    pool.push_str(chars.as_str());
                }
            } else {
                pool.push_str(word);
            }
            sentence += 1;
            if sentence > 6 && rng.chance(12) {
                pool.push_str(if rng.chance(15) { ".\n" } else { ". " });
                sentence = 0;
            } else {
                pool.push(' ');
            }
        }
        Text { pool }
    }

    /// About `len` bytes of prose (the pool is ASCII, so any cut is a character boundary).
    fn cut(&self, rng: &mut Rng, len: usize) -> &str {
        let len = len.min(self.pool.len());
        let start = rng.range(0, (self.pool.len() - len) as u64) as usize;
        &self.pool[start..start + len]
    }

    /// Payload sizes from about 100 bytes to 100 KB, most of them small, as real journals have
    /// them: chat turns are short, tool output and pasted documents are not.
    fn size(rng: &mut Rng) -> usize {
        let roll = rng.range(0, 1000);
        (if roll < 880 {
            rng.range(100, 650)
        } else if roll < 985 {
            rng.range(700, 6_000)
        } else {
            rng.range(6_000, 92_000)
        }) as usize
    }
}

/// Appends `text` as a JSON string.
fn push_str(line: &mut Vec<u8>, text: &str) {
    // Writing into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *line, text);
}

/// An ISO-8601 UTC time from milliseconds since the epoch.
pub fn iso_time(millis: u64) -> String {
    let seconds = millis / 1000;
    let days = (seconds / 86_400) as i64;
    let rest = seconds % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        millis % 1000
    )
}

/// 2026-11-01T00:00:00Z.
const START_MILLIS: u64 = 1_793_491_200_000;

struct IterateStream<'s, 'a> {
    sink: &'s mut Sink<'a>,
    offset: i64,
    clock: u64,
    path: String,
    /// The journal folded as it is written, so that a reported usage is what the request it
    /// reports on costs, as a provider would report it.
    fold: crate::iterate::view::Analyser,
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

fn iterate(sink: &mut Sink<'_>, rng: &mut Rng, text: &Text, seed: u64) -> std::io::Result<()> {
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
fn agent_loop(sink: &mut Sink<'_>, rng: &mut Rng, text: &Text, seed: u64) -> std::io::Result<()> {
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
            or_full!(stream.event(
                rng,
                "itx/run-settled",
                Writer::Loop,
                &json!({"requestOffset": run, "settlement": {"status": "succeeded", "result": result}}),
            ));
            let said = or_full!(stream.event(
                rng,
                "agent/context-added",
                Writer::Loop,
                &json!({"role": "developer", "content": result,
                    "actor": {"type": "script", "requestOffset": run}}),
            ));
            stream.trigger = Some(said);
        }
        if let Some((run, result)) = late.take() {
            // The slow script's result, after the turn it belonged to: it opens the next
            // request of its own.
            or_full!(stream.event(
                rng,
                "itx/run-settled",
                Writer::Loop,
                &json!({"requestOffset": run, "settlement": {"status": "succeeded", "result": result}}),
            ));
            let said = or_full!(stream.event(
                rng,
                "agent/context-added",
                Writer::Loop,
                &json!({"role": "developer", "content": result,
                    "actor": {"type": "script", "requestOffset": run}}),
            ));
            stream.trigger = Some(said);
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

/// Writes one AG-UI event from a `serde_json::Value`.
fn value_line(sink: &mut Sink<'_>, value: &serde_json::Value) -> std::io::Result<bool> {
    if sink.full() {
        return Ok(false);
    }
    serde_json::to_writer(&mut sink.line, value)?;
    sink.flush_line()?;
    Ok(true)
}

/// Messages a generated AG-UI server keeps: every few runs it sends a `MESSAGES_SNAPSHOT` of
/// the latest ones, as a server that trims its thread to a context window does.
const AGUI_KEPT_MESSAGES: usize = 40;

/// Runs between two message snapshots.
const AGUI_SNAPSHOT_EVERY: u64 = 20;

/// One long AG-UI thread: runs of token-streamed text (a few bytes a delta, tens to hundreds of
/// deltas a message), tool calls with their results, state deltas on a counter and on a list
/// that grows, and now and then a snapshot of the latest messages.
fn agui(sink: &mut Sink<'_>, rng: &mut Rng, text: &Text) -> std::io::Result<()> {
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

fn agentskit(sink: &mut Sink<'_>, rng: &mut Rng, text: &Text) -> std::io::Result<()> {
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
        let prompt = crate::tokens::RequestTokens::of_messages(
            crate::tokens::tokenizer_for(None),
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

/// Lines between two compactions of a generated Claude Code session, about.
const CLAUDE_COMPACT_EVERY: u64 = 400;

/// One long Claude Code session as the client writes it: prompts, responses written a block a
/// line (thinking, text, tool calls) with their usage repeated on every line, tool results, hook
/// progress lines between them, and now and then a compaction whose summary starts the history
/// again. Every line hangs on the one before, as a session without rewinds does.
fn claude_code(sink: &mut Sink<'_>, rng: &mut Rng, text: &Text) -> std::io::Result<()> {
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

/// Lines between two compactions of a generated Codex rollout, about.
const CODEX_COMPACT_EVERY: u64 = 600;

/// One long Codex rollout as the CLI writes it: the session's metadata and settings, then turns
/// of a user message, reasoning and tool calls with their outputs, an answer, and a token count
/// after each run of output, and now and then a compaction.
fn codex(sink: &mut Sink<'_>, rng: &mut Rng, text: &Text) -> std::io::Result<()> {
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

/// Writes an iterate journal of `events` events for tests that need a long, valid journal.
/// `compact_every` is kept for callers written against the older generator; the generated
/// journal compacts every few dozen requests whatever it is.
pub fn write_synthetic(
    out: &mut dyn std::io::Write,
    events: u64,
    compact_every: u64,
) -> std::io::Result<()> {
    write_journal(
        out,
        &GenOptions {
            dialect: Dialect::Iterate,
            events,
            seed: compact_every,
            contract: ContractName::Seed,
        },
    )
    .map(|_| ())
}

/// A substring a generated journal holds in many events but far from all of them: what the
/// bench searches for.
pub fn search_text(dialect: Dialect, contract: ContractName) -> &'static str {
    match dialect {
        Dialect::Iterate if contract == ContractName::AgentLoop => "reading the changelog",
        Dialect::Iterate => "octo-bot",
        Dialect::AgUi | Dialect::AgentsKit | Dialect::ClaudeCode | Dialect::Codex => "review",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_time_formats_known_instants() {
        assert_eq!(iso_time(0), "1970-01-01T00:00:00.000Z", "the epoch");
        assert_eq!(
            iso_time(START_MILLIS + 1_234),
            "2026-11-01T00:00:01.234Z",
            "the generator's start"
        );
        assert_eq!(
            iso_time(951_782_400_000),
            "2000-02-29T00:00:00.000Z",
            "a leap day"
        );
    }

    #[test]
    fn writes_exactly_the_requested_count_in_every_dialect() {
        for (dialect, contract) in [
            (Dialect::Iterate, ContractName::Seed),
            (Dialect::Iterate, ContractName::AgentLoop),
            (Dialect::AgUi, ContractName::Seed),
            (Dialect::AgentsKit, ContractName::Seed),
        ] {
            for events in [0, 1, 2, 7, 300, 5_000] {
                let mut out = Vec::new();
                let summary = write_journal(
                    &mut out,
                    &GenOptions {
                        dialect,
                        events,
                        seed: 3,
                        contract,
                    },
                )
                .expect("write to memory");
                let lines = out.split(|b| *b == b'\n').filter(|l| !l.is_empty()).count();
                let what = format!("{dialect:?} ({})", contract.as_str());
                assert_eq!(lines as u64, events, "{what}: one line per event");
                assert_eq!(summary.events, events, "{what}: summary counts lines");
                assert_eq!(summary.bytes, out.len() as u64, "{what}: bytes");
            }
        }
    }
}
