// Negotiated replies over a real socket (lib/toon/negotiated.ts): Accept decides JSON or TOON,
// Vary, 406 and its fallback, token headers on/off and their numbers, route flags and layers.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ApiError, App, created, route, silentLogger, textReply, type ListeningServer } from "../../lib/index.js";
import { negotiated, negotiation, NegotiatedReply, isNegotiatedRoute, NEGOTIATED_MEDIA_TYPES } from "../../lib/toon/index.js";
import { estimateTokens } from "../../lib/toon/index.js";
import { decodeToon, encodeToon } from "../../lib/toon/index.js";
import { ERROR_ID, send, type WireResponse } from "../support/http.js";

const users = {
  users: Array.from({ length: 20 }, (_, i) => ({ id: i + 1, name: `User ${i}`, email: `user${i}@example.com`, active: i % 3 !== 0 })),
};
const nested = [[1, 2], [3, [4, [5]]]];
const TOON_TYPE = "application/toon; charset=utf-8";

/** Plain data (no null prototypes) for deepEqual against the original value. */
function plain(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v));
}

function expectedCounts(value: unknown): { json: number; toon: number; savings: number } {
  const json = estimateTokens(JSON.stringify(value));
  const toon = estimateTokens(encodeToon(value));
  return { json, toon, savings: Math.round(((json - toon) / json) * 100) };
}

function varyList(r: WireResponse): string[] {
  const v = r.headers["vary"];
  return (v === undefined ? "" : String(v)).split(",").map((s) => s.trim().toLowerCase()).filter((s) => s !== "");
}

const servers: ListeningServer[] = [];
async function serve(app: App): Promise<string> {
  const s = await app.listen({ port: 0 });
  servers.push(s);
  return s.url;
}

let flaggedCalls = 0;
let main = "";
let bare = "";
let fallback = "";
let toonOnly = "";

before(async () => {
  const app = new App({ logger: silentLogger })
    .layer(negotiation())
    .routes(
      route.get("/users", [], () => negotiated(users)),
      route.get("/nested", [], () => negotiated(nested)),
      route.get("/unicode", [], () => negotiated({ name: "Zoë 🚀", tags: ["ü", "ß"] })),
      route.get("/custom", [], () => negotiated({ id: 1, ok: true }, { status: 203, headers: { "x-extra": "1", vary: "Origin", etag: '"json-v1"' } })),
      route.get("/flagged", { config: { negotiated: true } }, [], () => {
        flaggedCalls++;
        return users;
      }),
      route.post("/flagged", { config: { negotiated: true } }, [], () => created({ id: 9, name: "Nine" }, { location: "/flagged/9" })),
      route.get("/flagged-missing", { config: { negotiated: true } }, [], () => {
        throw ApiError.notFound("no such thing");
      }),
      route.get("/flagged-text", { config: { negotiated: true } }, [], () => textReply("just text")),
      route.get("/plain", [], () => users),
      route.get("/own-layer", { layers: [negotiation({ tokenHeaders: false })] }, [], () => negotiated(users)),
      route.get("/own-layer-flagged", { config: { negotiated: true }, layers: [negotiation({ fallbackToJson: true })] }, [], () => users),
    );
  main = await serve(app);
  bare = await serve(new App({ logger: silentLogger }).route(route.get("/users", [], () => negotiated(users))));
  fallback = await serve(
    new App({ logger: silentLogger })
      .layer(negotiation({ fallbackToJson: true, tokenHeaders: false }))
      .routes(route.get("/users", [], () => negotiated(users)), route.get("/flagged", { config: { negotiated: true } }, [], () => users)),
  );
  toonOnly = await serve(new App({ logger: silentLogger }).layer(negotiation({ tokenHeaders: "toon" })).route(route.get("/users", [], () => negotiated(users))));
});

after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

function get(base: string, path: string, accept?: string, method = "GET"): Promise<WireResponse> {
  return send(base + path, { method, headers: accept === undefined ? {} : { accept } });
}

