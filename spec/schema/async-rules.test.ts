// Async rules: asyncUnique (database adapter) and customAsync (named function), run after sync
// rules, concurrently, each with a timeout; infrastructure failures reject, they are not 422 items.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { asyncUnique, compileSchema, customAsync, SchemaAsyncRuleError, t, type AsyncRuleAdapters } from "../../lib/json-schema/index.js";

const Signup = t.object({
  email: t.string({ email: true, async: [asyncUnique({ table: "users", column: "email" })] }),
  username: t.string({ async: [customAsync("not_reserved")] }),
  invites: t.optional(t.array(t.string({ async: [asyncUnique({ table: "invites", column: "code", message: "invite already used" })] }))),
});

function adapters(taken: Set<string>, log: string[] = []): AsyncRuleAdapters {
  return {
    db: {
      async isUnique(table, column, value) {
        log.push(`${table}.${column}=${String(value)}`);
        await sleep(5);
        return !taken.has(`${table}.${column}=${String(value)}`);
      },
    },
    custom: {
      async not_reserved(value) {
        return value === "admin" ? { code: "reserved", message: "is reserved" } : null;
      },
    },
  };
}

describe("async rules", () => {
  const compiled = compileSchema(Signup);

  test("the schema carries the rules as plain JSON (x-keel-async)", () => {
    assert.equal(compiled.hasAsyncRules, true);
    assert.deepEqual((Signup["properties"] as Record<string, Record<string, unknown>>)["email"]?.["x-keel-async"], [
      { kind: "unique", table: "users", column: "email" },
    ]);
    assert.equal(compileSchema(t.object({ a: t.string() })).hasAsyncRules, false);
  });

  test("passing values give no items", async () => {
    const value = { email: "new@example.com", username: "ada" };
    assert.equal(compiled.validate(value), null);
    assert.deepEqual(await compiled.runAsync(value, adapters(new Set())), []);
  });

  test("failures become field items with the rule's code and message", async () => {
    const value = { email: "taken@example.com", username: "admin", invites: ["x1", "x2"] };
    const errors = await compiled.runAsync(value, adapters(new Set(["users.email=taken@example.com", "invites.code=x2"])));
    assert.deepEqual(errors, [
      { field: "email", code: "async_unique", message: "is already taken" },
      { field: "username", code: "reserved", message: "is reserved" },
      { field: "invites[1]", code: "async_unique", message: "invite already used" },
    ]);
  });

  test("rules run concurrently", async () => {
    const invites = Array.from({ length: 20 }, (_, i) => `code${i}`);
    let inFlight = 0;
    let most = 0;
    const counting: AsyncRuleAdapters = {
      ...adapters(new Set()),
      db: {
        async isUnique() {
          most = Math.max(most, ++inFlight);
          await sleep(5);
          inFlight--;
          return true;
        },
      },
    };
    await compiled.runAsync({ email: "a@b.co", username: "u", invites }, counting);
    assert.equal(most, 21, "all 21 unique checks were in flight together");
  });

  test("a slow adapter times out with SchemaAsyncRuleError", async () => {
    const slow: AsyncRuleAdapters = { ...adapters(new Set()), db: { isUnique: () => sleep(1000, true, { ref: false }) } };
    await assert.rejects(compiled.runAsync({ email: "a@b.co", username: "u" }, slow, 20), (e: unknown) => {
      assert.ok(e instanceof SchemaAsyncRuleError);
      assert.equal(e.reason, "timeout");
      assert.equal(e.field, "email");
      return true;
    });
  });

  test("a throwing adapter and a missing adapter reject", async () => {
    const broken: AsyncRuleAdapters = { ...adapters(new Set()), db: { isUnique: async () => { throw new Error("db down"); } } };
    await assert.rejects(compiled.runAsync({ email: "a@b.co", username: "u" }, broken), (e: unknown) => e instanceof SchemaAsyncRuleError && e.reason === "failed");
    await assert.rejects(compiled.runAsync({ email: "a@b.co", username: "u" }, { db: adapters(new Set()).db! }), (e: unknown) =>
      e instanceof SchemaAsyncRuleError && e.reason === "missing_adapter" && e.rule === "not_reserved");
  });

  test("the number of async checks per value is bounded", async () => {
    const many = compileSchema(Signup, { maxErrors: 5 });
    const invites = Array.from({ length: 50 }, (_, i) => `c${i}`);
    const log: string[] = [];
    const errors = await many.runAsync({ email: "a@b.co", username: "u", invites }, adapters(new Set(), log));
    assert.deepEqual(errors.map((e) => e.code), ["async_limit"]);
    assert.equal(log.length, 0, "nothing runs when over the limit");
  });

  test("raw schemas can carry async rules", async () => {
    const raw = compileSchema({ type: "object", properties: { name: { type: "string", "x-keel-async": [customAsync("not_reserved")] } } });
    assert.deepEqual(await raw.runAsync({ name: "admin" }, adapters(new Set())), [{ field: "name", code: "reserved", message: "is reserved" }]);
  });
});
