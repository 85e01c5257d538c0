// The toon(schema) body extractor over a real socket (lib/toon/toon-body.ts): media check 415,
// decode errors 400 with positions, schema failures 422, limits, and hostile input.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { App, optional, route, silentLogger, t, type ListeningServer } from "../../lib/index.js";
import { toon } from "../../lib/toon/index.js";
import { encodeToon } from "../../lib/toon/index.js";
import { ERROR_ID, send, type WireResponse } from "../support/http.js";

const NewUser = t.object({
  name: t.string({ length: { min: 2 } }),
  email: t.string({ email: true }),
  age: t.optional(t.integer({ minimum: 0 })),
  tags: t.array(t.string()),
});

interface ErrorBody {
  error: { type: string; message: string; fields?: Array<{ field: string; code: string; message: string }> };
  error_id: string;
}

let base = "";
let shallow = "";
const servers: ListeningServer[] = [];
/** What the raw route saw: the decoded value's prototype and own keys. */
let lastRaw: { proto: unknown; keys: string[] } | null = null;

before(async () => {
  const app = new App({ logger: silentLogger, bodyLimit: 4096 }).routes(
    route.post("/users", [toon(NewUser)], (u) => ({ got: u, ageType: typeof u.age })),
    route.post("/raw", [toon()], (v) => {
      lastRaw = { proto: v !== null && typeof v === "object" ? Object.getPrototypeOf(v) : "primitive", keys: v !== null && typeof v === "object" ? Object.keys(v) : [] };
      return { value: v };
    }),
    route.post("/maybe", [optional(toon(NewUser))], (u) => ({ present: u !== undefined })),
    route.post("/lenient", [toon(t.object({ tags: t.array(t.string()) }), { strict: false })], (v) => v),
    route.post("/defaults", [toon(t.object({ name: t.string(), role: t.string({ default: "member" }) }), { useDefaults: true })], (v) => v),
  );
  const s = await app.listen({ port: 0 });
  servers.push(s);
  base = s.url;
  const s2 = await new App({ logger: silentLogger, jsonDepth: 4 }).route(route.post("/raw", [toon()], (v) => ({ value: v }))).listen({ port: 0 });
  servers.push(s2);
  shallow = s2.url;
});

after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** `contentType: null` sends none. */
function post(path: string, body: string | Buffer | undefined, contentType: string | null = "application/toon", url = base): Promise<WireResponse> {
  const headers: Record<string, string> = {};
  if (contentType !== null) headers["content-type"] = contentType;
  return send(url + path, { method: "POST", headers, ...(body === undefined ? {} : { body }) });
}

function errorOf(r: WireResponse): ErrorBody {
  const b = JSON.parse(r.body) as ErrorBody;
  assert.match(b.error_id, ERROR_ID);
  return b;
}

const valid = "name: Ada\nemail: ada@example.com\nage: 36\ntags[2]: math,engines";

describe("valid bodies", () => {
  test("application/toon, decoded and validated into typed values", async () => {
    const r = await post("/users", valid);
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.body), {
      got: { name: "Ada", email: "ada@example.com", age: 36, tags: ["math", "engines"] },
      ageType: "number",
    });
  });

  test("text/toon with a charset, and what encodeToon writes, are accepted", async () => {
    const value = { name: "Bob", email: "bob@example.com", tags: [] as string[] };
    for (const ct of ["text/toon; charset=utf-8", "Application/TOON"]) {
      const r = await post("/users", encodeToon(value), ct);
      assert.equal(r.status, 200, ct);
      assert.deepEqual((JSON.parse(r.body) as { got: unknown }).got, value);
    }
  });

  test("a UTF-8 BOM is ignored; non-ASCII text survives", async () => {
    const r = await post("/users", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("name: Zoë\nemail: z@example.com\ntags[1]: 🚀")]));
    assert.equal(r.status, 200);
    assert.deepEqual((JSON.parse(r.body) as { got: { name: string; tags: string[] } }).got.tags, ["🚀"]);
  });

  test("decoded objects have null prototypes", async () => {
    const r = await post("/raw", "a: 1\nb:\n  c: true");
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.body), { value: { a: 1, b: { c: true } } });
    assert.equal(lastRaw?.proto, null);
    assert.deepEqual(lastRaw?.keys, ["a", "b"]);
  });

  test("options: strict off tolerates a count mismatch; useDefaults fills defaults", async () => {
    const lenient = await post("/lenient", "tags[3]: a,b");
    assert.equal(lenient.status, 200);
    assert.deepEqual(JSON.parse(lenient.body), { tags: ["a", "b"] });
    const d = await post("/defaults", "name: Ada");
    assert.deepEqual(JSON.parse(d.body), { name: "Ada", role: "member" });
  });
});

