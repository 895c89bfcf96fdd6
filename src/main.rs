//! The `journalscope` command line: thin over the core library, with text output for people
//! and `--json` output for tools.

mod cli;

use std::process::ExitCode;

use clap::Parser;

// Parsing a journal allocates a tree per record; glibc's allocator took a quarter of the CPU
// time of an import, mimalloc a fraction of that.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    journalscope::memory::tune();
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // A closed pipe (`journalscope events big.jsonl | head`) is not an error.
            if err
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            {
                return ExitCode::SUCCESS;
            }
            eprintln!("journalscope: error: {err:#}");
            ExitCode::from(cli::exit_code(&err))
        }
    }
}
