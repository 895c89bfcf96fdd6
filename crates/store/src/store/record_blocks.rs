//! Where the records' original bytes and summaries live. Records are numbered from 0 and fall
//! into blocks of [`BLOCK_RECORDS`] neighbours; once every record of a block is stored, the
//! block is kept in `event_blocks`, LZ4-compressed as one, and until then each record is a row
//! of `event_bytes`. Small records (a token of streamed text) repeat their envelope, and their
//! summaries their type, which a block compresses away, where a row each cost more than the
//! record itself. A database written before blocks keeps its rows, with their summaries in
//! `events`; a record is looked for in its block first.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Arc, Mutex};

use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{ToSqlOutput, Value as Sql, ValueRef};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};

use super::{bytes_id, StoreError, BUSY_TIMEOUT};

/// How many records a block holds. Part of the stored format: a block's key is its first
/// seq, a multiple of this. At 256, a block of large records (a kilobyte each) decompresses
/// in a fraction of a millisecond for one record read at random, and a block of the smallest
/// ones still compresses to about a fifth.
pub(super) const BLOCK_RECORDS: u64 = 256;

/// The SQL functions that read a record's bytes and its summary wherever they are kept.
pub const RECORD_FUNCTION: &str = "record_bytes";
pub const SUMMARY_FUNCTION: &str = "record_summary";

/// How many decompressed blocks a store keeps for the reads that come back to them (the
/// items of a checkpoint name records a few blocks apart).
const CACHED_BLOCKS: usize = 8;

/// A record's bytes and its summary, as they are given to be kept.
pub(super) type Kept<'a> = (&'a [u8], &'a str);

/// A record's bytes and its summary as they are read back; `None` for the summary of a
/// record that a database written before blocks keeps in `events`.
pub(super) type Record = (Vec<u8>, Option<String>);

/// The records of one block, decompressed.
#[derive(Debug)]
pub(super) struct Block {
    payload: Vec<u8>,
    /// Where each record's bytes start in `payload`, then where each summary starts, and
    /// where the last summary ends.
    bounds: Vec<usize>,
}

impl Block {
    /// Packs `records` as a block: their count, each one's length, each summary's length
    /// (u32, little-endian), their bytes, their summaries; compressed, with the decompressed
    /// length in front.
    fn encode(records: &[Kept<'_>]) -> Vec<u8> {
        let data: usize = records.iter().map(|(r, s)| r.len() + s.len()).sum();
        let mut payload = Vec::with_capacity(4 + 8 * records.len() + data);
        payload.extend_from_slice(&(records.len() as u32).to_le_bytes());
        for (raw, _) in records {
            payload.extend_from_slice(&(raw.len() as u32).to_le_bytes());
        }
        for (_, summary) in records {
            payload.extend_from_slice(&(summary.len() as u32).to_le_bytes());
        }
        for (raw, _) in records {
            payload.extend_from_slice(raw);
        }
        for (_, summary) in records {
            payload.extend_from_slice(summary.as_bytes());
        }
        super::compression::compress(&payload)
    }

    fn decode(compressed: &[u8], key: i64) -> Result<Block, StoreError> {
        let damaged = |reason: &str| StoreError::DamagedBlock {
            key,
            reason: reason.to_string(),
        };
        let payload = super::compression::decompress(compressed).map_err(|e| damaged(&e))?;
        let word = |at: usize| {
            payload
                .get(at..at + 4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        };
        let count = word(0).ok_or_else(|| damaged("no record count"))?;
        let mut start = count
            .checked_mul(8)
            .and_then(|n| n.checked_add(4))
            .filter(|&n| n <= payload.len())
            .ok_or_else(|| damaged("its lengths run past its end"))?;
        let mut bounds = Vec::with_capacity(2 * count + 1);
        bounds.push(start);
        for i in 0..2 * count {
            let len = word(4 + 4 * i).ok_or_else(|| damaged("a length is missing"))?;
            start = start
                .checked_add(len)
                .filter(|&end| end <= payload.len())
                .ok_or_else(|| damaged("a record runs past its end"))?;
            bounds.push(start);
        }
        if (count..2 * count)
            .any(|i| std::str::from_utf8(&payload[bounds[i]..bounds[i + 1]]).is_err())
        {
            return Err(damaged("a summary is not text"));
        }
        Ok(Block { payload, bounds })
    }

    fn len(&self) -> usize {
        self.bounds.len() / 2
    }

    fn part(&self, index: usize) -> Option<&[u8]> {
        let start = *self.bounds.get(index)?;
        let end = *self.bounds.get(index + 1)?;
        self.payload.get(start..end)
    }

    fn record(&self, index: usize) -> Option<Kept<'_>> {
        if index >= self.len() {
            return None;
        }
        let raw = self.part(index)?;
        // Each summary was checked to be text when the block was decoded.
        let summary = std::str::from_utf8(self.part(self.len() + index)?).unwrap_or_default();
        Some((raw, summary))
    }
}

/// Blocks decompressed lately, each with the compressed bytes it came from: a hit is checked
/// against the stored bytes, so that a journal discarded and its key used again (by this
/// connection or another process) is never answered from an old block.
#[derive(Debug, Default)]
pub(super) struct BlockCache {
    entries: VecDeque<(i64, Vec<u8>, Arc<Block>)>,
}

impl BlockCache {
    fn get(&mut self, key: i64, compressed: &[u8]) -> Option<Arc<Block>> {
        let at = self
            .entries
            .iter()
            .position(|(k, c, _)| *k == key && c.as_slice() == compressed)?;
        let entry = self.entries.remove(at)?;
        let block = Arc::clone(&entry.2);
        self.entries.push_front(entry);
        Some(block)
    }

