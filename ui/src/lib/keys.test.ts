import { describe, expect, it } from "vitest";
import { actionFor, BINDINGS, bindingsFor, isTypingTarget, rowMoveFor } from "./keys";
import type { Controls } from "./types";

describe("keyboard stepping map", () => {
  it("j/k and arrows step one event", () => {
    expect(actionFor({ key: "j" }), "j is next event").toEqual({ kind: "step", target: "event", forward: true });
    expect(actionFor({ key: "ArrowDown" }), "down arrow is next event").toEqual({ kind: "step", target: "event", forward: true });
    expect(actionFor({ key: "k" }), "k is previous event").toEqual({ kind: "step", target: "event", forward: false });
    expect(actionFor({ key: "ArrowUp" }), "up arrow is previous event").toEqual({ kind: "step", target: "event", forward: false });
  });

  it("J is previous request and K is next request, as the key map spells it", () => {
    expect(actionFor({ key: "J" }), "J goes back a request").toEqual({ kind: "step", target: "request", forward: false });
    expect(actionFor({ key: "K" }), "K goes forward a request").toEqual({ kind: "step", target: "request", forward: true });
  });

  it("c/C and e/E step compactions and diagnostics, lower case forward", () => {
    expect(actionFor({ key: "c" })).toEqual({ kind: "step", target: "compaction", forward: true });
    expect(actionFor({ key: "C" })).toEqual({ kind: "step", target: "compaction", forward: false });
    expect(actionFor({ key: "e" })).toEqual({ kind: "step", target: "diagnostic", forward: true });
    expect(actionFor({ key: "E" })).toEqual({ kind: "step", target: "diagnostic", forward: false });
  });

  it("g/G go to the ends and Ctrl+G asks for an offset", () => {
    expect(actionFor({ key: "g" }), "g is first").toEqual({ kind: "first" });
    expect(actionFor({ key: "G" }), "G is last").toEqual({ kind: "last" });
    expect(actionFor({ key: "g", ctrlKey: true }), "Ctrl+G is go-to, not first").toEqual({ kind: "goto" });
    expect(actionFor({ key: "?" }), "? toggles the help").toEqual({ kind: "help" });
  });

  it("unbound keys and Alt chords do nothing", () => {
    expect(actionFor({ key: "q" }), "q is unbound").toBeNull();
    expect(actionFor({ key: "j", altKey: true }), "Alt+j is left to the system").toBeNull();
    expect(actionFor({ key: "j", ctrlKey: true }), "Ctrl+j is not a step").toBeNull();
  });

  it("x shows the context-size plot and X exports", () => {
    expect(actionFor({ key: "x" }), "x toggles the plot").toEqual({ kind: "plot" });
    expect(actionFor({ key: "X" }), "X opens the export dialog").toEqual({ kind: "export" });
  });

  it("every binding in the help names at least one key", () => {
    for (const b of BINDINGS) expect(b.keys.length, `binding ${b.label} shows its keys`).toBeGreaterThan(0);
  });

  it("text fields keep their keys", () => {
    expect(isTypingTarget({ tagName: "INPUT" } as unknown as EventTarget), "input").toBe(true);
    expect(isTypingTarget({ tagName: "DIV" } as unknown as EventTarget), "div").toBe(false);
    expect(isTypingTarget(null), "no target").toBe(false);
  });
});

describe("diff key", () => {
  it("d opens the diff of the selected request and is listed in the help", () => {
    expect(actionFor({ key: "d" }), "d is the diff view").toEqual({ kind: "diff" });
    expect(BINDINGS.some((b) => b.keys === "d"), "the help overlay lists d").toBe(true);
  });
});

describe("search, breakpoint and bookmark keys", () => {
  it("n/N step hits, F8/F7 run breakpoints, m u/U bookmark, s and b open the drawer", () => {
    expect(actionFor({ key: "n" }), "n is next hit").toEqual({ kind: "hit", forward: true });
    expect(actionFor({ key: "N" }), "N is previous hit").toEqual({ kind: "hit", forward: false });
    expect(actionFor({ key: "F8" }), "F8 runs forward").toEqual({ kind: "break", forward: true });
    expect(actionFor({ key: "F7" }), "F7 runs backward").toEqual({ kind: "break", forward: false });
    expect(actionFor({ key: "m" }), "m bookmarks").toEqual({ kind: "bookmark" });
    expect(actionFor({ key: "u" }), "u is next bookmark").toEqual({ kind: "bookmarkStep", forward: true });
    expect(actionFor({ key: "U" }), "U is previous bookmark").toEqual({ kind: "bookmarkStep", forward: false });
    expect(actionFor({ key: "s" }), "s toggles the console").toEqual({ kind: "console" });
    expect(actionFor({ key: "b" }), "b toggles the bookmark list").toEqual({ kind: "bookmarkList" });
    expect(actionFor({ key: "q" }), "an unbound key does nothing").toBeNull();
  });

  it("the help lists the new keys", () => {
    const keys = BINDINGS.map((b) => b.keys);
    for (const k of ["n / N", "F8 / F7", "m", "u / U", "s", "b"]) expect(keys, `help lists ${k}`).toContain(k);
  });
});

