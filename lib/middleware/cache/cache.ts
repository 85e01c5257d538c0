// Response cache for GET and HEAD (HEAD is answered from GET entries). Entries are kept per URL
// (path + query) in a bounded LRU store (count and bytes) with a TTL, one variant per value of the
// request headers the response's `Vary` names (Accept from negotiation, Accept-Encoding, ...).
//
// Never stored: requests carrying Authorization or Cookie (unless the route allows it, below),
// requests with `Cache-Control: no-store`, answers with Set-Cookie, `Cache-Control: private`,
// `no-store` or `no-cache`, `Vary: *`, a streamed body, a status outside `statuses`, or a body
// over `maxEntryBytes`. A response `s-maxage`/`max-age` shortens the TTL (0 means not stored).
// A request with `Cache-Control: no-cache` (or `Pragma: no-cache`) skips the lookup and refreshes
// the entry. Credentials per route, `config: { cache: { credentials } }` (or the layer option):
//   "bypass" (default): requests with Authorization/Cookie are neither served nor stored;
//   "per-user": they are, keyed by (a hash of) the Authorization and Cookie values;
//   "shared": the same answer for everyone, credentials ignored (only for public data).
// A route opts out with `config: { cache: false }`, sets its own `ttlMs` and `tags` there.
//
// Stored answers get a strong ETag (SHA-256 of the body) unless they have one; If-None-Match
// (weak comparison, as RFC 9110 requires) answers 304. Every GET/HEAD answer gets
// `x-cache: HIT|MISS`; hits get `age`. Invalidation: `invalidate(url)` (every variant of one
// path + query), `invalidatePrefix("/users/")`, `invalidateTag("users")`, `clear()`. On a store
// with `deleteTagged` (redisStore) entries are written with their tags and `invalidateTag` is one
// call; otherwise it is a `deleteWhere` scan. Entries are plain data (the reply class by name),
// so a shared store can keep them.
// Put compression outside the cache (a global layer): streamed, compressed bodies are not stored.
// A hit keeps the reply's class and `value`, so a negotiation() layer outside the cache still
// answers TOON from a cached JSON entry.
import { createHash } from "node:crypto";
import { type Context, describeLayer, type HeaderValue, type Layer, type LayerDoc, type Next, Reply, type ReplyBody } from "../../index.js";
import { headerText, parseCacheControl, splitList } from "../../shared/header-lists.js";
import { captureReply, restoreReply } from "../../shared/reply-snapshot.js";
import { isTaggedStore, MemoryStore, type MaybePromise, type Store, type StoreSetOptions } from "../../stores/index.js";

export type CacheCredentials = "bypass" | "per-user" | "shared";

/** Reply or a subclass of it (NegotiatedReply), rebuilt from a cached variant. */
export type ReplyClass = new (status: number, body: ReplyBody) => Reply;

/** Per-route settings: `config: { cache: { ttlMs, credentials, tags } }`, or `cache: false`. */
export interface CacheRouteConfig {
  ttlMs?: number;
  credentials?: CacheCredentials;
  tags?: readonly string[];
}

export interface CachedVariant {
  varyKey: string;
  status: number;
  headers: Array<[string, HeaderValue]>;
  body: string | Uint8Array | null;
  etag: string;
  /** The value the reply was made from and its class, so outer layers (negotiation) can re-encode a hit. */
  value: unknown;
  /** The reply's class, by name (entries are plain data, so a shared store can keep them). */
  kind: string;
  storedAt: number;
  expiresAt: number;
  size: number;
}

export interface CacheEntry {
  /** Lowercase request header names the variants are keyed on. */
  vary: string[];
  tags: string[];
  variants: CachedVariant[];
}

