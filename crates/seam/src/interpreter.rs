//! The seam every dialect implements: a reader of each record into the columns the store
//! indexes, a pure fold of the records into what the store derives (diagnostics, marks,
//! request rows, and checkpoints of the fold's state in the dialect's own encoding), and the
//! resumption of that fold from its latest checkpoint. The ingest pipeline drives them; a
//! dialect never sees the pipeline.

use serde_json::Value;

use journalscope_shapes::record_json::{parse_tree, Parsed};

use journalscope_shapes::diagnostic::Diagnostic;
use journalscope_shapes::source::RawRecord;
use journalscope_store::derived::{Analysis, Dialect, ReadEvent};
use journalscope_store::store::{JournalRow, Store, StoreError, StoredEvent};

use crate::family::{Ask, AskError, Family, Reply};

/// Reads records in file order into the columns the store indexes. A reader may keep state
/// (the highest offset so far, say), so one reader follows one journal from its first record,
/// or is made for the record after the last one stored.
pub trait RecordReader: Send {
    /// `parsed` is the record parsed as JSON, or `None` when it is not JSON (the caller has
    /// already reported that). A reader takes from its tree only the fields it reads; one that
    /// reads a `serde_json::Value` makes the tree into one, which the fold then gets.
    fn read(&mut self, record: &RawRecord, parsed: Option<&mut Parsed<'_>>) -> ReadEvent;

    /// What a last record that ends the input without a line break and is not JSON is: by
    /// default what any record that is not JSON is. A dialect whose writer appends as it goes
    /// may call it a line cut short instead.
    fn cut_short(&self, record: &RawRecord, offset: Option<i64>, why: &str) -> Diagnostic {
        Diagnostic::error(
            record.line,
            offset,
            "invalid-json",
            format!("not JSON: {why}"),
        )
    }
}

/// One record as a fold takes it: where it sits and what reading it found.
#[derive(Debug, Clone, Copy)]
pub struct FoldRecord<'a> {
    pub seq: u64,
    pub line: u64,
    pub offset: Option<i64>,
    /// Read-time diagnostics (not JSON, duplicate keys, the reader's own).
    pub diagnostics: &'a [Diagnostic],
}

impl<'a> FoldRecord<'a> {
    pub fn of(record: &'a StoredEvent) -> FoldRecord<'a> {
        FoldRecord {
            seq: record.seq,
            line: record.line,
            offset: record.offset,
            diagnostics: &record.diagnostics,
        }
    }
}

/// A dialect's reducer as an ingest runs it: it takes the records in file order, one at a time,
/// and never does I/O or fails (what is wrong with a record becomes a diagnostic at its seq).
pub trait Fold: Send {
    /// Folds the next record; `parsed` is the record parsed as JSON, the fold's to keep what
    /// it needs of (the value the reader may have made of it included).
    fn feed(&mut self, record: FoldRecord<'_>, parsed: Option<Parsed<'_>>);

    /// What the fold found since it was last asked and no later record changes: diagnostics,
    /// marks, request rows, checkpoints and the blocks they share.
    fn take_found(&mut self) -> Analysis;

    /// What the fold says of the journal's end as it stands: what [`Fold::take_found`] has not
    /// handed out yet, with the diagnostics and marks about the end (replacing those an earlier
    /// end gave), the view at the end and how far the checkpoints reach. The fold goes on.
    fn end(&mut self) -> Analysis;

    /// Records folded so far.
    fn records(&self) -> u64;
}

/// A kind of view a journal may offer beside its records (every journal lists, searches and
/// reports its records): each dialect says which of these its fold builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum View {
    /// The context the model can see at an offset, in lanes of items.
    Projection,
    /// The requests sent, each rendered as the provider got it, their diffs and the cache.
    Requests,
    /// Compactions and their before | after.
    Compactions,
    /// Search's filters by an item's role, actor, key, lane and publication.
    ItemFilters,
    /// A thread's state and messages at a step, and its runs.
    Thread,
    /// The snapshot a session cursor holds at a line, and the turns of a session.
    Snapshots,
    /// The conversation a transcript's model saw at a line, and its requests as sent.
    Conversation,
}

impl View {
    /// How the command line and the window call it.
    pub fn as_str(self) -> &'static str {
        match self {
            View::Projection => "projection",
            View::Requests => "requests",
            View::Compactions => "compactions",
            View::ItemFilters => "item filters",
            View::Thread => "thread state",
            View::Snapshots => "held snapshots",
            View::Conversation => "conversations",
        }
    }
}

