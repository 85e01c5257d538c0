// replay(): which requests are recorded (sampling, route filters, routed only), what a record
// holds (caps with the truncated flag, textual bodies only, secrets redacted in headers, nested
// JSON and forms), and that recording never takes the body away from the handler.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { App, bytesReply, form, json, Reply, route, silentLogger, text, textReply } from "../../lib/index.js";
import { MemoryReplayStore, replay, type ReplayOptions, type ReplayRecord } from "../../lib/replay/index.js";

async function recordingApp(options: ReplayOptions, ...routes: Parameters<App["routes"]>): Promise<{ app: App; records: () => Promise<ReplayRecord[]> }> {
  const store = new MemoryReplayStore({ capacity: 1000 });
  const app = new App({ logger: silentLogger }).register(replay({ store, ...options })).routes(...routes);
  return { app, records: async () => (await store.list({ limit: 1000 })).reverse() };
}

describe("replay(): sampling", () => {
  it("records nothing at rate 0 and every request at rate 1", async () => {
    const none = await recordingApp({ sampleRate: 0 }, route.get("/a", [], () => "a"));
    const all = await recordingApp({ sampleRate: 1 }, route.get("/a", [], () => "a"));
    for (let i = 0; i < 20; i++) {
      assert.equal((await none.app.inject({ url: "/a" })).status, 200);
      assert.equal((await all.app.inject({ url: "/a" })).status, 200);
    }
    assert.equal((await none.records()).length, 0);
    assert.equal((await all.records()).length, 20);
  });

  it("records a request when the injected random value is below the rate (boundary excluded)", async () => {
    const draws = [0.1, 0.6, 0.3, 0.5, 0.4999];
    const { app, records } = await recordingApp({ sampleRate: 0.5, random: () => draws.shift()! }, route.get("/n/{i}", [], () => "ok"));
    for (let i = 0; i < 5; i++) await app.inject({ url: `/n/${i}` });
    assert.deepEqual((await records()).map((r) => r.request.path), ["/n/0", "/n/2", "/n/4"]);
  });

  it("refuses a rate outside 0..1", () => {
    assert.throws(() => replay({ sampleRate: 1.5 }), /sampleRate must be between 0 and 1/);
    assert.throws(() => replay({ sampleRate: -0.1 }), /sampleRate/);
  });
});

describe("replay(): route filters", () => {
  const routes = [
    route.get("/users/{id}", [], () => "user"),
    route.get("/items", [], () => "items"),
    route.post("/items", [], () => "created"),
    route.get("/internal/stats", [], () => "stats"),
    route.get("/internal", [], () => "root"),
  ];

  it("records only the listed patterns, with or without a method, `:name` or `{name}`, `/*` for a subtree", async () => {
    const { app, records } = await recordingApp({ routes: ["/users/:id", "POST /items", "/internal/*"] }, routes);
    for (const [method, url] of [["GET", "/users/7"], ["GET", "/items"], ["POST", "/items"], ["GET", "/internal/stats"], ["GET", "/internal"]] as const) {
      assert.equal((await app.inject({ method, url })).status, 200, url);
    }
    assert.deepEqual((await records()).map((r) => `${r.request.method} ${r.meta.route}`), ["GET /users/{id}", "POST /items", "GET /internal/stats", "GET /internal"]);
  });

  it("takes a predicate over the method and the route pattern", async () => {
    const seen: string[] = [];
    const { app, records } = await recordingApp(
      {
        routes: (method, pattern) => {
          seen.push(`${method} ${pattern}`);
          return method === "GET" && pattern.startsWith("/items");
        },
      },
      routes,
    );
    await app.inject({ url: "/items" });
    await app.inject({ url: "/items" });
    await app.inject({ method: "POST", url: "/items" });
    assert.deepEqual((await records()).map((r) => r.request.method), ["GET", "GET"]);
    assert.deepEqual(seen, ["GET /items", "POST /items"], "decided once per route");
  });

  it("does not record unrouted requests (404, 405)", async () => {
    const { app, records } = await recordingApp({}, routes);
    assert.equal((await app.inject({ url: "/nowhere" })).status, 404);
    assert.equal((await app.inject({ method: "DELETE", url: "/items" })).status, 405);
    assert.equal((await records()).length, 0);
  });
});

