// Timeline geometry: seq ↔ x across the scrubber, and where each kind of mark is drawn.

import type { Timeline } from "./types";

export interface Span {
  firstSeq: number;
  lastSeq: number;
}

/** The seqs the scrubber spans: the whole journal (0 to eventCount - 1, no gaps), or the part
 * it is zoomed into. */
export function spanOf(tl: Pick<Timeline, "firstSeq" | "lastSeq">): Span {
  return { firstSeq: tl.firstSeq, lastSeq: Math.max(tl.firstSeq, tl.lastSeq) };
}

export function xOfSeq(tl: Span, seq: number, width: number): number {
  const span = tl.lastSeq - tl.firstSeq;
  if (span <= 0) return width / 2;
  return ((seq - tl.firstSeq) / span) * (width - 1);
}

export function seqAtX(tl: Span, x: number, width: number): number {
  const span = tl.lastSeq - tl.firstSeq;
  if (span <= 0 || width <= 1) return tl.firstSeq;
  const f = Math.min(1, Math.max(0, x / (width - 1)));
  return tl.firstSeq + Math.round(f * span);
}

/**
 * Requests stand tall, compactions taller, diagnostics sit as dots under the density. A kind
 * marked in most columns (a request every few events across a large journal) would paint one
 * solid band over the density: it is drawn as a thin strip at the edge instead.
 */
export function markRow(kind: string, dense = false): { y: number; h: number; w: number } {
  if (dense && kind === "compaction") return { y: 0, h: 3, w: 1 };
  if (dense && kind === "request") return { y: 23, h: 3, w: 1 };
  switch (kind) {
    case "compaction":
      return { y: 1, h: 24, w: 3 };
    case "request":
      return { y: 6, h: 19, w: 1 };
    case "run-start":
    case "run-end":
      return { y: 0, h: 26, w: 1 };
    default:
      return { y: 30, h: 5, w: 2 };
  }
}

/** The strip's height, and the baseline the density bars stand on (at most `DENSITY_PX` tall). */
export const STRIP_PX = 36;
export const DENSITY_BASE = 22;
export const DENSITY_PX = 16;
/** Where the AG-UI run bars sit, between the density and the diagnostics. */
export const RUN_BAR_Y = 25;

/**
 * The marks to draw, one per kind and pixel column: a large journal has far more marks than the
 * scrubber has pixels, and drawing each of them made every step of a 200,000-event journal
 * slow. `kinds` lists the kinds drawn; the others are left out.
 */
export function markColumns(
  tl: Span,
  marks: { kind: string; seq: number }[],
  kinds: ReadonlySet<string>,
  width: number,
): { kind: string; x: number }[] {
  const seen = new Set<string>();
  const out: { kind: string; x: number }[] = [];
  for (const m of marks) {
    if (!kinds.has(m.kind)) continue;
    const x = Math.round(xOfSeq(tl, m.seq, width));
    const key = `${m.kind}:${x}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ kind: m.kind, x });
  }
  return out;
}

/** Kinds marked in more than a quarter of the scrubber's columns: too many for ticks. */
export function denseKinds(columns: { kind: string }[], width: number): Set<string> {
  const counts = new Map<string, number>();
  for (const c of columns) counts.set(c.kind, (counts.get(c.kind) ?? 0) + 1);
  return new Set([...counts].filter(([, n]) => n > width / 4).map(([kind]) => kind));
}

/** The span a brush from `x0` to `x1` picks out of `tl`, in order; none when it covers fewer
 * than `min` events (a click, not a brush). */
export function brushSpan(tl: Span, x0: number, x1: number, width: number, min = 3): Span | null {
  const a = seqAtX(tl, Math.min(x0, x1), width);
  const b = seqAtX(tl, Math.max(x0, x1), width);
  return b - a + 1 < min ? null : { firstSeq: a, lastSeq: b };
}
