import { describe, expect, it } from "vitest";
import { parseRange } from "./exportrange";

describe("export range", () => {
  it("reads empty fields as open ends", () => {
    expect(parseRange("", ""), "both empty: the whole journal").toEqual({ from: null, to: null });
    expect(parseRange("@8", ""), "an @ is allowed").toEqual({ from: 8, to: null });
  });
  it("refuses what is not an offset or an empty range", () => {
    expect(parseRange("x", "3"), "text is refused").toContain("not an offset");
    expect(parseRange("9", "3"), "from after to is refused").toContain("empty");
  });
});