describe("replay(): what a record holds", () => {
  it("records method, path, query, status, route, duration and the request id", async () => {
    const { app, records } = await recordingApp({ allowQuery: ["full", "x"] }, route.get("/users/{id}", [], () => ({ id: 7 })));
    await app.inject({ url: "/users/7?full=1&x=%20", headers: { "x-request-id": "req-123", accept: "application/json" } });
    const [r] = await records();
    assert.ok(r !== undefined);
    assert.match(r.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.ok(!Number.isNaN(Date.parse(r.recorded_at)));
    assert.equal(r.request.method, "GET");
    assert.equal(r.request.path, "/users/7");
    assert.equal(r.request.query, "full=1&x=%20");
    assert.equal(r.request.headers["accept"], "application/json");
    assert.deepEqual({ body: r.request.body, size: r.request.body_size, truncated: r.request.body_truncated }, { body: null, size: 0, truncated: false });
    assert.equal(r.response.status, 200);
    assert.equal(r.response.headers["content-type"], "application/json");
    assert.equal(r.response.body, '{"id":7}');
    assert.equal(r.response.body_size, 8);
    assert.equal(r.meta.route, "/users/{id}");
    assert.equal(typeof r.meta.duration_ms, "number");
    assert.ok(r.meta.duration_ms >= 0);
    assert.equal(r.meta.request_id, "req-123");
  });

  it("records error answers in the uniform body", async () => {
    const { app, records } = await recordingApp({}, route.post("/strict", [json()], () => "never"));
    const res = await app.inject({ method: "POST", url: "/strict", headers: { "content-type": "application/json" }, body: "{nope" });
    assert.equal(res.status, 400);
    const [r] = await records();
    assert.equal(r!.response.status, 400);
    assert.equal((JSON.parse(r!.response.body!) as { error: { type: string } }).error.type, "bad_request");
  });
});

describe("replay(): body caps", () => {
  const echo = route.post("/echo", [text()], (t) => textReply(t));

  it("keeps a request body of exactly maxRequestBody bytes and cuts one byte more", async () => {
    const { app, records } = await recordingApp({ maxRequestBody: 10, maxResponseBody: 1000, requestTextBodies: true }, echo);
    await app.inject({ method: "POST", url: "/echo", headers: { "content-type": "text/plain" }, body: "0123456789" });
    await app.inject({ method: "POST", url: "/echo", headers: { "content-type": "text/plain" }, body: "0123456789A" });
    const [fits, over] = await records();
    assert.deepEqual([fits!.request.body, fits!.request.body_size, fits!.request.body_truncated], ["0123456789", 10, false]);
    assert.deepEqual([over!.request.body, over!.request.body_size, over!.request.body_truncated], ["0123456789", 11, true]);
  });

  it("keeps a response body of exactly maxResponseBody bytes and cuts one byte more", async () => {
    const { app, records } = await recordingApp({ maxResponseBody: 5 }, route.get("/five", [], () => textReply("12345")), route.get("/six", [], () => textReply("123456")));
    const six = await app.inject({ url: "/six" });
    assert.equal(six.body, "123456", "the client still gets the whole body");
    await app.inject({ url: "/five" });
    const [cut, fits] = await records();
    assert.deepEqual([cut!.response.body, cut!.response.body_size, cut!.response.body_truncated], ["12345", 6, true]);
    assert.deepEqual([fits!.response.body, fits!.response.body_size, fits!.response.body_truncated], ["12345", 5, false]);
  });

  it("cuts on a UTF-8 character boundary", async () => {
    const { app, records } = await recordingApp({ maxResponseBody: 9 }, route.get("/e", [], () => textReply("ééééé")));
    await app.inject({ url: "/e" });
    const [r] = await records();
    assert.equal(r!.response.body, "éééé");
    assert.equal(r!.response.body_size, 10);
    assert.equal(r!.response.body_truncated, true);
  });

  it("keeps only textual bodies: binary ones become a placeholder with their size", async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const { app, records } = await recordingApp(
      { allowFields: ["n"] },
      route.post("/upload", [], () => bytesReply(png, "image/png")),
      route.get("/xml", [], () => new Reply(200, "<a/>", { "content-type": "application/xml" })),
      route.post("/form", [form()], (f) => ({ n: f["n"] })),
    );
    await app.inject({ method: "POST", url: "/upload", headers: { "content-type": "application/octet-stream" }, body: Buffer.alloc(20) });
    await app.inject({ url: "/xml" });
    await app.inject({ method: "POST", url: "/form", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "n=1" });
    const [bin, xml, formRec] = await records();
    assert.equal(bin!.request.body, "[omitted: application/octet-stream, 20 bytes]");
    assert.equal(bin!.request.body_omitted, true);
    assert.equal(bin!.request.body_size, 20);
    assert.equal(bin!.response.body, "[omitted: image/png, 7 bytes]");
    assert.equal(bin!.response.body_omitted, true);
    assert.equal(xml!.response.body, "<a/>");
    assert.equal(xml!.response.body_omitted, false);
    assert.equal(formRec!.request.body, "n=1");
  });
});

