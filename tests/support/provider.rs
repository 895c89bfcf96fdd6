//! A scripted model provider on 127.0.0.1 for the real-client suite: it answers the Anthropic
//! Messages API and the OpenAI Responses API (streamed as Server-Sent Events, or as one JSON
//! body) and records every request it receives, the body byte for byte.
//!
//! The replies follow directives written in the conversation itself, so that a client's side
//! requests (titles, summaries, subagents) never shift a scenario out of step: a user text
//! holding `#steps [[tool, input], …]` is answered with the first call, and each later request
//! of that conversation, whose newest message answers a call, with the next one; once the steps
//! are spent, or when there are none, the reply is a short text.

use std::io::{self, Read};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One request as the provider received it.
#[derive(Debug, Clone)]
pub struct Received {
    /// In the order the requests' heads arrived.
    pub number: u64,
    pub method: String,
    /// The path with its query.
    pub path: String,
    /// Names lower-cased, in the order they came.
    pub headers: Vec<(String, String)>,
    /// The body as sent, after any transfer coding (chunks) is undone.
    pub body: Vec<u8>,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON; content-coded bodies (gzip) are decoded first.
    pub fn json(&self) -> Option<Value> {
        let body = match self.header("content-encoding") {
            Some("gzip") => {
                let mut out = Vec::new();
                flate2::read::GzDecoder::new(&self.body[..])
                    .read_to_end(&mut out)
                    .ok()?;
                out
            }
            _ => self.body.clone(),
        };
        serde_json::from_slice(&body).ok()
    }

    /// A model request: a POST to the Messages or the Responses endpoint.
    pub fn is_model_request(&self) -> bool {
        self.method == "POST" && {
            let path = self.path.split('?').next().unwrap_or("");
            path.ends_with("/messages") || path.ends_with("/responses")
        }
    }
}

