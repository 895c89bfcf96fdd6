import { describe, expect, it } from "vitest";
import { breakKindFor, breakpointOf, errorLine, filterChips, hitCounter, nextSeq, offeredBreaks, textTable } from "./inquiry";

describe("stepping through hits", () => {
  const seqs = [2, 5, 9];
  it("n goes to the first hit past the selection, N to the last before it", () => {
    expect(nextSeq(seqs, 5, true), "past a hit").toBe(9);
    expect(nextSeq(seqs, 5, false), "before a hit").toBe(2);
    expect(nextSeq(seqs, 6, true), "from between hits").toBe(9);
    expect(nextSeq(seqs, 9, true), "no hit after the last").toBeNull();
    expect(nextSeq(seqs, 2, false), "no hit before the first").toBeNull();
    expect(nextSeq(seqs, null, true), "without a selection: the first").toBe(2);
  });

  it("the counter says which hit the selection is", () => {
    expect(hitCounter(seqs, 5), "second of three").toBe("2 / 3");
    expect(hitCounter(seqs, 6), "not a hit").toBe("– / 3");
    expect(hitCounter([], 6), "nothing found").toBe("no hits");
  });
});

describe("breakpoint selector", () => {
  it("builds the core's breakpoint, with the transport where it matters", () => {
    expect(breakpointOf("request", "", "openai")).toEqual({ kind: "request" });
    expect(breakpointOf("downgrade", "", "workers-ai"), "downgrade on the shown transport").toEqual({
      kind: "downgrade",
      transport: "workers-ai",
    });
    expect(breakpointOf("key", " github/review-task ", "openai"), "key trimmed").toEqual({
      kind: "key",
      key: "github/review-task",
    });
    expect(breakpointOf("sql", "  ", "openai"), "an empty predicate is no breakpoint").toBeNull();
  });
});

describe("console text table", () => {
  it("aligns columns and counts rows", () => {
    const text = textTable({ columns: ["seq", "type"], rows: [[1, "a"], [12, null]], truncated: false });
    expect(text, "aligned with NULL for null").toBe("seq | type\n----+-----\n1   | a\n12  | NULL\n(2 rows)");
  });
});

describe("console errors", () => {
  it("console_error_refused_is_not_said_twice", () => {
    const refused = { code: "refused", message: "refused: the console only reads (DELETE is not a query)" };
    expect(errorLine(refused), "a message that names its code is shown as it is").toBe(refused.message);
    expect(errorLine({ code: "sql", message: "no such table: x" }), "other messages get their code").toBe(
      "sql: no such table: x",
    );
  });
});

describe("breakpoints a dialect offers", () => {
  const transcript = ["request", "compaction", "diagnostic", "sql"];
  const agui = ["diagnostic", "sql"];

  it("lists only what the dialect answers, in menu order", () => {
    expect(offeredBreaks(agui).map((b) => b.kind), "an AG-UI journal has no requests, keys or transports").toEqual(["diagnostic", "sql"]);
    expect(offeredBreaks(transcript).map((b) => b.kind), "a transcript has requests and compactions, no keys").toEqual(transcript);
  });

  it("keeps the chosen breakpoint when the next journal offers it, else takes its first", () => {
    expect(breakKindFor("compaction", transcript), "still offered").toBe("compaction");
    expect(breakKindFor("request", agui), "an AG-UI journal starts on its first").toBe("diagnostic");
    expect(breakKindFor("key", []), "a dialect offering none leaves the choice").toBe("key");
  });
});

describe("filter chips", () => {
  const none = { types: "", role: "", lane: "", published: "", actor: "", key: "" };
  it("names each filter set, in the popover's order, and nothing when none is", () => {
    expect(filterChips(none), "no filter, no chip").toEqual([]);
    expect(
      filterChips({ ...none, types: "events.iterate.com/agent/input-item-added", role: "user", published: "no", key: " k1 " }).map((c) => c.label),
      "the type by its last segment, then role, publication and key, trimmed",
    ).toEqual(["type input-item-added", "role user", "unpublished at the end", "key k1"]);
  });
});
