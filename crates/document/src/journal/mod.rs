//! An opened journal: its store and its lifecycle (open, reload after appends and new
//! generations). Opening a journal file imports it into a cached database first. Every view
//! answers from the database on demand; the views live beside it, by job: the event list,
//! stepping, and the folded views of each dialect.

mod ask;
mod demo;
mod error;
mod event_list;
mod stepping;
mod views;

pub use demo::{demo_path, is_database, Demo, DemoListing};
pub use error::JournalError;
pub use event_list::{EventDetail, EventPage, EventQuery, EventRow, TypeCount};
pub use journalscope_ingest::import::{cache_dir, cached_db_path};
pub use stepping::{StepTarget, Timeline, TIMELINE_MARK_BINS, TIMELINE_MARK_KINDS};

use std::path::{Path, PathBuf};

use serde::Serialize;
use ts_rs::TS;

use journalscope_ingest::import::{self, ImportControl, ImportError, ImportKind};
use journalscope_registry::dialect::{Dialect, Mark};
use journalscope_shapes::diagnostic::Diagnostic;
use journalscope_store::store::{JournalRow, Store, StoreError};

use event_list::FilteredSeqs;

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
    /// The iterate contract the journal follows; `None` for the other dialects.
    pub contract: Option<journalscope_iterate::iterate::contract::Contract>,
    /// The controls the window shows for the journal's dialect.
    pub controls: journalscope_seam::interpreter::Controls,
}

pub struct Journal {
    store: Store,
    row: JournalRow,
    db_path: PathBuf,
    import_kind: ImportKind,
    event_count: u64,
    /// The events the last filter of the event list kept.
    filtered: std::sync::Mutex<FilteredSeqs>,
}

fn no_progress(_: import::ImportProgress) {}

impl Journal {
    /// Opens a journal file (importing it into its cached database, or `db`), or a database
    /// written by `import`. Every view then answers from the database: nothing is loaded.
    pub fn open(
        path: &Path,
        db: Option<&Path>,
        control: &mut ImportControl<'_>,
    ) -> Result<Journal, JournalError> {
        if !path.exists() {
            return Err(JournalError::NotFound(path.to_path_buf()));
        }
        if is_database(path) {
            let store = Store::open_existing(path)?;
            return Journal::read(store, path.to_path_buf(), ImportKind::Unchanged, control);
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
        Journal::read(store, db_path, outcome.kind, control)
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

    /// Reads the journal's rows from the store. Derived tables that an older version wrote
    /// are folded again first, reporting progress as the import's fold does; a database that
    /// cannot be written to opens without, its views folding from the checkpoints it has.
    fn read(
        store: Store,
        db_path: PathBuf,
        import_kind: ImportKind,
        control: &mut ImportControl<'_>,
    ) -> Result<Journal, JournalError> {
        let row = store.latest_journal()?.ok_or(StoreError::Empty)?;
        if journalscope_registry::dialect::needs_refold(&store, row.id, row.dialect)? {
            match import::refresh(&store, &row, control) {
                Err(ImportError::Store(StoreError::Sql(_))) => {}
                other => other?,
            }
        }
        let event_count = store.event_count(row.id)?;
        Ok(Journal {
            store,
            row,
            db_path,
            import_kind,
            event_count,
            filtered: std::sync::Mutex::default(),
        })
    }

    /// Takes in what a follower appended to the store: the derived tables already hold what
    /// it folded, so only the journal's figures are read again. A new generation (the file
    /// was replaced) is read afresh.
    pub fn reload(self) -> Result<Journal, JournalError> {
        let latest = self.store.latest_journal()?.ok_or(StoreError::Empty)?;
        let event_count = self.store.event_count(latest.id)?;
        let Journal {
            store,
            db_path,
            import_kind,
            filtered,
            row,
            event_count: known,
            ..
        } = self;
        if latest.id == row.id && latest.dialect == row.dialect && event_count >= known {
            return Ok(Journal {
                store,
                row: latest,
                db_path,
                import_kind,
                event_count,
                filtered,
            });
        }
        let mut progress = no_progress;
        let mut control = ImportControl {
            progress: &mut progress,
            cancel: None,
        };
        Journal::read(store, db_path, import_kind, &mut control)
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
        let (first_offset, last_offset) = self.store.offset_span(self.row.id)?;
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
            contract: self.contract()?,
            controls: journalscope_registry::dialect::controls(&self.store, &self.row)?,
        })
    }

    /// The contract the journal follows, where its dialect has contracts.
    pub fn contract(
        &self,
    ) -> Result<Option<journalscope_iterate::iterate::contract::Contract>, JournalError> {
        Ok(journalscope_registry::dialect::contract(
            &self.store,
            &self.row,
        )?)
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
}
