//! The iterate agent-stream dialect: reading its envelopes, folding `context-added` and
//! request events into the projection the model sees, and rendering request snapshots.

pub mod agent_loop;
pub mod answer;
pub mod checkpoint;
pub mod contract;
pub mod diff;
pub mod event;
pub mod fold;
pub mod journal;
pub mod projection;
mod reader;
pub mod render;
pub mod roles;
pub mod section_text;
pub mod sections;
pub mod sizes;
pub mod stored;
pub mod text;
pub mod tokens;
pub mod view;

pub use fold::IterateFold;
pub use journal::IterateJournal;
pub use reader::{looks_like, one_line, short_type, Reader};
pub use roles::Transport;

use serde_json::Value;

use journalscope_seam::family::{Ask, AskError, Family, Reply};
use journalscope_seam::interpreter::{Controls, Fold, Interpreter, RecordReader, View};
use journalscope_shapes::record_json::Parsed;
use journalscope_shapes::source::RawRecord;
use journalscope_store::derived::{Dialect, ReadEvent};
use journalscope_store::store::{JournalRow, Store, StoreError};

/// The iterate dialect, as the seam sees it.
pub struct Iterate;

pub const INTERPRETER: Iterate = Iterate;

impl Interpreter for Iterate {
    fn dialect(&self) -> Dialect {
        Dialect::Iterate
    }

    fn describes(&self) -> &'static str {
        "iterate agent streams"
    }

    fn demo(&self) -> Option<&'static journalscope_seam::interpreter::DemoJournal> {
        Some(&journalscope_seam::interpreter::DemoJournal {
            file_name: "iterate-demo.jsonl",
            bytes: include_bytes!("../../../../demo/iterate-demo.jsonl"),
            title: "iterate",
            about: "agent stream: projection, publication, compaction, provider roles",
        })
    }

    fn looks_like(&self, value: &Value) -> bool {
        looks_like(value)
    }

    fn reader(&self, highest_offset: Option<i64>) -> Box<dyn RecordReader> {
        let mut reader = Reader::default();
        reader.resume_after(highest_offset);
        Box::new(reader)
    }

    fn fold(&self) -> Box<dyn Fold> {
        Box::new(IterateFold::default())
    }

    fn resume(
        &self,
        store: &Store,
        journal_id: i64,
        records: u64,
    ) -> Result<Option<Box<dyn Fold>>, StoreError> {
        Ok(checkpoint::latest(store, journal_id, records)?
            .map(|fold| Box::new(fold) as Box<dyn Fold>))
    }

    fn offers(&self) -> &'static [View] {
        &[
            View::Projection,
            View::Requests,
            View::Compactions,
            View::ItemFilters,
        ]
    }

    fn controls(&self) -> Controls {
        Controls::new(
            true,
            &[
                "request",
                "compaction",
                "downgrade",
                "key",
                "diagnostic",
                "prefix-shrinks",
                "sql",
            ],
            &["request", "compaction", "diagnostic"],
        )
        .stepping(&["request", "compaction"])
        .with_transports()
    }

    fn checkpoint_format(&self) -> u32 {
        checkpoint::FORMAT
    }

    fn answers(&self, family: Family) -> bool {
        matches!(
            family,
            Family::Projection
                | Family::State
                | Family::Request
                | Family::Diff
                | Family::Cache
                | Family::Sizes
                | Family::Compaction
        )
    }

    fn answer(&self, store: &Store, journal: &JournalRow, ask: &Ask) -> Result<Reply, AskError> {
        answer::answer(store, journal, ask)
    }
}

impl RecordReader for Reader {
    fn read(&mut self, record: &RawRecord, parsed: Option<&mut Parsed<'_>>) -> ReadEvent {
        match parsed {
            Some(Parsed::Tree(tree)) => Reader::read(self, record, Some(&*tree)),
            Some(Parsed::Value(value)) => Reader::read(self, record, Some(&*value)),
            None => Reader::read::<Value>(self, record, None),
        }
    }
}
