import { describe, expect, it } from "vitest";
import { bytesLabel, groupDigits, headerLabel, headerParts, importFigures, offsetLabel, percent, usageLine } from "./format";

describe("digit grouping in UI labels", () => {
  it("groups thousands", () => {
    expect(groupDigits(0), "zero").toBe("0");
    expect(groupDigits(999), "below a thousand").toBe("999");
    expect(groupDigits(8114), "four digits").toBe("8,114");
    expect(groupDigits(1234567), "millions").toBe("1,234,567");
    expect(groupDigits(-15302), "negative").toBe("-15,302");
  });

  it("labels offsets and missing offsets", () => {
    expect(offsetLabel(12408), "offset label groups").toBe("@12,408");
    expect(offsetLabel(null), "an event without offset").toBe("@?");
  });

  it("groups offsets only in the label, leaving other numbers of the header alone", () => {
    const header = '@8114 key="github/review" updates=@8011 n=12345';
    expect(headerLabel(header), "the label groups @N only").toBe('@8,114 key="github/review" updates=@8,011 n=12345');
    expect(header, "the header itself is never rewritten").toBe('@8114 key="github/review" updates=@8011 n=12345');
  });

  it("splits a header into verbatim text and offset links", () => {
    const header = '@8114 key="a" updates=@8011';
    const parts = headerParts(header);
    expect(parts.map((p) => p.text).join(""), "joining the parts gives the exact header").toBe(header);
    expect(
      parts.filter((p) => "offset" in p).map((p) => ("offset" in p ? p.offset : -1)),
      "both offsets become links",
    ).toEqual([8114, 8011]);
    const withRefs = '@7 key="k" refs=["/integrations/github/install-789@244"] updates=@3';
    const linked = headerParts(withRefs).filter((p) => "offset" in p);
    expect(linked.map((p) => p.text), "offsets of other streams inside refs stay text").toEqual(["@7", "@3"]);
    expect(headerParts(withRefs).map((p) => p.text).join(""), "still verbatim").toBe(withRefs);
  });

  it("formats progress figures", () => {
    expect(bytesLabel(512), "bytes").toBe("512 B");
    expect(bytesLabel(5 * 1024 * 1024), "MiB").toBe("5.0 MiB");
    expect(percent(1, 3), "floors").toBe(33);
    expect(percent(5, 0), "unknown total").toBe(0);
  });
});

describe("import progress figures", () => {
  const base = { source: "x.jsonl", doneBytes: 1000, totalBytes: 1000, events: 200000, analysed: 0 };
  it("keep moving after the records are stored", () => {
    const stored = importFigures({ ...base, stage: "storing", doneBytes: 500 });
    expect(stored.pct, "storing follows the bytes").toBe(50);
    const folding = importFigures({ ...base, stage: "folding", analysed: 50000 });
    expect(folding.pct, "folding follows the events analysed, not the finished bytes").toBe(25);
    expect(folding.text, "the words name the stage and its figures").toBe("analysing: folding 50,000 of 200,000 events");
    expect(importFigures({ ...base, stage: "saving" }).text, "saving says so").toContain("saving");
  });
});

describe("usage on one line", () => {
  it("lists each count by its path, grouped, and says nothing for no usage", () => {
    expect(usageLine({ inputTokens: 14210, outputTokens: 12, details: { cached: 1536 } }), "flat and nested counts").toBe(
      "inputTokens 14,210 · outputTokens 12 · details.cached 1,536",
    );
    expect(usageLine(null), "no usage").toBe("");
    expect(usageLine("n/a"), "a usage that is not an object is shown as JSON").toBe('"n/a"');
  });
});
