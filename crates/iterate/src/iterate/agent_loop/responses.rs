//! A request of the agent loop as the OpenAI Responses API gets it (contract §4): the section
//! head with its cache breakpoint, each item as input items, the `run` calls with their
//! outputs, and the body around them. Pure: the same state, model and path give the same bytes.

use std::collections::{BTreeSet, HashMap};

use serde_json::{json, Map, Value};

use super::codemode::{self, Codemode};
use super::fold::{AgentLoop, ContextItem};
use crate::iterate::event::Role;
use journalscope_shapes::record_json::{js_string, js_truthy, Field};

/// Sections that never carry the cache breakpoint: they change often, so a breakpoint after
/// them would be missed.
const NO_BREAKPOINT: &[&str] = &["capability-tree", "preamble", "identity"];

/// A `run` call's output while its result had not come back.
pub const NO_RESULT: &str = "No result had come back when the conversation moved on. If the \
script finishes, its result arrives later as its own message.";

/// The output of every `run` call of an answer after its first.
pub const NOT_RUN: &str = "Not run: only the first `run` call of a response runs.";

/// One input item and the context item it renders.
#[derive(Debug, Clone, PartialEq)]
pub struct InputItem {
    pub offset: i64,
    pub value: Value,
}

/// A request's input, with what the journal does not record about it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Input {
    pub items: Vec<InputItem>,
    /// What the rendering could not take from the journal, in words.
    pub notes: Vec<String>,
}

fn message(role: &str, content: impl Into<Value>) -> Value {
    json!({"role": role, "content": content.into()})
}

/// The items of the head: each section shown, in order, the last one that may carry the cache
/// breakpoint carrying it.
fn head(sections: &Map<String, Value>) -> Vec<Value> {
    let shown: Vec<(&String, &str)> = sections
        .iter()
        .filter_map(|(name, text)| text.as_str().map(|text| (name, text)))
        .collect();
    let breakpoint = shown
        .iter()
        .rposition(|(name, _)| !NO_BREAKPOINT.contains(&name.as_str()));
    shown
        .iter()
        .enumerate()
        .map(|(at, (_, text))| {
            if Some(at) == breakpoint {
                message(
                    "developer",
                    json!([{"type": "input_text", "text": text, "prompt_cache_breakpoint": {"mode": "explicit"}}]),
                )
            } else {
                message("developer", *text)
            }
        })
        .collect()
}

/// `{status, script}` as a `run` call's arguments.
fn arguments(status: &str, script: &str) -> String {
    json!({"status": status, "script": script}).to_string()
}

fn run_call(call_id: &str, status: &str, script: &str) -> Value {
    json!({"type": "function_call", "call_id": call_id, "name": "run", "arguments": arguments(status, script)})
}

/// The text of a message provider item: its `output_text` parts joined. The loop reads the parts
/// only when every one is an object with a string `type` and a `text` that is absent or a
/// string; otherwise the item has no text.
fn said(object: &Map<String, Value>) -> String {
    let Some(Value::Array(parts)) = object.get("content") else {
        return String::new();
    };
    let readable = parts.iter().all(|part| {
        part.as_object().is_some_and(|part| {
            part.get("type").is_some_and(Value::is_string)
                && part.get("text").is_none_or(Value::is_string)
        })
    });
    if !readable {
        return String::new();
    }
    parts
        .iter()
        .filter(|part| part.field("type").and_then(Value::as_str) == Some("output_text"))
        .filter_map(|part| part.field("text").and_then(Value::as_str))
        .collect()
}

