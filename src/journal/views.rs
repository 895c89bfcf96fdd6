//! The views of a journal's folded state, each in its dialect: iterate's projection, requests,
//! compactions and request diffs; AG-UI's step and runs; AgentsKit's held snapshot and turns.

use crate::dialect::Dialect;
use crate::iterate::view::{
    CompactionView, IterateError, ProjectionView, RequestSummary, RequestView,
};
use crate::iterate::{IterateJournal, Transport};

use super::{Journal, JournalError};

/// How far from the start an unloaded iterate journal folds on demand: the projection at the
/// first events, shown as a journal opens, is a fold of a few thousand records read from the
/// store.
const PREFIX_FOLD_LIMIT: u64 = 20_000;

impl Journal {
    pub(crate) fn iterate(&self) -> Result<&IterateJournal, JournalError> {
        if self.row.dialect != Dialect::Iterate {
            return Err(JournalError::WrongDialect {
                found: self.row.dialect.as_str(),
                wanted: "iterate",
            });
        }
        self.iterate.as_ref().ok_or(JournalError::Loading)
    }

    /// The parsed events of an iterate journal, for `bench` to time a fold from the start.
    pub fn iterate_events(&self) -> Option<&[crate::iterate::event::IterateEvent]> {
        self.iterate
            .as_ref()
            .map(|journal| journal.events.as_slice())
    }

    pub fn projection(&self, at: i64) -> Result<ProjectionView, JournalError> {
        let view = match self.iterate() {
            Err(JournalError::Loading) => self.unloaded_projection(at)?,
            loaded => loaded?.projection_view(at),
        };
        // The fold learns the contract as its events show it; the journal knows it whole, so
        // its views follow that contract at every offset, before the events showed it too.
        use crate::iterate::contract::ContractName;
        Ok(match self.contract()?.map(|contract| contract.name) {
            Some(ContractName::AgentLoop) => view.not_folded(),
            Some(ContractName::Sections) => view.under_sections(),
            _ => view,
        })
    }

    /// Whether the journal follows a contract Journalscope does not fold.
    fn not_folded(&self) -> Result<bool, JournalError> {
        use crate::iterate::contract::ContractName;
        Ok(self
            .contract()?
            .is_some_and(|contract| contract.name == ContractName::AgentLoop))
    }

    /// The error every request of a journal that is not folded gives.
    fn not_folded_request(&self, request_offset: i64) -> Result<(), JournalError> {
        if self.not_folded()? {
            return Err(IterateError::NotSent(
                request_offset,
                "this journal follows a contract Journalscope does not fold yet, so no request \
                 is built from it"
                    .to_string(),
            )
            .into());
        }
        Ok(())
    }

    /// The projection at `at` of a journal not loaded yet: the tip's, at or past the last
    /// offset; near the start, a fold of the records at or before `at` read from the store,
    /// which gives what a loaded journal gives (the same records, folded in file order).
    fn unloaded_projection(&self, at: i64) -> Result<ProjectionView, JournalError> {
        if let Some(view) = self.tip.as_ref().and_then(|tip| tip.view_at(at)) {
            return Ok(view);
        }
        if let Some(view) = crate::iterate::checkpoint::view_at(&self.store, self.row.id, at)? {
            return Ok(view);
        }
        let beyond_prefix =
            self.store
                .any_at_or_before_offset_from(self.row.id, at, PREFIX_FOLD_LIMIT)?;
        if beyond_prefix {
            return Err(JournalError::Loading);
        }
        let records = self.store.events_through_offset(self.row.id, at)?;
        Ok(IterateJournal::from_stored(&records).projection_view(at))
    }

    pub fn projection_at_seq(&self, seq: u64) -> Result<ProjectionView, JournalError> {
        let at = self.offset_at_seq(seq)?.unwrap_or(i64::MIN);
        let mut view = self.projection(at)?;
        if at == i64::MIN {
            view.at = 0;
        }
        Ok(view)
    }

    /// Every request with what it published: the rows the analysis stored, when it covers
    /// every record; the loaded journal's fold otherwise.
    pub fn requests(&self) -> Result<Vec<RequestSummary>, JournalError> {
        self.expect(Dialect::Iterate)?;
        if crate::dialect::is_current(&self.store, self.row.id, Dialect::Iterate)? {
            return Ok(self
                .store
                .request_rows(self.row.id)?
                .into_iter()
                .filter_map(|(_, row)| serde_json::from_str(&row).ok())
                .collect());
        }
        Ok(self.iterate()?.requests())
    }

    pub fn request(
        &self,
        request_offset: i64,
        transport: Transport,
    ) -> Result<crate::iterate::render::RequestSnapshot, JournalError> {
        self.not_folded_request(request_offset)?;
        match self.iterate() {
            Err(JournalError::Loading) => {
                match crate::iterate::checkpoint::request_at(
                    &self.store,
                    self.row.id,
                    request_offset,
                    transport,
                )? {
                    Some(snapshot) => Ok(snapshot?),
                    None => Err(JournalError::Loading),
                }
            }
            loaded => Ok(loaded?.request(request_offset, transport)?),
        }
    }

