// Token-bucket rate limiting. Each key (client address by default) owns a bucket of `capacity`
// tokens refilled continuously at `refillPerSecond`; a request takes one token or is refused with
// 429 `rate_limit_exceeded` (uniform body) and `Retry-After`. Every answer carries the IETF
// draft headers (draft-ietf-httpapi-ratelimit-headers-06):
//   RateLimit-Limit: capacity   RateLimit-Remaining: whole tokens left
//   RateLimit-Reset: seconds until the bucket is full again   RateLimit-Policy: capacity;w=seconds
//
// Keys: "ip" (default) is the socket peer; X-Forwarded-For is read only with an explicit
// `trustProxy: { hops }` (see client-ip.ts); IPv6 clients are grouped by /64 (`ipv6PrefixBits`).
// "user" is the authenticated principal's `sub` (jwt() or apiKey() must run first), "api-key"
// the verified API key; both fall back to the client address for anonymous requests. A function
// gives any key (null/undefined falls back to the client address).
// Scope: one bucket per key across every route the layer covers (global, or a `group(...)`), or
// with `perRoute: true` one per key and route. A route opts out with `config: { rateLimit: false }`.
//
// Shared stores: a store with `takeToken` (a TokenBucketStore such as redisStore) refills and takes
// in one round trip on its own clock (Redis: the server's, shared by every process), so all
// processes sharing it give a client one budget; `now` then only drives the in-memory path.
// Any other store goes through `update`.
//
// Memory is bounded: the default store keeps at most `maxKeys` buckets (default 10 000, about
// 150 bytes each), evicting the least recently used. A bucket also expires once it would have
// refilled completely, so dropping it changes nothing. An evicted active bucket starts full again:
// size `maxKeys` above the number of clients active within one refill period.
import { createHash } from "node:crypto";
import { getAuthPrincipal } from "../../shared/principal.js";
import { ApiError, type Context, describeLayer, type Layer, type LayerDoc, type Reply } from "../../index.js";
import { clientAddressResolver, ipv6Network, type TrustProxyOptions } from "../client-ip/index.js";
import { type Chain, directLayer, isPromise } from "../../plugin.js";
import { isTokenBucketStore, MemoryStore, type Store, type StoreSetOptions, type TokenBucketState } from "../../stores/index.js";

export type { TokenBucketState };

export type RateLimitKey = "ip" | "user" | "api-key" | ((ctx: Context) => string | null | undefined);

export interface RateLimitOptions {
  /** Bucket size: the burst allowed, and RateLimit-Limit. */
  capacity: number;
  /** Tokens added per second. */
  refillPerSecond: number;
  /** What a bucket belongs to (default "ip"). */
  key?: RateLimitKey;
  /** A bucket per key and route instead of one per key for all routes the layer covers. Default false. */
  perRoute?: boolean;
  /** Read the client address from X-Forwarded-For behind this many trusted proxies. Default: socket peer. */
  trustProxy?: TrustProxyOptions;
  /** IPv6 clients share a bucket per network of this many bits (default 64; 128 = per address). */
  ipv6PrefixBits?: number;
  /** Header an API key comes in, for `key: "api-key"` (default x-api-key). */
  apiKeyHeader?: string;
  /** Where buckets live (default: a MemoryStore of `maxKeys`). A store with `takeToken` is used through it. */
  store?: Store<TokenBucketState>;
  /** Most buckets kept by the default store (default 10 000). */
  maxKeys?: number;
  /** Send the RateLimit-* headers on allowed answers (default true; 429s always carry them). */
  headers?: boolean;
  /** Key prefix, for several limiters sharing one store. */
  name?: string;
  /** Clock in ms (default Date.now). */
  now?: () => number;
}

export const DEFAULT_RATE_LIMIT_MAX_KEYS = 10_000;
const MAX_KEY_LENGTH = 200;

function digest(s: string): string {
  return createHash("sha256").update(s).digest("base64url").slice(0, 32);
}

