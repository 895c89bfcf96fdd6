// A search on a journal whose index the backend is still building in the background.
import { describe, expect, it, vi } from "vitest";

vi.mock("./backend", () => {
  const indexing = {
    code: "indexing",
    message: "the search index is still being built (40000 of 200000 events); search again in a moment",
  };
  const known: Record<string, (...args: unknown[]) => Promise<unknown>> = {
    search: () => Promise.reject(indexing),
  };
  const backend = new Proxy(known, {
    get: (target, name: string) => target[name] ?? (() => Promise.resolve(null)),
  });
  return { backend };
});

import { inquiry, runSearch, stepHit } from "./inquiry.svelte";
import { ui } from "./session.svelte";

describe("a search while the index is being built", () => {
  it("says how far the index got, as a notice rather than an error", async () => {
    inquiry.text = "octo-bot";
    await runSearch();
    expect(ui.error, "nothing failed: no error to dismiss").toBeNull();
    expect(ui.notice, "the notice says the index is being built").toContain("40000 of 200000");
    expect(inquiry.hits, "no hits are shown as if the search had run").toBeNull();
  });

  it("n keeps that notice instead of asking for a search the user typed", async () => {
    inquiry.text = "octo-bot";
    ui.notice = "";
    await stepHit(true);
    expect(ui.notice, "the indexing notice stands").toContain("still being built");
  });
});
