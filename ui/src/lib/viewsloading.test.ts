// An iterate journal shown before its events are loaded for stepping: a view that waits for the
// load says so instead of failing, and shows by itself once the load ends.
import { describe, expect, it, vi } from "vitest";

const fixture = vi.hoisted(() => ({
  /** Whether the backend's journal has its events loaded. */
  loaded: false,
  /** The next "loading" answer is overtaken by the event saying the load ended. */
  overtaken: null as null | (() => void),
  projections: 0,
  retries: 0,
  info: {
    path: "/tmp/big.jsonl",
    fileName: "big.jsonl",
    dbPath: "/tmp/big.sqlite",
    dialect: "iterate",
    framing: "jsonl",
    eventCount: 100,
    firstOffset: 0,
    lastOffset: 99,
    errors: 0,
    warnings: 0,
    importKind: "fresh",
  },
}));

vi.mock("./backend", () => {
  const known: Record<string, (...args: unknown[]) => Promise<unknown>> = {
    openFile: () => Promise.resolve(fixture.info),
    eventTypes: () => Promise.resolve([]),
    timeline: () => Promise.resolve({ eventCount: 100, marks: [], density: [], diagnosticSeqs: [] }),
    // The last event is a request.
    eventDetail: (seq) => Promise.resolve({ seq, offset: seq, marks: seq === 99 ? [{ seq, kind: "request", note: "" }] : [] }),
    requestAt: (offset) =>
      fixture.loaded
        ? Promise.resolve({ snapshot: { requestOffset: offset }, earlierPublished: [], newlyPublished: [] })
        : Promise.reject({ code: "loading", message: "this view needs the whole journal" }),
    seqOfOffset: () => Promise.resolve(null),
    projectionAt: (seq) => {
      fixture.projections += 1;
      // Only the ends answer before the load, as the core's unloaded journal does.
      if (!fixture.loaded && seq !== 99 && seq !== 0) {
        const overtaken = fixture.overtaken;
        fixture.overtaken = null;
        overtaken?.();
        return Promise.reject({ code: "loading", message: "this view needs the whole journal" });
      }
      return Promise.resolve({ at: seq, publishedThrough: null, pending: null, system: [], history: [], diagnostics: [], diagnosticCount: 0, errorCount: 0 });
    },
    recentFiles: () => Promise.resolve([]),
    retryViewsLoad: () => {
      fixture.retries += 1;
      return Promise.resolve(!fixture.loaded);
    },
  };
  const backend = new Proxy(known, {
    get: (target, name: string) => target[name] ?? (() => Promise.resolve(null)),
  });
  return { backend };
});

import { onViewsLoading, openFile, retryViewsLoad, select, ui } from "./session.svelte";

const loading = (state: "loading" | "loaded" | "failed", dbPath = fixture.info.dbPath) => ({
  dbPath,
  loaded: state === "loading" ? 40 : 100,
  total: 100,
  state,
  message: state === "failed" ? "disk gone" : null,
});

describe("a journal shown before its events load", () => {
  it("shows a waiting view without an error, then the view once the load ends", async () => {
    (globalThis as { document?: unknown }).document ??= { title: "" };
    (globalThis as { requestAnimationFrame?: unknown }).requestAnimationFrame ??= (f: () => void) => setTimeout(f, 0);
    await openFile("/tmp/big.jsonl");
    expect(ui.projection?.at, "the first event shows at once").toBe(0);

    onViewsLoading(loading("loading"));
    expect(ui.viewsLoading?.loaded, "the title bar's figure follows the load").toBe(40);
    await select(50);
    expect(ui.error, "waiting for the load is not an error").toBeNull();
    expect(ui.projection, "no stale projection stands for event 50").toBeNull();
    expect(ui.awaitingViews, "the centre says it waits for the load").toBe(true);

    onViewsLoading(loading("loading", "/tmp/other.sqlite"));
    onViewsLoading(loading("loaded", "/tmp/other.sqlite"));
    expect(ui.viewsLoading?.loaded, "another journal's load changes nothing").toBe(40);

    fixture.loaded = true;
    onViewsLoading(loading("loaded"));
    expect(ui.viewsLoading, "the figure goes once loaded").toBeNull();
    await vi.waitFor(() => expect(ui.projection?.at, "event 50 shows by itself").toBe(50), { interval: 1 });
    expect(ui.awaitingViews, "nothing waits any more").toBe(false);
  });

  it("shows a request's projection while the request waits, then the request", async () => {
    fixture.loaded = false;
    ui.error = null;
    await select(99);
    expect(ui.error, "a request waiting for the load is not an error").toBeNull();
    expect(ui.projection?.at, "the journal's end shows meanwhile").toBe(99);
    expect(ui.centre, "in the projection tab").toBe("projection");
    expect(ui.awaitingViews, "and says the request waits").toBe(true);

    fixture.loaded = true;
    onViewsLoading(loading("loaded"));
    await vi.waitFor(() => expect(ui.centre, "the request shows by itself").toBe("request"), { interval: 1 });
    expect(ui.request?.snapshot.requestOffset, "the selected request").toBe(99);
  });

  it("regression_a_view_answered_loading_just_before_the_load_ended_waited_forever", async () => {
    fixture.loaded = false;
    ui.error = null;
    await select(0);
    // The load ends (and says so) while the answer "loading" for event 60 is on its way.
    fixture.overtaken = () => {
      fixture.loaded = true;
      onViewsLoading(loading("loaded"));
    };
    await select(60);
    await vi.waitFor(() => expect(ui.projection?.at, "event 60 shows without another event").toBe(60), {
      interval: 1,
    });
    expect(ui.awaitingViews, "nothing waits").toBe(false);
  });

  it("says why when the load fails", async () => {
    onViewsLoading(loading("failed"));
    expect(ui.error, "a failed load is shown with its reason").toEqual({ code: "load-failed", message: "disk gone" });
    expect(ui.viewsLoading, "and the progress figure goes").toBeNull();
  });

  it("offers to load again after a failed load, and the waiting view shows once that load ends", async () => {
    fixture.loaded = false;
    ui.error = null;
    await select(40);
    expect(ui.awaitingViews, "event 40 waits for the load").toBe(true);
    onViewsLoading(loading("failed"));
    expect(ui.viewsFailed, "the centre can say why the wait ended").toBe("disk gone");

    const before = fixture.retries;
    await retryViewsLoad();
    expect(fixture.retries, "the backend is asked to load again").toBe(before + 1);
    expect(ui.viewsFailed, "the failure is no longer shown").toBeNull();
    expect(ui.error, "nor its banner").toBeNull();
    expect(ui.awaitingViews, "event 40 still waits, now for the new load").toBe(true);

    onViewsLoading(loading("loading"));
    fixture.loaded = true;
    onViewsLoading(loading("loaded"));
    await vi.waitFor(() => expect(ui.projection?.at, "event 40 shows by itself").toBe(40), { interval: 1 });
  });

  it("shows the waiting view at once when the journal was loaded by the time it is asked again", async () => {
    fixture.loaded = false;
    await select(30);
    onViewsLoading(loading("failed"));
    // Loaded meanwhile, by another open of the same journal.
    fixture.loaded = true;
    await retryViewsLoad();
    await vi.waitFor(() => expect(ui.projection?.at, "event 30 shows without another load").toBe(30), {
      interval: 1,
    });
    expect(ui.awaitingViews, "nothing waits").toBe(false);
  });
});
