//! A stream server for tests and demos: serves a JSONL journal over Server-Sent Events, NDJSON
//! (chunked HTTP) and WebSocket on 127.0.0.1, honouring `?offset=` (inclusive), `Last-Event-ID`
//! (exclusive) and `?offset=latest`, and, when asked, refusing connections, pausing, and
//! cutting connections at random byte positions (mid-frame and mid-chunk included). HTTP and
//! WebSocket framing are written by hand so that a cut can fall anywhere on the wire. With a
//! `TestCa`, the same server speaks TLS (`https://`, `wss://`) under a certificate it signed.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use journalscope_gen::Rng;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;

/// Which faults a server injects. All randomness comes from `seed`, per connection.
#[derive(Debug, Clone)]
pub struct Faults {
    pub seed: u64,
    /// Connections cut on purpose, at most.
    pub max_cuts: u64,
    /// A cut falls uniformly within this many body bytes of the connection's start.
    pub cut_within: usize,
    /// Every n-th connection is answered 503 (0: never).
    pub refuse_every: u64,
    /// Longest pause between two writes, in milliseconds (0: no pauses).
    pub pause_ms: u64,
}

impl Faults {
    pub fn none() -> Faults {
        Faults {
            seed: 0,
            max_cuts: 0,
            cut_within: 0,
            refuse_every: 0,
            pause_ms: 0,
        }
    }

    pub fn harsh(seed: u64) -> Faults {
        Faults {
            seed,
            max_cuts: 40,
            cut_within: 1500,
            refuse_every: 9,
            pause_ms: 15,
        }
    }
}

/// Header a request must carry, else 401.
#[derive(Debug, Clone)]
pub struct Required {
    pub name: String,
    pub value: String,
}

struct Shared {
    events: Vec<(i64, String)>,
    faults: Faults,
    required: Option<Required>,
    connections: AtomicU64,
    cuts: AtomicU64,
    refusals: AtomicU64,
}

pub struct StreamServer {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    runtime: ServerRuntime,
    tls: bool,
}

/// A certificate authority made for one test run, and the server certificates it signs.
pub struct TestCa {
    issuer: rcgen::CertifiedIssuer<'static, rcgen::KeyPair>,
}

/// How the server certificate a `TestCa` signs is wrong, if it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Certificate {
    /// For localhost and 127.0.0.1, valid now.
    Good,
    /// For localhost and 127.0.0.1, expired a year ago.
    Expired,
    /// Valid now, for another host only.
    OtherName,
}

impl TestCa {
    pub fn new() -> TestCa {
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("CA params");
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "Journalscope test CA");
        params.key_usages = vec![
            rcgen::KeyUsagePurpose::KeyCertSign,
            rcgen::KeyUsagePurpose::CrlSign,
            rcgen::KeyUsagePurpose::DigitalSignature,
        ];
        let key = rcgen::KeyPair::generate().expect("CA key");
        TestCa {
            issuer: rcgen::CertifiedIssuer::self_signed(params, key).expect("CA certificate"),
        }
    }

    /// The CA certificate, as `--cacert` reads it.
    pub fn pem(&self) -> String {
        self.issuer.pem()
    }

    pub fn write_pem(&self, path: &std::path::Path) {
        std::fs::write(path, self.pem()).expect("write the CA certificate");
    }

    /// A TLS server configuration under a certificate this CA signed.
    pub fn server_config(&self, kind: Certificate) -> Arc<rustls::ServerConfig> {
        let names = match kind {
            Certificate::OtherName => vec!["streams.example".to_string()],
            _ => vec!["localhost".to_string(), "127.0.0.1".to_string()],
        };
        let mut params = rcgen::CertificateParams::new(names).expect("server params");
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "test stream server");
        if kind == Certificate::Expired {
            params.not_before = rcgen::date_time_ymd(2020, 1, 1);
            params.not_after = rcgen::date_time_ymd(2021, 1, 1);
        }
        let key = rcgen::KeyPair::generate().expect("server key");
        let cert = params
            .signed_by(&key, &self.issuer)
            .expect("server certificate");
        let chain = vec![cert.der().clone(), self.issuer.der().clone()];
        let private = rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into());
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("protocol versions")
            .with_no_client_auth()
            .with_single_cert(chain, private)
            .expect("server identity");
        Arc::new(config)
    }
}

