//! An opened journal: its store, the fold-ready form of its events, and every view the CLI
//! and the desktop ask of it (event pages, timeline, stepping, projection, requests,
//! compactions). Opening a journal file imports it into a cached database first.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use serde::Serialize;
use ts_rs::TS;

use crate::diagnostic::{Diagnostic, Severity};
use crate::dialect::{Dialect, FoldWatch, Mark};
use crate::import::{self, ImportControl, ImportError, ImportKind};
use crate::iterate::view::{
    CompactionView, IterateError, ProjectionView, RequestSummary, RequestView, Tip,
};
use crate::iterate::{IterateJournal, Transport};
use crate::store::{JournalRow, Store, StoreError, StoredEvent, UNTYPED};

#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("no such file: {0}")]
    NotFound(PathBuf),
    #[error(transparent)]
    Import(#[from] ImportError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Iterate(#[from] IterateError),
    #[error("this is an {found} journal; {wanted} views need an {wanted} journal")]
    WrongDialect {
        found: &'static str,
        wanted: &'static str,
    },
    #[error(
        "the search index is still being built ({indexed} of {total} events); search again in a moment"
    )]
    Indexing { indexed: u64, total: u64 },
    #[error("no event at position {0}")]
    NoSuchEvent(u64),
    #[error(
        "this view needs the whole journal, which is still loading: it shows once loading ends"
    )]
    Loading,
    #[error("cannot write {what}: {source}")]
    Write {
        what: String,
        source: std::io::Error,
    },
    #[error("cannot write the demo journal to {path}: {source}")]
    Demo {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl JournalError {
    /// A stable code for tools and for the desktop's error display.
    pub fn code(&self) -> &'static str {
        match self {
            JournalError::NotFound(_) => "not-found",
            JournalError::Import(ImportError::Cancelled) => "cancelled",
            JournalError::Import(ImportError::Read { .. }) => "unreadable",
            JournalError::Import(ImportError::NotAJournal { .. }) => "not-a-journal",
            JournalError::Import(ImportError::Store(StoreError::TooNew { .. }))
            | JournalError::Store(StoreError::TooNew { .. }) => "database-too-new",
            JournalError::Import(ImportError::Store(_)) | JournalError::Store(_) => "database",
            JournalError::Iterate(IterateError::NotARequest(_)) => "not-a-request",
            JournalError::Iterate(IterateError::NotACompaction(_)) => "not-a-compaction",
            JournalError::Iterate(IterateError::NoEarlierRequest(_)) => "no-earlier-request",
            JournalError::WrongDialect { .. } => "wrong-dialect",
            JournalError::NoSuchEvent(_) => "no-such-event",
            JournalError::Loading => "loading",
            JournalError::Indexing { .. } => "indexing",
            JournalError::Demo { .. } => "demo",
            JournalError::Write { .. } => "unwritable",
        }
    }
}

/// The journals bundled with Journalscope, embedded in the binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum Demo {
    Iterate,
    AgUi,
    AgentsKit,
}

impl Demo {
    pub fn file_name(self) -> &'static str {
        match self {
            Demo::Iterate => "iterate-demo.jsonl",
            Demo::AgUi => "agui-demo.sse",
            Demo::AgentsKit => "agentskit-demo.ndjson",
        }
    }

    pub fn bytes(self) -> &'static [u8] {
        match self {
            Demo::Iterate => include_bytes!("../demo/iterate-demo.jsonl"),
            Demo::AgUi => include_bytes!("../demo/agui-demo.sse"),
            Demo::AgentsKit => include_bytes!("../demo/agentskit-demo.ndjson"),
        }
    }

    /// `demo`, `demo:ag-ui`, `demo:agentskit` on the command line.
    pub fn from_argument(text: &str) -> Option<Demo> {
        match text {
            "demo" | "demo:iterate" => Some(Demo::Iterate),
            "demo:ag-ui" | "demo:agui" => Some(Demo::AgUi),
            "demo:agentskit" => Some(Demo::AgentsKit),
            _ => None,
        }
    }
}

/// Where cached databases and demo files live: `$JOURNALSCOPE_CACHE_DIR`, else the XDG cache
/// directory.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("JOURNALSCOPE_CACHE_DIR") {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(dir).join("journalscope");
    }
    if let Some(home) = std::env::var_os("HOME") {
        return PathBuf::from(home).join(".cache").join("journalscope");
    }
    std::env::temp_dir().join("journalscope")
}

/// The cached database of a journal file: one per canonical path.
pub fn cached_db_path(source: &Path) -> PathBuf {
    let name = import::source_name(source);
    let hash = blake3::hash(name.as_bytes()).to_hex();
    let stem = source
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "journal".to_string());
    cache_dir().join(format!("{stem}-{}.sqlite", &hash.as_str()[..16]))
}

