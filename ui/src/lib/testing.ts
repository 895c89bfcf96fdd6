// Builders the unit tests share: the projection views the window folds its panes from.

import type { ItemView, ProjectionView } from "./types";

export function item(offset: number, over: Partial<ItemView> = {}): ItemView {
  return {
    offset,
    role: "developer",
    actor: null,
    refs: [],
    files: [],
    content: "",
    published: false,
    providerRoles: { openai: { role: "developer", rule: "trusted-developer" }, "workers-ai": { role: "user", rule: "external-actor-downgrade" } },
    header: "",
    coalesced: [],
    ...over,
  } as ItemView;
}

export function projection(history: ItemView[], system: ItemView[] = []): ProjectionView {
  return { at: 0, publishedThrough: null, pending: null, system, history, diagnostics: [], diagnosticCount: 0, errorCount: 0 };
}
