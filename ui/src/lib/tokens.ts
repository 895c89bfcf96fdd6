// How token counts read in the window: a request's total against what its provider reported,
// and a compaction's threshold. The figures come from the core; this only words them.

import type { CompactionTokens, Reconciliation, Tokenizer } from "./types";

const n = (value: number) => value.toLocaleString("en-US");

/** "o200k_base, exact" or "o200k_base, an estimate". */
export function method(tokenizer: Tokenizer): string {
  return `${tokenizer.encoding}, ${tokenizer.exact ? "exact" : "an estimate"}`;
}

/** The request's total, and the reported input beside it when there is one. */
export function requestTokenLine(total: number, tokenizer: Tokenizer, reconciliation: Reconciliation | null): string {
  const counted = `${n(total)} tokens (${method(tokenizer)})`;
  if (reconciliation === null) return `${counted} · no reported usage`;
  const { reported, difference, tolerance, within } = reconciliation;
  const apart = difference === 0 ? "the same" : `${n(Math.abs(difference))} ${difference < 0 ? "fewer" : "more"} counted`;
  return `${counted} · reported ${n(reported)} · ${apart}${within ? "" : `, beyond ±${n(tolerance)}`}`;
}

/** What triggered a compaction and what it left, in tokens; `null` when nothing is known. */
export function thresholdLine(tokens: CompactionTokens): string | null {
  const parts: string[] = [];
  const used = tokens.beforeReported ?? tokens.beforeCounted;
  if (used !== null) {
    const how = tokens.beforeReported !== null ? "reported" : "counted";
    if (tokens.threshold !== null && tokens.maxContext !== null && tokens.triggerFraction !== null) {
      parts.push(
        `${n(used)} ${how} ${tokens.crossed ? "≥" : "<"} threshold ${n(tokens.threshold)} (${tokens.triggerFraction} × ${n(tokens.maxContext)})`,
      );
    } else {
      parts.push(`${n(used)} ${how} before`);
    }
  }
  parts.push(`${n(tokens.after)} after`);
  if (tokens.summary !== null) parts.push(`summary ${n(tokens.summary)}`);
  return parts.length ? `tokens: ${parts.join(" · ")}` : null;
}
