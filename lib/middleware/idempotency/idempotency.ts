// Idempotency keys (Stripe style; draft-ietf-httpapi-idempotency-key-header). A request with an
// `Idempotency-Key` header runs once: the first claims the key atomically (`store.add`),
// concurrent duplicates wait for it and get its answer, later duplicates within the TTL get the
// stored response replayed (status, headers, body) with `idempotent-replayed: true`. Reusing a
// key with a different body is 422 `idempotency_key_reused`. Keys are scoped by method, path
// and caller (the authenticated principal, else the client address), so one caller can neither
// collide with nor read another's responses.
//
// Only unsafe methods by default (POST, PUT, PATCH, DELETE). A route opts out with
// `config: { idempotency: false }`; `required: true` makes the header mandatory (400 without it).
//
// What is stored (the rule follows Stripe and draft-ietf-httpapi-idempotency-key-header): the
// answers of requests that did their work, i.e. below 400. A 4xx means the request was refused
// before it did anything (validation, authentication, a conflict, a rate limit): the key is
// released, so a corrected retry with the same key runs, and a flood of refused requests stores
// nothing. A 5xx is released too by default (a failure is usually rolled back, and a retry after
// it is what keys are for); `keepServerErrors: true` stores 5xx answers as well, for handlers
// whose failures may have done part of the work (Stripe's choice). Waiting duplicates of a
// request that was not stored still receive its answer.
//
// Keeping the 24 h promise against other clients (ledger.ts): each caller keeps at most
// `maxKeysPerCaller` answers and `maxBytesPerCaller` bytes, its own oldest dropped first; a
// full store makes room max-min fairly and otherwise refuses a new key with 503 + Retry-After
// rather than evict another caller's answer within its TTL; an answer too large for the bytes
// left is kept as a stub (a duplicate gets 409, never a second execution). The default caller
// is the authenticated principal, else the client address; IPv6 clients share one budget per
// /64 (one host usually owns a /64) while their keys stay scoped to the full address. A caller
// with `maxKeysPerCaller` keyed requests in flight gets 429 for more.
//
// A streamed (or larger than `maxResponseBytes`) answer is recorded as done but cannot be
// replayed: a later duplicate gets 409 `conflict` rather than a second execution.
// Across processes (a shared store), a duplicate whose original runs elsewhere polls the store
// for up to `waitTimeoutMs`, then gets 409: first after `pollIntervalMs`, the wait doubling after
// each poll up to `maxPollIntervalMs`, so a long original costs a few reads, not one per interval.
// The caps then apply to what each process stored.
import { createHash } from "node:crypto";
import { getAuthPrincipal } from "../../shared/principal.js";
import { captureReply, restoreReply } from "../../shared/reply-snapshot.js";
import { ApiError, type Context, describeLayer, type HeaderValue, type Layer, type LayerDoc, type Next, Reply } from "../../index.js";
import { isPromise } from "../../plugin.js";
import { clientAddressResolver, ipv6Network, type TrustProxyOptions } from "../client-ip/index.js";
import { MemoryStore, type Store } from "../../stores/index.js";
import { IdempotencyLedger, STUB_BYTES, type Bucket } from "./ledger.js";

export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";
export const IDEMPOTENT_REPLAYED_HEADER = "idempotent-replayed";

export interface IdempotencyRecord {
  state: "pending" | "done";
  /** SHA-256 of the request's content type and body. */
  fingerprint: string;
  status: number;
  headers: Array<[string, HeaderValue]>;
  body: string | Uint8Array | null;
  /** False for streamed or oversized answers: recorded, not replayable. */
  replayable: boolean;
}

