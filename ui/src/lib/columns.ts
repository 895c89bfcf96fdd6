// The event list's column widths: the type and time columns can be dragged wider or narrower
// (or moved with the arrow keys on their handle), within bounds, and are kept across runs.

export interface Columns {
  type: number;
  time: number;
}

export const DEFAULT_COLUMNS: Columns = { type: 136, time: 62 };
const BOUNDS: Record<keyof Columns, [number, number]> = { type: [60, 420], time: [0, 200] };
const KEY = "journalscope.columns";

/** `width` for `column`, held within the column's bounds and rounded to a pixel. */
export function clampColumn(column: keyof Columns, width: number): number {
  const [lo, hi] = BOUNDS[column];
  return Math.round(Math.min(hi, Math.max(lo, Number.isFinite(width) ? width : DEFAULT_COLUMNS[column])));
}

/** Widths as kept, any missing or out of bounds one replaced by its default or its bound. */
export function parseColumns(kept: string | null): Columns {
  let raw: Partial<Record<keyof Columns, unknown>> = {};
  try {
    raw = kept ? (JSON.parse(kept) as typeof raw) : {};
  } catch {
    raw = {};
  }
  const pick = (c: keyof Columns) => (typeof raw[c] === "number" ? clampColumn(c, raw[c] as number) : DEFAULT_COLUMNS[c]);
  return { type: pick("type"), time: pick("time") };
}

export function loadColumns(): Columns {
  try {
    return parseColumns(localStorage.getItem(KEY));
  } catch {
    return { ...DEFAULT_COLUMNS };
  }
}

export function saveColumns(columns: Columns) {
  try {
    localStorage.setItem(KEY, JSON.stringify(columns));
  } catch {
    // Not kept: the widths hold until the window closes.
  }
}