/// The provider, serving until dropped.
pub struct Provider {
    pub addr: SocketAddr,
    received: Arc<Mutex<Vec<Received>>>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Provider {
    pub fn start() -> io::Result<Provider> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0"))?;
        let addr = listener.local_addr()?;
        let received = Arc::new(Mutex::new(Vec::new()));
        let keeping = Arc::clone(&received);
        let numbers = Arc::new(AtomicU64::new(0));
        runtime.spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let (keeping, numbers) = (Arc::clone(&keeping), Arc::clone(&numbers));
                tokio::spawn(async move {
                    let _ = serve(socket, &keeping, &numbers).await;
                });
            }
        });
        Ok(Provider {
            addr,
            received,
            runtime: Some(runtime),
        })
    }

    /// The base URL to give a client, without a path.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request received so far, in order.
    pub fn received(&self) -> Vec<Received> {
        let mut all = self.received.lock().map(|r| r.clone()).unwrap_or_default();
        all.sort_by_key(|r| r.number);
        all
    }

    /// Forgets what was received, so that a scenario's next step is read on its own.
    pub fn clear(&self) {
        if let Ok(mut received) = self.received.lock() {
            received.clear();
        }
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// Serves the requests of one connection, kept alive as long as the client keeps it.
async fn serve(
    mut socket: TcpStream,
    received: &Mutex<Vec<Received>>,
    numbers: &AtomicU64,
) -> io::Result<()> {
    let mut buffer: Vec<u8> = Vec::new();
    loop {
        let Some(request) = read_request(&mut socket, &mut buffer, numbers).await? else {
            return Ok(());
        };
        let upgrade = request
            .header("upgrade")
            .is_some_and(|u| u.eq_ignore_ascii_case("websocket"));
        if let Ok(mut kept) = received.lock() {
            kept.push(request.clone());
        }
        if upgrade {
            // No WebSocket here: the client goes on over HTTP, as it does against a provider
            // that does not offer it.
            socket
                .write_all(b"HTTP/1.1 426 Upgrade Required\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                .await?;
            return Ok(());
        }
        let (status, content_type, body) = answer(&request);
        let head = format!(
            "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nrequest-id: req_scripted_{:04}\r\nx-request-id: req_scripted_{:04}\r\nConnection: keep-alive\r\n\r\n",
            body.len(),
            request.number,
            request.number,
        );
        socket.write_all(head.as_bytes()).await?;
        socket.write_all(&body).await?;
        socket.flush().await?;
    }
}

/// Reads one request off the connection; `None` when the client closed it.
async fn read_request(
    socket: &mut TcpStream,
    buffer: &mut Vec<u8>,
    numbers: &AtomicU64,
) -> io::Result<Option<Received>> {
    let mut chunk = [0u8; 65536];
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let number = numbers.fetch_add(1, Ordering::SeqCst);
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let first = lines.next().unwrap_or("");
    let mut parts = first.split(' ');
    let method = parts.next().unwrap_or("").to_string();
    let path = parts.next().unwrap_or("").to_string();
    let headers: Vec<(String, String)> = lines
        .filter(|l| !l.is_empty())
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    buffer.drain(..head_end);
    let body = if header("transfer-encoding").is_some_and(|t| t.contains("chunked")) {
        let mut body = Vec::new();
        loop {
            let line_end = loop {
                if let Some(at) = buffer.windows(2).position(|w| w == b"\r\n") {
                    break at;
                }
                let n = socket.read(&mut chunk).await?;
                if n == 0 {
                    return Ok(None);
                }
                buffer.extend_from_slice(&chunk[..n]);
            };
            let size_text = String::from_utf8_lossy(&buffer[..line_end]).into_owned();
            let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
                .unwrap_or(0);
            while buffer.len() < line_end + 2 + size + 2 {
                let n = socket.read(&mut chunk).await?;
                if n == 0 {
                    return Ok(None);
                }
                buffer.extend_from_slice(&chunk[..n]);
            }
            body.extend_from_slice(&buffer[line_end + 2..line_end + 2 + size]);
            buffer.drain(..line_end + 2 + size + 2);
            if size == 0 {
                break body;
            }
        }
    } else {
        let length: usize = header("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        while buffer.len() < length {
            let n = socket.read(&mut chunk).await?;
            if n == 0 {
                return Ok(None);
            }
            buffer.extend_from_slice(&chunk[..n]);
        }
        buffer.drain(..length).collect()
    };
    Ok(Some(Received {
        number,
        method,
        path,
        headers,
        body,
    }))
}

/// What the provider says to a request: its status, content type and body.
fn answer(request: &Received) -> (&'static str, &'static str, Vec<u8>) {
    let path = request.path.split('?').next().unwrap_or("").to_string();
    let body = request.json().unwrap_or(Value::Null);
    let streamed = body.get("stream").and_then(Value::as_bool) == Some(true);
    if request.method == "POST" && path.ends_with("/messages/count_tokens") {
        let tokens = request.body.len() / 4;
        return ok_json(json!({"input_tokens": tokens}));
    }
    if request.method == "POST" && path.ends_with("/messages") {
        let reply = next_reply(&Conversation::messages(&body));
        let model = body.get("model").and_then(Value::as_str).unwrap_or("model");
        let id = format!("msg_scripted_{:04}", request.number);
        return if streamed {
            (
                "200 OK",
                "text/event-stream",
                anthropic_stream(&id, model, &reply, request.body.len()),
            )
        } else {
            ok_json(anthropic_message(&id, model, &reply, request.body.len()))
        };
    }
    if request.method == "POST" && path.ends_with("/responses") {
        let reply = next_reply(&Conversation::responses(&body));
        let model = body.get("model").and_then(Value::as_str).unwrap_or("model");
        let id = format!("resp_scripted_{:04}", request.number);
        return (
            "200 OK",
            "text/event-stream",
            responses_stream(&id, model, &reply, request.body.len()),
        );
    }
    if request.method == "GET" && path.ends_with("/models") {
        return ok_json(json!({"object": "list", "data": [], "models": []}));
    }
    (
        "404 Not Found",
        "application/json",
        serde_json::to_vec(&json!({"error": {"type": "not_found", "message": "not scripted"}}))
            .unwrap_or_default(),
    )
}

fn ok_json(value: Value) -> (&'static str, &'static str, Vec<u8>) {
    (
        "200 OK",
        "application/json",
        serde_json::to_vec(&value).unwrap_or_default(),
    )
}

/// What the provider's reply is.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Text(String),
    /// A call of the named tool with this input.
    Call(String, Value),
}

/// A conversation reduced to what the directives need: the newest directive with how many
/// answers to calls came after it, and whether the newest input answers a call.
#[derive(Debug, Default)]
pub struct Conversation {
    directive: Option<(Vec<(String, Value)>, usize)>,
    answers_a_call: bool,
    /// The client asks for a summary of the conversation (a compaction).
    summary_asked: bool,
}

/// The words a client's compaction request ends its conversation with.
pub const SUMMARY_ASKED: &str = "Respond with TEXT ONLY";

impl Conversation {
    fn text(&mut self, text: &str) {
        if text.contains(SUMMARY_ASKED) {
            self.summary_asked = true;
        }
        let Some(at) = text.find("#steps ") else {
            return;
        };
        let mut stream =
            serde_json::Deserializer::from_str(&text[at + 7..]).into_iter::<Vec<(String, Value)>>();
        if let Some(Ok(steps)) = stream.next() {
            self.directive = Some((steps, 0));
        }
    }

    fn answer(&mut self) {
        if let Some((_, answered)) = self.directive.as_mut() {
            *answered += 1;
        }
        self.answers_a_call = true;
    }
}

impl Conversation {
    pub fn messages(body: &Value) -> Conversation {
        let mut conversation = Conversation::default();
        for message in body
            .get("messages")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if message.get("role").and_then(Value::as_str) != Some("user") {
                continue;
            }
            let blocks: Vec<Value> = match message.get("content") {
                Some(Value::String(text)) => vec![json!({"type": "text", "text": text})],
                Some(Value::Array(blocks)) => blocks.clone(),
                _ => Vec::new(),
            };
            conversation.answers_a_call = false;
            for block in &blocks {
                if let Some(text) = block.get("text").and_then(Value::as_str) {
                    conversation.text(text);
                }
            }
            if blocks
                .iter()
                .any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
            {
                conversation.answer();
            }
        }
        conversation
    }

    fn responses(body: &Value) -> Conversation {
        let mut conversation = Conversation::default();
        for item in body
            .get("input")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let kind = item
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("message");
            match kind {
                "message" if item.get("role").and_then(Value::as_str) == Some("user") => {
                    conversation.answers_a_call = false;
                    match item.get("content") {
                        Some(Value::String(text)) => conversation.text(text),
                        Some(Value::Array(parts)) => {
                            for text in parts.iter().filter_map(|p| p.get("text")) {
                                conversation.text(text.as_str().unwrap_or(""));
                            }
                        }
                        _ => {}
                    }
                }
                "function_call_output" | "custom_tool_call_output" => conversation.answer(),
                _ => {}
            }
        }
        conversation
    }
}

