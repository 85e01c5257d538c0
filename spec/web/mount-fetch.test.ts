// mountFetch(prefix, handler) with a real Hono app (test peer `hono`, installed on demand into
// .tmp/test-peers; skipped visibly without it), over real sockets: the app's layers around the
// handler, method, headers (several set-cookie), status, bodies streamed both ways and held to the
// body limit, client aborts carried both ways; the full URL by default, the path below the prefix
// with stripPrefix.
import assert from "node:assert/strict";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";
import { ApiError, App, route, silentLogger, type Layer, type ListeningServer } from "../../lib/index.js";
import { openApiDocument } from "../../lib/openapi/index.js";
import { fetchHandler, mountFetch } from "../../lib/web/index.js";
import { testPeer } from "../support/test-peers.js";

const HONO_VERSION = "4.13.19";
const peerDir = await testPeer("hono", HONO_VERSION);
const skip = peerDir === null ? `hono@${HONO_VERSION} could not be installed into .tmp/test-peers (offline?)` : false;
const HANG_GUARD = { timeout: 10_000 };

interface HonoContext {
  req: { raw: Request; url: string; method: string; header(name: string): string | undefined; text(): Promise<string> };
  json(value: unknown, status?: number): Response;
  text(value: string, status?: number): Response;
  header(name: string, value: string): void;
}
type HonoHandler = (c: HonoContext) => Response | Promise<Response>;
interface HonoApp {
  basePath(path: string): HonoApp;
  get(path: string, h: HonoHandler): HonoApp;
  post(path: string, h: HonoHandler): HonoApp;
  on(method: string, path: string, h: HonoHandler): HonoApp;
  onError(h: (err: Error, c: HonoContext) => Response): HonoApp;
  fetch(request: Request): Response | Promise<Response>;
}

function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

interface Answer {
  status: number;
  headers: IncomingMessage["headers"];
  body: string;
}

