// The keel server of the `real` bench scenario (issue 34; bench/servers/keel-real.ts) keeps its
// contract: with the load's bearer token both routes answer as the scenario expects (200, 201),
// without one 401, and every answer carries the stack's headers (CORS for the allowed origin,
// security headers, request id, rate-limit headers) and writes one JSON access line. The same
// statuses are checked for Fastify and Hono by the pre-flight of bench/harness/http-matrix.mjs.
import assert from "node:assert/strict";
import { join } from "node:path";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { ALLOWED_ORIGIN } from "../../bench/servers/common.js";
import { withRealStack } from "../../bench/servers/keel-real.js";
import { scenarioApp } from "../../bench/servers/keel-routes.js";
import { root } from "./build-support.js";

interface Scenario {
  id: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  expectStatus: number;
  args?: string[];
  impls?: string[];
}
interface ScenariosModule {
  SCENARIOS: Scenario[];
  REAL_TOKEN: string;
  signHs256(claims: object, secret: string): string;
}
const { SCENARIOS, signHs256 } = (await import(pathToFileURL(join(root, "bench/harness/scenarios.mjs")).href)) as ScenariosModule;
const real = SCENARIOS.filter((s) => s.id.startsWith("real-"));

const lines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
    done();
  },
});
let base = "";
let close: () => Promise<void> = async () => {};

before(async () => {
  const listening = await withRealStack(scenarioApp(false), {}, sink).listen({ port: 0, host: "127.0.0.1" });
  base = `http://127.0.0.1:${listening.port}`;
  close = () => listening.close();
});
after(() => close());

async function send(s: Scenario, headers: Record<string, string>) {
  const r = await fetch(base + s.path, { method: s.method, headers, ...(s.body === undefined ? {} : { body: s.body }) });
  return { status: r.status, headers: r.headers, body: await r.text() };
}

function assertStackHeaders(h: Headers): void {
  assert.equal(h.get("access-control-allow-origin"), ALLOWED_ORIGIN);
  assert.match(h.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
  assert.equal(h.get("x-content-type-options"), "nosniff");
  assert.ok(h.get("content-security-policy"), "content-security-policy is set");
  assert.ok(h.get("x-frame-options"), "x-frame-options is set");
  assert.ok(h.get("ratelimit-limit"), "ratelimit-limit is set");
}

describe("bench/servers/keel-real.ts (the real scenario)", () => {
  it("has the two scenarios, for keel, Fastify and Hono, each with a bearer token", () => {
    assert.deepEqual(real.map((s) => s.id), ["real-get", "real-post"]);
    for (const s of real) {
      assert.deepEqual(s.args, ["--real"]);
      assert.deepEqual(s.impls, ["keel", "fastify", "hono"]);
      assert.match(s.headers?.["authorization"] ?? "", /^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
      assert.equal(s.headers?.["origin"], ALLOWED_ORIGIN);
    }
  });

  for (const s of real) {
    it(`${s.id}: ${s.expectStatus} with the token, with the stack's headers and one access line`, async () => {
      const before = lines.length;
      const r = await send(s, s.headers ?? {});
      assert.equal(r.status, s.expectStatus, r.body);
      assert.match(r.headers.get("content-type") ?? "", /^application\/json/);
      assertStackHeaders(r.headers);
      // The buffered logger writes on its own schedule: wait for the line rather than assume it.
      for (let i = 0; i < 100 && lines.length === before; i++) await new Promise((done) => setTimeout(done, 10));
      const line = JSON.parse(lines[lines.length - 1]!) as Record<string, unknown>;
      assert.equal(line["status"], s.expectStatus);
      assert.equal(line["req_id"], r.headers.get("x-request-id"));
    });

    it(`${s.id}: 401 without a token, with a bad signature, still with the stack's headers`, async () => {
      const { authorization: _drop, ...anonymous } = s.headers ?? {};
      const none = await send(s, anonymous);
      assert.equal(none.status, 401, none.body);
      assert.match(none.headers.get("www-authenticate") ?? "", /^Bearer /);
      assertStackHeaders(none.headers);
      const forged = await send(s, { ...anonymous, authorization: `Bearer ${signHs256({ sub: "42", exp: 4_102_444_800 }, "another-secret-another-secret-another")}` });
      assert.equal(forged.status, 401, forged.body);
    });
  }
});
