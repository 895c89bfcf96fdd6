//! A recorded request's body rebuilt from the lines its record names (see `record`): the
//! messages from the chain of requests it extends, the system prompt and tools from its shape,
//! its parameters and cache marks from its own line, and the billing block the client puts
//! first, by the client's rule. What no line holds is named, never made up; the client's own
//! digest of the request checks the rebuilt body.

use std::collections::{BTreeSet, HashSet};

use serde::Serialize;
use serde_json::{Map, Value};
use ts_rs::TS;

use super::hash::{as_blocks, canonical, content_blocks, sha256_hex};
use journalscope_shapes::record_json::Field;
use journalscope_store::store::{Store, StoreError, StoredEvent};
use journalscope_transcript::transcript::{MessageLines, RecordedRequest, RequestRow};

/// Requests a rebuild walks back at most to find one whose messages are all listed.
const LONGEST_WALK: usize = 4_096;

/// Body fields a recorded request never holds: the client adds them when it sends.
pub const NOT_RECORDED: &[&str] = &["metadata", "stream"];

/// Fields the client's digest leaves out.
const UNDIGESTED: &[&str] = &[
    "metadata",
    "stream",
    "thread",
    "diagnostics",
    "safeguards",
    "data_flow",
];

/// The prefix of the billing block that leads the system prompt.
const BILLING: &str = "x-anthropic-billing-header:";

/// The salt of the billing block's fingerprint.
const FINGERPRINT_SALT: &str = "59cf53e54c78";

/// A request's body as the client's own record gives it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RecordedBody {
    /// The body in the order the client wrote it, less the fields `notRecorded` names.
    #[ts(type = "Record<string, unknown>")]
    pub body: Value,
    /// The system blocks as sent, the billing block first.
    #[ts(type = "Array<unknown>")]
    pub system: Vec<Value>,
    #[ts(type = "Array<unknown>")]
    pub tools: Vec<Value>,
    /// The body's other fields (`max_tokens`, `thinking`, …), in the order sent.
    #[ts(type = "Record<string, unknown>")]
    pub params: Value,
    /// The betas, sent in the `anthropic-beta` header.
    pub betas: Vec<String>,
    /// Each cache breakpoint: its path in the body as sent and its `cache_control`.
    #[ts(type = "Array<{ path: Array<string | number>, value: unknown }>")]
    pub cache_marks: Vec<Value>,
    /// Parts rebuilt by the client's rule rather than read from a line.
    pub derived: Vec<String>,
    /// The client's digest of the request, as recorded.
    pub digest: Option<String>,
    /// Whether the rebuilt body gives that digest.
    pub digest_verified: bool,
}

/// Why a recorded request could not be rebuilt.
pub type Unbuilt = String;

