// A JSON body's number of values is bounded before JSON.parse runs: 1 MiB of `[{},{},...]` would
// otherwise block the event loop for ~100 ms. The app sets the default, a route can raise it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { App, form, json, route, silentLogger, t, text } from "../../lib/index.js";

const MiB = 1024 * 1024;
const post = (app: App, url: string, body: string) => app.inject({ method: "POST", url, body, headers: { "content-type": "application/json" } });
const emptyObjects = (n: number): string => "[" + Array.from({ length: n }, () => "{}").join(",") + "]";

describe("JSON value count limit", () => {
  const app = new App({ logger: silentLogger }).routes(
    route.post("/any", [json()], () => ({ ok: true })),
    route.post("/bulk", [json(t.array(t.object({})), { maxElements: 400_000 })], (b) => ({ n: b.length })),
  );

  it("refuses 1 MiB of [{},{},...] with the uniform 400 before parsing it", async () => {
    const body = emptyObjects(Math.floor(MiB / 3) - 1);
    const r = await post(app, "/any", body);
    assert.equal(r.status, 400);
    const e = r.json<{ error: { type: string; message: string }; error_id: string }>();
    assert.equal(e.error.type, "bad_request");
    assert.equal(e.error.message, "JSON body has more than 50000 values");
    assert.match(e.error_id, /^err_/);
  });

  it("accepts a body under the default", async () => {
    assert.equal((await post(app, "/any", emptyObjects(24_000))).status, 200);
  });

  it("counts values, not commas inside strings", async () => {
    const body = JSON.stringify({ text: ",".repeat(200_000), list: "[[[[".repeat(1000) });
    assert.equal((await post(app, "/any", body)).status, 200);
  });

  it("a route can raise it", async () => {
    const r = await post(app, "/bulk", emptyObjects(100_000));
    assert.equal(r.status, 200);
    assert.deepEqual(r.json(), { n: 100_000 });
  });

  it("the app can lower it", async () => {
    const strict = new App({ logger: silentLogger, jsonElements: 10 }).route(route.post("/any", [json()], () => ({ ok: true })));
    assert.equal((await post(strict, "/any", "[1,2,3,4,5]")).status, 200);
    assert.equal((await post(strict, "/any", JSON.stringify(Array.from({ length: 20 }, (_, i) => i)))).status, 400);
  });

  it("refuses a bad maxElements when the route is declared", () => {
    assert.throws(() => json(t.object({}), { maxElements: 0 }), /maxElements must be a positive integer/);
  });
});

describe("JSON charset", () => {
  const app = new App({ logger: silentLogger }).route(route.post("/any", [json()], () => ({ ok: true })));
  for (const type of ["application/json; charset=utf-16", "application/json;charset=latin1", 'application/json; charset="']) {
    it(`refuses ${JSON.stringify(type)} with 415: JSON is UTF-8`, async () => {
      const r = await app.inject({ method: "POST", url: "/any", body: "{}", headers: { "content-type": type } });
      assert.equal(r.status, 415);
    });
  }
  for (const type of ["application/json; charset=utf-8", "application/json; charset=UTF-8", 'application/json; charset="utf-8"', "application/json"]) {
    it(`accepts ${JSON.stringify(type)}`, async () => {
      assert.equal((await app.inject({ method: "POST", url: "/any", body: "{}", headers: { "content-type": type } })).status, 200);
    });
  }
});

describe("bodies are read as sent: no content-coding, declared charsets, strict forms", () => {
  const app = new App({ logger: silentLogger }).routes(
    route.post("/json", [json()], () => ({ ok: true })),
    route.post("/text", [text()], (s) => ({ s })),
    route.post("/form", [form()], (f) => ({ ...f })),
  );
  const post = (url: string, body: string, headers: Record<string, string>) => app.inject({ method: "POST", url, body, headers });

  it("refuses a Content-Encoding other than identity with 415", async () => {
    for (const enc of ["gzip", "br", "rot13", "identity, gzip"]) {
      const r = await post("/json", "{}", { "content-type": "application/json", "content-encoding": enc });
      assert.equal(r.status, 415, enc);
    }
    assert.equal((await post("/json", "{}", { "content-type": "application/json", "content-encoding": "identity" })).status, 200);
  });

  it("refuses a text body declared in another charset than UTF-8", async () => {
    assert.equal((await post("/text", "hi", { "content-type": "text/plain; charset=utf-16" })).status, 415);
    assert.equal((await post("/text", "hi", { "content-type": "text/plain; charset=us-ascii" })).status, 200);
    assert.equal((await post("/text", "hé", { "content-type": "text/plain; charset=UTF-8" })).status, 200);
  });

  it("refuses malformed percent-encoding in a form body (queries stay lenient)", async () => {
    for (const body of ["name=a%ff", "name=%zz", "na%c0%80me=1", "name=%e0%80%af"]) {
      assert.equal((await post("/form", body, { "content-type": "application/x-www-form-urlencoded" })).status, 400, body);
    }
    const ok = await post("/form", "name=%C3%A9+x", { "content-type": "application/x-www-form-urlencoded" });
    assert.deepEqual(ok.json(), { name: "é x" });
  });
});