export interface IdempotencyOptions {
  /** Request header carrying the key (default idempotency-key). */
  header?: string;
  /** How long a finished answer is kept for replay, ms (default 24 h). */
  ttlMs?: number;
  /** Methods the layer acts on (default POST, PUT, PATCH, DELETE). */
  methods?: readonly string[];
  /** Refuse requests without the header with 400 (default false: they pass through). */
  required?: boolean;
  /** Who the caller is (default: principal `scheme:sub`, else the client address). */
  caller?: (ctx: Context) => string;
  /** For the default caller: read the client address behind trusted proxies. */
  trustProxy?: TrustProxyOptions;
  store?: Store<IdempotencyRecord>;
  /** Most answers kept plus requests in flight, all callers together (default 10 000). */
  maxKeys?: number;
  /** Most bytes of kept answers, all callers together (default 64 MiB). */
  maxBytes?: number;
  /** Larger answers are not kept for replay (default 1 MiB). */
  maxResponseBytes?: number;
  /** Answers kept per caller; past it the caller's own oldest is dropped (default 100). */
  maxKeysPerCaller?: number;
  /** Bytes of answers kept per caller; past it the caller's own oldest are dropped (default 4 MiB). */
  maxBytesPerCaller?: number;
  /** Also store 5xx answers (default false: a 5xx releases the key so a retry runs). */
  keepServerErrors?: boolean;
  /** A claim not finished within this time lapses (crashed process), ms (default 60 s). */
  pendingTtlMs?: number;
  /** Shared stores: how long a duplicate waits for an original running elsewhere (default 10 s). */
  waitTimeoutMs?: number;
  /** Shared stores: the first wait between two reads of a key whose original runs elsewhere, ms (default 50); it doubles after each read. */
  pollIntervalMs?: number;
  /** Shared stores: the longest wait between two reads, ms (default 1000). */
  maxPollIntervalMs?: number;
  /** Clock in ms (default Date.now). */
  now?: () => number;
}

const MAX_KEY_LENGTH = 255;
const UNSAFE = ["POST", "PUT", "PATCH", "DELETE"];
/** Headers of the original answer that a replay must not repeat. */
const NOT_REPLAYED = new Set(["date", "connection", "keep-alive", "transfer-encoding", "content-length"]);

function sha256(...parts: Array<string | Uint8Array>): string {
  const h = createHash("sha256");
  for (const p of parts) h.update(p).update("\n");
  return h.digest("base64url");
}

/** The key without sf-string quotes, or null when malformed (empty, too long, not visible ASCII). */
function parseKey(raw: string): string | null {
  let k = raw.trim();
  if (k.length >= 2 && k.charCodeAt(0) === 34 && k.charCodeAt(k.length - 1) === 34) k = k.slice(1, -1);
  if (k.length === 0 || k.length > MAX_KEY_LENGTH) return null;
  for (let i = 0; i < k.length; i++) {
    const c = k.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) return null;
  }
  return k;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const ignore = (): void => {};

/** What idempotency keys add to the operations they cover in the OpenAPI document (not those with `config: { idempotency: false }`). */
function idempotencyDoc(header: string, required: boolean, methods: readonly string[]): LayerDoc {
  return {
    optOut: "idempotency",
    methods,
    parameters: [
      {
        in: "header",
        name: header,
        required,
        schema: { type: "string", minLength: 1, maxLength: 255 },
        description: "Makes retries safe: a repeated request with the same key gets the first answer again (with `idempotent-replayed: true`)",
      },
    ],
    responses: {
      400: { description: required ? `The ${header} header is missing or not 1 to ${MAX_KEY_LENGTH} visible ASCII characters` : `The ${header} header is not 1 to ${MAX_KEY_LENGTH} visible ASCII characters` },
      // A keyed request's body is read (to fingerprint it) under the route's body limit.
      413: { description: "The body of a keyed request is larger than the route accepts" },
      409: { description: "A request with this key is still running, or its answer cannot be replayed" },
      422: { description: "This key was already used with a different request body" },
      429: { description: "Too many requests with an idempotency key are in flight for this client" },
      503: { description: "Too many answers are being kept; retry later", headers: { "retry-after": { schema: { type: "integer", minimum: 0 } } } },
    },
    headers: { [IDEMPOTENT_REPLAYED_HEADER]: { description: "`true` on an answer replayed for a repeated key", schema: { type: "string", enum: ["true"] } } },
  };
}

/**
 * One execution per `Idempotency-Key`: a repeated request gets the recorded answer
 * (`idempotent-replayed: true`); the same key with another body is 422, one still running is 409.
 *
 * @example
 * ```ts
 * route.post("/payments", { layers: [idempotency({ required: true })] }, [json(Payment)], (p) => created(p));
 * ```
 * @see docs/features/middleware.md
 */