describe("rejections", () => {
  test("malformed TOON is a 400 naming the line", async () => {
    const cases: Array<[string, number]> = [
      ["name: Ada\nemail: a@b.co\ntags[3]: a,b", 3],
      ['name: "unterminated\nemail: x', 1],
      ["name: Ada\n   email: x", 2],
      ["a: 1\na: 2", 2],
    ];
    for (const [body, line] of cases) {
      const r = await post("/users", body);
      assert.equal(r.status, 400, body);
      const e = errorOf(r);
      assert.equal(e.error.type, "bad_request");
      assert.match(e.error.message, /^Invalid TOON: /);
      assert.match(e.error.message, new RegExp(`line ${line}\\b`), e.error.message);
    }
  });

  test("schema failures are 422 with field items", async () => {
    const r = await post("/users", "name: A\nemail: not-an-email\nage: -1\ntags[1]: x");
    assert.equal(r.status, 422);
    const e = errorOf(r);
    assert.equal(e.error.type, "validation_error");
    const fields = (e.error.fields ?? []).map((f) => f.field).sort();
    assert.deepEqual(fields, ["age", "email", "name"]);
    const missing = await post("/users", "name: Ada");
    assert.equal(missing.status, 422);
  });

  test("wrong or missing content-type is 415", async () => {
    for (const ct of ["application/json", "text/plain", "application/toon+json", null]) {
      const r = await post("/users", valid, ct);
      assert.equal(r.status, 415, String(ct));
      const e = errorOf(r);
      assert.equal(e.error.type, "unsupported_media_type");
      assert.match(e.error.message, /application\/toon/);
    }
  });

  test("empty body: 400, or undefined through optional()", async () => {
    const r = await post("/users", "");
    assert.equal(r.status, 400);
    assert.match(errorOf(r).error.message, /empty/);
    const blank = await post("/users", " \n  \n");
    assert.equal(blank.status, 400);
    const maybe = await post("/maybe", "");
    assert.equal(maybe.status, 200);
    assert.deepEqual(JSON.parse(maybe.body), { present: false });
    const present = await post("/maybe", valid);
    assert.deepEqual(JSON.parse(present.body), { present: true });
  });

  test("invalid UTF-8 is 400", async () => {
    const r = await post("/raw", Buffer.from([0x61, 0x3a, 0x20, 0xff, 0xfe]));
    assert.equal(r.status, 400);
    assert.match(errorOf(r).error.message, /UTF-8/);
  });

  test("bodies over the limit are 413", async () => {
    const r = await post("/raw", "a: " + "x".repeat(5000));
    assert.equal(r.status, 413);
    assert.equal(errorOf(r).error.type, "payload_too_large");
  });

  test("nesting beyond the app's jsonDepth is 400", async () => {
    let deep = "";
    for (let i = 0; i < 8; i++) deep += "  ".repeat(i) + `k${i}:\n`;
    deep += "  ".repeat(8) + "v: 1";
    const r = await post("/raw", deep, "application/toon", shallow);
    assert.equal(r.status, 400);
    assert.match(errorOf(r).error.message, /^Invalid TOON: /);
    const ok = await post("/raw", "a:\n  b: 1", "application/toon", shallow);
    assert.equal(ok.status, 200);
  });
});

describe("prototype pollution", () => {
  test("__proto__ keys are refused (like JSON bodies) and pollute nothing", async () => {
    const bodies = [
      "__proto__:\n  polluted: yes",
      '"__proto__":\n  polluted: yes',
      "a:\n  b:\n    __proto__:\n      polluted: yes",
      "items[1]:\n  - __proto__:\n      polluted: yes",
      "rows[1]{__proto__,x}:\n  1,2",
      "constructor:\n  prototype:\n    polluted: yes",
    ];
    for (const body of bodies) {
      const r = await post("/raw", body);
      assert.equal(r.status, 400, body);
      assert.match(errorOf(r).error.message, /Forbidden key "(__proto__|constructor\.prototype)" in TOON body/, body);
    }
    assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
    assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, "polluted"), false);
  });

  test("ordinary keys that merely look related are fine", async () => {
    const r = await post("/raw", "constructor: plain\nproto: 1\nprototype: 2");
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.body), { value: { constructor: "plain", proto: 1, prototype: 2 } });
  });
});

describe("hostile input", () => {
  test("garbage never crashes the server: always a 4xx in the uniform body", async () => {
    let seed = 7;
    const rand = (k: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % k;
    };
    const alphabet = ['a', ':', ' ', '\n', '[', ']', '{', '}', ',', '|', '\t', '"', '\\', '-', '1', '#', '__proto__', 'é'];
    const bodies: string[] = ["[999999999]:", "a[99999999]{x}:\n  1", "- - - -", "\\", '"', "a: [", "[2]: 1", "x\n".repeat(500)];
    for (let i = 0; i < 120; i++) {
      let s = "";
      const len = 1 + rand(60);
      for (let j = 0; j < len; j++) s += alphabet[rand(alphabet.length)];
      bodies.push(s);
    }
    for (const body of bodies) {
      const r = await post("/users", body);
      assert.ok(r.status === 400 || r.status === 422, `${JSON.stringify(body)} -> ${r.status}`);
      errorOf(r);
    }
    // Still serving.
    assert.equal((await post("/users", valid)).status, 200);
  });
});

describe("documentation", () => {
  test("the extractor documents both TOON media types, its schema and error statuses", () => {
    const e = toon(NewUser);
    assert.equal(e.consumesBody, true);
    assert.deepEqual(e.doc.body?.contentTypes, ["application/toon", "text/toon"]);
    assert.equal(e.doc.body?.schema, NewUser);
    assert.deepEqual(e.doc.errorStatuses, [400, 413, 415, 422]);
    assert.deepEqual(toon().doc.errorStatuses, [400, 413, 415]);
  });
});
