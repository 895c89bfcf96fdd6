// The window's state and the actions that change it. Components read `ui` and call these
// actions; every call to the backend happens here or in the components' own paging.

import { backend } from "./backend";
import { editBookmark, inquiry, runBreak, stepBookmark, stepHit } from "./inquiry.svelte";
import { exportNotice, redactionLabel } from "./export";
import type { Action } from "./keys";
import { snapshotChange, threadChange, projectionChange, transcriptChange, type StepChange } from "./change";
import { otherTransport } from "./roles";
import { MESSAGE_PAGE } from "./threadpages";
import { bodyAsk, detailAsk, FIRST_PAGE, stepAsk, type BodyOptions } from "./asks";
import type {
  AgentSession,
  DemoListing,
  SessionPlace,
  Ask,
  SnapshotAt,
  TurnsReport,
  RunSpan,
  ThreadStep,
  CompactionView,
  ConversationView,
  EventDetail,
  EventQuery,
  ImportStatus,
  IpcError,
  JournalInfo,
  ProjectionView,
  RecentFile,
  RequestView,
  SpawnedBy,
  StepTarget,
  Subagent,
  Timeline,
  TranscriptCompaction,
  TranscriptRequest,
  Transport,
  TypeCount,
} from "./types";

export type Centre = "projection" | "request" | "compaction" | "diff";

export const ui = $state({
  screen: "welcome" as "welcome" | "journal",
  importing: null as ImportStatus | null,
  error: null as IpcError | null,
  recent: [] as RecentFile[],
  info: null as JournalInfo | null,
  types: [] as TypeCount[],
  timeline: null as Timeline | null,
  /** The seqs the scrubber is zoomed into; null for the whole journal. */
  zoom: null as { firstSeq: number; lastSeq: number } | null,
  transport: "openai" as Transport,
  filterTypes: [] as string[],
  filterText: "",
  selectedSeq: null as number | null,
  detail: null as EventDetail | null,
  centre: "projection" as Centre,
  projection: null as ProjectionView | null,
  request: null as RequestView | null,
  compaction: null as CompactionView | null,
  boundarySeq: null as number | null,
  threadStep: null as ThreadStep | null,
  runs: [] as RunSpan[],
  snapshot: null as SnapshotAt | null,
  turns: null as TurnsReport | null,
  /** The session the snapshot cursor follows; null lets the core pick the journal's own. */
  thread: null as string | null,
  /** A transcript: what the model could see at the selection. */
  conversation: null as ConversationView | null,
  /** The transcript request the selection belongs to, as its provider got it. */
  transcriptRequest: null as TranscriptRequest | null,
  transcriptCompaction: null as TranscriptCompaction | null,
  /** The subagents the open session ran, by the call that spawned each. */
  subagents: [] as Subagent[],
  /** The session a subagent's transcript was opened from, to go back to its call. */
  parent: null as { path: string; fileName: string; callOffset: number | null; agentId?: string | null } | null,
  /** Agents' sessions found on this machine; null until first listed. */
  sessions: null as AgentSession[] | null,
  /** Where those sessions were looked for, agent by agent. */
  sessionPlaces: [] as SessionPlace[],
  /** The bundled demo journals; empty until first listed. */
  demos: [] as DemoListing[],
  help: false,
  /** This build's version and commit, shown in the About box. */
  version: "",
  goto: false,
  dropHover: false,
  notice: "",
  /** The projection pane shows only what changed since the previous event. */
  delta: false,
  /** The projection at the previous event, while the delta view is on. */
  before: null as ProjectionView | null,
  /** What the selected event changed, in a line, and the cards it touched. */
  change: null as StepChange | null,
  /** Bumped when the list must re-query (new journal or filter change). */
  listVersion: 0,
});

export function query(start = 0, limit = 1): EventQuery {
  const text = ui.filterText.trim();
  return { types: [...ui.filterTypes], text: text === "" ? null : text, start, limit };
}

function filtered(): boolean {
  return ui.filterTypes.length > 0 || ui.filterText.trim() !== "";
}

function fail(e: unknown) {
  ui.error = e as IpcError;
}

