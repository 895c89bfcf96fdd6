// The change line's wording for each view, given the views a step loads.
import { describe, expect, it } from "vitest";
import { snapshotChange, threadChange, projectionChange, transcriptChange, type ChangedEvent } from "./change";
import type { SnapshotAt, ThreadStep, ConversationView, RequestView } from "./types";
import { item, projection } from "./testing";

const event = (offset: number, diagnostics: ChangedEvent["diagnostics"] = []): ChangedEvent => ({ offset, type: null, diagnostics });

describe("iterate change line", () => {
  it("a keyed item that replaces an unpublished one names what it replaced, its key and the request that will send it", () => {
    // Given @17 replaced @7 in slot github/review-task, not yet published, and @21 is the next request
    const p = projection([item(7, { key: "other" }), item(17, { key: "github/review-task", updatesOffset: 7 })]);
    // When the change is read at @17
    const change = projectionChange(event(17), p, null, null, 21);
    // Then the line says it all, and only @17's card is touched
    expect(change.line, "the change line's documented example").toBe("@17 replaces @7 · key=github/review-task · unpublished · next sent by @21");
    expect(change.touched, "the replaced card is the one highlighted").toEqual([17]);
  });

  it("an unpublished slot replaced again says it was replaced in place", () => {
    const p = projection([item(18, { key: "github/review-task", updatesOffset: 7, coalesced: [17] })]);
    expect(projectionChange(event(18), p, null, null, 21).line, "the direct predecessor, in place").toBe(
      "@18 replaces @17 in place · key=github/review-task · unpublished · next sent by @21",
    );
  });

  it("a new item says which lane it joined, and published when it already was", () => {
    const p = projection([item(3, { role: "user", published: true })]);
    expect(projectionChange(event(3), p, null, null, null).line, "a new published user item").toBe("@3 adds a user item to history · published");
    expect(projectionChange(event(5), p, null, null, null).line, "an event that touches no item").toBe("@5 changes no item");
  });

  it("a request says how many items it sends and which it publishes first", () => {
    const request = {
      snapshot: { requestOffset: 21, transport: "openai", model: null, messages: [], items: [{}, {}, {}] },
      body: "",
      previousRequest: 8,
      newlyPublished: [13, 17, 20],
      earlierPublished: [1],
      unpublished: [],
      downgrades: [],
    } as unknown as RequestView;
    const change = projectionChange(event(21), projection([]), request, null, null);
    expect(change.line, "items sent and first published").toBe("@21 sends 3 items · publishes 3 items @13–@20");
    expect(change.touched, "the items it publishes first are highlighted").toEqual([13, 17, 20]);
  });

  it("given an agent-loop request, when its change is read, then it counts input items and speaks of no publication", () => {
    const request = {
      snapshot: { requestOffset: 11, transport: "openai", model: "gpt-5.1", messages: [], items: [{}, {}], responsesBody: { input: [] } },
      body: "",
      previousRequest: 4,
      newlyPublished: [],
      earlierPublished: [],
      unpublished: [],
      downgrades: [],
    } as unknown as RequestView;
    const change = projectionChange(event(11), projection([]), request, null, null);
    expect(change.line, "the loop sends its whole list").toBe("@11 sends 2 input items");
    expect(change.touched, "no card is first published by it").toEqual([]);
  });

  it("given an agent-loop item, when its change is read, then it joins the list, not the history lane", () => {
    const p = { ...projection([item(3, { role: "user", published: false })]), rules: "agent-loop" as const };
    expect(projectionChange(event(3), p, null, null, 4).line, "the loop's one list").toBe("@3 adds a user item to the list · unpublished · next sent by @4");
  });

  it("a diagnostic of the event closes the line", () => {
    const diag = { line: 9, severity: "warning" as const, code: "ungenuine-answer", message: "…" };
    expect(projectionChange(event(5, [diag]), projection([]), null, null, null).line, "the warning's code is named").toBe(
      "@5 changes no item · warning: ungenuine-answer",
    );
  });
});

