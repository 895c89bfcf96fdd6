//! An opened journal: its store, the fold-ready form of its events, and its lifecycle (open,
//! load for stepping, reload after appends and new generations). Opening a journal file
//! imports it into a cached database first. The views it answers live beside it, by job: the
//! event list, stepping, and the folded views of each dialect.

mod demo;
mod error;
mod event_list;
mod stepping;
mod views;

pub use demo::{cache_dir, cached_db_path, demo_path, is_database, Demo};
pub use error::JournalError;
pub use event_list::{EventDetail, EventPage, EventQuery, EventRow, TypeCount};
pub use stepping::{StepTarget, Timeline, TIMELINE_MARK_BINS, TIMELINE_MARK_KINDS};

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use serde::Serialize;
use ts_rs::TS;

use crate::diagnostic::Diagnostic;
use crate::dialect::{Dialect, FoldWatch, Mark};
use crate::import::{self, ImportControl, ImportError, ImportKind};
use crate::iterate::view::Tip;
use crate::iterate::IterateJournal;
use crate::store::{JournalRow, Store, StoreError};

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
    pub contract: Option<crate::iterate::contract::Contract>,
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

    /// Whether some view of this journal waits for its events: an unloaded iterate journal
    /// whose checkpoints cannot start a fold at every offset (its offsets do not always
    /// increase). Every other journal answers every view from the store, and is never loaded
    /// by a window.
    pub fn views_wait_for_load(&self) -> Result<bool, JournalError> {
        if self.is_loaded() {
            return Ok(false);
        }
        Ok(!crate::iterate::checkpoint::seekable(
            &self.store,
            self.row.id,
        )?)
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
        })
    }

    /// The iterate contract the journal follows, from the last `contract` mark the analysis
    /// left (each marks where the contract the events show changed); seed when there is none.
    pub fn contract(&self) -> Result<Option<crate::iterate::contract::Contract>, JournalError> {
        use crate::iterate::contract::Contract;
        if self.row.dialect != Dialect::Iterate {
            return Ok(None);
        }
        let Some(seq) = self.store.next_mark(self.row.id, "contract", None, false)? else {
            return Ok(Some(Contract::seed()));
        };
        let marked = self.store.marks_between(self.row.id, seq, seq + 1)?;
        Ok(marked
            .iter()
            .rev()
            .filter(|m| m.kind == "contract")
            .find_map(|m| Contract::from_label(&m.note))
            .or_else(|| Some(Contract::seed())))
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

/// The analysis's tip when it describes exactly the `events` the store holds: an append not
/// analysed yet (a cancelled one, say) leaves a tip that would show a stale end.
fn current_tip(store: &Store, journal_id: i64, events: u64) -> Result<Option<Tip>, StoreError> {
    Ok(store
        .tip(journal_id)?
        .and_then(|row| Tip::from_row(&row))
        .filter(|tip| tip.events == events))
}
