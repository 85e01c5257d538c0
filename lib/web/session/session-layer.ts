// Server-side sessions: `session(options)` is a layer, `sessionState()` the extractor that gives
// a handler its request's `Session`.
// - The cookie carries only a random id (32 bytes, base64url) signed with `cookieSigner(keys)`
//   for the cookie's name; the data stays in the store as JSON with a TTL of `maxAge`.
// - Lazy: the layer itself reads nothing. A request whose handler never asks for the session
//   costs no store access and gets no Set-Cookie; neither does a new session whose data stays
//   empty (express-session's `saveUninitialized: false`).
// - A cookie that is missing, badly signed, or names an unknown or expired entry starts a new
//   session with a new id: an id the client chose is never used.
// - After the handler: a new session with data is added under its id (never overwriting), a
//   loaded one is written when its data changed, or, with `rolling`, on every answer to push
//   its expiry and the cookie's Max-Age forward. A loaded session is only ever updated in place:
//   if a concurrent request destroyed or regenerated it meanwhile, it stays gone.
// - A reply made from an error (anything thrown, `reply.error` set) commits nothing: no store
//   write, no delete, no Set-Cookie; the session is left as it was before the request. A failing
//   store makes the answer a 500 rather than a success whose session was not saved.
import type { TLSSocket } from "node:tls";
import { ApiError, type Context, describeLayer, Extractor, type Layer, type Next, type Reply } from "../../index.js";
import { compileCookie, type CompiledCookie, isBase64urlText, isPromise, type SameSite } from "../../plugin.js";
import { cookieSigner, type CookieSigner } from "../cookies/index.js";
import { MemoryStore, type Store } from "../../stores/index.js";
import { newSessionId, Session, type SessionRecord } from "./session.js";
import { dataToJson, decodeEntry, encodeEntry } from "./session-entry.js";

export interface SessionOptions {
  /** Keys of the cookie signature (each at least 32 bytes); the first signs, any verifies. */
  keys: readonly (string | Buffer)[];
  /** Where sessions live (default: a `MemoryStore` on this process, with the session's clock). */
  store?: Store<string>;
  /** Prefix of the store keys (default `sess:`), for a store shared with other layers. */
  prefix?: string;
  /** Cookie name (default `sid`). */
  cookieName?: string;
  /** Lifetime in seconds: the store TTL and the cookie's Max-Age (default 86400). */
  maxAge?: number;
  /** Each answer to a request that loaded an existing session renews its lifetime and re-sends the cookie (default true). */
  rolling?: boolean;
  /** Secure flag. "auto" (default): set in production (KEEL_ENV=production) or over TLS. */
  secure?: boolean | "auto";
  /** SameSite (default "Lax"). */
  sameSite?: SameSite;
  /** HttpOnly (default true). */
  httpOnly?: boolean;
  /** Cookie path (default "/"). */
  path?: string;
  /** Cookie domain (default none: host-only). */
  domain?: string;
  /** Clock in ms (default Date.now); tests pass a controllable one. */
  now?: () => number;
}

/** `ctx.locals` key of the request's session handle. */
export const SESSION_KEY = "keel.session";
const ID_LENGTH = 43;
const DEFAULT_MAX_AGE = 86_400;

interface SessionSettings {
  readonly signer: CookieSigner;
  readonly store: Store<string>;
  readonly prefix: string;
  readonly cookieName: string;
  readonly maxAgeMs: number;
  readonly rolling: boolean;
  readonly now: () => number;
  readonly secureCookie: CompiledCookie;
  readonly plainCookie: CompiledCookie | null;
  readonly secure: boolean | "auto";
}

function isTls(ctx: Context): boolean {
  return (ctx.req.socket as TLSSocket | undefined)?.encrypted === true;
}

/** One request's session: loaded on the first `sessionState()`, committed by the layer. */
class SessionHandle {
  private loaded: Session | Promise<Session> | null = null;
  /** Set once loaded: what the handler did to the session. */
  record: SessionRecord | null = null;
  /** The data's JSON text as loaded ("{}" for a new session), to tell whether it changed. */
  loadedJson = "{}";
  /** The loaded entry's absolute expiry (ms; 0 for a new session). */
  expiresAt = 0;

  constructor(
    private readonly settings: SessionSettings,
    private readonly ctx: Context,
  ) {}

  load(): Session | Promise<Session> {
    if (this.loaded !== null) return this.loaded;
    const s = this.settings;
    const raw = this.ctx.cookies[s.cookieName];
    const id = raw === undefined ? null : s.signer.verify(raw, s.cookieName);
    if (id === null || !isBase64urlText(id, ID_LENGTH)) return (this.loaded = this.open(null, undefined));
    const stored = s.store.get(s.prefix + id);
    if (!isPromise(stored)) return (this.loaded = this.open(id, stored));
    const pending = stored.then((text) => (this.loaded = this.open(id, text)));
    this.loaded = pending;
    return pending;
  }

  private open(id: string | null, text: string | undefined): Session {
    const entry = id === null ? null : decodeEntry(text);
    const live = entry !== null && entry.expiresAt > this.settings.now();
    const record: SessionRecord = {
      id: live ? id! : newSessionId(),
      data: live ? entry.data : new Map(),
      storedId: live ? id : null,
      retired: [],
      destroyed: false,
    };
    this.record = record;
    this.loadedJson = live ? entry.dataJson : "{}";
    this.expiresAt = live ? entry.expiresAt : 0;
    return new Session(record);
  }
}