describe("AG-UI change line", () => {
  const step = (over: Partial<ThreadStep>): ThreadStep =>
    ({ at: 22, event: null, kind: "STATE_DELTA", state: {}, messages: [], run: {}, steps: [], patch: null, changes: [], patchFailure: null, reconciliation: [], diagnostics: [], ...over }) as unknown as ThreadStep;

  it("names the one path a delta changed, and lists the paths to expand", () => {
    const change = threadChange(event(22), step({ changes: [{ path: "/todos/0/done", change: "replaced" }] }));
    expect(change.line, "one path, with how it changed").toBe("@22 STATE_DELTA · replaced /todos/0/done");
    expect(change.paths, "the changed path is expanded").toEqual(["/todos/0/done"]);
  });

  it("a failed patch says why; a snapshot of messages counts their fates", () => {
    expect(threadChange(event(23), step({ patchFailure: "test failed at /city" })).line, "the reason").toBe("@23 STATE_DELTA · patch failed: test failed at /city");
    const snapshot = step({
      kind: "MESSAGES_SNAPSHOT",
      reconciliation: [
        { messageId: "u1", role: "user", fate: "replaced" },
        { messageId: "a4", role: "assistant", fate: "appended" },
        { messageId: "u2", role: "user", fate: "replaced" },
      ],
    });
    expect(threadChange(event(33), snapshot).line, "fates counted in first-seen order").toBe("@33 MESSAGES_SNAPSHOT · 2 replaced, 1 appended");
    expect(threadChange(event(3), step({ kind: "TEXT_MESSAGE_START" })).line, "an event with no effect on state").toBe("@3 TEXT_MESSAGE_START · state unchanged");
  });
});

describe("AgentsKit change line", () => {
  const kit = (offset: number | null): SnapshotAt =>
    ({ at: 4, session: "s1", sequence: offset === null ? null : 2, status: offset === null ? null : "completed", messages: null, usage: null, lineage: null, turnId: offset === null ? null : "t2", offset, error: null }) as SnapshotAt;

  it("an accepted snapshot changes what the cursor holds; a rejected line leaves it", () => {
    expect(snapshotChange(event(4), kit(4)).line, "accepted here").toBe("@4 accepted: the cursor now holds turn t2 · sequence 2 · completed");
    const stale = { line: 5, severity: "warning" as const, code: "stale-sequence", message: "…" };
    expect(snapshotChange(event(5, [stale]), kit(4)).line, "rejected, the held one stays").toBe("@5 rejected (stale-sequence) · the snapshot from @4 stays");
    expect(snapshotChange(event(1), kit(null)).line, "nothing held yet").toBe("@1 not a snapshot the cursor takes · no snapshot held yet");
  });
});

describe("transcript change line", () => {
  const conversation = (offsets: [number, string][]): ConversationView => ({
    at: 9,
    systemKnown: false,
    system: [],
    history: offsets.map(([offset, role]) => ({ offset, uuid: null, role, content: [], timestamp: null, response: null })),
  });

  it("a line the model sees is added; a request counts the lines it sends; others are said to be unseen", () => {
    const c = conversation([[1, "user"], [2, "assistant"], [3, "user"]]);
    const none = new Set<string>();
    expect(transcriptChange(event(3), c, none).line, "a user line").toBe("@3 adds a user line");
    expect(transcriptChange(event(2), c, none).line, "an assistant line, with its article").toBe("@2 adds an assistant line");
    expect(transcriptChange(event(3), c, new Set(["request"])).line, "a request").toBe("@3 adds a user line · request of 3 lines");
    expect(transcriptChange(event(4), c, none).line, "a line outside the conversation").toBe("@4 not in the conversation the model sees");
    expect(transcriptChange(event(2), c, none).touched, "its card is touched").toEqual([2]);
    expect(transcriptChange(event(5), c, new Set(["compaction"])).line, "a compaction boundary says what it does").toBe(
      "@5 compacts the conversation: the requests after it send its summary, not the lines before",
    );
  });

  it("a request the client recorded is its record, not a line of the conversation", () => {
    const c = conversation([[1, "user"]]);
    const recorded: ChangedEvent = { offset: 18, type: "api-request", diagnostics: [] };
    expect(transcriptChange(recorded, c, new Set(["request"])).line).toBe("@18 the client's record of the request it sent");
  });
});