pub fn is_database(path: &Path) -> bool {
    std::fs::File::open(path)
        .and_then(|mut f| {
            let mut magic = [0u8; 16];
            std::io::Read::read_exact(&mut f, &mut magic).map(|_| magic)
        })
        .is_ok_and(|magic| &magic == b"SQLite format 3\0")
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct JournalInfo {
    pub path: String,
    pub file_name: String,
    pub db_path: String,
    pub dialect: Dialect,
    pub framing: String,
    #[ts(type = "number")]
    pub event_count: u64,
    #[ts(type = "number | null")]
    pub first_offset: Option<i64>,
    #[ts(type = "number | null")]
    pub last_offset: Option<i64>,
    #[ts(type = "number")]
    pub errors: u64,
    #[ts(type = "number")]
    pub warnings: u64,
    pub import_kind: ImportKind,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct EventQuery {
    /// Only these types (empty: all).
    #[serde(default)]
    pub types: Vec<String>,
    /// Case-insensitive text found in the summary or the raw record.
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    #[ts(type = "number")]
    pub start: u64,
    #[serde(default = "default_limit")]
    #[ts(type = "number")]
    pub limit: u64,
}

fn default_limit() -> u64 {
    200
}

impl EventQuery {
    /// Whether the query leaves events out (a type or text filter).
    pub fn is_filtered(&self) -> bool {
        !self.types.is_empty() || self.text.as_ref().is_some_and(|t| !t.is_empty())
    }
}

impl Default for EventQuery {
    fn default() -> Self {
        EventQuery {
            types: Vec::new(),
            text: None,
            start: 0,
            limit: default_limit(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct EventRow {
    #[ts(type = "number")]
    pub seq: u64,
    #[ts(type = "number | null")]
    pub offset: Option<i64>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub created_at: Option<String>,
    pub summary: String,
    pub marks: Vec<String>,
    pub severity: Option<Severity>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct EventPage {
    #[ts(type = "number")]
    pub total: u64,
    #[ts(type = "number")]
    pub start: u64,
    pub rows: Vec<EventRow>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct TypeCount {
    #[serde(rename = "type")]
    pub kind: String,
    #[ts(type = "number")]
    pub count: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct EventDetail {
    #[ts(type = "number")]
    pub seq: u64,
    #[ts(type = "number")]
    pub line: u64,
    #[ts(type = "number")]
    pub byte_start: u64,
    #[ts(type = "number")]
    pub byte_len: u64,
    #[ts(type = "number | null")]
    pub offset: Option<i64>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub created_at: Option<String>,
    /// The record exactly as it was in the file.
    pub raw: String,
    /// The record pretty-printed, when it is JSON.
    pub pretty: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
    pub marks: Vec<Mark>,
}

/// The mark kinds the timeline draws; the others (downgrades, verdicts, ...) are badges in
/// the event list.
pub const TIMELINE_MARK_KINDS: &[&str] = &[
    "request",
    "compaction",
    "diagnostic",
    "error",
    "run-start",
    "run-end",
];

/// Spans the timeline's marks are thinned to: finer than any screen's pixels.
pub const TIMELINE_MARK_BINS: u64 = 4096;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Timeline {
    #[ts(type = "number")]
    pub event_count: u64,
    pub marks: Vec<Mark>,
    /// Events per bucket across the journal; every bucket spans the same number of events.
    pub density: Vec<u32>,
    /// Seqs that carry an error or warning diagnostic.
    #[ts(type = "number[]")]
    pub diagnostic_seqs: Vec<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum StepTarget {
    Event,
    Request,
    Compaction,
    Diagnostic,
}

pub struct Journal {
    store: Store,
    row: JournalRow,
    db_path: PathBuf,
    import_kind: ImportKind,
    event_count: u64,
    /// An iterate journal's events parsed for folding; `None` until loaded (see
    /// [`Journal::open_unloaded`]).
    iterate: Option<IterateJournal>,
    /// The projection after the last event, from the analysis: what an iterate journal shows
    /// at its end before it is loaded. Only a tip of exactly `event_count` events is kept.
    tip: Option<Tip>,
    /// The events the last filter of the event list kept.
    filtered: std::sync::Mutex<FilteredSeqs>,
}

/// The seqs a filter of the event list keeps, found by one scan and kept for the pages, the
/// total and the row lookups that follow: each of those was a scan of every event, about a
/// second apiece at a million events with a text filter.
#[derive(Default)]
struct FilteredSeqs {
    journal_id: i64,
    types: Vec<String>,
    text: Option<String>,
    /// How many events were scanned: a journal that grew since scans only its new ones.
    scanned: u64,
    seqs: Vec<u64>,
}

/// How far from the start an unloaded iterate journal folds on demand: the projection at the
/// first events, shown as a journal opens, is a fold of a few thousand records read from the
/// store.
const PREFIX_FOLD_LIMIT: u64 = 20_000;

/// Loading an iterate journal's events for folding, apart from the journal itself: on its own
/// connection, so that a window keeps answering from the journal while this runs.
pub struct ViewsLoad {
    db_path: PathBuf,
    journal_id: i64,
    events: u64,
}

/// What a [`ViewsLoad`] read, for [`Journal::install`].
pub struct LoadedViews {
    db_path: PathBuf,
    journal_id: i64,
    events: u64,
    iterate: IterateJournal,
}

impl ViewsLoad {
    /// Events to parse, for a progress figure.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// The database the load reads.
    pub fn db_path(&self) -> &Path {
        &self.db_path
    }

    /// The journal generation it reads.
    pub fn journal_id(&self) -> i64 {
        self.journal_id
    }

    /// Reads and parses every event, telling `watch` how many are done; `None` when the watch
    /// abandoned it.
    ///
    /// A journal stored before tips were kept (migration 7) gets one here, so that it opens
    /// at its end at once the next time.
    pub fn run(self, watch: FoldWatch<'_>) -> Result<Option<LoadedViews>, JournalError> {
        let store = Store::open_existing(&self.db_path)?;
        let Some(iterate) = IterateJournal::from_store(&store, self.journal_id, watch)? else {
            return Ok(None);
        };
        if store.tip(self.journal_id)?.is_none() {
            // A cache of the fold: a database that cannot be written to (or is busy) costs the
            // next open its head start, nothing else.
            let _ = store.keep_tip(self.journal_id, iterate.analyse().tip.as_ref());
        }
        Ok(Some(LoadedViews {
            db_path: self.db_path,
            journal_id: self.journal_id,
            events: iterate.records(),
            iterate,
        }))
    }
}

fn no_progress(_: import::ImportProgress) {}

impl Journal {
    /// Opens a journal file (importing it into its cached database, or `db`), or a database
    /// written by `import`.
    pub fn open(
        path: &Path,
        db: Option<&Path>,
        control: &mut ImportControl<'_>,
    ) -> Result<Journal, JournalError> {
        let mut journal = Journal::open_unloaded(path, db, control)?;
        journal.load_events(control)?;
        Ok(journal)
    }

    /// [`Journal::open`] without loading an iterate journal's events: what needs only the
    /// store (event pages, the timeline, stepping, the projection at the journal's end and at
    /// its first events) answers at once, and the rest says [`JournalError::Loading`] until
    /// [`Journal::install`] gets what [`Journal::views_load`] read. A window opens a
    /// million-event journal this way instead of parsing a gigabyte before showing it.
    pub fn open_unloaded(
        path: &Path,
        db: Option<&Path>,
        control: &mut ImportControl<'_>,
    ) -> Result<Journal, JournalError> {
        if !path.exists() {
            return Err(JournalError::NotFound(path.to_path_buf()));
        }
        if is_database(path) {
            let store = Store::open_existing(path)?;
            return Journal::read(store, path.to_path_buf(), ImportKind::Unchanged);
        }
        let db_path = db
            .map(Path::to_path_buf)
            .unwrap_or_else(|| cached_db_path(path));
        if let Some(parent) = db_path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| ImportError::Read {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        let store = Store::open(&db_path)?;
        let outcome = import::import_file(&store, path, control)?;
        Journal::read(store, db_path, outcome.kind)
    }

    /// The load an unloaded iterate journal still needs, if any.
    pub fn views_load(&self) -> Option<ViewsLoad> {
        (self.row.dialect == Dialect::Iterate && self.iterate.is_none()).then(|| ViewsLoad {
            db_path: self.db_path.clone(),
            journal_id: self.row.id,
            events: self.event_count,
        })
    }

    /// Takes in what a [`ViewsLoad`] of this journal read, extended over whatever a follower
    /// appended since. False (and nothing changes) when it was read for another journal or
    /// generation, or this one is loaded already.
    pub fn install(&mut self, loaded: LoadedViews) -> Result<bool, JournalError> {
        if loaded.db_path != self.db_path
            || loaded.journal_id != self.row.id
            || self.iterate.is_some()
            || loaded.events > self.event_count
        {
            return Ok(false);
        }
        let mut iterate = loaded.iterate;
        if loaded.events < self.event_count {
            iterate.extend_from_store(&self.store, self.row.id, loaded.events, self.event_count)?;
        }
        self.iterate = Some(iterate);
        self.tip = None;
        Ok(true)
    }

    /// Whether every view answers, or some wait for [`Journal::install`].
    pub fn is_loaded(&self) -> bool {
        self.views_load().is_none()
    }

    pub fn open_quietly(path: &Path) -> Result<Journal, JournalError> {
        let mut progress = no_progress;
        Journal::open(
            path,
            None,
            &mut ImportControl {
                progress: &mut progress,
                cancel: None,
            },
        )
    }

    /// Writes a bundled demo journal into the cache directory (unless it is already there,
    /// byte for byte) and opens it.
    pub fn open_demo(demo: Demo, control: &mut ImportControl<'_>) -> Result<Journal, JournalError> {
        let path = demo_path(demo)?;
        Journal::open(&path, None, control)
    }

    /// Reads what the views need from the store, reporting progress as the `Loading` stage.
    fn load(
        store: Store,
        db_path: PathBuf,
        import_kind: ImportKind,
        control: &mut ImportControl<'_>,
    ) -> Result<Journal, JournalError> {
        let mut journal = Journal::read(store, db_path, import_kind)?;
        journal.load_events(control)?;
        Ok(journal)
    }

    /// Parses an unloaded iterate journal's events here and now, on this journal's connection,
    /// reporting progress as the `Loading` stage. Does nothing to a loaded journal.
    pub fn load_events(&mut self, control: &mut ImportControl<'_>) -> Result<(), JournalError> {
        if self.is_loaded() {
            return Ok(());
        }
        let event_count = self.event_count;
        let mut watch = |loaded: u64| {
            (control.progress)(import::ImportProgress {
                done_bytes: 0,
                total_bytes: 0,
                events: event_count,
                stage: import::ImportStage::Loading,
                analysed: loaded,
            });
            if control.cancelled() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        match IterateJournal::from_store(&self.store, self.row.id, &mut watch)? {
            Some(iterate) => {
                self.iterate = Some(iterate);
                self.tip = None;
                Ok(())
            }
            None => Err(ImportError::Cancelled.into()),
        }
    }

    /// Reads the journal's rows and derived tables, and an AG-UI or AgentsKit journal's
    /// events; an iterate journal's events wait for a load.
    fn read(
        store: Store,
        db_path: PathBuf,
        import_kind: ImportKind,
    ) -> Result<Journal, JournalError> {
        let row = store.latest_journal()?.ok_or(StoreError::Empty)?;
        let event_count = store.event_count(row.id)?;
        let tip = current_tip(&store, row.id, event_count)?;
        Ok(Journal {
            store,
            row,
            db_path,
            import_kind,
            event_count,
            iterate: None,
            tip,
            filtered: std::sync::Mutex::default(),
        })
    }

    /// Takes in what a follower appended to the store: only the new events are read and
    /// parsed (the derived marks and diagnostics are read again). A new generation (the file
    /// was replaced) is loaded whole.
    pub fn reload(self) -> Result<Journal, JournalError> {
        self.reload_as(true)
    }

    /// [`Journal::reload`], except that a new generation comes back unloaded, as
    /// [`Journal::open_unloaded`] opens one: a window reloads without parsing a whole journal
    /// while it holds the journal, and loads the events in the background.
    pub fn reload_unloaded(self) -> Result<Journal, JournalError> {
        self.reload_as(false)
    }

    fn reload_as(mut self, load_new: bool) -> Result<Journal, JournalError> {
        let latest = self.store.latest_journal()?.ok_or(StoreError::Empty)?;
        let event_count = self.store.event_count(latest.id)?;
        if latest.id == self.row.id
            && latest.dialect == self.row.dialect
            && event_count >= self.event_count
        {
            match &mut self.iterate {
                Some(iterate) => iterate.extend_from_store(
                    &self.store,
                    latest.id,
                    self.event_count,
                    event_count,
                )?,
                // Still loading: the install extends the load over what was appended.
                None if latest.dialect == Dialect::Iterate => {
                    self.tip = current_tip(&self.store, latest.id, event_count)?;
                }
                // The other dialects' views read the store as they are asked.
                None => {}
            }
            self.event_count = event_count;
            self.row = latest;
            return Ok(self);
        }
        let Journal {
            store,
            db_path,
            import_kind,
            ..
        } = self;
        if !load_new {
            return Journal::read(store, db_path, import_kind);
        }
        let mut progress = no_progress;
        let mut control = ImportControl {
            progress: &mut progress,
            cancel: None,
        };
        Journal::load(store, db_path, import_kind, &mut control)
    }

    /// The database file this journal lives in.
    pub fn db_path(&self) -> &Path {
        &self.db_path
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn row(&self) -> &JournalRow {
        &self.row
    }

    pub fn dialect(&self) -> Dialect {
        self.row.dialect
    }

    /// Events the store held when the journal was loaded (or last reloaded).
    pub fn event_count(&self) -> u64 {
        self.event_count
    }

    pub fn info(&self) -> Result<JournalInfo, JournalError> {
        let (first_offset, last_offset): (Option<i64>, Option<i64>) = self
            .store
            .connection()
            .query_row(
                "SELECT min(offset), max(offset) FROM events WHERE journal_id = ?1",
                [self.row.id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(StoreError::from)?;
        let (errors, warnings) = self.store.diagnostic_counts(self.row.id)?;
        let path = PathBuf::from(&self.row.source_path);
        Ok(JournalInfo {
            file_name: path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            path: self.row.source_path.clone(),
            db_path: self.db_path.to_string_lossy().into_owned(),
            dialect: self.row.dialect,
            framing: self.row.framing.as_str().to_string(),
            event_count: self.event_count,
            first_offset,
            last_offset,
            errors,
            warnings,
            import_kind: self.import_kind,
        })
    }

    /// Every diagnostic, read from the store: for the whole-journal lists that ask for them.
    pub fn diagnostics(&self) -> Result<Vec<Diagnostic>, JournalError> {
        Ok(self
            .diagnostics_with_seq()?
            .into_iter()
            .map(|(_, d)| d)
            .collect())
    }

    pub fn diagnostics_with_seq(&self) -> Result<Vec<(u64, Diagnostic)>, JournalError> {
        Ok(self.store.diagnostics(self.row.id)?)
    }

    /// How many diagnostics of each code the journal has.
    pub fn diagnostic_codes(&self) -> Result<Vec<(String, u64)>, JournalError> {
        Ok(self.store.diagnostic_codes(self.row.id)?)
    }

    pub fn marks(&self) -> Result<Vec<Mark>, JournalError> {
        Ok(self.store.marks(self.row.id)?)
    }

    pub fn event_types(&self) -> Result<Vec<TypeCount>, JournalError> {
        Ok(self
            .store
            .type_counts(self.row.id)?
            .into_iter()
            .map(|(kind, count)| TypeCount { kind, count })
            .collect())
    }

    fn filter_sql(&self, query: &EventQuery) -> (String, Vec<rusqlite::types::Value>) {
        use rusqlite::types::Value as Sql;
        let mut clause = String::from("journal_id = ?");
        let mut params = vec![Sql::Integer(self.row.id)];
        if !query.types.is_empty() {
            clause.push_str(&format!(" AND coalesce(type, '{UNTYPED}') IN ("));
            clause.push_str(&vec!["?"; query.types.len()].join(", "));
            clause.push(')');
            params.extend(query.types.iter().map(|t| Sql::Text(t.clone())));
        }
        if let Some(text) = query.text.as_ref().filter(|t| !t.is_empty()) {
            let contains = crate::text_match::FUNCTION;
            clause.push_str(&format!(
                " AND ({contains}(summary, ?) OR {contains}((SELECT raw FROM event_bytes \
                 WHERE id = (journal_id << 40) | seq), ?))"
            ));
            params.push(Sql::Text(text.clone()));
            params.push(Sql::Text(text.clone()));
        }
        (clause, params)
    }

    /// Answers `answer` from the seqs `query` keeps, in order, scanning only the events not
    /// scanned for the same filter before.
    fn with_filtered<T>(
        &self,
        query: &EventQuery,
        answer: impl FnOnce(&[u64]) -> T,
    ) -> Result<T, JournalError> {
        let text = query.text.clone().filter(|t| !t.is_empty());
        // Seqs and `scanned` change together, after a scan succeeds, so a poisoned lock still
        // holds a consistent filter.
        let mut kept = self.filtered.lock().unwrap_or_else(|e| e.into_inner());
        let same = kept.journal_id == self.row.id
            && kept.types == query.types
            && kept.text == text
            && kept.scanned <= self.event_count;
        if !same {
            *kept = FilteredSeqs {
                journal_id: self.row.id,
                types: query.types.clone(),
                text,
                scanned: 0,
                seqs: Vec::new(),
            };
        }
        if kept.scanned < self.event_count {
            let (clause, mut params) = self.filter_sql(query);
            // Up to the count this journal knows: a follower may have stored more already, which
            // the next reload takes in (and this scan then extends over).
            params.push(rusqlite::types::Value::Integer(kept.scanned as i64));
            params.push(rusqlite::types::Value::Integer(self.event_count as i64));
            let mut stmt = self
                .store
                .connection()
                .prepare(&format!(
                    "SELECT seq FROM events WHERE {clause} AND seq >= ? AND seq < ? ORDER BY seq"
                ))
                .map_err(StoreError::from)?;
            let found = stmt
                .query_map(rusqlite::params_from_iter(params.iter()), |r| {
                    r.get::<_, i64>(0)
                })
                .map_err(StoreError::from)?;
            // Into a list of its own first: a scan that fails midway must not leave half its
            // seqs behind, to be found again by the next one.
            let found: Vec<i64> = found.collect::<Result<_, _>>().map_err(StoreError::from)?;
            kept.seqs.extend(found.into_iter().map(|seq| seq as u64));
            kept.scanned = self.event_count;
        }
        Ok(answer(&kept.seqs))
    }

    /// One page of the (filtered) event list, read from SQLite.
    pub fn events_page(&self, query: &EventQuery) -> Result<EventPage, JournalError> {
        let limit = query.limit.min(10_000);
        // Seqs are dense, so an unfiltered page is a range of them.
        let (total, seqs): (u64, Vec<u64>) = if query.is_filtered() {
            self.with_filtered(query, |seqs| {
                let start = (query.start as usize).min(seqs.len());
                let end = start.saturating_add(limit as usize).min(seqs.len());
                (seqs.len() as u64, seqs[start..end].to_vec())
            })?
        } else {
            let end = query.start.saturating_add(limit).min(self.event_count);
            (self.event_count, (query.start.min(end)..end).collect())
        };
        let mut rows = Vec::with_capacity(seqs.len());
        if let (Some(first), Some(last)) = (seqs.first(), seqs.last()) {
            let conn = self.store.connection();
            let row_of = |r: &rusqlite::Row<'_>| -> rusqlite::Result<EventRow> {
                Ok(EventRow {
                    seq: r.get::<_, i64>(0)? as u64,
                    offset: r.get(1)?,
                    kind: r.get(2)?,
                    created_at: r.get(3)?,
                    summary: r.get(4)?,
                    marks: Vec::new(),
                    severity: None,
                })
            };
            // A page whose seqs are dense is one range read; a sparse one, a lookup each.
            if last - first + 1 == seqs.len() as u64 {
                let mut stmt = conn
                    .prepare_cached(
                        "SELECT seq, offset, type, created_at, summary FROM events
                         WHERE journal_id = ?1 AND seq >= ?2 AND seq <= ?3 ORDER BY seq",
                    )
                    .map_err(StoreError::from)?;
                let found = stmt
                    .query_map(
                        rusqlite::params![self.row.id, *first as i64, *last as i64],
                        row_of,
                    )
                    .map_err(StoreError::from)?;
                for row in found {
                    rows.push(row.map_err(StoreError::from)?);
                }
            } else {
                let mut stmt = conn
                    .prepare_cached(
                        "SELECT seq, offset, type, created_at, summary FROM events
                         WHERE journal_id = ?1 AND seq = ?2",
                    )
                    .map_err(StoreError::from)?;
                for seq in &seqs {
                    rows.push(
                        stmt.query_row(rusqlite::params![self.row.id, *seq as i64], row_of)
                            .map_err(StoreError::from)?,
                    );
                }
            }
        }
        // A dense page reads its marks and diagnostics in one range each; a sparse one (a
        // filter's rows, far apart) by each row's seq.
        let id = self.row.id;
        let dense = rows
            .first()
            .zip(rows.last())
            .is_some_and(|(first, last)| last.seq - first.seq + 1 == rows.len() as u64);
        let (mut marks, mut diagnostics) = match (dense, rows.first(), rows.last()) {
            (true, Some(first), Some(last)) => (
                self.store.marks_between(id, first.seq, last.seq + 1)?,
                self.store
                    .diagnostics_between(id, first.seq, last.seq + 1)?,
            ),
            _ => (Vec::new(), Vec::new()),
        };
        for row in &mut rows {
            if !dense {
                marks = self.store.marks_between(id, row.seq, row.seq + 1)?;
                diagnostics = self.store.diagnostics_between(id, row.seq, row.seq + 1)?;
            }
            let start = marks.partition_point(|m| m.seq < row.seq);
            for mark in marks[start..].iter().take_while(|m| m.seq == row.seq) {
                if !row.marks.contains(&mark.kind) {
                    row.marks.push(mark.kind.clone());
                }
            }
            let start = diagnostics.partition_point(|(seq, _)| *seq < row.seq);
            row.severity = diagnostics[start..]
                .iter()
                .take_while(|(seq, _)| *seq == row.seq)
                .map(|(_, d)| d.severity)
                .min();
            // Advice is listed in the detail pane but wears no alarm badge in the list.
            if row
                .severity
                .is_some_and(|s| matches!(s, Severity::Error | Severity::Warning))
            {
                row.marks.push("diagnostic".to_string());
            }
        }
        Ok(EventPage {
            total,
            start: query.start,
            rows,
        })
    }

    /// Every event with an offset in `from..=to` (events without one are listed when no range
    /// is given), optionally of one type: its full name or its last path segment.
    pub fn list_events(
        &self,
        from: Option<i64>,
        to: Option<i64>,
        kind: Option<&str>,
    ) -> Result<Vec<EventRow>, JournalError> {
        let mut rows = self
            .events_page(&EventQuery {
                limit: u64::MAX,
                ..EventQuery::default()
            })?
            .rows;
        while (rows.len() as u64) < self.event_count {
            let page = self.events_page(&EventQuery {
                start: rows.len() as u64,
                limit: u64::MAX,
                ..EventQuery::default()
            })?;
            if page.rows.is_empty() {
                break;
            }
            rows.extend(page.rows);
        }
        rows.retain(|row| {
            let in_range = match (from, to, row.offset) {
                (None, None, _) => true,
                (_, _, None) => false,
                (from, to, Some(offset)) => {
                    from.is_none_or(|f| offset >= f) && to.is_none_or(|t| offset <= t)
                }
            };
            let of_kind = kind.is_none_or(|wanted| {
                row.kind
                    .as_deref()
                    .is_some_and(|k| k == wanted || k.rsplit('/').next() == Some(wanted))
            });
            in_range && of_kind
        });
        Ok(rows)
    }

    /// Where `seq` sits in the filtered list, if the filter keeps it.
    pub fn row_of_seq(&self, query: &EventQuery, seq: u64) -> Result<Option<u64>, JournalError> {
        // Seqs are dense, so without a filter the row is the seq: counting the rows before it
        // read the whole table up to there, 145 ms a step at 100,000 events.
        if !query.is_filtered() {
            return Ok((seq < self.event_count).then_some(seq));
        }
        self.with_filtered(query, |seqs| {
            seqs.binary_search(&seq).ok().map(|row| row as u64)
        })
    }

    pub fn event(&self, seq: u64) -> Result<StoredEvent, JournalError> {
        self.store
            .event(self.row.id, seq)?
            .ok_or(JournalError::NoSuchEvent(seq))
    }

    pub fn event_detail(&self, seq: u64) -> Result<EventDetail, JournalError> {
        let event = self.event(seq)?;
        let pretty = event
            .json()
            .and_then(|v| serde_json::to_string_pretty(&v).ok());
        // A step seeks its event's entries by seq instead of scanning every mark and
        // diagnostic of the journal.
        let mut diagnostics: Vec<Diagnostic> = self
            .store
            .diagnostics_between(self.row.id, seq, seq + 1)?
            .into_iter()
            .map(|(_, d)| d)
            .collect();
        diagnostics.dedup();
        Ok(EventDetail {
            seq,
            line: event.line,
            byte_start: event.byte_start,
            byte_len: event.byte_len,
            offset: event.offset,
            kind: event.kind.clone(),
            created_at: event.created_at.clone(),
            raw: event.raw_text(),
            pretty,
            diagnostics,
            marks: self.store.marks_between(self.row.id, seq, seq + 1)?,
        })
    }

    /// The scrubber's picture of the journal: density in `buckets`, and the marks it draws
    /// (`TIMELINE_MARK_KINDS`), at most one per kind in each of `TIMELINE_MARK_BINS` equal
    /// spans of the journal. Sending every mark made opening a 200,000-event journal ship
    /// 4.5 MB to the window for a strip a few hundred pixels wide.
    pub fn timeline(&self, buckets: u32) -> Result<Timeline, JournalError> {
        let buckets = buckets.clamp(1, 4096) as u64;
        let count = self.event_count;
        let mut density = vec![0u32; buckets.min(count.max(1)) as usize];
        let width = count.div_ceil(density.len() as u64).max(1);
        for (bucket, slot) in density.iter_mut().enumerate() {
            let start = bucket as u64 * width;
            *slot = count.saturating_sub(start).min(width) as u32;
        }
        let bin_width = count.div_ceil(TIMELINE_MARK_BINS).max(1);
        let id = self.row.id;
        Ok(Timeline {
            event_count: count,
            marks: self
                .store
                .thinned_marks(id, TIMELINE_MARK_KINDS, bin_width)?,
            density,
            diagnostic_seqs: self.store.thinned_diagnostic_seqs(id, bin_width)?,
        })
    }

    /// The next (or previous) event of a kind from `from`.
    pub fn step(
        &self,
        from: u64,
        target: StepTarget,
        forward: bool,
    ) -> Result<Option<u64>, JournalError> {
        let id = self.row.id;
        Ok(match target {
            StepTarget::Event => {
                if forward {
                    (from + 1 < self.event_count).then_some(from + 1)
                } else {
                    from.checked_sub(1)
                }
            }
            StepTarget::Request => self.store.next_mark(id, "request", Some(from), forward)?,
            StepTarget::Compaction => {
                self.store
                    .next_mark(id, "compaction", Some(from), forward)?
            }
            StepTarget::Diagnostic => self.store.next_diagnostic(id, Some(from), forward)?,
        })
    }

    /// The event at `offset`, or the last one before it.
    pub fn seq_of_offset(&self, offset: i64) -> Result<Option<u64>, JournalError> {
        Ok(self
            .store
            .connection()
            .query_row(
                "SELECT seq FROM events WHERE journal_id = ?1 AND offset <= ?2
                 ORDER BY offset DESC, seq DESC LIMIT 1",
                rusqlite::params![self.row.id, offset],
                |r| r.get::<_, i64>(0),
            )
            .optional_row()?
            .map(|s| s as u64))
    }

    /// The offset the views fold through when `seq` is selected: its own, or the nearest
    /// earlier one when the event has none.
    pub fn offset_at_seq(&self, seq: u64) -> Result<Option<i64>, JournalError> {
        Ok(self
            .store
            .connection()
            .query_row(
                "SELECT offset FROM events WHERE journal_id = ?1 AND seq <= ?2 AND offset IS NOT NULL
                 ORDER BY seq DESC LIMIT 1",
                rusqlite::params![self.row.id, seq as i64],
                |r| r.get::<_, i64>(0),
            )
            .optional_row()?)
    }

    pub(crate) fn iterate(&self) -> Result<&IterateJournal, JournalError> {
        if self.row.dialect != Dialect::Iterate {
            return Err(JournalError::WrongDialect {
                found: self.row.dialect.as_str(),
                wanted: "iterate",
            });
        }
        self.iterate.as_ref().ok_or(JournalError::Loading)
    }

    /// The parsed events of an iterate journal, for `bench` to time a fold from the start.
    pub fn iterate_events(&self) -> Option<&[crate::iterate::event::IterateEvent]> {
        self.iterate
            .as_ref()
            .map(|journal| journal.events.as_slice())
    }

    pub fn projection(&self, at: i64) -> Result<ProjectionView, JournalError> {
        match self.iterate() {
            Err(JournalError::Loading) => self.unloaded_projection(at),
            loaded => Ok(loaded?.projection_view(at)),
        }
    }

    /// The projection at `at` of a journal not loaded yet: the tip's, at or past the last
    /// offset; near the start, a fold of the records at or before `at` read from the store,
    /// which gives what a loaded journal gives (the same records, folded in file order).
    fn unloaded_projection(&self, at: i64) -> Result<ProjectionView, JournalError> {
        if let Some(view) = self.tip.as_ref().and_then(|tip| tip.view_at(at)) {
            return Ok(view);
        }
        if let Some(view) = crate::iterate::checkpoint::view_at(&self.store, self.row.id, at)? {
            return Ok(view);
        }
        let beyond_prefix: bool = self
            .store
            .connection()
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM events
                  WHERE journal_id = ?1 AND offset <= ?2 AND seq >= ?3)",
                rusqlite::params![self.row.id, at, PREFIX_FOLD_LIMIT as i64],
                |r| r.get(0),
            )
            .map_err(StoreError::from)?;
        if beyond_prefix {
            return Err(JournalError::Loading);
        }
        let records = self.store.events_through_offset(self.row.id, at)?;
        Ok(IterateJournal::from_stored(&records).projection_view(at))
    }

    pub fn projection_at_seq(&self, seq: u64) -> Result<ProjectionView, JournalError> {
        let at = self.offset_at_seq(seq)?.unwrap_or(i64::MIN);
        let mut view = self.projection(at)?;
        if at == i64::MIN {
            view.at = 0;
        }
        Ok(view)
    }

    pub fn requests(&self) -> Result<Vec<RequestSummary>, JournalError> {
        Ok(self.iterate()?.requests())
    }

    pub fn request(
        &self,
        request_offset: i64,
        transport: Transport,
    ) -> Result<crate::iterate::render::RequestSnapshot, JournalError> {
        match self.iterate() {
            Err(JournalError::Loading) => {
                match crate::iterate::checkpoint::request_at(
                    &self.store,
                    self.row.id,
                    request_offset,
                    transport,
                )? {
                    Some(snapshot) => Ok(snapshot?),
                    None => Err(JournalError::Loading),
                }
            }
            loaded => Ok(loaded?.request(request_offset, transport)?),
        }
    }

    pub fn request_view(
        &self,
        request_offset: i64,
        transport: Transport,
    ) -> Result<RequestView, JournalError> {
        Ok(self.iterate()?.request_view(request_offset, transport)?)
    }

    /// The exact provider body, as `request -o` writes it.
    pub fn request_body(
        &self,
        request_offset: i64,
        transport: Transport,
    ) -> Result<Vec<u8>, JournalError> {
        Ok(self.request(request_offset, transport)?.body())
    }

    pub fn compaction(&self, offset: i64) -> Result<CompactionView, JournalError> {
        Ok(self.iterate()?.compaction(offset)?)
    }
}

/// Views of the AG-UI and AgentsKit dialects. Their offsets are positions, so the event at
/// `seq` has offset `seq + 1`.
impl Journal {
    fn expect(&self, dialect: Dialect) -> Result<(), JournalError> {
        if self.row.dialect != dialect {
            return Err(JournalError::WrongDialect {
                found: self.row.dialect.as_str(),
                wanted: dialect.as_str(),
            });
        }
        Ok(())
    }

    /// The step at `seq`, from the checkpoint before it and the stored records after that.
    pub fn agui_step(&self, seq: u64) -> Result<crate::agui::AgUiStep, JournalError> {
        self.expect(Dialect::AgUi)?;
        Ok(crate::agui::step_view_stored(
            &self.store,
            self.row.id,
            seq as i64 + 1,
        )?)
    }

    pub fn agui_runs(&self) -> Result<Vec<crate::agui::RunSpan>, JournalError> {
        self.expect(Dialect::AgUi)?;
        Ok(crate::agui::runs_stored(&self.store, self.row.id)?)
    }

    pub fn agentskit_state(
        &self,
        seq: u64,
        session: Option<&str>,
    ) -> Result<crate::agentskit::SnapshotAt, JournalError> {
        self.expect(Dialect::AgentsKit)?;
        Ok(crate::agentskit::state_at_stored(
            &self.store,
            self.row.id,
            seq as i64 + 1,
            session,
        )?)
    }

    pub fn agentskit_turns(
        &self,
        session: Option<&str>,
    ) -> Result<crate::agentskit::TurnsReport, JournalError> {
        self.expect(Dialect::AgentsKit)?;
        Ok(crate::agentskit::turns_stored(
            &self.store,
            self.row.id,
            session,
        )?)
    }
}

/// Writes a demo journal to the cache directory, leaving an identical copy untouched so its
/// cached database stays valid.
pub fn demo_path(demo: Demo) -> Result<PathBuf, JournalError> {
    let dir = cache_dir().join("demo");
    let path = dir.join(demo.file_name());
    let wrap = |source| JournalError::Demo {
        path: path.clone(),
        source,
    };
    if std::fs::read(&path).ok().as_deref() != Some(demo.bytes()) {
        std::fs::create_dir_all(&dir).map_err(wrap)?;
        std::fs::write(&path, demo.bytes()).map_err(wrap)?;
    }
    Ok(path)
}

trait OptionalRow<T> {
    fn optional_row(self) -> Result<Option<T>, StoreError>;
}

impl<T> OptionalRow<T> for Result<T, rusqlite::Error> {
    fn optional_row(self) -> Result<Option<T>, StoreError> {
        match self {
            Ok(value) => Ok(Some(value)),
            Err(rusqlite::Error::QueryReturnedNoRows) => Ok(None),
            Err(err) => Err(StoreError::Sql(err)),
        }
    }
}

/// Request diff and cache-prefix stability (`iterate::diff`).
impl Journal {
    /// Two requests compared, each rendered on its own transport (`from`, `to`); `from`
    /// defaults to the request before `to`.
    pub fn request_diff(
        &self,
        from: Option<i64>,
        to: i64,
        transports: (Transport, Transport),
    ) -> Result<crate::iterate::diff::RequestDiff, JournalError> {
        let journal = self.iterate()?;
        let from = match from {
            Some(from) => from,
            None => {
                // Validates `to` first, so a bad offset says so rather than "no earlier request".
                journal.request(to, transports.1)?;
                journal
                    .request_before(to)
                    .ok_or(IterateError::NoEarlierRequest(to))?
            }
        };
        Ok(journal.request_diff((from, transports.0), (to, transports.1))?)
    }

    pub fn cache_report(
        &self,
        transport: Transport,
    ) -> Result<crate::iterate::diff::CacheReport, JournalError> {
        Ok(self.iterate()?.cache_report(transport)?)
    }
}

/// The analysis's tip when it describes exactly the `events` the store holds: an append not
/// analysed yet (a cancelled one, say) leaves a tip that would show a stale end.
fn current_tip(store: &Store, journal_id: i64, events: u64) -> Result<Option<Tip>, StoreError> {
    Ok(store
        .tip(journal_id)?
        .and_then(|row| Tip::from_row(&row))
        .filter(|tip| tip.events == events))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::Analysis;

    fn mark(seq: u64, kind: &str) -> Mark {
        Mark {
            seq,
            kind: kind.to_string(),
            note: String::new(),
        }
    }

    #[test]
    fn regression_the_timeline_shipped_every_mark_to_the_window() {
        // Given a request every 7 events and a downgrade on each of 200,000 events
        let events = 200_000u64;
        let marks: Vec<Mark> = (0..events)
            .flat_map(|seq| {
                let mut here = vec![mark(seq, "downgrade")];
                if seq % 7 == 0 {
                    here.push(mark(seq, "request"));
                }
                here
            })
            .collect();
        let store = Store::in_memory().expect("store");
        let analysis = Analysis {
            marks,
            ..Analysis::default()
        };
        store.append_analysis(1, &analysis).expect("keep the marks");
        // When the timeline thins them to its bins
        let width = events.div_ceil(TIMELINE_MARK_BINS);
        let drawn = store
            .thinned_marks(1, TIMELINE_MARK_KINDS, width)
            .expect("thinned");
        // Then it keeps requests only, one a bin, and every bin holding one keeps one
        assert!(
            drawn.iter().all(|m| m.kind == "request"),
            "kinds the timeline does not draw are left out"
        );
        assert_eq!(
            drawn.len() as u64,
            TIMELINE_MARK_BINS.min(events.div_ceil(width)),
            "one request mark in each bin"
        );
        assert_eq!(drawn[0].seq, 0, "a bin keeps its first mark");
        let few = Analysis {
            marks: vec![
                mark(3, "request"),
                mark(3, "compaction"),
                mark(4, "request"),
            ],
            ..Analysis::default()
        };
        store.append_analysis(2, &few).expect("keep the marks");
        assert_eq!(
            store
                .thinned_marks(2, TIMELINE_MARK_KINDS, 1)
                .expect("thinned")
                .len(),
            3,
            "a short journal keeps every mark it draws"
        );
    }
}
