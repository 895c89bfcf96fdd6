// What the selected event changed, in one line, and which cards it touched: the window says it
// on every step so that stepping is not re-reading the whole projection. One function per
// view the dialects offer, each pure over views the window has already loaded.

import type {
  SnapshotAt,
  ThreadStep,
  CompactionView,
  ConversationView,
  Diagnostic,
  ItemView,
  ProjectionView,
  RequestView,
} from "./types";

export interface StepChange {
  /** The sentence, starting with the event's offset. */
  line: string;
  /** Offsets of the cards the event added or replaced, to highlight and scroll to. */
  touched: number[];
  /** State paths the event changed (a thread's state), to expand. */
  paths: string[];
}

/** The event as the change line needs it: its offset, and its own diagnostics. */
export interface ChangedEvent {
  offset: number | null;
  type: string | null;
  diagnostics: Diagnostic[];
}

/** "@17 replaces @7 · key=…": the event's offset, then the phrases. */
function sentence(e: ChangedEvent, phrases: string[]): string {
  return `${e.offset === null ? "this line" : `@${e.offset}`} ${phrases.join(" · ")}`;
}

/** "a user", "an assistant", "an other": the role names, whose "u" sounds like "you". */
function withArticle(word: string): string {
  return `${/^[aeio]/i.test(word) ? "an" : "a"} ${word}`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** `@13–@20` for a run of offsets, `@13` for one. */
function span(offsets: number[]): string {
  if (offsets.length === 0) return "";
  const lo = Math.min(...offsets);
  const hi = Math.max(...offsets);
  return lo === hi ? `@${lo}` : `@${lo}–@${hi}`;
}

/** The event's worst diagnostic, as a closing phrase. */
function problem(e: ChangedEvent): string[] {
  const worst = e.diagnostics.find((d) => d.severity === "error") ?? e.diagnostics.find((d) => d.severity === "warning");
  return worst ? [`${worst.severity}: ${worst.code}`] : [];
}

/**
 * An event of a journal with a projection: what it did to it. `nextRequest` is the first request after
 * the event, which will send what it left unpublished.
 */
export function projectionChange(
  e: ChangedEvent,
  projection: ProjectionView,
  request: RequestView | null,
  compaction: CompactionView | null,
  nextRequest: number | null,
): StepChange {
  const phrases: string[] = [];
  let touched: number[] = [];
  if (request && request.snapshot.requestOffset === e.offset && request.snapshot.responsesBody !== undefined) {
    // The agent loop's request sends its whole list as input items: it has no publication
    // boundary to speak of.
    phrases.push(`sends ${plural(request.snapshot.items.length, "input item")}`);
  } else if (request && request.snapshot.requestOffset === e.offset) {
    phrases.push(`sends ${plural(request.snapshot.items.length, "item")}`);
    const fresh = request.newlyPublished;
    phrases.push(fresh.length ? `publishes ${plural(fresh.length, "item")} ${span(fresh)}` : "publishes nothing new");
    touched = fresh;
  } else if (compaction && compaction.offset === e.offset) {
    if (!compaction.valid) phrases.push(`compaction refused${compaction.invalidReason ? `: ${compaction.invalidReason}` : ""}`);
    else {
      phrases.push(`compacts ${plural(compaction.dropped.length, "item")} into a summary`);
      if (compaction.kept.length) phrases.push(`keeps ${compaction.kept.length}`);
    }
    touched = compaction.summary ? [compaction.summary.offset] : [];
  } else {
    const lanes: [string, ItemView[]][] = [
      ["system", projection.system],
      [projection.rules === "agent-loop" ? "the list" : "history", projection.history],
    ];
    for (const [lane, items] of lanes) {
      for (const item of items) {
        if (item.offset !== e.offset) continue;
        touched.push(item.offset);
        // An unpublished slot is replaced in place; a published one is updated by a new item.
        const inPlace = item.coalesced[item.coalesced.length - 1];
        if (inPlace !== undefined) phrases.push(`replaces @${inPlace} in place`);
        else if (item.updatesOffset !== undefined) phrases.push(`replaces @${item.updatesOffset}`);
        else phrases.push(`adds ${withArticle(item.role)} item to ${lane}`);
        if (item.key) phrases.push(`key=${item.key}`);
        if (item.published) phrases.push("published");
        else phrases.push(nextRequest === null ? "unpublished" : `unpublished · next sent by @${nextRequest}`);
      }
    }
    if (touched.length === 0) phrases.push("changes no item");
  }
  return { line: sentence(e, [...phrases, ...problem(e)]), touched, paths: [] };
}

/** An event of a thread: the state paths it changed, what it did to the messages, its run. */
export function threadChange(e: ChangedEvent, step: ThreadStep): StepChange {
  const phrases: string[] = [step.kind ?? e.type ?? "event"];
  const paths = step.changes.map((c) => c.path);
  if (step.patchFailure) phrases.push(`patch failed: ${step.patchFailure}`);
  else if (paths.length === 1) phrases.push(`${step.changes[0].change} ${paths[0] || "/"}`);
  else if (paths.length > 1) phrases.push(`changes ${plural(paths.length, "path")}: ${paths.slice(0, 3).join(", ")}${paths.length > 3 ? ", …" : ""}`);
  if (step.reconciliation.length) {
    const counts = new Map<string, number>();
    for (const r of step.reconciliation) counts.set(r.fate, (counts.get(r.fate) ?? 0) + 1);
    phrases.push([...counts].map(([fate, n]) => `${n} ${fate}`).join(", "));
  }
  if (paths.length === 0 && !step.patchFailure && step.reconciliation.length === 0) phrases.push("state unchanged");
  return { line: sentence(e, [...phrases, ...problem(e)]), touched: [], paths };
}

/** A line of a snapshot journal: the snapshot the cursor holds changes (accepted here) or stays. */
export function snapshotChange(e: ChangedEvent, snapshot: SnapshotAt): StepChange {
  const phrases: string[] = [];
  if (snapshot.offset !== null && snapshot.offset === e.offset) {
    phrases.push(`accepted: the cursor now holds turn ${snapshot.turnId ?? "?"}`);
    if (snapshot.sequence !== null) phrases.push(`sequence ${snapshot.sequence}`);
    if (snapshot.status) phrases.push(snapshot.status);
  } else {
    const why = e.diagnostics[0];
    phrases.push(why ? `rejected (${why.code})` : "not a snapshot the cursor takes");
    phrases.push(snapshot.offset === null ? "no snapshot held yet" : `the snapshot from @${snapshot.offset} stays`);
  }
  return {
    line: sentence(e, phrases),
    touched: snapshot.offset !== null && snapshot.offset === e.offset ? [snapshot.offset] : [],
    paths: [],
  };
}

/** A transcript line: the conversation line it adds, the compaction it marks, or why the model
 * never saw it. `marks` are the line's own mark kinds. */
export function transcriptChange(e: ChangedEvent, conversation: ConversationView, marks: ReadonlySet<string>): StepChange {
  const mine = conversation.history.filter((i) => i.offset === e.offset);
  const isRequest = marks.has("request");
  const phrases: string[] = [];
  if (mine.length) phrases.push(`adds ${mine.map((i) => `${withArticle(i.role)} line`).join(" and ")}`);
  else if (isRequest && e.type === "api-request") phrases.push("the client's record of the request it sent");
  else if (marks.has("compaction")) phrases.push("compacts the conversation: the requests after it send its summary, not the lines before");
  else phrases.push("not in the conversation the model sees");
  if (isRequest && e.type !== "api-request") phrases.push(`request of ${plural(conversation.history.length, "line")}`);
  return { line: sentence(e, [...phrases, ...problem(e)]), touched: mine.map((i) => i.offset), paths: [] };
}
