// The keyboard map: one pure function from a key press and the journal's controls to an action,
// so the bindings the help overlay lists are the bindings that run, and tests pin them down.

import type { RowMove } from "./listwindow";
import type { Controls, StepTarget } from "./types";

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

/** What a key needs of the journal's controls to mean anything there. */
type Needs = "steps" | "requests" | "compaction" | "transports" | "sizes" | "thread";

/** The bindings in the order the help overlay shows them; `{unit}` is the unit J/K step by. */
export const BINDINGS: { keys: string; label: string; needs?: Needs }[] = [
  { keys: "j / ↓", label: "next event" },
  { keys: "k / ↑", label: "previous event" },
  { keys: "J / K", label: "previous / next {unit}", needs: "steps" },
  { keys: "c / C", label: "next / previous compaction", needs: "compaction" },
  { keys: "e / E", label: "next / previous diagnostic" },
  { keys: "g / G", label: "first / last event (G follows a live journal)" },
  { keys: "Ctrl+G", label: "go to offset" },
  { keys: "t", label: "switch transport (openai / workers-ai)", needs: "transports" },
  { keys: "d", label: "diff the request against the one before / back", needs: "requests" },
  { keys: "/", label: "search event text (Enter: first hit)" },
  { keys: "n / N", label: "next / previous search hit" },
  { keys: "F8 / F7", label: "run to the next / previous breakpoint hit" },
  { keys: "m", label: "bookmark the selected event (add or edit its note)" },
  { keys: "u / U", label: "next / previous bookmark" },
  { keys: "b", label: "show or hide the bookmark list" },
  { keys: "s", label: "show or hide the SQL console" },
  { keys: "Tab, ↑ / ↓, PgUp / PgDn, Home / End", label: "focus a step's message or diagnostic list, then move through it", needs: "thread" },
  { keys: "Ctrl+O", label: "open a journal" },
  { keys: "o", label: "connect to a stream" },
  { keys: "=", label: "pause / resume the live view (arrivals are still stored)" },
  { keys: "x", label: "show or hide the context-size plot", needs: "sizes" },
  { keys: "X", label: "export a report or a JSONL slice" },
  { keys: "?", label: "show or hide the About box and these keys" },
  { keys: "Esc", label: "close the overlay" },
];

/** The unit J/K step by for a journal's controls; none when its dialect marks no such unit. */
function unitOf(controls: Controls | null): StepTarget | null {
  return (controls?.steps[0] as StepTarget | undefined) ?? null;
}

function meets(needs: Needs | undefined, controls: Controls | null): boolean {
  if (needs === undefined || controls === null) return true;
  if (needs === "steps") return unitOf(controls) !== null;
  if (needs === "requests") return controls.steps.includes("request");
  if (needs === "compaction") return controls.steps.includes("compaction");
  if (needs === "thread") return controls.views.includes("thread");
  if (needs === "sizes") return controls.sizes;
  return controls.transports;
}

/** The bindings a journal with these controls answers, as the help lists them; with no
 * journal open, every binding. */
export function bindingsFor(controls: Controls | null): { keys: string; label: string }[] {
  const unit = unitOf(controls) ?? "request";
  return BINDINGS.filter((b) => meets(b.needs, controls)).map((b) => ({ keys: b.keys, label: b.label.replace("{unit}", unit) }));
}

export function actionFor(press: KeyPress, controls: Controls | null = null): Action | null {
  const { key } = press;
  if (press.ctrlKey || press.metaKey) {
    if (key === "g" || key === "G") return { kind: "goto" };
    if (key === "o" || key === "O") return { kind: "open" };
    return null;
  }
  if (press.altKey) return null;
  const unit = controls === null ? "request" : unitOf(controls);
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
    // J goes back a request (or run) and K forward, as the key help says.
    case "J":
      return unit ? step(unit, false) : null;
    case "K":
      return unit ? step(unit, true) : null;
    case "c":
      return meets("compaction", controls) ? step("compaction", true) : null;
    case "C":
      return meets("compaction", controls) ? step("compaction", false) : null;
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
      return meets("transports", controls) ? { kind: "transport" } : null;
    case "d":
      return meets("requests", controls) ? { kind: "diff" } : null;
    case "o":
      return { kind: "connect" };
    case "=":
      return { kind: "pause" };
    case "x":
      return meets("sizes", controls) ? { kind: "plot" } : null;
    case "X":
      return { kind: "export" };
    case "Escape":
      return { kind: "escape" };
    default:
      return null;
  }
}

/** What a key does in a focused list of rows (a step's messages or diagnostics): it moves
 * through the list instead of stepping the journal, which j/k still do. */
export function rowMoveFor(press: KeyPress): RowMove | null {
  if (press.ctrlKey || press.metaKey || press.altKey) return null;
  switch (press.key) {
    case "ArrowUp":
      return "up";
    case "ArrowDown":
      return "down";
    case "PageUp":
      return "pageUp";
    case "PageDown":
      return "pageDown";
    case "Home":
      return "first";
    case "End":
      return "last";
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
