// Context-size plot geometry, in tokens: one stacked bar per request (protocol, time and the
// chat format's framing, system lane, compaction summary, history), a tick at the input the
// journal reports for it, a dashed line where compactions happened since the previous request,
// a triangle over a request that breaks the prefix. Pure, so tests pin it down.

import type { ContextSizes } from "./types";

export type Lane = "frame" | "system" | "summary" | "history";

export const LANES: { lane: Lane; label: string }[] = [
  { lane: "frame", label: "protocol, time and framing" },
  { lane: "system", label: "system lane" },
  { lane: "summary", label: "compaction summary" },
  { lane: "history", label: "history" },
];

export interface Segment {
  lane: Lane;
  y: number;
  height: number;
}

export interface Bar {
  offset: number;
  x: number;
  width: number;
  top: number;
  segments: Segment[];
  /** Where the reported input reaches, when the journal reports one. */
  reportedY: number | null;
  compaction: boolean;
  prefixBreak: boolean;
  title: string;
}

export interface Geometry {
  width: number;
  height: number;
  left: number;
  top: number;
  plotHeight: number;
  max: number;
  bars: Bar[];
}

function tokensOf(s: ContextSizes, lane: Lane): number {
  switch (lane) {
    case "frame":
      return s.frameTokens + s.framingTokens;
    case "system":
      return s.systemTokens;
    case "summary":
      return s.summaryTokens;
    case "history":
      return s.historyTokens;
  }
}

export function barTitle(s: ContextSizes): string {
  let t =
    `@${s.requestOffset} · ${s.messages} messages · ${s.totalTokens} tokens${s.tokenizer.exact ? "" : " (estimate)"}` +
    ` · system ${s.systemTokens} · history ${s.historyTokens} · summary ${s.summaryTokens}` +
    ` · protocol and time ${s.frameTokens} · framing ${s.framingTokens} · ${s.totalBytes} B`;
  if (s.reportedInput !== null) t += ` · reported ${s.reportedInput}`;
  if (s.compactionsBefore > 0) t += ` · ${s.compactionsBefore} compaction(s) before it`;
  if (s.prefixBreak)
    t += ` · prefix break: does not start with @${s.previousRequest}'s messages (first change at message ${s.firstChangedMessage}, ${s.commonPrefixBytes} common bytes)`;
  return t;
}

/** Lays bars out across `width`; bars never get thinner than one pixel. */
export function layout(sizes: ContextSizes[], width: number, height: number): Geometry {
  const left = 56;
  const top = 16;
  const bottom = 22;
  const plotWidth = Math.max(1, width - left - 8);
  const plotHeight = Math.max(1, height - top - bottom);
  const max = Math.max(1, ...sizes.map((s) => Math.max(s.totalTokens, s.reportedInput ?? 0)));
  const slot = plotWidth / Math.max(1, sizes.length);
  const barWidth = Math.max(1, Math.min(48, slot * 0.7));
  const bars = sizes.map((s, i) => {
    const x = left + slot * i + (slot - barWidth) / 2;
    let y = top + plotHeight;
    const segments: Segment[] = [];
    for (const { lane } of LANES) {
      const tokens = tokensOf(s, lane);
      if (tokens <= 0) continue;
      const h = (plotHeight * tokens) / max;
      y -= h;
      segments.push({ lane, y, height: h });
    }
    return {
      offset: s.requestOffset,
      x,
      width: barWidth,
      top: y,
      segments,
      reportedY: s.reportedInput === null ? null : top + plotHeight - (plotHeight * s.reportedInput) / max,
      compaction: s.compactionsBefore > 0,
      prefixBreak: s.prefixBreak,
      title: barTitle(s),
    };
  });
  return { width, height, left, top, plotHeight, max, bars };
}

/** Which bars get an offset label: at most about one per 40 px. */
export function labelled(geometry: Geometry): Set<number> {
  const every = Math.max(1, Math.ceil(geometry.bars.length / Math.max(1, (geometry.width - geometry.left) / 40)));
  return new Set(geometry.bars.filter((_, i) => i % every === 0).map((b) => b.offset));
}
