//! Following a local journal file: a change notification (or, failing that, a short poll)
//! makes the appended complete records land; a half-written last line waits for its newline;
//! a file that shrank or whose imported part changed (truncation, rotation, rewrite) starts a
//! new journal generation, keeping the old one. The file is only ever read.

use journalscope_registry::dialect::Registered as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};
use serde_json::Value;
use tokio::sync::watch;

use crate::import::{self, ImportControl, Landing};
use crate::ingest::{self, Ingest};
use journalscope_registry::dialect::Dialect;
use journalscope_shapes::source::{self, Framing, Position};
use journalscope_shapes::source_ends::{self, SourceEnds};
use journalscope_store::store::{JournalRow, NewJournal, Store};

use super::remote::Board;
use super::update::{GenerationReason, TailStatus, TailUpdate, TailedEvent};
use super::{Command, Notify, TailError, TailOptions, TailSummary};

/// How often what the fold says of the journal's end (the view there, what no request has
/// published) is stored: it is as large as the projection, so not with every append.
const ANALYSIS_INTERVAL: Duration = Duration::from_secs(1);

/// Bytes of the file read at a time: a follower that starts on a large file, or finds a large
/// append, lands it a stretch at a time.
const READ_AT_ONCE: u64 = 8 << 20;

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
    /// The fold of what this follower landed, kept between appends so that each folds only
    /// what it adds.
    fold: Option<Ingest>,
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
        fold: None,
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
            let head = source_ends::read_at(&mut file, 0, len.min(HEAD)).map_err(read_err)?;
            if !self.new_generation(&head, len, reason, &mut updates)? {
                return Ok(());
            }
        }
        self.land(&mut file, len, &mut updates)?;
        self.analysis_due |= updates
            .iter()
            .any(|u| matches!(u, TailUpdate::Event { .. }));
        for update in updates {
            board.emit(update);
        }
        Ok(())
    }

    /// Lands the complete records after what the generation holds, a stretch of the file at a
    /// time, up to `len` or the limit.
    fn land(
        &mut self,
        file: &mut fs::File,
        len: u64,
        updates: &mut Vec<TailUpdate>,
    ) -> Result<(), TailError> {
        let path = self.path.clone();
        let read_err = |source| TailError::Read {
            path: path.clone(),
            source,
        };
        let mut want = READ_AT_ONCE;
        while let Some(journal) = self.journal.clone() {
            let base = journal.imported_bytes;
            let left = len.saturating_sub(base);
            if left == 0 || self.remaining() == Some(0) {
                break;
            }
            // An array is one value: it is read whole.
            let take = if journal.framing == Framing::JsonArray {
                left
            } else {
                left.min(want)
            };
            let (head, before) = source_ends::windows(file, base).map_err(read_err)?;
            let after = source_ends::read_at(file, base, take).map_err(read_err)?;
            let source = SourceEnds::around(&head, &before, base, &after);
            let limit = self.remaining();
            self.landed += self.append(&source, limit, updates)?;
            let moved = self
                .journal
                .as_ref()
                .is_some_and(|now| now.imported_bytes > base);
            if !moved {
                if take == left {
                    // A half-written last record: it lands once its newline is there.
                    break;
                }
                // A record longer than a stretch: read more at once.
                want = want.saturating_mul(2);
                continue;
            }
            want = READ_AT_ONCE;
        }
        Ok(())
    }

    fn remaining(&self) -> Option<u64> {
        self.limit.map(|limit| limit.saturating_sub(self.landed))
    }

    /// Starts a generation once the file holds at least one complete record, read from its
    /// first bytes (`head`, of a file of `len` bytes); false while it does not.
    fn new_generation(
        &mut self,
        head: &[u8],
        len: u64,
        reason: GenerationReason,
        updates: &mut Vec<TailUpdate>,
    ) -> Result<bool, TailError> {
        let framing = source::detect_framing(head);
        let whole = head.len() as u64 == len;
        let split = source::split(head, framing, Position::default(), false);
        if split.records.is_empty() && (whole || framing == Framing::JsonArray) {
            if reason != GenerationReason::First {
                // The old generation no longer matches the file: forget it so the new content
                // is imported once it is there, while the store keeps the old events.
                self.journal = None;
                self.next_reason = reason;
            }
            return Ok(false);
        }
        let values: Vec<Value> = split
            .records
            .iter()
            .take(64)
            .filter_map(|r| journalscope_shapes::record_json::value(&r.bytes))
            .collect();
        let dialect = Dialect::detect(values.iter());
        let id = self.store.create_journal(&NewJournal {
            source_path: &self.name,
            dialect,
            framing,
        })?;
        self.journal = self.store.journal(id)?;
        self.fold = None;
        updates.push(TailUpdate::Generation {
            journal_id: id,
            reason,
        });
        Ok(true)
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
        let mut quiet = |_| {};
        let mut landed = |record: &journalscope_shapes::source::RawRecord,
                          read: &journalscope_store::derived::ReadEvent| {
            updates.push(TailUpdate::Event {
                event: TailedEvent {
                    journal_id: journal.id,
                    seq: record.seq,
                    offset: read.offset,
                    kind: read.kind.clone(),
                    summary: read.summary.clone(),
                    raw: String::from_utf8_lossy(&record.bytes).into_owned(),
                },
            });
        };
        let added = import::ingest(
            &self.store,
            &journal,
            source,
            &mut self.fold,
            Landing {
                complete: false,
                mtime_ns: None,
                limit,
                end: false,
            },
            &mut ImportControl {
                progress: &mut quiet,
                cancel: None,
            },
            &mut landed,
        )?;
        self.journal = self.store.journal(journal.id)?;
        Ok(added)
    }

    /// Stores what the fold says of the journal's end, when records landed since it last did
    /// and either `force` is set or it is due.
    fn analyse(&mut self, force: bool) -> Result<(), TailError> {
        if !self.analysis_due || (!force && self.analysed_at.elapsed() < ANALYSIS_INTERVAL) {
            return Ok(());
        }
        if let Some(journal) = &self.journal {
            match &mut self.fold {
                Some(fold) if fold.journal_id() == journal.id => {
                    import::say_end(&self.store, fold)?;
                }
                _ => {
                    let mut unwatched = ingest::unwatched;
                    self.store
                        .transaction(|store| ingest::refresh(store, journal, &mut unwatched))?;
                }
            }
        }
        self.analysis_due = false;
        self.analysed_at = Instant::now();
        Ok(())
    }
}

/// Bytes of a file's start read to tell its framing and dialect.
const HEAD: u64 = 256 * 1024;
