//! Knowing a journal source again without reading it again: the hash a journal keeps of what
//! it read is of the source's first and last [`WINDOW`] bytes up to how far it was read, and
//! of that length. Checking it reads two windows, where hashing the whole prefix made every
//! append to a gigabyte journal read the gigabyte first. A truncation, a rotation or a rewrite
//! of either end is seen; a rewrite in the middle that keeps both ends and the length is not.
//! A hash from an older import, of the whole prefix, is still checked the old way.

use std::io::{Read, Seek, SeekFrom};

/// Bytes hashed at each end.
pub const WINDOW: u64 = 64 * 1024;

/// What marks a hash of the ends from a hash of the whole prefix.
const ENDS: &str = "ends:";

fn hash_of(head: &[u8], tail: &[u8], end: u64) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(&end.to_le_bytes());
    hasher.update(head);
    hasher.update(tail);
    format!("{ENDS}{}", hasher.finalize().to_hex())
}

/// The bytes of a source around where a read of it stands: its first [`WINDOW`] bytes, and
/// everything from `base - WINDOW` on that is at hand. Enough to hash the ends at any position
/// from `base` to the end of what is at hand.
pub struct SourceEnds<'a> {
    /// The first `min(WINDOW, length)` bytes of the source.
    head: &'a [u8],
    /// The `min(WINDOW, base)` bytes before `base`.
    before: &'a [u8],
    base: u64,
    /// The source's bytes from `base` on.
    after: &'a [u8],
}

