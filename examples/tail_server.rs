//! Serves a JSONL journal as a live stream for trying `journalscope tail` by hand:
//! `cargo run --example tail_server -- <journal.jsonl> [--port 8765] [--faults SEED]`
//! then `journalscope tail http://127.0.0.1:8765/sse` (or `/ndjson`, or `ws://…/ws`).
//! `--tls ca.pem` serves https:// and wss:// instead, under a CA made at start and written
//! there for `journalscope tail --cacert ca.pem`.

#[path = "../tests/support/stream_server.rs"]
mod support;

use support::{load_journal, Certificate, Faults, StreamServer, TestCa};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mut journal = None;
    let mut port = 8765u16;
    let mut faults = Faults::none();
    let mut tls = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => port = args.next().ok_or("--port needs a number")?.parse()?,
            "--faults" => {
                let seed = args.next().ok_or("--faults needs a seed")?.parse()?;
                faults = Faults::harsh(seed);
            }
            "--tls" => tls = Some(args.next().ok_or("--tls needs a file for the CA")?),
            other => journal = Some(other.to_string()),
        }
    }
    let journal = journal
        .ok_or("usage: tail_server <journal.jsonl> [--port N] [--faults SEED] [--tls CA_FILE]")?;
    let events = load_journal(std::path::Path::new(&journal))?;
    let server = match tls {
        Some(ca_file) => {
            let ca = TestCa::new();
            ca.write_pem(std::path::Path::new(&ca_file));
            println!("CA certificate written to {ca_file}");
            StreamServer::start_tls(events, faults, port, ca.server_config(Certificate::Good))?
        }
        None => StreamServer::start(events, faults, None, port)?,
    };
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
