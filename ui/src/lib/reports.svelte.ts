// Reports and sharing in the window: the context-size plot (shown above the centre pane) and
// the export dialog (HTML report or JSONL slice, whole journal or an offset range). Kept apart
// from the session so the window's own state stays as it was.

import { transports } from "./asks";
import { backend } from "./backend";
import { gotoOffset, ui } from "./session.svelte";
import type { ContextSizes, ExportKind, IpcError, OffsetRange } from "./types";

export { parseRange } from "./exportrange";

export const reports = $state({
  plot: false,
  /** Sizes of the open journal's requests; null until loaded. */
  sizes: null as ContextSizes[] | null,
  /** What the sizes were loaded for (journal, event count, transport): a change reloads. */
  loadedFor: "",
  dialog: false,
  exporting: false,
});

function key(): string {
  return `${ui.info?.dbPath ?? ""}|${ui.timeline?.eventCount ?? 0}|${ui.transport}`;
}

export async function loadSizes() {
  if (!ui.info?.controls.sizes) {
    reports.sizes = [];
    return;
  }
  const wanted = key();
  if (reports.loadedFor === wanted && reports.sizes) return;
  try {
    const sizes = await backend.ask<ContextSizes[]>({ ask: "sizes", range: [null, null], transports: transports(ui.transport) });
    reports.sizes = sizes;
    reports.loadedFor = wanted;
  } catch (e) {
    ui.error = e as IpcError;
  }
}

export function togglePlot() {
  if (!ui.info?.controls.sizes) {
    ui.notice = "this journal's requests are not rendered: it has no context-size plot";
    return;
  }
  reports.plot = !reports.plot;
}

/** A bar was clicked: select its request, as Ctrl+G would. */
export function selectRequest(offset: number) {
  return gotoOffset(offset);
}

export async function exportJournal(kind: ExportKind, range: OffsetRange) {
  reports.exporting = true;
  try {
    const r = await backend.exportJournal(kind, range);
    ui.notice = r.path ? `exported ${r.bytes} bytes to ${r.path}` : "export cancelled";
    reports.dialog = false;
  } catch (e) {
    ui.error = e as IpcError;
  } finally {
    reports.exporting = false;
  }
}