export interface ResponseCacheOptions {
  /** Default TTL, ms (default 60 s). */
  ttlMs?: number;
  /** Default store bounds: URLs kept (default 1000) and bytes (default 32 MiB). */
  maxEntries?: number;
  maxBytes?: number;
  /** Bodies larger than this are not stored (default 1 MiB). */
  maxEntryBytes?: number;
  /** Variants kept per URL (default 8; the oldest goes). */
  maxVariants?: number;
  /** Statuses that are stored (default 200, 203, 204). */
  statuses?: readonly number[];
  /** Requests with credentials (default "bypass"); routes override it. */
  credentials?: CacheCredentials;
  /** Tags for an answer, for `invalidateTag` (added to the route's config tags). */
  tags?: (ctx: Context) => readonly string[];
  /** Add a strong ETag to stored answers that lack one (default true). */
  etag?: boolean;
  /**
   * Where entries live (default: a MemoryStore of `maxEntries`/`maxBytes`). A store with
   * `deleteTagged` (a TaggedStore such as redisStore) is given each entry's tags and answers
   * `invalidateTag` itself; otherwise `invalidateTag` scans with `deleteWhere`.
   */
  store?: Store<CacheEntry>;
  /**
   * Reply classes a hit may have to rebuild (e.g. NegotiatedReply), for a shared store whose
   * entries another process wrote: this process learns a class when it stores a reply of it,
   * and until then rebuilds an unknown class as a plain Reply.
   */
  replyClasses?: readonly ReplyClass[];
  /** Clock in ms (default Date.now). */
  now?: () => number;
}

/** The cache layer, plus its invalidation API. */
export type ResponseCache = Layer & {
  /** Drop every variant of one URL (path plus `?query` when there is one). */
  invalidate(url: string): MaybePromise<boolean>;
  invalidatePrefix(prefix: string): MaybePromise<number>;
  invalidateTag(tag: string): MaybePromise<number>;
  clear(): MaybePromise<void>;
};

export const CACHE_STATUS_HEADER = "x-cache";
/** Response headers a stored answer never repeats. */
const NOT_STORED = new Set(["date", "age", "connection", "keep-alive", "transfer-encoding", "content-length", CACHE_STATUS_HEADER]);
const SECRET_HEADERS = new Set(["authorization", "cookie"]);
const EMPTY: readonly string[] = [];

function bodySize(b: string | Uint8Array | null): number {
  return b === null ? 0 : typeof b === "string" ? Buffer.byteLength(b) : b.byteLength;
}

export function strongEtag(body: string | Uint8Array | null): string {
  return '"' + createHash("sha256").update(body ?? "").digest("base64url").slice(0, 27) + '"';
}

/** If-None-Match against one entity tag, with weak comparison (W/ ignored on both sides). */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined || etag === "") return false;
  const opaque = etag.startsWith("W/") ? etag.slice(2) : etag;
  for (const item of splitList(header)) {
    if (item === "*") return true;
    if ((item.startsWith("W/") ? item.slice(2) : item) === opaque) return true;
  }
  return false;
}

/** What the cache adds to GET/HEAD operations in the OpenAPI document (not those with `config: { cache: false }`). */
const CACHE_DOC: LayerDoc = {
  optOut: "cache",
  methods: ["GET", "HEAD"],
  parameters: [{ in: "header", name: "if-none-match", required: false, schema: { type: "string" }, description: "Entity tags the client holds: a match is answered 304 without a body" }],
  responses: {
    304: {
      description: "Not modified: the ETag sent in If-None-Match still matches",
      headers: { etag: { description: "The entity tag of the current answer", schema: { type: "string" } } },
    },
  },
  headers: {
    [CACHE_STATUS_HEADER]: { description: "Whether the answer came from the cache", schema: { type: "string", enum: ["HIT", "MISS"] } },
    etag: { description: "The entity tag of a cacheable answer (strong, from its body, unless the route sets one)", schema: { type: "string" } },
    age: { description: "Seconds the answer has been in the cache (hits only)", schema: { type: "integer", minimum: 0 } },
  },
};

function routeConfig(ctx: Context): CacheRouteConfig | false | undefined {
  const c = ctx.route?.meta.config?.["cache"];
  if (c === false) return false;
  return typeof c === "object" && c !== null ? (c as CacheRouteConfig) : undefined;
}

