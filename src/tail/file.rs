//! Following a local journal file: a change notification (or, failing that, a short poll)
//! makes the appended complete records land; a half-written last line waits for its newline;
//! a file that shrank or whose imported part changed (truncation, rotation, rewrite) starts a
//! new journal generation, keeping the old one. The file is only ever read.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};
use serde_json::Value;
use tokio::sync::watch;

use crate::dialect::{self, Dialect, Reader};
use crate::source::{self, Position};
use crate::source_ends::{self, SourceEnds};
use crate::store::{JournalRow, NewJournal, SourcePosition, Store};

use super::remote::Board;
use super::update::{GenerationReason, TailStatus, TailUpdate, TailedEvent};
use super::{Command, Notify, TailError, TailOptions, TailSummary};

/// See the recorder: folding is linear in the journal, so it is not redone on every append.
const ANALYSIS_INTERVAL: Duration = Duration::from_secs(1);

/// What the file looked like when last read; an unchanged file is not read again.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    inode: u64,
}

fn stamp(meta: &fs::Metadata) -> Stamp {
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(meta);
    #[cfg(not(unix))]
    let inode = 0;
    Stamp {
        len: meta.len(),
        modified: meta.modified().ok(),
        inode,
    }
}

struct Follower {
    path: PathBuf,
    name: String,
    store: Store,
    journal: Option<JournalRow>,
    /// Why the next generation starts, when the last one was given up before the new
    /// content was complete (a truncation is seen as an empty file first).
    next_reason: GenerationReason,
    seen: Option<Stamp>,
    landed: u64,
    limit: Option<u64>,
    analysis_due: bool,
    analysed_at: Instant,
}

pub(crate) fn run(
    path: &Path,
    options: TailOptions,
    store: Store,
    mut commands: watch::Receiver<Command>,
    notify: Notify,
) -> Result<TailSummary, TailError> {
    let mut board = Board::new(notify);
    board.set(TailStatus::Connecting { attempt: 0 });
    let result = follow(path, &options, store, &mut commands, &mut board);
    match &result {
        Ok(summary) => board.set(TailStatus::Stopped {
            events: summary.events,
        }),
        Err(err) => board.set(TailStatus::Failed {
            reason: err.to_string(),
        }),
    }
    result
}

