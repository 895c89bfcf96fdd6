// Claude Code and Codex content as text: a transcript stores provider blocks (Messages API
// blocks, Responses API items) whose shapes vary by kind, and the window shows each as a label
// and plain text, never as markup.

import type { ConversationItem, Subagent, TranscriptCacheEntry, TranscriptDiffRow } from "./types";

/** One block or item, as the conversation and request panes show it. */
export interface BlockText {
  /** The block's type, for styling: "text", "thinking", "tool_use", "function_call", … */
  kind: string;
  /** What the card's head says: the type, plus the tool's name or the call's id. */
  label: string;
  text: string;
  /** The block carries a `cache_control` breakpoint. */
  breakpoint?: boolean;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const pretty = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v, null, 2) ?? "");

/**
 * The text inside nested content: a string, an array of text-bearing parts, or an object with
 * `text` or `content`. What carries no text is shown as JSON rather than dropped.
 */
export function innerText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map(innerText).join("\n");
  if (isObject(content)) {
    const text = str(content.text);
    if (text !== null) return text;
    if ("content" in content) return innerText(content.content);
    if (content.type === "image" || content.type === "input_image") return `[image ${imageKind(content)}]`.trimEnd();
  }
  return pretty(content);
}

function imageKind(block: Json): string {
  const source = isObject(block.source) ? block.source : {};
  return str(source.media_type) ?? "";
}

/** The label and text of one Messages API block or Responses API item. */
export function blockText(block: unknown): BlockText {
  if (!isObject(block)) return { kind: "json", label: typeof block, text: pretty(block) };
  const kind = str(block.type) ?? "json";
  const name = str(block.name);
  switch (kind) {
    case "text":
    case "input_text":
    case "output_text": {
      const text = str(block.text) ?? "";
      // Context the client adds to a message, not what the user typed.
      const injected = text.trimStart().startsWith("<system-reminder>");
      return { kind: injected ? "injected" : "text", label: injected ? `${kind} · injected context` : kind, text };
    }
    case "thinking":
      return { kind: "thinking", label: "thinking", text: str(block.thinking) ?? "" };
    case "redacted_thinking":
      return { kind: "thinking", label: "redacted thinking", text: "(redacted by the provider)" };
    case "tool_use":
    case "server_tool_use":
      return { kind: "tool_use", label: `${kind} ${name ?? "?"}`, text: pretty(block.input ?? {}) };
    case "tool_result": {
      const error = block.is_error === true ? " (error)" : "";
      return { kind: "tool_result", label: `tool_result${error}`, text: innerText(block.content ?? "") };
    }
    case "image":
      return { kind: "image", label: "image", text: `[image ${imageKind(block)}]`.trimEnd() };
    case "message": {
      const role = str(block.role) ?? "?";
      return { kind: "text", label: `message ${role}`, text: innerText(block.content ?? "") };
    }
    case "function_call":
    case "custom_tool_call": {
      const args = block.arguments ?? block.input ?? "";
      return { kind: "tool_use", label: `${kind} ${name ?? "?"}`, text: pretty(args) };
    }
    case "function_call_output":
    case "custom_tool_call_output":
      return { kind: "tool_result", label: kind, text: innerText(block.output ?? "") };
    case "reasoning": {
      const summary = Array.isArray(block.summary) ? innerText(block.summary) : "";
      const text = summary !== "" ? summary : block.encrypted_content ? "(encrypted reasoning)" : "";
      return { kind: "thinking", label: "reasoning", text };
    }
    case "local_shell_call": {
      const action = isObject(block.action) ? block.action : {};
      const command = Array.isArray(action.command) ? action.command.join(" ") : pretty(action);
      return { kind: "tool_use", label: "local_shell_call", text: command };
    }
    case "compaction":
    case "compacted":
      return { kind: "compaction", label: kind, text: str(block.message) ?? "(the provider's encrypted summary)" };
    default:
      return { kind: "json", label: kind, text: pretty(block) };
  }
}

/** The blocks of a message or item, each as text; a block carrying a cache breakpoint says so. */
export function blocksText(content: unknown[]): BlockText[] {
  return content.map((block) => {
    const text = blockText(block);
    if (isObject(block) && isObject(block.cache_control)) {
      const ttl = str(block.cache_control.ttl);
      return { ...text, label: `${text.label} · cache breakpoint${ttl ? ` (${ttl})` : ""}`, breakpoint: true };
    }
    return text;
  });
}

/** What a line says of the subagents: "result of subagent X" on the line holding the result
 * the session got back, empty elsewhere. */
export function subagentNote(agents: Subagent[], offset: number): string {
  const returned = agents.filter((a) => a.resultOffset === offset);
  if (returned.length === 0) return "";
  const names = returned.map((a) => a.agentId ?? (a.rootOffset !== null ? `from @${a.rootOffset}` : "inline"));
  return `result of subagent ${names.join(", ")}`;
}

/** The sign of a diff row, as the command line prints it: the same message, a changed one,
 * one only the earlier request had, one only the later has. */
export function rowSign(op: TranscriptDiffRow["op"]): string {
  switch (op) {
    case "same":
      return " ";
    case "changed":
      return "~";
    case "removed":
      return "-";
    case "added":
      return "+";
  }
}

/** What the later request got from the cache, in one line. */
export function cacheLine(entry: TranscriptCacheEntry | null): string {
  if (!entry) return "not measured against the earlier request in the cache (another thread, or a request in between)";
  if (entry.broke)
    return `cache break: ${entry.missedTokens.toLocaleString("en-US")} of ${entry.expectedReadTokens.toLocaleString("en-US")} expected tokens missed: ${entry.explanation}`;
  return `no cache break: read ${entry.cacheReadTokens.toLocaleString("en-US")} tokens (${entry.expectedReadTokens.toLocaleString("en-US")} expected), wrote ${entry.cacheWriteTokens.toLocaleString("en-US")}`;
}

/** The lines a cache entry's causes point at, to go to: a compaction, the line a rewind or
 * fork went back from, and the record of a changed system prompt and tool set. */
export function causeOffsets(entry: TranscriptCacheEntry | null): number[] {
  if (!entry) return [];
  return entry.causes.flatMap((cause) => {
    if (cause.kind === "compaction") return [cause.offset];
    if (cause.kind === "rewind" && cause.from !== null) return [cause.from];
    if (cause.kind === "system-or-tools" && cause.to !== null) return [cause.to];
    return [];
  });
}

/** A line of the conversation in one line of text: its blocks' labels and text, whitespace
 * collapsed, cut at `max` characters. */
export function itemLine(item: ConversationItem, max = 160): string {
  const text = blocksText(item.content)
    .map((b) => (b.kind === "text" ? b.text : `[${b.label}] ${b.text}`))
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
