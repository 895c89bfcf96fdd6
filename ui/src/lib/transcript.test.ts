import { describe, expect, it } from "vitest";
import { blockText, blocksText, cacheLine, causeOffsets, innerText, itemLine, rowSign, subagentNote } from "./transcript";
import type { Subagent, TranscriptCacheEntry } from "./types";

describe("Claude Code blocks as text", () => {
  it("shows text, thinking and a tool call's name and input", () => {
    expect(blockText({ type: "text", text: "hello <b>" }), "text is kept verbatim, markup included").toEqual({
      kind: "text",
      label: "text",
      text: "hello <b>",
    });
    expect(blockText({ type: "thinking", thinking: "hmm", signature: "x" }).text, "thinking shows its thought").toBe(
      "hmm",
    );
    const call = blockText({ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } });
    expect(call.label, "a tool call is labelled with its tool").toBe("tool_use Bash");
    expect(JSON.parse(call.text), "its input is shown whole").toEqual({ command: "ls" });
  });

  it("reads a tool result's text whether it is a string or a list of parts, and flags errors", () => {
    expect(blockText({ type: "tool_result", tool_use_id: "t", content: "ok" }).text, "string content").toBe("ok");
    const parts = blockText({
      type: "tool_result",
      tool_use_id: "t",
      is_error: true,
      content: [
        { type: "text", text: "one" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
      ],
    });
    expect(parts.label, "an error result says so").toBe("tool_result (error)");
    expect(parts.text, "text parts joined, images named without their bytes").toBe("one\n[image image/png]");
  });
});

describe("Codex items as text", () => {
  it("shows messages, calls and their outputs", () => {
    const message = blockText({ type: "message", role: "user", content: [{ type: "input_text", text: "fix it" }] });
    expect(message, "a message item shows its role and text").toEqual({
      kind: "text",
      label: "message user",
      text: "fix it",
    });
    const call = blockText({ type: "function_call", name: "shell", arguments: '{"command":["ls"]}', call_id: "c" });
    expect(call.label, "a function call names its function").toBe("function_call shell");
    expect(call.text, "its arguments are the string the model wrote").toBe('{"command":["ls"]}');
    expect(blockText({ type: "function_call_output", call_id: "c", output: "done" }).text, "the output").toBe("done");
  });

  it("shows a reasoning summary, or says the reasoning is encrypted", () => {
    expect(
      blockText({ type: "reasoning", summary: [{ type: "summary_text", text: "plan" }] }).text,
      "the summary's text",
    ).toBe("plan");
    expect(blockText({ type: "reasoning", summary: [], encrypted_content: "gAAA" }).text, "no summary").toBe(
      "(encrypted reasoning)",
    );
  });

  it("shows what it does not know as JSON instead of dropping it", () => {
    const unknown = blockText({ type: "new_kind", detail: 1 });
    expect(unknown.label, "the type still labels it").toBe("new_kind");
    expect(JSON.parse(unknown.text), "every field survives").toEqual({ type: "new_kind", detail: 1 });
    expect(innerText(42), "a bare value").toBe("42");
  });
});

describe("subagents in a conversation", () => {
  const agent = (over: Partial<Subagent>): Subagent => ({
    callOffset: 3,
    toolUseId: "toolu_1",
    description: "Find TODOs",
    resultOffset: 7,
    agentId: "5a6b7c8d",
    path: "/s/agent-5a6b7c8d.jsonl",
    rootOffset: null,
    ...over,
  });

  it("names the subagent on the line holding its result, and nowhere else", () => {
    expect(subagentNote([agent({})], 7), "the result line names its agent").toBe("result of subagent 5a6b7c8d");
    expect(subagentNote([agent({})], 3), "the call line gets a button, not a note").toBe("");
  });

  it("names an inline subagent by the line it starts at", () => {
    const inline = agent({ agentId: null, path: null, rootOffset: 4 });
    expect(subagentNote([inline], 7), "no agent id: its first line").toBe("result of subagent from @4");
  });
});

