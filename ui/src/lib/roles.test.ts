import { describe, expect, it } from "vitest";
import type { ItemView } from "./types";
import { shortType, badgeText, summaryBeyondType, otherTransport, providerTag, roleClass, sortBadges } from "./roles";

const item: Pick<ItemView, "role" | "providerRoles"> = {
  role: "developer",
  providerRoles: {
    openai: { role: "developer", rule: "trusted-developer" },
    "workers-ai": { role: "user", rule: "external-actor-downgrade" },
  },
};

describe("role colouring", () => {
  it("maps known roles to their class and unknown ones to a neutral class", () => {
    expect(roleClass("System"), "case-insensitive").toBe("role-system");
    expect(roleClass("assistant")).toBe("role-assistant");
    expect(roleClass("wizard"), "unknown role").toBe("role-other");
    expect(roleClass(null), "missing role").toBe("role-other");
  });

  it("colours by the provider role of the chosen transport", () => {
    const openai = providerTag(item, "openai");
    expect(openai.className, "openai keeps developer").toBe("role-developer");
    expect(openai.downgraded, "no downgrade on openai").toBe(false);
    const workers = providerTag(item, "workers-ai");
    expect(workers.className, "workers-ai recolours as user").toBe("role-user");
    expect(workers.downgraded, "the downgrade is flagged").toBe(true);
    expect(workers.label, "the label names both roles").toBe("developer ⇣ user");
    expect(workers.rule, "the rule travels with the tag").toBe("external-actor-downgrade");
  });

  it("switches transport back and forth", () => {
    expect(otherTransport("openai")).toBe("workers-ai");
    expect(otherTransport("workers-ai")).toBe("openai");
  });

  it("orders badges and deduplicates them", () => {
    expect(sortBadges(["unpublished", "request", "diagnostic", "request"]), "fixed order").toEqual([
      "request",
      "diagnostic",
      "unpublished",
    ]);
    expect(badgeText("compaction")).toBe("C");
    expect(badgeText("contract"), "where a journal's contract shows, a glyph rather than a cut word").toBe("§");
    expect(badgeText("sidechain"), "a subagent's line is marked in the event list").toBe("⤷");
    expect(badgeText("session"), "a rollout's session line gets a sign, not a cut word").toBe("◆");
  });
});

describe("event type labels", () => {
  it("shows the last segment of a namespaced type", () => {
    expect(shortType("events.iterate.com/agent/context-added"), "namespaced").toBe("context-added");
    expect(shortType("RUN_STARTED"), "plain").toBe("RUN_STARTED");
    expect(shortType(null), "missing").toBe("?");
  });
});

describe("event list columns", () => {
  it("drops a summary that only repeats the type", () => {
    expect(summaryBeyondType("RUN_STARTED", "RUN_STARTED"), "the type again says nothing").toBe("");
    expect(summaryBeyondType("TOOL_CALL_ARGS call_1 +12 chars", "TOOL_CALL_ARGS"), "the rest after the type stays").toBe("call_1 +12 chars");
    expect(summaryBeyondType("user: hello", "events.iterate.com/agent/input-item-added"), "a summary of its own is kept").toBe("user: hello");
  });
  it("badges of AG-UI marks are signs, not cut words", () => {
    expect(badgeText("messages-snapshot"), "not mes").toBe("≡");
    expect(badgeText("patch-failed"), "not pat").toBe("✗");
    expect(badgeText("something-new"), "an unknown kind shows its initial").toBe("S");
  });
});