impl Default for TestCa {
    fn default() -> TestCa {
        TestCa::new()
    }
}

/// Reads a JSONL journal into (offset, line) pairs.
pub fn load_journal(path: &std::path::Path) -> io::Result<Vec<(i64, String)>> {
    let text = std::fs::read_to_string(path)?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
            let offset = value
                .get("offset")
                .and_then(serde_json::Value::as_i64)
                .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "no offset"))?;
            Ok((offset, line.to_string()))
        })
        .collect()
}

impl StreamServer {
    /// Listens on 127.0.0.1:`port` (0 picks a free port) on a runtime of its own.
    pub fn start(
        events: Vec<(i64, String)>,
        faults: Faults,
        required: Option<Required>,
        port: u16,
    ) -> io::Result<StreamServer> {
        StreamServer::start_with(events, faults, required, port, None)
    }

    /// `start`, speaking TLS under `tls` (from `TestCa::server_config`).
    pub fn start_tls(
        events: Vec<(i64, String)>,
        faults: Faults,
        port: u16,
        tls: Arc<rustls::ServerConfig>,
    ) -> io::Result<StreamServer> {
        StreamServer::start_with(events, faults, None, port, Some(tls))
    }

    fn start_with(
        events: Vec<(i64, String)>,
        faults: Faults,
        required: Option<Required>,
        port: u16,
        tls: Option<Arc<rustls::ServerConfig>>,
    ) -> io::Result<StreamServer> {
        let runtime = ServerRuntime::new()?;
        let listener = runtime.block_on(bind(port))?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            events,
            faults,
            required,
            connections: AtomicU64::new(0),
            cuts: AtomicU64::new(0),
            refusals: AtomicU64::new(0),
        });
        let accepting = Arc::clone(&shared);
        let secure = tls.is_some();
        let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
        runtime.spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let shared = Arc::clone(&accepting);
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    match acceptor {
                        // A client that refuses the certificate ends here, before a request.
                        Some(acceptor) => {
                            if let Ok(stream) = acceptor.accept(socket).await {
                                let number = shared.connections.fetch_add(1, Ordering::SeqCst);
                                let _ = serve(stream, shared, number).await;
                            }
                        }
                        None => {
                            let number = shared.connections.fetch_add(1, Ordering::SeqCst);
                            let _ = serve(socket, shared, number).await;
                        }
                    }
                });
            }
        });
        Ok(StreamServer {
            addr,
            shared,
            runtime,
            tls: secure,
        })
    }

    pub fn url(&self, path: &str) -> String {
        let scheme = match (path.starts_with("/ws"), self.tls) {
            (true, false) => "ws",
            (true, true) => "wss",
            (false, false) => "http",
            (false, true) => "https",
        };
        format!("{scheme}://{}{path}", self.addr)
    }

    pub fn cuts(&self) -> u64 {
        self.shared.cuts.load(Ordering::SeqCst)
    }

    pub fn refusals(&self) -> u64 {
        self.shared.refusals.load(Ordering::SeqCst)
    }

    pub fn connections(&self) -> u64 {
        self.shared.connections.load(Ordering::SeqCst)
    }
}

/// A test server's own runtime, one worker thread, shut down without waiting when the server
/// is dropped.
struct ServerRuntime(Option<tokio::runtime::Runtime>);

