//! The iterate reader and fold never panic: any bytes become events, the fold analyses them,
//! and every projection, request and compaction view can be built.
#![no_main]

mod events;

use journalscope::dialect::Dialect;
use journalscope_iterate::iterate::{IterateJournal, Transport};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let stored = events::stored(data, Dialect::Iterate);
    let journal = IterateJournal::from_stored(&stored);
    let _ = journal.analyse();
    for request in journal.requests() {
        for transport in [Transport::Openai, Transport::WorkersAi] {
            if let Ok(snapshot) = journal.request(request.offset, transport) {
                let _ = snapshot.body();
            }
        }
    }
    // Every view at a few offsets keeps each input fast enough to explore many.
    for event in stored.iter().take(64) {
        if let Some(offset) = event.offset {
            let _ = journal.projection_view(offset);
            let _ = journal.compaction(offset);
        }
    }
});
