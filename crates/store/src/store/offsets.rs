//! Offsets as a fold through one reads them. Most journals' offsets rise with every record,
//! and then the records at or before an offset are a prefix of the file. A record whose offset
//! does not rise above every earlier one (a late record) breaks that; the store lists such
//! records as they are appended (`late_records`), so that the records at or before any offset
//! are still found with two index reads: a prefix of the file, and the late records after it.

use rusqlite::{params, OptionalExtension};

use super::{clamp, Store, StoreError, StoredEvent};
use crate::derived::ReadEvent;
use journalscope_shapes::source::RawRecord;

/// The records at or before an offset (and before a seq, when one is given), in file order:
/// the first `prefix` records of the file, then the records `late` names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OffsetCut {
    pub prefix: u64,
    pub late: Vec<u64>,
}

/// The highest offset of a journal's records so far, kept between appends: during a bulk load
/// the offset index is not there to ask.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Highest {
    journal_id: i64,
    /// The seq the next append starts at, for the figure to hold.
    next_seq: u64,
    offset: Option<i64>,
}

impl Store {
    /// Lists the records of an append whose offset does not rise above every earlier one.
    pub(super) fn note_late_records(
        &self,
        journal_id: i64,
        events: &[(RawRecord, ReadEvent)],
    ) -> Result<(), StoreError> {
        let Some((first, _)) = events.first() else {
            return Ok(());
        };
        let known = *self.highest.borrow();
        let mut highest = if known.journal_id == journal_id && known.next_seq == first.seq {
            known.offset
        } else {
            self.conn.query_row(
                "SELECT max(offset) FROM events WHERE journal_id = ?1 AND seq < ?2",
                params![journal_id, clamp(first.seq)],
                |row| row.get(0),
            )?
        };
        let mut late = self.conn.prepare_cached(
            "INSERT INTO late_records (journal_id, seq, offset) VALUES (?1, ?2, ?3)",
        )?;
        for (record, read) in events {
            let Some(offset) = read.offset else {
                continue;
            };
            match highest {
                Some(high) if offset <= high => {
                    late.execute(params![journal_id, clamp(record.seq), offset])?;
                }
                _ => highest = Some(offset),
            }
        }
        let next_seq = events.last().map_or(first.seq, |(r, _)| r.seq + 1);
        *self.highest.borrow_mut() = Highest {
            journal_id,
            next_seq,
            offset: highest,
        };
        Ok(())
    }

    /// Forgets what [`Store::note_late_records`] kept between appends, for a journal whose
    /// records were discarded.
    pub(super) fn forget_highest(&self) {
        *self.highest.borrow_mut() = Highest::default();
    }

