//! Reading a remote stream: one connection at a time over SSE, NDJSON or WebSocket, resuming
//! after the last received offset with capped exponential backoff and jitter, while the
//! recorder lands what arrives and the status board says where things stand. A POSTed run (an
//! AG-UI endpoint) is one request whose answer ends with the run: it is never sent again.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{Stream, StreamExt};
use tokio::sync::watch;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::{HeaderName, HeaderValue};
use tokio_tungstenite::tungstenite::{self, Message};

use journalscope_shapes::source;
use journalscope_store::store::Store;

use super::observation::{self, Arrivals, DatalessFrame, Observation};
use super::recorder::StreamRecorder;
use super::target::{StreamTarget, Transport};
use super::tls;
use super::update::{TailStatus, TailUpdate};
use super::{Command, Notify, StartAt, TailError, TailOptions, TailSummary};

/// How often the status is reported while events arrive (and once more after they stop).
const REPORT_EVERY: Duration = Duration::from_secs(1);

/// A Last-Event-ID or frame larger than this is not a resume position but a broken server.
const MAX_BUFFER: usize = 64 * 1024 * 1024;

/// Runs a remote tail to its end on a runtime of its own, so callers need none. With `post`,
/// that body is POSTed once and the answer read to its end.
pub(crate) fn run(
    target: StreamTarget,
    post: Option<Vec<u8>>,
    options: TailOptions,
    store: Store,
    commands: watch::Receiver<Command>,
    notify: Notify,
) -> Result<TailSummary, TailError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(TailError::Runtime)?;
    let transport = if target.is_websocket() {
        Transport::WebSocket
    } else {
        Transport::Sse
    };
    let recorder = StreamRecorder::open(store, target.public_url(), transport, options.stop_after)?;
    let mut board = Board::new(notify);
    let result = runtime.block_on(follow(
        &target,
        post.as_deref(),
        &options,
        recorder,
        commands,
        &mut board,
    ));
    if let Err(err) = &result {
        board.set(TailStatus::Failed {
            reason: err.to_string(),
        });
    }
    result
}

/// Status as the watcher sees it: the connection's state, unless paused.
pub(crate) struct Board {
    notify: Notify,
    connection: TailStatus,
    paused: bool,
    /// Events landed when the pause began.
    paused_at: u64,
    behind: u64,
    shown: Option<TailStatus>,
    shown_at: Instant,
    landings: VecDeque<Instant>,
}

impl Board {
    pub(crate) fn new(notify: Notify) -> Board {
        Board {
            notify,
            connection: TailStatus::Connecting { attempt: 0 },
            paused: false,
            paused_at: 0,
            behind: 0,
            shown: None,
            shown_at: Instant::now(),
            landings: VecDeque::new(),
        }
    }

    pub(crate) fn emit(&mut self, update: TailUpdate) {
        if matches!(update, TailUpdate::Event { .. }) {
            let now = Instant::now();
            self.landings.push_back(now);
        }
        (self.notify)(update);
    }

    pub(crate) fn events_per_second(&mut self) -> f64 {
        let now = Instant::now();
        while self
            .landings
            .front()
            .is_some_and(|t| now.duration_since(*t) > Duration::from_secs(1))
        {
            self.landings.pop_front();
        }
        self.landings.len() as f64
    }

    pub(crate) fn set(&mut self, status: TailStatus) {
        self.connection = status;
        self.publish();
    }

    /// Pausing freezes what the watcher shows, never what is stored: `landed` is how many
    /// events the tail has stored so far.
    pub(crate) fn set_paused(&mut self, paused: bool, landed: u64) {
        if paused && !self.paused {
            self.paused_at = landed;
        }
        self.paused = paused;
        self.behind = if paused {
            landed.saturating_sub(self.paused_at)
        } else {
            0
        };
        self.publish();
    }

    /// Shows the current status when it is a new state, or when a count or rate changed and
    /// the last report is a second old (so a fast stream does not flood the watcher).
    pub(crate) fn publish(&mut self) {
        let effective = match &self.connection {
            TailStatus::Failed { .. } | TailStatus::Stopped { .. } => self.connection.clone(),
            _ if self.paused => TailStatus::Paused {
                behind: self.behind,
            },
            other => other.clone(),
        };
        let show = match &self.shown {
            None => true,
            Some(shown) if !shown.same_state(&effective) => true,
            Some(shown) => {
                *shown != effective
                    && (self.shown_at.elapsed() >= REPORT_EVERY
                        || !matches!(
                            effective,
                            TailStatus::Live { .. } | TailStatus::Paused { .. }
                        ))
            }
        };
        if show {
            self.shown = Some(effective.clone());
            self.shown_at = Instant::now();
            (self.notify)(TailUpdate::Status { status: effective });
        }
    }
}

