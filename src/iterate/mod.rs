//! The iterate agent-stream dialect: reading its envelopes, folding `context-added` and
//! request events into the projection the model sees, and rendering request snapshots.

mod reader;

pub use reader::{looks_like, short_type, Reader};

use crate::dialect::Analysis;
use crate::store::StoredEvent;

pub fn analyse(_events: &[StoredEvent]) -> Analysis {
    Analysis::default()
}