/// The window's controls for a dialect's journals, as the dialect describes them: the search
/// filters, breakpoints and timeline marks its journals answer, so that the window shows
/// nothing that cannot.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Controls {
    /// Search's filters by an item's role, lane, publication, actor and key.
    pub item_filters: bool,
    /// The breakpoints F7 and F8 run to, in menu order: `request`, `compaction`, `downgrade`,
    /// `key`, `diagnostic`, `prefix-shrinks`, `sql`.
    pub breakpoints: Vec<String>,
    /// The marks the timeline draws, as its legend names them: `request`, `compaction`,
    /// `diagnostic`, `run`.
    pub legend: Vec<String>,
    /// The units J/K (the first) and c/C (`compaction`) step by: `request`, `compaction`,
    /// `run`. A dialect with none has no such keys.
    pub steps: Vec<String>,
    /// Requests are rendered per provider transport: the transport switch (t) applies.
    pub transports: bool,
    /// Requests are rendered and measured: the context-size plot (x) applies.
    pub sizes: bool,
    /// The views the dialect's fold builds (its `offers`), which the window's centre pane
    /// shows at a selection.
    pub views: Vec<View>,
    /// The families of views the dialect answers (its `answers`), which the window asks for.
    pub families: Vec<Family>,
}

impl Controls {
    pub fn new(item_filters: bool, breakpoints: &[&str], legend: &[&str]) -> Controls {
        Controls {
            item_filters,
            steps: Vec::new(),
            transports: false,
            sizes: false,
            views: Vec::new(),
            families: Vec::new(),
            breakpoints: breakpoints.iter().map(|b| b.to_string()).collect(),
            legend: legend.iter().map(|l| l.to_string()).collect(),
        }
    }

    /// The same controls with `steps` for J/K and c/C.
    pub fn stepping(mut self, steps: &[&str]) -> Controls {
        self.steps = steps.iter().map(|s| s.to_string()).collect();
        self
    }

    /// The same controls with the transport switch and the context-size plot.
    pub fn with_transports(mut self) -> Controls {
        self.transports = true;
        self.sizes = true;
        self
    }

    /// The same controls for a journal whose requests render alike on every transport: no
    /// transport switch.
    pub fn one_transport(mut self) -> Controls {
        self.transports = false;
        self
    }
}

/// A journal bundled with Journalscope to show what a dialect's journals look like.
#[derive(Debug)]
pub struct DemoJournal {
    /// The name it is written under in the cache folder (its extension says its framing).
    pub file_name: &'static str,
    pub bytes: &'static [u8],
    /// How the list of demos titles it.
    pub title: &'static str,
    /// What it shows, in a phrase.
    pub about: &'static str,
}

/// One dialect: how its journals are recognised, read and folded, and which views it offers.
pub trait Interpreter: Sync {
    fn dialect(&self) -> Dialect;

    /// What its journals are, as a list of what Journalscope reads names them
    /// ("iterate agent streams").
    fn describes(&self) -> &'static str;