export async function afterOpen(info: JournalInfo) {
  ui.info = info;
  ui.screen = "journal";
  // The native title is set by the backend; this keeps the page's own title in step.
  document.title = `${info.fileName} — Journalscope`;
  ui.filterTypes = [];
  ui.filterText = "";
  ui.selectedSeq = null;
  ui.detail = null;
  ui.change = null;
  ui.before = null;
  ui.projection = null;
  ui.request = null;
  ui.compaction = null;
  ui.boundarySeq = null;
  ui.threadStep = null;
  ui.runs = [];
  ui.snapshot = null;
  ui.turns = null;
  ui.thread = null;
  ui.conversation = null;
  ui.transcriptRequest = null;
  ui.transcriptCompaction = null;
  ui.subagents = [];
  // The subagent opened from its call knows its parent at the call; one opened any other way
  // asks its own lines which session ran it.
  ui.parent = opening;
  opening = null;
  if (!ui.parent && info.controls.families.includes("lineage")) {
    const spawned = await backend.ask<SpawnedBy | null>({ ask: "spawnedBy" }).catch(() => null);
    if (spawned?.path) {
      const fileName = spawned.path.split(/[\\/]/).pop() ?? spawned.path;
      ui.parent = { path: spawned.path, fileName, callOffset: null, agentId: spawned.agentId };
    }
  }
  // The previous journal's timeline must not answer g/G for this one.
  ui.timeline = null;
  ui.zoom = null;
  ui.listVersion += 1;
  const turns: Ask = { ask: "turns", session: null };
  if (info.controls.views.includes("thread")) ui.runs = await backend.ask<RunSpan[]>(turns).catch(() => []);
  if (info.controls.views.includes("snapshots")) ui.turns = await backend.ask<TurnsReport>(turns).catch(() => null);
  await refreshSubagents();
  const [types, timeline] = await Promise.all([backend.eventTypes(), backend.timeline(TIMELINE_BUCKETS)]);
  ui.types = types;
  ui.timeline = timeline;
  if (timeline.eventCount > 0) await select(0);
}

const TIMELINE_BUCKETS = 600;

/** Reads the scrubber's picture again, of the span it is zoomed into (the whole journal when
 * `span` is null). */
export async function loadTimeline(span: { firstSeq: number; lastSeq: number } | null = ui.zoom) {
  try {
    const timeline = await backend.timeline(TIMELINE_BUCKETS, span);
    ui.zoom = span;
    ui.timeline = timeline;
  } catch (e) {
    fail(e);
  }
}

async function runImport(open: () => Promise<JournalInfo>, label: string) {
  ui.error = null;
  ui.importing = { source: label, doneBytes: 0, totalBytes: 0, events: 0, stage: "storing", analysed: 0 };
  try {
    performance.clearMarks();
    const info = await open();
    // Marks for the scale test: from the import's end (loading began) to the first frame
    // showing the journal.
    performance.mark("journalscope:imported");
    ui.importing = null;
    // Through the action queue, so a key pressed as soon as the file name shows (G, say)
    // runs after the new journal's first selection instead of being overtaken by it.
    await enqueue(() => afterOpen(info));
    requestAnimationFrame(() => performance.mark("journalscope:shown"));
  } catch (e) {
    ui.importing = null;
    // The user asked for it: a notice, not an error to dismiss.
    if ((e as IpcError).code === "cancelled") ui.notice = `import of ${label} cancelled`;
    else fail(e);
  }
  ui.recent = await backend.recentFiles().catch(() => ui.recent);
}

export function openFile(path: string) {
  const name = path.split(/[\\/]/).pop() ?? path;
  return runImport(() => backend.openFile(path), name);
}

/** Opens the bundled demo of the dialect named `name`. */
export function openDemo(name: string) {
  return runImport(() => backend.openDemo(name), `${name} demo`);
}

/** The parent the next open is a subagent of, for `afterOpen` to keep. */
let opening: typeof ui.parent = null;

/** Reads the subagents of the open session again, where its journal has any: at an open, and
 * as a followed session grows (a call may have spawned one since). */
export async function refreshSubagents() {
  if (!ui.info?.controls.families.includes("lineage")) return;
  ui.subagents = await backend.ask<Subagent[]>({ ask: "subagents" }).catch(() => ui.subagents);
}

/** Opens a subagent's own transcript, or goes to its first line when it is written inline. */
export async function openSubagent(agent: Subagent) {
  if (agent.path !== null) {
    opening = ui.info ? { path: ui.info.path, fileName: ui.info.fileName, callOffset: agent.callOffset } : null;
    await openFile(agent.path);
    opening = null;
  } else if (agent.rootOffset !== null) await gotoOffset(agent.rootOffset);
}

