// Follow mode for live journals: while following, the selection rides on the newest event;
// any navigation away stops it and "go to last" resumes it. Pure, so tests pin the rules.

import type { Action } from "./keys";

/** A click on an event row or the timeline counts as navigation, like a key. */
export type Navigation = Action | { kind: "click" };

/** Whether the window still follows after the user did `nav`. */
export function followAfter(following: boolean, nav: Navigation): boolean {
  switch (nav.kind) {
    case "last":
      return true;
    case "step":
    case "first":
    case "goto":
    case "click":
    case "hit":
    case "break":
    case "bookmarkStep":
      return false;
    default:
      return following;
  }
}

/**
 * The seq to select after the journal grew to `eventCount` events, or null to leave the
 * selection alone. `reset` means seqs started over (a new journal or generation).
 */
export function selectionAfterGrowth(
  following: boolean,
  selected: number | null,
  eventCount: number,
  reset: boolean,
): number | null {
  if (eventCount <= 0) return null;
  const last = eventCount - 1;
  if (following) return selected === last ? null : last;
  if (reset) return 0;
  if (selected === null) return 0;
  return selected > last ? last : null;
}

/** The title bar's rate, `42/s`; fractions only below ten so the label stays short. */
export function rateLabel(perSecond: number): string {
  if (!Number.isFinite(perSecond) || perSecond <= 0) return "0/s";
  return perSecond < 10 ? `${perSecond.toFixed(1)}/s` : `${Math.round(perSecond)}/s`;
}