function send(base: string, method: string, path: string, options: { headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(base + path, { method, headers: options.headers ?? {} }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

describe("mountFetch: a Hono app under a keel prefix", { skip }, () => {
  let server: ListeningServer;
  let base = "";
  const seen = { methods: [] as string[], posts: 0, abortedRequest: deferred<unknown>(), handlerStarted: deferred(), streamCancelled: deferred(), firstChunk: deferred() };

  before(async () => {
    const { Hono } = (await import(pathToFileURL(join(peerDir!, "dist", "index.js")).href)) as { Hono: new () => HonoApp };
    const { setCookie } = (await import(pathToFileURL(join(peerDir!, "dist", "helper", "cookie", "index.js")).href)) as { setCookie: (c: HonoContext, n: string, v: string) => void };

    // Full URL (the default): the Hono app is written for /hono.
    const full = new Hono().basePath("/hono");
    // Hono's own answer to a failed body read (its default also prints the error).
    full.onError((err, c) => c.text(`hono failed: ${err.message}`, 500));
    full.get("/hello", (c) => {
      seen.methods.push(c.req.raw.method);
      return c.json({ hi: "hono", url: c.req.url, method: c.req.method });
    });
    full.on("PUT", "/method", (c) => {
      c.header("x-from-hono", "yes");
      return c.json({ method: c.req.method, token: c.req.header("x-token") ?? null }, 202);
    });
    full.get("/cookies", (c) => {
      setCookie(c, "a", "1");
      setCookie(c, "b", "2");
      return c.text("two cookies", 201);
    });
    // The request body piped straight back: each chunk the client sends comes back on its own.
    full.post("/echo", (c) => new Response(c.req.raw.body, { headers: { "content-type": "application/octet-stream" } }));
    full.post("/read", async (c) => {
      seen.posts++;
      return c.text(`read ${(await c.req.text()).length}`);
    });
    full.get("/wait", (c) => {
      seen.handlerStarted.resolve();
      return new Promise<Response>((resolve) =>
        c.req.raw.signal.addEventListener("abort", () => {
          seen.abortedRequest.resolve(c.req.raw.signal.reason);
          resolve(c.text("too late"));
        }),
      );
    });
    full.get("/endless", () => {
      let i = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          controller.enqueue(new TextEncoder().encode(`tick ${i++}\n`));
          if (i === 1) seen.firstChunk.resolve();
        },
        cancel() {
          seen.streamCancelled.resolve();
        },
      });
      return new Response(body, { headers: { "content-type": "text/plain" } });
    });

    // Path below the prefix: the Hono app knows nothing of /stripped.
    const below = new Hono();
    below.get("/", (c) => c.json({ url: c.req.url }));
    below.get("/deep/path", (c) => c.json({ url: c.req.url }));

    const tag: Layer = async (ctx, next) => {
      const r = await next(ctx);
      r.headers["x-keel-layer"] = "on";
      return r;
    };
    const needsKey: Layer = (ctx, next) => {
      if (ctx.header("x-key") !== "k") throw ApiError.unauthorized("no key");
      return next(ctx);
    };
    const app = new App({ logger: silentLogger })
      .layer(tag)
      .register(mountFetch("/hono", (r) => full.fetch(r), { bodyLimit: 64, methods: ["GET", "POST", "PUT"] }))
      .register(mountFetch("/stripped", (r) => below.fetch(r), { stripPrefix: true }))
      .register(mountFetch("/guarded", (r) => full.fetch(r), { layers: [needsKey] }))
      .route(route.get("/hono/own", [], () => ({ own: true })));
    server = await app.listen({ port: 0 });
    base = server.url;
  });
  after(() => server?.close());

  it("the handler sees the full URL and the method; keel's global layer decorates its answer", async () => {
    const r = await send(base, "GET", "/hono/hello?x=1");
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.body), { hi: "hono", url: `${base}/hono/hello?x=1`, method: "GET" });
    assert.equal(r.headers["x-keel-layer"], "on");
    assert.match(String(r.headers["content-type"]), /^application\/json/);
  });

  it("the app's own route under the prefix wins over the mount", async () => {
    assert.deepEqual(JSON.parse((await send(base, "GET", "/hono/own")).body), { own: true });
  });

  it("stripPrefix hands the handler the path below the prefix (the bare prefix is /)", async () => {
    const host = base.replace("http://", "");
    assert.deepEqual(JSON.parse((await send(base, "GET", "/stripped/deep/path?q=1")).body), { url: `http://${host}/deep/path?q=1` });
    assert.deepEqual(JSON.parse((await send(base, "GET", "/stripped")).body), { url: `http://${host}/` });
  });

  it("method, request headers, response headers and status are carried", async () => {
    const r = await send(base, "PUT", "/hono/method", { headers: { "x-token": "t0k" } });
    assert.equal(r.status, 202);
    assert.deepEqual(JSON.parse(r.body), { method: "PUT", token: "t0k" });
    assert.equal(r.headers["x-from-hono"], "yes");
  });

  it("several set-cookie headers from the handler stay several", async () => {
    const r = await send(base, "GET", "/hono/cookies");
    assert.equal(r.status, 201);
    assert.deepEqual(r.headers["set-cookie"], ["a=1; Path=/", "b=2; Path=/"]);
  });

  it("HEAD reaches the handler as HEAD (through the GET route) and answers without a body", async () => {
    const r = await send(base, "HEAD", "/hono/hello");
    assert.equal(r.status, 200);
    assert.equal(r.body, "");
    assert.equal(seen.methods.at(-1), "HEAD");
  });

  it("request and response bodies stream: each chunk comes back before the client sends the next", HANG_GUARD, async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(base + "/hono/echo", { method: "POST", headers: { "content-type": "application/octet-stream" } }, (res) => {
        let got = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          got += chunk;
          // The second chunk is written only once the first came back through Hono.
          if (got === "one;") req.end("two");
        });
        res.on("end", () => resolve(got));
      });
      req.on("error", reject);
      req.flushHeaders();
      req.write("one;");
    });
    assert.equal(answer, "one;two");
  });

  it("a declared length over the route's limit is a 413 before the handler runs", async () => {
    const before = seen.posts;
    const r = await send(base, "POST", "/hono/read", { body: "x".repeat(100), headers: { "content-type": "text/plain" } });
    assert.equal(r.status, 413);
    assert.equal(JSON.parse(r.body).error.type, "payload_too_large");
    assert.equal(seen.posts, before);
  });

  it("a chunked body that grows past the limit is keel's 413, whatever the handler made of the failed read", HANG_GUARD, async () => {
    const r = await new Promise<Answer>((resolve, reject) => {
      const req = httpRequest(base + "/hono/read", { method: "POST", headers: { "content-type": "text/plain", "transfer-encoding": "chunked" } }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      });
      req.on("error", reject);
      req.end("y".repeat(1000));
    });
    assert.equal(r.status, 413);
    assert.equal(JSON.parse(r.body).error.type, "payload_too_large");
    assert.equal(r.headers["connection"], "close");
    // Within the limit, the same route reads the body.
    assert.equal((await send(base, "POST", "/hono/read", { body: "z".repeat(64) })).body, "read 64");
  });

  it("the route's own layers run before the handler", async () => {
    assert.equal((await send(base, "GET", "/guarded/hono/hello")).status, 401);
    // With the key, the handler runs (the Hono app is written for /hono: its 404 is its own answer).
    const ok = await send(base, "GET", "/guarded/hono/hello", { headers: { "x-key": "k" } });
    assert.equal(ok.status, 404);
    assert.equal(ok.headers["x-keel-layer"], "on");
  });

  it("the client going away aborts the Request's signal", HANG_GUARD, async () => {
    const req = httpRequest(base + "/hono/wait");
    req.on("error", () => undefined);
    req.end();
    await seen.handlerStarted.promise;
    req.destroy();
    const reason = await seen.abortedRequest.promise;
    assert.ok(reason !== undefined);
  });

  it("a client that stops reading a streamed answer cancels the handler's ReadableStream", HANG_GUARD, async () => {
    const req = httpRequest(base + "/hono/endless", (res) => {
      res.once("data", () => req.destroy());
    });
    req.on("error", () => undefined);
    req.end();
    await seen.firstChunk.promise;
    await seen.streamCancelled.promise;
  });

  it("mounted routes are hidden from the OpenAPI document", () => {
    // A fresh app: the document of mounted routes only.
    const app = new App({ logger: silentLogger }).register(mountFetch("/x", () => new Response("x")));
    assert.deepEqual(Object.keys(openApiDocument(app).paths ?? {}), []);
  });
});

