// Async validation rules through the json() extractor: run after sync rules pass, join the 422.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { App, json, route, silentLogger, t } from "../../lib/index.js";
import { asyncUnique, customAsync } from "../../lib/json-schema/index.js";

type ErrorBody = { error: { type: string; message: string; fields?: Array<{ field: string; code: string; message: string }> } };

describe("async rules in request validation", () => {
  const Signup = t.object({
    email: t.string({ email: true, async: [asyncUnique({ table: "users", column: "email" })] }),
    handle: t.string({ length: { min: 3 }, async: [customAsync("handleAllowed")] }),
  });
  const calls: string[] = [];
  const app = new App({
    logger: silentLogger,
    asyncRuleTimeout: 200,
    validation: {
      db: {
        async isUnique(table, column, value) {
          calls.push(`unique:${table}.${column}=${String(value)}`);
          return value !== "taken@example.com";
        },
      },
      custom: {
        async handleAllowed(value) {
          calls.push(`custom:${String(value)}`);
          if (value === "slow") return new Promise(() => {});
          return value === "admin" ? { code: "reserved", message: "this handle is reserved" } : null;
        },
      },
    },
  }).route(route.post("/signup", [json(Signup)], (b) => ({ ok: b.email })));
  const post = (body: unknown) => app.inject({ method: "POST", url: "/signup", body });

  it("passes when every rule passes", async () => {
    const r = await post({ email: "new@example.com", handle: "neo" });
    assert.equal(r.status, 200);
  });

  it("async failures join the 422 body with their codes", async () => {
    const r = await post({ email: "taken@example.com", handle: "admin" });
    assert.equal(r.status, 422);
    const b = r.json<ErrorBody>();
    assert.equal(b.error.type, "validation_error");
    const items = (b.error.fields ?? []).map((f) => `${f.field}:${f.code}`).sort();
    assert.deepEqual(items, ["email:async_unique", "handle:reserved"]);
  });

  it("async rules do not run when a sync rule failed", async () => {
    calls.length = 0;
    const r = await post({ email: "not-an-email", handle: "admin" });
    assert.equal(r.status, 422);
    assert.deepEqual(calls, []);
  });

  it("a rule that times out is a 503, not a client error", async () => {
    const r = await post({ email: "new2@example.com", handle: "slow" });
    assert.equal(r.status, 503);
  });

  it("a missing adapter is a 500 (a wiring mistake), never a silent pass", async () => {
    const bare = new App({ logger: silentLogger }).route(route.post("/signup", [json(Signup)], () => "ok"));
    const r = await bare.inject({ method: "POST", url: "/signup", body: { email: "x@example.com", handle: "abc" } });
    assert.equal(r.status, 500);
  });
});
