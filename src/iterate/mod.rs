//! The iterate agent-stream dialect: reading its envelopes, folding `context-added` and
//! request events into the projection the model sees, and rendering request snapshots.

pub mod diff;
pub mod event;
pub mod projection;
mod reader;
pub mod render;
pub mod roles;
pub mod view;

pub use reader::{looks_like, one_line, short_type, Reader};
pub use roles::Transport;
pub use view::{Analyser, IterateJournal};

use crate::dialect::{Analysis, FoldWatch};
use crate::store::StoredEvent;

pub fn analyse(events: &[StoredEvent]) -> Analysis {
    IterateJournal::from_stored(events).analyse()
}

/// `analyse`, telling `watch` how far it got; `None` when the watch abandoned it.
pub fn analyse_watched(events: &[StoredEvent], watch: FoldWatch<'_>) -> Option<Analysis> {
    IterateJournal::analyse_stored(events, watch)
}
