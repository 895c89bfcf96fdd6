// Live ingestion as the window sees it: the tail's status for the title bar, follow mode, and
// applying "new events landed" to the open journal without losing the user's place.

import { backend } from "./backend";
import { followAfter, selectionAfterGrowth, type Navigation } from "./follow";
import { afterOpen, loadTimeline, refreshSubagents, select, ui } from "./session.svelte";
import type { ConnectRequest, GenerationReason, IpcError, LiveChange, LiveState } from "./types";

export const live = $state({
  state: null as LiveState | null,
  /** The selection rides on the newest event. */
  following: false,
  /** Bumped when rows landed, so the event list refetches in place (scroll kept). */
  version: 0,
  /** The "Connect to stream…" dialog is open. */
  dialog: false,
  /** The last thing about the followed source the user must know (truncation, rotation). */
  notice: "",
});

const GENERATION_NOTICE: Record<GenerationReason, string> = {
  first: "",
  "stream-changed": "the stream was recreated: showing the new journal",
  "offsets-restarted": "the stream started over: showing the new journal",
  "file-truncated": "the file was truncated: showing its new content",
  "file-replaced": "the file was replaced (rotated or rewritten): showing its new content",
};

function fail(e: unknown) {
  ui.error = e as IpcError;
}

/** A key or click moved the selection: following stops, or resumes on "go to last". */
export function noteNavigation(nav: Navigation) {
  live.following = followAfter(live.following, nav);
}

let followedDb: string | null = null;
/** States arrive as events and as command answers, in any order: keep the newest. */
function adopt(state: LiveState) {
  if (!live.state || state.revision > live.state.revision) live.state = state;
}

/** Called whenever the window shows another database: follow its file if it has one. */
export async function followOpenJournal(dbPath: string | null) {
  if (dbPath === null || dbPath === followedDb) return;
  followedDb = dbPath;
  try {
    const before = live.state;
    const state = await backend.followJournal();
    // A stream the window just switched to keeps its follow mode; a file starts unfollowed.
    if (state?.source === "file" && before?.label !== state.label) live.following = false;
    // A notice about the previous source means nothing for this one.
    if (state?.label !== before?.label) live.notice = "";
    if (state === null) live.state = null;
    else adopt(state);
  } catch (e) {
    fail(e);
  }
}

export function onStatus(state: LiveState) {
  adopt(state);
}

let applying: Promise<unknown> = Promise.resolve();

/** Applies reloads one after another, so a reset is never overtaken by a later growth. */
export function onChanged(change: LiveChange) {
  applying = applying.then(() => applyChange(change)).catch(fail);
}

async function applyChange(change: LiveChange) {
  if (change.reset) {
    const notice = change.generation ? GENERATION_NOTICE[change.generation] : "";
    if (notice) {
      live.notice = notice;
      ui.notice = notice;
    }
    await afterOpen(change.info);
  } else {
    // The list refetches first: new rows are what the user waits for.
    ui.info = change.info;
    live.version += 1;
    const [types] = await Promise.all([backend.eventTypes(), loadTimeline()]);
    ui.types = types;
    await refreshSubagents();
  }
  const next = selectionAfterGrowth(live.following, ui.selectedSeq, change.info.eventCount, change.reset);
  if (next !== null) await select(next);
}

export async function connect(request: ConnectRequest): Promise<IpcError | null> {
  try {
    adopt(await backend.connectStream(request));
    live.following = true;
    live.notice = "";
    return null;
  } catch (e) {
    return e as IpcError;
  }
}

/** `=`: hold arrivals back, or land them. */
export async function togglePause() {
  if (!live.state) {
    ui.notice = "nothing is being followed";
    return;
  }
  try {
    adopt(await backend.livePause(!live.state.paused));
  } catch (e) {
    fail(e);
  }
}
