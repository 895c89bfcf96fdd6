import { describe, expect, it } from "vitest";
import { listWindow, MAX_SCROLL_PX, pagesFor, scrollToRow } from "./listwindow";

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
