import { describe, expect, it } from "vitest";
import { changeAt, changedWithin, childrenOf, scalarText } from "./jsontree";

describe("JSON tree paths", () => {
  it("gives children JSON Pointer paths with escaping", () => {
    const kids = childrenOf({ "a/b": 1, "t~": [true] }, "");
    expect(kids.map((k) => k.path), "slash and tilde are escaped").toEqual(["/a~1b", "/t~0"]);
    expect(childrenOf([5, 6], "/xs").map((k) => k.path), "array indices").toEqual(["/xs/0", "/xs/1"]);
    expect(childrenOf(3, "/n"), "scalars have no children").toEqual([]);
  });

  it("finds changes at and under a path", () => {
    const changes = [{ path: "/user/name", change: "replaced" as const }];
    expect(changeAt("/user/name", changes), "exact path").toBe("replaced");
    expect(changeAt("/user", changes), "ancestor is not itself changed").toBeNull();
    expect(changedWithin("/user", changes), "but contains a change").toBe(true);
    expect(changedWithin("/us", changes), "a prefix that is not a segment does not count").toBe(false);
    expect(changedWithin("", changes), "the root contains every change").toBe(true);
  });

  it("shows scalars as JSON", () => {
    expect(scalarText("1"), "strings are quoted").toBe('"1"');
    expect(scalarText(1)).toBe("1");
    expect(scalarText(null)).toBe("null");
  });
});