/// The reply the directives ask for: the step after as many as were answered, else a text.
pub fn next_reply(conversation: &Conversation) -> Reply {
    if conversation.summary_asked {
        return Reply::Text(
            "<analysis>Scripted.</analysis>\n<summary>The user ran scripted steps.</summary>"
                .to_string(),
        );
    }
    match &conversation.directive {
        Some((steps, answered)) if *answered < steps.len() => {
            let (tool, input) = steps[*answered].clone();
            Reply::Call(tool, input)
        }
        Some(_) => Reply::Text("Done: every step ran.".to_string()),
        None if conversation.answers_a_call => Reply::Text("Done.".to_string()),
        None => Reply::Text("Scripted answer.".to_string()),
    }
}

fn sse(out: &mut Vec<u8>, event: &str, data: &Value) {
    out.extend_from_slice(format!("event: {event}\ndata: {data}\n\n").as_bytes());
}

fn anthropic_usage(request_bytes: usize, output: usize) -> Value {
    json!({
        "input_tokens": request_bytes / 4,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": output,
    })
}

fn anthropic_stream(id: &str, model: &str, reply: &Reply, request_bytes: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut usage = anthropic_usage(request_bytes, 1);
    sse(
        &mut out,
        "message_start",
        &json!({"type": "message_start", "message": {
            "id": id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage,
        }}),
    );
    let stop = match reply {
        Reply::Text(text) => {
            sse(
                &mut out,
                "content_block_start",
                &json!({"type": "content_block_start", "index": 0,
                        "content_block": {"type": "text", "text": ""}}),
            );
            sse(
                &mut out,
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": 0,
                        "delta": {"type": "text_delta", "text": text}}),
            );
            "end_turn"
        }
        Reply::Call(name, input) => {
            sse(
                &mut out,
                "content_block_start",
                &json!({"type": "content_block_start", "index": 0,
                        "content_block": {"type": "tool_use", "id": format!("toolu_{id}"),
                                          "name": name, "input": {}}}),
            );
            sse(
                &mut out,
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": 0,
                        "delta": {"type": "input_json_delta", "partial_json": input.to_string()}}),
            );
            "tool_use"
        }
    };
    sse(
        &mut out,
        "content_block_stop",
        &json!({"type": "content_block_stop", "index": 0}),
    );
    usage["output_tokens"] = json!(8);
    sse(
        &mut out,
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
                "usage": {"output_tokens": 8}}),
    );
    sse(&mut out, "message_stop", &json!({"type": "message_stop"}));
    out
}

