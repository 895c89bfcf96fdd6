//! Live ingestion in the window: follows the open journal file, or a remote stream the user
//! connected to, into the journal's database with the core's tail; reloads the open journal
//! (throttled) as events land and tells the webview, so the list grows under the user.
//! Header values given for a stream live only in the tail's memory: never stored, never logged.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use journalscope_document::journal::{is_database, Journal, JournalError, JournalInfo};
use journalscope_ingest::import::ImportControl;
use journalscope_ingest::tail::{
    self, GenerationReason, Header, Source, StartAt, TailError, TailHandle, TailOptions,
    TailStatus, TailUpdate,
};
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Emitter, Manager, State};
use ts_rs::TS;

use crate::commands::Session;
use crate::ipc::IpcError;

/// Reloads are at most this frequent: a fast stream must not refold the journal per event,
/// and appended lines must still show within a quarter of a second.
const RELOAD_EVERY: Duration = Duration::from_millis(100);

/// The webview event carrying a [`LiveState`] whenever the tail's status changes.
pub const STATUS_EVENT: &str = "live-status";
/// The webview event carrying a [`LiveChange`] after the open journal was reloaded.
pub const CHANGED_EVENT: &str = "live-changed";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum LiveSource {
    File,
    Stream,
}

/// What the title bar shows about ingestion.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct LiveState {
    pub source: LiveSource,
    /// The file name, or the stream's URL without its secrets.
    pub label: String,
    pub status: TailStatus,
    /// Paused by the user: the window's view stays as it is while the tail goes on storing.
    pub paused: bool,
    /// Grows with every change, across tails: events emitted from different threads may
    /// reach the webview out of order, and the higher revision is the newer state.
    #[ts(type = "number")]
    pub revision: u64,
}

static REVISION: AtomicU64 = AtomicU64::new(1);

fn next_revision() -> u64 {
    REVISION.fetch_add(1, Ordering::SeqCst)
}

/// Sent after the open journal was reloaded because events landed.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct LiveChange {
    pub info: JournalInfo,
    /// A different journal is now shown (a stream's first events, or a new generation of a
    /// followed file): seqs start over, so the window resets its list and selection.
    pub reset: bool,
    /// Why a new generation started, when one did (truncation, rotation, a restarted stream).
    pub generation: Option<GenerationReason>,
}

/// The "Connect to stream…" form. Deliberately not `Debug`: it carries header values.
#[derive(Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ConnectRequest {
    pub url: String,
    /// `oldest`, `latest` or an offset.
    pub from: String,
    /// `Name: value`, one a line; blank lines are ignored.
    pub headers: String,
    /// PEM files of CA certificates to trust besides the system's, one path a line.
    pub ca_files: String,
    /// An AG-UI run input (the RunAgentInput JSON itself, not a path: the window names no file
    /// for the app to read and send) to POST to the URL; empty to read a stream.
    pub run_input: String,
}

struct Running {
    handle: TailHandle,
    db: PathBuf,
    state: Arc<Mutex<LiveState>>,
}

/// The tail the window runs, at most one at a time.
#[derive(Default)]
pub struct Live {
    running: Mutex<Option<Running>>,
    /// Bumped for every tail started or stopped, so a replaced tail's late reports are dropped.
    token: Arc<AtomicU64>,
}

impl Live {
    fn lock(&self) -> MutexGuard<'_, Option<Running>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn state(&self) -> Option<LiveState> {
        self.lock().as_ref().map(|r| read(&r.state))
    }

    /// Takes the running tail out; the caller stops it off the UI thread.
    fn take(&self) -> Option<Running> {
        self.token.fetch_add(1, Ordering::SeqCst);
        self.lock().take()
    }
}

fn read(state: &Mutex<LiveState>) -> LiveState {
    state.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

fn tail_error(e: TailError) -> IpcError {
    let code = match e {
        TailError::InvalidTarget(_) => "invalid-target",
        _ => "tail-failed",
    };
    IpcError::new(code, e.to_string())
}

/// Stopping joins the tail's thread, which may wait on the network: never on the UI thread.
async fn stop(running: Option<Running>) {
    if let Some(running) = running {
        let _ = tauri::async_runtime::spawn_blocking(move || drop(running.handle)).await;
    }
}

/// Parses the dialog's header lines. Errors name the line, never its value.
pub fn parse_headers(text: &str) -> Result<Vec<Header>, IpcError> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            Header::parse(line).map_err(|_| {
                IpcError::new(
                    "invalid-header",
                    format!("header line {} is not 'Name: value'", i + 1),
                )
            })
        })
        .collect()
}

