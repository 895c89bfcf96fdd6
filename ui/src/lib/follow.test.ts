import { describe, expect, it } from "vitest";
import { followAfter, rateLabel, selectionAfterGrowth } from "./follow";
import { actionFor } from "./keys";

describe("followAfter", () => {
  it("given following, when the user steps, jumps to the first event, goes to an offset or clicks, then following stops", () => {
    for (const nav of [
      { kind: "step", target: "event", forward: true },
      { kind: "first" },
      { kind: "goto" },
      { kind: "click" },
    ] as const) {
      expect(followAfter(true, nav), `${nav.kind} is navigation away from the newest event`).toBe(false);
    }
  });

  it("given following, when the user jumps to a search hit, a breakpoint hit or a bookmark, then following stops", () => {
    for (const key of ["n", "N", "F8", "F7", "u", "U"]) {
      expect(followAfter(true, actionFor({ key })!), `${key} navigates away from the newest event`).toBe(false);
    }
  });

  it("given not following, when the user goes to the last event (G), then following resumes", () => {
    expect(followAfter(false, actionFor({ key: "G" })!), "G resumes following").toBe(true);
    expect(followAfter(false, actionFor({ key: "End" })!), "End is the same action as G").toBe(true);
  });

  it("given either state, when the user does something that is not navigation, then the state is kept", () => {
    for (const key of ["?", "t", "/", "=", "o", "Escape"]) {
      const action = actionFor({ key })!;
      expect(followAfter(true, action), `${key} keeps following`).toBe(true);
      expect(followAfter(false, action), `${key} does not start following`).toBe(false);
    }
  });
});

describe("selectionAfterGrowth", () => {
  it("given following, when events land, then the newest is selected", () => {
    expect(selectionAfterGrowth(true, 9, 12, false), "the selection rides on the newest event").toBe(11);
  });

  it("given following and already on the newest, when nothing new landed, then nothing is reselected", () => {
    expect(selectionAfterGrowth(true, 11, 12, false), "no needless reload of the detail").toBeNull();
  });

  it("given not following, when events land, then the selection stays where the user left it", () => {
    expect(selectionAfterGrowth(false, 3, 50, false), "stepping away is respected").toBeNull();
  });

  it("given not following, when seqs start over (truncation), then the first event is selected", () => {
    expect(selectionAfterGrowth(false, 40, 5, true), "the old seq means nothing in the new generation").toBe(0);
  });

  it("given a selection past the end, when the journal shrank, then the last event is selected", () => {
    expect(selectionAfterGrowth(false, 40, 5, false), "never point past the end").toBe(4);
  });

  it("given an empty journal, when asked, then nothing is selected", () => {
    expect(selectionAfterGrowth(true, null, 0, true), "an empty store has nothing to select").toBeNull();
  });
});

describe("rateLabel", () => {
  it("given rates, when labelled, then small rates keep one decimal and large ones are whole", () => {
    expect(rateLabel(0), "idle").toBe("0/s");
    expect(rateLabel(2.5), "slow").toBe("2.5/s");
    expect(rateLabel(42.4), "fast").toBe("42/s");
  });
});
