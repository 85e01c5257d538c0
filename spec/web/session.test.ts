// session() and sessionState(): a signed random id in the cookie, the data as JSON in a Store.
// Login flow, lazy loading (no store access and no cookie when unused), uninitialised sessions
// never saved, regenerate/destroy, expiry on a manual clock (exact boundary), rolling and fixed
// lifetimes, tampered or client-chosen ids, cookie attributes, error replies committing nothing,
// concurrent requests on one session, and a real-socket round trip.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { App, ApiError, route, silentLogger, type InjectResponse, type Layer, type ListeningServer } from "../../lib/index.js";
import { MemoryStore, type Store, type StoreSetOptions, type StoreUpdater } from "../../lib/stores/index.js";
import { cookieSigner, session, sessionState, type SessionOptions } from "../../lib/web/index.js";
import { ERROR_ID, send } from "../support/http.js";

const KEYS = ["session-key-".padEnd(40, "s")];
const DAY = 86_400;
const T0 = 1_700_000_000_000;

/** A store that counts what it is asked (and can be made slow or failing). */
class SpyStore implements Store<string> {
  readonly inner: MemoryStore<string>;
  calls: string[] = [];
  delayMs = 0;
  failing = false;
  constructor(now: () => number) {
    this.inner = new MemoryStore<string>({ now });
  }
  private async later<T>(name: string, run: () => T): Promise<T> {
    this.calls.push(name);
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    if (this.failing) throw new Error("store down");
    return run();
  }
  get(key: string) {
    return this.later("get", () => this.inner.get(key));
  }
  set(key: string, value: string, options?: StoreSetOptions) {
    return this.later("set", () => this.inner.set(key, value, options));
  }
  add(key: string, value: string, options?: StoreSetOptions) {
    return this.later("add", () => this.inner.add(key, value, options));
  }
  update(key: string, fn: StoreUpdater<string>, options?: StoreSetOptions) {
    return this.later("update", () => this.inner.update(key, fn, options));
  }
  delete(key: string) {
    return this.later("delete", () => this.inner.delete(key));
  }
  deleteWhere(test: (key: string, value: string) => boolean) {
    return this.later("deleteWhere", () => this.inner.deleteWhere(test));
  }
  clear() {
    return this.later("clear", () => this.inner.clear());
  }
}