/// What one read from the wire produced.
#[derive(Default)]
struct Frames {
    events: Vec<Vec<u8>>,
    /// SSE frames that dispatched nothing (an `id:` or `event:` without `data:`).
    dataless: Vec<DatalessFrame>,
    last_id: Option<String>,
    retry: Option<Duration>,
}

type Body = Pin<Box<dyn Stream<Item = reqwest::Result<Vec<u8>>> + Send>>;

enum Wire {
    Http {
        body: Body,
        transport: Transport,
        buffer: Vec<u8>,
    },
    WebSocket(
        Box<
            tokio_tungstenite::WebSocketStream<
                tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
            >,
        >,
    ),
}

/// Why an attempt did not connect, and whether trying again can help.
struct Refusal {
    reason: String,
    permanent: bool,
}

impl Refusal {
    fn transient(reason: impl Into<String>) -> Refusal {
        Refusal {
            reason: reason.into(),
            permanent: false,
        }
    }

    fn permanent(reason: impl Into<String>) -> Refusal {
        Refusal {
            reason: reason.into(),
            permanent: true,
        }
    }

    fn from_status(status: u16) -> Refusal {
        // A client error other than a timeout or rate limit will answer the same next time.
        let reason = format!("the server answered HTTP {status}");
        if (400..500).contains(&status) && ![408, 425, 429].contains(&status) {
            Refusal::permanent(reason)
        } else {
            Refusal::transient(reason)
        }
    }
}

/// A failed attempt: a certificate that does not verify will not verify next time either, and
/// says so in one line; anything else may be the network and is tried again.
fn refusal_of(err: &(dyn std::error::Error + 'static), host: &str, described: String) -> Refusal {
    match tls::refusal_reason(err, host) {
        Some(reason) => Refusal::permanent(reason),
        None => Refusal::transient(described),
    }
}

/// An error's message and causes, without the URL (which may carry credentials).
fn describe_http(err: reqwest::Error) -> String {
    describe_http_ref(&err.without_url())
}

fn describe_http_ref(err: &reqwest::Error) -> String {
    let mut text = err.to_string();
    let mut cause = std::error::Error::source(err);
    while let Some(inner) = cause {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        cause = inner.source();
    }
    text
}

fn transport_of(content_type: &str) -> Option<Transport> {
    match observation::essence(content_type).as_str() {
        "text/event-stream" => Some(Transport::Sse),
        "application/x-ndjson"
        | "application/ndjson"
        | "application/jsonl"
        | "application/x-jsonlines"
        | "application/stream+json"
        | "application/json"
        | "text/plain" => Some(Transport::Ndjson),
        _ => None,
    }
}

/// How to read a response with this content type from an endpoint that should serve
/// `expected`, and what to say about the type; `None` for a web page, which no reading turns
/// into a stream.
fn reading_of(content_type: &str, expected: Transport) -> Option<(Transport, Option<Observation>)> {
    let essence = observation::essence(content_type);
    let read_as = match transport_of(content_type) {
        Some(transport) => transport,
        None if essence.contains("html") || essence.contains("xml") => return None,
        // No type, or one that says nothing about framing: read it as the endpoint should be.
        None => expected,
    };
    Some((
        read_as,
        observation::content_type(content_type, expected, read_as),
    ))
}

async fn connect(
    client: &reqwest::Client,
    tls: &Arc<rustls::ClientConfig>,
    target: &StreamTarget,
    post: Option<&[u8]>,
    offset: Option<&str>,
    last_event_id: Option<&str>,
) -> Result<(Wire, Option<Observation>), Refusal> {
    let url = match post {
        Some(_) => target.post_url(),
        None => target.request_url(offset),
    };
    let host = url.host_str().unwrap_or("the server").to_string();
    if target.is_websocket() {
        let mut request = url
            .as_str()
            .into_client_request()
            .map_err(|err| Refusal::permanent(format!("not a WebSocket request: {err}")))?;
        for header in target.headers() {
            let name = HeaderName::from_bytes(header.name.as_bytes())
                .map_err(|_| Refusal::permanent(format!("bad header name {}", header.name)))?;
            let value = HeaderValue::from_str(header.value())
                .map_err(|_| Refusal::permanent(format!("bad value for header {}", header.name)))?;
            request.headers_mut().append(name, value);
        }
        let connector = tokio_tungstenite::Connector::Rustls(Arc::clone(tls));
        return match tokio_tungstenite::connect_async_tls_with_config(
            request,
            None,
            false,
            Some(connector),
        )
        .await
        {
            Ok((stream, _)) => Ok((Wire::WebSocket(Box::new(stream)), None)),
            Err(tungstenite::Error::Http(response)) => {
                Err(Refusal::from_status(response.status().as_u16()))
            }
            Err(err) => Err(refusal_of(&err, &host, err.to_string())),
        };
    }
    let mut request = match post {
        Some(body) => client
            .post(url)
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_vec()),
        None => client.get(url).header(
            reqwest::header::ACCEPT,
            "text/event-stream, application/x-ndjson;q=0.9, application/json;q=0.5",
        ),
    };
    for header in target.headers() {
        request = request.header(header.name.as_str(), header.value());
    }
    if let Some(id) = last_event_id {
        request = request.header("Last-Event-ID", id);
    }
    let response = request.send().await.map_err(|err| {
        let err = err.without_url();
        let described = describe_http_ref(&err);
        refusal_of(&err, &host, described)
    })?;
    let status = response.status();
    if !status.is_success() {
        return Err(Refusal::from_status(status.as_u16()));
    }
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let expected = match post {
        Some(_) => Transport::Sse,
        None => target.expected_transport(),
    };
    let Some((transport, note)) = reading_of(&content_type, expected) else {
        return Err(Refusal::permanent(format!(
            "the server sent {content_type:?}, a web page rather than text/event-stream or application/x-ndjson"
        )));
    };
    let wire = Wire::Http {
        body: Box::pin(
            response
                .bytes_stream()
                .map(|chunk| chunk.map(|b| b.to_vec())),
        ),
        transport,
        buffer: Vec::new(),
    };
    Ok((wire, note))
}

