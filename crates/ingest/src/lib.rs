//! The one way records reach the store (`ingest`), and what feeds it: an import of a file,
//! streamed or at hand (`import`), and a followed file or a remote stream (`tail`).

pub mod import;
pub mod ingest;
pub mod tail;
