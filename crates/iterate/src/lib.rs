//! Journalscope's reading of iterate agent streams (the seed contract, the sections contract and
//! the agent loop): its reader, its pure fold, its checkpoints and its views, one implementation of
//! the seam. It names the seam, the store and the shapes, never another dialect or what is built on
//! them.

pub mod iterate;
