// Request export options as the request pane's controls give them, and the notice an export
// leaves. Redaction is on unless the user asks for exact bytes.

import type { BodyOptions } from "./asks";
import type { BodyFormat, Exported } from "./types";

/** Splits the redact-paths field: one path a line or comma-separated, blanks ignored. */
export function redactPaths(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((p) => p.trim())
    .filter((p) => p !== "");
}

export function exportOptions(format: BodyFormat, exact: boolean, pathsText: string): BodyOptions {
  return { format, exact, redactPaths: exact ? [] : redactPaths(pathsText) };
}

/** What the export did with secrets, for notices. */
export function redactionLabel(r: { redacted: boolean; secrets: number }): string {
  if (!r.redacted) return "exact bytes";
  return r.secrets === 1 ? "1 secret redacted" : `${r.secrets} secrets redacted`;
}

export function exportNotice(r: Exported): string {
  return r.path ? `exported ${r.bytes} bytes to ${r.path} (${redactionLabel(r)})` : "export cancelled";
}
