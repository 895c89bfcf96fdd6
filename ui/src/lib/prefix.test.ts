import { describe, expect, it } from "vitest";
import { causeLinks, elide, prefixBars } from "./prefix";
import type { CacheEntry, CacheReport, PrefixBreak } from "./types";

function entry(offset: number, previous: number | null, body: number, reused: number, lost: number, broke: PrefixBreak | null = null): CacheEntry {
  return {
    requestOffset: offset,
    previousRequest: previous,
    model: "m",
    bodyBytes: body,
    messages: 3,
    reusedPrefixBytes: reused,
    commonPrefixMessages: 2,
    idealPrefixBytes: reused + lost,
    lostBytes: lost,
    resentBytes: body - reused,
    prefixBreak: broke,
    tokens: body / 4,
    reusedPrefixTokens: reused / 4,
    idealPrefixTokens: (reused + lost) / 4,
    lostTokens: lost / 4,
    reportedCached: null,
  };
}

const broke: PrefixBreak = {
  atMessage: 2,
  earlierItem: 3,
  laterItem: 9,
  lostBytes: 50,
  causes: [{ kind: "compaction", offset: 9, cutoff: 5, removed: [3, 5] }],
  expected: true,
  explanation: "compaction @9 replaced history ≤ @5 (2 item(s) removed)",
};

const report: CacheReport = {
  transport: "openai",
  requests: [entry(4, null, 100, 0, 0), entry(11, 4, 200, 50, 50, broke)],
  totalBodyBytes: 300,
  totalReusedBytes: 50,
  totalIdealBytes: 100,
  totalLostBytes: 50,
  breaks: 1,
  unexpectedBreaks: 0,
  totalTokens: 75,
  totalReusedTokens: 12.5,
  totalLostTokens: 12.5,
};

describe("prefix chart bars", () => {
  it("scales every bar in tokens to the largest body and stacks reused and lost tokens", () => {
    const bars = prefixBars(report, 200, 100);
    expect(bars.map((b) => b.offset), "one bar per request, in order").toEqual([4, 11]);
    expect(bars[1].body, "the largest body fills the height").toBe(100);
    expect(bars[1].reused, "12.5 of 50 tokens reused is a quarter").toBe(25);
    expect(bars[1].lost, "12.5 tokens lost is a quarter").toBe(25);
    expect(bars[1].cached, "no reported cached input, no tick").toBeNull();
    expect(bars[1].broken && bars[1].expected, "the break is marked and expected").toBe(true);
    expect(bars[0].explanation, "the first request explains itself").toMatch(/first request/);
    expect(bars[1].explanation, "the figures lead the explanation").toMatch(/^50 tokens, 12\.5 reused, 12\.5 lost · compaction @9/);
    expect(bars[1].x, "bars sit side by side").toBeGreaterThan(bars[0].x + bars[0].width - 1);
  });

  it("ticks the cached input the journal reports, and scales to it when it is the largest", () => {
    const cached = { ...report, requests: [{ ...report.requests[1], reportedCached: 100 }] };
    const [bar] = prefixBars(cached, 200, 100);
    expect(bar.cached, "the report is the tallest figure").toBe(100);
    expect(bar.body, "50 tokens against a 100-token report").toBe(50);
    expect(bar.explanation).toContain("100 reported cached");
  });

  it("draws nothing for a journal without requests", () => {
    expect(prefixBars({ ...report, requests: [] }, 200, 100)).toEqual([]);
  });
});

describe("cause links", () => {
  it("a compaction links its summary and its cutoff; a republished slot its updates=", () => {
    expect(causeLinks(broke.causes[0]).map((l) => l.offset), "summary then cutoff").toEqual([9, 5]);
    expect(
      causeLinks({ kind: "keyed-slot-republished", offset: 19, key: "agent/system-prompt", updates: 4, lane: "system" }).map((l) => l.label),
      "the new occurrence and the one it updates",
    ).toEqual(["item @19", "updates=@4"]);
    expect(causeLinks({ kind: "model-change", from: "a", to: "b" }), "a model change names no offset").toEqual([]);
  });
});

describe("elide", () => {
  it("keeps the ends that touch a change and elides the middle", () => {
    const text = "a".repeat(500);
    expect(elide(text, true, false, 10), "keeps the start").toBe(`${"a".repeat(10)}…`);
    expect(elide(text, false, true, 10), "keeps the end").toBe(`…${"a".repeat(10)}`);
    expect(elide("short", true, true, 10), "short text stays whole").toBe("short");
  });
});
