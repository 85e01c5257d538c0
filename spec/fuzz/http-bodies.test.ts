// Request bodies, headers and queries, fuzzed against an app in production mode: whatever comes
// in, the answer is never a 5xx, every refusal is the uniform error body, and no body shows a
// stack trace or a file path (the production rule: nothing internal leaks).
import assert from "node:assert/strict";
import { test } from "node:test";
import { App, form, json, query, route, silentLogger, t, text } from "../../lib/index.js";
import { toon } from "../../lib/toon/index.js";
import { runProperty, type Rng } from "./property.js";

const User = t.object({ email: t.string({ email: true }), password: t.string({ length: { min: 8 } }), tags: t.optional(t.array(t.string())) });

function productionApp(): App {
  return new App({ logger: silentLogger, env: "production" }).routes(
    route.post("/json", [json(User)], (b) => ({ ok: b.email })),
    route.post("/any", [json()], (b) => ({ kind: typeof b })),
    route.post("/form", [form(t.object({ name: t.string(), n: t.optional(t.integer()) }))], (b) => b),
    route.post("/toon", [toon(t.object({ name: t.string() }))], (b) => b),
    route.post("/text", [text()], (s) => ({ length: s.length })),
    route.get("/q", [query(t.object({ limit: t.optional(t.integer({ range: { min: 1, max: 100 } })), tag: t.optional(t.array(t.string())) }))], (q) => q),
  );
}

const TARGETS = ["/json", "/any", "/form", "/toon", "/text"];
const TYPES = ["application/json", "application/json; charset=utf-8", "application/json; charset=latin1", "application/problem+json", "application/x-www-form-urlencoded", "application/toon", "text/plain", "text/plain; charset=utf-8", "multipart/form-data; boundary=x", "", "application/", "*/*", "application/json\u0000", "APPLICATION/JSON"];
const FRAGMENTS = ['{"email":"a@b.co","password":"12345678"}', "{", "}", "[", "]", '"', ":", ",", "null", "true", "1e999", "-0", '"__proto__"', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}', "\\u0000", "\\ud800", "name=a&n=1", "&", "=", "%zz", "%00", "name:", "  ", "\n", "\t", "é", "😀", "\u0000", "[1,2", "{\"a\":" , "0".repeat(40), "[".repeat(70)];
const STACK_OR_PATH = /\n\s+at |\/work\/|node_modules|\.ts:\d|\blib\/[a-z]/;

function bodyOf(rng: Rng): string | Buffer {
  if (rng.chance(0.15)) return Buffer.from(Array.from({ length: rng.int(40) }, () => rng.int(256)));
  return Array.from({ length: rng.range(0, 8) }, () => rng.pick(FRAGMENTS)).join("");
}

function checkAnswer(status: number, body: string, label: string): void {
  assert.ok(status < 500, `${label}: ${status} ${body}`);
  assert.doesNotMatch(body, STACK_OR_PATH, `${label}: leaks internals`);
  if (status >= 400) {
    const b = JSON.parse(body) as { error?: { type?: string; message?: string }; error_id?: string };
    assert.equal(typeof b.error?.type, "string", label);
    assert.equal(typeof b.error?.message, "string", label);
    assert.match(String(b.error_id), /^err_[0-9a-f]{32}$/, label);
  }
}

test("random bodies and content types in production: no 5xx, uniform errors, nothing internal", async () => {
  const app = productionApp();
  await runProperty({
    name: "http/bodies",
    generate: (rng: Rng) => ({ url: rng.pick(TARGETS), type: rng.pick(TYPES), body: bodyOf(rng) }),
    check: async ({ url, type, body }) => {
      const headers: Record<string, string> = type === "" ? {} : { "content-type": type };
      const r = await app.inject({ method: "POST", url, headers, body });
      checkAnswer(r.status, r.body, `${url} ${type} ${JSON.stringify(String(body)).slice(0, 80)}`);
    },
  });
});

const QUERY_PIECES = ["limit=5", "limit=0", "limit=101", "limit=abc", "limit=", "limit=1&limit=2", "tag=a", "tag=", "tag[]=a", "__proto__=1", "__proto__[x]=1", "constructor[prototype][x]=1", "%zz=1", "a=%ff", "&&", "=", "limit=1e3", "limit=-1", "limit=%20"];

test("random query strings in production: no 5xx, uniform errors", async () => {
  const app = productionApp();
  await runProperty({
    name: "http/queries",
    generate: (rng: Rng) => "/q?" + Array.from({ length: rng.range(0, 6) }, () => rng.pick(QUERY_PIECES)).join("&"),
    check: async (url) => {
      const r = await app.inject({ url });
      checkAnswer(r.status, r.body, url);
      assert.equal(({} as Record<string, unknown>)["x"], undefined, "Object.prototype polluted");
    },
  });
});
