// The export dialog's offset range, read from what was typed.

import type { OffsetRange } from "./types";

/** Parses the dialog's offset fields: empty is an open end, `@12` and `12` are offsets. */
export function parseRange(from: string, to: string): OffsetRange | string {
  const one = (text: string): number | null | undefined => {
    const t = text.replace(/[@,\s_]/g, "");
    if (t === "") return null;
    const n = Number(t);
    return Number.isInteger(n) ? n : undefined;
  };
  const f = one(from);
  const t = one(to);
  if (f === undefined) return `not an offset: ${from}`;
  if (t === undefined) return `not an offset: ${to}`;
  if (f !== null && t !== null && f > t) return `the range is empty: @${f} is after @${t}`;
  return { from: f, to: t };
}