describe("replay(): request bodies are shared with the handler, never buffered unbounded", () => {
  it("the handler still gets the whole body it reads (json, form, text)", async () => {
    const got: unknown[] = [];
    const { app, records } = await recordingApp(
      { maxRequestBody: 4, allowFields: ["a", "b"], requestTextBodies: true },
      route.post("/j", [json()], (b) => (got.push(b), "ok")),
      route.post("/f", [form()], (f) => (got.push({ ...f }), "ok")),
      route.post("/t", [text()], (t) => (got.push(t), "ok")),
    );
    await app.inject({ method: "POST", url: "/j", body: { a: 1, b: [2, 3] } });
    await app.inject({ method: "POST", url: "/f", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "a=1&b=2" });
    await app.inject({ method: "POST", url: "/t", headers: { "content-type": "text/plain", "transfer-encoding": "chunked" }, body: "chunked text" });
    assert.deepEqual(got, [{ a: 1, b: [2, 3] }, { a: "1", b: "2" }, "chunked text"]);
    const [j, f, t] = await records();
    assert.equal(j!.request.body, '{"a"');
    assert.equal(f!.request.body, "a=1&");
    assert.equal(t!.request.body, "chun");
    assert.equal(t!.request.body_size, 12);
    assert.equal(t!.request.body_truncated, true);
  });

  it("reads the body of a route without a body extractor only when its declared length is within the cap", async () => {
    const { app, records } = await recordingApp({ maxRequestBody: 8, requestTextBodies: true }, route.post("/ping", [], () => textReply("pong")));
    const headers = { "content-type": "text/plain" };
    assert.equal((await app.inject({ method: "POST", url: "/ping", headers, body: "12345678" })).body, "pong");
    assert.equal((await app.inject({ method: "POST", url: "/ping", headers, body: "123456789" })).body, "pong");
    assert.equal((await app.inject({ method: "POST", url: "/ping", headers: { ...headers, "transfer-encoding": "chunked" }, body: "12" })).body, "pong");
    const [within, over, chunked] = await records();
    assert.equal(within!.request.body, "12345678");
    assert.deepEqual([over!.request.body, over!.request.body_size, over!.request.body_omitted], ["[omitted: not read by the route, 9 bytes]", 9, true]);
    assert.deepEqual([chunked!.request.body, chunked!.request.body_size], ["[omitted: not read by the route, size unknown]", null]);
  });

  it("a body over the route's limit is still answered 413 by the route, and recorded as not read", async () => {
    const { app, records } = await recordingApp({}, route.post("/small", { bodyLimit: 4 }, [text()], (t) => t));
    const ok = await app.inject({ method: "POST", url: "/small", headers: { "content-type": "text/plain" }, body: "1234" });
    assert.equal(ok.status, 200);
    const res = await app.inject({ method: "POST", url: "/small", headers: { "content-type": "text/plain" }, body: "12345" });
    assert.equal(res.status, 413);
    assert.equal(res.json<{ error: { type: string } }>().error.type, "payload_too_large");
    const [, r] = await records();
    assert.equal(r!.request.body_omitted, true);
    assert.equal(r!.response.status, 413);
  });
});