impl Wire {
    fn transport(&self) -> Transport {
        match self {
            Wire::Http { transport, .. } => *transport,
            Wire::WebSocket(_) => Transport::WebSocket,
        }
    }

    /// The next events; `Ok(None)` when the server ended the stream. A frame cut short by a
    /// disconnect is never returned: it stays in the buffer that dies with the connection.
    async fn next(&mut self) -> Result<Option<Frames>, String> {
        match self {
            Wire::Http {
                body,
                transport,
                buffer,
            } => {
                let Some(chunk) = body.next().await else {
                    return Ok(None);
                };
                let chunk = chunk.map_err(describe_http)?;
                buffer.extend_from_slice(&chunk);
                if buffer.len() > MAX_BUFFER {
                    return Err("a frame larger than 64 MiB: giving up on this connection".into());
                }
                Ok(Some(match transport {
                    Transport::Sse => sse_events(buffer),
                    _ => ndjson_events(buffer),
                }))
            }
            Wire::WebSocket(stream) => match stream.next().await {
                None | Some(Ok(Message::Close(_))) => Ok(None),
                Some(Err(err)) => Err(err.to_string()),
                Some(Ok(Message::Text(text))) => Ok(Some(Frames {
                    events: vec![text.as_bytes().to_vec()],
                    ..Frames::default()
                })),
                // Pings are answered by the library and binary frames are not events here, but
                // both show the connection is alive.
                Some(Ok(_)) => Ok(Some(Frames::default())),
            },
        }
    }
}

fn sse_events(buffer: &mut Vec<u8>) -> Frames {
    let (frames, consumed, _) = source::sse_frames(buffer, false);
    buffer.drain(..consumed);
    let mut out = Frames::default();
    for frame in frames {
        if frame.id.is_some() {
            out.last_id.clone_from(&frame.id);
        }
        if let Some(ms) = frame.retry {
            out.retry = Some(Duration::from_millis(ms));
        }
        if !frame.has_data {
            out.dataless.push(DatalessFrame {
                event: frame.event,
                id: frame.id,
            });
        } else if !frame.data.trim().is_empty() {
            out.events.push(frame.data.into_bytes());
        }
    }
    out
}

fn ndjson_events(buffer: &mut Vec<u8>) -> Frames {
    let mut out = Frames::default();
    let Some(last_newline) = buffer.iter().rposition(|b| *b == b'\n') else {
        return out;
    };
    for line in buffer[..last_newline].split(|b| *b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if !line.iter().all(u8::is_ascii_whitespace) {
            out.events.push(line.to_vec());
        }
    }
    buffer.drain(..=last_newline);
    out
}

