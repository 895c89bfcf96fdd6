// Provider-role colouring: every item is tinted by the role the chosen transport gives it, and
// a downgrade (product role differs from provider role) is called out with its rule.

import type { ItemView, Transport } from "./types";

export const ROLES = ["system", "developer", "user", "assistant", "tool"] as const;
export type RoleName = (typeof ROLES)[number];

/** CSS class for a role tag; unknown roles share a neutral tint instead of breaking. */
export function roleClass(role: string | null | undefined): string {
  const r = (role ?? "").toLowerCase();
  return (ROLES as readonly string[]).includes(r) ? `role-${r}` : "role-other";
}

export interface ProviderTag {
  role: string;
  rule: string;
  downgraded: boolean;
  className: string;
  /** "developer ⇣ user" for a downgrade, the role alone otherwise. */
  label: string;
}

export function providerTag(item: Pick<ItemView, "role" | "providerRoles">, transport: Transport): ProviderTag {
  const pr = item.providerRoles?.[transport];
  const role = pr?.role ?? item.role;
  const rule = pr?.rule ?? "";
  const downgraded = role !== item.role;
  return {
    role,
    rule,
    downgraded,
    className: roleClass(role),
    label: downgraded ? `${item.role} ⇣ ${role}` : role,
  };
}

export function otherTransport(t: Transport): Transport {
  return t === "openai" ? "workers-ai" : "openai";
}

/** Badge kinds in the order the event list shows them. */
export const BADGE_ORDER = [
  "request",
  "compaction",
  "downgrade",
  "diagnostic",
  "error",
  "unpublished",
  "coalesced",
] as const;

export function badgeText(kind: string): string {
  switch (kind) {
    case "request":
      return "R";
    case "compaction":
      return "C";
    case "downgrade":
      return "⇣";
    case "diagnostic":
      return "!";
    case "error":
      return "✕";
    case "unpublished":
      return "○";
    case "coalesced":
      return "⟲";
    case "contract":
      return "§";
    case "accepted":
      return "✓";
    case "duplicate":
      return "=";
    case "stale":
      return "↶";
    case "foreign-session":
      return "⇄";
    case "malformed":
      return "✕";
    case "not-a-snapshot":
      return "·";
    case "run-start":
      return "▶";
    case "run-end":
    case "run-finished":
      return "■";
    case "state-delta":
      return "Δ";
    case "state-snapshot":
      return "◻";
    case "messages-snapshot":
      return "≡";
    case "patch-failed":
      return "✗";
    case "run-error":
      return "⚠";
    case "sidechain":
      return "⤷";
    case "subagent":
      return "⇠";
    case "session":
      return "◆";
    default:
      // A kind with no sign of its own shows its initial, whole in the badge's tooltip.
      return kind.slice(0, 1).toUpperCase();
  }
}

export function sortBadges(marks: string[]): string[] {
  const rank = (k: string) => {
    const i = (BADGE_ORDER as readonly string[]).indexOf(k);
    return i < 0 ? BADGE_ORDER.length : i;
  };
  return [...new Set(marks)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** The event's summary, unless it only repeats its type. */
export function summaryBeyondType(summary: string, type: string | null | undefined): string {
  const s = summary.trim();
  const t = shortType(type);
  if (s === t || s === type) return "";
  return s.startsWith(`${t} `) || s.startsWith(`${t}:`) ? s.slice(t.length + 1).trim() : s;
}

/** The last segment of a namespaced event type: `events.x.com/agent/context-added` → `context-added`. */
export function shortType(type: string | null | undefined): string {
  if (!type) return "?";
  const i = type.lastIndexOf("/");
  return i >= 0 ? type.slice(i + 1) : type;
}