/** Goes back from a subagent's transcript to the session that ran it, at the call. */
export async function backToParent() {
  const parent = ui.parent;
  if (!parent) return;
  await openFile(parent.path);
  if (ui.info?.path !== parent.path) return;
  // Known from the call it was opened from, else found among the parent's subagents.
  const call = parent.callOffset ?? ui.subagents.find((s) => s.agentId !== null && s.agentId === parent.agentId)?.callOffset ?? null;
  if (call !== null) await gotoOffset(call);
}

/** Lists the agents' sessions on this machine again. */
export async function listSessions() {
  // Both at once, the folders first: an empty list says where it looked as soon as it shows.
  const [sessions, places] = await Promise.all([
    backend.agentSessions().catch(() => ui.sessions ?? []),
    backend.sessionPlaces().catch(() => ui.sessionPlaces),
  ]);
  ui.sessionPlaces = places;
  ui.sessions = sessions;
}

/** Lists the bundled demo journals, once: they are built in. */
export async function listDemos() {
  if (ui.demos.length === 0) ui.demos = await backend.demos().catch(() => []);
}

export async function pickAndOpen() {
  const path = await backend.pickJournal().catch(fail);
  if (path) await openFile(path);
}

export async function cancelImport() {
  await backend.cancelImport().catch(fail);
}

export function onProgress(s: ImportStatus) {
  if (!ui.importing) return;
  ui.importing = s;
}

export async function startup() {
  try {
    const s = await backend.startup();
    ui.recent = s.recent;
    ui.version = s.version;
    if (s.launchPath) await openFile(s.launchPath);
    else if (s.openDemo) await openDemo(s.openDemo);
  } catch (e) {
    fail(e);
  }
}

let selecting = 0;

/** Selects an event and loads every view that depends on it. Later calls win. */
export async function select(seq: number) {
  const ticket = ++selecting;
  ui.selectedSeq = seq;
  try {
    const detail = await backend.eventDetail(seq);
    if (ticket !== selecting) return;
    ui.detail = detail;
    const kinds = new Set(detail.marks.map((m) => m.kind));
    // The centre shows whichever view the journal's dialect builds.
    const views = ui.info?.controls.views ?? [];
    if (views.includes("projection")) {
      // The next request is asked for alongside, so the change line lands with the projection.
      const [projection, next, before] = await Promise.all([
        backend.ask<ProjectionView>(stepAsk(seq, FIRST_PAGE)),
        nextRequestOffset(seq),
        ui.delta ? projectionBefore(seq) : null,
      ]);
      if (ticket !== selecting) return;
      ui.projection = projection;
      ui.before = before;
      if (kinds.has("request") && detail.offset !== null) {
        await loadRequest(detail.offset, ticket);
        // The diff view follows the selected request.
        if (ticket === selecting) ui.centre = ui.centre === "diff" ? "diff" : "request";
      } else if (kinds.has("compaction") && detail.offset !== null) {
        const compaction = await backend.ask<CompactionView>({ ask: "compaction", at: detail.offset });
        if (ticket !== selecting) return;
        ui.compaction = compaction;
        ui.centre = "compaction";
      } else {
        ui.centre = "projection";
      }
      if (ticket !== selecting) return;
      const request = kinds.has("request") ? ui.request : null;
      const compaction = kinds.has("compaction") ? ui.compaction : null;
      ui.change = projectionChange(detail, projection, request, compaction, next);
    } else if (views.includes("thread")) {
      const step = await backend.ask<ThreadStep>(stepAsk(seq, { start: 0, limit: MESSAGE_PAGE }));
      if (ticket !== selecting) return;
      ui.threadStep = step;
      ui.change = threadChange(detail, step);
    } else if (views.includes("snapshots")) {
      const snapshot = await backend.ask<SnapshotAt>(stepAsk(seq, FIRST_PAGE, ui.thread));
      if (ticket !== selecting) return;
      ui.snapshot = snapshot;
      ui.change = snapshotChange(detail, snapshot);
    } else if (views.includes("conversation")) {
      const conversation = await backend.ask<ConversationView>(stepAsk(seq, FIRST_PAGE));
      if (ticket !== selecting) return;
      ui.conversation = conversation;
      ui.change = transcriptChange(detail, conversation, kinds);
      if (kinds.has("request") && detail.offset !== null) {
        const request = await backend.ask<TranscriptRequest>(detailAsk(detail.offset, null));
        if (ticket !== selecting) return;
        ui.transcriptRequest = request;
        // The diff view follows the selected request, as it does for projection journals.
        ui.centre = ui.centre === "diff" ? "diff" : "request";
      } else if (kinds.has("compaction") && detail.offset !== null) {
        const compaction = await backend.ask<TranscriptCompaction>({ ask: "compaction", at: detail.offset });
        if (ticket !== selecting) return;
        ui.transcriptCompaction = compaction;
        ui.centre = "compaction";
      } else {
        ui.centre = "projection";
      }
    }
  } catch (e) {
    if (ticket !== selecting) return;
    fail(e);
  }
}

