//! How the process asks for memory and hands it back: settings the command line and the
//! window apply once, at start, before any journal is read.

/// mimalloc's `mi_option_purge_delay` (`include/mimalloc.h`; the crate builds mimalloc 3): the
/// milliseconds a freed page waits before it goes back to the kernel. The bindings name the
/// option after it (16) but not this one; the test below checks its default, 1000.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Applies both settings: ordinary pages, and freed memory handed back at once.
///
/// An import frees on one thread what another allocated, a page of records at a time, so the
/// allocator hands memory back and takes it again all the time.
/// - mimalloc marks its regions for transparent huge pages: each time, the kernel zeroes a whole
///   2 MiB page, and every huge page counts whole in the resident size. Off, an import of a
///   million iterate events peaked at 176 to 199 MiB where it had taken 226 to 231, and spent a
///   fifth less time in the kernel.
/// - mimalloc keeps a freed page a second before it hands it back, and the pages of records go
///   by faster than that: an import of a million AgentsKit events peaked at 293 MiB, and at 228 MiB
///   with no delay; iterate at 173 to 188 MiB, and 153 to 157.
pub fn tune() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes plain integers and touches no memory of ours; on a
    // kernel without it the call fails and nothing changes.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
    // SAFETY: mimalloc reads its options at any time; setting one is an atomic store, and with
    // another global allocator the option is only never read.
    unsafe {
        libmimalloc_sys::mi_option_set(PURGE_DELAY, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_purge_delay_option_is_the_one_mimalloc_defaults_to_a_second() {
        // Given mimalloc's options as the process starts (the tests set none of them)
        // When the option this module sets is read
        // SAFETY: reading an option has no precondition.
        let default = unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) };
        // Then it holds the purge delay's documented default, so the index names that option
        assert_eq!(
            default, 1000,
            "option {PURGE_DELAY} is mimalloc 3's purge delay, whose default is 1000 ms; another \
             value means the index names another option"
        );
    }
}
