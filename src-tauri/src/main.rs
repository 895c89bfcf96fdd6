// Keeps release builds on Windows from opening a console next to the window.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

// Loading a large journal allocates a tree per record; glibc's allocator took a quarter of the
// CPU time of an import, mimalloc a fraction of that.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    journalscope_document::memory::tune();
    journalscope_app::run();
}