describe("mountFetch: registration, and without a socket", () => {
  const echo = (r: Request) => new Response(r.body, { status: 200, headers: { "x-method": r.method, "x-url": r.url } });

  it("a prefix matches whole segments; the root prefix mounts everything", async () => {
    const pathOf = (r: Request) => new Response(new URL(r.url).pathname);
    const app = new App({ logger: silentLogger }).register(mountFetch("/p/", pathOf, { stripPrefix: true }));
    const got = async (a: App, url: string) => {
      const r = await a.inject({ url });
      return [r.status, r.status === 200 ? r.body : ""];
    };
    assert.deepEqual(await got(app, "/p"), [200, "/"]);
    assert.deepEqual(await got(app, "/p/"), [200, "/"]);
    assert.deepEqual(await got(app, "/p/a/"), [200, "/a/"]);
    assert.deepEqual(await got(app, "/px"), [404, ""]);
    const root = new App({ logger: silentLogger }).register(mountFetch("/", pathOf));
    assert.deepEqual(await got(root, "/"), [200, "/"]);
    assert.deepEqual(await got(root, "/a/b"), [200, "/a/b"]);
  });

  it("a body a layer already read reaches the handler whole", async () => {
    const readsFirst: Layer = async (ctx, next) => {
      await ctx.body();
      return next(ctx);
    };
    const app = new App({ logger: silentLogger }).layer(readsFirst).register(mountFetch("/m", echo));
    const r = await app.inject({ method: "POST", url: "/m/x?y=1", body: "read twice" });
    assert.equal(r.status, 200);
    assert.equal(r.body, "read twice");
    assert.equal(r.headers["x-url"], "http://localhost/m/x?y=1");
  });

  it("a keel app mounting a fetch handler, driven by a Request: the body goes through both bridges", async () => {
    const app = new App({ logger: silentLogger }).register(mountFetch("/m", echo, { methods: ["POST", "QUERY"] }));
    const res = await fetchHandler(app)(new Request("http://example.test/m/deep", { method: "POST", body: "round trip" }));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-url"), "http://example.test/m/deep");
    assert.equal(await res.text(), "round trip");
    // Any method token the handler is mounted for.
    const query = await app.inject({ method: "QUERY", url: "/m", body: "q" });
    assert.deepEqual([query.status, query.headers["x-method"], query.body], [200, "QUERY", "q"]);
  });

  it("refuses a prefix with parameters and a handler that is not a function", () => {
    assert.throws(() => mountFetch("/users/{id}", () => new Response("x")), /plain path/);
    assert.throws(() => mountFetch("/x", "nope" as never), /must be a function/);
  });

  it("a handler that returns something else than a Response is the uniform 500", async () => {
    const app = new App({ logger: silentLogger }).register(mountFetch("/x", () => ({ not: "a response" }) as never));
    const r = await app.inject({ url: "/x/y" });
    assert.equal(r.status, 500);
  });
});
