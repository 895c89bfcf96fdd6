import { describe, expect, it } from "vitest";
import { clip, inputRows, kindLabel } from "./responses";
import type { RequestSnapshot } from "./types";

const snapshot = (input: unknown[] | undefined): RequestSnapshot => ({
  requestOffset: 11,
  transport: "openai",
  model: "gpt-5.1",
  messages: [
    { role: "developer", content: "You are Rel." },
    { role: "developer", content: "Ship releases." },
    { role: "assistant", content: 'run {"status":"","script":"x"}' },
    { role: "user", content: "# Changelog" },
    { role: "assistant", content: "(encrypted reasoning)" },
  ],
  items: [5, 5, 6, 10, 13].map((offset) => ({
    offset,
    lane: "input",
    productRole: "user",
    providerRole: "user",
    rule: "user",
  })),
  tokens: {
    tokenizer: { encoding: "o200k_base", exact: true, method: "m", bias: null },
    messages: [4, 3, 9, 3, 4],
    framing: 0,
    total: 23,
  },
  ...(input === undefined ? {} : { responsesBody: { model: "gpt-5.1", input } }),
});

describe("an agent-loop request's input items", () => {
  const rows = inputRows(
    snapshot([
      { role: "developer", content: "You are Rel." },
      { role: "developer", content: [{ type: "input_text", text: "Ship releases.", prompt_cache_breakpoint: { mode: "explicit" } }] },
      { type: "function_call", call_id: "call_6", name: "run", arguments: "{}" },
      { type: "function_call_output", call_id: "call_6", output: "# Changelog" },
      { type: "reasoning", encrypted_content: "x" },
    ]),
  );

  it("given a Responses-API body, when listed, then each input item lines up with its text, item and count", () => {
    expect(rows?.map((r) => [r.kind, r.offset, r.text, r.tokens]), "type from the body, the rest from the core's shapes").toEqual([
      ["message", 5, "You are Rel.", 4],
      ["message", 5, "Ship releases.", 3],
      ["function_call", 6, 'run {"status":"","script":"x"}', 9],
      ["function_call_output", 10, "# Changelog", 3],
      ["reasoning", 13, "(encrypted reasoning)", 4],
    ]);
  });

  it("given a head section with the cache breakpoint, when listed, then only that item carries it", () => {
    expect(rows?.map((r) => r.breakpoint), "the breakpoint is the second head section's").toEqual([false, true, false, false, false]);
  });

  it("given a call and its output, when listed, then both name the call and the call its function", () => {
    expect([rows?.[2].callId, rows?.[2].name, rows?.[3].callId], "call id on both sides, the function on the call").toEqual([
      "call_6",
      "run",
      "call_6",
    ]);
    expect(rows?.map(kindLabel), "a message is labelled by its role, anything else by its type").toEqual([
      "developer",
      "developer",
      "function_call",
      "function_call_output",
      "reasoning",
    ]);
  });

  it("given a chat request with no Responses-API body, when listed, then there are no input items", () => {
    expect(inputRows(snapshot(undefined)), "a seed or sections request keeps its message list").toBeNull();
  });
});

describe("a long text clipped", () => {
  it("given a short text, when clipped, then it is whole", () => {
    expect(clip("one\ntwo"), "nothing to cut").toEqual({ shown: "one\ntwo", clipped: false });
  });
  it("given more lines than allowed, when clipped, then it ends before the first line past them", () => {
    expect(clip("a\nb\nc\nd", 2), "two lines kept").toEqual({ shown: "a\nb", clipped: true });
  });
  it("given one long line, when clipped, then it ends at the character bound", () => {
    expect(clip("x".repeat(50), 12, 10), "ten characters kept").toEqual({ shown: "x".repeat(10), clipped: true });
  });
});