/// What the dialog asks to follow: a stream, or a run POSTed with the input it holds.
pub fn source_of(request: &ConnectRequest) -> Result<Source, IpcError> {
    let headers = parse_headers(&request.headers)?;
    let input = request.run_input.trim();
    if input.is_empty() {
        return Source::parse(request.url.trim(), headers).map_err(tail_error);
    }
    let input: serde_json::Value = serde_json::from_str(input).map_err(|e| {
        IpcError::new(
            "invalid-run-input",
            format!("the run input is not JSON: {e}"),
        )
    })?;
    Source::posted(request.url.trim(), headers, input).map_err(tail_error)
}

/// One path a line, blank lines left out.
pub fn parse_paths(text: &str) -> Vec<PathBuf> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(PathBuf::from)
        .collect()
}

/// Parses the dialog's start position; empty means after what the database holds.
pub fn parse_start(text: &str) -> Result<StartAt, IpcError> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(StartAt::Stored);
    }
    text.parse().map_err(|_| {
        IpcError::new(
            "invalid-start",
            format!("start at oldest, latest or an offset, not {text:?}"),
        )
    })
}

/// Follows the open journal's file when it has one (a demo included); a database opened
/// directly, or the stream being tailed, is left as it is.
#[tauri::command]
pub async fn follow_journal(
    app: AppHandle,
    live: State<'_, Live>,
    session: State<'_, Session>,
) -> Result<Option<LiveState>, IpcError> {
    let info = session.with(|j| j.info())?;
    let db = PathBuf::from(&info.db_path);
    if live.lock().as_ref().is_some_and(|r| r.db == db) {
        return Ok(live.state());
    }
    stop(live.take()).await;
    let path = PathBuf::from(&info.path);
    if !path.is_file() || is_database(&path) {
        return Ok(None);
    }
    let source = Source::File(path);
    start(
        &app,
        &live,
        source,
        db,
        LiveSource::File,
        info.file_name,
        TailOptions::default(),
    )
    .map(Some)
}

/// Starts tailing a remote stream into its default database; the window opens that database
/// once the first events land.
#[tauri::command]
pub async fn connect_stream(
    app: AppHandle,
    live: State<'_, Live>,
    request: ConnectRequest,
) -> Result<LiveState, IpcError> {
    let start_at = parse_start(&request.from)?;
    let source = source_of(&request)?;
    let (Source::Stream(target) | Source::Posted { target, .. }) = &source else {
        return Err(IpcError::new(
            "invalid-target",
            "a stream URL starts with http://, https://, ws:// or wss://",
        ));
    };
    let label = target.public_url();
    let db = tail::default_db(&source);
    if let Some(parent) = db.parent() {
        std::fs::create_dir_all(parent).map_err(|e| {
            IpcError::new(
                "unwritable",
                format!("cannot create {}: {e}", parent.display()),
            )
        })?;
    }
    stop(live.take()).await;
    let options = TailOptions {
        start: start_at,
        ca_files: parse_paths(&request.ca_files),
        ..TailOptions::default()
    };
    start(&app, &live, source, db, LiveSource::Stream, label, options)
}

#[tauri::command]
pub fn live_state(live: State<'_, Live>) -> Option<LiveState> {
    live.state()
}

/// Holds arrivals back (the tail keeps receiving and buffers them) or lands them again.
#[tauri::command]
pub fn live_pause(
    app: AppHandle,
    live: State<'_, Live>,
    paused: bool,
) -> Result<LiveState, IpcError> {
    let guard = live.lock();
    let running = guard
        .as_ref()
        .ok_or_else(|| IpcError::new("not-live", "nothing is being followed"))?;
    if paused {
        running.handle.pause();
    } else {
        running.handle.resume();
    }
    let state = {
        let mut state = running.state.lock().unwrap_or_else(|e| e.into_inner());
        state.paused = paused;
        state.revision = next_revision();
        state.clone()
    };
    let _ = app.emit(STATUS_EVENT, &state);
    Ok(state)
}

#[tauri::command]
pub async fn stop_live(live: State<'_, Live>) -> Result<(), IpcError> {
    stop(live.take()).await;
    Ok(())
}