impl ServerRuntime {
    fn new() -> io::Result<ServerRuntime> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()?;
        Ok(ServerRuntime(Some(runtime)))
    }

    fn block_on<F: std::future::Future>(&self, future: F) -> F::Output {
        match &self.0 {
            Some(runtime) => runtime.block_on(future),
            None => unreachable!("the runtime lives until the server is dropped"),
        }
    }

    fn spawn<F>(&self, future: F)
    where
        F: std::future::Future + Send + 'static,
        F::Output: Send + 'static,
    {
        if let Some(runtime) = &self.0 {
            runtime.spawn(future);
        }
    }
}

impl Drop for ServerRuntime {
    fn drop(&mut self) {
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}

/// The value of header `name` in an HTTP request head.
fn header_in(head: &str, name: &str) -> Option<String> {
    head.lines().skip(1).find_map(|line| {
        let (n, v) = line.split_once(':')?;
        n.trim()
            .eq_ignore_ascii_case(name)
            .then(|| v.trim().to_string())
    })
}

/// Binds 127.0.0.1:`port`. A server restarted on its predecessor's port waits (up to 5 s) for
/// that predecessor's runtime to let go of the socket.
async fn bind(port: u16) -> io::Result<TcpListener> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        match TcpListener::bind(("127.0.0.1", port)).await {
            Err(err)
                if port != 0
                    && err.kind() == io::ErrorKind::AddrInUse
                    && tokio::time::Instant::now() < deadline =>
            {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            other => return other,
        }
    }
}

struct Request {
    path: String,
    query: HashMap<String, String>,
    headers: HashMap<String, String>,
}

async fn read_request<S: AsyncRead + Unpin>(socket: &mut S) -> io::Result<Request> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = tokio::time::timeout(Duration::from_secs(5), socket.read(&mut byte))
            .await
            .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "slow request"))??;
        if n == 0 || head.len() > 64 * 1024 {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "no request"));
        }
        head.extend_from_slice(&byte[..n]);
    }
    let text = String::from_utf8_lossy(&head).into_owned();
    let mut lines = text.split("\r\n");
    let target = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .unwrap_or("/")
        .to_string();
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    let query = query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Ok(Request {
        path: path.to_string(),
        query,
        headers,
    })
}

