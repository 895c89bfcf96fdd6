//! The streamed import: a reading thread cuts a file's chunks into records, a folding thread
//! parses, reads and folds each one, and the calling thread stores each batch with what its
//! fold found, committing as it goes so that a killed import keeps what it stored.

use super::*;

/// Reads until `buf` is full or the file ends; returns how much was read. Public so that
/// the bench reads a file in the same chunks the import does.
pub fn read_full(file: &mut impl std::io::Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(filled)
}

/// Bytes read between two commits of a streaming import, at most: each commits with how far
/// into the file it got, so that a process killed midway keeps a prefix the next import
/// resumes after, and each costs a sync of the database file (a commit every 5,000 records
/// was 900 syncs at a million events).
pub(super) const COMMIT_BYTES: u64 = 32 << 20;

/// Records between two commits of a streaming import, at most: a kill loses no more work than
/// this, however small the records.
pub(super) const COMMIT_RECORDS: u64 = 20_000;

/// How far a streaming read got.
pub(super) struct StreamEnd {
    at: Position,
    last_byte: Option<u8>,
    ends: StreamEnds,
}

/// Reads `file` from where `journal` stops: a thread reads it in chunks and cuts them into
/// records, a second parses, reads and folds each record, and the calling thread stores each
/// batch with what its fold found. Parsing and SQLite each get a core, and the cutting, which
/// is light, runs where one of them leaves time, off the folding thread that sets the pace.
/// One transaction holds it all, committed every [`COMMIT_BYTES`] with the position reached.
/// `ends` are the file's ends up to where the journal stops.
pub(super) fn ingest_stream(
    store: &Store,
    journal: &JournalRow,
    mut file: fs::File,
    meta: &fs::Metadata,
    ends: StreamEnds,
    control: &mut ImportControl<'_>,
) -> Result<u64, ImportError> {
    let path = PathBuf::from(&journal.source_path);
    let read_err = |source| ImportError::Read {
        path: path.clone(),
        source,
    };
    let total = meta.len();
    let start = Position {
        byte: journal.imported_bytes,
        line: journal.imported_lines,
        seq: store.event_count(journal.id)?,
    };
    std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(start.byte)).map_err(read_err)?;
    store.transaction(|store| -> Result<u64, ImportError> {
        let bulk = store.start_bulk_load()?;
        let ingest = resume(store, journal, total, control)?;
        let (end, mut ingest) = std::thread::scope(|scope| -> Result<_, ImportError> {
            let (cut_sender, cuts) = std::sync::mpsc::sync_channel(1);
            let (sender, batches) = std::sync::mpsc::sync_channel(4);
            let framing = journal.framing;
            let cutting = scope.spawn(move || cut_stream(file, framing, start, ends, cut_sender));
            let folding = scope.spawn(move || fold_stream(cuts, ingest, sender));
            let mut events = start.seq;
            // Leaving this loop early drops `batches`, which stops the folding thread, and the
            // reading one after it.
            for piece in batches {
                if control.cancelled() {
                    return Err(ImportError::Cancelled);
                }
                match piece {
                    Piece::Batch { records, found } => {
                        ingest::land(store, journal.id, &records, &found)?;
                        events += records.len() as u64;
                        let reached = records.last().map_or(0, |(r, _)| r.byte_start + r.byte_len);
                        (control.progress)(ImportProgress {
                            done_bytes: reached,
                            total_bytes: total,
                            events,
                            stage: ImportStage::Storing,
                            analysed: 0,
                        });
                    }
                    Piece::Reached {
                        at,
                        content_hash,
                        last_byte,
                    } => {
                        store.record_position(
                            journal.id,
                            &SourcePosition {
                                size: total,
                                mtime_ns: mtime_ns(meta),
                                content_hash,
                                imported_bytes: at.byte,
                                imported_lines: at.line,
                                ends_mid_line: last_byte.is_some_and(|b| b != b'\n'),
                            },
                        )?;
                        store.commit_and_continue()?;
                    }
                }
            }
            let ingest = folding
                .join()
                .map_err(|_| std::io::Error::other("the folding thread panicked"))
                .map_err(read_err)?;
            let end = cutting
                .join()
                .unwrap_or_else(|_| Err(std::io::Error::other("the reading thread panicked")))
                .map_err(read_err)?;
            Ok((end, ingest))
        })?;
        if bulk {
            store.finish_bulk_load()?;
        }
        store.record_position(
            journal.id,
            &SourcePosition {
                size: total,
                mtime_ns: mtime_ns(meta),
                content_hash: end.ends.hash(),
                imported_bytes: end.at.byte,
                imported_lines: end.at.line,
                ends_mid_line: end.last_byte.is_some_and(|b| b != b'\n'),
            },
        )?;
        store.append_analysis(journal.id, &ingest.end())?;
        (control.progress)(ImportProgress {
            done_bytes: total,
            total_bytes: total,
            events: end.at.seq,
            stage: ImportStage::Saving,
            analysed: end.at.seq,
        });
        Ok(end.at.seq - start.seq)
    })
}

