import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError, App, Reply, created, html, noContent, path, reply, route, silentLogger, type Layer } from "../../lib/index.js";
import { HTML_BRAND } from "../../lib/plugin.js";
import { captureLogger } from "../support/capture-logger.js";
import { ERROR_ID } from "../support/http.js";

function app(options: ConstructorParameters<typeof App>[0] = {}): App {
  return new App({ logger: silentLogger, ...options });
}

describe("replies from return values", () => {
  it("a plain object is 200 JSON with content-length", async () => {
    const a = app().route(route.get("/o", [], () => ({ a: 1, b: [true, null] })));
    const r = await a.inject({ url: "/o" });
    assert.equal(r.status, 200);
    assert.equal(r.headers["content-type"], "application/json");
    assert.equal(r.headers["content-length"], String(Buffer.byteLength(r.body)));
    assert.deepEqual(r.json(), { a: 1, b: [true, null] });
  });

  it("a string is a JSON string", async () => {
    const a = app().route(route.get("/s", [], () => "Hello, World!"));
    const r = await a.inject({ url: "/s" });
    assert.equal(r.body, '"Hello, World!"');
    assert.equal(r.headers["content-type"], "application/json");
  });

  it("async handlers, helpers and undefined", async () => {
    const a = app().routes(
      route.post("/c", [], async () => created({ id: 7 }, { location: "/c/7" })),
      route.delete("/d", [], () => noContent()),
      route.get("/u", [], () => undefined),
      route.get("/t", [], () => reply.text("plain")),
      route.get("/h", [], () => reply.html("<p>x</p>")),
      route.get("/any", [], () => reply(418, { teapot: true }, { "X-Thing": "1" })),
    );
    const c = await a.inject({ method: "POST", url: "/c" });
    assert.equal(c.status, 201);
    assert.equal(c.headers["location"], "/c/7");
    assert.deepEqual(c.json(), { id: 7 });
    const d = await a.inject({ method: "DELETE", url: "/d" });
    assert.equal(d.status, 204);
    assert.equal(d.body, "");
    assert.equal(d.headers["content-length"], undefined);
    assert.equal((await a.inject({ url: "/u" })).status, 204);
    const t = await a.inject({ url: "/t" });
    assert.equal(t.body, "plain");
    assert.equal(t.headers["content-type"], "text/plain; charset=utf-8");
    assert.equal((await a.inject({ url: "/h" })).headers["content-type"], "text/html; charset=utf-8");
    const any = await a.inject({ url: "/any" });
    assert.equal(any.status, 418);
    assert.equal(any.headers["x-thing"], "1");
    assert.deepEqual(any.json(), { teapot: true });
  });

  it("branded HTML (keel/plugin's HTML_BRAND) is sent as is, 200 text/html; a look-alike is not", async () => {
    const page = { [HTML_BRAND]: "<p>a &amp; b</p>" };
    const a = app().routes(
      route.get("/returned", [], () => page),
      route.get("/replied", [], () => html(page, 201)),
      route.get("/string", [], () => html("<p>as written</p>")),
      route.get("/look-alike", [], () => ({ html: "<script>x</script>", toString: () => "<script>x</script>" })),
      route.get("/not-a-string", [], () => ({ [HTML_BRAND]: 1 })),
      route.get("/refused", [], () => html({ toString: () => "<script>x</script>" } as unknown as string)),
    );
    const returned = await a.inject({ url: "/returned" });
    assert.deepEqual([returned.status, returned.headers["content-type"], returned.body], [200, "text/html; charset=utf-8", "<p>a &amp; b</p>"]);
    const replied = await a.inject({ url: "/replied" });
    assert.deepEqual([replied.status, replied.headers["content-type"], replied.body], [201, "text/html; charset=utf-8", "<p>a &amp; b</p>"]);
    assert.equal((await a.inject({ url: "/string" })).body, "<p>as written</p>");
    const lookAlike = await a.inject({ url: "/look-alike" });
    assert.equal(lookAlike.headers["content-type"], "application/json");
    assert.deepEqual(lookAlike.json(), { html: "<script>x</script>" });
    assert.equal((await a.inject({ url: "/not-a-string" })).headers["content-type"], "application/json");
    const refused = await a.inject({ url: "/refused" });
    assert.equal(refused.status, 500);
    assert.doesNotMatch(refused.body, /<script>/);
  });

  it("the brand is a registered symbol: HTML branded by another copy of keel is recognised, an unregistered look-alike symbol is not", async () => {
    assert.equal(HTML_BRAND, Symbol.for("keel.html"));
    const a = app().routes(
      route.get("/other-copy", [], () => ({ [Symbol.for("keel.html")]: "<b>ok</b>" })),
      route.get("/unregistered", [], () => ({ [Symbol("keel.html")]: "<b>no</b>", n: 1 })),
    );
    const other = await a.inject({ url: "/other-copy" });
    assert.deepEqual([other.headers["content-type"], other.body], ["text/html; charset=utf-8", "<b>ok</b>"]);
    const unregistered = await a.inject({ url: "/unregistered" });
    assert.equal(unregistered.headers["content-type"], "application/json");
  });

  it("streams an async iterable", async () => {
    async function* gen() {
      yield "a";
      yield Buffer.from("b");
      yield "c";
    }
    const a = app().route(route.get("/s", [], () => reply.stream(gen(), "text/plain")));
    const r = await a.inject({ url: "/s" });
    assert.equal(r.body, "abc");
    assert.equal(r.headers["transfer-encoding"], "chunked");
  });
});

