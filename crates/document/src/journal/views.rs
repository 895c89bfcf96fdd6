//! The views of a journal's folded state, each in its dialect: iterate's projection, requests,
//! compactions and request diffs; AG-UI's step and runs; AgentsKit's held snapshot and turns.

use journalscope_iterate::iterate::view::{
    CompactionView, IterateError, ProjectionView, RequestSummary, RequestView,
};
use journalscope_iterate::iterate::Transport;
use journalscope_registry::dialect::Registered as _;
use journalscope_registry::dialect::{Step, View};

use super::{Journal, JournalError};

impl Journal {
    pub fn projection(&self, at: i64) -> Result<ProjectionView, JournalError> {
        self.offer(View::Projection)?;
        Ok(journalscope_iterate::iterate::stored::projection(
            &self.store,
            self.row.id,
            at,
        )?)
    }

    /// The view at offset `at`, in the shape the journal's dialect gives it; `session` picks
    /// the session a snapshot cursor follows.
    pub fn step_at(&self, at: i64, session: Option<&str>) -> Result<Step, JournalError> {
        Ok(journalscope_registry::dialect::step_at(
            &self.store,
            &self.row,
            at,
            session,
        )?)
    }

    pub fn projection_at_seq(&self, seq: u64) -> Result<ProjectionView, JournalError> {
        let at = self.offset_at_seq(seq)?.unwrap_or(i64::MIN);
        let mut view = self.projection(at)?;
        if at == i64::MIN {
            view.at = 0;
        }
        Ok(view)
    }

    /// Every request with what it published: the rows the analysis stored.
    pub fn requests(&self) -> Result<Vec<RequestSummary>, JournalError> {
        self.offer(View::Requests)?;
        Ok(journalscope_iterate::iterate::answer::requests(
            &self.store,
            self.row.id,
        )?)
    }

    pub fn request(
        &self,
        request_offset: i64,
        transport: Transport,
    ) -> Result<journalscope_iterate::iterate::render::RequestSnapshot, JournalError> {
        self.offer(View::Requests)?;
        Ok(journalscope_iterate::iterate::checkpoint::request_at(
            &self.store,
            self.row.id,
            request_offset,
            transport,
        )??)
    }

    /// The request pane, from the checkpoints.
    pub fn request_view(
        &self,
        request_offset: i64,
        transport: Transport,
    ) -> Result<RequestView, JournalError> {
        self.offer(View::Requests)?;
        let mut view = journalscope_iterate::iterate::stored::request_view_at(
            &self.store,
            self.row.id,
            request_offset,
            transport,
        )??;
        let row = journalscope_iterate::iterate::stored::request_summaries_in(
            &self.store,
            self.row.id,
            (Some(request_offset), Some(request_offset)),
        )?
        .into_iter()
        .find(|row| row.offset == request_offset);
        if let Some(row) = row {
            view.reported = row.reported;
            view.reconciliation = row.reconciliation();
        }
        Ok(view)
    }

    /// The exact provider body, as `request -o` writes it.
    pub fn request_body(
        &self,
        request_offset: i64,
        transport: Transport,
    ) -> Result<Vec<u8>, JournalError> {
        Ok(self.request(request_offset, transport)?.body())
    }

    /// Every request with an offset in `range` (either end open) and the request before the
    /// first of them, rendered on each of `transports`, from one fold of the stored records.
    pub fn walk_requests(
        &self,
        range: (Option<i64>, Option<i64>),
        transports: &[Transport],
        visit: impl FnMut(i64, Vec<journalscope_iterate::iterate::render::RequestSnapshot>),
    ) -> Result<(), JournalError> {
        self.offer(View::Requests)?;
        Ok(journalscope_iterate::iterate::stored::walk_requests(
            &self.store,
            self.row.id,
            range,
            transports,
            visit,
        )?)
    }

    /// The compaction pane, from the checkpoints.
    pub fn compaction(&self, offset: i64) -> Result<CompactionView, JournalError> {
        self.offer(View::Compactions)?;
        Ok(journalscope_iterate::iterate::stored::compaction_at(
            &self.store,
            self.row.id,
            offset,
        )??)
    }
}

/// Views of a transcript's conversation (Claude Code).
impl Journal {
    /// The conversation a transcript's model saw at the event at `seq`.
    pub fn conversation_at_seq(
        &self,
        seq: u64,
    ) -> Result<journalscope_transcript::transcript::ConversationView, JournalError> {
        self.offer(View::Conversation)?;
        let at = self.offset_at_seq(seq)?.unwrap_or(0);
        match self.step_at(at, None)? {
            Step::Conversation(view) => Ok(view),
            _ => Err(JournalError::NoSuchEvent(seq)),
        }
    }

