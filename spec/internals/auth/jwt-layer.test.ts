// The jwt() layer and authUser() over a real socket: Bearer parsing (exact scheme, one token),
// 401 with RFC 6750 challenges, global / per-route / per-group application, public-route
// opt-out, optional credentials, and the wiring error when no layer covers authUser().
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { App, group, route, silentLogger, type ListeningServer } from "../../../lib/index.js";
import { signJwt } from "../../../lib/jose/index.js";
import { authUser, jwt, optionalAuthUser } from "../../../lib/auth/index.js";
import { parseBearer, BEARER_ABSENT, BEARER_MALFORMED } from "../../../lib/auth/jwt/bearer.js";
import { ERROR_ID, send } from "../../support/http.js";

const SECRET = "a-test-secret-that-is-at-least-32-bytes-long";
const OTHER_SECRET = "another-secret-that-is-at-least-32-bytes-long";
const verifierOptions = { algorithms: ["HS256"] as const, key: SECRET, issuer: "keel-test" };

function token(claims: Record<string, unknown> = {}, opts: { secret?: string; ttl?: number; sub?: string } = {}): string {
  return signJwt(claims, { algorithm: "HS256", key: opts.secret ?? SECRET, subject: opts.sub ?? "alice", expiresIn: opts.ttl ?? 300, issuer: "keel-test" });
}

function bearer(t: string): Record<string, string> {
  return { authorization: `Bearer ${t}` };
}

interface ErrorBody {
  error: { type: string; message: string };
  error_id: string;
}

