// An agent-loop request's input items as the request pane lists them. The core renders each
// item three ways, index for index: the body's `input` (what went on the wire), `messages` (its
// text, role and token count) and `items` (the context item it came from); this lines them up
// and reads from the body only what the text does not say: the item's type, its call and the
// cache breakpoint.

import type { RequestSnapshot, Role } from "./types";

export type InputKind = "message" | "function_call" | "function_call_output" | "reasoning" | "other";

export interface InputRow {
  index: number;
  kind: InputKind;
  /** The role the item is sent with (a call and its output take the text's role). */
  role: Role;
  /** The context item this input item renders. */
  offset: number | null;
  /** A call's id, on the call and on its output. */
  callId: string | null;
  /** A call's function name. */
  name: string | null;
  /** The item carries `prompt_cache_breakpoint`: the cached prefix ends with it. */
  breakpoint: boolean;
  text: string;
  tokens: number;
}

type Fields = Record<string, unknown>;

const asFields = (value: unknown): Fields =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Fields) : {};

const asString = (value: unknown): string | null => (typeof value === "string" ? value : null);

function kindOf(item: Fields): InputKind {
  const type = asString(item.type);
  if (type === "function_call" || type === "function_call_output" || type === "reasoning") return type;
  if (type === null || type === "message") return "message";
  return "other";
}

/** Whether any content part asks for the cache breakpoint after it. */
function hasBreakpoint(item: Fields): boolean {
  return Array.isArray(item.content) && item.content.some((part) => asFields(part).prompt_cache_breakpoint !== undefined);
}

/** The request's input items, or `null` when it is not a Responses-API request. */
export function inputRows(snapshot: RequestSnapshot): InputRow[] | null {
  const body = asFields(snapshot.responsesBody);
  if (snapshot.responsesBody === undefined || !Array.isArray(body.input)) return null;
  return body.input.map((value, index) => {
    const item = asFields(value);
    const message = snapshot.messages[index];
    return {
      index,
      kind: kindOf(item),
      role: message?.role ?? "user",
      offset: snapshot.items[index]?.offset ?? null,
      callId: asString(item.call_id),
      name: asString(item.name),
      breakpoint: hasBreakpoint(item),
      text: message?.content ?? "",
      tokens: snapshot.tokens.messages[index] ?? 0,
    };
  });
}

/** The label an item's type gets: a message by its role, anything else by its type. */
export function kindLabel(row: InputRow): string {
  return row.kind === "message" ? row.role : row.kind === "other" ? "item" : row.kind;
}

/** A long text cut to its first `lines` lines and `chars` characters, and whether it was cut. */
export function clip(text: string, lines = 12, chars = 1200): { shown: string; clipped: boolean } {
  let end = Math.min(text.length, chars);
  let at = -1;
  for (let n = 0; n < lines; n++) {
    at = text.indexOf("\n", at + 1);
    if (at === -1) break;
  }
  if (at !== -1 && at < end) end = at;
  return end < text.length ? { shown: text.slice(0, end), clipped: true } : { shown: text, clipped: false };
}