    /// The transcript's compaction at `offset`, before | after: the conversation at the record
    /// just before the compaction's line (a Codex compaction line already holds its
    /// replacement), and at the record that goes on after it.
    pub fn transcript_compaction(
        &self,
        offset: i64,
    ) -> Result<journalscope_transcript::transcript::TranscriptCompaction, JournalError> {
        self.offer(View::Conversation)?;
        let id = self.row.id;
        let not_one = || JournalError::from(IterateError::NotACompaction(offset));
        let seq = self.store.seq_at_offset(id, offset)?.ok_or_else(not_one)?;
        let note = self
            .store
            .marks_between(id, seq, seq + 1)?
            .into_iter()
            .find(|mark| mark.kind == "compaction")
            .ok_or_else(not_one)?
            .note;
        let before = match seq.checked_sub(1) {
            Some(previous) => self.conversation_at_seq(previous)?,
            None => journalscope_transcript::transcript::ConversationView {
                at: offset,
                system_known: false,
                system: Vec::new(),
                history: Vec::new(),
            },
        };
        let after = match journalscope_registry::dialect::compaction_continues(
            &self.store,
            &self.row,
            seq,
        )? {
            Some(next) => Some(self.conversation_at_seq(next)?),
            None => None,
        };
        Ok(journalscope_transcript::transcript::TranscriptCompaction {
            offset,
            note,
            before,
            after,
        })
    }

    /// Every request of a transcript, by its first line.
    pub fn conversation_requests(
        &self,
    ) -> Result<Vec<journalscope_claude::claude::RequestRow>, JournalError> {
        self.offer(View::Conversation)?;
        Ok(journalscope_transcript::transcript::requests::rows(
            &self.store,
            self.row.id,
        )?)
    }

    /// Each request's cache reads against what the request before it left, breaks explained,
    /// for the requests whose first line is in `range`.
    pub fn transcript_cache(
        &self,
        range: journalscope_transcript::transcript::cache::Range,
    ) -> Result<journalscope_transcript::transcript::cache::CacheReport, JournalError> {
        self.offer(View::Conversation)?;
        journalscope_registry::dialect::transcript_cache(&self.store, &self.row, range)?.ok_or(
            JournalError::NotOffered {
                view: View::Conversation.as_str(),
                found: self.row.dialect,
                offered_by: journalscope_registry::dialect::offering(View::Conversation),
            },
        )
    }

    /// The subagents the transcript ran, by the call that spawned each.
    pub fn subagents(
        &self,
    ) -> Result<Vec<journalscope_transcript::transcript::Subagent>, JournalError> {
        self.offer(View::Conversation)?;
        Ok(journalscope_registry::dialect::subagents(&self.store, &self.row)?.unwrap_or_default())
    }

    /// The session or thread that spawned this transcript, when it is a subagent's.
    pub fn spawned_by(
        &self,
    ) -> Result<Option<journalscope_transcript::transcript::SpawnedBy>, JournalError> {
        self.offer(View::Conversation)?;
        Ok(journalscope_registry::dialect::spawned_by(
            &self.store,
            &self.row,
        )?)
    }

    /// The first line of a transcript's last request; `None` when it has none.
    pub fn last_conversation_request(&self) -> Result<Option<i64>, JournalError> {
        self.offer(View::Conversation)?;
        Ok(journalscope_transcript::transcript::requests::last(
            &self.store,
            self.row.id,
        )?)
    }

    /// Two requests of a transcript side by side, with the later one's cache entry when the
    /// earlier is the request before it in its thread; `from` defaults to that request.
    pub fn transcript_diff(
        &self,
        from: Option<i64>,
        to: i64,
    ) -> Result<journalscope_transcript::transcript::diff::TranscriptDiff, JournalError> {
        use journalscope_transcript::transcript::requests::{diff_between, Unanswered};
        self.offer(View::Conversation)?;
        let messages_of = |at| {
            Ok::<_, JournalError>(
                journalscope_registry::dialect::transcript_request(&self.store, &self.row, at)?
                    .map(|request| request.messages()),
            )
        };
        match diff_between(from, to, messages_of, |range| self.transcript_cache(range))? {
            Ok(diff) => Ok(diff),
            Err(Unanswered::NotARequest(at)) => Err(IterateError::NotARequest(at).into()),
            Err(Unanswered::NoEarlierRequest(at)) => Err(IterateError::NoEarlierRequest(at).into()),
        }
    }

    /// The request whose first line is at `request_offset`, as its provider got it.
    pub fn conversation_request(
        &self,
        request_offset: i64,
    ) -> Result<journalscope_registry::dialect::TranscriptRequest, JournalError> {
        self.offer(View::Conversation)?;
        journalscope_registry::dialect::transcript_request(&self.store, &self.row, request_offset)?
            .ok_or(IterateError::NotARequest(request_offset).into())
    }
}

