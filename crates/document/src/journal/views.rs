//! The typed views the read model's reports and breakpoints build on, each in its dialect:
//! iterate's projection, requests, compactions, request diffs and prompt cache; a transcript's
//! requests and cache report. The command line and the window ask for views by family
//! (`ask.rs`).

use journalscope_iterate::iterate::view::{
    CompactionView, IterateError, ProjectionView, RequestSummary,
};
use journalscope_iterate::iterate::Transport;
use journalscope_registry::dialect::Registered as _;
use journalscope_registry::dialect::View;

use super::{Journal, JournalError};

/// A request or compaction these views cannot show is a refusal with its stable code, as a
/// dialect's refusal of a question is.
impl From<IterateError> for JournalError {
    fn from(err: IterateError) -> JournalError {
        JournalError::Refused {
            code: err.code(),
            message: err.to_string(),
        }
    }
}

impl Journal {
    pub fn projection(&self, at: i64) -> Result<ProjectionView, JournalError> {
        self.offer(View::Projection)?;
        Ok(journalscope_iterate::iterate::stored::projection(
            &self.store,
            self.row.id,
            at,
        )?)
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

/// Views of a transcript's requests.
impl Journal {
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
}

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