function setCookies(r: InjectResponse): string[] {
  const v = r.headers["set-cookie"];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

/** The one `sid` Set-Cookie of a reply (undefined when none). */
function sidCookie(r: InjectResponse, name = "sid"): { pair: string; value: string; raw: string } | undefined {
  const all = setCookies(r).filter((c) => c.startsWith(name + "="));
  assert.ok(all.length <= 1, "at most one session cookie per reply");
  const raw = all[0];
  if (raw === undefined) return undefined;
  const pair = raw.slice(0, raw.indexOf(";"));
  return { pair, value: decodeURIComponent(pair.slice(name.length + 1)), raw };
}

function idOf(cookieValue: string): string {
  return cookieValue.slice(0, cookieValue.lastIndexOf("."));
}

interface Harness {
  app: App;
  store: SpyStore;
  clock: { now: number };
  get(url: string, cookie?: string): Promise<InjectResponse>;
  post(url: string, cookie?: string, body?: unknown): Promise<InjectResponse>;
}

function harness(options: Partial<SessionOptions> = {}, appOptions: { env?: string } = {}, extraLayers: Layer[] = []): Harness {
  const clock = { now: T0 };
  const now = () => clock.now;
  const store = new SpyStore(now);
  const app = new App({ logger: silentLogger, ...appOptions })
    .layer(session({ keys: KEYS, store, now, ...options }))
    .routes(
      route.get("/plain", [], () => ({ ok: true })),
      route.get("/me", [sessionState()], (s) => ({ id: s.id, isNew: s.isNew, data: s.toJSON() })),
      route.post("/cart/{item}", [sessionState()], (s) => {
        s.set("cart", [...(s.get<string[]>("cart") ?? []), "apple"]);
        return { cart: s.get("cart") };
      }),
      route.post("/login", [sessionState()], (s) => {
        s.regenerate();
        s.set("user", "ada");
        return { id: s.id };
      }),
      route.post("/regenerate-only", [sessionState()], (s) => {
        s.regenerate();
        return { id: s.id };
      }),
      route.post("/logout", [sessionState()], (s) => {
        s.destroy();
        return { ok: true };
      }),
      route.post("/forget-user", [sessionState()], (s) => ({ deleted: s.delete("user"), has: s.has("user") })),
      route.post("/fail-after-set", [sessionState()], (s) => {
        s.set("user", "mallory");
        throw ApiError.badRequest("nope");
      }),
      route.post("/fail-after-destroy", [sessionState()], (s) => {
        s.destroy();
        throw new Error("boom");
      }),
      route.post("/fail-after-regenerate", [sessionState()], (s) => {
        s.regenerate();
        s.set("user", "eve");
        throw new Error("boom");
      }),
      route.post("/bad-value", [sessionState()], (s) => {
        s.set("f", () => 1);
        return { ok: true };
      }),
      route.post("/values", [sessionState()], (s) => {
        const obj = { nested: { n: 1 } };
        s.set("when", new Date(Date.UTC(2024, 0, 1)));
        s.set("obj", obj);
        obj.nested.n = 2; // a copy was stored
        s.set("__proto__", "plain key");
        return { when: s.get("when"), n: s.get<{ nested: { n: number } }>("obj")!.nested.n, proto: s.get("__proto__") };
      }),
      route.post("/mutate", [sessionState()], (s) => {
        s.get<{ nested: { n: number } }>("obj")!.nested.n = 3; // changed in place, no set()
        return { ok: true };
      }),
      route.post("/poison", [sessionState()], (s) => {
        s.regenerate();
        s.set("o", { a: 1 });
        s.get<{ a: unknown }>("o")!.a = 10n; // changed in place into what JSON cannot carry
        return { ok: true };
      }),
      route.post("/twice", [sessionState(), sessionState()], (a, b) => ({ same: a === b })),
    );
  for (const l of extraLayers) app.layer(l);
  const headers = (cookie?: string) => (cookie === undefined ? {} : { cookie });
  return {
    app,
    store,
    clock,
    get: (url, cookie) => app.inject({ url, headers: headers(cookie) }),
    post: (url, cookie, body) => app.inject({ method: "POST", url, headers: headers(cookie), body }),
  };
}

/** Log in and return the session cookie pair (`sid=...`). */
async function login(h: Harness, cookie?: string): Promise<string> {
  const r = await h.post("/login", cookie);
  assert.equal(r.status, 200);
  const c = sidCookie(r);
  assert.ok(c, "login sets the session cookie");
  return c.pair;
}

function entry(h: Harness, id: string): { exp: number; data: Record<string, unknown> } | undefined {
  const text = h.store.inner.get("sess:" + id);
  return text === undefined ? undefined : (JSON.parse(text) as { exp: number; data: Record<string, unknown> });
}

describe("session(): login flow and storage", () => {
  it("sets a signed random id on first write and reads the data back on the next request", async () => {
    const h = harness();
    const r = await h.post("/login");
    const c = sidCookie(r)!;
    assert.match(c.value, /^[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}$/);
    const id = idOf(c.value);
    assert.equal(cookieSigner(KEYS).verify(c.value, "sid"), id, "signed with the keys, bound to the cookie name");
    assert.deepEqual(r.json(), { id });
    assert.deepEqual(entry(h, id), { exp: T0 + DAY * 1000, data: { user: "ada" } });
    const me = await h.get("/me", c.pair);
    assert.deepEqual(me.json(), { id, isNew: false, data: { user: "ada" } });
  });

  it("gives different random ids to different clients", async () => {
    const h = harness();
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add(idOf(sidCookie(await h.post("/cart/x"))!.value));
    assert.equal(ids.size, 20);
  });

  it("keeps data across requests and saves a change made in place", async () => {
    const h = harness();
    const first = await h.post("/cart/a");
    const pair = sidCookie(first)!.pair;
    assert.deepEqual((await h.post("/cart/b", pair)).json(), { cart: ["apple", "apple"] });
    const values = await h.post("/values", pair);
    assert.deepEqual(values.json(), { when: "2024-01-01T00:00:00.000Z", n: 1, proto: "plain key" });
    await h.post("/mutate", pair);
    const me = (await h.get("/me", pair)).json<{ data: Record<string, unknown> }>();
    assert.deepEqual(me.data["obj"], { nested: { n: 3 } });
    assert.equal(me.data["when"], "2024-01-01T00:00:00.000Z");
    assert.deepEqual(me.data["cart"], ["apple", "apple"]);
  });

  it("deletes keys (delete/has) and saves the removal", async () => {
    const h = harness();
    const pair = await login(h);
    assert.deepEqual((await h.post("/forget-user", pair)).json(), { deleted: true, has: false });
    assert.deepEqual((await h.post("/forget-user", pair)).json(), { deleted: false, has: false });
    assert.deepEqual((await h.get("/me", pair)).json<{ data: unknown }>().data, {});
  });

  it("refuses data JSON cannot carry: a TypeError at set(), the uniform 500, nothing saved", async () => {
    const h = harness();
    const r = await h.post("/bad-value");
    assert.equal(r.status, 500);
    assert.equal(r.json<{ error: { type: string } }>().error.type, "internal_error");
    assert.equal(sidCookie(r), undefined);
    assert.equal(h.store.inner.size, 0);
  });

  it("loads the session once per request however many extractors ask", async () => {
    const h = harness();
    const pair = await login(h);
    h.store.calls = [];
    assert.deepEqual((await h.post("/twice", pair)).json(), { same: true });
    assert.deepEqual(h.store.calls.filter((c) => c === "get"), ["get"]);
  });
});

describe("session(): lazy loading and uninitialised sessions", () => {
  it("touches neither the store nor the cookie on a route that never asks for the session", async () => {
    const h = harness();
    const pair = await login(h);
    h.store.calls = [];
    for (const cookie of [undefined, pair, "sid=garbage"]) {
      const r = await h.get("/plain", cookie);
      assert.equal(r.status, 200);
      assert.deepEqual(setCookies(r), []);
    }
    assert.deepEqual(h.store.calls, []);
  });

  it("neither stores nor sends a cookie for a new session whose data was never set", async () => {
    const h = harness();
    const r = await h.get("/me");
    assert.deepEqual(r.json<{ isNew: boolean; data: unknown }>().isNew, true);
    assert.deepEqual(setCookies(r), []);
    assert.deepEqual(h.store.calls, [], "no cookie: nothing to look up, nothing to write");
    assert.equal(h.store.inner.size, 0);
    const empty = await h.post("/regenerate-only");
    assert.deepEqual(setCookies(empty), []);
    assert.equal(h.store.inner.size, 0);
  });
});

describe("session(): regenerate and destroy", () => {
  it("regenerate() moves the data to a new id; the old id no longer works", async () => {
    const h = harness();
    const anon = sidCookie(await h.post("/cart/a"))!;
    const oldId = idOf(anon.value);
    const r = await h.post("/login", anon.pair);
    const fresh = sidCookie(r)!;
    const newId = idOf(fresh.value);
    assert.notEqual(newId, oldId);
    assert.equal(entry(h, oldId), undefined, "the old entry is deleted");
    assert.deepEqual(entry(h, newId)?.data, { cart: ["apple"], user: "ada" });
    const withOld = (await h.get("/me", anon.pair)).json<{ id: string; isNew: boolean; data: unknown }>();
    assert.equal(withOld.isNew, true);
    assert.notEqual(withOld.id, oldId);
    assert.deepEqual(withOld.data, {});
    assert.deepEqual((await h.get("/me", fresh.pair)).json<{ data: unknown }>().data, { cart: ["apple"], user: "ada" });
  });

  it("regenerate() of a session left empty deletes the entry and clears the cookie", async () => {
    const h = harness();
    const pair = await login(h);
    await h.post("/forget-user", pair);
    const r = await h.post("/regenerate-only", pair);
    assert.deepEqual(setCookies(r), ["sid=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0"]);
    assert.equal(h.store.inner.size, 0);
  });

  it("destroy() deletes the entry and clears the cookie with Max-Age=0", async () => {
    const h = harness();
    const pair = await login(h);
    const id = idOf(decodeURIComponent(pair.slice(4)));
    const r = await h.post("/logout", pair);
    assert.equal(r.status, 200);
    assert.deepEqual(setCookies(r), ["sid=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0"]);
    assert.equal(entry(h, id), undefined);
    const after = (await h.get("/me", pair)).json<{ isNew: boolean; data: unknown }>();
    assert.equal(after.isNew, true);
    assert.deepEqual(after.data, {});
  });

  it("clears the cookie with the configured path and domain", async () => {
    const h = harness({ path: "/app", domain: "example.com", cookieName: "s" });
    const r = await h.post("/login");
    const c = sidCookie(r, "s")!;
    assert.equal(c.raw, `${c.pair}; Path=/app; Domain=example.com; Max-Age=86400; HttpOnly; SameSite=Lax`);
    const out = await h.post("/logout", c.pair);
    assert.deepEqual(setCookies(out), ["s=; Path=/app; Domain=example.com; HttpOnly; SameSite=Lax; Max-Age=0"]);
  });
});

describe("session(): expiry on the session's clock", () => {
  it("a session is valid until maxAge exactly: 1 ms before it loads, at it a new one starts", async () => {
    for (const rolling of [true, false]) {
      const h = harness({ maxAge: 60, rolling });
      const pair = await login(h);
      h.clock.now = T0 + 60_000 - 1;
      const before = (await h.get("/me", pair)).json<{ isNew: boolean; data: unknown }>();
      assert.deepEqual([before.isNew, before.data], [false, { user: "ada" }], `rolling ${rolling}`);
      // a fresh harness clock for the boundary: the rolling request above renewed the session
      const h2 = harness({ maxAge: 60, rolling });
      const pair2 = await login(h2);
      h2.clock.now = T0 + 60_000;
      const at = await h2.get("/me", pair2);
      assert.deepEqual(at.json<{ isNew: boolean; data: unknown }>().isNew, true, `rolling ${rolling}`);
      assert.deepEqual(setCookies(at), [], "an expired session is not renewed");
    }
  });

  it("rolling (default): each answer pushes expiry forward and re-sends the cookie", async () => {
    const h = harness({ maxAge: 60 });
    const pair = await login(h);
    h.clock.now = T0 + 50_000;
    const r = await h.get("/me", pair);
    const c = sidCookie(r)!;
    assert.equal(c.pair, pair, "same id, same cookie");
    assert.match(c.raw, /; Max-Age=60;/);
    const id = idOf(c.value);
    assert.equal(entry(h, id)?.exp, T0 + 50_000 + 60_000);
    h.clock.now = T0 + 100_000; // past the first deadline, within the renewed one
    assert.deepEqual((await h.get("/me", pair)).json<{ data: unknown }>().data, { user: "ada" });
  });

  it("rolling: false keeps the first deadline even when the data changes, and sends no cookie", async () => {
    const h = harness({ maxAge: 60, rolling: false });
    const pair = await login(h);
    const id = idOf(decodeURIComponent(pair.slice(4)));
    h.clock.now = T0 + 30_000;
    h.store.calls = [];
    const read = await h.get("/me", pair);
    assert.deepEqual(setCookies(read), []);
    assert.deepEqual(h.store.calls, ["get"], "an unchanged session is not written");
    const write = await h.post("/cart/a", pair);
    assert.deepEqual(setCookies(write), []);
    assert.deepEqual(entry(h, id), { exp: T0 + 60_000, data: { user: "ada", cart: ["apple"] } });
    h.clock.now = T0 + 60_000;
    assert.equal((await h.get("/me", pair)).json<{ isNew: boolean }>().isNew, true);
  });

  it("ignores an expired entry that a store still returns", async () => {
    // A store whose TTL is lax (never expires anything): the entry's own deadline still counts.
    const clock = { now: T0 };
    const lax = new MemoryStore<string>();
    const app = new App({ logger: silentLogger })
      .layer(session({ keys: KEYS, store: lax, maxAge: 10, now: () => clock.now }))
      .routes(route.post("/login", [sessionState()], (s) => s.set("u", 1) && { ok: true }), route.get("/me", [sessionState()], (s) => ({ isNew: s.isNew })));
    const c = sidCookie(await app.inject({ method: "POST", url: "/login" }))!;
    clock.now = T0 + 10_000;
    assert.equal(lax.size, 1);
    assert.deepEqual((await app.inject({ url: "/me", headers: { cookie: c.pair } })).json(), { isNew: true });
  });

  it("checks maxAge and keys when built", () => {
    assert.doesNotThrow(() => session({ keys: KEYS, maxAge: 1 }));
    for (const maxAge of [0, -1, 1.5, Number.NaN]) assert.throws(() => session({ keys: KEYS, maxAge }), TypeError, String(maxAge));
    assert.throws(() => session({ keys: [] }), TypeError);
    assert.throws(() => session({ keys: ["a".repeat(31)] }), TypeError);
    assert.throws(() => session({} as SessionOptions), TypeError);
    assert.throws(() => session({ keys: KEYS, cookieName: "a b" }), TypeError);
    assert.throws(() => session({ keys: KEYS, sameSite: "None", secure: "auto" }), TypeError, "SameSite=None needs Secure on every variant");
    assert.doesNotThrow(() => session({ keys: KEYS, sameSite: "None", secure: true }));
  });
});

describe("session(): ids the client brings", () => {
  it("starts a fresh session for a tampered, foreign, re-named or unknown cookie", async () => {
    const h = harness();
    const pair = await login(h);
    const value = decodeURIComponent(pair.slice(4));
    const id = idOf(value);
    const mac = value.slice(value.lastIndexOf(".") + 1);
    const chosen = "A".repeat(43);
    const tampered = [
      `sid=${id.slice(0, -1)}${id.endsWith("A") ? "B" : "A"}.${mac}`,
      `sid=${id}.${mac.slice(0, -1)}${mac.endsWith("A") ? "B" : "A"}`,
      `sid=${id}`,
      `sid=${cookieSigner(["another-key".padEnd(32, "!")]).sign(id, "sid")}`,
      `sid=${cookieSigner(KEYS).sign(id, "other")}`,
      `sid=${cookieSigner(KEYS).sign(chosen, "sid")}`, // well signed, but never issued
      `sid=${cookieSigner(KEYS).sign("short", "sid")}`,
      "sid=",
    ];
    for (const cookie of tampered) {
      const me = (await h.get("/me", cookie)).json<{ id: string; isNew: boolean; data: unknown }>();
      assert.equal(me.isNew, true, cookie);
      assert.deepEqual(me.data, {});
      assert.notEqual(me.id, id);
      assert.notEqual(me.id, chosen);
      const r = await h.post("/cart/a", cookie);
      const issued = idOf(sidCookie(r)!.value);
      assert.notEqual(issued, chosen, "never adopts a client-chosen id");
      assert.notEqual(issued, id);
    }
    assert.deepEqual(entry(h, id)?.data, { user: "ada" }, "the real session is untouched");
  });

  it("starts a fresh session when the stored entry is damaged", async () => {
    const h = harness();
    const pair = await login(h);
    const id = idOf(decodeURIComponent(pair.slice(4)));
    for (const junk of ["not json", "[]", '{"exp":"x","data":{}}', `{"exp":${T0 + 1e9},"data":[]}`, `{"exp":${T0 + 1e9}}`, "null"]) {
      h.store.inner.set("sess:" + id, junk);
      assert.equal((await h.get("/me", pair)).json<{ isNew: boolean }>().isNew, true, junk);
    }
  });
});

describe("session(): cookie attributes", () => {
  it("defaults to HttpOnly, SameSite=Lax, Path=/, Max-Age=86400, no Secure outside production", async () => {
    const r = await harness().post("/login");
    const c = sidCookie(r)!;
    assert.equal(c.raw, `${c.pair}; Path=/; Max-Age=86400; HttpOnly; SameSite=Lax`);
  });

  it("adds Secure in production with secure: \"auto\", and honours true/false", async () => {
    const prod = sidCookie(await harness({}, { env: "production" }).post("/login"))!;
    assert.equal(prod.raw, `${prod.pair}; Path=/; Max-Age=86400; HttpOnly; Secure; SameSite=Lax`);
    const off = sidCookie(await harness({ secure: false }, { env: "production" }).post("/login"))!;
    assert.ok(!off.raw.includes("Secure"));
    const on = sidCookie(await harness({ secure: true }).post("/login"))!;
    assert.match(on.raw, /; Secure;/);
    const logout = await harness({}, { env: "production" }).post("/logout");
    assert.deepEqual(setCookies(logout), ["sid=; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=0"]);
  });

  it("adds Secure for a request that arrived over TLS with secure: \"auto\"", async () => {
    // A layer ahead of session() marks inject's stand-in socket as a TLS socket (`encrypted`).
    const overTls: Layer = (ctx, next) => {
      (ctx.req.socket as unknown as { encrypted: boolean }).encrypted = true;
      return next(ctx);
    };
    const clock = () => T0;
    const app = new App({ logger: silentLogger })
      .layer(overTls)
      .layer(session({ keys: KEYS, now: clock }))
      .routes(route.post("/login", [sessionState()], (s) => s.set("u", 1) && { ok: true }));
    const c = sidCookie(await app.inject({ method: "POST", url: "/login" }))!;
    assert.equal(c.raw, `${c.pair}; Path=/; Max-Age=86400; HttpOnly; Secure; SameSite=Lax`);
  });

  it("takes cookieName, sameSite, httpOnly and maxAge options", async () => {
    const r = await harness({ cookieName: "__Host-s", secure: true, sameSite: "Strict", httpOnly: false, maxAge: 5 }).post("/login");
    const c = sidCookie(r, "__Host-s")!;
    assert.equal(c.raw, `${c.pair}; Path=/; Max-Age=5; Secure; SameSite=Strict`);
    assert.ok(cookieSigner(KEYS).verify(c.value, "__Host-s"));
  });
});

describe("session(): error replies commit nothing", () => {
  it("a new session set before a throw is not stored and gets no cookie", async () => {
    const h = harness();
    const r = await h.post("/fail-after-set");
    assert.equal(r.status, 400);
    assert.equal(r.json<{ error: { type: string } }>().error.type, "bad_request");
    assert.deepEqual(setCookies(r), []);
    assert.equal(h.store.inner.size, 0);
  });

  it("an existing session keeps its data, is not renewed and not destroyed", async () => {
    const h = harness({ maxAge: 60 });
    const pair = await login(h);
    const id = idOf(decodeURIComponent(pair.slice(4)));
    h.clock.now = T0 + 10_000;
    for (const url of ["/fail-after-set", "/fail-after-destroy", "/fail-after-regenerate"]) {
      const r = await h.post(url, pair);
      assert.ok(r.status >= 400, url);
      assert.match(r.json<{ error_id: string }>().error_id, ERROR_ID);
      assert.deepEqual(setCookies(r), [], url);
      assert.deepEqual(entry(h, id), { exp: T0 + 60_000, data: { user: "ada" } }, url);
    }
    assert.equal(h.store.inner.size, 1, "no entry for the regenerated id");
    assert.deepEqual((await h.get("/me", pair)).json<{ data: unknown }>().data, { user: "ada" });
  });

  it("data changed in place into what JSON cannot carry is a 500 before any store change", async () => {
    const h = harness();
    const pair = await login(h);
    const id = idOf(decodeURIComponent(pair.slice(4)));
    const r = await h.post("/poison", pair);
    assert.equal(r.status, 500);
    assert.deepEqual(setCookies(r), []);
    assert.deepEqual(entry(h, id)?.data, { user: "ada" }, "the old entry was not deleted by the regenerate");
    assert.equal(h.store.inner.size, 1);
  });

  it("a failing store answers the uniform 500 instead of a success with an unsaved session", async () => {
    const h = harness();
    const pair = await login(h);
    h.store.failing = true;
    for (const [method, url] of [["GET", "/me"], ["POST", "/cart/a"]] as const) {
      const r = await h.app.inject({ method, url, headers: { cookie: pair } });
      assert.equal(r.status, 500, url);
      assert.equal(r.json<{ error: { type: string } }>().error.type, "internal_error");
      assert.deepEqual(setCookies(r), []);
    }
    const fresh = await h.post("/cart/a");
    assert.equal(fresh.status, 500, "a new session that cannot be added is a 500 too");
    assert.deepEqual(setCookies(fresh), []);
  });

  it("sessionState() without a session() layer is a 500", async () => {
    const app = new App({ logger: silentLogger }).routes(route.get("/me", [sessionState()], (s) => s.id));
    const r = await app.inject({ url: "/me" });
    assert.equal(r.status, 500);
    assert.equal(r.json<{ error: { type: string } }>().error.type, "internal_error");
  });
});

describe("session(): concurrent requests on one session", () => {
  it("two slow writers both answer; the last write wins, no crash", async () => {
    const h = harness();
    const pair = await login(h);
    h.store.delayMs = 20;
    const [a, b] = await Promise.all([h.post("/cart/a", pair), h.post("/forget-user", pair)]);
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    h.store.delayMs = 0;
    const me = await h.get("/me", pair);
    assert.equal(me.status, 200);
    const data = me.json<{ data: Record<string, unknown> }>().data;
    assert.ok(JSON.stringify(data) === '{"user":"ada","cart":["apple"]}' || JSON.stringify(data) === "{}", JSON.stringify(data));
  });

  it("a request that loaded the session before a concurrent logout does not bring it back", async () => {
    const clock = { now: T0 };
    const store = new MemoryStore<string>({ now: () => clock.now });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let loaded!: () => void;
    const isLoaded = new Promise<void>((r) => (loaded = r));
    const app = new App({ logger: silentLogger })
      .layer(session({ keys: KEYS, store, now: () => clock.now }))
      .routes(
        route.post("/login", [sessionState()], (s) => s.set("user", "ada") && { ok: true }),
        route.post("/logout", [sessionState()], (s) => s.destroy()),
        route.post("/slow", [sessionState()], async (s) => {
          loaded();
          await gate;
          s.set("late", true);
          return { ok: true };
        }),
      );
    const pair = sidCookie(await app.inject({ method: "POST", url: "/login" }))!.pair;
    const slow = app.inject({ method: "POST", url: "/slow", headers: { cookie: pair } });
    await isLoaded;
    const out = await app.inject({ method: "POST", url: "/logout", headers: { cookie: pair } });
    assert.equal(out.status, 204);
    release();
    const r = await slow;
    assert.equal(r.status, 200);
    assert.deepEqual(setCookies(r), [], "no cookie for a session that is gone");
    assert.equal(store.size, 0, "the destroyed entry is not written again");
  });
});

describe("session() over a real socket", () => {
  let server: ListeningServer;
  before(async () => {
    const app = new App({ logger: silentLogger })
      .layer(session({ keys: KEYS }))
      .routes(
        route.post("/login", [sessionState()], (s) => {
          s.regenerate();
          s.set("user", "ada");
          return { ok: true };
        }),
        route.get("/me", [sessionState()], (s) => ({ user: s.get("user") ?? null })),
        route.get("/plain", [], () => "plain"),
      );
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  it("logs in, reads the session back, and leaves unrelated routes without Set-Cookie", async () => {
    const login = await send(server.url + "/login", { method: "POST" });
    assert.equal(login.status, 200);
    const cookies = login.headers["set-cookie"] ?? [];
    assert.equal(cookies.length, 1);
    const pair = cookies[0]!.slice(0, cookies[0]!.indexOf(";"));
    assert.match(cookies[0]!, /^sid=[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}; Path=\/; Max-Age=86400; HttpOnly; SameSite=Lax$/);
    const me = await send(server.url + "/me", { headers: { cookie: pair } });
    assert.deepEqual(JSON.parse(me.body), { user: "ada" });
    assert.equal(me.headers["set-cookie"]?.[0]?.startsWith(pair + ";"), true, "rolling re-sends the same cookie");
    const plain = await send(server.url + "/plain", { headers: { cookie: pair } });
    assert.equal(plain.headers["set-cookie"], undefined);
    const anon = await send(server.url + "/me");
    assert.deepEqual(JSON.parse(anon.body), { user: null });
    assert.equal(anon.headers["set-cookie"], undefined);
  });
});