    /// The records a fold through offset `at` reads, in file order: those at or before `at`,
    /// and before seq `before` when it is given.
    pub fn offset_cut(
        &self,
        journal_id: i64,
        at: i64,
        before: Option<u64>,
    ) -> Result<OffsetCut, StoreError> {
        // The first record above `at` is never late: every record before it is at or below
        // `at`, so it rises above them all. Late records above `at` are skipped on the way.
        let first_above: Option<i64> = self
            .conn
            .prepare_cached(
                "SELECT e.seq FROM events e WHERE e.journal_id = ?1 AND e.offset > ?2
                   AND NOT EXISTS (SELECT 1 FROM late_records l
                                   WHERE l.journal_id = ?1 AND l.seq = e.seq)
                 ORDER BY e.offset LIMIT 1",
            )?
            .query_row(params![journal_id, at], |row| row.get(0))
            .optional()?;
        let end = match before {
            Some(before) => before.min(self.event_count(journal_id)?),
            None => self.event_count(journal_id)?,
        };
        let prefix = first_above.map_or(end, |seq| (seq as u64).min(end));
        if prefix >= end {
            return Ok(OffsetCut {
                prefix,
                late: Vec::new(),
            });
        }
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq FROM late_records WHERE journal_id = ?1 AND seq >= ?2 AND seq < ?3
               AND offset <= ?4 ORDER BY seq",
        )?;
        let rows = stmt.query_map(params![journal_id, clamp(prefix), clamp(end), at], |row| {
            Ok(row.get::<_, i64>(0)? as u64)
        })?;
        Ok(OffsetCut {
            prefix,
            late: rows.collect::<Result<_, _>>()?,
        })
    }

    /// Whether any record's offset fails to rise above every earlier one.
    pub fn has_late_records(&self, journal_id: i64) -> Result<bool, StoreError> {
        Ok(self
            .conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM late_records WHERE journal_id = ?1)")?
            .query_row([journal_id], |row| row.get(0))?)
    }

    /// The seqs of the records with exactly `offset`, in file order: one, where offsets rise.
    pub fn seqs_at_offset(&self, journal_id: i64, offset: i64) -> Result<Vec<u64>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq FROM events WHERE journal_id = ?1 AND offset = ?2 ORDER BY seq",
        )?;
        let rows = stmt.query_map(params![journal_id, offset], |row| {
            Ok(row.get::<_, i64>(0)? as u64)
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The seqs of the records with `above < offset <= through`, in file order.
    pub fn seqs_with_offsets_between(
        &self,
        journal_id: i64,
        above: i64,
        through: i64,
    ) -> Result<Vec<u64>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq FROM events WHERE journal_id = ?1 AND offset > ?2 AND offset <= ?3
             ORDER BY seq",
        )?;
        let rows = stmt.query_map(params![journal_id, above, through], |row| {
            Ok(row.get::<_, i64>(0)? as u64)
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The records with a mark of `kind` and their offsets, in file order.
    pub fn marked_offsets(
        &self,
        journal_id: i64,
        kind: &str,
    ) -> Result<Vec<(u64, i64)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT m.seq, e.offset FROM marks m
             JOIN events e ON e.journal_id = m.journal_id AND e.seq = m.seq
             WHERE m.journal_id = ?1 AND m.kind = ?2 AND e.offset IS NOT NULL ORDER BY m.seq",
        )?;
        let rows = stmt.query_map(params![journal_id, kind], |row| {
            Ok((row.get::<_, i64>(0)? as u64, row.get::<_, i64>(1)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The highest offset below `below` of a record with a mark of `kind`.
    pub fn highest_marked_offset_below(
        &self,
        journal_id: i64,
        kind: &str,
        below: i64,
    ) -> Result<Option<i64>, StoreError> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT max(e.offset) FROM marks m
                 JOIN events e ON e.journal_id = m.journal_id AND e.seq = m.seq
                 WHERE m.journal_id = ?1 AND m.kind = ?2 AND e.offset < ?3",
            )?
            .query_row(params![journal_id, kind, below], |row| row.get(0))?)
    }

    /// The stored records with these seqs (in increasing order), at most `slice` of them at a
    /// time: how a fold reads records that are not one run of the file.
    pub fn records_at<'a>(
        &'a self,
        journal_id: i64,
        seqs: &'a [u64],
        slice: usize,
    ) -> impl Iterator<Item = Result<Vec<StoredEvent>, StoreError>> + 'a {
        seqs.chunks(slice.max(1)).map(move |chunk| {
            let list = chunk
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(",");
            self.events_where(journal_id, &format!("seq IN ({list})"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::derived::Dialect;
    use crate::store::NewJournal;
    use journalscope_shapes::source::Framing;

    /// A journal of records with these offsets (`None`: a record without one), appended in
    /// chunks of `chunk`.
    fn journal(offsets: &[Option<i64>], chunk: usize) -> (Store, i64) {
        let store = Store::in_memory().unwrap();
        let id = store
            .create_journal(&NewJournal {
                source_path: "/j.jsonl",
                dialect: Dialect::Iterate,
                framing: Framing::Jsonl,
            })
            .unwrap();
        let records: Vec<(RawRecord, ReadEvent)> = offsets
            .iter()
            .enumerate()
            .map(|(seq, offset)| {
                (
                    RawRecord {
                        seq: seq as u64,
                        line: seq as u64 + 1,
                        byte_start: 0,
                        byte_len: 2,
                        bytes: b"{}".to_vec(),
                    },
                    ReadEvent {
                        offset: *offset,
                        ..ReadEvent::default()
                    },
                )
            })
            .collect();
        for part in records.chunks(chunk) {
            store.append(id, part).unwrap();
        }
        (store, id)
    }

    /// What a fold through `at` before `before` reads, by the plain rule: every record with an
    /// offset at or below `at`, in file order.
    fn plain(offsets: &[Option<i64>], at: i64, before: Option<u64>) -> Vec<u64> {
        offsets
            .iter()
            .enumerate()
            .filter(|(seq, o)| {
                o.is_some_and(|o| o <= at) && before.is_none_or(|b| (*seq as u64) < b)
            })
            .map(|(seq, _)| seq as u64)
            .collect()
    }

    /// The records a cut names that have an offset (a prefix also holds records without one).
    fn named(offsets: &[Option<i64>], cut: &OffsetCut) -> Vec<u64> {
        (0..cut.prefix)
            .chain(cut.late.iter().copied())
            .filter(|seq| offsets[*seq as usize].is_some())
            .collect()
    }

    #[test]
    fn a_cut_names_exactly_the_records_at_or_before_an_offset_in_file_order() {
        let offsets = [
            Some(1),
            Some(5),
            None,
            Some(3),
            Some(9),
            Some(5),
            Some(2),
            Some(12),
            Some(7),
            Some(12),
        ];
        for chunk in [1, 3, 10] {
            let (store, id) = journal(&offsets, chunk);
            for at in -1..14 {
                for before in [None, Some(0), Some(4), Some(7), Some(10), Some(40)] {
                    let cut = store.offset_cut(id, at, before).unwrap();
                    assert_eq!(
                        named(&offsets, &cut),
                        plain(&offsets, at, before),
                        "the cut at {at} before {before:?} (appended {chunk} at a time) reads \
                         what a plain filter keeps"
                    );
                }
            }
        }
    }

    #[test]
    fn offsets_that_rise_leave_no_late_records_and_a_cut_is_a_prefix() {
        let offsets: Vec<Option<i64>> = (0..50).map(|i| Some(i * 3)).collect();
        let (store, id) = journal(&offsets, 7);
        assert!(
            !store.has_late_records(id).unwrap(),
            "rising offsets are never late"
        );
        assert_eq!(
            store.offset_cut(id, 30, None).unwrap(),
            OffsetCut {
                prefix: 11,
                late: Vec::new()
            },
            "offsets 0..=30 are the first 11 records"
        );
    }

    proptest::proptest! {
        #[test]
        fn any_offsets_cut_as_a_plain_filter_does(
            offsets in proptest::collection::vec(proptest::option::weighted(0.9, 0i64..40), 0..60),
            chunk in 1usize..20,
            at in -1i64..42,
            before in proptest::option::of(0u64..70),
        ) {
            let (store, id) = journal(&offsets, chunk);
            let cut = store.offset_cut(id, at, before).unwrap();
            proptest::prop_assert_eq!(
                named(&offsets, &cut),
                plain(&offsets, at, before),
                "the store's cut must read what folding every record at or before the offset reads"
            );
        }
    }
}