/// The ingest for the records after those `journal` holds, resumed from its latest checkpoint
/// with the fold's progress reported, in the caller's transaction.
pub(super) fn resume(
    store: &Store,
    journal: &JournalRow,
    total_bytes: u64,
    control: &mut ImportControl<'_>,
) -> Result<Ingest, ImportError> {
    let records = store.event_count(journal.id)?;
    let cancel = control.cancel;
    let progress = &mut *control.progress;
    let mut watch = |done: u64| {
        progress(ImportProgress {
            done_bytes: 0,
            total_bytes,
            events: records,
            stage: ImportStage::Folding,
            analysed: done.min(records),
        });
        if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    Ingest::resume(store, journal, &mut watch)?.ok_or(ImportError::Cancelled)
}

pub(super) type Batch = Vec<(RawRecord, ReadEvent)>;

/// What the reading thread sends: read records with what the fold found in them, and after
/// each stretch of [`COMMIT_BYTES`] how far they reach.
pub(super) enum Piece {
    Batch {
        records: Batch,
        found: Box<journalscope_registry::dialect::Analysis>,
    },
    Reached {
        at: Position,
        content_hash: String,
        last_byte: Option<u8>,
    },
}

/// The reading side of [`ingest_stream`]: chunks cut into records, and how far each stretch
/// reaches, hashed as the file's ends. Says where the file ended.
pub(super) fn cut_stream(
    mut file: fs::File,
    framing: Framing,
    start: Position,
    mut ends: StreamEnds,
    cuts: std::sync::mpsc::SyncSender<Cut>,
) -> std::io::Result<StreamEnd> {
    let stopped = || std::io::Error::other("the import stopped");
    // Zeroed once and reused; it grows only for a record longer than a chunk.
    let mut buf: Vec<u8> = vec![0; CHUNK * 2];
    // How much of `buf` holds file bytes not yet cut into records.
    let mut held = 0usize;
    let mut at = start;
    let mut last_byte = None;
    // Where the last commit left the file, and its record.
    let mut committed = (start.byte, start.seq);
    let due = |reached: (u64, u64), committed: (u64, u64)| {
        reached.0 - committed.0 >= COMMIT_BYTES || reached.1 - committed.1 >= COMMIT_RECORDS
    };
    loop {
        if buf.len() < held + CHUNK {
            buf.resize(held + CHUNK, 0);
        }
        // A whole chunk per call: `read_to_end` starts every call at 8 KiB reads and doubles,
        // 1,290 reads at a million events where these are 141. The copy out of the page cache
        // is most of what a read costs either way.
        let read = read_full(&mut file, &mut buf[held..held + CHUNK])?;
        held += read;
        let end = read < CHUNK;
        let split = source::split(&buf[..held], framing, at, end);
        let count = split.records.len() as u64;
        // Bytes of `buf` already pushed into the ends: each commit names the ends it reached.
        let mut pushed = 0usize;
        // The file's last record, when it ends without a line break.
        let unterminated = end && split.consumed > 0 && buf[split.consumed - 1] != b'\n';
        let last = split.records.last().map(|record| record.seq);
        // Moved into the batches, not copied: every byte of the file once more otherwise.
        let mut records = split.records.into_iter().peekable();
        while records.peek().is_some() {
            let batch: Vec<RawRecord> = records.by_ref().take(BATCH).collect();
            let next = records
                .peek()
                .map(|next| (next.byte_start, next.seq, next.line));
            cuts.send(Cut::Records {
                records: batch,
                unterminated: last.filter(|_| unterminated),
            })
            .map_err(|_| stopped())?;
            let Some((next_byte, next_seq, next_line)) = next else {
                continue;
            };
            if !due((next_byte, next_seq), committed) {
                continue;
            }
            let reached = (next_byte - at.byte) as usize;
            ends.push(&buf[pushed..reached]);
            pushed = reached;
            committed = (next_byte, next_seq);
            let piece = Cut::Reached(Piece::Reached {
                at: Position {
                    byte: next_byte,
                    line: next_line - 1,
                    seq: next_seq,
                },
                content_hash: ends.hash(),
                last_byte: reached.checked_sub(1).map(|i| buf[i]),
            });
            cuts.send(piece).map_err(|_| stopped())?;
        }
        ends.push(&buf[pushed..split.consumed]);
        if split.consumed > 0 {
            last_byte = Some(buf[split.consumed - 1]);
        }
        at = Position {
            byte: at.byte + split.consumed as u64,
            line: at.line + split.lines,
            seq: at.seq + count,
        };
        buf.copy_within(split.consumed..held, 0);
        held -= split.consumed;
        if end {
            break;
        }
        if due((at.byte, at.seq), committed) {
            committed = (at.byte, at.seq);
            let piece = Cut::Reached(Piece::Reached {
                at,
                content_hash: ends.hash(),
                last_byte,
            });
            cuts.send(piece).map_err(|_| stopped())?;
        }
    }
    Ok(StreamEnd {
        at,
        last_byte,
        ends,
    })
}

/// What the cutting thread sends the folding one: records in file order, and after each
/// stretch of [`COMMIT_BYTES`] how far they reach, which the folding thread passes on once
/// the records before it are read.
pub(super) enum Cut {
    Records {
        records: Vec<RawRecord>,
        /// The seq of the file's last record when it ends without a line break.
        unterminated: Option<u64>,
    },
    Reached(Piece),
}

/// The folding side of [`ingest_stream`]: one parse each, the dialect's reader and fold,
/// batches out. Gives the ingest back when the records end.
pub(super) fn fold_stream(
    cuts: std::sync::mpsc::Receiver<Cut>,
    mut ingest: Ingest,
    batches: std::sync::mpsc::SyncSender<Piece>,
) -> Ingest {
    for cut in cuts {
        let piece = match cut {
            Cut::Records {
                records,
                unterminated,
            } => {
                let records: Batch = records
                    .into_iter()
                    .map(|record| {
                        let read = if Some(record.seq) == unterminated {
                            ingest.read_unterminated(&record)
                        } else {
                            ingest.read(&record)
                        };
                        (record, read)
                    })
                    .collect();
                let found = Box::new(ingest.take_found());
                Piece::Batch { records, found }
            }
            Cut::Reached(reached) => reached,
        };
        // The storing side has stopped: so does the import, and the cutting side after it.
        if batches.send(piece).is_err() {
            break;
        }
    }
    ingest
}
