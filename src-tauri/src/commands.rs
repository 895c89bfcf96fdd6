//! The IPC commands: thin adapters that parse arguments, call the core `Journal`, and map its
//! errors to `IpcError`. Anything that could take long (imports, exports) runs off the UI
//! thread; queries are async commands so they never block the event loop either.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use journalscope_document::journal::{
    Demo, DemoListing, EventDetail, EventPage, EventQuery, Journal, JournalError, JournalInfo,
    StepTarget, Timeline, TypeCount,
};
use journalscope_ingest::import::{ImportControl, ImportProgress};
use journalscope_registry::dialect::{AgentSession, Ask, Body, BodyFormat, Reply, SessionPlace};
use tauri::{AppHandle, Emitter, Manager, State};

use crate::ipc::{Exported, ExportedText, ImportStatus, IpcError, RecentFile, Startup};
use crate::recent;

/// Environment variable naming where "Export…" writes instead of asking with a save dialog.
/// Only the end-to-end tests set it: WebDriver cannot drive a native dialog.
pub const EXPORT_PATH_ENV: &str = "JOURNALSCOPE_EXPORT_PATH";

/// Requests a cache report may take on either side of the one it is about.
const MAX_REPORT_WINDOW: u64 = 2_000;

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
        open_demo: match session.launch_path {
            Some(_) => None,
            None => Demo::all().first().map(|demo| demo.name().to_string()),
        },
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
pub async fn open_demo(app: AppHandle, name: String) -> Result<JournalInfo, IpcError> {
    let demo = Demo::named(&name).ok_or_else(|| ipc_error(JournalError::NoSuchDemo(name)))?;
    import(app, format!("{} demo", demo.name()), move |control| {
        Journal::open(
            &journalscope_document::journal::demo_path(demo)?,
            None,
            control,
        )
    })
    .await
}

/// The bundled demo journals, the default dialect's first.
#[tauri::command]
pub fn demos() -> Vec<DemoListing> {
    Demo::all().into_iter().map(Demo::listing).collect()
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

/// Any view of the shown journal, asked for by its family: its JSON comes back in the shape
/// its dialect gives it. A request's body leaves by `request_body_text` or `export_request`.
#[tauri::command]
pub async fn ask(session: State<'_, Session>, ask: Ask) -> Result<serde_json::Value, IpcError> {
    if matches!(ask, Ask::Body { .. }) {
        return Err(IpcError::new(
            "bad-ask",
            "a request's body is copied or exported, not shown",
        ));
    }
    session.with(|j| j.view(&bounded(ask)))
}

/// The question with what a pane draws kept to a window, however long the journal.
fn bounded(ask: Ask) -> Ask {
    match ask {
        Ask::CacheAround {
            at,
            before,
            after,
            transports,
        } => Ask::CacheAround {
            at,
            before: before.min(MAX_REPORT_WINDOW),
            after: after.min(MAX_REPORT_WINDOW),
            transports,
        },
        ask => ask,
    }
}

/// The request body `ask` (a body question) asks for, as the CLI's `request -o` writes it:
/// the body or a `curl` command, secrets redacted unless it asks for the exact bytes.
fn request_body(session: &Session, ask: &Ask) -> Result<Body, IpcError> {
    match session.with(|j| j.answer(ask))? {
        Reply::Body(body) => Ok(body),
        Reply::View(_) => Err(IpcError::new(
            "bad-ask",
            "only a request's body is copied or exported",
        )),
    }
}

/// The request body as text, for the clipboard.
#[tauri::command]
pub async fn request_body_text(
    session: State<'_, Session>,
    ask: Ask,
) -> Result<ExportedText, IpcError> {
    let body = request_body(&session, &ask)?;
    Ok(ExportedText {
        text: String::from_utf8_lossy(&body.bytes).into_owned(),
        secrets: body.secrets as u64,
        redacted: body.redacted,
    })
}

/// Writes the export where the user says in the native save dialog, or where the tests say in
/// `JOURNALSCOPE_EXPORT_PATH`. The window cannot name a path itself: a page that could would
/// hold a write-anywhere primitive.
#[tauri::command]
pub async fn export_request(app: AppHandle, ask: Ask) -> Result<Exported, IpcError> {
    let export = request_body(&app.state::<Session>(), &ask)?;
    let Ask::Body { at, format, .. } = ask else {
        return Err(IpcError::new(
            "bad-ask",
            "only a request's body is exported",
        ));
    };
    let target = match std::env::var(EXPORT_PATH_ENV).ok() {
        Some(p) => Some(PathBuf::from(p)),
        None => ask_save_path(&app, at, format).await?,
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
    format: BodyFormat,
) -> Result<Option<PathBuf>, IpcError> {
    use tauri_plugin_dialog::DialogExt;
    let (name, filter, ext) = match format {
        BodyFormat::Body => (format!("request-{offset}.json"), "JSON", "json"),
        BodyFormat::Curl => (format!("request-{offset}.sh"), "Shell script", "sh"),
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

/// The agents' sessions on this machine, newest first.
#[tauri::command]
pub async fn agent_sessions() -> Vec<AgentSession> {
    tauri::async_runtime::spawn_blocking(journalscope_registry::dialect::sessions)
        .await
        .unwrap_or_default()
}

/// Where the sessions are looked for, agent by agent.
#[tauri::command]
pub fn session_places() -> Vec<SessionPlace> {
    journalscope_registry::dialect::session_places()
}