export function idempotency(options: IdempotencyOptions = {}): Layer {
  const header = (options.header ?? IDEMPOTENCY_KEY_HEADER).toLowerCase();
  const ttlMs = options.ttlMs ?? 86_400_000;
  const pendingTtlMs = options.pendingTtlMs ?? 60_000;
  const maxResponseBytes = options.maxResponseBytes ?? 1024 * 1024;
  const waitTimeoutMs = options.waitTimeoutMs ?? 10_000;
  const pollIntervalMs = options.pollIntervalMs ?? 50;
  const maxPollIntervalMs = Math.max(pollIntervalMs, options.maxPollIntervalMs ?? 1000);
  if (!(pollIntervalMs >= 0)) throw new TypeError("idempotency: pollIntervalMs must be 0 or more");
  const methods = new Set((options.methods ?? UNSAFE).map((m) => m.toUpperCase()));
  const required = options.required === true;
  if (!(ttlMs > 0) || !(pendingTtlMs > 0)) throw new TypeError("idempotency: ttlMs and pendingTtlMs must be positive");
  const maxKeys = options.maxKeys ?? 10_000;
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const maxKeysPerCaller = options.maxKeysPerCaller ?? 100;
  const maxBytesPerCaller = options.maxBytesPerCaller ?? 4 * 1024 * 1024;
  for (const [name, v] of [["maxKeys", maxKeys], ["maxKeysPerCaller", maxKeysPerCaller], ["maxBytes", maxBytes], ["maxBytesPerCaller", maxBytesPerCaller]] as const) {
    if (!Number.isSafeInteger(v) || v < 1) throw new TypeError(`idempotency: ${name} must be a positive integer`);
  }
  const keepServerErrors = options.keepServerErrors === true;
  /** Only answers of requests that did their work are kept for replay (see the top of the file). */
  const storable = (status: number): boolean => status < 400 || (keepServerErrors && status >= 500);
  const now = options.now ?? Date.now;
  // The ledger decides what is kept; the default store gets headroom so it never evicts first.
  const store =
    options.store ??
    new MemoryStore<IdempotencyRecord>({ maxEntries: 2 * maxKeys, maxBytes: 2 * maxBytes + maxKeys * STUB_BYTES, now });
  const dropFromStore = (key: string): void => {
    const done = store.delete(key);
    if (isPromise(done)) done.then(undefined, ignore);
  };
  const ledger = new IdempotencyLedger({ maxKeys, maxKeysPerCaller, maxBytes, maxBytesPerCaller, ttlMs, now }, dropFromStore);
  const address = clientAddressResolver(options.trustProxy);
  const callerOf =
    options.caller ??
    ((ctx: Context): string => {
      const p = getAuthPrincipal(ctx);
      const sub = p?.claims.sub;
      return p !== undefined && typeof sub === "string" ? p.scheme + ":" + sub : "ip:" + address(ctx);
    });
  /** Whose budget a request counts against: the caller, but one budget per IPv6 /64 for the default caller. */
  const budgetOf = (caller: string): string =>
    options.caller === undefined && caller.startsWith("ip:") && caller.indexOf(":", 3) !== -1 ? "ip:" + ipv6Network(caller.slice(3), 64) : caller;
  /** Originals running in this process, for duplicates to wait on (null: it threw). */
  const inflight = new Map<string, Promise<IdempotencyRecord | null>>();

  const record = (reply: Reply, fingerprint: string): { rec: IdempotencyRecord; size: number } => {
    // A streamed or oversized body is not kept: the record says the key was used, not what to replay.
    const { snapshot, headerChars, bodyBytes, complete } = captureReply(reply, NOT_REPLAYED, maxResponseBytes);
    const size = 256 + headerChars + 32 * snapshot.headers.length + bodyBytes;
    return { rec: { state: "done", fingerprint, status: snapshot.status, headers: snapshot.headers, body: snapshot.body, replayable: complete }, size };
  };

  const replay = (rec: IdempotencyRecord): Reply => {
    if (!rec.replayable) {
      throw ApiError.conflict("A request with this Idempotency-Key was already processed, and its response cannot be replayed");
    }
    const r = restoreReply(rec);
    r.headers[IDEMPOTENT_REPLAYED_HEADER] = "true";
    return r;
  };

  const mismatch = (): never => {
    throw new ApiError(422, "idempotency_key_reused", "This Idempotency-Key was already used with a different request body; use a new key for a new request");
  };

  const refuse = (why: "busy" | "full"): never => {
    if (why === "busy") throw ApiError.tooManyRequests("Too many requests with an Idempotency-Key are in flight for this client; retry when they finish");
    throw ApiError.serviceUnavailable("Too many Idempotency-Key answers are being kept; retry later", {
      headers: { "retry-after": String(ledger.retryAfterSeconds()) },
    });
  };

  /** Claim `key` for this request: its budget's bucket, or null when the key is already taken. */
  const tryClaim = async (key: string, pending: IdempotencyRecord, budget: string): Promise<Bucket | null> => {
    const bucket = ledger.reserve(budget);
    if (typeof bucket === "string") return refuse(bucket);
    let added = false;
    try {
      added = await store.add(key, pending, { ttlMs: pendingTtlMs });
    } finally {
      if (!added) ledger.release(bucket);
    }
    if (!added) return null;
    ledger.discard(key); // a record the store lost early is no longer this key's
    return bucket;
  };

  const execute = async (ctx: Context, next: Next, key: string, fingerprint: string, bucket: Bucket): Promise<Reply> => {
    let settle!: (r: IdempotencyRecord | null) => void;
    inflight.set(key, new Promise((r) => (settle = r)));
    let result: IdempotencyRecord | null = null;
    try {
      const reply = await next(ctx);
      const { rec, size } = record(reply, fingerprint);
      if (storable(reply.status)) {
        if (ledger.keep(bucket, key, size)) await store.set(key, rec, { ttlMs, size });
        else await store.set(key, { ...rec, headers: [], body: null, replayable: false }, { ttlMs, size: STUB_BYTES });
      } else await store.delete(key);
      result = rec;
      return reply;
    } catch (err) {
      await store.delete(key);
      throw err;
    } finally {
      ledger.release(bucket);
      inflight.delete(key);
      settle(result);
    }
  };

  const duplicate = async (ctx: Context, next: Next, key: string, fingerprint: string, pending: IdempotencyRecord, budget: string): Promise<Reply> => {
    const deadline = Date.now() + waitTimeoutMs;
    let wait = pollIntervalMs;
    for (;;) {
      const rec = await store.get(key);
      if (rec === undefined) {
        // Released (the original failed or lapsed): this request may run it now.
        const bucket = await tryClaim(key, pending, budget);
        if (bucket !== null) return execute(ctx, next, key, fingerprint, bucket);
        continue;
      }
      if (rec.fingerprint !== fingerprint) return mismatch();
      if (rec.state === "done") return replay(rec);
      const local = inflight.get(key);
      if (local !== undefined) {
        const result = await local;
        if (result === null) throw ApiError.conflict("The original request with this Idempotency-Key failed; send it again");
        return replay(result);
      }
      const left = deadline - Date.now();
      if (left <= 0) throw ApiError.conflict("A request with this Idempotency-Key is still being processed; retry later");
      await sleep(Math.min(wait, left));
      wait = Math.min(wait * 2, maxPollIntervalMs);
    }
  };

  return describeLayer(async function idempotencyLayer(ctx: Context, next: Next): Promise<Reply> {
    if (!methods.has(ctx.method)) return next(ctx);
    const config = ctx.route?.meta.config;
    if (config !== undefined && config["idempotency"] === false) return next(ctx);
    const raw = ctx.header(header);
    if (raw === undefined) {
      if (required) throw ApiError.badRequest(`The ${header} header is required on this route`);
      return next(ctx);
    }
    const k = parseKey(raw);
    if (k === null) throw ApiError.badRequest(`The ${header} header must be 1 to ${MAX_KEY_LENGTH} visible ASCII characters`);
    const body = await ctx.body();
    const fingerprint = sha256(ctx.header("content-type") ?? "", body);
    const caller = callerOf(ctx);
    const budget = budgetOf(caller);
    const key = sha256(ctx.method, ctx.path, caller, k);
    const pending: IdempotencyRecord = { state: "pending", fingerprint, status: 0, headers: [], body: null, replayable: false };
    ledger.sweep();
    // When full, a duplicate must still be answered from the store, not refused for lack of room.
    if (ledger.size >= maxKeys && (await store.get(key)) !== undefined) return duplicate(ctx, next, key, fingerprint, pending, budget);
    const bucket = await tryClaim(key, pending, budget);
    if (bucket !== null) return execute(ctx, next, key, fingerprint, bucket);
    return duplicate(ctx, next, key, fingerprint, pending, budget);
  }, idempotencyDoc(header, required, [...methods]));
}