/** The projection at the event before `seq`; an empty one before the first. */
async function projectionBefore(seq: number): Promise<ProjectionView | null> {
  return seq > 0 ? backend.ask<ProjectionView>(stepAsk(seq - 1, FIRST_PAGE)) : null;
}

/** Turns the delta view on or off, reading the previous event's projection when on. */
export async function toggleDelta() {
  if (ui.delta) {
    ui.delta = false;
    ui.before = null;
    return;
  }
  if (ui.selectedSeq === null) return;
  // Turned on once the previous projection is in, so the pane never shows a delta against
  // nothing on the way.
  const seq = ui.selectedSeq;
  try {
    const before = await projectionBefore(seq);
    if (ui.selectedSeq !== seq) return;
    ui.before = before;
    ui.delta = true;
  } catch (e) {
    fail(e);
  }
}

/** The offset of the first request after `seq`: the one that will send what it left unpublished. */
async function nextRequestOffset(seq: number): Promise<number | null> {
  const next = await backend.step(seq, "request", true);
  if (next === null) return null;
  const page = await backend.eventsPage({ types: [], text: null, start: next, limit: 1 });
  return page.rows[0]?.offset ?? null;
}

async function loadRequest(offset: number, ticket: number) {
  const request = await backend.ask<RequestView>(detailAsk(offset, ui.transport));
  if (ticket !== selecting) return;
  ui.request = request;
  const through = request.earlierPublished.concat(request.newlyPublished);
  const last = through.length > 0 ? Math.max(...through) : null;
  ui.boundarySeq = last === null ? null : await backend.seqOfOffset(last);
}

export async function setTransport(t: Transport) {
  ui.transport = t;
  if (ui.request) {
    try {
      ui.request = await backend.ask<RequestView>(detailAsk(ui.request.snapshot.requestOffset, t));
    } catch (e) {
      fail(e);
    }
  }
}

async function stepFiltered(from: number, forward: boolean): Promise<number | null> {
  const row = await backend.rowOfSeq(query(), from);
  const start = row === null ? 0 : forward ? row + 1 : row - 1;
  if (start < 0) return null;
  const page = await backend.eventsPage(query(start, 1));
  return page.rows[0]?.seq ?? null;
}

/** Steps `times` times from the selection, then shows only where that lands. */
export async function step(target: StepTarget, forward: boolean, times = 1) {
  if (ui.selectedSeq === null || !ui.timeline) return;
  try {
    let at = ui.selectedSeq;
    let stepped = 0;
    for (; stepped < times; stepped++) {
      const next =
        target === "event" && filtered() ? await stepFiltered(at, forward) : await backend.step(at, target, forward);
      if (next === null || next === undefined) break;
      at = next;
    }
    ui.notice = stepped < times ? `no ${forward ? "next" : "previous"} ${target}` : "";
    if (stepped > 0) await select(at);
  } catch (e) {
    fail(e);
  }
}

export async function gotoOffset(offset: number) {
  try {
    const seq = await backend.seqOfOffset(offset);
    if (seq === null) {
      ui.notice = `no event at or before @${offset}`;
      return;
    }
    ui.notice = "";
    await select(seq);
  } catch (e) {
    fail(e);
  }
}

let queue: Promise<unknown> = Promise.resolve();

/**
 * Runs key actions one after another: each step starts from where the previous one landed,
 * so fast typing never loses or reorders a step.
 */