/// The body of the recorded request whose `api-request` line is `line`, or why it cannot be
/// rebuilt.
pub fn rebuild(
    store: &Store,
    journal_id: i64,
    line: &Value,
    recorded: &RecordedRequest,
) -> Result<Result<RecordedBody, Unbuilt>, StoreError> {
    let lines = match message_lines(store, journal_id, recorded)? {
        Ok(lines) => lines,
        Err(why) => return Ok(Err(why)),
    };
    let mut messages = match read_messages(store, journal_id, &lines)? {
        Ok(messages) => messages,
        Err(why) => return Ok(Err(why)),
    };
    let Some(shape) = recorded
        .shape
        .map(|shape| store.event(journal_id, shape))
        .transpose()?
        .flatten()
        .and_then(|r| r.json())
        .and_then(|v| v.field("shape").cloned())
    else {
        return Ok(Err("its shape line is not stored".to_string()));
    };
    let mut system = shape.field("system").cloned();
    let mut tools = shape.field("tools").cloned();
    let marks: Vec<Value> = line
        .field("cacheControl")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut cache_marks = Vec::new();
    for mark in &marks {
        let (Some(path), Some(value)) = (
            mark.field("path").and_then(Value::as_array),
            mark.field("value"),
        ) else {
            return Ok(Err("a cache mark has no path or value".to_string()));
        };
        let placed = match path.first().and_then(Value::as_str) {
            Some("system") => system.as_mut().and_then(|s| place(s, &path[1..], value)),
            Some("tools") => tools.as_mut().and_then(|t| place(t, &path[1..], value)),
            Some("messages") => place_in_messages(&mut messages, &path[1..], value),
            _ => None,
        };
        if placed.is_none() {
            return Ok(Err(format!(
                "cache mark {} names nothing in the body",
                Value::Array(path.clone())
            )));
        }
        let mut sent_path = path.clone();
        // The billing block, first on the wire, is not counted in the record's paths.
        if sent_path.first().and_then(Value::as_str) == Some("system") {
            if let Some(index) = sent_path.get(1).and_then(Value::as_u64) {
                sent_path[1] = Value::from(index + 1);
            }
        }
        cache_marks.push(serde_json::json!({"path": sent_path, "value": value}));
    }
    let params = line.field("params").cloned().unwrap_or(Value::Null);
    let version = line.field("version").and_then(Value::as_str).unwrap_or("");
    let subagent = line.field("agentId").is_some();
    let mut derived = Vec::new();
    let billing = system.as_ref().map(|_| {
        derived.push(
            "system[0], the billing block: from the client's version, how it was started and its \
             first prompt (a request to Anthropic's own API also carries a body hash and the ids \
             of the previous request and prompt, which no line records)"
                .to_string(),
        );
        billing_block(version, recorded, subagent)
    });
    let sent_system: Option<Vec<Value>> = system.as_ref().map(|blocks| {
        billing
            .iter()
            .cloned()
            .chain(blocks.as_array().cloned().unwrap_or_default())
            .collect()
    });
    let withheld: Vec<String> = line
        .field("withheld")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect();
    // The body in the client's order: model, messages, system, tools, tool choice, then the
    // rest of the parameters as recorded, then a thread that is not none.
    let mut body = Map::new();
    let mut rest = Map::new();
    let mut betas = Vec::new();
    if let Some(model) = params.field("model") {
        body.insert("model".into(), model.clone());
    }
    body.insert("messages".into(), Value::Array(messages.clone()));
    if let Some(system) = &sent_system {
        body.insert("system".into(), Value::Array(system.clone()));
    }
    if let Some(tools) = &tools {
        body.insert("tools".into(), tools.clone());
    }
    if let Some(choice) = params.field("tool_choice") {
        body.insert("tool_choice".into(), choice.clone());
    }
    for (key, value) in params.as_object().into_iter().flatten() {
        match key.as_str() {
            "model" | "tool_choice" => {}
            "betas" => {
                betas = value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect();
            }
            _ => {
                body.insert(key.clone(), value.clone());
                rest.insert(key.clone(), value.clone());
            }
        }
    }
    if let Some(thread) = line
        .field("thread")
        .filter(|t| t.field("type").and_then(Value::as_str) != Some("none"))
    {
        body.insert("thread".into(), thread.clone());
    }
    // The digest: the parameters as the client built them (betas in), the system prompt
    // without its billing block, string contents as text blocks, cache marks kept.
    let mut digested = Map::new();
    for (key, value) in params.as_object().into_iter().flatten() {
        digested.insert(key.clone(), value.clone());
    }
    digested.insert(
        "messages".into(),
        Value::Array(messages.iter().map(as_blocks).collect()),
    );
    if let Some(system) = &system {
        digested.insert("system".into(), system.clone());
    }
    if let Some(tools) = &tools {
        digested.insert("tools".into(), tools.clone());
    }
    for key in UNDIGESTED.iter().map(|k| k.to_string()).chain(withheld) {
        digested.shift_remove(&key);
    }
    let digest = line
        .field("requestDigest")
        .and_then(Value::as_str)
        .map(str::to_string);
    let digest_verified = digest
        .as_deref()
        .is_some_and(|d| d == sha256_hex(&canonical(&Value::Object(digested), false)));
    Ok(Ok(RecordedBody {
        body: Value::Object(body),
        system: sent_system.unwrap_or_default(),
        tools: tools
            .and_then(|t| t.as_array().cloned())
            .unwrap_or_default(),
        params: Value::Object(rest),
        betas,
        cache_marks,
        derived,
        digest,
        digest_verified,
    }))
}