    /// Its bundled demo journal, where it has one.
    fn demo(&self) -> Option<&'static DemoJournal> {
        None
    }

    /// Whether a parsed record is one this dialect writes.
    fn looks_like(&self, value: &Value) -> bool;

    /// A reader for the record after one with the offset `highest_offset` (the highest a
    /// journal holds, `None` for a journal's first record): it judges the next record exactly
    /// as reading the whole file in one go would have.
    fn reader(&self, highest_offset: Option<i64>) -> Box<dyn RecordReader>;

    /// A fold from a journal's first record.
    fn fold(&self) -> Box<dyn Fold>;

    /// The fold after the latest checkpoint of a journal that holds `records` records, and how
    /// many records it has folded; `None` when there is no checkpoint in this encoding to go on
    /// from (the fold then starts at the first record).
    fn resume(
        &self,
        store: &Store,
        journal_id: i64,
        records: u64,
    ) -> Result<Option<Box<dyn Fold>>, StoreError>;

    /// The views its fold builds, beside the records every journal has.
    fn offers(&self) -> &'static [View];

    /// The controls the window shows for its journals.
    /// Its views are left empty: `controls_of` fills them from `offers`.
    fn controls(&self) -> Controls;

    /// The encoding of the checkpoints its fold writes: a journal whose checkpoints are in
    /// another was written by another version, and is folded again.
    fn checkpoint_format(&self) -> u32;

    /// The sessions of this dialect a developer already has on disk, where its writer keeps
    /// them in a known place.
    fn sessions(
        &self,
        _now: std::time::SystemTime,
    ) -> Vec<journalscope_transcript::transcript::Session> {
        Vec::new()
    }

    /// Where `sessions` looks, and for which agent; `None` for a dialect whose journals are
    /// wherever their writer puts them.
    fn session_place(&self) -> Option<journalscope_transcript::transcript::SessionPlace> {
        None
    }

    /// For a dialect whose streams answer a POSTed request (an AG-UI run input), what a body
    /// for one holds: the key its journal is kept under (the runs of one thread make one
    /// journal), or why the body is no such request. `None` for a dialect whose streams are
    /// only read.
    fn posted(&self, _body: &Value) -> Option<Result<String, String>> {
        None
    }

    /// What a stored journal is in the middle of at its end (an AG-UI run that started and has
    /// not finished), as a phrase for a connection that drops there; `None` when nothing is
    /// open or the dialect has no such unit.
    fn unfinished(&self, _store: &Store, _journal_id: i64) -> Result<Option<String>, StoreError> {
        Ok(None)
    }

    /// Whether its journals answer questions of `family`.
    fn answers(&self, _family: Family) -> bool {
        false
    }

    /// The answer to `ask` about the stored journal `journal`, read from the store on demand:
    /// its JSON and the text this dialect writes of it. A dialect with no view of the
    /// question's family says so.
    fn answer(&self, _store: &Store, _journal: &JournalRow, ask: &Ask) -> Result<Reply, AskError> {
        Err(AskError::NotOffered(ask.family()))
    }
}

/// The window's controls for `interpreter`'s journals: what it describes, with the views its
/// fold builds and the families it answers.
pub fn controls_of(interpreter: &dyn Interpreter) -> Controls {
    Controls {
        views: interpreter.offers().to_vec(),
        families: Family::ALL
            .into_iter()
            .filter(|family| interpreter.answers(*family))
            .collect(),
        ..interpreter.controls()
    }
}

/// Folds stored records from a journal's first with `interpreter`'s fold: everything it
/// derives, as an import would store it.
pub fn fold_all(interpreter: &dyn Interpreter, events: &[StoredEvent]) -> Analysis {
    let mut fold = interpreter.fold();
    for record in events {
        fold.feed(FoldRecord::of(record), record.parsed());
    }
    let mut analysis = fold.take_found();
    analysis.absorb(fold.end());
    analysis
}

/// Reads one record as every ingest does: its bytes parsed once (a key given twice is a
/// warning, bytes that are not JSON an error), then the dialect's reader. `unterminated` says
/// the record ends the input without a line break. The parsed record, for the fold.
pub fn read_record<'a>(
    reader: &mut dyn RecordReader,
    record: &'a RawRecord,
    unterminated: bool,
) -> (ReadEvent, Option<Parsed<'a>>) {
    match parse_tree(&record.bytes) {
        Ok((mut parsed, duplicate_keys)) => {
            let mut read = reader.read(record, Some(&mut parsed));
            for key in duplicate_keys {
                read.diagnostics.push(Diagnostic::warning(
                    record.line,
                    read.offset,
                    "duplicate-key",
                    format!("key {key:?} appears twice in one object: the last one counts"),
                ));
            }
            (read, Some(parsed))
        }
        Err(err) => {
            let mut read = reader.read(record, None);
            let diagnostic = if unterminated {
                reader.cut_short(record, read.offset, &err.to_string())
            } else {
                Diagnostic::error(
                    record.line,
                    read.offset,
                    "invalid-json",
                    format!("not JSON: {err}"),
                )
            };
            read.diagnostics.insert(0, diagnostic);
            (read, None)
        }
    }
}

/// Reads records as an import stores them, without a store or a fold: for tests and one-shot
/// tools.
pub fn read_records(interpreter: &dyn Interpreter, records: Vec<RawRecord>) -> Vec<StoredEvent> {
    let mut reader = interpreter.reader(None);
    records
        .into_iter()
        .map(|record| {
            let (read, _) = read_record(reader.as_mut(), &record, false);
            StoredEvent {
                seq: record.seq,
                line: record.line,
                byte_start: record.byte_start,
                byte_len: record.byte_len,
                raw: record.bytes,
                offset: read.offset,
                kind: read.kind,
                created_at: read.created_at,
                summary: read.summary,
                diagnostics: read.diagnostics,
            }
        })
        .collect()
}
