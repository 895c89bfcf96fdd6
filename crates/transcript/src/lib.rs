//! What the transcript dialects share (sessions on disk, the conversation a model saw, the
//! cache report and the diff of two requests), in shapes of their own that name neither
//! dialect's log.

pub mod transcript;
