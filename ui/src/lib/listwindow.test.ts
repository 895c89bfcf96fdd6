import { describe, expect, it } from "vitest";
import { listWindow, MAX_SCROLL_PX, moveRow, pagesFor, rowOfNumber, scrollToRow } from "./listwindow";

describe("virtual list window", () => {
  it("renders only the visible rows plus overscan for a short list", () => {
    const w = listWindow(100, 20, 200, 400, 4);
    expect(w.spacerPx, "natural height").toBe(2000);
    expect(w.first, "first rendered row includes overscan above").toBe(16);
    expect(w.count, "visible (11) + overscan (4+4)").toBe(19);
    expect(w.topPx, "rows sit where they belong").toBe(320);
  });

  it("caps the spacer for a million rows and still reaches both ends", () => {
    const total = 1_000_000;
    const top = listWindow(total, 20, 600, 0);
    expect(top.spacerPx, "spacer is capped").toBe(MAX_SCROLL_PX);
    expect(top.first, "scrolled to the top shows row 0").toBe(0);
    const bottom = listWindow(total, 20, 600, MAX_SCROLL_PX - 600);
    expect(bottom.first + bottom.count, "scrolled to the bottom shows the last row").toBe(total);
    expect(bottom.count, "only a screenful is rendered").toBeLessThan(40);
  });

  it("scrolls the selection into view only when needed", () => {
    expect(scrollToRow(5, 100, 20, 200, 0), "already visible").toBeNull();
    expect(scrollToRow(50, 100, 20, 200, 0), "below: bottom-aligned").toBe(820);
    expect(scrollToRow(2, 100, 20, 200, 400), "above: top-aligned").toBe(40);
    const total = 1_000_000;
    const s = scrollToRow(500_000, total, 20, 600, 0);
    expect(s, "scaled lists move too").not.toBeNull();
    const w = listWindow(total, 20, 600, s ?? 0);
    expect(500_000 >= w.first && 500_000 < w.first + w.count, "the row is rendered afterwards").toBe(true);
  });

  it("lists the pages that cover a window", () => {
    expect(pagesFor(190, 30, 100), "spans two pages").toEqual([1, 2]);
    expect(pagesFor(0, 0, 100), "nothing to fetch").toEqual([]);
  });
});

describe("a cursor in a windowed list of rows", () => {
  it("given a list of 25,000 messages, when the cursor moves by row, page and end, then it stays on the list", () => {
    const total = 25_000;
    expect(moveRow(0, total, "down", 13), "down goes to the next row").toBe(1);
    expect(moveRow(0, total, "up", 13), "up from the first row stays on it").toBe(0);
    expect(moveRow(100, total, "pageDown", 13), "a page down moves a screenful").toBe(113);
    expect(moveRow(5, total, "pageUp", 13), "a page up near the top stops at the first row").toBe(0);
    expect(moveRow(7, total, "last", 13), "End reaches the last message").toBe(total - 1);
    expect(moveRow(total - 1, total, "down", 13), "down from the last row stays on it").toBe(total - 1);
    expect(moveRow(total - 1, total, "first", 13), "Home reaches the first message").toBe(0);
  });

  it("given an empty list or a one-row screen, when the cursor moves, then it lands on a row that exists", () => {
    expect(moveRow(3, 0, "down", 10), "an empty list has its cursor at 0").toBe(0);
    expect(moveRow(4, 10, "pageDown", 0), "a page is at least one row").toBe(5);
  });

  it("given a typed number, when it is read as a row, then it names that 1-based row, clamped, or none", () => {
    expect(rowOfNumber("1", 25_000), "1 is the first row").toBe(0);
    expect(rowOfNumber(" 12500 ", 25_000), "spaces around the number are ignored").toBe(12_499);
    expect(rowOfNumber("99999", 25_000), "past the end is the last row").toBe(24_999);
    expect(rowOfNumber("0", 25_000), "before the start is the first row").toBe(0);
    expect(rowOfNumber("", 25_000), "nothing typed jumps nowhere").toBeNull();
    expect(rowOfNumber("2.5", 25_000), "a fraction names no row").toBeNull();
    expect(rowOfNumber("abc", 25_000), "text names no row").toBeNull();
    expect(rowOfNumber("3", 0), "an empty list has no row to jump to").toBeNull();
  });

  it("given 25,000 rows in a 14-row viewport, when the cursor jumps anywhere, then the DOM holds a bounded window that contains it", () => {
    const total = 25_000;
    const rowPx = 22;
    const viewPx = 14 * rowPx;
    for (const row of [0, 1, 12_345, total - 1]) {
      const top = scrollToRow(row, total, rowPx, viewPx, 0) ?? 0;
      const w = listWindow(total, rowPx, viewPx, top);
      expect(w.count, `rows drawn for row ${row} stay a screenful plus overscan`).toBeLessThanOrEqual(14 + 1 + 8);
      expect(row >= w.first && row < w.first + w.count, `row ${row} is among the rows drawn`).toBe(true);
    }
  });
});