describe("routing answers", () => {
  const a = app().routes(
    route.get("/users/{id}", [path("id")], (id) => ({ id })),
    route.post("/users/{id}", [], () => ({})),
    route.get("/files/{*path}", [path("path")], (p) => p),
  );

  it("404 not_found in the uniform body", async () => {
    const r = await a.inject({ url: "/nope" });
    assert.equal(r.status, 404);
    const b = r.json<{ error: { type: string; message: string }; error_id: string }>();
    assert.equal(b.error.type, "not_found");
    assert.match(b.error_id, ERROR_ID);
    assert.deepEqual(Object.keys(b).sort(), ["error", "error_id"]);
  });

  it("405 with Allow when the path exists under other methods", async () => {
    const r = await a.inject({ method: "PUT", url: "/users/1" });
    assert.equal(r.status, 405);
    assert.equal(r.headers["allow"], "GET, HEAD, OPTIONS, POST");
    assert.equal(r.json<{ error: { type: string } }>().error.type, "method_not_allowed");
  });

  it("automatic HEAD for GET routes: headers, no body", async () => {
    const r = await a.inject({ method: "HEAD", url: "/users/42" });
    assert.equal(r.status, 200);
    assert.equal(r.body, "");
    assert.equal(r.headers["content-length"], String(JSON.stringify({ id: "42" }).length));
  });

  it("automatic OPTIONS answers 204 with Allow", async () => {
    const r = await a.inject({ method: "OPTIONS", url: "/users/42" });
    assert.equal(r.status, 204);
    assert.equal(r.headers["allow"], "GET, HEAD, OPTIONS, POST");
    assert.equal((await a.inject({ method: "OPTIONS", url: "/zzz" })).status, 404);
  });

  it("path params are decoded once; bad encoding and over-long params are 400", async () => {
    assert.deepEqual((await a.inject({ url: "/users/a%20b" })).json(), { id: "a b" });
    assert.deepEqual((await a.inject({ url: "/users/%2525" })).json(), { id: "%25" });
    const bad = await a.inject({ url: "/users/%E2%82" });
    assert.equal(bad.status, 400);
    assert.match(bad.json<{ error: { message: string } }>().error.message, /percent-encoding/);
    const long = await a.inject({ url: "/users/" + "x".repeat(101) });
    assert.equal(long.status, 400);
    assert.match(long.json<{ error: { message: string } }>().error.message, /too long/);
    assert.equal((await a.inject({ url: "/users/" + "x".repeat(100) })).status, 200);
  });

  it("query strings do not affect routing; absolute-form targets route by path", async () => {
    assert.deepEqual((await a.inject({ url: "/users/5?x=1" })).json(), { id: "5" });
    assert.deepEqual((await a.inject({ url: "http://example.com/users/6?y" })).json(), { id: "6" });
  });

  it("maxParamLength is configurable", async () => {
    const b = app({ maxParamLength: 3 }).route(route.get("/p/{x}", [path("x")], (x) => x));
    assert.equal((await b.inject({ url: "/p/abc" })).status, 200);
    assert.equal((await b.inject({ url: "/p/abcd" })).status, 400);
  });

  it("route registration errors are thrown at startup", () => {
    const b = app().route(route.get("/a/{id}", [], () => 1));
    assert.throws(() => b.route(route.get("/a/{id}", [], () => 2)), /already|duplicate|conflict/i);
    assert.throws(() => b.route(route.delete("/a/{key}", [], () => 2)), /id|key/);
    assert.throws(() => b.route(route.get("/x//y", [], () => 2)));
    assert.throws(() => b.route(route.get("/x/{y", [], () => 2)));
    assert.throws(() => b.route(route.get("/x/{}", [], () => 2)));
  });
});

