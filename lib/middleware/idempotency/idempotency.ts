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
// What is stored: successful answers (below 400). A 4xx means the request was refused before it
// did its work (validation, authentication, a conflict) and a 5xx that it failed: the key is
// released so a corrected retry runs (waiting duplicates still receive the same answer), and a
// flood of refused requests stores nothing. Each caller keeps at most `maxKeysPerCaller`
// answers (its own oldest is dropped first), so one client cannot push another's answers out of
// the store within their TTL by sending many keys. A streamed
// (or larger than `maxResponseBytes`) answer is recorded as done but cannot be replayed: a later
// duplicate gets 409 `conflict` rather than a second execution.
// Across processes (a shared store), a duplicate whose original runs elsewhere polls the store
// every `pollIntervalMs` for up to `waitTimeoutMs`, then gets 409.
import { createHash } from "node:crypto";
import { getAuthPrincipal } from "../../shared/principal.js";
import type { Context } from "../../core/context.js";
import { ApiError } from "../../core/errors.js";
import { Reply, type HeaderValue } from "../../core/reply.js";
import type { Layer, Next } from "../../core/route.js";
import { clientAddressResolver, type TrustProxyOptions } from "../client-ip/index.js";
import { MemoryStore, type Store } from "../../stores/index.js";

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
  /** Default store: most records (default 10 000) and bytes (default 64 MiB). */
  maxKeys?: number;
  maxBytes?: number;
  /** Larger answers are not kept for replay (default 1 MiB). */
  maxResponseBytes?: number;
  /** Answers kept per caller; past it the caller's own oldest is dropped (default 100). */
  maxKeysPerCaller?: number;
  /** A claim not finished within this time lapses (crashed process), ms (default 60 s). */
  pendingTtlMs?: number;
  /** Shared stores: how long a duplicate waits for an original running elsewhere (default 10 s). */
  waitTimeoutMs?: number;
  pollIntervalMs?: number;
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

