//! The read model and the pipeline below it: import, follow and tail, the store's guarantees,
//! the views of an opened journal, search, reports and the bad-input corpus, one module a file.

#[path = "../support/mod.rs"]
mod support;

mod bad_input;
mod crash_resume;
mod gen;
mod import_properties;
mod import_stream;
mod journal_store_views;
mod journal_views;
mod json_edges;
mod report_exports;
mod request_diff;
mod search_breakpoints;
mod store_guarantees;
mod tail_agui_run;
mod tail_credentials;
mod tail_file;
mod tail_remote;
mod tail_transport;
