// A request the mock server received, as plain data: what tests assert on and verify() lists.
import type { IncomingHttpHeaders } from "node:http";

export interface ReceivedRequest {
  /** Upper-case method. */
  readonly method: string;
  /** The path, without the query. */
  readonly path: string;
  /** The raw target (`/users/7?full=1`). */
  readonly url: string;
  /** Query parameters; a repeated one is an array. */
  readonly query: Readonly<Record<string, string | string[]>>;
  /** Lower-case header names, as node:http gives them. */
  readonly headers: IncomingHttpHeaders;
  /** The body bytes (empty past the body limit: see `tooLarge`). */
  readonly body: Buffer;
  /** The body as UTF-8 text. */
  readonly text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: unknown;
  /** The body was over the server's `maxBodyBytes` and answered 413. */
  readonly tooLarge: boolean;
  /** The expectation that answered it (its description), or null for an unmatched request. */
  readonly matchedBy: string | null;
}

export function describeRequest(r: ReceivedRequest): string {
  const body = r.tooLarge ? " (body over the limit)" : r.body.length === 0 ? "" : ` body ${JSON.stringify(r.text.length > 80 ? r.text.slice(0, 80) + "..." : r.text)}`;
  return `${r.method} ${r.url}${body}`;
}
