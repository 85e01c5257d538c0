// keel/messages (issue 37 item 4): 422 field messages from catalogues chosen by Accept-Language or
// fixed per app, English built in byte for byte, the key table of docs/features/messages.md, the
// OpenAPI document unchanged.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { ApiError, App, json, query, route, t, type InjectResponse } from "../../lib/index.js";
import { messages, englishMessages, type MessageCatalogue } from "../../lib/messages/index.js";
import { selectLanguage } from "../../lib/plugin.js";
import { compileSchema } from "../../lib/json-schema/index.js";
import { openApiDocument } from "../../lib/openapi/index.js";

const page = readFileSync(new URL("../../docs/features/messages.md", import.meta.url), "utf8");
/** The German catalogue of the docs page (its JSON block under "A German catalogue"). */
const de = JSON.parse(/## A German catalogue[\s\S]*?```json\n([\s\S]*?)```/.exec(page)![1]!) as MessageCatalogue;

const User = t.object({
  name: t.string({ length: { min: 3 } }),
  age: t.integer({ minimum: 18 }),
  tags: t.array(t.string(), { minItems: 2 }),
  nick: t.string({ length: { max: 1 } }),
});
const bad = { name: "Al", age: 12, tags: ["x"], nick: "long" };

function build(options?: Parameters<typeof messages>[0]): App {
  const app = new App();
  if (options !== undefined) app.register(messages(options));
  return app.routes(
    route.post("/users", { responses: { 200: User } }, [json(User)], (body) => body),
    route.get("/search", [query(t.object({ q: t.string({ length: { min: 2 } }) }))], (q) => q),
  );
}

const plain = build();
const german = build({ catalogues: { de } });

async function post(app: App, acceptLanguage?: string, body: unknown = bad): Promise<InjectResponse> {
  const headers: Record<string, string> = acceptLanguage === undefined ? {} : { "accept-language": acceptLanguage };
  return app.inject({ method: "POST", url: "/users", headers, body });
}

interface Body {
  error: { type: string; message: string; fields: Array<{ field: string; code: string; message: string }> };
  error_id: string;
}
const GERMAN_FIELDS = [
  { field: "name", code: "length", message: "muss mindestens 3 Zeichen lang sein" },
  { field: "age", code: "range", message: "muss mindestens 18 sein" },
  { field: "tags", code: "minItems", message: "muss mindestens 2 Einträge haben" },
  { field: "nick", code: "length", message: "darf höchstens 1 Zeichen lang sein" },
];

describe("422 messages chosen by Accept-Language", () => {
  test("German for `de`: the same fields and codes, each message and the body's own in German, an error_id", async () => {
    const [english, res] = [await post(plain), await post(german, "de")];
    assert.equal(res.status, 422);
    const e = english.json<Body>();
    const g = res.json<Body>();
    assert.deepEqual(g.error.fields.map((f) => [f.field, f.code]), e.error.fields.map((f) => [f.field, f.code]));
    assert.deepEqual(g.error.fields, GERMAN_FIELDS);
    assert.deepEqual(Object.keys(g), Object.keys(e));
    assert.deepEqual(Object.keys(g.error), Object.keys(e.error));
    assert.equal(g.error.type, "validation_error");
    assert.equal(g.error.message, "Die Anfrage ist ungültig");
    assert.match(g.error_id, /^err_[0-9a-f]{32}$/);
    assert.equal(res.headers["content-language"], "de");
    assert.equal(res.headers["vary"], "Accept-Language");
  });

  test("an unknown language, `*`, or no header: the English body of an app without catalogues", async () => {
    const english = (await post(plain)).json<Body>().error;
    for (const header of ["fr", "*", undefined, "", "de;q=0"]) {
      const res = await post(german, header);
      assert.deepEqual(res.json<Body>().error, english, String(header));
      assert.equal(res.headers["content-language"], "en");
    }
  });

  test("q-values order the ranges; equal q: the earlier; a region falls back to its language", async () => {
    const lang = async (header: string): Promise<string> => String((await post(german, header)).headers["content-language"]);
    assert.equal(await lang("de;q=0.5, en;q=0.9"), "en");
    assert.equal(await lang("en;q=0.5, de"), "de");
    assert.equal(await lang("fr, de;q=0.1"), "de");
    assert.equal(await lang("de, en"), "de");
    assert.equal(await lang("en, de"), "en");
    assert.equal(await lang("de;q=1.5, en;q=0.2"), "en"); // a malformed q: the element is ignored
    assert.equal(await lang("de-CH"), "de");
    assert.equal((await post(german, "de-CH")).json<Body>().error.fields[0]!.message, GERMAN_FIELDS[0]!.message);
  });

  test("the query extractor's 422 too (prefix fields)", async () => {
    const res = await german.inject({ url: "/search?q=x", headers: { "accept-language": "de" } });
    assert.equal(res.status, 422);
    assert.deepEqual(res.json<Body>().error.fields, [{ field: "q", code: "length", message: "muss mindestens 2 Zeichen lang sein" }]);
  });

  test("other errors and successful replies are untouched", async () => {
    const ok = await post(german, "de", { name: "Alice", age: 30, tags: ["a", "b"], nick: "A" });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers["content-language"], undefined);
    const missing = await german.inject({ url: "/nope", headers: { "accept-language": "de" } });
    assert.equal(missing.status, 404);
    assert.equal(missing.json<Body>().error.message, "Not found");
    assert.equal(missing.headers["content-language"], undefined);
  });
});