/** A reply's value as plain JSON data (undefined when it has none, or none JSON can carry). */
function jsonValueOf(reply: Reply): unknown {
  if (!reply.hasValue) return undefined;
  try {
    const text = JSON.stringify(reply.value);
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

/**
 * A response cache for GET/HEAD with ETags (If-None-Match: 304) and `x-cache: HIT|MISS`; the
 * layer also has `invalidate`, `invalidatePrefix`, `invalidateTag` and `clear`.
 *
 * @example
 * ```ts
 * const cache = responseCache({ ttlMs: 30_000 });
 * route.get("/todos", { layers: [cache] }, [], () => todos);
 * await cache.invalidate("/todos"); // after a write
 * ```
 * @see docs/features/middleware.md
 */
export function responseCache(options: ResponseCacheOptions = {}): ResponseCache {
  const now = options.now ?? Date.now;
  const defaultTtl = options.ttlMs ?? 60_000;
  const maxEntryBytes = options.maxEntryBytes ?? 1024 * 1024;
  const maxVariants = options.maxVariants ?? 8;
  const statuses = new Set(options.statuses ?? [200, 203, 204]);
  const defaultCredentials = options.credentials ?? "bypass";
  const tagsOf = options.tags;
  const addEtag = options.etag !== false;
  if (!(defaultTtl > 0)) throw new TypeError("responseCache: ttlMs must be positive");
  const store =
    options.store ??
    new MemoryStore<CacheEntry>({ maxEntries: options.maxEntries ?? 1000, maxBytes: options.maxBytes ?? 32 * 1024 * 1024, now });
  const tagged = isTaggedStore(store) ? store : undefined;
  // A store given in the options may be shared (redisStore) and keep only plain data: it gets the
  // value as JSON reads it back (what the body says), not the handler's object, which may be a
  // class instance or hold undefined in an array. The default in-process store keeps the object.
  const valueOf = options.store === undefined ? (reply: Reply): unknown => reply.value : jsonValueOf;
  /** Reply classes by name, for rebuilding hits (see `replyClasses`). */
  const replyClasses = new Map<string, ReplyClass>([["Reply", Reply]]);
  for (const k of options.replyClasses ?? []) replyClasses.set(k.name, k);
  const kindOf = (reply: Reply): string => {
    const k = reply.constructor as ReplyClass;
    if (!replyClasses.has(k.name)) replyClasses.set(k.name, k);
    return k.name;
  };

  /** The variant key: the request's values of the Vary'd headers (credentials hashed, never kept). */
  const varyKey = (ctx: Context, vary: readonly string[], credentials: CacheCredentials): string => {
    let key = "";
    for (const name of vary) {
      const v = ctx.header(name) ?? "";
      key += name + "=" + (SECRET_HEADERS.has(name) && v !== "" ? createHash("sha256").update(v).digest("base64url") : v) + "\n";
    }
    if (credentials === "per-user") {
      for (const name of SECRET_HEADERS) {
        if (vary.includes(name)) continue;
        const v = ctx.header(name);
        if (v !== undefined) key += name + "#" + createHash("sha256").update(v).digest("base64url") + "\n";
      }
    }
    return key;
  };

  const notModified = (source: Reply | CachedVariant, etag: string, xcache: string): Reply => {
    const r = new Reply(304, null);
    r.headers["etag"] = etag;
    const headers = source instanceof Reply ? Object.entries(source.headers) : source.headers;
    for (const [name, value] of headers) {
      if (name === "vary" || name === "cache-control" || name === "expires" || name === "content-location") r.headers[name] = value;
    }
    r.headers[CACHE_STATUS_HEADER] = xcache;
    return r;
  };

  const hit = (ctx: Context, v: CachedVariant, t: number): Reply => {
    if (ifNoneMatchHits(ctx.header("if-none-match"), v.etag)) {
      const r = notModified(v, v.etag, "HIT");
      r.headers["age"] = String(Math.floor((t - v.storedAt) / 1000));
      return r;
    }
    const r = restoreReply(v, replyClasses.get(v.kind) ?? Reply);
    r.value = v.value;
    const h = r.headers;
    h[CACHE_STATUS_HEADER] = "HIT";
    h["age"] = String(Math.floor((t - v.storedAt) / 1000));
    return r;
  };

  /** The TTL for this answer, or 0 when it must not be stored. */
  const storableTtl = (reply: Reply, routeTtl: number): number => {
    if (!statuses.has(reply.status)) return 0;
    const h = reply.headers;
    if (h["set-cookie"] !== undefined) return 0;
    const b = reply.body;
    if (b !== null && typeof b !== "string" && !(b instanceof Uint8Array)) return 0;
    if (bodySize(b) > maxEntryBytes) return 0;
    const cc = parseCacheControl(headerText(h["cache-control"]));
    if (cc.noStore || cc.private || cc.noCache) return 0;
    const vary = headerText(h["vary"]);
    if (vary !== undefined && vary.indexOf("*") !== -1) return 0;
    const limit = cc.sMaxAge >= 0 ? cc.sMaxAge : cc.maxAge;
    return limit >= 0 ? Math.min(routeTtl, limit * 1000) : routeTtl;
  };

  const save = (ctx: Context, url: string, reply: Reply, ttl: number, credentials: CacheCredentials, tags: readonly string[]): MaybePromise<unknown> => {
    const t = now();
    const vary = splitList(headerText(reply.headers["vary"]) ?? "").map((v) => v.toLowerCase()).sort();
    // storableTtl refused streams and bodies over maxEntryBytes: the snapshot is complete.
    const { snapshot, headerChars, bodyBytes } = captureReply(reply, NOT_STORED);
    let size = 200 + headerChars + 16 * snapshot.headers.length + bodyBytes;
    if (reply.value !== undefined) size += bodyBytes; // the value is kept too: count it like its JSON
    const variant: CachedVariant = {
      varyKey: varyKey(ctx, vary, credentials),
      status: snapshot.status,
      headers: snapshot.headers,
      body: snapshot.body,
      etag: headerText(reply.headers["etag"]) ?? "",
      value: valueOf(reply),
      kind: kindOf(reply),
      storedAt: t,
      expiresAt: t + ttl,
      size,
    };
    const setOptions: StoreSetOptions = { ttlMs: ttl, size };
    return store.update(url, (entry) => {
      const sameVary = entry !== undefined && entry.vary.length === vary.length && entry.vary.every((v, i) => v === vary[i]);
      const variants = sameVary ? entry.variants.filter((v) => v.varyKey !== variant.varyKey && v.expiresAt > t) : [];
      variants.push(variant);
      while (variants.length > maxVariants) variants.shift();
      let total = 0;
      for (const v of variants) total += v.size;
      setOptions.size = total; // the store reads its options after the updater returns
      const allTags = sameVary ? [...new Set([...entry.tags, ...tags])] : [...tags];
      if (tagged !== undefined) setOptions.tags = allTags;
      return { vary, tags: allTags, variants };
    }, setOptions);
  };

  const layer = async function responseCacheLayer(ctx: Context, next: Next): Promise<Reply> {
    const method = ctx.method;
    if (method !== "GET" && method !== "HEAD") return next(ctx);
    const rc = routeConfig(ctx);
    if (rc === false) return next(ctx);
    const credentials = rc?.credentials ?? defaultCredentials;
    const req = ctx.req.headers;
    if (credentials === "bypass" && (req.authorization !== undefined || req.cookie !== undefined)) {
      const reply = await next(ctx);
      reply.headers[CACHE_STATUS_HEADER] = "MISS";
      return reply;
    }
    const cc = parseCacheControl(ctx.header("cache-control"));
    const noCache = cc.noCache || (req["cache-control"] === undefined && ctx.header("pragma")?.toLowerCase().includes("no-cache") === true);
    const url = ctx.rawQuery === "" ? ctx.path : ctx.path + "?" + ctx.rawQuery;
    if (!noCache && !cc.noStore) {
      const entry = await store.get(url);
      if (entry !== undefined) {
        const key = varyKey(ctx, entry.vary, credentials);
        const t = now();
        for (const v of entry.variants) if (v.varyKey === key && v.expiresAt > t) return hit(ctx, v, t);
      }
    }
    const reply = await next(ctx);
    reply.headers[CACHE_STATUS_HEADER] = "MISS";
    if (cc.noStore) return reply;
    const ttl = storableTtl(reply, rc?.ttlMs ?? defaultTtl);
    if (ttl <= 0) return reply;
    let etag = headerText(reply.headers["etag"]);
    if (etag === undefined && addEtag) reply.headers["etag"] = etag = strongEtag(reply.body as string | Uint8Array | null);
    const tags = rc?.tags ?? EMPTY;
    await save(ctx, url, reply, ttl, credentials, tagsOf === undefined ? tags : [...tags, ...tagsOf(ctx)]);
    if (etag !== undefined && ifNoneMatchHits(ctx.header("if-none-match"), etag)) return notModified(reply, etag, "MISS");
    return reply;
  };

  return Object.assign(describeLayer(layer, CACHE_DOC), {
    invalidate: (url: string) => store.delete(url),
    invalidatePrefix: (prefix: string) => store.deleteWhere((key) => key.startsWith(prefix)),
    invalidateTag: (tag: string) => (tagged !== undefined ? tagged.deleteTagged(tag) : store.deleteWhere((_key, entry) => entry.tags.includes(tag))),
    clear: () => store.clear(),
  });
}
