// Request ids: every response carries `x-request-id`. An incoming id is kept when it is short and
// plain (1-128 characters of [A-Za-z0-9._:-] by default), so ids can follow a request across
// services; otherwise (or when incoming ids are not trusted) a fresh UUID v4 is generated.
// The id is stored on `ctx.requestId`, where `requestContext()`, error logs and spans read it.
import { randomUUID } from "node:crypto";
import type { Context, Layer, Next, Reply } from "../index.js";
import { isHttpToken } from "../plugin.js";

export const REQUEST_ID_HEADER = "x-request-id";
export const REQUEST_ID_MAX_LENGTH = 128;

export interface RequestIdOptions {
  /** Header read and written (default `x-request-id`, case-insensitive). */
  header?: string;
  /**
   * Keep a well-formed incoming id (default true). Turn it off at an untrusted edge, where
   * clients could otherwise choose the ids that appear in your logs.
   */
  trustIncoming?: boolean;
  /** Longest incoming id kept (default 128, at most 1024). */
  maxLength?: number;
  /**
   * Replaces the default character check ([A-Za-z0-9._:-]). Called only for ids within
   * `maxLength`. Ids it accepts are JSON-escaped when logged.
   */
  accept?: (id: string) => boolean;
  /** Makes a fresh id (default `crypto.randomUUID()`). */
  generate?: () => string;
}

/** A compiled policy: the incoming header value in, the request's id out. */
export interface RequestIdPolicy {
  /** Lowercase header name. */
  readonly header: string;
  resolve(incoming: string | string[] | undefined): string;
  /** True when ids may contain characters that need JSON escaping (custom accept/generate). */
  readonly needsEscape: boolean;
}

/** [A-Za-z0-9._:-]: safe in headers, logs and JSON without escaping. */
function isIdChar(c: number): boolean {
  return (
    (c >= 97 && c <= 122) || // a-z
    (c >= 65 && c <= 90) || // A-Z
    (c >= 48 && c <= 58) || // 0-9 and ":"
    c === 45 || // -
    c === 46 || // .
    c === 95 // _
  );
}

/** True for 1..maxLength characters of [A-Za-z0-9._:-]. Linear, no regex. */
export function isPlainRequestId(id: string, maxLength = REQUEST_ID_MAX_LENGTH): boolean {
  const n = id.length;
  if (n === 0 || n > maxLength) return false;
  for (let i = 0; i < n; i++) if (!isIdChar(id.charCodeAt(i))) return false;
  return true;
}

/** Visible ASCII only (no spaces, controls or non-ASCII): the floor under a custom `accept`. */
function isHeaderSafe(id: string): boolean {
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

export function compileRequestIdPolicy(options: RequestIdOptions = {}): RequestIdPolicy {
  const header = (options.header ?? REQUEST_ID_HEADER).toLowerCase();
  if (!isHttpToken(header)) throw new TypeError(`requestId: invalid header name ${JSON.stringify(header)}`);
  const maxLength = options.maxLength ?? REQUEST_ID_MAX_LENGTH;
  if (!Number.isInteger(maxLength) || maxLength < 1 || maxLength > 1024) {
    throw new RangeError(`requestId: maxLength must be an integer from 1 to 1024, got ${maxLength}`);
  }
  const trust = options.trustIncoming ?? true;
  const accept = options.accept;
  const generate = options.generate ?? randomUUID;
  const needsEscape = accept !== undefined || options.generate !== undefined;

  let resolve: (incoming: string | string[] | undefined) => string;
  if (!trust) {
    resolve = () => generate();
  } else if (accept === undefined) {
    resolve = (incoming) => (typeof incoming === "string" && isPlainRequestId(incoming, maxLength) ? incoming : generate());
  } else {
    resolve = (incoming) =>
      typeof incoming === "string" && incoming.length > 0 && incoming.length <= maxLength && isHeaderSafe(incoming) && accept(incoming)
        ? incoming
        : generate();
  }
  return { header, resolve, needsEscape };
}

/**
 * The request-id layer on its own. `production()` folds the same policy into its access-log
 * layer instead, so a full production stack pays for one layer, not two.
 *
 * @example
 * ```ts
 * app.layer(requestId({ trustIncoming: false })); // behind an untrusted edge: always a fresh id
 * ```
 * @see docs/features/middleware.md
 */
export function requestId(options: RequestIdOptions = {}): Layer {
  const policy = compileRequestIdPolicy(options);
  const header = policy.header;
  const resolve = policy.resolve;
  return async (ctx: Context, next: Next): Promise<Reply> => {
    const id = resolve(ctx.req.headers[header]);
    ctx.requestId = id;
    const reply = await next(ctx);
    reply.headers[header] = id;
    return reply;
  };
}