function compileKey(options: RateLimitOptions): (ctx: Context) => string {
  const resolve = clientAddressResolver(options.trustProxy);
  const bits = options.ipv6PrefixBits ?? 64;
  if (!Number.isInteger(bits) || bits < 16 || bits > 128) throw new TypeError("rateLimit: ipv6PrefixBits must be an integer from 16 to 128");
  // The key of the last address seen: a connection's requests come from one address, so most
  // requests reuse it instead of building (and hashing) a fresh string.
  let lastAddress: string | undefined;
  let lastKey = "";
  const ip = (ctx: Context): string => {
    const a = resolve(ctx);
    if (a !== lastAddress) {
      lastKey = "ip:" + (a.indexOf(":") === -1 ? a : ipv6Network(a, bits));
      lastAddress = a;
    }
    return lastKey;
  };
  const key = options.key ?? "ip";
  if (key === "ip") return ip;
  if (key === "user") {
    return (ctx) => {
      const sub = getAuthPrincipal(ctx)?.claims.sub;
      return typeof sub === "string" && sub !== "" ? "user:" + sub : ip(ctx);
    };
  }
  if (key === "api-key") {
    const header = (options.apiKeyHeader ?? "x-api-key").toLowerCase();
    return (ctx) => {
      const p = getAuthPrincipal(ctx);
      // Only a key an authentication layer accepted: random unverified keys must not buy fresh buckets.
      if (p === undefined || p.scheme !== "api-key") return ip(ctx);
      const sub = p.claims.sub;
      if (typeof sub === "string" && sub !== "") return "key:" + sub;
      const raw = ctx.header(header);
      return raw === undefined ? ip(ctx) : "key#" + digest(raw);
    };
  }
  if (typeof key === "function") {
    return (ctx) => {
      const k = key(ctx);
      return typeof k === "string" && k !== "" ? "fn:" + k : ip(ctx);
    };
  }
  throw new TypeError(`rateLimit: unknown key ${JSON.stringify(key)}`);
}

/** True when the route opted out with `config: { rateLimit: false }`. */
function exempt(ctx: Context): boolean {
  const c = ctx.route?.meta.config;
  return c !== undefined && c["rateLimit"] === false;
}

const INTEGER_HEADER = { type: "integer", minimum: 0 } as const;

/** What a rate limit adds to the operations it covers in the OpenAPI document (not those with `config: { rateLimit: false }`). */
function rateLimitDoc(sendHeaders: boolean): LayerDoc {
  const headers = {
    "ratelimit-limit": { description: "Requests allowed in a full window (the bucket's capacity)", schema: INTEGER_HEADER },
    "ratelimit-remaining": { description: "Requests left now", schema: INTEGER_HEADER },
    "ratelimit-reset": { description: "Seconds until the bucket is full again", schema: INTEGER_HEADER },
    "ratelimit-policy": { description: "The policy: `<capacity>;w=<seconds>`", schema: { type: "string" } },
  };
  return {
    optOut: "rateLimit",
    responses: {
      429: {
        description: "Too many requests from this client: wait for Retry-After seconds",
        headers: { "retry-after": { description: "Seconds to wait before retrying", schema: INTEGER_HEADER }, ...(sendHeaders ? headers : {}) },
      },
    },
    ...(sendHeaders ? { headers } : {}),
  };
}

/**
 * A token bucket per client (address by default): 429 with `Retry-After` when it is empty,
 * `RateLimit-*` headers on allowed answers. Routes opt out with `config: { rateLimit: false }`.
 *
 * @example
 * ```ts
 * app.layer(rateLimit({ capacity: 100, refillPerSecond: 10 }));
 * route.post("/login", { layers: [rateLimit({ capacity: 5, refillPerSecond: 0.1, name: "login" })] }, [], () => "ok");
 * ```
 * @see docs/features/middleware.md
 */