fn follow(
    path: &Path,
    options: &TailOptions,
    store: Store,
    commands: &mut watch::Receiver<Command>,
    board: &mut Board,
) -> Result<TailSummary, TailError> {
    let read_err = |source| TailError::Read {
        path: path.to_path_buf(),
        source,
    };
    let canonical = fs::canonicalize(path).map_err(read_err)?;
    let name = canonical.to_string_lossy().into_owned();
    let journal = store.current_journal_for(&name)?;
    let (wake, woken) = mpsc::channel::<()>();
    let mut watcher = notify::recommended_watcher(move |_: notify::Result<notify::Event>| {
        // A closed channel means the follower is gone; nothing left to wake.
        let _ = wake.send(());
    })
    .map_err(|source| TailError::Watch {
        path: path.to_path_buf(),
        source,
    })?;
    // The directory is watched, not the file, so that a rotated-in replacement is seen too.
    let directory = canonical
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    watcher
        .watch(&directory, RecursiveMode::NonRecursive)
        .map_err(|source| TailError::Watch {
            path: directory.clone(),
            source,
        })?;
    let mut follower = Follower {
        path: canonical,
        name,
        store,
        journal,
        next_reason: GenerationReason::First,
        seen: None,
        landed: 0,
        limit: options.stop_after,
        analysis_due: false,
        analysed_at: Instant::now(),
    };
    // Pausing freezes what the watcher shows; the file is still followed and stored.
    let mut paused = *commands.borrow_and_update() == Command::Pause;
    board.set_paused(paused, 0);
    board.set(TailStatus::Live {
        events_per_second: 0.0,
        events: 0,
    });
    loop {
        match commands.has_changed() {
            Ok(true) => match *commands.borrow_and_update() {
                Command::Stop => break,
                Command::Pause => paused = true,
                Command::Run => paused = false,
            },
            Ok(false) => {}
            Err(_) => break,
        }
        follower.sync(board)?;
        if follower.limit.is_some_and(|limit| follower.landed >= limit) {
            break;
        }
        follower.analyse(false)?;
        let rate = board.events_per_second();
        board.set(TailStatus::Live {
            events_per_second: rate,
            events: follower.landed,
        });
        board.set_paused(paused, follower.landed);
        match woken.recv_timeout(options.poll_interval) {
            Ok(()) => while woken.try_recv().is_ok() {},
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    follower.analyse(true)?;
    Ok(TailSummary {
        events: follower.landed,
        duplicates: 0,
    })
}

impl Follower {
    /// Reads the file if it changed and lands what is new: only the bytes after what the
    /// generation holds, once the two windows that check the rest still match.
    fn sync(&mut self, board: &mut Board) -> Result<(), TailError> {
        // A missing file is usually a rotation in progress; the next change brings it back.
        let Ok(meta) = fs::metadata(&self.path) else {
            return Ok(());
        };
        let now = stamp(&meta);
        if self.seen.as_ref() == Some(&now) {
            return Ok(());
        }
        let read_err = |source| TailError::Read {
            path: self.path.clone(),
            source,
        };
        let mut file = match fs::File::open(&self.path) {
            Ok(file) => file,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(source) => return Err(read_err(source)),
        };
        let len = file.metadata().map_err(read_err)?.len();
        // A different inode is a rotation: a new file took the old one's name.
        let rotated = self
            .seen
            .as_ref()
            .is_some_and(|seen| seen.inode != now.inode);
        self.seen = Some(now);
        let reason = match &self.journal {
            None => Some(self.next_reason),
            Some(journal) => {
                let imported = journal.imported_bytes;
                if len < imported {
                    Some(if rotated {
                        GenerationReason::FileReplaced
                    } else {
                        GenerationReason::FileTruncated
                    })
                } else if (imported > 0
                    && !source_ends::file_holds(&mut file, imported, &journal.content_hash)
                        .map_err(read_err)?)
                    || (journal.ends_mid_line && len > imported)
                {
                    Some(GenerationReason::FileReplaced)
                } else {
                    None
                }
            }
        };
        let mut updates = Vec::new();
        if let Some(reason) = reason {
            let bytes = source_ends::read_at(&mut file, 0, len).map_err(read_err)?;
            let limit = self.remaining();
            let Some(landed) = self.new_generation(&bytes, reason, limit, &mut updates)? else {
                return Ok(());
            };
            self.landed += landed;
        } else if let Some(journal) = &self.journal {
            let base = journal.imported_bytes;
            let (head, before) = source_ends::windows(&mut file, base).map_err(read_err)?;
            let after = source_ends::read_at(&mut file, base, len - base).map_err(read_err)?;
            let limit = self.remaining();
            let source = SourceEnds::around(&head, &before, base, &after);
            self.landed += self.append(&source, limit, &mut updates)?;
        }
        self.analysis_due |= updates
            .iter()
            .any(|u| matches!(u, TailUpdate::Event { .. }));
        for update in updates {
            board.emit(update);
        }
        Ok(())
    }

    fn remaining(&self) -> Option<u64> {
        self.limit.map(|limit| limit.saturating_sub(self.landed))
    }

    /// Starts a generation once the file holds at least one complete record; returns `None`
    /// while it does not.
    fn new_generation(
        &mut self,
        bytes: &[u8],
        reason: GenerationReason,
        limit: Option<u64>,
        updates: &mut Vec<TailUpdate>,
    ) -> Result<Option<u64>, TailError> {
        let framing = source::detect_framing(bytes);
        let head = source::split(bytes, framing, Position::default(), false);
        if head.records.is_empty() {
            if reason != GenerationReason::First {
                // The old generation no longer matches the file: forget it so the new content
                // is imported once it is there, while the store keeps the old events.
                self.journal = None;
                self.next_reason = reason;
            }
            return Ok(None);
        }
        let values: Vec<Value> = head
            .records
            .iter()
            .take(64)
            .filter_map(|r| serde_json::from_slice(&r.bytes).ok())
            .collect();
        let dialect = Dialect::detect(values.iter());
        let id = self.store.create_journal(&NewJournal {
            source_path: &self.name,
            dialect,
            framing,
        })?;
        self.journal = self.store.journal(id)?;
        updates.push(TailUpdate::Generation {
            journal_id: id,
            reason,
        });
        Ok(Some(self.append(
            &SourceEnds::whole(bytes),
            limit,
            updates,
        )?))
    }

    /// Lands the complete records after what the current generation holds; `source` holds
    /// the file from there on.
    fn append(
        &mut self,
        source: &SourceEnds<'_>,
        limit: Option<u64>,
        updates: &mut Vec<TailUpdate>,
    ) -> Result<u64, TailError> {
        let Some(journal) = self.journal.clone() else {
            return Ok(0);
        };
        let start = journal.imported_bytes;
        let after = source.after();
        let seq = self.store.event_count(journal.id)?;
        let at = Position {
            byte: start,
            line: journal.imported_lines,
            seq,
        };
        let mut split = source::split(after, journal.framing, at, false);
        let mut lines = split.lines;
        let mut consumed = split.consumed;
        if let Some(limit) = limit {
            if split.records.len() as u64 > limit {
                split.records.truncate(limit as usize);
                // Stop right after the last record taken, so a later run resumes there.
                if let Some(last) = split.records.last() {
                    let end = (last.byte_start + last.byte_len - start) as usize;
                    let newline = after[end..]
                        .iter()
                        .position(|b| *b == b'\n')
                        .map_or(after.len(), |p| end + p + 1);
                    consumed = newline;
                    lines = last.line - journal.imported_lines;
                }
            }
        }
        if split.records.is_empty() && consumed == 0 {
            return Ok(0);
        }
        let added = split.records.len() as u64;
        let store = &self.store;
        let landed = store.transaction(|store| -> Result<Vec<TailedEvent>, TailError> {
            let mut reader = Reader::resume(journal.dialect, store.highest_offset(journal.id)?);
            let mut batch = Vec::with_capacity(split.records.len());
            let mut landed = Vec::with_capacity(split.records.len());
            for record in split.records {
                let read = crate::import::read_record(&mut reader, &record);
                landed.push(TailedEvent {
                    journal_id: journal.id,
                    seq: record.seq,
                    offset: read.offset,
                    kind: read.kind.clone(),
                    summary: read.summary.clone(),
                    raw: String::from_utf8_lossy(&record.bytes).into_owned(),
                });
                batch.push((record, read));
            }
            store.append(journal.id, &batch)?;
            let end = start + consumed as u64;
            store.record_position(
                journal.id,
                &SourcePosition {
                    size: source.len(),
                    mtime_ns: None,
                    content_hash: source.hash_at(end),
                    imported_bytes: end,
                    imported_lines: journal.imported_lines + lines,
                    ends_mid_line: false,
                },
            )?;
            Ok(landed)
        })?;
        self.journal = self.store.journal(journal.id)?;
        updates.extend(landed.into_iter().map(|event| TailUpdate::Event { event }));
        Ok(added)
    }

    fn analyse(&mut self, force: bool) -> Result<(), TailError> {
        if !self.analysis_due || (!force && self.analysed_at.elapsed() < ANALYSIS_INTERVAL) {
            return Ok(());
        }
        if let Some(journal) = &self.journal {
            let mut unwatched = |_| std::ops::ControlFlow::Continue(());
            let id = journal.id;
            self.store
                .transaction(|store| -> Result<(), crate::store::StoreError> {
                    dialect::refresh(store, id, journal.dialect, &mut unwatched)?;
                    Ok(())
                })?;
        }
        self.analysis_due = false;
        self.analysed_at = Instant::now();
        Ok(())
    }
}
