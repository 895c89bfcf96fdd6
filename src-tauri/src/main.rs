// Keeps release builds on Windows from opening a console next to the window.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

// Loading a large journal allocates a tree per record; glibc's allocator took a quarter of the
// CPU time of an import, mimalloc a fraction of that.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // Ordinary 4 KiB pages only, as the command line asks (see its `small_pages`): an import
    // frees on one thread what another allocated, and each huge page mimalloc takes back is
    // zeroed again whole and counts whole in the window's resident size.
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes plain integers and touches no memory of ours.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
    journalscope_app::run();
}
