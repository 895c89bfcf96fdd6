import { describe, expect, it } from "vitest";
import { requestTokenLine, thresholdLine } from "./tokens";
import type { CompactionTokens, Tokenizer } from "./types";

const exact: Tokenizer = { encoding: "o200k_base", exact: true, method: "o200k_base, the encoding of gpt-5.1", bias: null };
const estimate: Tokenizer = { ...exact, exact: false, bias: "falls short" };

describe("a request's tokens against its reported usage", () => {
  it("given a report within the tolerance, when worded, then it says how far apart and no more", () => {
    const line = requestTokenLine(578, exact, { counted: 578, reported: 581, difference: -3, tolerance: 32, within: true });
    expect(line, "count, method, report and distance").toBe("578 tokens (o200k_base, exact) · reported 581 · 3 fewer counted");
  });
  it("given a report beyond the tolerance, when worded, then the tolerance is named", () => {
    const line = requestTokenLine(325, exact, { counted: 325, reported: 1840, difference: -1515, tolerance: 36, within: false });
    expect(line, "the tolerance shows only when it is broken").toBe(
      "325 tokens (o200k_base, exact) · reported 1,840 · 1,515 fewer counted, beyond ±36",
    );
  });
  it("given no report, when worded, then the count stands alone and an estimate says so", () => {
    expect(requestTokenLine(1200, estimate, null), "no report, and the method marks the estimate").toBe(
      "1,200 tokens (o200k_base, an estimate) · no reported usage",
    );
  });
});

describe("a compaction's threshold", () => {
  const tokens: CompactionTokens = {
    tokenizer: exact,
    beforeCounted: 578,
    beforeReported: 578,
    maxContext: 640,
    triggerFraction: 0.8,
    threshold: 512,
    crossed: true,
    after: 300,
    summary: 88,
  };
  it("given a reported input past the threshold, then the line shows the crossing and what is left", () => {
    expect(thresholdLine(tokens), "reported ≥ threshold, the fraction and window, after and summary").toBe(
      "tokens: 578 reported ≥ threshold 512 (0.8 × 640) · 300 after · summary 88",
    );
  });
  it("given no report and no configured fraction, then the counted figure stands in", () => {
    const bare = { ...tokens, beforeReported: null, maxContext: null, triggerFraction: null, threshold: null, crossed: null };
    expect(thresholdLine(bare), "no threshold to name").toBe("tokens: 578 counted before · 300 after · summary 88");
  });
});
