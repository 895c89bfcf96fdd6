import { describe, expect, it } from "vitest";
import { brushSpan, DENSITY_PX, HITS_PX, laneOf, lanesFor, markColumns, seqAtX, STRIP_PX, xOfSeq } from "./timeline";

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

describe("the timeline's lanes", () => {
  it("regression_dense_request_ticks_painted_a_solid_band_over_the_density: each kind has a lane of its own, clear of the histogram", () => {
    const lanes = lanesFor(["request", "compaction", "diagnostic"]);
    expect(lanes.map((l) => l.name), "one lane per legend kind, in its order").toEqual(["request", "compaction", "diagnostic"]);
    let below = HITS_PX + DENSITY_PX;
    for (const lane of lanes) {
      expect(lane.y, `${lane.name} starts below what is above it`).toBeGreaterThanOrEqual(below);
      expect(lane.h, `${lane.name} is tall enough to see`).toBeGreaterThanOrEqual(2);
      below = lane.y + lane.h;
    }
    expect(below, "the lanes fit in the strip").toBeLessThanOrEqual(STRIP_PX);
  });
  it("an AG-UI journal's run lane draws run starts and ends; a name with no marks gets no lane", () => {
    const lanes = lanesFor(["run", "diagnostic", "bookmark"]);
    expect(laneOf(lanes, "run-start")?.name, "run starts go in the run lane").toBe("run");
    expect(laneOf(lanes, "error")?.name, "errors go in the diagnostic lane").toBe("diagnostic");
    expect(lanes.length, "no lane for a name that marks nothing").toBe(2);
  });
});

describe("zooming the scrubber", () => {
  it("a brush picks the seqs under it, in order, and a click is no brush", () => {
    const tl = { firstSeq: 100, lastSeq: 1099 };
    expect(brushSpan(tl, 600, 200, 1001), "dragged right to left").toEqual({ firstSeq: 300, lastSeq: 699 });
    expect(brushSpan(tl, 500, 501, 1001), "a pixel is a click").toBeNull();
  });
});
