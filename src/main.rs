//! The `journalscope` command line.

fn main() {}
