//! Generates the Tauri context. The app's own commands are listed here so that each gets an
//! `allow-<command>` permission: the window may call only what capabilities/main.json grants,
//! and tests/config_policy.rs checks this list against `generate_handler!` in src/lib.rs.
//! `simulate_drag` is a test hook: it refuses unless the app runs with JOURNALSCOPE_TEST_HOOKS=1.

const COMMANDS: &[&str] = &[
    "follow_journal",
    "connect_stream",
    "live_state",
    "live_pause",
    "stop_live",
    "startup",
    "open_file",
    "open_demo",
    "cancel_import",
    "recent_files",
    "journal_info",
    "event_types",
    "events_page",
    "row_of_seq",
    "event_detail",
    "timeline",
    "step",
    "seq_of_offset",
    "ask",
    "request_body_text",
    "export_request",
    "agent_sessions",
    "session_places",
    "demos",
    "search",
    "sql_query",
    "run_breakpoint",
    "bookmarks",
    "set_bookmark",
    "remove_bookmark",
    "export_journal",
    "simulate_drag",
];

fn main() {
    let attributes = tauri_build::Attributes::new()
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    if let Err(error) = tauri_build::try_build(attributes) {
        eprintln!("tauri-build: {error:#}");
        std::process::exit(1);
    }
}