describe("replay(): redaction", () => {
  it("redacts secret request and response headers, set-cookie included, plus configured names", async () => {
    const { app, records } = await recordingApp(
      { redactHeaders: ["X-Tenant-Secret"] },
      route.get("/login", [], () => new Reply(200, "ok", { "content-type": "text/plain", "x-auth-token": "tok", "x-visible": "v" }).setCookie("sid", "s3cret").setCookie("pref", "dark")),
    );
    const res = await app.inject({
      url: "/login",
      headers: { authorization: "Bearer abc", cookie: "sid=1", "x-api-key": "k", "proxy-authorization": "Basic x", "x-csrf-token": "c", "x-tenant-secret": "t", "user-agent": "test" },
    });
    assert.equal((res.headers["set-cookie"] as string[]).length, 2, "the client still gets its cookies");
    const [r] = await records();
    for (const name of ["authorization", "cookie", "x-api-key", "proxy-authorization", "x-csrf-token", "x-tenant-secret"]) assert.equal(r!.request.headers[name], "[redacted]", name);
    assert.equal(r!.request.headers["user-agent"], "test");
    assert.deepEqual(r!.response.headers["set-cookie"], ["[redacted]", "[redacted]"]);
    assert.equal(r!.response.headers["x-auth-token"], "[redacted]");
    assert.equal(r!.response.headers["x-visible"], "v");
    assert.doesNotMatch(JSON.stringify(r), /s3cret|Bearer abc|sid=1/);
  });

  it("redacts configured JSON fields at any depth and inside arrays, in both directions", async () => {
    let handlerSaw: unknown;
    const { app, records } = await recordingApp(
      { redactFields: ["password", "token"], allowFields: ["name", "hint"] },
      route.post("/users", [json()], (b) => {
        handlerSaw = b;
        return { user: { name: "ada", Token: "t-123" }, sessions: [{ token: "t-456", id: 1 }] };
      }),
    );
    await app.inject({ method: "POST", url: "/users", body: { name: "ada", credentials: { password: "hunter2", hint: "h" }, list: [{ password: "p2" }] } });
    assert.deepEqual(handlerSaw, { name: "ada", credentials: { password: "hunter2", hint: "h" }, list: [{ password: "p2" }] });
    const [r] = await records();
    assert.deepEqual(JSON.parse(r!.request.body!), { name: "ada", credentials: { password: "[redacted]", hint: "h" }, list: [{ password: "[redacted]" }] });
    assert.deepEqual(JSON.parse(r!.response.body!), { user: { name: "ada", Token: "[redacted]" }, sessions: [{ token: "[redacted]", id: 1 }] });
    assert.doesNotMatch(JSON.stringify(r), /hunter2|p2"|t-123|t-456/);
  });

  it("redacts configured fields in urlencoded forms, the handler getting the real values", async () => {
    let handlerSaw: unknown;
    const { app, records } = await recordingApp(
      { redactFields: ["password"], allowFields: ["user", "x"] },
      route.post("/login", [form()], (f) => {
        handlerSaw = { ...f };
        return "ok";
      }),
    );
    await app.inject({ method: "POST", url: "/login", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "user=ada&pass%77ord=hunter2&x=1" });
    assert.deepEqual(handlerSaw, { user: "ada", password: "hunter2", x: "1" });
    const [r] = await records();
    assert.equal(r!.request.body, "user=ada&pass%77ord=%5Bredacted%5D&x=1");
  });

  it("omits a JSON body it cannot parse for redaction instead of storing it as sent", async () => {
    const { app, records } = await recordingApp({ redactFields: ["password"] }, route.post("/raw", [], () => new Reply(200, '{"password":"x"', { "content-type": "application/json" })));
    await app.inject({ method: "POST", url: "/raw", headers: { "content-type": "application/json" }, body: '{"password": "hunter2"' });
    const [r] = await records();
    assert.equal(r!.request.body_omitted, true);
    assert.match(r!.request.body!, /^\[omitted: JSON that could not be parsed for redaction, 22 bytes\]$/);
    assert.equal(r!.response.body_omitted, true);
    assert.doesNotMatch(JSON.stringify(r), /hunter2/);
  });
});