fn ws_frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
    let mut frame = vec![0x80 | opcode];
    match payload.len() {
        n if n < 126 => frame.push(n as u8),
        n if n < 65_536 => {
            frame.push(126);
            frame.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            frame.push(127);
            frame.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    frame.extend_from_slice(payload);
    frame
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Sse,
    Ndjson,
    Ws,
}

/// Wraps `data` for the wire: an HTTP chunk, or raw WebSocket frame bytes.
fn wire(kind: Kind, data: &[u8]) -> Vec<u8> {
    if kind == Kind::Ws {
        return data.to_vec();
    }
    let mut out = format!("{:x}\r\n", data.len()).into_bytes();
    out.extend_from_slice(data);
    out.extend_from_slice(b"\r\n");
    out
}

async fn serve<S: AsyncRead + AsyncWrite + Unpin>(
    mut socket: S,
    shared: Arc<Shared>,
    number: u64,
) -> io::Result<()> {
    let request = read_request(&mut socket).await?;
    let faults = &shared.faults;
    let mut rng = Rng::new(faults.seed ^ (number + 1).wrapping_mul(0x1000_0000_01B3));
    if faults.refuse_every > 0 && number % faults.refuse_every == faults.refuse_every - 1 {
        shared.refusals.fetch_add(1, Ordering::SeqCst);
        socket
            .write_all(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            .await?;
        return Ok(());
    }
    if let Some(required) = &shared.required {
        if request.headers.get(&required.name.to_ascii_lowercase()) != Some(&required.value) {
            socket
                .write_all(
                    b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                )
                .await?;
            return Ok(());
        }
    }
    let kind = match request.path.as_str() {
        "/sse" => Kind::Sse,
        "/ndjson" => Kind::Ndjson,
        "/ws" => Kind::Ws,
        _ => {
            socket
                .write_all(
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                )
                .await?;
            return Ok(());
        }
    };
    let events = &shared.events;
    let last_id = request
        .headers
        .get("last-event-id")
        .and_then(|v| v.parse::<i64>().ok());
    let start = match (
        kind,
        last_id,
        request.query.get("offset").map(String::as_str),
    ) {
        (Kind::Sse, Some(id), _) => events.partition_point(|(o, _)| *o <= id),
        (_, _, Some("latest")) => events.len(),
        (_, _, Some(n)) => match n.parse::<i64>() {
            Ok(n) => events.partition_point(|(o, _)| *o < n),
            Err(_) => 0,
        },
        _ => 0,
    };
    let wrap = request.query.get("wrap").cloned();
    let mut body = Vec::new();
    if kind == Kind::Sse {
        body.extend_from_slice(b": journal served for tests\n\n");
    }
    for (offset, line) in &events[start..] {
        let data = match &wrap {
            Some(id) => format!(r#"{{"streamId":"{id}","path":"/test","event":{line}}}"#),
            None => line.clone(),
        };
        match kind {
            Kind::Sse => body.extend_from_slice(
                format!("id: {offset}\nevent: message\ndata: {data}\n\n").as_bytes(),
            ),
            Kind::Ndjson => body.extend_from_slice(format!("{data}\n").as_bytes()),
            Kind::Ws => body.extend_from_slice(&ws_frame(0x1, data.as_bytes())),
        }
    }
    let head = match kind {
        Kind::Ws => {
            let key = request
                .headers
                .get("sec-websocket-key")
                .cloned()
                .unwrap_or_default();
            format!(
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {}\r\n\r\n",
                derive_accept_key(key.as_bytes())
            )
        }
        _ => format!(
            "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
            if kind == Kind::Sse { "text/event-stream" } else { "application/x-ndjson" }
        ),
    };
    socket.write_all(head.as_bytes()).await?;
    let cut = if faults.max_cuts > 0
        && shared
            .cuts
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |c| {
                (c < faults.max_cuts).then_some(c + 1)
            })
            .is_ok()
    {
        Some(rng.range(0, faults.cut_within.max(1) as u64) as usize)
    } else {
        None
    };
    let mut pos = 0usize;
    while pos < body.len() {
        let end = (pos + 1 + rng.range(0, 512) as usize).min(body.len());
        let piece = &body[pos..end];
        if let Some(cut) = cut.filter(|c| *c < end) {
            let framed = wire(kind, piece);
            // Cut inside this piece's bytes on the wire: a frame (and a chunk) left unfinished.
            let keep = (cut - pos.min(cut)).min(framed.len().saturating_sub(1));
            socket.write_all(&framed[..keep.max(1)]).await?;
            socket.flush().await?;
            return Ok(());
        }
        socket.write_all(&wire(kind, piece)).await?;
        pos = end;
        if faults.pause_ms > 0 && rng.range(0, 6) == 0 {
            tokio::time::sleep(Duration::from_millis(rng.range(0, faults.pause_ms))).await;
        }
    }
    socket.flush().await?;
    // Live: nothing new is ever written, so keep the connection open with heartbeats. A cut
    // drawn beyond the body falls here: the connection dies while idle.
    loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if cut.is_some() {
            return Ok(());
        }
        let beat = match kind {
            Kind::Sse => wire(kind, b": keepalive\n\n"),
            Kind::Ndjson => wire(kind, b"\n"),
            Kind::Ws => ws_frame(0x9, b""),
        };
        socket.write_all(&beat).await?;
    }
}

/// An AG-UI endpoint for tests: each POST of a run input (JSON, `Accept: text/event-stream`)
/// is answered with the next recorded run as Server-Sent Events, in chunked encoding, ending
/// when the run's events do. With `cut_after`, the answer stops after that many events in the
/// middle of the next one, without the end of the body, as a dropped connection does.
pub struct RunServer {
    pub addr: SocketAddr,
    posts: Arc<AtomicU64>,
    inputs: Arc<std::sync::Mutex<Vec<serde_json::Value>>>,
    runtime: ServerRuntime,
}

impl RunServer {
    pub fn start(
        runs: Vec<Vec<serde_json::Value>>,
        cut_after: Option<usize>,
    ) -> io::Result<RunServer> {
        let runtime = ServerRuntime::new()?;
        let listener = runtime.block_on(bind(0))?;
        let addr = listener.local_addr()?;
        let posts = Arc::new(AtomicU64::new(0));
        let inputs = Arc::new(std::sync::Mutex::new(Vec::new()));
        let runs = Arc::new(runs);
        let (counting, keeping) = (Arc::clone(&posts), Arc::clone(&inputs));
        runtime.spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let (runs, posts, inputs) = (
                    Arc::clone(&runs),
                    Arc::clone(&counting),
                    Arc::clone(&keeping),
                );
                tokio::spawn(async move {
                    let _ = answer_run(socket, &runs, &posts, &inputs, cut_after).await;
                });
            }
        });
        Ok(RunServer {
            addr,
            posts,
            inputs,
            runtime,
        })
    }

    pub fn url(&self) -> String {
        format!("http://{}/agent", self.addr)
    }

    /// Run inputs received, in order.
    pub fn inputs(&self) -> Vec<serde_json::Value> {
        self.inputs.lock().map(|i| i.clone()).unwrap_or_default()
    }

    pub fn posts(&self) -> u64 {
        self.posts.load(Ordering::SeqCst)
    }
}