/// The fields of the request whose `api-request` line is `line` that no line records, by name.
pub fn not_recorded(line: &Value) -> Vec<String> {
    let mut names: Vec<String> = NOT_RECORDED.iter().map(|n| n.to_string()).collect();
    for field in line
        .field("withheld")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        names.push(field.to_string());
    }
    names
}

/// The billing block: the client's version with a fingerprint of its first prompt, how it was
/// started, and whether a subagent sent the request.
fn billing_block(version: &str, recorded: &RecordedRequest, subagent: bool) -> Value {
    let chars = recorded.prompt_chars.as_deref().unwrap_or("000");
    let fingerprint = sha256_hex(&format!("{FINGERPRINT_SALT}{chars}{version}"));
    let mut text = format!(
        "{BILLING} cc_version={version}.{}; cc_entrypoint={};",
        &fingerprint[..3],
        recorded.entrypoint.as_deref().unwrap_or("unknown")
    );
    if subagent {
        text.push_str(" cc_is_subagent=true;");
    }
    serde_json::json!({"type": "text", "text": text})
}

/// Puts `cache_control` at `path` under `value`: the key goes last in its object, and a string
/// content a path goes into becomes one text block.
fn place(target: &mut Value, path: &[Value], mark: &Value) -> Option<()> {
    let mut at = target;
    for (i, step) in path.iter().enumerate() {
        at = match step {
            Value::Number(n) => at.get_mut(n.as_u64()? as usize)?,
            Value::String(key) => {
                let object = at.as_object_mut()?;
                if key == "content" && i + 1 < path.len() {
                    if let Some(Value::String(text)) = object.field("content") {
                        let block = serde_json::json!([{"type": "text", "text": text}]);
                        object.insert("content".into(), block);
                    }
                }
                object.get_mut(key)?
            }
            _ => return None,
        };
    }
    at.as_object_mut()?
        .insert("cache_control".into(), mark.clone());
    Some(())
}

fn place_in_messages(messages: &mut [Value], path: &[Value], mark: &Value) -> Option<()> {
    let index = path.first()?.as_u64()? as usize;
    place(messages.get_mut(index)?, &path[1..], mark)
}

/// The lines of every message of `recorded`: the nearest request of its chain that lists them
/// all, then each later one's kept messages and tail.
pub fn message_lines(
    store: &Store,
    journal_id: i64,
    recorded: &RecordedRequest,
) -> Result<Result<Vec<MessageLines>, Unbuilt>, StoreError> {
    let mut chain = vec![recorded.clone()];
    let mut seen = HashSet::new();
    loop {
        let Some(current) = chain.last() else {
            return Ok(Err("no request".to_string()));
        };
        if current.all.is_some() {
            break;
        }
        let Some(base) = current.base else {
            return Ok(Err("the request it extends is not known".to_string()));
        };
        if !seen.insert(base) || chain.len() > LONGEST_WALK {
            return Ok(Err(
                "the requests it extends go round in a cycle".to_string()
            ));
        }
        let Some(row) = store
            .request_row(journal_id, base)?
            .and_then(|row| serde_json::from_str::<RequestRow>(&row).ok())
            .and_then(|row| row.recorded)
        else {
            return Ok(Err(format!(
                "the request it extends (record {base}) is not recorded"
            )));
        };
        chain.push(row);
    }
    let mut lines = chain.last().and_then(|r| r.all.clone()).unwrap_or_default();
    for request in chain.iter().rev().skip(1) {
        if request.keep as usize > lines.len() {
            return Ok(Err(format!(
                "it keeps {} messages of a request that has {}",
                request.keep,
                lines.len()
            )));
        }
        lines.truncate(request.keep as usize);
        lines.extend(request.tail.iter().copied());
    }
    Ok(Ok(lines))
}

/// Lines read from the store at a time.
const READ_SLICE: usize = 512;

