//! The Journalscope desktop shell: Tauri setup, managed state and the IPC commands. The core
//! crate does all the journal work; this crate only adapts it to the window.

pub mod commands;
pub mod inquiry;
pub mod ipc;
pub mod live;
pub mod recent;
pub mod reports;
pub mod test_hooks;

use commands::Session;

/// Builds and runs the window. The first command-line argument, when present, is the journal
/// to open; without it the window opens the iterate demo.
pub fn run() {
    let launch_path = std::env::args_os()
        .nth(1)
        .map(|a| {
            let p = std::path::PathBuf::from(a);
            std::fs::canonicalize(&p).unwrap_or(p)
        })
        .map(|p| p.to_string_lossy().into_owned());
    let result = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_clipboard_manager::init())
        .manage(Session::new(launch_path))
        .manage(live::Live::default())
        .invoke_handler(tauri::generate_handler![
            live::follow_journal,
            live::connect_stream,
            live::live_state,
            live::live_pause,
            live::stop_live,
            commands::startup,
            commands::open_file,
            commands::open_demo,
            commands::cancel_import,
            commands::recent_files,
            commands::journal_info,
            commands::event_types,
            commands::events_page,
            commands::row_of_seq,
            commands::event_detail,
            commands::timeline,
            commands::step,
            commands::seq_of_offset,
            commands::ask,
            commands::request_body_text,
            commands::export_request,
            commands::agent_sessions,
            commands::session_places,
            commands::demos,
            inquiry::search,
            inquiry::sql_query,
            inquiry::run_breakpoint,
            inquiry::bookmarks,
            inquiry::set_bookmark,
            inquiry::remove_bookmark,
            reports::export_journal,
            test_hooks::simulate_drag,
        ])
        .run(tauri::generate_context!());
    if let Err(e) = result {
        eprintln!("journalscope-app: {e}");
        std::process::exit(1);
    }
}
