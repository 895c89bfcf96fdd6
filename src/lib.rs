//! Journalscope's core: reading agent journals into SQLite, folding them into what the model
//! saw at any offset, and rendering the exact request bytes. No UI types live here.

// The layers below the dialects, under the names the rest of the core has always used for
// them; a dialect is named by its own crate.
pub use journalscope_document::{
    bookmark, breakpoint, console, journal, memory, release, report, search,
};
pub use journalscope_ingest::{import, ingest, tail};
pub use journalscope_registry::dialect;
pub use journalscope_seam::interpreter;
pub use journalscope_shapes::{diagnostic, record_json, redact, rng, source, source_ends, tokens};
pub use journalscope_store::{derived, store};
pub use journalscope_transcript::transcript;
