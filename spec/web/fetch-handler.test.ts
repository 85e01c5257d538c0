// fetchHandler(app): a keel app driven by `new Request(...)`. The whole pipeline runs (routing,
// layers, extractors, the uniform errors, response contracts) with the same answers as inject;
// bodies stream both ways (a request body is pulled as keel reads it and held to the body limit;
// a response stream is handed over as a ReadableStream pulled on demand and cancelled with it);
// several set-cookie headers stay several; request.signal aborting aborts ctx.signal.
import assert from "node:assert/strict";
import diagnostics from "node:diagnostics_channel";
import { describe, it } from "node:test";
import { App, context, json, path, query, reply, route, silentLogger, stream, t, type Context, type Layer, type RequestTrace } from "../../lib/index.js";
import { fetchHandler } from "../../lib/web/index.js";

const HANG_GUARD = { timeout: 10_000 };

function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const tagLayer: Layer = async (ctx, next) => {
  const r = await next(ctx);
  r.headers["x-layer"] = "on";
  return r;
};

function sampleApp(options: { bodyLimit?: number } = {}): App {
  const User = t.object({ email: t.string({ format: "email" }), password: t.string({ minLength: 8 }) });
  return new App({ logger: silentLogger, bodyLimit: options.bodyLimit ?? 1024 * 1024 })
    .layer(tagLayer)
    .routes(
      route.get("/hello", [], () => ({ hello: "world" })),
      route.post("/users", [json(User)], (u) => reply.json({ email: u.email }, 201)),
      route.get("/contract", { responses: { 200: t.object({ id: t.integer() }) } }, [], () => ({ id: 1, secret: "never sent" }) as { id: number }),
      route.get("/boom", [], () => {
        throw new Error("kaput");
      }),
      route.get("/who", [context(), query(t.object({ q: t.string() }))], (ctx: Context, q) => ({ host: ctx.header("host"), path: ctx.path, q: q.q, ip: ctx.remoteAddress })),
      route.get("/cookies", [], () => reply.text("ok").setCookie("a", "1").setCookie("b", "2")),
    );
}

describe("fetchHandler(app): the pipeline answers a Request as inject answers the same request", () => {
  const app = sampleApp();
  const fetch = fetchHandler(app);
  const cases: Array<{ method: string; url: string; body?: string; headers?: Record<string, string> }> = [
    { method: "GET", url: "/hello" },
    { method: "HEAD", url: "/hello" },
    { method: "POST", url: "/users", body: JSON.stringify({ email: "a@b.co", password: "longenough" }), headers: { "content-type": "application/json" } },
    { method: "POST", url: "/users", body: JSON.stringify({ email: "nope", password: "x" }), headers: { "content-type": "application/json" } },
    { method: "POST", url: "/users", body: "{", headers: { "content-type": "application/json" } },
    { method: "GET", url: "/contract" },
    { method: "GET", url: "/boom" },
    { method: "GET", url: "/nowhere" },
    { method: "DELETE", url: "/hello" },
  ];
  for (const c of cases) {
    it(`${c.method} ${c.url}${c.body === undefined ? "" : " " + c.body}`, async () => {
      const init: RequestInit = { method: c.method, headers: c.headers ?? {} };
      if (c.body !== undefined) init.body = c.body;
      const res = await fetch(new Request(`http://localhost${c.url}`, init));
      const injected = await app.inject({ method: c.method, url: c.url, headers: c.headers ?? {}, ...(c.body === undefined ? {} : { body: c.body }) });
      assert.equal(res.status, injected.status);
      const text = await res.text();
      // error_id differs per request; everything else is the same.
      const scrub = (s: string) => s.replace(/err_[A-Za-z0-9_-]+/g, "err_X");
      assert.equal(scrub(text), scrub(injected.body));
      const fetched = Object.fromEntries([...res.headers].filter(([n]) => n !== "set-cookie"));
      const expected = Object.fromEntries(Object.entries(injected.headers).filter(([n]) => n !== "transfer-encoding").map(([n, v]) => [n, String(v)]));
      assert.deepEqual(fetched, expected);
      assert.equal(res.headers.get("x-layer"), "on");
    });
  }

  it("the contract strips what the schema does not list; the 422 lists each field", async () => {
    assert.deepEqual(await (await fetch(new Request("http://localhost/contract"))).json(), { id: 1 });
    const bad = await fetch(new Request("http://localhost/users", { method: "POST", body: JSON.stringify({ email: "nope", password: "x" }), headers: { "content-type": "application/json" } }));
    assert.equal(bad.status, 422);
    const body = (await bad.json()) as { error: { fields: Array<{ field: string }> } };
    assert.deepEqual(body.error.fields.map((f) => f.field).sort(), ["email", "password"]);
  });

  it("Host comes from the URL when the Request has none; the peer address from info", async () => {
    const res = await fetch(new Request("http://example.test:8080/who?q=%C3%A9"), { remoteAddress: "203.0.113.9" });
    assert.deepEqual(await res.json(), { host: "example.test:8080", path: "/who", q: "é", ip: "203.0.113.9" });
  });

  it("several set-cookie headers stay several (Headers.getSetCookie)", async () => {
    const res = await fetch(new Request("http://localhost/cookies"));
    assert.deepEqual(res.headers.getSetCookie(), ["a=1; Path=/; SameSite=Lax", "b=2; Path=/; SameSite=Lax"]);
  });
});

