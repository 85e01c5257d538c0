// apiKey() over a real socket: header (default x-api-key) or query parameter, plain or
// SHA-256-configured keys, a custom verify function, 401 with a challenge when missing/wrong.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { App, route, silentLogger, type ListeningServer } from "../../lib/index.js";
import { apiKey, apiKeyDigest } from "../../lib/auth/index.js";
import { authUser } from "../../lib/auth/index.js";
import { send } from "../support/http.js";

const KEY_A = "key-a-0123456789abcdef0123456789";
const KEY_B = "key-b-0123456789abcdef0123456789";
const KEY_C = "key-c-0123456789abcdef0123456789";

describe("apiKey()", () => {
  let server: ListeningServer;
  let verifyCalls: string[] = [];
  before(async () => {
    const keysLayer = apiKey({ keys: [KEY_A, { key: KEY_B, claims: { sub: "partner-b" } }, { sha256: apiKeyDigest(KEY_C), claims: { sub: "c" } }] });
    const app = new App({ logger: silentLogger }).routes(
      route.get("/k", { layers: [keysLayer] }, [authUser()], (c) => ({ sub: c.sub })),
      route.get("/q", { layers: [apiKey({ keys: [KEY_A], query: "api_key", header: "X-Service-Key" })] }, [], () => "ok"),
      route.get(
        "/v",
        {
          layers: [
            apiKey({
              verify: async (key) => {
                verifyCalls.push(key);
                return key === "good" ? { sub: "from-db" } : key === "yes" ? true : null;
              },
            }),
          ],
        },
        [authUser()],
        (c) => c.sub,
      ),
    );
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  it("accepts each configured key (plain or SHA-256) and exposes its claims", async () => {
    for (const [key, sub] of [[KEY_A, "api-key"], [KEY_B, "partner-b"], [KEY_C, "c"]] as const) {
      const r = await send(server.url + "/k", { headers: { "x-api-key": key } });
      assert.equal(r.status, 200, key);
      assert.deepEqual(JSON.parse(r.body), { sub });
    }
  });

  it("answers 401 with a challenge for a missing, wrong or near-miss key", async () => {
    for (const headers of [{}, { "x-api-key": "" }, { "x-api-key": "nope" }, { "x-api-key": KEY_A + "x" }, { "x-api-key": KEY_A.slice(0, -1) }, { "x-api-key": "x".repeat(5000) }, { authorization: `Bearer ${KEY_A}` }]) {
      const r = await send(server.url + "/k", { headers });
      assert.equal(r.status, 401, JSON.stringify(headers).slice(0, 80));
      assert.equal(r.headers["www-authenticate"], 'ApiKey realm="api"');
      assert.equal((JSON.parse(r.body) as { error: { type: string } }).error.type, "unauthorized");
    }
    const missing = await send(server.url + "/k");
    assert.equal((JSON.parse(missing.body) as { error: { message: string } }).error.message, "Missing API key");
  });

  it("reads a custom header and, when configured, a query parameter; never the query by default", async () => {
    assert.equal((await send(server.url + "/q", { headers: { "x-service-key": KEY_A } })).status, 200);
    assert.equal((await send(server.url + "/q?api_key=" + KEY_A)).status, 200);
    assert.equal((await send(server.url + "/q?api_key=" + KEY_A + "&api_key=" + KEY_A)).status, 401);
    assert.equal((await send(server.url + "/q", { headers: { "x-api-key": KEY_A } })).status, 401);
    assert.equal((await send(server.url + "/k?api_key=" + KEY_A)).status, 401);
  });

  it("delegates to verify() and uses the claims it returns", async () => {
    verifyCalls = [];
    const good = await send(server.url + "/v", { headers: { "x-api-key": "good" } });
    assert.equal(good.status, 200);
    assert.equal(good.body, '"from-db"');
    assert.equal((await send(server.url + "/v", { headers: { "x-api-key": "yes" } })).body, '"api-key"');
    assert.equal((await send(server.url + "/v", { headers: { "x-api-key": "bad" } })).status, 401);
    assert.equal((await send(server.url + "/v")).status, 401);
    assert.deepEqual(verifyCalls, ["good", "yes", "bad"]);
  });

  it("refuses bad configurations at startup", () => {
    assert.throws(() => apiKey({}), TypeError);
    assert.throws(() => apiKey({ keys: [KEY_A], verify: () => true }), TypeError);
    assert.throws(() => apiKey({ keys: [] }), TypeError);
    assert.throws(() => apiKey({ keys: ["short"] }), TypeError);
    assert.throws(() => apiKey({ keys: [{ sha256: "abc" }] }), TypeError);
    assert.throws(() => apiKey({ keys: [KEY_A], header: "bad header" }), TypeError);
  });
});
