// Connection limits of a listening server, with defaults that cut slow or greedy clients off in
// seconds rather than Node's minutes: how long the headers and the whole request may take, how
// long an idle keep-alive socket stays open, how big the headers may be, how many requests one
// socket may carry, how many may wait pipelined on it, and how many sockets may be open at once.
import type { Server } from "node:http";

export interface ServerLimits {
  /** Time to receive the request headers, ms (default 10 000; Node's own is 60 000); keel/tls's listeners give the TLS handshake as long. */
  headersTimeout?: number;
  /** Time to receive the whole request, headers and body, ms (default 30 000; Node's is 300 000). */
  requestTimeout?: number;
  /** How long an idle keep-alive socket stays open, ms (default 5 000). */
  keepAliveTimeout?: number;
  /** Largest request head (request line and headers), bytes (default 16 384); larger is a 431. Over HTTP/2 (keel/tls), the header list size (RFC 9113 §6.5.2), advertised in SETTINGS. */
  maxHeaderSize?: number;
  /** Requests served on one socket before it is closed (default 0: no limit; requests a client
   * already pipelined past the limit get a bare 503 from Node, so keep it off for pipelining clients). */
  maxRequestsPerSocket?: number;
  /** Requests waiting on one socket behind an unanswered one (pipelining) before it is cut (default 64). */
  maxPipelinedRequests?: number;
  /** Open sockets at once; more are refused at accept (default 0: no limit). */
  maxConnections?: number;
  /** How often the header/request timeouts are checked, ms (default 1 000; Node's is 30 000). */
  timeoutCheckInterval?: number;
  /** After an early answer (413...) keep reading and discarding the unread body: at most this many bytes (default 64 MiB). */
  lingerBytes?: number;
  /** ... and for at most this long, ms (default 5 000), before the socket is closed. */
  lingerTimeout?: number;
}

export type ResolvedServerLimits = Required<ServerLimits>;

export const DEFAULT_SERVER_LIMITS: ResolvedServerLimits = Object.freeze({
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  maxHeaderSize: 16_384,
  maxRequestsPerSocket: 0,
  maxPipelinedRequests: 64,
  maxConnections: 0,
  timeoutCheckInterval: 1_000,
  lingerBytes: 64 * 1024 * 1024,
  lingerTimeout: 5_000,
});

function check(name: keyof ServerLimits, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`keel: listen option ${name} must be an integer >= ${min}, got ${String(value)}`);
  }
}

/** Defaults filled in and every value checked: a bad limit fails `listen()`, not a request. */
export function resolveServerLimits(limits: ServerLimits = {}): ResolvedServerLimits {
  const out = { ...DEFAULT_SERVER_LIMITS } as ResolvedServerLimits;
  for (const key of Object.keys(DEFAULT_SERVER_LIMITS) as Array<keyof ServerLimits>) {
    const v = limits[key];
    if (v !== undefined) out[key] = v;
  }
  for (const key of Object.keys(out) as Array<keyof ServerLimits>) {
    const min = key === "headersTimeout" || key === "maxHeaderSize" || key === "timeoutCheckInterval" || key === "maxPipelinedRequests" ? 1 : 0;
    check(key, out[key], min);
  }
  if (out.requestTimeout > 0 && out.headersTimeout > out.requestTimeout) {
    throw new RangeError(
      `keel: listen option headersTimeout (${out.headersTimeout}) must not exceed requestTimeout (${out.requestTimeout})`,
    );
  }
  return out;
}

/** Node's createServer options for the limits it takes at construction. */
export function serverConstructionOptions(limits: ResolvedServerLimits): {
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  maxHeaderSize: number;
  connectionsCheckingInterval: number;
  requireHostHeader: boolean;
  joinDuplicateHeaders: boolean;
} {
  return {
    headersTimeout: limits.headersTimeout,
    requestTimeout: limits.requestTimeout,
    keepAliveTimeout: limits.keepAliveTimeout,
    maxHeaderSize: limits.maxHeaderSize,
    connectionsCheckingInterval: limits.timeoutCheckInterval,
    // The app checks Host itself so the refusal is the uniform 400 (App.handle).
    requireHostHeader: false,
    // A repeated header reaches the app as one joined value ("a, b") instead of Node keeping the
    // first: two Hosts or two Content-Types then fail their checks, rather than this server
    // reading the first while a proxy in front read the last.
    joinDuplicateHeaders: true,
  };
}

/** The limits Node takes as server properties. */
export function applyServerLimits(server: Server, limits: ResolvedServerLimits): void {
  server.maxRequestsPerSocket = limits.maxRequestsPerSocket;
  if (limits.maxConnections > 0) server.maxConnections = limits.maxConnections;
}