describe("fetchHandler(app): bodies stream both ways", () => {
  it("the request body reaches the handler chunk by chunk, before the Request's stream has ended", HANG_GUARD, async () => {
    const secondAllowed = deferred();
    const app = new App({ logger: silentLogger }).route(
      route.post("/upload", [context()], async (ctx: Context) => {
        const seen: string[] = [];
        for await (const chunk of ctx.req) {
          seen.push(String(chunk));
          // The producer writes its second chunk only after the handler has the first: a bridge
          // that buffered the whole body first would never get here.
          if (seen.length === 1) secondAllowed.resolve();
        }
        return { seen };
      }),
    );
    const enc = new TextEncoder();
    let step = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        step++;
        if (step === 1) controller.enqueue(enc.encode("one"));
        else if (step === 2) {
          await secondAllowed.promise;
          controller.enqueue(enc.encode("two"));
        } else controller.close();
      },
    });
    const res = await fetchHandler(app)(new Request("http://localhost/upload", { method: "POST", body, duplex: "half" } as RequestInit));
    assert.deepEqual(await res.json(), { seen: ["one", "two"] });
  });

  it("a body over the limit is a 413; the Request's stream is read no further than the limit and is cancelled", HANG_GUARD, async () => {
    const app = new App({ logger: silentLogger, bodyLimit: 4096 }).route(route.post("/json", [json(t.object({}))], () => ({ ok: true })));
    let pulls = 0;
    const cancelled = deferred<unknown>();
    // An endless body: without the limit it would be read forever.
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        controller.enqueue(new Uint8Array(1024).fill(0x20));
      },
      cancel(reason) {
        cancelled.resolve(reason);
      },
    }, { highWaterMark: 0 });
    const res = await fetchHandler(app)(new Request("http://localhost/json", { method: "POST", body, duplex: "half", headers: { "content-type": "application/json" } } as RequestInit));
    assert.equal(res.status, 413);
    assert.equal(((await res.json()) as { error: { type: string } }).error.type, "payload_too_large");
    await cancelled.promise;
    // 4 KiB allowed in 1 KiB chunks: the fifth chunk crosses the limit; a Readable's read-ahead
    // (16 KiB) may have asked for a few more, never an unbounded number.
    assert.ok(pulls <= 4 + 1 + 16, `pulled ${pulls} chunks of 1 KiB for a 4 KiB limit`);
  });

  it("a declared Content-Length over the limit is refused before anything is read", async () => {
    const app = new App({ logger: silentLogger, bodyLimit: 10 }).route(route.post("/json", [json(t.object({}))], () => ({ ok: true })));
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>({ pull(c) { pulls++; c.enqueue(new Uint8Array(100)); c.close(); } }, { highWaterMark: 0 });
    const res = await fetchHandler(app)(new Request("http://localhost/json", { method: "POST", body, duplex: "half", headers: { "content-type": "application/json", "content-length": "100" } } as RequestInit));
    assert.equal(res.status, 413);
    assert.equal(pulls, 0);
  });

  it("a stream reply is a ReadableStream pulled on demand: the first chunk arrives before the second exists", HANG_GUARD, async () => {
    const secondAllowed = deferred();
    const app = new App({ logger: silentLogger }).route(
      route.get("/s", [], () =>
        stream(
          (async function* () {
            yield "first;";
            await secondAllowed.promise;
            yield "second";
          })(),
          "text/plain",
        ),
      ),
    );
    const res = await fetchHandler(app)(new Request("http://localhost/s"));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/plain");
    assert.equal(res.headers.get("content-length"), null);
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    const first = await reader.read();
    assert.equal(dec.decode(first.value), "first;");
    secondAllowed.resolve();
    const second = await reader.read();
    assert.equal(dec.decode(second.value), "second");
    assert.equal((await reader.read()).done, true);
  });

  it("cancelling the Response's body stops keel's stream and runs the afterResponse callbacks", HANG_GUARD, async () => {
    const stopped = deferred();
    const cleaned = deferred();
    const app = new App({ logger: silentLogger }).route(
      route.get("/endless", [context()], (ctx: Context) => {
        ctx.afterResponse(() => cleaned.resolve());
        return stream(
          (async function* () {
            try {
              for (let i = 0; ; i++) yield `tick ${i}\n`;
            } finally {
              stopped.resolve();
            }
          })(),
        );
      }),
    );
    const res = await fetchHandler(app)(new Request("http://localhost/endless"));
    const reader = res.body!.getReader();
    assert.equal(new TextDecoder().decode((await reader.read()).value), "tick 0\n");
    await reader.cancel();
    await stopped.promise;
    await cleaned.promise;
  });
});

