//! The AgentsKit decoder, cursor and lineage never panic: any bytes become events, and the
//! analysis, turns report and the held snapshot after every event can be built and rendered.
#![no_main]

mod events;

use journalscope_agentskit::agentskit;
use journalscope::dialect::Dialect;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let stored = events::stored(data, Dialect::AgentsKit);
    let _ = agentskit::analyse(&stored);
    let report = agentskit::turns(&stored, None);
    let _ = agentskit::render_turns_text(&report);
    for at in 0..=stored.len().min(64) as i64 {
        let state = agentskit::state_at(&stored, at, None);
        let _ = agentskit::render_state_text(&state);
    }
});