/** Only answers of requests that did their work are kept for replay. */
function storable(status: number): boolean {
  return status < 400;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function idempotency(options: IdempotencyOptions = {}): Layer {
  const header = (options.header ?? IDEMPOTENCY_KEY_HEADER).toLowerCase();
  const ttlMs = options.ttlMs ?? 86_400_000;
  const pendingTtlMs = options.pendingTtlMs ?? 60_000;
  const maxResponseBytes = options.maxResponseBytes ?? 1024 * 1024;
  const waitTimeoutMs = options.waitTimeoutMs ?? 10_000;
  const pollIntervalMs = options.pollIntervalMs ?? 50;
  const methods = new Set((options.methods ?? UNSAFE).map((m) => m.toUpperCase()));
  const required = options.required === true;
  if (!(ttlMs > 0) || !(pendingTtlMs > 0)) throw new TypeError("idempotency: ttlMs and pendingTtlMs must be positive");
  const store =
    options.store ??
    new MemoryStore<IdempotencyRecord>({
      maxEntries: options.maxKeys ?? 10_000,
      maxBytes: options.maxBytes ?? 64 * 1024 * 1024,
      ...(options.now === undefined ? {} : { now: options.now }),
    });
  const maxKeysPerCaller = options.maxKeysPerCaller ?? 100;
  if (!Number.isSafeInteger(maxKeysPerCaller) || maxKeysPerCaller < 1) throw new TypeError("idempotency: maxKeysPerCaller must be a positive integer");
  const maxCallers = options.maxKeys ?? 10_000;
  /** Each caller's stored keys, oldest first (this process's view; bounded in callers and keys). */
  const keysByCaller = new Map<string, string[]>();
  const remember = async (caller: string, key: string): Promise<void> => {
    let keys = keysByCaller.get(caller);
    if (keys === undefined) {
      keys = [];
      if (keysByCaller.size >= maxCallers) keysByCaller.delete(keysByCaller.keys().next().value as string);
    } else keysByCaller.delete(caller); // re-inserted below: most recent caller last
    keysByCaller.set(caller, keys);
    keys.push(key);
    while (keys.length > maxKeysPerCaller) await store.delete(keys.shift()!);
  };
  const address = clientAddressResolver(options.trustProxy);
  const callerOf =
    options.caller ??
    ((ctx: Context): string => {
      const p = getAuthPrincipal(ctx);
      const sub = p?.claims.sub;
      return p !== undefined && typeof sub === "string" ? p.scheme + ":" + sub : "ip:" + address(ctx);
    });
  /** Originals running in this process, for duplicates to wait on (null: it threw). */
  const inflight = new Map<string, Promise<IdempotencyRecord | null>>();

  const record = (reply: Reply, fingerprint: string): { rec: IdempotencyRecord; size: number } => {
    const headers: Array<[string, HeaderValue]> = [];
    let size = 256;
    for (const name in reply.headers) {
      if (NOT_REPLAYED.has(name)) continue;
      const v = reply.headers[name]!;
      headers.push([name, Array.isArray(v) ? [...(v as readonly string[])] : v]);
      size += name.length + String(v).length + 32;
    }
    const b = reply.body;
    let body: string | Uint8Array | null = null;
    let replayable = true;
    if (typeof b === "string") {
      const n = Buffer.byteLength(b);
      if (n <= maxResponseBytes) (body = b), (size += n);
      else replayable = false;
    } else if (b instanceof Uint8Array) {
      if (b.byteLength <= maxResponseBytes) (body = Uint8Array.prototype.slice.call(b)), (size += b.byteLength);
      else replayable = false;
    } else if (b !== null) {
      replayable = false; // a stream: it can be sent once
    }
    return { rec: { state: "done", fingerprint, status: reply.status, headers, body, replayable }, size };
  };

  const replay = (rec: IdempotencyRecord): Reply => {
    if (!rec.replayable) {
      throw ApiError.conflict("A request with this Idempotency-Key was already processed, and its response cannot be replayed");
    }
    const r = new Reply(rec.status, rec.body);
    for (const [name, value] of rec.headers) r.headers[name] = Array.isArray(value) ? [...(value as readonly string[])] : value;
    r.headers[IDEMPOTENT_REPLAYED_HEADER] = "true";
    return r;
  };

  const mismatch = (): never => {
    throw new ApiError(422, "idempotency_key_reused", "This Idempotency-Key was already used with a different request body; use a new key for a new request");
  };

  const execute = async (ctx: Context, next: Next, key: string, fingerprint: string, caller: string): Promise<Reply> => {
    let settle!: (r: IdempotencyRecord | null) => void;
    inflight.set(key, new Promise((r) => (settle = r)));
    let result: IdempotencyRecord | null = null;
    try {
      const reply = await next(ctx);
      const { rec, size } = record(reply, fingerprint);
      if (storable(reply.status)) {
        await store.set(key, rec, { ttlMs, size });
        await remember(caller, key);
      } else await store.delete(key);
      result = rec;
      return reply;
    } catch (err) {
      await store.delete(key);
      throw err;
    } finally {
      inflight.delete(key);
      settle(result);
    }
  };

  const duplicate = async (ctx: Context, next: Next, key: string, fingerprint: string, pending: IdempotencyRecord, caller: string): Promise<Reply> => {
    const deadline = Date.now() + waitTimeoutMs;
    for (;;) {
      const rec = await store.get(key);
      if (rec === undefined) {
        // Released (the original failed or lapsed): this request may run it now.
        if (await store.add(key, pending, { ttlMs: pendingTtlMs })) return execute(ctx, next, key, fingerprint, caller);
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
      if (Date.now() >= deadline) throw ApiError.conflict("A request with this Idempotency-Key is still being processed; retry later");
      await sleep(pollIntervalMs);
    }
  };

  return async function idempotencyLayer(ctx: Context, next: Next): Promise<Reply> {
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
    const key = sha256(ctx.method, ctx.path, caller, k);
    const pending: IdempotencyRecord = { state: "pending", fingerprint, status: 0, headers: [], body: null, replayable: false };
    if (await store.add(key, pending, { ttlMs: pendingTtlMs })) return execute(ctx, next, key, fingerprint, caller);
    return duplicate(ctx, next, key, fingerprint, pending, caller);
  };
}
