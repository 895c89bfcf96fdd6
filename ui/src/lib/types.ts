// The IPC shapes the window reads: the core's and the shell's ts-rs exports, re-exported so
// components import from one place. Nothing here is written by hand except what no Rust type
// carries yet.

export type { CompactionView } from "../generated/CompactionView";
export type { Controls } from "../generated/Controls";
export type { DemoListing } from "../generated/DemoListing";
export type { Diagnostic } from "../generated/Diagnostic";
export type { Dialect } from "../generated/Dialect";
export type { Downgrade } from "../generated/Downgrade";
export type { EventDetail } from "../generated/EventDetail";
export type { EventPage } from "../generated/EventPage";
export type { EventQuery } from "../generated/EventQuery";
export type { EventRow } from "../generated/EventRow";
export type { ExportFormat } from "../generated/ExportFormat";
export type { ExportOptions } from "../generated/ExportOptions";
export type { ImportStage } from "../generated/ImportStage";
export type { ItemView } from "../generated/ItemView";
export type { JournalInfo } from "../generated/JournalInfo";
export type { Mark } from "../generated/Mark";
export type { Message } from "../generated/Message";
export type { Pending } from "../generated/Pending";
export type { AgentLoopView } from "../generated/AgentLoopView";
export type { RunView } from "../generated/RunView";
export type { ProjectionView } from "../generated/ProjectionView";
export type { ProviderRole } from "../generated/ProviderRole";
export type { RenderedItem } from "../generated/RenderedItem";
export type { RequestSnapshot } from "../generated/RequestSnapshot";
export type { RequestSummary } from "../generated/RequestSummary";
export type { RequestView } from "../generated/RequestView";
export type { Role } from "../generated/Role";
export type { Rule } from "../generated/Rule";
export type { Severity } from "../generated/Severity";
export type { StepTarget } from "../generated/StepTarget";
export type { Timeline } from "../generated/Timeline";
export type { Transport } from "../generated/Transport";
export type { TypeCount } from "../generated/TypeCount";
// Live ingestion (src-tauri/src/live.rs and the core's tail).
export type { ConnectRequest } from "../generated/ConnectRequest";
export type { GenerationReason } from "../generated/GenerationReason";
export type { LiveChange } from "../generated/LiveChange";
export type { LiveState } from "../generated/LiveState";
export type { TailStatus } from "../generated/TailStatus";

// Questions for a journal, by family (crates/seam/src/family.rs).
export type { Ask } from "../generated/Ask";
export type { BodyFormat } from "../generated/BodyFormat";
export type { Family } from "../generated/Family";
export type { MessageWindow } from "../generated/MessageWindow";
export type { Transports } from "../generated/Transports";

// Shapes owned by the desktop shell (src-tauri/src/ipc.rs).
export type { Exported } from "../generated/Exported";
export type { ExportedText } from "../generated/ExportedText";
export type { ImportStatus } from "../generated/ImportStatus";
export type { IpcError } from "../generated/IpcError";
export type { RecentFile } from "../generated/RecentFile";
export type { Startup } from "../generated/Startup";

// The thread and snapshot views.
export type { ThreadStep } from "../generated/ThreadStep";
export type { MessagePage } from "../generated/MessagePage";
export type { RunSpan } from "../generated/RunSpan";
export type { PathChange } from "../generated/PathChange";
export type { SnapshotAt } from "../generated/SnapshotAt";
export type { PromptTokens } from "../generated/PromptTokens";
export type { TurnsReport } from "../generated/TurnsReport";
export type { LineageNode } from "../generated/LineageNode";
export type { Verdict } from "../generated/Verdict";
export type { BreakCause } from "../generated/BreakCause";
export type { CacheEntry } from "../generated/CacheEntry";
export type { CacheReport } from "../generated/CacheReport";
export type { CharacterDiff } from "../generated/CharacterDiff";
export type { DiffMessage } from "../generated/DiffMessage";
export type { DiffOp } from "../generated/DiffOp";
export type { DiffRow } from "../generated/DiffRow";
export type { PrefixBreak } from "../generated/PrefixBreak";
export type { RequestDiff } from "../generated/RequestDiff";
export type { RequestSide } from "../generated/RequestSide";
export type { TextSegment } from "../generated/TextSegment";

// Claude Code and Codex transcripts (src/transcript.rs, src/dialect.rs).
export type { AgentSession } from "../generated/AgentSession";
export type { SessionPlace } from "../generated/SessionPlace";
export type { ConversationItem } from "../generated/ConversationItem";
export type { ConversationMessage } from "../generated/ConversationMessage";
export type { ConversationRequest } from "../generated/ConversationRequest";
export type { ConversationView } from "../generated/ConversationView";
export type { RolloutRequest } from "../generated/RolloutRequest";
export type { TranscriptRequest } from "../generated/TranscriptRequest";
export type { Subagent } from "../generated/Subagent";
export type { SpawnedBy } from "../generated/SpawnedBy";
export type { TranscriptDiff } from "../generated/TranscriptDiff";
export type { TranscriptCompaction } from "../generated/TranscriptCompaction";
export type { TranscriptDiffRow } from "../generated/TranscriptDiffRow";
export type { TranscriptCacheEntry } from "../generated/TranscriptCacheEntry";
export type { TranscriptCacheCause } from "../generated/TranscriptCacheCause";

// Search, the SQL console, breakpoints and bookmarks (crates/document: search/,
// console.rs, breakpoint.rs, bookmark.rs).
export type { Bookmark } from "../generated/Bookmark";
export type { Breakpoint } from "../generated/Breakpoint";
export type { BreakpointHit } from "../generated/BreakpointHit";
export type { ConsoleQuery } from "../generated/ConsoleQuery";
export type { ConsoleResult } from "../generated/ConsoleResult";
export type { SearchHit } from "../generated/SearchHit";
export type { SearchQuery } from "../generated/SearchQuery";
export type { SearchResult } from "../generated/SearchResult";

// Reports and sharing (crates/document/src/report, src-tauri/src/reports.rs).
export type { ContextSizes } from "../generated/ContextSizes";
export type { OffsetRange } from "../generated/OffsetRange";
export type { ExportKind } from "../generated/ExportKind";
export type { CompactionTokens } from "../generated/CompactionTokens";
export type { Reconciliation } from "../generated/Reconciliation";
export type { RequestTokens } from "../generated/RequestTokens";
export type { Tokenizer } from "../generated/Tokenizer";
