//! The IPC commands: thin adapters that parse arguments, call the core `Journal`, and map its
//! errors to `IpcError`. Anything that could take long (imports, exports) runs off the UI
//! thread; queries are async commands so they never block the event loop either.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use journalscope_agentskit::agentskit::{SnapshotAt, TurnsReport};
use journalscope_agui::agui::{AgUiStep, MessagePage, MessageWindow, RunSpan};
use journalscope_document::journal::{
    Demo, EventDetail, EventPage, EventQuery, Journal, JournalError, JournalInfo, StepTarget,
    Timeline, TypeCount,
};
use journalscope_ingest::import::{ImportControl, ImportProgress};
use journalscope_iterate::iterate::render::{ExportFormat, ExportOptions, RequestExport};
use journalscope_iterate::iterate::view::{
    CompactionView, ProjectionView, RequestSummary, RequestView,
};
use journalscope_iterate::iterate::Transport;
use tauri::{AppHandle, Emitter, Manager, State};

use crate::ipc::{Exported, ExportedText, ImportStatus, IpcError, RecentFile, Startup};
use crate::recent;

/// Environment variable naming where "Export…" writes instead of asking with a save dialog.
/// Only the end-to-end tests set it: WebDriver cannot drive a native dialog.
pub const EXPORT_PATH_ENV: &str = "JOURNALSCOPE_EXPORT_PATH";

/// Requests a cache report may take on either side of the one it is about.
const MAX_REPORT_WINDOW: u32 = 2_000;

/// The opened journal and the import in flight, shared by every command.
#[derive(Default)]
pub struct Session {
    journal: Mutex<Option<Journal>>,
    cancel: Arc<AtomicBool>,
    launch_path: Option<String>,
}