describe("errors", () => {
  it("ApiError kinds map to status and type", async () => {
    const kinds: Array<[() => ApiError, number, string]> = [
      [() => ApiError.badRequest("b"), 400, "bad_request"],
      [() => ApiError.unauthorized("u"), 401, "unauthorized"],
      [() => ApiError.forbidden("f"), 403, "forbidden"],
      [() => ApiError.notFound("n"), 404, "not_found"],
      [() => ApiError.conflict("c"), 409, "conflict"],
      [() => ApiError.internal("i"), 500, "internal_error"],
    ];
    for (const [make, status, type] of kinds) {
      const a = app().route(route.get("/e", [], () => {
        throw make();
      }));
      const r = await a.inject({ url: "/e" });
      assert.equal(r.status, status);
      const b = r.json<{ error: { type: string; message: string }; error_id: string }>();
      assert.equal(b.error.type, type);
      assert.equal(b.error.message, make().message);
      assert.match(b.error_id, ERROR_ID);
      assert.equal(r.headers["content-type"], "application/json");
    }
  });

  it("a thrown non-ApiError or a rejection is a 500 and the app keeps serving", async () => {
    const logger = captureLogger(50);
    const a = new App({ logger }).routes(
      route.get("/throw", [], () => {
        throw new TypeError("secret internals");
      }),
      route.get("/reject", [], () => Promise.reject(new Error("db down"))),
      route.get("/string", [], () => {
        throw "a string";
      }),
      route.get("/ok", [], () => "ok"),
    );
    for (const url of ["/throw", "/reject", "/string"]) {
      const r = await a.inject({ url });
      assert.equal(r.status, 500);
      const b = r.json<{ error: { type: string; message: string }; error_id: string }>();
      assert.equal(b.error.type, "internal_error");
      assert.doesNotMatch(r.body, /secret internals|db down|a string/);
    }
    assert.equal((await a.inject({ url: "/ok" })).status, 200);
    assert.equal(logger.records.length, 3);
    assert.equal(logger.records[0]!.fields["detail"], "secret internals");
  });

  it("the private detail is logged with the error_id and never sent", async () => {
    const logger = captureLogger(50);
    const a = new App({ logger }).route(
      route.get("/i", [], () => {
        throw ApiError.internal("Storage error", { detail: "pg: relation users does not exist" });
      }),
    );
    const r = await a.inject({ url: "/i" });
    const b = r.json<{ error: { message: string }; error_id: string }>();
    assert.equal(b.error.message, "Storage error");
    assert.doesNotMatch(r.body, /relation users/);
    assert.equal(logger.records.length, 1);
    assert.equal(logger.records[0]!.fields["error_id"], b.error_id);
    assert.equal(logger.records[0]!.fields["detail"], "pg: relation users does not exist");
  });

  it("KEEL_ENV=production masks every 5xx message, keeps error_id and 4xx messages", async () => {
    const make = (env: string) =>
      app({ env }).routes(
        route.get("/i", [], () => {
          throw ApiError.internal("Storage error");
        }),
        route.get("/u", [], () => {
          throw new ApiError(503, "service_unavailable", "db pool exhausted");
        }),
        route.get("/b", [], () => {
          throw ApiError.badRequest("visible");
        }),
      );
    const prod = make("production");
    const i = (await prod.inject({ url: "/i" })).json<{ error: { message: string; type: string }; error_id: string }>();
    assert.equal(i.error.message, "An internal error occurred");
    assert.equal(i.error.type, "internal_error");
    assert.match(i.error_id, ERROR_ID);
    assert.equal((await prod.inject({ url: "/u" })).json<{ error: { message: string } }>().error.message, "An internal error occurred");
    assert.equal((await prod.inject({ url: "/b" })).json<{ error: { message: string } }>().error.message, "visible");
    const dev = make("development");
    assert.equal((await dev.inject({ url: "/i" })).json<{ error: { message: string } }>().error.message, "Storage error");
  });

  it("error ids are unique", async () => {
    const a = app();
    const ids = new Set<string>();
    for (let i = 0; i < 200; i++) ids.add((await a.inject({ url: "/x" })).json<{ error_id: string }>().error_id);
    assert.equal(ids.size, 200);
  });
});

