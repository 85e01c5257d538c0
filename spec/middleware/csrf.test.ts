// csrf() over a real socket: the token cookie on safe methods, csrfToken() for handlers,
// 403 `forbidden` for unsafe methods without a matching header (or urlencoded form field),
// content types that are no way around it, per-route opt-out, cookie attributes.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { App, form, route, silentLogger, text, type ListeningServer } from "../../lib/index.js";
import { csrf, csrfToken } from "../../lib/middleware/index.js";
import { ERROR_ID, send, type WireResponse } from "../support/http.js";

function tokenCookie(r: WireResponse, name = "csrf_token"): { value: string; raw: string } | undefined {
  const all = r.headers["set-cookie"] ?? [];
  for (const raw of all) {
    if (raw.startsWith(name + "=")) return { value: raw.slice(name.length + 1, raw.indexOf(";")), raw };
  }
  return undefined;
}

interface ErrorBody {
  error: { type: string; message: string };
}

describe("csrf() with defaults", () => {
  let server: ListeningServer;
  let lastForm: unknown;
  before(async () => {
    const app = new App({ logger: silentLogger })
      .layer(csrf())
      .routes(
        route.get("/form", [csrfToken()], (token) => ({ token })),
        route.post("/items", [], () => ({ ok: true })),
        route.put("/items", [], () => ({ ok: true })),
        route.patch("/items", [], () => ({ ok: true })),
        route.delete("/items", [], () => ({ ok: true })),
        route.post("/form", [form()], (f) => {
          lastForm = f;
          return { name: f["name"] };
        }),
        route.post("/text", [text()], (t) => t),
        route.post("/hook", { config: { csrf: false } }, [], () => "hooked"),
      );
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  async function fresh(): Promise<string> {
    const r = await send(server.url + "/form");
    const c = tokenCookie(r);
    assert.ok(c);
    return c.value;
  }

  it("issues a signed token cookie (16-byte nonce . SHA-256 MAC) on GET and gives the same token to the handler", async () => {
    const r = await send(server.url + "/form");
    assert.equal(r.status, 200);
    const c = tokenCookie(r);
    assert.ok(c, "set-cookie expected");
    assert.match(c.value, /^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(c.value.split(".")[0]!, "base64url").length, 16);
    assert.equal(c.raw, `csrf_token=${c.value}; Path=/; SameSite=Lax`);
    assert.deepEqual(JSON.parse(r.body), { token: c.value });
    const other = await fresh();
    assert.notEqual(other, c.value);
  });

  it("keeps a valid existing cookie and replaces a malformed one", async () => {
    const token = await fresh();
    const again = await send(server.url + "/form", { headers: { cookie: `csrf_token=${token}` } });
    assert.equal(tokenCookie(again), undefined);
    assert.deepEqual(JSON.parse(again.body), { token });
    const bad = await send(server.url + "/form", { headers: { cookie: "csrf_token=short" } });
    assert.ok(tokenCookie(bad));
    assert.ok(tokenCookie(await send(server.url + "/form", { method: "HEAD" })));
  });

  it("accepts POST, PUT, PATCH and DELETE when header and cookie match", async () => {
    const token = await fresh();
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      const r = await send(server.url + "/items", { method, headers: { cookie: `csrf_token=${token}`, "x-csrf-token": token } });
      assert.equal(r.status, 200, method);
    }
  });

  it("answers 403 forbidden for a missing cookie, missing header or mismatch", async () => {
    const token = await fresh();
    const other = await fresh();
    const cases: Array<[Record<string, string>, string]> = [
      [{}, "CSRF cookie missing or invalid"],
      [{ "x-csrf-token": token }, "CSRF cookie missing or invalid"],
      [{ cookie: `csrf_token=${token}` }, "CSRF token missing"],
      [{ cookie: `csrf_token=${token}`, "x-csrf-token": other }, "CSRF token mismatch"],
      [{ cookie: `csrf_token=${token}`, "x-csrf-token": token.slice(0, -1) }, "CSRF token mismatch"],
      [{ cookie: `csrf_token=${token}`, "x-csrf-token": "" }, "CSRF token mismatch"],
      [{ cookie: "csrf_token=x", "x-csrf-token": "x" }, "CSRF cookie missing or invalid"],
    ];
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      for (const [headers, message] of cases) {
        const r = await send(server.url + "/items", { method, headers });
        assert.equal(r.status, 403, `${method} ${JSON.stringify(headers)}`);
        const body = JSON.parse(r.body) as ErrorBody;
        assert.equal(body.error.type, "forbidden");
        assert.equal(body.error.message, message);
      }
    }
  });

  it("accepts the token from an urlencoded _csrf field, and the form extractor still reads the body", async () => {
    const token = await fresh();
    lastForm = undefined;
    const r = await send(server.url + "/form", {
      method: "POST",
      headers: { cookie: `csrf_token=${token}`, "content-type": "application/x-www-form-urlencoded" },
      body: `name=ada&_csrf=${token}`,
    });
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.body), { name: "ada" });
    assert.equal((lastForm as Record<string, string>)["_csrf"], token);
    const wrong = await send(server.url + "/form", {
      method: "POST",
      headers: { cookie: `csrf_token=${token}`, "content-type": "application/x-www-form-urlencoded" },
      body: `name=ada&_csrf=${token.slice(1)}x`,
    });
    assert.equal(wrong.status, 403);
  });

  it("does not let missing, odd or non-form content types skip the check", async () => {
    const token = await fresh();
    for (const contentType of [undefined, "text/plain", "TEXT/PLAIN", "application/json", "multipart/form-data; boundary=x", "nonsense", "application/x-www-form-urlencodedx"]) {
      const headers: Record<string, string> = { cookie: `csrf_token=${token}` };
      if (contentType !== undefined) headers["content-type"] = contentType;
      const r = await send(server.url + "/text", { method: "POST", headers, body: `_csrf=${token}` });
      assert.equal(r.status, 403, String(contentType));
    }
    const ok = await send(server.url + "/text", { method: "POST", headers: { cookie: `csrf_token=${token}`, "x-csrf-token": token, "content-type": "text/plain" }, body: "hi" });
    assert.equal(ok.status, 200);
  });

  it("skips routes that opt out and unrouted requests", async () => {
    assert.equal((await send(server.url + "/hook", { method: "POST" })).status, 200);
    assert.equal((await send(server.url + "/nowhere", { method: "POST" })).status, 404);
  });
});

