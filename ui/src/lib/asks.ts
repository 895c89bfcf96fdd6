// The questions the window puts to a journal, by family: each builds the `Ask` the shell hands
// to the core, so a pane says what it wants to see and the journal's dialect answers it.

import type { Ask, BodyFormat, MessageWindow, Transports } from "./types";

/** The provider rendering a question names; `null` for requests recorded as sent. */
export function transports(transport: string | null): Transports {
  return { both: transport, from: null, to: null };
}

/** The first page as large as an answer may be (the core's `MessageWindow::FIRST`); a view
 * that is no thread of messages ignores it. */
export const FIRST_PAGE: MessageWindow = { start: 0, limit: 1000 };

/** The fold's state after row `seq`: a projection, a conversation, a thread with the messages
 * `window` covers, or the snapshot `session`'s cursor holds. */
export function stepAsk(seq: number, window: MessageWindow, session: string | null = null): Ask {
  return { ask: "step", seq, session, window };
}

/** The request at `at` in full, as the request pane shows it. */
export function detailAsk(at: number, transport: string | null): Ask {
  return { ask: "detail", at, transports: transports(transport) };
}

/** The options a body leaves with: its format, and the redaction. */
export type BodyOptions = { format: BodyFormat; exact: boolean; redactPaths: string[] };

/** The body of the request at `at`, as it leaves the program. */
export function bodyAsk(at: number, transport: string | null, options: BodyOptions): Ask {
  return { ask: "body", at, transports: transports(transport), ...options };
}
