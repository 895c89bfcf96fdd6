// Pure helpers behind search, breakpoints and the SQL console: which hit comes next, how the
// breakpoint selector's choice becomes a core `Breakpoint`, and a console result as a text table.

import type { Breakpoint, ConsoleResult, Transport } from "./types";

/** The next (or previous) seq in the sorted `seqs` strictly past `from`; none from the ends. */
export function nextSeq(seqs: number[], from: number | null, forward: boolean): number | null {
  if (forward) {
    for (const s of seqs) if (from === null || s > from) return s;
  } else {
    for (let i = seqs.length - 1; i >= 0; i--) if (from === null || seqs[i] < from) return seqs[i];
  }
  return null;
}

/** "3 / 7" when the selection is the third hit, "– / 7" when it is none of them. */
export function hitCounter(seqs: number[], selected: number | null): string {
  if (seqs.length === 0) return "no hits";
  const i = selected === null ? -1 : seqs.indexOf(selected);
  return `${i < 0 ? "–" : i + 1} / ${seqs.length}`;
}

export type BreakKind = "request" | "compaction" | "downgrade" | "key" | "diagnostic" | "prefix-shrinks" | "sql";

export const BREAK_KINDS: { kind: BreakKind; label: string; needs?: string }[] = [
  { kind: "request", label: "next request" },
  { kind: "compaction", label: "next compaction" },
  { kind: "downgrade", label: "next downgrade (this transport)" },
  { kind: "key", label: "key K changes", needs: "key" },
  { kind: "diagnostic", label: "next diagnostic" },
  { kind: "prefix-shrinks", label: "cache prefix shrinks" },
  { kind: "sql", label: "SQL predicate over events", needs: "predicate" },
];

/** The breakpoints a journal's dialect offers (its `controls.breakpoints`), in menu order. */
export function offeredBreaks(offered: readonly string[]): typeof BREAK_KINDS {
  return BREAK_KINDS.filter((b) => offered.includes(b.kind));
}

/** The breakpoint to keep selected when a journal opens: the one chosen, if its dialect offers
 * it, else the dialect's first. */
export function breakKindFor(chosen: BreakKind, offered: readonly string[]): BreakKind {
  const menu = offeredBreaks(offered);
  return menu.some((b) => b.kind === chosen) ? chosen : (menu[0]?.kind ?? chosen);
}

/** The core breakpoint for a selector choice; null while a needed argument is empty. */
export function breakpointOf(kind: BreakKind, argument: string, transport: Transport): Breakpoint | null {
  const arg = argument.trim();
  switch (kind) {
    case "request":
      return { kind: "request" };
    case "compaction":
      return { kind: "compaction" };
    case "diagnostic":
      return { kind: "diagnostic" };
    case "downgrade":
      return { kind: "downgrade", transport };
    case "prefix-shrinks":
      return { kind: "prefix-shrinks", transport };
    case "key":
      return arg === "" ? null : { kind: "key", key: arg };
    case "sql":
      return arg === "" ? null : { kind: "sql", predicate: arg };
  }
}

function cellText(v: unknown): string {
  if (v === null || v === undefined) return "NULL";
  const s = typeof v === "string" ? v : JSON.stringify(v);
  const one = s.replace(/\n/g, "⏎");
  return one.length > 80 ? `${one.slice(0, 79)}…` : one;
}

/** A console result as aligned plain text: header, rule, rows, and a row count. */
/** One line for a console error: its code, unless the message already starts with it. */
export function errorLine(error: { code: string; message: string }): string {
  return error.message.startsWith(`${error.code}:`) ? error.message : `${error.code}: ${error.message}`;
}

export function textTable(result: ConsoleResult): string {
  const rows = result.rows.map((r) => r.map(cellText));
  const widths = result.columns.map((c, i) => Math.max(c.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join(" | ").trimEnd();
  const out = [line(result.columns), widths.map((w) => "-".repeat(w)).join("-+-"), ...rows.map(line)];
  const n = rows.length;
  out.push(`(${n} row${n === 1 ? "" : "s"}${result.truncated ? ", truncated" : ""})`);
  return out.join("\n");
}

/** The console's views, as the drawer's one-line reminder. */
export const VIEW_HELP = "events · requests · compactions · diagnostics · marks · bookmarks · items (projection)";

/** The search filters a chip can show and clear. */
export type FilterField = "types" | "role" | "lane" | "published" | "actor" | "key";

/** The filters set, as the command bar's chips name them, in the popover's order. */
export function filterChips(f: Record<FilterField, string>): { field: FilterField; label: string }[] {
  const published: Record<string, string> = { yes: "published by the end", no: "unpublished at the end" };
  const chips: { field: FilterField; label: string }[] = [];
  const types = f.types.trim();
  if (types !== "") chips.push({ field: "types", label: `type ${types.split("/").pop()}` });
  for (const field of ["role", "lane"] as const) if (f[field].trim() !== "") chips.push({ field, label: `${field} ${f[field].trim()}` });
  if (f.published !== "") chips.push({ field: "published", label: published[f.published] ?? f.published });
  for (const field of ["actor", "key"] as const) if (f[field].trim() !== "") chips.push({ field, label: `${field} ${f[field].trim()}` });
  return chips;
}
