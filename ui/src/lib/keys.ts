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
  | { kind: "diff" }
  | { kind: "open" }
  | { kind: "connect" }
  | { kind: "pause" }
  | { kind: "escape" }
  | { kind: "hit"; forward: boolean }
  | { kind: "break"; forward: boolean }
  | { kind: "bookmark" }
  | { kind: "bookmarkStep"; forward: boolean }
  | { kind: "console" }
  | { kind: "bookmarkList" }
  | { kind: "plot" }
  | { kind: "export" };

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
  { keys: "d", label: "diff the request against the one before / back" },
  { keys: "/", label: "search event text (Enter: first hit)" },
  { keys: "n / N", label: "next / previous search hit" },
  { keys: "F8 / F7", label: "run to the next / previous breakpoint hit" },
  { keys: "m", label: "bookmark the selected event (add or edit its note)" },
  { keys: "u / U", label: "next / previous bookmark" },
  { keys: "b", label: "show or hide the bookmark list" },
  { keys: "s", label: "show or hide the SQL console" },
  { keys: "Ctrl+O", label: "open a journal" },
  { keys: "o", label: "connect to a stream" },
  { keys: "=", label: "pause / resume the live view (arrivals are still stored)" },
  { keys: "x", label: "show or hide the context-size plot" },
  { keys: "X", label: "export a report or a JSONL slice" },
  { keys: "?", label: "show or hide the About box and these keys" },
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
    case "n":
      return { kind: "hit", forward: true };
    case "N":
      return { kind: "hit", forward: false };
    case "F8":
      return { kind: "break", forward: true };
    case "F7":
      return { kind: "break", forward: false };
    case "m":
      return { kind: "bookmark" };
    case "u":
      return { kind: "bookmarkStep", forward: true };
    case "U":
      return { kind: "bookmarkStep", forward: false };
    case "s":
      return { kind: "console" };
    case "b":
      return { kind: "bookmarkList" };
    case "j":
    case "ArrowDown":
      return step("event", true);
    case "k":
    case "ArrowUp":
      return step("event", false);
    // J goes back a request and K forward, as the key help says.
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
    case "d":
      return { kind: "diff" };
    case "o":
      return { kind: "connect" };
    case "=":
      return { kind: "pause" };
    case "x":
      return { kind: "plot" };
    case "X":
      return { kind: "export" };
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
