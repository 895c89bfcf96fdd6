// The session's action queue, against a backend that answers slowly the way a loaded machine
// does. Regression: CI's desktop run (08-agentskit) pressed G as soon as the file name showed
// and stayed on the first event, because the open's own first selection overtook the key.
import { describe, expect, it, vi } from "vitest";

const fixture = vi.hoisted(() => ({
  /** What the next open answers instead of `info`, when set. */
  failOpen: null as null | { code: string; message: string },
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
  },
}));

vi.mock("./backend", () => {
  const later = <T>(value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), 200));
  const known: Record<string, (...args: unknown[]) => Promise<unknown>> = {
    openDemo: () => (fixture.failOpen ? Promise.reject(fixture.failOpen) : Promise.resolve(fixture.info)),
    eventTypes: () => later([]),
    timeline: () => later({ eventCount: 15 }),
    eventDetail: (seq) => Promise.resolve({ seq, offset: (seq as number) + 1, marks: [] }),
    recentFiles: () => Promise.resolve([]),
  };
  // Whatever else the session asks for (turns, state) answers nothing.
  const backend = new Proxy(known, {
    get: (target, name: string) => target[name] ?? (() => Promise.resolve(null)),
  });
  return { backend };
});

import { openDemo, runAction, ui } from "./session.svelte";

describe("keys pressed while a journal opens", () => {
  it("g_pressed_as_the_journal_opens_lands_on_the_last_event", async () => {
    (globalThis as { document?: unknown }).document ??= { title: "" };
    const opening = openDemo("agents-kit");
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