/// The input items of an assistant answer, calls without their outputs. A field the provider
/// item lacks is left out and one it holds as `null` is written `null`, as `JSON.stringify`
/// writes the loop's objects.
fn answer(item: &ContextItem, model: Option<&str>) -> Vec<Value> {
    let text = |value: &Value| value.as_str().unwrap_or("").to_string();
    if item.call.is_some() || item.provider_items.is_some() {
        let kept: Vec<&Map<String, Value>> = item
            .provider_items
            .as_ref()
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_object)
            .filter(|object| object.get("type").is_some_and(Value::is_string))
            .collect();
        let exact = !kept.is_empty()
            && item.provider_model.is_some()
            && item.provider_model.as_deref() == model;
        if !kept.is_empty() {
            let mut out = Vec::new();
            for object in kept {
                let copy = |into: &mut Map<String, Value>, name: &str| {
                    if let Some(value) = object.get(name) {
                        into.insert(name.into(), value.clone());
                    }
                };
                match object.get("type").and_then(Value::as_str) {
                    Some("reasoning") if exact => {
                        if let Some(encrypted) = object
                            .get("encrypted_content")
                            .filter(|v| js_truthy(Some(v)))
                        {
                            let mut reasoning = Map::new();
                            reasoning.insert("type".into(), json!("reasoning"));
                            copy(&mut reasoning, "id");
                            reasoning.insert(
                                "summary".into(),
                                object
                                    .get("summary")
                                    .filter(|v| !v.is_null())
                                    .cloned()
                                    .unwrap_or(json!([])),
                            );
                            reasoning.insert("encrypted_content".into(), encrypted.clone());
                            out.push(Value::Object(reasoning));
                        }
                    }
                    Some("message") => {
                        let said = said(object);
                        if said.is_empty() {
                            continue;
                        }
                        if exact {
                            let mut message = Map::new();
                            message.insert("type".into(), json!("message"));
                            message.insert("role".into(), json!("assistant"));
                            copy(&mut message, "id");
                            message.insert("status".into(), json!("completed"));
                            message.insert(
                                "content".into(),
                                json!([{"type": "output_text", "text": said, "annotations": []}]),
                            );
                            out.push(Value::Object(message));
                        } else {
                            out.push(message("assistant", said));
                        }
                    }
                    Some("function_call") => {
                        let mut call = Map::new();
                        call.insert("type".into(), json!("function_call"));
                        if exact {
                            if let Some(id) = object.get("id").filter(|v| js_truthy(Some(v))) {
                                call.insert("id".into(), id.clone());
                            }
                        }
                        for name in ["call_id", "name", "arguments"] {
                            copy(&mut call, name);
                        }
                        out.push(Value::Object(call));
                    }
                    _ => {}
                }
            }
            return out;
        }
        let Some(call) = &item.call else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let before = item.content.split("<codemode").next().unwrap_or("").trim();
        if !before.is_empty() {
            out.push(message("assistant", before));
        }
        let call_id = call.field("callId").map(text).unwrap_or_default();
        let status = call.field("status").map(text).unwrap_or_default();
        let script = call.field("script").map(text).unwrap_or_default();
        out.push(run_call(&call_id, &status, &script));
        return out;
    }
    match codemode::parse(&item.content) {
        Codemode::Script(script) => {
            let mut out = Vec::new();
            if !script.prose.is_empty() {
                out.push(message("assistant", script.prose.as_str()));
            }
            out.push(run_call(
                &format!("call_{}", item.offset),
                &script.status,
                codemode::unwrapped(&script.code),
            ));
            out
        }
        _ if item.content.trim().is_empty() => Vec::new(),
        _ => vec![message("assistant", item.content.as_str())],
    }
}

