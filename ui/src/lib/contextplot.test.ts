import { describe, expect, it } from "vitest";
import { labelled, layout } from "./contextplot";
import type { ContextSizes } from "./types";

function sizes(offset: number, system: number, history: number, summary = 0, extra: Partial<ContextSizes> = {}): ContextSizes {
  const frame = 10;
  const framing = 6;
  const total = frame + system + history + summary;
  return {
    requestOffset: offset,
    model: "m",
    messages: 3,
    frameBytes: frame * 4,
    systemBytes: system * 4,
    historyBytes: history * 4,
    summaryBytes: summary * 4,
    totalBytes: total * 4,
    frameTokens: frame - framing,
    systemTokens: system,
    historyTokens: history,
    summaryTokens: summary,
    framingTokens: framing,
    totalTokens: total,
    tokenizer: { encoding: "o200k_base", exact: true, method: "o200k_base", bias: null },
    reportedInput: null,
    reportedCached: null,
    maxContext: null,
    commonPrefixTokens: 0,
    compactionsBefore: 0,
    previousRequest: null,
    commonPrefixBytes: 0,
    prefixBreak: false,
    firstChangedMessage: null,
    ...extra,
  };
}

describe("context plot layout", () => {
  it("draws one bar per request, the tallest filling the plot", () => {
    const g = layout([sizes(8, 40, 50), sizes(21, 40, 150)], 400, 200);
    expect(g.bars.map((b) => b.offset), "one bar per request, in order").toEqual([8, 21]);
    const tallest = g.bars[1];
    expect(tallest.top, "the largest request reaches the top of the plot").toBeCloseTo(g.top);
    const stacked = tallest.segments.reduce((sum, s) => sum + s.height, 0);
    expect(stacked, "segments stack to the full plot height").toBeCloseTo(g.plotHeight);
  });
  it("stacks lanes bottom-up and leaves out empty ones", () => {
    const g = layout([sizes(3, 20, 30, 0)], 300, 200);
    expect(g.bars[0].segments.map((s) => s.lane), "no summary segment without a summary").toEqual(["frame", "system", "history"]);
    const ys = g.bars[0].segments.map((s) => s.y);
    expect([...ys].sort((a, b) => b - a), "each lane sits above the one before").toEqual(ys);
  });
  it("marks compactions and prefix breaks and says so in the title", () => {
    const g = layout([sizes(29, 40, 10, 30, { compactionsBefore: 1, prefixBreak: true, previousRequest: 21, firstChangedMessage: 2 })], 300, 200);
    expect(g.bars[0].compaction, "a compaction before the request is marked").toBe(true);
    expect(g.bars[0].prefixBreak, "a prefix break is marked").toBe(true);
    expect(g.bars[0].title, "the title explains the break").toContain("prefix break");
  });
  it("draws the reported input over the counted bar, on the same scale", () => {
    const g = layout([sizes(8, 40, 50, 0, { reportedInput: 200 })], 300, 200);
    expect(g.max, "the scale reaches the reported input when it is the larger").toBe(200);
    expect(g.bars[0].reportedY, "the reported input reaches the top").toBeCloseTo(g.top);
    const stacked = g.bars[0].segments.reduce((sum, s) => sum + s.height, 0);
    expect(stacked, "the counted 100 tokens fill half the plot").toBeCloseTo(g.plotHeight / 2);
    expect(layout([sizes(8, 40, 50)], 300, 200).bars[0].reportedY, "no report, no tick").toBeNull();
  });
  it("keeps bars at least a pixel wide and labels a bounded number", () => {
    const many = Array.from({ length: 2000 }, (_, i) => sizes(i, 1, 1));
    const g = layout(many, 500, 200);
    expect(Math.min(...g.bars.map((b) => b.width)), "bars never vanish").toBeGreaterThanOrEqual(1);
    expect(labelled(g).size, "labels stay readable").toBeLessThanOrEqual(12);
  });
});