/// What a tail does next after handling a command.
fn apply(
    command: Command,
    recorder: &mut StreamRecorder,
    board: &mut Board,
) -> Result<bool, TailError> {
    match command {
        Command::Stop => return Ok(true),
        Command::Pause => board.set_paused(true, recorder.landed()),
        Command::Run => board.set_paused(false, recorder.landed()),
    }
    Ok(false)
}

fn land(recorder: &mut StreamRecorder, board: &mut Board) -> Result<(), TailError> {
    let mut updates = Vec::new();
    recorder.flush(&mut updates)?;
    for update in updates {
        board.emit(update);
    }
    recorder.analyse(false)?;
    if board.paused {
        board.set_paused(true, recorder.landed());
    }
    if let TailStatus::Live { .. } = board.connection {
        let rate = board.events_per_second();
        board.set(TailStatus::Live {
            events_per_second: rate,
            events: recorder.landed(),
        });
    }
    Ok(())
}

fn far_future() -> tokio::time::Instant {
    tokio::time::Instant::now() + Duration::from_secs(86_400)
}

/// Waits for the next command; a dropped handle means stop.
async fn next_command(commands: &mut watch::Receiver<Command>) -> Command {
    match commands.changed().await {
        Ok(()) => *commands.borrow_and_update(),
        Err(_) => Command::Stop,
    }
}

