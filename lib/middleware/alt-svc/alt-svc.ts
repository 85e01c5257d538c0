// altSvc(): advertise an alternative service (RFC 7838), typically HTTP/3 served by a QUIC-capable
// proxy or load balancer in front of the app: Node 20 has no QUIC, so keel itself speaks HTTP/1.1
// and HTTP/2 only, and nothing is advertised unless this layer is configured. The value is checked
// once at construction: `clear`, or a comma-separated list of `protocol="[host]:port"` entries
// with optional `ma=<seconds>` and `persist=1` parameters.
import { type Context, describeLayer, type Layer, type Next, type Reply } from "../../index.js";
import { isHttpToken } from "../../plugin.js";

export interface AltService {
  /** ALPN protocol id, e.g. "h3". */
  protocol: string;
  /** Port the alternative listens on. */
  port: number;
  /** Host of the alternative (default: the same host). */
  host?: string;
  /** How long clients may use it, seconds (default: the browser's 24 h). */
  maxAge?: number;
  /** Keep it across network changes (`persist=1`). */
  persist?: boolean;
}

const HOST = /^[A-Za-z0-9.\-]*$|^\[[0-9A-Fa-f:.]+\]$/;

function serialize(service: AltService): string {
  const { protocol, port, host = "", maxAge, persist } = service;
  if (typeof protocol !== "string" || !isHttpToken(protocol)) throw new TypeError(`altSvc: invalid protocol id ${JSON.stringify(protocol)}`);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new TypeError(`altSvc: port must be 1-65535, got ${String(port)}`);
  if (!HOST.test(host)) throw new TypeError(`altSvc: invalid host ${JSON.stringify(host)}`);
  let value = `${protocol}="${host}:${port}"`;
  if (maxAge !== undefined) {
    if (!Number.isSafeInteger(maxAge) || maxAge < 0) throw new TypeError(`altSvc: maxAge must be a non-negative integer, got ${String(maxAge)}`);
    value += `; ma=${maxAge}`;
  }
  if (persist === true) value += "; persist=1";
  return value;
}

/**
 * `app.layer(altSvc([{ protocol: "h3", port: 443, maxAge: 86400 }]))` adds
 * `Alt-Svc: h3=":443"; ma=86400` to every answer; `altSvc("clear")` tells clients to forget
 * earlier advertisements.
 *
 * @example
 * ```ts
 * app.layer(altSvc([{ protocol: "h3", port: 443, maxAge: 86400 }]));
 * ```
 * @see docs/features/middleware.md
 */
export function altSvc(services: readonly AltService[] | "clear"): Layer {
  let value: string;
  if (services === "clear") value = "clear";
  else {
    if (services.length === 0) throw new TypeError("altSvc: name at least one service, or \"clear\"");
    value = services.map(serialize).join(", ");
  }
  const set = (reply: Reply): Reply => {
    reply.headers["alt-svc"] = value;
    return reply;
  };
  return describeLayer(
    function altSvcLayer(ctx: Context, next: Next): Promise<Reply> {
      return next(ctx).then(set);
    },
    { headers: { "alt-svc": { description: `Alternative services (RFC 7838): ${value}`, schema: { type: "string" } } } },
  );
}
