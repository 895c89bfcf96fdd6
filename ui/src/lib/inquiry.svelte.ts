// Search, breakpoints, the SQL console and bookmarks: their state and actions. Each jump goes
// through the session's `select`, so the views follow exactly as they do for stepping keys.

import { backend } from "./backend";
import { breakKindFor, breakpointOf, nextSeq, textTable, type BreakKind } from "./inquiry";
import { select, ui } from "./session.svelte";
import type { Bookmark, IpcError, SearchHit } from "./types";

export const inquiry = $state({
  text: "",
  types: "" as string,
  role: "",
  lane: "",
  published: "" as "" | "yes" | "no",
  actor: "",
  key: "",
  /** Hits of the last search, in file order; null before any search. */
  hits: null as SearchHit[] | null,
  total: 0,
  breakKind: "request" as BreakKind,
  breakArg: "",
  lastBreak: "",
  /** Where F7/F8 stopped for the breakpoint as it is set, for the timeline's ticks. */
  breakStops: [] as number[],
  /** The breakpoint those stops belong to. */
  breakStopsFor: "",
  console: false,
  sql: "SELECT type, count(*) AS n FROM events GROUP BY type ORDER BY n DESC",
  sqlAtSelection: true,
  sqlResult: "",
  sqlError: null as IpcError | null,
  bookmarks: [] as Bookmark[],
  bookmarkList: false,
  /** The note dialog (`m`) is open for this seq. */
  editing: null as number | null,
});

/** Forgets what belonged to the previous journal and loads this one's bookmarks. */
export async function resetForJournal() {
  inquiry.hits = null;
  inquiry.total = 0;
  inquiry.lastBreak = "";
  inquiry.breakStops = [];
  inquiry.sqlResult = "";
  inquiry.sqlError = null;
  inquiry.editing = null;
  // What this journal's dialect cannot answer is neither shown nor left set.
  const controls = ui.info?.controls;
  if (controls) {
    inquiry.breakKind = breakKindFor(inquiry.breakKind, controls.breakpoints);
    if (!controls.itemFilters) {
      inquiry.role = "";
      inquiry.lane = "";
      inquiry.published = "";
      inquiry.actor = "";
      inquiry.key = "";
    }
  }
  inquiry.bookmarks = await backend.bookmarks().catch(() => []);
}

function filtersSet(): boolean {
  return [inquiry.types, inquiry.role, inquiry.lane, inquiry.published, inquiry.actor, inquiry.key].some(
    (v) => v.trim() !== "",
  );
}

const opt = (v: string) => (v.trim() === "" ? null : v.trim());

export async function runSearch() {
  if (inquiry.text.trim() === "" && !filtersSet()) {
    inquiry.hits = null;
    inquiry.total = 0;
    return;
  }
  try {
    const result = await backend.search({
      text: opt(inquiry.text),
      types: inquiry.types === "" ? [] : [inquiry.types],
      role: opt(inquiry.role),
      actor: opt(inquiry.actor),
      key: opt(inquiry.key),
      lane: opt(inquiry.lane),
      published: inquiry.published === "" ? null : inquiry.published === "yes",
      at: null,
      limit: null,
    });
    inquiry.hits = result.hits;
    inquiry.total = Number(result.total);
  } catch (e) {
    ui.error = e as IpcError;
  }
}

export function hitSeqs(): number[] {
  return (inquiry.hits ?? []).map((h) => h.seq);
}

/** `n` / `N`: the next or previous hit from the selection. */
export async function stepHit(forward: boolean) {
  if (inquiry.hits === null) await runSearch();
  if (inquiry.hits === null) {
    if (inquiry.text.trim() === "" && !filtersSet()) ui.notice = "type a search first (/)";
    return;
  }
  const seq = nextSeq(hitSeqs(), ui.selectedSeq, forward);
  if (seq === null) {
    ui.notice = `no ${forward ? "next" : "previous"} hit`;
    return;
  }
  ui.notice = "";
  await select(seq);
}

/** F8 / F7: run to the breakpoint's next or previous hit. */
export async function runBreak(forward: boolean) {
  const bp = breakpointOf(inquiry.breakKind, inquiry.breakArg, ui.transport);
  if (!bp) {
    ui.notice = "the breakpoint needs its argument";
    return;
  }
  const hit = await backend.runBreakpoint(bp, ui.selectedSeq, forward);
  if (!hit) {
    ui.notice = `breakpoint: no ${forward ? "next" : "previous"} hit`;
    inquiry.lastBreak = "";
    return;
  }
  inquiry.lastBreak = hit.note;
  // The stops of another breakpoint say nothing about this one.
  const which = JSON.stringify(bp);
  if (inquiry.breakStopsFor !== which) inquiry.breakStops = [];
  inquiry.breakStopsFor = which;
  if (!inquiry.breakStops.includes(hit.seq)) inquiry.breakStops = [...inquiry.breakStops, hit.seq];
  ui.notice = `breakpoint @${hit.offset ?? "-"}: ${hit.note}`;
  await select(hit.seq);
}

export async function runSql() {
  inquiry.sqlError = null;
  try {
    const at = inquiry.sqlAtSelection ? (ui.projection?.at ?? ui.detail?.offset ?? null) : null;
    const result = await backend.sqlQuery({ sql: inquiry.sql, at, maxRows: null, timeoutMs: null });
    inquiry.sqlResult = textTable(result);
  } catch (e) {
    inquiry.sqlResult = "";
    inquiry.sqlError = e as IpcError;
  }
}

/** `m`: opens the note dialog at the selection (with its note when it is bookmarked). */
export function editBookmark() {
  if (ui.selectedSeq === null) return;
  inquiry.editing = ui.selectedSeq;
}

export async function saveBookmark(seq: number, note: string) {
  inquiry.editing = null;
  try {
    await backend.setBookmark(seq, note);
    inquiry.bookmarks = await backend.bookmarks();
    ui.notice = "bookmarked";
  } catch (e) {
    ui.error = e as IpcError;
  }
}

export async function removeBookmark(seq: number) {
  try {
    await backend.removeBookmark(seq);
    inquiry.bookmarks = await backend.bookmarks();
  } catch (e) {
    ui.error = e as IpcError;
  }
}

/** `u` / `U`: the next or previous bookmark from the selection. */
export async function stepBookmark(forward: boolean) {
  const seq = nextSeq(
    inquiry.bookmarks.map((b) => b.seq),
    ui.selectedSeq,
    forward,
  );
  if (seq === null) {
    ui.notice = `no ${forward ? "next" : "previous"} bookmark`;
    return;
  }
  ui.notice = "";
  await select(seq);
}
