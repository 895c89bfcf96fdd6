//! Journalscope's store and what it keeps: `store` owns the schema and every SQL statement
//! against a journal's database; `derived` is what a dialect's reader and fold hand it, in
//! shapes that name no dialect. It depends on the shared shapes and on nothing built on it.

pub mod derived;
pub mod store;
