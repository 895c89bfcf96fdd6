// How two projections differ: the delta view (only what changed since the previous event) and
// a compaction's before | after aligned row by row.

import type { ItemView, ProjectionView } from "./types";

/** One item that differs between the projection at the previous event and at this one. */
export interface DeltaItem {
  lane: "system" | "history";
  item: ItemView;
  /** added: new in the lanes; replaced: new, in place of an earlier item of its slot;
   * published: there before, published now; removed: gone (replaced, dropped or compacted). */
  change: "added" | "replaced" | "published" | "removed";
}

/** Only what changed from `before` to `after`, as Redux DevTools' Diff tab shows a store:
 * lanes in order, items in lane order, the removed ones after the rest of their lane. */
export function projectionDelta(before: ProjectionView, after: ProjectionView): DeltaItem[] {
  const out: DeltaItem[] = [];
  for (const lane of ["system", "history"] as const) {
    const was = new Map(before[lane].map((i) => [i.offset, i]));
    const now = new Set(after[lane].map((i) => i.offset));
    const elsewhere = new Set(before[lane === "system" ? "history" : "system"].map((i) => i.offset));
    for (const item of after[lane]) {
      const old = was.get(item.offset);
      if (!old && !elsewhere.has(item.offset))
        out.push({ lane, item, change: item.updatesOffset !== undefined || item.coalesced.length > 0 ? "replaced" : "added" });
      else if (old && !old.published && item.published) out.push({ lane, item, change: "published" });
    }
    for (const item of before[lane]) if (!now.has(item.offset)) out.push({ lane, item, change: "removed" });
  }
  return out;
}

/** One row of a compaction's before | after, aligned: the same item on both sides, or what
 * only one side has (a dropped item before, the summary after). */
export interface AlignedRow {
  lane: "system" | "history";
  before: ItemView | null;
  after: ItemView | null;
}

/**
 * Aligns a compaction's before and after row by row, lane by lane: items both sides hold
 * share a row; an item only the before holds has an empty after; an item only the after holds
 * (the summary, a replacement) is inserted where the first item it displaced was, or at the
 * lane's end.
 */
export function alignCompaction(before: ProjectionView, after: ProjectionView): AlignedRow[] {
  const rows: AlignedRow[] = [];
  for (const lane of ["system", "history"] as const) {
    const kept = new Set(after[lane].map((i) => i.offset));
    const was = new Set(before[lane].map((i) => i.offset));
    const fresh = after[lane].filter((i) => !was.has(i.offset));
    const afterByOffset = new Map(after[lane].map((i) => [i.offset, i]));
    let inserted = false;
    for (const item of before[lane]) {
      if (!inserted && !kept.has(item.offset) && fresh.length > 0) {
        for (const f of fresh) rows.push({ lane, before: null, after: f });
        inserted = true;
      }
      rows.push({ lane, before: item, after: afterByOffset.get(item.offset) ?? null });
    }
    if (!inserted) for (const f of fresh) rows.push({ lane, before: null, after: f });
  }
  return rows;
}
