//! The registry of dialects (`dialect`): which implementation of the seam serves a journal,
//! and the answers that need every dialect. Everything above it asks a journal what it offers.

pub mod dialect;