describe("csrf() configured", () => {
  let server: ListeningServer;
  let prodServer: ListeningServer;
  before(async () => {
    const options = { cookieName: "__Host-xsrf", headerName: "X-XSRF", secure: true, sameSite: "Strict" as const, formField: false as const };
    server = await new App({ logger: silentLogger })
      .layer(csrf(options))
      .routes(route.get("/t", [csrfToken()], (t) => t), route.post("/p", [form()], () => "ok"))
      .listen({ port: 0 });
    prodServer = await new App({ logger: silentLogger, env: "production" })
      .layer(csrf({ path: "/app", httpOnly: true }))
      .routes(route.get("/app/t", [csrfToken()], (t) => t))
      .listen({ port: 0 });
  });
  after(async () => {
    await server.close();
    await prodServer.close();
  });

  it("uses the configured names and attributes", async () => {
    const r = await send(server.url + "/t");
    const c = tokenCookie(r, "__Host-xsrf");
    assert.ok(c);
    assert.equal(c.raw, `__Host-xsrf=${c.value}; Path=/; Secure; SameSite=Strict`);
    const ok = await send(server.url + "/p", { method: "POST", headers: { cookie: `__Host-xsrf=${c.value}`, "x-xsrf": c.value, "content-type": "application/x-www-form-urlencoded" }, body: "a=1" });
    assert.equal(ok.status, 200);
    const formOnly = await send(server.url + "/p", { method: "POST", headers: { cookie: `__Host-xsrf=${c.value}`, "content-type": "application/x-www-form-urlencoded" }, body: `_csrf=${c.value}` });
    assert.equal(formOnly.status, 403);
  });

  it("sets Secure automatically in production", async () => {
    const r = await send(prodServer.url + "/app/t");
    const c = tokenCookie(r);
    assert.ok(c);
    assert.equal(c.raw, `csrf_token=${c.value}; Path=/app; HttpOnly; Secure; SameSite=Lax`);
  });

  it("refuses cookie names, paths and header names that cannot be written safely", () => {
    assert.throws(() => csrf({ cookieName: "a;b" }), TypeError);
    assert.throws(() => csrf({ cookieName: "a b" }), TypeError);
    assert.throws(() => csrf({ path: "/x;\r\nSet-Cookie: a=b" }), TypeError);
    assert.throws(() => csrf({ path: "relative" }), TypeError);
    assert.throws(() => csrf({ headerName: "x csrf" }), TypeError);
    assert.throws(() => csrf({ sameSite: "None", secure: false }), TypeError);
    assert.throws(() => csrf({ cookieName: "__Host-x" }), TypeError);
    assert.throws(() => csrf({ domain: "a.com; evil" }), TypeError);
  });

  it("reports csrfToken() without the layer as a wiring error", async () => {
    const app = new App({ logger: silentLogger }).routes(route.get("/t", [csrfToken()], (t) => t));
    const r = await app.inject({ url: "/t" });
    assert.equal(r.status, 500);
  });
});

