import { describe, expect, it } from "vitest";
import { KEEP_PAGES, MESSAGE_PAGE, messageAt, missingPages, pagesOfStep, withPage } from "./threadpages";
import type { ThreadStep } from "./types";

/** A step of a thread of `total` messages carrying `count` of them from `start`. */
function step(total: number, start = 0, count = Math.min(MESSAGE_PAGE, total - start)): ThreadStep {
  const messages = Array.from({ length: count }, (_, k) => ({ id: `m${start + k}` }));
  return { at: 42, messageCount: total, messagesStart: start, messages } as unknown as ThreadStep;
}

describe("the pages of a step's messages", () => {
  it("given a step of a 25,000-message thread, when its pages are made, then its own page is held and none other", () => {
    const held = pagesOfStep(step(25_000));
    expect(held.total, "the thread's length comes from the step, not its page").toBe(25_000);
    expect([...held.pages.keys()], "only the step's page is held").toEqual([0]);
    expect(messageAt(held, 0), "the first message is at hand").toEqual({ id: "m0" });
    expect(messageAt(held, MESSAGE_PAGE), "a message of an unread page is not").toBeUndefined();
  });

  it("given a step whose messages are not one whole page, when its pages are made, then none is held", () => {
    expect(pagesOfStep(step(25_000, 0, 7)).pages.size, "a short page would leave holes read as the end").toBe(0);
    expect(pagesOfStep(step(25_000, 5)).pages.size, "a page off the boundary would shift every message").toBe(0);
    expect(pagesOfStep(step(0)).pages.size, "an empty thread holds no page").toBe(0);
  });

  it("given the rows on screen, when the pages to read are asked for, then they are the unheld, unread ones up to the end", () => {
    const held = pagesOfStep(step(25_000));
    expect(missingPages(held, 0, 30, new Set()), "the first rows are in the step's page").toEqual([]);
    expect(missingPages(held, 390, 30, new Set()), "rows across a boundary need both pages").toEqual([1, 2]);
    expect(missingPages(held, 390, 30, new Set([1])), "a page being read is not asked for twice").toEqual([2]);
    expect(missingPages(held, 24_990, 30, new Set()), "rows past the thread (dropped messages) need no page").toEqual([124]);
    expect(missingPages(held, 25_000, 10, new Set()), "rows wholly past the thread need nothing").toEqual([]);
  });

  it("given pages read while scrolling, when more than the kept number are held, then the farthest from the screen go", () => {
    let held = pagesOfStep(step(25_000));
    for (let p = 1; p <= KEEP_PAGES + 3; p++) held = withPage(held, p, [{ id: `p${p}` }], p);
    expect(held.pages.size, "no more pages than kept are held").toBe(KEEP_PAGES);
    expect(held.pages.has(KEEP_PAGES + 3), "the page on screen stays").toBe(true);
    expect(held.pages.has(0), "the page farthest from the screen went").toBe(false);
    expect(messageAt(held, (KEEP_PAGES + 3) * MESSAGE_PAGE), "a read page's first message is found by position").toEqual({ id: `p${KEEP_PAGES + 3}` });
  });
});