describe("a fixed locale", () => {
  test("locale: every 422 in German whatever the client asks, without Vary", async () => {
    const app = build({ catalogues: { de }, locale: "de" });
    for (const header of ["en", undefined, "fr;q=0.3"]) {
      const res = await post(app, header);
      assert.deepEqual(res.json<Body>().error.fields, GERMAN_FIELDS, String(header));
      assert.equal(res.headers["content-language"], "de");
      assert.equal(res.headers["vary"], undefined);
    }
  });

  test("a region of a registered language resolves to it; one with no catalogue is refused at registration", () => {
    assert.doesNotThrow(() => messages({ catalogues: { de }, locale: "de-AT" }));
    assert.throws(() => messages({ catalogues: { de }, locale: "fr" }), /locale "fr" has no catalogue \(there are: en, de\)/);
  });
});

describe("a translation that cannot be made", () => {
  test("leaves the error as it was: an app's 422 with a fields value that is not a list still answers", async () => {
    const app = new App().register(messages({ catalogues: { de }, locale: "de" }));
    // Off the typed shape on purpose (a plain JS caller): the translator cannot map it.
    const odd = { field: "email", code: "invalid", message: "bad" } as never;
    app.routes(route.get("/odd", [], () => {
      throw new ApiError(422, "validation_error", "Request validation failed", { fields: odd });
    }));
    const res = await app.inject({ url: "/odd" });
    assert.equal(res.status, 422);
    const body = res.json<{ error: { message: string; fields: unknown }; error_id: string }>();
    assert.equal(body.error.message, "Request validation failed");
    assert.deepEqual(body.error.fields, { field: "email", code: "invalid", message: "bad" });
    assert.match(body.error_id, /^err_[0-9a-f]{32}$/);
  });
});

describe("catalogues", () => {
  test("a key the catalogue leaves out is written in English", async () => {
    const { ["range.minimum"]: _left, ...partial } = de;
    const res = await post(build({ catalogues: { de: partial } }), "de");
    const fields = res.json<Body>().error.fields;
    assert.equal(fields[1]!.message, "must be at least 18");
    assert.equal(fields[0]!.message, GERMAN_FIELDS[0]!.message);
  });

  test("a region's catalogue starts from its language's; parameters and plurals are interpolated", async () => {
    const app = build({ catalogues: { de, "de-CH": { "range.minimum": "muss mindestens {limit} sein (CH)" } } });
    const res = await post(app, "de-ch", { name: "Al", age: 12, tags: ["x"], nick: "A" });
    assert.deepEqual(res.json<Body>().error.fields.map((f) => f.message), [
      "muss mindestens 3 Zeichen lang sein",
      "muss mindestens 18 sein (CH)",
      "muss mindestens 2 Einträge haben",
    ]);
    assert.equal(res.headers["content-language"], "de-CH");
    const one = build({ catalogues: { de } }).routes(route.post("/one", [json(t.object({ tags: t.array(t.string(), { minItems: 1 }) }))], (b) => b));
    const res1 = await one.inject({ method: "POST", url: "/one", headers: { "accept-language": "de" }, body: { tags: [] } });
    assert.equal(res1.json<Body>().error.fields[0]!.message, "muss mindestens 1 Eintrag haben");
  });

  test("type names and their joiner come from the catalogue", async () => {
    const app = new App().register(messages({ catalogues: { de } })).routes(
      route.post("/t", [json(t.object({ n: t.nullable(t.string()), i: t.integer() }))], (b) => b),
    );
    const res = await app.inject({ method: "POST", url: "/t", headers: { "accept-language": "de" }, body: { n: 1, i: "x" } });
    assert.deepEqual(res.json<Body>().error.fields, [
      { field: "n", code: "type", message: "muss eine Zeichenkette oder null sein" }, // English: must be a string or null
      { field: "i", code: "type", message: "muss eine ganze Zahl sein" },
    ]);
  });

  test("messages a schema sets itself are left as written", async () => {
    const app = new App().register(messages({ catalogues: { de } })).routes(
      route.post("/x", [json({ type: "object", properties: { a: { type: "string", minLength: 3, "x-message": "too short, friend" } } })], (b) => b),
    );
    const res = await app.inject({ method: "POST", url: "/x", headers: { "accept-language": "de" }, body: { a: "x" } });
    assert.deepEqual(res.json<Body>().error.fields, [{ field: "a", code: "length", message: "too short, friend" }]);
  });

  test("a mistake in a catalogue fails registration: unknown key, unknown parameter, bad template, bad tag", () => {
    assert.throws(() => messages({ catalogues: { de: { minlength: "x" } as MessageCatalogue } }), /de: unknown message key "minlength"/);
    assert.throws(() => messages({ catalogues: { de: { required: "{field} fehlt" } } }), /de: required uses \{field\}, which it does not have \(it has none\)/);
    assert.throws(() => messages({ catalogues: { de: { "length.min": "{limit, plural, one {# Zeichen}}" } } }), /needs an "other" branch/);
    assert.throws(() => messages({ catalogues: { de: { "length.min": "{limit" } } }), /unterminated/);
    assert.throws(() => messages({ catalogues: { "de_DE": de } }), /not a language tag/);
    assert.throws(() => new App().register(messages()).register(messages()), /registered on this app already/);
  });
});

