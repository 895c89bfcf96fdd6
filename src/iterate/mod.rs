//! The iterate agent-stream dialect: reading its envelopes, folding `context-added` and
//! request events into the projection the model sees, and rendering request snapshots.

pub mod checkpoint;
pub mod contract;
pub mod diff;
pub mod event;
pub mod projection;
mod reader;
pub mod render;
pub mod roles;
pub mod section_text;
pub mod sections;
pub mod stored;
pub mod view;

pub use reader::{looks_like, one_line, short_type, Reader};
pub use roles::Transport;
pub use view::{Analyser, IterateJournal};

use crate::derived::{Analysis, FoldWatch};
use crate::store::StoredEvent;

pub fn analyse(events: &[StoredEvent]) -> Analysis {
    let mut unwatched = |_: u64| std::ops::ControlFlow::Continue(());
    analyse_watched(events, &mut unwatched).unwrap_or_default()
}

/// `analyse`, telling `watch` how far it got; `None` when the watch abandoned it. The records
/// are folded as an import folds them when it reads them, checkpoints included.
pub fn analyse_watched(events: &[StoredEvent], watch: FoldWatch<'_>) -> Option<Analysis> {
    let mut analyser = Analyser::default();
    for (index, record) in events.iter().enumerate() {
        if index % crate::derived::WATCH_EVERY == 0 && watch(index as u64).is_break() {
            return None;
        }
        analyser.feed_stored(record);
    }
    if watch(events.len() as u64).is_break() {
        return None;
    }
    Some(analyser.finish())
}
