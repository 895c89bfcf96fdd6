// The delta view and the aligned compaction, given two projections.
import { describe, expect, it } from "vitest";
import { alignCompaction, projectionDelta } from "./projectiondiff";
import { item, projection } from "./testing";

describe("the delta view", () => {
  it("lists only what is new, newly published or gone since the previous event", () => {
    // Given @7 unpublished in its slot, then @17 replacing it and @3 published by a request
    const before = projection([item(3), item(7, { key: "k" })], [item(4, { role: "system", published: true })]);
    const after = projection([item(3, { published: true }), item(17, { key: "k", coalesced: [7] })], [item(4, { role: "system", published: true })]);
    // When the delta is taken
    const delta = projectionDelta(before, after).map((d) => `${d.lane} @${d.item.offset} ${d.change}`);
    // Then the unchanged system item is left out, and each change is named once
    expect(delta, "published, replaced, removed; nothing else").toEqual(["history @3 published", "history @17 replaced", "history @7 removed"]);
    expect(projectionDelta(after, after), "no change, no delta").toEqual([]);
  });
});

describe("a compaction's before | after, row by row", () => {
  it("keeps shared items on one row, leaves dropped ones alone on theirs, and puts the summary where they were", () => {
    // Given @3 and @5 dropped, @22 kept, and the summary @25 in their place
    const before = projection([item(3), item(5), item(22)], [item(4, { role: "system" })]);
    const after = projection([item(25, { compaction: {} }), item(22)], [item(4, { role: "system" })]);
    // When aligned
    const rows = alignCompaction(before, after).map((r) => `${r.lane} ${r.before?.offset ?? "-"}|${r.after?.offset ?? "-"}`);
    // Then the summary comes first in history, before the dropped rows, and @22 shares a row
    expect(rows, "aligned rows").toEqual(["system 4|4", "history -|25", "history 3|-", "history 5|-", "history 22|22"]);
  });

  it("an item only the after holds, with nothing dropped, goes at its lane's end", () => {
    const rows = alignCompaction(projection([item(3)]), projection([item(3), item(9)])).map((r) => `${r.before?.offset ?? "-"}|${r.after?.offset ?? "-"}`);
    expect(rows, "appended at the end").toEqual(["3|3", "-|9"]);
  });
});