impl<'a> SourceEnds<'a> {
    /// A source held whole in memory.
    pub fn whole(bytes: &'a [u8]) -> SourceEnds<'a> {
        SourceEnds::split(bytes, 0)
    }

    /// A source held whole in memory, read from `base` on (at most its length).
    pub fn split(bytes: &'a [u8], base: usize) -> SourceEnds<'a> {
        let base = base.min(bytes.len());
        SourceEnds {
            head: &bytes[..bytes.len().min(WINDOW as usize)],
            before: &bytes[base.saturating_sub(WINDOW as usize)..base],
            base: base as u64,
            after: &bytes[base..],
        }
    }

    /// Where the bytes at hand start in the source.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// The source's bytes from [`SourceEnds::base`] on.
    pub fn after(&self) -> &'a [u8] {
        self.after
    }

    /// The source's length as far as the bytes at hand reach.
    pub fn len(&self) -> u64 {
        self.base + self.after.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The byte just before `at`, when it is at hand.
    pub fn byte_before(&self, at: u64) -> Option<u8> {
        if at > self.base {
            self.after.get((at - self.base - 1) as usize).copied()
        } else {
            let back = (self.base - at) as usize + 1;
            self.before
                .len()
                .checked_sub(back)
                .and_then(|i| self.before.get(i).copied())
        }
    }

    /// A source of which only `after` (from `base` on) is held, with its `head` and the window
    /// `before` the base read apart.
    pub fn around(head: &'a [u8], before: &'a [u8], base: u64, after: &'a [u8]) -> SourceEnds<'a> {
        SourceEnds {
            head,
            before,
            base,
            after,
        }
    }

    /// The hash of the source's ends up to `end`, which lies between `base` and the end of the
    /// bytes at hand.
    pub fn hash_at(&self, end: u64) -> String {
        let wanted = end.min(WINDOW);
        let head = &self.head[..(wanted as usize).min(self.head.len())];
        // The last `wanted` bytes before `end`: some from the window before the base, the rest
        // from the bytes after it.
        let start = end - wanted;
        let before_start = self.base.saturating_sub(self.before.len() as u64);
        let mut tail = Vec::with_capacity(wanted as usize);
        if start < self.base {
            let from = (start.max(before_start) - before_start) as usize;
            tail.extend_from_slice(&self.before[from..]);
        }
        let after_end = (end.saturating_sub(self.base) as usize).min(self.after.len());
        let after_start = (start.saturating_sub(self.base) as usize).min(after_end);
        tail.extend_from_slice(&self.after[after_start..after_end]);
        hash_of(head, &tail, end)
    }

    /// Whether the first `end` bytes (at most the bytes at hand, from `base` 0) are what `hash`
    /// describes, whichever kind of hash it is.
    pub fn holds(&self, end: u64, hash: &str) -> bool {
        if hash.starts_with(ENDS) {
            return self.hash_at(end) == hash;
        }
        self.base == 0
            && end as usize <= self.after.len()
            && blake3::hash(&self.after[..end as usize]).to_hex().as_str() == hash
    }

    /// Whether `hash` is a hash of the ends rather than of a whole prefix.
    pub fn is_ends_hash(hash: &str) -> bool {
        hash.starts_with(ENDS)
    }
}

/// The ends of a source that is written as it is read (a recorded stream, its records laid
/// out as lines): its first [`WINDOW`] bytes and its last, kept as bytes arrive, so that its
/// hash at any length is at hand without the source.
#[derive(Debug, Clone, Default)]
pub struct StreamEnds {
    head: Vec<u8>,
    /// At least the last `WINDOW` bytes (all of them while fewer), at most twice that.
    tail: Vec<u8>,
    len: u64,
}

impl StreamEnds {
    /// The ends of a source whose first bytes are `head` and whose last are `tail`, `len`
    /// bytes in all: what a stream resumed from its stored records starts from.
    pub fn resumed(head: Vec<u8>, tail: Vec<u8>, len: u64) -> StreamEnds {
        let mut ends = StreamEnds { head, tail, len };
        ends.head.truncate(WINDOW as usize);
        ends.trim();
        ends
    }

    pub fn push(&mut self, bytes: &[u8]) {
        let room = (WINDOW as usize).saturating_sub(self.head.len());
        self.head.extend_from_slice(&bytes[..room.min(bytes.len())]);
        self.len += bytes.len() as u64;
        // A push of a window or more leaves only its own last window: an import pushes each
        // chunk of megabytes, which must not be copied whole.
        if bytes.len() >= WINDOW as usize {
            self.tail.clear();
            self.tail
                .extend_from_slice(&bytes[bytes.len() - WINDOW as usize..]);
            return;
        }
        self.tail.extend_from_slice(bytes);
        if self.tail.len() > 2 * WINDOW as usize {
            self.trim();
        }
    }

    fn trim(&mut self) {
        let excess = self.tail.len().saturating_sub(WINDOW as usize);
        self.tail.drain(..excess);
    }

    /// The hash of the ends at the source's length, as [`SourceEnds::hash_at`] makes it.
    pub fn hash(&self) -> String {
        let before = &self.tail[self.tail.len().saturating_sub(WINDOW as usize)..];
        SourceEnds::around(&self.head, before, self.len, &[]).hash_at(self.len)
    }
}

/// Reads `len` bytes of `file` from `at`, fewer at its end.
pub fn read_at(file: &mut (impl Read + Seek), at: u64, len: u64) -> std::io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(at))?;
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(len).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// A file's first [`WINDOW`] bytes and the window before `base`: what [`SourceEnds::around`]
/// needs besides the bytes from `base` on.
pub fn windows(file: &mut (impl Read + Seek), base: u64) -> std::io::Result<(Vec<u8>, Vec<u8>)> {
    let head = read_at(file, 0, WINDOW)?;
    let start = base.saturating_sub(WINDOW);
    let before = read_at(file, start, base - start)?;
    Ok((head, before))
}

/// Whether the first `end` bytes of `file` are what `hash` describes. A hash of the ends reads
/// two windows; an older hash of the whole prefix reads the prefix, in chunks.
pub fn file_holds(file: &mut (impl Read + Seek), end: u64, hash: &str) -> std::io::Result<bool> {
    if hash.starts_with(ENDS) {
        let (head, before) = windows(file, end)?;
        if (before.len() as u64) < end.min(WINDOW) {
            return Ok(false);
        }
        return Ok(SourceEnds::around(&head, &before, end, &[]).hash_at(end) == hash);
    }
    file.seek(SeekFrom::Start(0))?;
    let mut hasher = blake3::Hasher::new();
    let mut chunk = vec![0u8; 1 << 20];
    let mut left = end;
    let mut limited = file.take(end);
    while left > 0 {
        match limited.read(&mut chunk) {
            Ok(0) => return Ok(false),
            Ok(n) => {
                hasher.update(&chunk[..n]);
                left -= n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(hasher.finalize().to_hex().as_str() == hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 7 + i / 251) as u8).collect()
    }

    #[test]
    fn given_a_stream_pushed_in_any_pieces_or_resumed_from_its_ends_when_hashed_then_it_is_the_whole_sources_hash(
    ) {
        // Protects a recorded stream's hash: kept as records arrive, or rebuilt from the first
        // and last stored records when a tail resumes, it must be that of the records laid out
        // as one file.
        let source = bytes(3 * WINDOW as usize + 17);
        for piece in [1, 999, WINDOW as usize - 1, WINDOW as usize + 3] {
            let mut ends = StreamEnds::default();
            let chunks = source.chunks(piece).count();
            for (index, chunk) in source.chunks(piece).enumerate() {
                ends.push(chunk);
                if index % 101 != 0 && index + 1 != chunks {
                    continue;
                }
                let len = ((index + 1) * piece).min(source.len());
                assert_eq!(
                    ends.hash(),
                    SourceEnds::whole(&source[..len]).hash_at(len as u64),
                    "pushed {piece} bytes at a time, the hash at {len}"
                );
            }
        }
        for len in [0, 5, WINDOW as usize, source.len()] {
            let prefix = &source[..len];
            let resumed = StreamEnds::resumed(
                prefix.to_vec(),
                prefix[len.saturating_sub(WINDOW as usize + 9)..].to_vec(),
                len as u64,
            );
            assert_eq!(
                resumed.hash(),
                SourceEnds::whole(prefix).hash_at(len as u64),
                "resumed from more than its ends, the hash at {len}"
            );
        }
    }

    #[test]
    fn given_any_split_of_a_source_when_hashed_at_any_end_then_the_hash_is_that_of_the_whole() {
        // Protects appends and follows: the hash kept after an append, from the windows and
        // the new bytes, must be the one a later check computes from the file alone.
        let source = bytes(3 * WINDOW as usize + 17);
        let whole = SourceEnds::whole(&source);
        for base in [0, 1, 100, WINDOW - 1, WINDOW, WINDOW + 5, 2 * WINDOW + 3] {
            let mut file = std::io::Cursor::new(source.clone());
            let (head, before) = windows(&mut file, base).expect("read");
            let split = SourceEnds::around(&head, &before, base, &source[base as usize..]);
            for end in [base, base + 1, base + 300, 2 * WINDOW, source.len() as u64] {
                if end < base || end > source.len() as u64 {
                    continue;
                }
                assert_eq!(
                    split.hash_at(end),
                    whole.hash_at(end),
                    "base {base}, end {end}: the same hash from a split source"
                );
                assert!(
                    file_holds(&mut file, end, &whole.hash_at(end)).expect("read"),
                    "base {base}, end {end}: the file holds what the hash describes"
                );
            }
        }
    }

    #[test]
    fn given_a_changed_end_or_length_when_checked_then_the_file_does_not_hold_it() {
        let source = bytes(4 * WINDOW as usize);
        let end = 3 * WINDOW + 10;
        let hash = SourceEnds::whole(&source).hash_at(end);
        let check = |bytes: Vec<u8>, end: u64| {
            file_holds(&mut std::io::Cursor::new(bytes), end, &hash).expect("read")
        };
        assert!(check(source.clone(), end), "unchanged, it holds");
        let mut first = source.clone();
        first[3] ^= 1;
        assert!(!check(first, end), "a change in the first window is seen");
        let mut last = source.clone();
        last[end as usize - 1] ^= 1;
        assert!(!check(last, end), "a change in the last window is seen");
        assert!(
            !check(source.clone(), end - 1),
            "another length is another source"
        );
        assert!(
            !check(source[..end as usize - 5].to_vec(), end),
            "a truncated file does not hold it"
        );
        let legacy = blake3::hash(&source[..end as usize]).to_hex().to_string();
        assert!(
            file_holds(&mut std::io::Cursor::new(source.clone()), end, &legacy).expect("read"),
            "a hash of the whole prefix from an older import is still checked"
        );
        assert!(
            SourceEnds::whole(&source).holds(end, &legacy),
            "in memory too"
        );
    }
}
