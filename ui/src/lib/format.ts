// Text formatting for labels. Digit grouping is for the UI's own labels only: header lines and
// journal content are shown exactly as they are.

import type { ImportStatus } from "./types";

/** 12408 → "12,408". */
export function groupDigits(n: number): string {
  const sign = n < 0 ? "-" : "";
  const digits = String(Math.trunc(Math.abs(n)));
  return sign + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** An offset as a UI label: "@12,408", or "@?" for an event without one. */
export function offsetLabel(offset: number | null | undefined): string {
  return offset === null || offset === undefined ? "@?" : `@${groupDigits(offset)}`;
}

/**
 * The header line as a UI label: groups the digits of each `@N` so long offsets read easily.
 * Never used for the header itself, which is shown verbatim beside it.
 */
export function headerLabel(header: string): string {
  return header.replace(/@(\d{4,})/g, (_m, d: string) => `@${groupDigits(Number(d))}`);
}

/**
 * Splits a header into text and offset links, keeping every character verbatim. Only the
 * item's own `@N` (at the start) and `updates=@N` link: offsets inside `refs=[...]` belong to
 * other streams.
 */
export function headerParts(header: string): ({ text: string } | { offset: number; text: string })[] {
  const parts: ({ text: string } | { offset: number; text: string })[] = [];
  const re = /@(\d+)/g;
  let last = 0;
  for (let m = re.exec(header); m; m = re.exec(header)) {
    const own = m.index === 0 || header.slice(0, m.index).endsWith(" updates=");
    if (!own) continue;
    if (m.index > last) parts.push({ text: header.slice(last, m.index) });
    parts.push({ offset: Number(m[1]), text: m[0] });
    last = m.index + m[0].length;
  }
  if (last < header.length) parts.push({ text: header.slice(last) });
  return parts;
}

export function bytesLabel(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i += 1;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function percent(done: number, total: number): number {
  if (total <= 0) return 0;
  return Math.max(0, Math.min(100, Math.floor((done / total) * 100)));
}

/** Short time of day from an ISO timestamp, the date left to the tooltip. */
export function timeLabel(iso: string | null | undefined): string {
  if (!iso) return "";
  const m = /T(\d{2}:\d{2}:\d{2})/.exec(iso);
  return m ? m[1] : iso;
}

/** A one-line preview of content for a collapsed card. */
export function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** What the import overlay shows for a progress report: the bar's percentage and its words. */
export function importFigures(s: ImportStatus): { pct: number; text: string } {
  switch (s.stage) {
    case "storing":
      return {
        pct: percent(s.doneBytes, s.totalBytes),
        text: `storing ${bytesLabel(s.doneBytes)} of ${bytesLabel(s.totalBytes)} · ${groupDigits(s.events)} events`,
      };
    case "folding":
      return {
        pct: percent(s.analysed, s.events),
        text: `analysing: folding ${groupDigits(s.analysed)} of ${groupDigits(s.events)} events`,
      };
    case "saving":
      return { pct: 100, text: `analysing: saving marks and diagnostics of ${groupDigits(s.events)} events` };
  }
}

/** A usage object on one line, `inputTokens 14,210 · outputTokens 12`; nested objects by their
 * dotted path, anything not an object as JSON. */
export function usageLine(usage: unknown): string {
  if (usage === null || usage === undefined) return "";
  if (typeof usage !== "object" || Array.isArray(usage)) return JSON.stringify(usage);
  const parts: string[] = [];
  const walk = (prefix: string, value: unknown) => {
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) walk(prefix ? `${prefix}.${k}` : k, v);
    } else parts.push(`${prefix} ${typeof value === "number" ? groupDigits(value) : JSON.stringify(value)}`);
  };
  walk("", usage);
  return parts.join(" · ");
}