async fn follow(
    target: &StreamTarget,
    post: Option<&[u8]>,
    options: &TailOptions,
    mut recorder: StreamRecorder,
    mut commands: watch::Receiver<Command>,
    board: &mut Board,
) -> Result<TailSummary, TailError> {
    let tls = tls::client_config(&options.ca_files)?;
    let client = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .tls_backend_preconfigured(rustls::ClientConfig::clone(&tls))
        .build()
        .map_err(|err| TailError::Failed(describe_http(err)))?;
    let first_offset: Option<String> = match options.start {
        StartAt::Stored => recorder.last_offset().map(|o| o.to_string()),
        StartAt::Oldest => None,
        StartAt::Latest => Some("latest".to_string()),
        StartAt::Offset(n) => Some(n.to_string()),
    };
    let mut attempt: u32 = 0;
    let mut connected_once = false;
    let mut last_event_id: Option<String> = None;
    let mut server_retry: Option<Duration> = None;
    let initial = *commands.borrow_and_update();
    let mut stopping = initial == Command::Stop;
    if initial == Command::Pause {
        board.set_paused(true, 0);
    }
    while !stopping {
        board.set(TailStatus::Connecting { attempt });
        let offset = match recorder.last_offset() {
            Some(last) if connected_once || options.start == StartAt::Stored => {
                Some(last.to_string())
            }
            _ => first_offset.clone(),
        };
        let requested_at = Instant::now();
        let connecting = connect(
            &client,
            &tls,
            target,
            post,
            offset.as_deref(),
            last_event_id.as_deref(),
        );
        let outcome = tokio::select! {
            outcome = connecting => Some(outcome),
            command = next_command(&mut commands) => {
                stopping = apply(command, &mut recorder, board)?;
                None
            }
        };
        let mut ended = false;
        let mut arrivals: Option<Arrivals> = None;
        let reason = match outcome {
            None => continue,
            Some(Err(refusal)) if refusal.permanent => {
                return fail(&mut recorder, board, target.scrub(&refusal.reason));
            }
            // Sending a run again would start another run: the user decides that, not a retry.
            Some(Err(refusal)) if post.is_some() => {
                let reason = target.scrub(&refusal.reason);
                return fail(
                    &mut recorder,
                    board,
                    format!("the run was not started: {reason} (a run is never POSTed again on its own)"),
                );
            }
            Some(Err(refusal)) => refusal.reason,
            Some(Ok((mut wire, note))) => {
                connected_once = true;
                recorder.set_transport(wire.transport());
                if let Some(note) = note {
                    recorder.observe(note);
                }
                let arrived = arrivals.insert(Arrivals::new(
                    options.keep_alive,
                    requested_at,
                    Instant::now(),
                ));
                let rate = board.events_per_second();
                board.set(TailStatus::Live {
                    events_per_second: rate,
                    events: recorder.landed(),
                });
                let mut flush_at: Option<tokio::time::Instant> = None;
                // The status is reported at most once a second; this tick reports what the last
                // burst left unsaid (its count, a rate that fell to zero, the events a paused
                // view lacks) when nothing else arrives to carry it.
                let mut report_at = tokio::time::Instant::now() + REPORT_EVERY;
                loop {
                    let analysis_at = recorder
                        .analysis_deadline()
                        .map(tokio::time::Instant::from_std);
                    tokio::select! {
                        _ = tokio::time::sleep_until(report_at) => {
                            report_at = tokio::time::Instant::now() + REPORT_EVERY;
                            land(&mut recorder, board)?;
                        }
                        command = next_command(&mut commands) => {
                            stopping = apply(command, &mut recorder, board)?;
                            if stopping {
                                break String::new();
                            }
                        }
                        _ = tokio::time::sleep_until(flush_at.unwrap_or_else(far_future)),
                            if flush_at.is_some() => {
                            flush_at = None;
                            land(&mut recorder, board)?;
                        }
                        _ = tokio::time::sleep_until(analysis_at.unwrap_or_else(far_future)),
                            if analysis_at.is_some() => {
                            recorder.analyse(false)?;
                        }
                        read = wire.next() => match read {
                            Ok(Some(frames)) => {
                                if !frames.events.is_empty() {
                                    attempt = 0;
                                }
                                let seen = arrived.arrived(
                                    Instant::now(),
                                    frames.events.len() as u64,
                                    &frames.dataless,
                                );
                                for observation in seen {
                                    recorder.observe(observation);
                                }
                                for event in frames.events {
                                    recorder.receive(event)?;
                                }
                                if frames.last_id.is_some() {
                                    last_event_id = frames.last_id;
                                }
                                if frames.retry.is_some() {
                                    server_retry = frames.retry;
                                }
                                if recorder.has_pending() && flush_at.is_none() {
                                    flush_at = Some(tokio::time::Instant::now() + options.flush_interval);
                                }
                                if recorder.satisfied() {
                                    stopping = true;
                                    break String::new();
                                }
                            }
                            Ok(None) => {
                                ended = true;
                                break "the server ended the stream".to_string();
                            }
                            Err(err) => break err,
                        }
                    }
                }
            }
        };
        if stopping {
            break;
        }
        // What arrived before the end is complete and lands now, so that what the journal is
        // in the middle of is known.
        land(&mut recorder, board)?;
        // Only a connection that was made can drop: a failed attempt to reconnect says nothing
        // new about the run.
        if let Some(mut arrived) = arrivals {
            for observation in arrived.ended(Instant::now(), ended) {
                recorder.observe(observation);
            }
            if let Some(unfinished) = recorder.unfinished()? {
                let cut = (!ended).then(|| target.scrub(&reason));
                recorder.observe(observation::dropped_during(
                    &unfinished,
                    cut.as_deref(),
                    post.is_none(),
                ));
            }
            land(&mut recorder, board)?;
        }
        if post.is_some() {
            // The answer to a run ends with the run.
            if ended {
                break;
            }
            let reason = target.scrub(&reason);
            let landed = recorder.landed() + recorder.buffered();
            return fail(
                &mut recorder,
                board,
                format!(
                    "the connection dropped during the run after {landed} events: {reason} (a run is never POSTed again on its own)"
                ),
            );
        }
        // Library messages can quote the request (tungstenite's "Unable to connect to <uri>"):
        // nothing leaves for the status, the store or the screen with a credential in it.
        let reason = target.scrub(&reason);
        attempt += 1;
        if options
            .backoff
            .max_attempts
            .is_some_and(|max| attempt > max)
        {
            return fail(
                &mut recorder,
                board,
                format!("gave up after {} attempts: {reason}", attempt - 1),
            );
        }
        let delay = options.backoff.delay(attempt, server_retry);
        board.set(TailStatus::Reconnecting {
            in_ms: delay.as_millis() as u64,
            attempt,
            reason,
        });
        let waiting = tokio::time::sleep(delay);
        tokio::pin!(waiting);
        loop {
            tokio::select! {
                _ = &mut waiting => break,
                command = next_command(&mut commands) => {
                    stopping = apply(command, &mut recorder, board)?;
                    if stopping {
                        break;
                    }
                }
            }
        }
    }
    land(&mut recorder, board)?;
    recorder.analyse(true)?;
    recorder.set_status("stopped")?;
    board.set(TailStatus::Stopped {
        events: recorder.landed(),
    });
    Ok(TailSummary {
        events: recorder.landed(),
        duplicates: recorder.duplicates(),
    })
}

fn fail(
    recorder: &mut StreamRecorder,
    board: &mut Board,
    reason: String,
) -> Result<TailSummary, TailError> {
    land(recorder, board)?;
    recorder.analyse(true)?;
    recorder.set_status(&format!("failed: {reason}"))?;
    Err(TailError::Failed(reason))
}

#[cfg(test)]
mod tests;
