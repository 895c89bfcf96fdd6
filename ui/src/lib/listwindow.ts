// Virtual scrolling for lists far taller than a browser lets an element be: the scroll
// height is capped and scroll positions map proportionally onto row indices, so a million
// rows scroll as smoothly as a hundred and only the visible rows exist in the DOM.

/** Browsers clamp element heights (WebKit near 2^25 px); stay well below. */
export const MAX_SCROLL_PX = 8_000_000;

export interface ListWindow {
  /** Height of the scrolling spacer. */
  spacerPx: number;
  /** First row rendered. */
  first: number;
  /** Rows rendered (visible plus overscan), never past the end. */
  count: number;
  /** Top of the first rendered row, in spacer coordinates. */
  topPx: number;
}

export function listWindow(
  total: number,
  rowPx: number,
  viewPx: number,
  scrollTop: number,
  overscan = 4,
): ListWindow {
  if (total <= 0) return { spacerPx: 0, first: 0, count: 0, topPx: 0 };
  const natural = total * rowPx;
  const visible = Math.ceil(viewPx / rowPx) + 1;
  if (natural <= MAX_SCROLL_PX) {
    const firstVisible = Math.min(total - 1, Math.max(0, Math.floor(scrollTop / rowPx)));
    const first = Math.max(0, firstVisible - overscan);
    const end = Math.min(total, firstVisible + visible + overscan);
    return { spacerPx: natural, first, count: end - first, topPx: first * rowPx };
  }
  // Scaled: the scroll position picks the first row proportionally, and the rows are drawn
  // at the scroll position itself so they always sit in the viewport.
  const spacerPx = MAX_SCROLL_PX;
  const maxScroll = spacerPx - viewPx;
  const fraction = Math.min(1, Math.max(0, scrollTop / Math.max(1, maxScroll)));
  const lastFirst = Math.max(0, total - visible + 1);
  const first = Math.min(lastFirst, Math.round(fraction * lastFirst));
  const end = Math.min(total, first + visible);
  return { spacerPx, first, count: end - first, topPx: Math.max(0, Math.min(scrollTop, maxScroll)) };
}

/** The scrollTop that brings `row` into view (minimal movement), or null when it already is. */
export function scrollToRow(
  row: number,
  total: number,
  rowPx: number,
  viewPx: number,
  scrollTop: number,
): number | null {
  const natural = total * rowPx;
  if (natural <= MAX_SCROLL_PX) {
    const top = row * rowPx;
    if (top < scrollTop) return top;
    if (top + rowPx > scrollTop + viewPx) return top + rowPx - viewPx;
    return null;
  }
  const w = listWindow(total, rowPx, viewPx, scrollTop, 0);
  const visible = Math.ceil(viewPx / rowPx) + 1;
  if (row >= w.first && row < w.first + visible - 1) return null;
  const spacer = Math.min(natural, MAX_SCROLL_PX);
  const maxScroll = Math.max(1, spacer - viewPx);
  const firstWanted = Math.max(0, row - Math.floor(visible / 2));
  return Math.round((firstWanted / Math.max(1, total - visible + 1)) * maxScroll);
}

/** Page indices covering rows [first, first+count). */
export function pagesFor(first: number, count: number, pageSize: number): number[] {
  if (count <= 0) return [];
  const a = Math.floor(first / pageSize);
  const b = Math.floor((first + count - 1) / pageSize);
  const out: number[] = [];
  for (let p = a; p <= b; p++) out.push(p);
  return out;
}

/** A move of the cursor in a focused list, as the list's own keys ask for it. */
export type RowMove = "up" | "down" | "pageUp" | "pageDown" | "first" | "last";

/** The row a move lands on: clamped to the list, a page being the rows a screen shows. */
export function moveRow(cursor: number, total: number, move: RowMove, pageRows: number): number {
  if (total <= 0) return 0;
  const page = Math.max(1, pageRows);
  const to =
    move === "up" ? cursor - 1
    : move === "down" ? cursor + 1
    : move === "pageUp" ? cursor - page
    : move === "pageDown" ? cursor + page
    : move === "first" ? 0
    : total - 1;
  return Math.min(total - 1, Math.max(0, to));
}

/** The row a typed 1-based number names, clamped to the list; null when it names none. */
export function rowOfNumber(typed: string, total: number): number | null {
  const n = Number(typed.trim());
  if (total <= 0 || typed.trim() === "" || !Number.isInteger(n)) return null;
  return Math.min(total, Math.max(1, n)) - 1;
}
