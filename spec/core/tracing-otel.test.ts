// The docs example (docs/features/tracing.md, kept in spec/core/tracing-otel-example.ts so it is
// type-checked and run): keel's channels as OpenTelemetry spans, against a fake of the API.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { App, path, route, silentLogger, t } from "../../lib/index.js";
import { keelSpans, type OtelApi, type OtelSpan } from "./tracing-otel-example.js";

interface FakeContext {
  span?: FakeSpan;
}

class FakeSpan implements OtelSpan {
  attributes: Record<string, string | number>;
  status = 0;
  exceptions: Error[] = [];
  ended = 0;
  constructor(
    readonly name: string,
    readonly kind: number,
    attributes: Record<string, string | number>,
    readonly parent: FakeSpan | undefined,
  ) {
    this.attributes = { ...attributes };
  }
  setAttribute(key: string, value: string | number): void {
    this.attributes[key] = value;
  }
  recordException(exception: Error): void {
    this.exceptions.push(exception);
  }
  setStatus(status: { code: number }): void {
    this.status = status.code;
  }
  end(): void {
    this.ended++;
  }
}

function fakeApi(): { api: OtelApi<FakeContext>; spans: FakeSpan[] } {
  const spans: FakeSpan[] = [];
  const root: FakeContext = {};
  const api: OtelApi<FakeContext> = {
    trace: {
      getTracer: () => ({
        startSpan: (name, options, context) => {
          const span = new FakeSpan(name, options.kind, options.attributes, context?.span);
          spans.push(span);
          return span;
        },
      }),
      setSpan: (_context, span) => ({ span: span as FakeSpan }),
    },
    context: { active: () => root },
  };
  return { api, spans };
}

const boom = new Error("boom");

describe("the OpenTelemetry example of docs/features/tracing.md", () => {
  it("is the code of the page", () => {
    const page = readFileSync(new URL("../../docs/features/tracing.md", import.meta.url), "utf8");
    const file = readFileSync(new URL("./tracing-otel-example.ts", import.meta.url), "utf8").replace('"../../lib/index.js"', '"keel"');
    const block = /```ts\n(\/\/ keel's tracing channels as OpenTelemetry spans[\s\S]*?)```/.exec(page);
    assert.ok(block !== null, "the page has the example");
    assert.equal(block[1], file);
  });

  it("makes a SERVER span per request named by its route and an INTERNAL child per handler, each ended once", async () => {
    const { api, spans } = fakeApi();
    const stop = keelSpans(api);
    try {
      const app = new App({ logger: silentLogger }).routes(
        route.get("/hello", [], () => ({ hello: "world" })),
        route.get("/users/{id}", [path("id", t.integer())], async (id) => {
          await new Promise((r) => setImmediate(r));
          return { id };
        }),
        route.get("/boom", [], () => {
          throw boom;
        }),
      );
      for (const url of ["/hello", "/users/7", "/boom", "/nope"]) await app.inject({ method: "GET", url });
      const summary = spans.map((s) => ({ name: s.name, kind: s.kind, parent: s.parent?.name ?? null, status: s.status, code: s.attributes["http.response.status_code"] ?? null, route: s.attributes["http.route"] ?? null, exceptions: s.exceptions.length, ended: s.ended }));
      assert.deepEqual(summary, [
        { name: "GET /hello", kind: 1, parent: null, status: 0, code: 200, route: "/hello", exceptions: 0, ended: 1 },
        { name: "handler GET /hello", kind: 0, parent: "GET /hello", status: 0, code: null, route: null, exceptions: 0, ended: 1 },
        { name: "GET /users/{id}", kind: 1, parent: null, status: 0, code: 200, route: "/users/{id}", exceptions: 0, ended: 1 },
        { name: "handler GET /users/{id}", kind: 0, parent: "GET /users/{id}", status: 0, code: null, route: null, exceptions: 0, ended: 1 },
        { name: "GET /boom", kind: 1, parent: null, status: 2, code: 500, route: "/boom", exceptions: 1, ended: 1 },
        { name: "handler GET /boom", kind: 0, parent: "GET /boom", status: 2, code: null, route: null, exceptions: 1, ended: 1 },
        { name: "GET", kind: 1, parent: null, status: 0, code: 404, route: null, exceptions: 0, ended: 1 },
      ]);
      assert.equal(spans[4]!.exceptions[0], boom);
    } finally {
      stop();
    }
  });
});
