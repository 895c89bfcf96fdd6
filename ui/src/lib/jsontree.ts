// JSON tree helpers for the AG-UI state view: children with their JSON Pointer paths, and
// whether a node or one of its descendants changed in the selected step.

export interface Child {
  key: string;
  path: string;
  value: unknown;
}

/** RFC 6901 escaping of one pointer segment. */
export function escapeSegment(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

export function childrenOf(value: unknown, path: string): Child[] {
  if (Array.isArray(value)) return value.map((v, i) => ({ key: String(i), path: `${path}/${i}`, value: v }));
  if (value !== null && typeof value === "object")
    return Object.entries(value as Record<string, unknown>).map(([k, v]) => ({
      key: k,
      path: `${path}/${escapeSegment(k)}`,
      value: v,
    }));
  return [];
}

export function isContainer(value: unknown): boolean {
  return value !== null && typeof value === "object";
}

export type Change = "added" | "replaced" | "removed";

/** The change at exactly this path, if any. */
export function changeAt(path: string, changes: { path: string; change: Change }[]): Change | null {
  return changes.find((c) => c.path === path)?.change ?? null;
}

/** True when a change sits at or under this path (so collapsed ancestors can show a dot). */
export function changedWithin(path: string, changes: { path: string }[]): boolean {
  return changes.some((c) => c.path === path || c.path.startsWith(`${path}/`) || (path === "" && c.path !== ""));
}

/** A scalar as JSON text: strings quoted, so "1" and 1 never look alike. */
export function scalarText(value: unknown): string {
  return value === undefined ? "undefined" : JSON.stringify(value);
}