describe("a transcript diff", () => {
  const entry = (over: Partial<TranscriptCacheEntry>): TranscriptCacheEntry => ({
    requestOffset: 1492,
    previousRequest: 1470,
    thread: "main",
    model: "claude-opus-4-6",
    inputTokens: 10,
    cacheReadTokens: 0,
    cacheWriteTokens: 30_000,
    expectedReadTokens: 41_802,
    missedTokens: 41_802,
    broke: true,
    causes: [{ kind: "compaction", offset: 1481 }],
    explanation: "a compaction at @1481 replaced the history",
    ...over,
  });

  it("marks rows with the command line's signs", () => {
    expect(["same", "changed", "removed", "added"].map((op) => rowSign(op as "same")), "one sign per change").toEqual([" ", "~", "-", "+"]);
  });

  it("says what the cache gave back, and why it broke", () => {
    expect(cacheLine(entry({})), "a break names the tokens missed and its cause").toBe(
      "cache break: 41,802 of 41,802 expected tokens missed: a compaction at @1481 replaced the history",
    );
    expect(
      cacheLine(entry({ broke: false, missedTokens: 0, cacheReadTokens: 41_802, cacheWriteTokens: 120, causes: [] })),
      "no break: what was read and written",
    ).toBe("no cache break: read 41,802 tokens (41,802 expected), wrote 120");
    expect(cacheLine(null), "a request of another thread is not measured").toMatch(/^not measured/);
  });

  it("points at the lines that broke the cache", () => {
    expect(causeOffsets(entry({})), "the compaction").toEqual([1481]);
    expect(
      causeOffsets(entry({ causes: [{ kind: "rewind", from: 40 }, { kind: "expired", gapSeconds: 400, ttlSeconds: 300 }, { kind: "rewind", from: null }] })),
      "the line a rewind went back from; nothing for an expiry",
    ).toEqual([40]);
    expect(
      causeOffsets(entry({ causes: [{ kind: "system-or-tools", from: 15, to: 26 }] })),
      "the record of the system prompt and tools the later request went with",
    ).toEqual([26]);
  });
});

describe("a line of a compaction's before | after", () => {
  const item = (content: unknown[]) => ({ offset: 3, uuid: null, role: "user", content, timestamp: null, response: null });

  it("reads text as it is and labels the rest", () => {
    expect(itemLine(item([{ type: "text", text: "Fix  the\nbug." }])), "whitespace collapsed").toBe("Fix the bug.");
    expect(itemLine(item([{ type: "tool_use", name: "Bash", input: { command: "ls" } }])), "a call names its tool").toMatch(
      /^\[tool_use Bash\] \{ "command": "ls" \}$/,
    );
  });

  it("cuts a long line, marking the cut", () => {
    const line = itemLine(item([{ type: "text", text: "x".repeat(500) }]), 10);
    expect(line, "ten characters and an ellipsis").toBe(`${"x".repeat(10)}…`);
  });
});

describe("a request the client recorded", () => {
  it("marks the client's reminders as injected context, not what the user typed", () => {
    const reminder = blockText({ type: "text", text: "<system-reminder>\nToday's date is 2026-12-06.\n</system-reminder>" });
    expect(reminder.kind).toBe("injected");
    expect(reminder.label).toBe("text · injected context");
    expect(blockText({ type: "text", text: "Say hi" }).kind).toBe("text");
  });

  it("says which block carries a cache breakpoint, with its lifetime when set", () => {
    const [plain, marked, hour] = blocksText([
      { type: "text", text: "a" },
      { type: "text", text: "b", cache_control: { type: "ephemeral" } },
      { type: "text", text: "c", cache_control: { type: "ephemeral", ttl: "1h" } },
    ]);
    expect(plain.breakpoint).toBeUndefined();
    expect(marked.breakpoint).toBe(true);
    expect(marked.label).toBe("text · cache breakpoint");
    expect(hour.label).toBe("text · cache breakpoint (1h)");
  });
});