fn anthropic_message(id: &str, model: &str, reply: &Reply, request_bytes: usize) -> Value {
    let (content, stop) = match reply {
        Reply::Text(text) => (json!([{"type": "text", "text": text}]), "end_turn"),
        Reply::Call(name, input) => (
            json!([{"type": "tool_use", "id": format!("toolu_{id}"), "name": name, "input": input}]),
            "tool_use",
        ),
    };
    json!({
        "id": id, "type": "message", "role": "assistant", "model": model, "content": content,
        "stop_reason": stop, "stop_sequence": null, "usage": anthropic_usage(request_bytes, 8),
    })
}

fn responses_stream(id: &str, model: &str, reply: &Reply, request_bytes: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let item = match reply {
        Reply::Text(text) => json!({
            "type": "message", "id": format!("msg_{id}"), "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }),
        Reply::Call(name, input) => json!({
            "type": "function_call", "id": format!("fc_{id}"), "call_id": format!("call_{id}"),
            "name": name, "arguments": input.to_string(), "status": "completed",
        }),
    };
    let response = |status: &str, output: Value| {
        json!({
            "id": id, "object": "response", "status": status, "model": model, "output": output,
            "usage": {
                "input_tokens": request_bytes / 4,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 8,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": request_bytes / 4 + 8,
            },
        })
    };
    sse(
        &mut out,
        "response.created",
        &json!({"type": "response.created", "response": response("in_progress", json!([]))}),
    );
    sse(
        &mut out,
        "response.output_item.added",
        &json!({"type": "response.output_item.added", "output_index": 0, "item": item}),
    );
    if let Reply::Text(text) = reply {
        sse(
            &mut out,
            "response.output_text.delta",
            &json!({"type": "response.output_text.delta", "output_index": 0,
                    "content_index": 0, "item_id": format!("msg_{id}"), "delta": text}),
        );
    }
    sse(
        &mut out,
        "response.output_item.done",
        &json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
    );
    sse(
        &mut out,
        "response.completed",
        &json!({"type": "response.completed", "response": response("completed", json!([item]))}),
    );
    out
}