    fn put(&mut self, key: i64, compressed: &[u8], block: Arc<Block>) {
        self.entries.retain(|(k, _, _)| *k != key);
        self.entries.truncate(CACHED_BLOCKS - 1);
        self.entries.push_front((key, compressed.to_vec(), block));
    }

    pub(super) fn clear(&mut self) {
        self.entries.clear();
    }
}

/// The block that starts at `start`, if it is kept as one.
fn block_at(
    conn: &Connection,
    cache: &mut BlockCache,
    journal_id: i64,
    start: u64,
) -> Result<Option<Arc<Block>>, StoreError> {
    let key = bytes_id(journal_id, start);
    let mut stmt = conn.prepare_cached("SELECT bytes FROM event_blocks WHERE id = ?1")?;
    let mut rows = stmt.query([key])?;
    let Some(row) = rows.next()? else {
        return Ok(None);
    };
    let compressed = blob(row.get_ref(0)?);
    if let Some(block) = cache.get(key, compressed) {
        return Ok(Some(block));
    }
    let block = Arc::new(Block::decode(compressed, key)?);
    cache.put(key, compressed, Arc::clone(&block));
    Ok(Some(block))
}

/// One record's bytes and summary, from its block or its row.
pub(super) fn record_at(
    conn: &Connection,
    cache: &mut BlockCache,
    journal_id: i64,
    seq: u64,
) -> Result<Option<Record>, StoreError> {
    let start = seq - seq % BLOCK_RECORDS;
    if let Some(block) = block_at(conn, cache, journal_id, start)? {
        return Ok(block
            .record((seq - start) as usize)
            .map(|(raw, summary)| (raw.to_vec(), Some(summary.to_string()))));
    }
    let mut stmt = conn.prepare_cached("SELECT raw, summary FROM event_bytes WHERE id = ?1")?;
    Ok(stmt
        .query_row([bytes_id(journal_id, seq)], |row| {
            Ok((blob(row.get_ref(0)?).to_vec(), row.get(1)?))
        })
        .optional()?)
}

/// The records at `seqs` (in order), each block among them decompressed once.
pub(super) fn records_at(
    conn: &Connection,
    cache: &mut BlockCache,
    journal_id: i64,
    seqs: &[u64],
) -> Result<Vec<Option<Record>>, StoreError> {
    let mut found = Vec::with_capacity(seqs.len());
    let mut current: Option<(u64, Arc<Block>)> = None;
    for &seq in seqs {
        let start = seq - seq % BLOCK_RECORDS;
        if current.as_ref().is_none_or(|(s, _)| *s != start) {
            current = block_at(conn, cache, journal_id, start)?.map(|block| (start, block));
        }
        let record = match &current {
            Some((s, block)) if *s == start => block
                .record((seq - start) as usize)
                .map(|(raw, summary)| (raw.to_vec(), Some(summary.to_string()))),
            _ => record_at(conn, cache, journal_id, seq)?,
        };
        found.push(record);
    }
    Ok(found)
}

/// What a pass over stored records lends each one to: its seq, bytes and summary (as
/// [`Record`] has it); false stops the pass.
pub(super) type RecordVisit<'a> = dyn FnMut(u64, &[u8], Option<&str>) -> bool + 'a;

/// Lends `visit` the bytes and summary (as [`Record`] has it) of each stored record
/// `from <= seq < to`, in order, until it returns false. Blocks are read in one pass over
/// `event_blocks`; the records of a block not kept as one are read from their rows.
pub(super) fn visit_records(
    conn: &Connection,
    journal_id: i64,
    from: u64,
    to: u64,
    visit: &mut RecordVisit<'_>,
) -> Result<(), StoreError> {
    if from >= to {
        return Ok(());
    }
    let first_block = from - from % BLOCK_RECORDS;
    let mut blocks = conn.prepare_cached(
        "SELECT id, bytes FROM event_blocks WHERE id >= ?1 AND id < ?2 ORDER BY id",
    )?;
    let mut blocks = blocks.query(params![
        bytes_id(journal_id, first_block),
        bytes_id(journal_id, to)
    ])?;
    let mut rows = conn.prepare_cached(
        "SELECT id, raw, summary FROM event_bytes WHERE id >= ?1 AND id < ?2 ORDER BY id",
    )?;
    let mut next_block = blocks.next()?;
    let mut start = first_block;
    while start < to {
        let end = start + BLOCK_RECORDS;
        let kept = match next_block {
            Some(row) if row.get::<_, i64>(0)? == bytes_id(journal_id, start) => {
                let key = bytes_id(journal_id, start);
                Some(Block::decode(blob(row.get_ref(1)?), key)?)
            }
            _ => None,
        };
        if let Some(block) = kept {
            next_block = blocks.next()?;
            for index in 0..block.len() {
                let seq = start + index as u64;
                if seq < from || seq >= to {
                    continue;
                }
                if let Some((raw, summary)) = block.record(index) {
                    if !visit(seq, raw, Some(summary)) {
                        return Ok(());
                    }
                }
            }
        } else {
            let mut found = rows.query(params![
                bytes_id(journal_id, start.max(from)),
                bytes_id(journal_id, end.min(to))
            ])?;
            while let Some(row) = found.next()? {
                let seq = (row.get::<_, i64>(0)? - bytes_id(journal_id, 0)) as u64;
                let summary = match row.get_ref(2)? {
                    ValueRef::Text(text) => std::str::from_utf8(text).ok(),
                    _ => None,
                };
                if !visit(seq, blob(row.get_ref(1)?), summary) {
                    return Ok(());
                }
            }
        }
        start = end;
    }
    Ok(())
}

/// Stores the bytes and summaries of `records` (in seq order): a block that they complete is
/// kept whole, with the records of it that earlier appends left as rows moved into it; the
/// rest become rows until their block fills.
pub(super) fn keep_records(
    conn: &Connection,
    journal_id: i64,
    records: &[(u64, Kept<'_>)],
) -> Result<(), StoreError> {
    let mut row =
        conn.prepare_cached("INSERT INTO event_bytes (id, raw, summary) VALUES (?1, ?2, ?3)")?;
    let mut block = conn.prepare_cached("INSERT INTO event_blocks (id, bytes) VALUES (?1, ?2)")?;
    let mut at = 0;
    while let Some(&(seq, _)) = records.get(at) {
        let start = seq - seq % BLOCK_RECORDS;
        let end = start + BLOCK_RECORDS;
        let run_len = records[at..].iter().take_while(|(s, _)| *s < end).count();
        let run = &records[at..at + run_len];
        at += run_len;
        let completes = run.last().map(|r| r.0) == Some(end - 1)
            && run.windows(2).all(|pair| pair[1].0 == pair[0].0 + 1);
        if completes {
            let earlier = rows_between(conn, journal_id, start, seq)?;
            let whole = earlier.len() as u64 == seq - start
                && earlier
                    .iter()
                    .enumerate()
                    .all(|(i, (s, _, _))| *s == start + i as u64);
            if whole {
                let parts: Vec<Kept<'_>> = earlier
                    .iter()
                    .map(|(_, raw, summary)| (raw.as_slice(), summary.as_str()))
                    .chain(run.iter().map(|(_, kept)| *kept))
                    .collect();
                block.execute(params![bytes_id(journal_id, start), Block::encode(&parts)])?;
                if !earlier.is_empty() {
                    conn.prepare_cached("DELETE FROM event_bytes WHERE id >= ?1 AND id < ?2")?
                        .execute(params![
                            bytes_id(journal_id, start),
                            bytes_id(journal_id, seq)
                        ])?;
                }
                continue;
            }
        }
        for (seq, (raw, summary)) in run {
            row.execute(params![bytes_id(journal_id, *seq), raw, summary])?;
        }
    }
    Ok(())
}

/// The records `from <= seq < to` kept as rows, each with its summary (from `events` for a
/// row written before blocks).
fn rows_between(
    conn: &Connection,
    journal_id: i64,
    from: u64,
    to: u64,
) -> Result<Vec<(u64, Vec<u8>, String)>, StoreError> {
    if from >= to {
        return Ok(Vec::new());
    }
    let base = bytes_id(journal_id, 0);
    let mut stmt = conn.prepare_cached(
        "SELECT b.id, b.raw, coalesce(b.summary, e.summary, '') FROM event_bytes b
         LEFT JOIN events e ON e.journal_id = ?3 AND e.seq = b.id - ?4
         WHERE b.id >= ?1 AND b.id < ?2 ORDER BY b.id",
    )?;
    let rows = stmt.query_map(
        params![
            bytes_id(journal_id, from),
            bytes_id(journal_id, to),
            journal_id,
            base
        ],
        |row| {
            Ok((
                (row.get::<_, i64>(0)? - base) as u64,
                blob(row.get_ref(1)?).to_vec(),
                row.get(2)?,
            ))
        },
    )?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Removes every record's bytes of a journal.
pub(super) fn discard_records(conn: &Connection, journal_id: i64) -> Result<(), StoreError> {
    let range = [bytes_id(journal_id, 0), bytes_id(journal_id + 1, 0)];
    conn.execute("DELETE FROM event_bytes WHERE id >= ?1 AND id < ?2", range)?;
    conn.execute("DELETE FROM event_blocks WHERE id >= ?1 AND id < ?2", range)?;
    Ok(())
}

/// A record's bytes are a blob; text (written by hand into the database) is read as its
/// bytes too.
fn blob(value: ValueRef<'_>) -> &[u8] {
    match value {
        ValueRef::Blob(bytes) | ValueRef::Text(bytes) => bytes,
        _ => &[],
    }
}

/// Registers [`RECORD_FUNCTION`]`(journal_id, seq)` and [`SUMMARY_FUNCTION`]`(journal_id, seq)`
/// on `conn`, over a read-only connection of their own to the database at `path`: the bytes
/// of that record, and its summary where `events` does not hold it, or NULL. The
/// `event_records` view reads its `raw` column through the first, so a connection that reads
/// that column needs them.
pub fn register_record_functions(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let reader = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|source| StoreError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    reader.busy_timeout(BUSY_TIMEOUT)?;
    // The functions may be called from any thread the connection is used on.
    let reader = Arc::new(Mutex::new((reader, BlockCache::default())));
    for (name, summary) in [(RECORD_FUNCTION, false), (SUMMARY_FUNCTION, true)] {
        let reader = Arc::clone(&reader);
        conn.create_scalar_function(
            name,
            2,
            FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_INNOCUOUS,
            move |ctx: &mut Context<'_>| -> rusqlite::Result<ToSqlOutput<'static>> {
                let (Ok(journal_id), Ok(seq)) = (ctx.get::<i64>(0), ctx.get::<i64>(1)) else {
                    return Ok(ToSqlOutput::Owned(Sql::Null));
                };
                let Ok(seq) = u64::try_from(seq) else {
                    return Ok(ToSqlOutput::Owned(Sql::Null));
                };
                let mut guard = reader.lock().map_err(|_| {
                    rusqlite::Error::UserFunctionError("an earlier read failed".into())
                })?;
                let (reader, cache) = &mut *guard;
                // Packing moves a block's rows into it in one transaction, which this
                // connection may see land between its two lookups: a record found in neither
                // is looked for once more.
                let mut found = record_at(reader, cache, journal_id, seq);
                if matches!(found, Ok(None)) {
                    found = record_at(reader, cache, journal_id, seq);
                }
                let value = match found {
                    Ok(Some((_, Some(text)))) if summary => Sql::Text(text),
                    Ok(Some((raw, _))) if !summary => Sql::Blob(raw),
                    Ok(_) => Sql::Null,
                    Err(err) => return Err(rusqlite::Error::UserFunctionError(Box::new(err))),
                };
                Ok(ToSqlOutput::Owned(value))
            },
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_records_when_packed_and_decoded_then_each_comes_back_as_it_was() {
        let records: Vec<Vec<u8>> = (0..300)
            .map(|i| format!("{{\"n\":{i},\"pad\":\"{}\"}}", "x".repeat(i % 7)).into_bytes())
            .chain([Vec::new(), vec![0xff, 0x00, 0x41]])
            .collect();
        let summaries: Vec<String> = (0..records.len()).map(|i| "é".repeat(i % 3)).collect();
        let parts: Vec<Kept<'_>> = records
            .iter()
            .zip(&summaries)
            .map(|(raw, summary)| (raw.as_slice(), summary.as_str()))
            .collect();
        let block = Block::decode(&Block::encode(&parts), 0).expect("decodes");
        assert_eq!(block.len(), records.len(), "every record is in the block");
        for (i, kept) in parts.iter().enumerate() {
            assert_eq!(
                block.record(i),
                Some(*kept),
                "record {i} keeps its bytes (empty and non-UTF-8 ones included) and its summary"
            );
        }
        assert_eq!(block.record(records.len()), None, "nothing past the end");
    }

    #[test]
    fn a_damaged_block_is_an_error_not_a_panic_or_a_huge_allocation() {
        let good = Block::encode(&[(b"abc".as_slice(), "a"), (b"defg".as_slice(), "d")]);
        let mut claims_too_much = good.clone();
        claims_too_much[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        for (what, bytes) in [
            ("empty", Vec::new()),
            ("cut short", good[..good.len() - 2].to_vec()),
            ("claims 4 GiB", claims_too_much),
            ("garbage", vec![9, 0, 0, 0, 1, 2, 3]),
        ] {
            assert!(
                matches!(
                    Block::decode(&bytes, 7),
                    Err(StoreError::DamagedBlock { key: 7, .. })
                ),
                "{what}: reported as a damaged block"
            );
        }
        let lengths_past_end = lz4_flex::compress_prepend_size(&[5, 0, 0, 0, 1, 0, 0, 0]);
        assert!(
            Block::decode(&lengths_past_end, 7).is_err(),
            "lengths that run past the payload are damage"
        );
        let not_text = lz4_flex::compress_prepend_size(&[1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0xff]);
        assert!(
            Block::decode(&not_text, 7).is_err(),
            "a summary that is not UTF-8 is damage"
        );
    }
}

#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    use super::BLOCK_RECORDS;
    use crate::derived::{Dialect, ReadEvent};
    use crate::store::{EventFilter, NewJournal, Store};
    use journalscope_shapes::source::{Framing, RawRecord};
    use rusqlite::Connection;

    fn record_bytes(seq: u64, size: usize) -> Vec<u8> {
        let mut bytes = format!("{{\"n\":{seq},\"t\":\"").into_bytes();
        bytes.extend(std::iter::repeat_n(b'a' + (seq % 26) as u8, size));
        bytes.extend_from_slice(b"\"}");
        bytes
    }

    fn new_journal(store: &Store) -> i64 {
        store
            .create_journal(&NewJournal {
                source_path: "j.jsonl",
                dialect: Dialect::Iterate,
                framing: Framing::Jsonl,
            })
            .expect("journal")
    }

    fn summary_of(seq: u64) -> String {
        format!("<s{seq}>")
    }

    fn appended(seqs: std::ops::Range<u64>, sizes: &[usize]) -> Vec<(RawRecord, ReadEvent)> {
        seqs.map(|seq| {
            let bytes = record_bytes(seq, sizes[seq as usize % sizes.len()]);
            (
                RawRecord {
                    seq,
                    line: seq + 1,
                    byte_start: 0,
                    byte_len: bytes.len() as u64,
                    bytes,
                },
                ReadEvent {
                    offset: Some(seq as i64),
                    kind: Some("t".to_string()),
                    created_at: None,
                    summary: summary_of(seq),
                    diagnostics: Vec::new(),
                },
            )
        })
        .collect()
    }

    #[test]
    fn a_connection_with_the_record_functions_reads_every_record_through_the_view() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("j.sqlite");
        let store = Store::open(&path).expect("store");
        let id = new_journal(&store);
        let sizes = [3, 40, 700];
        for range in [0..100, 100..300, 300..600] {
            store.append(id, &appended(range, &sizes)).expect("append");
        }
        let conn = Connection::open(&path).expect("second connection");
        super::register_record_functions(&conn, &path).expect("register");
        let mut stmt = conn
            .prepare(
                "SELECT seq, raw, summary FROM event_records WHERE journal_id = ?1 ORDER BY seq",
            )
            .expect("prepare");
        let rows: Vec<(u64, Vec<u8>, String)> = stmt
            .query_map([id], |r| {
                Ok((r.get::<_, i64>(0)? as u64, r.get(1)?, r.get(2)?))
            })
            .expect("query")
            .collect::<Result<_, _>>()
            .expect("rows");
        let expected: Vec<(u64, Vec<u8>, String)> = (0..600)
            .map(|seq| {
                (
                    seq,
                    record_bytes(seq, sizes[seq as usize % 3]),
                    summary_of(seq),
                )
            })
            .collect();
        assert_eq!(
            rows, expected,
            "blocks and the rows of the unfilled one read as the records and summaries written"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        /// Every read of record bytes (a range, one record, the event list's text filter)
        /// answers the same bytes however the appends were cut, across blocks, the rows of an
        /// unfilled block, and the rows a database written before blocks kept.
        #[test]
        fn given_appends_in_any_chunks_when_read_back_then_every_record_keeps_its_bytes(
            old_rows in 0u64..600,
            chunks in proptest::collection::vec(1u64..400, 1..8),
            sizes in proptest::collection::vec(0usize..300, 1..5),
            from in 0u64..2_000,
            span in 0u64..2_000,
        ) {
            let store = Store::in_memory().expect("store");
            let id = new_journal(&store);
            // What a database of the version before blocks holds: a row per record.
            let old = appended(0..old_rows, &sizes);
            if !old.is_empty() {
                store.append(id, &old).expect("append");
            }
            store.conn.execute("DELETE FROM event_blocks", []).expect("no blocks");
            for (record, read) in &old {
                store
                    .conn
                    .execute(
                        "INSERT OR REPLACE INTO event_bytes (id, raw, summary) VALUES (?1, ?2, NULL)",
                        rusqlite::params![super::bytes_id(id, record.seq), record.bytes],
                    )
                    .expect("row");
                store
                    .conn
                    .execute(
                        "UPDATE events SET summary = ?3 WHERE journal_id = ?1 AND seq = ?2",
                        rusqlite::params![id, record.seq as i64, read.summary],
                    )
                    .expect("summary in events");
            }
            let mut next = old_rows;
            for chunk in &chunks {
                store.append(id, &appended(next..next + chunk, &sizes)).expect("append");
                next += chunk;
            }
            let total = next;

            let to = (from + span).min(total + 10);
            let mut seen = Vec::new();
            store
                .visit_bytes(id, from, to, |seq, raw| {
                    seen.push((seq, raw.to_vec()));
                    true
                })
                .expect("visit");
            let expected: Vec<(u64, Vec<u8>)> = (from..to.min(total))
                .map(|seq| (seq, record_bytes(seq, sizes[seq as usize % sizes.len()])))
                .collect();
            prop_assert_eq!(&seen, &expected, "a range reads each record once, in order, as written");

            let events = store.events_between(id, from, to).expect("events");
            prop_assert_eq!(
                events.iter().map(|e| (e.seq, e.raw.clone())).collect::<Vec<_>>(),
                expected.clone(),
                "stored events carry their bytes"
            );
            let summaries: Vec<(u64, String)> =
                (from..to.min(total)).map(|seq| (seq, summary_of(seq))).collect();
            prop_assert_eq!(
                events.iter().map(|e| (e.seq, e.summary.clone())).collect::<Vec<_>>(),
                summaries.clone(),
                "stored events carry their summaries"
            );
            let dense: Vec<u64> = (from..to.min(total)).collect();
            let listed = store.listed_events(id, &dense).expect("listed");
            prop_assert_eq!(
                listed.iter().map(|e| (e.seq, e.summary.clone())).collect::<Vec<_>>(),
                summaries,
                "a run of the event list shows each summary"
            );
            let sparse: Vec<u64> = dense.iter().copied().step_by(97).collect();
            let listed = store.listed_events(id, &sparse).expect("listed");
            prop_assert_eq!(
                listed.iter().map(|e| e.summary.clone()).collect::<Vec<_>>(),
                sparse.iter().map(|&seq| summary_of(seq)).collect::<Vec<_>>(),
                "scattered rows of the event list show their summaries"
            );
            if from < total {
                prop_assert_eq!(
                    store.event_head(id, from).expect("head").map(|h| h.summary),
                    Some(summary_of(from)),
                    "one row's head shows its summary"
                );
            }
            for seq in [0, from, total.saturating_sub(1), total] {
                let one = store.record_bytes(id, seq).expect("record").map(|(_, raw)| raw);
                let want = (seq < total).then(|| record_bytes(seq, sizes[seq as usize % sizes.len()]));
                prop_assert_eq!(one, want, "record {} read alone", seq);
            }

            let needle = format!("\"n\":{from},");
            let hits = store
                .filtered_seqs(id, &EventFilter { types: &[], text: Some(&needle) }, 0, u64::MAX)
                .expect("filter");
            let want: Vec<u64> = (from < total).then_some(from).into_iter().collect();
            prop_assert_eq!(hits, want.clone(), "the text filter finds a record by its bytes");
            let hits = store
                .filtered_seqs(
                    id,
                    &EventFilter { types: &[], text: Some(&summary_of(from)) },
                    0,
                    u64::MAX,
                )
                .expect("filter");
            prop_assert_eq!(hits, want, "the text filter finds a record by its summary");

            let new_rows: i64 = store
                .conn
                .query_row(
                    "SELECT count(*) FROM event_bytes WHERE id >= ?1",
                    [super::bytes_id(id, old_rows)],
                    |r| r.get(0),
                )
                .expect("count");
            let unfilled = total - old_rows.max(total - total % BLOCK_RECORDS).min(total);
            prop_assert!(
                new_rows as u64 <= unfilled + BLOCK_RECORDS,
                "only records of unfilled blocks stay as rows ({} rows)", new_rows
            );
        }
    }
}
