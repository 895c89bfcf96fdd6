//! The AG-UI reader and reducer never panic: any bytes become events, and the analysis and
//! the state after every event can be built and rendered.
#![no_main]

mod events;

use journalscope_agui::agui;
use journalscope::dialect::Dialect;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let stored = events::stored(data, Dialect::AgUi);
    let _ = agui::analyse(&stored);
    for at in 0..=stored.len().min(64) as i64 {
        let state = agui::state_at(&stored, at);
        let _ = agui::render_state_text(&state);
    }
});