/// The file line an attachment adds to a message.
fn file_line(file: &Value) -> String {
    let text = |name: &str| match file.field(name) {
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    let path = file.field("path").cloned().unwrap_or(Value::Null);
    format!(
        "[Attached file: {} ({}, {} bytes) — read it with `await itx.files.get({}).bytes()`]",
        text("filename"),
        text("contentType"),
        text("size"),
        path
    )
}

/// The text of a message of words: the sender's note, the content, the files.
fn words(item: &ContextItem, own_path: Option<&str>) -> String {
    let mut content = item.content.clone();
    if let Some(from) = item
        .from
        .as_deref()
        .filter(|from| !from.is_empty() && Some(*from) != own_path)
    {
        let quoted = Value::String(from.to_string());
        content = format!(
            "[from {from} — it cannot see this conversation; answer by appending to its log: `await itx.cd({quoted}).append({{ type: \"events.iterate.com/agent/context-added\", payload: {{ role: \"user\", content }} }})`] {content}"
        );
    }
    let mut parts = vec![content];
    parts.extend(item.files.iter().map(file_line));
    parts
        .into_iter()
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Where each answer's first `run` call finds its result: the newest run of each call, the last
/// script item of each run, and the stamps before each item, taken once per walk so that
/// placing a result is not a scan of the list.
struct Placements<'a> {
    run_of_call: HashMap<&'a str, i64>,
    last_result: HashMap<i64, usize>,
    stamps_before: Vec<u32>,
}

impl<'a> Placements<'a> {
    fn of(state: &'a AgentLoop) -> Placements<'a> {
        let mut run_of_call = HashMap::new();
        for (run, call) in &state.runs {
            run_of_call.insert(call.as_str(), *run);
        }
        let mut last_result = HashMap::new();
        let mut stamps_before = Vec::with_capacity(state.items.len() + 1);
        let mut stamps = 0;
        for (at, item) in state.items.iter().enumerate() {
            stamps_before.push(stamps);
            stamps += u32::from(item.stamp);
            if item.role == Role::Developer {
                if let Some(run) = item.script_run() {
                    last_result.insert(run, at);
                }
            }
        }
        stamps_before.push(stamps);
        Placements {
            run_of_call,
            last_result,
            stamps_before,
        }
    }

    /// Where the result of the first `run` call of the answer at `answer` is placed: the index
    /// of the last script item for the newest run of `call_id`, when no stamp lies between.
    fn result(&self, answer: usize, call_id: &str) -> Option<usize> {
        let run = self.run_of_call.get(call_id)?;
        let result = *self.last_result.get(run)?;
        let after = answer + 1;
        (after <= result && self.stamps_before[result] == self.stamps_before[after])
            .then_some(result)
    }
}

/// What a walk of a request's items hands its input items to: rendered whole for the body, or
/// as digests for the append-only check, which may keep an item's own digests from one
/// request to the next.
pub trait Sink {
    type Entry;
    /// The input items `item` renders to alone, each with its `call_id` when it is a call:
    /// the same at every request for one model and path. `render` makes them.
    fn own(
        &mut self,
        item: &ContextItem,
        render: &dyn Fn() -> Vec<Value>,
    ) -> Vec<(Self::Entry, Option<String>)>;
    /// An input item the walk makes of more than one context item.
    fn made(&mut self, value: Value) -> Self::Entry;
    fn push(&mut self, offset: i64, entry: Self::Entry);
    /// What the rendering could not take from the journal, in words.
    fn note(&mut self, note: String);
}

/// The `call_id` of an input item that is a call.
pub fn call_of(value: &Value) -> Option<String> {
    (value.field("type").and_then(Value::as_str) == Some("function_call"))
        .then(|| js_string(value.field("call_id")))
}

impl Sink for Input {
    type Entry = Value;

    fn own(
        &mut self,
        _: &ContextItem,
        render: &dyn Fn() -> Vec<Value>,
    ) -> Vec<(Value, Option<String>)> {
        render()
            .into_iter()
            .map(|value| {
                let call = call_of(&value);
                (value, call)
            })
            .collect()
    }

    fn made(&mut self, value: Value) -> Value {
        value
    }

    fn push(&mut self, offset: i64, value: Value) {
        self.items.push(InputItem { offset, value });
    }

    fn note(&mut self, note: String) {
        self.notes.push(note);
    }
}

/// The input of a request folded to `state`, for `model` and the agent's own `path`.
pub fn input(state: &AgentLoop, model: Option<&str>, own_path: Option<&str>) -> Input {
    let mut input = Input::default();
    walk(state, model, own_path, &mut input);
    input
}

/// The indices of the script items whose result goes as its call's output, the model having
/// had it in time: any other script item goes as a late message of its own.
pub fn placed(state: &AgentLoop) -> BTreeSet<usize> {
    /// Reads only the answers' calls.
    struct Calls;
    impl Sink for Calls {
        type Entry = ();
        fn own(
            &mut self,
            item: &ContextItem,
            render: &dyn Fn() -> Vec<Value>,
        ) -> Vec<((), Option<String>)> {
            if item.role != Role::Assistant {
                return Vec::new();
            }
            render().iter().map(|value| ((), call_of(value))).collect()
        }
        fn made(&mut self, _: Value) {}
        fn push(&mut self, _: i64, _: ()) {}
        fn note(&mut self, _: String) {}
    }
    walk(state, None, None, &mut Calls)
}

/// Hands `sink` each input item of a request folded to `state`, in order, and says which
/// script items went as a call's output.
pub fn walk<S: Sink>(
    state: &AgentLoop,
    model: Option<&str>,
    own_path: Option<&str>,
    sink: &mut S,
) -> BTreeSet<usize> {
    let head_at = state
        .items
        .iter()
        .position(|item| item.snapshot && item.sections.is_some());
    if let Some(at) = head_at {
        let item = &state.items[at];
        if let Some(Value::Object(sections)) = &item.sections {
            for value in head(sections) {
                let entry = sink.made(value);
                sink.push(item.offset, entry);
            }
        }
    }
    let placements = Placements::of(state);
    // The results already placed after their answers, by index.
    let mut placed = BTreeSet::new();
    for (at, item) in state.items.iter().enumerate() {
        if Some(at) == head_at || placed.contains(&at) {
            continue;
        }
        let own = |sink: &mut S, render: &dyn Fn() -> Vec<Value>| {
            for (entry, _) in sink.own(item, render) {
                sink.push(item.offset, entry);
            }
        };
        match (item.role, item.actor_type()) {
            (Role::System, _) => own(sink, &|| {
                if item.content.is_empty() {
                    Vec::new()
                } else {
                    vec![message("developer", item.content.as_str())]
                }
            }),
            (Role::Assistant, _) => {
                let mut first = true;
                for (entry, call_id) in sink.own(item, &|| answer(item, model)) {
                    sink.push(item.offset, entry);
                    let Some(call_id) = call_id else {
                        continue;
                    };
                    // A placed result's output renders the script item that carries it.
                    let (output, from) = if !first {
                        (NOT_RUN.to_string(), item.offset)
                    } else if let Some(result) = placements.result(at, &call_id) {
                        placed.insert(result);
                        let result = &state.items[result];
                        (result.content.clone(), result.offset)
                    } else {
                        (NO_RESULT.to_string(), item.offset)
                    };
                    first = false;
                    let entry = sink.made(
                        json!({"type": "function_call_output", "call_id": call_id, "output": output}),
                    );
                    sink.push(from, entry);
                }
            }
            (Role::Developer, Some("script")) => own(sink, &|| {
                let run = item.script_run().unwrap_or_default();
                vec![message(
                    "user",
                    format!(
                        "[the result of your script @{run}, which came back after the conversation moved on]\n{}",
                        item.content
                    ),
                )]
            }),
            (Role::Developer, actor) if item.compaction.is_none() && actor != Some("user") => {
                own(sink, &|| vec![message("developer", item.content.as_str())])
            }
            _ => {
                if item.files.iter().any(|file| {
                    file.field("contentType")
                        .and_then(Value::as_str)
                        .is_some_and(|t| t.starts_with("image/"))
                }) {
                    sink.note(format!(
                        "the item @{} attaches an image, which goes as an input_image part whose bytes the journal lacks: only its file line is rendered",
                        item.offset
                    ));
                }
                own(sink, &|| vec![message("user", words(item, own_path))])
            }
        }
    }
    placed
}

/// The `prompt_cache_key`: the agent's path, or `voice/<client>` for a voice call's agent
/// (`/agents/voice/<client>/<call>`, exactly two names deep), at most 64 code points.
pub fn cache_key(path: &str) -> String {
    let voice = path.strip_prefix("/agents/voice/").and_then(|rest| {
        let (client, call) = rest.split_once('/')?;
        (!client.is_empty() && !call.is_empty() && !call.contains('/')).then_some(client)
    });
    let key = match voice {
        Some(client) => format!("voice/{client}"),
        None => path.to_string(),
    };
    key.chars().take(64).collect()
}

/// The `run` tool: a strict function of a string `status` and a string `script`. The loop's
/// descriptions of the tool and its parameters are not in the journal, so none is written.
pub fn run_tool() -> Value {
    json!({
        "type": "function",
        "name": "run",
        "strict": true,
        "parameters": {
            "type": "object",
            "properties": {"status": {"type": "string"}, "script": {"type": "string"}},
            "required": ["status", "script"],
            "additionalProperties": false
        }
    })
}

/// The request body around `input`; a key whose value the journal does not hold is left out.
pub fn body(input: &Input, model: Option<&str>, path: Option<&str>, effort: Option<&str>) -> Value {
    let mut body = Map::new();
    if let Some(model) = model {
        body.insert("model".into(), json!(model));
    }
    body.insert(
        "input".into(),
        Value::Array(input.items.iter().map(|item| item.value.clone()).collect()),
    );
    body.insert("tools".into(), json!([run_tool()]));
    body.insert("tool_choice".into(), json!("auto"));
    body.insert("parallel_tool_calls".into(), json!(false));
    body.insert("stream".into(), json!(true));
    body.insert("store".into(), json!(false));
    body.insert("include".into(), json!(["reasoning.encrypted_content"]));
    if let Some(path) = path {
        body.insert("prompt_cache_key".into(), json!(cache_key(path)));
    }
    let mut reasoning = Map::new();
    if let Some(effort) = effort {
        reasoning.insert("effort".into(), json!(effort));
    }
    reasoning.insert("summary".into(), json!("auto"));
    body.insert("reasoning".into(), Value::Object(reasoning));
    Value::Object(body)
}

#[cfg(test)]
mod tests;
