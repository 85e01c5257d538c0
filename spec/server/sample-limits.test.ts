// The sample's resources are bounded the way a user would copy: every mutating route has a
// per-client budget, and lists come a page at a time (limit up to 100, opaque cursor).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { silentLogger } from "../../lib/index.js";
import { createSampleApp, UserStore } from "../../lib/sample/index.js";

interface Page {
  users: Array<{ id: number; email: string }>;
  total: number;
  next_cursor: string | null;
}

describe("GET /api/v1/users is paginated", () => {
  it("answers the first page by default and says there is no next one when all fit", async () => {
    const app = createSampleApp({ logger: silentLogger });
    const r = await app.inject({ url: "/api/v1/users" });
    assert.equal(r.status, 200);
    const page = r.json<Page>();
    assert.equal(page.users.length, 12);
    assert.equal(page.total, 12);
    assert.equal(page.next_cursor, null);
  });

  it("walks a large table in pages of at most 100, each user once, in id order", async () => {
    const users = new UserStore();
    for (let i = 0; i < 2488; i++) users.add(`user${i}@example.com`);
    const app = createSampleApp({ logger: silentLogger, users });
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const url: string = "/api/v1/users?limit=100" + (cursor === null ? "" : `&cursor=${cursor}`);
      const r = await app.inject({ url });
      assert.equal(r.status, 200, r.body);
      const page = r.json<Page>();
      assert.ok(page.users.length <= 100);
      assert.equal(page.total, 2500);
      seen.push(...page.users.map((u) => u.id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor !== null && pages < 100);
    assert.equal(pages, 25);
    assert.deepEqual(seen, Array.from({ length: 2500 }, (_, i) => i + 1));
  });

  it("the default page is 20 users, however large the table", async () => {
    const users = new UserStore();
    for (let i = 0; i < 5000; i++) users.add(`u${i}@example.com`);
    const r = await createSampleApp({ logger: silentLogger, users }).inject({ url: "/api/v1/users" });
    const page = r.json<Page>();
    assert.equal(page.users.length, 20);
    assert.equal(typeof page.next_cursor, "string");
  });

  for (const [query, status] of [
    ["limit=101", 422],
    ["limit=0", 422],
    ["limit=abc", 422],
    ["cursor=%21%21", 422],
    ["cursor=bm90LWEtY3Vyc29y", 400], // base64url of "not-a-cursor"
  ] as const) {
    it(`refuses ${query} with ${status}`, async () => {
      const r = await createSampleApp({ logger: silentLogger }).inject({ url: `/api/v1/users?${query}` });
      assert.equal(r.status, status, r.body);
      assert.match(r.json<{ error_id: string }>().error_id, /^err_/);
    });
  }
});

describe("mutating routes are rate-limited per client", () => {
  const newUser = (i: number) => ({ email: `n${i}@example.com`, password: "long enough" });

  it("POST /users: a burst past the write budget gets 429; another client is unaffected", async () => {
    const app = createSampleApp({ logger: silentLogger });
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      statuses.push((await app.inject({ method: "POST", url: "/users", body: newUser(i), remoteAddress: "203.0.113.1" })).status);
    }
    const created = statuses.filter((s) => s === 201).length;
    assert.ok(created >= 20 && created < 40, `created ${created} of 40`);
    const limited = await app.inject({ method: "POST", url: "/users", body: newUser(99), remoteAddress: "203.0.113.1" });
    assert.equal(limited.status, 429);
    assert.equal(limited.json<{ error: { type: string } }>().error.type, "rate_limit_exceeded");
    assert.ok(limited.headers["retry-after"] !== undefined);
    const other = await app.inject({ method: "POST", url: "/users", body: newUser(100), remoteAddress: "203.0.113.2" });
    assert.equal(other.status, 201);
  });

  it("reads do not spend the write budget", async () => {
    const app = createSampleApp({ logger: silentLogger });
    for (let i = 0; i < 60; i++) assert.equal((await app.inject({ url: "/users/1", remoteAddress: "203.0.113.3" })).status, 200);
    assert.equal((await app.inject({ method: "POST", url: "/users", body: newUser(1), remoteAddress: "203.0.113.3" })).status, 201);
  });

  it("every mutating route of the sample carries the write limit", async () => {
    const app = createSampleApp({ logger: silentLogger });
    const mutating = app.routeTable().filter((r) => r.method !== "GET" && r.method !== "HEAD");
    assert.ok(mutating.length >= 4, `found ${mutating.map((r) => r.method + " " + r.path).join(", ")}`);
    for (const def of mutating) {
      // Exhaust the budget with requests that fail fast (no body): the limit answers before validation.
      let last = 0;
      for (let i = 0; i < 30 && last !== 429; i++) last = (await app.inject({ method: def.method, url: def.path, remoteAddress: `198.51.100.${def.path.length}` })).status;
      assert.equal(last, 429, `${def.method} ${def.path} is not rate-limited`);
    }
  });
});
