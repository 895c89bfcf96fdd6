// The session's action queue, against a backend that answers slowly the way a loaded machine
// does. Regression: CI's desktop run (08-agentskit) pressed G as soon as the file name showed
// and stayed on the first event, because the open's own first selection overtook the key.
import { describe, expect, it, vi } from "vitest";

const fixture = vi.hoisted(() => ({
  /** What the next open answers instead of `info`, when set. */
  failOpen: null as null | { code: string; message: string },
  /** Seqs whose detail the session loaded, in order: one per selection shown. */
  shown: [] as number[],
  /** Steps the backend was asked for. */
  steps: 0,
  info: {
    path: "/tmp/agentskit-demo.ndjson",
    fileName: "agentskit-demo.ndjson",
    dbPath: "/tmp/agentskit-demo.sqlite",
    dialect: "agents-kit",
    framing: "jsonl",
    eventCount: 15,
    firstOffset: 1,
    lastOffset: 15,
    errors: 0,
    warnings: 0,
    importKind: "fresh",
    controls: { itemFilters: false, breakpoints: ["diagnostic", "sql"], legend: ["diagnostic"], steps: [], transports: false, sizes: false, views: ["snapshots"], families: ["state", "turns"] },
  },
}));

vi.mock("./backend", () => {
  const later = <T>(value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), 200));
  const known: Record<string, (...args: unknown[]) => Promise<unknown>> = {
    openDemo: () => (fixture.failOpen ? Promise.reject(fixture.failOpen) : Promise.resolve(fixture.info)),
    eventTypes: () => later([]),
    timeline: () => later({ eventCount: 15 }),
    eventDetail: (seq) => {
      fixture.shown.push(seq as number);
      return Promise.resolve({ seq, offset: (seq as number) + 1, marks: [], diagnostics: [] });
    },
    // The held snapshot after a step; whatever else the session asks (turns) answers nothing.
    ask: (question) => {
      const q = question as { ask: string; seq?: number };
      return Promise.resolve(
        q.ask === "step" ? { at: (q.seq as number) + 1, offset: null, turnId: null, sequence: null, status: null } : null,
      );
    },
    step: (seq, _target, forward) => {
      fixture.steps += 1;
      const next = (seq as number) + (forward ? 1 : -1);
      return later(next >= 0 && next < 15 ? next : null);
    },
    recentFiles: () => Promise.resolve([]),
    // No sessions, found at once; the folders looked in, late.
    agentSessions: () => Promise.resolve([]),
    sessionPlaces: () => later([{ agent: "Some Agent", folder: "/home/me/.agent/sessions" }]),
  };
  // Whatever else the session asks for (turns, state) answers nothing.
  const backend = new Proxy(known, {
    get: (target, name: string) => target[name] ?? (() => Promise.resolve(null)),
  });
  return { backend };
});

import { listSessions, openDemo, runAction, ui } from "./session.svelte";

describe("keys pressed while a journal opens", () => {
  it("g_pressed_as_the_journal_opens_lands_on_the_last_event", async () => {
    (globalThis as { document?: unknown }).document ??= { title: "" };
    const opening = openDemo("agentskit");
    await vi.waitFor(() => expect(ui.info, "the file name shows").not.toBeNull(), { interval: 1 });
    const pressed = runAction({ kind: "last" });
    await opening;
    await pressed;
    expect(ui.selectedSeq, "G wins over the open's first selection").toBe(14);
  });
});

describe("a cancelled import", () => {
  it("regression_a_cancel_the_user_asked_for_showed_as_an_error", async () => {
    (globalThis as { document?: unknown }).document ??= { title: "" };
    fixture.failOpen = { code: "cancelled", message: "import cancelled" };
    try {
      await openDemo("ag-ui");
    } finally {
      fixture.failOpen = null;
    }
    expect(ui.error, "no error to dismiss").toBeNull();
    expect(ui.notice, "a notice says it was cancelled").toBe("import of ag-ui demo cancelled");
    expect(ui.importing, "the progress overlay is gone").toBeNull();
  });
});

describe("a held j", () => {
  it("regression_held_j_ran_on_through_a_backlog_after_the_key_was_released", async () => {
    (globalThis as { document?: unknown }).document ??= { title: "" };
    await openDemo("agentskit");
    fixture.shown.length = 0;
    fixture.steps = 0;
    const first = runAction({ kind: "step", target: "event", forward: true });
    // Five repeats arrive while the first step is on its way (each answer takes 200 ms).
    await vi.waitFor(() => expect(fixture.steps, "the first step is asked for").toBe(1), { interval: 1 });
    const repeats = Array.from({ length: 5 }, () => runAction({ kind: "step", target: "event", forward: true }));
    await Promise.all([first, ...repeats]);
    expect(ui.selectedSeq, "every press counted: six events on").toBe(6);
    expect(fixture.steps, "each press is one step at the backend").toBe(6);
    expect(fixture.shown.length, "the five repeats were shown once, not one by one").toBe(2);
    const back = runAction({ kind: "step", target: "event", forward: false });
    const last = runAction({ kind: "last" });
    const again = runAction({ kind: "step", target: "event", forward: false });
    await Promise.all([back, last, again]);
    expect(ui.selectedSeq, "a step after another action is not joined into an earlier one").toBe(13);
  });

  it("stops at the end and says so", async () => {
    (globalThis as { document?: unknown }).document ??= { title: "" };
    await runAction({ kind: "last" });
    const presses = Array.from({ length: 3 }, () => runAction({ kind: "step", target: "event", forward: true }));
    await Promise.all(presses);
    expect(ui.selectedSeq, "still the last event").toBe(14);
    expect(ui.notice, "the end is named").toBe("no next event");
  });
});

describe("the list of agents' sessions", () => {
  it("regression_an_empty_session_list_showed_before_the_folders_it_looked_in", async () => {
    // Given no sessions on the machine; when the list is read; then the empty list and the
    // folders it looked in arrive together, never an empty list that cannot say where.
    ui.sessions = null;
    ui.sessionPlaces = [];
    const listing = listSessions();
    await vi.waitFor(() => expect(ui.sessions, "the list shows").not.toBeNull(), { timeout: 2000 });
    expect(ui.sessions, "no sessions were found").toEqual([]);
    expect(ui.sessionPlaces.map((p) => p.folder), "the folder looked in is known with it").toEqual([
      "/home/me/.agent/sessions",
    ]);
    await listing;
  });
});
