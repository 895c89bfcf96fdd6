import { describe, expect, it } from "vitest";
import { markColumns, seqAtX, xOfSeq } from "./timeline";

describe("timeline geometry", () => {
  const tl = { firstSeq: 0, lastSeq: 1000 };
  it("maps the ends of the journal to the ends of the bar", () => {
    expect(xOfSeq(tl, 0, 501), "first event at the left edge").toBe(0);
    expect(xOfSeq(tl, 1000, 501), "last event at the right edge").toBe(500);
  });
  it("round-trips seq through x and clamps outside the bar", () => {
    expect(seqAtX(tl, xOfSeq(tl, 400, 1001), 1001), "seq survives a round trip").toBe(400);
    expect(seqAtX(tl, -20, 1001), "left of the bar is the first event").toBe(0);
    expect(seqAtX(tl, 5000, 1001), "right of the bar is the last event").toBe(1000);
  });
  it("handles a one-event journal", () => {
    expect(seqAtX({ firstSeq: 3, lastSeq: 3 }, 10, 100), "only one event to pick").toBe(3);
  });
});

describe("marks drawn per pixel column", () => {
  it("regression_every_mark_was_drawn_on_every_step: one mark per kind and column", () => {
    const tl = { firstSeq: 0, lastSeq: 199_999 };
    const marks = Array.from({ length: 200_000 }, (_, seq) => ({ kind: seq % 2 ? "request" : "downgrade", seq }));
    const drawn = markColumns(tl, marks, new Set(["request", "compaction"]), 800);
    expect(drawn.length, "at most one request mark per column of an 800-pixel scrubber").toBeLessThanOrEqual(800);
    expect(drawn.length, "every column holding a request gets its mark").toBe(800);
    expect(drawn.every((m) => m.kind === "request"), "kinds not drawn are left out").toBe(true);
    const few = markColumns(tl, [{ kind: "compaction", seq: 0 }, { kind: "request", seq: 0 }], new Set(["request", "compaction"]), 800);
    expect(few, "two kinds in one column are both drawn").toEqual([
      { kind: "compaction", x: 0 },
      { kind: "request", x: 0 },
    ]);
  });
});