describe("fetchHandler(app): the caller giving up", () => {
  it("request.signal aborting aborts ctx.signal with its reason", HANG_GUARD, async () => {
    const started = deferred();
    const app = new App({ logger: silentLogger }).route(
      route.get("/slow", [context()], async (ctx: Context) => {
        started.resolve();
        const reason = await new Promise<unknown>((resolve) => ctx.signal.addEventListener("abort", () => resolve(ctx.signal.reason), { once: true }));
        return { aborted: ctx.signal.aborted, reason: String(reason) };
      }),
    );
    const controller = new AbortController();
    const pending = fetchHandler(app)(new Request("http://localhost/slow", { signal: controller.signal }));
    await started.promise;
    controller.abort("client left");
    const res = await pending;
    assert.deepEqual(await res.json(), { aborted: true, reason: "client left" });
  });

  it("a Request whose signal is already aborted starts with ctx.signal aborted", async () => {
    const app = new App({ logger: silentLogger }).route(route.get("/x", [context()], (ctx: Context) => ({ aborted: ctx.signal.aborted })));
    const res = await fetchHandler(app)(new Request("http://localhost/x", { signal: AbortSignal.abort() }));
    assert.deepEqual(await res.json(), { aborted: true });
  });

  it("publishes keel.request around each request, as node:http and inject do: route, params, status, error", async () => {
    const seen: string[] = [];
    const subs: Array<[string, (m: unknown) => void]> = [];
    for (const e of ["start", "end", "asyncStart", "asyncEnd", "error"]) {
      const fn = (m: unknown): void => {
        const msg = m as RequestTrace;
        seen.push(`${e} ${msg.method} ${msg.route} ${JSON.stringify(msg.params)} ${msg.status}${msg.error === undefined ? "" : " error"}`);
      };
      diagnostics.subscribe(`tracing:keel.request:${e}`, fn);
      subs.push([`tracing:keel.request:${e}`, fn]);
    }
    const app = new App({ logger: silentLogger }).routes(
      route.get("/users/{id}", [path("id", t.integer())], async (id) => ({ id })),
      route.get("/hello", [], () => "hi"),
    );
    const handle = fetchHandler(app);
    try {
      assert.equal((await handle(new Request("http://localhost/users/7"))).status, 200);
      assert.equal((await handle(new Request("http://localhost/hello"))).status, 200);
      assert.equal((await handle(new Request("http://localhost/nope"))).status, 404);
    } finally {
      for (const [name, fn] of subs) diagnostics.unsubscribe(name, fn);
    }
    assert.deepEqual(seen, [
      'start GET /users/{id} {"id":"7"} 0',
      'end GET /users/{id} {"id":"7"} 0',
      'asyncStart GET /users/{id} {"id":"7"} 200',
      'asyncEnd GET /users/{id} {"id":"7"} 200',
      'start GET /hello {} 0',
      'end GET /hello {} 200',
      "start GET null {} 0",
      "error GET null {} 404 error",
      "end GET null {} 404 error",
    ]);
    // Nobody subscribed: the same answers, nothing published.
    assert.equal((await handle(new Request("http://localhost/users/8"))).status, 200);
    assert.equal(seen.length, 9);
  });
});