describe("format selection", () => {
  test("no Accept: JSON with Vary and token headers", async () => {
    const r = await get(main, "/users");
    assert.equal(r.status, 200);
    assert.equal(r.headers["content-type"], "application/json");
    assert.deepEqual(JSON.parse(r.body), users);
    assert.deepEqual(varyList(r), ["accept"]);
    assert.equal(r.headers["x-format-used"], "json");
    assert.equal(r.headers["content-length"], String(r.raw.length));
  });

  test("Accept: application/toon gives the TOON encoding of the same value", async () => {
    const r = await get(main, "/users", "application/toon");
    assert.equal(r.status, 200);
    assert.equal(r.headers["content-type"], TOON_TYPE);
    assert.equal(r.body, encodeToon(users));
    assert.deepEqual(plain(decodeToon(r.body)), users);
    assert.equal(r.headers["x-format-used"], "toon");
    assert.deepEqual(varyList(r), ["accept"]);
    assert.equal(r.headers["content-length"], String(r.raw.length));
    assert.ok(r.raw.length < JSON.stringify(users).length, "TOON is smaller than JSON for tabular data");
  });

  test("Accept: text/toon is answered as text/toon", async () => {
    const r = await get(main, "/users", "text/toon");
    assert.equal(r.headers["content-type"], "text/toon; charset=utf-8");
    assert.equal(r.body, encodeToon(users));
  });

  test("q-values and wildcards", async () => {
    const cases: Array<[string, "json" | "toon"]> = [
      ["application/toon;q=0.5, application/json", "json"],
      ["application/json;q=0.5, application/toon", "toon"],
      ["application/json, application/toon", "toon"],
      ["*/*", "json"],
      ["application/*", "json"],
      ["text/*", "toon"],
      ["application/toon;q=0, */*", "json"],
      ["application/json;q=0, application/*", "toon"],
      ["text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "json"],
    ];
    for (const [accept, format] of cases) {
      const r = await get(main, "/users", accept);
      assert.equal(r.status, 200, accept);
      assert.equal(r.headers["x-format-used"], format, accept);
      if (format === "json") assert.deepEqual(JSON.parse(r.body), users, accept);
      else assert.deepEqual(plain(decodeToon(r.body)), users, accept);
    }
  });

  test("UTF-8 text keeps its bytes and content-length in both formats", async () => {
    const value = { name: "Zoë 🚀", tags: ["ü", "ß"] };
    const t = await get(main, "/unicode", "application/toon");
    assert.deepEqual(plain(decodeToon(t.raw.toString("utf8"))), value);
    assert.equal(t.headers["content-length"], String(Buffer.byteLength(encodeToon(value))));
    const j = await get(main, "/unicode");
    assert.deepEqual(JSON.parse(j.body), value);
  });

  test("status and headers given to negotiated() are kept; Vary is merged", async () => {
    const r = await get(main, "/custom", "application/toon");
    assert.equal(r.status, 203);
    assert.equal(r.headers["x-extra"], "1");
    assert.deepEqual(varyList(r), ["origin", "accept"]);
    assert.deepEqual(plain(decodeToon(r.body)), { id: 1, ok: true });
    assert.equal(r.headers["etag"], undefined, "the JSON ETag does not describe the TOON bytes");
    const j = await get(main, "/custom");
    assert.equal(j.headers["etag"], '"json-v1"');
  });

  test("HEAD sends the negotiated headers without a body", async () => {
    const r = await get(main, "/flagged", "application/toon", "HEAD");
    assert.equal(r.status, 200);
    assert.equal(r.body, "");
    assert.equal(r.headers["content-type"], TOON_TYPE);
    assert.equal(r.headers["content-length"], String(Buffer.byteLength(encodeToon(users))));
  });
});

describe("406 and the JSON fallback", () => {
  test("a client accepting neither format gets 406 in the uniform body", async () => {
    for (const accept of ["text/html", "application/json;q=0, application/toon;q=0, text/toon;q=0", "image/*"]) {
      const r = await get(main, "/users", accept);
      assert.equal(r.status, 406, accept);
      const body = JSON.parse(r.body) as { error: { type: string; message: string }; error_id: string };
      assert.equal(body.error.type, "not_acceptable");
      assert.match(body.error.message, /application\/toon/);
      assert.match(body.error_id, ERROR_ID);
      assert.deepEqual(varyList(r), ["accept"]);
      assert.equal(r.headers["content-type"], "application/json");
    }
  });

  test("on a flagged route the 406 comes before the handler runs", async () => {
    const before = flaggedCalls;
    const r = await get(main, "/flagged", "text/html");
    assert.equal(r.status, 406);
    assert.equal(flaggedCalls, before);
    const ok = await get(main, "/flagged", "application/toon");
    assert.equal(ok.status, 200);
    assert.equal(flaggedCalls, before + 1);
  });

  test("fallbackToJson answers JSON instead", async () => {
    for (const path of ["/users", "/flagged"]) {
      const r = await get(fallback, path, "text/html");
      assert.equal(r.status, 200, path);
      assert.equal(r.headers["content-type"], "application/json");
      assert.deepEqual(JSON.parse(r.body), users);
      assert.deepEqual(varyList(r), ["accept"]);
    }
  });
});

describe("token headers", () => {
  test("numbers: estimates of both encodings, savings = round((json - toon) / json * 100)", async () => {
    const want = expectedCounts(users);
    assert.ok(want.savings > 0);
    for (const accept of [undefined, "application/toon"]) {
      const r = await get(main, "/users", accept);
      assert.equal(r.headers["x-token-count-json"], String(want.json), accept);
      assert.equal(r.headers["x-token-count-toon"], String(want.toon), accept);
      assert.equal(r.headers["x-token-savings"], String(want.savings), accept);
    }
    // The header counts are the estimates of the bytes actually sent.
    const t = await get(main, "/users", "application/toon");
    assert.equal(t.headers["x-token-count-toon"], String(estimateTokens(t.body)));
    const j = await get(main, "/users");
    assert.equal(j.headers["x-token-count-json"], String(estimateTokens(j.body)));
  });

  test("negative savings when TOON is larger", async () => {
    const want = expectedCounts(nested);
    assert.ok(want.toon > want.json, "nested arrays are dearer in TOON");
    const r = await get(main, "/nested");
    assert.equal(r.headers["x-token-savings"], String(want.savings));
    assert.ok(Number(r.headers["x-token-savings"]) < 0);
  });

  test("tokenHeaders: false sends none of them, negotiation still works", async () => {
    const r = await get(fallback, "/users", "application/toon");
    assert.equal(r.headers["content-type"], TOON_TYPE);
    for (const h of ["x-token-count-json", "x-token-count-toon", "x-token-savings", "x-format-used"]) assert.equal(r.headers[h], undefined, h);
    assert.deepEqual(varyList(r), ["accept"]);
  });

  test('tokenHeaders: "toon" counts only on TOON answers', async () => {
    const j = await get(toonOnly, "/users");
    assert.equal(j.headers["x-format-used"], "json");
    assert.equal(j.headers["x-token-count-json"], undefined);
    assert.equal(j.headers["x-token-savings"], undefined);
    const t = await get(toonOnly, "/users", "application/toon");
    const want = expectedCounts(users);
    assert.equal(t.headers["x-format-used"], "toon");
    assert.equal(t.headers["x-token-count-json"], String(want.json));
    assert.equal(t.headers["x-token-savings"], String(want.savings));
  });

  test("invalid options fail when the layer is made", () => {
    assert.throws(() => negotiation({ toon: { indentSize: 0 } }));
    assert.throws(() => negotiation({ tokenHeaders: "yes" as unknown as boolean }), TypeError);
  });
});

describe("what gets negotiated", () => {
  test("without the layer negotiated() is plain JSON", async () => {
    const r = await get(bare, "/users", "application/toon");
    assert.equal(r.status, 200);
    assert.equal(r.headers["content-type"], "application/json");
    assert.deepEqual(JSON.parse(r.body), users);
    assert.equal(r.headers["x-format-used"], undefined);
    assert.equal(r.headers["vary"], undefined);
  });

  test("flagged routes negotiate plain returns and created(); headers survive", async () => {
    const g = await get(main, "/flagged", "application/toon");
    assert.equal(g.headers["content-type"], TOON_TYPE);
    assert.deepEqual(plain(decodeToon(g.body)), users);
    const p = await get(main, "/flagged", "application/toon", "POST");
    assert.equal(p.status, 201);
    assert.equal(p.headers["location"], "/flagged/9");
    assert.equal(p.headers["content-type"], TOON_TYPE);
    assert.deepEqual(plain(decodeToon(p.body)), { id: 9, name: "Nine" });
  });

  test("error replies and non-JSON replies are never rewritten", async () => {
    const e = await get(main, "/flagged-missing", "application/toon");
    assert.equal(e.status, 404);
    assert.equal(e.headers["content-type"], "application/json");
    assert.equal((JSON.parse(e.body) as { error: { type: string } }).error.type, "not_found");
    const t = await get(main, "/flagged-text", "application/toon");
    assert.equal(t.body, "just text");
    assert.equal(t.headers["content-type"], "text/plain; charset=utf-8");
  });

  test("unflagged routes returning plain values are untouched", async () => {
    const r = await get(main, "/plain", "application/toon");
    assert.equal(r.headers["content-type"], "application/json");
    assert.equal(r.headers["vary"], undefined);
    assert.equal(r.headers["x-format-used"], undefined);
  });

  test("a route's own negotiation layer takes precedence over the global one", async () => {
    const r = await get(main, "/own-layer", "application/toon");
    assert.equal(r.headers["content-type"], TOON_TYPE);
    assert.equal(r.headers["x-format-used"], undefined, "the route layer turned token headers off");
    assert.deepEqual(varyList(r), ["accept"], "negotiated once");
    // The route layer's fallbackToJson wins over the global 406 (which would run first).
    const f = await get(main, "/own-layer-flagged", "text/html");
    assert.equal(f.status, 200);
    assert.equal(f.headers["content-type"], "application/json");
  });
});

describe("declarations", () => {
  test("negotiated() builds a NegotiatedReply carrying its value", () => {
    const r = negotiated({ a: 1 });
    assert.ok(r instanceof NegotiatedReply);
    assert.equal(r.body, '{"a":1}');
    assert.deepEqual(r.value, { a: 1 });
    assert.equal(negotiated(undefined).body, null);
  });

  test("isNegotiatedRoute reads config.negotiated; the documented media types", () => {
    assert.equal(isNegotiatedRoute({ config: { negotiated: true } }), true);
    assert.equal(isNegotiatedRoute({ config: { negotiated: "yes" } }), false);
    assert.equal(isNegotiatedRoute({}), false);
    assert.equal(isNegotiatedRoute(undefined), false);
    assert.deepEqual(NEGOTIATED_MEDIA_TYPES, ["application/json", "application/toon"]);
  });
});
