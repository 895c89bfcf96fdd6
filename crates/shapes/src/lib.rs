//! The shapes every layer of Journalscope shares and none of them owns: a journal framed into
//! records, one parse of a record's JSON, diagnostics, redaction of secrets and the tokens a
//! model counts. It names no dialect, no store and nothing built on them.

pub mod diagnostic;
pub mod record_json;
pub mod redact;
pub mod rng;
pub mod source;
pub mod source_ends;
pub mod text;
pub mod tokens;
