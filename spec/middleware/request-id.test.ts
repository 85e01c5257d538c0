// The request-id layer over real sockets: kept, generated, unique under concurrency, on errors.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError, App, requestContext, route } from "../../lib/index.js";
import { compileRequestIdPolicy, isPlainRequestId, requestId } from "../../lib/middleware/index.js";
import { captureLogger } from "../support/capture-logger.js";
import { send } from "../support/http.js";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function withApp(layer: ReturnType<typeof requestId>, fn: (url: string, logger: ReturnType<typeof captureLogger>) => Promise<void>): Promise<void> {
  const logger = captureLogger(0);
  const app = new App({ logger, env: "development" })
    .layer(layer)
    .routes(
      route.get("/id", [requestContext()], (info) => ({ seen: info.requestId })),
      route.get("/boom", [], () => {
        throw ApiError.internal("Storage error", { detail: "private" });
      }),
    );
  const server = await app.listen({ port: 0 });
  try {
    await fn(server.url, logger);
  } finally {
    await server.close();
  }
}

describe("isPlainRequestId", () => {
  it("accepts 1-128 characters of [A-Za-z0-9._:-] and nothing else", () => {
    assert.equal(isPlainRequestId("a"), true);
    assert.equal(isPlainRequestId("Az09._:-"), true);
    assert.equal(isPlainRequestId("x".repeat(128)), true);
    assert.equal(isPlainRequestId("x".repeat(129)), false);
    assert.equal(isPlainRequestId(""), false);
    for (const bad of ["a b", "a/b", 'a"b', "a\\b", "é", "a\nb", "a;b", "a,b", "<x>", "a=b"]) {
      assert.equal(isPlainRequestId(bad), false, bad);
    }
  });

  it("policy options are validated at startup", () => {
    assert.throws(() => compileRequestIdPolicy({ maxLength: 0 }), RangeError);
    assert.throws(() => compileRequestIdPolicy({ maxLength: 5000 }), RangeError);
    assert.throws(() => compileRequestIdPolicy({ header: "bad header" }), TypeError);
  });
});

describe("requestId layer", () => {
  it("keeps a well-formed incoming id and hands it to the handler", async () => {
    await withApp(requestId(), async (url) => {
      const r = await send(url + "/id", { headers: { "x-request-id": "edge-42:abc.DEF_9" } });
      assert.equal(r.status, 200);
      assert.equal(r.headers["x-request-id"], "edge-42:abc.DEF_9");
      assert.deepEqual(JSON.parse(r.body), { seen: "edge-42:abc.DEF_9" });
    });
  });

  it("replaces malformed or over-long ids with a fresh UUID v4", async () => {
    await withApp(requestId(), async (url) => {
      for (const bad of ["has space", "x".repeat(129), 'quote"d', "semi;colon", "tab\there", "slash/id"]) {
        const r = await send(url + "/id", { headers: { "x-request-id": bad } });
        const id = r.headers["x-request-id"];
        assert.ok(typeof id === "string" && UUID_V4.test(id), `${bad} -> ${String(id)}`);
        assert.deepEqual(JSON.parse(r.body), { seen: id });
      }
      const exact = await send(url + "/id", { headers: { "x-request-id": "y".repeat(128) } });
      assert.equal(exact.headers["x-request-id"], "y".repeat(128));
    });
  });

  it("generates an id when none came in", async () => {
    await withApp(requestId(), async (url) => {
      const r = await send(url + "/id");
      assert.match(String(r.headers["x-request-id"]), UUID_V4);
    });
  });

  it("ignores incoming ids when trustIncoming is false", async () => {
    await withApp(requestId({ trustIncoming: false }), async (url) => {
      const r = await send(url + "/id", { headers: { "x-request-id": "client-chosen" } });
      assert.notEqual(r.headers["x-request-id"], "client-chosen");
      assert.match(String(r.headers["x-request-id"]), UUID_V4);
    });
  });

  it("ids are unique under concurrency, and each response matches what its handler saw", async () => {
    await withApp(requestId(), async (url) => {
      const responses = await Promise.all(Array.from({ length: 200 }, () => send(url + "/id")));
      const ids = responses.map((r) => String(r.headers["x-request-id"]));
      assert.equal(new Set(ids).size, 200);
      for (const r of responses) assert.deepEqual(JSON.parse(r.body), { seen: r.headers["x-request-id"] });
    });
  });

  it("error responses (404 and 500) carry the id, and the error log has it beside the error_id", async () => {
    await withApp(requestId(), async (url, logger) => {
      const missing = await send(url + "/nope", { headers: { "x-request-id": "trace-me-404" } });
      assert.equal(missing.status, 404);
      assert.equal(missing.headers["x-request-id"], "trace-me-404");

      const boom = await send(url + "/boom", { headers: { "x-request-id": "trace-me-500" } });
      assert.equal(boom.status, 500);
      assert.equal(boom.headers["x-request-id"], "trace-me-500");
      const errorId = (JSON.parse(boom.body) as { error_id: string }).error_id;
      const line = logger.records.find((r) => r.fields["error_id"] === errorId);
      assert.ok(line, "the error was logged");
      assert.equal(line.fields["req_id"], "trace-me-500");
    });
  });

  it("uses a custom header, validator and generator", async () => {
    let n = 0;
    const layer = requestId({ header: "X-Correlation-Id", accept: (id) => id.startsWith("ok-"), generate: () => `gen-${++n}` });
    await withApp(layer, async (url) => {
      const kept = await send(url + "/id", { headers: { "x-correlation-id": "ok-1" } });
      assert.equal(kept.headers["x-correlation-id"], "ok-1");
      assert.equal(kept.headers["x-request-id"], undefined);
      const replaced = await send(url + "/id", { headers: { "x-correlation-id": "nope" } });
      assert.equal(replaced.headers["x-correlation-id"], "gen-1");
    });
  });
});