async fn answer_run(
    mut socket: tokio::net::TcpStream,
    runs: &[Vec<serde_json::Value>],
    posts: &AtomicU64,
    inputs: &std::sync::Mutex<Vec<serde_json::Value>>,
    cut_after: Option<usize>,
) -> io::Result<()> {
    let mut received = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = received.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        received.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&received[..head_end]).into_owned();
    let header = |name: &str| header_in(&head, name);
    let length: usize = header("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while received.len() < head_end + length {
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        received.extend_from_slice(&chunk[..n]);
    }
    let refuse = |status: &str| {
        format!("HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    };
    if !head.starts_with("POST ") {
        return socket
            .write_all(refuse("405 Method Not Allowed").as_bytes())
            .await;
    }
    if !header("accept").is_some_and(|a| a.contains("text/event-stream")) {
        return socket
            .write_all(refuse("406 Not Acceptable").as_bytes())
            .await;
    }
    let Ok(input) =
        serde_json::from_slice::<serde_json::Value>(&received[head_end..head_end + length])
    else {
        return socket.write_all(refuse("400 Bad Request").as_bytes()).await;
    };
    let number = posts.fetch_add(1, Ordering::SeqCst) as usize;
    if let Ok(mut kept) = inputs.lock() {
        kept.push(input);
    }
    let Some(events) = runs.get(number % runs.len().max(1)) else {
        return socket.write_all(refuse("404 Not Found").as_bytes()).await;
    };
    socket
        .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
        .await?;
    for (i, event) in events.iter().enumerate() {
        let frame = format!("data: {}\n\n", serde_json::to_string(event)?);
        if cut_after == Some(i) {
            // Half a frame, and no end of the body.
            let half = &frame.as_bytes()[..frame.len() / 2];
            socket
                .write_all(format!("{:x}\r\n", half.len()).as_bytes())
                .await?;
            socket.write_all(half).await?;
            socket.flush().await?;
            return Ok(());
        }
        socket
            .write_all(format!("{:x}\r\n{frame}\r\n", frame.len()).as_bytes())
            .await?;
        socket.flush().await?;
    }
    socket.write_all(b"0\r\n\r\n").await?;
    socket.flush().await
}

/// One step of what a `ScriptServer` writes on a connection.
#[derive(Debug, Clone)]
pub enum Step {
    /// These bytes, as one chunk of the body.
    Send(String),
    /// Nothing for this long.
    Wait(Duration),
}

/// How a scripted connection ends once its steps are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The body ends properly (the final chunk).
    Close,
    /// The connection is dropped without ending the body.
    Cut,
    /// No stream at all: the request is answered 503 before any step.
    Unavailable,
}

