//! The end-to-end tests of the real window, one binary: tauri-driver in front of
//! WebKitWebDriver under Xvfb (scripts/e2e.sh starts both), each scenario its own app driven
//! with fantoccini. Ignored by a plain `cargo test`; run with `make e2e`, or one module with
//! `cargo test --test e2e -- --ignored --test-threads=1 <module>::`.

#[path = "../common/mod.rs"]
mod common;

mod app;
mod desktop;
mod diff;
mod hostile;
mod live;
mod reports;
mod scale;
mod search;
mod sessions;