/// Each message as the client held it: a blob's message, or a run's lines merged.
fn read_messages(
    store: &Store,
    journal_id: i64,
    lines: &[MessageLines],
) -> Result<Result<Vec<Value>, Unbuilt>, StoreError> {
    let mut wanted = BTreeSet::new();
    for message in lines {
        wanted.extend(message.first..=message.last);
    }
    let wanted: Vec<u64> = wanted.into_iter().collect();
    let mut records: Vec<StoredEvent> = Vec::with_capacity(wanted.len());
    for slice in store.records_at(journal_id, &wanted, READ_SLICE) {
        records.extend(slice?);
    }
    let value_at = |seq: u64| -> Option<Value> {
        let at = records.binary_search_by_key(&seq, |r| r.seq).ok()?;
        records[at].json()
    };
    let mut messages = Vec::with_capacity(lines.len());
    for message in lines {
        if message.whole {
            let Some(mut held) = value_at(message.first).and_then(|v| v.field("message").cloned())
            else {
                return Ok(Err(format!("blob line {} is not stored", message.first)));
            };
            if message.plain {
                if let Some(text) = one_plain_text(&held) {
                    held["content"] = Value::String(text);
                }
            }
            messages.push(held);
            continue;
        }
        let mut role = None;
        let mut blocks = Vec::new();
        let mut only_string = None;
        let mut count = 0;
        for seq in message.first..=message.last {
            let Some(value) = value_at(seq) else { continue };
            if !matches!(
                value.field("type").and_then(Value::as_str),
                Some("user" | "assistant")
            ) {
                continue;
            }
            let Some(held) = value.field("message") else {
                continue;
            };
            count += 1;
            role = held.field("role").cloned();
            if let Some(content) = held.field("content") {
                only_string = content.as_str().map(str::to_string);
                blocks.extend(content_blocks(content));
            }
        }
        let Some(role) = role else {
            return Ok(Err(format!(
                "the lines {} to {} hold no message",
                message.first, message.last
            )));
        };
        let content = match only_string.filter(|_| count == 1) {
            Some(text) => Value::String(text),
            None => Value::Array(blocks),
        };
        let mut held = Map::new();
        held.insert("role".into(), role);
        held.insert("content".into(), content);
        messages.push(Value::Object(held));
    }
    Ok(Ok(messages))
}

/// The text of a user or system message whose content is one plain text block.
fn one_plain_text(message: &Value) -> Option<String> {
    let role = message.field("role")?.as_str()?;
    if !matches!(role, "user" | "system") {
        return None;
    }
    let blocks = message.field("content")?.as_array()?;
    let [block] = blocks.as_slice() else {
        return None;
    };
    let object = block.as_object()?;
    (object.len() == 2 && object.field("type")?.as_str()? == "text")
        .then(|| object.field("text")?.as_str().map(str::to_string))?
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_mark_in_a_string_content_makes_it_one_block_with_the_mark_last() {
        let mut messages = vec![json!({"role": "user", "content": "hi"})];
        let mark = json!({"type": "ephemeral"});
        assert!(
            place_in_messages(
                &mut messages,
                &[json!(0), json!("content"), json!(0)],
                &mark
            )
            .is_some(),
            "the path names the first block"
        );
        assert_eq!(
            serde_json::to_string(&messages[0]).expect("text"),
            r#"{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}"#,
            "the string became a block and the mark its last key"
        );
        assert!(
            place_in_messages(
                &mut messages,
                &[json!(3), json!("content"), json!(0)],
                &mark
            )
            .is_none(),
            "a path past the messages names nothing"
        );
    }

    #[test]
    fn the_billing_block_is_the_clients_for_its_first_prompt() {
        // Given the first prompt of a recorded 2.1.332 session ("Run echo hi with bash and tell
        // me what it printed") and how it was started
        let recorded = RecordedRequest {
            entrypoint: Some("sdk-cli".to_string()),
            prompt_chars: Some(super::super::record::prompt_chars(
                "Run echo hi with bash and tell me what it printed",
            )),
            ..RecordedRequest::default()
        };
        // When the block is rebuilt
        let block = billing_block("2.1.332", &recorded, false);
        // Then it has the client's form, and the fingerprint of those characters
        let text = block["text"].as_str().expect("text");
        assert!(
            text.starts_with("x-anthropic-billing-header: cc_version=2.1.332.")
                && text.ends_with("; cc_entrypoint=sdk-cli;"),
            "the client's form: {text}"
        );
        let fingerprint = &sha256_hex("59cf53e54c78eoh2.1.332")[..3];
        assert!(
            text.contains(&format!("2.1.332.{fingerprint};")),
            "characters 4, 7 and 20 of the prompt: {text}"
        );
    }
}
