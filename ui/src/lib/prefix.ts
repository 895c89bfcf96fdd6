// Pure helpers of the diff view and the prefix chart: bar geometry, cause labels and the
// offsets a cause links to, and eliding long unchanged text. No Svelte, so tests pin them down.

import type { BreakCause, CacheReport } from "./types";

export interface PrefixBar {
  offset: number;
  x: number;
  width: number;
  /** Heights from the baseline, in chart units. */
  body: number;
  reused: number;
  lost: number;
  /** The cached input the journal reports, when it does: a tick across the bar. */
  cached: number | null;
  broken: boolean;
  expected: boolean;
  explanation: string;
}

/** One bar per request, in tokens: its body, the prefix reused from the request before, the
 * tokens a break lost, and a tick at the cached input the journal reports. */
export function prefixBars(report: CacheReport, width: number, height: number): PrefixBar[] {
  const n = report.requests.length;
  if (n === 0) return [];
  const max = Math.max(1, ...report.requests.map((r) => Math.max(r.tokens, r.reportedCached ?? 0)));
  const slot = width / n;
  const gap = slot > 6 ? Math.min(6, slot * 0.25) : 0;
  const scale = (tokens: number) => (tokens / max) * height;
  return report.requests.map((r, i) => ({
    offset: r.requestOffset,
    x: i * slot + gap / 2,
    width: Math.max(1, slot - gap),
    body: scale(r.tokens),
    reused: scale(r.reusedPrefixTokens),
    lost: scale(r.lostTokens),
    cached: r.reportedCached === null ? null : scale(r.reportedCached),
    broken: r.prefixBreak !== null,
    expected: r.prefixBreak?.expected ?? true,
    explanation: `${tokenFigures(r.tokens, r.reusedPrefixTokens, r.lostTokens, r.reportedCached)} · ${
      r.prefixBreak?.explanation ??
      (r.previousRequest === null ? "first request: nothing to reuse" : "no break: extends the request before")
    }`,
  }));
}

const count = (value: number) => value.toLocaleString("en-US");

/** "578 tokens, 320 reused, 40 lost, 300 reported cached". */
export function tokenFigures(tokens: number, reused: number, lost: number, cached: number | null): string {
  const parts = [`${count(tokens)} tokens`, `${count(reused)} reused`];
  if (lost > 0) parts.push(`${count(lost)} lost`);
  if (cached !== null) parts.push(`${count(cached)} reported cached`);
  return parts.join(", ");
}

export function causeKindLabel(cause: BreakCause): string {
  switch (cause.kind) {
    case "compaction":
      return "compaction";
    case "system-lane-update":
      return "system-lane update";
    case "keyed-slot-republished":
      return "keyed slot republished";
    case "model-change":
      return "model change";
    case "transport-change":
      return "transport change";
    case "context-rewritten":
      return "context rewritten";
    case "section-superseded":
      return "section superseded";
    case "unexpected":
      return "unexpected";
  }
}

/** The journal offsets a cause names, as link labels: where to jump to see it. */
export function causeLinks(cause: BreakCause): { label: string; offset: number }[] {
  switch (cause.kind) {
    case "compaction":
      return [
        { label: `compaction @${cause.offset}`, offset: cause.offset },
        { label: `cutoff @${cause.cutoff}`, offset: cause.cutoff },
      ];
    case "system-lane-update":
      return [{ label: `item @${cause.offset}`, offset: cause.offset }];
    case "keyed-slot-republished":
      return [
        { label: `item @${cause.offset}`, offset: cause.offset },
        { label: `updates=@${cause.updates}`, offset: cause.updates },
      ];
    case "context-rewritten":
      return [{ label: `rewrite @${cause.offset}`, offset: cause.offset }];
    case "section-superseded":
      return [
        { label: `section @${cause.offset}`, offset: cause.offset },
        { label: `supersedes @${cause.supersedes}`, offset: cause.supersedes },
      ];
    default:
      return [];
  }
}

/** Keeps `keep` characters at the ends that touch a change; the rest is elided. */
export function elide(text: string, keepStart: boolean, keepEnd: boolean, keep = 160): string {
  const chars = Array.from(text);
  if (chars.length <= keep * 2) return text;
  const head = keepStart ? chars.slice(0, keep).join("") : "";
  const tail = keepEnd ? chars.slice(chars.length - keep).join("") : "";
  return `${head}…${tail}`;
}

export function bytesLabel(n: number): string {
  if (n < 10_000) return `${n} B`;
  if (n < 10_000_000) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1048576).toFixed(1)} MiB`;
}