describe("layers", () => {
  it("global layers wrap routes outermost-first and can change the reply", async () => {
    const order: string[] = [];
    const mark =
      (name: string): Layer =>
      async (ctx, next) => {
        order.push(name + ">");
        const r = await next(ctx);
        order.push("<" + name);
        r.headers["x-" + name] = "1";
        return r;
      };
    const a = app().layer(mark("outer")).layer(mark("inner")).route(
      route.get("/x", { layers: [mark("route")] }, [], () => {
        order.push("handler");
        return 1;
      }),
    );
    const r = await a.inject({ url: "/x" });
    assert.deepEqual(order, ["outer>", "inner>", "route>", "handler", "<route", "<inner", "<outer"]);
    assert.equal(r.headers["x-outer"], "1");
    assert.equal(r.headers["x-route"], "1");
  });

  it("global layers also see 404s and handler errors as replies", async () => {
    const stamp: Layer = async (ctx, next) => {
      const r = await next(ctx);
      r.headers["x-seen"] = String(r.status);
      return r;
    };
    const a = app().layer(stamp).route(
      route.get("/boom", [], () => {
        throw new Error("x");
      }),
    );
    assert.equal((await a.inject({ url: "/missing" })).headers["x-seen"], "404");
    assert.equal((await a.inject({ url: "/boom" })).headers["x-seen"], "500");
  });

  it("an error thrown by a layer is the uniform body, and outer layers still run", async () => {
    const guardLayer: Layer = async () => {
      throw ApiError.unauthorized("no token", { headers: { "www-authenticate": "Bearer" } });
    };
    const outer: Layer = async (ctx, next) => {
      const r = await next(ctx);
      r.headers["x-outer"] = "yes";
      return r;
    };
    const a = app().layer(outer).route(route.get("/p", { layers: [guardLayer] }, [], () => "secret"));
    const r = await a.inject({ url: "/p" });
    assert.equal(r.status, 401);
    assert.equal(r.headers["www-authenticate"], "Bearer");
    assert.equal(r.headers["x-outer"], "yes");
    assert.match(r.json<{ error_id: string }>().error_id, ERROR_ID);
  });

  it("a layer can answer without calling next (short-circuit)", async () => {
    let ran = false;
    const a = app()
      .layer(async () => new Reply(503, "down", { "content-type": "text/plain" }))
      .route(route.get("/x", [], () => {
        ran = true;
        return 1;
      }));
    const r = await a.inject({ url: "/x" });
    assert.equal(r.status, 503);
    assert.equal(ran, false);
  });

  it("layers added after the first request take effect (chains recompose)", async () => {
    const a = app().route(route.get("/x", [], () => 1));
    assert.equal((await a.inject({ url: "/x" })).headers["x-late"], undefined);
    a.layer(async (ctx, next) => (await next(ctx)).header("x-late", "1"));
    assert.equal((await a.inject({ url: "/x" })).headers["x-late"], "1");
  });
});

describe("state", () => {
  it("app state is shared with handlers", async () => {
    const { state } = await import("../../lib/index.js");
    const a = app({ state: { greeting: "hi" } }).route(route.get("/g", [state<string>("greeting")], (g) => g));
    assert.equal((await a.inject({ url: "/g" })).json(), "hi");
    a.setState("greeting", "hello");
    assert.equal((await a.inject({ url: "/g" })).json(), "hello");
    const b = app().route(route.get("/g", [state("missing")], (g) => g));
    assert.equal((await b.inject({ url: "/g" })).status, 500);
  });
});

describe("groups", () => {
  it("prefix, layers, tag and config apply to every route of the group", async () => {
    const { group } = await import("../../lib/index.js");
    const seen: string[] = [];
    const groupLayer: Layer = async (ctx, next) => {
      seen.push("group:" + ctx.path + ":" + String(ctx.route?.meta.config?.["flag"]));
      return next(ctx);
    };
    const routeLayer: Layer = async (ctx, next) => {
      seen.push("route");
      return next(ctx);
    };
    const defs = group({ prefix: "/admin", layers: [groupLayer], tag: "admin", config: { flag: "g", other: 1 } }, [
      route.get("/a", [], () => "a"),
      route.get("/b/{id}", { tag: "own", layers: [routeLayer], config: { flag: "r" } }, [path("id")], (id) => id),
    ]);
    assert.equal(defs[0]!.meta.tag, "admin");
    assert.equal(defs[1]!.meta.tag, "own");
    const a = app().routes(defs).route(route.get("/a", [], () => "outside"));
    assert.equal((await a.inject({ url: "/admin/a" })).json(), "a");
    assert.equal((await a.inject({ url: "/admin/b/7" })).json(), "7");
    assert.equal((await a.inject({ url: "/a" })).json(), "outside");
    assert.deepEqual(seen, ["group:/admin/a:g", "group:/admin/b/7:r", "route"]);
    assert.throws(() => group({ prefix: "admin/" }, []), /prefix/);
  });
});
