// The keyboard map: one pure function from a key press to an action, so the bindings the help
// overlay lists are the bindings that run, and tests pin them down.

import type { StepTarget } from "./types";

export type Action =
  | { kind: "step"; target: StepTarget; forward: boolean }
  | { kind: "first" }
  | { kind: "last" }
  | { kind: "goto" }
  | { kind: "help" }
  | { kind: "filter" }
  | { kind: "transport" }
  | { kind: "open" }
  | { kind: "connect" }
  | { kind: "pause" }
  | { kind: "escape" };

export interface KeyPress {
  key: string;
  ctrlKey?: boolean;
  metaKey?: boolean;
  altKey?: boolean;
}

const step = (target: StepTarget, forward: boolean): Action => ({ kind: "step", target, forward });

/** The bindings in the order the help overlay shows them. */
export const BINDINGS: { keys: string; label: string }[] = [
  { keys: "j / ↓", label: "next event" },
  { keys: "k / ↑", label: "previous event" },
  { keys: "J / K", label: "previous / next request" },
  { keys: "c / C", label: "next / previous compaction" },
  { keys: "e / E", label: "next / previous diagnostic" },
  { keys: "g / G", label: "first / last event (G follows a live journal)" },
  { keys: "Ctrl+G", label: "go to offset" },
  { keys: "t", label: "switch transport (openai / workers-ai)" },
  { keys: "/", label: "filter events by text" },
  { keys: "Ctrl+O", label: "open a journal" },
  { keys: "o", label: "connect to a stream" },
  { keys: "=", label: "pause / resume live ingestion" },
  { keys: "?", label: "show or hide these keys" },
  { keys: "Esc", label: "close the overlay" },
];

export function actionFor(press: KeyPress): Action | null {
  const { key } = press;
  if (press.ctrlKey || press.metaKey) {
    if (key === "g" || key === "G") return { kind: "goto" };
    if (key === "o" || key === "O") return { kind: "open" };
    return null;
  }
  if (press.altKey) return null;
  switch (key) {
    case "j":
    case "ArrowDown":
      return step("event", true);
    case "k":
    case "ArrowUp":
      return step("event", false);
    // The issue spells it "J/K previous/next request": J goes back, K goes forward.
    case "J":
      return step("request", false);
    case "K":
      return step("request", true);
    case "c":
      return step("compaction", true);
    case "C":
      return step("compaction", false);
    case "e":
      return step("diagnostic", true);
    case "E":
      return step("diagnostic", false);
    case "g":
    case "Home":
      return { kind: "first" };
    case "G":
    case "End":
      return { kind: "last" };
    case "?":
      return { kind: "help" };
    case "/":
      return { kind: "filter" };
    case "t":
      return { kind: "transport" };
    case "o":
      return { kind: "connect" };
    case "=":
      return { kind: "pause" };
    case "Escape":
      return { kind: "escape" };
    default:
      return null;
  }
}

/** Keys typed into a text field belong to the field, except Escape which leaves it. */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!target || typeof target !== "object" || !("tagName" in target)) return false;
  const tag = String((target as { tagName: unknown }).tagName).toUpperCase();
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT";
}
