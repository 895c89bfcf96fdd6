//! The `journalscope` command line as a user runs it, a process a call: each command's output,
//! exit status and files, one module a file.

#[path = "../support/mod.rs"]
mod support;

mod cli_agentskit;
mod cli_agui;
mod cli_iterate;
mod cli_release;
mod cli_request_export;
mod cli_search;
mod cli_sessions;
mod cli_tail;
