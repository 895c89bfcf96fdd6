//! Serves a JSONL journal as a live stream for trying `journalscope tail` by hand:
//! `cargo run --example tail_server -- <journal.jsonl> [--port 8765] [--faults SEED]`
//! then `journalscope tail http://127.0.0.1:8765/sse` (or `/ndjson`, or `ws://…/ws`).

#[path = "../tests/support/mod.rs"]
mod support;

use support::{load_journal, Faults, StreamServer};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mut journal = None;
    let mut port = 8765u16;
    let mut faults = Faults::none();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => port = args.next().ok_or("--port needs a number")?.parse()?,
            "--faults" => {
                let seed = args.next().ok_or("--faults needs a seed")?.parse()?;
                faults = Faults::harsh(seed);
            }
            other => journal = Some(other.to_string()),
        }
    }
    let journal = journal.ok_or("usage: tail_server <journal.jsonl> [--port N] [--faults SEED]")?;
    let events = load_journal(std::path::Path::new(&journal))?;
    let server = StreamServer::start(events, faults, None, port)?;
    println!(
        "serving {} events of {journal}",
        load_journal(std::path::Path::new(&journal))?.len()
    );
    for path in ["/sse", "/ndjson", "/ws"] {
        println!("  {}", server.url(path));
    }
    loop {
        std::thread::park();
    }
}