describe("jwt() per route and per group", () => {
  let server: ListeningServer;
  before(async () => {
    const auth = jwt(verifierOptions);
    const app = new App({ logger: silentLogger }).routes(
      route.get("/me", { layers: [auth] }, [authUser<{ role?: string }>()], (claims) => {
        const role: string | undefined = claims.role; // typed through the generic
        return { sub: claims.sub, role: role ?? null };
      }),
      route.get("/open", [], () => ({ open: true })),
      group({ prefix: "/admin", layers: [auth] }, [
        route.get("/a", [authUser()], (c) => ({ sub: c.sub })),
        route.get("/b", [], () => ({ b: true })),
      ]),
      route.get("/unguarded", [authUser()], (c) => c.sub),
    );
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  it("gives the handler the verified claims (200)", async () => {
    const r = await send(server.url + "/me", { headers: bearer(token({ role: "admin" })) });
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.body), { sub: "alice", role: "admin" });
  });

  it("answers 401 with a realm-only challenge when the token is missing", async () => {
    const r = await send(server.url + "/me");
    assert.equal(r.status, 401);
    assert.equal(r.headers["www-authenticate"], 'Bearer realm="api"');
    const body = JSON.parse(r.body) as ErrorBody;
    assert.equal(body.error.type, "unauthorized");
    assert.match(body.error_id, ERROR_ID);
  });

  it("answers 401 invalid_token for a bad signature, a wrong issuer, an expired token, alg none", async () => {
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString("base64url")}.${Buffer.from(JSON.stringify({ sub: "alice", iss: "keel-test", exp: 9e9 })).toString("base64url")}.`;
    const wrongIss = signJwt({}, { algorithm: "HS256", key: SECRET, subject: "alice", expiresIn: 300, issuer: "elsewhere" });
    const expired = signJwt({}, { algorithm: "HS256", key: SECRET, subject: "alice", expiresIn: 10, issuer: "keel-test", now: () => Date.now() - 60_000 });
    for (const [t, message] of [
      [token({}, { secret: OTHER_SECRET }), "Invalid token"],
      [wrongIss, "Invalid token"],
      [expired, "Token expired"],
      [none, "Invalid token"],
      ["not-a-jwt", "Invalid token"],
    ] as const) {
      const r = await send(server.url + "/me", { headers: bearer(t) });
      assert.equal(r.status, 401, t);
      const body = JSON.parse(r.body) as ErrorBody;
      assert.equal(body.error.type, "unauthorized");
      assert.equal(body.error.message, message);
      assert.match(String(r.headers["www-authenticate"]), /^Bearer realm="api", error="invalid_token", error_description="[^"]+"$/);
    }
  });

  it("accepts the scheme in any case, and only the Bearer scheme with exactly one token", async () => {
    const t = token();
    assert.equal((await send(server.url + "/me", { headers: { authorization: `bearer ${t}` } })).status, 200);
    assert.equal((await send(server.url + "/me", { headers: { authorization: `BEARER ${t}` } })).status, 200);
    const basic = await send(server.url + "/me", { headers: { authorization: `Basic ${t}` } });
    assert.equal(basic.status, 401);
    assert.equal(basic.headers["www-authenticate"], 'Bearer realm="api"');
    for (const value of [`Bearer ${t} ${t}`, `Bearer ${t},Bearer ${t}`, "Bearer", `Bearer\t${t}`, `Bearerx ${t}`, `Bearer "${t}"`]) {
      const r = await send(server.url + "/me", { headers: { authorization: value } });
      assert.equal(r.status, 401, value);
    }
  });

  it("guards every route of a group, and only those", async () => {
    assert.equal((await send(server.url + "/admin/a")).status, 401);
    assert.equal((await send(server.url + "/admin/b")).status, 401);
    assert.equal((await send(server.url + "/admin/b", { headers: bearer(token()) })).status, 200);
    const a = await send(server.url + "/admin/a", { headers: bearer(token({}, { sub: "bob" })) });
    assert.deepEqual(JSON.parse(a.body), { sub: "bob" });
    assert.equal((await send(server.url + "/open")).status, 200);
  });

  it("treats authUser() on a route no layer covers as a server wiring error (500), not a pass", async () => {
    const r = await send(server.url + "/unguarded", { headers: bearer(token()) });
    assert.equal(r.status, 500);
  });
});

describe("jwt() as a global layer", () => {
  let server: ListeningServer;
  before(async () => {
    const app = new App({ logger: silentLogger })
      .layer(jwt({ ...verifierOptions, realm: "keel" }))
      .routes(
        route.get("/me", [authUser()], (c) => c.sub),
        route.get("/health", { config: { auth: false } }, [], () => "ok"),
      );
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  it("protects every route, 404s included, with the configured realm", async () => {
    const r = await send(server.url + "/me");
    assert.equal(r.status, 401);
    assert.equal(r.headers["www-authenticate"], 'Bearer realm="keel"');
    assert.equal((await send(server.url + "/nowhere")).status, 401);
    assert.equal((await send(server.url + "/nowhere", { headers: bearer(token()) })).status, 404);
    assert.equal((await send(server.url + "/me", { headers: bearer(token()) })).body, '"alice"');
  });

  it("lets a route opt out with config { auth: false }", async () => {
    const r = await send(server.url + "/health");
    assert.equal(r.status, 200);
  });
});

describe("jwt({ credentialsRequired: false })", () => {
  let server: ListeningServer;
  before(async () => {
    const app = new App({ logger: silentLogger })
      .layer(jwt({ ...verifierOptions, credentialsRequired: false }))
      .routes(
        route.get("/maybe", [optionalAuthUser()], (c) => ({ sub: c?.sub ?? null })),
        route.get("/must", [authUser()], (c) => ({ sub: c.sub })),
      );
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  it("passes anonymous requests, still refuses invalid tokens", async () => {
    assert.deepEqual(JSON.parse((await send(server.url + "/maybe")).body), { sub: null });
    assert.deepEqual(JSON.parse((await send(server.url + "/maybe", { headers: bearer(token()) })).body), { sub: "alice" });
    const bad = await send(server.url + "/maybe", { headers: bearer(token({}, { secret: OTHER_SECRET })) });
    assert.equal(bad.status, 401);
    const must = await send(server.url + "/must");
    assert.equal(must.status, 401);
    assert.equal(must.headers["www-authenticate"], 'Bearer realm="api"');
  });
});

describe("jwt() with an unreachable JWKS", () => {
  it("answers 503, not 401: the token was never judged", async () => {
    const { generateKeyPairSync } = await import("node:crypto");
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    // A port that was free a moment ago: connection refused.
    const probe = await new App({ logger: silentLogger }).listen({ port: 0 });
    const deadUrl = `${probe.url}/jwks`;
    await probe.close();
    const app = new App({ logger: silentLogger }).routes(
      route.get("/me", { layers: [jwt({ algorithms: ["RS256"], jwksUrl: deadUrl, jwks: { timeoutMs: 1000 } })] }, [authUser()], (c) => c.sub),
    );
    const server = await app.listen({ port: 0 });
    try {
      const t = signJwt({}, { algorithm: "RS256", key: privateKey, subject: "alice", expiresIn: 60, kid: "k1" });
      const r = await send(server.url + "/me", { headers: bearer(t) });
      assert.equal(r.status, 503);
      assert.equal((JSON.parse(r.body) as ErrorBody).error.type, "service_unavailable");
    } finally {
      await server.close();
    }
  });
});

describe("parseBearer", () => {
  it("returns the token only for one well-formed token68", () => {
    assert.equal(parseBearer("Bearer abc.def-_~+/=", 100), "abc.def-_~+/=");
    assert.equal(parseBearer("bearer   abc", 100), "abc");
    assert.equal(parseBearer(undefined, 100), BEARER_ABSENT);
    assert.equal(parseBearer("Basic abc", 100), BEARER_ABSENT);
    assert.equal(parseBearer("Bearerabc", 100), BEARER_ABSENT);
    assert.equal(parseBearer("Bearer", 100), BEARER_MALFORMED);
    assert.equal(parseBearer("Bearer ", 100), BEARER_MALFORMED);
    assert.equal(parseBearer("Bearer a b", 100), BEARER_MALFORMED);
    assert.equal(parseBearer("Bearer a=b", 100), BEARER_MALFORMED);
    assert.equal(parseBearer("Bearer ==", 100), BEARER_MALFORMED);
    assert.equal(parseBearer("Bearer " + "a".repeat(101), 100), BEARER_MALFORMED);
  });

  it("refuses bad realms at construction", () => {
    assert.throws(() => jwt({ ...verifierOptions, realm: 'a"b' }), TypeError);
    assert.throws(() => jwt({ ...verifierOptions, realm: "a\r\nb" }), TypeError);
  });
});

describe("jwt() with in-process requests", () => {
  it("treats a repeated Authorization value as malformed, not as a crash", async () => {
    const app = new App({ logger: silentLogger }).routes(route.get("/me", { layers: [jwt(verifierOptions)] }, [authUser()], (c) => c.sub));
    const t = token();
    const r = await app.inject({ url: "/me", headers: { authorization: [`Bearer ${t}`, `Bearer ${t}`] } });
    assert.equal(r.status, 401);
    assert.equal((await app.inject({ url: "/me", headers: { authorization: `Bearer ${t}` } })).status, 200);
  });
});