export function rateLimit(options: RateLimitOptions): Layer {
  const capacity = options.capacity;
  const rate = options.refillPerSecond;
  if (!Number.isInteger(capacity) || capacity < 1) throw new TypeError("rateLimit: capacity must be a positive integer");
  if (!(rate > 0) || !Number.isFinite(rate)) throw new TypeError("rateLimit: refillPerSecond must be a positive number");
  const now = options.now ?? Date.now;
  const perMs = rate / 1000;
  const fullMs = Math.ceil(capacity / perMs);
  const store = options.store ?? new MemoryStore<TokenBucketState>({ maxEntries: options.maxKeys ?? DEFAULT_RATE_LIMIT_MAX_KEYS, now });
  // One round trip per request on a store that can take a token itself; undefined keeps the update path.
  const bucketTtlMs = fullMs + 1000;
  const setOptions: StoreSetOptions = { ttlMs: bucketTtlMs };
  const takeToken = isTokenBucketStore(store) ? store.takeToken.bind(store) : undefined;
  const keyOf = compileKey(options);
  const perRoute = options.perRoute === true;
  const prefix = options.name === undefined ? "" : options.name + "|";
  const sendHeaders = options.headers !== false;
  const limitText = String(capacity);
  const policyText = `${capacity};w=${Math.ceil(capacity / rate)}`;

  // One updater for all requests (no per-request closure): refill, then take a token if there is one.
  const take = (b: TokenBucketState | undefined): TokenBucketState => {
    const t = now();
    if (b === undefined) return { tokens: capacity - 1, at: t, ok: true };
    let tokens = b.tokens + (t - b.at) * perMs;
    if (tokens > capacity) tokens = capacity;
    if (tokens >= 1) {
      b.tokens = tokens - 1;
      b.ok = true;
    } else {
      b.tokens = tokens;
      b.ok = false;
    }
    b.at = t;
    return b;
  };

  const headersOf = (b: TokenBucketState): Record<string, string> => ({
    "ratelimit-limit": limitText,
    "ratelimit-remaining": String(Math.floor(b.tokens)),
    "ratelimit-reset": String(Math.ceil((capacity - b.tokens) / rate)),
    "ratelimit-policy": policyText,
  });

  const refuse = (b: TokenBucketState): never => {
    const wait = Math.max(1, Math.ceil((1 - b.tokens) / rate));
    const headers = headersOf(b);
    headers["retry-after"] = String(wait);
    throw ApiError.tooManyRequests(`Rate limit exceeded: try again in ${wait} second${wait === 1 ? "" : "s"}`, { headers });
  };

  const decorate = (reply: Reply, tokens: number): Reply => {
    const h = reply.headers;
    h["ratelimit-limit"] = limitText;
    h["ratelimit-remaining"] = String(Math.floor(tokens));
    h["ratelimit-reset"] = String(Math.ceil((capacity - tokens) / rate));
    h["ratelimit-policy"] = policyText;
    return reply;
  };

  const proceed = (ctx: Context, next: Chain, b: TokenBucketState | undefined): Reply | Promise<Reply> => {
    if (b === undefined || !b.ok) return refuse(b ?? { tokens: 0, at: now(), ok: false });
    if (!sendHeaders) return next(ctx);
    // Read what the headers need now: a shared store may hand the same object to the next request.
    const tokens = b.tokens;
    const r = next(ctx);
    return isPromise(r) ? r.then((reply) => decorate(reply, tokens)) : decorate(r, tokens);
  };

  // A direct layer: with a store that answers at once and a route that answers synchronously,
  // no promise is made for the limit.
  return describeLayer(directLayer(function rateLimitLayer(ctx: Context, next: Chain): Reply | Promise<Reply> {
    if (exempt(ctx)) return next(ctx);
    let key = keyOf(ctx);
    if (key.length > MAX_KEY_LENGTH) key = "h#" + digest(key);
    if (perRoute) key = (ctx.route === null ? "-" : ctx.method + " " + ctx.route.pattern) + "|" + key;
    if (prefix !== "") key = prefix + key;
    const b = takeToken === undefined ? store.update(key, take, setOptions) : takeToken(key, capacity, rate, bucketTtlMs);
    if (isPromise(b)) return b.then((x) => proceed(ctx, next, x));
    return proceed(ctx, next, b);
  }), rateLimitDoc(sendHeaders));
}
