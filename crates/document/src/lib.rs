//! The read model over a journal's database: an opened journal (its event list, stepping and
//! views), search, the SQL console, breakpoints, bookmarks and reports; plus what both binaries
//! share at start (`memory`) and say about their build (`release`).

pub mod bookmark;
pub mod breakpoint;
pub mod console;
pub mod journal;
pub mod memory;
pub mod release;
pub mod report;
pub mod search;