fn start(
    app: &AppHandle,
    live: &Live,
    source: Source,
    db: PathBuf,
    kind: LiveSource,
    label: String,
    options: TailOptions,
) -> Result<LiveState, IpcError> {
    let state = Arc::new(Mutex::new(LiveState {
        source: kind,
        label,
        status: TailStatus::Connecting { attempt: 0 },
        paused: false,
        revision: next_revision(),
    }));
    let token = live.token.fetch_add(1, Ordering::SeqCst) + 1;
    let (send, updates) = mpsc::channel();
    let handle = tail::start(&db, source, options, move |update| {
        // The watcher only goes away with the window; the tail is stopped then anyway.
        let _ = send.send(update);
    })
    .map_err(tail_error)?;
    let watcher = Watcher {
        app: app.clone(),
        token,
        current: live.token.clone(),
        db: db.clone(),
        kind,
        state: state.clone(),
        opened: kind == LiveSource::File,
    };
    std::thread::Builder::new()
        .name("journalscope-live".to_string())
        .spawn(move || watcher.run(updates))
        .map_err(|e| IpcError::new("internal", e.to_string()))?;
    let snapshot = read(&state);
    *live.lock() = Some(Running { handle, db, state });
    Ok(snapshot)
}

/// Turns a tail's updates into status events and throttled reloads of the open journal.
struct Watcher {
    app: AppHandle,
    token: u64,
    current: Arc<AtomicU64>,
    db: PathBuf,
    kind: LiveSource,
    state: Arc<Mutex<LiveState>>,
    /// Whether the window shows this tail's database yet (a stream's is opened on its first
    /// events, since an empty store cannot be opened).
    opened: bool,
}

#[derive(Default)]
struct Pending {
    dirty: bool,
    reset: bool,
    generation: Option<GenerationReason>,
}

impl Watcher {
    fn live(&self) -> bool {
        self.current.load(Ordering::SeqCst) == self.token
    }

    fn run(mut self, updates: mpsc::Receiver<TailUpdate>) {
        // A stream's database may hold events from an earlier connection: show them at once
        // rather than after the next arrival (which, started at `latest`, may be far off).
        let mut pending = Pending {
            dirty: self.kind == LiveSource::Stream,
            ..Pending::default()
        };
        let mut reloaded = Instant::now() - RELOAD_EVERY;
        loop {
            let wait = if pending.dirty {
                RELOAD_EVERY.saturating_sub(reloaded.elapsed())
            } else {
                Duration::from_secs(3600)
            };
            let ended = match updates.recv_timeout(wait) {
                Ok(update) => {
                    self.note(update, &mut pending);
                    false
                }
                Err(RecvTimeoutError::Timeout) => false,
                Err(RecvTimeoutError::Disconnected) => true,
            };
            if !self.live() {
                // Replaced or stopped: the next window content is someone else's.
                if ended {
                    return;
                }
                continue;
            }
            // A paused window is not reloaded; what landed meanwhile shows once it resumes (or
            // when the tail ends, since nothing follows it then).
            let paused = read(&self.state).paused;
            if pending.dirty && (ended || (!paused && reloaded.elapsed() >= RELOAD_EVERY)) {
                if let Err(e) = self.reload(&pending) {
                    self.set_status(TailStatus::Failed {
                        reason: format!("cannot show the new events: {e}"),
                    });
                }
                pending = Pending::default();
                reloaded = Instant::now();
            }
            if ended {
                return;
            }
        }
    }

    fn note(&mut self, update: TailUpdate, pending: &mut Pending) {
        match update {
            TailUpdate::Status { status } => {
                if self.live() {
                    self.set_status(status);
                }
            }
            TailUpdate::Event { .. } | TailUpdate::Diagnostic { .. } => pending.dirty = true,
            TailUpdate::Generation { reason, .. } => {
                pending.dirty = true;
                if reason != GenerationReason::First {
                    pending.reset = true;
                    pending.generation = Some(reason);
                }
            }
            TailUpdate::Gap { .. } => {}
        }
    }

    fn set_status(&self, status: TailStatus) {
        let state = {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            state.status = status;
            state.revision = next_revision();
            state.clone()
        };
        let _ = self.app.emit(STATUS_EVENT, &state);
    }

