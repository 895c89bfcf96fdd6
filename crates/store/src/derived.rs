//! What the store keeps of a journal besides its records, in shapes that name no dialect:
//! which dialect wrote it, what the dialect's reader read of each record, and what its fold
//! derived (diagnostics, marks, checkpoints, the projection at the end). The store and every
//! dialect depend on this module; it depends on neither.

use std::ops::ControlFlow;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use journalscope_shapes::diagnostic::Diagnostic;

/// Which system wrote a journal. A journal nobody recognises is read as iterate, the default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum Dialect {
    #[default]
    Iterate,
    AgUi,
    AgentsKit,
    ClaudeCode,
    Codex,
}

impl Dialect {
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Iterate => "iterate",
            Dialect::AgUi => "ag-ui",
            Dialect::AgentsKit => "agentskit",
            Dialect::ClaudeCode => "claude-code",
            Dialect::Codex => "codex",
        }
    }

    pub fn parse(text: &str) -> Option<Dialect> {
        match text {
            "iterate" => Some(Dialect::Iterate),
            "ag-ui" => Some(Dialect::AgUi),
            "agentskit" => Some(Dialect::AgentsKit),
            "claude-code" => Some(Dialect::ClaudeCode),
            "codex" => Some(Dialect::Codex),
            _ => None,
        }
    }
}

/// The indexed columns of one record, as its dialect reads them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadEvent {
    pub offset: Option<i64>,
    pub kind: Option<String>,
    pub created_at: Option<String>,
    /// One line for an event list; never the whole payload.
    pub summary: String,
    pub diagnostics: Vec<Diagnostic>,
}

/// Something worth a badge in the event list or a mark on the timeline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Mark {
    #[ts(type = "number")]
    pub seq: u64,
    /// Stable kind: `request`, `compaction`, `downgrade`, `unpublished`, `run-start`,
    /// `accepted`, `duplicate`, ... Each dialect documents its own.
    pub kind: String,
    /// Short text for a tooltip, e.g. the rule behind a downgrade.
    pub note: String,
}

/// What folding a whole journal found: fold-time diagnostics and marks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Analysis {
    pub diagnostics: Vec<(u64, Diagnostic)>,
    pub marks: Vec<Mark>,
    /// The projection after the last event (iterate journals only).
    pub tip: Option<TipRow>,
    /// One row per request the fold met, by the seq of its record, encoded by the dialect.
    pub requests: Vec<(u64, String)>,
    /// Fold states to seek or resume from, each after the records its seq counts, encoded by
    /// the dialect that folded them.
    pub checkpoints: Vec<(u64, Vec<u8>)>,
    /// Parts the checkpoints share, each written once, by index.
    pub checkpoint_blocks: Vec<(u64, Vec<u8>)>,
    /// How far the checkpoints reach: set by the analysis that reached the journal's end.
    pub cover: Option<CheckpointCover>,
    /// Kinds of mark that describe the journal's end rather than their event (an item no
    /// request has published yet): the marks of these kinds that `marks` holds replace all
    /// the journal had.
    pub provisional_kinds: Vec<&'static str>,
    /// Codes of diagnostics that describe the whole journal rather than their event: the
    /// diagnostics of these codes that `diagnostics` holds replace all the journal had.
    pub provisional_codes: Vec<&'static str>,
    /// The checkpoints here replace every earlier one (a dialect that keeps only its latest).
    pub checkpoint_replaces: bool,
    /// Records that name other records, as the fold resolved them.
    pub links: Vec<Link>,
    /// Tokens the fold counted in records' content: seq, the dialect's variant of the record
    /// (what else the count depends on), tokens.
    pub record_tokens: Vec<(u64, i64, u32)>,
}

/// A record that names another: the record at `seq` names the one at `target`, as `kind` says
/// (each dialect documents its own kinds, such as `parent` or `response`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub seq: u64,
    pub kind: &'static str,
    pub target: u64,
}

impl Analysis {
    /// Adds what `later`, found after this, holds: lists are appended, and its tip and cover
    /// are the ones that stand.
    pub fn absorb(&mut self, later: Analysis) {
        self.diagnostics.extend(later.diagnostics);
        self.marks.extend(later.marks);
        self.requests.extend(later.requests);
        self.checkpoints.extend(later.checkpoints);
        self.checkpoint_blocks.extend(later.checkpoint_blocks);
        self.links.extend(later.links);
        self.record_tokens.extend(later.record_tokens);
        self.provisional_kinds.extend(later.provisional_kinds);
        self.provisional_codes.extend(later.provisional_codes);
        self.checkpoint_replaces |= later.checkpoint_replaces;
        if later.tip.is_some() {
            self.tip = later.tip;
        }
        if later.cover.is_some() {
            self.cover = later.cover;
        }
    }

    /// Whether it holds nothing to store.
    pub fn is_empty(&self) -> bool {
        self.diagnostics.is_empty()
            && self.marks.is_empty()
            && self.requests.is_empty()
            && self.checkpoints.is_empty()
            && self.checkpoint_blocks.is_empty()
            && self.links.is_empty()
            && self.record_tokens.is_empty()
            && self.tip.is_none()
            && self.cover.is_none()
            && self.provisional_kinds.is_empty()
            && self.provisional_codes.is_empty()
    }
}

/// What a journal's checkpoints describe: the records folded, the dialect's encoding, and
/// whether a view at an offset can start from them (offsets increase through the journal, so
/// the records at or before any offset are a prefix of the file).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckpointCover {
    pub records: u64,
    pub format: u32,
    pub seekable: bool,
}

/// The view after a journal's last event as the store keeps it: how many records it
/// describes, the highest offset it shows, and the view encoded by its dialect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TipRow {
    pub events: u64,
    pub through: i64,
    pub view: String,
}

/// Told how far a long fold got, in events (`0..=events.len()`, never going back), at least
/// every `WATCH_EVERY` events; answering `Break` abandons the fold. Keeps an import's progress
/// moving and its cancel button working while a large journal is analysed.
pub type FoldWatch<'a> = &'a mut dyn FnMut(u64) -> ControlFlow<()>;

/// How often a fold tells its watch how far it got.
pub const WATCH_EVERY: usize = 2_000;
