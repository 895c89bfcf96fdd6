import { describe, expect, it } from "vitest";
import { brushSpan, DENSITY_BASE, DENSITY_PX, denseKinds, markColumns, markRow, seqAtX, xOfSeq } from "./timeline";

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

describe("a kind marked in most columns", () => {
  it("regression_dense_request_ticks_painted_a_solid_band_over_the_density", () => {
    const width = 800;
    const requests = Array.from({ length: 600 }, (_, x) => ({ kind: "request", x }));
    const compactions = Array.from({ length: 40 }, (_, i) => ({ kind: "compaction", x: i * 20 }));
    const dense = denseKinds([...requests, ...compactions], width);
    expect(dense.has("request"), "600 of 800 columns hold a request: too many for ticks").toBe(true);
    expect(dense.has("compaction"), "40 compactions stay ticks").toBe(false);
    const strip = markRow("request", true);
    const tick = markRow("request");
    expect(strip.h, "a dense kind is a thin strip").toBeLessThan(tick.h / 4);
    expect(
      strip.y + strip.h <= DENSITY_BASE - DENSITY_PX || strip.y >= DENSITY_BASE,
      "the strip keeps clear of the density bars",
    ).toBe(true);
  });
});

describe("zooming the scrubber", () => {
  it("a brush picks the seqs under it, in order, and a click is no brush", () => {
    const tl = { firstSeq: 100, lastSeq: 1099 };
    expect(brushSpan(tl, 600, 200, 1001), "dragged right to left").toEqual({ firstSeq: 300, lastSeq: 699 });
    expect(brushSpan(tl, 500, 501, 1001), "a pixel is a click").toBeNull();
  });
});