impl Session {
    pub fn new(launch_path: Option<String>) -> Session {
        Session {
            launch_path,
            ..Session::default()
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Option<Journal>> {
        // A panic while holding the lock leaves a journal that is still readable.
        self.journal.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs a query on the shown journal.
    pub(crate) fn with<T>(
        &self,
        f: impl FnOnce(&Journal) -> Result<T, JournalError>,
    ) -> Result<T, IpcError> {
        let guard = self.lock();
        let journal = guard.as_ref().ok_or_else(IpcError::no_journal)?;
        f(journal).map_err(ipc_error)
    }
}

pub fn ipc_error(e: JournalError) -> IpcError {
    IpcError::new(e.code(), e.to_string())
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

fn config_dir(app: &AppHandle) -> Option<PathBuf> {
    app.path().app_config_dir().ok()
}

fn set_title(app: &AppHandle, info: &JournalInfo) {
    if let Some(window) = app.get_webview_window("main") {
        let _ = window.set_title(&format!("{} — Journalscope", info.file_name));
    }
}

/// Imports on a blocking thread, streaming progress to the webview, then installs the journal.
async fn import(
    app: AppHandle,
    label: String,
    open: impl FnOnce(&mut ImportControl) -> Result<Journal, JournalError> + Send + 'static,
) -> Result<JournalInfo, IpcError> {
    let session = app.state::<Session>();
    let cancel = session.cancel.clone();
    cancel.store(false, Ordering::Relaxed);
    let emitter = app.clone();
    let opened = tauri::async_runtime::spawn_blocking(move || {
        let mut report = |p: ImportProgress| {
            let _ = emitter.emit(
                "import-progress",
                ImportStatus {
                    source: label.clone(),
                    done_bytes: p.done_bytes,
                    total_bytes: p.total_bytes,
                    events: p.events,
                    stage: p.stage,
                    analysed: p.analysed,
                },
            );
        };
        let mut control = ImportControl {
            progress: &mut report,
            cancel: Some(&cancel),
        };
        open(&mut control)
    })
    .await
    .map_err(|e| IpcError::new("internal", e.to_string()))
    .and_then(|opened| opened.map_err(ipc_error))
    .and_then(|journal| Ok((journal.info().map_err(ipc_error)?, journal)));
    let (info, journal) = opened?;
    *session.lock() = Some(journal);
    set_title(&app, &info);
    Ok(info)
}

#[tauri::command]
pub fn startup(app: AppHandle, session: State<'_, Session>) -> Startup {
    Startup {
        launch_path: session.launch_path.clone(),
        open_demo: session.launch_path.is_none(),
        recent: config_dir(&app)
            .map(|d| recent::load(&d))
            .unwrap_or_default(),
        version: journalscope_document::release::DESCRIPTION.to_string(),
    }
}

#[tauri::command]
pub async fn open_file(app: AppHandle, path: String) -> Result<JournalInfo, IpcError> {
    let file = PathBuf::from(&path);
    let label = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.clone());
    let opened = file.clone();
    let info = import(app.clone(), label, move |control| {
        Journal::open(&opened, None, control)
    })
    .await?;
    if let Some(dir) = config_dir(&app) {
        let absolute = std::fs::canonicalize(&file).unwrap_or(file);
        let list = recent::remember(&recent::load(&dir), &absolute.to_string_lossy(), now_ms());
        // History is a convenience: failing to write it must not fail the open.
        let _ = recent::save(&dir, &list);
    }
    Ok(info)
}

#[tauri::command]
pub async fn open_demo(app: AppHandle, demo: Demo) -> Result<JournalInfo, IpcError> {
    import(app, format!("{demo:?} demo"), move |control| {
        Journal::open(
            &journalscope_document::journal::demo_path(demo)?,
            None,
            control,
        )
    })
    .await
}

/// Loads the shown journal's events again after a load failed. False when it has them
/// already (nothing to wait for).
#[tauri::command]
pub fn cancel_import(session: State<'_, Session>) {
    session.cancel.store(true, Ordering::Relaxed);
}

#[tauri::command]
pub fn recent_files(app: AppHandle) -> Vec<RecentFile> {
    config_dir(&app)
        .map(|d| recent::load(&d))
        .unwrap_or_default()
}

#[tauri::command]
pub async fn journal_info(session: State<'_, Session>) -> Result<JournalInfo, IpcError> {
    session.with(|j| j.info())
}

#[tauri::command]
pub async fn event_types(session: State<'_, Session>) -> Result<Vec<TypeCount>, IpcError> {
    session.with(|j| j.event_types())
}

#[tauri::command]
pub async fn events_page(
    session: State<'_, Session>,
    query: EventQuery,
) -> Result<EventPage, IpcError> {
    session.with(|j| j.events_page(&query))
}

#[tauri::command]
pub async fn row_of_seq(
    session: State<'_, Session>,
    query: EventQuery,
    seq: u64,
) -> Result<Option<u64>, IpcError> {
    session.with(|j| j.row_of_seq(&query, seq))
}

#[tauri::command]
pub async fn event_detail(session: State<'_, Session>, seq: u64) -> Result<EventDetail, IpcError> {
    session.with(|j| j.event_detail(seq))
}

/// The scrubber's picture of the whole journal, or of the seqs `first..=last` when zoomed.
#[tauri::command]
pub async fn timeline(
    session: State<'_, Session>,
    buckets: u32,
    first: Option<u64>,
    last: Option<u64>,
) -> Result<Timeline, IpcError> {
    let span = match (first, last) {
        (Some(first), Some(last)) if first <= last => Some(first..=last),
        (None, None) => None,
        _ => {
            return Err(IpcError::new(
                "bad_range",
                format!(
                    "a timeline span needs a first seq at or before its last: {first:?}..={last:?}"
                ),
            ))
        }
    };
    session.with(|j| j.timeline_of(buckets.clamp(1, 4096), span))
}

#[tauri::command]
pub async fn step(
    session: State<'_, Session>,
    from: u64,
    target: StepTarget,
    forward: bool,
) -> Result<Option<u64>, IpcError> {
    session.with(|j| j.step(from, target, forward))
}

#[tauri::command]
pub async fn seq_of_offset(
    session: State<'_, Session>,
    offset: i64,
) -> Result<Option<u64>, IpcError> {
    session.with(|j| j.seq_of_offset(offset))
}

#[tauri::command]
pub async fn projection_at(
    session: State<'_, Session>,
    seq: u64,
) -> Result<ProjectionView, IpcError> {
    session.with(|j| j.projection_at_seq(seq))
}

#[tauri::command]
pub async fn requests(session: State<'_, Session>) -> Result<Vec<RequestSummary>, IpcError> {
    session.with(|j| j.requests())
}

#[tauri::command]
pub async fn request_at(
    session: State<'_, Session>,
    offset: i64,
    transport: Transport,
) -> Result<RequestView, IpcError> {
    session.with(|j| j.request_view(offset, transport))
}

#[tauri::command]
pub async fn compaction_at(
    session: State<'_, Session>,
    offset: i64,
) -> Result<CompactionView, IpcError> {
    session.with(|j| j.compaction(offset))
}

#[tauri::command]
pub async fn agui_step(
    session: State<'_, Session>,
    seq: u64,
    messages: MessageWindow,
) -> Result<AgUiStep, IpcError> {
    session.with(|j| j.agui_step(seq, messages))
}

#[tauri::command]
pub async fn agui_messages(
    session: State<'_, Session>,
    at: i64,
    window: MessageWindow,
) -> Result<MessagePage, IpcError> {
    session.with(|j| j.agui_messages(at, window))
}

#[tauri::command]
pub async fn agui_runs(session: State<'_, Session>) -> Result<Vec<RunSpan>, IpcError> {
    session.with(|j| j.agui_runs())
}

#[tauri::command]
pub async fn agentskit_state(
    session: State<'_, Session>,
    seq: u64,
    thread: Option<String>,
) -> Result<SnapshotAt, IpcError> {
    session.with(|j| j.agentskit_state(seq, thread.as_deref()))
}

#[tauri::command]
pub async fn agentskit_turns(
    session: State<'_, Session>,
    thread: Option<String>,
) -> Result<TurnsReport, IpcError> {
    session.with(|j| j.agentskit_turns(thread.as_deref()))
}

/// The request export `options` ask for, as the CLI's `request -o` writes it: the body or a
/// `curl` command, secrets redacted unless `options.exact`.
fn request_export(
    session: &Session,
    offset: i64,
    transport: Transport,
    options: &ExportOptions,
) -> Result<RequestExport, IpcError> {
    let snapshot = session.with(|j| j.request(offset, transport))?;
    snapshot
        .export(options)
        .map_err(|e| IpcError::new("invalid-redaction", e.to_string()))
}

/// The export as text, for the clipboard.
#[tauri::command]
pub async fn request_export_text(
    session: State<'_, Session>,
    offset: i64,
    transport: Transport,
    options: ExportOptions,
) -> Result<ExportedText, IpcError> {
    let export = request_export(&session, offset, transport, &options)?;
    Ok(ExportedText {
        text: String::from_utf8_lossy(&export.bytes).into_owned(),
        secrets: export.secrets as u64,
        redacted: export.redacted,
    })
}

/// A transcript's request body (the model and its messages or input items) as text for the
/// clipboard, secrets redacted unless `exact`, as `journalscope request -o` writes it.
#[tauri::command]
pub async fn conversation_request_export_text(
    session: State<'_, Session>,
    offset: i64,
    exact: bool,
) -> Result<ExportedText, IpcError> {
    let request = session.with(|journal| journal.conversation_request(offset))?;
    let export = request
        .export(exact, &[])
        .map_err(|e| IpcError::new("invalid-redaction", e.to_string()))?;
    Ok(ExportedText {
        text: String::from_utf8_lossy(&export.bytes).into_owned(),
        secrets: export.secrets as u64,
        redacted: export.redacted,
    })
}

/// Writes the export where the user says in the native save dialog, or where the tests say in
/// `JOURNALSCOPE_EXPORT_PATH`. The window cannot name a path itself: a page that could would
/// hold a write-anywhere primitive.
#[tauri::command]
pub async fn export_request(
    app: AppHandle,
    offset: i64,
    transport: Transport,
    options: ExportOptions,
) -> Result<Exported, IpcError> {
    let export = request_export(&app.state::<Session>(), offset, transport, &options)?;
    let target = match std::env::var(EXPORT_PATH_ENV).ok() {
        Some(p) => Some(PathBuf::from(p)),
        None => ask_save_path(&app, offset, options.format).await?,
    };
    let Some(target) = target else {
        return Ok(Exported {
            path: None,
            bytes: 0,
            secrets: 0,
            redacted: export.redacted,
        });
    };
    write_export(&target, &export.bytes)?;
    Ok(Exported {
        path: Some(target.to_string_lossy().into_owned()),
        bytes: export.bytes.len() as u64,
        secrets: export.secrets as u64,
        redacted: export.redacted,
    })
}

async fn ask_save_path(
    app: &AppHandle,
    offset: i64,
    format: ExportFormat,
) -> Result<Option<PathBuf>, IpcError> {
    use tauri_plugin_dialog::DialogExt;
    let (name, filter, ext) = match format {
        ExportFormat::Body => (format!("request-{offset}.json"), "JSON", "json"),
        ExportFormat::Curl => (format!("request-{offset}.sh"), "Shell script", "sh"),
    };
    let dialog = app
        .dialog()
        .file()
        .set_file_name(name)
        .add_filter(filter, &[ext]);
    let picked = tauri::async_runtime::spawn_blocking(move || dialog.blocking_save_file())
        .await
        .map_err(|e| IpcError::new("internal", e.to_string()))?;
    Ok(picked.and_then(|p| p.into_path().ok()))
}

pub(crate) fn write_export(target: &Path, body: &[u8]) -> Result<(), IpcError> {
    std::fs::write(target, body).map_err(|e| {
        IpcError::new(
            "unwritable",
            format!("cannot write {}: {e}", target.display()),
        )
    })
}

/// Two requests compared (`journalscope diff`): `from` defaults to the request before `to`;
/// `from_transport` defaults to `transport`.
#[tauri::command]
pub async fn request_diff(
    session: State<'_, Session>,
    from: Option<i64>,
    to: i64,
    transport: Transport,
    from_transport: Option<Transport>,
) -> Result<journalscope_iterate::iterate::diff::RequestDiff, IpcError> {
    let transports = (from_transport.unwrap_or(transport), transport);
    session.with(|j| j.request_diff(from, to, transports))
}

/// Prefix stability across every request (`journalscope cache`).
#[tauri::command]
pub async fn cache_report(
    session: State<'_, Session>,
    transport: Transport,
    around: i64,
    before: u32,
    after: u32,
) -> Result<journalscope_iterate::iterate::diff::CacheReport, IpcError> {
    // A pane draws a bar per request: a window of requests, however long the journal.
    let (before, after) = (before.min(MAX_REPORT_WINDOW), after.min(MAX_REPORT_WINDOW));
    session.with(|j| j.cache_report_around(transport, around, (before.into(), after.into())))
}

/// The Claude Code and Codex sessions on this machine, newest first.
#[tauri::command]
pub async fn agent_sessions() -> Vec<journalscope_transcript::transcript::Session> {
    tauri::async_runtime::spawn_blocking(journalscope_registry::dialect::sessions)
        .await
        .unwrap_or_default()
}

#[tauri::command]
pub async fn conversation_at(
    session: State<'_, Session>,
    seq: u64,
) -> Result<journalscope_transcript::transcript::ConversationView, IpcError> {
    session.with(|journal| journal.conversation_at_seq(seq))
}

#[tauri::command]
pub async fn conversation_request(
    session: State<'_, Session>,
    offset: i64,
) -> Result<journalscope_registry::dialect::TranscriptRequest, IpcError> {
    session.with(|journal| journal.conversation_request(offset))
}

/// A transcript's compaction, before | after.
#[tauri::command]
pub async fn transcript_compaction(
    session: State<'_, Session>,
    offset: i64,
) -> Result<journalscope_transcript::transcript::TranscriptCompaction, IpcError> {
    session.with(|journal| journal.transcript_compaction(offset))
}

/// A transcript's request against an earlier one (`journalscope diff` on a session): `from`
/// defaults to the request before `to` in its thread.
#[tauri::command]
pub async fn transcript_diff(
    session: State<'_, Session>,
    from: Option<i64>,
    to: i64,
) -> Result<journalscope_transcript::transcript::diff::TranscriptDiff, IpcError> {
    session.with(|journal| journal.transcript_diff(from, to))
}

#[tauri::command]
pub async fn subagents(
    session: State<'_, Session>,
) -> Result<Vec<journalscope_transcript::transcript::Subagent>, IpcError> {
    session.with(|journal| journal.subagents())
}

#[tauri::command]
pub async fn spawned_by(
    session: State<'_, Session>,
) -> Result<Option<journalscope_transcript::transcript::SpawnedBy>, IpcError> {
    session.with(|journal| journal.spawned_by())
}