describe("csrf() tokens are signed and bound to the session", () => {
  const SECRET = "c".repeat(32);
  function appFor(options: Parameters<typeof csrf>[0]): App {
    return new App({ logger: silentLogger })
      .layer(csrf(options))
      .routes(route.get("/t", [csrfToken()], (t) => ({ t })), route.post("/p", [], () => ({ ok: true })));
  }
  const tokenOf = async (app: App, headers: Record<string, string> = {}): Promise<string> =>
    (await app.inject({ url: "/t", headers })).json<{ t: string }>().t;
  const post = (app: App, token: string, headers: Record<string, string> = {}) =>
    app.inject({ method: "POST", url: "/p", headers: { cookie: `csrf_token=${token}`, "x-csrf-token": token, ...headers } });

  it("refuses a forged token of the right shape (double submit alone would accept it)", async () => {
    const app = appFor({ secret: SECRET });
    const forged = "A".repeat(22) + "." + "B".repeat(43);
    const r = await post(app, forged);
    assert.equal(r.status, 403);
    assert.equal(r.json<ErrorBody>().error.message, "CSRF cookie missing or invalid");
    assert.equal(r.json<ErrorBody>().error.type, "forbidden");
    assert.match(r.json<{ error_id: string }>().error_id, ERROR_ID);
    assert.equal((await post(app, await tokenOf(app))).status, 200);
  });

  it("refuses a token minted for another session", async () => {
    const app = appFor({ secret: SECRET, sessionId: (ctx) => ctx.req.headers["x-session"] as string | undefined });
    const aliceToken = await tokenOf(app, { "x-session": "alice" });
    assert.equal((await post(app, aliceToken, { "x-session": "alice" })).status, 200);
    assert.equal((await post(app, aliceToken, { "x-session": "mallory" })).status, 403);
    assert.equal((await post(app, aliceToken)).status, 403, "anonymous is another session too");
    // A safe request from the other session replaces the cookie instead of reusing it.
    const replaced = await app.inject({ url: "/t", headers: { "x-session": "mallory", cookie: `csrf_token=${aliceToken}` } });
    assert.notEqual(replaced.json<{ t: string }>().t, aliceToken);
  });

  it("keeps application session ids apart from the default ones (an empty id is no session)", async () => {
    const app = appFor({ secret: SECRET, sessionId: (ctx) => ctx.req.headers["x-session"] as string | undefined });
    const anonymous = await tokenOf(app);
    // An application id that happens to read "anonymous" is not the default anonymous session.
    assert.equal((await post(app, anonymous, { "x-session": "anonymous" })).status, 403);
    assert.equal((await post(app, anonymous, { "x-session": "" })).status, 200);
    assert.equal((await post(app, anonymous)).status, 200);
  });

  it("tokens from one secret are refused by another (and shared by instances with the same secret)", async () => {
    const a = appFor({ secret: SECRET });
    const token = await tokenOf(a);
    assert.equal((await post(appFor({ secret: SECRET }), token)).status, 200);
    assert.equal((await post(appFor({ secret: "d".repeat(32) }), token)).status, 403);
  });

  it("refuses a short secret", () => {
    assert.throws(() => csrf({ secret: "short" }), /secret must be at least 32 bytes/);
  });

  it("names the cookie __Host-<name> when secure (Path=/, no Domain), and reads that one", async () => {
    const app = new App({ logger: silentLogger, env: "production" })
      .layer(csrf({ secret: SECRET }))
      .routes(route.get("/t", [csrfToken()], (t) => ({ t })), route.post("/p", [], () => ({ ok: true })));
    const r = await app.inject({ url: "/t" });
    const setCookie = String(r.headers["set-cookie"]);
    assert.match(setCookie, /^__Host-csrf_token=[A-Za-z0-9_.-]+; Path=\/; Secure; SameSite=Lax$/);
    const token = r.json<{ t: string }>().t;
    const ok = await app.inject({ method: "POST", url: "/p", headers: { cookie: `__Host-csrf_token=${token}`, "x-csrf-token": token } });
    assert.equal(ok.status, 200);
    // The unprefixed name (settable by a sibling subdomain or over plain HTTP) is not read.
    const plain = await app.inject({ method: "POST", url: "/p", headers: { cookie: `csrf_token=${token}`, "x-csrf-token": token } });
    assert.equal(plain.status, 403);
  });
});
