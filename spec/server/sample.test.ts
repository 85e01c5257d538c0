// The sample service, over a real socket: every endpoint of SPEC "Sample application endpoints".
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ListeningServer } from "../../lib/index.js";
import { signJwt } from "../../lib/jose/index.js";
import { createSampleApp, createSampleJobQueue, DEV_JWT_SECRET } from "../../lib/sample/index.js";
import { captureLogger } from "../support/capture-logger.js";
import { ERROR_ID, send } from "../support/http.js";

type ErrorBody = { error: { type: string; message: string; fields?: Array<{ field: string; code: string; message: string }> }; error_id: string };

describe("sample service", () => {
  let server: ListeningServer;
  let prod: ListeningServer;
  const prodLogger = captureLogger(50);
  before(async () => {
    const jobs = createSampleJobQueue({ logger: captureLogger(100), backoff: { baseMs: 1, factor: 1, maxMs: 1 } });
    server = await createSampleApp({ logger: captureLogger(100), env: "development", jobs }).listen({ port: 0 });
    prod = await createSampleApp({ logger: prodLogger, env: "production", jwtSecret: "a-production-secret-of-at-least-32-bytes!!" }).listen({ port: 0 });
  });
  after(async () => {
    await server.close();
    await prod.close();
  });
  const get = (p: string, headers: Record<string, string> = {}) => send(server.url + p, { headers });
  const post = (p: string, body: string | Buffer, type: string) => send(server.url + p, { method: "POST", headers: { "content-type": type }, body });

  it("GET /api/v1/ping: 200 ping response", async () => {
    const r = await get("/api/v1/ping");
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.body), { status: "ok" });
  });

  it("GET /hello: 200 JSON string", async () => {
    const r = await get("/hello");
    assert.equal(r.status, 200);
    assert.equal(r.headers["content-type"], "application/json");
    assert.equal(JSON.parse(r.body), "Hello, World!");
  });

  it("GET /users/{id}: 200 user, 400 for zero, 404 for unknown", async () => {
    const ok = await get("/users/1");
    assert.equal(ok.status, 200);
    assert.deepEqual(JSON.parse(ok.body), { id: 1, email: "alice@example.com" });
    const zero = await get("/users/0");
    assert.equal(zero.status, 400);
    const zb = JSON.parse(zero.body) as ErrorBody;
    assert.equal(zb.error.type, "bad_request");
    assert.match(zb.error_id, ERROR_ID);
    const missing = await get("/users/999");
    assert.equal(missing.status, 404);
    assert.equal((JSON.parse(missing.body) as ErrorBody).error.type, "not_found");
    assert.equal((await get("/users/abc")).status, 422);
  });

  it("POST /users: 201 on a valid body, 409 for a taken email, 422 with one item per failed rule", async () => {
    // carol@example.com is a seed user: the email is unique (issue 35), so a new one is used here.
    const ok = await post("/users", JSON.stringify({ email: "zoe@example.com", password: "correct horse" }), "application/json");
    assert.equal(ok.status, 201);
    const created = JSON.parse(ok.body) as { id: number; email: string };
    assert.equal(created.email, "zoe@example.com");
    assert.equal(ok.headers["location"], `/users/${created.id}`);
    assert.equal((await get(`/users/${created.id}`)).status, 200);

    for (const taken of ["zoe@example.com", "carol@example.com"]) {
      const again = await post("/users", JSON.stringify({ email: taken, password: "correct horse" }), "application/json");
      assert.equal(again.status, 409, again.body);
      const e = JSON.parse(again.body) as ErrorBody;
      assert.equal(e.error.type, "conflict");
      assert.match(e.error_id, ERROR_ID);
    }
    assert.equal((await get(`/users/${created.id + 1}`)).status, 404, "the refused inserts made no user");

    const bad = await post("/users", JSON.stringify({ email: "not-an-email", password: "short" }), "application/json");
    assert.equal(bad.status, 422);
    const b = JSON.parse(bad.body) as ErrorBody;
    assert.equal(b.error.type, "validation_error");
    assert.equal(b.error.message, "Request validation failed");
    assert.match(b.error_id, ERROR_ID);
    const items = (b.error.fields ?? []).map((f) => `${f.field}:${f.code}`).sort();
    assert.deepEqual(items, ["email:email", "password:length"]);
    for (const f of b.error.fields ?? []) assert.ok(f.message.length > 0);

    const missing = await post("/users", "{}", "application/json");
    assert.equal(missing.status, 422);
    assert.deepEqual((JSON.parse(missing.body) as ErrorBody).error.fields?.map((f) => `${f.field}:${f.code}`).sort(), ["email:required", "password:required"]);
    assert.equal((await post("/users", "{bad json", "application/json")).status, 400);
    assert.equal((await post("/users", "email=a", "application/x-www-form-urlencoded")).status, 415);
  });

  it("GET /projects: service from the trimmed x-tenant-id; 400 when missing or blank", async () => {
    const ok = await get("/projects", { "x-tenant-id": "  acme  " });
    assert.equal(ok.status, 200);
    const body = JSON.parse(ok.body) as { service: string; items: string[] };
    assert.equal(body.service, "acme");
    assert.ok(Array.isArray(body.items) && body.items.every((i) => typeof i === "string"));
    for (const headers of [{}, { "x-tenant-id": "   " }, { "x-tenant-id": "" }]) {
      const r = await get("/projects", headers);
      assert.equal(r.status, 400, JSON.stringify(headers));
      assert.equal((JSON.parse(r.body) as ErrorBody).error.type, "bad_request");
    }
  });

  it("POST /echo-text: 200 echo; 400 on invalid UTF-8", async () => {
    const ok = await post("/echo-text", "grüße 👋", "text/plain; charset=utf-8");
    assert.equal(ok.status, 200);
    assert.deepEqual(JSON.parse(ok.body), { content: "grüße 👋" });
    const bad = await post("/echo-text", Buffer.from([0xc3, 0x28]), "text/plain");
    assert.equal(bad.status, 400);
    assert.equal((JSON.parse(bad.body) as ErrorBody).error.type, "bad_request");
  });

  it("GET /api/v1/broken: 500 Storage error; masked under KEEL_ENV=production with the detail only in the log", async () => {
    const dev = await get("/api/v1/broken");
    assert.equal(dev.status, 500);
    assert.equal((JSON.parse(dev.body) as ErrorBody).error.message, "Storage error");
    const r = await send(prod.url + "/api/v1/broken");
    assert.equal(r.status, 500);
    const b = JSON.parse(r.body) as ErrorBody;
    assert.equal(b.error.type, "internal_error");
    assert.equal(b.error.message, "An internal error occurred");
    assert.match(b.error_id, ERROR_ID);
    assert.doesNotMatch(r.body, /Storage error|quota/);
    const logged = prodLogger.records.find((rec) => rec.fields["error_id"] === b.error_id);
    assert.ok(logged, "the error is logged with its error_id");
    assert.match(String(logged.fields["detail"]), /quota/);
    const v = await send(prod.url + "/users", { method: "POST", headers: { "content-type": "application/json" }, body: '{"email":"x","password":"12345678"}' });
    assert.equal((JSON.parse(v.body) as ErrorBody).error.fields?.[0]?.field, "email", "validation fields stay visible in production");
  });

  it("GET /api/v1/users: JSON by default, TOON with Accept: application/toon and token headers", async () => {
    const j = await get("/api/v1/users");
    assert.equal(j.status, 200);
    assert.equal(j.headers["content-type"], "application/json");
    assert.match(String(j.headers["vary"]), /accept/i);
    const list = JSON.parse(j.body) as { users: Array<{ id: number; email: string }>; total: number };
    assert.equal(list.total, list.users.length);
    const tn = await get("/api/v1/users", { accept: "application/toon" });
    assert.equal(tn.status, 200);
    assert.equal(tn.headers["content-type"], "application/toon; charset=utf-8");
    assert.equal(tn.headers["x-format-used"], "toon");
    assert.match(tn.body, /^users\[\d+\]\{id,email\}:\n  1,alice@example\.com\n/);
    const jsonTokens = Number(tn.headers["x-token-count-json"]);
    const toonTokens = Number(tn.headers["x-token-count-toon"]);
    assert.ok(toonTokens < jsonTokens, `TOON ${toonTokens} < JSON ${jsonTokens}`);
    assert.equal(Number(tn.headers["x-token-savings"]), Math.round(((jsonTokens - toonTokens) / jsonTokens) * 100));
    assert.equal((await get("/api/v1/users", { accept: "image/png" })).status, 406);
  });

  it("GET /docs/openapi.json lists both media types for the negotiated list", async () => {
    const doc = JSON.parse((await get("/docs/openapi.json")).body) as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
    };
    const ok = doc.paths["/api/v1/users"]?.["get"]?.responses["200"];
    assert.deepEqual(Object.keys(ok?.content ?? {}).sort(), ["application/json", "application/toon"]);
    assert.ok(doc.paths["/api/v1/users"]?.["get"]?.responses["406"], "406 documented");
  });

  it("GET /api/v1/me: 401 without or with a bad token, 200 with the subject", async () => {
    const none = await get("/api/v1/me");
    assert.equal(none.status, 401);
    assert.match(String(none.headers["www-authenticate"]), /^Bearer/);
    assert.match((JSON.parse(none.body) as ErrorBody).error_id, ERROR_ID);
    const forged = signJwt({ role: "admin" }, { algorithm: "HS256", key: "another-secret-that-is-long-enough-32b", subject: "mallory", expiresIn: 60 });
    const bad = await get("/api/v1/me", { authorization: `Bearer ${forged}` });
    assert.equal(bad.status, 401);
    assert.match(String(bad.headers["www-authenticate"]), /invalid_token/);
    const token = signJwt({ role: "user" }, { algorithm: "HS256", key: DEV_JWT_SECRET, subject: "alice", expiresIn: 60 });
    const ok = await get("/api/v1/me", { authorization: `Bearer ${token}` });
    assert.equal(ok.status, 200);
    assert.deepEqual(JSON.parse(ok.body), { sub: "alice", role: "user" });
  });

  it("DELETE /api/v1/admin/cache: 401 anonymous, 403 without role admin, 204 with it", async () => {
    const del = (headers: Record<string, string>) => send(server.url + "/api/v1/admin/cache", { method: "DELETE", headers });
    assert.equal((await del({})).status, 401);
    const user = signJwt({ role: "user" }, { algorithm: "HS256", key: DEV_JWT_SECRET, subject: "bob", expiresIn: 60 });
    const forbidden = await del({ authorization: `Bearer ${user}` });
    assert.equal(forbidden.status, 403);
    assert.equal((JSON.parse(forbidden.body) as ErrorBody).error.type, "forbidden");
    const admin = signJwt({ role: "admin" }, { algorithm: "HS256", key: DEV_JWT_SECRET, subject: "alice", expiresIn: 60 });
    assert.equal((await del({ authorization: `Bearer ${admin}` })).status, 204);
  });

  it("CSRF form: GET issues the cookie, POST without the header is 403, with it 200", async () => {
    const issued = await get("/api/v1/form");
    assert.equal(issued.status, 200);
    const setCookie = String(issued.headers["set-cookie"]);
    const token = /csrf_token=([^;]+)/.exec(setCookie)?.[1];
    assert.ok(token, "csrf cookie set");
    assert.equal((JSON.parse(issued.body) as { csrf_token: string }).csrf_token, token);
    const postForm = (headers: Record<string, string>, body = "message=hi") =>
      send(server.url + "/api/v1/form", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", cookie: `csrf_token=${token}`, ...headers }, body });
    const missing = await postForm({});
    assert.equal(missing.status, 403);
    assert.equal((JSON.parse(missing.body) as ErrorBody).error.type, "forbidden");
    assert.equal((await postForm({ "x-csrf-token": "wrong" })).status, 403);
    const ok = await postForm({ "x-csrf-token": token });
    assert.equal(ok.status, 200);
    assert.deepEqual(JSON.parse(ok.body), { message: "hi" });
  });

  it("security headers are on every response", async () => {
    const r = await get("/hello");
    assert.equal(r.headers["x-content-type-options"], "nosniff");
    assert.equal(r.headers["x-frame-options"], "DENY");
    const docs = await get("/docs");
    assert.match(String(docs.headers["content-security-policy"]), /script-src 'sha256-/, "the docs page keeps its own CSP");
  });

  it("POST /api/v1/reports: 202 with a job id and Location; the job runs; a failing one ends in the dead letters", async () => {
    const postReport = (body: unknown) => send(server.url + "/api/v1/reports", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const waitFor = async (location: string, state: string) => {
      for (let i = 0; i < 100; i++) {
        const job = JSON.parse((await get(location)).body) as { state: string; attempts: number; last_error: string | null };
        if (job.state === state) return job;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`job ${location} never reached ${state}`);
    };
    const ok = await postReport({ kind: "usage", month: "2026-10" });
    assert.equal(ok.status, 202);
    const accepted = JSON.parse(ok.body) as { id: string; status_url: string };
    assert.match(accepted.id, /^job_[0-9a-f]{32}$/);
    assert.equal(ok.headers["location"], `/api/v1/jobs/${accepted.id}`);
    const done = await waitFor(String(ok.headers["location"]), "succeeded");
    assert.equal(done.attempts, 1);

    const failing = await postReport({ kind: "billing", month: "2026-09", fail: true });
    assert.equal(failing.status, 202);
    const dead = await waitFor(String(failing.headers["location"]), "dead");
    assert.equal(dead.attempts, 3);
    assert.match(String(dead.last_error), /refused the query/);

    assert.equal((await postReport({ kind: "usage", month: "2026-13" })).status, 422);
    assert.equal((await get("/api/v1/jobs/job_00000000000000000000000000000000")).status, 404);
  });

  it("unknown paths are 404 in the uniform body", async () => {
    const r = await get("/nope");
    assert.equal(r.status, 404);
    assert.match((JSON.parse(r.body) as ErrorBody).error_id, ERROR_ID);
  });
});
