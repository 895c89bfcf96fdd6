// The only door to the Tauri runtime: every IPC call, event subscription and plugin use goes
// through here, so the rest of the UI is plain TypeScript that tests can drive without Tauri.

import { invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import { getCurrentWebview } from "@tauri-apps/api/webview";
import { open } from "@tauri-apps/plugin-dialog";
import { writeText } from "@tauri-apps/plugin-clipboard-manager";
import type {
  AgentSession,
  SessionPlace,
  Ask,
  Bookmark,
  Breakpoint,
  BreakpointHit,
  ConsoleQuery,
  ConsoleResult,
  SearchQuery,
  SearchResult,
  ConnectRequest,
  DemoListing,
  EventDetail,
  EventPage,
  EventQuery,
  ExportKind,
  OffsetRange,
  Exported,
  ExportedText,
  ImportStatus,
  IpcError,
  JournalInfo,
  LiveChange,
  LiveState,
  RecentFile,
  Startup,
  StepTarget,
  Timeline,
  TypeCount,
} from "./types";

/** Turns whatever a command rejected with into the `{code, message}` shape. */
export function asIpcError(e: unknown): IpcError {
  if (e && typeof e === "object" && "code" in e && "message" in e) {
    const { code, message } = e as { code: unknown; message: unknown };
    return { code: String(code), message: String(message) };
  }
  return { code: "internal", message: String(e) };
}

async function call<T>(cmd: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(cmd, args);
  } catch (e) {
    throw asIpcError(e);
  }
}

export const backend = {
  startup: () => call<Startup>("startup"),
  openFile: (path: string) => call<JournalInfo>("open_file", { path }),
  openDemo: (name: string) => call<JournalInfo>("open_demo", { name }),
  demos: () => call<DemoListing[]>("demos"),
  cancelImport: () => call<void>("cancel_import"),
  recentFiles: () => call<RecentFile[]>("recent_files"),
  info: () => call<JournalInfo>("journal_info"),
  eventTypes: () => call<TypeCount[]>("event_types"),
  eventsPage: (query: EventQuery) => call<EventPage>("events_page", { query }),
  rowOfSeq: (query: EventQuery, seq: number) => call<number | null>("row_of_seq", { query, seq }),
  eventDetail: (seq: number) => call<EventDetail>("event_detail", { seq }),
  timeline: (buckets: number, span: { firstSeq: number; lastSeq: number } | null = null) =>
    call<Timeline>("timeline", { buckets, first: span?.firstSeq ?? null, last: span?.lastSeq ?? null }),
  step: (from: number, target: StepTarget, forward: boolean) =>
    call<number | null>("step", { from, target, forward }),
  seqOfOffset: (offset: number) => call<number | null>("seq_of_offset", { offset }),
  /** Any view of the open journal, asked for by its family; `T` is the shape its dialect gives. */
  ask: <T>(ask: Ask) => call<T>("ask", { ask }),
  /** A request's body (a `body` question) as text for the clipboard. */
  requestBodyText: (ask: Ask) => call<ExportedText>("request_body_text", { ask }),
  /** Writes a request's body (a `body` question) where the native save dialog says; the window
   * never names a path itself. */
  exportRequest: (ask: Ask) => call<Exported>("export_request", { ask }),
  search: (query: SearchQuery) => call<SearchResult>("search", { query }),
  sqlQuery: (query: ConsoleQuery) => call<ConsoleResult>("sql_query", { query }),
  runBreakpoint: (breakpoint: Breakpoint, from: number | null, forward: boolean) =>
    call<BreakpointHit | null>("run_breakpoint", { breakpoint, from, forward }),
  bookmarks: () => call<Bookmark[]>("bookmarks"),
  setBookmark: (seq: number, note: string) => call<Bookmark>("set_bookmark", { seq, note }),
  removeBookmark: (seq: number) => call<boolean>("remove_bookmark", { seq }),

  /** The HTML report or JSONL slice of a range; the backend asks where. */
  exportJournal: (kind: ExportKind, range: OffsetRange) => call<Exported>("export_journal", { kind, range }),

  /** The agents' sessions on this machine, newest first. */
  agentSessions: () => call<AgentSession[]>("agent_sessions"),
  /** Where the agents keep their sessions: the folders `agentSessions` looks in. */
  sessionPlaces: () => call<SessionPlace[]>("session_places"),

  async pickJournal(): Promise<string | null> {
    const picked = await open({
      multiple: false,
      directory: false,
      title: "Open a journal",
      filters: [
        { name: "Journals", extensions: ["jsonl", "ndjson", "json", "sse", "txt", "log", "gz"] },
        { name: "All files", extensions: ["*"] },
      ],
    });
    return typeof picked === "string" ? picked : null;
  },

  copyText: (text: string) => writeText(text),

  /** Follows the open journal's file (a no-op for what is already followed). */
  followJournal: () => call<LiveState | null>("follow_journal"),
  connectStream: (request: ConnectRequest) => call<LiveState>("connect_stream", { request }),
  liveState: () => call<LiveState | null>("live_state"),
  livePause: (paused: boolean) => call<LiveState>("live_pause", { paused }),
  stopLive: () => call<void>("stop_live"),

  onLiveStatus(handler: (s: LiveState) => void): Promise<UnlistenFn> {
    return listen<LiveState>("live-status", (e) => handler(e.payload));
  },

  onLiveChanged(handler: (c: LiveChange) => void): Promise<UnlistenFn> {
    return listen<LiveChange>("live-changed", (e) => handler(e.payload));
  },

  onImportProgress(handler: (s: ImportStatus) => void): Promise<UnlistenFn> {
    return listen<ImportStatus>("import-progress", (e) => handler(e.payload));
  },

  /** Files dropped onto the window (the first path is opened). */
  onFileDrop(handler: (paths: string[]) => void, hover?: (over: boolean) => void): Promise<UnlistenFn> {
    return getCurrentWebview().onDragDropEvent((e) => {
      const p = e.payload;
      if (p.type === "drop") {
        hover?.(false);
        handler(p.paths);
      } else if (p.type === "enter" || p.type === "over") {
        hover?.(true);
      } else {
        hover?.(false);
      }
    });
  },
};

export type Backend = typeof backend;