    fn reload(&mut self, pending: &Pending) -> Result<(), JournalError> {
        let session = self.app.state::<Session>();
        let mut guard = session.lock();
        let shown = guard.as_ref().and_then(|j| j.info().ok());
        let ours = shown
            .as_ref()
            .is_some_and(|info| Path::new(&info.db_path) == self.db);
        let (journal, reset) = match guard.take() {
            Some(journal) if ours => match journal.reload() {
                Ok(journal) => (journal, pending.reset),
                Err(e) => {
                    // The journal was consumed by the failed reload: open it afresh.
                    *guard = open_database(&self.db).ok();
                    return Err(e);
                }
            },
            other if !self.opened && self.kind == LiveSource::Stream => {
                match open_database(&self.db) {
                    Ok(journal) => (journal, true),
                    // Nothing landed yet (an empty store cannot be opened): the next
                    // arrival tries again, and the window keeps what it shows meanwhile.
                    Err(_) => {
                        *guard = other;
                        return Ok(());
                    }
                }
            }
            // Another journal is shown: it is not ours to reload.
            other => {
                *guard = other;
                return Ok(());
            }
        };
        let info = journal.info()?;
        *guard = Some(journal);
        drop(guard);
        self.opened = true;
        if reset {
            if let Some(window) = self.app.get_webview_window("main") {
                let _ = window.set_title(&format!("{} — Journalscope", info.file_name));
            }
        }
        let _ = self.app.emit(
            CHANGED_EVENT,
            LiveChange {
                info,
                reset,
                generation: pending.generation,
            },
        );
        Ok(())
    }
}

/// Opens the followed journal's database.
fn open_database(db: &Path) -> Result<Journal, JournalError> {
    let mut quiet = |_| {};
    Journal::open(
        db,
        None,
        &mut ImportControl {
            progress: &mut quiet,
            cancel: None,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(url: &str, run_input: &str) -> ConnectRequest {
        ConnectRequest {
            url: url.to_string(),
            from: String::new(),
            headers: String::new(),
            ca_files: String::new(),
            run_input: run_input.to_string(),
        }
    }

    #[test]
    fn given_a_run_input_when_connecting_then_the_run_is_posted_not_streamed() {
        let input = r#"{"threadId":"t1","runId":"r1","messages":[]}"#;
        let source = source_of(&request("http://127.0.0.1:9/agent", input)).expect("a run");
        assert!(
            matches!(&source, Source::Posted { body, .. } if body["threadId"] == "t1"),
            "the dialog's run input makes a POSTed run: {source:?}"
        );
        let source = source_of(&request("http://127.0.0.1:9/sse", "")).expect("a stream");
        assert!(
            matches!(source, Source::Stream(_)),
            "no run input, a stream"
        );
        let err = source_of(&request("http://127.0.0.1:9/agent", "/etc/passwd"))
            .expect_err("a path is not a run input");
        assert_eq!(
            err.code, "invalid-run-input",
            "the window cannot name a file to send"
        );
    }

    #[test]
    fn given_header_lines_when_parsed_then_blank_lines_are_skipped() {
        let headers = parse_headers("Authorization: Bearer s3cret\n\n  \nX-Team: blue\n")
            .expect("two valid header lines");
        let names: Vec<_> = headers.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(
            names,
            ["Authorization", "X-Team"],
            "every non-blank line is one header, in order"
        );
    }

    #[test]
    fn given_a_bad_header_line_when_parsed_then_the_error_names_the_line_not_the_value() {
        let e = parse_headers("X-Ok: 1\nsecret-without-colon")
            .expect_err("a line without a colon is refused");
        assert_eq!(
            e.code, "invalid-header",
            "a stable code the dialog can show"
        );
        assert!(
            e.message.contains("line 2") && !e.message.contains("secret"),
            "the message points at the line and never echoes what was typed: {}",
            e.message
        );
    }

    #[test]
    fn given_start_positions_when_parsed_then_oldest_latest_offset_and_empty_are_understood() {
        assert_eq!(parse_start("oldest").ok(), Some(StartAt::Oldest), "oldest");
        assert_eq!(parse_start("latest").ok(), Some(StartAt::Latest), "latest");
        assert_eq!(
            parse_start(" 42 ").ok(),
            Some(StartAt::Offset(42)),
            "offset"
        );
        assert_eq!(
            parse_start("").ok(),
            Some(StartAt::Stored),
            "empty resumes after what the database holds"
        );
        assert_eq!(
            parse_start("soon").err().map(|e| e.code),
            Some("invalid-start".to_string()),
            "anything else is refused with a code"
        );
    }

    #[test]
    fn given_a_live_state_when_serialized_then_the_status_is_tagged_for_the_title_bar() {
        let state = LiveState {
            source: LiveSource::Stream,
            label: "http://127.0.0.1:1/sse".to_string(),
            status: TailStatus::Live {
                events_per_second: 42.0,
                events: 200,
            },
            paused: false,
            revision: 7,
        };
        let json = serde_json::to_value(&state).expect("serializes");
        assert_eq!(
            json["status"]["state"], "live",
            "the UI branches on status.state"
        );
        assert_eq!(json["source"], "stream", "the source is kebab-case");
        assert_eq!(
            json["status"]["eventsPerSecond"], 42.0,
            "the rate is camelCase"
        );
    }
}