export function runAction(action: Action): Promise<unknown> {
  if (action.kind === "step") {
    // A held key repeats faster than a step renders: repeats join the step still waiting in
    // the queue, which then steps that many times and renders once, so the selection keeps up
    // with the key and stops when it is released instead of running on through a backlog.
    const waiting = waitingStep;
    if (waiting && waiting.target === action.target && waiting.forward === action.forward) {
      waiting.times += 1;
      return queue;
    }
    const joined = { target: action.target, forward: action.forward, times: 1 };
    waitingStep = joined;
    return enqueue(() => {
      if (waitingStep === joined) waitingStep = null;
      return step(joined.target, joined.forward, joined.times);
    });
  }
  // Any other action keeps its place: later steps queue behind it, not into an earlier step.
  waitingStep = null;
  return enqueue(() => perform(action));
}

/** The step at the end of the queue that has not started yet, if any. */
let waitingStep: { target: StepTarget; forward: boolean; times: number } | null = null;

function enqueue(work: () => Promise<unknown>): Promise<unknown> {
  queue = queue.then(work).catch(fail);
  return queue;
}

async function perform(action: Action) {
  switch (action.kind) {
    case "first":
      if (ui.timeline && ui.timeline.eventCount > 0) return select(0);
      return;
    case "last":
      if (ui.timeline && ui.timeline.eventCount > 0) return select(ui.timeline.eventCount - 1);
      return;
    case "goto":
      ui.goto = true;
      return;
    case "help":
      ui.help = !ui.help;
      return;
    case "transport":
      return setTransport(otherTransport(ui.transport));
    case "diff":
      if (ui.request) ui.centre = ui.centre === "diff" ? "request" : "diff";
      else ui.notice = "select a request to diff it";
      return;
    case "open":
      return pickAndOpen();
    case "escape":
      ui.help = false;
      ui.goto = false;
      ui.error = null;
      inquiry.editing = null;
      return;
    case "filter":
      document.getElementById("search-box")?.focus();
      return;
    case "hit":
      return stepHit(action.forward);
    case "break":
      return runBreak(action.forward);
    case "bookmark":
      return editBookmark();
    case "bookmarkStep":
      return stepBookmark(action.forward);
    case "console":
      inquiry.console = !inquiry.console;
      return;
    case "bookmarkList":
      inquiry.bookmarkList = !inquiry.bookmarkList;
      return;
  }
}

export function setFilter(types: string[], text: string) {
  ui.filterTypes = types;
  ui.filterText = text;
  ui.listVersion += 1;
}

/** Copies the request's body or curl command, redacted unless `options.exact`. */
export async function copyRequestExport(options: BodyOptions) {
  if (!ui.request) return;
  try {
    const r = await backend.requestBodyText(bodyAsk(ui.request.snapshot.requestOffset, ui.transport, options));
    await backend.copyText(r.text);
    ui.notice = `request ${options.format === "curl" ? "curl command" : "body"} copied (${redactionLabel(r)})`;
  } catch (e) {
    fail(e);
  }
}

/** Copies the selected transcript request, as its provider got it, as JSON. */
/** Copies the selected transcript request's body, secrets redacted unless `exact`. */
export async function copyTranscriptRequest(exact = false) {
  if (!ui.transcriptRequest) return;
  const offset = ui.transcriptRequest.requestOffset;
  try {
    const body = await backend.requestBodyText(bodyAsk(offset, null, { format: "body", exact, redactPaths: [] }));
    await backend.copyText(body.text);
    ui.notice = `body of request @${offset} copied (${redactionLabel(body)})`;
  } catch (e) {
    fail(e);
  }
}

export async function exportRequest(options: BodyOptions) {
  if (!ui.request) return;
  try {
    const r = await backend.exportRequest(bodyAsk(ui.request.snapshot.requestOffset, ui.transport, options));
    ui.notice = exportNotice(r);
  } catch (e) {
    fail(e);
  }
}

/** Follows another session of a snapshot journal: its turns report and snapshot are re-read. */
export async function setThread(thread: string | null) {
  ui.thread = thread;
  try {
    ui.turns = await backend.ask<TurnsReport>({ ask: "turns", session: thread });
    if (ui.selectedSeq !== null) ui.snapshot = await backend.ask<SnapshotAt>(stepAsk(ui.selectedSeq, FIRST_PAGE, thread));
  } catch (e) {
    fail(e);
  }
}
