import { describe, expect, it } from "vitest";
import { actionFor, BINDINGS, isTypingTarget } from "./keys";

describe("keyboard stepping map", () => {
  it("j/k and arrows step one event", () => {
    expect(actionFor({ key: "j" }), "j is next event").toEqual({ kind: "step", target: "event", forward: true });
    expect(actionFor({ key: "ArrowDown" }), "down arrow is next event").toEqual({ kind: "step", target: "event", forward: true });
    expect(actionFor({ key: "k" }), "k is previous event").toEqual({ kind: "step", target: "event", forward: false });
    expect(actionFor({ key: "ArrowUp" }), "up arrow is previous event").toEqual({ kind: "step", target: "event", forward: false });
  });

  it("J is previous request and K is next request, as the issue spells it", () => {
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
    expect(actionFor({ key: "x" }), "x is unbound").toBeNull();
    expect(actionFor({ key: "j", altKey: true }), "Alt+j is left to the system").toBeNull();
    expect(actionFor({ key: "j", ctrlKey: true }), "Ctrl+j is not a step").toBeNull();
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