async function commit(s: SessionSettings, ctx: Context, handle: SessionHandle, reply: Reply): Promise<void> {
  const r = handle.record!;
  const cookie = s.plainCookie === null || (s.secure !== false && (ctx.runtime.production || isTls(ctx))) ? s.secureCookie : s.plainCookie;
  // Serialised first: data changed in place into something JSON cannot carry fails (a 500) before any store write.
  const dataJson = r.destroyed ? "{}" : dataToJson(r.data);
  for (const id of new Set(r.retired)) await s.store.delete(s.prefix + id);
  if (r.destroyed) {
    reply.appendHeader("set-cookie", cookie.clear());
    return;
  }
  const persisted = r.storedId !== null && r.storedId === r.id;
  const now = s.now();
  if (!persisted) {
    if (dataJson === "{}") {
      // Regenerated to an empty session: the old id is gone, so is the client's cookie.
      if (r.retired.length > 0) reply.appendHeader("set-cookie", cookie.clear());
      return;
    }
    const text = encodeEntry(now + s.maxAgeMs, dataJson);
    const added = await s.store.add(s.prefix + r.id, text, { ttlMs: s.maxAgeMs, size: text.length });
    if (!added) throw ApiError.internal("Internal server error", { detail: "session: a new session id is already in the store (or the store refused the entry)" });
    reply.appendHeader("set-cookie", cookie.set(s.signer.sign(r.id, s.cookieName)));
    return;
  }
  const changed = dataJson !== handle.loadedJson;
  if (!changed && !s.rolling) return;
  const expiresAt = s.rolling ? now + s.maxAgeMs : handle.expiresAt;
  const ttlMs = expiresAt - now;
  if (ttlMs <= 0) return; // it expired while the handler ran
  const text = encodeEntry(expiresAt, dataJson);
  // Only an entry that is still there is written: a concurrent destroy() or regenerate() wins.
  const written = await s.store.update(s.prefix + r.id, (current) => (current === undefined ? undefined : text), { ttlMs, size: text.length });
  if (written === undefined || !s.rolling) return;
  reply.appendHeader("set-cookie", cookie.set(s.signer.sign(r.id, s.cookieName)));
}

/**
 * The session layer: a signed random id in a cookie, the data as JSON in a Store, loaded only
 * when a handler asks for it with sessionState(), committed after the handler answers.
 *
 * @example
 * app.layer(session({ keys: [process.env["SESSION_KEY"]!] }));
 * app.route(route.get("/", [sessionState()], (s) => ({ visits: s.set("n", (s.get<number>("n") ?? 0) + 1).get("n") })));
 *
 * @see docs/features/web.md
 */
export function session(options: SessionOptions): Layer {
  const signer = cookieSigner(options.keys);
  const maxAge = options.maxAge ?? DEFAULT_MAX_AGE;
  if (!Number.isInteger(maxAge) || maxAge < 1) throw new TypeError("session: maxAge must be a positive integer (seconds)");
  const now = options.now ?? Date.now;
  const cookieName = options.cookieName ?? "sid";
  const secure = options.secure ?? "auto";
  const attrs = {
    path: options.path ?? "/",
    sameSite: options.sameSite ?? "Lax",
    httpOnly: options.httpOnly ?? true,
    maxAge,
    ...(options.domain !== undefined ? { domain: options.domain } : {}),
  };
  // Both variants are compiled (and validated) now; "auto" picks one per request.
  const settings: SessionSettings = {
    signer,
    store: options.store ?? new MemoryStore<string>({ now }),
    prefix: options.prefix ?? "sess:",
    cookieName,
    maxAgeMs: maxAge * 1000,
    rolling: options.rolling ?? true,
    now,
    secureCookie: compileCookie(cookieName, { ...attrs, secure: true }),
    plainCookie: secure === true ? null : compileCookie(cookieName, { ...attrs, secure: false }),
    secure,
  };
  return describeLayer(
    async function sessionLayer(ctx: Context, next: Next): Promise<Reply> {
      const handle = new SessionHandle(settings, ctx);
      ctx.locals[SESSION_KEY] = handle;
      const reply = await next(ctx);
      if (handle.record === null || reply.error !== null) return reply;
      await commit(settings, ctx, handle, reply);
      return reply;
    },
    {
      parameters: [{ in: "cookie", name: cookieName, required: false, schema: { type: "string" }, description: "The session cookie (a signed id), when the client has a session" }],
    },
  );
}

/** The request's `Session` (loaded from the store on first use). 500 when no session() layer covers the route. */
export function sessionState(): Extractor<Session> {
  return new Extractor<Session>(
    "sessionState",
    (ctx) => {
      const handle = ctx.locals[SESSION_KEY];
      if (handle instanceof SessionHandle) return handle.load();
      throw ApiError.internal("Internal server error", {
        detail: `sessionState() used on route ${ctx.route?.pattern ?? ctx.path} that no session() layer covers`,
      });
    },
    false,
  );
}