/// Views of the AG-UI and AgentsKit dialects. Their offsets are positions, so the event at
/// `seq` has offset `seq + 1`.
impl Journal {
    /// Refuses a view the journal's dialect does not build.
    pub(crate) fn offer(&self, view: View) -> Result<(), JournalError> {
        if !self.row.dialect.offers(view) {
            return Err(JournalError::NotOffered {
                view: view.as_str(),
                found: self.row.dialect,
                offered_by: journalscope_registry::dialect::offering(view),
            });
        }
        Ok(())
    }

    /// The step at `seq`, from the checkpoint before it and the stored records after that,
    /// carrying the thread's messages `messages` covers.
    pub fn agui_step(
        &self,
        seq: u64,
        messages: journalscope_agui::agui::MessageWindow,
    ) -> Result<journalscope_agui::agui::AgUiStep, JournalError> {
        self.offer(View::Thread)?;
        Ok(
            journalscope_agui::agui::step_view_stored(&self.store, self.row.id, seq as i64 + 1)?
                .windowed(messages),
        )
    }

    /// The thread's messages `window` covers after the step at offset `at` (a step's own
    /// `at`, so a page asked for by the step it belongs to needs no other key).
    pub fn agui_messages(
        &self,
        at: i64,
        window: journalscope_agui::agui::MessageWindow,
    ) -> Result<journalscope_agui::agui::MessagePage, JournalError> {
        self.offer(View::Thread)?;
        Ok(journalscope_agui::agui::messages_stored(
            &self.store,
            self.row.id,
            at,
            window,
        )?)
    }

    pub fn agui_runs(&self) -> Result<Vec<journalscope_agui::agui::RunSpan>, JournalError> {
        self.offer(View::Thread)?;
        Ok(journalscope_agui::agui::runs_stored(
            &self.store,
            self.row.id,
        )?)
    }

    pub fn agentskit_state(
        &self,
        seq: u64,
        session: Option<&str>,
    ) -> Result<journalscope_agentskit::agentskit::SnapshotAt, JournalError> {
        self.offer(View::Snapshots)?;
        Ok(journalscope_agentskit::agentskit::state_at_stored(
            &self.store,
            self.row.id,
            seq as i64 + 1,
            session,
        )?)
    }

    pub fn agentskit_turns(
        &self,
        session: Option<&str>,
    ) -> Result<journalscope_agentskit::agentskit::TurnsReport, JournalError> {
        self.offer(View::Snapshots)?;
        Ok(journalscope_agentskit::agentskit::turns_stored(
            &self.store,
            self.row.id,
            session,
        )?)
    }
}

/// Request diff and cache-prefix stability (`iterate::diff`).
impl Journal {
    /// Two requests compared, each rendered on its own transport (`from`, `to`); `from`
    /// defaults to the request before `to`.
    pub fn request_diff(
        &self,
        from: Option<i64>,
        to: i64,
        transports: (Transport, Transport),
    ) -> Result<journalscope_iterate::iterate::diff::RequestDiff, JournalError> {
        self.offer(View::Requests)?;
        Ok(journalscope_iterate::iterate::answer::request_diff(
            &self.store,
            self.row.id,
            from,
            to,
            transports,
        )??)
    }

    /// The offset of the journal's last request, from the request marks.
    pub fn last_request(&self) -> Result<Option<i64>, JournalError> {
        self.offer(View::Requests)?;
        Ok(journalscope_iterate::iterate::answer::last_request(
            &self.store,
            self.row.id,
        )?)
    }

    /// Every request's cached prefix against the one before: one pass over the stored records
    /// where offsets increase (the loaded journal's fold otherwise).
    pub fn cache_report(
        &self,
        transport: Transport,
    ) -> Result<journalscope_iterate::iterate::diff::CacheReport, JournalError> {
        self.cache_report_range(transport, (None, None))
    }

    /// The cache report of a window of requests: the `before` requests before the one at
    /// `request_offset`, it, and the `after` after it. A pane shows this much of a journal
    /// of any size, reading only the records the window covers.
    pub fn cache_report_around(
        &self,
        transport: Transport,
        request_offset: i64,
        (before, after): (u64, u64),
    ) -> Result<journalscope_iterate::iterate::diff::CacheReport, JournalError> {
        self.offer(View::Requests)?;
        let range = journalscope_iterate::iterate::stored::requests_around(
            &self.store,
            self.row.id,
            request_offset,
            (before, after),
        )?;
        self.cache_report_range(transport, range)
    }

    /// The cache report of the requests with an offset in `range` (either end open), the
    /// first of them still set against the request before it.
    pub fn cache_report_range(
        &self,
        transport: Transport,
        range: (Option<i64>, Option<i64>),
    ) -> Result<journalscope_iterate::iterate::diff::CacheReport, JournalError> {
        self.offer(View::Requests)?;
        Ok(journalscope_iterate::iterate::answer::cache_report(
            &self.store,
            self.row.id,
            transport,
            range,
        )?)
    }
}
