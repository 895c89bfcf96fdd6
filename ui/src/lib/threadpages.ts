// The pages of an AG-UI step's messages the window holds: the step brings the first, the
// message list asks for the ones its rows need as it scrolls, and pages far from the rows on
// screen are let go, so a thread of any length costs the window a few pages.

import { pagesFor } from "./listwindow";
import type { ThreadStep } from "./types";

/** Messages in a page: the step's own window and every page read after it. */
export const MESSAGE_PAGE = 200;
/** Pages held at once; the farthest from the rows on screen go first. */
export const KEEP_PAGES = 8;

export interface ThreadPages {
  /** The offset of the step the pages belong to. */
  at: number;
  /** Messages in the thread after that step. */
  total: number;
  pages: Map<number, unknown[]>;
}

/** What a step brings: its messages as a page, when they are one whole page of the thread. */
export function pagesOfStep(step: ThreadStep): ThreadPages {
  const pages = new Map<number, unknown[]>();
  const start = step.messagesStart;
  const whole = Math.min(MESSAGE_PAGE, Math.max(0, step.messageCount - start));
  if (start % MESSAGE_PAGE === 0 && step.messages.length === whole && whole > 0) {
    pages.set(start / MESSAGE_PAGE, step.messages);
  }
  return { at: step.at, total: step.messageCount, pages };
}

/** The pages rows [first, first+count) need that are neither held nor being read. */
export function missingPages(held: ThreadPages, first: number, count: number, reading: ReadonlySet<number>): number[] {
  const end = Math.min(first + count, held.total);
  if (end <= first) return [];
  return pagesFor(first, end - first, MESSAGE_PAGE).filter((p) => !held.pages.has(p) && !reading.has(p));
}

/** The pages with `page` added, keeping the KEEP_PAGES nearest the page at `centre`. */
export function withPage(held: ThreadPages, page: number, messages: unknown[], centre: number): ThreadPages {
  const pages = new Map(held.pages);
  pages.set(page, messages);
  if (pages.size > KEEP_PAGES) {
    const far = [...pages.keys()].sort((a, b) => Math.abs(b - centre) - Math.abs(a - centre));
    for (const p of far.slice(0, pages.size - KEEP_PAGES)) pages.delete(p);
  }
  return { ...held, pages };
}

/** The message at position `i` of the thread, when its page is held. */
export function messageAt(held: ThreadPages, i: number): unknown | undefined {
  return held.pages.get(Math.floor(i / MESSAGE_PAGE))?.[i % MESSAGE_PAGE];
}
