//! The `journalscope` command line: thin over the core library, with text output for people
//! and `--json` output for tools.

mod cli;

use std::process::ExitCode;

use clap::Parser;

// Parsing a journal allocates a tree per record; glibc's allocator took a quarter of the CPU
// time of an import, mimalloc a fraction of that.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Asks the kernel for ordinary 4 KiB pages only. mimalloc marks its regions for transparent huge
/// pages, and an import frees on one thread what another allocated, so the allocator hands
/// memory back and takes it again all the time: each time, the kernel zeroes a whole 2 MiB page,
/// and every huge page counts whole in the resident size. Off, an import of a million iterate
/// events peaked at 176 to 199 MiB where it had taken 226 to 231, and spent a fifth less time
/// in the kernel.
fn small_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes plain integers and touches no memory of ours; on a
    // kernel without it the call fails and nothing changes.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

fn main() -> ExitCode {
    small_pages();
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