describe("the English catalogue", () => {
  test("each message the validators write is read back and written again unchanged, on both engines", () => {
    const english = messages({ catalogues: { en: { ...englishMessages } } });
    const app = new App().register(english);
    const schema = {
      type: "object",
      required: ["r"],
      properties: {
        s: { type: "string", minLength: 2, maxLength: 3, pattern: "^[a-z]+$", format: "email" },
        d: { type: "string", format: "date" },
        n: { type: "number", minimum: 1, maximum: 2, exclusiveMinimum: 0, multipleOf: 0.5 },
        x: { type: "number", exclusiveMaximum: 5 },
        e: { enum: ["a", "b"] },
        c: { const: 1 },
        a: { type: "array", minItems: 2, maxItems: 3, uniqueItems: true },
        o: { type: "object", minProperties: 2, maxProperties: 3, additionalProperties: false, properties: { k: {} } },
        u: { anyOf: [{ type: "string" }, { type: "integer" }] },
        w: { oneOf: [{ type: "integer" }, { minimum: 0 }] },
        t: { not: { type: "string" } },
        p: { type: "array", prefixItems: [{}], items: false },
        f: false,
        m: { type: ["string", "null"] },
      },
    };
    const value = { s: "AB1234", d: "x", n: 7, x: 9, e: "z", c: 2, a: [1, 1, 1, 1], o: { q: 1, r: 2, s: 3, t: 4 }, u: true, w: 3, t: "s", p: [1, 2], f: 1, m: 3 };
    for (const codegen of [true, false]) {
      const fields = compileSchema(schema, { codegen }).validate(structuredClone(value))!;
      assert.ok(fields.length >= 15, `${fields.length} fields`);
      const rewritten = app.runtime.localize!(
        { status: 422, type: "validation_error", message: "Request validation failed", fields, headers: undefined, detail: undefined, cause: undefined } as never,
        { headers: {} } as never,
      );
      assert.deepEqual(rewritten.fields, fields);
    }
  });
});

describe("the key table of docs/features/messages.md", () => {
  test("lists every key of the English catalogue, with its English text, and nothing else", () => {
    const rows = [...page.matchAll(/^\| `([^`]+)` \|[^|]*\|[^|]*\| (.*) \|$/gm)].map((m) => [m[1]!, m[2]!]);
    assert.deepEqual(rows.map((r) => r[0]), Object.keys(englishMessages));
    for (const [key, text] of rows) {
      const english = englishMessages[key as keyof typeof englishMessages];
      assert.equal(text, english.startsWith(" ") ? JSON.stringify(english) : english, key);
    }
  });
});

describe("OpenAPI", () => {
  test("the document of an app with catalogues equals the one without", () => {
    assert.deepEqual(openApiDocument(german), openApiDocument(plain));
  });
});

describe("selectLanguage (keel/plugin)", () => {
  const tags = ["en", "de", "pt-br"];
  test("exact, then a tag the range prefixes, then the range's own prefixes; case-insensitive", () => {
    assert.equal(selectLanguage("DE", tags), "de");
    assert.equal(selectLanguage("pt", tags), "pt-br");
    assert.equal(selectLanguage("pt-BR", tags), "pt-br");
    assert.equal(selectLanguage("de-CH-1996", tags), "de");
    assert.equal(selectLanguage("fr, *", tags), undefined);
    assert.equal(selectLanguage(undefined, tags), undefined);
    assert.equal(selectLanguage("fr;q=1, de;q=0.001", tags), "de");
    assert.equal(selectLanguage("de;q=0, en;q=0", tags), undefined);
  });
});