describe("keys follow the journal's controls", () => {
  const iterate: Controls = {
    itemFilters: true,
    breakpoints: ["request", "compaction", "diagnostic", "sql"],
    legend: ["request", "compaction", "diagnostic"],
    steps: ["request", "compaction"],
    transports: true,
    sizes: true,
    views: ["projection", "requests", "compactions", "item-filters"],
    families: ["projection", "request", "diff", "cache", "sizes", "state", "compaction"],
  };
  const agui: Controls = { itemFilters: false, breakpoints: ["diagnostic", "sql"], legend: ["run", "diagnostic"], steps: ["run"], transports: false, sizes: false, views: ["thread"], families: ["state", "turns"] };
  const kit: Controls = { itemFilters: false, breakpoints: ["diagnostic", "sql"], legend: ["diagnostic"], steps: [], transports: false, sizes: false, views: ["snapshots"], families: ["state", "turns"] };

  it("J/K step by the dialect's first unit: requests for iterate, runs for AG-UI, nothing for AgentsKit", () => {
    expect(actionFor({ key: "K" }, iterate), "iterate K is the next request").toEqual({ kind: "step", target: "request", forward: true });
    expect(actionFor({ key: "J" }, agui), "AG-UI J is the previous run").toEqual({ kind: "step", target: "run", forward: false });
    expect(actionFor({ key: "K" }, kit), "AgentsKit has no unit for K").toBeNull();
  });

  it("c/C, t, x and d answer only where the dialect has compactions, transports and requests", () => {
    expect(actionFor({ key: "c" }, iterate), "iterate compacts").toEqual({ kind: "step", target: "compaction", forward: true });
    expect(actionFor({ key: "t" }, iterate), "iterate renders per transport").toEqual({ kind: "transport" });
    for (const key of ["c", "C", "t", "x", "d"]) {
      expect(actionFor({ key }, agui), `AG-UI ignores ${key}`).toBeNull();
      expect(actionFor({ key }, kit), `AgentsKit ignores ${key}`).toBeNull();
    }
  });

  it("a journal whose requests render one way has the size plot but no transport switch", () => {
    const loop: Controls = { ...iterate, transports: false };
    expect(actionFor({ key: "x" }, loop), "x shows the sizes of its requests").toEqual({ kind: "plot" });
    expect(actionFor({ key: "t" }, loop), "t has no other transport to switch to").toBeNull();
    expect(bindingsFor(loop).map((b) => b.keys), "the help does not list t").not.toContain("t");
  });

  it("the help lists exactly the keys that run, naming the unit J/K step by", () => {
    const help = (c: Controls) => bindingsFor(c).map((b) => `${b.keys}: ${b.label}`);
    expect(help(iterate), "iterate lists requests, compactions and transports").toEqual(
      expect.arrayContaining(["J / K: previous / next request", "c / C: next / previous compaction", "t: switch transport (openai / workers-ai)"]),
    );
    expect(help(agui), "AG-UI lists J/K by run").toContain("J / K: previous / next run");
    for (const c of [agui, kit]) {
      const keys = bindingsFor(c).map((b) => b.keys);
      for (const k of ["c / C", "t", "x", "d"]) expect(keys, `${k} is not listed where it does nothing`).not.toContain(k);
    }
    expect(bindingsFor(kit).map((b) => b.keys), "AgentsKit has no J/K").not.toContain("J / K");
    for (const c of [iterate, agui, kit]) {
      for (const b of bindingsFor(c)) {
        const key = b.keys.split(" ")[0];
        if (key.length === 1) expect(actionFor({ key }, c), `${key} runs where the help lists it`).not.toBeNull();
      }
    }
  });
});

describe("keys in a focused list of rows", () => {
  it("given a focused message list, when arrows, pages and ends are pressed, then each moves the list's cursor", () => {
    expect(rowMoveFor({ key: "ArrowDown" }), "down arrow is the next row").toBe("down");
    expect(rowMoveFor({ key: "ArrowUp" }), "up arrow is the previous row").toBe("up");
    expect(rowMoveFor({ key: "PageDown" }), "Page Down is a screen on").toBe("pageDown");
    expect(rowMoveFor({ key: "PageUp" }), "Page Up is a screen back").toBe("pageUp");
    expect(rowMoveFor({ key: "Home" }), "Home is the first row").toBe("first");
    expect(rowMoveFor({ key: "End" }), "End is the last row").toBe("last");
  });

  it("given a focused list, when a key the list does not own is pressed, then the window's binding still runs", () => {
    for (const key of ["j", "k", "J", "K", "e", "g", "G", "/"]) {
      expect(rowMoveFor({ key }), `${key} is left to the window`).toBeNull();
    }
    expect(rowMoveFor({ key: "ArrowDown", ctrlKey: true }), "a modified arrow is left to the window").toBeNull();
  });

  it("given an AG-UI journal, when the help is listed, then it names the list keys, and not for other dialects", () => {
    const agui: Controls = { itemFilters: false, breakpoints: ["diagnostic", "sql"], legend: ["run", "diagnostic"], steps: ["run"], transports: false, sizes: false, views: ["thread"], families: ["state", "turns"] };
    const kit: Controls = { itemFilters: false, breakpoints: ["diagnostic", "sql"], legend: ["diagnostic"], steps: [], transports: false, sizes: false, views: ["snapshots"], families: ["state", "turns"] };
    const listed = (c: Controls) => bindingsFor(c).some((b) => b.label.includes("message or diagnostic list"));
    expect(listed(agui), "AG-UI's help says how to move through a step's lists").toBe(true);
    expect(listed(kit), "AgentsKit has no such lists, so its help does not list the keys").toBe(false);
  });
});