    /// The request pane, from the checkpoints where they answer (the loaded journal's fold
    /// otherwise).
    pub fn request_view(
        &self,
        request_offset: i64,
        transport: Transport,
    ) -> Result<RequestView, JournalError> {
        self.expect(Dialect::Iterate)?;
        self.not_folded_request(request_offset)?;
        match crate::iterate::stored::request_view_at(
            &self.store,
            self.row.id,
            request_offset,
            transport,
        )? {
            Some(view) => Ok(view?),
            None => Ok(self.iterate()?.request_view(request_offset, transport)?),
        }
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
    /// first of them, rendered on each of `transports`, from one fold of the stored records;
    /// false (and `visit` never called) when the checkpoints cannot answer.
    pub fn walk_requests(
        &self,
        range: (Option<i64>, Option<i64>),
        transports: &[Transport],
        visit: impl FnMut(i64, Vec<crate::iterate::render::RequestSnapshot>),
    ) -> Result<bool, JournalError> {
        self.expect(Dialect::Iterate)?;
        Ok(crate::iterate::stored::walk_requests(
            &self.store,
            self.row.id,
            range,
            transports,
            visit,
        )?
        .is_some())
    }

    /// The compaction pane, from the checkpoints where they answer (the loaded journal's fold
    /// otherwise).
    pub fn compaction(&self, offset: i64) -> Result<CompactionView, JournalError> {
        self.expect(Dialect::Iterate)?;
        match crate::iterate::stored::compaction_at(&self.store, self.row.id, offset)? {
            Some(view) => Ok(view?),
            None => Ok(self.iterate()?.compaction(offset)?),
        }
    }
}

/// Views of the AG-UI and AgentsKit dialects. Their offsets are positions, so the event at
/// `seq` has offset `seq + 1`.
impl Journal {
    /// Refuses a view of another dialect's journal.
    pub(crate) fn expect(&self, dialect: Dialect) -> Result<(), JournalError> {
        if self.row.dialect != dialect {
            return Err(JournalError::WrongDialect {
                found: self.row.dialect.as_str(),
                wanted: dialect.as_str(),
            });
        }
        Ok(())
    }

    /// The step at `seq`, from the checkpoint before it and the stored records after that.
    pub fn agui_step(&self, seq: u64) -> Result<crate::agui::AgUiStep, JournalError> {
        self.expect(Dialect::AgUi)?;
        Ok(crate::agui::step_view_stored(
            &self.store,
            self.row.id,
            seq as i64 + 1,
        )?)
    }

    pub fn agui_runs(&self) -> Result<Vec<crate::agui::RunSpan>, JournalError> {
        self.expect(Dialect::AgUi)?;
        Ok(crate::agui::runs_stored(&self.store, self.row.id)?)
    }

    pub fn agentskit_state(
        &self,
        seq: u64,
        session: Option<&str>,
    ) -> Result<crate::agentskit::SnapshotAt, JournalError> {
        self.expect(Dialect::AgentsKit)?;
        Ok(crate::agentskit::state_at_stored(
            &self.store,
            self.row.id,
            seq as i64 + 1,
            session,
        )?)
    }

    pub fn agentskit_turns(
        &self,
        session: Option<&str>,
    ) -> Result<crate::agentskit::TurnsReport, JournalError> {
        self.expect(Dialect::AgentsKit)?;
        Ok(crate::agentskit::turns_stored(
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
    ) -> Result<crate::iterate::diff::RequestDiff, JournalError> {
        self.not_folded_request(to)?;
        let journal = match self.iterate() {
            Err(JournalError::Loading) => return self.unloaded_request_diff(from, to, transports),
            loaded => loaded?,
        };
        let from = match from {
            Some(from) => from,
            None => {
                // Validates `to` first, so a bad offset says so rather than "no earlier request".
                journal.request(to, transports.1)?;
                journal
                    .request_before(to)
                    .ok_or(IterateError::NoEarlierRequest(to))?
            }
        };
        Ok(journal.request_diff((from, transports.0), (to, transports.1))?)
    }

    /// The offset of the journal's last request, from the request marks.
    pub fn last_request(&self) -> Result<Option<i64>, JournalError> {
        self.expect(Dialect::Iterate)?;
        match self.store.next_mark(self.row.id, "request", None, false)? {
            Some(seq) => Ok(self.store.offset_at_or_before_seq(self.row.id, seq)?),
            None => Ok(None),
        }
    }

    /// `request_diff` of a journal not loaded yet, from its checkpoints.
    fn unloaded_request_diff(
        &self,
        from: Option<i64>,
        to: i64,
        transports: (Transport, Transport),
    ) -> Result<crate::iterate::diff::RequestDiff, JournalError> {
        use crate::iterate::diff;
        let from = match from {
            Some(from) => from,
            None => {
                // Validates `to` first, so a bad offset says so rather than "no earlier request".
                self.request(to, transports.1)?;
                diff::request_before_stored(&self.store, self.row.id, to)?
                    .ok_or(IterateError::NoEarlierRequest(to))?
            }
        };
        match diff::request_diff_stored(
            &self.store,
            self.row.id,
            (from, transports.0),
            (to, transports.1),
        )? {
            Some(diffed) => Ok(diffed?),
            None => Err(JournalError::Loading),
        }
    }

    /// Every request's cached prefix against the one before: one pass over the stored records
    /// where offsets increase (the loaded journal's fold otherwise).
    pub fn cache_report(
        &self,
        transport: Transport,
    ) -> Result<crate::iterate::diff::CacheReport, JournalError> {
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
    ) -> Result<crate::iterate::diff::CacheReport, JournalError> {
        self.expect(Dialect::Iterate)?;
        let range = crate::iterate::stored::requests_around(
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
    ) -> Result<crate::iterate::diff::CacheReport, JournalError> {
        use crate::iterate::diff;
        self.expect(Dialect::Iterate)?;
        match diff::cache_report_stored(&self.store, self.row.id, transport, range)? {
            Some(report) => Ok(report),
            None => Ok(diff::cache_report_within(
                self.iterate()?.cache_report(transport)?,
                range,
            )),
        }
    }
}
