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

/** The strip's height; the top `HITS_PX` hold search hits and bookmarks, then the density
 * histogram (`DENSITY_PX`), then one lane per kind the legend names, as in the HTML report. */
export const STRIP_PX = 36;
export const HITS_PX = 4;
export const DENSITY_PX = 10;

/** The mark kinds each legend lane draws. */
const LANE_KINDS: Record<string, string[]> = {
  request: ["request"],
  compaction: ["compaction"],
  diagnostic: ["diagnostic", "error"],
  run: ["run-start", "run-end"],
};

export interface Lane {
  /** The legend's name for it. */
  name: string;
  kinds: string[];
  y: number;
  h: number;
}

/** The lanes under the density, one per `legend` kind in its order, sharing what is left of
 * the strip; at least 3 px each. */
export function lanesFor(legend: readonly string[], height = STRIP_PX): Lane[] {
  const names = legend.filter((n) => n in LANE_KINDS);
  const top = HITS_PX + DENSITY_PX + 1;
  const h = names.length ? Math.max(3, Math.floor((height - top) / names.length)) : 0;
  return names.map((name, i) => ({ name, kinds: LANE_KINDS[name], y: top + i * h, h: Math.max(2, h - 1) }));
}

/** The lane `kind` is drawn in, if any. */
export function laneOf(lanes: Lane[], kind: string): Lane | undefined {
  return lanes.find((l) => l.kinds.includes(kind));
}

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

/** The span a brush from `x0` to `x1` picks out of `tl`, in order; none when it covers fewer
 * than `min` events (a click, not a brush). */
export function brushSpan(tl: Span, x0: number, x1: number, width: number, min = 3): Span | null {
  const a = seqAtX(tl, Math.min(x0, x1), width);
  const b = seqAtX(tl, Math.max(x0, x1), width);
  return b - a + 1 < min ? null : { firstSeq: a, lastSeq: b };
}