/// What one connection to a `ScriptServer` gets: a Content-Type (none when `None`), steps
/// and an ending.
#[derive(Debug, Clone)]
pub struct Script {
    pub content_type: Option<&'static str>,
    pub steps: Vec<Step>,
    pub ending: Ending,
}

/// An HTTP server whose n-th connection (to any path, GET or POST) is answered by the n-th
/// script (the last one for every connection after), in chunked encoding: for what a
/// connection does in time (silences, bursts, types, endings) rather than what it carries.
pub struct ScriptServer {
    pub addr: SocketAddr,
    connections: Arc<AtomicU64>,
    heads: Arc<std::sync::Mutex<Vec<String>>>,
    runtime: ServerRuntime,
}

impl ScriptServer {
    pub fn start(scripts: Vec<Script>) -> io::Result<ScriptServer> {
        let runtime = ServerRuntime::new()?;
        let listener = runtime.block_on(bind(0))?;
        let addr = listener.local_addr()?;
        let connections = Arc::new(AtomicU64::new(0));
        let heads = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (counting, keeping) = (Arc::clone(&connections), Arc::clone(&heads));
        let scripts = Arc::new(scripts);
        runtime.spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let number = counting.fetch_add(1, Ordering::SeqCst) as usize;
                let (scripts, heads) = (Arc::clone(&scripts), Arc::clone(&keeping));
                tokio::spawn(async move {
                    let script = scripts.get(number.min(scripts.len().saturating_sub(1)));
                    if let Some(script) = script {
                        let _ = play(socket, script, &heads).await;
                    }
                });
            }
        });
        Ok(ScriptServer {
            addr,
            connections,
            heads,
            runtime,
        })
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn connections(&self) -> u64 {
        self.connections.load(Ordering::SeqCst)
    }

    /// The value of header `name` in each request received, in order.
    pub fn header_values(&self, name: &str) -> Vec<Option<String>> {
        let heads = self.heads.lock().map(|h| h.clone()).unwrap_or_default();
        heads.iter().map(|head| header_in(head, name)).collect()
    }
}

async fn play(
    mut socket: tokio::net::TcpStream,
    script: &Script,
    heads: &std::sync::Mutex<Vec<String>>,
) -> io::Result<()> {
    // The request is read up to its head; a POST body is small and ignored.
    let mut received = Vec::new();
    let mut chunk = [0u8; 4096];
    while !received.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        received.extend_from_slice(&chunk[..n]);
    }
    if let Ok(mut kept) = heads.lock() {
        kept.push(String::from_utf8_lossy(&received).into_owned());
    }
    if script.ending == Ending::Unavailable {
        return socket
            .write_all(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            .await;
    }
    let content_type = script
        .content_type
        .map_or_else(String::new, |t| format!("Content-Type: {t}\r\n"));
    socket
        .write_all(
            format!("HTTP/1.1 200 OK\r\n{content_type}Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        )
        .await?;
    socket.flush().await?;
    for step in &script.steps {
        match step {
            Step::Send(text) => {
                socket
                    .write_all(format!("{:x}\r\n{text}\r\n", text.len()).as_bytes())
                    .await?;
                socket.flush().await?;
            }
            Step::Wait(pause) => tokio::time::sleep(*pause).await,
        }
    }
    if script.ending == Ending::Close {
        socket.write_all(b"0\r\n\r\n").await?;
    }
    socket.flush().await
}
