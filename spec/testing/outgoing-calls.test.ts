// An app's outgoing calls tested against keel/testing's mockServer(), with no network beyond
// loopback (issue 37 item 3): a tracedFetch() to a downstream service (traceparent checked by a
// header matcher), the JWT layer's JWKS fetch (fetched once, then cached; an outage is the
// layer's 503), and the OTLP exporter's POST (headers and the exported spans checked by body
// matchers). One mock server for the file; each test verify()s and resets it.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { after, afterEach, before, describe, it } from "node:test";
import { App, context, path, route, silentLogger, t } from "../../lib/index.js";
import { jwt } from "../../lib/auth/index.js";
import { signJwt } from "../../lib/jose/index.js";
import { otlpExporter, tracedFetch } from "../../lib/otel/index.js";
import { production } from "../../lib/service/index.js";
import { mockServer, type MockServer, type ReceivedRequest } from "../../lib/testing/index.js";

const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/;

let mock: MockServer;
before(async () => {
  mock = await mockServer();
});
after(() => mock.close());
afterEach(() => mock.reset());

describe("tracedFetch() against mockServer", () => {
  it("the downstream call carries traceparent and the app uses the mocked answer", async () => {
    mock.expect({ method: "GET", path: "/prices/{sku}", query: { currency: "EUR" }, headers: { traceparent: TRACEPARENT } }).reply(200, { sku: "A1", price: 12.5 });
    const app = new App({ logger: silentLogger });
    production({ service: "shop", logger: silentLogger, probes: false, spans: { onSpan: () => undefined } }).register(app);
    app.routes(route.get("/quote/{sku}", [path("sku", t.string()), context()], async (sku, ctx) => {
      const r = await tracedFetch(ctx, `${mock.url}/prices/${sku}?currency=EUR`);
      return { upstream: r.status, ...((await r.json()) as object) };
    }));
    const res = await app.inject({ url: "/quote/A1" });
    assert.deepEqual(res.json(), { upstream: 200, sku: "A1", price: 12.5 });
    mock.verify();
  });

  it("a downstream reset is the app's own error, and verify() names a call the app did not make", async () => {
    mock.expect({ method: "GET", path: "/flaky" }).fault("reset");
    mock.expect({ method: "POST", path: "/audit" }).reply(204);
    const app = new App({ logger: silentLogger });
    production({ service: "shop", logger: silentLogger, probes: false, spans: { onSpan: () => undefined } }).register(app);
    app.routes(route.get("/call", [context()], async (ctx) => {
      try {
        await tracedFetch(ctx, `${mock.url}/flaky`);
        return { ok: true };
      } catch {
        return { ok: false };
      }
    }));
    assert.deepEqual((await app.inject({ url: "/call" })).json(), { ok: false });
    assert.throws(() => mock.verify(), /POST \/audit: expected 1 call, got 0/);
  });
});

describe("the JWT layer's JWKS fetch against mockServer", () => {
  const pair = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = { ...pair.publicKey.export({ format: "jwk" }), kid: "k1", use: "sig", alg: "ES256" };
  const token = signJwt({ sub: "ada" }, { algorithm: "ES256", key: pair.privateKey, kid: "k1", expiresIn: 600 });

  function appWithJwks(): App {
    return new App({ logger: silentLogger }).routes(route.get("/me", { layers: [jwt({ algorithms: ["ES256"], jwksUrl: `${mock.url}/.well-known/jwks.json` })] }, [], () => ({ ok: true })));
  }

  it("fetches the key set once and verifies tokens with it", async () => {
    mock.expect({ method: "GET", path: "/.well-known/jwks.json" }).once().reply(200, { keys: [jwk] });
    const app = appWithJwks();
    for (let i = 0; i < 3; i++) assert.equal((await app.inject({ url: "/me", headers: { authorization: `Bearer ${token}` } })).status, 200);
    mock.verify(); // exactly one fetch: a second one would have been an unmatched request
    assert.equal(mock.requests.length, 1);
  });

  it("a JWKS endpoint that resets the connection makes the layer answer 503", async () => {
    mock.expect({ method: "GET", path: "/.well-known/jwks.json" }).always().fault("reset");
    const res = await appWithJwks().inject({ url: "/me", headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 503);
    mock.verify();
  });
});

describe("the OTLP exporter against mockServer", () => {
  it("POSTs the spans as OTLP/HTTP JSON with the configured headers", async () => {
    const spanNames = (r: ReceivedRequest): string[] => {
      const body = r.json as { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: Array<{ name: string }> }> }> };
      return (body.resourceSpans ?? []).flatMap((rs) => (rs.scopeSpans ?? []).flatMap((ss) => (ss.spans ?? []).map((s) => s.name)));
    };
    mock
      .expect({
        method: "POST",
        path: "/v1/traces",
        headers: { "content-type": "application/json", "x-api-key": "secret-1" },
        body: (r) => spanNames(r).includes("GET /users/{id}"),
      })
      .reply(200, {});
    const exporter = otlpExporter({ url: `${mock.url}/v1/traces`, headers: { "x-api-key": "secret-1" }, serviceName: "billing", scheduleDelayMs: 60_000 });
    try {
      const app = new App({ logger: silentLogger });
      production({ service: "billing", logger: silentLogger, probes: false, spans: { onSpan: exporter } }).register(app);
      app.routes(route.get("/users/{id}", [path("id", t.u64())], (id) => ({ id })));
      assert.equal((await app.inject({ url: "/users/7" })).status, 200);
      await exporter.flush();
      mock.verify();
      const service = (mock.requests[0]!.json as { resourceSpans: Array<{ resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> } }> })
        .resourceSpans[0]!.resource.attributes.find((a) => a.key === "service.name");
      assert.equal(service?.value.stringValue, "billing");
    } finally {
      await exporter.shutdown();
    }
  });
});
