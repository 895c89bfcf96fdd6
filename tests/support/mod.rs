//! What the integration binaries share, a module a job: journals written in code for iterate
//! and AgentsKit, the recorded AG-UI streams, importing a file into a store, the `journalscope`
//! binary as a test runs it, a stream server, and the scripted model provider the real agent
//! clients talk to. Each binary uses a part of it.
#![allow(dead_code)]

pub mod agentskit_lines;
pub mod agui_recordings;
pub mod cli;
pub mod importing;
pub mod iterate_lines;
pub mod provider;
pub mod stream_server;
